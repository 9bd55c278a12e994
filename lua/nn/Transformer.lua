-- nn.Transformer(dModel, nHead [, {numEncoderLayers = 6, numDecoderLayers = 6, and the layer options
-- of nn.TransformerEncoderLayer}]): PyTorch's encoder-decoder model (the sizes have no defaults here,
-- PyTorch's are 512 and 8): an nn.TransformerEncoder and an nn.TransformerDecoder, each ending with a
-- layer norm, the decoder attending to the encoder's output. Input {src, tgt [, srcMask =] [, tgtMask =]
-- [, memoryMask =] [, srcKeyPaddingMask =] [, tgtKeyPaddingMask =] [, memoryKeyPaddingMask =]};
-- gradInput is {gradSrc, gradTgt}. Parameter names: encoder.layers.0..., decoder.norm.weight
-- (PyTorch's). nn.Transformer.generateSquareSubsequentMask(n) is the causal mask.
-- Note [Transformer layers and autograd] (nn/transformer_util.lua).
require 'nn.TransformerEncoder'
require 'nn.TransformerDecoder'
local T = require 'nn.transformer_util'
local A = require 'nn.functional_args'
local Transformer, parent = torch.class('nn.Transformer', 'nn.Module')
local layer_known = { dimFeedforward = true, dropout = true, activation = true, layerNormEps = true,
                      batchFirst = true, normFirst = true, bias = true }
local known_input = { srcMask = true, tgtMask = true, memoryMask = true, srcKeyPaddingMask = true,
                      tgtKeyPaddingMask = true, memoryKeyPaddingMask = true }

function Transformer:__init(dModel, nHead, opts)
  parent.__init(self)
  local name = 'nn.Transformer'
  local known = { numEncoderLayers = true, numDecoderLayers = true }
  for k in pairs(layer_known) do known[k] = true end
  opts = A.opts(name, opts, known)
  local lo = {}
  for k in pairs(layer_known) do lo[k] = opts[k] end
  local ne = A.int(name, opts.numEncoderLayers, 'numEncoderLayers', 6)
  local nd = A.int(name, opts.numDecoderLayers, 'numDecoderLayers', 6)
  local eps = A.number(name, opts.layerNormEps, 'layerNormEps', 1e-5)
  self.encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(dModel, nHead, lo), ne,
    nn.LayerNormalization(dModel, eps))
  self.decoder = nn.TransformerDecoder(nn.TransformerDecoderLayer(dModel, nHead, lo), nd,
    nn.LayerNormalization(dModel, eps))
  self.dModel, self.nHead, self.batchFirst = dModel, nHead, self.encoder.batchFirst
  self._children = { 'encoder', 'decoder' }
  self._stateParams = {}
  self._stateChildren = { encoder = 'encoder', decoder = 'decoder' }
  self:_xavier()
end

-- PyTorch's nn.Transformer re-initializes every parameter of two or more dims (the attention
-- projections and the feed-forward weights) with xavier_uniform_, over its layers' own defaults;
-- the layers alone keep theirs. Biases and layer norms stay as the layers set them.
function Transformer:_xavier()
  for _, p in ipairs(self:parameters()) do
    if p:dim() > 1 then nn.init.xavierUniform(p) end
  end
end

--- nn.Transformer.generateSquareSubsequentMask(n): the n x n causal mask, PyTorch's: a float
--- tensor (the default type) with -inf above the diagonal and 0 elsewhere (position i may not
--- attend to j > i), for tgtMask or any additive attention mask.
--- Example: nn.Transformer.generateSquareSubsequentMask(3)
-- Note [A float causal mask]: this was a ByteTensor with 1 = masked, the attention modules'
-- meaning of a byte or bool mask; scaledDotProductAttention reads a bool mask the other way
-- round (true = may attend, as PyTorch's), so the same mask gave it anti-causal attention. An
-- additive float mask means the same everywhere.
function Transformer.generateSquareSubsequentMask(n)
  n = A.int('nn.Transformer.generateSquareSubsequentMask', n, 'n')
  if n < 0 then A.fail('nn.Transformer.generateSquareSubsequentMask', 'n must be >= 0, got %d', n) end
  if n == 0 then return torch.Tensor(0, 0) end
  return torch.Tensor(n, n):fill(-math.huge):triu(1)  -- one op, not n^2 Lua element writes
end

function Transformer:_parse(input)
  if type(input) ~= 'table' or torch.isTensor(input) then
    A.fail(tostring(self), 'expected a table {src, tgt, srcMask=, tgtMask=, ...}, got %s', nn.utils.describe(input))
  end
  for k in pairs(input) do
    if k ~= 1 and k ~= 2 and not known_input[k] then A.fail(tostring(self), 'unknown input field %s', tostring(k)) end
  end
  local src = self.encoder:_parse(input[1])[1]
  local _, e = self.decoder:_parse({ input[2], src, tgtMask = input.tgtMask, memoryMask = input.memoryMask,
    tgtKeyPaddingMask = input.tgtKeyPaddingMask, memoryKeyPaddingMask = input.memoryKeyPaddingMask })
  e.srcMask, e.srcKpm = input.srcMask, input.srcKeyPaddingMask
  local b = self.batchFirst and 1 or 2  -- as PyTorch: the batch sizes must agree (the attention named itself)
  if src:dim() == 3 and src:size(b) ~= input[2]:size(b) then
    A.fail(tostring(self), 'the batch sizes of src (%d) and tgt (%d) must be equal', src:size(b), input[2]:size(b))
  end
  return { src, input[2] }, e
end

function Transformer:_compute(xs, e, drops)
  -- each half keeps its dropout masks in its own table (their sites have the same names)
  drops.encoder, drops.decoder = drops.encoder or {}, drops.decoder or {}
  local mem = self.encoder:_compute({ xs[1] }, { mask = e.srcMask, kpm = e.srcKpm }, drops.encoder)
  return self.decoder:_compute({ xs[2], mem }, e, drops.decoder)
end

T.install(Transformer, parent)

--- m:reset(): the layers' default initialization, then xavier-uniform weights (PyTorch's _reset_parameters).
function Transformer:reset()
  for _, f in ipairs(self._children) do self[f]:reset() end
  self:_xavier()
  return self
end

function Transformer:__tostring__()
  return string.format('nn.Transformer(%d, %d heads, %d encoder and %d decoder layers)', self.dModel, self.nHead,
    self.encoder.numLayers, self.decoder.numLayers)
end

return Transformer
