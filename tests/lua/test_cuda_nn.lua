-- nn on CUDA (issue 9): the nn kernels of kernels/cuda (cuDNN convolutions, pooling, batch norm,
-- class losses, index ops, cat, maskedFill) against the CPU, forward and gradients (through
-- autograd, so every backward kernel runs), in f32 and f64; nn modules and criterions after
-- :cuda() against their CPU twins; and a few SGD steps of the Fashion-MNIST CNN of
-- examples/fashion_mnist_cnn.lua on synthetic data on both devices, comparing losses and
-- parameters. Without a GPU every GPU test returns at once (the suite reports SKIPPED) and only
-- the checks that need no device run.
require 'nn'
local tester = torch.Tester()
local unpack = table.unpack or unpack
local tests = torch.TestSuite()

local available = torch.cuda.isAvailable()
-- TOCHA_CUDA_NN_DRYRUN=1 runs the GPU tests with :cuda() replaced by a CPU copy, to check the
-- suite itself on a machine without a GPU (every comparison is then CPU against CPU).
local dry = os.getenv('TOCHA_CUDA_NN_DRYRUN') == '1' and not available
if os.getenv('TOCHA_CUDA_NN_DRYRUN') == '1' and available then
  print('SKIPPED: no dry run with a GPU present (lua.cuda_nn runs the suite for real)')
  return
end
if dry then
  available = true
  local methods = torch.getmetatable('torch.FloatTensor')
  methods.cuda = function(t) return t:clone() end
  nn.Module.cuda = function(self) return self end
  nn.Criterion.cuda = function(self) return self end
  print('DRY RUN: :cuda() makes CPU copies')
elseif not available then
  print('SKIPPED: CUDA nn tests need a GPU (' .. torch.cuda.unavailableReason() .. ')')
end

local tol = { ['torch.FloatTensor'] = 2e-4, ['torch.DoubleTensor'] = 1e-10 }
local float_types = { 'torch.FloatTensor', 'torch.DoubleTensor' }

-- Largest difference relative to max(1, |cpu|); math.huge when a result is missing or misplaced.
local function max_err(cpu, gpu)
  if not torch.isTensor(cpu) or not torch.isTensor(gpu) then return math.huge end
  if (gpu:device() == 'cpu' and not dry) or cpu:nElement() ~= gpu:nElement() then return math.huge end
  local a, b = cpu:double():contiguous():view(-1), gpu:double():contiguous():view(-1)
  if a:nElement() == 0 then return 0 end
  local diff = (a - b):abs():cdiv(a:clone():abs():cmax(1))
  return diff:max()
end

