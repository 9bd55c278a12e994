-- The relaxed (concrete / Gumbel-softmax) families of torch.distributions: LogitRelaxedBernoulli
-- and its sigmoid RelaxedBernoulli, ExpRelaxedCategorical and its exp RelaxedOneHotCategorical.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local D = torch.distributions

-- Note [Relaxed temperature]: PyTorch puts no constraint on temperature; a temperature <= 0
-- gives NaN or sign-flipped densities, so validateArgs checks it is positive. It is a tensor of
-- the parameters' type, not broadcast into the batch shape (as PyTorch).
local function temperature(self, op, a, names)
  if a.temperature == nil then util.fail(op, 'temperature is required') end
  local which = a.probs ~= nil and 'probs' or 'logits'
  if a.probs ~= nil and a.logits ~= nil then util.fail(op, 'expected exactly one of probs or logits, got both') end
  if a[which] == nil then util.fail(op, 'expected exactly one of probs or logits, got neither') end
  local t = util.convert(op, { which, 'temperature' }, { a[which], a.temperature })
  a[which] = t[1]
  -- util.scalar builds numbers in the default type first (0.7 becomes float 0.699999988 in a
  -- double tensor); refilled in the target type they stay exact.
  if type(a.temperature) == 'number' then return torch._filledLike(t[2], a.temperature) end
  return t[2]
end

local LRB = torch.class('torch.distributions.LogitRelaxedBernoulli', 'torch.distributions.Distribution', D)
LRB.hasRsample = true
LRB._params = { 'probs', 'logits' }
local NAMES = { 'temperature', 'probs', 'logits' }

-- RelaxedBernoulli and RelaxedOneHotCategorical: the Base relaxed family (built from the same
-- arguments) pushed through transform, with its temperature, probs and logits as fields.
local function relaxed_init(self, Base, transform, ...)
  local op = self:_op()
  local a, validate = util.args(op, NAMES, ...)
  local base = D._inFamily(op, Base, a.temperature, a.probs, a.logits, { validateArgs = validate })
  self:_build(base, transform, validate)
  self.temperature, self.probs, self.logits = base.temperature, base.probs, base.logits
end
local function relaxed_expand_parts(self, new, shape)
  D.TransformedDistribution._expandParts(self, new, shape)
  new.probs, new.logits = new.baseDist.probs, new.baseDist.logits
end

--- torch.distributions.LogitRelaxedBernoulli(temperature, probs | nil, logits [, {validateArgs=}]):
--- the logit of a RelaxedBernoulli: (logit(U) + logits) / temperature for U uniform (Maddison et
--- al. 2017); give exactly one of probs and logits (or {logits=l}).
--- Example: torch.distributions.LogitRelaxedBernoulli(0.5, 0.3):rsample({3})
function LRB:__init(...)
  local op = self:_op()
  local a, validate = util.args(op, NAMES, ...)
  local temp = temperature(self, op, a)
  D._probs_or_logits(self, op, a, validate)
  self:_check('temperature', constraints.positive, temp)
  self.temperature = temp
end
--- LogitRelaxedBernoulli:support(): the reals.
--- Example: torch.distributions.LogitRelaxedBernoulli(1, 0.5):support().desc
function LRB:support() return constraints.real end
--- LogitRelaxedBernoulli:rsample([sampleShape]): (logit(u) + logit(probs)) / temperature, with u
--- and probs clamped to [eps, 1 - eps] (differentiable in probs/logits and temperature).
--- Example: torch.distributions.LogitRelaxedBernoulli(1, 0.5):rsample({2})
function LRB:rsample(shape)
  local s = self:_extendedShape(shape)
  local p = util.clamp_probs(self.probs:expand(s))
  local u = util.clamp_probs(util.empty(self.probs, s):uniform())
  return (torch.log(u) - torch.log1p(-u) + torch.log(p) - torch.log1p(-p)) / self.temperature
end
--- LogitRelaxedBernoulli:logProb(value): log t + d - 2 softplus(d), d = logits - t value.
--- Example: torch.distributions.LogitRelaxedBernoulli(1, 0.5):logProb(0.3)
function LRB:logProb(value)
  local v = self:_value(value, nil, self.logits)
  local d = self.logits - torch.cmul(v, self.temperature)
  -- softplus(d) is PyTorch's log1p(exp(d)) without its overflow for large d.
  return torch.log(self.temperature) + d - torch.softplus(d) * 2
end

