-- PyTorch's samplers (torch.utils.data.*Sampler): SequentialSampler, RandomSampler,
-- SubsetRandomSampler, WeightedRandomSampler and BatchSampler, over 1-based dataset indices.
-- Loaded by data/init.lua; it also loads the dataset utilities (data/samplers_datasets.lua)
-- and the iterable datasets (data/iterable.lua).
local torch = require 'torch'
local data = require 'data.env'
local util = require 'data.util'
local ffi = require 'ffi'

-- Note [Sampler protocol]: a sampler is any object with size() (or len()) and indices(epoch)
-- (a Lua list of 1-based dataset indices) or iter(epoch) (an iterator over them), which is the
-- shape data.DistributedSampler already had; a batch sampler has size() (the number of batches)
-- and batches(epoch) or iter(epoch) giving lists of indices. LuaJIT ignores __len on tables, so
-- `#sampler` cannot work: len() is the PyTorch spelling. Randomness: with opts.seed the order of
-- epoch e is drawn from mix(seed, e) (repeatable per epoch, as DistributedSampler); with
-- opts.generator each call draws from that generator (PyTorch's behaviour); with neither, from
-- torch's default generator.

local Sampler = torch.class('data.Sampler', data)

--- data.Sampler(): the base of samplers; a subclass defines size() and indices(epoch), and gets
--- len(), iter(epoch) and setEpoch(epoch). Example: data.Sampler.len(data.SequentialSampler(3))
function Sampler:__init() end
--- sampler:size(): the number of indices an epoch gives.
function Sampler:size() util.fail(torch.typename(self) or 'Sampler', 'size() is not implemented') end
--- sampler:len(): the same as size() (PyTorch's len(sampler)).
function Sampler:len() return self:size() end
--- sampler:indices([epoch]): the Lua list of dataset indices (1-based) of an epoch.
function Sampler:indices() util.fail(torch.typename(self) or 'Sampler', 'indices(epoch) is not implemented') end
--- sampler:iter([epoch]): an iterator over indices(epoch): for i in sampler:iter() do ... end
function Sampler:iter(epoch)
  local list, k = self:indices(epoch), 0
  return function()
    k = k + 1
    return list[k]
  end
end
--- sampler:setEpoch(epoch): the epoch a seeded sampler draws its order for (PyTorch's set_epoch).
function Sampler:setEpoch(epoch)
  if type(epoch) ~= 'number' then util.fail(torch.typename(self), 'setEpoch expects a number, got %s', type(epoch)) end
  self.epoch = epoch
end
function Sampler:__tostring__() return string.format('%s (%d indices)', torch.typename(self), self:size()) end

-- ---- helpers -----------------------------------------------------------------------------------

-- The number of samples of a dataset, a count or a list.
local function count_of(op, ds)
  if type(ds) == 'number' then
    if ds < 0 or ds ~= math.floor(ds) then util.fail(op, 'expected a dataset or a count, got %s', tostring(ds)) end
    return ds
  end
  if type(ds) == 'table' and type(ds.size) == 'function' then
    local n = ds:size()
    if type(n) == 'number' then return n end
  end
  util.fail(op, 'argument #1: expected a dataset (an object with size()) or a count, got %s', torch.type(ds))
end

-- A Lua list of numbers from a list or a 1D tensor.
local function list_of(op, what, v)
  local out = {}
  if torch.isTensor(v) then
    if v:dim() ~= 1 then  -- PyTorch 1.13: "weights should be a 1d sequence"
      local dims = {}
      for d = 1, v:dim() do dims[d] = v:size(d) end
      util.fail(op, '%s must be a 1D tensor, got a %s tensor', what, v:dim() == 0 and '0-dim' or table.concat(dims, 'x'))
    end
    local flat = v:contiguous():double()
    local p = flat:data()
    for i = 1, flat:nElement() do out[i] = p[i - 1] end
  elseif type(v) == 'table' and getmetatable(v) == nil then
    for i, x in ipairs(v) do out[i] = x end
    if #out ~= table.maxn(v) then util.fail(op, '%s has holes; give a sequence', what) end
  else
    util.fail(op, '%s must be a Lua list or a tensor, got %s', what, torch.type(v))
  end
  for i, x in ipairs(out) do
    if type(x) ~= 'number' or x ~= x then util.fail(op, '%s[%d] is %s, expected a number', what, i, tostring(x)) end
  end
  return out
end
data._list_of = list_of

local function tensor_list(t)
  local c = t:contiguous():long()
  local p, out = ffi.cast('int64_t *', c:data()), {}
  for i = 1, c:nElement() do out[i] = tonumber(p[i - 1]) end
  return out
end

-- Reads opts.generator / opts.seed of a random sampler.
local function random_opts(op, opts)
  if opts.generator ~= nil and not torch._is_generator(opts.generator) then
    util.fail(op, 'generator must be a torch.Generator, got %s', torch.type(opts.generator))
  end
  if opts.generator ~= nil and opts.seed ~= nil then util.fail(op, 'give a seed or a generator, not both') end
  return opts.generator, util.check_seed(op, opts.seed)
end

-- The generator to draw epoch e's order from (nil: torch's default one).
local function generator_for(self, epoch)
  if self.seed then
    local g = torch.Generator()
    torch.manualSeed(g, util.mix_seed(self.seed, self.epoch or epoch or 1))
    return g
  end
  return self.generator
end

local function randperm(g, n)
  if g then return torch.randperm(g, n) end
  return torch.randperm(n)
end

-- ---- SequentialSampler -------------------------------------------------------------------------

local Sequential = torch.class('data.SequentialSampler', 'data.Sampler', data)

--- data.SequentialSampler(dataset): the indices 1..dataset:size() in order (dataset may be a count).
--- Example: data.SequentialSampler(3):indices()
function Sequential:__init(ds) self.n = count_of('SequentialSampler', ds) end
--- The number of samples.
function Sequential:size() return self.n end
--- 1..n.
function Sequential:indices()
  local out = {}
  for i = 1, self.n do out[i] = i end
  return out
end

-- ---- RandomSampler -----------------------------------------------------------------------------

local Random = torch.class('data.RandomSampler', 'data.Sampler', data)

--- data.RandomSampler(dataset[, {replacement=false, numSamples=n, generator=, seed=}]): a random
--- permutation of 1..n per epoch, or numSamples indices drawn uniformly with replacement. Without
--- replacement numSamples may exceed n (PyTorch 1.13: whole permutations, then part of one).
--- Example: data.RandomSampler(5, {seed = 1}):indices()
function Random:__init(ds, opts)
  opts = opts or {}
  if type(opts) ~= 'table' then util.fail('RandomSampler', 'options must be a table, got %s', type(opts)) end
  self.n = count_of('RandomSampler', ds)
  if opts.replacement ~= nil and type(opts.replacement) ~= 'boolean' then
    util.fail('RandomSampler', 'replacement must be a boolean, got %s', tostring(opts.replacement))
  end
  self.replacement = opts.replacement or false
  local m = opts.numSamples
  if m == nil then m = self.n end
  if type(m) ~= 'number' or m <= 0 or m ~= math.floor(m) then
    util.fail('RandomSampler', 'numSamples must be a positive integer, got %s', tostring(m))
  end
  if self.n == 0 then
    -- PyTorch 1.13 raises too (a division by zero); drawing would loop forever here.
    util.fail('RandomSampler', 'cannot draw %d indices from an empty dataset', m)
  end
  self.numSamples = m
  self.generator, self.seed = random_opts('RandomSampler', opts)
end
--- The number of indices per epoch (numSamples).
function Random:size() return self.numSamples end
--- The indices of an epoch (a new draw each call unless seeded).
function Random:indices(epoch)
  local g, n, m = generator_for(self, epoch), self.n, self.numSamples
  if self.replacement then
    local t = torch.LongTensor(m)
    if g then t:random(g, 1, n) else t:random(1, n) end
    return tensor_list(t)
  end
  local out = {}
  for _ = 1, math.floor(m / n) do
    for _, i in ipairs(tensor_list(randperm(g, n))) do out[#out + 1] = i end
  end
  if m % n > 0 then
    local p = tensor_list(randperm(g, n))
    for k = 1, m % n do out[#out + 1] = p[k] end
  end
  return out
end

-- ---- SubsetRandomSampler -----------------------------------------------------------------------

local SubsetRandom = torch.class('data.SubsetRandomSampler', 'data.Sampler', data)

--- data.SubsetRandomSampler(indices[, {generator=, seed=}]): the given dataset indices (a list or a
--- tensor) in a random order per epoch. Example: data.SubsetRandomSampler({2, 4, 6}, {seed = 1}):indices()
function SubsetRandom:__init(indices, opts)
  opts = opts or {}
  self.list = list_of('SubsetRandomSampler', 'indices', indices)
  self.generator, self.seed = random_opts('SubsetRandomSampler', opts)
end
--- The number of indices.
function SubsetRandom:size() return #self.list end
--- The indices, permuted.
function SubsetRandom:indices(epoch)
  local out = {}
  if #self.list == 0 then return out end
  for k, p in ipairs(tensor_list(randperm(generator_for(self, epoch), #self.list))) do out[k] = self.list[p] end
  return out
end

-- ---- WeightedRandomSampler ---------------------------------------------------------------------

local Weighted = torch.class('data.WeightedRandomSampler', 'data.Sampler', data)

--- data.WeightedRandomSampler(weights, numSamples[, {replacement=true, generator=, seed=}]):
--- numSamples indices drawn with probabilities proportional to weights (a list or a 1D tensor;
--- need not sum to 1); zero weights are never drawn. A boolean third argument is replacement
--- (PyTorch's positional form). Example: data.WeightedRandomSampler({0.1, 0.9}, 4, {seed = 1}):indices()
function Weighted:__init(weights, numSamples, opts)
  if type(opts) == 'boolean' then opts = { replacement = opts } end
  opts = opts or {}
  local w = list_of('WeightedRandomSampler', 'weights', weights)
  local positive = 0
  for i, x in ipairs(w) do
    if x < 0 or x == math.huge then
      util.fail('WeightedRandomSampler', 'weights[%d] is %s, expected a finite non-negative number', i, tostring(x))
    end
    if x > 0 then positive = positive + 1 end
  end
  if positive == 0 then util.fail('WeightedRandomSampler', 'the weights are all zero (or there are none)') end
  if type(numSamples) ~= 'number' or numSamples <= 0 or numSamples ~= math.floor(numSamples) then
    util.fail('WeightedRandomSampler', 'numSamples must be a positive integer, got %s', tostring(numSamples))
  end
  if opts.replacement ~= nil and type(opts.replacement) ~= 'boolean' then
    util.fail('WeightedRandomSampler', 'replacement must be a boolean, got %s', tostring(opts.replacement))
  end
  self.replacement = opts.replacement ~= false
  if not self.replacement and numSamples > positive then
    util.fail('WeightedRandomSampler', 'cannot draw %d indices without replacement from %d non-zero weights',
      numSamples, positive)
  end
  self.weights, self.numSamples = torch.DoubleTensor(w), numSamples
  self.generator, self.seed = random_opts('WeightedRandomSampler', opts)
end
--- The number of indices per epoch (numSamples).
function Weighted:size() return self.numSamples end
--- The drawn indices.
function Weighted:indices(epoch)
  local g = generator_for(self, epoch)
  local t = g and torch.multinomial(g, self.weights, self.numSamples, self.replacement)
    or torch.multinomial(self.weights, self.numSamples, self.replacement)
  return tensor_list(t)
end

require 'data.samplers_batch'
require 'data.samplers_datasets'
require 'data.iterable'

return data
