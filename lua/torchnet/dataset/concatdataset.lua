-- tnt.ConcatDataset (Torch7 torchnet's dataset/concatdataset.lua): several datasets one after the
-- other, indexed on the fly (binary search over their cumulative sizes).
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'
require 'torchnet.dataset'

local ConcatDataset = torch.class('tnt.ConcatDataset', 'tnt.Dataset', tnt)

local args = argcheck.parser{ name = 'tnt.ConcatDataset', noordered = true, { name = 'datasets', type = 'table' } }

--- tnt.ConcatDataset{datasets=}: the samples of datasets[1], then of datasets[2]...; the sizes
--- are read here, as in torchnet.
--- Example: local tnt = require 'torchnet'
---   local c = tnt.ConcatDataset{datasets = {tnt.TableDataset{data = {1, 2}}, tnt.TableDataset{data = {3}}}}  -- c:get(3) == 3
function ConcatDataset:__init(...)
  local datasets = args(...)
  if #datasets == 0 then error('[tnt.ConcatDataset] datasets should not be an empty table', 2) end
  local ends, size = {}, 0
  for i, dataset in ipairs(datasets) do
    if not torch.isTypeOf(dataset, 'tnt.Dataset') then
      error(string.format('[tnt.ConcatDataset] datasets[%d] should be a tnt.Dataset, got %s', i, torch.type(dataset)), 2)
    end
    size = size + dataset:size()
    ends[i] = size
  end
  self.__datasets, self.__ends, self.__size = datasets, ends, size
end

--- concatdataset:size(): the sum of the sizes.
--- Example: local tnt = require 'torchnet'; local n = tnt.ConcatDataset{datasets = {tnt.TableDataset{data = {1}}, tnt.TableDataset{data = {2}}}}:size()  -- 2
function ConcatDataset:size()
  return self.__size
end

--- concatdataset:get(idx): sample idx of the concatenation.
--- Example: local tnt = require 'torchnet'; local s = tnt.ConcatDataset{datasets = {tnt.TableDataset{data = {1}}, tnt.TableDataset{data = {2}}}}:get(2)  -- 2
function ConcatDataset:get(idx)
  self:__checkindex(idx, self.__size)
  local ends = self.__ends
  local l, r = 1, #ends  -- the first dataset whose end is >= idx
  while l < r do
    local m = math.floor((l + r) / 2)
    if ends[m] >= idx then r = m else l = m + 1 end
  end
  return self.__datasets[l]:get(idx - (l > 1 and ends[l - 1] or 0))
end

return ConcatDataset
