-- Regression tests from a review of nn.models (lua/nn/models/) and the normalization modules
-- (nn.GroupNormalization, nn.LayerNormalization, nn.RMSNorm, nn.LocalResponseNorm,
-- nn.functional's norms, Module:stateDict/loadStateDict). Reference values are PyTorch 1.13's
-- (torchvision 0.14), from the script below, pasted here; nothing calls Python at test time.
--
-- The models' fill and input are test_vision_models.lua's (ref.py there); this suite covers
-- what that one does not: the other families' members (grouped convolutions, plain VGG,
-- SqueezeNet 1.0, MobileNetV3-Large, fused MBConv with eps 1e-3, b1's depth multiplier, b5's
-- eps/momentum), torchvision's options (width multipliers, reduced tail, dilation, a custom
-- DenseNet), and train mode (batch statistics, running-statistics updates with each family's
-- momentum, parameter gradients). The reference script (ref.py, run `python3 ref.py fwd|train`)
-- is test_vision_models.lua's fill and inp with:
--   fwd:   m = getattr(M, name)(**kw).eval() (M.DenseNet(**kw) for the custom DenseNet); fill(m)
--          y = m(inp((1, 3, hw, hw)))[0]; logits 0, 1, 2, n//2, n-2, n-1; y.sum(); y.abs().max();
--          sum(p.numel() for p in m.parameters())
--   train: m = ...(**kw).train(); fill(m); every nn.Dropout's p = 0; m.double();
--          y = m(inp((2, 3, hw, hw)).double());
--          loss = (y * sin(0.3 * arange(y.numel())).view_as(y)).sum(); loss.backward();
--          y[0][0], y[0][1], y[0][-1], y[1].sum(), y.abs().max(); for some batch norms
--          running_mean[0], running_mean.sum(), running_var[0], running_var.sum(), weight.grad.norm()
require 'nn'
torch.setnumthreads(1)  -- building the models draws many small normal() calls (test_vision_models.lua)
local tester = torch.Tester()
local tests = torch.TestSuite()

local V = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/vision_models_checks.lua')
local keyLines = V.keyLines

local function fails(pattern, fn, ...)
  local ok, err = pcall(fn, ...)
  tester:assert(not ok and tostring(err):find(pattern, 1, true) ~= nil,
    'expected an error with ' .. pattern .. ', got ' .. tostring(ok and 'no error' or err))
end

-- ---- the models' fill and input (test_vision_models.lua's, ref.py's) -------------------------

local fill, input = V.fill, V.input  -- helpers/vision_models_checks.lua

-- The module at a state-dict path ('layer4.1.bn2', 'features.4.block.3.1'): Named children by
-- field, containers' children by 0-based index.
local function at(m, path)
  for part in path:gmatch('[^.]+') do m = assert(tonumber(part) and m.modules[tonumber(part) + 1] or m[part], path) end
  return m
end

-- ---- eval-mode forwards ----------------------------------------------------------------------

