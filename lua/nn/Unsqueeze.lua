-- nn.Unsqueeze(pos[, numInputDims]): inserts a size-1 dim at pos (counted after any batch dims
-- when numInputDims says how many dims one sample has).
local S = require 'nn.support'
local Unsqueeze, parent = torch.class('nn.Unsqueeze', 'nn.Module')

function Unsqueeze:__init(pos, numInputDims)
  parent.__init(self)
  self.pos = S.argInt('nn.Unsqueeze', 'pos', pos, 1)
  self:setNumInputDims(numInputDims)
end

--- u:setNumInputDims(n): the number of dims of one sample (more input dims means a batch).
function Unsqueeze:setNumInputDims(n)
  if n ~= nil then S.argInt('nn.Unsqueeze', 'numInputDims', n, 0) end
  self.numInputDims = n
  return self
end

function Unsqueeze:updateOutput(input)
  S.tensor(tostring(self), input)
  local sizes = input:size():totable()
  local nd = self.numInputDims or input:dim()
  local offset = #sizes - nd
  if offset < 0 then
    S.fail(tostring(self), 'numInputDims (%d) is more than the input has (size %s)', nd, S.sizestr(input))
  end
  if offset + self.pos > #sizes + 1 then
    S.fail(tostring(self), 'cannot insert dim %d into an input of size %s', offset + self.pos, S.sizestr(input))
  end
  table.insert(sizes, offset + self.pos, 1)
  if not input:isContiguous() then input = input:contiguous() end
  self.output = input:view(torch.LongStorage(sizes))
  return self.output
end

function Unsqueeze:updateGradInput(input, gradOutput)
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= input:nElement() then
    S.fail(tostring(self), 'gradOutput is %s but the input has %d elements', S.describe(gradOutput), input:nElement())
  end
  self.gradInput = gradOutput:contiguous():view(input:size())
  return self.gradInput
end

function Unsqueeze:__tostring__() return 'nn.Unsqueeze(dim ' .. self.pos .. ')' end

return Unsqueeze
