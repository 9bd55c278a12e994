-- nn.L1HingeEmbeddingCriterion([margin=1]): for a pair {x1, x2} and a label y of 1 or -1, the L1
-- distance d = sum |x1 - x2| when y = 1, max(0, margin - d) when y = -1 (Torch7). Torch7 made it
-- an nn.Module; here it is an nn.Criterion, so that forward(input, y) gets its label and
-- crit(input, y):backward() works. The subgradient of |t| at t = 0 is 0 (Torch7 drew +-1 at random).
local S = require 'nn.support'
local L1HingeEmbeddingCriterion, parent = torch.class('nn.L1HingeEmbeddingCriterion', 'nn.Criterion')

--- nn.L1HingeEmbeddingCriterion([margin=1]).
function L1HingeEmbeddingCriterion:__init(margin)
  parent.__init(self)
  if margin ~= nil then S.argNumber('nn.L1HingeEmbeddingCriterion', 'margin', margin) end
  self.margin = margin or 1
  self.gradInput = { torch.Tensor(), torch.Tensor() }
end

local function name(self) return string.format('nn.L1HingeEmbeddingCriterion(margin %g)', self.margin) end

-- x1 - x2 after checking the pair, and the label as a number.
local function check(self, input, y)
  local nm = name(self)
  S.tensors(nm, input, 2)
  local a, b = input[1], input[2]
  if not nn.utils.isFloating(a) or a:type() ~= b:type() or a:nElement() ~= b:nElement() then
    S.fail(nm, 'expected two floating-point tensors with as many elements, got %s', S.describe(input))
  end
  if torch.isTensor(y) and y:nElement() == 1 then y = y:view(-1)[1] end
  if y ~= 1 and y ~= -1 then S.fail(nm, 'the label must be 1 or -1, got %s', S.describe(y)) end
  return torch.csub(a, b:contiguous():viewAs(a)), y
end

function L1HingeEmbeddingCriterion:updateOutput(input, y)
  local diff
  diff, y = check(self, input, y)
  local d = diff:abs():sum()
  self.output = y == 1 and d or math.max(0, self.margin - d)
  return self.output
end

-- sign(x1 - x2) for y = 1; its negation for y = -1 while d <= margin, else 0; x2 gets the opposite.
function L1HingeEmbeddingCriterion:updateGradInput(input, y)
  local diff
  diff, y = check(self, input, y)
  local g = torch.sign(diff)
  if y == -1 then
    if diff:abs():sum() > self.margin then g:zero() else g:mul(-1) end
  end
  self.gradInput = { g, torch.neg(g):viewAs(input[2]) }
  return self.gradInput
end

return L1HingeEmbeddingCriterion
