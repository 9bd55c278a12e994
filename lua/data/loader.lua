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
                  collate = true, sampler = true, pinMemory = true }

-- Note [Loader determinism]: everything random about epoch e comes from one base seed: the
-- loader's seed mixed with e, or (no seed given) a draw from torch's default generator when
-- iter() starts, so torch.manualSeed upstream also makes runs repeat. The order is a permutation
-- drawn from the base seed; batch k is produced after seeding the default generator of the
-- state producing it with mix(base, k), so random transforms (data.transforms) give the same
-- batch whichever worker (or the main state) produces it. With workers = 0 the main state's
-- generator is saved before each batch and restored after it, so the training loop's own
-- random stream does not depend on the loader.

--- data.DataLoader(dataset, opts): iterates over batches of dataset (an object with size() and
--- get(i), or a constructor spec {module=, args=} that worker states can rebuild it from).
--- opts: batchSize (default 1; false gives single samples), shuffle (false), seed (nil: drawn from
--- torch's generator each epoch), dropLast (false: the last batch may be smaller), workers (0:
--- produce batches in the main state), prefetch (2: batches per worker prepared ahead), collate
--- (function(samples) -> batch; default stacks tensors and numbers field by field), sampler (an
--- object with size() and indices(epoch), e.g. data.DistributedSampler: the loader reads those
--- indices in that order instead of 1..n; shuffle must then be off), pinMemory (false: true puts
--- the batches' CPU tensors in pinned memory, for fast and asynchronous copies to the GPU with
--- batch.input:cuda() or dst:copy(src, true); ignored without a CUDA device).
--- Example: for batch in data.DataLoader(ds, {batchSize = 32, shuffle = true, seed = 1}):iter() do ... end
function DataLoader:__init(dataset, opts)
  opts = opts or {}
  if type(opts) ~= 'table' then util.fail('DataLoader', 'options must be a table, got %s', type(opts)) end
  for k in pairs(opts) do
    if not options[k] then util.fail('DataLoader', 'unknown option %s', tostring(k)) end
  end
  if job.is_spec(dataset) then
    self.spec = dataset
    self.dataset = job.build(dataset)
  else
    util.check_dataset('DataLoader', dataset, 1)
    self.dataset = dataset
  end
  local bs = opts.batchSize
  if bs == nil then bs = 1 end
  if bs ~= false and (type(bs) ~= 'number' or bs < 1 or bs ~= math.floor(bs)) then
    util.fail('DataLoader', 'batchSize must be a positive integer or false, got %s', tostring(bs))
  end
  local workers, prefetch = opts.workers or 0, opts.prefetch or 2
  if type(workers) ~= 'number' or workers < 0 or workers ~= math.floor(workers) or workers > 256 then
    util.fail('DataLoader', 'workers must be an integer in 0..256, got %s', tostring(workers))
  end
  if type(prefetch) ~= 'number' or prefetch < 1 or prefetch ~= math.floor(prefetch) then
    util.fail('DataLoader', 'prefetch must be a positive integer, got %s', tostring(prefetch))
  end
  if opts.collate ~= nil and type(opts.collate) ~= 'function' then
    util.fail('DataLoader', 'collate must be a function, got %s', type(opts.collate))
  end
  self.batchSize = bs
  self.shuffle = opts.shuffle and true or false
  self.seed = util.check_seed('DataLoader', opts.seed)
  self.dropLast = opts.dropLast and true or false
  self.workers, self.prefetch = workers, prefetch
  self.collate = opts.collate
  self.pinMemory = opts.pinMemory and torch.cuda.isAvailable() or false
  if opts.sampler ~= nil then
    local smp = opts.sampler
    if type(smp) ~= 'table' or type(smp.indices) ~= 'function' or type(smp.size) ~= 'function' then
      util.fail('DataLoader', 'sampler must have size() and indices(epoch), got %s', torch.type(smp))
    end
    if self.shuffle then util.fail('DataLoader', 'sampler and shuffle cannot both be given (the sampler shuffles)') end
    self.sampler = smp
  end
  self.epoch = 0
end

--- loader:size(): the number of batches in an epoch.
function DataLoader:size()
  local n = self.sampler and self.sampler:size() or self.dataset:size()
  if not self.batchSize then return n end
  return self.dropLast and math.floor(n / self.batchSize) or math.ceil(n / self.batchSize)
end

function DataLoader:__tostring__()
  return string.format('data.DataLoader (%d batches of %s, %d workers)', self:size(), tostring(self.batchSize or 1),
    self.workers)
end

-- The lists of dataset indices of each batch of an epoch with base seed `base`.
function DataLoader:_batches(base)
  local n = self.sampler and self.sampler:size() or self.dataset:size()
  local order
  if self.sampler then order = self.sampler:indices(self.epoch)
  elseif self.shuffle then order = util.permutation(n, util.mix_seed(base, 0))
  else
    order = {}
    for i = 1, n do order[i] = i end
  end
  local per, batches = self.batchSize or 1, {}
  for b = 1, self:size() do
    local idx = {}
    for k = (b - 1) * per + 1, math.min(b * per, n) do idx[#idx + 1] = order[k] end
    batches[b] = idx
  end
  return batches
end

function DataLoader:_job()
  return { spec = self.spec, dataset = (not self.spec) and self.dataset or nil, batched = self.batchSize ~= false,
           collate = self.collate }
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

--- loader:close(): stops the worker threads now (they also stop when the loader is collected).
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
    while pushed < #batches and pushed < delivered + capacity do
      pushed = pushed + 1
      local task = fetch.encode_task(util.mix_seed(base, pushed), pushed, batches[pushed])
      if C.tocha_loader_push(h, task, #task) < 0 then lib.raise() end
    end
    if C.tocha_loader_next(h) ~= 0 then
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
    return with_progress(self:iter(), self:size(), progress)
  end
  self.epoch = self.epoch + 1
  local base = self.seed and util.mix_seed(self.seed, self.epoch) or torch.random()
  local batches = self:_batches(base)
  local token = {}
  self._token = token
  local it
  if self.workers == 0 then
    local j = job.resolve({ dataset = self.dataset, batched = self.batchSize ~= false, collate = self.collate })
    it = local_iterator(self, j, batches, base, token)
  else
    it = worker_iterator(self, batches, base, token)
  end
  return self.pinMemory and pinned_iterator(it) or it
end

return DataLoader
