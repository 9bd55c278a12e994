-- optim.adam: Torch7's Adam (bias-corrected moments; learning-rate decay and L2 weight decay),
-- one fused update. Epsilon placement: Note [Adam epsilon] in core/ops/optim.cpp.
local cfg = require 'optim.config'
local fused = require 'optim.fused'

cfg.register('adam', {
  learningRate = 'nonneg', learningRateDecay = 'nonneg', beta1 = 'unit', beta2 = 'unit', epsilon = 'nonneg',
  weightDecay = 'nonneg',
}, { 't', 'm', 'v', 'denom' })

--- optim.adam(opfunc, x[, config][, state]): one Adam step on x (in place). Config (Torch7's):
--- learningRate (1e-3), learningRateDecay (lr/(1 + t*decay)), beta1 (0.9), beta2 (0.999),
--- epsilon (1e-8, added to sqrt(v); the bias corrections fold into the step size), weightDecay
--- (L2, added to the gradient). State: t, m, v. Returns x, {f(x)}.
--- Example: local x = torch.Tensor{1, 2}; optim.adam(function(x) return x:dot(x), x * 2 end, x, {learningRate = 0.1})
function optim.adam(opfunc, x, config, state)
  config, state = cfg.check('adam', config, state)
  local lr = config.learningRate or 1e-3
  local lrd = config.learningRateDecay or 0
  local beta1 = config.beta1 or 0.9
  local beta2 = config.beta2 or 0.999
  local eps = config.epsilon or 1e-8
  local wd = config.weightDecay or 0

  local fx, dfdx = cfg.evaluate('adam', opfunc, x)

  state.t = state.t or 0
  state.m = state.m or fused.buffer(dfdx)
  state.v = state.v or fused.buffer(dfdx)
  local clr = lr / (1 + state.t * lrd)
  state.t = state.t + 1
  fused.adam(x, dfdx, state.m, state.v, nil, state.t, clr, beta1, beta2, eps, wd, false, 0)
  return x, { fx }
end
