-- optim.sgd: Torch7's stochastic gradient descent (learning-rate decay, weight decay, momentum
-- with dampening, Nesterov, per-parameter learning rates and weight decays), one fused update.
local cfg = require 'optim.config'
local fused = require 'optim.fused'
local lib = require 'torch.lib'

cfg.register('sgd', {
  learningRate = 'nonneg', learningRateDecay = 'nonneg', weightDecay = 'nonneg', weightDecays = 'tensor',
  momentum = 'nonneg', dampening = 'number', nesterov = 'boolean', learningRates = 'tensor',
}, { 'evalCounter', 'dfdx', 'dfdxRows', 'decayParameters', 'deltaParameters' })

--- optim.sgd(opfunc, x[, config][, state]): one step of stochastic gradient descent on x (updated
--- in place); opfunc(x) returns f(x), df/dx. Config (Torch7's): learningRate (1e-3),
--- learningRateDecay (lr/(1 + evalCounter*decay)), weightDecay (added to the gradient),
--- weightDecays (per-element tensor), momentum, dampening (= momentum), nesterov,
--- learningRates (per-element tensor). Returns x, {f(x)} (f before the update). The gradient
--- tensor is not modified (Torch7 added the weight decay into it). df/dx may be a SparseTensor (a
--- sparse embedding's gradient): only its rows move (Note [Sparse momentum]); weightDecay makes
--- that step dense, as in PyTorch.
--- Example: local x = torch.Tensor{1, 2}; optim.sgd(function(x) return x:dot(x), x * 2 end, x, {learningRate = 0.1})
function optim.sgd(opfunc, x, config, state)
  config, state = cfg.check('sgd', config, state)
  local lr = config.learningRate or 1e-3
  local lrd = config.learningRateDecay or 0
  local wd = config.weightDecay or 0
  local mom = config.momentum or 0
  local damp = config.dampening or mom
  local nesterov = config.nesterov or false
  local lrs, wds = config.learningRates, config.weightDecays
  if nesterov and not (mom > 0 and damp == 0) then
    lib.fail('optim.sgd', 'Nesterov momentum requires a momentum and zero dampening (momentum=%s, dampening=%s)',
             tostring(mom), tostring(damp))
  end
  cfg.checkX('sgd', x)
  cfg.checkPerElement('sgd', 'learningRates', lrs, x)
  cfg.checkPerElement('sgd', 'weightDecays', wds, x)
  state.evalCounter = state.evalCounter or 0
  local nevals = state.evalCounter

  local sparse  -- Note [Sparse embedding gradients] (nn/LookupTable.lua)
  local fx, dfdx = cfg.evaluate('sgd', function(y)
    local f, g = opfunc(y)
    if torch.isSparse(g) then sparse = g return f, y end
    return f, g
  end, x)
  if sparse then
    if lrs or wds then lib.fail('optim.sgd', 'learningRates and weightDecays do not go with a sparse df/dx') end
    if not sparse:isSameSizeAs(x) then lib.fail('optim.sgd', 'the sparse df/dx is not of x\'s size') end
    local O = require 'torch.sparse_grad_optim'
    local rows, vals = O.rows(sparse)
    local clr = lr / (1 + nevals * lrd)
    if wd ~= 0 then
      dfdx = O.dense(x, rows, vals)
    else
      torch.noGrad(O.sgd, x, rows, vals, state, clr, mom, damp, nesterov, 'dfdx', 'dfdxRows')
      state.evalCounter = state.evalCounter + 1
      return x, { fx }
    end
  end

  state.dfdxRows = nil  -- a dense step: any row of the buffer may move (Note [Sparse momentum])
  local first = false
  if mom ~= 0 and not state.dfdx then
    state.dfdx = fused.buffer(dfdx)
    first = true
  end
  local clr = lr / (1 + nevals * lrd)
  fused.sgd(x, dfdx, mom ~= 0 and state.dfdx or nil, clr, mom, damp, wd, nesterov, first, lrs,
            wd == 0 and wds or nil)

  state.evalCounter = state.evalCounter + 1
  return x, { fx }
end
