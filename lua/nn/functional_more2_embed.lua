-- nn.functional.embedding and embeddingBag with the rest of PyTorch's options (maxNorm, normType,
-- scaleGradByFreq, includeLastOffset): the lookups stay functional_act.lua's embedding and
-- EmbeddingBag.lua's embeddingBag, called as before for every call without the new options.
-- sparse = true gathers the rows through torch.sparse._grad.gatherRows, so the weight's gradient
-- is a SparseTensor of the rows used (Note [Sparse embedding gradients] in nn/LookupTable.lua).
require 'nn.functional_act'
local G = require 'torch.sparse_grad'
local A = require 'nn.functional_args'
local F = nn.functional
local fail = A.fail
local name = 'nn.functional.embedding'
local lookup = F._embeddingLookup or F.embedding
F._embeddingLookup = lookup  -- the plain lookup, kept if this file is loaded again

local known = { paddingIdx = true, maxNorm = true, normType = true, scaleGradByFreq = true, sparse = true }

-- The lookup of F.embedding with a sparse gradient for w (checks as the plain lookup's).
local function sparse_lookup(idx, w, pad)
  if w:dim() ~= 2 then fail(name, 'weight must be 2-D (num x dim), got size %s', A.shape(w)) end
  local flat = idx:contiguous():view(-1)
  if flat:nElement() > 0 and (flat:min() < 1 or flat:max() > w:size(1)) then
    fail(name, 'index out of range: weight has %d rows, indices span [%d, %d]', w:size(1), flat:min(), flat:max())
  end
  if pad ~= nil then
    A.int(name, pad, 'paddingIdx')
    if pad == 0 or pad > w:size(1) or pad < -w:size(1) then fail(name, 'paddingIdx %d out of range for %d rows', pad, w:size(1)) end
    if pad < 0 then pad = pad + w:size(1) + 1 end
  end
  local rows = G.gatherRows(w, flat:to(w:device()), pad)
  local size = idx:dim() == 0 and {} or idx:size():totable()
  size[#size + 1] = w:size(2)
  return rows:view(torch.LongStorage(size))
end

--- nn.functional.embedding(indices, weight [, paddingIdx] [, maxNorm] [, normType = 2]
--- [, scaleGradByFreq = false] [, sparse = false]): the rows of weight (num x dim) picked by a
--- LongTensor of 1-based indices, shaped indices' size x dim; the optional arguments may also be one
--- table {paddingIdx=, maxNorm=, normType=, scaleGradByFreq=}. Rows at paddingIdx get no gradient;
--- with maxNorm, each referenced row whose normType-norm exceeds maxNorm is first rescaled in place
--- to maxNorm / (norm + 1e-7) of itself (outside autograd, as PyTorch); scaleGradByFreq divides
--- each row's gradient by how often its index occurs in indices. sparse = true gives weight a
--- sparse gradient (weight.grad a SparseTensor of the rows used, padding rows left out) under
--- backward; torch.autograd.grad still returns a dense one.
--- Example: nn.functional.embedding(torch.LongTensor({1, 3}), torch.randn(4, 2), {maxNorm = 1})
function F.embedding(idx, w, paddingIdx, maxNorm, normType, scaleGradByFreq, sparse)
  if type(paddingIdx) == 'table' then
    if maxNorm ~= nil then fail(name, 'options come either as one table or as positional arguments') end
    local o = A.opts(name, paddingIdx, known)
    paddingIdx, maxNorm, normType, scaleGradByFreq, sparse = o.paddingIdx, o.maxNorm, o.normType, o.scaleGradByFreq, o.sparse
  end
  if maxNorm == nil and normType == nil and not scaleGradByFreq and not sparse then
    return lookup(idx, w, paddingIdx)
  end
  A.long(name, idx, 'indices')
  A.float(name, w, 'a weight')
  maxNorm = A.number(name, maxNorm, 'maxNorm')
  normType = A.number(name, normType, 'normType', 2)
  scaleGradByFreq = A.bool(name, scaleGradByFreq, 'scaleGradByFreq', false)
  sparse = A.bool(name, sparse, 'sparse', false)
  -- (NaN refused too: every norm compares false with it, and the rows became NaN)
  if maxNorm ~= nil and not (maxNorm >= 0) then fail(name, 'maxNorm must be non-negative, got %g', maxNorm) end
  if maxNorm ~= nil and w:dim() == 2 then
    -- validate the indices and paddingIdx before touching the weight (a bad paddingIdx, found by
    -- the lookup, left the rows renormalized)
    if paddingIdx ~= nil then
      A.int(name, paddingIdx, 'paddingIdx')
      if paddingIdx == 0 or paddingIdx > w:size(1) or paddingIdx < -w:size(1) then
        fail(name, 'paddingIdx %d out of range for %d rows', paddingIdx, w:size(1))
      end
    end
    local flat = idx:contiguous():view(-1)
    if flat:nElement() > 0 and (flat:min() < 1 or flat:max() > w:size(1)) then
      fail(name, 'index out of range: weight has %d rows, indices span [%d, %d]', w:size(1), flat:min(), flat:max())
    end
    if flat:nElement() > 0 then
      torch.noGrad(function()
        local rows = torch.unique(flat)
        local sel = w:index(1, rows)
        local norms = torch.norm(sel, normType, 2):view(-1)
        local scale = torch.cdiv(torch.mul(norms, 0):add(maxNorm), torch.add(norms, 1e-7))
        scale:maskedFill(torch.le(norms, maxNorm), 1)
        w:indexCopy(1, rows, torch.cmul(sel, scale:view(-1, 1):expandAs(sel)))
      end)
    end
  end
  local out
  if sparse then out = sparse_lookup(idx, w, paddingIdx) else out = lookup(idx, w, paddingIdx) end
  if scaleGradByFreq and idx:nElement() > 0 then
    -- Note [Gradient scaled by frequency]: out = d + (out - d) * s with d = out detached and s =
    -- 1 / count(index): the values are out's, the gradient reaching weight is divided by the count.
    local flat = idx:contiguous():view(-1)
    local _, inv, counts = torch.unique(flat, { returnInverse = true, returnCounts = true })  -- rows used only
    local s = torch.pow(counts:index(1, inv:view(-1)):typeAs(out), -1)
    local size = out:size()
    local o2 = out:view(flat:size(1), -1)
    local d = o2:detach()
    out = torch.add(d, torch.cmul(torch.csub(o2, d), s:view(-1, 1):expandAs(o2))):view(size)
  end
  return out
end

-- ---- embeddingBag ------------------------------------------------------------------------------

require 'nn.EmbeddingBag'
local bagName = 'nn.functional.embeddingBag'
local bag = F._embeddingBagBase or F.embeddingBag
F._embeddingBagBase = bag
local sparse_bag  -- below
local bagKnown = { mode = true, perSampleWeights = true, paddingIdx = true, maxNorm = true, normType = true,
                   scaleGradByFreq = true, sparse = true, includeLastOffset = true }

-- Rows of w referenced by flat whose normType-norm exceeds maxNorm rescaled in place (PyTorch's
-- embedding_renorm_: outside autograd, by maxNorm / (norm + 1e-7)).
local function renorm(flat, w, maxNorm, normType)
  if flat:nElement() == 0 then return end
  torch.noGrad(function()
    local rows = torch.unique(flat:to(w:device()))
    local sel = w:index(1, rows)
    local norms = torch.norm(sel, normType, 2):view(-1)
    local scale = torch.cdiv(torch.mul(norms, 0):add(maxNorm), torch.add(norms, 1e-7))
    scale:maskedFill(torch.le(norms, maxNorm), 1)
    w:indexCopy(1, rows, torch.cmul(sel, scale:view(-1, 1):expandAs(sel)))
  end)
end

-- w with the gradient of each row divided by the number of times flat references it (values
-- unchanged: Note [Gradient scaled by frequency]).
local function freq_scaled(flat, w)
  local f = flat:to(w:device())
  local counts = f.new(w:size(1)):zero():indexAdd(1, f, f.new(f:size(1)):fill(1))
  local s = torch.pow(torch.clamp(counts, 1, math.huge):typeAs(w), -1):view(-1, 1):expandAs(w)
  local d = w:detach()
  return torch.add(d, torch.cmul(torch.csub(w, d), s))
end

-- embeddingBag with a sparse gradient for w: the bags are taken over sub, the rows used (u, sorted
-- unique) gathered by gatherRows, with the indices renumbered into sub; the padding row keeps no
-- gradient (it is left out of the bags, and gatherRows leaves it out of the sparse gradient).
sparse_bag = function(idx, flat, w, offsets, o, byFreq)
  local pad = A.int(bagName, o.paddingIdx, 'paddingIdx')
  if pad and (pad < -w:size(1) or pad == 0 or pad > w:size(1)) then
    fail(bagName, 'paddingIdx %d out of range for %d embeddings', pad, w:size(1))
  end
  if pad and pad < 0 then pad = pad + w:size(1) + 1 end
  local cpu = flat.p.device_type ~= 0 and flat:to('cpu') or flat
  local u, inv = torch.unique(cpu, { returnInverse = true })
  local sub = G.gatherRows(w, u:to(w:device()), pad)
  if byFreq then sub = freq_scaled(inv:view(-1), sub) end
  local subPad
  if pad then
    local at = torch.nonzero(torch.eq(u, pad)):view(-1)
    if at:nElement() > 0 then subPad = at[1] end
  end
  return bag(inv:viewAs(idx), sub, offsets, { mode = o.mode, perSampleWeights = o.perSampleWeights, paddingIdx = subPad,
    sparse = true })
end

--- nn.functional.embeddingBag(indices, weight [, offsets] [, {mode = 'mean', perSampleWeights =,
--- paddingIdx =, maxNorm =, normType = 2, scaleGradByFreq = false, includeLastOffset = false}]): one
--- row per bag: the sum, mean or max of the weight rows (num x dim) that the bag's 1-based indices
--- pick. indices is B x L (each row a bag; offsets nil) or 1-D with offsets, the 1-based start of each
--- bag (increasing; a bag runs to the next start, the last to the end, or with includeLastOffset the
--- last offset is the end of the last bag, PyTorch's include_last_offset). perSampleWeights (like
--- indices) scale the rows (mode 'sum' only). Entries equal to paddingIdx are left out (and not
--- counted by 'mean'); an empty bag gives zeros. maxNorm rescales the referenced rows in place first
--- (as embedding); scaleGradByFreq divides each row's gradient by its count in indices (not with
--- 'max', as PyTorch). sparse = true gives weight a sparse gradient of the rows used (weight.grad
--- a SparseTensor, padding row left out) under backward.
--- Example: nn.functional.embeddingBag(torch.LongTensor({1, 2, 4}), torch.randn(5, 3), torch.LongTensor({1, 3, 4}), {mode = 'sum', includeLastOffset = true})
function F.embeddingBag(idx, w, offsets, o)
  if type(offsets) == 'table' and not torch.isTensor(offsets) then offsets, o = nil, offsets end
  if type(o) ~= 'table' or (o.maxNorm == nil and o.normType == nil and o.scaleGradByFreq == nil and o.sparse == nil
                            and o.includeLastOffset == nil) then
    return bag(idx, w, offsets, o)
  end
  -- (a copy: includeLastOffset narrows perSampleWeights, which must not change the caller's table)
  local copy = {}
  for k, v in pairs(A.opts(bagName, o, bagKnown)) do copy[k] = v end
  o = copy
  A.long(bagName, idx, 'indices')
  A.float(bagName, w, 'a weight')
  local sparse = A.bool(bagName, o.sparse, 'sparse', false)
  local maxNorm = A.number(bagName, o.maxNorm, 'maxNorm')
  local normType = A.number(bagName, o.normType, 'normType', 2)
  local byFreq = A.bool(bagName, o.scaleGradByFreq, 'scaleGradByFreq', false)
  if maxNorm ~= nil and not (maxNorm >= 0) then fail(bagName, 'maxNorm must be non-negative, got %g', maxNorm) end
  if byFreq and o.mode == 'max' then fail(bagName, "scaleGradByFreq does not go with mode 'max' (as PyTorch)") end
  if A.bool(bagName, o.includeLastOffset, 'includeLastOffset', false) then
    if offsets == nil or idx:dim() ~= 1 then fail(bagName, 'includeLastOffset needs 1-D indices and offsets') end
    A.long(bagName, offsets, 'offsets')
    local n, B = idx:size(1), offsets:nElement()
    local last = B > 0 and offsets:view(-1)[B] or nil
    if B < 2 or last < 1 or last > n + 1 then
      fail(bagName, 'with includeLastOffset, offsets needs 2+ entries, the last (the end) in [1, %d], got %s', n + 1,
        B > 0 and tostring(last) or 'none')
    end
    -- the last offset ends the last bag: the indices after it are not in any bag
    idx = idx:narrow(1, 1, last - 1)
    if o.perSampleWeights ~= nil then o.perSampleWeights = o.perSampleWeights:narrow(1, 1, last - 1) end
    offsets = offsets:narrow(1, 1, B - 1)
  end
  local flat = idx:contiguous():view(-1)
  if flat:nElement() > 0 and (flat:min() < 1 or flat:max() > w:size(1)) then
    fail(bagName, 'index out of range: weight has %d rows, indices span [%d, %d]', w:size(1), flat:min(), flat:max())
  end
  if maxNorm ~= nil and w:dim() == 2 then
    -- the bag's own checks (mode, offsets, perSampleWeights, paddingIdx) first, on a weight of no
    -- columns, so that an error leaves the weight as it was
    torch.noGrad(function()
      bag(idx, w.new(w:size(1), 0), offsets, { mode = o.mode, perSampleWeights = o.perSampleWeights,
        paddingIdx = o.paddingIdx })
    end)
    renorm(flat, w, maxNorm, normType)
  end
  if sparse and w:dim() == 2 and flat:nElement() > 0 then return sparse_bag(idx, flat, w, offsets, o, byFreq) end
  local wUse = byFreq and w:dim() == 2 and freq_scaled(flat, w) or w
  return bag(idx, wUse, offsets, { mode = o.mode, perSampleWeights = o.perSampleWeights, paddingIdx = o.paddingIdx,
    sparse = sparse or nil })
end
