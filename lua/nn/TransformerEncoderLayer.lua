-- nn.TransformerEncoderLayer(dModel, nHead [, {dimFeedforward = 2048, dropout = 0.1, activation =
-- 'relu' | 'gelu' | function, layerNormEps = 1e-5, batchFirst = false, normFirst = false, bias =
-- true}]): PyTorch's layer: self-attention (nn.MultiHeadAttention) then a feed-forward block, each
-- with dropout and a residual; post-norm (x = norm1(x + sa(x)); x = norm2(x + ff(x))) or with
-- normFirst pre-norm (x = x + sa(norm1(x)); x = x + ff(norm2(x))). Children and parameter names
-- are PyTorch's (self_attn, linear1, linear2, norm1, norm2) so weights copy across.
-- Note [Transformer layers and autograd] (nn/transformer_util.lua).
local T = require 'nn.transformer_util'
local A = require 'nn.functional_args'
local Layer, parent = torch.class('nn.TransformerEncoderLayer', 'nn.Module')
local known = { dimFeedforward = true, dropout = true, activation = true, layerNormEps = true, batchFirst = true,
                normFirst = true, bias = true }

function Layer:__init(dModel, nHead, opts)
  parent.__init(self)
  T.init(self, 'nn.TransformerEncoderLayer', dModel, nHead, opts, known)
  self.selfAttn = nn.MultiHeadAttention(dModel, nHead, { dropout = self.dropout, batchFirst = self.batchFirst,
                                                         bias = self.bias })
  self.selfAttn.needWeights = false
  self.norm1 = nn.LayerNormalization(dModel, self.layerNormEps)
  self.norm2 = nn.LayerNormalization(dModel, self.layerNormEps)
  self._children = { 'selfAttn', 'linear1', 'linear2', 'norm1', 'norm2' }
  self._stateChildren = { self_attn = 'selfAttn', linear1 = 'linear1', linear2 = 'linear2', norm1 = 'norm1',
                          norm2 = 'norm2' }
end

-- input: src, or {src, srcMask =, srcKeyPaddingMask =} (masks as nn.MultiHeadAttention's attnMask
-- and keyPaddingMask).
function Layer:_parse(input)
  local src, extra = input, {}
  if type(input) == 'table' and not torch.isTensor(input) then
    for k in pairs(input) do  -- a misspelt mask would be ignored silently (the decoder layer checks too)
      if k ~= 1 and k ~= 'srcMask' and k ~= 'srcKeyPaddingMask' then
        A.fail(tostring(self), 'unknown input field %s (expected {src, srcMask=, srcKeyPaddingMask=})', tostring(k))
      end
    end
    src, extra = input[1], { mask = input.srcMask, kpm = input.srcKeyPaddingMask }
  end
  T.check_seq(self, src, 'src', self.dModel)
  return { src }, extra
end

-- The layer on x (one of the recorded computations Note [Transformer layers and autograd] replays).
function Layer:_block(x, mask, kpm, drops, prefix)
  local function sa(h)
    local out, _, d = self.selfAttn:_compute(h, h, h, kpm, mask, drops[prefix .. 'attn'])
    drops[prefix .. 'attn'] = d
    return T.dropout(self, out, drops, prefix .. 'drop1')
  end
  local function ff(h) return T.dropout(self, T.feedForward(self, h, drops, prefix), drops, prefix .. 'drop2') end
  if self.normFirst then
    x = torch.add(x, sa(T.layerNorm(self.norm1, x)))
    return torch.add(x, ff(T.layerNorm(self.norm2, x)))
  end
  x = T.layerNorm(self.norm1, torch.add(x, sa(x)))
  return T.layerNorm(self.norm2, torch.add(x, ff(x)))
end

function Layer:_compute(xs, extra, drops)
  return self:_block(xs[1], extra.mask, extra.kpm, drops, '')
end

T.install(Layer, parent)

function Layer:__tostring__()
  return string.format('nn.TransformerEncoderLayer(%d, %d heads, ff %d, dropout %g, %s%s%s)', self.dModel, self.nHead,
    self.dimFeedforward, self.dropout, type(self.activation) == 'string' and self.activation or 'custom activation',
    self.normFirst and ', normFirst' or '', self.batchFirst and ', batchFirst' or '')
end

return Layer
