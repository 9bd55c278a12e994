-- Torch7's GPU package names: cutorch (over torch.cuda, devices from 1), cunn and cudnn (cudnn.X
-- as subclasses of nn.X, cudnn.convert both ways, cudnn.torch's recurrent layers). Runs on any
-- build: without a device `require 'cutorch'` fails as Torch7's did unless
-- TOCHA_CUTORCH_WITHOUT_GPU=1 (set here), and then the cutorch calls that need a device fail naming
-- themselves; with one, their values are checked against torch.cuda.
local ffi = require 'ffi'
local I = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/interpreter.lua')
pcall(ffi.cdef, 'int setenv(const char *name, const char *value, int overwrite);')
ffi.C.setenv('TOCHA_CUTORCH_WITHOUT_GPU', '1', 1)
require 'cudnn'
local tester = torch.Tester()
local tests = torch.TestSuite()

local hasGPU = torch.cuda.deviceCount() > 0

local function double(f)
  local prev = torch.getdefaulttensortype()
  torch.setdefaulttensortype('torch.DoubleTensor')
  local ok, err = pcall(f)
  torch.setdefaulttensortype(prev)
  if not ok then error(err, 0) end
end

function tests.requireFailsWithoutADeviceAsInTorch7()
  -- Scripts pick the GPU path with pcall(require, 'cunn') (Note [cutorch without a device]).
  local code = "local ok, e = pcall(require, 'cunn'); io.write(tostring(ok), ' ', tostring(cutorch), ' ', tostring(e))"
  local p = io.popen('env -u TOCHA_CUTORCH_WITHOUT_GPU ' .. I.TOCHA .. ' -e ' .. I.quote(code) .. ' 2>&1')
  local out = p:read('*a')
  p:close()
  if hasGPU then
    tester:assert(out:find('^true') ~= nil, out)
  else
    tester:assert(out:find('^false nil %[cutorch%] no CUDA device') ~= nil, out)
  end
end

function tests.requiresWork()
  tester:assert(require('cutorch') == cutorch and require('cunn') == cunn and require('cudnn') == cudnn)
  tester:asserteq(type(cutorch), 'table')
  tester:assert(cutorch.hasHalf)
end

-- ---- cutorch ----------------------------------------------------------------------------------

function tests.cutorchDevices()
  tester:asserteq(cutorch.getDeviceCount(), torch.cuda.deviceCount())
  tester:asserteq(cutorch.isAvailable(), hasGPU)
  if not hasGPU then
    for _, f in ipairs({ 'getDevice', 'synchronize', 'synchronizeAll', 'getMemoryUsage', 'getDeviceProperties' }) do
      tester:assertErrorPattern(function() cutorch[f]() end, '%[cutorch%.' .. f .. '%] no CUDA device', f)
    end
    tester:assertErrorPattern(function() cutorch.setDevice(1) end, '%[cutorch%.setDevice%] no CUDA device')
    tester:assertErrorPattern(function() cutorch.withDevice(1, print) end, '%[cutorch%.withDevice%]')
    tester:assertErrorPattern(function() cutorch.streamSynchronize(0) end, '%[cutorch%.streamSynchronize%]')
    return
  end
  local n = cutorch.getDeviceCount()
  tester:asserteq(cutorch.getDevice(), torch.cuda.getDevice() + 1, 'cutorch counts from 1')
  cutorch.setDevice(n)
  tester:asserteq(torch.cuda.getDevice(), n - 1)
  tester:asserteq(cutorch.withDevice(1, function() return cutorch.getDevice(), 'x' end), 1)
  tester:asserteq(cutorch.getDevice(), n, 'withDevice restores the device')
  tester:assertErrorPattern(function() cutorch.withDevice(1, function() error('boom') end) end, 'boom')
  tester:asserteq(cutorch.getDevice(), n, 'also after an error')
  cutorch.setDevice(1)
  tester:assertErrorPattern(function() cutorch.setDevice(0) end, 'setDevice.*counts from 1')
  tester:assertErrorPattern(function() cutorch.setDevice(n + 1) end, 'setDevice')
  local p = cutorch.getDeviceProperties(1)
  local q = torch.cuda.getDeviceProperties(0)
  tester:asserteq(p.name, q.name)
  tester:asserteq(p.totalGlobalMem, q.totalMemory)
  tester:assert(p.freeGlobalMem > 0 and p.freeGlobalMem <= p.totalGlobalMem)
  tester:asserteq(p.major, q.major)
  tester:asserteq(p.multiProcessorCount, q.multiProcessorCount)
  local free, total = cutorch.getMemoryUsage(1)
  tester:asserteq(total, q.totalMemory)
  tester:assert(free > 0 and free <= total)
  cutorch.synchronize()
  cutorch.synchronizeAll()
  local h = cutorch.createCudaHostTensor(2, 3)
  tester:asserteq(torch.type(h), 'torch.FloatTensor')
  tester:assert(h:isPinned())
  tester:assertTableEq(cutorch.createCudaHostDoubleTensor(torch.LongStorage({ 4 })):size():totable(), { 4 })
