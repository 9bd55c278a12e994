-- nn.functional's activations, small layers and normalizations (functional_act.lua,
-- functional_norm.lua): values against closed forms and plain loops, gradchecks in f64, the
-- forwards to torch functions, errors.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local F = nn.functional
local D = torch.DoubleTensor

local function gradcheck(f, inputs, what)
  local ok, err = pcall(torch.autograd.gradcheck, f, inputs)
  tester:assert(ok and err == true, (what or '') .. ': ' .. tostring(err))
end
local function rq(...) return torch.randn(...):double():requiresGrad() end

local function softplus(v) return math.log(1 + math.exp(v)) end
local function sigmoid(v) return 1 / (1 + math.exp(-v)) end
local function relu6(v) return math.min(math.max(v, 0), 6) end
local function erf(v)  -- Abramowitz-Stegun 7.1.26 is too coarse; integrate instead
  local n, s = 2000, 0
  for i = 1, n do local t = (i - 0.5) / n * v s = s + math.exp(-t * t) end
  return 2 / math.sqrt(math.pi) * s * v / n
end

function tests.activationsAgainstClosedForms()
  local x = torch.linspace(-4.5, 4.5, 19):double()
  local cases = {
    { 'relu', function(v) return math.max(v, 0) end },
    { 'relu6', relu6 },
    { 'hardtanh', function(v) return math.min(math.max(v, -1), 1) end },
    { 'gelu', function(v) return 0.5 * v * (1 + erf(v / math.sqrt(2))) end, 1e-7 },
    { 'silu', function(v) return v * sigmoid(v) end },
    { 'mish', function(v) return v * math.tanh(softplus(v)) end },
    { 'hardsigmoid', function(v) return relu6(v + 3) / 6 end },
    { 'hardswish', function(v) return v * relu6(v + 3) / 6 end },
    { 'elu', function(v) return v > 0 and v or math.exp(v) - 1 end },
    { 'leakyRelu', function(v) return v > 0 and v or 0.01 * v end },
    { 'softplus', softplus },
    { 'sigmoid', sigmoid },
    { 'tanh', math.tanh },
    { 'logSigmoid', function(v) return math.log(sigmoid(v)) end },
    { 'softsign', function(v) return v / (1 + math.abs(v)) end },
  }
  for _, c in ipairs(cases) do
    local y = F[c[1]](x)
    for i = 1, 19 do tester:assertalmosteq(y[i], c[2](x[i]), c[3] or 1e-12, c[1] .. ' at ' .. x[i]) end
    tester:assertTensorEq(x, torch.linspace(-4.5, 4.5, 19):double(), 0, c[1] .. ' changed its input')
    gradcheck(function(a) return F[c[1]](a) end, { torch.randn(7):double():mul(1.3):requiresGrad() }, c[1])
  end
  local t = F.gelu(x, 'tanh')
  for i = 1, 19 do
    local v = x[i]
    tester:assertalmosteq(t[i], 0.5 * v * (1 + math.tanh(math.sqrt(2 / math.pi) * (v + 0.044715 * v ^ 3))), 1e-12)
  end
  gradcheck(function(a) return F.gelu(a, 'tanh') end, { rq(6) }, 'gelu tanh')
  tester:assertTensorEq(F.hardtanh(x, -2, 3), torch.clamp(x, -2, 3), 0)
  tester:assertTensorEq(F.elu(x, 0.5), torch.elu(x, 0.5), 0)
  tester:assertTensorEq(F.softplus(x, 2, 5), torch.softplus(x, 2, 5), 0)
  tester:assertErrorPattern(function() F.gelu(x, 'erf') end, "approximate must be 'none' or 'tanh'")
  tester:assertErrorPattern(function() F.hardtanh(x, 2, 1) end, 'minVal 2 is above maxVal 1')
  tester:assertErrorPattern(function() F.mish(torch.LongTensor(3)) end, '%[mish%] expected a tensor of a floating dtype')
end

