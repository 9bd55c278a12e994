-- nn dense layers with parameters on table or index inputs: Bilinear and LookupTable against
-- naive f64 loops, parameter Jacobians, padding rows, maxNorm renormalisation, gradient scaling
-- by frequency, save/load, autograd, clearState, types, printing and bad-input errors.
require 'nn'
local dir = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.'
local checks = dofile(dir .. '/fixtures/nn_checks.lua')
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
torch.setdefaulttensortype('torch.DoubleTensor')
torch.manualSeed(1234)

local T, L = torch.Tensor, torch.LongTensor
local J = nn.Jacobian

function tests.bilinear()
  local m = nn.Bilinear(3, 4, 2)
  local x1, x2 = torch.randn(5, 3), torch.randn(5, 4)
  local y = m:forward({ x1, x2 })
  for n = 1, 5 do
    for k = 1, 2 do
      local s = m.bias[k]
      for i = 1, 3 do for j = 1, 4 do s = s + x1[n][i] * m.weight[k][i][j] * x2[n][j] end end
      tester:assertalmosteq(y[n][k], s, 1e-12)
    end
  end
  local nb = nn.Bilinear(3, 4, 2, false)
  tester:asserteq(nb.bias, nil)
  tester:asserteq(#nb:parameters(), 1)
  checks.standard(tester, nn.Bilinear(3, 4, 2), { T(5, 3), T(5, 4) })
  checks.standard(tester, nn.Bilinear(2, 2, 3, false), { T(1, 2), T(1, 2) })
  -- Gradients accumulate with the scale (Torch7 dropped it for the weight).
  local s = nn.Bilinear(2, 3, 2)
  local inp = { torch.randn(4, 2), torch.randn(4, 3) }
  local go = torch.randn(4, 2)
  s:zeroGradParameters()
  s:forward(inp)
  s:backward(inp, go, 1)
  local once = s.gradWeight:clone()
  s:zeroGradParameters()
  s:backward(inp, go, 0.5)
  tester:assertTensorEq(s.gradWeight, once * 0.5, 1e-12)
  -- Default init: uniform(-1/sqrt(inputSize1), 1/sqrt(inputSize1)).
  local big = nn.Bilinear(16, 3, 10)
  tester:assertle(torch.noGrad(function() return torch.abs(big.weight):max() end), 0.25)
  tester:asserteq(tostring(m), 'nn.Bilinear(3x4 -> 2)')
  tester:asserteq(tostring(nb), 'nn.Bilinear(3x4 -> 2) without bias')
  tester:assertErrorPattern(function() m:forward({ x1, torch.randn(5, 3) }) end,
    'nn.Bilinear%(3x4 %-> 2%)%] expected {N x 3, N x 4} %(a table of two batches%), got {torch.DoubleTensor of size 5x3, torch.DoubleTensor of size 5x3}')
  tester:assertErrorPattern(function() m:forward(x1) end, 'expected {N x 3, N x 4}')
  tester:assertErrorPattern(function() m:forward({ x1[1], x2[1] }) end, 'expected {N x 3, N x 4}')
  tester:assertErrorPattern(function() m:backward({ x1, x2 }, torch.randn(5, 3)) end, 'gradOutput is .* but the output is of size 5x2')
  tester:assertErrorPattern(function() nn.Bilinear(3, 0, 2) end, 'inputSize2 must be an integer >= 1')
end

function tests.lookupTableForward()
  local m = nn.LookupTable(6, 3)
  local idx = L({ 2, 5, 2 })
  local y = m:forward(idx)
  tester:assertTableEq(y:size():totable(), { 3, 3 })
  for i = 1, 3 do tester:assertTensorEq(y[i], m.weight[idx[i]], 0) end
  local b = L({ { 1, 2 }, { 6, 1 } })
  local yb = m:forward(b)
  tester:assertTableEq(yb:size():totable(), { 2, 2, 3 })
  tester:assertTensorEq(yb[2][1], m.weight[6], 0)
  -- Any integer-valued tensor type works as indices; gradInput is zeros of the input's type.
  tester:assertTensorEq(m:forward(T({ 3, 4 })), m.weight:index(1, L({ 3, 4 })), 0)
  local gi = m:backward(T({ 3, 4 }), torch.ones(2, 3))
  tester:asserteq(torch.type(gi), 'torch.DoubleTensor')
  tester:assertTensorEq(gi, torch.zeros(2), 0)
  -- Default init: N(0, 1).
  local big = nn.LookupTable(200, 50)
  tester:assertalmosteq(torch.noGrad(function() return big.weight:std() end), 1, 0.05)
  tester:asserteq(tostring(m), 'nn.LookupTable')
  tester:assertErrorPattern(function() m:forward(L({ 1, 7 })) end,
    'nn.LookupTable%(6, 3%)%] index 7 is out of range %(indices go from 1 to 6%)')
  tester:assertErrorPattern(function() m:forward(L({ 0, 2 })) end, 'index 0 is out of range')
  tester:assertErrorPattern(function() m:forward(L(2, 2, 2):fill(1)) end, 'expected a vector of indices or a batch')
  tester:assertErrorPattern(function() nn.LookupTable(0, 3) end, 'nIndex must be an integer >= 1')
end

function tests.lookupTableGradients()
  local m = nn.LookupTable(5, 2)
  local idx = L({ { 1, 3, 3 }, { 5, 1, 2 } })
  local go = torch.randn(2, 3, 2)
  m:zeroGradParameters()
  m:forward(idx)
  m:backward(idx, go)
  local expect = torch.zeros(5, 2)
  for i = 1, 2 do for j = 1, 3 do expect[idx[i][j]]:add(go[i][j]) end end
  tester:assertTensorEq(m.gradWeight, expect, 1e-12)
  tester:assertlt(J.testJacobianParametersTable(m, idx, m.weight, m.gradWeight), 1e-6)
  tester:assertlt(J.testJacobianUpdateParametersTable(m, idx, m.weight), 1e-6)
  tester:assertlt(J.testJacobianParametersTable(m, L({ 4, 4, 1 }), m.weight, m.gradWeight), 1e-6)
  -- The padding row gets no gradient (its forward value is the row, as in Torch7).
  local p = nn.LookupTable(5, 2, 3)
  p:zeroGradParameters()
  tester:assertTensorEq(p:forward(idx)[1][2], p.weight[3], 0)
  p:backward(idx, go)
  expect[3]:zero()
  tester:assertTensorEq(p.gradWeight, expect, 1e-12)
  local allpad = nn.LookupTable(5, 2, 2)
  allpad:zeroGradParameters()
  allpad:backward(L({ 2, 2 }), torch.ones(2, 2))
  tester:asserteq(allpad.gradWeight:abs():sum(), 0)
  -- scaleGradByFreq divides each row's gradient by its count in the batch.
  local f = nn.LookupTable(5, 2):scaleGradByFreq()
  f:zeroGradParameters()
  f:backward(L({ 3, 3, 1 }), torch.ones(3, 2))
  tester:assertTensorEq(f.gradWeight, T({ { 1, 1 }, { 0, 0 }, { 1, 1 }, { 0, 0 }, { 0, 0 } }), 1e-12)
  -- accUpdateOnly: no gradWeight; accUpdateGradParameters updates the weight.
  local u = nn.LookupTable(4, 2):accUpdateOnly()
  tester:asserteq(u.gradWeight, nil)
  local w0 = u.weight:clone()
  u:forward(L({ 2 }))
  u:accUpdateGradParameters(L({ 2 }), torch.ones(1, 2), 0.5)
  tester:assertTensorEq(u.weight[2], w0[2] - 0.5, 1e-12)
  tester:assertTensorEq(u.weight[1], w0[1], 0)
  tester:assertErrorPattern(function() u:backward(L({ 2 }), torch.ones(1, 2)) end, 'has no gradWeight after accUpdateOnly')
  -- Through autograd, and as Torch7 does it.
  checks.autograd(tester, nn.LookupTable(5, 2), idx)
  checks.io(tester, nn.LookupTable(5, 2), idx)
  checks.clearState(tester, nn.LookupTable(5, 2), idx)
  checks.types(tester, nn.LookupTable(5, 2), idx)
  tester:assertErrorPattern(function() m:backward(idx, torch.randn(2, 3)) end, 'gradOutput is .* but the output has 6 x 2 elements')
end

function tests.lookupTableMaxNorm()
  local m = nn.LookupTable(4, 2, 0, 1)
  m.weight:copy(T({ { 3, 4 }, { 0.3, 0.4 }, { 6, 8 }, { 1, 1 } }))
  local y = m:forward(L({ 1, 2, 1 }))
  -- Rows used with norm > maxNorm are scaled to it in place (norm + 1e-7 as in Torch7); others stay.
  local s = 1 / (5 + 1e-7)
  tester:assertTensorEq(m.weight[1], T({ 3 * s, 4 * s }), 1e-12)
  tester:assertTensorEq(m.weight[2], T({ 0.3, 0.4 }), 0)
  tester:assertTensorEq(m.weight[3], T({ 6, 8 }), 0, 'unused rows are untouched')
  tester:assertTensorEq(y[3], m.weight[1], 0)
  -- Another norm type: max |w| (p = inf is not special-cased; p = 1 here).
  local l1 = nn.LookupTable(2, 2, 0, 2, 1)
  l1.weight:copy(T({ { 3, 1 }, { 1, 0.5 } }))
  l1:forward(L({ 1, 2 }))
  tester:assertTensorEq(l1.weight[1], T({ 1.5, 0.5 }), 1e-6)
  tester:assertTensorEq(l1.weight[2], T({ 1, 0.5 }), 0)
  tester:asserteq(nn.LookupTable(2, 2):setMaxNorm(3).maxNorm, 3)
  tester:asserteq(nn.LookupTable(2, 2):setNormType(1).normType, 1)
  tester:asserteq(nn.LookupTable(2, 2):setPadding(2).paddingValue, 2)
end

function tests.lookupTableInAModel()
  -- Embedding -> mean over the sequence -> Linear, trained both ways, gives the same gradients.
  local function model()
    torch.manualSeed(5)
    return nn.Sequential():add(nn.LookupTable(7, 4)):add(nn.Mean(1, 2)):add(nn.Linear(4, 2))
  end
  local a, b = model(), model()
  local idx = L({ { 1, 2, 7 }, { 3, 3, 1 } })
  local go = torch.randn(2, 2)
  a:zeroGradParameters()
  a:forward(idx)
  a:backward(idx, go)
  b:zeroGradParameters()
  torch.cmul(b:forward(idx), go):sum():backward()
  local _, ga = a:parameters()
  local _, gb = b:parameters()
  for i = 1, #ga do tester:assertlt(checks.maxdiff(ga[i], gb[i]), 1e-12, 'gradient ' .. i) end
  tester:assertlt(J.testJacobianParametersTable(a, idx, a:get(1).weight, a:get(1).gradWeight), 1e-6)
end

tester:add(tests)
tester:run()
