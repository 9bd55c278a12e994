-- Torch7's max-pooling modules that Tocha added later: Spatial/VolumetricDilatedMaxPooling,
-- VolumetricMaxUnpooling (and SpatialMaxUnpooling of dilated indices), TemporalDynamicKMaxPooling
-- and SpatialFractionalMaxPooling. Values and indices against plain Lua loops, equality with the
-- undilated C poolings, nn.Jacobian checks in f64, Torch7-style backward against autograd, batch vs
-- one sample, float(), printing, errors and save/load. (Sub-sampling, Lp pooling and the local
-- normalizations: test_nn_t7_normalization.lua.)
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local checks = dofile(here .. '/fixtures/nn_checks.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()
torch.setdefaulttensortype('torch.DoubleTensor')
torch.manualSeed(11)

local J = nn.Jacobian
local unpack = table.unpack or unpack
local precision = 1e-6

local function roundTrip(m, input, label) return checks.roundTrip(tester, m, input, label) end

-- ---- dilated max pooling ----------------------------------------------------------------------

-- Torch7's dilated max pooling of the (T x) H x W volumes of x by loops (a 2D input is a volume
-- with T = 1 and kT = 1): the maximum over the taps inside the input, the first one on ties, the
-- last NaN over any number; a window of -inf names its first tap inside the input. Returns the
-- values and the 1-based flat indices.
local function naivePool(x, k, d, p, l, ceil, nd)
  local n = x:dim()
  local sizes = nd == 3 and { x:size(n - 2), x:size(n - 1), x:size(n) } or { 1, x:size(n - 1), x:size(n) }
  if nd == 2 then k, d, p, l = { 1, k[1], k[2] }, { 1, d[1], d[2] }, { 0, p[1], p[2] }, { 1, l[1], l[2] } end
  local o = {}
  for i = 1, 3 do
    local span = sizes[i] + 2 * p[i] - (l[i] * (k[i] - 1) + 1)
    o[i] = (ceil and math.ceil(span / d[i]) or math.floor(span / d[i])) + 1
    if ceil and (o[i] - 1) * d[i] >= sizes[i] + p[i] then o[i] = o[i] - 1 end
  end
  local T, H, W = sizes[1], sizes[2], sizes[3]
  local planes = x:contiguous():view(-1, T, H, W)
  local P = planes:size(1)
  local y, idx = torch.DoubleTensor(P, o[1], o[2], o[3]), torch.LongTensor(P, o[1], o[2], o[3])
  for q = 1, P do
    for a = 0, o[1] - 1 do for b = 0, o[2] - 1 do for c = 0, o[3] - 1 do
      local best, at = -math.huge, nil
      for u = 0, k[1] - 1 do for v = 0, k[2] - 1 do for w = 0, k[3] - 1 do
        local t, h, ww = a * d[1] - p[1] + u * l[1], b * d[2] - p[2] + v * l[2], c * d[3] - p[3] + w * l[3]
        if t >= 0 and t < T and h >= 0 and h < H and ww >= 0 and ww < W then
          local val = planes[q][t + 1][h + 1][ww + 1]
          local flat = (t * H + h) * W + ww + 1
          at = at or flat
          if val > best or val ~= val then best, at = val, flat end
        end
      end end end
      y[q][a + 1][b + 1][c + 1], idx[q][a + 1][b + 1][c + 1] = best, at
    end end end
  end
  local size = x:size():totable()
  if nd == 3 then size[n - 2] = o[1] end
  size[n - 1], size[n] = o[2], o[3]
  return y:view(torch.LongStorage(size)), idx:view(torch.LongStorage(size))
end

-- The gradient of a max pooling with these indices: gradOutput summed at the positions, by loops.
local function naiveScatter(input, idx, go, cells)
  local gi = torch.zeros(input:nElement())
  local P = idx:nElement() / (idx:nElement() > 0 and idx[1]:nElement() or 1)
  local iv, gv = idx:contiguous():view(-1), go:contiguous():view(-1)
  local perPlaneOut = iv:nElement() / (input:nElement() / cells)
  for i = 1, iv:nElement() do
    local plane = math.floor((i - 1) / perPlaneOut)
    gi[plane * cells + iv[i]] = gi[plane * cells + iv[i]] + gv[i]
  end
  return gi:viewAs(input), P
