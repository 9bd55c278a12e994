-- The machinery of PyTorch's lazy modules (Note [Lazy parameters], nn/pytorch_names_more_lazy.lua):
-- emptying a module's parameters until the first input, sizing them in place then, and the methods
-- a lazy class adds to its parent (isLazy, updateOutput, loadStateDict, reset).
local lib = require 'torch.lib'

local M = {}

--- M.empty(self, fieldNames): the module's tensors of those names replaced by empty ones of their
--- type, still linked to their gradients; the module is lazy until M.materialize.
function M.empty(self, fieldNames)
  for _, f in ipairs(fieldNames) do
    if torch.isTensor(self[f]) then self[f] = self[f].new() end
  end
  self._lazy = true
  nn.utils.linkGradients(self)
end

--- M.materialize(self, sizes): each tensor field f resized in place to sizes[f] (the same tensor
--- objects, so an optimizer built before keeps them), then the parent's init drawn (PyTorch's
--- reset_parameters after materializing; an already-sized bias is drawn again with the new fan-in).
function M.materialize(self, sizes)
  torch.noGrad(function()
    for f, s in pairs(sizes) do
      if torch.isTensor(self[f]) then self[f]:resize(torch.LongStorage(s)):zero() end
    end
  end)
  self._lazy = nil
  self:reset()
  if torch.isTensor(self.gradBias) then self.gradBias:zero() end
  nn.utils.linkGradients(self)
end

--- M.groups(name, ...): the groups argument among a lazy convolution's constructor arguments after
--- (outChannels, kernelSize): a trailing options table's groups, else the 4th positional, else 1.
function M.groups(name, ...)
  local n = select('#', ...)
  local last = n > 0 and select(n, ...) or nil
  local groups = 1
  if type(last) == 'table' and last.groups ~= nil then groups = last.groups
  elseif n >= 4 and type(select(4, ...)) == 'number' then groups = select(4, ...) end
  return require('nn.pytorch_names_args').int(name, 'groups', groups, 1)
end

--- M.addLazyMethods(cls, parent, name, infer): infer(self, input, stateDict) gives the sizes per
--- field from the first input (stateDict nil) or from a state dict being loaded (input nil; nil
--- when the state dict cannot tell).
function M.addLazyMethods(cls, parent, name, infer)
  --- m:isLazy(): whether the lazy module still waits for its first input (Note [Lazy parameters]).
  --- Example: print(nn.LazyLinear(3):isLazy())
  function cls:isLazy() return self._lazy == true end
  function cls:updateOutput(input)
    if self._lazy then
      if not torch.isTensor(input) then lib.fail(name, 'expected a tensor input, got %s', nn.utils.describe(input)) end
      M.materialize(self, infer(self, input))
    end
    return parent.updateOutput(self, input)
  end
  function cls:loadStateDict(tbl, strict)
    if self._lazy and type(tbl) == 'table' then
      local sizes = infer(self, nil, tbl)
      if sizes then M.materialize(self, sizes) end
    end
    return parent.loadStateDict(self, tbl, strict)
  end
  function cls:reset(...)
    if self._lazy then return self end  -- nothing to draw yet: the first forward does
    return parent.reset(self, ...)
  end
end

return M
