-- Regressions found reviewing threads (Torch7's torch/threads on the data loader's workers): a
-- storage view shared with threads.sharedserialize, a worker's torch.setdefaulttensortype
-- reaching the main state, and the behaviours a Torch7 script relies on (upvalues that are tables
-- of tensors and functions, results that are views, many small jobs, errors in jobs and
-- callbacks, terminate twice, specific mode back and forth, nn/optim in workers).
local threads = require 'threads'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function pool(n, mode, ...)
  threads.serialization(mode or 'threads.serialize')
  local p = threads.Threads(n, ...)
  threads.serialization('threads.serialize')
  return p
end

-- A storage view (torch.FloatStorage(s, offset, size)) arrived in a worker as the whole
-- underlying storage with sharedserialize (size 6 instead of 2, first element s[1] not s[3]).
function tests.sharedStorageViewKeepsItsWindow()
  for _, mode in ipairs({ 'threads.serialize', 'threads.sharedserialize' }) do
    local p = pool(1, mode)
    local s = torch.FloatStorage({ 1, 2, 3, 4, 5, 6 })
    local v = torch.FloatStorage(s, 3, 2)  -- {3, 4}
    local got
    p:addjob(function(x) x[2] = 40 return x:size(), x[1], x end, function(n, first, back) got = { n, first, back } end, v)
    p:synchronize()
    tester:eq(got[1], 2, mode .. ': the view keeps its size in the worker')
    tester:eq(got[2], 3, mode .. ': and its offset')
    tester:eq(got[3]:size(), 2, mode .. ': and comes back as the same window')
    tester:eq(got[3][2], 40, mode .. ': with the worker\'s write')
    tester:eq(s[4], mode == 'threads.sharedserialize' and 40 or 4, mode .. ': shared only with sharedserialize')
    -- a whole storage and an empty one still travel whole
    p:addjob(function(a, b) return a:size(), b:size() end, function(n, m) got = { n, m } end, s, torch.FloatStorage())
    p:synchronize()
    tester:eq(got, { 6, 0 }, mode .. ': whole and empty storages')
    p:terminate()
  end
end

