-- nn.CriterionTable(criterion): a criterion used as a module whose input is the table
-- {input, target} (Torch7): forward returns the loss (a number), backward returns
-- {criterion's gradInput, zeros for a tensor target} and ignores gradOutput, as Torch7 did (its
-- gradInput had no second entry, which containers checking the gradInput's shape refuse). Like a
-- criterion, calling it, ct({x, y}), gives the loss as a tensor autograd can go back through.
local S = require 'nn.support'
local CriterionTable, parent = torch.class('nn.CriterionTable', 'nn.Module')

function CriterionTable:__init(criterion)
  parent.__init(self)
  if not torch.isTypeOf(criterion, 'nn.Criterion') then
    error('[nn.CriterionTable] expects a criterion, got ' .. S.describe(criterion), torch._lib.user_level())
  end
  self.criterion = criterion
  self.gradInput = { criterion.gradInput }
end

local function check(self, input)
  if type(input) ~= 'table' or torch.isTensor(input) or getmetatable(input) ~= nil or input[1] == nil then
    S.fail('nn.CriterionTable', 'expected {input, target} for %s, got %s', tostring(self.criterion), S.describe(input))
  end
end

function CriterionTable:updateOutput(input)
  check(self, input)
  self.output = self.criterion:updateOutput(unpack(input))
  return self.output
end

function CriterionTable:updateGradInput(input, gradOutput)
  check(self, input)
  local target = input[2]
  local zeros = (torch.isTensor(target) or type(target) == 'table') and S.zeroLike(self.gradInput[2], target) or nil
  self.gradInput = { self.criterion:backward(unpack(input)), zeros }
  return self.gradInput
end

--- ct:forward({input, target}): the loss, a number (Torch7).
function CriterionTable:forward(input)
  return torch.noGrad(self.updateOutput, self, input)
end

--- ct({input, target}[, gradOutput]): the loss as criterion(input, target) gives it: a one-element
--- tensor that autograd goes back through when input requires grad (Note [Losses and autograd]
--- in nn/Criterion.lua), else a number; with gradOutput, Torch7's forward and backward.
function CriterionTable:__call__(input, gradOutput)
  if gradOutput ~= nil then
    self:forward(input)
    return self.output, self:backward(input, gradOutput)
  end
  check(self, input)
  local loss = self.criterion:loss(input[1], input[2])
  self.output = self.criterion.output
  return loss
end

function CriterionTable:type(name, cache)
  if not name then return self._type end
  self.criterion:type(name, cache)
  self.gradInput = { self.criterion.gradInput }
  return parent.type(self, name, cache)
end

function CriterionTable:clearState()
  if self.criterion.clearState then self.criterion:clearState() end
  self.gradInput = { self.criterion.gradInput }
  return self
end

return CriterionTable
