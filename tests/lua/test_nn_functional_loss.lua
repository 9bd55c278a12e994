-- nn.functional's losses (Note [Functional losses]) and the criteria built on them (HuberCriterion,
-- TripletMarginCriterion, PoissonNLLCriterion, GaussianNLLCriterion, KLDivCriterion): values
-- against plain Lua loops and PyTorch 1.13's numbers, the three reductions, gradchecks in f64
-- (every tensor argument), Torch7's backward against autograd, errors.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local F = nn.functional
local D = torch.DoubleTensor

local X = D({ { 0.2, -1.5, 3.0 }, { 0.7, 0.1, -0.4 } })
local Y = D({ { 0.0, -0.5, 1.0 }, { 2.0, 0.3, -0.4 } })
local P = D({ { 0.2, 0.5, 0.9 }, { 0.01, 0.99, 0.4 } })
local B = D({ { 0, 1, 1 }, { 1, 0, 0 } })
local S = D({ { 1, -1, 1 }, { -1, -1, 1 } })

-- Sum and mean of f(i, j) over the 2x3 elements.
local function sum_over(f)
  local s = 0
  for i = 1, 2 do for j = 1, 3 do s = s + f(i, j) end end
  return s
end

local function gradcheck(f, inputs, what)
  local ok, err = pcall(torch.autograd.gradcheck, f, inputs)
  tester:assert(ok and err == true, (what or '') .. ': ' .. tostring(err))
end

local function rq(...) return torch.randn(...):double():requiresGrad() end

function tests.pointwiseLossesAgainstLoops()
  local function huber(d, delta) d = math.abs(d) return d < delta and 0.5 * d * d or delta * (d - 0.5 * delta) end
  local cases = {
    { 'mseLoss', function(i, j) return (X[i][j] - Y[i][j]) ^ 2 end, {} },
    { 'l1Loss', function(i, j) return math.abs(X[i][j] - Y[i][j]) end, {} },
    { 'huberLoss', function(i, j) return huber(X[i][j] - Y[i][j], 0.7) end, { delta = 0.7 } },
    { 'smoothL1Loss', function(i, j) return huber(X[i][j] - Y[i][j], 0.5) / 0.5 end, { beta = 0.5 } },
    { 'softMarginLoss', function(i, j) return math.log(1 + math.exp(-S[i][j] * X[i][j])) end, {}, S },
  }
  for _, c in ipairs(cases) do
    local name, f, o, target = c[1], c[2], c[3], c[4] or Y
    local s = sum_over(f)
    o.reduction = 'sum'
    tester:assertalmosteq(F[name](X, target, o), s, 1e-12, name .. ' sum')
    o.reduction = nil
    tester:assertalmosteq(F[name](X, target, o), s / 6, 1e-12, name .. ' mean')
    o.reduction = 'none'
    local n = F[name](X, target, o)
    tester:assertTableEq(n:size():totable(), { 2, 3 })
    for i = 1, 2 do for j = 1, 3 do tester:assertalmosteq(n[i][j], f(i, j), 1e-12, name .. ' none') end end
    o.reduction = nil
    gradcheck(function(a, b) return F[name](a, b, o) end, { rq(3, 4), c[4] and torch.randn(3, 4):sign():double() or rq(3, 4) }, name)
  end
  -- a string is the reduction; smoothL1Loss with beta 0 is l1Loss
  tester:assertalmosteq(F.mseLoss(X, Y, 'sum'), sum_over(function(i, j) return (X[i][j] - Y[i][j]) ^ 2 end), 1e-12)
  tester:assertalmosteq(F.smoothL1Loss(X, Y, { beta = 0 }), F.l1Loss(X, Y), 1e-15)
end

