-- Review of data.DataLoader's workers against PyTorch 1.13's DataLoader: workers > 0 give the
-- batches of workers = 0 (shuffle, seed, dropLast, partial batches, samplers, len), per-worker
-- random streams, the default tensor type, workerInitFn and persistentWorkers, errors naming the
-- worker (never a hang), early breaks, close() mid-epoch, iterable shards, tensors' dtype, shape
-- and strides, and the codec that ships values. Small data; a SIGALRM watchdog bounds a hang.
local data = require 'data'
local ffi = require 'ffi'
local tester = torch.Tester()
local tests = torch.TestSuite()

pcall(ffi.cdef, 'unsigned int alarm(unsigned int seconds);')
ffi.C.alarm(120)  -- the suite takes a few seconds; a hung wait kills the run instead of the CI job

local L = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/loader_checks.lua')
local threads, ints, epoch = L.threads, L.ints, L.epoch
local function fails(pattern, f, ...) return L.fails(tester, pattern, f, ...) end

-- PyTorch 1.13, ds = list(range(1, 11)):
--   DataLoader(ds, batch_size=3, num_workers=2): [[1,2,3],[4,5,6],[7,8,9],[10]], len 4
--   DataLoader(ds, batch_size=3, drop_last=True, num_workers=2, prefetch_factor=1): the first 3, len 3
--   DataLoader(ds, batch_sampler=BatchSampler(SequentialSampler(ds), 4, False), num_workers=3):
--     [[1,2,3,4],[5,6,7,8],[9,10]], len 3
--   DataLoader(ds, batch_size=None): len 10
function tests.workersGiveTheMainStateBatches()
  for _, w in ipairs({ 0, 1, 3 }) do
    local l = data.DataLoader(ints(10), { batchSize = 3, workers = w })
    tester:asserteq(l:size(), 4)
    tester:assertTableEq(epoch(l), { '1,2,3', '4,5,6', '7,8,9', '10' })
    l:close()
    local opts = { batchSize = 3, dropLast = true, workers = w }
    if w > 0 then opts.prefetchFactor = 1 end
    local d = data.DataLoader(ints(10), opts)
    tester:asserteq(d:size(), 3)
    tester:assertTableEq(epoch(d), { '1,2,3', '4,5,6', '7,8,9' })
    d:close()
    local b = data.DataLoader(ints(10), { batchSampler = data.BatchSampler(data.SequentialSampler(10), 4, false), workers = w })
    tester:asserteq(b:size(), 3)
    tester:assertTableEq(epoch(b), { '1,2,3,4', '5,6,7,8', '9,10' })
    b:close()
    tester:asserteq(data.DataLoader(ints(10), { batchSize = false, workers = w }):size(), 10)
  end
  -- Shuffled with a seed, over three epochs, with random draws in get: identical for any number
  -- of workers and any prefetch (Note [Loader determinism]).
  local ds = ints(23, function(i) return { i = i, r = torch.rand(2) } end)
  local function run(w, prefetch)
    local l = data.DataLoader(ds, { batchSize = 4, shuffle = true, seed = 7, workers = w, prefetch = prefetch })
    local out = {}
    for _ = 1, 3 do
      for b in l:iter() do out[#out + 1] = b end
    end
    l:close()
    return out
  end
  local ref = run(0)
  tester:asserteq(#ref, 18)
  for _, cfg in ipairs({ { 1, 1 }, { 3, 2 }, { 2, 4 } }) do
    local got = run(cfg[1], cfg[2])
    tester:asserteq(#got, #ref)
    for k = 1, #ref do
      tester:assert(torch.equal(got[k].i, ref[k].i) and torch.equal(got[k].r, ref[k].r), 'batch ' .. k .. ', ' .. cfg[1] .. ' workers')
    end
  end
end

-- Bug: loader:close() freed the C loader while the epoch's iterator still held it; the next
-- call pushed to freed memory ("free(): double free detected", the process aborted). Also an
-- iterable epoch that had ended (persistentWorkers = false closes the loader then) reset the
-- freed loader when its iterator was called once more.
function tests.closeDuringAnIterationIsAnError()
  local before = threads()
  local l = data.DataLoader(ints(6), { batchSize = 2, workers = 2 })
  local it = l:iter()
  tester:assertTableEq(it():totable(), { 1, 2 })
  l:close()
  fails('[DataLoader] the loader was closed (loader:close()) during this iteration', it)
  fails('the loader was closed', it)
  tester:assertTableEq(epoch(l), { '1,2', '3,4', '5,6' })  -- a new epoch starts new workers
  l:close()
  local li = data.DataLoader(data.IterableDataset({ 1, 2, 3, 4, 5 }), { batchSize = 2, workers = 2 })
  local iti = li:iter()
  tester:assert(iti() ~= nil)
  li:close()
  fails('the loader was closed', iti)
  -- A finished epoch of a non-persistent loader (closed at its end) keeps returning nil.
  for _, ds in ipairs({ data.IterableDataset({ 1, 2, 3, 4, 5 }), ints(5) }) do
    local itd, n = data.DataLoader(ds, { batchSize = 2, workers = 2, persistentWorkers = false }):iter(), 0
    while itd() do n = n + 1 end
    tester:asserteq(n, 3)
    tester:asserteq(itd(), nil)
    tester:asserteq(itd(), nil)
  end
  collectgarbage()
  collectgarbage()
  tester:asserteq(threads(), before)
end

-- Bug: every worker state's math.random started from the same seed, so all workers drew the
-- same numbers (PyTorch 1.13 seeds Python's random module in each worker for this reason), and
-- which sample got which number depended on the scheduling.
function tests.workersSeedLuaRandom()
  local ds = ints(12, function(i) return math.random(1, 2 ^ 30) end)
  local function run(w, seed)
    local l = data.DataLoader(ds, { batchSize = 2, workers = w, seed = seed })
    local out = {}
    for b in l:iter() do
      for i = 1, b:nElement() do out[#out + 1] = b[i] end
    end
    l:close()
    return out
  end
  local a, seen, distinct = run(3, 5), {}, 0
  for _, v in ipairs(a) do distinct, seen[v] = distinct + (seen[v] and 0 or 1), true end
  tester:asserteq(distinct, 12)  -- 12 draws out of 2^30: a collision means identical streams
  tester:assertTableEq(run(1, 5), a)  -- per batch, whichever worker makes it
  tester:assertTableEq(run(2, 5), a)
  tester:assert(table.concat(run(2, 6), ',') ~= table.concat(a, ','), 'another seed, other numbers')
  -- An iterable dataset that shards itself: each worker has its own stream, reproducible per seed.
  local stream = data.IterableDataset(function()
    local info = data.getWorkerInfo()
    local k = 0
    return function()
      k = k + 1
      if k <= 4 then return { w = info and info.id or 0, r = math.random(1, 2 ^ 30) } end
    end
  end)
  local function run_stream(seed)
    local l = data.DataLoader(stream, { batchSize = false, workers = 3, seed = seed })
    local by, all = { {}, {}, {} }, {}
    for s in l:iter() do table.insert(by[s.w], s.r) all[#all + 1] = s.r end
    l:close()
    return by, all
  end
  local by, all = run_stream(3)
  tester:asserteq(#all, 12)
  tester:assert(table.concat(by[1], ',') ~= table.concat(by[2], ','), 'workers 1 and 2 drew the same numbers')
  tester:assert(table.concat(by[2], ',') ~= table.concat(by[3], ','), 'workers 2 and 3 drew the same numbers')
  local _, again = run_stream(3)
  tester:assertTableEq(again, all)
end

-- Bug: a worker state's torch.Tensor stayed FloatTensor when the main state had set
-- torch.setdefaulttensortype('torch.DoubleTensor'), so workers > 0 gave float batches where
-- workers = 0 gave double ones (PyTorch's forked workers keep the default dtype).
function tests.workersFollowTheDefaultTensorType()
  local ds = ints(4, function(i) return { x = torch.zeros(2), r = torch.rand(1), y = i } end)
  local saved = torch.getdefaulttensortype()
  local ok, err = pcall(function()
    local l = data.DataLoader(ds, { batchSize = 2, workers = 2 })
    for _, name in ipairs({ 'torch.DoubleTensor', 'torch.FloatTensor', 'torch.DoubleTensor' }) do
      torch.setdefaulttensortype(name)  -- also between epochs of the same (persistent) workers
      for _, w in ipairs({ 0, 2 }) do
        local loader = w == 0 and data.DataLoader(ds, { batchSize = 2 }) or l
        for b in loader:iter() do
          tester:asserteq(b.x:type(), name, 'x with ' .. w .. ' workers')
          tester:asserteq(b.r:type(), name, 'r with ' .. w .. ' workers')
          tester:asserteq(b.y:type(), 'torch.LongTensor')
        end
      end
    end
    l:close()
  end)
  torch.setdefaulttensortype(saved)
  tester:assert(ok, tostring(err))
end

-- Breaking out of an epoch and starting another: the new epoch is whole and in order (no batch
-- of the abandoned one), the threads stay as many as the workers, and close() ends them.
-- persistentWorkers = false stops the threads at the end of each epoch and runs workerInitFn
-- again; the default keeps them and runs it once per worker.
function tests.earlyBreakAndPersistentWorkers()
  local ds = ints(30, function(i) return { i = i, r = torch.rand(1) } end)
  for _ in data.DataLoader(ds, { batchSize = 4 }):iter() do end  -- any lazily started pool first
  local before = threads()
  local ref = data.DataLoader(ds, { batchSize = 4, shuffle = true, seed = 2 })
  local l = data.DataLoader(ds, { batchSize = 4, shuffle = true, seed = 2, workers = 3, prefetch = 3 })
  for e = 1, 4 do
    local want = {}
    for b in ref:iter() do want[#want + 1] = b end
    local k = 0
    for b in l:iter() do
      k = k + 1
      tester:assert(torch.equal(b.i, want[k].i) and torch.equal(b.r, want[k].r), 'epoch ' .. e .. ' batch ' .. k)
      if e % 2 == 1 and k == 2 then break end
    end
    tester:asserteq(k, e % 2 == 1 and 2 or #want)
    tester:asserteq(threads(), before + 3)
  end
  l:close()
  tester:asserteq(threads(), before)

  local counting = ints(8, function(i)
    local info = data.getWorkerInfo()
    return { i = i, inits = info.dataset.inits or 0, id = info.id, tag = info.dataset.tag }
  end)
  local init = function(id)
    local info = data.getWorkerInfo()
    assert(info.id == id and info.numWorkers == 2)
    info.dataset.inits = (info.dataset.inits or 0) + 1
  end
  for _, persistent in ipairs({ false, true }) do
    local lp = data.DataLoader(counting, { batchSize = 2, workers = 2, workerInitFn = init, persistentWorkers = persistent })
    for e = 1, 3 do
      counting.tag = e  -- non-persistent workers get the dataset as it is now; persistent ones keep epoch 1's
      local n = 0
      for b in lp:iter() do
        n = n + b.i:nElement()
        for j = 1, b.i:nElement() do
          tester:asserteq(b.inits[j], 1, 'workerInitFn ran once per worker state')
          tester:assert(b.id[j] == 1 or b.id[j] == 2)
          tester:asserteq(b.tag[j], persistent and 1 or e)
        end
      end
      tester:asserteq(n, 8)
      tester:asserteq(threads(), persistent and before + 2 or before, 'threads after epoch ' .. e)
    end
    lp:close()
  end
  tester:asserteq(data.getWorkerInfo(), nil)  -- the main state is not a worker
end

-- An error in get, in collate or in an iterable's stream reaches the main state with the
-- worker's index and message, and the loader works again afterwards; a worker state that
-- cannot start fails every epoch at once instead of hanging.
function tests.workerErrorsNameTheWorkerAndDoNotHang()
  local ds = ints(12, function(i) if i == 7 then error('bad sample ' .. i) end return i end)
  local l = data.DataLoader(ds, { batchSize = 2, workers = 2 })
  for _ = 1, 2 do
    local n = 0
    local err = fails('bad sample 7', function() for _ in l:iter() do n = n + 1 end end)
    tester:assert(err:find('^%[DataLoader%] worker [12]: '), err)
    tester:assert(err:find('batch 4 (dataset indices 7,8)', 1, true), err)
    tester:asserteq(n, 3)
  end
  l:close()
  local c = data.DataLoader(ints(6), { batchSize = 2, workers = 3,
    collate = function(s) if s[1] == 5 then error('collate refused') end return #s end })
  fails('collate refused', function() for _ in c:iter() do end end)
  tester:assertTableEq(epoch(data.DataLoader(ints(5), { batchSize = 2, workers = 3 })), { '1,2', '3,4', '5' })
  c:close()
  local stream = data.IterableDataset(function()
    local k = 0
    return function() k = k + 1 if k == 4 then error('stream broke') end return k <= 6 and k or nil end
  end)
  local ls = data.DataLoader(stream, { batchSize = 2, workers = 2 })
  local err = fails('stream broke', function() for _ in ls:iter() do end end)
  tester:assert(err:find('[DataLoader] worker ', 1, true), err)
  ls:close()
  -- A class the worker states cannot rebuild: they fail to start; each epoch raises quickly.
  local Local = torch.class('testregr.LocalOnly')
  Local.size, Local.get = function() return 2 end, function(_, i) return i end
  local lb = data.DataLoader(testregr.LocalOnly(), { workers = 2 })
  for _ = 1, 2 do
    local t = torch.tic()
    fails('testregr.LocalOnly is not defined in the worker state', function() for _ in lb:iter() do end end)
    tester:assertlt(torch.toc(t), 10)
  end
  lb:close()
end

-- Iterable datasets across workers: each sample once for 1 to 4 workers, also in an epoch that
-- follows an abandoned one; len(loader) from the declared size as PyTorch 1.13 (ceil(23 / 4)).
function tests.iterableEachSampleOnce()
  local ds = data.IterableDataset(function()
    local k = 0
    return function() k = k + 1 return k <= 23 and k or nil end
  end, { size = 23 })
  for w = 1, 4 do
    local l = data.DataLoader(ds, { batchSize = 4, workers = w })
    tester:asserteq(l:size(), 6)
    for e = 1, 3 do
      local got = {}
      for b in l:iter() do
        for i = 1, b:nElement() do got[#got + 1] = b[i] end
        if e == 1 then break end
      end
      table.sort(got)
      if e > 1 then tester:asserteq(table.concat(got, ','), table.concat(torch.range(1, 23):long():totable(), ','), w .. ' workers') end
    end
    l:close()
  end
end

-- Bug: a constructor spec naming a missing constructor built the module itself when the module
-- returns a class ({module = 'm', constructor = 'typo', args = {3}} gave m(3)); args and
-- constructor of the wrong type failed inside unpack without naming the DataLoader.
function tests.constructorSpecsAreChecked()
  local dir = os.getenv('TOCHA_TEST_TMP') or '/tmp'
  package.path = dir .. '/?.lua;' .. package.path
  local f = io.open(dir .. '/test_data_loader_regr_ds.lua', 'w')
  f:write([[local M = {}
local Sq = torch.class('testregr.Squares', M)
function Sq:__init(n) self.n = n end
function Sq:size() return self.n end
function Sq:get(i) return i * i end
return M.Squares]])
  f:close()
  package.loaded['test_data_loader_regr_ds'] = nil
  fails('[DataLoader] module test_data_loader_regr_ds.fromFile is not a constructor', data.DataLoader,
    { module = 'test_data_loader_regr_ds', constructor = 'fromFile', args = { 3 } })
  fails('[DataLoader] the args of a dataset spec must be a list, got number', data.DataLoader,
    { module = 'test_data_loader_regr_ds', args = 3 })
  fails('[DataLoader] the constructor of a dataset spec must be a field name (a string), got number', data.DataLoader,
    { module = 'test_data_loader_regr_ds', constructor = 5 })
  for _, w in ipairs({ 0, 2 }) do
    local l = data.DataLoader({ module = 'test_data_loader_regr_ds', args = { 5 } }, { batchSize = 2, workers = w })
    tester:assertTableEq(epoch(l), { '1,4', '9,16', '25' })
    l:close()
  end
end

-- Bug: indices reached the workers as text with 14 significant digits, so a dataset key of 1e14
-- or more (or a non-integral key, which PyTorch's map-style datasets allow) arrived rounded
-- with workers > 0 and exact with workers = 0. And a sampler giving a 1-D LongTensor (as
-- torch.randperm does) failed with "'struct tocha_handle' has no '__ipairs' metamethod".
function tests.samplerKeysAndTensors()
  local keyed = { size = function() return 3 end, get = function(_, k) return string.format('%.17g', k) end }
  local keys = { 123456789012345, 2 ^ 53 - 1, 1 / 3 }
  local want = { '123456789012345', '9007199254740991', '0.33333333333333331' }
  for _, w in ipairs({ 0, 2 }) do
    local s = { size = function() return 3 end, indices = function() return keys end }
    local got, l = {}, data.DataLoader(keyed, { sampler = s, batchSize = false, workers = w })
    for k in l:iter() do got[#got + 1] = k end
    tester:assertTableEq(got, want, w .. ' workers')
    l:close()
    local ts = { size = function() return 4 end, indices = function() return torch.LongTensor({ 4, 3, 2, 1 }) end }
    local lt = data.DataLoader(ints(4), { sampler = ts, batchSize = 2, workers = w })
    tester:assertTableEq(epoch(lt), { '4,3', '2,1' })
    lt:close()
    local bs = { size = function() return 2 end, batches = function() return { torch.LongTensor({ 1, 2 }), torch.IntTensor({ 4 }) } end }
    local lb = data.DataLoader(ints(4), { batchSampler = bs, workers = w })
    tester:assertTableEq(epoch(lb), { '1,2', '4' })
    lb:close()
  end
  local fl = { size = function() return 2 end, indices = function() return torch.Tensor({ 1, 2 }) end }
  fails("[DataLoader] the sampler's indices(epoch) is a 1-D torch.FloatTensor, expected a Lua list or a 1-D integer tensor",
    function() for _ in data.DataLoader(ints(2), { sampler = fl }):iter() do end end)
  local bad = { size = function() return 1 end, batches = function() return { torch.LongTensor(2, 2):fill(1) } end }
  fails('[DataLoader] batch 1 of the batch sampler is a 2-D torch.LongTensor', function()
    for _ in data.DataLoader(ints(2), { batchSampler = bad }):iter() do end
  end)
end

-- A huge prefetch is refused: workers * prefetch tasks are queued ahead (all at once for an
-- iterable dataset: prefetch = 2^22 with 2 workers took 3 s before the first of 3 items).
function tests.prefetchIsBounded()
  fails('[DataLoader] prefetch is too large: workers * prefetch must be at most 2^20, got 2 * 1073741824',
    data.DataLoader, data.IterableDataset({ 1, 2, 3 }), { workers = 2, prefetch = 2 ^ 30 })
  fails('prefetch is too large', data.DataLoader, ints(3), { workers = 4, prefetchFactor = 2 ^ 19 })
  local l = data.DataLoader(data.IterableDataset({ 1, 2, 3 }), { workers = 2, prefetchFactor = 8 })
  local got = {}
  for x in l:iter() do got[#got + 1] = x[1] end
  table.sort(got)
  tester:assertTableEq(got, { 1, 2, 3 })
  l:close()
end

-- Bug in iterable.lua (not this review's file; see report): run_init marks workerInitFn done
-- before calling it, so after a workerInitFn error the next epoch of the same (persistent)
-- workers ran without it, silently. PyTorch 1.13 never gives a batch from a worker whose init
-- failed. Skipped until fixed; then enable the assertion below.
function tests.workerInitFnFailureIsNotForgotten()
  local ds = ints(4, function(i) return { i = i, ready = data.getWorkerInfo().dataset.ready and 1 or 0 } end)
  local l = data.DataLoader(ds, { batchSize = 2, workers = 1, workerInitFn = function()
    local d = data.getWorkerInfo().dataset
    d.attempts = (d.attempts or 0) + 1
    if d.attempts == 1 then error('init failed once') end
    d.ready = true
  end })
  fails('init failed once', function() for _ in l:iter() do end end)
  local unready = 0
  local ok = pcall(function() for b in l:iter() do unready = unready + (b.ready:sum() == 2 and 0 or 1) end end)
  l:close()
  tester:assert(not ok or unready == 0, 'batches made without workerInitFn')
end

-- An error object that is not a string (a table with __tostring) raised in a worker reached the
-- main state as "(error object is not a string)"; with workers = 0 its __tostring message is kept
-- (bindings/data_loader.cpp's traceback_handler used lua_tolstring only).
function tests.errorObjectsThatAreNotStrings()
  local obj = setmetatable({}, { __tostring = function() return 'custom error object' end })
  local ds = ints(2, function() error(obj) end)
  fails('custom error object', function() for _ in data.DataLoader(ds):iter() do end end)
  local l = data.DataLoader(ds, { workers = 1 })
  local err = fails('[DataLoader] worker 1', function() for _ in l:iter() do end end)
  l:close()
  tester:assert(err:find('custom error object', 1, true), err)
end

-- A workerInitFn that sets the default tensor type (a Torch7 habit) changed the process-wide float
-- type, so the main state's integer math promoted to Double afterwards (Note [Default type in
-- worker states], torch/tensor.lua).
function tests.workerDefaultTypeStaysInTheWorker()
  local ds = ints(4, function(i) return torch.Tensor(1):fill(i) end)
  local loader = data.DataLoader(ds, { batchSize = 2, workers = 2,
    workerInitFn = function() torch.setdefaulttensortype('torch.DoubleTensor') end })
  for _ in loader:iter() do end
  loader:close()
  tester:asserteq(torch.getdefaulttensortype(), 'torch.FloatTensor')
  tester:asserteq(torch.type(torch.sqrt(torch.LongTensor({ 4 }))), 'torch.FloatTensor')
end

tester:add(tests)
tester:run()
ffi.C.alarm(0)
