-- Regression tests from the review of optim (2026-11-28): the optimizer objects against PyTorch
-- 1.13's trajectories for every option, the learning-rate schedules against PyTorch 1.13
-- (schedules stepped back to back, OneCycleLR's last step, resumed runs), and the bugs found:
-- OneCycleLR refusing its totalSteps-th step, back-to-back schedules overwriting each other,
-- LambdaLR states that torch.save refused, NAdam/RAdam diverging on half parameters, a
-- parameter listed twice in a group stepped twice, PyTorch's foreach option refused, and
-- optim.LBFGS's 'strong_wolfe' search leaving PyTorch's trajectory.
require 'optim'
local tester = torch.Tester()
local tests = torch.TestSuite()
local D = torch.DoubleTensor

-- The problem of every trajectory: f(x) = sum(c x^2/2 + b x + 0.05 x^4) over 7 values, held by a
-- 2x2 and a 3-element parameter; grads() sets their .grad to df/dx.
local C = D{ 1.0, 2.0, 0.5, 3.0, 1.5, 0.7, 2.5 }
local B = D{ 0.5, -1.0, 0.25, 0.0, -0.3, 0.8, -0.6 }
local X0 = { 1.0, -2.0, 3.0, 0.5, -1.5, 0.2, 0.9 }
local function params()
  return { D{ X0[1], X0[2], X0[3], X0[4] }:view(2, 2), D{ X0[5], X0[6], X0[7] } }
end
local function flat(ps) return torch.cat(ps[1]:view(-1), ps[2]:view(-1)) end
local function grads(ps)
  local x = flat(ps)
  local g = torch.cmul(C, x):add(B):add(0.2, torch.pow(x, 3))
  ps[1].grad = g:narrow(1, 1, 4):view(2, 2):clone()
  ps[2].grad = g:narrow(1, 5, 3):clone()
end

-- {class, options, groups (options of the two parameters' groups) or nil, parameters after 5 steps
-- (8 for RAdam)}: PyTorch 1.13's torch.optim in float64 on the same problem; Adam and AdamW with
-- epsMode = 'pytorch' (eps added after the bias correction, as torch.optim does).
local TRAJECTORIES = {
  { 'SGD', { lr = 0.1, momentum = 0.9, dampening = 0.3 }, nil,
    { -0.38876798772792182, 1.9270889007485072, -1.1833395761222827, -0.36761659118601114,
      0.7429875798319453, -0.66101553879997366, -0.19526574212961539 } },
  { 'SGD', { lr = 0.05, momentum = 0.8, nesterov = true, maximize = true, weightDecay = 0.1 }, nil,
    { 2.6590595172989531, -38.10321473495496, 110.94870908124655, 2.4522932154230914,
      -6.5304132785678854, 0.94962799774632356, 3.1956150175302884 } },
  { 'Adam', { lr = 0.1, amsgrad = true, epsMode = 'pytorch' }, nil,
    { 0.506108686696498, -1.5038709764383635, 2.5051356089426084, 0.028339687365883381,
      -1.0056815468695384, -0.29483717784157143, 0.41752894498727217 } },
  { 'Adam', { lr = 0.1, maximize = true, amsgrad = true, weightDecay = 0.05, epsMode = 'pytorch' }, nil,
    { 1.5022185661485523, -2.5019462009022591, 3.5021360473227539, 1.0015740245739149,
      -2.0021794889835016, 0.70201357532478503, 1.4019771680894832 } },
  { 'AdamW', { lr = 0.1, maximize = true, amsgrad = true, weightDecay = 0.05, epsMode = 'pytorch' }, nil,
    { 1.4724521248613824, -2.4473392973584529, 3.4227403729431822, 0.98430543340148069,
      -1.9600041188731345, 0.69211183519946595, 1.374809497441746 } },
  { 'RMSprop', { lr = 0.01, momentum = 0.9, centered = true, weightDecay = 0.1 }, nil,
    { 0.11423015487450194, -1.0903303591905893, 2.1017728646259424, -0.23273641033526971,
      -0.60861826304755895, -0.68216423998771059, 0.10134645825048189 } },
  { 'RMSprop', { lr = 0.01, maximize = true, centered = true, momentum = 0.5 }, nil,
    { 1.5948549261096983, -2.5835339896429605, 3.5896146028544456, 1.1228439897884084,
      -2.0919592090173142, 0.78716702161016061, 1.5142134096453785 } },
  { 'Adagrad', { lr = 0.1, initialAccumulatorValue = 0.5 }, nil,
    { 0.70804606460350583, -1.6903782510762246, 2.6933079917626674, 0.23756281940651564,
      -1.1976569775389936, -0.070847322058899792, 0.62345484831927989 } },
  { 'Adagrad', { lr = 0.1, maximize = true, lrDecay = 0.05, weightDecay = 0.1 }, nil,
    { 1.3154903307142563, -2.3112489717041291, 3.3138621510285673, 0.828088934210639,
      -1.8146157220424146, 0.51128201003493101, 1.2243643414445859 } },
  { 'Adadelta', { lr = 0.5, maximize = true, weightDecay = 0.1 }, nil,
    { 1.008231491363363, -2.0082272437419202, 3.0082300460920841, 0.50824951115767814,
      -1.5082308059170992, 0.20822727300999946, 0.90824353280176395 } },
  { 'Adamax', { lr = 0.1, betas = { 0.8, 0.95 }, eps = 0.001 }, nil,
    { 0.50428019294214133, -1.4881060137676063, 2.497592429041831, 0.077437758272929508,
      -1.0012991641901685, -0.30267798690001946, 0.45141857277340963 } },
  { 'Adamax', { lr = 0.1, maximize = true, weightDecay = 0.1 }, nil,
    { 1.4638597990474362, -2.4730412445795067, 3.4674833520010493, 0.94261921530211124,
      -1.9658604288115891, 0.67279658885193072, 1.348416971242751 } },
  { 'ASGD', { lr = 0.1, lambd = 0.1, alpha = 0.5, t0 = 1 }, nil,
    { 0.33312529994997453, -0.19630830736953883, 1.2410934361614518, 0.078871731122977823,
      -0.4513180597802981, -0.20580963574771774, 0.36917835250752923 } },
  { 'ASGD', { lr = 0.1, maximize = true, weightDecay = 0.1 }, nil,
    { 2.1711054765467619, -28.4714662695757, 93.712673210658409, 1.9182013861880503,
      -5.0709760859086588, 0.72775088932026377, 2.5583104819305742 } },
  { 'Rprop', { lr = 0.5, stepSizes = { 0.01, 0.6 } }, nil,
    { -0.39999999999999997, 0.89999999999999991, 0.099999999999999867, 0,
      -0.10000000000000003, -1.2, 0.46000000000000002 } },
  { 'Rprop', { lr = 0.1, maximize = true }, nil,
    { 1.7441600000000002, -2.7441600000000004, 3.7441600000000004, 1.2441599999999999,
      -2.2441599999999999, 0.94416, 1.6441600000000001 } },
  { 'RAdam', { lr = 0.1, weightDecay = 0.1, eps = 0.001 }, nil,
    { 0.22977256083207251, 0.33766830976590206, 0.61939450678915076, -0.050884887446216609,
      -0.21049169678359375, -0.24889648561309208, 0.21865752958915477 } },
  { 'SGD', { lr = 0.1 }, { { momentum = 0.9 }, { lr = 0.01, weightDecay = 0.1 } },
    { -0.6314958667835433, 2.1540584234515818, -1.6221412187923918, -0.3905398538865183,
      -1.340641883271009, 0.15270278032503765, 0.81130140450162602 } },
  { 'Adam', { lr = 0.1, epsMode = 'pytorch' }, { { amsgrad = true }, { lr = 0.01, betas = { 0.5, 0.6 } } },
    { 0.506108686696498, -1.5038709764383635, 2.5051356089426084, 0.028339687365883381,
      -1.4500506701561102, 0.15004409314422773, 0.85009978143765463 } },
  { 'RMSprop', { lr = 0.01 }, { { centered = true }, { momentum = 0.5 } },
    { 0.68962952294284674, -1.6842159343645589, 2.6873957524481935, 0.21957740653401561,
      -0.9881766059548267, -0.31415448170892463, 0.43335396403884546 } },
}

local function build(name, opts, groups, ps)
  if not groups then return optim[name](ps, opts) end
  local gs = {}
  for i = 1, 2 do
    gs[i] = { params = { ps[i] } }
    for k, v in pairs(groups[i]) do gs[i][k] = v end
  end
  return optim[name](gs, opts)
end

function tests.optimizersMatchPyTorch()
  for _, c in ipairs(TRAJECTORIES) do
    local name, opts, groups, want = c[1], c[2], c[3], c[4]
    local ps = params()
    local opt = build(name, opts, groups, ps)
    for _ = 1, name == 'RAdam' and 8 or 5 do grads(ps) opt:step() end
    local what = name
    for k, v in pairs(opts) do what = what .. ' ' .. k .. '=' .. tostring(type(v) == 'table' and v[1] or v) end
    tester:assertTensorEq(flat(ps), D(want), 1e-10, what)
  end
end

-- Every optimizer stopped after 3 steps, saved with torch.save and loaded into a fresh one over
-- copies of the parameters, continues exactly as the one that ran on.
function tests.optimizerResumeContinuesIdentically()
  for _, c in ipairs(TRAJECTORIES) do
    local name, opts, groups = c[1], c[2], c[3]
    local a = params()
    local oa = build(name, opts, groups, a)
    for _ = 1, 3 do grads(a) oa:step() end
    local f = os.tmpname()
    torch.save(f, oa:stateDict())
    local b = { a[1]:clone(), a[2]:clone() }
    local ob = build(name, { lr = 0.5 }, groups and { {}, {} } or nil, b)
    ob:loadStateDict(torch.load(f))
    os.remove(f)
    for _ = 1, 3 do grads(a) oa:step() grads(b) ob:step() end
    tester:assertTensorEq(flat(b), flat(a), 0, name .. ' resumed')
  end
end

-- Review regression: a parameter listed twice in one group was stepped twice per step() (the check
-- covered different groups only); PyTorch 1.13 only warns.
function tests.duplicateParameterInOneGroup()
  local p = D{ 1 }
  p.grad = D{ 1 }
  tester:assertErrorPattern(function() optim.SGD({ p, p }, { lr = 0.1 }) end,
    'optim.SGD.*parameter 2 is parameter 1 again')
  tester:assertErrorPattern(function() optim.Adam({ { params = { D{ 1 }, p, p } } }) end,
    'optim.Adam.*parameter 3 is parameter 2')
  local q = D{ 2 }
  local opt = optim.SGD({ p }, { lr = 0.1 })
  tester:assertErrorPattern(function() opt:addParamGroup({ params = { q, q } }) end, 'again in the same group')
  tester:asserteq(#opt.paramGroups, 1, 'a refused group is not added')
  opt:step()
  tester:assertalmosteq(p[1], 0.9, 1e-15, 'stepped once')
end

-- Review regression: torch.optim 1.13's foreach option was an unknown option for SGD, Adam,
-- AdamW, Adagrad, RMSprop, NAdam and RAdam (Adadelta, Adamax, ASGD and Rprop took it).
function tests.foreachAcceptedAndIgnored()
  for _, name in ipairs({ 'SGD', 'Adam', 'AdamW', 'Adagrad', 'RMSprop', 'NAdam', 'RAdam' }) do
    local a, b = params(), params()
    local oa = optim[name](a, { lr = 0.1, foreach = false })
    local ob = optim[name](b, { lr = 0.1 })
    for _ = 1, 3 do grads(a) oa:step() grads(b) ob:step() end
    tester:assertTensorEq(flat(a), flat(b), 0, name)
  end
  tester:assertErrorPattern(function() optim.SGD(params(), { foreach = 1 }) end, 'foreach must be a boolean')
end

-- Review regression: NAdam and RAdam kept their moments in the parameter's type; for half
-- parameters v = (1 - beta2) g^2 underflowed to 0 and the step was +-inf (Note [Half parameters
-- in tensor-op updates]). Now the moments are float and the step matches the float one rounded.
function tests.nadamRadamHalfParameters()
  if not torch.HalfTensor then return end
  for _, name in ipairs({ 'NAdam', 'RAdam' }) do
    local h, f = torch.HalfTensor{ 1, 2, -3 }, torch.FloatTensor{ 1, 2, -3 }
    local oh, of = optim[name]({ h }, { lr = 1e-2 }), optim[name]({ f }, { lr = 1e-2 })
    for i = 1, 8 do
      local g = torch.FloatTensor{ 1e-4, -2e-4, 3e-5 }:mul(i)
      h.grad, f.grad = g:type('torch.HalfTensor'), g:clone()
      oh:step() of:step()
    end
    tester:asserteq(oh._state[h].m:type(), 'torch.FloatTensor', name .. ' state dtype')
    tester:assertTensorEq(h:float(), f, 2e-3, name .. ' half follows float')
  end
  -- the functional forms take a state table the same way
  local x = torch.HalfTensor{ 1, 2 }
  local st = {}
  for _ = 1, 3 do
    optim.nadam(function() return 0, torch.HalfTensor{ 1e-4, -1e-4 } end, x, { learningRate = 1e-3 }, st)
  end
  tester:assert(x[1] < 1 and x[1] > 0.99 and x[2] > 2 and x[2] < 2.01, 'optim.nadam on half')
end

-- Review regression: optim.nadam and optim.radam failed in addcmul ("[addcmul] sizes 2x2, 4 and 4
-- do not broadcast", not naming them) when opfunc returned df/dx of x's size in another shape,
-- which the other functional optimizers accept as Torch7's did.
function tests.nadamRadamFunctionalGradientShape()
  for _, name in ipairs({ 'nadam', 'radam' }) do
    local x, y = D{ { 1, 2 }, { 3, 4 } }, D{ { 1, 2 }, { 3, 4 } }
    local sx, sy = {}, {}
    for _ = 1, 3 do
      optim[name](function(z) return 0, z:reshape(4) * 2 end, x, { learningRate = 0.1 }, sx)
      optim[name](function(z) return 0, z * 2 end, y, { learningRate = 0.1 }, sy)
    end
    tester:assertTensorEq(x, y, 0, name)
  end
end

-- {options, step() calls, evaluations, iterations, parameters after}: PyTorch 1.13's
-- torch.optim.LBFGS in float64 on the 4-d Rosenbrock function from (-1.2, 1, 0.5, -0.3) over two
-- parameters, each step() with a closure. Review regression: with lineSearchFn = 'strong_wolfe'
-- the object ran Torch7's optim.lswolfe, whose extrapolation, evaluation limit (20, PyTorch 25)
-- and bracket tolerance differ, and maxEval defaulted to maxIter * 1.25 (PyTorch floors it): the
-- trajectories left PyTorch's within a few steps (Note [PyTorch's strong Wolfe search]).
local LBFGS_CASES = {
  { { lr = 1, maxIter = 5 }, 3, 15, 15,
    { -0.12279543925696133, 0.19269002752785047, 0.11993501241948026, 0.019348802343580773 } },
  { { lr = 0.5, maxIter = 4, historySize = 2 }, 3, 12, 12,
    { -0.56178315446100058, 0.44834348044337469, 0.28549479401523425, 0.091210693978347232 } },
  { { maxIter = 5, lineSearchFn = 'strong_wolfe' }, 3, 18, 9,
    { -0.23329678077726865, 0.11968655611677885, 0.061305606101108981, -0.059817559746642081 } },
  { { maxIter = 7, historySize = 3, lineSearchFn = 'strong_wolfe' }, 3, 24, 13,
    { 0.37485013980395426, 0.029349648846851054, -0.073104825583140534, -0.051077420638136209 } },
  { { maxIter = 20, lineSearchFn = 'strong_wolfe', toleranceChange = 0.001 }, 2, 6, 6,
    { -0.66058868874712551, 0.55732583660653323, 0.37467726716590027, 0.14342338581556516 } },
  { { maxIter = 10, maxEval = 12, lineSearchFn = 'strong_wolfe' }, 2, 28, 17,
    { 0.8681114625359212, 0.71702949096317603, 0.50806432354895481, 0.1308162976350731 } },
  { { maxIter = 6, lr = 0.2, toleranceGrad = 0.001 }, 4, 24, 24,
    { -0.72732609697777562, 0.64532774246764102, 0.47667295618233052, 0.23158703979637033 } },
}

local function rosenbrock(x)
  local n = x:size(1)
  local a, b = x:narrow(1, 1, n - 1), x:narrow(1, 2, n - 1)
  return torch.pow(1 - a, 2):sum() + 10 * torch.pow(b - torch.pow(a, 2), 2):sum()
end
local function lbfgs_run(opts)
  local p1, p2 = D{ -1.2, 1.0 }:requiresGrad(), D{ 0.5, -0.3 }:requiresGrad()
  local opt = optim.LBFGS({ p1, p2 }, opts)
  local function closure()
    opt:zeroGrad()
    local l = rosenbrock(torch.cat(p1, p2))
    l:backward()
    return l
  end
  return opt, closure, function() return torch.cat(p1, p2):detach() end
end

function tests.lbfgsMatchesPyTorch()
  for k, c in ipairs(LBFGS_CASES) do
    local opt, closure, x = lbfgs_run(c[1])
    for _ = 1, c[2] do opt:step(closure) end
    tester:assertTensorEq(x(), D(c[5]), 1e-10, 'LBFGS case ' .. k)
    tester:asserteq(opt._lbfgs.funcEval, c[3], 'LBFGS case ' .. k .. ' evaluations')
    tester:asserteq(opt._lbfgs.nIter, c[4], 'LBFGS case ' .. k .. ' iterations')
    -- stopped after one step() and resumed from a saved state, it ends at the same point
    local o2, cl2, x2 = lbfgs_run(c[1])
    o2:step(cl2)
    local saved = torch.deserialize(torch.serialize({ x2(), o2:stateDict() }))
    local o3, cl3, x3 = lbfgs_run(c[1])
    local q = o3.paramGroups[1].params
    torch.noGrad(function() q[1]:copy(saved[1]:narrow(1, 1, 2)) q[2]:copy(saved[1]:narrow(1, 3, 2)) end)
    o3:loadStateDict(saved[2])
    for _ = 2, c[2] do o3:step(cl3) end
    tester:assertTensorEq(x3(), D(c[5]), 1e-10, 'LBFGS case ' .. k .. ' resumed')
  end
end

-- {schedules on an SGD(momentum = 0.9) or Adam with groups lr 0.1 and 0.05, the rates (and
-- momenta or beta1, mom) after construction and after each of n steps}: PyTorch 1.13's
-- lr_scheduler (a list is stepped back to back, one after the other, each step), except
-- OneCycleLR's totalSteps-th step, where PyTorch extrapolates (a negative rate for 'linear') and
-- Tocha keeps the end of the cycle (Note [OneCycleLR's last step]).
local S = optim.lr
local SCHEDULES = {
  { name = 'OneCycle', kind = 'sgd', mom = true, n = 10,
    mk = function(o) return S.OneCycleLR(o, {maxLr = {1, 0.5}, totalSteps = 10, annealStrategy = 'cos',
      threePhase = false}) end,
    seq = {
      0.04, 0.02, 0.95, 0.95, 0.52, 0.26, 0.9, 0.9, 1, 0.5, 0.85, 0.85, 0.9504846320135, 0.4752423160067,
      0.8549515566049, 0.8549515566049, 0.8117456539498, 0.4058728269749, 0.8688255099071, 0.8688255099071,
      0.6112620219363, 0.3056310109681, 0.8888739533022, 0.8888739533022, 0.3887419780637, 0.1943709890319,
      0.9111260466978, 0.9111260466978, 0.1882583460502, 0.09412917302512, 0.9311744900929, 0.9311744900929,
      0.04951936798653, 0.02475968399326, 0.9450484433951, 0.9450484433951, 4e-06, 2e-06, 0.95, 0.95, 4e-06, 2e-06,
      0.95, 0.95,
    } },
  { name = 'OneCycle', kind = 'sgd', mom = true, n = 10,
    mk = function(o) return S.OneCycleLR(o, {maxLr = {1, 0.5}, totalSteps = 10, annealStrategy = 'linear',
      threePhase = true}) end,
    seq = {
      0.04, 0.02, 0.95, 0.95, 0.52, 0.26, 0.9, 0.9, 1, 0.5, 0.85, 0.85, 0.52, 0.26, 0.9, 0.9, 0.04, 0.02, 0.95, 0.95,
      0.0320008, 0.0160004, 0.95, 0.95, 0.0240016, 0.0120008, 0.95, 0.95, 0.0160024, 0.0080012, 0.95, 0.95, 0.0080032,
      0.0040016, 0.95, 0.95, 3.999999999997e-06, 1.999999999999e-06, 0.95, 0.95, 3.999999999997e-06,
      1.999999999999e-06, 0.95, 0.95,
    } },
  { name = 'OneCycleAdam', kind = 'adam', mom = true, n = 6,
    mk = function(o) return S.OneCycleLR(o, {maxLr = 0.3, totalSteps = 6}) end,
    seq = {
      0.012, 0.012, 0.95, 0.95, 0.2983246306353, 0.2983246306353, 0.8505584586887, 0.8505584586887, 0.2435236961849,
      0.2435236961849, 0.8688255099071, 0.8688255099071, 0.1387911308001, 0.1387911308001, 0.9037365046793,
      0.9037365046793, 0.04004325905665, 0.04004325905665, 0.9366525935915, 0.9366525935915, 1.2e-06, 1.2e-06, 0.95,
      0.95, 1.2e-06, 1.2e-06, 0.95, 0.95,
    } },
  { name = 'BackToBack', kind = 'sgd', mom = false, n = 6,
    mk = function(o)
      return { S.ExponentialLR(o, { gamma = 0.9 }), S.MultiStepLR(o, { milestones = { 2, 4 }, gamma = 0.1 }) }
    end,
    seq = {
      0.1, 0.05, 0.09, 0.045, 0.0081, 0.00405, 0.00729, 0.003645, 0.0006561, 0.00032805, 0.00059049, 0.000295245,
      0.000531441, 0.0002657205,
    } },
  { name = 'BackToBack2', kind = 'sgd', mom = false, n = 6,
    mk = function(o) return {S.LinearLR(o, {startFactor = 0.5, totalIters = 2}), S.StepLR(o, {stepSize = 2,
      gamma = 0.5})} end,
    seq = {
      0.05, 0.025, 0.075, 0.0375, 0.05, 0.025, 0.05, 0.025, 0.025, 0.0125, 0.025, 0.0125, 0.0125, 0.00625,
    } },
}

local function sched_opt(kind)
  local g = { { params = { torch.zeros(2) }, lr = 0.1 }, { params = { torch.zeros(2) }, lr = 0.05 } }
  if kind == 'sgd' then return optim.SGD(g, { lr = 0.1, momentum = 0.9 }) end
  return optim.Adam(g, { lr = 0.1 })
end
local function snap(o, mom)
  local r = { o.paramGroups[1].lr, o.paramGroups[2].lr }
  if mom then
    for i = 1, 2 do
      local g = o.paramGroups[i]
      r[#r + 1] = g.betas and g.betas[1] or g.momentum
    end
  end
  return r
end
local function check_row(c, k, got, what)
  local w = c.mom and 4 or 2
  for j = 1, w do
    tester:assertalmosteq(got[j], c.seq[k * w + j], 1e-10, string.format('%s %s step %d value %d', c.name, what, k, j))
  end
end
local function list_of(s) return torch.typename(s) and { s } or s end

-- Review regressions: (1) PyTorch's chainable schedules stepped back to back on one optimizer
-- compose (its documented ExponentialLR + MultiStepLR example); here the last one stepped set
-- base * factor and overwrote the others (Note [Back-to-back schedules]). (2) OneCycleLR raised on
-- the totalSteps-th step(), the last batch of the usual loop (Note [OneCycleLR's last step]).
function tests.schedulesMatchPyTorch()
  for _, c in ipairs(SCHEDULES) do
    local o = sched_opt(c.kind)
    local list = list_of(c.mk(o))
    check_row(c, 0, snap(o, c.mom), 'built')
    for k = 1, c.n do
      for _, s in ipairs(list) do s:step() end
      check_row(c, k, snap(o, c.mom), 'stepped')
    end
  end
end

-- A run stopped after k steps and resumed from torch.save'd states (optimizer, then schedules in
-- the order they step) continues as PyTorch's uninterrupted one, for every k.
function tests.schedulesResumeIdentically()
  for _, c in ipairs(SCHEDULES) do
    for k = 1, c.n - 1 do
      local o = sched_opt(c.kind)
      local list = list_of(c.mk(o))
      for _ = 1, k do for _, s in ipairs(list) do s:step() end end
      local f = os.tmpname()
      local states = {}
      for j, s in ipairs(list) do states[j] = s:stateDict() end
      torch.save(f, { o:stateDict(), states })
      local saved = torch.load(f)
      os.remove(f)
      local o2 = sched_opt(c.kind)
      local list2 = list_of(c.mk(o2))
      o2:loadStateDict(saved[1])
      for j, s in ipairs(list2) do s:loadStateDict(saved[2][j]) end
      for step = k + 1, c.n do
        for _, s in ipairs(list2) do s:step() end
        check_row(c, step, snap(o2, c.mom), 'resumed at ' .. k)
      end
    end
  end
end

-- (PyTorch's linear anneal would set -0.71 there, and the optimizer's state then fails to load.)
function tests.oneCycleStepsTotalStepsTimes()
  local o = optim.SGD({ torch.zeros(1) }, { lr = 0.1 })
  local s = S.OneCycleLR(o, { maxLr = 1, totalSteps = 2, annealStrategy = 'linear', cycleMomentum = false })
  s:step() s:step()  -- the totalSteps-th step: PyTorch 1.13 allows it
  tester:assertalmosteq(o.paramGroups[1].lr, 4e-6, 1e-15, 'the final rate')
  o:loadState(o:state())
  tester:assertErrorPattern(function() s:step() end, 'OneCycleLR.*stepped 3 times, more than totalSteps = 2')
end

-- Review regression: a LambdaLR (or MultiplicativeLR) with one function per group put the table
-- of functions in its state, which torch.save refuses; the functions stay out of the state (as
-- PyTorch's state_dict leaves out plain functions) and the loaded schedule keeps its own.
function tests.lambdaStateIsSaveable()
  for _, cls in ipairs({ 'LambdaLR', 'MultiplicativeLR' }) do
    local function mk(o)
      return S[cls](o, { lrLambda = { function(e) return 0.9 ^ e end, function(e) return 1 / (e + 1) end } })
    end
    local o1, o2 = sched_opt('sgd'), sched_opt('sgd')
    local s1, s2 = mk(o1), mk(o2)
    for _ = 1, 3 do s1:step() end
    local f = os.tmpname()
    torch.save(f, { o1:stateDict(), s1:stateDict() })
    local saved = torch.load(f)
    os.remove(f)
    tester:asserteq(saved[2].lrLambda, nil, cls .. ' state without functions')
    o2:loadStateDict(saved[1])
    s2:loadStateDict(saved[2])
    tester:asserteq(type(s2.lrLambda), 'table', cls .. ' keeps its functions')
    for _ = 1, 3 do s1:step() s2:step() end
    tester:assertalmosteq(o2.paramGroups[1].lr, o1.paramGroups[1].lr, 0, cls .. ' group 1')
    tester:assertalmosteq(o2.paramGroups[2].lr, o1.paramGroups[2].lr, 0, cls .. ' group 2')
  end
end

-- A rate changed by hand between steps is kept by the chainable schedules, as PyTorch's recursive
-- rules keep it (StepLR(step_size=2, gamma=0.5) after lr was set to 1 at epoch 1: 1, 0.5, 0.5).
function tests.handSetRateIsKept()
  local c = { learningRate = 0.1 }
  local s = S.StepLR(c, { stepSize = 2, gamma = 0.5 })
  s:step()
  c.learningRate = 1
  s:step()
  tester:assertalmosteq(c.learningRate, 0.5, 1e-15, 'epoch 2')
  s:step()
  tester:assertalmosteq(c.learningRate, 0.5, 1e-15, 'epoch 3')
end

-- Review regression: per-group options were not checked against the number of groups: a short
-- table printed itself ("got table: 0x...") or, for ReduceLROnPlateau's minLr, failed inside
-- math.max ("bad argument #2 to 'max'") at the first reduction, after reducing the groups before it.
function tests.perGroupOptionsChecked()
  local function two()
    return optim.SGD({ { params = { torch.zeros(1) } }, { params = { torch.zeros(1) } } }, { lr = 0.1, momentum = 0.9 })
  end
  tester:assertErrorPattern(function() S.ReduceLROnPlateau(two(), { minLr = { 0.01 } }) end,
    'ReduceLROnPlateau.*minLr must be a number or one per group %(2%), got 1 values')
  tester:assertErrorPattern(function() S.ReduceLROnPlateau(two(), { minLr = { 0.01, 'a' } }) end,
    'ReduceLROnPlateau.*minLr must be a non%-negative number or one per group, got a for group 2')
  tester:assertErrorPattern(function() S.CyclicLR(two(), { baseLr = { 0.1 }, maxLr = 1 }) end,
    'CyclicLR.*baseLr must be a number or one per group %(2%), got 1 values')
  tester:assertErrorPattern(function() S.CyclicLR(two(), { baseLr = 0.1, maxLr = 1, maxMomentum = { 0.9 } }) end,
    'CyclicLR.*maxMomentum must be a number or one per group %(2%), got 1')
  tester:assertErrorPattern(function() S.OneCycleLR(two(), { maxLr = { 1 }, totalSteps = 4 }) end,
    'OneCycleLR.*maxLr must be a number or one per group %(2%), got 1')
  tester:assertErrorPattern(function() S.SWALR(two(), { swaLr = { 1 } }) end,
    'SWALR.*swaLr must be a number or one per group %(2%), got 1')
  local o = two()
  local s = S.ReduceLROnPlateau(o, { minLr = { 0.06, 0 }, patience = 0, factor = 0.5 })
  s:step(1) s:step(2)
  tester:assertalmosteq(o.paramGroups[1].lr, 0.06, 1e-15, 'floored at its minLr')
  tester:assertalmosteq(o.paramGroups[2].lr, 0.05, 1e-15, 'halved')
end

-- Review regression: a sparse df/dx given to a functional optimizer that takes only dense ones
-- was reported as "df/dx is table".
function tests.functionalSparseGradientNamed()
  if not torch.isSparse then return end
  require 'nn'
  local emb = nn.LookupTable(5, 3, { sparse = true })
  emb:forward(torch.LongTensor{ 1, 3 })
  emb:backward(torch.LongTensor{ 1, 3 }, torch.ones(2, 3))
  local g = emb.weight.grad
  if not torch.isSparse(g) then return end
  for _, name in ipairs({ 'adam', 'rmsprop', 'nadam', 'lbfgs' }) do
    tester:assertErrorPattern(function() optim[name](function() return 0, g end, emb.weight, {}) end,
      'optim.' .. name .. '.*df/dx is a sparse tensor')
  end
end

-- Review regression: a weight tied with :share() (two tensors viewing one memory) or a module added
-- twice is listed twice by model:parameters(); AveragedModel averaged it once per listing, so the
-- SWA mean of w and w + 1 came out w + 0.75 (PyTorch's parameters() lists a tied weight once).
function tests.averagedModelTiedWeights()
  require 'nn'
  local l1, l2 = nn.Linear(2, 2):double(), nn.Linear(2, 2):double()
  l2:share(l1, 'weight', 'gradWeight')
  local m = nn.Sequential():add(l1):add(l2)
  local avg = optim.AveragedModel(m)
  avg:updateParameters(m)
  local w0, b0 = l1.weight:clone(), l2.bias:clone()
  torch.noGrad(function() l1.weight:add(1) l2.bias:add(2) end)
  avg:updateParameters(m)
  tester:assertTensorEq(avg.module:get(1).weight, w0 + 0.5, 1e-15, 'tied weight')
  tester:assertTensorEq(avg.module:get(2).weight, w0 + 0.5, 1e-15, 'tied weight, second module')
  tester:assertTensorEq(avg.module:get(2).bias, b0 + 1, 1e-15, 'own bias')
  local l = nn.Linear(2, 2):double()
  local twice = nn.Sequential():add(l):add(nn.Tanh()):add(l)
  local a2 = optim.AveragedModel(twice, { decay = 0.5 })
  a2:updateParameters(twice)
  local c0 = l.bias:clone()
  torch.noGrad(function() l.bias:add(4) end)
  a2:updateParameters(twice)
  tester:assertTensorEq(a2.module:get(1).bias, c0 + 2, 1e-15, 'module added twice, EMA')
end

tester:add(tests)
tester:run()
