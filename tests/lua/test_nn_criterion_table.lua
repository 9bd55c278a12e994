-- nn criterions on pairs and tables: CosineEmbedding, MarginRanking, MultiCriterion,
-- ParallelCriterion, SequencerCriterion / TimeDistributedCriterion (tensor and table sequences),
-- against naive f64 references, gradients against central differences, the autograd form
-- (including a model trained through loss:backward()), and errors naming the criterion.
require 'nn'
local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local check = dofile(here .. '/criterion_check.lua')
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local D, L = torch.DoubleTensor, torch.LongTensor

local function rand(...) return torch.rand(...):double():mul(4):add(-2) end

function tests.cosineEmbedding()
  torch.manualSeed(1)
  local x1, x2, y = rand(4, 3), rand(4, 3), D({ 1, -1, -1, 1 })
  local function ref(margin, average)
    local s = 0
    for n = 1, 4 do
      local d, a, b = 0, 1e-12, 1e-12
      for j = 1, 3 do
        d = d + x1[n][j] * x2[n][j]
        a = a + x1[n][j] ^ 2
        b = b + x2[n][j] ^ 2
      end
      local cos = d / math.sqrt(a * b)
      s = s + (y[n] == 1 and 1 - cos or math.max(0, cos - margin))
    end
    return average and s / 4 or s
  end
  for _, margin in ipairs({ 0, -0.5 }) do
    local c = nn.CosineEmbeddingCriterion(margin)
    tester:assertalmosteq(c:forward({ x1, x2 }, y), ref(margin, true), 1e-12, 'margin ' .. margin)
    check.gradients(tester, c, { x1, x2 }, y, 'CosineEmbedding margin ' .. margin)
    c.sizeAverage = false
    tester:assertalmosteq(c:forward({ x1, x2 }, y), ref(margin, false), 1e-12)
  end
  -- vectors with a number label
  local c = nn.CosineEmbeddingCriterion()
  tester:assertalmosteq(c:forward({ D({ 1, 0 }), D({ 0, 1 }) }, 1), 1, 1e-12)
  tester:assertalmosteq(c:forward({ D({ 1, 1 }), D({ 2, 2 }) }, 1), 0, 1e-12)
  check.gradients(tester, c, { rand(3), rand(3) }, -1, 'CosineEmbedding vectors')
  tester:asserteq(c:backward({ rand(3), rand(3) }, 1)[1]:dim(), 1)
  tester:assertErrorPattern(function() c:forward({ rand(2, 3), rand(2, 4) }, D({ 1, 1 })) end,
    '%[nn.CosineEmbeddingCriterion%] expected {x1, x2}')
  tester:assertErrorPattern(function() c:forward({ rand(2, 3), rand(2, 3) }, D({ 1, 1, 1 })) end, 'expected 2 labels')
end

