-- torch.isnan/isinf/isfinite/isposinf/isneginf, the logical ops, isclose/allclose and nanToNum:
-- every result against a loop of Lua scalar tests, over every dtype, broadcasting, empty, 0-dim
-- and non-contiguous inputs; nanToNum's gradient; error messages; CUDA against CPU when present.
local tester = torch.Tester()
local tests = torch.TestSuite()

local inf, nan = math.huge, 0 / 0
local FLOATS = { 'torch.FloatTensor', 'torch.DoubleTensor', 'torch.HalfTensor', 'torch.BFloat16Tensor' }
local INTS = { 'torch.LongTensor', 'torch.IntTensor', 'torch.ByteTensor', 'torch.BoolTensor' }
local ALL = { 'torch.FloatTensor', 'torch.DoubleTensor', 'torch.HalfTensor', 'torch.BFloat16Tensor',
              'torch.LongTensor', 'torch.IntTensor', 'torch.ByteTensor', 'torch.BoolTensor' }
local VALUES = { 0, -0.0, 1.5, -2, nan, inf, -inf, 3, nan, -inf, 0.25, 65504 }

local function is_nan(v) return v ~= v end
local PRED = {
  isnan = function(v) return is_nan(v) end,
  isinf = function(v) return v == inf or v == -inf end,
  isfinite = function(v) return not is_nan(v) and v ~= inf and v ~= -inf end,
  isposinf = function(v) return v == inf end,
  isneginf = function(v) return v == -inf end,
  logicalNot = function(v) return v == 0 end,
}

-- Flat Lua numbers of a tensor (row-major), read from a double copy.
local function flat(t)
  local d = t:double():contiguous():view(-1)
  local r = {}
  for i = 1, d:nElement() do r[i] = d[i] end
  return r
end

-- The mask as 0/1 numbers, checked to be a ByteTensor of the expected size.
local function mask_values(m, size, what)
  tester:asserteq(torch.type(m), 'torch.ByteTensor', what .. ': result type')
  tester:eq(m:size():totable(), size, what .. ': result size')
  return flat(m)
end

local function values_of(tname)
  local t = torch.Tensor(VALUES):type(tname)
  if tname == 'torch.BoolTensor' then t = torch.Tensor(VALUES):ne(0):type(tname) end
  return t
end