-- PyTorch 1.13 (float64) on the tensors above: the names and arguments are torch.nn.functional's.
function tests.matchesPyTorch()
  local t = torch.LongTensor({ 3, 1 })
  local w = D({ 1, 2, 3 })
  local checks = {
    { F.binaryCrossEntropy(P, B), 1.790469541 },
    { F.binaryCrossEntropyWithLogits(X, B, { posWeight = w }), 1.001220907 },
    { F.klDiv(torch.log(P), D({ { 0, 0.5, 0.5 }, { 0.2, 0.3, 0.5 } }), 'batchmean'), 0.02932407869 },
    { F.klDiv(X, Y, { logTarget = true }), 0.8076186155 },
    { F.poissonNllLoss(X, torch.abs(Y), { full = true }), 3.741853333 },
    { F.gaussianNllLoss(X, Y, D({ { 0.5 }, { 1e-8 } }), { full = true }), 144164.7984 },
    { F.marginRankingLoss(X[1], X[2], D({ 1, -1, 1 }), { margin = 0.3 }), 0.2666666667 },
    { F.hingeEmbeddingLoss(X, S, { margin = 0.5 }), 0.8666666667 },
    { F.multilabelSoftMarginLoss(X, B, { weight = w }), 1.296292101 },
    { F.nllLoss(X, t, { weight = w }), -2.425 },
    { F.crossEntropy(X, t, { weight = w, labelSmoothing = 0.1 }), 0.360030757 },
    { F.crossEntropy(X, torch.LongTensor({ 3, -100 }), { labelSmoothing = 0.2 }), 0.556117222 },
    { F.crossEntropy(X, P, { labelSmoothing = 0.1 }), 2.363150107 },
  }
  for k, c in ipairs(checks) do tester:assertalmosteq(c[1], c[2], 1e-8 * math.max(1, math.abs(c[2])), 'case ' .. k) end
  local vec = {
    { F.huberLoss(X, Y, { delta = 0.7, reduction = 'none' }), { 0.02, 0.455, 1.155, 0.665, 0.02, 0 } },
    { F.poissonNllLoss(P, torch.abs(Y) * 3, { logInput = false, full = true, reduction = 'none' }),
      { 0.2, 1.76958949, 2.980163057, 34.2063902, 0.9990452932, 1.528434028 } },
    { F.cosineEmbeddingLoss(X, Y, D({ 1, -1 }), { margin = 0.1, reduction = 'none' }), { 0.001773051041, 0.8493594801 } },
    { F.tripletMarginLoss(X, Y, P, { swap = true, reduction = 'none' }), { 2.220300963, 0.9339181018 } },
    { F.multiMarginLoss(X, t, { p = 2, margin = 0.5, weight = w, reduction = 'none' }), { 0, 0 } },
    { F.crossEntropy(X, t, 'none'), { 0.06945055529, 0.6321664402 } },
  }
  for k, c in ipairs(vec) do tester:assertTensorEq(c[1]:view(-1), D(c[2]), 1e-8, 'vector case ' .. k) end
end

function tests.classAndMarginLossesAgainstLoops()
  torch.manualSeed(1)
  local x = torch.randn(4, 5):double()
  local t = torch.LongTensor({ 2, 5, 1, 2 })
  local w = torch.rand(5):double():add(0.5)
  -- multiMarginLoss: sum over j ~= y of w_y max(0, margin - x_y + x_j)^p / C
  for _, p in ipairs({ 1, 2 }) do
    local want = 0
    for i = 1, 4 do
      for j = 1, 5 do
        if j ~= t[i] then want = want + w[t[i]] * math.max(0, 0.8 - x[i][t[i]] + x[i][j]) ^ p / 5 end
      end
    end
    tester:assertalmosteq(F.multiMarginLoss(x, t, { p = p, margin = 0.8, weight = w }), want / 4, 1e-12)
    -- Torch7's criterion gives the same
    local c = nn.MultiMarginCriterion(p, w, 0.8):double()
    tester:assertalmosteq(c:forward(x, t), want / 4, 1e-12)
  end
  -- crossEntropy with weights and ignoreIndex against a loop; 'mean' divides by the kept weight
  local t2 = torch.LongTensor({ 2, -100, 1, 4 })
  local num, den = 0, 0
  for i = 1, 4 do
    if t2[i] ~= -100 then
      local lse = 0
      for j = 1, 5 do lse = lse + math.exp(x[i][j]) end
      num = num + w[t2[i]] * (math.log(lse) - x[i][t2[i]])
      den = den + w[t2[i]]
    end
  end
  tester:assertalmosteq(F.crossEntropy(x, t2, { weight = w }), num / den, 1e-12)
  tester:assertalmosteq(F.crossEntropy(x, t2, { weight = w, reduction = 'sum' }), num, 1e-12)
  tester:assertalmosteq(F.crossEntropy(x, t2, { weight = w, reduction = 'none' }):sum(), num, 1e-12)
  tester:assertalmosteq(F.nllLoss(torch.logSoftmax(x, 2), t2, { weight = w }), num / den, 1e-12)
  -- a single sample (vector scores, number target)
  tester:assertalmosteq(F.crossEntropy(x[1], 2), F.crossEntropy(x:narrow(1, 1, 1), torch.LongTensor({ 2 })), 1e-14)
  -- cosineEmbeddingLoss against a loop
  local x1, x2, y = torch.randn(3, 4):double(), torch.randn(3, 4):double(), D({ 1, -1, -1 })
  local want = 0
  for i = 1, 3 do
    local cos = x1[i]:dot(x2[i]) / math.sqrt((x1[i]:dot(x1[i]) + 1e-12) * (x2[i]:dot(x2[i]) + 1e-12))
    want = want + (y[i] == 1 and 1 - cos or math.max(0, cos + 0.2))
  end
  tester:assertalmosteq(F.cosineEmbeddingLoss(x1, x2, y, { margin = -0.2, reduction = 'sum' }), want, 1e-12)
  -- tripletMarginLoss against a loop (p = 1)
  local a, pp, n = torch.randn(3, 4):double(), torch.randn(3, 4):double(), torch.randn(3, 4):double()
  want = 0
  for i = 1, 3 do
    local dp, dn = 0, 0
    for j = 1, 4 do
      dp = dp + math.abs(a[i][j] - pp[i][j] + 1e-6)
      dn = dn + math.abs(a[i][j] - n[i][j] + 1e-6)
    end
    want = want + math.max(0, 0.5 + dp - dn)
  end
  tester:assertalmosteq(F.tripletMarginLoss(a, pp, n, { p = 1, margin = 0.5 }), want / 3, 1e-12)
