-- nn.Dropout and the feature-map dropouts (Spatial/Volumetric/TemporalDropout): fraction
-- dropped, inverted and Torch7 v1 scaling, determinism under torch.manualSeed, the evaluation
-- identity, stochastic inference, in-place mode, backward with the forward's mask (Torch7 and
-- autograd), whole maps dropped together, printing and errors.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()

function tests.fractionDroppedAndInvertedScaling()
  torch.manualSeed(1)
  for _, p in ipairs({ 0.1, 0.3, 0.5, 0.8 }) do
    local d = nn.Dropout(p)
    local x = torch.ones(200000)
    local y = d:forward(x)
    local dropped = y:eq(0):sum() / x:nElement()
    tester:assertalmosteq(dropped, p, 0.01, 'fraction dropped for p = ' .. p)
    local kept = y:maskedSelect(y:ne(0))
    tester:assertalmosteq(kept:min(), 1 / (1 - p), 1e-6)
    tester:assertalmosteq(kept:max(), 1 / (1 - p), 1e-6)
    tester:assertalmosteq(y:mean(), 1, 0.02, 'the expectation is kept')
  end
end

function tests.seedDeterminism()
  local d = nn.Dropout(0.5)
  local x = torch.randn(50, 40)
  torch.manualSeed(123)
  local a = d:forward(x):clone()
  torch.manualSeed(123)
  local b = d:forward(x):clone()
  tester:assertTensorEq(a, b, 0)
  local c = d:forward(x):clone()
  tester:assert(torch.ne(a, c):sum() > 0, 'a new draw gives a new mask')
end

function tests.evaluationIsTheIdentity()
  local d = nn.Dropout(0.4)
  local x = torch.randn(7, 9)
  d:evaluate()
  tester:assertTensorEq(d:forward(x), x, 0)
  tester:assertTensorEq(d:backward(x, x * 2), x * 2, 0)
  d:training()
  tester:assert(d:forward(x):eq(0):sum() > 0)
  -- p = 0 is the identity in both modes.
  tester:assertTensorEq(nn.Dropout(0):forward(x), x, 0)
end

function tests.torch7V1Scaling()
  torch.manualSeed(2)
  local d = nn.Dropout(0.25, true)
  local x = torch.ones(10000)
  local y = d:forward(x)
  tester:assertTensorEq(y:maskedSelect(y:ne(0)), torch.ones(y:ne(0):sum()), 0)  -- not scaled in training
  d:evaluate()
  tester:assertTensorEq(d:forward(x), x * 0.75, 1e-7)
  tester:assertTensorEq(d:backward(x, x), x * 0.75, 1e-7)
end

function tests.backwardUsesTheForwardMask()
  torch.manualSeed(3)
  local d = nn.Dropout(0.5):double()
  local x = torch.randn(6, 5):double()
  local y = d:forward(x):clone()
  local mask = d.noise:clone()
  local g = torch.randn(6, 5):double()
  tester:assertTensorEq(d:backward(x, g), torch.cmul(g, mask), 0)
  tester:assertTensorEq(y, torch.cmul(x, mask), 0)
  -- The same through autograd.
  local xr = x:clone():requiresGrad()
  local out = d:forward(xr)
  torch.sum(torch.cmul(out, g)):backward()
  tester:assertTensorEq(xr.grad, torch.cmul(g, d.noise), 0)
  tester:assertTensorEq(out:detach(), torch.cmul(x, d.noise), 0)
end

function tests.inPlaceAndStochasticInference()
  torch.manualSeed(4)
  local d = nn.Dropout(0.5, false, true)
  local x = torch.ones(100)
  local y = d:forward(x)
  tester:asserteq(torch.pointer(y:storage()), torch.pointer(x:storage()))
  tester:assert(x:eq(0):sum() > 0, 'the input was overwritten')
  local g = torch.ones(100)
  local gi = d:backward(x, g)
  tester:asserteq(torch.pointer(gi:storage()), torch.pointer(g:storage()))
  tester:assertTensorEq(gi, d.noise, 0)
  local s = nn.Dropout(0.5, false, false, true)
  s:evaluate()
  tester:assert(s:forward(torch.ones(1000)):eq(0):sum() > 0, 'stochastic inference still drops')
end

