-- Review of PyTorch checkpoint interop (lua/torch/pt_*.lua) against files PyTorch 1.13 writes
-- (tests/data/pt_review, made by gen.py there): every dtype Tocha maps with its extreme values,
-- 0-dim and empty tensors, storages shared by tied weights and views (offsets, strides, stride 0),
-- Python values, integers at and past int64's range, lists holding None, the legacy format with
-- pickle protocols 4 and 5, files saved from CUDA tensors, refused dtypes and whole modules, and
-- corrupt files; then Tocha's writer, read back and checked byte by byte (the bytes were checked
-- with PyTorch 1.13's torch.load(weights_only=True) while writing this suite; tests never run Python).
require 'nn'
local ffi = require 'ffi'
local S = require 'torch.serialize_stream'
local Z = require 'torch.pt_zip'
local tester = torch.Tester()
local tests = torch.TestSuite()

local DIR = (debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/../data/pt_review/'
local TMP = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/pt_interop_'

local function read_file(path)
  local f = assert(io.open(path, 'rb'))
  local s = f:read('*a')
  f:close()
  return s
end
local function values(t) return t:contiguous():view(-1):totable() end
local function shares(a, b) return ffi.cast('void *', a.p.storage) == ffi.cast('void *', b.p.storage) end
-- The int64 elements of a contiguous LongTensor, exactly (as int64 cdata).
local function int64s(t)
  local p = ffi.cast('int64_t *', t.p.storage.data) + t:storageOffset() - 1
  local out = {}
  for i = 1, t:nElement() do out[i] = p[i - 1] end
  return out
end
-- A PyTorch-style archive holding `pkl` as data.pkl and `extra` entries, as a string.
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
-- The entries of a zip checkpoint held in a string: name -> bytes, and the names in order.
local function entries(s)
  local st = S.borrow_string(s, 'test')
  local zip = Z.open(st)
  local out = {}
  for _, n in ipairs(zip.names) do out[n] = Z.read(zip, zip.entries[n]) end
  st:free()
  return out, zip.names
end

-- ---- dtypes ----------------------------------------------------------------------------------------

-- gen.py's values (exact in their dtypes, as PyTorch 1.13 stores them).
local DTYPES = {
  { 'float16', 'torch.HalfTensor', { 65504, -6.103515625e-05, 5.960464477539063e-08, math.huge } },
  { 'bfloat16', 'torch.BFloat16Tensor', { 3.3895313892515355e+38, -1.1754943508222875e-38, 1.5 } },
  { 'float32', 'torch.FloatTensor', { 3.4028234663852886e+38, 1.401298464324817e-45, -0.0 } },
  { 'float64', 'torch.DoubleTensor', { 1.7976931348623157e+308, 5e-324, -1 / 3 } },
  { 'int8', 'torch.CharTensor', { -128, 127, 0 } },
  { 'int16', 'torch.ShortTensor', { -32768, 32767, -1 } },
  { 'int32', 'torch.IntTensor', { -2147483648, 2147483647, -1 } },
  { 'uint8', 'torch.ByteTensor', { 0, 255, 128 } },
  { 'bool', 'torch.BoolTensor', { true, false, true } },
}

local function check_dtypes(d, label)
  for _, c in ipairs(DTYPES) do
    local name, tname, want = c[1], c[2], c[3]
    local t, z, e = d[name], d[name .. '_0d'], d[name .. '_empty']
    local l = label .. ' ' .. name
    tester:assert(torch.typename(t) == tname and torch.typename(z) == tname and torch.typename(e) == tname, l)
    tester:assertTableEq(values(t), want, l)
    tester:assert(z:dim() == 0 and z:item() == want[2], l .. ' 0-dim')
    tester:assertTableEq(e:size():totable(), { 2, 0 }, l .. ' empty')
  end
  tester:assert(1 / d.float32[3] < 0, label .. ': -0.0 keeps its sign')
  tester:assert(torch.typename(d.int64) == 'torch.LongTensor', label)
  local i = int64s(d.int64)  -- exact: 2^53 + 1 is not a double
  tester:assert(i[1] == -9223372036854775807LL - 1 and i[2] == 9223372036854775807LL and i[3] == 9007199254740993LL,
                label .. ' int64: ' .. tostring(i[1]) .. ' ' .. tostring(i[2]) .. ' ' .. tostring(i[3]))
  tester:assert(d.int64_0d:dim() == 0 and int64s(d.int64_0d)[1] == 9223372036854775807LL, label .. ' int64 0-dim')
  tester:assertTableEq(d.int64_empty:size():totable(), { 2, 0 }, label)
end

function tests.everyDtypeFromPyTorch()
  check_dtypes(torch.load(DIR .. 'dtypes.pt'), 'zip')
  check_dtypes(torch.load(DIR .. 'dtypes.pt', { mmap = true }), 'zip mmap')
  check_dtypes(torch.load(DIR .. 'dtypes_legacy.pt'), 'legacy')
  -- and back through Tocha's writer
  check_dtypes(torch.deserialize(torch.serialize(torch.load(DIR .. 'dtypes.pt'), 'pytorch')), 'rewritten')
end

-- ---- shared storages and views -------------------------------------------------------------------

-- PyTorch 1.13's values of gen.py's TiedLM (seed 0): emb.weight (= dec.weight) and lin.weight.
local EMB = { 1.5409960746765137, -0.293428897857666, -2.1787893772125244, 0.5684312582015991, -1.0845223665237427,
              -1.3985954523086548, 0.40334683656692505, 0.8380263447761536, -0.7192575931549072, -0.40334352850914,
              -0.5966353416442871, 0.18203648924827576, -0.8566746115684509, 1.1006041765213013, -1.0711873769760132 }
local LIN = { -0.3742266893386841, -0.26577329635620117, -0.4033602476119995, -0.5407237410545349,
              -0.33702272176742554, 0.4962891638278961, 0.2576242983341217, 0.2798258066177368, 0.03036375157535076 }

local function check_views(v, label)
  local m = v.model
  tester:assertTableEq(torch.serialization.pytorchKeys(m), { 'emb.weight', 'lin.weight', 'lin.bias', 'dec.weight' },
                       label)
  tester:assertTensorEq(m['emb.weight'], torch.FloatTensor(EMB):view(5, 3), 0, label)
  tester:assert(shares(m['emb.weight'], m['dec.weight']), label .. ': tied weights share memory')
  tester:assertTensorEq(v.w, torch.FloatTensor(LIN):view(3, 3), 0, label)
  tester:assert(shares(v.w, v.wt) and shares(v.w, m['lin.weight']), label .. ': a weight and its transpose share')
  tester:assertTableEq(v.wt:stride():totable(), { 1, 3 }, label)
  tester:assertTensorEq(v.wt, v.w:t(), 0, label)
  -- base = arange(24).view(4, 6) in float64 and views of it
  tester:assertTableEq(values(v.narrow), { 8, 9, 10, 14, 15, 16 }, label)
  tester:assert(v.narrow:storageOffset() == 9, label)  -- 1-based: PyTorch's offset 8
  tester:assertTableEq(values(v.step), { 1, 4, 13, 16 }, label)
  tester:assertTableEq(v.step:stride():totable(), { 12, 3 }, label)
  tester:assert(v.elem:dim() == 0 and v.elem:item() == 15 and v.elem:storageOffset() == 16, label)
  tester:assert(v.tail:nElement() == 0 and v.tail:storageOffset() == 25, label .. ': empty view at the end')
  tester:assertTableEq(v.expand:stride():totable(), { 0, 1 }, label)
  tester:assertTableEq(values(v.expand), { 1, 2, 3, 1, 2, 3 }, label)
  tester:assertTableEq(values(v.i16view), { 3, 5, 7 }, label)
  tester:assert(v.i16view:stride(1) == 2 and v.i16view:storageOffset() == 4, label)
  for _, k in ipairs({ 'narrow', 'step', 'elem', 'tail' }) do tester:assert(shares(v.base, v[k]), label .. ' ' .. k) end
  v.base[3][4] = -1  -- element 15: writes show through every view of it
  tester:assert(v.narrow[2][2] == -1 and v.step[2][2] ~= -1 and v.elem:item() == -1, label .. ': writes through')
  m['emb.weight'][1][1] = 42
  tester:assert(m['dec.weight'][1][1] == 42, label .. ': tied write')
end

function tests.sharedStoragesAndViewsFromPyTorch()
  check_views(torch.load(DIR .. 'views.pt'), 'zip')
  check_views(torch.load(DIR .. 'views_legacy.pt'), 'legacy')
end

function tests.sharedStoragesSurviveTochasWriter()
  local s = torch.serialize(torch.load(DIR .. 'views.pt'), 'pytorch')
  check_views(torch.deserialize(s), 'rewritten')
  -- one data entry per storage: emb (tied), lin.weight (w, wt), lin.bias, base, expand, i16view
  local _, names = entries(s)
  local n = 0
  for _, name in ipairs(names) do if name:match('^archive/data/') then n = n + 1 end end
  tester:assert(n == 6, 'storages written once: ' .. n)
end

-- ---- Python values -----------------------------------------------------------------------------------

function tests.pythonValuesFromPyTorch()
  local v = torch.load(DIR .. 'values.pt')
  tester:assert(v.nested.a[1] == 1 and v.nested.a[2][1] == 2 and v.nested.a[2][2] == 3, 'nested list and tuple')
  tester:assert(type(v.nested.a[3]) == 'table' and next(v.nested.a[3]) == nil, "{'b': None} keeps no key")
  tester:assertTableEq(torch.serialization.pytorchKeys(v.nested.od), { 'z', 'a', 'm' })
  tester:assert(next(v.empty_list) == nil and next(v.empty_tuple) == nil and next(v.empty_dict) == nil)
  tester:assert(v.yes == true and v.no == false and v.none == nil and rawget(v, 'none') == nil)
  tester:assert(tostring(v.i53) == '9007199254740993LL' and tostring(v.i63) == '9223372036854775807LL'
                and tostring(v.neg63) == '-9223372036854775808LL')
  tester:assert(v.small == -7 and v.f == 0.1 and v.inf == math.huge and v.ninf == -math.huge)
  tester:assert(v.negzero == 0 and 1 / v.negzero < 0, '-0.0')
  tester:assert(v.str == 'ünïcødé ✓' and v.bytes == '\0\1\254\255')
  tester:assert(v.int_keys[1] == 'one' and v.int_keys[2] == 'two')
  tester:assert(v.tuple_list[2][1] == 2 and v.tuple_list[2][2] == 'b')
end

-- Regression: a Python int from 2^63 to 2^64 (LONG1 of 9 bytes, the last 0) read as its low 8
-- bytes in int64: 2^63 came back as -2^63 and 2^64-1 as -1, silently; torch.save(..., 'pytorch')
-- refused them ('does not fit in 64 signed bits').
function tests.integersPastInt64()
  -- (tostring: LuaJIT's == converts int64 to uint64, so -2^63 == 2^63ULL holds)
  tester:assert(tostring(torch.load(DIR .. 'int_2p63.pt').big) == '9223372036854775808ULL', 'PyTorch 1.13: 2**63')
  tester:assert(tostring(torch.load(DIR .. 'int_2p64m1.pt').big) == '18446744073709551615ULL',
                'PyTorch 1.13: 2**64 - 1')
  local function pkl(long) return torch.deserialize(archive('\128\002}(X\001\000\000\000v\138' .. long .. 'u.')).v end
  tester:assert(tostring(pkl('\009\000\000\000\000\000\000\000\128\000')) == '9223372036854775808ULL')
  tester:assert(tostring(pkl('\008\000\000\000\000\000\000\000\128')) == '-9223372036854775808LL')  -- -2^63 fits
  tester:assert(tostring(pkl('\009\255\255\255\255\255\255\255\255\000')) == '18446744073709551615ULL')
  tester:assertErrorPattern(function() pkl('\009\255\255\255\255\255\255\255\127\255') end,
    'data.pkl: the integer below %-2%^63 does not fit in 64 bits')
  tester:assertErrorPattern(function() pkl('\010\000\000\000\000\000\000\000\000\001\000') end, 'too large')
  -- Tocha writes them back as 9-byte LONG1s (loads in PyTorch 1.13 as 2**63 and 2**64 - 1)
  local s = torch.serialize({ a = 9223372036854775808ULL, b = 18446744073709551615ULL }, 'pytorch')
  tester:assert(entries(s)['archive/data.pkl'] == '\128\002}q\000(X\001\000\000\000a\138\009\000\000\000\000\000\000'
    .. '\000\128\000X\001\000\000\000b\138\009\255\255\255\255\255\255\255\255\000u.')
  local back = torch.deserialize(s)
  tester:assert(tostring(back.a) == '9223372036854775808ULL' and tostring(back.b) == '18446744073709551615ULL')
  -- Regression: {2**60: 'big', 5: 'small'} loaded (its key an int64 cdata) but could not be saved
  -- back ('a table key of type cdata'); PyTorch 1.13 loads what Tocha writes now.
  local d = torch.deserialize(archive('\128\002}(\138\008\000\000\000\000\000\000\000\016X\003\000\000\000big'
                                      .. 'K\005X\005\000\000\000smallu.'))
  local keys = torch.serialization.pytorchKeys(d)
  tester:assert(tostring(keys[1]) == '1152921504606846976LL' and keys[2] == 5 and d[keys[1]] == 'big')
  tester:assert(entries(torch.serialize(d, 'pytorch'))['archive/data.pkl'] == '\128\002}q\000(\138\008\000\000\000'
    .. '\000\000\000\000\016X\003\000\000\000bigK\005X\005\000\000\000smallu.')
end

-- Regression: a None leaves a hole in a Lua list, and the next batch of APPENDS (pickle writes
-- lists 1000 items at a time) started at #list + 1, a border before the hole: in PyTorch's
-- [1, ..., 999, None, 1001] the 1001 landed at index 1000. And torch.save(..., 'pytorch') wrote
-- a loaded list holding None, or an empty one, as a dict.
function tests.listsHoldingNone()
  local v = torch.load(DIR .. 'holes.pt')
  tester:assert(v.holes[999] == 999 and v.holes[1000] == nil and v.holes[1001] == 1001,
                'PyTorch 1.13 list: ' .. tostring(v.holes[1000]) .. ' ' .. tostring(v.holes[1001]))
  tester:assert(v.short[1] == 1 and v.short[2] == nil and v.short[3] == 3)
  -- [1, None, 3] built by APPENDS, APPENDS and by APPENDS, APPEND
  for _, p in ipairs({ '\128\002](K\001Ne(K\003e.', '\128\002](K\001NeK\003a.', '\128\002(K\001Nl(K\003e.' }) do
    local t = torch.deserialize(archive(p))
    tester:assert(t[1] == 1 and t[2] == nil and t[3] == 3, 'appended after a None')
  end
  -- written back as lists with their Nones (they became dicts {1: 1, 3: 3}), empty lists as [];
  -- PyTorch 1.13 loads [1, None, 3], [] and the 1001 items with None at 1000
  local vals = torch.load(DIR .. 'values.pt')
  local s = torch.serialize({ v.short, vals.empty_list, vals.empty_tuple, { 1, nil, 3 } }, 'pytorch')
  tester:assert(entries(s)['archive/data.pkl'] == '\128\002]q\000(]q\001(K\001NK\003e]q\002]q\003}q\004(K\001K\001'
    .. 'K\003K\003ue.', 'lists keep their Nones; a Lua array with a hole is still a dict')
  local back = torch.deserialize(torch.serialize(v, 'pytorch'))
  tester:assert(back.holes[1000] == nil and back.holes[1001] == 1001 and back.short[3] == 3)
  -- a loaded list edited in Lua is written as it is now: shortened, emptied, grown
  local l = torch.deserialize(archive('\128\002](K\001K\002K\003e.'))
  l[3] = nil
  tester:assert(entries(torch.serialize(l, 'pytorch'))['archive/data.pkl'] == '\128\002]q\000(K\001K\002e.')
  l[1], l[2] = nil, nil
  tester:assert(entries(torch.serialize(l, 'pytorch'))['archive/data.pkl'] == '\128\002]q\000.')
  l[2] = 'x'
  tester:assert(entries(torch.serialize(l, 'pytorch'))['archive/data.pkl'] == '\128\002]q\000(NX\001\000\000\000xe.')
  -- appending to a dict or a tuple stays an error
  tester:assertErrorPattern(function() torch.deserialize(archive('\128\002}K\001a.')) end, 'append to')
  tester:assertErrorPattern(function() torch.deserialize(archive('\128\002)K\001a.')) end, 'append to')
end

-- ---- the legacy format and pickle protocols -------------------------------------------------------

-- Regression: torch.save(obj, f, _use_new_zipfile_serialization=False, pickle_protocol=4 or 5)
-- starts with a FRAME before the magic number; such files were 'not a PyTorch checkpoint'.
function tests.legacyFormatWithPickleProtocols4And5()
  for _, name in ipairs({ 'legacy_p4', 'legacy_p5', 'zip_p5' }) do
    local v = torch.load(DIR .. name .. '.pt')
    tester:assertTableEq(torch.serialization.pytorchKeys(v), { 'w', 'n' }, name)
    tester:assertTableEq(values(v.w), { 1, 3, 2, 4 }, name)
    tester:assertTableEq(v.w:stride():totable(), { 1, 2 }, name)
    tester:assert(v.n == 3, name)
    tester:assert(torch.deserialize(read_file(DIR .. name .. '.pt')).n == 3, name .. ' from a string')
  end
  local s = read_file(DIR .. 'legacy_p4.pt')
  for _, n in ipairs({ 16, 20, 23, 24, 30 }) do
    tester:assertErrorPattern(function() torch.deserialize(s:sub(1, n)) end, '%[deserialize%] <memory>: .*truncated',
                              'cut at ' .. n)
  end
end

-- A legacy checkpoint by hand: the head, protocol 1001, sys_info, a list of FloatTensors (one
-- storage each: { key, numel }), the storage keys and the data blocks (a count and the floats).
local function le(ct, v) return ffi.string(ffi.new(ct .. '[1]', v), ffi.sizeof(ct)) end
local function legacy(storages, blocks)
  local parts = { '\128\002\138\010\108\252\156\070\249\032\106\168\080\025.', '\128\002M\233\003.',
                  '\128\002}(X\013\000\000\000little_endian\136u.', '\128\002](' }
  for _, st in ipairs(storages) do
    parts[#parts + 1] = 'ctorch._utils\n_rebuild_tensor_v2\n((X\007\000\000\000storagectorch\nFloatStorage\nX'
      .. le('uint32_t', #st[1]) .. st[1] .. 'X\003\000\000\000cpuJ' .. le('int32_t', st[2]) .. 'NtQK\000J'
      .. le('int32_t', st[2]) .. '\133K\001\133\137ccollections\nOrderedDict\n)RtR'
  end
  parts[#parts + 1] = 'e.\128\002]('
  for _, st in ipairs(storages) do parts[#parts + 1] = 'X' .. le('uint32_t', #st[1]) .. st[1] end
  parts[#parts + 1] = 'e.'
  for _, b in ipairs(blocks or {}) do
    parts[#parts + 1] = le('int64_t', #b)
    for _, x in ipairs(b) do parts[#parts + 1] = le('float', x) end
  end
  return table.concat(parts)
end

-- Regression (hardening): each legacy storage was checked against the file's size alone, so a
-- small file naming many storages of about its size made the reader allocate it many times over.
function tests.legacyStoragesMustFitTogether()
  local v = torch.deserialize(legacy({ { '7', 2 }, { '9', 1 } }, { { 1.5, -2 }, { 4 } }))
  tester:assertTableEq(values(v[1]), { 1.5, -2 })
  tester:assertTableEq(values(v[2]), { 4 })
  local many = {}
  for i = 1, 40 do many[i] = { tostring(i), 100 } end  -- 400 bytes each, 16000 in a file of about 6000
  local s = legacy(many)
  tester:assert(#s > 400 and #s < 16000, 'file size ' .. #s)
  tester:assertErrorPattern(function() torch.deserialize(s) end,
    '%[deserialize%] <memory>: the storages declare %d+ bytes or more, more than the ' .. #s .. '%-byte file')
end

-- ---- CUDA ----------------------------------------------------------------------------------------------

-- Files saved from CUDA tensors name the storages' location 'cuda:0'; Tocha loads them on the CPU
-- (like PyTorch's map_location='cpu'). PyTorch 1.13's values of nn.Linear(3, 2) at seed 0.
local CUDA_W = { -0.004322517663240433, 0.3097158372402191, -0.4751853346824646, -0.4248946011066437,
                 -0.2223689705133438, 0.15482072532176971 }
local CUDA_B = { -0.011439144611358643, 0.45777493715286255 }

function tests.cudaSavedFilesLoadOnTheCpu()
  for _, name in ipairs({ 'cuda', 'cuda_legacy' }) do
    local sd = torch.load(DIR .. name .. '.pt')
    tester:assertTableEq(torch.serialization.pytorchKeys(sd), { 'weight', 'bias' }, name)
    tester:assertTensorEq(sd.weight, torch.FloatTensor(CUDA_W):view(2, 3), 0, name)
    tester:assertTensorEq(sd.bias, torch.FloatTensor(CUDA_B), 0, name)
    tester:assert(sd.weight:type() == 'torch.FloatTensor', name .. ' on the CPU')
  end
  -- older PyTorch versions name the storage type torch.cuda.FloatStorage
  local ents = entries(read_file(DIR .. 'cuda.pt'))
  local pkl = ents['cuda/data.pkl']:gsub('ctorch\nFloatStorage\n', 'ctorch.cuda\nFloatStorage\n')
  tester:assert(pkl:find('torch.cuda\nFloatStorage', 1, true))
  local sd = torch.deserialize(archive(pkl, { { 'data/0', ents['cuda/data/0'] }, { 'data/1', ents['cuda/data/1'] } }))
  tester:assertTensorEq(sd.weight, torch.FloatTensor(CUDA_W):view(2, 3), 0, 'torch.cuda.FloatStorage')
end

-- ---- refused files -------------------------------------------------------------------------------------

function tests.refusesComplexQuantizedAndWholeModules()
  tester:assertErrorPattern(function() torch.load(DIR .. 'complex128.pt') end,
    "%[load%] .*complex128.pt: pickle complex128/data.pkl: storage '0' holds complex128 values "
    .. '%(torch.ComplexDoubleStorage%), a dtype Tocha does not have')
  tester:assertErrorPattern(function() torch.load(DIR .. 'quantized.pt') end,
    "unsupported global 'torch._utils._rebuild_qtensor' %(quantized tensors are not supported%)")
  -- torch.save(model): refused at the class's GLOBAL, before anything is built, with the remedy
  for _, name in ipairs({ 'module', 'module_legacy' }) do
    tester:assertErrorPattern(function() torch.load(DIR .. name .. '.pt') end,
      "%[load%] .*" .. name .. ".pt: pickle .*unsupported global 'torch.nn.modules.linear.Linear' %(a whole nn.Module "
      .. 'was saved %(torch.save%(model%)%); in PyTorch, save model.state_dict%(%) instead', name)
  end
  tester:assertErrorPattern(function() torch.deserialize(archive('\128\002ctorch.optim.adam\nAdam\n.')) end,
    "unsupported global 'torch.optim.adam.Adam' %(a whole optimizer was saved; in PyTorch, save optimizer.state_dict")
  tester:assertErrorPattern(function()
    torch.deserialize(archive('\128\002ctorch.nn.parallel.data_parallel\nDataParallel\n.'))
  end, 'a whole nn.Module was saved')
end

-- ---- Tocha's writer, byte by byte ----------------------------------------------------------------------

-- The pickle of a dict holding one IntTensor, as PyTorch's torch.save writes it (pickletools shows
-- _rebuild_tensor_v2(persistent ('storage', IntStorage, '0', 'cpu', 2), 0, (2,), (1,), False,
-- OrderedDict())); PyTorch 1.13 loads it with weights_only=True.
function tests.writerBytes()
  local s = torch.serialize({ t = torch.IntTensor({ 7, 8 }) }, 'pytorch')
  local ents, names = entries(s)
  tester:assertTableEq(names, { 'archive/data.pkl', 'archive/byteorder', 'archive/data/0', 'archive/version' })
  tester:assert(ents['archive/data.pkl'] == '\128\002}q\000(X\001\000\000\000tctorch._utils\n_rebuild_tensor_v2\nq\001'
    .. '((X\007\000\000\000storagectorch\nIntStorage\nq\002X\001\000\000\0000X\003\000\000\000cpuK\002tQK\000K\002'
    .. '\133K\001\133\137ccollections\nOrderedDict\nq\003)RtRq\004u.')
  tester:assert(ents['archive/data/0'] == '\007\000\000\000\008\000\000\000')
  -- the local header: stored (method 0), sizes, CRC of the data, data 64-byte aligned
  local st = S.borrow_string(s, 'test')
  local zip = Z.open(st)
  local e = zip.entries['archive/data/0']
  tester:assert(e.method == 0 and e.csize == 8 and e.usize == 8 and Z.data_offset(zip, e) % 64 == 0)
  st:free()
  -- a view and its base: one storage, two geometries; a 0-dim view keeps its offset
  local base = torch.LongTensor({ { 1, 2, 3 }, { 4, 5, 6 } })
  s = torch.serialize({ base = base, t = base:t(), e = base[2]:narrow(1, 3, 1):view(torch.LongStorage({})) }, 'pytorch')
  ents = entries(s)
  local pkl = ents['archive/data.pkl']
  tester:assert(ents['archive/data/0'] and not ents['archive/data/1'], 'one storage')
  local nkey, at = 0, 1
  while true do  -- plain find: Lua patterns stop at a zero byte
    at = pkl:find('X\001\000\000\0000X\003\000\000\000cpuK\006tQ', at, true)
    if not at then break end
    nkey, at = nkey + 1, at + 1
  end
  tester:assert(nkey == 3, 'three tensors over storage 0 of 6 elements: ' .. nkey)
  tester:assert(pkl:find('K\003K\002\134K\001K\003\134', 1, true), 'the transpose: size (3, 2), stride (1, 3)')
  tester:assert(pkl:find('QK\005))', 1, true), 'the 0-dim view: offset 5, size (), stride ()')
  local back = torch.deserialize(s)
  tester:assert(shares(back.base, back.t) and shares(back.base, back.e) and back.e:item() == 6)
end

-- Regression: strings that pass a loose UTF-8 check but that Python's decoder refuses (overlong
-- forms, code points past U+10FFFF) were written as str (BINUNICODE), and PyTorch 1.13's
-- torch.load failed on the whole file with a UnicodeDecodeError. They are bytes (BINBYTES) now;
-- PyTorch 1.13 loads each of these files (bytes or str as shown).
function tests.writerStringsPythonCanDecode()
  local cases = {
    { '\224\128\128', 'B' },           -- overlong U+0000: b'\xe0\x80\x80'
    { '\240\128\128\128', 'B' },      -- overlong: bytes
    { '\244\144\128\128', 'B' },      -- U+110000: bytes
    { '\224\160\128', 'X' },           -- U+0800: str
    { '\244\143\191\191', 'X' },      -- U+10FFFF: str
    { '\237\160\128', 'X' },           -- a surrogate: str ('surrogatepass')
    { '\195\169', 'X' }, { '\255', 'B' },
  }
  for _, c in ipairs(cases) do
    local s = torch.serialize({ s = c[1] }, 'pytorch')
    local pkl = entries(s)['archive/data.pkl']
    local bytes = c[1]:gsub('.', function(x) return x:byte() .. ' ' end)
    tester:assert(pkl == '\128\002}q\000(X\001\000\000\000s' .. c[2] .. string.char(#c[1]) .. '\000\000\000' .. c[1]
                         .. 'u.',
                  'the string of bytes ' .. bytes .. 'as ' .. c[2])
    tester:assert(torch.deserialize(s).s == c[1])
  end
end

-- ---- corrupt files -------------------------------------------------------------------------------------

-- Every truncation and seeded byte changes of the new fixtures: an error naming its source or a
-- load, never a crash, a hang or an error from inside the reader.
function tests.corruptFilesGiveErrors()
  local seed = 4242
  local function rand(n)
    seed = (seed * 1103515245 + 12345) % 2147483648
    return seed % n + 1
  end
  local tried, bad = 0, {}
  local function try(s, label)
    tried = tried + 1
    local ok, err = pcall(torch.deserialize, s)
    if not ok and not tostring(err):find('%[deserialize%] <%a+>: ') then
      bad[#bad + 1] = label .. ': ' .. tostring(err)
    end
  end
  for _, name in ipairs({ 'views_legacy', 'legacy_p4', 'cuda_legacy', 'module_legacy', 'holes', 'quantized' }) do
    local s = read_file(DIR .. name .. '.pt')
    for n = 0, #s - 1, 2 do try(s:sub(1, n), name .. ' cut at ' .. n) end
    for _ = 1, 200 do
      local i = rand(#s)
      try(s:sub(1, i - 1) .. string.char(rand(256) - 1) .. s:sub(i + 1), name .. ' byte ' .. i)
    end
  end
  tester:assert(#bad == 0, #bad .. ' of ' .. tried .. ' corrupt files gave other errors, e.g. ' .. tostring(bad[1]))
end

tester:add(tests)
tester:run()
