-- The second half of test_pointwise_extra.lua: the integer ops (bitwise, shifts, gcd/lcm) against
-- Lua arithmetic on every integer dtype, the composites (floatPower, signbit, ldexp, frexp, divide's
-- rounding modes), PyTorch's alias names and Torch7's bitwise names, errors naming the op and the
-- dtype, gradchecks in f64 of every differentiable op (tensor and number operands, away from
-- kinks), and CUDA against the CPU when a device is present.
local tester = torch.Tester()
local R = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/ref.lua')
local tests = torch.TestSuite()
local gc = torch.autograd.gradcheck

local nan, inf = 0 / 0, math.huge
local INTS = { 'torch.LongTensor', 'torch.IntTensor', 'torch.ByteTensor' }
local BITS = { ['torch.LongTensor'] = 64, ['torch.IntTensor'] = 32, ['torch.ByteTensor'] = 8 }
local function vals(t) return t:double():contiguous():view(t:nElement()):totable() end

-- Wraps an integer (exact in a double) into the dtype's range.
local function wrap(v, tname)
  local bits = BITS[tname]
  if bits == 64 then return v end
  local m = 2 ^ bits
  v = v % m
  if tname ~= 'torch.ByteTensor' and v >= m / 2 then v = v - m end
  return v
end

-- ---- bitwise -------------------------------------------------------------------------------------
-- Bits of non-negative integers below 2^53 combined one at a time (Lua numbers are doubles).
local function bitop(a, b, f)
  local r, p = 0, 1
  while a > 0 or b > 0 do
    if f(a % 2, b % 2) == 1 then r = r + p end
    a, b, p = math.floor(a / 2), math.floor(b / 2), p * 2
  end
  return r
end
-- Two's complement bit operations for signed values of the dtype's width.
local function signed_bitop(a, b, f, tname)
  local bits = BITS[tname]
  local width = bits == 64 and 2 ^ 53 or 2 ^ bits  -- test values stay within +-2^52 for longs
  local function u(v) return v < 0 and v + width * (bits == 64 and 1 or 1) or v end
  if bits == 64 then
    -- a, b in [-2^52, 2^52): do it in 53 bits, where the sign extends the same way
    local r = bitop(u(a), u(b), f)
    return r >= 2 ^ 52 and r - 2 ^ 53 or r
  end
  return wrap(bitop(u(a), u(b), f), tname)
end
local AND = function(x, y) return x * y end
local OR = function(x, y) return math.max(x, y) end
local XOR = function(x, y) return (x + y) % 2 end

function tests.bitwiseOps()
  local A = { 0, 1, 5, 12, 127, -1, -6, -128, 100 }
  local B = { 0, 3, 6, 10, 1, -1, 7, 127, -100 }
  for _, tname in ipairs(INTS) do
    local av, bv = {}, {}
    for i = 1, #A do av[i], bv[i] = wrap(A[i], tname), wrap(B[i], tname) end
    local a, b = torch.DoubleTensor(av):type(tname), torch.DoubleTensor(bv):type(tname)
    for name, f in pairs({ bitwiseAnd = AND, bitwiseOr = OR, bitwiseXor = XOR }) do
      local r = torch[name](a, b)
      tester:asserteq(r:type(), tname, name .. ' keeps ' .. tname)
      local g = vals(r)
      for i = 1, #A do
        tester:asserteq(g[i], signed_bitop(av[i], bv[i], f, tname), string.format('%s %s(%d, %d)', tname, name, av[i], bv[i]))
      end
      local x = a:clone()
      x[name](x, 6)  -- in place, with a number
      local gx = vals(x)
      for i = 1, #A do tester:asserteq(gx[i], signed_bitop(av[i], 6, f, tname), name .. ' in place') end
    end
    local n = vals(torch.bitwiseNot(a))
    for i = 1, #A do
      local want = tname == 'torch.ByteTensor' and 255 - av[i] or -av[i] - 1
      tester:asserteq(n[i], want, tname .. ' bitwiseNot ' .. av[i])
    end
  end
  -- large longs, exactly
  local big = torch.LongTensor({ 0 }):fill(2 ^ 62)
  tester:asserteq((torch.bitwiseOr(big, 1) - big)[1], 1, 'bits of large longs')
  tester:asserteq((torch.bitwiseXor(big + 3, big) - 3)[1], 0, 'bits of large longs (xor)')
  tester:asserteq(torch.bitwiseNot(torch.LongTensor({ 0 }))[1], -1)
  -- bool: the logical ops
  local t, f = torch.BoolTensor({ true, true, false, false }), torch.BoolTensor({ true, false, true, false })
  tester:asserteq(torch.bitwiseAnd(t, f):type(), 'torch.BoolTensor')
  tester:assertTensorEq(torch.bitwiseAnd(t, f):long(), torch.LongTensor({ 1, 0, 0, 0 }), 0, 'bool and')
  tester:assertTensorEq(torch.bitwiseOr(t, f):long(), torch.LongTensor({ 1, 1, 1, 0 }), 0, 'bool or')
  tester:assertTensorEq(torch.bitwiseXor(t, f):long(), torch.LongTensor({ 0, 1, 1, 0 }), 0, 'bool xor')
  tester:assertTensorEq(torch.bitwiseNot(t):long(), torch.LongTensor({ 0, 0, 1, 1 }), 0, 'bool not')
  -- promotion and broadcasting: int32 with int64 gives int64; a column against a row
  local r = torch.bitwiseAnd(torch.IntTensor({ 12, 10 }):view(2, 1), torch.LongTensor({ 6, 3, 15 }))
  tester:asserteq(r:type(), 'torch.LongTensor')
  tester:assertTensorEq(r, torch.LongTensor({ { 4, 0, 12 }, { 2, 2, 10 } }), 0, 'broadcast and promote')
