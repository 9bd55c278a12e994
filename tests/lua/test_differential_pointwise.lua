-- Differential tests of the CPU kernels (tests/lua/differential/common.lua says what they check):
-- unary, scalar and broadcasting binary ops.
require 'nn'
local F = nn.functional
local tester = torch.Tester()
local tests = torch.TestSuite()
local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/differential/common.lua')(tester)
local gens, SIZES, SENTINEL, MVEC, layout_tol, shape, is_float, position, compare, check_same, pack, run, with_sizes, layouts, LAYOUTS, clone_all, check_layouts, check_precision, check_out, randn, rand, frandn = H.gens, H.SIZES, H.SENTINEL, H.MVEC, H.layout_tol, H.shape, H.is_float, H.position, H.compare, H.check_same, H.pack, H.run, H.with_sizes, H.layouts, H.LAYOUTS, H.clone_all, H.check_layouts, H.check_precision, H.check_out, H.randn, H.rand, H.frandn

-- ---- pointwise unary -----------------------------------------------------------------------------

-- name, input generator (from a size table), f32-vs-f64 rtol, atol
local UNARY = {
  { 'abs', 'n' }, { 'neg', 'n' }, { 'sign', 'n' }, { 'floor', 'n3' }, { 'ceil', 'n3' }, { 'round', 'h' },
  { 'trunc', 'n3' }, { 'frac', 'n3', 0, 2e-6 }, { 'square', 'n', 1e-6 }, { 'relu', 'n' },
  { 'exp', 'n3', 2e-6 }, { 'expm1', 'n', 2e-6, 1e-7 }, { 'log', 'p', 2e-6, 1e-6 }, { 'log1p', 'p', 2e-6, 1e-6 },
  { 'log2', 'p', 2e-6, 1e-6 }, { 'log10', 'p', 2e-6, 1e-6 }, { 'sqrt', 'p', 1e-6 }, { 'rsqrt', 'p', 1e-6 },
  { 'tanh', 'n3', 2e-6, 1e-7 }, { 'sigmoid', 'n3', 2e-6, 1e-7 }, { 'sin', 'n3', 2e-6, 1e-6 },
  { 'cos', 'n3', 2e-6, 1e-6 }, { 'tan', 'u', 2e-6, 1e-6 }, { 'asin', 'u', 2e-6, 1e-6 }, { 'acos', 'u', 2e-6, 1e-6 },
  { 'atan', 'n3', 2e-6, 1e-7 }, { 'sinh', 'n', 2e-6, 1e-7 }, { 'cosh', 'n', 2e-6 }, { 'erf', 'n', 2e-6, 1e-7 },
  { 'erfc', 'n', 2e-6, 1e-7 }, { 'erfinv', 'u', 1e-5, 1e-6 }, { 'lgamma', 'p', 2e-6, 1e-5 },
  { 'digamma', 'p', 2e-6, 1e-5 }, { 'cinv', 'p', 1e-6 },
}

local function unary_f(name) return function(x) return torch[name](x) end end

function tests.unaryLayouts()
  torch.manualSeed(1)
  for _, u in ipairs(UNARY) do
    local name, g = u[1], gens[u[2]]
    for _, sz in ipairs({ { 5, 6, 7 }, { 4, 33 }, { 1, 9 }, { 9, 1 }, { 2, 0, 3 } }) do
      local rt, at = layout_tol(name)
      check_layouts(name .. ' ' .. table.concat(sz, 'x'), unary_f(name), { g(sz):float() }, { rtol = rt, atol = at })
    end
  end
end

function tests.unarySizesAndPrecision()
  torch.manualSeed(2)
  for _, u in ipairs(UNARY) do
    local name, g, rtol, atol = u[1], gens[u[2]], u[3] or 0, u[4] or 0
    for _, n in ipairs(SIZES) do
      local x = g({ n })
      local what = string.format('%s of %d elements', name, n)
      check_precision(what, unary_f(name), { x }, rtol, atol)
      -- the strided path against the contiguous one, and a prefix against the whole (vector tails)
      local xf = x:float()
      local full = torch[name](xf)
      local st = layouts.stepped(xf)
      local rt, at = layout_tol(name)
      check_same({ torch[name](st) }, { full }, rt, at, what .. ', stepped')
      local m = math.floor(n / 2) + 1
      if m < n then
        check_same({ torch[name](xf:narrow(1, 1, m)) }, { full:narrow(1, 1, m) }, rt, at, what .. ', prefix ' .. m)
        check_same({ torch[name](xf:narrow(1, 2, n - 1)) }, { full:narrow(1, 2, n - 1) }, rt, at, what .. ', offset by 1')
      end
    end
  end
