-- nn.ConcatTable(): applies every child to the same input; the output is the table of their
-- outputs. gradInput is the sum of the children's gradInputs (tensors or tables of tensors).
require 'nn.Container'
local S = require 'nn.support'
local ConcatTable, parent = torch.class('nn.ConcatTable', 'nn.Container')

function ConcatTable:__init()
  parent.__init(self)
  self.output = {}
end

function ConcatTable:updateOutput(input)
  if type(self.output) ~= 'table' or torch.isTensor(self.output) then self.output = {} end
  for i, m in ipairs(self.modules) do self.output[i] = self:rethrowErrors(m, i, 'forward', input) end
  for i = #self.modules + 1, #self.output do self.output[i] = nil end
  return self.output
end

local function check_grad(self, gradOutput)
  if type(gradOutput) ~= 'table' or torch.isTensor(gradOutput) or #gradOutput < #self.modules then
    S.fail('nn.ConcatTable', 'expected a table of %d gradOutputs, got %s', #self.modules, S.describe(gradOutput))
  end
end

-- Runs method on each child with its gradOutput; sums the children's gradInputs.
local function backward(self, method, input, gradOutput, scale)
  check_grad(self, gradOutput)
  local first = true
  for i, m in ipairs(self.modules) do
    local gi = self:rethrowErrors(m, i, method, input, gradOutput[i], scale)
    if method ~= 'accGradParameters' and method ~= 'accUpdateGradParameters' and gi ~= nil then
      if first then self.gradInput = S.copyInto(self.gradInput, gi) first = false
      else S.addInto(self.gradInput, gi) end
    end
  end
  return self.gradInput
end

function ConcatTable:updateGradInput(input, gradOutput) return backward(self, 'updateGradInput', input, gradOutput) end
function ConcatTable:backward(input, gradOutput, scale) return backward(self, 'backward', input, gradOutput, scale or 1) end
function ConcatTable:accGradParameters(input, gradOutput, scale)
  backward(self, 'accGradParameters', input, gradOutput, scale or 1)
end
function ConcatTable:accUpdateGradParameters(input, gradOutput, lr)
  backward(self, 'accUpdateGradParameters', input, gradOutput, lr)
end

function ConcatTable:__tostring__() return self:_branchString('   `-> ', '       ') end

return ConcatTable
