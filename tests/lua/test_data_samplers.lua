-- PyTorch's samplers (data.SequentialSampler, RandomSampler, SubsetRandomSampler,
-- WeightedRandomSampler, BatchSampler) and the DataLoader options that use them (sampler=,
-- batchSampler=, generator=, collateFn=, workerInitFn=, persistentWorkers=, prefetchFactor=)
-- with PyTorch's exclusion rules. Iterable datasets and randomSplit: test_data_samplers_iterable.lua.
local data = require 'data'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function sorted(list)
  local s = {}
  for i, v in ipairs(list) do s[i] = v end
  table.sort(s)
  return s
end
local function range(a, b)
  local r = {}
  for i = a, b do r[#r + 1] = i end
  return r
end
local function counts(list, n)
  local c = {}
  for i = 1, n do c[i] = 0 end
  for _, v in ipairs(list) do c[v] = c[v] + 1 end
  return c
end
local function fails(pattern, f)
  local ok, err = pcall(f)
  tester:assert(not ok, 'expected an error matching ' .. pattern)
  tester:assert(tostring(err):find(pattern, 1, true), tostring(err))
end
-- A binomial count of m draws with probability p lies within 5 standard deviations of m p.
local function within_binomial(c, m, p, what)
  local sd = math.sqrt(m * p * (1 - p))
  tester:assert(math.abs(c - m * p) <= 5 * sd + 1e-9, string.format('%s: %d draws, expected %.1f +- %.1f', what, c,
    m * p, 5 * sd))
end

local function dataset(n)
  return data.TensorDataset(torch.range(1, n):view(n, 1), torch.range(1, n):long())
end
local function targets(loader)
  local out = {}
  for b in loader:iter() do
    for i = 1, b.target:nElement() do out[#out + 1] = b.target[i] end
  end
  return out
end

function tests.sequentialSamplerIsExact()
  local s = data.SequentialSampler(dataset(6))
  tester:eq(s:size(), 6)
  tester:eq(s:len(), 6)
  tester:eq(s:indices(), range(1, 6))
  local seen = {}
  for i in s:iter() do seen[#seen + 1] = i end
  tester:eq(seen, range(1, 6))
  tester:eq(data.SequentialSampler(0):indices(), {})
  fails('expected a dataset', function() data.SequentialSampler('x') end)
end

function tests.randomSamplerIsASeededPermutation()
  local n = 40
  local a = data.RandomSampler(n, { seed = 7 })
  tester:eq(sorted(a:indices(1)), range(1, n))
  tester:eq(a:indices(1), data.RandomSampler(n, { seed = 7 }):indices(1))
  tester:ne(a:indices(1), a:indices(2))       -- each epoch its own order
  a:setEpoch(5)
  tester:eq(a:indices(), data.RandomSampler(n, { seed = 7 }):indices(5))
  -- A generator: each call draws anew; two generators seeded alike give the same sequence.
  local g1, g2 = torch.Generator(), torch.Generator()
  torch.manualSeed(g1, 3)
  torch.manualSeed(g2, 3)
  local s1, s2 = data.RandomSampler(n, { generator = g1 }), data.RandomSampler(n, { generator = g2 })
  local e1, e2 = s1:indices(), s1:indices()
  tester:ne(e1, e2)
  tester:eq(s2:indices(), e1)
  tester:eq(s2:indices(), e2)
  tester:eq(sorted(e2), range(1, n))
  -- Without either, torch's default generator decides.
  torch.manualSeed(11)
  local d1 = data.RandomSampler(n):indices()
  torch.manualSeed(11)
  tester:eq(data.RandomSampler(n):indices(), d1)
end

function tests.randomSamplerNumSamplesAndReplacement()
  -- Without replacement, 7 samples of 3 are two whole permutations and one index more (PyTorch 1.13).
  local s = data.RandomSampler(3, { numSamples = 7, seed = 1 })
  local idx = s:indices()
  tester:eq(#idx, 7)
  tester:eq(sorted({ idx[1], idx[2], idx[3] }), { 1, 2, 3 })
  tester:eq(sorted({ idx[4], idx[5], idx[6] }), { 1, 2, 3 })
  tester:eq(sorted(counts(idx, 3)), { 2, 2, 3 })
  tester:eq(#data.RandomSampler(5, { numSamples = 2, seed = 1 }):indices(), 2)
  -- With replacement every index is uniform over 1..n: binomial counts.
  local n, m = 5, 20000
  local r = data.RandomSampler(n, { replacement = true, numSamples = m, seed = 2 })
  tester:eq(r:size(), m)
  local c = counts(r:indices(), n)
  local total = 0
  for i = 1, n do
    within_binomial(c[i], m, 1 / n, 'index ' .. i)
    total = total + c[i]
  end
  tester:eq(total, m)
  fails('numSamples must be a positive integer', function() data.RandomSampler(3, { numSamples = 0 }) end)
  fails('numSamples must be a positive integer', function() data.RandomSampler(0) end)
  fails('replacement must be a boolean', function() data.RandomSampler(3, { replacement = 1 }) end)
  fails('generator must be a torch.Generator', function() data.RandomSampler(3, { generator = 5 }) end)
  fails('a seed or a generator', function() data.RandomSampler(3, { generator = torch.Generator(), seed = 1 }) end)
end

function tests.subsetRandomSampler()
  local list = { 10, 3, 7, 22, 5 }
  local s = data.SubsetRandomSampler(list, { seed = 4 })
  tester:eq(s:size(), 5)
  local idx = s:indices(1)
  tester:eq(sorted(idx), sorted(list))
  tester:eq(idx, data.SubsetRandomSampler(torch.LongTensor(list), { seed = 4 }):indices(1))
  tester:ne(s:indices(1), s:indices(2))
  tester:eq(data.SubsetRandomSampler({}):indices(), {})
  fails('indices must be a Lua list or a tensor', function() data.SubsetRandomSampler('abc') end)
end

function tests.weightedRandomSamplerFrequencies()
  local w = { 1, 0, 3, 6 }  -- probabilities 0.1, 0, 0.3, 0.6
  local m = 20000
  local s = data.WeightedRandomSampler(w, m, { seed = 5 })
  tester:eq(s:size(), m)
  local c = counts(s:indices(), 4)
  tester:eq(c[2], 0)  -- a zero weight is never drawn
  within_binomial(c[1], m, 0.1, 'weight 1')
  within_binomial(c[3], m, 0.3, 'weight 3')
  within_binomial(c[4], m, 0.6, 'weight 6')
  -- Without replacement: distinct indices, never the zero-weight one.
  for seed = 1, 20 do
    local idx = data.WeightedRandomSampler(torch.Tensor(w), 3, { replacement = false, seed = seed }):indices()
    tester:eq(sorted(idx), { 1, 3, 4 })
  end
  local pos = data.WeightedRandomSampler(w, 2, false)  -- PyTorch's positional replacement
  tester:eq(pos.replacement, false)
  fails('cannot draw 4 indices without replacement from 3 non-zero weights', function()
    data.WeightedRandomSampler(w, 4, { replacement = false })
  end)
  fails('weights[2] is -1', function() data.WeightedRandomSampler({ 1, -1 }, 2) end)
  fails('the weights are all zero', function() data.WeightedRandomSampler({ 0, 0 }, 2) end)
  fails('numSamples must be a positive integer', function() data.WeightedRandomSampler({ 1 }, 1.5) end)
end

function tests.batchSamplerSizesAndDropLast()
  local b = data.BatchSampler(data.SequentialSampler(10), 3, false)
  tester:eq(b:size(), 4)
  tester:eq(b:batches(), { { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 9 }, { 10 } })
  local d = data.BatchSampler(data.SequentialSampler(10), 3, true)
  tester:eq(d:len(), 3)
  tester:eq(#d:batches(), 3)
  -- The batches cut the inner sampler's order of the same epoch.
  local inner = data.RandomSampler(11, { seed = 9 })
  local flat = {}
  for batch in data.BatchSampler(inner, 4, false):iter(2) do
    tester:assert(#batch == 4 or #batch == 3)
    for _, i in ipairs(batch) do flat[#flat + 1] = i end
  end
  tester:eq(flat, inner:indices(2))
  tester:eq(data.BatchSampler({ 5, 4, 3, 2, 1 }, 2, true):batches(), { { 5, 4 }, { 3, 2 } })
  -- Over a DistributedSampler (which has len() and iter() too).
  local dist = data.DistributedSampler(10, { numReplicas = 2, rank = 1, seed = 1 })
  tester:eq(dist:len(), 5)
  local fromIter = {}
  for i in dist:iter(3) do fromIter[#fromIter + 1] = i end
  tester:eq(fromIter, dist:indices(3))
  local db = data.BatchSampler(dist, 2, false)
  tester:eq(db:size(), 3)
  local fb = {}
  for _, batch in ipairs(db:batches(3)) do for _, i in ipairs(batch) do fb[#fb + 1] = i end end
  tester:eq(fb, dist:indices(3))
  fails('batchSize must be a positive integer', function() data.BatchSampler(data.SequentialSampler(3), 0, false) end)
  fails('dropLast must be a boolean', function() data.BatchSampler(data.SequentialSampler(3), 2) end)
end

function tests.loaderWithSamplers()
  local ds = dataset(13)
  local smp = data.RandomSampler(ds, { seed = 2 })
  local l = data.DataLoader(ds, { sampler = smp, batchSize = 4 })
  tester:eq(l:size(), 4)
  tester:eq(targets(l), smp:indices(1))
  tester:eq(targets(l), smp:indices(2))  -- the loader passes its epoch count
  local w = data.WeightedRandomSampler({ 0, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0 }, 30, { seed = 1 })
  for _, i in ipairs(targets(data.DataLoader(ds, { sampler = w, batchSize = 7 }))) do
    tester:assert(i == 2 or i == 3 or i == 5, 'drew zero-weight index ' .. i)
  end
  -- batchSampler: each list is one batch, with workers too.
  local bs = data.BatchSampler(data.RandomSampler(ds, { seed = 3 }), 5, false)
  for _, workers in ipairs({ 0, 2 }) do
    local lb = data.DataLoader(ds, { batchSampler = bs, workers = workers })
    tester:eq(lb:size(), 3)
    local got = {}
    for b in lb:iter() do got[#got + 1] = b.target:totable() end
    tester:eq(got, bs:batches(1))
    lb:close()
  end
  -- A custom sampler: any object with len() and iter(epoch).
  local custom = { len = function() return 3 end,
                   iter = function() local k = 0 return function() k = k + 1 if k <= 3 then return 14 - 4 * k end end end }
  tester:eq(targets(data.DataLoader(ds, { sampler = custom, batchSize = 2 })), { 10, 6, 2 })
end

function tests.loaderGeneratorAndCollateFn()
  local ds = dataset(20)
  local function run()
    local g = torch.Generator()
    torch.manualSeed(g, 8)
    local l = data.DataLoader(ds, { shuffle = true, batchSize = 6, generator = g })
    return targets(l), targets(l)
  end
  local a1, a2 = run()
  local b1, b2 = run()
  tester:eq(a1, b1)
  tester:eq(a2, b2)
  tester:ne(a1, a2)
  tester:eq(sorted(a1), range(1, 20))
  local sizes = {}
  local l = data.DataLoader(ds, { batchSize = 6, collateFn = function(samples) return #samples end })
  for n in l:iter() do sizes[#sizes + 1] = n end
  tester:eq(sizes, { 6, 6, 6, 2 })
  tester:eq(data.DataLoader(ds, { batchSize = 6, prefetchFactor = 2 }).prefetch, 2)
  tester:eq(data.DataLoader(ds, { workers = 1, prefetchFactor = 5 }).prefetch, 5)
end

-- workerInitFn runs in each worker state before its first sample; getWorkerInfo() there says
-- which worker runs (1-based) and how many there are; nil in the main state.
function tests.workerInitFnAndWorkerInfo()
  tester:eq(data.getWorkerInfo(), nil)
  local ds = dataset(24):map(function(s)
    local info = data.getWorkerInfo()
    return { target = s.target, worker = info and info.id or 0, count = info and info.numWorkers or 0,
             inited = rawget(_G, 'test_samplers_init') or -1 }
  end)
  local l = data.DataLoader(ds, { batchSize = 2, workers = 3,
    workerInitFn = function(id) rawset(_G, 'test_samplers_init', id) end })
  local seen = {}
  for b in l:iter() do
    for i = 1, 2 do
      local w = b.worker[i]
      tester:assert(w >= 1 and w <= 3, 'worker id ' .. w)
      tester:eq(b.count[i], 3)
      tester:eq(b.inited[i], w)  -- the init of that very worker ran first
      seen[#seen + 1] = b.target[i]
    end
  end
  tester:eq(seen, range(1, 24))
  l:close()
  tester:eq(rawget(_G, 'test_samplers_init'), nil)  -- it ran in the workers, not here
  local l0 = data.DataLoader(ds, { batchSize = 4, workerInitFn = function() error('not called') end })
  for b in l0:iter() do tester:eq(b.worker:sum(), 0) end
end

local function threads()  -- of this process (/proc/self in io.popen would be ls's)
  local f = io.open('/proc/self/stat')
  local pid = f:read('*a'):match('^(%d+)')
  f:close()
  local n = 0
  for _ in io.popen('ls /proc/' .. pid .. '/task'):lines() do n = n + 1 end
  return n
end

function tests.persistentWorkers()
  collectgarbage()
  local ds = dataset(12)
  local before = threads()
  local l = data.DataLoader(ds, { batchSize = 4, workers = 2, persistentWorkers = false })
  tester:eq(targets(l), range(1, 12))
  tester:eq(threads(), before)  -- stopped at the end of the epoch
  tester:eq(targets(l), range(1, 12))
  local p = data.DataLoader(ds, { batchSize = 4, workers = 2, persistentWorkers = true })
  tester:eq(targets(p), range(1, 12))
  tester:eq(threads(), before + 2)
  p:close()
  tester:eq(threads(), before)
end

function tests.pytorchExclusionRules()
  local ds = dataset(8)
  local bs = data.BatchSampler(data.SequentialSampler(8), 3, false)
  local excl = 'batchSampler option is mutually exclusive with batchSize, shuffle, sampler, and dropLast'
  fails(excl, function() data.DataLoader(ds, { batchSampler = bs, batchSize = 4 }) end)
  fails(excl, function() data.DataLoader(ds, { batchSampler = bs, shuffle = true }) end)
  fails(excl, function() data.DataLoader(ds, { batchSampler = bs, sampler = data.SequentialSampler(8) }) end)
  fails(excl, function() data.DataLoader(ds, { batchSampler = bs, dropLast = true }) end)
  fails('[DataLoader]', function() data.DataLoader(ds, { batchSampler = bs, batchSize = false }) end)
  tester:eq(data.DataLoader(ds, { batchSampler = bs, batchSize = 1 }):size(), 3)  -- 1 is PyTorch's default
  fails('sampler and shuffle', function() data.DataLoader(ds, { sampler = data.RandomSampler(8), shuffle = true }) end)
  fails('batchSampler must have size()', function() data.DataLoader(ds, { batchSampler = {} }) end)
  fails('sampler must have size()', function() data.DataLoader(ds, { sampler = { iter = function() end } }) end)
  fails('collate and collateFn are the same option', function()
    data.DataLoader(ds, { collate = function() end, collateFn = function() end })
  end)
  fails('collateFn must be a function', function() data.DataLoader(ds, { collateFn = 3 }) end)
  fails('prefetchFactor can only be given with workers > 0', function() data.DataLoader(ds, { prefetchFactor = 4 }) end)
  fails('persistentWorkers needs workers > 0', function() data.DataLoader(ds, { persistentWorkers = true }) end)
  fails('workerInitFn must be a function', function() data.DataLoader(ds, { workerInitFn = 'f' }) end)
  fails('generator must be a torch.Generator', function() data.DataLoader(ds, { generator = {} }) end)
  fails('give a seed or a generator, not both', function()
    data.DataLoader(ds, { seed = 1, generator = torch.Generator() })
  end)
  -- Raised at the caller's line, naming the DataLoader.
  local ok, err = pcall(function() return data.DataLoader(ds, { batchSampler = bs, shuffle = true }) end)
  tester:assert(not ok and err:find('test_data_samplers%.lua:%d+: %[DataLoader%] batchSampler'), err)
end

tester:add(tests)
tester:run()
