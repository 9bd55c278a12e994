-- nn.SoftShrink(lambda=0.5): x - lambda above lambda, x + lambda below -lambda, 0 in between
-- (x - clamp(x, -lambda, lambda)); the gradient passes where |x| > lambda.
require 'nn.HardShrink'
local SoftShrink, parent = torch.class('nn.SoftShrink', 'nn.HardShrink')

--- nn.SoftShrink([lambda=0.5]).
function SoftShrink:__init(lam)
  parent.__init(self, lam)
end

function SoftShrink:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  self:_inside(input)
  local c = torch.clamp(nn.utils.buffer(self._abs, input), input, -self.lambda, self.lambda)
  self._abs = c
  self.output = torch.csub(self.output, input, c)
  return self.output
end

return SoftShrink
