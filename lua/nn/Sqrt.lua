-- nn.Sqrt([eps = 0]): sqrt(x + eps) elementwise; the gradient is 0.5 gradOutput / output, and 0
-- where the output is 0 (Torch7's THNN).
local Sqrt, parent = torch.class('nn.Sqrt', 'nn.Module')

-- Note [Sqrt eps]: Torch7 stored eps but its THNN kernel ignored it; it is applied here (the
-- default 0 gives Torch7's results).
function Sqrt:__init(b)
  parent.__init(self)
  if b ~= nil and type(b) ~= 'number' then error('[nn.Sqrt] eps must be a number, got ' .. torch.type(b), torch._lib.user_level()) end
  self.eps = b or 0
end

function Sqrt:updateOutput(input)
  if not torch.isTensor(input) then error('[nn.Sqrt] expected a tensor input, got ' .. torch.type(input), torch._lib.user_level()) end
  self.output:resizeAs(input):copy(input)
  if self.eps ~= 0 then self.output:add(self.eps) end
  self.output:sqrt()
  return self.output
end

function Sqrt:updateGradInput(input, gradOutput)
  if not torch.isTensor(gradOutput) or not gradOutput:isSameSizeAs(self.output) then
    error('[nn.Sqrt] gradOutput does not match the output of size ' .. table.concat(self.output:size():totable(), 'x'), torch._lib.user_level())
  end
  local zero = torch.eq(self.output, 0)
  self.gradInput:resizeAs(input):copy(gradOutput):mul(0.5):cdiv(self.output)
  if zero:sum() > 0 then self.gradInput:maskedFill(zero, 0) end
  return self.gradInput
end

return Sqrt
