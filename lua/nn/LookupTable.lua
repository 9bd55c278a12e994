-- nn.LookupTable(nIndex, nOutput[, paddingValue, maxNorm, normType][, {sparse = false}]): row
-- lookup in an nIndex x nOutput weight for a vector of indices (-> n x nOutput) or a batch
-- (-> N x n x nOutput). Rows of paddingValue get no gradient; with maxNorm, looked-up rows are
-- renormalised in place. With sparse = true the weight's gradient is a SparseTensor of the rows
-- used (Note [Sparse embedding gradients]).
local I64 = require('torch.lib').dtype.i64
local S = require 'nn.support'
local G = require 'torch.sparse_grad'
local LookupTable, parent = torch.class('nn.LookupTable', 'nn.Module')

-- Note [Sparse embedding gradients]: PyTorch's Embedding(sparse=True) gives weight.grad as a
-- sparse COO tensor of the rows looked up (one entry per index, duplicates kept until coalesced,
-- padding entries left out), so a step costs O(rows used x dim), not O(nIndex x dim). Here:
--  * The engine's .grad is a dense C++ tensor, so a sparse module keeps none there: gradWeight is
--    a torch.SparseTensor (sparse dim 1, values batch x nOutput) registered for the weight in
--    torch/sparse_grad.lua, and m.weight.grad answers it (Note [Sparse grad property]): a
--    PyTorch user reads p.grad and optimizers get it from the parameter as for dense ones. Before
--    the first backward it is empty (nnz 0) rather than nil: the coarse node (nn/Module.lua)
--    accumulates into gradWeight directly only while p.grad is gradWeight (history.linked
--    compares the SparseTensor objects themselves); were p.grad nil, it would capture a dense
--    n x d gradient instead. A dense contribution to the same weight (a tied dense decoder) makes
--    p.grad dense, the sum of both, as in PyTorch (Note [Sparse and dense contributions] in
--    torch/sparse_grad.lua). m:share(other, 'weight', 'gradWeight') and clone('weight',
--    'gradWeight') share the one SparseTensor; :type() keeps shared ones shared.
--  * model:backward (accGradParameters) and loss:backward() (the coarse node calls the same
--    accGradParameters) append the rows and their gradients (copied, times scale) to it; nothing
--    else of the weight's size is touched. m:zeroGradParameters(), opt:zeroGrad() and p.grad =
--    nil empty it in O(1). torch.autograd.grad(loss, {m.weight}) still returns a dense tensor
--    (autograd's results are dense here), and Module:accUpdateGradParameters (which swaps in the
--    weight as gradWeight) updates the weight densely as before.
--  * nn.functional.embedding / embeddingBag with sparse = true (and nn.EmbeddingBag{sparse =
--    true}) gather the rows through torch.sparse._grad.gatherRows, whose backward feeds the same
--    accumulator of the weight tensor.
--  * getParameters() cannot flatten a sparse gradient: it raises (SparseTensor:storage()).
--  * Optimizers: SGD (momentum included) and Adagrad update only the rows present (their dense
--    results are PyTorch's and equal the dense embedding's), SparseAdam is PyTorch's lazy Adam;
--    the others refuse a sparse gradient, naming SparseAdam (optim/object/Optimizer.lua).
--  * maxNorm renormalises the looked-up rows in the forward as before (no gradient involved).
function LookupTable:__init(nIndex, nOutput, ...)
  parent.__init(self)
  local args, opts = { ... }, nil
  for k = 1, 4 do
    if type(args[k]) == 'table' and not torch.isTensor(args[k]) then opts = args[k] args[k] = nil break end
  end
  local paddingValue, maxNorm, normType = args[1], args[2], args[3]
  S.argInt('nn.LookupTable', 'nIndex', nIndex, 1)
  S.argInt('nn.LookupTable', 'nOutput', nOutput, 1)
  if paddingValue ~= nil then S.argNumber('nn.LookupTable', 'paddingValue', paddingValue) end
  if maxNorm ~= nil then S.argNumber('nn.LookupTable', 'maxNorm', maxNorm) end
  if normType ~= nil then S.argNumber('nn.LookupTable', 'normType', normType) end
  for k, v in pairs(opts or {}) do
    if k ~= 'sparse' then S.fail('nn.LookupTable', 'unknown option %s (known: sparse)', tostring(k)) end
    if type(v) ~= 'boolean' then S.fail('nn.LookupTable', 'sparse must be a boolean, got %s', S.describe(v)) end
  end
  self.weight = torch.Tensor(nIndex, nOutput)
  self.sparse = opts and opts.sparse or false
  -- a sparse module never allocates the dense nIndex x nOutput gradient
  if self.sparse then self.gradWeight = G.new(self.weight)
  else self.gradWeight = torch.Tensor(nIndex, nOutput):zero() end
  self.paddingValue = paddingValue or 0
  self.maxNorm = maxNorm
  self.normType = normType
  self.shouldScaleGradByFreq = false
  self:reset()
