-- optim.nadam: Adam with Nesterov momentum (Dozat 2016) as PyTorch's NAdam computes it (momentum
-- schedule mu_t = beta1 (1 - 0.5 * 0.96^(t * momentumDecay))). Made of tensor ops, so it runs on
-- any device; optim.NAdam (optim/object/NAdam.lua) shares the update.
local cfg = require 'optim.config'
local fused = require 'optim.fused'

cfg.register('nadam', {
  learningRate = 'nonneg', beta1 = 'unit', beta2 = 'unit', epsilon = 'nonneg', weightDecay = 'nonneg',
  momentumDecay = 'nonneg',
}, { 't', 'm', 'v', 'muProduct' })

-- Note [NAdam's mu product]: the second step size uses the product of the momentum schedule up to
-- mu_{t+1}, as the paper and PyTorch >= 2.0 do; PyTorch 1.13 multiplied mu_t in twice
-- (mu_product * mu * mu_next, fixed upstream as a bug), so its trajectories differ from these by
-- about 1e-3 relative on the first steps.

-- Note [Half parameters in tensor-op updates]: NAdam and RAdam are tensor ops, not fused
-- kernels; their moments are kept in float for f16/bf16 parameters (Note [Optimizer state dtype]
-- in optim/fused.lua) and the step is computed in float, then rounded into x once. In half,
-- v = (1 - beta2) g^2 underflowed to 0 for |g| below about 1e-2, and the step g/(sqrt(v) + eps)
-- became +-inf.

-- x and g in the type of the state (float for half parameters; x itself otherwise) and g of x's
-- shape (a functional opfunc may return df/dx of x's size in another shape, as Torch7 allowed).
function optim._workingCopies(x, g, state_type)
  if not g:isSameSizeAs(x) then g = g:reshape(x:size()) end
  if x:type() == state_type then return x, g end
  return x:to(state_type), g:to(state_type)
end

-- One NAdam step of x (in place) with gradient g; s holds t, m, v, muProduct (created here).
function optim._nadamUpdate(x, g, s, lr, beta1, beta2, eps, wd, md)
  if not s.m then
    s.t, s.muProduct = 0, 1
    s.m = fused.buffer(x)
    s.v = fused.buffer(x)
  end
  local p = x
  x, g = optim._workingCopies(p, g, s.m:type())
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
  if not rawequal(x, p) then p:copy(x) end
end

--- optim.nadam(opfunc, x[, config][, state]): one NAdam step on x (in place). Config:
--- learningRate (2e-3), beta1 (0.9), beta2 (0.999), epsilon (1e-8, added to the bias-corrected
--- sqrt(v)), weightDecay (0, L2 added to the gradient), momentumDecay (4e-3). State: t, m, v,
--- muProduct. Returns x, {f(x)}.
--- Example: local x = torch.Tensor{1, 2}; optim.nadam(function(x) return x:dot(x), x * 2 end, x)
function optim.nadam(opfunc, x, config, state)
  config, state = cfg.check('nadam', config, state)
  local fx, dfdx = cfg.evaluate('nadam', opfunc, x)
  torch.noGrad(optim._nadamUpdate, x, dfdx, state, config.learningRate or 2e-3, config.beta1 or 0.9,
    config.beta2 or 0.999, config.epsilon or 1e-8, config.weightDecay or 0, config.momentumDecay or 4e-3)
  return x, { fx }
end
