-- nn.Narrow(dimension, offset[, length = 1]): input:narrow(dimension, offset, length) copied.
-- Negative dimension and offset count from the end; a negative length ends the window that far
-- from the end: -1 runs to the last element, -2 stops one before it (Torch7's documentation).
local S = require 'nn.support'
local Narrow, parent = torch.class('nn.Narrow', 'nn.Module')

function Narrow:__init(dimension, offset, length)
  parent.__init(self)
  if dimension == nil or offset == nil then error('[nn.Narrow] usage: nn.Narrow(dimension, offset[, length])', torch._lib.user_level()) end
  self.dimension = S.argInt('nn.Narrow', 'dimension', dimension)
  self.index = S.argInt('nn.Narrow', 'offset', offset)
  self.length = S.argInt('nn.Narrow', 'length', length or 1)
end

local function name(self) return string.format('nn.Narrow(%d, %d, %d)', self.dimension, self.index, self.length) end

-- The dim, start and length for this input.
local function window(self, input)
  S.tensor(name(self), input)
  local dim = S.dim(name(self), self.dimension, input)
  local size = input:size(dim)
  local index = self.index < 0 and size + self.index + 1 or self.index
  local length = self.length
  if length < 0 then length = size - index + length + 2 end
  if index < 1 or length < 1 or index + length - 1 > size then
    S.fail(name(self), 'cannot take %d elements from %d along dimension %d of an input of size %s', length, index, dim,
      S.sizestr(input))
  end
  return dim, index, length
end

function Narrow:updateOutput(input)
  local dim, index, length = window(self, input)
  local t = input:narrow(dim, index, length)
  self.output = self.output:typeAs(t)
  self.output:resize(t:size()):copy(t)
  return self.output
end

function Narrow:updateGradInput(input, gradOutput)
  local dim, index, length = window(self, input)
  local slice = input:narrow(dim, index, length)
  S.gradLike(name(self), gradOutput, slice)
  self.gradInput = self.gradInput:typeAs(input)
  self.gradInput:resizeAs(input):zero()
  self.gradInput:narrow(dim, index, length):copy(gradOutput)
  return self.gradInput
end

return Narrow
