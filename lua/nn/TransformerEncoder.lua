-- nn.TransformerEncoder(encoderLayer, numLayers [, norm]): PyTorch's stack of numLayers copies of
-- encoderLayer (independent parameters, like PyTorch's deep copies), then the optional norm (an
-- nn.LayerNormalization). Input as the layer's: src or {src, srcMask =, srcKeyPaddingMask =}.
-- Parameter names: layers.0.self_attn.in_proj_weight, ..., norm.weight (PyTorch's).
-- Note [Transformer layers and autograd] (nn/transformer_util.lua).
require 'nn.TransformerEncoderLayer'
local T = require 'nn.transformer_util'
local A = require 'nn.functional_args'
local Enc, parent = torch.class('nn.TransformerEncoder', 'nn.Module')

function Enc:__init(layer, numLayers, norm)
  parent.__init(self)
  if torch.typename(layer) ~= 'nn.TransformerEncoderLayer' then
    A.fail('nn.TransformerEncoder', 'expected an nn.TransformerEncoderLayer, got %s', nn.utils.describe(layer))
  end
  numLayers = A.int('nn.TransformerEncoder', numLayers, 'numLayers')
  if numLayers < 1 then A.fail('nn.TransformerEncoder', 'numLayers must be positive, got %d', numLayers) end
  if norm ~= nil and torch.typename(norm) ~= 'nn.LayerNormalization' then
    A.fail('nn.TransformerEncoder', 'norm must be an nn.LayerNormalization, got %s', nn.utils.describe(norm))
  end
  self.layers = nn.Container()
  for i = 1, numLayers do self.layers.modules[i] = layer:clone() end
  self.numLayers, self.norm = numLayers, norm
  self.batchFirst, self.dModel = layer.batchFirst, layer.dModel
  self._children = { 'layers' }
  if norm then self._children[2] = 'norm' end
  self._stateParams = {}
  self._stateChildren = { layers = 'layers', norm = norm and 'norm' or nil }
end

function Enc:_parse(input) return self.layers.modules[1]:_parse(input) end

function Enc:_compute(xs, extra, drops)
  local x = xs[1]
  for i, l in ipairs(self.layers.modules) do x = l:_block(x, extra.mask, extra.kpm, drops, i .. ':') end
  if self.norm then x = T.layerNorm(self.norm, x) end
  return x
end

T.install(Enc, parent)

function Enc:__tostring__()
  return string.format('nn.TransformerEncoder(%d x %s%s)', self.numLayers, tostring(self.layers.modules[1]),
    self.norm and ', norm' or '')
end

return Enc
