-- Mixed precision and pinned memory on any machine (issue 9): torch.autocast's arguments and state,
-- autocast('cuda', ...) leaving CPU tensors alone, the op lists through autocast('cpu', 'bf16')
-- (the same code path the CUDA tensors take), gradients in the parameters' dtype, GradScaler's
-- inf detection, skipping and scale schedule on CPU gradients, and the CPU side of pinned memory.
-- The GPU half is tests/lua/test_cuda_amp.lua.
require 'nn'
require 'optim'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function close(a, b, tol, msg)
  local err = (a:detach():double() - b:detach():double()):abs():max()
  tester:assert(err <= tol, string.format('%s: max error %g > %g', msg or 'values', err, tol))
end

-- ---- autocast: arguments and state --------------------------------------------------------

function tests.autocastBadArguments()
  local f = function() end
  tester:assertErrorPattern(function() torch.autocast('tpu', 'bf16', f) end, "%[autocast%] expected a device type")
  tester:assertErrorPattern(function() torch.autocast(3, 'bf16', f) end, "%[autocast%] expected a device type")
  tester:assertErrorPattern(function() torch.autocast('cuda', 'f32', f) end, "expected a dtype 'bf16' or 'f16', got f32")
  tester:assertErrorPattern(function() torch.autocast('cuda', 'bf16', 42) end, 'expected a function to run, got number')
  tester:assertErrorPattern(function() torch.noAutocast('gpu', f) end, '%[noAutocast%]')
  tester:asserteq(torch.isAutocastEnabled('cuda'), false, 'a failed call leaves autocast off')
end

function tests.autocastStateNestsAndRestores()
  tester:asserteq(torch.isAutocastEnabled(), false)
  local a, b = torch.autocast('cuda', 'bf16', function(x, y)
    tester:asserteq(torch.isAutocastEnabled('cuda'), true)
    tester:asserteq(torch.isAutocastEnabled('cpu'), false, 'per device type')
    tester:asserteq(torch.getAutocastDtype('cuda'), 'bf16')
    torch.autocast('cuda', 'f16', function() tester:asserteq(torch.getAutocastDtype('cuda'), 'f16') end)
    tester:asserteq(torch.getAutocastDtype('cuda'), 'bf16', 'inner region restored the dtype')
    torch.noAutocast('cuda', function() tester:asserteq(torch.isAutocastEnabled('cuda'), false) end)
    tester:asserteq(torch.isAutocastEnabled('cuda'), true)
    return x + 1, y
  end, 1, 'two')
  tester:asserteq(a, 2, 'results are returned')
  tester:asserteq(b, 'two')
  tester:asserteq(torch.isAutocastEnabled('cuda'), false)
  -- Default dtypes follow PyTorch: f16 on CUDA, bf16 on the CPU.
  torch.autocast('cuda', function() tester:asserteq(torch.getAutocastDtype('cuda'), 'f16') end)
  torch.autocast('cpu', function() tester:asserteq(torch.getAutocastDtype('cpu'), 'bf16') end)
end

function tests.autocastErrorRestoresState()
  local ok, err = pcall(torch.autocast, 'cuda', 'bf16', function() error('boom') end)
  tester:asserteq(ok, false)
  tester:assert(tostring(err):find('boom'), tostring(err))
  tester:asserteq(torch.isAutocastEnabled('cuda'), false)
  ok = pcall(torch.autocast, 'cpu', 'bf16', function() torch.mm(torch.ones(2, 3), torch.ones(2, 3)) end)
  tester:asserteq(ok, false)
  tester:asserteq(torch.isAutocastEnabled('cpu'), false)
end

-- ---- autocast('cuda') is a no-op for CPU tensors --------------------------------------------