end

function tests.unaryResultForms()
  torch.manualSeed(3)
  for _, u in ipairs(UNARY) do
    local name, g = u[1], gens[u[2]]
    local x = g({ 6, 5 }):float()
    local rt, at = layout_tol(name)
    check_out(name, unary_f(name), function(res, a) return torch[name](res, a) end, { x }, { rtol = rt, atol = at })
    -- in place, on a contiguous and on non-contiguous tensors
    local ref = torch[name](x)
    for _, lay in ipairs({ 'contiguous', 'transposed', 'narrowed', 'stepped' }) do
      local y = lay == 'contiguous' and x:clone() or layouts[lay](x)
      local ret = y[name](y)
      local rt, at = layout_tol(name)
      check_same({ y, ret }, { ref, ref }, rt, at, name .. ' in place, ' .. lay)
    end
    -- y:f(x) sets y = f(x)
    local y = torch.FloatTensor(2, 2)
    y[name](y, x)
    check_same({ y }, { ref }, 0, 0, name .. ' as y:' .. name .. '(x)')
  end
end

-- ---- pow with scalars and other scalar forms ------------------------------------------------------

function tests.scalarForms()
  torch.manualSeed(4)
  local cases = {
    { 'pow 2', function(x) return torch.pow(x, 2) end, 'n', 1e-6 },
    { 'pow 3', function(x) return torch.pow(x, 3) end, 'n', 2e-6 },
    { 'pow 0.5', function(x) return torch.pow(x, 0.5) end, 'p', 1e-6 },
    { 'pow -1', function(x) return torch.pow(x, -1) end, 'p', 1e-6 },
    { 'pow -2', function(x) return torch.pow(x, -2) end, 'p', 2e-6 },
    { 'pow -0.5', function(x) return torch.pow(x, -0.5) end, 'p', 2e-6 },
    { 'pow 1.7', function(x) return torch.pow(x, 1.7) end, 'p', 2e-6 },
    { 'pow 0', function(x) return torch.pow(x, 0) end, 'n', 0 },
    { 'pow 1', function(x) return torch.pow(x, 1) end, 'n', 0 },
    { '2 ^ x', function(x) return torch.pow(2, x) end, 'n3', 2e-6 },
    { 'add 2.5', function(x) return torch.add(x, 2.5) end, 'n', 1e-7, 1e-7 },
    { 'mul 3', function(x) return torch.mul(x, 3) end, 'n', 1e-7 },
    { 'div 3', function(x) return torch.div(x, 3) end, 'n', 1e-7 },
    { 'csub 1', function(x) return torch.csub(x, 1) end, 'n', 1e-7, 1e-7 },
    { '1 - x', function(x) return 1 - x end, 'n', 1e-7, 1e-7 },
    { '2 / x', function(x) return 2 / x end, 'p', 1e-7 },
    { 'fmod 0.7', function(x) return torch.fmod(x, 0.7) end, 'n', 0, 1e-6 },
    { 'clamp', function(x) return torch.clamp(x, -0.5, 0.7) end, 'n', 1e-7 },
    { 'clamp min', function(x) return torch.clamp(x, -0.5, nil) end, 'n', 1e-7 },
    { 'clamp max', function(x) return torch.clamp(x, nil, 0.3) end, 'n', 1e-7 },
    { 'eq 0', function(x) return torch.eq(torch.round(x), 0) end, 'n3', 0 },
    { 'gt 0.1', function(x) return torch.gt(x, 0.1) end, 'n', 0 },
    { 'le 0.1', function(x) return torch.le(x, 0.1) end, 'n', 0 },
    { 'gelu', function(x) return torch.gelu(x) end, 'n', 2e-6, 1e-6 },  -- 1 + erf(x/sqrt2) cancels in f32 below -4
    { 'silu', function(x) return torch.silu(x) end, 'n', 2e-6, 1e-7 },
    { 'elu', function(x) return torch.elu(x) end, 'n', 2e-6, 1e-7 },
    { 'selu', function(x) return torch.selu(x) end, 'n', 2e-6, 1e-7 },
    { 'leakyRelu', function(x) return torch.leakyRelu(x, 0.1) end, 'n', 1e-7 },
    { 'softplus', function(x) return torch.softplus(x) end, 'n3', 2e-6, 1e-7 },
  }
  for _, c in ipairs(cases) do
    local what, f, g, rtol, atol = c[1], c[2], gens[c[3]], c[4], c[5] or 0
    local rt, at = layout_tol(what)
    check_layouts(what, f, { g({ 5, 6, 7 }):float() }, { rtol = rt, atol = at })
    for _, n in ipairs({ 1, 7, 8, 9, 17, 65, 32767, 32769, 70000 }) do
      local x = g({ n })
      check_precision(what .. ' of ' .. n .. ' elements', f, { x }, rtol, atol)
      local xf = x:float()
      check_same({ f(layouts.stepped(xf)) }, { f(xf) }, rt, at, what .. ' of ' .. n .. ' elements, stepped')
    end
  end
