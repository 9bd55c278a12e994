-- data.DataLoader: batches of a dataset in a deterministic order, produced in the main state
-- (workers = 0) or by worker threads with their own Lua states through a bounded, ordered queue
-- (DESIGN.md decision 10; bindings/data_loader.cpp, core/data/task_queue.h).
local ffi = require 'ffi'
local torch = require 'torch'
local lib = require 'torch.lib'
local data = require 'data.env'
local util = require 'data.util'
local job = require 'data.job'
local fetch = require 'data.fetch'
local transfer = require 'data.transfer'
local C = lib.C

local DataLoader = torch.class('data.DataLoader', data)

local options = { batchSize = true, shuffle = true, seed = true, dropLast = true, workers = true, prefetch = true,
                  collate = true, sampler = true, pinMemory = true, batchSampler = true, collateFn = true,
                  workerInitFn = true, generator = true, persistentWorkers = true, prefetchFactor = true,
                  timeout = true }

-- Note [Loader determinism]: everything random about epoch e comes from one base seed: the
-- loader's seed mixed with e, or (no seed given) a draw from opts.generator or torch's default
-- generator when iter() starts, so torch.manualSeed upstream also makes runs repeat. The order
-- is a permutation drawn from the base seed; batch k is produced after seeding the default generator of the
-- state producing it with mix(base, k), so random transforms (data.transforms) give the same
-- batch whichever worker (or the main state) produces it. With workers = 0 the main state's
-- generator is saved before each batch and restored after it, so the training loop's own
-- random stream does not depend on the loader. Worker states also seed math.random per batch
-- (Note [Worker state defaults], data/worker.lua); the main state's math.random is the user's.

-- Note [PyTorch loader options]: PyTorch's names are accepted next to Tocha's: collateFn is
-- collate, prefetchFactor is prefetch (and, as in PyTorch 1.13, only with workers > 0 unless it
-- is 2), batchSampler excludes batchSize/shuffle/sampler/dropLast, sampler excludes shuffle, an
-- iterable dataset excludes all three. Tocha's workers are threads that live as long as the
-- loader (persistentWorkers = true is the default, unlike PyTorch); persistentWorkers = false
-- stops them after each epoch, so the next one ships the dataset and runs workerInitFn again.

local function check_options(opts)
  if type(opts) ~= 'table' then util.fail('DataLoader', 'options must be a table, got %s', type(opts)) end
  for k in pairs(opts) do
    if not options[k] then util.fail('DataLoader', 'unknown option %s', tostring(k)) end
  end
  local o = {}
  for k, v in pairs(opts) do o[k] = v end
  if o.collateFn ~= nil then
    if o.collate ~= nil then util.fail('DataLoader', 'collate and collateFn are the same option: give one') end
    if type(o.collateFn) ~= 'function' then util.fail('DataLoader', 'collateFn must be a function, got %s', type(o.collateFn)) end
    o.collate = o.collateFn
  end
  if o.prefetchFactor ~= nil then
    if o.prefetch ~= nil then util.fail('DataLoader', 'prefetch and prefetchFactor are the same option: give one') end
    if (o.workers or 0) == 0 and o.prefetchFactor ~= 2 then
      util.fail('DataLoader', 'prefetchFactor can only be given with workers > 0, got workers = 0')
    end
    o.prefetch = o.prefetchFactor
  end
  if o.persistentWorkers ~= nil and type(o.persistentWorkers) ~= 'boolean' then
    util.fail('DataLoader', 'persistentWorkers must be a boolean, got %s', tostring(o.persistentWorkers))
  end
  if o.persistentWorkers and (o.workers or 0) == 0 then
    util.fail('DataLoader', 'persistentWorkers needs workers > 0, got workers = 0')
  end
  if o.workerInitFn ~= nil and type(o.workerInitFn) ~= 'function' then
    util.fail('DataLoader', 'workerInitFn must be a function, got %s', type(o.workerInitFn))
  end
  if o.generator ~= nil then
    if not torch._is_generator(o.generator) then
      util.fail('DataLoader', 'generator must be a torch.Generator, got %s', torch.type(o.generator))
    end
    if o.seed ~= nil then util.fail('DataLoader', 'give a seed or a generator, not both') end
  end
  if o.batchSampler ~= nil then
    if (o.batchSize ~= nil and o.batchSize ~= 1) or o.shuffle or o.sampler ~= nil or o.dropLast then
      util.fail('DataLoader', 'batchSampler option is mutually exclusive with batchSize, shuffle, sampler, and dropLast')
    end
    local b = o.batchSampler
    if type(b) ~= 'table' or (type(b.size) ~= 'function' and type(b.len) ~= 'function')
        or (type(b.batches) ~= 'function' and type(b.iter) ~= 'function') then
      util.fail('DataLoader', 'batchSampler must have size() (or len()) and batches(epoch) (or iter(epoch)), got %s',
        torch.type(b))
    end
  end
  return o