function tests.softmaxFamilyAndDropout()
  local x = torch.randn(3, 4):double()
  local s = F.softmax(x, 1)
  for j = 1, 4 do
    local z = 0
    for i = 1, 3 do z = z + math.exp(x[i][j]) end
    for i = 1, 3 do tester:assertalmosteq(s[i][j], math.exp(x[i][j]) / z, 1e-12) end
  end
  tester:assertTensorEq(F.logSoftmax(x), torch.log(F.softmax(x)), 1e-12)
  tester:assertTensorEq(F.softmin(x, 2), F.softmax(-x, 2), 1e-15)
  -- dropout: zeros with probability p, the rest scaled by 1 / (1 - p); identity when not training
  torch.manualSeed(1)
  local ones = torch.ones(20000):double()
  local d = F.dropout(ones, 0.3)
  local kept = torch.ne(d, 0):sum()
  tester:assertlt(math.abs(kept / 20000 - 0.7), 0.02)
  tester:assertalmosteq(d:max(), 1 / 0.7, 1e-12)
  tester:assertalmosteq(d:min(), 0, 0)
  tester:assert(F.dropout(ones, 0.3, false) == ones)
  tester:asserteq(F.dropout(ones, 1):sum(), 0)
  tester:assertErrorPattern(function() F.dropout(ones, 1.5) end, 'p must be in %[0, 1%]')
  local xr = rq(50)
  torch.manualSeed(2)
  local y = F.dropout(xr, 0.5)
  y:sum():backward()
  tester:assertTensorEq(xr.grad, torch.ne(y:detach(), 0):double():mul(2), 1e-12)
end

function tests.linearEmbeddingOneHot()
  local x, w, b = torch.randn(2, 3, 4):double(), torch.randn(5, 4):double(), torch.randn(5):double()
  local y = F.linear(x, w, b)
  for i = 1, 2 do for j = 1, 3 do for o = 1, 5 do
    local s = b[o]
    for k = 1, 4 do s = s + x[i][j][k] * w[o][k] end
    tester:assertalmosteq(y[i][j][o], s, 1e-12)
  end end end
  tester:assertTensorEq(F.linear(x[1], w), x[1] * w:t(), 1e-12)
  gradcheck(function(a, ww, bb) return F.linear(a, ww, bb) end, { rq(3, 4), rq(5, 4), rq(5) }, 'linear')
  tester:assertErrorPattern(function() F.linear(x, torch.randn(5, 3):double()) end,
    'input of size 2x3x4 does not match weight of size 5x3')
  -- embedding
  local E = torch.randn(6, 3):double()
  local idx = torch.LongTensor({ { 1, 6 }, { 2, 2 } })
  local e = F.embedding(idx, E)
  tester:assertTableEq(e:size():totable(), { 2, 2, 3 })
  tester:assertTensorEq(e[1][2], E[6], 0)
  tester:assertTensorEq(e[2][1], E[2], 0)
  local Er = E:clone():requiresGrad()
  F.embedding(torch.LongTensor({ 2, 3, 2 }), Er, 2):sum():backward()
  tester:assertTensorEq(Er.grad:sum(2):view(6), D({ 0, 0, 3, 0, 0, 0 }), 1e-15)
  tester:assertTensorEq(F.embedding(torch.LongTensor({ 2 }), E, 2)[1], E[2], 0)
  gradcheck(function(ww) return F.embedding(idx, ww) end, { rq(6, 3) }, 'embedding')
  tester:assertErrorPattern(function() F.embedding(torch.LongTensor({ 7 }), E) end, 'index out of range')
  tester:assertErrorPattern(function() F.embedding(D({ 1 }), E) end, 'indices must be a LongTensor')
  -- oneHot
  local oh = F.oneHot(torch.LongTensor({ { 1, 3 }, { 2, 3 } }))
  tester:asserteq(torch.type(oh), 'torch.LongTensor')
  tester:assertTensorEq(oh:double(), D({ { { 1, 0, 0 }, { 0, 0, 1 } }, { { 0, 1, 0 }, { 0, 0, 1 } } }), 0)
  tester:assertTableEq(F.oneHot(torch.LongTensor({ 2 }), 5):size():totable(), { 1, 5 })
  tester:assertErrorPattern(function() F.oneHot(torch.LongTensor({ 4 }), 3) end, 'class index out of range %[1, 3%]')
  tester:assertErrorPattern(function() F.oneHot(torch.LongTensor({ 0 })) end, 'class index out of range')
end

