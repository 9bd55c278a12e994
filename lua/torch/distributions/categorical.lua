-- torch.distributions.Categorical and OneHotCategorical: K categories along the last dim of probs
-- or logits (exactly one); the other is derived and normalized as PyTorch does.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local D = torch.distributions

local Categorical = torch.class('torch.distributions.Categorical', 'torch.distributions.Distribution', D)
Categorical.hasRsample = false
Categorical._params = { 'probs', 'logits' }

-- Note [1-based categories]: categories are 1..K, Tocha's index base (torch.multinomial,
-- gather, argmax): samples are LongTensors of 1-based indices and logProb takes them, where
-- PyTorch counts from 0.

-- The one of a.probs and a.logits given, as a tensor with at least one dim (the K categories
-- along the last): its name and the tensor. Internal; Multinomial's arguments too.
function D._categoryParam(op, a)
  if (a.probs == nil) == (a.logits == nil) then
    util.fail(op, 'expected exactly one of probs or logits, got %s', a.probs == nil and 'neither' or 'both')
  end
  local which = a.probs ~= nil and 'probs' or 'logits'
  local x = util.broadcast_all(op, { which }, { a[which] })[1]
  if x:dim() < 1 then util.fail(op, '%s must have at least one dim (the categories), got %s', which, util.describe(x)) end
  return which, x
end

--- torch.distributions.Categorical(probs | nil, logits [, {validateArgs=}]): one of K categories
--- 1..K with probabilities probs (non-negative weights, normalized along the last dim) or
--- softmax(logits); the last dim is K and the others are the batch shape. Samples are 1-based
--- LongTensor indices (Note [1-based categories]).
--- Example: torch.distributions.Categorical(torch.Tensor({0.2, 0.3, 0.5})):sample({4})
function Categorical:__init(...)
  local op = self:_op()
  local a, validate = util.args(op, { 'probs', 'logits' }, ...)
  local which, x = D._categoryParam(op, a)
  local d = x:dim()
  self:_setup(util.slice(x:size(), 1, -2), nil, validate)
  self._numEvents = x:size(d)
  if which == 'probs' then
    self:_check('probs', constraints.nonnegative, x)
    self.probs = x / torch.sum(x, d)
    self:_check('probs', constraints.simplex, self.probs)
    self.logits = util.probs_to_logits(self.probs)
  else
    self:_check('logits', constraints.realVector, x)
    self.logits = x - torch.logsumexp(x, d)
    self.probs = util.logits_to_probs(self.logits)
  end
end
--- Categorical:support(): the integers 1..K.
--- Example: torch.distributions.Categorical(torch.ones(3)):support().desc
function Categorical:support() return constraints.integerInterval(1, self._numEvents) end

Categorical.hasEnumerateSupport = true
--- Categorical:enumerateSupport([expand = true]): the categories 1..K (a LongTensor of size {K}
--- .. batchShape; Note [enumerateSupport]).
--- Example: torch.distributions.Categorical(torch.ones(2, 3)):enumerateSupport()
function Categorical:enumerateSupport(expand)
  return self:_enumerate(torch.range(1, self._numEvents):to(self.probs:device(), 'torch.LongTensor'), expand)
end

--- Categorical:sample([sampleShape]): 1-based indices drawn by torch.multinomial, a LongTensor
--- of size sampleShape .. batchShape.
--- Example: torch.distributions.Categorical(torch.ones(2, 3)):sample({5})
function Categorical:sample(shape)
  local s = util.sample_shape(self:_op(), shape)
  local out_shape = util.cat(s, self.batchShape)
  local n, b, k = 1, 1, self._numEvents
  for i = 1, #s do n = n * s[i] end
  for i = 1, #self.batchShape do b = b * self.batchShape[i] end
  return torch.noGrad(function()
    if n == 0 or b == 0 then return util.empty(self.probs, out_shape):zero():to('torch.LongTensor') end
    local idx = torch.multinomial(self.probs:contiguous():view(b, k), n, true)  -- b x n
    return idx:t():contiguous():view(out_shape)
  end)
end
--- Categorical:logProb(value): log probs[value] for 1-based indices value (a LongTensor or
--- numbers), value broadcast against batchShape.
--- Example: torch.distributions.Categorical(torch.Tensor({0.2, 0.8})):logProb(2)
function Categorical:logProb(value)
  local v = self:_value(value, nil, self.logits, true)
  local vs, k = v:size(), self._numEvents
  local shape = torch.broadcastShapes(vs, self.batchShape)
  local lp = self.logits:expand(util.cat(shape, { k }))
  local idx = v:to('torch.LongTensor'):view(util.cat(vs, { 1 })):expand(util.cat(shape, { 1 })):contiguous()
  local d = lp:dim()
  return torch.gather(lp, d, idx):squeeze(d)
end
--- Categorical:entropy(): -sum(probs log probs) over the categories.
--- Example: torch.distributions.Categorical(torch.ones(4)):entropy()
function Categorical:entropy()
  local l = torch.clampMin(self.logits, -util.max(self.logits))  -- 0 * -inf would be NaN
  return -util.sum_last(torch.cmul(self.probs, l))
