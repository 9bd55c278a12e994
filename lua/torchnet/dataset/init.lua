-- tnt.Dataset (Torch7 torchnet's dataset/init.lua): the base class of datasets. A dataset has
-- size() and get(idx) (idx in 1..size(), returning a sample, usually a table of tensors), and
-- shortcuts that wrap it in the other datasets and iterators (batch, shuffle, split...).
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'

local Dataset = torch.class('tnt.Dataset', tnt)

function Dataset:__init() end

--- dataset:size(): the number of samples (each dataset class defines it).
--- Example: local tnt = require 'torchnet'; local n = tnt.TableDataset{data = {1, 2, 3}}:size()  -- 3
function Dataset:size()
  error(string.format('[%s.size] size not implemented for class <%s>', torch.type(self), torch.type(self)), 2)
end

--- dataset:get(idx): the sample at index idx, 1 <= idx <= size() (each dataset class defines it).
--- Example: local tnt = require 'torchnet'; local s = tnt.TableDataset{data = {{x = 1}, {x = 2}}}:get(2)  -- {x = 2}
function Dataset:get()
  error(string.format('[%s.get] get not implemented for class <%s>', torch.type(self), torch.type(self)), 2)
end

--- dataset:exec(name, ...): calls the method name of this dataset, or of the dataset it wraps when
--- it has none (e.g. exec('resample') through a BatchDataset over a ShuffleDataset).
--- Example: local tnt = require 'torchnet'; local n = tnt.TableDataset{data = {1, 2}}:exec('size')  -- 2
function Dataset:exec(name, ...)
  if type(self[name]) == 'function' then
    return self[name](self, ...)
  elseif self.dataset then
    return self.dataset:exec(name, ...)
  elseif self.__dataset then
    return self.__dataset:exec(name, ...)
  end
  error(string.format('[%s.exec] unknown function <%s>', torch.type(self), tostring(name)), 2)
end

-- Note [Dataset shortcuts]: torchnet's dataset:batch(...) is tnt.BatchDataset(dataset, ...), so
-- only the ordered form worked (dataset:batch(4)). A single table of named arguments is also
-- accepted here (dataset:batch{batchsize = 4}), with this dataset as its `dataset`, when all its
-- keys are the constructor's argument names (dataset:split{train = 0.9, valid = 0.1} stays ordered).
local function shortcut(class, names)
  local known = {}
  for _, n in ipairs(names) do known[n] = true end
  return function(self, ...)
    local first = ...
    local isnamed = select('#', ...) == 1 and argcheck.isplain(first) and next(first) ~= nil
    if isnamed then
      for k in pairs(first) do
        if not known[k] then isnamed = false break end
      end
    end
    if isnamed then
      local args = {}
      for k, v in pairs(first) do args[k] = v end
      args.dataset = self
      return tnt[class](args)
    end
    return tnt[class](self, ...)
  end
end

--- dataset:batch(batchsize[, perm, merge, policy, filter]): tnt.BatchDataset over this dataset.
--- Example: local tnt = require 'torchnet'; local b = tnt.TableDataset{data = {{x = torch.ones(2)}, {x = torch.ones(2)}}}:batch(2)
Dataset.batch = shortcut('BatchDataset', { 'batchsize', 'perm', 'merge', 'policy', 'filter' })
--- dataset:resample([sampler, size]): tnt.ResampleDataset over this dataset.
--- Example: local tnt = require 'torchnet'; local r = tnt.TableDataset{data = {1, 2}}:resample(function(ds, i) return 3 - i end)
Dataset.resample = shortcut('ResampleDataset', { 'sampler', 'size' })
--- dataset:shuffle([size, replacement]): tnt.ShuffleDataset over this dataset.
--- Example: local tnt = require 'torchnet'; local s = tnt.TableDataset{data = {1, 2, 3}}:shuffle()
Dataset.shuffle = shortcut('ShuffleDataset', { 'size', 'replacement' })
--- dataset:split(partitions): tnt.SplitDataset over this dataset.
--- Example: local tnt = require 'torchnet'; local s = tnt.TableDataset{data = {1, 2, 3, 4}}:split{train = 3, test = 1}
Dataset.split = shortcut('SplitDataset', { 'partitions' })
--- dataset:transform(transform[, key]) or dataset:transform(transforms): tnt.TransformDataset over this dataset.
--- Example: local tnt = require 'torchnet'; local t = tnt.TableDataset{data = {{x = 1}}}:transform(function(x) return 2 * x end, 'x')
Dataset.transform = shortcut('TransformDataset', { 'transform', 'key', 'transforms' })
--- dataset:iterator([filter, transform]): a tnt.DatasetIterator over this dataset.
--- Example: local tnt = require 'torchnet'; for s in tnt.TableDataset{data = {{x = 1}}}:iterator()() do end
Dataset.iterator = shortcut('DatasetIterator', { 'filter', 'transform' })

local parallel_args = argcheck.parser{ name = 'tnt.Dataset.parallel',
  { name = 'init', type = 'function', default = function() end },
  { name = 'nthread', type = 'number' },
  { name = 'perm', type = 'function', default = function(idx) return idx end },
  { name = 'filter', type = 'function', default = function() return true end },
  { name = 'transform', type = 'function', default = function(sample) return sample end },
  { name = 'ordered', type = 'boolean', default = false },
}
--- dataset:parallel{nthread=[, init, perm, filter, transform, ordered]}: a tnt.ParallelDatasetIterator
--- whose threads each get a copy of this dataset (its class must come from a module, as torchnet's do).
--- Example: local tnt = require 'torchnet'; local it = tnt.TableDataset{data = {{x = 1}, {x = 2}}}:parallel{nthread = 1, ordered = true}
function Dataset:parallel(...)
  local init, nthread, perm, filter, transform, ordered = parallel_args(...)
  local dataset = self
  return tnt.ParallelDatasetIterator{ init = init, closure = function() return dataset end, nthread = nthread,
    perm = perm, filter = filter, transform = transform, ordered = ordered }
end

-- Bounds check shared by the datasets: idx must be an integer in 1..size.
function Dataset:__checkindex(idx, size)
  if type(idx) ~= 'number' or idx ~= math.floor(idx) or idx < 1 or idx > size then
    error(string.format('[%s.get] index out of bound: expected an integer in 1..%d, got %s',
      torch.type(self), size, tostring(idx)), 3)
  end
end

return Dataset
