-- optim's object API (PyTorch habits): each optimizer against torch.optim's trajectory (numbers
-- from PyTorch 1.13, in double), identical trajectories with the functional API, parameter
-- groups, zeroGrad, closures, checkpoints continuing bit-for-bit, a logistic regression trained
-- with both APIs, gradient clipping, and errors.
require 'nn'
require 'optim'
local tester = torch.Tester()
local tests = torch.TestSuite()
local D = torch.DoubleTensor

local A, B, X0 = { 1, 2, 0.5, 3 }, { 0.5, -1, 0.25, 0 }, { 1, -2, 3, 0.5 }
local function quad(x)
  local a, b = x.new(A), x.new(B)
  return torch.cmul(torch.cmul(a, x), x):sum() / 2 + torch.cmul(b, x):sum(), torch.cmul(a, x):add(b)
end

-- Two parameters holding X0's halves; grads() sets their .grad to the quadratic's gradient.
local function two_params()
  local p1, p2 = D({ X0[1], X0[2] }), D({ X0[3], X0[4] })
  local function grads()
    local f, g = quad(torch.cat(p1, p2))
    p1.grad, p2.grad = g:narrow(1, 1, 2):clone(), g:narrow(1, 3, 2):clone()
    return f
  end
  return p1, p2, grads
end
local function run_object(make, steps)
  local p1, p2, grads = two_params()
  local opt = make({ p1, p2 })
  for _ = 1, steps do grads() opt:step() end
  return torch.cat(p1, p2), opt
end

-- /usr/bin/python3 with torch 1.13: 6 steps on the same quadratic, torch.float64.
local pytorch = {
  { 'SGD nesterov', function(p) return optim.SGD(p, { lr = 0.1, momentum = 0.9, nesterov = true, weightDecay = 0.01 }) end,
    { -0.8839371681519017, 1.4885796548342927, 0.04369041951407117, -0.09581925776377179 } },
  { 'SGD dampening', function(p) return optim.SGD(p, { lr = 0.1, momentum = 0.5, dampening = 0.3 }) end,
    { 0.10192629980499998, 0.33742436480000004, 1.8174049976694533, -0.044520194785 } },
  { 'Adam', function(p) return optim.Adam(p, { lr = 0.05, betas = { 0.8, 0.9 }, eps = 1e-3, weightDecay = 0.1, epsMode = 'pytorch' }) end,
    { 0.7019217155347833, -1.7009841380150235, 2.700795370971683, 0.20796724672371286 } },
  { 'AdamW amsgrad', function(p) return optim.AdamW(p, { lr = 0.05, betas = { 0.8, 0.9 }, eps = 1e-3, weightDecay = 0.1, amsgrad = true, epsMode = 'pytorch' }) end,
    { 0.6761462559206769, -1.645642513032734, 2.6158458927108277, 0.19751740439982993 } },
  { 'RMSprop centered momentum', function(p) return optim.RMSprop(p, { lr = 0.01, alpha = 0.9, eps = 1e-6, weightDecay = 0.1, momentum = 0.5, centered = true }) end,
    { 0.7616476062647175, -1.7589921217634414, 2.757984651659607, 0.2755831760759112 } },
  { 'Adagrad', function(p) return optim.Adagrad(p, { lr = 0.1, lrDecay = 0.05, weightDecay = 0.1, initialAccumulatorValue = 0.2 }) end,
    { 0.6879616515827949, -1.675858706955538, 2.67683868757857, 0.2217568260411632 } },
}

function tests.matchesPyTorch()
  for _, case in ipairs(pytorch) do
    tester:eq(run_object(case[2], 6), D(case[3]), 1e-12, case[1])
  end
end

