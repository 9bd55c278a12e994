-- require 'tds' (lua/tds): torch/tds's tds.Hash, tds.Vec and tds.AtomicCounter as Torch7 programs
-- use them, torch.save/torch.load in every format, and .t7 bytes laid out as torch/tds's
-- __write methods and Torch7's File:writeObject wrote them (torch/tds hash.lua, vec.lua; torch7 File.lua).
local ffi = require 'ffi'
local tds = require 'tds'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function count(t)
  local n = 0
  for _ in pairs(t) do n = n + 1 end
  return n
end

function tests.hashBasics()
  local h = tds.Hash()
  tester:asserteq(torch.type(h), 'tds.Hash')
  tester:asserteq(tds.size(h), 0)
  h.a = 1
  h[2] = 'two'
  h[true] = false
  h.a = 10  -- update
  tester:asserteq(h.a, 10)
  tester:asserteq(h[2], 'two')
  tester:asserteq(h[true], false)
  tester:asserteq(tds.size(h), 3)
  h[2] = nil  -- removal
  tester:asserteq(h[2], nil)
  tester:asserteq(tds.size(h), 2)
  h.missing = nil  -- removing an absent key is nothing
  tester:asserteq(tds.size(h), 2)
  local seen = {}
  for k, v in pairs(h) do seen[k] = v end
  tester:eq(seen, { a = 10, [true] = false })
  tester:asserteq(h.read, nil, 'a hash has no methods: names are keys')
  h.read, h.write, h.size = 'r', 'w', 's'
  tester:eq({ h.read, h.write, h.size }, { 'r', 'w', 's' })
  tester:assertErrorPattern(function() h[0 / 0] = 1 end, '%[tds.Hash%] a key cannot be')
  tester:assertErrorPattern(function() h[nil] = 1 end, '%[tds.Hash%] a key cannot be nil')
end

