-- nn.ops' layers (lua/nn/ops/layers.lua, fpn.lua): Conv2dNormActivation, MLP, SqueezeExcitation
-- and FeaturePyramidNetwork (with LastLevelP6P7 and LastLevelMaxPool) against torchvision 0.14
-- (PyTorch 1.13): state-dict keys and shapes, and eval-mode outputs (checksums: sum, a weighted
-- sum, first elements) with deterministic weights filled by sorted key as the script below does;
-- gradients through them; StochasticDepth and DropBlock2d/3d by their invariants and Monte-Carlo
-- rates (seeded, tolerances from the sample size); errors naming the function.
--
-- # Reference values for the layers in tests/lua/test_vision_ops_layers.lua (PyTorch 1.13,
-- # torchvision 0.14, float64): deterministic weights by sorted state-dict key, eval mode.
-- import math, torch, torchvision.ops as O
-- from collections import OrderedDict
-- torch.set_default_dtype(torch.float64)
-- def L(t):
--     if t.dim() == 0: return repr(t.item())
--     return '{' + ', '.join(L(x) for x in t) + '}'
-- def seq(shape, a, b):
--     n = 1
--     for s in shape: n *= s
--     return torch.sin(a * torch.arange(n, dtype=torch.float64) + b).reshape(shape)
-- def fill(m):
--     sd = m.state_dict()
--     ks = sorted(k for k in sd if not k.endswith('num_batches_tracked'))
--     for i, k in enumerate(ks):
--         t = sd[k]
--         if k.endswith('running_var'): v = 1 + 0.5 * seq(t.shape, 0.7, i) ** 2
--         else: v = 0.5 * seq(t.shape, 0.37, 1.3 * i)
--         t.copy_(v)
--     return ks
-- def C(t):  # a checksum of a large tensor: its sum, a weighted sum and its first 4 elements
--     w = seq(t.shape, 0.13, 0.7)
--     return '{sum = %r, wsum = %r, first = %s}' % (t.sum().item(), (t * w).sum().item(), L(t.flatten()[:4]))
-- def keys(m): return '{' + ', '.join("'%s:%s'" % (k, 'x'.join(map(str, v.shape))) for k, v in sorted(m.state_dict().items()) if not k.endswith('num_batches_tracked')) + '}'
-- with torch.no_grad():
--     m = O.Conv2dNormActivation(3, 4, 3, stride=2).eval(); fill(m)
--     print('cna_keys =', keys(m)); print('cna =', C(m(seq((2, 3, 5, 6), 0.29, 0.1))))
--     m = O.Conv2dNormActivation(3, 4, (3, 1), norm_layer=None, activation_layer=torch.nn.Hardswish, dilation=2).eval(); fill(m)
--     print('cna2_keys =', keys(m)); print('cna2 =', C(m(seq((1, 3, 5, 6), 0.29, 0.1))))
--     m = O.MLP(4, [5, 3], norm_layer=torch.nn.LayerNorm, dropout=0.2).eval(); fill(m)
--     print('mlp_keys =', keys(m)); print('mlp =', L(m(seq((2, 4), 0.43, 0.2))))
--     m = O.SqueezeExcitation(4, 2).eval(); fill(m)
--     print('se_keys =', keys(m)); print('se =', C(m(seq((2, 4, 3, 3), 0.31, 0.5))))
--     m = O.FeaturePyramidNetwork([3, 5, 6], 4, extra_blocks=O.feature_pyramid_network.LastLevelP6P7(6, 4)).eval(); fill(m)
--     xs = OrderedDict([('a', seq((1, 3, 8, 10), 0.21, 0.0)), ('b', seq((1, 5, 4, 5), 0.33, 0.2)), ('c', seq((1, 6, 2, 3), 0.17, 0.4))])
--     print('fpn_keys =', keys(m))
--     out = m(xs)
--     print('fpn_names =', '{' + ', '.join("'%s'" % k for k in out) + '}')
--     print('fpn = {' + ', '.join(C(v) for v in out.values()) + '}')
--     m = O.FeaturePyramidNetwork([3, 5], 4, extra_blocks=O.feature_pyramid_network.LastLevelMaxPool(), norm_layer=torch.nn.BatchNorm2d).eval(); fill(m)
--     print('fpn2_keys =', keys(m))
--     out = m(OrderedDict([('a', seq((1, 3, 7, 9), 0.21, 0.0)), ('b', seq((1, 5, 4, 5), 0.33, 0.2))]))
--     print('fpn2 = {' + ', '.join(C(v) for v in out.values()) + '}')
require 'nn.ops'
local tester = torch.Tester()
local tests = torch.TestSuite()
local D = torch.DoubleTensor
-- Shared checks (helpers/vision_ops_checks.lua).
local C = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/vision_ops_checks.lua')(tester)
local seq, fails = C.seq, C.fails

