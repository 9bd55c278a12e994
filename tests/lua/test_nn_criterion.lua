-- nn criterions on one input tensor: Abs, SmoothL1, BCE, BCEWithLogits, DistKLDiv, Margin,
-- SoftMargin, MultiMargin, MultiLabelMargin, MultiLabelSoftMargin, HingeEmbedding, ClassNLL and
-- CrossEntropy against naive f64 references (and PyTorch numbers), sizeAverage, Torch7 target
-- conventions, gradients against central differences of forward, the autograd form, types, errors.
require 'nn'
local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local check = dofile(here .. '/criterion_check.lua')
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local D, L = torch.DoubleTensor, torch.LongTensor

local function rand(...) return torch.rand(...):double():mul(4):add(-2) end
local function signs(...) return torch.rand(...):double():gt(0.5):double():mul(2):add(-1) end
local function sum(t, f)
  local s = 0
  local flat = t[1]:contiguous():view(-1)
  local others = {}
  for k = 2, #t do others[k - 1] = t[k]:contiguous():view(-1) end
  for i = 1, flat:nElement() do
    local args = { flat[i] }
    for k = 1, #others do args[k + 1] = others[k][i] end
    s = s + f(unpack(args))
  end
  return s
end
local function sigmoid(x) return 1 / (1 + math.exp(-x)) end
local function softplus(x) return math.max(x, 0) + math.log(1 + math.exp(-math.abs(x))) end

-- Elementwise criterions: constructor, target maker, per-element loss.
local elementwise = {
  { 'AbsCriterion', function(s) return nn.AbsCriterion(s) end, rand, function(x, y) return math.abs(x - y) end },
  { 'SmoothL1Criterion', function(s) return nn.SmoothL1Criterion(s) end, rand,
    function(x, y) local z = math.abs(x - y) return z < 1 and 0.5 * z * z or z - 0.5 end },
  { 'MSECriterion', function(s) return nn.MSECriterion(s) end, rand, function(x, y) return (x - y) ^ 2 end },
  { 'SoftMarginCriterion', function(s) return nn.SoftMarginCriterion(s) end, signs,
    function(x, y) return math.log(1 + math.exp(-y * x)) end },
  { 'MarginCriterion', function(s) local c = nn.MarginCriterion(0.7) c.sizeAverage = s ~= false return c end, signs,
    function(x, y) return math.max(0, 0.7 - x * y) end },
  { 'HingeEmbeddingCriterion', function(s) local c = nn.HingeEmbeddingCriterion(0.5) c.sizeAverage = s ~= false return c end,
    signs, function(x, y) return y == 1 and x or math.max(0, 0.5 - x) end },
  { 'DistKLDivCriterion', function(s) return nn.DistKLDivCriterion(s) end,
    function(...) return torch.rand(...):double():add(-0.2):clamp(0, 1) end,
    function(x, y) return y > 0 and y * (math.log(y) - x) or 0 end },
  { 'BCEWithLogitsCriterion', function(s) return nn.BCEWithLogitsCriterion(nil, nil, s) end,
    function(...) return torch.rand(...):double() end,
    function(x, y) return -(y * math.log(sigmoid(x)) + (1 - y) * math.log(1 - sigmoid(x))) end },
  { 'MultiLabelSoftMarginCriterion', function(s) return nn.MultiLabelSoftMarginCriterion(nil, s) end,
    function(...) return torch.rand(...):double():gt(0.5):double() end,
    function(x, y) return -(y * math.log(sigmoid(x)) + (1 - y) * math.log(1 - sigmoid(x))) end },
}

function tests.elementwiseCriterions()
  torch.manualSeed(1)
  for _, c in ipairs(elementwise) do
    local name, make, target_of, f = c[1], c[2], c[3], c[4]
    for _, shape in ipairs({ { 7 }, { 3, 4 } }) do
      local x, y = rand(unpack(shape)), target_of(unpack(shape))
      local ref = sum({ x, y }, f)
      tester:assertalmosteq(make():forward(x, y), ref / x:nElement(), 1e-12, name .. ' mean')
      tester:assertalmosteq(make(false):forward(x, y), ref, 1e-12, name .. ' sum')
      check.gradients(tester, make(), x, y, name)
      check.gradients(tester, make(false), x, y, name .. ' (sum)')
    end
    check.types(tester, make, rand(3, 4), target_of(3, 4), name)
    tester:assertErrorPattern(function() make():forward(rand(3, 4), rand(5)) end,
      '%[nn.' .. name .. '%] input is torch.DoubleTensor of size 3x4 but target is torch.DoubleTensor of size 5', name)
    tester:assertErrorPattern(function() make():forward(torch.LongTensor(3):zero(), rand(3)) end,
      '%[nn.' .. name .. '%] expected a floating%-point input tensor, got torch.LongTensor', name)
  end