end

-- N x C x d1 x d2 scores (segmentation): PyTorch 1.13's cross_entropy / nll_loss on the same tensors.
function tests.spatialClassLosses()
  local x = torch.range(1, 24):double():mul(0.37):sin():mul(2):view(2, 3, 2, 2)
  local t = torch.LongTensor({ { { 1, 3 }, { 2, -100 } }, { { 3, 3 }, { 1, 2 } } })
  local w = D({ 1, 2, 0.5 })
  tester:assertalmosteq(F.crossEntropy(x, t, { weight = w }), 1.34821622608254, 1e-13)
  tester:assertalmosteq(F.crossEntropy(x, t, { weight = w, labelSmoothing = 0.1 }), 1.37942823609427, 1e-13)
  local none = F.crossEntropy(x, t, 'none')
  tester:assertTableEq(none:size():totable(), { 2, 2, 2 })
  tester:assertTensorEq(none:view(-1), D({ 1.5371802806199566, 3.2698823491242255, 1.1548583472125022, 0,
    0.14564419748514823, 0.2859564631322468, 3.5392096311922554, 0.4373867922555133 }), 1e-13)
  tester:assertalmosteq(F.nllLoss(torch.logSoftmax(x, 2), t, 'sum'), 10.3701180610218, 1e-12)
  local probs = torch.softmax(torch.range(1, 24):double():mul(0.11):cos():view(2, 3, 2, 2), 2)
  tester:assertalmosteq(F.crossEntropy(x, probs), 1.84457514229532, 1e-13)
  -- each pixel is a row: the same as the loss of the rows gathered by hand
  local rows, targets = D(8, 3), torch.LongTensor(8)
  local k = 0
  for n = 1, 2 do for i = 1, 2 do for j = 1, 2 do
    k = k + 1
    for c = 1, 3 do rows[k][c] = x[n][c][i][j] end
    targets[k] = t[n][i][j]
  end end end
  tester:assertalmosteq(F.crossEntropy(x, t, { weight = w }), F.crossEntropy(rows, targets, { weight = w }), 1e-14)
  local ok, err = pcall(torch.autograd.gradcheck, function(a) return F.crossEntropy(a, t, { labelSmoothing = 0.2 }) end,
    { x:clone():requiresGrad() })
  tester:assert(ok and err == true, tostring(err))
  tester:assertErrorPattern(function() F.crossEntropy(x, torch.LongTensor(2, 4)) end,
    'scores of size 2x3x2x2 need class targets of size 2x2x2, got 2x4')
end