end

--- data.DataLoader(dataset, opts): iterates over batches of dataset (an object with size() and
--- get(i), a constructor spec {module=, args=} that worker states can rebuild it from, or an
--- iterable dataset such as data.IterableDataset).
--- opts: batchSize (default 1; false gives single samples), shuffle (false), seed (nil: drawn from
--- generator, or torch's generator, each epoch), dropLast (false: the last batch may be smaller),
--- workers (0: produce batches in the main state), prefetch or prefetchFactor (2: batches per
--- worker prepared ahead), collate or collateFn (function(samples) -> batch; default stacks
--- tensors and numbers field by field; with batchSize = false, function(sample) -> item, applied
--- to each sample as PyTorch does, and no default), sampler (an object with size() and indices(epoch) or
--- iter(epoch), e.g. data.RandomSampler or data.DistributedSampler: the loader reads those
--- indices in that order instead of 1..n; shuffle must then be off), batchSampler (an object with
--- size() and batches(epoch) or iter(epoch), e.g. data.BatchSampler: each list of indices is one
--- batch), workerInitFn (function(id) run in each worker state before its first sample),
--- generator (a torch.Generator the base seeds are drawn from), timeout (seconds to wait for a
--- batch from the workers before an error, 0: no limit; Note [Loader timeout]), persistentWorkers (true: the
--- worker threads live as long as the loader; false: stopped after each epoch), pinMemory
--- (false: true puts the batches' CPU tensors in pinned memory, for fast and asynchronous copies to the GPU with
--- batch.input:cuda() or dst:copy(src, true); ignored without a CUDA device).
--- Example: local ds = data.TensorDataset(torch.randn(100, 3), torch.LongTensor(100):fill(1))
--- for batch in data.DataLoader(ds, {batchSize = 32, shuffle = true, seed = 1}):iter() do
---   local x, y = batch.input, batch.target  -- 32 x 3 and 32 (the last batch: 4)
--- end
function DataLoader:__init(dataset, opts)
  opts = check_options(opts or {})
  self.iterable = data.isIterable ~= nil and data.isIterable(dataset)
  if job.is_spec(dataset) then
    self.spec = dataset
    self.dataset = job.build(dataset)
  elseif self.iterable then
    for _, k in ipairs({ 'shuffle', 'sampler', 'batchSampler' }) do
      if opts[k] then util.fail('DataLoader', 'an iterable dataset gives its own order: %s cannot be given', k) end
    end
    self.dataset = dataset
  else
    util.check_dataset('DataLoader', dataset, 1)
    self.dataset = dataset
  end
  local bs = opts.batchSize
  if bs == nil then bs = 1 end
  if bs ~= false and (type(bs) ~= 'number' or bs < 1 or bs ~= math.floor(bs)) then
    util.fail('DataLoader', 'batchSize must be a positive integer or false, got %s', tostring(bs))
  end
  if bs == false and opts.dropLast then  -- PyTorch 1.13's rule for batch_size=None
    util.fail('DataLoader', 'batchSize = false disables batching and is mutually exclusive with dropLast')
  end
  local workers, prefetch = opts.workers or 0, opts.prefetch or 2
  if type(workers) ~= 'number' or workers < 0 or workers ~= math.floor(workers) or workers > 256 then
    util.fail('DataLoader', 'workers must be an integer in 0..256, got %s', tostring(workers))
  end
  if type(prefetch) ~= 'number' or prefetch < 1 or prefetch ~= math.floor(prefetch) then
    util.fail('DataLoader', 'prefetch must be a positive integer, got %s', tostring(prefetch))
  end
  -- workers * prefetch tasks are queued ahead (an iterable dataset's loader queues them all at
  -- once) and the C queue's capacity is an int: a huge prefetch stalled the first batch.
  if workers * prefetch > 2 ^ 20 then
    util.fail('DataLoader', 'prefetch is too large: workers * prefetch must be at most 2^20, got %d * %d',
      workers, prefetch)
  end
  local timeout = opts.timeout or 0
  if type(timeout) ~= 'number' or not (timeout >= 0) or timeout == math.huge then
    util.fail('DataLoader', 'timeout must be a number of seconds >= 0, got %s', tostring(timeout))
  end
  if timeout > 0 and workers == 0 then  -- PyTorch 1.13 asserts the same: no worker to wait for
    util.fail('DataLoader', 'timeout needs workers > 0 (without workers the batch is made in this state)')
  end
  self.timeout = timeout
  if opts.collate ~= nil and type(opts.collate) ~= 'function' then
    util.fail('DataLoader', 'collate must be a function, got %s', type(opts.collate))
  end
  self.batchSize = bs
  self.shuffle = opts.shuffle and true or false
  self.seed = util.check_seed('DataLoader', opts.seed)
  self.generator = opts.generator
  self.dropLast = opts.dropLast and true or false
  self.workers, self.prefetch = workers, prefetch
  self.collate = opts.collate
  self.workerInitFn = opts.workerInitFn
  self.persistentWorkers = opts.persistentWorkers ~= false
  self.pinMemory = opts.pinMemory and torch.cuda.isAvailable() or false
  if opts.sampler ~= nil then
    local smp = opts.sampler
    if type(smp) ~= 'table' or (type(smp.indices) ~= 'function' and type(smp.iter) ~= 'function')
        or (type(smp.size) ~= 'function' and type(smp.len) ~= 'function') then
      util.fail('DataLoader', 'sampler must have size() (or len()) and indices(epoch) (or iter(epoch)), got %s',
        torch.type(smp))
    end
    if self.shuffle then util.fail('DataLoader', 'sampler and shuffle cannot both be given (the sampler shuffles)') end
    self.sampler = smp
  end
  self.batchSampler = opts.batchSampler
  self.epoch = 0
end

-- The length of a sampler (Note [Sampler protocol], data/samplers.lua).
local function sampler_len(s)
  if type(s.size) == 'function' then return s:size() end
  return s:len()
end

--- loader:size(): the number of batches in an epoch (for an iterable dataset, from its declared
--- size; with workers each worker's last batch may be partial, so there can be a few more).
function DataLoader:size()
  if self.batchSampler then return sampler_len(self.batchSampler) end
  local n
  if self.iterable then
    n = type(self.dataset.size) == 'function' and self.dataset:size() or nil
    if n == nil then util.fail('DataLoader', 'the iterable dataset has no known length (declare it with opts.size)') end
  else
    n = self.sampler and sampler_len(self.sampler) or self.dataset:size()
  end
  if not self.batchSize then return n end
  return self.dropLast and math.floor(n / self.batchSize) or math.ceil(n / self.batchSize)
end

function DataLoader:__tostring__()
  local ok, n = pcall(self.size, self)
  return string.format('data.DataLoader (%s batches of %s, %d workers)', ok and tostring(n) or 'unknown number of',
    tostring(self.batchSize or 1), self.workers)
end

-- Note [Sampler indices]: a sampler's indices(epoch) and each batch of a batch sampler may be a
-- Lua list or a 1-D integer tensor (torch.randperm(n), a split of one: what PyTorch samplers
-- commonly give); a tensor is read into a list (it raised "'struct tocha_handle' has no
-- '__ipairs' metamethod"). Indices travel to workers as text: table.concat writes numbers
-- with 14 significant digits, so a key of 1e14 or more (an id used as a dataset key) reached
-- dataset:get rounded in a worker and exactly with workers = 0; task_indices writes those
-- with 17 digits.
local function index_list(v, what)
  if torch.isTensor(v) then
    if v:dim() ~= 1 or v:isFloatingPoint() then
      util.fail('DataLoader', '%s is a %d-D %s, expected a Lua list or a 1-D integer tensor of dataset indices',
        what, v:dim(), torch.type(v))
    end
    return v:nElement() == 0 and {} or v:totable()
  end
  if type(v) ~= 'table' or getmetatable(v) ~= nil then
    util.fail('DataLoader', '%s is a %s, expected a list of dataset indices', what, torch.type(v))
  end
  return v
end

-- The indices of a task as fetch.encode_task writes them, exact for any number.
local function task_indices(idx)
  for j = 1, #idx do
    local v = idx[j]
    if v >= 1e14 or v <= -1e14 or (v ~= math.floor(v) and v == v) then
      local out = {}
      for k = 1, #idx do out[k] = string.format('%.17g', idx[k]) end
      return out
    end
  end
  return idx
end

-- i must be a number (a dataset key: PyTorch allows non-integral ones); `at` says where it came
-- from ("position 2 of batch 1").
local function check_index(i, who, at, extra)
  if type(i) ~= 'number' then  -- e.g. a batch sampler given as sampler=: name it, not table.concat
    util.fail('DataLoader', '%s gave a %s at %s, expected a dataset index%s', who, torch.type(i), at,
      type(i) == 'table' and (extra or '') or '')
  end
end

-- The lists of dataset indices of each batch of an epoch with base seed `base`.
function DataLoader:_batches(base)
  local b = self.batchSampler
  if b then
    local out
    if type(b.batches) == 'function' then out = b:batches(self.epoch)
    else
      out = {}
      for idx in b:iter(self.epoch) do out[#out + 1] = idx end
    end
    if type(out) ~= 'table' or getmetatable(out) ~= nil then
      util.fail('DataLoader', 'the batch sampler\'s batches(epoch) returned a %s, expected a list of batches', torch.type(out))
    end
    local batches = {}
    for k, idx in ipairs(out) do
      if (type(idx) ~= 'table' or getmetatable(idx) ~= nil) and not torch.isTensor(idx) then
        util.fail('DataLoader', 'the batch sampler gave a %s as batch %d, expected a list of dataset indices', torch.type(idx), k)
      end
      idx = index_list(idx, 'batch ' .. k .. ' of the batch sampler')
      for j, i in ipairs(idx) do check_index(i, 'the batch sampler', 'position ' .. j .. ' of batch ' .. k) end
      batches[k] = idx
    end
    return batches
  end
  local order, s = nil, self.sampler
  if s and type(s.indices) == 'function' then order = index_list(s:indices(self.epoch), 'the sampler\'s indices(epoch)')
  elseif s then
    order = {}
    for i in s:iter(self.epoch) do order[#order + 1] = i end
  elseif self.shuffle then order = util.permutation(self.dataset:size(), util.mix_seed(base, 0))
  else
    order = {}
    for i = 1, self.dataset:size() do order[i] = i end
  end
  for k, i in ipairs(order) do check_index(i, 'the sampler', 'position ' .. k, ' (a batch sampler goes in batchSampler=)') end
  local n, per, batches = #order, self.batchSize or 1, {}
  for b = 1, self.dropLast and math.floor(n / per) or math.ceil(n / per) do
    local idx = {}
    for k = (b - 1) * per + 1, math.min(b * per, n) do idx[#idx + 1] = order[k] end
    batches[b] = idx
  end
  return batches
end

-- What the worker states run: the dataset wrapped so that data.getWorkerInfo() and
-- workerInitFn work there (data/iterable.lua), or one worker's stream of an iterable dataset.
function DataLoader:_job()
  local W, init = self.workers, self.workerInitFn
  if self.iterable then
    return { batched = false, iterable = true, dataset = data._IterableShard(self.dataset, { numWorkers = W, init = init,
      batchSize = self.batchSize, dropLast = self.dropLast, collate = self.collate }) }
  end
  local j = { batched = self.batchSize ~= false, collate = self.collate }
  if self.spec then j.spec = { module = 'data', constructor = '_WorkerDataset', args = { self.spec, W, init } }
  else j.dataset = data._WorkerDataset(self.dataset, W, init) end
  return j
end

-- Starts the worker threads (once; they live as long as the loader, so their Lua states start
-- only once). They keep the dataset as it was then (its tensors are shared, so in-place changes
-- to them show); loader:close() makes the next epoch ship it again.
function DataLoader:_start()
  if self._handle then return self._handle end
  local body, tensors = transfer.encode(self:_job(), 'the dataset')
  local spec = #tensors .. ';' .. body
  local arr = ffi.new('tocha_tensor *[?]', math.max(#tensors, 1))
  for i, t in ipairs(tensors) do arr[i - 1] = t.p end
  local h = C.tocha_loader_new(self.workers, self.workers * self.prefetch, package.path, package.cpath, spec, #spec,
    #tensors, arr)
  if h == nil then lib.raise() end
  self._handle = ffi.gc(h, C.tocha_loader_free)
  return self._handle
end

-- Note [Closed during an iteration]: close() frees the C loader at once, but an iterator of the
-- current epoch still holds its handle; using it would be a use-after-free (a double free
-- aborted the process). Worker iterators check that the loader's handle is still theirs before
-- touching it, so an iterator used after close() raises an error, and one that already
-- finished keeps returning nil.

--- loader:close(): stops the worker threads now (they also stop when the loader is collected).
--- Example: local l = data.DataLoader(data.ListDataset({1, 2}), {workers = 1}); for _ in l:iter() do end; l:close()
function DataLoader:close()
  local h = self._handle
  if h then
    self._handle = nil
    ffi.gc(h, nil)
    C.tocha_loader_free(h)
  end
end

local function describe_batch(b, idx)
  if #idx == 0 then return 'batch ' .. b end
  return string.format('batch %d (dataset indices %s%s)', b, table.concat(idx, ',', 1, math.min(#idx, 8)),
    #idx > 8 and ',...' or '')
end

-- Iterator of the main-state path (workers = 0).
local function local_iterator(self, j, batches, base, token)
  local k = 0
  return function()
    if self._token ~= token then util.fail('DataLoader', 'this iteration was replaced by a newer loader:iter()') end
    if k == #batches then return nil end
    k = k + 1
    local saved = torch.getRNGState()
    torch.manualSeed(util.mix_seed(base, k))
    local ok, item = pcall(fetch.run, j, batches[k], k)
    torch.setRNGState(saved)
    if not ok then error(tostring(item), 0) end
    return item
  end
end

local len_out, count_out = ffi.new('int64_t[1]'), ffi.new('int[1]')

-- Iterator over the workers' results.
local function worker_iterator(self, batches, base, token)
  local h = self:_start()
  lib.check(C.tocha_loader_reset(h))  -- an earlier epoch left early may have batches queued
  local capacity = self.workers * self.prefetch
  local pushed, delivered = 0, 0
  return function()
    if self._token ~= token then util.fail('DataLoader', 'this iteration was replaced by a newer loader:iter()') end
    if delivered == #batches then return nil end
    if self._handle ~= h then  -- Note [Closed during an iteration]
      util.fail('DataLoader', 'the loader was closed (loader:close()) during this iteration')
    end
    while pushed < #batches and pushed < delivered + capacity do
      pushed = pushed + 1
      local task = fetch.encode_task(util.mix_seed(base, pushed), pushed, task_indices(batches[pushed]))
      if C.tocha_loader_push(h, task, #task) < 0 then lib.raise() end
    end
    if C.tocha_loader_next_timeout(h, self.timeout or 0) ~= 0 then
      local msg = ffi.string(C.tocha_last_error())
      C.tocha_loader_reset(h)
      self._token = nil
      error(msg .. '\n(while loading ' .. describe_batch(delivered + 1, batches[delivered + 1]) .. ')', 0)
    end
    delivered = delivered + 1
    local p = C.tocha_loader_result(h, len_out, count_out)
    local s = ffi.string(p, len_out[0])
    local tensors = {}
    for i = 1, count_out[0] do tensors[i] = lib.wrap(C.tocha_loader_result_tensor(h, i - 1)) end
    return transfer.decode(s, tensors)
  end
end

-- A batch with its CPU tensors (in tables, recursively) moved to pinned memory.
local function pin(v)
  if torch.isTensor(v) then return v:device() == 'cpu' and v:pinMemory() or v end
  if type(v) ~= 'table' or getmetatable(v) ~= nil then return v end
  local r = {}
  for k, x in pairs(v) do r[k] = pin(x) end
  return r
end
local function pinned_iterator(it)
  return function()
    local item = it()
    if item == nil then return nil end
    return pin(item)
  end
end

-- Stops the workers when the epoch ends (persistentWorkers = false).
local function closing_iterator(self, it, token)
  return function()
    local item = it()
    if item == nil and self._token == token then self:close() end
    return item
  end
end

-- Wraps an iterator with a progress bar (data.ProgressBar) over the epoch's batches.
local function with_progress(it, total, progress)
  local bar = data.ProgressBar{ total = total, title = type(progress) == 'string' and progress or nil }
  local n = 0
  return function()
    local item = it()
    if item == nil then bar:finish() return nil end
    n = n + 1
    bar:update(n)
    return item
  end
end

--- loader:iter([opts]): an iterator over the batches of the next epoch, in the order its seed
--- gives: for batch in loader:iter() do ... end. Each batch is the collated samples, e.g.
--- {input = tensor, target = tensor} for a data.TensorDataset. A worker's error is raised here
--- with the worker's traceback and the batch it was loading. opts.progress = true (or a title)
--- shows a progress bar over the batches.
function DataLoader:iter(opts)
  if opts and opts.progress then
    local progress = opts.progress
    local known = not self.iterable or (type(self.dataset.size) == 'function' and self.dataset:size() ~= nil)
    return with_progress(self:iter(), known and self:size() or nil, progress)
  end
  self.epoch = self.epoch + 1
  if not self.persistentWorkers then self:close() end
  local base = self.seed and util.mix_seed(self.seed, self.epoch)
    or (self.generator and torch.random(self.generator) or torch.random())
  local token = {}
  local it
  if self.iterable then
    self._token = token
    local stream = require 'data.iterable_loader'
    it = self.workers == 0 and stream.local_iterator(self, base, token) or stream.worker_iterator(self, base, token)
  else
    local batches = self:_batches(base)
    self._token = token
    if self.workers == 0 then
      local j = job.resolve({ dataset = self.dataset, batched = self.batchSize ~= false, collate = self.collate })
      it = local_iterator(self, j, batches, base, token)
    else
      it = worker_iterator(self, batches, base, token)
    end
  end
  if self.workers > 0 and not self.persistentWorkers then it = closing_iterator(self, it, token) end
  return self.pinMemory and pinned_iterator(it) or it
end

return DataLoader
