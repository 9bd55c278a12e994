-- Docs of the pointwise ops that lua/torch/ops.lua installs in loops from the op table
-- (core/ops.def), keyed by op name: a loop-made function has no source line of its own for a
-- `---` comment. tests/lua/test_repl_doc.lua runs every example and checks that every op has one.
local doc = require 'torch.doc'

-- name = { what it computes, example }: torch.f([res,] x); x:f() works in place.
local unary = {
  neg = { '-x', 'torch.neg(torch.Tensor({1, -2}))' },
  abs = { '|x|', 'torch.abs(torch.Tensor({-1.5, 2}))' },
  sign = { 'the sign of x: -1, 0 or 1', 'torch.sign(torch.Tensor({-3, 0, 2}))' },
  floor = { 'x rounded down', 'torch.floor(torch.Tensor({1.5, -1.5}))' },
  ceil = { 'x rounded up', 'torch.ceil(torch.Tensor({1.5, -1.5}))' },
  round = { 'x rounded to the nearest integer, halves away from zero', 'torch.round(torch.Tensor({0.5, 1.4}))' },
  trunc = { 'x rounded toward zero', 'torch.trunc(torch.Tensor({1.7, -1.7}))' },
  frac = { 'the fractional part x - trunc(x)', 'torch.frac(torch.Tensor({1.25, -1.25}))' },
  square = { 'x * x', 'torch.square(torch.Tensor({2, -3}))' },
  relu = { 'max(x, 0)', 'torch.relu(torch.Tensor({-1, 2}))' },
  exp = { 'e^x', 'torch.exp(torch.zeros(2))' },
  expm1 = { 'e^x - 1, accurate near 0', 'torch.expm1(torch.Tensor({1e-8}))' },
  log = { 'the natural logarithm of x', 'torch.log(torch.Tensor({1, math.exp(1)}))' },
  log1p = { 'log(1 + x), accurate near 0', 'torch.log1p(torch.Tensor({1e-8}))' },
  log2 = { 'the base-2 logarithm of x', 'torch.log2(torch.Tensor({1, 8}))' },
  log10 = { 'the base-10 logarithm of x', 'torch.log10(torch.Tensor({1, 100}))' },
  sqrt = { 'the square root of x', 'torch.sqrt(torch.Tensor({4, 9}))' },
  rsqrt = { '1 / sqrt(x)', 'torch.rsqrt(torch.Tensor({4, 16}))' },
  cinv = { '1 / x', 'torch.cinv(torch.Tensor({2, 4}))' },
  sin = { 'the sine of x (radians)', 'torch.sin(torch.Tensor({0, math.pi / 2}))' },
  cos = { 'the cosine of x (radians)', 'torch.cos(torch.Tensor({0, math.pi}))' },
  tan = { 'the tangent of x (radians)', 'torch.tan(torch.Tensor({0, math.pi / 4}))' },
  asin = { 'the arc sine of x', 'torch.asin(torch.Tensor({0, 1}))' },
  acos = { 'the arc cosine of x', 'torch.acos(torch.Tensor({1, 0}))' },
  atan = { 'the arc tangent of x', 'torch.atan(torch.Tensor({0, 1}))' },
  sinh = { 'the hyperbolic sine of x', 'torch.sinh(torch.Tensor({0, 1}))' },
  cosh = { 'the hyperbolic cosine of x', 'torch.cosh(torch.Tensor({0, 1}))' },
  tanh = { 'the hyperbolic tangent of x', 'torch.tanh(torch.Tensor({-1, 0, 1}))' },
  sigmoid = { '1 / (1 + e^-x)', 'torch.sigmoid(torch.Tensor({-1, 0, 1}))' },
  erf = { 'the error function of x', 'torch.erf(torch.Tensor({0, 1}))' },
  erfc = { '1 - erf(x)', 'torch.erfc(torch.Tensor({0, 1}))' },
  erfinv = { 'the inverse error function of x (x in (-1, 1))', 'torch.erfinv(torch.Tensor({0, 0.5}))' },
  lgamma = { 'log |Gamma(x)|', 'torch.lgamma(torch.Tensor({1, 5}))' },
  digamma = { "the digamma function of x (Gamma'(x) / Gamma(x))", 'torch.digamma(torch.Tensor({1, 2}))' },
  trigamma = { 'the trigamma function of x (the derivative of digamma)', 'torch.trigamma(torch.Tensor({1, 2}))' },
  acosh = { 'the inverse hyperbolic cosine of x (NaN below 1; arccosh is the same)', 'torch.acosh(torch.Tensor({1, 2}))' },
  asinh = { 'the inverse hyperbolic sine of x (arcsinh is the same)', 'torch.asinh(torch.Tensor({0, 1}))' },
  atanh = { 'the inverse hyperbolic tangent of x (+-inf at +-1, NaN beyond; arctanh is the same)', 'torch.atanh(torch.Tensor({0, 0.5}))' },
  exp2 = { '2^x', 'torch.exp2(torch.Tensor({3, -1}))' },
  sinc = { 'the normalized sinc sin(pi x) / (pi x), 1 at x = 0', 'torch.sinc(torch.Tensor({0, 0.5}))' },
  deg2rad = { 'x degrees in radians (x * pi / 180)', 'torch.deg2rad(torch.Tensor({180, 90}))' },
  rad2deg = { 'x radians in degrees (x * 180 / pi)', 'torch.rad2deg(torch.Tensor({math.pi}))' },
  logit = { 'log(x / (1 - x)), the inverse of sigmoid; torch.logit(x, eps) first clamps x to [eps, 1 - eps] (its gradient is 0 outside)', 'torch.logit(torch.Tensor({0.25, 0.5}))' },
  i0 = { 'the modified Bessel function of the first kind of order 0', 'torch.i0(torch.Tensor({0, 1}))' },
  i0e = { 'the exponentially scaled modified Bessel function of order 0, e^-|x| i0(x)', 'torch.i0e(torch.Tensor({0, 100}))' },
  i1 = { 'the modified Bessel function of the first kind of order 1', 'torch.i1(torch.Tensor({0, 1}))' },
  i1e = { 'the exponentially scaled modified Bessel function of order 1, e^-|x| i1(x)', 'torch.i1e(torch.Tensor({1, 100}))' },
  bitwiseNot = { 'the bitwise complement ~x of an integer tensor (logical not of a BoolTensor; floating-point tensors are an error)', 'torch.bitwiseNot(torch.LongTensor({0, 5, -1}))' },
}
local unary_float = { exp = 1, expm1 = 1, log = 1, log1p = 1, log2 = 1, log10 = 1, sqrt = 1, rsqrt = 1,
  cinv = 1, sin = 1, cos = 1, tan = 1, asin = 1, acos = 1, atan = 1, sinh = 1, cosh = 1, tanh = 1,
  sigmoid = 1, erf = 1, erfc = 1, erfinv = 1, lgamma = 1, digamma = 1, trigamma = 1,
  acosh = 1, asinh = 1, atanh = 1, exp2 = 1, sinc = 1, deg2rad = 1, rad2deg = 1, logit = 1, i0 = 1, i0e = 1,
  i1 = 1, i1e = 1 }

