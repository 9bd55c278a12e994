-- torchvision 0.14's EfficientNet (efficientnet.py): nn.models.efficientnet_b0 ... b7 and
-- efficientnet_v2_s/m/l, with torchvision's names ('features.1.0.block.1.fc1.weight'), stochastic
-- depth and initialization.
local C = require 'nn.models.common'
require 'nn.models.mobilenet'  -- MobileNetV3's forward
local lib = require 'torch.lib'
local M = nn.models
local Named = nn.models.Named

-- torchvision.ops.StochasticDepth(p, mode): in training, zeroes the whole input ('batch') or each
-- sample ('row') with probability p and scales the survivors by 1 / (1 - p); the identity in evaluation.
local SD, parent = torch.class('nn.models.StochasticDepth', 'nn.Module')
function SD:__init(p, mode)
  parent.__init(self)
  if type(p) ~= 'number' or p < 0 or p > 1 then
    lib.fail('nn.models.StochasticDepth', 'drop probability has to be between 0 and 1, but got %s', tostring(p))
  end
  if mode ~= 'row' and mode ~= 'batch' then
    lib.fail('nn.models.StochasticDepth', "mode has to be either 'batch' or 'row', but got %s", tostring(mode))
  end
  self.p, self.mode = p, mode
end
function SD:updateOutput(x)
  if not self.train or self.p == 0 then
    self.output = x
    return x
  end
  local size = { self.mode == 'row' and x:size(1) or 1 }
  for d = 2, x:dim() do size[d] = 1 end
  local noise = x.new():resize(torch.LongStorage(size)):bernoulli(1 - self.p)
  if self.p < 1 then noise:div(1 - self.p) end
  self.output = torch.cmul(x, noise)
  return self.output
end
-- torch.onnx.export runs the model in evaluation mode, where this is the identity (Note [ONNX export
-- of custom forwards], lua/torch/onnx_custom.lua).
function SD:onnxExport(E, x) return x end
function SD:__tostring__() return string.format('nn.models.StochasticDepth(p=%g, mode=%s)', self.p, self.mode) end

-- MBConv and FusedMBConv: child `block` and `stochastic_depth`; residual when shapes agree.
local MB = torch.class('nn.models.MBConv', 'nn.models.Named')
function MB:__init(c, sdProb, bn)
  local e = C.makeDivisible(c.input * c.expand, 8)
  local o = { act = 'SiLU', eps = bn.eps, momentum = bn.momentum }
  local s = nn.Sequential()
  if c.fused then
    if e ~= c.input then
      s:add(C.convNormAct(c.input, e, c.kernel, { stride = c.stride, act = 'SiLU', eps = bn.eps, momentum = bn.momentum }))
      s:add(C.convNormAct(e, c.out, 1, { act = false, eps = bn.eps, momentum = bn.momentum }))
    else
      s:add(C.convNormAct(c.input, c.out, c.kernel, { stride = c.stride, act = 'SiLU', eps = bn.eps,
                                                      momentum = bn.momentum }))
    end
  else
    if e ~= c.input then s:add(C.convNormAct(c.input, e, 1, o)) end
    s:add(C.convNormAct(e, e, c.kernel, { stride = c.stride, groups = e, act = 'SiLU', eps = bn.eps,
                                          momentum = bn.momentum }))
    s:add(nn.models.SqueezeExcitation(e, math.max(1, math.floor(c.input / 4)), 'SiLU', 'Sigmoid'))
    s:add(C.convNormAct(e, c.out, 1, { act = false, eps = bn.eps, momentum = bn.momentum }))
  end
  Named.__init(self, { { 'block', s }, { 'stochastic_depth', nn.models.StochasticDepth(sdProb, 'row') } })
  self.useResConnect = c.stride == 1 and c.input == c.out
end
function MB:updateOutput(x)
  local y = self.block:forward(x)
  if self.useResConnect then y = self.stochastic_depth:forward(y) + x end
  self.output = y
  return y
end
function MB:onnxExport(E, x)
  local y = E:emit(self.block, x, 'block')
  if self.useResConnect then y = E:add(E:emit(self.stochastic_depth, y, 'stochastic_depth'), x) end
  return y
end

