-- nn.Add(inputSize[, scalar]): adds a learnable bias: one value per input element (broadcast
-- over a leading batch dim), or a single value when scalar is true.
local S = require 'nn.support'
local Add, parent = torch.class('nn.Add', 'nn.Module')

function Add:__init(inputSize, scalar)
  parent.__init(self)
  S.argInt('nn.Add', 'inputSize', inputSize, 1)
  self.scalar = scalar
  local size = scalar and 1 or inputSize
  self.bias = torch.Tensor(size)
  self.gradBias = torch.Tensor(size)
  self:reset()
end

local function name(self) return string.format('nn.Add(%d%s)', self.bias:size(1), self.scalar and ', scalar' or '') end

--- a:reset([stdv]): uniform(-stdv, stdv) bias, stdv = 1/sqrt(bias size) by default.
function Add:reset(stdv)
  stdv = stdv and stdv * math.sqrt(3) or 1 / math.sqrt(self.bias:size(1))
  self.bias:uniform(-stdv, stdv)
  self.gradBias:zero()
  nn.utils.linkGradients(self)
  return self
end

-- How the bias lines up with input: 'scalar', 'same' (one sample) or 'batch' (N x bias).
local function mode(self, input)
  S.tensor(name(self), input)
  if self.scalar then return 'scalar' end
  if input:isSameSizeAs(self.bias) then return 'same' end
  local n = self.bias:nElement()
  if input:dim() < 1 or input:nElement() ~= input:size(1) * n then
    S.fail(name(self), 'expected %d elements per sample (a vector or a batch), got %s', n, S.describe(input))
  end
  return 'batch'
end

function Add:updateOutput(input)
  local m = mode(self, input)
  self.output:resizeAs(input):copy(input)
  if m == 'scalar' then self.output:add(self.bias[1])
  elseif m == 'same' then self.output:add(self.bias)
  else
    local out = self.output:view(input:size(1), self.bias:nElement())  -- (no -1: an empty batch)
    out:add(self.bias:view(1, -1):expandAs(out))
  end
  return self.output
end

function Add:updateGradInput(input, gradOutput)
  S.gradLike(name(self), gradOutput, input)
  self.gradInput:resizeAs(gradOutput):copy(gradOutput)
  return self.gradInput
end

function Add:accGradParameters(input, gradOutput, scale)
  scale = scale or 1
  local m = mode(self, input)
  S.gradLike(name(self), gradOutput, input)
  if m == 'scalar' then self.gradBias:add(scale * gradOutput:sum())
  elseif m == 'same' then self.gradBias:add(scale, gradOutput)
  else
    self.gradBias:view(1, -1):add(scale, gradOutput:contiguous():view(input:size(1), self.bias:nElement()):sum(1))
  end
end

return Add
