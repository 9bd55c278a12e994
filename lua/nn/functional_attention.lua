-- nn.functional.scaledDotProductAttention: PyTorch 2.x's scaled_dot_product_attention as recorded
-- ops (matmul, softmax, dropout), so differentiable in q, k, v and a float mask on any device.
require 'nn.functional_act'
local A = require 'nn.functional_args'
local lib = require 'torch.lib'
nn.functional = nn.functional or {}
local F = nn.functional
local fail = A.fail
local NAME = 'nn.functional.scaledDotProductAttention'  -- Note [Functional error names] (functional_extra.lua)

-- Note [Attention mask convention]: as PyTorch's scaled_dot_product_attention, a boolean mask
-- (ByteTensor/BoolTensor) marks the positions to KEEP (true = attend); nn.MultiHeadAttention follows
-- nn.MultiheadAttention's opposite convention (true = masked out). A float mask is added to the
-- scores. A row with no position kept softmaxes all -inf scores and gives NaN, as PyTorch 2.0.

-- The mask as an additive term broadcastable to scores (... x L x S), checked.
local function additive(mask, scores, q)
  A.tensor(NAME, mask, 'attnMask')
  if mask:device() ~= q:device() then
    fail(NAME, 'attnMask is on %s but the query on %s', tostring(mask:device()), tostring(q:device()))
  end
  local ok = mask:dim() <= scores:dim() and mask:dim() > 0
  for i = 1, mask:dim() do
    local m, s = mask:size(mask:dim() - i + 1), scores:size(scores:dim() - i + 1)
    if ok and m ~= s and m ~= 1 then ok = false end
  end
  if not ok then
    fail(NAME, 'attnMask of size %s does not broadcast to the scores of size %s', A.shape(mask), A.shape(scores))
  end
  local dt = mask.p.dtype
  if dt == lib.dtype.u8 or dt == lib.dtype.bool then
    return scores.new(mask:size()):zero():maskedFill(torch.eq(mask, 0), -math.huge)
  end
  if not nn.utils.isFloating(mask) then
    fail(NAME, 'attnMask must be boolean (Byte/Bool) or floating, got %s', torch.type(mask))
  end
  return A.like(mask, q)
end

--- nn.functional.scaledDotProductAttention(q, k, v [, {attnMask, dropoutP = 0, isCausal = false,
--- scale = 1/sqrt(E)}]): softmax(q k^T * scale + mask) v over the last two dims (q ... x L x E,
--- k ... x S x E, v ... x S x Ev; leading dims broadcast), PyTorch 2.x's function. attnMask: boolean,
--- true = attend (Note [Attention mask convention]), or float, added; isCausal keeps key j <= query i.
--- dropoutP > 0 drops attention weights (always, as PyTorch: pass 0 when evaluating).
--- Example: nn.functional.scaledDotProductAttention(torch.randn(2, 3, 4), torch.randn(2, 5, 4), torch.randn(2, 5, 6), {isCausal = true}):size()
function F.scaledDotProductAttention(q, k, v, opts)
  A.float(NAME, q, 'a query')
  A.float(NAME, k, 'a key')
  A.float(NAME, v, 'a value')
  opts = A.opts(NAME, opts, { attnMask = true, dropoutP = true, isCausal = true, scale = true })
  -- as PyTorch ("query, key and value must have the same dtype"); matmul's error named matmul
  if torch.type(k) ~= torch.type(q) or torch.type(v) ~= torch.type(q) then
    fail(NAME, 'query, key and value must have the same type, got %s, %s and %s', torch.type(q), torch.type(k),
      torch.type(v))
  end
  for _, t in ipairs({ { q, 'query' }, { k, 'key' }, { v, 'value' } }) do
    if t[1]:dim() < 2 then fail(NAME, 'the %s must have at least 2 dims (... x length x dim), got size %s', t[2],
      A.shape(t[1])) end
  end
  local nq, nk, nv = q:dim(), k:dim(), v:dim()
  local e, l, s = q:size(nq), q:size(nq - 1), k:size(nk - 1)
  if k:size(nk) ~= e or v:size(nv - 1) ~= s then
    fail(NAME, 'query %s, key %s and value %s do not fit (need ... x L x E, ... x S x E, ... x S x Ev)', A.shape(q),
      A.shape(k), A.shape(v))
  end
  local p = A.number(NAME, opts.dropoutP, 'dropoutP', 0)
  if not (p >= 0 and p <= 1) then fail(NAME, 'dropoutP must be in [0, 1], got %g', p) end
  local causal = A.bool(NAME, opts.isCausal, 'isCausal', false)
  if causal and opts.attnMask ~= nil then fail(NAME, 'give attnMask or isCausal, not both') end
  local scale = A.number(NAME, opts.scale, 'scale', 1 / math.sqrt(e))
  local scores = torch.mul(torch.matmul(q, k:transpose(nk - 1, nk)), scale)
  if causal then
    scores = torch.add(scores, q.new(l, s):fill(-math.huge):triu(1))
  elseif opts.attnMask ~= nil then
    scores = torch.add(scores, additive(opts.attnMask, scores, q))
  end
  local attn = torch.softmax(scores, scores:dim())
  if p > 0 then attn = F.dropout(attn, p, true) end
  return torch.matmul(attn, v)
end

return F
