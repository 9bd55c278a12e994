-- torch.distributions.Uniform: continuous uniform on [low, high).
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local D = torch.distributions

local Uniform = torch.class('torch.distributions.Uniform', 'torch.distributions.Distribution', D)
Uniform.hasRsample = true
Uniform._params = { 'low', 'high' }

--- torch.distributions.Uniform(low, high [, {validateArgs=}]): uniform on [low, high), low < high;
--- numbers or tensors, broadcast together.
--- Example: torch.distributions.Uniform(0, torch.Tensor({1, 2})):sample()
function Uniform:__init(...)
  local op = 'distributions.Uniform'
  self:_initParams(op, { { 'low', constraints.real }, { 'high', constraints.real } }, ...)
  if self.validateArgs and not torch.all(torch.lt(self.low, self.high)) then
    local bad = torch.argmax(torch.ge(self.low, self.high):float():contiguous():view(self.low:nElement()))
    local lo = self.low:contiguous():view(self.low:nElement()):double()[bad]
    local hi = self.high:contiguous():view(self.high:nElement()):double()[bad]
    util.fail(op, 'low must be less than high, got low = %s and high = %s (element %d)', tostring(lo), tostring(hi), bad)
  end
end
-- Note [Uniform support is closed]: draws fall in [low, high), but the support checked by
-- validateArgs is [low, high], PyTorch 1.13's constraints.interval: cdf(high) is 1 and
-- logProb(high) -inf, where the half-open support made both an error.
--- Uniform:support(): [low, high] (Note [Uniform support is closed]).
--- Example: torch.distributions.Uniform(0, 2):support().desc
function Uniform:support() return constraints.interval(self.low, self.high) end

--- Uniform:rsample([sampleShape]): low + (high - low) u, u uniform on [0, 1) (differentiable).
--- Example: torch.distributions.Uniform(0, 1):rsample({3})
function Uniform:rsample(shape)
  local u = util.empty(self.low, self:_extendedShape(shape)):uniform()
  return self.low + torch.cmul(u, self.high - self.low)
end
--- Uniform:logProb(value): -log(high - low) inside [low, high), -inf at high and (with
--- validateArgs=false; an error otherwise) outside [low, high].
--- Example: torch.distributions.Uniform(0, 2):logProb(1)
function Uniform:logProb(value)
  local v = self:_value(value, nil, self.low)
  local inside = torch.logicalAnd(torch.ge(v, self.low), torch.lt(v, self.high)):typeAs(v)
  return torch.log(inside) - torch.log(self.high - self.low)
end
--- Uniform:cdf(value): (value - low) / (high - low) clamped to [0, 1].
--- Example: torch.distributions.Uniform(0, 2):cdf(0.5)
function Uniform:cdf(value)
  local v = self:_value(value, nil, self.low)
  return torch.clamp((v - self.low) / (self.high - self.low), 0, 1)
end
--- Uniform:icdf(p): low + p (high - low).
--- Example: torch.distributions.Uniform(0, 2):icdf(0.25)
function Uniform:icdf(p)
  p = self:_value(p, 'p', self.low)
  self:_check('p', constraints.unitInterval, p)
  return self.low + torch.cmul(p, self.high - self.low)
end
--- Uniform:entropy(): log(high - low).
--- Example: torch.distributions.Uniform(0, 2):entropy()
function Uniform:entropy() return torch.log(self.high - self.low) end
--- Uniform:mean(): (low + high) / 2; mode() is NaN (every point is one), as PyTorch.
--- Example: torch.distributions.Uniform(0, 2):mean()
function Uniform:mean() return (self.low + self.high) / 2 end
--- Uniform:mode(): NaN (every point of [low, high) is a mode), as PyTorch.
--- Example: torch.distributions.Uniform(0, 2):mode()
function Uniform:mode() return self.low * (0 / 0) end
--- Uniform:variance(): (high - low)^2 / 12.
--- Example: torch.distributions.Uniform(0, 2):variance()
function Uniform:variance() return torch.pow(self.high - self.low, 2) / 12 end
--- Uniform:stddev(): (high - low) / sqrt(12) (exponential.lua's Note [stddev without the square]).
--- Example: torch.distributions.Uniform(0, 2):stddev()
function Uniform:stddev() return (self.high - self.low) / math.sqrt(12) end

return Uniform
