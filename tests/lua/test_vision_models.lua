-- nn.models (lua/nn/models/): torchvision 0.14's classification models. Checked against
-- torchvision (PyTorch 1.13) for every model: the parameter count and the sorted state-dict
-- "key:shape" lines (count, checksum, first and last line; a few keys verbatim); for ten models,
-- the logits of a deterministic input with deterministic weights in eval mode; a train-mode
-- forward and backward of resnet18; options, errors and loading a state dict. The big models'
-- keys are checked in test_vision_models_large.lua. The references come from this script
-- (`python3 ref.py keys`, `python3 ref.py fwd`), whose fill and input Lua repeats below:
--
-- # Reference values for tests/lua/test_vision_models.lua (PyTorch 1.13, torchvision 0.14).
-- import math, sys, torch, torchvision.models as M
-- torch.set_grad_enabled(False)
-- def lines(sd):
--     ks = sorted(k for k in sd if not k.endswith('num_batches_tracked'))
--     return ks, ['%s:%s' % (k, 'x'.join(str(s) for s in sd[k].shape)) for k in ks]
-- def checksum(ls):
--     h = 0
--     for b in '\n'.join(ls).encode():
--         h = (h * 31 + b) % 1000000007
--     return h
-- ALL = ['resnet18','resnet34','resnet50','resnet101','resnet152','resnext50_32x4d','resnext101_32x8d','resnext101_64x4d',
--        'wide_resnet50_2','wide_resnet101_2','vgg11','vgg13','vgg16','vgg19','vgg11_bn','vgg13_bn','vgg16_bn','vgg19_bn',
--        'alexnet','squeezenet1_0','squeezenet1_1','mobilenet_v2','mobilenet_v3_large','mobilenet_v3_small',
--        'densenet121','densenet161','densenet169','densenet201','shufflenet_v2_x0_5','shufflenet_v2_x1_0',
--        'shufflenet_v2_x1_5','shufflenet_v2_x2_0'] + ['efficientnet_b%d' % i for i in range(8)] + \
--       ['efficientnet_v2_s','efficientnet_v2_m','efficientnet_v2_l']
-- def fill(model):
--     sd = model.state_dict()
--     ks = sorted(k for k in sd if not k.endswith('num_batches_tracked'))
--     keyset = set(ks)
--     for k_idx, k in enumerate(ks):
--         t = sd[k]
--         n = t.numel()
--         j = ((torch.arange(n, dtype=torch.int64) * 7919) % 10007).double()
--         s = torch.sin(0.37 * j + 1.3 * k_idx)
--         if k.endswith('running_var'): v = 0.75 + 0.25 * s
--         elif k.endswith('running_mean'): v = 0.01 * s
--         elif t.dim() >= 2: v = s * (2.0 / math.sqrt(n / t.shape[0]))
--         elif k.endswith('weight'): v = 1 + 0.1 * s
--         elif k[:-4] + 'running_mean' in keyset: v = 0.01 * s   # a batch norm's bias
--         else: v = 0.001 * s
--         t.copy_(v.reshape(t.shape).float())
-- def inp(shape):
--     n = 1
--     for s in shape: n *= s
--     j = ((torch.arange(n, dtype=torch.int64) * 7919) % 10007).double()
--     return torch.sin(0.11 * j + 0.5).reshape(shape).float()
-- mode = sys.argv[1]
-- if mode == 'keys':
--     for name in ALL:
--         m = getattr(M, name)()
--         sd = m.state_dict()
--         ks, ls = lines(sd)
--         np_ = sum(p.numel() for p in m.parameters())
--         print("  %s = { %d, %d, %d, '%s', '%s' }," % (name, np_, len(ls), checksum(ls), ls[0], ls[-1]))
-- elif mode == 'fwd':
--     specs = [('resnet18', 64), ('resnet50', 64), ('vgg11_bn', 32), ('mobilenet_v2', 64), ('mobilenet_v3_small', 64),
--              ('densenet121', 32), ('squeezenet1_1', 64), ('shufflenet_v2_x1_0', 64), ('alexnet', 63), ('efficientnet_b0', 64)]
--     for name, hw in specs:
--         m = getattr(M, name)().eval()
--         fill(m)
--         y = m(inp((1, 3, hw, hw)))[0].double()
--         idx = [0, 1, 2, 500, 998, 999]
--         print("  %s = { %d, { %s }, %.9g, %.9g }," % (name, hw, ', '.join('%.9g' % y[j] for j in idx), y.sum(), y.abs().max()))
require 'nn'
-- One thread: building the models draws ~10^8 normal numbers in thousands of calls, and a
-- parallel tensor:normal() on a few thousand elements costs ~50x more on two busy threads.
torch.setnumthreads(1)
local tester = torch.Tester()
local tests = torch.TestSuite()

