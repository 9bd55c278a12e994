-- Torch7 .t7 files of nn.BatchNormalization / SpatialBatchNormalization (and cudnn's) load into
-- Tocha's classes: files written byte by byte in Torch7's layout (File.lua's object stream, field
-- names of nn's BatchNormalization.lua), versions 2 (running_var) and 1 (running_std).
require 'nn'
local ffi = require 'ffi'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local D = torch.DoubleTensor

local PATH = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/nn_norm_t7_' .. tostring(os.time()) .. '.t7'

local function load_bytes(s)
  local f = assert(io.open(PATH, 'wb'))
  f:write(s)
  f:close()
  local o = torch.load(PATH)
  os.remove(PATH)
  return o
end

-- ---- Torch7's binary format (little-endian, int 4 bytes, long 8 bytes) --------------------------
local function raw(ct, values)
  local n = #values
  return ffi.string(ffi.new(ct .. '[?]', n, values), n * ffi.sizeof(ct))
end
local function i32(v) return raw('int32_t', { v }) end
local function i64(v) return raw('int64_t', { v }) end
local function num(v) return i32(1) .. raw('double', { v }) end
local function str(s) return i32(2) .. i32(#s) .. s end
local function bool(b) return i32(5) .. i32(b and 1 or 0) end
local function obj(index, class, body, version)
  version = version or 'V 1'
  return i32(4) .. i32(index) .. i32(#version) .. version .. i32(#class) .. class .. body
end
local function tbl(index, kv) return i32(3) .. i32(index) .. i32(#kv / 2) .. table.concat(kv) end

-- A 1-d tensor of `values` (kind 'Double' or 'Float' or 'Cuda'), using object indices idx, idx + 1.
local function vec(idx, kind, values)
  local ct = kind == 'Double' and 'double' or 'float'
  local st = obj(idx + 1, 'torch.' .. kind .. 'Storage', i64(#values) .. raw(ct, values))
  return obj(idx, 'torch.' .. kind .. 'Tensor', i32(1) .. i64(#values) .. i64(1) .. i64(1) .. st)
end
local function empty(idx, kind) return obj(idx, 'torch.' .. kind .. 'Tensor', i32(0) .. i64(1) .. i32(0)) end

local RM, RV, W, B = { 0.5, -1, 2 }, { 4, 0.25, 1 }, { 1.5, -0.5, 2 }, { 0.1, 0.2, -0.3 }
local EPS = 1e-5

-- A module as Torch7 writes it: its fields in a table (the stat field is running_var in version
-- 2, running_std in version 1); object indices start after base.
local function bn_file(class, version, kind, stat_name, stat, base)
  base = base or 0
  local i = base + 10
  local function nxt() i = i + 2 return i end
  return obj(base + 1, class, tbl(base + 2, {
    str('train'), bool(false),
    str('eps'), num(EPS),
    str('momentum'), num(0.1),
    str('affine'), bool(true),
    str('running_mean'), vec(nxt(), kind, RM),
    str(stat_name), vec(nxt(), kind, stat),
    str('weight'), vec(nxt(), kind, W),
    str('bias'), vec(nxt(), kind, B),
    str('gradWeight'), vec(nxt(), kind, { 0, 0, 0 }),
    str('gradBias'), vec(nxt(), kind, { 0, 0, 0 }),
    str('output'), empty(nxt(), kind),
    str('gradInput'), empty(nxt(), kind),
    str('_type'), str('torch.' .. kind .. 'Tensor'),
  }), 'V ' .. version)
end

-- Evaluation-mode output for x (N x 3 x ...) from the constants above.
local function expected(x)
  local y = x:clone()
  for c = 1, 3 do
    y:select(2, c):add(-RM[c]):div(math.sqrt(RV[c] + EPS)):mul(W[c]):add(B[c])
  end
  return y
end

local function check_module(m, class, x, tol)
  tester:asserteq(torch.type(m), class)
  tester:asserteq(m.train, false)
  tester:assertTensorEq(m.running_var:double(), D(RV), tol, class .. ' running_var')
  tester:asserteq(m.running_std, nil)
  tester:assertTensorEq(m:forward(x:type(m.weight:type())):double(), expected(x), tol, class .. ' forward')
  -- It trains like a fresh module: Torch7's backward and autograd's both fill gradWeight.
  m:training()
  m:zeroGradParameters()
  m:forward(x:type(m.weight:type()))
  m:backward(x:type(m.weight:type()), x:type(m.weight:type()))
  local gw = m.gradWeight:clone()
  m:zeroGradParameters()
  local xr = x:type(m.weight:type()):requiresGrad()
  torch.sum(torch.cmul(m:forward(xr), x:type(m.weight:type())):mul(1)):backward()
  tester:assertTensorEq(m.gradWeight, gw, tol, class .. ' gradWeight')
  tester:assert(m.gradWeight:abs():sum() > 0)
end

function tests.version2BatchNormalization()
  local m = load_bytes(bn_file('nn.BatchNormalization', 2, 'Double', 'running_var', RV))
  check_module(m, 'nn.BatchNormalization', torch.randn(5, 3):double(), 1e-12)
end

function tests.version2SpatialBatchNormalizationFloat()
  local m = load_bytes(bn_file('nn.SpatialBatchNormalization', 2, 'Float', 'running_var', RV))
  tester:asserteq(torch.type(m.weight), 'torch.FloatTensor')
  check_module(m, 'nn.SpatialBatchNormalization', torch.randn(2, 3, 4, 4):double(), 1e-5)
end

-- Torch7's version 1 stored running_std = 1 / sqrt(var + eps).
function tests.version1RunningStd()
  local std = {}
  for c = 1, 3 do std[c] = 1 / math.sqrt(RV[c] + EPS) end
  local m = load_bytes(bn_file('nn.SpatialBatchNormalization', 1, 'Double', 'running_std', std))
  check_module(m, 'nn.SpatialBatchNormalization', torch.randn(2, 3, 2, 2):double(), 1e-10)
  local v = load_bytes(bn_file('nn.BatchNormalization', 1, 'Double', 'running_std', std))
  check_module(v, 'nn.BatchNormalization', torch.randn(4, 3):double(), 1e-10)
end

-- cudnn's modules (CUDA tensors read as float) load as nn's.
function tests.cudnnClasses()
  local m = load_bytes(bn_file('cudnn.SpatialBatchNormalization', 2, 'Cuda', 'running_var', RV))
  check_module(m, 'nn.SpatialBatchNormalization', torch.randn(2, 3, 2, 2):double(), 1e-5)
  local v = load_bytes(bn_file('cudnn.VolumetricBatchNormalization', 2, 'Cuda', 'running_var', RV))
  check_module(v, 'nn.VolumetricBatchNormalization', torch.randn(2, 3, 2, 2, 2):double(), 1e-5)
end

-- Inside a Sequential, and written back by Tocha in Torch7's format, the fields survive.
function tests.roundTripInsideSequential()
  local m = load_bytes(obj(1, 'nn.Sequential', tbl(2, {
    str('modules'), tbl(3, { num(1), bn_file('nn.BatchNormalization', 2, 'Double', 'running_var', RV, 100) }),
    str('train'), bool(false),
    str('output'), empty(60, 'Double'),
    str('gradInput'), empty(62, 'Double'),
  }), 'V 1'))
  local x = torch.randn(4, 3):double()
  tester:assertTensorEq(m:forward(x), expected(x), 1e-12)
  torch.save(PATH, m, 'binary-t7')
  local back = torch.load(PATH)
  os.remove(PATH)
  tester:assertTensorEq(back:get(1).running_var, D(RV), 0)
  tester:assertTensorEq(back:forward(x), expected(x), 1e-12)
end

tester:add(tests)
tester:run()
