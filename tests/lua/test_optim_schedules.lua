-- Learning-rate schedules (optim.lr.*) against their formulas and PyTorch 1.13's values, driving
-- both an optimizer object and a functional config table; state()/loadState(); errors.
require 'optim'
local tester = torch.Tester()
local tests = torch.TestSuite()

-- Rates a schedule gives over n steps, with an optim.SGD and with a config table for optim.sgd.
local function trace(make, n, base)
  base = base or 0.1
  local p = torch.DoubleTensor({ 0 })
  local opt = optim.SGD({ p }, { lr = base })
  local config = { learningRate = base }
  local so, sc = make(opt), make(config)
  local a, b = { opt.paramGroups[1].lr }, { config.learningRate }
  for _ = 1, n do
    p.grad = torch.DoubleTensor({ 1 })
    opt:step()
    optim.sgd(function(x) return 0, x.new({ 1 }) end, torch.DoubleTensor({ 0 }), config)
    so:step()
    sc:step()
    a[#a + 1] = opt.paramGroups[1].lr
    b[#b + 1] = config.learningRate
  end
  tester:eq(so:getLastLr()[1], a[#a], 0)
  return a, b
end

local function check(name, make, n, formula, base, tol)
  local a, b = trace(make, n, base)
  for e = 0, n do
    tester:assertalmosteq(a[e + 1], formula(e), tol or 1e-15, name .. ' (object) at epoch ' .. e)
    tester:asserteq(b[e + 1], a[e + 1], name .. ' (config) at epoch ' .. e)
  end
end

function tests.closedForms()
  check('StepLR', function(t) return optim.lr.StepLR(t, { stepSize = 3, gamma = 0.5 }) end, 10,
        function(e) return 0.1 * 0.5 ^ math.floor(e / 3) end)
  check('MultiStepLR', function(t) return optim.lr.MultiStepLR(t, { milestones = { 2, 5, 6 }, gamma = 0.1 }) end, 8,
        function(e) return 0.1 * 0.1 ^ ((e >= 2 and 1 or 0) + (e >= 5 and 1 or 0) + (e >= 6 and 1 or 0)) end)
  check('ExponentialLR', function(t) return optim.lr.ExponentialLR(t, { gamma = 0.9 }) end, 8,
        function(e) return 0.1 * 0.9 ^ e end)
  check('LinearWarmup', function(t) return optim.lr.LinearWarmup(t, { warmupSteps = 4, startFactor = 0.2 }) end, 7,
        function(e) return e < 4 and 0.1 * (0.2 + 0.8 * e / 4) or 0.1 end)
  check('LinearWarmup + cosine', function(t)
    local cos = optim.lr.CosineAnnealingLR(t, { tMax = 4 })
    return optim.lr.LinearWarmup(t, { warmupSteps = 2, after = cos })
  end, 8, function(e)
    if e < 2 then return 0.1 * e / 2 end
    return 0.1 * (1 + math.cos(math.pi * (e - 2) / 4)) / 2
  end, 0.1, 1e-15)
end

-- /usr/bin/python3, torch 1.13, SGD(lr=0.1) and the schedule, rates after each step.
function tests.matchesPyTorch()
  local cos = { 0.1, 0.09140576474687263, 0.06890576474687263, 0.04109423525312736, 0.018594235253127367, 0.01,
                0.018594235253127367, 0.04109423525312739, 0.06890576474687267, 0.09140576474687269,
                0.10000000000000006, 0.09140576474687272, 0.06890576474687268 }
  local a = trace(function(t) return optim.lr.CosineAnnealingLR(t, { tMax = 5, etaMin = 0.01 }) end, 12)
  for i, v in ipairs(cos) do tester:assertalmosteq(a[i], v, 1e-12, 'cosine ' .. i) end
  local warm = { 0.1, 0.0775, 0.032500000000000015, 0.1, 0.09397114317029975, 0.0775, 0.05500000000000001,
                 0.032500000000000015, 0.01602885682970026, 0.1, 0.09846666218300808, 0.09397114317029975,
                 0.08681980515339464, 0.0775, 0.06664685702961344, 0.05500000000000001, 0.04335314297038658,
                 0.032500000000000015, 0.023180194846605363, 0.01602885682970026, 0.011533337816991932 }
  a = trace(function(t) return optim.lr.CosineAnnealingWarmRestarts(t, { t0 = 3, tMult = 2, etaMin = 0.01 }) end, 20)
  for i, v in ipairs(warm) do tester:assertalmosteq(a[i], v, 1e-12, 'warm restarts ' .. i) end
  a = trace(function(t) return optim.lr.CosineAnnealingLR(t, { tMax = 3, tMult = 2, etaMin = 0.01, restarts = true }) end, 20)
  for i, v in ipairs(warm) do tester:assertalmosteq(a[i], v, 1e-12, 'restarts ' .. i) end
  local one = { 0.09999999999999998, 0.55, 1.0, 0.9505339495172583, 0.8119331560284374, 0.611649206511179,
                0.389350793488821, 0.18906684397156262, 0.05046605048274169, 0.001 }
  a = trace(function(t)
    return optim.lr.OneCycleLR(t, { maxLr = 1, totalSteps = 10, pctStart = 0.3, divFactor = 10, finalDivFactor = 100 })
  end, 9)
  for i, v in ipairs(one) do tester:assertalmosteq(a[i], v, 1e-12, 'one cycle ' .. i) end
  local three = { 0.04, 0.4092307692307693, 0.7784615384615386, 0.8523076923076922, 0.48307692307692296,
                  0.1138461538461536, 0.03448331034482758, 0.027587448275862066, 0.020691586206896546,
                  0.01379572413793103, 0.0068998620689655135, 3.9999999999970615e-06 }
  a = trace(function(t)
    return optim.lr.OneCycleLR(t, { maxLr = 1, epochs = 3, stepsPerEpoch = 4, annealStrategy = 'linear', threePhase = true })
  end, 11)
  for i, v in ipairs(three) do tester:assertalmosteq(a[i], v, 1e-12, 'three phases ' .. i) end
end

local function plateau(metrics, options)
  local config = { learningRate = 1 }
  local s = optim.lr.ReduceLROnPlateau(config, options)
  local r = {}
  for _, m in ipairs(metrics) do s:step(m) r[#r + 1] = config.learningRate end
  return r
end

function tests.reduceOnPlateau()
  local got = plateau({ 10, 9, 9.5, 9.2, 9.1, 9.0, 8.0, 8.5, 8.4, 8.3, 8.2, 8.1, 8.05, 8.3, 8.2 },
                      { patience = 2, factor = 0.5, cooldown = 1, minLr = 0.1 })
  local want = { 1.0, 1.0, 1.0, 1.0, 0.5, 0.5, 0.5, 0.5, 0.5, 0.25, 0.25, 0.25, 0.25, 0.125, 0.125 }
  for i = 1, #want do tester:assertalmosteq(got[i], want[i], 1e-15, 'min/rel ' .. i) end
  got = plateau({ 1, 2, 2.5, 2.55, 2.58, 2.6, 3, 3, 3, 3 },
                { mode = 'max', threshold = 0.1, thresholdMode = 'abs', patience = 1, factor = 0.1 })
  want = { 1.0, 1.0, 1.0, 1.0, 0.1, 0.1, 0.1, 0.1, 0.01, 0.01 }
  for i = 1, #want do tester:assertalmosteq(got[i], want[i], 1e-15, 'max/abs ' .. i) end
  -- the floor: never below minLr
  got = plateau({ 5, 5, 5, 5, 5, 5, 5, 5 }, { patience = 0, factor = 0.5, minLr = 0.2 })
  tester:assertalmosteq(got[#got], 0.2, 1e-15)
  -- with an optimizer object, per group
  local p1, p2 = torch.DoubleTensor({ 1 }), torch.DoubleTensor({ 1 })
  local opt = optim.Adam({ { params = { p1 } }, { params = { p2 }, lr = 0.01 } }, { lr = 0.1 })
  local s = optim.lr.ReduceLROnPlateau(opt, { patience = 0 })
  s:step(torch.DoubleTensor({ 1 }):sum())
  s:step(2)
  tester:assertalmosteq(opt.paramGroups[1].lr, 0.01, 1e-15)
  tester:assertalmosteq(opt.paramGroups[2].lr, 0.001, 1e-15)
end

function tests.stateRoundTrip()
  local makers = {
    function(t) return optim.lr.StepLR(t, { stepSize = 2 }) end,
    function(t) return optim.lr.OneCycleLR(t, { maxLr = 1, totalSteps = 20 }) end,
    function(t) return optim.lr.CosineAnnealingWarmRestarts(t, { t0 = 2, tMult = 3 }) end,
    function(t) return optim.lr.LinearWarmup(t, { warmupSteps = 3, after = optim.lr.ExponentialLR(t, { gamma = 0.5 }) }) end,
    function(t) return optim.lr.ReduceLROnPlateau(t, { patience = 1 }) end,
  }
  for k, make in ipairs(makers) do
    local c1 = { learningRate = 0.1 }
    local s1 = make(c1)
    local function advance(s, i) if k == 5 then s:step(10 - (i % 3)) else s:step() end end
    for i = 1, 5 do advance(s1, i) end
    local saved = torch.deserialize(torch.serialize(s1:state()))
    local c2 = { learningRate = 0.1 }
    local s2 = make(c2)
    s2:loadState(saved)
    tester:asserteq(c2.learningRate, c1.learningRate, 'restored rate ' .. k)
    for i = 6, 10 do advance(s1, i) advance(s2, i) end
    tester:asserteq(c2.learningRate, c1.learningRate, 'continued rate ' .. k)
  end
end

function tests.errors()
  local c = { learningRate = 0.1 }
  tester:assertErrorPattern(function() optim.lr.StepLR(c, {}) end, 'stepSize is required')
  tester:assertErrorPattern(function() optim.lr.StepLR(c, { stepSize = 2, gama = 0.5 }) end, "unknown option 'gama' %(did you mean 'gamma'%?%)")
  tester:assertErrorPattern(function() optim.lr.StepLR(c, { stepSize = 0 }) end, 'stepSize must be a positive integer')
  tester:assertErrorPattern(function() optim.lr.ExponentialLR({}, { gamma = 0.5 }) end, 'needs a learningRate')
  tester:assertErrorPattern(function() optim.lr.ExponentialLR(3, { gamma = 0.5 }) end, 'expected an optimizer')
  tester:assertErrorPattern(function() optim.lr.MultiStepLR(c, { milestones = { 3, 2 } }) end, 'increasing')
  tester:assertErrorPattern(function() optim.lr.OneCycleLR(c, { maxLr = 1 }) end, 'totalSteps')
  tester:assertErrorPattern(function() optim.lr.ReduceLROnPlateau(c, { mode = 'up' }) end, "mode must be 'min' or 'max'")
  tester:assertErrorPattern(function() optim.lr.ReduceLROnPlateau(c):step() end, 'needs the monitored value')
  local one = optim.lr.OneCycleLR(c, { maxLr = 1, totalSteps = 2 })
  one:step()
  one:step()  -- one step per batch, totalSteps times, as PyTorch allows (Note [OneCycleLR's last step])
  tester:assertErrorPattern(function() one:step() end, 'more than totalSteps')
  tester:assertErrorPattern(function()
    optim.lr.LinearWarmup(c, { warmupSteps = 2, after = optim.lr.ReduceLROnPlateau(c) })
  end, 'not ReduceLROnPlateau')
  tester:assertErrorPattern(function() optim.lr.StepLR(c, { stepSize = 1 }):loadState({ type = 'x' }) end, 'loadState expects')
end

-- Momentum cycling (PyTorch's cycle_momentum): the momenta PyTorch sets, read before each step.
-- PyTorch 1.13's CyclicLR cycles only `momentum`; beta1 follows its 2.x (checked with OneCycleLR's).
local function momenta(opt, sched, n, get)
  local r = {}
  for i = 1, n do
    r[i] = get(opt.paramGroups[1])
    tester:asserteq(sched:getLastMomentum()[1], r[i])
    if i < n then sched:step() end
  end
  return r
end

function tests.momentumCycles()
  local function near(got, want, what)
    for i, v in ipairs(want) do tester:assertalmosteq(got[i], v, 1e-12, what .. ' at step ' .. (i - 1)) end
  end
  local p = torch.DoubleTensor({ 0 })
  local function mom(g) return g.momentum end
  local function beta1(g) return g.betas[1] end
  -- CyclicLR(SGD(momentum=0.5), base_lr=0.01, max_lr=0.1, step_size_up=3, step_size_down=2, mode='triangular2')
  local sgd = optim.SGD({ p }, { lr = 0.1, momentum = 0.5 })
  near(momenta(sgd, optim.lr.CyclicLR(sgd, { baseLr = 0.01, maxLr = 0.1, stepSizeUp = 3, stepSizeDown = 2,
    mode = 'triangular2' }), 12, mom), { 0.9, 0.8666666666666667, 0.8333333333333334, 0.8, 0.8500000000000001, 0.9,
    0.8833333333333333, 0.8666666666666667, 0.8500000000000001, 0.875, 0.9, 0.8916666666666667 }, 'CyclicLR')
  -- CyclicLR(RMSprop(momentum=0.3), step_size_up=2, base_momentum=0.7, max_momentum=0.95, mode='exp_range', gamma=0.9)
  local rms = optim.RMSprop({ p }, { lr = 0.1, momentum = 0.3 })
  near(momenta(rms, optim.lr.CyclicLR(rms, { baseLr = 0.01, maxLr = 0.1, stepSizeUp = 2, baseMomentum = 0.7,
    maxMomentum = 0.95, mode = 'expRange', gamma = 0.9 }), 8, mom), { 0.95, 0.8374999999999999, 0.7474999999999999,
    0.8588749999999999, 0.95, 0.87618875, 0.8171397499999999, 0.8902128874999999 }, 'CyclicLR expRange')
  -- OneCycleLR(SGD(momentum=0.5), max_lr=1, total_steps=10, pct_start=0.3)
  sgd = optim.SGD({ p }, { lr = 0.1, momentum = 0.5 })
  near(momenta(sgd, optim.lr.OneCycleLR(sgd, { maxLr = 1, totalSteps = 10 }), 10, mom), { 0.95, 0.8999999999999999,
    0.85, 0.854951556604879, 0.8688255099070633, 0.8888739533021842, 0.9111260466978157, 0.9311744900929366,
    0.945048443395121, 0.95 }, 'OneCycleLR')
  -- OneCycleLR(Adam(betas=(0.9, 0.99)), max_lr=1, epochs=3, steps_per_epoch=4, anneal_strategy='linear', three_phase=True)
  local adam = optim.Adam({ p }, { lr = 0.1, betas = { 0.9, 0.99 } })
  local shared = adam.paramGroups[1].betas
  near(momenta(adam, optim.lr.OneCycleLR(adam, { maxLr = 1, epochs = 3, stepsPerEpoch = 4, annealStrategy = 'linear',
    threePhase = true }), 12, beta1), { 0.95, 0.9115384615384615, 0.8730769230769231, 0.8653846153846154,
    0.9038461538461539, 0.9423076923076923, 0.95, 0.95, 0.95, 0.95, 0.95, 0.95 }, 'OneCycleLR betas')
  tester:asserteq(adam.paramGroups[1].betas[2], 0.99)
  tester:asserteq(shared[1], 0.9, 'the group gets a new betas table')
  -- a functional config: optim.sgd's momentum, optim.adam's beta1
  local c = { learningRate = 0.1, momentum = 0.9 }
  optim.lr.CyclicLR(c, { baseLr = 0.01, maxLr = 0.1, stepSizeUp = 2 }):step()
  tester:assertalmosteq(c.momentum, 0.85, 1e-15)
  local ca = { learningRate = 0.1, beta1 = 0.9 }
  optim.lr.OneCycleLR(ca, { maxLr = 1, totalSteps = 10, baseMomentum = 0.5 })
  tester:asserteq(ca.beta1, 0.95)
  -- no momentum anywhere: not cycled by default, an error when asked for
  local plain = { learningRate = 0.1 }
  local s = optim.lr.CyclicLR(plain, { baseLr = 0.01, maxLr = 0.1 })
  tester:asserteq(s:getLastMomentum(), nil)
  tester:asserteq(plain.momentum, nil)
  local ada = optim.Adagrad({ p }, { lr = 0.1 })
  tester:assertErrorPattern(function() optim.lr.OneCycleLR(ada, { maxLr = 1, totalSteps = 5, cycleMomentum = true }) end,
    'cycleMomentum needs a momentum')
  tester:assertErrorPattern(function() optim.lr.CyclicLR(sgd, { baseLr = 0.01, maxLr = 0.1, maxMomentum = 1.5 }) end,
    'maxMomentum must be a number in %[0, 1%)')
  -- off on request: the momentum stays
  sgd = optim.SGD({ p }, { lr = 0.1, momentum = 0.5 })
  optim.lr.CyclicLR(sgd, { baseLr = 0.01, maxLr = 0.1, cycleMomentum = false }):step()
  tester:asserteq(sgd.paramGroups[1].momentum, 0.5)
  -- state() / loadState() carry the cycle
  local a = optim.SGD({ p }, { lr = 0.1, momentum = 0.5 })
  local sa = optim.lr.CyclicLR(a, { baseLr = 0.01, maxLr = 0.1, stepSizeUp = 4 })
  sa:step(); sa:step()
  local b = optim.SGD({ p }, { lr = 0.1, momentum = 0.5 })
  optim.lr.CyclicLR(b, { baseLr = 0.01, maxLr = 0.1, stepSizeUp = 4 }):loadState(sa:state())
  tester:asserteq(b.paramGroups[1].momentum, a.paramGroups[1].momentum)
end

tester:add(tests)
tester:run()