-- The shared key checks (keyLines, checksum, checkKeys) are in helpers/vision_models_checks.lua.
local V = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/vision_models_checks.lua')
local keyLines, checkKeys = V.keyLines, V.checkKeys

-- torchvision's values: {parameters, state-dict entries, checksum, first line, last line}.
local KEYS = {
  resnet18 = { 11689512, 102, 726439570, 'bn1.bias:64', 'layer4.1.conv2.weight:512x512x3x3' },
  resnet34 = { 21797672, 182, 838673728, 'bn1.bias:64', 'layer4.2.conv2.weight:512x512x3x3' },
  resnet50 = { 25557032, 267, 463758594, 'bn1.bias:64', 'layer4.2.conv3.weight:2048x512x1x1' },
  resnext50_32x4d = { 25028904, 267, 495854344, 'bn1.bias:64', 'layer4.2.conv3.weight:2048x1024x1x1' },
  alexnet = { 61100840, 16, 620563014, 'classifier.1.bias:4096', 'features.8.weight:256x384x3x3' },
  squeezenet1_0 = { 1248424, 52, 420468233, 'classifier.1.bias:1000', 'features.9.squeeze.weight:48x384x1x1' },
  squeezenet1_1 = { 1235496, 52, 331649125, 'classifier.1.bias:1000', 'features.9.squeeze.weight:48x256x1x1' },
  mobilenet_v2 = { 3504872, 262, 181396700, 'classifier.1.bias:1000', 'features.9.conv.3.weight:64' },
  mobilenet_v3_large = { 5483032, 266, 442457770, 'classifier.0.bias:1280', 'features.9.block.2.1.weight:80' },
  mobilenet_v3_small = { 2542856, 210, 340293970, 'classifier.0.bias:1024', 'features.9.block.3.1.weight:96' },
  densenet121 = { 7978856, 606, 434660161, 'classifier.bias:1000', 'features.transition3.norm.weight:1024' },
  densenet161 = { 28681000, 806, 16059424, 'classifier.bias:1000', 'features.transition3.norm.weight:2112' },
  densenet169 = { 14149480, 846, 117175484, 'classifier.bias:1000', 'features.transition3.norm.weight:1280' },
  densenet201 = { 20013928, 1006, 6037246, 'classifier.bias:1000', 'features.transition3.norm.weight:1792' },
  shufflenet_v2_x0_5 = { 1366792, 282, 562777422, 'conv1.0.weight:24x3x3x3', 'stage4.3.branch2.6.weight:96' },
  shufflenet_v2_x1_0 = { 2278604, 282, 701440324, 'conv1.0.weight:24x3x3x3', 'stage4.3.branch2.6.weight:232' },
  shufflenet_v2_x1_5 = { 3503624, 282, 275396296, 'conv1.0.weight:24x3x3x3', 'stage4.3.branch2.6.weight:352' },
  shufflenet_v2_x2_0 = { 7393996, 282, 647080459, 'conv1.0.weight:24x3x3x3', 'stage4.3.branch2.6.weight:488' },
  efficientnet_b0 = { 5288548, 311, 650001449, 'classifier.1.bias:1000', 'features.8.1.weight:1280' },
  efficientnet_b1 = { 7794184, 439, 141391865, 'classifier.1.bias:1000', 'features.8.1.weight:1280' },
  efficientnet_b2 = { 9109994, 439, 508237769, 'classifier.1.bias:1000', 'features.8.1.weight:1408' },
  efficientnet_b3 = { 12233232, 496, 258387372, 'classifier.1.bias:1000', 'features.8.1.weight:1536' },
  efficientnet_b4 = { 19341616, 610, 43984087, 'classifier.1.bias:1000', 'features.8.1.weight:1792' },
  efficientnet_v2_s = { 21458488, 672, 726146567, 'classifier.1.bias:1000', 'features.7.1.weight:1280' },
}

