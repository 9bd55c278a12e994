-- nn.SpatialUpSamplingNearest, nn.SpatialUpSamplingBilinear, nn.PixelShuffle and
-- nn.functional.interpolate / pixelShuffle: hand examples (PyTorch's documented bilinear example),
-- nn.Jacobian in f64 for batch and single inputs, save/load, printing, float(), autograd, gradcheck
-- (first and second order) and errors.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local F = nn.functional
local gc, ggc = torch.autograd.gradcheck, torch.autograd.gradgradcheck
local precision = 1e-7
local D = torch.DoubleTensor

local function rnd(...) return torch.randn(...):double() end
local function size(t) return table.concat(t:size():totable(), 'x') end

function tests.nearestHandExample()
  local x = D({ { { 1, 2 }, { 3, 4 } } })
  local m = nn.SpatialUpSamplingNearest(2)
  tester:assertTensorEq(m:forward(x), D({ { { 1, 1, 2, 2 }, { 1, 1, 2, 2 }, { 3, 3, 4, 4 }, { 3, 3, 4, 4 } } }), 0)
  -- The gradient sums each 2x2 block.
  local g = torch.range(1, 16):double():view(1, 4, 4)
  tester:assertTensorEq(m:backward(x, g),
    D({ { { 1 + 2 + 5 + 6, 3 + 4 + 7 + 8 }, { 9 + 10 + 13 + 14, 11 + 12 + 15 + 16 } } }), 0)
  tester:asserteq(size(nn.SpatialUpSamplingNearest(3):forward(rnd(2, 3, 4, 5))), '2x3x12x15')
  tester:asserteq(tostring(m), 'nn.SpatialUpSamplingNearest(2)')
end

function tests.bilinearHandExamples()
  -- PyTorch's UpsamplingBilinear2d(scale_factor=2) example: corners aligned.
  local x = D({ { { { 1, 2 }, { 3, 4 } } } })
  local expect = D({ { { { 1, 4 / 3, 5 / 3, 2 }, { 5 / 3, 2, 7 / 3, 8 / 3 }, { 7 / 3, 8 / 3, 3, 10 / 3 },
                         { 3, 10 / 3, 11 / 3, 4 } } } })
  tester:assertTensorEq(nn.SpatialUpSamplingBilinear(2):forward(x), expect, 1e-12)
  tester:assertTensorEq(nn.SpatialUpSamplingBilinear({ oheight = 4, owidth = 4 }):forward(x), expect, 1e-12)
  tester:assertTensorEq(F.interpolate(x, { size = 4, mode = 'bilinear', alignCorners = true }), expect, 1e-12)
  -- Odd sizes keep the input on the grid: 2x3 -> 3x5 samples every half step.
  local y = nn.SpatialUpSamplingBilinear({ oheight = 3, owidth = 5 }):forward(D({ { { 0, 2, 4 }, { 6, 8, 10 } } }))
  tester:assertTensorEq(y, D({ { { 0, 1, 2, 3, 4 }, { 3, 4, 5, 6, 7 }, { 6, 7, 8, 9, 10 } } }), 1e-12)
  tester:asserteq(tostring(nn.SpatialUpSamplingBilinear(2)), 'nn.SpatialUpSamplingBilinear(2)')
  tester:asserteq(tostring(nn.SpatialUpSamplingBilinear({ oheight = 3, owidth = 5 })),
    'nn.SpatialUpSamplingBilinear(3, 5)')
end

function tests.pixelShuffleLayout()
  local r = 2
  local x = rnd(2, 3 * r * r, 3, 4)
  local y = nn.PixelShuffle(r):forward(x)
  tester:asserteq(size(y), '2x3x6x8')
  for n = 1, 2 do
    for c = 0, 2 do
      for h = 0, 2 do
        for w = 0, 3 do
          for i = 0, r - 1 do
            for j = 0, r - 1 do
              tester:asserteq(y[n][c + 1][h * r + i + 1][w * r + j + 1], x[n][c * r * r + i * r + j + 1][h + 1][w + 1])
            end
          end
        end
      end
    end
  end
  tester:assertTensorEq(nn.PixelShuffle(r):forward(x[2]), y[2], 0)
  tester:asserteq(tostring(nn.PixelShuffle(3)), 'nn.PixelShuffle(3)')
end

function tests.jacobiansAndIO()
  local cases = {
    { nn.SpatialUpSamplingNearest(2), { D(2, 2, 3, 2), D(2, 3, 3) } },
    { nn.SpatialUpSamplingBilinear(3), { D(2, 2, 3, 2), D(2, 3, 3) } },
    { nn.SpatialUpSamplingBilinear({ oheight = 2, owidth = 5 }), { D(1, 2, 4, 3), D(2, 3, 3) } },
    { nn.PixelShuffle(2), { D(2, 8, 2, 3), D(4, 3, 2) } },
  }
  for _, c in ipairs(cases) do
    local m = c[1]:double()
    for _, x in ipairs(c[2]) do
      tester:assertlt(nn.Jacobian.testJacobian(m, x), precision, tostring(m) .. ' ' .. size(x))
      tester:assertlt(nn.Jacobian.testIO(m, x), 1e-12, tostring(m) .. ' save/load')
    end
  end
end

function tests.typesStateAndAutograd()
  for _, m in ipairs({ nn.SpatialUpSamplingNearest(2), nn.SpatialUpSamplingBilinear(2), nn.PixelShuffle(2) }) do
    m:float()
    local x = torch.randn(2, 4, 3, 3):float()
    local y = m:forward(x)
    tester:asserteq(torch.type(y), 'torch.FloatTensor', tostring(m))
    tester:asserteq(torch.type(m:backward(x, y:clone():fill(1))), 'torch.FloatTensor', tostring(m))
    m:clearState()
    tester:asserteq(m.output:nElement(), 0)
    -- Autograd through the module matches its backward.
    m:double()
    local xd = rnd(2, 4, 3, 3)
    local g = rnd(m:forward(xd):size())
    local expect = m:backward(xd, g):clone()
    local xr = xd:clone():requiresGrad()
    torch.cmul(m:forward(xr), g):sum():backward()
    tester:assertTensorEq(xr.grad, expect, 1e-12, tostring(m))
  end
end

function tests.interpolate()
  local x = rnd(2, 3, 4, 5)
  tester:assertTensorEq(F.interpolate(x, { scaleFactor = 2 }), nn.SpatialUpSamplingNearest(2):double():forward(x), 0)
  tester:assertTensorEq(F.interpolate(x, { scaleFactor = 3, mode = 'bilinear', alignCorners = true }),
    nn.SpatialUpSamplingBilinear(3):double():forward(x), 1e-12)
  tester:asserteq(size(F.interpolate(x, { size = { 7, 3 }, mode = 'bilinear' })), '2x3x7x3')
  tester:asserteq(size(F.interpolate(x, { scaleFactor = { 1.5, 0.5 } })), '2x3x6x2')
  -- Without aligned corners a constant image stays constant and half-pixel centres line up.
  tester:assertTensorEq(F.interpolate(torch.ones(1, 1, 3, 3):double(), { size = 7, mode = 'bilinear' }),
    torch.ones(1, 1, 7, 7):double(), 1e-12)
  tester:assertTensorEq(F.interpolate(D({ { { 0, 4 } } }), { size = 4, mode = 'linear' }), D({ { { 0, 1, 3, 4 } } }),
    1e-12)
  tester:assertTensorEq(F.interpolate(D({ { { 1, 2, 3 } } }), { size = 2 }), D({ { { 1, 2 } } }), 0)
  -- Gradchecks, first and second order.
  local xr = rnd(1, 2, 3, 4):requiresGrad()
  local options = { { size = { 5, 7 } }, { size = { 5, 7 }, mode = 'bilinear' },
                    { size = { 2, 6 }, mode = 'bilinear', alignCorners = true } }
  for _, o in ipairs(options) do
    tester:assert(gc(function(t) return F.interpolate(t, o) end, { xr }), o.mode)
    tester:assert(ggc(function(t) return torch.pow(F.interpolate(t, o), 2) end, { xr }), o.mode)
  end
  tester:assert(gc(function(t) return F.interpolate(t, { size = 7, mode = 'linear' }) end,
    { rnd(2, 2, 3):requiresGrad() }))
  tester:assert(gc(function(t) return F.pixelShuffle(t, 2) end, { rnd(1, 4, 2, 3):requiresGrad() }))
end

-- 5-D input: 'nearest' and 'trilinear' against PyTorch 1.13's F.interpolate (every 37th value and
-- the sum) on x = sin(0..119) as 2x1x3x4x5; nn.Upsample('trilinear'); gradchecks.
function tests.interpolateVolumes()
  local x = torch.range(0, 119):double():sin():view(2, 1, 3, 4, 5)
  local function every37(y)
    local f, r = y:contiguous():view(-1), {}
    for i = 1, f:nElement(), 37 do r[#r + 1] = f[i] end
    return r
  end
  local function check(y, want, sum, what)
    local got = every37(y)
    tester:asserteq(#got, #want, what)
    for i, v in ipairs(want) do tester:assertalmosteq(got[i], v, 1e-11, what .. ' value ' .. i) end
    tester:assertalmosteq(y:sum(), sum, 1e-9, what .. ' sum')
  end
  check(F.interpolate(x, { size = { 5, 7, 3 }, mode = 'trilinear' }), { 0.280490328269, -0.572510651982,
    -0.272960274621, 0.466110515529, 0.313228782433, -0.405509656278 }, -0.2441067858, 'trilinear')
  check(F.interpolate(x, { size = { 5, 7, 3 }, mode = 'trilinear', alignCorners = true }), { 0.0, -0.397520465499,
    -0.411773224926, 0.82682867949, 0.313228782433, -0.207720633103 }, -0.0682894157, 'trilinear aligned')
  check(F.interpolate(x, { size = { 5, 7, 3 } }), { 0.0, -0.999990206551, 0.270905788308, 0.82682867949,
    -0.629887994274, -0.94828214127 }, -2.3068229542, 'nearest')
  check(F.interpolate(x, { size = { 2, 9, 10 } }), { 0.0, 0.989358246623, -0.96139749188, 0.912945250728,
    0.52908268612, -0.739180696649, -0.026551154024, -0.444112668708, 0.9683644611, 0.105987511751 }, -0.443553112,
    'nearest 2x9x10')
  -- aligned corners: Torch7's VolumetricUpSamplingTrilinear; a scale applies to all three dims
  tester:assertTensorEq(F.interpolate(x, { scaleFactor = 2, mode = 'trilinear', alignCorners = true }),
    nn.VolumetricUpSamplingTrilinear(2):double():forward(x), 1e-12)
  tester:assertTensorEq(nn.Upsample({ scaleFactor = 2 }):forward(x), nn.VolumetricUpSamplingNearest(2):double():forward(x), 0)
  local up = nn.Upsample({ size = { 4, 4, 6 }, mode = 'trilinear' })
  tester:asserteq(size(up:forward(x)), '2x1x4x4x6')
  tester:asserteq(tostring(up), 'nn.Upsample(size 4x4x6, trilinear)')
  tester:assertTensorEq(F.interpolate(x, { size = { 3, 4, 5 }, mode = 'trilinear' }), x, 1e-15, 'same size')
  local xr = rnd(1, 2, 2, 3, 2):requiresGrad()
  for _, o in ipairs({ { size = { 3, 2, 4 } }, { size = { 3, 5, 1 }, mode = 'trilinear' },
                       { size = { 4, 2, 3 }, mode = 'trilinear', alignCorners = true } }) do
    tester:assert(gc(function(t) return F.interpolate(t, o) end, { xr }), o.mode)
    tester:assert(ggc(function(t) return torch.pow(F.interpolate(t, o), 2) end, { xr }), o.mode)
  end
  tester:assertErrorPattern(function() F.interpolate(x, { size = 4, mode = 'bilinear' }) end,
    "mode bilinear does not apply to a 5D tensor %(use 'nearest' or 'trilinear'%)")
  tester:assertErrorPattern(function() F.interpolate(x:long(), { size = 4 }) end, 'expected a floating%-point tensor')
  tester:assertErrorPattern(function() F.interpolate(rnd(1, 1, 1, 1, 1, 1), { size = 4 }) end, 'got size 1x1x1x1x1x1')
  tester:assertErrorPattern(function() nn.Upsample({ size = 2, mode = 'cubic' }) end, "or 'trilinear', got cubic")
end

function tests.errors()
  tester:assertErrorPattern(function() nn.SpatialUpSamplingNearest(1.5) end,
    '%[nn.SpatialUpSamplingNearest%] scale_factor must be an integer >= 1, got 1.5')
  tester:assertErrorPattern(function() nn.SpatialUpSamplingBilinear({ oheight = 0, owidth = 2 }) end,
    'oheight and owidth must be positive integers')
  tester:assertErrorPattern(function() nn.SpatialUpSamplingBilinear('x') end, 'expected an integer scale_factor')
  tester:assertErrorPattern(function() nn.SpatialUpSamplingNearest(2):forward(rnd(3, 3)) end,
    '%[nn.SpatialUpSamplingNearest%(2%)%] expected a 3D or 4D %(N x C x H x W%) input, got size 3x3')
  local m = nn.SpatialUpSamplingBilinear(2)
  m:forward(rnd(1, 2, 2))
  tester:assertErrorPattern(function() m:backward(rnd(1, 2, 2), rnd(1, 3, 3)) end,
    '%[nn.SpatialUpSamplingBilinear%(2%)%] gradOutput of size 1x3x3 does not match the output size 1x4x4')
  tester:assertErrorPattern(function() nn.PixelShuffle(2):forward(rnd(1, 3, 2, 2)) end,
    '%[nn.PixelShuffle%(2%)%] input of size 1x3x2x2 has 3 channels, not a multiple of 4')
  tester:assertErrorPattern(function() nn.PixelShuffle(0) end, 'upscaleFactor must be a positive integer')
  tester:assertErrorPattern(function() F.interpolate(rnd(1, 1, 2, 2), { size = 3, scaleFactor = 2 }) end,
    'give exactly one of size and scaleFactor')
  tester:assertErrorPattern(function() F.interpolate(rnd(1, 1, 2, 2), { size = 3, mode = 'linear' }) end,
    "mode linear does not apply to a 4D tensor %(use 'nearest' or 'bilinear'%)")
  tester:assertErrorPattern(function() F.interpolate(rnd(1, 1, 2, 2), { size = 3, alignCorners = true }) end,
    'alignCorners only goes with linear modes')
  tester:assertErrorPattern(function() F.interpolate(rnd(2, 2), { size = 3 }) end, 'expected a 3D')
  tester:assertErrorPattern(function() F.interpolate(rnd(1, 1, 2, 2), { scaleFactor = 0.1 }) end,
    'output sizes must be positive integers, got 0')
  tester:assertErrorPattern(function() F.interpolate(rnd(1, 1, 2, 2), { size = 0 }) end, 'must be positive')
  tester:assertErrorPattern(function() nn.SpatialUpSamplingNearest(2):forward(torch.LongTensor(1, 2, 2)) end,
    'floating%-point')
end

tester:add(tests)
tester:run()
