-- torch.distributions.ContinuousBernoulli: the density C(p) p^x (1 - p)^(1 - x) on [0, 1]
-- (Loaiza-Ganem and Cunningham, 2019), with PyTorch's Taylor expansions near p = 1/2 where the
-- closed forms cancel; rsample by its closed-form inverse cdf.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local D = torch.distributions

local LOG2 = math.log(2)

local CB = torch.class('torch.distributions.ContinuousBernoulli', 'torch.distributions.Distribution', D)
CB.hasRsample = true
CB._params = { 'probs', 'logits' }

-- Note [ContinuousBernoulli near 1/2]: the normalizer, mean, variance and cdf have removable
-- singularities at p = 1/2 (0 / 0). As PyTorch 1.13, inside lims = (0.499, 0.501) the closed
-- forms are evaluated at a stand-in p = lims[1] (so that no NaN reaches the gradient) and a
-- Taylor expansion in (p - 1/2) is returned instead (the cdf and icdf become the uniform's).
-- probs are clamped to [eps, 1 - eps] (probs given or derived from logits), logits kept as given.

--- torch.distributions.ContinuousBernoulli(probs | nil, logits [, {lims = {0.499, 0.501},
--- validateArgs=}]): density proportional to probs^x (1 - probs)^(1 - x) on [0, 1], probs in
--- [0, 1] or sigmoid(logits) (exactly one; probs is a shape parameter, not a probability).
--- Example: torch.distributions.ContinuousBernoulli(0.3):rsample({4})
function CB:__init(...)
  local op = self:_op()
  local a, validate = util.args(op, { 'probs', 'logits', 'lims' }, ...)
  local lims = a.lims or { 0.499, 0.501 }
  if type(lims) ~= 'table' or type(lims[1]) ~= 'number' or type(lims[2]) ~= 'number' or
     not (lims[1] < 0.5 and lims[2] > 0.5 and lims[1] > 0 and lims[2] < 1) then
    util.fail(op, 'lims must be a table {lo, hi} with 0 < lo < 0.5 < hi < 1, got %s', util.describe(lims))
  end
  self._lims = { lims[1], lims[2] }
  if (a.probs == nil) == (a.logits == nil) then
    util.fail(op, 'expected exactly one of probs or logits, got %s', a.probs == nil and 'neither' or 'both')
  end
  local which = a.probs ~= nil and 'probs' or 'logits'
  local t, shape = util.broadcast_all(op, { which }, { a[which] })
  self:_setup(shape, nil, validate)
  if which == 'probs' then
    self:_check('probs', constraints.unitInterval, t[1])
    self.probs = util.clamp_probs(t[1])
    self.logits = util.probs_to_logits(self.probs, true)
  else
    self:_check('logits', constraints.real, t[1])
    self.logits = t[1]
    self.probs = util.clamp_probs(util.logits_to_probs(t[1], true))
  end
end
--- ContinuousBernoulli:support(): [0, 1].
--- Example: torch.distributions.ContinuousBernoulli(0.3):support().desc
function CB:support() return constraints.unitInterval end

-- The mask of probs outside the unstable region around 1/2, and probs with that region replaced
-- by lims[1] (Note [ContinuousBernoulli near 1/2]).
function CB:_outside()
  return torch.logicalOr(torch.le(self.probs, self._lims[1]), torch.gt(self.probs, self._lims[2]))
end
function CB:_cutProbs()
  return torch.where(self:_outside(), self.probs, self._lims[1])
end
-- log C(p), the log normalizing constant: log(|log(1-p) - log p| / |1 - 2p|), log 2 + ... at 1/2.
function CB:_logNorm()
  local cut = self:_cutProbs()
  local below = torch.le(cut, 0.5)
  local cut_below = torch.where(below, cut, 0)
  local cut_above = torch.where(torch.ge(cut, 0.5), cut, 1)
  local logNorm = torch.log(torch.abs(torch.log1p(-cut) - torch.log(cut)))
    - torch.where(below, torch.log1p(cut_below * -2), torch.log(cut_above * 2 - 1))
  local x = torch.pow(self.probs - 0.5, 2)
  local taylor = torch.cmul(x * (104 / 45) + 4 / 3, x) + LOG2
  return torch.where(self:_outside(), logNorm, taylor)
end

--- ContinuousBernoulli:rsample([sampleShape]): icdf(u) for u uniform on [0, 1), differentiable
--- in probs (or logits).
--- Example: torch.distributions.ContinuousBernoulli(torch.Tensor({0.2}):requiresGrad()):rsample({3})
function CB:rsample(shape)
  local u = util.empty(self.probs, self:_extendedShape(shape)):uniform()
  return self:_icdf(u)
end
--- ContinuousBernoulli:logProb(value): value log p + (1 - value) log(1 - p) + log C(p), from the
--- logits (stable).
--- Example: torch.distributions.ContinuousBernoulli(0.3):logProb(0.25)
function CB:logProb(value)
  local v = self:_value(value, nil, self.probs)
  return -util.bce_with_logits(self.logits, v) + self:_logNorm()
end
--- ContinuousBernoulli:cdf(value): (p^v (1 - p)^(1 - v) + p - 1) / (2p - 1), 0 below 0, 1 above 1.
--- Example: torch.distributions.ContinuousBernoulli(0.3):cdf(0.5)
function CB:cdf(value)
  local v = self:_value(value, nil, self.probs)
  local cut = self:_cutProbs()
  local cdfs = (torch.cmul(torch.pow(cut, v), torch.pow(-cut + 1, -v + 1)) + cut - 1) / (cut * 2 - 1)
  local inner = torch.where(self:_outside(), cdfs, v)
  return torch.where(torch.le(v, 0), 0, torch.where(torch.ge(v, 1), 1, inner))
end
function CB:_icdf(u)
  local cut = self:_cutProbs()
  local l1m = torch.log1p(-cut)
  local x = (torch.log1p(-cut + torch.cmul(u, cut * 2 - 1)) - l1m) / (torch.log(cut) - l1m)
  return torch.where(self:_outside(), x, u)
end
--- ContinuousBernoulli:icdf(p): (log(1 - c + p (2c - 1)) - log(1 - c)) / (log c - log(1 - c)),
--- c = probs (p itself near c = 1/2), p in [0, 1].
--- Example: torch.distributions.ContinuousBernoulli(0.3):icdf(0.5)
function CB:icdf(p)
  p = self:_value(p, 'p', self.probs)
  self:_check('p', constraints.unitInterval, p)
  return self:_icdf(p)
end
--- ContinuousBernoulli:entropy(): mean (log(1 - p) - log p) - log C(p) - log(1 - p).
--- Example: torch.distributions.ContinuousBernoulli(0.3):entropy()
function CB:entropy()
  local l0, l1 = torch.log1p(-self.probs), torch.log(self.probs)
  return torch.cmul(self:mean(), l0 - l1) - self:_logNorm() - l0
end
--- ContinuousBernoulli:mean(): p / (2p - 1) + 1 / (log(1 - p) - log p) (a Taylor expansion near 1/2).
--- Example: torch.distributions.ContinuousBernoulli(0.3):mean()
function CB:mean()
  local cut = self:_cutProbs()
  local mus = cut / (cut * 2 - 1) + torch.pow(torch.log1p(-cut) - torch.log(cut), -1)
  local x = self.probs - 0.5
  local taylor = torch.cmul(torch.pow(x, 2) * (16 / 45) + 1 / 3, x) + 0.5
  return torch.where(self:_outside(), mus, taylor)
end
--- ContinuousBernoulli:variance(): p (p - 1) / (1 - 2p)^2 + 1 / (log(1 - p) - log p)^2 (a Taylor
--- expansion near 1/2).
--- Example: torch.distributions.ContinuousBernoulli(0.3):variance()
function CB:variance()
  local cut = self:_cutProbs()
  local vars = torch.cmul(cut, cut - 1) / torch.pow(-cut * 2 + 1, 2) + torch.pow(torch.log1p(-cut) - torch.log(cut), -2)
  local x = torch.pow(self.probs - 0.5, 2)
  local taylor = -torch.cmul(-x * (128 / 945) + 1 / 15, x) + 1 / 12
  return torch.where(self:_outside(), vars, taylor)
end
--- ContinuousBernoulli:mode(): 1 where probs > 1/2, 0 below, NaN at 1/2 where the density is flat
--- (Bernoulli's convention; not in PyTorch 1.13).
--- Example: torch.distributions.ContinuousBernoulli(0.7):mode()
function CB:mode()
  local m = torch.gt(self.probs, 0.5):typeAs(self.probs)
  return torch.where(torch.eq(self.probs, 0.5), 0 / 0, m)
end

return CB