end

function tests.spatialDilatedMaxPoolingValues()
  local configs = {  -- kW, kH, dW, dH, padW, padH, dilationW, dilationH
    { 3, 3, 1, 1, 0, 0, 2, 2 }, { 3, 2, 2, 1, 1, 1, 2, 3 }, { 2, 2, 2, 2, 1, 0, 3, 1 }, { 4, 3, 3, 2, 2, 1, 1, 2 },
    { 1, 1, 2, 3, 0, 0, 4, 4 },
  }
  for _, c in ipairs(configs) do
    for _, ceil in ipairs({ false, true }) do
      local m = nn.SpatialDilatedMaxPooling(unpack(c))
      if ceil then m:ceil() end
      for _, x in ipairs({ torch.randn(2, 3, 9, 11), torch.random(torch.LongTensor(3, 8, 10), 0, 2):double() }) do
        local label = tostring(m) .. (ceil and ' ceil ' or ' ') .. x:dim() .. 'D'
        local want, widx = naivePool(x, { c[2], c[1] }, { c[4], c[3] }, { c[6], c[5] }, { c[8], c[7] }, ceil, 2)
        local y = m:forward(x)
        tester:assertTensorEq(y, want, 0, label .. ' values')
        tester:assertTableEq(m.indices:size():totable(), want:size():totable(), label .. ' indices size')
        tester:assert(m.indices:eq(widx):all(), label .. ' indices (first maximum on ties)')
        tester:asserteq(torch.type(m.indices), 'torch.LongTensor')
        local go = torch.randn(y:size())
        tester:assertTensorEq(m:backward(x, go), naiveScatter(x, widx, go, x:size(x:dim()) * x:size(x:dim() - 1)), 1e-12,
          label .. ' gradInput')
      end
    end
  end
  -- NaN wins (the last one), a window of -inf names its first input cell
  local x = torch.randn(1, 6, 7)
  x[1][2][3], x[1][4][5] = 0 / 0, 0 / 0
  x[1][6]:fill(-math.huge)
  local m = nn.SpatialDilatedMaxPooling(3, 3, 1, 1, 1, 1, 2, 2)
  local want, widx = naivePool(x, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 2, 2 }, false, 2)
  local y = m:forward(x)
  tester:assert(y:ne(y):eq(want:ne(want)):all(), 'NaN positions')
  tester:assert(m.indices:eq(widx):all(), 'indices with NaN and -inf')
  local z = torch.Tensor(1, 5, 5):fill(-math.huge)
  m:forward(z)
  tester:assert(m.indices:eq(select(2, naivePool(z, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 2, 2 }, false, 2))):all(),
    'all -inf: the first tap inside the input')
end

-- With dilation 1 the dilated modules are the C poolings: values, indices and gradients, ties
-- included; the modules then call the C poolings, so the composed path (_pool) is checked directly.
local function composed(m, x, go, nd)
  local SD = nn.SpatialDilatedMaxPooling
  local c = { output = torch.Tensor(), gradInput = torch.Tensor(), indices = torch.LongTensor() }
  setmetatable(c, { __tostring = function() return 'composed' end })
  if nd == 2 then SD._pool(c, x, { m.kH, m.kW }, { m.dH, m.dW }, { m.padH, m.padW }, { 1, 1 }, m.ceil_mode)
  else SD._pool(c, x, { m.kT, m.kH, m.kW }, { m.dT, m.dH, m.dW }, { m.padT, m.padH, m.padW }, { 1, 1, 1 }, m.ceil_mode) end
  return c.output, c.indices, SD._backward(c, x, go, nd)
end

