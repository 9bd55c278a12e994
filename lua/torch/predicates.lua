-- PyTorch's elementwise predicates (isnan, isinf, isfinite, isposinf, isneginf), logical ops,
-- isclose/allclose and nanToNum. Masks are ByteTensors (Torch7's comparison type); the C side
-- builds them from the pointwise ops (Note [Predicates as composites] in core/ops/predicates.cpp),
-- so every device and dtype works. Unlike Torch7's in-place methods, the predicate and logical
-- methods (x:isnan(), a:logicalAnd(b)) return new masks, as x:lt(y) does: a mask cannot be
-- written into x's type. x:nanToNum() works in place (Torch7's rule).
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, fail = lib.C, lib.wrap, lib.fail
local is_tensor, describe, check_tensor = types.is_tensor, types.describe, types.check_tensor
local methods = torch._tensor_methods

local function unary(name, cname)
  local f = C['tocha_' .. cname]
  torch[name] = function(x)
    check_tensor(name, x, 1)
    return (wrap(f(x.p)))
  end
  methods[name] = torch[name]
end

--- torch.isnan(x): a ByteTensor, 1 where x is NaN (never for integer and bool tensors).
--- x:isnan() is the same (a new mask; x is unchanged).
--- Example: torch.isnan(torch.Tensor({1, 0/0, math.huge}))
unary('isnan', 'isnan')
--- torch.isinf(x): a ByteTensor, 1 where x is +inf or -inf. x:isinf() is the same.
--- Example: torch.isinf(torch.Tensor({1, 0/0, -math.huge}))
unary('isinf', 'isinf')
--- torch.isfinite(x): a ByteTensor, 1 where x is neither NaN nor +-inf (all 1 for integer and
--- bool tensors). x:isfinite() is the same.
--- Example: torch.isfinite(torch.Tensor({1, 0/0, math.huge}))
unary('isfinite', 'isfinite')
--- torch.isposinf(x): a ByteTensor, 1 where x is +inf. x:isposinf() is the same.
--- Example: torch.isposinf(torch.Tensor({math.huge, -math.huge, 1}))
unary('isposinf', 'isposinf')
--- torch.isneginf(x): a ByteTensor, 1 where x is -inf. x:isneginf() is the same.
--- Example: torch.isneginf(torch.Tensor({math.huge, -math.huge, 1}))
unary('isneginf', 'isneginf')
--- torch.logicalNot(x): a ByteTensor, 1 where x is 0 (nonzero elements, NaN included, are
--- true). x:logicalNot() is the same (a new mask).
--- Example: torch.logicalNot(torch.Tensor({0, 2, 0/0}))
unary('logicalNot', 'logical_not')

local function binary(name, cname)
  local f = C['tocha_' .. cname]
  torch[name] = function(a, b)
    check_tensor(name, a, 1)
    check_tensor(name, b, 2)
    return (wrap(f(a.p, b.p)))
  end
  methods[name] = torch[name]
end

--- torch.logicalAnd(a, b): a ByteTensor, 1 where both a and b are nonzero (NaN is true); any
--- dtypes, broadcasting. a:logicalAnd(b) is the same (a new mask).
--- Example: torch.logicalAnd(torch.Tensor({0, 1, 2}), torch.Tensor({1, 0, 3}))
binary('logicalAnd', 'logical_and')
--- torch.logicalOr(a, b): a ByteTensor, 1 where a or b is nonzero; any dtypes, broadcasting.
--- a:logicalOr(b) is the same.
--- Example: torch.logicalOr(torch.Tensor({0, 1, 0}), torch.Tensor({0, 0, 3}))
binary('logicalOr', 'logical_or')
--- torch.logicalXor(a, b): a ByteTensor, 1 where exactly one of a and b is nonzero; any dtypes,
--- broadcasting. a:logicalXor(b) is the same.
--- Example: torch.logicalXor(torch.Tensor({0, 1, 2}), torch.Tensor({1, 0, 3}))
binary('logicalXor', 'logical_xor')

