-- torch.distributions.Distribution: the base class. Holds batchShape/eventShape, validateArgs,
-- the shared argument and value checks, sample via rsample, expand, and printing.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'

local D = torch.distributions
local Distribution = torch.class('torch.distributions.Distribution', D)

-- Note [validateArgs default]: true, as PyTorch 1.13 (parameters checked at construction,
-- values checked in logProb/cdf/icdf); setDefaultValidateArgs(false) turns the checks off for
-- distributions built afterwards, Normal(..., {validateArgs=false}) for one.
local defaultValidate = true
--- torch.distributions.setDefaultValidateArgs(on): whether distributions built from now on check
--- their parameters and the values given to logProb (default true, as PyTorch).
--- Example: torch.distributions.setDefaultValidateArgs(true)
function D.setDefaultValidateArgs(on)
  if type(on) ~= 'boolean' then util.fail('distributions.setDefaultValidateArgs', 'expected a boolean, got %s', util.describe(on)) end
  defaultValidate = on
end

-- Note [Moments are methods]: mean, variance, stddev, mode, entropy and support are methods
-- (d:mean()), where PyTorch has properties: they compute a new tensor on each call, and Lua
-- fields cannot do that without an __index function on every class. batchShape, eventShape,
-- hasRsample, validateArgs and the parameters (d.loc, d.probs...) are plain fields.

-- Subclasses call this from __init with their shapes and validateArgs (nil: the default).
function Distribution:_setup(batchShape, eventShape, validateArgs)
  self.batchShape = batchShape or torch.LongStorage()
  self.eventShape = eventShape or torch.LongStorage()
  if validateArgs == nil then validateArgs = defaultValidate end
  self.validateArgs = validateArgs
end

-- The constructor of a family of numbers-or-tensors parameters: spec = { {name, constraint}, ... }
-- in positional order. Reads them by position or name (util.args), broadcasts them together, sets
-- them as fields, sets the batch shape and checks each against its constraint.
function Distribution:_initParams(op, spec, ...)
  local names, values = {}, {}
  for i, p in ipairs(spec) do names[i] = p[1] end
  local a, validate = util.args(op, names, ...)
  for i, n in ipairs(names) do values[i] = a[n] end
  local t, shape = util.broadcast_all(op, names, values)
  for i, n in ipairs(names) do self[n] = t[i] end
  self:_setup(shape, nil, validate)
  for _, p in ipairs(spec) do self:_check(p[1], p[2], self[p[1]]) end
end

-- 'distributions.Normal', the prefix of every error message.
function Distribution:_op() return 'distributions.' .. self.__typename:match('([^%.]+)$') end

-- Checks parameter `what` (a tensor) against a constraint when validateArgs is on.
function Distribution:_check(what, c, x)
  if self.validateArgs then constraints.validate(self:_op(), what, c, x) end
end

-- sampleShape .. batchShape .. eventShape, checking sampleShape.
function Distribution:_extendedShape(sampleShape)
  return util.cat(util.sample_shape(self:_op(), sampleShape), self.batchShape, self.eventShape)
end