end

function tests.cutorchSeeds()
  cutorch.manualSeed(1234)
  tester:asserteq(cutorch.initialSeed(), 1234)
  local s = cutorch.seed()
  tester:asserteq(cutorch.initialSeed(), s)
  cutorch.manualSeedAll(77)
  tester:asserteq(cutorch.initialSeed(), 77)
  local st = cutorch.getRNGState()
  tester:asserteq(st:nElement(), 16)
  cutorch.manualSeed(5)
  cutorch.setRNGState(st)
  tester:asserteq(cutorch.initialSeed(), 77, 'the state holds the seed')
  tester:assertErrorPattern(function() cutorch.manualSeed(-1) end, '%[cutorch%.manualSeed%].*seed')
  if hasGPU then
    local a = torch.CudaTensor(5):uniform()
    cutorch.setRNGState(st)
    tester:assertTensorEq(torch.CudaTensor(5):uniform():float(), a:float(), 0, 'the same draws again')
  else
    tester:assertErrorPattern(function() cutorch.manualSeed(1, 2) end, 'manualSeed.*no CUDA device')
  end
end

function tests.cutorchStreams()
  tester:asserteq(cutorch.getStream(), 0)
  cutorch.reserveStreams(3)
  tester:asserteq(cutorch.getNumStreams(), 3)
  cutorch.setStream(2)
  tester:asserteq(cutorch.getStream(), 2)
  cutorch.streamWaitFor(1, { 2, 3 })
  cutorch.streamBarrier({ 0, 1, 2 })
  cutorch.streamWaitForMultiDevice(1, 1, { [1] = { 2 } })
  cutorch.streamBarrierMultiDevice({ [1] = { 1, 2 } })
  cutorch.setDefaultStream()
  tester:asserteq(cutorch.getStream(), 0)
  tester:assertErrorPattern(function() cutorch.setStream(4) end, 'setStream.*%[0, 3%]')
  tester:assertErrorPattern(function() cutorch.streamBarrier(3) end, 'streamBarrier')
  tester:assertErrorPattern(function() cutorch.reserveStreams(-1) end, 'reserveStreams')
end

-- ---- cudnn layers -----------------------------------------------------------------------------

function tests.cudnnFlags()
  local before = torch.backends.cudnn.benchmark
  cudnn.benchmark = true
  tester:asserteq(torch.backends.cudnn.benchmark, true, 'cudnn.benchmark is the backend switch')
  torch.backends.cudnn.benchmark = false
  tester:asserteq(cudnn.benchmark, false)
  torch.backends.cudnn.benchmark = before
  tester:asserteq(cudnn.fastest, false)
  cudnn.fastest, cudnn.verbose = true, true
  tester:asserteq(cudnn.fastest, true)
  tester:asserteq(cudnn.verbose, true)
  cudnn.fastest, cudnn.verbose = false, false
end