for name, ref in pairs(KEYS) do
  tests['keys_' .. name] = function() checkKeys(tester, name, ref) end
end

-- A few keys verbatim, deep inside each family (torchvision's names and shapes).
function tests.someKeysVerbatim()
  local want = {
    resnet18 = { 'layer2.0.downsample.0.weight:128x64x1x1', 'layer1.0.conv1.weight:64x64x3x3' },
    densenet121 = { 'features.denseblock1.denselayer1.norm1.weight:64',
                    'features.denseblock3.denselayer24.conv2.weight:32x128x3x3' },
    mobilenet_v3_small = { 'features.1.block.1.fc1.weight:8x16x1x1', 'features.4.block.2.fc2.bias:96' },
    efficientnet_b0 = { 'features.1.0.block.1.fc1.weight:8x32x1x1', 'features.2.1.block.2.fc2.weight:144x6x1x1' },
    squeezenet1_1 = { 'features.3.expand3x3.weight:64x16x3x3' },
    shufflenet_v2_x1_0 = { 'stage2.0.branch1.0.weight:24x1x3x3', 'stage3.1.branch2.3.weight:116x1x3x3' },
    mobilenet_v2 = { 'features.1.conv.0.0.weight:32x1x3x3', 'features.2.conv.3.weight:24' },
  }
  for name, list in pairs(want) do
    local set = {}
    for _, l in ipairs(keyLines(nn.models[name]())) do set[l] = true end
    for _, l in ipairs(list) do tester:assert(set[l], name .. ': missing ' .. l) end
  end
end

-- ---- forward agreement ---------------------------------------------------------------------

-- fill, input: helpers/vision_models_checks.lua (ref.py's fill and input).
local fill, input = V.fill, V.input

-- torchvision's logits (float32) for input(1, 3, hw, hw): {hw, logits 1, 2, 3, 501, 999, 1000
-- (1-based), sum of all, max |logit|}.
local FWD = {
  resnet18 = { 64, { -0.87623626, 2.35652232, -1.71918213, 0.336108565, 1.60351956, -2.3392365 }, 21.2434008, 3.45309901 },
  resnet50 = { 64, { 0.270322472, 0.201061502, -0.470239341, 0.450817496, 0.526680171, -1.15122354 }, 23.9057078, 1.30195141 },
  vgg11_bn = { 32, { -0.0244621933, 0.00992215239, 0.0220665336, -0.0183018968, 0.00986301154, 0.0280131679 }, 0.456405206, 0.0351423845 },
  mobilenet_v2 = { 64, { 1.19423079, -2.92523289, 2.51435781, -0.0213457085, -2.37268233, 2.86312008 }, 16.1217515, 3.29217124 },
  mobilenet_v3_small = { 64, { -0.0100283585, 0.00893075112, 0.00408377219, -0.000867131166, 0.0138343554, 0.00046444498 }, -0.00092059304, 0.0269643534 },
  densenet121 = { 32, { 0.786235511, 0.0202962477, -0.588384092, 0.441417754, -0.0384099633, -0.850869119 }, 3.01261796, 0.93545872 },
  squeezenet1_1 = { 64, { 0.000843930698, 0, 0.00346942106, 0, 0, 0.00462303823 }, 1.41008931, 0.00681787031 },
  shufflenet_v2_x1_0 = { 64, { 10.106245, -5.35939074, -7.23773956, 10.3887444, -6.68889189, -5.11308289 }, 15.4101918, 12.2318382 },
  alexnet = { 63, { -0.024550613, 0.0103887394, 0.0216770265, -0.0183776021, 0.0102508198, 0.028314231 }, 0.492997142, 0.0352451988 },
  efficientnet_b0 = { 64, { 30.9369984, -34.2000656, 33.0352554, 9.37130547, -46.9461517, 29.7428875 }, 262.210444, 48.4656715 },
}

for name, ref in pairs(FWD) do
  tests['forward_' .. name] = function()
    local m = fill(nn.models[name]()):eval()
    local y = torch.noGrad(function() return m:forward(input(1, 3, ref[1], ref[1])) end):double()
    tester:eq(y:size():totable(), { 1, 1000 }, name .. ': output size')
    local tol = 1e-4 * ref[4] + 1e-7
    for i, j in ipairs({ 1, 2, 3, 501, 999, 1000 }) do
      tester:assertalmosteq(y[1][j], ref[2][i], tol, name .. ': logit ' .. j)
    end
    tester:assertalmosteq(y:sum(), ref[3], 1000 * tol, name .. ': sum of the logits')
    tester:assertalmosteq(y:abs():max(), ref[4], tol, name .. ': max |logit|')
  end
end

-- ---- training ------------------------------------------------------------------------------

-- Train mode: batch statistics, then autograd fills a gradient for every parameter, and the
-- running statistics move.
function tests.trainResnet18Backward()
  torch.manualSeed(1)
  local m = nn.models.resnet18({ numClasses = 5 })
  m:training()
  local x = torch.randn(2, 3, 32, 32)
  local rm = m.bn1.running_mean:clone()
  local y = m:forward(x)
  tester:eq(y:size():totable(), { 2, 5 })
  local loss = nn.functional.crossEntropy(y, torch.LongTensor({ 1, 4 }))
  m:zeroGrad()
  loss:backward()
  local n = 0
  for name, p in m:namedParameters() do
    n = n + 1
    tester:assert(p.grad ~= nil and p.grad:ne(0):sum() > 0, 'no gradient for ' .. name)
  end
  tester:eq(n, 62, 'resnet18 has 62 parameter tensors')
  tester:assert((m.bn1.running_mean - rm):abs():max() > 0, 'running_mean moved')
  -- the gradient of the fc bias is the mean of softmax - onehot
  local p = torch.softmax(y:detach(), 2)
  p[1][1], p[2][4] = p[1][1] - 1, p[2][4] - 1
  tester:assertTensorEq(m.fc.bias.grad, p:mean(1):view(5), 1e-5, 'fc.bias gradient')
end

-- The blocks' own code (residual sums, concatenations, channel split and shuffle, squeeze and
-- excitation) is differentiated by autograd: its input gradient matches central differences
-- (f64, train mode so the batch norms use batch statistics).
function tests.gradcheckBlocks()
  torch.manualSeed(3)
  local blocks = {
    { nn.models.BasicBlock(4, 4, 1, nil, 1, 64, 1), { 2, 4, 5, 5 } },
    { nn.models.Bottleneck(8, 2, 2, nn.Sequential():add(nn.Conv2d(8, 8, 1, { stride = 2, bias = false }))
        :add(nn.BatchNorm2d(8)), 1, 64, 1), { 2, 8, 5, 5 } },
    { nn.models.ShuffleInvertedResidual(4, 4, 1), { 2, 4, 4, 4 } },
    { nn.models.ShuffleInvertedResidual(4, 8, 2), { 2, 4, 4, 4 } },
    { nn.models.DenseBlock(2, 4, 2, 3, 0), { 2, 4, 4, 4 } },
    { nn.models.SqueezeExcitation(4, 2, 'SiLU', 'Hardsigmoid'), { 2, 4, 3, 3 } },
    { nn.models.Fire(4, 2, 3, 3), { 1, 4, 4, 4 } },
  }
  for _, e in ipairs(blocks) do
    local m = e[1]:double()
    m:training()
    local x = torch.randn(torch.LongStorage(e[2])):double():requiresGrad()
    local ok, err = pcall(torch.autograd.gradcheck, function(t) return m:forward(t) end, { x })
    tester:assert(ok and err ~= false, torch.typename(m) .. ': ' .. tostring(err))
  end