-- Rows {expand, kernel, stride, in, out, layers[, fused]} of _efficientnet_conf.
local B_ROWS = { { 1, 3, 1, 32, 16, 1 }, { 6, 3, 2, 16, 24, 2 }, { 6, 5, 2, 24, 40, 2 }, { 6, 3, 2, 40, 80, 3 },
                 { 6, 5, 1, 80, 112, 3 }, { 6, 5, 2, 112, 192, 4 }, { 6, 3, 1, 192, 320, 1 } }
local V2_ROWS = {
  s = { { 1, 3, 1, 24, 24, 2, true }, { 4, 3, 2, 24, 48, 4, true }, { 4, 3, 2, 48, 64, 4, true },
        { 4, 3, 2, 64, 128, 6 }, { 6, 3, 1, 128, 160, 9 }, { 6, 3, 2, 160, 256, 15 } },
  m = { { 1, 3, 1, 24, 24, 3, true }, { 4, 3, 2, 24, 48, 5, true }, { 4, 3, 2, 48, 80, 5, true },
        { 4, 3, 2, 80, 160, 7 }, { 6, 3, 1, 160, 176, 14 }, { 6, 3, 2, 176, 304, 18 }, { 6, 3, 1, 304, 512, 5 } },
  l = { { 1, 3, 1, 32, 32, 4, true }, { 4, 3, 2, 32, 64, 7, true }, { 4, 3, 2, 64, 96, 7, true },
        { 4, 3, 2, 96, 192, 10 }, { 6, 3, 1, 192, 224, 19 }, { 6, 3, 2, 224, 384, 25 }, { 6, 3, 1, 384, 640, 7 } },
}

