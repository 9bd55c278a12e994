-- torchvision 0.14's DenseNet-BC (densenet.py): nn.models.densenet121/161/169/201, with
-- torchvision's named layers ('features.denseblock1.denselayer1.norm1.weight') and initialization.
-- memory_efficient (checkpointing) is not offered: it changes memory use, not the model.
local C = require 'nn.models.common'
local F = nn.functional
local M = nn.models
local Named = nn.models.Named

-- _DenseLayer: BN-ReLU-1x1 conv (bottleneck) then BN-ReLU-3x3 conv on the concatenated features.
local Layer = torch.class('nn.models.DenseLayer', 'nn.models.Named')
function Layer:__init(inC, growth, bnSize, dropRate)
  Named.__init(self, {
    { 'norm1', C.bn(inC) }, { 'relu1', nn.ReLU() }, { 'conv1', C.conv(inC, bnSize * growth, 1) },
    { 'norm2', C.bn(bnSize * growth) }, { 'relu2', nn.ReLU() },
    { 'conv2', C.conv(bnSize * growth, growth, 3, { padding = 1 }) },
  })
  self.dropRate = dropRate
end
-- x: a tensor or the list of earlier features.
function Layer:updateOutput(x)
  local cat = torch.isTensor(x) and x or (#x == 1 and x[1] or torch.cat(x, 2))
  local y = self:_run(cat)
  if self.dropRate > 0 then y = F.dropout(y, self.dropRate, self.train) end
  self.output = y
  return y
end
-- torch.onnx.export's (Note [ONNX export of custom forwards], lua/torch/onnx_custom.lua); x: a
-- value or the list of earlier features' values.
function Layer:onnxExport(E, x)
  local cat = x.name and x or E:concat(x, 2)
  return E:dropout(E:run(cat, unpack(self._order)), self.dropRate)
end

-- _DenseBlock: denselayer1..n, each fed every earlier output; returns them all concatenated.
local Block = torch.class('nn.models.DenseBlock', 'nn.models.Named')
function Block:__init(numLayers, inC, bnSize, growth, dropRate)
  local list = {}
  for i = 1, numLayers do
    list[i] = { 'denselayer' .. i, nn.models.DenseLayer(inC + (i - 1) * growth, growth, bnSize, dropRate) }
  end
  Named.__init(self, list)
end
function Block:updateOutput(x)
  local feats = { x }
  for _, name in ipairs(self._order) do feats[#feats + 1] = self[name]:forward(feats) end
  self.output = torch.cat(feats, 2)
  return self.output
end
function Block:onnxExport(E, x)
  local feats = { x }
  for _, name in ipairs(self._order) do feats[#feats + 1] = E:emit(self[name], { unpack(feats) }, name) end
  return E:concat(feats, 2)
end

-- _Transition (norm, relu, conv, pool) and the features stack get classes of their own: a Named
-- holding a Named of the same class trips nn/field_children.lua's `v ~= m`, which runs the
-- classes' __eq forwarder (the metatables' __eq must differ).
torch.class('nn.models.DenseTransition', 'nn.models.Named')
torch.class('nn.models.DenseFeatures', 'nn.models.Named')

local DenseNet = torch.class('nn.models.DenseNet', 'nn.models.Named')
-- nn.models.DenseNet(opts {growthRate = 32, blockConfig = {6, 12, 24, 16}, numInitFeatures = 64,
-- bnSize = 4, dropRate = 0, numClasses = 1000}).
function DenseNet:__init(opts, fn, defaults)
  fn = fn or 'nn.models.DenseNet'
  local spec = { growthRate = 32, blockConfig = { 6, 12, 24, 16 }, numInitFeatures = 64, bnSize = 4, dropRate = 0,
                 numClasses = 1000 }
  for k, v in pairs(defaults or {}) do spec[k] = v end
  local o = C.options(fn, opts, spec)
  local growth, bnSize = C.int(fn, 'growthRate', o.growthRate), C.int(fn, 'bnSize', o.bnSize)
  local nf = C.int(fn, 'numInitFeatures', o.numInitFeatures)
  local dropRate = C.number(fn, 'dropRate', o.dropRate)
  if dropRate < 0 or dropRate > 1 then  -- F.dropout's range; a negative rate was silently no dropout
    require('torch.lib').fail(fn, 'dropRate must be in [0, 1], got %g', dropRate)
  end
  local features = nn.models.DenseFeatures({
    { 'conv0', C.conv(3, nf, 7, { stride = 2, padding = 3 }) }, { 'norm0', C.bn(nf) }, { 'relu0', nn.ReLU() },
    { 'pool0', nn.MaxPool2d(3, 2, 1) },
  })
  local cfg = o.blockConfig
  if type(cfg) ~= 'table' or #cfg == 0 then
    require('torch.lib').fail(fn, 'blockConfig must be a table of layer counts, got %s', nn.utils.describe(cfg))
  end
  for i, n in ipairs(cfg) do
    features:_put('denseblock' .. i, nn.models.DenseBlock(C.int(fn, 'blockConfig[' .. i .. ']', n), nf, bnSize, growth,
      dropRate))
    nf = nf + n * growth
    if i ~= #cfg then
      local half = math.floor(nf / 2)
      features:_put('transition' .. i, nn.models.DenseTransition({ { 'norm', C.bn(nf) }, { 'relu', nn.ReLU() },
        { 'conv', C.conv(nf, half, 1) }, { 'pool', nn.AvgPool2d(2, 2) } }))
      nf = half
    end
  end
  features:_put('norm5', C.bn(nf))
  Named.__init(self, { { 'features', features }, { 'classifier', nn.Linear(nf, o.numClasses) } })
  C.initWeights(self, { conv = function(m) nn.init.kaimingNormal(m.weight) end, bn = C.bnOnes,
                        linear = function(m) m.bias:zero() end })
end
function DenseNet:updateOutput(x)
  local y = F.adaptiveAvgPool2d(F.relu(self.features:forward(x)), 1)
  self.output = self.classifier:forward(C.flatten(y))
  return self.output
end
function DenseNet:onnxExport(E, x)
  local y = E:globalAvgPool(E:relu(E:emit(self.features, x, 'features')))
  return E:emit(self.classifier, E:flatten(y), 'classifier')
end

local specs = {
  densenet121 = { growthRate = 32, blockConfig = { 6, 12, 24, 16 }, numInitFeatures = 64 },
  densenet161 = { growthRate = 48, blockConfig = { 6, 12, 36, 24 }, numInitFeatures = 96 },
  densenet169 = { growthRate = 32, blockConfig = { 6, 12, 32, 32 }, numInitFeatures = 64 },
  densenet201 = { growthRate = 32, blockConfig = { 6, 12, 48, 32 }, numInitFeatures = 64 },
}
local function build(name, opts) return nn.models.DenseNet(opts, 'nn.models.' .. name, specs[name]) end

--- nn.models.densenet121([opts]): torchvision's DenseNet-121; opts {numClasses = 1000,
--- dropRate = 0, bnSize = 4, growthRate, blockConfig, numInitFeatures (the variant's by default)}.
--- Inputs of at least 32x32.
--- Example: local m = nn.models.densenet121():eval() print(m:forward(torch.randn(1, 3, 64, 64)):size())
function M.densenet121(opts) return build('densenet121', opts) end
--- nn.models.densenet161([opts]): DenseNet-161, growth rate 48 (opts as densenet121's).
--- Example: print(nn.models.densenet161():numParameters())
function M.densenet161(opts) return build('densenet161', opts) end
--- nn.models.densenet169([opts]): DenseNet-169 (opts as densenet121's).
--- Example: print(nn.models.densenet169():numParameters())
function M.densenet169(opts) return build('densenet169', opts) end
--- nn.models.densenet201([opts]): DenseNet-201 (opts as densenet121's).
--- Example: print(nn.models.densenet201():numParameters())
function M.densenet201(opts) return build('densenet201', opts) end

return M
