-- PyTorch 1.13's remaining loss modules under their names (lua/nn/pytorch_names_loss_more.lua):
-- nn.SoftMarginLoss, PoissonNLLLoss, GaussianNLLLoss, MarginRankingLoss, HingeEmbeddingLoss,
-- MultiLabelMarginLoss, MultiLabelSoftMarginLoss, CosineEmbeddingLoss, MultiMarginLoss, CTCLoss:
-- values and input gradients for every reduction against PyTorch 1.13's (pasted; float64, inputs
-- sins/coss = sin/cos(0, 1, ...) reshaped), through forward/backward (Torch7) and through
-- c(...):backward() (PyTorch's call order); finite differences; option parsing (positional, table,
-- sizeAverage/reduce) and errors naming the class; parents; type conversion; nn.ParallelCriterion.
require 'nn'
local D = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()

local function sins(...) return torch.arange(0, torch.DoubleTensor(...):nElement()):double():sin():view(...) end
local function coss(...) return torch.arange(0, torch.DoubleTensor(...):nElement()):double():cos():view(...) end
local function dt(t) return torch.DoubleTensor(t) end
-- the tensors of a tensor or a table of them, flattened and joined
local function flat(g)
  if torch.isTensor(g) then return g:contiguous():view(-1):double() end
  local parts = {}
  for i, x in ipairs(g) do parts[i] = flat(x) end
  return torch.cat(parts, 1)
end
local function close(got, want, tol, msg)
  if type(want) == 'number' then
    tester:assert(type(got) == 'number', msg .. ': a number, got ' .. type(got))
    tester:assertalmosteq(got, want, tol * math.max(1, math.abs(want)), msg)
  else
    tester:assertTensorEq(flat(got), dt(want), tol, msg)
  end
end

