-- torch.distributions.Multinomial (counts of totalCount categorical draws over K categories) and
-- NegativeBinomial (successes before totalCount failures, a gamma-Poisson mixture).
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local D = torch.distributions
require 'torch.distributions.categorical'
require 'torch.distributions.poisson'

local Multinomial = torch.class('torch.distributions.Multinomial', 'torch.distributions.Distribution', D)
Multinomial.hasRsample = false
Multinomial._params = { 'probs', 'logits' }

--- torch.distributions.Multinomial([totalCount = 1,] probs | nil, logits [, {validateArgs=}]):
--- the counts of totalCount (one whole number >= 0, as PyTorch) draws from the K categories of
--- probs (non-negative weights, normalized along the last dim) or softmax(logits). eventShape is
--- {K}; samples are counts in the parameters' floating type. logProb accepts counts of any total.
--- Example: torch.distributions.Multinomial(10, torch.Tensor({0.2, 0.3, 0.5})):sample({2})
function Multinomial:__init(...)
  local op = self:_op()
  local a, validate = util.args(op, { 'totalCount', 'probs', 'logits' }, ...)
  local n = a.totalCount
  if n == nil then n = 1 end
  if util.is_tensor(n) then
    util.fail(op, 'totalCount must be one whole number (inhomogeneous totalCount is not supported), got %s', util.describe(n))
  end
  if type(n) ~= 'number' or n < 0 or n ~= math.floor(n) or n == math.huge then
    util.fail(op, 'totalCount must be a non-negative integer, got %s', tostring(n))
  end
  self.totalCount = n
  -- The Categorical does the normalization; the checks are made here, so that errors name
  -- Multinomial (the same ones: non-negative probs, real logits).
  local which, x = D._categoryParam(op, a)
  self:_setup(nil, nil, validate)
  if which == 'probs' then
    self:_check('probs', constraints.nonnegative, x)
    self:_check('probs', { desc = 'weights with a positive sum along the last dim', eventDim = 1,
      check = function(t) return torch.gt(util.sum_last(t), 0) end }, x)
  else
    self:_check('logits', constraints.realVector, x)
  end
  local c = D.Categorical(a.probs and x, a.logits and x, { validateArgs = false })
  self._categorical = c
  self.probs, self.logits = c.probs, c.logits
  self:_setup(c.batchShape, torch.LongStorage({ c._numEvents }), self.validateArgs)
end
function Multinomial:_expandParts(new, shape) new._categorical = self._categorical:expand(shape) end
--- Multinomial:support(): non-negative count vectors summing to at most totalCount (PyTorch's
--- constraints.multinomial).
--- Example: torch.distributions.Multinomial(3, torch.ones(2)):support().desc
function Multinomial:support() return constraints.multinomial(self.totalCount) end

-- Note [Multinomial sampling]: PyTorch draws totalCount categorical indices per sample and
-- counts them (scatterAdd): n x (sample x batch) work. When totalCount exceeds the number of
-- categories K, drawing the counts one category at a time instead is cheaper: x_j ~
-- Binomial(n - x_1 - ... - x_{j-1}, p_j / (p_j + ... + p_K)), K - 1 binomial draws over whole
-- tensors (a loop over categories, not elements). Both are exact.
local function by_categorical(self, s, n, b, k)
  local cnt = 1
  for i = 1, #s do cnt = cnt * s[i] end
  local probs = self.probs:contiguous():view(b, k)
  local idx = torch.multinomial(probs, cnt * n, true)             -- b x (cnt n), 1-based
  local counts = torch.zeros(b, cnt, k):to(idx:device(), 'torch.LongTensor')
  counts:scatterAdd(3, idx:view(b, cnt, n), torch.onesLike(idx):view(b, cnt, n))
  return counts:transpose(1, 2):contiguous():to(util.cpu_type(self.probs))  -- cnt x b x k
