-- Regression tests of the data module found by review (2026-11-28): samplers on empty or
-- malformed inputs (PyTorch 1.13 raises where Tocha hung or flattened), DataLoader option rules,
-- dataset sugar (shuffle without a seed, ListDataset of a 2D tensor, trainTestSplit arguments),
-- preprocessing of integer tensors and NaN labels, and readers of unusual files (CSV with a
-- UTF-8 byte-order mark or old Mac line endings, CIFAR with an unknown type, IDX sizes).
local data = require 'data'
local tester = torch.Tester()
local tests = torch.TestSuite()

local tmp = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/data_regressions'
os.execute('rm -rf "' .. tmp .. '" && mkdir -p "' .. tmp .. '"')

local function write(path, bytes)
  local f = assert(io.open(path, 'wb'))
  f:write(bytes)
  f:close()
  return path
end

-- f(...) must raise an error holding `pattern` (plain text) and naming this file's line.
local function fails(pattern, f, ...)
  local ok, err = pcall(f, ...)
  tester:assert(not ok, 'expected an error matching ' .. pattern)
  tester:assert(tostring(err):find(pattern, 1, true), tostring(err))
end

local function values(ds)
  local out = {}
  for i = 1, ds:size() do out[i] = ds:get(i) end
  return out
end

-- PyTorch 1.13: RandomSampler(range(0), num_samples=5) raises (ZeroDivisionError without
-- replacement, a random_ error with it); Tocha's indices() looped forever without replacement.
function tests.randomSamplerOnAnEmptyDatasetIsAnError()
  fails('[RandomSampler] cannot draw 5 indices from an empty dataset', data.RandomSampler, 0, { numSamples = 5 })
  fails('[RandomSampler] cannot draw 5 indices from an empty dataset', data.RandomSampler, 0,
    { numSamples = 5, replacement = true })
  -- Without numSamples PyTorch's message: num_samples should be a positive integer value, got 0.
  fails('[RandomSampler] numSamples must be a positive integer, got 0', data.RandomSampler, 0)
  tester:asserteq(#data.RandomSampler(1, { numSamples = 3, seed = 1 }):indices(), 3)
end

-- The count form of DistributedSampler took negative and fractional counts (a sampler of -1
-- indices per rank, or ceil(2.5 / 2) = 2).
function tests.distributedSamplerChecksTheCount()
  fails('[DistributedSampler] argument #1: expected a dataset or a non-negative integer count, got -3',
    data.DistributedSampler, -3, { numReplicas = 2, rank = 0 })
  fails('[DistributedSampler] argument #1: expected a dataset or a non-negative integer count, got 2.5',
    data.DistributedSampler, 2.5, { numReplicas = 2, rank = 0 })
  -- PyTorch 1.13, DistributedSampler(range(5), num_replicas=2, rank=1, shuffle=False): [1, 3, 0].
  tester:assertTableEq(data.DistributedSampler(5, { numReplicas = 2, rank = 1, shuffle = false }):indices(), { 2, 4, 1 })
  tester:asserteq(#data.DistributedSampler(0, { numReplicas = 2, rank = 1 }):indices(), 0)
end

-- PyTorch 1.13: WeightedRandomSampler(torch.ones(2, 2), 2) raises "weights should be a 1d
-- sequence but given weights have shape (2, 2)"; Tocha flattened the tensor into 4 weights.
function tests.samplerTensorsMustBe1D()
  fails('[WeightedRandomSampler] weights must be a 1D tensor, got a 2x2 tensor', data.WeightedRandomSampler,
    torch.ones(2, 2), 2)
  fails('[SubsetRandomSampler] indices must be a 1D tensor, got a 2x1 tensor', data.SubsetRandomSampler,
    torch.LongTensor({ { 1 }, { 2 } }))
  fails('[BatchSampler] the sampler must be a 1D tensor, got a 1x3 tensor', data.BatchSampler,
    torch.LongTensor({ { 1, 2, 3 } }), 2, false)
  tester:assertTableEq(data.BatchSampler(torch.LongTensor({ 3, 1, 2 }), 2, false):batches(), { { 3, 1 }, { 2 } })
  tester:asserteq(data.SubsetRandomSampler(torch.LongTensor(0)):size(), 0)
  local w = data.WeightedRandomSampler(torch.Tensor({ 0, 1, 0 }), 4, { seed = 1 }):indices()
  tester:assertTableEq(w, { 2, 2, 2, 2 })
end

-- PyTorch 1.13: DataLoader(ds, batch_size=None, drop_last=True) raises "batch_size=None option
-- disables auto-batching and is mutually exclusive with drop_last".
function tests.loaderWithoutBatchingRefusesDropLast()
  local ds = data.ListDataset({ 1, 2, 3 })
  fails('[DataLoader] batchSize = false disables batching and is mutually exclusive with dropLast',
    data.DataLoader, ds, { batchSize = false, dropLast = true })
  local got = {}
  for x in data.DataLoader(ds, { batchSize = false }):iter() do got[#got + 1] = x end
  tester:assertTableEq(got, { 1, 2, 3 })
end

-- ds:shuffle() without a seed returned the samples in their own order.
function tests.shuffleWithoutASeedShuffles()
  local ds = data.ListDataset({ 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12 })
  torch.manualSeed(7)
  local a = values(ds:shuffle())
  torch.manualSeed(7)
  local b = values(ds:shuffle())
  tester:assertTableEq(a, b)  -- the seed comes from torch's generator
  local identity = true
  for i, v in ipairs(a) do identity = identity and v == i end
  tester:assert(not identity, 'ds:shuffle() must shuffle: ' .. table.concat(a, ','))
  local s = {}
  for i, v in ipairs(a) do s[i] = v end
  table.sort(s)
  tester:assertTableEq(s, values(ds))
  tester:assertTableEq(values(ds:shuffle(3)), values(ds:shuffle(3)))
end

-- ListDataset of a 2D tensor failed in [select] (index out of range) instead of naming itself.
function tests.listDatasetOfA2DTensorIsAnError()
  fails('[ListDataset] expected a list or a 1D tensor, got a 3x2 tensor', data.ListDataset, torch.ones(3, 2))
  tester:assertTableEq(values(data.ListDataset(torch.Tensor({ 4, 5 }))), { 4, 5 })
end

-- trainTestSplit(x, y) without a fraction raised "attempt to perform arithmetic on a nil value".
function tests.trainTestSplitChecksTheFractionOfTensors()
  local x, y = torch.rand(4, 2), torch.rand(4)
  fails('[trainTestSplit] testFraction must be a number in [0, 1], got nil', data.trainTestSplit, x, y)
  fails('[trainTestSplit] testFraction must be a number in [0, 1], got 1.5', data.trainTestSplit, x, y, 1.5)
  local xtr, xte, ytr, yte = data.trainTestSplit(x, y, 0.25, 1)
  tester:asserteq(xtr:size(1), 3)
  tester:asserteq(xte:size(1), 1)
  tester:asserteq(ytr:size(1), 3)
  tester:asserteq(yte:size(1), 1)
end

-- LabelEncoder:fit({1, NaN}) raised "table index is NaN".
function tests.labelEncoderRejectsNaN()
  fails('[LabelEncoder] value 2 is NaN, expected a string or a number', function()
    data.LabelEncoder():fit({ 1, 0 / 0 })
  end)
  local e = data.LabelEncoder():fit({ 1, 2 })
  fails('[LabelEncoder] unknown label nan at position 1', function() e:transform({ 0 / 0 }) end)
end

-- The scalers returned integer tensors of integer inputs, truncating the scaled values
-- (StandardScaler: -1.34 -> -1; MinMaxScaler on bytes: 0.5 -> 0). scikit-learn returns floats.
function tests.scalersOfIntegerTensorsReturnDoubles()
  local s = data.StandardScaler():fit(torch.LongTensor({ { 1 }, { 2 }, { 3 }, { 4 } }))
  local z = s:transform(torch.LongTensor({ { 1 }, { 4 } }))
  tester:asserteq(z:type(), 'torch.DoubleTensor')
  -- (x - 2.5) / sqrt(1.25), the population standard deviation (scikit-learn's StandardScaler).
  tester:assertalmosteq(z[1][1], -1.3416407864998738, 1e-12)
  tester:assertalmosteq(z[2][1], 1.3416407864998738, 1e-12)
  tester:assertalmosteq(s:inverseTransform(z)[2][1], 4, 1e-12)
  local m = data.MinMaxScaler():fit(torch.ByteTensor({ { 0 }, { 10 } }))
  local u = m:transform(torch.ByteTensor({ { 5 } }))
  tester:asserteq(u:type(), 'torch.DoubleTensor')
  tester:assertalmosteq(u[1][1], 0.5, 1e-12)
  -- Floating inputs keep their type.
  tester:asserteq(s:transform(torch.FloatTensor({ { 1 } })):type(), 'torch.FloatTensor')
  tester:asserteq(m:fitTransform(torch.FloatTensor({ 1, 3 })):type(), 'torch.FloatTensor')
end

-- A UTF-8 byte-order mark (Excel's "CSV UTF-8") stayed in the first column's name, so
-- dataset{target = 'a'} found no column a; pandas drops it.
function tests.csvByteOrderMarkIsDropped()
  local path = write(tmp .. '/bom.csv', '\239\187\191a,b\n1,2\n3,4\n')
  local t = data.readCSV(path)
  tester:assertTableEq(t.names, { 'a', 'b' })
  tester:assertTableEq(t:column('a'):totable(), { 1, 3 })
  local noheader = data.readCSV(write(tmp .. '/bom2.csv', '\239\187\1915,6\n'), { header = false })
  tester:assertTableEq(noheader:column('V1'):totable(), { 5 })
end

-- Old Mac line endings (CR only) were read as one line: 0 rows and columns named 'b\r1'...
-- Python's csv module and pandas end lines at a lone CR.
function tests.csvCarriageReturnLineEndings()
  local t = data.readCSV(write(tmp .. '/cr.csv', 'a,b\r1,2\r3,"x\ry"\r'))
  tester:asserteq(t.n, 2)
  tester:assertTableEq(t.names, { 'a', 'b' })
  tester:assertTableEq(t:column('a'):totable(), { 1, 3 })
  tester:assertTableEq(t.columns.b, { '2', 'x\ny' })
  local crlf = data.readCSV(write(tmp .. '/crlf.csv', 'a,b\r\n1,2\r\n'))
  tester:assertTableEq(crlf:column('b'):totable(), { 2 })
end

-- data.cifar10 with an unknown opts.type silently returned bytes (data.mnist raises).
function tests.cifar10RejectsAnUnknownType()
  local dir = tmp .. '/cifar'
  os.execute('mkdir -p "' .. dir .. '"')
  local record = string.char(3) .. string.rep(string.char(255), 3 * 32 * 32)
  for _, name in ipairs({ 'data_batch_1.bin', 'data_batch_2.bin', 'data_batch_3.bin', 'data_batch_4.bin',
                          'data_batch_5.bin', 'test_batch.bin' }) do
    write(dir .. '/' .. name, record)
  end
  fails("[cifar10] type must be 'float' or 'byte', got double", data.cifar10, dir, { type = 'double' })
  local train, test = data.cifar10(dir)
  tester:asserteq(train:size(), 5)
  tester:asserteq(test:get(1).target:item(), 4)
  tester:asserteq(test:get(1).input:type(), 'torch.FloatTensor')
  tester:asserteq(test:get(1).input:max(), 1)
  tester:asserteq(data.cifar10(dir, { type = 'byte' }):get(1).input:type(), 'torch.ByteTensor')
end

-- ImageFolder's extensions option given as a string raised ipairs' "table expected".
function tests.imageFolderChecksExtensions()
  fails('[ImageFolder] extensions must be a list of file extensions, got string', data.ImageFolder, tmp,
    { extensions = 'png' })
end

-- IDX header sizes are signed 32-bit integers; a size of 0xFFFFFFFF is -1.
function tests.idxHugeSizesAreErrors()
  local function be32(n)
    return string.char(math.floor(n / 2 ^ 24) % 256, math.floor(n / 2 ^ 16) % 256, math.floor(n / 256) % 256, n % 256)
  end
  local path = write(tmp .. '/huge.idx', string.char(0, 0, 8, 2) .. be32(0xFFFFFFFF) .. be32(2) .. 'ab')
  local ok, err = pcall(data.readIDX, path)
  -- the size as the signed value it is (the message printed 4294967295 next to "is negative")
  tester:assert(not ok and tostring(err):find('[idx] ' .. path .. ': size -1 of dimension 1 at byte 4 is negative', 1, true),
    tostring(err))
end

-- A collate function returning nil ended the epoch's for loop early (the rest of the batches
-- silently lost); with an iterable dataset in workers the batch was silently dropped.
function tests.collateReturningNilIsAnError()
  local function collate(samples) if samples[1] == 3 or samples[1] == 2 then return nil end return samples end
  for _, w in ipairs({ 0, 2 }) do
    local n = 0
    fails('the collate function returned nil for batch 2', function()
      for _ in data.DataLoader(data.ListDataset({ 1, 2, 3, 4, 5, 6 }), { batchSize = 2, workers = w, collate = collate }):iter() do
        n = n + 1
      end
    end)
    tester:asserteq(n, 1)
  end
  fails('the collate function returned nil for batch 1', function()
    for _ in data.DataLoader(data.IterableDataset({ 2, 4, 6 }), { batchSize = 2, collate = collate }):iter() do end
  end)
  -- Two workers: worker 2's stream starts with 2.
  fails('the collate function returned nil for worker 2 batch 1', function()
    for _ in data.DataLoader(data.IterableDataset({ 1, 2, 3, 4, 5, 6 }), { batchSize = 2, workers = 2,
        collate = collate }):iter() do end
  end)
end

-- A batch sampler given as sampler= (its items are lists) failed with workers in table.concat
-- ("invalid value (table) at index 1 in table for 'concat'", naming no function).
function tests.samplerItemsMustBeIndices()
  local ds = data.ListDataset({ 1, 2, 3, 4 })
  for _, w in ipairs({ 0, 1 }) do
    fails('[DataLoader] the sampler gave a table at position 1, expected a dataset index (a batch sampler goes in '
      .. 'batchSampler=)', function()
      for _ in data.DataLoader(ds, { sampler = data.BatchSampler(data.SequentialSampler(4), 2, false), workers = w }):iter() do end
    end)
    local bad = { size = function() return 1 end, batches = function() return { { 1, 'x' } } end }
    fails('[DataLoader] the batch sampler gave a string at position 2 of batch 1, expected a dataset index', function()
      for _ in data.DataLoader(ds, { batchSampler = bad, workers = w }):iter() do end
    end)
  end
  local got = {}
  for b in data.DataLoader(ds, { batchSampler = data.BatchSampler({ 4, 2, 1 }, 2, false), workers = 1 }):iter() do
    got[#got + 1] = table.concat(b:totable(), ',')
  end
  tester:assertTableEq(got, { '4,2', '1' })
end

-- PyTorch 1.13: DataLoader([1, 2, 3], batch_size=None, collate_fn=lambda x: x * 10) gives
-- [10, 20, 30] (with or without workers); Tocha ignored the collate function without batching.
function tests.unbatchedLoaderAppliesCollateToEachSample()
  local function times10(x) return x * 10 end
  for _, w in ipairs({ 0, 2 }) do
    local got = {}
    for x in data.DataLoader(data.ListDataset({ 1, 2, 3 }), { batchSize = false, collate = times10, workers = w }):iter() do
      got[#got + 1] = x
    end
    tester:assertTableEq(got, { 10, 20, 30 })
    got = {}
    for x in data.DataLoader(data.IterableDataset({ 1, 2, 3 }), { batchSize = false, collateFn = times10, workers = w }):iter() do
      got[#got + 1] = x
    end
    table.sort(got)
    tester:assertTableEq(got, { 10, 20, 30 })
    -- Without a collate function the samples are left as they are (no stacking of numbers).
    got = {}
    for x in data.DataLoader(data.ListDataset({ 1, 2 }), { batchSize = false, workers = w }):iter() do got[#got + 1] = x end
    tester:assertTableEq(got, { 1, 2 })
  end
  fails('the collate function returned nil for item 2', function()
    for _ in data.DataLoader(data.ListDataset({ 1, 2 }), { batchSize = false, collate = function(x)
      if x ~= 2 then return x end end }):iter() do end
  end)
end

tester:add(tests)
tester:run()
