-- Activation checkpointing (torch.utils.checkpoint, lua/torch/checkpoint.lua): gradients equal
-- to the un-checkpointed computation (PyTorch 1.13's values for a function of several inputs),
-- RNG replay for dropout, memory saved on a deep chain, autocast replay, grad/createGraph, errors.
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()
local cp = torch.utils.checkpoint

local function D(t) return torch.DoubleTensor(t) end

-- The gradients of a list of tensors (cloned), then cleared.
local function take_grads(list)
  local out = {}
  for i, t in ipairs(list) do
    out[i] = t.grad and t.grad:clone() or false
    t.grad = nil
  end
  return out
end
local function assert_grads_eq(a, b, tol, what)
  tester:asserteq(#a, #b, what)
  for i = 1, #a do
    if a[i] == false or b[i] == false then tester:asserteq(a[i], b[i], what .. ' gradient ' .. i)
    else tester:assertTensorEq(a[i], b[i], tol, what .. ' gradient ' .. i) end
  end
end

function tests.namespaceAndCall()
  tester:asserteq(type(torch.utils.checkpoint.checkpoint), 'function')
  tester:asserteq(type(torch.utils.checkpoint.checkpointWith), 'function')
  tester:asserteq(type(torch.utils.checkpoint.checkpointSequential), 'function')
  local x = D({ 0.1, -0.4, 2 }):requiresGrad()
  local y = torch.utils.checkpoint(torch.exp, x)  -- the table is callable
  tester:assertTensorEq(y, torch.exp(x:detach()), 0)
  y:sum():backward()
  tester:assertTensorEq(x.grad, torch.exp(x:detach()), 1e-15)
end

-- f(x, s, z) = tanh(x W) * s, rowsums of x .* z, and a string; W is captured.
-- Loss sum(a) + sum(b^2); values from PyTorch 1.13 (float64).
function tests.functionOfSeveralInputsMatchesPyTorch()
  local x = D({ { -1.0, -0.6, -0.2 }, { 0.2, 0.6, 1.0 } }):requiresGrad()
  local z = D({ { 0.5, -0.3, 0.8 }, { -0.7, 0.4, 0.1 } }):requiresGrad()
  local W = D({ { 0.3, -0.5, 0.2 }, { 0.1, 0.4, -0.6 }, { -0.8, 0.7, 0.9 } }):requiresGrad()
  local calls = 0
  local function f(a, s, b)
    calls = calls + 1
    return torch.tanh(torch.mm(a, W)) * s, torch.cmul(a, b):sum(2):view(-1), 'tag'
  end
  local a, b, tag = cp.checkpoint(f, x, 1.5, z)
  tester:asserteq(calls, 1, 'forward runs fn once')
  tester:asserteq(tag, 'tag', 'non-tensor results pass through')
  tester:asserteq(a.gradFn, 'utils.checkpoint')
  tester:assertTensorEq(a, D({ { -0.296062980337, 0.179140947802, -0.02999600064 },
    { -0.887279093148, 1.028713593344, 0.783998144529 } }), 1e-11)
  tester:assertTensorEq(b, D({ -0.48, 0.2 }), 1e-14)
  ;(a:sum() + torch.cmul(b, b):sum()):backward()
  tester:asserteq(calls, 2, 'backward runs fn again, once')
  tester:assertTensorEq(x.grad, D({ { -0.486953465946, 0.123958623686, 0.463232540791 },
    { -0.166656030867, -0.078823484927, 0.797231606504 } }), 1e-11)
  tester:assertTensorEq(z.grad, D({ { 0.96, 0.576, 0.192 }, { 0.08, 0.24, 0.4 } }), 1e-12)
  tester:assertTensorEq(W.grad, D({ { -1.246533033001, -1.319705901498, -1.28135390538 },
    { -0.279844360324, -0.41046407118, -0.245501332228 }, { 0.686844312352, 0.498777759137, 0.790351240924 } }), 1e-11)
end

-- Inputs that are not differentiable get no gradient; results that need none are fine; a
-- segment whose inputs need no gradient still gives its captured parameters theirs
-- (Note [Checkpoint without inputs that require grad]).
function tests.nonDifferentiableInputsAndResults()
  local x = D({ 1, 2, 3 }):requiresGrad()
  local c = D({ 4, 5, 6 })
  local idx = torch.LongTensor({ 3, 1 })
  local function f(a, i, k) return torch.cmul(a, k):index(1, i), torch.mul(k, 2), i:clone() end
  local y, kk, ii = cp(f, x, idx, c)
  tester:assertTensorEq(kk, D({ 8, 10, 12 }), 0)
  tester:assertTensorEq(ii, idx, 0)
  y:sum():backward()
  tester:assertTensorEq(x.grad, D({ 4, 0, 6 }), 0, 'd/dx sum(x .* c at 3,1)')
  tester:asserteq(c.grad, nil, 'no gradient for an input that does not require grad')

  local W = D({ { 1, 2 }, { 3, 4 } }):requiresGrad()
  local data = D({ { 0.5, -1 } })
  local out = cp(function(v) return torch.mm(v, W) end, data)
  out:sum():backward()
  tester:assertTensorEq(W.grad, D({ { 0.5, 0.5 }, { -1, -1 } }), 0, 'd sum(v W)/dW = v^T 1')
end

local function mlp()
  torch.manualSeed(11)
  return nn.Sequential():add(nn.Linear(6, 8)):add(nn.ReLU()):add(nn.Linear(8, 8)):add(nn.ReLU())
    :add(nn.Linear(8, 5)):add(nn.Tanh()):add(nn.Linear(5, 2)):double()
end

-- Gradients of x and of every parameter after loss = sum(out^2) from run(model, x).
local function mlp_grads(model, x, run)
  local params = model:parameters()
  model:zeroGradParameters()
  local out = run(model, x)
  torch.cmul(out, out):sum():backward()
  local g = {}
  for i, p in ipairs(params) do g[i] = p.grad:clone() end
  g[#g + 1] = x.grad and x.grad:clone() or false
  x.grad = nil
  return g, out:detach():clone()
end

function tests.mlpModulesMatchPlainAutograd()
  local model = mlp()
  torch.manualSeed(12)
  local x = torch.randn(4, 6):double():requiresGrad()
  local data = torch.randn(4, 6):double()
  local plain = function(m, v) return m:forward(v) end
  for _, input in ipairs({ x, data }) do
    local want, wout = mlp_grads(model, input, plain)
    for _, segments in ipairs({ 1, 2, 3, 7 }) do
      local got, out = mlp_grads(model, input, function(m, v) return cp.checkpointSequential(m, segments, v) end)
      tester:assertTensorEq(out, wout, 1e-14, 'output, segments ' .. segments)
      assert_grads_eq(got, want, 1e-13, 'checkpointSequential, segments ' .. segments)
    end
    local list = {}
    for i, m in ipairs(model.modules) do list[i] = m end
    list[3] = function(v) return model.modules[3]:forward(v) end
    local got = mlp_grads(model, input, function(_, v) return cp.checkpointSequential(list, 3, v) end)
    assert_grads_eq(got, want, 1e-13, 'a list of modules and functions')
    got = mlp_grads(model, input, function(m, v) return cp.checkpoint(function(u) return m:forward(u) end, v) end)
    assert_grads_eq(got, want, 1e-13, 'checkpoint(fn) around the whole model')
    got = mlp_grads(model, input, function(m, v) return cp.checkpoint(m, v) end)
    assert_grads_eq(got, want, 1e-13, 'checkpoint(module)')
  end
end

-- Note [Checkpointing nn modules]: checkpointed chunks' modules are cleared, the last chunk's
-- are not; clearState=false keeps every output as a plain forward leaves it.
function tests.clearStateOfCheckpointedModules()
  local model = mlp()
  local x = torch.randn(3, 6):double():requiresGrad()
  local plain = model:forward(x):clone()
  local outs = {}
  for i, m in ipairs(model.modules) do outs[i] = m.output:clone() end
  cp.checkpointSequential(model, 3, x):sum():backward()  -- chunks 1-2, 3-4 checkpointed; 5-7 not
  for i = 1, 4 do tester:asserteq(model.modules[i].output:nElement(), 0, 'module ' .. i .. ' cleared') end
  for i = 5, 7 do tester:assertTensorEq(model.modules[i].output, outs[i], 1e-14, 'module ' .. i .. ' kept') end
  local y = cp.checkpointSequential(model, 3, x, { clearState = false })
  y:sum():backward()
  tester:assertTensorEq(y, plain, 1e-14)
  for i = 1, 7 do tester:assertTensorEq(model.modules[i].output, outs[i], 1e-14, 'clearState=false keeps ' .. i) end
end

local function dropout_net()
  torch.manualSeed(21)
  return nn.Sequential():add(nn.Linear(10, 40)):add(nn.Dropout(0.5)):add(nn.ReLU()):add(nn.Linear(40, 40))
    :add(nn.Dropout(0.3)):add(nn.Linear(40, 3)):double()
end

-- One training step from seed 5: the parameters' and the input's gradients, and the next numbers
-- the generator gives after the backward.
local function dropout_step(run)
  local model = dropout_net()
  local x = torch.linspace(-1, 1, 60):double():view(6, 10):requiresGrad()
  torch.manualSeed(5)
  run(model, x):sum():backward()
  local after = torch.rand(8):double()
  local _, grads = model:parameters()
  local g = { x.grad:clone() }
  for i, t in ipairs(grads) do g[i + 1] = t:clone() end
  return g, after
end

function tests.dropoutReplaysTheSameMasks()
  local want, want_after = dropout_step(function(m, x) return m:forward(x) end)
  local got, got_after = dropout_step(function(m, x) return cp.checkpointSequential(m, 2, x) end)
  assert_grads_eq(got, want, 1e-13, 'dropout inside a checkpointed chunk')
  tester:assertTensorEq(got_after, want_after, 0, 'the random stream after backward is not disturbed')
  local fn_got = dropout_step(function(m, x) return cp(m, x) end)
  assert_grads_eq(fn_got, want, 1e-13, 'checkpoint(module) with dropout')

  -- Without preserveRngState the replay draws new masks: other gradients, and the replay's draws
  -- move the generator on (PyTorch's preserve_rng_state=False behaves the same).
  local off, off_after = dropout_step(function(m, x)
    return cp.checkpointSequential(m, 2, x, { preserveRngState = false })
  end)
  tester:assertgt((off[1] - want[1]):abs():max(), 1e-3, 'new masks give other input gradients')
  tester:assertgt((off_after - want_after):abs():max(), 0, 'the replay consumed random numbers')
  local off_fn = dropout_step(function(m, x) return cp.checkpointWith({ preserveRngState = false }, m, x) end)
  tester:assertgt((off_fn[1] - want[1]):abs():max(), 1e-3, 'checkpointWith preserveRngState=false')
end

-- Note [Checkpoint inside torch.autograd.grad]: gradients of the segment's inputs, and no .grad
-- written on the parameters fn captures.
function tests.autogradGradWithRespectToInputs()
  local W = D({ { 0.3, -0.5 }, { 0.1, 0.4 } }):requiresGrad()
  local x = D({ { 1, 2 }, { -1, 0.5 } }):requiresGrad()
  local z = D({ 0.2, -0.7 }):requiresGrad()
  local function f(a, b) return torch.sigmoid(torch.mm(a, W)) + b:view(1, 2) end
  local want = torch.autograd.grad(torch.cmul(f(x, z), f(x, z)):sum(), { x, z })
  local y = cp(f, x, z)
  local got = torch.autograd.grad(torch.cmul(y, y):sum(), { x, z })
  tester:assertTensorEq(got[1], want[1], 1e-14)
  tester:assertTensorEq(got[2], want[2], 1e-14)
  tester:asserteq(W.grad, nil, 'grad() leaves .grad alone')
  tester:asserteq(x.grad, nil)
  -- A tensor fn captures is not an input of the checkpoint: grad() cannot reach it (documented).
  tester:assertErrorPattern(function() torch.autograd.grad(cp(f, x, z):sum(), W) end, '%[grad%] input 1 was not used')
end

function tests.createGraphRaises()
  local x = D({ 0.5, 1.5 }):requiresGrad()
  local y = cp(function(a) return torch.cmul(a, a) end, x)
  tester:assertErrorPattern(function() torch.autograd.grad(y:sum(), x, { createGraph = true }) end,
    '%[utils%.checkpoint%] createGraph=true')
end

function tests.backwardTwiceAndNested()
  local x = D({ 0.3, -1.2, 2 }):requiresGrad()
  local inner = function(a) return torch.sin(a) end
  local outer = function(a) return torch.exp(cp(inner, a)) end
  local y = cp(outer, x)
  y:sum():backward({ retainGraph = true })
  local want = torch.cmul(torch.exp(torch.sin(x:detach())), torch.cos(x:detach()))
  tester:assertTensorEq(x.grad, want, 1e-14, 'nested checkpoints')
  y:sum():backward()
  tester:assertTensorEq(x.grad, want * 2, 1e-14, 'a second backward replays again')
end

function tests.noGradCallsOnce()
  local calls = 0
  local x = D({ 1, 2 }):requiresGrad()
  local y = torch.noGrad(function()
    return cp(function(a) calls = calls + 1 return a * 3 end, x)
  end)
  tester:asserteq(calls, 1)
  tester:asserteq(y.gradFn, nil)
  tester:asserteq(y:needsGrad(), false)
  tester:assertTensorEq(y, D({ 3, 6 }), 0)
  local s = torch.noGrad(cp.checkpointSequential, { nn.Linear(2, 2):double(), torch.tanh }, 2, x)
  tester:asserteq(s:needsGrad(), false)
end

-- The backward of a segment run under torch.autocast replays it in the same precision.
function tests.autocastIsReplayed()
  torch.manualSeed(3)
  local W = torch.randn(8, 8):requiresGrad()
  local x = torch.randn(4, 8):requiresGrad()
  local function f(a) return torch.tanh(torch.mm(a, W)) end
  local y = torch.autocast('cpu', 'bf16', function() return cp(f, x) end)
  tester:asserteq(torch.type(y), 'torch.BFloat16Tensor')
  y:float():sum():backward()
  local got = take_grads({ x, W })
  torch.autocast('cpu', 'bf16', f, x):float():sum():backward()
  assert_grads_eq(got, take_grads({ x, W }), 0, 'checkpoint under autocast')
end

function tests.errors()
  local x = D({ 1, 2 }):requiresGrad()
  tester:assertErrorPattern(function() cp(42, x) end, '%[utils%.checkpoint%] expected fn .*got number')
  tester:assertErrorPattern(function() cp.checkpointWith({ preserveRNGState = false }, torch.exp, x) end,
    '%[utils%.checkpoint%] unknown option preserveRNGState')
  tester:assertErrorPattern(function() cp.checkpointWith({ preserveRngState = 1 }, torch.exp, x) end,
    'preserveRngState must be a boolean, got number')
  tester:assertErrorPattern(function() cp.checkpointWith(x, torch.exp, x) end, 'options must be a table, got torch%.DoubleTensor')
  -- fn changing an input in place would be replayed from the changed value.
  local c = D({ 1, 2 })
  tester:assertErrorPattern(function() cp(function(a, b) b:mul(2) return a * 1 end, x, c) end,
    '%[utils%.checkpoint%] fn modified its tensor argument 2 in place')
  -- A full reduction is a number in the forward (grad mode off) but needs a gradient in the replay.
  local y, s = cp(function(a) return a * 2, a:sum() end, x)
  tester:asserteq(type(s), 'number')
  tester:assertErrorPattern(function() y:sum():backward() end, 'result 2 of fn needs a gradient.*number')

  local seq = nn.Sequential():add(nn.Linear(2, 2)):add(nn.Tanh()):double()
  local S = '%[utils%.checkpointSequential%] '
  tester:assertErrorPattern(function() cp.checkpointSequential(seq, 0, x) end, S .. 'segments must be an integer from 1 to 2.*got 0')
  tester:assertErrorPattern(function() cp.checkpointSequential(seq, 3, x) end, S .. 'segments .*got 3')
  tester:assertErrorPattern(function() cp.checkpointSequential(seq, 1.5, x) end, S .. 'segments .*got 1%.5')
  tester:assertErrorPattern(function() cp.checkpointSequential(seq, '2', x) end, S .. 'segments .*got string')
  tester:assertErrorPattern(function() cp.checkpointSequential(seq, 1, { x }) end, S .. 'input must be a tensor, got table')
  tester:assertErrorPattern(function() cp.checkpointSequential(nn.Linear(2, 2), 1, x) end, S .. 'expected an nn.Sequential.*got nn.Linear')
  tester:assertErrorPattern(function() cp.checkpointSequential({ torch.tanh, 7 }, 1, x) end, S .. 'element 2 of the list is number')
  tester:assertErrorPattern(function() cp.checkpointSequential({}, 1, x) end, S .. 'the sequence has no modules')
  tester:assertErrorPattern(function() cp.checkpointSequential(seq, 1, x, { clearstate = false }) end, S .. 'unknown option clearstate')
end

-- Peak live CPU bytes of run() (forward and backward) above the bytes live before it.
local function peak_of(run)
  collectgarbage()
  collectgarbage()
  torch.resetPeakMemoryStats()
  local live = torch.memoryStats().liveBytes
  local grad = run()
  local peak = torch.memoryStats().peakBytes - live
  collectgarbage()
  return peak, grad
end

-- A deep chain of large activations: plain autograd keeps all of them; checkpointing into
-- segments keeps the segments' inputs and one segment's activations at a time. Each layer
-- collects garbage first, so that freed activations are returned at once in both runs; modules
-- start each run without buffers, so that both runs count their allocation.
local function chain_peaks(layers, segments, n, opts)
  local function run(how)
    for _, m in ipairs(layers) do if type(m) ~= 'function' then m.output:detach_() m:clearState() end end
    return peak_of(function()
      torch.manualSeed(1)
      local x = torch.rand(n):requiresGrad()
      local y = x
      if how == 'plain' then
        for _, f in ipairs(layers) do if type(f) == 'function' then y = f(y) else y = f:forward(y) end end
      else
        y = cp.checkpointSequential(layers, segments, x, opts)
      end
      y:sum():backward()
      return x.grad
    end)
  end
  local ck, gck = run('checkpoint')
  local plain, gplain = run('plain')
  tester:assertTensorEq(gck, gplain, 1e-6, 'same gradients')
  return ck, plain
end

function tests.memoryOfADeepChain()
  local layers = {}
  for i = 1, 24 do layers[i] = function(x) collectgarbage() return torch.tanh(x) end end
  local n = 2 ^ 20  -- 4 MiB activations
  local ck, plain = chain_peaks(layers, 4, n)
  tester:assertgt(plain, 20 * 4 * n, 'plain autograd keeps every activation')
  tester:assertlt(ck / plain, 0.7, string.format('checkpointed peak %d bytes, plain %d', ck, plain))
end

function tests.memoryOfNnModules()
  local layers = {}
  for i = 1, 32 do
    layers[#layers + 1] = function(x) collectgarbage() return x end
    layers[#layers + 1] = nn.Tanh()
  end
  local n = 2 ^ 19
  local ck, plain = chain_peaks(layers, 8, n)
  tester:assertlt(ck / plain, 0.7, string.format('checkpointed peak %d bytes, plain %d', ck, plain))
  -- Note [Checkpointing nn modules]: with their buffers kept, the modules hold every activation.
  local kept = chain_peaks(layers, 8, n, { clearState = false })
  tester:assertgt(kept / plain, 0.8, 'clearState=false saves little')
  for _, m in ipairs(layers) do if type(m) ~= 'function' then m:clearState() end end
end

-- Training steps through checkpointed modules do not accumulate memory (the replay's nodes and
-- the cleared buffers must not keep each other alive: Note [Checkpointing nn modules]).
function tests.repeatedStepsDoNotLeak()
  local model = mlp()
  local x = torch.randn(64, 6):double():requiresGrad()
  local live = {}
  for step = 1, 6 do
    model:zeroGradParameters()
    x.grad = nil
    cp.checkpointSequential(model, 3, x):sum():backward()
    collectgarbage()
    collectgarbage()
    live[step] = torch.memoryStats().liveBytes
  end
  -- At most equal: graphs left by the suites before this one are freed a link per collection
  -- (a dead node releases its Lua entry, which the next collection frees), so live bytes may fall.
  tester:assertle(live[6], live[3], 'live bytes grew from step 3 to step 6')
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  torch.manualSeed(4)
  local model = mlp()
  local x = torch.randn(4, 6):double()
  local want = mlp_grads(model, x:clone():requiresGrad(), function(m, v) return m:forward(v) end)
  model:cuda()
  local xc = x:type('torch.CudaTensor'):requiresGrad()  -- the model's float32 (x:cuda() keeps f64)
  local got = mlp_grads(model, xc, function(m, v) return cp.checkpointSequential(m, 3, v) end)
  for i = 1, #want do tester:assertTensorEq(got[i]:cpu():double(), want[i], 1e-4, 'cuda gradient ' .. i) end
  -- Dropout on the device draws the same masks in the replay, and the stream after backward is
  -- the one without checkpointing.
  local net = dropout_net():cuda()
  local xd = torch.randn(6, 10):cuda():requiresGrad()
  torch.cuda.manualSeed(9)
  net:forward(xd):sum():backward()
  local g1, after1 = xd.grad:clone(), torch.cuda.getRNGState()
  xd.grad = nil
  torch.cuda.manualSeed(9)
  cp.checkpointSequential(net, 2, xd):sum():backward()
  tester:assertTensorEq(xd.grad:cpu(), g1:cpu(), 1e-5, 'CUDA dropout replayed')
  tester:assertTensorEq(torch.cuda.getRNGState(), after1, 0, 'the CUDA stream after backward is unchanged')
end

tester:add(tests):run()