end

-- ---- binary pointwise with broadcasting ---------------------------------------------------------

local function nonzero_gen(sz)   -- |b| in [0.5, 2], either sign
  local b = rand(unpack(sz)):mul(1.5):add(0.5)
  return b:cmul(torch.sign(randn(unpack(sz))):clamp(0, 1):mul(2):add(-1)):float():double()
end

-- name, f(a, b), generators for a and b, rtol, atol, out form
local BINARY = {
  { 'add', function(a, b) return torch.add(a, b) end, 'n', 'n', 1e-7, 1e-7, function(r, a, b) return torch.add(r, a, b) end },
  { 'add 2*', function(a, b) return torch.add(a, 2, b) end, 'n', 'n', 1e-7, 1e-7, function(r, a, b) return torch.add(r, a, 2, b) end },
  { 'csub', function(a, b) return torch.csub(a, b) end, 'n', 'n', 1e-7, 1e-7, function(r, a, b) return torch.csub(r, a, b) end },
  { 'cmul', function(a, b) return torch.cmul(a, b) end, 'n', 'n', 1e-7, 0, function(r, a, b) return torch.cmul(r, a, b) end },
  { 'cdiv', function(a, b) return torch.cdiv(a, b) end, 'n', 'nz', 1e-7, 0, function(r, a, b) return torch.cdiv(r, a, b) end },
  { 'pow', function(a, b) return torch.pow(a, b) end, 'p', 'n', 2e-6, 0, function(r, a, b) return torch.pow(r, a, b) end },
  { 'atan2', function(a, b) return torch.atan2(a, b) end, 'n', 'n', 2e-6, 1e-7, function(r, a, b) return torch.atan2(r, a, b) end },
  { 'cmax', function(a, b) return torch.cmax(a, b) end, 'n', 'n', 0, 0, function(r, a, b) return torch.cmax(r, a, b) end },
  { 'cmin', function(a, b) return torch.cmin(a, b) end, 'n', 'n', 0, 0, function(r, a, b) return torch.cmin(r, a, b) end },
  { 'fmod', function(a, b) return torch.fmod(a, b) end, 'n3', 'nz', 0, 1e-6, function(r, a, b) return torch.fmod(r, a, b) end },
  { 'remainder', function(a, b) return torch.remainder(a, b) end, 'n3', 'nz', 0, 1e-6, function(r, a, b) return torch.remainder(r, a, b) end },
  { 'eq', function(a, b) return torch.eq(a, b) end, 'h', 'h', 0, 0, function(r, a, b) return torch.eq(r, a, b) end },
  { 'ne', function(a, b) return torch.ne(a, b) end, 'h', 'h', 0, 0, function(r, a, b) return torch.ne(r, a, b) end },
  { 'lt', function(a, b) return torch.lt(a, b) end, 'h', 'h', 0, 0, function(r, a, b) return torch.lt(r, a, b) end },
  { 'le', function(a, b) return torch.le(a, b) end, 'h', 'h', 0, 0, function(r, a, b) return torch.le(r, a, b) end },
  { 'gt', function(a, b) return torch.gt(a, b) end, 'h', 'h', 0, 0, function(r, a, b) return torch.gt(r, a, b) end },
  { 'ge', function(a, b) return torch.ge(a, b) end, 'h', 'h', 0, 0, function(r, a, b) return torch.ge(r, a, b) end },
  { 'addcmul', function(a, b) return torch.addcmul(a, 0.5, b, a) end, 'n', 'n', 1e-6, 1e-6, function(r, a, b) return torch.addcmul(r, a, 0.5, b, a) end },
  { 'addcdiv', function(a, b) return torch.addcdiv(a, 0.5, a, b) end, 'n', 'nz', 1e-6, 1e-6, function(r, a, b) return torch.addcdiv(r, a, 0.5, a, b) end },
  { 'lerp', function(a, b) return torch.lerp(a, b, 0.3) end, 'n', 'n', 1e-6, 1e-6 },
  { 'where', function(a, b) return torch.where(torch.gt(a, 0), a, b) end, 'n', 'n', 0, 0 },
}
gens.nz = nonzero_gen

