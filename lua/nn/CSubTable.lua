-- nn.CSubTable(): input[1] - input[2] for a table of two same-size tensors.
local S = require 'nn.support'
local CSubTable, parent = torch.class('nn.CSubTable', 'nn.Module')

-- Note [Outputs fed back] (nn/CAddTable.lua): an output buffer that is one of the inputs is replaced.
local output_buffer = S.outputBuffer

function CSubTable:__init()
  parent.__init(self)
  self.gradInput = {}
end

function CSubTable:updateOutput(input)
  S.tensors('nn.CSubTable', input, 2)
  S.sameSizes('nn.CSubTable', input)
  self.output = output_buffer(self, input)
  self.output:resizeAs(input[1]):copy(input[1]):add(-1, input[2])
  return self.output
end

function CSubTable:updateGradInput(input, gradOutput)
  S.tensors('nn.CSubTable', input, 2)
  S.gradLike('nn.CSubTable', gradOutput, input[1])
  local g1 = torch.isTensor(self.gradInput[1]) and self.gradInput[1] or input[1].new()
  local g2 = torch.isTensor(self.gradInput[2]) and self.gradInput[2] or input[2].new()
  g1:resizeAs(input[1]):copy(gradOutput)
  g2:resizeAs(input[2]):copy(gradOutput):mul(-1)
  self.gradInput = { g1, g2 }
  return self.gradInput
end

return CSubTable
