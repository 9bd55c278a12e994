-- nn.SoftSign(): x / (1 + |x|); dy/dx = 1 / (1 + |x|)^2.
local S = require 'nn.support'
local SoftSign, parent = torch.class('nn.SoftSign', 'nn.Module')

function SoftSign:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  local d = torch.abs(nn.utils.buffer(self._d, input), input)
  self._d = d
  d:add(1)
  self.output = torch.cdiv(self.output, input, d)
  return self.output
end

function SoftSign:updateGradInput(input, gradOutput)
  S.gradLike(torch.typename(self), gradOutput, input)
  local d = torch.abs(nn.utils.buffer(self._d, input), input)
  self._d = d
  d:add(1):cmul(d)
  self.gradInput = torch.cdiv(self.gradInput, gradOutput, d)
  return self.gradInput
end

return SoftSign
