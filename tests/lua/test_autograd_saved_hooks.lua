-- torch.autograd.graph.savedTensorsHooks and saveOnCpu (lua/torch/autograd_graph.lua, Note
-- [Saved-tensor hooks] in core/autograd/node.h): the tensors saved for backward go through the
-- pack hook and come back through the unpack hook; gradients equal those without hooks.
local tester = torch.Tester()
local tests = torch.TestSuite()
local D = torch.DoubleTensor
local G = torch.autograd.graph
local live = torch._lib.C.tocha_autograd_callbacks_live

local function raises(pattern, f, ...)
  local ok, err = pcall(f, ...)
  tester:assert(not ok, 'expected an error matching ' .. pattern)
  if not ok then tester:assert(tostring(err):find(pattern, 1, true) ~= nil, tostring(err)) end
end

-- A small network of ops that save inputs and outputs: mm, exp (its output), tanh, mul, pow.
local function net(x, w)
  local h = torch.tanh(torch.mm(x, w))
  return torch.sum(torch.cmul(torch.pow(torch.exp(h * 0.5), 2), h))
end

local function grads(x, w)
  x.grad, w.grad = nil, nil
  return x, w
end

function tests.gradientsEqualThoseWithoutHooks()
  torch.manualSeed(3)
  local x, w = torch.randn(4, 3):double():requiresGrad(), torch.randn(3, 2):double():requiresGrad()
  net(x, w):backward()
  local gx, gw = x.grad:clone(), w.grad:clone()
  grads(x, w)
  local packed, unpacked = 0, 0
  local y = G.savedTensorsHooks(function(t)
    packed = packed + 1
    tester:assert(not t:needsGrad(), 'the pack hook sees a tensor without history')
    return { t:clone() }
  end, function(p)
    unpacked = unpacked + 1
    return p[1]
  end, net, x * 1, w)
  tester:assert(packed > 0, 'tensors were packed')
  y:backward()
  tester:assert(unpacked > 0, 'tensors were unpacked')
  -- x * 1 is not a leaf: its gradient reaches x
  tester:assertTensorEq(x.grad, gx, 1e-12, 'x.grad')
  tester:assertTensorEq(w.grad, gw, 1e-12, 'w.grad')
end

function tests.leavesThatRequireGradAreNotPacked()
  local x = D({ 1, 2, 3 }):requiresGrad()
  local seen = 0
  local y = G.savedTensorsHooks(function(t) seen = seen + 1 return t end, function(p) return p end,
    function() return torch.sum(x * x) end)
  tester:asserteq(seen, 0, 'x * x saves only the leaf x')
  y:backward()
  tester:eq(x.grad:totable(), { 2, 4, 6 })
end

function tests.doubleBackwardThroughUnpackedTensors()
  -- y = exp(2x) saves its output; under createGraph the unpacked output keeps its history:
  -- d2/dx2 sum(exp(2x)) = 4 exp(2x)
  local x = D({ 0.1, -0.4 }):requiresGrad()
  local y = G.savedTensorsHooks(function(t) return t:clone() end, function(p) return p end,
    function() return torch.sum(torch.exp(x * 2)) end)
  local g = torch.autograd.grad(y, x, { createGraph = true })
  torch.sum(g):backward()
  tester:assertTensorEq(x.grad, torch.exp(x:detach() * 2) * 4, 1e-12, 'second derivative')
end

function tests.retainedGraphsUnpackAgain()
  local x = D({ 1, 2 }):requiresGrad()
  local unpacked = 0
  local y = G.savedTensorsHooks(function(t) return t end, function(p) unpacked = unpacked + 1 return p end,
    function() return torch.sum(torch.exp(x * 1)) end)
  y:backward({ retainGraph = true })
  local once = unpacked
  y:backward()
  tester:asserteq(unpacked, 2 * once, 'unpacked at each backward')
  tester:assertTensorEq(x.grad, torch.exp(x:detach()) * 2, 1e-12)
end

function tests.hooksAreScopedAndNest()
  local outer, inner = 0, 0
  local x = D({ 1, 2 }):requiresGrad()
  G.savedTensorsHooks(function(t) outer = outer + 1 return t end, function(p) return p end, function()
    local a = torch.exp(x * 1)
    G.savedTensorsHooks(function(t) inner = inner + 1 return t end, function(p) return p end,
      function() return torch.exp(a) end)
    torch.exp(a)
  end)
  tester:asserteq(inner, 1, 'the inner hooks took exp(a)')
  tester:asserteq(outer, 2, "the outer ones the two other exps (x * 1 saves nothing)")
  local before = outer + inner
  torch.exp(x * 1)
  tester:asserteq(outer + inner, before, 'no hooks outside')
  tester:assert(jit.status(), 'the JIT is on again')
end

function tests.errorsNameTheHookAndRestoreState()
  local x = D({ 1, 2 }):requiresGrad()
  raises('pack failed here', G.savedTensorsHooks, function() error('pack failed here', 0) end,
    function(p) return p end, function() return torch.exp(x * 1) end)
  tester:assert(jit.status(), 'the JIT is on after an error')
  torch.exp(x * 1)  -- no hooks left behind
  local y = G.savedTensorsHooks(function(t) return t end, function() return D({ 1, 2, 3 }) end,
    function() return torch.sum(torch.exp(x * 1)) end)
  raises('the unpack hook of a saved-tensor hook returned a torch.DoubleTensor of size 3', function() y:backward() end)
  local z = G.savedTensorsHooks(function(t) return t end, function() return 'no' end,
    function() return torch.sum(torch.exp(x * 1)) end)
  raises('the unpack hook must return a tensor, got string', function() z:backward() end)
  raises('[savedTensorsHooks] pack must be a function', G.savedTensorsHooks, 1, print, print)
  raises('[savedTensorsHooks] expected a function to run', G.savedTensorsHooks, print, print, 3)
end

function tests.saveOnCpu()
  local x = D({ 0.5, -1 }):requiresGrad()
  local y = G.saveOnCpu(function() return torch.sum(torch.tanh(x * 3)) end)
  y:backward()
  local t = torch.tanh(x:detach() * 3)
  tester:assertTensorEq(x.grad, (1 - torch.cmul(t, t)) * 3, 1e-12)
  if torch.cuda and torch.cuda.isAvailable() then
    local xc = x:detach():cuda():requiresGrad()
    G.saveOnCpu(function() return torch.sum(torch.tanh(xc * 3)) end):backward()
    tester:assertTensorEq(xc.grad:double(), x.grad, 1e-5, 'cuda')
  end
end

function tests.packedTensorsAreReleasedWithTheGraph()
  collectgarbage()
  collectgarbage()
  local base = live()
  for _ = 1, 20 do
    local x = D({ 1, 2 }):requiresGrad()
    local y = G.savedTensorsHooks(function(t) return t:clone() end, function(p) return p end,
      function() return torch.sum(torch.exp(x * 1)) end)
    tester:assert(live() > base, 'packed tensors count as live callbacks')
    y:backward()
  end
  collectgarbage()
  collectgarbage()
  tester:asserteq(live(), base, 'released after backward')
end

tester:add(tests):run()
