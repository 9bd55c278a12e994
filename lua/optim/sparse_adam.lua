-- optim.sparseAdam: the functional (Torch7-style) form of optim.SparseAdam, PyTorch's lazy Adam
-- for sparse gradients (Note [Sparse embedding gradients] in nn/LookupTable.lua).
local cfg = require 'optim.config'
local lib = require 'torch.lib'

cfg.register('sparseAdam', {
  learningRate = 'nonneg', beta1 = 'unit', beta2 = 'unit', epsilon = 'nonneg',
}, { 't', 'm', 'v' })

--- optim.sparseAdam(opfunc, x[, config][, state]): one SparseAdam step on x (in place); opfunc(x)
--- returns f(x) and df/dx as a SparseTensor (a sparse embedding's m.weight.grad). Only the rows in
--- df/dx move and only their moments decay. Config: learningRate (1e-3), beta1 (0.9), beta2
--- (0.999), epsilon (1e-8). State: t (the step count), m, v. Returns x, {f(x)}.
--- Example: local e = nn.LookupTable(10, 2, {sparse = true}); optim.sparseAdam(function() return 0, e.weight.grad end, e.weight)
function optim.sparseAdam(opfunc, x, config, state)
  local op = 'optim.sparseAdam'
  config, state = cfg.check('sparseAdam', config, state)
  if type(opfunc) ~= 'function' and not (type(opfunc) == 'table' and getmetatable(opfunc) and getmetatable(opfunc).__call) then
    lib.fail(op, 'opfunc must be a function returning f(x), df/dx; got %s', type(opfunc))
  end
  if not torch.isTensor(x) then lib.fail(op, 'x must be a tensor, got %s', type(x)) end
  local fx, dfdx = opfunc(x)
  if not torch.isSparse(dfdx) then
    lib.fail(op, 'df/dx must be a SparseTensor (use optim.adam for dense gradients), got %s',
      torch.isTensor(dfdx) and torch.typename(dfdx) or type(dfdx))
  end
  if not dfdx:isSameSizeAs(x) or dfdx:sparseDim() ~= 1 then
    lib.fail(op, 'df/dx must have x\'s size and one sparse dim, got %s', table.concat(dfdx:size():totable(), 'x'))
  end
  local O = require 'torch.sparse_grad_optim'
  state.t = (state.t or 0) + 1
  state.m = state.m or require('optim.fused').buffer(x)
  state.v = state.v or require('optim.fused').buffer(x)
  local rows, vals = O.rows(dfdx, false, state.m)
  torch.noGrad(O.sparseAdam, x, rows, vals, state.m, state.v, state.t, config.learningRate or 1e-3,
    config.beta1 or 0.9, config.beta2 or 0.999, config.epsilon or 1e-8)
  return x, { fx }
end
