-- torch.distributions.Exponential, Laplace and Cauchy: location/scale families sampled by
-- transforming standard draws (the existing exponential/uniform/cauchy fills), so rsample is
-- differentiable in the parameters.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local D = torch.distributions

local LOC_SCALE = { { 'loc', constraints.real }, { 'scale', constraints.positive } }
local function loc_scale(self, op, ...) self:_initParams(op, LOC_SCALE, ...) end

local Exponential = torch.class('torch.distributions.Exponential', 'torch.distributions.Distribution', D)
Exponential.hasRsample = true
Exponential._params = { 'rate' }

--- torch.distributions.Exponential(rate [, {validateArgs=}]): density rate exp(-rate x) on
--- x >= 0, rate > 0 (mean 1 / rate).
--- Example: torch.distributions.Exponential(2):sample({3})
function Exponential:__init(...)
  self:_initParams('distributions.Exponential', { { 'rate', constraints.positive } }, ...)
end
--- Exponential:support(): the non-negative reals.
--- Example: torch.distributions.Exponential(1):support().desc
function Exponential:support() return constraints.nonnegative end
--- Exponential:rsample([sampleShape]): e / rate, e standard exponential (differentiable in rate).
--- Example: torch.distributions.Exponential(2):rsample({2})
function Exponential:rsample(shape)
  local e = util.empty(self.rate, self:_extendedShape(shape)):exponential(1)
  return e / self.rate
end
--- Exponential:logProb(value): log(rate) - rate value.
--- Example: torch.distributions.Exponential(2):logProb(1)
function Exponential:logProb(value)
  local v = self:_value(value, nil, self.rate)
  return torch.log(self.rate) - torch.cmul(self.rate, v)
