-- nn.SpatialZeroPadding, nn.SpatialReflectionPadding, nn.SpatialReplicationPadding and
-- nn.functional.pad: hand examples, negative pads cropping, nn.Jacobian in f64 for batch and single
-- inputs, save/load, printing, float(), gradcheck (first and second order) and errors.
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

function tests.handExamples()
  local x = D({ { { 1, 2 }, { 3, 4 } } })
  tester:assertTensorEq(nn.SpatialZeroPadding(1, 0, 0, 1):forward(x),
    D({ { { 0, 1, 2 }, { 0, 3, 4 }, { 0, 0, 0 } } }), 0)
  local row = D({ { { 1, 2, 3 } } })
  tester:assertTensorEq(nn.SpatialReflectionPadding(2, 1, 0, 0):forward(row), D({ { { 3, 2, 1, 2, 3, 2 } } }), 0)
  tester:assertTensorEq(nn.SpatialReplicationPadding(2, 1, 0, 0):forward(row), D({ { { 1, 1, 1, 2, 3, 3 } } }), 0)
  -- Missing pads default to the first one.
  tester:asserteq(size(nn.SpatialReplicationPadding(2):forward(rnd(2, 3, 4, 5))), '2x3x8x9')
  -- The gradient of reflection padding adds the mirrored cells back.
  local m = nn.SpatialReflectionPadding(2, 1, 0, 0)
  m:forward(row)
  tester:assertTensorEq(m:backward(row, D({ { { 1, 2, 3, 4, 5, 6 } } })), D({ { { 3, 4 + 2 + 6, 5 + 1 } } }), 0)
end

function tests.negativePadsCrop()
  local x = torch.range(1, 9):double():view(1, 3, 3)
  tester:assertTensorEq(nn.SpatialZeroPadding(-1, 0, 0, -1):forward(x), D({ { { 2, 3 }, { 5, 6 } } }), 0)
  tester:assertTensorEq(nn.SpatialReplicationPadding(-1, 2, -2, 0):forward(x), D({ { { 8, 9, 9, 9 } } }), 0)
  -- Cropping one side and reflecting the other.
  tester:assertTensorEq(nn.SpatialReflectionPadding(-2, 2, 0, 0):forward(x[{ {}, { 1 } }]), D({ { { 3, 2, 1 } } }), 0)
  local m = nn.SpatialZeroPadding(-1, 1, 1, -1)
  m:forward(x)
  local g = rnd(1, 3, 3)
  local gi = m:backward(x, g)
  tester:assertTensorEq(gi[{ {}, { 1, 2 }, { 2, 3 } }], g[{ {}, { 2, 3 }, { 1, 2 } }], 0)
  tester:asserteq(gi[1][3]:abs():sum() + gi[1]:select(2, 1):abs():sum(), 0)
end

function tests.modulesMatchFunctional()
  local x = rnd(2, 3, 5, 6)
  local cases = { { nn.SpatialZeroPadding(2, -1, 1, 3), 'constant' },
                  { nn.SpatialReflectionPadding(3, 1, -2, 4), 'reflect' },
                  { nn.SpatialReplicationPadding(1, 7, 2, -1), 'replicate' } }
  for _, c in ipairs(cases) do
    local m = c[1]:double()
    local pads = { m.pad_l, m.pad_r, m.pad_t, m.pad_b }
    tester:assertTensorEq(m:forward(x), F.pad(x, pads, c[2]), 0, tostring(m))
    tester:assertTensorEq(m:forward(x[1]), F.pad(x[1], pads, c[2]), 0, tostring(m) .. ' single')
  end
end

function tests.jacobiansAndIO()
  local modules = { nn.SpatialZeroPadding(1, 2, -1, 1), nn.SpatialReflectionPadding(2, 1, 1, 2),
                    nn.SpatialReflectionPadding(-1, 2, 1, -1), nn.SpatialReplicationPadding(3, 1, 0, 2) }
  for _, m in ipairs(modules) do
    m:double()
    for _, x in ipairs({ D(2, 2, 3, 4), D(2, 4, 3) }) do
      tester:assertlt(nn.Jacobian.testJacobian(m, x), precision, tostring(m) .. ' ' .. size(x))
      tester:assertlt(nn.Jacobian.testIO(m, x), 1e-12, tostring(m) .. ' save/load')
    end
  end
end

