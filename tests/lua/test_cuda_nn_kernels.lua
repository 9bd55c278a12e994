-- nn kernels on CUDA (issue 9) against the CPU, forward and gradients (through autograd, so every
-- backward kernel runs), in f32 and f64 (more dtypes where the op takes them): cuDNN
-- convolutions, pooling, batch and layer norm, class losses, index and mask ops, cat, padding,
-- resampling, tril/triu, ger, scans and sorts. Without a GPU every test returns at once (the
-- suite prints SKIPPED); TOCHA_CUDA_NN_DRYRUN=1 runs it against CPU copies (cuda_nn_check.lua).
local tester = torch.Tester()
local tests = torch.TestSuite()
local C = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/cuda_nn_check.lua')
if C.skip_all then return end
local available, tol, float_types = C.available, C.tol, C.float_types
local max_err, expect, check_op, rand, unpack = C.max_err, C.expect, C.check_op, C.rand, C.unpack
local function report() C.report(tester) end

-- ---- kernels against the CPU -------------------------------------------------------------------

function tests.convolutionsMatchCpu()
  if not available then return end
  C.start()
  local graph0 = not C.dry and torch.cuda.cudnnGraphStats()
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
  if not C.dry then
    -- The bias add (Note [Convolution bias]) in half and bfloat16, over planes of 64 elements
    -- (runs of four in f32) and of 35 (one at a time).
    --
    -- Note [Low-precision convolution bound]: in f16/bf16 (unit roundoff u = 2^-11 / 2^-8) cuDNN
    -- writes the convolution c rounded to the dtype, then the bias kernel adds b in f32 and rounds
    -- y = c + b again (PyTorch adds its bias after cuDNN the same way). With the inputs as the GPU
    -- holds them (rounded: that error is not the kernels'), each element lies within
    -- u * (|c| + |y|) of the exact value, plus u * sum |x| |w| for algorithms that round their
    -- partial products or transforms once in the dtype. A tolerance of 5e-2 relative to
    -- max(1, |y|) against the unrounded inputs was too tight for bf16: b = 4 * randn cancels
    -- c (|c| up to ~30, ulp 0.125) into small y, and correct kernels exceeded it in about one run
    -- of three (0.068 was seen on an H200; a CPU model of the rounding reaches 0.093).
    torch.manualSeed(11)
    local unit = { ['torch.CudaHalfTensor'] = { 2^-11, 'half' }, ['torch.CudaBFloat16Tensor'] = { 2^-8, 'bfloat16' } }
    for _, size in ipairs({ { 8, 8 }, { 7, 5 } }) do
      local x, w, b = torch.randn(2, 4, size[1], size[2]), torch.randn(6, 4, 3, 3), torch.randn(6):mul(4)
      local what = function(t) return string.format('conv2d bias %s %dx%d', t, size[1], size[2]) end
      expect(what('torch.CudaTensor'), torch.conv2d(x:double(), w:double(), b:double(), 1, 1),
        torch.conv2d(x:cuda(), w:cuda(), b:cuda(), 1, 1), 1e-5)
      for _, t in ipairs({ 'torch.CudaHalfTensor', 'torch.CudaBFloat16Tensor' }) do
        local u, round = unit[t][1], unit[t][2]
        local xr, wr, br = x[round](x):double(), w[round](w):double(), b[round](b):double()
        local c = torch.conv2d(xr, wr, nil, 1, 1)
        local ref = c + br:view(1, 6, 1, 1):expandAs(c)
        local terms = torch.conv2d(xr:clone():abs(), wr:clone():abs(), nil, 1, 1)
        local bound = (c:clone():abs() + ref:clone():abs() + terms):mul(u):add(1e-4)
        local y = torch.conv2d(x:type(t), w:type(t), b:type(t), 1, 1)
        local ratio = (y:double() - ref):abs():cdiv(bound):max()
        if not (ratio <= 1) then C.fail(string.format('%s: error %g times the rounding bound', what(t), ratio)) end
      end
    end
    -- Under TOCHA_CUDNN_GRAPH=1 (the *_graph variants) these shapes ran on graph-API plans, not
    -- silently on the legacy API (Note [cuDNN engines]).
    if torch.backends.cudnn.graphAPI then
      local g = torch.cuda.cudnnGraphStats()
      local plans, legacy = g.plans - graph0.plans, g.legacy - graph0.legacy
      print(string.format('cuDNN graph API: %d shapes planned, %d on the legacy API', plans, legacy))
      if plans == 0 or legacy > plans then C.fail(string.format('graph API: %d plans, %d legacy', plans, legacy)) end
    end
  end
  report()
end

-- Note [Thin-filter convolutions]: f32 convolutions of at most 32 taps (in_channels x kernel) run on
-- our direct kernels, forward with the bias and weight gradient; the rest stays with cuDNN. Shapes
-- around the limits: 9, 27, 32 and 33 taps, 1x1, 300 output channels (near the 4096 floats of
-- filters), and batches large enough for each thread of the weight gradient to fold many positions.
function tests.thinFilterConvolutionsMatchCpu()
  if not available then return end
  C.start()
  local t = 'torch.FloatTensor'
  local cases = {
    { 'thin 1 channel 3x3', { 5, 1, 28, 28 }, { 32, 1, 3, 3 }, true, 1, 1, 1 },
    { 'thin 3 channels stride 2', { 4, 3, 17, 15 }, { 16, 3, 3, 3 }, true, 2, 1, 1 },
    { 'thin 32 taps dilation 2', { 3, 2, 13, 12 }, { 5, 2, 4, 4 }, false, 1, 2, 2 },
    { 'thin 1x1', { 3, 5, 6, 7 }, { 7, 5, 1, 1 }, true, 1, 0, 1 },
    { 'thin 300 channels', { 2, 1, 9, 9 }, { 300, 1, 3, 3 }, true, 1, 1, 1 },
    { 'cudnn 33 taps', { 2, 3, 14, 9 }, { 6, 3, 11, 1 }, true, 1, 0, 1 },
    { 'thin large batch', { 96, 3, 32, 32 }, { 32, 3, 3, 3 }, true, 1, 1, 1 },
    { 'thin 16 taps, asymmetric stride and padding', { 3, 1, 20, 23 }, { 6, 1, 4, 4 }, true, { 2, 1 }, { 1, 0 }, 1 },
    -- more positions than the forward's grid has threads: its grid-stride loop takes a second pass
    { 'thin many positions', { 12, 1, 224, 224 }, { 4, 1, 3, 3 }, true, 1, 1, 1 },
  }
  for _, c in ipairs(cases) do
    local name, xs, ws, bias, stride, pad, dil = unpack(c)
    local inputs = { rand(t, unpack(xs)), rand(t, unpack(ws)) }
    if bias then inputs[3] = rand(t, ws[1]) end
    check_op('conv2d ' .. name, t, function(x, w, b) return torch.conv2d(x, w, b, stride, pad, dil) end, inputs)
  end
  -- accGradParameters accumulates (beta 1) with a scale (alpha), through nn as Torch7 calls it; the
  -- bias gradient comes from the weight gradient's kernel (Note [Fused bias gradient]), over one
  -- and several tiles of output channels.
  for _, O in ipairs({ 8, 300 }) do
    local m = nn.SpatialConvolution(1, O, 3, 3, 1, 1, 1, 1)
    local g = m:clone():cuda()
    local x, dy = torch.randn(6, 1, 12, 10), torch.randn(6, O, 12, 10)
    for _, scale in ipairs({ 1, 0.5 }) do
      m:accGradParameters(x, dy, scale)
      g:accGradParameters(x:cuda(), dy:cuda(), scale)
    end
    expect('thin accGradParameters weight, ' .. O .. ' channels', m.gradWeight, g.gradWeight, 1e-4)
    expect('thin accGradParameters bias, ' .. O .. ' channels', m.gradBias, g.gradBias, 1e-4)
  end
  report()
end

-- The fused softmax family (cuDNN's softmax on CUDA) over the last, an inner and the first dim,
-- with gradients; half precision through the same kernel.
function tests.softmaxMatchesCpu()
  if not available then return end
  C.start()
  for _, tname in ipairs(float_types) do
    local x = rand(tname, 3, 5, 4)
    for _, name in ipairs({ 'softmax', 'logSoftmax' }) do
      for d = 1, 3 do
        check_op(name .. ' dim ' .. d, tname, function(t) return torch[name](t, d) end, { x })
      end
    end
  end
  if not C.dry then
    local h = torch.randn(6, 33):mul(4)
    for _, name in ipairs({ 'softmax', 'logSoftmax' }) do
      expect(name .. ' half', torch[name](h:double(), 2), torch[name](h:type('torch.CudaHalfTensor'), 2), 1e-2)
    end
  end
  report()
end

function tests.poolingMatchesCpu()
  if not available then return end
  C.start()
  for _, tname in ipairs(float_types) do
    local x = rand(tname, 2, 3, 9, 10)
    for _, cfg in ipairs({ { 2, 2, 0, false }, { 3, 2, 1, false }, { 3, 2, 1, true }, { { 2, 3 }, { 1, 2 }, 0, true }, { 2, 2, 1, true }, { { 2, 2 }, { 3, 2 }, 1, false } }) do
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
  C.start()
  for _, tname in ipairs(float_types) do
    -- The last four have channels of 12800, 4608, 4100 and 8192 values: the kernels across blocks
    -- (Note [Batch norm across blocks]), 4100 as (N, C) rows (strided loads, a last split of 4
    -- values) and 8192 in 5-D; the first two the one-block kernels.
    for _, shape in ipairs({ { 8, 5 }, { 4, 3, 6, 7 }, { 8, 3, 40, 40 }, { 2, 70, 48, 48 }, { 4100, 5 },
                             { 2, 3, 4, 32, 32 } }) do
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
  do
    -- accGradParameters accumulates (beta 1) with a scale on the kernels across blocks, as Torch7
    -- calls it: batch norm over channels of 12800 values, layer norm over 301 rows of 300.
    local function accumulates(name, m, x)
      local g = m:clone():cuda()
      m:forward(x)
      g:forward(x:cuda())
      local dy = torch.randn(x:size())
      for _, scale in ipairs({ 1, 0.5 }) do
        m:accGradParameters(x, dy, scale)
        g:accGradParameters(x:cuda(), dy:cuda(), scale)
        expect(name .. ' gradWeight, scale ' .. scale, m.gradWeight, g.gradWeight, 1e-4)
        expect(name .. ' gradBias, scale ' .. scale, m.gradBias, g.gradBias, 1e-4)
      end
    end
    accumulates('SpatialBatchNormalization', nn.SpatialBatchNormalization(3), torch.randn(8, 3, 40, 40))
    accumulates('LayerNormalization', nn.LayerNormalization(300), torch.randn(301, 300))
  end
  report()
end

function tests.classLossesMatchCpu()
  if not available then return end
  C.start()
  -- 7 classes: a thread per row; 32 and 1000: a warp per row (Note [Wide class rows]).
  for _, tname in ipairs(float_types) do for _, classes in ipairs({ 7, 32, 1000 }) do
    local x = rand(tname, 13, classes):mul(3)
    local target = torch.LongTensor(13):random(1, classes)
    target[4] = 3
    local weights = rand(tname, classes):abs():add(0.1)
    for _, crit in ipairs({ 'nllLoss', 'crossEntropy' }) do
      for _, opts in ipairs({ {}, { weights = weights }, { sizeAverage = false }, { ignoreIndex = 3 } }) do
        local name = string.format('%s %d classes weights %s sizeAverage %s ignore %s', crit, classes,
          tostring(opts.weights ~= nil), tostring(opts.sizeAverage), tostring(opts.ignoreIndex))
        local o_g = { weights = opts.weights and opts.weights:cuda(), sizeAverage = opts.sizeAverage,
                      ignoreIndex = opts.ignoreIndex }
        local function f(v)
          local dev = v:isCuda()
          return torch[crit](v, dev and target:cuda() or target, dev and o_g or opts):view(1)
        end
        check_op(name, tname, f, { x })
      end
    end
  end end
  report()
end

function tests.indexOpsMatchCpu()
  if not available then return end
  C.start()
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
  C.start()
  for _, tname in ipairs(float_types) do
    local x = rand(tname, 6, 5, 12):mul(2):add(0.5)
    check_op('layerNorm affine', tname, function(v, w, b) return torch.layerNorm(v, 1, w, b) end,
      { x, rand(tname, 12), rand(tname, 12) })
    check_op('layerNorm 2 dims', tname, function(v) return torch.layerNorm(v, 2, nil, nil, 1e-3) end, { x })
    -- 7 x 43 = 301 rows of 300: the parameter gradients summed across blocks (Note [Layer-norm
    -- parameter gradients across blocks]), with a partial last split (4 splits of 76 rows on 114
    -- or 132 SMs, the last 73) and a partial column block.
    check_op('layerNorm 301 rows', tname, function(v, w, b) return torch.layerNorm(v, 1, w, b) end,
      { rand(tname, 7, 43, 300), rand(tname, 300), rand(tname, 300) })
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
  C.start()
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
  C.start()
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
  local h = torch.randn(50, 40)
  expect('histc', torch.histc(h, 17, -2, 2), torch.histc(h:cuda(), 17, -2, 2), 0)
  expect('histc data range', torch.histc(h:t(), 9), torch.histc(h:cuda():t(), 9), 0)
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

function tests.recurrentLayersMatchCpu()
  if not available then return end
  C.start()
  for _, tname in ipairs(float_types) do
    for _, mode in ipairs({ 'LSTM', 'GRU', 'RNN_TANH', 'RNN_RELU' }) do
      local G = mode == 'LSTM' and 4 or mode == 'GRU' and 3 or 1
      local I, H, S, B = 5, 6, 4, 3
      local x, h0, c0 = rand(tname, S, B, I), rand(tname, B, H), rand(tname, B, H)
      local wih, whh, bih, bhh = rand(tname, G * H, I), rand(tname, G * H, H), rand(tname, G * H), rand(tname, G * H)
      -- output and final states, with and without initial states and biases (gradients of all)
      check_op(mode .. ' states', tname, function(v, h, c, a, b, ba, bb)
        local y, hn, cn = torch.rnnLayer(mode, v, h, mode == 'LSTM' and c or nil, a, b, ba, bb)
        local parts = { y:view(-1), hn:view(-1) }
        if cn then parts[3] = cn:view(-1) end
        return torch.cat(parts, 1)
      end, { x, h0, c0, wih, whh, bih, bhh })
      check_op(mode .. ' zero state no bias', tname, function(v, a, b)
        return (torch.rnnLayer(mode, v, nil, nil, a, b))
      end, { x, wih, whh })
    end
  end
  for _, m in ipairs({ 'LSTM', 'GRU', 'RNN' }) do
    torch.manualSeed(4)
    local cpu = nn[m](5, 7, 2)
    local gpu = cpu:clone():cuda()
    local x = torch.randn(6, 3, 5)
    expect('nn.' .. m .. ' output', cpu:forward(x), gpu:forward(x:cuda()), 1e-4)
    local go = torch.randn(6, 3, 7)
    expect('nn.' .. m .. ' gradInput', cpu:backward(x, go), gpu:backward(x:cuda(), go:cuda()), 1e-4)
    local _, gc = cpu:parameters()
    local _, gg = gpu:parameters()
    for i, g in ipairs(gc) do expect('nn.' .. m .. ' gradParameter ' .. i, g, gg[i], 1e-3) end
  end
  report()
end

tester:add(tests)
tester:run()
