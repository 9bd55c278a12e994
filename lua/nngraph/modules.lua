-- The small modules nngraph adds: nngraph.JustElement (node:split(1)), nngraph.JustTable (a
-- one-element table around its input) and nn.ModuleFromCriterion (a criterion used as a node:
-- crit({prediction, target}) gives a 1-element tensor holding the loss).
require 'nn'

local JustElement, Module = torch.class('nngraph.JustElement', 'nn.Module')
--- nngraph.JustElement(): the only element of a one-element table input (node:split(1)).
--- Example: require 'nngraph'; print(nngraph.JustElement():forward({torch.ones(2)}))
function JustElement:__init()
  Module.__init(self)
  self.gradInput = {}
end
function JustElement:updateOutput(input)
  if type(input) ~= 'table' or #input ~= 1 then
    error(string.format('[nngraph.JustElement] expects a table with one element, got %s',
      type(input) == 'table' and ('a table of ' .. #input) or torch.type(input)), 2)
  end
  self.output = input[1]
  return self.output
end
function JustElement:updateGradInput(input, gradOutput)
  self.gradInput = { gradOutput }
  return self.gradInput
end

local JustTable = torch.class('nngraph.JustTable', 'nn.Module')
--- nngraph.JustTable(): wraps its input in a one-element table.
--- Example: require 'nngraph'; print(#nngraph.JustTable():forward(torch.ones(2)))
function JustTable:__init()
  Module.__init(self)
  self.output = {}
end
function JustTable:updateOutput(input)
  self.output = { input }
  return self.output
end
function JustTable:updateGradInput(input, gradOutput)
  self.gradInput = gradOutput[1]
  return self.gradInput
end

if not torch.getmetatable('nn.ModuleFromCriterion') then
  local MFC = torch.class('nn.ModuleFromCriterion', 'nn.Module')
  --- nn.ModuleFromCriterion(criterion): a module whose input is {prediction, target} and whose
  --- output is a 1-element tensor holding the loss; the target gets a zero gradient.
  --- Example: require 'nngraph'; local m = nn.ModuleFromCriterion(nn.MSECriterion()); print(m:forward({torch.ones(2), torch.zeros(2)}))
  function MFC:__init(criterion)
    Module.__init(self)
    if type(criterion) ~= 'table' or not criterion.updateGradInput then
      error(string.format('[nn.ModuleFromCriterion] expects a criterion, got %s', torch.type(criterion)), 2)
    end
    self.criterion = criterion
    self.output = torch.Tensor(1)
    self.gradInput = { torch.Tensor(), torch.Tensor() }
  end
  function MFC:updateOutput(input)
    local prediction, target = input[1], input[2]
    local loss = self.criterion:updateOutput(prediction, target)
    if torch.isTensor(loss) then loss = loss:item() end
    self.output = self.output:typeAs(prediction):resize(1)
    self.output[1] = loss
    return self.output
  end
  function MFC:updateGradInput(input, gradOutput)
    local prediction, target = input[1], input[2]
    local g = self.criterion:updateGradInput(prediction, target)
    self.gradInput[1] = self.gradInput[1]:typeAs(g):resizeAs(g):copy(g):mul(gradOutput[1])
    self.gradInput[2] = self.gradInput[2]:typeAs(prediction):resize(target:size()):zero()
    return self.gradInput
  end
end
