-- nn arithmetic layers: Add, CAdd, Mul, CMul, MulConstant, AddConstant, Sum, Mean, Max, Min,
-- Exp, Log, Abs, Power, Square, Sqrt, Normalize, MM and MV against naive f64 references, with
-- Jacobians (batch and single sample), save/load, autograd, clearState, types, in-place flags,
-- printing and bad-input errors.
require 'nn'
local dir = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.'
local checks = dofile(dir .. '/fixtures/nn_checks.lua')
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
torch.setdefaulttensortype('torch.DoubleTensor')
torch.manualSeed(1234)

local T = torch.Tensor

function tests.addAndCAdd()
  local m = nn.Add(3)
  local x = torch.randn(4, 3)
  local y = m:forward(x)
  for i = 1, 4 do tester:assertTensorEq(y[i], x[i] + m.bias, 1e-12) end
  tester:assertTensorEq(m:forward(x[2]), x[2] + m.bias, 1e-12)
  local s = nn.Add(3, true)
  tester:asserteq(s.bias:nElement(), 1)
  tester:assertTensorEq(s:forward(x), x + s.bias[1], 1e-12)
  checks.standard(tester, nn.Add(3), T(4, 3))
  checks.standard(tester, nn.Add(3, true), T(2, 3))
  checks.jacobian(tester, nn.Add(6), T(2, 2, 3))
  local c = nn.CAdd(1, 3)
  tester:assertTableEq(c.bias:size():totable(), { 1, 3 })
  for i = 1, 4 do tester:assertTensorEq(c:forward(x)[i], x[i] + c.bias[1], 1e-12) end
  checks.standard(tester, nn.CAdd(1, 3), T(4, 3))
  checks.standard(tester, nn.CAdd(3), T(4, 3))
  checks.jacobian(tester, nn.CAdd(2, 1, 3), T(2, 4, 3))
  checks.jacobian(tester, nn.CAdd(torch.LongStorage({ 3 })), T(3))
  tester:assertErrorPattern(function() m:forward(torch.randn(4, 2)) end, 'nn.Add%(3%)%] expected 3 elements per sample')
  tester:assertErrorPattern(function() nn.CAdd(2, 3):forward(torch.randn(3, 3)) end, 'nn.CAdd%(2x3%)%] cannot broadcast')
  tester:assertErrorPattern(function() nn.CAdd() end, 'expected the bias size')
end

function tests.mulAndCMul()
  local m = nn.Mul()
  local x = torch.randn(4, 3)
  tester:assertTensorEq(m:forward(x), x * m.weight[1], 1e-12)
  checks.standard(tester, nn.Mul(), T(4, 3))
  local c = nn.CMul(3)
  for i = 1, 4 do tester:assertTensorEq(c:forward(x)[i], torch.cmul(x[i], c.weight), 1e-12) end
  -- Weight broadcast along its size-1 dims (per-channel scaling of 4D input).
  local ch = nn.CMul(1, 2, 1, 1)
  local z = torch.randn(3, 2, 2, 2)
  local out = ch:forward(z)
  tester:assertTensorEq(out:select(2, 2), z:select(2, 2) * ch.weight[1][2][1][1], 1e-12)
  checks.standard(tester, nn.CMul(3), T(4, 3))
  checks.standard(tester, nn.CMul(1, 2, 1, 1), T(3, 2, 2, 2))
  checks.jacobian(tester, nn.CMul(2, 3), T(6))
  tester:assertErrorPattern(function() c:forward(torch.randn(2, 4)) end, 'nn.CMul%(3%)%] expected 3 elements per sample')
end

