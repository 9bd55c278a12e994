-- torchvision 0.14's VGG (vgg.py): nn.models.vgg11/13/16/19 and their batch-norm forms vgg11_bn...,
-- with torchvision's layer indices ('features.0.weight', 'classifier.6.bias') and initialization.
local C = require 'nn.models.common'
local M = nn.models

local cfgs = {
  A = { 64, 'M', 128, 'M', 256, 256, 'M', 512, 512, 'M', 512, 512, 'M' },
  B = { 64, 64, 'M', 128, 128, 'M', 256, 256, 'M', 512, 512, 'M', 512, 512, 'M' },
  D = { 64, 64, 'M', 128, 128, 'M', 256, 256, 256, 'M', 512, 512, 512, 'M', 512, 512, 512, 'M' },
  E = { 64, 64, 'M', 128, 128, 'M', 256, 256, 256, 256, 'M', 512, 512, 512, 512, 'M', 512, 512, 512, 512, 'M' },
}

local function makeLayers(cfg, batchNorm)
  local s, inC = nn.Sequential(), 3
  for _, v in ipairs(cfg) do
    if v == 'M' then
      s:add(nn.MaxPool2d(2, 2))
    else
      s:add(nn.Conv2d(inC, v, 3, { padding = 1 }))
      if batchNorm then s:add(C.bn(v)) end
      s:add(nn.ReLU())
      inC = v
    end
  end
  return s
end

-- nn.models.VGG(features, opts {numClasses, dropout, initWeights}): features, avgpool (7x7), classifier.
local VGG = torch.class('nn.models.VGG', 'nn.models.Named')
function VGG:__init(features, opts, fn)
  local o = C.options(fn or 'nn.models.VGG', opts, { numClasses = 1000, dropout = 0.5, initWeights = true })
  local classifier = nn.Sequential()
      :add(nn.Linear(512 * 7 * 7, 4096)):add(nn.ReLU()):add(nn.Dropout(o.dropout))
      :add(nn.Linear(4096, 4096)):add(nn.ReLU()):add(nn.Dropout(o.dropout))
      :add(nn.Linear(4096, o.numClasses))
  nn.models.Named.__init(self, { { 'features', features }, { 'avgpool', nn.AdaptiveAvgPool2d({ 7, 7 }) },
                                 { 'classifier', classifier } })
  if C.bool(fn or 'nn.models.VGG', 'initWeights', o.initWeights, true) then  -- a boolean (0 is true in Lua)
    C.initWeights(self, { conv = C.kaimingFanOut, bn = C.bnOnes, linear = function(m)
      m.weight:normal(0, 0.01)
      m.bias:zero()
    end })
  end
end

-- features, avgpool, flatten, classifier (VGG's and AlexNet's forward).
function VGG:updateOutput(x)
  local y = self.avgpool:forward(self.features:forward(x))
  self.output = self.classifier:forward(C.flatten(y))
  return self.output
end
-- torch.onnx.export's (Note [ONNX export of custom forwards], lua/torch/onnx_custom.lua).
function VGG:onnxExport(E, x)
  return E:emit(self.classifier, E:flatten(E:run(x, 'features', 'avgpool')), 'classifier')
end

local function build(cfg, bn, name, opts)
  return nn.models.VGG(makeLayers(cfgs[cfg], bn), opts, 'nn.models.' .. name)
end

--- nn.models.vgg11([opts]): torchvision's VGG-11 (configuration A); opts {numClasses = 1000,
--- dropout = 0.5}. Inputs of at least 32x32.
--- Example: local m = nn.models.vgg11({numClasses = 10}):eval() print(m:forward(torch.randn(1, 3, 32, 32)):size())
function M.vgg11(opts) return build('A', false, 'vgg11', opts) end
--- nn.models.vgg11_bn([opts]): VGG-11 with batch normalization (opts as vgg11's).
--- Example: print(nn.models.vgg11_bn():numParameters())
function M.vgg11_bn(opts) return build('A', true, 'vgg11_bn', opts) end
--- nn.models.vgg13([opts]): VGG-13 (configuration B; opts as vgg11's).
--- Example: print(nn.models.vgg13():numParameters())
function M.vgg13(opts) return build('B', false, 'vgg13', opts) end
--- nn.models.vgg13_bn([opts]): VGG-13 with batch normalization (opts as vgg11's).
--- Example: print(nn.models.vgg13_bn():numParameters())
function M.vgg13_bn(opts) return build('B', true, 'vgg13_bn', opts) end
--- nn.models.vgg16([opts]): VGG-16 (configuration D; opts as vgg11's).
--- Example: print(nn.models.vgg16():numParameters())
function M.vgg16(opts) return build('D', false, 'vgg16', opts) end
--- nn.models.vgg16_bn([opts]): VGG-16 with batch normalization (opts as vgg11's).
--- Example: print(nn.models.vgg16_bn():numParameters())
function M.vgg16_bn(opts) return build('D', true, 'vgg16_bn', opts) end
--- nn.models.vgg19([opts]): VGG-19 (configuration E; opts as vgg11's).
--- Example: print(nn.models.vgg19():numParameters())
function M.vgg19(opts) return build('E', false, 'vgg19', opts) end
--- nn.models.vgg19_bn([opts]): VGG-19 with batch normalization (opts as vgg11's).
--- Example: print(nn.models.vgg19_bn():numParameters())
function M.vgg19_bn(opts) return build('E', true, 'vgg19_bn', opts) end

return M
