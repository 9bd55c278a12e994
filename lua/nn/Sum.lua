-- nn.Sum([dimension = 1, nInputDims, sizeAverage = false, squeeze = true]): sums the input over
-- dimension (negative from the end; with nInputDims, one more input dim is a batch); sizeAverage
-- divides by the dim's size; squeeze drops the summed dim (unless it is the only one).
local S = require 'nn.support'
local Sum, parent = torch.class('nn.Sum', 'nn.Module')

function Sum:__init(dimension, nInputDims, sizeAverage, squeeze)
  parent.__init(self)
  self.dimension = S.argInt(torch.typename(self) or 'nn.Sum', 'dimension', dimension or 1)
  if self.dimension == 0 then error('[nn.Sum] dimension 0 is out of range (dims are 1-based)', torch._lib.user_level()) end
  self.nInputDims = nInputDims
  self.sizeAverage = sizeAverage or false
  if squeeze ~= nil and type(squeeze) ~= 'boolean' then
    error('[nn.Sum] squeeze must be true or false, got ' .. tostring(squeeze), torch._lib.user_level())
  end
  self.squeeze = squeeze == nil and true or squeeze
end

function Sum:_name()
  return string.format('%s(%d)', torch.typename(self) or 'nn.Sum', self.dimension)
end

function Sum:updateOutput(input)
  S.tensor(self:_name(), input)
  local d = S.dim(self:_name(), self.dimension, input, self.nInputDims)
  self._sum = self._sum or input.new()
  torch.sum(self._sum, input, d)
  if self.sizeAverage then self._sum:div(input:size(d)) end
  if self.squeeze and self._sum:dim() > 1 then self.output = self._sum:select(d, 1)
  else self.output = self._sum end
  return self.output
end

function Sum:updateGradInput(input, gradOutput)
  local d = S.dim(self:_name(), self.dimension, input, self.nInputDims)
  local sizes = input:size():totable()
  sizes[d] = 1
  local n = 1
  for _, v in ipairs(sizes) do n = n * v end
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= n then
    S.fail(self:_name(), 'gradOutput is %s but the output has size %s', S.describe(gradOutput), table.concat(sizes, 'x'))
  end
  local g = gradOutput:contiguous():view(torch.LongStorage(sizes))
  self.gradInput:resizeAs(input):copy(g:expandAs(input))
  if self.sizeAverage then self.gradInput:div(input:size(d)) end
  return self.gradInput
end

return Sum