-- A worker's torch.setdefaulttensortype (Torch7 donkeys set it in an init function) set the
-- process-wide float type: the main state's integer math then promoted to DoubleTensor, and
-- later pools started with the worker's type. Each state keeps its own (Note [Thread default
-- tensor type], threads/worker.lua).
function tests.workerDefaultTypeStaysInTheWorker()
  local before = torch.getdefaulttensortype()
  local promote = torch.sqrt(torch.LongTensor({ 4 })):type()
  local p = pool(2, nil, function() torch.setdefaulttensortype('torch.DoubleTensor') end)
  local got = {}
  for _ = 1, 2 do
    p:addjob(function() return torch.Tensor():type(), torch.zeros(1):type(), torch.getdefaulttensortype() end,
      function(a, b, c) got[#got + 1] = { a, b, c } end)
  end
  p:synchronize()
  for _, g in ipairs(got) do
    tester:eq(g, { 'torch.DoubleTensor', 'torch.DoubleTensor', 'torch.DoubleTensor' }, 'the worker has its type')
  end
  tester:eq(torch.getdefaulttensortype(), before, 'the main state keeps its type')
  tester:eq(torch.sqrt(torch.LongTensor({ 4 })):type(), promote, 'and its integer promotion')
  tester:eq((torch.LongTensor({ 3 }) / 2):type(), promote, 'and its division of integers')
  local q = pool(1)
  q:addjob(function() return torch.Tensor():type() end, function(t) got = t end)
  q:synchronize()
  tester:eq(got, before, 'a later pool starts with the main state\'s type')
  -- setDefaultDtype (PyTorch's name) too, and a bad name is still an error naming the function
  p:addjob(function() torch.setDefaultDtype('float32') return torch.Tensor():type() end, function(t) got = t end)
  p:synchronize()
  tester:eq(got, 'torch.FloatTensor')
  p:addjob(function() torch.setdefaulttensortype('torch.IntTensor') end)
  local ok, err = pcall(p.synchronize, p)
  tester:assert(not ok and tostring(err):find('setdefaulttensortype', 1, true) ~= nil, 'bad type name: ' .. tostring(err))
  tester:eq(torch.getdefaulttensortype(), before)
  p:terminate()
  q:terminate()
end

-- Tables keyed by tables, functions or tensors could not be sent ("cannot send a table key of
-- type table"), so neither could an nngraph gModule (its graph nodes index their children by
-- node) nor a graph.Graph; Torch7's serializer sent any key.
function tests.tablesWithNonStringKeys()
  require 'nngraph'
  local p = pool(2, nil, function() require 'nngraph' end)
  local a, b = { name = 'a' }, { name = 'b' }
  local function f() return 'f' end
  local t = torch.ones(2)
  local m = { [a] = 1, [b] = { [a] = 2 }, [f] = 3, [t] = 4, list = { a, b } }
  m[m] = 'self'
  local got
  p:addjob(function()
    local r = {}
    for k, v in pairs(m) do
      if type(k) == 'table' and k.name then r[k.name] = v == 1 and 1 or v[m.list[1]] end
      if type(k) == 'function' then r.f = k() .. v end
      if torch.isTensor(k) then r.t = k:sum() + v end
    end
    r.self = m[m]
    r.same = m[m.list[1]] == 1 and m[m.list[2]][m.list[1]] == 2
    return r, m
  end, function(r, back) got = { r, back } end)
  p:synchronize()
  tester:eq(got[1], { a = 1, b = 2, f = 'f3', t = 6, self = 'self', same = true })
  local back = got[2]
  tester:eq(back[back.list[1]], 1, 'keys keep their identity on the way back')
  tester:eq(back[back], 'self')
  -- a gModule as an upvalue, and one built in a worker
  local x = nn.Identity()()
  local g = nn.gModule({ x }, { nn.Tanh()(nn.Linear(3, 2)(nn.Linear(3, 3)(x))) })
  local input = torch.randn(4, 3)
  local y = g:forward(input):clone()
  p:addjob(function() return g:forward(input), g end, function(out, g2) got = { out, g2 } end)
  p:addjob(function()
    local z = nn.Identity()()
    return nn.gModule({ z }, { nn.Sigmoid()(z) })
  end, function(s) got[3] = s end)
  p:synchronize()
  tester:assertTensorEq(got[1], y, 1e-6, 'a worker runs a gModule it was sent')
  tester:assertTensorEq(got[2]:forward(input), y, 1e-6, 'and sends it back')
  tester:eq(got[2]:backward(input, torch.ones(4, 2)):size():totable(), { 4, 3 })
  tester:assertTensorEq(got[3]:forward(torch.zeros(2)), torch.Tensor(2):fill(0.5), 1e-6, 'a gModule built in a worker')
  p:terminate()
end

function tests.upvaluesOfEveryKind()
  local p = pool(2, nil, function() require 'nn' end)
  local data = { x = torch.range(1, 4), nested = { y = torch.ones(2, 2), tag = 'n' } }
  local function scale(v) return v * 10 end
  local cyc = { v = torch.ones(3) }
  cyc.self = cyc
  local got
  p:addjob(function()
    return data.x:sum() + data.nested.y:sum(), data.nested.tag, scale(2), cyc.self.self.v:sum(), cyc.self == cyc
  end, function(...) got = { ... } end)
  p:synchronize()
  tester:eq(got, { 14, 'n', 20, 3, true })
  -- views as results: transposed, narrowed (offset), selected column
  p:addjob(function()
    local b = torch.range(1, 20):view(4, 5)
    return b:t(), b:narrow(1, 2, 2), b:select(2, 4)
  end, function(...) got = { ... } end)
  p:synchronize()
  local b = torch.range(1, 20):view(4, 5)
  tester:eq(got[1], b:t():contiguous())
  tester:eq(got[2], b:narrow(1, 2, 2):contiguous())
  tester:eq(got[3], b:select(2, 4):contiguous())
  -- nn and optim in workers
  p:addjob(function() require 'optim' local m = nn.Linear(3, 2) return type(optim.sgd), m:forward(torch.ones(3)):size(1) end,
    function(a, n) got = { a, n } end)
  p:synchronize()
  tester:eq(got, { 'function', 2 })
  p:terminate()
end

function tests.manySmallJobs()
  local p = pool(2)
  local x = torch.ones(4)
  local sum = 0
  local function run(n)
    for i = 1, n do p:addjob(function(v) return v:sum() + i end, function(s) sum = sum + s end, x) end
    p:synchronize()
  end
  run(500)
  collectgarbage() collectgarbage()
  local lua0 = collectgarbage('count')
  sum = 0
  local t = torch.tic()
  run(3000)
  local dt = torch.toc(t)
  collectgarbage() collectgarbage()
  tester:eq(sum, 3000 * 4 + 3000 * 3001 / 2)
  tester:assertlt(collectgarbage('count') - lua0, 512, 'no growth of the main state (KB)')
  tester:assertlt(dt, 6, '3000 jobs take well under a millisecond each')
  p:terminate()
end

function tests.errorsTerminateSpecific()
  local p = pool(2)
  p:addjob(function() error('in the job') end)
  local ok, err = pcall(p.synchronize, p)
  tester:assert(not ok and err:find('%[thread %d callback%]') and err:find('in the job'), tostring(err))
  p:addjob(function() return 1 end, function() error('in the callback') end)
  ok, err = pcall(p.synchronize, p)
  tester:assert(not ok and err:find('%[thread %d endcallback%]') and err:find('in the callback'), tostring(err))
  tester:assert(not p:hasjob())
  local got
  p:addjob(function() return 7 end, function(v) got = v end)
  p:synchronize()
  tester:eq(got, 7, 'usable after errors')
  p:specific(true)
  local ids = {}
  for i = 1, 2 do p:addjob(i, function() return __threadid end, function(t) ids[#ids + 1] = t end) end
  p:specific(false)
  tester:eq(ids, { 1, 2 })
  p:addjob(function() return __threadid end, function(t) got = t end)
  p:synchronize()
  tester:assert(got == 1 or got == 2)
  p:terminate()
  p:terminate()
  ok, err = pcall(p.addjob, p, function() end)
  tester:assert(not ok and err:find('[threads.addjob]', 1, true) and err:find('terminated'), tostring(err))
  -- Torch7's low-level layer is not there: calling it says so (it was "attempt to call a nil value")
  for _, name in ipairs({ 'Mutex', 'Condition', 'Thread', 'Queue', 'safe' }) do
    ok, err = pcall(threads[name])
    tester:assert(not ok and tostring(err):find('[threads.' .. name .. '] is not available', 1, true), tostring(err))
  end
end

tester:add(tests)
tester:run()
