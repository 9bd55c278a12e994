-- nn.functional's extra activations, dropouts, windows and attention (functional_extra.lua,
-- functional_fold.lua, functional_attention.lua): values against PyTorch 1.13's numbers, agreement
-- with the nn modules computing the same thing, gradchecks in f64, Monte-Carlo checks of the random
-- ones (tolerances from the sample size), errors.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local F = nn.functional
local D = torch.DoubleTensor

local function gradcheck(f, inputs, what)
  local ok, err = pcall(torch.autograd.gradcheck, f, inputs)
  tester:assert(ok and err == true, (what or '') .. ': ' .. tostring(err))
end
local function rq(...) return torch.randn(...):double():requiresGrad() end
-- The deterministic inputs of the reference script: 2 sin(0.37 i), i = 1..n, viewed to the size.
local function X(size, s)
  local n = 1
  for _, d in ipairs(size) do n = n * d end
  return torch.range(1, n):double():mul(s or 0.37):sin():mul(2):view(torch.LongStorage(size))
end
local function near(got, want, tol, what)
  tester:assertTensorEq(got:double():contiguous():view(-1), D(want), tol or 1e-11, what)
end

-- PyTorch 1.13's values (float64) for the inputs X(...) above (the script computed
-- scaled_dot_product_attention by hand, softmax(q k^T scale + mask) v: 1.13 lacks it). Indices +1.
local PT = {
  celu = { 0.7232308639299, 1.348575823256, 1.79139737136, 1.991761689075, 1.922550405951, 1.593130944472,
    1.048088683375, 0.3611925357885, -0.2900838096917, -0.5459522237653, -0.6289445216309, -0.6553310925747 },
  threshold = { 0.7232308639299, 1.348575823256, 1.79139737136, 1.991761689075, 1.922550405951, 1.593130944472,
    1.048088683375, 0.3611925357885, -2, -2, -2, -2 },
  hardshrink = { 0.7232308639299, 1.348575823256, 1.79139737136, 1.991761689075, 1.922550405951, 1.593130944472,
    1.048088683375, 0, 0, -1.059672281817, -1.601333564352, -1.926261861147 },
  softshrink = { 0.1232308639299, 0.7485758232563, 1.19139737136, 1.391761689075, 1.322550405951, 0.9931309444722,
    0.4480886833746, 0, 0, -0.459672281817, -1.001333564352, -1.326261861147 },
  tanhshrink = { 0.1043242777438, 0.4748591037525, 0.8454895261861, 1.028320798654, 0.9644234733232, 0.6725029402577,
    0.267026516309, 0.01492851636504, -0.01658991568731, -0.2741338834228, -0.6794645189461, -0.9678316956882 },
  rrelu = { 0.7232308639299, 1.348575823256, 1.79139737136, 1.991761689075, 1.922550405951, 1.593130944472,
    1.048088683375, 0.3611925357885, -0.07491786541716, -0.2119344563634, -0.3202667128703, -0.3852523722293 },
  prelu = { 0.7232308639299, 1.348575823256, 1.79139737136, 1.991761689075, 1.922550405951, 1.593130944472,
    1.048088683375, 0.3611925357885, 0.07491786541716, 0.2119344563634, -0.4804000693055, -0.577878558344 },
  prelu1 = { 0.7232308639299, 1.348575823256, 1.79139737136, 1.991761689075, 1.922550405951, 1.593130944472,
    1.048088683375, 0.3611925357885, -0.09364733177145, -0.2649180704542, -0.4003333910879, -0.4815654652867 },
  glu = { 0.5354857041898, 0.7947549528182, 0.7298735911178, 0.512623862821, 0.3225949478389, 0.2025903582005,
    -1.583493403616, -1.531487270709, -1.177935783324, -0.6195614558471, 0.01131081574159, 0.5432316482698 },
  logsigmoid = { -0.3955374336856, -0.2308019330053, -0.1542024161222, -0.1279136121819, -0.1364813769951,
    -0.185057918246, -0.3005542917209, -0.5287705371583, -0.897879892378, -1.357232431625, -1.785010415188,
    -2.062270506093 },
  unfold = { 0, 0, 0, 0.3611925357885, -0.3745893270858, -1.059672281817, 1.918749667786, 1.584854339817,
    1.036456411842, 0, 0, 0, -1.059672281817, -1.601333564352, -1.926261861147, 1.036456411842, 0.3477789707609,
    -0.3879687225078, 0, 0, 0, -1.926261861147, -1.990479651538, -1.785295358856, -0.3879687225078, -1.071206669229,
    -1.609461818527, 0.7232308639299, 1.348575823256, 1.79139737136, -1.338479714553, -0.7105071199761,
    0.01362928014954, -1.929883861014, -1.989105176408, -1.779110437489, 1.79139737136, 1.991761689075,
    1.922550405951, 0.01362928014954, 0.7359210211448, 1.35860930429, -1.779110437489, -1.32832144704,
    -0.6977503801721, 1.922550405951, 1.593130944472, 1.048088683375, 1.35860930429, 1.797416191623, 1.992951229481,
    -0.6977503801721, 0.02725792735724, 0.7485770022915 },
  fold = { 1.526028027427, 0.6631325262531, 0.9967693597129, 1.921916065745, 0.5707151724163, -0.4418079158402,
    0.604893858852, 1.705880963106, 0.9440610825798, 1.063711646176, 1.814597444034, 0.4162455050547,
    -0.7350951035158, 0.3060515438322, -1.321829060165, -1.899249755497, -0.5332207294548, 0.5163807071359,
    0.9543727170737, 1.958715286208, 1.894365483634, -1.07658101658, -1.780967617164, -0.3759481764911,
    0.8059734574493, 1.033287459083, 1.87378216024, 1.970203017483, -1.475263201137, -0.5901918663562,
    -0.9762910251682, -1.941747659472, -0.6073678430667, 0.3665834830805, -0.6776469383574 },
  fold_counts = { 1, 2, 1, 2, 1, 1, 2, 4, 2, 4, 2, 2, 1, 2, 1, 2, 1, 1, 2, 4, 2, 4, 2, 2, 1, 2, 1, 2, 1, 1 },
  mp_d2_v = { 1.991761689075, 1.991761689075, 1.991761689075, 1.593130944472, -1.601333564352, -1.338479714553,
    0.01362928014954, 0.01362928014954, 1.918749667786, 1.918749667786, 1.918749667786, 1.036456411842,
    -1.779110437489, -0.6977503801721, 0.7485770022915, 0.7485770022915 },
  mp_d2_i = { 4, 4, 4, 6, 2, 6, 8, 8, 4, 4, 4, 6, 4, 6, 8, 8 },
  mp_d1_v = { 1.348575823256, 1.991761689075, 1.991761689075, 1.593130944472, 0.3611925357885, -1.059672281817,
    -1.601333564352, -1.338479714553, 0.01362928014954, 0.7359210211448, 1.797416191623, 1.992951229481,
    1.918749667786, 1.036456411842, -0.3879687225078, -1.609461818527, -1.779110437489, -0.6977503801721,
    0.7485770022915, 1.368579691699 },
  mp_d1_i = { 2, 4, 4, 6, 8, 1, 2, 6, 8, 9, 2, 3, 4, 6, 8, 1, 4, 6, 8, 9 },
  mp_d3_v = { 1.991761689075, 1.991761689075, -1.059672281817, -0.7105071199761, 1.918749667786, 1.918749667786,
    -1.609461818527, 0.02725792735724 },
  mp_d3_i = { 4, 4, 1, 7, 4, 4, 1, 7 },
  ap_cip = { 0.6906022290621, 1.710578294564, 1.835814346499, 1.000804054545, -0.004465597099114, -0.8870019487229,
    -1.839358359012, -1.704751574982, -0.6784525181264, 0.2498501004314, 1.052008498638, 1.90303902963,
    1.513353473148, 0.3320888866983, -0.4863917972455, -1.17978189318, -1.899366491637, -1.268394088234,
    0.02602818315888, 0.7057188979969 },
  ap_nocip = { 1.035903343593, 1.710578294564, 1.835814346499, 1.000804054545, -0.00669839564867, -1.330502923084,
    -1.839358359012, -1.704751574982, -0.6784525181264, 0.3747751506472, 1.578012747956, 1.90303902963,
    1.513353473148, 0.3320888866983, -0.7295876958682, -1.769672839771, -1.899366491637, -1.268394088234,
    0.02602818315888, 1.058578346995 },
  ap_plain = { 1.463741436905, 1.231240642396, -1.644436839713, -0.9551632283089, 1.766931598295, 0.645280249978,
    -1.82689032336, -0.3125592243909 },
  lp1 = { 2.047184171847, 2.748217436605, 2.308407638384, 1.077503759318, 2.317294163625, 2.746779674323,
    2.036563933386, 0.911474853231, 2.531878763351, 2.666554059387, 1.725368991582, 1.099628830727, 2.678978485194,
    2.511679453704, 1.38962821309, 1.43949803351 },
  lp1b = { 3.085115686939, 2.731888761605, 3.370410736107, 2.341754382816, 3.567909625864, 1.964045598817,
    3.665595778846, 1.677022356041 },
  lp2 = { 3.052513770336, 3.219338910296, 3.50229950009, 3.359069671709, 3.639692056698, 3.815615371704,
    3.05039312411, 3.116783477369, 3.36442039304, 3.228674121524, 3.512843429485, 3.752055954625, 3.101278645845,
    3.056302770392, 3.233399945946, 3.123443761575, 3.375151587643, 3.653163255704, 3.196728363725, 3.047825821245,
    3.126868882991, 3.05923022011, 3.242962811037, 3.528530691188 },
  lp2b = { 3.026428184805, 3.174096095528, 3.836016640119, 3.039966316881, 3.800347463601, 3.972137139336,
    4.928877648379, 3.338783414502, 0.8763480919448, 3.022342639569, 3.043729397444, 3.626485487246, 3.022023533929,
    3.605569307214, 4.024378220236, 4.940455358536, 3.915418850453, 1.725994161564, 3.031223650883, 3.02198953937,
    3.363982540603, 3.025886678847, 3.370502498849, 3.989105181239, 4.804184863719, 4.378343476927, 2.523049787887,
    3.146340184748, 3.025735142099, 3.093390780179, 3.026932180353, 3.20240506975, 3.868751980239, 4.52446328617,
    4.711783257882, 3.243228962506 },
  amp_v = { 1.79139737136, 1.991761689075, 1.922550405951, 1.048088683375, -1.059672281817, -1.785295358856,
    -0.7105071199761, 0.7359210211448, 1.992951229481, 1.992951229481, 1.584854339817, 0.3477789707609,
    -1.609461818527, -1.32832144704, 0.02725792735724, 1.368579691699 },
  amp_i = { 3, 4, 5, 7, 1, 5, 7, 9, 3, 3, 5, 7, 1, 5, 7, 9 },
  aap = { 1.287734686182, 1.901903155462, 1.521256677932, 0.3448972973591, -1.529089235772, -1.90067895718,
    -1.278094064462, 0.01301439377274, 1.716325575131, 1.832185079028, 0.98969657414, -0.3704654736585,
    -1.842816951983, -1.698845686979, -0.6662712999517, 0.7148048737826 },
  sdpa_plain = { 1.306639670183, 1.589647141353, 1.788932332721, 1.502795215573, 1.725225498145, 1.856792967128,
    1.166489864172, 0.7923230010284, 0.3764266960106, -0.007017534256091, 0.3378255532585, 0.66487631142,
    -1.876215103673, -1.969732564415, -1.959509706564, -1.694817505563, -1.584076083937, -1.389905794559 },
  sdpa_causal = { 0.4559550470704, 0.887896213931, 1.273074364444, 1.447010707168, 1.706435433802, 1.875986967112,
    1.976717492414, 1.913891909879, 1.750266980229, -1.025538614711, -1.389981946433, -1.6812188071, -1.876073955003,
    -1.98192797235, -1.983399372994, -1.834096006318, -1.772268650753, -1.617100850001 },
  sdpa_bool = { 0.4766888925823, 0.9018495287224, 1.279512266354, 1.637037915728, 1.834538765872, 1.935419577601,
    0.6895266763244, 1.080809232737, 1.41516858233, -1.054331133909, -1.033499416274, -0.9582361678581,
    -1.883764471598, -1.974900501901, -1.962024032761, -1.769326887295, -1.907635348029, -1.945473977306 },
  sdpa_float = { 1.383692905724, 1.645793596275, 1.821214929891, 1.557322758507, 1.737667838975, 1.826494802475,
    1.336540597139, 0.990642551316, 0.5925701262181, -0.01322409147739, 0.3150621267382, 0.6267549017652,
    -1.786479177509, -1.885349182915, -1.884923107001, -1.176166730146, -1.049701769317, -0.8679519449777 },
  sdpa_4d = { 1.373761401353, 1.528186045638, 1.404376147879, 1.687196959121, 1.631873670561, 1.279437589551,
    1.783352852648, 1.645727144949, 1.208466363491, 1.767630200407, 1.471362424959, 0.9072058988851,
    -0.0250141902352, -0.2053064433836, -0.3482188602114, -1.812445961403, -1.763582597731, -1.393626394717,
    -1.810334378169, -1.949464335013, -1.73365824331, -1.793579085892, -1.907478191468, -1.6740856027,
    -1.576412122336, -1.502176146696, -1.154441212314, 1.28358866785, 1.339434703208, 1.151411870434, 1.748781083407,
    1.509773559619, 0.9958838275102, 1.823941953403, 1.490623858949, 0.885910113463 },
}

