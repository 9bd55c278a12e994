-- nn.LookupTable(nIndex, nOutput[, paddingValue, maxNorm, normType]): row lookup in an
-- nIndex x nOutput weight for a vector of indices (-> n x nOutput) or a batch (-> N x n x nOutput).
-- Rows of paddingValue get no gradient; with maxNorm, looked-up rows are renormalised in place.
local I64 = require('torch.lib').dtype.i64
local S = require 'nn.support'
local LookupTable, parent = torch.class('nn.LookupTable', 'nn.Module')

function LookupTable:__init(nIndex, nOutput, paddingValue, maxNorm, normType)
  parent.__init(self)
  S.argInt('nn.LookupTable', 'nIndex', nIndex, 1)
  S.argInt('nn.LookupTable', 'nOutput', nOutput, 1)
  if paddingValue ~= nil then S.argNumber('nn.LookupTable', 'paddingValue', paddingValue) end
  if maxNorm ~= nil then S.argNumber('nn.LookupTable', 'maxNorm', maxNorm) end
  if normType ~= nil then S.argNumber('nn.LookupTable', 'normType', normType) end
  self.weight = torch.Tensor(nIndex, nOutput)
  self.gradWeight = torch.Tensor(nIndex, nOutput):zero()
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
  if self.shouldScaleGradByFreq then
    local count = g.new(self.weight:size(1)):zero():indexAdd(1, idx, g.new(idx:nElement()):fill(1))
    g = torch.cmul(g, count:index(1, idx):cinv():view(-1, 1):expandAs(g))
  end
  if scale ~= 1 then g = torch.mul(g, scale) end
  self.gradWeight:indexAdd(1, idx, g)
end

-- The index buffer stays a LongTensor whatever the module's type.
function LookupTable:type(name_, cache)
  if not name_ then return parent.type(self) end
  parent.type(self, name_, cache)
  self._input = torch.LongTensor()
  return self
end

function LookupTable:clearState()
  parent.clearState(self)
  self._input = torch.LongTensor()
  return self
end

return LookupTable
