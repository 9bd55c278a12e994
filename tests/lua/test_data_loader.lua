-- data.DataLoader: order and determinism, workers = 0 and 4 give identical batches (random
-- transforms included), dropLast, errors raised with the worker's traceback, and shutdown (close,
-- collection, an abandoned epoch, Ctrl-C) leaving no thread behind.
local data = require 'data'
local ffi = require 'ffi'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function dataset(n)
  local x = torch.range(1, n):view(n, 1)
  local y = torch.range(1, n):long()
  return data.TensorDataset(x, y)
end

local function targets(loader)
  local out = {}
  for b in loader:iter() do
    for i = 1, b.target:nElement() do out[#out + 1] = b.target[i] end
  end
  return out
end

local function threads()
  local f = io.open('/proc/self/stat')
  local pid = f:read('*a'):match('^(%d+)')
  f:close()
  local n = 0
  for _ in io.popen('ls /proc/' .. pid .. '/task'):lines() do n = n + 1 end
  return n
end

function tests.sequentialOrderAndSizes()
  local l = data.DataLoader(dataset(10), { batchSize = 4 })
  tester:asserteq(l:size(), 3)
  local sizes = {}
  for b in l:iter() do
    sizes[#sizes + 1] = b.input:size(1)
    tester:asserteq(b.input:dim(), 2)
    tester:asserteq(b.target:type(), 'torch.LongTensor')
  end
  tester:assertTableEq(sizes, { 4, 4, 2 })
  tester:assertTableEq(targets(l), { 1, 2, 3, 4, 5, 6, 7, 8, 9, 10 })
  local d = data.DataLoader(dataset(10), { batchSize = 4, dropLast = true })
  tester:asserteq(d:size(), 2)
  tester:assertTableEq(targets(d), { 1, 2, 3, 4, 5, 6, 7, 8 })
  local single = data.DataLoader(dataset(3), { batchSize = false })
  local seen = {}
  for s in single:iter() do seen[#seen + 1] = s.target:item() end
  tester:assertTableEq(seen, { 1, 2, 3 })
end

function tests.shuffleIsAPermutationDeterministicForASeed()
  local a = targets(data.DataLoader(dataset(50), { batchSize = 7, shuffle = true, seed = 5 }))
  local b = targets(data.DataLoader(dataset(50), { batchSize = 7, shuffle = true, seed = 5 }))
  local c = targets(data.DataLoader(dataset(50), { batchSize = 7, shuffle = true, seed = 6 }))
  tester:assertTableEq(a, b)
  tester:assert(table.concat(a, ',') ~= table.concat(c, ','), 'another seed, another order')
  local sorted = {}
  for i, v in ipairs(a) do sorted[i] = v end
  table.sort(sorted)
  for i = 1, 50 do tester:asserteq(sorted[i], i) end
  -- Each epoch has its own order; the sequence of epochs repeats for the same seed.
  local l1 = data.DataLoader(dataset(20), { shuffle = true, seed = 1 })
  local l2 = data.DataLoader(dataset(20), { shuffle = true, seed = 1 })
  local e1, e2 = targets(l1), targets(l1)
  tester:assert(table.concat(e1, ',') ~= table.concat(e2, ','))
  tester:assertTableEq(targets(l2), e1)
  tester:assertTableEq(targets(l2), e2)
  -- Without a seed the order follows torch's generator.
  torch.manualSeed(3)
  local u1 = targets(data.DataLoader(dataset(20), { shuffle = true }))
  torch.manualSeed(3)
  tester:assertTableEq(targets(data.DataLoader(dataset(20), { shuffle = true })), u1)
end

-- A transform with an upvalue table, randomness and the sample index: workers = 0 and 4 agree.
local function augmented(n)
  local x = torch.randn(n, 3, 6, 6)
  local y = torch.LongTensor(n):random(1, 10)
  local cfg = { scale = 2 }
  return data.TensorDataset(x, y):map(function(s, i)
    local out = s.input:clone():mul(cfg.scale):add(torch.rand(3, 6, 6))
    return { input = out, target = s.target, index = i, name = 'sample' .. i }
  end)
end

function tests.workersGiveIdenticalBatches()
  local ds = augmented(90)
  local function run(w)
    local l = data.DataLoader(ds, { batchSize = 8, shuffle = true, seed = 11, workers = w, prefetch = 2 })
    local out = {}
    for _ = 1, 2 do
      for b in l:iter() do out[#out + 1] = b end
    end
    l:close()
    return out
  end
  local a, b = run(0), run(4)
  tester:asserteq(#a, 24)
  tester:asserteq(#b, #a)
  for k = 1, #a do
    tester:assert(torch.equal(a[k].input, b[k].input), 'input of batch ' .. k)
    tester:assert(torch.equal(a[k].target, b[k].target), 'target of batch ' .. k)
    tester:assert(torch.equal(a[k].index, b[k].index), 'index of batch ' .. k)
    tester:assertTableEq(a[k].name, b[k].name)
  end
  -- The main state's random stream is untouched by workers = 0.
  torch.manualSeed(9)
  local expect = torch.rand(1)[1]
  torch.manualSeed(9)
  run(0)
  tester:asserteq(torch.rand(1)[1], expect)
end

function tests.workerTensorsAreSharedNotCopied()
  local x = torch.zeros(4, 2)
  local l = data.DataLoader(data.TensorDataset(x), { batchSize = false, workers = 2 })
  local rows = {}
  for s in l:iter() do rows[#rows + 1] = s.input end
  x:fill(7)  -- the rows the workers returned are views of x
  for _, r in ipairs(rows) do tester:asserteq(r:sum(), 14) end
  l:close()
end

-- A dataset class from a module the worker can require, and a constructor spec.
function tests.userDatasetsInWorkers()
  package.loaded['test_data_loader_ds'] = nil
  local dir = os.getenv('TOCHA_TEST_TMP') or '/tmp'
  package.path = dir .. '/?.lua;' .. package.path
  local f = io.open(dir .. '/test_data_loader_ds.lua', 'w')
  f:write([[
local M = {}
local Squares = torch.class('testds.Squares', M)
function Squares:__init(n) self.n = n end
function Squares:size() return self.n end
function Squares:get(i) return { input = torch.Tensor({ i * i }), target = i } end
function M.make(n) return M.Squares(n) end
return M
]])
  f:close()
  local M = require 'test_data_loader_ds'
  for _, ds in ipairs({ M.Squares(9), { module = 'test_data_loader_ds', constructor = 'make', args = { 9 } } }) do
    local l = data.DataLoader(ds, { batchSize = 4, workers = 2 })
    local got = {}
    for b in l:iter() do
      for i = 1, b.input:size(1) do got[#got + 1] = b.input[i][1] end
    end
    tester:assertTableEq(got, { 1, 4, 9, 16, 25, 36, 49, 64, 81 })
    l:close()
  end
  -- A class defined in the script itself cannot be rebuilt in a worker: a clear error.
  local Local = torch.class('testds.LocalOnly')
  function Local:size() return 3 end
  function Local:get(i) return { input = torch.Tensor({ i }) } end
  local ok, err = pcall(function() for _ in data.DataLoader(testds.LocalOnly(), { workers = 1 }):iter() do end end)
  tester:assert(not ok)
  tester:assert(tostring(err):find('testds.LocalOnly is not defined in the worker state', 1, true), err)
end

function tests.workerErrorsCarryTheirTraceback()
  local ds = dataset(40):map(function(s, i)
    if i == 29 then error('cannot decode sample ' .. i) end
    return s
  end)
  for _, w in ipairs({ 0, 2 }) do
    local l = data.DataLoader(ds, { batchSize = 8, workers = w })
    local n = 0
    local ok, err = pcall(function() for _ in l:iter() do n = n + 1 end end)
    tester:assert(not ok)
    tester:asserteq(n, 3)
    tester:assert(err:find('test_data_loader.lua:%d+: cannot decode sample 29'), err)
    if w > 0 then
      tester:assert(err:find('stack traceback', 1, true), 'worker traceback: ' .. err)
      tester:assert(err:find('batch 4 (dataset indices 25,26,27,28,29,30,31,32)', 1, true), err)
    end
    -- The loader is usable again after the failed epoch.
    tester:asserteq(#targets(data.DataLoader(dataset(5), { workers = w })), 5)
    l:close()
  end
end

function tests.badInputIsAClearError()
  local function fails(pattern, f)
    local ok, err = pcall(f)
    tester:assert(not ok, 'expected an error matching ' .. pattern)
    tester:assert(tostring(err):find(pattern, 1, true), tostring(err))
  end
  fails('expected a dataset', function() data.DataLoader({}, {}) end)
  fails('unknown option batchsize', function() data.DataLoader(dataset(3), { batchsize = 2 }) end)
  fails('batchSize must be a positive integer', function() data.DataLoader(dataset(3), { batchSize = 0 }) end)
  fails('workers must be an integer', function() data.DataLoader(dataset(3), { workers = -1 }) end)
  local mixed = data.ListDataset({ 1, 2, 3 }, function(i) return { input = torch.zeros(i == 3 and 5 or 4) } end)
  for _, w in ipairs({ 0, 1 }) do
    fails('sample 3 (dataset index 3) field input: size 5 differs from sample 1\'s 4', function()
      for _ in data.DataLoader(mixed, { batchSize = 3, workers = w }):iter() do end
    end)
  end
  local holes = data.ListDataset({ 1, 2 }, function(i) if i == 2 then return nil end return i end)
  fails('dataset:get(2) returned nil', function() for _ in data.DataLoader(holes, { batchSize = 2 }):iter() do end end)
  fails('cannot send a cdata value', function()
    local g = torch.Generator()
    local ds = dataset(3):map(function(s) return s end)
    ds.gen = g
    for _ in data.DataLoader(ds, { workers = 1 }):iter() do end
  end)
end

function tests.shutdownLeavesNoThreads()
  collectgarbage()
  local before = threads()
  local slow = dataset(200):map(function(s)
    local t = os.clock()
    while os.clock() - t < 0.002 do end
    return s
  end)
  -- Abandon an epoch early, start another, then close while workers are busy.
  local l = data.DataLoader(slow, { batchSize = 4, workers = 3, prefetch = 2 })
  tester:asserteq(threads(), before)  -- workers start with the first epoch
  local it = l:iter()
  it()
  tester:asserteq(threads(), before + 3)
  local n = 0
  for _ in l:iter() do
    n = n + 1
    if n == 3 then break end
  end
  tester:assertErrorPattern(it, 'replaced by a newer')
  l:close()
  tester:asserteq(threads(), before)
  -- A loader dropped in the middle of an epoch is stopped by the collector.
  local l2 = data.DataLoader(slow, { batchSize = 4, workers = 2 })
  local it2 = l2:iter()
  it2()
  l2, it2 = nil, nil
  collectgarbage()
  collectgarbage()
  tester:asserteq(threads(), before)
end

-- Ctrl-C while the main thread waits for a batch: a worker sends SIGINT to the process; the
-- main thread gets "[interrupt] interrupted", and the loader works again afterwards.
function tests.ctrlCStopsTheWait()
  local ok_sig, sig = pcall(require, 'tocha.sigint')
  if not ok_sig then return end
  sig.install()
  local ds = dataset(64):map(function(s, i)
    if i == 20 then
      local ffi_ = require 'ffi'
      pcall(ffi_.cdef, 'int kill(int pid, int sig); int getpid(void);')
      ffi_.C.kill(ffi_.C.getpid(), 2)
      local t = os.clock()
      while os.clock() - t < 0.3 do end  -- the main thread is still waiting for this batch
    end
    return s
  end)
  local l = data.DataLoader(ds, { batchSize = 4, workers = 2 })
  local n = 0
  local ok, err = pcall(function() for _ in l:iter() do n = n + 1 end end)
  sig.reset()
  tester:assert(not ok)
  tester:assert(tostring(err):find('[interrupt] interrupted', 1, true), tostring(err))
  tester:assert(n < 16)
  tester:asserteq(#targets(data.DataLoader(dataset(6), { workers = 2 })), 6)
  l:close()
end

-- Worker states load torch too; the main state's autograd callbacks must stay its own.
function tests.mainStateAutogradSurvivesWorkers()
  require 'nn'
  local l = data.DataLoader(dataset(8), { batchSize = 4, workers = 2 })
  for _ in l:iter() do end
  l:close()
  local m = nn.Linear(3, 2)
  local loss = nn.MSECriterion()(m(torch.randn(4, 3)), torch.zeros(4, 2))
  loss:backward()
  tester:assertgt(m.gradWeight:norm(), 0)
end

tester:add(tests)
tester:run()
