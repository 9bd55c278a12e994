-- optim's PyTorch names added by optim/pytorch_more.lua: the maximize option of SGD, Adam, AdamW,
-- Adagrad and RMSprop (10-step trajectories against PyTorch 1.13), stateDict / loadStateDict of
-- optimizers and schedules (resuming equals not stopping), errors.
require 'optim'
local tester = torch.Tester()
local tests = torch.TestSuite()

-- 10-step trajectories (the parameter after each step) from PyTorch 1.13, float64.
local TRAJ = {
  { 'SGD', { lr = 0.05, momentum = 0.9, dampening = 0.1, weightDecay = 0.01, maximize = true },
      {0.31851634548137414, -0.82637315902755759, 1.2242739778352574, 0.03257190662367996, 0.35385147741877765,
      -0.8691850617526955, 1.2677210278061657, -0.001190079917111048, 0.40791849766023708, -0.91873349524789605,
      1.3284270929878128, -0.054235928982297607, 0.48370038814023536, -0.96434696531080943, 1.4057575907204338,
      -0.13161000477261328, 0.58439292605741366, -0.99668672571869221, 1.501553288379067, -0.24021730269791614,
      0.71187505923624894, -1.0099345968592077, 1.6220209396538243, -0.38745343598409115, 0.86460371989799245,
      -1.0030246831694509, 1.7811350604010123, -0.57683463479526831, 1.0362454820812799, -0.97952766519353762,
      2.0074618748669573, -0.79897224164627145, 1.2175562323657019, -0.94633602558688401, 2.3574948957318567,
      -1.0228085112988556, 1.402387726989587, -0.91164734051388763, 2.931007638711129, -1.2025142973317136} },
  { 'SGD', { lr = 0.05, momentum = 0.8, nesterov = true, maximize = true }, {0.33359942186647351,
      -0.84819168624960362, 1.2447731601034633, 0.01867443192262393, 0.38633303658497797, -0.89617394899201219,
      1.3048676952656146, -0.032392702237414278, 0.46130135980934245, -0.93296386021398237, 1.378704681890782,
      -0.10913795333478539, 0.56123445429684593, -0.95391672409737571, 1.4682083651816336, -0.21956669970998877,
      0.68614103470982868, -0.96001682791465437, 1.5805542006951545, -0.37127151637629563, 0.83060293508443661,
      -0.95557146977975238, 1.732198172435564, -0.56343929706840012, 0.98354538341736009, -0.94578581516951388,
      1.9589620397042196, -0.77257786522748473, 1.1332470857832719, -0.93507952530566452, 2.3405632936606136,
      -0.95019333124631111, 1.2743282843054429, -0.92632303791224158, 3.0367792492843799, -1.0563747997712216,
      1.4104983087976237, -0.92078975073820013, 4.1805133541297526, -1.0880467324486067} },
  { 'Adam', { lr = 0.01, weightDecay = 0.1, amsgrad = true, maximize = true, epsMode = 'pytorch' },
      {0.30999999970873243, -0.80999999978044335, 1.209999999735085, 0.04000000028323647, 0.32001174237105107,
      -0.81996610924122737, 1.2199973872381382, 0.029987123317081622, 0.33004225982486901, -0.82986924702390885,
      1.2299910351646814, 0.019953401529443089, 0.34009796171537776, -0.83967439456545256, 1.2399803209448768,
      0.0098914102669259447, 0.35018463601007177, -0.84933968418011763, 1.2499651557389868,
      -0.00020570465428740997, 0.36030745942336789, -0.85881553334523764, 1.2599460074824247,
      -0.010344218351867098, 0.37047101394681037, -0.86804396745745593, 1.2699239176493771,
      -0.020529830751896024, 0.38067930691761043, -0.87695834440861586, 1.2799005114897199,
      -0.030767678427852885, 0.39093579291712344, -0.88548376511282878, 1.2898780016181668,
      -0.041062351301093342, 0.40124339638342277, -0.89353849435344312, 1.2998591849530357,
      -0.05141791208879197} },
  { 'AdamW', { lr = 0.01, betas = { 0.8, 0.99 }, weightDecay = 0.1, amsgrad = true, maximize = true, epsMode
      = 'pytorch' }, {0.30969999973213824, -0.80919999981324586, 1.2087999997989867, 0.039950000287305235,
      0.31941815934897866, -0.81834869263163157, 1.2175886927825195, 0.029874129243041652, 0.32917018377624618,
      -0.82741309717513467, 1.2263651593433607, 0.019752063968367053, 0.33896965298163273, -0.83635648518665417,
      1.2351290908326997, 0.0095661594013745424, 0.34882807624106776, -0.84513845982708147, 1.2438808173517535,
      -0.00069863942067733067, 0.35875496695239795, -0.85371517542822228, 1.2526213220382085,
      -0.01105491344439799, 0.36875793513206251, -0.86203973932734046, 1.2613522421364809,
      -0.021512906049893567, 0.37884279472978893, -0.87006283939740858, 1.2700758577598581,
      -0.03208067398713909, 0.38901368275650089, -0.87773363829388207, 1.2787950697531816,
      -0.042764248064024249, 0.39927318709344212, -0.88500096428247366, 1.2875133684175668,
      -0.053567799503909976} },
  { 'Adagrad', { lr = 0.1, lrDecay = 0.05, weightDecay = 0.02, initialAccumulatorValue = 0.1, maximize =
      true }, {0.37578519559343304, -0.88541746100840579, 1.283158411933047, -0.024110267485894343,
      0.44648252489068269, -0.91033256730224321, 1.3438334165481762, -0.097589549541986606, 0.50794615715707314,
      -0.91784436923464341, 1.3949311735254559, -0.16341063812377987, 0.56058901021498153, -0.92026373644427939,
      1.4407629393404999, -0.22073024617942333, 0.60581011995363832, -0.92110348774318329, 1.4832127396375934,
      -0.27046644353900867, 0.64498001617662415, -0.92141600216441999, 1.5231904603340081, -0.31381020523343672,
      0.67923125143169849, -0.92153973674925427, 1.5611454379799827, -0.35183757552145201, 0.70945831198106224,
      -0.92159147890697179, 1.5972960635965245, -0.38543946024940207, 0.73636116664765883, -0.92161418842195308,
      1.6317475966855022, -0.41533516634159745, 0.76048957517614046, -0.92162459447935652, 1.6645560310247343,
      -0.44210300002644209} },
  { 'RMSprop', { lr = 0.01, alpha = 0.9, momentum = 0.5, centered = true, weightDecay = 0.01, maximize =
      true }, {0.33333333033298151, -0.83333333122681474, 1.2333333310446457, 0.016666669854367641,
      0.3776485625367545, -0.87174249073614585, 1.2753261479750375, -0.028260244481265392, 0.42596548519439126,
      -0.90406586187370208, 1.3188048202916787, -0.077943912252679298, 0.47553285321627659,
      -0.92554764685864144, 1.3621018004263297, -0.12951696611626246, 0.52515873052913475, -0.93573933902307804,
      1.405436009336108, -0.18161195674285999, 0.57432826054107633, -0.93731695359772715, 1.4495953988058552,
      -0.23355793929724994, 0.62284642094555698, -0.93405875951522022, 1.4954299948599945, -0.28504024418855295,
      0.67067200000919747, -0.92925915284516714, 1.5436322825609643, -0.33592908017821116, 0.7178335520225706,
      -0.9250800371947141, 1.5946141561930278, -0.3861841806038579, 0.76438460590890156, -0.92250804871279934,
      1.6484379592798353, -0.4357977886528222} },
  { 'RMSprop', { lr = 0.01, maximize = false }, {0.20000002678616802, -0.70000001867541695,
      1.1000000201013245, 0.14999997126948375, 0.17288449616246959, -0.61463494520073025, 1.0255337959690431,
      0.16219033216398149, 0.16623218413360141, -0.5416961807815821, 0.96140810668958065, 0.16394616979840732,
      0.16468774956864837, -0.4785631690277527, 0.90354468015833989, 0.16419925893258716, 0.16433891040853843,
      -0.4232237641695934, 0.85030652343457158, 0.16423480827995379, 0.16426168416342654, -0.37420679191969142,
      0.80088802789989033, 0.16423965015042172, 0.16424490248992238, -0.33042491394467882, 0.75482627111351408,
      0.16424028849171282, 0.16424132281466308, -0.29105567215778289, 0.7118156452922364, 0.16424036984228041,
      0.16424057353901397, -0.25546172719626886, 0.67162853815044632, 0.16424037984999659, 0.16424041970984843,
      -0.22313807924413237, 0.63407889813734308, 0.16424038103667368} },
}