-- isclose's options: positional (rtol, atol, equalNan) or one table {rtol=, atol=, equalNan=}
-- (as torch.autograd.gradcheck takes its tolerances).
local function close_options(name, rtol, atol, equal_nan, extra)
  if type(rtol) == 'table' and not is_tensor(rtol) then
    if atol ~= nil then fail(name, 'options given as a table take no further arguments, got %s', describe(atol)) end
    local o = rtol
    for k in pairs(o) do
      if k ~= 'rtol' and k ~= 'atol' and k ~= 'equalNan' then
        fail(name, "unknown option '%s' (expected rtol, atol, equalNan)", tostring(k))
      end
    end
    rtol, atol, equal_nan = o.rtol, o.atol, o.equalNan
  elseif extra ~= nil then
    fail(name, 'expected (a, b [, rtol [, atol [, equalNan]]]), got an extra argument %s', describe(extra))
  end
  if rtol == nil then rtol = 1e-5 end
  if atol == nil then atol = 1e-8 end
  if type(rtol) ~= 'number' then fail(name, 'rtol must be a number, got %s', describe(rtol)) end
  if type(atol) ~= 'number' then fail(name, 'atol must be a number, got %s', describe(atol)) end
  if equal_nan ~= nil and type(equal_nan) ~= 'boolean' then
    fail(name, 'equalNan must be a boolean, got %s', describe(equal_nan))
  end
  return rtol, atol, equal_nan and 1 or 0
end

--- torch.isclose(a, b [, rtol=1e-5 [, atol=1e-8 [, equalNan=false]]]): a ByteTensor, 1 where
--- a == b (an inf equals the same inf) or |a - b| <= atol + rtol * |b| holds and is finite, as
--- PyTorch's isclose; with equalNan, NaN equals NaN. The options may be a table {rtol=, atol=,
--- equalNan=}. Broadcasting; a and b of different dtypes are promoted. a:isclose(b) is the same.
--- Example: torch.isclose(torch.Tensor({1, 2, 0/0}), torch.Tensor({1 + 1e-7, 2.1, 0/0}), {equalNan = true})
function torch.isclose(a, b, rtol, atol, equal_nan, extra)
  check_tensor('isclose', a, 1)
  check_tensor('isclose', b, 2)
  local r, at, en = close_options('isclose', rtol, atol, equal_nan, extra)
  return (wrap(C.tocha_isclose(a.p, b.p, r, at, en)))
end
methods.isclose = torch.isclose

--- torch.allclose(a, b [, rtol=1e-5 [, atol=1e-8 [, equalNan=false]]]): true when every element
--- of torch.isclose(a, b, ...) is 1 (a Lua boolean; true for empty tensors). Options as isclose's.
--- a:allclose(b) is the same.
--- Example: torch.allclose(torch.Tensor({1, 2}), torch.Tensor({1, 2 + 1e-6}))
function torch.allclose(a, b, rtol, atol, equal_nan, extra)
  check_tensor('allclose', a, 1)
  check_tensor('allclose', b, 2)
  local r, at, en = close_options('allclose', rtol, atol, equal_nan, extra)
  local v = C.tocha_allclose(a.p, b.p, r, at, en)
  if v < 0 then lib.raise() end
  return v == 1
end
methods.allclose = torch.allclose

local function optional_number(name, what, v)
  if v ~= nil and type(v) ~= 'number' then fail(name, '%s must be a number, got %s', what, describe(v)) end
  return v
end

local function nan_to_num(name, x, nan, posinf, neginf, extra)
  check_tensor(name, x, 1)
  if extra ~= nil then
    fail(name, 'expected (x [, nan [, posinf [, neginf]]]), got an extra argument %s', describe(extra))
  end
  nan = optional_number(name, 'nan', nan) or 0
  optional_number(name, 'posinf', posinf)
  optional_number(name, 'neginf', neginf)
  return (wrap(C.tocha_nan_to_num(x.p, nan, posinf and 1 or 0, posinf or 0, neginf and 1 or 0, neginf or 0)))
end

--- torch.nanToNum(x [, nan=0 [, posinf [, neginf]]]): a copy of x with NaN replaced by nan, +inf
--- by posinf and -inf by neginf (by default the dtype's largest and lowest finite values), as
--- PyTorch's nan_to_num; integer and bool tensors are copied unchanged. Differentiable: the
--- gradient passes where x is finite and is 0 elsewhere. x:nanToNum(...) replaces in place and
--- returns x (x:nanToNum_() too).
--- Example: torch.nanToNum(torch.Tensor({0/0, math.huge, -math.huge, 1}), 0, 100)
function torch.nanToNum(x, nan, posinf, neginf, extra)
  return (nan_to_num('nanToNum', x, nan, posinf, neginf, extra))
end
function methods.nanToNum(x, ...)
  -- Under autograd the result is computed from a (recorded) clone: the clamp inside saves its
  -- input for backward, and that input must not be x, which the copy below overwrites (the
  -- backward of y:nanToNum() once failed with 'modified by an in-place operation').
  local src = is_tensor(x) and torch._reduce_util.tracked(x) and x:clone() or x
  local r = nan_to_num('nanToNum', src, ...)
  x:copy(r)
  return x
end
methods.nanToNum_ = methods.nanToNum

return torch
