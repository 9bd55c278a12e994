-- nn.MarginRankingCriterion([margin=1]): for a pair {x1, x2} of scores and y in {1, -1} (x1
-- should rank higher when y = 1): max(0, -y (x1 - x2) + margin). x1 and x2 are one-element
-- tensors with a number y, or vectors with a tensor y (summed, divided by the count when
-- sizeAverage).
local MarginRankingCriterion, parent = torch.class('nn.MarginRankingCriterion', 'nn.Criterion')

--- nn.MarginRankingCriterion([margin=1]); crit.sizeAverage (true) chooses mean or sum.
function MarginRankingCriterion:__init(margin)
  parent.__init(self)
  self.margin = margin or 1
  self.sizeAverage = true
  self.gradInput = { torch.Tensor(1), torch.Tensor(1) }
end

-- (x1, x2 as vectors, y as a tensor of their type) checked.
function MarginRankingCriterion:_prepare(input, y)
  local ok = type(input) == 'table' and torch.isTensor(input[1]) and torch.isTensor(input[2])
    and input[1]:nElement() == input[2]:nElement()
  if not ok then
    error(string.format('[%s] expected {x1, x2}: two tensors with as many elements, got %s', tostring(self),
      type(input) == 'table' and (nn.utils.describe(input[1]) .. ' and ' .. nn.utils.describe(input[2]))
        or nn.utils.describe(input)), torch._lib.user_level())
  end
  nn.utils.checkFloatInput(self, input[1])
  local x1, x2 = input[1]:contiguous():view(-1), input[2]:contiguous():view(-1)
  if type(y) == 'number' then
    self._y = nn.utils.buffer(self._y, x1)
    self._y:resize(1):fill(y)
    y = self._y
  end
  if not torch.isTensor(y) or y:nElement() ~= x1:nElement() then
    error(string.format('[%s] expected %d labels, got %s', tostring(self), x1:nElement(), nn.utils.describe(y)), torch._lib.user_level())
  end
  return x1, x2:typeAs(x1), y:typeAs(x1):contiguous():view(-1)
end

-- dist = -y (x1 - x2) + margin
function MarginRankingCriterion:_distances(x1, x2, y)
  self._dist = torch.csub(nn.utils.buffer(self._dist, x1), x1, x2):cmul(y):mul(-1):add(self.margin)
  return self._dist
end

function MarginRankingCriterion:updateOutput(input, y)
  local x1, x2, yy = self:_prepare(input, y)
  local s = self:_distances(x1, x2, yy):clamp(0, math.huge):sum()
  self.output = (self.sizeAverage and type(y) ~= 'number') and s / x1:nElement() or s
  return self.output
end

-- -y for x1 and y for x2 where dist >= 0 (Torch7), 0 elsewhere.
function MarginRankingCriterion:updateGradInput(input, y)
  local x1, x2, yy = self:_prepare(input, y)
  local live = torch.ge(self:_distances(x1, x2, yy), 0):typeAs(x1):cmul(yy)
  if self.sizeAverage and type(y) ~= 'number' then live:div(x1:nElement()) end
  self.gradInput[1] = torch.mul(live, -1):viewAs(input[1])
  self.gradInput[2] = live:viewAs(input[2])
  return self.gradInput
end

return MarginRankingCriterion
