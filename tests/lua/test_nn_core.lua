-- nn core: the Module API (forward/backward, parameters, getParameters, share/clone, type,
-- apply/replace/findModules/listModules, clearState, __call, printing, summary), Sequential,
-- Linear/ReLU/LogSoftMax and the basic criterions against naive references and nn.Jacobian,
-- user subclasses, errors naming the failing child, and Torch7-style training == autograd training.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local precision = 1e-7

local function mlp()
  return nn.Sequential():add(nn.Linear(5, 4)):add(nn.ReLU()):add(nn.Linear(4, 3)):add(nn.LogSoftMax()):double()
end

function tests.linearForwardMatchesNaive()
  local l = nn.Linear(3, 2):double()
  local x = torch.randn(4, 3):double()
  local y = l:forward(x):clone()
  for n = 1, 4 do
    for o = 1, 2 do
      local s = l.bias[o]
      for i = 1, 3 do s = s + l.weight[o][i] * x[n][i] end
      tester:assertalmosteq(y[n][o], s, 1e-12)
    end
  end
  local y1 = l:forward(x[2])
  tester:assertTensorEq(y1, y[2], 1e-12)
  local nb = nn.Linear(3, 2, false):double()
  tester:asserteq(nb.bias, nil)
  tester:assertTensorEq(nb:forward(x), x * nb.weight:t(), 1e-12)
  tester:asserteq(tostring(nn.Linear(10, 25)), 'nn.Linear(10 -> 25)')
  tester:asserteq(tostring(nb), 'nn.Linear(3 -> 2) without bias')
end

function tests.jacobians()
  for _, batch in ipairs({ true, false }) do
    local m = mlp()
    local x = batch and torch.DoubleTensor(3, 5) or torch.DoubleTensor(5)
    tester:assertlt(nn.Jacobian.testJacobian(m, x), precision, 'input jacobian')
    for i, p in ipairs({ 1, 3 }) do
      local l = m.modules[p]
      tester:assertlt(nn.Jacobian.testJacobianParameters(m, x, l.weight, l.gradWeight), precision, 'weight ' .. i)
      tester:assertlt(nn.Jacobian.testJacobianParameters(m, x, l.bias, l.gradBias), precision, 'bias ' .. i)
      tester:assertlt(nn.Jacobian.testJacobianUpdateParameters(m, x, l.weight), precision, 'update ' .. i)
    end
    tester:assertlt(nn.Jacobian.testIO(m, x), 1e-12, 'save/load')
  end
  tester:assertlt(nn.Jacobian.testJacobian(nn.Threshold(0.3, -1):double(), torch.DoubleTensor(4, 3)), precision)
end

function tests.criterionsMatchHandComputed()
  local x = torch.DoubleTensor({ { 1, 2, 3 }, { 0.5, -1, 2 } })
  local y = torch.DoubleTensor({ { 0, 2, 1 }, { 1, 1, 1 } })
  local mse = nn.MSECriterion():double()
  local expect = ((1 + 0 + 4) + (0.25 + 4 + 1)) / 6
  tester:assertalmosteq(mse:forward(x, y), expect, 1e-12)
  tester:assertTensorEq(mse:backward(x, y), (x - y) * (2 / 6), 1e-12)
  mse.sizeAverage = false
  tester:assertalmosteq(mse:forward(x, y), expect * 6, 1e-12)

  local target = torch.LongTensor({ 3, 1 })
  local nll = nn.ClassNLLCriterion()
  tester:assertalmosteq(nll:forward(x, target), -(3 + 0.5) / 2, 1e-12)
  local g = nll:backward(x, target)
  tester:assertTensorEq(g, torch.DoubleTensor({ { 0, 0, -0.5 }, { -0.5, 0, 0 } }), 1e-12)
  local w = torch.DoubleTensor({ 1, 2, 3 })
  local wnll = nn.ClassNLLCriterion(w)
  tester:assertalmosteq(wnll:forward(x, target), -(3 * 3 + 1 * 0.5) / 4, 1e-12)
  local ign = nn.ClassNLLCriterion(nil, true, 1)
  tester:assertalmosteq(ign:forward(x, target), -3, 1e-12)

  local ce = nn.CrossEntropyCriterion()
  local function lse(r) return math.log(math.exp(r[1]) + math.exp(r[2]) + math.exp(r[3])) end
  local ref = ((lse(x[1]) - 3) + (lse(x[2]) - 0.5)) / 2
  tester:assertalmosteq(ce:forward(x, target), ref, 1e-12)
  tester:assertalmosteq(ce:forward(x[1], 3), lse(x[1]) - 3, 1e-12)
  tester:assertErrorPattern(function() nll:forward(x, torch.LongTensor({ 4, 1 })) end, 'out of range')
  tester:assertErrorPattern(function() nll:forward(x, torch.LongTensor({ 1 })) end, '1 targets for a batch of 2')
