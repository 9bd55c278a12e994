-- Torch7 .t7 files holding nn.SpatialConvolution and nn.SpatialConvolutionMM (bytes written by hand
-- in Torch7's binary format, with Torch7's fields) load into Tocha's classes, compute the
-- convolution their weights define, train, and save/load again in both formats.
require 'nn'
local ffi = require 'ffi'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local TMP = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/nn_conv_t7_'

-- ---- Torch7's binary format (little-endian, int 4 bytes, long 8 bytes) ------------------------------
local function raw(ct, values)
  local n = #values
  return ffi.string(ffi.new(ct .. '[?]', n, values), n * ffi.sizeof(ct))
end
local function i32(v) return raw('int32_t', { v }) end
local function i64(v) return raw('int64_t', { v }) end
local function num(v) return i32(1) .. raw('double', { v }) end
local function str(s) return i32(2) .. i32(#s) .. s end
local function bool(b) return i32(5) .. i32(b and 1 or 0) end
local function tbl(index, kv) return i32(3) .. i32(index) .. i32(#kv / 2) .. table.concat(kv) end
local function obj(index, class, body)
  return i32(4) .. i32(index) .. i32(3) .. 'V 1' .. i32(#class) .. class .. body
end

-- A contiguous FloatTensor (and its storage) from a flat list; an empty one when values is empty.
local next_index = 100
local function float_tensor(sizes, values)
  next_index = next_index + 2
  local strides, s = {}, 1
  for d = #sizes, 1, -1 do strides[d] = s s = s * sizes[d] end
  if #values == 0 then
    return obj(next_index, 'torch.FloatTensor', i32(0) .. i64(0) .. i32(0))
  end
  local st = obj(next_index + 1, 'torch.FloatStorage', i64(#values) .. raw('float', values))
  return obj(next_index, 'torch.FloatTensor', i32(#sizes) .. raw('int64_t', sizes) .. raw('int64_t', strides)
    .. i64(1) .. st)
end

local function range(n, scale)
  local t = {}
  for i = 1, n do t[i] = math.sin(i * 1.7) * scale end
  return t
end

-- The fields Torch7's nn.SpatialConvolution(MM):__init sets, as it writes them.
local function conv_fields(class, nIn, nOut, kW, kH, dW, dH, pad, weight_sizes)
  local n = nOut * nIn * kH * kW
  local pads = class == 'old' and { str('padding'), num(pad) } or { str('padW'), num(pad), str('padH'), num(pad) }
  local kv = { str('nInputPlane'), num(nIn), str('nOutputPlane'), num(nOut), str('kW'), num(kW), str('kH'), num(kH),
    str('dW'), num(dW), str('dH'), num(dH),
    str('weight'), float_tensor(weight_sizes, range(n, 0.3)), str('bias'), float_tensor({ nOut }, range(nOut, 0.1)),
    str('gradWeight'), float_tensor(weight_sizes, range(n, 0)), str('gradBias'), float_tensor({ nOut }, range(nOut, 0)),
    str('output'), float_tensor({}, {}), str('gradInput'), float_tensor({}, {}),
    str('finput'), float_tensor({}, {}), str('fgradInput'), float_tensor({}, {}), str('train'), bool(true) }
  for _, v in ipairs(pads) do kv[#kv + 1] = v end
  return kv
end

local function load_bytes(s)
  local f = assert(io.open(TMP .. 'gen.t7', 'wb'))
  f:write(s)
  f:close()
  local o = torch.load(TMP .. 'gen.t7')
  os.remove(TMP .. 'gen.t7')
  return o
end

local function check_conv(m, nIn, nOut, k, pad, label)
  local x = torch.randn(2, nIn, 6, 5)
  local w = m.weight:view(nOut, nIn, k, k)
  local ref = torch.conv2d(x, w, m.bias, 1, pad)
  tester:assertTensorEq(m:forward(x), ref, 1e-5, label .. ' forward')
  -- It trains: Torch7's backward fills gradWeight in the file's layout, and autograd reaches it too.
  m:zeroGradParameters()
  local go = torch.randn(ref:size())
  m:backward(x, go)
  local gw = torch.convWeight(x, { nOut, nIn, k, k }, go, 1, pad)
  tester:assertTensorEq(m.gradWeight:view(nOut, nIn, k, k), gw, 1e-4, label .. ' gradWeight')
  m:zeroGradParameters()
  torch.cmul(m:forward(x), go):sum():backward()
  tester:assertTensorEq(m.gradWeight:view(nOut, nIn, k, k), gw, 1e-4, label .. ' gradWeight through autograd')
end

function tests.spatialConvolutionMM()
  local bytes = obj(1, 'nn.SpatialConvolutionMM', tbl(2, conv_fields('mm', 3, 4, 3, 3, 1, 1, 1, { 4, 27 })))
  local m = load_bytes(bytes)
  tester:asserteq(torch.type(m), 'nn.SpatialConvolutionMM')
  tester:eq(m.weight:size():totable(), { 4, 27 })
  tester:asserteq(tostring(m), 'nn.SpatialConvolutionMM(3 -> 4, 3x3, 1,1, 1,1)')
  check_conv(m, 3, 4, 3, 1, 'SpatialConvolutionMM')
end

function tests.spatialConvolutionInASequential()
  local conv = obj(3, 'nn.SpatialConvolution', tbl(4, conv_fields('new', 2, 3, 3, 3, 1, 1, 0, { 3, 2, 3, 3 })))
  local old = obj(5, 'nn.SpatialConvolution', tbl(6, conv_fields('old', 3, 2, 3, 3, 1, 1, 1, { 2, 3, 3, 3 })))
  local seq = obj(1, 'nn.Sequential', tbl(2, { str('modules'), tbl(7, { num(1), conv, num(2), old }),
    str('output'), float_tensor({}, {}), str('gradInput'), float_tensor({}, {}), str('train'), bool(true) }))
  local s = load_bytes(seq)
  tester:asserteq(torch.type(s.modules[1]), 'nn.SpatialConvolution')
  check_conv(s.modules[1], 2, 3, 3, 0, 'SpatialConvolution')
  check_conv(s.modules[2], 3, 2, 3, 1, 'SpatialConvolution with the old padding field')
  tester:asserteq(s.modules[2].padW, 1)
  local x = torch.randn(1, 2, 7, 7)
  local y = s:forward(x):clone()
  -- And back out: Torch7's format and Tocha's keep the outputs.
  for _, fmt in ipairs({ 'binary-t7', 'tocha' }) do
    torch.save(TMP .. 'out.t7', s, fmt)
    local back = torch.load(TMP .. 'out.t7')
    os.remove(TMP .. 'out.t7')
    tester:assertTensorEq(back:forward(x), y, 0, fmt .. ' round trip')
  end
end

tester:add(tests)
tester:run()
