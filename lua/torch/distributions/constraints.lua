-- Constraints of torch.distributions: each names a set (for messages) and gives a mask of the
-- elements (or, for event constraints, the events) that lie in it; validate raises the error.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'

local constraints = {}

local function make(desc, check, eventDim) return { desc = desc, check = check, eventDim = eventDim or 0 } end
-- Integer tensors are whole by type (and floor has nothing to do for them).
local function int_mask(x)
  if not util.is_float(x) then return torch.eq(x, x) end
  return torch.eq(x, torch.floor(x))
end
local function land(a, b) return torch.logicalAnd(a, b) end

constraints.real = make('real (not NaN)', function(x) return torch.eq(x, x) end)
constraints.positive = make('positive (> 0)', function(x) return torch.gt(x, 0) end)
constraints.nonnegative = make('non-negative (>= 0)', function(x) return torch.ge(x, 0) end)
constraints.unitInterval = make('in [0, 1]', function(x) return land(torch.ge(x, 0), torch.le(x, 1)) end)
constraints.boolean = make('0 or 1', function(x) return torch.logicalOr(torch.eq(x, 0), torch.eq(x, 1)) end)
constraints.nonnegativeInteger = make('a non-negative integer',
  function(x) return land(torch.ge(x, 0), int_mask(x)) end)

--- constraints.integerInterval(lo, hi): integers in [lo, hi]; hi a number or a tensor.
--- Example: torch.distributions.constraints.integerInterval(1, 3).check(torch.Tensor({1, 4}))
function constraints.integerInterval(lo, hi, desc)
  return make(desc or string.format('an integer in [%s, %s]', tostring(lo), torch.isTensor(hi) and 'totalCount' or tostring(hi)),
    function(x) return land(land(torch.ge(x, lo), torch.le(x, hi)), int_mask(x)) end)
end
--- constraints.halfOpenInterval(lo, hi): lo <= x < hi, lo and hi tensors that broadcast with x.
--- Example: torch.distributions.constraints.halfOpenInterval(0, 1).check(torch.Tensor({0, 1}))
function constraints.halfOpenInterval(lo, hi)
  return make('in [low, high)', function(x) return land(torch.ge(x, lo), torch.lt(x, hi)) end)
end

-- Event constraints: one mask element per event (the last dim, or the last two).
constraints.realVector = make('real vectors (no NaN)', function(x)
  return torch.eq(util.sum_last(torch.ne(x, x):double()), 0)
end, 1)
constraints.simplex = make('on the simplex (non-negative, summing to 1 along the last dim)', function(x)
  local nonneg = torch.eq(util.sum_last(torch.lt(x, 0):double()), 0)
  local sums = util.sum_last(x:double())
  return land(nonneg, torch.lt(torch.abs(sums - 1), 1e-6))
end, 1)
constraints.oneHot = make('one-hot (0/1 entries, one 1 along the last dim)', function(x)
  local b = constraints.boolean.check(x)
  local allb = torch.eq(util.sum_last(torch.logicalNot(b):double()), 0)
  return land(allb, torch.eq(util.sum_last(x:double()), 1))
end, 1)
constraints.lowerCholesky = make('lower triangular with a positive diagonal', function(x)
  local upper = torch.abs(x:double() - torch.tril(x:double()))
  local offOk = torch.eq(util.sum_rightmost(upper, 2), 0)
  local diag = torch.diagonal(x, 0, -2, -1)
  return land(offOk, torch.eq(util.sum_last(torch.le(diag, 0):double()), 0))
end, 2)
constraints.positiveDefinite = make('symmetric positive-definite', function(x)
  local sym = torch.lt(util.sum_rightmost(torch.abs(x - x:transpose(x:dim() - 1, x:dim())):double(), 2), 1e-6)
  -- The smallest eigenvalue of each (symmetric) matrix must be positive.
  local ok, ev = pcall(torch.linalg.eigvalsh, x:double())
  if not ok then return torch.zerosLike(sym) end
  return land(sym, torch.gt(torch.min(ev, ev:dim()):squeeze(ev:dim()), 0))
end, 2)

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
