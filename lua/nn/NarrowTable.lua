-- nn.NarrowTable(offset[, length = 1]): the sub-table input[offset .. offset+length-1]; gradInput
-- is shaped like the input, zeros outside the window.
local S = require 'nn.support'
local NarrowTable, parent = torch.class('nn.NarrowTable', 'nn.Module')

function NarrowTable:__init(offset, length)
  parent.__init(self)
  if offset == nil then error('[nn.NarrowTable] usage: nn.NarrowTable(offset[, length])', torch._lib.user_level()) end
  self.offset = S.argInt('nn.NarrowTable', 'offset', offset, 1)
  self.length = S.argInt('nn.NarrowTable', 'length', length or 1, 1)
  self.output = {}
  self.gradInput = {}
end

local function name(self) return string.format('nn.NarrowTable(%d, %d)', self.offset, self.length) end

local function check(self, input)
  if type(input) ~= 'table' or torch.isTensor(input) or #input < self.offset + self.length - 1 then
    S.fail(name(self), 'expected a table of at least %d elements, got %s', self.offset + self.length - 1, S.describe(input))
  end
end

function NarrowTable:updateOutput(input)
  check(self, input)
  local out = {}
  for i = 1, self.length do out[i] = input[self.offset + i - 1] end
  self.output = out
  return out
end

-- A missing gradOutput[i] (an output nobody used) counts as zeros.
function NarrowTable:updateGradInput(input, gradOutput)
  check(self, input)
  if type(gradOutput) ~= 'table' or torch.isTensor(gradOutput) then
    S.fail(name(self), 'expected a table of %d gradOutputs, got %s', self.length, S.describe(gradOutput))
  end
  local window = {}
  for i = 1, self.length do window[i] = input[self.offset + i - 1] end
  S.checkLike(name(self), 'gradOutput', gradOutput, window, true)
  -- Inside the window gradInput holds gradOutput's tensors (Torch7); zeros come from our own buffers.
  self._zeros = type(self._zeros) == 'table' and self._zeros or {}
  local gi = {}
  for i = 1, #input do
    local k = i - self.offset + 1
    if k >= 1 and k <= self.length and gradOutput[k] ~= nil then gi[i] = gradOutput[k]
    else
      self._zeros[i] = S.zeroLike(self._zeros[i], input[i])
      gi[i] = self._zeros[i]
    end
  end
  self.gradInput = gi
  return gi
end

function NarrowTable:clearState()
  self._zeros = {}
  return parent.clearState(self)
end

return NarrowTable
