-- PyTorch's pointwise functions beyond the op-table loops of ops.lua: logit's eps, polygamma,
-- floatPower, signbit, ldexp, frexp and divide's rounding modes (C composites, core/ops/
-- pointwise_math.cpp), the names PyTorch users type for existing ops (reciprocal, clip,
-- maximum, greater...) and Torch7's bitwise names (bitand, cbitand, lshift...). Pointwise
-- methods work in place (Torch7): x:ldexp(e) changes x; masks and frexp return new tensors.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local doc = require 'torch.doc'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, describe, check_tensor = types.is_tensor, types.describe, types.check_tensor
local methods = torch._tensor_methods

-- Writes r into res (resized to r's size) and returns res; as the C front-ends' out= check
-- (can_cast), a floating-point result never goes into an integer tensor, nor a non-bool into a bool
-- one (long:divide(2) had silently truncated 3.5 to 3).
-- The check reads dtypes, not type names: the CPU names ('torch.FloatTensor') missed every CUDA
-- tensor, so a CudaLongTensor took a floating-point result truncated.
local dt = lib.dtype
local FLOATING = { [dt.f32] = true, [dt.f64] = true, [dt.f16] = true, [dt.bf16] = true }
local function floating_id(id) return FLOATING[tonumber(id)] == true end
local function into(res, r, op)
  local rd, od = r.p.dtype, res.p.dtype
  if (floating_id(rd) and not floating_id(od)) or (od == dt.bool and rd ~= od) then
    fail(op, 'result of type %s cannot be written into a %s', r:type(), res:type())
  end
  methods.resizeAs(res, r)
  methods.copy(res, r)
  return res
end
-- x:op(...) in place: as into, but x keeps its size, as PyTorch's in-place ops and the C in-place
-- front-ends ("in-place result has size 1 but the operation produces 2"); into resized x
-- (x:divide(y) with a larger y replaced x's elements by the broadcast result).
-- The operand an in-place method computes from: x itself, or a copy of x when x is in a graph,
-- since the op may save x for its backward and into_self then overwrites it ("a tensor needed
-- to compute the gradient of mul was modified by an in-place operation" from y:ldexp(e) with e
-- requiring grad; x:ldexp(e) with only e in a graph failed the same way).
local function operand(self, other)
  local graph = self:needsGrad() or (is_tensor(other) and other:needsGrad())
  return graph and self:clone() or self
end
local function into_self(self, r, op)
  if not methods.isSameSizeAs(self, r) then
    fail(op, 'in-place result has size %s but the operation produces %s', types.shape_str(self.p), types.shape_str(r.p))
  end
  return (into(self, r, op))
end

local function check_number(op, what, v)
  if type(v) ~= 'number' then fail(op, '%s must be a number, got %s', what, describe(v)) end
end

-- ---- logit with eps ----------------------------------------------------------------------------
local logit_plain, logit_plain_method = torch.logit, methods.logit
local function logit_eps(x, eps)
  check_tensor('logit', x, 1)
  check_number('logit', 'eps', eps)
  return (wrap(C.tocha_logit_eps(x.p, 1, eps)))
end
-- torch.logit([res,] x [, eps]) and x:logit([eps]) (in place): documented in doc_ops.lua.
function torch.logit(a1, a2, a3)
  if is_tensor(a2) then
    if a3 == nil then return (logit_plain(a1, a2)) end
    return (into(a1, logit_eps(a2, a3), 'logit'))
  end
  if a2 == nil then return (logit_plain(a1)) end
  return (logit_eps(a1, a2))
end
function methods.logit(self, eps)
  if eps == nil or is_tensor(eps) then return (logit_plain_method(self, eps)) end
  return (into_self(self, logit_eps(operand(self), eps), 'logit'))
end
methods.logit_ = methods.logit

-- ---- polygamma -----------------------------------------------------------------------------------
local function check_order(n)
  if type(n) ~= 'number' or n ~= math.floor(n) or n < 0 or n >= 2 ^ 31 then
    fail('polygamma', 'order n must be a non-negative integer, got %s', type(n) == 'number' and tostring(n) or describe(n))
  end
end
--- torch.polygamma([res,] n, x): the n-th derivative of digamma at each element of x (n = 0 is
--- digamma, 1 trigamma), computed in a floating-point type; differentiable in x (its gradient is
--- polygamma(n + 1, x)). x:polygamma(n) works in place.
--- Example: torch.polygamma(2, torch.Tensor({1, 2.5}))
function torch.polygamma(a1, a2, a3)
  if a3 ~= nil then
    check_tensor('polygamma', a1, 1)
    check_order(a2)
    check_tensor('polygamma', a3, 3)
    check(C.tocha_polygamma_out(a1.p, a2, a3.p))
    return a1
  end
  check_order(a1)
  check_tensor('polygamma', a2, 2)
  return (wrap(C.tocha_polygamma(a1, a2.p)))
end
function methods.polygamma(self, n)
  check_order(n)
  check(C.tocha_polygamma_out(self.p, n, self.p))
  return self
end
methods.polygamma_ = methods.polygamma

-- ---- floatPower ----------------------------------------------------------------------------------
local function float_power(res, a, b)
  if type(b) == 'boolean' then b = b and 1 or 0 end
  if is_tensor(a) and is_tensor(b) then
    if res then check(C.tocha_float_power_out(res.p, a.p, b.p)) return res end
    return (wrap(C.tocha_float_power(a.p, b.p)))
  elseif is_tensor(a) and type(b) == 'number' then
    if res then check(C.tocha_float_power_scalar_out(res.p, a.p, b)) return res end
    return (wrap(C.tocha_float_power_scalar(a.p, b)))
  elseif type(a) == 'number' and is_tensor(b) then
    if res and res.p.dtype ~= dt.f64 then  -- a dtype test: a CudaDoubleTensor res is right too
      fail('floatPower', 'computes in double: the result must be a torch.DoubleTensor, got a %s', res:type())
    end
    local r = wrap(C.tocha_float_power_rscalar(a, b.p))
    if res then return (into(res, r, 'floatPower')) end
    return r
  end
  fail('floatPower', 'expected tensor or number operands, got %s and %s', describe(a), describe(b))
end
--- torch.floatPower([res,] a, b): a ^ b computed and returned in double precision (a
--- DoubleTensor), a and b tensors (broadcast) or numbers; PyTorch's float_power. x:floatPower(y)
--- works in place and needs x to be a DoubleTensor. Differentiable.
--- Example: torch.floatPower(torch.IntTensor({2, 3}), 2)
function torch.floatPower(a1, a2, a3)
  if a3 ~= nil then
    check_tensor('floatPower', a1, 1)
    return (float_power(a1, a2, a3))
  end
  return (float_power(nil, a1, a2))
end
function methods.floatPower(self, y) return (float_power(self, self, y)) end
methods.floatPower_ = methods.floatPower

-- ---- signbit, ldexp, frexp -----------------------------------------------------------------------
--- torch.signbit([res,] x): a ByteTensor mask, 1 where x's sign bit is set: negative numbers, -0
--- and NaNs with the sign bit (0 for unsigned and bool tensors). x:signbit() returns a new mask.
--- Example: torch.signbit(torch.Tensor({-1, -0.0, 0, 2}))
function torch.signbit(a1, a2)
  if a2 ~= nil then
    check_tensor('signbit', a1, 1)
    check_tensor('signbit', a2, 2)
    return (into(a1, wrap(C.tocha_signbit(a2.p)), 'signbit'))
  end
  check_tensor('signbit', a1, 1)
  return (wrap(C.tocha_signbit(a1.p)))
end
methods.signbit = function(self) return (torch.signbit(self)) end

local function ldexp(x, e)
  check_tensor('ldexp', x, 1)
  if is_tensor(e) then return (wrap(C.tocha_ldexp(x.p, e.p))) end
  if type(e) ~= 'number' then fail('ldexp', 'exponent must be a tensor or a number, got %s', describe(e)) end
  return (wrap(C.tocha_ldexp_scalar(x.p, e)))
end
--- torch.ldexp([res,] x, e): x * 2^e elementwise (e a tensor, broadcast, or a number), in a
--- floating-point type; computed as PyTorch does, x * 2^e, so 2^e may overflow where the product
--- would not. x:ldexp(e) works in place. Differentiable in x and e.
--- Example: torch.ldexp(torch.Tensor({1, 3}), torch.Tensor({3, -1}))
function torch.ldexp(a1, a2, a3)
  if a3 ~= nil then
    check_tensor('ldexp', a1, 1)
    return (into(a1, ldexp(a2, a3), 'ldexp'))
  end
  return (ldexp(a1, a2))
end
function methods.ldexp(self, e) return (into_self(self, ldexp(operand(self, e), e), 'ldexp')) end
methods.ldexp_ = methods.ldexp

local frexp_out = ffi.new('tocha_tensor*[2]')
--- torch.frexp(x): mantissa, exponent with x = mantissa * 2^exponent, |mantissa| in [0.5, 1)
--- (0, inf and NaN give themselves and exponent 0); the exponent is an IntTensor. Floating-point x
--- only; the mantissa is differentiable. x:frexp() is the same (new tensors).
--- Example: torch.frexp(torch.Tensor({8, -0.3, 0}))
function torch.frexp(x)
  check_tensor('frexp', x, 1)
  check(C.tocha_frexp(x.p, frexp_out, frexp_out + 1))
  return wrap(frexp_out[0]), wrap(frexp_out[1])
end
methods.frexp = torch.frexp

-- ---- divide with rounding modes ------------------------------------------------------------------
local function rounding_mode(m)
  if type(m) == 'table' and getmetatable(m) == nil then m = m.roundingMode end
  if m == nil then return '' end
  if m ~= 'trunc' and m ~= 'floor' then
    fail('divide', "roundingMode must be nil, 'trunc' or 'floor', got %s", type(m) == 'string' and ("'" .. m .. "'") or describe(m))
  end
  return m
end
local function divide(a, b, mode)
  if type(b) == 'boolean' then b = b and 1 or 0 end
  if is_tensor(a) and is_tensor(b) then return (wrap(C.tocha_divide(a.p, b.p, mode))) end
  if is_tensor(a) and type(b) == 'number' then return (wrap(C.tocha_divide_scalar(a.p, b, mode))) end
  if type(a) == 'number' and is_tensor(b) then return (wrap(C.tocha_divide_rscalar(a, b.p, mode))) end
  fail('divide', 'expected tensor or number operands, got %s and %s', describe(a), describe(b))
end
--- torch.divide([res,] a, b [, roundingMode]): a / b elementwise (PyTorch's divide/div). Without
--- roundingMode (or {roundingMode = ...}) it is true division (torch.div); 'trunc' rounds toward
--- zero and 'floor' down, both in the promoted dtype (integer tensors stay integers, without
--- going through floats). Rounded results have no gradient. x:divide(y [, mode]) works in place.
--- Example: torch.divide(torch.LongTensor({7, -7}), 2, 'trunc')
function torch.divide(a1, a2, a3, a4)
  if is_tensor(a1) and a3 ~= nil and type(a3) ~= 'string' and type(a3) ~= 'table' then
    return (into(a1, divide(a2, a3, rounding_mode(a4)), 'divide'))  -- res, a, b [, mode]
  end
  return (divide(a1, a2, rounding_mode(a3)))
end
function methods.divide(self, y, mode) return (into_self(self, divide(operand(self, y), y, rounding_mode(mode)), 'divide')) end
methods.divide_ = methods.divide

-- ---- PyTorch's names for existing ops -------------------------------------------------------------
local function alias(name, target, what)
  torch[name] = torch[target]
  methods[name] = methods[target]
  methods[name .. '_'] = methods[target]
  local entry = doc.get(torch[target], 'torch.' .. target)
  local sig = entry and entry.signature and entry.signature:gsub('^torch%.' .. target, 'torch.' .. name)
  doc.register('torch.' .. name, sig or ('torch.' .. name .. '(...)'),
    "PyTorch's name for torch." .. target .. (what and (' (' .. what .. ')') or '') .. ': the same function and method.'
      .. (entry and entry.text and (' ' .. entry.text) or ''),
    entry and entry.example and (entry.example:gsub('torch%.' .. target .. '%(', 'torch.' .. name .. '(')) or nil)
end
for name, target in pairs({ reciprocal = 'cinv', negative = 'neg', absolute = 'abs', arccos = 'acos', arcsin = 'asin',
                            arctan = 'atan', arctan2 = 'atan2', arccosh = 'acosh', arcsinh = 'asinh', arctanh = 'atanh',
                            clip = 'clamp', fix = 'trunc', multiply = 'mul', subtract = 'csub', trueDivide = 'div',
                            greater = 'gt', greaterEqual = 'ge', less = 'lt', lessEqual = 'le', notEqual = 'ne',
                            maximum = 'cmax', minimum = 'cmin' }) do
  alias(name, target)
end
alias('sgn', 'sign', 'for real dtypes sgn is sign')

--- torch.clampMin([res,] x, min): x limited below by min (torch.clamp(x, min, nil)). x:clampMin(min)
--- works in place. Differentiable.
--- Example: torch.clampMin(torch.Tensor({-1, 2}), 0)
function torch.clampMin(a1, a2, a3)
  if is_tensor(a2) then return (torch.clamp(a1, a2, a3, nil)) end
  return (torch.clamp(a1, a2, nil))
end
function methods.clampMin(self, lo) return (methods.clamp(self, lo, nil)) end
methods.clampMin_ = methods.clampMin
--- torch.clampMax([res,] x, max): x limited above by max (torch.clamp(x, nil, max)). x:clampMax(max)
--- works in place. Differentiable.
--- Example: torch.clampMax(torch.Tensor({-1, 2}), 1)
function torch.clampMax(a1, a2, a3)
  if is_tensor(a2) then return (torch.clamp(a1, a2, nil, a3)) end
  return (torch.clamp(a1, nil, a2))
end
function methods.clampMax(self, hi) return (methods.clamp(self, nil, hi)) end
methods.clampMax_ = methods.clampMax

--- torch.rsub(a, b [, alpha]): b - alpha * a (PyTorch's rsub: subtraction with the operands
--- swapped), a and b tensors (broadcast) or numbers. Returns a new tensor. Differentiable.
--- Example: torch.rsub(torch.Tensor({1, 2}), 10)
function torch.rsub(a, b, alpha)
  if alpha ~= nil then check_number('rsub', 'alpha', alpha) end
  if not is_tensor(a) and not is_tensor(b) then
    fail('rsub', 'expected tensor or number operands, one a tensor, got %s and %s', describe(a), describe(b))
  end
  -- checked here: torch.csub(b, a) named csub and listed the operands swapped
  if not is_tensor(a) and type(a) ~= 'number' or not is_tensor(b) and type(b) ~= 'number' then
    fail('rsub', 'expected tensor or number operands, got %s and %s', describe(a), describe(b))
  end
  if alpha == nil or alpha == 1 then return (torch.csub(b, a)) end
  if is_tensor(a) and is_tensor(b) then return (torch.csub(b, alpha, a)) end
  if type(a) == 'number' then return (torch.csub(b, a * alpha)) end  -- torch.mul(2, 3) is no tensor op
  return (torch.csub(b, torch.mul(a, alpha)))
end
methods.rsub = torch.rsub

--- torch.positive(x): x itself (PyTorch's positive, the unary + operator); an error for a
--- BoolTensor, as PyTorch's. x:positive() is the same.
--- Example: torch.positive(torch.Tensor({-1, 2}))
function torch.positive(x)
  check_tensor('positive', x, 1)
  if x.p.dtype == dt.bool then fail('positive', 'is not defined for a %s', x:type()) end
  return x
end
methods.positive = torch.positive

-- ---- Torch7's bitwise names ------------------------------------------------------------------------
-- Torch7 had bitand/bitor/bitxor (tensor op number) and cbitand/cbitor/cbitxor (tensor op tensor),
-- errors for floating-point tensors as here; lshift/rshift (clshift/crshift) multiplied or divided
-- floating-point tensors by 2^n, which they still do (through ldexp) while integer tensors shift.
for t7, name in pairs({ bitand = 'bitwiseAnd', cbitand = 'bitwiseAnd', bitor = 'bitwiseOr', cbitor = 'bitwiseOr',
                        bitxor = 'bitwiseXor', cbitxor = 'bitwiseXor' }) do
  torch[t7], methods[t7], methods[t7 .. '_'] = torch[name], methods[name], methods[name]
  doc.register('torch.' .. t7, 'torch.' .. t7 .. '([res,] a, b)', "Torch7's name for torch." .. name
    .. ': the bitwise operation of integer or bool tensors (broadcast) or numbers; x:' .. t7 .. '(y) works in place.',
    'torch.' .. t7 .. '(torch.LongTensor({12}), torch.LongTensor({10}))')
end
for t7, spec in pairs({ lshift = { 'bitwiseLeftShift', 1 }, clshift = { 'bitwiseLeftShift', 1 },
                        rshift = { 'bitwiseRightShift', -1 }, crshift = { 'bitwiseRightShift', -1 } }) do
  local name, sign = spec[1], spec[2]
  local fn, method = torch[name], methods[name]
  local function floating(x) return is_tensor(x) and floating_id(x.p.dtype) end  -- CUDA tensors included
  local function scaled(x, n)
    -- a string n reached the arithmetic below ("attempt to perform arithmetic on local 'n'")
    if not is_tensor(n) and type(n) ~= 'number' then fail(t7, 'n must be a number or a tensor, got %s', describe(n)) end
    return (torch.ldexp(x, is_tensor(n) and n * sign or sign * n))
  end
  torch[t7] = function(a1, a2, a3)
    if a3 ~= nil then
      if floating(a2) then return (into(a1, scaled(a2, a3), t7)) end
      return (fn(a1, a2, a3))
    end
    if floating(a1) then return (scaled(a1, a2)) end
    return (fn(a1, a2))
  end
  methods[t7] = function(self, a1, a2)
    if a2 == nil and floating(self) then return (into_self(self, scaled(operand(self, a1), a1), t7)) end
    if a2 ~= nil and floating(a1) then return (into(self, scaled(a1, a2), t7)) end
    return (method(self, a1, a2))
  end
  methods[t7 .. '_'] = methods[t7]
  doc.register('torch.' .. t7, 'torch.' .. t7 .. '([res,] x, n)', "Torch7's name for torch." .. name
    .. ': shifts the bits of an integer tensor by n (a number or a tensor); a floating-point tensor is '
    .. (sign > 0 and 'multiplied' or 'divided') .. " by 2^n, as in Torch7. x:" .. t7 .. '(n) works in place.',
    'torch.' .. t7 .. '(torch.LongTensor({16}), 2)')
end

return torch
