-- Iterable-style datasets (PyTorch's IterableDataset, ChainDataset), data.getWorkerInfo(), and
-- the two objects a loader ships to its worker states in their place: data._WorkerDataset (a
-- map-style dataset that knows its worker) and data._IterableShard (one worker's stream of
-- batches). The main-state side of iterable loading is data/iterable_loader.lua.
local torch = require 'torch'
local lib = require 'torch.lib'
local ffi = require 'ffi'
local data = require 'data.env'
local util = require 'data.util'
local collate = require 'data.collate'
local C = lib.C

local function callable(f)
  return type(f) == 'function' or (type(f) == 'table' and getmetatable(f) and getmetatable(f).__call ~= nil)
end

local Iterable = torch.class('data.IterableDataset', data)

--- data.IterableDataset(source[, {size=n}]): a dataset defined by a stream: source is a function
--- returning a fresh iterator (called once per epoch and per loader worker) or a Lua list; or
--- subclass it and define iter(). opts.size declares the length, if known. In a loader with
--- workers, the iterator may call data.getWorkerInfo() to read its own shard (Note [Iterable shards]).
--- Example: data.IterableDataset(function() local i = 0 return function() i = i + 1 if i <= 3 then return i end end end)
function Iterable:__init(source, opts)
  opts = opts or {}
  if source ~= nil and not callable(source) and not (type(source) == 'table' and getmetatable(source) == nil) then
    util.fail('IterableDataset', 'expected a function returning an iterator, or a list, got %s', torch.type(source))
  end
  if opts.size ~= nil and (type(opts.size) ~= 'number' or opts.size < 0 or opts.size % 1 ~= 0) then
    util.fail('IterableDataset', 'size must be a non-negative integer, got %s', tostring(opts.size))
  end
  self.source, self.n = source, opts.size
end

--- ds:iter(): a fresh iterator over the samples: for x in ds:iter() do ... end
function Iterable:iter()
  local src = self.source
  if src == nil then
    util.fail(torch.typename(self), 'iter() is not implemented: give data.IterableDataset a function or define iter()')
  end
  if not callable(src) then
    local k = 0
    return function()
      k = k + 1
      return src[k]
    end
  end
  local it = src()
  if not callable(it) then
    util.fail(torch.typename(self), 'the function given to IterableDataset returned %s, expected an iterator function',
      torch.type(it))
  end
  return it
end

--- ds:size(): the declared number of samples, or nil when unknown (PyTorch's optional __len__).
function Iterable:size() return self.n end
--- ds:len(): the same as size().
function Iterable:len() return self:size() end
function Iterable:__tostring__()
  return string.format('%s (%s samples)', torch.typename(self), self.n and tostring(self.n) or 'unknown number of')
end

--- data.isIterable(ds): whether ds is an iterable-style dataset (a data.IterableDataset, or an
--- object with iter() and no get(i)).
--- Example: data.isIterable(data.ChainDataset({}))
function data.isIterable(ds)
  if type(ds) ~= 'table' then return false end
  if torch.isTypeOf(ds, 'data.IterableDataset') then return true end
  return type(ds.iter) == 'function' and ds.get == nil and ds.indices == nil and ds.batches == nil
end

local Chain = torch.class('data.ChainDataset', 'data.IterableDataset', data)

--- data.ChainDataset({ds1, ds2, ...}): the samples of iterable dataset ds1, then those of ds2...
--- Example: data.ChainDataset({data.IterableDataset({1, 2}), data.IterableDataset({3})})
function Chain:__init(list)
  if type(list) ~= 'table' or getmetatable(list) ~= nil then
    util.fail('ChainDataset', 'expected a list of iterable datasets, got %s', torch.type(list))
  end
  local n = 0
  for i, ds in ipairs(list) do
    if not data.isIterable(ds) then
      util.fail('ChainDataset', 'dataset %d is a %s, expected an iterable dataset (with iter())', i, torch.type(ds))
    end
    local size = type(ds.size) == 'function' and ds:size() or nil
    n = (n and size) and n + size or nil
  end
  self.datasets, self.n = list, n
end
--- chain:iter(): the samples of each dataset in turn. In a loader worker each member is
--- sharded on its own (Note [Iterable shards]), so members that shard themselves and members
--- that do not can be chained.
function Chain:iter()
  local k, it = 0, nil
  local sets = self.datasets
  local info = data.getWorkerInfo()
  return function()
    while true do
      if it then
        local x = it()
        if x ~= nil then return x end
      end
      k = k + 1
      if sets[k] == nil then return nil end
      local ds = sets[k]
      it = info and data._autoShard(function() return ds:iter() end, info) or ds:iter()
    end
  end
end

-- ---- worker side -------------------------------------------------------------------------------

-- Worker info of this state (nil in the main state); `asks` counts the calls of
-- data.getWorkerInfo() there, so a stream can tell whether it looked.
local current, asks = nil, 0

--- data.getWorkerInfo(): in a DataLoader worker, {id = 1..numWorkers, numWorkers =, seed =,
--- dataset = this worker's copy of the dataset}; nil in the main state (as PyTorch's, with a
--- 1-based id).
--- Example: data.getWorkerInfo()
function data.getWorkerInfo()
  if current == nil then return nil end
  asks = asks + 1
  return current
end

local function set_worker(numWorkers, seed, dataset)
  current = { id = C.tocha_loader_worker_id(), numWorkers = numWorkers, seed = seed, dataset = dataset }
  return current
end

-- workerInitFn(id) runs once per worker state, on its first task; its draws do not shift the
-- batch seeding (Note [Loader determinism], data/loader.lua), so the RNG is restored after it.
-- Marked done only once it succeeded: after an error, the next task runs it again (a persistent
-- worker made batches without it in the following epochs, which PyTorch never does).
local function run_init(self, id)
  if self._initDone then return end
  if self.init then
    local saved = torch.getRNGState()
    local ok, err = pcall(self.init, id)
    torch.setRNGState(saved)
    if not ok then error(err, 0) end
  end
  self._initDone = true
end

local WorkerDataset = torch.class('data._WorkerDataset', data)

--- data._WorkerDataset(dataset, numWorkers[, workerInitFn]): what a loader ships to its workers
--- for a map-style dataset (or a constructor spec): dataset itself, plus worker info for
--- data.getWorkerInfo() and the workerInitFn call.
function WorkerDataset:__init(ds, numWorkers, init)
  if type(ds) == 'table' and getmetatable(ds) == nil and type(ds.module) == 'string' then ds = require('data.job').build(ds) end
  self.dataset, self.numWorkers, self.init = ds, numWorkers, init
end
--- The wrapped dataset's size.
function WorkerDataset:size() return self.dataset:size() end
--- The wrapped dataset's sample i, with the worker info set.
function WorkerDataset:get(i)
  local info = current or set_worker(self.numWorkers, torch.initialSeed(), self.dataset)
  run_init(self, info.id)
  info.seed = torch.initialSeed()  -- the seed of the batch being produced (per-batch seeding)
  return self.dataset:get(i)
end

-- Sleeps for ms milliseconds (an exhausted worker waiting for the epoch to end).
pcall(ffi.cdef, 'int usleep(unsigned int usec);')  -- fails harmlessly when already declared
local has_usleep = pcall(function() return ffi.C.usleep end)
local function sleep(ms) if has_usleep then ffi.C.usleep(ms * 1000) end end

-- Note [Iterable shards]: each worker state runs its own iterator over the dataset (with
-- data.getWorkerInfo() set) and batches its own stream, as in PyTorch; its randomness comes from
-- mix(epoch seed, worker id). PyTorch leaves sharding to the iterator, so an iterator that
-- ignores the worker info yields the whole stream in every worker: duplicates. Tocha never
-- duplicates: when the iterator did not call data.getWorkerInfo() before giving its first item,
-- worker w keeps only items w, w + W, w + 2W... of its stream (every worker still reads the
-- whole stream, so sharding in the iterator is faster). Tasks reach whichever worker is free,
-- so a task means "your next batch"; results name their worker, the main state hands batches
-- out worker by worker in turn (PyTorch's order), and the epoch ends when every worker has
-- said it is done. A worker already done answers with an empty result after a short sleep.
-- ChainDataset applies the same rule to each of its members. The batches a fast worker makes
-- while the main state waits for a slow one's turn are held in the main state (the price of
-- PyTorch's deterministic order without per-worker task queues).

-- The iterator make() returns, reduced to worker info.id's share (items id, id + W, ...) unless
-- it called data.getWorkerInfo() before giving its first item (then it shards itself).
function data._autoShard(make, info)
  local before = asks
  local it = make()
  local count, auto, W, id = 0, nil, info.numWorkers, info.id
  return function()
    while true do
      local x = it()
      if x == nil then return nil end
      count = count + 1
      if auto == nil then auto = asks == before end
      if not auto or (count - 1) % W == id - 1 then return x end
    end
  end
end

local Shard = torch.class('data._IterableShard', data)

--- data._IterableShard(dataset, opts): what a loader ships to its workers for an iterable dataset:
--- get(epoch) gives {worker =, item = next batch or nil, done =} from this worker's stream.
function Shard:__init(ds, opts)
  self.dataset, self.numWorkers, self.init = ds, opts.numWorkers, opts.init
  self.batchSize, self.dropLast, self.collate = opts.batchSize, opts.dropLast, opts.collate
end
--- The number of tasks is open-ended: size() is nil.
function Shard:size() return nil end

local function start_epoch(self, epoch)
  local seed = util.mix_seed(torch.initialSeed(), C.tocha_loader_worker_id())
  local info = set_worker(self.numWorkers, seed, self.dataset)
  run_init(self, info.id)
  self.epoch, self.done, self.batches = epoch, false, 0
  torch.manualSeed(seed)
  local ds = self.dataset
  self.it = data._autoShard(function() return ds:iter() end, info)
  self.rng = torch.getRNGState()
end

--- shard:get(epoch): this worker's next batch of the epoch.
function Shard:get(epoch)
  if self.epoch ~= epoch then start_epoch(self, epoch) end
  local id = current.id
  if self.done then
    sleep(1)
    return { worker = id, done = true }
  end
  torch.setRNGState(self.rng)
  local per, items = self.batchSize or 1, {}
  while #items < per do
    local x = self.it()
    if x == nil then self.done = true break end
    items[#items + 1] = x
  end
  self.rng = torch.getRNGState()
  if #items == 0 or (self.dropLast and #items < per) then return { worker = id, done = true } end
  self.batches = self.batches + 1
  local item = items[1]
  if self.batchSize then
    item = (self.collate or collate.default)(items, { what = 'worker ' .. id .. ' batch ' .. self.batches .. ', ' })
  elseif self.collate then  -- Note [Unbatched collate], data/fetch.lua
    item = self.collate(item)
  end
  if item == nil then  -- a nil item reads as "no batch": it would be silently dropped
    error(string.format('[DataLoader] the collate function returned nil for worker %d batch %d', id, self.batches), 0)
  end
  return { worker = id, item = item, done = self.done }
end

return data