function tests.cudnnClassesAreNNSubclasses()
  double(function()
    local c = cudnn.SpatialConvolution(3, 4, 3, 2, 1, 2, 1, 0)
    tester:assert(torch.isTypeOf(c, 'nn.SpatialConvolution'))
    tester:asserteq(torch.type(c), 'cudnn.SpatialConvolution')
    tester:assertTableEq({ c.nInputPlane, c.nOutputPlane, c.kW, c.kH, c.dW, c.dH, c.padW, c.padH },
      { 3, 4, 3, 2, 1, 2, 1, 0 })
    tester:assert(tostring(c):match('^cudnn%.SpatialConvolution'), tostring(c))
    local n = nn.SpatialConvolution(3, 4, 3, 2, 1, 2, 1, 0)
    n.weight:copy(c.weight)
    n.bias:copy(c.bias)
    local x = torch.randn(2, 3, 5, 6)
    tester:assertTensorEq(c:forward(x), n:forward(x), 1e-12)
    for _, name in ipairs({ 'SpatialMaxPooling', 'SpatialAveragePooling', 'VolumetricMaxPooling',
                            'VolumetricAveragePooling', 'ReLU', 'Tanh', 'Sigmoid', 'SpatialBatchNormalization',
                            'BatchNormalization', 'VolumetricConvolution', 'SpatialCrossMapLRN', 'SpatialFullConvolution',
                            'SpatialSoftMax', 'SpatialLogSoftMax', 'SoftMax', 'LogSoftMax', 'RNN', 'LSTM', 'GRU' }) do
      tester:assert(cudnn[name] ~= nil, 'cudnn.' .. name)
      local nnName = name
      tester:assert(torch.getmetatable('cudnn.' .. name) ~= nil and
        torch.isTypeOf(torch.factory('cudnn.' .. name)(), 'nn.' .. nnName), name .. ' extends nn.' .. nnName)
    end
    local relu = cudnn.ClippedReLU(2)
    tester:assertTensorEq(relu:forward(torch.DoubleTensor({ -1, 1, 3 })), torch.DoubleTensor({ 0, 1, 2 }), 0)
    tester:assertErrorPattern(function() cudnn.ClippedReLU(-1) end, 'ClippedReLU.*ceiling')
    tester:asserteq(cudnn.Tanh(true).inplace, true)
  end)
end

function tests.cudnnSoftMaxIsInstanceMode()
  double(function()
    local x = torch.randn(2, 3, 2, 2)
    local flat = x:view(2, 12)
    local want = torch.exp(flat - torch.log(torch.exp(flat):sum(2)):expandAs(flat)):viewAs(x)
    tester:assertTensorEq(cudnn.SoftMax():forward(x), want, 1e-12, 'N x C x H x W: one distribution per sample')
    tester:assertTensorEq(cudnn.LogSoftMax():forward(x), torch.log(want), 1e-12)
    local x3 = torch.randn(3, 2, 2)
    tester:assertalmosteq(cudnn.SoftMax():forward(x3):sum(), 1, 1e-12, 'C x H x W: one distribution')
    local x2 = torch.randn(4, 5)
    tester:assertTensorEq(cudnn.SoftMax():forward(x2), nn.SoftMax():forward(x2), 0, 'batches as nn.SoftMax')
    tester:assertlt(nn.Jacobian.testJacobian(cudnn.SoftMax(), torch.randn(2, 2, 2, 3)), 1e-6)
    tester:assertlt(nn.Jacobian.testJacobian(cudnn.LogSoftMax(), torch.randn(2, 3, 2)), 1e-6)
    tester:assertlt(nn.Jacobian.testJacobian(cudnn.LogSoftMax(), torch.randn(3, 4)), 1e-6)
  end)
end

-- ---- cudnn.convert ----------------------------------------------------------------------------

local function small_net()
  return nn.Sequential()
    :add(nn.SpatialConvolution(1, 4, 3, 3, 1, 1, 1, 1)):add(nn.SpatialBatchNormalization(4)):add(nn.ReLU(true))
    :add(nn.SpatialMaxPooling(2, 2)):add(nn.SpatialAveragePooling(2, 2)):add(nn.Tanh())
    :add(nn.View(-1):setNumInputDims(3)):add(nn.Linear(4, 3)):add(nn.Sigmoid()):add(nn.LogSoftMax())
end

