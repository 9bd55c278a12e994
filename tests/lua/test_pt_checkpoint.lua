-- PyTorch checkpoints (lua/torch/pt_*.lua): files written by PyTorch 1.13 (tests/data/pt, made by
-- make_fixtures.py) in the zip, legacy, deflated and big-endian forms; the safe unpickler
-- (pickles of protocols 2 and 5 from Python's pickle, refused globals and opcodes); writing with
-- torch.save(path, obj, 'pytorch') (verified by hand with PyTorch 1.13's torch.load, weights_only
-- included; here: round trips, exact pickle bytes, the archive layout); a PyTorch nn.Sequential's
-- weights giving PyTorch's output; truncated and bit-flipped files giving errors, never crashes.
require 'nn'
local ffi = require 'ffi'
local S = require 'torch.serialize_stream'
local Z = require 'torch.pt_zip'
local tester = torch.Tester()
local tests = torch.TestSuite()

local DIR = (debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/../data/pt/'
local TMP = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/pt_checkpoint_'

local FILES = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/files.lua')
local read_file, write_file = FILES.read, FILES.write
local function values(t) return t:contiguous():view(-1):totable() end
local function shares(a, b) return ffi.cast('void *', a.p.storage) == ffi.cast('void *', b.p.storage) end

-- A PyTorch-style archive holding `pkl` as data.pkl (and extra entries), as a string.
local function archive(pkl, extra)
  local st = S.open_memory(nil, 'test')
  local zw = Z.writer(st)
  zw:add('archive/data.pkl', pkl)
  for _, e in ipairs(extra or {}) do zw:add('archive/' .. e[1], e[2]) end
  zw:add('archive/version', '3\n')
  zw:finish()
  local s = st:contents()
  st:free()
  return s
end

-- ---- files written by PyTorch 1.13 ------------------------------------------------------------------

-- The values make_fixtures.py saves (exact in their dtypes; bf16(-3e38) as PyTorch 1.13 rounds it).
local function check_values(v, label)
  tester:assertTableEq(values(v.f32), { 1.5, -2.25, 3, 4, 0.5, -1 }, label)
  tester:assertTableEq(v.f32:size():totable(), { 2, 3 }, label)
  tester:assert(torch.typename(v.f64) == 'torch.DoubleTensor' and v.f64[1] == 1 / 3 and v.f64[2] == -2.5e300, label)
  tester:assert(torch.typename(v.f16) == 'torch.HalfTensor', label)
  tester:assertTableEq(values(v.f16), { 0.5, -65504, 1 / 1024 }, label)
  tester:assert(torch.typename(v.bf16) == 'torch.BFloat16Tensor', label)
  tester:assertTableEq(values(v.bf16), { 1.5, -3.00405527047391e+38 }, label)
  tester:assert(torch.typename(v.i64) == 'torch.LongTensor', label)
  tester:assertTableEq(values(v.i64), { -2 ^ 62, 7, 2 ^ 40 }, label)
  tester:assertTableEq(values(v.i32), { -2 ^ 31, 5 }, label)
  tester:assert(torch.typename(v.i16) == 'torch.ShortTensor' and torch.typename(v.i8) == 'torch.CharTensor', label)
  tester:assertTableEq(values(v.i16), { -32768, 300 }, label)
  tester:assertTableEq(values(v.i8), { -128, 127 }, label)
  tester:assert(torch.typename(v.u8) == 'torch.ByteTensor', label)
  tester:assertTableEq(values(v.u8), { 0, 255, 7 }, label)
  tester:assertTableEq(values(v.bool), { true, false, true }, label)
  tester:assert(v.scalar:dim() == 0 and v.scalar:item() == 2.5, label)
  tester:assertTableEq(v.empty:size():totable(), { 0, 3 }, label)
  -- views of one storage keep their geometry and share memory
  tester:assertTableEq(values(v.base), { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11 }, label)
  tester:assertTableEq(values(v.row), { 4, 5, 6, 7 }, label)
  tester:assert(v.row:storageOffset() == 5, label)
  tester:assertTableEq(values(v.col), { 2, 6, 10 }, label)
  tester:assertTableEq(v.col:stride():totable(), { 4 }, label)
  tester:assertTableEq(v.tr:stride():totable(), { 1, 4 }, label)
  tester:assert(shares(v.base, v.row) and shares(v.base, v.col) and shares(v.base, v.tr), label .. ': shared storage')
  tester:assert(v.param:needsGrad() and not v.f32:needsGrad(), label .. ': requires_grad')
  tester:assertTableEq(values(v.param), { 1, 2 }, label)
  -- Python values (Note [Python values in Lua])
  tester:assert(v.int == 2 ^ 40 and v.neg == -5 and v.float == 0.125 and v.str == 'héllo' and v.yes == true, label)
  tester:assert(v.none == nil, label)
  tester:assertTableEq(v.list, { 1, 'two', 3.5 }, label)
  tester:assertTableEq(v.tuple, { 4, 5 }, label)
  tester:assert(v.nested.a.b == 1 and v.nested[3] == 'three', label)
  tester:assertTableEq(v.size, { 2, 3 }, label)
  tester:assert(v.dtype == 'float16', label)
end

function tests.readsZipCheckpoint()
  local v = torch.load(DIR .. 'values.pt')
  check_values(v, 'zip')
  v.row:fill(-1)
  tester:assertTableEq(values(v.base), { 0, 1, 2, 3, -1, -1, -1, -1, 8, 9, 10, 11 }, 'writes through views')
  tester:assert(v.tr[1][2] == -1)
  check_values(torch.load(DIR .. 'values.pt', { mmap = true }), 'zip mmap')
  check_values(torch.load(DIR .. 'values.pt', { verify = false }), 'zip no crc')
  check_values(torch.deserialize(read_file(DIR .. 'values.pt')), 'zip from a string')
end

function tests.readsLegacyDeflatedAndBigEndian()
  check_values(torch.load(DIR .. 'values_legacy.pt'), 'legacy')
  check_values(torch.load(DIR .. 'values_deflated.pt'), 'deflated')
  check_values(torch.load(DIR .. 'values_big.pt'), 'big-endian')
end

function tests.keyOrderAndOrderedDicts()
  local v = torch.load(DIR .. 'values.pt')
  tester:assertTableEq(torch.serialization.pytorchKeys(v),
    { 'f32', 'f64', 'f16', 'bf16', 'i64', 'i32', 'i16', 'i8', 'u8', 'bool', 'scalar', 'empty', 'base', 'row', 'col',
      'tr', 'param', 'int', 'neg', 'float', 'str', 'yes', 'list', 'tuple', 'nested', 'size', 'dtype' })
  local ck = torch.load(DIR .. 'seq_model.pt')
  tester:assertTableEq(torch.serialization.pytorchKeys(ck.state), { '0.weight', '0.bias', '2.weight', '2.bias' })
  tester:assert(torch.serialization.pytorchKeys({}) == nil)
  local t = torch.serialization.pytorchKeys({ b = 1, a = 2 }, { 'b', 'a' })
  tester:assertTableEq(torch.serialization.pytorchKeys(t), { 'b', 'a' })
  tester:assertErrorPattern(function() torch.serialization.pytorchKeys(3) end, 'expected a table, got')
end

function tests.nnSequentialMatchesPyTorch()
  -- PyTorch 1.13: nn.Sequential(Linear(4, 3), ReLU(), Linear(3, 2)), seed 0, its input and output
  local ck = torch.load(DIR .. 'seq_model.pt')
  local m = nn.Sequential():add(nn.Linear(4, 3)):add(nn.ReLU()):add(nn.Linear(3, 2))
  m:loadStateDict(ck.state)
  tester:assertTensorEq(m:forward(ck.input), ck.output, 1e-6)
  tester:assertTensorEq(m.modules[3].bias, ck.state['2.bias'], 0)
  -- and back: Tocha's state dict written for PyTorch loads into the same model
  torch.save(TMP .. 'seq.pt', m:stateDict(), 'pytorch')
  local m2 = nn.Sequential():add(nn.Linear(4, 3)):add(nn.ReLU()):add(nn.Linear(3, 2))
  m2:loadStateDict(torch.load(TMP .. 'seq.pt'))
  tester:assertTensorEq(m2:forward(ck.input), ck.output, 1e-6)
end

function tests.refusesWhatItCannotLoadSafely()
  tester:assertErrorPattern(function() torch.load(DIR .. 'evil.pt') end,
    "evil.pt: pickle evil/data.pkl: unsupported global 'posix.system'")
  tester:assertErrorPattern(function() torch.load(DIR .. 'complex.pt') end, 'complex.pt: .*complex64 values')
end

-- ---- the unpickler on Python's own pickles -----------------------------------------------------------

-- pickle.dumps({'a': [1, -2, 3.5, None, True], 't': (1, 'x'), 'b': b'\x00\xff', 's': {7},
-- 'big': 2**62, 'nb': -2**62-1, 'od': OrderedDict([('z', 1), ('y', 2)]), 'u': 'é'}, protocol=p)
-- from Python 3's pickle.
local PICKLES = {
  [2] = '\128\002}q\000(X\001\000\000\000aq\001]q\002(K\001J\254\255\255\255G@\012\000\000\000\000\000\000N\136eX'
    .. '\001\000\000\000tq\003K\001X\001\000\000\000xq\004\134q\005X\001\000\000\000bq\006c_codecs\010encode\010q\007X'
    .. '\003\000\000\000\000\195\191q\008X\006\000\000\000latin1q\009\134q\010Rq\011X\001\000\000\000sq\012c__builtin__'
    .. '\010set\010q\013]q\014K\007a\133q\015Rq\016X\003\000\000\000bigq\017\138\008\000\000\000\000\000\000\000@X\002'
    .. '\000\000\000nbq\018\138\008\255\255\255\255\255\255\255\191X\002\000\000\000odq\019ccollections\010OrderedDict'
    .. '\010q\020)Rq\021(X\001\000\000\000zq\022K\001X\001\000\000\000yq\023K\002uX\001\000\000\000uq\024X\002\000\000'
    .. '\000\195\169q\025u.',
  [5] = '\128\005\149\154\000\000\000\000\000\000\000}\148(\140\001a\148]\148(K\001J\254\255\255\255G@\012\000\000\000'
    .. '\000\000\000N\136e\140\001t\148K\001\140\001x\148\134\148\140\001b\148C\002\000\255\148\140\001s\148\143\148(K'
    .. '\007\144\140\003big\148\138\008\000\000\000\000\000\000\000@\140\002nb\148\138\008\255\255\255\255\255\255\255'
    .. '\191\140\002od\148\140\011collections\148\140\011OrderedDict\148\147\148)R\148(\140\001z\148K\001\140\001y\148K'
    .. '\002u\140\001u\148\140\002\195\169\148u.',
}

function tests.unpicklesProtocols2And5()
  for p, pkl in pairs(PICKLES) do
    local v = torch.deserialize(archive(pkl))
    local label = 'protocol ' .. p
    tester:assert(v.a[1] == 1 and v.a[2] == -2 and v.a[3] == 3.5 and v.a[4] == nil and v.a[5] == true, label)
    tester:assertTableEq(v.t, { 1, 'x' }, label)
    tester:assert(v.b == '\0\255', label)
    tester:assertTableEq(v.s, { 7 }, label)
    tester:assert(v.big == 4611686018427387904LL and v.nb == -4611686018427387905LL, label)  -- int64 beyond 2^53
    tester:assert(v.od.z == 1 and v.od.y == 2, label)
    tester:assertTableEq(torch.serialization.pytorchKeys(v.od), { 'z', 'y' }, label)
    tester:assert(v.u == 'é', label)
  end
end

function tests.refusesUnsafePickles()
  local function fails(pkl, pattern, extra)
    tester:assertErrorPattern(function() torch.deserialize(archive(pkl, extra)) end, pattern)
  end
  fails('\128\002cos\010system\010X\002\000\000\000lsR.', "unsupported global 'os.system'")
  fails('\128\002cbuiltins\010eval\010.', "unsupported global 'builtins.eval'")
  fails('\128\004\140\002os\140\006system\147.', "unsupported global 'os.system'")  -- STACK_GLOBAL
  fails('\128\002ctorch\010FloatStorage\010)R.', 'cannot call torch.FloatStorage')
  fails('\128\002ccollections\010OrderedDict\010)\129.', 'cannot instantiate collections.OrderedDict')
  fails('\128\002\130\001.', 'unsupported opcode 0x82 EXT1')
  fails('\128\002i__main__\010C\010.', "unsupported opcode 0x69 'i'")
  fails('\128\002h\005.', 'memo entry 5 is not set')
  fails('\128\002K\001K\002.', 'STOP with 2 values')
  fails('\128\002t.', 'no MARK')
  fails('\128\002X\255\000\000\000ab', 'truncated')
  fails('\128\002(X\001\000\000\000a\138\009\000\000\000\000\000\000\000\000\001u.', 'too large')
  fails('\128\002(X\001\000\000\000aNb.', 'cannot set the state')
  fails('\128\002X\001\000\000\000sQ.', 'persistent id')
  fails('\128\002ctorch._utils\010_rebuild_sparse_tensor\010.', 'sparse tensors are not supported')
  fails('\128\002c__torch__.Net\010Net\010.', 'TorchScript')
  fails(string.rep('(', 1001) .. '.', 'nested MARKs')
  -- a tensor past its storage
  fails('\128\002ctorch._utils\010_rebuild_tensor_v2\010((X\007\000\000\000storagectorch\010FloatStorage\010'
        .. 'X\001\000\000\0000X\003\000\000\000cpuK\002tQK\000K\003\133K\001\133\137)tR.',
        "a tensor of storage '0'.*reaches element", { { 'data/0', string.rep('\0', 8) } })
end

-- ---- writing -----------------------------------------------------------------------------------------

function tests.exactPickleBytes()
  -- pickle.loads (Python 3) gives {'a': 1, 'b': [True, None, 'x', 2.5]} for these bytes
  local s = torch.serialize({ a = 1, b = { true, false, 'x', 2.5 } }, 'pytorch')
  local st = S.borrow_string(s, 'test')
  local zip = Z.open(st)
  tester:assertTableEq(zip.names, { 'archive/data.pkl', 'archive/byteorder', 'archive/version' })
  tester:assert(Z.read(zip, zip.entries['archive/data.pkl']) ==
    '\128\002}q\000(X\001\000\000\000aK\001X\001\000\000\000b]q\001(\136\137X\001\000\000\000xG@\004\000\000\000\000\000\000eu.')
  tester:assert(Z.read(zip, zip.entries['archive/version']) == '3\n')
  tester:assert(Z.read(zip, zip.entries['archive/byteorder']) == 'little')
end

function tests.roundTripEveryDtypeAndView()
  local names = { 'torch.FloatTensor', 'torch.DoubleTensor', 'torch.HalfTensor', 'torch.BFloat16Tensor',
                  'torch.LongTensor', 'torch.IntTensor', 'torch.ByteTensor', 'torch.BoolTensor' }
  local obj = { n = 3, f = -0.75, s = 'text', yes = false, list = { 1, 2, { x = 'y' } }, [7] = 'seven' }
  for _, name in ipairs(names) do obj[name] = torch.Tensor({ { 1, 0, 3 }, { 4, 5, 0 } }):type(name) end
  local base = torch.range(1, 24):view(4, 6)
  obj.base, obj.narrow, obj.t, obj.sel = base, base:narrow(2, 3, 2), base:t(), base:select(1, 3)
  obj.again = base  -- the same tensor twice is written once
  obj.scalar = torch.Tensor({ 5 }):view(torch.LongStorage({}))
  obj.empty = torch.Tensor(0, 2)
  obj.grad = torch.Tensor({ 1, 2 }):requiresGrad()
  torch.save(TMP .. 'rt.pt', obj, 'pytorch')
  local back = torch.load(TMP .. 'rt.pt')
  for _, name in ipairs(names) do
    tester:assert(torch.typename(back[name]) == name, name)
    tester:assertTableEq(values(back[name]), values(obj[name]), name)
  end
  tester:assert(back.n == 3 and back.f == -0.75 and back.s == 'text' and back.yes == false and back[7] == 'seven')
  tester:assert(back.list[1] == 1 and back.list[3].x == 'y')
  tester:assertTableEq(values(back.narrow), values(obj.narrow))
  tester:assertTableEq(back.narrow:stride():totable(), { 6, 1 })
  tester:assert(back.narrow:storageOffset() == 3 and back.sel:storageOffset() == 13)
  tester:assertTableEq(values(back.t), values(obj.t))
  tester:assert(shares(back.base, back.narrow) and shares(back.base, back.t) and shares(back.base, back.sel))
  tester:assert(back.again == back.base or shares(back.again, back.base))
  tester:assert(back.scalar:dim() == 0 and back.scalar:item() == 5)
  tester:assertTableEq(back.empty:size():totable(), { 0, 2 })
  tester:assert(back.grad:needsGrad() and not back.base:needsGrad())
  -- the archive: one entry per storage, data 64-byte aligned (as PyTorch's writer)
  local st = S.open_file(TMP .. 'rt.pt', 'r', 'test')
  local zip = Z.open(st)
  local nstorage = 0
  for _, name in ipairs(zip.names) do
    if name:match('^archive/data/') then
      nstorage = nstorage + 1
      tester:assert(Z.data_offset(zip, zip.entries[name]) % 64 == 0, name .. ' aligned')
    end
  end
  st:free()
  tester:assert(nstorage == #names + 4, 'storages written once: ' .. nstorage)
end

-- ZIP64 records (past 4 GiB) forced from the first byte; PyTorch 1.13, Python's zipfile and unzip
-- read such a file (checked by hand).
function tests.zip64RoundTrip()
  local old = Z.zip64_from
  Z.zip64_from = 0
  local ok, err = pcall(torch.save, TMP .. 'z64.pt', { a = torch.range(1, 5), b = torch.IntTensor({ 1, 2 }) }, 'pytorch')
  Z.zip64_from = old
  tester:assert(ok, tostring(err))
  local back = torch.load(TMP .. 'z64.pt')
  tester:assertTableEq(values(back.a), { 1, 2, 3, 4, 5 })
  tester:assertTableEq(values(back.b), { 1, 2 })
  tester:assert(read_file(TMP .. 'z64.pt'):find('PK\6\6', 1, true), 'a ZIP64 end record')
end

function tests.reSavingKeepsOrderAndMetadata()
  local ck = torch.load(DIR .. 'seq_model.pt')
  torch.save(TMP .. 'again.pt', ck, 'pytorch')
  local back = torch.load(TMP .. 'again.pt')
  tester:assertTableEq(torch.serialization.pytorchKeys(back.state), { '0.weight', '0.bias', '2.weight', '2.bias' })
  local U = require 'torch.pt_unpickle'
  tester:assert(U.info[back.state].class == 'OrderedDict')
  local meta = U.info[back.state].attrs._metadata
  tester:assertTableEq(torch.serialization.pytorchKeys(meta), { '', '0', '1', '2' })
  tester:assert(meta['0'].version == 1)
  tester:assertTensorEq(back.output, ck.output, 0)
end

function tests.saveErrors()
  tester:assertErrorPattern(function() torch.save(TMP .. 'bad.pt', { f = print }, 'pytorch') end,
    "cannot save a function in PyTorch's format %(at object.f%)")
  tester:assertErrorPattern(function() torch.save(TMP .. 'bad.pt', { m = nn.Linear(2, 2) }, 'pytorch') end,
    'cannot save a nn.Linear.*stateDict')
  tester:assertErrorPattern(function() torch.save(TMP .. 'bad.pt', { [{}] = 1 }, 'pytorch') end,
    'cannot be a Python dict key')
  tester:assertErrorPattern(function() torch.save(TMP .. 'bad.pt', {}, 'pytorch2') end, "'pytorch'")
end

-- ---- corrupt files ---------------------------------------------------------------------------------

function tests.corruptFilesGiveErrors()
  local zipped = read_file(DIR .. 'values.pt')
  local function load_bytes(s)
    write_file(TMP .. 'bad.pt', s)
    return torch.load(TMP .. 'bad.pt')
  end
  tester:assertErrorPattern(function() load_bytes(zipped:sub(1, 200)) end, 'bad.pt: starts like a PyTorch checkpoint .* no ZIP end%-of%-central%-directory record: it is truncated')
  -- a flipped byte inside a storage: the CRC-32 check
  local st = S.borrow_string(zipped, 'test')
  local zip = Z.open(st)
  local e = zip.entries['values/data/0']
  local at = Z.data_offset(zip, e) + 1
  local flipped = zipped:sub(1, at) .. string.char(bit.bxor(zipped:byte(at + 1), 1)) .. zipped:sub(at + 2)
  tester:assertErrorPattern(function() load_bytes(flipped) end, 'bad.pt: checksum mismatch')
  local legacy = read_file(DIR .. 'values_legacy.pt')
  tester:assertErrorPattern(function() load_bytes(legacy:sub(1, #legacy - 3)) end, 'bad.pt: .*truncated')
  tester:assertErrorPattern(function() load_bytes(legacy:sub(1, 40)) end, 'bad.pt: .*truncated')
end

-- Truncated at many lengths and with random bit flips (seeded), every fixture either loads or
-- fails with an error naming its source: never a crash, never an error from inside the reader.
-- (From strings: torch.deserialize runs the same reader as torch.load without a file write each.)
function tests.fuzzTruncatedAndFlipped()
  local seed = 12345
  local function rand(n)  -- a small LCG, independent of torch's generator
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n + 1
  end
  local tried, bad = 0, {}
  local function try(s, label)
    tried = tried + 1
    local ok, err = pcall(torch.deserialize, s)
    if not ok and not tostring(err):find('%[deserialize%] <%a+>: ') then  -- <memory> from C
      bad[#bad + 1] = label .. ': ' .. tostring(err)
    end
  end
  for _, name in ipairs({ 'values', 'values_legacy', 'values_deflated', 'values_big', 'seq_model' }) do
    local s = read_file(DIR .. name .. '.pt')
    for n = 0, #s - 1, 3 do try(s:sub(1, n), name .. ' cut at ' .. n) end
    for _ = 1, 400 do
      local i = rand(#s)
      local b = bit.bxor(s:byte(i), bit.lshift(1, rand(8) - 1))
      try(s:sub(1, i - 1) .. string.char(b) .. s:sub(i + 1), name .. ' flip at ' .. i)
    end
  end
  tester:assert(#bad == 0, #bad .. ' of ' .. tried .. ' corrupt files gave other errors, e.g. ' .. tostring(bad[1]))
end

-- The same for the pickle itself, re-archived with a valid CRC so that the unpickler sees it.
function tests.fuzzPickles()
  local seed = 777
  local function rand(n)
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n + 1
  end
  local tried, bad = 0, {}
  for _, name in ipairs({ 'values', 'seq_model' }) do
    local st = S.borrow_string(read_file(DIR .. name .. '.pt'), 'test')
    local zip = Z.open(st)
    local pkl, extra = nil, {}
    for _, n in ipairs(zip.names) do
      local data = Z.read(zip, zip.entries[n])
      if n:match('/data%.pkl$') then pkl = data
      elseif n:match('/data/') then extra[#extra + 1] = { n:match('/(data/.*)$'), data } end
    end
    local function try(p, label)
      tried = tried + 1
      local ok, err = pcall(torch.deserialize, archive(p, extra))
      if not ok and not tostring(err):find('%[deserialize%] <%a+>: ') then bad[#bad + 1] = label .. ': ' .. tostring(err) end
    end
    for n = 0, #pkl - 1, 5 do try(pkl:sub(1, n), name .. ' cut at ' .. n) end
    for k = 1, 300 do
      local p = pkl
      for _ = 1, rand(3) do
        local i = rand(#p)
        p = p:sub(1, i - 1) .. string.char(rand(256) - 1) .. p:sub(i + 1)
      end
      try(p, name .. ' mutation ' .. k)
    end
  end
  tester:assert(#bad == 0, #bad .. ' of ' .. tried .. ' corrupt pickles gave other errors, e.g. ' .. tostring(bad[1]))
end

tester:add(tests)
tester:run()
