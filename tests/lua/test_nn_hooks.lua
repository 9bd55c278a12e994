-- Module hooks (nn/module_hooks.lua): forward pre-hooks, forward hooks and full backward hooks
-- (autograd and Torch7 backward), their order and counts inside nested containers against PyTorch
-- 1.13's, replacement of input/output/gradInput against closed forms, removal, no change for
-- modules without hooks, feature extraction, clone and torch.save behaviour, errors.
require 'nn'
local D = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local tmp = os.getenv('TOCHA_TEST_TMP') or os.getenv('TMPDIR') or '/tmp'

local function nested()
  return nn.Sequential():add(nn.Linear(3, 4)):add(nn.Tanh())
    :add(nn.Sequential():add(nn.Linear(4, 2)):add(nn.ReLU())):double()
end

-- Registers on every module of m hooks that log p<name>, f<name> and b<name>:<gradInput is nil>.
local function log_all(m, log)
  local handles = {}
  for name, mod in m:namedModules() do
    handles[#handles + 1] = mod:registerForwardPreHook(function(_, x) log[#log + 1] = 'p' .. name end)
    handles[#handles + 1] = mod:registerForwardHook(function(_, x, y) log[#log + 1] = 'f' .. name end)
    handles[#handles + 1] = mod:registerFullBackwardHook(function(_, gi, go)
      log[#log + 1] = 'b' .. name .. ':' .. tostring(gi == nil)
    end)
  end
  return handles
end

function tests.orderInNestedContainersIsPyTorchs()
  local m = nested()
  local log = {}
  log_all(m, log)
  -- PyTorch 1.13, the same model with the same hooks, m(x).sum().backward():
  local fwd = { 'p', 'p0', 'f0', 'p1', 'f1', 'p2', 'p2.0', 'f2.0', 'p2.1', 'f2.1', 'f2', 'f' }
  local function expect(tail)
    local r = {}
    for _, v in ipairs(fwd) do r[#r + 1] = v end
    for _, v in ipairs(tail) do r[#r + 1] = v end
    return r
  end
  -- input requires grad
  m:forward(torch.randn(5, 3):double():requiresGrad()):sum():backward()
  tester:assertTableEq(log, expect({ 'b2.1:false', 'b2.0:false', 'b2:false', 'b1:false', 'b0:false', 'b:false' }))
  -- input does not: the modules that take it fire from their output side, with no gradInput
  for k in pairs(log) do log[k] = nil end
  m:forward(torch.randn(5, 3):double()):sum():backward()
  tester:assertTableEq(log, expect({ 'b:true', 'b2.1:false', 'b2.0:false', 'b2:false', 'b1:false', 'b0:true' }))
  -- Torch7's backward: each module once, children before their container
  for k in pairs(log) do log[k] = nil end
  local x = torch.randn(5, 3):double()
  m:forward(x)
  m:backward(x, torch.ones(5, 2):double())
  tester:assertTableEq(log, expect({ 'b2.1:false', 'b2.0:false', 'b2:false', 'b1:false', 'b0:false', 'b:false' }))
end

function tests.countsInsideConcatAndConcatTable()
  local a, b = nn.Linear(3, 2), nn.Linear(3, 2)
  local m = nn.Sequential():add(nn.ConcatTable():add(a):add(b)):add(nn.CAddTable()):double()
  local counts = { f = 0, b = 0 }
  for _, mod in ipairs({ a, b }) do
    mod:registerForwardHook(function() counts.f = counts.f + 1 end)
    mod:registerFullBackwardHook(function() counts.b = counts.b + 1 end)
  end
  local x = torch.randn(4, 3):double():requiresGrad()
  for _ = 1, 3 do m:forward(x):sum():backward() end
  tester:asserteq(counts.f, 6)
  tester:asserteq(counts.b, 6)
  m:forward(x)
  m:backward(x, torch.ones(4, 2):double())
  tester:asserteq(counts.b, 8, 'Torch7 backward: once per module')
  local c = nn.Concat(2):add(nn.Linear(3, 2)):add(nn.Linear(3, 1)):double()
  local n = 0
  c.modules[2]:registerForwardHook(function(_, _, y) n = n + y:size(2) end)
  c:forward(torch.randn(4, 3):double())
  tester:asserteq(n, 1)
end

function tests.preHookReplacesInput()
  local l = nn.Linear(3, 2):double()
  local x = torch.randn(4, 3):double():requiresGrad()
  l:registerForwardPreHook(function(_, input) return input * 2 end)
  local y = l:forward(x)
  -- closed form: W (2x) + b, and d sum(y) / dx = 2 * 1 W
  tester:assertTensorEq(y, torch.mm(x:detach() * 2, l.weight:t()) + l.bias:view(1, 2):expand(4, 2), 1e-12)
  y:sum():backward()
  tester:assertTensorEq(x.grad, torch.ones(4, 2):double():mm(l.weight) * 2, 1e-12)
  -- returning nothing leaves the input alone
  local l2 = nn.Linear(3, 2):double()
  local seen
  l2:registerForwardPreHook(function(_, input) seen = input end)
  local x2 = torch.randn(4, 3):double()
  tester:assertTensorEq(l2:forward(x2), torch.mm(x2, l2.weight:t()) + l2.bias:view(1, 2):expand(4, 2), 1e-12)
  tester:assert(rawequal(seen, x2), 'the hook sees the input itself')
end

function tests.forwardHookReplacesOutputSeenByTheNextModule()
  local m = nn.Sequential():add(nn.Linear(3, 2)):add(nn.Tanh()):double()
  local seen_in, seen_out
  m.modules[1]:registerForwardHook(function(_, input, output)
    seen_in, seen_out = input, output:clone()
    return output + 1
  end)
  local x = torch.randn(4, 3):double():requiresGrad()
  local y = m:forward(x)
  local lin = torch.mm(x:detach(), m.modules[1].weight:t()) + m.modules[1].bias:view(1, 2):expand(4, 2)
  tester:assert(rawequal(seen_in, x), 'the hook gets the input')
  tester:assertTensorEq(seen_out, lin, 1e-12)
  tester:assertTensorEq(y, torch.tanh(lin + 1), 1e-12)
  tester:assertTensorEq(m.modules[1].output, lin + 1, 1e-12, 'm.output is the replacement')
  -- the gradient goes through the replacement: d tanh(z + 1) / dx
  y:sum():backward()
  local dz = -torch.pow(torch.tanh(lin + 1), 2) + 1
  tester:assertTensorEq(x.grad, dz:mm(m.modules[1].weight), 1e-12)
end

function tests.backwardHookSeesAndReplacesGradInput()
  -- autograd: gradInput = gradOutput W, gradOutput = d loss / d y (closed forms)
  local l1 = nn.Linear(3, 4):double()
  local l2 = nn.Linear(4, 2):double()
  local m = nn.Sequential():add(l1):add(l2)
  local ref = m:clone()
  local x = torch.randn(5, 3):double():requiresGrad()
  local got = {}
  l2:registerFullBackwardHook(function(mod, gi, go)
    got.mod, got.gi, got.go = mod, gi:clone(), go:clone()
    return gi * 3
  end)
  local y = m:forward(x)
  torch.pow(y, 2):sum():backward()
  local go = y:detach() * 2
  tester:assert(rawequal(got.mod, l2), 'the module')
  tester:assertTensorEq(got.go, go, 1e-12)
  tester:assertTensorEq(got.gi, go:mm(l2.weight), 1e-12)
  -- the replacement flows upstream: l1's gradients and x's are 3 times the unhooked ones
  local xref = x:detach():clone():requiresGrad()
  torch.pow(ref:forward(xref), 2):sum():backward()
  tester:assertTensorEq(x.grad, xref.grad * 3, 1e-10)
  tester:assertTensorEq(l1.gradWeight, ref.modules[1].gradWeight * 3, 1e-10)
  tester:assertTensorEq(l2.gradWeight, ref.modules[2].gradWeight, 1e-10, 'its own parameters are not scaled')
  -- Torch7 backward: the replacement is the return value, m.gradInput and what the container passes on
  m:zeroGrad()
  ref:zeroGrad()
  local xt = torch.randn(5, 3):double()
  local gy = torch.randn(5, 2):double()
  m:forward(xt)
  local gi = m:backward(xt, gy)
  ref:forward(xt)
  local gr = ref:backward(xt, gy)
  tester:assertTensorEq(got.go, gy, 1e-12)
  tester:assertTensorEq(l2.gradInput, gy:mm(l2.weight) * 3, 1e-12)
  tester:assertTensorEq(gi, gr * 3, 1e-10)
  tester:assertTensorEq(l1.gradWeight, ref.modules[1].gradWeight * 3, 1e-10)
end

function tests.tableInputsAndOutputs()
  -- CAddTable on {a, b} where only a needs a gradient: gradInput {ga, nil}
  local add = nn.CAddTable():double()
  local seen
  add:registerFullBackwardHook(function(_, gi, go)
    seen = { gi[1] and gi[1]:clone(), gi[2], go:clone() }
    return { gi[1] * -1 }
  end)
  local a = torch.randn(2, 3):double():requiresGrad()
  local b = torch.randn(2, 3):double()
  local y = add:forward({ a, b })
  tester:assertTensorEq(y, a:detach() + b, 1e-12)
  local s = (y * 5):sum()
  s:backward()
  tester:assertTensorEq(seen[1], torch.DoubleTensor(2, 3):fill(5), 0)
  tester:asserteq(seen[2], nil)
  tester:assertTensorEq(seen[3], torch.DoubleTensor(2, 3):fill(5), 0)
  tester:assertTensorEq(a.grad, torch.DoubleTensor(2, 3):fill(-5), 0)
  -- a table output: gradOutput is a table too, nil where no gradient came
  local ct = nn.ConcatTable():add(nn.Identity()):add(nn.MulConstant(2)):double()
  local go_seen
  ct:registerFullBackwardHook(function(_, gi, go) go_seen = go end)
  local x = torch.randn(3):double():requiresGrad()
  local out = ct:forward(x)
  out[2]:sum():backward()
  tester:asserteq(go_seen[1], nil)
  tester:assertTensorEq(go_seen[2], torch.ones(3):double(), 0)
  tester:assertTensorEq(x.grad, torch.DoubleTensor(3):fill(2), 1e-12)
end

function tests.autogradModuleHooks()
  -- nn.GroupNormalization is differentiated by autograd (no updateGradInput of its own)
  local gn = nn.GroupNormalization(2, 4):double()
  local ref = gn:clone()
  local n = 0
  gn:registerFullBackwardHook(function(_, gi) n = n + 1 return gi * 0.5 end)
  local x = torch.randn(3, 4):double():requiresGrad()
  local w = torch.randn(3, 4):double()
  torch.cmul(gn:forward(x), w):sum():backward()
  local xr = x:detach():clone():requiresGrad()
  torch.cmul(ref:forward(xr), w):sum():backward()
  tester:asserteq(n, 1)
  tester:assertTensorEq(x.grad, xr.grad * 0.5, 1e-12)
  -- Torch7 backward of the same module
  local gi = gn:backward(x:detach(), w)
  tester:asserteq(n, 2)
  tester:assertTensorEq(gi, xr.grad * 0.5, 1e-10)
end

function tests.removalStopsHooksAndRestoresTheModule()
  local l = nn.Linear(3, 2):double()
  local calls = 0
  local h1 = l:registerForwardHook(function() calls = calls + 1 end)
  local h2 = l:registerFullBackwardHook(function() calls = calls + 10 end)
  local x = torch.randn(4, 3):double():requiresGrad()
  l:forward(x):sum():backward()
  tester:asserteq(calls, 11)
  h1:remove()
  h1:remove()  -- a second remove does nothing
  l:forward(x):sum():backward()
  tester:asserteq(calls, 21)
  h2:remove()
  l:forward(x):sum():backward()
  tester:asserteq(calls, 21, 'no hook fires after remove')
  -- no hook left: the instance has no hook fields, the class's forward and backward run
  tester:asserteq(rawget(l, 'forward'), nil)
  tester:asserteq(rawget(l, 'backward'), nil)
  tester:asserteq(rawget(l, '_hooks'), nil)
  -- a hook that removes itself while firing; the others of that forward still fire
  local order = {}
  local h
  h = l:registerForwardHook(function() order[#order + 1] = 'once' h:remove() end)
  l:registerForwardHook(function() order[#order + 1] = 'always' end)
  l:forward(x)
  l:forward(x)
  tester:assertTableEq(order, { 'once', 'always', 'always' })
end

function tests.hooksThatReturnNothingChangeNothing()
  local m = nested()
  local ref = m:clone()
  log_all(m, {})
  local x = torch.randn(6, 3):double()
  local xa, xb = x:clone():requiresGrad(), x:clone():requiresGrad()
  torch.pow(m:forward(xa), 2):sum():backward()
  torch.pow(ref:forward(xb), 2):sum():backward()
  tester:assertTensorEq(m.output, ref.output, 0)
  tester:assertTensorEq(xa.grad, xb.grad, 0)
  local _, g = m:parameters()
  local _, gr = ref:parameters()
  for i = 1, #g do tester:assertTensorEq(g[i], gr[i], 0, 'gradient ' .. i) end
  -- Torch7 training step
  m:zeroGrad()
  ref:zeroGrad()
  local gy = torch.randn(6, 2):double()
  m:forward(x)
  ref:forward(x)
  tester:assertTensorEq(m:backward(x, gy), ref:backward(x, gy), 0)
  for i = 1, #g do tester:assertTensorEq(g[i], gr[i], 0, 'Torch7 gradient ' .. i) end
end

function tests.featureExtraction()
  -- collect the activations of every layer of a Sequential with forward hooks
  local m = nn.Sequential():add(nn.Linear(3, 5)):add(nn.ReLU()):add(nn.Linear(5, 2)):double()
  local features, handles = {}, {}
  for name, mod in m:namedChildren() do
    handles[#handles + 1] = mod:registerForwardHook(function(_, _, out) features[name] = out:clone() end)
  end
  local x = torch.randn(4, 3):double()
  torch.noGrad(function() m:forward(x) end)
  local h = torch.mm(x, m.modules[1].weight:t()) + m.modules[1].bias:view(1, 5):expand(4, 5)
  tester:assertTensorEq(features['0'], h, 1e-12)
  tester:assertTensorEq(features['1'], torch.clamp(h, 0, math.huge), 1e-12)
  tester:assertTensorEq(features['2'], m.output, 0)
  for _, hd in ipairs(handles) do hd:remove() end
  features = {}
  m:forward(x)
  tester:asserteq(next(features), nil)
  if torch.cuda.isAvailable() then
    local dm = m:clone():cuda()
    local df = {}
    dm.modules[2]:registerForwardHook(function(_, _, out) df[1] = out:double() end)
    dm:forward(x:type('torch.CudaTensor'))  -- dm is float32 (module:cuda()), x f64
    tester:assertTensorEq(df[1], torch.clamp(h, 0, math.huge), 1e-5)
  end
end

function tests.cloneKeepsHooksAndClearHooksRemovesThem()
  local l = nn.Linear(3, 2):double()
  local n = 0
  local h = l:registerForwardHook(function() n = n + 1 end)
  local c = l:clone()
  local x = torch.randn(2, 3):double()
  c:forward(x)
  tester:asserteq(n, 1, 'the clone runs the hook')
  h:remove()
  l:forward(x)
  c:forward(x)
  tester:asserteq(n, 2, 'the handle removed the original hook only')
  local m = nested()
  log_all(m, {})
  tester:assert(rawequal(m:clearHooks(), m), 'returns the module')
  for _, mod in m:namedModules() do
    tester:asserteq(rawget(mod, '_hooks'), nil)
    tester:asserteq(rawget(mod, 'forward'), nil)
  end
  c:clearHooks()
  c:forward(x)
  tester:asserteq(n, 2)
end

function tests.serialization()
  local m = nested()
  local handles = log_all(m, {})
  local path = tmp .. '/tocha_test_nn_hooks.t7'
  -- functions cannot be saved: the error names the hook field
  tester:assertErrorPattern(function() torch.save(path, m) end, 'cannot save a function at m%._hooks')
  -- the state dict holds tensors only and saves with hooks in place
  local sd_path = tmp .. '/tocha_test_nn_hooks.safetensors'
  torch.saveSafetensors(sd_path, m:stateDict())
  local back = nested()
  back:loadStateDict(torch.loadSafetensors(sd_path))
  local x = torch.randn(3, 3):double()
  tester:assertTensorEq(back:forward(x), m:forward(x), 0)
  -- without hooks the model saves, and loads without them
  for _, h in ipairs(handles) do h:remove() end
  torch.save(path, m)
  local loaded = torch.load(path)
  tester:assertTensorEq(loaded:forward(x), m:forward(x), 0)
  for _, mod in loaded:namedModules() do tester:asserteq(rawget(mod, '_hooks'), nil) end
  os.remove(path)
  os.remove(sd_path)
end

function tests.errors()
  local l = nn.Linear(3, 2):double()
  tester:assertErrorPattern(function() l:registerForwardHook(5) end,
    '%[nn.Module.registerForwardHook%] expected a function, got number')
  tester:assertErrorPattern(function() l:registerForwardPreHook('f') end, '%[nn.Module.registerForwardPreHook%]')
  tester:assertErrorPattern(function() l:registerFullBackwardHook() end, '%[nn.Module.registerFullBackwardHook%]')
  -- a replacement of the wrong size
  local h = l:registerFullBackwardHook(function(_, gi) return torch.ones(2, 2):double() end)
  local x = torch.randn(4, 3):double():requiresGrad()
  tester:assertErrorPattern(function() l:forward(x):sum():backward() end,
    '%[nn.Module.registerFullBackwardHook%] the hook of nn.Linear%(3 %-> 2%) returned a gradInput of size 2x2 for an input of size 4x3')
  tester:assertErrorPattern(function() l:forward(x:detach()) l:backward(x:detach(), torch.ones(4, 2):double()) end,
    '%[nn.Module.registerFullBackwardHook%] the hook of nn.Linear%(3 %-> 2%) returned a gradInput of size 2x2')
  h:remove()
  -- no input needs a gradient: nothing to replace
  l:registerFullBackwardHook(function(_, gi) return torch.ones(4, 3):double() end)
  tester:assertErrorPattern(function() l:forward(torch.randn(4, 3):double()):sum():backward() end,
    '%[nn.Module.registerFullBackwardHook%] the hook of nn.Linear%(3 %-> 2%) returned a gradInput, but no input')
  -- an error inside a hook names the child in the container
  local m = nn.Sequential():add(nn.Linear(3, 2)):double()
  m.modules[1]:registerForwardHook(function() error('boom') end)
  tester:assertErrorPattern(function() m:forward(torch.randn(1, 3):double()) end, 'boom.*in module 1')
end

tester:add(tests):run()
