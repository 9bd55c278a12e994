-- nn.MarginCriterion([margin=1]): the two-class hinge loss, sum of max(0, margin - x * y) for
-- targets y in {-1, 1} (divided by the element count when sizeAverage).
local MarginCriterion, parent = torch.class('nn.MarginCriterion', 'nn.Criterion')

--- nn.MarginCriterion([margin=1]); crit.sizeAverage (true) chooses mean or sum.
function MarginCriterion:__init(margin)
  parent.__init(self)
  self.margin = margin or 1
  self.sizeAverage = true
  if type(self.margin) ~= 'number' then
    error(string.format('[nn.MarginCriterion] margin must be a number, got %s', type(margin)), torch._lib.user_level())
  end
end

function MarginCriterion:updateOutput(input, target)
  target = nn.utils.targetAs(self, input, target)
  local z = torch.cmul(nn.utils.buffer(self._z, input), input, target)
  self._z = z
  local s = z:mul(-1):add(self.margin):relu():sum()
  self.output = self.sizeAverage and s / input:nElement() or s
  return self.output
end

-- -y where x * y < margin, 0 elsewhere.
function MarginCriterion:updateGradInput(input, target)
  target = nn.utils.targetAs(self, input, target)
  local norm = self.sizeAverage and 1 / input:nElement() or 1
  local z = torch.cmul(nn.utils.buffer(self._z, input), input, target)
  self._z = z
  self._out = torch.ge(nn.utils.maskBuffer(self._out, z), z, self.margin)
  self.gradInput = torch.mul(self.gradInput, target, -norm):maskedFill(self._out, 0)
  return self.gradInput
end

return MarginCriterion
