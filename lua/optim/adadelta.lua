-- optim.adadelta: Torch7's Adadelta (running averages of squared gradients and updates; no
-- learning rate), one fused update.
local cfg = require 'optim.config'
local fused = require 'optim.fused'

cfg.register('adadelta', {
  rho = 'unitclosed', eps = 'nonneg', weightDecay = 'nonneg', learningRate = 'nonneg',
}, { 'evalCounter', 'paramVariance', 'paramStd', 'delta', 'accDelta' })

-- Note [Adadelta ignores learningRate]: Torch7's optim.adadelta has no learning rate and ignored
-- config.learningRate, which Torch7 scripts pass to it when one config table serves several
-- optimizers (-optimization sgd|adam|adadelta with {learningRate = opt.lr}). Tocha used to
-- scale the update by it (PyTorch's lr), so such a script took steps 1/lr times smaller than in
-- Torch7 without a word. The key is accepted and ignored, as Torch7 did; optim.Adadelta (the
-- PyTorch-style object) keeps its lr.

--- optim.adadelta(opfunc, x[, config][, state]): one Adadelta step on x (in place). Config:
--- rho (0.9), eps (1e-6), weightDecay (0); learningRate is ignored, as in Torch7 (Note [Adadelta
--- ignores learningRate]; optim.Adadelta takes PyTorch's lr). State: paramVariance, accDelta,
--- evalCounter. Returns x, {f(x)}.
--- Example: local x = torch.Tensor{1, 2}; optim.adadelta(function(x) return x:dot(x), x * 2 end, x)
function optim.adadelta(opfunc, x, config, state)
  config, state = cfg.check('adadelta', config, state)
  local rho = config.rho or 0.9
  local eps = config.eps or 1e-6
  local wd = config.weightDecay or 0
  state.evalCounter = state.evalCounter or 0

  local fx, dfdx = cfg.evaluate('adadelta', opfunc, x)

  state.paramVariance = state.paramVariance or fused.buffer(dfdx)
  state.accDelta = state.accDelta or fused.buffer(dfdx)
  fused.adadelta(x, dfdx, state.paramVariance, state.accDelta, 1, rho, eps, wd)
  state.evalCounter = state.evalCounter + 1
  return x, { fx }
end