end

function tests.shifts()
  for _, tname in ipairs(INTS) do
    local bits = BITS[tname]
    local A = { 1, 3, -8, 100, -1, 0 }
    for _, a0 in ipairs(A) do
      local a = wrap(a0, tname)
      for _, s in ipairs({ 0, 1, 3, bits - 1, bits, bits + 3, -1 }) do
        if s <= 127 and (tname ~= 'torch.ByteTensor' or s >= 0) then
          local x = torch.DoubleTensor({ a }):type(tname)
          local l = torch.bitwiseLeftShift(x, torch.DoubleTensor({ s }):type(tname))[1]
          local r = torch.bitwiseRightShift(x, torch.DoubleTensor({ s }):type(tname))[1]
          local wl, wr
          if s < 0 or s >= bits then
            wl, wr = 0, a < 0 and -1 or 0
          else
            if bits < 64 then wl = wrap(a * 2 ^ s, tname) elseif s <= 10 then wl = a * 2 ^ s end
            wr = math.floor(a / 2 ^ s)
          end
          if wl then tester:asserteq(l, wl, string.format('%s %d << %d', tname, a, s)) end
          tester:asserteq(r, wr, string.format('%s %d >> %d', tname, a, s))
        end
      end
    end
  end
  tester:asserteq(torch.bitwiseLeftShift(torch.LongTensor({ 1 }), 63)[1], -2 ^ 63, 'into the sign bit')
  tester:asserteq(torch.bitwiseLeftShift(torch.LongTensor({ 1 }), 64)[1], 0, 'PyTorch 1.13 gives 1 (x86 masks the amount)')
  tester:asserteq(torch.bitwiseRightShift(torch.LongTensor({ -5 }), 100)[1], -1)
  local x = torch.LongTensor({ 1, 2 })
  x:bitwiseLeftShift(2)
  tester:assertTensorEq(x, torch.LongTensor({ 4, 8 }), 0, 'in place')
  tester:assertTensorEq(torch.bitwiseLeftShift(1, torch.LongTensor({ 0, 4 })), torch.LongTensor({ 1, 16 }), 0, 'number first')
end

local function gcd(a, b)
  a, b = math.abs(a), math.abs(b)
  while a ~= 0 do a, b = b % a, a end
  return b
end
function tests.gcdLcm()
  local A = { 0, 0, 12, -18, 7, 1, 100, -36, 81 }
  local B = { 0, 5, 18, 12, 13, -1, 75, -24, 0 }
  for _, tname in ipairs(INTS) do
    local av, bv = {}, {}
    for i = 1, #A do
      av[i] = tname == 'torch.ByteTensor' and math.abs(A[i]) or A[i]
      bv[i] = tname == 'torch.ByteTensor' and math.abs(B[i]) or B[i]
    end
    local a, b = torch.DoubleTensor(av):type(tname), torch.DoubleTensor(bv):type(tname)
    local g, l = vals(torch.gcd(a, b)), vals(torch.lcm(a, b))
    for i = 1, #A do
      local gg = gcd(av[i], bv[i])
      tester:asserteq(g[i], gg, string.format('%s gcd(%d, %d)', tname, av[i], bv[i]))
      local ll = gg == 0 and 0 or math.abs(av[i] / gg * bv[i])
      tester:asserteq(l[i], wrap(ll, tname), string.format('%s lcm(%d, %d)', tname, av[i], bv[i]))
    end
  end
  local min64 = torch.LongTensor({ 0 }):fill(-2 ^ 63)
  tester:asserteq(torch.gcd(min64, 0)[1], -2 ^ 63, "PyTorch's gcd(INT64_MIN, 0)")
  -- gcd on unsigned magnitudes: 2 and 1, where PyTorch 1.13's signed remainders give -2 and -1
  -- and its lcm(INT64_MIN, INT64_MAX) divides INT64_MIN by -1 (SIGFPE; ours raised it too)
  tester:asserteq(torch.gcd(min64, 6)[1], 2, 'gcd(INT64_MIN, 6)')
  local max64 = torch.LongTensor({ 0 }):fill(2 ^ 63 - 1024)
  require('ffi').cast('int64_t *', max64:data())[0] = 9223372036854775807LL
  tester:asserteq(torch.gcd(min64, max64)[1], 1, 'gcd(INT64_MIN, INT64_MAX)')
  tester:asserteq(torch.lcm(min64, max64)[1], -2 ^ 63, 'lcm(INT64_MIN, INT64_MAX) wraps to INT64_MIN')
  tester:asserteq(torch.lcm(max64, min64)[1], -2 ^ 63, 'and the other way round')
  tester:asserteq(torch.lcm(torch.IntTensor({ -2 ^ 31 }), torch.IntTensor({ 2 ^ 31 - 1 }))[1], -2 ^ 31, 'int32 too')
  tester:assertTensorEq(torch.gcd(torch.LongTensor({ 12, 18 }), 8), torch.LongTensor({ 4, 2 }), 0, 'with a number')