local RB = torch.class('torch.distributions.RelaxedBernoulli', 'torch.distributions.TransformedDistribution', D)
--- torch.distributions.RelaxedBernoulli(temperature, probs | nil, logits [, {validateArgs=}]): a
--- continuous relaxation of Bernoulli on (0, 1): the sigmoid of a LogitRelaxedBernoulli;
--- reparameterized (rsample), approaching Bernoulli(probs) as temperature -> 0.
--- Example: torch.distributions.RelaxedBernoulli(0.5, torch.Tensor({0.1, 0.9})):rsample()
function RB:__init(...) relaxed_init(self, D.LogitRelaxedBernoulli, D.SigmoidTransform(), ...) end
RB._expandParts = relaxed_expand_parts
--- RelaxedBernoulli:support(): [0, 1].
--- Example: torch.distributions.RelaxedBernoulli(1, 0.5):support().desc
function RB:support() return constraints.unitInterval end
function RB:__tostring__() return 'RelaxedBernoulli(' .. tostring(self.baseDist):match('%((.*)%)$') .. ')' end

-- log((n)!) for a small integer n (lgamma(K) = log((K - 1)!)).
local function log_factorial(n)
  local s = 0
  for i = 2, n do s = s + math.log(i) end
  return s
end

local ERC = torch.class('torch.distributions.ExpRelaxedCategorical', 'torch.distributions.Distribution', D)
ERC.hasRsample = true
ERC._params = { 'probs', 'logits' }
--- torch.distributions.ExpRelaxedCategorical(temperature, probs | nil, logits [, {validateArgs=}]):
--- the log of a RelaxedOneHotCategorical point: log softmax((logits + Gumbel noise) / temperature)
--- over the last dim (K categories), the batch shape the others.
--- Example: torch.distributions.ExpRelaxedCategorical(0.5, torch.Tensor({0.2, 0.3, 0.5})):rsample()
function ERC:__init(...)
  local op = self:_op()
  local a, validate = util.args(op, NAMES, ...)
  local temp = temperature(self, op, a)
  local cat = D._inFamily(op, D.Categorical, a.probs, a.logits, { validateArgs = validate })
  self._categorical = cat
  self.probs, self.logits = cat.probs, cat.logits
  self._numEvents = cat._numEvents
  self:_setup(cat.batchShape, torch.LongStorage({ cat._numEvents }), validate)
  self:_check('temperature', constraints.positive, temp)
  self.temperature = temp
end
--- ExpRelaxedCategorical:support(): real vectors (the true support is a submanifold).
--- Example: torch.distributions.ExpRelaxedCategorical(1, torch.ones(3)):support().desc
function ERC:support() return constraints.realVector end
--- ExpRelaxedCategorical:rsample([sampleShape]): log softmax of (logits + g) / temperature, g
--- standard Gumbel draws (differentiable).
--- Example: torch.distributions.ExpRelaxedCategorical(1, torch.ones(3)):rsample({2})
function ERC:rsample(shape)
  local s = self:_extendedShape(shape)
  local u = util.clamp_probs(util.empty(self.logits, s):uniform())
  local g = -torch.log(-torch.log(u))
  local scores = (g + self.logits) / self.temperature
  return scores - torch.logsumexp(scores, scores:dim())
end
--- ExpRelaxedCategorical:logProb(value): lgamma(K) + (K - 1) log t + sum(s - logsumexp(s)),
--- s = logits - t value (the concrete density, in log space).
--- Example: torch.distributions.ExpRelaxedCategorical(1, torch.ones(3)):logProb(torch.log(torch.Tensor({0.2, 0.3, 0.5})))
function ERC:logProb(value)
  local v = self:_value(value, nil, self.logits)
  local K = self._numEvents
  local logScale = torch.log(self.temperature) * (K - 1) + log_factorial(K - 1)
  local sc = self.logits - torch.cmul(v, self.temperature)
  local d = sc:dim()
  return util.sum_last(sc - torch.logsumexp(sc, d)) + logScale
end

local ROC = torch.class('torch.distributions.RelaxedOneHotCategorical', 'torch.distributions.TransformedDistribution', D)
--- torch.distributions.RelaxedOneHotCategorical(temperature, probs | nil, logits [, {validateArgs=}]):
--- the Gumbel-softmax (concrete) relaxation of OneHotCategorical: points of the simplex,
--- exp of an ExpRelaxedCategorical; reparameterized.
--- Example: torch.distributions.RelaxedOneHotCategorical(0.5, torch.Tensor({0.2, 0.3, 0.5})):rsample()
function ROC:__init(...) relaxed_init(self, D.ExpRelaxedCategorical, D.ExpTransform(), ...) end
ROC._expandParts = relaxed_expand_parts
--- RelaxedOneHotCategorical:support(): the simplex.
--- Example: torch.distributions.RelaxedOneHotCategorical(1, torch.ones(3)):support().desc
function ROC:support() return constraints.simplex end

return RB
