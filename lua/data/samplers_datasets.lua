-- PyTorch's map-style dataset utilities missing from data/dataset.lua: data.Subset,
-- data.randomSplit (PyTorch 1.13's rule for fractions), data.StackDataset, and the collate
-- names data.defaultCollate / data.defaultConvert.
local torch = require 'torch'
local data = require 'data.env'
local util = require 'data.util'
local collate = require 'data.collate'
require 'data.dataset'

local Subset = torch.class('data.Subset', 'data.SubsetDataset', data)

--- data.Subset(dataset, indices): the samples of dataset at indices (1-based; a list or a
--- LongTensor), in that order; fields dataset and indices as PyTorch's Subset.
--- Example: data.Subset(data.ListDataset({'a', 'b', 'c'}), {3, 1}):get(1)
function Subset:__init(ds, indices)
  if indices == nil then util.fail('Subset', 'argument #2: expected a list or a LongTensor of indices, got nil') end
  data.SubsetDataset.__init(self, ds, indices)
end

-- Note [randomSplit lengths]: PyTorch 1.13's rule, not ds:split's largest remainders: lengths
-- are fractions when they sum to 1 (math.isclose, and not above 1); each part gets
-- floor(n * fraction) and the remainder is handed out one by one from the first part on
-- (round robin). Otherwise they are counts that must sum to n.
local function split_lengths(n, lengths)
  local sum = 0
  for i, x in ipairs(lengths) do
    if type(x) ~= 'number' or x ~= x then util.fail('randomSplit', 'lengths[%d] is %s, expected a number', i, tostring(x)) end
    sum = sum + x
  end
  local out = {}
  if math.abs(sum - 1) <= 1e-9 * math.max(math.abs(sum), 1) and sum <= 1 then
    local total = 0
    for i, frac in ipairs(lengths) do
      if frac < 0 or frac > 1 then util.fail('randomSplit', 'fraction at index %d is %g, not between 0 and 1', i, frac) end
      out[i] = math.floor(n * frac)
      total = total + out[i]
    end
    for k = 0, n - total - 1 do
      local i = k % #out + 1
      out[i] = out[i] + 1
    end
    return out
  end
  for i, x in ipairs(lengths) do
    if x < 0 or x ~= math.floor(x) then
      util.fail('randomSplit', 'lengths[%d] is %s: give counts (non-negative integers) or fractions summing to 1', i, tostring(x))
    end
    out[i] = x
  end
  if sum ~= n then
    util.fail('randomSplit', 'the lengths sum to %s, not to the %d samples of the dataset', tostring(sum), n)
  end
  return out
end
data._split_lengths = split_lengths

--- data.randomSplit(dataset, lengths[, {generator=, seed=}]): disjoint data.Subset's of dataset of
--- the given lengths (counts summing to dataset:size(), or fractions summing to 1, sized by
--- PyTorch 1.13's rule), after a random permutation drawn from generator (or a generator seeded
--- with seed, or torch's default one). Returns a Lua list of subsets.
--- Example: local parts = data.randomSplit(data.ListDataset({1, 2, 3, 4}), {0.5, 0.5}, {seed = 1})
function data.randomSplit(ds, lengths, opts)
  opts = opts or {}
  local n = util.check_dataset('randomSplit', ds, 1)
  if type(lengths) ~= 'table' or getmetatable(lengths) ~= nil or #lengths == 0 then
    util.fail('randomSplit', 'argument #2: expected a non-empty list of lengths, got %s', torch.type(lengths))
  end
  if type(opts) ~= 'table' then util.fail('randomSplit', 'options must be a table, got %s', type(opts)) end
  local g = opts.generator
  if g ~= nil and not torch._is_generator(g) then
    util.fail('randomSplit', 'generator must be a torch.Generator, got %s', torch.type(g))
  end
  if opts.seed ~= nil then
    util.check_seed('randomSplit', opts.seed)
    if g then util.fail('randomSplit', 'give a seed or a generator, not both') end
    g = torch.Generator()
    torch.manualSeed(g, opts.seed)
  end
  local sizes = split_lengths(n, lengths)
  local perm = {}
  if n > 0 then
    local p = g and torch.randperm(g, n) or torch.randperm(n)
    for i = 1, n do perm[i] = p[i] end
  end
  local out, start = {}, 0
  for i, size in ipairs(sizes) do
    local idx = {}
    for k = 1, size do idx[k] = perm[start + k] end
    out[i] = data.Subset(ds, idx)
    start = start + size
  end
  return out
end

local Stack = torch.class('data.StackDataset', 'data.Dataset', data)

--- data.StackDataset(ds1, ds2, ...) or data.StackDataset{name = ds, ...}: sample i is
--- {ds1:get(i), ds2:get(i), ...} (or {name = ds:get(i), ...}); the datasets must have one size.
--- Example: data.StackDataset(data.ListDataset({1, 2}), data.ListDataset({'a', 'b'})):get(2)
function Stack:__init(...)
  local first = select(1, ...)
  local named = select('#', ...) == 1 and type(first) == 'table' and getmetatable(first) == nil
  local sets = named and first or { ... }
  local n, nameOf
  for k, ds in pairs(sets) do
    local size = util.check_dataset('StackDataset', ds, type(k) == 'number' and k or 1)
    if n == nil then n, nameOf = size, k
    elseif size ~= n then
      util.fail('StackDataset', 'size mismatch: dataset %s has %d samples but dataset %s has %d', tostring(k), size,
        tostring(nameOf), n)
    end
  end
  if n == nil then util.fail('StackDataset', 'expected at least one dataset') end
  self.datasets, self.n = sets, n
end
--- The common number of samples.
function Stack:size() return self.n end
--- The tuple (or table) of the datasets' samples i.
function Stack:get(i)
  util.check_index('StackDataset', i, self.n)
  local out = {}
  for k, ds in pairs(self.datasets) do out[k] = ds:get(i) end
  return out
end

--- data.defaultCollate(samples): PyTorch's default_collate, Tocha's data.collate: tensors are
--- stacked along a new first dimension, numbers become a tensor, tables are collated field by field.
--- Example: data.defaultCollate({{x = 1}, {x = 2}}).x
function data.defaultCollate(samples, ctx) return collate.default(samples, ctx) end

-- Note [defaultConvert]: PyTorch's default_convert turns NumPy arrays into tensors and leaves
-- everything else; Lua samples have no NumPy arrays, so the only conversion left is storages
-- (Torch7's flat arrays) into 1D tensors; tables are rebuilt field by field as PyTorch rebuilds
-- mappings and sequences.
--- data.defaultConvert(sample): the sample with its storages turned into 1D tensors and its
--- plain tables rebuilt field by field; tensors, numbers and strings unchanged (what the loader
--- gives for unbatched samples).
--- Example: data.defaultConvert({x = torch.DoubleStorage({1, 2})}).x
function data.defaultConvert(v)
  if torch.isStorage and torch.isStorage(v) then
    local ctor = torch[(torch.typename(v) or ''):match('^torch%.(%a+)Storage$') .. 'Tensor']
    return ctor(v)
  end
  if type(v) == 'table' and getmetatable(v) == nil then
    local out = {}
    for k, x in pairs(v) do out[k] = data.defaultConvert(x) end
    return out
  end
  return v
end

return data
