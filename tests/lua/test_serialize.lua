-- torch.save/load and torch.serialize/deserialize in Tocha's checkpoint format: every dtype, views
-- sharing storage, tables, references and cycles, torch.class objects (fields and write/read
-- hooks, aliases), generators, functions refused with their path, mmap loads, determinism.
local tester = torch.Tester()
local tests = torch.TestSuite()

local TMP = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/serialize_main_'

local function roundtrip(obj, opts)
  local path = TMP .. 'roundtrip.tch'
  torch.save(path, obj)
  return torch.load(path, opts)
end

local dtypes = { 'torch.FloatTensor', 'torch.DoubleTensor', 'torch.HalfTensor', 'torch.BFloat16Tensor',
                 'torch.LongTensor', 'torch.IntTensor', 'torch.ByteTensor', 'torch.BoolTensor' }

function tests.allDtypes()
  for _, name in ipairs(dtypes) do
    local t = torch.Tensor({ { 1, 0, 3 }, { 4, 5, 0 } }):type(name)
    for _, back in ipairs({ roundtrip(t), torch.deserialize(torch.serialize(t)) }) do
      tester:asserteq(back:type(), name)
      tester:eq(back:size():totable(), { 2, 3 })
      tester:eq(back:totable(), t:totable(), name)
    end
  end
  local big = torch.LongTensor({ 2 ^ 53, -2 ^ 62, 9007199254740993 })
  tester:asserteq(roundtrip(big)[3], big[3])
end

function tests.geometry()
  local scalar = torch.Tensor({ 7 }):view(torch.LongStorage({}))
  local s = roundtrip(scalar)
  tester:asserteq(s:dim(), 0)
  tester:asserteq(s:item(), 7)
  tester:asserteq(roundtrip(torch.Tensor()):nElement(), 0)
  tester:eq(roundtrip(torch.Tensor(3, 0, 2)):size():totable(), { 3, 0, 2 })
  local m = torch.range(1, 12):view(3, 4)
  local t = roundtrip(m:t())
  tester:eq(t:totable(), m:t():totable())
  tester:eq(t:stride():totable(), { 1, 4 })
  local e = roundtrip(torch.Tensor({ 1, 2 }):view(2, 1):expand(2, 3))
  tester:eq(e:stride():totable(), { 1, 0 })
  tester:eq(e:totable(), { { 1, 1, 1 }, { 2, 2, 2 } })
end