function tests.dilationOneIsMaxPooling()
  local cases = {
    { 2, nn.SpatialMaxPooling, nn.SpatialDilatedMaxPooling,
      { torch.randn(2, 3, 9, 10), torch.random(torch.LongTensor(2, 7, 9), 0, 1):double() },
      { { 2, 2 }, { 3, 3, 2, 2, 1, 1 }, { 3, 2, 1, 2, 1, 0 }, { 4, 3, 3, 2, 2, 1 } } },
    { 3, nn.VolumetricMaxPooling, nn.VolumetricDilatedMaxPooling,
      { torch.randn(2, 2, 6, 7, 5), torch.random(torch.LongTensor(2, 5, 6, 7), 0, 1):double() },
      { { 2, 2, 2 }, { 3, 3, 3, 2, 2, 2, 1, 1, 1 }, { 3, 2, 1, 2, 1, 1, 1, 1, 0 } } },
  }
  for _, case in ipairs(cases) do
    local nd, Plain, Dilated, inputs, configs = unpack(case)
    for _, c in ipairs(configs) do
      for _, ceil in ipairs({ false, true }) do
        local a, b = Plain(unpack(c)), Dilated(unpack(c))
        if ceil then a:ceil() b:ceil() end
        for _, x in ipairs(inputs) do
          tester:assertTensorEq(b:forward(x), a:forward(x), 0, tostring(b) .. ' values')
          tester:assert(a.indices:eq(b.indices):all(), tostring(b) .. ' indices')
          local go = torch.randn(a.output:size())
          tester:assertTensorEq(b:backward(x, go), a:backward(x, go), 0, tostring(b) .. ' gradInput')
          local y, idx, gi = composed(a, x, go, nd)
          tester:assertTensorEq(y, a.output, 0, tostring(b) .. ' composed values')
          tester:assert(idx:eq(a.indices):all(), tostring(b) .. ' composed indices')
          tester:assertTensorEq(gi, a.gradInput, 0, tostring(b) .. ' composed gradInput')
        end
      end
    end
  end
end

function tests.volumetricDilatedMaxPoolingValues()
  local configs = {  -- kT, kW, kH, dT, dW, dH, padT, padW, padH, dilationT, dilationW, dilationH
    { 2, 2, 2, 1, 1, 1, 0, 0, 0, 2, 2, 2 }, { 3, 2, 2, 2, 1, 2, 1, 1, 0, 1, 2, 3 }, { 2, 3, 1, 1, 2, 1, 1, 1, 0, 2, 1, 1 },
  }
  for _, c in ipairs(configs) do
    for _, ceil in ipairs({ false, true }) do
      local m = nn.VolumetricDilatedMaxPooling(unpack(c))
      if ceil then m:ceil() end
      for _, x in ipairs({ torch.randn(2, 2, 6, 7, 6), torch.random(torch.LongTensor(2, 5, 6, 7), 0, 2):double() }) do
        local label = tostring(m) .. (ceil and ' ceil ' or ' ') .. x:dim() .. 'D'
        local want, widx = naivePool(x, { c[1], c[3], c[2] }, { c[4], c[6], c[5] }, { c[7], c[9], c[8] },
          { c[10], c[12], c[11] }, ceil, 3)
        local y = m:forward(x)
        tester:assertTensorEq(y, want, 0, label .. ' values')
        tester:assert(m.indices:eq(widx):all(), label .. ' indices')
        local n = x:dim()
        local go = torch.randn(y:size())
        tester:assertTensorEq(m:backward(x, go), naiveScatter(x, widx, go, x:size(n) * x:size(n - 1) * x:size(n - 2)),
          1e-12, label .. ' gradInput')
      end
    end
  end
end

