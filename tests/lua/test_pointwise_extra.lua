-- PyTorch's pointwise math added to the op table (acosh ... i1e, hypot ... nextafter, the bitwise
-- and integer ops, polygamma) and the composites of lua/torch/pointwise_math.lua: values against
-- closed forms, Lua math and independent numerical references (quadrature for the Bessel
-- functions, a series for polygamma) in f64 over grids with NaN, +-inf, +-0, tiny and huge
-- values, then every float dtype with tolerances for its precision, and the integer dtypes.
-- Gradients, errors, aliases and CUDA are in test_pointwise_extra_grad.lua.
local tester = torch.Tester()
local tests = torch.TestSuite()

local nan, inf, pi = 0 / 0, math.huge, math.pi
local FLOATS = { 'torch.DoubleTensor', 'torch.FloatTensor', 'torch.HalfTensor', 'torch.BFloat16Tensor' }
local RTOL = { ['torch.DoubleTensor'] = 1e-12, ['torch.FloatTensor'] = 2e-6, ['torch.HalfTensor'] = 2e-3,
               ['torch.BFloat16Tensor'] = 1.6e-2 }
local ATOL = { ['torch.DoubleTensor'] = 1e-300, ['torch.FloatTensor'] = 1e-6, ['torch.HalfTensor'] = 1e-3,
               ['torch.BFloat16Tensor'] = 1e-2 }

local function vals(t) return t:double():contiguous():view(t:nElement()):totable() end
local function isnan(v) return v ~= v end
local function fmt(v) return string.format('%.17g', v) end
-- got matches want (already rounded to the dtype): both NaN, the same infinity, or within tolerance.
local function near(got, want, rtol, atol)
  if isnan(want) then return isnan(got) end
  if want == inf or want == -inf then return got == want end
  return math.abs(got - want) <= rtol * math.abs(want) + atol
end
-- Rounds doubles to dtype tname (overflow to inf included) and back.
local function rounded(list, tname) return vals(torch.DoubleTensor(list):type(tname)) end

-- Checks torch[name](x) (and x:name() in place) against ref on the grid, in every float dtype:
-- the reference sees the input as rounded to the dtype, and its result is rounded too.
local function check_unary(name, ref, grid, tol_scale)
  for _, tname in ipairs(FLOATS) do
    local x = torch.DoubleTensor(grid):type(tname)
    local xin = vals(x)
    local want = {}
    for i, v in ipairs(xin) do want[i] = ref(v) end
    want = rounded(want, tname)
    local got = torch[name](x)
    tester:asserteq(got:type(), tname, name .. ' keeps ' .. tname)
    local inplace = x:clone()
    inplace[name](inplace)
    local g, gi = vals(got), vals(inplace)
    local s = tol_scale or 1
    for i = 1, #xin do
      tester:assert(near(g[i], want[i], RTOL[tname] * s, ATOL[tname] * s),
        string.format('%s %s(%s) = %s, expected %s', tname, name, fmt(xin[i]), fmt(g[i]), fmt(want[i])))
      tester:assert(near(gi[i], want[i], RTOL[tname] * s, ATOL[tname] * s), name .. ' in place ' .. tname)
    end
  end
end

