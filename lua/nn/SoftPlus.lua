-- nn.SoftPlus(beta=1, threshold=20): log(1 + exp(beta x)) / beta, and x itself where
-- beta x > threshold (Torch7); dy/dx = sigmoid(beta x), or 1 above the threshold.
local S = require 'nn.support'
local SoftPlus, parent = torch.class('nn.SoftPlus', 'nn.Module')

--- nn.SoftPlus([beta=1, threshold=20]).
function SoftPlus:__init(beta, threshold)
  parent.__init(self)
  self.beta = beta or 1
  self.threshold = threshold or 20
  if type(self.beta) ~= 'number' or self.beta <= 0 or type(self.threshold) ~= 'number' then
    error(string.format('[nn.SoftPlus] expected beta > 0 and a numeric threshold, got %s and %s',
      tostring(beta), tostring(threshold)), torch._lib.user_level())
  end
end

function SoftPlus:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  local bx = torch.mul(nn.utils.buffer(self._bx, input), input, self.beta)
  self._bx = bx
  self._above = torch.gt(nn.utils.maskBuffer(self._above, bx), bx, self.threshold)
  -- log(1 + e^z) = max(z, 0) + log1p(e^-|z|): finite for every z.
  local t = torch.abs(nn.utils.buffer(self._t, input), bx)
  self._t = t
  t:neg():exp():log1p()
  self.output = torch.relu(self.output, bx):add(t):div(self.beta)
  self.output:maskedCopy(self._above, torch.maskedSelect(input, self._above))
  return self.output
end

function SoftPlus:updateGradInput(input, gradOutput)
  S.gradLike(torch.typename(self), gradOutput, input)
  local s = torch.sigmoid(nn.utils.buffer(self._t, input), self._bx)
  self._t = s
  s:maskedFill(self._above, 1)
  self.gradInput = torch.cmul(self.gradInput, gradOutput, s)
  return self.gradInput
end

return SoftPlus
