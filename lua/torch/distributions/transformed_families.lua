-- The families PyTorch builds as TransformedDistributions: Gumbel, HalfNormal, HalfCauchy,
-- Weibull, Pareto, Kumaraswamy and LogisticNormal, with their closed-form moments.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local D = torch.distributions

local EULER = 0.57721566490153286060
local LOG2 = math.log(2)
local positive, real = constraints.positive, constraints.real
local function family(name) return torch.class('torch.distributions.' .. name, 'torch.distributions.TransformedDistribution', D) end
local NOVAL = { validateArgs = false }

local Gumbel = family('Gumbel')
Gumbel._params = { 'loc', 'scale' }
--- torch.distributions.Gumbel(loc, scale [, {validateArgs=}]): the Gumbel (type-I extreme value)
--- law, -log(-log U) scaled by scale > 0 and shifted by loc; a uniform pushed through
--- log, negation, log and an affine map (as PyTorch).
--- Example: torch.distributions.Gumbel(0, 1):sample({3})
function Gumbel:__init(...)
  self:_initParams('distributions.Gumbel', { { 'loc', real }, { 'scale', positive } }, ...)
  local l = self.loc
  local base = D.Uniform(torch.fullLike(l, util.tiny(l)), torch.fullLike(l, 1 - util.eps(l)), NOVAL)
  self:_build(base, { D.ExpTransform():inv(), D.AffineTransform(0, -torch.onesLike(self.scale)),
    D.ExpTransform():inv(), D.AffineTransform(self.loc, -self.scale) }, self.validateArgs)
end
--- Gumbel:support(): the reals.
--- Example: torch.distributions.Gumbel(0, 1):support().desc
function Gumbel:support() return real end
--- Gumbel:logProb(value): z - exp(z) - log(scale) with z = (loc - value) / scale (closed form,
--- for precision, as PyTorch).
--- Example: torch.distributions.Gumbel(0, 1):logProb(0.5)
function Gumbel:logProb(value)
  local z = (self.loc - self:_tensorValue(value)) / self.scale
  return z - torch.exp(z) - torch.log(self.scale)
end
--- Gumbel:mean(): loc + scale * Euler's constant.
--- Example: torch.distributions.Gumbel(0, 1):mean()
function Gumbel:mean() return self.loc + self.scale * EULER end
--- Gumbel:mode(): loc.
--- Example: torch.distributions.Gumbel(1, 2):mode()
function Gumbel:mode() return self.loc end
--- Gumbel:stddev(): pi / sqrt(6) * scale.
--- Example: torch.distributions.Gumbel(0, 1):stddev()
function Gumbel:stddev() return self.scale * (math.pi / math.sqrt(6)) end
--- Gumbel:variance(): (pi scale)^2 / 6.
--- Example: torch.distributions.Gumbel(0, 1):variance()
function Gumbel:variance() return torch.pow(self:stddev(), 2) end
--- Gumbel:entropy(): log(scale) + 1 + Euler's constant.
--- Example: torch.distributions.Gumbel(0, 1):entropy()
function Gumbel:entropy() return torch.log(self.scale) + (1 + EULER) end

-- HalfNormal and HalfCauchy: |X| for X of a symmetric base with loc 0 (the base given by name).
local function half(name, baseName, doc)
  local C = family(name)
  C._params = { 'scale' }
  C.__init = function(self, ...)
    self:_initParams('distributions.' .. name, { { 'scale', positive } }, ...)
    self:_build(D[baseName](0, self.scale, NOVAL), D.AbsTransform(), self.validateArgs)
  end
  C._expandParts = function(self, new, shape)
    new.baseDist = self.baseDist:expand(shape)
  end
  C.support = function() return constraints.nonnegative end
  C.logProb = function(self, value)
    local v = self:_tensorValue(value)
    return torch.where(torch.ge(v, 0), self.baseDist:logProb(v) + LOG2, -math.huge)
  end
  C.cdf = function(self, value) return self.baseDist:cdf(self:_tensorValue(value)) * 2 - 1 end
  C.icdf = function(self, p)
    p = self:_tensorValue(p, 'p')
    if self.validateArgs then constraints.validate(self:_op(), 'p', constraints.unitInterval, p) end
    return self.baseDist:icdf((p + 1) / 2)
  end
  C.entropy = function(self) return self.baseDist:entropy() - LOG2 end
  C.mode = function(self) return torch.zerosLike(self.scale) end
  return C
end

