-- PyTorch's module names (nn.Conv2d, nn.BatchNorm2d, nn.CrossEntropyLoss...; lua/nn/pytorch_names_*.lua):
-- classes and parents, PyTorch's signatures (positional and options), parameter shapes and outputs
-- against PyTorch 1.13 (pasted), PyTorch's init bounds, finite-difference gradients, errors naming
-- the class, printing, serialization and state dicts shared with the Torch7 parents.
-- test_nn_pytorch_names_fixture.lua compares with PyTorch itself when /usr/bin/python3 has torch.
require 'nn'
local D = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()

-- sin(0), sin(1), ... and cos(0), cos(1), ...: inputs PyTorch rebuilt the same way
local function sins(...) local t = torch.Tensor(...) return t:copy(torch.arange(0, t:nElement()):sin():viewAs(t)) end
local function coss(...) local t = torch.Tensor(...) return t:copy(torch.arange(0, t:nElement()):cos():viewAs(t)) end
local function vec(t) return torch.Tensor(t) end
-- sins in double precision, for comparisons to 1e-10
local function dsins(...) return torch.arange(0, torch.DoubleTensor(...):nElement()):double():sin():view(...) end
-- a number from a sum (a 0-dim tensor when the output carries autograd history)
local function num(v) return torch.isTensor(v) and v:item() or v end

local PARENTS = {
  Conv1d = 'SpatialConvolution', Conv2d = 'SpatialConvolution', Conv3d = 'VolumetricConvolution',
  ConvTranspose1d = 'SpatialFullConvolution', ConvTranspose2d = 'SpatialFullConvolution',
  ConvTranspose3d = 'VolumetricFullConvolution', BatchNorm1d = 'BatchNormalization',
  BatchNorm2d = 'SpatialBatchNormalization', BatchNorm3d = 'VolumetricBatchNormalization',
  InstanceNorm1d = 'InstanceNormalization', InstanceNorm2d = 'InstanceNormalization',
  InstanceNorm3d = 'InstanceNormalization', LayerNorm = 'LayerNormalization', GroupNorm = 'GroupNormalization',
  MaxPool1d = 'SpatialDilatedMaxPooling', MaxPool2d = 'SpatialDilatedMaxPooling',
  MaxPool3d = 'VolumetricDilatedMaxPooling', AvgPool1d = 'SpatialAveragePooling', AvgPool2d = 'SpatialAveragePooling',
  AvgPool3d = 'VolumetricAveragePooling', AdaptiveAvgPool1d = 'SpatialAdaptiveAveragePooling',
  AdaptiveAvgPool2d = 'SpatialAdaptiveAveragePooling', AdaptiveMaxPool1d = 'SpatialAdaptiveMaxPooling',
  AdaptiveMaxPool2d = 'SpatialAdaptiveMaxPooling', Embedding = 'LookupTable', Dropout2d = 'SpatialDropout',
  Dropout3d = 'VolumetricDropout', ZeroPad2d = 'SpatialZeroPadding', ReflectionPad2d = 'SpatialReflectionPadding',
  ReplicationPad2d = 'SpatialReplicationPadding', Softmax = 'SoftMax', LogSoftmax = 'LogSoftMax',
  Softplus = 'SoftPlus', CosineSimilarity = 'CosineDistance', MultiheadAttention = 'MultiHeadAttention',
  CrossEntropyLoss = 'CrossEntropyCriterion', NLLLoss = 'ClassNLLCriterion', MSELoss = 'MSECriterion',
  L1Loss = 'AbsCriterion', SmoothL1Loss = 'SmoothL1Criterion', HuberLoss = 'HuberCriterion', BCELoss = 'BCECriterion',
  BCEWithLogitsLoss = 'BCEWithLogitsCriterion', KLDivLoss = 'KLDivCriterion', TripletMarginLoss = 'TripletMarginCriterion',
}
local ARGS = { Conv1d = { 2, 4, 3 }, Conv2d = { 2, 4, 3 }, Conv3d = { 2, 4, 3 }, ConvTranspose1d = { 2, 4, 3 },
  ConvTranspose2d = { 2, 4, 3 }, ConvTranspose3d = { 2, 4, 3 }, BatchNorm1d = { 3 }, BatchNorm2d = { 3 },
  BatchNorm3d = { 3 }, InstanceNorm1d = { 3 }, InstanceNorm2d = { 3 }, InstanceNorm3d = { 3 }, LayerNorm = { 4 },
  GroupNorm = { 2, 4 }, MaxPool1d = { 2 }, MaxPool2d = { 2 }, MaxPool3d = { 2 }, AvgPool1d = { 2 }, AvgPool2d = { 2 },
  AvgPool3d = { 2 }, AdaptiveAvgPool1d = { 2 }, AdaptiveAvgPool2d = { 2 }, AdaptiveMaxPool1d = { 2 },
  AdaptiveMaxPool2d = { 2 }, Embedding = { 5, 3 }, ZeroPad2d = { 1 }, ReflectionPad2d = { 1 },
  ReplicationPad2d = { 1 }, Softmax = { 2 }, LogSoftmax = { 2 }, MultiheadAttention = { 4, 2 } }

function tests.classesExtendTheTorch7Ones()
  for name, parent in pairs(PARENTS) do
    tester:assert(nn[name] ~= nil, 'nn.' .. name .. ' exists')
    local m = nn[name](unpack(ARGS[name] or {}))
    tester:asserteq(torch.typename(m), 'nn.' .. name)
    tester:assert(torch.isTypeOf(m, 'nn.' .. parent), 'nn.' .. name .. ' is an nn.' .. parent)
    tester:assert(tostring(m):find('^nn%.' .. name) ~= nil, 'nn.' .. name .. ' prints its name: ' .. tostring(m))
  end
