-- nn.LogSigmoid(): log(1 / (1 + exp(-x))), computed as min(x, 0) - log1p(exp(-|x|)) so that it is
-- finite for every x; dy/dx = sigmoid(-x).
local S = require 'nn.support'
local LogSigmoid, parent = torch.class('nn.LogSigmoid', 'nn.Module')

function LogSigmoid:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  local t = torch.abs(nn.utils.buffer(self._t, input), input)
  self._t = t
  t:neg():exp():log1p()
  self.output = torch.cmin(self.output, input, 0):add(-1, t)
  return self.output
end

function LogSigmoid:updateGradInput(input, gradOutput)
  S.gradLike(torch.typename(self), gradOutput, input)
  local s = torch.neg(nn.utils.buffer(self._t, input), input)
  self._t = s
  s:sigmoid()
  self.gradInput = torch.cmul(self.gradInput, gradOutput, s)
  return self.gradInput
end

return LogSigmoid
