-- The chainable schedules (optim.lr.ConstantLR, LinearLR) alone and inside optim.lr.SequentialLR
-- and optim.lr.ChainedScheduler with ExponentialLR, StepLR and CosineAnnealingLR, against PyTorch
-- 1.13's rates, for an optimizer with two parameter groups and for a config table; state round
-- trips of the composites; errors.
require 'optim'
local tester = torch.Tester()
local tests = torch.TestSuite()

-- PyTorch 1.13's rates (/usr/bin/python3, torch.optim.SGD with groups lr=0.1 and lr=0.05, the
-- schedule built the same way; the rate after construction, then after each of 20 steps).
local R = {}
R.linear = {
  { 0.025, 0.043750000000000004, 0.06250000000000001, 0.08125000000000002, 0.10000000000000002,
    0.10000000000000002, 0.10000000000000002, 0.10000000000000002, 0.10000000000000002, 0.10000000000000002,
    0.10000000000000002, 0.10000000000000002, 0.10000000000000002, 0.10000000000000002, 0.10000000000000002,
    0.10000000000000002, 0.10000000000000002, 0.10000000000000002, 0.10000000000000002, 0.10000000000000002,
    0.10000000000000002 },
  { 0.0125, 0.021875000000000002, 0.03125000000000001, 0.04062500000000001, 0.05000000000000001,
    0.05000000000000001, 0.05000000000000001, 0.05000000000000001, 0.05000000000000001, 0.05000000000000001,
    0.05000000000000001, 0.05000000000000001, 0.05000000000000001, 0.05000000000000001, 0.05000000000000001,
    0.05000000000000001, 0.05000000000000001, 0.05000000000000001, 0.05000000000000001, 0.05000000000000001,
    0.05000000000000001 },
}
R.lineardown = {
  { 0.1, 0.09166666666666667, 0.08333333333333334, 0.07500000000000001, 0.06666666666666668, 0.05833333333333335,
    0.05000000000000002, 0.05000000000000002, 0.05000000000000002, 0.05000000000000002, 0.05000000000000002,
    0.05000000000000002, 0.05000000000000002, 0.05000000000000002, 0.05000000000000002, 0.05000000000000002,
    0.05000000000000002, 0.05000000000000002, 0.05000000000000002, 0.05000000000000002, 0.05000000000000002 },
  { 0.05, 0.04583333333333334, 0.04166666666666667, 0.037500000000000006, 0.03333333333333334,
    0.029166666666666674, 0.02500000000000001, 0.02500000000000001, 0.02500000000000001, 0.02500000000000001,
    0.02500000000000001, 0.02500000000000001, 0.02500000000000001, 0.02500000000000001, 0.02500000000000001,
    0.02500000000000001, 0.02500000000000001, 0.02500000000000001, 0.02500000000000001, 0.02500000000000001,
    0.02500000000000001 },
}
R.constant = {
  { 0.05, 0.05, 0.05, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1 },
  { 0.025, 0.025, 0.025, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05, 0.05,
    0.05, 0.05, 0.05 },
}
R.seq_lin_exp = {
  { 0.025, 0.043750000000000004, 0.06250000000000001, 0.08125000000000002, 0.1, 0.09000000000000001,
    0.08100000000000002, 0.07290000000000002, 0.06561000000000002, 0.05904900000000002, 0.05314410000000002,
    0.04782969000000002, 0.043046721000000024, 0.03874204890000002, 0.03486784401000002, 0.03138105960900001,
    0.028242953648100012, 0.025418658283290013, 0.022876792454961013, 0.020589113209464913, 0.01853020188851842 },
  { 0.0125, 0.021875000000000002, 0.03125000000000001, 0.04062500000000001, 0.05, 0.045000000000000005,
    0.04050000000000001, 0.03645000000000001, 0.03280500000000001, 0.02952450000000001, 0.02657205000000001,
    0.02391484500000001, 0.021523360500000012, 0.01937102445000001, 0.01743392200500001, 0.015690529804500006,
    0.014121476824050006, 0.012709329141645007, 0.011438396227480507, 0.010294556604732457, 0.00926510094425921 },
}
R.seq3 = {
  { 0.010000000000000002, 0.010000000000000002, 0.1, 0.1, 0.1, 0.05, 0.05, 0.05, 0.1, 0.09140576474687263,
    0.06890576474687263, 0.04109423525312736, 0.018594235253127367, 0.01, 0.018594235253127367,
    0.04109423525312739, 0.06890576474687267, 0.09140576474687269, 0.10000000000000006, 0.09140576474687272,
    0.06890576474687268 },
  { 0.005000000000000001, 0.005000000000000001, 0.05, 0.05, 0.05, 0.025, 0.025, 0.025, 0.05, 0.04618033988749895,
    0.03618033988749895, 0.02381966011250105, 0.013819660112501053, 0.01, 0.013819660112501051,
    0.023819660112501057, 0.03618033988749896, 0.04618033988749897, 0.050000000000000024, 0.046180339887498985,
    0.03618033988749897 },
}
R.chain_lin_exp = {
  { 0.025, 0.03937500000000001, 0.05062500000000001, 0.05923125000000001, 0.06561000000000002,
    0.05904900000000002, 0.05314410000000002, 0.04782969000000002, 0.043046721000000024, 0.03874204890000002,
    0.03486784401000002, 0.03138105960900001, 0.028242953648100012, 0.025418658283290013, 0.022876792454961013,
    0.020589113209464913, 0.01853020188851842, 0.01667718169966658, 0.015009463529699923, 0.013508517176729932,
    0.01215766545905694 },
  { 0.0125, 0.019687500000000004, 0.025312500000000005, 0.029615625000000007, 0.03280500000000001,
    0.02952450000000001, 0.02657205000000001, 0.02391484500000001, 0.021523360500000012, 0.01937102445000001,
    0.01743392200500001, 0.015690529804500006, 0.014121476824050006, 0.012709329141645007, 0.011438396227480507,
    0.010294556604732457, 0.00926510094425921, 0.00833859084983329, 0.007504731764849962, 0.006754258588364966,
    0.00607883272952847 },
}
R.chain_const_cos = {
  { 0.05, 0.046717622392718754, 0.037750000000000006, 0.05066666666666667, 0.025833333333333347,
    0.007654071612039545, 0.001, 0.007631742512670284, 0.025750000000000002, 0.05050000000000004,
    0.07525000000000008, 0.0933682574873298, 0.1000000000000001, 0.09336825748732981, 0.07525000000000011,
    0.050500000000000114, 0.025750000000000068, 0.007631742512670285, 0.001, 0.007631742512670284,
    0.025750000000000096 },
  { 0.025, 0.023392304845413266, 0.019000000000000003, 0.02566666666666667, 0.01333333333333334,
    0.004304706706650512, 0.001, 0.004282377607281252, 0.013250000000000001, 0.02550000000000002,
    0.03775000000000004, 0.04671762239271879, 0.05000000000000005, 0.046717622392718795, 0.037750000000000054,
    0.025500000000000054, 0.013250000000000033, 0.004282377607281252, 0.001, 0.004282377607281252,
    0.013250000000000046 },
}
R.chain_const_step = {
  { 0.05, 0.05, 0.05, 0.1, 0.05, 0.05, 0.05, 0.05, 0.025, 0.025, 0.025, 0.025, 0.0125, 0.0125, 0.0125, 0.0125,
    0.00625, 0.00625, 0.00625, 0.00625, 0.003125 },
  { 0.025, 0.025, 0.025, 0.05, 0.025, 0.025, 0.025, 0.025, 0.0125, 0.0125, 0.0125, 0.0125, 0.00625, 0.00625,
    0.00625, 0.00625, 0.003125, 0.003125, 0.003125, 0.003125, 0.0015625 },
}

