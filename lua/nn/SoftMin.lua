-- nn.SoftMin(): softmax of -x over the class dim (see nn.utils.softmaxDim).
local S = require 'nn.support'
local SoftMin, parent = torch.class('nn.SoftMin', 'nn.Module')

function SoftMin:updateOutput(input)
  local d = nn.utils.softmaxDim(self, input)
  self._neg = torch.neg(nn.utils.buffer(self._neg, input), input)
  self.output = torch.softmax(self._neg, d)
  return self.output
end

-- -y * (gradOutput - sum(gradOutput * y)).
function SoftMin:updateGradInput(input, gradOutput)
  S.gradLike(torch.typename(self), gradOutput, input)
  local y, d = self.output, nn.utils.softmaxDim(self, input)
  self._gy = torch.cmul(nn.utils.buffer(self._gy, y), gradOutput, y)
  self._sum = torch.sum(nn.utils.buffer(self._sum, y), self._gy, d)
  self.gradInput = torch.csub(self.gradInput, self._sum, gradOutput):cmul(y)
  return self.gradInput
end

return SoftMin