-- PyTorch 1.13's values (float64): for each reduction, v the loss (per element/sample for 'none')
-- and g the gradient of the loss (of its sum for 'none') in the differentiable inputs, joined in
-- the order of the case's xs (CTC: in the scores behind a logSoftmax).
local R = {
  softmargin = { mean = { v = 1.07442350938, g = {-0.0416666666667, -0.0130588580417, 0.0716997862652,
    0.0475079423305, 0.0150337623433, -0.0726581939038, -0.0530151676902, -0.0176518953272, 0.0732120227527,
    0.0579279158693, 0.0209989266699, -0.073399585122} }, sum = { v = 12.8930821126, g = {-0.5, -0.156706296501,
    0.860397435182, 0.570095307966, 0.18040514812, -0.871898326846, -0.636182012283, -0.211822743926,
    0.878544273032, 0.695134990431, 0.251987120039, -0.880795021464} }, none = { v = {0.69314718056,
    0.170439978931, 1.9689557162, 0.844191741294, 0.198945143896, 2.05493100885, 1.01110157015, 0.238032270165,
    2.1082054697, 1.18788619192, 0.290335081956, 2.12691075898}, g = {-0.5, -0.156706296501, 0.860397435182,
    0.570095307966, 0.18040514812, -0.871898326846, -0.636182012283, -0.211822743926, 0.878544273032,
    0.695134990431, 0.251987120039, -0.880795021464} } },
  poisson = { mean = { v = 1.196236132, g = {-0.166666666667, 0.10998140206, 0.123548144001, -0.15403643029,
    -0.127569651177, 0.031942082931, -0.186981197705, -0.00591909963243, 0.224125659801, -0.124165554998,
    -0.118299194829, 0.0306569203331} }, sum = { v = 14.3548335839, g = {-2, 1.31977682472, 1.48257772802,
    -1.84843716349, -1.53083581413, 0.383304995172, -2.24377437246, -0.0710291955891, 2.68950791761,
    -1.48998665997, -1.41959033795, 0.367883043998} }, none = { v = {1, 1.47830583991, 1.57328030119,
    0.728202812335, 1.98276917649, 0.383304995172, 1.59447212214, 0.614997606973, 2.68950791761, 0.2736578843,
    1.66845188383, 0.367883043998}, g = {-2, 1.31977682472, 1.48257772802, -1.84843716349, -1.53083581413,
    0.383304995172, -2.24377437246, -0.0710291955891, 2.68950791761, -1.48998665997, -1.41959033795,
    0.367883043998} } },
  poisson_full = { mean = { v = 1.63282279776, g = {-0.0833333322222, 0.0477431707739, 0.0487451035616,
    -0.0690016557283, -0.140922888427, 0.0833333333333, -0.121486568593, 0.00606504339913, 0.0833333333333,
    -0.0474117018839, -0.0910080321735, 0.0833333333333} }, sum = { v = 19.5938735731, g = {-0.999999986667,
    0.572918049287, 0.584941242739, -0.82801986874, -1.69107466113, 1, -1.45783882312, 0.0727805207896, 1,
    -0.568940422607, -1.09209638608, 1} }, none = { v = {2.04768619922, 1.49069162268, 1.52996224181,
    1.91906471186, 1.9885908604, 0.541075725337, 2.38667648921, 1.27136876513, 2.48935824662, 1.73156466716,
    1.69782425018, 0.500009793449}, g = {-0.999999986667, 0.572918049287, 0.584941242739, -0.82801986874,
    -1.69107466113, 1, -1.45783882312, 0.0727805207896, 1, -0.568940422607, -1.09209638608, 1} } },
  gaussian = { mean = { v = 0.631808876787, g = {-0.166666666667, 0.0329560725972, 0.14020347954, 0.175675311727,
    -0.0251011095064, -0.334505395428, -0.237574400146, -0.0116300039016, 0.115333100376, 0.17947330031,
    0.0645472385952, -0.27599895958, -0.0833333333333, 0.0481970290522, -0.0650528540369, -0.107514905753,
    0.117881991337, -0.536762706605, -0.242821433675, 0.0591891041157, -0.0289964662725, -0.125448587803,
    0.0843853286321, -0.319659787685} }, sum = { v = 7.58170652145, g = {-2, 0.395472871166, 1.68244175448,
    2.10810374072, -0.301213314077, -4.01406474514, -2.85089280175, -0.13956004682, 1.38399720451, 2.15367960372,
    0.774566863142, -3.31198751495, -1, 0.578364348627, -0.780634248443, -1.29017886903, 1.41458389604,
    -6.44115247925, -2.91385720411, 0.710269249389, -0.34795759527, -1.50538305363, 1.01262394358, -3.83591745222}
    }, none = { v = {0.65342640972, -0.0766538229952, 0.995742152391, 0.88095766286, -0.520237800883,
    1.90760659224, 1.35053563076, -0.175564163882, 0.686086315192, 1.1813829497, -0.36831072956, 1.06673532591}, g
    = {-2, 0.395472871166, 1.68244175448, 2.10810374072, -0.301213314077, -4.01406474514, -2.85089280175,
    -0.13956004682, 1.38399720451, 2.15367960372, 0.774566863142, -3.31198751495, -1, 0.578364348627,
    -0.780634248443, -1.29017886903, 1.41458389604, -6.44115247925, -2.91385720411, 0.710269249389,
    -0.34795759527, -1.50538305363, 1.01262394358, -3.83591745222} } },
  gaussian_full = { mean = { v = 1.47818302783, g = {-0.166666666667, 0.0501947798233, 0.220907377229,
    0.188518750777, -0.00859657287036, -0.103548871677, -0.103298815404, -0.00807630463538, 0.0472857616847,
    0.0551353644636, 0.0122937674245, -0.0418506626891, -0.354486761114, 0.0374738155595, 0.0402625351875} }, sum
    = { v = 17.7381963339, g = {-2, 0.60233735788, 2.65088852675, 2.26222500932, -0.103158874444, -1.24258646013,
    -1.23958578485, -0.0969156556245, 0.567429140216, 0.661624373563, 0.147525209094, -0.502207952269,
    -4.25384113336, 0.449685786714, 0.48315042225} }, none = { v = {1.57236494292, 0.663067516099, 2.32916743823,
    1.85178044112, 0.924259409893, 1.69094908865, 1.6872249922, 0.923634855357, 1.58748795265, 1.70325893518,
    1.2872758108, 1.51772495081}, g = {-2, 0.60233735788, 2.65088852675, 2.26222500932, -0.103158874444,
    -1.24258646013, -1.23958578485, -0.0969156556245, 0.567429140216, 0.661624373563, 0.147525209094,
    -0.502207952269, -4.25384113336, 0.449685786714, 0.48315042225} } },
  ranking = { mean = { v = 0.250194779823, g = {-0.166666666667, 0.166666666667, -0, -0, 0, 0, 0.166666666667,
    -0.166666666667, 0, 0, -0, -0} }, sum = { v = 1.50116867894, g = {-1, 1, -0, -0, 0, 0, 1, -1, 0, 0, -0, -0} },
    none = { v = {1.1, 0.40116867894, 0, 0, 0, 0}, g = {-1, 1, -0, -0, 0, 0, 1, -1, 0, 0, -0, -0} } },
  hinge = { mean = { v = 0.697258178273, g = {0.0833333333333, 0.0833333333333, 0, -0.0833333333333, 0,
    0.0833333333333, 0.0833333333333, 0.0833333333333, 0, -0.0833333333333, 0, 0.0833333333333} }, sum = { v =
    8.36709813928, g = {1, 1, 0, -1, 0, 1, 1, 1, 0, -1, 0, 1} }, none = { v = {0, 1.68294196962, 0, 0.71775998388,
    0, 1.91784854933, 0.558830996398, 1.31397319744, 0, 0.175763029516, 0, 1.9999804131}, g = {1, 1, 0, -1, 0, 1,
    1, 1, 0, -1, 0, 1} } },
  mlmargin = { mean = { v = 1.40245004262, g = {-0.2, 0.133333333333, 0.133333333333, -0.2, 0.133333333333,
    0.0666666666667, -0.266666666667, 0.0666666666667, 0.0666666666667, 0.0666666666667, 0.133333333333,
    -0.133333333333, -0.133333333333, 0.2, -0.0666666666667} }, sum = { v = 4.20735012786, g = {-0.6, 0.4, 0.4,
    -0.6, 0.4, 0.2, -0.8, 0.2, 0.2, 0.2, 0.4, -0.4, -0.4, 0.6, -0.2} }, none = { v = {1.51291436169,
    1.24344020974, 1.45099555642}, g = {-0.6, 0.4, 0.4, -0.6, 0.4, 0.2, -0.8, 0.2, 0.2, 0.2, 0.4, -0.4, -0.4, 0.6,
    -0.2} } },
  mlsoft = { mean = { v = 1.35310534751, g = {-0.0208333333333, -0.0130588580417, 0.107549679398, 0.0950158846609,
    0.00751688117166, -0.0726581939038, -0.0795227515353, -0.0353037906544, 0.0366060113764, 0.0579279158693,
    0.0314983900048, -0.146799170244} }, sum = { v = 4.05931604253, g = {-0.0625, -0.0391765741252,
    0.322649038193, 0.285047653983, 0.022550643515, -0.217974581711, -0.238568254606, -0.105911371963,
    0.109818034129, 0.173783747608, 0.0944951700145, -0.440397510732} }, none = { v = {1.28970765653,
    1.03678011909, 1.73282826692}, g = {-0.0625, -0.0391765741252, 0.322649038193, 0.285047653983, 0.022550643515,
    -0.217974581711, -0.238568254606, -0.105911371963, 0.109818034129, 0.173783747608, 0.0944951700145,
    -0.440397510732} } },
  cosine = { mean = { v = 0.385796570064, g = {-0.1709557737, -0.0982392785989, 0.0647979561928, 0.168260248892,
    -0.0806085594203, 0.0831759006977, 0.170488821299, 0.101055105848, 0, 0, -0, 0, -0.00443683403603,
    -0.146251554915, -0.153603270678, -0.0197328477582, -0.101614880348, -0.170461289577, -0.0825863752911,
    0.0812180715707, 0, 0, -0, 0} }, sum = { v = 1.15738971019, g = {-0.512867321101, -0.294717835797,
    0.194393868578, 0.504780746676, -0.241825678261, 0.249527702093, 0.511466463898, 0.303165317544, 0, 0, -0, 0,
    -0.0133105021081, -0.438754664744, -0.460809812035, -0.0591985432745, -0.304844641044, -0.51138386873,
    -0.247759125873, 0.243654214712, 0, 0, -0, 0} }, none = { v = {1.03254670551, 0.124843004679, 0}, g =
    {-0.512867321101, -0.294717835797, 0.194393868578, 0.504780746676, -0.241825678261, 0.249527702093,
    0.511466463898, 0.303165317544, 0, 0, -0, 0, -0.0133105021081, -0.438754664744, -0.460809812035,
    -0.0591985432745, -0.304844641044, -0.51138386873, -0.247759125873, 0.243654214712, 0, 0, -0, 0} } },
  multimargin = { mean = { v = 2.84824875922, g = {0.0544399959701, 0.475175488374, 0.509088709383,
    -1.03870419373, -0.813018103927, 0.0159594068816, 0.24246233237, 0.554596364676, 0.297229892919,
    0.201023266022, -0.498253158941, 0} }, sum = { v = 8.54474627766, g = {0.16331998791, 1.42552646512,
    1.52726612815, -3.11611258118, -2.43905431178, 0.0478782206448, 0.727386997109, 1.66378909403, 0.891689678756,
    0.603069798066, -1.49475947682, 0} }, none = { v = {2.9275606316, 3.29957831698, 2.31760732908}, g =
    {0.16331998791, 1.42552646512, 1.52726612815, -3.11611258118, -2.43905431178, 0.0478782206448, 0.727386997109,
    1.66378909403, 0.891689678756, 0.603069798066, -1.49475947682, 0} } },
  multimargin_p1 = { mean = { v = 0.465657837188, g = {0.1, -0.3, 0.1, 0.1, 0, 0, 0.1, 0.1, 0.1, -0.3} }, sum = {
    v = 0.931315674376, g = {0.2, -0.6, 0.2, 0.2, 0, 0, 0.2, 0.2, 0.2, -0.6} }, none = { v = {0.305200896092,
    0.626114778284}, g = {0.2, -0.6, 0.2, 0.2, 0, 0, 0.2, 0.2, 0.2, -0.6} } },
  ctc = { mean = { v = 1.89535899476, g = {-0.00157049415639, -0.133413936398, 0.111083304496, 0.0239011260587,
    -0.000877630978209, 0.00788238516513, 0.0306811388759, -0.0376858930628, 0.00767293301822, -0.0172089328245,
    0.00614774230972, 0.00338825749656, -0.0165561884917, 0.0426508648152, 0.133476867877, -0.1595715442,
    -0.103025911214, -0.00260100137606, -0.042304346455, 0.147931259045, -0.124957203735, 0.104878824065,
    0.0193325795349, 0.000745800135342, -0.00104389512161, 0.0124501385546, -0.149061661883, 0.13765541845,
    0.165033320259, 0.0258113259648, 0.0134909340328, -0.204335580257, -0.0702880114853, 0.134751182546,
    -0.0722096694959, 0.00774649843478, 0, 0, 0, 0} }, sum = { v = 7.58143597903, g = {-0.00628197662556,
    -0.533655745592, 0.444333217983, 0.0956045042349, -0.00351052391283, 0.0315295406605, 0.122724555504,
    -0.150743572251, 0.0306917320729, -0.068835731298, 0.0245909692389, 0.0135530299862, -0.0662247539669,
    0.170603459261, 0.533907471507, -0.638286176801, -0.412103644855, -0.0104040055042, -0.16921738582,
    0.591725036179, -0.49982881494, 0.419515296259, 0.0773303181394, 0.00298320054137, -0.00417558048643,
    0.0498005542185, -0.596246647531, 0.550621673799, 0.660133281037, 0.103245303859, 0.053963736131,
    -0.817342321027, -0.281152045941, 0.539004730186, -0.288838677983, 0.0309859937391, 0, 0, 0, 0} }, none = { v
    = {3.7340471317, 3.84738884733}, g = {-0.00628197662556, -0.533655745592, 0.444333217983, 0.0956045042349,
    -0.00351052391283, 0.0315295406605, 0.122724555504, -0.150743572251, 0.0306917320729, -0.068835731298,
    0.0245909692389, 0.0135530299862, -0.0662247539669, 0.170603459261, 0.533907471507, -0.638286176801,
    -0.412103644855, -0.0104040055042, -0.16921738582, 0.591725036179, -0.49982881494, 0.419515296259,
    0.0773303181394, 0.00298320054137, -0.00417558048643, 0.0498005542185, -0.596246647531, 0.550621673799,
    0.660133281037, 0.103245303859, 0.053963736131, -0.817342321027, -0.281152045941, 0.539004730186,
    -0.288838677983, 0.0309859937391, 0, 0, 0, 0} } },
}

