-- PyTorch's math methods and functions Torch7 lacked: clamp/clampMin/clampMax with tensor bounds,
-- fillDiagonal, mvlgamma/igamma/igammac, method forms of the linalg functions, scalarTensor,
-- promoteTypes/canCast and the getRngState/setRngState names. Built from existing ops.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local fail, dt = lib.fail, lib.dtype
local is_tensor, describe, check_tensor = types.is_tensor, types.describe, types.check_tensor
local methods = torch._tensor_methods

-- ---- clamp with tensor bounds ----------------------------------------------------------------

local function bound(v) return v == nil or type(v) == 'number' or is_tensor(v) end
local function nan_mask(v) return is_tensor(v) and torch.isnan(v) or (v ~= v) end

-- Note [clamp with tensor bounds]: PyTorch's min(max(x, lo), hi) with NaN-propagating max/min,
-- written with torch.where so that a tie x == lo sends the gradient to x, as PyTorch's
-- clamp_backward does (cmax would split it); lo > hi gives hi, a NaN in x or a bound gives NaN.
local function clamp_tensors(x, lo, hi)
  local r = x
  -- a fractional number bound makes an integer x's result floating point, as PyTorch's type
  -- promotion (x long, min 0.5): where(x < 0.5, 0.5, x) wrote 0.5 into a LongTensor as 0
  local function fractional(v) return type(v) == 'number' and v ~= math.floor(v) end
  if not torch._pytorch_is_floating(x.p.dtype) and (fractional(lo) or fractional(hi)) then
    r = lib.wrap(lib.C.tocha_tensor_to_dtype(x.p, torch._default_dtype()))
  end
  if lo ~= nil then
    local take = torch.lt(r, lo)
    if is_tensor(lo) then take = torch.logicalOr(take, nan_mask(lo))
    elseif lo ~= lo then take:fill(1) end
    r = torch.where(take, lo, r)
  end
  if hi ~= nil then
    local take = torch.gt(r, hi)
    if is_tensor(hi) then take = torch.logicalOr(take, nan_mask(hi))
    elseif hi ~= hi then take:fill(1) end
    r = torch.where(take, hi, r)
  end
  return r
end

local function check_bounds(op, x, lo, hi)
  check_tensor(op, x, 1)
  if not bound(lo) then fail(op, 'min must be a number, a tensor or nil, got %s', describe(lo)) end
  if not bound(hi) then fail(op, 'max must be a number, a tensor or nil, got %s', describe(hi)) end
  if lo == nil and hi == nil then fail(op, 'at least one of min and max must be given') end
end

-- Note [In-place results are cast-checked]: x:clamp(lo) with tensor bounds, x:mvlgamma(p),
-- x:igamma(y) compute a new tensor and copy it into x; the copy truncated a floating-point result
-- into an integer x (LongTensor({-1}):clamp(DoubleTensor({0.5})) gave 0) where PyTorch refuses
-- ("result type Double can't be cast to the desired output type Long"), as torch.canCast says.
local function check_cast(op, x, r)
  if not torch.canCast(r, x) then
    fail(op, 'result of type %s cannot be written into a %s', r:type(), x:type())
  end
end
local function in_place(op, x, r, what)
  if not r:isSameSizeAs(x) then
    fail(op, what or 'the bounds broadcast the result to size %s, which differs from the tensor clamped in place (%s)',
      types.shape_str(r.p), types.shape_str(x.p))
  end
  check_cast(op, x, r)
  return (x:copy(r))
end
torch._pytorch_in_place = in_place

