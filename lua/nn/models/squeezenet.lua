-- torchvision 0.14's SqueezeNet (squeezenet.py): nn.models.squeezenet1_0 and squeezenet1_1 with
-- torchvision's Fire modules ('features.3.expand1x1.weight') and initialization.
local C = require 'nn.models.common'
local lib = require 'torch.lib'
local M = nn.models

-- Fire(inplanes, squeeze, expand1x1, expand3x3): squeeze, then the two expands concatenated.
local Fire = torch.class('nn.models.Fire', 'nn.models.Named')
function Fire:__init(inplanes, sq, e1, e3)
  nn.models.Named.__init(self, {
    { 'squeeze', nn.Conv2d(inplanes, sq, 1) }, { 'squeeze_activation', nn.ReLU() },
    { 'expand1x1', nn.Conv2d(sq, e1, 1) }, { 'expand1x1_activation', nn.ReLU() },
    { 'expand3x3', nn.Conv2d(sq, e3, 3, { padding = 1 }) }, { 'expand3x3_activation', nn.ReLU() },
  })
end
function Fire:updateOutput(x)
  x = self.squeeze_activation:forward(self.squeeze:forward(x))
  local a = self.expand1x1_activation:forward(self.expand1x1:forward(x))
  local b = self.expand3x3_activation:forward(self.expand3x3:forward(x))
  self.output = torch.cat({ a, b }, 2)
  return self.output
end
-- torch.onnx.export's (Note [ONNX export of custom forwards], lua/torch/onnx_custom.lua).
function Fire:onnxExport(E, x)
  x = E:run(x, 'squeeze', 'squeeze_activation')
  return E:concat({ E:run(x, 'expand1x1', 'expand1x1_activation'), E:run(x, 'expand3x3', 'expand3x3_activation') }, 2)
end

local SqueezeNet = torch.class('nn.models.SqueezeNet', 'nn.models.Named')
function SqueezeNet:__init(version, opts, fn)
  fn = fn or 'nn.models.SqueezeNet'
  local o = C.options(fn, opts, { numClasses = 1000, dropout = 0.5 })
  local pool = function() return nn.MaxPool2d(3, 2, { ceilMode = true }) end
  local f = nn.Sequential()
  local new = nn.models.Fire
  if version == '1_0' then
    f:add(nn.Conv2d(3, 96, 7, { stride = 2 })):add(nn.ReLU()):add(pool())
     :add(new(96, 16, 64, 64)):add(new(128, 16, 64, 64)):add(new(128, 32, 128, 128)):add(pool())
     :add(new(256, 32, 128, 128)):add(new(256, 48, 192, 192)):add(new(384, 48, 192, 192))
     :add(new(384, 64, 256, 256)):add(pool()):add(new(512, 64, 256, 256))
  elseif version == '1_1' then
    f:add(nn.Conv2d(3, 64, 3, { stride = 2 })):add(nn.ReLU()):add(pool())
     :add(new(64, 16, 64, 64)):add(new(128, 16, 64, 64)):add(pool())
     :add(new(128, 32, 128, 128)):add(new(256, 32, 128, 128)):add(pool())
     :add(new(256, 48, 192, 192)):add(new(384, 48, 192, 192)):add(new(384, 64, 256, 256))
     :add(new(512, 64, 256, 256))
  else
    lib.fail(fn, "unsupported SqueezeNet version %s: '1_0' or '1_1' expected", tostring(version))
  end
  local finalConv = nn.Conv2d(512, o.numClasses, 1)
  local classifier = nn.Sequential():add(nn.Dropout(o.dropout)):add(finalConv):add(nn.ReLU())
      :add(nn.AdaptiveAvgPool2d({ 1, 1 }))
  nn.models.Named.__init(self, { { 'features', f }, { 'classifier', classifier } })
  C.initWeights(self, { conv = function(m)
    if rawequal(m, finalConv) then m.weight:normal(0, 0.01) else nn.init.kaimingUniform(m.weight) end
    m.bias:zero()
  end })
end
function SqueezeNet:updateOutput(x)
  self.output = C.flatten(self.classifier:forward(self.features:forward(x)))
  return self.output
end
function SqueezeNet:onnxExport(E, x) return E:flatten(E:run(x, 'features', 'classifier')) end

--- nn.models.squeezenet1_0([opts]): torchvision's SqueezeNet 1.0 (squeezenet1_1: 1.1, 2.4x less
--- computation); opts {numClasses = 1000, dropout = 0.5}. Inputs of at least 21x21 (1_0) / 17x17 (1_1).
--- Example: local m = nn.models.squeezenet1_1():eval() print(m:forward(torch.randn(1, 3, 64, 64)):size())
function M.squeezenet1_0(opts) return nn.models.SqueezeNet('1_0', opts, 'nn.models.squeezenet1_0') end
--- nn.models.squeezenet1_1([opts]): SqueezeNet 1.1 (opts as squeezenet1_0's).
--- Example: print(nn.models.squeezenet1_1():numParameters())
function M.squeezenet1_1(opts) return nn.models.SqueezeNet('1_1', opts, 'nn.models.squeezenet1_1') end

return M