function tests.activationsMatchPyTorch()
  local x = X({ 2, 3, 2 })
  near(F.celu(x, 0.7), PT.celu, 1e-11, 'celu')
  near(F.threshold(x, 0.3, -2), PT.threshold, 1e-11, 'threshold')
  near(F.hardshrink(x, 0.6), PT.hardshrink, 1e-11, 'hardshrink')
  near(F.softshrink(x, 0.6), PT.softshrink, 1e-11, 'softshrink')
  near(F.tanhshrink(x), PT.tanhshrink, 1e-11, 'tanhshrink')
  near(F.rrelu(x, 0.1, 0.3), PT.rrelu, 1e-11, 'rrelu')
  near(F.prelu(x, D({ 0.1, -0.2, 0.3 })), PT.prelu, 1e-11, 'prelu')
  near(F.prelu(x, D({ 0.25 })), PT.prelu1, 1e-11, 'prelu shared')
  near(F.glu(X({ 2, 4, 3 }), 2), PT.glu, 1e-11, 'glu')
  near(F.logsigmoid(x), PT.logsigmoid, 1e-11, 'logsigmoid')
  tester:assert(rawequal(F.logsigmoid, F.logSigmoid), 'logsigmoid is logSigmoid')
  tester:assertTensorEq(F.celu(x), torch.elu(x), 1e-15, 'celu alpha 1 is elu')
  tester:assertTensorEq(F.glu(x), torch.cmul(x:narrow(3, 1, 1), torch.sigmoid(x:narrow(3, 2, 1))), 0)
