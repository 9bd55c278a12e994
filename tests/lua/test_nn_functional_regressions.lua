-- Regressions found reviewing nn.functional against PyTorch 1.13 (activations, convolutions,
-- normalizations, interpolate; lua/nn/functional_act.lua, functional_norm.lua...): values and
-- gradients at the kinks (PyTorch's subgradient choices), instance and batch norms of degenerate
-- batches. Reference values are PyTorch 1.13's (float64), pasted.
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()
local F = nn.functional
local D = torch.DoubleTensor

-- The 12 points below include every kink (0, bounds, thresholds); g weights the gradient
-- (the gradient of sum(f(x) * g)), as torch.linspace(0.5, 1.7, 12) in PyTorch.
local X = { -7, -3, -1, -0.5, 0, 0.5, 1, 3, 6, 7, 20, 25 }
local function weights() local g = D(12) for i = 1, 12 do g[i] = 0.5 + (i - 1) * 1.2 / 11 end return g end

-- PyTorch 1.13's values and gradients (float64) at X, weighted by g.
local PT = {
  relu = { y = {0,0,0,0,0,0.5,1,3,6,7,20,25},
    g = {0,0,0,0,0,1.0454545454545454,1.1545454545454545,1.2636363636363637,1.3727272727272728,1.4818181818181817,1.5909090909090908,1.7} },
  relu6 = { y = {0,0,0,0,0,0.5,1,3,6,6,6,6},
    g = {0,0,0,0,0,1.0454545454545454,1.1545454545454545,1.2636363636363637,0,0,0,0} },
  hardtanh = { y = {-1,-1,-1,-0.5,0,0.5,1,1,1,1,1,1},
    g = {0,0,0,0.82727272727272727,0.93636363636363629,1.0454545454545454,0,0,0,0,0,0} },
  hardtanh2 = { y = {-3,-3,-1,-0.5,0,0.5,1,3,6,6,6,6},
    g = {0,0,0.71818181818181814,0.82727272727272727,0.93636363636363629,1.0454545454545454,1.1545454545454545,1.2636363636363637,0,0,0,0} },
  gelu = { y = {-8.9586671414565444e-12,-0.0040496940948903104,-0.15865525393145702,-0.15426876936299344,0,0.34573123063700656,0.84134474606854304,2.9959503059051098,5.9999999940804738,6.9999999999910409,20,25},
    g = {-3.1331616633457756e-11,-0.007275985115275661,-0.059835656149338376,0.10961766960262889,0.46818181818181814,0.90692672123144291,1.2507369524057834,1.2787313178307416,1.3727273214161373,1.4818181819110372,1.5909090909090908,1.7} },
  gelutanh = { y = {-2.3314683517128287e-15,-0.0036373920817729943,-0.15880800939172329,-0.15428599017485606,0,0.34571400982514394,0.84119199060827676,2.9963626079182268,5.9999999999156035,6.9999999999999973,20,25},
    g = {-1.3921279095454444e-14,-0.0070558105843178771,-0.05958329658015294,0.10972126162134133,0.46818181818181814,0.90679580824076245,1.2503312604401309,1.2782745378336797,1.3727272737856424,1.4818181818182228,1.5909090909090908,1.7} },
  silu = { y = {-0.0063773583608045178,-0.14227761953270035,-0.2689414213699951,-0.1887703343990727,0,0.3112296656009273,0.7310585786300049,2.8577223804672998,5.9851642610601923,6.9936226416391962,19.999999958776925,24.9999999996528},
    g = {-0.0027302485332260703,-0.053663410027421497,0.051945723292295881,0.21512301777689713,0.46818181818181814,0.77359578672549967,1.0710377727970803,1.3749679157828048,1.3896481029210932,1.489909645653015,1.5909091532121455,1.7000000005666305} },
  mish = { y = {-0.0063802634095736681,-0.14564746127562461,-0.30340146137410895,-0.22074377465173001,0,0.37524521130489513,0.86509838826731034,2.9865350049679575,5.9999266340652522,6.9999883798097411,20,25},
    g = {-0.0027329434306573937,-0.056884897033322696,0.042528397402856417,0.2395042880920874,0.56181818181818177,0.92671639241944215,1.2111599995697602,1.2903078238108423,1.3729114110585248,1.4818501285747718,1.5909090909090908,1.7} },
  hardsigmoid = { y = {0,0,0.33333333333333331,0.41666666666666669,0.5,0.58333333333333337,0.66666666666666663,1,1,1,1,1},
    g = {0,0,0.11969697326421737,0.13787879198789596,0.15606061071157454,0.17424242943525314,0.19242424815893172,0,0,0,0,0} },
  elu = { y = {-0.99908811803444553,-0.95021293163213605,-0.63212055882855767,-0.39346934028736658,0,0.5,1,3,6,7,20,25},
    g = {0.00045594098277725812,0.030324850733153497,0.26420432593221765,0.50176627303499677,0.93636363636363629,1.0454545454545454,1.1545454545454545,1.2636363636363637,1.3727272727272728,1.4818181818181817,1.5909090909090908,1.7} },
  elu2 = { y = {-1.9981762360688911,-1.9004258632642721,-1.2642411176571153,-0.78693868057473315,0,0.5,1,3,6,7,20,25},
    g = {0.00091188196555451624,0.060649701466306993,0.52840865186443531,1.0035325460699935,1.8727272727272726,1.0454545454545454,1.1545454545454545,1.2636363636363637,1.3727272727272728,1.4818181818181817,1.5909090909090908,1.7} },
  selu = { y = {-1.7564961617648047,-1.6705687287671118,-1.1113307378125625,-0.69175818780287135,0,0.52535049367774023,1.0507009873554805,3.1521029620664414,6.3042059241328827,7.3549069114883636,21.014019747109607,26.267524683887011},
    g = {0.00080158954128600258,0.053314100085252239,0.46449745127045733,0.88215495388227261,1.6462202918843616,1.0984601231443658,1.213082049037691,1.3277039749310162,1.4423259008243414,1.5569478267176664,1.6715697526109916,1.7861916785043168} },
  celu = { y = {-0.49999958423564045,-0.49876062391166681,-0.43233235838169365,-0.31606027941427883,0,0.5,1,3,6,7,20,25},
    g = {4.1576435955178394e-07,0.0015097854166967821,0.097195339779021839,0.30433662860546595,0.93636363636363629,1.0454545454545454,1.1545454545454545,1.2636363636363637,1.3727272727272728,1.4818181818181817,1.5909090909090908,1.7} },
  leakyRelu = { y = {-0.070000000000000007,-0.029999999999999999,-0.01,-0.0050000000000000001,0,0.5,1,3,6,7,20,25},
    g = {0.0050000000000000001,0.0060909090909090913,0.0071818181818181816,0.0082727272727272736,0.0093636363636363639,1.0454545454545454,1.1545454545454545,1.2636363636363637,1.3727272727272728,1.4818181818181817,1.5909090909090908,1.7} },
  leakyNeg = { y = {1.4000000000000001,0.60000000000000009,0.20000000000000001,0.10000000000000001,-0,0.5,1,3,6,7,20,25},
    g = {-0.10000000000000001,-0.12181818181818183,-0.14363636363636365,-0.16545454545454547,-0.18727272727272726,1.0454545454545454,1.1545454545454545,1.2636363636363637,1.3727272727272728,1.4818181818181817,1.5909090909090908,1.7} },
  softplus = { y = {0.00091146645377424473,0.048587351573742062,0.31326168751822286,0.47407698418010669,0.69314718055994529,0.97407698418010669,1.3132616875182228,3.0485873515737421,6.0024756851377301,7.0009114664537737,20.000000002061153,25},
    g = {0.0004555255972003227,0.028886668208154317,0.19314883898390559,0.31232909873301123,0.46818181818181814,0.65075293716557525,0.84404035896373286,1.2037073057119838,1.3693330354849831,1.4804681695937516,1.590909087629983,1.7} },
  softplus2 = { y = {4.1576418669187711e-07,0.0012378425688652247,0.063464005521486247,0.15663084375911143,0.34657359027997264,0.6566308437591114,1.0634640055214863,3,6,7,20,25},
    g = {4.1576401383206604e-07,0.0015060522863139083,0.085609371270429863,0.22248790313335962,0.46818181818181814,0.76428851402227782,1.0169202627562826,1.2636363636363637,1.3727272727272728,1.4818181818181817,1.5909090909090908,1.7} },
  logsigmoid = { y = {-7.0009114664537746,-3.0485873515737421,-1.3132616875182228,-0.97407698418010669,-0.69314718055994529,-0.47407698418010669,-0.31326168751822286,-0.048587351573742062,-0.0024756851377304495,-0.00091146645377424473,-2.0611536203143808e-09,-1.3887943864867583e-11},
    g = {0.4995444744027997,0.5802042408827548,0.52503297919791259,0.51494362853971598,0.46818181818181814,0.39470160828897022,0.31050509558172162,0.059929057924379851,0.0033942372422895548,0.0013500122244300471,3.2791080289389597e-09,2.3609504570110948e-11} },
  softsign = { y = {-0.875,-0.75,-0.5,-0.33333333333333331,0,0.33333333333333331,0.5,0.75,0.8571428571428571,0.875,0.95238095238095233,0.96153846153846156},
    g = {0.0078125,0.03806818181818182,0.17954545454545454,0.36767676767676771,0.93636363636363629,0.46464646464646464,0.28863636363636364,0.078977272727272729,0.028014842300556592,0.023153409090909099,0.0036075036075036149,0.0025147928994082858} },
  tanhshrink = { y = {-6.0000016630560555,-2.0049452463132695,-0.23840584404423515,-0.037882842739990263,0,0.037882842739990263,0.23840584404423515,2.0049452463132695,5.000012288349204,6.0000016630560555,19,24},
    g = {0.49999833694532758,0.60308159554468643,0.41656388193174482,0.17666596636455101,0,0.22325918826289404,0.66966598740926075,1.2511692803091257,1.37269353583038,1.4818132531288797,1.5909090909090908,1.7} },
  threshold = { y = {-2,-2,-2,-2,-2,-2,-2,3,6,7,20,25},
    g = {0,0,0,0,0,0,0,1.2636363636363637,1.3727272727272728,1.4818181818181817,1.5909090909090908,1.7} },
  hardshrink = { y = {-7,-3,0,0,0,0,0,3,6,7,20,25},
    g = {0.5,0.60909090909090913,0,0,0,0,0,1.2636363636363637,1.3727272727272728,1.4818181818181817,1.5909090909090908,1.7} },
  softshrink = { y = {-6,-2,0,0,0,0,0,2,5,6,19,24},
    g = {0.5,0.60909090909090913,0,0,0,0,0,1.2636363636363637,1.3727272727272728,1.4818181818181817,1.5909090909090908,1.7} },
  rreluEval = { y = {-1.6041666666666665,-0.6875,-0.22916666666666666,-0.11458333333333333,0,0.5,1,3,6,7,20,25},
    g = {0.11458333333333333,0.13958333333333334,0.16458333333333333,0.18958333333333333,0.21458333333333332,1.0454545454545454,1.1545454545454545,1.2636363636363637,1.3727272727272728,1.4818181818181817,1.5909090909090908,1.7} },
  prelu = { y = {-1.75,-0.75,-0.25,-0.125,0,0.5,1,3,6,7,20,25},
    g = {0.125,0.15227272727272728,0.17954545454545454,0.20681818181818182,0.23409090909090907,1.0454545454545454,1.1545454545454545,1.2636363636363637,1.3727272727272728,1.4818181818181817,1.5909090909090908,1.7} },
}

local CASES = {
  relu = function(x) return F.relu(x) end, relu6 = function(x) return F.relu6(x) end,
  hardtanh = function(x) return F.hardtanh(x) end, hardtanh2 = function(x) return F.hardtanh(x, -3, 6) end,
  gelu = function(x) return F.gelu(x) end, gelutanh = function(x) return F.gelu(x, 'tanh') end,
  silu = function(x) return F.silu(x) end, mish = function(x) return F.mish(x) end,
  hardsigmoid = function(x) return F.hardsigmoid(x) end, elu = function(x) return F.elu(x) end,
  elu2 = function(x) return F.elu(x, 2) end, selu = function(x) return F.selu(x) end,
  celu = function(x) return F.celu(x, 0.5) end, leakyRelu = function(x) return F.leakyRelu(x) end,
  leakyNeg = function(x) return F.leakyRelu(x, -0.2) end, softplus = function(x) return F.softplus(x) end,
  softplus2 = function(x) return F.softplus(x, 2, 5) end, logsigmoid = function(x) return F.logsigmoid(x) end,
  softsign = function(x) return F.softsign(x) end, tanhshrink = function(x) return F.tanhshrink(x) end,
  threshold = function(x) return F.threshold(x, 1, -2) end, hardshrink = function(x) return F.hardshrink(x, 1) end,
  softshrink = function(x) return F.softshrink(x, 1) end, rreluEval = function(x) return F.rrelu(x) end,
  prelu = function(x) return F.prelu(x, D({ 0.25 })) end,
}

local function value_and_grad(f, xs)
  local x = D(xs):requiresGrad()
  local y = f(x)
  torch.sum(torch.cmul(y, weights():narrow(1, 1, #xs))):backward()
  return y:detach(), x.grad
end

function tests.activationsMatchPyTorchAtKinks()
  for name, f in pairs(CASES) do
    local y, g = value_and_grad(f, X)
    tester:assertTensorEq(y, D(PT[name].y), 1e-12, name .. ' values')
    -- PyTorch's hardsigmoid backward multiplies by 1.0f / 6.0f, a float: 3e-8 relative
    tester:assertTensorEq(g, D(PT[name].g), name == 'hardsigmoid' and 1e-8 or 1e-12, name .. ' gradient')
  end
end

-- Bug: F.hardtanh, F.relu6 and F.hardsigmoid were torch.clamp, whose gradient is 1 on the closed
-- interval: relu6 had gradient 1 at 0 and 6, hardtanh at -1 and 1, hardsigmoid 1/6 at -3 and 3,
-- where PyTorch's is 0 (Note [Gradients at clamp bounds], functional_act.lua).
function tests.clampLikeActivationsHaveNoGradientOnTheirBounds()
  local _, g = value_and_grad(function(x) return F.relu6(x) end, { 0, 6 })
  tester:assertTensorEq(g, D({ 0, 0 }), 0, 'relu6 at 0 and 6')
  _, g = value_and_grad(function(x) return F.hardtanh(x, -0.5, 2) end, { -0.5, 2 })
  tester:assertTensorEq(g, D({ 0, 0 }), 0, 'hardtanh at its bounds')
  _, g = value_and_grad(function(x) return F.hardsigmoid(x) end, { -3, 3 })
  tester:assertTensorEq(g, D({ 0, 0 }), 0, 'hardsigmoid at -3 and 3')
  -- inside the bounds the gradient is still the identity's, and NaN passes through with gradient 1
  -- (PyTorch 1.13: hardtanh(nan) = nan, gradient 1)
  local y
  y, g = value_and_grad(function(x) return F.hardtanh(x) end, { 0 / 0, 0.25, math.huge, -math.huge })
  tester:assert(y[1] ~= y[1], 'hardtanh(nan) is nan')
  tester:assertTensorEq(y:narrow(1, 2, 3), D({ 0.25, 1, -1 }), 0, 'hardtanh values')
  tester:assertTensorEq(g, D({ 0.5, 0.5 + 1.2 / 11, 0, 0 }), 1e-15, 'hardtanh gradients')
  -- the in-place forms (a recorded non-leaf) give the same gradient
  local a = D({ -1, 0.5, 1, 7 }):requiresGrad()
  local h = torch.mul(a, 1)
  local out = F.hardtanh(h, -1, 1, true)
  tester:assert(torch.pointer(out) == torch.pointer(h), 'inplace returns its input')
  torch.sum(out):backward()
  tester:assertTensorEq(a.grad, D({ 0, 1, 0, 0 }), 0, 'hardtanh inplace gradient')
  a = D({ 0, 3, 6 }):requiresGrad()
  h = torch.mul(a, 1)
  torch.sum(F.relu6(h, true)):backward()
  tester:assertTensorEq(a.grad, D({ 0, 1, 0 }), 0, 'relu6 inplace gradient')
  -- gradcheck away from the kinks
  local ok, err = pcall(torch.autograd.gradcheck, function(x) return F.hardsigmoid(F.relu6(F.hardtanh(x, -2, 5))) end,
    { D({ -2.5, -1.2, 0.3, 2.2, 4.1, 5.5 }):requiresGrad() })
  tester:assert(ok and err == true, 'gradcheck: ' .. tostring(err))
end

-- PyTorch 1.13's hardswish gradient at -3 and 3 is its scalar formula's, x / 3 + 0.5 on [-3, 3]:
-- -0.5 and 1.5 (its vectorized CPU path, taken for 8+ doubles, gives 1 at 3: PyTorch disagrees with
-- itself there; Tocha follows the formula).
function tests.hardswishGradientAtItsKinks()
  local x = D({ -3, 3 }):requiresGrad()
  local y = F.hardswish(x)
  torch.sum(y):backward()
  tester:assertTensorEq(x.grad, D({ -0.5, 1.5 }), 1e-15, 'hardswish gradient at -3 and 3')
  tester:assertTensorEq(y:detach(), D({ 0, 3 }), 0, 'hardswish values')
end

-- Bug: F.instanceNorm normalizing with the input's statistics accepted one position per channel
-- (N x C x 1): the variance is 0 and every output was silently 0; PyTorch 1.13 raises "Expected more
-- than 1 spatial element when training" (Note [Instance statistics need 2 positions]). With the
-- running statistics (useInputStats = false) one position is fine, as in PyTorch.
function tests.instanceNormRefusesOnePositionPerChannel()
  tester:assertErrorPattern(function() F.instanceNorm(D(2, 3, 1):fill(1)) end,
    '%[instanceNorm%] expected more than 1 spatial element.*2x3x1')
  tester:assertErrorPattern(function() F.instanceNorm(D(2, 3, 1, 1):fill(1), { weight = D(3):fill(1) }) end,
    'instanceNorm.*more than 1 spatial element')
  local rm, rv = D({ 0.5, -1, 2 }), D({ 4, 1, 0.25 })
  local y = F.instanceNorm(D({ { { 2.5 }, { 0 }, { 2 } } }), { runningMean = rm, runningVar = rv, useInputStats = false,
    eps = 0 })
  tester:assertTensorEq(y:view(3), D({ 1, 1, 0 }), 1e-15, 'one position with the running statistics')
  -- two positions: PyTorch 1.13's values, F.instance_norm(x, eps=1e-5) of [[[1, 3]], [[-2, 0.5]]]
  local z = F.instanceNorm(D({ { { 1, 3 } }, { { -2, 0.5 } } }))
  tester:assertTensorEq(z:view(4), D({ -0.9999950000374997, 0.9999950000374997, -0.9999968000153598,
    0.9999968000153598 }), 1e-12, 'two positions')
end

-- Bug: F.instanceNorm of an empty batch (0 x C x L) raised "[view] cannot view 0 elements as size
-- 0x3x-1" (an error not naming instanceNorm); PyTorch 1.13 returns the empty tensor. Its running
-- statistics become NaN there (the mean of no instance); here they are left as they are.
function tests.instanceNormOfAnEmptyBatch()
  local rm, rv = D({ 0.5, -1, 2 }), D({ 4, 1, 0.25 })
  local x = D(0, 3, 4):requiresGrad()
  local y = F.instanceNorm(x, { runningMean = rm, runningVar = rv, weight = D(3):fill(2) })
  tester:assertTableEq(y:size():totable(), { 0, 3, 4 }, 'empty result')
  tester:assertTensorEq(rm, D({ 0.5, -1, 2 }), 0, 'running mean kept')
  tester:assertTensorEq(rv, D({ 4, 1, 0.25 }), 0, 'running variance kept')
  torch.sum(y):backward()
  tester:assertTableEq(x.grad:size():totable(), { 0, 3, 4 }, 'empty gradient')
  tester:assertTableEq(F.instanceNorm(D(0, 2, 3, 3)):size():totable(), { 0, 2, 3, 3 }, 'empty 2-D batch')
end

-- F.batchNorm of an empty batch in training: PyTorch 1.13 returns the empty tensor and leaves the
-- running statistics (its check refuses exactly one value per channel); Tocha's C kernel refuses
-- any count <= 1, so 0 x C raised "expected more than 1 value per channel when training"
-- (core/ops/norm.cpp, Note [Empty batches in batch norm]).
function tests.batchNormOfAnEmptyBatchInTraining()
  local rm, rv = D({ 0.5, -1, 2 }), D({ 4, 1, 0.25 })
  local y = F.batchNorm(D(0, 3, 5), rm, rv, D(3):fill(2), D(3):fill(1), true, 0.1)
  tester:assertTableEq(y:size():totable(), { 0, 3, 5 }, 'empty result')
  tester:assertTensorEq(rm, D({ 0.5, -1, 2 }), 0, 'running mean kept')
  tester:assertTensorEq(rv, D({ 4, 1, 0.25 }), 0, 'running variance kept')
  -- no gradient reaches weight and bias (PyTorch 1.13: zeros)
  local w, b, x = D(3):fill(2):requiresGrad(), D(3):fill(1):requiresGrad(), D(0, 3):requiresGrad()
  torch.sum(F.batchNorm(x, nil, nil, w, b, true)):backward()
  tester:eq(w.grad:totable(), { 0, 0, 0 }, 'weight gradient')
  tester:eq(b.grad:totable(), { 0, 0, 0 }, 'bias gradient')
  tester:eq(x.grad:size():totable(), { 0, 3 }, 'input gradient')
  -- one value per channel is still refused, as PyTorch
  tester:assertErrorPattern(function() F.batchNorm(D(1, 3):fill(1), nil, nil, nil, nil, true) end,
    'more than 1 value per channel')
end

-- sin/cos fixtures: the same values PyTorch's references were computed from.
local function fixture(sizes, scale, phase)
  local n = 1
  for _, v in ipairs(sizes) do n = n * v end
  local t = D(n)
  for i = 1, n do t[i] = math.sin((i - 1) * 0.7 + (phase or 0.3)) * (scale or 1) end
  return t:view(torch.LongStorage(sizes))
end
local function cosines(y)
  local g = D(y:nElement())
  for i = 1, y:nElement() do g[i] = math.cos(i - 1) end
  return g:viewAs(y)
end

-- PyTorch 1.13 (float64): F.conv1d(x (2 x 6, unbatched), w (3 x 2 x 2), b, padding='same', dilation=3)
-- (an odd total padding, 3: one more zero on the right) and nn.Conv1d(2, 2, 4, padding='same',
-- padding_mode='circular') on 1 x 2 x 5; gradients of sum(y * cos(0 .. n-1)).
local CONV = {
  same1d = {
    y = { 0.54339991718771208, 0.2008249762979005, 0.24344546105013015, 0.29029682728081962, 0.50672010839496862, 0.68025929351880132, 0.15927201351765935, 0.437165899031217, 0.35841384624321637, 0.25101279785996577, 0.15927201351765929, -0.11729978603493774, 0.17216227697872352, -0.0089384366636498236, 0.096844965604863859, 0.2523849337700429, 0.2088420857714671, 0.55648715732241627 },
    gx = { -0.074127585962117631, -0.090076321014705876, 0.23523001365629895, 0.20303368116008821, -0.015830881456914289, -0.25612096443631438, 0.2852812992781702, -0.077080585424443099, -0.037539863591401101, -0.02285028248793386, 0.012847742955462966, -0.30768235504647551 },
    gw = { -1.6019632982915808, 1.9450501843192001, 0.24721986192650314, -1.5389138977159948, -1.3697544254677347, 2.0128325524776565, -0.52541084619404199, -1.1492863235652746, -1.0284317003923442, 1.9202738334641187, -1.2561876275251926, -0.66810725976603558 },
    gb = { -0.23581846267983364, -0.17720358578802153, -0.10447277284328105 } },
  circular = {
    y = { 2.1967569311824131, 2.2532562398739464, 1.4380380464704225, 1.0176008706240349, 1.4282360783481685, 2.0186352382565462, 1.3736979973677053, 0.23152534421201665, 0.28645117520272095, 1.2702247439479906 },
    gx = { -0.75259029178636638, 0.11944514876993773, 0.97750099431074156, 0.4062404112761151, -0.64255155125878782, 1.1400081441961347, 0.24604844711647006, -1.0771854128324647, -0.75637244062579612, 0.64690771888707199 },
    gw = { -1.5721774974371259, -0.35839166893705149, 0.86184846102010926, 0.49673053475009288, 1.5067447774750249, -0.60587473942167502, -1.2077617189218841, 0.029583013915016099, 0.17020924749430974, 1.5032363650552567, 1.4247864073337519, 0.15151735940030694, -0.76688439608055026, -2.0076504731359082, -0.89526873853343047, 0.60496640935934165 },
    gb = { -0.51948064814306005, 0.94110443076360639 } },
}

-- Bug: conv 'same' cut a stride or dilation table of the wrong length to the conv's rank (a conv2d
-- with dilation {2, 1, 5} ran with {2, 1}); PyTorch refuses it. Values and gradients of the odd
-- 'same' padding of an unbatched C x L input and of a circular 'same' module against PyTorch.
function tests.convSamePadding()
  tester:assertErrorPattern(function()
    F.conv2d(D(1, 2, 5, 5):fill(1), D(3, 2, 2, 2):fill(1), nil, 1, 'same', { 2, 1, 5 })
  end, '%[nn.functional.conv2d%] dilation must be a number or a table of 2 numbers')
  tester:assertErrorPattern(function()
    F.conv2d(D(1, 2, 5, 5):fill(1), D(3, 2, 2, 2):fill(1), nil, { 1, 1, 1 }, 'same')
  end, 'conv2d%] stride must be a number or a table of 2 numbers')
  tester:assertErrorPattern(function() F.conv1d(D(2, 6):fill(1), D(3, 2, 2):fill(1), nil, 1, 'same', {}) end,
    'dilation must be')
  local x, w, b = fixture({ 2, 6 }):requiresGrad(), fixture({ 3, 2, 2 }, 0.5):requiresGrad(),
    fixture({ 3 }, 0.3, 1):requiresGrad()
  local y = F.conv1d(x, w, b, { 1 }, 'same', { 3 })
  torch.sum(torch.cmul(y, cosines(y))):backward()
  local r = CONV.same1d
  tester:assertTensorEq(y:detach():view(-1), D(r.y), 1e-13, 'same values')
  tester:assertTensorEq(x.grad:view(-1), D(r.gx), 1e-13, 'same input gradient')
  tester:assertTensorEq(w.grad:view(-1), D(r.gw), 1e-13, 'same weight gradient')
  tester:assertTensorEq(b.grad, D(r.gb), 1e-13, 'same bias gradient')
  local m = nn.Conv1d(2, 2, 4, { padding = 'same', paddingMode = 'circular' }):double()
  m.weight:copy(fixture({ 2, 2, 4 }, 0.5))
  m.bias:copy(fixture({ 2 }, 0.3, 1))
  local xm = fixture({ 1, 2, 5 })
  local ym = m:forward(xm)
  m:zeroGradParameters()
  local gx = m:backward(xm, cosines(ym))
  r = CONV.circular
  tester:assertTensorEq(ym:view(-1), D(r.y), 1e-13, 'circular values')
  tester:assertTensorEq(gx:view(-1), D(r.gx), 1e-13, 'circular input gradient')
  tester:assertTensorEq(m.gradWeight:view(-1), D(r.gw), 1e-13, 'circular weight gradient')
  tester:assertTensorEq(m.gradBias, D(r.gb), 1e-13, 'circular bias gradient')
end

-- Bug: nn.GroupNorm(3, 4) raised "[nn.GroupNormalization] ..." (its parent's name, located in the
-- library rather than at the caller); PyTorch's check (channels divisible by groups) names GroupNorm.
function tests.groupNormChecksItsGroups()
  tester:assertErrorPattern(function() nn.GroupNorm(3, 4) end, '^[^%[]*%[nn.GroupNorm%] numChannels %(4%) must be divisible')
  tester:assertErrorPattern(function() nn.GroupNorm(0, 4) end, 'nn.GroupNorm')
  local m = nn.GroupNorm(2, 4):double()
  local x = fixture({ 2, 4, 3 })
  tester:assertTensorEq(m:forward(x), F.groupNorm(x, 2, m.weight, m.bias), 1e-14, 'module equals the function')
end

tester:add(tests)
tester:run()