function tests.gradchecks()
  torch.manualSeed(2)
  local t = torch.LongTensor({ 2, 3, 1 })
  local w = torch.rand(4):double():add(0.5)
  local probs = torch.rand(3, 4):double():mul(0.8):add(0.1)
  local bits = torch.rand(3, 4):double():gt(0.5):double()
  local signs3 = D({ 1, -1, 1 })
  local counts = torch.rand(3, 4):double():mul(4)
  local cases = {
    { 'binaryCrossEntropy', function(p) return F.binaryCrossEntropy(p, bits, { weight = w }) end, { probs:clone():requiresGrad() } },
    { 'binaryCrossEntropyWithLogits', function(x, y) return F.binaryCrossEntropyWithLogits(x, y, { posWeight = w }) end,
      { rq(3, 4), torch.rand(3, 4):double():requiresGrad() } },
    { 'klDiv', function(x, y) return F.klDiv(x, y, 'batchmean') end, { rq(3, 4), probs:clone():requiresGrad() } },
    { 'klDiv logTarget', function(x, y) return F.klDiv(x, y, { logTarget = true }) end, { rq(3, 4), rq(3, 4) } },
    { 'poissonNllLoss', function(x) return F.poissonNllLoss(x, counts, { full = true }) end, { rq(3, 4) } },
    { 'poissonNllLoss rates', function(x) return F.poissonNllLoss(x, D(3, 4):fill(2), { logInput = false }) end,
      { probs:clone():requiresGrad() } },
    { 'gaussianNllLoss', function(x, y, v) return F.gaussianNllLoss(x, y, v, { full = true }) end,
      { rq(3, 4), rq(3, 4), torch.rand(3):double():add(0.2):requiresGrad() } },
    { 'marginRankingLoss', function(a, b) return F.marginRankingLoss(a, b, signs3, { margin = 0.1 }) end, { rq(3), rq(3) } },
    { 'hingeEmbeddingLoss', function(x) return F.hingeEmbeddingLoss(x, D({ { 1, -1, 1, -1 } }):expand(3, 4):contiguous()) end, { rq(3, 4) } },
    { 'cosineEmbeddingLoss', function(a, b) return F.cosineEmbeddingLoss(a, b, signs3, { margin = -0.5 }) end, { rq(3, 4), rq(3, 4) } },
    { 'tripletMarginLoss', function(a, p, n) return F.tripletMarginLoss(a, p, n, { swap = true, margin = 3 }) end,
      { rq(3, 4), rq(3, 4), rq(3, 4) } },
    { 'multiMarginLoss', function(x) return F.multiMarginLoss(x, t, { p = 2, margin = 3, weight = w }) end, { rq(3, 4) } },
    { 'multilabelSoftMarginLoss', function(x) return F.multilabelSoftMarginLoss(x, bits, { weight = w }) end, { rq(3, 4) } },
    { 'crossEntropy smoothing', function(x) return F.crossEntropy(x, t, { weight = w, labelSmoothing = 0.2 }) end, { rq(3, 4) } },
    { 'crossEntropy probabilities', function(x) return F.crossEntropy(x, probs, { weight = w }) end, { rq(3, 4) } },
    { 'crossEntropy none', function(x) return F.crossEntropy(x, t, 'none') end, { rq(3, 4) } },
    { 'nllLoss', function(x) return F.nllLoss(x, t, { weight = w, reduction = 'sum' }) end, { rq(3, 4) } },
  }
  for _, c in ipairs(cases) do gradcheck(c[2], c[3], c[1]) end
  -- second order through a functional loss
  local ok, err = pcall(torch.autograd.gradgradcheck, function(x) return F.huberLoss(x, D(3, 4):zero(), { delta = 5 }) end,
    { rq(3, 4) })
  tester:assert(ok and err == true, tostring(err))
end

