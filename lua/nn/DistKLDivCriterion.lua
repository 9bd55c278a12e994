-- nn.DistKLDivCriterion([sizeAverage=true]): the Kullback-Leibler divergence of target
-- probabilities from input log-probabilities, sum of y * (log y - x) over the elements with y > 0
-- (divided by the element count when sizeAverage).
local DistKLDivCriterion, parent = torch.class('nn.DistKLDivCriterion', 'nn.Criterion')

--- nn.DistKLDivCriterion([sizeAverage=true]).
function DistKLDivCriterion:__init(sizeAverage)
  parent.__init(self)
  self.sizeAverage = sizeAverage == nil and true or sizeAverage
end

function DistKLDivCriterion:updateOutput(input, target)
  target = nn.utils.targetAs(self, input, target)
  self._off = torch.le(nn.utils.maskBuffer(self._off, target), target, 0)
  -- log y with y <= 0 replaced by 1 (its terms are dropped anyway)
  local l = nn.utils.buffer(self._l, input)
  self._l = l
  l:resizeAs(target):copy(target):maskedFill(self._off, 1):log():add(-1, input):cmul(target):maskedFill(self._off, 0)
  local s = l:sum()
  self.output = self.sizeAverage and s / input:nElement() or s
  return self.output
end

function DistKLDivCriterion:updateGradInput(input, target)
  target = nn.utils.targetAs(self, input, target)
  local norm = self.sizeAverage and 1 / input:nElement() or 1
  self._off = torch.le(nn.utils.maskBuffer(self._off, target), target, 0)
  self.gradInput = torch.mul(self.gradInput, target, -norm):maskedFill(self._off, 0)
  return self.gradInput
end

return DistKLDivCriterion