local function ys(t) return torch.sign(t) end
local TGT = {
  mlmargin = torch.LongTensor({ { 4, 1, 0, 0, 0 }, { 2, 0, 0, 0, 0 }, { 5, 3, 2, 0, 0 } }),  -- PyTorch's {3, 0, -1...}
  ctc = torch.LongTensor({ { 2, 3 }, { 4, 4 } }),  -- PyTorch's {{1, 2}, {3, 3}} (blank 0 there, 1 here)
}
-- key -> crit(reduction), xs() (the differentiable inputs, double), t7(xs) -> forward's input and
-- target, call(c, xs) -> c(...) in PyTorch's order, grad (optional): backward's gradient made the
-- compared one. The constructors mix positionals and tables as PyTorch's signatures allow.
local CASES = {
  softmargin = { crit = function(r) return nn.SoftMarginLoss({ reduction = r }) end,
    xs = function() return { sins(3, 4):mul(2) } end,
    t7 = function(xs) return xs[1], ys(coss(3, 4)) end },
  poisson = { crit = function(r) return nn.PoissonNLLLoss({ reduction = r }) end,
    xs = function() return { sins(3, 4) } end,
    t7 = function(xs) return xs[1], torch.floor(torch.abs(coss(3, 4)):mul(3.5)) end },
  poisson_full = { crit = function(r) return nn.PoissonNLLLoss(false, true, nil, nil, nil, r) end,
    xs = function() return { sins(3, 4):add(1.5) } end,
    t7 = function(xs) return xs[1], torch.floor(torch.abs(coss(3, 4)):mul(3.5)) end },
  gaussian = { crit = function(r) return nn.GaussianNLLLoss({ reduction = r }) end,
    xs = function() return { sins(3, 4), torch.exp(sins(3, 4):mul(0.5)):mul(0.5) } end,
    t7 = function(xs) return { xs[1], xs[2] }, coss(3, 4) end,
    call = function(c, xs) return c(xs[1], coss(3, 4), xs[2]) end },
  gaussian_full = { crit = function(r) return nn.GaussianNLLLoss({ full = true, eps = 1e-3, reduction = r }) end,
    xs = function() return { sins(3, 4), dt({ { 0.5 }, { 1 }, { 2 } }) } end,
    t7 = function(xs) return { xs[1], xs[2] }, coss(3, 4) end,
    call = function(c, xs) return c(xs[1], coss(3, 4), xs[2]) end },
  ranking = { crit = function(r) return nn.MarginRankingLoss(0.1, { reduction = r }) end,
    xs = function() return { sins(6), coss(6) } end,
    t7 = function(xs) return { xs[1], xs[2] }, dt({ 1, -1, 1, 1, -1, -1 }) end,
    call = function(c, xs) return c(xs[1], xs[2], dt({ 1, -1, 1, 1, -1, -1 })) end },
  hinge = { crit = function(r) return nn.HingeEmbeddingLoss({ reduction = r }) end,
    xs = function() return { torch.abs(sins(3, 4)):mul(2) } end,
    t7 = function(xs) return xs[1], ys(coss(3, 4)) end },
  mlmargin = { crit = function(r) return nn.MultiLabelMarginLoss(nil, nil, r) end,
    xs = function() return { sins(3, 5) } end,
    t7 = function(xs) return xs[1], TGT.mlmargin end },
  mlsoft = { crit = function(r)
      return nn.MultiLabelSoftMarginLoss({ weight = dt({ 0.5, 1, 1.5, 2 }), reduction = r })
    end,
    xs = function() return { sins(3, 4):mul(2) } end,
    t7 = function(xs) return xs[1], torch.gt(coss(3, 4), 0):double() end },
  cosine = { crit = function(r) return nn.CosineEmbeddingLoss(0.1, nil, nil, r) end,
    xs = function() return { sins(3, 4), coss(3, 4) } end,
    t7 = function(xs) return { xs[1], xs[2] }, dt({ 1, -1, -1 }) end,
    call = function(c, xs) return c(xs[1], xs[2], dt({ 1, -1, -1 })) end },
  multimargin = { crit = function(r) return nn.MultiMarginLoss(2, 0.5, dt({ 1, 2, 0.5, 1.5 }), { reduction = r }) end,
    xs = function() return { sins(3, 4):mul(2) } end,
    t7 = function(xs) return xs[1], torch.LongTensor({ 4, 1, 3 }) end },
  multimargin_p1 = { crit = function(r) return nn.MultiMarginLoss({ reduction = r }) end,
    xs = function() return { sins(2, 5) } end,
    t7 = function(xs) return xs[1], torch.LongTensor({ 2, 5 }) end },
  ctc = { crit = function(r) return nn.CTCLoss({ reduction = r }) end,
    xs = function() return { sins(5, 2, 4):mul(2) } end,
    t7 = function(xs) return torch.logSoftmax(xs[1], 3), { TGT.ctc, { 5, 4 }, { 2, 2 } } end,
    call = function(c, xs) return c(torch.logSoftmax(xs[1], 3), TGT.ctc, torch.LongTensor({ 5, 4 }), { 2, 2 }) end,
    -- backward's gradient is in logProbs (Note [CTC by recorded ops]); PyTorch's compared one is in the scores
    grad = function(xs, g) return torch.csub(g, torch.cmul(torch.softmax(xs[1], 3), g:sum(3):expandAs(g))) end },
}
local REDUCTIONS = { 'mean', 'sum', 'none' }

