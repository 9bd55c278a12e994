-- Datasets over data already in memory: data.TensorDataset (rows of tensors) and
-- data.ListDataset (a list of items and a function that loads one).
local torch = require 'torch'
local data = require 'data.env'
local util = require 'data.util'
require 'data.dataset'

local function shape(t)
  local s = {}
  for d = 1, t:dim() do s[d] = t:size(d) end
  return table.concat(s, 'x')
end

local TensorDataset = torch.class('data.TensorDataset', 'data.Dataset', data)

--- data.TensorDataset(inputs[, targets]): sample i is {input = inputs[i], target = targets[i]}
--- (views, not copies; a 1D targets tensor gives 0-dim tensors, which batches stack into a 1D
--- tensor of the same type). inputs may also be a table of tensors {name = tensor, ...}, giving
--- samples with those fields. All tensors must have the same size along dimension 1.
function TensorDataset:__init(inputs, targets)
  local fields = {}
  if torch.isTensor(inputs) then
    fields.input = inputs
    if targets ~= nil then fields.target = targets end
  elseif type(inputs) == 'table' and not torch.typename(inputs) then
    for k, v in pairs(inputs) do fields[k] = v end
    if targets ~= nil then fields.target = targets end
  else
    util.fail('TensorDataset', 'expected a tensor or a table of tensors, got %s', torch.type(inputs))
  end
  local keys = {}
  for k in pairs(fields) do keys[#keys + 1] = k end
  table.sort(keys, function(a, b) return tostring(a) < tostring(b) end)
  local n, first
  for _, k in ipairs(keys) do
    local t = fields[k]
    if not torch.isTensor(t) then util.fail('TensorDataset', '%s is a %s, expected a tensor', tostring(k), torch.type(t)) end
    if t:dim() < 1 then util.fail('TensorDataset', '%s has no dimension to index samples along', tostring(k)) end
    if n == nil then n, first = t:size(1), k
    elseif t:size(1) ~= n then
      util.fail('TensorDataset', 'inconsistent sizes: %s is %s (%d samples) but %s has %d samples', tostring(k), shape(t),
        t:size(1), tostring(first), n)
    end
  end
  self.tensors, self.n = fields, n or 0
end

--- The number of samples (rows).
function TensorDataset:size() return self.n end

--- Sample i: a table with row i of each tensor.
function TensorDataset:get(i)
  util.check_index('TensorDataset', i, self.n)
  local s = {}
  for k, t in pairs(self.tensors) do s[k] = t:select(1, i) end
  return s
end

local ListDataset = torch.class('data.ListDataset', 'data.Dataset', data)

--- data.ListDataset(list[, load]) or data.ListDataset{list=, load=[, path=]}: sample i is
--- load(list[i], i) (list[i] itself without load); with path, items are file names relative to
--- it (torchnet's convention). list is a Lua list or a 1D tensor.
function ListDataset:__init(list, load)
  local path
  if type(list) == 'table' and not torch.typename(list) and list.list ~= nil then
    list, load, path = list.list, list.load, list.path
  end
  if torch.isTensor(list) then
    if list:dim() ~= 1 then
      util.fail('ListDataset', 'expected a list or a 1D tensor, got a %s tensor', list:dim() == 0 and '0-dim' or shape(list))
    end
    local items = {}
    for i = 1, list:nElement() do items[i] = list[i] end
    list = items
  end
  if type(list) ~= 'table' then util.fail('ListDataset', 'expected a list, got %s', torch.type(list)) end
  if load ~= nil and type(load) ~= 'function' then util.fail('ListDataset', 'load must be a function, got %s', type(load)) end
  local n = #list
  for k in pairs(list) do
    if type(k) ~= 'number' or k < 1 or k > n or k ~= math.floor(k) then
      util.fail('ListDataset', 'the list has a hole or a non-sequence key (%s); give a sequence 1..n', tostring(k))
    end
  end
  self.list, self.load, self.path = list, load, path
end

--- The number of items.
function ListDataset:size() return #self.list end

--- Item i, loaded.
function ListDataset:get(i)
  util.check_index('ListDataset', i, #self.list)
  local item = self.list[i]
  if self.path then item = self.path .. '/' .. item end
  if self.load then return self.load(item, i) end
  return item
end

return data
