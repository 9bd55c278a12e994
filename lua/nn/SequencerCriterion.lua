-- nn.SequencerCriterion(criterion[, sizeAverage=false]) (Torch7 rnn): applies a criterion at every
-- step of a sequence, input[t] against target[t], for a seqLen x batch x ... tensor or a table of
-- steps; the losses are summed (averaged over the steps when sizeAverage). Each step uses its own
-- clone of the criterion so its backward sees that step's forward state.
local SequencerCriterion, parent = torch.class('nn.SequencerCriterion', 'nn.Criterion')

--- nn.SequencerCriterion(criterion[, sizeAverage=false]).
function SequencerCriterion:__init(criterion, sizeAverage)
  parent.__init(self)
  if type(criterion) ~= 'table' or not criterion.updateOutput then
    error(string.format('[%s] expects a criterion, got %s', torch.typename(self), nn.utils.describe(criterion)), torch._lib.user_level())
  end
  self.criterion = criterion
  self.sizeAverage = sizeAverage or false
  self.clones = {}
  self.gradInput = {}
end

--- sc:getStepCriterion(step): the criterion applied at that step (a clone of the wrapped one).
function SequencerCriterion:getStepCriterion(step)
  local c = self.clones[step]
  if not c then
    c = step == 1 and self.criterion or self.criterion:clone()
    self.clones[step] = c
  end
  return c
end

-- The number of steps, after checking that input and target agree.
function SequencerCriterion:_steps(input, target)
  if torch.isTensor(input) then
    if not torch.isTensor(target) or input:dim() < 1 or target:dim() < 1 or target:size(1) ~= input:size(1) then
      error(string.format('[%s] a %s input needs a target tensor with as many steps (dim 1), got %s', tostring(self),
        nn.utils.describe(input), nn.utils.describe(target)), torch._lib.user_level())
    end
    return input:size(1)
  elseif type(input) == 'table' then
    if type(target) ~= 'table' or #target ~= #input then
      error(string.format('[%s] a table of %d steps needs a table of as many targets, got %s', tostring(self), #input,
        type(target) == 'table' and ('a table of ' .. #target) or nn.utils.describe(target)), torch._lib.user_level())
    end
    return #input
  end
  error(string.format('[%s] expected a tensor (seqLen x batch x ...) or a table of steps, got %s', tostring(self),
    nn.utils.describe(input)), torch._lib.user_level())
end

function SequencerCriterion:updateOutput(input, target)
  local n = self:_steps(input, target)
  local sum = 0
  for t = 1, n do sum = sum + self:getStepCriterion(t):updateOutput(input[t], target[t]) end
  self.output = (self.sizeAverage and n > 0) and sum / n or sum
  return self.output
end

-- A step's gradient by its backward, which gives its gradInput buffer the input's type first
-- (Note [Criterion buffer types]); a duck-typed criterion without one by updateGradInput.
local function step_grad(c, x, t)
  if c.backward then return c:backward(x, t) end
  return c:updateGradInput(x, t)
end

function SequencerCriterion:updateGradInput(input, target)
  local n = self:_steps(input, target)
  local scale = (self.sizeAverage and n > 0) and 1 / n or 1
  if torch.isTensor(input) then
    local gi = nn.utils.buffer(torch.isTensor(self.gradInput) and self.gradInput or nil, input)
    gi:resizeAs(input)
    for t = 1, n do
      gi[t]:copy(step_grad(self:getStepCriterion(t), input[t], target[t]))
      if scale ~= 1 then gi[t]:mul(scale) end
    end
    self.gradInput = gi
  else
    local gi = {}
    for t = 1, n do
      local g = step_grad(self:getStepCriterion(t), input[t], target[t])
      gi[t] = nn.utils.recursiveAdd(nn.utils.recursiveFill(nn.utils.recursiveResizeAs(nil, g), 0), scale, g)
    end
    self.gradInput = gi
  end
  return self.gradInput
end

function SequencerCriterion:type(name, cache)
  self.clones = {}
  self.criterion:type(name, cache)
  return parent.type(self, name, cache)
end

function SequencerCriterion:__tostring__()
  return string.format('%s(%s)', torch.typename(self), tostring(self.criterion))
end

return SequencerCriterion
