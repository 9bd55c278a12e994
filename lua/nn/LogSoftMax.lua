-- nn.LogSoftMax(): log(softmax(x)) over the class dim (see nn.utils.softmaxDim); the backward
-- reads the output: gradOutput - exp(y) * sum(gradOutput).
local S = require 'nn.support'
local LogSoftMax, parent = torch.class('nn.LogSoftMax', 'nn.Module')

function LogSoftMax:updateOutput(input)
  self.output = torch.logSoftmax(input, nn.utils.softmaxDim(self, input))
  return self.output
end

function LogSoftMax:updateGradInput(input, gradOutput)
  S.gradLike(torch.typename(self), gradOutput, input)
  local y, d = self.output, nn.utils.softmaxDim(self, input)
  self._sum = torch.sum(nn.utils.buffer(self._sum, y), gradOutput, d)
  self._exp = torch.exp(nn.utils.buffer(self._exp, y), y)
  self.gradInput:resizeAs(gradOutput):copy(gradOutput):addcmul(-1, self._exp, self._sum)
  return self.gradInput
end

return LogSoftMax