end

-- Note [Criterion buffer types]: an unconverted (float) criterion fed doubles answers in doubles.
function tests.gradInputFollowsTheInputType()
  for _, c in ipairs(elementwise) do
    local x = torch.rand(3, 4):double():mul(0.8):add(0.1)
    local y = c[3](3, 4)
    local crit = c[2]()
    crit:forward(x, y)
    tester:asserteq(torch.type(crit:backward(x, y)), 'torch.DoubleTensor', c[1])
    local xr = x:clone():requiresGrad()
    c[2]()(xr, y):backward()
    tester:assertTensorEq(xr.grad, crit.gradInput, 1e-12, c[1] .. ' autograd')
  end
end

-- Torch7's class criterions keep their gradInput: backward writes into it (resized) when it has
-- the input's type, and into a new tensor of the input's type otherwise.
function tests.classCriterionsReuseTheirGradInput()
  for _, name in ipairs({ 'ClassNLLCriterion', 'CrossEntropyCriterion' }) do
    local crit = nn[name]()
    local x, y = torch.randn(4, 3), torch.LongTensor({ 1, 2, 3, 1 })
    local g = crit:backward(x, y)
    local first = g:clone()
    tester:assert(crit:backward(x, y) == g, name .. ': the same tensor')
    tester:assertTensorEq(g, first, 0, name)
    local x2, y2 = torch.randn(6, 5), torch.LongTensor({ 5, 2, 3, 4, 1, 1 })
    tester:assert(crit:backward(x2, y2) == g, name .. ': resized')
    tester:assertTableEq(g:size():totable(), { 6, 5 }, name)
    local fresh = nn[name]():backward(x2, y2)
    tester:assertTensorEq(g, fresh, 0, name .. ': the values of a fresh criterion')
    local gd = crit:backward(x2:double(), y2)
    tester:asserteq(torch.type(gd), 'torch.DoubleTensor', name .. ': another type gets its own tensor')
    tester:assertTensorEq(gd:float(), fresh, 1e-6, name)
    local view = torch.zeros(5, 12):narrow(2, 2, 5)  -- not contiguous: written through a copy
    crit.gradInput = view
    local x3, y3 = torch.randn(5, 5), torch.LongTensor({ 1, 2, 3, 4, 5 })
    tester:assert(crit:backward(x3, y3) == view, name .. ': a strided gradInput')
    tester:assertTensorEq(view, nn[name]():backward(x3, y3), 0, name .. ': a strided gradInput')
  end
end

function tests.bce()
  torch.manualSeed(2)
  local x, y = torch.rand(3, 4):double():mul(0.9):add(0.05), torch.rand(3, 4):double()
  local w = D({ 0.5, 1, 2, 3 })
  local function ref(weights)
    local s = 0
    for i = 1, 3 do
      for j = 1, 4 do
        local wj = weights and weights[j] or 1
        s = s - wj * (y[i][j] * math.log(x[i][j] + 1e-12) + (1 - y[i][j]) * math.log(1 - x[i][j] + 1e-12))
      end
    end
    return s
  end
  tester:assertalmosteq(nn.BCECriterion():forward(x, y), ref() / 12, 1e-12)
  tester:assertalmosteq(nn.BCECriterion(w, false):forward(x, y), ref(w), 1e-12)
  check.gradients(tester, nn.BCECriterion(), x, y, 'BCE')
  check.gradients(tester, nn.BCECriterion(w), x, y, 'BCE weighted')
  check.gradients(tester, nn.BCECriterion(w), x[1], y[1], 'BCE vector')
  check.types(tester, function() return nn.BCECriterion(w) end, x, y, 'BCE')
  tester:assertErrorPattern(function() nn.BCECriterion():forward(D({ 0.5, 1.5 }), D({ 0, 1 })) end,
    'input values must lie in %[0, 1%]')
  tester:assertErrorPattern(function() nn.BCECriterion(D({ 1, 2 })):forward(x, y) end, '2 weights for input')
