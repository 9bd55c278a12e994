-- nn.HardShrink(lambda=0.5): x where |x| > lambda, 0 elsewhere; the gradient passes where |x| > lambda.
local S = require 'nn.support'
local HardShrink, parent = torch.class('nn.HardShrink', 'nn.Module')

--- nn.HardShrink([lambda=0.5]).
function HardShrink:__init(lam)
  parent.__init(self)
  self.lambda = lam or 0.5
  if type(self.lambda) ~= 'number' or self.lambda < 0 then
    error(string.format('[%s] lambda must be a non-negative number, got %s', torch.typename(self), tostring(lam)), torch._lib.user_level())
  end
end

-- The mask of elements inside [-lambda, lambda] (they are zeroed), kept for the backward.
function HardShrink:_inside(input)
  local a = torch.abs(nn.utils.buffer(self._abs, input), input)
  self._abs = a
  self._in = torch.le(nn.utils.maskBuffer(self._in, a), a, self.lambda)
  return self._in
end

function HardShrink:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  local inside = self:_inside(input)
  self.output:resizeAs(input):copy(input):maskedFill(inside, 0)
  return self.output
end

function HardShrink:updateGradInput(input, gradOutput)
  S.gradLike(torch.typename(self), gradOutput, input)
  self.gradInput:resizeAs(gradOutput):copy(gradOutput):maskedFill(self._in, 0)
  return self.gradInput
end

function HardShrink:__tostring__()
  return torch.typename(self)
end

return HardShrink
