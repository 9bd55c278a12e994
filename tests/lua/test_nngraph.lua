-- nngraph: graphs compared value by value and gradient by gradient (gradInput and parameter
-- gradients) with the same computation built from nn.Sequential/ConcatTable/ParallelTable with
-- copied weights; finite-difference Jacobians, save/load, autograd (loss:backward()), types and
-- clearState through tests/lua/fixtures/nn_checks.lua; node calls next to Tocha's m(x) forward.
-- The char-rnn LSTM, serialization, errors and inspection are in test_nngraph_more.lua.
require 'nn'
torch.setdefaulttensortype('torch.DoubleTensor')

-- Before nngraph loads: m(x) runs forward, and a user class with its own __call__ (not calling
-- the parent's) keeps it (Note [Node calls] in lua/nngraph/init.lua).
local before = {}
do
  local m = nn.Linear(3, 2)
  local x = torch.randn(3)
  before.forward = { m(x):clone(), m:forward(x):clone() }
  local Scaled, parent = torch.class('nngraph_test.Scaled', 'nn.Module')
  function Scaled:__init(k) parent.__init(self) self.k = k end
  function Scaled:updateOutput(x) self.output = x * self.k return self.output end
  function Scaled:updateGradInput(x, g) self.gradInput = g * self.k return self.gradInput end
  function Scaled:__call__(x, k) return self:forward(x):clone():mul(k or 1) end  -- no parent.__call__
  before.Scaled = nngraph_test.Scaled
end

local nngraph = require 'nngraph'
local dir = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.'
local checks = dofile(dir .. '/fixtures/nn_checks.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()
torch.manualSeed(7)

-- Copies the parameters of `from` into `to` (same parameter order).
local function copyParams(to, from)
  local pt, pf = to:parameters(), from:parameters()
  assert(#pt == #pf, 'parameter counts differ: ' .. #pt .. ' vs ' .. #pf)
  for i = 1, #pt do pt[i]:copy(pf[i]) end
end

-- g and ref compute the same function: outputs, gradInputs and parameter gradients agree
-- (Torch7's backward and the updateGradInput/accGradParameters pair).
-- pairs (optional): {g's gradient, ref's gradient} to compare instead of the parameter lists (for
-- graphs whose modules are listed once while ref holds clones).
local function sameAs(g, ref, input, label, tol, pairs_)
  tol = tol or 1e-12
  local y, yr = g:forward(input), ref:forward(input)
  tester:assertlt(checks.maxdiff(y, yr), tol, label .. ' forward')
  local go = checks.map(y, function(t) return torch.randn(t:size()) end)
  g:zeroGradParameters(); ref:zeroGradParameters()
  local gi, gir = g:backward(input, go), ref:backward(input, go)
  tester:assertlt(checks.maxdiff(gi, gir), tol, label .. ' gradInput')
  local _, gg = g:parameters()
  local _, gr = ref:parameters()
  if pairs_ then
    gg, gr = {}, {}
    for i, p in ipairs(pairs_) do gg[i], gr[i] = p[1], p[2] end
  end
  tester:assertlt(checks.maxdiff(gg, gr), tol, label .. ' parameter gradients')
  g:zeroGradParameters()
  g:forward(input)
  local gi2 = g:updateGradInput(input, go)
  g:accGradParameters(input, go, 1)
  tester:assertlt(checks.maxdiff(gi2, gir), tol, label .. ' updateGradInput')
  tester:assertlt(checks.maxdiff(gg, gr), tol, label .. ' accGradParameters')
end

function tests.callsBeforeAndAfterLoading()
  tester:assertTensorEq(before.forward[1], before.forward[2], 0, "require 'nn' alone: m(x) is forward")
  local m = nn.Linear(3, 2)
  local x = torch.randn(3)
  tester:assertTensorEq(m(x), m:forward(x), 0, 'm(x) is still forward with nngraph')
  local gi = select(2, m(x, torch.ones(2)))
  tester:assertTensorEq(gi, m.weight:t() * torch.ones(2), 1e-12, 'm(x, gradOutput) is still backward')
  tester:asserteq(torch.type(m()), 'nngraph.Node', 'm() is a graph input')
  tester:asserteq(torch.type(nn.Linear(3, 2)(nn.Identity()())), 'nngraph.Node', 'm(node)')
  -- the constructors are untouched
  tester:asserteq(torch.type(nn.Linear(3, 2)), 'nn.Linear')
  -- a class with its own __call__ defined before nngraph: its call stays, node syntax added
  local s = before.Scaled(2)
  tester:assertTensorEq(s(torch.ones(2), 3), torch.Tensor(2):fill(6), 0, 'own __call__ kept')
  local xin = nn.Identity()()
  local g = nn.gModule({ xin }, { s(xin) })
  tester:assertTensorEq(g:forward(torch.ones(2)), torch.Tensor(2):fill(2), 0, 'own __call__ class as a node')
  -- lua/nn classes with their own __call__ (PyTorch forms) keep them and build nodes
  local up = nn.MaxUnpool2d(2)
  tester:asserteq(torch.type(up(nn.Identity()())), 'nngraph.Node')
  local conv = nn.Conv2d(1, 1, 3)
  tester:asserteq(torch.type(conv()), 'nngraph.Node')
  tester:asserteq(conv(torch.randn(1, 1, 5, 5)):size(3), 3, 'Conv2d call still forward')
  -- a criterion on nodes is a ModuleFromCriterion node
  local p, t = nn.Identity()(), nn.Identity()()
  local lossNode = nn.MSECriterion()({ p, t })
  tester:asserteq(torch.type(lossNode.data.module), 'nn.ModuleFromCriterion')
  local lg = nn.gModule({ p, t }, { lossNode })
  local a, b = torch.randn(4), torch.randn(4)
  tester:assertalmosteq(lg:forward({ a, b })[1], nn.MSECriterion():forward(a, b), 1e-12, 'criterion node')
  tester:assertalmosteq(nn.MSECriterion()(a, b), nn.MSECriterion():forward(a, b), 1e-12, 'criterion call kept')
  local gi2 = lg:backward({ a, b }, torch.ones(1))
  tester:assertTensorEq(gi2[1], nn.MSECriterion():backward(a, b), 1e-12, 'criterion node gradient')
  tester:assertTensorEq(gi2[2], torch.zeros(4), 0, 'target gets a zero gradient')
end

function tests.mlpMatchesSequential()
  local x = nn.Identity()()
  local h = nn.Tanh()(nn.Linear(5, 4)(x))
  local y = nn.LogSoftMax()(nn.Linear(4, 3)(h))
  local g = nn.gModule({ x }, { y })
  local ref = nn.Sequential():add(nn.Identity()):add(nn.Linear(5, 4)):add(nn.Tanh()):add(nn.Linear(4, 3)):add(nn.LogSoftMax())
  copyParams(ref, g)
  sameAs(g, ref, torch.randn(2, 5), 'mlp')
  checks.standard(tester, g, torch.randn(2, 5))
end

-- Two inputs, two outputs: {a, b} -> {tanh(A a) + B b, sigmoid(A a)}.
local function twoByTwo()
  local a, b = nn.Identity()(), nn.Identity()()
  local la = nn.Linear(3, 2)(a):annotate({ name = 'A' })
  local sum = nn.CAddTable()({ nn.Tanh()(la), nn.Linear(4, 2)(b):annotate({ name = 'B' }) })
  return nn.gModule({ a, b }, { sum, nn.Sigmoid()(la) })
end

function tests.multiInputMultiOutput()
  local g = twoByTwo()
  local A, B
  for _, node in ipairs(g.forwardnodes) do
    if node.data.annotations.name == 'A' then A = node.data.module end
    if node.data.annotations.name == 'B' then B = node.data.module end
  end
  -- the same function from Torch7 containers: ParallelTable feeds both branches, ConcatTable forks
  local lin = nn.Linear(3, 2)
  local ref = nn.Sequential()
    :add(nn.ParallelTable():add(lin):add(nn.Linear(4, 2)))
    :add(nn.ConcatTable()
      :add(nn.Sequential():add(nn.ParallelTable():add(nn.Tanh()):add(nn.Identity())):add(nn.CAddTable()))
      :add(nn.Sequential():add(nn.SelectTable(1)):add(nn.Sigmoid())))
  ref.modules[1].modules[1].weight:copy(A.weight)
  ref.modules[1].modules[1].bias:copy(A.bias)
  ref.modules[1].modules[2].weight:copy(B.weight)
  ref.modules[1].modules[2].bias:copy(B.bias)
  local input = { torch.randn(2, 3), torch.randn(2, 4) }
  local y = g:forward(input)
  tester:asserteq(#y, 2, 'two outputs')
  sameAs(g, ref, input, '2 in 2 out')
  checks.standard(tester, twoByTwo(), input)
end

function tests.splitOutputs()
  -- Torch7's test_twoInputs: a table input split into parts
  local in1, in2 = nn.Identity()(), nn.Identity()()
  local prevH, prevCell = in2:split(2)
  local out = nn.CMulTable()({ in1, prevH, prevCell })
  local g = nn.gModule({ in1, in2 }, { out })
  local input = { torch.randn(3), { torch.randn(3), torch.randn(3) } }
  local y = g:forward(input)
  tester:assertTensorEq(y, torch.cmul(torch.cmul(input[1], input[2][1]), input[2][2]), 1e-12)
  local gi = g:backward(input, torch.ones(3))
  tester:asserteq(#gi, 2)
  tester:asserteq(type(gi[2]), 'table', 'gradInput keeps the nesting')
  tester:assertTensorEq(gi[2][2], torch.cmul(input[1], input[2][1]), 1e-12)
  checks.jacobian(tester, g, input)
  checks.autograd(tester, g, input)
  -- SplitTable's outputs used separately, and the split node also used whole
  local x = nn.Identity()()
  local parts = nn.SplitTable(1)(x)
  local p1, p2 = parts:split(2)
  local g2 = nn.gModule({ x }, { nn.CAddTable()({ nn.Tanh()(p1), p2 }), nn.JoinTable(1)(parts) })
  checks.jacobian(tester, g2, torch.randn(2, 3))
  checks.autograd(tester, g2, torch.randn(2, 3))
  -- split(1) is the single element
  local t = nn.Identity()()
  local one = t:split(1)
  local g3 = nn.gModule({ t }, { nn.Tanh()(one) })
  local v = torch.randn(3)
  tester:assertTensorEq(g3:forward({ v }), torch.tanh(v), 1e-12, 'split(1)')
end

function tests.forkedGradientsSum()
  -- one node feeding three consumers: its gradient is the sum (Torch7's test_twoOutputs)
  local x = nn.Identity()()
  local l = nn.Linear(3, 3)(x)
  local g = nn.gModule({ x }, { nn.Tanh()(l), nn.Sigmoid()(l), l })
  local lin = nn.Linear(3, 3)
  lin.weight:copy(g.modules[2].weight); lin.bias:copy(g.modules[2].bias)
  local ref = nn.Sequential():add(lin):add(nn.ConcatTable():add(nn.Tanh()):add(nn.Sigmoid()):add(nn.Identity()))
  sameAs(g, ref, torch.randn(4, 3), 'fork')
  checks.standard(tester, g, torch.randn(4, 3))
end

function tests.nestedGModule()
  local function block(i, o)
    local x = nn.Identity()()
    return nn.gModule({ x }, { nn.Tanh()(nn.Linear(i, o)(x)) })
  end
  local b1, b2 = block(4, 3), block(3, 2)
  local x = nn.Identity()()
  local h = b1(x)
  local g = nn.gModule({ x }, { nn.CAddTable()({ b2(h), nn.Linear(3, 2)(h) }) })
  local ref = nn.Sequential():add(nn.Linear(4, 3)):add(nn.Tanh())
    :add(nn.ConcatTable():add(nn.Sequential():add(nn.Linear(3, 2)):add(nn.Tanh())):add(nn.Linear(3, 2)))
    :add(nn.CAddTable())
  copyParams(ref, g)
  sameAs(g, ref, torch.randn(5, 4), 'nested')
  tester:asserteq(#g:findModules('nn.Linear'), 3, 'findModules reaches inside')
  tester:asserteq(#g:listModules(), 12, 'listModules: g, identity, b1 and b2 (4 each), linear, cadd')
  checks.standard(tester, g, torch.randn(5, 4))
end

function tests.sharedWeights()
  -- clone('weight', 'bias', 'gradWeight', 'gradBias') used twice: gradients accumulate
  local lin = nn.Linear(3, 3)
  local twin = lin:clone('weight', 'bias', 'gradWeight', 'gradBias')
  local x = nn.Identity()()
  local g = nn.gModule({ x }, { twin(nn.Tanh()(lin(x))) })
  local W, b = lin.weight:clone(), lin.bias:clone()
  local input, go = torch.randn(2, 3), torch.randn(2, 3)
  local h = torch.tanh(input * W:t() + b:view(1, 3):expand(2, 3))
  tester:assertTensorEq(g:forward(input), h * W:t() + b:view(1, 3):expand(2, 3), 1e-12)
  g:zeroGradParameters()
  g:backward(input, go)
  -- by hand: dW = go^T h + (gh)^T input, with gh = (go W) * (1 - h^2)
  local gh = torch.cmul(go * W, 1 - torch.cmul(h, h))
  tester:assertTensorEq(lin.gradWeight, go:t() * h + gh:t() * input, 1e-12, 'shared gradWeight accumulates')
  tester:assertTensorEq(lin.gradBias, go:sum(1):view(3) + gh:sum(1):view(3), 1e-12, 'shared gradBias')
  local p, gp = g:getParameters()
  tester:asserteq(p:nElement(), 12, 'getParameters counts shared parameters once')
  checks.jacobian(tester, g, torch.randn(2, 3))
end

-- One module instance at two nodes (Note [A module applied twice in a graph]): the same
-- gradients as two clones sharing the parameters.
function tests.moduleAppliedTwice()
  local lin, act = nn.Linear(3, 3), nn.Tanh()
  local x = nn.Identity()()
  local y = act(lin(act(lin(x))))
  local g = nn.gModule({ x }, { y })
  tester:asserteq(#g.modules, 3, 'each module listed once')
  local c1 = lin:clone()
  local ref = nn.Sequential():add(nn.Identity()):add(c1):add(nn.Tanh()):add(c1:clone('weight', 'bias', 'gradWeight', 'gradBias')):add(nn.Tanh())
  local input = torch.randn(2, 3)
  local go = torch.randn(2, 3)
  tester:assertTensorEq(g:forward(input), ref:forward(input), 1e-12, 'twice forward')
  g:zeroGradParameters(); ref:zeroGradParameters()
  tester:assertTensorEq(g:backward(input, go), ref:backward(input, go), 1e-12, 'twice gradInput')
  tester:assertTensorEq(lin.gradWeight, c1.gradWeight, 1e-12, 'twice gradWeight')
  tester:assertTensorEq(lin.gradBias, c1.gradBias, 1e-12, 'twice gradBias')
  -- a module applied to two inputs side by side, and the autograd path
  local a, b = nn.Identity()(), nn.Identity()()
  local sig = nn.Sigmoid()
  local side = nn.gModule({ a, b }, { nn.CMulTable()({ sig(a), sig(b) }) })
  local inp = { torch.randn(4), torch.randn(4) }
  checks.jacobian(tester, side, inp)
  checks.autograd(tester, side, inp)
  checks.jacobian(tester, g, input)
  checks.autograd(tester, g, input)
  -- a gModule applied twice inside another: its nodes keep each application's inputs
  local ix = nn.Identity()()
  local inner = nn.gModule({ ix }, { nn.Sigmoid()(nn.Linear(3, 3)(nn.Tanh()(ix))) })
  local ox = nn.Identity()()
  local outer = nn.gModule({ ox }, { nn.CMulTable()({ inner(ox), inner(nn.Tanh()(inner(ox))) }) })
  local il = inner.modules[3]
  local base = il:clone()
  local function copy() return nn.Sequential():add(nn.Tanh()):add(base:clone('weight', 'bias', 'gradWeight', 'gradBias')):add(nn.Sigmoid()) end
  local ref2 = nn.Sequential():add(nn.ConcatTable():add(copy()):add(nn.Sequential():add(copy()):add(nn.Tanh()):add(copy())))
    :add(nn.CMulTable())
  sameAs(outer, ref2, torch.randn(2, 3), 'gModule applied twice', 1e-12,
    { { il.gradWeight, base.gradWeight }, { il.gradBias, base.gradBias } })
  checks.jacobian(tester, outer, torch.randn(2, 3))
  checks.autograd(tester, outer, torch.randn(2, 3))
end

-- A gModule applied three times inside one autograd graph: loss:backward() gives the gradients of
-- the same computation written with tensor ops.
function tests.autogradThroughRepeatedCalls()
  local x = nn.Identity()()
  local g = nn.gModule({ x }, { nn.Tanh()(nn.Linear(3, 3)(x)) })
  local lin = g.modules[2]
  local x1, x2 = torch.randn(3):requiresGrad(), torch.randn(3):requiresGrad()
  local y1 = g:forward(x1)
  local y2 = g:forward(g:forward(x2) + y1)
  g:zeroGradParameters()
  ;(torch.cmul(y1, y1):sum() + y2:sum()):backward()
  local W, b = lin.weight:detach():clone():requiresGrad(), lin.bias:detach():clone():requiresGrad()
  local a1, a2 = x1:detach():clone():requiresGrad(), x2:detach():clone():requiresGrad()
  local function f(v) return torch.tanh(torch.mv(W, v) + b) end
  local r1 = f(a1)
  ;(torch.cmul(r1, r1):sum() + f(f(a2) + r1):sum()):backward()
  tester:assertTensorEq(x1.grad, a1.grad, 1e-12, 'first input')
  tester:assertTensorEq(x2.grad, a2.grad, 1e-12, 'second input')
  tester:assertTensorEq(lin.gradWeight, W.grad, 1e-12, 'gradWeight')
  tester:assertTensorEq(lin.gradBias, b.grad, 1e-12, 'gradBias')
end

function tests.trainingStepsAndParameters()
  local x = nn.Identity()()
  local g = nn.gModule({ x }, { nn.Linear(4, 1)(nn.Dropout(0.5)(nn.ReLU()(nn.Linear(3, 4)(x)))) })
  local p, gp = g:getParameters()
  tester:asserteq(p:nElement(), 3 * 4 + 4 + 4 + 1)
  g:training()
  tester:assert(g.modules[4].train, 'training reaches the modules')
  g:evaluate()
  tester:assert(not g.modules[4].train, 'evaluate reaches the modules')
  local input, target = torch.randn(8, 3), torch.randn(8, 1)
  local crit = nn.MSECriterion()
  local first, last
  for step = 1, 30 do
    gp:zero()
    local loss = crit:forward(g:forward(input), target)
    g:backward(input, crit:backward(g.output, target))
    g:updateParameters(0.05)
    first = first or loss
    last = loss
  end
  tester:assertlt(last, first, 'loss falls with updateParameters')
  g:zeroGradParameters()
  tester:asserteq(gp:abs():sum(), 0, 'zeroGradParameters')
end

function tests.graphObjects()
  local x = nn.Identity()():annotate({ name = 'x' })
  local h = nn.Linear(2, 2)(x):annotate({ name = 'hidden', description = 'a layer' })
  local g = nn.gModule({ x }, { nn.Tanh()(h) })
  tester:asserteq(#g.forwardnodes, 5, 'innode, x, linear, tanh, outnode')
  tester:asserteq(#g.backwardnodes, 5)
  tester:asserteq(#g.fg:nodes(), 5, 'g.fg:nodes()')
  tester:asserteq(g.fg:nodes(), g.fg.nodes, 'the nodes list as a field too')
  tester:asserteq(#g.bg.edges, 4)
  tester:asserteq(g.forwardnodes[1].data, g.innode.data, 'forward order starts at the input')
  tester:asserteq(g.backwardnodes[1].data, g.outnode.data, 'backward order starts at the output')
  local found
  for _, node in ipairs(g.forwardnodes) do
    if node.data.annotations.name == 'hidden' then found = node.data.module end
  end
  tester:asserteq(found, g.modules[2], "char-rnn's lookup of a node by annotation name")
  tester:assert(h:label():find('a layer', 1, true) ~= nil, 'description in the label')
end

tester:add(tests)
tester:run()
