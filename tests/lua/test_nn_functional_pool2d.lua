-- nn.functional.maxPool2d in PyTorch's argument order (kernel, stride, padding, dilation, ceilMode,
-- returnIndices): the dilated case against PyTorch 1.13, the plain one against torch.maxPool2d
-- (Torch7's order), one result unless returnIndices, gradcheck, and the error a Torch7-order call
-- (ceilMode 5th) gets.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local F = nn.functional

local function gradcheck(f, inputs, what)
  local ok, err = pcall(torch.autograd.gradcheck, f, inputs)
  tester:assert(ok and err == true, (what or '') .. ': ' .. tostring(err))
end
local function rq(...) return torch.randn(...):double():requiresGrad() end
-- 2 sin(0.37 i), i = 1..n, viewed to the size (the reference script's input).
local function X(size)
  local n = 1
  for _, d in ipairs(size) do n = n * d end
  return torch.range(1, n):double():mul(0.37):sin():mul(2):view(torch.LongStorage(size))
end

-- nn.functional.maxPool2d takes PyTorch's order (dilation 5th, then ceilMode, returnIndices); the
-- dilated case runs nn.SpatialDilatedMaxPooling. PyTorch 1.13: max_pool2d(X(2x3x7x6), (3, 2),
-- (2, 1), (1, 1), (2, 2), ceil_mode=True, return_indices=True) gives 2x3x3x6 values summing to
-- 159.20195256324575, sum(y_i cos(i - 1)) = 3.733256833935539, 1-based indices summing to 2432.
function tests.maxPool2dFollowsPyTorch()
  local x = X({ 2, 3, 7, 6 })
  local y, idx = F.maxPool2d(x, { 3, 2 }, { 2, 1 }, { 1, 1 }, { 2, 2 }, true, true)
  tester:assertTableEq(y:size():totable(), { 2, 3, 3, 6 })
  tester:assertalmosteq(y:sum(), 159.20195256324575, 1e-11)
  local w = torch.range(0, y:nElement() - 1):double():cos():viewAs(y)
  tester:assertalmosteq(torch.cmul(y, w):sum(), 3.733256833935539, 1e-11)
  tester:asserteq(idx:sum(), 2432)
  -- without dilation: torch.maxPool2d's values and indices; one result unless returnIndices
  local a, ai = F.maxPool2d(x, 3, 2, 1, 1, true, true)
  local b, bi = torch.maxPool2d(x, 3, 2, 1, true)
  tester:assertTensorEq(a, b, 0)
  tester:assertTensorEq(ai, bi, 0)
  tester:asserteq(select('#', F.maxPool2d(x, 2)), 1)
  gradcheck(function(t) return F.maxPool2d(t, 3, 1, 1, 2) end, { rq(1, 2, 7, 7) }, 'dilated maxPool2d')
  tester:assertErrorPattern(function() F.maxPool2d(x, 2, 2, 0, true) end,
    '%[nn.functional.maxPool2d%] dilation must be an integer')
end

tester:add(tests)
tester:run()
