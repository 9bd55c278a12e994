-- tnt.TableDataset (Torch7 torchnet's dataset/tabledataset.lua): a dataset over a Lua list of
-- samples held in memory; get returns a deep copy, so a transform cannot change the data.
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'
local utils = require 'torchnet.utils'
require 'torchnet.dataset.listdataset'

local TableDataset = torch.class('tnt.TableDataset', 'tnt.ListDataset', tnt)

local args = argcheck.parser{ name = 'tnt.TableDataset', noordered = true, { name = 'data', type = 'table' } }

--- tnt.TableDataset{data=}: the samples data[1], data[2]... (keys must be exactly 1..#data).
--- Example: local tnt = require 'torchnet'; local ds = tnt.TableDataset{data = {{x = 1}, {x = 2}, {x = 3}}}  -- ds:size() == 3
function TableDataset:__init(...)
  local data = args(...)
  local size = 0
  for _ in pairs(data) do size = size + 1 end
  if size ~= #data then
    error(string.format('[tnt.TableDataset] data keys are not contiguous integers starting at 1 '
      .. '(%d entries, #data = %d)', size, #data), 2)
  end
  self.data = data
end

--- tabledataset:size(): #data.
--- Example: local tnt = require 'torchnet'; local n = tnt.TableDataset{data = {1, 2}}:size()
function TableDataset:size()
  return #self.data
end

--- tabledataset:get(idx): a deep copy of data[idx].
--- Example: local tnt = require 'torchnet'; local s = tnt.TableDataset{data = {{x = torch.ones(2)}}}:get(1)
function TableDataset:get(idx)
  self:__checkindex(idx, self:size())
  return utils.table.clone(self.data[idx])
end

return TableDataset
