-- nn.SplitTable(dimension[, nInputDims]): the table of input:select(dimension, i) for every i
-- (views; negative dimension from the end; with nInputDims, one more input dim is a batch).
local S = require 'nn.support'
local SplitTable, parent = torch.class('nn.SplitTable', 'nn.Module')

function SplitTable:__init(dimension, nInputDims)
  parent.__init(self)
  self.dimension = S.argInt('nn.SplitTable', 'dimension', dimension)
  if dimension == 0 then error('[nn.SplitTable] dimension 0 is out of range (dims are 1-based)', torch._lib.user_level()) end
  self.nInputDims = nInputDims
  self.output = {}
end

local function name(self)
  return string.format('nn.SplitTable(%d%s)', self.dimension, self.nInputDims and ', ' .. self.nInputDims or '')
end

function SplitTable:updateOutput(input)
  S.tensor(name(self), input)
  local d = S.dim(name(self), self.dimension, input, self.nInputDims)
  local out = {}
  for i = 1, input:size(d) do out[i] = input:select(d, i) end
  self.output = out
  return out
end

-- A missing gradOutput[i] (an output nobody used) counts as zeros.
function SplitTable:updateGradInput(input, gradOutput)
  local d = S.dim(name(self), self.dimension, input, self.nInputDims)
  if type(gradOutput) ~= 'table' or torch.isTensor(gradOutput) then
    S.fail(name(self), 'expected a table of %d gradOutputs, got %s', input:size(d), S.describe(gradOutput))
  end
  if not torch.isTensor(self.gradInput) or self.gradInput:type() ~= input:type() then self.gradInput = input.new() end
  self.gradInput:resizeAs(input)
  for i = 1, input:size(d) do
    local slice, g = self.gradInput:select(d, i), gradOutput[i]
    if g == nil then slice:zero()
    else
      if not torch.isTensor(g) or g:nElement() ~= slice:nElement() then
        S.fail(name(self), 'gradOutput[%d] is %s, expected size %s', i, S.describe(g), S.sizestr(slice))
      end
      slice:copy(g)
    end
  end
  return self.gradInput
end

return SplitTable
