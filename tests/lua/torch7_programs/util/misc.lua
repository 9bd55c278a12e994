-- Part of the char-rnn imitation (karpathy/char-rnn util/misc.lua): clone_list copies a list of
-- tensors (optionally zeroed), as the training loop does for the initial RNN state.
function clone_list(tensor_list, zero_too)
  -- takes a list of tensors and returns a list of cloned tensors
  local out = {}
  for k, v in pairs(tensor_list) do
    out[k] = v:clone()
    if zero_too then out[k]:zero() end
  end
  return out
end