end

-- ---- composites ---------------------------------------------------------------------------------
function tests.floatPower()
  local r = torch.floatPower(torch.IntTensor({ 2, 3, -2 }), 2)
  tester:asserteq(r:type(), 'torch.DoubleTensor', 'always double')
  tester:assertTensorEq(r, torch.DoubleTensor({ 4, 9, 4 }), 0)
  local f = torch.floatPower(torch.FloatTensor({ 1.1 }), torch.FloatTensor({ 3 }))
  tester:asserteq(f:type(), 'torch.DoubleTensor')
  tester:asserteq(f[1], torch.FloatTensor({ 1.1 }):double()[1] ^ 3, 'computed in double from the f32 value')
  tester:assertTensorEq(torch.floatPower(2, torch.LongTensor({ 10, -1 })), torch.DoubleTensor({ 1024, 0.5 }), 0, 'number base')
  tester:assert(torch.floatPower(torch.DoubleTensor({ -2 }), 0.5)[1] ~= torch.floatPower(torch.DoubleTensor({ -2 }), 0.5)[1], 'NaN')
  tester:assertTensorEq(torch.floatPower(torch.LongTensor({ 2, 3 }):view(2, 1), torch.HalfTensor({ 1, 2 })),
    torch.DoubleTensor({ { 2, 4 }, { 3, 9 } }), 0, 'broadcast')
  local x = torch.DoubleTensor({ 2, 3 })
  x:floatPower(3)
  tester:assertTensorEq(x, torch.DoubleTensor({ 8, 27 }), 0, 'in place on a DoubleTensor')
  local ok, err = pcall(function() torch.FloatTensor({ 2 }):floatPower(2) end)
  tester:assert(not ok and tostring(err):find('floatPower') and tostring(err):find('DoubleTensor'), tostring(err))
end

function tests.signbit()
  local r = torch.signbit(torch.DoubleTensor({ -1, -0.0, 0, 2, -inf, inf, -1e-310 }))
  tester:asserteq(r:type(), 'torch.ByteTensor')
  tester:assertTensorEq(r, torch.ByteTensor({ 1, 1, 0, 0, 1, 0, 1 }), 0)
  for _, tname in ipairs({ 'torch.FloatTensor', 'torch.HalfTensor', 'torch.BFloat16Tensor' }) do
    tester:assertTensorEq(torch.signbit(torch.DoubleTensor({ -3, -0.0, 1 }):type(tname)), torch.ByteTensor({ 1, 1, 0 }), 0, tname)
  end
  tester:assertTensorEq(torch.signbit(torch.LongTensor({ -3, 0, 4 })), torch.ByteTensor({ 1, 0, 0 }), 0, 'longs')
  tester:assertTensorEq(torch.signbit(torch.ByteTensor({ 200 })), torch.ByteTensor({ 0 }), 0, 'bytes')
  -- LuaJIT keeps one canonical NaN; its negation (neg flips the sign bit) has the other sign
  local n1 = torch.cat(torch.DoubleTensor({ nan }), torch.DoubleTensor({ nan }):neg())
  local s = torch.signbit(n1)
  tester:asserteq(s[1] + s[2], 1, 'NaN and -NaN: one sign bit set')
  tester:assertTensorEq(torch.copysign(torch.DoubleTensor({ 2, 2 }), n1), torch.DoubleTensor({ s[1] == 1 and -2 or 2,
    s[2] == 1 and -2 or 2 }), 0, 'copysign follows the NaN sign bit as signbit does')
  tester:assertTensorEq(torch.signbit(n1:float()), s, 0, 'f32 NaN keeps its sign bit')