end

-- Generated with: /usr/bin/python3 -c "import torch; x=torch.tensor([[0.3,-1.2,2.0],[-0.5,0.1,1.5]],
--   dtype=torch.float64); y=torch.tensor([[1.,0,1],[0,0,1]],dtype=torch.float64);
--   print(torch.nn.BCEWithLogitsLoss(weight=torch.tensor([1.,2,.5],dtype=torch.float64),
--   pos_weight=torch.tensor([3.,1,2],dtype=torch.float64))(x,y).item())"
function tests.bceWithLogitsMatchesPyTorch()
  local x = D({ { 0.3, -1.2, 2.0 }, { -0.5, 0.1, 1.5 } })
  local y = D({ { 1, 0, 1 }, { 0, 0, 1 } })
  local c = nn.BCEWithLogitsCriterion(D({ 1, 2, 0.5 }), D({ 3, 1, 2 }))
  tester:assertalmosteq(c:forward(x, y), 0.7468070435724362, 1e-12)
  check.gradients(tester, c, x, y, 'BCEWithLogits weighted')
  tester:assertalmosteq(nn.BCEWithLogitsCriterion():forward(D({ 800, -800 }), D({ 1, 0 })), 0, 1e-12, 'no overflow')
  tester:assertErrorPattern(function() nn.BCEWithLogitsCriterion(nil, D({ 1, 2 })):forward(x, y) end,
    'posWeight torch.DoubleTensor of size 2 does not broadcast')
end

function tests.multiMargin()
  torch.manualSeed(3)
  local x, t = rand(4, 5), L({ 2, 5, 1, 3 })
  local w = D({ 1, 0.5, 2, 1, 3 })
  local function ref(p, margin, weights)
    local s = 0
    for n = 1, 4 do
      for i = 1, 5 do
        if i ~= t[n] then
          local z = math.max(0, margin - x[n][t[n]] + x[n][i]) ^ p
          s = s + z * (weights and weights[t[n]] or 1)
        end
      end
    end
    return s / 5
  end
  for _, p in ipairs({ 1, 2 }) do
    tester:assertalmosteq(nn.MultiMarginCriterion(p):forward(x, t), ref(p, 1) / 4, 1e-12, 'p=' .. p)
    tester:assertalmosteq(nn.MultiMarginCriterion(p, w, 0.5):forward(x, t), ref(p, 0.5, w) / 4, 1e-12)
    check.gradients(tester, nn.MultiMarginCriterion(p, w, 0.5), x, t, 'MultiMargin p=' .. p)
    local s = nn.MultiMarginCriterion(p)
    s.sizeAverage = false
    tester:assertalmosteq(s:forward(x, t), ref(p, 1), 1e-12)
  end
  -- a vector with a number target
  tester:assertalmosteq(nn.MultiMarginCriterion():forward(x[2], 5),
    nn.MultiMarginCriterion():forward(x:narrow(1, 2, 1), L({ 5 })), 1e-12)
  check.gradients(tester, nn.MultiMarginCriterion(), x[3], 1, 'MultiMargin vector')
  tester:assertErrorPattern(function() nn.MultiMarginCriterion(3) end, 'only p=1 and p=2')
  tester:assertErrorPattern(function() nn.MultiMarginCriterion():forward(x, L({ 1, 2, 6, 1 })) end,
    'target out of range: classes are 1..5')
end

function tests.multiLabelMargin()
  local x = D({ { 0.1, 0.2, 0.4, 0.8 }, { 0.5, -0.3, 0.2, 0.0 } })
  local t = L({ { 4, 1, 0, 2 }, { 2, 0, 0, 0 } })   -- classes {4, 1} and {2}; the 2 after the 0 is ignored
  -- Torch7 doc example: sample 1 has loss (sum over j in {4,1}, i in {2,3} of max(0, 1 - x[j] + x[i])) / 4
  local s1 = ((1 - 0.8 + 0.2) + (1 - 0.8 + 0.4) + (1 - 0.1 + 0.2) + (1 - 0.1 + 0.4)) / 4
  local s2 = ((1 + 0.3 + 0.5) + (1 + 0.3 + 0.2) + (1 + 0.3 + 0.0)) / 4
  tester:assertalmosteq(nn.MultiLabelMarginCriterion():forward(x, t), (s1 + s2) / 2, 1e-12)
  tester:assertalmosteq(nn.MultiLabelMarginCriterion():forward(x[1], t[1]), s1, 1e-12)
  check.gradients(tester, nn.MultiLabelMarginCriterion(), x, t, 'MultiLabelMargin')
  check.gradients(tester, nn.MultiLabelMarginCriterion(), x[2], t[2], 'MultiLabelMargin vector')
  tester:assertErrorPattern(function() nn.MultiLabelMarginCriterion():forward(x, L({ { 5, 0, 0, 0 }, { 1, 0, 0, 0 } })) end,
    'target out of range')
