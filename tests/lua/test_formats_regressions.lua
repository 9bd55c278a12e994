-- Regressions from the review of the file formats: safetensors (checked against a file written
-- the reference writer's way by tests/data/formats_review/gen_safetensors.py with PyTorch 1.13),
-- TensorBoard event files (record bytes and CRC32C values computed in Python) and the profiler.
local ffi = require 'ffi'
local tester = torch.Tester()
local tests = torch.TestSuite()

local TMP = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/formats_regr_'
local DATA = '../data/formats_review/'

local FILES = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/files.lua')
local read_file, write_file = FILES.read, FILES.write
local function u64(n) return ffi.string(ffi.new('uint64_t[1]', n), 8) end
local function st_file(header, data) return u64(#header) .. header .. data end
local function load_bytes(s, opts)
  write_file(TMP .. 'gen.safetensors', s)
  return torch.loadSafetensors(TMP .. 'gen.safetensors', opts)
end
-- The bytes of a tensor's elements in row-major order, as hex.
local function hex(t)
  local c = t:contiguous()
  local s = ffi.string(ffi.cast('const char *', c:data()), c:nElement() * c:elementSize())
  return (s:gsub('.', function(ch) return string.format('%02x', ch:byte()) end))
end

-- ---- safetensors -------------------------------------------------------------------------------

-- The fixture's values, as PyTorch 1.13 stored them (little-endian bytes).
local FIXTURE = {
  f64 = { 'torch.DoubleTensor', { 2, 2 }, '000000000000f83f00000000000000802be6708b68120000ffffffffffffef7f' },
  f32 = { 'torch.FloatTensor', { 4 }, 'cdcccc3d000080ff01000000ffff7f7f' },
  f16 = { 'torch.HalfTensor', { 4 }, '662efffb0100007c' },
  bf16 = { 'torch.BFloat16Tensor', { 3 }, 'cd3d62ff0100' },
  i64 = { 'torch.LongTensor', { 3 }, '0000000000000080ffffffffffffff7f0100000000002000' },
  i32 = { 'torch.IntTensor', { 2 }, '00000080ffffff7f' },
  i16 = { 'torch.ShortTensor', { 2 }, '0080ff7f' },
  i8 = { 'torch.CharTensor', { 2 }, '807f' },
  u8 = { 'torch.ByteTensor', { 2 }, '00ff' },
  b = { 'torch.BoolTensor', { 3 }, '010001' },
  scalar = { 'torch.FloatTensor', {}, '00002040' },
  empty = { 'torch.FloatTensor', { 0, 3 }, '' },
  ['caf\195\169.\207\128'] = { 'torch.DoubleTensor', { 1 }, '0000000000000840' },
}

local function check_fixture(t, what)
  local n = 0
  for name, want in pairs(FIXTURE) do
    n = n + 1
    local x = t[name]
    tester:assert(x ~= nil, what .. ': ' .. name .. ' is missing')
    if x then
      tester:asserteq(x:type(), want[1], what .. ': ' .. name)
      tester:eq(x:size():totable(), want[2], what .. ': ' .. name .. ' shape')
      tester:asserteq(hex(x), want[3], what .. ': ' .. name .. ' bytes')
    end
  end
  local m = 0
  for _ in pairs(t) do m = m + 1 end
  tester:asserteq(m, n, what .. ': tensor count')
end

function tests.stLoadsTheReferenceLayout()
  for _, opts in ipairs({ {}, { mmap = true } }) do
    local t, meta = torch.loadSafetensors(DATA .. 'all_dtypes.safetensors', opts)
    check_fixture(t, opts.mmap and 'mmap' or 'read')
    tester:eq(meta, { format = 'pt', note = '\195\169\195\168 "q"' })
  end
end

function tests.stRoundTripIsBitExact()
  local t, meta = torch.loadSafetensors(DATA .. 'all_dtypes.safetensors')
  local path = TMP .. 'rt.safetensors'
  torch.saveSafetensors(path, t, meta)
  local back, meta2 = torch.loadSafetensors(path)
  check_fixture(back, 'round trip')
  tester:eq(meta2, meta)
  local s = read_file(path)
  local n = tonumber(ffi.cast('uint64_t *', s)[0])
  tester:asserteq((8 + n) % 8, 0, 'data starts 8-byte aligned')
  tester:assert(s:sub(9, 8 + n):match('^{.*} *$') ~= nil, 'the header is JSON padded with spaces')
end

function tests.stViewsAndSharedStorages()
  local base = torch.range(1, 24)
  local views = {
    narrow = base:narrow(1, 5, 4),                         -- storage offset
    stepped = base[{ { 2, 20, 3 } }],                       -- stride 3
    transposed = base:view(4, 6):t(),                       -- non-contiguous 2D
    expanded = torch.Tensor({ 1, 2 }):view(2, 1):expand(2, 3),
    col = base:view(4, 6):select(2, 2),
    again = base,                                           -- one storage under two names
    same = base,
  }
  local path = TMP .. 'views.safetensors'
  torch.saveSafetensors(path, views)
  local back = torch.loadSafetensors(path)
  for k, v in pairs(views) do
    tester:eq(back[k]:size():totable(), v:size():totable(), k)
    tester:eq(back[k]:totable(), v:totable(), k)
    tester:assert(back[k]:isContiguous(), k .. ' loads contiguous')
  end
  back.again:fill(0)
  tester:asserteq(back.same:sum(), 300, 'names that shared a storage load as separate tensors')
end

function tests.stDuplicateNames()
  local path = TMP .. 'dup.safetensors'
  tester:assertErrorPattern(function() torch.saveSafetensors(path, { [1] = torch.Tensor(1), ['1'] = torch.Tensor(1) }) end,
    "two tensors are named '1'")
  tester:assertErrorPattern(function() torch.saveSafetensors(path, { a = { [0] = torch.Tensor(1) }, ['a.0'] = torch.Tensor(1) }) end,
    "two tensors are named 'a.0'")
  tester:assertErrorPattern(function() torch.saveSafetensors(path, { __metadata__ = torch.Tensor(1) }) end, 'reserved')
  local d = '{"dtype":"F32","shape":[0],"data_offsets":[0,0]}'
  tester:assertErrorPattern(function() load_bytes(st_file('{"a":' .. d .. ',"a":' .. d .. '}', '')) end, 'duplicate key "a"')
end

function tests.stHugeHeaderSizeMessage()
  -- 2^64 - 1 was printed through %d of a double: "declares a -9223372036854775808-byte header"
  local s = string.rep('\255', 8) .. '{}'
  tester:assertErrorPattern(function() load_bytes(s) end,
    '%[loadSafetensors%].*declares a 18446744073709551615%-byte header but the file has 10 bytes')
  tester:assertErrorPattern(function() load_bytes(u64(2 ^ 40) .. '{}') end, 'declares a 1099511627776%-byte header')
end

function tests.stNullIsNotAnObject()
  -- JSON null decodes to a table (J.null): the header `null` loaded as an empty file
  tester:assertErrorPattern(function() load_bytes(st_file('null', '')) end, 'header is not a JSON object')
  tester:assertErrorPattern(function() load_bytes(st_file('{"a":null}', '')) end, "tensor 'a': its entry is not a JSON object")
  local t, meta = load_bytes(st_file('{"__metadata__":null}', ''))  -- the reference's Option: allowed
  tester:asserteq(next(t), nil)
  tester:asserteq(next(meta), nil)
end

function tests.stJsonNumbersFollowTheGrammar()
  local f4 = ffi.string(ffi.new('float[2]', { 1, 2 }), 8)
  local function header(shape, offs)
    return string.format('{"a":{"dtype":"F32","shape":[%s],"data_offsets":[0,%s]}}', shape, offs)
  end
  for _, bad in ipairs({ { '02', '8' }, { '2.', '8' }, { '2', '8e' }, { '2', '.8' }, { '2', '8e+' }, { '-', '8' } }) do
    tester:assertErrorPattern(function() load_bytes(st_file(header(bad[1], bad[2]), f4)) end, 'bad JSON',
      'shape ' .. bad[1] .. ' offset ' .. bad[2])
  end
  for _, good in ipairs({ { '2', '8e0' }, { '2.0', '8' }, { '2', '0.8e1' }, { '2', '80E-1' } }) do
    local t = load_bytes(st_file(header(good[1], good[2]), f4))
    tester:eq(t.a:totable(), { 1, 2 }, 'shape ' .. good[1] .. ' offset ' .. good[2])
  end
  local t = load_bytes(st_file('{"a":{"dtype":"F32","shape":[-0],"data_offsets":[0,0]}}', ''))
  tester:eq(t.a:size():totable(), { 0 })
end

function tests.stUnpairedSurrogates()
  tester:assertErrorPattern(function() load_bytes(st_file('{"__metadata__":{"k":"\\udc00"}}', '')) end, 'unpaired surrogate')
  tester:assertErrorPattern(function() load_bytes(st_file('{"__metadata__":{"k":"\\ud800x"}}', '')) end, 'unpaired surrogate')
  local _, meta = load_bytes(st_file('{"__metadata__":{"k":"\\ud83d\\ude00"}}', ''))
  tester:asserteq(meta.k, '\240\159\152\128')
end

function tests.stWriterNeedsUtf8()
  local path = TMP .. 'utf8.safetensors'
  torch.saveSafetensors(path, { ['w\195\169'] = torch.Tensor({ 1 }) }, { ['k\207\128'] = 'v\226\130\172' })
  local t, meta = torch.loadSafetensors(path)
  tester:eq(t['w\195\169']:totable(), { 1 })
  tester:asserteq(meta['k\207\128'], 'v\226\130\172')
  -- a Latin-1 name wrote a header the reference reader (serde_json) rejects
  tester:assertErrorPattern(function() torch.saveSafetensors(path, { ['w\233'] = torch.Tensor(1) }) end,
    '%[saveSafetensors%].*tensor name .* is not valid UTF%-8')
  tester:assertErrorPattern(function() torch.saveSafetensors(path, { a = { ['\192\128'] = torch.Tensor(1) } }) end,
    'not valid UTF%-8')  -- an overlong NUL
  tester:assertErrorPattern(function() torch.saveSafetensors(path, { a = torch.Tensor(1) }, { k = '\237\160\128' }) end,
    'metadata .* is not valid UTF%-8')  -- an encoded surrogate
  tester:assertErrorPattern(function() torch.saveSafetensors(path, { a = torch.Tensor(1) }, { ['\255'] = 'v' }) end,
    'metadata .* is not valid UTF%-8')
  tester:asserteq(torch.loadSafetensors(path)['w\195\169']:totable()[1], 1, 'a failed save leaves the old file')
end

function tests.stHostileHeaders()
  local f4 = ffi.string(ffi.new('float[2]', { 1, 2 }), 8)
  local function bad(header, data, pattern)
    tester:assertErrorPattern(function() load_bytes(st_file(header, data)) end, '%[loadSafetensors%].*' .. pattern, header)
  end
  local e = '{"dtype":"F32","shape":[1],"data_offsets":[%d,%d]}'
  bad('{"a":' .. e:format(0, 4) .. ',"b":' .. e:format(2, 6) .. '}', f4, 'overlaps or leaves a hole')
  bad('{"a":' .. e:format(4, 8) .. '}', f4, 'overlaps or leaves a hole')
  bad('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}', f4:sub(1, 6), 'do not lie within the 6 data bytes')
  bad('{"a":{"dtype":"F32","shape":[1e300,0],"data_offsets":[0,0]}}', '', 'shape holds')
  bad('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,18446744073709551615]}}', f4, 'do not lie within')
  bad('{"a":{"dtype":"F32","shape":{"0":2},"data_offsets":[0,8]}}', f4, 'shape is not a list')
  bad('{"a":{"dtype":"U16","shape":[4],"data_offsets":[0,8]}}', f4, 'unsupported dtype U16')
  bad('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}\0', f4, 'trailing characters')
  bad('{"__metadata__":{"k":["v"]}}', '', 'metadata value k is not a string')
  bad('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}', f4, 'bad JSON')
  bad(string.rep('{"a":', 80) .. '1' .. string.rep('}', 80), '', 'nested too deeply')
end

-- ---- TensorBoard -------------------------------------------------------------------------------

local function event_files(dir)
  local p = assert(io.popen('ls ' .. dir .. '/events.out.tfevents.*'))
  local out = {}
  for line in p:lines() do out[#out + 1] = line end
  p:close()
  return out
end

-- The records of an event file (framing checked by length only; CRCs are compared as bytes).
local function records(s)
  local out, i = {}, 1
  while i <= #s do
    local n = tonumber(ffi.cast('uint64_t *', s:sub(i, i + 7))[0])
    out[#out + 1] = s:sub(i, i + 15 + n)
    i = i + 16 + n
  end
  return out
end

local function tohex(s) return (s:gsub('.', function(c) return string.format('%02x', c:byte()) end)) end

function tests.tbRecordBytesMatchPython()
  local pb = require 'torch.tensorboard_proto'
  -- CRC32C vectors (RFC 3720 B.4) and a masked CRC, from a Python implementation
  tester:asserteq(pb.crc32c(string.rep('\0', 32)), 0x8a9136aa)
  tester:asserteq(pb.crc32c(string.rep('\255', 32)), 0x62a8ab43)
  local ramp = {}
  for i = 0, 31 do ramp[#ramp + 1] = string.char(i) end
  tester:asserteq(pb.crc32c(table.concat(ramp)), 0x46dd794e)
  tester:asserteq(pb.masked_crc32c('123456789'), 0xc78ab0e5)
  -- Event{wall_time 1000.5, step -3, summary{value{tag 'loss', simple_value 0.25}}} framed as a
  -- TFRecord, encoded by hand in Python (field 1 double, 2 varint of the int64, 5 message).
  local dir = TMP .. 'tb_bytes'
  os.execute('rm -rf ' .. dir)
  local w = torch.utils.tensorboard.SummaryWriter(dir)
  w:addScalar('loss', 0.25, -3, 1000.5)
  w:close()
  local files = event_files(dir)
  tester:asserteq(#files, 1)
  local recs = records(read_file(files[1]))
  tester:asserteq(#recs, 2)
  tester:asserteq(tohex(recs[2]), '2300000000000000b09f7743090000000000448f4010fdffffffffffffffff01'
    .. '2a0d0a0b0a046c6f7373150000803e47063abe')
end

function tests.tbHistogramBinsAndValues()
  local dir = TMP .. 'tb_hist'
  os.execute('rm -rf ' .. dir)
  local w = torch.utils.tensorboard.SummaryWriter(dir)
  -- bins = 1e12 died with "table overflow" and no function named
  tester:assertErrorPattern(function() w:addHistogram('h', torch.Tensor({ 1, 2 }), 1, 1e12) end,
    '%[tensorboard.SummaryWriter.addHistogram%] bins must be at most 1000000')
  tester:assertErrorPattern(function() w:addHistogram('h', torch.Tensor({ 1, 2 }), 1, math.huge) end, 'at most')
  -- a table that is not a list of numbers was reported by torch.DoubleTensor
  tester:assertErrorPattern(function() w:addHistogram('h', { 'a' }, 1) end,
    '%[tensorboard.SummaryWriter.addHistogram%] values must be a tensor or a list of numbers')
  tester:assertErrorPattern(function() w:addHistogram('h', { { 1, 2 }, { 3 } }, 1) end, 'addHistogram')
  w:addHistogram('h', { 1, 2, 2, 3 }, 1, 3)
  w:close()
end

function tests.tbTagsMustBeUtf8()
  local dir = TMP .. 'tb_utf8'
  os.execute('rm -rf ' .. dir)
  local w = torch.utils.tensorboard.SummaryWriter(dir)
  w:addScalar('p\195\169rte', 1, 0)  -- UTF-8 is fine
  -- a Latin-1 tag is a protobuf string TensorBoard's readers cannot decode
  tester:assertErrorPattern(function() w:addScalar('p\233rte', 1, 0) end, '%[tensorboard.SummaryWriter.addScalar%] tag must be valid UTF%-8')
  tester:assertErrorPattern(function() w:addText('t\233', 'x', 0) end, 'addText%] tag must be valid UTF%-8')
  tester:assertErrorPattern(function() w:addScalars('m\233', { a = 1 }, 0) end, 'mainTag must be valid UTF%-8')
  tester:assertErrorPattern(function() w:addHparams({ ['lr\233'] = 1 }, { m = 1 }, { runName = 'r' }) end,
    'hparamDict must be keyed by valid UTF%-8 names')
  tester:assertErrorPattern(function() w:addHparams({ opt = 's\233' }, { m = 1 }, { runName = 'r' }) end,
    'hparamDict.opt must be valid UTF%-8')
  w:addText('t', 'bytes \233 are fine in text', 0)  -- string_val is a bytes field
  w:close()
end

-- ---- profiler ----------------------------------------------------------------------------------

local P = torch.profiler

local function busy(seconds)
  local t0 = os.clock()
  while os.clock() - t0 < seconds do end
end

function tests.profStopInsideNestedRanges()
  -- stop() inside two open ranges: the outer one's self time subtracted its open child's total
  -- only if the child had been closed first, so self times summed to about twice the wall time
  local prof
  P.start()
  P.recordFunction('outer', function()
    P.recordFunction('inner', function()
      busy(0.01)
      prof = P.stop()
    end)
  end)
  tester:assert(not P.isRunning())
  local ev = prof:events()
  tester:asserteq(#ev, 2)
  tester:asserteq(ev[1].name, 'outer')
  tester:asserteq(ev[2].parent, 1)
  local self_sum = ev[1].selfTime + ev[2].selfTime
  tester:assert(self_sum <= prof:totalTime() + 1e-6, string.format('self times %g exceed the wall time %g', self_sum, prof:totalTime()))
  tester:assert(ev[2].selfTime >= 1e4 * 0.9, 'the inner range holds the busy loop')
  tester:assert(ev[1].selfTime < ev[2].selfTime, 'the outer range is not charged for it')
  tester:assert(math.abs(ev[1].totalTime - ev[1].selfTime - ev[2].totalTime) < 1e-6)
end

function tests.profErrorLeavesTheProfilerUsable()
  local add = torch.add
  local ok, err = pcall(P.profile, function()
    P.recordFunction('a', function()
      P.recordFunction('b', function() torch.ones(2):add('x') end)
    end)
  end)
  tester:assert(not ok)
  tester:assertErrorPattern(function() error(err, 0) end, 'second operand')
  tester:assert(not P.isRunning())
  tester:assert(torch.add == add, 'the wrappers are gone')
  local prof = P.profile(function()
    P.recordFunction('c', function() torch.ones(2):add(1) end)
  end)
  local ev = prof:events()
  tester:asserteq(ev[1].name, 'c')
  tester:asserteq(ev[1].depth, 0)
  for i = 2, #ev do tester:asserteq(ev[i].depth >= 1, true, 'nested under c') end
  -- the error marks every range it crossed, and ranges stay balanced (stack pointer back at 0)
  local ok2 = pcall(P.profile, function() P.recordFunction('e', error, 'boom', 0) end)
  tester:assert(not ok2)
  P.start()
  torch.zeros(1)
  local p2 = P.stop()
  tester:asserteq(p2:events()[1].depth, 0)
end

function tests.profReportZeroAndHugeCounts()
  local Profile = require 'torch.profiler_report'
  local empty = P.profile(function() end)
  tester:asserteq(#empty:keyAverages(), 0)
  tester:assert(empty:table():find('Self time total: 0.000us', 1, true) ~= nil)
  local events = {}
  for i = 1, 100000 do
    events[i] = { name = 'op', kind = 'op', start = i, totalTime = 2e7, selfTime = 2e7, depth = 0 }
  end
  events[#events + 1] = { name = 'tiny', kind = 'op', start = 0, totalTime = 0, selfTime = 0, depth = 0 }
  local prof = Profile.new(events, 2e12, { recordShapes = false })
  local rows = prof:keyAverages()
  tester:asserteq(rows[1].count, 100000)
  tester:asserteq(rows[1].mean, 2e7)
  tester:asserteq(rows[2].count, 1)
  local text = prof:table()
  tester:assert(text:find('op%s+100%.00%%%s+2000000%.000s%s+2000000%.000s%s+20%.000s%s+100000') ~= nil, text)
  tester:assert(text:find('tiny%s+0%.00%%%s+0%.000us%s+0%.000us%s+0%.000us%s+1') ~= nil, text)
  tester:assert(text:find('100001 events', 1, true) ~= nil)
end

tester:add(tests)
tester:run()
