-- Review of data.DataLoader against PyTorch 1.13, continued from test_data_loader_regressions.lua:
-- what crosses between the main state and the workers (module fields, tables with metatables,
-- functions with environments, tensors' dtype, shape and strides). A SIGALRM watchdog bounds a hang.
local data = require 'data'
local ffi = require 'ffi'
local tester = torch.Tester()
local tests = torch.TestSuite()

pcall(ffi.cdef, 'unsigned int alarm(unsigned int seconds);')
ffi.C.alarm(120)

local L = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/loader_checks.lua')
local ints = L.ints
local function fails(pattern, f, ...) return L.fails(tester, pattern, f, ...) end

-- Bug: a function or table that the main script added to a loaded module at run time went to
-- the workers by name and was nil there: a collate function given that way was silently
-- replaced by the default one (batches of samples instead of the user's result).
function tests.moduleFieldsAddedAtRunTimeAreAnError()
  data._testRuntimeCollate = function(samples) return #samples * 100 end
  -- transfer.lua caches the names of module fields until another module is loaded; load one so
  -- that the new field is seen as data's (as in a script that sets it before its first loader).
  package.loaded['_test_data_loader_regressions_dummy'] = {}
  local ok, err = pcall(function()
    local function batches(l)
      local got = {}
      for b in l:iter() do got[#got + 1] = b end
      l:close()
      return got
    end
    tester:assertTableEq(batches(data.DataLoader(ints(4), { batchSize = 2, collate = data._testRuntimeCollate })), { 200, 200 })
    local l = data.DataLoader(ints(4), { batchSize = 2, workers = 1, collate = data._testRuntimeCollate })
    fails('data._testRuntimeCollate is not defined in the worker state', batches, l)
    local function local_collate(samples) return #samples * 100 end  -- sent by value: works
    tester:assertTableEq(batches(data.DataLoader(ints(4), { batchSize = 2, workers = 1, collate = local_collate })), { 200, 200 })
  end)
  data._testRuntimeCollate = nil
  package.loaded['_test_data_loader_regressions_dummy'] = nil
  tester:assert(ok, tostring(err))
end

-- Bugs of the codec that ships datasets and batches (transfer.lua): it restored a table's fields
-- through __newindex (a read-only config table stopped the workers from starting; a rewriting
-- __newindex changed values); a metatable protected by __metatable failed to encode ("bad
-- argument #1 to 'rawget'"); a function's own environment (setfenv, a module(...) file's local
-- functions) was dropped, so its free names were nil in a worker; a value that cannot cross
-- said "to a worker state" when it came from one.
function tests.codecKeepsTablesAndFunctionsWhole()
  local readonly = setmetatable({}, { __newindex = function(_, k) error('read-only table: cannot set ' .. tostring(k)) end })
  rawset(readonly, 'scale', 3)
  local scaled = setmetatable({}, { __newindex = function(t, k, v) rawset(t, k, v * 10) end })
  rawset(scaled, 'a', 1)
  local locked = setmetatable({}, { __metatable = 'locked', __index = function() return 7 end })
  local f = setfenv(function(i) return i * scale end, setmetatable({ scale = 5 }, { __index = _G }))  -- luacheck: ignore scale
  local ds = ints(3, function(i) return { x = i * readonly.scale, a = scaled.a, l = locked.anything, e = f(i) } end)
  for _, w in ipairs({ 0, 2 }) do
    local l = data.DataLoader(ds, { batchSize = 3, workers = w })
    local b = l:iter()()
    local got = { b.x:totable(), b.a:totable(), b.l:totable(), b.e:totable() }
    tester:assertTableEq(got, { { 3, 6, 9 }, { 1, 1, 1 }, { 7, 7, 7 }, { 5, 10, 15 } }, w .. ' workers')
    l:close()
  end
  local co = ints(2, function() return { co = coroutine.create(function() end) } end)
  local l = data.DataLoader(co, { batchSize = false, workers = 1 })
  fails('cannot send a thread from a worker state to the main state (at the batch.co)', function() for _ in l:iter() do end end)
  l:close()
  co.co = coroutine.create(function() end)
  fails('cannot send a thread to a worker state (at the dataset', function()
    for _ in data.DataLoader(co, { workers = 1 }):iter() do end
  end)
end

-- Tensors made in a worker keep their type, shape, strides and storage offset, and one tensor
-- twice in a batch arrives as one tensor.
function tests.tensorsKeepDtypeShapeStrides()
  local ds = ints(2, function(i)
    local base = torch.range(1, 24):view(2, 3, 4):mul(i)
    return {
      t = base:transpose(1, 3), n = base:narrow(3, 2, 2), e = torch.zeros(0, 3), s = torch.tensor(3.5),
      h = torch.ones(2, 2):half(), b = torch.ones(3):gt(0), l = torch.LongTensor({ -2, 2 ^ 40 }),
      x = torch.ones(1, 3):expand(4, 3), same1 = base, same2 = base, d = torch.range(1, 6):double():view(2, 3):t(),
    }
  end)
  local function describe(v)
    return string.format('%s %s %s %d', v:type(), table.concat(v:size():totable(), 'x'),
      table.concat(v:stride():totable(), ','), v:storageOffset())
  end
  local ref, k, l = {}, 0, data.DataLoader(ds, { batchSize = false, workers = 2 })
  for s in data.DataLoader(ds, { batchSize = false }):iter() do ref[#ref + 1] = s end
  for s in l:iter() do
    k = k + 1
    for _, f in ipairs({ 't', 'n', 'e', 's', 'h', 'b', 'l', 'x', 'd' }) do
      tester:asserteq(describe(s[f]), describe(ref[k][f]), 'field ' .. f)
      tester:assert(torch.equal(s[f], ref[k][f]), 'values of field ' .. f)
    end
    tester:asserteq(s.l[2], 2 ^ 40)
    tester:assert(rawequal(s.same1, s.same2), 'one tensor, one object')
    tester:asserteq(s.t:stride(1), 1)
    tester:asserteq(s.x:stride(1), 0)
  end
  tester:asserteq(k, 2)
  l:close()
end

tester:add(tests)
tester:run()
ffi.C.alarm(0)
