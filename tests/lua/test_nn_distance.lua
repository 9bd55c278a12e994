-- nn distance layers: DotProduct, CosineDistance, PairwiseDistance(p) and Euclidean against naive
-- f64 loops, for vectors and batches, with Jacobians (inputs and Euclidean's weight), save/load,
-- autograd, clearState, types and bad-input errors.
require 'nn'
local dir = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.'
local checks = dofile(dir .. '/fixtures/nn_checks.lua')
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
torch.setdefaulttensortype('torch.DoubleTensor')
torch.manualSeed(1234)

local T = torch.Tensor

local function dot(a, b)
  local s = 0
  for i = 1, a:size(1) do s = s + a[i] * b[i] end
  return s
end

function tests.dotProduct()
  local a, b = torch.randn(4, 3), torch.randn(4, 3)
  local m = nn.DotProduct()
  local y = m:forward({ a, b })
  tester:assertTableEq(y:size():totable(), { 4 })
  for i = 1, 4 do tester:assertalmosteq(y[i], dot(a[i], b[i]), 1e-12) end
  local y1 = m:forward({ a[1], b[1] })
  tester:assertTableEq(y1:size():totable(), { 1 })
  tester:assertalmosteq(y1[1], dot(a[1], b[1]), 1e-12)
  local gi = m:backward({ a, b }, T({ 1, 2, 3, 4 }))
  tester:assertTensorEq(gi[1][3], b[3] * 3, 1e-12)
  tester:assertTensorEq(gi[2][4], a[4] * 4, 1e-12)
  checks.standard(tester, nn.DotProduct(), { T(4, 3), T(4, 3) })
  checks.standard(tester, nn.DotProduct(), { T(3), T(3) })
  tester:assertErrorPattern(function() m:forward({ a, torch.randn(4, 2) }) end,
    'nn.DotProduct%] expected two vectors or two batches')
end

function tests.cosineDistance()
  local a, b = torch.randn(4, 3), torch.randn(4, 3)
  local m = nn.CosineDistance()
  local y = m:forward({ a, b })
  for i = 1, 4 do
    local ref = dot(a[i], b[i]) / math.sqrt((dot(a[i], a[i]) + 1e-12) * (dot(b[i], b[i]) + 1e-12))
    tester:assertalmosteq(y[i], ref, 1e-12)
  end
  tester:assertalmosteq(m:forward({ a[2], b[2] })[1], y[2], 1e-12)
  tester:assertalmosteq(m:forward({ a[1], a[1] * 3 })[1], 1, 1e-12)
  checks.standard(tester, nn.CosineDistance(), { T(4, 3), T(4, 3) })
  checks.standard(tester, nn.CosineDistance(), { T(5), T(5) })
  tester:assertErrorPattern(function() m:forward({ a }) end, 'nn.CosineDistance%] expected a table of 2 tensors')
end

function tests.pairwiseDistance()
  local a, b = torch.randn(4, 3), torch.randn(4, 3)
  for _, p in ipairs({ 1, 1.5, 2, 3 }) do
    local m = nn.PairwiseDistance(p)
    local y = m:forward({ a, b })
    for i = 1, 4 do
      local s = 0
      for k = 1, 3 do s = s + math.abs(a[i][k] - b[i][k]) ^ p end
      tester:assertalmosteq(y[i], s ^ (1 / p), 1e-12, 'p = ' .. p)
    end
    tester:assertalmosteq(m:forward({ a[3], b[3] })[1], y[3], 1e-12)
    checks.standard(tester, nn.PairwiseDistance(p), { T(4, 3), T(4, 3) }, 1e-5)
    checks.jacobian(tester, nn.PairwiseDistance(p), { T(3), T(3) }, 1e-5)
  end
  tester:asserteq(nn.PairwiseDistance().norm, 2)
  -- p = 1: the gradient of |0| is 0 (Torch7 drew a random sign).
  local g = nn.PairwiseDistance(1):backward({ T({ 1, 2 }), T({ 1, 0 }) }, T({ 1 }))
  tester:assertTensorEq(g[1], T({ 0, 1 }), 0)
  tester:assertErrorPattern(function() nn.PairwiseDistance(2):forward({ torch.randn(2, 2, 2), torch.randn(2, 2, 2) }) end,
    'nn.PairwiseDistance%(2%)%] expected two vectors or two batches')
  tester:assertErrorPattern(function() nn.PairwiseDistance(-1) end, 'p must be a positive number')
end

function tests.euclidean()
  local m = nn.Euclidean(3, 2)
  local x = torch.randn(4, 3)
  local y = m:forward(x)
  tester:assertTableEq(y:size():totable(), { 4, 2 })
  for i = 1, 4 do
    for j = 1, 2 do
      local d = x[i] - m.weight:select(2, j)
      tester:assertalmosteq(y[i][j], math.sqrt(dot(d, d)), 1e-12)
    end
  end
  tester:assertTensorEq(m:forward(x[2]), y[2], 1e-12)
  checks.standard(tester, nn.Euclidean(3, 2), T(4, 3), 1e-5)
  checks.standard(tester, nn.Euclidean(3, 2), T(3), 1e-5)
  -- Default init: uniform(-1/sqrt(inputSize), 1/sqrt(inputSize)).
  local big = nn.Euclidean(100, 50)
  tester:assertle(torch.noGrad(function() return torch.abs(big.weight):max() end), 0.1)
  tester:assertErrorPattern(function() m:forward(torch.randn(4, 2)) end,
    'nn.Euclidean%(3 %-> 2%)%] expected a vector of 3 features or a batch %(N x 3%), got torch.DoubleTensor of size 4x2')
  tester:assertErrorPattern(function() nn.Euclidean(0, 2) end, 'inputSize must be an integer >= 1')
end

function tests.siameseWithSharedWeights()
  -- A typical use: two inputs through clones sharing weights, then a distance.
  local enc = nn.Linear(4, 3)
  local net = nn.Sequential()
    :add(nn.ParallelTable():add(enc):add(enc:clone('weight', 'bias', 'gradWeight', 'gradBias')))
    :add(nn.CosineDistance())
  local x = { torch.randn(5, 4), torch.randn(5, 4) }
  checks.jacobian(tester, net, { T(5, 4), T(5, 4) })
  checks.autograd(tester, net, x)
  net:zeroGradParameters()
  net:forward(x)
  net:backward(x, torch.ones(5))
  local p, g = net:getParameters()
  tester:asserteq(p:nElement(), 15, 'shared parameters flattened once')
  tester:asserteq(g:nElement(), 15)
end

tester:add(tests)
tester:run()