function tests.constants()
  local x = torch.randn(3, 4)
  tester:assertTensorEq(nn.MulConstant(2.5):forward(x), x * 2.5, 1e-12)
  tester:assertTensorEq(nn.AddConstant(-1.5):forward(x), x - 1.5, 1e-12)
  local v = torch.randn(4)
  local av = nn.AddConstant(v)
  tester:assertTensorEq(av:forward(x)[2], x[2] + v, 1e-12)
  tester:assertTensorEq(av:forward(x[1]), x[1] + v, 1e-12)
  checks.standard(tester, nn.MulConstant(3), T(3, 4))
  checks.standard(tester, nn.AddConstant(3), T(3, 4))
  checks.jacobian(tester, nn.AddConstant(torch.randn(4)), T(3, 4))
  -- In place: the input changes and backward restores it.
  for _, m in ipairs({ nn.MulConstant(4, true), nn.AddConstant(2, true), nn.AddConstant(torch.randn(4), true) }) do
    local orig = x:clone()
    local inp = x:clone()
    local y = m:forward(inp)
    tester:asserteq(y, inp, 'output is the input')
    local g = m:backward(inp, torch.ones(3, 4))
    tester:assertTensorEq(inp, orig, 1e-12, 'input restored')
    tester:assertTensorEq(g, torch.ones(3, 4) * (m.constant_scalar == 4 and 4 or 1), 1e-12)
  end
  tester:assertErrorPattern(function() nn.MulConstant('a') end, 'the constant must be a number')
  tester:assertErrorPattern(function() nn.MulConstant(0, true) end, 'non%-zero constant')
  tester:assertErrorPattern(function() av:forward(torch.randn(3, 5)) end, 'the constant has 4 elements but the input is of size 3x5')
end

function tests.sumAndMean()
  local x = torch.randn(3, 4, 2)
  local function naive(d, avg)
    local sizes = x:size():totable()
    sizes[d] = 1
    local r = torch.zeros(torch.LongStorage(sizes))
    for i = 1, 3 do for j = 1, 4 do for k = 1, 2 do
      local idx = { i, j, k }
      idx[d] = 1
      r[idx[1]][idx[2]][idx[3]] = r[idx[1]][idx[2]][idx[3]] + x[i][j][k] / (avg and x:size(d) or 1)
    end end end
    return r
  end
  tester:assertTensorEq(nn.Sum(2):forward(x), naive(2):select(2, 1), 1e-12)
  tester:assertTensorEq(nn.Sum(-1):forward(x), naive(3):select(3, 1), 1e-12)
  tester:assertTensorEq(nn.Sum(1, nil, true):forward(x), naive(1, true):select(1, 1), 1e-12)
  tester:assertTensorEq(nn.Sum(2, nil, false, false):forward(x), naive(2), 1e-12)
  tester:assertTensorEq(nn.Mean(2):forward(x), naive(2, true):select(2, 1), 1e-12)
  -- nInputDims: a batch sums the dim after the batch dim.
  tester:assertTensorEq(nn.Sum(1, 2):forward(x), naive(2):select(2, 1), 1e-12)
  tester:assertTensorEq(nn.Sum(1, 2):forward(x[1]), naive(2)[1][1], 1e-12)
  -- A 1D input keeps one element.
  tester:assertTableEq(nn.Sum(1):forward(torch.randn(5)):size():totable(), { 1 })
  checks.standard(tester, nn.Sum(2), T(3, 4))
  checks.standard(tester, nn.Mean(-1, 1), T(3, 4))
  checks.jacobian(tester, nn.Sum(1, nil, true, false), T(4))
  tester:assertErrorPattern(function() nn.Sum(3):forward(torch.randn(2, 2)) end, 'nn.Sum%(3%)%] dimension 3 is out of range')
  tester:assertErrorPattern(function() nn.Mean(4):forward(torch.randn(2, 2)) end, 'nn.Mean%(4%)%]')
  tester:assertErrorPattern(function() nn.Sum(1, nil, nil, 'no') end, 'squeeze must be true or false')
end

