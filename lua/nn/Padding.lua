-- nn.Padding(dim, pad[, nInputDim, value = 0, index = 1]): inserts |pad| entries of value along
-- dim. pad < 0 pads before position index (counted from the left); pad > 0 pads after position
-- index counted from the right (index 1: at the end). nInputDim marks a leading batch dim.
local S = require 'nn.support'
local Padding, parent = torch.class('nn.Padding', 'nn.Module')

function Padding:__init(dim, pad, nInputDim, value, index)
  parent.__init(self)
  self.dim = S.argInt('nn.Padding', 'dim', dim)
  self.pad = S.argInt('nn.Padding', 'pad', pad)
  self.nInputDim = nInputDim
  self.value = value or 0
  self.index = S.argInt('nn.Padding', 'index', index or 1, 1)
end

local function name(self) return string.format('nn.Padding(%d, %d)', self.dim, self.pad) end

-- The padded dim, the insertion position (1-based, before which pad entries go) and |pad|.
local function layout(self, input)
  S.tensor(name(self), input)
  local dim = self.dim
  if dim < 0 then dim = input:dim() + dim + 1
  elseif self.nInputDim and input:dim() ~= self.nInputDim then dim = dim + 1 end
  if dim < 1 or dim > input:dim() then
    S.fail(name(self), 'dimension %d is out of range for an input of size %s', dim, S.sizestr(input))
  end
  local size = input:size(dim)
  local index, pad = self.index, self.pad
  if pad > 0 then index = size - index + 2 else pad = -pad end
  if index < 1 or index > size + 1 then
    S.fail(name(self), 'index %d is out of range for dimension %d of an input of size %s', self.index, dim, S.sizestr(input))
  end
  return dim, index, pad, size
end

function Padding:updateOutput(input)
  local dim, index, pad, size = layout(self, input)
  local sizes = input:size():totable()
  sizes[dim] = sizes[dim] + pad
  -- Note [Outputs fed back] (nn/CAddTable.lua): pad:forward(pad:forward(x)) filled its input (the
  -- previous output) with value before copying it; such an output buffer is replaced.
  local os, is = self.output:storage(), input:storage()
  if os and is and torch.pointer(os) == torch.pointer(is) then self.output = input.new() end
  self.output:resize(torch.LongStorage(sizes)):fill(self.value)
  if index > 1 then self.output:narrow(dim, 1, index - 1):copy(input:narrow(dim, 1, index - 1)) end
  if index <= size then
    self.output:narrow(dim, index + pad, size - index + 1):copy(input:narrow(dim, index, size - index + 1))
  end
  return self.output
end

function Padding:updateGradInput(input, gradOutput)
  local dim, index, pad, size = layout(self, input)
  local sizes = input:size():totable()
  sizes[dim] = sizes[dim] + pad
  S.gradLike(name(self), gradOutput, sizes)
  self.gradInput:resizeAs(input)
  if index > 1 then self.gradInput:narrow(dim, 1, index - 1):copy(gradOutput:narrow(dim, 1, index - 1)) end
  if index <= size then
    self.gradInput:narrow(dim, index, size - index + 1):copy(gradOutput:narrow(dim, index + pad, size - index + 1))
  end
  return self.gradInput
end

return Padding
