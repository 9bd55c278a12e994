-- nn.CosineEmbeddingCriterion([margin=0]): for a pair {x1, x2} (vectors, or batches of rows) and
-- labels y in {1, -1}: 1 - cos(x1, x2) where y = 1, max(0, cos(x1, x2) - margin) where y = -1,
-- summed over the batch (divided by its size when sizeAverage). Squared norms get 1e-12 added.
local CosineEmbeddingCriterion, parent = torch.class('nn.CosineEmbeddingCriterion', 'nn.Criterion')

local eps = 1e-12

--- nn.CosineEmbeddingCriterion([margin=0]); crit.sizeAverage (true) chooses mean or sum.
function CosineEmbeddingCriterion:__init(margin)
  parent.__init(self)
  self.margin = margin or 0
  self.sizeAverage = true
  self.gradInput = { torch.Tensor(), torch.Tensor() }
end

-- (x1, x2 as N x D, y as an N x 1 tensor of x1's type) checked.
function CosineEmbeddingCriterion:_prepare(input, y)
  local ok = type(input) == 'table' and torch.isTensor(input[1]) and torch.isTensor(input[2])
    and input[1]:isSameSizeAs(input[2]) and (input[1]:dim() == 1 or input[1]:dim() == 2)
  if not ok then
    error(string.format('[%s] expected {x1, x2}: two vectors or N x D batches of the same size, got %s',
      tostring(self), type(input) == 'table' and (nn.utils.describe(input[1]) .. ' and ' .. nn.utils.describe(input[2]))
        or nn.utils.describe(input)), torch._lib.user_level())
  end
  nn.utils.checkFloatInput(self, input[1])
  local x1, x2 = input[1], input[2]
  if x1:dim() == 1 then x1, x2 = x1:view(1, -1), x2:view(1, -1) end
  if type(y) == 'number' then
    self._y = nn.utils.buffer(self._y, x1)
    self._y:resize(1):fill(y)
    y = self._y
  end
  if not torch.isTensor(y) or y:nElement() ~= x1:size(1) then
    error(string.format('[%s] expected %d labels, got %s', tostring(self), x1:size(1), nn.utils.describe(y)), torch._lib.user_level())
  end
  y = y:typeAs(x1):contiguous():view(-1, 1)
  if torch.ne(torch.abs(y), 1):sum() > 0 then error(string.format('[%s] labels must be 1 or -1', tostring(self)), torch._lib.user_level()) end
  return x1, x2, y
end

-- Per-row dot product, inverse squared norms and 1 / (|x1| |x2|); the per-row losses.
function CosineEmbeddingCriterion:_forward(x1, x2, y)
  self.w1 = torch.cmul(x1, x2):sum(2)
  self.w22 = torch.cmul(x1, x1):sum(2):add(eps):cinv()
  self.w32 = torch.cmul(x2, x2):sum(2):add(eps):cinv()
  self.w = torch.cmul(self.w22, self.w32):sqrt()
  local cos = torch.cmul(self.w1, self.w)
  local neg = torch.eq(y, -1)
  self._losses = torch.mul(cos, -1):add(1):maskedCopy(neg, torch.add(cos, -self.margin):clamp(0, math.huge)[neg])
  return self._losses
end

function CosineEmbeddingCriterion:updateOutput(input, y)
  local x1, x2, yy = self:_prepare(input, y)
  local s = self:_forward(x1, x2, yy):sum()
  self.output = self.sizeAverage and s / x1:size(1) or s
  return self.output
end

-- d cos / d x1 = (x2 - x1 w1 / |x1|^2) / (|x1| |x2|), likewise for x2; negated where y = 1 and
-- zero where a row's loss is 0.
function CosineEmbeddingCriterion:updateGradInput(input, y)
  local x1, x2, yy = self:_prepare(input, y)
  local losses = self:_forward(x1, x2, yy)
  local k = torch.cmul(self.w, torch.le(losses, 0):typeAs(x1):mul(-1):add(1)):cmul(yy:clone():mul(-1))
  if self.sizeAverage then k:div(x1:size(1)) end
  local g1 = torch.cmul(x1, torch.cmul(self.w1, self.w22):expandAs(x1)):mul(-1):add(x2):cmul(k:expandAs(x1))
  local g2 = torch.cmul(x2, torch.cmul(self.w1, self.w32):expandAs(x2)):mul(-1):add(x1):cmul(k:expandAs(x2))
  self.gradInput[1] = g1:viewAs(input[1])
  self.gradInput[2] = g2:viewAs(input[2])
  return self.gradInput
end

return CosineEmbeddingCriterion