end

-- Parameter names and shapes of PyTorch 1.13's modules with the same arguments.
function tests.parameterShapesArePyTorchs()
  local cases = {
    { nn.Conv1d(4, 6, 3, { groups = 2 }), { weight = { 6, 2, 3 }, bias = { 6 } } },
    { nn.Conv2d(3, 16, { 3, 5 }, { bias = false }), { weight = { 16, 3, 3, 5 } } },
    { nn.Conv3d(4, 8, 3, { groups = 4 }), { weight = { 8, 1, 3, 3, 3 }, bias = { 8 } } },
    { nn.ConvTranspose1d(4, 6, 3, { groups = 2 }), { weight = { 4, 3, 3 }, bias = { 6 } } },
    { nn.ConvTranspose2d(3, 4, { 2, 3 }), { weight = { 3, 4, 2, 3 }, bias = { 4 } } },
    { nn.ConvTranspose3d(6, 4, 2, { groups = 2 }), { weight = { 6, 2, 2, 2, 2 }, bias = { 4 } } },
    { nn.BatchNorm1d(5), { weight = { 5 }, bias = { 5 }, running_mean = { 5 }, running_var = { 5 } } },
    { nn.LayerNorm({ 2, 3 }), { weight = { 2, 3 }, bias = { 2, 3 } } },
    { nn.GroupNorm(2, 6), { weight = { 6 }, bias = { 6 } } },
    { nn.Embedding(7, 3), { weight = { 7, 3 } } },
    { nn.InstanceNorm2d(3, { affine = true }), { weight = { 3 }, bias = { 3 } } },
    { nn.MultiheadAttention(6, 2, { kdim = 4, vdim = 5 }), { q_proj_weight = { 6, 6 }, k_proj_weight = { 6, 4 },
      v_proj_weight = { 6, 5 }, in_proj_bias = { 18 }, ['out_proj.weight'] = { 6, 6 }, ['out_proj.bias'] = { 6 } } },
  }
  for _, c in ipairs(cases) do
    local sd, n = c[1]:stateDict(), 0
    for k, v in pairs(sd) do
      n = n + 1
      tester:assert(c[2][k] ~= nil, tostring(c[1]) .. ': unexpected entry ' .. k)
      if c[2][k] then tester:assertTableEq(v:size():totable(), c[2][k], tostring(c[1]) .. ' ' .. k) end
    end
    local want = 0
    for _ in pairs(c[2]) do want = want + 1 end
    tester:asserteq(n, want, tostring(c[1]) .. ': entry count')
  end
end

function tests.positionalAndOptionsAgree()
  local pairs_ = {
    { nn.Conv2d(3, 4, 3, 2, 1, 1, 1, false), nn.Conv2d(3, 4, 3, { stride = 2, padding = 1, bias = false }) },
    { nn.Conv1d(4, 6, 3, 1, 2, 2, 2), nn.Conv1d(4, 6, { 3 }, { padding = { 2 }, dilation = 2, groups = 2 }) },
    { nn.ConvTranspose2d(2, 4, 3, 2, 1, 1), nn.ConvTranspose2d(2, 4, 3, { stride = 2, padding = 1, outputPadding = 1 }) },
  }
  for _, p in ipairs(pairs_) do
    p[2]:loadStateDict(p[1]:stateDict())
    local x = torch.randn(2, p[1].nInputPlane, unpack(p[1]._k[2] and { 6, 5 } or { 7 }))
    tester:assertTensorEq(p[2]:forward(x), p[1]:forward(x), 0, tostring(p[1]))
    tester:asserteq(tostring(p[1]), tostring(p[2]))
  end
  tester:asserteq(tostring(nn.Conv2d(3, 16, 3, { padding = 1 })), 'nn.Conv2d(3 -> 16, 3x3, 1,1, 1,1)')
  tester:asserteq(tostring(nn.Conv3d(2, 4, 3, { groups = 2, dilation = 2 })),
    'nn.Conv3d(2 -> 4, 3x3x3, dilation 2,2,2, groups 2)')
end

-- Outputs of PyTorch 1.13 for weights and inputs built from sin/cos (pasted).
function tests.outputsMatchPastedPyTorch()
  local c = nn.Conv1d(2, 4, 3, { stride = 2, padding = 1, groups = 2 })
  c.weight:copy(coss(4, 1, 3))
  c.bias:copy(vec({ 0.1, -0.2, 0.3, 0 }))
  tester:assertTensorEq(c:forward(sins(2, 2, 5)):view(-1), vec({ -0.250175, 1.374040, -0.167782, 0.038694, -1.587376,
    0.154971, -0.382280, 0.383066, 1.560649, 0.803369, -0.292296, -1.247231, 0.222207, -1.364753, 1.055395, -0.128063,
    1.259896, -1.263466, 0.832143, -0.591967, -0.308083, -0.546912, 1.065675, 0.558490 }), 1e-5)
  local t = nn.ConvTranspose2d(2, 2, 2, { stride = 2, padding = 1, outputPadding = 1 })
  t.weight:copy(coss(2, 2, 2, 2))
  t.bias:copy(vec({ 0.5, -0.5 }))
  local y = t:forward(sins(1, 2, 3, 3))
  tester:assertTableEq(y:size():totable(), { 1, 2, 5, 5 })
  tester:assertTensorEq(y[1][1][1], vec({ 0.501824, 0.606297, -0.335458, 0.960662, -0.404623 }), 1e-5)
  tester:assertTensorEq(y[1][2][5], vec({ -1.204668, 0.091452, 0.214020, 0.318494, 0.976241 }), 1e-5)
  tester:assertTensorEq(nn.MaxPool1d(3, 2, 1):forward(sins(2, 2, 7)):view(-1), vec({ 0.841471, 0.909297, 0.141120,
    -0.279415, 0.989358, 0.989358, -0.536573, 0.420167, 0.990607, 0.650288, 0.149877, 0.912945, 0.836656, -0.008851,
    0.762558, 0.956376 }), 1e-5)
