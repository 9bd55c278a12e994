-- nn.MultiLabelMarginCriterion(): the multi-class multi-label hinge loss. target has x's size and
-- lists a sample's 1-based classes, ended by the first 0; the loss of a sample is the sum over
-- its classes j and the other classes i of max(0, 1 - (x[j] - x[i])), divided by C, and averaged
-- over the batch when sizeAverage (Torch7's THNN).
local MultiLabelMarginCriterion, parent = torch.class('nn.MultiLabelMarginCriterion', 'nn.Criterion')

--- nn.MultiLabelMarginCriterion(); crit.sizeAverage (true) chooses mean or sum over the batch.
function MultiLabelMarginCriterion:__init()
  parent.__init(self)
  self.sizeAverage = true
end

-- (x as N x C, targets as N x C LongTensor, valid: N x C 0/1 (a listed class), isTarget: N x C 0/1)
function MultiLabelMarginCriterion:_prepare(input, target)
  nn.utils.checkFloatInput(self, input)
  if (input:dim() ~= 1 and input:dim() ~= 2) or not torch.isTensor(target) or not target:isSameSizeAs(input) then
    error(string.format('[%s] expected a vector or N x C input and a target of the same size, got %s and %s',
      tostring(self), nn.utils.describe(input), nn.utils.describe(target)), torch._lib.user_level())
  end
  local x = input:dim() == 1 and input:view(1, -1) or input
  local n, c = x:size(1), x:size(2)
  local t = target:to('torch.LongTensor'):contiguous():view(n, c)
  if t:nElement() > 0 and (t:min() < 0 or t:max() > c) then
    error(string.format('[%s] target out of range: classes are 1..%d (0 ends the list), got %d..%d',
      tostring(self), c, t:min(), t:max()), torch._lib.user_level())
  end
  -- a class counts until the first 0 of its row
  local valid = torch.gt(t, 0):to('torch.LongTensor'):cumprod(2)
  local safe = torch.cmul(t, valid):add(torch.eq(valid, 0):to('torch.LongTensor'))   -- unused slots point at class 1
  local is_target = x.new(n, c):zero():scatterAdd(2, safe, valid:typeAs(x)):gt(0):typeAs(x)
  return x, safe, valid:typeAs(x), is_target
end

-- Runs fn(z, live, j) for every target slot j: z = 1 - x[t_j] + x, live = where it counts.
local function each_pair(x, safe, valid, is_target, fn)
  local others = torch.mul(is_target, -1):add(1)
  local slots = valid:nElement() > 0 and valid:sum(2):max() or 0  -- an empty batch has no slots
  for j = 1, slots do
    local tj = safe:narrow(2, j, 1)
    local z = torch.csub(x, x:gather(2, tj)):add(1)
    local live = torch.gt(z, 0):typeAs(x):cmul(others):cmul(valid:narrow(2, j, 1):expandAs(x))
    fn(z, live, tj)
  end
end

function MultiLabelMarginCriterion:updateOutput(input, target)
  local x, safe, valid, is_target = self:_prepare(input, target)
  local s = 0
  each_pair(x, safe, valid, is_target, function(z, live) s = s + torch.dot(z, live) end)
  s = s / x:size(2)
  self.output = self.sizeAverage and s / x:size(1) or s
  return self.output
end

function MultiLabelMarginCriterion:updateGradInput(input, target)
  local x, safe, valid, is_target = self:_prepare(input, target)
  local g = 1 / x:size(2)
  if self.sizeAverage then g = g / x:size(1) end
  local gi = x.new(x:size()):zero()
  each_pair(x, safe, valid, is_target, function(_, live, tj)
    gi:add(g, live)
    gi:scatterAdd(2, tj, live:sum(2):mul(-g))
  end)
  self.gradInput = input:dim() == 1 and gi:view(-1) or gi
  return self.gradInput
end

return MultiLabelMarginCriterion
