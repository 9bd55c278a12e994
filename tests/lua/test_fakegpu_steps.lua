-- The host side of CUDA ops on the fake GPU stack (Note [Fake GPU], tests/fakegpu/fake_cuda.cpp):
-- kernels do not run, but every launch, wait, copy, cudaMalloc and cuDNN heuristics query is
-- counted. So this suite checks on machines without a GPU what the GPU tests cannot see: that a
-- training step waits for the device only where Torch7's API reads a number, that cuDNN's
-- algorithm choice and the caching allocator's blocks are reused from the second step on, that
-- optimizers run as one fused kernel, and that a tiny op is one launch and nothing else. Run by
-- ctest as lua.fakegpu_steps with LD_LIBRARY_PATH naming build/fakegpu; elsewhere it skips.
local F = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/../fakegpu/counters.lua')
if not F.loaded then
  print('SKIPPED: not running on the fake GPU stack (LD_LIBRARY_PATH=<build>/fakegpu)')
  return
end
require 'nn'
require 'optim'

local tester = torch.Tester()
local tests = {}
local fields, count = F.fields, F.count

function tests.runsOnTheFakeDevice()
  tester:assert(torch.cuda.isAvailable(), 'the fake stack answers as one device')
  tester:assertErrorPattern(function() torch.cuda.setDevice(2) end, 'cuda')
  tester:assert(torch.cuda.getDeviceProperties(0).name:find('Fake GPU') ~= nil)
end

function tests.copiesRoundTrip()
  local x = torch.FloatTensor({ 1, 2, 3 })
  local back
  local c = count(function() back = x:cuda():float() end)
  tester:eq(back:totable(), { 1, 2, 3 }, 'copies between host and device are carried out')
  tester:asserteq(c.copies_to_device, 1)
  tester:asserteq(c.copies_to_host, 1)
  tester:asserteq(c.syncs, 1, 'a copy to the host waits for the stream once')
end

function tests.tinyOpIsOneLaunch()
  local t1, t2, t3 = torch.CudaTensor(1):fill(1), torch.CudaTensor(1):fill(2), torch.CudaTensor(1)
  local c = count(function() local _ = t1 + t2 end)
  tester:asserteq(c.launches, 1)
  tester:asserteq(c.syncs, 0)
  tester:asserteq(c.events, 0)
  c = count(function() t3:add(t1, t2) end)
  tester:asserteq(c.launches, 1)
  tester:asserteq(c.device_mallocs, 0, 'an add into an existing tensor allocates nothing')
  -- Once collected, dead results are reused from the cache: no cudaMalloc at all.
  for _ = 1, 2000 do local _ = t1 + t2 end
  collectgarbage()
  c = count(function() for _ = 1, 1000 do local _ = t1 + t2 end end)
  tester:asserteq(c.launches, 1000)
  tester:asserteq(c.device_mallocs, 0, 'results come from the caching allocator')
  tester:asserteq(c.syncs, 0)
end

-- Note [Fused softmax]: one cuDNN call where the composite launched six kernels; bf16, which
-- cuDNN's softmax is not asked to take, still goes the composite way.
function tests.softmaxIsOneCudnnCall()
  local x = torch.CudaTensor(64, 10)
  for _, name in ipairs({ 'softmax', 'logSoftmax' }) do
    local c, trace = count(function() torch[name](x, 2) end)
    tester:asserteq(c.cudnn_calls, 1, name .. ':\n' .. trace)
    tester:asserteq(c.launches, 0, name .. ':\n' .. trace)
    c = count(function() torch[name](x:t(), 1) end)
    tester:asserteq(c.cudnn_calls, 1, name .. ' of a transposed input')
    tester:asserteq(c.launches, 1, name .. ': the transposed input is copied once')
  end
  local c = count(function() torch.logSoftmax(x:type('torch.CudaBFloat16Tensor'), 2) end)
  tester:asserteq(c.cudnn_calls, 0)
  tester:assert(c.launches > 2, 'bf16 runs the composite')
end