end

function tests.torch7AndAutogradTrainIdentically()
  torch.manualSeed(7)
  local a = mlp()
  local b = a:clone()
  local x = torch.randn(6, 5):double()
  local t = torch.LongTensor({ 1, 2, 3, 1, 2, 3 })
  local crit = nn.ClassNLLCriterion()
  for _ = 1, 10 do
    a:zeroGradParameters()
    local out = a:forward(x)
    crit:forward(out, t)
    a:backward(x, crit:backward(out, t))
    a:updateParameters(0.1)

    b:zeroGradParameters()
    local loss = crit(b(x), t)
    loss:backward()
    b:updateParameters(0.1)
  end
  local pa, pb = a:parameters(), b:parameters()
  for i = 1, #pa do tester:assertTensorEq(pa[i], pb[i], 0) end
end

-- Note [Skipping gradInput]: under autograd the first Linear skips its gradInput when the data
-- needs no gradient, and computes it when it does; the bias gradient's ones buffer follows the batch.
function tests.linearGradInputUnderAutograd()
  torch.manualSeed(8)
  local m = nn.Linear(4, 3):double()
  local x = torch.randn(5, 4):double()
  m(x):sum():backward()
  tester:asserteq(m.gradInput:nElement(), 0, 'no gradInput for data that needs none')
  tester:assertTensorEq(m.gradBias, torch.DoubleTensor(3):fill(5), 1e-12)
  m:zeroGradParameters()
  local xr = torch.randn(2, 4):double():requiresGrad()
  m(xr):sum():backward()
  tester:assertTensorEq(xr.grad, m.weight:sum(1):expand(2, 4), 1e-12)
  tester:assertTensorEq(m.gradBias, torch.DoubleTensor(3):fill(2), 1e-12)
  for _, n in ipairs({ 3, 7, 3 }) do
    m:zeroGradParameters()
    local go = torch.randn(n, 3):double()
    m:backward(torch.randn(n, 4):double(), go)
    tester:assertTensorEq(m.gradBias, go:sum(1):view(3), 1e-12, 'batch ' .. n)
  end
  m:clearState()
  tester:asserteq(m.addBuffer, nil)
end

function tests.getParametersAliasesAndIsIdempotent()
  local m = mlp()
  local p, g = m:getParameters()
  tester:asserteq(p:nElement(), 5 * 4 + 4 + 4 * 3 + 3)
  p:fill(0.5)
  tester:asserteq(m.modules[3].bias[2], 0.5)
  m.modules[1].gradWeight:fill(2)
  tester:asserteq(g[1], 2)
  local p2, g2 = m:getParameters()
  tester:assert(p2:storage() == p:storage() or torch.pointer(p2:storage()) == torch.pointer(p:storage()))
  p2:fill(-1)
  tester:asserteq(p[3], -1)
  tester:asserteq(m.modules[1].weight[1][1], -1)
  g2:zero()
  m:forward(torch.randn(2, 5):double())
  m:backward(torch.randn(2, 5):double(), torch.randn(2, 3):double())
  tester:assertgt(g:abs():sum(), 0)
  tester:asserteq(m.modules[1].weight.grad:sum(), m.modules[1].gradWeight:sum())
