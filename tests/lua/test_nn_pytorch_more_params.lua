-- PyTorch's modules with parameters added by lua/nn/RMSNorm.lua, pytorch_names_more_lazy.lua,
-- AdaptiveLogSoftmaxWithLoss.lua and SyncBatchNorm.lua: outputs, gradients and running statistics
-- against PyTorch 1.13's values (pasted; computed in float64 by PyTorch 1.13 on inputs sins(...) =
-- sin(0), sin(1), ... reshaped, after loading the parameters below; RMSNorm, which PyTorch 1.13
-- lacks, against the closed form of PyTorch 2.4's rms_norm evaluated by PyTorch 1.13's ops), state
-- dicts with PyTorch 1.13's keys and shapes loading strictly, Torch7's and autograd's backward,
-- lazy materialization and optimizers built before it, errors.
require 'nn'
require 'optim'
local D = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()

local function sins(...) return torch.arange(0, torch.DoubleTensor(...):nElement()):double():sin():view(...) end
local function coss(...) return torch.arange(0, torch.DoubleTensor(...):nElement()):double():cos():view(...) end
local function close(got, want, tol, msg)
  if type(want) == 'number' then want = { want } end
  tester:assertTensorEq(got:contiguous():view(-1):double(), torch.DoubleTensor(want), tol or 1e-8, msg)
end

