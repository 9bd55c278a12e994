-- nn.SiLU(): x * sigmoid(x) (also called swish).
local SiLU, parent = torch.class('nn.SiLU', 'nn.Module')

--- nn.SiLU().
function SiLU:__init()
  parent.__init(self)
end

function SiLU:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  self._sig = torch.sigmoid(nn.utils.buffer(self._sig, input), input)
  self.output = torch.cmul(self.output, input, self._sig)
  return self.output
end

-- dy/dx = s * (1 + x * (1 - s)), s = sigmoid(x).
function SiLU:updateGradInput(input, gradOutput)
  local s = self._sig
  local d = torch.mul(nn.utils.buffer(self._d, input), s, -1)
  self._d = d
  d:add(1):cmul(input):add(1):cmul(s)
  self.gradInput = torch.cmul(self.gradInput, gradOutput, d)
  return self.gradInput
end

return SiLU