function tests.featureMapsDropTogether()
  torch.manualSeed(5)
  local cases = {
    { nn.SpatialDropout(0.5), { 20, 30, 4, 5 }, 2 }, { nn.SpatialDropout(0.5), { 30, 4, 5 }, 1 },
    { nn.VolumetricDropout(0.5), { 10, 30, 2, 3, 2 }, 2 }, { nn.VolumetricDropout(0.5), { 30, 2, 3, 2 }, 1 },
    { nn.TemporalDropout(0.5), { 20, 30, 6 }, 2 }, { nn.TemporalDropout(0.5), { 30, 6 }, 1 },
  }
  for i, case in ipairs(cases) do
    local d, shape, cdim = case[1], case[2], case[3]
    local x = torch.rand(unpack(shape)):add(0.5)
    local y = d:forward(x)
    local maps = y:view(x:nElement() / x:stride(cdim), -1)
    local zero_maps, mixed = 0, 0
    for m = 1, maps:size(1) do
      local z = maps[m]:eq(0):sum()
      if z == maps:size(2) then zero_maps = zero_maps + 1 elseif z > 0 then mixed = mixed + 1 end
    end
    tester:asserteq(mixed, 0, 'case ' .. i .. ': maps are dropped whole')
    tester:assertalmosteq(zero_maps / maps:size(1), 0.5, 0.2, 'case ' .. i)
    tester:assertTensorEq(y:maskedSelect(y:ne(0)), x:maskedSelect(y:ne(0)), 0)  -- Torch7: no scaling in training
    local g = torch.ones(unpack(shape))
    tester:assertTensorEq(d:backward(x, g), y:ne(0):float(), 0)
  end
  local d = nn.SpatialDropout(0.3)
  d:evaluate()
  local x = torch.randn(2, 3, 4, 4)
  tester:assertTensorEq(d:forward(x), x * 0.7, 1e-6)  -- Torch7 scales in evaluation
  local inv = nn.SpatialDropout(0.3, false, true)
  local y = inv:forward(torch.ones(50, 40, 2, 2))
  tester:assertalmosteq(y:max(), 1 / 0.7, 1e-6)
  inv:evaluate()
  tester:assertTensorEq(inv:forward(x), x, 0)
end

function tests.autogradThroughFeatureDropout()
  torch.manualSeed(6)
  local d = nn.SpatialDropout(0.5):double()
  local x = torch.rand(3, 4, 2, 2):double():requiresGrad()
  local y = d:forward(x)
  y:sum():backward()
  tester:assertTensorEq(x.grad, d.noise:expandAs(x), 0)
end

function tests.typesClearStateAndSaveLoad()
  local d = nn.Dropout(0.2):double()
  local x = torch.randn(4, 3):double()
  tester:asserteq(torch.type(d:forward(x)), 'torch.DoubleTensor')
  d:float()
  tester:asserteq(torch.type(d:forward(x:float())), 'torch.FloatTensor')
  d:clearState()
  tester:asserteq(d.noise:nElement(), 0)
  d:evaluate()
  tester:assertlt(nn.Jacobian.testIO(d:double(), x), 1e-15)
  local s = nn.SpatialDropout(0.2)
  s:evaluate()
  tester:assertlt(nn.Jacobian.testIO(s, torch.randn(2, 3, 2, 2)), 1e-6)
  tester:assertlt(nn.Jacobian.testJacobian(s:double(), torch.DoubleTensor(2, 3, 2, 2)), 1e-7)
end

function tests.printingAndErrors()
  tester:asserteq(tostring(nn.Dropout()), 'nn.Dropout(0.5, busy)')
  tester:asserteq(tostring(nn.Dropout(0.25)), 'nn.Dropout(0.25, busy)')
  tester:asserteq(tostring(nn.SpatialDropout(0.2)), 'nn.SpatialDropout(0.2)')
  tester:asserteq(tostring(nn.VolumetricDropout()), 'nn.VolumetricDropout(0.5)')
  tester:assertErrorPattern(function() nn.Dropout(1) end, 'illegal percentage, must be 0 <= p < 1, got 1')
  tester:assertErrorPattern(function() nn.SpatialDropout(-0.1) end, 'illegal percentage')
  tester:assertErrorPattern(function() nn.Dropout(0.5):forward(torch.LongTensor(3)) end,
    '%[nn.Dropout%(0.5, busy%)%] expected a floating%-point input, got torch.LongTensor')
  tester:assertErrorPattern(function() nn.SpatialDropout(0.5):forward(torch.randn(2, 3)) end,
    '%[nn.SpatialDropout%(0.5%)%] expected a floating%-point input of 4D %(N x C x ...%) or 3D %(C x ...%), got '
      .. 'torch.FloatTensor of size 2x3')
  tester:assertErrorPattern(function() nn.VolumetricDropout(0.5):forward(torch.randn(2, 3, 4)) end, 'of 5D')
end

tester:add(tests)
tester:run()
