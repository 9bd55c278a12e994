-- optim.radam: Rectified Adam (Liu et al. 2019) as PyTorch's RAdam computes it: plain momentum
-- SGD while the variance of the adaptive rate is intractable (rho_t <= 5), then Adam with the
-- rectification factor. Made of tensor ops; optim.RAdam (optim/object/RAdam.lua) shares the update.
local cfg = require 'optim.config'
local fused = require 'optim.fused'
require 'optim.nadam'  -- optim._workingCopies

cfg.register('radam', {
  learningRate = 'nonneg', beta1 = 'unit', beta2 = 'unit', epsilon = 'nonneg', weightDecay = 'nonneg',
}, { 't', 'm', 'v' })

-- One RAdam step of x (in place) with gradient g; s holds t, m, v (created here).
function optim._radamUpdate(x, g, s, lr, beta1, beta2, eps, wd)
  if not s.m then
    s.t = 0
    s.m = fused.buffer(x)  -- float for half x: Note [Half parameters in tensor-op updates] (nadam.lua)
    s.v = fused.buffer(x)
  end
  local p = x
  x, g = optim._workingCopies(p, g, s.m:type())
  if wd ~= 0 then g = torch.add(g, wd, x) end
  s.t = s.t + 1
  local t = s.t
  s.m:mul(beta1):add(1 - beta1, g)
  s.v:mul(beta2):addcmul(1 - beta2, g, g)
  local bc1, bc2 = 1 - beta1 ^ t, 1 - beta2 ^ t
  local rhoInf = 2 / (1 - beta2) - 1
  local rho = rhoInf - 2 * t * beta2 ^ t / bc2
  if rho > 5 then
    local rect = math.sqrt((rho - 4) * (rho - 2) * rhoInf / ((rhoInf - 4) * (rhoInf - 2) * rho))
    local denom = torch.sqrt(s.v):add(eps)
    x:addcdiv(-lr * rect * math.sqrt(bc2) / bc1, s.m, denom)
  else
    x:add(-lr / bc1, s.m)
  end
  if not rawequal(x, p) then p:copy(x) end
end

--- optim.radam(opfunc, x[, config][, state]): one RAdam step on x (in place). Config:
--- learningRate (1e-3), beta1 (0.9), beta2 (0.999), epsilon (1e-8, added to sqrt(v)),
--- weightDecay (0, L2 added to the gradient). State: t, m, v. Returns x, {f(x)}.
--- Example: local x = torch.Tensor{1, 2}; optim.radam(function(x) return x:dot(x), x * 2 end, x)
function optim.radam(opfunc, x, config, state)
  config, state = cfg.check('radam', config, state)
  local fx, dfdx = cfg.evaluate('radam', opfunc, x)
  torch.noGrad(optim._radamUpdate, x, dfdx, state, config.learningRate or 1e-3, config.beta1 or 0.9,
    config.beta2 or 0.999, config.epsilon or 1e-8, config.weightDecay or 0)
  return x, { fx }
end