function tests.functionalAndObjectIdentical()
  local pairs_ = {
    { function(p) return optim.SGD(p, { lr = 0.1, momentum = 0.9, dampening = 0.1, weightDecay = 0.01 }) end,
      'sgd', { learningRate = 0.1, momentum = 0.9, dampening = 0.1, weightDecay = 0.01 } },
    { function(p) return optim.SGD(p, { lr = 0.1, momentum = 0.9, nesterov = true }) end,
      'sgd', { learningRate = 0.1, momentum = 0.9, dampening = 0, nesterov = true } },
    { function(p) return optim.Adam(p, { lr = 0.05, betas = { 0.8, 0.95 }, eps = 1e-6, weightDecay = 0.1 }) end,
      'adam', { learningRate = 0.05, beta1 = 0.8, beta2 = 0.95, epsilon = 1e-6, weightDecay = 0.1 } },
    { function(p) return optim.AdamW(p, { lr = 0.05, weightDecay = 0.1, amsgrad = true }) end,
      'adamw', { learningRate = 0.05, weightDecay = 0.1, amsgrad = true } },
    { function(p) return optim.RMSprop(p, { lr = 0.01, alpha = 0.9, eps = 1e-6, weightDecay = 0.1 }) end,
      'rmsprop', { learningRate = 0.01, alpha = 0.9, epsilon = 1e-6, weightDecay = 0.1 } },
    { function(p) return optim.Adagrad(p, { lr = 0.1, lrDecay = 0.05, weightDecay = 0.1 }) end,
      'adagrad', { learningRate = 0.1, learningRateDecay = 0.05, weightDecay = 0.1 } },
  }
  for _, c in ipairs(pairs_) do
    local x = D(X0)
    for _ = 1, 7 do optim[c[2]](quad, x, c[3]) end
    tester:eq(run_object(c[1], 7), x, 0, c[2])
  end
  -- L-BFGS, with and without the line search
  for _, ls in ipairs({ false, true }) do
    local p1, p2, grads = two_params()
    local opt = optim.LBFGS({ p1, p2 }, { lr = 0.5, maxIter = 8, lineSearchFn = ls and 'strong_wolfe' or nil })
    local first = opt:step(grads)
    tester:assertalmosteq(first, (quad(D(X0))), 0)
    local x = D(X0)
    optim.lbfgs(quad, x, { learningRate = 0.5, maxIter = 8, lineSearch = ls and optim.lswolfe or nil })
    tester:eq(torch.cat(p1, p2), x, 0, 'lbfgs')
  end
end

local function mlp()
  torch.manualSeed(3)
  return nn.Sequential():add(nn.Linear(4, 5)):add(nn.ReLU()):add(nn.Linear(5, 3)):add(nn.LogSoftMax()):double()
end

function tests.getParametersAndModuleParametersTrainIdentically()
  local a = mlp()
  local b = a:clone()
  local x, y = torch.randn(8, 4):double(), torch.LongTensor({ 1, 2, 3, 1, 2, 3, 1, 2 })
  local crit = nn.ClassNLLCriterion()
  local params, gradParams = a:getParameters()
  local config = { learningRate = 0.1, momentum = 0.9, dampening = 0, weightDecay = 1e-3 }
  local opt = optim.SGD(b:parameters(), { lr = 0.1, momentum = 0.9, weightDecay = 1e-3 })
  for _ = 1, 10 do
    optim.sgd(function()
      gradParams:zero()
      local out = a:forward(x)
      local loss = crit:forward(out, y)
      a:backward(x, crit:backward(out, y))
      return loss, gradParams
    end, params, config)
    opt:step(function()
      opt:zeroGrad()
      local loss = crit(b(x), y)
      loss:backward()
      return loss
    end)
  end
  local pa, pb = a:parameters(), b:parameters()
  for i = 1, #pa do tester:eq(pa[i], pb[i], 0, 'parameter ' .. i) end
end

