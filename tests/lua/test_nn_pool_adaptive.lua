-- nn.SpatialAdaptiveMaxPooling, nn.SpatialAdaptiveAveragePooling and nn.SpatialMaxUnpooling: hand
-- examples, nn.Jacobian in f64 for batch and single inputs, save/load, clearState, float(), autograd
-- through the modules and the functional forms (gradcheck, second order), errors naming the module.
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

-- A stand-in for nn.SpatialMaxPooling (written elsewhere): Torch7's fields and 1-based flat indices
-- in each plane. It does not record its input size: the unpooling makes its class do so. The same
-- source defines the class in a child process (unpoolingLoadedFromACheckpoint).
local POOL_CLASS = [[
local name = ...
local Pool, parent = torch.class(name, 'nn.Module')
function Pool:__init(kW, kH, dW, dH, padW, padH)
  parent.__init(self)
  self.kW, self.kH, self.dW, self.dH = kW, kH, dW or kW, dH or kH
  self.padW, self.padH = padW or 0, padH or 0
  self.indices = torch.LongTensor()
end
function Pool:updateOutput(input)
  local n = input:dim()
  local y, i = nn.functional.maxPool3d(input:unsqueeze(n - 1), { 1, self.kH, self.kW }, { 1, self.dH, self.dW },
    { 0, self.padH, self.padW })
  self.output, self.indices = y:squeeze(n - 1), i:squeeze(n - 1)
  return self.output
end
function Pool:__tostring__()
  return string.format('%s(%dx%d, %d,%d)', torch.type(self), self.kW, self.kH, self.dW, self.dH)
end
]]
for _, name in ipairs({ 'nn.TestMaxPooling', 'nn.TestLateMaxPooling', 'nn.TestSavedMaxPooling' }) do
  assert(loadstring(POOL_CLASS))(name)
end