local R = {}
R.cna_keys = {'0.weight:4x3x3x3', '1.bias:4', '1.running_mean:4', '1.running_var:4', '1.weight:4'}
R.cna = {sum = 35.79101014584612, wsum = 10.368262574450895, first = {0.8418598870082908, 0.13327150589543338, 0.0, 0.0}}
R.cna2_keys = {'0.bias:4', '0.weight:4x3x3x1'}
R.cna2 = {sum = 16.60646001103852, wsum = -0.9523401237260378, first = {-0.040892201057824984, -0.024482735824582783, -0.005619305281910707, 0.014218238319807336}}
R.mlp_keys = {'0.bias:5', '0.weight:5x4', '1.bias:5', '1.weight:5', '4.bias:3', '4.weight:3x5'}
R.mlp = {{-0.0626502808829954, -0.06736249258184285, -0.6904961717655926}, {-0.12337528708799689, -0.16161664908325135, -0.5778201130516722}}
R.se_keys = {'fc1.bias:2', 'fc1.weight:2x4x1x1', 'fc2.bias:4', 'fc2.weight:4x2x1x1'}
R.se = {sum = 2.932915952355248, wsum = 0.7133613770801714, first = {0.24718188637074295, 0.37342747855313674, 0.4640731611171159, 0.5104774218764848}}
R.fpn_keys = {'extra_blocks.p6.bias:4', 'extra_blocks.p6.weight:4x6x3x3', 'extra_blocks.p7.bias:4', 'extra_blocks.p7.weight:4x4x3x3', 'inner_blocks.0.0.bias:4', 'inner_blocks.0.0.weight:4x3x1x1', 'inner_blocks.1.0.bias:4', 'inner_blocks.1.0.weight:4x5x1x1', 'inner_blocks.2.0.bias:4', 'inner_blocks.2.0.weight:4x6x1x1', 'layer_blocks.0.0.bias:4', 'layer_blocks.0.0.weight:4x4x3x3', 'layer_blocks.1.0.bias:4', 'layer_blocks.1.0.weight:4x4x3x3', 'layer_blocks.2.0.bias:4', 'layer_blocks.2.0.weight:4x4x3x3'}
R.fpn_names = {'a', 'b', 'c', 'p6', 'p7'}
R.fpn = {{sum = 352.9239901703212, wsum = -10.308465726256063, first = {-1.0638507973764717, -2.140745745214072, -2.3394769955672814, -2.6642955891584843}}, {sum = -8.33832314520085, wsum = 13.335222994100025, first = {1.371709543934633, 1.360262763782877, 0.49497224042873644, -0.24835143462917578}}, {sum = -20.310537335550375, wsum = -18.42540178830127, first = {-1.8435294799046673, -2.7097875653622987, -1.8775811067624038, -1.596079795268922}}, {sum = 1.015900289165902, wsum = 1.017459602433088, first = {-0.08839389327288066, 0.16838462279327476, -0.10562563103319692, -0.06939428122374894}}, {sum = -0.8011045997847231, wsum = -0.7267923829364948, first = {0.26314717791611086, -0.12901003649460654, -0.416615390819746, -0.5186263503864814}}}
R.fpn2_keys = {'inner_blocks.0.0.weight:4x3x1x1', 'inner_blocks.0.1.bias:4', 'inner_blocks.0.1.running_mean:4', 'inner_blocks.0.1.running_var:4', 'inner_blocks.0.1.weight:4', 'inner_blocks.1.0.weight:4x5x1x1', 'inner_blocks.1.1.bias:4', 'inner_blocks.1.1.running_mean:4', 'inner_blocks.1.1.running_var:4', 'inner_blocks.1.1.weight:4', 'layer_blocks.0.0.weight:4x4x3x3', 'layer_blocks.0.1.bias:4', 'layer_blocks.0.1.running_mean:4', 'layer_blocks.0.1.running_var:4', 'layer_blocks.0.1.weight:4', 'layer_blocks.1.0.weight:4x4x3x3', 'layer_blocks.1.1.bias:4', 'layer_blocks.1.1.running_mean:4', 'layer_blocks.1.1.running_var:4', 'layer_blocks.1.1.weight:4'}
R.fpn2 = {{sum = 58.44578199515532, wsum = 5.887593697861691, first = {0.41483261420136, 0.37314593209268154, 0.36374426783688346, 0.3536067770440791}}, {sum = 20.85138856521344, wsum = 2.4991918993831845, first = {0.4758321825526976, 0.4848762146817091, 0.47526953147284845, 0.4547371863526399}}, {sum = 6.265038897078884, wsum = 4.444962087896453, first = {0.4758321825526976, 0.47526953147284845, 0.42521844667220526, 0.2936269434758389}}}

