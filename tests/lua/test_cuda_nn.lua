-- nn on CUDA (issue 9): modules and criterions after :cuda() against their CPU twins, Dropout's
-- device masks, device-mixing errors, and a few SGD steps of the Fashion-MNIST CNN of
-- examples/fashion_mnist_cnn.lua on synthetic data on both devices, comparing losses and
-- parameters (plus the autograd style and memory returning to its level). The kernels themselves
-- are checked by test_cuda_nn_kernels.lua. Without a GPU the GPU tests return at once (SKIPPED);
-- TOCHA_CUDA_NN_DRYRUN=1 runs them against CPU copies (cuda_nn_check.lua).
local tester = torch.Tester()
local tests = torch.TestSuite()
local C = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/cuda_nn_check.lua')
if C.skip_all then return end
local available, dry, max_err, expect, unpack = C.available, C.dry, C.max_err, C.expect, C.unpack
local function report() C.report(tester) end

-- ---- without a GPU -----------------------------------------------------------------------------

function tests.moduleCudaWithoutGpuIsAClearError()
  if available then return end
  local m = nn.Sequential():add(nn.Linear(3, 2))
  tester:assertErrorPattern(function() m:cuda() end, 'cuda')
  tester:assertErrorPattern(function() nn.ClassNLLCriterion():cuda() end, 'cuda')
end

function tests.indexBuffersFollowTheInput()
  local b = nn.utils.longBuffer(nil, torch.FloatTensor(2))
  tester:asserteq(b:type(), 'torch.LongTensor')
  tester:assert(nn.utils.longBuffer(b, torch.DoubleTensor(1)) == b, 'a CPU LongTensor is kept for CPU inputs')
  tester:assert(nn.utils.longBuffer(torch.FloatTensor(), torch.FloatTensor(1)):type() == 'torch.LongTensor')
  tester:assert(nn.utils.isFloating(torch.FloatTensor(1)))
  tester:assert(not nn.utils.isFloating(torch.LongTensor(1)))
  tester:assert(not nn.utils.isFloating({}))
end

-- ---- modules and criterions ---------------------------------------------------------------------

