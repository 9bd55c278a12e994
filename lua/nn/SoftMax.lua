-- nn.SoftMax(): exp(x) / sum(exp(x)) over the class dim (see nn.utils.softmaxDim); the backward
-- reads the output: y * (gradOutput - sum(gradOutput * y)).
local S = require 'nn.support'
local SoftMax, parent = torch.class('nn.SoftMax', 'nn.Module')

function SoftMax:updateOutput(input)
  self.output = torch.softmax(input, nn.utils.softmaxDim(self, input))
  return self.output
end

function SoftMax:updateGradInput(input, gradOutput)
  S.gradLike(torch.typename(self), gradOutput, input)
  local y, d = self.output, nn.utils.softmaxDim(self, input)
  self._gy = torch.cmul(nn.utils.buffer(self._gy, y), gradOutput, y)
  self._sum = torch.sum(nn.utils.buffer(self._sum, y), self._gy, d)
  self.gradInput = torch.csub(self.gradInput, gradOutput, self._sum):cmul(y)
  return self.gradInput
end

return SoftMax