function tests.printingTypesAndAutograd()
  tester:asserteq(tostring(nn.SpatialZeroPadding(1, 2, 3, 4)), 'nn.SpatialZeroPadding(l=1, r=2, t=3, b=4)')
  tester:asserteq(tostring(nn.SpatialReflectionPadding(1, 2, 3, 4)), 'nn.SpatialReflectionPadding(l=1,r=2,t=3,b=4)')
  tester:asserteq(tostring(nn.SpatialReplicationPadding(1)), 'nn.SpatialReplicationPadding(l=1, r=1, t=1, b=1)')
  local m = nn.SpatialReflectionPadding(1, 1, 1, 1):float()
  local y = m:forward(torch.randn(2, 3, 3):float())
  tester:asserteq(torch.type(y), 'torch.FloatTensor')
  tester:asserteq(torch.type(m:backward(torch.randn(2, 3, 3):float(), y:clone())), 'torch.FloatTensor')
  m:clearState()
  tester:asserteq(m.output:nElement(), 0)
  -- As a coarse autograd node, in a model with a Linear layer.
  local model = nn.Sequential():add(nn.SpatialReplicationPadding(1, 0, 0, 1)):double()
  local x = rnd(2, 2, 3):requiresGrad()
  local g = rnd(2, 3, 4)
  torch.cmul(model:forward(x), g):sum():backward()
  tester:assertTensorEq(x.grad, model:backward(x:detach(), g), 1e-12)
  -- Integer tensors pad too (constant mode).
  tester:assertTensorEq(F.pad(torch.LongTensor({ { 1, 2 } }), { 1, 1 }, 'constant', 7),
    torch.LongTensor({ { 7, 1, 2, 7 } }), 0)
end

function tests.functionalGradchecks()
  local x = rnd(2, 3, 4, 5):requiresGrad()
  for _, mode in ipairs({ 'constant', 'reflect', 'replicate' }) do
    tester:assert(gc(function(t) return F.pad(t, { 2, -1, 3, 1 }, mode) end, { x }), mode)
    tester:assert(gc(function(t) return F.pad(t, { 3, 2 }, mode) end, { x }), mode .. ' 1D')
    tester:assert(gc(function(t) return F.pad(t, { 1, 2, 0, 3, 1, 1 }, mode) end, { x }), mode .. ' 3D')
    tester:assert(ggc(function(t) return torch.pow(F.pad(t, { 2, 1, 1, 2 }, mode), 2) end, { x }), mode .. ' 2nd')
  end
  tester:assert(gc(function(t) return F.pad(t, { 1, 1 }, 'constant', 3.5) end, { x }))
  tester:assertTensorEq(F.pad(D({ 1, 2 }), { 1, 2 }, 'constant', 3.5), D({ 3.5, 1, 2, 3.5, 3.5 }), 0)
end

function tests.errors()
  tester:assertErrorPattern(function() nn.SpatialZeroPadding(-2, -2):forward(rnd(1, 3, 3)) end,
    '%[nn.SpatialZeroPadding%(l=%-2, r=%-2, t=%-2, b=%-2%)%] input of size 1x3x3 is too small '
      .. '%(the output would be %-1x%-1%)')
  tester:assertErrorPattern(function() nn.SpatialReflectionPadding(3):forward(rnd(1, 3, 3)) end,
    '%[nn.SpatialReflectionPadding%(l=3,r=3,t=3,b=3%)%] reflect padding %(3,3,3,3%) must be smaller than the '
      .. 'padded dims')
  tester:assertErrorPattern(function() nn.SpatialReplicationPadding(1):forward(rnd(3)) end,
    'expected a 3D or 4D %(N x C x H x W%) input, got size 3')
  tester:assertErrorPattern(function() nn.SpatialZeroPadding(1.5) end, 'pad_l must be an integer, got 1.5')
  tester:assertErrorPattern(function() nn.SpatialZeroPadding() end, 'pad_l must be an integer, got nil')
  local m = nn.SpatialReplicationPadding(1)
  m:forward(rnd(1, 3, 3))
  tester:assertErrorPattern(function() m:backward(rnd(1, 3, 3), rnd(1, 4, 5)) end,
    'grad is 1x4x5 but padding %(1,1,1,1%) of an input of size 1x3x3 gives 1x5x5')
  tester:assertErrorPattern(function() F.pad(rnd(3, 3), { 1, 1 }, 'wrap') end,
    "%[pad%] mode must be 'constant', 'reflect', 'replicate' or 'circular', got wrap")
  tester:assertErrorPattern(function() F.pad(rnd(3, 3), { 1, 1, 1 }) end, 'a table of 2, 4 or 6 numbers, got 3 numbers')
  tester:assertErrorPattern(function() F.pad(rnd(3, 3), { 1, 1 }, 'reflect', 2) end, 'a value only goes with constant')
  tester:assertErrorPattern(function() F.pad(rnd(3), { 1, 1, 1, 1 }) end, '4 pads need a tensor of at least 2 dims')
end

tester:add(tests)
tester:run()