local function module_cases()
  return {
    { 'Linear', function() return nn.Linear(7, 5) end, { 4, 7 } },
    { 'ReLU', function() return nn.ReLU() end, { 4, 7 } },
    { 'SpatialConvolution', function() return nn.SpatialConvolution(3, 4, 3, 3, 1, 1, 1, 1) end, { 2, 3, 8, 8 } },
    { 'SpatialMaxPooling', function() return nn.SpatialMaxPooling(2, 2, 2, 2) end, { 2, 3, 8, 8 } },
    { 'SpatialMaxPooling ceil', function() return nn.SpatialMaxPooling(3, 3, 2, 2):ceil() end, { 2, 3, 8, 8 } },
    { 'SpatialAveragePooling', function() return nn.SpatialAveragePooling(2, 2, 2, 2) end, { 2, 3, 8, 8 } },
    { 'SpatialBatchNormalization', function() return nn.SpatialBatchNormalization(3) end, { 4, 3, 5, 5 } },
    { 'BatchNormalization', function() return nn.BatchNormalization(6) end, { 8, 6 } },
    { 'View', function() return nn.View(3 * 4 * 4) end, { 2, 3, 4, 4 } },
    { 'LogSoftMax', function() return nn.LogSoftMax() end, { 4, 10 } },
    { 'LayerNormalization', function() return nn.LayerNormalization(10) end, { 4, 10 } },
    { 'SpatialAdaptiveAveragePooling', function() return nn.SpatialAdaptiveAveragePooling(3, 2) end, { 2, 3, 7, 8 } },
    { 'SpatialAdaptiveMaxPooling', function() return nn.SpatialAdaptiveMaxPooling(3, 2) end, { 2, 3, 7, 8 } },
    { 'VolumetricMaxPooling', function() return nn.VolumetricMaxPooling(2, 2, 2, 1, 2, 2) end, { 2, 2, 4, 6, 6 } },
    { 'VolumetricAveragePooling', function() return nn.VolumetricAveragePooling(2, 3, 3, 1, 2, 2) end, { 2, 2, 4, 7, 7 } },
    { 'TemporalMaxPooling', function() return nn.TemporalMaxPooling(3, 2) end, { 2, 9, 5 } },
    { 'SpatialDilatedConvolution', function() return nn.SpatialDilatedConvolution(3, 4, 3, 3, 1, 1, 2, 2, 2, 2) end, { 2, 3, 9, 9 } },
    { 'SpatialFullConvolution', function() return nn.SpatialFullConvolution(3, 4, 3, 3, 2, 2, 1, 1, 1, 1) end, { 2, 3, 5, 5 } },
    { 'VolumetricConvolution', function() return nn.VolumetricConvolution(2, 3, 2, 3, 3) end, { 2, 2, 4, 6, 6 } },
    { 'TemporalConvolution', function() return nn.TemporalConvolution(5, 4, 3, 1) end, { 2, 9, 5 } },
    { 'Tanh', function() return nn.Tanh() end, { 4, 10 } },
    { 'Sigmoid', function() return nn.Sigmoid() end, { 4, 10 } },
    { 'SoftMax', function() return nn.SoftMax() end, { 4, 10 } },
    { 'ELU', function() return nn.ELU() end, { 4, 10 } },
    { 'GELU', function() return nn.GELU() end, { 4, 10 } },
    { 'SiLU', function() return nn.SiLU() end, { 4, 10 } },
    { 'LeakyReLU', function() return nn.LeakyReLU(0.1) end, { 4, 10 } },
    { 'PReLU', function() return nn.PReLU() end, { 4, 10 } },
    { 'HardTanh', function() return nn.HardTanh() end, { 4, 10 } },
    { 'SoftPlus', function() return nn.SoftPlus() end, { 4, 10 } },
    { 'LogSigmoid', function() return nn.LogSigmoid() end, { 4, 10 } },
    { 'Threshold', function() return nn.Threshold(0.1, -1) end, { 4, 10 } },
    { 'SpatialZeroPadding', function() return nn.SpatialZeroPadding(1, 2, 0, 1) end, { 2, 3, 4, 4 } },
    { 'SpatialReplicationPadding', function() return nn.SpatialReplicationPadding(1, 2, 2, 1) end, { 2, 3, 4, 4 } },
    { 'SpatialUpSamplingNearest', function() return nn.SpatialUpSamplingNearest(2) end, { 2, 3, 4, 4 } },
    { 'SpatialUpSamplingBilinear', function() return nn.SpatialUpSamplingBilinear(2) end, { 2, 3, 4, 4 } },
    { 'GroupNormalization', function() return nn.GroupNormalization(2, 4) end, { 3, 4, 5, 5 } },
    { 'Concat', function()
      return nn.Concat(2):add(nn.Linear(10, 3)):add(nn.Linear(10, 4))
    end, { 4, 10 } },
    { 'ConcatTable+CAddTable', function()
      return nn.Sequential():add(nn.ConcatTable():add(nn.Linear(10, 10)):add(nn.Tanh())):add(nn.CAddTable())
    end, { 4, 10 } },
  }
end

function tests.modulesMatchCpu()
  if not available then return end
  C.start()
  for _, case in ipairs(module_cases()) do
    local name, make, shape = case[1], case[2], case[3]
    torch.manualSeed(7)
    local cpu = make()
    local gpu = cpu:clone():cuda()
    local x = torch.randn(unpack(shape))
    local out_c = cpu:forward(x)
    -- every module is checked even when one fails (the GPU session sees all failures at once)
    local ok, err = pcall(function()
      local out_g = gpu:forward(x:cuda())
      expect(name .. ' output', out_c, out_g, 1e-4)
      local go = out_c:detach():clone():uniform(-1, 1)
      cpu:zeroGradParameters()
      gpu:zeroGradParameters()
      local gi_c = cpu:backward(x, go)
      local gi_g = gpu:backward(x:cuda(), go:cuda())
      expect(name .. ' gradInput', gi_c, gi_g, 1e-4)
      local _, gc = cpu:parameters()
      local _, gg = gpu:parameters()
      for i, g in ipairs(gc or {}) do expect(name .. ' gradParameter ' .. i, g, gg[i], 1e-3) end
    end)
    if not ok then C.fail(name .. ': ' .. tostring(err)) end
  end
  report()
end

