-- Torch7's criterions that Tocha added later: WeightedMSE, L1Cost, L1HingeEmbedding, SpatialClassNLL,
-- ClassSimplex, SpatialAutoCropMSE and DistanceRatio, and a training step through them and the
-- dense layers of test_nn_t7_dense.lua. Values against plain Lua loops, gradients against central
-- differences and autograd (criterion_check.lua), float(), printing, errors and save/load.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local ccheck = dofile(here .. '/criterion_check.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()
torch.setdefaulttensortype('torch.DoubleTensor')
torch.manualSeed(7)

local T, L = torch.Tensor, torch.LongTensor
local TMP = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/nn_t7_criterion_' .. tostring(os.time())

-- ---- criterions --------------------------------------------------------------------------------

function tests.weightedMSECriterion()
  local x, t = torch.randn(3, 4), torch.randn(3, 4)
  for _, w in ipairs({ torch.rand(4), torch.rand(3, 4) }) do
    local c = nn.WeightedMSECriterion(w)
    local s = 0
    for n = 1, 3 do for i = 1, 4 do
      local wi = w:dim() == 1 and w[i] or w[n][i]
      s = s + (x[n][i] - wi * t[n][i]) ^ 2  -- Torch7 weights the target only
    end end
    tester:assertalmosteq(c:forward(x, t), s / 12, 1e-12, 'mean')
    c.sizeAverage = false
    tester:assertalmosteq(c:forward(x, t), s, 1e-12, 'sum')
    ccheck.gradients(tester, c, x, t, 'WeightedMSECriterion')
    ccheck.types(tester, function() return nn.WeightedMSECriterion(w) end, x, t, 'WeightedMSECriterion')
  end
  local w = torch.rand(4)
  local c = nn.WeightedMSECriterion(w)
  w:fill(0)
  tester:assert(c.weight:sum() > 0, 'the weight is copied')
  local c2 = torch.deserialize(torch.serialize(c))
  tester:assertalmosteq(c2:forward(x, t), c:forward(x, t), 1e-12, 'save/load')
  tester:asserteq(tostring(c), 'nn.WeightedMSECriterion')
  tester:assertErrorPattern(function() c:forward(torch.randn(3, 5), torch.randn(3, 5)) end,
    '%[nn.WeightedMSECriterion%] weight is torch.DoubleTensor of size 4 but a sample of the input is of size 5')
  tester:assertErrorPattern(function() c:forward(x, torch.randn(5)) end, 'they need as many elements')
  tester:assertErrorPattern(function() nn.WeightedMSECriterion() end, 'weight must be a floating%-point tensor, got nil')
end

function tests.l1Cost()
  local x = torch.randn(3, 4)
  local c = nn.L1Cost()
  local s = 0
  for n = 1, 3 do for i = 1, 4 do s = s + math.abs(x[n][i]) end end
  tester:assertalmosteq(c:forward(x), s, 1e-12)
  ccheck.gradients(tester, c, x, nil, 'L1Cost')
  tester:assertTensorEq(c:backward(T({ -2, 0, 3 })), T({ -1, 0, 1 }), 0, 'sign, 0 at 0')
  ccheck.types(tester, function() return nn.L1Cost() end, x, nil, 'L1Cost')
  tester:asserteq(tostring(c), 'nn.L1Cost')
  tester:assertErrorPattern(function() c:forward({ x }) end, '%[nn.L1Cost%] expected a floating%-point input tensor')
end

function tests.l1HingeEmbeddingCriterion()
  local a, b = torch.randn(5), torch.randn(5)
  local d = 0
  for i = 1, 5 do d = d + math.abs(a[i] - b[i]) end
  local c = nn.L1HingeEmbeddingCriterion(d + 1)
  tester:assertalmosteq(c:forward({ a, b }, 1), d, 1e-12, 'similar pair')
  tester:assertalmosteq(c:forward({ a, b }, -1), 1, 1e-12, 'dissimilar pair inside the margin')
  tester:asserteq(nn.L1HingeEmbeddingCriterion(d / 2):forward({ a, b }, -1), 0, 'outside the margin')
  tester:asserteq(nn.L1HingeEmbeddingCriterion().margin, 1)
  ccheck.gradients(tester, c, { a, b }, 1, 'L1HingeEmbedding y=1')
  ccheck.gradients(tester, c, { a, b }, -1, 'L1HingeEmbedding y=-1')
  ccheck.gradients(tester, nn.L1HingeEmbeddingCriterion(d / 2), { a, b }, -1, 'L1HingeEmbedding beyond the margin')
  ccheck.gradients(tester, c, { torch.randn(2, 3), torch.randn(2, 3) }, T({ -1 }), 'L1HingeEmbedding tensor label')
  ccheck.types(tester, function() return nn.L1HingeEmbeddingCriterion(2) end, { a, b }, 1, 'L1HingeEmbedding')
  tester:asserteq(tostring(c), 'nn.L1HingeEmbeddingCriterion')
  tester:assertErrorPattern(function() c:forward({ a, b }, 0) end,
    '%[nn.L1HingeEmbeddingCriterion%(margin [%d.]+%)%] the label must be 1 or %-1, got number')
  tester:assertErrorPattern(function() c:forward({ a, torch.randn(4) }, 1) end,
    'expected two floating%-point tensors with as many elements')
  tester:assertErrorPattern(function() c:forward(a, 1) end, 'expected a table of 2 tensors')
  tester:assertErrorPattern(function() nn.L1HingeEmbeddingCriterion('x') end, 'margin must be a number')
end

function tests.spatialClassNLLCriterion()
  local N, C, H, W = 2, 3, 4, 5
  local x = nn.LogSoftMax():forward(torch.randn(N * H * W, C)):view(N, H, W, C):permute(1, 4, 2, 3):contiguous()
  local t = L(N, H, W):random(1, C)
  local w = torch.rand(C):add(0.5)
  for _, weights in ipairs({ false, true }) do
    for _, avg in ipairs({ true, false }) do
      local c = nn.SpatialClassNLLCriterion(weights and w or nil, avg)
      local s, tw = 0, 0
      for n = 1, N do for i = 1, H do for j = 1, W do
        local k = t[n][i][j]
        local wk = weights and w[k] or 1
        s, tw = s - wk * x[n][k][i][j], tw + wk
      end end end
      local label = 'SpatialClassNLL weights=' .. tostring(weights) .. ' sizeAverage=' .. tostring(avg)
      tester:assertalmosteq(c:forward(x, t), avg and s / tw or s, 1e-12, label)
      ccheck.gradients(tester, c, x, t, label)
    end
  end
  local c = nn.SpatialClassNLLCriterion(w)
  -- Torch7's __len (LuaJIT honours no __len on tables, so it is called as a method)
  tester:asserteq(c:__len(), C, 'the number of weights')
  tester:asserteq(nn.SpatialClassNLLCriterion():__len(), 0)
  tester:assertalmosteq(c:forward(x, t:double()), c:forward(x, t), 1e-12, 'double targets')
  ccheck.types(tester, function() return nn.SpatialClassNLLCriterion(w) end, x, t, 'SpatialClassNLL')
  local c2 = torch.deserialize(torch.serialize(c))
  tester:assertalmosteq(c2:forward(x, t), c:forward(x, t), 1e-12, 'save/load')
  tester:asserteq(tostring(c), 'nn.SpatialClassNLLCriterion')
  tester:assertErrorPattern(function() c:forward(x[1], t[1]) end,
    '%[nn.SpatialClassNLLCriterion%] expected N x C x H x W log%-probabilities, got torch.DoubleTensor of size 3x4x5')
  tester:assertErrorPattern(function() c:forward(x, L(N, H, W + 1):fill(1)) end,
    'input is torch.DoubleTensor of size 2x3x4x5, expected a target of size 2x4x5, got torch.LongTensor of size 2x4x6')
  tester:assertErrorPattern(function() c:forward(x, L(N, H, W):fill(C + 1)) end, '%[nn.SpatialClassNLLCriterion%]')
  tester:assertErrorPattern(function() nn.SpatialClassNLLCriterion(torch.rand(2, 2)) end, 'weights must be a 1%-D tensor')
end

function tests.classSimplexCriterion()
  local K = 4
  local c = nn.ClassSimplexCriterion(K)
  tester:assertTableEq(c.simplex:size():totable(), { K, K })
  -- a regular simplex: unit vertices, equal pairwise dot products -1/(K-1), centred at 0
  for i = 1, K do
    tester:assertalmosteq(c.simplex[i]:norm(), 1, 1e-12, 'unit vertex')
    for j = i + 1, K do tester:assertalmosteq(c.simplex[i]:dot(c.simplex[j]), -1 / (K - 1), 1e-12, 'regular') end
  end
  tester:assertalmosteq(c.simplex:sum(1):abs():max(), 0, 1e-12, 'centred')
  tester:assertTensorEq(c.simplex:select(2, K), torch.zeros(K), 0, 'one spare dimension')
  local x, t = torch.randn(3, K), L({ 2, 4, 1 })
  local s = 0
  for n = 1, 3 do for i = 1, K do s = s + (x[n][i] - c.simplex[t[n]][i]) ^ 2 end end
  tester:assertalmosteq(c:forward(x, t), s / (3 * K), 1e-12, 'MSE against the vertices')
  tester:assertalmosteq(c:forward(x[2], 4), (x[2] - c.simplex[4]):pow(2):sum() / K, 1e-12, 'a class number')
  ccheck.gradients(tester, c, x, t, 'ClassSimplex')
  ccheck.gradients(tester, c, x[1], 2, 'ClassSimplex one sample')
  ccheck.types(tester, function() return nn.ClassSimplexCriterion(K) end, x, t, 'ClassSimplex')
  tester:assertTensorEq(c:getTopPrediction(c.simplex), L({ 1, 2, 3, 4 }), 0, 'each vertex predicts its class')
  tester:assertTensorEq(c:getPredictions(x), torch.mm(x, c.simplex:t()), 1e-12)
  local c2 = torch.deserialize(torch.serialize(c))
  tester:assertalmosteq(c2:forward(x, t), c:forward(x, t), 1e-12, 'save/load')
  tester:asserteq(tostring(c), 'nn.ClassSimplexCriterion')
  tester:assertErrorPattern(function() c:forward(x, L({ 1, 5, 2 })) end,
    '%[nn.ClassSimplexCriterion%(4%)%] target classes must be in %[1, 4%]')
  tester:assertErrorPattern(function() c:forward(x, L({ 1, 2 })) end, 'input is .* but 2 target%(s%) need 8 values')
  tester:assertErrorPattern(function() c:forward(x, 0) end, 'target class must be in %[1, 4%], got 0')
  tester:assertErrorPattern(function() c:forward(x, T({ 1, 2.5, 3 })) end, 'must be integers')
  tester:assertErrorPattern(function() nn.ClassSimplexCriterion(1) end, 'nClasses must be an integer >= 2')
end

function tests.spatialAutoCropMSECriterion()
  local c = nn.SpatialAutoCropMSECriterion()
  local x, t = torch.randn(2, 3, 3, 4), torch.randn(2, 3, 6, 5)
  -- rows 2..4 (1 + floor(3 / 2)), columns 1..4 (1 + floor(1 / 2))
  local s = 0
  for n = 1, 2 do for k = 1, 3 do for i = 1, 3 do for j = 1, 4 do
    s = s + (x[n][k][i][j] - t[n][k][i + 1][j]) ^ 2
  end end end end
  tester:assertalmosteq(c:forward(x, t), s / x:nElement(), 1e-12, 'mean over the crop')
  tester:assertalmosteq(nn.SpatialAutoCropMSECriterion(false):forward(x, t), s, 1e-12, 'sum')
  tester:assertalmosteq(c:forward(x[1], t[1]), nn.MSECriterion():forward(x[1], t[1]:narrow(2, 2, 3):narrow(3, 1, 4)),
    1e-12, 'C x H x W')
  ccheck.gradients(tester, c, x, t, 'SpatialAutoCropMSE')
  ccheck.gradients(tester, c, x, x:clone():add(1), 'SpatialAutoCropMSE same size')
  ccheck.types(tester, function() return nn.SpatialAutoCropMSECriterion() end, x, t, 'SpatialAutoCropMSE')
  tester:asserteq(tostring(c), 'nn.SpatialAutoCropMSECriterion')
  tester:assertErrorPattern(function() c:forward(t, x) end,
    '%[nn.SpatialAutoCropMSECriterion%] target torch.DoubleTensor of size 2x3x3x4 must match input')
  tester:assertErrorPattern(function() c:forward(x, torch.randn(2, 2, 6, 5)) end, 'must match input')
  tester:assertErrorPattern(function() c:forward(x:view(-1), t:view(-1)) end, 'expected a C x H x W or N x C x H x W input')
end

function tests.distanceRatioCriterion()
  local c = nn.DistanceRatioCriterion()
  local X, Y = torch.rand(6):mul(3), torch.rand(6):mul(3)
  local s = 0
  for i = 1, 6 do s = s - math.log(math.exp(-X[i]) / (math.exp(-X[i]) + math.exp(-Y[i]))) end
  tester:assertalmosteq(c:forward({ X, Y }), s / 6, 1e-12, 'mean')
  tester:assertalmosteq(nn.DistanceRatioCriterion(false):forward({ X, Y }), s, 1e-12, 'sum')
  tester:assertalmosteq(nn.DistanceRatioCriterion():forward({ T({ 1000 }), T({ 0 }) }), 1000, 1e-9, 'no overflow')
  ccheck.gradients(tester, c, { X, Y }, nil, 'DistanceRatio')
  ccheck.gradients(tester, nn.DistanceRatioCriterion(false), { X, Y }, nil, 'DistanceRatio sum')
  ccheck.types(tester, function() return nn.DistanceRatioCriterion() end, { X, Y }, nil, 'DistanceRatio')
  tester:asserteq(tostring(c), 'nn.DistanceRatioCriterion')
  tester:assertErrorPattern(function() c:forward({ X, torch.rand(5) }) end,
    '%[nn.DistanceRatioCriterion%] expected {X, Y}, two floating%-point tensors of one size')
  tester:assertErrorPattern(function() c:forward(X) end, 'expected a table of 2 tensors')
  tester:assertErrorPattern(function() nn.DistanceRatioCriterion(1) end, 'sizeAverage must be true or false')
end

-- The criterions and dense layers inside a training step, Torch7 style and autograd style.
function tests.trainingStep()
  local model = nn.Sequential():add(nn.LinearWeightNorm(4, 5)):add(nn.Cosine(5, 3))
  local crit = nn.ClassSimplexCriterion(3)
  local x, t = torch.randn(6, 4), L({ 1, 2, 3, 1, 2, 3 })
  model:zeroGradParameters()
  crit:forward(model:forward(x), t)
  model:backward(x, crit:backward(model.output, t))
  local _, grads = model:parameters()
  local ref = {}
  for i, g in ipairs(grads) do ref[i] = g:clone() end
  model:zeroGradParameters()
  crit(model(x), t):backward()
  for i, g in ipairs(grads) do tester:assertTensorEq(g, ref[i], 1e-10, 'autograd gradient ' .. i) end
  -- a file round trip
  local path = TMP .. '.t7'
  torch.save(path, model)
  local back = torch.load(path)
  os.remove(path)
  tester:assertTensorEq(back:forward(x), model:forward(x), 1e-12, 'torch.save/torch.load')
end

tester:add(tests)
tester:run()