function tests.convertBothWaysKeepsParameters()
  double(function()
    torch.manualSeed(11)
    local net = small_net()
    net:evaluate()
    local x = torch.randn(2, 1, 4, 4)
    local y0 = net:forward(x):clone()
    local w = net.modules[1].weight
    local c = cudnn.convert(net, cudnn)
    local want = { 'cudnn.SpatialConvolution', 'cudnn.SpatialBatchNormalization', 'cudnn.ReLU',
                   'cudnn.SpatialMaxPooling', 'cudnn.SpatialAveragePooling', 'cudnn.Tanh', 'nn.View', 'nn.Linear',
                   'cudnn.Sigmoid', 'cudnn.LogSoftMax' }
    for i, t in ipairs(want) do tester:asserteq(torch.type(c.modules[i]), t, 'module ' .. i) end
    tester:assert(c.modules[1].weight == w, 'the same parameter tensors')
    tester:asserteq(c.modules[3].inplace, true)
    tester:assertTensorEq(c:forward(x), y0, 1e-12)
    local back = cudnn.convert(c, nn, function(m) return torch.type(m) == 'cudnn.Tanh' end)
    for i, t in ipairs(want) do
      local expect = t:gsub('^cudnn%.', 'nn.')
      if i == 6 then expect = 'cudnn.Tanh' end
      tester:asserteq(torch.type(back.modules[i]), expect, 'back, module ' .. i)
    end
    tester:assertTensorEq(back:forward(x), y0, 1e-12)
    -- a convertible layer at the top is returned converted; SpatialConvolutionMM becomes a convolution
    local mm = nn.SpatialConvolutionMM(2, 3, 3, 3)
    local xm = torch.randn(2, 5, 5)
    local ym = mm:forward(xm):clone()
    local cm = cudnn.convert(mm, cudnn)
    tester:asserteq(torch.type(cm), 'cudnn.SpatialConvolution')
    tester:assertTensorEq(cm:forward(xm), ym, 1e-12)
  end)
end

function tests.convertErrors()
  tester:assertErrorPattern(function() cudnn.convert(3, cudnn) end, 'cudnn.convert.*nn.Module')
  tester:assertErrorPattern(function() cudnn.convert(nn.ReLU(), {}) end, 'cudnn.convert.*destination')
  tester:assertErrorPattern(function() cudnn.convert(nn.ReLU(), cudnn, 3) end, 'cudnn.convert.*exclusion')
  local ok = pcall(require, 'nngraph')
  if ok and nn.gModule then
    local inp = nn.Identity()()
    local g = nn.gModule({ inp }, { nn.ReLU()(inp) })
    tester:assertErrorPattern(function() cudnn.convert(g, cudnn) end, 'nngraph')
  end
end

function tests.savedCudnnModulesLoadBack()
  double(function()
    local net = small_net()
    net:evaluate()
    net = cudnn.convert(net, cudnn)
    local x = torch.randn(1, 1, 4, 4)
    local y = net:forward(x):clone()
    local path = os.tmpname()
    torch.save(path, net)
    local back = torch.load(path)
    os.remove(path)
    tester:asserteq(torch.type(back.modules[1]), 'cudnn.SpatialConvolution')
    tester:assertTensorEq(back:forward(x), y, 1e-12)
    -- cudnn.torch's files: a ReLU without nn's threshold, an average pooling with cudnn's mode
    local r = cudnn.ReLU()
    r.threshold, r.val = nil, nil
    local p = cudnn.SpatialAveragePooling(2, 2, 2, 2, 1, 1)
    p.count_include_pad, p.mode = nil, 'CUDNN_POOLING_AVERAGE_COUNT_EXCLUDE_PADDING'
    torch.save(path, { r, p })
    local rl = torch.load(path)
    os.remove(path)
    tester:assertTensorEq(rl[1]:forward(torch.DoubleTensor({ -1, 2 })), torch.DoubleTensor({ 0, 2 }), 0)
    tester:asserteq(rl[2].count_include_pad, false)
    tester:assertTensorEq(rl[2]:forward(torch.ones(1, 2, 2)), torch.ones(1, 2, 2), 1e-12, 'padding not counted')
  end)
end

-- ---- cudnn recurrent layers -------------------------------------------------------------------