function tests.normalizeAndDistances()
  local x = torch.randn(3, 4):double()
  local n = F.normalize(x)
  for i = 1, 3 do tester:assertalmosteq(n[i]:norm(), 1, 1e-12) end
  local n1 = F.normalize(x, 1, 1)
  for j = 1, 4 do tester:assertalmosteq(torch.abs(n1[{ {}, j }]):sum(), 1, 1e-12) end
  tester:assertTensorEq(F.normalize(D({ 0, 0 })), D({ 0, 0 }), 0)
  gradcheck(function(a) return F.normalize(a) end, { rq(3, 4) }, 'normalize')
  local y = torch.randn(3, 4):double()
  local c = F.cosineSimilarity(x, y)
  for i = 1, 3 do tester:assertalmosteq(c[i], x[i]:dot(y[i]) / (x[i]:norm() * y[i]:norm()), 1e-12) end
  gradcheck(function(a, b) return F.cosineSimilarity(a, b) end, { rq(3, 4), rq(3, 4) }, 'cosineSimilarity')
  local d = F.pairwiseDistance(x, y, 3)
  for i = 1, 3 do
    local s = 0
    for j = 1, 4 do s = s + math.abs(x[i][j] - y[i][j] + 1e-6) ^ 3 end
    tester:assertalmosteq(d[i], s ^ (1 / 3), 1e-12)
  end
  tester:assertTableEq(F.pairwiseDistance(x, y, 2, 1e-6, true):size():totable(), { 3, 1 })
  gradcheck(function(a, b) return F.pairwiseDistance(a, b) end, { rq(3, 4), rq(3, 4) }, 'pairwiseDistance')
  tester:assertErrorPattern(function() F.normalize(x, 2, 3) end, 'dim 3 out of range for a 2%-D tensor')
end

function tests.normalizations()
  torch.manualSeed(3)
  local x = torch.randn(2, 6, 5):double():mul(2):add(1)
  -- layerNorm over the last two dims
  local ln = F.layerNorm(x, { 6, 5 })
  for n = 1, 2 do
    tester:assertalmosteq(ln[n]:mean(), 0, 1e-12)
    tester:assertalmosteq(ln[n]:clone():pow(2):mean(), 1, 1e-4)
  end
  tester:assertTensorEq(F.layerNorm(x, 5), torch.layerNorm(x, 1), 0)
  -- groupNorm: 3 groups of 2 channels, against a loop
  local w, b = torch.randn(6):double(), torch.randn(6):double()
  local g = F.groupNorm(x, 3, w, b)
  for n = 1, 2 do for grp = 0, 2 do
    local vals = x[n]:narrow(1, grp * 2 + 1, 2)
    local m = vals:mean()
    local v = vals:clone():add(-m):pow(2):mean()
    for c = grp * 2 + 1, grp * 2 + 2 do for i = 1, 5 do
      tester:assertalmosteq(g[n][c][i], (x[n][c][i] - m) / math.sqrt(v + 1e-5) * w[c] + b[c], 1e-12)
    end end
  end end
  gradcheck(function(a, ww, bb) return F.groupNorm(a, 2, ww, bb) end, { rq(2, 4, 3), rq(4), rq(4) }, 'groupNorm')
  -- instanceNorm equals groupNorm with one channel per group
  tester:assertTensorEq(F.instanceNorm(x, { weight = w, bias = b }), F.groupNorm(x, 6, w, b), 1e-12)
  gradcheck(function(a, ww) return F.instanceNorm(a, { weight = ww }) end, { rq(2, 3, 4), rq(3) }, 'instanceNorm')
  local rm, rv = torch.zeros(6):double(), torch.ones(6):double()
  F.instanceNorm(x, { runningMean = rm, runningVar = rv, momentum = 0.5 })
  tester:assertTensorEq(rm, x:mean(3):mean(1):view(6):mul(0.5), 1e-12)
  local ev = F.instanceNorm(x, { runningMean = rm, runningVar = rv, useInputStats = false, eps = 0 })
  tester:assertTensorEq(ev[2][3], x[2][3]:clone():add(-rm[3]):div(math.sqrt(rv[3])), 1e-12)
  -- batchNorm forwards to torch.batchNorm
  tester:assertTensorEq(F.batchNorm(x, nil, nil, w, b, true), torch.batchNorm(x, nil, nil, w, b, true), 0)
  -- localResponseNorm matches nn.SpatialCrossMapLRN
  local x4 = torch.randn(2, 5, 3, 3):double()
  tester:assertTensorEq(F.localResponseNorm(x4, 3, 0.1, 0.75, 2), nn.SpatialCrossMapLRN(3, 0.1, 0.75, 2):double():forward(x4), 0)
  gradcheck(function(a) return F.localResponseNorm(a, 3, 0.5) end, { rq(1, 4, 2, 2) }, 'localResponseNorm')
  tester:assertErrorPattern(function() F.groupNorm(x, 4) end, 'numGroups 4 does not divide the 6 channels')
  tester:assertErrorPattern(function() F.layerNorm(x, { 5, 6 }) end, 'normalizedShape 5x6 does not match')
  tester:assertErrorPattern(function() F.instanceNorm(x, { runningMean = rm }) end, 'runningMean and runningVar go together')
  tester:assertErrorPattern(function() F.instanceNorm(x, { useInputStats = false }) end, 'needs runningMean and runningVar')
  tester:assertErrorPattern(function() F.instanceNorm(x, { weight = D(3) }) end, 'weight has 3 elements but the input has 6 channels')
  tester:assertErrorPattern(function() F.instanceNorm(x, { mean = 1 }) end, 'unknown option mean')
