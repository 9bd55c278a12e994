-- optim.adamw: Adam with decoupled weight decay (Loshchilov & Hutter), in Torch7's functional
-- style; not in Torch7's optim, added so optim.AdamW has a functional twin.
local cfg = require 'optim.config'
local fused = require 'optim.fused'

cfg.register('adamw', {
  learningRate = 'nonneg', learningRateDecay = 'nonneg', beta1 = 'unit', beta2 = 'unit', epsilon = 'nonneg',
  weightDecay = 'nonneg', amsgrad = 'boolean',
}, { 't', 'm', 'v', 'vMax' })

--- optim.adamw(opfunc, x[, config][, state]): one AdamW step on x (in place): like optim.adam,
--- but weightDecay (default 1e-2) shrinks x by (1 - lr*weightDecay) instead of adding to the
--- gradient; amsgrad (false) keeps the running maximum of v. Returns x, {f(x)}.
--- Example: local x = torch.Tensor{1, 2}; optim.adamw(function(x) return x:dot(x), x * 2 end, x, {learningRate = 0.1})
function optim.adamw(opfunc, x, config, state)
  config, state = cfg.check('adamw', config, state)
  local lr = config.learningRate or 1e-3
  local lrd = config.learningRateDecay or 0
  local beta1 = config.beta1 or 0.9
  local beta2 = config.beta2 or 0.999
  local eps = config.epsilon or 1e-8
  local wd = config.weightDecay or 1e-2

  local fx, dfdx = cfg.evaluate('adamw', opfunc, x)

  state.t = state.t or 0
  state.m = state.m or fused.buffer(dfdx)
  state.v = state.v or fused.buffer(dfdx)
  if config.amsgrad then state.vMax = state.vMax or fused.buffer(dfdx) end
  local clr = lr / (1 + state.t * lrd)
  state.t = state.t + 1
  fused.adam(x, dfdx, state.m, state.v, config.amsgrad and state.vMax or nil, state.t, clr, beta1, beta2, eps, wd,
             true, 0)
  return x, { fx }
end
