-- nn.TransformerDecoderLayer(dModel, nHead [, options as nn.TransformerEncoderLayer's]): PyTorch's
-- decoder layer: self-attention over the target, attention to the memory (the encoder's output),
-- then the feed-forward block, each with dropout, a residual and a layer norm (after, or before
-- with normFirst). Children: self_attn, multihead_attn, linear1, linear2, norm1..norm3 (PyTorch's
-- names). Note [Transformer layers and autograd] (nn/transformer_util.lua).
local T = require 'nn.transformer_util'
local A = require 'nn.functional_args'
local Layer, parent = torch.class('nn.TransformerDecoderLayer', 'nn.Module')
local known = { dimFeedforward = true, dropout = true, activation = true, layerNormEps = true, batchFirst = true,
                normFirst = true, bias = true }

function Layer:__init(dModel, nHead, opts)
  parent.__init(self)
  T.init(self, 'nn.TransformerDecoderLayer', dModel, nHead, opts, known)
  local o = { dropout = self.dropout, batchFirst = self.batchFirst, bias = self.bias }
  self.selfAttn = nn.MultiHeadAttention(dModel, nHead, o)
  self.multiheadAttn = nn.MultiHeadAttention(dModel, nHead, o)
  self.selfAttn.needWeights, self.multiheadAttn.needWeights = false, false
  self.norm1 = nn.LayerNormalization(dModel, self.layerNormEps)
  self.norm2 = nn.LayerNormalization(dModel, self.layerNormEps)
  self.norm3 = nn.LayerNormalization(dModel, self.layerNormEps)
  self._children = { 'selfAttn', 'multiheadAttn', 'linear1', 'linear2', 'norm1', 'norm2', 'norm3' }
  self._stateChildren = { self_attn = 'selfAttn', multihead_attn = 'multiheadAttn', linear1 = 'linear1',
                          linear2 = 'linear2', norm1 = 'norm1', norm2 = 'norm2', norm3 = 'norm3' }
end

local known_input = { tgtMask = true, memoryMask = true, tgtKeyPaddingMask = true, memoryKeyPaddingMask = true }

-- input: {tgt, memory [, tgtMask =] [, memoryMask =] [, tgtKeyPaddingMask =] [, memoryKeyPaddingMask =]}.
function Layer:_parse(input)
  if type(input) ~= 'table' or torch.isTensor(input) then
    A.fail(tostring(self), 'expected a table {tgt, memory, tgtMask=, memoryMask=, ...}, got %s', nn.utils.describe(input))
  end
  for k in pairs(input) do
    if k ~= 1 and k ~= 2 and not known_input[k] then A.fail(tostring(self), 'unknown input field %s', tostring(k)) end
  end
  T.check_seq(self, input[1], 'tgt', self.dModel)
  T.check_seq(self, input[2], 'memory', self.dModel)
  if input[1]:dim() ~= input[2]:dim() then A.fail(tostring(self), 'tgt and memory must both be batched or both not') end
  return { input[1], input[2] }, { tgtMask = input.tgtMask, memoryMask = input.memoryMask,
    tgtKpm = input.tgtKeyPaddingMask, memKpm = input.memoryKeyPaddingMask }
end

-- prefix names this layer's dropout sites when it is one of a stack (nn.TransformerDecoder).
function Layer:_compute(xs, e, drops, prefix)
  prefix = prefix or ''
  local x, mem = xs[1], xs[2]
  local function sa(h)
    local out, _, d = self.selfAttn:_compute(h, h, h, e.tgtKpm, e.tgtMask, drops[prefix .. 'attn1'])
    drops[prefix .. 'attn1'] = d
    return T.dropout(self, out, drops, prefix .. 'drop1')
  end
  local function ca(h)
    local out, _, d = self.multiheadAttn:_compute(h, mem, mem, e.memKpm, e.memoryMask, drops[prefix .. 'attn2'])
    drops[prefix .. 'attn2'] = d
    return T.dropout(self, out, drops, prefix .. 'drop2')
  end
  local function ff(h) return T.dropout(self, T.feedForward(self, h, drops, prefix), drops, prefix .. 'drop3') end
  if self.normFirst then
    x = torch.add(x, sa(T.layerNorm(self.norm1, x)))
    x = torch.add(x, ca(T.layerNorm(self.norm2, x)))
    return torch.add(x, ff(T.layerNorm(self.norm3, x)))
  end
  x = T.layerNorm(self.norm1, torch.add(x, sa(x)))
  x = T.layerNorm(self.norm2, torch.add(x, ca(x)))
  return T.layerNorm(self.norm3, torch.add(x, ff(x)))
end

T.install(Layer, parent)

function Layer:__tostring__()
  return string.format('nn.TransformerDecoderLayer(%d, %d heads, ff %d, dropout %g, %s%s%s)', self.dModel, self.nHead,
    self.dimFeedforward, self.dropout, type(self.activation) == 'string' and self.activation or 'custom activation',
    self.normFirst and ', normFirst' or '', self.batchFirst and ', batchFirst' or '')
end

return Layer
