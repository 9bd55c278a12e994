-- nn.TemporalMaxPooling, nn.VolumetricMaxPooling and nn.VolumetricAveragePooling: hand examples,
-- output sizes (ceil mode, padding), nn.Jacobian in f64 for batch and single inputs, save/load,
-- clearState, float(), printing, the functional forms (gradcheck, second order) and errors.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local F = nn.functional
local gc, ggc = torch.autograd.gradcheck, torch.autograd.gradgradcheck
local precision = 1e-7

local function rnd(...) return torch.randn(...):double() end
local tie_free = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/tie_free.lua')
local distinct, jacobian_error = tie_free.distinct, tie_free.jacobian_error
local function size(t) return table.concat(t:size():totable(), 'x') end

function tests.temporalHandExample()
  -- 5 frames of 2 features; windows of 2 frames every 2: frames {1,2} and {3,4} (frame 5 unused).
  local x = torch.DoubleTensor({ { 1, 9 }, { 4, 2 }, { 3, 3 }, { 0, 7 }, { 8, 8 } })
  local m = nn.TemporalMaxPooling(2)
  tester:assertTensorEq(m:forward(x), torch.DoubleTensor({ { 4, 9 }, { 3, 7 } }), 0)
  tester:assertTensorEq(m.indices, torch.LongTensor({ { 2, 1 }, { 3, 4 } }), 0)
  local gi = m:backward(x, torch.DoubleTensor({ { 1, 2 }, { 3, 4 } }))
  tester:assertTensorEq(gi, torch.DoubleTensor({ { 0, 2 }, { 1, 0 }, { 3, 0 }, { 0, 4 }, { 0, 0 } }), 0)
  -- Overlapping windows accumulate.
  local o = nn.TemporalMaxPooling(3, 1)
  o:forward(torch.DoubleTensor({ { 1 }, { 5 }, { 2 }, { 0 } }))
  tester:assertTensorEq(o:backward(torch.DoubleTensor({ { 1 }, { 5 }, { 2 }, { 0 } }), torch.ones(2, 1):double()),
    torch.DoubleTensor({ { 0 }, { 2 }, { 0 }, { 0 } }), 0)
  tester:asserteq(tostring(m), 'nn.TemporalMaxPooling(2, 2)')
  tester:asserteq(size(nn.TemporalMaxPooling(3, 2):forward(rnd(4, 10, 6))), '4x4x6')
end

function tests.volumetricHandExamples()
  local x = torch.range(1, 27):double():view(1, 3, 3, 3)
  local m = nn.VolumetricMaxPooling(2, 2, 2, 1, 1, 1)
  local y = m:forward(x)
  tester:asserteq(size(y), '1x2x2x2')
  tester:assertTensorEq(y:view(-1), torch.DoubleTensor({ 14, 15, 17, 18, 23, 24, 26, 27 }), 0)
  tester:assertTensorEq(m.indices:view(-1), torch.LongTensor({ 14, 15, 17, 18, 23, 24, 26, 27 }), 0)
  local a = nn.VolumetricAveragePooling(3, 3, 3):forward(x)
  tester:assertTensorEq(a:view(-1), torch.DoubleTensor({ 14 }), 1e-12)
  -- Padding 1 with the padded cells counted (the default) or not: the corner window sees 8 cells.
  local p = nn.VolumetricAveragePooling(3, 3, 3, 2, 2, 2, 1, 1, 1)
  local corner = (1 + 2 + 4 + 5 + 10 + 11 + 13 + 14) / 8
  tester:assertalmosteq(p:forward(x)[1][1][1][1], corner * 8 / 27, 1e-12)
  p:setCountExcludePad()
  tester:assertalmosteq(p:forward(x)[1][1][1][1], corner, 1e-12)
  tester:asserteq(tostring(m), 'nn.VolumetricMaxPooling(2x2x2, 1,1,1)')
  tester:asserteq(tostring(nn.VolumetricMaxPooling(3, 2, 2, 1, 2, 2, 1, 1, 0)),
    'nn.VolumetricMaxPooling(3x2x2, 1,2,2, 1,1,0)')
  tester:asserteq(tostring(nn.VolumetricAveragePooling(2, 3, 3)), 'nn.VolumetricAveragePooling(2x3x3, 2,3,3)')
end

