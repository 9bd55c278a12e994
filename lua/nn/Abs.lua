-- nn.Abs(): |x| elementwise; the gradient is gradOutput * (x >= 0 and 1 or -1) (Torch7's THNN).
local Abs, parent = torch.class('nn.Abs', 'nn.Module')

function Abs:updateOutput(input)
  if not torch.isTensor(input) then error('[nn.Abs] expected a tensor input, got ' .. torch.type(input), torch._lib.user_level()) end
  torch.abs(self.output, input)
  return self.output
end

function Abs:updateGradInput(input, gradOutput)
  if not torch.isTensor(gradOutput) or not gradOutput:isSameSizeAs(input) then
    error('[nn.Abs] gradOutput does not match the input of size ' .. table.concat(input:size():totable(), 'x'), torch._lib.user_level())
  end
  -- 2 * (x >= 0) - 1: +1 at zero, like THNN.
  self.gradInput:resizeAs(input):copy(torch.ge(input, 0)):mul(2):add(-1):cmul(gradOutput)
  return self.gradInput
end

return Abs