function tests.dilatedMaxPoolingModule()
  local m = nn.SpatialDilatedMaxPooling(3, 2, 2, 1, 1, 1, 2, 2)
  tester:asserteq(m.dilationW, 2)
  tester:asserteq(m.dilationH, 2)
  tester:assert(torch.isTypeOf(m, 'nn.SpatialMaxPooling'), 'a kind of nn.SpatialMaxPooling (as in Torch7)')
  local x = torch.randn(2, 3, 8, 9)
  tester:assertlt(J.testJacobian(m, x), precision, 'spatial jacobian')
  -- one sample is the batch's first
  local y = m:forward(x):clone()
  tester:assertTensorEq(m:forward(x[1]), y[1], 0, 'single sample')
  checks.autograd(tester, m, x)
  checks.io(tester, m, x)
  checks.clearState(tester, m, x)
  checks.types(tester, m, x)
  local v = nn.VolumetricDilatedMaxPooling(2, 2, 2, 1, 2, 1, 1, 1, 0, 2, 1, 2)
  tester:assert(torch.isTypeOf(v, 'nn.VolumetricMaxPooling'))
  local xv = torch.randn(2, 2, 6, 7, 6)
  tester:assertlt(J.testJacobian(v, xv), precision, 'volumetric jacobian')
  tester:assertTensorEq(v:forward(xv[2]):clone(), v:forward(xv)[2], 0, 'volumetric single sample')
  checks.autograd(tester, v, xv)
  checks.io(tester, v, xv)
  checks.types(tester, v, xv)
  tester:asserteq(torch.type(nn.SpatialDilatedMaxPooling(2, 2):float():forward(torch.randn(1, 4, 4):float())),
    'torch.FloatTensor')
  -- printing, as Torch7
  tester:asserteq(tostring(m), 'nn.SpatialDilatedMaxPooling(3x2, 2,1, 1,1, 2,2)')
  tester:asserteq(tostring(nn.SpatialDilatedMaxPooling(2, 2)), 'nn.SpatialDilatedMaxPooling(2x2, 2,2, 1,1)')
  tester:asserteq(tostring(v), 'nn.VolumetricDilatedMaxPooling(2x2x2, 1,2,1, 1,1,0, 2,1,2)')
  tester:asserteq(tostring(nn.VolumetricDilatedMaxPooling(2, 3, 3)), 'nn.VolumetricDilatedMaxPooling(2x3x3, 2,3,3, 1,1,1)')
  -- errors
  tester:assertErrorPattern(function() nn.SpatialDilatedMaxPooling(2, 2, 1, 1, 0, 0, 0) end,
    '%[nn.SpatialDilatedMaxPooling%] dilationW must be an integer >= 1, got 0')
  tester:assertErrorPattern(function() nn.SpatialDilatedMaxPooling(2, 2, 1, 1, 2, 0) end, 'padding 2,0 must be at most half')
  tester:assertErrorPattern(function() nn.SpatialDilatedMaxPooling(0, 2) end, 'kW must be an integer >= 1')
  tester:assertErrorPattern(function() nn.VolumetricDilatedMaxPooling(2, 2, 2, 1, 1, 1, 0, 0, 0, 1, 1, 1.5) end,
    'dilationH must be an integer >= 1, got 1.5')
  tester:assertErrorPattern(function() nn.VolumetricDilatedMaxPooling(2, 2, 'x') end, 'kH must be an integer')
  tester:assertErrorPattern(function() m:forward(torch.randn(2, 3)) end,
    '%[nn.SpatialDilatedMaxPooling%(3x2, 2,1, 1,1, 2,2%)%] expected a 3D or 4D')
  tester:assertErrorPattern(function() nn.SpatialDilatedMaxPooling(3, 3, 1, 1, 0, 0, 2, 2):forward(torch.randn(1, 4, 4)) end,
    'input of size 1x4x4 is too small: its dim 3 %(4, padding 0%) is shorter than the dilated kernel 5')
  tester:assertErrorPattern(function() m:forward(torch.LongTensor(1, 5, 5)) end, 'expected a floating%-point tensor')
  tester:assertErrorPattern(function() m:forward({ x }) end, 'expected a tensor input')
  tester:assertErrorPattern(function() m:forward(x) m:backward(x, torch.randn(2, 3, 2, 2)) end,
    'gradOutput is torch.DoubleTensor of size 2x3x2x2 but the output is of size 2x3x8x4')
  -- dilation 3 with a 2-tap window padded by 1 on a 2-cell row: the first window is all padding
  tester:assertErrorPattern(function() nn.SpatialDilatedMaxPooling(2, 2, 1, 1, 1, 1, 3, 3):forward(torch.randn(1, 2, 2)) end,
    'window 1 along dim 3 of an input of size 1x2x2 holds only padding')
  tester:assertErrorPattern(function() v:forward(torch.randn(2, 3, 4)) end, 'expected a 4D or 5D')
end

