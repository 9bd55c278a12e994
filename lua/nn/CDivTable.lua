-- nn.CDivTable(): input[1] / input[2] elementwise for a table of two same-size tensors.
local S = require 'nn.support'
local CDivTable, parent = torch.class('nn.CDivTable', 'nn.Module')

-- Note [Outputs fed back] (nn/CAddTable.lua): an output buffer that is one of the inputs is replaced.
local output_buffer = S.outputBuffer

function CDivTable:__init()
  parent.__init(self)
  self.gradInput = {}
end

function CDivTable:updateOutput(input)
  S.tensors('nn.CDivTable', input, 2)
  S.sameSizes('nn.CDivTable', input)
  self.output = output_buffer(self, input)
  self.output:resizeAs(input[1]):copy(input[1]):cdiv(input[2])
  return self.output
end

-- d/dx1 = g / x2; d/dx2 = -g x1 / x2^2.
function CDivTable:updateGradInput(input, gradOutput)
  S.tensors('nn.CDivTable', input, 2)
  S.gradLike('nn.CDivTable', gradOutput, input[1])
  local g1 = torch.isTensor(self.gradInput[1]) and self.gradInput[1] or input[1].new()
  local g2 = torch.isTensor(self.gradInput[2]) and self.gradInput[2] or input[2].new()
  g1:resizeAs(input[1]):copy(gradOutput):cdiv(input[2])
  g2:resizeAs(input[2]):zero():addcdiv(-1, g1, input[2]):cmul(input[1])
  self.gradInput = { g1, g2 }
  return self.gradInput
end

return CDivTable
