-- tnt.ParallelDatasetIterator (Torch7 torchnet, on Tocha's threads package): the samples and their
-- order (ordered = true) equal the serial DatasetIterator's, unordered runs see every sample once,
-- jobs run in the worker threads, perm/filter/transform, exec/execSingle, dataset:parallel, and
-- errors from a thread's dataset reach the main state.
local tnt = require 'torchnet'
local tester = torch.Tester()
local tests = torch.TestSuite()

-- Built in each thread: sample i records the thread that fetched it.
local function closure()
  local tnt = require 'torchnet'
  local data = {}
  for i = 1, 23 do data[i] = { input = torch.Tensor{ i, -i }, target = torch.LongTensor{ i % 3 + 1 } } end
  local ds = tnt.TableDataset{ data = data }
  return tnt.TransformDataset{ dataset = ds, transform = function(s) s.thread = __threadid; return s end }
end

local function collect(it)
  local out = {}
  for s in it() do out[#out + 1] = s end
  return out
end

function tests.orderedMatchesSerial()
  local serial = collect(tnt.DatasetIterator{ dataset = closure() })
  local it = tnt.ParallelDatasetIterator{ nthread = 3, closure = closure, ordered = true }
  local par = collect(it)
  tester:eq(#par, #serial)
  local threads = {}
  for i, s in ipairs(par) do
    tester:eq(s.input, serial[i].input, 'sample ' .. i)
    tester:eq(s.target, serial[i].target)
    threads[s.thread] = true
  end
  tester:assert(serial[1].thread == nil, 'the serial iterator runs in the main state')
  local n = 0
  for t in pairs(threads) do n = n + 1; tester:assert(t >= 1 and t <= 3) end
  tester:assert(n >= 2, 'jobs ran in several worker threads')
  -- a second run (a second epoch) gives the same again
  local again = collect(it)
  tester:eq(#again, 23)
  tester:eq(again[23].input, torch.Tensor{ 23, -23 })
end

function tests.unorderedSeesEverySample()
  local it = tnt.ParallelDatasetIterator{ nthread = 2, closure = closure }
  local seen = {}
  for s in it() do
    local i = s.input[1]
    tester:assert(not seen[i], 'sample ' .. i .. ' once')
    seen[i] = true
  end
  for i = 1, 23 do tester:assert(seen[i], 'sample ' .. i .. ' seen') end
end

function tests.permFilterTransform()
  local it = tnt.ParallelDatasetIterator{ nthread = 2, closure = closure, ordered = true,
    perm = function(i) return 24 - i end,
    transform = function(s) return s.input[1] end,
    filter = function(v) return v % 2 == 0 end }
  local got = {}
  for v in it() do got[#got + 1] = v end
  tester:eq(got, { 22, 20, 18, 16, 14, 12, 10, 8, 6, 4, 2 })
  -- batches built in the threads: init runs first in each thread
  local bit = tnt.ParallelDatasetIterator{ nthread = 2, ordered = true,
    init = function(idx) require 'torchnet'; tocha_tnt_init = idx end,
    closure = function() return closure():batch(5) end }
  local batches = collect(bit)
  tester:eq(#batches, 5)
  tester:eq(batches[1].input:size():totable(), { 5, 2 })
  tester:eq(batches[5].input, torch.Tensor{ { 21, -21 }, { 22, -22 }, { 23, -23 } })
  tester:eq(bit:exec('size'), { 5, 5 }, 'exec: one result per thread')
  tester:eq(bit:execSingle('size'), 5)
end

function tests.datasetParallelShortcut()
  -- the dataset itself travels to the threads (its classes come from the torchnet module)
  local data = {}
  for i = 1, 10 do data[i] = { x = torch.Tensor{ i } } end
  local ds = tnt.TableDataset{ data = data }:shuffle()
  local serial = collect(ds:iterator())
  local par = collect(ds:parallel{ nthread = 2, ordered = true })
  tester:eq(#par, 10)
  for i = 1, 10 do tester:eq(par[i].x, serial[i].x) end
end

function tests.shuffledInThreadsSeededAlike()
  -- each thread shuffles its own copy: seeded alike in init, the threads agree on the permutation,
  -- so every sample comes once (the docs' advice)
  local it = tnt.ParallelDatasetIterator{ nthread = 3, ordered = true,
    init = function() torch.manualSeed(1234) end,
    closure = function()
      local tnt = require 'torchnet'
      return tnt.ListDataset{ list = torch.range(1, 30):long(), load = function(x) return x end }:shuffle()
    end }
  local got, seen = {}, {}
  for x in it() do
    tester:assert(not seen[x], 'sample ' .. x .. ' once')
    seen[x] = true
    got[#got + 1] = x
  end
  tester:eq(#got, 30)
  torch.manualSeed(1234)
  tester:eq(got, torch.randperm(30):long():totable(), 'the permutation drawn under that seed')
end

function tests.errors()
  local it = tnt.ParallelDatasetIterator{ nthread = 2, closure = function()
    local tnt = require 'torchnet'
    return tnt.ListDataset{ list = { 1, 2, 3 }, load = function(x)
      if x == 2 then error('cannot read sample 2') end
      return { x = x }
    end }
  end, ordered = true }
  tester:assertErrorPattern(function() collect(it) end, 'cannot read sample 2')
  tester:assertErrorPattern(function()
    tnt.ParallelDatasetIterator{ nthread = 1, closure = function() return 42 end }
  end, 'closure should return a tnt.Dataset, got number')
  tester:assertErrorPattern(function() tnt.ParallelDatasetIterator{ nthread = 0, closure = closure } end, 'positive integer')
  tester:assertErrorPattern(function() tnt.ParallelDatasetIterator{ closure = closure } end, 'missing argument nthread')
  local threads = require 'threads'
  tester:eq(threads.serialization(), 'threads.serialize', 'the serialization is restored (Note [Shared samples])')
end

tester:add(tests)
tester:run()