-- shapes of a and b: equal, broadcasting both ways, one-element, size 0 and 1 dims
local PAIRS = {
  { { 5, 6, 7 }, { 5, 6, 7 } }, { { 5, 1, 7 }, { 1, 6, 1 } }, { { 7 }, { 5, 6, 7 } }, { { 5, 6, 7 }, { 6, 1 } },
  { { 1 }, { 4, 9 } }, { { 4, 9 }, { 1, 1 } }, { { 0, 3 }, { 1, 3 } }, { { 2, 0 }, { 2, 1 } }, { { 1, 65 }, { 33, 1 } },
  { { 3, 17 }, { 17 } },
}

function tests.binaryLayoutsAndBroadcast()
  torch.manualSeed(5)
  for _, c in ipairs(BINARY) do
    local name, f, ga, gb = c[1], c[2], gens[c[3]], gens[c[4]]
    for _, p in ipairs(PAIRS) do
      local a, b = ga(p[1]):float(), gb(p[2]):float()
      local rt, at = layout_tol(name)
      check_layouts(string.format('%s %s with %s', name, shape(a), shape(b)), f, { a, b }, { rtol = rt, atol = at })
    end
  end
end

function tests.binarySizesAndPrecision()
  torch.manualSeed(6)
  for _, c in ipairs(BINARY) do
    local name, f, ga, gb, rtol, atol = c[1], c[2], gens[c[3]], gens[c[4]], c[5], c[6]
    for _, n in ipairs(SIZES) do
      local a, b = ga({ n }), gb({ n })
      local what = string.format('%s of %d elements', name, n)
      check_precision(what, f, { a, b }, rtol, atol)
      local af, bf = a:float(), b:float()
      local rt, at = layout_tol(name)
      local full = f(af, bf)
      check_same({ f(layouts.stepped(af), bf) }, { full }, rt, at, what .. ', first stepped')
      check_same({ f(af, layouts.stepped(bf)) }, { full }, rt, at, what .. ', second stepped')
      if n > 2 then
        check_same({ f(af:narrow(1, 2, n - 1), bf:narrow(1, 2, n - 1)) }, { full:narrow(1, 2, n - 1) }, rt, at, what .. ', offset by 1')
        check_same({ f(af:narrow(1, 2, n - 2), bf:narrow(1, 1, n - 2)) }, { f(af:narrow(1, 2, n - 2):clone(), bf:narrow(1, 1, n - 2):clone()) }, rt, at, what .. ', misaligned operands')
      end
      -- broadcasting a one-element tensor and a row against n elements
      local one = bf:narrow(1, 1, 1)
      check_same({ f(af, one) }, { f(af, one:expandAs(af):clone()) }, rt, at, what .. ', second one element')
      check_same({ f(one, af) }, { f(one:expandAs(af):clone(), af) }, rt, at, what .. ', first one element')
    end
    -- a matrix against a row and against a column, above the grain
    local rt, at = layout_tol(name)
    local a, row, col = ga({ 300, 129 }):float(), gb({ 1, 129 }):float(), gb({ 300, 1 }):float()
    check_same({ f(a, row) }, { f(a, row:expand(300, 129):clone()) }, rt, at, name .. ' 300x129 with a row')
    check_same({ f(a, col) }, { f(a, col:expand(300, 129):clone()) }, rt, at, name .. ' 300x129 with a column')
    check_same({ f(row, col) }, { f(row:expand(300, 129):clone(), col:expand(300, 129):clone()) }, rt, at, name .. ' row with column')
    check_same({ f(a:t(), col:t()) }, { f(a:t():clone(), col:t():expand(129, 300):clone()) }, rt, at, name .. ' transposed with a row')
  end
