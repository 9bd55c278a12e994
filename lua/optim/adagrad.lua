-- optim.adagrad: Torch7's Adagrad (accumulated squared gradients; learning-rate decay and
-- weight decay), one fused update.
local cfg = require 'optim.config'
local fused = require 'optim.fused'
local lib = require 'torch.lib'

cfg.register('adagrad', {
  learningRate = 'nonneg', learningRateDecay = 'nonneg', weightDecay = 'nonneg', epsilon = 'nonneg',
}, { 'evalCounter', 'paramVariance', 'paramStd' })

--- optim.adagrad(opfunc, x[, config][, state]): one Adagrad step on x (in place): x -= clr *
--- g/(sqrt(sum g^2) + epsilon) with clr = learningRate/(1 + evalCounter*learningRateDecay).
--- Config: learningRate (1e-3), learningRateDecay (0), weightDecay (0), epsilon (1e-10, fixed
--- in Torch7). State: evalCounter, paramVariance. Returns x, {f(x)}. df/dx may be a SparseTensor
--- (a sparse embedding's gradient): only its rows move; weightDecay is then refused (PyTorch's).
--- Example: local x = torch.Tensor{1, 2}; optim.adagrad(function(x) return x:dot(x), x * 2 end, x, {learningRate = 0.1})
function optim.adagrad(opfunc, x, config, state)
  config, state = cfg.check('adagrad', config, state)
  local lr = config.learningRate or 1e-3
  local lrd = config.learningRateDecay or 0
  local wd = config.weightDecay or 0
  local eps = config.epsilon or 1e-10
  state.evalCounter = state.evalCounter or 0
  local nevals = state.evalCounter

  local sparse  -- Note [Sparse embedding gradients] (nn/LookupTable.lua)
  local fx, dfdx = cfg.evaluate('adagrad', function(y)
    local f, g = opfunc(y)
    if torch.isSparse(g) then sparse = g return f, y end
    return f, g
  end, x)

  local clr = lr / (1 + nevals * lrd)
  state.paramVariance = state.paramVariance or fused.buffer(x)
  if sparse then
    if wd ~= 0 then lib.fail('optim.adagrad', 'weightDecay is not compatible with a sparse df/dx (as in PyTorch)') end
    if not sparse:isSameSizeAs(x) then lib.fail('optim.adagrad', 'the sparse df/dx is not of x\'s size') end
    local O = require 'torch.sparse_grad_optim'
    local rows, vals = O.rows(sparse, false, state.paramVariance)
    torch.noGrad(O.adagrad, x, rows, vals, state.paramVariance, clr, eps)
  else
    fused.adagrad(x, dfdx, state.paramVariance, clr, eps, wd)
  end
  state.evalCounter = state.evalCounter + 1
  return x, { fx }
end
