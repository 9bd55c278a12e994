-- nn.MultiCriterion(): a weighted sum of criterions applied to the same input and target.
local MultiCriterion, parent = torch.class('nn.MultiCriterion', 'nn.Criterion')

--- nn.MultiCriterion(): add criterions with mc:add(criterion[, weight=1]).
function MultiCriterion:__init()
  parent.__init(self)
  self.criterions = {}
  self.weights = torch.DoubleStorage()
end

--- mc:add(criterion[, weight=1]): appends a criterion; returns mc.
function MultiCriterion:add(criterion, weight)
  if type(criterion) ~= 'table' or not criterion.updateOutput then
    error('[nn.MultiCriterion] add expects a criterion, got ' .. nn.utils.describe(criterion), torch._lib.user_level())
  end
  weight = weight or 1
  table.insert(self.criterions, criterion)
  self.weights:resize(#self.criterions, true)
  self.weights[#self.criterions] = weight
  return self
end

function MultiCriterion:updateOutput(input, target)
  self.output = 0
  for i, c in ipairs(self.criterions) do
    self.output = self.output + self.weights[i] * c:updateOutput(input, target)
  end
  return self.output
end

-- Each child by its backward, which gives its gradInput buffer the input's type first (Note
-- [Criterion buffer types]: with Torch7's updateGradInput a double input's gradient was rounded
-- in a float buffer); a duck-typed criterion without one by updateGradInput.
function MultiCriterion:updateGradInput(input, target)
  self.gradInput = nn.utils.recursiveFill(nn.utils.recursiveResizeAs(self.gradInput, input), 0)
  for i, c in ipairs(self.criterions) do
    nn.utils.recursiveAdd(self.gradInput, self.weights[i], (c.backward and c:backward(input, target) or c:updateGradInput(input, target)))
  end
  return self.gradInput
end

function MultiCriterion:type(name, cache)
  for _, c in ipairs(self.criterions) do c:type(name, cache) end
  return parent.type(self, name, cache)
end

function MultiCriterion:__tostring__()
  local parts = {}
  for i, c in ipairs(self.criterions) do parts[i] = string.format('  (%d): %g * %s', i, self.weights[i], tostring(c)) end
  return 'nn.MultiCriterion {' .. (#parts > 0 and '\n' .. table.concat(parts, '\n') or '') .. '\n}'
end

return MultiCriterion
