-- Gradchecks (central differences in f64) of the convolution and pooling ops through their torch
-- functions: conv1d/2d/3d with stride, padding, dilation and groups, the transposed convolutions,
-- convWeight, max and average pooling; second order (gradgradcheck) through each backward op.
require 'torch'
local D = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local gc, ggc = torch.autograd.gradcheck, torch.autograd.gradgradcheck

local function rnd(...) return torch.randn(...):double():requiresGrad() end
local function check(name, fn, inputs, second)
  local ok, err = pcall(gc, fn, inputs)
  tester:assert(ok and err, name .. ': ' .. tostring(err))
  if second then
    ok, err = pcall(ggc, fn, inputs)
    tester:assert(ok and err, name .. ' (second order): ' .. tostring(err))
  end
end

function tests.convolutions()
  torch.manualSeed(1)
  check('conv2d', function(x, w, b) return torch.conv2d(x, w, b, { 2, 1 }, { 1, 0 }, { 1, 2 }, 2) end,
    { rnd(2, 4, 6, 5), rnd(4, 2, 3, 2), rnd(4) }, true)
  check('conv2d one sample', function(x, w) return torch.conv2d(x, w, nil, 1, 1) end, { rnd(2, 4, 4), rnd(3, 2, 3, 3) })
  check('conv2d 1x1', function(x, w, b) return torch.conv2d(x, w, b) end, { rnd(2, 3, 3, 2), rnd(2, 3, 1, 1), rnd(2) })
  check('conv1d', function(x, w, b) return torch.conv1d(x, w, b, 2, 1) end, { rnd(2, 3, 7), rnd(2, 3, 3), rnd(2) })
  check('conv3d', function(x, w, b) return torch.conv3d(x, w, b, { 1, 2, 1 }, { 1, 0, 1 }) end,
    { rnd(1, 2, 3, 4, 3), rnd(2, 2, 2, 2, 2), rnd(2) })
  check('convTranspose2d', function(x, w, b) return torch.convTranspose2d(x, w, b, 2, 1, 1) end,
    { rnd(2, 2, 3, 3), rnd(2, 3, 3, 3), rnd(3) }, true)
  check('convTranspose2d groups dilation', function(x, w) return torch.convTranspose2d(x, w, nil, 1, 0, 0, 2, 2) end,
    { rnd(1, 4, 3, 3), rnd(4, 1, 2, 2) })
  check('convTranspose1d', function(x, w) return torch.convTranspose1d(x, w, nil, 3) end, { rnd(2, 2, 4), rnd(2, 2, 3) })
  check('convTranspose3d', function(x, w) return torch.convTranspose3d(x, w, nil, 2) end,
    { rnd(1, 2, 2, 2, 2), rnd(2, 1, 2, 2, 2) })
  check('convWeight', function(x, g) return torch.convWeight(x, { 3, 2, 3, 3 }, g, 1, 1) end,
    { rnd(2, 2, 4, 4), rnd(2, 3, 4, 4) }, true)
end

function tests.pooling()
  torch.manualSeed(2)
  -- distinct values keep the maxima away from ties (central differences would straddle them)
  local x = torch.randperm(2 * 3 * 7 * 6):double():view(2, 3, 7, 6):div(10):requiresGrad()
  check('maxPool2d', function(t) return (torch.maxPool2d(t, { 3, 2 }, 2, 1, true)) end, { x }, true)
  check('maxPool2d one sample', function(t) return (torch.maxPool2d(t, 2)) end, { x[1]:clone():requiresGrad() })
  check('avgPool2d', function(t) return torch.avgPool2d(t, 3, 2, 1) end, { rnd(2, 2, 6, 5) }, true)
  check('avgPool2d exclude pad ceil', function(t) return torch.avgPool2d(t, { 2, 3 }, 2, 1, true, false) end,
    { rnd(1, 2, 5, 6) }, true)
end

D.cpuOnly(tests, 'gradchecks of torch functions, no module calls to replay (test_cuda_nn_kernels.lua compares these ops on CUDA)',
  'convolutions', 'pooling')
tester:add(tests)
tester:run()