--- torch.distributions.HalfNormal(scale [, {validateArgs=}]): |X| for X ~ Normal(0, scale).
--- Methods: logProb, cdf, icdf, entropy, mean, mode (0), variance, sample, rsample.
--- Example: torch.distributions.HalfNormal(2):sample({3})
local HalfNormal = half('HalfNormal', 'Normal')
--- HalfNormal:mean(): scale sqrt(2 / pi).
--- Example: torch.distributions.HalfNormal(1):mean()
function HalfNormal:mean() return self.scale * math.sqrt(2 / math.pi) end
--- HalfNormal:variance(): scale^2 (1 - 2 / pi).
--- Example: torch.distributions.HalfNormal(1):variance()
function HalfNormal:variance() return torch.pow(self.scale, 2) * (1 - 2 / math.pi) end

-- Note [Half cdf without cancellation]: PyTorch's 2 cdf(x) - 1 and icdf((p + 1) / 2) through
-- the symmetric base cancel near 0: HalfNormal(1):cdf(1e-10) kept 6 digits, icdf(1e-12) 4. The
-- closed forms are used instead: erf(x / (scale sqrt 2)) and scale sqrt 2 erfinv(p) (scale
-- ndtri((1 + p) / 2) = -scale ndtri((1 - p) / 2) from p = 1/2 on, where erfinv loses the tail);
-- 2 atan(x / scale) / pi and scale tan(pi p / 2) for HalfCauchy (1 / tan(pi (1 - p) / 2) from
-- p = 1/2 on: tan near pi / 2 magnifies the rounding of pi p / 2).
--- HalfNormal:cdf(value): erf(value / (scale sqrt 2)) (Note [Half cdf without cancellation]).
--- Example: torch.distributions.HalfNormal(1):cdf(1)
function HalfNormal:cdf(value)
  return torch.erf(self:_tensorValue(value) / (self.scale * math.sqrt(2)))
end
--- HalfNormal:icdf(p): scale sqrt 2 erfinv(p) (Note [Half cdf without cancellation]).
--- Example: torch.distributions.HalfNormal(1):icdf(0.5)
function HalfNormal:icdf(p)
  p = self:_tensorValue(p, 'p')
  if self.validateArgs then constraints.validate(self:_op(), 'p', constraints.unitInterval, p) end
  local low = torch.lt(p, 0.5)
  -- stand-ins in the branch not taken, so that no inf reaches the gradient
  local near0 = torch.erfinv(torch.where(low, p, 0.25)) * math.sqrt(2)
  local near1 = -torch.special.ndtri((-torch.where(low, 0.75, p) + 1) * 0.5)
  return torch.cmul(self.scale, torch.where(low, near0, near1))
end

--- torch.distributions.HalfCauchy(scale [, {validateArgs=}]): |X| for X ~ Cauchy(0, scale); its
--- mean and variance are inf. Methods as HalfNormal's.
--- Example: torch.distributions.HalfCauchy(1):sample({3})
local HalfCauchy = half('HalfCauchy', 'Cauchy')
--- HalfCauchy:mean(): inf.
--- Example: torch.distributions.HalfCauchy(1):mean()
function HalfCauchy:mean() return torch.fullLike(self.scale, math.huge) end
--- HalfCauchy:variance(): inf.
--- Example: torch.distributions.HalfCauchy(1):variance()
function HalfCauchy:variance() return self.baseDist:variance() end
--- HalfCauchy:cdf(value): 2 atan(value / scale) / pi (Note [Half cdf without cancellation]).
--- Example: torch.distributions.HalfCauchy(1):cdf(1)
function HalfCauchy:cdf(value) return torch.atan(self:_tensorValue(value) / self.scale) * (2 / math.pi) end
--- HalfCauchy:icdf(p): scale tan(pi p / 2) (Note [Half cdf without cancellation]).
--- Example: torch.distributions.HalfCauchy(1):icdf(0.5)
function HalfCauchy:icdf(p)
  p = self:_tensorValue(p, 'p')
  if self.validateArgs then constraints.validate(self:_op(), 'p', constraints.unitInterval, p) end
  local low = torch.lt(p, 0.5)
  local near0 = torch.tan(torch.where(low, p, 0.25) * (math.pi / 2))
  local near1 = torch.pow(torch.tan((-torch.where(low, 0.75, p) + 1) * (math.pi / 2)), -1)
  return torch.cmul(self.scale, torch.where(low, near0, near1))
end

local Weibull = family('Weibull')
Weibull._params = { 'scale', 'concentration' }
-- The transforms of Weibull(scale, k): Exponential(1)^(1/k), times scale.
local function weibull_transforms(self)
  return { D.PowerTransform(torch.pow(self.concentration, -1)), D.AffineTransform(0, self.scale) }
end
--- torch.distributions.Weibull(scale, concentration [, {validateArgs=}]): scale E^(1/k) for E ~
--- Exponential(1) and k = concentration (both > 0).
--- Example: torch.distributions.Weibull(1, 2):sample({3})
function Weibull:__init(...)
  self:_initParams('distributions.Weibull', { { 'scale', positive }, { 'concentration', positive } }, ...)
  self.concentrationReciprocal = torch.pow(self.concentration, -1)
  self:_build(D.Exponential(torch.onesLike(self.scale), NOVAL), weibull_transforms(self), self.validateArgs)