function tests.volumetricOutputSizes()
  local x = rnd(2, 3, 5, 7, 6)
  -- kT, kW, kH order in the constructor; sizes come out as T x H x W.
  tester:asserteq(size(nn.VolumetricMaxPooling(2, 3, 1):forward(x)), '2x3x2x7x2')
  tester:asserteq(size(nn.VolumetricMaxPooling(2, 2, 2):forward(x)), '2x3x2x3x3')
  tester:asserteq(size(nn.VolumetricMaxPooling(2, 2, 2):ceil():forward(x)), '2x3x3x4x3')
  tester:asserteq(size(nn.VolumetricAveragePooling(2, 2, 2):ceil():forward(x)), '2x3x3x4x3')
  tester:asserteq(size(nn.VolumetricMaxPooling(3, 3, 3, 2, 2, 2, 1, 1, 1):forward(x)), '2x3x3x4x3')
  tester:asserteq(size(nn.VolumetricMaxPooling(2, 2, 2):forward(x[1])), '3x2x3x3')
end

function tests.batchMatchesSingle()
  local modules = { nn.VolumetricMaxPooling(2, 2, 2, 1, 2, 1):ceil(),
                    nn.VolumetricAveragePooling(2, 3, 2, 1, 1, 2, 1, 1, 0), nn.TemporalMaxPooling(3, 2) }
  local inputs = { rnd(3, 2, 4, 5, 6), rnd(3, 2, 4, 5, 6), rnd(3, 9, 4) }
  for k, m in ipairs(modules) do
    local x = inputs[k]
    local y = m:forward(x):clone()
    local g = rnd(y:size())
    local gi = m:backward(x, g):clone()
    for n = 1, 3 do
      tester:assertTensorEq(m:forward(x[n]), y[n], 1e-12, tostring(m) .. ' output ' .. n)
      tester:assertTensorEq(m:backward(x[n], g[n]), gi[n], 1e-12, tostring(m) .. ' gradInput ' .. n)
    end
  end
end

function tests.jacobiansAndIO()
  local cases = {
    { nn.TemporalMaxPooling(2), { torch.DoubleTensor(6, 3), torch.DoubleTensor(2, 5, 3) } },
    { nn.TemporalMaxPooling(3, 1), { torch.DoubleTensor(7, 2) } },
    { nn.VolumetricMaxPooling(2, 2, 2), { torch.DoubleTensor(2, 4, 4, 5), torch.DoubleTensor(2, 2, 3, 4, 4) } },
    { nn.VolumetricMaxPooling(3, 2, 3, 2, 1, 2, 1, 1, 1):ceil(), { torch.DoubleTensor(1, 2, 5, 4, 5) } },
    { nn.VolumetricAveragePooling(2, 2, 2, 1, 1, 1), { torch.DoubleTensor(2, 3, 3, 3) } },
    { nn.VolumetricAveragePooling(3, 3, 2, 2, 2, 2, 1, 1, 1):ceil():setCountExcludePad(),
      { torch.DoubleTensor(1, 2, 4, 5, 5) } },
  }
  for _, c in ipairs(cases) do
    local m = c[1]:double()
    for _, x in ipairs(c[2]) do
      tester:assertlt(jacobian_error(m, x), precision, tostring(m) .. ' ' .. size(x))
      tester:assertlt(nn.Jacobian.testIO(m, x), 1e-12, tostring(m) .. ' save/load')
    end
  end
end

function tests.stateTypesAndAutograd()
  local modules = { nn.TemporalMaxPooling(2), nn.VolumetricMaxPooling(2, 2, 2), nn.VolumetricAveragePooling(2, 2, 2) }
  for _, m in ipairs(modules) do
    local x = torch.isTypeOf(m, 'nn.TemporalMaxPooling') and rnd(2, 6, 3) or rnd(2, 2, 4, 4, 4)
    m:double():forward(x)
    m:clearState()
    tester:asserteq(m.output:nElement(), 0, tostring(m))
    if m.indices then tester:asserteq(m.indices:nElement(), 0) end
    m:float()
    local xf = x:float()
    local y = m:forward(xf)
    tester:asserteq(torch.type(y), 'torch.FloatTensor')
    if m.indices then tester:asserteq(torch.type(m.indices), 'torch.LongTensor') end
    tester:asserteq(torch.type(m:backward(xf, y:clone():fill(1))), 'torch.FloatTensor')
    -- The module as a coarse autograd node gives its own backward.
    local g = rnd(y:size())
    m:double():forward(x)
    local expect = m:backward(x, g):clone()
    local xr = x:clone():requiresGrad()
    torch.cmul(m:forward(xr), g):sum():backward()
    tester:assertTensorEq(xr.grad, expect, 1e-12, tostring(m))
  end