end

function tests.binaryResultForms()
  torch.manualSeed(7)
  for _, c in ipairs(BINARY) do
    local name, f, ga, gb, out = c[1], c[2], gens[c[3]], gens[c[4]], c[7]
    if out then
      for _, p in ipairs({ { { 6, 5 }, { 6, 5 } }, { { 6, 1 }, { 1, 5 } }, { { 40000 }, { 40000 } } }) do
        local a, b = ga(p[1]):float(), gb(p[2]):float()
        local rt, at = layout_tol(name)
        check_out(name .. ' ' .. shape(a) .. ' with ' .. shape(b), f, out, { a, b }, { rtol = rt, atol = at })
      end
      -- res aliasing an input is the in-place form
      local a, b = ga({ 6, 5 }):float(), gb({ 6, 5 }):float()
      local ref = f(a, b)
      if ref:type() == a:type() then
        local a2 = a:clone()
        local rt, at = layout_tol(name)
        out(a2, a2, b)
        check_same({ a2 }, { ref }, rt, at, name .. ' into its first input')
        local b2 = b:clone()
        out(b2, a, b2)
        check_same({ b2 }, { ref }, rt, at, name .. ' into its second input')
      end
    end
  end
  -- the in-place methods x:f(y), with x non-contiguous and y broadcast
  local methods = { 'add', 'csub', 'cmul', 'cdiv', 'pow', 'atan2', 'cmax', 'cmin', 'fmod', 'remainder' }
  for _, m in ipairs(methods) do
    local x = (m == 'pow' and gens.p or gens.n3)({ 6, 5 }):float()
    for _, ysz in ipairs({ { 6, 5 }, { 1, 5 }, { 6, 1 }, { 5 } }) do
      local y = gens.nz(ysz):float()
      local ref = torch[m](x, y)
      for _, lay in ipairs({ 'contiguous', 'transposed', 'narrowed', 'stepped' }) do
        local x2 = lay == 'contiguous' and x:clone() or layouts[lay](x)
        local ret = x2[m](x2, y)
        local rt, at = layout_tol(m)
        check_same({ x2, ret }, { ref, ref }, rt, at, string.format('x:%s(y) with x %s and y %s', m, lay, shape(y)))
      end
      local x2 = x:clone()
      x2[m](x2, 2)
      check_same({ x2 }, { torch[m](x, 2) }, 0, 0, 'x:' .. m .. '(2)')
    end
  end
  -- x:add(value, y), x:add(y) with x a stride-0-free view of a self-overlapping expression
  local x, y = frandn(7, 9):float(), frandn(7, 9):float()
  local x2 = layouts.transposed(x)
  x2:add(0.5, y)
  check_same({ x2 }, { torch.add(x, 0.5, y) }, 0, 0, 'x:add(0.5, y) with x transposed')
  local x3 = x:clone()
  x3:add(x3)
  check_same({ x3 }, { torch.mul(x, 2) }, 0, 0, 'x:add(x)')
  local x4 = x:clone()
  x4:cmul(x4:t():t())
  check_same({ x4 }, { torch.cmul(x, x) }, 0, 0, 'x:cmul(view of x)')
  local x5 = frandn(8, 8):float()
  local x6 = x5:clone()
  x6:clamp(-0.5, 0.5)
  check_same({ x6 }, { torch.clamp(x5, -0.5, 0.5) }, 0, 0, 'x:clamp(-0.5, 0.5)')
  check_out('clamp', function(a) return torch.clamp(a, -0.5, 0.5) end, function(r, a) return torch.clamp(r, a, -0.5, 0.5) end, { x5 })
end


tester:add(tests)
tester:run(os.getenv('TOCHA_DIFF_ONLY'))  -- a pattern to run some of the tests