end
local function by_binomial(self, s, n, b, k)
  local cnt = 1
  for i = 1, #s do cnt = cnt * s[i] end
  local p = self.probs:contiguous():view(1, b, k):expand(cnt, b, k)
  -- rest[j] = p_j + ... + p_K, by a reversed cumulative sum.
  local rest = torch.flip(torch.cumsum(torch.flip(p, { 3 }), 3), { 3 })
  local left = util.empty(self.probs, torch.LongStorage({ cnt, b })):fill(n)
  local out = {}
  for j = 1, k - 1 do
    local pj, rj = p:select(3, j), rest:select(3, j)
    local q = torch.clamp(torch.where(torch.gt(rj, 0), pj / rj, 0), 0, 1)
    local x = torch.binomial(left:contiguous(), q:contiguous())
    out[j] = x
    left = left - x
  end
  out[k] = left
  return torch.stack(out, 3)
end

--- Multinomial:sample([sampleShape]): count vectors of size sampleShape .. batchShape .. {K}
--- summing to totalCount (Note [Multinomial sampling]); no gradient.
--- Example: torch.distributions.Multinomial(5, torch.ones(2, 3)):sample({4})
function Multinomial:sample(shape)
  local s = util.sample_shape(self:_op(), shape)
  local out_shape = self:_extendedShape(s)
  local n, b, k = self.totalCount, 1, self.eventShape[1]
  for i = 1, #self.batchShape do b = b * self.batchShape[i] end
  return torch.noGrad(function()
    local total = b
    for i = 1, #s do total = total * s[i] end
    if total == 0 or n == 0 then return util.empty(self.probs, out_shape):zero() end
    local f = (n <= k) and by_categorical or by_binomial
    return f(self, s, n, b, k):view(out_shape)
  end)
end
--- Multinomial:logProb(value): lgamma(sum x + 1) - sum lgamma(x + 1) + sum x log p (a category
--- with probability 0 and count 0 contributes 0).
--- Example: torch.distributions.Multinomial(3, torch.Tensor({0.2, 0.8})):logProb(torch.Tensor({1, 2}))
function Multinomial:logProb(value)
  local v = self:_value(value, nil, self.probs)
  local l = self.logits
  local both = torch.broadcastTensors(l, v)
  l, v = both[1], both[2]
  l = torch.where(torch.logicalAnd(torch.eq(v, 0), torch.eq(l, -math.huge)), 0, l)
  return torch.lgamma(util.sum_last(v) + 1) - util.sum_last(torch.lgamma(v + 1)) + util.sum_last(torch.cmul(l, v))
end
--- Multinomial:entropy(): n H(Categorical) - lgamma(n + 1) + sum_j sum_{x=1..n} Binomial(n,
--- p_j)(x) lgamma(x + 1), PyTorch's enumeration (cost grows with totalCount).
--- Example: torch.distributions.Multinomial(4, torch.Tensor({0.2, 0.8})):entropy()
function Multinomial:entropy()
  local n = self.totalCount
  local h = self._categorical:entropy() * n - torch.lgamma(util.scalar(n + 1, util.cpu_type(self.probs), self.probs))
  if n == 0 then return h end
  local kshape = { n }
  for _ = 1, #self.batchShape + 1 do kshape[#kshape + 1] = 1 end
  local xs = torch.range(1, n):to(self.probs:device(), util.cpu_type(self.probs)):view(torch.LongStorage(kshape))
  local lp = D.Binomial(n, self.probs, { validateArgs = false }):logProb(xs)   -- n x batch x K
  local w = torch.cmul(torch.exp(lp), torch.lgamma(xs + 1))
  return h + util.sum_last(torch.sum(w, 1):squeeze(1))
end
--- Multinomial:mean(): totalCount probs.
--- Example: torch.distributions.Multinomial(10, torch.Tensor({0.2, 0.8})):mean()
function Multinomial:mean() return self.probs * self.totalCount end
--- Multinomial:variance(): totalCount probs (1 - probs).
--- Example: torch.distributions.Multinomial(10, torch.Tensor({0.2, 0.8})):variance()
function Multinomial:variance() return torch.cmul(self.probs, 1 - self.probs) * self.totalCount end
function Multinomial:__tostring__()
  return string.format('Multinomial(totalCount: %d, probs: %s)', self.totalCount, util.describe(self.probs))