function tests.adaptiveHandExamples()
  local x = torch.range(1, 16):double():view(1, 4, 4)
  local m = nn.SpatialAdaptiveMaxPooling(2, 2)
  tester:assertTensorEq(m:forward(x), torch.DoubleTensor({ { { 6, 8 }, { 14, 16 } } }), 0)
  tester:assertTensorEq(m.indices, torch.LongTensor({ { { 6, 8 }, { 14, 16 } } }), 0)
  -- W = 3, H = 1 over 4 columns: windows [1,2], [2,3], [3,4] (overlapping, as Torch7's); column c averages to c + 6.
  local a = nn.SpatialAdaptiveAveragePooling(3, 1):forward(x)
  tester:assertTensorEq(a, torch.DoubleTensor({ { { 7.5, 8.5, 9.5 } } }), 1e-12)
  tester:asserteq(size(nn.SpatialAdaptiveMaxPooling(5, 3):forward(rnd(2, 3, 7, 9))), '2x3x3x5')
  -- Larger outputs than inputs repeat cells.
  tester:assertTensorEq(nn.SpatialAdaptiveMaxPooling(4, 1):forward(torch.DoubleTensor({ { { 1, 2 } } })),
    torch.DoubleTensor({ { { 1, 1, 2, 2 } } }), 0)
  tester:asserteq(tostring(m), 'nn.SpatialAdaptiveMaxPooling(2x2)')
  tester:asserteq(tostring(nn.SpatialAdaptiveAveragePooling(4, 3)), 'nn.SpatialAdaptiveAveragePooling(4x3)')
end

function tests.adaptiveBatchMatchesSingle()
  for _, m in ipairs({ nn.SpatialAdaptiveMaxPooling(3, 2), nn.SpatialAdaptiveAveragePooling(4, 3) }) do
    local x, g = rnd(3, 2, 7, 6), nil
    local y = m:forward(x):clone()
    g = rnd(y:size())
    local gi = m:backward(x, g):clone()
    for n = 1, 3 do
      tester:assertTensorEq(m:forward(x[n]), y[n], 1e-12, tostring(m) .. ' output ' .. n)
      tester:assertTensorEq(m:backward(x[n], g[n]), gi[n], 1e-12, tostring(m) .. ' gradInput ' .. n)
    end
  end
end

function tests.adaptiveJacobians()
  for _, m in ipairs({ nn.SpatialAdaptiveMaxPooling(3, 2), nn.SpatialAdaptiveAveragePooling(4, 3),
                       nn.SpatialAdaptiveAveragePooling(9, 8) }) do
    for _, x in ipairs({ torch.DoubleTensor(2, 3, 5, 7), torch.DoubleTensor(2, 6, 5) }) do
      tester:assertlt(jacobian_error(m, x), precision, tostring(m) .. ' ' .. size(x))
      tester:assertlt(nn.Jacobian.testIO(m, x), 1e-12, tostring(m) .. ' save/load')
    end
  end
end

function tests.adaptiveStateAndTypes()
  local m = nn.SpatialAdaptiveMaxPooling(2, 2)
  m:forward(rnd(2, 3, 4, 4))
  m:clearState()
  tester:asserteq(m.output:nElement(), 0)
  tester:asserteq(m.indices:nElement(), 0)
  m:float()
  local y = m:forward(torch.randn(2, 3, 4, 4):float())
  tester:asserteq(torch.type(y), 'torch.FloatTensor')
  tester:asserteq(torch.type(m.indices), 'torch.LongTensor')
  tester:asserteq(torch.type(m:backward(torch.randn(2, 3, 4, 4):float(), torch.ones(2, 3, 2, 2):float())),
    'torch.FloatTensor')
  local a = nn.SpatialAdaptiveAveragePooling(2, 2):float()
  tester:asserteq(torch.type(a:forward(torch.randn(3, 4, 4):float())), 'torch.FloatTensor')
end

function tests.adaptiveAutogradMatchesBackward()
  for _, m in ipairs({ nn.SpatialAdaptiveMaxPooling(3, 2), nn.SpatialAdaptiveAveragePooling(2, 3) }) do
    local x = rnd(2, 3, 5, 5)
    local g = rnd(m:forward(x):size())
    local expect = m:backward(x, g):clone()
    local xr = x:clone():requiresGrad()
    local y = m:forward(xr)
    torch.cmul(y, g):sum():backward()
    tester:assertTensorEq(xr.grad, expect, 1e-12, tostring(m))
  end
end

function tests.functionalGradchecks()
  local x = distinct(2, 2, 5, 7):requiresGrad()
  tester:assert(gc(function(t) return (F.adaptiveMaxPool2d(t, { 3, 2 })) end, { x }))
  tester:assert(gc(function(t) return F.adaptiveAvgPool2d(t, { 3, 4 }) end, { x }))
  tester:assert(gc(function(t) return F.adaptiveAvgPool2d(t, 6) end, { rnd(3, 4, 5):requiresGrad() }))
  -- Second order: the backward ops are differentiable (adaptiveAvgPool2dBackward and the scatter).
  tester:assert(ggc(function(t) return F.adaptiveAvgPool2d(t, { 3, 4 }) end, { x }))
  tester:assert(ggc(function(t) return torch.pow((F.adaptiveMaxPool2d(t, 2)), 2) end, { x }))
  local y, i = F.adaptiveMaxPool2d(rnd(3, 4, 4), 2)
  tester:asserteq(torch.type(i), 'torch.LongTensor')
  tester:asserteq(size(y), '3x2x2')
end

function tests.unpoolingInvertsThePooling()
  local pool = nn.TestMaxPooling(2, 2)
  local unpool = nn.SpatialMaxUnpooling(pool)
  local model = nn.Sequential():add(pool):add(unpool):double()
  for _, x in ipairs({ rnd(2, 3, 6, 8), rnd(3, 5, 7) }) do  -- 5x7: the recorded size, not (2-1)*2+2
    local y = model:forward(x)
    tester:asserteq(size(y), size(x))
    -- Every maximum is back in place, everything else is zero.
    local kept = torch.ne(y, 0):double()
    tester:asserteq(kept:sum(), pool.output:nElement())
    tester:assertTensorEq(torch.cmul(y, kept), torch.cmul(x, kept), 0)
    -- The gradient reads the output gradient at the same positions.
    local g = rnd(y:size())
    local gi = unpool:backward(pool.output, g)
    local flat = g:view(-1, y:size(x:dim() - 1) * y:size(x:dim()))
    tester:assertTensorEq(gi:view(flat:size(1), -1), flat:gather(2, pool.indices:view(flat:size(1), -1)), 0)
  end
  -- clearState drops the unpooling's reference to the indices; the next forward takes them again.
  model:clearState()
  tester:asserteq(unpool.indices, nil)
  tester:asserteq(size(model:forward(rnd(1, 4, 6))), '1x4x6')
  tester:assert(unpool.indices == pool.indices)
  tester:asserteq(tostring(unpool), 'nn.SpatialMaxUnpooling associated to nn.TestMaxPooling(2x2, 2,2)')
end

function tests.unpoolingChecksTheRecordedSize()
  -- Odd sizes, padding: the recorded input size gives the output size.
  local pool = nn.TestMaxPooling(3, 2, 2, 2, 1, 0)
  local unpool = nn.SpatialMaxUnpooling(pool)
  local x = rnd(2, 7, 8)
  pool:forward(x)
  tester:asserteq(size(pool.output), '2x3x4')
  tester:asserteq(size(unpool:forward(pool.output)), '2x7x8')
  -- A size recorded for another input is refused (it would scramble the positions).
  pool:forward(rnd(2, 6, 8))
  pool.iheight = 9
  tester:assertErrorPattern(function() unpool:forward(pool.output) end,
    "last input was 9x8, which pools to 4x4, not to the input's 3x4")
  -- A pooling module whose forward ran before any unpooling was attached has no recorded size.
  local late = nn.TestLateMaxPooling(2, 2)
  late:forward(rnd(1, 4, 4))
  local u = nn.SpatialMaxUnpooling(late)
  tester:assertErrorPattern(function() u:forward(late.output) end, 'has not recorded the size of its last input')
  late:forward(rnd(1, 4, 4))
  tester:asserteq(size(u:forward(late.output)), '1x4x4')
  -- After a type conversion the pooling module must run again (its indices were converted).
  u:double()
  tester:assertErrorPattern(function() u:forward(late.output) end, 'not a LongTensor')
end

-- A checkpoint loaded in a fresh process: loading the unpooling makes the pooling class record.
function tests.unpoolingLoadedFromACheckpoint()
  local dir = os.getenv('TOCHA_TEST_TMP') or '/tmp'
  local path = string.format('%s/unpool_%d.t7', dir, math.random(1e9))
  local pool = nn.TestSavedMaxPooling(2, 2)
  local model = nn.Sequential():add(pool):add(nn.SpatialMaxUnpooling(pool))
  model:forward(rnd(1, 4, 6))
  torch.save(path, model)
  local lo = -1
  while arg[lo - 1] do lo = lo - 1 end
  local script = string.format([[require 'nn'
assert(loadstring(%q))('nn.TestSavedMaxPooling')
local m = torch.load(%q)
io.write(table.concat(m:forward(torch.randn(1, 5, 7)):size():totable(), 'x'))]], POOL_CLASS, path)
  local spath = path .. '.lua'
  local f = assert(io.open(spath, 'w'))
  f:write(script)
  f:close()
  local p = io.popen(string.format("'%s' '%s' 2>&1", arg[lo], spath))
  local out = p:read('*a')
  p:close()
  os.remove(path)
  os.remove(spath)
  tester:asserteq(out, '1x5x7')
end

function tests.unpoolingJacobianIOAndErrors()
  local pool = nn.TestMaxPooling(2, 2)
  local unpool = nn.SpatialMaxUnpooling(pool):double()
  for _, x in ipairs({ rnd(2, 3, 4, 6), rnd(2, 4, 6) }) do
    local p = pool:forward(x):clone()
    tester:assertlt(nn.Jacobian.testJacobian(unpool, p), precision, 'unpool ' .. size(x))
    tester:assertlt(nn.Jacobian.testIO(unpool, p), 1e-12, 'unpool save/load ' .. size(x))
  end
  pool:forward(rnd(2, 3, 4, 6))
  tester:assertErrorPattern(function() unpool:forward(rnd(2, 3, 2, 2)) end,
    "nn.SpatialMaxUnpooling associated to nn.TestMaxPooling%(2x2, 2,2%)%] the pooling module's last input was 4x6, "
      .. "which pools to 2x3, not to the input's 2x2")
  tester:assertErrorPattern(function() nn.SpatialMaxUnpooling(nn.Linear(2, 2)) end, 'expected a max pooling module')
  tester:assertErrorPattern(function() unpool:forward(rnd(4)) end,
    'expected a 3D or 4D %(N x C x H x W%) input, got size 4')
  -- Indices outside the output plane (corrupted indices).
  pool.indices[1][1][1][1] = 25
  tester:assertErrorPattern(function() unpool:forward(pool.output) end,
    '%[nn.SpatialMaxUnpooling associated to nn.TestMaxPooling%(2x2, 2,2%)%] index 25 .*out of range')
end

function tests.functionalUnpooling()
  local x = rnd(2, 3, 4, 6)
  local y, i = F.maxPool3d(x:view(2, 3, 1, 4, 6), { 1, 2, 2 })
  y, i = y:view(2, 3, 2, 3), i:view(2, 3, 2, 3)
  local u = F.maxUnpool2d(y, i, 2)
  tester:assertTensorEq(u:view(6, 24):gather(2, i:reshape(6, 6)), y:reshape(6, 6), 0)
  tester:asserteq(torch.ne(u, 0):sum(), 36)
  tester:assert(gc(function(t) return F.maxUnpool2d(t, i, { 2, 2 }, nil, nil, { 4, 6 }) end, { y:clone():requiresGrad() }))
  tester:assertErrorPattern(function() F.maxUnpool2d(y, i:double(), 4) end, 'indices must be a LongTensor')
end

function tests.errorsNameTheModule()
  local m = nn.SpatialAdaptiveMaxPooling(3, 2)
  tester:assertErrorPattern(function() m:forward(rnd(4, 4)) end,
    '%[nn.SpatialAdaptiveMaxPooling%(3x2%)%] expected a 3D or 4D %(N x C x H x W%) input, got size 4x4')
  tester:assertErrorPattern(function() nn.SpatialAdaptiveAveragePooling(2, 2):forward(rnd(3, 0, 4)) end,
    '%[nn.SpatialAdaptiveAveragePooling%(2x2%)%] input of size 3x0x4 has an empty plane')
  tester:assertErrorPattern(function() nn.SpatialAdaptiveAveragePooling(0, 2) end, 'positive output width and height')
  tester:assertErrorPattern(function() m:forward(torch.LongTensor(2, 4, 4)) end, 'floating%-point tensor')
  tester:assertErrorPattern(function() F.adaptiveAvgPool2d(rnd(2, 4, 4), { 2, 2, 2 }) end,
    '%[adaptiveAvgPool2d%] expected the output size as a number or a table of 2 numbers')
  local a = nn.SpatialAdaptiveAveragePooling(2, 3)
  a:forward(rnd(3, 5, 5))
  tester:assertErrorPattern(function() a:backward(rnd(3, 5, 5), rnd(3, 2, 3)) end,
    '%[nn.SpatialAdaptiveAveragePooling%(2x3%)%] gradOutput of size 3x2x3 does not match the output size 3x3x2')
  local s = nn.Sequential():add(nn.SpatialAdaptiveAveragePooling(2, 2))
  tester:assertErrorPattern(function() s:forward(rnd(5)) end, 'in module 1')
end

tester:add(tests)
tester:run()
