-- nn.BatchNormalization, SpatialBatchNormalization and VolumetricBatchNormalization against
-- hand-written f64 computations (training and evaluation, running statistics over several steps,
-- PyTorch's numbers), nn.Jacobian checks in f64, autograd (loss:backward() and torch.batchNorm's
-- gradchecks), single samples, save/load, clearState, type conversion, printing and errors.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local precision = 1e-7
local D = torch.DoubleTensor

-- Naive batch norm of x (N x C x ...): per-channel mean and biased var over every dim but 2.
local function naive(x, w, b, eps, mean, var)
  local n, c = x:size(1), x:size(2)
  local flat = x:contiguous():view(n, c, -1)
  local y = flat:clone()
  local means, vars = {}, {}
  for ch = 1, c do
    local m, v, cnt = 0, 0, 0
    if mean then
      m, v = mean[ch], var[ch]
    else
      for i = 1, n do for l = 1, flat:size(3) do m = m + flat[i][ch][l] cnt = cnt + 1 end end
      m = m / cnt
      for i = 1, n do for l = 1, flat:size(3) do v = v + (flat[i][ch][l] - m) ^ 2 end end
      v = v / cnt
    end
    means[ch], vars[ch] = m, v
    for i = 1, n do
      for l = 1, flat:size(3) do
        y[i][ch][l] = (flat[i][ch][l] - m) / math.sqrt(v + eps) * (w and w[ch] or 1) + (b and b[ch] or 0)
      end
    end
  end
  return y:viewAs(x), means, vars
end

