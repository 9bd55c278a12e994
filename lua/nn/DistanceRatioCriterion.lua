-- nn.DistanceRatioCriterion([sizeAverage=true]): for {X, Y}, distances between similar (X) and
-- dissimilar (Y) pairs, the triplet loss -log(e^-X / (e^-X + e^-Y)) summed (divided by X:size(1)
-- when sizeAverage, as Torch7). Computed as softplus(X - Y), the same value without overflow.
local S = require 'nn.support'
local DistanceRatioCriterion, parent = torch.class('nn.DistanceRatioCriterion', 'nn.Criterion')

--- nn.DistanceRatioCriterion([sizeAverage=true]).
function DistanceRatioCriterion:__init(sizeAverage)
  parent.__init(self)
  self.sizeAverage = S.argBool('nn.DistanceRatioCriterion', 'sizeAverage', sizeAverage == nil or sizeAverage)
  self.gradInput = { torch.Tensor(), torch.Tensor() }
end

-- X - Y after checking the pair.
local function check(self, input)
  S.tensors('nn.DistanceRatioCriterion', input, 2)
  local X, Y = input[1], input[2]
  if not nn.utils.isFloating(X) or X:dim() == 0 or not X:isSameSizeAs(Y) or X:type() ~= Y:type() then
    S.fail('nn.DistanceRatioCriterion', 'expected {X, Y}, two floating-point tensors of one size, got %s',
      S.describe(input))
  end
  return torch.csub(X, Y), X:size(1)
end

function DistanceRatioCriterion:updateOutput(input)
  local d, n = check(self, input)
  local s = torch.softplus(d):sum()
  self.output = self.sizeAverage and s / n or s
  return self.output
end

-- dL/dX = 1 - e^-X / (e^-X + e^-Y) = sigmoid(X - Y); dL/dY = -sigmoid(X - Y).
function DistanceRatioCriterion:updateGradInput(input)
  local d, n = check(self, input)
  local gx = torch.sigmoid(d)
  if self.sizeAverage then gx:div(n) end
  self.gradInput = { gx, torch.neg(gx) }
  return self.gradInput
end

return DistanceRatioCriterion
