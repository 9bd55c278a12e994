-- optim.rmsprop: Torch7's RMSprop (leaky mean of squared gradients; weight decay and initial
-- mean), one fused update.
local cfg = require 'optim.config'
local fused = require 'optim.fused'

cfg.register('rmsprop', {
  learningRate = 'nonneg', alpha = 'unitclosed', epsilon = 'nonneg', weightDecay = 'nonneg', initialMean = 'nonneg',
}, { 'm', 'tmp' })

--- optim.rmsprop(opfunc, x[, config][, state]): one RMSprop step on x (in place): m = alpha*m +
--- (1-alpha)*g^2; x -= learningRate * g/(sqrt(m) + epsilon). Config: learningRate (1e-2), alpha
--- (0.99), epsilon (1e-8), weightDecay (0), initialMean (0, m's first value). Returns x, {f(x)}.
--- Example: local x = torch.Tensor{1, 2}; optim.rmsprop(function(x) return x:dot(x), x * 2 end, x)
function optim.rmsprop(opfunc, x, config, state)
  config, state = cfg.check('rmsprop', config, state)
  local lr = config.learningRate or 1e-2
  local alpha = config.alpha or 0.99
  local eps = config.epsilon or 1e-8
  local wd = config.weightDecay or 0
  local mfill = config.initialMean or 0

  local fx, dfdx = cfg.evaluate('rmsprop', opfunc, x)

  if not state.m then state.m = fused.buffer(dfdx):fill(mfill) end
  fused.rmsprop(x, dfdx, state.m, nil, nil, lr, alpha, eps, wd, 0)
  return x, { fx }
end