-- {name, opts, hw, logits (0-based indices 0, 1, 2, n//2, n-2, n-1 of n classes), sum, max |logit|,
-- parameter count}: torchvision 0.14's (float32), `ref.py fwd`.
local FWD = {
  { 'resnext50_32x4d', nil, 32, { 6.35787535, -33.9137611, 63.9769363, -28.2299442, -54.5021477, 95.4542007 }, 788.310797, 104.307991, 25028904 },
  { 'vgg11', nil, 32, { -0.0246546157, 0.0100757387, 0.0218985435, -0.0183821432, 0.0100966822, 0.0281991065 }, 0.4555946, 0.0350811109, 132863336 },
  { 'squeezenet1_0', nil, 48, { 0.00322603341, 0, 0, 0.00642466825, 0, 0 }, 1.66967006, 0.00815045089, 1248424 },
  { 'mobilenet_v3_large', nil, 64, { 9.85285473, -28.5113029, -12.2965603, 16.6567688, 2.92095947, 2.93429947 }, -4959.19711, 77.1885529, 5483032 },
  { 'shufflenet_v2_x0_5', nil, 64, { 11.1021414, -29.091753, 6.08149815, 14.7644291, -30.5817871, 23.711132 }, 161.035288, 51.5352783, 1366792 },
  { 'efficientnet_v2_s', nil, 64, { 149.448639, 122.005753, -356.565887, 367.251282, 79.9971771, -401.916595 }, 3023.77789, 662.908875, 21458488 },
  { 'efficientnet_b1', nil, 64, { -249.862366, 474.320831, -261.147888, -69.9687805, 287.681458, -326.167877 }, 1925.75445, 491.779694, 7794184 },
  { 'mobilenet_v3_small', { widthMult = 0.75, reducedTail = true, dilated = true, numClasses = 10 }, 64, { -0.00998778082, 0.00225324556, 0.0225412231, 0.00920209382, -0.0406639054, 0.0203695409 }, -0.0129338973, 0.0406639054, 371698 },
  { 'mobilenet_v2', { widthMult = 0.35, numClasses = 10 }, 64, { 1.88698447, -2.71225572, 2.5193193, 1.88199449, 0.84140569, -2.18510175 }, -0.459246516, 2.71225572, 408938 },
  { 'resnet50', { replaceStrideWithDilation = { false, true, true }, numClasses = 10 }, 32, { 0.295724034, 0.317487806, -0.809911191, 0.386546612, 1.13179302, -1.43514431 }, 0.0392893851, 1.58695924, 23528522 },
  { 'densenet121', { growthRate = 8, blockConfig = { 2, 3, 2 }, numInitFeatures = 16, bnSize = 2, numClasses = 10 }, 32, { -0.181718871, 0.339079589, -0.0281448551, 0.212265491, 0.534828842, -0.239932641 }, 0.354563605, 0.587596536, 15450 },
  { 'efficientnet_b5', nil, 64, { -4.63981485, 2.76231074, -0.696094275, -2.77353144, 1.9947896, -0.999637485 }, 8.41384684, 4.63981485, 30389784 },
}

for _, ref in ipairs(FWD) do
  local label = ref[1] .. (ref[2] and '_options' or '')
  tests['forward_' .. label] = function()
    local name, opts, hw = ref[1], ref[2], ref[3]
    local m = fill(nn.models[name](opts)):eval()
    tester:eq(m:numParameters(), ref[7], label .. ': number of parameters')
    local y = torch.noGrad(function() return m:forward(input(1, 3, hw, hw)) end):double()
    local n = y:size(2)
    local tol = 1e-4 * ref[6] + 1e-7
    for i, j in ipairs({ 0, 1, 2, math.floor(n / 2), n - 2, n - 1 }) do
      tester:assertalmosteq(y[1][j + 1], ref[4][i], tol, label .. ': logit ' .. j)
    end
    tester:assertalmosteq(y:sum(), ref[5], n * tol, label .. ': sum of the logits')
    tester:assertalmosteq(torch.abs(y):max(), ref[6], tol, label .. ': max |logit|')
  end
end

-- ---- train mode ------------------------------------------------------------------------------

-- {name, opts, hw, {y[1][1], y[1][2], y[1][n]}, sum of y[2], max |y|, {batch norm path = {
-- running_mean[1], sum of running_mean, running_var[1], sum of running_var, |weight.grad|}}}
-- after a train-mode forward of a batch of 2 and loss:backward(), in float64 (resnet18's layer4
-- then normalizes 2 values per channel: PyTorch's own float32 and float64 differ by 10%), dropout
-- off (ref.py sets nn.Dropout's p to 0: torchvision's efficientnet builders take no dropout).
local TRAIN = {
  { 'resnet18', nil, 32, { 0.00337346511, -1.13376898, 0.756521991 }, 11.2597601, 1.27742772, {
    ['bn1'] = { 0.00985588293, -0.00492599656, 0.808550518, 43.4802445, 20477.7715 },
    ['layer4.1.bn2'] = { 0.0114702207, 0.0106087612, 0.913720652, 351.483888, 2.33679034 },
    ['layer2.0.downsample.1'] = { 0.0218960784, -0.0828823732, 0.967367305, 117.570932, 9808.77162 },
  } },
  { 'mobilenet_v3_small', { dropout = 0 }, 64, { -0.00959876481, 0.00459761848, -0.00769652565 }, -2.00000806, 0.109171607, {
    ['features.0.1'] = { 0.00987597667, -0.0168607105, 0.830645781, 11.4811917, 2.44620567 },
    ['features.12.1'] = { 0.00213601489, 0.006577136, 1.01104756, 453.417417, 0.909839772 },
    ['features.4.block.3.1'] = { 0.00981842661, 0.00813151639, 0.924444785, 30.9402059, 3.86888193 },
  } },
  { 'efficientnet_b0', { dropout = 0, stochasticDepthProb = 0 }, 64, { 0.988056845, -0.0927486096, -0.871522151 }, 4.80655451, 1.42941303, {
    ['features.0.1'] = { -0.00782554854, -5.4849791e-05, 0.827038027, 23.0124041, 5.81827532 },
    ['features.8.1'] = { -0.000945790792, -0.00538473528, 0.589627548, 873.161192, 0.935434811 },
  } },
  { 'densenet121', { growthRate = 8, blockConfig = { 2, 3, 2 }, numInitFeatures = 16, bnSize = 2, numClasses = 10 }, 32, { -0.796635479, 0.542500344, 0.126833958 }, 0.00568886534, 1.41445656, {
    ['features.norm0'] = { 0.0067462693, -0.0204913356, 0.683715166, 10.741306, 6.05860895e-05 },
    ['features.norm5'] = { -0.0142053626, 0.0417292488, 0.875269875, 26.6102614, 0.19535567 },
  } },
  { 'shufflenet_v2_x0_5', nil, 64, { -1.18641267, -0.156766206, 1.3820265 }, 6.77163437, 1.49471372, {
    ['conv1.1'] = { 0.00452038816, -0.0211946688, 0.583944867, 16.7696731, 142.184673 },
    ['stage4.3.branch2.6'] = { 0.00153102874, 0.0068904368, 1.48422107, 132.42449, 2.73271943 },
  } },
}

for _, ref in ipairs(TRAIN) do
  tests['train_' .. ref[1]] = function()
    local name, opts, hw = ref[1], ref[2], ref[3]
    local m = fill(nn.models[name](opts)):double()
    m:training()
    local y = m:forward(input(2, 3, hw, hw):double())
    local n = y:size(2)
    local loss = torch.cmul(y, torch.range(torch.DoubleTensor(), 0, y:nElement() - 1):mul(0.3):sin():viewAs(y)):sum()
    m:zeroGrad()
    loss:backward()
    local yd = y:detach():double()
    local tol = 1e-6 * ref[6]
    for i, j in ipairs({ 1, 2, n }) do tester:assertalmosteq(yd[1][j], ref[4][i], tol, name .. ': y[1][' .. j .. ']') end
    tester:assertalmosteq(yd[2]:sum(), ref[5], n * tol, name .. ': sum of y[2]')
    tester:assertalmosteq(torch.abs(yd):max(), ref[6], tol, name .. ': max |y|')
    for path, r in pairs(ref[7]) do
      local bn = at(m, path)
      local rm, rv = bn.running_mean:double(), bn.running_var:double()
      local label = name .. ' ' .. path
      tester:assertalmosteq(rm[1], r[1], 1e-6 * math.abs(r[1]) + 1e-9, label .. ': running_mean[1]')
      tester:assertalmosteq(rm:sum(), r[2], 1e-8 * rm:nElement(), label .. ': sum of running_mean')
      tester:assertalmosteq(rv[1], r[3], 1e-7 * math.abs(r[3]), label .. ': running_var[1]')
      tester:assertalmosteq(rv:sum(), r[4], 1e-7 * math.abs(r[4]), label .. ': sum of running_var')
      tester:assert(bn.weight.grad ~= nil, label .. ': no weight gradient')
      if bn.weight.grad then
        tester:assertalmosteq(bn.weight.grad:double():norm(), r[5], 1e-5 * r[5], label .. ': |weight.grad|')
      end
    end
  end
end

-- Every batch norm of a family has torchvision's eps and momentum: BatchNorm2d defaults (1e-5,
-- 0.1), MobileNetV3 and EfficientNet-B5..B7 (1e-3, 0.01), EfficientNetV2 (1e-3, 0.1). The
-- train-mode checks above see momentum through the running statistics; these cover the rest.
function tests.batchNormEpsAndMomentum()
  local want = {
    resnet18 = { 1e-5, 0.1 }, mobilenet_v2 = { 1e-5, 0.1 }, mobilenet_v3_large = { 1e-3, 0.01 },
    efficientnet_b0 = { 1e-5, 0.1 }, efficientnet_b5 = { 1e-3, 0.01 }, efficientnet_v2_s = { 1e-3, 0.1 },
    shufflenet_v2_x0_5 = { 1e-5, 0.1 }, densenet121 = { 1e-5, 0.1 }, vgg11_bn = { 1e-5, 0.1 },
  }
  for name, r in pairs(want) do
    local n, bad = 0, 0
    for _, m in nn.models[name]():namedModules() do
      if torch.typename(m) == 'nn.BatchNorm2d' then
        n, bad = n + 1, bad + ((m.eps ~= r[1] or m.momentum ~= r[2]) and 1 or 0)
      end
    end
    tester:assert(n > 0 and bad == 0, string.format('%s: %d of %d batch norms without eps %g, momentum %g', name,
      bad, n, r[1], r[2]))
  end
end

-- ---- edge cases ------------------------------------------------------------------------------

-- An empty batch gives an empty batch of logits, as torchvision's models do (PyTorch 1.13:
-- resnet18().eval()(torch.randn(0, 3, 64, 64)).shape == (0, 1000)); the flatten before the
-- classifier viewed N x -1, which 0 elements cannot infer.
function tests.emptyBatchThroughTheModels()
  local cases = {
    { 'resnet18', { numClasses = 3 } }, { 'mobilenet_v2', { numClasses = 3 } },
    { 'mobilenet_v3_small', { numClasses = 3 } }, { 'squeezenet1_1', { numClasses = 3 } },
    { 'alexnet', { numClasses = 3 } }, { 'efficientnet_b0', { numClasses = 3 } },
    { 'shufflenet_v2_x0_5', { numClasses = 3 } },
    { 'densenet121', { growthRate = 4, blockConfig = { 1, 1 }, numInitFeatures = 8, bnSize = 1, numClasses = 3 } },
  }
  for _, c in ipairs(cases) do
    local m = nn.models[c[1]](c[2]):eval()
    local ok, y = pcall(function() return torch.noGrad(function() return m:forward(torch.randn(0, 3, 64, 64)) end) end)
    tester:assert(ok, c[1] .. ' on an empty batch: ' .. tostring(y))
    if ok then tester:eq(y:size():totable(), { 0, 3 }, c[1] .. ': output size') end
  end
