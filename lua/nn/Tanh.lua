-- nn.Tanh(): tanh(x); the backward reads the output, 1 - y^2.
local Tanh, parent = torch.class('nn.Tanh', 'nn.Module')

function Tanh:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  self.output = torch.tanh(self.output, input)
  return self.output
end

function Tanh:updateGradInput(input, gradOutput)
  local y = self.output
  local d = torch.cmul(nn.utils.buffer(self._d, y), y, y)
  self._d = d
  d:mul(-1):add(1)
  self.gradInput = torch.cmul(self.gradInput, gradOutput, d)
  return self.gradInput
end

return Tanh