-- The unpoolings take the dilated poolings' indices.
function tests.unpoolingDilated()
  local p = nn.SpatialDilatedMaxPooling(2, 2, 2, 2, 1, 1, 2, 2)
  local u = nn.SpatialMaxUnpooling(p)
  local x = torch.randn(2, 3, 7, 8)
  local y = p:forward(x)
  local z = u:forward(y)
  tester:assertTableEq(z:size():totable(), x:size():totable(), 'spatial unpooling size')
  local planes = z:view(6, -1)
  local iv = p.indices:view(6, -1)
  local want = torch.zeros(6, 7 * 8)
  local yv = y:view(6, -1)
  for q = 1, 6 do for i = 1, iv:size(2) do want[q][iv[q][i]] = yv[q][i] end end
  tester:assertTensorEq(planes, want, 0, 'spatial unpooling puts the maxima back, zeros elsewhere')
end

function tests.volumetricMaxUnpooling()
  for case, p in ipairs({ nn.VolumetricMaxPooling(2, 2, 2), nn.VolumetricMaxPooling(3, 2, 2, 2, 2, 1, 1, 1, 0),
    nn.VolumetricDilatedMaxPooling(2, 2, 2, 2, 2, 2, 0, 1, 0, 2, 1, 2) }) do
    local u = nn.VolumetricMaxUnpooling(p)
    local x = torch.randn(2, 2, 6, 7, 6)
    local y = p:forward(x)
    local z = u:forward(y):clone()
    tester:assertTableEq(z:size():totable(), x:size():totable(), tostring(u) .. ' size')
    -- by loops: z holds y's values at the indices, zeros elsewhere
    local want = torch.zeros(4, 6 * 7 * 6)
    local yv, iv = y:contiguous():view(4, -1), p.indices:view(4, -1)
    for q = 1, 4 do for i = 1, iv:size(2) do want[q][iv[q][i]] = yv[q][i] end end
    tester:assertTensorEq(z:view(4, -1), want, 0, tostring(u) .. ' values')
    -- gradient: gathered at the indices
    local go = torch.randn(z:size())
    local gw = torch.Tensor(4, iv:size(2))
    local gov = go:view(4, -1)
    for q = 1, 4 do for i = 1, iv:size(2) do gw[q][i] = gov[q][iv[q][i]] end end
    tester:assertTensorEq(u:backward(y, go), gw:viewAs(y), 0, tostring(u) .. ' gradInput')
    -- (overlapping windows may name a position twice: one value lands there, so no Jacobian)
    if case == 1 then tester:assertlt(J.testJacobian(u, y:clone()), precision, tostring(u) .. ' jacobian') end
    -- one sample (its own forward of the pooling)
    p:forward(x[1])
    tester:assertTensorEq(u:forward(p.output), z[1], 0, 'single sample')
  end
end

function tests.volumetricMaxUnpoolingNetwork()
  -- a pooling and its unpooling in a network, saved and loaded
  local p = nn.VolumetricMaxPooling(2, 2, 2)
  local net = nn.Sequential():add(p):add(nn.VolumetricMaxUnpooling(p))
  local x = torch.randn(1, 2, 4, 4, 6)
  checks.autograd(tester, net, x, 'pool + unpool')
  local net2 = roundTrip(net, x, 'pool + unpool')
  tester:assert(net2.modules[2].pooling == net2.modules[1], 'the loaded unpooling holds the loaded pooling')
  net2:float()
  tester:asserteq(torch.type(net2:forward(x:float())), 'torch.FloatTensor')
  -- printing and errors
  local u = nn.VolumetricMaxUnpooling(nn.VolumetricMaxPooling(2, 2, 2))
  tester:asserteq(tostring(u), 'nn.VolumetricMaxUnpooling associated to nn.VolumetricMaxPooling(2x2x2, 2,2,2)')
  tester:assertErrorPattern(function() nn.VolumetricMaxUnpooling(nn.Linear(2, 3)) end, 'expected a 3D max pooling module')
  tester:assertErrorPattern(function() nn.VolumetricMaxUnpooling() end, 'expected a 3D max pooling module')
  tester:assertErrorPattern(function() u:forward(torch.randn(1, 2, 2, 2, 2)) end, 'has not recorded the size')
  u.pooling:forward(torch.randn(1, 2, 4, 4, 4))
  tester:assertErrorPattern(function() u:forward(torch.randn(1, 2, 3, 2, 2)) end,
    "last input was 4x4x4, which pools to 2x2x2, not to the input's 3x2x2")
  tester:assertErrorPattern(function() u:forward(torch.randn(2, 2)) end, 'expected a 4D or 5D')
  tester:assertErrorPattern(function() u:forward(torch.randn(1, 2, 2, 2, 2)) u:backward(torch.randn(1, 2, 2, 2, 2),
    torch.randn(3)) end, 'gradOutput of size 3 does not match the output of size 1x2x4x4x4')
