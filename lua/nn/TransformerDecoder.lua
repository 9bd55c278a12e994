-- nn.TransformerDecoder(decoderLayer, numLayers [, norm]): PyTorch's stack of numLayers copies of
-- decoderLayer (independent parameters), each attending to the same memory, then the optional
-- norm (an nn.LayerNormalization). Input as the layer's: {tgt, memory [, tgtMask =] [, memoryMask =]
-- [, tgtKeyPaddingMask =] [, memoryKeyPaddingMask =]}; gradInput is {gradTgt, gradMemory}.
-- Parameter names: layers.0.self_attn..., norm.weight (PyTorch's).
-- Note [Transformer layers and autograd] (nn/transformer_util.lua).
require 'nn.TransformerDecoderLayer'
local T = require 'nn.transformer_util'
local A = require 'nn.functional_args'
local Dec, parent = torch.class('nn.TransformerDecoder', 'nn.Module')

function Dec:__init(layer, numLayers, norm)
  parent.__init(self)
  local name = 'nn.TransformerDecoder'
  if torch.typename(layer) ~= 'nn.TransformerDecoderLayer' then
    A.fail(name, 'expected an nn.TransformerDecoderLayer, got %s', nn.utils.describe(layer))
  end
  numLayers = A.int(name, numLayers, 'numLayers')
  if numLayers < 1 then A.fail(name, 'numLayers must be positive, got %d', numLayers) end
  if norm ~= nil and torch.typename(norm) ~= 'nn.LayerNormalization' then
    A.fail(name, 'norm must be an nn.LayerNormalization, got %s', nn.utils.describe(norm))
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

function Dec:_parse(input) return self.layers.modules[1]:_parse(input) end

function Dec:_compute(xs, extra, drops)
  local x, mem = xs[1], xs[2]
  for i, l in ipairs(self.layers.modules) do x = l:_compute({ x, mem }, extra, drops, i .. ':') end
  if self.norm then x = T.layerNorm(self.norm, x) end
  return x
end

T.install(Dec, parent)

function Dec:__tostring__()
  return string.format('nn.TransformerDecoder(%d x %s%s)', self.numLayers, tostring(self.layers.modules[1]),
    self.norm and ', norm' or '')
end

return Dec