local function sgd2()
  local p1, p2 = torch.DoubleTensor({ 0 }), torch.DoubleTensor({ 0 })
  return optim.SGD({ { params = { p1 } }, { params = { p2 }, lr = 0.05 } }, { lr = 0.1 }), p1, p2
end

-- The rates a schedule built by make(target) sets over n steps: per group of an optimizer with two
-- groups (stepped after opt:step(), as PyTorch wants), and for a config table driving optim.sgd.
local function trace(make, n)
  local opt, p1, p2 = sgd2()
  local config = { learningRate = 0.1 }
  local so, sc = make(opt), make(config)
  local a, b, c = { opt.paramGroups[1].lr }, { opt.paramGroups[2].lr }, { config.learningRate }
  for _ = 1, n do
    p1.grad, p2.grad = torch.DoubleTensor({ 1 }), torch.DoubleTensor({ 1 })
    opt:step()
    optim.sgd(function(x) return 0, x.new({ 1 }) end, torch.DoubleTensor({ 0 }), config)
    so:step()
    sc:step()
    a[#a + 1], b[#b + 1], c[#c + 1] = opt.paramGroups[1].lr, opt.paramGroups[2].lr, config.learningRate
    tester:asserteq(so:getLastLr()[2], opt.paramGroups[2].lr)
  end
  return a, b, c
end

local function check(name, make, want)
  local a, b, c = trace(make, #want[1] - 1)
  for e = 1, #want[1] do
    tester:assertalmosteq(a[e], want[1][e], 1e-14, name .. ' group 1 at epoch ' .. (e - 1))
    tester:assertalmosteq(b[e], want[2][e], 1e-14, name .. ' group 2 at epoch ' .. (e - 1))
    tester:assertalmosteq(c[e], want[1][e], 1e-14, name .. ' config at epoch ' .. (e - 1))
  end
end

local L = optim.lr
local makers = {
  linear = function(t) return L.LinearLR(t, { startFactor = 0.25, endFactor = 1, totalIters = 4 }) end,
  lineardown = function(t) return L.LinearLR(t, { startFactor = 1, endFactor = 0.5, totalIters = 6 }) end,
  constant = function(t) return L.ConstantLR(t, { factor = 0.5, totalIters = 3 }) end,
  seq_lin_exp = function(t)
    return L.SequentialLR(t, { schedulers = { L.LinearLR(t, { startFactor = 0.25, totalIters = 4 }),
                                              L.ExponentialLR(t, { gamma = 0.9 }) }, milestones = { 4 } })
  end,
  seq3 = function(t)
    return L.SequentialLR(t, { schedulers = { L.ConstantLR(t, { factor = 0.1, totalIters = 2 }),
                                              L.StepLR(t, { stepSize = 3, gamma = 0.5 }),
                                              L.CosineAnnealingLR(t, { tMax = 5, etaMin = 0.01 }) },
                               milestones = { 2, 8 } })
  end,
  chain_lin_exp = function(t)
    return L.ChainedScheduler({ L.LinearLR(t, { startFactor = 0.25, totalIters = 4 }), L.ExponentialLR(t, { gamma = 0.9 }) })
  end,
  chain_const_cos = function(t)
    return L.ChainedScheduler({ L.ConstantLR(t, { factor = 0.5, totalIters = 3 }),
                                L.CosineAnnealingLR(t, { tMax = 6, etaMin = 0.001 }) })
  end,
  chain_const_step = function(t)
    return L.ChainedScheduler({ L.ConstantLR(t, { factor = 0.5, totalIters = 3 }), L.StepLR(t, { stepSize = 4, gamma = 0.5 }) })
  end,
}

function tests.alone()
  for _, k in ipairs({ 'linear', 'lineardown', 'constant' }) do check(k, makers[k], R[k]) end
  -- the defaults are PyTorch's: factor 1/3 over 5 steps
  local c = { learningRate = 0.3 }
  local s = L.ConstantLR(c)
  tester:assertalmosteq(c.learningRate, 0.1, 1e-15)
  for _ = 1, 5 do s:step() end
  tester:assertalmosteq(c.learningRate, 0.3, 1e-15)
  -- the recursive rule and the closed form agree
  local lin = L.LinearLR({ learningRate = 0.3 }, { totalIters = 7 })
  for e = 1, 10 do
    lin:step()
    tester:assertalmosteq(lin:getLastLr()[1], lin:lrAt(e, 1), 1e-15, 'closed form ' .. e)
  end
end

function tests.sequential()
  check('seq_lin_exp', makers.seq_lin_exp, R.seq_lin_exp)
  check('seq3', makers.seq3, R.seq3)
  -- PyTorch's docstring example: ConstantLR(0.1, 2) then ExponentialLR(0.9) from lr 1; 1.13 restarts
  -- the exponential at 1.0 at the milestone (the docstring says 0.9)
  local c = { learningRate = 1 }
  local s = L.SequentialLR(c, { schedulers = { L.ConstantLR(c, { factor = 0.1, totalIters = 2 }),
                                               L.ExponentialLR(c, { gamma = 0.9 }) }, milestones = { 2 } })
  local want = { 0.1, 0.1, 1.0, 0.9, 0.81 }
  for e = 1, #want do
    tester:assertalmosteq(c.learningRate, want[e], 1e-15, 'docstring example ' .. e)
    s:step()
  end
end

function tests.chained()
  for _, k in ipairs({ 'chain_lin_exp', 'chain_const_cos', 'chain_const_step' }) do check(k, makers[k], R[k]) end
end

-- More orders and kinds (PyTorch 1.13, one group of lr 0.1, 12 steps): a chainable schedule after
-- a closed-form one in SequentialLR; MultiStepLR, LinearLR and PolynomialLR chained; the cosine
-- first in a chain (its recursive rule with etaMin past tMax).
function tests.moreCompositions()
  local want = {
    { 0.1, 0.08000000000000002, 0.06400000000000002, 0.05, 0.04000000000000001, 0.030000000000000006,
      0.020000000000000007, 0.020000000000000007, 0.020000000000000007, 0.020000000000000007,
      0.020000000000000007, 0.020000000000000007, 0.020000000000000007 },
    { 0.05, 0.051041666666666666, 0.023437499999999997, 0.019531249999999997, 0.0125, 0.003515625,
      0.0015624999999999999, 0.00039062499999999997, 0.0, 0.0, 0.0, 0.0, 0.0 },
    { 0.05, 0.05666666666666667, 0.04027777777777779, 0.024, 0.044, 0.09200000000000005, 0.11600000000000006,
      0.09200000000000007, 0.04400000000000005, 0.02, 0.039999999999999994, 0.07999999999999992,
      0.09999999999999994 },
  }
  local makes = {
    function(o)
      return L.SequentialLR(o, { schedulers = { L.ExponentialLR(o, { gamma = 0.8 }),
        L.LinearLR(o, { startFactor = 0.5, endFactor = 0.2, totalIters = 3 }) }, milestones = { 3 } })
    end,
    function(o)
      return L.ChainedScheduler({ L.MultiStepLR(o, { milestones = { 2, 5 }, gamma = 0.5 }),
        L.LinearLR(o, { startFactor = 0.5, totalIters = 3 }), L.PolynomialLR(o, { totalIters = 8, power = 2 }) })
    end,
    function(o)
      return L.ChainedScheduler({ L.CosineAnnealingLR(o, { tMax = 3, etaMin = 0.02 }),
        L.LinearLR(o, { startFactor = 0.5, totalIters = 3 }) })
    end,
  }
  for k, make in ipairs(makes) do
    local c = { learningRate = 0.1 }
    local s = make(c)
    for e = 1, #want[k] do
      tester:assertalmosteq(c.learningRate, want[k][e], 1e-14, 'case ' .. k .. ' at epoch ' .. (e - 1))
      s:step()
    end
  end
end

function tests.stateRoundTrip()
  for _, k in ipairs({ 'linear', 'constant', 'seq_lin_exp', 'seq3', 'chain_lin_exp', 'chain_const_cos' }) do
    local c1 = { learningRate = 0.1 }
    local s1 = makers[k](c1)
    for _ = 1, 6 do s1:step() end
    local saved = torch.deserialize(torch.serialize(s1:state()))
    local c2 = { learningRate = 0.1 }
    local s2 = makers[k](c2)
    s2:step()
    s2:loadState(saved)
    tester:asserteq(c2.learningRate, c1.learningRate, 'restored rate ' .. k)
    tester:asserteq(s2.lastEpoch, 6, 'restored epoch ' .. k)
    for e = 7, 14 do
      s1:step()
      s2:step()
      tester:asserteq(c2.learningRate, c1.learningRate, 'continued rate ' .. k .. ' at ' .. e)
      tester:assertalmosteq(c2.learningRate, R[k][1][e + 1], 1e-14, 'PyTorch rate ' .. k .. ' at ' .. e)
    end
  end
  -- the optimizer object: both groups come back
  local o1 = sgd2()
  local s1 = makers.seq3(o1)
  for _ = 1, 9 do s1:step() end
  local o2 = sgd2()
  local s2 = makers.seq3(o2)
  s2:loadState(s1:state())
  tester:asserteq(o2.paramGroups[1].lr, R.seq3[1][10])
  tester:asserteq(o2.paramGroups[2].lr, R.seq3[2][10])
end

function tests.errors()
  local c, d = { learningRate = 0.1 }, { learningRate = 0.1 }
  local function exp(t) return L.ExponentialLR(t, { gamma = 0.9 }) end
  tester:assertErrorPattern(function() L.LinearLR(c, { startFactor = 0 }) end, 'optim.lr.LinearLR.*startFactor must be a number in %(0, 1%]')
  tester:assertErrorPattern(function() L.LinearLR(c, { endFactor = 1.5 }) end, 'optim.lr.LinearLR.*endFactor must be')
  tester:assertErrorPattern(function() L.LinearLR(c, { totalIters = 0 }) end, 'totalIters must be a positive integer')
  tester:assertErrorPattern(function() L.ConstantLR(c, { factor = 1.2 }) end, 'optim.lr.ConstantLR.*factor must be a number in %(0, 1%]')
  tester:assertErrorPattern(function() L.ConstantLR(c, { factor = 0 }) end, 'optim.lr.ConstantLR.*factor')
  tester:assertErrorPattern(function() L.ConstantLR(c, { factr = 0.5 }) end, "unknown option 'factr'")
  tester:assertErrorPattern(function()
    L.SequentialLR(c, { schedulers = { exp(c), exp(c) }, milestones = { 2, 4 } })
  end, 'optim.lr.SequentialLR.*2 schedulers and 2 milestones')
  tester:assertErrorPattern(function()
    L.SequentialLR(c, { schedulers = { exp(c), exp(c), exp(c) }, milestones = { 4, 4 } })
  end, 'optim.lr.SequentialLR.*milestones must be increasing')
  tester:assertErrorPattern(function()
    L.SequentialLR(c, { schedulers = { exp(c), exp(c) }, milestones = { 0 } })
  end, 'optim.lr.SequentialLR.*milestones%[1%] must be a positive integer')
  tester:assertErrorPattern(function()
    L.SequentialLR(c, { schedulers = { exp(c), exp(d) }, milestones = { 2 } })
  end, 'optim.lr.SequentialLR.*schedulers%[2%] drives another')
  tester:assertErrorPattern(function()
    L.SequentialLR(d, { schedulers = { exp(c), exp(c) }, milestones = { 2 } })
  end, 'optim.lr.SequentialLR.*than the target')
  tester:assertErrorPattern(function() L.SequentialLR(c, { schedulers = {}, milestones = {} }) end, 'non%-empty list')
  tester:assertErrorPattern(function()
    L.SequentialLR(c, { schedulers = { L.ReduceLROnPlateau(c), exp(c) }, milestones = { 2 } })
  end, 'schedulers%[1%] must be a schedule with a formula')
  tester:assertErrorPattern(function() L.ChainedScheduler({ exp(c), exp(d) }) end, 'optim.lr.ChainedScheduler.*schedulers%[2%] drives another')
  tester:assertErrorPattern(function() L.ChainedScheduler({ exp(c), 3 }) end, 'optim.lr.ChainedScheduler.*got number')
  local s = L.ChainedScheduler({ exp(c) })
  tester:assertErrorPattern(function() s:loadState(L.SequentialLR(c, { schedulers = { exp(c) }, milestones = {} }):state()) end,
                            'loadState expects the state of a optim.lr.ChainedScheduler')
  tester:assertErrorPattern(function() s:loadState(L.ChainedScheduler({ exp(c), exp(c) }):state()) end, 'states of 1 schedules')
end

tester:add(tests):run()
