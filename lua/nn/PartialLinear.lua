-- nn.PartialLinear(inputSize, outputSize[, bias=true]): a Linear layer that can be restricted to
-- a subset of its outputs (setPartition(indices)): the output then has one column per index, and
-- only those rows of the weight and entries of the bias get gradients; resetPartition() restores
-- the full layer (Torch7). The weight lives in Torch7's inner network (a LookupTable of
-- outputSize x inputSize, so .t7 files load into it) and is applied directly with index/mm.
local S = require 'nn.support'

local PartialLinear, parent = torch.class('nn.PartialLinear', 'nn.Module')

function PartialLinear:__init(inputsize, outputsize, bias)
  parent.__init(self)
  S.argInt('nn.PartialLinear', 'inputSize', inputsize, 1)
  S.argInt('nn.PartialLinear', 'outputSize', outputsize, 1)
  if bias ~= nil then S.argBool('nn.PartialLinear', 'bias', bias) end
  S.alloc('nn.PartialLinear', outputsize, inputsize)  -- a clear error for absurd sizes
  local pt = nn.ParallelTable()
  pt:add(nn.Identity()):add(nn.LookupTable(outputsize, inputsize))
  self.network = nn.Sequential():add(pt):add(nn.MM(false, true))
  if bias ~= false then
    self.bias = torch.Tensor(1, outputsize):zero()
    self.gradBias = torch.Tensor(1, outputsize):zero()
  end
  self.inputsize, self.outputsize = inputsize, outputsize
  self.allcolumns = torch.range(1, outputsize)
  self:resetPartition()
  nn.utils.linkGradients(self)
end

local function lut(self) return self.network.modules[1].modules[2] end
local function name(self) return string.format('nn.PartialLinear(%d -> %d)', self.inputsize, self.outputsize) end

--- l:setPartition(indices): only these outputs (1-based, a 1-D tensor) are computed and trained.
function PartialLinear:setPartition(indices)
  if not torch.isTensor(indices) or indices:dim() ~= 1 or indices:nElement() == 0 then
    S.fail(name(self), 'setPartition expects a non-empty 1-D tensor of output indices, got %s', S.describe(indices))
  end
  local d = indices:double()
  if torch.ne(d, torch.floor(d)):sum() > 0 or d:min() < 1 or d:max() > self.outputsize then
    S.fail(name(self), 'partition indices must be integers in [1, %d]', self.outputsize)
  end
  self.partition = indices:type(self.allcolumns:type())
  return self
end

--- l:resetPartition(): every output again.
function PartialLinear:resetPartition()
  self.partition = self.allcolumns
  return self
end

--- l:parameters(): the inner LookupTable's weight and the bias (1 x outputSize), with their gradients.
function PartialLinear:parameters()
  local l = lut(self)
  if self.bias then return { l.weight, self.bias }, { l.gradWeight, self.gradBias } end
  return { l.weight }, { l.gradWeight }
end

-- The input as N x inputSize rows and the partition as a LongTensor on the weight's device.
local function prepare(self, input)
  local I = self.inputsize
  if not torch.isTensor(input) or not nn.utils.isFloating(input) or (input:dim() ~= 1 and input:dim() ~= 2)
      or input:size(input:dim()) ~= I then
    S.fail(name(self), 'expected a vector of %d features or a batch (N x %d), got %s', I, I, S.describe(input))
  end
  local w = lut(self).weight
  self._idx = nn.utils.longBuffer(self._idx, w)
  self._idx:resize(self.partition:nElement()):copy(self.partition)
  return input:dim() == 1 and input:view(1, I) or input, self._idx
end

function PartialLinear:updateOutput(input)
  local x, idx = prepare(self, input)
  local y = torch.mm(x, lut(self).weight:index(1, idx):t())
  if self.bias then y:add(self.bias:index(2, idx):expandAs(y)) end
  self.output = input:dim() == 1 and y:view(-1) or y
  return self.output
end

local function grad_rows(self, input, gradOutput)
  local x, idx = prepare(self, input)
  S.gradLike(name(self), gradOutput, input:dim() == 1 and { idx:nElement() } or { x:size(1), idx:nElement() })
  return x, idx, gradOutput:contiguous():view(x:size(1), idx:nElement())
end

function PartialLinear:updateGradInput(input, gradOutput)
  self.gradInput = torch.noGrad(function()
    local _, idx, go = grad_rows(self, input, gradOutput)
    return torch.mm(go, lut(self).weight:index(1, idx)):viewAs(input)
  end)
  return self.gradInput
end

-- Only the rows (and bias entries) of the partition receive gradient; repeated indices add up.
function PartialLinear:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  if type(scale) ~= 'number' then S.fail(name(self), 'scale must be a number, got %s', S.describe(scale)) end
  torch.noGrad(function()
    local x, idx, go = grad_rows(self, input, gradOutput)
    lut(self).gradWeight:indexAdd(1, idx, torch.mm(go:t(), x):mul(scale))
    if self.bias then self.gradBias:indexAdd(2, idx, go:sum(1):mul(scale)) end
  end)
end

function PartialLinear:accUpdateGradParameters(input, gradOutput, lr)
  local l = lut(self)
  local gw, gb = l.gradWeight, self.gradBias
  l.gradWeight, self.gradBias = l.weight, self.bias
  local ok, err = pcall(self.accGradParameters, self, input, gradOutput, -lr)
  l.gradWeight, self.gradBias = gw, gb
  if not ok then error(err, 0) end
end

function PartialLinear:clearState()
  self._idx = nil
  self.network:clearState()
  return parent.clearState(self)
end

function PartialLinear:__tostring__()
  return string.format('nn.PartialLinear(%d -> %d)%s', self.inputsize, self.outputsize,
    self.bias == nil and ' without bias' or '')
end

return PartialLinear
