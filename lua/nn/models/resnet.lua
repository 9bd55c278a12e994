-- torchvision 0.14's ResNet family (resnet.py): nn.models.resnet18/34/50/101/152,
-- resnext50_32x4d, resnext101_32x8d, resnext101_64x4d, wide_resnet50_2, wide_resnet101_2, with
-- torchvision's architecture, state-dict names ('layer1.0.conv1.weight') and initialization.
local C = require 'nn.models.common'
local lib = require 'torch.lib'
local F = nn.functional
local M = nn.models

local function conv3x3(inC, outC, stride, groups, dilation)
  return C.conv(inC, outC, 3, { stride = stride, padding = dilation, groups = groups, dilation = dilation })
end
local function conv1x1(inC, outC, stride) return C.conv(inC, outC, 1, { stride = stride }) end

-- The residual sum: out + identity, then relu (torchvision's `out += identity; out = self.relu(out)`).
local function residual(self, x, out)
  local identity = self.downsample and self.downsample:forward(x) or x
  return F.relu(out + identity)
end
-- The same for torch.onnx.export (Note [ONNX export of custom forwards], lua/torch/onnx_custom.lua).
local function residualExport(self, E, x, out)
  local identity = self.downsample and E:emit(self.downsample, x, 'downsample') or x
  return E:relu(E:add(out, identity))
end

-- BasicBlock(inplanes, planes, stride, downsample, groups, baseWidth, dilation)
local Basic = torch.class('nn.models.BasicBlock', 'nn.models.Named')
Basic.expansion = 1
function Basic:__init(inplanes, planes, stride, downsample, groups, baseWidth, dilation)
  if groups ~= 1 or baseWidth ~= 64 then
    lib.fail('nn.models.BasicBlock', 'BasicBlock only supports groups = 1 and widthPerGroup = 64, got %d and %d',
      groups, baseWidth)
  end
  if dilation > 1 then lib.fail('nn.models.BasicBlock', 'dilation > 1 is not supported in BasicBlock') end
  local list = {
    { 'conv1', conv3x3(inplanes, planes, stride, 1, 1) }, { 'bn1', C.bn(planes) }, { 'relu', nn.ReLU() },
    { 'conv2', conv3x3(planes, planes, 1, 1, 1) }, { 'bn2', C.bn(planes) },
  }
  if downsample then list[#list + 1] = { 'downsample', downsample } end
  nn.models.Named.__init(self, list)
end
function Basic:updateOutput(x)
  local out = F.relu(self.bn1:forward(self.conv1:forward(x)))
  out = self.bn2:forward(self.conv2:forward(out))
  self.output = residual(self, x, out)
  return self.output
end
function Basic:onnxExport(E, x)
  local out = E:run(E:relu(E:run(x, 'conv1', 'bn1')), 'conv2', 'bn2')
  return residualExport(self, E, x, out)
end

-- Bottleneck(inplanes, planes, stride, downsample, groups, baseWidth, dilation): the torchvision
-- (v1.5) bottleneck, stride on the 3x3 convolution.
local Bottleneck = torch.class('nn.models.Bottleneck', 'nn.models.Named')
Bottleneck.expansion = 4
function Bottleneck:__init(inplanes, planes, stride, downsample, groups, baseWidth, dilation)
  local width = math.floor(planes * (baseWidth / 64)) * groups
  local list = {
    { 'conv1', conv1x1(inplanes, width) }, { 'bn1', C.bn(width) },
    { 'conv2', conv3x3(width, width, stride, groups, dilation) }, { 'bn2', C.bn(width) },
    { 'conv3', conv1x1(width, planes * 4) }, { 'bn3', C.bn(planes * 4) }, { 'relu', nn.ReLU() },
  }
  if downsample then list[#list + 1] = { 'downsample', downsample } end
  nn.models.Named.__init(self, list)
end
function Bottleneck:updateOutput(x)
  local out = F.relu(self.bn1:forward(self.conv1:forward(x)))
  out = F.relu(self.bn2:forward(self.conv2:forward(out)))
  out = self.bn3:forward(self.conv3:forward(out))
  self.output = residual(self, x, out)
  return self.output
end
function Bottleneck:onnxExport(E, x)
  local out = E:relu(E:run(E:relu(E:run(x, 'conv1', 'bn1')), 'conv2', 'bn2'))
  return residualExport(self, E, x, E:run(out, 'conv3', 'bn3'))
end

local ResNet = torch.class('nn.models.ResNet', 'nn.models.Named')

-- nn.models.ResNet(block ('basic' or 'bottleneck'), layers {n1, n2, n3, n4}, opts): torchvision's ResNet.
function ResNet:__init(blockName, layers, opts, fn)
  fn = fn or 'nn.models.ResNet'
  local o = C.options(fn, opts, { numClasses = 1000, zeroInitResidual = false, groups = 1, widthPerGroup = 64,
                                  replaceStrideWithDilation = false })
  local block = blockName == 'basic' and Basic or blockName == 'bottleneck' and Bottleneck
  if not block then lib.fail(fn, "block must be 'basic' or 'bottleneck', got %s", tostring(blockName)) end
  if type(layers) ~= 'table' or #layers ~= 4 then
    lib.fail(fn, 'layers must be a table of 4 block counts, got %s', nn.utils.describe(layers))
  end
  for i = 1, 4 do C.int(fn, 'layers[' .. i .. ']', layers[i]) end
  local groups = C.int(fn, 'groups', o.groups)
  local baseWidth = C.int(fn, 'widthPerGroup', o.widthPerGroup)
  local rswd = o.replaceStrideWithDilation or { false, false, false }
  if type(rswd) ~= 'table' or #rswd ~= 3 then
    lib.fail(fn, 'replaceStrideWithDilation should be nil or a table of 3 booleans, got %s', nn.utils.describe(rswd))
  end
  -- booleans, not Python's truthiness: a 0 is true in Lua and would dilate (and zero-init)
  for i = 1, 3 do C.bool(fn, 'replaceStrideWithDilation[' .. i .. ']', rswd[i]) end
  local zeroInit = C.bool(fn, 'zeroInitResidual', o.zeroInitResidual, false)
  local inplanes, dilation = 64, 1
  local function makeLayer(planes, blocks, stride, dilate)
    local previous = dilation
    if dilate then dilation, stride = dilation * stride, 1 end
    local exp = block.expansion
    local downsample
    if stride ~= 1 or inplanes ~= planes * exp then
      downsample = nn.Sequential():add(conv1x1(inplanes, planes * exp, stride)):add(C.bn(planes * exp))
    end
    local seq = nn.Sequential()
    local new = blockName == 'basic' and nn.models.BasicBlock or nn.models.Bottleneck  -- constructors
    seq:add(new(inplanes, planes, stride, downsample, groups, baseWidth, previous))
    inplanes = planes * exp
    for _ = 2, blocks do seq:add(new(inplanes, planes, 1, nil, groups, baseWidth, dilation)) end
    return seq
  end
  local list = {
    { 'conv1', C.conv(3, 64, 7, { stride = 2, padding = 3 }) }, { 'bn1', C.bn(64) }, { 'relu', nn.ReLU() },
    { 'maxpool', nn.MaxPool2d(3, 2, 1) },
    { 'layer1', makeLayer(64, layers[1], 1, false) },
    { 'layer2', makeLayer(128, layers[2], 2, rswd[1]) },
    { 'layer3', makeLayer(256, layers[3], 2, rswd[2]) },
    { 'layer4', makeLayer(512, layers[4], 2, rswd[3]) },
    { 'avgpool', nn.AdaptiveAvgPool2d({ 1, 1 }) },
    { 'fc', nn.Linear(512 * block.expansion, o.numClasses) },
  }
  nn.models.Named.__init(self, list)
  C.initWeights(self, { conv = C.kaimingFanOut, bn = C.bnOnes })
  if zeroInit then
    torch.noGrad(function()
      for _, m in self:namedModules() do
        local t = torch.typename(m)
        if t == 'nn.models.Bottleneck' then m.bn3.weight:zero() elseif t == 'nn.models.BasicBlock' then m.bn2.weight:zero() end
      end
    end)
  end
end

function ResNet:updateOutput(x)
  local y = self:_run(x, 'conv1', 'avgpool')
  self.output = self.fc:forward(C.flatten(y))
  return self.output
end
function ResNet:onnxExport(E, x)
  local y = E:run(x, 'conv1', 'bn1', 'relu', 'maxpool', 'layer1', 'layer2', 'layer3', 'layer4', 'avgpool')
  return E:emit(self.fc, E:flatten(y), 'fc')
end

-- Note [Model names]: the constructors keep torchvision's names (nn.models.resnet18,
-- resnext50_32x4d, wide_resnet50_2, mobilenet_v3_small, shufflenet_v2_x1_0, squeezenet1_1,
-- vgg11_bn): they are names of checkpoints people look up, digits and underscores carry the
-- meaning (32x4d, x1_0, 1_1), and no camelCase form reads better (mobilenetV3Small would still not
-- say x1_0). Options are camelCase (numClasses, widthPerGroup), as everywhere in Tocha.
local specs = {
  resnet18 = { 'basic', { 2, 2, 2, 2 } }, resnet34 = { 'basic', { 3, 4, 6, 3 } },
  resnet50 = { 'bottleneck', { 3, 4, 6, 3 } }, resnet101 = { 'bottleneck', { 3, 4, 23, 3 } },
  resnet152 = { 'bottleneck', { 3, 8, 36, 3 } },
  resnext50_32x4d = { 'bottleneck', { 3, 4, 6, 3 }, 32, 4 },
  resnext101_32x8d = { 'bottleneck', { 3, 4, 23, 3 }, 32, 8 },
  resnext101_64x4d = { 'bottleneck', { 3, 4, 23, 3 }, 64, 4 },
  wide_resnet50_2 = { 'bottleneck', { 3, 4, 6, 3 }, 1, 128 },
  wide_resnet101_2 = { 'bottleneck', { 3, 4, 23, 3 }, 1, 128 },
}
local function build(name, opts)
  local s, fn = specs[name], 'nn.models.' .. name
  if s[3] then  -- the name fixes groups and widthPerGroup
    C.options(fn, opts, { numClasses = 1000, zeroInitResidual = false, replaceStrideWithDilation = false })
    local o = {}
    for k, v in pairs(opts or {}) do o[k] = v end
    o.groups, o.widthPerGroup = s[3], s[4]
    opts = o
  end
  return nn.models.ResNet(s[1], s[2], opts, fn)
end

--- nn.models.resnet18([opts]): torchvision's ResNet-18; opts {numClasses = 1000,
--- zeroInitResidual = false, groups = 1, widthPerGroup = 64, replaceStrideWithDilation =
--- {false, false, false}}. State-dict names are torchvision's ('layer1.0.conv1.weight').
--- Example: local m = nn.models.resnet18({numClasses = 10}):eval() print(m:forward(torch.randn(1, 3, 64, 64)):size())
function M.resnet18(opts) return build('resnet18', opts) end
--- nn.models.resnet34([opts]): ResNet-34 (opts as resnet18's).
--- Example: print(nn.models.resnet34():numParameters())
function M.resnet34(opts) return build('resnet34', opts) end
--- nn.models.resnet50([opts]): ResNet-50, bottleneck blocks (opts as resnet18's).
--- Example: print(nn.models.resnet50():numParameters())
function M.resnet50(opts) return build('resnet50', opts) end
--- nn.models.resnet101([opts]): ResNet-101 (opts as resnet18's).
--- Example: print(nn.models.resnet101():numParameters())
function M.resnet101(opts) return build('resnet101', opts) end
--- nn.models.resnet152([opts]): ResNet-152 (opts as resnet18's).
--- Example: print(nn.models.resnet152():numParameters())
function M.resnet152(opts) return build('resnet152', opts) end
--- nn.models.resnext50_32x4d([opts]): ResNeXt-50 32x4d; opts as resnet18's without groups and
--- widthPerGroup, which the name fixes.
--- Example: print(nn.models.resnext50_32x4d():numParameters())
function M.resnext50_32x4d(opts) return build('resnext50_32x4d', opts) end
--- nn.models.resnext101_32x8d([opts]): ResNeXt-101 32x8d (opts as resnext50_32x4d's).
--- Example: print(nn.models.resnext101_32x8d():numParameters())
function M.resnext101_32x8d(opts) return build('resnext101_32x8d', opts) end
--- nn.models.resnext101_64x4d([opts]): ResNeXt-101 64x4d (opts as resnext50_32x4d's).
--- Example: print(nn.models.resnext101_64x4d():numParameters())
function M.resnext101_64x4d(opts) return build('resnext101_64x4d', opts) end
--- nn.models.wide_resnet50_2([opts]): Wide ResNet-50-2, bottlenecks twice as wide (opts as
--- resnext50_32x4d's).
--- Example: print(nn.models.wide_resnet50_2():numParameters())
function M.wide_resnet50_2(opts) return build('wide_resnet50_2', opts) end
--- nn.models.wide_resnet101_2([opts]): Wide ResNet-101-2 (opts as resnext50_32x4d's).
--- Example: print(nn.models.wide_resnet101_2():numParameters())
function M.wide_resnet101_2(opts) return build('wide_resnet101_2', opts) end

return M