end

function tests.ldexp()
  local r = torch.ldexp(torch.DoubleTensor({ 1, 3, -0.5, 0 }), torch.LongTensor({ 3, -1, 10, 5 }))
  tester:assertTensorEq(r, torch.DoubleTensor({ 8, 1.5, -512, 0 }), 0)
  tester:asserteq(torch.ldexp(torch.LongTensor({ 3 }), torch.LongTensor({ 2 })):type(), torch.getdefaulttensortype())
  tester:asserteq(torch.ldexp(torch.FloatTensor({ 3 }), 2)[1], 12, 'number exponent')
  tester:asserteq(torch.ldexp(torch.DoubleTensor({ 1 }), torch.LongTensor({ 1023 }))[1], 2 ^ 1023, 'f64 range')
  local x = torch.FloatTensor({ 1, 2 })
  x:ldexp(torch.FloatTensor({ 1, 2 }))
  tester:assertTensorEq(x, torch.FloatTensor({ 2, 8 }), 0, 'in place')
end

function tests.frexp()
  local xs = { 8, -0.3, 0, -0.0, 1, 0.5, 0.75, 1e-310, 2 ^ -1074, 1.7976931348623157e308, -123.456, inf, -inf, nan, 1 - 2 ^ -53 }
  local m, e = torch.frexp(torch.DoubleTensor(xs))
  tester:asserteq(e:type(), 'torch.IntTensor')
  for i, x in ipairs(xs) do
    local mi, ei = m[i], e[i]
    if x ~= x then tester:assert(mi ~= mi and ei == 0, 'NaN')
    elseif x == 0 or x == inf or x == -inf then tester:assert(mi == x and ei == 0, 'special ' .. x)
    else
      tester:assert(math.abs(mi) >= 0.5 and math.abs(mi) < 1, string.format('mantissa of %.17g is %.17g', x, mi))
      local back = ei > 1000 and mi * 2 ^ 1000 * 2 ^ (ei - 1000) or (ei < -1000 and mi * 2 ^ -1000 * 2 ^ (ei + 1000) or mi * 2 ^ ei)
      tester:asserteq(back, x, string.format('%.17g = %.17g * 2^%d', x, mi, ei))
    end
  end
  for _, tname in ipairs({ 'torch.FloatTensor', 'torch.HalfTensor', 'torch.BFloat16Tensor' }) do
    local x = torch.DoubleTensor({ 8, -0.3, 6e-8, 1000 }):type(tname)
    local mm, ee = x:frexp()
    local xv, mv, ev = vals(x), vals(mm), vals(ee)
    tester:asserteq(mm:type(), tname)
    for i = 1, 4 do
      tester:assert(math.abs(mv[i]) >= 0.5 and math.abs(mv[i]) < 1 and mv[i] * 2 ^ ev[i] == xv[i], tname .. ' frexp ' .. xv[i])
    end
  end
end

function tests.divideRoundingModes()
  local a, b = torch.LongTensor({ 7, -7, 7, -7, 0 }), torch.LongTensor({ 2, 2, -2, -2, 3 })
  tester:assertTensorEq(torch.divide(a, b, 'trunc'), torch.LongTensor({ 3, -3, -3, 3, 0 }), 0, 'integer trunc')
  tester:assertTensorEq(torch.divide(a, b, 'floor'), torch.LongTensor({ 3, -4, -4, 3, 0 }), 0, 'integer floor')
  tester:asserteq(torch.divide(a, b, 'trunc'):type(), 'torch.LongTensor')
  for _, mode in ipairs({ 'trunc', 'floor' }) do  -- the error names divide, not fmod or floorDivide
    tester:assertErrorPattern(function() torch.divide(a, 0, mode) end, '%[divide%] integer division by zero')
    tester:assertErrorPattern(function() torch.divide(a, b * 0, mode) end, '%[divide%] integer division by zero')
    tester:assertErrorPattern(function() torch.divide(3, b * 0, mode) end, '%[divide%] integer division by zero')
  end
  tester:asserteq(torch.divide(a, b):type(), torch.getdefaulttensortype(), 'true division')
  local big = torch.LongTensor({ 0 }):fill(2 ^ 62) + 3
  tester:asserteq((torch.divide(big, 1, 'trunc') - big)[1], 0, 'exact for large longs (no float round trip)')
  tester:asserteq((torch.divide(big, 2, 'floor') * 2 - big)[1], -1, 'floor of a large odd long')
  local x, y = torch.DoubleTensor({ 7.5, -7.5, 1, -0.5 }), torch.DoubleTensor({ 2, 2, 0, 4 })
  tester:assertTensorEq(torch.divide(x, y, { roundingMode = 'trunc' }), torch.DoubleTensor({ 3, -3, inf, -0.0 }), 0, 'float trunc')
  tester:assertTensorEq(torch.divide(x, y, 'floor'), torch.DoubleTensor({ 3, -4, inf, -1 }), 0, 'float floor')
  tester:assertTensorEq(torch.divide(x, 2), x / 2, 0, 'no mode')
  tester:assertTensorEq(torch.divide(15, torch.LongTensor({ 4, -4 }), 'trunc'), torch.LongTensor({ 3, -3 }), 0, 'number first')
  local z = torch.LongTensor({ 9, -9 })
  z:divide(4, 'floor')
  tester:assertTensorEq(z, torch.LongTensor({ 2, -3 }), 0, 'in place')
  local res = torch.DoubleTensor()
  torch.divide(res, x, y, 'trunc')
  tester:asserteq(res[2], -3, 'into res')
