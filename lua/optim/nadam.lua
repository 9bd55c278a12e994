-- optim.nadam: Adam with Nesterov momentum (Dozat 2016) as PyTorch's NAdam computes it (momentum
-- schedule mu_t = beta1 (1 - 0.5 * 0.96^(t * momentumDecay))). Made of tensor ops, so it runs on
-- any device; optim.NAdam (optim/object/NAdam.lua) shares the update.
local cfg = require 'optim.config'

cfg.register('nadam', {
  learningRate = 'nonneg', beta1 = 'unit', beta2 = 'unit', epsilon = 'nonneg', weightDecay = 'nonneg',
  momentumDecay = 'nonneg',
}, { 't', 'm', 'v', 'muProduct' })

-- One NAdam step of x (in place) with gradient g; s holds t, m, v, muProduct (created here).
function optim._nadamUpdate(x, g, s, lr, beta1, beta2, eps, wd, md)
  if not s.m then
    s.t, s.muProduct = 0, 1
    s.m = x.new(x:size()):zero()
    s.v = x.new(x:size()):zero()
  end
  if wd ~= 0 then g = torch.add(g, wd, x) end
  s.t = s.t + 1
  local t = s.t
  local mu = beta1 * (1 - 0.5 * 0.96 ^ (t * md))
  local muNext = beta1 * (1 - 0.5 * 0.96 ^ ((t + 1) * md))
  s.muProduct = s.muProduct * mu
  s.m:mul(beta1):add(1 - beta1, g)
  s.v:mul(beta2):addcmul(1 - beta2, g, g)
  local denom = torch.div(s.v, 1 - beta2 ^ t):sqrt():add(eps)
  x:addcdiv(-lr * (1 - mu) / (1 - s.muProduct), g, denom)
  x:addcdiv(-lr * muNext / (1 - s.muProduct * muNext), s.m, denom)
end

--- optim.nadam(opfunc, x[, config][, state]): one NAdam step on x (in place). Config:
--- learningRate (2e-3), beta1 (0.9), beta2 (0.999), epsilon (1e-8, added to the bias-corrected
--- sqrt(v)), weightDecay (0, L2 added to the gradient), momentumDecay (4e-3). State: t, m, v,
--- muProduct. Returns x, {f(x)}.
--- Example: local x = torch.Tensor{1, 2}; optim.nadam(function(x) return x:dot(x), x * 2 end, x)
function optim.nadam(opfunc, x, config, state)
  config, state = cfg.check('nadam', config, state)
  local fx, dfdx = cfg.evaluate('nadam', opfunc, x)
  optim._nadamUpdate(x, dfdx, state, config.learningRate or 2e-3, config.beta1 or 0.9, config.beta2 or 0.999,
    config.epsilon or 1e-8, config.weightDecay or 0, config.momentumDecay or 4e-3)
  return x, { fx }
end
