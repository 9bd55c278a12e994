-- nn.CMulTable(): the elementwise product of a table of same-size tensors.
local S = require 'nn.support'
local CMulTable, parent = torch.class('nn.CMulTable', 'nn.Module')

-- Note [Outputs fed back] (nn/CAddTable.lua): an output buffer that is one of the inputs is replaced.
local output_buffer = S.outputBuffer

function CMulTable:__init()
  parent.__init(self)
  self.gradInput = {}
end

function CMulTable:updateOutput(input)
  S.tensors('nn.CMulTable', input, nil, 1)
  S.sameSizes('nn.CMulTable', input)
  self.output = output_buffer(self, input)
  self.output:resizeAs(input[1]):copy(input[1])
  for i = 2, #input do self.output:cmul(input[i]) end
  return self.output
end

-- d/dx_i = gradOutput * prod_{j ~= i} x_j (products of the others, so zeros in x_i are fine).
function CMulTable:updateGradInput(input, gradOutput)
  S.tensors('nn.CMulTable', input, nil, 1)
  S.gradLike('nn.CMulTable', gradOutput, input[1])
  if type(self.gradInput) ~= 'table' then self.gradInput = {} end
  for i = 1, #input do
    local g = torch.isTensor(self.gradInput[i]) and self.gradInput[i] or input[1].new()
    g:resizeAs(input[i]):copy(gradOutput)
    for j = 1, #input do if j ~= i then g:cmul(input[j]) end end
    self.gradInput[i] = g
  end
  for i = #input + 1, #self.gradInput do self.gradInput[i] = nil end
  return self.gradInput
end

return CMulTable