end

function tests.aliases()
  local x = torch.DoubleTensor({ -2, 0.5, 3 })
  local same = { reciprocal = 'cinv', negative = 'neg', absolute = 'abs', arccos = 'acos', arcsin = 'asin', arctan = 'atan',
                 arctan2 = 'atan2', arccosh = 'acosh', arcsinh = 'asinh', arctanh = 'atanh', clip = 'clamp', fix = 'trunc',
                 multiply = 'mul', subtract = 'csub', trueDivide = 'div', greater = 'gt', greaterEqual = 'ge', less = 'lt',
                 lessEqual = 'le', notEqual = 'ne', maximum = 'cmax', minimum = 'cmin', sgn = 'sign' }
  for alias, name in pairs(same) do
    tester:assert(torch[alias] == torch[name], alias .. ' is ' .. name)
    tester:assert(x[alias] == x[name], 'x:' .. alias .. ' is x:' .. name)
  end
  tester:assertTensorEq(torch.reciprocal(x), torch.DoubleTensor({ -0.5, 2, 1 / 3 }), 1e-15)
  tester:assertTensorEq(torch.clampMin(x, 0), torch.DoubleTensor({ 0, 0.5, 3 }), 0, 'clampMin')
  tester:assertTensorEq(torch.clampMax(x, 1), torch.DoubleTensor({ -2, 0.5, 1 }), 0, 'clampMax')
  local y = x:clone()
  y:clampMin(1)
  tester:assertTensorEq(y, torch.DoubleTensor({ 1, 1, 3 }), 0, 'x:clampMin in place')
  tester:assertTensorEq(torch.rsub(x, 10), torch.DoubleTensor({ 12, 9.5, 7 }), 0, 'rsub with a number')
  tester:assertTensorEq(torch.rsub(x, torch.ones(3):double(), 2), torch.DoubleTensor({ 5, 0, -5 }), 0, 'rsub alpha')
  tester:assertTensorEq(torch.rsub(x, 1, 2), torch.DoubleTensor({ 5, 0, -5 }), 0, 'rsub number alpha')
  tester:assert(torch.positive(x) == x, 'positive is x itself')
  tester:assertTensorEq(torch.subtract(x, 2, x), -x, 0, 'subtract keeps the alpha form')
  -- Torch7's bitwise names
  local l = torch.LongTensor({ 12, 10 })
  tester:assertTensorEq(torch.bitand(l, 6), torch.LongTensor({ 4, 2 }), 0, 'bitand')
  tester:assertTensorEq(torch.cbitxor(l, torch.LongTensor({ 6, 6 })), torch.LongTensor({ 10, 12 }), 0, 'cbitxor')
  tester:assertTensorEq(torch.lshift(l, 2), torch.LongTensor({ 48, 40 }), 0, 'lshift')
  tester:assertTensorEq(torch.rshift(l, 2), torch.LongTensor({ 3, 2 }), 0, 'rshift')
  tester:assertTensorEq(torch.lshift(torch.DoubleTensor({ 1.5 }), 2), torch.DoubleTensor({ 6 }), 0, "Torch7's float lshift")
  tester:assertTensorEq(torch.rshift(torch.DoubleTensor({ 1.5 }), 2), torch.DoubleTensor({ 0.375 }), 0, "Torch7's float rshift")
  local m = l:clone()
  m:bitor(1)
  tester:assertTensorEq(m, torch.LongTensor({ 13, 11 }), 0, 'x:bitor in place')
  local d = torch.DoubleTensor({ 3 })
  d:lshift(1)
  tester:asserteq(d[1], 6, 'x:lshift on a DoubleTensor')
end