end

function tests.lossesMatchPastedPyTorch()
  local x, t = sins(3, 4):mul(2), torch.LongTensor({ 4, 1, 3 })  -- PyTorch's targets 3, 0, 2
  local want = { mean = 2.761443, sum = 8.284328, none = vec({ 2.214794, 2.883682, 3.185852 }) }
  for r, v in pairs(want) do
    local l = nn.CrossEntropyLoss({ reduction = r, labelSmoothing = 0.2 }):forward(x, t)
    if r == 'none' then tester:assertTensorEq(l, v, 1e-5) else tester:assertalmosteq(l, v, 1e-5, 'CE ' .. r) end
  end
  local p, q = (sins(2, 3) + 1.2) / 2.5, (coss(2, 3) + 1) / 2
  want = { mean = 0.901714, sum = 5.410284, none = vec({ 0.733969, 0.545877, 1.363864, 0.768106, 0.460948, 1.537520 }) }
  for r, v in pairs(want) do
    local l = nn.BCELoss({ reduction = r }):forward(p, q)
    if r == 'none' then tester:assertTensorEq(l:view(-1), v, 1e-5) else tester:assertalmosteq(l, v, 1e-5, 'BCE ' .. r) end
  end
  tester:assertalmosteq(nn.SmoothL1Loss({ beta = 0.5 }):forward(sins(6), coss(6)), 0.633415, 1e-5)
  tester:assertalmosteq(nn.SmoothL1Loss(nil, nil, 'sum', 0.5):forward(sins(6), coss(6)), 3.800488, 1e-5)
  -- class probabilities as targets (PyTorch 1.13: 1.370547)
  local probs = torch.softmax(coss(2, 3), 2)
  tester:assertalmosteq(nn.CrossEntropyLoss({ labelSmoothing = 0.1 }):forward(sins(2, 3), probs), 1.370547, 1e-5)
  -- the legacy flags map as PyTorch's: sizeAverage = false sums, reduce = false keeps elements
  tester:asserteq(nn.MSELoss({ sizeAverage = false }).reduction, 'sum')
  tester:asserteq(nn.MSELoss({ reduce = false }).reduction, 'none')
end

-- Note [PyTorch init]: U(-1/sqrt(fanIn), 1/sqrt(fanIn)), fanIn = weight:size(2) * kernel volume; the
-- largest of n draws falls under 0.8 of the bound with probability 0.8^n (< 1e-9 here).
function tests.initIsPyTorchs()
  torch.manualSeed(1)
  for _, c in ipairs({ { nn.Conv2d(4, 8, 3, { groups = 2 }), 18 }, { nn.ConvTranspose2d(4, 6, 3, { groups = 2 }), 27 },
    { nn.Conv1d(6, 100, 5), 30 }, { nn.ConvTranspose3d(2, 4, 3), 108 } }) do
    local m, bound = c[1], 1 / math.sqrt(c[2])
    for _, p in ipairs({ m.weight, m.bias }) do
      local a = p:detach():clone():abs():max()
      tester:assert(a <= bound + 1e-7 and a > (p:nElement() >= 90 and 0.8 or 0.3) * bound,
        string.format('%s: max |w| %g for bound %g', tostring(m), a, bound))
    end
  end
  local e = nn.Embedding(200, 50, { paddingIdx = 3 })
  tester:asserteq(e.weight:detach()[3]:clone():abs():sum(), 0, 'the padding row starts at zero')
  -- N(0, 1): the sample variance of 9950 draws is 1 within 5 standard errors (sqrt(2/n))
  local w = e.weight:detach()
  local rows = torch.cat(w:narrow(1, 1, 2), w:narrow(1, 4, 197), 1)
  tester:assert(math.abs(rows:var() - 1) < 5 * math.sqrt(2 / rows:nElement()), 'N(0, 1) rows')
  tester:assertTensorEq(nn.BatchNorm2d(3).weight, torch.ones(3), 0)
  tester:assertTensorEq(nn.GroupNorm(2, 4).weight, torch.ones(4), 0)
end

-- Backward checked by finite differences (double precision).
function tests.gradientsByFiniteDifferences()
  local J = nn.Jacobian
  local cases = {
    { nn.Conv1d(4, 2, 3, { stride = 2, padding = 2, dilation = 2, groups = 2 }), { 2, 4, 9 } },
    { nn.Conv3d(2, 4, { 2, 3, 2 }, { padding = 1, groups = 2, dilation = { 1, 2, 1 } }), { 1, 2, 3, 5, 3 } },
    { nn.ConvTranspose1d(4, 2, 3, { stride = 2, outputPadding = 1, groups = 2 }), { 2, 4, 4 } },
    { nn.ConvTranspose2d(2, 4, { 2, 3 }, { stride = { 2, 1 }, dilation = 2, groups = 2, padding = 1 }), { 1, 2, 3, 4 } },
    { nn.ConvTranspose3d(2, 2, 2, { stride = 2 }), { 1, 2, 2, 2, 3 } },
  }
  for _, c in ipairs(cases) do
    local m, x = c[1]:double(), torch.DoubleTensor(torch.LongStorage(c[2]))
    tester:assertlt(J.testJacobian(m, x), 1e-6, tostring(m) .. ' input')
    tester:assertlt(J.testJacobianParameters(m, x, m.weight, m.gradWeight), 1e-6, tostring(m) .. ' weight')
    tester:assertlt(J.testJacobianParameters(m, x, m.bias, m.gradBias), 1e-6, tostring(m) .. ' bias')
  end
  for _, c in ipairs({ { nn.MaxPool1d(3, 2, 1), { 2, 3, 9 } }, { nn.AvgPool1d(3, { padding = 1, countIncludePad = false }),
    { 3, 8 } }, { nn.AdaptiveAvgPool1d(4), { 2, 2, 9 } }, { nn.Softmax(-2), { 2, 3, 4 } }, { nn.LogSoftmax(1), { 3, 4 } } }) do
    tester:assertlt(J.testJacobian(c[1]:double(), torch.DoubleTensor(torch.LongStorage(c[2]))), 1e-6, tostring(c[1]))
  end
  -- reduction 'none': backward is the gradient of the sum
  local x, y = torch.randn(3, 4):double(), torch.randn(3, 4):double()
  local crit = nn.HuberLoss({ reduction = 'none', delta = 0.5 })
  local g, h = crit:backward(x, y), 1e-6
  for i = 1, 3 do
    for j = 1, 4 do
      local xp, xm = x:clone(), x:clone()
      xp[i][j], xm[i][j] = x[i][j] + h, x[i][j] - h
      tester:assertalmosteq(g[i][j], (crit:forward(xp, y):sum() - crit:forward(xm, y):sum()) / (2 * h), 1e-6)
    end
  end
