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
-- Note [Parameter gradients under torch.autograd.grad]: every parameter of a coarse node that
-- requires grad is an input of the node, so torch.autograd.grad(loss, {m.weight}) finds it.
-- Under loss:backward() a leaf parameter's gradient still goes straight into gradWeight (its
-- .grad, linkGradients) and the node returns none for it; a leaf whose .grad is not gradWeight
-- (put in place by torch.func.functionalCall) is captured. While torch.autograd.grad runs (outside
-- a replay, which accumulates its own way: Note [Replays reaching Torch7-style children]) every
-- parameter is captured like one with a history: the gradients go back through the graph and
-- gradWeight is left alone, since torch.autograd.grad must not touch any .grad. Before, it could
-- not differentiate with respect to a parameter and it accumulated into gradWeight.
-- Runs on every forward that records a coarse node: one small table when parameters need grad.
local function add_param(self, n, list)
  local p = self[n]
  if torch.isTensor(p) and p:needsGrad() then
    list = list or {}
    list[#list + 1] = { name = n, gradName = nn.Module.gradName(n), param = p, leaf = p:isLeaf() }
  end
  return list
end

-- The module's own parameters that require grad, and whether one of them has a history.
function M.node_params(self)
  local list
  if self.weight then list = add_param(self, 'weight', list) end
  if self.bias then list = add_param(self, 'bias', list) end
  local reg = self._registeredParams
  if reg then for _, n in ipairs(reg) do list = add_param(self, n, list) end end
  local hist = false
  for _, h in ipairs(list or {}) do if not h.leaf then hist = true end end
  return list, hist
end

-- Whether the leaf parameter's .grad is the module's gradient field (nn.utils.linkGradients), so
-- accGradParameters can accumulate into it directly. A leaf that torch.func.functionalCall put in
-- place is not: its gradient goes back through the graph to its own .grad.
function M.linked(module, h)
  local g, field = h.param.grad, module[h.gradName]
  return g ~= nil and field ~= nil and g.p == field.p
end

-- accGradParameters with each parameter of the list accumulating into its own zeroed buffer.
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
