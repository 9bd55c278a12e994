-- nn.Exp(): exp(x) elementwise; the gradient is gradOutput * output.
local Exp, parent = torch.class('nn.Exp', 'nn.Module')

function Exp:updateOutput(input)
  if not torch.isTensor(input) then error('[nn.Exp] expected a tensor input, got ' .. torch.type(input), torch._lib.user_level()) end
  torch.exp(self.output, input)
  return self.output
end

function Exp:updateGradInput(input, gradOutput)
  if not torch.isTensor(gradOutput) or not gradOutput:isSameSizeAs(self.output) then
    error('[nn.Exp] gradOutput does not match the output of size ' .. table.concat(self.output:size():totable(), 'x'), torch._lib.user_level())
  end
  torch.cmul(self.gradInput, gradOutput, self.output)
  return self.gradInput
end

return Exp