end

-- padding = 'same' and paddingMode (Note [Explicit padding on PyTorch-named convolutions]): sum and
-- sum of squares of the output, bias {0.1, 0.2, 0.3}, values PyTorch 1.13's.
function tests.paddedConvolutionsMatchPastedPyTorch()
  local cases = {
    { nn.Conv1d(2, 3, 4, { padding = 'same' }), { 2, 2, 9 }, 9.702242091895535, 256.78070071463173, { 2, 3, 9 } },
    { nn.Conv1d(2, 3, 3, 1, 2, { paddingMode = 'circular' }), { 2, 2, 9 }, 32.12545189915889, 239.11802110133, { 2, 3, 11 } },
    { nn.Conv1d(2, 3, 2, { padding = 1, paddingMode = 'replicate' }), { 2, 2, 9 }, 11.80940624860633, 120.31452624551441,
      { 2, 3, 10 } },
    { nn.Conv2d(2, 3, 3, { padding = 'same' }), { 2, 2, 5, 6 }, 39.20257898604564, 130.89354401770717, { 2, 3, 5, 6 } },
    { nn.Conv2d(2, 3, { 2, 4 }, { padding = 'same', dilation = { 2, 1 } }), { 2, 2, 5, 6 }, 35.47177424914585,
      32.01740283464225, { 2, 3, 5, 6 } },
    { nn.Conv2d(2, 3, 3, { padding = 1, paddingMode = 'circular' }), { 2, 2, 5, 6 }, 38.396554361629576,
      221.4969583360533, { 2, 3, 5, 6 } },
    { nn.Conv2d(2, 3, 3, { padding = { 1, 2 }, paddingMode = 'reflect' }), { 2, 2, 5, 6 }, 53.544327105043,
      477.713217766315, { 2, 3, 5, 8 } },
  }
  for _, c in ipairs(cases) do
    local m = c[1]:double()
    m.weight:copy(torch.arange(0, m.weight:nElement()):double():cos():viewAs(m.weight))
    m.bias:copy(torch.FloatTensor({ 0.1, 0.2, 0.3 }))  -- PyTorch's torch.tensor([0.1, 0.2, 0.3]) is float32
    local y = m:forward(dsins(torch.LongStorage(c[2])))
    tester:assertTableEq(y:size():totable(), c[5], tostring(m))
    tester:assertalmosteq(num(y:sum()), c[3], 1e-10, tostring(m))
    tester:assertalmosteq(num(y:clone():pow(2):sum()), c[4], 1e-9, tostring(m))
  end
  tester:assert(tostring(nn.Conv2d(2, 3, 3, { padding = 1, paddingMode = 'reflect' })):find('paddingMode reflect'))
end

-- d(sum(f() * r))/dt by central differences.
local function numeric_grad(f, t, r)
  local g, flat, h = t:clone():zero(), t:view(-1), 1e-6
  local gf = g:view(-1)
  for i = 1, flat:nElement() do
    local v = flat[i]
    flat[i] = v + h
    local fp = f():clone():cmul(r):sum()
    flat[i] = v - h
    local fm = f():clone():cmul(r):sum()
    flat[i] = v
    gf[i] = (fp - fm) / (2 * h)
  end
  return g
end

-- Torch7 backward (nn.Jacobian) and autograd (against central differences) through the padding.
function tests.paddedConvolutionGradients()
  local J = nn.Jacobian
  local cases = {
    { nn.Conv1d(2, 2, 3, { padding = 2, paddingMode = 'reflect' }), { 2, 2, 5 } },
    { nn.Conv1d(2, 2, 4, { padding = 'same', dilation = 2 }), { 2, 7 } },
    { nn.Conv2d(2, 2, { 2, 4 }, { padding = 'same', dilation = { 2, 1 } }), { 1, 2, 4, 5 } },
    { nn.Conv2d(2, 2, 3, { padding = { 1, 2 }, paddingMode = 'circular', groups = 2 }), { 1, 2, 3, 4 } },
    { nn.Conv2d(2, 2, 2, { padding = 1, paddingMode = 'replicate' }), { 2, 3, 3 } },
    { nn.Conv3d(2, 2, 2, { padding = { 1, 0, 1 }, paddingMode = 'circular' }), { 1, 2, 2, 3, 3 } },
    { nn.Conv3d(1, 2, 2, { padding = 'same', paddingMode = 'reflect' }), { 1, 1, 3, 3, 3 } },
  }
  for _, c in ipairs(cases) do
    local m, x = c[1]:double(), torch.randn(torch.LongStorage(c[2])):double()
    local name = tostring(m)
    tester:assertlt(J.testJacobian(m, x), 1e-6, name .. ' input')
    tester:assertlt(J.testJacobianParameters(m, x, m.weight, m.gradWeight), 1e-6, name .. ' weight')
    tester:assertlt(J.testJacobianParameters(m, x, m.bias, m.gradBias), 1e-6, name .. ' bias')
    local r = torch.randn(m:forward(x):size()):double()
    local f = function() return m:forward(x) end
    local wx, ww, wb = numeric_grad(f, x, r), numeric_grad(f, m.weight, r), numeric_grad(f, m.bias, r)
    m:zeroGradParameters()
    local xa = x:clone():requiresGrad()
    m(xa):cmul(r):sum():backward()
    tester:assertTensorEq(xa.grad, wx, 1e-6, name .. ' autograd input')
    tester:assertTensorEq(m.gradWeight, ww, 1e-6, name .. ' autograd weight')
    tester:assertTensorEq(m.gradBias, wb, 1e-6, name .. ' autograd bias')
  end
