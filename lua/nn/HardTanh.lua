-- nn.HardTanh(min=-1, max=1[, inplace]): clamps to [min, max]; the gradient is zero outside the
-- open interval (min, max), as in Torch7. nn.Clamp and nn.ReLU6 build on it.
local S = require 'nn.support'
local HardTanh, parent = torch.class('nn.HardTanh', 'nn.Module')

--- nn.HardTanh([min_value=-1, max_value=1, inplace=false]).
function HardTanh:__init(min_value, max_value, inplace)
  parent.__init(self)
  self.min_val = min_value or -1
  self.max_val = max_value or 1
  self.inplace = inplace or false
  if type(self.min_val) ~= 'number' or type(self.max_val) ~= 'number' or self.max_val <= self.min_val then
    error(string.format('[%s] max_value must be a number larger than min_value, got %s and %s',
      torch.typename(self), tostring(min_value), tostring(max_value)), torch._lib.user_level())
  end
  if type(self.inplace) ~= 'boolean' then
    error(string.format('[%s] the in-place flag must be a boolean, got %s', torch.typename(self), type(inplace)), torch._lib.user_level())
  end
end

function HardTanh:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  if self.inplace then
    input:clamp(self.min_val, self.max_val)
    self.output = input
  else
    self.output = torch.clamp(self.output, input, self.min_val, self.max_val)
  end
  return self.output
end

-- Zero where the output sits on a bound (the input was at or beyond it; in place the input is
-- the output).
function HardTanh:updateGradInput(input, gradOutput)
  S.gradLike(torch.typename(self), gradOutput, input)
  local out = self.output
  self._lo = torch.le(nn.utils.maskBuffer(self._lo, out), out, self.min_val)
  self._hi = torch.ge(nn.utils.maskBuffer(self._hi, out), out, self.max_val)
  if self.inplace then
    self.gradInput = gradOutput
  else
    self.gradInput:resizeAs(gradOutput):copy(gradOutput)
  end
  self.gradInput:maskedFill(self._lo, 0):maskedFill(self._hi, 0)
  return self.gradInput
end

function HardTanh:__tostring__()
  return torch.typename(self)
end

return HardTanh