function tests.maxAndMin()
  local x = T({ { 1, 7, 3 }, { 4, -2, 6 } })
  tester:assertTensorEq(nn.Max(2):forward(x), T({ 7, 6 }), 0)
  tester:assertTensorEq(nn.Max(1):forward(x), T({ 4, 7, 6 }), 0)
  tester:assertTensorEq(nn.Min(2):forward(x), T({ 1, -2 }), 0)
  tester:assertTensorEq(nn.Min(1, 1):forward(x), T({ 1, -2 }), 0)
  local m = nn.Max(2)
  m:forward(x)
  tester:assertTensorEq(m:backward(x, T({ 5, 9 })), T({ { 0, 5, 0 }, { 0, 0, 9 } }), 0)
  checks.standard(tester, nn.Max(2), T(3, 4))
  checks.standard(tester, nn.Min(-1), T(3, 4))
  checks.jacobian(tester, nn.Max(1), T(5))
  -- Inside a container converted with double(): the index buffer stays a LongTensor.
  local s = nn.Sequential():add(nn.Max(2)):float()
  s:forward(x:float())
  tester:asserteq(torch.type(s:get(1)._indices), 'torch.LongTensor')
  tester:assertErrorPattern(function() nn.Max(3):forward(x) end, 'nn.Max%(3%)%] dimension 3 is out of range')
end