function tests.criteria()
  torch.manualSeed(3)
  local x, y = torch.randn(3, 4):double(), torch.randn(3, 4):double()
  local cases = {
    { nn.HuberCriterion(0.5), function(a, r) return F.huberLoss(a, y, { delta = 0.5, reduction = r }) end, x, y },
    { nn.PoissonNLLCriterion({ full = true }),
      function(a, r) return F.poissonNllLoss(a, torch.abs(y), { full = true, reduction = r }) end, x, torch.abs(y) },
    { nn.KLDivCriterion({ batchMean = true }), function(a) return F.klDiv(a, torch.abs(y), 'batchmean') end, x, torch.abs(y) },
    { nn.KLDivCriterion({ logTarget = true }), function(a, r) return F.klDiv(a, y, { logTarget = true, reduction = r }) end, x, y },
  }
  for _, c in ipairs(cases) do
    local crit, f, input, target = c[1], c[2], c[3], c[4]
    local l = crit:forward(input, target)
    tester:asserteq(type(l), 'number')
    tester:assertalmosteq(l, f(input, 'mean'), 1e-12, tostring(crit))
    local g = crit:backward(input, target)
    local xr = input:clone():requiresGrad()
    f(xr, 'mean'):backward()
    tester:assertTensorEq(g, xr.grad, 1e-12, tostring(crit))
    -- the autograd form
    local xr2 = input:clone():requiresGrad()
    crit(xr2, target):backward()
    tester:assertTensorEq(xr2.grad, xr.grad, 1e-12)
  end
  local h = nn.HuberCriterion(1, false)
  tester:assertalmosteq(h:forward(x, y), nn.SmoothL1Criterion(false):forward(x, y), 1e-12)
  tester:assertalmosteq(nn.KLDivCriterion():forward(x, torch.abs(y)), nn.DistKLDivCriterion():forward(x, torch.abs(y)), 1e-12)
  -- table inputs: gradInput is a table
  local a, p, n = torch.randn(3, 4):double(), torch.randn(3, 4):double(), torch.randn(3, 4):double()
  local tc = nn.TripletMarginCriterion(2, { p = 1, swap = true })
  tester:assertalmosteq(tc:forward({ a, p, n }), F.tripletMarginLoss(a, p, n, { margin = 2, p = 1, swap = true }), 1e-12)
  local gi = tc:backward({ a, p, n })
  tester:asserteq(#gi, 3)
  local ar = a:clone():requiresGrad()
  F.tripletMarginLoss(ar, p, n, { margin = 2, p = 1, swap = true }):backward()
  tester:assertTensorEq(gi[1], ar.grad, 1e-12)
  local gc = nn.GaussianNLLCriterion({ full = true })
  local v = torch.rand(3):double():add(0.1)
  tester:assertalmosteq(gc:forward({ x, v }, y), F.gaussianNllLoss(x, y, v, { full = true }), 1e-12)
  local gg = gc:backward({ x, v }, y)
  tester:assertTableEq(gg[2]:size():totable(), { 3 })
  -- float criteria give float gradients
  tester:asserteq(torch.type(nn.HuberCriterion():backward(torch.randn(3), torch.randn(3))), 'torch.FloatTensor')
  tester:asserteq(tostring(nn.HuberCriterion(0.5)), 'nn.HuberCriterion(delta 0.5)')
  tester:assertErrorPattern(function() nn.HuberCriterion(0) end, 'delta must be positive')
  tester:assertErrorPattern(function() nn.PoissonNLLCriterion({ logInputs = true }) end, 'unknown option logInputs')
  tester:assertErrorPattern(function() tc:forward(a, p) end, 'expected a table {anchor, positive, negative}')
  tester:assertErrorPattern(function() gc:forward(x, y) end, 'expected a table {mean, var}')
  tester:assertErrorPattern(function() nn.HuberCriterion():forward(x, torch.randn(4, 3):double()) end,
    '%[nn.HuberCriterion%(delta 1%)%] input of size 3x4 and target of size 4x3 differ')
end

function tests.errors()
  tester:assertErrorPattern(function() F.mseLoss(X, torch.randn(3)) end, '%[mseLoss%] input of size 2x3 and target of size 3 differ')
  tester:assertErrorPattern(function() F.mseLoss(X, Y, 'avg') end, "reduction must be 'mean', 'sum' or 'none'")
  tester:assertErrorPattern(function() F.l1Loss(X, Y, { reduce = true }) end, 'unknown option reduce')
  tester:assertErrorPattern(function() F.l1Loss(torch.LongTensor(2), torch.LongTensor(2)) end, 'floating dtype')
  tester:assertErrorPattern(function() F.binaryCrossEntropy(X, B) end, 'input values must lie in %[0, 1%]')
  tester:assertErrorPattern(function() F.huberLoss(X, Y, { delta = -1 }) end, 'delta must be positive')
  tester:assertErrorPattern(function() F.klDiv(X, Y, 'batchmean_') end, "or 'batchmean'")
  tester:assertErrorPattern(function() F.gaussianNllLoss(X, Y, D(3):fill(1)) end, 'var of size 3 does not match the input of size 2x3')
  tester:assertErrorPattern(function() F.gaussianNllLoss(X, Y, D(2):fill(-1)) end, 'var has negative entries')
  tester:assertErrorPattern(function() F.multiMarginLoss(X, torch.LongTensor({ 4, 1 })) end, 'target out of range %[1, 3%]')
  tester:assertErrorPattern(function() F.multiMarginLoss(X, torch.LongTensor({ 1 })) end, 'target has 1 elements for 2 rows')
  tester:assertErrorPattern(function() F.multiMarginLoss(X, torch.LongTensor({ 1, 2 }), { p = 3 }) end, 'p must be 1 or 2')
  tester:assertErrorPattern(function() F.crossEntropy(X, torch.LongTensor({ 0, 1 }), 'none') end, 'target out of range')
  tester:assertErrorPattern(function() F.crossEntropy(X, torch.LongTensor({ 1, 1 }), { labelSmoothing = 2 }) end,
    'labelSmoothing must be in %[0, 1%]')
  tester:assertErrorPattern(function() F.crossEntropy(X, torch.LongTensor({ 1, 1 }), { weight = D(2) }) end,
    'weight must be a vector of 3 classes')
  tester:assertErrorPattern(function() F.cosineEmbeddingLoss(X, Y, D({ 1 })) end, 'target has 1 elements, expected 2')
  tester:assertErrorPattern(function() F.tripletMarginLoss(X, Y, torch.randn(2, 4):double()) end,
    'anchor of size 2x3 and negative of size 2x4 differ')
  tester:assertErrorPattern(function() F.binaryCrossEntropyWithLogits(X, B, { posWeight = D(2) }) end,
    'posWeight of size 2 does not broadcast to the input of size 2x3')
end

-- Review regression: inputs of exactly 0 or 1 (a saturated sigmoid) gave NaN gradients (0 * inf
-- through the clamped logs), which a 'mean' spread to every element. PyTorch 1.13's loss values;
-- the gradient is the true one where the clamp is inactive, 0 where the clamped log is flat.
function tests.binaryCrossEntropyAtZeroAndOne()
  for _, ty in ipairs({ 'double', 'float' }) do
    local x = torch.Tensor({ 0, 1, 0.5, 0, 1 })[ty](torch.Tensor({ 0, 1, 0.5, 0, 1 })):requiresGrad()
    local y = torch.Tensor({ 0, 1, 1, 1, 0 })[ty](torch.Tensor({ 0, 1, 1, 1, 0 }))
    local l = F.binaryCrossEntropy(x, y, 'none')
    tester:assertTensorEq(l:detach():double(), D({ 0, 0, math.log(2), 100, 100 }), 1e-6, ty .. ' values')
    l:sum():backward()
    tester:assertTensorEq(x.grad:double(), D({ 1, -1, -2, 0, 0 }), 1e-6, ty .. ' gradient')
    local c = x:detach():clone():requiresGrad()
    F.binaryCrossEntropy(c, y):backward()
    tester:assert(c.grad:eq(c.grad):all(), ty .. ': no NaN in the mean\'s gradient')
  end
end

-- The losses on CUDA against the CPU (recorded ops: the same formulas run on the GPU).
function tests.cudaMatchesCpu()
  if not torch.cuda.isAvailable() then return end
  local x, y = torch.randn(4, 5):double(), torch.randn(4, 5):double()
  local t = torch.LongTensor({ 2, 5, -100, 1 })
  local w = torch.rand(5):double():add(0.5)
  local function both(f)
    local a = f(x, y, t, w)
    local b = f(x:cuda(), y:cuda(), t:cuda(), w:cuda())
    if torch.isTensor(a) then tester:assertTensorEq(b:double(), a, 1e-10) else tester:assertalmosteq(b, a, 1e-10) end
  end
  both(function(a, b) return F.huberLoss(a, b, { delta = 0.5 }) end)
  both(function(a, b) return F.klDiv(a, torch.abs(b), 'batchmean') end)
  both(function(a, b) return F.gaussianNllLoss(a, b, torch.abs(b[{ {}, 1 }])) end)
  both(function(a, b) return F.tripletMarginLoss(a, b, torch.mul(b, 2), { swap = true, reduction = 'none' }) end)
  both(function(a, _, c, ww) return F.crossEntropy(a, c, { weight = ww, labelSmoothing = 0.1 }) end)
  both(function(a, _, c) return F.crossEntropy(a, c, 'none') end)
  both(function(a, _, c, ww) return F.multiMarginLoss(a, torch.clamp(c, 1, 5), { weight = ww, p = 2 }) end)
  both(function(a, b) return F.cosineEmbeddingLoss(a, b, torch.sign(b[{ {}, 1 }])) end)
  local crit = nn.PoissonNLLCriterion({ full = true })
  local g = crit:backward(x:cuda(), torch.abs(y):cuda())
  tester:assertTensorEq(g:double(), nn.PoissonNLLCriterion({ full = true }):backward(x, torch.abs(y)), 1e-10)
end

tester:add(tests)
tester:run()
