-- torchnet's datasets (Torch7 torchnet, lua/torchnet/dataset/): sizes and contents against
-- hand-built expectations, ShuffleDataset as a seeded permutation, the batch policies, the
-- coroutine batch order, the serial iterators, and argument parsing (named and ordered forms).
-- The threaded iterator is in test_torchnet_parallel.lua.
local tnt = require 'torchnet'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function range_dataset(n)
  local data = {}
  for i = 1, n do data[i] = { input = torch.Tensor{ i, 10 * i }, target = torch.LongTensor{ i }, name = 's' .. i } end
  return tnt.TableDataset{ data = data }
end

local function values(ds, field)
  local out = {}
  for i = 1, ds:size() do
    local s = ds:get(i)
    out[i] = field and s[field] or s
  end
  return out
end

function tests.listDataset()
  local ds = tnt.ListDataset{ list = { 3, 5, 7 }, load = function(x) return { x = x * 2 } end }
  tester:eq(ds:size(), 3)
  tester:eq(values(ds, 'x'), { 6, 10, 14 })
  -- ordered form, a LongTensor list, and the path prefix
  local dl = tnt.ListDataset(torch.LongTensor{ 4, 2 }, function(x) return x end)
  tester:eq(dl:size(), 2)
  tester:eq(dl:get(2), 2)
  local dp = tnt.ListDataset{ list = { 'a.jpg', 'b.jpg' }, path = '/data', load = function(p) return p end }
  tester:eq(dp:get(2), '/data/b.jpg')
  -- from a file's lines, at most maxload of them
  local name = os.tmpname()
  local f = io.open(name, 'w'); f:write('one\ntwo\nthree\n'); f:close()
  local print0 = print; print = function() end
  local df = tnt.ListDataset{ filename = name, load = function(l) return l:upper() end, maxload = 2 }
  print = print0
  os.remove(name)
  tester:eq(df:size(), 2)
  tester:eq(df:get(2), 'TWO')
  tester:assertErrorPattern(function() ds:get(4) end, 'tnt.ListDataset.get%] index out of bound.*1..3, got 4')
  tester:assertErrorPattern(function() ds:get(0) end, 'index out of bound')
  tester:assertErrorPattern(function() tnt.ListDataset{ list = { 1 } } end, '%[tnt.ListDataset%] missing argument load')
  tester:assertErrorPattern(function() tnt.ListDataset{ list = 5, load = print } end,
    '%[tnt.ListDataset%] argument list: expected table|torch.LongTensor|tds.Hash|tds.Vec, got number 5')
  tester:assertErrorPattern(function() tnt.ListDataset{ list = {}, load = print, lod = 1 } end, 'unknown argument lod')
end

function tests.tableDataset()
  local x = torch.Tensor{ 1, 2 }
  local ds = tnt.TableDataset{ data = { { x = x, tag = { 'a' } }, { x = x * 2 } } }
  tester:eq(ds:size(), 2)
  local s = ds:get(1)
  tester:eq(s.x, x)
  s.x:fill(0); s.tag[1] = 'changed'
  tester:eq(ds:get(1).x, torch.Tensor{ 1, 2 }, 'get returns a deep copy (torchnet cloned)')
  tester:eq(ds:get(1).tag[1], 'a')
  tester:assertErrorPattern(function() tnt.TableDataset{ data = { 1, 2, [4] = 4 } } end, 'not contiguous')
  tester:assertErrorPattern(function() tnt.TableDataset({ 1, 2 }, 3) end, 'one table of named arguments')
  tester:assertErrorPattern(function() ds:get(1.5) end, 'expected an integer')
end

function tests.concatDataset()
  local a, b, c = range_dataset(2), tnt.TableDataset{ data = {} }, range_dataset(3)
  local ds = tnt.ConcatDataset{ datasets = { a, b, c } }
  tester:eq(ds:size(), 5)
  local got = {}
  for i = 1, 5 do got[i] = ds:get(i).name end
  tester:eq(got, { 's1', 's2', 's1', 's2', 's3' })
  tester:assertErrorPattern(function() tnt.ConcatDataset{ datasets = {} } end, 'empty')
  tester:assertErrorPattern(function() tnt.ConcatDataset{ datasets = { a, 3 } } end, 'datasets%[2%] should be a tnt.Dataset')
end

