-- torch.distributions.StudentT and FisherSnedecor: ratios of normal and chi-squared (gamma)
-- draws, reparameterized through the implicit gamma gradient (gamma.lua's Chi2 and Gamma).
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local D = torch.distributions
require 'torch.distributions.gamma'

-- Note [Chi2 lives in gamma.lua]: PyTorch's Chi2 (a Gamma subclass, Gamma(df / 2, 1 / 2)) is
-- already defined with Gamma; StudentT draws its denominators from it.

-- Note [Moments outside their domain]: mean, variance and mode are NaN (or inf) where the moment
-- does not exist, as PyTorch; the formulas are evaluated at a safe stand-in there and then
-- masked, so that a gradient through the selected branch never meets 0 * inf.

local nan, inf = 0 / 0, math.huge
local HALF_LOG_PI = 0.5 * math.log(math.pi)
local LGAMMA_HALF = 0.5 * math.log(math.pi)  -- lgamma(1/2) = log(sqrt(pi))

-- Note [StudentT for large df]: lgamma(df/2) - lgamma((df+1)/2) and digamma((df+1)/2) -
-- digamma(df/2) cancel as df grows: each term is about x log x for x = df/2 while their difference
-- is about log(x)/2, so in float the logProb is off by 0.25 at df = 1e6 (the ulp of lgamma(5e5)),
-- and PyTorch 1.13's in double by 0.001 at df = 1e12 and by 3 at df = 1e15. From x = 32 on, the
-- asymptotic series (from the Bernoulli polynomials at 1/2) replace the differences:
--   lgamma(x + 1/2) - lgamma(x) = log(x)/2 - 1/(8x) + 1/(192x^3) - 1/(640x^5) + 17/(14336x^7)
-- and its derivative for the digammas, both exact to double precision there.
local SERIES_FROM = 32
-- lgamma(x + 1/2) - lgamma(x) and digamma(x + 1/2) - digamma(x), elementwise, for x > 0 (the
-- series evaluated at a stand-in below SERIES_FROM, so that no inf reaches the gradient).
local function half_steps(x)
  local big = torch.ge(x, SERIES_FROM)
  local xs, xd = torch.where(big, x, SERIES_FROM), torch.where(big, 1, x)
  local r = torch.pow(xs, -1)
  local r2 = torch.pow(r, 2)
  -- Horner forms of the two series in 1/x^2.
  local lg = torch.log(xs) * 0.5 - torch.cmul(r, torch.cmul(r2, torch.cmul(r2, torch.cmul(r2, -17 / 14336)
    + 1 / 640) - 1 / 192) + 1 / 8)
  local dg = torch.cmul(r, torch.cmul(r, torch.cmul(r2, torch.cmul(r2, torch.cmul(r2, 17 / 2048) - 1 / 128)
    + 1 / 64) * -1 + 1 / 8) + 0.5)
  local lgDirect = torch.lgamma(xd + 0.5) - torch.lgamma(xd)
  local dgDirect = torch.digamma(xd + 0.5) - torch.digamma(xd)
  return torch.where(big, lg, lgDirect), torch.where(big, dg, dgDirect)
end

local StudentT = torch.class('torch.distributions.StudentT', 'torch.distributions.Distribution', D)
StudentT.hasRsample = true
StudentT._params = { 'df', 'loc', 'scale' }

--- torch.distributions.StudentT(df [, loc = 0 [, scale = 1]] [, {validateArgs=}]): Student's t
--- distribution with df > 0 degrees of freedom, location loc and scale > 0 (numbers or tensors,
--- broadcast together). rsample is differentiable in all three (through Chi2's implicit gradient).
--- Example: torch.distributions.StudentT(3, 0, 2):sample({4})
function StudentT:__init(...)
  local op = self:_op()
  local a, validate = util.args(op, { 'df', 'loc', 'scale' }, ...)
  if a.df == nil then util.fail(op, 'df is required') end
  if a.loc == nil then a.loc = 0 end
  if a.scale == nil then a.scale = 1 end
  local t, shape = util.broadcast_all(op, { 'df', 'loc', 'scale' }, { a.df, a.loc, a.scale })
  self.df, self.loc, self.scale = t[1], t[2], t[3]
  self:_setup(shape, nil, validate)
  self:_check('df', constraints.positive, self.df)
  self:_check('loc', constraints.real, self.loc)
  self:_check('scale', constraints.positive, self.scale)
  self._chi2 = D.Chi2(self.df, { validateArgs = false })
end
function StudentT:_expandParts(new, shape) new._chi2 = self._chi2:expand(shape) end

--- StudentT:rsample([sampleShape]): loc + scale X / sqrt(Z / df), X standard normal, Z ~ Chi2(df)
--- (differentiable in df, loc and scale).
--- Example: torch.distributions.StudentT(torch.Tensor({5}):requiresGrad()):rsample({3})
function StudentT:rsample(shape)
  local s = self:_extendedShape(shape)
  local x = util.empty(self.df, s):normal()
  local z = self._chi2:rsample(shape)
  local y = torch.cmul(x, torch.rsqrt(z / self.df))
  return self.loc + torch.cmul(self.scale, y)
end
--- StudentT:logProb(value): lgamma((df+1)/2) - lgamma(df/2) - log(scale sqrt(df pi))
--- - (df+1)/2 log(1 + y^2 / df), y = (value - loc) / scale.
--- Example: torch.distributions.StudentT(3):logProb(0.5)
function StudentT:logProb(value)
  local v = self:_value(value, nil, self.df)
  local df = self.df
  local y = (v - self.loc) / self.scale
  local z = torch.log(self.scale) + torch.log(df) * 0.5 + HALF_LOG_PI - half_steps(df * 0.5)  -- Note [StudentT for large df]
  return -torch.cmul((df + 1) * 0.5, torch.log1p(torch.pow(y, 2) / df)) - z
end
--- StudentT:entropy(): log(scale) + (df+1)/2 (digamma((df+1)/2) - digamma(df/2)) + log(df)/2
--- + log B(df/2, 1/2).
--- Example: torch.distributions.StudentT(3):entropy()
function StudentT:entropy()
  local df = self.df
  local lgStep, dgStep = half_steps(df * 0.5)   -- Note [StudentT for large df]
  local lbeta = -lgStep + LGAMMA_HALF
  return torch.log(self.scale) + torch.cmul((df + 1) * 0.5, dgStep) + torch.log(df) * 0.5 + lbeta
end
--- StudentT:mean(): loc where df > 1, NaN elsewhere (Note [Moments outside their domain]).
--- Example: torch.distributions.StudentT(torch.Tensor({0.5, 3}), 2):mean()
function StudentT:mean()
  return torch.where(torch.gt(self.df, 1), self.loc, nan)
end
--- StudentT:mode(): loc.
--- Example: torch.distributions.StudentT(3, 2):mode()
function StudentT:mode() return self.loc end
--- StudentT:variance(): scale^2 df / (df - 2) where df > 2, inf where 1 < df <= 2, NaN where df <= 1.
--- Example: torch.distributions.StudentT(torch.Tensor({1, 1.5, 4})):variance()
function StudentT:variance()
  local df = self.df
  local big = torch.gt(df, 2)
  local safe = torch.where(big, df, 3)
  local v = torch.cmul(torch.pow(self.scale, 2), safe / (safe - 2))
  return torch.where(big, v, torch.where(torch.gt(df, 1), inf, nan))
end

local Fisher = torch.class('torch.distributions.FisherSnedecor', 'torch.distributions.Distribution', D)
Fisher.hasRsample = true
Fisher._params = { 'df1', 'df2' }

--- torch.distributions.FisherSnedecor(df1, df2 [, {validateArgs=}]): the F distribution of
--- (X1 / df1) / (X2 / df2), X1 ~ Chi2(df1), X2 ~ Chi2(df2); df1, df2 > 0. rsample is
--- differentiable in both (implicit gamma gradients).
--- Example: torch.distributions.FisherSnedecor(3, 5):sample({4})
function Fisher:__init(...)
  local op = self:_op()
  local a, validate = util.args(op, { 'df1', 'df2' }, ...)
  local t, shape = util.broadcast_all(op, { 'df1', 'df2' }, { a.df1, a.df2 })
  self.df1, self.df2 = t[1], t[2]
  self:_setup(shape, nil, validate)
  self:_check('df1', constraints.positive, self.df1)
  self:_check('df2', constraints.positive, self.df2)
  -- Gamma(df / 2, rate df) is Chi2(df) / (2 df): the factors 1/2 cancel in the ratio (PyTorch's).
  self._gamma1 = D.Gamma(self.df1 * 0.5, self.df1, { validateArgs = false })
  self._gamma2 = D.Gamma(self.df2 * 0.5, self.df2, { validateArgs = false })
end
function Fisher:_expandParts(new, shape)
  new._gamma1, new._gamma2 = self._gamma1:expand(shape), self._gamma2:expand(shape)
end
--- FisherSnedecor:support(): the positive reals.
--- Example: torch.distributions.FisherSnedecor(3, 5):support().desc
function Fisher:support() return constraints.positive end

--- FisherSnedecor:rsample([sampleShape]): X1 / X2 from the two gamma draws, floored at the
--- smallest normal number (differentiable in df1 and df2).
--- Example: torch.distributions.FisherSnedecor(torch.Tensor({3}):requiresGrad(), 5):rsample({2})
function Fisher:rsample(shape)
  shape = util.sample_shape(self:_op(), shape)   -- checked here, so that errors name FisherSnedecor
  local x1 = self._gamma1:rsample(shape)
  local x2 = self._gamma2:rsample(shape)
  local tiny = util.tiny(x1)
  return torch.clampMin(x1 / torch.clampMin(x2, tiny), tiny)
end
--- FisherSnedecor:logProb(value): lgamma((d1+d2)/2) - lgamma(d1/2) - lgamma(d2/2) + d1/2 log(d1/d2)
--- + (d1/2 - 1) log(value) - (d1+d2)/2 log(1 + d1 value / d2).
--- Example: torch.distributions.FisherSnedecor(3, 5):logProb(1.2)
function Fisher:logProb(value)
  local v = self:_value(value, nil, self.df1)
  local c1, c2, c3 = self.df1 * 0.5, self.df2 * 0.5, self.df1 / self.df2
  local t1 = torch.lgamma(c1 + c2) - torch.lgamma(c1) - torch.lgamma(c2)
  local t2 = torch.cmul(c1, torch.log(c3)) + torch.cmul(c1 - 1, torch.log(v))
  local t3 = torch.cmul(c1 + c2, torch.log1p(torch.cmul(c3, v)))
  return t1 + t2 - t3
end
--- FisherSnedecor:entropy(): log(d2/d1) + log B(a, b) - (a-1) digamma(a) - (b+1) digamma(b)
--- + (a+b) digamma(a+b), a = d1/2, b = d2/2 (the beta-prime entropy, scaled; not in PyTorch 1.13).
--- Example: torch.distributions.FisherSnedecor(3, 5):entropy()
function Fisher:entropy()
  local a, b = self.df1 * 0.5, self.df2 * 0.5
  local dg = torch.digamma
  return torch.log(self.df2 / self.df1) + util.lbeta(a, b) - torch.cmul(a - 1, dg(a)) - torch.cmul(b + 1, dg(b))
    + torch.cmul(a + b, dg(a + b))
end
--- FisherSnedecor:mean(): df2 / (df2 - 2) where df2 > 2, NaN elsewhere.
--- Example: torch.distributions.FisherSnedecor(3, 5):mean()
function Fisher:mean()
  local ok = torch.gt(self.df2, 2)
  local d2 = torch.where(ok, self.df2, 3)
  return torch.where(ok, d2 / (d2 - 2), nan)
end
--- FisherSnedecor:mode(): (df1 - 2) / df1 * df2 / (df2 + 2) where df1 > 2, NaN elsewhere.
--- Example: torch.distributions.FisherSnedecor(3, 5):mode()
function Fisher:mode()
  local ok = torch.gt(self.df1, 2)
  local d1 = torch.where(ok, self.df1, 3)
  return torch.where(ok, torch.cmul((d1 - 2) / d1, self.df2 / (self.df2 + 2)), nan)
end
--- FisherSnedecor:variance(): 2 df2^2 (df1 + df2 - 2) / (df1 (df2 - 2)^2 (df2 - 4)) where df2 > 4,
--- NaN elsewhere.
--- Example: torch.distributions.FisherSnedecor(3, 6):variance()
function Fisher:variance()
  local ok = torch.gt(self.df2, 4)
  local d1, d2 = self.df1, torch.where(ok, self.df2, 5)
  local num = torch.cmul(torch.pow(d2, 2) * 2, d1 + d2 - 2)
  local den = torch.cmul(torch.cmul(d1, torch.pow(d2 - 2, 2)), d2 - 4)
  return torch.where(ok, num / den, nan)
end

return StudentT