end

-- ---- dynamic k-max and fractional max pooling --------------------------------------------------

function tests.temporalDynamicKMaxPooling()
  local m = nn.TemporalDynamicKMaxPooling(2, 0.5)
  tester:asserteq(m.minK, 2)
  tester:asserteq(m.factor, 0.5)
  local x = torch.randn(3, 7, 4)
  local y = m:forward(x)
  tester:assertTableEq(y:size():totable(), { 3, 4, 4 }, 'k = ceil(0.5 * 7)')
  -- by loops: per feature, the 4 largest frames in frame order
  for n = 1, 3 do for f = 1, 4 do
    local frames = {}
    for t = 1, 7 do frames[t] = t end
    table.sort(frames, function(a, b) return x[n][a][f] > x[n][b][f] end)
    local top = { unpack(frames, 1, 4) }
    table.sort(top)
    for i = 1, 4 do
      tester:asserteq(m.indices[n][i][f], top[i], 'frame')
      tester:asserteq(y[n][i][f], x[n][top[i]][f], 'value')
    end
  end end
  tester:assertTensorEq(m:forward(x[2]):clone(), y[2], 0, 'single sample')
  tester:assertTableEq(nn.TemporalDynamicKMaxPooling(3):forward(torch.randn(7, 2)):size():totable(), { 3, 2 }, 'minK')
  tester:assertlt(J.testJacobian(m, x), precision, 'jacobian')
  checks.autograd(tester, m, x)
  checks.io(tester, m, x)
  checks.types(tester, m, x)
  tester:asserteq(tostring(m), 'nn.TemporalDynamicKMaxPooling')
  tester:assertErrorPattern(function() m:forward(torch.randn(1, 4)) end,
    '%[nn.TemporalDynamicKMaxPooling%(2, 0.5%)%] input of size 1x4 has 1 frames, fewer than k = 2')
  tester:assertErrorPattern(function() m:forward(torch.randn(4)) end, 'expected a 2D %(nFrame x F%) or 3D')
  tester:assertErrorPattern(function() nn.TemporalDynamicKMaxPooling(0) end, 'minK must be an integer >= 1, got 0')
  tester:assertErrorPattern(function() nn.TemporalDynamicKMaxPooling(2, 2) end, 'factor must be a number in %[0, 1%]')
end

-- Torch7's fractional max pooling by loops, from the module's random samples.
local function naiveFractional(x, samples, pW, pH, oW, oH)
  local n = x:dim()
  local H, W = x:size(n - 1), x:size(n)
  local planes = x:contiguous():view(-1, H, W)
  local u = samples:contiguous():view(-1, 2)
  local function seq(s, inSize, outSize, pool)
    local r = {}
    local alpha = (inSize - pool) / (outSize - 1)
    for i = 0, outSize - 2 do r[i + 1] = math.floor((i + s) * alpha) - math.floor(s * alpha) end
    r[outSize] = inSize - pool
    return r
  end
  local y, idx = torch.Tensor(planes:size(1), oH, oW), torch.LongTensor(planes:size(1), oH, oW)
  for q = 1, planes:size(1) do
    local sw, sh = seq(u[q][1], W, oW, pW), seq(u[q][2], H, oH, pH)
    for h = 1, oH do for w = 1, oW do
      local best, at = -math.huge, nil
      for a = 0, pH - 1 do for b = 0, pW - 1 do
        local v = planes[q][sh[h] + a + 1][sw[w] + b + 1]
        if not at or v > best then best, at = v, (sh[h] + a) * W + sw[w] + b + 1 end
      end end
      y[q][h][w], idx[q][h][w] = best, at
    end end
  end
  local size = x:size()
  size[n - 1], size[n] = oH, oW
  return y:view(size), idx:view(size)
end