function tests.predicatesEveryDtype()
  for _, tname in ipairs(ALL) do
    local x = values_of(tname)
    local xs = flat(x)
    for name, ref in pairs(PRED) do
      local got = mask_values(torch[name](x), { #VALUES }, name .. ' ' .. tname)
      for i = 1, #xs do
        tester:asserteq(got[i], ref(xs[i]) and 1 or 0, string.format('%s(%s) of %s', name, tostring(xs[i]), tname))
      end
    end
  end
  -- integer and bool tensors: no NaN or inf
  for _, tname in ipairs(INTS) do
    local x = torch.Tensor({ { 1, 0 }, { 7, 3 } }):type(tname)
    tester:eq(torch.isnan(x):totable(), { { 0, 0 }, { 0, 0 } })
    tester:eq(torch.isinf(x):totable(), { { 0, 0 }, { 0, 0 } })
    tester:eq(torch.isfinite(x):totable(), { { 1, 1 }, { 1, 1 } })
    tester:asserteq(torch.type(torch.isfinite(x)), 'torch.ByteTensor')
  end
  -- f16 overflow: 1e5 becomes inf in a HalfTensor
  tester:eq(torch.isinf(torch.Tensor({ 1e5, 1 }):half()):totable(), { 1, 0 })
end

function tests.predicatesShapes()
  -- empty, 0-dim, non-contiguous, methods return a new mask and leave x alone
  tester:eq(torch.isnan(torch.Tensor(0)):size():totable(), { 0 })
  tester:eq(torch.isfinite(torch.Tensor(2, 0)):size():totable(), { 2, 0 })
  local z = torch.Tensor({ nan }):view({})  -- 0-dim
  tester:asserteq(torch.isnan(z):dim(), 0)
  tester:asserteq(torch.isnan(z):item(), 1)
  local x = torch.Tensor({ { 1, nan, inf }, { -inf, 2, nan } })
  local xt = x:t()  -- 3x2, not contiguous
  tester:assert(not xt:isContiguous())
  tester:eq(torch.isnan(xt):totable(), { { 0, 0 }, { 1, 0 }, { 0, 1 } })
  tester:eq(torch.isfinite(xt):totable(), { { 1, 0 }, { 0, 1 }, { 0, 0 } })
  tester:eq(xt:isinf():totable(), { { 0, 1 }, { 0, 0 }, { 1, 0 } })
  local m = x:isnan()
  tester:eq(m:totable(), { { 0, 1, 0 }, { 0, 0, 1 } })
  tester:asserteq(torch.type(x), 'torch.FloatTensor')
  tester:asserteq(x[1][3], inf)  -- x unchanged
  -- a tensor that requires grad gives a plain mask
  local w = torch.DoubleTensor({ 1, nan }):requiresGrad()
  local mw = torch.isnan(w)
  tester:eq(mw:totable(), { 0, 1 })
  tester:assert(mw.gradFn == nil)
end

function tests.logicalOps()
  local a_vals = { 0, 1, -2, nan, 0, 0.5 }
  local b_vals = { 0, 0, 3, 0, nan, -1 }
  local ref = {
    logicalAnd = function(p, q) return p ~= 0 and q ~= 0 end,
    logicalOr = function(p, q) return p ~= 0 or q ~= 0 end,
    logicalXor = function(p, q) return (p ~= 0) ~= (q ~= 0) end,
  }
  for _, ta in ipairs(ALL) do
    for _, tb in ipairs({ 'torch.FloatTensor', 'torch.LongTensor', 'torch.BoolTensor', 'torch.HalfTensor' }) do
      local a, b = torch.Tensor(a_vals), torch.Tensor(b_vals)
      if ta == 'torch.BoolTensor' then a = a:ne(0) end
      if tb == 'torch.BoolTensor' then b = b:ne(0) end
      a, b = a:type(ta), b:type(tb)
      local av, bv = flat(a), flat(b)
      for name, f in pairs(ref) do
        local got = mask_values(torch[name](a, b), { #a_vals }, name)
        for i = 1, #av do
          tester:asserteq(got[i], f(av[i], bv[i]) and 1 or 0,
            string.format('%s(%s, %s) for %s, %s', name, tostring(av[i]), tostring(bv[i]), ta, tb))
        end
      end
    end
  end
  -- broadcasting 3x1 with 4, methods, non-contiguous operand
  local c = torch.Tensor({ { 0 }, { 1 }, { nan } })
  local r = torch.Tensor({ 1, 0, 2, 0 })
  tester:eq(torch.logicalAnd(c, r):totable(), { { 0, 0, 0, 0 }, { 1, 0, 1, 0 }, { 1, 0, 1, 0 } })
  tester:eq(c:logicalOr(r):totable(), { { 1, 0, 1, 0 }, { 1, 1, 1, 1 }, { 1, 1, 1, 1 } })
  tester:eq(c:logicalXor(r):totable(), { { 1, 0, 1, 0 }, { 0, 1, 0, 1 }, { 0, 1, 0, 1 } })
  tester:eq(c:view(3):logicalNot():totable(), { 1, 0, 0 })
  local nc = torch.Tensor({ { 1, 0 }, { 0, 0 } }):t()
  tester:eq(torch.logicalAnd(nc, torch.ones(2, 2)):totable(), { { 1, 0 }, { 0, 0 } })
  -- Torch7's rule: same element count, different shapes
  tester:eq(torch.logicalOr(torch.zeros(2, 2), torch.Tensor({ 0, 1, 0, 1 })):totable(), { { 0, 1 }, { 0, 1 } })
  -- empty and 0-dim
  tester:eq(torch.logicalAnd(torch.Tensor(0), torch.Tensor(0)):size():totable(), { 0 })
  tester:asserteq(torch.logicalXor(torch.Tensor({ 1 }):view({}), torch.Tensor({ 0 }):view({})):item(), 1)
end

function tests.logicalErrors()
  tester:assertErrorPattern(function() torch.logicalAnd(torch.ones(2, 3), torch.ones(4)) end,
    '%[logicalAnd%] sizes 2x3 and 4 do not broadcast and have different numbers of elements %(6 vs 4%)')
  tester:assertErrorPattern(function() torch.logicalOr(torch.ones(2), 1) end,
    '%[logicalOr%] expected a tensor as argument 2, got number')
  tester:assertErrorPattern(function() torch.isnan('x') end, '%[isnan%] expected a tensor as argument 1, got string')
  tester:assertErrorPattern(function() torch.logicalNot(nil) end, '%[logicalNot%] expected a tensor as argument 1')
end

-- PyTorch's isclose on one pair of numbers.
local function close_ref(p, q, rtol, atol, equal_nan)
  if p == q then return true end
  if equal_nan and is_nan(p) and is_nan(q) then return true end
  local err = math.abs(p - q)
  return err < inf and err <= atol + rtol * math.abs(q)
end

function tests.isclose()
  local a_vals = { 1, 1, 1, inf, inf, -inf, nan, nan, 0, 1e-9, 100, 100, 1, -3, 3e38 }
  local b_vals = { 1, 1 + 1e-6, 1.1, inf, -inf, -inf, nan, 1, 0, 0, 100.001, 100.0011, inf, -3.00001, -3e38 }
  local a, b = torch.DoubleTensor(a_vals), torch.DoubleTensor(b_vals)
  for _, case in ipairs({ { 1e-5, 1e-8, false }, { 1e-5, 1e-8, true }, { 0, 0, false }, { 0, 0, true },
                          { 1e-3, 0, false }, { 0, 0.2, false }, { 2, 1, true } }) do
    local rtol, atol, en = case[1], case[2], case[3]
    local got = mask_values(torch.isclose(a, b, rtol, atol, en), { #a_vals }, 'isclose')
    local tgot = flat(torch.isclose(a, b, { rtol = rtol, atol = atol, equalNan = en }))
    for i = 1, #a_vals do
      local want = close_ref(a_vals[i], b_vals[i], rtol, atol, en) and 1 or 0
      tester:asserteq(got[i], want, string.format('isclose(%s, %s, %g, %g, %s)', tostring(a_vals[i]),
        tostring(b_vals[i]), rtol, atol, tostring(en)))
      tester:asserteq(tgot[i], want, 'isclose with a table of options')
    end
  end
  -- defaults, the float dtypes, methods
  tester:eq(torch.isclose(torch.Tensor({ 1, 2, nan }), torch.Tensor({ 1 + 1e-7, 2.1, nan })):totable(), { 1, 0, 0 })
  tester:eq(torch.Tensor({ 1, nan }):isclose(torch.Tensor({ 1, nan }), { equalNan = true }):totable(), { 1, 1 })
  tester:eq(torch.isclose(torch.Tensor({ 1, 2 }):half(), torch.Tensor({ 1.0005, 2.5 }):half(), 1e-3):totable(), { 1, 0 })
  -- broadcasting, mixed dtypes, integers (computed without overflow), non-contiguous
  tester:eq(torch.isclose(torch.Tensor({ { 1 }, { 2 } }), torch.DoubleTensor({ 1, 2, 2.0000001 })):totable(),
            { { 1, 0, 0 }, { 0, 1, 1 } })
  tester:eq(torch.isclose(torch.LongTensor({ 100, 7, 9007199254740000 }), torch.LongTensor({ 101, 7, -9007199254740000 }),
                          0.01, 0):totable(), { 1, 1, 0 })
  tester:eq(torch.isclose(torch.IntTensor({ 5 }), torch.FloatTensor({ 5.00001 })):totable(), { 1 })
  tester:eq(torch.isclose(torch.BoolTensor({ true, false }), torch.BoolTensor({ true, true })):totable(), { 1, 0 })
  local m = torch.Tensor({ { 1, 2 }, { 3, 4 } })
  tester:eq(torch.isclose(m:t(), torch.Tensor({ { 1, 3 }, { 2, 5 } })):totable(), { { 1, 1 }, { 1, 0 } })
  tester:eq(torch.isclose(torch.Tensor(0), torch.Tensor(0)):size():totable(), { 0 })
end

function tests.allclose()
  tester:asserteq(torch.allclose(torch.Tensor({ 1, 2 }), torch.Tensor({ 1, 2 + 1e-6 })), true)
  tester:asserteq(torch.allclose(torch.Tensor({ 1, 2 }), torch.Tensor({ 1, 2.1 })), false)
  tester:asserteq(torch.allclose(torch.Tensor({ 1, 2 }), torch.Tensor({ 1, 2.1 }), 0.1), true)
  tester:asserteq(torch.allclose(torch.Tensor({ nan }), torch.Tensor({ nan })), false)
  tester:asserteq(torch.allclose(torch.Tensor({ nan }), torch.Tensor({ nan }), { equalNan = true }), true)
  tester:asserteq(torch.allclose(torch.Tensor({ inf, -inf }), torch.Tensor({ inf, -inf })), true)
  tester:asserteq(torch.allclose(torch.Tensor(0), torch.Tensor(0)), true)
  tester:asserteq(torch.ones(3):allclose(torch.ones(2, 3)), true)  -- broadcasting
end

function tests.iscloseErrors()
  local a = torch.ones(2)
  tester:assertErrorPattern(function() torch.isclose(a, a, -1) end, '%[isclose%] rtol must be a number >= 0, got %-1')
  tester:assertErrorPattern(function() torch.allclose(a, a, 0, -1e-3) end, '%[allclose%] atol must be a number >= 0')
  tester:assertErrorPattern(function() torch.isclose(a, a, { rtol = 1, tol = 2 }) end,
    "%[isclose%] unknown option 'tol' %(expected rtol, atol, equalNan%)")
  tester:assertErrorPattern(function() torch.isclose(a, a, { rtol = 1 }, 2) end,
    '%[isclose%] options given as a table take no further arguments, got number')
  tester:assertErrorPattern(function() torch.isclose(a, a, 'x') end, '%[isclose%] rtol must be a number, got string')
  tester:assertErrorPattern(function() torch.isclose(a, a, 1, 1, 1) end, '%[isclose%] equalNan must be a boolean, got number')
  tester:assertErrorPattern(function() torch.isclose(a, a, 1, 1, true, 5) end, '%[isclose%] expected %(a, b')
  tester:assertErrorPattern(function() torch.isclose(a, torch.ones(3)) end, '%[isclose%] sizes 2 and 3 do not broadcast')
  tester:assertErrorPattern(function() torch.allclose(a, 2) end, '%[allclose%] expected a tensor as argument 2, got number')
end

local LARGEST = {
  ['torch.FloatTensor'] = 3.4028234663852886e38,
  ['torch.DoubleTensor'] = 1.7976931348623157e308,
  ['torch.HalfTensor'] = 65504,
  ['torch.BFloat16Tensor'] = 3.3895313892515355e38,
}

function tests.nanToNum()
  for _, tname in ipairs(FLOATS) do
    local x = torch.Tensor({ nan, inf, -inf, 1.5, -2, 0 }):type(tname)
    local big = LARGEST[tname]
    local r = torch.nanToNum(x)
    tester:asserteq(torch.type(r), tname)
    tester:eq(flat(r), { 0, big, -big, 1.5, -2, 0 }, 'nanToNum defaults of ' .. tname)
    tester:eq(flat(torch.nanToNum(x, 7, 100, -100)), { 7, 100, -100, 1.5, -2, 0 }, 'nanToNum values of ' .. tname)
    tester:eq(flat(torch.nanToNum(x, -1, 5)), { -1, 5, -big, 1.5, -2, 0 }, 'nanToNum posinf only, ' .. tname)
    tester:eq(flat(torch.nanToNum(x, nil, nil, 9)), { 0, big, 9, 1.5, -2, 0 }, 'nanToNum neginf only, ' .. tname)
    tester:asserteq(flat(x)[2], inf)  -- x unchanged
  end
  -- integers: a copy
  local l = torch.LongTensor({ 1, -2, 3 })
  local lc = torch.nanToNum(l)
  tester:eq(lc:totable(), { 1, -2, 3 })
  lc[1] = 9
  tester:asserteq(l[1], 1)
  tester:eq(torch.nanToNum(torch.BoolTensor({ true, false })):totable(), { true, false })
  -- non-contiguous, 0-dim, empty
  local m = torch.Tensor({ { nan, 1 }, { inf, 2 } }):t()
  tester:eq(torch.nanToNum(m, 0, 10):totable(), { { 0, 10 }, { 1, 2 } })
  tester:asserteq(torch.nanToNum(torch.Tensor({ -inf }):view({}), 0, 0, -3):item(), -3)
  tester:eq(torch.nanToNum(torch.Tensor(0)):size():totable(), { 0 })
  -- the method works in place
  local y = torch.Tensor({ nan, 1 })
  tester:assert(y:nanToNum(5) == y)
  tester:eq(y:totable(), { 5, 1 })
  tester:eq(torch.Tensor({ inf }):nanToNum_(0, 1):totable(), { 1 })
  tester:assertErrorPattern(function() torch.nanToNum(y, 'a') end, '%[nanToNum%] nan must be a number, got string')
  tester:assertErrorPattern(function() torch.nanToNum(y, 0, 1, 2, 3) end, '%[nanToNum%] expected %(x %[, nan')
  tester:assertErrorPattern(function() torch.nanToNum(3) end, '%[nanToNum%] expected a tensor as argument 1, got number')
end

function tests.nanToNumGradient()
  -- finite inputs: gradcheck through both paths (default clamp, explicit replacements)
  local x = torch.DoubleTensor({ 0.3, -1.2, 2.5 }):requiresGrad()
  tester:assert(torch.autograd.gradcheck(function(t) return torch.nanToNum(t) end, { x }))
  tester:assert(torch.autograd.gradcheck(function(t) return torch.nanToNum(t, 1, 2, 3) end, { x }))
  -- non-finite elements get a zero gradient, finite ones pass it through (PyTorch's)
  for _, args in ipairs({ {}, { 1, 2, -2 } }) do
    local w = torch.DoubleTensor({ nan, inf, -inf, 1.5, -3 }):requiresGrad()
    local y = torch.nanToNum(w, unpack(args))
    local g = torch.DoubleTensor({ 1, 2, 3, 4, 5 })
    torch.sum(torch.cmul(y, g)):backward()
    tester:eq(w.grad:totable(), { 0, 0, 0, 4, 5 })
  end
  -- the in-place method on a tensor with history (its backward once failed: the clamp's saved
  -- input was the tensor the method overwrites)
  local w = torch.DoubleTensor({ nan, 1.5, inf, -3 }):requiresGrad()
  local y = w * 2
  tester:assert(y:nanToNum(7) == y)
  tester:eq(y:detach():totable(), { 7, 3, 1.7976931348623157e308, -6 })
  torch.sum(torch.cmul(y, torch.DoubleTensor({ 1, 2, 3, 4 }))):backward()
  tester:eq(w.grad:totable(), { 0, 4, 0, 8 })
end

function tests.cuda()
  if not torch.cuda.isAvailable() then
    print('SKIPPED: no CUDA device (predicates, logical ops, isclose and nanToNum against the CPU)')
    return
  end
  for _, tname in ipairs(ALL) do
    local x = values_of(tname)
    local xc = x:cuda()
    for name in pairs(PRED) do
      tester:eq(torch[name](xc):byte():totable(), torch[name](x):totable(), name .. ' on cuda, ' .. tname)
    end
    tester:eq(torch.logicalXor(xc, xc:flip(1)):byte():totable(), torch.logicalXor(x, x:flip(1)):totable())
  end
  local a, b = torch.randn(5, 1), torch.randn(1, 7)
  a[2][1], b[1][3] = nan, inf
  tester:eq(torch.isclose(a:cuda(), b:cuda(), 0.5, 0.1, true):byte():totable(), torch.isclose(a, b, 0.5, 0.1, true):totable())
  tester:asserteq(torch.allclose(a:cuda(), a:cuda(), { equalNan = true }), true)
  local v = torch.Tensor({ nan, inf, -inf, 2 })
  tester:eq(torch.nanToNum(v:cuda(), 1, 2):float():totable(), torch.nanToNum(v, 1, 2):totable())
end

tester:add(tests)
tester:run()
