-- nn.Contiguous(): the input itself when contiguous, else a contiguous copy (same for gradients).
local Contiguous, parent = torch.class('nn.Contiguous', 'nn.Module')

-- x, or a contiguous copy of it in the buffer self[key] (never in a tensor handed out before).
local function contiguous(self, key, x)
  if x:isContiguous() then return x end
  local buf = self[key]
  if not torch.isTensor(buf) or buf:type() ~= x:type() then buf = x.new() self[key] = buf end
  return buf:resizeAs(x):copy(x)
end

function Contiguous:updateOutput(input)
  if not torch.isTensor(input) then error('[nn.Contiguous] expected a tensor, got ' .. torch.type(input), torch._lib.user_level()) end
  self.output = contiguous(self, '_output', input)
  return self.output
end

function Contiguous:updateGradInput(input, gradOutput)
  if not torch.isTensor(gradOutput) or gradOutput:nElement() ~= input:nElement() then
    error('[nn.Contiguous] gradOutput does not match the input of size ' .. table.concat(input:size():totable(), 'x'), torch._lib.user_level())
  end
  self.gradInput = contiguous(self, '_gradInput', gradOutput)
  return self.gradInput
end

return Contiguous