-- ---- errors ----------------------------------------------------------------------------------------
local function fails(f, ...)
  local ok, err = pcall(f)
  err = tostring(err)
  if ok then return false, 'no error' end
  for _, s in ipairs({ ... }) do if not err:find(s, 1, true) then return false, err end end
  return true, err
end
function tests.errors()
  local F, L = torch.FloatTensor({ 1 }), torch.LongTensor({ 1 })
  local cases = {
    { function() torch.bitwiseAnd(F, F) end, '[bitwiseAnd]', 'torch.FloatTensor' },
    { function() torch.bitwiseOr(L, 1.5) end, '[bitwiseOr]', 'torch.' },
    { function() torch.bitwiseNot(torch.DoubleTensor({ 1 })) end, '[bitwiseNot]', 'torch.DoubleTensor' },
    { function() torch.bitwiseXor(L, torch.HalfTensor({ 1 })) end, '[bitwiseXor]', 'HalfTensor' },
    { function() torch.gcd(torch.BoolTensor({ true }), torch.BoolTensor({ true })) end, '[gcd]', 'BoolTensor' },
    { function() torch.bitwiseLeftShift(torch.BoolTensor({ true }), torch.BoolTensor({ true })) end, '[bitwiseLeftShift]', 'Bool' },
    { function() torch.bitand(F, 1) end, '[bitwiseAnd]', 'FloatTensor' },
    { function() torch.nextafter(torch.HalfTensor({ 1 }), torch.HalfTensor({ 2 })) end, '[nextafter]', 'HalfTensor' },
    { function() torch.polygamma(-1, F) end, '[polygamma]', 'non-negative' },
    { function() torch.polygamma(1.5, F) end, '[polygamma]', '1.5' },
    { function() torch.polygamma(2, 'x') end, '[polygamma]' },
    { function() torch.logit(F, 'a') end, '[logit]', 'eps' },
    { function() torch.logit(F, 0.7) end, '[logit]', '0.5' },
    { function() torch.logit(F, 0 / 0) end, '[logit]', 'nan' },
    { function() torch.frexp(L) end, '[frexp]', 'LongTensor' },
    { function() torch.divide(F, F, 'round') end, '[divide]', "'round'" },
    { function() torch.divide(L, torch.LongTensor({ 0 }), 'trunc') end, 'division by zero' },
    { function() torch.hypot(torch.ones(2), torch.ones(3)) end, '[hypot]', 'broadcast' },
    { function() torch.ldexp(F, 'x') end, '[ldexp]' },
    { function() torch.floatPower(F, 'x') end, '[floatPower]' },
    { function() torch.positive(torch.BoolTensor({ true })) end, '[positive]' },
    { function() torch.fmax(F, {}) end, '[fmax]' },
  }
  for i, c in ipairs(cases) do
    local ok, err = fails(c[1], select(2, unpack(c)))
    tester:assert(ok, 'error case ' .. i .. ': ' .. err)
  end
end

-- ---- gradients ---------------------------------------------------------------------------------------
local function leaf(t) return torch.DoubleTensor(t):requiresGrad() end
local function check(name, fn, inputs)
  local ok, err = pcall(gc, fn, inputs)
  tester:assert(ok and err, name .. ': ' .. tostring(err))
end
function tests.gradcheckUnary()
  local cases = {
    acosh = { 1.2, 2, 7.5 }, asinh = { -2, -0.3, 0, 0.4, 5 }, atanh = { -0.7, 0, 0.3, 0.9 }, exp2 = { -3, 0, 0.5, 4 },
    sinc = { -1.7, -0.5, 0, 0.3, 2.2 }, deg2rad = { -90, 1, 45 }, rad2deg = { -1, 0.5, 3 }, logit = { 0.1, 0.5, 0.8 },
    i0 = { -3, -0.5, 0, 1, 4 }, i0e = { -3, -0.5, 1, 4, 40 }, i1 = { -3, -0.5, 0, 1, 4 }, i1e = { -3, -0.5, 0, 1, 4, 40 },
  }
  for name, xs in pairs(cases) do
    check(name, torch[name], { leaf(xs) })
    check(name .. ' as a method on a copy', function(x) return x:clone()[name](x:clone()) end, { leaf(xs) })
  end
  check('logit eps', function(x) return torch.logit(x, 0.2) end, { leaf({ 0.1, 0.5, 0.9 }) })
  check('polygamma 2', function(x) return torch.polygamma(2, x) end, { leaf({ 0.5, 1.5, 4 }) })
  check('polygamma 3', function(x) return torch.polygamma(3, x) end, { leaf({ 0.5, 1.5, -1.5 }) })
  check('polygamma 0', function(x) return torch.polygamma(0, x) end, { leaf({ 0.5, 3 }) })
  check('ldexp', torch.ldexp, { leaf({ 1.5, -2, 0.3 }), leaf({ 1, -2, 0.5 }) })
  check('ldexp number', function(x) return torch.ldexp(x, 3) end, { leaf({ 1.5, -2 }) })
  check('frexp mantissa', function(x) return (torch.frexp(x)) end, { leaf({ 1.5, -3, 0.3 }) })
  check('floatPower', torch.floatPower, { leaf({ 1.5, 2, 0.3 }), leaf({ 2, -1.5, 0.5 }) })
  check('floatPower number', function(x) return torch.floatPower(x, 2.5) end, { leaf({ 1.5, 2 }) })
  for _, name in ipairs({ 'asinh', 'atanh', 'logit', 'i1', 'sinc' }) do
    local ok, err = pcall(torch.autograd.gradgradcheck, torch[name], { leaf({ 0.2, 0.45, 0.7 }) })
    tester:assert(ok and err, name .. ' second order: ' .. tostring(err))
  end
  local ok, err = pcall(torch.autograd.gradgradcheck, torch.logaddexp, { leaf({ 0.2, -1 }), leaf({ 0.5, 3 }) })
  tester:assert(ok and err, 'logaddexp second order: ' .. tostring(err))
