-- torch.distributions.MixtureSameFamily: a Categorical over K components of one distribution
-- whose rightmost batch dim indexes the components; logProb by logsumexp over them.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local D = torch.distributions
require 'torch.distributions.categorical'

local Mixture = torch.class('torch.distributions.MixtureSameFamily', 'torch.distributions.Distribution', D)
Mixture.hasRsample = false

-- Note [Mixture validation]: a value needs to lie in the support of one component only (a
-- mixture of Uniform(0, 1) and Uniform(2, 3) has density at 2.5), so the mixture checks values
-- itself (support()) and evaluates the components through a copy with validateArgs off, nested
-- distributions (Independent's baseDist...) included, where PyTorch lets each component reject
-- values outside its own support.
local function quiet(d)
  local c = setmetatable({}, getmetatable(d))
  for k, v in pairs(d) do
    c[k] = torch.isTypeOf(v, 'torch.distributions.Distribution') and quiet(v) or v
  end
  c.validateArgs = false
  return c
end

-- Note [Mixture batch shapes]: PyTorch takes the batch shape from the components (all but their
-- last batch dim) and pads the mixture weights in mean/variance by a count that assumes the
-- two broadcast. Here both are expanded once, at construction, to the broadcast batch shape B
-- (the mixing Categorical to B, the components to B .. {K}; views, no copies), so that every
-- method lines up [sample dims, B, K, event dims] without padding rules. mixtureDistribution
-- and componentDistribution are those expanded distributions.

--- torch.distributions.MixtureSameFamily(mixtureDistribution, componentDistribution
--- [, {validateArgs=}]): draws a component index from mixtureDistribution (a Categorical over
--- K) and then a value from that component of componentDistribution (any distribution whose
--- last batch dim is K, e.g. Normal(torch.randn(K), 1) or Independent(Normal(mu_KxD, s), 1));
--- the two batch shapes (less K) broadcast.
--- Example: torch.distributions.MixtureSameFamily(torch.distributions.Categorical(torch.ones(3)), torch.distributions.Normal(torch.Tensor({-2, 0, 2}), 1)):sample({4})
function Mixture:__init(mix, comp, opts)
  local op = self:_op()
  if not torch.isTypeOf(mix, 'torch.distributions.Categorical') then
    util.fail(op, 'mixtureDistribution must be a torch.distributions.Categorical, got %s', util.describe(mix))
  end
  if not torch.isTypeOf(comp, 'torch.distributions.Distribution') then
    util.fail(op, 'componentDistribution must be a distribution, got %s', util.describe(comp))
  end
  local validate
  if opts ~= nil then
    if type(opts) ~= 'table' or getmetatable(opts) ~= nil then
      util.fail(op, 'options must be a table {validateArgs=}, got %s', util.describe(opts))
    end
    for key in pairs(opts) do
      if key ~= 'validateArgs' then util.fail(op, 'unknown option %s (expected validateArgs)', tostring(key)) end
    end
    validate = opts.validateArgs
    if validate ~= nil and type(validate) ~= 'boolean' then
      util.fail(op, 'validateArgs must be a boolean, got %s', util.describe(validate))
    end
  end
  local cb = comp.batchShape
  if #cb < 1 then
    util.fail(op, 'componentDistribution must have at least one batch dim (the components), got batch shape %s', util.shape_str(cb))
  end
  local k = cb[#cb]
  local km = mix._numEvents
  if km ~= k then
    util.fail(op, 'mixtureDistribution has %d categories but componentDistribution has %d components (its last batch dim, batch shape %s)',
      km, k, util.shape_str(cb))
  end
  local cdbs = util.slice(cb, 1, #cb - 1)
  local ok, batch = pcall(torch.broadcastShapes, mix.batchShape, cdbs)
  if not ok then
    util.fail(op, 'mixtureDistribution batch shape %s does not broadcast with componentDistribution batch shape %s (less the components)',
      util.shape_str(mix.batchShape), util.shape_str(cb))
  end
  if not util.same_shape(mix.batchShape, batch) then mix = mix:expand(batch) end
  local full = util.cat(batch, { k })
  if not util.same_shape(cb, full) then comp = comp:expand(full) end
  self.mixtureDistribution, self.componentDistribution = mix, comp
  self._quietComp = quiet(comp)
  self._numComponent = k
  self._eventNdims = #comp.eventShape
  if validate == nil then validate = comp.validateArgs end
  self:_setup(batch, comp.eventShape, validate)
end
function Mixture:_expandParts(new, shape)
  new.mixtureDistribution = self.mixtureDistribution:expand(shape)
  new.componentDistribution = self.componentDistribution:expand(util.cat(shape, { self._numComponent }))
  new._quietComp = quiet(new.componentDistribution)
end

-- value [S.., B.., E..] -> [S.., B.., 1, E..]: broadcast against the components.
function Mixture:_pad(x)
  return x:unsqueeze(x:dim() - self._eventNdims + 1)
end
-- The mixture weights [B.., K] as [B.., K, 1 (event dims)..].
function Mixture:_padWeights(w)
  local ones = {}
  for i = 1, self._eventNdims do ones[i] = 1 end
  return w:view(util.cat(w:size(), ones))
end

--- MixtureSameFamily:support(): values in the support of some component (the components'
--- support, checked against each of them).
--- Example: torch.distributions.MixtureSameFamily(torch.distributions.Categorical(torch.ones(2)), torch.distributions.Normal(torch.zeros(2), 1)):support().desc
function Mixture:support()
  local cs = self.componentDistribution:support()
  local ne = self._eventNdims
  local ce = cs.eventDim or 0
  return {
    desc = cs.desc .. ' (in the support of some component)', eventDim = ne, isDiscrete = cs.isDiscrete,
    check = function(x)
      local m = cs.check(self:_pad(x))           -- [S.., B.., K, E..] less ce trailing dims
      m = util.sum_rightmost(torch.logicalNot(m):double(), ne - ce)   -- count of bad entries per component
      return torch.gt(util.sum_last(torch.eq(m, 0):double()), 0)    -- some component accepts all
    end,
  }
end

--- MixtureSameFamily:logProb(value): logsumexp over the components of the component logProb
--- plus the log weight, of size broadcast(value's sample dims .. batchShape).
--- Example: torch.distributions.MixtureSameFamily(torch.distributions.Categorical(torch.Tensor({0.3, 0.7})), torch.distributions.Normal(torch.Tensor({-1, 1}), 1)):logProb(0.5)
function Mixture:logProb(value)
  local v = self:_value(value, nil, self.mixtureDistribution.logits)
  local lp = self._quietComp:logProb(self:_pad(v))   -- [S.., B.., K]
  local lw = torch.logSoftmax(self.mixtureDistribution.logits, self.mixtureDistribution.logits:dim())
  local t = lp + lw
  return torch.logsumexp(t, t:dim()):squeeze(t:dim())
end
--- MixtureSameFamily:cdf(value): sum_k w_k cdf_k(value), for univariate components.
--- Example: torch.distributions.MixtureSameFamily(torch.distributions.Categorical(torch.Tensor({0.3, 0.7})), torch.distributions.Normal(torch.Tensor({-1, 1}), 1)):cdf(0)
function Mixture:cdf(value)
  if self._eventNdims ~= 0 then
    util.fail(self:_op(), 'cdf needs univariate components, got event shape %s', util.shape_str(self.eventShape))
  end
  -- No support check: the cdf is defined on the whole line (named x, as PyTorch's argument).
  local v = self:_value(value, 'x', self.mixtureDistribution.logits)
  local c = self._quietComp:cdf(self:_pad(v))
  local t = torch.cmul(c, self.mixtureDistribution.probs:expandAs(c))
  return util.sum_last(t)
end

--- MixtureSameFamily:sample([sampleShape]): a component index from the mixing Categorical and
--- that component's draw, per sample (every component is drawn, as PyTorch, and one gathered);
--- no gradient.
--- Example: torch.distributions.MixtureSameFamily(torch.distributions.Categorical(torch.ones(2)), torch.distributions.Normal(torch.Tensor({-3, 3}), 1)):sample({5})
function Mixture:sample(shape)
  local s = util.sample_shape(self:_op(), shape)
  return torch.noGrad(function()
    local idx = self.mixtureDistribution:sample(s)             -- [S.., B..], 1-based
    local xs = self.componentDistribution:sample(s)            -- [S.., B.., K, E..]
    local gdim = #s + #self.batchShape + 1
    local ones = {}
    for i = 1, self._eventNdims + 1 do ones[i] = 1 end
    local ishape = util.cat(idx:size(), { 1 }, self.eventShape)
    local ix = idx:view(util.cat(idx:size(), ones)):expand(ishape):contiguous():to(xs:device())
    return torch.gather(xs, gdim, ix):squeeze(gdim)
  end)
end
--- MixtureSameFamily:mean(): sum_k w_k mean_k, of size batchShape .. eventShape.
--- Example: torch.distributions.MixtureSameFamily(torch.distributions.Categorical(torch.Tensor({0.3, 0.7})), torch.distributions.Normal(torch.Tensor({-1, 1}), 1)):mean()
function Mixture:mean()
  local w = self:_padWeights(self.mixtureDistribution.probs)
  local t = torch.cmul(w:expandAs(self.componentDistribution:mean()), self.componentDistribution:mean())
  local d = #self.batchShape + 1
  return torch.sum(t, d):squeeze(d)
end
--- MixtureSameFamily:variance(): E[Var(Y | k)] + Var(E[Y | k]) (the law of total variance).
--- Example: torch.distributions.MixtureSameFamily(torch.distributions.Categorical(torch.Tensor({0.3, 0.7})), torch.distributions.Normal(torch.Tensor({-1, 1}), 1)):variance()
function Mixture:variance()
  local comp = self.componentDistribution
  local cm, cv = comp:mean(), comp:variance()
  local w = self:_padWeights(self.mixtureDistribution.probs):expandAs(cm)
  local d = #self.batchShape + 1
  local m = torch.sum(torch.cmul(w, cm), d)                    -- K dim kept (size 1)
  local within = torch.sum(torch.cmul(w, cv), d)
  local between = torch.sum(torch.cmul(w, torch.pow(cm - m, 2)), d)
  return (within + between):squeeze(d)
end
function Mixture:__tostring__()
  return string.format('MixtureSameFamily(%s, %s)', tostring(self.mixtureDistribution), tostring(self.componentDistribution))
end

return Mixture