end

-- returnIndices (Note [returnIndices on PyTorch-named pools]): indices are PyTorch 1.13's + 1.
function tests.poolsReturnIndices()
  local x = dsins(2, 2, 5, 6)
  local m = nn.MaxPool2d(3, 2, 1, { returnIndices = true }):double()
  local y = m:forward(x)
  tester:assert(type(y) == 'table' and torch.type(y[2]) == 'torch.LongTensor', 'a table {output, LongTensor}')
  tester:assertalmosteq(num(y[1]:sum()), 20.91660337910063, 1e-10)
  tester:assertTableEq(y[2]:view(-1):narrow(1, 1, 12):totable(), { 2, 9, 10, 8, 15, 22, 20, 28, 28, 2, 4, 4 })
  -- saved right after a forward under autograd: the indices were an output of the recorded node,
  -- and an integer tensor cannot require grad when it is read back
  local net = nn.Sequential():add(nn.Conv2d(2, 2, 3)):add(nn.MaxPool2d(2, { returnIndices = true })):double()
  net:forward(x)
  local path = os.tmpname()
  torch.save(path, net)
  local back = torch.load(path)
  os.remove(path)
  tester:assertTensorEq(back.modules[2].output[2], net.modules[2].output[2], 0, 'indices saved and loaded')
  tester:assert(y[2]:sum() == 556, 'index sum')
  -- unpooling with the indices puts each maximum back where it was
  local u = nn.functional.maxUnpool2d(y[1], y[2], 3, 2, 1, { 5, 6 })
  tester:assertTensorEq(u, x:clone():cmul(u:ne(0):double()), 0, 'maxUnpool2d')
  local plain = nn.MaxPool2d(3, 2, 1):double()
  local g = torch.randn(y[1]:size()):double()
  local want = plain:forward(x) and plain:backward(x, g):clone()
  tester:assertTensorEq(m:backward(x, { g, y[2] }), want, 0, 'backward with {gradOutput, indices}')
  tester:assertTensorEq(m:backward(x, g), want, 0, 'backward with gradOutput')
  local xa = x:clone():requiresGrad()
  m(xa)[1]:cmul(g):sum():backward()
  tester:assertTensorEq(xa.grad, want, 0, 'autograd')
  local s = nn.Sequential():add(nn.MaxPool1d(3, 2, { returnIndices = true })):double()
  tester:assertTableEq(s:forward(x:select(2, 1):select(2, 1))[2]:totable(), { { 3, 3 }, { 1, 5 } }, 'MaxPool1d')
  tester:assert(nn.AdaptiveMaxPool2d(3, { returnIndices = true }):double():forward(x)[2]:sum() == 565, 'adaptive')
  local a1 = nn.AdaptiveMaxPool1d(2, { returnIndices = true }):double():forward(x:select(3, 1))
  tester:assertTensorEq(a1[1], x:select(3, 1):gather(3, a1[2]), 0, 'AdaptiveMaxPool1d indices point at the maxima')
end

-- Note [None in adaptive output sizes]: PyTorch 1.13's AdaptiveAvgPool2d((None, 4)) and
-- AdaptiveMaxPool2d((2, None), return_indices=True) on the same input (sums; index sum + 1 each).
function tests.adaptiveSizesKeepNilDims()
  local x = dsins(2, 2, 5, 6)
  local y = nn.AdaptiveAvgPool2d({ nil, 4 }):double():forward(x)
  tester:assertTableEq(y:size():totable(), { 2, 2, 5, 4 })
  tester:assertalmosteq(num(y:sum()), -0.08901238651242682, 1e-12)
  tester:assertalmosteq(num(y:clone():pow(2):sum()), 29.216481858638602, 1e-10)
  local m = nn.AdaptiveMaxPool2d({ 2, false }, { returnIndices = true }):double()
  local z = m:forward(x)
  tester:assertTableEq(z[1]:size():totable(), { 2, 2, 2, 6 })
  tester:assertalmosteq(num(z[1]:sum()), 8.504241477664038, 1e-12)
  tester:assert(z[2]:sum() == 744, 'index sum')
  -- the kept size follows each input, forward and backward (checked by finite differences)
  local a = nn.AdaptiveAvgPool2d({ nil, 2 }):double()
  tester:assertTableEq(a:forward(torch.randn(3, 7, 5):double()):size():totable(), { 3, 7, 2 })
  tester:assertlt(nn.Jacobian.testJacobian(a, torch.randn(2, 4, 5):double()), 1e-6, 'avg gradient')
  tester:assertlt(nn.Jacobian.testJacobian(nn.AdaptiveMaxPool2d({ 3, nil }):double(), torch.randn(2, 4, 5):double()), 1e-6)
