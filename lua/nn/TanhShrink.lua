-- nn.TanhShrink(): x - tanh(x); dy/dx = tanh(x)^2.
local TanhShrink, parent = torch.class('nn.TanhShrink', 'nn.Module')

function TanhShrink:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  self._tanh = torch.tanh(nn.utils.buffer(self._tanh, input), input)
  self.output = torch.csub(self.output, input, self._tanh)
  return self.output
end

function TanhShrink:updateGradInput(input, gradOutput)
  local t = self._tanh
  self.gradInput = torch.cmul(self.gradInput, gradOutput, t):cmul(t)
  return self.gradInput
end

return TanhShrink