end

function tests.multiLabelSoftMarginWeights()
  torch.manualSeed(4)
  local x, y, w = rand(3, 4), torch.rand(3, 4):double():gt(0.5):double(), D({ 1, 2, 0.5, 1 })
  local s = 0
  for i = 1, 3 do for j = 1, 4 do s = s + w[j] * (softplus(x[i][j]) - y[i][j] * x[i][j]) end end
  tester:assertalmosteq(nn.MultiLabelSoftMarginCriterion(w):forward(x, y), s / 12, 1e-12)
  check.gradients(tester, nn.MultiLabelSoftMarginCriterion(w), x, y, 'MultiLabelSoftMargin weighted')
end

function tests.hingeEmbeddingNumberTarget()
  local c = nn.HingeEmbeddingCriterion(1)
  tester:assertalmosteq(c:forward(D({ 0.3 }), -1), 0.7, 1e-12)
  tester:assertalmosteq(c:forward(D({ 0.3 }), 1), 0.3, 1e-12)
  tester:assertTensorEq(c:backward(D({ 0.3 }), -1), D({ -1 }), 0)
  tester:assertTensorEq(c:backward(D({ 1.3 }), -1), D({ 0 }), 0)
  tester:assertErrorPattern(function() c:forward(D({ 0.3, 1 }), D({ 1, 0 })) end, 'labels must be 1 or %-1')
end

function tests.classCriterions()
  torch.manualSeed(5)
  local x, t, w = rand(5, 4), L({ 1, 4, 2, 2, 3 }), D({ 0.5, 1, 2, 1.5 })
  local function ref(ce, weights, average, ignore)
    local s, tw = 0, 0
    for n = 1, 5 do
      if t[n] ~= ignore then
        local lse = 0
        for j = 1, 4 do lse = lse + math.exp(x[n][j]) end
        local wt = weights and weights[t[n]] or 1
        s = s + wt * ((ce and math.log(lse) or 0) - x[n][t[n]])
        tw = tw + wt
      end
    end
    return average and s / tw or s
  end
  for _, ce in ipairs({ false, true }) do
    local cls = ce and nn.CrossEntropyCriterion or nn.ClassNLLCriterion
    tester:assertalmosteq(cls():forward(x, t), ref(ce, nil, true), 1e-12)
    tester:assertalmosteq(cls(w):forward(x, t), ref(ce, w, true), 1e-12)
    tester:assertalmosteq(cls(w, false):forward(x, t), ref(ce, w, false), 1e-12)
    tester:assertalmosteq(cls(w, true, 2):forward(x, t), ref(ce, w, true, 2), 1e-12)
    tester:assertalmosteq(cls():forward(x, t:double()), ref(ce, nil, true), 1e-12, 'DoubleTensor targets')
    check.gradients(tester, cls(w), x, t, tostring(cls()))
    check.gradients(tester, cls(w, false, 4), x, t, tostring(cls()) .. ' ignoreIndex')
    check.gradients(tester, cls(), x[2], 4, tostring(cls()) .. ' vector')
    check.types(tester, function() return cls(w) end, x, t, tostring(cls()))
    tester:assertErrorPattern(function() cls():forward(x, L({ 1, 2, 3, 4, 5 })) end,
      '%[' .. tostring(cls()) .. '%] target 5 %(sample 5%) is out of range: classes are 1..4')
    tester:assertErrorPattern(function() cls():forward(x, 'a') end, 'target must be a class number')
    tester:assertErrorPattern(function() cls(D({ 1, 2 })):forward(x, t) end, 'weights must be a vector of 4 elements')
  end
  -- the autograd form is the fused C++ op: differentiable twice
  local xr = x:clone():requiresGrad()
  local l = nn.CrossEntropyCriterion()(xr, t)
  tester:asserteq(l.gradFn, 'crossEntropy')
end

tester:add(tests)
tester:run()