end

function tests.errorsNameTheClass()
  local cases = {
    { function() nn.Conv2d(3, 4, 3, { paddingMode = 'mirror' }) end, "%[nn.Conv2d%] paddingMode must be 'zeros'" },
    { function() nn.Conv2d(3, 4, 3, { padding = 'same', stride = 2 }) end, "%[nn.Conv2d%] padding = 'same' needs stride 1" },
    { function() nn.Conv1d(3, 4, 3, { padding = 'full' }) end, "%[nn.Conv1d%] padding must be numbers, 'valid' or 'same'" },
    { function() nn.ConvTranspose2d(3, 4, 3, { paddingMode = 'reflect' }) end, "%[nn.ConvTranspose2d%] only paddingMode" },
    { function() nn.Conv1d(1, 1, 3, 1, 4, { paddingMode = 'circular' }):forward(torch.randn(1, 3)) end,
      '%[nn.Conv1d.*circular padding 4,4 is larger than the input size 3' },
    { function() nn.Conv1d(3, 4, 3, { groups = 2 }) end, '%[nn.Conv1d%] inChannels %(3%).*divisible by groups' },
    { function() nn.Conv3d(3, 4, { 3, 3 }) end, '%[nn.Conv3d%] expected kernelSize as a number or a table of 3' },
    { function() nn.Conv2d(3, 4, 3, { strid = 2 }) end, '%[nn.Conv2d%] unknown option strid' },
    { function() nn.ConvTranspose2d(3, 4, 3, { stride = 2, outputPadding = 2 }) end, '%[nn.ConvTranspose2d%] outputPadding' },
    { function() nn.Conv1d(3, 4, 3):forward(torch.randn(2, 5, 7)) end, '%[nn.Conv1d%(3 %-> 4.*expected a 2D' },
    { function() nn.MaxPool1d(3):forward(torch.randn(7)) end, '%[nn.MaxPool1d%] expected a 2D' },
    { function() nn.MaxPool2d(2, { returnIndices = 1 }) end, '%[nn.MaxPool2d%] expected returnIndices to be a boolean' },
    { function() nn.AdaptiveAvgPool2d({ nil, 0 }) end, '%[nn.AdaptiveAvgPool2d%] expected outputSize to hold integers' },
    { function() nn.AvgPool2d(2, { divisorOverride = 1.5 }) end, '%[nn.AvgPool2d%] divisorOverride must be a nonzero integer' },
    { function() nn.BatchNorm2d(3, { trackRunningStats = 1 }) end, '%[nn.BatchNorm2d%].*trackRunningStats' },
    { function() nn.Embedding(5, 3, { sparse = 1 }) end, '%[nn.Embedding%] expected sparse to be a boolean' },
    { function() nn.Embedding(5, 3, { paddingIdx = 0 }) end, '%[nn.Embedding%] paddingIdx must be in 1..5' },
    { function() nn.InstanceNorm1d(3):forward(torch.randn(2, 3, 4, 4)) end, '%[nn.InstanceNorm1d%] expected a 2D or 3D' },
    { function() nn.Softmax(4):forward(torch.randn(2, 3)) end, '%[nn.Softmax%] dim 4 out of range' },
    { function() nn.LogSoftmax(0) end, '%[nn.LogSoftmax%] dim 0 does not exist: dims are 1%-based' },
    { function() nn.CrossEntropyLoss({ reduction = 'avg' }) end, "%[nn.CrossEntropyLoss%] reduction must be" },
    { function() nn.CrossEntropyLoss({ labelSmoothing = 2 }) end, '%[nn.CrossEntropyLoss%] labelSmoothing' },
    { function() nn.BCELoss({ weight = 3 }) end, '%[nn.BCELoss%] expected weight to be a tensor' },
    { function() nn.MultiheadAttention(4, 2, { addBiasKv = 1 }) end, '%[nn.MultiheadAttention%] .*addBiasKv' },
    { function() nn.CosineSimilarity():forward(torch.randn(3)) end, '%[nn.CosineSimilarity%] expected a table' },
  }
  for i, c in ipairs(cases) do tester:assertErrorPattern(c[1], c[2], 'case ' .. i) end
end