function tests.marginRanking()
  torch.manualSeed(2)
  local x1, x2, y = rand(6), rand(6), D({ 1, -1, 1, 1, -1, -1 })
  local function ref(margin)
    local s = 0
    for i = 1, 6 do s = s + math.max(0, -y[i] * (x1[i] - x2[i]) + margin) end
    return s
  end
  local c = nn.MarginRankingCriterion(0.5)
  tester:assertalmosteq(c:forward({ x1, x2 }, y), ref(0.5) / 6, 1e-12)
  check.gradients(tester, c, { x1, x2 }, y, 'MarginRanking')
  c.sizeAverage = false
  tester:assertalmosteq(c:forward({ x1, x2 }, y), ref(0.5), 1e-12)
  -- one pair with a number label (Torch7's non-batch mode)
  local one = nn.MarginRankingCriterion()
  tester:assertalmosteq(one:forward({ D({ 0.3 }), D({ 0.5 }) }, 1), 1.2, 1e-12)
  tester:assertalmosteq(one:forward({ D({ 2 }), D({ 0.5 }) }, 1), 0, 1e-12)
  local g = one:backward({ D({ 0.3 }), D({ 0.5 }) }, -1)
  tester:assertTensorEq(g[1], D({ 1 }), 0)
  tester:assertTensorEq(g[2], D({ -1 }), 0)
  tester:assertErrorPattern(function() one:forward({ D({ 1, 2 }), D({ 1 }) }, 1) end, 'two tensors with as many elements')
end

function tests.multiCriterion()
  torch.manualSeed(3)
  local x, y = rand(3, 4), rand(3, 4)
  local mc = nn.MultiCriterion():add(nn.MSECriterion(), 0.5):add(nn.AbsCriterion()):add(nn.SmoothL1Criterion(), 2)
  local ref = 0.5 * nn.MSECriterion():forward(x, y) + nn.AbsCriterion():forward(x, y)
    + 2 * nn.SmoothL1Criterion():forward(x, y)
  tester:assertalmosteq(mc:forward(x, y), ref, 1e-12)
  check.gradients(tester, mc, x, y, 'MultiCriterion')
  mc:float()
  tester:asserteq(torch.type(mc.criterions[1].gradInput), 'torch.FloatTensor')
  tester:assertErrorPattern(function() nn.MultiCriterion():add(42) end, 'add expects a criterion')
end

function tests.parallelCriterion()
  torch.manualSeed(4)
  local x1, y1 = rand(3, 4), rand(3, 4)
  local x2, t2 = rand(3, 5), L({ 1, 5, 2 })
  local pc = nn.ParallelCriterion():add(nn.MSECriterion(), 0.3):add(nn.CrossEntropyCriterion())
  local ref = 0.3 * nn.MSECriterion():forward(x1, y1) + nn.CrossEntropyCriterion():forward(x2, t2)
  tester:assertalmosteq(pc:forward({ x1, x2 }, { y1, t2 }), ref, 1e-12)
  check.gradients(tester, pc, { x1, x2 }, { y1, t2 }, 'ParallelCriterion')
  -- repeatTarget: every criterion gets the same target
  local rc = nn.ParallelCriterion(true):add(nn.MSECriterion()):add(nn.AbsCriterion(), 2)
  local ref2 = nn.MSECriterion():forward(x1, y1) + 2 * nn.AbsCriterion():forward(x2:narrow(2, 1, 4), y1)
  tester:assertalmosteq(rc:forward({ x1, x2:narrow(2, 1, 4):clone() }, y1), ref2, 1e-12)
  tester:assertErrorPattern(function() pc:forward({ x1 }, { y1, t2 }) end,
    '%[nn.ParallelCriterion%] expected a table of 2 inputs, got a table of 1')
  tester:assertErrorPattern(function() pc:forward({ x1, x2 }, y1) end, 'expected a table of 2 targets')
end

function tests.sequencerCriterion()
  torch.manualSeed(5)
  local seq, batch, classes = 4, 3, 5
  local x = rand(seq, batch, classes)
  local t = L(seq, batch):random(1, classes)
  for _, cls in ipairs({ nn.SequencerCriterion, nn.TimeDistributedCriterion }) do
    for _, avg in ipairs({ false, true }) do
      local sc = cls(nn.CrossEntropyCriterion(), avg)
      local ref = 0
      for s = 1, seq do ref = ref + nn.CrossEntropyCriterion():forward(x[s], t[s]) end
      if avg then ref = ref / seq end
      tester:assertalmosteq(sc:forward(x, t), ref, 1e-12, torch.typename(sc))
      check.gradients(tester, sc, x, t, torch.typename(sc) .. (avg and ' averaged' or ''))
      -- a table of steps gives the same loss and per-step gradients
      local xs, ts = {}, {}
      for s = 1, seq do xs[s], ts[s] = x[s]:clone(), t[s]:clone() end
      tester:assertalmosteq(sc:forward(xs, ts), ref, 1e-12)
      local g = sc:backward(xs, ts)
      local gt = sc:backward(x, t)
      for s = 1, seq do tester:assertTensorEq(g[s], gt[s], 1e-12) end
    end
  end
  tester:asserteq(tostring(nn.SequencerCriterion(nn.MSECriterion())), 'nn.SequencerCriterion(nn.MSECriterion)')
  local sc = nn.SequencerCriterion(nn.MSECriterion())
  tester:assertErrorPattern(function() sc:forward(rand(3, 2), rand(4, 2)) end, 'needs a target tensor with as many steps')
  tester:assertErrorPattern(function() sc:forward({ rand(2) }, { rand(2), rand(2) }) end,
    'a table of 1 steps needs a table of as many targets')
  tester:assertErrorPattern(function() nn.SequencerCriterion(3) end, 'expects a criterion')
end

-- A model trained with loss:backward() through a table criterion matches Torch7-style training.
function tests.autogradTrainingThroughTableCriterion()
  torch.manualSeed(6)
  local function model() return nn.Linear(3, 2):double() end
  local a = model()
  local b = a:clone()
  local x1, x2, y = rand(5, 3), rand(5, 3), D({ 1, -1, 1, -1, 1 })
  local crit = nn.CosineEmbeddingCriterion(0.1)
  for _ = 1, 5 do
    a:zeroGradParameters()
    local o1 = a:forward(x1):clone()
    local o2 = a:forward(x2):clone()
    crit:forward({ o1, o2 }, y)
    local g = crit:backward({ o1, o2 }, y)
    local g1, g2 = g[1]:clone(), g[2]:clone()
    a:forward(x1)
    a:backward(x1, g1)
    a:forward(x2)
    a:backward(x2, g2)
    a:updateParameters(0.1)

    b:zeroGradParameters()
    local b2 = b:clone('weight', 'bias', 'gradWeight', 'gradBias')
    local loss = crit({ b(x1), b2(x2) }, y)
    loss:backward()
    b:updateParameters(0.1)
  end
  tester:assertTensorEq(a.weight, b.weight, 1e-12)
  tester:assertTensorEq(a.bias, b.bias, 1e-12)
end

tester:add(tests)
tester:run()
