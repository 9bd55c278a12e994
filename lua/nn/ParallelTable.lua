-- nn.ParallelTable(): applies child i to input[i]; the output is the table of their outputs and
-- gradInput the table of their gradInputs. Extra inputs beyond the children are ignored (Torch7).
require 'nn.Container'
local S = require 'nn.support'
local ParallelTable, parent = torch.class('nn.ParallelTable', 'nn.Container')

function ParallelTable:__init()
  parent.__init(self)
  self.output = {}
  self.gradInput = {}
end

local function check(self, x, what)
  if type(x) ~= 'table' or torch.isTensor(x) or #x < #self.modules then
    S.fail('nn.ParallelTable', 'expected a table of %d %s (one per module), got %s', #self.modules, what, S.describe(x))
  end
end

function ParallelTable:updateOutput(input)
  check(self, input, 'inputs')
  if type(self.output) ~= 'table' or torch.isTensor(self.output) then self.output = {} end
  for i, m in ipairs(self.modules) do self.output[i] = self:rethrowErrors(m, i, 'forward', input[i]) end
  for i = #self.modules + 1, #self.output do self.output[i] = nil end
  return self.output
end

local function backward(self, method, input, gradOutput, scale)
  check(self, input, 'inputs')
  check(self, gradOutput, 'gradOutputs')
  if type(self.gradInput) ~= 'table' or torch.isTensor(self.gradInput) then self.gradInput = {} end
  for i, m in ipairs(self.modules) do
    local gi = self:rethrowErrors(m, i, method, input[i], gradOutput[i], scale)
    if method == 'updateGradInput' or method == 'backward' then self.gradInput[i] = gi end
  end
  if method == 'updateGradInput' or method == 'backward' then
    for i = #self.modules + 1, #self.gradInput do self.gradInput[i] = nil end
  end
  return self.gradInput
end

function ParallelTable:updateGradInput(input, gradOutput) return backward(self, 'updateGradInput', input, gradOutput) end
function ParallelTable:backward(input, gradOutput, scale) return backward(self, 'backward', input, gradOutput, scale or 1) end
function ParallelTable:accGradParameters(input, gradOutput, scale)
  backward(self, 'accGradParameters', input, gradOutput, scale or 1)
end
function ParallelTable:accUpdateGradParameters(input, gradOutput, lr)
  backward(self, 'accUpdateGradParameters', input, gradOutput, lr)
end

-- Torch7 prints every branch of a ParallelTable with the inner arrow (its last-branch test
-- compared i with the module table, never true).
function ParallelTable:__tostring__() return self:_branchString('  |`-> ', '  |    ') end

return ParallelTable