end

-- Same ops in the same order as the modules: equal to the last bit (the random ones from one seed).
function tests.activationsAgreeWithModules()
  local x = torch.randn(3, 4, 5):double()
  local function same(a, b, what) tester:assertTensorEq(a, b, 0, what) end
  same(F.threshold(x, 0.3, -2), nn.Threshold(0.3, -2):double():forward(x), 'Threshold')
  same(F.hardshrink(x, 0.6), nn.HardShrink(0.6):double():forward(x), 'HardShrink')
  same(F.softshrink(x, 0.6), nn.SoftShrink(0.6):double():forward(x), 'SoftShrink')
  same(F.tanhshrink(x), nn.TanhShrink():double():forward(x), 'TanhShrink')
  same(F.glu(x:narrow(2, 1, 4), 2), nn.GatedLinearUnit(2):double():forward(x:narrow(2, 1, 4)), 'GatedLinearUnit')
  local r = nn.RReLU(0.1, 0.4):double()
  torch.manualSeed(5)
  local m = r:forward(x):clone()
  torch.manualSeed(5)
  same(F.rrelu(x, 0.1, 0.4, true), m, 'RReLU training')
  r:evaluate()
  same(F.rrelu(x, 0.1, 0.4, false), r:forward(x), 'RReLU evaluate')
  local p = nn.PReLU(4):double()
  p.weight:copy(D({ 0.1, -0.3, 0.5, 2 }))
  same(F.prelu(x, p.weight), p:forward(x), 'PReLU(4)')
  same(F.prelu(x[1][1], D({ 0.25 })), nn.PReLU():double():forward(x[1][1]), 'PReLU() shared')
  local v = torch.randn(4):double()
  same(F.prelu(v, p.weight), p:forward(v), 'PReLU(4) on a vector: dim 1')
