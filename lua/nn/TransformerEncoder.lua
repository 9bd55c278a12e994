-- nn.TransformerEncoder(encoderLayer, numLayers [, norm]): PyTorch's stack of numLayers copies of
-- encoderLayer (independent parameters, like PyTorch's deep copies), then the optional norm (an
-- nn.LayerNormalization). Input as the layer's: src or {src, srcMask =, srcKeyPaddingMask =}.
-- Parameter names: layers.0.self_attn.in_proj_weight, ..., norm.weight (PyTorch's).
-- Note [Transformer layers and autograd] (nn/transformer_util.lua).
require 'nn.TransformerEncoderLayer'
local T = require 'nn.transformer_util'
local Enc, parent = torch.class('nn.TransformerEncoder', 'nn.Module')

function Enc:__init(layer, numLayers, norm)
  parent.__init(self)
  T.init_stack(self, 'nn.TransformerEncoder', 'nn.TransformerEncoderLayer', layer, numLayers, norm)
end

function Enc:_parse(input) return self.layers.modules[1]:_parse(input) end

function Enc:_compute(xs, extra, drops)
  local x = xs[1]
  for i, l in ipairs(self.layers.modules) do x = l:_block(x, extra.mask, extra.kpm, drops, i .. ':') end
  if self.norm then x = T.layerNorm(self.norm, x) end
  return x
end

T.install(Enc, parent)

function Enc:__tostring__() return T.stack_tostring(self, 'nn.TransformerEncoder') end

return Enc
