-- tnt.SplitDataset (Torch7 torchnet's dataset/splitdataset.lua): named consecutive partitions of
-- a dataset (train/valid...), one of which is selected at a time.
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'
require 'torchnet.dataset'

local SplitDataset = torch.class('tnt.SplitDataset', 'tnt.Dataset', tnt)

local args = argcheck.parser{ name = 'tnt.SplitDataset',
  { name = 'dataset', type = 'tnt.Dataset' }, { name = 'partitions', type = 'table' } }

-- Note [Partition order]: torchnet numbered the partitions in pairs() order, so which one came
-- first in the underlying dataset depended on the hash layout. Here they follow the sorted names
-- (train before valid), which is repeatable; each partition is still a consecutive block.

--- tnt.SplitDataset{dataset=, partitions=}: partitions maps names to sizes, or to weights
--- summing to 1 (then size = floor(weight * dataset:size())). The first partition (by sorted
--- name) is selected; :select(name) switches. No shuffling: wrap a ShuffleDataset for that.
--- Example: local tnt = require 'torchnet'
---   local s = tnt.SplitDataset{dataset = tnt.TableDataset{data = {1, 2, 3, 4}}, partitions = {train = 0.75, valid = 0.25}}
---   s:select('valid')  -- s:size() == 1, s:get(1) == 4
function SplitDataset:__init(...)
  local dataset, partitions = args(...)
  local names = {}
  for key, val in pairs(partitions) do
    if type(key) ~= 'string' then
      error(string.format('[tnt.SplitDataset] partition names should be strings, got %s', torch.type(key)), 2)
    end
    if type(val) ~= 'number' or val < 0 then
      error(string.format('[tnt.SplitDataset] partition %s should have a size >= 0, got %s', key, tostring(val)), 2)
    end
    names[#names + 1] = key
  end
  if #names < 2 then error('[tnt.SplitDataset] SplitDataset should have at least two partitions, got ' .. #names, 2) end
  table.sort(names)
  local sizes, total = {}, 0
  for i, key in ipairs(names) do sizes[i] = partitions[key]; total = total + sizes[i] end
  if total <= 0 then error('[tnt.SplitDataset] all partitions are empty', 2) end
  local n = dataset:size()
  if math.abs(total - 1) < 1e-5 then  -- fractions (torchnet's test), turned into sizes
    for i = 1, #sizes do sizes[i] = math.floor(sizes[i] * n / total) end
  else
    for i, s in ipairs(sizes) do
      if s ~= math.floor(s) then
        error(string.format('[tnt.SplitDataset] partition %s: sizes should be integers unless the '
          .. 'weights sum to 1, got %s', names[i], tostring(s)), 2)
      end
    end
    if total > n then
      error(string.format('[tnt.SplitDataset] the partitions hold %d samples, the dataset only %d', total, n), 2)
    end
  end
  self.__dataset = dataset
  self.__partitionsizes = sizes
  self.__names = {}
  self.__offsets = {}
  local offset = 0
  for i, key in ipairs(names) do
    self.__names[key] = i
    self.__offsets[i] = offset
    offset = offset + sizes[i]
  end
  self.__partition = 1
end

--- splitdataset:select(partition): uses the partition named partition from now on.
--- Example: local tnt = require 'torchnet'
---   local s = tnt.SplitDataset{dataset = tnt.TableDataset{data = {1, 2}}, partitions = {a = 1, b = 1}}; s:select('b')
function SplitDataset:select(partition)
  if type(partition) == 'table' and argcheck.isplain(partition) then partition = partition.partition end
  local idx = self.__names[partition]
  if not idx then
    local known = {}
    for k in pairs(self.__names) do known[#known + 1] = k end
    table.sort(known)
    error(string.format('[tnt.SplitDataset.select] partition %s not found (partitions: %s)', tostring(partition),
      table.concat(known, ', ')), 2)
  end
  self.__partition = idx
end

--- splitdataset:size(): the size of the selected partition.
--- Example: local tnt = require 'torchnet'
---   local n = tnt.SplitDataset{dataset = tnt.TableDataset{data = {1, 2, 3}}, partitions = {a = 2, b = 1}}:size()  -- 2
function SplitDataset:size()
  return self.__partitionsizes[self.__partition]
end

--- splitdataset:get(idx): sample idx of the selected partition.
--- Example: local tnt = require 'torchnet'
---   local s = tnt.SplitDataset{dataset = tnt.TableDataset{data = {1, 2, 3}}, partitions = {a = 2, b = 1}}:get(2)  -- 2
function SplitDataset:get(idx)
  self:__checkindex(idx, self:size())
  return self.__dataset:get(self.__offsets[self.__partition] + idx)
end

return SplitDataset
