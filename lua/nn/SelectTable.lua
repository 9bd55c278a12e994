-- nn.SelectTable(index): input[index] (a tensor or a table; negative index from the end).
-- gradInput is shaped like the input: zeros except gradOutput at index.
local S = require 'nn.support'
local SelectTable, parent = torch.class('nn.SelectTable', 'nn.Module')

function SelectTable:__init(index)
  parent.__init(self)
  if index == nil then error('[nn.SelectTable] usage: nn.SelectTable(index)', torch._lib.user_level()) end
  self.index = index
  self.gradInput = {}
end

local function resolve(self, input)
  if type(input) ~= 'table' or torch.isTensor(input) then
    S.fail(tostring(self), 'expected a table input, got %s', S.describe(input))
  end
  local index = self.index
  if type(index) == 'number' and index < 0 then index = #input + index + 1 end
  if input[index] == nil then
    S.fail(tostring(self), 'index %s does not exist in an input table of %d elements', tostring(self.index), #input)
  end
  return index
end

function SelectTable:updateOutput(input)
  self.output = input[resolve(self, input)]
  return self.output
end

function SelectTable:updateGradInput(input, gradOutput)
  local index = resolve(self, input)
  S.checkLike(tostring(self), 'gradOutput', gradOutput, input[index])
  self.gradInput = S.zeroLike(self.gradInput, input)
  self.gradInput[index] = S.copyInto(self.gradInput[index], gradOutput, input[index])
  return self.gradInput
end

function SelectTable:__tostring__() return 'nn.SelectTable(' .. tostring(self.index) .. ')' end

return SelectTable
