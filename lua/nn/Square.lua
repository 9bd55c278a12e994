-- nn.Square(): x^2 elementwise; the gradient is 2 x gradOutput.
local Square, parent = torch.class('nn.Square', 'nn.Module')

function Square:updateOutput(input)
  if not torch.isTensor(input) then error('[nn.Square] expected a tensor input, got ' .. torch.type(input), torch._lib.user_level()) end
  torch.cmul(self.output, input, input)
  return self.output
end

function Square:updateGradInput(input, gradOutput)
  if not torch.isTensor(gradOutput) or not gradOutput:isSameSizeAs(input) then
    error('[nn.Square] gradOutput does not match the input of size ' .. table.concat(input:size():totable(), 'x'), torch._lib.user_level())
  end
  torch.cmul(self.gradInput, input, gradOutput):mul(2)
  return self.gradInput
end

return Square