end

-- StochasticDepth: the identity in evaluation; in training each row is kept with probability
-- 1 - p and scaled by 1 / (1 - p) (Monte-Carlo: 4000 rows, 5 standard errors).
function tests.stochasticDepth()
  torch.manualSeed(4)
  local sd = nn.models.StochasticDepth(0.3, 'row')
  local x = torch.ones(4000, 2, 1, 1)
  tester:assertTensorEq(sd:eval():forward(x), x, 0)
  sd:training()
  local y = sd:forward(x)
  local kept = y:select(2, 1):gt(0):double():mean()
  tester:assertalmosteq(kept, 0.7, 5 * math.sqrt(0.7 * 0.3 / 4000), 'kept fraction')
  tester:assertalmosteq(y:max(), 1 / 0.7, 1e-6, 'survivors scaled')
  tester:assertTensorEq(y:select(2, 1), y:select(2, 2), 0, "'row' mode drops whole rows")
  local sb = nn.models.StochasticDepth(0.5, 'batch')
  sb:training()
  local b = sb:forward(torch.ones(50, 3))
  tester:assert(b:max() == b:min(), "'batch' mode drops all or nothing")
end

-- ---- options, names, errors, loading -------------------------------------------------------

function tests.lazyNamespace()
  tester:assert(type(nn.models) == 'table' and type(nn.models.resnet18) == 'function')
  tester:assert(getmetatable(nn) == nil or getmetatable(nn).__lazy.models == nil, 'loaded once')