end
--- Exponential:cdf(value): 1 - exp(-rate value); icdf(p) is -log(1 - p) / rate.
--- Example: torch.distributions.Exponential(2):cdf(1)
function Exponential:cdf(value)
  local v = self:_value(value, nil, self.rate)
  -- -expm1(-rate v): 1 - exp(-rate v) lost the relative precision of small values (Weibull's and
  -- Pareto's cdf at small x are built on this one)
  return -torch.expm1(-torch.cmul(self.rate, v))
end
--- Exponential:icdf(p): -log(1 - p) / rate.
--- Example: torch.distributions.Exponential(2):icdf(0.5)
function Exponential:icdf(p)
  p = self:_value(p, 'p', self.rate)
  self:_check('p', constraints.unitInterval, p)
  return -torch.log1p(-p) / self.rate
end
--- Exponential:entropy(): 1 - log(rate).
--- Example: torch.distributions.Exponential(2):entropy()
function Exponential:entropy() return 1 - torch.log(self.rate) end
--- Exponential:mean(): 1 / rate; variance() 1 / rate^2; mode() 0.
--- Example: torch.distributions.Exponential(2):mean()
function Exponential:mean() return torch.pow(self.rate, -1) end
--- Exponential:variance(): 1 / rate^2.
--- Example: torch.distributions.Exponential(2):variance()
function Exponential:variance() return torch.pow(self.rate, -2) end
-- Note [stddev without the square]: where PyTorch defines stddev directly (Exponential,
-- Laplace, Uniform, Normal, Gumbel) so does Tocha: sqrt(variance()) overflows to inf once the
-- variance passes the largest number (Laplace(0, 1e300):stddev() was inf for 1.4e300).
--- Exponential:stddev(): 1 / rate.
--- Example: torch.distributions.Exponential(2):stddev()
function Exponential:stddev() return torch.pow(self.rate, -1) end
--- Exponential:mode(): 0.
--- Example: torch.distributions.Exponential(2):mode()
function Exponential:mode() return torch.zerosLike(self.rate) end

local Laplace = torch.class('torch.distributions.Laplace', 'torch.distributions.Distribution', D)
Laplace.hasRsample = true
Laplace._params = { 'loc', 'scale' }

--- torch.distributions.Laplace(loc, scale [, {validateArgs=}]): density exp(-|x - loc| / scale)
--- / (2 scale), scale > 0.
--- Example: torch.distributions.Laplace(0, 1):sample({3})
function Laplace:__init(...) loc_scale(self, 'distributions.Laplace', ...) end
--- Laplace:rsample([sampleShape]): loc - scale sign(u) log(1 - |u|), u uniform on (-1, 1).
--- Example: torch.distributions.Laplace(0, 1):rsample({2})
function Laplace:rsample(shape)
  local u = util.empty(self.loc, self:_extendedShape(shape)):uniform(-1, 1)
  u = torch.clampMin(u, util.eps(u) - 1)  -- keep log1p(-|u|) finite, as PyTorch
  return self.loc - torch.cmul(self.scale, torch.cmul(torch.sign(u), torch.log1p(-torch.abs(u))))
end
--- Laplace:logProb(value): -log(2 scale) - |value - loc| / scale.
--- Example: torch.distributions.Laplace(0, 1):logProb(1)
function Laplace:logProb(value)
  local v = self:_value(value, nil, self.loc)
  return -torch.log(self.scale * 2) - torch.abs(v - self.loc) / self.scale
end
--- Laplace:cdf(value): 1/2 - sign(value - loc) expm1(-|value - loc| / scale) / 2.
--- Example: torch.distributions.Laplace(0, 1):cdf(1)
function Laplace:cdf(value)
  local z = self:_value(value, nil, self.loc) - self.loc
  return 0.5 - torch.cmul(torch.sign(z), torch.expm1(-torch.abs(z) / self.scale)) * 0.5
end
--- Laplace:icdf(p): loc - scale sign(p - 1/2) log(1 - 2 |p - 1/2|).
--- Example: torch.distributions.Laplace(0, 1):icdf(0.9)
function Laplace:icdf(p)
  p = self:_value(p, 'p', self.loc)
  self:_check('p', constraints.unitInterval, p)
  local t = p - 0.5
  return self.loc - torch.cmul(self.scale, torch.cmul(torch.sign(t), torch.log1p(-torch.abs(t) * 2)))
end
--- Laplace:entropy(): 1 + log(2 scale).
--- Example: torch.distributions.Laplace(0, 1):entropy()
function Laplace:entropy() return torch.log(self.scale * 2) + 1 end
--- Laplace:mean(): loc (the mode too); variance() 2 scale^2; stddev() sqrt(2) scale.
--- Example: torch.distributions.Laplace(0, 1):variance()
function Laplace:mean() return self.loc end
--- Laplace:mode(): loc.
--- Example: torch.distributions.Laplace(1, 2):mode()
function Laplace:mode() return self.loc end
--- Laplace:variance(): 2 scale^2.
--- Example: torch.distributions.Laplace(0, 1):variance()
function Laplace:variance() return torch.pow(self.scale, 2) * 2 end
--- Laplace:stddev(): sqrt(2) scale (Note [stddev without the square]).
--- Example: torch.distributions.Laplace(0, 1):stddev()
function Laplace:stddev() return self.scale * math.sqrt(2) end

local Cauchy = torch.class('torch.distributions.Cauchy', 'torch.distributions.Distribution', D)
Cauchy.hasRsample = true
Cauchy._params = { 'loc', 'scale' }

--- torch.distributions.Cauchy(loc, scale [, {validateArgs=}]): density 1 / (pi scale (1 + ((x -
--- loc) / scale)^2)), scale > 0; its mean is NaN and its variance inf (as PyTorch).
--- Example: torch.distributions.Cauchy(0, 1):sample({3})
function Cauchy:__init(...) loc_scale(self, 'distributions.Cauchy', ...) end
--- Cauchy:rsample([sampleShape]): loc + scale c, c standard Cauchy (differentiable).
--- Example: torch.distributions.Cauchy(0, 1):rsample({2})
function Cauchy:rsample(shape)
  local c = util.empty(self.loc, self:_extendedShape(shape)):cauchy(0, 1)
  return self.loc + torch.cmul(c, self.scale)
end
--- Cauchy:logProb(value): -log(pi) - log(scale) - log1p(((value - loc) / scale)^2).
--- Example: torch.distributions.Cauchy(0, 1):logProb(1)
function Cauchy:logProb(value)
  local z = (self:_value(value, nil, self.loc) - self.loc) / self.scale
  return -torch.log(self.scale) - torch.log1p(torch.pow(z, 2)) - math.log(math.pi)
end
--- Cauchy:cdf(value): atan((value - loc) / scale) / pi + 1/2; icdf(p) loc + scale tan(pi (p - 1/2)).
--- Example: torch.distributions.Cauchy(0, 1):cdf(1)
function Cauchy:cdf(value)
  local z = (self:_value(value, nil, self.loc) - self.loc) / self.scale
  return torch.atan(z) / math.pi + 0.5
end
--- Cauchy:icdf(p): loc + scale tan(pi (p - 1/2)).
--- Example: torch.distributions.Cauchy(0, 1):icdf(0.75)
function Cauchy:icdf(p)
  p = self:_value(p, 'p', self.loc)
  self:_check('p', constraints.unitInterval, p)
  return self.loc + torch.cmul(torch.tan((p - 0.5) * math.pi), self.scale)
end
--- Cauchy:entropy(): log(4 pi scale).
--- Example: torch.distributions.Cauchy(0, 1):entropy()
function Cauchy:entropy() return torch.log(self.scale) + math.log(4 * math.pi) end
--- Cauchy:mean(): NaN; variance() inf; mode() loc.
--- Example: torch.distributions.Cauchy(0, 1):mode()
function Cauchy:mean() return self.loc * (0 / 0) end
--- Cauchy:variance(): inf (no finite variance), as PyTorch.
--- Example: torch.distributions.Cauchy(0, 1):variance()
function Cauchy:variance() return torch.fullLike(self.loc, math.huge) end
--- Cauchy:mode(): loc.
--- Example: torch.distributions.Cauchy(1, 1):mode()
function Cauchy:mode() return self.loc end

return Exponential