end

local function name(self)
  return string.format('nn.LookupTable(%d, %d)', self.weight:size(1), self.weight:size(2))
end

--- lt:reset([stdv = 1]): weights drawn from N(0, stdv^2) (Torch7).
function LookupTable:reset(stdv)
  self.weight:normal(0, stdv or 1)
  nn.utils.linkGradients(self)
  return self
end

--- lt:accUpdateOnly(): drops gradWeight (accUpdateGradParameters then updates the weight directly).
function LookupTable:accUpdateOnly()
  self.gradWeight = nil
  return self
end
--- lt:setPadding(index): rows of this index get no gradient.
function LookupTable:setPadding(v) self.paddingValue = v return self end
--- lt:setMaxNorm(maxNorm): looked-up rows with a larger norm are scaled down to it in forward.
function LookupTable:setMaxNorm(v) self.maxNorm = v return self end
--- lt:setNormType(p): the norm used by maxNorm (default 2).
function LookupTable:setNormType(v) self.normType = v return self end
--- lt:scaleGradByFreq(): divides each row's gradient by its number of occurrences in the batch.
function LookupTable:scaleGradByFreq() self.shouldScaleGradByFreq = true return self end

-- The indices as a contiguous 1D LongTensor, checked against 1..nIndex.
function LookupTable:_indices(input)
  if not torch.isTensor(input) or (input:dim() ~= 1 and input:dim() ~= 2) then
    S.fail(name(self), 'expected a vector of indices or a batch (N x n) of them, got %s', S.describe(input))
  end
  local idx = input
  -- indices are a contiguous LongTensor on the weight's device (a copy otherwise)
  if idx.p.dtype ~= I64 or idx:device() ~= self.weight:device() or not idx:isContiguous() then
    self._input = nn.utils.longBuffer(self._input, self.weight)
    self._input:resize(input:size()):copy(input)
    idx = self._input
  end
  idx = idx:view(-1)
  -- On the GPU the index kernels check the values (Note [Deferred device errors]): min and max
  -- here would be two waits for the GPU per call.
  if idx:nElement() > 0 and idx.p.device_type == 0 then
    local lo, hi = idx:min(), idx:max()
    local n = self.weight:size(1)
    if lo < 1 or hi > n then
      S.fail(name(self), 'index %d is out of range (indices go from 1 to %d)', lo < 1 and lo or hi, n)
    end
  end
  return idx
end

-- maxNorm: the rows used by this input are scaled to norm maxNorm when larger (Torch7's
-- LookupTable_renorm); duplicate indices rewrite the same row with the same value.
function LookupTable:_renorm(idx)
  if not self.maxNorm or idx:nElement() == 0 then return end
  local rows = self.weight:index(1, idx)
  local norms = rows:norm(self.normType or 2, 2)
  local over = torch.gt(norms, self.maxNorm)
  if over:sum() == 0 then return end
  local factor = torch.where(over, torch.add(norms, 1e-7):cinv():mul(self.maxNorm), 1)
  rows:cmul(factor:expandAs(rows))
  self.weight:indexCopy(1, idx, rows)
end

function LookupTable:updateOutput(input)
  local idx = self:_indices(input)
  self:_renorm(idx)
  self._rows = self._rows or self.weight.new()
  torch.index(self._rows, self.weight, 1, idx)
  if input:dim() == 2 then
    self.output = self._rows:view(input:size(1), input:size(2), self.weight:size(2))
  else
    self.output = self._rows:view(input:size(1), self.weight:size(2))
  end
  return self.output
end

-- Indices are not differentiable: gradInput is zeros of the input's size and type (Torch7).
function LookupTable:updateGradInput(input, gradOutput)
  if not torch.isTensor(self.gradInput) or self.gradInput:type() ~= input:type() then self.gradInput = input.new() end
  if not self.gradInput:isSameSizeAs(input) then self.gradInput:resizeAs(input):zero() end
  return self.gradInput
end

