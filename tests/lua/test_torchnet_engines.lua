-- torchnet's engines (Torch7 torchnet, lua/torchnet/engine/): SGDEngine and OptimEngine train a
-- linear model whose loss falls and whose weights equal a hand-written SGD (and momentum) loop's
-- after the same batches in the same order; the hooks run in torchnet's order with its state
-- fields; test() evaluates; hook names are checked.
local tnt = require 'torchnet'
require 'nn'
require 'optim'
local tester = torch.Tester()
local tests = torch.TestSuite()

-- 8 samples of y = x . (1, -2, 0.5) + 0.3 + noise, in batches of 2, in order.
local function problem()
  local gen = torch.Generator()
  torch.manualSeed(gen, 11)
  local X = torch.randn(gen, 8, 3):double()
  local y = (X * torch.DoubleTensor{ 1, -2, 0.5 }):add(0.3):add(torch.randn(gen, 8):double():mul(0.1)):view(8, 1)
  local data = {}
  for i = 1, 8 do data[i] = { input = X[i]:clone(), target = y[i]:clone() } end
  local batches = tnt.BatchDataset{ dataset = tnt.TableDataset{ data = data }, batchsize = 2 }
  return X, y, tnt.DatasetIterator{ dataset = batches }
end

local function network()
  torch.manualSeed(5)
  return nn.Linear(3, 1):double()
end

-- The hand-written loop: MSE over each batch of 2 (mean of the squared errors), gradients by hand,
-- plain SGD or momentum (v = g at the first step, then v = mom * v + g; x = x - lr * v).
local function hand(W, b, X, y, lr, epochs, mom)
  W, b = W:clone(), b:clone()
  local vW, vb
  for _ = 1, epochs do
    for i = 1, 8, 2 do
      local xb, yb = X:narrow(1, i, 2), y:narrow(1, i, 2)
      local pred = xb * W:t() + b:view(1, 1):expand(2, 1)
      local d = (pred - yb):mul(2 / 2)  -- d loss / d pred for the mean over 2 elements
      local gW, gb = d:t() * xb, d:sum(1):view(1)
      if mom then
        if vW then vW:mul(mom):add(gW); vb:mul(mom):add(gb) else vW, vb = gW:clone(), gb:clone() end
        gW, gb = vW, vb
      end
      W:add(-lr, gW)
      b:add(-lr, gb)
    end
  end
  return W, b
end