local clamp0, mclamp0 = torch.clamp, methods.clamp
local function number_bound(v) return v == nil or type(v) == 'number' end
--- torch.clamp([res,] x, min, max): x limited to [min, max] elementwise; either bound may be nil,
--- a number or (PyTorch's clamp with tensor bounds) a tensor broadcast against x, where lo > hi
--- gives hi and a NaN bound gives NaN. x:clamp(min, max) works in place. Differentiable.
--- torch.clamp(a, b, number) keeps Torch7's meaning (res = a, x = b): with a tensor min give max
--- as a tensor too, or nil, or chain torch.clampMax.
--- Example: torch.clamp(torch.Tensor({-1, 0.5, 2}), torch.Tensor({0, 0.6, 0}), torch.Tensor({1}))
local function clamp(a1, a2, a3, a4)
  if is_tensor(a2) and not (number_bound(a3) and number_bound(a4) and (a3 ~= nil or a4 ~= nil)) then
    if a4 == nil then check_bounds('clamp', a1, a2, a3) return (clamp_tensors(a1, a2, a3)) end
    check_tensor('clamp', a1, 1)
    check_bounds('clamp', a2, a3, a4)
    local r = clamp_tensors(a2, a3, a4)
    check_cast('clamp', a1, r)
    return (a1:resizeAs(r):copy(r))
  end
  if is_tensor(a1) and not is_tensor(a2) and is_tensor(a3) then
    check_bounds('clamp', a1, a2, a3)
    return (clamp_tensors(a1, a2, a3))
  end
  return (clamp0(a1, a2, a3, a4))
end
torch.clamp, torch.clip = clamp, clamp
local function mclamp(self, a1, a2, a3)
  if (is_tensor(a1) and a3 == nil and (a2 == nil or is_tensor(a2)))
      or (not is_tensor(a1) and is_tensor(a2)) then
    check_bounds('clamp', self, a1, a2)
    return (in_place('clamp', self, clamp_tensors(self, a1, a2)))
  end
  return (mclamp0(self, a1, a2, a3))
end
methods.clamp, methods.clamp_, methods.clip, methods.clip_ = mclamp, mclamp, mclamp, mclamp
local clampMin0 = torch.clampMin
--- torch.clampMin([res,] x, min): x limited below by min, a number or a tensor
--- (torch.clamp(x, min, nil)). x:clampMin(min) works in place. Differentiable.
--- Example: torch.clampMin(torch.Tensor({-1, 2}), torch.Tensor({0, 3}))
function torch.clampMin(a1, a2, a3)
  -- res, x, tensor min: torch.clamp(res, x, min) reads a tensor third argument as PyTorch's
  -- clamp(x, min, max), so clampMin(res, x, min) clamped res between x and min
  if is_tensor(a1) and is_tensor(a2) and is_tensor(a3) then
    check_bounds('clampMin', a2, a3, nil)
    local r = clamp_tensors(a2, a3, nil)
    check_cast('clampMin', a1, r)
    return (a1:resizeAs(r):copy(r))
  end
  return (clampMin0(a1, a2, a3))
end
local clampMax0 = torch.clampMax
--- torch.clampMax([res,] x, max): x limited above by max, a number or a tensor
--- (torch.clamp(x, nil, max)). x:clampMax(max) works in place. Differentiable.
--- Example: torch.clampMax(torch.Tensor({-1, 2}), torch.Tensor({0, 1}))
function torch.clampMax(a1, a2, a3)
  if is_tensor(a1) and is_tensor(a2) and a3 == nil then return (clamp(a1, nil, a2)) end
  return (clampMax0(a1, a2, a3))
end

-- ---- other math ------------------------------------------------------------------------------

--- x:fillDiagonal(value [, wrap = false]): fills the main diagonal of x in place (PyTorch's
--- fill_diagonal_): a 2-D x of any shape, or all dims of one size; with wrap, a tall matrix's
--- diagonal starts again every cols + 1 rows. Returns x.
--- Example: torch.zeros(3, 3):fillDiagonal(5)
function methods.fillDiagonal(x, value, wrap)
  local op = 'fillDiagonal'
  check_tensor(op, x, 1)
  if type(value) == 'boolean' then value = value and 1 or 0 end
  if type(value) ~= 'number' then fail(op, 'expected a fill value (number), got %s', describe(value)) end
  -- an integer x refuses a value it cannot hold (300 wrapped to 44 in a ByteTensor), as PyTorch's
  types.check_value_pytorch(op, value, x.p.dtype)  -- Note [Floating fill values]
  local n = x:dim()
  if n < 2 then fail(op, 'expected a tensor with at least 2 dims, got %s', describe(x)) end
  if n > 2 then
    for i = 2, n do
      if x:size(i) ~= x:size(1) then fail(op, 'all dims must have one length for a %dD tensor, got %s', n, describe(x)) end
    end
    local step = 0
    for i = 1, n do step = step + x:stride(i) end
    x:asStrided({ x:size(1) }, { step }, x:storageOffset()):fill(value)
    return x
  end
  local rows, cols = x:size(1), x:size(2)
  if rows == 0 or cols == 0 then return x end
  local first = 1
  repeat
    local len = math.min(cols, rows - first + 1)
    x:narrow(1, first, len):diagonal():fill(value)
    first = first + cols + 1
  until not wrap or first > rows
  return x
end
methods.fillDiagonal_ = methods.fillDiagonal

local function special(name)
  local f = torch.special and torch.special[name]
  if not f then fail(name, 'torch.special.%s is not available', name) end
  return f
end
-- the message of an in-place mvlgamma/igamma/igammac whose operands broadcast past x's size
local IN_PLACE_SIZE = 'the result has size %s, which differs from the tensor changed in place (%s)'
--- torch.mvlgamma(x, p): the log of the multivariate gamma function of dimension p
--- (torch.special.multigammaln; every element must exceed (p - 1) / 2). x:mvlgamma(p) works in
--- place like the other pointwise methods. Differentiable.
--- Example: torch.mvlgamma(torch.Tensor({2.5}), 2)
function torch.mvlgamma(x, p) return (special('multigammaln')(check_tensor('mvlgamma', x, 1), p)) end
function methods.mvlgamma(x, p)
  check_tensor('mvlgamma', x, 1)
  -- from a copy when x is in a graph: lgamma saves its input, which the copy below overwrites
  local src = x:needsGrad() and x:clone() or x
  return (in_place('mvlgamma', x, torch.mvlgamma(src, p), IN_PLACE_SIZE))
end
methods.mvlgamma_ = methods.mvlgamma
if torch.igamma == nil then
  --- torch.igamma(a, x): the regularized lower incomplete gamma function
  --- (torch.special.gammainc). a:igamma(x) works in place.
  --- Example: torch.igamma(torch.Tensor({2}), torch.Tensor({1}))
  function torch.igamma(a, x) return (special('gammainc')(a, x)) end
end
if torch.igammac == nil then
  --- torch.igammac(a, x): the regularized upper incomplete gamma function
  --- (torch.special.gammaincc). a:igammac(x) works in place.
  --- Example: torch.igammac(torch.Tensor({2}), torch.Tensor({1}))
  function torch.igammac(a, x) return (special('gammaincc')(a, x)) end
end
if methods.igamma == nil then
  function methods.igamma(a, x)
    check_tensor('igamma', a, 1)
    -- from a copy of a when x is in a graph: x's gradient reads a, which the copy overwrites
    local src = (a:needsGrad() or is_tensor(x) and x:needsGrad()) and a:clone() or a
    return (in_place('igamma', a, torch.igamma(src, x), IN_PLACE_SIZE))
  end
  methods.igamma_ = methods.igamma
end
if methods.igammac == nil then
  function methods.igammac(a, x)
    check_tensor('igammac', a, 1)
    local src = (a:needsGrad() or is_tensor(x) and x:needsGrad()) and a:clone() or a  -- as igamma
    return (in_place('igammac', a, torch.igammac(src, x), IN_PLACE_SIZE))
  end
  methods.igammac_ = methods.igammac
end

-- Method forms of torch functions whose first argument is the tensor (PyTorch's x.cholesky(),
-- x.kron(y)...); they return new tensors like the functions.
for _, name in ipairs({ 'cholesky', 'choleskyInverse', 'choleskySolve', 'diagEmbed', 'diagflat', 'inner',
                        'kron', 'matrixPower', 'matrixExp', 'pinverse', 'lu', 'luSolve', 'triangularSolve',
                        'vdot' }) do
  if methods[name] == nil and torch[name] ~= nil then
    local f = torch[name]
    methods[name] = function(x, ...) return f(check_tensor(name, x, 1), ...) end
  end
end

-- ---- dtypes and RNG names --------------------------------------------------------------------

local NAMES = torch._pytorch_dtype_name
-- Categories of Note [Type promotion] (core/dtype.h): bool 0, integers 1, floating 2.
local CATEGORY = { [dt.bool] = 0, [dt.u8] = 1, [dt.i8] = 1, [dt.i16] = 1, [dt.i32] = 1, [dt.i64] = 1,
  [dt.f16] = 2, [dt.bf16] = 2, [dt.f32] = 2, [dt.f64] = 2 }
local function dtype_of(op, v)
  if is_tensor(v) then return tonumber(v.p.dtype) end
  local id = torch._pytorch_dtype_id(op, v)
  return tonumber(id)
end
--- torch.promoteTypes(a, b): the dtype name ('float32'...) of PyTorch's promotion of dtypes a and b
--- (names such as 'int64' or 'torch.DoubleTensor', or tensors whose dtype is taken): the larger of
--- the two in bool < uint8, int8 < int16 < int32 < int64 < float16, bfloat16 < float32 < float64,
--- float16 with bfloat16 giving float32 and uint8 with int8 giving int16 (the C library's rule).
--- Example: torch.promoteTypes('int64', 'float16')
function torch.promoteTypes(a, b)
  local x, y = dtype_of('promoteTypes', a), dtype_of('promoteTypes', b)
  return NAMES[tonumber(lib.C.tocha_promote_types(x, y))]
end
--- torch.canCast(from, to): whether PyTorch's casting rules allow from -> to in an in-place op or
--- an out= result: floating point to an integer type, or a number type to bool, is refused.
--- Example: torch.canCast('float64', 'int32'), torch.canCast('int32', 'float64')
function torch.canCast(from, to)
  local x, y = dtype_of('canCast', from), dtype_of('canCast', to)
  if CATEGORY[x] == 2 and CATEGORY[y] < 2 then return false end
  if CATEGORY[x] >= 1 and CATEGORY[y] == 0 then return false end
  return true
end
--- torch.scalarTensor(value [, {dtype=, device=, requiresGrad=}]): a 0-dim tensor holding value, of
--- the default floating type unless the options say otherwise.
--- Example: torch.scalarTensor(3.5)
function torch.scalarTensor(value, opts)
  if type(value) == 'boolean' then value = value and 1 or 0 end
  if type(value) ~= 'number' then fail('scalarTensor', 'expected a number, got %s', describe(value)) end
  local proto = torch._new_tensor(0, nil, torch._default_dtype(), 0)
  return (proto:newFull({}, value, opts or {}))
end
torch.getRngState, torch.setRngState = torch.getRNGState, torch.setRNGState
