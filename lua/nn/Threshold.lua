-- nn.Threshold(th=1e-6, v=0[, inplace]): y = x if x > th else v; the gradient passes where
-- x > th. nn.ReLU is Threshold(0, 0), with its own faster path.
local S = require 'nn.support'
local Threshold, parent = torch.class('nn.Threshold', 'nn.Module')

--- nn.Threshold([th=1e-6, v=0, inplace=false]); in place needs v <= th.
function Threshold:__init(th, v, ip)
  parent.__init(self)
  self.threshold = th or 1e-6
  self.val = v or 0
  self.inplace = ip or false
  if type(self.threshold) ~= 'number' or type(self.val) ~= 'number' then
    error(string.format('[nn.Threshold] threshold and value must be numbers, got %s and %s', tostring(th),
      tostring(v)), torch._lib.user_level())
  end
  if self.inplace and self.val > self.threshold then
    error(string.format('[nn.Threshold] in-place needs val (%g) <= threshold (%g)', self.val, self.threshold), torch._lib.user_level())
  end
end

-- Note [ReLU without masks]: for th = v = 0 the output is relu(x) and the gradient
-- reluBackward(gradOutput, y) (gradOutput where y > 0, i.e. where x > 0): one pass over the
-- data and no temporaries. Otherwise a ByteTensor mask of x <= th is kept for the backward
-- (in place, the input is overwritten, and v <= th keeps the mask computable from the output).
function Threshold:updateOutput(input)
  nn.utils.checkFloatInput(self, input)
  if self.threshold == 0 and self.val == 0 then
    if self.inplace then
      self.output = input:relu()
    else
      self.output = torch.relu(self.output, input)
    end
    return self.output
  end
  self._mask = torch.le(nn.utils.maskBuffer(self._mask, input), input, self.threshold)
  if self.inplace then
    self.output = input
  else
    self.output:resizeAs(input):copy(input)
  end
  self.output:maskedFill(self._mask, self.val)
  return self.output
end

function Threshold:updateGradInput(input, gradOutput)
  S.gradLike(torch.typename(self), gradOutput, input)
  if self.threshold == 0 and self.val == 0 then
    if self.inplace then
      self.gradInput = torch.reluBackward(gradOutput, gradOutput, self.output)
    else
      self.gradInput = torch.reluBackward(self.gradInput, gradOutput, self.output)
    end
    return self.gradInput
  end
  if self.inplace then
    self.gradInput = gradOutput
  else
    self.gradInput:resizeAs(gradOutput):copy(gradOutput)
  end
  self.gradInput:maskedFill(self._mask, 0)
  return self.gradInput
end

function Threshold:__tostring__()
  return string.format('nn.Threshold(%g, %g%s)', self.threshold, self.val, self.inplace and ', inplace' or '')
end

return Threshold