function tests.logisticRegressionConverges()
  torch.manualSeed(11)
  local n = 150
  local x = torch.randn(n, 2):double()
  local y = torch.LongTensor(n)
  local centers = { { 2, 0 }, { -2, 2 }, { -1, -2.5 } }
  for i = 1, n do
    local c = (i - 1) % 3 + 1
    y[i] = c
    x[i][1], x[i][2] = x[i][1] * 0.6 + centers[c][1], x[i][2] * 0.6 + centers[c][2]
  end
  local function accuracy(m)
    local _, pred = torch.max(m:forward(x), 2)
    return pred:view(-1):eq(y):sum() / n
  end
  local crit = nn.ClassNLLCriterion()
  for _, make in ipairs({ function(p) return optim.SGD(p, { lr = 0.5, momentum = 0.9 }) end,
                          function(p) return optim.Adam(p, { lr = 0.05 }) end,
                          function(p) return optim.RMSprop(p, { lr = 0.01 }) end,
                          function(p) return optim.Adagrad(p, { lr = 0.5 }) end }) do
    local m = nn.Sequential():add(nn.Linear(2, 3)):add(nn.LogSoftMax()):double()
    local opt = make(m:parameters())
    local first, last
    for _ = 1, 100 do
      last = opt:step(function() opt:zeroGrad() local l = crit(m(x), y) l:backward() return l end):item()
      first = first or last
    end
    tester:assertlt(last, first / 4)
    tester:assertgt(accuracy(m), 0.9)
  end
  -- the functional API with L-BFGS on the flat parameters
  local m = nn.Sequential():add(nn.Linear(2, 3)):add(nn.LogSoftMax()):double()
  local w, dw = m:getParameters()
  local _, fs = optim.lbfgs(function()
    dw:zero()
    local out = m:forward(x)
    local l = crit:forward(out, y)
    m:backward(x, crit:backward(out, y))
    return l, dw
  end, w, { maxIter = 50 })
  tester:assertlt(fs[#fs], fs[1] / 4)
  tester:assertgt(accuracy(m), 0.9)
end

function tests.groupsZeroGradAndClosures()
  local p1, p2 = D({ 1, 1 }), D({ 1, 1 })
  local opt = optim.SGD({ { params = { p1 } }, { params = { p2 }, lr = 0.5 } }, { lr = 0.1 })
  p1.grad, p2.grad = D({ 1, 2 }), D({ 1, 2 })
  tester:asserteq(opt:step(), nil)
  tester:eq(p1, D({ 0.9, 0.8 }), 1e-15)
  tester:eq(p2, D({ 0.5, 0 }), 1e-15)
  opt:zeroGrad()
  tester:eq(p1.grad, D({ 0, 0 }), 0)
  opt:zeroGrad(true)
  tester:asserteq(p1.grad, nil)
  opt:step()  -- parameters without gradients are skipped
  tester:eq(p1, D({ 0.9, 0.8 }), 0)
  local p3 = D({ 2 })
  opt:addParamGroup({ params = { p3 }, momentum = 0.5 })
  tester:asserteq(opt.paramGroups[3].lr, 0.1)
  tester:asserteq(opt.paramGroups[3].momentum, 0.5)
  local loss = opt:step(function() p3.grad = D({ 1 }) return 42 end)
  tester:asserteq(loss, 42)
  tester:eq(p3, D({ 1.9 }), 1e-15)
  tester:assert(tostring(opt):find('optim.SGD', 1, true))
  -- a module is accepted as params
  local l = nn.Linear(2, 2)
  tester:asserteq(#optim.Adam(l).paramGroups[1].params, 2)
end

function tests.stateRoundTripContinuesBitForBit()
  local makers = {
    function(p) return optim.SGD(p, { lr = 0.1, momentum = 0.9 }) end,
    function(p) return optim.Adam(p, { lr = 0.05, amsgrad = true }) end,
    function(p) return optim.AdamW(p, { lr = 0.05 }) end,
    function(p) return optim.RMSprop(p, { lr = 0.01, momentum = 0.3, centered = true }) end,
    function(p) return optim.Adagrad(p, { lr = 0.1, lrDecay = 0.1 }) end,
  }
  for k, make in ipairs(makers) do
    local p1, p2, grads = two_params()
    local opt = make({ p1, p2 })
    for _ = 1, 3 do grads() opt:step() end
    local blob = torch.serialize({ p = { p1:clone(), p2:clone() }, state = opt:state() })
    for _ = 1, 3 do grads() opt:step() end
    local saved = torch.deserialize(blob)
    local q1, q2 = saved.p[1], saved.p[2]
    local opt2 = make({ q1, q2 })
    opt2:loadState(saved.state)
    for _ = 1, 3 do
      local f, g = quad(torch.cat(q1, q2))
      q1.grad, q2.grad = g:narrow(1, 1, 2):clone(), g:narrow(1, 3, 2):clone()
      opt2:step()
    end
    tester:eq(torch.cat(q1, q2), torch.cat(p1, p2), 0, 'optimizer ' .. k)
  end
  -- L-BFGS keeps its history in the snapshot
  local p1, p2, grads = two_params()
  local opt = optim.LBFGS({ p1, p2 }, { maxIter = 2 })
  opt:step(grads)
  local blob = torch.serialize({ p = { p1:clone(), p2:clone() }, state = opt:state() })
  opt:step(grads)
  local saved = torch.deserialize(blob)
  local q1, q2 = saved.p[1], saved.p[2]
  local opt2 = optim.LBFGS({ q1, q2 }, { maxIter = 2 })
  opt2:loadState(saved.state)
  opt2:step(function()
    local f, g = quad(torch.cat(q1, q2))
    q1.grad, q2.grad = g:narrow(1, 1, 2):clone(), g:narrow(1, 3, 2):clone()
    return f
  end)
  tester:eq(torch.cat(q1, q2), torch.cat(p1, p2), 0, 'lbfgs')
end

function tests.clipping()
  local l = nn.Linear(3, 2):double()
  l:zeroGradParameters()
  l.gradWeight:copy(D({ { 3, 0, 0 }, { 0, 0, 0 } }))
  l.gradBias:copy(D({ 0, 4 }))
  tester:assertalmosteq(nn.utils.clipGradNorm(l, 1), 5, 1e-12)
  tester:eq(l.gradWeight, D({ { 0.6, 0, 0 }, { 0, 0, 0 } }), 1e-6)
  tester:eq(l.gradBias, D({ 0, 0.8 }), 1e-6)
  tester:assertalmosteq(nn.utils.clipGradNorm(l:parameters(), 10), 1, 1e-6)  -- under the limit: unchanged
  tester:eq(l.gradBias, D({ 0, 0.8 }), 1e-6)
  tester:assertalmosteq(nn.utils.clipGradNorm(l, 0.4, 'inf'), 0.8, 1e-6)
  tester:eq(l.gradBias, D({ 0, 0.4 }), 1e-6)
  tester:assertalmosteq(nn.utils.clipGradNorm(l, 100, 1), 0.7, 1e-6)
  nn.utils.clipGradValue(l, 0.25)
  tester:eq(l.gradWeight, D({ { 0.25, 0, 0 }, { 0, 0, 0 } }), 1e-12)
  local p = D({ 1, 2 })
  tester:asserteq(nn.utils.clipGradNorm({ p }, 1), 0)  -- no gradients
  l.gradBias[1] = 0 / 0
  tester:assertErrorPattern(function() nn.utils.clipGradNorm(l, 1, 2, true) end, 'total norm')
  tester:assertErrorPattern(function() nn.utils.clipGradNorm(l, -1) end, 'maxNorm must be')
  tester:assertErrorPattern(function() nn.utils.clipGradValue('x', 1) end, 'expected a module')
end

function tests.errors()
  local p = D({ 1 })
  tester:assertErrorPattern(function() optim.SGD({ p }, { learningRate = 0.1 }) end, "unknown option 'learningRate' %(did you mean 'lr'%?%)")
  tester:assertErrorPattern(function() optim.Adam({ p }, { beta1 = 0.5 }) end, "did you mean 'betas'")
  tester:assertErrorPattern(function() optim.SGD({ p }, { lr = -0.1 }) end, '%[optim.SGD%] lr must be a non%-negative number')
  tester:assertErrorPattern(function() optim.Adam({ p }, { betas = { 0.9, 1 } }) end, 'betas must be')
  tester:assertErrorPattern(function() optim.SGD({ p }, { nesterov = true }) end, 'Nesterov')
  tester:assertErrorPattern(function() optim.SGD({}, {}) end, 'empty parameter list')
  tester:assertErrorPattern(function() optim.SGD({ torch.LongTensor({ 1 }) }) end, 'floating%-point')
  tester:assertErrorPattern(function() optim.SGD({ { params = { p } }, { params = { p } } }) end, 'more than one')
  local opt = optim.SGD({ p }, { lr = 0.1 })
  opt.paramGroups[1].lr = -1
  p.grad = D({ 1 })
  tester:assertErrorPattern(function() opt:step() end, 'lr must be')
  tester:assertErrorPattern(function() optim.SGD({ p }):step(3) end, 'closure must be a function')
  tester:assertErrorPattern(function() optim.LBFGS({ p }):step() end, 'needs a closure')
  tester:assertErrorPattern(function() optim.Adam({ p }):loadState(optim.SGD({ p }):state()) end, 'state of optim.SGD')
  local big = optim.SGD({ D({ 1, 2 }) }, { momentum = 0.9 })
  big.paramGroups[1].params[1].grad = D({ 1, 1 })
  big:step()
  tester:assertErrorPattern(function() optim.SGD({ p }, { momentum = 0.9 }):loadState(big:state()) end, 'has 2 elements')
  -- the fused kernels check their operands too (for C hosts)
  local m, v = D(1), D(1)
  tester:assertErrorPattern(function() optim._fused.adam(p, D(2), m, v, nil, 1, 0.1, 0.9, 0.999, 1e-8, 0, false, 0) end,
                            '%[adamStep%] grad has 2 elements but param has 1')
  tester:assertErrorPattern(function() optim._fused.adam(p, D(1), m, m, nil, 1, 0.1, 0.9, 0.999, 1e-8, 0, false, 0) end,
                            'share memory')
end

-- A user module written Torch7's way (weight/gradWeight, no nn.utils.linkGradients) is trained
-- by an optimizer object built from the model: its parameters get their .grad linked.
function tests.userTorch7ModuleIsUpdated()
  local Scale, parent = torch.class('nn.TestUserScale', 'nn.Module')
  function Scale:__init(n)
    parent.__init(self)
    self.weight, self.gradWeight = torch.ones(n), torch.zeros(n)
  end
  function Scale:updateOutput(x) self.output = torch.cmul(x, self.weight:view(1, -1):expandAs(x)) return self.output end
  function Scale:updateGradInput(x, go) self.gradInput = torch.cmul(go, self.weight:view(1, -1):expandAs(x)) return self.gradInput end
  function Scale:accGradParameters(x, go, s) self.gradWeight:add(s or 1, torch.cmul(go, x):sum(1):view(-1)) end
  local model = nn.Sequential():add(nn.TestUserScale(3))
  local opt = optim.SGD(model, { lr = 0.5 })
  local x = torch.Tensor({ { 1, 2, 3 } })
  opt:zeroGrad()
  model:backward(x, model:forward(x):clone():fill(1))
  opt:step()
  tester:assertTensorEq(model:get(1).weight, torch.Tensor({ 0.5, 0, -0.5 }), 1e-6, 'weight -= 0.5 * x')
end

tester:add(tests)
tester:run()
