-- nn.OneHot(outputSize): class indices (1..outputSize, any tensor type holding whole numbers) ->
-- one-hot vectors along a new last dim (Torch7's nn, from dpnn): an input of size S gives
-- S x outputSize, of the module's type; a number gives a vector of outputSize. The indices get a
-- zero gradient.
local S = require 'nn.support'
local OneHot, parent = torch.class('nn.OneHot', 'nn.Module')

function OneHot:__init(outputSize)
  parent.__init(self)
  S.argInt('nn.OneHot', 'outputSize', outputSize, 1)
  self.outputSize = outputSize
end

local function name(self) return string.format('nn.OneHot(%d)', self.outputSize) end

local function one_hot(self, input)
  if type(input) == 'number' then  -- Torch7's single index: a vector of outputSize
    if input ~= math.floor(input) or input < 1 or input > self.outputSize then
      S.fail(name(self), 'expected a whole number in 1..%d, got %s', self.outputSize, tostring(input))
    end
    local out = self.output.new(self.outputSize):zero()
    out[input] = 1
    return out
  end
  if not torch.isTensor(input) or input:dim() == 0 then
    S.fail(name(self), 'expected a tensor of class indices or a number, got %s', S.describe(input))
  end
  local idx = input:contiguous():view(input:nElement(), 1)
  if idx:nElement() > 0 then
    local lo, hi = idx:min(), idx:max()
    local whole = not nn.utils.isFloating(idx) or idx:eq(idx:clone():floor()):all()
    if not whole or lo < 1 or hi > self.outputSize then
      S.fail(name(self), 'expected whole numbers in 1..%d, got values in [%g, %g]%s', self.outputSize, lo, hi,
        whole and '' or ' (not all whole)')
    end
  end
  local size = input:size():totable()
  size[#size + 1] = self.outputSize
  -- of the module's type (self.output's, as in Torch7); the indices as a LongTensor for scatter
  self._input = nn.utils.longBuffer(self._input, idx):resize(idx:size()):copy(idx)
  local out = self.output.new(idx:nElement(), self.outputSize):zero():scatter(2, self._input, 1)
  return out:view(torch.LongStorage(size))
end

function OneHot:updateOutput(input)
  self.output = torch.noGrad(one_hot, self, input)
  return self.output
end

function OneHot:updateGradInput(input, gradOutput)
  if type(input) == 'number' then return 0 end  -- Torch7's answer for a number input
  self.gradInput = torch.noGrad(S.zeroLike, self.gradInput, input)
  return self.gradInput
end

return OneHot
