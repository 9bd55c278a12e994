-- Torch7's 2-D and 1-D convolution-family modules Tocha had lacked: SpatialConvolutionLocal,
-- SpatialConvolutionMap (and nn.tables), SpatialFullConvolutionMap, SpatialDepthWiseConvolution
-- and TemporalRowConvolution: values against direct convolutions written as plain Lua loops,
-- nn.Jacobian checks in f64 (input and every parameter, accUpdateGradParameters too), Torch7's
-- backward against autograd's, batch against single samples, :float(), printing, serialization
-- and the errors. (The volumetric ones: test_nn_t7_volumetric.lua.)
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local cc = dofile(here .. '/fixtures/nn_conv_checks.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()
local unpack = table.unpack or unpack

local function rnd(...) return torch.randn(...):double() end
local reader = cc.reader
-- The checks every module gets (fixtures/nn_conv_checks.lua): x is an f64 batch.
local function common(m, x, label, opts) return cc.common(tester, m, x, label, opts) end

-- ---- direct (loop) reference ---------------------------------------------------------------------

-- A 2-D convolution of x (N x C x H x W) into O planes whose kernel tap may depend on the output
-- position: out[n][o][i][j] = bias(o, i, j) + sum_{c,a,b} x[n][c][(i-1)*sH+a-pH][(j-1)*sW+b-pW] *
-- tap(o, c, i, j, a, b) (zero outside the input).
local function naive_conv2d(x, O, kH, kW, s, p, tap, bias)
  local X = reader(x)
  local N, C, H, W = x:size(1), x:size(2), x:size(3), x:size(4)
  local oH, oW = math.floor((H + 2 * p[1] - kH) / s[1]) + 1, math.floor((W + 2 * p[2] - kW) / s[2]) + 1
  local res = {}
  for n = 1, N do for o = 1, O do for i = 1, oH do for j = 1, oW do
    local v = bias(o, i, j)
    for c = 1, C do for a = 1, kH do for b = 1, kW do
      local h, w = (i - 1) * s[1] + a - p[1], (j - 1) * s[2] + b - p[2]
      if h >= 1 and h <= H and w >= 1 and w <= W then v = v + X(n, c, h, w) * tap(o, c, i, j, a, b) end
    end end end
    res[#res + 1] = v
  end end end end
  return torch.DoubleTensor(res):view(N, O, oH, oW)
end

-- ---- spatial convolutions with untied, mapped or depthwise weights --------------------------------

function tests.spatialConvolutionLocal()
  -- (nIn, nOut, iW, iH, kW, kH, dW, dH, padW, padH)
  for _, c in ipairs({ { 2, 3, 5, 4, 3, 2 }, { 2, 3, 5, 4, 3, 2, 2, 1, 1, 0 }, { 1, 2, 4, 4, 2, 2, 2, 2, 1 } }) do
    local m = nn.SpatialConvolutionLocal(unpack(c, 1, 10)):double()
    local x = rnd(2, c[1], c[4], c[3])
    local W = reader(m.weight)
    local ref = naive_conv2d(x, m.nOutputPlane, m.kH, m.kW, { m.dH, m.dW }, { m.padH, m.padW },
      function(o, ch, i, j, a, b) return W(i, j, o, ch, a, b) end, function(o, i, j) return m.bias[o][i][j] end)
    local y = m:forward(x)
    tester:assertTableEq(y:size():totable(), { 2, m.nOutputPlane, m.oH, m.oW })
    tester:assertTensorEq(y, ref, 1e-12, tostring(m) .. ' values')
    common(m, x, tostring(m), { single = true })
  end
  local m = nn.SpatialConvolutionLocal(2, 3, 5, 4, 3, 2, 2, 1, 1, 0)
  tester:asserteq(tostring(m), 'nn.SpatialConvolutionLocal(2 -> 3, 5x4, 3x2, 2,1, 1,0)')
  tester:asserteq(tostring(nn.SpatialConvolutionLocal(2, 3, 5, 4, 3, 2)), 'nn.SpatialConvolutionLocal(2 -> 3, 5x4, 3x2)')
  tester:assertTableEq(m.weight:size():totable(), { 3, 3, 3, 2, 2, 3 }, 'weight oH x oW x nOut x nIn x kH x kW')
  tester:assertTableEq(m.bias:size():totable(), { 3, 3, 3 }, 'bias nOut x oH x oW')
  tester:assertErrorPattern(function() nn.SpatialConvolutionLocal(2, 3, 2, 2, 3, 3) end, 'illegal configuration')
  tester:assertErrorPattern(function() nn.SpatialConvolutionLocal(2, 3, 5, 4, 3) end, 'kH must be an integer')
  tester:assertErrorPattern(function() m:forward(torch.randn(2, 2, 5, 4)) end,
    '%[nn.SpatialConvolutionLocal%(2 %-> 3.*expected an input of size 2x4x5 or N x 2x4x5, got torch.FloatTensor of size 2x2x5x4')
  tester:assertErrorPattern(function() m:double():forward(torch.randn(2, 4, 5)) end,
    'input is a torch.FloatTensor but the module holds torch.DoubleTensors')
  tester:assertErrorPattern(function() m:forward({ rnd(2, 4, 5) }) end, 'expected a tensor input')
  m:forward(rnd(2, 4, 5))
  tester:assertErrorPattern(function() m:backward(rnd(2, 4, 5), rnd(3, 3, 2)) end, 'gradOutput is')
end

function tests.connectionTables()
  local full = nn.tables.full(3, 2)
  tester:assertTensorEq(full, torch.Tensor({ { 1, 1 }, { 2, 1 }, { 3, 1 }, { 1, 2 }, { 2, 2 }, { 3, 2 } }), 0)
  tester:assertTensorEq(nn.tables.oneToOne(3), torch.Tensor({ { 1, 1 }, { 2, 2 }, { 3, 3 } }), 0)
  torch.manualSeed(3)
  local r = nn.tables.random(5, 4, 2)
  tester:assertTableEq(r:size():totable(), { 8, 2 })
  local uses = {}
  for j = 1, 4 do
    local a, b = r[2 * j - 1], r[2 * j]
    tester:asserteq(a[2], j)
    tester:asserteq(b[2], j)
    tester:assert(a[1] ~= b[1], 'distinct inputs per output')
    for _, v in ipairs({ a[1], b[1] }) do
      tester:assert(v >= 1 and v <= 5 and v == math.floor(v), 'an input plane')
      uses[v] = (uses[v] or 0) + 1
    end
  end
  -- the draws cycle through permutations: each input is used at most twice in 4 outputs x 2
  for _, n in pairs(uses) do tester:assertle(n, 2) end
  tester:assertErrorPattern(function() nn.tables.random(2, 3, 3) end, 'nto %(3%) must be at most nin %(2%)')
  tester:assertErrorPattern(function() nn.tables.full(0, 2) end, 'nin must be an integer >= 1')
end

-- The reference of a map convolution: every link's kernel from its input to its output plane.
local function map_taps(m)
  local W, ct = reader(m.weight), m.connTable
  return function(o, c, _, _, a, b)
    local v = 0
    for k = 1, ct:size(1) do
      if ct[k][1] == c and ct[k][2] == o then v = v + W(k, a, b) end
    end
    return v
  end
end

function tests.spatialConvolutionMap()
  local tables = { torch.Tensor({ { 1, 1 }, { 2, 1 }, { 2, 2 }, { 3, 2 }, { 1, 3 }, { 1, 3 } }), nn.tables.full(2, 3),
    nn.tables.oneToOne(3) }
  for _, ct in ipairs(tables) do
    local m = nn.SpatialConvolutionMap(ct, 3, 2, 2, 1):double()
    local x = rnd(2, m.nInputPlane, 5, 6)
    local ref = naive_conv2d(x, m.nOutputPlane, 2, 3, { 1, 2 }, { 0, 0 }, map_taps(m),
      function(o) return m.bias[o] end)
    tester:assertTensorEq(m:forward(x), ref, 1e-12, tostring(m) .. ' values')
    common(m, x, tostring(m), { single = true })
  end
  -- a full table is a SpatialConvolution with the kernels in (out, in) order
  local m = nn.SpatialConvolutionMap(nn.tables.full(2, 3), 3, 3):double()
  local conv = nn.SpatialConvolution(2, 3, 3, 3):double()
  conv.weight:copy(m.weight:view(3, 2, 3, 3))
  conv.bias:copy(m.bias)
  local x = rnd(2, 2, 5, 5)
  tester:assertTensorEq(m:forward(x), conv:forward(x), 1e-12, 'full table = SpatialConvolution')
  tester:asserteq(m.nInputPlane, 2)
  tester:asserteq(m.nOutputPlane, 3)
  tester:assertTableEq(m.weight:size():totable(), { 6, 3, 3 })
  -- the default initialization uses each output plane's fan-in
  local fan = nn.SpatialConvolutionMap(torch.Tensor({ { 1, 1 }, { 1, 2 }, { 2, 2 }, { 3, 2 }, { 4, 2 } }), 5, 5)
  tester:assertle(fan.weight[1]:abs():max(), 1 / math.sqrt(25))
  tester:assertle(fan.weight[2]:abs():max(), 1 / math.sqrt(100))
  local w0 = m.weight:clone()
  m:decayParameters(0.1)
  tester:assertTensorEq(m.weight, w0:mul(0.9), 1e-12, 'decayParameters')
  tester:asserteq(tostring(nn.SpatialConvolutionMap(nn.tables.full(2, 3), 3, 2, 2, 1)),
    'nn.SpatialConvolutionMap(2 -> 3, 3x2, 6 links, 2,1)')
  tester:assertErrorPattern(function() nn.SpatialConvolutionMap(torch.Tensor(3, 3), 2, 2) end,
    'connTable must be a K x 2 tensor')
  tester:assertErrorPattern(function() nn.SpatialConvolutionMap({ { 1, 1 } }, 2, 2) end, 'connTable must be a K x 2 tensor')
  tester:assertErrorPattern(function() nn.SpatialConvolutionMap(torch.Tensor({ { 0, 1 } }), 2, 2) end, 'plane numbers')
  tester:assertErrorPattern(function() nn.SpatialConvolutionMap(torch.Tensor({ { 1.5, 1 } }), 2, 2) end, 'plane numbers')
  tester:assertErrorPattern(function() nn.SpatialConvolutionMap(nn.tables.full(2, 2), 0, 2) end, 'kW must be an integer')
  tester:assertErrorPattern(function() m:forward(rnd(2, 3, 5, 5)) end,
    '%[nn.SpatialConvolutionMap%(2 %-> 3, 3x3, 6 links%)%] expected a 2 x H x W')
  tester:assertErrorPattern(function() m:forward(rnd(2, 2, 2, 5)) end, 'H >= 3')
  tester:assertErrorPattern(function() m:forward(torch.randn(2, 5, 5)) end, 'input is a torch.FloatTensor')
  -- an error inside an op names the module too
  local bad = nn.SpatialConvolutionMap(nn.tables.full(2, 2), 2, 2):double()
  bad.connTable[1][1] = 7
  tester:assertErrorPattern(function() bad:forward(rnd(2, 4, 4)) end, '^%[nn.SpatialConvolutionMap%(2 %-> 2, 2x2, 4 links%)%] ')
end

function tests.spatialFullConvolutionMap()
  local tables = { torch.Tensor({ { 1, 1 }, { 2, 1 }, { 2, 2 }, { 3, 2 }, { 1, 3 } }), nn.tables.oneToOne(2) }
  for _, ct in ipairs(tables) do
    local m = nn.SpatialFullConvolutionMap(ct, 3, 2, 2, 1):double()
    local x = rnd(2, m.nInputPlane, 3, 4)
    local X, W = reader(x), reader(m.weight)
    local oH, oW = (3 - 1) * 1 + 2, (4 - 1) * 2 + 3
    local ref = torch.zeros(2, m.nOutputPlane, oH, oW):double()
    for o = 1, m.nOutputPlane do ref:select(2, o):fill(m.bias[o]) end
    local R = ref:view(-1):totable()
    for n = 1, 2 do for k = 1, ct:size(1) do
      local c, o = ct[k][1], ct[k][2]
      for i = 1, 3 do for j = 1, 4 do for a = 1, 2 do for b = 1, 3 do
        local h, w = (i - 1) * 1 + a, (j - 1) * 2 + b
        local at = (((n - 1) * m.nOutputPlane + o - 1) * oH + h - 1) * oW + w
        R[at] = R[at] + X(n, c, i, j) * W(k, a, b)
      end end end end
    end end
    tester:assertTensorEq(m:forward(x), torch.DoubleTensor(R):viewAs(ref), 1e-12, tostring(m) .. ' values')
    common(m, x, tostring(m), { single = true })
  end
  local m = nn.SpatialFullConvolutionMap(nn.tables.full(2, 3), 3, 2, 2, 1)
  tester:asserteq(tostring(m), 'nn.SpatialFullConvolutionMap(2 -> 3, 3x2, 6 links, 2,1)')
  tester:assertTableEq(m:forward(torch.randn(2, 4, 5)):size():totable(), { 3, 5, 11 })
  tester:assertErrorPattern(function() nn.SpatialFullConvolutionMap(torch.Tensor({ 1, 2 }), 2, 2) end,
    '%[nn.SpatialFullConvolutionMap%] connTable must be a K x 2 tensor')
  tester:assertErrorPattern(function() m:forward(torch.randn(3, 4, 5)) end, 'expected a 2 x H x W')
end

function tests.spatialDepthWiseConvolution()
  -- (nInputPlane, depthwiseMultiplier, kW, kH, dW, dH, padW, padH)
  for _, c in ipairs({ { 3, 2, 3, 2 }, { 3, 2, 3, 2, 2, 1, 1, 0 }, { 2, 1, 2, 2, 1, 2, 1, 1 } }) do
    local m = nn.SpatialDepthWiseConvolution(unpack(c, 1, 8)):double()
    local C, mult, kk = m.nInputPlane, m.depthwiseMultiplier, m.kH * m.kW
    local x = rnd(2, C, 4, 5)
    local W, B = reader(m.weight), reader(m.bias)
    local ref = naive_conv2d(x, C * mult, m.kH, m.kW, { m.dH, m.dW }, { m.padH, m.padW },
      function(o, ch, _, _, a, b)
        local i, k = math.floor((o - 1) / mult) + 1, (o - 1) % mult + 1
        return ch == i and W(k, (i - 1) * kk + (a - 1) * m.kW + b) or 0
      end,
      function(o) return B((o - 1) % mult + 1, math.floor((o - 1) / mult) + 1) end)
    tester:assertTensorEq(m:forward(x), ref, 1e-12, tostring(m) .. ' values')
    common(m, x, tostring(m), { single = true })
  end
  local m = nn.SpatialDepthWiseConvolution(3, 2, 3, 2, 2, 1, 1, 0)
  tester:asserteq(m.nOutputPlane, 6)
  tester:assertTableEq(m.weight:size():totable(), { 2, 18 }, 'weight depthwiseMultiplier x nInputPlane*kH*kW')
  tester:assertTableEq(m.bias:size():totable(), { 2, 3 }, 'bias depthwiseMultiplier x nInputPlane')
  tester:asserteq(tostring(m), 'nn.SpatialDepthWiseConvolution(3 -> 2, 3x2, 2,1, 1,0)')
  local nb = nn.SpatialDepthWiseConvolution(2, 2, 2, 2):noBias():double()
  tester:asserteq(tostring(nb), 'nn.SpatialDepthWiseConvolution(2 -> 2, 2x2) without bias')
  local x = rnd(2, 2, 3, 3)
  local W = reader(nb.weight)
  tester:assertTensorEq(nb:forward(x), naive_conv2d(x, 4, 2, 2, { 1, 1 }, { 0, 0 }, function(o, ch, _, _, a, b)
    local i, k = math.floor((o - 1) / 2) + 1, (o - 1) % 2 + 1
    return ch == i and W(k, (i - 1) * 4 + (a - 1) * 2 + b) or 0
  end, function() return 0 end), 1e-12, 'noBias values')
  common(nb, x, 'noBias')
  -- Torch7's first version kept the multiplier in nOutputPlane
  local old = nn.SpatialDepthWiseConvolution(3, 2, 2, 2):double()
  local want = old:forward(rnd(1, 3, 3, 3))
  old.depthwiseMultiplier, old.nOutputPlane = nil, 2
  old:afterLoad()
  tester:asserteq(old.depthwiseMultiplier, 2)
  tester:asserteq(old.nOutputPlane, 6)
  tester:assertErrorPattern(function() nn.SpatialDepthWiseConvolution(3, 0, 2, 2) end,
    'depthwiseMultiplier must be an integer >= 1')
  tester:assertErrorPattern(function() m:forward(torch.randn(2, 4, 5, 5)) end,
    '%[nn.SpatialDepthWiseConvolution%(3 %-> 2, 3x2, 2,1, 1,0%)%] expected a 3 x H x W')
  tester:assertErrorPattern(function() m:forward(torch.randn(3, 1, 1)) end, 'at least as large as the 3x2 kernel')
end

function tests.temporalRowConvolution()
  for _, ff in ipairs({ false, true }) do
    for _, c in ipairs({ { 3, 2 }, { 3, 2, 2 }, { 4, 3, 3 } }) do
      local m = nn.TemporalRowConvolution(c[1], c[2], c[3], ff):double()
      local F, T = m.inputFrameSize, 8
      local x = ff and rnd(2, F, T) or rnd(2, T, F)
      local X, W = reader(x), reader(m.weight)
      local oT = math.floor((T - m.kW) / m.dW) + 1
      local ref = {}
      for n = 1, 2 do for a = 1, ff and F or oT do for b = 1, ff and oT or F do
        local i, t = ff and a or b, ff and b or a
        local v = m.bias[i]
        for k = 1, m.kW do
          local tt = (t - 1) * m.dW + k
          v = v + W(i, 1, k) * (ff and X(n, i, tt) or X(n, tt, i))
        end
        ref[#ref + 1] = v
      end end end
      local y = m:forward(x)
      tester:assertTableEq(y:size():totable(), ff and { 2, F, oT } or { 2, oT, F })
      tester:assertTensorEq(y, torch.DoubleTensor(ref):viewAs(y), 1e-12, tostring(m) .. ' values')
      common(m, x, tostring(m), { single = true })
    end
  end
  local nb = nn.TemporalRowConvolution(3, 2):noBias():double()
  common(nb, rnd(2, 5, 3), 'noBias')
  tester:asserteq(tostring(nb), 'nn.TemporalRowConvolution(3, 2) without bias')
  tester:asserteq(tostring(nn.TemporalRowConvolution(3, 2, 2)), 'nn.TemporalRowConvolution(3, 2, 2)')
  tester:assertTableEq(nn.TemporalRowConvolution(3, 2).weight:size():totable(), { 3, 1, 2 })
  local m = nn.TemporalRowConvolution(3, 2, 1, true)
  tester:assertErrorPattern(function() m:forward(torch.randn(5, 3)) end,
    '%[nn.TemporalRowConvolution%(3, 2%)%] expected a 3 x nInputFrame input')
  tester:assertErrorPattern(function() nn.TemporalRowConvolution(3, 4):forward(torch.randn(3, 3)) end,
    'expected a nInputFrame x 3 input %(or a batch of them%) of at least 4 frames')
  tester:assertErrorPattern(function() nn.TemporalRowConvolution(0, 2) end, 'inputFrameSize must be an integer >= 1')
end

tester:add(tests)
tester:run()