function tests.sgdEngineMatchesHandLoop()
  local X, y, iterator = problem()
  local net = network()
  local W0, b0 = net.weight:clone(), net.bias:clone()
  local engine = tnt.SGDEngine()
  local meter = tnt.AverageValueMeter()
  local losses = {}
  engine.hooks.onStartEpoch = function() meter:reset() end
  engine.hooks.onForwardCriterion = function(state) meter:add(state.criterion.output) end
  engine.hooks.onEndEpoch = function() losses[#losses + 1] = meter:value() end
  local state = engine:train{ network = net, criterion = nn.MSECriterion():double(), iterator = iterator, lr = 0.05, maxepoch = 6 }
  local W, b = hand(W0, b0, X, y, 0.05, 6)
  tester:eq(net.weight, W, 1e-10, 'weights after 6 epochs of 4 batches')
  tester:eq(net.bias, b, 1e-10)
  tester:eq(#losses, 6)
  for e = 2, 6 do tester:assert(losses[e] < losses[e - 1], 'loss falls at epoch ' .. e) end
  tester:assert(losses[6] < 0.3 * losses[1])
  tester:eq(state.epoch, 6); tester:eq(state.t, 24)
  tester:eq(state.lrcriterion, 0.05, 'lrcriterion defaults to lr')
end

function tests.hookOrderAndState()
  local data = { { input = torch.randn(2, 3), target = torch.randn(2, 1) }, { input = torch.randn(1, 3), target = torch.randn(1, 1) } }
  local iterator = tnt.DatasetIterator{ dataset = tnt.TableDataset{ data = data } }
  local engine = tnt.SGDEngine()
  local calls, ts = {}, {}
  local net, crit = nn.Linear(3, 1), nn.MSECriterion()
  for _, name in ipairs{ 'onStart', 'onStartEpoch', 'onSample', 'onForward', 'onForwardCriterion', 'onBackward',
    'onBackwardCriterion', 'onUpdate', 'onEndEpoch', 'onEnd' } do
    engine.hooks[name] = function(state)
      calls[#calls + 1] = name
      tester:assert(state.network == net and state.criterion == crit and state.iterator == iterator, name)
      tester:eq(state.training, true)
      tester:eq(state.maxepoch, 1)
      if name == 'onForward' then tester:eq(state.network.output, net:forward(state.sample.input)) end
      if name == 'onForwardCriterion' then tester:assert(type(state.criterion.output) == 'number') end
      if name == 'onUpdate' then ts[#ts + 1] = state.t end
      if name == 'onEndEpoch' then tester:eq(state.epoch, 1) end
      if name == 'onStartEpoch' then tester:eq(state.epoch, 0); tester:assert(net.train) end
    end
  end
  engine:train{ network = net, criterion = crit, iterator = iterator, lr = 0.1, maxepoch = 1 }
  local step = { 'onSample', 'onForward', 'onForwardCriterion', 'onBackwardCriterion', 'onBackward', 'onUpdate' }
  local expected = { 'onStart', 'onStartEpoch' }
  for _ = 1, 2 do for _, s in ipairs(step) do expected[#expected + 1] = s end end
  expected[#expected + 1] = 'onEndEpoch'; expected[#expected + 1] = 'onEnd'
  tester:eq(calls, expected, 'torchnet hook order')
  tester:eq(ts, { 1, 2 }, 'state.t counts updates')
end

function tests.hooksChangeState()
  -- a schedule in a hook: lr = 0 from the start leaves the weights as they were
  local _, _, iterator = problem()
  local net = network()
  local W0 = net.weight:clone()
  local engine = tnt.SGDEngine()
  engine.hooks.onStartEpoch = function(state) state.lr = 0 end
  engine:train{ network = net, criterion = nn.MSECriterion():double(), iterator = iterator, lr = 1, maxepoch = 2 }
  tester:eq(net.weight, W0)
  tester:assertErrorPattern(function() engine.hooks.onSomething = function() end end, 'unknown hook <onSomething>')
  tester:assertErrorPattern(function() engine.hooks('onFoo') end, 'unknown hook <onFoo>')
  tester:assertErrorPattern(function() engine.hooks.onStart = 3 end, 'hook onStart should be a function, got number')
  engine.hooks.onStartEpoch = nil  -- back to a no-op
  tester:assertErrorPattern(function() engine:train{ network = net, criterion = nn.MSECriterion(), iterator = iterator, lr = -1, lrcriterion = 0, maxepoch = 1 } end,
    '%] lr should be positive or zero, got %-1')
  tester:assertErrorPattern(function() engine:train{ network = net, criterion = nn.MSECriterion(), iterator = iterator, lr = -1, maxepoch = 1 } end,
    'lrcriterion should be positive or zero, got %-1')
  tester:assertErrorPattern(function() engine:train{ network = net, iterator = iterator, lr = 1 } end,
    '%[tnt.SGDEngine.train%] missing argument criterion')
  tester:assertErrorPattern(function() engine:train{ network = 3, criterion = nn.MSECriterion(), iterator = iterator, lr = 1 } end,
    'argument network: expected nn.Module, got number 3')
end

function tests.testEvaluates()
  local X, y, iterator = problem()
  local net = network()
  local engine = tnt.SGDEngine()
  local calls, mse = {}, tnt.MSEMeter()
  for _, name in ipairs{ 'onStart', 'onSample', 'onForward', 'onForwardCriterion', 'onEnd' } do
    engine.hooks[name] = function(state)
      calls[#calls + 1] = name
      tester:eq(state.training, false)
      if name == 'onForward' then tester:assert(not state.network.train, 'evaluate mode') end
      if name == 'onForwardCriterion' then mse:add(state.network.output, state.sample.target) end
    end
  end
  local state = engine:test{ network = net, iterator = iterator, criterion = nn.MSECriterion():double() }
  tester:eq(#calls, 2 + 4 * 3)
  tester:eq(calls[1], 'onStart'); tester:eq(calls[2], 'onSample'); tester:eq(calls[#calls], 'onEnd')
  tester:eq(state.t, 4)
  local full = (net:forward(X) - y):pow(2):mean()
  tester:eq(mse:value(), full, 1e-10, 'MSEMeter over the batches = the mean squared error of all samples')
  -- without a criterion: no onForwardCriterion
  calls = {}
  engine:test{ network = net, iterator = iterator }
  for _, c in ipairs(calls) do tester:assert(c ~= 'onForwardCriterion') end
end

function tests.optimEngineMatchesHandLoop()
  local X, y, iterator = problem()
  local net = network()
  local W0, b0 = net.weight:clone(), net.bias:clone()
  local engine = tnt.OptimEngine()
  local state = engine:train{ network = net, criterion = nn.MSECriterion():double(), iterator = iterator,
    optimMethod = optim.sgd, config = { learningRate = 0.05 }, maxepoch = 3 }
  local W, b = hand(W0, b0, X, y, 0.05, 3)
  tester:eq(net.weight, W, 1e-10, 'optim.sgd through OptimEngine = plain SGD')
  tester:eq(net.bias, b, 1e-10)
  tester:eq(state.t, 12)
  tester:assert(state.params and state.gradParams and state.params:nElement() == 4)
  -- momentum (dampening 0), with the optim state handed in and kept
  local net2 = network()
  local optimState = {}
  engine:train{ network = net2, criterion = nn.MSECriterion():double(), iterator = iterator, optimMethod = optim.sgd,
    config = { learningRate = 0.02, momentum = 0.9, dampening = 0 }, optimState = optimState, maxepoch = 3 }
  local Wm, bm = hand(W0, b0, X, y, 0.02, 3, 0.9)
  tester:eq(net2.weight, Wm, 1e-10, 'momentum')
  tester:eq(net2.bias, bm, 1e-10)
  tester:assert(optimState.dfdx ~= nil or next(optimState) ~= nil, 'the optim state is the table given')
  -- paramFun gives the parameters
  local net3 = network()
  local p, g = net3:getParameters()
  local called = false
  engine:train{ network = net3, criterion = nn.MSECriterion():double(), iterator = iterator, optimMethod = optim.sgd,
    config = { learningRate = 0.05 }, maxepoch = 1, paramFun = function() called = true; return p, g end }
  tester:assert(called)
  tester:eq(net3.weight, (hand(W0, b0, X, y, 0.05, 1)), 1e-10)
  tester:assertErrorPattern(function() engine:train{ network = net, criterion = nn.MSECriterion(), iterator = iterator } end,
    'missing argument optimMethod')
end

tester:add(tests)
tester:run()
