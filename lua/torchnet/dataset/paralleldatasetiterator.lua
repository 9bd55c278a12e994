-- tnt.ParallelDatasetIterator (Torch7 torchnet's dataset/paralleldatasetiterator.lua): samples
-- fetched by a pool of threads (the `threads` package), each holding its own copy of the dataset
-- built by closure(threadid); the main state applies transform and filter.
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'
local Threads = require 'threads'
require 'torchnet.dataset.datasetiterator'

local ParallelDatasetIterator = torch.class('tnt.ParallelDatasetIterator', 'tnt.DatasetIterator', tnt)

local args = argcheck.parser{ name = 'tnt.ParallelDatasetIterator',
  { name = 'init', type = 'function', default = function() end },
  { name = 'closure', type = 'function' },
  { name = 'nthread', type = 'number' },
  { name = 'perm', type = 'function', default = function(idx) return idx end },
  { name = 'filter', type = 'function', default = function() return true end },
  { name = 'transform', type = 'function', default = function(sample) return sample end },
  { name = 'ordered', type = 'boolean', default = false },
}

-- What each thread runs: the dataset lives in the thread's global gdataset, as in torchnet (user
-- code may read it in its own jobs). These functions have no upvalues, so a job is cheap to send.
local function fetch(origIdx, idx)
  return gdataset:get(idx), origIdx
end
local function datasetsize()
  return gdataset:size()
end

-- Note [Shared samples]: torchnet switched the threads package to 'threads.sharedserialize'
-- (for good) so that samples come back without a copy. Here the pool is made with it and the
-- previous serialization is restored at once, so pools the script makes later are unaffected.
-- The tensors of a sample are the thread's: a dataset must not refill a buffer it returned.

--- tnt.ParallelDatasetIterator{nthread=, closure=[, init=, perm=, filter=, transform=, ordered=false]}:
--- nthread threads run init(threadid), then closure(threadid), which must return a tnt.Dataset
--- (its upvalues are copied to each thread; require the packages it needs inside it or in init).
--- run() yields transform(dataset:get(perm(i))) for i = 1..size, skipping those where filter is
--- false; all samples are seen, and in order when ordered is true.
--- Example: local tnt = require 'torchnet'
---   local it = tnt.ParallelDatasetIterator{nthread = 2, ordered = true, closure = function()
---     local tnt = require 'torchnet'; return tnt.TableDataset{data = {{x = 1}, {x = 2}, {x = 3}}} end}
---   local got = {}; for s in it() do got[#got + 1] = s.x end  -- {1, 2, 3}
function ParallelDatasetIterator:__init(...)
  local init, closure, nthread, perm, filter, transform, ordered = args(...)
  if nthread < 1 or nthread ~= math.floor(nthread) then
    error(string.format('[tnt.ParallelDatasetIterator] nthread should be a positive integer, got %s', tostring(nthread)), 2)
  end
  local function main(idx)
    gdataset = closure(idx)
    if not torch.isTypeOf(gdataset, 'tnt.Dataset') then
      error(string.format('[tnt.ParallelDatasetIterator] closure should return a tnt.Dataset, got %s', torch.type(gdataset)), 0)
    end
    return gdataset:size()
  end
  local previous = Threads.serialization()
  Threads.serialization('threads.sharedserialize')
  local ok, threads, sizes = pcall(Threads.Threads, nthread, init, main)
  Threads.serialization(previous)
  if not ok then error(threads, 2) end
  self.__threads = threads
  self.__nthread = nthread
  local size = sizes[1][1]
  local sample, sampleOrigIdx

  function self.run()
    threads:synchronize()  -- not in the middle of something
    -- the size is read again at each run (a dataset may change between epochs)
    threads:addjob(datasetsize, function(s) size = s end)
    threads:dojob()
    local idx = 1
    local function enqueue()
      while idx <= size and threads:acceptsjob() do
        threads:addjob(fetch, function(s, o) sample, sampleOrigIdx = s, o end, idx, perm(idx))
        idx = idx + 1
      end
    end
    enqueue()

    if ordered then
      local cur = 1
      local stored = {}
      local placeholder = {}  -- stands for a filtered-out sample
      local function skipPlaceholders()
        while stored[cur] == placeholder do
          stored[cur] = nil
          cur = cur + 1
        end
      end
      return function()
        skipPlaceholders()
        while stored[cur] == nil and threads:hasjob() do
          enqueue()
          threads:dojob()
          enqueue()
          local s = transform(sample)
          stored[sampleOrigIdx] = filter(s) and s or placeholder
          skipPlaceholders()
        end
        enqueue()
        local s = stored[cur]
        stored[cur] = nil
        cur = cur + 1
        return s
      end
    end
    return function()
      while threads:hasjob() do
        enqueue()
        threads:dojob()
        enqueue()
        local s = transform(sample)
        if filter(s) then return s end
      end
    end
  end
end

--- iterator:execSingle(name, ...): calls the method name of the dataset of one thread and returns
--- its results (not during a loop).
--- Example: local tnt = require 'torchnet'
---   local it = tnt.ParallelDatasetIterator{nthread = 1, closure = function() return require('torchnet').TableDataset{data = {1, 2}} end}
---   local n = it:execSingle('size')  -- 2
function ParallelDatasetIterator:execSingle(name, ...)
  if self.__threads:hasjob() then error('[tnt.ParallelDatasetIterator.execSingle] cannot execSingle during loop', 2) end
  local a = { n = select('#', ...), ... }
  local res
  self.__threads:addjob(function() return gdataset:exec(name, unpack(a, 1, a.n)) end,
    function(...) res = { n = select('#', ...), ... } end)
  self.__threads:synchronize()
  return unpack(res, 1, res.n)
end

--- iterator:exec(name, ...): calls the method name of the dataset in every thread; returns the
--- results per thread (a value, or a table when a call returned several).
--- Example: local tnt = require 'torchnet'
---   local it = tnt.ParallelDatasetIterator{nthread = 2, closure = function() return require('torchnet').TableDataset{data = {1, 2}} end}
---   local sizes = it:exec('size')  -- {2, 2}
function ParallelDatasetIterator:exec(name, ...)
  if self.__threads:hasjob() then error('[tnt.ParallelDatasetIterator.exec] cannot exec during loop', 2) end
  local a = { n = select('#', ...), ... }
  local res = {}
  self.__threads:specific(true)
  for i = 1, self.__nthread do
    self.__threads:addjob(i, function() return gdataset:exec(name, unpack(a, 1, a.n)) end,
      function(...)
        local r = { ... }
        res[i] = #r > 1 and r or r[1]
      end)
  end
  self.__threads:specific(false)
  return res
end

return ParallelDatasetIterator