function tests.cudaAutocastLeavesCpuTensorsAlone()
  torch.manualSeed(1)
  local a, b, M = torch.randn(5, 7), torch.randn(7, 3), torch.randn(5, 3)
  local model = nn.Sequential():add(nn.Linear(7, 4)):add(nn.ReLU()):add(nn.Linear(4, 3))
  local x, y = torch.randn(6, 7), torch.LongTensor({ 1, 2, 3, 1, 2, 3 })
  local crit = nn.CrossEntropyCriterion()
  local ref_mm, ref_addmm, ref_out = torch.mm(a, b), torch.addmm(M, a, b), model:forward(x):clone()
  local ref_loss = crit:forward(ref_out, y)
  torch.autocast('cuda', 'bf16', function()
    local r = torch.mm(a, b)
    tester:asserteq(r:type(), 'torch.FloatTensor')
    tester:asserteq((r - ref_mm):abs():max(), 0, 'mm unchanged')
    tester:asserteq((torch.addmm(M, a, b) - ref_addmm):abs():max(), 0, 'addmm unchanged')
    local out = model:forward(x)
    tester:asserteq(out:type(), 'torch.FloatTensor')
    close(out, ref_out, 0, 'model unchanged')
    tester:asserteq(crit:forward(out, y), ref_loss)
    tester:asserteq(torch.softmax(a, 2):type(), 'torch.FloatTensor')
  end)
end

-- ---- the op lists, through autocast('cpu', 'bf16') --------------------------------------------

function tests.matmulFamilyInLowPrecision()
  torch.manualSeed(2)
  local a, b, v = torch.randn(4, 6), torch.randn(6, 5), torch.randn(6)
  local ba, bb = torch.randn(2, 4, 6), torch.randn(2, 6, 5)
  local M = torch.randn(4, 5)
  torch.autocast('cpu', 'bf16', function()
    local checks = {
      mm = torch.mm(a, b), addmm = torch.addmm(M, a, b), bmm = torch.bmm(ba, bb),
      baddbmm = torch.baddbmm(torch.randn(2, 4, 5), ba, bb),
    }
    for name, r in pairs(checks) do tester:asserteq(r:type(), 'torch.BFloat16Tensor', name) end
    -- the CPU list has no matrix-vector products (PyTorch 1.13's; Note [Autocast])
    tester:asserteq(torch.mv(a, v):type(), 'torch.FloatTensor', 'mv stays f32 on the CPU')
    tester:asserteq(torch.ger(v, v):type(), 'torch.FloatTensor', 'ger stays f32 on the CPU')
    close(checks.mm, torch.noAutocast('cpu', function() return torch.mm(a, b) end), 0.1, 'mm in bf16')
    local d = torch.dot(v, v)
    tester:assert(math.abs((torch.isTensor(d) and d:item() or d) - v:dot(v)) < 0.1 * v:dot(v), 'dot')
    -- f64 and integer tensors are never cast.
    tester:asserteq(torch.mm(a:double(), b:double()):type(), 'torch.DoubleTensor')
    tester:asserteq(torch.mm(torch.LongTensor(2, 2):fill(1), torch.LongTensor(2, 2):fill(2)):type(), 'torch.LongTensor')
    -- A result buffer of another dtype receives the low-precision product.
    local out = torch.FloatTensor()
    torch.mm(out, a, b)
    tester:asserteq(out:type(), 'torch.FloatTensor')
    close(out, checks.mm:float(), 0, 'out buffer holds the bf16 product')
    -- In place on an f32 addend.
    local acc = M:clone()
    acc:addmm(a, b)
    tester:asserteq(acc:type(), 'torch.FloatTensor')
    close(acc, M + torch.mm(a, b), 0.1, 'addmm in place')
  end)
end

function tests.f32ListAndPromotion()
  torch.manualSeed(3)
  local x = torch.randn(4, 5):bfloat16()
  local y = torch.LongTensor({ 1, 5, 2, 3 })
  torch.autocast('cpu', 'bf16', function()
    -- softmax keeps its input's dtype on the CPU, as PyTorch 1.13 (CUDA's list casts it up)
    tester:asserteq(torch.softmax(x, 2):type(), 'torch.BFloat16Tensor', 'softmax of bf16 on the CPU')
    tester:asserteq(torch.logSoftmax(x, 2):type(), 'torch.BFloat16Tensor', 'logSoftmax of bf16 on the CPU')
    local crit = nn.CrossEntropyCriterion()
    local l = crit:forward(x, y)
    tester:assert(type(l) == 'number' and l == l, 'cross entropy of a bf16 input works in f32')
    local bn = nn.BatchNormalization(5)
    tester:asserteq(bn:forward(x):type(), 'torch.FloatTensor', 'batch norm in f32')
    local ln = nn.LayerNormalization(5)
    tester:asserteq(ln:forward(x):type(), 'torch.FloatTensor', 'layer norm in f32')
    -- Pointwise ops take the widest input dtype.
    tester:asserteq((x + torch.randn(4, 5)):type(), 'torch.FloatTensor')
    tester:asserteq(torch.cmul(x, x):type(), 'torch.BFloat16Tensor')
  end)