function tests.lookupTableAndMaxOnCuda()
  if not available then return end
  C.start()
  torch.manualSeed(3)
  local cpu = nn.LookupTable(20, 6)
  local gpu = cpu:clone():cuda()
  local idx = torch.LongTensor(4, 5):random(1, 20)
  idx[1][1], idx[2][2] = 7, 7  -- repeated rows accumulate
  for _, input in ipairs({ idx, idx:cuda() }) do  -- indices on either device
    gpu:zeroGradParameters()
    cpu:zeroGradParameters()
    local oc, og = cpu:forward(idx), gpu:forward(input)
    expect('LookupTable output', oc, og, 0)
    local go = torch.randn(4, 5, 6)
    cpu:backward(idx, go)
    gpu:backward(input, go:cuda())
    expect('LookupTable gradWeight', cpu.gradWeight, gpu.gradWeight, 1e-6)
  end
  local mc, mg = nn.Max(2), nn.Max(2):cuda()
  local x = torch.randn(5, 7)
  expect('Max output', mc:forward(x), mg:forward(x:cuda()), 0)
  local go = torch.randn(5)
  expect('Max gradInput', mc:backward(x, go), mg:backward(x:cuda(), go:cuda()), 0)
  report()
end

function tests.dropoutOnCuda()
  if not available then return end
  local m = nn.Dropout(0.4):cuda()
  local x = torch.rand(200, 50):add(1):cuda()
  local y = m:forward(x)
  tester:assert(dry or y:isCuda(), 'output on the GPU')
  local kept = y:gt(0):double():mean()
  tester:assert(kept > 0.5 and kept < 0.7, 'about 60% kept, got ' .. kept)
  local scaled = torch.cdiv(y, x):double()
  local bad = torch.cmul(scaled:gt(0):double(), torch.add(scaled, -1 / 0.6):abs():gt(1e-5):double()):sum()
  tester:asserteq(bad, 0, 'kept values scaled by 1 / (1 - p)')
  local gi = m:backward(x, torch.ones(200, 50):cuda())
  tester:asserteq(torch.ne(y:gt(0), gi:gt(0)):double():sum(), 0, 'the gradient uses the same mask')
  m:evaluate()
  tester:asserteq(max_err(x:float(), m:forward(x)), 0, 'identity in evaluation')
  if dry then return end
  -- masks come from the device's Philox stream: rate p, replayed by torch.cuda.manualSeed
  torch.cuda.manualSeed(5)
  local a = torch.Tensor(100000):cuda():bernoulli(0.3)
  torch.cuda.manualSeed(5)
  local b = torch.Tensor(100000):cuda():bernoulli(0.3)
  tester:asserteq(max_err(a:double(), b), 0, 'same seed, same mask')
  local rate = a:double():mean()
  tester:assert(math.abs(rate - 0.3) < 0.01, 'bernoulli rate ' .. rate)
  tester:asserteq(torch.LongTensor(7):cuda():bernoulli(1):double():sum(), 7, 'p = 1 into a LongTensor')
end

function tests.criterionsMatchCpu()
  if not available then return end
  C.start()
  local weights = torch.rand(5):add(0.5)
  local classes = function() return torch.LongTensor(6):random(1, 5) end
  local signs = function() return torch.Tensor(6, 5):bernoulli(0.5):mul(2):add(-1) end
  local probs = function() return torch.rand(6, 5) end
  local dense = function() return torch.randn(6, 5) end
  -- { name, constructor, target maker, input transform }
  for _, case in ipairs({
    { 'ClassNLLCriterion', function() return nn.ClassNLLCriterion() end, classes, function(x) return torch.logSoftmax(x, 2) end },
    { 'CrossEntropyCriterion', function() return nn.CrossEntropyCriterion() end, classes },
    { 'ClassNLLCriterion weighted', function() return nn.ClassNLLCriterion(weights:clone()) end, classes,
      function(x) return torch.logSoftmax(x, 2) end },
    { 'MSECriterion', function() return nn.MSECriterion() end, dense },
    { 'AbsCriterion', function() return nn.AbsCriterion() end, dense },
    { 'SmoothL1Criterion', function() return nn.SmoothL1Criterion() end, dense },
    { 'BCECriterion', function() return nn.BCECriterion() end, probs, function(x) return torch.sigmoid(x) end },
    { 'BCEWithLogitsCriterion', function() return nn.BCEWithLogitsCriterion() end, probs },
    { 'DistKLDivCriterion', function() return nn.DistKLDivCriterion() end, probs, function(x) return torch.logSoftmax(x, 2) end },
    { 'SoftMarginCriterion', function() return nn.SoftMarginCriterion() end, signs },
    { 'MarginCriterion', function() return nn.MarginCriterion() end, signs },
    { 'MultiMarginCriterion', function() return nn.MultiMarginCriterion() end, classes },
  }) do
    local name, make, target, transform = case[1], case[2], case[3], case[4]
    local cpu, gpu = make(), make():cuda()
    local x = torch.randn(6, 5)
    if transform then x = transform(x) end
    local t = target()
    local ok, err = pcall(function()
      local lc = cpu:forward(x, t)
      local lg = gpu:forward(x:cuda(), t:cuda())
      if math.abs(lc - lg) > 1e-5 * math.max(1, math.abs(lc)) then
        C.fail(string.format('%s loss %g vs %g', name, lc, lg))
      end
      expect(name .. ' gradInput', cpu:backward(x, t), gpu:backward(x:cuda(), t:cuda()), 1e-5)
    end)
    if not ok then C.fail(name .. ': ' .. tostring(err)) end
  end
  report()