end

local NB = torch.class('torch.distributions.NegativeBinomial', 'torch.distributions.Distribution', D)
NB.hasRsample = false
NB._params = { 'totalCount', 'probs', 'logits' }

--- torch.distributions.NegativeBinomial(totalCount, probs | nil, logits [, {validateArgs=}]): the
--- number of successes before totalCount (real, >= 0) failures in Bernoulli trials of success
--- probability probs (in [0, 1)) or sigmoid(logits); give exactly one of probs, logits.
--- Example: torch.distributions.NegativeBinomial(5, 0.3):sample({4})
function NB:__init(...)
  local op = self:_op()
  local a, validate = util.args(op, { 'totalCount', 'probs', 'logits' }, ...)
  if a.totalCount == nil then util.fail(op, 'totalCount is required') end
  local t = D._probs_or_logits(self, op, a, validate, { 'totalCount' })
  if a.probs ~= nil then
    local c = constraints.halfOpenInterval(0, 1)
    self:_check('probs', { desc = 'in [0, 1)', check = c.check, eventDim = 0 }, self.probs)
  end
  self.totalCount = t[2]
  self:_check('totalCount', constraints.nonnegative, self.totalCount)
end
--- NegativeBinomial:support(): the non-negative integers.
--- Example: torch.distributions.NegativeBinomial(5, 0.3):support().desc
function NB:support() return constraints.nonnegativeInteger end

--- NegativeBinomial:sample([sampleShape]): Poisson(G) with G ~ Gamma(totalCount, rate
--- exp(-logits)), as PyTorch; no gradient.
--- Example: torch.distributions.NegativeBinomial(5, 0.3):sample({3})
function NB:sample(shape)
  local s = self:_extendedShape(shape)
  return torch.noGrad(function()
    local g = util.standard_gamma(self.totalCount:expand(s):contiguous())
    return torch.poisson(torch.cmul(g, torch.exp(self.logits)):contiguous())
  end)
end
-- log(sigmoid(x)) = -softplus(-x), exact for every x, derivative 1/2 at 0 (util's Note [Softplus kink]).
local function log_sigmoid(x) return -util.softplus(-x) end
--- NegativeBinomial:logProb(value): lgamma(n + k) - lgamma(k + 1) - lgamma(n) + n log(1 - p)
--- + k log p, from the logits (0 for n = k = 0).
--- Example: torch.distributions.NegativeBinomial(5, 0.3):logProb(2)
function NB:logProb(value)
  local k = self:_value(value, nil, self.probs)
  local n = self.totalCount
  local unnorm = torch.cmul(n, log_sigmoid(-self.logits)) + torch.cmul(k, log_sigmoid(self.logits))
  local norm = -torch.lgamma(n + k) + torch.lgamma(k + 1) + torch.lgamma(n)
  norm = torch.where(torch.eq(n + k, 0), 0, norm)
  return unnorm - norm
end
--- NegativeBinomial:mean(): totalCount exp(logits) = n p / (1 - p).
--- Example: torch.distributions.NegativeBinomial(5, 0.3):mean()
function NB:mean() return torch.cmul(self.totalCount, torch.exp(self.logits)) end
--- NegativeBinomial:mode(): floor((totalCount - 1) exp(logits)), at least 0.
--- Example: torch.distributions.NegativeBinomial(5, 0.3):mode()
function NB:mode() return torch.clampMin(torch.floor(torch.cmul(self.totalCount - 1, torch.exp(self.logits))), 0) end
--- NegativeBinomial:variance(): mean / (1 - p).
--- Example: torch.distributions.NegativeBinomial(5, 0.3):variance()
function NB:variance() return self:mean() / torch.sigmoid(-self.logits) end

return Multinomial
