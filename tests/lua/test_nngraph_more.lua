-- nngraph, continued: karpathy's char-rnn LSTM (model/LSTM.lua as written there) against an LSTM
-- step computed by hand, save/load round trips, clone, type conversion, errors naming nn.gModule
-- and what it received, setDebug's node names, annotations in .dot files, annotateNodes.
require 'nngraph'
local dir = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.'
local checks = dofile(dir .. '/fixtures/nn_checks.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()
torch.setdefaulttensortype('torch.DoubleTensor')
torch.manualSeed(11)

local OneHot = nn.OneHot  -- char-rnn's util/OneHot.lua: indices -> one-hot rows

-- karpathy/char-rnn model/LSTM.lua, unmodified but for `local`.
local LSTM = {}
function LSTM.lstm(input_size, rnn_size, n, dropout, bn)
  dropout = dropout or 0
  local inputs = {}
  table.insert(inputs, nn.Identity()()) -- x
  for L = 1,n do
    table.insert(inputs, nn.Identity()()) -- prev_c[L]
    table.insert(inputs, nn.Identity()()) -- prev_h[L]
  end
  local x, input_size_L
  local outputs = {}
  for L = 1,n do
    local prev_h = inputs[L*2+1]
    local prev_c = inputs[L*2]
    if L == 1 then
      x = OneHot(input_size)(inputs[1])
      input_size_L = input_size
    else
      x = outputs[(L-1)*2]
      if dropout > 0 then x = nn.Dropout(dropout)(x) end
      input_size_L = rnn_size
    end
    local bn_wx, bn_wh, bn_c
    if bn then
      bn_wx = nn.BatchNormalization(4 * rnn_size, 1e-5, 0.1, true)
      bn_wh = nn.BatchNormalization(4 * rnn_size, 1e-5, 0.1, true)
      bn_c = nn.BatchNormalization(rnn_size, 1e-5, 0.1, true)
    else
      bn_wx = nn.Identity()
      bn_wh = nn.Identity()
      bn_c = nn.Identity()
    end
    local i2h = bn_wx(nn.Linear(input_size_L, 4 * rnn_size)(x):annotate{name='i2h_'..L}
                      ):annotate{name='bn_wx_'..L}
    local h2h = bn_wh(nn.Linear(rnn_size, 4 * rnn_size, false)(prev_h):annotate{name='h2h_'..L}
                      ):annotate{name='bn_wh_'..L}
    local all_input_sums = nn.CAddTable()({i2h, h2h})
    local reshaped = nn.Reshape(4, rnn_size)(all_input_sums)
    local n1, n2, n3, n4 = nn.SplitTable(2)(reshaped):split(4)
    local in_gate = nn.Sigmoid()(n1)
    local forget_gate = nn.Sigmoid()(n2)
    local out_gate = nn.Sigmoid()(n3)
    local in_transform = nn.Tanh()(n4)
    local next_c           = nn.CAddTable()({
        nn.CMulTable()({forget_gate, prev_c}),
        nn.CMulTable()({in_gate,     in_transform})
      })
    local next_h = nn.CMulTable()({out_gate, nn.Tanh()(bn_c(next_c):annotate{name='bn_c_'..L})})
    table.insert(outputs, next_c)
    table.insert(outputs, next_h)
  end
  local top_h = outputs[#outputs]
  if dropout > 0 then top_h = nn.Dropout(dropout)(top_h) end
  local proj = nn.Linear(rnn_size, input_size)(top_h):annotate{name='decoder'}
  local logsoft = nn.LogSoftMax()(proj)
  table.insert(outputs, logsoft)
  return nn.gModule(inputs, outputs)
end

local function named(g, name)
  for _, node in ipairs(g.forwardnodes) do
    if node.data.annotations.name == name then return node.data.module end
  end
end

-- One LSTM step by hand (gates i, f, o, g in that order, as char-rnn's reshape/split gives them).
local function lstmStep(x, c, h, Wx, bx, Wh)
  local B, R = x:size(1), c:size(2)
  local s = (x * Wx:t() + bx:view(1, -1):expand(B, 4 * R) + h * Wh:t()):view(B, 4, R)
  local i, f = torch.sigmoid(s:select(2, 1)), torch.sigmoid(s:select(2, 2))
  local o, gg = torch.sigmoid(s:select(2, 3)), torch.tanh(s:select(2, 4))
  local nc = torch.cmul(f, c) + torch.cmul(i, gg)
  return nc, torch.cmul(o, torch.tanh(nc))
end

function tests.charRnnLSTM()
  local V, R, B = 5, 4, 3
  local g = LSTM.lstm(V, R, 2)
  tester:asserteq(g.nInputs, 5)
  tester:asserteq(#g.outnode.children, 5)
  -- char-rnn's forget-gate bias initialisation finds the modules by annotation
  for L = 1, 2 do named(g, 'i2h_' .. L).bias[{ { R + 1, 2 * R } }]:fill(1.0) end
  local idx = torch.LongTensor({ 2, 5, 1 })
  local c1, h1, c2, h2 = torch.randn(B, R), torch.randn(B, R), torch.randn(B, R), torch.randn(B, R)
  local input = { idx, c1, h1, c2, h2 }
  local out = g:forward(input)
  local x = torch.zeros(B, V)
  for b = 1, B do x[b][idx[b]] = 1 end
  local i1, i2, d = named(g, 'i2h_1'), named(g, 'i2h_2'), named(g, 'decoder')
  local nc1, nh1 = lstmStep(x, c1, h1, i1.weight, i1.bias, named(g, 'h2h_1').weight)
  local nc2, nh2 = lstmStep(nh1, c2, h2, i2.weight, i2.bias, named(g, 'h2h_2').weight)
  local logits = nh2 * d.weight:t() + d.bias:view(1, -1):expand(B, V)
  local expect = { nc1, nh1, nc2, nh2, torch.logSoftmax(logits, 2) }
  for k = 1, 5 do tester:assertTensorEq(out[k], expect[k], 1e-12, 'LSTM output ' .. k) end
  -- gradients: Torch7's backward against autograd through the hand-written step
  local gos = {}
  for k = 1, 5 do gos[k] = torch.randn(out[k]:size()) end
  g:zeroGradParameters()
  local gi = g:backward(input, gos)
  local vars = { c1:clone():requiresGrad(), h1:clone():requiresGrad(), c2:clone():requiresGrad(), h2:clone():requiresGrad() }
  local params = {}
  for _, name in ipairs({ 'i2h_1', 'h2h_1', 'i2h_2', 'h2h_2', 'decoder' }) do
    local m = named(g, name)
    params[#params + 1] = { m.gradWeight, m.weight:detach():clone():requiresGrad() }
    if m.bias then params[#params + 1] = { m.gradBias, m.bias:detach():clone():requiresGrad() } end
  end
  local P = {}
  for k, p in ipairs(params) do P[k] = p[2] end
  local a1, b1 = lstmStep(x, vars[1], vars[2], P[1], P[2], P[3])
  local a2, b2 = lstmStep(b1, vars[3], vars[4], P[4], P[5], P[6])
  local lo = torch.logSoftmax(b2 * P[7]:t() + P[8]:view(1, -1):expand(B, V), 2)
  local loss = 0
  for k, t in ipairs({ a1, b1, a2, b2, lo }) do loss = loss + torch.cmul(t, gos[k]):sum() end
  loss:backward()
  for k = 1, 4 do tester:assertTensorEq(gi[k + 1], vars[k].grad, 1e-10, 'LSTM gradInput ' .. k) end
  tester:assertTensorEq(gi[1], torch.zeros(B), 0, 'indices get a zero gradient')
  for k, p in ipairs(params) do tester:assertTensorEq(p[1], p[2].grad, 1e-10, 'LSTM parameter gradient ' .. k) end
  -- the same graph through Tocha's autograd: loss:backward() fills the same gradients
  checks.autograd(tester, g, input, 'char-rnn LSTM')
  -- dropout and batch-norm variants build and run
  local gd = LSTM.lstm(V, R, 2, 0.5, true)
  local yd = gd:forward(input)
  gd:backward(input, yd)
  tester:asserteq(#yd, 5)
end

function tests.saveLoadAndClone()
  local x1, x2 = nn.Identity()(), nn.Identity()()
  local h = nn.Tanh()(nn.Linear(3, 4)(x1)):annotate({ name = 'h' })
  local a, b = nn.SplitTable(2)(nn.Reshape(2, 2)(h)):split(2)
  local g = nn.gModule({ x1, x2 }, { nn.CAddTable()({ a, x2 }), nn.CMulTable()({ b, x2 }) })
  local input = { torch.randn(5, 3), torch.randn(5, 2) }
  local y = checks.map(g:forward(input), function(t) return t:clone() end)
  local go = { torch.randn(5, 2), torch.randn(5, 2) }
  g:zeroGradParameters()
  local gi = checks.map(g:backward(input, go), function(t) return t:clone() end)
  local _, grads = g:parameters()
  local file = os.tmpname()
  for _, fmt in ipairs({ 'tocha', 'binary' }) do
    torch.save(file, g, fmt)
    local g2 = torch.load(file)
    tester:asserteq(torch.type(g2), 'nn.gModule', fmt)
    tester:asserteq(#g2.modules, #g.modules, fmt .. ' modules')
    tester:asserteq(#g2.fg:nodes(), #g.fg.nodes, fmt .. ' g:nodes() after load')
    tester:assertlt(checks.maxdiff(g2:forward(input), y), 1e-12, fmt .. ' forward after load')
    g2:zeroGradParameters()
    tester:assertlt(checks.maxdiff(g2:backward(input, go), gi), 1e-12, fmt .. ' backward after load')
    local _, g2grads = g2:parameters()
    tester:assertlt(checks.maxdiff(g2grads, grads), 1e-12, fmt .. ' parameter gradients after load')
    tester:assert(named(g2, 'h') ~= nil, fmt .. ' annotations kept')
  end
  os.remove(file)
  checks.io(tester, g, input)
  -- clone: independent copy; clone('weight', 'bias') shares the parameters
  local c = g:clone()
  tester:assertlt(checks.maxdiff(c:forward(input), y), 1e-12, 'clone forward')
  c:getParameters():zero()
  tester:assertlt(checks.maxdiff(g:forward(input), y), 1e-12, 'clone is independent')
  local s = g:clone('weight', 'bias')
  s.modules[2].weight:fill(0.5)
  tester:assertTensorEq(g.modules[2].weight, torch.Tensor(4, 3):fill(0.5), 0, 'clone(weight, bias) shares')
end

function tests.typesAndClearState()
  local x = nn.Identity()()
  local g = nn.gModule({ x }, { nn.Sigmoid()(nn.Linear(3, 2)(nn.Tanh()(nn.Linear(4, 3)(x)))) })
  local input = torch.randn(2, 4)
  g:forward(input)
  g:backward(input, torch.ones(2, 2))
  g:float()
  local y = g:forward(input:float())
  tester:asserteq(torch.type(y), 'torch.FloatTensor', 'float output')
  tester:asserteq(torch.type(g.modules[2].weight), 'torch.FloatTensor', 'float weight')
  tester:asserteq(torch.type(g:backward(input:float(), y)), 'torch.FloatTensor', 'float gradInput')
  tester:asserteq(torch.type(g.innode.data.input[1]), 'torch.FloatTensor', "Torch7's test_type: node inputs")
  g:double()
  g:forward(input)
  g:clearState()
  tester:asserteq(#g.forwardnodes[2].data.input, 0, 'clearState empties the node inputs')
  checks.clearState(tester, g, input)
  checks.types(tester, g, input)
end

-- Error messages name nn.gModule and what it received.
local function errorMatches(fn, pattern, label)
  local ok, err = pcall(fn)
  tester:assert(not ok, label .. ': expected an error')
  tester:assert(tostring(err):find(pattern, 1, true) ~= nil, label .. ': got "' .. tostring(err) .. '"')
end

function tests.errors()
  local x = nn.Identity()()
  local y = nn.Linear(2, 2)(x)
  errorMatches(function() nn.gModule({ x }, { y, 3 }) end, '[nn.gModule] outputs[2] should be an nngraph.Node, got number', 'non-node output')
  errorMatches(function() nn.gModule({ x }, { nn.Tanh() }) end, 'forget the second set of parentheses', 'module not node')
  errorMatches(function() nn.gModule(x, { y }) end, '[nn.gModule] inputs must be a table of nngraph.Node, got nngraph.Node', 'bare node')
  errorMatches(function() nn.gModule({ x }, {}) end, 'needs at least one output node', 'no outputs')
  -- a node made with no inputs but not listed in inputs
  local x2, stray = nn.Identity()(), nn.Identity()()
  errorMatches(function() nn.gModule({ x2 }, { nn.CAddTable()({ x2, stray }) }) end, 'is not reachable from the inputs', 'stray root')
  -- an input that leads nowhere, an unused split output, a dangling consumer
  local u1, u2 = nn.Identity()(), nn.Identity()()
  errorMatches(function() nn.gModule({ u1, u2 }, { nn.Tanh()(u1) }) end, 'inputs[2]', 'unused input')
  local s = nn.Identity()()
  local s1 = s:split(2)
  errorMatches(function() nn.gModule({ s }, { s1 }) end, '1 of the split(2) outputs', 'unused split')
  local d = nn.Identity()()
  local _ = nn.Sigmoid()(d)
  errorMatches(function() nn.gModule({ d }, { nn.Tanh()(d) }) end, 'does not lead to any output', 'dangling node')
  -- a cycle made by hand
  local c0 = nn.Identity()()
  local ca = nn.Identity()(c0)
  local cb = nn.Identity()(ca)
  ca:add(cb, true)
  errorMatches(function() nn.gModule({ c0 }, { cb }) end, 'cycle', 'cycle')
  -- node calls
  errorMatches(function() nn.Tanh()(nil) end, 'inputs[1] is nil', 'm(nil)')
  errorMatches(function() nn.CAddTable()({ x, 3 }) end, '[nn.CAddTable] inputs[2] is a number', 'non-node in a node list')
  errorMatches(function() nn.Tanh()(x, x) end, 'use {input1, input2}', 'two node arguments')
  errorMatches(function() nn.CAddTable()({ x, x }) end, 'the same input twice', 'same input twice')
  -- forward/backward inputs
  local a, b = nn.Identity()(), nn.Identity()()
  local g2 = nn.gModule({ a, b }, { nn.CAddTable()({ a, b }), nn.Tanh()(a) })
  errorMatches(function() g2:forward(torch.randn(2)) end, '[nn.gModule] forward expects a table of 2 inputs, got torch.DoubleTensor', 'tensor for 2 inputs')
  errorMatches(function() g2:forward({ torch.randn(2) }) end, 'forward expects 2 inputs, got a table of 1', 'input count')
  g2:forward({ torch.randn(2), torch.randn(2) })
  errorMatches(function() g2:backward({ torch.randn(2), torch.randn(2) }, torch.randn(2)) end,
    'backward expects a table of 2 gradOutputs (one per output), got torch.DoubleTensor', 'gradOutput count')
  local p = nn.Identity()()
  errorMatches(function() nn.gModule({ p }, { nn.Tanh()(p) }):backward(torch.randn(2), torch.randn(2)) end,
    'called before forward', 'backward before forward')
end

function tests.moduleErrorsNameTheNode()
  local x = nn.Identity()()
  local h = nn.Linear(3, 2)(x):annotate({ name = 'projection' })
  local g = nn.gModule({ x }, { nn.Tanh()(h) })
  local ok, err = pcall(g.forward, g, torch.randn(5))
  tester:assert(not ok, 'wrong size fails')
  err = tostring(err)
  tester:assert(err:find("'projection'", 1, true) ~= nil, 'names the annotation: ' .. err)
  tester:assert(err:find('nn.Linear', 1, true) ~= nil, 'names the module type')
  tester:assert(err:find('test_nngraph_more.lua:%d+') ~= nil, 'names where the node was made')
  -- setDebug(true) also writes the graph with the failing node in red
  local prefix = os.tmpname()
  g.name = prefix
  nngraph.setDebug(true)
  local ok2 = pcall(g.forward, g, torch.randn(5))
  nngraph.setDebug(false)
  tester:assert(not ok2)
  local f = io.open(prefix .. '.dot')
  tester:assert(f ~= nil, 'setDebug wrote the .dot file')
  if f then
    tester:assert(f:read('*a'):find('fillcolor=red', 1, true) ~= nil, 'failing node in red')
    f:close()
  end
  os.remove(prefix .. '.dot'); os.remove(prefix)
end

function tests.annotationsAndDot()
  -- Torch7's test_annotateGraph
  local input = nn.Identity()():annotate({ name = 'Input', description = 'DescA', graphAttributes = { color = 'red' } })
  local hidden_a = nn.Linear(10, 10)(input):annotate({ name = 'Hidden A', description = 'DescB',
    graphAttributes = { color = 'blue', fontcolor = 'green', tooltip = 'I am green' } })
  local output = nn.Linear(10, 10)(nn.Sigmoid()(hidden_a))
  local net = nn.gModule({ input }, { output })
  tester:assert(hidden_a:label():match('DescB'))
  local file = os.tmpname()
  for _, gr in ipairs({ net.fg, net.bg }) do
    graph.dot(gr, 'Test', file)
    local fh = io.open(file .. '.dot')
    local dot = fh:read('*a')
    fh:close()
    tester:assert(dot:match('%[label=%"Input.*DescA.*%".*color=red.*%]'), 'Input annotated')
    tester:assert(dot:match('%[label=%"Hidden A.*DescB.*%".*fontcolor=green.*%]'), 'Hidden A annotated')
    tester:assert(dot:match('tooltip=%"I am green%"'), 'tooltip')
    tester:assert(dot:match('tooltip=%"%[.*test_nngraph_more.lua%]:%d+'), 'default tooltip: where the node was made')
  end
  os.remove(file .. '.dot'); os.remove(file .. '.svg'); os.remove(file)
  -- annotateNodes names the nodes after the locals holding them
  local function build()
    local inp = nn.Identity()()
    local gate = nn.Sigmoid()(inp)
    local keep = nn.Tanh()(gate):annotate({ name = 'kept' })
    nngraph.annotateNodes()
    return inp, gate, keep
  end
  local i, gt, k = build()
  tester:asserteq(i.data.annotations.name, 'inp')
  tester:asserteq(gt.data.annotations.name, 'gate')
  tester:asserteq(k.data.annotations.name, 'kept', 'an explicit name is kept')
  local path = nngraph.display(net, os.tmpname())
  tester:assert(io.open(path .. '.dot') ~= nil, 'display writes the .dot')
  os.remove(path .. '.dot'); os.remove(path)
end

tester:add(tests)
tester:run()