end

function tests.rearrangements()
  local x = torch.randn(2, 3, 4, 6):double()
  tester:assertTensorEq(F.pixelShuffle(F.pixelUnshuffle(x, 2), 2), x, 0)
  -- shuffling 6 channels in 2 groups, then in 3, restores them
  local z = torch.randn(2, 6, 2):double()
  tester:assertTensorEq(F.channelShuffle(F.channelShuffle(z, 2), 3), z, 0)
  gradcheck(function(a) return F.pixelUnshuffle(a, 2) end, { rq(1, 2, 2, 4) }, 'pixelUnshuffle')
  gradcheck(function(a) return F.channelShuffle(a, 2) end, { rq(1, 4, 3) }, 'channelShuffle')
  tester:assertErrorPattern(function() F.pixelUnshuffle(torch.randn(3, 4):double(), 2) end, 'expected a 3D or 4D')
end

-- The functional layers on CUDA against the CPU.
-- Review regression: an empty batch (N = 0) made channelShuffle reshape to a NaN size and groupNorm
-- view as 0 x g x -1 (PyTorch returns the empty tensor).
-- Review regression: cosineSimilarity picked dim from x1 before broadcasting (x1 3 x 5 with x2 of 5
-- summed the wrong dim, x2 3 x 5 with x1 of 5 raised a [norm] error), and its eps clamp cut the
-- gradient of near-zero rows. PyTorch 1.13's values (float64).
function tests.cosineSimilarityBroadcastAndEps()
  local a = torch.range(1, 5):double()
  local b = torch.range(0, 14):double():view(3, 5):cos()
  local want = D({ -0.50886580037709, -0.05821774705242, 0.53969631234088 })
  tester:assertTensorEq(F.cosineSimilarity(a, b), want, 1e-10)
  tester:assertTensorEq(F.cosineSimilarity(b, a), want, 1e-10)
  local x = D({ { 1e-9, 2e-9, 0 }, { 0, 0, 0 }, { 1, 2, 3 } }):requiresGrad()
  local y = D({ { 1, 0, 1 }, { 1, 1, 1 }, { 1, 1, 0 } })
  F.cosineSimilarity(x, y):sum():backward()
  local g = D({ { 70003571.33746819, -1414213.5623730947, 70710678.11865474 },
                { 57735026.91896257, 57735026.91896257, 57735026.91896257 },
                { 0.14848604296791068, 0.10798984943120776, -0.12148858061010873 } })
  tester:assertTensorEq(torch.cdiv(x.grad, g), torch.ones(3, 3):double(), 1e-9)
end

-- Review regression: localResponseNorm padded size / 2 zero channels and looped size times, so a
-- large size (1e9) allocated gigabytes and never returned; the window is now capped at the
-- channels. A window wider than the channels: PyTorch 1.13's values (size 9 over 3 channels).
function tests.localResponseNormWideWindow()
  local x = D({ 1, -2, 3 }):view(1, 3, 1)
  tester:assertTensorEq(F.localResponseNorm(x, 9, 1, 0.5, 1):view(3),
    D({ 0.62554324217122, -1.25108648434245, 1.87662972651367 }), 1e-12)
  -- 1e9: the old loop over the window never returned (a regression shows as ctest's timeout; no
  -- timed assertion here, the machines are shared)
  local y = F.localResponseNorm(x, 1e9, 1, 0.5, 1)
  tester:assertTensorEq(y, torch.cdiv(x, torch.add(torch.mul(D(1, 3, 1):fill(14), 1 / 1e9), 1):sqrt()), 1e-12)
end

