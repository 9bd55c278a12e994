-- nn.CAddTable([inplace]): the elementwise sum of a table of same-size tensors. In place, the sum
-- is accumulated into input[1] and gradInput reuses gradOutput.
local S = require 'nn.support'
local CAddTable, parent = torch.class('nn.CAddTable', 'nn.Module')

-- Note [Outputs fed back]: acc = m:forward({x, acc}) passes the previous output back in; writing
-- input[1] into that buffer first overwrote an input before it was read (a silent wrong result, as
-- in Torch7), so an output buffer that is one of the inputs is replaced (S.outputBuffer,
-- nn/support.lua).
local output_buffer = S.outputBuffer

function CAddTable:__init(ip)
  parent.__init(self)
  self.inplace = S.argBool('nn.CAddTable', 'inplace', ip)
  self.gradInput = {}
end

function CAddTable:updateOutput(input)
  S.tensors(tostring(self), input, nil, 1)
  S.sameSizes(tostring(self), input)
  if self.inplace then self.output = input[1]
  else
    self.output = output_buffer(self, input)
    self.output:resizeAs(input[1]):copy(input[1])
  end
  for i = 2, #input do self.output:add(input[i]) end
  return self.output
end

function CAddTable:updateGradInput(input, gradOutput)
  S.tensors(tostring(self), input, nil, 1)
  S.gradLike(tostring(self), gradOutput, input[1])
  if type(self.gradInput) ~= 'table' then self.gradInput = {} end
  for i = 1, #input do
    if self.inplace then self.gradInput[i] = gradOutput
    else
      local g = self.gradInput[i]
      if not torch.isTensor(g) or g == gradOutput then g = input[i].new() self.gradInput[i] = g end
      g:resizeAs(input[i]):copy(gradOutput)
    end
  end
  for i = #input + 1, #self.gradInput do self.gradInput[i] = nil end
  return self.gradInput
end

return CAddTable