-- A PyTorch-style state dict: keys and shapes as PyTorch 1.13 lists them; the parameters (not the
-- buffers) in sorted key order, parameter j (from 0) = 0.5 sin(0.7 k + j), k = 0, 1, ... (the
-- values the reference script filled PyTorch's parameters with).
local function state_dict(shapes, buffers)
  local keys = {}
  for k in pairs(shapes) do keys[#keys + 1] = k end
  table.sort(keys)
  local sd, j = {}, 0
  for _, k in ipairs(keys) do
    local s = shapes[k]
    if buffers and buffers[k] then
      sd[k] = buffers[k]
    else
      local n = 1
      for _, v in ipairs(s) do n = n * v end
      sd[k] = torch.arange(0, n):double():mul(0.7):add(j):sin():mul(0.5):view(torch.LongStorage(s))
      j = j + 1
    end
  end
  return sd
end

-- PyTorch 1.13's values
local R = {
  rms = { y = {0, 0.3828881906, 0.6329080489, 0.08604089487, -0.179065608, 0.2375873505, 0.1720108423,
    -0.4558986483, -0.4411300038, 0.004894301838, -0.2524482972, -0.6979540269, -0, 0.195961231, 0.7067267992,
    0.4063846676, -0.06982189787, 0.2441503445, 0.4738634894, -0.1066013606, -0.4172276754, 0.01018428987,
    -0.004209975459, -0.605382578}, g = {0, 0.2272851996, -0.3097160128, -0.6067119881, -0.1379608523,
    -0.04912567937, -0.5849255275, -0.5376451273, 0.04304765235, -0.01991267705, -0.3773617353, 0.02515068548,
    0.03035941031, 0.3994499416, 0.04150335322, -0.5115455283, -0.2159605673, 0.124274793, -0.3741605033,
    -0.7117041287, -0.2381533675, -0.05400545404, -0.4751136341, -0.3333072082} },
  asm1 = { out = -4.050202949, loss = 4.050202949 },
  asm = { out = {-1.060023002, -4.41884881, -2.681217255, -1.110758071, -2.765062312}, loss = 2.40718189,
    g = {-0.02166181247, -0.02762216813, -0.02059138651, -0.003876154064, 0.0146620942, 0.02630453047,
    0.1213654681, 0.1916801253, 0.1718446244, 0.07118791153, -0.06294958847, -0.1674809134, 0.0007392116566,
    0.008509382851, 0.01227745833, 0.01027125331, 0.003434317371, -0.005017831692, -3.259201857e-09,
    -2.314366077e-09, -2.810477679e-10, 1.884451698e-09, 3.163664085e-09, 2.954955819e-09, 0.05392946398,
    0.05017889206, 0.02282840314, -0.01525864048, -0.04616930706, -0.05536582711}, gw = {-0.01952435255,
    -0.1070325035, -0.0961354643, 0.00314807739, 0.09953729124, 0.1044123786, 0.02891356636, 0.04338363673,
    0.01796699156, -0.02396842279, -0.04386737977, -0.02343487009, 0.05744464616, -0.1032113771, -0.1689753363,
    -0.07938415052, 0.08319245714, 0.1692823034, -0.06683385998, 0.1668602439, 0.247143809, 0.1002044959,
    -0.1388623686, -0.2502598118},
    lp = {-1.060023002, -2.813289137, -3.460711154, -4.65521666, -3.878201755, -1.55349811, -1.843674518,
    -2.317945495, -2.75325399, -1.107308394, -2.261926908, -3.556711848, -4.41884881, -3.788822188,
    -1.658233646, -1.912554759, -2.328223019, -2.709743148, -1.222314369, -1.660650006, -3.589111868,
    -4.050202949, -3.61735217, -1.861716773, -2.059923517, -2.383877165, -2.681217255, -1.449281882,
    -1.110758071, -3.618301005, -3.641615955, -3.440421663, -2.20785603, -2.334159369, -2.540592444,
    -2.730066553, -1.814970132, -0.7008944797, -3.691415413, -3.275096977, -3.321586193, -2.720723629,
    -2.765062312, -2.837530472, -2.904045202}, pred = {1, 1, 1, 2, 2} },
  sbn = { y = {-0.01900065341, 0.480505772, 0.5207682935, 0.06476973446, -0.4682469328, -0.5882286426,
    -0.1848647643, 0.3709938127, 0.5682932761, 0.2256374091, -0.3419375643, -0.6126058312, -0.07218345274,
    0.5984351532, 0.9982803666, 0.7597363422, 0.102119356, -0.3699605677, -0.2224753241, 0.4089778339,
    0.943843785, 0.8903692404, 0.2977184498, -0.2892281831, 0.05342354213, 0.4237037565, 0.8522554073,
    0.945070083, 0.616814399, 0.1692851172, 0.01393859542, 0.2935997094, 0.7511493207, 0.9659184267,
    0.7404493018, 0.2820372197, -0.6077314817, -0.4010119627, 0.1569269924, 0.5531188812, 0.4233067084,
    -0.1131608131, -0.563057918, -0.5127512829, -0.008492596102, 0.4861050312, 0.5163108215, 0.05435371047,
    -0.2345787692, -0.3646019837, 0.1200133116, 0.7737140492, 0.9954907856, 0.5814430122, -0.08775565773,
    -0.3968470531, -0.06165397056, 0.6096486157, 0.9998682037, 0.7502387038, 0.3411172201, 0.02443262972,
    0.1331075083, 0.5672266737, 0.9276629673, 0.883032923, 0.4743691977, 0.0773953358, 0.05708727521,
    0.4321161532, 0.8576821488, 0.9425218483}, g = {0.5924459771, 0.3192098099, -0.248577493, -0.5888949039,
    -0.3888561646, 0.1676240304, 0.5689203563, 0.4460828216, -0.08795231072, -0.5421956029, -0.4990178669,
    0.001883485914, 0.5804417395, 0.6213385285, 0.07892334174, -0.5481097995, -0.6832695169, -0.2022905896,
    0.4526171748, 0.679334598, 0.2694187266, -0.4002556776, -0.7139930558, -0.3833447093, 0.1905867053,
    0.4606534054, 0.2940852803, -0.1559757039, -0.475745554, -0.3712293444, 0.06148120371, 0.424554008,
    0.3841816066, -0.02251780087, -0.4216266547, -0.4462061153, -0.07670776965, 0.4534643419, 0.5656523201,
    0.1567110552, -0.3973807399, -0.587193624, -0.2382145068, 0.3287068206, 0.5923455044, 0.3103133545,
    -0.2580905711, -0.5902783246, -0.4588633796, 0.2012511322, 0.6642800831, 0.504516791, -0.1311531101,
    -0.6582976447, -0.5922625587, 0.006239794304, 0.5869491111, 0.6159639239, 0.06660814767, -0.5560430505,
    -0.4697715532, -0.1360266829, 0.3096682837, 0.4575434497, 0.1716430695, -0.2851773659, -0.4929192549,
    -0.2605856628, 0.1982169772, 0.4616676339, 0.2875509884, -0.1640509184}, gw = {0.01207455476,
    0.09311219732, 0.06709550648}, gb = {0.04764742104, 0.4524061416, 0.715882006}, rm = {0.006401718867,
    0.005189063177, 0.002355904142}, rv = {0.9048381113, 0.9044266055, 0.9038007788} },
  sbn_eval = { y = {-0.002831508735, 0.3693548514, 0.3993547885, 0.05958649865, -0.3375686193, -0.4269679815,
    -0.1264182267, 0.2877565867, 0.4347660452, 0.1794503307, -0.2434544663, -0.4451316259, 0.03965052751,
    0.5384658117, 0.8358761459, 0.6584438405, 0.1692993388, -0.1818401602, -0.07213862041, 0.3975448684,
    0.7953854726, 0.7556103755, 0.3147886179, -0.1217903092, 0.1701820783, 0.4448700986, 0.7627860984,
    0.8316395735, 0.5881269566, 0.2561326245, 0.1408906352, 0.3483539421, 0.6877817376, 0.8471056719,
    0.6798440546, 0.3397764452, -0.4414997079, -0.2874712881, 0.1282536321, 0.4234594784, 0.326735357,
    -0.07299102083, -0.4082130668, -0.3707291778, 0.004998131492, 0.3735269057, 0.3960334893, 0.05182543321,
    -0.08114132826, -0.1778543722, 0.1826091075, 0.66884065, 0.8338012175, 0.525826825, 0.02806770862,
    -0.2018386955, 0.04748250026, 0.5468065384, 0.8370572009, 0.6513793673, 0.3836042483, 0.1486755111,
    0.2292946911, 0.551340886, 0.8187263095, 0.7856180362, 0.48245566, 0.1879652714, 0.1728999756,
    0.4511107361, 0.7668118627, 0.8297491956} },
  lazyconv = { y = {-0.1850333168, -0.8864570825, -1.17660622, -0.3849890252, -0.01073068043, 1.276665367,
    0.8847156452, 0.4229811297, -0.4276402858, -0.9254682199, 0.23232561, 0.3136746717, 0.8677516379,
    0.62402175, 0.6562740373, -0.4639457135, -0.841046854, -1.018304979, -0.259338203, 0.6723465346,
    0.3940702443, 0.8877594124, 0.4891140602, -0.06307511794, 0.3450823927, -0.4403062921, -0.2437316612,
    -0.2739169307, 0.243881148, 0.09039617144, 1.082049084, 0.4924225917, -0.1247982557, -0.331134777,
    -0.7532937635, 1.165238715, 1.521413521, 1.158867107, 0.02700900378, -0.1933377405, 0.603020704,
    0.7917101024, 1.495883257, 1.277757212, 0.4795957386, 0.007886557768, 0.1956783281, 0.6887625796,
    1.00161066, 1.658844608, -0.5288574345, 0.002166199242, 0.08912079936, 0.5471471161, 0.9533395727,
    0.08101502579, 0.08820109514, 0.6419917002, 1.058547065, 0.3557094563, 1.65072372, 1.160017955,
    -0.01672623464, -0.7812770458, -0.562374728, 0.5670660578, 0.6603910301, 1.269812, 1.108589029,
    1.181922154, -0.7383526828, -0.3178344261, 0.4139934599, 1.162013023, 1.707309294, 0.8050722612,
    0.9816249919, -0.007070181772, -0.5924497075, -0.4448543915, -0.5067482953, 0.3530635456, 0.7637331971,
    0.6262233494, 0.02013333709, 1.012480647, 0.3943322538, -0.2601365582, -0.521443738, -0.9254158183,
    1.339191055, 0.858827591, 0.5679918563, -0.09105969142, -0.1615829523, -0.6483235691, 0.09055181093,
    1.169743718, 1.327471926, 0.9317777622, -0.6942578245, -1.096533127, -0.3463011183, 0.5610643003,
    0.9716333161, -1.188436868, -0.6397669456, -0.5694714589, -0.1368607801, 0.2093623312, -0.2223321434,
    -0.1439558065, -0.5737282981, -0.6372718792, -1.109324291, 0.2984305011, -0.6455014328, -0.7776304852,
    -0.3560638967, -0.09270023347, 0.5612834932, 1.096987306, 1.029790283, 0.01580882283, -0.2791234302,
    -1.257176946, -0.822679843, -0.1651617976, 0.6442052428, 1.173482586, -0.6061319501, -0.5516868786,
    -0.8826672805, -0.4021274553, -0.2716936672, 0.5939888094, 1.005283232, 0.8644891329, -0.07111228788,
    -0.9496257605, 0.06369512032, -0.1664120764, 0.3352638947, 0.8248451725, 0.2278048373, 1.358547652,
    0.9661799425, 0.801456205, 0.1960227141, 0.2218525498, -0.09079983444, 0.3551186496, 0.8969098032,
    0.9102316053, 1.323024376, -0.7733514569, -0.8885041123, -0.2041674408, 0.9640252196, 1.061170817,
    0.1998240009, -0.09689569911, -0.5507279557, -0.04521450105, 0.8697902962, 0.6734799833, 0.6464870799,
    0.1600473703, -0.0205301848, -0.5766338091, 1.527694399, 1.010128508, 0.7784169121, 0.2840413655,
    -0.2751096274, 1.036456266, 0.7447567783, 0.1748143389, -0.102842629, 0.6747776309, -0.6139463295,
    0.04281838496, 1.210203803, 1.661748782, 1.33386384, -0.08151575207, -0.04514551085, -0.4478914477,
    -0.04203269771, 0.05484348605, 1.39733708, 1.005081917, 0.1803512375, -0.4133781831, -0.9068679434,
    0.2218760085, 0.174309921, 1.134497148, 1.448448284, 1.021730542, 0.7518334002, -0.1889046094,
    -0.4498458864, -0.1432076499, 0.2937876096, -0.3410278439, 0.1507494324, 0.7406383054, 0.8035810162,
    1.202337152, -1.111390589, -0.5007099543, -0.04190378668, 0.6094218094, 0.7986397071, 0.6455134962,
    -0.1373343467, -1.011089652, -0.8012605139, -0.355574237, 0.2632778355, 0.5835422709, -0.3128354586,
    -1.082847951, -1.208816369, 0.8658681474, 0.3187491862, 0.1088499253, -0.3623796959, -0.8733949538,
    0.1870965807, -0.05488730575, 0.2933376996, 0.2106151359, 0.5075874813, -0.4621230627, 0.3984910303,
    0.3457662365, -0.1861086815, -0.2222705926} },
  lazyconv1 = { y = {0.7427524982, 0.6537900086, -0.703976468, 0.2909465622} },
  lazylin = { y = {0.9587887693, -0.519398349, 1.110006172, -0.4256214946, 1.12076034, -0.5774587094} },
}
-- PyTorch 1.13's state dict keys and shapes
local ASM_KEYS = {['head.bias'] = {4}, ['head.weight'] = {4, 6}, ['tail.0.0.weight'] = {3, 6}, ['tail.0.1.weight'] = {3, 3}, ['tail.1.0.weight'] = {1, 6}, ['tail.1.1.weight'] = {4, 1}}
local SBN_KEYS = {['bias'] = {3}, ['num_batches_tracked'] = {}, ['running_mean'] = {3}, ['running_var'] = {3}, ['weight'] = {3}}

function tests.rmsNormMatchesPyTorch24()
  local m = nn.RMSNorm({ 3, 4 }, { eps = 1e-3 }):double()
  m:loadStateDict({ weight = torch.arange(0, 12):double():mul(0.7):sin():mul(0.5):view(3, 4) })
  local x = sins(2, 3, 4)
  close(m:forward(x), R.rms.y, 1e-8, 'output')
  local go = coss(2, 3, 4)
  close(m:backward(x, go), R.rms.g, 1e-8, 'Torch7 gradInput')
  m:zeroGradParameters()
  local xr = x:clone():requiresGrad()
  torch.cmul(m(xr), go):sum():backward()
  close(xr.grad, R.rms.g, 1e-8, 'autograd gradInput')
  -- the weight gradient: d/dw sum(go * xhat * w) = sum over the batch of go * xhat
  local xhat = nn.functional.rmsNorm(x, { 3, 4 }, nil, 1e-3)
  tester:assertTensorEq(m.weight.grad, torch.cmul(go, xhat):sum(1):view(3, 4), 1e-12, 'weight gradient')
  tester:assertTensorEq(m.gradWeight, m.weight.grad, 0, 'Torch7 gradWeight is .grad')
end

-- Note [RMSNorm eps]: the default eps is the input dtype's machine epsilon (PyTorch 2.4's)
function tests.rmsNormDefaultEpsIsMachineEps()
  local x = sins(2, 4):mul(1e-3)  -- small values: the eps term matters
  local function formula(t, eps)
    local ms = torch.cmul(t, t):mean(2):add(eps):sqrt()
    return torch.cdiv(t, ms:expandAs(t))
  end
  tester:assertTensorEq(nn.functional.rmsNorm(x, 4), formula(x, 2 ^ -52), 1e-12, 'f64 eps 2^-52')
  local xf = x:float()
  tester:assertTensorEq(nn.functional.rmsNorm(xf, 4):double(), formula(xf:double(), 2 ^ -23), 1e-6, 'f32 eps 2^-23')
  tester:assert((nn.functional.rmsNorm(xf, 4):double() - formula(xf:double(), 1e-5)):abs():max() > 1e-2,
    'not LayerNorm\'s 1e-5')
  local m = nn.RMSNorm(4, { elementwiseAffine = false })
  tester:asserteq(m:parameters(), nil, 'no parameters without affine')
  tester:assertTensorEq(m:forward(xf), nn.functional.rmsNorm(xf, 4), 0)
  tester:assertTableEq(nn.RMSNorm({ 2, 3 }):stateDict().weight:size():totable(), { 2, 3 })
  tester:assertTensorEq(nn.RMSNorm(3).weight, torch.ones(3), 0, 'weight starts at 1')
end

function tests.rmsNormErrors()
  tester:assertErrorPattern(function() nn.RMSNorm() end, 'nn.RMSNorm.*normalizedShape')
  tester:assertErrorPattern(function() nn.RMSNorm(3, { eps = -1 }) end, 'nn.RMSNorm.*eps')
  tester:assertErrorPattern(function() nn.RMSNorm(3):forward(torch.randn(2, 4)) end, 'rmsNorm.*last dims are 3')
  tester:assertErrorPattern(function() nn.functional.rmsNorm(torch.randn(2, 3), 3, torch.ones(4)) end,
    'rmsNorm.*weight of size 3')
end

function tests.lazyModulesLoadPyTorchWeights()
  local cases = {
    { function() return nn.LazyConv2d(6, { 2, 3 }, { padding = 1, groups = 2 }) end,
      { bias = { 6 }, weight = { 6, 2, 2, 3 } }, sins(2, 4, 3, 5), R.lazyconv },
    { function() return nn.LazyConv1d(2, 2, { stride = 2 }) end, { bias = { 2 }, weight = { 2, 3, 2 } }, sins(3, 5),
      R.lazyconv1 },
    { function() return nn.LazyLinear(3) end, { bias = { 3 }, weight = { 3, 5 } }, sins(2, 5), R.lazylin },
  }
  for _, c in ipairs(cases) do
    local m = c[1]():double()
    tester:assert(m:isLazy(), 'lazy before its first input')
    m:loadStateDict(state_dict(c[2]))  -- materializes from the weight's shape
    tester:assert(not m:isLazy(), 'materialized by loading')
    close(m:forward(c[3]), c[4].y, 1e-8, tostring(m))
  end
end

function tests.lazyModulesInferTheirInput()
  for _, c in ipairs({ { nn.LazyLinear(3), nn.Linear(5, 3), sins(4, 5) },
                       { nn.LazyConv2d(6, 3, { padding = 1, groups = 2 }), nn.Conv2d(4, 6, 3, { padding = 1, groups = 2 }),
                         sins(2, 4, 5, 5) },
                       { nn.LazyConv3d(2, 2), nn.Conv3d(3, 2, 2), sins(3, 3, 4, 3) } }) do
    local lazy, ref, x = c[1]:double(), c[2]:double(), c[3]
    tester:asserteq(lazy.weight:nElement(), 0, 'an empty weight before the first forward')
    local y = lazy:forward(x):clone()
    tester:assertTableEq(lazy.weight:size():totable(), ref.weight:size():totable(), tostring(lazy))
    tester:assert(torch.isTypeOf(lazy, torch.typename(ref)), 'extends ' .. torch.typename(ref))
    -- PyTorch's init bound 1/sqrt(fanIn) with the inferred fanIn
    local bound = 1 / math.sqrt(lazy.weight:nElement() / lazy.weight:size(1))
    tester:assert(torch.abs(lazy.weight):max() <= bound and torch.abs(lazy.bias):max() <= bound, 'init bound')
    -- from now on exactly the parent
    ref:loadStateDict(lazy:stateDict())
    tester:assertTensorEq(y, ref:forward(x), 1e-12, 'forward')
    local go = coss(unpack(y:size():totable()))
    tester:assertTensorEq(lazy:backward(x, go), ref:backward(x, go), 1e-12, 'gradInput')
    tester:assertTensorEq(lazy.gradWeight, ref.gradWeight, 1e-12, 'gradWeight')
    tester:assert(lazy.weight.grad == lazy.gradWeight, 'weight.grad is gradWeight')
  end
end

-- Note [Lazy parameters]: an optimizer made before the first forward updates the materialized tensors
function tests.lazyOptimizerBeforeFirstForward()
  local m = nn.Sequential():add(nn.LazyLinear(4)):add(nn.Tanh()):add(nn.LazyLinear(1)):double()
  local opt = optim.SGD(m, { lr = 0.1 })
  local x = sins(6, 3)
  local loss = torch.pow(m(x), 2):sum()
  loss:backward()
  local w0 = m.modules[1].weight:clone()
  local g = m.modules[1].weight.grad:clone()
  tester:assertTableEq(w0:size():totable(), { 4, 3 })
  tester:assert(torch.abs(g):sum() > 0, 'a gradient reached the materialized weight')
  opt:step()
  tester:assertTensorEq(m.modules[1].weight, w0 - g * 0.1, 1e-14, 'the optimizer updated it')
  tester:asserteq(tostring(nn.LazyLinear(7)), 'nn.LazyLinear(? -> 7)')
end

function tests.lazyErrors()
  tester:assertErrorPattern(function() nn.LazyConv2d(4, 3, { groups = 2 }):forward(torch.randn(1, 3, 5, 5)) end,
    'nn.LazyConv2d.*groups %(2%)')
  tester:assertErrorPattern(function() nn.LazyConv1d(4, 3):forward(torch.randn(5)) end, 'nn.LazyConv1d.*2D')
  tester:assertErrorPattern(function() nn.LazyLinear(3):loadStateDict({ weight = torch.randn(4, 2), bias = torch.randn(3) }) end,
    'nn.LazyLinear.*weight of size 3')
  tester:assertErrorPattern(function() nn.LazyLinear(0) end, 'nn.LazyLinear.*outFeatures')
end

function tests.adaptiveLogSoftmaxMatchesPyTorch()
  local m = nn.AdaptiveLogSoftmaxWithLoss(6, 9, { 2, 5 }, { divValue = 2, headBias = true }):double()
  local sd = m:stateDict()
  for k, s in pairs(ASM_KEYS) do
    tester:assert(sd[k] ~= nil, 'PyTorch key ' .. k)
    if sd[k] then tester:assertTableEq(sd[k]:size():totable(), s, k) end
  end
  m:loadStateDict(state_dict(ASM_KEYS))
  local x, t = sins(5, 6), torch.LongTensor({ 1, 4, 9, 2, 7 })  -- PyTorch's 0, 3, 8, 1, 6
  local r = m:forward({ x, t })
  close(r.output, R.asm.out, 1e-8, 'output')
  close(r.loss, R.asm.loss, 1e-8, 'loss')
  tester:assert(r[1] == r.output and r[2] == r.loss, 'the array part holds output and loss')
  -- d(2 loss + sum(output * c)) by Torch7's backward and by autograd
  local c = torch.DoubleTensor({ 0.1, 0.2, 0.3, 0.4, 0.5 })
  m:zeroGradParameters()
  local gi = m:backward({ x, t }, { c, torch.DoubleTensor({ 2 }):view(torch.LongStorage({})) })
  close(gi[1], R.asm.g, 1e-8, 'Torch7 gradInput')
  close(m.head.gradWeight, R.asm.gw, 1e-8, 'Torch7 head gradWeight')
  m:zeroGradParameters()
  local xr = x:clone():requiresGrad()
  local r2 = m(xr, t)
  torch.add(torch.mul(r2.loss, 2), torch.cmul(r2.output, c):sum()):backward()
  close(xr.grad, R.asm.g, 1e-8, 'autograd gradInput')
  close(m.head.weight.grad, R.asm.gw, 1e-8, 'autograd head weight gradient')
  close(m:logProb(x), R.asm.lp, 1e-8, 'logProb')
  tester:assertTensorEq(m:predict(x):double(), torch.DoubleTensor(R.asm.pred), 0, 'predict (1-based)')
  local r1 = m:forward({ x[3], 4 })  -- one sample: PyTorch's 0-dim target 3
  close(r1.output, R.asm1.out, 1e-8, 'unbatched output')
  tester:asserteq(r1.output:dim(), 0)
end

function tests.adaptiveLogSoftmaxErrors()
  tester:assertErrorPattern(function() nn.AdaptiveLogSoftmaxWithLoss(6, 9, { 5, 2 }) end, 'cutoffs should be unique')
  tester:assertErrorPattern(function() nn.AdaptiveLogSoftmaxWithLoss(6, 9, { 9 }) end, 'between 1 and nClasses')
  tester:assertErrorPattern(function() nn.AdaptiveLogSoftmaxWithLoss(6, 9, {}) end, 'cutoffs should be a non%-empty')
  -- PyTorch builds a Linear with 0 outputs here; Tocha's nn.Linear needs one
  tester:assertErrorPattern(function() nn.AdaptiveLogSoftmaxWithLoss(6, 9, { 2, 5 }) end, 'divValue%^2 is below 1')
  local m = nn.AdaptiveLogSoftmaxWithLoss(6, 9, { 2, 5 }, { divValue = 2 })
  tester:assertErrorPattern(function() m:forward({ torch.randn(3, 6), torch.LongTensor({ 1, 10, 2 }) }) end,
    'target values should be in 1..9')
  tester:assertErrorPattern(function() m:forward({ torch.randn(3, 6), torch.LongTensor({ 1, 2 }) }) end,
    'same size in the batch dim')
  tester:assertErrorPattern(function() m:forward({ torch.randn(3, 5), torch.LongTensor({ 1, 2, 3 }) }) end,
    'input of size N x 6')
  tester:assertErrorPattern(function() m:forward(torch.randn(3, 6)) end, 'expected {input, target}')
end

function tests.syncBatchNormMatchesPyTorch()
  local m = nn.SyncBatchNorm(3, { momentum = 0.2 }):double()
  local sd = m:stateDict()
  for k, s in pairs(SBN_KEYS) do
    if k ~= 'num_batches_tracked' then tester:assertTableEq(sd[k]:size():totable(), s, k) end
  end
  -- PyTorch's state dict, num_batches_tracked included, loads strictly
  m:loadStateDict(state_dict(SBN_KEYS, { running_mean = torch.zeros(3), running_var = torch.ones(3),
    num_batches_tracked = torch.LongTensor({ 0 }):view(torch.LongStorage({})) }))
  local x = sins(2, 3, 2, 2, 3)
  close(m:forward(x), R.sbn.y, 1e-8, 'output')
  close(m.running_mean, R.sbn.rm, 1e-8, 'running mean')
  close(m.running_var, R.sbn.rv, 1e-8, 'running var (unbiased)')
  local go = coss(2, 3, 2, 2, 3)
  m:zeroGradParameters()
  close(m:backward(x, go), R.sbn.g, 1e-8, 'Torch7 gradInput')
  close(m.gradWeight, R.sbn.gw, 1e-8, 'gradWeight')
  close(m.gradBias, R.sbn.gb, 1e-8, 'gradBias')
  m:evaluate()
  close(m:forward(x), R.sbn_eval.y, 1e-8, 'evaluation output')
end

function tests.syncBatchNormIsABatchNorm()
  -- autograd and Torch7 agree, and any trailing dims are statistics dims (N x C, N x C x L...)
  for _, sz in ipairs({ { 5, 3 }, { 4, 3, 5 }, { 2, 3, 2, 3 } }) do
    local x = sins(unpack(sz))
    local m = nn.SyncBatchNorm(3):double()
    m.weight:copy(torch.DoubleTensor({ 0.5, -1, 2 }))
    local ref = (#sz == 4 and nn.BatchNorm2d(3) or nn.BatchNorm1d(3)):double()
    ref:loadStateDict(m:stateDict())
    tester:assertTensorEq(m:forward(x), ref:forward(x), 1e-12, 'output ' .. #sz .. 'D')
    local go = coss(unpack(sz))
    tester:assertTensorEq(m:backward(x, go), ref:backward(x, go), 1e-12, 'gradInput ' .. #sz .. 'D')
    tester:assert(nn.Jacobian.testJacobian(m, x) < 1e-6, 'Jacobian ' .. #sz .. 'D')
  end
  local m = nn.SyncBatchNorm(2):double()
  local xr = sins(4, 2, 3):requiresGrad()
  torch.cmul(m(xr), coss(4, 2, 3)):sum():backward()
    local m2 = nn.SyncBatchNorm(2):double()
  m2:forward(sins(4, 2, 3))
  tester:assertTensorEq(xr.grad, m2:backward(sins(4, 2, 3), coss(4, 2, 3)), 1e-12, 'autograd and Torch7')
  tester:assertTensorEq(m.weight.grad, m2.gradWeight, 1e-12, 'weight gradient')
end

function tests.convertSyncBatchnorm()
  local bn = nn.BatchNorm2d(3)
  bn.weight:copy(torch.Tensor({ 1, 2, 3 }))
  bn.running_mean:copy(torch.Tensor({ 0.1, 0.2, 0.3 }))
  local model = nn.Sequential():add(nn.Conv2d(2, 3, 1)):add(bn):add(nn.Sequential():add(nn.BatchNorm2d(3, { affine = false })))
  model:evaluate()
  local x = torch.randn(2, 2, 3, 3)
  local before = model:forward(x):clone()
  local out = nn.SyncBatchNorm.convertSyncBatchnorm(model)
  tester:assert(out == model, 'a container is converted in place')
  tester:asserteq(torch.typename(model.modules[2]), 'nn.SyncBatchNorm')
  tester:asserteq(torch.typename(model.modules[3].modules[1]), 'nn.SyncBatchNorm')
  tester:asserteq(model.modules[3].modules[1].weight, nil, 'affine = false kept')
  tester:asserteq(model.modules[2].train, false, 'evaluation mode kept')
  tester:assertTensorEq(model:forward(x), before, 1e-5, 'same function')
  local single = nn.SyncBatchNorm.convertSyncBatchnorm(nn.BatchNorm1d(5, { eps = 1e-3 }))
  tester:asserteq(torch.typename(single), 'nn.SyncBatchNorm')
  tester:asserteq(single.eps, 1e-3)
  tester:assertErrorPattern(function() nn.SyncBatchNorm.convertSyncBatchnorm(3) end, 'convertSyncBatchnorm.*nn.Module')
  tester:assertErrorPattern(function() nn.SyncBatchNorm(3, { processGroup = {} }) end, 'processGroup')
  tester:assertErrorPattern(function() nn.SyncBatchNorm(3):forward(torch.randn(2, 4)) end, 'nn.SyncBatchNorm.*N x 3')
end

D.cpuOnly(tests, 'a lazy module replayed before its first forward materializes with other random weights',
  'lazyModulesInferTheirInput', 'lazyOptimizerBeforeFirstForward')
tester:add(tests)
tester:run()