-- An nn module with the same parameters as the cudnn one.
local function twin(c, nnModule)
  local a, b = c:parameters(), nnModule:parameters()
  tester:asserteq(#a, #b)
  for i = 1, #a do b[i]:copy(a[i]) end
  return nnModule
end

function tests.cudnnLSTMMatchesNN()
  double(function()
    torch.manualSeed(12)
    local c = cudnn.LSTM(3, 4, 2)
    tester:asserteq(c.numLayers, 2)
    local n = twin(c, nn.LSTM(3, 4, 2))
    local x = torch.randn(5, 2, 3)
    tester:assertTensorEq(c:forward(x), n:forward(x), 1e-12)
    tester:assertTensorEq(c.hiddenOutput, n.hN, 1e-12)
    tester:assertTensorEq(c.cellOutput, n.cN, 1e-12)
    local h0, c0 = torch.randn(2, 2, 4), torch.randn(2, 2, 4)
    c.hiddenInput, c.cellInput = h0, c0
    tester:assertTensorEq(c:forward(x), n:forward({ x, h0, c0 }), 1e-12, 'hiddenInput and cellInput')
    local go, gh = torch.randn(5, 2, 4), torch.randn(2, 2, 4)
    c.gradHiddenOutput = gh
    local gi = c:updateGradInput(x, go)
    local ni = n:updateGradInput({ x, h0, c0 }, { go, gh })
    tester:assertTensorEq(gi, ni[1], 1e-12)
    tester:assertTensorEq(c.gradHiddenInput, ni[2], 1e-12)
    tester:assertTensorEq(c.gradCellInput, ni[3], 1e-12)
    -- batchFirst and a missing cell state (zeros, as cuDNN reads a null pointer)
    local b = cudnn.LSTM(3, 4, 1, true)
    local nb = twin(b, nn.LSTM(3, 4, 1, { batchFirst = true }))
    local xb = torch.randn(2, 5, 3)
    b.hiddenInput = torch.randn(1, 2, 4)
    tester:assertTensorEq(b:forward(xb), nb:forward({ xb, b.hiddenInput, torch.zeros(1, 2, 4) }), 1e-12)
  end)
end

function tests.cudnnRecurrentGradients()
  double(function()
    torch.manualSeed(13)
    local c = cudnn.GRU(2, 3, 1)
    local x = torch.randn(3, 2, 2)
    tester:assertlt(nn.Jacobian.testJacobian(c, x), 1e-6, 'input')
    local w, gw = c:parameters()
    tester:assertlt(nn.Jacobian.testJacobianParameters(c, x, w[1], gw[1]), 1e-6, 'weight_ih_l0')
    -- the gradient of the initial state: finite differences of sum(output * r) in hiddenInput
    local h0, r = torch.randn(1, 2, 3), torch.randn(3, 2, 3)
    c.hiddenInput = h0
    c:forward(x)
    c:updateGradInput(x, r)
    local eps, fd = 1e-6, torch.zeros(1, 2, 3)
    for i = 1, 6 do
      local v = h0:view(-1)
      local orig = v[i]
      v[i] = orig + eps
      local plus = c:forward(x):clone():cmul(r):sum()
      v[i] = orig - eps
      local minus = c:forward(x):clone():cmul(r):sum()
      v[i] = orig
      fd:view(-1)[i] = (plus - minus) / (2 * eps)
    end
    tester:assertTensorEq(c.gradHiddenInput, fd, 1e-6)
  end)
end

function tests.cudnnRNNModesAndStates()
  double(function()
    torch.manualSeed(14)
    local x = torch.randn(4, 3, 2)
    for name, nl in pairs({ RNN = 'relu', RNNReLU = 'relu', RNNTanh = 'tanh' }) do
      local c = cudnn[name](2, 5, 1)
      local n = twin(c, nn.RNN(2, 5, 1, { nonlinearity = nl }))
      tester:assertTensorEq(c:forward(x), n:forward(x), 1e-12, name)
    end
    tester:assert(cudnn.RNN(2, 5, 1):forward(x):min() >= 0, "cudnn.torch's RNN defaults to ReLU")
    local bl = cudnn.BLSTM(2, 3, 2)
    tester:assertTableEq(bl:forward(x):size():totable(), { 4, 3, 6 })
    tester:assertTableEq(bl.hiddenOutput:size():totable(), { 4, 3, 3 })
    tester:assertTableEq(cudnn.BGRU(2, 3, 1):forward(x):size():totable(), { 4, 3, 6 })
    -- rememberStates: the final states start the next forward
    local m = cudnn.LSTM(2, 3, 1, false, 0, true)
    local n = twin(m, nn.LSTM(2, 3, 1))
    m:forward(x)
    local h, cs = m.hiddenOutput:clone(), m.cellOutput:clone()
    tester:assertTensorEq(m:forward(x), n:forward({ x, h, cs }), 1e-12)
    m:resetStates()
    tester:asserteq(m.hiddenInput, nil)
    tester:assertErrorPattern(function() m:forward(torch.randn(4, 2)) end, 'cudnn.LSTM.*3 dimensions')
    tester:assertErrorPattern(function() cudnn.LSTM(2, 3, 1, 1) end, 'batchFirst')
    tester:assertErrorPattern(function() m:updateGradInput(torch.randn(4, 3, 2), torch.randn(4, 3, 3)) end, 'another input')
  end)
end

tester:add(tests)
tester:run()
