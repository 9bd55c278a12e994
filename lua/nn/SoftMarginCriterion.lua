-- nn.SoftMarginCriterion([sizeAverage=true]): the two-class logistic loss, sum of
-- log(1 + exp(-y x)) for targets y in {-1, 1} (divided by the element count when sizeAverage).
local SoftMarginCriterion, parent = torch.class('nn.SoftMarginCriterion', 'nn.Criterion')

--- nn.SoftMarginCriterion([sizeAverage=true]).
function SoftMarginCriterion:__init(sizeAverage)
  parent.__init(self)
  self.sizeAverage = sizeAverage == nil and true or sizeAverage
end

-- log(1 + e^z) = max(z, 0) + log1p(e^-|z|), z = -y x.
function SoftMarginCriterion:updateOutput(input, target)
  target = nn.utils.targetAs(self, input, target)
  local z = torch.cmul(nn.utils.buffer(self._z, input), input, target):mul(-1)
  local t = torch.abs(nn.utils.buffer(self._t, input), z)
  self._z, self._t = z, t
  local s = t:neg():exp():log1p():sum() + z:relu():sum()
  self.output = self.sizeAverage and s / input:nElement() or s
  return self.output
end

-- d/dx = -y * sigmoid(-y x).
function SoftMarginCriterion:updateGradInput(input, target)
  target = nn.utils.targetAs(self, input, target)
  local norm = self.sizeAverage and 1 / input:nElement() or 1
  local s = torch.cmul(nn.utils.buffer(self._z, input), input, target):mul(-1):sigmoid()
  self._z = s
  self.gradInput = torch.cmul(self.gradInput, s, target):mul(-norm)
  return self.gradInput
end

return SoftMarginCriterion
