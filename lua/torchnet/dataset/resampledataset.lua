-- tnt.ResampleDataset (Torch7 torchnet's dataset/resampledataset.lua): sample idx is the
-- underlying dataset's sample sampler(dataset, idx), for a size that may differ from its own.
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'
require 'torchnet.dataset'

local ResampleDataset = torch.class('tnt.ResampleDataset', 'tnt.Dataset', tnt)

local args = argcheck.parser{ name = 'tnt.ResampleDataset',
  { name = 'dataset', type = 'tnt.Dataset' },
  { name = 'sampler', type = 'function', default = function(_, idx) return idx end },
  { name = 'size', type = 'number', opt = true },
}

--- tnt.ResampleDataset{dataset=[, sampler=, size=]}: get(idx) is dataset:get(sampler(dataset, idx))
--- (sampler defaults to the identity); size defaults to dataset:size().
--- Example: local tnt = require 'torchnet'
---   local r = tnt.ResampleDataset{dataset = tnt.TableDataset{data = {1, 2, 3}}, sampler = function(ds, i) return ds:size() - i + 1 end}  -- r:get(1) == 3
function ResampleDataset:__init(...)
  self.__dataset, self.__sampler, self.__size = args(...)
end

--- resampledataset:size(): the size given at construction, else the underlying dataset's.
--- Example: local tnt = require 'torchnet'; local n = tnt.ResampleDataset{dataset = tnt.TableDataset{data = {1, 2}}, size = 5}:size()  -- 5
function ResampleDataset:size()
  return (self.__size and self.__size > 0) and self.__size or self.__dataset:size()
end

--- resampledataset:get(idx): the underlying sample sampler(dataset, idx).
--- Example: local tnt = require 'torchnet'; local s = tnt.ResampleDataset{dataset = tnt.TableDataset{data = {7}}, sampler = function() return 1 end, size = 3}:get(3)  -- 7
function ResampleDataset:get(idx)
  self:__checkindex(idx, self:size())
  local j = self.__sampler(self.__dataset, idx)
  local n = self.__dataset:size()
  if type(j) ~= 'number' or j ~= math.floor(j) or j < 1 or j > n then
    error(string.format('[%s.get] index out of bound (sampler): the sampler gave %s for index %d, '
      .. 'expected an integer in 1..%d', torch.type(self), tostring(j), idx, n), 2)
  end
  return self.__dataset:get(j)
end

return ResampleDataset