end

-- Note [Deferred device errors]: the class-loss kernels check the targets themselves; a bad one is
-- raised at the first synchronization after the loss (crit:forward reads its loss, so there it is
-- the criterion's own error), the record is cleared, and the next call works.
function tests.classTargetErrorsOnCuda()
  if not available or dry then return end
  local x = torch.randn(4, 3):cuda()
  local bad, good = torch.LongTensor({ 1, 2, 4, 1 }):cuda(), torch.LongTensor({ 1, 2, 3, 1 }):cuda()
  local message = 'target 4 %(sample 3%) is out of range: classes are 1..3'
  for _, cls in ipairs({ nn.ClassNLLCriterion, nn.CrossEntropyCriterion }) do
    local c = cls():cuda()
    tester:assertErrorPattern(function() c:forward(x, bad) end, '%[' .. tostring(c) .. '%] ' .. message)
    tester:assertalmosteq(c:forward(x, good), cls():forward(x:float(), good:long()), 1e-5, 'usable after the error')
    tester:assertErrorPattern(function() c(x, bad) end, '%[' .. tostring(c) .. '%] ' .. message)
    -- The autograd form leaves a GPU loss unread (Note [Unread device losses]): a bad target is
    -- raised at the next read, named after the op; output is the loss tensor.
    local unread = c(x:clone():requiresGrad(), bad)
    tester:assert(torch.isTensor(unread) and rawequal(c.output, unread), 'the loss stays a device tensor')
    tester:assertErrorPattern(function() unread:item() end, '%[' .. c._op .. '%] ' .. message)
    c(x:clone():requiresGrad(), good)
    tester:assertalmosteq(c.output:item(), cls():forward(x:float(), good:long()), 1e-5, 'unread loss value')
    -- the op: a number without autograd (it reads its loss), a tensor under autograd (read later)
    tester:assertErrorPattern(function() torch[c._op](x, bad) end, '%[' .. c._op .. '%] ' .. message)
    local l = torch[c._op](x:clone():requiresGrad(), bad)
    tester:assertErrorPattern(function() l:item() end, '%[' .. c._op .. '%] ' .. message)
    local g = c:backward(x, bad)  -- the bad sample's gradient row is zero; the error comes at the next wait
    tester:assertErrorPattern(function() torch.cuda.synchronize() end, message)
    tester:asserteq(g[3]:float():abs():sum(), 0)
    tester:assertTensorEq(c:backward(x, good):float(), cls():backward(x:float(), good:long()), 1e-5,
      'usable after the error')
  end
  -- 40 classes: the warp-per-row kernels report a bad target once, and zero its gradient row
  -- (Note [Wide class rows]).
  local wide = torch.randn(4, 40):cuda()
  local wide_bad = torch.LongTensor({ 1, 41, 2, 3 }):cuda()
  for _, cls in ipairs({ nn.ClassNLLCriterion, nn.CrossEntropyCriterion }) do
    local c = cls():cuda()
    tester:assertErrorPattern(function() c:forward(wide, wide_bad) end,
      'target 41 %(sample 2%) is out of range: classes are 1..40')
    local g = c:backward(wide, wide_bad)
    tester:assertErrorPattern(function() torch.cuda.synchronize() end, 'target 41')
    tester:asserteq(g[2]:float():abs():sum(), 0)
    local good_wide = torch.LongTensor({ 1, 40, 2, 3 })
    tester:assertTensorEq(c:backward(wide, good_wide:cuda()):float(), cls():backward(wide:float(), good_wide), 1e-5,
      torch.typename(c) .. ' gradient with 40 classes')
  end
  -- autograd: the loss's gradient stays on the device (no read of the incoming gradient)
  local xr = x:clone():requiresGrad()
  local loss = nn.CrossEntropyCriterion():cuda()(xr, good)
  loss:backward()
  local xc = x:float():requiresGrad()
  nn.CrossEntropyCriterion()(xc, good:long()):backward()
  tester:assertTensorEq(xr.grad:float(), xc.grad, 1e-5, 'autograd gradient on CUDA')
end

-- The index ops check their indices on the device too (Note [Deferred device errors]): a bad one
-- is skipped and raised at the next synchronization; the record is cleared, the next call works.
function tests.indexErrorsOnCuda()
  if not available or dry then return end
  local w = torch.randn(5, 3):cuda()
  local bad, good = torch.LongTensor({ 2, 6, 1 }):cuda(), torch.LongTensor({ 2, 5, 1 }):cuda()
  local message = 'index 6 is out of range for dimension 1 of size 5 %(indices are 1%-based'
  local r = w:index(1, bad)  -- queued: nothing waits for the GPU ...
  tester:assertErrorPattern(function() r:float() end, '%[index%] ' .. message)  -- ... until the read
  tester:assertTensorEq(w:index(1, good):float(), w:float():index(1, good:long()), 0, 'usable after the error')
  local acc = torch.zeros(5, 3):cuda()
  acc:indexAdd(1, bad, torch.ones(3, 3):cuda())
  tester:assertErrorPattern(function() torch.cuda.synchronize() end, '%[indexAdd%] ' .. message)
  tester:asserteq(acc:float():sum(), 6, 'the valid rows were added, the bad one skipped')
  local lt = nn.LookupTable(5, 3):cuda()
  tester:assertErrorPattern(function() lt:forward(bad):float() end, message)
  tester:assertErrorPattern(function() torch.gather(w, 1, torch.LongTensor({ { 1, 9, 1 } }):cuda()):float() end,
    '%[gather%] index 9 is out of range for dimension 1 of size 5')
end

-- maxPool2dBackward checks its argmax positions in the kernel, both the gathering form (2x2
-- windows of stride 2) and the scattering one (overlapping 3x3 windows of stride 2).
function tests.poolingIndexErrorsOnCuda()
  if not available or dry then return end
  for _, cfg in ipairs({ { 2, 2 }, { 3, 2 } }) do
    local m = nn.SpatialMaxPooling(cfg[1], cfg[1], cfg[2], cfg[2]):cuda()
    local x = torch.randn(2, 3, 8, 8):cuda()
    local y = m:forward(x)
    local g = torch.ones(y:size()):cuda()
    local good = m:backward(x, g):float()
    m.indices:fill(0)
    local gi = m:backward(x, g)  -- queued: nothing waits for the GPU ...
    tester:assertErrorPattern(function() gi:float() end,  -- ... until the read
      '%[maxPool2dBackward%] indices must lie in %[1, 64%] %(positions in a 8x8 plane%), got 0', cfg[1] .. 'x' .. cfg[1])
    tester:asserteq(gi:float():abs():sum(), 0, 'the bad positions were skipped')
    m:forward(x)
    tester:assertTensorEq(m:backward(x, g):float(), good, 0, 'usable after the error')
  end
end

function tests.mixingDevicesIsAClearError()
  if not available or dry then return end
  local m = nn.Linear(3, 2):cuda()
  tester:assertErrorPattern(function() m:forward(torch.randn(4, 3)) end, 'cuda')
  local conv = nn.SpatialConvolution(1, 2, 3, 3):cuda()
  tester:assertErrorPattern(function() conv:forward(torch.randn(1, 1, 5, 5)) end, 'cuda')
  local crit = nn.ClassNLLCriterion():cuda()
  tester:assertErrorPattern(function() crit:forward(torch.randn(2, 3):cuda(), torch.LongTensor({ 1, 2 })) end, 'cuda')
end

-- ---- the Fashion-MNIST CNN on both devices --------------------------------------------------------

-- The model of examples/fashion_mnist_cnn.lua (Dropout with p = 0 here so both devices see the
-- same function: dropout masks come from different random streams; Dropout is tested above).
local function cnn(bn)
  local m = nn.Sequential()
  local function block(nIn, nOut)
    m:add(nn.SpatialConvolution(nIn, nOut, 3, 3, 1, 1, 1, 1))
    if bn then m:add(nn.SpatialBatchNormalization(nOut)) end
    m:add(nn.ReLU()):add(nn.SpatialMaxPooling(2, 2, 2, 2))
  end
  block(1, 32)
  block(32, 64)
  m:add(nn.View(64 * 7 * 7)):add(nn.Linear(64 * 7 * 7, 128))
  if bn then m:add(nn.BatchNormalization(128)) end
  m:add(nn.ReLU()):add(nn.Dropout(0)):add(nn.Linear(128, 10)):add(nn.LogSoftMax())
  return m
end

local function train_compare(bn)
  torch.manualSeed(1)
  local cpu = cnn(bn)
  local gpu = cpu:clone():cuda()
  local crit_c, crit_g = nn.ClassNLLCriterion(), nn.ClassNLLCriterion():cuda()
  local pc, gc = cpu:getParameters()
  local pg, gg = gpu:getParameters()
  tester:assert(dry or pg:isCuda(), 'flat parameters on the GPU')
  local worst_loss = 0
  for step = 1, 5 do
    local x = torch.randn(16, 1, 28, 28)
    local y = torch.LongTensor(16):random(1, 10)
    local losses = {}
    for d, dev in ipairs({ { cpu, crit_c, pc, gc, x, y }, { gpu, crit_g, pg, gg, x:cuda(), y:cuda() } }) do
      local model, crit, p, g, input, target = unpack(dev)
      g:zero()
      local out = model:forward(input)
      losses[d] = crit:forward(out, target)
      model:backward(input, crit:backward(out, target))
      p:add(-0.05, g)
    end
    worst_loss = math.max(worst_loss, math.abs(losses[1] - losses[2]) / math.max(1, math.abs(losses[1])))
  end
  tester:assertlt(worst_loss, 1e-3, 'losses of the two devices agree (bn ' .. tostring(bn) .. ')')
  tester:assertlt(max_err(pc, pg), 1e-3, 'parameters after 5 SGD steps agree (bn ' .. tostring(bn) .. ')')
  -- evaluation mode (running statistics) agrees too
  cpu:evaluate()
  gpu:evaluate()
  local x = torch.randn(4, 1, 28, 28)
  tester:assertlt(max_err(cpu:forward(x), gpu:forward(x:cuda())), 1e-3, 'evaluation outputs agree')
end

function tests.fashionMnistCnnTrainsOnCuda() if available then train_compare(false) end end
function tests.fashionMnistCnnWithBatchNormTrainsOnCuda() if available then train_compare(true) end end

-- The autograd style (loss:backward()) on the GPU, and memory returning to its level after steps.
function tests.autogradStyleTrainingOnCuda()
  if not available then return end
  torch.manualSeed(2)
  local model = cnn(true):cuda()
  local crit = nn.CrossEntropyCriterion():cuda()
  local x, y = torch.randn(8, 1, 28, 28):cuda(), torch.LongTensor(8):random(1, 10):cuda()
  local first, last
  for step = 1, 10 do
    model:zeroGradParameters()
    local loss = crit(model(x), y)
    loss:backward()
    model:updateParameters(0.05)
    local v = loss:item()
    first = first or v
    last = v
  end
  tester:assert(last < first, string.format('loss decreases on a fixed batch: %g -> %g', first, last))
  collectgarbage()
  collectgarbage()
  local before = torch.cuda.memoryStats().allocatedBytes
  for _ = 1, 3 do
    model:zeroGradParameters()
    crit(model(x), y):backward()
    model:updateParameters(0.05)
  end
  collectgarbage()
  collectgarbage()
  local after = torch.cuda.memoryStats().allocatedBytes
  tester:assert(after <= before * 1.05 + 1e6, string.format('allocated bytes back to level: %d -> %d', before, after))
end

tester:add(tests)
tester:run()