end

function tests.activationGradients()
  local cases = {
    { 'celu', function(a) return F.celu(a, 0.6) end },
    { 'threshold', function(a) return F.threshold(a, 0.3, -2) end },
    { 'hardshrink', function(a) return F.hardshrink(a, 0.4) end },
    { 'softshrink', function(a) return F.softshrink(a, 0.4) end },
    { 'tanhshrink', F.tanhshrink },
    { 'rrelu', function(a) return F.rrelu(a, 0.1, 0.3) end },
    { 'glu', function(a) return F.glu(a, 1) end },
    { 'gumbelSoftmax (one seed per call)', function(a) torch.manualSeed(9) return F.gumbelSoftmax(a, { tau = 0.7 }) end },
  }
  for _, c in ipairs(cases) do gradcheck(c[2], { rq(4, 5) }, c[1]) end
  gradcheck(function(a, w) return F.prelu(a, w) end, { rq(3, 4, 2), rq(4) }, 'prelu')
  gradcheck(function(a, w) return F.prelu(a, w) end, { rq(3, 4), rq(1) }, 'prelu shared')
  -- rrelu training: the gradient is each element's factor (1 where x > 0, its drawn slope elsewhere)
  local x = rq(200)
  local y = F.rrelu(x, 0.2, 0.3, true)
  y:sum():backward()
  tester:assertTensorEq(x.grad, torch.cdiv(y:detach(), x:detach()), 1e-14, 'rrelu training gradient')
  local neg = torch.le(x:detach(), 0)
  local slopes = x.grad:maskedSelect(neg)
  tester:assert(slopes:min() >= 0.2 and slopes:max() <= 0.3 and slopes:std() > 0, 'slopes drawn from U(0.2, 0.3)')
end

function tests.gumbelSoftmax()
  -- Gumbel-max: the hard sample's argmax is class i with probability softmax(logits)_i, whatever tau.
  local n, probs = 40000, D({ 0.1, 0.2, 0.3, 0.4 })
  torch.manualSeed(3)
  local logits = torch.log(probs):view(1, 4):expand(n, 4):contiguous()
  local y = F.gumbelSoftmax(logits, { tau = 0.3, hard = true })
  tester:assertTensorEq(y:sum(2):view(n), torch.ones(n):double(), 0, 'one-hot rows')
  tester:asserteq(torch.eq(y, 0):sum() + torch.eq(y, 1):sum(), 4 * n, 'hard samples are 0 or 1')
  local freq = y:sum(1):view(4):div(n)
  for i = 1, 4 do
    local sd = math.sqrt(probs[i] * (1 - probs[i]) / n)
    tester:assertlt(math.abs(freq[i] - probs[i]), 5 * sd, 'class ' .. i .. ' frequency')
  end
  -- soft samples along dim 1 sum to 1; a lower tau sharpens them
  local s = F.gumbelSoftmax(torch.randn(5, 3):double(), { dim = 1 })
  tester:assertTensorEq(s:sum(1):view(3), torch.ones(3):double(), 1e-12)
  -- straight-through: the hard sample's gradient is the soft sample's (same noise: same seed)
  local w, a = torch.randn(6, 5):double(), rq(6, 5)
  torch.manualSeed(11)
  local h = F.gumbelSoftmax(a, { hard = true, tau = 0.5 })
  torch.cmul(h, w):sum():backward()
  local gh = a.grad:clone()
  a.grad = nil
  torch.manualSeed(11)
  local soft = F.gumbelSoftmax(a, { tau = 0.5 })
  torch.cmul(soft, w):sum():backward()
  tester:assertTensorEq(gh, a.grad, 1e-14, 'straight-through gradient')
  local _, am = torch.max(soft:detach(), 2)
  tester:assertTensorEq(h:detach(), torch.zeros(6, 5):double():scatter(2, am, 1), 1e-15, 'one-hot of the soft argmax')
end

function tests.channelDropoutsAgreeWithModules()
  local cases = { { 'dropout1d', nn.TemporalDropout, { 3, 4, 5 } }, { 'dropout2d', nn.SpatialDropout, { 2, 3, 4, 5 } },
                  { 'dropout3d', nn.VolumetricDropout, { 2, 3, 2, 3, 4 } } }
  for _, c in ipairs(cases) do
    for _, batched in ipairs({ true, false }) do
      local size = { unpack(c[3], batched and 1 or 2) }
      local x = torch.randn(torch.LongStorage(size)):double()
      torch.manualSeed(21)
      local want = c[2](0.4, false, true):double():forward(x):clone()
      torch.manualSeed(21)
      tester:assertTensorEq(F[c[1]](x, 0.4), want, 0, c[1] .. ' against ' .. torch.type(c[2]()))
      tester:assert(rawequal(F[c[1]](x, 0.4, false), x), c[1] .. ' is the identity when not training')
      tester:assertTensorEq(F[c[1]](x, 1), torch.zeros(x:size()):double(), 0, c[1] .. ' p = 1')
    end
  end
  -- whole channels: each (n, c) plane all dropped or all scaled by 1 / (1 - p), with frequency p;
  -- the gradient is the same mask
  torch.manualSeed(4)
  local n, p = 4000, 0.3
  local x = (torch.rand(n, 5, 2, 2):double() + 1):requiresGrad()
  local y = F.dropout2d(x, p)
  y:sum():backward()
  local ratio = torch.cdiv(y:detach(), x:detach()):view(n * 5, 4)
  tester:assertTensorEq(ratio:max(2), ratio:min(2), 1e-12, 'a plane is kept or dropped whole')
  tester:assertTensorEq(x.grad:view(n * 5, 4), ratio, 1e-15, 'gradient = mask')
  local kept = torch.gt(ratio:select(2, 1), 0):sum()
  tester:assertTensorEq(ratio:select(2, 1):maskedSelect(torch.gt(ratio:select(2, 1), 0)),
    torch.DoubleTensor(kept):fill(1 / (1 - p)), 1e-12, 'kept planes scaled by 1 / (1 - p)')
  tester:assertlt(math.abs(kept / (n * 5) - (1 - p)), 5 * math.sqrt(p * (1 - p) / (n * 5)), 'drop frequency')
