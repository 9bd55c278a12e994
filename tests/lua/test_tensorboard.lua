-- torch.utils.tensorboard.SummaryWriter (lua/torch/tensorboard*.lua): CRC32C vectors, protobuf
-- bytes of known messages, and event files read back by tests/lua/helpers/tfevents.lua (bitwise
-- CRC32C, generic protobuf decoding): records, scalars, scalar groups, histograms (PyTorch 1.13's
-- buckets), PNG images, text, buffering, close, errors.
require 'torch.tensorboard'
local pb = require 'torch.tensorboard_proto'
local ffi = require 'ffi'
local bit = require 'bit'
local R = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/tfevents.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()
local SummaryWriter = torch.utils.tensorboard.SummaryWriter
local hex, decode, read_records, read_event = R.hex, R.decode, R.read_records, R.read_event
local as_double, as_float, packed_doubles, crc32c_bitwise = R.as_double, R.as_float, R.packed_doubles, R.crc32c_bitwise

-- ---- Temporary directories --------------------------------------------------------------------------

local function shq(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
local dirs = {}
local function tmpdir()
  local d = os.tmpname()
  os.remove(d)
  dirs[#dirs + 1] = d
  return d
end
local function files_in(dir)
  local p = io.popen('find ' .. shq(dir) .. ' -type f | sort')
  local out = {}
  for line in p:lines() do out[#out + 1] = line end
  p:close()
  return out
end
local function events_of(dir)
  local files = files_in(dir)
  local mine = {}
  for _, f in ipairs(files) do
    if f:sub(#dir + 2):find('/') == nil then mine[#mine + 1] = f end
  end
  tester:asserteq(#mine, 1, 'one event file in ' .. dir)
  local evs = {}
  for _, r in ipairs(read_records(mine[1])) do evs[#evs + 1] = read_event(r) end
  return evs, mine[1]
end

-- ---- CRC32C and protobuf bytes ---------------------------------------------------------------------

function tests.crc32cVectors()
  -- RFC 3720 (iSCSI) B.4 vectors and the usual check value.
  tester:asserteq(pb.crc32c('123456789'), 0xE3069283)
  tester:asserteq(pb.crc32c(string.rep('\0', 32)), 0x8A9136AA)
  tester:asserteq(pb.crc32c(string.rep('\255', 32)), 0x62A8AB43)
  local inc = {}
  for i = 0, 31 do inc[#inc + 1] = string.char(i) end
  tester:asserteq(pb.crc32c(table.concat(inc)), 0x46DD794E)
  tester:asserteq(pb.crc32c(''), 0)
  -- continuing a CRC equals the CRC of the concatenation
  tester:asserteq(pb.crc32c('56789', pb.crc32c('1234')), 0xE3069283)
  -- the mask: ((crc >> 15) | (crc << 17)) + 0xa282ead8 mod 2^32, computed with Python integers
  tester:asserteq(pb.masked_crc32c('123456789'), 0xC78AB0E5)
  for _, s in ipairs({ 'a', 'tensorboard', string.rep('x', 1000) }) do
    tester:asserteq(pb.crc32c(s), crc32c_bitwise(s), s:sub(1, 10))
  end
end

function tests.varints()
  tester:asserteq(hex(pb.varint(0)), '00')
  tester:asserteq(hex(pb.varint(1)), '01')
  tester:asserteq(hex(pb.varint(127)), '7f')
  tester:asserteq(hex(pb.varint(300)), 'ac02')
  tester:asserteq(hex(pb.varint(2 ^ 35)), '8080808080' .. '01')
  -- negative int64: ten bytes of two's complement
  tester:asserteq(hex(pb.varint(-1)), 'ffffffffffffffffff01')
  tester:asserteq(hex(pb.varint(-2)), 'feffffffffffffffff01')
end

-- Note: google.protobuf is not installed for /usr/bin/python3, so the reference bytes below were
-- put together by hand (keys: field * 8 + wire type) with Python's struct for the IEEE doubles
-- and floats, and Python's bitwise CRC32C for the record's checksums.
function tests.scalarEventBytes()
  -- Event{wall_time = 1700000000.5, step = 3, summary = {value = {{tag = 'loss', simple_value = 0.25}}}}
  --   09 <double> | 10 03 | 2a 0d [ 0a 0b [ 0a 04 'loss' | 15 <float 0.25 = 00 00 80 3e> ] ]
  local ev = pb.event({ wall_time = 1700000000.5, step = 3,
    summary = pb.summary({ pb.value({ tag = 'loss', simple_value = 0.25 }) }) })
  tester:asserteq(hex(ev), '0900002040fc54d94110032a0d0a0b0a046c6f7373150000803e')
  -- TFRecord: length 26 as uint64 LE, masked CRC of the length, data, masked CRC of the data
  tester:asserteq(hex(pb.record(ev)),
    '1a00000000000000129bd82d0900002040fc54d94110032a0d0a0b0a046c6f7373150000803ebcf29b54')
  -- a oneof member is written even at its default: simple_value 0 stays (15 00000000), step 0 goes
  local zero = pb.event({ wall_time = 1.5, summary = pb.summary({ pb.value({ tag = 'a', simple_value = 0 }) }) })
  tester:asserteq(hex(zero), '09000000000000f83f2a0a0a080a01611500000000')
  tester:asserteq(hex(pb.event({ wall_time = 2, file_version = 'brain.Event:2' })),
    '090000000000000040' .. '1a0d' .. hex('brain.Event:2'))
end

function tests.textAndHistogramBytes()
  -- Value{tag = 'notes/text_summary', tensor = TensorProto{dtype = DT_STRING (7), tensor_shape =
  -- {dim = {{size = 1}}}, string_val = {'hi *md*'}}, metadata = {plugin_data = {plugin_name = 'text'}}}
  local v = pb.value({ tag = 'notes/text_summary', tensor = pb.string_tensor('hi *md*'), metadata = pb.plugin_metadata('text') })
  local ev = pb.event({ wall_time = 1.25, step = 7, summary = pb.summary({ v }) })
  tester:asserteq(hex(ev), '09000000000000f43f10072a330a310a126e6f7465732f746578745f73756d6d61727942110807120412020801'
    .. '42076869202a6d642a4a080a060a0474657874')
  -- HistogramProto{min = -1, max = 2, num = 3, sum = 1.5, sum_squares = 5.25, bucket_limit = {-1, 0.5, 2}
  -- (packed: 32 18 <3 doubles>), bucket = {0, 1, 2} (3a 18 <3 doubles>)}
  local h = pb.histogram({ min = -1, max = 2, num = 3, sum = 1.5, sum_squares = 5.25, bucket_limit = { -1, 0.5, 2 }, bucket = { 0, 1, 2 } })
  tester:asserteq(hex(h), '09000000000000f0bf11000000000000004019000000000000084021000000000000f83f29000000000000154032'
    .. '18000000000000f0bf000000000000e03f00000000000000403a180000000000000000000000000000f03f0000000000000040')
end

-- ---- Written files ----------------------------------------------------------------------------------------

function tests.scalarsFile()
  local dir = tmpdir()
  local before = os.time()
  local w = SummaryWriter(dir, { filenameSuffix = '.v1' })
  tester:asserteq(w:getLogdir(), dir)
  w:addScalar('loss/train', 0.5, 1)
  w:addScalar('loss/train', torch.DoubleTensor({ 0.25 }), 2)
  w:addScalar('acc', 1 / 3, 10, 1234.5)
  w:addScalar('nostep', -7)
  w:close()
  local evs, path = events_of(dir)
  local name = path:match('[^/]+$')
  local host = io.popen('hostname'):read('*l')
  tester:assert(name:match('^events%.out%.tfevents%.%d%d%d%d%d%d%d%d%d%d%..+%.%d+%.%d+%.v1$'), name)
  tester:assert(name:find('.' .. host .. '.', 1, true), name .. ' names the host ' .. host)
  local stamp = tonumber(name:match('tfevents%.(%d+)'))
  tester:assert(stamp >= before and stamp <= os.time(), 'the file name holds the Unix time')
  tester:asserteq(#evs, 5)
  tester:asserteq(evs[1].file_version, 'brain.Event:2')
  tester:assert(math.abs(evs[1].wall_time - os.time()) < 60, 'wall_time is now')
  local want = { { 'loss/train', 1, 0.5 }, { 'loss/train', 2, 0.25 }, { 'acc', 10, 1 / 3 }, { 'nostep', 0, -7 } }
  for i, wv in ipairs(want) do
    local e = evs[i + 1]
    tester:asserteq(e.tag, wv[1])
    tester:asserteq(e.step, wv[2])
    tester:asserteq(as_float(e.value[2][1]), tonumber(ffi.new('float', wv[3])), 'value stored as a float32')
  end
  tester:asserteq(evs[4].wall_time, 1234.5)
  tester:assert(evs[2].wall_time >= before - 1 and evs[2].wall_time <= os.time() + 1)
end

function tests.addScalarsSubRuns()
  local dir = tmpdir()
  local w = SummaryWriter(dir)
  w:addScalars('run/loss', { train = 1.5, test = 2 }, 4)
  w:addScalars('run/loss', { train = 1.25, test = 1.75 }, 5)
  w:close()
  -- PyTorch: logDir/<mainTag with '/' -> '_'>_<name>, each a run with mainTag as its tag
  for name, values in pairs({ train = { 1.5, 1.25 }, test = { 2, 1.75 } }) do
    local evs = events_of(dir .. '/run_loss_' .. name)
    tester:asserteq(#evs, 3)
    tester:asserteq(evs[1].file_version, 'brain.Event:2')
    for i = 1, 2 do
      tester:asserteq(evs[i + 1].tag, 'run/loss')
      tester:asserteq(evs[i + 1].step, i + 3)
      tester:asserteq(as_float(evs[i + 1].value[2][1]), values[i])
    end
  end
  tester:asserteq(#events_of(dir), 1, 'the main run holds only its file_version record')
  tester:asserteq(#files_in(dir), 3)
end

local function histo_of(e)
  local h = decode(e.value[5][1])
  return { min = as_double(h[1][1]), max = as_double(h[2][1]), num = as_double(h[3][1]), sum = as_double(h[4][1]),
    sum_squares = as_double(h[5][1]), limits = packed_doubles(h[6][1]), counts = packed_doubles(h[7][1]) }
end

function tests.histograms()
  local dir = tmpdir()
  local w = SummaryWriter(dir)
  local vals = { -3.5, -0.2, 0, 0, 1e-13, 0.7, 2.5, 2.5, 10 }
  w:addHistogram('tf', torch.DoubleTensor(vals), 1)
  w:addHistogram('four', torch.FloatTensor(vals), 2, 4)
  w:addHistogram('same', { 2, 2, 2 }, 3, 3)
  w:addHistogram('five', torch.DoubleTensor({ -3.5, 0.25, 3 }), 4, 5)
  local big = torch.randn(5000):double()
  w:addHistogram('big', big, 5)
  -- a parameter that requires grad (its reductions would be 0-dim tensors under autograd)
  local param = torch.DoubleTensor(vals):requiresGrad()
  w:addHistogram('param', param, 6)
  w:addImage('paramImage', torch.rand(3, 2, 2):requiresGrad(), 6)
  w:close()
  local evs = events_of(dir)
  tester:asserteq(#evs, 8)
  local hp = histo_of(evs[7])
  tester:asserteq(hp.num, 9)
  tester:assertalmosteq(hp.sum, 12, 1e-12, 'a parameter requiring grad logs its values')
  tester:assert(param.grad == nil, 'and records nothing')
  for i = 2, 6 do
    local h = histo_of(evs[i])
    local total = 0
    for _, c in ipairs(h.counts) do total = total + c end
    tester:asserteq(total, h.num, evs[i].tag .. ': buckets sum to the count')
    tester:asserteq(#h.limits, #h.counts)
    tester:asserteq(h.counts[1], 0, 'the first bucket is the empty one left of the support')
  end
  -- PyTorch 1.13's make_histogram with its default ('tensorflow') bins on vals
  local h = histo_of(evs[2])
  tester:asserteq(h.min, -3.5)
  tester:asserteq(h.max, 10)
  tester:asserteq(h.num, 9)
  tester:assertalmosteq(h.sum, 12, 1e-12)
  tester:assertalmosteq(h.sum_squares, 125.28, 1e-12)
  tester:asserteq(#h.limits, 622)
  tester:asserteq(h.limits[1], -3.8315657995195243)
  tester:asserteq(h.limits[2], -3.48324163592684)
  tester:asserteq(h.limits[621], 9.938094902880803)
  tester:asserteq(h.limits[622], 10.931904393168884)
  local nonzero = { [2] = 1, [32] = 1, [307] = 3, [594] = 1, [607] = 2, [622] = 1 }
  local at = { [2] = -3.48324163592684, [32] = -0.19961953895336082, [307] = 1e-12, [594] = 0.7580548669750213,
    [607] = 2.6170109961884593, [622] = 10.931904393168884 }
  for i, c in ipairs(h.counts) do
    tester:asserteq(c, nonzero[i] or 0, 'count of bucket ' .. i)
    if at[i] then tester:asserteq(h.limits[i], at[i], 'right edge of bucket ' .. i) end
  end
  -- bins = 4: equal width over [min, max] (PyTorch 1.13: limits -3.5 -0.125 3.25 6.625 10, counts 0 2 6 0 1)
  h = histo_of(evs[3])
  tester:assertTableEq(h.limits, { -3.5, -0.125, 3.25, 6.625, 10 })
  tester:assertTableEq(h.counts, { 0, 2, 6, 0, 1 })
  -- all equal: NumPy's range [v - 0.5, v + 0.5]; PyTorch 1.13: limits 1.8333333333333333, 2.1666666666666665
  h = histo_of(evs[4])
  tester:assertTableEq(h.limits, { 1.8333333333333333, 2.1666666666666665 })
  tester:assertTableEq(h.counts, { 0, 3 })
  tester:asserteq(h.sum_squares, 12)
  h = histo_of(evs[5])
  tester:assertTableEq(h.limits, { -3.5, -2.2, -0.8999999999999999, 0.40000000000000036, 1.7000000000000002, 3.0 })
  tester:assertTableEq(h.counts, { 0, 1, 0, 1, 0, 1 })
  -- big: the stats against the tensor's own reductions, each value inside its bucket's range
  h = histo_of(evs[6])
  tester:asserteq(h.min, big:min())
  tester:asserteq(h.max, big:max())
  tester:assertalmosteq(h.sum, big:sum(), 1e-9)
  tester:assertalmosteq(h.sum_squares, big:dot(big), 1e-9)
  tester:assert(h.limits[1] <= big:min() and h.limits[#h.limits] >= big:max())
  -- bucket i counts the values in [limits[i-1], limits[i]) (the last one closed)
  for i = 2, #h.limits, 97 do
    local inside = big:ge(h.limits[i - 1]):cmul(big:lt(h.limits[i])):sum()
    tester:asserteq(inside, h.counts[i], 'bucket ' .. i .. ' counts the values in its range')
  end
end

local function png_size(s)
  local function be32(i) local a, b, c, d = s:byte(i, i + 3) return ((a * 256 + b) * 256 + c) * 256 + d end
  return be32(17), be32(21)  -- IHDR: width, height
end

function tests.images()
  local image = require 'data.image'
  local dir = tmpdir()
  local w = SummaryWriter(dir)
  local chw = torch.rand(3, 6, 5)
  chw[1][1][1], chw[2][1][1], chw[3][1][1] = 1, 0, 0.5
  w:addImage('chw', chw, 1)
  local gray = torch.DoubleTensor(4, 7):uniform()
  w:addImage('hw', gray, 2, { dataformats = 'HW' })
  local rgba = torch.ByteTensor(5, 3, 4):random(0, 255)
  w:addImage('hwc', rgba, 3, { dataformats = 'HWC' })
  w:addImage('one', torch.rand(1, 2, 3), 4)
  w:close()
  tester:asserteq(chw[1][1][1], 1, 'the caller\'s image is left as is')
  tester:assertTensorEq(gray, gray:clone():clamp(0, 1), 0)
  local evs = events_of(dir)
  tester:asserteq(#evs, 5)
  local expect = {
    -- scaled in float32, as PyTorch does (a double 0.79999999 is 204, not 203)
    { 'chw', 6, 5, 3, chw:float():mul(255):floor():byte() },
    { 'hw', 4, 7, 3, gray:float():view(1, 4, 7):expand(3, 4, 7):clone():mul(255):floor():byte() },
    { 'hwc', 5, 3, 4, rgba:permute(3, 1, 2):contiguous() },
    { 'one', 2, 3, 3, nil },
  }
  for i, ex in ipairs(expect) do
    local e = evs[i + 1]
    tester:asserteq(e.tag, ex[1])
    tester:asserteq(e.step, i)
    local im = decode(e.value[4][1])
    tester:asserteq(im[1][1], ex[2], 'height')
    tester:asserteq(im[2][1], ex[3], 'width')
    tester:asserteq(im[3][1], ex[4], 'colorspace')
    local png = im[4][1]
    tester:asserteq(png:sub(1, 8), '\137PNG\r\n\26\n', 'PNG signature')
    local pw, ph = png_size(png)
    tester:asserteq(pw, ex[3])
    tester:asserteq(ph, ex[2])
    local decoded = image.decode(png, { type = 'byte' })
    tester:asserteq(decoded:size(1), ex[4])
    if ex[5] then tester:assertTensorEq(decoded, ex[5], 0, ex[1] .. ': pixels') end
  end
end

function tests.text()
  local dir = tmpdir()
  local w = SummaryWriter(dir)
  w:addText('notes', '# Run\nlr = **0.1**, ünïcode', 3)
  w:close()
  local evs = events_of(dir)
  local e = evs[2]
  tester:asserteq(e.tag, 'notes/text_summary')
  tester:asserteq(e.step, 3)
  local tensor = decode(e.value[8][1])
  tester:asserteq(tensor[1][1], 7, 'DT_STRING')
  local dim = decode(decode(tensor[2][1])[2][1])
  tester:asserteq(dim[1][1], 1, 'shape {1}')
  tester:asserteq(tensor[8][1], '# Run\nlr = **0.1**, ünïcode')
  local meta = decode(e.value[9][1])
  local plugin = decode(meta[1][1])
  tester:asserteq(plugin[1][1], 'text')
  tester:asserteq(plugin[2], nil, 'TextPluginData(version=0) is empty, so no content')
end

-- ---- Buffering and closing --------------------------------------------------------------------------

local function records_in(dir)
  local f = files_in(dir)[1]
  return #read_records(f)
end

function tests.flushAndClose()
  local dir = tmpdir()
  local w = SummaryWriter(dir)
  tester:asserteq(records_in(dir), 1, 'file_version is on disk at once')
  w:addScalar('a', 1, 1)
  w:addScalar('a', 2, 2)
  tester:asserteq(records_in(dir), 1, 'events stay pending (maxQueue 10, flushSecs 120)')
  w:flush()
  tester:asserteq(records_in(dir), 3, 'flush writes them')
  w:addScalar('a', 3, 3)
  w:close()
  tester:asserteq(records_in(dir), 4, 'close writes the rest')
  w:close()  -- twice: nothing
  tester:assertErrorPattern(function() w:addScalar('a', 4, 4) end, '%[tensorboard%.SummaryWriter%.addScalar%] the writer is closed')
  tester:assertErrorPattern(function() w:flush() end, 'tensorboard%.SummaryWriter%.flush%] the writer is closed')
  tester:assertErrorPattern(function() w:addText('t', 'x', 1) end, 'closed')

  -- maxQueue events force a flush; a tiny flushSecs flushes at every add
  local d2 = tmpdir()
  local q = SummaryWriter(d2, { maxQueue = 2 })
  q:addScalar('a', 1, 1)
  tester:asserteq(records_in(d2), 1)
  q:addScalar('a', 2, 2)
  tester:asserteq(records_in(d2), 3)
  q:close()
  local d3 = tmpdir()
  local s = SummaryWriter(d3, { flushSecs = 1e-9 })
  s:addScalar('a', 1, 1)
  tester:asserteq(records_in(d3), 2)
  s:close()
end

-- The reader's CRC checks bite: a flipped bit in a record's data or in its length is an error.
function tests.readerRejectsCorruption()
  local dir = tmpdir()
  local w = SummaryWriter(dir)
  w:addScalar('a', 1, 1)
  w:close()
  local path = files_in(dir)[1]
  local f = assert(io.open(path, 'rb'))
  local s = f:read('*a')
  f:close()
  local function corrupt(at)
    local g = assert(io.open(path, 'wb'))
    g:write(s:sub(1, at - 1) .. string.char(bit.bxor(s:byte(at), 1)) .. s:sub(at + 1))
    g:close()
  end
  tester:asserteq(#read_records(path), 2)
  corrupt(#s - 6)  -- inside the last record's data
  tester:assertErrorPattern(function() read_records(path) end, 'bad data CRC')
  corrupt(1)  -- the first record's length
  tester:assertErrorPattern(function() read_records(path) end, 'bad length CRC')
end

function tests.garbageCollectedWriterIsFlushed()
  local dir = tmpdir()
  do
    local w = SummaryWriter(dir)
    w:addScalar('a', 5, 1)
  end
  collectgarbage()
  collectgarbage()
  tester:asserteq(records_in(dir), 2)
end

function tests.defaultLogDir()
  local cwd = tmpdir()
  os.execute('mkdir -p ' .. shq(cwd))
  -- run in a child so that runs/ lands in the temporary directory
  local script = cwd .. '/child.lua'
  local f = assert(io.open(script, 'w'))
  f:write("package.path = " .. string.format('%q', package.path) .. "\nrequire 'torch.tensorboard'\n"
    .. "local w = torch.utils.tensorboard.SummaryWriter({ comment = '_x' }) io.write(w:getLogdir()) w:close()\n")
  f:close()
  local exe = arg[-1]
  if exe:sub(1, 1) ~= '/' then exe = io.popen('pwd'):read('*l') .. '/' .. exe end
  local p = io.popen('cd ' .. shq(cwd) .. ' && ' .. shq(exe) .. ' child.lua')
  local got = p:read('*a')
  p:close()
  local host = io.popen('hostname'):read('*l')
  tester:assert(got:match('^runs/%a%a%a%d%d_%d%d%-%d%d%-%d%d_') ~= nil, got)
  tester:asserteq(got:sub(-(#host + 3)), '_' .. host .. '_x')
  tester:asserteq(#files_in(cwd .. '/' .. got), 1)
end

-- ---- Errors ------------------------------------------------------------------------------------------------

function tests.errors()
  local dir = tmpdir()
  local w = SummaryWriter(dir)
  local S = '%[tensorboard%.SummaryWriter%.'
  tester:assertErrorPattern(function() w:addScalar('a', 'x', 1) end, S .. 'addScalar%] value must be a number or a one%-element tensor, got string')
  tester:assertErrorPattern(function() w:addScalar('a', torch.Tensor(2), 1) end, S .. 'addScalar%] value .*torch%.FloatTensor of size 2')
  tester:assertErrorPattern(function() w:addScalar(nil, 1, 1) end, S .. 'addScalar%] tag must be a non%-empty string, got nil')
  tester:assertErrorPattern(function() w:addScalar('', 1, 1) end, S .. 'addScalar%] tag must be')
  tester:assertErrorPattern(function() w:addScalar('a', 1, 1.5) end, S .. 'addScalar%] step must be an integer, got 1.5')
  tester:assertErrorPattern(function() w:addScalar('a', 1, 'x') end, S .. 'addScalar%] step must be a number')
  tester:assertErrorPattern(function() w:addScalars('m', 3, 1) end, S .. 'addScalars%] values must be a table')
  tester:assertErrorPattern(function() w:addScalars('m', { a = 'x' }, 1) end, S .. 'addScalars%] value a must be a number')
  tester:assertErrorPattern(function() w:addScalars('m', { 1 }, 1) end, S .. 'addScalars%] values must be keyed by names')
  tester:assertErrorPattern(function() w:addHistogram('h', torch.Tensor(0), 1) end, S .. 'addHistogram%] values is empty')
  tester:assertErrorPattern(function() w:addHistogram('h', torch.Tensor({ 1, 0 / 0 }), 1) end, S .. 'addHistogram%] values must be finite, got NaN')
  tester:assertErrorPattern(function() w:addHistogram('h', torch.Tensor({ 1, math.huge }), 1) end, 'finite, got an infinity')
  tester:assertErrorPattern(function() w:addHistogram('h', torch.Tensor({ 1 }), 1, 'auto') end, "bins must be 'tensorflow' or a positive integer, got string")
  tester:assertErrorPattern(function() w:addHistogram('h', torch.Tensor({ 1 }), 1, 0) end, 'positive integer, got 0')
  tester:assertErrorPattern(function() w:addHistogram('h', 'x', 1) end, S .. 'addHistogram%] values must be a tensor, got string')
  tester:assertErrorPattern(function() w:addImage('i', torch.rand(2, 4, 4), 1) end, S .. 'addImage%] img must have 1, 3 or 4 channels, got 2')
  tester:assertErrorPattern(function() w:addImage('i', torch.rand(4, 4), 1) end, 'img must have 3 dims for dataformats CHW')
  tester:assertErrorPattern(function() w:addImage('i', torch.rand(3, 4, 4), 1, { dataformats = 'NCHW' }) end, "dataformats must be 'CHW', 'HWC' or 'HW'")
  tester:assertErrorPattern(function() w:addImage('i', torch.LongTensor(3, 4, 4), 1) end, 'byte or floating tensor, got a torch%.LongTensor')
  tester:assertErrorPattern(function() w:addImage('i', torch.rand(3, 4, 4), 1, { format = 'HWC' }) end, 'unknown option format')
  tester:assertErrorPattern(function() w:addText('t', 5, 1) end, S .. 'addText%] text must be a string, got number')
  tester:assertErrorPattern(function() SummaryWriter(dir, { flushsecs = 1 }) end, '%[tensorboard%.SummaryWriter%] unknown option flushsecs')
  tester:assertErrorPattern(function() SummaryWriter(dir, { maxQueue = 0 }) end, 'maxQueue must be a positive integer')
  tester:assertErrorPattern(function() SummaryWriter(5) end, 'logDir must be a string, got number')
  tester:assertErrorPattern(function() SummaryWriter('/proc/no/such/dir') end, 'cannot create the event file')
  -- the error points at the caller's line, not at the library
  local ok, msg = pcall(function() w:addScalar('a', {}, 1) end)
  tester:assert(not ok and msg:find('test_tensorboard%.lua:%d+:') ~= nil, msg)
  w:close()
  -- nothing but the file_version record reached the file
  tester:asserteq(records_in(dir), 1)
end

function tests.cuda()
  if not torch.cuda.isAvailable() then print('SKIPPED: no CUDA device') return end
  local dir = tmpdir()
  local w = SummaryWriter(dir)
  local x = torch.randn(200):double()
  w:addHistogram('cpu', x, 1)
  w:addHistogram('cuda', x:cuda(), 1)
  local img = torch.rand(3, 4, 5)
  w:addImage('cpu', img, 1)
  w:addImage('cuda', img:cuda(), 1)
  w:addScalar('s', x:cuda():sum(), 1)
  w:close()
  local evs = events_of(dir)
  local a, b = histo_of(evs[2]), histo_of(evs[3])
  tester:assertTableEq(a.counts, b.counts)
  tester:assertTableEq(a.limits, b.limits)
  tester:asserteq(decode(evs[4].value[4][1])[4][1], decode(evs[5].value[4][1])[4][1], 'same PNG')
  tester:assertalmosteq(as_float(evs[6].value[2][1]), x:sum(), 1e-4)
end

tester:add(tests)
tester:run()
for _, d in ipairs(dirs) do os.execute('rm -rf ' .. shq(d)) end