function tests.splitDataset()
  local base = range_dataset(10)
  local ds = tnt.SplitDataset{ dataset = base, partitions = { train = 0.7, valid = 0.3 } }
  tester:eq(ds:size(), 7, 'train selected first (sorted names)')
  tester:eq(ds:get(7).name, 's7')
  ds:select('valid')
  tester:eq(ds:size(), 3)
  tester:eq(values(ds, 'name'), { 's8', 's9', 's10' })
  -- sizes as counts, three partitions, through the dataset:split shortcut
  local s3 = base:split{ a = 2, b = 5, c = 3 }
  s3:select('b')
  tester:eq(values(s3, 'name'), { 's3', 's4', 's5', 's6', 's7' })
  s3:select('c')
  tester:eq(s3:get(1).name, 's8')
  tester:assertErrorPattern(function() s3:select('d') end, 'partition d not found %(partitions: a, b, c%)')
  tester:assertErrorPattern(function() s3:get(4) end, 'index out of bound')
  tester:assertErrorPattern(function() base:split{ a = 1 } end, 'at least two partitions')
  tester:assertErrorPattern(function() base:split{ a = 8, b = 5 } end, 'hold 13 samples, the dataset only 10')
  tester:assertErrorPattern(function() base:split{ a = -1, b = 2 } end, 'size >= 0')
end

function tests.resampleDataset()
  local base = range_dataset(4)
  local rev = tnt.ResampleDataset{ dataset = base, sampler = function(d, i) return d:size() - i + 1 end }
  tester:eq(values(rev, 'name'), { 's4', 's3', 's2', 's1' })
  local rep = base:resample(function(_, i) return (i - 1) % 2 + 1 end, 6)
  tester:eq(rep:size(), 6)
  tester:eq(values(rep, 'name'), { 's1', 's2', 's1', 's2', 's1', 's2' })
  local bad = tnt.ResampleDataset{ dataset = base, sampler = function() return 9 end }
  tester:assertErrorPattern(function() bad:get(1) end, 'sampler gave 9 for index 1, expected an integer in 1..4')
  tester:eq(tnt.ResampleDataset{ dataset = base }:get(3).name, 's3', 'identity sampler by default')
end

local function is_permutation(list, n)
  local seen = {}
  for _, v in ipairs(list) do
    if seen[v] or v < 1 or v > n then return false end
    seen[v] = true
  end
  return #list == n
end

