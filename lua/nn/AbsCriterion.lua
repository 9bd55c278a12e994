-- nn.AbsCriterion([sizeAverage=true]): sum |x - y| (divided by the element count when
-- sizeAverage); the gradient is +1 where x >= y and -1 elsewhere (Torch7's THNN).
local AbsCriterion, parent = torch.class('nn.AbsCriterion', 'nn.Criterion')

--- nn.AbsCriterion([sizeAverage=true]).
function AbsCriterion:__init(sizeAverage)
  parent.__init(self)
  self.sizeAverage = sizeAverage == nil and true or sizeAverage
end

function AbsCriterion:updateOutput(input, target)
  target = nn.utils.targetAs(self, input, target)
  self._diff = torch.csub(nn.utils.buffer(self._diff, input), input, target)
  local s = self._diff:abs():sum()
  self.output = self.sizeAverage and s / input:nElement() or s
  return self.output
end

function AbsCriterion:updateGradInput(input, target)
  target = nn.utils.targetAs(self, input, target)
  local norm = self.sizeAverage and 1 / input:nElement() or 1
  self._ge = torch.ge(nn.utils.maskBuffer(self._ge, input), input, target)
  self.gradInput:resizeAs(input):copy(self._ge):mul(2 * norm):add(-norm)
  return self.gradInput
end

return AbsCriterion