end

-- Options out of range are refused by the builder, naming it and the option (a negative
-- DenseNet dropRate was silently no dropout; stochasticDepthProb = 2 failed in a block as
-- "[nn.models.StochasticDepth] ... got 1.125"; flags given as numbers were taken as true).
function tests.optionRanges()
  fails('[nn.models.densenet121] dropRate', nn.models.densenet121, { dropRate = -0.5 })
  fails('[nn.models.densenet121] dropRate', nn.models.densenet121, { dropRate = 1.5 })
  fails('[nn.models.efficientnet_b0] stochasticDepthProb', nn.models.efficientnet_b0, { stochasticDepthProb = 2 })
  fails('[nn.models.efficientnet_b0] stochasticDepthProb', nn.models.efficientnet_b0, { stochasticDepthProb = -0.1 })
  -- flags are booleans: Python's 0/1 are both true in Lua (resnet50 with {0, 1, 1} dilated all three)
  fails('[nn.models.resnet50] expected replaceStrideWithDilation[1] to be a boolean', nn.models.resnet50,
    { replaceStrideWithDilation = { 0, 1, 1 } })
  fails('[nn.models.resnet18] expected zeroInitResidual to be a boolean', nn.models.resnet18, { zeroInitResidual = 0 })
  fails('[nn.models.vgg11] expected initWeights to be a boolean', nn.models.vgg11, { initWeights = 0 })
end

-- ---- normalization modules -------------------------------------------------------------------

