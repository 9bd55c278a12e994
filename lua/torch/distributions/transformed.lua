-- torch.distributions.TransformedDistribution: a base distribution pushed through a list of
-- transforms, with PyTorch's batch/event shape rules, change-of-variables logProb, cdf and icdf.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local D = torch.distributions

local TD = torch.class('torch.distributions.TransformedDistribution', 'torch.distributions.Distribution', D)

-- Note [Errors name the family]: a family built on another distribution (LogisticNormal on
-- Normal, RelaxedBernoulli on LogitRelaxedBernoulli, ExpRelaxedCategorical on Categorical) builds
-- it through D._inFamily, which renames the inner family's errors after the outer one: a
-- "[distributions.Normal] scale must be positive" from LogisticNormal(0, -1) would name a
-- distribution the user never built.
function D._inFamily(op, fn, ...)
  local r = { pcall(fn, ...) }
  if r[1] then return unpack(r, 2, table.maxn(r)) end
  local msg = tostring(r[2]):gsub('%[distributions%.[%w_]+%]', '[' .. op .. ']', 1)
  error(msg, 0)
end

--- torch.distributions.TransformedDistribution(base, transforms [, {validateArgs=}]): the law of
--- transforms[n](...transforms[1](X)) for X ~ base (transforms a Transform or a list of them);
--- logProb(y) = base:logProb(x) - sum of log |det J| along the way. The event shape is the larger
--- of the base's and the transforms' (as PyTorch); base is expanded or wrapped in Independent to fit.
--- Example: torch.distributions.TransformedDistribution(torch.distributions.Normal(0, 1), {torch.distributions.ExpTransform()}):logProb(1)
function TD:__init(base, transforms, opts)
  local op = self:_op()
  if opts ~= nil then
    if type(opts) ~= 'table' or getmetatable(opts) ~= nil then util.fail(op, 'options must be a table {validateArgs=}, got %s', util.describe(opts)) end
    for k in pairs(opts) do
      if k ~= 'validateArgs' then util.fail(op, 'unknown option %s (expected validateArgs)', tostring(k)) end
    end
  end
  self:_build(base, transforms, opts and opts.validateArgs)
end

