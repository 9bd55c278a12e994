-- nn.L1Cost(): the criterion sum |x| over the input (no target, no averaging); its gradient is
-- sign(x), 0 at 0 (Torch7's THNN).
local L1Cost, parent = torch.class('nn.L1Cost', 'nn.Criterion')

function L1Cost:__init()
  parent.__init(self)
end

--- c:forward(input): sum |input| (a target, if given, is ignored as in Torch7).
function L1Cost:updateOutput(input)
  nn.utils.checkFloatInput(self, input, 'a floating-point input tensor')
  self.output = torch.abs(input):sum()
  return self.output
end

function L1Cost:updateGradInput(input)
  nn.utils.checkFloatInput(self, input, 'a floating-point input tensor')
  self.gradInput = torch.sign(input)
  return self.gradInput
end

return L1Cost
