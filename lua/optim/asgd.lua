-- optim.asgd: Torch7's averaged SGD (L. Bottou's sgd-2.0): decayed SGD steps plus a running
-- average of x that starts after t0 steps.
local cfg = require 'optim.config'
local fused = require 'optim.fused'

cfg.register('asgd', {
  eta0 = 'nonneg', lambda = 'nonneg', alpha = 'nonneg', t0 = 'nonneg',
}, { 'eta_t', 'mu_t', 't', 'ax', 'tmp' })

local function update(x, dfdx, config, state)
  -- an opfunc may hand back x itself as df/dx (f = |x|^2/2): the decay below would shrink it
  if dfdx:isSetTo(x) then dfdx = dfdx:clone() end
  x:mul(1 - config.lambda * state.eta_t)
  x:add(-state.eta_t, dfdx)
  state.ax = state.ax or fused.buffer(x)
  if state.mu_t ~= 1 then
    state.tmp = state.tmp or fused.buffer(x)
    state.tmp:copy(x):add(-1, state.ax):mul(state.mu_t)
    state.ax:add(state.tmp)
  else
    state.ax:copy(x)
  end
end

--- optim.asgd(opfunc, x[, config][, state]): one averaged-SGD step: x = (1 - lambda*eta_t)*x -
--- eta_t*df/dx, ax += mu_t*(x - ax), with eta_t = eta0/(1 + lambda*eta0*t)^alpha and mu_t =
--- 1/max(1, t - t0). Config (defaults written back, as Torch7 does): eta0 (1e-4), lambda (1e-4),
--- alpha (0.75), t0 (1e6). Returns x, {f(x)}, ax (the averaged x).
--- Example: local x = torch.Tensor{1, 2}; optim.asgd(function(x) return x:dot(x), x * 2 end, x, {eta0 = 0.1})
function optim.asgd(opfunc, x, config, state)
  config, state = cfg.check('asgd', config, state)
  config.eta0 = config.eta0 or 1e-4
  config.lambda = config.lambda or 1e-4
  config.alpha = config.alpha or 0.75
  config.t0 = config.t0 or 1e6
  state.eta_t = state.eta_t or config.eta0
  state.mu_t = state.mu_t or 1
  state.t = state.t or 0

  local fx, dfdx = cfg.evaluate('asgd', opfunc, x)
  torch.noGrad(update, x, dfdx, config, state)

  state.t = state.t + 1
  state.eta_t = config.eta0 / math.pow(1 + config.lambda * config.eta0 * state.t, config.alpha)
  state.mu_t = 1 / math.max(1, state.t - config.t0)
  return x, { fx }, state.ax
end
