-- torch.onnx.export of modules with their own forward (Note [ONNX export of custom forwards],
-- lua/torch/onnx_custom.lua): one model of every nn.models family (torchvision's zoo) exported with
-- a symbolic batch dim, read back (helpers/onnx_read.lua) and run by the tests' ONNX interpreter
-- (helpers/onnx_eval.lua) on a batch of 2, against the model's forward in evaluation mode; the
-- parameter names against the state dict; a user module's onnxExport; adaptive pools that
-- enlarge; and the errors for a forward without an export, an export that drifts from its forward
-- and an unsupported module inside a block.
-- Skipped (same classes and export code as the member tested, only more or wider blocks):
-- resnet34/50/101/152, resnext*, wide_resnet* (ResNet: resnet18 for BasicBlock, a narrow
-- bottleneck ResNet for Bottleneck), vgg13/16/19 and *_bn but vgg11_bn, squeezenet1_0,
-- mobilenet_v3_large, densenet161/169/201, shufflenet_v2_x1_0/1_5/2_0, efficientnet_b1-b7 and
-- efficientnet_v2_s/m/l (EfficientNet: efficientnet_b0 whole, and an EfficientNetV2 with
-- efficientnet_v2_s's kinds of stages, fewer blocks). vgg11_bn runs with its 102M-parameter
-- classifier swapped for one Linear (the VGG forward is unchanged; AlexNet, a VGG, is exported
-- whole). Every family's whole smallest member is also checked by hand with onnx.checker.
require 'nn'
assert(nn.models.Named)  -- loads nn.models (a lazy namespace) before the test classes derive from it
local dir = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local R = dofile(dir .. '/helpers/onnx_read.lua')
local E = dofile(dir .. '/helpers/onnx_eval.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()

local tmp = os.tmpname()
local DYN = { dynamicAxes = { input = { [1] = 'batch' }, output = { [1] = 'batch' } } }

-- Running statistics and affine parameters away from 0/1, so that folding them matters.
local function stats(m)
  torch.noGrad(function()
    for _, c in ipairs(m:listModules()) do
      if torch.typename(c) == 'nn.BatchNorm2d' then
        local n = c.running_mean:nElement()
        c.running_mean:uniform(-0.1, 0.1)
        c.running_var:uniform(0.8, 1.2)
        if c.weight then c.weight:uniform(0.8, 1.2) c.bias:uniform(-0.1, 0.1) end
        assert(n > 0)
      end
    end
  end)
  return m
end

-- Exports m on a 1 x 3 x size x size sample with a symbolic batch dim, runs the file on a batch of
-- 2 and compares with m:forward; returns the model read back.
local function check(m, size, opts)
  local x1 = torch.randn(1, 3, size, size)
  torch.onnx.export(m, x1, tmp, opts or DYN)
  local model = R.read(tmp)
  if not opts then
    tester:asserteq(model.graph.inputs[1].dims[1], 'batch', 'symbolic batch dim of the input')
    tester:asserteq(model.graph.outputs[1].dims[1], 'batch', 'symbolic batch dim of the output')
  end
  local x = torch.randn(2, 3, size, size)
  m:evaluate()
  local want = m:forward(x):detach():double()
  local got = E.run(model, { x })[1]
  tester:assertTableEq(got:size():totable(), want:size():totable(), 'output size')
  local err = (got:double() - want):abs():max()
  tester:assertlt(err, 1e-4 * math.max(1, want:abs():max()), string.format('output differs by %g', err))
  return model
end

local function ops(model)
  local set = {}
  for _, op in ipairs(R.ops(model)) do set[op] = true end
  return set
end

function tests.resnet18()
  torch.manualSeed(1)
  local model = check(stats(nn.models.resnet18({ numClasses = 10 })), 64)
  tester:assert(ops(model).Add and not ops(model).BatchNormalization, 'residual sums, batch norms folded')
end

function tests.resnetBottleneck()
  torch.manualSeed(2)
  -- resnet50's blocks with grouped convolutions (ResNeXt's), one block per stage to keep it small
  local m = nn.models.ResNet('bottleneck', { 1, 1, 1, 1 }, { numClasses = 5, groups = 2, widthPerGroup = 16 })
  check(stats(m), 32)
end

function tests.parameterNamesFollowTheStateDict()
  torch.manualSeed(3)
  local m = nn.models.resnet18({ numClasses = 10 })
  local model = check(m, 32, { doConstantFolding = false })
  local sd = m:stateDict()
  local n = 0
  for _, name in ipairs(model.graph.initOrder) do
    if not name:find('/', 1, true) then  -- constants of glue ops are named after their node
      tester:assert(sd[name] ~= nil, name .. ' is a state-dict key')
      n = n + 1
    end
  end
  tester:assert(model.graph.inits['layer1.0.conv1.weight'] ~= nil, 'layer1.0.conv1.weight')
  tester:assert(model.graph.inits['layer2.0.downsample.1.running_var'] ~= nil, 'layer2.0.downsample.1.running_var')
  tester:assert(model.graph.inits['fc.bias'] ~= nil, 'fc.bias')
  local params = 0
  for k in pairs(sd) do if not k:find('num_batches_tracked', 1, true) then params = params + 1 end end
  tester:asserteq(n, params, 'every parameter and buffer exported once')
end

function tests.vgg11_bn()
  torch.manualSeed(4)
  local m = stats(nn.models.vgg11_bn({ numClasses = 10 }))
  m.classifier = nn.Sequential():add(nn.Linear(512 * 7 * 7, 10)) -- see the header
  local model = check(m, 32)  -- 1x1 features pooled to 7x7 (Note [Adaptive pools that enlarge])
  tester:assert(ops(model).Expand, 'the 7x7 pool repeats the cells')
end

function tests.alexnet()
  torch.manualSeed(5)
  check(nn.models.alexnet({ numClasses = 10 }), 63)  -- alexnet's smallest input
end

function tests.squeezenet1_1()
  torch.manualSeed(6)
  check(nn.models.squeezenet1_1({ numClasses = 10 }), 64)
end

function tests.mobilenet_v2()
  torch.manualSeed(7)
  check(stats(nn.models.mobilenet_v2({ numClasses = 10 })), 64)
end

function tests.mobilenet_v3_small()
  torch.manualSeed(8)
  local model = check(stats(nn.models.mobilenet_v3_small({ numClasses = 10 })), 64)
  tester:assert(ops(model).HardSigmoid, 'hardswish and squeeze-and-excitation gates')
end

function tests.densenet121()
  torch.manualSeed(9)
  check(stats(nn.models.densenet121({ numClasses = 10 })), 32)
end

function tests.shufflenet_v2_x0_5()
  torch.manualSeed(10)
  local model = check(stats(nn.models.shufflenet_v2_x0_5({ numClasses = 10 })), 64)
  local set = ops(model)
  tester:assert(set.Slice and set.Transpose and set.ReduceMean, 'channel split, shuffle and mean')
end

function tests.efficientnet_b0()
  torch.manualSeed(11)
  check(stats(nn.models.efficientnet_b0({ numClasses = 10 })), 32)
end

function tests.efficientnetV2()
  torch.manualSeed(12)
  -- efficientnet_v2_s's kinds of stages (fused MBConv with and without expansion, then MBConv with
  -- squeeze-and-excitation), one or two blocks each: the whole model takes 5x longer to check
  local rows = { { 1, 3, 1, 24, 24, 2, true }, { 4, 3, 2, 24, 48, 2, true }, { 4, 3, 2, 48, 64, 2 } }
  local m = nn.models.EfficientNet({ rows = rows, lastChannel = 256, dropout = 0.2, eps = 1e-3 }, { numClasses = 10 },
    'nn.models.efficientnet_v2_s')
  check(stats(m), 32)
end

-- The extension point for a user's module: onnxExport next to the forward.
function tests.userModule()
  local Gate, parent = torch.class('onnxtest.Gate', 'nn.Module')
  function Gate:__init(n)
    parent.__init(self)
    self.proj = nn.Linear(n, n)
  end
  function Gate:updateOutput(x)
    self.output = torch.add(torch.cmul(x, torch.sigmoid(self.proj:forward(x))), x)
    return self.output
  end
  function Gate:onnxExport(E, x)
    return E:add(E:mul(x, E:sigmoid(E:emit(self.proj, x, 'proj'))), x)
  end
  torch.manualSeed(13)
  local m = nn.Sequential():add(nn.Linear(4, 6)):add(onnxtest.Gate(6)):add(nn.Linear(6, 2))
  torch.onnx.export(m, torch.randn(3, 4), tmp, { dynamicAxes = { input = { 1 }, output = { 1 } } })
  local model = R.read(tmp)
  tester:assert(model.graph.inits['1.proj.weight'] ~= nil, 'the child\'s parameters named by its field')
  local x = torch.randn(5, 4)
  local err = (E.run(model, { x })[1] - m:forward(x):double()):abs():max()
  tester:assertlt(err, 1e-5, 'user module')
end

local function fails(pattern, fn)
  local ok, err = pcall(fn)
  tester:assert(not ok, 'expected an error matching ' .. pattern)
  tester:assert(tostring(err):find(pattern, 1, true) ~= nil, 'got: ' .. tostring(err))
end

-- Adaptive pools whose output is a multiple of the input along a dim, alone or with one that shrinks.
function tests.adaptivePoolsThatEnlarge()
  torch.manualSeed(14)
  local cases = { { nn.AdaptiveAvgPool2d({ 6, 3 }), 2, 6 }, { nn.AdaptiveMaxPool2d({ 6, 3 }), 2, 6 },
    { nn.AdaptiveAvgPool2d({ 4, 10 }), 2, 5 }, { nn.AdaptiveMaxPool2d(3), 1, 1 } }
  for _, c in ipairs(cases) do
    local m = nn.Sequential():add(nn.Conv2d(2, 3, 1)):add(c[1])
    torch.onnx.export(m, torch.randn(1, 2, c[2], c[3]), tmp, DYN)
    local x = torch.randn(2, 2, c[2], c[3])
    local err = (E.run(R.read(tmp), { x })[1] - m:forward(x):double()):abs():max()
    tester:assertlt(err, 1e-5, torch.typename(c[1]))
  end
  fails('output size 4 does not divide input size 6, nor is it a multiple of it', function()
    torch.onnx.export(nn.AdaptiveAvgPool2d(4), torch.randn(1, 2, 6, 6), tmp)
  end)
end

function tests.errors()
  -- a Named subclass with its own forward and no onnxExport
  local NoExport = torch.class('onnxtest.NoExport', 'nn.models.Named')
  function NoExport:__init() nn.models.Named.__init(self, { { 'fc', nn.Linear(3, 3) } }) end
  function NoExport:updateOutput(x)
    self.output = torch.tanh(self.fc:forward(x))
    return self.output
  end
  local m = nn.Sequential():add(nn.Linear(3, 3)):add(onnxtest.NoExport())
  fails('onnxtest.NoExport at model.modules[2]: its forward (updateOutput) is its own and it has no onnxExport',
    function() torch.onnx.export(m, torch.randn(2, 3), tmp) end)
  -- an onnxExport that does not do what the forward does
  local Drift, parent = torch.class('onnxtest.Drift', 'nn.Module')
  function Drift:updateOutput(x)
    self.output = torch.tanh(x)
    return self.output
  end
  function Drift:onnxExport(E, x) return E:sigmoid(x) end
  fails("onnxtest.Drift at model.modules[2]: onnxExport's output 1 differs from its forward", function()
    torch.onnx.export(nn.Sequential():add(nn.Linear(3, 3)):add(onnxtest.Drift()), torch.randn(2, 3), tmp)
  end)
  -- the same inside another module with its own export: the innermost one is named
  local Wrap, wparent = torch.class('onnxtest.Wrap', 'nn.Module')
  function Wrap:__init()
    wparent.__init(self)
    self.inner = onnxtest.Drift()
  end
  function Wrap:updateOutput(x)
    self.output = torch.add(self.inner:forward(x), x)
    return self.output
  end
  function Wrap:onnxExport(E, x) return E:add(E:emit(self.inner, x, 'inner'), x) end
  fails("onnxtest.Drift at model.modules[2].inner: onnxExport's output 1 differs from its forward", function()
    torch.onnx.export(nn.Sequential():add(nn.Linear(3, 3)):add(onnxtest.Wrap()), torch.randn(2, 3), tmp)
  end)
  -- an unsupported module inside a block, named by its position
  local r = nn.models.resnet18({ numClasses = 4 })
  r.fc = nn.Sequential():add(nn.Linear(512, 4)):add(nn.Cosine(4, 3))
  fails('nn.Cosine at model.fc.modules[2] is not supported', function()
    torch.onnx.export(r, torch.randn(1, 3, 32, 32), tmp)
  end)
  fails("E:emit expects a child module", function()
    local Bad = torch.class('onnxtest.Bad', 'nn.Module')
    function Bad:updateOutput(x) self.output = x return x end
    function Bad:onnxExport(E, x) return E:emit(nil, x, 'missing') end
    torch.onnx.export(onnxtest.Bad(), torch.randn(2, 3), tmp)
  end)
  -- the train flags are restored after a failed export
  tester:assert(r.train and r.layer1.modules[1].bn1.train, 'train mode restored')
end

tester:add(tests)
tester:run()
os.remove(tmp)
