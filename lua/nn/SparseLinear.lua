-- nn.SparseLinear(inputSize, outputSize[, doGradInput=false]): a Linear layer on sparse inputs in
-- Torch7's formats: one sample is an nnz x 2 tensor of {index, value} rows (-> outputSize), a
-- batch is a Lua table of them (-> N x outputSize), and the legacy batch is N x nnz x 2. Repeated
-- indices add up. Like Torch7, gradInput is {} (a zeroed tensor for the legacy format) unless
-- doGradInput, and then dense: {index, value} rows for every input index, per sample. After one
-- backward, zeroGradParameters and updateParameters only touch the weight columns that input used.
local S = require 'nn.support'

local SparseLinear, parent = torch.class('nn.SparseLinear', 'nn.Module')

local NO_LAST_INPUT, ONE_LAST_INPUT, ACC_MULTIPLE_TIMES = 0, 1, 2

function SparseLinear:__init(inputSize, outputSize, doGradInput)
  parent.__init(self)
  S.argInt('nn.SparseLinear', 'inputSize', inputSize, 1)
  S.argInt('nn.SparseLinear', 'outputSize', outputSize, 1)
  self.doGradInput = S.argBool('nn.SparseLinear', 'doGradInput', doGradInput)
  self.weightDecay = 0
  self.weight = S.alloc('nn.SparseLinear', outputSize, inputSize):zero()
  self.bias = torch.Tensor(outputSize):zero()
  self.gradWeight = torch.Tensor(outputSize, inputSize):zero()
  self.gradBias = torch.Tensor(outputSize):zero()
  self.lastInput = nil
  self.sparseUpdate = NO_LAST_INPUT
  self.gradInput = {}
  self.output:resize(outputSize)
  self:reset()
end

local function name(self)
  return string.format('nn.SparseLinear(%d -> %d)', self.weight:size(2), self.weight:size(1))
end

--- l:reset([stdv]): uniform(-stdv, stdv) weight (stdv = 1/sqrt(inputSize) by default) and a bias
--- 1e-6 times smaller (Torch7).
function SparseLinear:reset(stdv)
  stdv = stdv and stdv * math.sqrt(3) or 1 / math.sqrt(self.weight:size(2))
  torch.noGrad(function()
    self.weight:uniform(-stdv, stdv)
    self.bias:uniform(-stdv, stdv):mul(0.000001)
  end)
  nn.utils.linkGradients(self)
  return self
end