end

function tests.shareCloneTypeApply()
  local a = nn.Linear(3, 2):double()
  local b = a:clone('weight', 'bias')
  b.weight:fill(3)
  tester:asserteq(a.weight[1][1], 3)
  local c = a:clone()
  c.weight:fill(4)
  tester:asserteq(a.weight[1][1], 3)
  local f = a:clone():float()
  tester:asserteq(torch.type(f.weight), 'torch.FloatTensor')
  tester:asserteq(torch.type(f:forward(torch.randn(2, 3):float())), 'torch.FloatTensor')
  local m = mlp()
  local seen = 0
  m:apply(function() seen = seen + 1 end)
  tester:asserteq(seen, 5)
  tester:asserteq(#m:listModules(), 5)
  local lins, conts = m:findModules('nn.Linear')
  tester:asserteq(#lins, 2)
  tester:asserteq(conts[1], m)
  m:replace(function(mod) return torch.typename(mod) == 'nn.ReLU' and nn.Identity() or mod end)
  tester:asserteq(torch.typename(m.modules[2]), 'nn.Identity')
  m:forward(torch.randn(2, 5):double())
  m:clearState()
  tester:asserteq(m.modules[1].output:nElement(), 0)
  m:training()
  tester:assert(m.modules[1].train)
  m:evaluate()
  tester:assert(not m.modules[4].train)
end

function tests.printingAndSummary()
  local m = nn.Sequential():add(nn.Linear(10, 25)):add(nn.ReLU())
  tester:asserteq(tostring(m), 'nn.Sequential {\n  [input -> (1) -> (2) -> output]\n  (1): nn.Linear(10 -> 25)\n  (2): nn.ReLU\n}')
  local text
  local old = print
  print = function() end
  local ok, err = pcall(function() text = m:summary(4, 10) end)
  print = old
  tester:assert(ok, err)
  tester:assert(text:find('4x25', 1, true), text)
  tester:assert(text:find('Total parameters: 275', 1, true), text)
end

-- summary's dummy forward runs in evaluation mode: batch-norm statistics stay as they were, a
-- single sample is accepted, and every module's mode is restored afterwards.
function tests.summaryLeavesTrainingStateAlone()
  local m = nn.Sequential():add(nn.Linear(3, 4)):add(nn.BatchNormalization(4)):add(nn.Dropout(0.5))
  m:get(3):evaluate()  -- a mixed state must come back as it was
  local mean, var = m:get(2).running_mean:clone(), m:get(2).running_var:clone()
  local old = print
  print = function() end
  local ok, err = pcall(function() m:summary(3) end)
  print = old
  tester:assert(ok, err)
  tester:assertTensorEq(m:get(2).running_mean, mean, 0, 'running mean untouched')
  tester:assertTensorEq(m:get(2).running_var, var, 0, 'running variance untouched')
  tester:asserteq(m.train, true)
  tester:asserteq(m:get(2).train, true)
  tester:asserteq(m:get(3).train, false)
end

-- Note [Torch7 calls on autograd modules]: a module with only updateOutput answers Torch7's
-- separate updateGradInput / accGradParameters / accUpdateGradParameters through autograd.
function tests.torch7CallsOnAutogradModules()
  torch.manualSeed(4)
  local m = nn.GroupNormalization(2, 4):double()
  m.weight:uniform(0.5, 1.5)
  m.bias:uniform(-0.5, 0.5)
  local x, go = torch.randn(3, 4, 5):double(), torch.randn(3, 4, 5):double()
  m:forward(x)
  m:zeroGradParameters()
  local gi = m:backward(x, go):clone()
  local gw, gb = m.gradWeight:clone(), m.gradBias:clone()
  m:zeroGradParameters()
  tester:assertTensorEq(m:updateGradInput(x, go), gi, 1e-12, 'updateGradInput alone')
  tester:asserteq(m.gradWeight:clone():abs():max(), 0, 'updateGradInput leaves the parameter gradients')
  m:accGradParameters(x, go, 0.5)
  tester:assertTensorEq(m.gradWeight, gw * 0.5, 1e-12, 'accGradParameters alone, scaled')
  tester:assertTensorEq(m.gradBias, gb * 0.5, 1e-12)
  tester:assertlt(nn.Jacobian.testJacobianUpdateParameters(m, x, m.weight), precision)
  tester:assertlt(nn.Jacobian.testJacobianUpdateParameters(m, x, m.bias), precision)
  -- an integer input gets a zero gradInput of its own size (not a view of the sizes)
  local idx = nn.Index(1)
  local t, i = torch.randn(4, 2):double(), torch.LongTensor({ 3, 1, 3 })
  idx:forward({ t, i })
  local g = idx:updateGradInput({ t, i }, torch.ones(3, 2):double())
  tester:assertTableEq(g[2]:size():totable(), { 3 })
  tester:asserteq(g[2]:sum(), 0)
  tester:assertTensorEq(g[1], torch.DoubleTensor({ { 1, 1 }, { 0, 0 }, { 2, 2 }, { 0, 0 } }), 0)
  -- gradOutput of the wrong shape names the module
  tester:assertErrorPattern(function() m:updateGradInput(x, torch.randn(3, 4):double()) end,
    '%[nn.GroupNormalization.*%] gradOutput is torch.DoubleTensor of size 3x4, expected the shape')
  -- a Torch7 module without parameters keeps its no-op accGradParameters
  local r = nn.ReLU()
  r:forward(x)
  r:accGradParameters(x, go)
end

function tests.userSubclass()
  local Scale, parent = torch.class('nn.TestScale', 'nn.Module')
  function Scale:__init(k) parent.__init(self) self.k = k end
  function Scale:updateOutput(x) self.output = torch.mul(x, self.k) return self.output end
  function Scale:updateGradInput(x, go) self.gradInput = torch.mul(go, self.k) return self.gradInput end
  local m = nn.Sequential():add(nn.TestScale(3)):add(nn.Linear(2, 1)):double()
  tester:assertlt(nn.Jacobian.testJacobian(m, torch.DoubleTensor(4, 2)), precision)
  -- A module with only updateOutput is differentiated through its ops.
  local Sq = torch.class('nn.TestSquare', 'nn.Module')
  function Sq:updateOutput(x) self.output = torch.cmul(x, x) return self.output end
  tester:assertlt(nn.Jacobian.testJacobian(nn.TestSquare(), torch.DoubleTensor(3, 2)), precision)
  local x = torch.DoubleTensor({ 1, 2 }):requiresGrad()
  nn.TestSquare()(x):sum():backward()
  tester:assertTensorEq(x.grad, torch.DoubleTensor({ 2, 4 }), 0)
end

function tests.errorsNameTheChild()
  local m = nn.Sequential():add(nn.Linear(4, 3)):add(nn.Linear(5, 2)):double()
  tester:assertErrorPattern(function() m:forward(torch.randn(2, 4):double()) end, 'in module 2 %(nn.Linear%(5 %-> 2%)%) of nn.Sequential')
  tester:assertErrorPattern(function() m:forward(torch.randn(2, 4):double()) end, '2x3')
  tester:assertErrorPattern(function() nn.Linear(0, 3) end, 'positive sizes')
end

function tests.initSchemes()
  local w = torch.DoubleTensor(64, 32)
  nn.init.xavierUniform(w)
  local bound = math.sqrt(6 / (64 + 32))
  tester:assertle(w:abs():max(), bound)
  nn.init.kaimingNormal(w)
  tester:assertalmosteq(w:std(), math.sqrt(2 / 32), 0.03)
  nn.init.orthogonal(w)
  tester:assertTensorEq(w:t() * w, torch.eye(32):double(), 1e-10)
  nn.init.constant(w, 0.25)
  tester:asserteq(w:sum(), 0.25 * 64 * 32)
end

tester:add(tests)
tester:run()
