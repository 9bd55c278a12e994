-- safetensors: round trips (every dtype, metadata, dotted names, mmap), files built byte by byte
-- from the specification, strict header checks. stateDict/loadStateDict and the PyTorch-exported
-- test come with nn (Note [State dicts] in lua/torch/safetensors.lua).
local ffi = require 'ffi'
local tester = torch.Tester()
local tests = torch.TestSuite()

local TMP = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/serialize_st_'

local FILES = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/files.lua')
local read_file, write_file = FILES.read, FILES.write
local function raw(ct, values)
  return ffi.string(ffi.new(ct .. '[?]', #values, values), #values * ffi.sizeof(ct))
end
-- A safetensors file: u64 header length, the JSON header, the data.
local function st_file(header, data)
  return raw('uint64_t', { #header }) .. header .. data
end
local function load_bytes(s, opts)
  write_file(TMP .. 'gen.safetensors', s)
  return torch.loadSafetensors(TMP .. 'gen.safetensors', opts)
end

function tests.roundTripAllDtypes()
  local names = { 'torch.FloatTensor', 'torch.DoubleTensor', 'torch.HalfTensor', 'torch.BFloat16Tensor',
                  'torch.LongTensor', 'torch.IntTensor', 'torch.ByteTensor', 'torch.BoolTensor' }
  local tensors = {}
  for i, name in ipairs(names) do tensors['t' .. i] = torch.Tensor({ { 1, 0, 3 }, { 4, 5, 0 } }):type(name) end
  tensors.scalar = torch.Tensor({ 2 }):view(torch.LongStorage({}))
  tensors.empty = torch.Tensor(0, 3)
  tensors.strided = torch.range(1, 6):view(2, 3):t()
  local path = TMP .. 'all.safetensors'
  torch.saveSafetensors(path, tensors, { framework = 'tocha', epoch = 3 })
  for _, opts in ipairs({ {}, { mmap = true } }) do
    local back, meta = torch.loadSafetensors(path, opts)
    for i, name in ipairs(names) do
      tester:asserteq(back['t' .. i]:type(), name)
      tester:eq(back['t' .. i]:totable(), tensors['t' .. i]:totable(), name)
    end
    tester:asserteq(back.scalar:dim(), 0)
    tester:asserteq(back.scalar:item(), 2)
    tester:eq(back.empty:size():totable(), { 0, 3 })
    tester:eq(back.strided:totable(), { { 1, 4 }, { 2, 5 }, { 3, 6 } })
    tester:eq(meta, { framework = 'tocha', epoch = '3' })
  end
  -- torch.load detects the format and returns the metadata too
  local back, meta = torch.load(path)
  tester:asserteq(back.t1:type(), 'torch.FloatTensor')
  tester:asserteq(meta.framework, 'tocha')
end

function tests.dottedNames()
  local model = { features = { [0] = { weight = torch.Tensor(2, 2):fill(1) } }, classifier = { bias = torch.Tensor(3) } }
  model.features[1] = { weight = torch.Tensor(1) }
  local path = TMP .. 'dotted.safetensors'
  torch.saveSafetensors(path, model)
  local back = torch.loadSafetensors(path)
  tester:eq(back['features.0.weight']:totable(), { { 1, 1 }, { 1, 1 } })
  tester:assert(back['features.1.weight'] ~= nil)
  tester:assert(back['classifier.bias'] ~= nil)
  torch.saveSafetensors(path, back)  -- flat tables with dotted names round-trip as they are
  tester:assert(torch.loadSafetensors(path)['features.0.weight'] ~= nil)
  tester:assertErrorPattern(function() torch.saveSafetensors(path, { a = { b = torch.Tensor(1) }, ['a.b'] = torch.Tensor(1) }) end,
    "two tensors are named 'a.b'")
  tester:assertErrorPattern(function() torch.saveSafetensors(path, { a = 'text' }) end, "'a' is a string")
  tester:assertErrorPattern(function() torch.saveSafetensors(path, { a = torch.Tensor(1) }, { k = {} }) end,
    'metadata must map strings to strings')
end

function tests.layoutFollowsTheSpec()
  local path = TMP .. 'layout.safetensors'
  torch.saveSafetensors(path, { b = torch.HalfTensor({ 1, 2, 3 }), a = torch.DoubleTensor({ 0.5 }) }, { k = 'v' })
  local s = read_file(path)
  local n = tonumber(ffi.cast('uint64_t *', s)[0])
  tester:asserteq((8 + n) % 8, 0, 'data starts 8-byte aligned')
  local header = s:sub(9, 8 + n):gsub(' +$', '')
  tester:asserteq(header, '{"__metadata__":{"k":"v"},"a":{"dtype":"F64","shape":[1],"data_offsets":[0,8]},'
    .. '"b":{"dtype":"F16","shape":[3],"data_offsets":[8,14]}}')
  tester:asserteq(s:sub(9 + n), raw('double', { 0.5 }) .. raw('uint16_t', { 0x3C00, 0x4000, 0x4200 }))
end

function tests.handBuiltFile()
  local header = '{"w":{"dtype":"F32","shape":[2,2],"data_offsets":[0,16]},"__metadata__":{"a\\"b":"\\u00e9\\n"},'
    .. '"i8":{"dtype":"I8","shape":[3],"data_offsets":[24,27]},"i":{"dtype":"I64","shape":[1],"data_offsets":[16,24]},'
    .. ' "h" : { "dtype" : "I16", "shape" : [ 1 ], "data_offsets" : [ 27, 29 ] } ,'
    .. '"flag":{"dtype":"BOOL","shape":[2],"data_offsets":[29,31]}}'
  local data = raw('float', { 1, 2, 3, 4 }) .. raw('int64_t', { -7 }) .. raw('int8_t', { -1, 0, 127 })
    .. raw('int16_t', { -300 }) .. '\1\0'
  local t, meta = load_bytes(st_file(header, data))
  tester:eq(t.w:totable(), { { 1, 2 }, { 3, 4 } })
  tester:eq(t.i:totable(), { -7 })
  tester:asserteq(t.i8:type(), 'torch.CharTensor')
  tester:asserteq(t.h:type(), 'torch.ShortTensor')
  tester:eq(t.i8:totable(), { -1, 0, 127 })
  tester:eq(t.h:totable(), { -300 })
  tester:eq(t.flag:totable(), { true, false })
  tester:asserteq(meta['a"b'], '\195\169\n')
end

function tests.strictChecks()
  local f4 = raw('float', { 1, 2 })
  local function bad(header, data, pattern)
    tester:assertErrorPattern(function() load_bytes(st_file(header, data)) end, pattern)
  end
  bad('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}', f4, 'bad JSON')
  bad('{"a":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}', f4, 'shape needs 12 bytes')
  bad('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,12]}}', f4, 'do not lie within')
  bad('{"a":{"dtype":"F8_E4M3","shape":[2],"data_offsets":[0,2]}}', f4, 'unsupported dtype F8_E4M3')
  bad('{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]},"b":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', f4,
      'overlaps or leaves a hole')
  bad('{"a":{"dtype":"F32","shape":[1],"data_offsets":[0,4]}}', f4, '4 data bytes belong to no tensor')
  bad('{"a":{"dtype":"F32","shape":[-2],"data_offsets":[0,8]}}', f4, 'shape holds %-2')
  bad('{"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"a":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}', f4,
      'duplicate key')
  bad('[1,2]', '', 'not a JSON object')
  bad('{"__metadata__":{"k":1}}', '', 'metadata value k is not a string')
  bad(string.rep('[', 100) .. string.rep(']', 100), '', 'nested too deeply')
  tester:assertErrorPattern(function() load_bytes(raw('uint64_t', { 50 }) .. '{}') end, 'declares a 50%-byte header')
  tester:assertErrorPattern(function() load_bytes('abc') end, 'too short')
end

tester:add(tests)
tester:run()