-- Pooling regions from given samples (fixed before the first forward, so replays see them too).
function tests.spatialFractionalMaxPooling()
  local m = nn.SpatialFractionalMaxPooling(2, 3, 4, 3):fixPoolingRegions()
  tester:asserteq(m.outW, 4)
  tester:asserteq(m.outH, 3)
  m.randomSamples = torch.rand(2, 3, 2)
  local x = torch.randn(2, 3, 9, 8)
  local y = m:forward(x):clone()
  tester:assertTableEq(y:size():totable(), { 2, 3, 3, 4 })
  local want, widx = naiveFractional(x, m.randomSamples, 2, 3, 4, 3)
  tester:assertTensorEq(y, want, 0, 'values')
  tester:assert(m.indices:eq(widx):all(), 'indices')
  local go = torch.randn(y:size())
  tester:assertTensorEq(m:backward(x, go), naiveScatter(x, widx, go, 72), 1e-12, 'gradInput')
  tester:assertlt(J.testJacobian(m, x), precision, 'jacobian')
  checks.autograd(tester, m, x)
  checks.io(tester, m, x)
  checks.types(tester, m, x)
  -- ratios, ties
  local r = nn.SpatialFractionalMaxPooling(2, 2, 0.5, 0.7):fixPoolingRegions()
  r.randomSamples = torch.rand(1, 3, 2)
  local xi = torch.random(torch.LongTensor(3, 10, 9), 0, 2):double()
  local yr = r:forward(xi)
  tester:assertTableEq(yr:size():totable(), { 3, 7, 4 }, 'floor(10 * 0.7) x floor(9 * 0.5)')
  local wr, wi = naiveFractional(xi, r.randomSamples, 2, 2, 4, 7)
  tester:assertTensorEq(yr, wr, 0, 'ratio values')
  tester:assert(r.indices:eq(wi):all(), 'ratio indices (first maximum on ties)')
  tester:asserteq(tostring(m), 'nn.SpatialFractionalMaxPooling(4,3,2,3)')
  tester:asserteq(tostring(r), 'nn.SpatialFractionalMaxPooling(0.5,0.7,2,2)')
  tester:assertErrorPattern(function() nn.SpatialFractionalMaxPooling(1, 2, 3, 3) end, 'poolSizeW must be an integer >= 2')
  tester:assertErrorPattern(function() nn.SpatialFractionalMaxPooling(2, 2, 0.5, 3) end, 'reduction ratios must both lie')
  tester:assertErrorPattern(function() nn.SpatialFractionalMaxPooling(2, 2) end, 'expected an output size')
  tester:assertErrorPattern(function() m:forward(torch.randn(3, 4, 4)) end,
    '%[nn.SpatialFractionalMaxPooling%(4,3,2,3%)%] input of size 3x4x4 is too small for a 3x4 output of 3x2 windows')
  tester:assertErrorPattern(function() m:forward(torch.randn(9, 8)) end, 'expected a 3D or 4D')
  tester:assertErrorPattern(function() nn.SpatialFractionalMaxPooling(2, 2, 2, 2):backward(x, y) end, 'run forward before backward')
end

-- New regions at each forward, kept after fixPoolingRegions; a new batch size draws new ones.
function tests.spatialFractionalMaxPoolingRegions()
  local m = nn.SpatialFractionalMaxPooling(2, 2, 3, 3)
  local x = torch.randn(2, 3, 6, 6)
  local y = m:forward(x):clone()
  tester:assertTableEq(m.randomSamples:size():totable(), { 2, 3, 2 })
  tester:assertTensorEq(y, (naiveFractional(x, m.randomSamples, 2, 2, 3, 3)), 0, 'values from the drawn samples')
  local s1 = m.randomSamples:clone()
  m:forward(x)
  tester:assertgt((m.randomSamples - s1):abs():max(), 0, 'new samples')
  tester:asserteq(m:fixPoolingRegions(), m)
  local s2 = m.randomSamples:clone()
  m:forward(x)
  tester:assertTensorEq(m.randomSamples, s2, 0, 'fixed samples')
  m:forward(x[1])
  tester:assertTableEq(m.randomSamples:size():totable(), { 1, 3, 2 }, 'one sample: new samples')
  tester:asserteq(torch.type(m:float():forward(x:float())), 'torch.FloatTensor')
end

tester:add(tests)
tester:run()