-- PyTorch 1.13's values (float64) from this script (norm.py):
--   def f(shape, a, b, scale=1.0): sin(arange(n) * a + b) * scale, viewed as shape (float64)
--   gn: x = f((2,4,3), .7, .1, 2) + .3, w = f((4,), 1.3, .2, .5) + 1, b = f((4,), .9, .4, .1),
--       y = F.group_norm(x, 2, w, b, 1e-5); y.backward(f((2,4,3), .37, .5))
--   ln: x = f((2,2,3,2), .53, .2, 1.5) - .2, w = f((3,2), 1.1, .3, .5) + 1, b = f((3,2), .8, .6, .1),
--       y = F.layer_norm(x, (3,2), w, b, 1e-5); y.backward(f((2,2,3,2), .29, .7))
--   lnPlain: F.layer_norm(x, (3,2), None, None, 1e-3), the same gradOutput
--   lrn{3d,4d}_{size}: x3 = f((2,5,3), .61, .3, 2), x4 = f((1,5,2,2), .47, .9, 2),
--       y = F.local_response_norm(x, size, alpha=.05, beta=.75, k=2); y.backward(f(x.shape, .31, .4))
--   inorm: x = f((2,3,4), .7, .1, 2) + .3, w = f((3,), 1.3, .2, .5) + 1, b = f((3,), .9, .4, .1),
--       rm = f((3,), .5, .1, .1), rv = f((3,), .6, .2, .2) + 1; y = F.instance_norm(x, rm, rv, w, b,
--       use_input_stats=True, momentum=.3, eps=1e-5); y.backward(f((2,3,4), .37, .5)); rm, rv after
--   inormEval: F.instance_norm(x, rm, rv, w, b, use_input_stats=False) with the updated rm, rv
local PT = {
  inorm = { y = { -1.77728599124564, 0.240050178277252, 1.15521386433762, 0.537789285554226, 2.45239933539917, 0.335642218005561, -1.13493114828202, -1.26768713095583, -1.62751039370349, -0.323347199246463, 0.873675905105093, 1.40058024937269, 1.52978754708705, 0.563668844330547, -0.578400819165635, -1.3592882353285, -1.7594026911947, -0.790778596606912, 0.763407349676173, 2.17219721229232, 1.34494368127593, 0.913867571818607, -0.274404097705216, -1.66100859386148 }, gx = { -0.00527671934515029, -0.110568459539955, -0.0730556728987377, 0.188900851783844, -0.102233937201668, 0.22081681747448, 0.198155098394086, -0.316737978666899, 0.0113217937681434, -0.0217392074306457, 0.00607635106645317, 0.00434106259604893, 0.0416687888081717, -0.0379500852464112, -0.0607178891206144, 0.0569991855588542, -0.0894450518728774, 0.0907214769048786, 0.0588051673618524, -0.0600815923938538, -0.0054800779343659, -0.00496919811056113, 0.0211136606383111, -0.0106643845933837 }, gw = { -0.341747044457372, 2.37162351118367, -0.114822289018495 }, gb = { 0.589533341187431, 4.4281591901369, 0.213483433125117 }, rm = { 0.266806834863199, -0.0726259440141175, 0.363508240160493 }, rv = { 1.16158697619429, 1.32060325200635, 1.38477647409047 } },
  inormEval = { y = { 0.276460134451247, 1.53621223377841, 2.10769823207645, 1.72213933463075, 1.20638344728437, -0.571930284347881, -1.80737708603948, -1.9189070225661, -1.07484797220433, 0.249103080708227, 1.464288424155, 1.9991874033182, 1.70172028586899, 0.527496553786607, -0.860578533407466, -1.80967157293434, -1.90611286060953, -0.817254753116064, 0.929850215280295, 2.51351127867455, 2.00070741398095, 1.58191992738069, 0.427522142486893, -0.919554624501943 } },
  gn = { y = { -0.639654425380508, 0.741134548523852, 1.36752887294063, 1.33150359009338, -0.403793170451603, -2.48210490967616, -1.16293655724268, -1.22785519638563, -0.608039173961291, 0.168209723719348, 0.638784676326739, 0.845921853488137, 1.97234424408785, 0.966814959644709, -0.221842798706315, -1.36720689232473, -1.4416181835942, -0.447414774687293, -0.541118005998066, 0.87867823821513, 1.48419011152057, 0.46459520758039, -0.223942296207472, -1.02740266895796 }, gx = { -0.496855164732717, -0.265353918994754, -0.101963736933185, 0.390309862923859, 0.345859209407373, 0.128003748329423, 0.238081875951725, -0.0445747268265799, -0.214855973127948, -0.0471921299455976, 0.0218276843748991, 0.046713269573501, 0.0306817133090177, -0.160004103554715, -0.311155910743856, -0.349116534557659, 0.0711227454993614, 0.718472090047851, 0.30549588502738, 0.205684624428176, 0.133314785734367, -0.385854173013505, -0.212462057000769, -0.0461790651756472 }, gw = { -0.941234429472774, -0.797113089384925, 1.12999450477872, -2.78631440433239 }, gb = { -0.178620504934567, 3.01884823980854, 2.86335177918716, -0.472403549611685 } },
  ln = { y = { -1.61733902629151, 0.254505674281917, 1.45351394946039, 0.899197308055407, 0.100152193287778, -0.991349052955464, 1.59647188742434, -0.195694723113017, -1.34365515482218, -0.849820449143006, -0.177443100200613, 0.893785700515939, -1.33650985429286, 0.528968178488747, 1.54541481118768, 0.849607953759614, 0.00889888721379254, -1.18565792122274, 1.29254296778882, -0.46301918474445, -1.41126873190067, -0.786375926440803, -0.0850276446102964, 1.0700802337104 }, gx = { 0.0989873821611567, 0.84789703752456, 0.607461856916438, -0.449000679984017, -0.916058697789549, -0.189286898828587, 1.31284870091706, 1.12015398770592, 0.212279603258575, -0.430833823423046, -0.706913164150898, -1.50753530430761, -0.610583847051889, -1.15393234823173, -0.546318406201754, 0.692289508794956, 1.12846092374523, 0.490084168945189, -1.30018971696798, -0.687828044796207, 0.146108647792389, 0.367911686022603, 0.355133343758145, 1.11886408419105 }, gw = { 0.589619690677775, -0.243921939937037, -0.49385841741457, -0.188757445623904, 0.264589956626593, 0.35558750327752 }, gb = { 0.0728022252732788, 0.192208126033389, 0.295562293917256, 0.374233389924, 0.421651413896801, 0.433856380011757 } },
  lnPlain = { y = { -1.45476007911717, 0.104225382715836, 1.05393628846621, 1.13378539548602, 0.321863237957584, -1.15905022550848, 1.33844239372016, -0.196629841533646, -1.09371401849409, -1.10666292469706, -0.231923563391321, 1.29048795439596, -1.21066611477448, 0.287639403788821, 1.12448353700939, 1.0702480885691, 0.139814498574882, -1.41151941316771, 1.07435128775621, -0.37529339137279, -1.14568838744196, -1.02544820770829, -0.0475650571707754, 1.5196437559376 }, gx = { -0.166131482108304, -0.104825759632089, -0.056062416480771, 0.01846646654456, 0.116100031308434, 0.192453160368169, 1.45448160459986, 0.942903981241757, 0.341977536560758, -0.302093235089176, -0.935577987373858, -1.50169189993934, -0.272179783377678, -0.168050959860171, -0.0367227443336116, 0.0738329636760411, 0.156781643976255, 0.246338879919166, -1.55612169400452, -0.820387764701647, -0.12429300753258, 0.46253257786804, 0.892876360586714, 1.14539352778399 } },
  lrn3d_3 = { y = { 0.344516718892109, 0.921069429780933, 1.15769511060165, 0.975588600617863, 0.445428674451564, -0.235322499155678, -0.837480396875731, -1.14452878510045, -1.02876501639073, -0.540167953880671, 0.13249143012021, 0.76104518392173, 1.12407034425236, 1.08242899809952, 0.64447251520008, -0.0293179096366985, -0.692778950041139, -1.10197490336668, -1.10862304205483, -0.716297266560678, -0.075381745843254, 0.590602187758665, 1.05437765886301, 1.13446556607076, 0.796181748028547, 0.178859126131948, -0.498078889878802, -1.00739049297762, -1.15397138120419, -0.884040229615896 }, gx = { 0.219325555562793, 0.360391855259686, 0.475216009399875, 0.549910832429058, 0.564412474167175, 0.530828158204546, 0.448416308878173, 0.307291283571128, 0.128726088892381, -0.0452259798553236, -0.19457464410391, -0.332760091875763, -0.458105644582393, -0.534317898793715, -0.568658503659272, -0.548227454474972, -0.457651652415797, -0.320601432695258, -0.156266162914186, 0.0250245740661333, 0.179750564010172, 0.316717498080099, 0.442370850785043, 0.532511089904451, 0.56437612134024, 0.541419193491546, 0.475369586007834, 0.354911419495675, 0.190642212377009, 0.0123896500015144 } },
  lrn4d_3 = { y = { 0.914696108067071, 1.1377782063129, 1.11239309485465, 0.851367599686208, 0.403318622558693, -0.123142994498536, -0.624885854777378, -0.997327035802944, -1.15351376433239, -1.05325145582199, -0.722633709050528, -0.240922755256633, 0.289319749438477, 0.761159022632357, 1.07313499800996, 1.14966564588745, 0.984677577785335, 0.595666222143736, 0.0753462747077744, -0.455812461228933 }, gx = { 0.213106999014499, 0.363469189806484, 0.480726539924685, 0.554302324240841, 0.564773698423822, 0.530434199572809, 0.450555464764772, 0.320313602898947, 0.146038897517535, -0.0451180403651159, -0.220436479934417, -0.360356759347168, -0.464360880103032, -0.533747570123704, -0.557336054285266, -0.522361391901063, -0.444271318587532, -0.323172687182387, -0.172056131294405, -0.00637260210480588 } },
  lrn3d_4 = { y = { 0.346216318536016, 0.925448728842151, 1.16502329947775, 0.983477279805046, 0.450103433745572, -0.237901033719283, -0.843586827058248, -1.13956758510081, -1.01833839544775, -0.538727491813016, 0.133593875514592, 0.767508342263731, 1.12118118296513, 1.06907848683645, 0.638085219541201, -0.0294828749638536, -0.695938756206982, -1.10804533092357, -1.11661695585128, -0.723090134287284, -0.0762198798399018, 0.596507543504862, 1.05562048741392, 1.12410067419667, 0.790306782731838, 0.179573017049366, -0.503186620956605, -1.010074918595, -1.14366427109685, -0.872760459052474 }, gx = { 0.225729913241777, 0.37564844676, 0.487508072676225, 0.556142559773686, 0.571535579386762, 0.534262854651478, 0.438080477912593, 0.289376443639787, 0.121873883145015, -0.0407941671955183, -0.197509949476437, -0.341450486276102, -0.462275141023008, -0.534039071987206, -0.566648518654964, -0.55120631949786, -0.452597375150097, -0.307823664605152, -0.147901172733435, 0.0217817906959515, 0.180532778280944, 0.330353245917861, 0.45474286360021, 0.532468408535809, 0.562422292135821, 0.544144715372336, 0.478238145751067, 0.354652962176492, 0.190409165723564, 0.0139855539401498 } },
  lrn4d_4 = { y = { 0.918839722542257, 1.14451908289491, 1.12066705297368, 0.858044414114705, 0.407505402372391, -0.124471550799454, -0.630980589879486, -1.00540932759088, -1.14899975575633, -1.04331445222551, -0.717424137334703, -0.241133629171128, 0.29173101351643, 0.768026331718807, 1.0755389706083, 1.1423792893441, 0.971596737175045, 0.589182385863288, 0.0751979933246552, -0.458609065629389 }, gx = { 0.221687050959437, 0.368438900249814, 0.482734096471027, 0.557942171036471, 0.573081371101392, 0.534263734045959, 0.441895060377035, 0.303955445741038, 0.13253291081722, -0.0464587605507844, -0.214567304957335, -0.358778292078042, -0.470432551317302, -0.542694837117258, -0.563177376040542, -0.524832102131556, -0.443627010765587, -0.322734010775926, -0.172132991006614, -0.00365711998816883 } },
  lrn3d_7 = { y = { 0.345662080232526, 0.921467538075041, 1.159479802179, 0.981785824930557, 0.452138685569354, -0.239451760399895, -0.845558201605365, -1.14499969837366, -1.03307888526735, -0.548334243705153, 0.134813139651429, 0.769030535106996, 1.12766509475765, 1.08286853837331, 0.645521496271718, -0.029464766299332, -0.693731438172109, -1.10253370915022, -1.11253056979237, -0.724361808919381, -0.0767186111372472, 0.599539201835059, 1.05794894288711, 1.13532111722314, 0.805193695111673, 0.182034100099894, -0.505271762233449, -1.01230572287379, -1.15546903942768, -0.88451990037589 }, gx = { 0.226328349398215, 0.377195598327345, 0.494371181675066, 0.566540858632161, 0.579619242575746, 0.536208492074052, 0.443353879894549, 0.306160180137885, 0.14385731444009, -0.0303373407010077, -0.202086139882471, -0.354302789586585, -0.47473398377139, -0.546901980790772, -0.575230436814919, -0.550796187360772, -0.456519752224227, -0.322340064783249, -0.164081531607426, 0.0116389262779549, 0.181042475150333, 0.335122323570032, 0.454919063546186, 0.535668108132794, 0.573015756331134, 0.551494784718969, 0.481001735954212, 0.360827921380206, 0.20273843057992, 0.0250392598665495 } },
  lrn4d_7 = { y = { 0.913962467894141, 1.13800076951221, 1.1166770362483, 0.857486605389815, 0.409716528472651, -0.125312978792859, -0.633258964548335, -1.00395506470893, -1.15657331616953, -1.05867643889022, -0.731227005812427, -0.245100027640375, 0.2941743874346, 0.769623821695477, 1.07828397045292, 1.15312302538441, 0.983788892527357, 0.596214645842888, 0.0757120363959244, -0.459288717061725 }, gx = { 0.225357762516338, 0.379105259727264, 0.497115816983883, 0.568353578735564, 0.57976704110669, 0.537510334847345, 0.444822338276775, 0.307538010340404, 0.143912649363329, -0.0318755976810845, -0.205655469538841, -0.360388108354571, -0.478923357042136, -0.553367985893452, -0.575280709613273, -0.539859077008351, -0.456704439963417, -0.330537184563306, -0.173707876651314, -0.00207675152311953 } },
}