local EfficientNet = torch.class('nn.models.EfficientNet', 'nn.models.Named')
-- cfg: {rows, widthMult, depthMult, lastChannel, dropout, eps, momentum}
function EfficientNet:__init(cfg, opts, fn)
  local o = C.options(fn, opts, { numClasses = 1000, dropout = cfg.dropout, stochasticDepthProb = 0.2 })
  local sdp = C.number(fn, 'stochasticDepthProb', o.stochasticDepthProb)
  if sdp < 0 or sdp > 1 then lib.fail(fn, 'stochasticDepthProb must be in [0, 1], got %g', sdp) end
  local wm, dm = cfg.widthMult or 1, cfg.depthMult or 1
  local bn = { eps = cfg.eps or 1e-5, momentum = cfg.momentum or 0.1 }
  local rows = {}
  for i, r in ipairs(cfg.rows) do
    local fused = r[7] == true
    rows[i] = { expand = r[1], kernel = r[2], stride = r[3], fused = fused,
                input = fused and r[4] or C.makeDivisible(r[4] * wm, 8), out = fused and r[5] or C.makeDivisible(r[5] * wm, 8),
                layers = fused and r[6] or math.ceil(r[6] * dm) }
  end
  local f = nn.Sequential()
  f:add(C.convNormAct(3, rows[1].input, 3, { stride = 2, act = 'SiLU', eps = bn.eps, momentum = bn.momentum }))
  local total, id = 0, 0
  for _, r in ipairs(rows) do total = total + r.layers end
  for _, r in ipairs(rows) do
    local stage = nn.Sequential()
    for j = 1, r.layers do
      local c = {}
      for k, v in pairs(r) do c[k] = v end
      if j > 1 then c.input, c.stride = c.out, 1 end
      stage:add(nn.models.MBConv(c, sdp * id / total, bn))
      id = id + 1
    end
    f:add(stage)
  end
  local lastIn = rows[#rows].out
  local lastOut = cfg.lastChannel or 4 * lastIn
  f:add(C.convNormAct(lastIn, lastOut, 1, { act = 'SiLU', eps = bn.eps, momentum = bn.momentum }))
  local classifier = nn.Sequential():add(nn.Dropout(o.dropout)):add(nn.Linear(lastOut, o.numClasses))
  Named.__init(self, { { 'features', f }, { 'avgpool', nn.AdaptiveAvgPool2d(1) }, { 'classifier', classifier } })
  C.initWeights(self, { conv = function(m)
    nn.init.kaimingNormal(m.weight, 0, 'fan_out')
    if m.bias then m.bias:zero() end
  end, bn = C.bnOnes, linear = function(m)
    local r = 1 / math.sqrt(m.weight:size(1))
    m.weight:uniform(-r, r)
    m.bias:zero()
  end })
end
-- features, avgpool, flatten, classifier
EfficientNet.updateOutput = nn.models.MobileNetV3.updateOutput
EfficientNet.onnxExport = nn.models.MobileNetV3.onnxExport

local B = {  -- width, depth, dropout
  b0 = { 1.0, 1.0, 0.2 }, b1 = { 1.0, 1.1, 0.2 }, b2 = { 1.1, 1.2, 0.3 }, b3 = { 1.2, 1.4, 0.3 },
  b4 = { 1.4, 1.8, 0.4 }, b5 = { 1.6, 2.2, 0.4 }, b6 = { 1.8, 2.6, 0.5 }, b7 = { 2.0, 3.1, 0.5 },
}
local function b(v, opts)
  local s, big = B[v], v == 'b5' or v == 'b6' or v == 'b7'  -- b5-b7: BatchNorm2d(eps=1e-3, momentum=0.01)
  return nn.models.EfficientNet({ rows = B_ROWS, widthMult = s[1], depthMult = s[2], dropout = s[3],
    eps = big and 1e-3 or nil, momentum = big and 0.01 or nil }, opts, 'nn.models.efficientnet_' .. v)
end
local function v2(v, dropout, opts)
  return nn.models.EfficientNet({ rows = V2_ROWS[v], lastChannel = 1280, dropout = dropout, eps = 1e-3 }, opts,
    'nn.models.efficientnet_v2_' .. v)
end

--- nn.models.efficientnet_b0([opts]): torchvision's EfficientNet-B0; opts {numClasses = 1000,
--- dropout = the variant's (0.2 for b0), stochasticDepthProb = 0.2}.
--- Example: local m = nn.models.efficientnet_b0():eval() print(m:forward(torch.randn(1, 3, 64, 64)):size())
function M.efficientnet_b0(opts) return b('b0', opts) end
--- nn.models.efficientnet_b1([opts]): EfficientNet-B1 (opts as efficientnet_b0's).
--- Example: print(nn.models.efficientnet_b1():numParameters())
function M.efficientnet_b1(opts) return b('b1', opts) end
--- nn.models.efficientnet_b2([opts]): EfficientNet-B2 (opts as efficientnet_b0's).
--- Example: print(nn.models.efficientnet_b2():numParameters())
function M.efficientnet_b2(opts) return b('b2', opts) end
--- nn.models.efficientnet_b3([opts]): EfficientNet-B3 (opts as efficientnet_b0's).
--- Example: print(nn.models.efficientnet_b3():numParameters())
function M.efficientnet_b3(opts) return b('b3', opts) end
--- nn.models.efficientnet_b4([opts]): EfficientNet-B4 (opts as efficientnet_b0's).
--- Example: print(nn.models.efficientnet_b4():numParameters())
function M.efficientnet_b4(opts) return b('b4', opts) end
--- nn.models.efficientnet_b5([opts]): EfficientNet-B5 (opts as efficientnet_b0's).
--- Example: print(nn.models.efficientnet_b5():numParameters())
function M.efficientnet_b5(opts) return b('b5', opts) end
--- nn.models.efficientnet_b6([opts]): EfficientNet-B6 (opts as efficientnet_b0's).
--- Example: print(nn.models.efficientnet_b6():numParameters())
function M.efficientnet_b6(opts) return b('b6', opts) end
--- nn.models.efficientnet_b7([opts]): EfficientNet-B7 (opts as efficientnet_b0's).
--- Example: print(nn.models.efficientnet_b7():numParameters())
function M.efficientnet_b7(opts) return b('b7', opts) end
--- nn.models.efficientnet_v2_s([opts]): EfficientNetV2-S, fused MBConv stages first (opts as
--- efficientnet_b0's).
--- Example: print(nn.models.efficientnet_v2_s():numParameters())
function M.efficientnet_v2_s(opts) return v2('s', 0.2, opts) end
--- nn.models.efficientnet_v2_m([opts]): EfficientNetV2-M (opts as efficientnet_b0's).
--- Example: print(nn.models.efficientnet_v2_m():numParameters())
function M.efficientnet_v2_m(opts) return v2('m', 0.3, opts) end
--- nn.models.efficientnet_v2_l([opts]): EfficientNetV2-L (opts as efficientnet_b0's).
--- Example: print(nn.models.efficientnet_v2_l():numParameters())
function M.efficientnet_v2_l(opts) return v2('l', 0.4, opts) end

return M