end

-- Torch7-style normalization modules take a low-precision input with f32 parameters, both ways.
function tests.normalizationModulesTakeLowPrecisionInput()
  torch.manualSeed(5)
  for _, m in ipairs({ nn.BatchNormalization(5), nn.LayerNormalization(5) }) do
    local x = torch.randn(4, 5):bfloat16():requiresGrad()
    local out = torch.autocast('cpu', 'bf16', function() return m(x) end)
    tester:asserteq(out:type(), 'torch.FloatTensor', tostring(m))
    out:cmul(torch.randn(4, 5)):sum():backward()
    tester:asserteq(x.grad:type(), 'torch.BFloat16Tensor', tostring(m))
    tester:assert(m.gradWeight:abs():sum() > 0, tostring(m) .. ' got a weight gradient')
    local ref = m:clone()
    local y = torch.autocast('cpu', 'bf16', function() return m:forward(x:detach()) end)
    close(y, ref:forward(x:detach():float()), 1e-5, tostring(m) .. ' forward equals the f32 one')
  end
end

function tests.convolutionWithoutLowPrecisionKernelStaysF32()
  local conv = nn.SpatialConvolution(2, 3, 3, 3)
  local x = torch.randn(1, 2, 5, 5)
  local ref = conv:forward(x):clone()
  torch.autocast('cpu', 'bf16', function()
    local out = conv:forward(x)
    tester:asserteq(out:type(), 'torch.FloatTensor')
    close(out, ref, 0, 'CPU convolution unchanged (no bf16 kernel)')
  end)
end

-- Gradients flow back through the casts in the parameters' dtype, close to the f32 gradients.
function tests.gradientsInParameterDtype()
  torch.manualSeed(4)
  local w = torch.randn(6, 3):requiresGrad()
  local x = torch.randn(5, 6)
  local y = torch.LongTensor({ 1, 2, 3, 1, 2 })
  local loss = torch.autocast('cpu', 'bf16', function()
    local h = torch.mm(x, w)
    tester:asserteq(h:type(), 'torch.BFloat16Tensor')
    return torch.crossEntropy(h, y)
  end)
  loss:backward()
  tester:asserteq(w.grad:type(), 'torch.FloatTensor')
  local w2 = w:detach():clone():requiresGrad()
  torch.crossEntropy(torch.mm(x, w2), y):backward()
  close(w.grad, w2.grad, 0.05, 'bf16 gradient close to f32')
  -- Torch7-style modules: forward under autocast, backward after.
  local model = nn.Sequential():add(nn.Linear(6, 8)):add(nn.Tanh()):add(nn.Linear(8, 3))
  local crit = nn.CrossEntropyCriterion()
  model:zeroGradParameters()
  local l = torch.autocast('cpu', 'bf16', function() return crit(model(x), y) end)
  l:backward()
  local _, grads = model:getParameters()
  tester:asserteq(grads:type(), 'torch.FloatTensor')
  tester:assert(grads:abs():sum() > 0, 'gradients reached the parameters')
end

