-- nn.Sigmoid(): 1 / (1 + exp(-x)); the backward reads the output, y * (1 - y).
local Sigmoid, parent = torch.class('nn.Sigmoid', 'nn.Module')

function Sigmoid:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  self.output = torch.sigmoid(self.output, input)
  return self.output
end

function Sigmoid:updateGradInput(input, gradOutput)
  local y = self.output
  local d = torch.mul(nn.utils.buffer(self._d, y), y, -1)
  self._d = d
  d:add(1):cmul(y)
  self.gradInput = torch.cmul(self.gradInput, gradOutput, d)
  return self.gradInput
end

return Sigmoid
