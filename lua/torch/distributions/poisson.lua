-- torch.distributions.Poisson and Binomial: counts, sampled by the existing torch.poisson and
-- torch.binomial (reproducible under torch.manualSeed, the same values on every device).
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local D = torch.distributions

local Poisson = torch.class('torch.distributions.Poisson', 'torch.distributions.Distribution', D)
Poisson.hasRsample = false
Poisson._params = { 'rate' }

--- torch.distributions.Poisson(rate [, {validateArgs=}]): counts k = 0, 1, ... with probability
--- rate^k exp(-rate) / k!, rate >= 0. Samples are whole numbers in the floating type.
--- Example: torch.distributions.Poisson(torch.Tensor({1, 10})):sample({2})
function Poisson:__init(...)
  self:_initParams('distributions.Poisson', { { 'rate', constraints.nonnegative } }, ...)
end
--- Poisson:support(): the non-negative integers.
--- Example: torch.distributions.Poisson(3):support().desc
function Poisson:support() return constraints.nonnegativeInteger end
--- Poisson:sample([sampleShape]): torch.poisson draws, no gradient.
--- Example: torch.distributions.Poisson(3):sample({4})
function Poisson:sample(shape)
  local s = self:_extendedShape(shape)
  return torch.noGrad(function() return torch.poisson(self.rate:expand(s):contiguous()) end)
end
--- Poisson:logProb(value): value log(rate) - rate - lgamma(value + 1) (0 log 0 = 0).
--- Example: torch.distributions.Poisson(3):logProb(2)
function Poisson:logProb(value)
  local v = self:_value(value, nil, self.rate)
  return torch.xlogy(v, self.rate) - self.rate - torch.lgamma(v + 1)
end
--- Poisson:mean(): rate; variance() rate; mode() floor(rate).
--- Example: torch.distributions.Poisson(3):variance()
function Poisson:mean() return self.rate end
--- Poisson:variance(): rate.
--- Example: torch.distributions.Poisson(3):variance()
function Poisson:variance() return self.rate end
--- Poisson:mode(): floor(rate).
--- Example: torch.distributions.Poisson(3.5):mode()
function Poisson:mode() return torch.floor(self.rate) end

local Binomial = torch.class('torch.distributions.Binomial', 'torch.distributions.Distribution', D)
Binomial.hasRsample = false
Binomial._params = { 'totalCount', 'probs', 'logits' }

--- torch.distributions.Binomial([totalCount = 1,] probs | nil, logits [, {validateArgs=}]): the
--- number of successes in totalCount (a whole number >= 0, or a tensor of them) Bernoulli trials
--- of probability probs or sigmoid(logits); give exactly one of probs, logits.
--- Example: torch.distributions.Binomial(10, 0.3):sample({4})
function Binomial:__init(...)
  local op = 'distributions.Binomial'
  local a, validate = util.args(op, { 'totalCount', 'probs', 'logits' }, ...)
  if a.totalCount == nil then a.totalCount = 1 end
  local t = D._probs_or_logits(self, op, a, validate, { 'totalCount' })
  self.totalCount = t[2]
  self:_check('totalCount', constraints.nonnegativeInteger, self.totalCount)
end
--- Binomial:support(): the integers 0..totalCount.
--- Example: torch.distributions.Binomial(5, 0.5):support().desc
function Binomial:support() return constraints.integerInterval(0, self.totalCount) end
Binomial.hasEnumerateSupport = true
--- Binomial:enumerateSupport([expand = true]): 0..totalCount in the parameters' type, of size
--- {totalCount + 1} .. batchShape; totalCount must be the same across the batch (as PyTorch).
--- Example: torch.distributions.Binomial(3, torch.Tensor({0.2, 0.7})):enumerateSupport()
function Binomial:enumerateSupport(expand)
  local n = self.totalCount:double()
  local hi = n:nElement() > 0 and torch.max(n) or 0
  if n:nElement() > 0 and torch.min(n) ~= hi then
    util.fail(self:_op(), 'enumerateSupport needs the same totalCount across the batch, got %s to %s',
      tostring(torch.min(n)), tostring(hi))
  end
  return self:_enumerate(torch.range(0, hi):to(self.probs:device(), util.cpu_type(self.probs)), expand)
end
--- Binomial:sample([sampleShape]): torch.binomial draws, no gradient.
--- Example: torch.distributions.Binomial(5, 0.5):sample({3})
function Binomial:sample(shape)
  local s = self:_extendedShape(shape)
  return torch.noGrad(function()
    return torch.binomial(self.totalCount:expand(s):contiguous(), self.probs:expand(s):contiguous())
  end)
end
--- Binomial:logProb(value): log C(n, value) + value log p + (n - value) log(1 - p), from the
--- logits as PyTorch (finite at p = 0 or 1).
--- Example: torch.distributions.Binomial(10, 0.3):logProb(3)
function Binomial:logProb(value)
  local k = self:_value(value, nil, self.probs)
  local n, l = self.totalCount, self.logits
  local lognorm = torch.cmul(n, util.softplus(l)) - torch.lgamma(n + 1)   -- Note [Softplus kink]
  return torch.cmul(k, l) - lognorm - torch.lgamma(k + 1) - torch.lgamma(n - k + 1)
end
--- Binomial:entropy(): -sum over k = 0..max(totalCount) of P(k) log P(k) (an enumeration, as
--- PyTorch's; cost grows with totalCount).
--- Example: torch.distributions.Binomial(10, 0.3):entropy()
function Binomial:entropy()
  local nmax = torch.max(self.totalCount:double())
  local ks = torch.range(0, nmax):to(self.probs:device(), util.cpu_type(self.probs))
  local kshape = { nmax + 1 }
  for _ = 1, #self.batchShape do kshape[#kshape + 1] = 1 end
  ks = ks:view(torch.LongStorage(kshape))
  local lax = D.Binomial(self.totalCount, nil, self.logits, { validateArgs = false })
  local lp = lax:logProb(ks)
  local terms = torch.where(torch.le(ks:expand(lp:size()), self.totalCount:expand(lp:size())), torch.cmul(torch.exp(lp), lp), 0)
  return -torch.sum(terms, 1):squeeze(1):view(self.batchShape)
end
--- Binomial:mean(): totalCount probs; variance() totalCount probs (1 - probs); mode()
--- min(floor((totalCount + 1) probs), totalCount).
--- Example: torch.distributions.Binomial(10, 0.3):mean()
function Binomial:mean() return torch.cmul(self.totalCount, self.probs) end
--- Binomial:variance(): totalCount probs (1 - probs).
--- Example: torch.distributions.Binomial(10, 0.3):variance()
function Binomial:variance() return torch.cmul(torch.cmul(self.totalCount, self.probs), 1 - self.probs) end
--- Binomial:mode(): min(floor((totalCount + 1) probs), totalCount).
--- Example: torch.distributions.Binomial(10, 0.3):mode()
function Binomial:mode() return torch.cmin(torch.floor(torch.cmul(self.totalCount + 1, self.probs)), self.totalCount) end

return Poisson
