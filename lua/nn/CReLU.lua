-- nn.CReLU(nInputDims[, inplace]): Torch7's concatenated ReLU (Shang et al., 2016): the output
-- stacks relu(x) and relu(-x) along the feature dim, dim 1 of a sample of nInputDims dims and dim
-- 2 of a batch (nInputDims + 1 dims), doubling it. Like Torch7 it is an nn.Sequential of
-- ConcatTable(Identity, MulConstant(-1)), JoinTable(2) and ReLU(inplace) run on each sample
-- flattened to one row.
require 'nn.Sequential'
local S = require 'nn.support'
local CReLU, parent = torch.class('nn.CReLU', 'nn.Sequential')

--- nn.CReLU(nInputDims[, inplace = false]): nInputDims is the number of dims of one sample (3 for
--- C x H x W); without it the input is read as a batch unless it is a vector (Torch7's first
--- CReLU only took batches). inplace makes the final ReLU work in place on the joined tensor (the
--- input is never changed).
--- Example: nn.CReLU(3):forward(torch.randn(2, 4, 5, 5)):size()  -- 2x8x5x5
function CReLU:__init(nInputDims, inplace)
  parent.__init(self)
  if nInputDims ~= nil then S.argInt('nn.CReLU', 'nInputDims', nInputDims, 1) end
  self.nInputDims = nInputDims
  self.inplace = S.argBool('nn.CReLU', 'inplace', inplace)
  local concat = nn.ConcatTable()
  concat:add(nn.Identity())
  concat:add(nn.MulConstant(-1))
  self:add(concat)
  self:add(nn.JoinTable(2))
  self:add(nn.ReLU(self.inplace))
end

-- Whether input is a batch; refuses a size that is neither a sample nor a batch of them.
local function batched(self, input)
  if not torch.isTensor(input) or input:dim() == 0 then
    S.fail('nn.CReLU', 'expected a tensor input, got %s', S.describe(input))
  end
  local d = self.nInputDims
  if d == nil then return input:dim() > 1 end
  if input:dim() == d + 1 then return true end
  if input:dim() == d then return false end
  S.fail('nn.CReLU', 'expected %d dims (one sample) or %d (a batch), got %s', d, d + 1, S.describe(input))
end

-- Each sample as one row (Torch7 viewed the input; a non-contiguous one is copied first).
local function rows(t, isBatch)
  t = t:contiguous()
  return isBatch and t:view(t:size(1), -1) or t:view(1, -1)
end

function CReLU:updateOutput(input)
  local isBatch = batched(self, input)
  parent.updateOutput(self, rows(input, isBatch))
  local size = input:size()
  local d = isBatch and 2 or 1
  size[d] = size[d] * 2
  self.output = self.modules[#self.modules].output:view(size)
  return self.output
end

function CReLU:updateGradInput(input, gradOutput)
  local isBatch = batched(self, input)
  S.gradLike('nn.CReLU', gradOutput, self.output)
  local gi = parent.updateGradInput(self, rows(input, isBatch), rows(gradOutput, isBatch))
  self.gradInput = gi:view(input:size())
  return self.gradInput
end

-- No parameters: Torch7's CReLU:backward is its updateGradInput.
function CReLU:backward(input, gradOutput)
  return self:updateGradInput(input, gradOutput)
end
function CReLU:accGradParameters() end
function CReLU:accUpdateGradParameters() end

function CReLU:__tostring__()
  return 'nn.CReLU(' .. tostring(self.nInputDims or '') .. (self.inplace and ', inplace' or '') .. ')'
end

return CReLU