end
function Weibull:_expandParts(new, shape)
  new.concentrationReciprocal = torch.pow(new.concentration, -1)
  new.baseDist = self.baseDist:expand(shape)
  new.transforms = weibull_transforms(new)
end
--- Weibull:support(): the positive reals.
--- Example: torch.distributions.Weibull(1, 1):support().desc
function Weibull:support() return positive end
--- Weibull:mean(): scale Gamma(1 + 1/k).
--- Example: torch.distributions.Weibull(1, 2):mean()
function Weibull:mean() return torch.cmul(self.scale, torch.exp(torch.lgamma(self.concentrationReciprocal + 1))) end
--- Weibull:mode(): scale ((k - 1) / k)^(1/k) (NaN for k < 1, as PyTorch).
--- Example: torch.distributions.Weibull(1, 2):mode()
function Weibull:mode()
  local k = self.concentration
  return torch.cmul(self.scale, torch.pow((k - 1) / k, self.concentrationReciprocal))
end
--- Weibull:variance(): scale^2 (Gamma(1 + 2/k) - Gamma(1 + 1/k)^2).
--- Example: torch.distributions.Weibull(1, 2):variance()
function Weibull:variance()
  local r = self.concentrationReciprocal
  return torch.cmul(torch.pow(self.scale, 2), torch.exp(torch.lgamma(r * 2 + 1)) - torch.exp(torch.lgamma(r + 1) * 2))
end
--- Weibull:entropy(): Euler (1 - 1/k) + log(scale / k) + 1.
--- Example: torch.distributions.Weibull(1, 2):entropy()
function Weibull:entropy()
  local r = self.concentrationReciprocal
  return (-r + 1) * EULER + torch.log(torch.cmul(self.scale, r)) + 1
end

local Pareto = family('Pareto')
Pareto._params = { 'scale', 'alpha' }
--- torch.distributions.Pareto(scale, alpha [, {validateArgs=}]): the Pareto type-I law on
--- [scale, inf) with tail index alpha (both > 0): scale exp(E), E ~ Exponential(alpha).
--- Example: torch.distributions.Pareto(1, 3):sample({3})
function Pareto:__init(...)
  self:_initParams('distributions.Pareto', { { 'scale', positive }, { 'alpha', positive } }, ...)
  self:_build(D.Exponential(self.alpha, NOVAL), { D.ExpTransform(), D.AffineTransform(0, self.scale) }, self.validateArgs)
end
--- Pareto:support(): x >= scale.
--- Example: torch.distributions.Pareto(1, 1):support().desc
function Pareto:support() return constraints.greaterThanEq(self.scale) end
--- Pareto:mean(): alpha scale / (alpha - 1), inf for alpha <= 1.
--- Example: torch.distributions.Pareto(1, 3):mean()
function Pareto:mean()
  local a = torch.clampMin(self.alpha, 1)
  return torch.cmul(a, self.scale) / (a - 1)
end
--- Pareto:mode(): scale.
--- Example: torch.distributions.Pareto(2, 3):mode()
function Pareto:mode() return self.scale end
--- Pareto:variance(): scale^2 alpha / ((alpha - 1)^2 (alpha - 2)), inf for alpha <= 2.
--- Example: torch.distributions.Pareto(1, 3):variance()
function Pareto:variance()
  local a = torch.clampMin(self.alpha, 2)
  return torch.cmul(torch.pow(self.scale, 2), a) / torch.cmul(torch.pow(a - 1, 2), a - 2)
end
--- Pareto:entropy(): log(scale / alpha) + 1 + 1 / alpha.
--- Example: torch.distributions.Pareto(1, 3):entropy()
function Pareto:entropy() return torch.log(self.scale / self.alpha) + torch.pow(self.alpha, -1) + 1 end

local Kumaraswamy = family('Kumaraswamy')
Kumaraswamy._params = { 'concentration1', 'concentration0' }
-- E[X^n] = b B(1 + n/a, b) for Kumaraswamy(a, b).
local function moment(a, b, n)
  local a1 = torch.pow(a, -1) * n + 1
  return torch.cmul(b, torch.exp(torch.lgamma(a1) + torch.lgamma(b) - torch.lgamma(a1 + b)))