-- Review regression: a negative paddingIdx (PyTorch: counted from the end) matched no index, so
-- the last row still got gradient; 0 or past the end was accepted silently.
function tests.embeddingNegativePaddingIdx()
  local w = rq(4, 3)
  F.embedding(torch.LongTensor({ 4, 1, 4 }), w, -1):sum():backward()
  tester:assertTensorEq(w.grad, D({ { 1, 1, 1 }, { 0, 0, 0 }, { 0, 0, 0 }, { 0, 0, 0 } }), 0)
  tester:assertErrorPattern(function() F.embedding(torch.LongTensor({ 1 }), w, 0) end, 'paddingIdx 0 out of range for 4 rows')
  tester:assertErrorPattern(function() F.embedding(torch.LongTensor({ 1 }), w, 5) end, 'paddingIdx 5 out of range')
end

function tests.emptyBatch()
  local x = torch.randn(0, 4, 3):double()
  tester:assertTableEq(F.channelShuffle(x, 2):size():totable(), { 0, 4, 3 })
  tester:assertTableEq(F.groupNorm(x, 2):size():totable(), { 0, 4, 3 })
  tester:assertTableEq(nn.ChannelShuffle(2):forward(x):size():totable(), { 0, 4, 3 })
  -- and the non-empty case still normalizes per group
  local y = torch.randn(2, 4, 3):double()
  tester:assertTensorEq(F.groupNorm(y, 2), torch.layerNorm(y:view(2, 2, 6), 1, nil, nil, 1e-5):viewAs(y), 1e-12)
end

function tests.cudaMatchesCpu()
  if not torch.cuda.isAvailable() then return end
  local x = torch.randn(2, 6, 3, 4):double()
  local xc = x:cuda()
  local function same(a, b) tester:assertTensorEq(b:double(), a, 1e-10) end
  for _, name in ipairs({ 'mish', 'hardswish', 'hardsigmoid', 'logSigmoid', 'softsign', 'relu6' }) do same(F[name](x), F[name](xc)) end
  same(F.gelu(x, 'tanh'), F.gelu(xc, 'tanh'))
  same(F.normalize(x), F.normalize(xc))
  same(F.instanceNorm(x), F.instanceNorm(xc))
  same(F.groupNorm(x, 3), F.groupNorm(xc, 3))
  same(F.localResponseNorm(x, 3), F.localResponseNorm(xc, 3))
  same(F.pixelUnshuffle(x, 1), F.pixelUnshuffle(xc, 1))
  same(F.channelShuffle(x, 2), F.channelShuffle(xc, 2))
  local E = torch.randn(10, 3):double()
  local idx = torch.LongTensor({ 1, 4, 4, 9, 2 })
  local off = torch.LongTensor({ 1, 3, 3 })
  for _, mode in ipairs({ 'sum', 'mean', 'max' }) do
    same(F.embeddingBag(idx, E, off, { mode = mode, paddingIdx = mode == 'max' and nil or 4 }),
      F.embeddingBag(idx:cuda(), E:cuda(), off:cuda(), { mode = mode, paddingIdx = mode == 'max' and nil or 4 }))
  end
  same(F.embedding(idx, E, 4), F.embedding(idx:cuda(), E:cuda(), 4))
  tester:assertTensorEq(F.oneHot(idx:cuda(), 10):double(), F.oneHot(idx, 10):double(), 0)
end

