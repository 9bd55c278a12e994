-- nn.MulConstant(c[, inplace]): input * c. In place, the input itself is scaled and backward
-- restores it (dividing by c), as Torch7 does.
local S = require 'nn.support'
local MulConstant, parent = torch.class('nn.MulConstant', 'nn.Module')

function MulConstant:__init(constant_scalar, ip)
  parent.__init(self)
  self.constant_scalar = S.argNumber('nn.MulConstant', 'the constant', constant_scalar)
  self.inplace = S.argBool('nn.MulConstant', 'inplace', ip)
  if self.inplace and constant_scalar == 0 then
    error('[nn.MulConstant] in place needs a non-zero constant (backward divides by it)', torch._lib.user_level())
  end
end

local function name(self) return string.format('nn.MulConstant(%g%s)', self.constant_scalar, self.inplace and ', inplace' or '') end

function MulConstant:updateOutput(input)
  S.tensor(name(self), input)
  if self.inplace then
    input:mul(self.constant_scalar)
    self.output = input
  else
    if not torch.isTensor(self.output) or self.output == input then self.output = input.new() end
    self.output:resizeAs(input):copy(input):mul(self.constant_scalar)
  end
  return self.output
end

function MulConstant:updateGradInput(input, gradOutput)
  S.gradLike(name(self), gradOutput, input)
  if self.inplace then
    gradOutput:mul(self.constant_scalar)
    self.gradInput = gradOutput
    input:div(self.constant_scalar)
  else
    if not torch.isTensor(self.gradInput) or self.gradInput == gradOutput then self.gradInput = gradOutput.new() end
    self.gradInput:resizeAs(gradOutput):copy(gradOutput):mul(self.constant_scalar)
  end
  return self.gradInput
end

return MulConstant
