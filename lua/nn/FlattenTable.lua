-- nn.FlattenTable(): flattens a nested table of tensors into a flat table, depth first;
-- gradInput rebuilds the nesting from the flat gradOutput.
local S = require 'nn.support'
local FlattenTable, parent = torch.class('nn.FlattenTable', 'nn.Module')

function FlattenTable:__init()
  parent.__init(self)
  self.output = {}
  self.input_map = {}
  self.gradInput = {}
end

-- Appends x's tensors to out; returns x's shape with each tensor replaced by its position.
local function flatten(out, x)
  if torch.isTensor(x) then
    out[#out + 1] = x
    return #out
  end
  if type(x) ~= 'table' then S.fail('nn.FlattenTable', 'expected nested tables of tensors, found %s', S.describe(x)) end
  local map = {}
  for i = 1, #x do map[i] = flatten(out, x[i]) end
  return map
end

local function unflatten(flat, map)
  if type(map) == 'number' then return flat[map] end
  local r = {}
  for i = 1, #map do r[i] = unflatten(flat, map[i]) end
  return r
end

function FlattenTable:updateOutput(input)
  if type(input) ~= 'table' or torch.isTensor(input) then
    S.fail('nn.FlattenTable', 'expected a table input, got %s', S.describe(input))
  end
  local out = {}
  self.input_map = flatten(out, input)
  self.output = out
  return out
end

function FlattenTable:updateGradInput(input, gradOutput)
  if type(gradOutput) ~= 'table' or torch.isTensor(gradOutput) then
    S.fail('nn.FlattenTable', 'expected a table gradOutput, got %s', S.describe(gradOutput))
  end
  local flat = {}
  local map = flatten(flat, input)
  S.checkLike('nn.FlattenTable', 'gradOutput', gradOutput, flat, true)
  -- A missing gradOutput[k] (an output nobody used) counts as zeros.
  local g = {}
  self._zeros = type(self._zeros) == 'table' and self._zeros or {}
  for k = 1, #flat do
    if gradOutput[k] ~= nil then g[k] = gradOutput[k]
    else
      self._zeros[k] = S.zeroLike(self._zeros[k], flat[k])
      g[k] = self._zeros[k]
    end
  end
  self.gradInput = unflatten(g, map)
  return self.gradInput
end

function FlattenTable:type(name, cache)
  -- Holds only references to inputs and gradients: nothing to convert (Torch7).
  if not name then return self._type end
  self:clearState()
  self._type = name
  return self
end

function FlattenTable:clearState()
  self.input_map = {}
  self._zeros = {}
  return parent.clearState(self)
end

return FlattenTable
