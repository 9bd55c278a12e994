-- nn.MSECriterion([sizeAverage=true]): mean (or sum) of (input - target)^2.
local MSECriterion, parent = torch.class('nn.MSECriterion', 'nn.Criterion')

--- nn.MSECriterion([sizeAverage=true]).
function MSECriterion:__init(sizeAverage)
  parent.__init(self)
  self.sizeAverage = sizeAverage == nil and true or sizeAverage
end

function MSECriterion:updateOutput(input, target)
  target = nn.utils.targetAs(self, input, target)
  local d = torch.csub(nn.utils.buffer(self._diff, input), input, target)
  self._diff = d
  local s = torch.dot(d, d)
  self.output = self.sizeAverage and s / input:nElement() or s
  return self.output
end

function MSECriterion:updateGradInput(input, target)
  target = nn.utils.targetAs(self, input, target)
  local norm = self.sizeAverage and 2 / input:nElement() or 2
  self.gradInput = torch.csub(self.gradInput, input, target):mul(norm)
  return self.gradInput
end

return MSECriterion