function tests.trainingAndEvaluationMatchNaive()
  for _, shape in ipairs({ { 6, 3 }, { 4, 3, 5 }, { 3, 3, 2, 4 } }) do
    local module = #shape == 4 and nn.SpatialBatchNormalization(3) or nn.BatchNormalization(3)
    module:double()
    module.weight:copy(D({ 0.5, 1.5, -1 }))
    module.bias:copy(D({ 0.1, 0, -0.2 }))
    local x = torch.randn(unpack(shape)):double():mul(3):add(2)
    local y = module:forward(x)
    local want, means, vars = naive(x, module.weight, module.bias, 1e-5)
    tester:assertTensorEq(y, want, 1e-10, 'training ' .. #shape .. 'D')
    local m = x:nElement() / 3
    for c = 1, 3 do
      tester:assertalmosteq(module.running_mean[c], 0.1 * means[c], 1e-12)
      tester:assertalmosteq(module.running_var[c], 0.9 + 0.1 * vars[c] * m / (m - 1), 1e-12)
    end
    module:evaluate()
    local ye = module:forward(x)
    tester:assertTensorEq(ye, naive(x, module.weight, module.bias, 1e-5, module.running_mean, module.running_var),
      1e-10, 'evaluation ' .. #shape .. 'D')
  end
end

function tests.runningStatisticsAfterSeveralSteps()
  local bn = nn.BatchNormalization(4, 1e-3, 0.3):double()
  local rm, rv = torch.zeros(4):double(), torch.ones(4):double()
  for step = 1, 6 do
    local x = torch.randn(5, 4):double():mul(step):add(step)
    bn:forward(x)
    local mean = x:mean(1):view(4)
    local var = x:var(1):view(4)  -- unbiased (Torch7's default)
    rm:mul(0.7):add(0.3, mean)
    rv:mul(0.7):add(0.3, var)
  end
  tester:assertTensorEq(bn.running_mean, rm, 1e-12)
  tester:assertTensorEq(bn.running_var, rv, 1e-12)
  bn:evaluate()
  local before = bn.running_mean:clone()
  local x = torch.randn(3, 4):double()
  tester:assertTensorEq(bn:forward(x), naive(x, bn.weight, bn.bias, 1e-3, rm, rv), 1e-12)
  -- Evaluation does not move the statistics.
  tester:assertTensorEq(bn.running_mean, before, 0)
end

-- PyTorch 1.13 (/usr/bin/python3), float64 throughout:
--   bn = torch.nn.BatchNorm1d(3, momentum=0.1).double()
--   bn.weight.copy_(torch.tensor([0.5, 1.0, 2.0], dtype=torch.float64)); bias likewise [0.1, 0.0, -0.3]
--   bn(x1); y2 = bn(x1 * 0.5 + 1); print(y2, bn.running_mean, bn.running_var); bn.eval(); print(bn(x1))
function tests.matchesPyTorch()
  local x1 = D({ { 1, 2, 3 }, { 4, -1, 0.5 }, { 0, 0, 2 }, { 2, 5, -1 } })
  local bn = nn.BatchNormalization(3):double()
  bn.weight:copy(D({ 0.5, 1, 2 }))
  bn.bias:copy(D({ 0.1, 0, -0.3 }))
  bn:forward(x1)
  local y2 = bn:forward(x1 * 0.5 + 1)
  tester:assertTensorEq(y2, D({ { -0.15354395831296158, 0.21821705893449406, 2.174336751375587 },
    { 0.8606318749388852, -1.0910852946724707, -1.1247789171251958 },
    { -0.4916025693969105, -0.6546511768034825, 0.8546904839752738 },
    { 0.18451465277098733, 1.5275194125414588, -3.1042483182256655 } }), 1e-12)
  tester:assertTensorEq(bn.running_mean, D({ 0.345, 0.31, 0.2575 }), 1e-12)
  tester:assertTensorEq(bn.running_var, D({ 1.1454166666666667, 1.615, 1.1621875 }), 1e-12)
  bn:evaluate()
  tester:assertTensorEq(bn:forward(x1), D({ { 0.4060043917446347, 1.3298390962236994, 4.787877700743087 },
    { 1.807551224162809, -1.0308220213331636, 0.1498852661550404 },
    { -0.06117788572809004, -0.24393498214754256, 2.9326807269078676 },
    { 0.8731866692173594, 3.6905002137805623, -2.632910194597787 } }), 1e-12)
end

function tests.jacobiansInTraining()
  local cases = {
    { nn.BatchNormalization(3), { 5, 3 } },
    { nn.BatchNormalization(3, 1e-5, 0.1, false), { 5, 3 } },
    { nn.BatchNormalization(2), { 3, 2, 4 } },
    { nn.SpatialBatchNormalization(2), { 3, 2, 3, 2 } },
    { nn.SpatialBatchNormalization(2, 1e-5, 0.1, false), { 2, 2, 3, 3 } },
    { nn.VolumetricBatchNormalization(2), { 2, 2, 2, 2, 2 } },
  }
  for i, case in ipairs(cases) do
    local m, x = case[1]:double(), D(unpack(case[2]))
    tester:assertlt(nn.Jacobian.testJacobian(m, x), precision, 'input ' .. i)
    if m.affine then
      tester:assertlt(nn.Jacobian.testJacobianParameters(m, x, m.weight, m.gradWeight), precision, 'weight ' .. i)
      tester:assertlt(nn.Jacobian.testJacobianParameters(m, x, m.bias, m.gradBias), precision, 'bias ' .. i)
      tester:assertlt(nn.Jacobian.testJacobianUpdateParameters(m, x, m.weight), precision, 'update weight ' .. i)
      tester:assertlt(nn.Jacobian.testJacobianUpdateParameters(m, x, m.bias), precision, 'update bias ' .. i)
    end
  end
end

function tests.jacobiansInEvaluation()
  for _, affine in ipairs({ true, false }) do
    local m = nn.SpatialBatchNormalization(3, 1e-5, 0.1, affine):double()
    m.running_mean:copy(D({ 0.5, -1, 0 }))
    m.running_var:copy(D({ 2, 0.5, 1 }))
    m:evaluate()
    local x = D(2, 3, 2, 2)
    tester:assertlt(nn.Jacobian.testJacobian(m, x), precision)
    if affine then
      tester:assertlt(nn.Jacobian.testJacobianParameters(m, x, m.weight, m.gradWeight), precision)
      tester:assertlt(nn.Jacobian.testJacobianParameters(m, x, m.bias, m.gradBias), precision)
    end
    -- A single sample (C x H x W) in evaluation.
    tester:assertlt(nn.Jacobian.testJacobian(m, D(3, 2, 2)), precision)
  end
end

function tests.singleSampleInEvaluation()
  local bn = nn.BatchNormalization(3):double()
  bn:forward(torch.randn(8, 3):double())
  bn:evaluate()
  local x = torch.randn(3):double()
  local y = bn:forward(x):clone()
  tester:assertTableEq(y:size():totable(), { 3 })
  tester:assertTensorEq(y, bn:forward(x:view(1, 3)):view(3), 1e-14)
  tester:assertTableEq(bn:backward(x, torch.ones(3):double()):size():totable(), { 3 })
  local sbn = nn.SpatialBatchNormalization(2):double()
  sbn:evaluate()
  tester:assertTableEq(sbn:forward(torch.randn(2, 3, 3):double()):size():totable(), { 2, 3, 3 })
end

function tests.autogradMatchesTorch7Backward()
  torch.manualSeed(5)
  local a = nn.Sequential():add(nn.Linear(4, 3)):add(nn.BatchNormalization(3)):add(nn.ReLU()):double()
  local b = a:clone()
  local x, g = torch.randn(6, 4):double(), torch.randn(6, 3):double()
  a:zeroGradParameters()
  a:forward(x)
  local gi = a:backward(x, g):clone()
  b:zeroGradParameters()
  local xr = x:clone():requiresGrad()
  local out = b:forward(xr)
  torch.sum(torch.cmul(out, g)):backward()
  tester:assertTensorEq(xr.grad, gi, 1e-12)
  local pa, ga = a:parameters()
  local pb, gb = b:parameters()
  for i = 1, #ga do tester:assertTensorEq(ga[i], gb[i], 1e-12) end
  tester:assertTensorEq(b.modules[2].gradWeight, b.modules[2].weight.grad, 0)
end

function tests.parameterGradientsWithAnotherGradOutput()
  -- accGradParameters after updateGradInput with a different gradOutput recomputes.
  local bn = nn.BatchNormalization(3):double()
  local x = torch.randn(5, 3):double()
  local g1, g2 = torch.randn(5, 3):double(), torch.randn(5, 3):double()
  bn:forward(x)
  bn:zeroGradParameters()
  bn:backward(x, g2, 0.5)
  local want = bn.gradWeight:clone()
  bn:zeroGradParameters()
  bn:updateGradInput(x, g1)
  bn:accGradParameters(x, g2, 0.5)
  tester:assertTensorEq(bn.gradWeight, want, 1e-14)
  bn:accGradParameters(x, g2, 0.5)  -- twice accumulates twice
  tester:assertTensorEq(bn.gradWeight, want * 2, 1e-14)
end

function tests.functionalBatchNorm()
  local gc, ggc = torch.autograd.gradcheck, torch.autograd.gradgradcheck
  local rm, rv = D({ 0.2, -0.1 }), D({ 1.5, 0.7 })
  local function leaf(...) return torch.randn(...):double():requiresGrad() end
  for _, training in ipairs({ true, false }) do
    for _, shape in ipairs({ { 4, 2 }, { 3, 2, 2, 2 } }) do
      local f = function(x, w, b) return torch.batchNorm(x, rm:clone(), rv:clone(), w, b, training) end
      local inputs = { leaf(unpack(shape)), leaf(2), leaf(2) }
      tester:assert(gc(f, inputs), 'gradcheck')
      tester:assert(ggc(f, inputs), 'gradgradcheck')
      tester:assert(gc(function(x) return torch.batchNorm(x, rm:clone(), rv:clone(), nil, nil, training) end,
        { leaf(unpack(shape)) }), 'without affine')
    end
  end
  local x = torch.randn(6, 3):double()
  local rm2, rv2 = torch.zeros(3):double(), torch.ones(3):double()
  local y = torch.batchNorm(x, rm2, rv2, nil, nil, true, 0.5)
  tester:assertTensorEq(y, naive(x, nil, nil, 1e-5), 1e-12)
  tester:assertTensorEq(rm2, x:mean(1):view(3) * 0.5, 1e-12)
  tester:assertTensorEq(torch.batchNorm(x, rm2, rv2), naive(x, nil, nil, 1e-5, rm2, rv2), 1e-12)
  tester:assertErrorPattern(function() torch.batchNorm(x) end, 'evaluation mode needs running_mean')
  tester:assertErrorPattern(function() torch.batchNorm(x, nil, nil, nil, nil, 1) end, 'expected a boolean')
end

function tests.saveLoadClearStateAndTypes()
  local bn = nn.SpatialBatchNormalization(3):double()
  local x = torch.randn(2, 3, 4, 4):double()
  bn:forward(x)
  tester:assertlt(nn.Jacobian.testIO(bn, x), 1e-12)
  local copy = torch.deserialize(torch.serialize(bn))
  tester:assertTensorEq(copy.running_var, bn.running_var, 0)
  bn:clearState()
  tester:asserteq(bn.output:nElement(), 0)
  tester:asserteq(bn.save_mean:nElement(), 0)
  tester:assertErrorPattern(function() bn:updateGradInput(x, x) end, 'backward needs a forward first')
  bn:float()
  tester:asserteq(torch.type(bn.running_mean), 'torch.FloatTensor')
  local yf = bn:forward(x:float())
  tester:asserteq(torch.type(yf), 'torch.FloatTensor')
  bn:double()
  tester:assertTensorEq(bn:forward(x), yf:double(), 1e-5)
end

function tests.printingAndErrors()
  tester:asserteq(tostring(nn.BatchNormalization(10)), 'nn.BatchNormalization (2D) (10)')
  tester:asserteq(tostring(nn.SpatialBatchNormalization(16)), 'nn.SpatialBatchNormalization (4D) (16)')
  tester:asserteq(tostring(nn.VolumetricBatchNormalization(4)), 'nn.VolumetricBatchNormalization (5D) (4)')
  local bn = nn.BatchNormalization(3)
  local w = bn.weight:detach()
  tester:assert(w:min() >= 0 and w:max() < 1, 'Torch7 init: uniform weight')
  tester:asserteq(bn.bias:detach():abs():sum(), 0)
  tester:asserteq(nn.BatchNormalization(3, nil, nil, false).weight, nil)
  tester:assertErrorPattern(function() bn:forward(torch.randn(4, 5)) end,
    '%[nn.BatchNormalization %(2D%) %(3%)%] expected input N x 3 or N x 3 x L .* got torch.FloatTensor of size 4x5')
  tester:assertErrorPattern(function() bn:forward(torch.randn(3)) end, 'got torch.FloatTensor of size 3')
  tester:assertErrorPattern(function() bn:forward(torch.randn(1, 3)) end, 'more than 1 value per channel')
  local sbn = nn.SpatialBatchNormalization(2)
  tester:assertErrorPattern(function() sbn:forward(torch.randn(2, 2, 3)) end, 'N x 2 x %? x %?.*size 2x2x3')
  tester:assertErrorPattern(function() nn.BatchNormalization(0) end, 'positive number of features')
  tester:assertErrorPattern(function() nn.BatchNormalization(3, 1e-5, 0.1, 1) end, 'affine must be true or false')
  sbn:forward(torch.randn(2, 2, 3, 3))
  tester:assertErrorPattern(function() sbn:backward(torch.randn(2, 2, 3, 3), torch.randn(2, 2, 3, 2)) end,
    'gradOutput is torch.FloatTensor of size 2x2x3x2')
  local m = nn.Sequential():add(nn.BatchNormalization(4))
  tester:assertErrorPattern(function() m:forward(torch.randn(2, 3)) end, 'in module 1')
end

tester:add(tests)
tester:run()
