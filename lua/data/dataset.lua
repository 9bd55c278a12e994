-- data.Dataset, the base of datasets (torchnet's convention: size() and get(i), 1-based), with
-- the sugar that wraps one dataset in another: map, shuffle, split, subset, batch.
-- Any object with size() and get(i) works with the loader; these methods need the base class.
local torch = require 'torch'
local data = require 'data.env'
local util = require 'data.util'
local collate = require 'data.collate'

local Dataset = torch.class('data.Dataset', data)

--- ds:size(): the number of samples.
function Dataset:size() util.fail(torch.typename(self) or 'Dataset', 'size() is not implemented') end
--- ds:get(i): sample i (1-based).
function Dataset:get(i) util.fail(torch.typename(self) or 'Dataset', 'get(i) is not implemented') end

function Dataset:__tostring__()
  return string.format('%s (%d samples)', torch.typename(self), self:size())
end

--- ds:map(fn[, key]): a dataset whose sample i is fn(ds:get(i), i), or, with key, ds:get(i) with
--- field key replaced by fn(sample[key], i). The sample from ds is not modified.
function Dataset:map(fn, key) return data.MapDataset(self, fn, key) end
--- ds:shuffle([seed]): the samples in a fixed random order drawn from seed (from torch's
--- generator when nil, so torch.manualSeed upstream makes it repeat).
function Dataset:shuffle(seed)
  util.check_seed('shuffle', seed)
  return data.SubsetDataset(self, nil, seed or torch.random())
end
--- ds:subset(indices): the samples at indices (a Lua list or a LongTensor), in that order.
function Dataset:subset(indices) return data.SubsetDataset(self, indices) end
--- ds:batch(n[, opts]): a dataset of batches of n consecutive samples (the last one smaller
--- unless opts.dropLast); opts.collate replaces data.collate.
function Dataset:batch(n, opts) return data.BatchDataset(self, n, opts) end

-- Sizes of the parts of n samples: fractions summing to 1 (rounded so that the sizes sum to n
-- exactly; remainders go to the first parts) or counts summing to n.
local function part_sizes(op, n, parts)
  if type(parts) ~= 'table' or #parts == 0 then util.fail(op, 'expected a list of fractions or counts, got %s', type(parts)) end
  local sum, counts = 0, true
  for i, p in ipairs(parts) do
    if type(p) ~= 'number' or p < 0 then util.fail(op, 'part %d is %s, expected a non-negative number', i, tostring(p)) end
    sum = sum + p
    counts = counts and p == math.floor(p)
  end
  local sizes = {}
  if counts and sum == n and not (sum == 1 and #parts > 1) then
    for i, p in ipairs(parts) do sizes[i] = p end
    return sizes
  end
  if math.abs(sum - 1) > 1e-6 then
    util.fail(op, 'the parts sum to %g: give fractions summing to 1 or counts summing to the %d samples', sum, n)
  end
  local total, order = 0, {}
  for i, p in ipairs(parts) do
    sizes[i] = math.floor(p * n)
    total = total + sizes[i]
    order[i] = i
  end
  -- Largest remainders first, so each part is as close as possible to its fraction.
  table.sort(order, function(a, b)
    local ra, rb = parts[a] * n - sizes[a], parts[b] * n - sizes[b]
    return ra > rb or (ra == rb and a < b)
  end)
  for k = 1, n - total do sizes[order[k]] = sizes[order[k]] + 1 end
  return sizes
end
data._part_sizes = part_sizes

--- ds:split(parts[, seed]): datasets holding disjoint parts of ds, one per entry of parts
--- (fractions summing to 1, or counts summing to ds:size()); every sample lands in exactly
--- one part. With a seed the samples are shuffled first. Example: train, val = ds:split({0.8, 0.2}, 1)
function Dataset:split(parts, seed)
  util.check_seed('split', seed)
  local n = self:size()
  local sizes = part_sizes('split', n, parts)
  local order = seed and util.permutation(n, seed) or nil
  local out, start = {}, 0
  for i, size in ipairs(sizes) do
    local idx = {}
    for k = 1, size do idx[k] = order and order[start + k] or (start + k) end
    out[i] = data.SubsetDataset(self, idx)
    start = start + size
  end
  return unpack(out)
end

-- ---- wrappers ------------------------------------------------------------------------------------

local MapDataset = torch.class('data.MapDataset', 'data.Dataset', data)

--- data.MapDataset(ds, fn[, key]): see ds:map.
function MapDataset:__init(ds, fn, key)
  self.n = util.check_dataset('map', ds, 1)
  if type(fn) ~= 'function' and not (type(fn) == 'table' and getmetatable(fn) and getmetatable(fn).__call) then
    util.fail('map', 'expected a function, got %s', type(fn))
  end
  self.dataset, self.fn, self.key = ds, fn, key
end
--- The number of samples of the wrapped dataset.
function MapDataset:size() return self.dataset:size() end
--- The transformed sample i.
function MapDataset:get(i)
  local s = self.dataset:get(i)
  if self.key == nil then return self.fn(s, i) end
  if type(s) ~= 'table' then util.fail('map', 'sample %d is a %s, not a table with field %s', i, type(s), tostring(self.key)) end
  local copy = {}
  for k, v in pairs(s) do copy[k] = v end
  copy[self.key] = self.fn(s[self.key], i)
  return copy
end

local SubsetDataset = torch.class('data.SubsetDataset', 'data.Dataset', data)

--- data.SubsetDataset(ds, indices[, seed]): samples of ds at indices (a list or LongTensor; all
--- of ds when nil), shuffled with seed when one is given.
function SubsetDataset:__init(ds, indices, seed)
  local n = util.check_dataset('subset', ds, 1)
  util.check_seed('subset', seed)
  local idx = {}
  if indices == nil then
    for i = 1, n do idx[i] = i end
  elseif torch.isTensor(indices) then
    local flat = indices:contiguous():view(-1)
    for i = 1, flat:nElement() do idx[i] = flat[i] end
  elseif type(indices) == 'table' then
    for i, v in ipairs(indices) do idx[i] = v end
  else
    util.fail('subset', 'expected a list or a LongTensor of indices, got %s', torch.type(indices))
  end
  for k, i in ipairs(idx) do
    if type(i) ~= 'number' or i ~= math.floor(i) or i < 1 or i > n then
      util.fail('subset', 'index %s at position %d is out of range 1..%d', tostring(i), k, n)
    end
  end
  if seed then
    local perm = util.permutation(#idx, seed)
    local shuffled = {}
    for k, p in ipairs(perm) do shuffled[k] = idx[p] end
    idx = shuffled
  end
  self.dataset, self.indices = ds, idx
end
--- The number of selected samples.
function SubsetDataset:size() return #self.indices end
--- The selected sample i.
function SubsetDataset:get(i)
  util.check_index('subset', i, #self.indices)
  return self.dataset:get(self.indices[i])
end

local BatchDataset = torch.class('data.BatchDataset', 'data.Dataset', data)

--- data.BatchDataset(ds, n[, opts]): see ds:batch.
function BatchDataset:__init(ds, n, opts)
  opts = opts or {}
  self.n = util.check_dataset('batch', ds, 1)
  if type(n) ~= 'number' or n < 1 or n ~= math.floor(n) then util.fail('batch', 'batch size must be a positive integer, got %s', tostring(n)) end
  self.dataset, self.batchSize, self.dropLast = ds, n, opts.dropLast and true or false
  self.collate = opts.collate or collate.default
end
--- The number of batches.
function BatchDataset:size()
  local n = self.dataset:size()
  return self.dropLast and math.floor(n / self.batchSize) or math.ceil(n / self.batchSize)
end
--- Batch i: samples (i-1)*n+1 .. i*n collated.
function BatchDataset:get(i)
  util.check_index('batch', i, self:size())
  local first = (i - 1) * self.batchSize
  local last = math.min(first + self.batchSize, self.dataset:size())
  local samples, indices = {}, {}
  for k = first + 1, last do
    samples[#samples + 1] = self.dataset:get(k)
    indices[#indices + 1] = k
  end
  return self.collate(samples, { indices = indices })
end

local ConcatDataset = torch.class('data.ConcatDataset', 'data.Dataset', data)

--- data.ConcatDataset({ds1, ds2, ...}): the samples of ds1, then those of ds2...
function ConcatDataset:__init(list)
  if type(list) ~= 'table' or torch.typename(list) then util.fail('ConcatDataset', 'expected a list of datasets') end
  self.datasets, self.offsets = {}, {}
  local total = 0
  for i, ds in ipairs(list) do
    self.offsets[i] = total
    total = total + util.check_dataset('ConcatDataset', ds, i)
    self.datasets[i] = ds
  end
  self.n = total
end
--- The total number of samples.
function ConcatDataset:size() return self.n end
--- Sample i of the concatenation.
function ConcatDataset:get(i)
  util.check_index('ConcatDataset', i, self.n)
  for k = #self.datasets, 1, -1 do
    if i > self.offsets[k] then return self.datasets[k]:get(i - self.offsets[k]) end
  end
end

--- data.trainTestSplit(dataset, testFraction[, seed]) returns train, test datasets;
--- data.trainTestSplit(x, y, testFraction[, seed]) returns xTrain, xTest, yTrain, yTest (rows of
--- tensors). The rows are shuffled with seed (drawn from torch's generator when nil); every row
--- lands in exactly one part.
--- Example: local train, test = data.trainTestSplit(data.TensorDataset(torch.randn(10, 2), torch.zeros(10)), 0.2, 1)
function data.trainTestSplit(a, b, c, d)
  if torch.isTensor(a) then
    local x, y, fraction, seed = a, b, c, d
    if type(fraction) ~= 'number' or fraction < 0 or fraction > 1 then
      util.fail('trainTestSplit', 'testFraction must be a number in [0, 1], got %s', tostring(fraction))
    end
    if x:dim() < 1 then util.fail('trainTestSplit', 'x has no dimension to split rows along') end
    if not torch.isTensor(y) or y:size(1) ~= x:size(1) then
      util.fail('trainTestSplit', 'inconsistent sizes: x has %d rows, y has %s', x:size(1),
        torch.isTensor(y) and tostring(y:size(1)) or torch.type(y))
    end
    local n = x:size(1)
    local sizes = part_sizes('trainTestSplit', n, { 1 - fraction, fraction })
    local perm = util.permutation(n, util.check_seed('trainTestSplit', seed) or torch.random())
    local tr, te = torch.LongTensor(sizes[1]), torch.LongTensor(sizes[2])
    for i = 1, sizes[1] do tr[i] = perm[i] end
    for i = 1, sizes[2] do te[i] = perm[sizes[1] + i] end
    return x:index(1, tr), x:index(1, te), y:index(1, tr), y:index(1, te)
  end
  util.check_dataset('trainTestSplit', a, 1)
  local fraction, seed = b, c
  if type(fraction) ~= 'number' or fraction < 0 or fraction > 1 then
    util.fail('trainTestSplit', 'testFraction must be a number in [0, 1], got %s', tostring(fraction))
  end
  return Dataset.split(a, { 1 - fraction, fraction }, util.check_seed('trainTestSplit', seed) or torch.random())
end

return Dataset