-- The gradient of the reference script: p^2 - 0.5 + sin(3 p).
local function grad_of(p) return torch.add(torch.add(torch.cmul(p, p), -0.5), torch.sin(torch.mul(p, 3))) end
local function run(name, opts, p, n)
  local o = optim[name]({ p }, opts)
  local out = {}
  for _ = 1, n do
    p.grad = grad_of(p)
    o:step()
    for i = 1, p:nElement() do out[#out + 1] = p[i] end
  end
  return out, o
end

function tests.maximizeTrajectories()
  for i, c in ipairs(TRAJ) do
    local got = run(c[1], c[2], torch.DoubleTensor({ 0.3, -0.8, 1.2, 0.05 }), 10)
    tester:assertTensorEq(torch.DoubleTensor(got), torch.DoubleTensor(c[3]), 1e-12, c[1] .. ' case ' .. i)
  end
  -- maximize ascends: the same run with the gradient negated and maximize off
  for _, name in ipairs({ 'SGD', 'Adam', 'AdamW', 'Adagrad', 'RMSprop' }) do
    local p, q = torch.DoubleTensor({ 0.3, -0.8 }), torch.DoubleTensor({ 0.3, -0.8 })
    local a = optim[name]({ p }, { lr = 0.01, maximize = true })
    local b = optim[name]({ q }, { lr = 0.01 })
    for _ = 1, 4 do
      p.grad, q.grad = grad_of(p), torch.neg(grad_of(q))
      a:step()
      b:step()
    end
    tester:assertTensorEq(p, q, 1e-15, name .. ' maximize = descent on -grad')
    tester:asserteq(a:stateDict().paramGroups[1].maximize, true, name .. ' keeps the option in its groups')
  end
end

function tests.maximizeErrors()
  local p = torch.DoubleTensor({ 1 })
  local ok, err = pcall(optim.SGD, { p }, { lr = 0.1, maximize = 1 })
  tester:assert(not ok and tostring(err):find('maximize', 1, true), 'maximize must be a boolean: ' .. tostring(err))
  -- NAdam and RAdam have no maximize in torch.optim 1.13
  ok, err = pcall(optim.NAdam, { p }, { maximize = true })
  tester:assert(not ok and tostring(err):find("unknown option 'maximize'", 1, true), 'NAdam: ' .. tostring(err))
  -- the class's option table is not changed for other optimizers
  ok = pcall(optim.Adadelta, { p }, { maximize = true })
  tester:assert(ok, 'Adadelta keeps its own maximize')
end

function tests.optimizerStateDict()
  for _, c in ipairs({ { 'Adam', { lr = 0.01, amsgrad = true, maximize = true } }, { 'SGD', { lr = 0.05, momentum = 0.9 } },
                       { 'RMSprop', { lr = 0.01, centered = true, momentum = 0.3 } }, { 'NAdam', { lr = 0.01 } },
                       { 'Rprop', { lr = 0.01 } } }) do
    local straight = run(c[1], c[2], torch.DoubleTensor({ 0.3, -0.8, 1.2 }), 10)
    local p = torch.DoubleTensor({ 0.3, -0.8, 1.2 })
    local _, o = run(c[1], c[2], p, 5)
    local saved = torch.deserialize(torch.serialize(o:stateDict()))
    local p2 = p:clone()
    local o2 = optim[c[1]]({ p2 }, { lr = 1 })
    o2:loadStateDict(saved)
    tester:asserteq(o2.paramGroups[1].lr, c[2].lr, c[1] .. ' restores the options')
    for _ = 1, 5 do
      p2.grad = grad_of(p2)
      o2:step()
    end
    tester:assertTensorEq(p2, torch.DoubleTensor({ unpack(straight, 28, 30) }), 1e-15, c[1] .. ' resumed = uninterrupted')
  end
  local o = optim.SGD({ torch.DoubleTensor({ 1 }) }, { lr = 0.1 })
  local ok, err = pcall(o.loadStateDict, o, optim.Adam({ torch.DoubleTensor({ 1 }) }):stateDict())
  tester:assert(not ok and tostring(err):find('optim.Adam', 1, true), 'another optimizer\'s state: ' .. tostring(err))
end

-- Each schedule, stepped 4 times, saved, restored into a fresh copy and stepped 4 more times, gives
-- the rates of 8 uninterrupted steps.
function tests.schedulerStateDict()
  local makers = {
    StepLR = function(t) return optim.lr.StepLR(t, { stepSize = 3, gamma = 0.5 }) end,
    MultiplicativeLR = function(t) return optim.lr.MultiplicativeLR(t, { lrLambda = function(e) return 0.9 end }) end,
    CosineAnnealingWarmRestarts = function(t) return optim.lr.CosineAnnealingWarmRestarts(t, { t0 = 3, tMult = 2 }) end,
    CyclicLR = function(t) return optim.lr.CyclicLR(t, { baseLr = 0.01, maxLr = 0.1, stepSizeUp = 2, mode = 'expRange', gamma = 0.9 }) end,
    OneCycleLR = function(t) return optim.lr.OneCycleLR(t, { maxLr = 0.5, totalSteps = 10, threePhase = true, annealStrategy = 'linear' }) end,
    LinearLR = function(t) return optim.lr.LinearLR(t, { startFactor = 0.25, totalIters = 5 }) end,
    PolynomialLR = function(t) return optim.lr.PolynomialLR(t, { totalIters = 6, power = 2 }) end,
    SequentialLR = function(t)
      return optim.lr.SequentialLR(t, { schedulers = { optim.lr.ConstantLR(t, { factor = 0.5, totalIters = 2 }),
        optim.lr.ExponentialLR(t, { gamma = 0.9 }) }, milestones = { 3 } })
    end,
  }
  for name, make in pairs(makers) do
    local p = torch.DoubleTensor({ 0 })
    local opt = optim.SGD({ p }, { lr = 0.1 })
    local s = make(opt)
    local want = {}
    for e = 1, 8 do s:step() want[e] = s:getLastLr()[1] end
    local opt2 = optim.SGD({ torch.DoubleTensor({ 0 }) }, { lr = 0.1 })
    local s2 = make(opt2)
    for _ = 1, 4 do s2:step() end
    local saved = s2:stateDict()
    local opt3 = optim.SGD({ torch.DoubleTensor({ 0 }) }, { lr = 0.1 })
    local s3 = make(opt3)
    s3:loadStateDict(saved)
    tester:assertalmosteq(s3:getLastLr()[1], want[4], 1e-15, name .. ' restored rate')
    for e = 5, 8 do
      s3:step()
      tester:assertalmosteq(s3:getLastLr()[1], want[e], 1e-15, name .. ' step ' .. e)
      tester:assertalmosteq(opt3.paramGroups[1].lr, want[e], 1e-15, name .. ' sets the group at ' .. e)
    end
  end
  -- ReduceLROnPlateau: the stale count and best value travel too
  local function plateau(t) return optim.lr.ReduceLROnPlateau(t, { patience = 1, factor = 0.5 }) end
  local metrics = { 1, 0.9, 0.95, 0.96, 0.97, 0.8, 0.85, 0.86 }
  local o1 = optim.SGD({ torch.DoubleTensor({ 0 }) }, { lr = 0.1 })
  local r1 = plateau(o1)
  for i = 1, 8 do r1:step(metrics[i]) end
  local o2 = optim.SGD({ torch.DoubleTensor({ 0 }) }, { lr = 0.1 })
  local r2 = plateau(o2)
  for i = 1, 4 do r2:step(metrics[i]) end
  local o3 = optim.SGD({ torch.DoubleTensor({ 0 }) }, { lr = 0.1 })
  local r3 = plateau(o3)
  r3:loadStateDict(r2:stateDict())
  o3.paramGroups[1].lr = o2.paramGroups[1].lr  -- the optimizer's rate travels with the optimizer's own state
  for i = 5, 8 do r3:step(metrics[i]) end
  tester:assertalmosteq(o3.paramGroups[1].lr, o1.paramGroups[1].lr, 1e-15, 'ReduceLROnPlateau resumed')
  local ok, err = pcall(function() optim.lr.StepLR(optim.SGD({ torch.DoubleTensor({ 0 }) }, { lr = 0.1 }), { stepSize = 2 })
    :loadStateDict(r2:stateDict()) end)
  tester:assert(not ok and tostring(err):find('ReduceLROnPlateau', 1, true), 'another schedule\'s state: ' .. tostring(err))
end

tester:add(tests)
tester:run()