local failures
local function expect(what, cpu, gpu, t)
  local e = max_err(cpu, gpu)
  if not (e <= t) then failures[#failures + 1] = string.format('%s: error %g (tolerance %g)', what, e, t) end
end
local function report() tester:asserteq(#failures, 0, table.concat(failures, '\n')) end

-- Runs f on CPU inputs and on their CUDA copies; compares the outputs and the gradients of
-- sum(out * g) (g random, the same on both) with respect to every input that is floating.
local function check_op(what, tname, f, inputs, t)
  t = t or tol[tname]
  local function run(device)
    local leaves = {}
    for i, x in ipairs(inputs) do
      local v = x:clone()
      if device == 'cuda' then v = v:cuda() end
      if nn.utils.isFloating(v) then v:requiresGrad() end
      leaves[i] = v
    end
    local out = f(unpack(leaves))
    return out, leaves
  end
  local out_c, leaves_c = run('cpu')
  local out_g, leaves_g = run('cuda')
  expect(what .. ' ' .. tname .. ' forward', out_c, out_g, t)
  local g = out_c:detach():clone():uniform(-1, 1)
  torch.sum(torch.cmul(out_c, g)):backward()
  torch.sum(torch.cmul(out_g, g:cuda())):backward()
  for i, x in ipairs(leaves_c) do
    if nn.utils.isFloating(x) then
      expect(string.format('%s %s grad of input %d', what, tname, i), x.grad, leaves_g[i].grad, t * 10)
    end
  end
end

local function rand(tname, ...) return torch.DoubleTensor(...):uniform(-1, 1):type(tname) end

-- ---- without a GPU -----------------------------------------------------------------------------

function tests.moduleCudaWithoutGpuIsAClearError()
  if available then return end
  local m = nn.Sequential():add(nn.Linear(3, 2))
  tester:assertErrorPattern(function() m:cuda() end, 'cuda')
  tester:assertErrorPattern(function() nn.ClassNLLCriterion():cuda() end, 'cuda')
end

function tests.indexBuffersFollowTheInput()
  local b = nn.utils.longBuffer(nil, torch.FloatTensor(2))
  tester:asserteq(b:type(), 'torch.LongTensor')
  tester:assert(nn.utils.longBuffer(b, torch.DoubleTensor(1)) == b, 'a CPU LongTensor is kept for CPU inputs')
  tester:assert(nn.utils.longBuffer(torch.FloatTensor(), torch.FloatTensor(1)):type() == 'torch.LongTensor')
  tester:assert(nn.utils.isFloating(torch.FloatTensor(1)))
  tester:assert(not nn.utils.isFloating(torch.LongTensor(1)))
  tester:assert(not nn.utils.isFloating({}))
end

-- ---- kernels against the CPU -------------------------------------------------------------------

function tests.convolutionsMatchCpu()
  if not available then return end
  failures = {}
  for _, tname in ipairs(float_types) do
    local x, w, b = rand(tname, 2, 4, 9, 8), rand(tname, 6, 4, 3, 3), rand(tname, 6)
    check_op('conv2d', tname, function(x, w, b) return torch.conv2d(x, w, b, 1, 1) end, { x, w, b })
    check_op('conv2d stride 2 dilation 2', tname, function(x, w) return torch.conv2d(x, w, nil, 2, 2, 2) end, { x, w })
    check_op('conv2d groups 2', tname, function(x, w, b) return torch.conv2d(x, w, b, { 1, 2 }, { 0, 1 }, 1, 2) end,
      { x, rand(tname, 6, 2, 3, 2), b })
    check_op('conv2d one sample', tname, function(x, w) return torch.conv2d(x, w) end, { rand(tname, 4, 6, 6), w })
    check_op('conv1d', tname, function(x, w, b) return torch.conv1d(x, w, b, 2, 1) end,
      { rand(tname, 3, 4, 17), rand(tname, 5, 4, 3), rand(tname, 5) })
    check_op('conv3d', tname, function(x, w, b) return torch.conv3d(x, w, b, 1, { 1, 0, 1 }) end,
      { rand(tname, 2, 3, 4, 5, 5), rand(tname, 4, 3, 2, 3, 3), rand(tname, 4) })
    check_op('convTranspose2d', tname, function(x, w, b) return torch.convTranspose2d(x, w, b, 2, 1, 1) end,
      { rand(tname, 2, 4, 5, 5), rand(tname, 4, 3, 3, 3), rand(tname, 3) })
    check_op('convWeight', tname, function(x, g) return torch.convWeight(x, { 6, 4, 3, 3 }, g, 1, 1) end,
      { x, rand(tname, 2, 6, 9, 8) })
  end
  report()
end

function tests.poolingMatchesCpu()
  if not available then return end
  failures = {}
  for _, tname in ipairs(float_types) do
    local x = rand(tname, 2, 3, 9, 10)
    for _, cfg in ipairs({ { 2, 2, 0, false }, { 3, 2, 1, false }, { 3, 2, 1, true }, { { 2, 3 }, { 1, 2 }, 0, true } }) do
      local name = string.format('k %s s %s p %s ceil %s', tostring(cfg[1]), tostring(cfg[2]), cfg[3], tostring(cfg[4]))
      check_op('maxPool2d ' .. name, tname, function(v) return (torch.maxPool2d(v, cfg[1], cfg[2], cfg[3], cfg[4])) end, { x })
      for _, incl in ipairs({ true, false }) do
        check_op('avgPool2d ' .. name .. ' countIncludePad ' .. tostring(incl), tname,
          function(v) return torch.avgPool2d(v, cfg[1], cfg[2], cfg[3], cfg[4], incl) end, { x })
      end
    end
    local _, ic = torch.maxPool2d(x, 3, 2, 1)
    local _, ig = torch.maxPool2d(x:cuda(), 3, 2, 1)
    expect('maxPool2d indices ' .. tname, ic, ig, 0)
  end
  report()
end

function tests.batchNormMatchesCpu()
  if not available then return end
  failures = {}
  for _, tname in ipairs(float_types) do
    for _, shape in ipairs({ { 8, 5 }, { 4, 3, 6, 7 } }) do
      local c = shape[2]
      local x = rand(tname, unpack(shape)):mul(3):add(1)
      local w, b = rand(tname, c), rand(tname, c)
      local rm, rv = rand(tname, c), rand(tname, c):abs():add(0.5)
      local rm_g, rv_g = rm:cuda(), rv:cuda()
      local name = 'batchNorm ' .. table.concat(shape, 'x')
      check_op(name .. ' training', tname, function(v, w, b) return torch.batchNorm(v, nil, nil, w, b, true) end, { x, w, b })
      check_op(name .. ' no affine', tname, function(v) return torch.batchNorm(v, nil, nil, nil, nil, true, 0.1, 1e-3) end, { x })
      check_op(name .. ' evaluation', tname, function(v, w, b)
        return torch.batchNorm(v, v:isCuda() and rm:cuda() or rm, v:isCuda() and rv:cuda() or rv, w, b, false)
      end, { x, w, b })
      -- running statistics
      local rm_c, rv_c = rm:clone(), rv:clone()
      torch.batchNorm(x, rm_c, rv_c, w, b, true, 0.3)
      torch.batchNorm(x:cuda(), rm_g, rv_g, w:cuda(), b:cuda(), true, 0.3)
      expect(name .. ' running mean ' .. tname, rm_c, rm_g, tol[tname])
      expect(name .. ' running var ' .. tname, rv_c, rv_g, tol[tname])
    end
  end
  report()
end

function tests.classLossesMatchCpu()
  if not available then return end
  failures = {}
  for _, tname in ipairs(float_types) do
    local x = rand(tname, 13, 7):mul(3)
    local target = torch.LongTensor(13):random(1, 7)
    target[4] = 3
    local weights = rand(tname, 7):abs():add(0.1)
    for _, crit in ipairs({ 'nllLoss', 'crossEntropy' }) do
      for _, opts in ipairs({ {}, { weights = weights }, { sizeAverage = false }, { ignoreIndex = 3 } }) do
        local name = string.format('%s weights %s sizeAverage %s ignore %s', crit, tostring(opts.weights ~= nil),
          tostring(opts.sizeAverage), tostring(opts.ignoreIndex))
        local o_g = { weights = opts.weights and opts.weights:cuda(), sizeAverage = opts.sizeAverage,
                      ignoreIndex = opts.ignoreIndex }
        local function f(v)
          local dev = v:isCuda()
          return torch[crit](v, dev and target:cuda() or target, dev and o_g or opts):view(1)
        end
        check_op(name, tname, f, { x })
      end
    end
  end
  report()
end

function tests.indexOpsMatchCpu()
  if not available then return end
  failures = {}
  for _, tname in ipairs({ 'torch.FloatTensor', 'torch.DoubleTensor', 'torch.LongTensor', 'torch.ByteTensor' }) do
    local x = torch.DoubleTensor(5, 6):uniform(0, 9):floor():type(tname)
    local xg = x:cuda()
    local idx = torch.LongTensor({ 3, 1, 3, 5 })
    local ig = idx:cuda()
    expect('index(1) ' .. tname, x:index(1, idx), xg:index(1, ig), 0)
    expect('index(2) ' .. tname, x:index(2, idx), xg:index(2, ig), 0)
    local gidx = torch.LongTensor(5, 4):random(1, 6)
    expect('gather ' .. tname, x:gather(2, gidx), xg:gather(2, gidx:cuda()), 0)
    local src = torch.DoubleTensor(4, 6):uniform(0, 9):floor():type(tname)
    expect('indexAdd ' .. tname, x:clone():indexAdd(1, idx, src), xg:clone():indexAdd(1, ig, src:cuda()), 0)
    expect('indexCopy ' .. tname, x:clone():indexCopy(1, torch.LongTensor({ 2, 4, 1, 5 }), src),
      xg:clone():indexCopy(1, torch.LongTensor({ 2, 4, 1, 5 }):cuda(), src:cuda()), 0)
    expect('indexFill ' .. tname, x:clone():indexFill(2, idx, 7), xg:clone():indexFill(2, ig, 7), 0)
    local sidx = torch.LongTensor(5, 4):random(1, 6)
    local ssrc = torch.DoubleTensor(5, 4):uniform(0, 9):floor():type(tname)
    expect('scatterAdd ' .. tname, x:clone():scatterAdd(2, sidx, ssrc), xg:clone():scatterAdd(2, sidx:cuda(), ssrc:cuda()), 0)
    local mask = torch.ByteTensor(5, 6):random(0, 1)
    expect('maskedFill ' .. tname, x:clone():maskedFill(mask, 2), xg:clone():maskedFill(mask:cuda(), 2), 0)
    expect('maskedSelect ' .. tname, x:maskedSelect(mask), xg:maskedSelect(mask:cuda()), 0)
    local msrc = torch.DoubleTensor(30):uniform(0, 9):floor():type(tname)
    expect('maskedCopy ' .. tname, x:clone():maskedCopy(mask, msrc), xg:clone():maskedCopy(mask:cuda(), msrc:cuda()), 0)
    expect('nonzero ' .. tname, torch.nonzero(x), torch.nonzero(xg), 0)
    local y = torch.DoubleTensor(5, 2):uniform(0, 9):floor():type(tname)
    expect('cat(2) ' .. tname, torch.cat(x, y, 2), torch.cat(xg, y:cuda(), 2), 0)
    expect('cat(1) ' .. tname, torch.cat({ x, x:narrow(1, 1, 2) }, 1), torch.cat({ xg, xg:narrow(1, 1, 2) }, 1), 0)
  end
  -- more than one chunk of the mask scan (chunks of 2^15 elements), in order across chunks
  local big = torch.randn(300, 400)
  local bm = big:gt(0.3)
  expect('maskedSelect large', big:maskedSelect(bm), big:cuda():maskedSelect(bm:cuda()), 0)
  expect('nonzero large', torch.nonzero(bm), torch.nonzero(bm:cuda()), 0)
  -- indexAdd in float: repeated indices accumulate in order, as on the CPU (bit-identical)
  local w = torch.randn(10, 16)
  local idx = torch.LongTensor(200):random(1, 10)
  local g = torch.randn(200, 16)
  expect('indexAdd repeated', w:clone():indexAdd(1, idx, g), w:cuda():indexAdd(1, idx:cuda(), g:cuda()), 0)
  -- gradients: gather's is scatterAdd, index's is indexAdd (on the GPU when the input is there)
  local gidx, iidx = torch.LongTensor(5, 3):random(1, 6), torch.LongTensor({ 2, 2, 4, 1 })
  check_op('gather', 'torch.DoubleTensor', function(v) return v:gather(2, v:isCuda() and gidx:cuda() or gidx) end,
    { torch.randn(5, 6):double() })
  check_op('index', 'torch.DoubleTensor', function(v) return v:index(1, v:isCuda() and iidx:cuda() or iidx) end,
    { torch.randn(5, 6):double() })
  report()
end

function tests.layerNormTriangleAndRankOneMatchCpu()
  if not available then return end
  failures = {}
  for _, tname in ipairs(float_types) do
    local x = rand(tname, 6, 5, 12):mul(2):add(0.5)
    check_op('layerNorm affine', tname, function(v, w, b) return torch.layerNorm(v, 1, w, b) end,
      { x, rand(tname, 12), rand(tname, 12) })
    check_op('layerNorm 2 dims', tname, function(v) return torch.layerNorm(v, 2, nil, nil, 1e-3) end, { x })
    local m = rand(tname, 3, 6, 7)
    for _, k in ipairs({ -2, 0, 3 }) do
      check_op('tril ' .. k, tname, function(v) return torch.tril(v, k) end, { m })
      check_op('triu ' .. k, tname, function(v) return torch.triu(v, k) end, { m })
    end
    check_op('ger', tname, function(a, b) return torch.ger(a, b) end, { rand(tname, 9), rand(tname, 4) })
    check_op('addr', tname, function(c, a, b) return torch.addr(c, a, b) end,
      { rand(tname, 9, 4), rand(tname, 9), rand(tname, 4) })
  end
  report()
end

function tests.paddingAndResamplingMatchCpu()
  if not available then return end
  failures = {}
  local F = nn.functional
  for _, tname in ipairs(float_types) do
    local x = rand(tname, 2, 3, 5, 6)
    for _, mode in ipairs({ 'constant', 'reflect', 'replicate' }) do
      check_op('pad ' .. mode, tname, function(v)
        return F.pad(v, { 2, 1, 3, -1 }, mode, mode == 'constant' and 0.5 or nil)
      end, { x })
      check_op('pad 3d ' .. mode, tname, function(v) return F.pad(v, { 1, 2, 0, 1, 2, 1 }, mode) end, { x })
    end
    for _, o in ipairs({ { size = { 9, 13 } }, { size = { 3, 4 } }, { size = { 11, 7 }, mode = 'bilinear' },
                         { size = { 11, 7 }, mode = 'bilinear', alignCorners = true },
                         { size = { 4, 4 }, mode = 'bilinear' } }) do
      check_op(string.format('interpolate %s %dx%d%s', o.mode or 'nearest', o.size[1], o.size[2],
        o.alignCorners and ' alignCorners' or ''), tname, function(v) return F.interpolate(v, o) end, { x })
    end
  end
  local pc, pg = nn.SpatialReflectionPadding(1, 2, 2, 1), nn.SpatialReflectionPadding(1, 2, 2, 1):cuda()
  local x = torch.randn(2, 3, 5, 5)
  expect('SpatialReflectionPadding', pc:forward(x), pg:forward(x:cuda()), 0)
  report()
end

function tests.scansAndSortsMatchCpu()
  if not available then return end
  failures = {}
  for _, tname in ipairs({ 'torch.FloatTensor', 'torch.DoubleTensor', 'torch.LongTensor', 'torch.HalfTensor' }) do
    -- few distinct values: ties exercise the (key, index) order
    local x = torch.DoubleTensor(6, 9):uniform(-4, 4):floor():type(tname)
    local xg = x:cuda()
    local t = tname == 'torch.HalfTensor' and 1e-3 or 1e-6
    expect('cumsum(2) ' .. tname, torch.cumsum(x, 2), torch.cumsum(xg, 2), t)
    expect('cumsum(1) ' .. tname, torch.cumsum(x, 1), torch.cumsum(xg, 1), t)
    expect('cumprod(2) ' .. tname, torch.cumprod(x:clone():clamp(-2, 2), 2), torch.cumprod(xg:clone():clamp(-2, 2), 2), t)
    for _, desc in ipairs({ false, true }) do
      local vc, ic = torch.sort(x, 2, desc)
      local vg, ig = torch.sort(xg, 2, desc)
      expect('sort values ' .. tname .. ' desc ' .. tostring(desc), vc, vg, 0)
      expect('sort indices ' .. tname .. ' desc ' .. tostring(desc), ic, ig, 0)
    end
    local vc, ic = torch.topk(x, 3, 2, true)
    local vg, ig = torch.topk(xg, 3, 2, true)
    expect('topk values ' .. tname, vc, vg, 0)
    expect('topk indices ' .. tname, ic, ig, 0)
    vc, ic = torch.kthvalue(x, 4, 2)
    vg, ig = torch.kthvalue(xg, 4, 2)
    expect('kthvalue ' .. tname, vc, vg, 0)
    expect('kthvalue indices ' .. tname, ic, ig, 0)
    vc, ic = torch.median(x, 1)
    vg, ig = torch.median(xg, 1)
    expect('median ' .. tname, vc, vg, 0)
    expect('median indices ' .. tname, ic, ig, 0)
    vc, ic = torch.mode(x, 2)
    vg, ig = torch.mode(xg, 2)
    expect('mode ' .. tname, vc, vg, 0)
    expect('mode indices ' .. tname, ic, ig, 0)
  end
  local a, b = torch.randn(4, 3), torch.randn(4, 3)
  expect('cross', torch.cross(a, b, 2), torch.cross(a:cuda(), b:cuda(), 2), 1e-6)
  local nan = torch.Tensor({ { 3, 0 / 0, 1, 2 }, { 1, 2, 0 / 0, 0 / 0 } })
  local vc, ic = torch.sort(nan, 2)
  local vg, ig = torch.sort(nan:cuda(), 2)
  expect('sort NaN indices', ic, ig, 0)
  vc, ic = torch.median(nan, 2)
  vg, ig = torch.median(nan:cuda(), 2)
  expect('median NaN indices', ic, ig, 0)
  check_op('cumsum grad', 'torch.DoubleTensor', function(v) return torch.cumsum(v, 2) end, { torch.randn(3, 5):double() })
  check_op('sort grad', 'torch.DoubleTensor', function(v) return (torch.sort(v, 2)) end, { torch.randn(3, 5):double() })
  report()
end

-- ---- modules and criterions ---------------------------------------------------------------------

local function module_cases()
  return {
    { 'Linear', function() return nn.Linear(7, 5) end, { 4, 7 } },
    { 'ReLU', function() return nn.ReLU() end, { 4, 7 } },
    { 'SpatialConvolution', function() return nn.SpatialConvolution(3, 4, 3, 3, 1, 1, 1, 1) end, { 2, 3, 8, 8 } },
    { 'SpatialMaxPooling', function() return nn.SpatialMaxPooling(2, 2, 2, 2) end, { 2, 3, 8, 8 } },
    { 'SpatialMaxPooling ceil', function() return nn.SpatialMaxPooling(3, 3, 2, 2):ceil() end, { 2, 3, 8, 8 } },
    { 'SpatialAveragePooling', function() return nn.SpatialAveragePooling(2, 2, 2, 2) end, { 2, 3, 8, 8 } },
    { 'SpatialBatchNormalization', function() return nn.SpatialBatchNormalization(3) end, { 4, 3, 5, 5 } },
    { 'BatchNormalization', function() return nn.BatchNormalization(6) end, { 8, 6 } },
    { 'View', function() return nn.View(3 * 4 * 4) end, { 2, 3, 4, 4 } },
    { 'LogSoftMax', function() return nn.LogSoftMax() end, { 4, 10 } },
    { 'LayerNormalization', function() return nn.LayerNormalization(10) end, { 4, 10 } },
    { 'SpatialAdaptiveAveragePooling', function() return nn.SpatialAdaptiveAveragePooling(3, 2) end, { 2, 3, 7, 8 } },
    { 'SpatialAdaptiveMaxPooling', function() return nn.SpatialAdaptiveMaxPooling(3, 2) end, { 2, 3, 7, 8 } },
    { 'VolumetricMaxPooling', function() return nn.VolumetricMaxPooling(2, 2, 2, 1, 2, 2) end, { 2, 2, 4, 6, 6 } },
    { 'VolumetricAveragePooling', function() return nn.VolumetricAveragePooling(2, 3, 3, 1, 2, 2) end, { 2, 2, 4, 7, 7 } },
    { 'TemporalMaxPooling', function() return nn.TemporalMaxPooling(3, 2) end, { 2, 9, 5 } },
    { 'SpatialDilatedConvolution', function() return nn.SpatialDilatedConvolution(3, 4, 3, 3, 1, 1, 2, 2, 2, 2) end, { 2, 3, 9, 9 } },
    { 'SpatialFullConvolution', function() return nn.SpatialFullConvolution(3, 4, 3, 3, 2, 2, 1, 1, 1, 1) end, { 2, 3, 5, 5 } },
    { 'VolumetricConvolution', function() return nn.VolumetricConvolution(2, 3, 2, 3, 3) end, { 2, 2, 4, 6, 6 } },
    { 'TemporalConvolution', function() return nn.TemporalConvolution(5, 4, 3, 1) end, { 2, 9, 5 } },
    { 'Tanh', function() return nn.Tanh() end, { 4, 10 } },
    { 'Sigmoid', function() return nn.Sigmoid() end, { 4, 10 } },
  }
end

function tests.modulesMatchCpu()
  if not available then return end
  failures = {}
  for _, case in ipairs(module_cases()) do
    local name, make, shape = case[1], case[2], case[3]
    torch.manualSeed(7)
    local cpu = make()
    local gpu = cpu:clone():cuda()
    local x = torch.randn(unpack(shape))
    local out_c = cpu:forward(x)
    local ok, out_g = pcall(function() return gpu:forward(x:cuda()) end)
    if not ok then
      failures[#failures + 1] = name .. ' forward: ' .. tostring(out_g)
    else
      expect(name .. ' output', out_c, out_g, 1e-4)
      local go = out_c:detach():clone():uniform(-1, 1)
      cpu:zeroGradParameters()
      gpu:zeroGradParameters()
      local gi_c = cpu:backward(x, go)
      local gi_g = gpu:backward(x:cuda(), go:cuda())
      expect(name .. ' gradInput', gi_c, gi_g, 1e-4)
      local _, gc = cpu:parameters()
      local _, gg = gpu:parameters()
      for i, g in ipairs(gc or {}) do expect(name .. ' gradParameter ' .. i, g, gg[i], 1e-3) end
    end
  end
  report()
end

function tests.lookupTableAndMaxOnCuda()
  if not available then return end
  failures = {}
  torch.manualSeed(3)
  local cpu = nn.LookupTable(20, 6)
  local gpu = cpu:clone():cuda()
  local idx = torch.LongTensor(4, 5):random(1, 20)
  idx[1][1], idx[2][2] = 7, 7  -- repeated rows accumulate
  for _, input in ipairs({ idx, idx:cuda() }) do  -- indices on either device
    gpu:zeroGradParameters()
    cpu:zeroGradParameters()
    local oc, og = cpu:forward(idx), gpu:forward(input)
    expect('LookupTable output', oc, og, 0)
    local go = torch.randn(4, 5, 6)
    cpu:backward(idx, go)
    gpu:backward(input, go:cuda())
    expect('LookupTable gradWeight', cpu.gradWeight, gpu.gradWeight, 1e-6)
  end
  local mc, mg = nn.Max(2), nn.Max(2):cuda()
  local x = torch.randn(5, 7)
  expect('Max output', mc:forward(x), mg:forward(x:cuda()), 0)
  local go = torch.randn(5)
  expect('Max gradInput', mc:backward(x, go), mg:backward(x:cuda(), go:cuda()), 0)
  report()
end

function tests.dropoutOnCuda()
  if not available then return end
  local m = nn.Dropout(0.4):cuda()
  local x = torch.rand(200, 50):add(1):cuda()
  local y = m:forward(x)
  tester:assert(dry or y:isCuda(), 'output on the GPU')
  local kept = y:gt(0):double():mean()
  tester:assert(kept > 0.5 and kept < 0.7, 'about 60% kept, got ' .. kept)
  local scaled = torch.cdiv(y, x):double()
  local bad = torch.cmul(scaled:gt(0):double(), torch.add(scaled, -1 / 0.6):abs():gt(1e-5):double()):sum()
  tester:asserteq(bad, 0, 'kept values scaled by 1 / (1 - p)')
  local gi = m:backward(x, torch.ones(200, 50):cuda())
  tester:asserteq(max_err(y:gt(0):double(), gi:gt(0):double()), 0, 'the gradient uses the same mask')
  m:evaluate()
  tester:asserteq(max_err(x:float(), m:forward(x)), 0, 'identity in evaluation')
  if dry then return end
  -- masks come from the device's Philox stream: rate p, replayed by torch.cuda.manualSeed
  torch.cuda.manualSeed(5)
  local a = torch.Tensor(100000):cuda():bernoulli(0.3)
  torch.cuda.manualSeed(5)
  local b = torch.Tensor(100000):cuda():bernoulli(0.3)
  tester:asserteq(max_err(a:double(), b), 0, 'same seed, same mask')
  local rate = a:double():mean()
  tester:assert(math.abs(rate - 0.3) < 0.01, 'bernoulli rate ' .. rate)
  tester:asserteq(torch.LongTensor(7):cuda():bernoulli(1):double():sum(), 7, 'p = 1 into a LongTensor')
end

function tests.criterionsMatchCpu()
  if not available then return end
  failures = {}
  local weights = torch.rand(5):add(0.5)
  for _, case in ipairs({ { 'ClassNLLCriterion', function() return nn.ClassNLLCriterion() end },
                          { 'CrossEntropyCriterion', function() return nn.CrossEntropyCriterion() end },
                          { 'ClassNLLCriterion weighted', function() return nn.ClassNLLCriterion(weights:clone()) end } }) do
    local name, make = case[1], case[2]
    local cpu, gpu = make(), make():cuda()
    local x = torch.randn(6, 5)
    if name:find('NLL') then x = torch.logSoftmax(x, 2) end
    local t = torch.LongTensor(6):random(1, 5)
    local lc = cpu:forward(x, t)
    local lg = gpu:forward(x:cuda(), t:cuda())
    if math.abs(lc - lg) > 1e-5 * math.max(1, math.abs(lc)) then
      failures[#failures + 1] = string.format('%s loss %g vs %g', name, lc, lg)
    end
    expect(name .. ' gradInput', cpu:backward(x, t), gpu:backward(x:cuda(), t:cuda()), 1e-5)
  end
  report()
end

function tests.mixingDevicesIsAClearError()
  if not available or dry then return end
  local m = nn.Linear(3, 2):cuda()
  tester:assertErrorPattern(function() m:forward(torch.randn(4, 3)) end, 'cuda')
  local conv = nn.SpatialConvolution(1, 2, 3, 3):cuda()
  tester:assertErrorPattern(function() conv:forward(torch.randn(1, 1, 5, 5)) end, 'cuda')
  local crit = nn.ClassNLLCriterion():cuda()
  tester:assertErrorPattern(function() crit:forward(torch.randn(2, 3):cuda(), torch.LongTensor({ 1, 2 })) end, 'cuda')
end

-- ---- the Fashion-MNIST CNN on both devices --------------------------------------------------------

-- The model of examples/fashion_mnist_cnn.lua (Dropout with p = 0 here so both devices see the
-- same function: dropout masks come from different random streams; Dropout is tested above).
local function cnn(bn)
  local m = nn.Sequential()
  local function block(nIn, nOut)
    m:add(nn.SpatialConvolution(nIn, nOut, 3, 3, 1, 1, 1, 1))
    if bn then m:add(nn.SpatialBatchNormalization(nOut)) end
    m:add(nn.ReLU()):add(nn.SpatialMaxPooling(2, 2, 2, 2))
  end
  block(1, 32)
  block(32, 64)
  m:add(nn.View(64 * 7 * 7)):add(nn.Linear(64 * 7 * 7, 128))
  if bn then m:add(nn.BatchNormalization(128)) end
  m:add(nn.ReLU()):add(nn.Dropout(0)):add(nn.Linear(128, 10)):add(nn.LogSoftMax())
  return m
end

local function train_compare(bn)
  torch.manualSeed(1)
  local cpu = cnn(bn)
  local gpu = cpu:clone():cuda()
  local crit_c, crit_g = nn.ClassNLLCriterion(), nn.ClassNLLCriterion():cuda()
  local pc, gc = cpu:getParameters()
  local pg, gg = gpu:getParameters()
  tester:assert(dry or pg:isCuda(), 'flat parameters on the GPU')
  local worst_loss = 0
  for step = 1, 5 do
    local x = torch.randn(16, 1, 28, 28)
    local y = torch.LongTensor(16):random(1, 10)
    local losses = {}
    for d, dev in ipairs({ { cpu, crit_c, pc, gc, x, y }, { gpu, crit_g, pg, gg, x:cuda(), y:cuda() } }) do
      local model, crit, p, g, input, target = unpack(dev)
      g:zero()
      local out = model:forward(input)
      losses[d] = crit:forward(out, target)
      model:backward(input, crit:backward(out, target))
      p:add(-0.05, g)
    end
    worst_loss = math.max(worst_loss, math.abs(losses[1] - losses[2]) / math.max(1, math.abs(losses[1])))
  end
  tester:assertlt(worst_loss, 1e-3, 'losses of the two devices agree (bn ' .. tostring(bn) .. ')')
  tester:assertlt(max_err(pc, pg), 1e-3, 'parameters after 5 SGD steps agree (bn ' .. tostring(bn) .. ')')
  -- evaluation mode (running statistics) agrees too
  cpu:evaluate()
  gpu:evaluate()
  local x = torch.randn(4, 1, 28, 28)
  tester:assertlt(max_err(cpu:forward(x), gpu:forward(x:cuda())), 1e-3, 'evaluation outputs agree')
end

function tests.fashionMnistCnnTrainsOnCuda() if available then train_compare(false) end end
function tests.fashionMnistCnnWithBatchNormTrainsOnCuda() if available then train_compare(true) end end

-- The autograd style (loss:backward()) on the GPU, and memory returning to its level after steps.
function tests.autogradStyleTrainingOnCuda()
  if not available then return end
  torch.manualSeed(2)
  local model = cnn(true):cuda()
  local crit = nn.CrossEntropyCriterion():cuda()
  local x, y = torch.randn(8, 1, 28, 28):cuda(), torch.LongTensor(8):random(1, 10):cuda()
  local first, last
  for step = 1, 10 do
    model:zeroGradParameters()
    local loss = crit(model(x), y)
    loss:backward()
    model:updateParameters(0.05)
    local v = loss:item()
    first = first or v
    last = v
  end
  tester:assert(last < first, string.format('loss decreases on a fixed batch: %g -> %g', first, last))
  collectgarbage()
  collectgarbage()
  local before = torch.cuda.memoryStats().allocatedBytes
  for _ = 1, 3 do
    model:zeroGradParameters()
    crit(model(x), y):backward()
    model:updateParameters(0.05)
  end
  collectgarbage()
  collectgarbage()
  local after = torch.cuda.memoryStats().allocatedBytes
  tester:assert(after <= before * 1.05 + 1e6, string.format('allocated bytes back to level: %d -> %d', before, after))
end

tester:add(tests)
tester:run()