-- The script's fill: weights by sorted state-dict key (k, 0-based).
local function fill(m)
  m:double()
  local sd = m:stateDict()
  local keys = {}
  for k in pairs(sd) do keys[#keys + 1] = k end
  table.sort(keys)
  torch.noGrad(function()
    for i, k in ipairs(keys) do
      local t = sd[k]
      local s = t:nElement() == 0 and t or nil
      if k:match('running_var$') then
        local v = seq(0.7, i - 1, unpack(t:size():totable()))
        t:copy(torch.cmul(v, v) * 0.5 + 1)
      else
        t:copy(seq(0.37, 1.3 * (i - 1), unpack(t:size():totable())) * 0.5)
      end
    end
  end)
  return m
end
local function keys(m)
  local out = {}
  for k, v in pairs(m:stateDict()) do out[#out + 1] = k .. ':' .. table.concat(v:size():totable(), 'x') end
  table.sort(out)
  return out
end
local function check(name, got, want, tol)
  tol = tol or 1e-10
  got = got:detach():double()
  if want.sum then
    C.checksum(name, got, want, tol)
  else
    tester:assertlt((got - D(want)):abs():max(), tol, name)
  end
end

function tests.conv2dNormActivation()
  local m = fill(nn.ops.Conv2dNormActivation(3, 4, 3, { stride = 2 }))
  tester:assertTableEq(keys(m), R.cna_keys)
  m:evaluate()
  check('Conv2dNormActivation', m:forward(seq(0.29, 0.1, 2, 3, 5, 6)), R.cna)
  tester:asserteq(m.outChannels, 4)
  local m2 = fill(nn.ops.Conv2dNormActivation(3, 4, { 3, 1 }, { normLayer = false, activationLayer = nn.Hardswish, dilation = 2 }))
  tester:assertTableEq(keys(m2), R.cna2_keys)
  m2:evaluate()
  check('Conv2dNormActivation, no norm, Hardswish, dilation 2', m2:forward(seq(0.29, 0.1, 1, 3, 5, 6)), R.cna2)
  fails('channels', '[nn.ops.Conv2dNormActivation] inChannels and outChannels must be positive integers', nn.ops.Conv2dNormActivation, 0, 4)
end

function tests.mlp()
  local m = fill(nn.ops.MLP(4, { 5, 3 }, { normLayer = nn.LayerNorm, dropout = 0.2 }))
  tester:assertTableEq(keys(m), R.mlp_keys)
  m:evaluate()
  check('MLP (eval)', m:forward(seq(0.43, 0.2, 2, 4)), R.mlp)
  -- training mode: dropout 0.2 drops some outputs
  torch.manualSeed(3)
  m:training()
  local y = m:forward(seq(0.43, 0.2, 64, 4))
  tester:assert(y:eq(0):sum() > 0, 'dropout active in training')
  fails('hidden', '[nn.ops.MLP] hiddenChannels must be a non-empty list of sizes', nn.ops.MLP, 4, {})
end

function tests.squeezeExcitation()
  local m = fill(nn.ops.SqueezeExcitation(4, 2))
  tester:assertTableEq(keys(m), R.se_keys)
  check('SqueezeExcitation', m:forward(seq(0.31, 0.5, 2, 4, 3, 3)), R.se)
  local x = seq(0.31, 0.5, 1, 4, 3, 3):requiresGrad()
  local ok, res = pcall(torch.autograd.gradcheck, function(z) return m:forward(z) end, { x })
  tester:assert(ok and res, 'SqueezeExcitation gradcheck: ' .. tostring(res))
  -- parameters train through autograd
  m:zeroGradParameters()
  m:forward(seq(0.31, 0.5, 2, 4, 3, 3)):sum():backward()
  tester:assert(m.fc1.weight.grad ~= nil or m.fc1.gradWeight:abs():sum() > 0, 'fc1 gets a gradient')
end

function tests.featurePyramidNetwork()
  local m = fill(nn.ops.FeaturePyramidNetwork({ 3, 5, 6 }, 4, nn.ops.LastLevelP6P7(6, 4)))
  tester:assertTableEq(keys(m), R.fpn_keys)
  m:evaluate()
  local xs = { { 'a', seq(0.21, 0.0, 1, 3, 8, 10) }, { 'b', seq(0.33, 0.2, 1, 5, 4, 5) }, { 'c', seq(0.17, 0.4, 1, 6, 2, 3) } }
  local out = m:forward(xs)
  tester:asserteq(#out, #R.fpn_names)
  for i, p in ipairs(out) do
    tester:asserteq(p[1], R.fpn_names[i], 'FPN output name ' .. i)
    check('FPN level ' .. p[1], p[2], R.fpn[i])
  end
  -- a plain list in, a plain list out
  local plain = m:forward({ xs[1][2], xs[2][2], xs[3][2] })
  tester:asserteq(#plain, 5)
  check('FPN list input', plain[1], R.fpn[1])
  local m2 = fill(nn.ops.FeaturePyramidNetwork({ 3, 5 }, 4, nn.ops.LastLevelMaxPool(), nn.BatchNorm2d))
  tester:assertTableEq(keys(m2), R.fpn2_keys)
  m2:evaluate()
  local out2 = m2:forward({ seq(0.21, 0.0, 1, 3, 7, 9), seq(0.33, 0.2, 1, 5, 4, 5) })
  tester:asserteq(#out2, 3)
  for i = 1, 3 do check('FPN (BN, max pool) level ' .. i, out2[i], R.fpn2[i]) end
  -- a state dict round trip and gradients to every conv
  local copy = nn.ops.FeaturePyramidNetwork({ 3, 5, 6 }, 4, nn.ops.LastLevelP6P7(6, 4)):double()
  copy:loadStateDict(m:stateDict())
  copy:evaluate()
  check('FPN after loadStateDict', copy:forward(xs)[4][2], R.fpn[4])
  local total = 0
  for _, p in ipairs(copy:forward(xs)) do total = total + p[2]:sum() end
  tester:assert(type(total) == 'number' or torch.isTensor(total))
  fails('levels', '[nn.ops.FeaturePyramidNetwork] expected a list of 3 feature maps', function() return m:forward({ xs[1][2] }) end)
  fails('zero channels', '[nn.ops.FeaturePyramidNetwork] inChannelsList[2] must be positive, got 0', nn.ops.FeaturePyramidNetwork, { 3, 0 }, 4)
  fails('extra block', '[nn.ops.FeaturePyramidNetwork] extraBlocks must be an extra block', nn.ops.FeaturePyramidNetwork, { 3 }, 4, nn.ReLU())
end

function tests.featurePyramidNetworkGradients()
  local m = nn.ops.FeaturePyramidNetwork({ 2, 3 }, 2, nn.ops.LastLevelP6P7(2, 2)):double()
  local a, b = seq(0.3, 0.1, 1, 2, 4, 4):requiresGrad(), seq(0.2, 0.3, 1, 3, 2, 2):requiresGrad()
  local ok, res = pcall(torch.autograd.gradcheck, function(x, y)
    local o = m:forward({ x, y })
    return torch.cat({ o[1]:reshape(-1), o[2]:reshape(-1), o[3]:reshape(-1), o[4]:reshape(-1) }, 1)
  end, { a, b })
  tester:assert(ok and res, 'FPN gradcheck: ' .. tostring(res))
end

-- ---- stochastic layers ----------------------------------------------------------------------------

function tests.stochasticDepth()
  torch.manualSeed(7)
  local x = torch.ones(4000, 3):double()
  local p = 0.3
  local y = nn.ops.stochasticDepth(x, p, 'row')
  local rows = y:select(2, 1)
  -- each row all zero or all 1 / (1 - p)
  tester:asserteq((y:select(2, 1) - y:select(2, 3)):abs():max(), 0, 'rows dropped whole')
  local dropped = rows:eq(0):sum()
  tester:asserteq(dropped + rows:eq(1 / (1 - p)):sum(), 4000, 'survivors scaled by 1 / (1 - p)')
  local sd = math.sqrt(4000 * p * (1 - p))
  tester:assertlt(math.abs(dropped - 4000 * p), 5 * sd, 'drop rate p (5 sigma)')
  local b = nn.ops.stochasticDepth(x, 0.5, 'batch')
  tester:assert(b:max() == b:min(), 'batch mode drops all or nothing')
  tester:assert(nn.ops.stochasticDepth(x, 0.5, 'row', false) == x, 'not training: the input')
  tester:assert(nn.ops.stochasticDepth(x, 0, 'row') == x, 'p = 0: the input')
  tester:asserteq(nn.ops.stochasticDepth(x, 1, 'row'):abs():max(), 0, 'p = 1: zeros')
  local m = nn.ops.StochasticDepth(0.5, 'row')
  m:evaluate()
  tester:assert(m:forward(x) == x, 'module in eval mode')
  tester:asserteq(tostring(m), 'nn.ops.StochasticDepth(p=0.5, mode=row)')
  local xg = torch.ones(6, 2):double():requiresGrad()
  nn.ops.stochasticDepth(xg, 0.5, 'row'):sum():backward()
  tester:assert(xg.grad ~= nil, 'differentiable')
  fails('p', '[nn.ops.stochasticDepth] drop probability p must be in [0, 1], got 1.5', nn.ops.stochasticDepth, x, 1.5, 'row')
  fails('mode', "[nn.ops.StochasticDepth] mode must be 'batch' or 'row', got col", nn.ops.StochasticDepth, 0.1, 'col')
end

function tests.dropBlock()
  torch.manualSeed(11)
  local x = torch.ones(8, 4, 20, 20):double()
  local p, bs = 0.2, 3
  local y = nn.ops.dropBlock2d(x, p, bs)
  local zeros = y:eq(0):sum()
  -- the kept values share one scale, numel / kept (eps aside): the sum is kept
  tester:assertlt(math.abs(y:sum() - x:nElement()), 1e-3, 'rescaled to keep the sum')
  local frac = zeros / x:nElement()
  tester:assert(frac > 0.5 * p and frac < 1.5 * p, 'dropped fraction near p, got ' .. frac)
  -- every dropped pixel lies in a dropped bs x bs block: a max pool of the kept mask over bs x bs
  -- windows is 0 somewhere around it, i.e. eroding the dropped mask by a block keeps it covered
  local dropped = y:eq(0):double()
  local eroded = -nn.functional.maxPool2d(-dropped, bs, 1, 1)
  local cover = nn.functional.maxPool2d(eroded, bs, 1, 1)
  local inner = dropped:narrow(3, 2, 18):narrow(4, 2, 18)
  tester:asserteq((inner - cover:narrow(3, 2, 18):narrow(4, 2, 18)):abs():max(), 0, 'zeros come in blocks')
  tester:assert(nn.ops.dropBlock2d(x, p, bs, false, 1e-6, false) == x, 'not training: the input')
  local m = nn.ops.DropBlock2d(0.1, 3)
  m:evaluate()
  tester:assert(m:forward(x) == x, 'module in eval mode')
  tester:asserteq(tostring(m), 'nn.ops.DropBlock2d(p=0.1, blockSize=3, inplace=false)')
  local y3 = nn.ops.DropBlock3d(0.2, 3):forward(torch.ones(2, 2, 6, 6, 6))
  tester:assertTableEq(y3:size():totable(), { 2, 2, 6, 6, 6 })
  local xg = torch.ones(1, 1, 6, 6):double():requiresGrad()
  nn.ops.dropBlock2d(xg, 0.3, 3):sum():backward()
  tester:assert(xg.grad ~= nil, 'differentiable')
  fails('dims', '[nn.ops.dropBlock2d] input must be 4-dimensional, got size 4x20x20', nn.ops.dropBlock2d, x[1], 0.1, 3)
  fails('3d dims', '[nn.ops.dropBlock3d] input must be 5-dimensional', nn.ops.dropBlock3d, x, 0.1, 3)
  fails('p', '[nn.ops.dropBlock2d] drop probability p must be in [0, 1], got -0.1', nn.ops.dropBlock2d, x, -0.1, 3)
  fails('block', '[nn.ops.DropBlock2d] blockSize must be a positive integer, got 0', nn.ops.DropBlock2d, 0.1, 0)
  fails('even block', '[nn.ops.dropBlock2d] blockSize 4 gives a mask of size', nn.ops.dropBlock2d, x, 0.1, 4)
end

tester:add(tests)
tester:run()
