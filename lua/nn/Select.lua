-- nn.Select(dimension, index): input:select(dimension, index) copied; negative dimension and
-- index count from the end.
local S = require 'nn.support'
local Select, parent = torch.class('nn.Select', 'nn.Module')

function Select:__init(dimension, index)
  parent.__init(self)
  self.dimension = S.argInt('nn.Select', 'dimension', dimension)
  self.index = S.argInt('nn.Select', 'index', index)
end

local function name(self) return string.format('nn.Select(%d, %d)', self.dimension, self.index) end

local function where(self, input)
  S.tensor(name(self), input)
  local dim = S.dim(name(self), self.dimension, input)
  local size = input:size(dim)
  local index = self.index < 0 and size + self.index + 1 or self.index
  if index < 1 or index > size then
    S.fail(name(self), 'index %d is out of range for dimension %d of an input of size %s', self.index, dim, S.sizestr(input))
  end
  return dim, index
end

function Select:updateOutput(input)
  local dim, index = where(self, input)
  local t = input:select(dim, index)
  self.output:resize(t:size()):copy(t)
  return self.output
end

function Select:updateGradInput(input, gradOutput)
  local dim, index = where(self, input)
  S.gradLike(name(self), gradOutput, input:select(dim, index))
  self.gradInput:resizeAs(input):zero()
  self.gradInput:select(dim, index):copy(gradOutput)
  return self.gradInput
end

return Select