end

function tests.options()
  local m = nn.models.resnet18({ numClasses = 10, zeroInitResidual = true }):eval()
  tester:eq(m.fc.weight:size():totable(), { 10, 512 })
  tester:eq(m.layer1:get(1).bn2.weight:detach():abs():max(), 0, 'zeroInitResidual zeroes bn2')
  tester:eq(m:forward(torch.randn(1, 3, 32, 32)):size():totable(), { 1, 10 })
  local r = nn.models.resnet50({ replaceStrideWithDilation = { false, true, true } }):eval()
  tester:eq(r.layer4:get(1).conv2.dilationW, 2)
  local y = torch.noGrad(function() return r:forward(torch.randn(1, 3, 32, 32)) end)
  tester:eq(y:size():totable(), { 1, 1000 })
  tester:eq(nn.models.mobilenet_v2({ numClasses = 3, dropout = 0.1 }).classifier.modules[1].p, 0.1)
  tester:eq(nn.models.mobilenet_v2({ widthMult = 0.5 }).features.modules[1].modules[1].weight:size(1), 16)
  tester:eq(nn.models.densenet121({ numClasses = 7 }).classifier.weight:size(1), 7)
end

function tests.orderedChildren()
  local names = {}
  for name in nn.models.resnet18():orderedChildren() do names[#names + 1] = name end
  tester:eq(names, { 'conv1', 'bn1', 'relu', 'maxpool', 'layer1', 'layer2', 'layer3', 'layer4', 'avgpool', 'fc' })
  names = {}
  for name in nn.models.densenet121().features:orderedChildren() do names[#names + 1] = name end
  tester:eq(names, { 'conv0', 'norm0', 'relu0', 'pool0', 'denseblock1', 'transition1', 'denseblock2', 'transition2',
                     'denseblock3', 'transition3', 'denseblock4', 'norm5' })
end

function tests.errors()
  local function fails(pattern, fn, ...)
    local ok, err = pcall(fn, ...)
    tester:assert(not ok and tostring(err):find(pattern, 1, true), 'expected an error with ' .. pattern .. ', got '
      .. tostring(err))
  end
  fails('nn.models.resnet18', nn.models.resnet18, { numClases = 10 })
  fails('nn.models.resnet18', nn.models.resnet18, 10)
  fails('numClasses', nn.models.vgg11, { numClasses = 0 })
  fails('dropout', nn.models.alexnet, { dropout = 1.5 })
  fails('BasicBlock', nn.models.resnet18, { widthPerGroup = 32 })
  fails('nn.models.resnext50_32x4d', nn.models.resnext50_32x4d, { groups = 2 })
  fails('replaceStrideWithDilation', nn.models.resnet50, { replaceStrideWithDilation = { true } })
  fails('version', nn.models.SqueezeNet, '2_0')
  fails('layers', nn.models.ResNet, 'basic', { 2, 2 })
  fails("'basic' or 'bottleneck'", nn.models.ResNet, 'plain', { 2, 2, 2, 2 })
  fails('stagesRepeats', nn.models.ShuffleNetV2, { 4, 8 }, { 24, 48, 96, 192, 1024 })
  fails('drop probability', nn.models.StochasticDepth, 1.5, 'row')
  -- a wrong input names the layer that refused it
  fails('nn.Conv2d', function() nn.models.resnet18():eval():forward(torch.randn(1, 4, 32, 32)) end)
end

-- A state dict moves between two models of one architecture, num_batches_tracked entries (which
-- a torchvision checkpoint has) are skipped, and a wrong shape is refused by name.
function tests.loadStateDict()
  torch.manualSeed(2)
  local a, b = nn.models.squeezenet1_1():eval(), nn.models.squeezenet1_1():eval()
  local sd = a:stateDict()
  local x = torch.randn(1, 3, 48, 48)
  b:loadStateDict(sd)
  tester:assertTensorEq(b:forward(x), a:forward(x), 0)
  local m = nn.models.mobilenet_v3_small()
  local msd = {}
  for k, v in pairs(m:stateDict()) do msd[k] = v:clone() end
  msd['features.0.1.num_batches_tracked'] = torch.LongTensor({ 7 })
  nn.models.mobilenet_v3_small():loadStateDict(msd)
  msd['classifier.3.weight'] = torch.zeros(10, 1024)
  local ok, err = pcall(function() nn.models.mobilenet_v3_small():loadStateDict(msd) end)
  tester:assert(not ok and tostring(err):find('classifier.3.weight', 1, true), tostring(err))
end

-- A saved model loads in a fresh process that has not touched nn.models: the loader walks the
-- class name through nn's lazy namespace (it failed with "unknown class nn.models.ResNet").
function tests.savedModelLoadsInAFreshProcess()
  local path = os.tmpname()
  torch.save(path, nn.models.resnet18({ numClasses = 3 }))
  local ffi = require 'ffi'
  pcall(ffi.cdef, 'long readlink(const char *path, char *buf, size_t size);')
  local buf = ffi.new('char[4096]')
  local exe = ffi.string(buf, ffi.C.readlink('/proc/self/exe', buf, 4095))
  local p = io.popen(string.format("'%s' -e \"require 'nn'; local m = torch.load('%s'); "
    .. "m:evaluate(); io.write(torch.typename(m), ' ', m:forward(torch.randn(1, 3, 32, 32)):size(2))\" 2>&1", exe, path))
  local out = p:read('*a')
  p:close()
  os.remove(path)
  tester:asserteq(out, 'nn.models.ResNet 3', out)
end

tester:add(tests)
tester:run()
