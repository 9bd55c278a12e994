-- nn.ELU(alpha=1[, inplace]): x for x > 0, alpha * (exp(x) - 1) otherwise. The backward reads the
-- output: dy/dx is 1 where y > 0 and y + alpha elsewhere (Torch7's THNN). nn.SELU scales it.
local S = require 'nn.support'
local ELU, parent = torch.class('nn.ELU', 'nn.Module')

--- nn.ELU([alpha=1, inplace=false]).
function ELU:__init(alpha, inplace)
  parent.__init(self)
  self.alpha = alpha or 1
  self.inplace = inplace or false
  self._scale = 1
  if type(self.alpha) ~= 'number' then
    error(string.format('[%s] alpha must be a number, got %s', torch.typename(self), type(alpha)), torch._lib.user_level())
  end
  if type(self.inplace) ~= 'boolean' then
    error(string.format('[%s] the in-place flag must be a boolean, got %s', torch.typename(self), type(inplace)), torch._lib.user_level())
  end
end

-- y = scale * (relu(x) + alpha * expm1(min(x, 0))).
function ELU:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  local neg = torch.cmin(nn.utils.buffer(self._neg, input), input, 0)
  self._neg = neg
  neg:expm1():mul(self.alpha)
  if self.inplace then
    self.output = input:relu():add(neg)
  else
    self.output = torch.relu(self.output, input):add(neg)
  end
  if self._scale ~= 1 then self.output:mul(self._scale) end
  return self.output
end

-- dy/dx = scale where y > 0, y + scale * alpha elsewhere.
function ELU:updateGradInput(input, gradOutput)
  S.gradLike(torch.typename(self), gradOutput, input)
  local d = torch.add(nn.utils.buffer(self._neg, input), self.output, self._scale * self.alpha)
  self._pos = torch.gt(nn.utils.maskBuffer(self._pos, self.output), self.output, 0)
  d:maskedFill(self._pos, self._scale)
  if self.inplace then
    self.gradInput = gradOutput:cmul(d)
  else
    self.gradInput = torch.cmul(self.gradInput, gradOutput, d)
  end
  return self.gradInput
end

function ELU:__tostring__()
  return string.format('%s (alpha:%f)', torch.typename(self), self.alpha)
end

return ELU
