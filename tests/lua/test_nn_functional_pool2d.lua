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

-- nn.functional.maxUnpool2d takes PyTorch's (x, indices, kernelSize [, stride, padding, outputSize])
-- (Note [maxUnpool2d's arguments]; it read the 3rd argument as the output size before). PyTorch
-- 1.13: y, i = max_pool2d(X(1x2x3x5), (2, 3), (1, 2), (1, 1), return_indices=True), then
-- max_unpool2d(y, i, (2, 3), (1, 2), (1, 1) [, (3, 6)]), and max_unpool2d of max_pool2d(X, 2) with 2.
function tests.maxUnpool2dTakesPyTorchsArguments()
  local x = X({ 1, 2, 3, 5 })
  local y, i = F.maxPool2d(x, { 2, 3 }, { 1, 2 }, { 1, 1 }, 1, false, true)
  tester:assertTableEq(i:view(-1):totable(), { 2, 4, 4, 6, 4, 4, 6, 7, 9, 11, 14, 15, 2, 4, 5, 6, 7, 5, 6, 7, 9, 11, 12, 14 })
  local U = { 0.0, 1.34857582325629, 0.0, 1.99176168907528, 0.0, 1.5931309444721735, 1.0480886833745522, 0.0,
    -0.37458932708580633, 0.0, -1.6013335643516353, 0.0, 0.0, -1.7852953588564693, -1.338479714552524, 0.0,
    0.013629280149540351, 0.0, 1.3586093042896297, 1.7974161916232538, 1.992951229481201, 1.9187496677857283, 0.0,
    1.0364564118419535, 0.0, -0.38796872250779446, -1.0712066692285827, 0.0, -1.9298838610143745, 0.0 }
  local U6 = { 0.0, 1.34857582325629, 0.0, 1.99176168907528, 0.0, 1.5931309444721735, 1.0480886833745522, 0.0,
    -0.37458932708580633, 0.0, -1.6013335643516353, 0.0, 0.0, -1.7852953588564693, -1.338479714552524, 0.0, 0.0, 0.0,
    0.0, 0.013629280149540351, 0.0, 1.3586093042896297, 1.7974161916232538, 1.992951229481201, 1.9187496677857283,
    0.0, 1.0364564118419535, 0.0, -0.38796872250779446, -1.0712066692285827, 0.0, -1.9298838610143745, 0.0, 0.0, 0.0, 0.0 }
  local u = F.maxUnpool2d(y, i, { 2, 3 }, { 1, 2 }, { 1, 1 })
  tester:assertTableEq(u:size():totable(), { 1, 2, 3, 5 }, 'default output size')
  tester:assertTensorEq(u:view(-1), torch.DoubleTensor(U), 1e-15, 'unpooled values')
  for _, o in ipairs({ { 3, 6 }, { 1, 2, 3, 6 } }) do
    u = F.maxUnpool2d(y, i, { 2, 3 }, { 1, 2 }, { 1, 1 }, o)
    tester:assertTableEq(u:size():totable(), { 1, 2, 3, 6 }, 'outputSize')
    tester:assertTensorEq(u:view(-1), torch.DoubleTensor(U6), 1e-15, 'unpooled values with outputSize')
  end
  -- 3 arguments: the kernel size (stride = kernel), as PyTorch: 2x4 planes here, not 3x5
  local y2, i2 = F.maxPool2d(x, 2, nil, 0, 1, false, true)
  u = F.maxUnpool2d(y2, i2, 2)
  tester:assertTableEq(u:size():totable(), { 1, 2, 2, 4 }, '3 arguments: kernelSize')
  tester:assertTensorEq(u:view(-1), torch.DoubleTensor({ 0.0, 0.0, 0.0, 1.99176168907528, 0.0, 1.5931309444721735,
    0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.992951229481201, 0.0, 1.5848543398170567 }), 1e-15, '3 arguments: values')
  tester:assertTableEq(F.maxUnpool2d(y2[1], i2[1], 2, 2, 0, { 3, 5 }):size():totable(), { 2, 3, 5 }, 'unbatched')
  -- (non-overlapping windows: a repeated index keeps one of its values, as in PyTorch)
  gradcheck(function(t) return F.maxUnpool2d(t, i2, 2, 2, 0, { 3, 5 }) end, { y2:clone():requiresGrad() },
    'maxUnpool2d gradient')
  -- PyTorch's outputSize range: strictly within one stride of the default; indices within a plane
  tester:assertErrorPattern(function() F.maxUnpool2d(y, i, { 2, 3 }, { 1, 2 }, { 1, 1 }, { 4, 6 }) end,
    '%[maxUnpool2d%] invalid output size 4 in dim 1 %(must be between 2 and 4, exclusive%)')
  tester:assertErrorPattern(function() F.maxUnpool2d(y, i:clone():fill(40), { 2, 3 }, { 1, 2 }, { 1, 1 }) end,
    '%[maxUnpool2d%] indices span %[40, 40%], outside the 15 positions')
end

-- nn.functional.adaptiveMaxPool2d / adaptiveAvgPool2d: a nil or false entry of the output size keeps
-- that input size (PyTorch's None; it was an error). PyTorch 1.13: adaptive_max_pool2d(X(1x2x5x6),
-- (None, 2), return_indices=True) and adaptive_avg_pool2d(X(1x2x5x6), (3, None)).
function tests.adaptivePool2dNoneSizes()
  local x = X({ 1, 2, 5, 6 })
  local MX = { 1.7913973713600952, 1.99176168907528, 1.0480886833745522, -1.0596722818169868, -1.338479714552524,
    0.7359210211447693, 1.992951229481201, 1.9187496677857283, 0.3477789707608671, -1.6094618185269343,
    -0.6977503801721234, 1.3685796916991022, 1.9940482175140004, 1.5765041347506326, -0.40133010071720504,
    -1.77284289448448, 0.0408853087106494, 1.8092031412519374, 1.9950526022297086, 1.0130480125457137 }
  local MI = { 3, 4, 7, 10, 15, 18, 21, 22, 25, 28, 3, 6, 8, 10, 13, 18, 21, 24, 25, 28 }
  local AV = { 0.885659773652238, 0.8548841795223779, 0.7084040221371445, 0.46604470362914663, 0.16060842079948223,
    -0.1665654583372297, 0.13873944537528557, 0.12443778951841677, 0.09329406261429025, 0.049523421997552074,
    -0.0009499814616794241, -0.0512948093866367, 0.8531941375252484, 0.7047237345577297, 0.4608722801263092,
    0.15464392462939702, -0.1725147605986589, -0.47632438228301244, 0.012120551321905149, 0.33286338523690506,
    0.6085547214928194, 0.8018810310539357, 0.8866765048558718, 0.851464473313088, 0.02797331564926016,
    0.07546522354025109, 0.11274326744843811, 0.13476203901005182, 0.13854140078896218, 0.12356983389817706,
    0.33847555488095604, 0.612959907885655, 0.8044830128829479, 0.8871231160869492, 0.849695267211257, 0.69726515001921 }
  for _, o in ipairs({ { false, 2 }, { nil, 2 } }) do
    local y, i = F.adaptiveMaxPool2d(x, o)
    tester:assertTableEq(y:size():totable(), { 1, 2, 5, 2 }, 'adaptiveMaxPool2d keeps H')
    tester:assertTensorEq(y:view(-1), torch.DoubleTensor(MX), 1e-15, 'adaptiveMaxPool2d values')
    tester:assertTableEq(i:view(-1):totable(), MI, 'adaptiveMaxPool2d indices')
  end
  local y = F.adaptiveAvgPool2d(x, { 3, false })
  tester:assertTableEq(y:size():totable(), { 1, 2, 3, 6 }, 'adaptiveAvgPool2d keeps W')
  tester:assertTensorEq(y:view(-1), torch.DoubleTensor(AV), 1e-15, 'adaptiveAvgPool2d values')
  tester:assertTensorEq(F.adaptiveAvgPool2d(x[1], { false, false }), x[1], 1e-15, 'both kept, unbatched')
  tester:assertTensorEq(F.adaptiveMaxPool2dWithIndices(x, { false, 2 }), torch.DoubleTensor(MX):view(1, 2, 5, 2), 1e-15,
    'adaptiveMaxPool2dWithIndices')
  tester:assertErrorPattern(function() F.adaptiveAvgPool2d(x, { false, 2, 3 }) end,
    '%[adaptiveAvgPool2d%] expected the output size as {h, w}')
  tester:assertErrorPattern(function() F.adaptiveMaxPool2d(torch.randn(4):double(), { false, 2 }) end,
    '%[adaptiveMaxPool2d%] expected a 3D or 4D')
end

tester:add(tests)
tester:run()
