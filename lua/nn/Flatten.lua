-- nn.Flatten([startDim = 2] [, endDim = -1]): PyTorch's nn.Flatten: dims startDim..endDim
-- (1-based, negative from the end) merged into one; a view when the input allows, a copy
-- otherwise, differentiated through it.
local Flatten, parent = torch.class('nn.Flatten', 'nn.Module')
local A = require 'nn.functional_args'

function Flatten:__init(startDim, endDim)
  parent.__init(self)
  self.startDim = A.int('nn.Flatten', startDim, 'startDim', 2)
  self.endDim = A.int('nn.Flatten', endDim, 'endDim', -1)
end

function Flatten:updateOutput(input)
  if not torch.isTensor(input) then A.fail(tostring(self), 'expected a tensor, got %s', nn.utils.describe(input)) end
  local n = math.max(input:dim(), 1)
  local s = self.startDim < 0 and self.startDim + n + 1 or self.startDim
  local e = self.endDim < 0 and self.endDim + n + 1 or self.endDim
  if s < 1 or s > n or e < 1 or e > n or s > e then
    A.fail(tostring(self), 'dims %d..%d do not fit an input of size %s', self.startDim, self.endDim, A.shape(input))
  end
  local size = {}
  if input:dim() == 0 then size = { 1 }
  else
    local m = 1
    for i = 1, n do
      if i < s or i > e then size[#size + 1] = input:size(i)
      else
        m = m * input:size(i)
        if i == e then size[#size + 1] = m end
      end
    end
  end
  self.output = input:reshape(torch.LongStorage(size))
  return self.output
end

function Flatten:__tostring__()
  return string.format('nn.Flatten(%d, %d)', self.startDim, self.endDim)
end

return Flatten