-- name = { what it computes, example }: torch.f([res,] a, b), a and b tensors (broadcast) or numbers.
local binary = {
  mul = { 'a * b elementwise (cmul is the same; a tensor product is torch.mm or the * operator)', 'torch.mul(torch.Tensor({1, 2}), 3)' },
  div = { 'a / b elementwise, computed in a floating-point type (cdiv is the same)', 'torch.div(torch.Tensor({1, 2}), 4)' },
  pow = { 'a ^ b elementwise (cpow is the same)', 'torch.pow(torch.Tensor({2, 3}), 2)' },
  atan2 = { 'the angle of the point (b, a): atan(a / b) in the right quadrant', 'torch.atan2(torch.Tensor({1}), torch.Tensor({-1}))' },
  fmod = { "C's fmod: the remainder of a / b with a's sign (mod, cmod and cfmod are the same)", 'torch.fmod(torch.Tensor({-3, 3}), 2)' },
  remainder = { "the remainder of a / b with b's sign, as Lua's % (cremainder is the same; the % operator uses it)", 'torch.remainder(torch.Tensor({-3, 3}), 2)' },
  cmax = { 'the larger of a and b, elementwise (torch.max(a, b) with two tensors is the same)', 'torch.cmax(torch.Tensor({1, 5}), 3)' },
  cmin = { 'the smaller of a and b, elementwise (torch.min(a, b) with two tensors is the same)', 'torch.cmin(torch.Tensor({1, 5}), 3)' },
  floorDivide = { 'a // b: the quotient rounded down (floor division as in Python, from the exact remainder for floats)', 'torch.floorDivide(torch.Tensor({7, -7}), 2)' },
  reluBackward = { "relu's gradient: a (the output's gradient) where b (relu's output) is positive, else 0, in one pass (not differentiable)", 'torch.reluBackward(torch.Tensor({1, 2}), torch.Tensor({0, 3}))' },
  hypot = { 'sqrt(a^2 + b^2) elementwise, without overflow or underflow in the squares', 'torch.hypot(torch.Tensor({3, 5}), torch.Tensor({4, 12}))' },
  xlogy = { 'a * log(b) elementwise, 0 where a == 0 (even where b == 0) unless b is NaN', 'torch.xlogy(torch.Tensor({0, 2}), torch.Tensor({0, math.exp(1)}))' },
  logaddexp = { 'log(e^a + e^b) elementwise, without overflow', 'torch.logaddexp(torch.Tensor({1000, -1}), torch.Tensor({1000, -2}))' },
  logaddexp2 = { 'log2(2^a + 2^b) elementwise, without overflow', 'torch.logaddexp2(torch.Tensor({3, 10}), torch.Tensor({3, 0}))' },
  copysign = { 'the magnitude of a with the sign of b (its sign bit: -0 and negative NaNs count as negative); computed in a floating-point type', 'torch.copysign(torch.Tensor({1, 2}), torch.Tensor({-0.0, 3}))' },
  fmax = { 'the larger of a and b, ignoring NaN (NaN only where both are; cmax and maximum propagate NaN)', 'torch.fmax(torch.Tensor({0/0, 1}), torch.Tensor({2, 0/0}))' },
  fmin = { 'the smaller of a and b, ignoring NaN (NaN only where both are; cmin and minimum propagate NaN)', 'torch.fmin(torch.Tensor({0/0, 1}), torch.Tensor({2, 0/0}))' },
  heaviside = { 'the step function: 0 where a < 0, b where a == 0, 1 where a > 0 (a NaN a gives 0; not differentiable)', 'torch.heaviside(torch.Tensor({-2, 0, 3}), 0.5)' },
  nextafter = { 'the next representable number after a in the direction of b (FloatTensor and DoubleTensor; not differentiable)', 'torch.nextafter(torch.DoubleTensor({1}), 2) - 1' },
  bitwiseAnd = { 'a & b elementwise for integer and bool tensors (logical and of BoolTensors; Torch7: bitand, cbitand)', 'torch.bitwiseAnd(torch.LongTensor({12, 10}), 6)' },
  bitwiseOr = { 'a | b elementwise for integer and bool tensors (Torch7: bitor, cbitor)', 'torch.bitwiseOr(torch.LongTensor({12, 10}), 1)' },
  bitwiseXor = { 'a ~ b (exclusive or) elementwise for integer and bool tensors (Torch7: bitxor, cbitxor)', 'torch.bitwiseXor(torch.LongTensor({12, 10}), 6)' },
  bitwiseLeftShift = { 'a << b for integer tensors, wrapping around; shifts by a negative amount or the width or more give 0 (Torch7: lshift, clshift)', 'torch.bitwiseLeftShift(torch.LongTensor({1, 3}), 4)' },
  bitwiseRightShift = { 'a >> b for integer tensors, keeping the sign; shifts by a negative amount or the width or more give 0 or -1 (Torch7: rshift, crshift)', 'torch.bitwiseRightShift(torch.LongTensor({256, -256}), 4)' },
  gcd = { 'the greatest common divisor of |a| and |b| for integer tensors (gcd(0, 0) = 0)', 'torch.gcd(torch.LongTensor({12, -18, 0}), torch.LongTensor({18, 12, 5}))' },
  lcm = { 'the least common multiple of |a| and |b| for integer tensors (0 if either is 0)', 'torch.lcm(torch.LongTensor({4, -6, 0}), torch.LongTensor({6, 4, 5}))' },
}
local compare = {
  lt = 'a < b', le = 'a <= b', gt = 'a > b', ge = 'a >= b', eq = 'a == b', ne = 'a ~= b',
}
local aliases = { cmul = 'mul', cdiv = 'div', cpow = 'pow', cfmod = 'fmod', cremainder = 'remainder', mod = 'fmod', cmod = 'fmod' }

