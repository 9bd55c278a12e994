-- nn.functional.multiHeadAttentionForward: PyTorch's multi_head_attention_forward, the computation
-- of nn.MultiheadAttention on explicit weights: nn.MultiHeadAttention's own recorded ops
-- (MHA._compute) run on a table holding the given tensors, so the functional and the module agree
-- exactly and are differentiable in every tensor argument.
local P = require 'nn.pytorch_names_args'
local lib = require 'torch.lib'
require 'nn.MultiHeadAttention'
nn.functional = nn.functional or {}
local F = nn.functional
local NAME = 'nn.functional.multiHeadAttentionForward'

local NAMES = { 'query', 'key', 'value', 'embedDimToCheck', 'numHeads', 'inProjWeight', 'inProjBias', 'biasK', 'biasV',
  'addZeroAttn', 'dropoutP', 'outProjWeight', 'outProjBias', 'training', 'keyPaddingMask', 'needWeights', 'attnMask',
  'useSeparateProjWeight', 'qProjWeight', 'kProjWeight', 'vProjWeight', 'staticK', 'staticV', 'averageAttnWeights' }

local function tensor_or_nil(name, v)
  if v ~= nil and v ~= false and not torch.isTensor(v) then lib.fail(NAME, 'expected %s to be a tensor, got %s', name, nn.utils.describe(v)) end
  return v or nil
end

--- nn.functional.multiHeadAttentionForward(query, key, value, embedDimToCheck, numHeads, inProjWeight,
--- inProjBias, biasK, biasV, addZeroAttn, dropoutP, outProjWeight, outProjBias [, {training = true,
--- keyPaddingMask, needWeights = true, attnMask, useSeparateProjWeight = false, qProjWeight,
--- kProjWeight, vProjWeight, averageAttnWeights = true}]): PyTorch's multi_head_attention_forward on
--- L x N x E query and S x N x E key/value (or unbatched L x E); returns the output and the
--- attention weights (nil unless needWeights). Masks as nn.MultiheadAttention's (boolean true =
--- masked out, or additive). biasK/biasV (1 x 1 x E, both or neither) and addZeroAttn append a key
--- and value as addBiasKv/addZeroAttn do (Note [Attention extra keys]); staticK/V are not supported.
--- Example: local x = torch.randn(3, 2, 4) print(nn.functional.multiHeadAttentionForward(x, x, x, 4, 2, torch.randn(12, 4), torch.zeros(12), nil, nil, false, 0, torch.randn(4, 4), torch.zeros(4)))
function F.multiHeadAttentionForward(...)
  local o = P.parse(NAME, NAMES, ...)
  for _, n in ipairs({ 'query', 'key', 'value', 'outProjWeight' }) do
    if not torch.isTensor(o[n]) then lib.fail(NAME, 'expected %s to be a tensor, got %s', n, nn.utils.describe(o[n])) end
  end
  for _, n in ipairs({ 'staticK', 'staticV' }) do
    if o[n] ~= nil and o[n] ~= false then lib.fail(NAME, '%s is not supported (give nil)', n) end
  end
  local E = P.int(NAME, 'embedDimToCheck', o.embedDimToCheck)
  local bk, bv = tensor_or_nil('biasK', o.biasK), tensor_or_nil('biasV', o.biasV)
  if (bk == nil) ~= (bv == nil) then lib.fail(NAME, 'give both biasK and biasV, or neither') end
  for _, b in ipairs({ { 'biasK', bk }, { 'biasV', bv } }) do
    if b[2] and b[2]:nElement() ~= E then
      lib.fail(NAME, 'expected %s of size 1x1x%d, got %s', b[1], E, nn.utils.describe(b[2]))
    end
  end
  local h = P.int(NAME, 'numHeads', o.numHeads)
  local q = o.query
  if q:size(q:dim()) ~= E then lib.fail(NAME, 'expected query of embedding size %d, got %s', E, nn.utils.describe(q)) end
  if E % h ~= 0 then lib.fail(NAME, 'embedDimToCheck (%d) must be divisible by numHeads (%d)', E, h) end
  local p = P.number(NAME, 'dropoutP', o.dropoutP, 0)
  if p < 0 or p >= 1 then lib.fail(NAME, 'dropoutP must be in [0, 1), got %g', p) end
  local separate = P.bool(NAME, 'useSeparateProjWeight', o.useSeparateProjWeight, false)
  local state = setmetatable({
    embedDim = E, numHeads = h, headDim = E / h, batchFirst = false, dropout = p,
    train = P.bool(NAME, 'training', o.training, true),
    needWeights = P.bool(NAME, 'needWeights', o.needWeights, true),
    averageAttnWeights = P.bool(NAME, 'averageAttnWeights', o.averageAttnWeights, true),
    in_proj_bias = tensor_or_nil('inProjBias', o.inProjBias),
    outProj = { weight = o.outProjWeight, bias = tensor_or_nil('outProjBias', o.outProjBias) },
    bias_k = bk and bk:view(1, 1, E), bias_v = bv and bv:view(1, 1, E),
    addZeroAttn = P.bool(NAME, 'addZeroAttn', o.addZeroAttn or nil, false),
  }, { __tostring = function() return NAME end })
  local function check_w(name, w, rows, cols)
    if not torch.isTensor(w) or w:dim() ~= 2 or w:size(1) ~= rows or w:size(2) ~= cols then
      lib.fail(NAME, 'expected %s of size %dx%d, got %s', name, rows, cols, nn.utils.describe(w))
    end
  end
  if separate then
    check_w('qProjWeight', o.qProjWeight, E, E)
    check_w('kProjWeight', o.kProjWeight, E, o.key:size(o.key:dim()))
    check_w('vProjWeight', o.vProjWeight, E, o.value:size(o.value:dim()))
    state.q_proj_weight, state.k_proj_weight, state.v_proj_weight = o.qProjWeight, o.kProjWeight, o.vProjWeight
  else
    check_w('inProjWeight', o.inProjWeight, 3 * E, E)
    state.in_proj_weight = o.inProjWeight
  end
  check_w('outProjWeight', o.outProjWeight, E, E)
  if state.in_proj_bias and state.in_proj_bias:nElement() ~= 3 * E then
    lib.fail(NAME, 'expected inProjBias of %d elements, got %s', 3 * E, nn.utils.describe(state.in_proj_bias))
  end
  local k, v = o.key, o.value
  if k:dim() ~= q:dim() or v:dim() ~= q:dim() or (q:dim() ~= 2 and q:dim() ~= 3) then
    lib.fail(NAME, 'expected query, key and value all L x N x E (or all unbatched), got %s, %s and %s',
      nn.utils.describe(q), nn.utils.describe(k), nn.utils.describe(v))
  end
  local out, weights = nn.MultiHeadAttention._compute(state, q, k, v, o.keyPaddingMask, o.attnMask, nil)
  return out, weights
end

return F