-- nn.MultiheadAttention(4, 2, {addBiasKv = true, addZeroAttn = true}) takes PyTorch's state dict
-- (bias_k, bias_v) strictly and computes PyTorch's output and averaged weights. Values are PyTorch
-- 1.13's (float64, torch.manual_seed(0), q = torch.randn(3, 2, 4), m(q, q, q)).
function tests.multiheadAttentionExtraKeys()
  local R = {
    ['in_proj_weight'] = { 0.22242416441440582, 0.50850671529769897, -0.12602636218070984, 0.45824551582336426, -0.098704248666763306, 0.064797639846801758, 0.55448871850967407, -0.56807976961135864, -0.38551169633865356, -0.15503142774105072, -0.23870275914669037, 0.5290902853012085, -0.3969273567199707, -0.28189516067504883, -0.42782819271087646, -0.57352417707443237, -0.35746657848358154, 0.52639418840408325, 0.27325183153152466, 0.29680010676383972, 0.032205622643232346, -0.31395325064659119, 0.1036040410399437, -0.57176893949508667, -0.44247967004776001, -0.3156963586807251, 0.3863690197467804, 0.35904696583747864, -0.271584153175354, -0.022095860913395882, 0.39164936542510986, 0.60877972841262817, 0.24303971230983734, 0.082727141678333282, 0.4105873703956604, -0.36056634783744812, 0.11411195248365402, -0.47477573156356812, -0.4244268536567688, -0.31634154915809631, 0.27708202600479126, 0.24627195298671722, -0.36274036765098572, 0.18500205874443054, 0.3361753523349762, -0.07729203999042511, 0.023381326347589493, 0.14188958704471588 },
    ['in_proj_bias'] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0 },
    ['bias_k'] = { -1.1093896627426147, 0.12949226796627045, -0.51485109329223633, -0.25037920475006104 },
    ['bias_v'] = { 0.1366838663816452, -0.45904999971389771, -0.020210543647408485, 0.14405840635299683 },
    ['out_proj.weight'] = { -0.0037434101104736328, 0.26822179555892944, -0.41152256727218628, -0.36796951293945312, -0.19257718324661255, 0.13407868146896362, -0.0099065899848937988, 0.39644473791122437, -0.044372022151947021, 0.13230627775192261, -0.15110653638839722, -0.098282694816589355, -0.47767424583435059, -0.33114105463027954, -0.20611155033111572, 0.018521785736083984 },
    ['out_proj.bias'] = { 0, 0, 0, 0 },
    q = { 0.13557114260567418, -0.033892918655373555, 0.4604689979691664, 1.117443076566861, 0.36904473680395194, -0.18720219329758869, -3.1452962731231335, -0.11373127757597257, 0.99834357945112595, -0.082621674651432456, 0.18253194918016991, 0.95090381249359268, -1.7631617835191395, 1.0107316682629284, 0.1310043158655339, -1.3573113137879664, 0.074246814734651556, 1.9936457271364452, 0.44986533984459376, 1.5531453898519594, 0.053985948822852993, 1.4744415042312724, 1.0134077354194326, 0.85420788057449126 },
    o = { -0.34998128199948758, -0.018282256748824555, -0.14475419399413203, 0.28625127028279196, -0.14696947474533278, -0.11631308529569372, -0.07782016967661777, 0.19189958558001585, -0.36750280257533652, -0.02866321920806628, -0.15370002514824233, 0.32415303671860579, 0.022612823204254649, 0.013808875404621024, 0.016195567145232594, 0.048680494153760231, -0.45082224431191681, -0.072428529504179148, -0.19512018306271478, 0.47550051989120262, -0.31745569991445999, -0.13193516025232524, -0.14215470616744735, 0.040542151693566987 },
    w = { 0.18763160299263884, 0.18140964965502543, 0.25734813732322592, 0.17428202985182209, 0.19932858017728775, 0.16851197265206908, 0.17192094730654645, 0.28427068257803434, 0.18431985884461516, 0.19097653861873498, 0.12336750167322755, 0.12448125167774082, 0.40510891606664268, 0.17396808925412752, 0.17307424132826144, 0.083469197896125946, 0.1258468035233741, 0.51037766562346465, 0.11028423720117325, 0.17002209575586211, 0.16295134934089617, 0.17368010651945343, 0.22505148298685818, 0.24442804781829636, 0.19388901333449593, 0.2827451868679407, 0.23848635176417424, 0.21668540566129499, 0.11753639665145461, 0.14454665905513545 },
  }
  local m = nn.MultiheadAttention(4, 2, { addBiasKv = true, addZeroAttn = true }):double()
  local sizes = { in_proj_weight = { 12, 4 }, in_proj_bias = { 12 }, bias_k = { 1, 1, 4 }, bias_v = { 1, 1, 4 },
    ['out_proj.weight'] = { 4, 4 }, ['out_proj.bias'] = { 4 } }
  local sd = {}
  for k, size in pairs(sizes) do sd[k] = torch.DoubleTensor(R[k]):view(torch.LongStorage(size)) end
  m:loadStateDict(sd)
  local q = torch.DoubleTensor(R.q):view(3, 2, 4)
  local o = m:forward({ q, q, q })
  tester:assertTensorEq(o, torch.DoubleTensor(R.o):view(3, 2, 4), 1e-12, 'output')
  tester:assertTensorEq(m.attnWeights, torch.DoubleTensor(R.w):view(2, 3, 5), 1e-12, 'weights averaged over heads')
end

-- Note [After load]: the class name is stored; the loaded module computes as the saved one and trains.
function tests.serializationRoundTrip()
  local mods = { { nn.Conv1d(2, 4, 3, { dilation = 2 }), torch.randn(2, 2, 9) },
    { nn.ConvTranspose3d(2, 2, 2, { stride = 2, groups = 2 }), torch.randn(1, 2, 2, 3, 2) },
    { nn.MaxPool1d(2), torch.randn(2, 3, 8) }, { nn.BatchNorm2d(3), torch.randn(2, 3, 4, 4) },
    { nn.Softmax(1), torch.randn(3, 2) }, { nn.Embedding(6, 2, { paddingIdx = 1 }), torch.LongTensor({ 1, 4 }) } }
  mods[4][1]:evaluate()
  for _, fmt in ipairs({ 'tocha', 'binary-t7' }) do
    for _, c in ipairs(mods) do
      local path = os.tmpname()
      torch.save(path, c[1], fmt)
      local m = torch.load(path)
      os.remove(path)
      tester:asserteq(torch.typename(m), torch.typename(c[1]), fmt)
      tester:assertTensorEq(m:forward(c[2]), c[1]:forward(c[2]), 0, fmt .. ' ' .. tostring(m))
    end
    local crit = nn.CrossEntropyLoss({ reduction = 'sum', labelSmoothing = 0.1 })
    local path = os.tmpname()
    torch.save(path, crit, fmt)
    local loaded = torch.load(path)
    os.remove(path)
    local x, t = torch.randn(4, 3), torch.LongTensor({ 1, 2, 3, 1 })
    tester:assertalmosteq(loaded:forward(x, t), crit:forward(x, t), 1e-6, fmt .. ' loss')
  end
end

