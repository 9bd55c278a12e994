-- nn.CMaxTable(): the elementwise maximum of a table of same-size tensors; the gradient goes to
-- the input holding the maximum (the first one on ties). nn.CMinTable inherits all but the
-- comparison.
local S = require 'nn.support'
local CMaxTable, parent = torch.class('nn.CMaxTable', 'nn.Module')
CMaxTable._better, CMaxTable._combine = 'gt', 'cmax'  -- nn.CMinTable sets 'lt', 'cmin'

-- Note [Outputs fed back] (nn/CAddTable.lua): an output buffer that is one of the inputs is replaced.
local output_buffer = S.outputBuffer

function CMaxTable:__init()
  parent.__init(self)
  self.gradInput = {}
end

function CMaxTable:updateOutput(input)
  local name = torch.typename(self)
  S.tensors(name, input, nil, 1)
  S.sameSizes(name, input)
  self._idx = nn.utils.longBuffer(self._idx, input[1])
  self._idx:resize(input[1]:size()):fill(1)
  self.output = output_buffer(self, input)
  self.output:resizeAs(input[1]):copy(input[1])
  for i = 2, #input do
    self._idx:maskedFill(torch[self._better](input[i], self.output), i)
    self.output[self._combine](self.output, input[i])
  end
  return self.output
end

function CMaxTable:updateGradInput(input, gradOutput)
  S.tensors(torch.typename(self), input, nil, 1)
  S.gradLike(torch.typename(self), gradOutput, input[1])
  if type(self.gradInput) ~= 'table' then self.gradInput = {} end
  for i = 1, #input do
    local g = torch.isTensor(self.gradInput[i]) and self.gradInput[i] or input[1].new()
    g:resizeAs(input[i]):copy(gradOutput):cmul(torch.eq(self._idx, i):typeAs(gradOutput))
    self.gradInput[i] = g
  end
  for i = #input + 1, #self.gradInput do self.gradInput[i] = nil end
  return self.gradInput
end

return CMaxTable