function tests.valuesAndGradientsMatchPyTorch()
  for key, case in pairs(CASES) do
    for _, r in ipairs(REDUCTIONS) do
      local want, msg = R[key][r], key .. ' ' .. r
      local c = case.crit(r)
      tester:asserteq(c.reduction, r, msg)
      -- Torch7: forward(input, target) and backward(input, target)
      local input, target = case.t7(case.xs())
      local v = c:forward(input, target)
      close(v, want.v, 1e-9, msg .. ' forward')
      local g = c:backward(input, target)
      close(case.grad and case.grad(case.xs(), g) or g, want.g, 1e-9, msg .. ' backward')
      -- PyTorch: c(...) in PyTorch's order, then loss:backward()
      local xs = case.xs()
      for _, x in ipairs(xs) do x:requiresGrad() end
      local l = case.call and case.call(c, xs) or c(case.t7(xs))
      tester:assert(torch.isTensor(l), msg .. ': the call form gives a recorded tensor')
      close(r == 'none' and l:detach() or l:item(), want.v, 1e-9, msg .. ' call')
      local s = r == 'none' and l:sum() or l
      s:backward()
      local gs = {}
      for i, x in ipairs(xs) do gs[i] = x.grad end
      close(gs, want.g, 1e-9, msg .. ' loss:backward()')
    end
  end
