-- nn.HingeEmbeddingCriterion([margin=1]): for distances x and labels y in {1, -1}: x where y = 1,
-- max(0, margin - x) where y = -1; summed (divided by the element count when sizeAverage). y may
-- be a number for a single distance.
local HingeEmbeddingCriterion, parent = torch.class('nn.HingeEmbeddingCriterion', 'nn.Criterion')

--- nn.HingeEmbeddingCriterion([margin=1]); crit.sizeAverage (true) chooses mean or sum.
function HingeEmbeddingCriterion:__init(margin)
  parent.__init(self)
  self.margin = margin or 1
  self.sizeAverage = true
end

function HingeEmbeddingCriterion:_target(input, y)
  if type(y) == 'number' then
    self._ty = nn.utils.buffer(self._ty, input)
    self._ty:resize(1):fill(y)
    y = self._ty
  end
  y = nn.utils.targetAs(self, input, y)
  if y:nElement() > 0 and torch.ne(torch.abs(y), 1):sum() > 0 then
    error(string.format('[%s] labels must be 1 or -1', tostring(self)), torch._lib.user_level())
  end
  return y
end

function HingeEmbeddingCriterion:updateOutput(input, y)
  y = self:_target(input, y)
  self._pos = torch.eq(nn.utils.maskBuffer(self._pos, y), y, 1)
  local b = nn.utils.buffer(self._b, input)
  self._b = b
  local s = b:resizeAs(input):copy(input):maskedFill(torch.eq(y, -1), 0):sum()
  s = s + b:fill(self.margin):add(-1, input):clamp(0, math.huge):maskedFill(self._pos, 0):sum()
  self.output = self.sizeAverage and s / input:nElement() or s
  return self.output
end

-- 1 where y = 1; -1 where y = -1 and x <= margin; 0 elsewhere (Torch7).
function HingeEmbeddingCriterion:updateGradInput(input, y)
  y = self:_target(input, y)
  local dead = torch.cmul(torch.eq(y, -1), torch.gt(input, self.margin))
  self.gradInput:resizeAs(input):copy(y):maskedFill(dead, 0)
  if self.sizeAverage then self.gradInput:div(input:nElement()) end
  return self.gradInput
end

return HingeEmbeddingCriterion