function tests.hashLengthOperator()
  -- Note [tds on Lua tables]: #h is Lua's border; tds.size counts entries
  local h = tds.Hash()
  for i = 1, 5 do h[i] = i * i end
  tester:asserteq(#h, 5, 'keys 1..n: # is the count')
  tester:asserteq(tds.size(h), 5)
  local s = tds.Hash({ a = 1, b = 2 })
  tester:asserteq(tds.size(s), 2)
  tester:asserteq(tds.size(tds.Vec({ 1, 2, 3 })), 3)
  tester:assertErrorPattern(function() tds.size({}) end, '%[tds.size%] expected a tds.Hash or tds.Vec, got table')
end

function tests.hashFromTable()
  local h = tds.Hash({ a = 1, list = { 1, 2, 3 }, sub = { x = 'y' }, t = torch.ones(2) })
  tester:asserteq(torch.type(h.list), 'tds.Vec', 'a list becomes a Vec')
  tester:asserteq(#h.list, 3)
  tester:asserteq(torch.type(h.sub), 'tds.Hash', 'other tables become Hashes')
  tester:asserteq(h.sub.x, 'y')
  tester:asserteq(torch.type(h.t), 'torch.FloatTensor', 'tensors are stored as they are')
  tester:assertErrorPattern(function() tds.Hash(3) end, '%[tds.Hash%] expected a Lua table or nothing, got number')
  tester:assertErrorPattern(function() tds.Hash({}, {}) end, 'got 2 arguments')
  tester:assertne(tds.Hash(), tds.Hash(), 'distinct objects compare by identity')
  local h2 = tds.Hash()
  tester:asserteq(h2, h2)
end

function tests.vecBasics()
  local v = tds.Vec()
  tester:asserteq(torch.type(v), 'tds.Vec')
  tester:asserteq(#v, 0)
  v[1] = 'a'
  v:insert('c')
  v:insert(2, 'b')
  tester:asserteq(#v, 3)
  tester:eq({ v[1], v[2], v[3] }, { 'a', 'b', 'c' })
  tester:asserteq(v[4], nil)
  local got = {}
  for i, x in ipairs(v) do got[i] = x end
  tester:eq(got, { 'a', 'b', 'c' })
  tester:asserteq(count(v), 3, 'pairs sees the entries only')
  v:remove(1)
  tester:asserteq(v:concat(','), 'b,c')
  v:remove()
  tester:asserteq(v:concat(','), 'b')
  v:remove(5)  -- past the end: nothing, as torch/tds
  tester:asserteq(#v, 1)
  tester:assertErrorPattern(function() v[0] = 1 end, '%[tds.Vec%] expected a positive integer index, got 0')
  tester:assertErrorPattern(function() v.x = 1 end, 'expected a positive integer index, got string')
  tester:assertErrorPattern(function() v[1.5] = 1 end, 'got 1.5')
  tester:assertErrorPattern(function() v:insert(5, 'x') end, '%[tds.Vec:insert%] position 5 is past the end %(1 entries%)')
  tester:assertErrorPattern(function() v:insert(nil) end, 'cannot insert nil')
  tester:assertErrorPattern(function() v:insert(1, 2, 3) end, 'expected %(%[position,%] value%)')
end

function tests.vecConstructResizeSortConcat()
  tester:asserteq(tds.Vec(3, 1, 2):concat(), '312')
  local v = tds.Vec({ 5, 3, 9, 1 })
  v:sort()
  tester:asserteq(v:concat(' '), '1 3 5 9')
  v:sort(function(a, b) return a > b end)
  tester:asserteq(v:concat(' '), '9 5 3 1')
  tester:asserteq(v:concat('-', 2, 3), '5-3')
  v:resize(2)
  tester:asserteq(#v, 2)
  tester:asserteq(v[3], nil)
  v:resize(0)
  tester:asserteq(#v, 0)
  tester:assertErrorPattern(function() v:resize(-1) end, '%[tds.Vec:resize%] size must be a non%-negative integer')
  tester:assertErrorPattern(function() v:sort(3) end, 'expected a comparison function')
  local nested = tds.Vec({ { 1, 2 }, { a = 1 }, torch.zeros(3) })
  tester:eq({ torch.type(nested[1]), torch.type(nested[2]), torch.type(nested[3]) },
    { 'tds.Vec', 'tds.Hash', 'torch.FloatTensor' })
  tester:assertErrorPattern(function() tds.Vec({ 1, x = 2 }) end, 'expected a Lua list')
  tester:asserteq(tds.Vec({ 'a', true, 1.5 }):concat(','), 'a,true,1.5', 'tostring of each entry')
end

function tests.printing()
  tester:asserteq(tostring(tds.Vec({ 'a', 2 })), 'tds.Vec[2]{\n    1 : a\n    2 : 2\n}')
  tester:asserteq(tostring(tds.Hash({ key = 1 })), 'tds.Hash[1]{\nkey : 1\n}')
  local h = tds.Hash({ v = tds.Vec({ 1 }) })
  tester:asserteq(tostring(h), 'tds.Hash[1]{\nv : tds.Vec[1]{\n        1 : 1\n    }\n}', 'nested values are indented')
  local long = tds.Vec()
  for i = 1, 25 do long[i] = i end
  local s = tostring(long)
  tester:assert(s:find('^tds.Vec%[25%]{') and s:find('\n...\n}$') and not s:find(' 21 : '), 'at most 20 entries')
  local a = tds.AtomicCounter()
  tester:asserteq(tostring(a), 'tds.AtomicCounter=0')
end

function tests.atomicCounter()
  local a = tds.AtomicCounter()
  tester:asserteq(a:get(), 0)
  tester:asserteq(a:inc(), 0, 'inc returns the value before, as THAtomicAddLong')
  tester:asserteq(a:inc(), 1)
  tester:asserteq(a:get(), 2)
  a:set(100)
  tester:asserteq(a:get(), 100)
  tester:asserteq(tostring(a), 'tds.AtomicCounter=100')
  tester:assertErrorPattern(function() a:set('x') end, 'expected an integer')
end

local function roundtrip(obj, fmt)
  return torch.deserialize(torch.serialize(obj, fmt))
end

function tests.saveLoadEveryFormat()
  for _, fmt in ipairs({ 'tocha', 'binary-t7', 'ascii' }) do
    local shared = tds.Vec({ 'x' })
    local h = tds.Hash({ a = 1, s = 'str' })
    h.t = torch.range(1, 3)
    h.v = shared
    h.again = shared
    h.self = h
    h[7] = true
    local c = tds.AtomicCounter()
    c:set(42)
    local r = roundtrip({ h = h, c = c, v = tds.Vec({ tds.Hash({ k = 'v' }), 2.5 }) }, fmt)
    tester:asserteq(torch.type(r.h), 'tds.Hash', fmt)
    tester:asserteq(tds.size(r.h), 7, fmt)
    tester:eq({ r.h.a, r.h.s, r.h[7] }, { 1, 'str', true }, fmt)
    tester:eq(r.h.t:totable(), { 1, 2, 3 }, fmt)
    tester:asserteq(r.h.v, r.h.again, fmt .. ': a shared Vec loads once')
    tester:asserteq(r.h.self, r.h, fmt .. ': cycles survive')
    tester:asserteq(r.h.v[1], 'x', fmt)
    tester:asserteq(torch.type(r.v), 'tds.Vec', fmt)
    tester:asserteq(r.v[1].k, 'v', fmt)
    tester:asserteq(r.v[2], 2.5, fmt)
    tester:asserteq(r.c:get(), 42, fmt)
    r.v:insert('more')  -- loaded objects keep their methods
    tester:asserteq(#r.v, 3, fmt)
  end
  local p = os.tmpname()
  torch.save(p, tds.Vec({ 1, 2 }))
  tester:asserteq(torch.load(p):concat(','), '1,2', 'torch.save/torch.load through a file')
  os.remove(p)
  tester:asserteq(torch.serialize(tds.Hash({ b = 1, a = 2, [3] = 4 })), torch.serialize(tds.Hash({ [3] = 4, a = 2, b = 1 })),
    'saving gives the same bytes for the same entries')
end

-- Torch7's binary .t7 layout (File.lua writeObject): int tags, 8-byte longs, doubles.
local function int(n) return ffi.string(ffi.new('int32_t[1]', n), 4) end
local function long(n) return ffi.string(ffi.new('int64_t[1]', n), 8) end
local function double(x) return ffi.string(ffi.new('double[1]', x), 8) end
local function str(s) return int(2) .. int(#s) .. s end
local function num(x) return int(1) .. double(x) end
local function torch_object(index, version, name)
  return int(4) .. int(index) .. (version and (int(#version) .. version) or '') .. int(#name) .. name
end

function tests.loadsTorch7TdsBytes()
  -- tds.Hash({k = 5, v = tds.Vec({'a', 2})}) as torch/tds's __write wrote it (keys in pairs order)
  local bytes = torch_object(1, 'V 0', 'tds.Hash') .. long(2)
    .. str('k') .. num(5)
    .. str('v') .. torch_object(2, 'V 0', 'tds.Vec') .. long(2) .. str('a') .. num(2)
  local h = torch.deserialize(bytes)
  tester:asserteq(torch.type(h), 'tds.Hash')
  tester:asserteq(h.k, 5)
  tester:asserteq(torch.type(h.v), 'tds.Vec')
  tester:asserteq(h.v:concat(','), 'a,2')
  -- files from before torch/tds versioned its classes name them tds_hash, without a version
  local old = torch.deserialize(torch_object(1, nil, 'tds_hash') .. long(1) .. num(1) .. str('one'))
  tester:asserteq(torch.type(old), 'tds.Hash')
  tester:asserteq(old[1], 'one')
  -- and Tocha writes that same layout, so Torch7 with torch/tds reads Tocha's .t7 files
  tester:asserteq(torch.serialize(tds.Vec({ 'a', 2 }), 'binary-t7'),
    torch_object(1, 'V 0', 'tds.Vec') .. long(2) .. str('a') .. num(2))
  tester:assertErrorPattern(function() torch.deserialize(torch_object(1, 'V 0', 'tds.Vec') .. long(-3)) end,
    'the file holds %-3 entries: it is corrupt')
end

function tests.jsonOfTdsObjects()
  -- the entries are the object's own: lua-cjson's raw traversal sees them (metatables ignored)
  local cjson = require 'cjson'
  tester:asserteq(cjson.encode(tds.Vec({ 1, 'a' })), '[1,"a"]')
  tester:asserteq(cjson.encode(tds.Hash({ k = tds.Vec({ true }) })), '{"k":[true]}')
end

tester:add(tests)
tester:run()