end

-- backward against central differences of forward (of its sum for 'none'), every case and reduction.
function tests.gradientsByFiniteDifferences()
  local h = 1e-6
  local function total(v) return torch.isTensor(v) and v:sum() or v end
  for key, case in pairs(CASES) do
    for _, r in ipairs(REDUCTIONS) do
      local c, xs = case.crit(r), case.xs()
      local g = c:backward(case.t7(xs))
      g = flat(case.grad and case.grad(xs, g) or g)
      local k = 0
      for _, x in ipairs(xs) do
        local xf = x:view(-1)
        for i = 1, xf:size(1) do
          k = k + 1
          local x0 = xf[i]
          xf[i] = x0 + h
          local up = total(c:forward(case.t7(xs)))
          xf[i] = x0 - h
          local down = total(c:forward(case.t7(xs)))
          xf[i] = x0
          tester:assertalmosteq(g[k], (up - down) / (2 * h), 1e-6, key .. ' ' .. r .. ' element ' .. k)
        end
      end
    end
  end
end

local PARENTS = { SoftMarginLoss = 'SoftMarginCriterion', PoissonNLLLoss = 'PoissonNLLCriterion',
  GaussianNLLLoss = 'GaussianNLLCriterion', MarginRankingLoss = 'MarginRankingCriterion',
  HingeEmbeddingLoss = 'HingeEmbeddingCriterion', MultiLabelMarginLoss = 'MultiLabelMarginCriterion',
  MultiLabelSoftMarginLoss = 'MultiLabelSoftMarginCriterion', CosineEmbeddingLoss = 'CosineEmbeddingCriterion',
  MultiMarginLoss = 'MultiMarginCriterion', CTCLoss = 'CTCCriterion' }