end

function tests.functionalGradchecks()
  local x = distinct(1, 2, 4, 5, 5):requiresGrad()
  tester:assert(gc(function(t) return (F.maxPool3d(t, { 2, 2, 3 }, { 1, 2, 1 }, { 1, 1, 1 }, true)) end, { x }))
  tester:assert(gc(function(t) return F.avgPool3d(t, 2, 1, 1) end, { x }))
  tester:assert(gc(function(t) return F.avgPool3d(t, 3, 2, 1, true, false) end, { x }))
  tester:assert(gc(function(t) return (F.temporalMaxPool(t, 3, 2)) end, { distinct(2, 7, 3):requiresGrad() }))
  -- Second order through the backward ops (avgPool3dBackward and the max scatter).
  tester:assert(ggc(function(t) return F.avgPool3d(t, 3, 2, 1, true, false) end, { x }))
  tester:assert(ggc(function(t) return torch.pow((F.maxPool3d(t, 2)), 2) end, { x }))
  tester:assert(ggc(function(t) return torch.pow((F.temporalMaxPool(t, 2)), 2) end, { distinct(5, 2):requiresGrad() }))
  local y, i = F.maxPool3d(rnd(2, 4, 4, 4), 2)
  tester:asserteq(size(y), '2x2x2x2')
  tester:asserteq(torch.type(i), 'torch.LongTensor')
end

function tests.errorsNameTheModule()
  local m = nn.VolumetricMaxPooling(3, 3, 3)
  tester:assertErrorPattern(function() m:forward(rnd(2, 4, 4)) end,
    '%[nn.VolumetricMaxPooling%(3x3x3, 3,3,3%)%] expected a 4D or 5D %(N x C x T x H x W%) input, got size 2x4x4')
  tester:assertErrorPattern(function() m:forward(rnd(1, 2, 4, 4)) end,
    '%[nn.VolumetricMaxPooling%(3x3x3, 3,3,3%)%] input of size 1x2x4x4 is too small for kernel 3x3x3')
  tester:assertErrorPattern(function() nn.VolumetricAveragePooling(2, 2, 2, 1, 1, 1, 2, 0, 0) end,
    '%[nn.VolumetricAveragePooling%] padT %(2%) must be at most half of kT %(2%)')
  tester:assertErrorPattern(function() nn.VolumetricMaxPooling(2, 2, 2, 0) end, 'dT must be an integer >= 1, got 0')
  tester:assertErrorPattern(function() nn.VolumetricMaxPooling(2, 2.5, 2) end, 'kW must be an integer >= 1, got 2.5')
  local padded = nn.VolumetricAveragePooling(2, 2, 2, 1, 1, 1, 1, 0, 0)
  padded.padT = 2  -- the ops check it too (a module loaded from a file skips the constructor)
  tester:assertErrorPattern(function() padded:forward(rnd(1, 4, 4, 4)) end,
    'padding 2,0,0 must be at most half of kernel 2x2x2')
  tester:assertErrorPattern(function() nn.TemporalMaxPooling(4):forward(rnd(3, 2)) end,
    '%[nn.TemporalMaxPooling%(4, 4%)%] input of size 3x2 has 3 frames, fewer than the kernel width 4')
  tester:assertErrorPattern(function() nn.TemporalMaxPooling(2):forward(rnd(2, 2, 2, 2)) end,
    'expected a 2D or 3D %(nBatch x nFrame x frameSize%) input, got size 2x2x2x2')
  tester:assertErrorPattern(function() nn.TemporalMaxPooling(0) end, 'positive kernel width')
  tester:assertErrorPattern(function() nn.VolumetricMaxPooling(2, 'a', 2) end, 'kW must be an integer >= 1')
  tester:assertErrorPattern(function() F.maxPool3d(rnd(1, 4, 4, 4), { 2, 2 }) end,
    'expected the kernel size as a number or a table of 3 numbers')
  local t = nn.TemporalMaxPooling(2)
  t:forward(rnd(6, 3))
  tester:assertErrorPattern(function() t:backward(rnd(6, 3), rnd(2, 3)) end, 'grad is 2x3 but indices are 3x3')
end

tester:add(tests)
tester:run()
