-- optim.adamax: Torch7's AdaMax (Adam with an infinity-norm second moment), one fused update.
local cfg = require 'optim.config'
local fused = require 'optim.fused'

cfg.register('adamax', {
  learningRate = 'nonneg', beta1 = 'unit', beta2 = 'unit', epsilon = 'nonneg', weightDecay = 'nonneg',
}, { 't', 'm', 'u', 'max' })

--- optim.adamax(opfunc, x[, config][, state]): one AdaMax step on x (in place). Config:
--- learningRate (2e-3), beta1 (0.9), beta2 (0.999), epsilon (1e-38), weightDecay (0, added to
--- the gradient). State: t, m, u. Returns x, {f(x)}.
--- Example: local x = torch.Tensor{1, 2}; optim.adamax(function(x) return x:dot(x), x * 2 end, x)
function optim.adamax(opfunc, x, config, state)
  config, state = cfg.check('adamax', config, state)
  local lr = config.learningRate or 0.002
  local beta1 = config.beta1 or 0.9
  local beta2 = config.beta2 or 0.999
  local eps = config.epsilon or 1e-38
  local wd = config.weightDecay or 0

  local fx, dfdx = cfg.evaluate('adamax', opfunc, x)

  state.t = (state.t or 0) + 1
  state.m = state.m or fused.buffer(dfdx)
  state.u = state.u or fused.buffer(dfdx)
  fused.adamax(x, dfdx, state.m, state.u, state.t, lr, beta1, beta2, eps, wd)
  return x, { fx }
end
