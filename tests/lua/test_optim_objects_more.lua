-- Tests of the optimizer objects optim.Adadelta, optim.Adamax, optim.ASGD and optim.Rprop:
-- 10-step trajectories against PyTorch 1.13, maximize and weightDecay, ASGD's average,
-- checkpoints, zeroGrad, modules, closures, option errors and CUDA against the CPU.
require 'optim'
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()

-- Parameters after each of 10 steps (a's 3 values, then b's 4), computed by PyTorch 1.13 in
-- float64 (torch.set_default_dtype(torch.float64), so ASGD's eta/mu tensors are float64 too) with
-- the same groups, options and closed-form gradients as below; ...Ax rows are ASGD's state['ax'].
local REF = {
  Adadelta = {
    {-1.1968377223641093, 0.99683772246587898, 0.50316227750205456, 0.31115997866155426, -0.71117815156861797, 1.5111799957870453, 1.9888202375646558},
    {-1.1936099012727459, 0.99364383826820946, 0.5063771367308072, 0.32257231604041958, -0.72274102690072095, 1.5228368530754226, 1.9770651832230954},
    {-1.1903488748274997, 0.99046377382712836, 0.50960724763655274, 0.33389112515434038, -0.73440652019792507, 1.5347329334215323, 1.964926154332024},
    {-1.1870709148365655, 0.98731995119799232, 0.51283397584068102, 0.34493410499989813, -0.74602749726652184, 1.5467469994071978, 1.9524964624657593},
    {-1.1837858420325049, 0.98422506778660701, 0.51604637263067266, 0.35559267889415058, -0.75751392305640097, 1.558805096820608, 1.9398311489380968},
    {-1.180500229719067, 0.9811867486263548, 0.51923742299452724, 0.36579936553470871, -0.76880593151700705, 1.5708573715402627, 1.9269664186745854},
    {-1.177218778616173, 0.97820963058790322, 0.52240240339208321, 0.37551252507298466, -0.77986182460434239, 1.5828680183028578, 1.9139278505301069},
    {-1.1739450060293257, 0.97529644800581095, 0.52553804361568857, 0.38470801414136441, -0.7906518212496132, 1.5948101817152036, 1.9007344644045141},
    {-1.1706816300946015, 0.97244865901443978, 0.52864205178108681, 0.39337409815575453, -0.80115443328052982, 1.6066630765040362, 1.8874009663057933},
    {-1.1674308013954975, 0.96966683447472546, 0.53171282381282503, 0.40150809436747742, -0.8113541925379969, 1.6184102285431694, 1.8739390889631307},
  },
  AdadeltaMax = {
    {-1.2031622776358906, 1.0031622775341209, 0.4968377224979455, 0.28883474626144184, -0.68882139266584042, 1.4888199417934627, 2.0111794773067864},
    {-1.2064231578853539, 1.006455120173573, 0.49356453732968969, 0.27681820331470847, -0.67686343352879208, 1.4769273492955943, 2.0229927734963251},
    {-1.2097633715333604, 1.0098720995192085, 0.49019476124105155, 0.26402001848916651, -0.6642266770858295, 1.4644517367784882, 2.0352753663490706},
    {-1.2131740171955141, 1.0134125481158107, 0.48673412993571402, 0.25045715173316663, -0.65094770358141252, 1.451447998398852, 2.0479504601724505},
    {-1.2166501733568067, 1.0170780651829894, 0.48318506749290974, 0.23612780824295984, -0.63703980525743897, 1.4379432722430439, 2.0609747848398285},
    {-1.2201888438199309, 1.0208714273144022, 0.47954836652369975, 0.22102163950578654, -0.62250546743845081, 1.4239515894858625, 2.0743212656041994},
    {-1.22378809967181, 1.0247961484460733, 0.47582388382635166, 0.20512377392838668, -0.60734139216910366, 1.4094798642571833, 2.0879718051226468},
    {-1.2274466588648067, 1.0288562738780005, 0.47201087751920695, 0.18841668428220856, -0.59154087553184498, 1.3945307731677221, 2.1019137537641988},
    {-1.2311636563573018, 1.0330562753850452, 0.46810818846958469, 0.17088114473884736, -0.57509505923053272, 1.3791042982883825, 2.1161379852639279},
    {-1.2349385078472617, 1.0374009959430914, 0.46411434531325874, 0.15249675464656448, -0.55799364001300544, 1.3631986202874686, 2.1306377619151062},
  },
  Adamax = {
    {-1.1500000000195925, 0.95000000004464291, 0.54999999995000004, 0.3999997402604149, -0.79999991416316374, 1.5999999658119775, 1.9000000476190249},
    {-1.1041665490313257, 0.91254478168809361, 0.59227912114131354, 0.47112940121856661, -0.88150157335304158, 1.6894029915810762, 1.8017958281758955},
    {-1.0623573208958832, 0.88481078837425908, 0.62787458853241751, 0.5172444562228975, -0.94551796687159073, 1.768132525383781, 1.7055821247619583},
    {-1.0243989601058796, 0.86462668463172154, 0.65766592359989584, 0.54257319441480867, -0.9933902078396889, 1.8362679751493314, 1.6115456471274558},
    {-0.99009946752200362, 0.8502935227461349, 0.6824093618754643, 0.55151596935834657, -1.0267437419926722, 1.8940470376960934, 1.519862432525342},
    {-0.95925686570470148, 0.84046253418348937, 0.70276214163262407, 0.54843142558644242, -1.0474289945299526, 1.941862079702503, 1.4306954942011183},
    {-0.93166521707198391, 0.83405046274516526, 0.71929988255315824, 0.53742681711170204, -1.0574496803882174, 1.9802505665533849, 1.3441927891201524},
    {-0.90711875096405159, 0.83017997365901086, 0.73252919023478102, 0.52216986899597451, -1.0588831022620164, 2.0098799033451908, 1.2604855580415357},
    {-0.88541463870609016, 0.82813713955235679, 0.74289694447682697, 0.5057379710946811, -1.0537974972802338, 2.0315273945797934, 1.1796870706717293},
    {-0.86635480501048634, 0.82734070751709554, 0.7507972915773361, 0.49051696011480178, -1.0441717827111145, 2.0460563161134329, 1.1018917881446957},
  },
  AdamaxMax = {
    {-1.2499999999804075, 1.0499999999553571, 0.45000000005000002, 0.20000024096327479, -0.6000000809715943, 1.4000000325203146, 2.099999947368449},
    {-1.2963795588210951, 1.0916889078056633, 0.40553539027971125, 0.11420800858841926, -0.51077040858814182, 1.307205626534834, 2.1978834972484624},
    {-1.3399250115034751, 1.130100716529252, 0.36380099301265656, 0.033490228668342698, -0.42648902773426112, 1.2186195830124942, 2.29406173654949},
    {-1.3813607843149405, 1.1665750385160925, 0.3237813850366178, -0.044771360358253215, -0.34489608137836547, 1.1326681662319835, 2.3888682775505816},
    {-1.4211900678919034, 1.2017521758840548, 0.28493488507432296, -0.1217827447629886, -0.26483142268262605, 1.0484077255951336, 2.4825764539015838},
    {-1.4597688660955215, 1.2360067534730936, 0.24692780109079368, -0.19821287705727775, -0.1856116753254107, 0.96522525239092316, 2.5754116749422109},
    {-1.4973575659262535, 1.2695832265078117, 0.2095365839249928, -0.27447145027761577, -0.10680081168475836, 0.88270143419877434, 2.6675605796575463},
    {-1.5341525052317455, 1.3026525397754647, 0.1726027833680556, -0.35082410109046608, -0.028106677613789419, 0.80053956782677949, 2.7591780125960268},
    {-1.5703055831328443, 1.3353401017677886, 0.13600941892288856, -0.42744856741514514, 0.050672282521447148, 0.71852511224689075, 2.850392476055172},
    {-1.6059368596932557, 1.3677411978615404, 0.0996674304218573, -0.50446529737469903, 0.12967720091063178, 0.63650099268200078, 2.9413104868612296},
  },
  ASGD = {
    {-0.94478800000000007, 0.88799000000000006, 0.59999500000000006, 0.30763999999999997, -0.72315999999999991, 1.5582, 1.9576},
    {-0.90413170008718358, 0.82418312928117277, 0.63769496532061365, 0.31496435311278004, -0.7444368548795337, 1.609340023442636, 1.9161038593377164},
    {-0.86847411985605738, 0.81263684001299363, 0.64600503677441878, 0.32198613667127252, -0.76398389134979572, 1.6542772285347997, 1.8754922035375505},
    {-0.85138026016766133, 0.80002614618409151, 0.64887323158428678, 0.3287178847018552, -0.78194193525195788, 1.6937646146827465, 1.8357460757120194},
    {-0.83994644172852295, 0.7918084491773284, 0.64710051663193013, 0.33517161055918843, -0.79844033214559396, 1.7284636904907045, 1.7968469275117209},
    {-0.83213382813579495, 0.78508370551236939, 0.64306621762336624, 0.34135882861543604, -0.81359788446203984, 1.758955599715019, 1.7587766102725086},
    {-0.82631764373191041, 0.77923481353927915, 0.63771806903360484, 0.34729057504348404, -0.82752371205289321, 1.7857508930459962, 1.7215173663555572},
    {-0.82165730710516638, 0.77386596146170727, 0.63160977765500403, 0.35297742773210872, -0.84031804240396557, 1.8092981106806987, 1.6850518206760927},
    {-0.81767007990520624, 0.76876709925397069, 0.62505560453449205, 0.35842952536944905, -0.85207293627106095, 1.8299913205369482, 1.649362972416653},
    {-0.81407531575444436, 0.76381930967327261, 0.61823926374844818, 0.36365658572961457, -0.8628729540222031, 1.848176739300164, 1.614434186920839},
  },
  ASGDAx = {
    {-0.94478800000000007, 0.88799000000000006, 0.59999500000000006, 0.30763999999999997, -0.72315999999999991, 1.5582, 1.9576},
    {-0.90413170008718358, 0.82418312928117277, 0.63769496532061365, 0.31496435311278004, -0.7444368548795337, 1.609340023442636, 1.9161038593377164},
    {-0.86847411985605738, 0.81263684001299363, 0.64600503677441878, 0.32198613667127252, -0.76398389134979572, 1.6542772285347997, 1.8754922035375505},
    {-0.85138026016766133, 0.80002614618409151, 0.64887323158428678, 0.3287178847018552, -0.78194193525195788, 1.6937646146827465, 1.8357460757120194},
    {-0.83994644172852295, 0.7918084491773284, 0.64710051663193013, 0.33517161055918843, -0.79844033214559396, 1.7284636904907045, 1.7968469275117209},
    {-0.8360401349321589, 0.78844607734484895, 0.64508336712764813, 0.34135882861543604, -0.81359788446203984, 1.758955599715019, 1.7587766102725086},
    {-0.83279930453207607, 0.78537565607632565, 0.642628267762967, 0.34729057504348404, -0.82752371205289321, 1.7857508930459962, 1.7215173663555572},
    {-0.83001380517534862, 0.78249823242267103, 0.63987364523597623, 0.35013400138779638, -0.83392087722842945, 1.7975245018633474, 1.703284593515825},
    {-0.82754506012132012, 0.779752005788931, 0.63691003709567939, 0.35289917604834725, -0.83997156357597325, 1.8083467747545476, 1.685310719816101},
    {-0.82530010272684085, 0.77709655643632125, 0.63379824153780751, 0.35558852846866407, -0.84569691118753076, 1.8183042658909518, 1.6675915865922855},
  },
  ASGDMax = {
    {-1.2025518800000001, 1.0011199, 0.49899995000000003, 0.29164000000000001, -0.67515999999999987, 1.4381999999999999, 2.0375999999999999},
    {-1.2051328657828271, 1.0022452202709822, 0.49799341796714292, 0.282956673957449, -0.64836582317261904, 1.3690664556935066, 2.0759022839097643},
    {-1.2077434926815498, 1.0033759260022281, 0.4969803641925814, 0.27393755732185582, -0.61946398592474916, 1.2917301098683123, 2.1149198833723948},
    {-1.2103843098891476, 1.0045119792539359, 0.49596074895458192, 0.26456970656763751, -0.58828896967508559, 1.2052187872605635, 2.1546660702690676},
    {-1.2130558809181342, 1.005653338819126, 0.49493453253135183, 0.25483968084782022, -0.55466227871557672, 1.1084452230684942, 2.1951543611188584},
    {-1.215758784078725, 1.0067999600796382, 0.49390167521452666, 0.24473352294728262, -0.51839142444045661, 1.0001934536465307, 2.2363985215586197},
    {-1.2184936129764314, 1.0079517948559522, 0.49286213732334749, 0.23423673950888368, -0.47926883019761829, 0.87910359972194674, 2.2784125709043579},
    {-1.2212609770300105, 1.0091087912505472, 0.49181587921955927, 0.22333428050480736, -0.43707065056954525, 0.74365485247984819, 2.3212107867955805},
    {-1.2240615020107561, 1.0102708934845086, 0.49076286132306285, 0.21201051792440614, -0.39155549840867521, 0.59214645051168158, 2.3648077099241185},
    {-1.2268958306041668, 1.0114380417270665, 0.48970304412835541, 0.2002492236487366, -0.34246307243221408, 0.42267641064086614, 2.409218148848943},
  },
  Rprop = {
    {-1.1899999999999999, 0.98999999999999999, 0.51000000000000001, 0.34999999999999998, -0.75, 1.55, 1.95},
    {-1.1779999999999999, 0.97799999999999998, 0.52200000000000002, 0.42499999999999999, -0.82499999999999996, 1.625, 1.875},
    {-1.1636, 0.96360000000000001, 0.53639999999999999, 0.53749999999999998, -0.9375, 1.7375, 1.7625},
    {-1.14632, 0.94632000000000005, 0.55367999999999995, 0.53749999999999998, -1.10625, 1.90625, 1.59375},
    {-1.1255839999999999, 0.92558400000000007, 0.57441599999999993, 0.50374999999999992, -1.10625, 2.1062500000000002, 1.39375},
    {-1.1007007999999998, 0.90070080000000008, 0.59929919999999992, 0.45312499999999989, -1.055625, 2.1062500000000002, 1.1937500000000001},
    {-1.0708409599999997, 0.87084096000000011, 0.62915903999999989, 0.45312499999999989, -0.97968750000000004, 2.0462500000000001, 0.99375000000000013},
    {-1.0350091519999998, 0.87084096000000011, 0.66499084799999986, 0.46831249999999991, -0.97968750000000004, 1.95625, 0.79375000000000018},
    {-0.99201098239999974, 0.88577088000000015, 0.70798901759999988, 0.49109374999999988, -1.00246875, 1.95625, 0.59375000000000022},
    {-0.94041317887999976, 0.88577088000000015, 0.75958682111999987, 0.52526562499999985, -1.00246875, 1.98325, 0.39375000000000021},
  },
  RpropMax = {
    {-1.21, 1.01, 0.48999999999999999, 0.25, -0.64999999999999991, 1.45, 2.0499999999999998},
    {-1.222, 1.022, 0.47799999999999998, 0.17499999999999999, -0.57499999999999996, 1.375, 2.125},
    {-1.2363999999999999, 1.0364, 0.46359999999999996, 0.062499999999999972, -0.46249999999999991, 1.2625, 2.2374999999999998},
    {-1.2536799999999999, 1.0536799999999999, 0.44631999999999994, -0.10625000000000004, -0.2937499999999999, 1.09375, 2.40625},
    {-1.274416, 1.074416, 0.42558399999999996, -0.30625000000000002, -0.093749999999999889, 0.89375000000000004, 2.6062500000000002},
    {-1.2992992000000001, 1.0992992000000001, 0.40070079999999997, -0.50625000000000009, 0.10625000000000012, 0.69375000000000009, 2.8062500000000004},
    {-1.3291590400000002, 1.1291590400000002, 0.37084096, -0.70625000000000004, 0.30625000000000013, 0.49375000000000008, 3.0062500000000005},
    {-1.3649908480000001, 1.1649908480000002, 0.33500915199999998, -0.90625, 0.50625000000000009, 0.29375000000000007, 3.2062500000000007},
    {-1.4079890176000001, 1.2079890176000001, 0.29201098240000001, -1.10625, 0.70625000000000004, 0.093750000000000056, 3.4062500000000009},
    {-1.45958682112, 1.2595868211200001, 0.24041317888000002, -1.3062499999999999, 0.90625, -0.10624999999999996, 3.6062500000000011},
  },
}

-- Closed-form gradients of a Rosenbrock chain on a (3 values) plus a weighted quadratic on b (2x2),
-- the same expressions as the PyTorch script; computed on the CPU and moved to a's type/device.
local C, D = { 1, 2, 3, 0.5 }, { 0.5, -1, 2, 0 }
local function setGrads(a, b)
  local x, y = a:double(), b:double():view(4)
  local g = { 0, 0, 0 }
  for i = 1, 2 do
    local r = x[i + 1] - x[i] ^ 2
    g[i] = g[i] - 2 * (1 - x[i]) - 40 * x[i] * r
    g[i + 1] = g[i + 1] + 20 * r
  end
  local gb = {}
  for j = 1, 4 do gb[j] = 2 * C[j] * (y[j] - D[j]) end
  a.grad = torch.DoubleTensor(g):type(a:type())
  b.grad = torch.DoubleTensor(gb):view(2, 2):type(b:type())
end

-- Two groups with different options per optimizer: defaults, group 1's own and group 2's own.
local CASES = {
  Adadelta = { { lr = 1 }, {}, { lr = 0.5, rho = 0.8, eps = 1e-4, weightDecay = 0.1 } },
  Adamax = { { lr = 0.05 }, {}, { lr = 0.1, betas = { 0.8, 0.99 }, eps = 1e-6, weightDecay = 0.05 } },
  ASGD = { { lr = 0.01, t0 = 3, lambd = 1e-3 }, {},
           { lr = 0.02, lambd = 0.01, alpha = 0.6, t0 = 5, weightDecay = 0.05 } },
  Rprop = { { lr = 0.01 }, {}, { lr = 0.05, etas = { 0.3, 1.5 }, stepSizes = { 1e-3, 0.2 } } },
}
local NAMES = { 'Adadelta', 'Adamax', 'ASGD', 'Rprop' }

local function copy(t)
  local r = {}
  for k, v in pairs(t) do r[k] = v end
  return r
end

local function build(name, maximize, ttype)
  local a = torch.DoubleTensor{ -1.2, 1.0, 0.5 }:type(ttype)
  local b = torch.DoubleTensor{ { 0.3, -0.7 }, { 1.5, 2.0 } }:type(ttype)
  local case = CASES[name]
  local defaults = copy(case[1])
  defaults.maximize = maximize
  if maximize and name == 'ASGD' then defaults.lr = 1e-4 end  -- ascent on the Rosenbrock term diverges fast
  local g1, g2 = copy(case[2]), copy(case[3])
  g1.params, g2.params = { a }, { b }
  return optim[name]({ g1, g2 }, defaults), a, b
end

local function flat(a, b) return torch.cat(a:double():view(-1), b:double():view(-1)) end

local function run(opt, a, b, steps, onStep)
  for k = 1, steps do
    setGrads(a, b)
    opt:step()
    if onStep then onStep(k) end
  end
end

local function check_trajectory(name, maximize, ttype, tol)
  local opt, a, b = build(name, maximize, ttype)
  local ref = REF[name .. (maximize and 'Max' or '')]
  run(opt, a, b, 10, function(k)
    tester:assertTensorEq(flat(a, b), torch.DoubleTensor(ref[k]), tol,
                          string.format('%s maximize=%s %s step %d', name, tostring(maximize), ttype, k))
  end)
end

function tests.trajectoriesMatchPyTorch()
  for _, name in ipairs(NAMES) do
    check_trajectory(name, false, 'torch.DoubleTensor', 1e-11)
  end
end

function tests.maximizeMatchesPyTorch()
  -- Adadelta's, Adamax's and ASGD's group 2 also have weightDecay: it is added after the negation
  for _, name in ipairs(NAMES) do
    check_trajectory(name, true, 'torch.DoubleTensor', 1e-11)
  end
end

function tests.floatParameters()
  -- float32 state and arithmetic: PyTorch's float64 values to float32 accuracy
  for _, name in ipairs(NAMES) do
    check_trajectory(name, false, 'torch.FloatTensor', 2e-4)
  end
end

function tests.asgdAverage()
  local opt, a, b = build('ASGD', false, 'torch.DoubleTensor')
  run(opt, a, b, 10, function(k)
    tester:assertTensorEq(flat(opt:averaged(a), opt:averaged(b)), torch.DoubleTensor(REF.ASGDAx[k]), 1e-11,
                          'ax at step ' .. k)
  end)
  -- mu = 1/max(1, t - t0) and eta = lr/(1 + lambd*lr*t)^alpha, group 2: lr 0.02, lambd 0.01, alpha 0.6, t0 5
  local s = opt:state().state[2]
  tester:asserteq(s.step, 10)
  tester:assertalmosteq(s.mu, 1 / 5, 1e-15)
  tester:assertalmosteq(s.eta, 0.02 / (1 + 0.01 * 0.02 * 10) ^ 0.6, 1e-15)
  tester:assert(opt:averaged(torch.zeros(2)) == nil, 'no average for a tensor the optimizer does not own')
end

function tests.stateRoundTripContinuesIdentically()
  for _, name in ipairs(NAMES) do
    local opt, a, b = build(name, false, 'torch.DoubleTensor')
    run(opt, a, b, 5)
    local snap = opt:state()
    local opt2, a2, b2 = build(name, false, 'torch.DoubleTensor')
    a2:copy(a) b2:copy(b)
    opt2:loadState(snap)
    run(opt, a, b, 3)  -- the snapshot holds copies: stepping the original leaves it as it was
    opt2:loadState(snap)
    run(opt2, a2, b2, 3)
    tester:assertTensorEq(flat(a2, b2), flat(a, b), 0, name .. ' after loadState')
    run(opt, a, b, 2) run(opt2, a2, b2, 2)
    tester:assertTensorEq(flat(a2, b2), torch.DoubleTensor(REF[name][10]), 1e-11, name .. ' step 10')
    if name == 'ASGD' then tester:assertTensorEq(opt2:averaged(b2), opt:averaged(b), 0, 'ASGD ax') end
    tester:assertErrorPattern(function() optim.Adamax({ a2, b2 }):loadState(snap) end, 'optim.Adamax')
  end
end

function tests.zeroGrad()
  for _, name in ipairs(NAMES) do
    local opt, a, b = build(name, false, 'torch.DoubleTensor')
    setGrads(a, b)
    local ga = a.grad
    opt:zeroGrad()
    tester:assert(a.grad == ga, name .. ': zeroGrad keeps the gradient tensor')
    tester:asserteq(a.grad:abs():sum() + b.grad:abs():sum(), 0, name .. ': gradients zeroed')
    opt:zeroGrad(true)
    tester:assert(a.grad == nil and b.grad == nil, name .. ': zeroGrad(true) drops the gradients')
    local a0, b0 = a:clone(), b:clone()
    opt:step()  -- no gradients: nothing moves and no state is made
    tester:assertTensorEq(a, a0, 0) tester:assertTensorEq(b, b0, 0)
    tester:asserteq(next(opt:state().state), nil, name .. ': no state without gradients')
  end
end

-- First steps in closed form: state starts at zero, so each update depends on g alone.
local FIRST = {
  Adadelta = { { lr = 0.7, rho = 0.9, eps = 1e-6 }, function(p, g)   -- delta = sqrt(eps)/sqrt((1-rho)g^2 + eps) * g
    return p - torch.cdiv(g * math.sqrt(1e-6), torch.sqrt(torch.cmul(g, g) * 0.1 + 1e-6)) * 0.7 end },
  Adamax = { { lr = 0.01, eps = 1e-8 }, function(p, g)                 -- m/(1 - beta1) = g, u = |g| + eps
    return p - torch.cdiv(g, torch.abs(g) + 1e-8) * 0.01 end },
  ASGD = { { lr = 0.1, lambd = 0.01 }, function(p, g) return p * (1 - 0.01 * 0.1) - g * 0.1 end },
  Rprop = { { lr = 0.03 }, function(p, g) return p - torch.sign(g) * 0.03 end },
}

function tests.buildFromModule()
  torch.manualSeed(3)
  for _, name in ipairs(NAMES) do
    local model = nn.Linear(3, 2):double()
    local x, gy = torch.randn(4, 3):double(), torch.randn(4, 2):double()
    local w0, b0 = model.weight:clone(), model.bias:clone()
    local opt = optim[name](model, FIRST[name][1])
    model:zeroGradParameters()
    model:forward(x)
    model:backward(x, gy)
    opt:step()
    tester:assertTensorEq(model.weight, FIRST[name][2](w0, model.gradWeight), 1e-12, name .. ' weight')
    tester:assertTensorEq(model.bias, FIRST[name][2](b0, model.gradBias), 1e-12, name .. ' bias')
  end
end

function tests.stepWithClosure()
  for _, name in ipairs(NAMES) do
    local w = torch.DoubleTensor{ 1.5, -2, 0.25 }:requiresGrad()
    local w0 = w:clone()
    local opt = optim[name]({ w }, FIRST[name][1])
    local loss = opt:step(function()
      opt:zeroGrad()
      local l = (w * w):sum()
      l:backward()
      return l
    end)
    tester:assertalmosteq(loss:item(), 1.5 ^ 2 + 4 + 0.25 ^ 2, 1e-12, name .. ' loss')
    tester:assertTensorEq(w:detach(), FIRST[name][2](w0, w0 * 2), 1e-12, name .. ' update')
  end
end

function tests.foreachIsIgnored()
  for _, name in ipairs(NAMES) do
    local opt, a, b = build(name, false, 'torch.DoubleTensor')
    for _, g in ipairs(opt.paramGroups) do g.foreach = true end
    run(opt, a, b, 10)
    tester:assertTensorEq(flat(a, b), torch.DoubleTensor(REF[name][10]), 1e-11, name)
  end
end

function tests.pytorchDefaults()
  -- torch.optim 1.13's defaults
  local w = torch.zeros(2)
  local d = optim.Adadelta({ w }).defaults
  tester:assertTableEq({ d.lr, d.rho, d.eps, d.weightDecay, d.maximize }, { 1.0, 0.9, 1e-6, 0, false })
  d = optim.Adamax({ w }).defaults
  tester:assertTableEq({ d.lr, d.betas[1], d.betas[2], d.eps, d.weightDecay }, { 2e-3, 0.9, 0.999, 1e-8, 0 })
  d = optim.ASGD({ w }).defaults
  tester:assertTableEq({ d.lr, d.lambd, d.alpha, d.t0, d.weightDecay }, { 1e-2, 1e-4, 0.75, 1e6, 0 })
  d = optim.Rprop({ w }).defaults
  tester:assertTableEq({ d.lr, d.etas[1], d.etas[2], d.stepSizes[1], d.stepSizes[2] }, { 1e-2, 0.5, 1.2, 1e-6, 50 })
end

function tests.errors()
  local w = torch.zeros(2)
  local cases = {
    { function() optim.Rprop({ w }, { etas = { 1.2, 0.5 } }) end, 'optim%.Rprop.*etas must be.*got {1%.2, 0%.5}' },
    { function() optim.Rprop({ w }, { etas = { 0.5, 1 } }) end, 'optim%.Rprop.*etas' },
    { function() optim.Rprop({ w }, { stepSizes = { 1, 0.1 } }) end, 'optim%.Rprop.*stepSizes must be.*got {1, 0%.1}' },
    { function() optim.Rprop({ w }, { etas = 0.5 }) end, 'optim%.Rprop.*etas must be a table' },
    { function() optim.Rprop({ { params = { w }, stepSizes = { -1, 1 } } }) end, 'optim%.Rprop.*stepSizes' },
    { function() optim.Adadelta({ w }, { rho = 1.5 }) end, 'optim%.Adadelta.*rho must be a number in %[0, 1%]' },
    { function() optim.Adadelta({ w }, { lr = -1 }) end, 'optim%.Adadelta.*lr must be a non%-negative number' },
    { function() optim.Adamax({ w }, { betas = { 1, 0.9 } }) end, 'optim%.Adamax.*betas must be' },
    { function() optim.Adamax({ w }, { learningRate = 1 }) end, "optim%.Adamax.*unknown option 'learningRate'.*'lr'" },
    { function() optim.ASGD({ w }, { lambda = 1 }) end, "optim%.ASGD.*unknown option 'lambda'.*'lambd'" },
    { function() optim.ASGD({ w }, { t0 = -1 }) end, 'optim%.ASGD.*t0 must be a non%-negative number' },
    { function() optim.ASGD({ w }, { maximize = 1 }) end, 'optim%.ASGD.*maximize must be a boolean' },
    { function() optim.ASGD({ torch.LongTensor(2) }) end, 'optim%.ASGD.*floating%-point tensor' },
    { function() optim.Adamax({}) end, 'optim%.Adamax.*empty parameter list' },
  }
  for _, c in ipairs(cases) do tester:assertErrorPattern(c[1], c[2]) end
  -- an option changed after construction is checked at the next step
  local opt = optim.Rprop({ w })
  w.grad = torch.ones(2)
  opt.paramGroups[1].etas = { 2, 3 }
  tester:assertErrorPattern(function() opt:step() end, 'optim%.Rprop.*etas')
end

function tests.cudaMatchesCpu()
  if not torch.cuda.isAvailable() then return end  -- no GPU: skipped
  for _, name in ipairs(NAMES) do
    for _, maximize in ipairs({ false, true }) do
      local opt, a, b = build(name, maximize, 'torch.DoubleTensor')
      local optc, ac, bc = build(name, maximize, 'torch.CudaDoubleTensor')
      run(opt, a, b, 10) run(optc, ac, bc, 10)
      tester:assertTensorEq(flat(ac, bc), flat(a, b), 1e-12, name .. ' CUDA double')
      if name == 'ASGD' then tester:assertTensorEq(optc:averaged(bc):double(), opt:averaged(b), 1e-12, 'ax') end
    end
    local opt, a, b = build(name, false, 'torch.CudaTensor')
    run(opt, a, b, 10)
    tester:assertTensorEq(flat(a, b), torch.DoubleTensor(REF[name][10]), 2e-4, name .. ' CUDA float')
  end
end

tester:add(tests)
tester:run()