local function f(shape, a, b, scale)
  local n = 1
  for _, s in ipairs(shape) do n = n * s end
  return torch.range(torch.DoubleTensor(), 0, n - 1):mul(a):add(b):sin():mul(scale or 1):view(torch.LongStorage(shape))
end
local function T(list, like) return torch.DoubleTensor(list):viewAs(like) end

-- x as a non-contiguous view with the same values (a transposed copy, transposed back).
local function noncontig(x)
  local t = x:transpose(1, x:dim()):contiguous():transpose(1, x:dim())
  assert(not t:isContiguous())
  return t
end

-- fn(dt, nc) for float64/float32, contiguous or not, against the references {y, gradients...}.
local function against(label, refs, fn)
  for _, dt in ipairs({ 'double', 'float' }) do
    for _, nc in ipairs({ false, true }) do
      local got = fn(dt, nc)
      for i, r in ipairs(refs) do
        local want = T(r, got[i]):double()
        local tol = (dt == 'double' and 1e-12 or 2e-5) * math.max(1, torch.abs(want):max())
        local tag = string.format('%s (%s%s) result %d', label, dt, nc and ', non-contiguous' or '', i)
        tester:eq(torch.type(got[i]), dt == 'double' and 'torch.DoubleTensor' or 'torch.FloatTensor', tag .. ': type')
        tester:assertTensorEq(got[i]:double(), want, tol, tag)
      end
    end
  end
