-- Constraints of torch.distributions: each names a set (for messages) and gives a mask of the
-- elements (or, for event constraints, the events) that lie in it; validate raises the error.
-- `kind` (with lowerBound/upperBound where it has them) names PyTorch's constraint class, for the
-- transform registry (constraint_registry.lua).
local torch = require 'torch.env'
local util = require 'torch.distributions.util'

local constraints = {}

local function make(desc, check, eventDim, kind, extra)
  local c = { desc = desc, check = check, eventDim = eventDim or 0, kind = kind, isDiscrete = false }
  for k, v in pairs(extra or {}) do c[k] = v end
  return c
end
-- Integer tensors are whole by type (and floor has nothing to do for them).
local function int_mask(x)
  if not util.is_float(x) then return torch.eq(x, x) end
  return torch.eq(x, torch.floor(x))
end
local function land(a, b) return torch.logicalAnd(a, b) end
local function bound_str(b, name) return torch.isTensor(b) and name or tostring(b) end
-- 1 where every element of the last n dims of mask is 1 (those dims dropped).
local function all_last(mask, n)
  if n == 0 then return mask end
  local s = mask:size()
  local keep = util.slice(s, 1, #s - n)
  local flat = mask:contiguous():view(util.cat(keep, { -1 }))
  return torch.eq(util.sum_last(torch.logicalNot(flat):double()), 0)
end
constraints._allLast = all_last

constraints.real = make('real (not NaN)', function(x) return torch.eq(x, x) end, 0, 'real')
constraints.positive = make('positive (> 0)', function(x) return torch.gt(x, 0) end, 0, 'greaterThan', { lowerBound = 0 })
constraints.nonnegative = make('non-negative (>= 0)', function(x) return torch.ge(x, 0) end, 0, 'greaterThanEq',
  { lowerBound = 0 })
constraints.unitInterval = make('in [0, 1]', function(x) return land(torch.ge(x, 0), torch.le(x, 1)) end, 0, 'interval',
  { lowerBound = 0, upperBound = 1 })
constraints.boolean = make('0 or 1', function(x) return torch.logicalOr(torch.eq(x, 0), torch.eq(x, 1)) end, 0, 'boolean',
  { isDiscrete = true })
constraints.nonnegativeInteger = make('a non-negative integer',
  function(x) return land(torch.ge(x, 0), int_mask(x)) end, 0, 'integerGreaterThan', { lowerBound = 0, isDiscrete = true })
constraints.positiveInteger = make('a positive integer',
  function(x) return land(torch.ge(x, 1), int_mask(x)) end, 0, 'integerGreaterThan', { lowerBound = 1, isDiscrete = true })
constraints.integer = make('an integer', int_mask, 0, 'integer', { isDiscrete = true })

--- constraints.integerInterval(lo, hi): integers in [lo, hi]; hi a number or a tensor.
--- Example: torch.distributions.constraints.integerInterval(1, 3).check(torch.Tensor({1, 4}))
function constraints.integerInterval(lo, hi, desc)
  return make(desc or string.format('an integer in [%s, %s]', tostring(lo), torch.isTensor(hi) and 'totalCount' or tostring(hi)),
    function(x) return land(land(torch.ge(x, lo), torch.le(x, hi)), int_mask(x)) end, 0, 'integerInterval',
    { lowerBound = lo, upperBound = hi, isDiscrete = true })
end
--- constraints.halfOpenInterval(lo, hi): lo <= x < hi, lo and hi tensors that broadcast with x.
--- Example: torch.distributions.constraints.halfOpenInterval(0, 1).check(torch.Tensor({0, 1}))
function constraints.halfOpenInterval(lo, hi)
  return make('in [low, high)', function(x) return land(torch.ge(x, lo), torch.lt(x, hi)) end, 0, 'halfOpenInterval',
    { lowerBound = lo, upperBound = hi })
end
--- constraints.greaterThan(lo): x > lo (lo a number or a tensor that broadcasts with x).
--- Example: torch.distributions.constraints.greaterThan(1).check(torch.Tensor({0, 2}))
function constraints.greaterThan(lo)
  return make(string.format('greater than %s', bound_str(lo, 'the lower bound')), function(x) return torch.gt(x, lo) end,
    0, 'greaterThan', { lowerBound = lo })
end
--- constraints.greaterThanEq(lo): x >= lo.
--- Example: torch.distributions.constraints.greaterThanEq(1).check(torch.Tensor({1, 0}))
function constraints.greaterThanEq(lo)
  return make(string.format('at least %s', bound_str(lo, 'the lower bound')), function(x) return torch.ge(x, lo) end,
    0, 'greaterThanEq', { lowerBound = lo })
end
--- constraints.lessThan(hi): x < hi.
--- Example: torch.distributions.constraints.lessThan(1).check(torch.Tensor({0, 2}))
function constraints.lessThan(hi)
  return make(string.format('less than %s', bound_str(hi, 'the upper bound')), function(x) return torch.lt(x, hi) end,
    0, 'lessThan', { upperBound = hi })
end
--- constraints.interval(lo, hi): lo <= x <= hi (the closed interval).
--- Example: torch.distributions.constraints.interval(0, 2).check(torch.Tensor({0, 3}))
function constraints.interval(lo, hi)
  return make(string.format('in [%s, %s]', bound_str(lo, 'low'), bound_str(hi, 'high')),
    function(x) return land(torch.ge(x, lo), torch.le(x, hi)) end, 0, 'interval', { lowerBound = lo, upperBound = hi })
end
--- constraints.integerGreaterThan(lo): integers >= lo (PyTorch's _IntegerGreaterThan).
--- Example: torch.distributions.constraints.integerGreaterThan(2).check(torch.Tensor({2, 1.5}))
function constraints.integerGreaterThan(lo)
  return make(string.format('an integer >= %s', bound_str(lo, 'the lower bound')),
    function(x) return land(torch.ge(x, lo), int_mask(x)) end, 0, 'integerGreaterThan', { lowerBound = lo, isDiscrete = true })
end
--- constraints.integerLessThan(hi): integers <= hi (PyTorch's _IntegerLessThan).
--- Example: torch.distributions.constraints.integerLessThan(2).check(torch.Tensor({2, 3}))
function constraints.integerLessThan(hi)
  return make(string.format('an integer <= %s', bound_str(hi, 'the upper bound')),
    function(x) return land(torch.le(x, hi), int_mask(x)) end, 0, 'integerLessThan', { upperBound = hi, isDiscrete = true })
end

--- constraints.independent(c, n): c with its last n batch dims taken as event dims: an event is
--- in the set when all its entries are (eventDim = c.eventDim + n).
--- Example: torch.distributions.constraints.independent(torch.distributions.constraints.positive, 1).check(torch.Tensor({{1, 2}, {1, -1}}))
function constraints.independent(c, n)
  if type(c) ~= 'table' or type(c.check) ~= 'function' then
    util.fail('distributions.constraints.independent', 'expected a constraint, got %s', util.describe(c))
  end
  if type(n) ~= 'number' or n < 0 or n ~= math.floor(n) then
    util.fail('distributions.constraints.independent', 'reinterpretedBatchNdims must be a non-negative integer, got %s', tostring(n))
  end
  return make(c.desc .. (n > 0 and string.format(' (over the last %d dims)', n) or ''), function(x)
    local r = c.check(x)
    if r:dim() < n then
      util.fail('distributions.constraints.independent', 'expected a value of at least %d dims, got %s', c.eventDim + n, util.describe(x))
    end
    return all_last(r, n)
  end, c.eventDim + n, 'independent', { baseConstraint = c, reinterpretedBatchNdims = n, isDiscrete = c.isDiscrete })
end

-- Event constraints: one mask element per event (the last dim, or the last two).
constraints.realVector = make('real vectors (no NaN)', function(x)
  return torch.eq(util.sum_last(torch.ne(x, x):double()), 0)
end, 1, 'independent', { baseConstraint = constraints.real, reinterpretedBatchNdims = 1 })
constraints.simplex = make('on the simplex (non-negative, summing to 1 along the last dim)', function(x)
  local nonneg = torch.eq(util.sum_last(torch.lt(x, 0):double()), 0)
  local sums = util.sum_last(x:double())
  return land(nonneg, torch.lt(torch.abs(sums - 1), 1e-6))
end, 1, 'simplex')
constraints.oneHot = make('one-hot (0/1 entries, one 1 along the last dim)', function(x)
  local b = constraints.boolean.check(x)
  local allb = torch.eq(util.sum_last(torch.logicalNot(b):double()), 0)
  return land(allb, torch.eq(util.sum_last(x:double()), 1))
end, 1, 'oneHot', { isDiscrete = true })
--- constraints.multinomial(n): non-negative vectors summing to at most n (PyTorch's weaker check).
--- Example: torch.distributions.constraints.multinomial(3).check(torch.Tensor({1, 2}))
function constraints.multinomial(n)
  return make(string.format('non-negative counts summing to at most %s', bound_str(n, 'totalCount')), function(x)
    local nonneg = torch.eq(util.sum_last(torch.lt(x, 0):double()), 0)
    return land(nonneg, torch.le(util.sum_last(x:double()), n))
  end, 1, 'multinomial', { upperBound = n, isDiscrete = true })
end
local function lower_tri_mask(x)
  return torch.eq(util.sum_rightmost(torch.ne(torch.tril(x), x):double(), 2), 0)
end
constraints.lowerTriangular = make('lower triangular', lower_tri_mask, 2, 'lowerTriangular')
constraints.lowerCholesky = make('lower triangular with a positive diagonal', function(x)
  local upper = torch.abs(x:double() - torch.tril(x:double()))
  local offOk = torch.eq(util.sum_rightmost(upper, 2), 0)
  local diag = torch.diagonal(x, 0, -2, -1)
  return land(offOk, torch.eq(util.sum_last(torch.le(diag, 0):double()), 0))
end, 2, 'lowerCholesky')
constraints.corrCholesky = make('lower triangular with a positive diagonal and rows of unit norm', function(x)
  -- PyTorch's tolerance: eps * n * 10.
  local tol = util.eps(x) * x:size(x:dim()) * 10
  local rowNorm = torch.sqrt(util.sum_last(torch.pow(x:detach():double(), 2)))
  local unit = torch.eq(util.sum_last(torch.gt(torch.abs(rowNorm - 1), tol):double()), 0)
  return land(constraints.lowerCholesky.check(x), unit)
end, 2, 'corrCholesky')
local function square_mask(x)
  local d = x:dim()
  local b = util.slice(x:size(), 1, d - 2)
  local m = torch.ones(#b > 0 and b or {}):byte()
  if x:size(d) ~= x:size(d - 1) then m:zero() end
  return m
end
constraints.square = make('square', square_mask, 2, 'square')
local function sym_mask(x)
  local sq = square_mask(x)
  if not torch.all(sq) then return sq end
  local d = x:dim()
  local close = torch.isclose(x, x:transpose(d - 1, d), { atol = 1e-6 })
  return all_last(close, 2)
end
constraints.symmetric = make('symmetric', sym_mask, 2, 'symmetric')
constraints.positiveSemidefinite = make('symmetric positive-semidefinite', function(x)
  local sym = sym_mask(x)
  if not torch.all(sym) then return sym end
  local ev = torch.linalg.eigvalsh(x:double())
  return all_last(torch.ge(ev, 0), 1)
end, 2, 'positiveSemidefinite')
constraints.positiveDefinite = make('symmetric positive-definite', function(x)
  local sym = torch.lt(util.sum_rightmost(torch.abs(x - x:transpose(x:dim() - 1, x:dim())):double(), 2), 1e-6)
  -- A Cholesky factorization must succeed, PyTorch's test (cholesky_ex(x).info == 0): the smallest
  -- eigenvalue (torch.linalg.eigvalsh) was stricter, refusing Wishart draws with df < p that factor
  -- fine, and ~500x slower on 2e5 3x3 matrices.
  local ok, _, info = pcall(torch.linalg.choleskyEx, x:double())
  if not ok then return torch.zerosLike(sym) end
  return land(sym, torch.eq(info, 0))
end, 2, 'positiveDefinite')

-- Note [Dependent constraints]: dependent stands for a support that depends on other
-- parameters; it cannot be checked (check raises), as PyTorch's. dependent({isDiscrete=,
-- eventDim=}) makes one with those static attributes.
local function dependent(opts)
  opts = opts or {}
  local c = make('dependent', function()
    util.fail('distributions.constraints.dependent', 'cannot determine validity of a dependent constraint')
  end, opts.eventDim or 0, 'dependent', { isDiscrete = opts.isDiscrete or false })
  return setmetatable(c, { __call = function(_, o) return dependent(o) end })
end
constraints.dependent = dependent()
--- constraints.isDependent(c): whether c is a dependent constraint.
--- Example: torch.distributions.constraints.isDependent(torch.distributions.constraints.dependent)
function constraints.isDependent(c) return type(c) == 'table' and c.kind == 'dependent' end

-- Dim d (1-based, negative from the end) of an n-dim value as a positive index.
local function pos_dim(op, d, n)
  local p = d < 0 and n + d + 1 or d
  if p < 1 or p > n then util.fail(op, 'dim %d out of range for a %d-dim value', d, n) end
  return p
end
--- constraints.cat(cseq, dim, lengths): constraint cseq[i] on the i-th slice (of lengths[i],
--- default 1) along dim (1-based, negative from the end), as torch.cat lays them out.
--- Example: torch.distributions.constraints.cat({torch.distributions.constraints.positive, torch.distributions.constraints.real}, 1, {2, 1}).check(torch.Tensor({1, 2, -3}))
function constraints.cat(cseq, dim, lengths)
  dim = dim or 1
  if not lengths then lengths = {} for i = 1, #cseq do lengths[i] = 1 end end
  if #lengths ~= #cseq then util.fail('distributions.constraints.cat', 'expected %d lengths, got %d', #cseq, #lengths) end
  local ed, disc = 0, false
  for _, c in ipairs(cseq) do ed = math.max(ed, c.eventDim); disc = disc or c.isDiscrete end
  return make('a concatenation of constraints', function(x)
    local d = pos_dim('distributions.constraints.cat', dim, x:dim())
    local parts, start = {}, 1
    for i, c in ipairs(cseq) do
      parts[i] = c.check(x:narrow(d, start, lengths[i]))
      start = start + lengths[i]
    end
    return torch.cat(parts, d)
  end, ed, 'cat', { cseq = cseq, dim = dim, lengths = lengths, isDiscrete = disc })
end
--- constraints.stack(cseq, dim): constraint cseq[i] on the i-th slice along dim, as torch.stack lays them out.
--- Example: torch.distributions.constraints.stack({torch.distributions.constraints.positive, torch.distributions.constraints.real}, 1).check(torch.Tensor({1, -3}))
function constraints.stack(cseq, dim)
  dim = dim or 1
  local ed, disc = 0, false
  for _, c in ipairs(cseq) do ed = math.max(ed, c.eventDim); disc = disc or c.isDiscrete end
  -- PyTorch: a negative dim inside the event dims adds one event dim.
  if dim + ed < 0 then ed = ed + 1 end
  return make('a stack of constraints', function(x)
    local d = pos_dim('distributions.constraints.stack', dim, x:dim())
    local parts = {}
    for i, c in ipairs(cseq) do parts[i] = c.check(x:select(d, i)) end
    return torch.stack(parts, d)
  end, ed, 'stack', { cseq = cseq, dim = dim, isDiscrete = disc })
end

-- Note [Saving constraints]: a constraint keeps its check as a closure, which checkpoints
-- cannot hold. _toData describes one as plain data (the name of a fixed constraint, or the kind
-- and the bounds of a built one) and _fromData rebuilds it; transforms, which keep domain and
-- codomain on the instance, save theirs so. Ad-hoc tables {desc, check} have no description.
local rebuild = {
  greaterThan = function(d) return constraints.greaterThan(d.lowerBound) end,
  greaterThanEq = function(d) return constraints.greaterThanEq(d.lowerBound) end,
  lessThan = function(d) return constraints.lessThan(d.upperBound) end,
  interval = function(d) return constraints.interval(d.lowerBound, d.upperBound) end,
  halfOpenInterval = function(d) return constraints.halfOpenInterval(d.lowerBound, d.upperBound) end,
  integerInterval = function(d) return constraints.integerInterval(d.lowerBound, d.upperBound, d.desc) end,
  integerGreaterThan = function(d) return constraints.integerGreaterThan(d.lowerBound) end,
  integerLessThan = function(d) return constraints.integerLessThan(d.upperBound) end,
  multinomial = function(d) return constraints.multinomial(d.upperBound) end,
  dependent = function(d) return constraints.dependent({ isDiscrete = d.isDiscrete, eventDim = d.eventDim }) end,
  independent = function(d)
    return constraints.independent(constraints._fromData(d.baseConstraint), d.reinterpretedBatchNdims)
  end,
  cat = function(d)
    local cs = {}
    for i, c in ipairs(d.cseq) do cs[i] = constraints._fromData(c) end
    return constraints.cat(cs, d.dim, d.lengths)
  end,
  stack = function(d)
    local cs = {}
    for i, c in ipairs(d.cseq) do cs[i] = constraints._fromData(c) end
    return constraints.stack(cs, d.dim)
  end,
}
-- Whether v is a constraint (a table with a check function).
function constraints._isConstraint(v) return type(v) == 'table' and type(v.check) == 'function' end
-- c as plain data (Note [Saving constraints]); op names the error for a constraint without one.
function constraints._toData(c, op)
  for name, v in pairs(constraints) do
    if rawequal(v, c) then return { name = name } end
  end
  if not rebuild[c.kind] then
    util.fail(op or 'distributions.constraints', 'cannot save the constraint "%s" (it has no kind to rebuild it from)',
      tostring(c.desc))
  end
  local d = { kind = c.kind }
  for _, k in ipairs({ 'lowerBound', 'upperBound', 'desc', 'isDiscrete', 'eventDim', 'reinterpretedBatchNdims', 'dim',
                       'lengths' }) do
    d[k] = c[k]
  end
  if c.baseConstraint then d.baseConstraint = constraints._toData(c.baseConstraint, op) end
  if c.cseq then
    d.cseq = {}
    for i, sub in ipairs(c.cseq) do d.cseq[i] = constraints._toData(sub, op) end
  end
  return d
end
-- The constraint _toData described.
function constraints._fromData(d)
  if d.name then return constraints[d.name] end
  return rebuild[d.kind](d)
end

-- Raises "[name] what must be <desc>, got ..." when some element (or event) of x is outside c.
--- constraints.validate(name, what, c, x): raises [name] what must be <c.desc>, got ... when an element (or event) of x is outside constraint c.
--- Example: torch.distributions.constraints.validate('demo', 'x', torch.distributions.constraints.positive, torch.Tensor({1}))
function constraints.validate(name, what, c, x)
  if type(x) == 'number' then x = torch.DoubleTensor({ x }) end
  local mask = c.check(x)
  if torch.all(mask) then return end
  if c.eventDim == 0 and mask:nElement() ~= x:nElement() then
    local ok, xe = pcall(x.expand, x, mask:size())  -- the value broadcast against parameters
    if ok then x = xe end
  end
  local bad = torch.logicalNot(mask):float()
  local pos = torch.argmax(bad:view(bad:nElement()))
  if c.eventDim == 0 and bad:nElement() == x:nElement() then
    local v = x:contiguous():view(x:nElement()):double()[pos]
    if x:nElement() == 1 then util.fail(name, '%s must be %s, got %s', what, c.desc, tostring(v)) end
    util.fail(name, '%s must be %s, got %s at element %d of a %s', what, c.desc, tostring(v), pos, util.describe(x))
  end
  util.fail(name, '%s must be %s, got a %s whose event %d is not', what, c.desc, util.describe(x), pos)
end

return constraints