end

function tests.gradcheckBinary()
  local a, b = { 1.5, -2, 0.3, 4 }, { 2, 0.7, -1.1, 3 }
  for _, name in ipairs({ 'hypot', 'logaddexp', 'logaddexp2', 'fmax', 'fmin', 'copysign' }) do
    check(name, torch[name], { leaf(a), leaf(b) })
    check(name .. ' broadcast', torch[name], { leaf({ { a[1] }, { a[2] }, { a[3] }, { a[4] } }), leaf(b) })
    check(name .. ' number second', function(x) return torch[name](x, 0.9) end, { leaf(a) })
    check(name .. ' number first', function(x) return torch[name](0.9, x) end, { leaf(a) })
  end
  check('xlogy', torch.xlogy, { leaf({ 1.5, -2, 0.3 }), leaf({ 2, 0.7, 1.1 }) })
  check('xlogy number second', function(x) return torch.xlogy(x, 2.5) end, { leaf({ 1.5, -2 }) })
  check('xlogy number first', function(y) return torch.xlogy(2.5, y) end, { leaf({ 1.5, 2 }) })
  -- values PyTorch's formulas pin down: xlogy's d/dx is log(y) at x == 0 too (0 only where also
  -- y <= 0; PyTorch 1.13 gives log 3 here); fmax's NaN operand gets 0
  local x, y = leaf({ 0, 2 }), leaf({ 3, 4 })
  torch.xlogy(x, y):sum():backward()
  tester:assertlt(math.abs(x.grad[1] - math.log(3)), 1e-15, 'xlogy d/dx at x == 0')
  tester:assertlt(math.abs(x.grad[2] - math.log(4)), 1e-15)
  local p, q = leaf({ nan, 1, 2 }), leaf({ 5, nan, 2 })
  torch.fmax(p, q):sum():backward()
  tester:assertTensorEq(p.grad, torch.DoubleTensor({ 0, 1, 1 }), 0, 'fmax gradient of a (ties go to a)')
  tester:assertTensorEq(q.grad, torch.DoubleTensor({ 1, 0, 0 }), 0, 'fmax gradient of b')
  local c = leaf({ 0, -2 })
  torch.copysign(c, -1):sum():backward()
  tester:assertTensorEq(c.grad, torch.DoubleTensor({ 0, 1 }), 0, 'copysign gradient (0 at 0)')
  tester:assert(not torch.heaviside(leaf({ 1 }), 0.5):needsGrad(), 'heaviside is not differentiable')
  tester:assert(not torch.nextafter(leaf({ 1 }), 2):needsGrad(), 'nextafter is not differentiable')
  tester:assert(not torch.divide(leaf({ 3 }), 2, 'floor'):needsGrad(), 'rounded division has no gradient')
  tester:assert(torch.divide(leaf({ 3 }), 2):needsGrad(), 'true division has one')
end