end

-- {y, gradInput[, gradWeight, gradBias]} of module m (converted to dt, then given weight and
-- bias wb = {w, b} if any) on x0 (a dt copy, non-contiguous when nc) for gradOutput g0, through
-- autograd or through Torch7's backward.
local function moduleRun(m, wb, x0, g0, dt, nc, autograd)
  m = m:type(dt == 'double' and 'torch.DoubleTensor' or 'torch.FloatTensor')
  if wb then torch.noGrad(function() m.weight:copy(wb[1]) m.bias:copy(wb[2]) end) end
  local x = dt == 'double' and x0:clone() or x0:float()
  if nc then x = noncontig(x) end
  if autograd then
    x:requiresGrad()
    local y = m:forward(x)
    local grads = torch.autograd.grad({ y }, m.weight and { x, m.weight, m.bias } or { x }, { g0:typeAs(y) })
    return { y:detach(), unpack(grads) }
  end
  local y = m:forward(x):clone()
  m:zeroGradParameters()
  local gx = m:backward(x, g0:typeAs(x)):clone()
  return { y, gx, m.gradWeight and m.gradWeight:clone(), m.gradBias and m.gradBias:clone() }
end

function tests.groupNormMatchesPyTorch()
  local x0, g0 = f({ 2, 4, 3 }, 0.7, 0.1, 2):add(0.3), f({ 2, 4, 3 }, 0.37, 0.5)
  local w0, b0 = f({ 4 }, 1.3, 0.2, 0.5):add(1), f({ 4 }, 0.9, 0.4, 0.1)
  local r = PT.gn
  for _, autograd in ipairs({ true, false }) do
    against('nn.GroupNorm' .. (autograd and ' autograd' or ' backward'), { r.y, r.gx, r.gw, r.gb }, function(dt, nc)
      return moduleRun(nn.GroupNorm(2, 4), { w0, b0 }, x0, g0, dt, nc, autograd)
    end)
  end
  against('nn.functional.groupNorm', { r.y }, function(dt, nc)
    local x = dt == 'double' and x0:clone() or x0:float()
    if nc then x = noncontig(x) end
    return { nn.functional.groupNorm(x, 2, w0:typeAs(x), b0:typeAs(x), 1e-5) }
  end)
end

function tests.layerNormMatchesPyTorch()
  local x0, g0 = f({ 2, 2, 3, 2 }, 0.53, 0.2, 1.5):add(-0.2), f({ 2, 2, 3, 2 }, 0.29, 0.7)
  local w0, b0 = f({ 3, 2 }, 1.1, 0.3, 0.5):add(1), f({ 3, 2 }, 0.8, 0.6, 0.1)
  for _, autograd in ipairs({ true, false }) do
    local how = autograd and ' autograd' or ' backward'
    against('nn.LayerNorm' .. how, { PT.ln.y, PT.ln.gx, PT.ln.gw, PT.ln.gb }, function(dt, nc)
      return moduleRun(nn.LayerNorm({ 3, 2 }), { w0, b0 }, x0, g0, dt, nc, autograd)
    end)
    against('nn.LayerNorm without affine' .. how, { PT.lnPlain.y, PT.lnPlain.gx }, function(dt, nc)
      return moduleRun(nn.LayerNorm({ 3, 2 }, 1e-3, false), nil, x0, g0, dt, nc, autograd)
    end)
  end
  against('nn.functional.layerNorm', { PT.ln.y }, function(dt, nc)
    local x = dt == 'double' and x0:clone() or x0:float()
    if nc then x = noncontig(x) end
    return { nn.functional.layerNorm(x, { 3, 2 }, w0:typeAs(x), b0:typeAs(x)) }
  end)
