-- torch.distributions.Normal and LogNormal (exp of a Normal, written out rather than as a
-- transformed distribution).
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local D = torch.distributions

local LOG_SQRT_2PI = 0.5 * math.log(2 * math.pi)
local SQRT2 = math.sqrt(2)
local LOC_SCALE = { { 'loc', constraints.real }, { 'scale', constraints.positive } }

local Normal = torch.class('torch.distributions.Normal', 'torch.distributions.Distribution', D)
Normal.hasRsample = true
Normal._params = { 'loc', 'scale' }

--- torch.distributions.Normal(loc, scale [, {validateArgs=}]): the normal distribution with mean
--- loc and standard deviation scale (> 0); numbers or tensors, broadcast together.
--- Example: torch.distributions.Normal(torch.zeros(3), 1):sample()
function Normal:__init(...) self:_initParams('distributions.Normal', LOC_SCALE, ...) end

--- Normal:rsample([sampleShape]): loc + scale * eps, eps standard normal (differentiable).
--- Example: torch.distributions.Normal(0, 1):rsample({4})
function Normal:rsample(shape)
  local eps = util.empty(self.loc, self:_extendedShape(shape)):normal()
  return self.loc + torch.cmul(eps, self.scale)
end
--- Normal:logProb(value): -(value - loc)^2 / (2 scale^2) - log(scale) - log(sqrt(2 pi)).
--- Example: torch.distributions.Normal(0, 1):logProb(torch.Tensor({0, 1}))
function Normal:logProb(value)
  local v = self:_value(value, nil, self.loc)
  return -torch.pow(v - self.loc, 2) / (torch.pow(self.scale, 2) * 2) - torch.log(self.scale) - LOG_SQRT_2PI
end
--- Normal:cdf(value): erfc((loc - value) / (scale sqrt 2)) / 2 (= (1 + erf((value - loc) /
--- (scale sqrt 2))) / 2, PyTorch's form, which cancels to 0 in the lower tail: cdf(-10) is
--- 7.6e-24, not 0).
--- Example: torch.distributions.Normal(0, 1):cdf(1.96)
function Normal:cdf(value)
  local v = self:_value(value, nil, self.loc)
  return torch.erfc((self.loc - v) / (self.scale * SQRT2)) * 0.5
end
-- Note [Normal icdf by ndtri]: PyTorch's sqrt 2 erfinv(2p - 1) rounds 2p - 1 to a multiple of
-- eps/2 near p = 0 (and Tocha's erfinv is itself off by 1e-5 relative at 1 - 2e-12, by 4% at
-- 1 - 1e-15): icdf(1e-12) came out -7.03441 for -7.03448. torch.special.ndtri(p), the same
-- function, is accurate in both tails (to 1e-300) and differentiable.
--- Normal:icdf(p): loc + scale ndtri(p) (= loc + scale sqrt 2 erfinv(2p - 1)).
--- Example: torch.distributions.Normal(0, 1):icdf(0.5)
function Normal:icdf(p)
  p = self:_value(p, 'p', self.loc)
  self:_check('p', constraints.unitInterval, p)
  return self.loc + torch.cmul(torch.special.ndtri(p), self.scale)
end
--- Normal:entropy(): 1/2 + log(sqrt(2 pi)) + log(scale).
--- Example: torch.distributions.Normal(0, 1):entropy()
function Normal:entropy() return torch.log(self.scale) + (0.5 + LOG_SQRT_2PI) end
--- Normal:mean(): loc (also the mode).
--- Example: torch.distributions.Normal(2, 1):mean()
function Normal:mean() return self.loc end
--- Normal:mode(): loc.
--- Example: torch.distributions.Normal(2, 1):mode()
function Normal:mode() return self.loc end
--- Normal:variance(): scale^2; stddev() is scale.
--- Example: torch.distributions.Normal(0, 3):variance()
function Normal:variance() return torch.pow(self.scale, 2) end
--- Normal:stddev(): scale.
--- Example: torch.distributions.Normal(0, 3):stddev()
function Normal:stddev() return self.scale end

local LogNormal = torch.class('torch.distributions.LogNormal', 'torch.distributions.Distribution', D)
LogNormal.hasRsample = true
LogNormal._params = { 'loc', 'scale' }

--- torch.distributions.LogNormal(loc, scale [, {validateArgs=}]): exp(X) for X ~ Normal(loc,
--- scale) (loc and scale are X's, as PyTorch; Torch7's torch.logNormal takes the result's mean
--- and std instead). baseDist is that Normal.
--- Example: torch.distributions.LogNormal(0, 0.5):sample({3})
function LogNormal:__init(...)
  self:_initParams('distributions.LogNormal', LOC_SCALE, ...)
  self.baseDist = D.Normal(self.loc, self.scale, { validateArgs = false })
end
function LogNormal:_expandParts(new, shape) new.baseDist = self.baseDist:expand(shape) end
--- LogNormal:support(): the positive reals.
--- Example: torch.distributions.LogNormal(0, 1):support().desc
function LogNormal:support() return constraints.positive end

--- LogNormal:rsample([sampleShape]): exp of the base normal's rsample (differentiable).
--- Example: torch.distributions.LogNormal(0, 1):rsample({2})
function LogNormal:rsample(shape)
  -- checked here, so that errors name LogNormal rather than the Normal inside
  return torch.exp(self.baseDist:rsample(util.sample_shape(self:_op(), shape)))
end
--- LogNormal:logProb(value): Normal(loc, scale):logProb(log value) - log value.
--- Example: torch.distributions.LogNormal(0, 1):logProb(1)
function LogNormal:logProb(value)
  local y = torch.log(self:_value(value, nil, self.loc))
  return self.baseDist:logProb(y) - y
end
--- LogNormal:cdf(value): the base normal's cdf at log value.
--- Example: torch.distributions.LogNormal(0, 1):cdf(1)
function LogNormal:cdf(value) return self.baseDist:cdf(torch.log(self:_value(value, nil, self.loc))) end
--- LogNormal:icdf(p): exp of the base normal's icdf.
--- Example: torch.distributions.LogNormal(0, 1):icdf(0.5)
function LogNormal:icdf(p)
  p = self:_value(p, 'p', self.loc)
  self:_check('p', constraints.unitInterval, p)
  return torch.exp(self.baseDist:icdf(p))
end
--- LogNormal:entropy(): the base normal's entropy + loc.
--- Example: torch.distributions.LogNormal(0, 1):entropy()
function LogNormal:entropy() return self.baseDist:entropy() + self.loc end
--- LogNormal:mean(): exp(loc + scale^2 / 2); mode() is exp(loc - scale^2).
--- Example: torch.distributions.LogNormal(0, 1):mean()
function LogNormal:mean() return torch.exp(self.loc + torch.pow(self.scale, 2) / 2) end
--- LogNormal:mode(): exp(loc - scale^2).
--- Example: torch.distributions.LogNormal(0, 1):mode()
function LogNormal:mode() return torch.exp(self.loc - torch.pow(self.scale, 2)) end
--- LogNormal:variance(): (exp(scale^2) - 1) exp(2 loc + scale^2).
--- Example: torch.distributions.LogNormal(0, 1):variance()
function LogNormal:variance()
  local s2 = torch.pow(self.scale, 2)
  return torch.cmul(torch.expm1(s2), torch.exp(self.loc * 2 + s2))
end

return Normal
