-- torchvision 0.14's MobileNets (mobilenetv2.py, mobilenetv3.py): nn.models.mobilenet_v2,
-- mobilenet_v3_large and mobilenet_v3_small, with torchvision's block structure
-- ('features.1.conv.0.0.weight', 'features.4.block.2.fc1.weight') and initialization.
local C = require 'nn.models.common'
local lib = require 'torch.lib'
local M = nn.models

local function initMobile(model)
  return C.initWeights(model, { conv = function(m)
    nn.init.kaimingNormal(m.weight, 0, 'fan_out')
    if m.bias then m.bias:zero() end
  end, bn = C.bnOnes, linear = function(m)
    m.weight:normal(0, 0.01)
    m.bias:zero()
  end })
end

-- The residual connection of both versions: input + block(input) when shapes agree.
local function residualForward(self, x)
  local y = self[self._body]:forward(x)
  if self.useResConnect then y = y + x end
  self.output = y
  return y
end
-- torch.onnx.export's (Note [ONNX export of custom forwards], lua/torch/onnx_custom.lua).
local function residualExport(self, E, x)
  local y = E:emit(self[self._body], x, self._body)
  if self.useResConnect then y = E:add(y, x) end
  return y
end

-- MobileNetV2's InvertedResidual(inp, oup, stride, expandRatio): child `conv`.
local IR2 = torch.class('nn.models.InvertedResidualV2', 'nn.models.Named')
function IR2:__init(inp, oup, stride, expandRatio)
  local hidden = math.floor(inp * expandRatio + 0.5)
  local s = nn.Sequential()
  if expandRatio ~= 1 then s:add(C.convNormAct(inp, hidden, 1, { act = 'ReLU6' })) end
  s:add(C.convNormAct(hidden, hidden, 3, { stride = stride, groups = hidden, act = 'ReLU6' }))
  s:add(C.conv(hidden, oup, 1)):add(C.bn(oup))
  nn.models.Named.__init(self, { { 'conv', s } })
  self._body, self.useResConnect = 'conv', stride == 1 and inp == oup
end
IR2.updateOutput, IR2.onnxExport = residualForward, residualExport

local V2 = torch.class('nn.models.MobileNetV2', 'nn.models.Named')
function V2:__init(opts)
  local fn = 'nn.models.mobilenet_v2'
  local o = C.options(fn, opts, { numClasses = 1000, widthMult = 1.0, roundNearest = 8, dropout = 0.2 })
  local wm, rn = C.number(fn, 'widthMult', o.widthMult), C.int(fn, 'roundNearest', o.roundNearest)
  local setting = { { 1, 16, 1, 1 }, { 6, 24, 2, 2 }, { 6, 32, 3, 2 }, { 6, 64, 4, 2 }, { 6, 96, 3, 1 },
                    { 6, 160, 3, 2 }, { 6, 320, 1, 1 } }
  local inC = C.makeDivisible(32 * wm, rn)
  local last = C.makeDivisible(1280 * math.max(1.0, wm), rn)
  local f = nn.Sequential():add(C.convNormAct(3, inC, 3, { stride = 2, act = 'ReLU6' }))
  for _, row in ipairs(setting) do
    local t, c, n, s = row[1], row[2], row[3], row[4]
    local outC = C.makeDivisible(c * wm, rn)
    for i = 1, n do
      f:add(nn.models.InvertedResidualV2(inC, outC, i == 1 and s or 1, t))
      inC = outC
    end
  end
  f:add(C.convNormAct(inC, last, 1, { act = 'ReLU6' }))
  local classifier = nn.Sequential():add(nn.Dropout(o.dropout)):add(nn.Linear(last, o.numClasses))
  nn.models.Named.__init(self, { { 'features', f }, { 'classifier', classifier } })
  initMobile(self)
end
function V2:updateOutput(x)
  local y = nn.functional.adaptiveAvgPool2d(self.features:forward(x), 1)
  self.output = self.classifier:forward(C.flatten(y))
  return self.output
end
function V2:onnxExport(E, x)
  return E:emit(self.classifier, E:flatten(E:globalAvgPool(E:emit(self.features, x, 'features'))), 'classifier')
end

-- MobileNetV3's InvertedResidual(cnf, eps, momentum): child `block`.
local IR3 = torch.class('nn.models.InvertedResidualV3', 'nn.models.Named')
function IR3:__init(c)
  local act = c.useHs and 'Hardswish' or 'ReLU'
  local bn = { eps = 0.001, momentum = 0.01 }
  local s = nn.Sequential()
  if c.expanded ~= c.input then
    s:add(C.convNormAct(c.input, c.expanded, 1, { act = act, eps = bn.eps, momentum = bn.momentum }))
  end
  s:add(C.convNormAct(c.expanded, c.expanded, c.kernel, { stride = c.dilation > 1 and 1 or c.stride,
    dilation = c.dilation, groups = c.expanded, act = act, eps = bn.eps, momentum = bn.momentum }))
  if c.useSe then
    s:add(nn.models.SqueezeExcitation(c.expanded, C.makeDivisible(math.floor(c.expanded / 4), 8), 'ReLU', 'Hardsigmoid'))
  end
  s:add(C.convNormAct(c.expanded, c.out, 1, { act = false, eps = bn.eps, momentum = bn.momentum }))
  nn.models.Named.__init(self, { { 'block', s } })
  self._body, self.useResConnect = 'block', c.stride == 1 and c.input == c.out
end
IR3.updateOutput, IR3.onnxExport = residualForward, residualExport

