-- nn.ParallelCriterion([repeatTarget=false]): criterion i applied to input[i] and target[i] (or
-- to the same target for all when repeatTarget), weighted and summed.
local ParallelCriterion, parent = torch.class('nn.ParallelCriterion', 'nn.Criterion')

--- nn.ParallelCriterion([repeatTarget=false]): add criterions with pc:add(criterion[, weight=1]).
function ParallelCriterion:__init(repeatTarget)
  parent.__init(self)
  self.criterions = {}
  self.weights = {}
  self.gradInput = {}
  self.repeatTarget = repeatTarget
end

--- pc:add(criterion[, weight=1]): appends a criterion; returns pc.
function ParallelCriterion:add(criterion, weight)
  if type(criterion) ~= 'table' or not criterion.updateOutput then
    error('[nn.ParallelCriterion] add expects a criterion, got ' .. nn.utils.describe(criterion), torch._lib.user_level())
  end
  table.insert(self.criterions, criterion)
  table.insert(self.weights, weight or 1)
  return self
end

function ParallelCriterion:_check(input, target)
  if type(input) ~= 'table' or #input < #self.criterions then
    error(string.format('[nn.ParallelCriterion] expected a table of %d inputs, got %s', #self.criterions,
      type(input) == 'table' and ('a table of ' .. #input) or nn.utils.describe(input)), torch._lib.user_level())
  end
  if not self.repeatTarget and (type(target) ~= 'table' or #target < #self.criterions) then
    error(string.format('[nn.ParallelCriterion] expected a table of %d targets (or repeatTarget), got %s',
      #self.criterions, type(target) == 'table' and ('a table of ' .. #target) or nn.utils.describe(target)), torch._lib.user_level())
  end
end

function ParallelCriterion:updateOutput(input, target)
  self:_check(input, target)
  self.output = 0
  for i, c in ipairs(self.criterions) do
    local t = self.repeatTarget and target or target[i]
    self.output = self.output + self.weights[i] * c:updateOutput(input[i], t)
  end
  return self.output
end

-- Each child by its backward, which gives its gradInput buffer the input's type first (Note
-- [Criterion buffer types]: with Torch7's updateGradInput a double input's gradient was rounded
-- in a float buffer); a duck-typed criterion without one by updateGradInput.
function ParallelCriterion:updateGradInput(input, target)
  self:_check(input, target)
  self.gradInput = nn.utils.recursiveFill(nn.utils.recursiveResizeAs(self.gradInput, input), 0)
  for i, c in ipairs(self.criterions) do
    local t = self.repeatTarget and target or target[i]
    nn.utils.recursiveAdd(self.gradInput[i], self.weights[i], (c.backward and c:backward(input[i], t) or c:updateGradInput(input[i], t)))
  end
  return self.gradInput
end

function ParallelCriterion:type(name, cache)
  for _, c in ipairs(self.criterions) do c:type(name, cache) end
  return parent.type(self, name, cache)
end

return ParallelCriterion
