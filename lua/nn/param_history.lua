-- The parameters of a Torch7-style module that have an autograd history, and the capture of
-- their gradients in a coarse node's backward (Note [Parameters with a history]; used by
-- lua/nn/Module.lua's forward_as_node and coarse_backward).
local M = {}

-- Note [Parameters with a history]: a parameter that requires grad but is not a leaf (m.weight =
-- torch.cmul(w, s), or the tensors torch.func.functionalCall puts in place) is an input of the
-- coarse node, and its gradient for this call goes back through the graph: accGradParameters
-- accumulates into a zeroed buffer put in place of its gradient field (the capture nn.WeightNorm
-- uses), so the tensors it was computed from get their gradients and gradWeight is left alone.
-- Before, accGradParameters filled gradWeight only and the graph above the parameter got nothing.
-- Leaf parameters keep accumulating into gradWeight, which is their .grad (linkGradients).
-- Such parameters, and those torch.func.functionalCall put in place (it marks the module with
-- _substitutedParams), are also captured at the forward and put back for the backward: by then
-- the caller may have restored the module's own (functionalCall does), and updateGradInput
-- must use the weight the forward used.
-- Runs on every forward that records a coarse node, so it allocates nothing in the usual case
-- (no such parameter).
local function add_if_historied(self, n, hist)
  local p = self[n]
  if torch.isTensor(p) and p:needsGrad() and not p:isLeaf() then
    hist = hist or {}
    hist[#hist + 1] = { name = n, gradName = nn.Module.gradName(n), param = p }
  end
  return hist
end

function M.params_with_history(self)
  local hist
  if self.weight then hist = add_if_historied(self, 'weight', hist) end
  if self.bias then hist = add_if_historied(self, 'bias', hist) end
  local reg = self._registeredParams
  if reg then for _, n in ipairs(reg) do hist = add_if_historied(self, n, hist) end end
  return hist
end

-- accGradParameters with each parameter with a history accumulating into its own zeroed buffer.
function M.acc_grad_capturing(module, hist, input, gradOutput, scale)
  local saved = {}
  for k, h in ipairs(hist) do
    saved[k] = module[h.gradName]
    h.grad = h.param.new(h.param:size()):zero()
    module[h.gradName] = h.grad
  end
  local ok, err = pcall(module.accGradParameters, module, input, gradOutput, scale)
  for k, h in ipairs(hist) do module[h.gradName] = saved[k] end
  if not ok then error(err, 0) end
end

local function own_names(self)
  local names = { 'weight', 'bias' }
  for _, n in ipairs(self._registeredParams or {}) do names[#names + 1] = n end
  return names
end

-- The module's own parameter fields, as {name = tensor or false}.
function M.capture(self)
  local saved = {}
  for _, n in ipairs(own_names(self)) do saved[n] = self[n] or false end
  return saved
end

-- Puts the saved fields in place; returns the ones it replaced.
function M.install(self, saved)
  local current = {}
  for n, t in pairs(saved) do
    current[n] = self[n] or false
    self[n] = t or nil
  end
  return current
end

return M