-- State dicts: the same entries as the Torch7 parent's, loadable both ways with the same output.
function tests.stateDictsMatchTheParents()
  local a, b = nn.Conv2d(3, 4, { 3, 2 }, { stride = { 2, 1 }, padding = 1 }), nn.SpatialConvolution(3, 4, 2, 3, 1, 2, 1, 1)
  b:loadStateDict(a:stateDict())
  local x = torch.randn(2, 3, 7, 6)
  tester:assertTensorEq(b:forward(x), a:forward(x), 0)
  local c, d = nn.BatchNorm2d(3), nn.SpatialBatchNormalization(3)
  c:loadStateDict(d:stateDict())
  local kc, kd = {}, {}
  for k in pairs(c:stateDict()) do kc[#kc + 1] = k end
  for k in pairs(d:stateDict()) do kd[#kd + 1] = k end
  table.sort(kc) table.sort(kd)
  tester:assertTableEq(kc, kd)
  local e, f = nn.ConvTranspose2d(3, 2, 3, { stride = 2 }), nn.SpatialFullConvolution(3, 2, 3, 3, 2, 2)
  f:loadStateDict(e:stateDict())
  x = torch.randn(1, 3, 4, 4)
  tester:assertTensorEq(f:forward(x), e:forward(x), 1e-6)
end

-- A small CNN written with PyTorch's names trains: SGD steps lower the loss, with both backward styles.
function tests.modelTrains()
  torch.manualSeed(2)
  local model = nn.Sequential():add(nn.Conv2d(1, 4, 3, { padding = 1 })):add(nn.BatchNorm2d(4)):add(nn.ReLU())
    :add(nn.MaxPool2d(2)):add(nn.Flatten()):add(nn.Linear(16, 3)):add(nn.LogSoftmax(2))
  local crit = nn.NLLLoss()
  local x, t = torch.randn(8, 1, 4, 4), torch.LongTensor({ 1, 2, 3, 1, 2, 3, 1, 2 })
  local first, last
  for step = 1, 30 do
    model:zeroGradParameters()
    local l = crit:forward(model:forward(x), t)
    model:backward(x, crit:backward(model.output, t))
    model:updateParameters(0.1)
    first = first or l
    last = l
  end
  tester:assertlt(last, first * 0.5, 'the loss halves')
  local ce = nn.CrossEntropyLoss({ reduction = 'none' })
  local logits = torch.randn(4, 3):requiresGrad()
  ce(logits, torch.LongTensor({ 1, 2, 3, 3 })):sum():backward()
  tester:assertTensorEq(logits.grad, ce:backward(logits:detach(), torch.LongTensor({ 1, 2, 3, 3 })), 1e-6)
end

-- Note [PyTorch-named norms]: Dropout2d zeroes whole channels with probability p and scales the rest by
-- 1/(1 - p) while training; the zeroed fraction of 400 channels is p within 5 standard errors.
function tests.dropout2dIsInverted()
  local m = nn.Dropout2d({ p = 0.3 })
  local y = m:forward(torch.ones(8, 50, 2, 2))
  local per = y:view(400, 4)
  tester:assertTensorEq(per:max(2), per:min(2), 0, 'channels are dropped whole')
  local zero = per:select(2, 1):eq(0):sum() / 400
  tester:assertlt(math.abs(zero - 0.3), 5 * math.sqrt(0.3 * 0.7 / 400), 'the dropped fraction')
  tester:assertalmosteq(per:max(), 1 / 0.7, 1e-6, 'kept channels scaled by 1/(1 - p)')
  m:evaluate()
  tester:assertTensorEq(m:forward(torch.ones(2, 3, 2, 2)), torch.ones(2, 3, 2, 2), 0, 'identity in evaluation')
end

if torch.cuda and torch.cuda.isAvailable() then
  function tests.cudaMatchesCpu()
    for _, c in ipairs({ { nn.Conv1d(4, 2, 3, { groups = 2, dilation = 2 }), { 2, 4, 9 } },
      { nn.ConvTranspose3d(2, 2, 2, { stride = 2, groups = 2 }), { 1, 2, 2, 3, 2 } },
      { nn.MaxPool1d(3, 2, 1), { 2, 3, 9 } }, { nn.Conv1d(2, 2, 4, { padding = 'same' }), { 2, 2, 7 } },
      { nn.Conv2d(2, 2, 3, { padding = { 1, 2 }, paddingMode = 'reflect' }), { 1, 2, 4, 5 } },
      { nn.Conv3d(2, 2, 2, { padding = 1, paddingMode = 'circular' }), { 1, 2, 3, 3, 3 } },
      { nn.Conv2d(2, 2, 2, { padding = 1, paddingMode = 'replicate' }), { 2, 3, 3 } } }) do
      local x = torch.randn(torch.LongStorage(c[2]))
      local y = c[1]:forward(x):clone()
      local g = c[1]:backward(x, torch.ones(y:size())):clone()
      local m = c[1]:clone():cuda()
      tester:assertTensorEq(m:forward(x:cuda()):float(), y, 1e-4, tostring(c[1]))
      tester:assertTensorEq(m:backward(x:cuda(), torch.ones(y:size()):cuda()):float(), g, 1e-4, tostring(c[1]))
    end
    local x, p = torch.randn(2, 3, 7, 6), nn.MaxPool2d(3, 2, 1, { returnIndices = true })
    local y = p:forward(x)
    local yc = p:clone():cuda():forward(x:cuda())
    tester:assertTensorEq(yc[1]:float(), y[1], 0, 'returnIndices values')
    tester:assertTensorEq(yc[2]:long(), y[2], 0, 'returnIndices indices')
  end
end

-- nn_device.lua knows the random classes by name (nn.SpatialDropout...), not this subclass.
D.cpuOnly(tests, 'Dropout2d draws random masks, which the CUDA generator draws differently', 'dropout2dIsInverted')
tester:add(tests)
tester:run()