end

function tests.localResponseNormMatchesPyTorch()
  for _, size in ipairs({ 3, 4, 7 }) do
    for _, shape in ipairs({ { 2, 5, 3 }, { 1, 5, 2, 2 } }) do
      local key = string.format('lrn%dd_%d', #shape, size)
      local x0 = #shape == 3 and f(shape, 0.61, 0.3, 2) or f(shape, 0.47, 0.9, 2)
      local g0 = f(shape, 0.31, 0.4)
      against('nn.LocalResponseNorm ' .. key, { PT[key].y, PT[key].gx }, function(dt, nc)
        local x = dt == 'double' and x0:clone() or x0:float()
        if nc then x = noncontig(x) end
        x:requiresGrad()
        local m = nn.LocalResponseNorm(size, 0.05, 0.75, 2)
        local y = m:forward(x)
        return { y:detach(), torch.autograd.grad({ y }, { x }, { g0:typeAs(y) })[1] }
      end)
    end
  end
end

-- nn.RMSNorm against its formula x / sqrt(mean(x^2) + eps) * w (PyTorch 2.x's RMSNorm; 1.13 has
-- none), eps by default torch.finfo(x.dtype).eps as PyTorch documents; gradients by gradcheck.
function tests.rmsNormFormula()
  local x0, w0 = f({ 2, 3, 4 }, 0.7, 0.2, 1.5), f({ 3, 4 }, 1.1, 0.3, 0.5):add(1)
  local function formula(eps)
    local ms = torch.cmul(x0, x0):view(2, -1):mean(2):view(2, 1, 1)
    return torch.cdiv(x0, torch.add(ms, eps):sqrt():expandAs(x0)):cmul(w0:view(1, 3, 4):expandAs(x0))
  end
  for _, dt in ipairs({ 'torch.DoubleTensor', 'torch.FloatTensor' }) do
    for _, eps in ipairs({ false, 0.1 }) do  -- false: the default, the dtype's machine epsilon
      for _, nc in ipairs({ false, true }) do
        local m = nn.RMSNorm({ 3, 4 }, eps or nil):type(dt)
        torch.noGrad(function() m.weight:copy(w0) end)
        local x = nc and noncontig(x0:type(dt)) or x0:type(dt)
        local want = formula(eps or (dt == 'torch.DoubleTensor' and 2 ^ -52 or 2 ^ -23))
        tester:assertTensorEq(m:forward(x):double(), want, dt == 'torch.DoubleTensor' and 1e-12 or 1e-5,
          string.format('%s rmsNorm, eps %s%s', dt, tostring(eps), nc and ', non-contiguous' or ''))
      end
    end
  end
  -- the default eps is the dtype's: a tiny float row sees 2^-23, a double row 2^-52
  local tiny = torch.FloatTensor(1, 4):fill(1e-4)
  tester:assertalmosteq(nn.RMSNorm(4):forward(tiny)[1][1], 1e-4 / math.sqrt(1e-8 + 2 ^ -23), 1e-6, 'float eps')
  tester:assertalmosteq(nn.RMSNorm(4):double():forward(tiny:double())[1][1], 1 / math.sqrt(1 + 2 ^ -52 / 1e-8), 1e-12,
    'double eps')
  -- gradients (input and weight) by finite differences
  local ok, err = pcall(torch.autograd.gradcheck, function(t, w) return nn.functional.rmsNorm(t, { 3, 4 }, w) end,
    { x0:clone():requiresGrad(), w0:clone():requiresGrad() })
  tester:assert(ok and err ~= false, 'rmsNorm gradcheck: ' .. tostring(err))
end

-- Empty batches normalize to empty outputs, and their gradients are empty inputs' and zero
-- parameter gradients (PyTorch 1.13: GroupNorm(2, 4)(torch.randn(0, 4, 3)) is 0x4x3, and
-- backward gives weight.grad = zeros). nn.GroupNormalization viewed the batch as 0 x G x -1,
-- which cannot be inferred; nn.LayerNormalization took an empty save_mean for "no forward yet".
function tests.emptyBatches()
  for _, c in ipairs({ { nn.GroupNorm(2, 4), { 0, 4, 3 } }, { nn.LayerNorm({ 3, 2 }), { 0, 3, 2 } } }) do
    for _, autograd in ipairs({ true, false }) do
      local e = torch.zeros(torch.LongStorage(c[2]))
      local ok, r = pcall(moduleRun, c[1], nil, e, e, 'float', false, autograd)
      local label = tostring(c[1]) .. (autograd and ' (autograd)' or ' (backward)') .. ' on an empty batch'
      tester:assert(ok, label .. ': ' .. tostring(r))
      if ok then
        tester:eq({ r[1]:size():totable(), r[2]:size():totable() }, { c[2], c[2] }, label .. ': sizes')
        tester:eq(torch.abs(r[3]):max(), 0, label .. ': weight gradient')
      end
    end
  end
  tester:eq(nn.functional.groupNorm(torch.randn(0, 4, 3), 2):size():totable(), { 0, 4, 3 })
  tester:eq(nn.RMSNorm(4):forward(torch.randn(0, 4)):size():totable(), { 0, 4 })
  tester:eq(nn.LocalResponseNorm(3):forward(torch.randn(0, 4, 3)):size():totable(), { 0, 4, 3 })
  -- a backward with no forward, or of another size, still fails, naming the module
  fails('nn.LayerNorm', function() nn.LayerNorm(3):backward(torch.randn(2, 3), torch.randn(2, 3)) end)
  local ln = nn.LayerNorm(3)
  ln:forward(torch.randn(2, 3))
  fails('nn.LayerNorm', function() ln:backward(torch.randn(4, 3), torch.randn(4, 3)) end)
end

-- Bad inputs are errors that name the module (not the functional or kernel underneath).
function tests.normErrorsNameTheModule()
  fails('nn.GroupNorm', function() nn.GroupNorm(2, 4):forward(torch.LongTensor(2, 4):fill(1)) end)
  fails('nn.GroupNorm', function() nn.GroupNorm(2, 4):forward(torch.randn(4)) end)
  fails('nn.GroupNorm', function() nn.GroupNorm(2, 4):forward(torch.randn(2, 6)) end)
  fails('nn.LayerNorm', function() nn.LayerNorm(4):forward(torch.LongTensor(2, 4):fill(1)) end)
  fails('nn.LayerNorm', function() nn.LayerNorm(4):double():forward(torch.randn(2, 4)) end)
  fails('nn.LayerNorm', function() nn.LayerNorm(4):forward(torch.randn(2, 5)) end)
  -- nn.RMSNorm's wrong shapes are named by the function that checks them, nn.functional.rmsNorm
  -- (test_nn_pytorch_more_params.lua pins that name)
  fails('rmsNorm', function() nn.RMSNorm(4):forward(torch.randn(2, 5)) end)
  fails('rmsNorm', function() nn.RMSNorm({ 2, 4 }):forward(torch.randn(4)) end)
  fails('nn.RMSNorm', function() nn.RMSNorm(4):forward(torch.LongTensor(2, 4)) end)
end

-- nn.functional.instanceNorm: values, gradients and the running statistics' update (the batch
-- mean of each instance's mean and unbiased variance), then normalizing with them.
function tests.instanceNormMatchesPyTorch()
  local x0 = f({ 2, 3, 4 }, 0.7, 0.1, 2):add(0.3)
  local w0, b0 = f({ 3 }, 1.3, 0.2, 0.5):add(1), f({ 3 }, 0.9, 0.4, 0.1)
  local g0 = f({ 2, 3, 4 }, 0.37, 0.5)
  local r = PT.inorm
  against('nn.functional.instanceNorm', { r.y, r.gx, r.gw, r.gb, r.rm, r.rv, PT.inormEval.y }, function(dt, nc)
    local x = dt == 'double' and x0:clone() or x0:float()
    if nc then x = noncontig(x) end
    x:requiresGrad()
    local w, b = w0:typeAs(x):requiresGrad(), b0:typeAs(x):requiresGrad()
    local rm, rv = f({ 3 }, 0.5, 0.1, 0.1):typeAs(x), f({ 3 }, 0.6, 0.2, 0.2):add(1):typeAs(x)
    local y = nn.functional.instanceNorm(x, { runningMean = rm, runningVar = rv, weight = w, bias = b,
                                              momentum = 0.3, eps = 1e-5 })
    local gx, gw, gb = unpack(torch.autograd.grad({ y }, { x, w, b }, { g0:typeAs(y) }))
    local ye = nn.functional.instanceNorm(x:detach(), { runningMean = rm, runningVar = rv, weight = w:detach(),
                                                         bias = b:detach(), useInputStats = false })
    return { y:detach(), gx, gw, gb, rm, rv, ye }
  end)
end

-- Half-precision inputs are normalized in float32 and cast back, as PyTorch 2.4's rms_norm does
-- (opmath): a row holding 300 squared to inf in f16 and normalized to all zeros.
function tests.rmsNormHalfPrecision()
  local x = torch.FloatTensor({ { 300, 1, 1, 1 }, { -2, 0.5, 1, 3 } })
  local want = torch.cdiv(x, torch.cmul(x, x):mean(2):add(2 ^ -10):sqrt():expandAs(x))
  for dt, tt in pairs({ float16 = 'torch.HalfTensor', bfloat16 = 'torch.BFloat16Tensor' }) do
    local m = nn.RMSNorm(4):type(tt)
    local xh = x:to(dt):requiresGrad()
    local y = m:forward(xh)
    tester:eq(torch.type(y), torch.type(xh), dt .. ': output type')
    tester:assertTensorEq(y:detach():float(), want, 2e-2 * 2, dt .. ': values')
    local gx, gw = unpack(torch.autograd.grad({ y }, { xh, m.weight }, { torch.ones(2, 4):to(dt) }))
    tester:assert(torch.type(gx) == torch.type(xh) and gx:float():ne(gx:float()):sum() == 0, dt .. ': input gradient')
    tester:assertTensorEq(gw:float(), want:sum(1):view(4), 2e-2 * 2, dt .. ': weight gradient')
  end
end

-- pixelShuffle (5-D), pixelUnshuffle and channelShuffle on non-contiguous inputs, against
-- PyTorch 1.13: sum(y * sin(arange(y.numel()))) for x = arange(n) viewed as the shape (float64);
-- empty batches keep their shape.
function tests.channelRearrangementsMatchPyTorch()
  local function w(y) return torch.cmul(y, torch.range(torch.DoubleTensor(), 0, y:nElement() - 1):sin():viewAs(y)):sum() end
  local function ar(...) local n = 1 for _, s in ipairs({ ... }) do n = n * s end
    return torch.range(torch.DoubleTensor(), 0, n - 1):view(...) end
  local x = noncontig(ar(2, 3, 8, 2, 3))
  local y = nn.functional.pixelShuffle(x, 2)
  tester:eq(y:size():totable(), { 2, 3, 2, 4, 6 })
  tester:assertalmosteq(w(y), -9.56547386995, 1e-9, 'pixelShuffle')
  y = nn.functional.pixelUnshuffle(noncontig(ar(2, 3, 4, 6)), 2)
  tester:eq(y:size():totable(), { 2, 12, 2, 3 })
  tester:assertalmosteq(w(y), -105.207499117, 1e-9, 'pixelUnshuffle')
  tester:assertalmosteq(w(nn.functional.channelShuffle(noncontig(ar(2, 6, 5)), 3)), 47.4148041257, 1e-9, 'channelShuffle')
  tester:eq(nn.functional.pixelShuffle(torch.zeros(0, 4, 2, 2), 2):size():totable(), { 0, 1, 4, 4 })
  tester:eq(nn.functional.channelShuffle(torch.zeros(0, 4, 2), 2):size():totable(), { 0, 4, 2 })
end

tester:add(tests)
tester:run()
