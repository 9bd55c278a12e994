-- threads (Torch7's torch/threads on the data loader's worker threads): results and callbacks,
-- synchronize, init functions and __threadid, upvalues and tensors (copied, or shared with
-- threads.sharedserialize), specific mode, errors raised on the main state with the worker's
-- traceback, terminate (threads joined), and an fb.resnet.torch-style loader loop.
local threads = require 'threads'
local tester = torch.Tester()
local tests = torch.TestSuite()

-- Each test makes its own pools and leaves the default serialization.
local function pool(n, ...)
  threads.serialization('threads.serialize')
  return threads.Threads(n, ...)
end

local function count_threads()
  local f = io.open('/proc/self/stat')
  local pid = f:read('*a'):match('^(%d+)')
  f:close()
  local n = 0
  for _ in io.popen('ls /proc/' .. pid .. '/task'):lines() do n = n + 1 end
  return n
end

function tests.resultsAndCallbacks()
  local p = pool(3)
  tester:eq(p.N, 3)
  local got, order = {}, {}
  for i = 1, 20 do
    p:addjob(function(x) return x, nil, x * x, __threadid end,
      function(a, b, c, tid, extra)
        tester:eq(b, nil) tester:eq(extra, nil)
        got[a] = (got[a] or 0) + 1
        order[#order + 1] = a
        tester:assert(c == a * a and tid >= 1 and tid <= 3, 'results of job ' .. a)
      end, i)
  end
  p:synchronize()
  tester:assert(not p:hasjob())
  for i = 1, 20 do
    tester:eq(got[i], 1, 'job ' .. i .. ' ran once')
    tester:eq(order[i], i, 'callbacks in submission order (Note [Delivery order])')
  end
  -- Several results, and none: the callback gets exactly what the job returned.
  local n
  p:addjob(function() return end, function(...) n = select('#', ...) end)
  p:synchronize()
  tester:eq(n, 0)
  -- No callback: fine.
  p:addjob(function() return 1 end)
  tester:assert(p:hasjob())
  p:dojob()
  tester:assert(not p:hasjob())
  tester:assertErrorPattern(function() p:dojob() end, 'threads.dojob%] no job is pending')
  p:terminate()
end

function tests.synchronizeWaits()
  local p = pool(2)
  local done = 0
  local t = torch.tic()
  for _ = 1, 4 do
    p:addjob(function()
      local t0 = torch.tic()
      while torch.toc(t0) < 0.05 do end
      return 1
    end, function(x) done = done + x end)
  end
  p:synchronize()
  tester:eq(done, 4, 'every callback ran before synchronize returned')
  tester:assert(torch.toc(t) >= 0.09, 'two threads need two rounds of 50 ms')
  tester:assert(not p:hasjob())
  p:terminate()
end

function tests.initFunctionsPerWorker()
  local msg = 'hello'
  local p, res = pool(3,
    function() require 'torch' end,
    function(idx) gmsg = msg .. idx end,
    function(idx) tid = idx return idx * 10, __threadid end)
  tester:eq(#res, 3)
  for i = 1, 3 do tester:eq(res[i], { i * 10, i }, 'last init result of thread ' .. i) end
  p:specific(true)
  for i = 1, 3 do
    p:addjob(i, function() return gmsg, tid, __threadid end, function(m, t, id)
      tester:eq(m, 'hello' .. i) tester:eq(t, i) tester:eq(id, i)
    end)
  end
  p:synchronize()
  p:terminate()
  -- Globals are the thread's even for functions with another environment (a setfenv'd chunk,
  -- as the docs tests run code): Note [Thread globals].
  local chunk = loadstring([[
    local threads = ...
    local p = threads.Threads(2, function(idx) gval = idx * 2 end)
    local got = {}
    for i = 1, 4 do p:addjob(function() return gval, __threadid end, function(v, id) got[#got + 1] = v == 2 * id end) end
    p:terminate()
    return got
  ]])
  setfenv(chunk, setmetatable({}, { __index = _G }))
  tester:eq(chunk(threads), { true, true, true, true })
  -- Without init functions, each thread still reports an (empty) result.
  local q, r = pool(2)
  tester:eq(r, { {}, {} })
  q:terminate()
end

function tests.upvaluesAndTensorsCopied()
  local p = pool(2)
  local cfg = { scale = 3, names = { 'a', 'b' } }
  local function helper(x) return x * cfg.scale end
  local x = torch.range(1, 4)
  local back
  p:addjob(function(t, s)
    t:mul(100)  -- a copy: the main state's x does not change
    return helper(t:sum()), cfg.names[2] .. s, t
  end, function(v, name, t) tester:eq(v, 3000) tester:eq(name, 'bc') back = t end, x, 'c')
  p:synchronize()
  tester:eq(x, torch.range(1, 4), 'threads.serialize copies the tensors a job gets')
  local st = torch.FloatStorage(2):fill(1)
  p:addjob(function(s) s[1] = 5 return s[1] end, function(v) tester:eq(v, 5) end, st)
  p:synchronize()
  tester:eq(st[1], 1, 'and storages')
  tester:eq(back, torch.range(1, 4) * 100)
  -- What a worker returns is a copy too: its later writes do not show.
  p:specific(true)
  p:addjob(1, function() buf = torch.zeros(3) return buf end, function(t) back = t end)
  p:addjob(1, function() buf:fill(5) end)
  p:synchronize()
  tester:eq(back:sum(), 0)
  p:terminate()
end

function tests.sharedSerializeShares()
  threads.serialization('threads.sharedserialize')
  tester:eq(threads.serialization(), 'threads.sharedserialize')
  local p = threads.Threads(2)
  threads.serialization('threads.serialize')
  local xs = {}
  for i = 1, 6 do xs[i] = torch.ones(5) end
  for i = 1, 6 do p:addjob(function() xs[i]:add(1) return __threadid end) end
  local y = torch.zeros(2)
  p:addjob(function(t) t:fill(3) end, nil, y:narrow(1, 2, 1))
  p:synchronize()
  for i = 1, 6 do tester:eq(xs[i]:sum(), 10, 'a worker\'s write is seen (upvalue tensor ' .. i .. ')') end
  tester:eq(y, torch.Tensor({ 0, 3 }), 'a view argument writes into the main state\'s storage')
  -- Storages are shared too (torch/threads' test-threads-shared.lua).
  local st = torch.FloatStorage(4):fill(1)
  p:addjob(function(s) torch.FloatTensor(s):add(1) return s end, function(s) tester:eq(torch.type(s), 'torch.FloatStorage') end, st)
  p:synchronize()
  tester:eq(st[4], 2, 'a worker\'s write into a storage is seen')
  -- A tensor a worker returns is the worker's own: a later write there shows here.
  p:specific(true)
  local back
  p:addjob(2, function() buf = torch.zeros(3) return buf end, function(t) back = t end)
  p:addjob(2, function() buf:fill(5) end)
  p:synchronize()
  tester:eq(back:sum(), 15)
  p:terminate()
end

-- Note [Job tensors]: the references a job's tensors get are dropped once it is delivered, or
-- once its thread is joined (terminate, or a pool collected with jobs still queued).
function tests.jobTensorsReleased()
  local C = require('torch.lib').C
  threads.serialization('threads.sharedserialize')
  local p = threads.Threads(2)
  threads.serialization('threads.serialize')
  local x = torch.zeros(3)
  local refs = C.tocha_tensor_use_count(x.p)
  for _ = 1, 5 do p:addjob(function(t) t:add(1) end, nil, x) end
  p:synchronize()
  -- (the workers' own handles go with their next collection)
  p:specific(true)
  for i = 1, 2 do p:addjob(i, function() collectgarbage() collectgarbage() end) end
  p:specific(false)
  collectgarbage() collectgarbage()
  tester:eq(x:sum(), 15)
  tester:eq(C.tocha_tensor_use_count(x.p), refs, 'delivered jobs hold no reference')
  for _ = 1, 4 do p:addjob(function(t) local t0 = torch.tic() while torch.toc(t0) < 0.01 do end end, nil, x) end
  p = nil
  collectgarbage() collectgarbage()
  tester:eq(C.tocha_tensor_use_count(x.p), refs, 'a collected pool releases its queued jobs\' tensors')
end

function tests.specificMode()
  local p = pool(3)
  tester:eq(p:specific(), false)
  p:specific(true)
  tester:eq(p:specific(), true)
  local ran = {}
  for _ = 1, 2 do
    for i = 3, 1, -1 do
      p:addjob(i, function(k) return __threadid, k end, function(id, k) ran[#ran + 1] = id tester:eq(id, k) end, i)
    end
  end
  p:synchronize()
  tester:eq(ran, { 3, 2, 1, 3, 2, 1 })
  tester:assert(p:acceptsjob(2))
  tester:assertErrorPattern(function() p:addjob(4, function() end) end, 'expected a thread index in 1..3, got 4')
  tester:assertErrorPattern(function() p:addjob(function() end) end, 'expected a thread index')
  tester:assertErrorPattern(function() p:acceptsjob() end, 'expected a thread index')
  -- Jobs beyond a thread's room wait (addjob runs dojob): all run, on the chosen thread.
  local n = 0
  for _ = 1, 7 do p:addjob(2, function() return __threadid end, function(id) if id == 2 then n = n + 1 end end) end
  p:synchronize()
  tester:eq(n, 7)
  p:specific(false)
  tester:assert(p:acceptsjob())
  tester:assertErrorPattern(function() p:specific('yes') end, 'expected a boolean')
  p:terminate()
end

function tests.errorsSurfaceOnMainThread()
  local p = pool(2)
  local after = 0
  p:addjob(function() return 1 end, function() after = after + 1 end)
  p:addjob(function() error('boom in a job') end, function() after = after + 100 end)
  p:addjob(function() return 1 end, function() after = after + 1 end)
  local ok, err = pcall(p.synchronize, p)
  tester:assert(not ok)
  tester:assert(err:find('^%[thread %d callback%] .*boom in a job'), err)
  tester:assert(err:find('stack traceback', 1, true), 'the worker\'s traceback: ' .. err)
  tester:eq(after, 1, 'the failed job\'s callback does not run')
  tester:assert(p:hasjob(), 'the jobs after the error are still pending')
  p:synchronize()
  tester:eq(after, 2)
  -- The pool stays usable; an error in a callback is named as such.
  p:addjob(function() return 2 end, function() error('bad callback') end)
  tester:assertErrorPattern(function() p:synchronize() end, '%[thread %d endcallback%] .*bad callback')
  local v
  p:addjob(function() return 42 end, function(x) v = x end)
  p:synchronize()
  tester:eq(v, 42)
  -- What cannot travel is named.
  local co = coroutine.create(function() end)
  tester:assertErrorPattern(function() p:addjob(function() return co end) end, '%[threads%] cannot send a thread.*upvalue co')
  p:addjob(function() return coroutine.create(function() end) end)
  tester:assertErrorPattern(function() p:synchronize() end, 'callback%] %[threads%] cannot send a thread from a worker')
  tester:assertErrorPattern(function() p:addjob('f') end, 'threads.addjob%] expected a function %(the job%), got string')
  tester:assertErrorPattern(function() p:addjob(function() end, 3) end, 'expected a function or nil %(the callback%)')
  p:terminate()
end

function tests.constructorErrors()
  tester:assertErrorPattern(function() threads.Threads(0) end, 'number of threads must be an integer in 1..256, got 0')
  tester:assertErrorPattern(function() threads.Threads(2, 'init') end, 'init function 1 is a string')
  local before = count_threads()
  tester:assertErrorPattern(function() pool(2, function(idx) if idx == 2 then error('init failed') end end) end,
    '%[thread 2 callback%] .*init failed')
  collectgarbage() collectgarbage()
  tester:eq(count_threads(), before, 'a failed constructor stops its threads')
  threads.serialization('threads.nosuch')
  tester:assertErrorPattern(function() threads.Threads(1) end, "serialization 'threads.nosuch' is not supported")
  threads.serialization('threads.serialize')
  tester:assertErrorPattern(function() threads.serialization(3) end, 'expected a module name')
end

function tests.terminateJoins()
  local before = count_threads()
  local p = pool(3)
  tester:eq(count_threads(), before + 3)
  local done = 0
  for _ = 1, 5 do
    p:addjob(function() local t = torch.tic() while torch.toc(t) < 0.02 do end end, function() done = done + 1 end)
  end
  p:terminate()
  tester:eq(done, 5, 'terminate finishes the pending jobs')
  tester:eq(count_threads(), before, 'terminate joins the threads')
  tester:assert(not p:isrunning())
  tester:assertErrorPattern(function() p:addjob(function() end) end, 'thread system is not running')
  p:terminate()  -- again: nothing
  p:synchronize()
  -- A job error during terminate: raised after the threads stopped.
  local q = pool(2)
  q:addjob(function() error('late') end)
  q:addjob(function() return 1 end)
  tester:assertErrorPattern(function() q:terminate() end, 'late')
  tester:assert(not q:isrunning())
  tester:eq(count_threads(), before)
  -- A pool that is only collected stops its threads too.
  local r = pool(2)
  r:addjob(function() return 1 end)
  r = nil
  collectgarbage() collectgarbage()
  tester:eq(count_threads(), before, 'a collected pool joins its threads')
end

-- The same, guarded: in a child process under `timeout`, so that a hang fails instead of blocking.
function tests.terminateDoesNotHang()
  local exe = arg and arg[-1]
  if not exe or not exe:find('tocha') or os.execute('command -v timeout >/dev/null 2>&1') ~= 0 then return end
  local script = [[
    local threads = require 'threads'
    local p = threads.Threads(2)
    for i = 1, 6 do p:addjob(function() if i == 3 then error('x') end return i end) end
    pcall(p.synchronize, p)
    p:terminate()
    local q = threads.Threads(2)
    q:addjob(function() error('y') end)
    pcall(q.terminate, q)
    io.write('OK')
  ]]
  local cmd = string.format('LUA_PATH=%q timeout 20 %q -e %q 2>&1', package.path, exe, script)
  local f = io.popen(cmd)
  local out = f:read('*a')
  f:close()
  tester:eq(out, 'OK', 'terminate after errors returns (no hang): ' .. out)
end

function tests.backwardCompatibleModule()
  local Threads = require 'threads'
  local p = Threads(1, function(idx) return idx end)
  tester:eq(p.N, 1)
  tester:eq(Threads.serialization(), 'threads.serialize')
  tester:eq(threads.Threads.serialization(), 'threads.serialize')
  tester:eq(p:haserror(), false)
  p:terminate()
end

-- fb.resnet.torch's dataloader.lua, as written there (apart from the dataset): a class defined in
-- a module the workers require, shared tensors, acceptsjob/addjob/hasjob/dojob/haserror.
function tests.fbResnetStyleLoader()
  local dir = os.tmpname()
  os.remove(dir)
  os.execute('mkdir -p ' .. dir .. '/tinyds')
  local f = assert(io.open(dir .. '/tinyds/init.lua', 'w'))
  f:write([[
local M = {}
local TinyDataset = torch.class('tinyds.TinyDataset', M)
function TinyDataset:__init(n) self.x = torch.range(1, n) self.n = n end
function TinyDataset:size() return self.n end
function TinyDataset:get(i) return { input = torch.Tensor(2, 2):fill(self.x[i]), target = i } end
function TinyDataset:preprocess() return function(img) return img * 2 end end
return M
]])
  f:close()
  local saved = package.path
  package.path = dir .. '/?/init.lua;' .. package.path
  local ok, err = pcall(function()
    local M = require 'tinyds'
    local Threads = require 'threads'
    Threads.serialization('threads.sharedserialize')
    local opt = { nThreads = 3, manualSeed = 7 }
    local dataset = M.TinyDataset(23)
    local manualSeed = opt.manualSeed
    local function init() require 'tinyds' end
    local function main(idx)
      if manualSeed ~= 0 then torch.manualSeed(manualSeed + idx) end
      torch.setnumthreads(1)
      _G.dataset = dataset
      _G.preprocess = dataset:preprocess()
      return dataset:size()
    end
    local threads_, sizes = Threads(opt.nThreads, init, main)
    Threads.serialization('threads.serialize')
    local size, batchSize, nCrops = sizes[1][1], 5, 1
    tester:eq(size, 23)
    local perm = torch.randperm(size)
    local idx, sample = 1, nil
    local function enqueue()
      while idx <= size and threads_:acceptsjob() do
        local indices = perm:narrow(1, idx, math.min(batchSize, size - idx + 1))
        threads_:addjob(function(indices, nCrops)
          local sz = indices:size(1)
          local batch, imageSize
          local target = torch.IntTensor(sz)
          for i, idx in ipairs(indices:totable()) do
            local sample = _G.dataset:get(idx)
            local input = _G.preprocess(sample.input)
            if not batch then
              imageSize = input:size():totable()
              batch = torch.FloatTensor(sz, nCrops, unpack(imageSize))
            end
            batch[i]:copy(input)
            target[i] = sample.target
          end
          collectgarbage()
          return { input = batch:view(sz * nCrops, unpack(imageSize)), target = target }
        end, function(_sample_) sample = _sample_ end, indices, nCrops)
        idx = idx + batchSize
      end
    end
    local n = 0
    local function loop()
      enqueue()
      if not threads_:hasjob() then return nil end
      threads_:dojob()
      if threads_:haserror() then threads_:synchronize() end
      enqueue()
      n = n + 1
      return n, sample
    end
    local seen, batches = {}, 0
    for k, s in loop do
      batches = batches + 1
      tester:eq(k, batches)
      for i = 1, s.target:size(1) do
        local t = s.target[i]
        seen[t] = (seen[t] or 0) + 1
        tester:eq(s.input[i], torch.FloatTensor(2, 2):fill(2 * t), 'input of sample ' .. t)
      end
    end
    tester:eq(batches, 5)
    for i = 1, size do tester:eq(seen[i], 1, 'sample ' .. i .. ' once') end
    threads_:terminate()
  end)
  package.path = saved
  os.execute('rm -rf ' .. dir)
  if not ok then error(err, 0) end
end

-- imagenet-multiGPU.torch's data.lua and train.lua: donkeys whose second init function sets
-- globals from an upvalue and runs the donkey file; jobs read those globals; callbacks are
-- main-state globals.
function tests.imagenetDonkeyStyle()
  local path = os.tmpname()
  local f = assert(io.open(path, 'w'))
  f:write([[
trainLoader = { classes = { 'cat', 'dog' } }
function trainLoader:sample(n)
  local inputs, labels = torch.Tensor(n, 3):fill(tid), torch.LongTensor(n)
  for i = 1, n do labels[i] = torch.random(1, 2) end
  return inputs, labels
end
]])
  f:close()
  local ok, err = pcall(function()
    local Threads = require 'threads'
    opt = { nDonkeys = 2, manualSeed = 2, batchSize = 4, donkey = path }
    local options = opt
    donkeys = Threads(opt.nDonkeys,
      function() require 'torch' end,
      function(idx)
        opt = options
        tid = idx
        torch.manualSeed(opt.manualSeed + idx)
        dofile(opt.donkey)
      end)
    local classes
    donkeys:addjob(function() return trainLoader.classes end, function(c) classes = c end)
    donkeys:synchronize()
    tester:eq(classes, { 'cat', 'dog' })
    local seen = {}
    function trainBatch(inputs, labels)
      tester:eq(inputs:size(1), 4)
      seen[inputs[1][1]] = true
      tester:assert(labels:min() >= 1 and labels:max() <= 2)
    end
    for _ = 1, 6 do
      donkeys:addjob(function()
        local inputs, labels = trainLoader:sample(opt.batchSize)
        return inputs, labels
      end, trainBatch)
    end
    donkeys:synchronize()
    tester:assert(seen[1] and seen[2], 'both donkeys made batches')
    donkeys:terminate()
  end)
  os.remove(path)
  opt, donkeys, trainBatch = nil, nil, nil
  if not ok then error(err, 0) end
end

tester:add(tests)
tester:run()
