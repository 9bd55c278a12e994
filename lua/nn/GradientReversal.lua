-- nn.GradientReversal([lambda = 1]): the identity forward; backward multiplies the gradient by
-- -lambda (domain-adversarial training, Ganin & Lempitsky 2015).
local S = require 'nn.support'
local GradientReversal, parent = torch.class('nn.GradientReversal', 'nn.Module')

function GradientReversal:__init(lambda)
  parent.__init(self)
  self.lambda = lambda or 1
  if type(self.lambda) ~= 'number' then
    error(string.format('[nn.GradientReversal] expected a number lambda, got %s', type(lambda)), torch._lib.user_level())
  end
end

--- g:setLambda(lambda): changes the gradient multiplier (-lambda).
function GradientReversal:setLambda(lambda)
  self.lambda = lambda
end

local function check_input(self, input, what)
  if not torch.isTensor(input) then
    error(string.format('[%s] expected a tensor %s, got %s', tostring(self), what or 'input', type(input)), torch._lib.user_level())
  end
end

function GradientReversal:updateOutput(input)
  check_input(self, input)
  -- a view of the input (Torch7's set), of the input's type: set cannot retype a tensor
  if self.output:type() ~= input:type() then self.output = input.new() end
  self.output:set(input)
  return self.output
end

function GradientReversal:updateGradInput(input, gradOutput)
  S.gradLike(torch.typename(self), gradOutput, input)
  torch.mul(self.gradInput:resizeAs(gradOutput), gradOutput, -self.lambda)
  return self.gradInput
end

function GradientReversal:__tostring__()
  return string.format('%s(%g)', torch.typename(self), self.lambda)
end

return GradientReversal
