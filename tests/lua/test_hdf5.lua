-- The hdf5 package (torch-hdf5's API): every dataset of the fixtures that h5py wrote
-- (tests/data/hdf5/make_fixtures.py; values rebuilt here from the formulas written there) read with
-- its type, shape and values; partial reads against :all():narrow; writes (every tensor type,
-- chunked and DEFLATE-compressed, overwritten, appended, nested groups) read back; and the errors.
-- Files written here go to a temporary folder removed at the end. At dev time the files written
-- by these tests were also read with h5py (types, shapes, values, chunks, gzip, maxshape).
require 'hdf5'
local tester = torch.Tester()
local tests = torch.TestSuite()

local HERE = arg and arg[0] and arg[0]:match('^(.*)/[^/]*$') or '.'
local DATA = HERE .. '/../data/hdf5/'
local function sh(cmd)
  local f = assert(io.popen(cmd))
  local s = f:read('*a')
  f:close()
  return (s:gsub('%s+$', ''))
end
local TMP = sh("mktemp -d '" .. (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. "/hdf5_test_XXXXXX'")
local function tmp(name) return TMP .. '/' .. name end

-- Note [int8 and int16 without CharTensor] (lua/hdf5/lib.lua): the types int8/int16 read into.
local INT8 = torch.CharTensor and 'torch.CharTensor' or 'torch.IntTensor'
local INT16 = torch.ShortTensor and 'torch.ShortTensor' or 'torch.IntTensor'

-- The error of fn(), which must contain each plain-text fragment.
local function errs(fn, ...)
  local ok, err = pcall(fn)
  tester:assert(not ok, 'expected an error containing ' .. table.concat({ ... }, ' / '))
  if ok then return end
  err = tostring(err)
  for _, frag in ipairs({ ... }) do
    tester:assert(err:find(frag, 1, true) ~= nil, 'error "' .. err .. '" lacks "' .. frag .. '"')
  end
end

local function same(got, typename, expected, msg)
  tester:asserteq(torch.typename(got), typename, msg .. ': type')
  tester:assertTableEq(got:size():totable(), expected:size():totable(), msg .. ': size')
  tester:assert(torch.equal(got, expected:type(typename)), msg .. ': values')
end

-- uint16 and uint32 widen (Note [Unsigned integers]); big-endian data arrives in native order.
function tests.everyNumericTypeOfTheFixture()
  local f = hdf5.open(DATA .. 'types.h5', 'r')
  local cases = {
    { 'int8', INT8, { { -128, -1, 0 }, { 1, 2, 127 } } },
    { 'uint8', 'torch.ByteTensor', { { 0, 1, 2 }, { 128, 254, 255 } } },
    { 'int16', INT16, { { -32768, -1, 0 }, { 1, 300, 32767 } } },
    { 'uint16', 'torch.IntTensor', { { 0, 1, 40000 }, { 65535, 7, 8 } } },
    { 'int32', 'torch.IntTensor', { { -2 ^ 31, -1, 0 }, { 1, 70000, 2 ^ 31 - 1 } } },
    { 'uint32', 'torch.LongTensor', { { 0, 1, 2 ^ 32 - 1 }, { 2 ^ 31, 5, 6 } } },
    { 'int64', 'torch.LongTensor', { { -2 ^ 62, -1, 0 }, { 1, 2 ^ 40 + 3, 2 ^ 53 + 2 } } },
    { 'uint64', 'torch.LongTensor', { { 0, 1, 2 ^ 40 }, { 2 ^ 62, 5, 6 } } },
    { 'float32', 'torch.FloatTensor', { { 0.5, -1.25, 3.0 }, { 1e-3, 1e30, -0.0 } } },
    { 'float64', 'torch.DoubleTensor', { { 0.1, -2.5, 1e-300 }, { 1e300, 3.0, -7.75 } } },
    { 'be_int32', 'torch.IntTensor', { 1, -2, 300000 } },
    { 'be_float64', 'torch.DoubleTensor', { 1.5, -0.25, 1e10 } },
  }
  for _, c in ipairs(cases) do
    local name, typename, values = c[1], c[2], c[3]
    local d = f:read('/' .. name)
    local expected = torch.DoubleTensor(values)
    same(d:all(), typename, expected, name)
    tester:assertTableEq(d:dataspaceSize(), expected:size():totable(), name .. ': dataspaceSize')
    tester:asserteq(d:getTensorFactory(), torch[typename:sub(7)], name .. ': getTensorFactory')
  end
  -- float16 reads into a HalfTensor (exactly: these values are float16 numbers)
  local h = f:read('/float16'):all()
  tester:asserteq(torch.typename(h), 'torch.HalfTensor')
  tester:assert(torch.equal(h:float(), torch.FloatTensor({ 0.5, -2.0, 65504.0, 2 ^ -14 })), 'float16 values')
  -- a scalar dataset is a 0-dim tensor; an empty one keeps its 0x3 shape
  local s = f:read('scalar')
  tester:asserteq(s:all():dim(), 0)
  tester:asserteq(s:all():sum(), 2.5)
  tester:assertTableEq(s:dataspaceSize(), {})
  local e = f:read('empty')
  tester:assertTableEq(e:all():size():totable(), { 0, 3 })
  tester:assertTableEq(e:dataspaceSize(), { 0, 3 })
  f:close()
end

function tests.unsupportedTypesAreErrors()
  local f = hdf5.open(DATA .. 'types.h5', 'r')
  errs(function() f:read('/string'):all() end, '[hdf5.HDF5DataSet:all]', "'/string'", 'types.h5', 'STRING')
  errs(function() f:read('/bool'):all() end, "'/bool'", 'ENUM')
  errs(function() f:read('/compound'):partial({ 1, 1 }) end, '[hdf5.HDF5DataSet:partial]', 'COMPOUND')
  errs(function() f:read('/uint64_big'):all() end, "'/uint64_big'", '2^63')
  f:close()
end

function tests.groupsAndNestedPaths()
  local f = hdf5.open(DATA .. 'structure.h5', 'r')
  local deep = torch.range(0, 5):view(2, 3) - 2.5
  same(f:read('/a/b/c/deep'):all(), 'torch.FloatTensor', deep, 'deep')
  local a = f:read('/a')
  tester:asserteq(torch.typename(a), 'hdf5.HDF5Group')
  same(a:read('b/c/deep'):all(), 'torch.FloatTensor', deep, 'relative path')
  same(a:read({ 'b', 'c', 'deep' }):all(), 'torch.FloatTensor', deep, 'table path (torch-hdf5 form)')
  tester:asserteq(f:read(), f:read('/'))
  local images = torch.range(0, 71):view(4, 2, 3, 3)
  same(f:read('train/images'):all(), 'torch.ByteTensor', images, 'images')
  local everything = f:all()
  same(everything.train.labels, 'torch.LongTensor', torch.DoubleTensor({ 3, 1, 4, 1 }), 'labels')
  same(everything.a.b.c.deep, 'torch.FloatTensor', deep, 'all().a.b.c.deep')
  tester:assertTableEq(everything.emptygroup, {})
  local keys = {}
  for k in pairs(everything) do keys[#keys + 1] = k end
  table.sort(keys)
  tester:assertTableEq(keys, { 'a', 'chunked', 'cube', 'cube_chunked', 'emptygroup', 'train' })
  same(f:read('/train'):all().images, 'torch.ByteTensor', images, 'group all')
  f:close()
end

-- cube[i, j, k] = ((i-1) * 30 + (j-1) * 6 + (k-1)) * 0.5 - 7 (1-based), contiguous and chunked.
function tests.partialMatchesNarrowedAll()
  local f = hdf5.open(DATA .. 'structure.h5', 'r')
  local cube = torch.range(0, 119):double():view(4, 5, 6) * 0.5 - 7
  for _, name in ipairs({ '/cube', '/cube_chunked' }) do
    local d = f:read(name)
    same(d:all(), 'torch.DoubleTensor', cube, name)
    local cases = {
      { { 1, 4 }, { 1, 5 }, { 1, 6 } },
      { { 2, 3 }, { 1, 2 }, { 4, 6 } },
      { 4, { 2, 5 }, 1 },
      { { 1, 1 }, { 5, 5 }, { 6, 6 } },
      { { -2, -1 }, { 3, -1 }, -1 },
    }
    for i, r in ipairs(cases) do
      local expected = cube
      for dim = 1, 3 do
        local first, last = type(r[dim]) == 'table' and r[dim][1] or r[dim], type(r[dim]) == 'table' and r[dim][2] or r[dim]
        local n = cube:size(dim)
        if first < 0 then first = n + first + 1 end
        if last < 0 then last = n + last + 1 end
        expected = expected:narrow(dim, first, last - first + 1)
      end
      same(d:partial(unpack(r)), 'torch.DoubleTensor', expected, name .. ' case ' .. i)
    end
  end
  -- chunked[i, j] = (i-1) * 7 + (j-1), int32 10x7 in (3, 4) gzip chunks: a block across chunks
  local c = f:read('/chunked')
  same(c:partial({ 3, 8 }, { 2, 6 }), 'torch.IntTensor', c:all():narrow(1, 3, 6):narrow(2, 2, 5), 'chunked')
  same(c:all(), 'torch.IntTensor', torch.range(0, 69):view(10, 7), 'chunked all')
  f:close()
end

function tests.badPartialRangesAreErrors()
  local f = hdf5.open(DATA .. 'structure.h5', 'r')
  local d = f:read('/cube')
  errs(function() d:partial({ 1, 2 }, { 1, 2 }) end, '[hdf5.HDF5DataSet:partial]', "'/cube'", '3 dimensions but 2')
  errs(function() d:partial({ 3, 2 }, { 1, 2 }, { 1, 2 }) end, 'range 1', 'first > last')
  errs(function() d:partial({ 1, 5 }, { 1, 2 }, { 1, 2 }) end, 'range 1', '1..4')
  errs(function() d:partial({ 1, 2 }, { 0, 2 }, { 1, 2 }) end, 'range 2')
  errs(function() d:partial({ 1, 2 }, { 1, 2 }, { 1.5, 2 }) end, 'range 3')
  errs(function() d:partial({ 1, 2 }, 'x', { 1, 2 }) end, 'range 2', '{first, last}')
  errs(function() f:read('/train/labels'):partial({ 1, 2, 3 }) end, 'range 1')
  local g = hdf5.open(DATA .. 'types.h5', 'r')
  errs(function() g:read('/scalar'):partial({ 1, 1 }) end, 'scalar')
  g:close()
  f:close()
end

function tests.everyTensorTypeRoundTrips()
  local path = tmp('types.h5')
  local base = torch.DoubleTensor({ { -3, 0, 7 }, { 100, -100, 1 } })
  local types = { 'torch.ByteTensor', 'torch.IntTensor', 'torch.LongTensor', 'torch.FloatTensor', 'torch.DoubleTensor' }
  if torch.CharTensor then types[#types + 1] = 'torch.CharTensor' end
  if torch.ShortTensor then types[#types + 1] = 'torch.ShortTensor' end
  local f = hdf5.open(path, 'w')
  for _, t in ipairs(types) do f:write('/' .. t, base:type(t)) end
  f:write('/long_big', torch.LongTensor({ -2 ^ 62, 2 ^ 53 + 2 }))
  f:write('/noncontiguous', torch.range(1, 12):view(3, 4):t())
  f:write('/scalar', torch.DoubleTensor():resize(torch.LongStorage({})):fill(4.5))
  f:write('/empty', torch.FloatTensor(0, 2))
  f:write('/cube', torch.range(1, 24):view(2, 3, 4))
  f:close()
  f = hdf5.open(path, 'r')
  for _, t in ipairs(types) do same(f:read('/' .. t):all(), t, base, t) end
  same(f:read('/long_big'):all(), 'torch.LongTensor', torch.DoubleTensor({ -2 ^ 62, 2 ^ 53 + 2 }), 'long_big')
  same(f:read('/noncontiguous'):all(), 'torch.FloatTensor', torch.range(1, 12):view(3, 4):t(), 'transposed')
  tester:asserteq(f:read('/scalar'):all():dim(), 0)
  tester:asserteq(f:read('/scalar'):all():sum(), 4.5)
  tester:assertTableEq(f:read('/empty'):all():size():totable(), { 0, 2 })
  local cube = f:read('/cube')
  same(cube:partial({ 2, 2 }, { 1, 3 }, { 2, 3 }), 'torch.FloatTensor',
    torch.range(1, 24):view(2, 3, 4):narrow(1, 2, 1):narrow(3, 2, 2), 'partial of a written cube')
  f:close()
end

function tests.chunkedAndDeflateWrites()
  local path = tmp('chunked.h5')
  local x = torch.range(1, 600):view(20, 30)
  local f = hdf5.open(path, 'w')
  local opt = hdf5.DataSetOptions():setChunked(8, 8):setDeflate()
  f:write('/gz', x, opt)
  f:write('/gz9', x:int(), hdf5.DataSetOptions():setChunked(32, 4):setDeflate(9))  -- 32 > 20 shrinks
  f:write('/chunkOnly', x:double(), hdf5.DataSetOptions():setChunked(5, 5))
  f:write('/again', x:narrow(1, 1, 3), opt)  -- one options object serves several shapes
  f:close()
  f = hdf5.open(path, 'r')
  same(f:read('/gz'):all(), 'torch.FloatTensor', x, 'gz')
  same(f:read('/gz9'):all(), 'torch.IntTensor', x, 'gz9')
  same(f:read('/chunkOnly'):all(), 'torch.DoubleTensor', x, 'chunkOnly')
  same(f:read('/again'):all(), 'torch.FloatTensor', x:narrow(1, 1, 3), 'again')
  same(f:read('/gz'):partial({ 5, 17 }, { 9, 30 }), 'torch.FloatTensor', x:narrow(1, 5, 13):narrow(2, 9, 22), 'gz partial')
  f:close()
  -- 600 compressible floats take far fewer bytes with DEFLATE than without
  local g = hdf5.open(tmp('plain.h5'), 'w')
  g:write('/x', torch.zeros(200, 100))
  g:close()
  local z = hdf5.open(tmp('zipped.h5'), 'w')
  z:write('/x', torch.zeros(200, 100), hdf5.DataSetOptions():setChunked(50, 100):setDeflate())
  z:close()
  local function bytes(p) local h = io.open(p, 'rb'); local n = h:seek('end'); h:close(); return n end
  tester:assert(bytes(tmp('zipped.h5')) < bytes(tmp('plain.h5')) / 5, 'DEFLATE compresses zeros')
  tester:asserteq(tostring(opt), '[DataSetOptions: chunking=8x8 deflate=6]')
end

function tests.optionErrors()
  local f = hdf5.open(tmp('opterr.h5'), 'w')
  errs(function() f:write('/x', torch.ones(4, 4), hdf5.DataSetOptions():setChunked(2, 2, 2)) end,
    '[hdf5.HDF5Group:write]', 'chunk size has 3 dimensions', "'/x'", '2')
  errs(function() f:write('/x', torch.ones(4), hdf5.DataSetOptions():setDeflate()) end, 'setChunked')
  errs(function() hdf5.DataSetOptions():setDeflate(10) end, '[hdf5.DataSetOptions:setDeflate]', '0..9')
  errs(function() hdf5.DataSetOptions():setChunked(0, 3) end, '[hdf5.DataSetOptions:setChunked]', 'positive')
  errs(function() hdf5.DataSetOptions():setChunked() end, 'none')
  errs(function() f:write('/x', torch.ones(2), { chunk = 2 }) end, 'hdf5.DataSetOptions', 'table')
  f:close()
end

function tests.overwriting()
  local path = tmp('over.h5')
  local f = hdf5.open(path, 'w')
  f:write('/x', torch.ones(2, 2))
  f:write('/x', torch.LongTensor({ 1, 2, 3 }))  -- Note [Writing over a dataset]
  f:write('/keep', torch.zeros(1))
  f:close()
  f = hdf5.open(path)  -- 'a': the existing file, read/write
  same(f:read('/x'):all(), 'torch.LongTensor', torch.DoubleTensor({ 1, 2, 3 }), 'replaced')
  f:write('/added', torch.ones(1))
  f:close()
  f = hdf5.open(path, 'r+')
  tester:assertTableEq(f:read('/keep'):dataspaceSize(), { 1 })
  tester:assertTableEq(f:read('/added'):dataspaceSize(), { 1 })
  f:close()
  f = hdf5.open(path, 'w')  -- 'w' truncates
  f:write('/y', torch.ones(1))
  f:close()
  f = hdf5.open(path, 'r')
  local keys = {}
  for k in pairs(f:all()) do keys[#keys + 1] = k end
  tester:assertTableEq(keys, { 'y' })
  f:close()
  errs(function() hdf5.open(path, 'w-') end, '[hdf5.open]', 'already exists', 'over.h5')
  f = hdf5.open(tmp('fresh.h5'), 'w-')
  f:close()
end

function tests.nestedGroupsAndTablesOnWrite()
  local path = tmp('nested.h5')
  local f = hdf5.open(path, 'w')
  f:write('/a/b/c', torch.ones(2))
  f:write('a/b/d', torch.zeros(3))
  f:write('/t', { x = torch.ones(1), sub = { y = torch.IntTensor({ 5 }) } })
  f:write('/', { top = torch.ones(4) })
  f:read('/a'):write('e/f', torch.ones(5))
  errs(function() f:write('/a/b/c/x', torch.ones(1)) end, '[hdf5.HDF5Group:write]', "'/a/b/c'", 'is a dataset, not a group')
  errs(function() f:write('/a/b', torch.ones(1)) end, "'/a/b'", 'is a group')
  errs(function() f:write('/', torch.ones(1)) end, 'needs a name')
  errs(function() f:write('/s', 'text') end, 'tensors and tables of tensors', 'string')
  errs(function() f:write('/b', torch.ones(2):bool()) end, 'torch.BoolTensor', ':float()')
  f:close()
  f = hdf5.open(path, 'r')
  local all = f:all()
  same(all.a.b.c, 'torch.FloatTensor', torch.ones(2), 'a/b/c')
  same(all.a.b.d, 'torch.FloatTensor', torch.zeros(3), 'a/b/d')
  same(all.a.e.f, 'torch.FloatTensor', torch.ones(5), 'a/e/f')
  same(all.t.sub.y, 'torch.IntTensor', torch.DoubleTensor({ 5 }), 't/sub/y')
  same(all.top, 'torch.FloatTensor', torch.ones(4), 'top')
  f:close()
end

function tests.append()
  local f = hdf5.open(tmp('append.h5'), 'w')
  local opt = hdf5.DataSetOptions():setChunked(4, 3)
  f:append('/x', torch.range(1, 6):view(2, 3), opt)  -- creates
  f:append('/x', torch.range(7, 15):view(3, 3))
  f:append('/x', torch.FloatTensor(0, 3))
  same(f:read('/x'):all(), 'torch.FloatTensor', torch.range(1, 15):view(5, 3), 'appended')
  errs(function() f:append('/x', torch.ones(2, 4)) end, '[hdf5.HDF5Group:append]', 'sizes after the first')
  errs(function() f:append('/x', torch.ones(3)) end, '1-dimensional', '2 dimensions')
  f:write('/fixed', torch.ones(2, 3))
  errs(function() f:append('/fixed', torch.ones(1, 3)) end, "'/fixed'", 'cannot grow', 'setChunked')
  f:close()
end

function tests.fileErrors()
  errs(function() hdf5.open(tmp('missing.h5'), 'r') end, '[hdf5.open]', 'no such file', 'missing.h5')
  errs(function() hdf5.open(tmp('missing.h5'), 'r+') end, 'no such file')
  errs(function() hdf5.open(tmp('nodir/x.h5'), 'w') end, 'no such directory', 'nodir')
  errs(function() hdf5.open(tmp('x.h5'), 'rw') end, 'unknown mode', 'rw')
  errs(function() hdf5.open(42) end, 'file name')
  local txt = tmp('not.h5')
  local h = io.open(txt, 'w')
  h:write('plain text, not HDF5\n')
  h:close()
  errs(function() hdf5.open(txt, 'r') end, 'not an HDF5 file', 'not.h5')
  local f = hdf5.open(DATA .. 'structure.h5', 'r')
  errs(function() f:write('/x', torch.ones(1)) end, '[hdf5.HDF5Group:write]', 'read-only', 'structure.h5')
  errs(function() f:read('/train/nope') end, '[hdf5.HDF5Group:read]', "'/train/nope'", 'structure.h5')
  errs(function() f:read('/nope/deeper') end, "'/nope/deeper'")
  errs(function() f:read(3) end, 'must be a string')
  local d = f:read('/cube')
  d:close()
  errs(function() d:all() end, "'/cube'", 'is closed')
  local d2 = f:read('/cube')
  f:close()
  f:close()  -- twice is fine
  errs(function() d2:partial({ 1, 1 }, { 1, 1 }, { 1, 1 }) end, 'is closed')
  errs(function() f:read('/cube') end, 'is closed')
  tester:assert(tostring(f):find('(closed)', 1, true) ~= nil, 'tostring says closed')
end

-- Note [Closing what the script forgot]: an unclosed file is closed by the collector, so the
-- same name can be created again; a dataset held alone keeps its file open.
function tests.unclosedFilesAreClosedByTheCollector()
  local path = tmp('gc.h5')
  do
    local f = hdf5.open(path, 'w')
    f:write('/x', torch.ones(3))
  end
  collectgarbage()
  collectgarbage()
  local d = hdf5.open(path, 'r'):read('/x')
  collectgarbage()
  collectgarbage()
  same(d:all(), 'torch.FloatTensor', torch.ones(3), 'dataset outlives its file object')
  d = nil
  collectgarbage()
  collectgarbage()
  local g = hdf5.open(path, 'w')  -- fails if the file were still open
  g:close()
end

-- Without libhdf5, require 'hdf5' says which Debian package provides it (ffi.load made to fail).
function tests.missingLibraryNamesThePackage()
  local ffi = require 'ffi'
  local saved = { hdf5 = package.loaded.hdf5, lib = package.loaded['hdf5.lib'], global = rawget(_G, 'hdf5') }
  local load = ffi.load
  package.loaded.hdf5, package.loaded['hdf5.lib'], hdf5 = nil, nil, nil
  ffi.load = function(name) error('cannot open ' .. name) end
  local ok, err = pcall(require, 'hdf5')
  local ok2, err2 = pcall(require, 'hdf5')  -- no "loop or previous error" mark left behind
  ffi.load = load
  package.loaded.hdf5, package.loaded['hdf5.lib'], hdf5 = saved.hdf5, saved.lib, saved.global
  tester:assert(not ok, 'require must fail without the library')
  tester:assert(tostring(err):find('libhdf5-103-1', 1, true) ~= nil, 'names the package: ' .. tostring(err))
  tester:assert(tostring(err):find('apt-get install', 1, true) ~= nil, 'says how to install it')
  tester:assert(not ok2 and tostring(err2):find('libhdf5-103-1', 1, true) ~= nil, 'again: ' .. tostring(err2))
  -- and the package works again afterwards
  tester:asserteq(require('hdf5'), saved.hdf5)
end

tester:add(tests)
local ok, err = pcall(tester.run, tester)
os.execute("rm -rf '" .. TMP .. "'")
if not ok then error(err, 0) end