function LookupTable:accGradParameters(input, gradOutput, scale)
  if not self.gradWeight then
    S.fail(name(self), 'has no gradWeight after accUpdateOnly(): use accUpdateGradParameters or updateGradInput only')
  end
  local idx = self:_indices(input)
  local n = self.weight:size(2)
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= idx:nElement() * n then
    S.fail(name(self), 'gradOutput is %s but the output has %d x %d elements', S.describe(gradOutput), idx:nElement(), n)
  end
  scale = scale or 1
  local g = gradOutput:contiguous():view(idx:nElement(), n)
  local pad = self.paddingValue
  if pad and pad >= 1 and pad <= self.weight:size(1) then
    local keep = torch.ne(idx, pad)
    if keep:sum() < idx:nElement() then
      local pos = torch.nonzero(keep):view(-1)
      if pos:nElement() == 0 then return end
      idx, g = idx:index(1, pos), g:index(1, pos)
    end
  end
  local sparse = not torch.isTensor(self.gradWeight)  -- accUpdateGradParameters swaps in the weight
  if self.shouldScaleGradByFreq then
    local count
    if sparse then  -- the counts of the rows used only (Note [Sparse embedding gradients])
      local _, inv, counts = torch.unique(idx, { returnInverse = true, returnCounts = true })
      count = counts:index(1, inv:view(-1)):typeAs(g)
    else
      count = g.new(self.weight:size(1)):zero():indexAdd(1, idx, g.new(idx:nElement()):fill(1)):index(1, idx)
    end
    g = torch.cmul(g, count:cinv():view(-1, 1):expandAs(g))
  end
  if scale ~= 1 then g = torch.mul(g, scale) end
  if sparse then
    G.accumulate(self.gradWeight, idx, g)
  else
    self.gradWeight:indexAdd(1, idx, g)
  end
end

--- lt:setSparse([flag = true]): makes the weight's gradient a SparseTensor of the rows used (true)
--- or the dense gradWeight again (false; the rows accumulated so far are kept). Returns lt.
--- Example: nn.LookupTable(10, 3):setSparse()
function LookupTable:setSparse(flag)
  if flag ~= nil and type(flag) ~= 'boolean' then S.fail(name(self), 'setSparse expects a boolean, got %s', S.describe(flag)) end
  flag = flag == nil or flag
  if flag == (self.sparse or false) then return self end  -- (nil in modules saved before the option)
  local old = self.gradWeight
  self.sparse = flag
  if flag then
    if old then
      self.weight.grad = nil  -- the dense C++ gradient goes away
      self.gradWeight = G.new(self.weight)
      local rows = torch.nonzero(torch.ne(old, 0):sum(2):view(-1)):view(-1)
      if rows:nElement() > 0 then G.accumulate(self.gradWeight, rows, old:index(1, rows), true) end
    end
  else
    G.register(self.weight, nil)
    if old then
      self.gradWeight = self.weight.new(self.weight:size()):zero()
      local rows, vals = G.rows(old)
      if rows:nElement() > 0 then self.gradWeight:indexAdd(1, rows, vals) end
    end
  end
  nn.utils.linkGradients(self)
  return self
end

-- A sparse module's gradient is registered for its current weight here: linkGradients (reset,
-- clone, type, afterLoad) and the optimizers all ask parameters() first.
function LookupTable:parameters()
  if self.sparse and self.gradWeight and self.weight then
    self.gradWeight._accumulator = true  -- (lost by torch.load, Note [Accumulating add])
    G.register(self.weight, self.gradWeight)
  end
  return parent.parameters(self)
end

--- lt:updateParameters(lr): weight -= lr * gradWeight; a sparse module updates only its rows used.
--- Example: local lt = nn.LookupTable(5, 2, {sparse = true}); lt:backward(torch.LongTensor{1}, lt:forward(torch.LongTensor{1})); lt:updateParameters(0.1)
function LookupTable:updateParameters(lr)
  if not (self.sparse and self.gradWeight) then return parent.updateParameters(self, lr) end
  local rows, vals = G.rows(self.gradWeight)
  if rows:nElement() > 0 then
    if self.weight:isCuda() then require('optim.fused').flush() end  -- after the updates queued before it
    self.weight:indexAdd(1, rows, torch.mul(vals, -lr))
  end
end

-- A sparse module's zeroGradParameters also clears a dense part of the weight's gradient (a tied
-- dense layer's, Note [Sparse and dense contributions] in torch/sparse_grad.lua).
function LookupTable:zeroGradParameters()
  parent.zeroGradParameters(self)
  if self.sparse and self.weight then G.zeroDense(self.weight) end
end

-- A sparse gradient converts its values only (converting every tensor field would turn its
-- indices into floats). Shared with nn.EmbeddingBag:type.
function LookupTable._sparseAwareType(self, name_, cache)
  local sg = self.sparse and self.gradWeight
  if sg then self.gradWeight = nil end
  parent.type(self, name_, cache)
  if sg then
    local conv = G.convert(sg, name_, cache)  -- one per gradient: shared ones stay shared
    self.gradWeight = conv
    G.register(self.weight, conv)
  end
  return self
end

-- The index buffer stays a LongTensor whatever the module's type.
function LookupTable:type(name_, cache)
  if not name_ then return parent.type(self) end
  LookupTable._sparseAwareType(self, name_, cache)
  self._input = torch.LongTensor()
  return self
end

function LookupTable:clearState()
  parent.clearState(self)
  self._input = torch.LongTensor()
  return self
end

function LookupTable:__tostring__()
  local s = parent.__tostring__(self)
  return self.sparse and s .. ' (sparse)' or s
end

return LookupTable