function tests.shuffleDataset()
  local n = 20
  local base = tnt.ListDataset{ list = torch.range(1, n):long(), load = function(x) return x end }
  torch.manualSeed(7)
  local ds = tnt.ShuffleDataset{ dataset = base }
  local got = values(ds)
  torch.manualSeed(7)
  local perm = torch.randperm(n):long():totable()
  tester:eq(got, perm, 'the permutation is torch.randperm under the same seed')
  tester:assert(is_permutation(got, n))
  tester:eq(values(ds), got, 'fixed until resample')
  ds:resample()
  local again = values(ds)
  tester:assert(is_permutation(again, n))
  tester:assert(table.concat(again, ',') ~= table.concat(got, ','), 'resample draws a new permutation')
  -- a subset without replacement: distinct samples
  local sub = tnt.ShuffleDataset{ dataset = base, size = 5 }
  local s = values(sub)
  tester:eq(#s, 5)
  local seen = {}
  for _, v in ipairs(s) do tester:assert(not seen[v]); seen[v] = true end
  -- with replacement: any size, values in range, repeats happen
  torch.manualSeed(3)
  local rep = tnt.ShuffleDataset{ dataset = base, size = 200, replacement = true }
  local r = values(rep)
  tester:eq(#r, 200)
  local distinct, lo, hi = 0, math.huge, -math.huge
  seen = {}
  for _, v in ipairs(r) do
    if not seen[v] then seen[v] = true; distinct = distinct + 1 end
    lo, hi = math.min(lo, v), math.max(hi, v)
  end
  tester:assert(lo >= 1 and hi <= n and distinct <= n)
  tester:assertErrorPattern(function() tnt.ShuffleDataset{ dataset = base, size = 21 } end,
    'size %(21%) cannot be larger than the underlying dataset size %(20%)')
  tester:eq(base:shuffle():size(), n, 'dataset:shuffle() shortcut')
end

function tests.transformDataset()
  local base = range_dataset(3)
  local byKey = tnt.TransformDataset{ dataset = base, key = 'input', transform = function(x, idx) return x:sum() + idx end }
  tester:eq(values(byKey, 'input'), { 12, 24, 36 })
  tester:eq(byKey:get(1).name, 's1', 'other fields unchanged')
  local whole = base:transform(function(s, idx) return { n = s.name .. '/' .. idx } end)
  tester:eq(values(whole, 'n'), { 's1/1', 's2/2', 's3/3' })
  local many = tnt.TransformDataset{ dataset = base, transforms = {
    name = function(x) return x:upper() end, target = function(t) return t[1] * 100 end } }
  local s = many:get(2)
  tester:eq(s.name, 'S2'); tester:eq(s.target, 200)
  tester:eq(many:size(), 3)
  local missing = tnt.TransformDataset{ dataset = base, transform = function(x) return x end, key = 'nope' }
  tester:assertErrorPattern(function() missing:get(1) end, 'missing key nope in sample')
  tester:assertErrorPattern(function() tnt.TransformDataset{ dataset = base, transforms = { a = 1 } } end, 'a is a number')
end

function tests.batchDatasetPolicies()
  local base = range_dataset(7)
  local inc = tnt.BatchDataset{ dataset = base, batchsize = 3 }
  tester:eq(inc:size(), 3)
  local b1 = inc:get(1)
  tester:eq(b1.input, torch.Tensor{ { 1, 10 }, { 2, 20 }, { 3, 30 } }, 'tensor fields stacked')
  tester:eq(b1.target, torch.LongTensor{ { 1 }, { 2 }, { 3 } })
  tester:eq(torch.type(b1.target), 'torch.LongTensor')
  tester:eq(b1.name, { 's1', 's2', 's3' }, 'other fields stay lists')
  local last = inc:get(3)
  tester:eq(last.input, torch.Tensor{ { 7, 70 } }, 'include-last: a batch of 1')
  local skip = tnt.BatchDataset{ dataset = base, batchsize = 3, policy = 'skip-last' }
  tester:eq(skip:size(), 2)
  tester:assertErrorPattern(function() skip:get(3) end, 'index out of bound')
  tester:assertErrorPattern(function() tnt.BatchDataset{ dataset = base, batchsize = 3, policy = 'divisible-only' } end,
    'dataset size %(7%) is not divisible by batch size %(3%)')
  local div = tnt.BatchDataset{ dataset = base, batchsize = 7, policy = 'divisible-only' }
  tester:eq(div:size(), 1)
  tester:assertErrorPattern(function() tnt.BatchDataset{ dataset = base, batchsize = 2, policy = 'all' } end, 'invalid policy')
  tester:assertErrorPattern(function() tnt.BatchDataset{ dataset = base, batchsize = 0 } end, 'positive integer')
  -- ordered form and the shortcut
  tester:eq(tnt.BatchDataset(base, 2):size(), 4)
  tester:eq(base:batch(2, nil, nil, 'skip-last'):size(), 3)
  tester:eq(base:batch{ batchsize = 4 }:size(), 2)
end

function tests.batchDatasetPermMergeFilter()
  local base = range_dataset(6)
  local sizes = {}
  local rev = tnt.BatchDataset{ dataset = base, batchsize = 4,
    perm = function(idx, size) sizes[#sizes + 1] = size; return size - idx + 1 end }
  tester:eq(rev:get(1).name, { 's6', 's5', 's4', 's3' })
  tester:eq(rev:get(2).name, { 's2', 's1' })
  tester:eq(sizes[1], 6, 'perm gets the dataset size')
  local merged = tnt.BatchDataset{ dataset = base, batchsize = 3,
    merge = function(fields) return { count = #fields.name, first = fields.name[1] } end }
  tester:eq(merged:get(2), { count = 3, first = 's4' })
  local even = tnt.BatchDataset{ dataset = base, batchsize = 3, filter = function(s) return s.target[1] % 2 == 0 end }
  tester:eq(even:get(1).name, { 's2' })
  tester:eq(even:get(2).name, { 's4', 's6' })
  -- a batch of same-sized tensors of different shapes still stacks (element count, as Torch7)
  local odd = tnt.TableDataset{ data = { { x = torch.ones(2, 2) }, { x = torch.zeros(4) } } }
  tester:eq(odd:batch(2):get(1).x:size():totable(), { 2, 2, 2 })
  local mixed = tnt.TableDataset{ data = { { x = torch.ones(2) }, { x = torch.ones(3) } } }
  tester:eq(#mixed:batch(2):get(1).x, 2, 'tensors of different sizes are left as a list')
end

function tests.coroutineBatchDataset()
  -- a dataset that queues its index, yields, then returns: all the gets of a batch start first
  local events = {}
  local D = torch.getmetatable('tnt.Dataset')
  local ds = tnt.ListDataset{ list = { 1, 2, 3, 4, 5 }, load = function(x)
    events[#events + 1] = 'prepare ' .. x
    coroutine.yield()
    events[#events + 1] = 'return ' .. x
    return { x = torch.Tensor{ x } }
  end }
  local cb = tnt.CoroutineBatchDataset{ dataset = ds, batchsize = 3 }
  tester:eq(cb:size(), 2)
  local b = cb:get(1)
  tester:eq(b.x, torch.Tensor{ { 1 }, { 2 }, { 3 } })
  tester:eq(events, { 'prepare 1', 'prepare 2', 'prepare 3', 'return 1', 'return 2', 'return 3' })
  tester:eq(cb:get(2).x, torch.Tensor{ { 4 }, { 5 } })
  -- a dataset that does not yield works too
  tester:eq(tnt.CoroutineBatchDataset{ dataset = range_dataset(3), batchsize = 2 }:get(2).name, { 's3' })
  local failing = tnt.ListDataset{ list = { 1 }, load = function() error('broken sample') end }
  tester:assertErrorPattern(function() tnt.CoroutineBatchDataset{ dataset = failing, batchsize = 1 }:get(1) end,
    'dataset threw error: .*broken sample')
  tester:assert(D ~= nil)
end

function tests.datasetIterator()
  local base = range_dataset(5)
  local it = tnt.DatasetIterator{ dataset = base }
  local got = {}
  for s in it() do got[#got + 1] = s.name end
  tester:eq(got, { 's1', 's2', 's3', 's4', 's5' })
  got = {}
  for s in it:run() do got[#got + 1] = s.name end
  tester:eq(#got, 5, 'run() again starts over')
  local odd = tnt.DatasetIterator{ dataset = base, transform = function(s) return s.target[1] end,
    filter = function(v) return v % 2 == 1 end }
  got = {}
  for v in odd() do got[#got + 1] = v end
  tester:eq(got, { 1, 3, 5 }, 'filter sees the transformed sample')
  local chained = base:iterator():transform(function(s) return s.target[1] * 10 end):filter(function(v) return v > 20 end)
  got = {}
  for v in chained() do got[#got + 1] = v end
  tester:eq(got, { 30, 40, 50 })
  tester:eq(chained:exec('size'), 5, 'exec reaches the dataset through the iterators')
  -- the size is read at each run: a shuffled dataset resampled through exec between epochs
  local sh = tnt.DatasetIterator{ dataset = base:shuffle() }
  sh:exec('resample')
  local n = 0
  for _ in sh() do n = n + 1 end
  tester:eq(n, 5)
  tester:assertErrorPattern(function() it:exec('nothing') end, 'unknown function <nothing>')
  tester:assertErrorPattern(function() tnt.DatasetIterator{ dataset = 3 } end, 'argument dataset: expected tnt.Dataset, got number')
end

function tests.argumentForms()
  local argcheck = require 'torchnet.argcheck'
  local parse = argcheck.parser{ name = 'f', { name = 'tbl', type = 'table' }, { name = 'k', type = 'number', default = 2 } }
  local t, k = parse{ tbl = { 1 } }
  tester:eq(t, { 1 }); tester:eq(k, 2)
  t, k = parse({ 5, 6 }, 3)
  tester:eq(t, { 5, 6 }); tester:eq(k, 3)
  t = parse{ 7 }
  tester:eq(t, { 7 }, 'integer keys: ordered')
  t = parse{ foo = 1 }
  tester:eq(t, { foo = 1 }, 'unknown names on a table first parameter: ordered')
  tester:assertErrorPattern(function() parse(1) end, '%[f%] argument tbl: expected table, got number 1')
  tester:assertErrorPattern(function() parse({}, 1, 2) end, 'too many arguments')
  local d = argcheck.parser{ name = 'g', { name = 'lr', type = 'number' }, { name = 'lrc', type = 'number', defaulta = 'lr' } }
  local lr, lrc = d{ lr = 0.5 }
  tester:eq(lrc, 0.5, 'defaulta copies another argument')
  lr, lrc = d(0.5, 0.1)
  tester:eq(lrc, 0.1)
end

tester:add(tests)
tester:run()
