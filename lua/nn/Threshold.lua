-- nn.Threshold(th, v[, inplace]): y = x if x > th else v. nn.ReLU is Threshold(0, 0).
local Threshold, parent = torch.class('nn.Threshold', 'nn.Module')

function Threshold:__init(th, v, ip)
  parent.__init(self)
  self.threshold = th or 1e-6
  self.val = v or 0
  self.inplace = ip or false
  if self.inplace and self.val > self.threshold then
    error(string.format('[nn.Threshold] in-place needs val (%g) <= threshold (%g)', self.val, self.threshold), 2)
  end
end

function Threshold:updateOutput(input)
  local keep = torch.gt(input, self.threshold)
  if self.threshold == 0 and self.val == 0 then
    if self.inplace then input:relu() self.output = input
    else self.output = torch.relu(self.output:resizeAs(input), input) end
  else
    local r = torch.where(keep, input, self.val)
    if self.inplace then input:copy(r) self.output = input else self.output = r end
  end
  self._mask = keep
  return self.output
end

function Threshold:updateGradInput(input, gradOutput)
  local mask = self._mask:typeAs(gradOutput)
  if self.inplace then
    gradOutput:cmul(mask)
    self.gradInput = gradOutput
  else
    self.gradInput = torch.cmul(self.gradInput:resizeAs(gradOutput), gradOutput, mask)
  end
  return self.gradInput
end

function Threshold:__tostring__()
  return string.format('nn.Threshold(%g, %g%s)', self.threshold, self.val, self.inplace and ', inplace' or '')
end

return Threshold