end
--- torch.distributions.Kumaraswamy(concentration1, concentration0 [, {validateArgs=}]): density
--- a b x^(a-1) (1 - x^a)^(b-1) on [0, 1] (a = concentration1, b = concentration0, both > 0):
--- (1 - U^(1/b))^(1/a) for U uniform.
--- Example: torch.distributions.Kumaraswamy(2, 3):sample({3})
function Kumaraswamy:__init(...)
  self:_initParams('distributions.Kumaraswamy', { { 'concentration1', positive }, { 'concentration0', positive } }, ...)
  local c0 = self.concentration0
  self:_build(D.Uniform(torch.zerosLike(c0), torch.onesLike(c0), NOVAL), {
    D.PowerTransform(torch.pow(c0, -1)), D.AffineTransform(1, -1), D.PowerTransform(torch.pow(self.concentration1, -1)) },
    self.validateArgs)
end
-- Note [Kumaraswamy logProb]: the closed form log(a b) + (a - 1) log x + (b - 1) log(1 - x^a),
-- through xlogy and xlog1py so that the ends of the support give the density's limits (log b at
-- x = 0 for a = 1, log a at x = 1 for b = 1, -inf or inf otherwise): the change of variables
-- through the power transforms (PyTorch 1.13's) is NaN at both ends for every a and b.
--- Kumaraswamy:logProb(value): log(a b) + (a - 1) log(value) + (b - 1) log(1 - value^a).
--- Example: torch.distributions.Kumaraswamy(2, 3):logProb(0.5)
function Kumaraswamy:logProb(value)
  local x = self:_tensorValue(value)
  local a, b = self.concentration1, self.concentration0
  return torch.log(a) + torch.log(b) + torch.xlogy(a - 1, x) + torch.special.xlog1py(b - 1, -torch.pow(x, a))
end
--- Kumaraswamy:support(): [0, 1].
--- Example: torch.distributions.Kumaraswamy(1, 1):support().desc
function Kumaraswamy:support() return constraints.unitInterval end
--- Kumaraswamy:mean(): b B(1 + 1/a, b).
--- Example: torch.distributions.Kumaraswamy(2, 3):mean()
function Kumaraswamy:mean() return moment(self.concentration1, self.concentration0, 1) end
--- Kumaraswamy:variance(): E[X^2] - mean^2.
--- Example: torch.distributions.Kumaraswamy(2, 3):variance()
function Kumaraswamy:variance()
  return moment(self.concentration1, self.concentration0, 2) - torch.pow(self:mean(), 2)
end
-- Note [Kumaraswamy mode]: ((a - 1) / (a b - 1))^(1/a) for a, b >= 1 (not both 1), NaN
-- otherwise. PyTorch 1.13's log-space formula takes log1p(-b), which is NaN for every b > 1, so
-- its mode is NaN everywhere; this is the textbook value.
--- Kumaraswamy:mode(): ((a - 1) / (a b - 1))^(1/a), NaN where a < 1 or b < 1.
--- Example: torch.distributions.Kumaraswamy(2, 3):mode()
function Kumaraswamy:mode()
  local a, b = self.concentration1, self.concentration0
  local m = torch.pow((a - 1) / (torch.cmul(a, b) - 1), torch.pow(a, -1))
  return torch.where(torch.logicalOr(torch.lt(a, 1), torch.lt(b, 1)), 0 / 0, m)
end
--- Kumaraswamy:entropy(): (1 - 1/b) + (1 - 1/a) H_b - log(a b), H_b = digamma(b + 1) + Euler.
--- Example: torch.distributions.Kumaraswamy(2, 3):entropy()
function Kumaraswamy:entropy()
  local a, b = self.concentration1, self.concentration0
  local t1, t0 = -torch.pow(a, -1) + 1, -torch.pow(b, -1) + 1
  local H0 = torch.digamma(b + 1) + EULER
  return t0 + torch.cmul(t1, H0) - torch.log(a) - torch.log(b)
end

local LogisticNormal = family('LogisticNormal')
--- torch.distributions.LogisticNormal(loc, scale [, {validateArgs=}]): the stick-breaking image
--- of Normal(loc, scale) vectors: points of the simplex with one entry more than loc's last dim
--- (a scalar loc is taken as a vector of one).
--- Example: torch.distributions.LogisticNormal(torch.zeros(3), torch.ones(3)):sample()
function LogisticNormal:__init(...)
  local op = 'distributions.LogisticNormal'
  local a, validate = util.args(op, { 'loc', 'scale' }, ...)
  local base = D._inFamily(op, D.Normal, a.loc, a.scale, { validateArgs = validate })
  if #base.batchShape == 0 then base = base:expand({ 1 }) end
  self:_build(base, D.StickBreakingTransform(), validate)
  self.loc, self.scale = base.loc, base.scale
end
function LogisticNormal:_expandParts(new, shape)
  D.TransformedDistribution._expandParts(self, new, shape)
  new.loc, new.scale = new.baseDist.baseDist.loc, new.baseDist.baseDist.scale
end
--- LogisticNormal:support(): the simplex.
--- Example: torch.distributions.LogisticNormal(torch.zeros(2), 1):support().desc
function LogisticNormal:support() return constraints.simplex end

return Gumbel