function tests.viewsShareStorage()
  local base = torch.range(1, 10)
  local obj = { base = base, a = base:narrow(1, 3, 4), b = base:sub(5, 9):view(5, 1), st = base:storage() }
  local back = roundtrip(obj)
  tester:asserteq(back.a:storageOffset(), 3)
  back.base[5] = 100
  tester:asserteq(back.a[3], 100)
  tester:asserteq(back.b[1][1], 100)
  tester:asserteq(back.st[5], 100)
  -- the same tensor twice is one tensor after loading
  local same = roundtrip({ x = base, y = base })
  tester:assert(rawequal(same.x, same.y))
  -- a slice saved alone keeps its whole storage (Torch7 and PyTorch do the same)
  local slice = roundtrip(base:narrow(1, 2, 2))
  tester:asserteq(#slice:storage(), 10)
end

function tests.storages()
  local s = torch.DoubleStorage({ 1.5, 2.5, 3.5 })
  local back = roundtrip({ s = s, v = torch.DoubleStorage(s, 2, 2) })
  tester:asserteq(torch.type(back.s), 'torch.DoubleStorage')
  tester:eq(back.s:totable(), { 1.5, 2.5, 3.5 })
  tester:eq(back.v:totable(), { 2.5, 3.5 })
  back.v[1] = 9
  tester:asserteq(back.s[2], 9)
end

function tests.scalarsAndTables()
  local obj = {
    1, 2, 'three', true, false,
    inf = math.huge, ninf = -math.huge, tiny = 4.9e-324, big = 1.7976931348623157e308, neg0 = -0.0,
    ['a key with spaces'] = 'x', [2.5] = 'float key', [true] = 'bool key', [-3] = 'neg',
    bytes = 'a\0b\255\n', empty = '', nested = { { { deep = 'yes' } } },
    int64 = 12345678901234567LL, uint64 = 0xFFFFFFFFFFFFFFFFULL,
  }
  local key = { 'table as key' }
  obj[key] = 'v'
  local back = roundtrip(obj)
  tester:eq(back[1], 1)
  tester:eq(back[3], 'three')
  tester:asserteq(back[4], true)
  tester:asserteq(back[5], false)
  tester:asserteq(back.inf, math.huge)
  tester:asserteq(back.ninf, -math.huge)
  tester:asserteq(back.tiny, 4.9e-324)
  tester:asserteq(back.big, 1.7976931348623157e308)
  tester:asserteq(1 / back.neg0, -math.huge)
  tester:asserteq(back['a key with spaces'], 'x')
  tester:asserteq(back[2.5], 'float key')
  tester:asserteq(back[true], 'bool key')
  tester:asserteq(back[-3], 'neg')
  tester:asserteq(back.bytes, 'a\0b\255\n')
  tester:asserteq(back.empty, '')
  tester:asserteq(back.nested[1][1].deep, 'yes')
  tester:asserteq(back.int64, 12345678901234567LL)
  tester:asserteq(back.uint64, 0xFFFFFFFFFFFFFFFFULL)
  local found
  for k, v in pairs(back) do if type(k) == 'table' then found = k[1] .. '=' .. v end end
  tester:asserteq(found, 'table as key=v')
  local nan = roundtrip({ x = 0 / 0 }).x
  tester:assert(nan ~= nan)
  tester:asserteq(roundtrip(42), 42)
  tester:asserteq(roundtrip('s'), 's')
  tester:asserteq(roundtrip(nil), nil)
  tester:asserteq(roundtrip(false), false)
end

function tests.referencesAndCycles()
  local shared = { v = 1 }
  local t = torch.Tensor({ 1, 2 })
  local obj = { a = shared, b = shared, list = { shared, t, t } }
  obj.self = obj
  obj.list.parent = obj
  local back = roundtrip(obj)
  tester:assert(rawequal(back.a, back.b))
  tester:assert(rawequal(back.list[1], back.a))
  tester:assert(rawequal(back.list[2], back.list[3]))
  tester:assert(rawequal(back.self, back))
  tester:assert(rawequal(back.list.parent, back))
end

-- ---- torch.class objects ------------------------------------------------------------------------

local Point = torch.class('serializetest.Point')
function Point:__init(x, y) self.x, self.y = x, y end
function Point:norm2() return self.x * self.x + self.y * self.y end
local Point3 = torch.class('serializetest.Point3', 'serializetest.Point')
function Point3:__init(x, y, z)
  Point.__init(self, x, y)
  self.z = z
end

-- A class with Torch7's write/read protocol: only `packed` is stored, `cache` is rebuilt.
local Packed = torch.class('serializetest.Packed')
function Packed:__init(v) self.v, self.cache = v, { derived = v * 2 } end
function Packed:write(file)
  file:writeInt(self.v)
  file:writeDouble(0.5)
  file:writeObject({ tensor = torch.Tensor({ self.v }) })
  file:writeString('tail')
end
function Packed:read(file, version)
  self.v = file:readInt()
  self.half = file:readDouble()
  self.extra = file:readObject()
  self.tail = file:readString()
  self.cache = { derived = self.v * 2 }
  self.version = version
end

function tests.classObjects()
  local p = serializetest.Point3(3, 4, 5)
  local model = { points = { p, serializetest.Point(1, 1) }, again = p }
  local back = roundtrip(model)
  tester:asserteq(torch.type(back.points[1]), 'serializetest.Point3')
  tester:asserteq(back.points[1]:norm2(), 25)
  tester:asserteq(back.points[1].z, 5)
  tester:assert(torch.isTypeOf(back.points[1], 'serializetest.Point'))
  tester:assert(rawequal(back.again, back.points[1]))
  tester:asserteq(torch.type(back.points[2]), 'serializetest.Point')
end

function tests.classWriteReadHooks()
  local obj = { a = serializetest.Packed(7), b = serializetest.Packed(9) }
  obj.c = obj.a
  for _, back in ipairs({ roundtrip(obj), torch.deserialize(torch.serialize(obj)) }) do
    tester:asserteq(torch.type(back.a), 'serializetest.Packed')
    tester:asserteq(back.a.v, 7)
    tester:asserteq(back.a.half, 0.5)
    tester:asserteq(back.a.extra.tensor[1], 7)
    tester:asserteq(back.a.tail, 'tail')
    tester:asserteq(back.a.cache.derived, 14)
    tester:asserteq(back.a.version, 1)
    tester:asserteq(back.b.v, 9)
    tester:assert(rawequal(back.c, back.a))
  end
end

function tests.classAliases()
  torch.class('serializetest.OldName')
  local New = torch.class('serializetest.NewName')
  function New:hello() return 'new ' .. self.w:size(1) end
  local old = torch.factory('serializetest.OldName')()
  old.w = torch.Tensor(6)
  local s = torch.serialize({ m = old })
  torch.serialization.registerClassAlias('serializetest.OldName', 'serializetest.NewName', function(obj, name, version, format)
    obj.w = obj.w:view(2, 3)
    obj.from = name .. ' v' .. version .. ' ' .. format
  end)
  local back = torch.deserialize(s)
  torch.serialization.unregisterClassAlias('serializetest.OldName')
  tester:asserteq(torch.type(back.m), 'serializetest.NewName')
  tester:asserteq(back.m:hello(), 'new 2')
  tester:asserteq(back.m.from, 'serializetest.OldName v1 tocha')
  -- a convert hook may replace the object
  torch.serialization.registerClassAlias('serializetest.OldName', 'serializetest.NewName', function() return 'replaced' end)
  tester:asserteq(torch.deserialize(s).m, 'replaced')
  torch.serialization.unregisterClassAlias('serializetest.OldName')
end

function tests.unknownClass()
  local Temp = torch.class('serializetest.Temp')
  local s = torch.serialize({ x = serializetest.Temp() })
  torch._metatables['serializetest.Temp'] = nil  -- as if the defining module were not loaded
  tester:assertErrorPattern(function() torch.deserialize(s) end, 'unknown class serializetest%.Temp')
  torch._metatables['serializetest.Temp'] = Temp
  local n = torch.serialize({ x = setmetatable({}, { __typename = 'nn.Nope' }) })
  tester:asserteq(type(torch.deserialize(n).x), 'table')  -- not a registered class: a plain table (Torch7)
end

function tests.generator()
  local g = torch.Generator()
  torch.manualSeed(g, 123)
  torch.uniform(g)
  local back = roundtrip({ g = g, g2 = g })
  tester:asserteq(torch.type(back.g), 'torch.Generator')
  tester:assert(rawequal(back.g, back.g2))
  for _ = 1, 5 do tester:asserteq(torch.uniform(back.g), torch.uniform(g)) end
  tester:asserteq(torch.initialSeed(back.g), 123)
  -- two generators: their temporary state tensors must not be confused
  local h = torch.Generator()
  torch.manualSeed(h, 7)
  local two = torch.deserialize(torch.serialize({ g, h }))
  tester:asserteq(torch.uniform(two[1]), torch.uniform(g))
  tester:asserteq(torch.uniform(two[2]), torch.uniform(h))
end

-- ---- refusals and errors ---------------------------------------------------------------------------

function tests.functionsRefused()
  local model = { modules = { {}, {}, { customFn = function() end } } }
  tester:assertErrorPattern(function() torch.save(TMP .. 'fn.tch', model) end,
    'cannot save a function at model%.modules%[3%]%.customFn')
  tester:assertErrorPattern(function() torch.serialize({ ['odd key'] = { print } }) end,
    'function at object%["odd key"%]%[1%]')
  local obj = serializetest.Point(1, 2)
  obj.callback = function() end
  tester:assertErrorPattern(function() torch.serialize(obj) end, 'function at obj%.callback')
  tester:assertErrorPattern(function() torch.serialize({ co = coroutine.create(print) }) end, 'cannot save a thread at')
  tester:assertErrorPattern(function() torch.serialize({ f = io.stdout }) end, 'cannot save a userdata at')
  tester:assertErrorPattern(function() torch.serialize({ [print] = 1 }) end, 'table key of type function')
  tester:assertErrorPattern(function() torch.serialize({ p = require('ffi').new('int[2]') }) end, 'cdata value')
  -- the error points at the caller's line
  local ok, err = pcall(function() torch.serialize({ f = print }) end)
  tester:assert(not ok and err:find('test_serialize%.lua:%d+:') ~= nil, err)
end

function tests.freedTensorRefused()
  local t = torch.Tensor(2)
  t:free()
  tester:assertErrorPattern(function() torch.serialize({ t = t }) end, 'freed tensor at object%.t')
end

function tests.badArguments()
  tester:assertErrorPattern(function() torch.save(42, {}) end, 'expected a file name')
  tester:assertErrorPattern(function() torch.save(TMP .. 'x', {}, 'zip') end, 'unknown format zip')
  tester:assertErrorPattern(function() torch.load(TMP .. 'does-not-exist') end, 'No such file')
  tester:assertErrorPattern(function() torch.load(TMP .. 'x', 'bogus') end, 'expected an options table or a mode')
  tester:assertErrorPattern(function() torch.deserialize(3) end, 'expected a string')
  tester:assertErrorPattern(function() torch.save('/nonexistent-dir/x.tch', {}) end, 'cannot create a temporary file')
end

function tests.deepNesting()
  local list = {}
  local node = list
  for _ = 1, 500 do node.next = {} node = node.next end
  local back = torch.deserialize(torch.serialize(list))
  local depth = 0
  while back.next do back = back.next depth = depth + 1 end
  tester:asserteq(depth, 500)
  for _ = 1, 1000 do node.next = {} node = node.next end
  tester:assertErrorPattern(function() torch.serialize(list) end, 'nested more than')
end

-- ---- mmap, strings, determinism ---------------------------------------------------------------------

function tests.mmapLoad()
  local path = TMP .. 'mmap.tch'
  local big = torch.randn(1000, 300)
  local obj = { w = big, small = torch.LongTensor({ 1, 2, 3 }), w2 = big:narrow(1, 10, 5) }
  torch.save(path, obj)
  local before = io.open(path, 'rb'):read('*a')
  local m = torch.load(path, { mmap = true })
  tester:assertTensorEq(m.w, big)
  tester:eq(m.small:totable(), { 1, 2, 3 })
  tester:assertTensorEq(m.w2, big:narrow(1, 10, 5))
  local p = m.w:data()
  tester:asserteq(tonumber(require('ffi').cast('intptr_t', p)) % 64, 0)  -- data blocks are 64-byte aligned
  m.w:fill(1)  -- copy-on-write: the file does not change
  tester:asserteq(m.w2[1][1], 1)
  tester:asserteq(io.open(path, 'rb'):read('*a'), before)
  local v = torch.load(path, { mmap = true, verify = true })
  tester:assertTensorEq(v.w, big)
  m, v = nil, nil
  collectgarbage()
  collectgarbage()
end

-- Resident memory of this process, in bytes (Linux).
local function rss()
  local f = io.open('/proc/self/statm')
  if not f then return nil end
  local _, resident = f:read('*l'):match('(%d+) (%d+)')
  f:close()
  return tonumber(resident) * 4096
end

function tests.mmapDoesNotReadTheData()
  local path = TMP .. 'mmap_big.tch'
  torch.save(path, { w = torch.FloatTensor(16 * 2 ^ 20):fill(3) })  -- 64 MiB
  collectgarbage()
  collectgarbage()
  local before = rss()
  if not before then return end
  local m = torch.load(path, { mmap = true })
  tester:assertlt(rss() - before, 16 * 2 ^ 20, 'mapping does not read the tensor data')
  tester:asserteq(m.w[16 * 2 ^ 20], 3)
  local r = torch.load(path)
  tester:assertgt(rss() - before, 60 * 2 ^ 20, 'a regular load reads it')
  m, r = nil, nil
  collectgarbage()
  collectgarbage()
  os.remove(path)
end

function tests.serializeStrings()
  local obj = { t = torch.IntTensor({ 1, 2, 3 }), s = 'x' }
  local str = torch.serialize(obj)
  tester:asserteq(type(str), 'string')
  tester:asserteq(str:sub(1, 4), '\137TCH')
  local back = torch.deserialize(str)
  tester:eq(back.t:totable(), { 1, 2, 3 })
  local st = torch.serializeToStorage(obj)
  tester:asserteq(torch.type(st), 'torch.ByteStorage')
  tester:eq(torch.deserializeFromStorage(st).t:totable(), { 1, 2, 3 })
  -- every format through strings
  for _, fmt in ipairs({ 'binary-t7', 'ascii' }) do
    tester:eq(torch.deserialize(torch.serialize(obj, fmt)).t:totable(), { 1, 2, 3 }, fmt)
  end
  tester:asserteq(torch.loadobj, torch.load)
end

function tests.deterministic()
  local function make()
    local t = {}
    for i = 1, 50 do t['k' .. i] = i end
    t[0.5], t[true], t.w = 'a', 'b', torch.range(1, 5)
    return t
  end
  tester:asserteq(torch.serialize(make()), torch.serialize(make()))
end

function tests.overwriteAndFormats()
  local path = TMP .. 'formats'
  for _, fmt in ipairs({ 'tocha', 'binary', 'binary-t7', 'ascii' }) do
    torch.save(path, { v = fmt, t = torch.Tensor({ 1.25 }) }, fmt)
    local back = torch.load(path)
    tester:asserteq(back.v, fmt)
    tester:asserteq(back.t[1], 1.25)
  end
  torch.save(path, { v = 1 }, { format = 'ascii' })
  tester:asserteq(io.open(path):read('*l'), '3')
end

function tests.requiresGradFlagIgnoredWithoutAutograd()
  local t = torch.Tensor({ 1 })
  tester:asserteq(roundtrip(t)[1], 1)
end

tester:add(tests)
tester:run()