-- The issue's "trains to the same accuracy in bf16 autocast as in f32", on the CPU path.
function tests.mlpTrainsInBf16AutocastLikeF32()
  local function train(low)
    torch.manualSeed(5)
    local n, d, classes = 1024, 20, 4
    local centers = torch.randn(classes, d) * 0.35
    local y = torch.LongTensor(n):random(1, classes)
    local x = torch.randn(n, d) + centers:index(1, y)
    local model = nn.Sequential():add(nn.Linear(d, 32)):add(nn.ReLU()):add(nn.Linear(32, classes))
    local crit = nn.CrossEntropyCriterion()
    local opt = optim.Adam(model:parameters(), { lr = 3e-3 })
    for step = 1, 150 do
      local i = ((step - 1) * 128) % n + 1
      local xb, yb = x:narrow(1, i, 128), y:narrow(1, i, 128)
      opt:zeroGrad()
      local f = function() return crit(model(xb), yb) end
      local loss = low and torch.autocast('cpu', 'bf16', f) or f()
      loss:backward()
      opt:step()
    end
    local _, pred = torch.noGrad(function() return model:forward(x) end):max(2)
    return pred:view(-1):eq(y):sum() / n
  end
  local a32, a16 = train(false), train(true)
  tester:assert(a32 > 0.75, 'f32 learns: ' .. a32)
  tester:assert(math.abs(a16 - a32) < 0.02, string.format('bf16 autocast %.4f vs f32 %.4f', a16, a32))
end

-- ---- GradScaler on CPU gradients ------------------------------------------------------------

local function param_with_grad(values, grad)
  local p = torch.Tensor(values):requiresGrad()
  p.grad = torch.Tensor(grad)
  return p
end

function tests.gradScalerScalesAndUnscales()
  local s = torch.cuda.GradScaler()
  tester:asserteq(s:getScale(), 65536, 'PyTorch default initial scale')
  tester:asserteq(s:scale(2), 131072)
  local l = s:scale(torch.Tensor({ 0.5 }))
  tester:asserteq(l[1], 32768)
  local p = param_with_grad({ 1, 2 }, { 65536, -131072 })
  local opt = optim.SGD({ p }, { lr = 0.5 })
  s:step(opt)
  tester:asserteq(p.grad[1], 1, 'unscaled gradient')
  tester:asserteq(p.grad[2], -2)
  tester:asserteq(p[1], 0.5, 'the step ran')
  tester:asserteq(p[2], 3)
  s:update()
  tester:asserteq(s:getScale(), 65536, 'one clean step does not grow the scale')
end

function tests.gradScalerSkipsInfAndNaN()
  for _, bad in ipairs({ math.huge, -math.huge, 0 / 0 }) do
    local s = torch.cuda.GradScaler({ initScale = 8 })
    local p = param_with_grad({ 1, 2, 3 }, { 8, bad, 8 })
    local opt = optim.SGD({ p }, { lr = 1 })
    tester:asserteq(s:step(opt), nil)
    tester:asserteq(s:foundInf(opt), true, tostring(bad))
    tester:asserteq(p[1], 1, 'step skipped')
    tester:asserteq(p[3], 3)
    s:update()
    tester:asserteq(s:getScale(), 4, 'backoff halves the scale')
  end
  -- A half-precision gradient with an overflow.
  local s = torch.cuda.GradScaler({ initScale = 2 })
  local g = torch.HalfTensor({ 1, 70000 })
  tester:asserteq(s:unscale(g), true)
  s:update()
  tester:asserteq(s:getScale(), 1)
end