end

-- Note [Alpha dropout]: kept x -> a x + alpha a p, dropped -> -alpha a (1 - p), zero mean and unit
-- variance preserved for a standard normal input.
function tests.alphaDropouts()
  local alpha, p = 1.7580993408473766, 0.2
  local a = 1 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
  local x = torch.randn(100, 8):double()
  tester:assert(rawequal(F.alphaDropout(x, p), x), 'not training by default')
  tester:assert(rawequal(F.featureAlphaDropout(x, p), x), 'not training by default')
  tester:assertTensorEq(F.alphaDropout(x, 1, true), torch.zeros(100, 8):double(), 0, 'p = 1')
  torch.manualSeed(8)
  local n = 200000
  local z = torch.randn(n):double():requiresGrad()
  local y = F.alphaDropout(z, p, true)
  y:sum():backward()
  local keep = torch.gt(z.grad, 0)
  local kept = keep:sum()
  local want = torch.add(torch.mul(z:detach(), a), alpha * a * p)
  tester:assertTensorEq(y:detach():maskedSelect(keep), want:maskedSelect(keep), 1e-14, 'kept values')
  tester:assertTensorEq(y:detach():maskedSelect(torch.eq(keep, 0)), D(n - kept):fill(-alpha * a * (1 - p)), 1e-14,
    'dropped values')
  tester:assertTensorEq(z.grad:maskedSelect(keep), D(kept):fill(a), 1e-15, 'gradient a where kept')
  tester:assertlt(math.abs(kept / n - (1 - p)), 5 * math.sqrt(p * (1 - p) / n), 'keep frequency')
  local yd = y:detach()
  local mean, var = yd:mean(), yd:var()
  local m4 = torch.pow(yd - mean, 4):mean()
  tester:assertlt(math.abs(mean), 5 * math.sqrt(var / n), 'mean 0')
  tester:assertlt(math.abs(var - 1), 5 * math.sqrt((m4 - var * var) / n), 'variance 1')
  -- feature: one draw per (dim 1, dim 2) pair
  local f = F.featureAlphaDropout(torch.randn(50, 6, 3, 2):double(), 0.5, true)
  local g = F.featureAlphaDropout(torch.zeros(50, 6, 3, 2):double(), 0.5, true):view(300, 6)
  tester:assertTensorEq(g:max(2), g:min(2), 0, 'featureAlphaDropout drops planes whole')
  local dropped = torch.lt(g:select(2, 1), 0):sum()
  tester:assert(dropped > 100 and dropped < 200, 'about half the 300 planes dropped: ' .. dropped)
  tester:assertTableEq(f:size():totable(), { 50, 6, 3, 2 })
end

