-- The versions of a coarse nn node's input tensors, noted at its forward and checked at its
-- backward (used by lua/nn/Module.lua's forward_as_node and coarse backward).
--
-- Note [Inputs written after the forward]: a coarse node keeps its input tensors themselves (the
-- module's updateGradInput and accGradParameters read them), so a write into them between the
-- forward and the backward changed the gradients silently: a module with no backward of its own
-- (char-rnn's OneHot) fills the same output buffer at every call, and with the module used twice
-- in one graph the first call's Linear computed its weight gradient from the second call's
-- input. The node notes the versions of its inputs' storages (every in-place write bumps them:
-- Note [Version counter]) and its backward refuses to run on changed inputs, as PyTorch refuses a
-- saved tensor modified in place.
local tensor_version = require('torch.lib').C.tocha_tensor_version
local M = {}

-- The versions of a flat list of tensors.
function M.capture(inputs)
  local v = {}
  for i = 1, #inputs do v[i] = tensor_version(inputs[i].p) end
  return v
end

-- Raises when a tensor of the flat list `inputs` changed since `versions` (label names the module).
function M.check(inputs, versions, label)
  for i, v in ipairs(versions) do
    local t = inputs[i]
    if t and tensor_version(t.p) ~= v then
      error(string.format('[backward] input %d of %s was modified in place after its forward (version %d, now %d): '
        .. 'its gradients would be wrong. A module that defines no backward (or any in-place write) reused the '
        .. 'tensor; clone() it, or give each use its own module', i, label, v, tensor_version(t.p)), 0)
    end
  end
end

return M
