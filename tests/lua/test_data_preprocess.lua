-- Datasets (map, shuffle, split, subset, batch, concat, user objects), scalers against their
-- formulas, label encoding, one-hot, image transforms (seeded) and the progress bar's output.
local data = require 'data'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function fails(pattern, f, ...)
  local ok, err = pcall(f, ...)
  tester:assert(not ok, 'expected an error matching ' .. pattern)
  tester:assert(tostring(err):find(pattern, 1, true), tostring(err))
end

local function ids(ds)
  local out = {}
  for i = 1, ds:size() do out[i] = ds:get(i).target:item() end
  return out
end

local function numbered(n) return data.TensorDataset(torch.randn(n, 2), torch.range(1, n):long()) end

function tests.datasetsWrapEachOther()
  local ds = numbered(10)
  tester:asserteq(ds:size(), 10)
  fails('index 11 out of range 1..10', function() ds:get(11) end)
  fails('inconsistent sizes: target is 9 (9 samples) but input has 10 samples',
    data.TensorDataset, torch.randn(10, 2), torch.zeros(9))
  -- map (whole sample or one field); the wrapped sample is left alone.
  local doubled = ds:map(function(x) return x * 2 end, 'input')
  tester:assertTensorEq(doubled:get(3).input, ds:get(3).input * 2, 1e-6)
  local tagged = ds:map(function(s, i) return { input = s.input, target = s.target, i = i } end)
  tester:asserteq(tagged:get(4).i, 4)
  -- shuffle is a fixed permutation per seed.
  local a, b = ids(ds:shuffle(3)), ids(ds:shuffle(3))
  tester:assertTableEq(a, b)
  local sorted = { unpack(a) }
  table.sort(sorted)
  tester:assertTableEq(sorted, ids(ds))
  -- split: every sample in exactly one part, sizes by largest remainder.
  local p1, p2, p3 = ds:split({ 0.5, 0.25, 0.25 }, 7)
  tester:assertTableEq({ p1:size(), p2:size(), p3:size() }, { 5, 3, 2 })
  local all = {}
  for _, p in ipairs({ p1, p2, p3 }) do for _, v in ipairs(ids(p)) do all[#all + 1] = v end end
  table.sort(all)
  tester:assertTableEq(all, ids(ds))
  local c1, c2 = ds:split({ 7, 3 })
  tester:assertTableEq(ids(c1), { 1, 2, 3, 4, 5, 6, 7 })
  tester:assertTableEq(ids(c2), { 8, 9, 10 })
  fails('the parts sum to 0.9', function() ds:split({ 0.5, 0.4 }) end)
  -- subset, batch, concat.
  tester:assertTableEq(ids(ds:subset({ 3, 1 })), { 3, 1 })
  tester:assertTableEq(ids(ds:subset(torch.LongTensor({ 2, 2 }))), { 2, 2 })
  fails('index 12 at position 2 is out of range 1..10', function() ds:subset({ 1, 12 }) end)
  local batches = ds:batch(4)
  tester:asserteq(batches:size(), 3)
  tester:assertTableEq(batches:get(3).target:totable(), { 9, 10 })
  tester:asserteq(ds:batch(4, { dropLast = true }):size(), 2)
  local cat = data.ConcatDataset({ ds:subset({ 1, 2 }), numbered(3) })
  tester:asserteq(cat:size(), 5)
  tester:assertTableEq(ids(cat), { 1, 2, 1, 2, 3 })
  -- A plain object with size/get is a dataset too (torchnet's convention).
  local plain = { size = function() return 3 end, get = function(_, i) return { target = i * 10 } end }
  local got = {}
  for b in data.DataLoader(plain, { batchSize = 2 }):iter() do
    for i = 1, b.target:nElement() do got[#got + 1] = b.target[i] end
  end
  tester:assertTableEq(got, { 10, 20, 30 })
  -- ListDataset and trainTestSplit.
  local list = data.ListDataset({ 'a', 'b', 'c' }, function(s, i) return s .. i end)
  tester:asserteq(list:get(2), 'b2')
  local train, test = data.trainTestSplit(ds, 0.3, 1)
  tester:asserteq(train:size() + test:size(), 10)
  tester:asserteq(test:size(), 3)
  local xtr, xte, ytr, yte = data.trainTestSplit(torch.range(1, 10), torch.range(1, 10), 0.2, 5)
  tester:asserteq(xtr:size(1), 8)
  tester:asserteq(xte:size(1), 2)
  tester:assertTensorEq(xtr, ytr, 0)
  tester:assertTensorEq(xte, yte, 0)
end

function tests.standardScalerMatchesFormula()
  local train = torch.DoubleTensor({ { 1, 10, 5 }, { 2, 20, 5 }, { 6, 30, 5 }, { 3, 40, 5 } })
  local test = torch.DoubleTensor({ { 0, 0, 7 } })
  local s = data.StandardScaler():fit(train)
  for j = 1, 3 do
    local col = train:select(2, j)
    local mean = col:sum() / 4
    local var = 0
    for i = 1, 4 do var = var + (col[i] - mean) ^ 2 end
    local std = math.sqrt(var / 4)
    tester:assertalmosteq(s.mean[j], mean, 1e-12)
    tester:assertalmosteq(s.std[j], std, 1e-12)
    local expect = std > 0 and (test[1][j] - mean) / std or (test[1][j] - mean)
    tester:assertalmosteq(s:transform(test)[1][j], expect, 1e-12)
  end
  local z = s:transform(train)
  tester:assertalmosteq(z:select(2, 1):mean(), 0, 1e-12)
  tester:assertTensorEq(s:inverseTransform(z), train, 1e-12)
  tester:asserteq(s:transform(train:float()):type(), 'torch.FloatTensor')
  fails('fitted on 3 features, got a tensor with 2', function() s:transform(torch.zeros(2, 2)) end)
  fails('call fit(train) first', function() data.StandardScaler():transform(train) end)
  -- It serializes like any torch.class object (fit once, reuse).
  local back = torch.deserialize(torch.serialize(s))
  tester:assertTensorEq(back:transform(test), s:transform(test), 0)
end

function tests.minMaxScalerMatchesFormula()
  local train = torch.DoubleTensor({ { 1, -5 }, { 3, -5 }, { 5, -5 } })
  local s = data.MinMaxScaler({ -1, 1 }):fit(train)
  local y = s:transform(torch.DoubleTensor({ { 2, 0 }, { 7, -5 } }))
  tester:assertalmosteq(y[1][1], -1 + (2 - 1) * 2 / 4, 1e-12)
  tester:assertalmosteq(y[2][1], -1 + (7 - 1) * 2 / 4, 1e-12)  -- test data may leave the range
  tester:assertalmosteq(y[2][2], -1, 1e-12)                    -- a constant column maps to the low end
  tester:assertTensorEq(s:inverseTransform(s:transform(train)), train, 1e-12)
  fails('range must be {low, high}', data.MinMaxScaler, { 1, 0 })
end

function tests.labelsAndOneHot()
  local codes, classes = data.labelEncode({ 'dog', 'cat', 'dog', 'bird' })
  tester:assertTableEq(codes:totable(), { 3, 2, 3, 1 })
  tester:assertTableEq(classes, { 'bird', 'cat', 'dog' })
  local e = data.LabelEncoder():fit({ 3, 1, 3 })
  tester:assertTableEq(e:transform(torch.LongTensor({ 1, 3 })):totable(), { 1, 2 })
  tester:assertTableEq(e:inverseTransform({ 2, 1 }), { 3, 1 })
  fails('unknown label 2 at position 1', function() e:transform({ 2 }) end)
  local oh = data.oneHot(torch.LongTensor({ 2, 1, 3 }), 3)
  tester:assertTableEq(oh:totable(), { { 0, 1, 0 }, { 1, 0, 0 }, { 0, 0, 1 } })
  fails('label 0 at position 2 is out of range 1..3', data.oneHot, { 1, 0 }, 3)
end

function tests.imageTransforms()
  local T = data.transforms
  local img = torch.range(1, 2 * 4 * 6):view(2, 4, 6)
  local n = T.normalize({ 1, 2 }, { 2, 4 })(img)
  tester:assertalmosteq(n[2][3][4], (img[2][3][4] - 2) / 4, 1e-6)
  tester:assertTensorEq(T.hflip(T.hflip(img)), img, 0)
  tester:asserteq(T.hflip(img)[1][1][1], img[1][1][6])
  -- randomCrop with padding: every output is a window of the zero-padded image.
  local crop = T.randomCrop(4, { padding = 2 })
  local padded = torch.zeros(2, 8, 10)
  padded:narrow(2, 3, 4):narrow(3, 3, 6):copy(img)
  torch.manualSeed(1)
  for _ = 1, 20 do
    local c = crop(img)
    local found = false
    for top = 1, 5 do
      for left = 1, 7 do
        if torch.equal(padded:narrow(2, top, 4):narrow(3, left, 4), c) then found = true end
      end
    end
    tester:assert(found, 'the crop is a window of the padded image')
  end
  -- Seeded: the same seed gives the same augmentation.
  local aug = T.compose({ T.randomHorizontalFlip(), T.randomAffine{ translate = { 0.3, 0.3 } }, crop })
  torch.manualSeed(5)
  local first = aug(img)
  torch.manualSeed(5)
  tester:assertTensorEq(aug(img), first, 0)
  -- Translation keeps the content, shifted.
  local shifted = T.randomAffine{ translate = { 0.5, 0 } }
  torch.manualSeed(2)
  local s = shifted(img)
  local dx
  for d = -3, 3 do
    local ok = true
    for j = 1, 6 do
      local src = j - d
      local expect = (src >= 1 and src <= 6) and img[1][1][src] or 0
      if s[1][1][j] ~= expect then ok = false end
    end
    if ok then dx = d end
  end
  tester:assert(dx ~= nil, 'a pure horizontal shift')
  fails('crop 9x9 is larger than the padded image 8x10', function() T.randomCrop(9, { padding = 2 })(img) end)
end

function tests.progressBarOutput()
  local lines = {}
  local sink = { write = function(_, s) lines[#lines + 1] = s end, flush = function() end }
  local bar = data.ProgressBar{ total = 20, title = "epoch 1", output = sink, tty = false, interval = 0 }
  for i = 1, 20 do bar:update(i, { { 'loss', 1 / i } }) end
  bar:finish({ { 'loss', 0.05 } })
  tester:asserteq(#lines, 10)  -- nine tenths, then the final line
  tester:assert(lines[1]:find('^epoch 1 %[=*>%s+%]  2/20  .*/s  ETA %d+:%d%d  loss 0%.5000\n$'), lines[1])
  tester:assert(lines[10]:find('20/20 .* in %d+:%d%d  loss 0%.0500\n$'), lines[10])
  local tty = {}
  local bar2 = data.ProgressBar{ total = 3, output = { write = function(_, s) tty[#tty + 1] = s end, flush = function() end },
                                 tty = true }
  bar2:update(3)
  bar2:finish()
  tester:assert(tty[1]:find('^\r%[=+%] 3/3'), tty[1])
  tester:assert(tty[#tty]:find('\27%[K\n$'), 'the final line ends the redrawn line')
end

tester:add(tests)
tester:run()
