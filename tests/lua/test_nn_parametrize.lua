-- nn.utils.parametrize and nn.utils.parametrizations (lua/nn/parametrize*.lua): the parametrized
-- tensor equals f(original), gradients against closed forms, finite differences and PyTorch 1.13's
-- values (constants below), training keeps the constraints, removal keeps the current value,
-- state-dict keys, save/load, cached, and errors.
require 'nn'
local D = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
torch.setdefaulttensortype('torch.DoubleTensor')
torch.manualSeed(5)
local T = torch.Tensor
local P = nn.utils.parametrize
local PS = nn.utils.parametrizations

local function keys(t)
  local r = {}
  for k in pairs(t) do r[#r + 1] = k end
  table.sort(r)
  return r
end
local function item(s) return torch.isTensor(s) and s:item() or s end
-- Central differences of loss() w.r.t. a few entries of t, against grad.
local function fd_check(loss, t, grad, tol, at)
  local eps = 1e-6
  local flat, g = t:view(-1), grad:contiguous():view(-1)
  for _, i in ipairs(at or { 1, math.ceil(t:nElement() / 2), t:nElement() }) do
    local o = flat[i]
    flat[i] = o + eps
    local lp = item(loss())
    flat[i] = o - eps
    local lm = item(loss())
    flat[i] = o
    tester:assertalmosteq((lp - lm) / (2 * eps), g[i], tol or 1e-6)
  end
end

-- A symmetric matrix from its upper triangle, with PyTorch's tutorial right inverse.
local Sym = torch.class('nn.TestSymmetric', 'nn.Module')
function Sym:updateOutput(X)
  self.output = torch.triu(X) + torch.triu(X, 1):t()
  return self.output
end
function Sym:rightInverse(A) return torch.triu(A) end

function tests.functionParametrizationAndGradients()
  local lin = nn.Linear(3, 3)
  local W0 = lin.weight:clone()
  P.registerParametrization(lin, 'weight', function(x) return torch.triu(x) end)
  tester:assert(P.isParametrized(lin) and P.isParametrized(lin, 'weight') and not P.isParametrized(lin, 'bias'))
  tester:assertTensorEq(lin.weight, torch.triu(W0), 0)
  tester:assertTensorEq(lin.parametrizations.weight.original, W0, 0)
  local x, G = torch.randn(4, 3), torch.randn(4, 3)
  -- closed form: the dense gradient G^T x, masked by triu
  local dense = G:t() * x
  lin:zeroGradParameters()
  lin:forward(x)
  lin:backward(x, G)
  tester:assertTensorEq(lin.parametrizations.weight.gradOriginal, torch.triu(dense), 1e-12)
  lin:zeroGradParameters()
  torch.cmul(lin:forward(x), G):sum():backward()
  tester:assertTensorEq(lin.parametrizations.weight.original.grad, torch.triu(dense), 1e-12)
  tester:assertTableEq(keys(lin:stateDict()), { 'bias', 'parametrizations.weight.original' })
end

function tests.moduleWithRightInverseAndChaining()
  local lin = nn.Linear(3, 3)
  local S = lin.weight + lin.weight:t()
  lin.weight:copy(S)
  P.registerParametrization(lin, 'weight', nn.TestSymmetric())
  tester:assertTensorEq(lin.parametrizations.weight.original, torch.triu(S), 0)
  tester:assertTensorEq(lin.weight, S, 1e-15)
  -- a second parametrization chains: weight = 2 * sym(original)
  P.registerParametrization(lin, 'weight', function(x) return x * 2 end)
  tester:assertTensorEq(lin.weight, S * 2, 1e-14)
  tester:asserteq(#lin.parametrizations.weight.modules, 2)
  local x = torch.randn(5, 3)
  local function loss() return torch.pow(lin:forward(x), 2):sum() end
  lin:zeroGradParameters()
  loss():backward()
  fd_check(loss, lin.parametrizations.weight.original, lin.parametrizations.weight.original.grad)
  tester:assertErrorPattern(function()
    P.registerParametrization(lin, 'weight', function(w) return w:narrow(1, 1, 2) end)
  end, 'changes the size or type')
  P.registerParametrization(nn.Linear(3, 3), 'weight', function(w) return w:narrow(1, 1, 2) end, { unsafe = true })
  tester:assertErrorPattern(function() nn.utils.prune.l1Unstructured(lin, 'weight', 1) end, 'is parametrized')
  tester:assertErrorPattern(function() P.registerParametrization(lin, 'nope', nn.TestSymmetric()) end, 'has no tensor nope')
  tester:assertErrorPattern(function() P.removeParametrizations(lin, 'bias') end, 'bias of nn.Linear is not parametrized')
end

function tests.torch7ModuleAsParametrization()
  local lin = nn.Linear(3, 3)
  local W0 = lin.weight:clone()
  P.registerParametrization(lin, 'weight', nn.Tanh())
  tester:assertTensorEq(lin.weight, torch.tanh(W0), 1e-15)
  local x, G = torch.randn(2, 3), torch.randn(2, 3)
  local expect = torch.cmul(G:t() * x, 1 - torch.pow(torch.tanh(W0), 2))
  lin:zeroGradParameters()
  lin:forward(x)
  lin:backward(x, G)
  tester:assertTensorEq(lin.parametrizations.weight.gradOriginal, expect, 1e-12)
  lin:zeroGradParameters()
  torch.cmul(lin:forward(x), G):sum():backward()
  tester:assertTensorEq(lin.parametrizations.weight.original.grad, expect, 1e-12)
end

function tests.cachedComputesOnce()
  local lin = nn.Linear(3, 2)
  local calls = 0
  P.registerParametrization(lin, 'weight', function(x) calls = calls + 1 return x * 1 end)
  calls = 0
  local x = torch.randn(2, 3)
  lin:forward(x)
  lin:forward(x)
  tester:asserteq(calls, 2)
  calls = 0
  P.cached(function() lin:forward(x) lin:forward(x) lin:forward(x) end)
  tester:asserteq(calls, 1)
end

function tests.orthogonalMatchesPyTorch()
  local M = T({ { 2.0, 0.5, -1.0 }, { 0.4, 3.0, 0.2 }, { -0.8, 0.1, 2.5 } })
  local lin = nn.Linear(3, 3)
  lin.weight:copy(M)
  lin.bias:zero()
  PS.orthogonal(lin)
  -- PyTorch 1.13: orthogonal(l).weight (matrix_exp map, trivialization: base = QR's Q of M)
  local expect = T({ 0.912870929175277, -0.13286764751047977, 0.386021832169759, 0.18257418583505539,
    0.9785991081858814, -0.09492340135321944, -0.36514837167011077, 0.1571304353167413, 0.9175928797477877 })
  tester:assertTensorEq(lin.weight:reshape(9), expect, 1e-12)
  tester:assertTableEq(keys(lin:stateDict()), { 'bias', 'parametrizations.weight.0.base', 'parametrizations.weight.original' })
  -- PyTorch 1.13: the original's gradient of sum(y^2) + sum(y[:, 0])
  local x = T({ { 1, 2, 3 }, { 0.5, -1, 2 } })
  lin:zeroGradParameters()
  local y = lin:forward(x)
  local loss = torch.pow(y, 2):sum() + y:select(2, 1):sum()
  loss:backward()
  local g = T({ 0, 0, 0, -1.1121724004409983, 0, 0, -3.985321897621753, 1.0503600697221542, 0 })
  tester:assertTensorEq(lin.parametrizations.weight.original.grad:reshape(9), g, 1e-10)
end

local function orthogonality(W)
  local G = W:size(1) >= W:size(2) and W:t() * W or W * W:t()
  return (G - torch.eye(G:size(1))):abs():max()
end

function tests.orthogonalTrainingKeepsTheConstraint()
  for _, c in ipairs({ { 4, 4 }, { 5, 3 }, { 3, 5 }, { 4, 4, 'cayley' }, { 5, 3, 'matrixExp' } }) do
    local lin = nn.Linear(c[2], c[1])
    PS.orthogonal(lin, { orthogonalMap = c[3] })
    tester:assertlt(orthogonality(lin.weight), 1e-12)
    local crit = nn.MSECriterion()
    local x, y = torch.randn(10, c[2]), torch.randn(10, c[1])
    local first, last
    for _ = 1, 25 do
      lin:zeroGradParameters()
      local out = lin:forward(x)
      local l = crit:forward(out, y)
      lin:backward(x, crit:backward(out, y))
      lin:updateParameters(0.2)
      first, last = first or l, l
    end
    lin:forward(x)
    tester:assertlt(last, first)
    tester:assertlt(orthogonality(lin.weight), 1e-10)
  end
  -- finite differences through the householder map, below the diagonal (the diagonal enters
  -- through PyTorch's truncation to integers: a step at -1, where it starts)
  local lin = nn.Linear(3, 5)
  PS.orthogonal(lin)
  local x = torch.randn(4, 3)
  local function loss() return torch.pow(lin:forward(x), 3):sum() end
  lin:zeroGradParameters()
  loss():backward()
  fd_check(loss, lin.parametrizations.weight.original, lin.parametrizations.weight.original.grad, 1e-6, { 4, 7, 14 })
  tester:assertErrorPattern(function() PS.orthogonal(nn.Linear(3, 3), { orthogonalMap = 'qr' }) end, 'orthogonalMap must be')
  tester:assertErrorPattern(function() PS.orthogonal(nn.Linear(3, 3), 'bias') end, 'expected a matrix')
end

function tests.spectralAndWeightNorm()
  local lin = nn.Linear(6, 4)
  PS.spectralNorm(lin)
  local x = torch.randn(3, 6)
  for _ = 1, 20 do lin:forward(x) end  -- power iteration converges in training mode
  tester:assertalmosteq(torch.linalg.svdvals(lin.weight)[1], 1, 1e-6)
  tester:assertTableEq(keys(lin:stateDict()), { 'bias', 'parametrizations.weight.0._u', 'parametrizations.weight.0._v',
    'parametrizations.weight.original' })
  lin:evaluate()
  local function loss() return torch.pow(lin:forward(x), 2):sum() end
  lin:zeroGradParameters()
  loss():backward()
  fd_check(loss, lin.parametrizations.weight.original, lin.parametrizations.weight.original.grad)
  local wl = nn.Linear(3, 2)
  local W0 = wl.weight:clone()
  PS.weightNorm(wl)
  tester:assertTensorEq(wl.weight, W0, 1e-14)
  tester:assertTensorEq(wl.parametrizations.weight.original0, torch.norm(W0, 2, 2), 1e-14)
  tester:assertTableEq(keys(wl:stateDict()), { 'bias', 'parametrizations.weight.original0', 'parametrizations.weight.original1' })
  local xw = torch.randn(4, 3)
  local function wloss() return torch.pow(wl:forward(xw), 2):sum() end
  wl:zeroGradParameters()
  wloss():backward()
  fd_check(wloss, wl.parametrizations.weight.original0, wl.parametrizations.weight.original0.grad)
  fd_check(wloss, wl.parametrizations.weight.original1, wl.parametrizations.weight.original1.grad)
  tester:asserteq(#wl:parameters(), 3)
end

-- spectralNorm steps u and v once per training forward, and the gradient is the one of that
-- forward's function (PyTorch 1.13's values): the backward of a Torch7-style layer replayed the
-- chain with one more power step (another sigma, u stepped twice), and a second forward before the
-- backward modified the u the first graph had saved (an in-place error).
local SNLin = torch.class('nn.TestSNLinear', 'nn.Module')
function SNLin:__init(W) nn.Module.__init(self) self.weight = W:clone() self.gradWeight = W:clone():zero() end
function SNLin:updateOutput(x) self.output = torch.matmul(x, self.weight:t()) return self.output end
function tests.spectralNormStepsOncePerForward()
  local W = T({ { 0.5, -1.0, 2.0, 0.3 }, { 1.5, 0.2, -0.7, 1.0 }, { -0.4, 0.9, 0.1, -1.2 } })
  local x = T({ { 1, 2, -1, 0.5 }, { 0.3, -0.2, 0.4, 1 } })
  local function mk(m)
    PS.spectralNorm(m)
    local p = m.parametrizations.weight.modules[1]
    p._u:copy(T({ 1, 0, 0 }))
    p._v:copy(T({ 0, 1, 0, 0 }))
    return m, p
  end
  local g1 = T({ -1.794451466258483, -0.6621564316014323, -0.7792802017274829, -1.4347837135348251, 1.491373414031891,
    1.9469420568700657, -0.5824785433004143, 1.3318072410458348, 0.6786061481611958, -1.2276901192856415,
    1.5947290972122201, 0.7708627315286795 }):view(3, 4)
  local u1 = T({ -0.7352146220938078, 0.14704292441876157, 0.661693159884427 })
  for _, style in ipairs({ 'torch7', 'autograd' }) do
    local lin = nn.Linear(4, 3, false)
    lin.weight:copy(W)
    local m, p = mk(lin)
    local y = m:forward(x)
    if style == 'torch7' then m:backward(x, y * 2) else torch.pow(y, 2):sum():backward() end
    tester:assertTensorEq(m.parametrizations.weight.gradOriginal, g1, 1e-12, style)
    tester:assertTensorEq(p._u, u1, 1e-12, style)
  end
  local m = mk(nn.TestSNLinear(W))
  local y1 = m:forward(x)
  local y2 = m:forward(x)
  torch.add(torch.pow(y1, 2):sum(), y2:sum()):backward()
  tester:assertTensorEq(m.parametrizations.weight.original.grad, T({ -1.3222200836881681, 0.21624168709041935,
    -1.2063219304086248, -0.8942215061499666, 2.029290742769164, 2.6990829783873607, -0.8375758573319279,
    1.9523400075070052, 1.2507123466650674, -0.5412647902685281, 1.429127109694055, 1.4330193641129418 }):view(3, 4), 1e-12)
end
D.cpuOnly(tests, "a training-mode forward steps u, and the replay's own forward before backward would step it again",
          'spectralNormStepsOncePerForward')

function tests.removeSaveAndLoad()
  local lin = nn.Linear(4, 4)
  PS.orthogonal(lin)
  local x = torch.randn(2, 4)
  local y = lin:forward(x):clone()
  local f = os.tmpname()
  torch.save(f, lin)
  local back = torch.load(f)
  os.remove(f)
  tester:assert(P.isParametrized(back, 'weight'))
  tester:assertTensorEq(back:forward(x), y, 1e-12)
  back:zeroGradParameters()
  back:forward(x):sum():backward()
  tester:assert(back.parametrizations.weight.original.grad:abs():sum() > 0)
  local other = nn.Linear(4, 4)
  PS.orthogonal(other)
  other:loadStateDict(lin:stateDict())
  tester:assertTensorEq(other:forward(x), y, 1e-12)
  local W = lin.weight:clone()
  local orig = lin.parametrizations.weight.original
  P.removeParametrizations(lin, 'weight')
  tester:assert(not P.isParametrized(lin))
  tester:assert(rawequal(lin.weight, orig), 'the original tensor keeps the value')
  tester:assertTensorEq(lin.weight, W, 0)
  tester:asserteq(lin.parametrizations, nil)
  tester:assertTableEq(keys(lin:stateDict()), { 'bias', 'weight' })
  tester:assertTensorEq(lin:forward(x), y, 1e-12)
  local o2 = other.parametrizations.weight.original:clone()
  P.removeParametrizations(other, 'weight', { leaveParametrized = false })
  tester:assertTensorEq(other.weight, o2, 0)
  local wl = PS.weightNorm(nn.Linear(3, 2))
  local Ww = wl.weight:clone()
  P.removeParametrizations(wl, 'weight')
  tester:assertTensorEq(wl.weight, Ww, 1e-14)
  tester:assertErrorPattern(function()
    P.removeParametrizations(PS.weightNorm(nn.Linear(3, 2)), 'weight', { leaveParametrized = false })
  end, 'several originals')
end

-- Random arguments to the pruning, parametrization and new init functions: a result or an error
-- naming the function.
function tests.fuzzErrorsNameTheOp()
  torch.manualSeed(8)
  math.randomseed(8)
  local fns = {}
  for _, t in ipairs({ nn.utils.prune, P, PS }) do
    local names = {}
    for k, f in pairs(t) do if type(f) == 'function' and k ~= 'cached' then names[#names + 1] = k end end
    table.sort(names)
    for _, k in ipairs(names) do fns[#fns + 1] = t[k] end
  end
  for _, k in ipairs({ 'truncNormal', 'sparse', 'dirac', 'eye', 'calculateGain', 'calculateFanInAndFanOut' }) do
    fns[#fns + 1] = nn.init[k]
  end
  for _, f in ipairs(fns) do
    for _ = 1, 60 do
      local pool = { 1, -1, 0, 0.5, 'weight', 'bias', 'x', true, {}, { fraction = 2 }, nn.Linear(3, 2), nn.Tanh(),
        nn.SpatialConvolution(2, 3, 2, 2), torch.ones(3, 2), function(x) return x end, { { nn.Linear(2, 2), 'weight' } } }
      local args = {}
      for i = 1, math.random(0, 5) do args[i] = pool[math.random(#pool)] end
      local ok, err = pcall(f, unpack(args, 1, 5))
      if not ok then tester:assert(type(err) == 'string' and err:find('%[') ~= nil, tostring(err)) end
    end
  end
end

function tests.cudaMatchesCpu()
  if not torch.cuda.isAvailable() then return end
  local lin = nn.Linear(3, 5)
  PS.orthogonal(lin)
  local x = torch.randn(4, 3)
  local y = lin:forward(x):clone()
  local c = lin:clone():cuda()
  -- c is float32 (module:cuda()); x:cuda() would keep x's f64
  tester:assertTensorEq(c:forward(x:type('torch.CudaTensor')):double(), y, 1e-4)
end

tester:add(tests):run()