end
--- Categorical:mode(): the most probable category (1-based, a LongTensor of size batchShape).
--- Example: torch.distributions.Categorical(torch.Tensor({0.2, 0.8})):mode()
function Categorical:mode() return torch.argmax(self.probs, self.probs:dim()) end
--- Categorical:mean(): NaN of size batchShape (undefined for categories, as PyTorch); variance() too.
--- Example: torch.distributions.Categorical(torch.ones(3)):mean()
function Categorical:mean() return util.empty(self.probs, self.batchShape):fill(0 / 0) end
--- Categorical:variance(): NaN of size batchShape, as PyTorch.
--- Example: torch.distributions.Categorical(torch.ones(3)):variance()
function Categorical:variance() return util.empty(self.probs, self.batchShape):fill(0 / 0) end

local OneHot = torch.class('torch.distributions.OneHotCategorical', 'torch.distributions.Distribution', D)
OneHot.hasRsample = false
OneHot._params = { 'probs', 'logits' }

--- torch.distributions.OneHotCategorical(probs | nil, logits [, {validateArgs=}]): a Categorical
--- whose draws are one-hot vectors of size K (eventShape {K}) in the parameters' floating type.
--- Example: torch.distributions.OneHotCategorical(torch.Tensor({0.2, 0.8})):sample({3})
function OneHot:__init(...)
  local op = self:_op()
  local a, validate = util.args(op, { 'probs', 'logits' }, ...)
  -- errors name OneHotCategorical, not the Categorical inside (Note [Errors name the family])
  local c = D._inFamily(op, D.Categorical, a.probs, a.logits, { validateArgs = validate })
  self._categorical = c
  self.probs, self.logits = c.probs, c.logits
  self:_setup(c.batchShape, torch.LongStorage({ c._numEvents }), c.validateArgs)
end
function OneHot:_expandParts(new, shape) new._categorical = self._categorical:expand(shape) end
--- OneHotCategorical:support(): one-hot vectors of size K.
--- Example: torch.distributions.OneHotCategorical(torch.ones(3)):support().desc
function OneHot:support() return constraints.oneHot end

OneHot.hasEnumerateSupport = true
--- OneHotCategorical:enumerateSupport([expand = true]): the K one-hot vectors, of size {K} ..
--- batchShape .. {K} (Note [enumerateSupport]).
--- Example: torch.distributions.OneHotCategorical(torch.ones(3)):enumerateSupport()
function OneHot:enumerateSupport(expand)
  local k = self.eventShape[1]
  return self:_enumerate(torch.eye(k):to(self.probs:device(), util.cpu_type(self.probs)), expand)
end

--- OneHotCategorical:sample([sampleShape]): one-hot vectors, size sampleShape .. batchShape .. {K}.
--- Example: torch.distributions.OneHotCategorical(torch.ones(3)):sample()
function OneHot:sample(shape)
  local idx = self._categorical:sample(util.sample_shape(self:_op(), shape))
  local k = self._numEvents or self.eventShape[1]
  local range = torch.arange(1, k + 1):to(idx:device(), 'torch.LongTensor')
  return torch.eq(idx:view(util.cat(idx:size(), { 1 })), range):to(util.cpu_type(self.probs))
end
--- OneHotCategorical:logProb(value): the Categorical's logProb at the index of value's 1.
--- Example: torch.distributions.OneHotCategorical(torch.Tensor({0.2, 0.8})):logProb(torch.Tensor({0, 1}))
function OneHot:logProb(value)
  local v = self:_value(value, nil, self.probs)
  return self._categorical:logProb(torch.argmax(v, v:dim()))
end
--- OneHotCategorical:entropy(): the Categorical's entropy.
--- Example: torch.distributions.OneHotCategorical(torch.ones(4)):entropy()
function OneHot:entropy() return self._categorical:entropy() end
--- OneHotCategorical:mean(): probs; variance() probs (1 - probs); mode() the one-hot argmax.
--- Example: torch.distributions.OneHotCategorical(torch.Tensor({0.2, 0.8})):variance()
function OneHot:mean() return self.probs end
--- OneHotCategorical:variance(): probs (1 - probs).
--- Example: torch.distributions.OneHotCategorical(torch.Tensor({0.2, 0.8})):variance()
function OneHot:variance() return torch.cmul(self.probs, 1 - self.probs) end
--- OneHotCategorical:mode(): the one-hot vector of the most probable category.
--- Example: torch.distributions.OneHotCategorical(torch.Tensor({0.2, 0.8})):mode()
function OneHot:mode()
  local k = self.eventShape[1]
  local m = self._categorical:mode()
  local range = torch.arange(1, k + 1):to(m:device(), 'torch.LongTensor')
  return torch.eq(m:view(util.cat(m:size(), { 1 })), range):to(util.cpu_type(self.probs))
end

return Categorical