local function v3conf(arch, wm, reducedTail, dilated)
  local rd, dil = reducedTail and 2 or 1, dilated and 2 or 1
  local function adj(ch) return C.makeDivisible(ch * wm, 8) end
  local function b(i, k, e, o, se, a, s, d)
    return { input = adj(i), kernel = k, expanded = adj(e), out = adj(o), useSe = se, useHs = a == 'HS', stride = s,
             dilation = d }
  end
  local q = math.floor
  if arch == 'large' then
    return {
      b(16, 3, 16, 16, false, 'RE', 1, 1), b(16, 3, 64, 24, false, 'RE', 2, 1), b(24, 3, 72, 24, false, 'RE', 1, 1),
      b(24, 5, 72, 40, true, 'RE', 2, 1), b(40, 5, 120, 40, true, 'RE', 1, 1), b(40, 5, 120, 40, true, 'RE', 1, 1),
      b(40, 3, 240, 80, false, 'HS', 2, 1), b(80, 3, 200, 80, false, 'HS', 1, 1), b(80, 3, 184, 80, false, 'HS', 1, 1),
      b(80, 3, 184, 80, false, 'HS', 1, 1), b(80, 3, 480, 112, true, 'HS', 1, 1), b(112, 3, 672, 112, true, 'HS', 1, 1),
      b(112, 5, 672, q(160 / rd), true, 'HS', 2, dil),
      b(q(160 / rd), 5, q(960 / rd), q(160 / rd), true, 'HS', 1, dil),
      b(q(160 / rd), 5, q(960 / rd), q(160 / rd), true, 'HS', 1, dil),
    }, adj(q(1280 / rd))
  end
  return {
    b(16, 3, 16, 16, true, 'RE', 2, 1), b(16, 3, 72, 24, false, 'RE', 2, 1), b(24, 3, 88, 24, false, 'RE', 1, 1),
    b(24, 5, 96, 40, true, 'HS', 2, 1), b(40, 5, 240, 40, true, 'HS', 1, 1), b(40, 5, 240, 40, true, 'HS', 1, 1),
    b(40, 5, 120, 48, true, 'HS', 1, 1), b(48, 5, 144, 48, true, 'HS', 1, 1),
    b(48, 5, 288, q(96 / rd), true, 'HS', 2, dil),
    b(q(96 / rd), 5, q(576 / rd), q(96 / rd), true, 'HS', 1, dil),
    b(q(96 / rd), 5, q(576 / rd), q(96 / rd), true, 'HS', 1, dil),
  }, adj(q(1024 / rd))
end

local V3 = torch.class('nn.models.MobileNetV3', 'nn.models.Named')
function V3:__init(arch, opts, fn)
  local o = C.options(fn, opts, { numClasses = 1000, widthMult = 1.0, reducedTail = false, dilated = false,
                                  dropout = 0.2 })
  if arch ~= 'large' and arch ~= 'small' then lib.fail(fn, "arch must be 'large' or 'small', got %s", tostring(arch)) end
  local setting, lastChannel = v3conf(arch, C.number(fn, 'widthMult', o.widthMult),
    C.bool(fn, 'reducedTail', o.reducedTail), C.bool(fn, 'dilated', o.dilated))
  local bn = { eps = 0.001, momentum = 0.01 }
  local f = nn.Sequential()
  f:add(C.convNormAct(3, setting[1].input, 3, { stride = 2, act = 'Hardswish', eps = bn.eps, momentum = bn.momentum }))
  for _, c in ipairs(setting) do f:add(nn.models.InvertedResidualV3(c)) end
  local lastIn = setting[#setting].out
  f:add(C.convNormAct(lastIn, 6 * lastIn, 1, { act = 'Hardswish', eps = bn.eps, momentum = bn.momentum }))
  local classifier = nn.Sequential():add(nn.Linear(6 * lastIn, lastChannel)):add(nn.Hardswish())
      :add(nn.Dropout(o.dropout)):add(nn.Linear(lastChannel, o.numClasses))
  nn.models.Named.__init(self, { { 'features', f }, { 'avgpool', nn.AdaptiveAvgPool2d(1) },
                                 { 'classifier', classifier } })
  initMobile(self)
end
function V3:updateOutput(x)
  local y = self.avgpool:forward(self.features:forward(x))
  self.output = self.classifier:forward(C.flatten(y))
  return self.output
end
function V3:onnxExport(E, x)
  return E:emit(self.classifier, E:flatten(E:run(x, 'features', 'avgpool')), 'classifier')
end

--- nn.models.mobilenet_v2([opts]): torchvision's MobileNetV2; opts {numClasses = 1000,
--- widthMult = 1.0, roundNearest = 8, dropout = 0.2}.
--- Example: local m = nn.models.mobilenet_v2():eval() print(m:forward(torch.randn(1, 3, 64, 64)):size())
function M.mobilenet_v2(opts) return nn.models.MobileNetV2(opts) end

--- nn.models.mobilenet_v3_large([opts]): torchvision's MobileNetV3-Large; opts
--- {numClasses = 1000, widthMult = 1.0, reducedTail = false, dilated = false, dropout = 0.2}.
--- Example: local m = nn.models.mobilenet_v3_large():eval() print(m:forward(torch.randn(1, 3, 64, 64)):size())
function M.mobilenet_v3_large(opts) return nn.models.MobileNetV3('large', opts, 'nn.models.mobilenet_v3_large') end
--- nn.models.mobilenet_v3_small([opts]): MobileNetV3-Small (opts as mobilenet_v3_large's).
--- Example: print(nn.models.mobilenet_v3_small():numParameters())
function M.mobilenet_v3_small(opts) return nn.models.MobileNetV3('small', opts, 'nn.models.mobilenet_v3_small') end

return M