function tests.unfoldFoldMatchPyTorch()
  local o = { dilation = { 1, 2 }, padding = { 1, 0 }, stride = { 2, 1 } }
  local x = X({ 1, 1, 5, 7 })
  local u = F.unfold(x, { 2, 3 }, o)
  tester:assertTableEq(u:size():totable(), { 1, 6, 9 })
  near(u, PT.unfold, 1e-11, 'unfold')
  tester:assertTensorEq(F.unfold(x[1], { 2, 3 }, o), u[1], 0, 'unbatched unfold')
  local c = X({ 1, 6, 9 }, 0.53)
  near(F.fold(c, { 5, 7 }, { 2, 3 }, o), PT.fold, 1e-11, 'fold')
  tester:assertTensorEq(F.fold(c[1], { 5, 7 }, { 2, 3 }, o), F.fold(c, { 5, 7 }, { 2, 3 }, o)[1], 0, 'unbatched fold')
  -- fold(unfold(x)) = x times each pixel's window count (PyTorch's counts for 3x3 windows, stride 2, padding 1)
  local counts = F.fold(F.unfold(torch.ones(1, 1, 5, 6):double(), 3, { padding = 1, stride = 2 }), { 5, 6 }, 3,
    { padding = 1, stride = 2 })
  near(counts, PT.fold_counts, 0, 'window counts')
  local z = torch.randn(2, 3, 5, 6):double()
  local back = F.fold(F.unfold(z, 3, { padding = 1, stride = 2 }), { 5, 6 }, 3, { padding = 1, stride = 2 })
  tester:assertTensorEq(back, torch.cmul(z, counts:expandAs(z)), 1e-13, 'fold(unfold(x)) = x * counts')
  -- adjoint: <unfold(x), y> = <x, fold(y)>
  local y = torch.randn(2, 27, 9):double()
  local lhs = torch.cmul(F.unfold(z, 3, { padding = 1, stride = 2 }), y):sum()
  local rhs = torch.cmul(z, F.fold(y, { 5, 6 }, 3, { padding = 1, stride = 2 })):sum()
  tester:assertalmosteq(lhs, rhs, 1e-11, 'fold is the adjoint of unfold')
  -- a convolution as unfold + matmul (PyTorch's documented use)
  local w = torch.randn(4, 3, 3, 3):double()
  local conv = torch.matmul(w:view(4, 27), F.unfold(z, 3, { padding = 1 })):view(2, 4, 5, 6)
  tester:assertTensorEq(conv, torch.conv2d(z, w, nil, 1, 1), 1e-12, 'unfold + matmul = conv2d')
  gradcheck(function(a) return F.unfold(a, { 2, 3 }, o) end, { rq(2, 2, 4, 5) }, 'unfold')
  gradcheck(function(a) return F.fold(a, { 5, 7 }, { 2, 3 }, o) end, { rq(2, 12, 9) }, 'fold')
end

function tests.poolingMatchesPyTorch()
  local x = X({ 2, 2, 9 })
  local v, i = F.maxPool1d(x, 3, 2, 1, 2, true, true)
  near(v, PT.mp_d2_v, 1e-11, 'maxPool1d dilation 2')
  near(i, PT.mp_d2_i, 0, 'maxPool1d dilation 2 indices')
  v, i = F.maxPool1d(x, 3, 2, 1, 1, true, true)
  near(v, PT.mp_d1_v, 1e-11, 'maxPool1d ceil')
  near(i, PT.mp_d1_i, 0, 'maxPool1d ceil indices')
  v, i = F.maxPool1d(x, 2, 3, 0, 3, false, true)
  near(v, PT.mp_d3_v, 1e-11, 'maxPool1d dilation 3')
  near(i, PT.mp_d3_i, 0, 'maxPool1d dilation 3 indices')
  local vu, iu = F.maxPool1d(x[2], 2, 3, 0, 3, false, true)
  tester:assertTensorEq(vu, v[2], 0, 'unbatched')
  tester:assertTensorEq(iu, i[2], 0, 'unbatched indices')
  tester:asserteq(select('#', F.maxPool1d(x, 3)), 1, 'no indices unless asked')
  near(F.avgPool1d(x, 3, 2, 1, true, true), PT.ap_cip, 1e-11, 'avgPool1d countIncludePad')
  near(F.avgPool1d(x, 3, 2, 1, true, false), PT.ap_nocip, 1e-11, 'avgPool1d')
  near(F.avgPool1d(x, 4), PT.ap_plain, 1e-11, 'avgPool1d default stride')
  near(F.lpPool1d(torch.abs(x), 3, 3, 2, true), PT.lp1, 1e-11, 'lpPool1d p = 3, ceil')
  near(F.lpPool1d(x, 2, 4), PT.lp1b, 1e-11, 'lpPool1d p = 2')
  local x4 = X({ 2, 2, 5, 5 })
  near(F.lpPool2d(x4, 2, { 2, 3 }, { 2, 1 }), PT.lp2, 1e-11, 'lpPool2d')
  near(F.lpPool2d(torch.abs(x4), 1.5, 2, nil, true), PT.lp2b, 1e-11, 'lpPool2d p = 1.5, ceil')
  v, i = F.adaptiveMaxPool1d(x, 4, true)
  near(v, PT.amp_v, 1e-11, 'adaptiveMaxPool1d')
  near(i, PT.amp_i, 0, 'adaptiveMaxPool1d indices')
  near(F.adaptiveAvgPool1d(x, 4), PT.aap, 1e-11, 'adaptiveAvgPool1d')
end

function tests.poolingAgreesWithModules()
  local x = torch.randn(2, 3, 11):double()
  local xt = x:transpose(2, 3):contiguous()  -- N x L x C for TemporalMaxPooling
  tester:assertTensorEq(F.maxPool1d(x, 3, 2), nn.TemporalMaxPooling(3, 2):double():forward(xt):transpose(2, 3), 0, 'TemporalMaxPooling')
  local x4 = x:view(2, 3, 1, 11)
  tester:assertTensorEq(F.avgPool1d(x, 3, 2, 1):view(2, 3, 1, -1), nn.SpatialAveragePooling(3, 1, 2, 1, 1, 0):double():forward(x4), 0,
    'SpatialAveragePooling')
  tester:assertTensorEq(F.maxPool1d(x, 3, 2, 1):view(2, 3, 1, -1), nn.SpatialMaxPooling(3, 1, 2, 1, 1, 0):double():forward(x4), 0,
    'SpatialMaxPooling')
  local y = torch.rand(2, 3, 6, 7):double()
  for _, p in ipairs({ 2, 3 }) do
    tester:assertTensorEq(F.lpPool2d(y, p, { 2, 3 }, { 2, 1 }), nn.SpatialLPPooling(3, p, 3, 2, 1, 2):double():forward(y), 0,
      'SpatialLPPooling p = ' .. p)
  end
  tester:assertTensorEq(F.adaptiveAvgPool1d(x, 4):view(2, 3, 1, 4), nn.SpatialAdaptiveAveragePooling(4, 1):double():forward(x4), 0,
    'SpatialAdaptiveAveragePooling')
  tester:assertTensorEq(F.adaptiveMaxPool1d(x, 4):view(2, 3, 1, 4), nn.SpatialAdaptiveMaxPooling(4, 1):double():forward(x4), 0,
    'SpatialAdaptiveMaxPooling')
  -- the dilated (gathering) path against a plain loop over the -inf padded windows, ceil mode
  local z = torch.randn(2, 14):double()
  local v, i = F.maxPool1d(z, 3, 2, 1, 3, true, true)
  tester:asserteq(v:size(2), 6, 'ceil((14 + 2 - 7) / 2) + 1 windows')
  tester:asserteq(F.maxPool1d(z, 3, 2, 1, 3):size(2), 5, 'floor((14 + 2 - 7) / 2) + 1 windows')
  for r = 1, 2 do
    for o = 1, v:size(2) do
      local best, at = -math.huge, nil
      for j = 0, 2 do
        local pos = (o - 1) * 2 + j * 3  -- 1-based position in the unpadded row (padding 1)
        if pos >= 1 and pos <= 14 and z[r][pos] > best then best, at = z[r][pos], pos end
      end
      tester:asserteq(v[r][o], best, 'window ' .. o)
      tester:asserteq(i[r][o], at, 'argmax ' .. o)
    end
  end
  for _, c in ipairs({
    { 'maxPool1d dilated', function(a) return F.maxPool1d(a, 3, 2, 1, 2, true) end },
    { 'maxPool1d', function(a) return F.maxPool1d(a, 3, 2, 1) end },
    { 'avgPool1d', function(a) return F.avgPool1d(a, 3, 2, 1, true, false) end },
    { 'lpPool1d', function(a) return F.lpPool1d(torch.add(torch.abs(a), 0.5), 3, 3, 2) end },
    { 'adaptiveMaxPool1d', function(a) return F.adaptiveMaxPool1d(a, 4) end },
    { 'adaptiveAvgPool1d', function(a) return F.adaptiveAvgPool1d(a, 4) end },
  }) do gradcheck(c[2], { rq(2, 2, 9) }, c[1]) end
  gradcheck(function(a) return F.lpPool2d(torch.add(torch.abs(a), 0.5), 1.5, { 2, 3 }) end, { rq(1, 2, 4, 6) }, 'lpPool2d')
end

function tests.scaledDotProductAttention()
  local q, k, v = X({ 2, 3, 4 }, 0.41), X({ 2, 5, 4 }, 0.29), X({ 2, 5, 3 }, 0.23)
  local sdpa = F.scaledDotProductAttention
  near(sdpa(q, k, v), PT.sdpa_plain, 1e-11, 'plain')
  near(sdpa(q, k, v, { isCausal = true }), PT.sdpa_causal, 1e-11, 'causal')
  local keep = { { 1, 0, 1, 1, 0 }, { 0, 1, 1, 0, 1 }, { 1, 1, 0, 0, 0 } }
  near(sdpa(q, k, v, { attnMask = torch.ByteTensor(keep) }), PT.sdpa_bool, 1e-11, 'ByteTensor mask')
  near(sdpa(q, k, v, { attnMask = torch.BoolTensor(keep) }), PT.sdpa_bool, 1e-11, 'BoolTensor mask')
  near(sdpa(q, k, v, { attnMask = X({ 2, 1, 5 }, 0.61), scale = 0.3 }), PT.sdpa_float, 1e-11, 'float mask, scale')
  near(sdpa(X({ 2, 2, 3, 4 }, 0.17), X({ 2, 5, 4 }, 0.31), X({ 2, 5, 3 }, 0.43)), PT.sdpa_4d, 1e-11, 'broadcast batch')
  tester:assertTensorEq(sdpa(q, k, v, { isCausal = true }), sdpa(q, k, v, { attnMask = torch.ones(3, 5):byte():tril() }),
    1e-15, 'isCausal is the lower-triangular keep mask')
  -- dropout on the attention weights: F.dropout's draws
  torch.manualSeed(12)
  local y = sdpa(q, k, v, { dropoutP = 0.4 })
  torch.manualSeed(12)
  local w = F.dropout(torch.softmax(torch.matmul(q, k:transpose(2, 3)):div(2), 3), 0.4)
  tester:assertTensorEq(y, torch.matmul(w, v), 1e-14, 'dropoutP')
  tester:assertTensorEq(sdpa(q, k, v, { dropoutP = 1 }), torch.zeros(2, 3, 3):double(), 0, 'dropoutP = 1')
  gradcheck(function(a, b, c, m) return sdpa(a, b, c, { attnMask = m }) end, { rq(2, 3, 4), rq(2, 5, 4), rq(2, 5, 3), rq(3, 5) },
    'float mask')
  gradcheck(function(a, b, c) return sdpa(a, b, c, { isCausal = true, scale = 0.7 }) end, { rq(2, 4, 3), rq(2, 4, 3), rq(2, 4, 2) },
    'causal')
  local msg = '%[nn.functional.scaledDotProductAttention%] '
  tester:assertErrorPattern(function() sdpa(q, k, v, { isCausal = true, attnMask = torch.ones(3, 5):byte() }) end,
    msg .. 'give attnMask or isCausal, not both')
  tester:assertErrorPattern(function() sdpa(q, k:narrow(3, 1, 3), v) end, msg .. 'query 2x3x4, key 2x5x3 and value 2x5x3 do not fit')
  tester:assertErrorPattern(function() sdpa(q, k, v, { attnMask = torch.ones(4, 5):byte() }) end,
    msg .. 'attnMask of size 4x5 does not broadcast to the scores of size 2x3x5')
  tester:assertErrorPattern(function() sdpa(q, k, v, { causal = true }) end, msg .. 'unknown option causal')
  tester:assertErrorPattern(function() sdpa(q, k, v, { attnMask = torch.ones(3, 5):long() }) end, msg .. 'attnMask must be boolean')
end

function tests.errorsNameTheFunction()
  local x = torch.randn(2, 3, 4):double()
  local cases = {
    { function() F.unfold(torch.randn(3, 4):double(), 2) end, 'unfold%] expected a 4D %(N x C x H x W%) or 3D' },
    { function() F.unfold(x:view(1, 2, 3, 4), 5) end, 'unfold%] a spatial size of 3x4 padded by 0x0 is smaller than the dilated kernel 5x5' },
    { function() F.unfold(x:view(1, 2, 3, 4), 2, { pad = 1 }) end, 'unfold%] unknown option pad' },
    { function() F.fold(torch.randn(1, 7, 4):double(), { 3, 3 }, 2) end, 'fold%] input of size 1x7x4 does not fit' },
    { function() F.maxPool1d(x, 2, 1, 2) end, 'maxPool1d%] padding 2 must be at most half the kernel size 2' },
    { function() F.maxPool1d(x, 0) end, 'maxPool1d%] kernelSize must be integers >= 1, got 0' },
    { function() F.avgPool1d(x:view(24), 2) end, 'avgPool1d%] expected a 3D %(N x C x L%) or 2D %(unbatched%) input, got size 24' },
    { function() F.lpPool1d(x, 0, 2) end, 'lpPool1d%] normType must be a positive finite number, got 0' },
    { function() F.glu(torch.randn(2, 3):double()) end, 'glu%] dim 2 must have an even size' },
    { function() F.prelu(x, torch.ones(4):double()) end, 'prelu%] weight has 4 elements but the input of size 2x3x4 has 3 channels' },
    { function() F.threshold(x, 0.5) end, 'threshold%] expected %(x, threshold, value%), got no value' },
    { function() F.hardshrink(x, -1) end, 'hardshrink%] lambd must be non%-negative, got %-1' },
    { function() F.celu(x, 0) end, 'celu%] alpha must not be 0' },
    { function() F.rrelu(x, 0.5, 0.1) end, 'rrelu%] expected 0 <= lower <= upper' },
    { function() F.dropout2d(x:view(24), 0.5) end, 'dropout2d%] expected a 4D %(N x C x H x W%) or 3D %(unbatched%) input' },
    { function() F.dropout1d(x, 1.5) end, 'dropout1d%] p must be in %[0, 1%], got 1.5' },
    { function() F.featureAlphaDropout(x:view(24), 0.5, true) end, 'featureAlphaDropout%] feature dropout needs at least 2 dims' },
    { function() F.gumbelSoftmax(x, { tau = 0 }) end, 'gumbelSoftmax%] tau must be positive, got 0' },
    { function() F.tanhshrink(torch.LongTensor(3)) end, 'tanhshrink%] expected a tensor of a floating dtype' },
  }
  for _, c in ipairs(cases) do tester:assertErrorPattern(c[1], '%[nn%.functional%.' .. c[2]) end
end

-- The functions on CUDA against the CPU (run where a GPU exists).
function tests.cudaMatchesCpu()
  if not torch.cuda.isAvailable() then return end
  local function same(a, b, what) tester:assertTensorEq(b:double(), a, 1e-10, what) end
  local x = torch.randn(2, 4, 5, 6):double()
  local xc = x:cuda()
  for _, n in ipairs({ 'celu', 'hardshrink', 'softshrink', 'tanhshrink', 'rrelu', 'glu' }) do same(F[n](x), F[n](xc), n) end
  same(F.threshold(x, 0.2, 3), F.threshold(xc, 0.2, 3), 'threshold')
  same(F.prelu(x, D({ 0.1, 0.2, 0.3, 0.4 })), F.prelu(xc, D({ 0.1, 0.2, 0.3, 0.4 }):cuda()), 'prelu')
  same(F.unfold(x, 3, { padding = 1, dilation = 2 }), F.unfold(xc, 3, { padding = 1, dilation = 2 }), 'unfold')
  -- (5x6 output, kernel 3, stride {2, 1}: 2x4 = 8 overlapping windows of 4 channels)
  local u = torch.randn(2, 36, 8):double()
  same(F.fold(u, { 5, 6 }, 3, { stride = { 2, 1 } }), F.fold(u:cuda(), { 5, 6 }, 3, { stride = { 2, 1 } }), 'fold')
  local l = x:view(2, 4, 30)
  local v, i = F.maxPool1d(l, 3, 2, 1, 2, true, true)
  local vc, ic = F.maxPool1d(l:cuda(), 3, 2, 1, 2, true, true)
  same(v, vc, 'dilated maxPool1d')
  tester:assertTensorEq(ic:double(), i:double(), 0, 'dilated maxPool1d indices')
  same(F.lpPool1d(torch.abs(l), 3, 4), F.lpPool1d(torch.abs(l):cuda(), 3, 4), 'lpPool1d')
  same(F.adaptiveAvgPool1d(l, 7), F.adaptiveAvgPool1d(l:cuda(), 7), 'adaptiveAvgPool1d')
  local q, k, vv = torch.randn(2, 3, 4):double(), torch.randn(2, 5, 4):double(), torch.randn(2, 5, 6):double()
  local m = torch.ByteTensor({ { 1, 0, 1, 1, 0 }, { 0, 1, 1, 0, 1 }, { 1, 1, 0, 0, 0 } })
  same(F.scaledDotProductAttention(q, k, vv, { attnMask = m }),
    F.scaledDotProductAttention(q:cuda(), k:cuda(), vv:cuda(), { attnMask = m:cuda() }), 'scaledDotProductAttention')
  same(F.scaledDotProductAttention(q, k, vv, { isCausal = true }),
    F.scaledDotProductAttention(q:cuda(), k:cuda(), vv:cuda(), { isCausal = true }), 'causal attention')
  local y = F.dropout2d(xc, 0.5)
  local r = torch.cdiv(y, xc):double():view(8, 30)
  tester:assertTensorEq(r:max(2), r:min(2), 1e-6, 'CUDA dropout2d drops planes whole')
end

tester:add(tests)
tester:run()