-- PyTorch's inplace flags (F.relu(x, inplace=True)...; Note [Inplace flags]): the result goes into
-- x, which is returned; values of PyTorch 1.13 with inplace=True on x = {-2, -0.5, 0, 0.5, 2, 7}.
-- They were ignored before (x unchanged, a new tensor returned).
function tests.inplaceFlags()
  local PTI = {
    relu = { 0.0, 0.0, 0.0, 0.5, 2.0, 7.0 },
    relu6 = { 0.0, 0.0, 0.0, 0.5, 2.0, 6.0 },
    selu = { -1.520166468595695, -0.691758187802871, 0.0, 0.52535049367774, 2.101401974710961, 7.354906911488364 },
    silu = { -0.238405844044235, -0.188770334399073, 0.0, 0.311229665600927, 1.761594155955765, 6.993622641639196 },
    mish = { -0.252501482695709, -0.22074377465173, 0.0, 0.375245211304895, 1.943958959533995, 6.999988379809741 },
    hardsigmoid = { 0.166666666666667, 0.416666666666667, 0.5, 0.583333333333333, 0.833333333333333, 1.0 },
    hardswish = { -0.333333333333333, -0.208333333333333, 0.0, 0.291666666666667, 1.666666666666667, 7.0 },
    elu = { -0.432332358381694, -0.196734670143683, 0.0, 0.5, 2.0, 7.0 },
    leakyRelu = { -0.4, -0.1, 0.0, 0.5, 2.0, 7.0 },
    hardtanh = { -0.5, -0.5, 0.0, 0.5, 0.5, 0.5 },
  }
  local cases = { { 'relu' }, { 'relu6' }, { 'selu' }, { 'silu' }, { 'mish' }, { 'hardsigmoid' }, { 'hardswish' },
    { 'elu', 0.5 }, { 'leakyRelu', 0.2 }, { 'hardtanh', -0.5, 0.5 } }
  for _, c in ipairs(cases) do
    local name, a1, a2 = c[1], c[2], c[3]
    local x = D({ -2, -0.5, 0, 0.5, 2, 7 })
    local y
    if name == 'hardtanh' then y = F.hardtanh(x, a1, a2, true)
    elseif a1 then y = F[name](x, a1, true) else y = F[name](x, true) end
    tester:assert(y == x, name .. ' returns x')
    tester:assertTensorEq(x, D(PTI[name]), 1e-12, name .. '(x, ..., true) writes x')
    -- false and nil: a new tensor, x kept
    local x2 = D({ -2, -0.5, 0, 0.5, 2, 7 })
    local y2 = name == 'hardtanh' and F.hardtanh(x2, a1, a2, false) or (a1 and F[name](x2, a1, false) or F[name](x2, false))
    tester:assert(y2 ~= x2 and x2[1] == -2, name .. ' with false keeps x')
    tester:assertTensorEq(y2, D(PTI[name]), 1e-12, name .. ' with false')
    local ok, err = pcall(function()
      if name == 'hardtanh' then return F.hardtanh(x2, a1, a2, 1) end
      if a1 then return F[name](x2, a1, 'yes') end
      return F[name](x2, 1)
    end)
    tester:assert(not ok and tostring(err):find('inplace', 1, true) and tostring(err):find(name, 1, true),
      name .. ': a non-boolean flag is an error naming it: ' .. tostring(err))
  end
  -- through autograd on a non-leaf, as relu_: PyTorch's a.grad of F.silu(a * 2, inplace=True):sum()
  local a = D({ -1, 0.5, 2 }):requiresGrad()
  local b = torch.mul(a, 2)
  tester:assert(F.silu(b, true) == b, 'silu on a non-leaf returns it')
  b:sum():backward()
  tester:assertTensorEq(a.grad, D({ -0.18156849756979093, 1.8553410237429737, 2.1053292297821455 }), 1e-12,
    'silu(inplace) gradient')
  a = D({ -1, 0.5, 2 }):requiresGrad()
  b = torch.mul(a, 2)
  F.elu(b, 0.5, true)
  torch.cmul(b, b):sum():backward()
  tester:assertTensorEq(a.grad, D({ -0.11701964434787852, 4.0, 16.0 }), 1e-12, 'elu(inplace) gradient')
  local ok, err = pcall(F.relu, D({ 1, -1 }):requiresGrad(), true)
  tester:assert(not ok and tostring(err):find('leaf', 1, true), 'relu(leaf, true) refuses: ' .. tostring(err))
  -- dropout(x, p, training, inplace): the same mask as without the flag; the identity cases return x
  -- itself even for a leaf that requires grad (PyTorch), the others refuse one
  local x = torch.randn(50):double()
  local x0 = x:clone()
  torch.manualSeed(7)
  local want = F.dropout(x, 0.5, true)
  torch.manualSeed(7)
  tester:assert(F.dropout(x, 0.5, true, true) == x, 'dropout(inplace) returns x')
  tester:assertTensorEq(x, want, 0, 'dropout(inplace) writes the same dropout into x')
  tester:assert(x:ne(x0):sum() > 0, 'dropout(inplace) changed x')
  local leaf = torch.randn(4):double():requiresGrad()
  tester:assert(F.dropout(leaf, 0.5, false, true) == leaf and F.dropout(leaf, 0, true, true) == leaf,
    'dropout(inplace) identity on a leaf')
  ok, err = pcall(F.dropout, leaf, 0.5, true, true)
  tester:assert(not ok and tostring(err):find('leaf', 1, true), 'dropout(leaf, training, inplace) refuses')
  ok, err = pcall(F.dropout, x, 0.5, false, 'no')
  tester:assert(not ok and tostring(err):find('inplace', 1, true), 'dropout: a non-boolean flag is an error')
end

tester:add(tests)
tester:run()
