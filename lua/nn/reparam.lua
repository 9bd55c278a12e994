-- The steps shared by the wrappers that reparametrize a module's weight (nn.WeightNorm,
-- nn.SpectralNorm): both write the weight from their own parameters in updateOutput and turn the
-- wrapped module's weight gradient into their parameters' gradients in accGradParameters.
local reparam = {}

-- The gradient the wrapped module m gives its weight for this call alone: m accumulates into
-- wrapper._gradW (zeroed, shaped like w) in place of its own m[gradName], which is put back even
-- when m raises.
function reparam.weightGradient(wrapper, m, w, gradName, input, gradOutput, scale)
  local saved = m[gradName]
  wrapper._gradW = (wrapper._gradW and wrapper._gradW:type() == w:type()) and wrapper._gradW or w.new()
  wrapper._gradW:resize(w:size()):zero()
  m[gradName] = wrapper._gradW
  local ok, err = pcall(m.accGradParameters, m, input, gradOutput, scale or 1)
  m[gradName] = saved
  if not ok then error(err, 0) end
  return wrapper._gradW
end

-- Torch7's accUpdateGradParameters for a wrapper whose parameters() are its own: the step
-- p -= lr * g with this call's gradients alone, leaving the accumulated ones as they were.
function reparam.accUpdateGradParameters(wrapper, input, gradOutput, lr)
  local params, grads = wrapper:parameters()
  local saved = {}
  for i, g in ipairs(grads) do saved[i] = g:clone() g:zero() end
  wrapper:accGradParameters(input, gradOutput, 1)
  for i, p in ipairs(params) do
    p:add(-lr, grads[i])
    grads[i]:copy(saved[i])
  end
end

return reparam
