-- Transforms of torch.distributions built from others: CatTransform and StackTransform (one
-- transform per slice along a dim) and CumulativeDistributionTransform (a distribution's cdf).
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local D = torch.distributions
local T = D.transforms

-- Note [Transform dims]: dim is 1-based, negative from the end (-1 the last), default 1, as
-- Tocha's torch.cat; PyTorch's default 0 is the same first dim.
local function pos_dim(op, d, n)
  local p = d < 0 and n + d + 1 or d
  if p < 1 or p > n then util.fail(op, 'dim %d is out of range for a %d-dim tensor', d, n) end
  return p
end
-- PyTorch's negative form of dim d of an n-dim tensor (-1 the last).
local function neg_dim(d, n) return d < 0 and d or d - n - 1 end

local function check_list(op, tseq, n)
  if type(tseq) ~= 'table' or getmetatable(tseq) ~= nil then
    util.fail(op, 'tseq must be a list of transforms, got %s', util.describe(tseq))
  end
  local out = {}
  for i, t in ipairs(tseq) do
    T._check(op, t, 'tseq[' .. i .. ']')
    out[i] = n ~= 0 and t:withCache(n) or t
  end
  return out
end
local function all_bijective(ts)
  for _, t in ipairs(ts) do if not t.bijective then return false end end
  return true
end
local function check_dim(op, dim)
  if type(dim) ~= 'number' or dim ~= math.floor(dim) or dim == 0 then
    util.fail(op, 'dim must be a non-zero integer (1-based, negative from the end), got %s', tostring(dim))
  end
end
-- Cat's and Stack's forward and inverse: each part (or its inverse) applied to its slice of x
-- (self:_slices), the results joined along the same dim (torch.cat or torch.stack).
local function map_parts(self, x, what, inverse, join)
  local xs, d = self:_slices(x, what)
  local ys = {}
  for i, t in ipairs(self.transforms) do ys[i] = (inverse and t:inv() or t)(xs[i]) end
  return join(ys, d)
end

local Cat = T._class('CatTransform')
--- torch.distributions.CatTransform(tseq [, dim=1 [, lengths]] [, {cacheSize=}]): applies tseq[i]
--- to the i-th slice along dim, of lengths[i] (default 1) elements, as torch.cat lays them out.
--- Example: torch.distributions.CatTransform({torch.distributions.ExpTransform(), torch.distributions.transforms.identityTransform}, 1, {2, 1})(torch.zeros(3))
function Cat:__init(tseq, dim, lengths, opts)
  local op = self:_op()
  -- The options table may come after tseq, dim or lengths.
  if type(dim) == 'table' then opts, dim = dim, nil end
  if type(lengths) == 'table' and lengths.cacheSize ~= nil then opts, lengths = lengths, nil end
  local n = T._opts(op, opts).cacheSize or 0
  self.transforms = check_list(op, tseq, n)
  dim = dim or 1
  check_dim(op, dim)
  if lengths == nil then
    lengths = {}
    for i = 1, #self.transforms do lengths[i] = 1 end
  end
  if type(lengths) ~= 'table' or #lengths ~= #self.transforms then
    util.fail(op, 'lengths must be a list of %d sizes, got %s', #self.transforms, util.describe(lengths))
  end
  self.dim, self.lengths = dim, lengths
  self.length = 0
  for _, l in ipairs(lengths) do self.length = self.length + l end
  self:_setCache(n)
  local ed = 0
  for _, t in ipairs(self.transforms) do ed = math.max(ed, t.eventDim or t.domain.eventDim) end
  self.eventDim = ed
  local doms, cods = {}, {}
  for i, t in ipairs(self.transforms) do doms[i], cods[i] = t.domain, t.codomain end
  self.domain = constraints.cat(doms, dim, lengths)
  self.codomain = constraints.cat(cods, dim, lengths)
  self.bijective = all_bijective(self.transforms)
end
function Cat:withCache(n)
  n = n or 1
  if n == self.cacheSize then return self end
  return D.CatTransform(self.transforms, self.dim, self.lengths, { cacheSize = n })
end
-- The slices of x along dim, checking the total length.
function Cat:_slices(x, what)
  local op = self:_op()
  local d = pos_dim(op, self.dim, x:dim())
  if x:size(d) ~= self.length then
    util.fail(op, '%s has size %d along dim %d, expected %d', what, x:size(d), self.dim, self.length)
  end
  local out, start = {}, 1
  for i, l in ipairs(self.lengths) do
    out[i] = x:narrow(d, start, l)
    start = start + l
  end
  return out, d
end
function Cat:_call(x) return map_parts(self, x, 'x', false, torch.cat) end
function Cat:_inverse(y) return map_parts(self, y, 'y', true, torch.cat) end
--- CatTransform:logAbsDetJacobian(x, y): the parts' terms, concatenated along dim when dim is a
--- batch dim, summed when it lies among the event dims.
--- Example: torch.distributions.CatTransform({torch.distributions.ExpTransform(), torch.distributions.ExpTransform()}):logAbsDetJacobian(torch.zeros(2), torch.ones(2))
function Cat:logAbsDetJacobian(x, y)
  local xs = self:_slices(x, 'x')
  local ys = self:_slices(y, 'y')
  local terms = {}
  for i, t in ipairs(self.transforms) do
    local term = t:logAbsDetJacobian(xs[i], ys[i])
    local ted = t.eventDim or t.domain.eventDim
    if ted < self.eventDim then term = util.sum_rightmost(term, self.eventDim - ted) end
    terms[i] = term
  end
  local nd = neg_dim(self.dim, x:dim()) + self.eventDim
  if nd < 0 then return torch.cat(terms, terms[1]:dim() + nd + 1) end
  local total = terms[1]
  for i = 2, #terms do total = total + terms[i] end
  return total
end
function Cat:equals(other)
  if not torch.isTypeOf(other, 'torch.distributions.CatTransform') or #other.transforms ~= #self.transforms
    or other.dim ~= self.dim then return false end
  for i, t in ipairs(self.transforms) do
    if not t:equals(other.transforms[i]) or self.lengths[i] ~= other.lengths[i] then return false end
  end
  return true
end

local Stack = T._class('StackTransform')
--- torch.distributions.StackTransform(tseq [, dim=1] [, {cacheSize=}]): applies tseq[i] to the
--- i-th slice x:select(dim, i), as torch.stack lays them out.
--- Example: torch.distributions.StackTransform({torch.distributions.ExpTransform(), torch.distributions.transforms.identityTransform}, 2)(torch.zeros(3, 2))
function Stack:__init(tseq, dim, opts)
  local op = self:_op()
  if type(dim) == 'table' then opts, dim = dim, nil end
  local n = T._opts(op, opts).cacheSize or 0
  self.transforms = check_list(op, tseq, n)
  dim = dim or 1
  check_dim(op, dim)
  self.dim = dim
  self:_setCache(n)
  local doms, cods = {}, {}
  for i, t in ipairs(self.transforms) do doms[i], cods[i] = t.domain, t.codomain end
  self.domain = constraints.stack(doms, dim)
  self.codomain = constraints.stack(cods, dim)
  self:_setEventDim()
  self.bijective = all_bijective(self.transforms)
end
function Stack:withCache(n)
  n = n or 1
  if n == self.cacheSize then return self end
  return D.StackTransform(self.transforms, self.dim, { cacheSize = n })
end
function Stack:_slices(x, what)
  local op = self:_op()
  local d = pos_dim(op, self.dim, x:dim())
  if x:size(d) ~= #self.transforms then
    util.fail(op, '%s has size %d along dim %d, expected %d (one slice per transform)', what, x:size(d), self.dim, #self.transforms)
  end
  local out = {}
  for i = 1, #self.transforms do out[i] = x:select(d, i) end
  return out, d
end
function Stack:_call(x) return map_parts(self, x, 'x', false, torch.stack) end
function Stack:_inverse(y) return map_parts(self, y, 'y', true, torch.stack) end
--- StackTransform:logAbsDetJacobian(x, y): the parts' terms stacked along dim.
--- Example: torch.distributions.StackTransform({torch.distributions.ExpTransform(), torch.distributions.ExpTransform()}):logAbsDetJacobian(torch.zeros(2), torch.ones(2))
function Stack:logAbsDetJacobian(x, y)
  local xs = self:_slices(x, 'x')
  local ys = self:_slices(y, 'y')
  local terms = {}
  for i, t in ipairs(self.transforms) do terms[i] = t:logAbsDetJacobian(xs[i], ys[i]) end
  local k = terms[1]:dim() + 1
  return torch.stack(terms, self.dim < 0 and k + self.dim + 1 or self.dim)
end
function Stack:equals(other)
  if not torch.isTypeOf(other, 'torch.distributions.StackTransform') or #other.transforms ~= #self.transforms
    or other.dim ~= self.dim then return false end
  for i, t in ipairs(self.transforms) do
    if not t:equals(other.transforms[i]) then return false end
  end
  return true
end

local CDF = T._class('CumulativeDistributionTransform')
CDF.bijective, CDF.sign, CDF.codomain = true, 1, constraints.unitInterval
CDF._identityOnly = true
--- torch.distributions.CumulativeDistributionTransform(distribution [, {cacheSize=}]): y =
--- distribution:cdf(x); the inverse is its icdf and log |dy/dx| its logProb (e.g. a Gaussian
--- copula from a MultivariateNormal and CumulativeDistributionTransform(Normal(0, 1))).
--- Example: torch.distributions.CumulativeDistributionTransform(torch.distributions.Normal(0, 1))(torch.zeros(2))
function CDF:__init(dist, opts)
  local op = self:_op()
  if not torch.isTypeOf(dist, 'torch.distributions.Distribution') then
    util.fail(op, 'distribution must be a distribution, got %s', util.describe(dist))
  end
  self.distribution = dist
  self.domain = dist:support()
  self:_setEventDim()
  self:_setCache(T._opts(op, opts).cacheSize)
end
function CDF:_call(x) return self.distribution:cdf(x) end
function CDF:_inverse(y) return self.distribution:icdf(y) end
--- CumulativeDistributionTransform:logAbsDetJacobian(x, y): the distribution's logProb(x).
--- Example: torch.distributions.CumulativeDistributionTransform(torch.distributions.Normal(0, 1)):logAbsDetJacobian(torch.zeros(1), torch.Tensor({0.5}))
function CDF:logAbsDetJacobian(x) return self.distribution:logProb(x) end
function CDF:__tostring__() return 'CumulativeDistributionTransform(' .. tostring(self.distribution) .. ')' end

return T