-- Sets baseDist, transforms and the shapes (families call it after reading their parameters).
function TD:_build(base, transforms, validateArgs)
  local op = self:_op()
  if not torch.isTypeOf(base, 'torch.distributions.Distribution') then
    util.fail(op, 'base must be a distribution, got %s', util.describe(base))
  end
  if torch.isTypeOf(transforms, 'torch.distributions.Transform') then transforms = { transforms } end
  if type(transforms) ~= 'table' or getmetatable(transforms) ~= nil then
    util.fail(op, 'transforms must be a transform or a list of transforms, got %s', util.describe(transforms))
  end
  for i, t in ipairs(transforms) do
    if not torch.isTypeOf(t, 'torch.distributions.Transform') then
      util.fail(op, 'transforms[%d] must be a transform, got %s', i, util.describe(t))
    end
  end
  self.transforms = transforms
  local baseShape = util.cat(base.batchShape, base.eventShape)
  local baseEventDim = #base.eventShape
  local t = D.ComposeTransform(transforms)
  local domainEventDim = t.domain.eventDim
  if #baseShape < domainEventDim then
    util.fail(op, 'the base distribution needs at least %d dims (batch and event), got shape %s', domainEventDim,
      util.shape_str(baseShape))
  end
  local shape = t:forwardShape(baseShape)
  local expanded = t:inverseShape(shape)
  if not util.same_shape(baseShape, expanded) then
    base = base:expand(util.slice(expanded, 1, #expanded - baseEventDim))
  end
  if domainEventDim > baseEventDim then base = D.Independent(base, domainEventDim - baseEventDim) end
  self.baseDist = base
  self.hasRsample = base.hasRsample
  local eventDim = t.codomain.eventDim + math.max(baseEventDim - domainEventDim, 0)
  local cut = #shape - eventDim
  self:_setup(util.slice(shape, 1, cut), util.slice(shape, cut + 1, #shape), validateArgs)
end

--- TransformedDistribution:expand(batchShape): the same transforms over the base expanded to the
--- batch shape that maps onto batchShape.
--- Example: torch.distributions.TransformedDistribution(torch.distributions.Normal(0, 1), {torch.distributions.ExpTransform()}):expand({3}).batchShape
function TD:_expandParts(new, batchShape)
  local shape = util.cat(batchShape, self.eventShape)
  for i = #self.transforms, 1, -1 do shape = self.transforms[i]:inverseShape(shape) end
  new.baseDist = self.baseDist:expand(util.slice(shape, 1, #shape - #self.baseDist.eventShape))
end

--- TransformedDistribution:support(): the last transform's codomain (made independent over the
--- event dims it lacks); the base's support without transforms.
--- Example: torch.distributions.TransformedDistribution(torch.distributions.Normal(0, 1), {torch.distributions.ExpTransform()}):support().desc
function TD:support()
  if #self.transforms == 0 then return self.baseDist:support() end
  local s = self.transforms[#self.transforms].codomain
  if #self.eventShape > s.eventDim then s = constraints.independent(s, #self.eventShape - s.eventDim) end
  return s
end

local function push(self, x)
  for _, t in ipairs(self.transforms) do x = t(x) end
  return x
end
--- TransformedDistribution:sample([sampleShape]): the base's draws pushed through the transforms,
--- without gradient.
--- Example: torch.distributions.TransformedDistribution(torch.distributions.Normal(0, 1), {torch.distributions.ExpTransform()}):sample({3})
function TD:sample(shape)
  shape = util.sample_shape(self:_op(), shape)   -- checked here, so that errors name this family
  return torch.noGrad(function() return push(self, self.baseDist:sample(shape)) end)
end
--- TransformedDistribution:rsample([sampleShape]): the base's rsample pushed through the
--- transforms (differentiable); an error when the base has no rsample.
--- Example: torch.distributions.TransformedDistribution(torch.distributions.Normal(0, 1), {torch.distributions.ExpTransform()}):rsample({3})
function TD:rsample(shape)
  if not self.hasRsample then return D.Distribution.rsample(self) end
  return push(self, self.baseDist:rsample(util.sample_shape(self:_op(), shape)))
end

-- A tensor among the parameters (for the dtype and device of number values), or nil.
local function ref_tensor(d)
  for _, k in ipairs(d._params or {}) do
    if torch.isTensor(d[k]) then return d[k] end
  end
  if d.baseDist then return ref_tensor(d.baseDist) end
  return nil
end
-- value as a tensor (numbers of the parameters' type), checked by _value.
function TD:_tensorValue(value, what)
  local ref = ref_tensor(self)
  if type(value) == 'number' and not ref then value = util.scalar(value, torch.getdefaulttensortype()) end
  return self:_value(value, what, ref or value)
end

--- TransformedDistribution:logProb(value): the base's logProb at the inverted value minus the log
--- |det J| of each transform (summed over the event dims the transform does not cover).
--- Example: torch.distributions.TransformedDistribution(torch.distributions.Normal(0, 1), {torch.distributions.ExpTransform()}):logProb(torch.Tensor({0.5, 2}))
function TD:logProb(value)
  local y = self:_tensorValue(value)
  local eventDim = #self.eventShape
  local lp = 0
  for i = #self.transforms, 1, -1 do
    local t = self.transforms[i]
    local x = t:inv()(y)
    eventDim = eventDim + t.domain.eventDim - t.codomain.eventDim
    lp = -util.sum_rightmost(t:logAbsDetJacobian(x, y), eventDim - t.domain.eventDim) + lp
    y = x
  end
  return util.sum_rightmost(self.baseDist:logProb(y), eventDim - #self.baseDist.eventShape) + lp
end

-- value -> 1 - value where the transforms decrease (PyTorch's _monotonize_cdf).
function TD:_monotonize(value)
  local sign = 1
  for _, t in ipairs(self.transforms) do
    if t.sign == nil then util.fail(self:_op(), 'cdf and icdf need monotone transforms (%s has no sign)', tostring(t)) end
    if type(sign) == 'number' and type(t.sign) == 'number' then sign = sign * t.sign
    elseif type(sign) == 'number' then sign = t.sign * sign
    else sign = torch.cmul(sign, t.sign) end
  end
  if sign == 1 then return value end
  -- Note [Monotone cdf without rounding]: PyTorch's sign * (value - 0.5) + 0.5 rounds value to
  -- a multiple of eps / 2 even where sign is +1 (a tensor of ones: a tensor scale in an affine
  -- part), so that Gumbel(0, 1):cdf(-4) = 1.9e-24 came out 0, and Weibull's float cdf and icdf
  -- 0 below 1e-8; value and 1 - value are selected instead (0.5 where the sign is 0, as PyTorch).
  if type(sign) == 'number' then
    if sign == -1 then return -value + 1 end
    return torch.fullLike(value, 0.5)
  end
  return torch.where(torch.gt(sign, 0), value, torch.where(torch.lt(sign, 0), -value + 1, 0.5))
end
--- TransformedDistribution:cdf(value): the base's cdf at the inverted value (1 minus it where
--- the transforms decrease).
--- Example: torch.distributions.TransformedDistribution(torch.distributions.Normal(0, 1), {torch.distributions.ExpTransform()}):cdf(1)
function TD:cdf(value)
  local v = self:_tensorValue(value)
  for i = #self.transforms, 1, -1 do v = self.transforms[i]:inv()(v) end
  return self:_monotonize(self.baseDist:cdf(v))
end
--- TransformedDistribution:icdf(p): the transforms applied to the base's icdf.
--- Example: torch.distributions.TransformedDistribution(torch.distributions.Normal(0, 1), {torch.distributions.ExpTransform()}):icdf(0.5)
function TD:icdf(p)
  p = self:_tensorValue(p, 'p')
  if self.validateArgs then constraints.validate(self:_op(), 'p', constraints.unitInterval, p) end
  return push(self, self.baseDist:icdf(self:_monotonize(p)))
end

function TD:__tostring__()
  if self._params then return D.Distribution.__tostring__(self) end
  local ts = {}
  for i, t in ipairs(self.transforms) do ts[i] = tostring(t) end
  return string.format('TransformedDistribution(%s, {%s})', tostring(self.baseDist), table.concat(ts, ', '))
end

return TD
