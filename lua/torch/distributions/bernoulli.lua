-- torch.distributions.Bernoulli and Geometric: one success probability each, given as probs or
-- logits (exactly one), the other derived as PyTorch does (probs clamped to [eps, 1 - eps]).
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local D = torch.distributions

-- Sets self.probs and self.logits from exactly one of a.probs / a.logits; extra: further names.
local function probs_or_logits(self, op, a, validate, extra)
  if (a.probs == nil) == (a.logits == nil) then
    util.fail(op, 'expected exactly one of probs or logits, got %s', a.probs == nil and 'neither' or 'both')
  end
  local names, values = { a.probs ~= nil and 'probs' or 'logits' }, { a.probs or a.logits }
  for _, k in ipairs(extra or {}) do names[#names + 1], values[#values + 1] = k, a[k] end
  local t, shape = util.broadcast_all(op, names, values)
  self:_setup(shape, nil, validate)
  if a.probs ~= nil then
    self:_check('probs', constraints.unitInterval, t[1])
    self.probs, self.logits = t[1], util.probs_to_logits(t[1], true)
  else
    self:_check('logits', constraints.real, t[1])
    self.logits, self.probs = t[1], util.logits_to_probs(t[1], true)
  end
  return t
end
D._probs_or_logits = probs_or_logits

local Bernoulli = torch.class('torch.distributions.Bernoulli', 'torch.distributions.Distribution', D)
Bernoulli.hasRsample = false
Bernoulli._params = { 'probs', 'logits' }

--- torch.distributions.Bernoulli(probs | nil, logits [, {validateArgs=}]): 1 with probability
--- probs (in [0, 1]) or sigmoid(logits), else 0; give exactly one (Bernoulli({logits=l}) too).
--- Samples are 0/1 in the parameters' floating type.
--- Example: torch.distributions.Bernoulli(0.3):sample({5})
function Bernoulli:__init(...)
  local op = 'distributions.Bernoulli'
  local a, validate = util.args(op, { 'probs', 'logits' }, ...)
  probs_or_logits(self, op, a, validate)
end
--- Bernoulli:support(): the values 0 and 1 (constraints.boolean).
--- Example: torch.distributions.Bernoulli(0.5):support().desc
function Bernoulli:support() return constraints.boolean end

Bernoulli.hasEnumerateSupport = true
--- Bernoulli:enumerateSupport([expand = true]): the values 0 and 1 in the parameters' type, of
--- size {2} .. batchShape (Note [enumerateSupport]).
--- Example: torch.distributions.Bernoulli(torch.Tensor({0.2, 0.7})):enumerateSupport()
function Bernoulli:enumerateSupport(expand)
  return self:_enumerate(torch.range(0, 1):to(self.probs:device(), util.cpu_type(self.probs)), expand)
end

--- Bernoulli:sample([sampleShape]): 0/1 draws (torch.bernoulli), no gradient.
--- Example: torch.distributions.Bernoulli(torch.Tensor({0.1, 0.9})):sample({2})
function Bernoulli:sample(shape)
  local s = self:_extendedShape(shape)
  return torch.noGrad(function()
    return torch.bernoulli(util.empty(self.probs, s), self.probs:expand(s):contiguous())
  end)
end
--- Bernoulli:logProb(value): value log p + (1 - value) log(1 - p), from the logits (stable).
--- Example: torch.distributions.Bernoulli(0.3):logProb(1)
function Bernoulli:logProb(value)
  return -util.bce_with_logits(self.logits, self:_value(value, nil, self.probs))
end
--- Bernoulli:entropy(): -p log p - (1 - p) log(1 - p).
--- Example: torch.distributions.Bernoulli(0.5):entropy()
function Bernoulli:entropy() return util.bce_with_logits(self.logits, self.probs) end
--- Bernoulli:mean(): probs; variance() is probs (1 - probs); mode() 1 where probs > 1/2, 0 where
--- below, NaN at 1/2 (PyTorch's).
--- Example: torch.distributions.Bernoulli(0.3):variance()
function Bernoulli:mean() return self.probs end
--- Bernoulli:variance(): probs (1 - probs).
--- Example: torch.distributions.Bernoulli(0.3):variance()
function Bernoulli:variance() return torch.cmul(self.probs, 1 - self.probs) end
--- Bernoulli:mode(): 1 where probs > 1/2, 0 below, NaN at 1/2 (PyTorch's).
--- Example: torch.distributions.Bernoulli(0.7):mode()
function Bernoulli:mode()
  local m = torch.ge(self.probs, 0.5):typeAs(self.probs)
  return torch.where(torch.eq(self.probs, 0.5), 0 / 0, m)
end

local Geometric = torch.class('torch.distributions.Geometric', 'torch.distributions.Distribution', D)
Geometric.hasRsample = false
Geometric._params = { 'probs', 'logits' }

--- torch.distributions.Geometric(probs | nil, logits [, {validateArgs=}]): the number of failures
--- before the first success in Bernoulli(probs) trials (support 0, 1, 2, ..., as PyTorch; Torch7's
--- torch.geometric counts trials from 1 instead). probs in (0, 1].
--- Example: torch.distributions.Geometric(0.25):sample({4})
function Geometric:__init(...)
  local op = 'distributions.Geometric'
  local a, validate = util.args(op, { 'probs', 'logits' }, ...)
  probs_or_logits(self, op, a, validate)
  if a.probs ~= nil then self:_check('probs', constraints.positive, self.probs) end
end
--- Geometric:support(): the non-negative integers.
--- Example: torch.distributions.Geometric(0.5):support().desc
function Geometric:support() return constraints.nonnegativeInteger end

--- Geometric:sample([sampleShape]): floor(log(u) / log(1 - p)), u uniform (inversion), no gradient.
--- Example: torch.distributions.Geometric(0.5):sample({3})
function Geometric:sample(shape)
  local s = self:_extendedShape(shape)
  return torch.noGrad(function()
    local u = torch.clampMin(util.empty(self.probs, s):uniform(), util.tiny(self.probs))
    return torch.floor(torch.log(u) / torch.log1p(-self.probs))
  end)
end
--- Geometric:logProb(value): value log(1 - p) + log p.
--- Example: torch.distributions.Geometric(0.5):logProb(2)
function Geometric:logProb(value)
  local v = self:_value(value, nil, self.probs)
  -- p = 1 with value 0: 0 * log(0) is 0, not NaN. As PyTorch, p is replaced by 0 there before the
  -- log1p (masking the product instead left 0 * inf in its gradient: d/dp was NaN for PyTorch's 1).
  local p = torch.where(torch.logicalAnd(torch.eq(self.probs, 1), torch.eq(v, 0)), 0, self.probs)
  return torch.cmul(v, torch.log1p(-p)) + torch.log(self.probs)
end
-- Note [Geometric entropy from probs]: PyTorch's bce(logits, probs) / probs reads logits that
-- probs_to_logits clamped to [eps, 1 - eps]: below eps (1.2e-7 in float) the entropy was
-- nonsense, 119209 for 28.6 at probs = 1e-12 in float (PyTorch 1.13 too). The same quantity
-- -log p - (1 - p) log1p(-p) / p is taken from probs itself: 0 at p = 1, inf at p = 0 (a
-- stand-in p = 1/2 where p is 1, so that no 0 * inf reaches the gradient).
--- Geometric:entropy(): (-(1 - p) log(1 - p) - p log p) / p (Note [Geometric entropy from probs]).
--- Example: torch.distributions.Geometric(0.5):entropy()
function Geometric:entropy()
  local p = self.probs
  local one = torch.eq(p, 1)
  local q = torch.where(one, 0.5, p)
  local h = -torch.log(q) - torch.cmul(-q + 1, torch.log1p(-q)) / q
  return torch.where(one, 0, torch.where(torch.eq(p, 0), math.huge, h))
end
--- Geometric:mean(): 1/p - 1; variance() (1/p - 1) / p; mode() 0.
--- Example: torch.distributions.Geometric(0.25):mean()
function Geometric:mean() return torch.pow(self.probs, -1) - 1 end
--- Geometric:variance(): (1/p - 1) / p.
--- Example: torch.distributions.Geometric(0.25):variance()
function Geometric:variance() return (torch.pow(self.probs, -1) - 1) / self.probs end
--- Geometric:mode(): 0.
--- Example: torch.distributions.Geometric(0.25):mode()
function Geometric:mode() return torch.zerosLike(self.probs) end

return Bernoulli