function tests.gradScalerGrowthSchedule()
  local s = torch.cuda.GradScaler({ initScale = 4, growthInterval = 3, growthFactor = 2, backoffFactor = 0.25 })
  local g = torch.Tensor({ 1 })
  local seen = {}
  for i = 1, 7 do
    g:fill(1)
    if i == 5 then g:fill(math.huge) end
    s:unscale(g)
    s:update()
    seen[i] = s:getScale()
  end
  -- 3 clean steps double; step 5 backs off (x0.25) and resets the count; 3 more clean steps double.
  tester:assertTableEq(seen, { 4, 4, 8, 8, 2, 2, 2 })
  s:unscale(g); s:update()
  tester:asserteq(s:getScale(), 4)
  local st = s:state()
  tester:asserteq(st.scale, 4)
  tester:asserteq(st.growthTracker, 0)
  local s2 = torch.cuda.GradScaler()
  s2:loadState(st)
  tester:asserteq(s2:getScale(), 4)
  tester:asserteq(s2.growthInterval, 3)
  tester:asserteq(s2.backoffFactor, 0.25)
  s:update(100)
  tester:asserteq(s:getScale(), 100, 'update(newScale)')
end

function tests.gradScalerFunctionalAndErrors()
  local s = torch.cuda.GradScaler({ initScale = 2 })
  local x = torch.Tensor({ 1, 1 })
  local grads = torch.Tensor({ 2, 4 })
  local config = { learningRate = 1 }
  s:step(function() optim.sgd(function() return 0, grads end, x, config) end, grads)
  tester:asserteq(x[1], 0, 'functional step with unscaled gradients')
  tester:asserteq(x[2], -1)
  tester:assertErrorPattern(function() s:step(function() end, grads) end, 'already called')
  s:update()
  tester:assertErrorPattern(function() s:update() end, 'no inf checks')
  tester:assertErrorPattern(function() torch.cuda.GradScaler({ initScale = -1 }) end, 'initScale must be')
  tester:assertErrorPattern(function() torch.cuda.GradScaler({ backoffFactor = 2 }) end, 'backoffFactor')
  tester:assertErrorPattern(function() torch.cuda.GradScaler({ growthInterval = 0.5 }) end, 'growthInterval')
  tester:assertErrorPattern(function() torch.cuda.GradScaler({ bogus = 1 }) end, 'unknown option bogus')
  tester:assertErrorPattern(function() s:loadState(5) end, 'expected a table')
  tester:assertErrorPattern(function() s:step(42) end, 'expected an optimizer')
  s:unscale(grads)
  tester:assertErrorPattern(function() s:unscale(grads) end, 'already called')
  -- Disabled: everything passes through.
  local off = torch.cuda.GradScaler({ enabled = false })
  local l = torch.Tensor({ 3 })
  tester:assert(off:scale(l) == l)
  tester:asserteq(off:getScale(), 1)
  local p = param_with_grad({ 1 }, { 1 })
  off:step(optim.SGD({ p }, { lr = 1 }))
  tester:asserteq(p[1], 0)
  off:update()
  tester:assertTableEq(off:state(), {})
end

-- ---- pinned memory and async copies on the CPU side ----------------------------------------

function tests.pinnedMemoryCpuSide()
  local t = torch.randn(3, 4)
  tester:asserteq(t:isPinned(), false)
  -- copy(src, true) between CPU tensors is an ordinary copy.
  local d = torch.Tensor(3, 4)
  d:copy(t, true)
  tester:asserteq((d - t):abs():max(), 0)
  local e = torch.Tensor(3, 4):copyAsync(t)
  tester:asserteq((e - t):abs():max(), 0)
  if not torch.cuda.isAvailable() then
    tester:assertErrorPattern(function() t:pinMemory() end, '%[pinMemory%]')
    tester:assertErrorPattern(function() torch.cuda.createCudaHostTensor(2, 2) end, '%[pinMemory%]')
  end
end

function tests.loaderPinMemoryOption()
  local data = require 'data'
  local ds = data.TensorDataset({ input = torch.randn(10, 3), target = torch.LongTensor(10):fill(1) })
  local n = 0
  for batch in data.DataLoader(ds, { batchSize = 4, pinMemory = true }):iter() do
    n = n + 1
    tester:asserteq(batch.input:isPinned(), torch.cuda.isAvailable(), 'pinned when a device exists')
    tester:asserteq(batch.input:size(2), 3)
  end
  tester:asserteq(n, 3)
end

tester:add(tests)
tester:run()