-- The value given to logProb/cdf as a tensor like the parameters (numbers and integer tensors
-- become the parameters' type), its shape checked against batchShape .. eventShape and, with
-- validateArgs, its elements against the support.
function Distribution:_value(v, what, ref, keepType)
  local op = self:_op()
  what = what or 'value'
  if type(v) == 'number' then
    v = util.scalar(v, util.cpu_type(ref), ref)
  elseif not util.is_tensor(v) then
    util.fail(op, '%s must be a number or a tensor, got %s', what, util.describe(v))
  elseif not keepType and not util.is_float(v) then
    v = v:to(util.cpu_type(ref))
  end
  local ne, vs = #self.eventShape, v:size()
  if #vs < ne or not util.same_shape(util.slice(vs, #vs - ne + 1, #vs), self.eventShape) then
    util.fail(op, '%s of size %s does not end with the event shape %s', what, util.shape_str(vs), util.shape_str(self.eventShape))
  end
  if not pcall(torch.broadcastShapes, vs, util.cat(self.batchShape, self.eventShape)) then
    util.fail(op, '%s of size %s does not broadcast with the batch and event shape %s', what, util.shape_str(vs),
      util.shape_str(util.cat(self.batchShape, self.eventShape)))
  end
  if self.validateArgs and what == 'value' then
    constraints.validate(op, 'value', self:support(), v)
  end
  return v
end

--- d:sample([sampleShape]): draws of size sampleShape .. batchShape .. eventShape (sampleShape a
--- table or LongStorage, default {}), without gradient.
--- Example: torch.distributions.Normal(0, 1):sample({3})
function Distribution:sample(shape)
  if not self.hasRsample then util.fail(self:_op(), 'sample is not implemented') end
  return torch.noGrad(function() return self:rsample(shape) end)
end

--- d:rsample([sampleShape]): reparameterized draws (differentiable in the parameters), for the
--- distributions whose hasRsample field is true; an error for the others.
--- Example: torch.distributions.Normal(0, 1):rsample({2})
function Distribution:rsample()
  util.fail(self:_op(), 'has no rsample (hasRsample is false): use sample, which carries no gradient')
end

local function missing(what)
  return function(self) util.fail(self:_op(), '%s is not implemented for this distribution', what) end
end
--- d:logProb(value): the log density (or log mass) of value, of size broadcast(value's sample
--- dims .. batchShape); value outside the support is an error when validateArgs is on.
--- Example: torch.distributions.Normal(0, 1):logProb(0.5)
Distribution.logProb = missing('logProb')
--- d:entropy(): the entropy of each distribution in the batch (nats), of size batchShape.
--- Example: torch.distributions.Normal(0, 2):entropy()
Distribution.entropy = missing('entropy')
--- d:cdf(value): the cumulative distribution function at value.
--- Example: torch.distributions.Normal(0, 1):cdf(0)
Distribution.cdf = missing('cdf')
--- d:icdf(p): the inverse cdf (quantile function) at probabilities p in [0, 1].
--- Example: torch.distributions.Normal(0, 1):icdf(0.975)
Distribution.icdf = missing('icdf')
--- d:mean(): the mean, of size batchShape .. eventShape.
--- Example: torch.distributions.Uniform(0, 4):mean()
Distribution.mean = missing('mean')
--- d:mode(): the mode, of size batchShape .. eventShape.
--- Example: torch.distributions.Normal(1, 2):mode()
Distribution.mode = missing('mode')
--- d:variance(): the variance, of size batchShape .. eventShape.
--- Example: torch.distributions.Uniform(0, 4):variance()
Distribution.variance = missing('variance')
--- d:support(): the constraint values must satisfy (a table with desc and check).
--- Example: torch.distributions.Normal(0, 1):support().desc
Distribution.support = function() return constraints.real end

-- Note [enumerateSupport]: PyTorch's enumerate_support(expand=True) and has_enumerate_support, for
-- Bernoulli, Binomial, Categorical (1-based categories, Note [1-based categories]),
-- OneHotCategorical and Independent with no reinterpreted dims.
Distribution.hasEnumerateSupport = false
--- d:enumerateSupport([expand = true]): every value of a finite discrete support along a new
--- first dim, of size {n} .. batchShape .. eventShape (expand false: ones for the batch dims), for
--- the families whose hasEnumerateSupport field is true; an error for the others.
--- Example: torch.distributions.Bernoulli(torch.Tensor({0.2, 0.7})):enumerateSupport()
function Distribution:enumerateSupport()
  util.fail(self:_op(), 'enumerateSupport is not implemented (hasEnumerateSupport is false)')
end
-- The families' enumerateSupport: values (size {n} .. eventShape) viewed as {n} .. ones for the
-- batch dims .. eventShape, expanded to the batch shape unless expand is false.
function Distribution:_enumerate(values, expand)
  if expand == nil then expand = true end
  if type(expand) ~= 'boolean' then
    util.fail(self:_op(), 'enumerateSupport: expand must be a boolean, got %s', util.describe(expand))
  end
  local n, ones = values:size(1), {}
  for i = 1, #self.batchShape do ones[i] = 1 end
  local ev = util.slice(values:size(), 2, -1)
  values = values:view(util.cat({ n }, ones, ev))
  if expand then values = values:expand(util.cat({ n }, self.batchShape, ev)) end
  return values
end

--- d:stddev(): the standard deviation, sqrt(variance()).
--- Example: torch.distributions.Normal(0, 3):stddev()
function Distribution:stddev() return torch.sqrt(self:variance()) end
--- d:perplexity(): exp(entropy()).
--- Example: torch.distributions.Bernoulli(0.5):perplexity()
function Distribution:perplexity() return torch.exp(self:entropy()) end

--- d:expand(batchShape): a new distribution of the same family whose parameters are views
--- expanded to batchShape (a table or LongStorage, broadcastable from d.batchShape).
--- Example: torch.distributions.Normal(0, 1):expand({3}).batchShape
function Distribution:expand(shape)
  local op = self:_op()
  shape = util.sample_shape(op, shape)
  if not pcall(torch.broadcastShapes, self.batchShape, shape) or
     not util.same_shape(torch.broadcastShapes(self.batchShape, shape), shape) then
    util.fail(op, 'cannot expand batch shape %s to %s', util.shape_str(self.batchShape), util.shape_str(shape))
  end
  local new = setmetatable({}, getmetatable(self))
  for k, v in pairs(self) do new[k] = v end
  local nb = #self.batchShape
  for _, k in ipairs(self._params or {}) do
    local p = self[k]
    if util.is_tensor(p) then
      new[k] = p:expand(util.cat(shape, util.slice(p:size(), nb + 1, -1)))
    end
  end
  if self._expandParts then self:_expandParts(new, shape) end
  new.batchShape = shape
  return new
end

-- Name(loc: 0, scale: FloatTensor of size 2x3): scalars by value, others by type and size.
function Distribution:__tostring__()
  local parts = {}
  for _, k in ipairs(self._params or {}) do
    local p = self[k]
    if util.is_tensor(p) then
      local s = p:nElement() == 1 and p:dim() == 0 and string.format('%.4g', p:contiguous():view(1):double()[1])
        or util.describe(p)
      parts[#parts + 1] = k .. ': ' .. s
    end
  end
  return self.__typename:match('([^%.]+)$') .. '(' .. table.concat(parts, ', ') .. ')'
end

return Distribution
