-- nn.SmoothL1Criterion([sizeAverage=true]): the Huber loss with delta 1: 0.5 d^2 where |d| < 1,
-- |d| - 0.5 elsewhere (d = x - y), summed (divided by the element count when sizeAverage).
local SmoothL1Criterion, parent = torch.class('nn.SmoothL1Criterion', 'nn.Criterion')

--- nn.SmoothL1Criterion([sizeAverage=true]).
function SmoothL1Criterion:__init(sizeAverage)
  parent.__init(self)
  self.sizeAverage = sizeAverage == nil and true or sizeAverage
end

-- With a = |d| and b = min(a, 1), the loss of an element is b * (a - b / 2).
function SmoothL1Criterion:updateOutput(input, target)
  target = nn.utils.targetAs(self, input, target)
  local a = torch.csub(nn.utils.buffer(self._a, input), input, target):abs()
  local b = torch.clamp(nn.utils.buffer(self._b, input), a, 0, 1)
  self._a, self._b = a, b
  local s = torch.dot(b, a) - 0.5 * torch.dot(b, b)
  self.output = self.sizeAverage and s / input:nElement() or s
  return self.output
end

-- d/dx = clamp(d, -1, 1).
function SmoothL1Criterion:updateGradInput(input, target)
  target = nn.utils.targetAs(self, input, target)
  local norm = self.sizeAverage and 1 / input:nElement() or 1
  self.gradInput = torch.csub(self.gradInput, input, target):clamp(-1, 1):mul(norm)
  return self.gradInput
end

return SmoothL1Criterion