-- Binary: every pair of the two grids (broadcast as a column against a row), in every float
-- dtype, plus the number forms in f64.
local function check_binary(name, ref, ga, gb, tol_scale)
  for _, tname in ipairs(FLOATS) do
    local a = torch.DoubleTensor(ga):type(tname):view(#ga, 1)
    local b = torch.DoubleTensor(gb):type(tname)
    local got = torch[name](a, b)
    tester:assert(got:isSize(torch.LongStorage({ #ga, #gb })), name .. ' broadcasts')
    local av, bv = vals(a), vals(b)
    local want = {}
    for i = 1, #av do for j = 1, #bv do want[#want + 1] = ref(av[i], bv[j]) end end
    want = rounded(want, tname)
    local g = vals(got)
    local s = tol_scale or 1
    for k = 1, #g do
      local i, j = math.floor((k - 1) / #bv) + 1, (k - 1) % #bv + 1
      tester:assert(near(g[k], want[k], RTOL[tname] * s, ATOL[tname] * s),
        string.format('%s %s(%s, %s) = %s, expected %s', tname, name, fmt(av[i]), fmt(bv[j]), fmt(g[k]), fmt(want[k])))
    end
  end
  local a, b = torch.DoubleTensor(ga), torch.DoubleTensor(gb)
  for j = 1, #gb do  -- tensor op number, number op tensor
    local g1, g2 = vals(torch[name](a, gb[j])), vals(torch[name](gb[j], a))
    for i = 1, #ga do
      tester:assert(near(g1[i], ref(ga[i], gb[j]), 1e-12, 1e-300), name .. ' with a number second ' .. fmt(ga[i]) .. ', ' .. fmt(gb[j]))
      tester:assert(near(g2[i], ref(gb[j], ga[i]), 1e-12, 1e-300), name .. ' with a number first ' .. fmt(gb[j]) .. ', ' .. fmt(ga[i]))
    end
  end
  local x = a:clone()  -- in place
  x[name](x, b:narrow(1, 1, 1):expand(#ga))
  local gx = vals(x)
  for i = 1, #ga do tester:assert(near(gx[i], ref(ga[i], gb[1]), 1e-12, 1e-300), name .. ' in place') end
end

local GRID = { nan, inf, -inf, 0, -0.0, 1e-300, -1e-300, 1e-30, 1e-5, 0.5, -0.5, 1, -1, 1.0000001, 2.5, -3.7, 20, -20,
               1e10, 1e300, -1e300 }

-- ---- inverse hyperbolics, exp2, sinc, angles, logit ------------------------------------------------
local function acosh(x)
  if x ~= x or x < 1 then return nan end
  if x > 1e8 then return math.log(2) + math.log(x) end
  return math.log(x + math.sqrt((x - 1) * (x + 1)))
end
local function asinh(x)
  local ax = math.abs(x)
  local r
  if ax ~= ax then return nan end
  if ax > 1e8 then r = math.log(2) + math.log(ax)
  elseif ax < 1e-4 then r = ax - ax ^ 3 / 6
  else r = math.log(ax + math.sqrt(ax * ax + 1)) end
  return (x < 0 or 1 / x < 0) and -r or r
end
local function atanh(x)
  local ax = math.abs(x)
  if ax ~= ax or ax > 1 then return nan end
  if ax == 1 then return x * inf end
  if ax < 1e-4 then return x + x ^ 3 / 3 end
  return 0.5 * math.log((1 + x) / (1 - x))
end
function tests.inverseHyperbolic()
  check_unary('acosh', acosh, GRID)
  check_unary('asinh', asinh, GRID)
  check_unary('atanh', atanh, { nan, inf, -inf, 0, -0.0, 1e-300, 1e-30, 1e-5, 0.5, -0.5, 0.999, 1, -1, 1.5, -20 })
  -- round trips far from the grid
  local x = torch.linspace(-5, 5, 101):double()
  tester:assertlt((torch.sinh(torch.asinh(x)) - x):abs():max(), 1e-13)
  tester:assertlt((torch.tanh(torch.atanh(x / 6)) - x / 6):abs():max(), 1e-15)
  local y = torch.linspace(1, 50, 99):double()
  tester:assertlt(((torch.cosh(torch.acosh(y)) - y):cdiv(y)):abs():max(), 1e-14)
end

function tests.exp2SincAngles()
  check_unary('exp2', function(x) return 2 ^ x end, { nan, inf, -inf, 0, -0.0, 1e-300, 0.5, -0.5, 1, 10, -10, 2.5, -3.7,
                                                       20, 1023, 1024, -1074, -1075, 1e300 })
  tester:asserteq(torch.exp2(torch.DoubleTensor({ -1074 }))[1], 2 ^ -1074, 'exp2 reaches the smallest subnormal')
  check_unary('sinc', function(x)
    if x == 0 then return 1 end
    return math.sin(pi * x) / (pi * x)
  end, { nan, inf, -inf, 0, -0.0, 1e-300, 1e-30, 1e-5, 0.5, -0.5, 1, -1, 2.5, -3.7 })
  check_unary('deg2rad', function(x) return x * (pi / 180) end, GRID)
  check_unary('rad2deg', function(x) return x * (180 / pi) end, { nan, inf, -inf, 0, -0.0, 1e-300, 0.5, -3.7, pi, 1e10 })
  tester:asserteq(torch.deg2rad(torch.DoubleTensor({ 180 }))[1], pi, 'as PyTorch, exactly pi')
  tester:asserteq(torch.rad2deg(torch.DoubleTensor({ pi }))[1], 180, 'as PyTorch, exactly 180')
end

function tests.logit()
  local function logit(x) return math.log(x / (1 - x)) end
  check_unary('logit', logit, { nan, inf, -inf, 0, -0.0, 1e-300, 1e-30, 1e-5, 0.25, 0.5, 0.75, 0.99999, 1, 1.5, -0.5 })
  -- eps clamps to [eps, 1 - eps] first (PyTorch's logit(x, eps))
  local x = torch.DoubleTensor({ -1, 0, 0.01, 0.3, 0.999, 1, 2, nan })
  local r = torch.logit(x, 0.05)
  local want = { logit(0.05), logit(0.05), logit(0.05), logit(0.3), logit(0.95), logit(0.95), logit(0.95), nan }
  for i = 1, 8 do tester:assert(near(r[i], want[i], 1e-14, 0), 'logit eps ' .. i) end
  local res = torch.Tensor()
  torch.logit(res, x, 0.05)
  tester:asserteq(res:type(), 'torch.FloatTensor')
  tester:assertlt(math.abs(res[2] - want[2]), 1e-6, 'logit(res, x, eps)')
  local y = x:clone()
  y:logit(0.05)
  tester:assert(near(vals(y)[4], want[4], 1e-14, 0), 'x:logit(eps) in place')
  tester:asserteq(torch.logit(torch.LongTensor({ 0, 1 }), 0.25):type(), torch.getdefaulttensortype(), 'integers give floats')
  local u = torch.logit(x, -1)  -- a negative eps clamps nothing (PyTorch)
  tester:asserteq(u[1] ~= u[1] and u[2] == -inf and u[6] == inf, true, 'negative eps')
end

-- ---- Bessel functions ------------------------------------------------------------------------------
-- I_nu(x) e^-|x| = (1/pi) int_0^pi e^(x cos t - |x|) cos(nu t) dt by the trapezoidal rule, which
-- converges geometrically for this periodic, analytic integrand. Below |x| = 0.01, where the
-- quadrature of I1 cancels to 1e-17 absolute, the first Taylor terms instead.
local function bessel_ref(nu, x, scaled)
  if x ~= x then return nan end
  if x == inf or x == -inf then
    if scaled then return nu == 1 and (x > 0 and 0 or -0.0) or 0 end
    return nu == 1 and x or inf
  end
  if math.abs(x) < 0.01 then
    local r = nu == 0 and 1 + x * x / 4 + x ^ 4 / 64 or x / 2 + x ^ 3 / 16 + x ^ 5 / 384
    return scaled and r * math.exp(-math.abs(x)) or r
  end
  local n, ax, s = 4000, math.abs(x), 0
  for k = 0, n do
    local t = pi * k / n
    local w = (k == 0 or k == n) and 0.5 or 1
    s = s + w * math.exp(x * math.cos(t) - ax) * math.cos(nu * t)
  end
  s = s / n
  if scaled then return s end
  if ax > 700 then return (s * math.exp(ax / 2)) * math.exp(ax / 2) end
  return s * math.exp(ax)
end
local BESSEL_GRID = { nan, inf, -inf, 0, -0.0, 1e-300, 1e-30, 1e-5, 0.5, -0.5, 1, -1, 2.5, -3.7, 20, -20, 29.9, 30.1, -45,
                      100, 700, 713, 714 }
function tests.bessel()
  check_unary('i0', function(x) return bessel_ref(0, x, false) end, BESSEL_GRID)
  check_unary('i0e', function(x) return bessel_ref(0, x, true) end, BESSEL_GRID)
  check_unary('i1', function(x) return bessel_ref(1, x, false) end, BESSEL_GRID)
  check_unary('i1e', function(x) return bessel_ref(1, x, true) end, BESSEL_GRID)
  -- known values (Abramowitz & Stegun table 9.8)
  local t = torch.i0(torch.DoubleTensor({ 1, 2 }))
  tester:assertlt(math.abs(t[1] - 1.266065877752008), 1e-14)
  tester:assertlt(math.abs(t[2] - 2.279585302336067), 1e-14)
  tester:assertlt(math.abs(torch.i1(torch.DoubleTensor({ 1 }))[1] - 0.565159103992485), 1e-14)
  tester:asserteq(torch.i0e(torch.DoubleTensor({ 1e300 }))[1] > 0, true, 'i0e of huge x is positive (no overflow)')
end

-- ---- polygamma ---------------------------------------------------------------------------------------
-- (-1)^(n+1) n! sum_k (x + k)^-(n+1): 2000 terms, then Euler-Maclaurin for the tail.
local function polygamma_ref(n, x)
  local s, sum, K = n + 1, 0, 2000
  for k = 0, K - 1 do sum = sum + (x + k) ^ -s end
  local y = x + K
  sum = sum + y ^ (1 - s) / (s - 1) + 0.5 * y ^ -s + s * y ^ (-s - 1) / 12
  local fact = 1
  for i = 2, n do fact = fact * i end
  return (n % 2 == 1 and 1 or -1) * fact * sum
end
function tests.polygamma()
  local xs = { 0.25, 0.5, 1, 2.5, 7, 30, -1.5, -0.3 }
  for _, n in ipairs({ 2, 3, 4, 6 }) do
    local got = torch.polygamma(n, torch.DoubleTensor(xs))
    for i, x in ipairs(xs) do
      local want = polygamma_ref(n, x)
      tester:assert(near(got[i], want, 1e-11, 0), string.format('polygamma(%d, %g) = %.17g, expected %.17g', n, x, got[i], want))
    end
  end
  local x = torch.DoubleTensor({ 0.3, 1, 4.5 })
  tester:assertTensorEq(torch.polygamma(0, x), torch.digamma(x), 0, 'polygamma(0) is digamma')
  tester:assertTensorEq(torch.polygamma(1, x), torch.trigamma(x), 0, 'polygamma(1) is trigamma')
  local special = torch.polygamma(3, torch.DoubleTensor({ 0, -2, inf, nan }))
  tester:asserteq(special[1], inf, 'pole at 0')
  tester:asserteq(special[2], inf, 'pole at -2')
  tester:asserteq(special[3], 0, '0 at inf')
  tester:assert(isnan(special[4]), 'NaN')
  for _, tname in ipairs(FLOATS) do
    local t = torch.DoubleTensor({ 0.5, 2 }):type(tname)
    local g = torch.polygamma(2, t)
    tester:asserteq(g:type(), tname)
    tester:assert(near(g[1], polygamma_ref(2, 0.5), RTOL[tname] * 5, ATOL[tname]), tname .. ' polygamma')
  end
  tester:asserteq(torch.polygamma(2, torch.LongTensor({ 1 })):type(), torch.getdefaulttensortype())
  local y = torch.DoubleTensor({ 0.5, 2 })
  y:polygamma(2)
  tester:asserteq(y[2], torch.polygamma(2, torch.DoubleTensor({ 2 }))[1], 'x:polygamma(n) in place')
  local res = torch.DoubleTensor()
  torch.polygamma(res, 3, torch.DoubleTensor({ 1 }))
  tester:assert(near(res[1], math.pi ^ 4 / 15, 1e-13, 0), 'polygamma(3, 1) = pi^4 / 15 into res')
end

-- ---- binary float ops ------------------------------------------------------------------------------
local BGRID = { nan, inf, -inf, 0, -0.0, 1e-300, 0.5, -0.5, 2, -3.7, 1e10, 1e300 }
local BGRID_NONAN = { inf, -inf, 0, -0.0, 1e-300, 0.5, -0.5, 2, -3.7, 1e10, 1e300 }
function tests.hypot()
  check_binary('hypot', function(a, b)
    if a == inf or a == -inf or b == inf or b == -inf then return inf end
    if a ~= a or b ~= b then return nan end
    local m = math.max(math.abs(a), math.abs(b))
    if m == 0 then return 0 end
    return m * math.sqrt((a / m) ^ 2 + (b / m) ^ 2)
  end, BGRID, BGRID)
  tester:asserteq(torch.hypot(torch.DoubleTensor({ 3e300 }), 4e300)[1], 5e300, 'no overflow')
  tester:asserteq(torch.hypot(torch.DoubleTensor({ 3e-300 }), 4e-300)[1], 5e-300, 'no underflow')
end

local function xlogy(x, y)
  if y ~= y then return nan end
  if x == 0 then return 0 end
  return x * math.log(y)
end
function tests.xlogy()
  check_binary('xlogy', xlogy, BGRID, { nan, inf, 0, -0.0, 1e-300, 0.5, 2, -1, 1e300 })
  local r = torch.xlogy(torch.DoubleTensor({ 0, 0, 0, 3 }), torch.DoubleTensor({ 0, nan, -1, 0 }))
  tester:asserteq(r[1], 0, 'xlogy(0, 0) = 0')
  tester:assert(isnan(r[2]), 'xlogy(0, NaN) = NaN')
  tester:asserteq(r[3], 0, 'xlogy(0, -1) = 0')
  tester:asserteq(r[4], -inf, 'xlogy(3, 0) = -inf')
end

local function logaddexp(a, b)
  if a ~= a or b ~= b then return nan end
  if a == b and (a == inf or a == -inf) then return a end
  local m = math.max(a, b)
  local d = -math.abs(a - b)
  if d < -40 then return m + math.exp(d) end  -- log1p of a tiny number
  return m + math.log(1 + math.exp(d))
end
function tests.logaddexp()
  local G = { nan, inf, -inf, 0, -0.0, 1e-300, 0.5, -0.5, 2, -3.7, 50, -50, 800, 1e300, -1e300 }
  check_binary('logaddexp', logaddexp, G, G, 2)
  check_binary('logaddexp2', function(a, b)
    if a ~= a or b ~= b then return nan end
    if a == b and (a == inf or a == -inf) then return a end
    local m = math.max(a, b)
    local d = -math.abs(a - b)
    if d < -60 then return m + 2 ^ d / math.log(2) end
    return m + math.log(1 + 2 ^ d) / math.log(2)
  end, G, G, 2)
  tester:assertlt(math.abs(torch.logaddexp(torch.DoubleTensor({ 1000 }), 1000)[1] - (1000 + math.log(2))), 1e-12)
  tester:asserteq(torch.logaddexp(torch.DoubleTensor({ 1 }), 1e308)[1], 1e308, 'PyTorch 1.13 gives inf here')
end

local function signbit(v) return v < 0 or (v == 0 and 1 / v < 0) end
function tests.copysign()
  check_binary('copysign', function(a, b)
    local m = math.abs(a)
    return signbit(b) and -m or m
  end, BGRID_NONAN, { inf, -inf, 0, -0.0, 1e-300, -1e-300, 0.5, -2 })  -- NaN signs: test_pointwise_extra_grad.lua
  local r = torch.copysign(torch.DoubleTensor({ 1, 1 }), torch.DoubleTensor({ 0, 0 }):neg())
  tester:asserteq(1 / r[1], 1 / -1, 'sign of -0')
  tester:asserteq(torch.copysign(torch.LongTensor({ 3 }), -1):type(), torch.getdefaulttensortype(), 'integers give floats')
  tester:assert(isnan(torch.copysign(torch.DoubleTensor({ nan }), 1)[1]), 'NaN magnitude stays NaN')
end

function tests.nextafter()
  local x = torch.DoubleTensor({ 1, 1, 0, 0, -0.0, inf, 1, nan, 1 })
  local y = torch.DoubleTensor({ 2, 0, 1, -1, 1, 0, 1, 1, nan })
  local r = torch.nextafter(x, y)
  local want = { 1 + 2 ^ -52, 1 - 2 ^ -53, 2 ^ -1074, -2 ^ -1074, 2 ^ -1074, 1.7976931348623157e308, 1, nan, nan }
  for i = 1, #want do
    tester:assert(near(r[i], want[i], 0, 0), string.format('nextafter %d: %.17g vs %.17g', i, r[i], want[i]))
  end
  local f = torch.nextafter(torch.FloatTensor({ 1, 1 }), torch.FloatTensor({ 2, 0 }))
  tester:asserteq(f[1], 1 + 2 ^ -23, 'f32 step above 1')
  tester:asserteq(f[2], 1 - 2 ^ -24, 'f32 step below 1')
  tester:asserteq(torch.nextafter(torch.FloatTensor({ 1 }), 2):type(), 'torch.FloatTensor')
end

-- ---- extrema and heaviside ----------------------------------------------------------------------
function tests.extremaAndNaN()
  local G = { nan, inf, -inf, 0, 1, -2.5, 3 }
  local function fmax(a, b) if a ~= a then return b end if b ~= b then return a end return math.max(a, b) end
  local function fmin(a, b) if a ~= a then return b end if b ~= b then return a end return math.min(a, b) end
  local function maximum(a, b) if a ~= a or b ~= b then return nan end return math.max(a, b) end
  local function minimum(a, b) if a ~= a or b ~= b then return nan end return math.min(a, b) end
  check_binary('fmax', fmax, G, G)
  check_binary('fmin', fmin, G, G)
  -- Torch7's cmax/cmin here propagate NaN: they are PyTorch's maximum/minimum, and are aliased so
  check_binary('maximum', maximum, G, G)
  check_binary('minimum', minimum, G, G)
  tester:assert(torch.maximum == torch.cmax and torch.minimum == torch.cmin, 'maximum/minimum are cmax/cmin')
  for _, tname in ipairs({ 'torch.LongTensor', 'torch.IntTensor', 'torch.ByteTensor' }) do
    local a, b = torch.LongTensor({ 1, 7, 3 }):type(tname), torch.LongTensor({ 4, 2, 3 }):type(tname)
    tester:assertTensorEq(torch.fmax(a, b):long(), torch.LongTensor({ 4, 7, 3 }), 0, tname .. ' fmax')
    tester:assertTensorEq(torch.fmin(a, b):long(), torch.LongTensor({ 1, 2, 3 }), 0, tname .. ' fmin')
    tester:asserteq(torch.fmax(a, b):type(), tname)
  end
  tester:asserteq(torch.fmax(torch.IntTensor({ 1 }), torch.DoubleTensor({ 2.5 }))[1], 2.5, 'promotes')
end

function tests.heaviside()
  check_binary('heaviside', function(x, v)
    if x == 0 then return v end
    return x > 0 and 1 or 0
  end, { nan, inf, -inf, 0, -0.0, 1e-300, -1e-300, 2 }, { nan, 0, 0.5, -3 })
  local r = torch.heaviside(torch.LongTensor({ -3, 0, 5 }), torch.LongTensor({ 7 }))
  tester:assertTensorEq(r, torch.LongTensor({ 0, 7, 1 }), 0, 'integer heaviside')
end

-- Review regressions: ldexp in f16/bf16 formed 2^e in the dtype (2^16 is inf in f16, so
-- ldexp(0.1, 16) was inf, not 6553.6); the composites' in-place and res forms wrote float results
-- into integer tensors, truncating (long:divide(2) gave 3 where PyTorch refuses).
function tests.reviewLdexpReducedAndResultTypes()
  for _, tname in ipairs({ 'torch.HalfTensor', 'torch.BFloat16Tensor' }) do
    local x = torch.DoubleTensor({ 0.1, -3 }):type(tname)
    local want = vals(torch.DoubleTensor(vals(x)):mul(2 ^ 16):type(tname))
    local a, b = torch.ldexp(x, torch.LongTensor({ 16, 16 })), torch.ldexp(x, 16)
    tester:asserteq(a:type(), tname, 'ldexp keeps ' .. tname)
    for i = 1, 2 do
      tester:asserteq(a[i], want[i], tname .. ' ldexp(x, tensor 16) ' .. i)
      tester:asserteq(b[i], want[i], tname .. ' ldexp(x, 16) ' .. i)
    end
  end
  local function refuses(what, f, pattern)
    local ok, err = pcall(f)
    tester:assert(not ok and tostring(err):find(pattern, 1, true) ~= nil, what .. ': ' .. tostring(err))
  end
  refuses('long:divide(2)', function() torch.LongTensor({ 7 }):divide(2) end, '[divide] result of type torch.FloatTensor cannot be written into a torch.LongTensor')
  refuses('long:logit(eps)', function() torch.LongTensor({ 1 }):logit(0.1) end, '[logit] result of type')
  refuses('long:ldexp', function() torch.LongTensor({ 1 }):ldexp(-1) end, '[ldexp] result of type')
  refuses('divide into long res', function() torch.divide(torch.LongTensor(), torch.Tensor({ 7 }), 2) end, '[divide] result of type')
  refuses('floatPower(floatRes, 2, t)', function() torch.floatPower(torch.FloatTensor(), 2, torch.Tensor({ 2 })) end,
    '[floatPower] computes in double')
  tester:assertTensorEq(torch.LongTensor({ 7, -7 }):divide(2, 'floor'), torch.LongTensor({ 3, -4 }), 0, 'integer floor stays')
  tester:asserteq(torch.floatPower(torch.DoubleTensor(), 2, torch.Tensor({ 3 }))[1], 8, 'double res accepted')
end

-- Floor division of floats is Python's a // b (Note [Floor division of floats]): from the exact
-- remainder, so 5 // 0.1 is 49 where floor(5 / 0.1) is 50; values from PyTorch 1.13's
-- div(rounding_mode='floor') and Python's //
function tests.floorDivisionOfFloats()
  local a = { 5, -5, 5, -5, 7.5, 1, -0.014, math.huge, 0, 3, 1e300, 1 }
  local b = { 0.1, 0.1, -0.1, -0.1, 2, 0, math.huge, 3, 2, -0.0, 1e-300, 3 }
  local want = { 49, -50, -50, 49, 3, math.huge, -1, 0 / 0, 0, -math.huge, math.huge, 0 }
  for _, tname in ipairs({ 'torch.DoubleTensor', 'torch.FloatTensor' }) do
    for _, f in ipairs({ function(x, y) return torch.floorDivide(x, y) end,
                         function(x, y) return torch.divide(x, y, 'floor') end }) do
      local got = f(torch.DoubleTensor(a):type(tname), torch.DoubleTensor(b):type(tname)):double()
      for i = 1, #want do
        local g, w = got[i], want[i]
        tester:assert(g == w or (g ~= g and w ~= w), string.format('%s %g // %g = %g, expected %g', tname, a[i], b[i], g, w))
      end
    end
  end
  -- a zero quotient keeps the sign of a / b
  tester:asserteq(1 / torch.floorDivide(torch.DoubleTensor({ -0.0 }), torch.DoubleTensor({ 2 }))[1], -math.huge)
end

tester:add(tests)
tester:run()