-- The input as coordinates: sample numbers and feature indices (LongTensors on the weight's
-- device), values, the batch size, and whether it is a batch and in the legacy format.
local function coo(self, input)
  local I = self.weight:size(2)
  local list, batch, legacy
  if type(input) == 'table' and not torch.isTensor(input) then list, batch = input, true
  elseif torch.isTensor(input) and input:dim() == 2 then list, batch = { input }, false
  elseif torch.isTensor(input) and input:dim() == 3 and input:size(3) == 2 then
    legacy, batch = true, true
    list = {}
    for b = 1, input:size(1) do list[b] = input[b] end  -- a loop over samples, as for a table
  end
  local ok = list ~= nil and (type(input) ~= 'table' or #input == table.maxn(input))
  for _, t in ipairs(list or {}) do
    ok = ok and torch.isTensor(t) and nn.utils.isFloating(t) and t:dim() == 2 and t:size(2) == 2
      and t:type() == list[1]:type()
  end
  if not ok then
    S.fail(name(self), 'expected an nnz x 2 tensor of {index, value} rows, a table of them or N x nnz x 2, got %s',
      S.describe(input))
  end
  local B = #list
  local rows = {}
  for b, t in ipairs(list) do rows[b] = t.new(t:size(1)):fill(b) end
  local all = B > 0 and torch.cat(list, 1) or self.weight.new(0, 2)
  local rowv = B > 0 and torch.cat(rows, 1) or self.weight.new(0)
  local idxv = all:select(2, 1)
  if all:size(1) > 0 then
    local lo, hi = idxv:min(), idxv:max()
    if torch.ne(idxv, torch.floor(idxv)):sum() > 0 or lo < 1 or hi > I then
      S.fail(name(self), 'indices must be integers in [1, %d], got values from %g to %g', I, lo, hi)
    end
  end
  local r = nn.utils.longBuffer(nil, self.weight):resize(rowv:nElement()):copy(rowv)
  local c = nn.utils.longBuffer(nil, self.weight):resize(idxv:nElement()):copy(idxv)
  local v = all:select(2, 2)
  if v:type() ~= self.weight:type() then v = v:typeAs(self.weight) end
  return r, c, v:contiguous(), B, batch, legacy, all
end

function SparseLinear:updateOutput(input)
  if self.sparseUpdate == ONE_LAST_INPUT then self.sparseUpdate = ACC_MULTIPLE_TIMES end
  local rows, cols, vals, B, batch, legacy = coo(self, input)
  self.legacyMode = legacy
  local O = self.weight:size(1)
  if B == 0 then
    self.output = self.bias:clone()
    return self.output
  end
  local y = self.bias:view(1, O):expand(B, O):clone()
  if cols:nElement() > 0 then
    -- column c of the weight times the value, added into the row of its sample
    local contrib = torch.cmul(self.weight:index(2, cols), vals:view(1, -1):expandAs(self.weight:index(2, cols)))
    y:indexAdd(1, rows, contrib:t())
  end
  self.output = batch and y or y:view(O)
  return self.output
end

--- l:accGradParameters(input, gradOutput[, scale]): gradWeight += scale gradOutput^T input (sparse),
--- gradBias += scale sum(gradOutput), then gradWeight += weightDecay weight (Torch7).
function SparseLinear:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  if type(scale) ~= 'number' then S.fail(name(self), 'scale must be a number, got %s', S.describe(scale)) end
  local rows, cols, vals, B, batch, _, all = coo(self, input)
  local O = self.weight:size(1)
  S.gradLike(name(self), gradOutput, batch and { B, O } or { O })
  if self.sparseUpdate == NO_LAST_INPUT then
    self.lastInput = all:clone()
    self.sparseUpdate = ONE_LAST_INPUT
  elseif self.sparseUpdate == ONE_LAST_INPUT then
    self.sparseUpdate = ACC_MULTIPLE_TIMES
  end
  torch.noGrad(function()
    local go = gradOutput:contiguous():view(B, O)
    if cols:nElement() > 0 then
      local g = go:index(1, rows)  -- nnz x O
      g:cmul(vals:view(-1, 1):expandAs(g)):mul(scale)
      self.gradWeight:indexAdd(2, cols, g:t())
    end
    self.gradBias:add(scale, go:sum(1):view(O))
    if (self.weightDecay or 0) ~= 0 then self.gradWeight:add(self.weightDecay, self.weight) end
  end)
end

function SparseLinear:updateGradInput(input, gradOutput)
  local _, _, _, B, batch, legacy = coo(self, input)
  local O, I = self.weight:size(1), self.weight:size(2)
  S.gradLike(name(self), gradOutput, batch and { B, O } or { O })
  self.gradInput = legacy and nn.utils.buffer(nil, self.weight):resize(input:size()):zero() or {}
  if not self.doGradInput or B == 0 then return self.gradInput end
  torch.noGrad(function()
    local gi = torch.mm(gradOutput:contiguous():view(B, O), self.weight)  -- dense, B x I
    local idx = torch.range(1, I):typeAs(gi)
    if legacy then
      self.gradInput:resize(B, I, 2)
      self.gradInput:select(3, 1):copy(idx:view(1, I):expand(B, I))
      self.gradInput:select(3, 2):copy(gi)
    else
      for b = 1, B do  -- one {index, value} tensor per sample, as Torch7
        local t = gi.new(I, 2)
        t:select(2, 1):copy(idx)
        t:select(2, 2):copy(gi[b])
        self.gradInput[b] = t
      end
    end
  end)
  return self.gradInput
end

-- The weight columns the last input used with a non-zero value (a LongTensor; repeats allowed).
local function used_columns(self)
  local li = self.lastInput
  local keep = torch.ne(li:select(2, 2), 0)
  if keep:sum() == 0 then return nil end
  local cols = li:select(2, 1):maskedSelect(keep)
  return nn.utils.longBuffer(nil, self.weight):resize(cols:nElement()):copy(cols)
end

--- l:updateParameters(lr): after exactly one backward, only the columns its input used move
--- (Torch7's sparse update); otherwise every parameter.
function SparseLinear:updateParameters(lr)
  if self.lastInput and self.sparseUpdate == ONE_LAST_INPUT then
    torch.noGrad(function()
      self.bias:add(-lr, self.gradBias)
      local cols = used_columns(self)
      if cols then
        self.weight:indexCopy(2, cols, self.weight:index(2, cols):add(-lr, self.gradWeight:index(2, cols)))
      end
    end)
  else
    parent.updateParameters(self, lr)
  end
end

--- l:zeroGradParameters(): after exactly one backward, zeroes only the columns its input used.
function SparseLinear:zeroGradParameters()
  if self.lastInput and self.sparseUpdate == ONE_LAST_INPUT then
    self.gradBias:zero()
    local cols = used_columns(self)
    if cols then self.gradWeight:indexFill(2, cols, 0) end
  else
    parent.zeroGradParameters(self)
  end
  self.sparseUpdate = NO_LAST_INPUT
end

function SparseLinear:clearState()
  self.lastInput = nil
  self.sparseUpdate = NO_LAST_INPUT
  self.output = self.output.new()
  self.gradInput = {}
  return self
end

return SparseLinear
