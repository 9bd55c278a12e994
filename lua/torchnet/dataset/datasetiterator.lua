-- tnt.DatasetIterator (Torch7 torchnet's dataset/datasetiterator.lua): iterates over a dataset (or
-- another iterator) in order, with an on-the-fly transform and filter. `for s in it() do` or
-- `for s in it:run() do`.
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'
require 'torchnet.dataset'

local DatasetIterator = torch.class('tnt.DatasetIterator', tnt)

local function keep() return true end
local function same(sample) return sample end
local dataset_args = argcheck.parser{ name = 'tnt.DatasetIterator',
  { name = 'dataset', type = 'tnt.Dataset' },
  { name = 'filter', type = 'function', default = keep },
  { name = 'transform', type = 'function', default = same },
}
local iterator_args = argcheck.parser{ name = 'tnt.DatasetIterator',
  { name = 'iterator', type = 'tnt.DatasetIterator' },
  { name = 'filter', type = 'function', default = keep },
  { name = 'transform', type = 'function', default = same },
}

--- tnt.DatasetIterator{dataset=[, filter=, transform=]} or tnt.DatasetIterator{iterator=, ...}: run()
--- returns a Lua iterator over transform(sample) for the samples in order, skipping those for which
--- filter(transformed sample) is false. The size is read at each run(), so a dataset may change
--- between epochs (a ShuffleDataset resampled).
--- Example: local tnt = require 'torchnet'
---   local it = tnt.DatasetIterator{dataset = tnt.TableDataset{data = {1, 2, 3, 4}}, filter = function(x) return x % 2 == 0 end}
---   local got = {}; for x in it() do got[#got + 1] = x end  -- {2, 4}
function DatasetIterator:__init(...)
  local first = ...
  local over_iterator = torch.isTypeOf(first, 'tnt.DatasetIterator')
    or (select('#', ...) == 1 and argcheck.isplain(first) and first.iterator ~= nil)
  if over_iterator then
    local iterator, filter, transform = iterator_args(...)
    self.iterator = iterator
    function self.run()
      local loop = iterator:run()
      return function()
        while true do
          local sample = loop()
          if sample == nil then return nil end
          sample = transform(sample)
          if filter(sample) then return sample end
        end
      end
    end
  else
    local dataset, filter, transform = dataset_args(...)
    self.dataset = dataset
    function self.run()
      local size = dataset:size()
      local idx = 1
      return function()
        while idx <= size do
          local sample = transform(dataset:get(idx))
          idx = idx + 1
          if filter(sample) then return sample end
        end
      end
    end
  end
end

--- iterator(): the same as iterator:run().
--- Example: local tnt = require 'torchnet'; for s in tnt.DatasetIterator{dataset = tnt.TableDataset{data = {1}}}() do end
function DatasetIterator:__call__(...)
  return self:run(...)
end

--- iterator:exec(name, ...): calls the method name of the iterator, else of its dataset (or
--- inner iterator), e.g. exec('resample') on a shuffled dataset between epochs.
--- Example: local tnt = require 'torchnet'; local n = tnt.DatasetIterator{dataset = tnt.TableDataset{data = {1, 2}}}:exec('size')  -- 2
function DatasetIterator:exec(name, ...)
  if type(self[name]) == 'function' then
    return self[name](self, ...)
  elseif self.dataset then
    return self.dataset:exec(name, ...)
  elseif self.iterator then
    return self.iterator:exec(name, ...)
  end
  error(string.format('[%s.exec] unknown function <%s>', torch.type(self), tostring(name)), 2)
end

--- iterator:filter(filter): a new iterator over this one's samples for which filter(sample) is true.
--- Example: local tnt = require 'torchnet'; local it = tnt.TableDataset{data = {1, 2, 3}}:iterator():filter(function(x) return x > 1 end)
function DatasetIterator:filter(filter)
  return tnt.DatasetIterator{ iterator = self, filter = filter }
end

--- iterator:transform(transform): a new iterator over transform(sample) of this one's samples.
--- Example: local tnt = require 'torchnet'; local it = tnt.TableDataset{data = {1, 2}}:iterator():transform(function(x) return -x end)
function DatasetIterator:transform(transform)
  return tnt.DatasetIterator{ iterator = self, transform = transform }
end

return DatasetIterator
