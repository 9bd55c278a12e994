-- nn.ZeroGrad(): passes its input through (a tensor or a table) and sends back a zero gradient
-- (Torch7): the path behind it gets no gradient, in Torch7's backward and under autograd.
local S = require 'nn.support'
local ZeroGrad, parent = torch.class('nn.ZeroGrad', 'nn.Module')

function ZeroGrad:updateOutput(input)
  if not torch.isTensor(input) and type(input) ~= 'table' then
    S.fail('nn.ZeroGrad', 'expected a tensor or a table of tensors, got %s', S.describe(input))
  end
  self.output = input
  return input
end

-- Zeros shaped like the input (a coarse autograd node: nothing flows through it).
function ZeroGrad:updateGradInput(input, gradOutput)
  S.checkLike('nn.ZeroGrad', 'gradOutput', gradOutput, input)
  self.gradInput = torch.noGrad(S.zeroLike, self.gradInput, input)
  return self.gradInput
end

return ZeroGrad
