-- nn.EmbeddingBag(numEmbeddings, embeddingDim [, {mode = 'mean', paddingIdx =, sparse =, maxNorm =,
-- normType = 2, scaleGradByFreq = false, includeLastOffset = false}]) and
-- nn.functional.embeddingBag: PyTorch's EmbeddingBag: sums, means or maxes of bags of embedding
-- rows without building the rows' tensor per bag. Made of recorded ops (index, indexAdd, max),
-- so the gradient reaches the weight (and perSampleWeights) through autograd. sparse = true
-- makes the weight's gradient a SparseTensor of the rows used (Note [Sparse embedding gradients]
-- in nn/LookupTable.lua).
local A = require 'nn.functional_args'
local G = require 'torch.sparse_grad'
nn.functional = nn.functional or {}
local F = nn.functional
local EB, parent = torch.class('nn.EmbeddingBag', 'nn.Module')
local known = { mode = true, perSampleWeights = true, paddingIdx = true, sparse = true }  -- sparse: the full form's (functional_more2_embed.lua)
local modes = { sum = true, mean = true, max = true }
local long_arg = A.long

--- nn.functional.embeddingBag(indices, weight [, offsets] [, {mode = 'mean', perSampleWeights =,
--- paddingIdx =}]) (the base form; functional_more2_embed.lua adds the other options): one row per bag: the sum, mean or max of the weight rows (num x dim) that the
--- bag's 1-based indices pick. indices is B x L (each row a bag; offsets nil) or 1-D with offsets,
--- the 1-based start of each bag in indices (increasing; a bag runs to the next start, the last
--- to the end). perSampleWeights (like indices) scale the rows (mode 'sum' only). Entries equal to
--- paddingIdx are left out (and not counted by 'mean'); an empty bag gives zeros.
function F.embeddingBag(idx, w, offsets, o)
  local op = 'embeddingBag'
  long_arg(op, idx, 'indices')
  A.float(op, w, 'a weight')
  if w:dim() ~= 2 then A.fail(op, 'weight must be 2-D (num x dim), got size %s', A.shape(w)) end
  if type(offsets) == 'table' and not torch.isTensor(offsets) then offsets, o = nil, offsets end
  o = A.opts(op, o, known)
  local mode = o.mode or 'mean'
  if not modes[mode] then A.fail(op, "mode must be 'sum', 'mean' or 'max', got %s", tostring(mode)) end
  local psw, pad = o.perSampleWeights, A.int(op, o.paddingIdx, 'paddingIdx')
  if pad then  -- PyTorch's range: negative counts from the end
    if pad < -w:size(1) or pad == 0 or pad > w:size(1) then
      A.fail(op, 'paddingIdx %d out of range for %d embeddings', pad, w:size(1))
    end
    if pad < 0 then pad = pad + w:size(1) + 1 end
  end
  -- the bookkeeping (bags, padding, ranges) runs on CPU copies of the indices; the rows are
  -- gathered and reduced on the weight's device
  local on_cpu = function(t) return t.p.device_type ~= 0 and t:to('cpu') or t end
  idx = on_cpu(idx)
  local flat, B, bag
  if idx:dim() == 2 then
    if offsets ~= nil then A.fail(op, 'offsets only go with 1-D indices (2-D indices are B x L bags)') end
    B = idx:size(1)
    flat = idx:contiguous():view(-1)
    bag = torch.range(1, B):long():view(B, 1):expand(B, idx:size(2)):contiguous():view(-1)
  elseif idx:dim() == 1 then
    if offsets == nil then A.fail(op, '1-D indices need offsets (the 1-based start of each bag)') end
    long_arg(op, offsets, 'offsets')
    if offsets:dim() ~= 1 then A.fail(op, 'offsets must be 1-D, got size %s', A.shape(offsets)) end
    B, flat = offsets:size(1), idx
    local n = idx:size(1)
    local off = on_cpu(offsets)
    bag = torch.LongTensor(n)
    local b = 0
    for k = 1, B do
      local s, e = off[k], k < B and off[k + 1] - 1 or n
      if s < 1 or s > n + 1 or e < s - 1 or e > n or (k == 1 and s ~= 1) then
        A.fail(op, 'offsets must start at 1 and increase within [1, %d], got %s', n + 1,
          table.concat(offsets:totable(), ', '))
      end
      for i = s, e do bag[i] = k end
      b = e
    end
    if b ~= n and B > 0 then A.fail(op, 'offsets do not cover the %d indices', n) end
    if B == 0 and n > 0 then A.fail(op, 'no offsets for %d indices', n) end
  else
    A.fail(op, 'indices must be 1-D (with offsets) or 2-D (B x L), got size %s', A.shape(idx))
  end
  local n = flat:nElement()
  if n > 0 and (flat:min() < 1 or flat:max() > w:size(1)) then
    A.fail(op, 'index out of range: weight has %d rows, indices span [%d, %d]', w:size(1), flat:min(), flat:max())
  end
  if psw ~= nil then
    A.float(op, psw, 'perSampleWeights')
    if mode ~= 'sum' then A.fail(op, "perSampleWeights only go with mode 'sum'") end
    if psw:nElement() ~= n then A.fail(op, 'perSampleWeights has %d elements for %d indices', psw:nElement(), n) end
  end
  local D = w:size(2)
  local dev = function(t) return w.p.device_type ~= 0 and t:to(w:device()) or t end
  local keep = pad and torch.ne(flat, pad) or nil
  if keep and n > 0 then  -- leave the padding entries out
    local pos = torch.range(1, n):long()[keep:byte()]
    if pos:nElement() < n then
      flat, bag = flat:index(1, pos), bag:index(1, pos)
      if psw then psw = torch.index(psw:contiguous():view(-1), 1, dev(pos)) end
      n = flat:nElement()
    end
  end
  if n == 0 then
    -- zeros in w's graph, as PyTorch's (a fresh tensor left y:sum():backward() failing); with a
    -- sparse gradient, plain zeros: a dense zero gradient would replace the sparse one (with no
    -- entries) that SparseAdam takes
    if o.sparse then return w.new(B, D):zero() end
    local none = torch.index(w, 1, dev(torch.LongTensor(0)))
    return torch.sum(none, 1):view(1, D):expand(B, D):contiguous()
  end
  local rows = torch.index(w, 1, dev(flat))
  if mode == 'max' then
    local parts, k = {}, 1
    local zero = w.new(1, D):zero()
    for b = 1, B do
      local s = k
      while k <= n and bag[k] == b do k = k + 1 end
      parts[b] = k > s and torch.max(rows:narrow(1, s, k - s), 1) or zero
    end
    return torch.cat(parts, 1)
  end
  if psw then rows = torch.cmul(rows, psw:contiguous():view(n, 1)) end
  local out = torch.indexAdd(w.new(B, D):zero(), 1, dev(bag), rows)
  if mode == 'mean' then
    local count = torch.zeros(B):double():indexAdd(1, bag, torch.ones(n):double()):clamp(1, math.huge)
    out = torch.cdiv(out, dev(count:typeAs(w):view(B, 1)):expandAs(out))
  end
  return out