local calls = ' torch.%s(x) returns a new tensor, torch.%s(res, x) writes into res, and x:%s() works in place.'
for name, d in pairs(unary) do
  local float = unary_float[name] and ' Integer tensors give a floating-point result.' or ''
  doc.register('torch.' .. name, 'torch.' .. name .. '([res,] x)',
    'Elementwise ' .. d[1] .. '.' .. float .. calls:format(name, name, name), d[2])
end

local bcalls = ' a and b are tensors (broadcast against each other) or numbers; torch.%s(res, a, b) writes'
  .. ' into res, and x:%s(y) works in place on x.'
for name, d in pairs(binary) do
  doc.register('torch.' .. name, 'torch.' .. name .. '([res,] a, b)', d[1]:sub(1, 1):upper() .. d[1]:sub(2) .. '.'
    .. bcalls:format(name, name), d[2])
end
for name, what in pairs(compare) do
  doc.register('torch.' .. name, 'torch.' .. name .. '([res,] a, b)', 'The mask ' .. what
    .. ' elementwise, a ByteTensor of 0s and 1s; a and b are tensors (broadcast) or numbers. a:' .. name
    .. '(b) returns a new mask; res:' .. name .. '(a, b) fills res.', 'torch.' .. name .. '(torch.Tensor({1, 2, 3}), 2)')
