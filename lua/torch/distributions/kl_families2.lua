-- The KL divergences PyTorch 1.13 registers that involve the families of studentt.lua,
-- vonmises.lua, continuous_bernoulli.lua, multinomial.lua and mixture.lua: all of them have
-- ContinuousBernoulli on one side (the other families have none in PyTorch 1.13).
local torch = require 'torch.env'
local D = torch.distributions

local inf = math.huge
local LOG_2PI = math.log(2 * math.pi)
local function reg(P, Q, fn) D.registerKl('torch.distributions.' .. P, 'torch.distributions.' .. Q, fn) end

-- inf for each distribution of the broadcast batch: q's support misses part of p's.
local function infinite(p, q)
  local ref = p.probs or p.rate or p.loc or p.concentration or p.concentration1 or p.low or p.scale
  local shape = torch.broadcastShapes(p.batchShape, q.batchShape)
  return torch.zerosLike(ref):expand(shape) + inf
end

-- E_p[log q(x)] for q = ContinuousBernoulli and p on [0, 1] with mean m:
-- m logit(q) + log(1 - q) + log C(q).
local function cross_cb(m, q)
  return torch.cmul(m, q.logits) + torch.log1p(-q.probs) + q:_logNorm()
end

reg('ContinuousBernoulli', 'ContinuousBernoulli', function(p, q)
  local t1 = torch.cmul(p:mean(), p.logits - q.logits)
  local t2 = p:_logNorm() + torch.log1p(-p.probs)
  local t3 = -q:_logNorm() - torch.log1p(-q.probs)
  return t1 + t2 + t3
end)

reg('Beta', 'ContinuousBernoulli', function(p, q) return -p:entropy() - cross_cb(p:mean(), q) end)

reg('ContinuousBernoulli', 'Exponential', function(p, q)
  return -p:entropy() - torch.log(q.rate) + torch.cmul(q.rate, p:mean())
end)

reg('ContinuousBernoulli', 'Normal', function(p, q)
  local t1 = -p:entropy()
  local t2 = (torch.pow(q.loc / q.scale, 2) + LOG_2PI) * 0.5 + torch.log(q.scale)
  local m = p:mean()
  local t3 = (p:variance() + torch.pow(m, 2) - torch.cmul(q.loc, m) * 2) / (torch.pow(q.scale, 2) * 2)
  return t1 + t2 + t3
end)

-- Note [ContinuousBernoulli and Uniform bounds]: PyTorch 1.13 returns inf for KL(CB || U(a, b))
-- where a >= 0 or b <= 1, and for KL(U(a, b) || CB) where b >= 1 or a <= 0, so U(0, 1) gives inf
-- both ways though its support and [0, 1] coincide. Here inf marks the divergences that are
-- infinite: q's support missing part of p's (a > 0 or b < 1, resp. b > 1 or a < 0); the finite
-- values are PyTorch's formulas.
reg('ContinuousBernoulli', 'Uniform', function(p, q)
  local r = -p:entropy() + torch.log(q.high - q.low)
  return torch.where(torch.logicalOr(torch.gt(q.low, 0), torch.lt(q.high, 1)), inf, r)
end)

reg('Uniform', 'ContinuousBernoulli', function(p, q)
  local r = -p:entropy() - cross_cb(p:mean(), q)
  return torch.where(torch.logicalOr(torch.gt(p.high, 1), torch.lt(p.low, 0)), inf, r)
end)

-- q = ContinuousBernoulli puts no mass outside [0, 1]; these p do (Pareto and Gumbel by name:
-- transformed_families.lua defines them).
for _, P in ipairs({ 'Exponential', 'Gamma', 'Gumbel', 'Laplace', 'Normal', 'Pareto' }) do
  reg(P, 'ContinuousBernoulli', infinite)
end
-- p = ContinuousBernoulli puts mass on (0, scale), where a Pareto (support [scale, inf)) has none.
reg('ContinuousBernoulli', 'Pareto', infinite)

return D