function tests.pointwise()
  local x = torch.rand(3, 4):add(0.5)
  local y = torch.randn(3, 4)
  tester:assertTensorEq(nn.Exp():forward(y), y:clone():apply(math.exp), 1e-12)
  tester:assertTensorEq(nn.Log():forward(x), x:clone():apply(math.log), 1e-12)
  tester:assertTensorEq(nn.Abs():forward(y), y:clone():apply(math.abs), 1e-12)
  tester:assertTensorEq(nn.Square():forward(y), y:clone():apply(function(v) return v * v end), 1e-12)
  tester:assertTensorEq(nn.Sqrt():forward(x), x:clone():apply(math.sqrt), 1e-12)
  tester:assertTensorEq(nn.Sqrt(0.25):forward(x), x:clone():apply(function(v) return math.sqrt(v + 0.25) end), 1e-12)
  tester:assertTensorEq(nn.Power(1.5):forward(x), x:clone():apply(function(v) return v ^ 1.5 end), 1e-12)
  tester:assertTensorEq(nn.Power(3):forward(y), y:clone():apply(function(v) return v ^ 3 end), 1e-12)
  -- Abs' gradient is +1 at zero; Sqrt's is 0 where the output is 0 (Torch7's THNN).
  tester:assertTensorEq(nn.Abs():backward(T({ -2, 0, 3 }), T({ 1, 1, 1 })), T({ -1, 1, 1 }), 0)
  local sq = nn.Sqrt()
  sq:forward(T({ 0, 4 }))
  tester:assertTensorEq(sq:backward(T({ 0, 4 }), T({ 1, 1 })), T({ 0, 0.25 }), 0)
  checks.standard(tester, nn.Exp(), T(3, 4))
  checks.standard(tester, nn.Abs(), T(3, 4))
  checks.standard(tester, nn.Square(), T(3, 4))
  checks.standard(tester, nn.Power(3), T(3, 4))
  checks.jacobian(tester, nn.Exp(), T(5))
  -- Log, Sqrt and fractional powers on positive inputs.
  for _, m in ipairs({ nn.Log(), nn.Sqrt(), nn.Sqrt(0.1), nn.Power(1.5), nn.Power(-2) }) do
    tester:assertlt(nn.Jacobian.testJacobian(m, T(3, 4), 0.5, 2), 1e-5, tostring(m) .. ' jacobian')
    checks.io(tester, m, x)
    checks.autograd(tester, m, x)
    checks.clearState(tester, m, x)
    checks.types(tester, m, x)
  end
  for _, m in ipairs({ nn.Exp(), nn.Log(), nn.Abs(), nn.Square(), nn.Sqrt(), nn.Power(2) }) do
    tester:assertErrorPattern(function() m:forward('x') end, 'expected a tensor input', tostring(m))
  end
  tester:assertErrorPattern(function() nn.Power() end, 'usage: nn.Power%(p%)')
  tester:assertErrorPattern(function() nn.Exp():backward(y, torch.ones(2)) end, 'gradOutput does not match')
end

function tests.normalize()
  local x = torch.randn(3, 5)
  for _, p in ipairs({ 1, 1.5, 2, 3, math.huge }) do
    local m = nn.Normalize(p)
    local y = m:forward(x)
    for i = 1, 3 do
      local n
      if p == math.huge then n = torch.abs(x[i]):max()
      else n = (torch.abs(x[i]):pow(p):sum() + 1e-10) ^ (1 / p) end
      tester:assertTensorEq(y[i], x[i] / n, 1e-9, 'p = ' .. p)
    end
    tester:assertTensorEq(m:forward(x[2]), y[2], 1e-12)
    checks.standard(tester, nn.Normalize(p), T(3, 5))
    checks.jacobian(tester, nn.Normalize(p), T(4))
  end
  tester:asserteq(tostring(nn.Normalize(2)), 'nn.Normalize(2)')
  tester:asserteq(tostring(nn.Normalize(1.5)), 'nn.Normalize(1.500000)')
  tester:assertErrorPattern(function() nn.Normalize(2):forward(torch.randn(2, 2, 2)) end,
    'nn.Normalize%(2%)%] expected a vector or a batch of vectors %(2D%), got size 2x2x2')
  tester:assertErrorPattern(function() nn.Normalize(0) end, 'p must be a positive number')
end

function tests.mm()
  local a, b = torch.randn(3, 4), torch.randn(4, 2)
  tester:assertTensorEq(nn.MM():forward({ a, b }), a * b, 1e-12)
  tester:assertTensorEq(nn.MM(true):forward({ a:t():contiguous(), b }), a * b, 1e-12)
  tester:assertTensorEq(nn.MM(false, true):forward({ a, b:t():contiguous() }), a * b, 1e-12)
  local ba, bb = torch.randn(2, 3, 4), torch.randn(2, 4, 5)
  local y = nn.MM():forward({ ba, bb })
  for i = 1, 2 do tester:assertTensorEq(y[i], ba[i] * bb[i], 1e-12) end
  for _, tr in ipairs({ { false, false }, { true, false }, { false, true }, { true, true } }) do
    local A = tr[1] and T(4, 3) or T(3, 4)
    local B = tr[2] and T(2, 4) or T(4, 2)
    checks.standard(tester, nn.MM(tr[1], tr[2]), { A, B })
    checks.jacobian(tester, nn.MM(tr[1], tr[2]), { T(2, A:size(1), A:size(2)), T(2, B:size(1), B:size(2)) })
  end
  tester:assertErrorPattern(function() nn.MM():forward({ a, a }) end, 'nn.MM%(false, false%)%] cannot multiply 3x4 by 3x4')
  tester:assertErrorPattern(function() nn.MM():forward({ a, ba }) end, 'expected two matrices or two batches')
end

function tests.mv()
  local m, v = torch.randn(3, 4), torch.randn(4)
  tester:assertTensorEq(nn.MV():forward({ m, v }), torch.mv(m, v), 1e-12)
  tester:assertTensorEq(nn.MV(true):forward({ m:t():contiguous(), v }), torch.mv(m, v), 1e-12)
  local bm, bv = torch.randn(2, 3, 4), torch.randn(2, 4)
  local y = nn.MV():forward({ bm, bv })
  for i = 1, 2 do tester:assertTensorEq(y[i], torch.mv(bm[i], bv[i]), 1e-12) end
  checks.standard(tester, nn.MV(), { T(3, 4), T(4) })
  checks.standard(tester, nn.MV(true), { T(2, 4, 3), T(2, 4) })
  checks.jacobian(tester, nn.MV(), { T(2, 3, 4), T(2, 4) })
  checks.jacobian(tester, nn.MV(true), { T(4, 3), T(4) })
  tester:assertErrorPattern(function() nn.MV():forward({ m, torch.randn(3) }) end, 'nn.MV%(false%)%] cannot multiply a 3x4 matrix by a vector of 3')
  tester:assertErrorPattern(function() nn.MV():forward({ bm, v }) end, 'expected {matrix, vector}')
end

tester:add(tests)
tester:run()
