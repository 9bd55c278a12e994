-- nn.Power(p): x^p elementwise; the gradient is p x^(p-1) gradOutput.
local Power, parent = torch.class('nn.Power', 'nn.Module')

function Power:__init(p)
  parent.__init(self)
  if type(p) ~= 'number' then error('[nn.Power] usage: nn.Power(p) with a number p, got ' .. torch.type(p), torch._lib.user_level()) end
  self.pow = p
end

function Power:updateOutput(input)
  if not torch.isTensor(input) then
    error(string.format('[nn.Power(%g)] expected a tensor input, got %s', self.pow, torch.type(input)), torch._lib.user_level())
  end
  torch.pow(self.output, input, self.pow)
  return self.output
end

function Power:updateGradInput(input, gradOutput)
  if not torch.isTensor(gradOutput) or not gradOutput:isSameSizeAs(input) then
    error(string.format('[nn.Power(%g)] gradOutput does not match the input of size %s', self.pow,
      table.concat(input:size():totable(), 'x')), torch._lib.user_level())
  end
  if self.pow == 0 then  -- the derivative of a constant: 0 x^-1 would be NaN at x = 0 (as PyTorch)
    self.gradInput:resizeAs(input):zero()
    return self.gradInput
  end
  torch.pow(self.gradInput, input, self.pow - 1)
  self.gradInput:cmul(gradOutput):mul(self.pow)
  return self.gradInput
end

return Power