end
for alias, name in pairs(aliases) do
  local d = binary[name]
  doc.register('torch.' .. alias, 'torch.' .. alias .. '([res,] a, b)', "Torch7's name for torch." .. name .. ': '
    .. d[1]:gsub(' %([^()]*%)$', '') .. '.' .. bcalls:format(alias, alias), (d[2]:gsub('torch%.' .. name .. '%(', 'torch.' .. alias .. '(')))
end

doc.register('torch.add', 'torch.add([res,] a, [value,] b)', 'a + value * b elementwise (value defaults to 1); a and b'
  .. ' are tensors (broadcast) or numbers. x:add(y) and x:add(value, y) work in place; the + operator uses it.',
  'torch.add(torch.ones(2), 2, torch.Tensor({1, 2}))')
doc.register('torch.csub', 'torch.csub([res,] a, [value,] b)', 'a - value * b elementwise (value defaults to 1); a and'
  .. ' b are tensors (broadcast) or numbers. x:csub(y) works in place; the - operator uses it.',
  'torch.csub(torch.ones(2), torch.Tensor({1, 2}))')
doc.register('torch.addcmul', 'torch.addcmul([res,] x, [value,] t1, t2)', 'x + value * t1 * t2 elementwise (value'
  .. ' defaults to 1). x:addcmul(value, t1, t2) works in place.',
  'torch.addcmul(torch.zeros(2), 0.5, torch.ones(2), torch.Tensor({2, 4}))')
doc.register('torch.addcdiv', 'torch.addcdiv([res,] x, [value,] t1, t2)', 'x + value * t1 / t2 elementwise (value'
  .. ' defaults to 1). x:addcdiv(value, t1, t2) works in place.',
  'torch.addcdiv(torch.zeros(2), 2, torch.ones(2), torch.Tensor({2, 4}))')
doc.register('torch.clamp', 'torch.clamp([res,] x, min, max)', 'x limited to [min, max] elementwise; either bound may be'
  .. ' nil (no limit on that side). x:clamp(min, max) works in place.', 'torch.clamp(torch.Tensor({-1, 0.5, 2}), 0, 1)')
doc.register('torch.lerp', 'torch.lerp([res,] a, b, weight)', 'Linear interpolation a + weight * (b - a), weight a'
  .. ' number or a tensor. a:lerp(b, weight) works in place.', 'torch.lerp(torch.zeros(2), torch.ones(2), 0.25)')

-- The names documented here, for the coverage test.
return { unary = unary, binary = binary, compare = compare, aliases = aliases,
         others = { 'add', 'csub', 'addcmul', 'addcdiv', 'clamp', 'lerp' } }
