-- nn.Log(): log(x) elementwise; the gradient is gradOutput / input.
local Log, parent = torch.class('nn.Log', 'nn.Module')

function Log:updateOutput(input)
  if not torch.isTensor(input) then error('[nn.Log] expected a tensor input, got ' .. torch.type(input), torch._lib.user_level()) end
  torch.log(self.output, input)
  return self.output
end

function Log:updateGradInput(input, gradOutput)
  if not torch.isTensor(gradOutput) or not gradOutput:isSameSizeAs(input) then
    error('[nn.Log] gradOutput does not match the input of size ' .. table.concat(input:size():totable(), 'x'), torch._lib.user_level())
  end
  torch.cdiv(self.gradInput, gradOutput, input)
  return self.gradInput
end

return Log
