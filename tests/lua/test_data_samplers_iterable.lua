-- Iterable datasets in the DataLoader (data.IterableDataset, data.ChainDataset,
-- data.getWorkerInfo) with and without workers: no sample lost or repeated, PyTorch 1.13's batch
-- order; and the map-style utilities data.randomSplit (PyTorch 1.13's lengths), data.Subset,
-- data.StackDataset, data.defaultCollate, data.defaultConvert.
local data = require 'data'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function fails(pattern, f)
  local ok, err = pcall(f)
  tester:assert(not ok, 'expected an error matching ' .. pattern)
  tester:assert(tostring(err):find(pattern, 1, true), tostring(err))
end
local function range(a, b, step)
  local r = {}
  for i = a, b, step or 1 do r[#r + 1] = i end
  return r
end
local function sorted(list)
  local s = {}
  for i, v in ipairs(list) do s[i] = v end
  table.sort(s)
  return s
end
local function batches(loader)
  local out = {}
  for b in loader:iter() do out[#out + 1] = torch.isTensor(b) and b:totable() or b end
  return out
end
local function flatten(list)
  local out = {}
  for _, b in ipairs(list) do
    for _, x in ipairs(type(b) == 'table' and b or { b }) do out[#out + 1] = x end
  end
  return out
end

-- 1..n, each worker reading its own stride (PyTorch's sharding idiom with a 1-based id).
local function sharded(n)
  return data.IterableDataset(function()
    local info = data.getWorkerInfo()
    local start, step = 1, 1
    if info then start, step = info.id, info.numWorkers end
    local i = start - step
    return function()
      i = i + step
      if i <= n then return i end
    end
  end)
end
-- 1..n, ignoring the worker info: the loader shards it (Note [Iterable shards]).
local function plain(n)
  return data.IterableDataset(function()
    local i = 0
    return function()
      i = i + 1
      if i <= n then return i end
    end
  end)
end

function tests.iterableWithoutWorkers()
  for _, mk in ipairs({ sharded, plain }) do
    tester:eq(batches(data.DataLoader(mk(23), { batchSize = 4 })),
      { { 1, 2, 3, 4 }, { 5, 6, 7, 8 }, { 9, 10, 11, 12 }, { 13, 14, 15, 16 }, { 17, 18, 19, 20 }, { 21, 22, 23 } })
    tester:eq(#batches(data.DataLoader(mk(23), { batchSize = 4, dropLast = true })), 5)
    tester:eq(batches(data.DataLoader(mk(3), { batchSize = false })), { 1, 2, 3 })
  end
  local list = data.IterableDataset({ 'a', 'b', 'c' })
  local got = {}
  for x in list:iter() do got[#got + 1] = x end
  tester:eq(got, { 'a', 'b', 'c' })
  tester:eq(data.getWorkerInfo(), nil)
end

-- PyTorch 1.13's batches for the sharded stream 1..23, batch_size=4 (from /usr/bin/python3:
-- DataLoader(S(23), batch_size=4, num_workers=W[, drop_last=True])).
local expected = {
  [2] = { { 1, 3, 5, 7 }, { 2, 4, 6, 8 }, { 9, 11, 13, 15 }, { 10, 12, 14, 16 }, { 17, 19, 21, 23 }, { 18, 20, 22 } },
  [3] = { { 1, 4, 7, 10 }, { 2, 5, 8, 11 }, { 3, 6, 9, 12 }, { 13, 16, 19, 22 }, { 14, 17, 20, 23 }, { 15, 18, 21 } },
}

function tests.iterableWorkersShardWithoutDuplicates()
  for _, w in ipairs({ 1, 2, 3 }) do
    for _, mk in ipairs({ sharded, plain }) do
      local l = data.DataLoader(mk(23), { batchSize = 4, workers = w })
      for _ = 1, 2 do  -- a second epoch restarts every worker's stream
        local got = batches(l)
        tester:eq(sorted(flatten(got)), range(1, 23))  -- no loss, no duplicate
        if expected[w] then tester:eq(got, expected[w]) end
      end
      l:close()
      if w > 1 then
        local d = batches(data.DataLoader(mk(23), { batchSize = 4, workers = w, dropLast = true }))
        tester:eq(d, { unpack(expected[w], 1, 5) })
      end
    end
  end
  -- PyTorch 1.13: uneven shards (DataLoader(S(10), batch_size=2, num_workers=3)).
  tester:eq(batches(data.DataLoader(sharded(10), { batchSize = 2, workers = 3 })),
    { { 1, 4 }, { 2, 5 }, { 3, 6 }, { 7, 10 }, { 8 }, { 9 } })
  -- One long worker stream, two short ones: finished workers are skipped in turn (PyTorch 1.13's
  -- [[100, 101], [1, 2], [300, 301], [3, 4], [5, 6], [7]] with 0-based ids).
  local skew = data.IterableDataset(function()
    local id = data.getWorkerInfo().id
    local first, last = 100 * id, 100 * id + 1
    if id == 2 then first, last = 1, 7 end
    local i = first - 1
    return function()
      i = i + 1
      if i <= last then return i end
    end
  end)
  tester:eq(batches(data.DataLoader(skew, { batchSize = 2, workers = 3 })),
    { { 100, 101 }, { 1, 2 }, { 300, 301 }, { 3, 4 }, { 5, 6 }, { 7 } })
  -- More workers than samples.
  tester:eq(sorted(flatten(batches(data.DataLoader(plain(2), { batchSize = false, workers = 4 })))), { 1, 2 })
  tester:eq(batches(data.DataLoader(plain(0), { workers = 2 })), {})
end

-- An epoch left early, then whole epochs: every stream restarts; a longer stream over more
-- workers loses and repeats nothing.
function tests.iterableAbandonedEpochAndLongStreams()
  local l = data.DataLoader(sharded(50), { batchSize = 3, workers = 3 })
  local it = l:iter()
  tester:eq(it():totable(), { 1, 4, 7 })
  tester:eq(sorted(flatten(batches(l))), range(1, 50))
  tester:assertErrorPattern(it, 'replaced by a newer')
  l:close()
  local long = data.DataLoader(plain(1000), { batchSize = 7, workers = 4, prefetch = 3 })
  for _ = 1, 2 do tester:eq(sorted(flatten(batches(long))), range(1, 1000)) end
  long:close()
end

function tests.iterableWorkerInfoAndInit()
  local ds = data.IterableDataset(function()
    local info = data.getWorkerInfo()
    local done = false
    return function()
      if done then return nil end
      done = true
      return { id = info.id, n = info.numWorkers, init = rawget(_G, 'test_iter_init') }
    end
  end)
  local l = data.DataLoader(ds, { batchSize = false, workers = 3,
    workerInitFn = function(id) rawset(_G, 'test_iter_init', 10 * id) end })
  local got = batches(l)
  tester:eq(#got, 3)
  for k, item in ipairs(got) do
    tester:eq(item.id, k)  -- one item per worker, handed out in turn
    tester:eq(item.n, 3)
    tester:eq(item.init, 10 * k)
  end
  l:close()
end

function tests.iterableRandomnessIsReproducible()
  -- Each worker's stream draws from its own generator, seeded from the loader's seed and the
  -- worker id; the main state's stream is untouched.
  local ds = data.IterableDataset(function()
    local i = 0
    return function()
      i = i + 1
      if i <= 12 then return torch.rand(2) end
    end
  end)
  local function run(w, seed)
    local l = data.DataLoader(ds, { batchSize = 3, workers = w, seed = seed })
    local out = {}
    for b in l:iter() do out[#out + 1] = b end
    l:close()
    return out
  end
  for _, w in ipairs({ 0, 2 }) do
    torch.manualSeed(4)
    local expect = torch.rand(1)[1]
    torch.manualSeed(4)
    local a, b = run(w, 5), run(w, 5)
    tester:eq(torch.rand(1)[1], expect)
    tester:eq(#a, 4)
    for k = 1, #a do tester:assert(torch.equal(a[k], b[k]), 'batch ' .. k .. ' with ' .. w .. ' workers') end
    tester:assert(not torch.equal(a[1], run(w, 6)[1]), 'another seed, other draws')
  end
end

function tests.iterableErrorsAndRules()
  local bad = data.IterableDataset(function()
    local i = 0
    return function()
      i = i + 1
      if i == 5 then error('stream broke at ' .. i) end
      return i
    end
  end)
  for _, w in ipairs({ 0, 2 }) do
    local ok, err = pcall(function() for _ in data.DataLoader(bad, { batchSize = 2, workers = w }):iter() do end end)
    tester:assert(not ok)
    tester:assert(tostring(err):find('stream broke at 5', 1, true), tostring(err))
  end
  local ds = plain(4)
  for _, k in ipairs({ 'shuffle', 'sampler', 'batchSampler' }) do
    local opts = { [k] = k == 'shuffle' or data.SequentialSampler(4) }
    if k == 'batchSampler' then opts[k] = data.BatchSampler(data.SequentialSampler(4), 2, false) end
    fails('an iterable dataset gives its own order: ' .. k, function() data.DataLoader(ds, opts) end)
  end
  fails('no known length', function() data.DataLoader(ds):size() end)
  tester:eq(data.DataLoader(data.IterableDataset({ 1, 2, 3 }, { size = 3 }), { batchSize = 2 }):size(), 2)
  fails('expected an iterator function', function() data.IterableDataset(function() return 3 end):iter() end)
  fails('iter() is not implemented', function() data.IterableDataset():iter() end)
end

function tests.chainDataset()
  local chain = data.ChainDataset({ data.IterableDataset({ 1, 2, 3 }), data.IterableDataset({}),
                                    data.IterableDataset({ 4, 5 }, { size = 2 }) })
  local got = {}
  for x in chain:iter() do got[#got + 1] = x end
  tester:eq(got, { 1, 2, 3, 4, 5 })
  tester:eq(chain:size(), nil)  -- the first member's length is unknown
  -- PyTorch 1.13: DataLoader(ChainDataset([[1, 2, 3], [], [4, 5]]), batch_size=2) gives [[1, 2], [3, 4], [5]].
  tester:eq(batches(data.DataLoader(chain, { batchSize = 2 })), { { 1, 2 }, { 3, 4 }, { 5 } })
  tester:eq(sorted(flatten(batches(data.DataLoader(chain, { batchSize = 2, workers = 2 })))), range(1, 5))
  -- A member that shards itself next to one that does not: each is sharded once.
  local mixed = data.ChainDataset({ plain(7), sharded(9), plain(0), sharded(4) })
  local want = flatten({ range(1, 7), range(1, 9), range(1, 4) })
  for _, w in ipairs({ 0, 2, 3 }) do
    tester:eq(sorted(flatten(batches(data.DataLoader(mixed, { batchSize = 3, workers = w })))), sorted(want))
  end
  local sized = data.ChainDataset({ data.IterableDataset({ 1 }, { size = 1 }), data.IterableDataset({ 2, 3 }, { size = 2 }) })
  tester:eq(sized:size(), 3)
  fails('dataset 2 is a data.ListDataset, expected an iterable dataset', function()
    data.ChainDataset({ chain, data.ListDataset({ 1 }) })
  end)
end

-- PyTorch 1.13's random_split lengths (from /usr/bin/python3, torch.utils.data.random_split).
local split_cases = {
  { 10, { 0.3, 0.3, 0.4 }, { 3, 3, 4 } },
  { 11, { 0.3, 0.3, 0.4 }, { 4, 3, 4 } },
  { 7, { 0.3, 0.3, 0.4 }, { 3, 2, 2 } },
  { 5, { 0.3, 0.3, 0.4 }, { 2, 1, 2 } },
  { 10, { 1 / 3, 1 / 3, 1 / 3 }, { 4, 3, 3 } },
  { 100, { 1 / 3, 1 / 3, 1 / 3 }, { 34, 33, 33 } },
  { 10, { 0.25, 0.25, 0.25, 0.25 }, { 3, 3, 2, 2 } },
  { 11, { 0.1, 0.2, 0.7 }, { 2, 2, 7 } },
  { 10, { 0.05, 0.05, 0.9 }, { 1, 0, 9 } },
  { 3, { 0.1, 0.2, 0.7 }, { 1, 0, 2 } },
  { 10, { 3, 7 }, { 3, 7 } },
}

function tests.randomSplitLengthsAndDisjointness()
  for _, case in ipairs(split_cases) do
    local n, lengths, sizes = case[1], case[2], case[3]
    local ds = data.ListDataset(range(1, n))
    local parts = data.randomSplit(ds, lengths, { seed = 3 })
    local all = {}
    for i, p in ipairs(parts) do
      tester:eq(p:size(), sizes[i], string.format('n = %d, part %d', n, i))
      tester:assert(torch.isTypeOf(p, 'data.Subset'))
      for k = 1, p:size() do all[#all + 1] = p:get(k) end
    end
    tester:eq(sorted(all), range(1, n))  -- disjoint and covering
  end
  -- A generator makes it repeatable; torch's default generator otherwise.
  local ds = data.ListDataset(range(1, 20))
  local g1, g2 = torch.Generator(), torch.Generator()
  torch.manualSeed(g1, 1)
  torch.manualSeed(g2, 1)
  tester:eq(data.randomSplit(ds, { 5, 15 }, { generator = g1 })[1].indices,
    data.randomSplit(ds, { 5, 15 }, { generator = g2 })[1].indices)
  torch.manualSeed(2)
  local a = data.randomSplit(ds, { 0.5, 0.5 })[2].indices
  torch.manualSeed(2)
  tester:eq(data.randomSplit(ds, { 0.5, 0.5 })[2].indices, a)
  fails('the lengths sum to 9, not to the 10 samples', function() data.randomSplit(data.ListDataset(range(1, 10)), { 3, 6 }) end)
  fails('lengths[1] is 0.5', function() data.randomSplit(ds, { 0.5, 0.6 }) end)
  fails('expected a non-empty list of lengths', function() data.randomSplit(ds, {}) end)
  fails('generator must be a torch.Generator', function() data.randomSplit(ds, { 1 }, { generator = 1 }) end)
end

function tests.subsetStackAndCollate()
  local ds = data.ListDataset({ 'a', 'b', 'c', 'd' })
  local s = data.Subset(ds, { 4, 2 })
  tester:eq(s:size(), 2)
  tester:eq({ s:get(1), s:get(2) }, { 'd', 'b' })
  tester:assert(s.dataset == ds)
  tester:eq(s.indices, { 4, 2 })
  tester:eq(data.Subset(ds, torch.LongTensor({ 3 })):get(1), 'c')
  fails('index 5 at position 1 is out of range 1..4', function() data.Subset(ds, { 5 }) end)
  fails('expected a list or a LongTensor of indices, got nil', function() data.Subset(ds) end)
  local st = data.StackDataset(ds, data.ListDataset({ 1, 2, 3, 4 }))
  tester:eq(st:size(), 4)
  tester:eq(st:get(3), { 'c', 3 })
  local named = data.StackDataset({ x = data.TensorDataset(torch.range(1, 4)), y = data.ListDataset({ 5, 6, 7, 8 }) })
  local batch = data.DataLoader(named, { batchSize = 4 }):iter()()
  tester:eq(batch.x.input:totable(), { 1, 2, 3, 4 })
  tester:eq(batch.y:totable(), { 5, 6, 7, 8 })
  fails('size mismatch', function() data.StackDataset(ds, data.ListDataset({ 1 })) end)
  local c = data.defaultCollate({ { x = torch.ones(2), y = 1 }, { x = torch.zeros(2), y = 2 } })
  tester:eq(c.x:size():totable(), { 2, 2 })
  tester:eq(c.y:totable(), { 1, 2 })
  local conv = data.defaultConvert({ a = torch.DoubleStorage({ 1, 2 }), b = { 3, 'x' } })
  tester:eq(conv.a:totable(), { 1, 2 })
  tester:eq(conv.b, { 3, 'x' })
end

-- pinMemory with an iterable dataset and workers: batches come back pinned (CUDA only).
function tests.cudaPinnedIterableBatches()
  if not torch.cuda.isAvailable() then return end
  local l = data.DataLoader(plain(10), { batchSize = 4, workers = 2, pinMemory = true })
  local all = {}
  for b in l:iter() do
    tester:assert(b:isPinned())
    local g = b:cuda()
    for _, x in ipairs(g:double():totable()) do all[#all + 1] = x end
  end
  tester:eq(sorted(all), range(1, 10))
  l:close()
end

tester:add(tests)
tester:run()