-- ---- CUDA ------------------------------------------------------------------------------------------
function tests.cudaMatchesCpu()
  if R.no_cuda() then return end
  local grid = torch.DoubleTensor({ nan, inf, -inf, 0, -0.0, 1e-30, 0.3, -0.7, 1.5, 2.5, -3.7, 20, 45, 700 })
  for _, tname in ipairs({ 'torch.DoubleTensor', 'torch.FloatTensor', 'torch.HalfTensor', 'torch.BFloat16Tensor' }) do
    local x = grid:type(tname)
    local y = x:clone():flip(1)
    local tol = tname == 'torch.DoubleTensor' and 1e-12 or (tname == 'torch.FloatTensor' and 1e-5 or 1e-2)
    local function same(a, b, what)
      local av, bv = vals(a), vals(b)
      for i = 1, #av do
        local u, v = av[i], bv[i]
        local ok = (u ~= u and v ~= v) or u == v or math.abs(u - v) <= tol * math.max(1, math.abs(u))
        tester:assert(ok, string.format('%s %s [%d]: cpu %.17g cuda %.17g', tname, what, i, u, v))
      end
    end
    for _, name in ipairs({ 'acosh', 'asinh', 'atanh', 'exp2', 'sinc', 'deg2rad', 'rad2deg', 'logit', 'i0', 'i0e', 'i1', 'i1e' }) do
      same(torch[name](x), torch[name](x:cuda()), name)
    end
    for _, name in ipairs({ 'hypot', 'xlogy', 'logaddexp', 'logaddexp2', 'copysign', 'fmax', 'fmin', 'heaviside' }) do
      same(torch[name](x, y), torch[name](x:cuda(), y:cuda()), name)
    end
    same(torch.polygamma(3, x), torch.polygamma(3, x:cuda()), 'polygamma')
    same(torch.signbit(x), torch.signbit(x:cuda()), 'signbit')
    same((torch.frexp(x)), (torch.frexp(x:cuda())), 'frexp')
  end
  local d = torch.DoubleTensor({ 1, 0 })
  tester:assertTensorEq(torch.nextafter(d, 2), torch.nextafter(d:cuda(), 2):double(), 0, 'nextafter')
  for _, tname in ipairs({ 'torch.LongTensor', 'torch.IntTensor', 'torch.ByteTensor' }) do
    local a = torch.LongTensor({ 0, 5, 12, 100, 77 }):type(tname)
    local b = torch.LongTensor({ 3, 1, 8, 75, 0 }):type(tname)
    for _, name in ipairs({ 'bitwiseAnd', 'bitwiseOr', 'bitwiseXor', 'bitwiseLeftShift', 'bitwiseRightShift', 'gcd', 'lcm' }) do
      tester:assertTensorEq(torch[name](a, b):long(), torch[name](a:cuda(), b:cuda()):long(), 0, tname .. ' ' .. name)
    end
    tester:assertTensorEq(torch.bitwiseNot(a):long(), torch.bitwiseNot(a:cuda()):long(), 0, tname .. ' bitwiseNot')
  end
  local gx = torch.randn(5):double():cuda():requiresGrad()
  torch.logaddexp(gx, torch.i0(gx)):sum():backward()
  local cx = gx:double():detach():requiresGrad()
  torch.logaddexp(cx, torch.i0(cx)):sum():backward()
  tester:assertlt((gx.grad:double() - cx.grad):abs():max(), 1e-12, 'gradients on CUDA')
end

-- Review regressions: logaddexp's gradient was e^(a - out), NaN at a = +inf with b finite
-- (PyTorch's 1 / (1 + e^(b - a)) gives 1 and 0); logit's was finite outside [0, 1] where PyTorch's
-- (and the value) is NaN.
function tests.reviewGradientsAtInfinityAndOutsideDomain()
  for _, name in ipairs({ 'logaddexp', 'logaddexp2' }) do
    local a, b = leaf({ inf, 0, -inf }), leaf({ 0, inf, 0 })
    torch[name](a, b):sum():backward()
    tester:assertTensorEq(a.grad, torch.DoubleTensor({ 1, 0, 0 }), 0, name .. ' d/da at infinities')
    tester:assertTensorEq(b.grad, torch.DoubleTensor({ 0, 1, 1 }), 0, name .. ' d/db at infinities')
    local y = leaf({ inf })
    torch[name](y, 5):sum():backward()
    tester:asserteq(y.grad[1], 1, name .. ' with a number operand')
  end
  local x = leaf({ -0.5, 0.25, 2 })
  torch.logit(x):sum():backward()
  tester:assert(x.grad[1] ~= x.grad[1] and x.grad[3] ~= x.grad[3], 'logit gradient NaN outside [0, 1]')
  tester:assertlt(math.abs(x.grad[2] - 1 / (0.25 * 0.75)), 1e-12, 'logit gradient inside')
end

-- Review regression: rsub(number, tensor, alpha) called torch.mul on two numbers ("[mul] expected
-- tensor or number operands"); two numbers are an error naming rsub.
function tests.reviewRsubNumberOperand()
  tester:assertTensorEq(torch.rsub(2, torch.DoubleTensor({ 10, 20 }), 3), torch.DoubleTensor({ 4, 14 }), 0, 'b - alpha * a')
  local ok, err = pcall(torch.rsub, 2, 3)
  tester:assert(not ok and tostring(err):find('[rsub]', 1, true) ~= nil, 'two numbers: ' .. tostring(err))
end

tester:add(tests)
tester:run()