end

function EB:__init(num, dim, opts)
  parent.__init(self)
  local name = 'nn.EmbeddingBag'
  local checked = { num, dim }
  for k = 1, 2 do  -- not ipairs: it stops at a missing (nil) argument
    local v = checked[k]
    if type(v) ~= 'number' or v < 1 or v ~= math.floor(v) then
      A.fail(name, 'expected positive numEmbeddings and embeddingDim, got %s and %s', tostring(num), tostring(dim))
    end
  end
  opts = A.opts(name, opts, { mode = true, paddingIdx = true, sparse = true, maxNorm = true, normType = true,
    scaleGradByFreq = true, includeLastOffset = true })
  self.sparse = A.bool(name, opts.sparse, 'sparse', false)
  -- PyTorch's remaining options, checked and applied by nn.functional.embeddingBag
  -- (nn/functional_more2_embed.lua) at each forward
  self.maxNorm = A.number(name, opts.maxNorm, 'maxNorm')
  self.normType = A.number(name, opts.normType, 'normType', 2)
  self.scaleGradByFreq = A.bool(name, opts.scaleGradByFreq, 'scaleGradByFreq', false) or nil
  self.includeLastOffset = A.bool(name, opts.includeLastOffset, 'includeLastOffset', false) or nil
  self.mode = opts.mode or 'mean'
  if not modes[self.mode] then A.fail(name, "mode must be 'sum', 'mean' or 'max', got %s", tostring(self.mode)) end
  self.paddingIdx = A.int(name, opts.paddingIdx, 'paddingIdx')
  if self.paddingIdx then  -- PyTorch's range; a negative index counts from the end (stored 1-based)
    if self.paddingIdx < -num or self.paddingIdx == 0 or self.paddingIdx > num then
      A.fail(name, 'paddingIdx %d out of range for %d embeddings', self.paddingIdx, num)
    end
    if self.paddingIdx < 0 then self.paddingIdx = self.paddingIdx + num + 1 end
  end
  self.weight = torch.Tensor(num, dim)
  if self.sparse then self.gradWeight = G.new(self.weight)  -- no dense num x dim gradient
  else self.gradWeight = torch.Tensor(num, dim):zero() end
  self:reset()
