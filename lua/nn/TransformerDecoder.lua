-- nn.TransformerDecoder(decoderLayer, numLayers [, norm]): PyTorch's stack of numLayers copies of
-- decoderLayer (independent parameters), each attending to the same memory, then the optional
-- norm (an nn.LayerNormalization). Input as the layer's: {tgt, memory [, tgtMask =] [, memoryMask =]
-- [, tgtKeyPaddingMask =] [, memoryKeyPaddingMask =]}; gradInput is {gradTgt, gradMemory}.
-- Parameter names: layers.0.self_attn..., norm.weight (PyTorch's).
-- Note [Transformer layers and autograd] (nn/transformer_util.lua).
require 'nn.TransformerDecoderLayer'
local T = require 'nn.transformer_util'
local Dec, parent = torch.class('nn.TransformerDecoder', 'nn.Module')

function Dec:__init(layer, numLayers, norm)
  parent.__init(self)
  T.init_stack(self, 'nn.TransformerDecoder', 'nn.TransformerDecoderLayer', layer, numLayers, norm)
end

function Dec:_parse(input) return self.layers.modules[1]:_parse(input) end

function Dec:_compute(xs, extra, drops)
  local x, mem = xs[1], xs[2]
  for i, l in ipairs(self.layers.modules) do x = l:_compute({ x, mem }, extra, drops, i .. ':') end
  if self.norm then x = T.layerNorm(self.norm, x) end
  return x
end

T.install(Dec, parent)

function Dec:__tostring__() return T.stack_tostring(self, 'nn.TransformerDecoder') end

return Dec