function tests.classesExtendTheCriterions()
  for name, parent in pairs(PARENTS) do
    local c = nn[name]()
    tester:asserteq(torch.typename(c), 'nn.' .. name)
    tester:assert(torch.isTypeOf(c, 'nn.' .. parent), name .. ' is an nn.' .. parent)
    tester:assert(torch.isTypeOf(c, 'nn.Criterion'), name .. ' is an nn.Criterion')
    tester:assert(tostring(c):find('^nn%.' .. name) ~= nil, name .. ' prints its name: ' .. tostring(c))
    tester:asserteq(c.reduction, 'mean', name)
  end
  tester:asserteq(tostring(nn.CTCLoss(2, 'sum', true)), 'nn.CTCLoss(blank 2, sum, zeroInfinity)')
  tester:asserteq(tostring(nn.PoissonNLLLoss({ logInput = false, full = true })), 'nn.PoissonNLLLoss(rates, full)')
end

-- PyTorch's positional order and the options table give the same loss; the legacy flags map as PyTorch's.
function tests.optionsPositionalOrTable()
  local w = dt({ 1, 2, 0.5, 1.5 })
  local pairs_ = {
    { nn.MultiMarginLoss(2, 0.5, w, nil, nil, 'sum'),
      nn.MultiMarginLoss({ p = 2, margin = 0.5, weight = w, reduction = 'sum' }) },
    { nn.PoissonNLLLoss(false, true, nil, 1e-4), nn.PoissonNLLLoss({ logInput = false, full = true, eps = 1e-4 }) },
    { nn.MarginRankingLoss(0.3, nil, nil, 'none'), nn.MarginRankingLoss({ margin = 0.3, reduction = 'none' }) },
    { nn.CTCLoss(2, 'sum', true), nn.CTCLoss({ blank = 2, reduction = 'sum', zeroInfinity = true }) },
    { nn.MultiLabelSoftMarginLoss(w, nil, nil, 'sum'), nn.MultiLabelSoftMarginLoss({ weight = w, reduction = 'sum' }) },
  }
  for i, p in ipairs(pairs_) do
    for _, f in ipairs({ 'reduction', 'p', 'margin', 'logInput', 'full', 'eps', 'blank', 'zeroInfinity',
      'sizeAverage' }) do
      tester:asserteq(p[1][f], p[2][f], 'case ' .. i .. ' ' .. f)
    end
  end
  tester:asserteq(pairs_[2][1].eps, 1e-4)
  tester:asserteq(pairs_[4][1].blank, 2)
  tester:assert(pairs_[1][1].weights == w, 'weight kept')
  -- sizeAverage = false sums, reduce = false keeps elements, positionally too (PyTorch's order)
  tester:asserteq(nn.SoftMarginLoss({ sizeAverage = false }).reduction, 'sum')
  tester:asserteq(nn.SoftMarginLoss(false).reduction, 'sum')
  tester:asserteq(nn.HingeEmbeddingLoss(2, nil, false).reduction, 'none')
  tester:asserteq(nn.MultiLabelMarginLoss(true, true).reduction, 'mean')
  tester:asserteq(nn.CosineEmbeddingLoss({ sizeAverage = true, reduce = false }).reduction, 'none')
  tester:asserteq(nn.PoissonNLLLoss({ sizeAverage = false }).reduction, 'sum')
  tester:asserteq(nn.MultiMarginLoss({ reduce = false }).reduction, 'none')
  local x, y = sins(3, 4):mul(2), ys(coss(3, 4))
  tester:assertalmosteq(nn.SoftMarginLoss(false):forward(x, y), R.softmargin.sum.v, 1e-9)
  tester:assertalmosteq(nn.HingeEmbeddingLoss(2):forward(x:abs(), y),
    nn.HingeEmbeddingLoss({ margin = 2 }):forward(x:abs(), y), 0)
  tester:asserteq(nn.GaussianNLLLoss({ full = true, eps = 1e-3 }).eps, 1e-3)
end

function tests.errorsNameTheClass()
  local cases = {
    { function() nn.SoftMarginLoss({ reduction = 'avg' }) end,
      "%[nn.SoftMarginLoss%] reduction must be 'mean', 'sum' or 'none', got avg" },
    { function() nn.PoissonNLLLoss({ logInput = 1 }) end, '%[nn.PoissonNLLLoss%] expected logInput to be a boolean' },
    { function() nn.PoissonNLLLoss({ sizeAverage = 'no' }) end,
      '%[nn.PoissonNLLLoss%] expected sizeAverage to be a boolean' },
    { function() nn.GaussianNLLLoss(true) end, '%[nn.GaussianNLLLoss%] takes its options as a table only' },
    { function() nn.GaussianNLLLoss({ eps = 0 }) end, '%[nn.GaussianNLLLoss%] eps must be > 0' },
    { function() nn.GaussianNLLLoss({ sizeAverage = true }) end, '%[nn.GaussianNLLLoss%] unknown option sizeAverage' },
    { function() nn.MarginRankingLoss('a') end, '%[nn.MarginRankingLoss%] expected margin to be a number' },
    { function() nn.HingeEmbeddingLoss(1, true, true, 'mean', 5) end,
      '%[nn.HingeEmbeddingLoss%] expected at most 4 arguments' },
    { function() nn.MultiLabelMarginLoss({ weight = dt({ 1 }) }) end,
      '%[nn.MultiLabelMarginLoss%] unknown option weight' },
    { function() nn.MultiLabelSoftMarginLoss({ weight = torch.ones(2, 2) }) end,
      '%[nn.MultiLabelSoftMarginLoss%] expected weight to be a 1%-D tensor' },
    { function() nn.CosineEmbeddingLoss(0, { margin = 1 }) end,
      '%[nn.CosineEmbeddingLoss%] argument margin given twice' },
    { function() nn.MultiMarginLoss(3) end, '%[nn.MultiMarginLoss%] p must be 1 or 2, got 3' },
    { function() nn.MultiMarginLoss({ weight = 2 }) end, '%[nn.MultiMarginLoss%] expected weight to be a 1%-D tensor' },
    { function() nn.CTCLoss(0) end, "%[nn.CTCLoss%] blank is a 1%-based class %(PyTorch's blank = 0 is 1 here%), got 0" },
    { function() nn.CTCLoss({ zeroInfinity = 1 }) end, '%[nn.CTCLoss%] expected zeroInfinity to be a boolean' },
    { function() nn.CTCLoss({ reduction = 'batchmean' }) end, '%[nn.CTCLoss%] reduction must be' },
    -- bad inputs, in the parent's and in nn.functional's reductions
    { function() nn.MarginRankingLoss():forward(torch.randn(3), torch.ones(3)) end,
      '%[nn.MarginRankingLoss%] expected {x1, x2}' },
    { function() nn.MarginRankingLoss({ reduction = 'none' }):forward(torch.randn(3), torch.ones(3)) end,
      '%[nn.MarginRankingLoss%] expected input {x1, x2}' },
    { function() nn.CosineEmbeddingLoss({ reduction = 'none' }):backward(torch.randn(3), 1) end,
      '%[nn.CosineEmbeddingLoss%] expected input {x1, x2}' },
    { function() nn.MultiMarginLoss():forward(torch.randn(2, 3), torch.LongTensor({ 1, 4 })) end,
      '%[nn.MultiMarginLoss%] target out of range' },
    { function() nn.GaussianNLLLoss():forward(torch.randn(3), torch.randn(3)) end,
      '%[nn.GaussianNLLLoss.*%] expected a table {mean, var}' },
    { function() nn.CTCLoss():forward(torch.randn(5, 1, 3), torch.LongTensor({ { 2 } })) end,
      '%[nn.CTCLoss.*%] expected the target {targets, inputLengths, targetLengths}' },
  }
  for i, c in ipairs(cases) do tester:assertErrorPattern(c[1], c[2], 'case ' .. i) end
end

-- :float()/:double() convert the class weights; the losses agree across types (and on CUDA when present).
function tests.typeConversion()
  for _, r in ipairs(REDUCTIONS) do
    for _, make in ipairs({
      function() return nn.MultiMarginLoss(2, 0.5, torch.FloatTensor({ 1, 2, 0.5, 1.5 }), { reduction = r }) end,
      function() return nn.MultiLabelSoftMarginLoss(torch.FloatTensor({ 0.5, 1, 1.5, 2 }), nil, nil, r) end }) do
      local c = make():double()
      tester:asserteq(torch.typename(c.weights), 'torch.DoubleTensor', tostring(c) .. ' weights double')
      local x = sins(3, 4):mul(2)
      local t = torch.isTypeOf(c, 'nn.MultiMarginLoss') and torch.LongTensor({ 4, 1, 3 })
        or torch.gt(coss(3, 4), 0):double()
      local vd, gd = c:forward(x, t), c:backward(x, t):clone()
      local key = torch.isTypeOf(c, 'nn.MultiMarginLoss') and 'multimargin' or 'mlsoft'
      close(vd, R[key][r].v, 1e-9, key .. ' ' .. r .. ' double')
      close(gd, R[key][r].g, 1e-9, key .. ' ' .. r .. ' double grad')
      c:float()
      tester:asserteq(torch.typename(c.weights), 'torch.FloatTensor', tostring(c) .. ' weights float')
      local tf = torch.isTensor(t) and nn.utils.isFloating(t) and t:float() or t
      local vf = c:forward(x:float(), tf)
      if r == 'none' then tester:assertTensorEq(vf:double(), vd, 1e-5) else tester:assertalmosteq(vf, vd, 1e-5) end
      tester:assertTensorEq(c:backward(x:float(), tf):double(), gd, 1e-5, key .. ' ' .. r .. ' float grad')
      if torch.cuda and torch.cuda.isAvailable() then
        c:cuda()
        local tc = torch.isTensor(t) and t:cuda() or t
        local vc = c:forward(x:float():cuda(), tc)
        if r == 'none' then tester:assertTensorEq(vc:double(), vd, 1e-5) else tester:assertalmosteq(vc, vd, 1e-5) end
        tester:assertTensorEq(c:backward(x:float():cuda(), tc):double(), gd, 1e-5, key .. ' ' .. r .. ' cuda grad')
      end
    end
  end
end

-- Held by nn.ParallelCriterion: the weighted sum of the children, forward/backward and c(...):backward().
function tests.parallelCriterion()
  local pc = nn.ParallelCriterion():add(nn.MarginRankingLoss(0.1), 0.5):add(nn.GaussianNLLLoss(), 2)
    :add(nn.CTCLoss({ reduction = 'sum' }))
  local function inputs(a, b, m, v, z)
    return { { a, b }, { m, v }, torch.logSoftmax(z, 3) },
      { dt({ 1, -1, 1, 1, -1, -1 }), coss(3, 4), { TGT.ctc, { 5, 4 }, { 2, 2 } } }
  end
  local a, b, m, v, z = sins(6), coss(6), sins(3, 4), torch.exp(sins(3, 4):mul(0.5)):mul(0.5), sins(5, 2, 4):mul(2)
  local input, target = inputs(a, b, m, v, z)
  local want = 0.5 * R.ranking.mean.v + 2 * R.gaussian.mean.v + R.ctc.sum.v
  tester:assertalmosteq(pc:forward(input, target), want, 1e-9)
  local g = pc:backward(input, target)
  local ga = dt(R.ranking.mean.g):mul(0.5)
  tester:assertTensorEq(torch.cat(g[1][1], g[1][2], 1), ga, 1e-9, 'ranking part')
  tester:assertTensorEq(torch.cat(g[2][1]:view(-1), g[2][2]:view(-1), 1), dt(R.gaussian.mean.g):mul(2), 1e-9,
    'gaussian part')
  tester:assertTensorEq(flat(CASES.ctc.grad({ z }, g[3])), dt(R.ctc.sum.g), 1e-9, 'ctc part')
  for _, x in ipairs({ a, b, m, v, z }) do x:requiresGrad() end
  local l = pc(inputs(a, b, m, v, z))
  tester:assertalmosteq(l:item(), want, 1e-9)
  l:backward()
  tester:assertTensorEq(torch.cat(a.grad, b.grad, 1), ga, 1e-9, 'ranking part, loss:backward()')
  tester:assertTensorEq(torch.cat(m.grad:view(-1), v.grad:view(-1), 1), dt(R.gaussian.mean.g):mul(2), 1e-9)
  tester:assertTensorEq(z.grad:view(-1), dt(R.ctc.sum.g), 1e-9, 'ctc part, loss:backward()')
end

-- The call form also takes Torch7's packing (Note [Losses of several tensors]); a number y labels every pair.
function tests.callFormsAndNumberLabels()
  local x1, x2 = sins(6), coss(6)
  local c = nn.MarginRankingLoss(0.1)
  tester:assertalmosteq(c({ x1, x2 }, dt({ 1, -1, 1, 1, -1, -1 })), R.ranking.mean.v, 1e-9)
  local ones = c:forward({ x1, x2 }, torch.ones(6):double())
  tester:assertalmosteq(c:forward({ x1, x2 }, 1), ones, 1e-12, 'y = 1 averages over the 6 pairs, as PyTorch')
  tester:assertTensorEq(flat(c:backward({ x1, x2 }, 1)), flat(c:backward({ x1, x2 }, torch.ones(6):double())), 1e-12)
  local g = nn.GaussianNLLLoss()
  tester:assertalmosteq(g({ sins(3, 4), torch.exp(sins(3, 4):mul(0.5)):mul(0.5) }, coss(3, 4)), R.gaussian.mean.v, 1e-9)
  local ctc = nn.CTCLoss({ reduction = 'none' })
  local lp = torch.logSoftmax(sins(5, 2, 4):mul(2), 3)
  close(ctc(lp, { TGT.ctc, { 5, 4 }, { 2, 2 } }), R.ctc.none.v, 1e-9, 'packed CTC target')
end

-- An impossible alignment (3 labels, 2 repeated, in 3 steps) costs +inf, 0 with zeroInfinity.
function tests.ctcImpossibleAlignment()
  local lp = torch.logSoftmax(sins(5, 2, 4):mul(2), 3)
  local t = torch.LongTensor({ { 2, 2, 2 } })
  tester:asserteq(nn.CTCLoss({ reduction = 'sum' }):forward(lp:narrow(2, 1, 1), { t, { 3 }, { 3 } }), math.huge)
  tester:asserteq(nn.CTCLoss(1, 'sum', true):forward(lp:narrow(2, 1, 1), { t, { 3 }, { 3 } }), 0)
end

-- Saved and loaded in both formats, a loss keeps its class, options and values.
function tests.serializationRoundTrip()
  for _, fmt in ipairs({ 'tocha', 'binary-t7' }) do
    for _, key in ipairs({ 'multimargin', 'ranking', 'gaussian_full', 'ctc' }) do
      local case, c = CASES[key], CASES[key].crit('none')
      local path = os.tmpname()
      torch.save(path, c, fmt)
      local loaded = torch.load(path)
      os.remove(path)
      tester:asserteq(torch.typename(loaded), torch.typename(c), fmt .. ' ' .. key)
      tester:asserteq(loaded.reduction, 'none', fmt .. ' ' .. key)
      close(loaded:forward(case.t7(case.xs())), R[key].none.v, 1e-9, fmt .. ' ' .. key)
    end
  end
end

D.cpuOnly(tests, 'the replay compares losses by their difference, nan for +inf', 'ctcImpossibleAlignment')
tester:add(tests)
tester:run()