end

--- m:reset(): weights from N(0, 1) (PyTorch's initialization), the padding row zeroed.
function EB:reset()
  self.weight:normal(0, 1)
  if self.paddingIdx then self.weight[self.paddingIdx]:zero() end
  self.gradWeight:zero()
  nn.utils.linkGradients(self)
  return self
end

--- m:updateOutput(input): input is a B x L LongTensor (one bag per row) or {indices, offsets
--- [, perSampleWeights]} (see nn.functional.embeddingBag); returns B x embeddingDim.
function EB:updateOutput(input)
  local idx, off, psw = input, nil, nil
  if type(input) == 'table' and not torch.isTensor(input) then idx, off, psw = input[1], input[2], input[3] end
  if self.maxNorm or self.scaleGradByFreq or self.includeLastOffset then
    require 'nn.functional_more2_embed'  -- the full nn.functional.embeddingBag (it requires this file)
  end
  self.output = require('nn.functional_pool').call(self, F.embeddingBag, idx, self.weight, off,
    { mode = self.mode, perSampleWeights = psw, paddingIdx = self.paddingIdx, sparse = self.sparse or nil,
      maxNorm = self.maxNorm, normType = self.maxNorm and self.normType or nil, scaleGradByFreq = self.scaleGradByFreq,
      includeLastOffset = self.includeLastOffset })
  return self.output
end

--- m:setSparse([flag = true]): the weight's gradient becomes a SparseTensor of the rows used (true)
--- or the dense gradWeight again (false); what was accumulated is kept. Returns m.
--- Example: nn.EmbeddingBag(10, 3, {mode = 'sum'}):setSparse()
function EB:setSparse(flag)
  return nn.LookupTable.setSparse(self, flag)
end

-- Registers the sparse gradient for the current weight (Note [Sparse embedding gradients]), as
-- nn.LookupTable does (its parent, too, is nn.Module).
function EB:parameters() return nn.LookupTable.parameters(self) end

-- The sparse Torch7 path: the module is differentiated through autograd, and torch.autograd.grad
-- (the replay's) returns dense tensors, so a sparse module runs its forward again and a plain
-- backward into a fresh sparse gradient (G.capture), added times scale. perSampleWeights, whose
-- gradient is gradInput, and calls inside torch.autograd.grad take the replay (correct, dense).
local function sparse_ready(self, input)
  return self.sparse and self.gradWeight and torch.autograd._gradDepth == 0
    and not (type(input) == 'table' and not torch.isTensor(input) and input[3] ~= nil)
end

function EB:accGradParameters(input, gradOutput, scale)
  if not sparse_ready(self, input) then return parent.accGradParameters(self, input, gradOutput, scale) end
  scale = scale or 1
  local tmp = G.capture(self.weight, function()
    local out = torch.enableGrad(self.updateOutput, self, input)
    if out:needsGrad() then torch.enableGrad(function() out:backward(gradOutput) end) end
  end)
  G.accumulate(self.gradWeight, tmp._indices[1], scale == 1 and tmp._values or tmp._values:mul(scale), true)
end

function EB:backward(input, gradOutput, scale)
  if not sparse_ready(self, input) or self._frozen then return parent.backward(self, input, gradOutput, scale) end
  self:accGradParameters(input, gradOutput, scale)
  local function zeros(x)  -- indices and offsets get no gradient
    if torch.isTensor(x) then return x.new():resize(x:size()):zero() end
    local r = {}
    for i, v in ipairs(x) do r[i] = zeros(v) end
    return r
  end
  self.gradInput = zeros(input)
  return self.gradInput
end

-- A sparse module's zeroGradParameters also clears a dense part of the weight's gradient (a tied
-- dense layer's, Note [Sparse and dense contributions] in torch/sparse_grad.lua); nn.LookupTable's.
function EB:zeroGradParameters() return nn.LookupTable.zeroGradParameters(self) end

-- A sparse gradient converts its values only (nn.LookupTable._sparseAwareType).
function EB:type(name_, cache)
  if not name_ then return parent.type(self) end
  return nn.LookupTable._sparseAwareType(self, name_, cache)
end

function EB:__tostring__()
  return string.format('nn.EmbeddingBag(%d, %d, %s%s%s)', self.weight:size(1), self.weight:size(2), self.mode,
    self.paddingIdx and ', paddingIdx ' .. self.paddingIdx or '', self.sparse and ', sparse' or '')
end

return EB
