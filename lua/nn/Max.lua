-- nn.Max([dimension = 1, nInputDims]): the maximum over dimension, which is removed (negative
-- from the end; with nInputDims, one more input dim is a batch). The gradient goes to the
-- position of the maximum. nn.Min (Min.lua) inherits everything but the reduction.
local S = require 'nn.support'
local Max, parent = torch.class('nn.Max', 'nn.Module')
Max._reduce = 'max'  -- the torch function computing values and indices; nn.Min sets 'min'

function Max:__init(dimension, nInputDims)
  parent.__init(self)
  local class = torch.typename(self)
  self.dimension = S.argInt(class, 'dimension', dimension or 1)
  if self.dimension == 0 then error('[' .. class .. '] dimension 0 is out of range (dims are 1-based)', torch._lib.user_level()) end
  self.nInputDims = nInputDims
end

local function name(self) return string.format('%s(%d)', torch.typename(self), self.dimension) end

function Max:updateOutput(input)
  S.tensor(name(self), input)
  local d = S.dim(name(self), self.dimension, input, self.nInputDims)
  if input:size(d) == 0 then
    S.fail(name(self), 'cannot reduce over dimension %d of size 0 (input of size %s)', d, S.sizestr(input))
  end
  self._indices = nn.utils.longBuffer(self._indices, input)
  self._values = torch.isTensor(self._values) and self._values:type() == input:type() and self._values or input.new()
  torch[self._reduce](self._values, self._indices, input, d)
  self.output = input:dim() > 1 and self._values:select(d, 1) or self._values
  return self.output
end

function Max:updateGradInput(input, gradOutput)
  local d = S.dim(name(self), self.dimension, input, self.nInputDims)
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= self._indices:nElement() then
    S.fail(name(self), 'gradOutput is %s but the output has size %s', S.describe(gradOutput), S.sizestr(self.output))
  end
  local g = gradOutput:contiguous():view(self._indices:size())
  self.gradInput:resizeAs(input):zero():scatter(d, self._indices, g)
  return self.gradInput
end

return Max