function tests.synchronizeWaitsOnce()
  local c = count(function() torch.cuda.synchronize() end)
  tester:asserteq(c.syncs, 1)
end

function tests.fusedOptimizersAreOneKernel()
  local p, g = torch.CudaTensor(100):fill(1), torch.CudaTensor(100):fill(0.5)
  local function feval() return 0, g end
  for _, name in ipairs({ 'sgd', 'adam', 'rmsprop', 'adagrad' }) do
    local cfg = { learningRate = 0.1, momentum = name == 'sgd' and 0.9 or nil }
    for _ = 1, 2 do optim[name](feval, p, cfg) end
    local c, trace = count(function() optim[name](feval, p, cfg) end)
    tester:asserteq(c.launches, 1, name .. ': ' .. trace)
    tester:asserteq(c.syncs, 0, name)
  end
end

-- Note [Multi-tensor optimizer steps]: an optimizer object's step and nn's updateParameters launch
-- one kernel per 16 parameters of one kind, not one per parameter; CPU parameters, staged ones
-- (here f16, updated through float) and lr < 0 take the per-tensor path.
function tests.optimizerStepsLaunchOncePerSixteenParameters()
  local function model(layers)
    local m = nn.Sequential()
    for _ = 1, layers do m:add(nn.Linear(5, 5)) end
    return m:cuda()
  end
  for _, layers in ipairs({ 1, 4, 8, 9, 20 }) do
    local m = model(layers)
    local params = m:parameters()
    for _, p in ipairs(params) do p.grad = p.grad or torch.CudaTensor(p:size()):fill(0.1) end
    local expected = math.ceil(2 * layers / 16)
    for _, case in ipairs({ { 'SGD', { lr = 0.1, momentum = 0.9 } }, { 'Adam', { lr = 0.01 } } }) do
      local opt = optim[case[1]](params, case[2])
      opt:step()  -- creates the state buffers (their zero fills launch at once)
      local c, trace = count(function() opt:step() end)
      tester:asserteq(c.launches, expected, case[1] .. ' over ' .. #params .. ' parameters:\n' .. trace)
      tester:asserteq(c.syncs, 0, case[1])
    end
    local c, trace = count(function() m:updateParameters(0.01) end)
    tester:asserteq(c.launches, expected, 'updateParameters over ' .. #params .. ' parameters:\n' .. trace)
    c = count(function() m:updateParameters(-0.01) end)
    tester:asserteq(c.launches, #params, 'a negative rate (gradient ascent) updates tensor by tensor')
  end
  -- Two kinds in one batch: consecutive updates of one op share a launch.
  local a, b = torch.CudaTensor(10):fill(1), torch.CudaTensor(10):fill(1)
  local ga, gb = torch.CudaTensor(10):fill(0.5), torch.CudaTensor(10):fill(0.5)
  local m, v = torch.CudaTensor(10):zero(), torch.CudaTensor(10):zero()
  local fused = require 'optim.fused'
  local c = count(function()
    fused.batch(function()
      fused.sgd(a, ga, nil, 0.1, 0, 0, 0, false, false)
      fused.sgd(b, gb, nil, 0.1, 0, 0, 0, false, false)
      fused.adam(a, ga, m, v, nil, 1, 0.1, 0.9, 0.999, 1e-8, 0, false, 0)
      fused.sgd(b, gb, nil, 0.1, 0, 0, 0, false, false)
    end)
  end)
  tester:asserteq(c.launches, 3, 'sgd x2, adam, sgd')
  -- A parameter updated twice (modules sharing weights) or one update's gradient being another's
  -- parameter: separate launches, in order, since a launch's blocks run concurrently.
  c = count(function()
    fused.batch(function()
      fused.sgd(a, ga, nil, 0.1, 0, 0, 0, false, false)
      fused.sgd(b, gb, nil, 0.1, 0, 0, 0, false, false)
      fused.sgd(a, ga, nil, 0.1, 0, 0, 0, false, false)
      fused.sgd(ga, gb, nil, 0.1, 0, 0, 0, false, false)
      fused.sgd(b:narrow(1, 3, 4), gb:narrow(1, 1, 4), nil, 0.1, 0, 0, 0, false, false)
      fused.sgd(a:narrow(1, 3, 4), ga:narrow(1, 5, 4), nil, 0.1, 0, 0, 0, false, false)
    end)
  end)
  tester:asserteq(c.launches, 4, '(a, b), (a), (ga and a slice of b), (a slice of a reading a slice of ga)')
  local shared = nn.Sequential():add(nn.Linear(3, 3)):add(nn.Linear(3, 3)):cuda()
  shared.modules[2]:share(shared.modules[1], 'weight', 'bias', 'gradWeight', 'gradBias')
  c = count(function() shared:updateParameters(0.1) end)
  tester:asserteq(c.launches, 2, 'shared weights are updated twice, one launch each time')
  -- An error inside the batch: the updates queued before it still launch, then it is raised.
  local ok, err
  c = count(function()
    ok, err = pcall(fused.batch, function()
      fused.sgd(a, ga, nil, 0.1, 0, 0, 0, false, false)
      fused.sgd(a, torch.CudaTensor(3), nil, 0.1, 0, 0, 0, false, false)
    end)
  end)
  tester:assert(not ok and tostring(err):find('sgdStep') ~= nil, tostring(err))
  tester:asserteq(c.launches, 1, 'the update before the error')
  -- Half parameters are staged through float: updated at once, outside the batch.
  local h, gh = torch.CudaHalfTensor(10):fill(1), torch.CudaHalfTensor(10):fill(1)
  c = count(function() fused.batch(fused.sgd, h, gh, nil, 0.1, 0, 0, 0, false, false) end)
  tester:assert(c.launches >= 1)
  tester:asserteq(c.syncs, 0)
end

-- The CNN of bench/cuda_models.lua (conv-ReLU-pool x2, Linear-ReLU-Linear) at a small batch.
local function cnn()
  local m = nn.Sequential()
    :add(nn.SpatialConvolution(1, 8, 3, 3, 1, 1, 1, 1)):add(nn.ReLU()):add(nn.SpatialMaxPooling(2, 2))
    :add(nn.SpatialConvolution(8, 16, 3, 3, 1, 1, 1, 1)):add(nn.ReLU()):add(nn.SpatialMaxPooling(2, 2))
    :add(nn.View(16 * 7 * 7)):add(nn.Linear(16 * 7 * 7, 32)):add(nn.ReLU()):add(nn.Linear(32, 10)):cuda()
  m.modules[1].gradInput = nil  -- no gradient for the images, as bench/cuda_models.lua
  return m, torch.randn(16, 1, 28, 28):cuda(), torch.LongTensor(16):random(1, 10):cuda()
end

-- One SGD step in each nn style, as {style, function} pairs.
local function steps(model, x, y)
  local crit = nn.CrossEntropyCriterion():cuda()
  return {
    { 'torch7', function()
      model:zeroGradParameters()
      local out = model:forward(x)
      crit:forward(out, y)
      model:backward(x, crit:backward(out, y))
      model:updateParameters(0.01)
    end },
    { 'autograd', function()
      model:zeroGradParameters()
      crit(model(x), y):backward()
      model:updateParameters(0.01)
    end },
  }
end

-- Every count of the third step equals the second's (nothing is set up anew per step), except
-- cudaMalloc, which depends on when Lua's collector ran: after two warm steps and a full
-- collection, with the collector stopped, a step takes every block from the cache.
local function check_steady(name, step)
  step()
  local second = count(step)
  local third, trace = count(step)
  for _, f in ipairs(fields) do
    if f ~= 'device_mallocs' and f ~= 'device_frees' then
      tester:asserteq(third[f], second[f], name .. ' ' .. f .. ' per step')
    end
  end
  collectgarbage('stop')
  step()
  step()
  collectgarbage()
  local again = count(step)
  collectgarbage('restart')
  tester:asserteq(again.device_mallocs, 0, name .. ': blocks come from the caching allocator')
  return third, trace
end

function tests.cnnStepWaitsOnlyForTorch7sLoss()
  local model, x, y = cnn()
  for i, case in ipairs(steps(model, x, y)) do
    local style, step = case[1], case[2]
    local first = count(step)
    if i == 1 then tester:assert(first.cudnn_heuristics > 0, 'the first step asks cuDNN for its algorithms') end
    local c, trace = check_steady(style, step)
    -- Torch7's criterion:forward returns the loss's value: one wait. The autograd form leaves it
    -- on the device (Note [Unread device losses]): none, as PyTorch's step. Max-pooling's
    -- backward checks its indices on the device.
    local waits = style == 'torch7' and 1 or 0
    tester:asserteq(c.syncs, waits, style .. ' waits:\n' .. trace)
    tester:asserteq(c.copies_to_host, waits, style)
    tester:asserteq(c.cudnn_heuristics, 0, style .. ': algorithms come from the cache')
    tester:asserteq(c.host_allocs, 0, style)
    tester:asserteq(c.events, 0, style .. ': one stream, no cross-stream frees')
    -- The first convolution (9 taps) runs on our thin-filter kernels, its bias included (Note
    -- [Thin-filter convolutions]); cuDNN has the second one's forward, data gradient and filter
    -- gradient (none for the images), and our kernel adds its bias (Note [Convolution bias]).
    tester:asserteq(c.cudnn_calls, 3, style .. ':\n' .. trace)
    local _, bias_adds = trace:gsub('channel_bias_kernel', '')
    tester:asserteq(bias_adds, 1, style)
    for _, k in ipairs({ 'thin_forward_kernel', 'thin_weight_kernel', 'thin_weight_finish' }) do
      local _, n = trace:gsub(k, '')
      tester:asserteq(n, 1, style .. ' ' .. k)
    end
  end
end

-- torch.backends.cudnn.benchmark: the first call of a new shape asks the heuristics (for the
-- workspace size) and times the algorithms; later calls of that shape do neither.
function tests.cudnnBenchmarkTimesOncePerShape()
  local conv = nn.SpatialConvolution(4, 5, 3, 3):cuda()  -- 36 taps: cuDNN's (Note [Thin-filter convolutions])
  local x = torch.randn(2, 4, 11, 13):cuda()
  local graph = torch.backends.cudnn.graphAPI
  torch.backends.cudnn.graphAPI = false  -- the legacy API's counts (benchmarking itself always takes it)
  torch.backends.cudnn.benchmark = true
  local ok, err = pcall(function()
    local first, trace = count(function() conv:backward(x, conv:forward(x)) end)
    tester:asserteq(first.cudnn_heuristics, 6, 'heuristics and timing for forward, data and filter:\n' .. trace)
    tester:assert(trace:find('cudnn find filter') ~= nil, trace)
    local again = count(function() conv:backward(x, conv:forward(x)) end)
    tester:asserteq(again.cudnn_heuristics, 0, 'the timed choice is cached')
  end)
  torch.backends.cudnn.benchmark = false
  assert(ok, err)
  local plain = count(function() conv:forward(x) end)
  torch.backends.cudnn.graphAPI = graph
  tester:asserteq(plain.cudnn_heuristics, 1, 'choices made by timing are cached apart from the heuristics\' ones')
end

-- torch.backends.cudnn.graphAPI (Note [cuDNN engines]): the first call of a shape asks the engine
-- heuristics (mode INSTANT, then the fallback list) and builds a plan; later calls only execute it.
-- A shape without engines goes to the legacy API, and is not asked again.
function tests.cudnnGraphApiBuildsOnePlanPerShape()
  local ffi = require('ffi')
  ffi.cdef [[ int setenv(const char*, const char*, int); int unsetenv(const char*); ]]
  local conv = nn.SpatialConvolution(4, 5, 3, 3):cuda()  -- 36 taps: cuDNN's (Note [Thin-filter convolutions])
  local x = torch.randn(2, 4, 9, 7):cuda()
  local was = torch.backends.cudnn.graphAPI
  torch.backends.cudnn.graphAPI = true
  local ok, err = pcall(function()
    local stats0 = torch.cuda.cudnnGraphStats()
    local stats0 = torch.cuda.cudnnGraphStats()
    local first, trace = count(function() conv:backward(x, conv:forward(x)) end)
    tester:asserteq(torch.cuda.cudnnGraphStats().plans - stats0.plans, 3, 'three shapes got a plan')
    tester:asserteq(torch.cuda.cudnnGraphStats().plans - stats0.plans, 3, 'three shapes got a plan')
    tester:asserteq(first.cudnn_heuristics, 6, 'two heuristics modes for forward, data and filter:\n' .. trace)
    local _, executed = trace:gsub('cudnnBackendExecute', '')
    tester:asserteq(executed, 3, trace)
    tester:assert(not trace:find('cudnnConvolution'), 'no legacy call:\n' .. trace)
    local again, trace2 = count(function() conv:backward(x, conv:forward(x)) end)
    tester:asserteq(again.cudnn_heuristics, 0, 'the plans are cached')
    tester:asserteq(again.cudnn_calls, 3, trace2)
    tester:asserteq(again.cudnn_descriptors, 3, 'one variant pack per call:\n' .. trace2)
    -- No engine for a new shape: the legacy API takes it, from then on without asking again.
    local x2 = torch.randn(1, 4, 6, 6):cuda()
    ffi.C.setenv('FAKEGPU_CUDNN_ENGINES', '0', 1)
    local fallback, trace3 = count(function() conv:forward(x2) end)
    ffi.C.unsetenv('FAKEGPU_CUDNN_ENGINES')
    tester:asserteq(fallback.cudnn_heuristics, 3, 'two engine queries, then the legacy heuristics:\n' .. trace3)
    tester:assert(trace3:find('cudnn cudnnConvolutionForward') ~= nil, trace3)
    tester:asserteq(torch.cuda.cudnnGraphStats().legacy - stats0.legacy, 1, 'one shape went to the legacy API')
    local later = count(function() conv:forward(x2) end)
    tester:asserteq(later.cudnn_heuristics, 0, 'both answers are cached')
    tester:asserteq(later.cudnn_calls, 1)
  end)
  ffi.C.unsetenv('FAKEGPU_CUDNN_ENGINES')
  torch.backends.cudnn.graphAPI = was
  assert(ok, err)
end

function tests.mlpStepWaitsOnlyForTorch7sLoss()
  local model = nn.Sequential():add(nn.Linear(20, 16)):add(nn.ReLU()):add(nn.Linear(16, 4)):cuda()
  local x, y = torch.randn(8, 20):cuda(), torch.LongTensor(8):random(1, 4):cuda()
  for _, case in ipairs(steps(model, x, y)) do
    local c, trace = check_steady(case[1], case[2])
    tester:asserteq(c.syncs, case[1] == 'torch7' and 1 or 0, case[1] .. ' waits:\n' .. trace)
  end
end

function tests.flatParametersStepIsOneFusedUpdate()
  local model = nn.Sequential():add(nn.Linear(20, 16)):add(nn.ReLU()):add(nn.Linear(16, 4)):cuda()
  local crit = nn.CrossEntropyCriterion():cuda()
  local x, y = torch.randn(8, 20):cuda(), torch.LongTensor(8):random(1, 4):cuda()
  local p, g = model:getParameters()
  local cfg = { learningRate = 0.01, momentum = 0.9 }
  local function feval()
    g:zero()
    crit(model(x), y):backward()
    return 0, g
  end
  local function step() optim.sgd(feval, p, cfg) end
  local c, trace = check_steady('sgd on flat parameters', step)
  tester:assert(trace:find('sgd_kernel') ~= nil, 'the update is the fused kernel')
  tester:asserteq(c.syncs, 0, 'the loss is left unread (Note [Unread device losses]):\n' .. trace)
end

-- Note [Multi-tensor optimizer steps]: an update the batch cannot queue (here a transposed view of
-- a parameter queued just before, staged through contiguous copies) runs after the queued ones:
-- the first kernel is the queued update, then the staging copies that read its result.
function tests.unqueuedUpdatesRunAfterQueuedOnes()
  local fused = require 'optim.fused'
  local w, g = torch.CudaTensor(4, 6):zero(), torch.CudaTensor(4, 6):zero()
  local _, trace = count(function()
    fused.batch(function()
      fused.sgd(w, g, nil, 0.1, 0, 0, 0, false, false)
      fused.sgd(w:t(), g:t(), nil, 0.1, 0, 0, 0, false, false)
    end)
  end)
  local kernels = {}
  for k in trace:gmatch('kernel tocha::cuda::(%S+)') do kernels[#kernels + 1] = k end
  tester:eq(kernels, { 'sgd_kernel', 'copy_kernel', 'copy_kernel', 'sgd_kernel', 'copy_kernel' }, trace)
  -- nn's updateParameters with a gradient of another type: flushed before its plain add too
  local m = nn.Linear(3, 2):cuda()
  m.gradBias = m.gradBias:type('torch.CudaDoubleTensor')
  _, trace = count(function() m:updateParameters(0.1) end)
  kernels = {}
  for k in trace:gmatch('kernel tocha::cuda::(%S+)') do kernels[#kernels + 1] = k end
  tester:asserteq(kernels[1], 'sgd_kernel', trace)
end

-- The windows nn passes to the CUDA max-pooling backward are a hint: changed or invalid ones
-- (a stride of 0 divided the host by zero once) fall back to the scatter kernel.
function tests.maxPoolingBackwardIgnoresBadWindows()
  local m = nn.SpatialMaxPooling(2, 2, 2, 2):cuda()
  local x = torch.CudaTensor(2, 3, 8, 8)
  local y = m:forward(x)
  local _, good = count(function() m:backward(x, y) end)
  tester:assert(good:find('max_pool_backward_gather_kernel') ~= nil, good)
  -- the module itself now refuses a gradOutput its changed windows would not produce
  -- (cu.checkPoolGradOutput); the C op behind it must still cope, so the check is lifted here
  m.kW, m.dW = 3, 3
  tester:assertErrorPattern(function() m:backward(x, y) end, 'nn.SpatialMaxPooling.*gradOutput must have the output size')
  local cu = require 'nn.conv_utils'
  local check = cu.checkPoolGradOutput
  cu.checkPoolGradOutput = function() end
  local ok, err = pcall(function()
    for _, k in ipairs({ 0, 3, 2 ^ 40 }) do
      m.kW, m.dW = k, k
      local _, trace = count(function() m:backward(x, y) end)
      tester:assert(trace:find('max_pool_backward_kernel') ~= nil and not trace:find('gather'), k .. ':\n' .. trace)
    end
  end)
  cu.checkPoolGradOutput = check
  if not ok then error(err, 0) end
end

-- Note [Simulated device time]: work queued takes its simulated time one item after another, a
-- wait lasts until it is done, and the device's idle time is counted. Only lower bounds are
-- asserted on wall time (a busy machine makes it longer, never shorter).
function tests.simulatedDeviceTimeIsWaitedFor()
  local t = torch.CudaTensor(16)
  F.kernel_us(2000)
  F.reset()
  local t0 = torch.tic()
  for _ = 1, 5 do t:fill(1) end
  local queued = torch.toc(t0)
  torch.cuda.synchronize()
  local waited = torch.toc(t0)
  local c = F.read()
  F.kernel_us(0)
  tester:asserteq(c.gpu_busy_ns, 5 * 2000 * 1000, 'five fills of 2 ms each')
  tester:assert(waited >= 0.010, 'the wait lasts until the five fills are done: ' .. waited)
  tester:assert(queued < waited, 'queueing does not wait for the device')
  tester:assert(c.gpu_idle_ns >= 0 and c.gpu_idle_ns < 1e9, 'idle time is counted: ' .. c.gpu_idle_ns)
  F.reset()
  t:fill(1)
  torch.cuda.synchronize()
  tester:asserteq(F.read().gpu_busy_ns, 0, 'kernel_us(0) makes the device infinitely fast again')
end

tester:add(tests)
tester:run()
