-- nn transfer modules: forward against scalar references (and PyTorch numbers), nn.Jacobian in
-- f64 for vectors and batches, in-place flags against the out-of-place result, the autograd
-- path (module(x):sum():backward()), save/load, float(), clearState, printing and bad input.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local precision = 1e-6
local D = torch.DoubleTensor

local function sigmoid(x) return 1 / (1 + math.exp(-x)) end
local function softplus(x) return math.max(x, 0) + math.log(1 + math.exp(-math.abs(x))) end

-- name, constructor, scalar reference
local pointwise = {
  { 'ReLU', function() return nn.ReLU() end, function(x) return math.max(x, 0) end },
  { 'Threshold', function() return nn.Threshold(0.3, -1) end, function(x) return x > 0.3 and x or -1 end },
  { 'ReLU6', function() return nn.ReLU6() end, function(x) return math.min(math.max(x, 0), 6) end },
  { 'HardTanh', function() return nn.HardTanh(-0.5, 1.5) end, function(x) return math.min(math.max(x, -0.5), 1.5) end },
  { 'Clamp', function() return nn.Clamp(-0.3, 0.4) end, function(x) return math.min(math.max(x, -0.3), 0.4) end },
  { 'LeakyReLU', function() return nn.LeakyReLU(0.2) end, function(x) return x > 0 and x or 0.2 * x end },
  { 'ELU', function() return nn.ELU(0.7) end, function(x) return x > 0 and x or 0.7 * (math.exp(x) - 1) end },
  { 'SELU', function() return nn.SELU() end,
    function(x) return 1.0507009873554805 * (x > 0 and x or 1.6732632423543772 * (math.exp(x) - 1)) end },
  { 'SiLU', function() return nn.SiLU() end, function(x) return x * sigmoid(x) end },
  { 'Sigmoid', function() return nn.Sigmoid() end, sigmoid },
  { 'LogSigmoid', function() return nn.LogSigmoid() end, function(x) return -softplus(-x) end },
  { 'Tanh', function() return nn.Tanh() end, math.tanh },
  { 'TanhShrink', function() return nn.TanhShrink() end, function(x) return x - math.tanh(x) end },
  { 'HardShrink', function() return nn.HardShrink(0.6) end, function(x) return math.abs(x) > 0.6 and x or 0 end },
  { 'SoftShrink', function() return nn.SoftShrink(0.6) end,
    function(x) return x > 0.6 and x - 0.6 or (x < -0.6 and x + 0.6 or 0) end },
  { 'SoftPlus', function() return nn.SoftPlus(2, 1) end, function(x) return 2 * x > 1 and x or softplus(2 * x) / 2 end },
  { 'SoftSign', function() return nn.SoftSign() end, function(x) return x / (1 + math.abs(x)) end },
  { 'RReLU', function() return nn.RReLU(0.1, 0.3):evaluate() end, function(x) return x > 0 and x or 0.2 * x end },
  { 'PReLU', function() return nn.PReLU() end, function(x) return x > 0 and x or 0.25 * x end },
  { 'GELU', function() return nn.GELU() end, nil },
}
-- evaluate() returns nothing in Torch7; the RReLU constructor above needs the module back.
local evaluate = nn.Module.evaluate
function nn.RReLU:evaluate() evaluate(self) return self end

local function rand(...)
  return torch.rand(...):double():mul(6):add(-3)
end

function tests.pointwiseForwardMatchesReference()
  torch.manualSeed(1)
  local x = rand(3, 5)
  for _, case in ipairs(pointwise) do
    local name, make, ref = case[1], case[2], case[3]
    if ref then
      local y = make():double():forward(x)
      tester:assert(y:isSameSizeAs(x), name .. ' size')
      for i = 1, 3 do
        for j = 1, 5 do tester:assertalmosteq(y[i][j], ref(x[i][j]), 1e-12, name) end
      end
    end
  end
end

-- Generated with: /usr/bin/python3 -c "import torch; x=torch.tensor([-2.5,-1.0,-0.3,0.0,0.4,1.0,2.2],
--   dtype=torch.float64); print(F.gelu(x), F.selu(x), F.logsigmoid(x), F.softplus(x,2,1))"
function tests.matchesPyTorch()
  local x = D({ -2.5, -1.0, -0.3, 0.0, 0.4, 1.0, 2.2 })
  local expect = {
    GELU = { -0.015524163314440398, -0.15865525393145702, -0.1146265733433142, 0.0, 0.2621686966441297,
             0.841344746068543, 2.1694124154703034 },
    SELU = { -1.6137857588732423, -1.1113307378125625, -0.45566731537912203, 0.0, 0.4202803949421922,
             1.0507009873554805, 2.3115421721820573 },
    LogSigmoid = { -2.5788897342925496, -1.3132616875182228, -0.8543552444685272, -0.6931471805599453,
                   -0.5130152523999526, -0.31326168751822286, -0.1050833197686959 },
  }
  for name, values in pairs(expect) do
    tester:assertTensorEq(nn[name]():double():forward(x), D(values), 1e-12, name)
  end
  tester:assertTensorEq(nn.SoftPlus(2, 1):double():forward(x), D({ 0.003357674244559034, 0.06346400552148625,
    0.2187439752429428, 0.34657359027997264, 0.5855503329738889, 1.0, 2.2 }), 1e-12, 'SoftPlus')
  -- LogSigmoid stays finite where exp overflows
  tester:assertTensorEq(nn.LogSigmoid():double():forward(D({ -800, 800 })), D({ -800, 0 }), 1e-12)
end

function tests.pointwiseJacobians()
  for _, case in ipairs(pointwise) do
    local name, make = case[1], case[2]
    for _, x in ipairs({ D(4), D(3, 4), D(2, 3, 2) }) do
      local m = make():double()
      tester:assertlt(nn.Jacobian.testJacobian(m, x), precision, name .. ' ' .. x:dim() .. 'D')
    end
    tester:assertlt(nn.Jacobian.testIO(make():double(), rand(3, 4)), 1e-12, name .. ' save/load')
  end
end

function tests.inPlaceMatchesOutOfPlace()
  local cases = {
    { nn.ReLU(), nn.ReLU(true) }, { nn.Threshold(0.3, -1), nn.Threshold(0.3, -1, true) },
    { nn.ReLU6(), nn.ReLU6(true) }, { nn.HardTanh(-0.5, 1.5), nn.HardTanh(-0.5, 1.5, true) },
    { nn.LeakyReLU(0.2), nn.LeakyReLU(0.2, true) }, { nn.ELU(0.7), nn.ELU(0.7, true) },
    { nn.SELU(), nn.SELU(true) }, { nn.RReLU(0.1, 0.3):evaluate(), nn.RReLU(0.1, 0.3, true):evaluate() },
  }
  torch.manualSeed(2)
  for _, c in ipairs(cases) do
    local a, b = c[1]:double(), c[2]:double()
    local x, go = rand(4, 3), rand(4, 3)
    local ya = a:forward(x):clone()
    local ga = a:backward(x, go):clone()
    local xb, gob = x:clone(), go:clone()
    local yb = b:forward(xb)
    tester:assertTensorEq(yb, ya, 1e-12, tostring(b) .. ' output')
    tester:assert(torch.pointer(yb:storage()) == torch.pointer(xb:storage()), tostring(b) .. ' writes its input')
    tester:assertTensorEq(b:backward(xb, gob), ga, 1e-12, tostring(b) .. ' gradInput')
  end
  tester:assert(nn.LeakyReLU(true).inplace and nn.LeakyReLU(true).negval == 0.01)
end

function tests.autogradPathMatchesBackward()
  torch.manualSeed(3)
  for _, case in ipairs(pointwise) do
    local m = case[2]():double()
    local x = rand(3, 4)
    local go = rand(3, 4)
    m:forward(x)
    local gi = m:backward(x, go):clone()
    local xr = x:clone():requiresGrad()
    local y = m(xr)
    torch.cmul(y, go):sum():backward()
    tester:assertTensorEq(xr.grad, gi, 1e-12, case[1])
  end
end

function tests.prelu()
  local m = nn.PReLU(3):double()
  tester:asserteq(m.weight:nElement(), 3)
  m.weight:copy(D({ 0.1, 0.2, 0.3 }))
  local x = rand(2, 3, 2, 2)
  local y = m:forward(x)
  for n = 1, 2 do for c = 1, 3 do for h = 1, 2 do for w = 1, 2 do
    local v = x[n][c][h][w]
    tester:assertalmosteq(y[n][c][h][w], v > 0 and v or m.weight[c] * v, 1e-12)
  end end end end
  for _, shape in ipairs({ { 3 }, { 4, 3 }, { 2, 3, 5 }, { 2, 3, 2, 2 } }) do
    local x2 = D(unpack(shape))
    for _, mod in ipairs({ nn.PReLU(3):double(), nn.PReLU():double() }) do
      tester:assertlt(nn.Jacobian.testJacobian(mod, x2), precision, 'input ' .. #shape .. 'D')
      tester:assertlt(nn.Jacobian.testJacobianParameters(mod, x2, mod.weight, mod.gradWeight), precision,
        'slope ' .. #shape .. 'D')
    end
  end
  tester:assertErrorPattern(function() nn.PReLU(4):forward(torch.rand(2, 3)) end,
    'nn.PReLU%] expected 4 input planes in dim 2, got torch.FloatTensor of size 2x3')
  -- autograd reaches the slope
  local p = nn.PReLU(3):double()
  local xr = rand(4, 3)
  p(xr):sum():backward()
  local ref = torch.cmin(xr, 0):sum(1):view(3)
  tester:assertTensorEq(p.gradWeight, ref, 1e-12)
  tester:assertTensorEq(p.weight.grad, ref, 1e-12)
end

function tests.rreluTrainingDrawsSlopes()
  torch.manualSeed(4)
  local m = nn.RReLU(0.1, 0.3):double()
  local x = rand(50, 20)
  local y = m:forward(x)
  local r = torch.cdiv(y, x)
  local neg = torch.le(x, 0)
  tester:assert(r[neg]:min() >= 0.1 and r[neg]:max() <= 0.3, 'slopes in [l, u]')
  tester:assert(r[neg]:std() > 0.02, 'slopes vary')
  tester:assertTensorEq(r[torch.gt(x, 0)], D(torch.gt(x, 0):sum()):fill(1), 1e-12)
  local go = rand(50, 20)
  tester:assertTensorEq(m:backward(x, go), torch.cmul(go, m.noise), 1e-12)
  -- channel-wise: one slope per channel
  local cw = nn.RReLU(0.1, 0.3, false, true):double()
  local xc = rand(2, 4, 3, 3):abs():mul(-1)
  local s = torch.cdiv(cw:forward(xc), xc)
  for c = 1, 4 do
    local plane = s:select(2, c)
    tester:assertalmosteq(plane:max(), plane:min(), 1e-12, 'one slope per channel')
  end
  tester:asserteq(tostring(nn.RReLU()), 'nn.RReLU (l:0.125000, u:0.333333, channel-wise:false)')
end

-- Softmax over dim d of a tensor, by loops over every other index.
local function naive_softmax(x, d, sign, log)
  local y = x:clone()
  local n = x:size(d)
  local other = x:transpose(d, x:dim()):contiguous()
  local rows = other:view(-1, n)
  local out = rows:clone()
  for r = 1, rows:size(1) do
    local m, s = -math.huge, 0
    for j = 1, n do m = math.max(m, sign * rows[r][j]) end
    for j = 1, n do s = s + math.exp(sign * rows[r][j] - m) end
    for j = 1, n do
      local v = sign * rows[r][j] - m - math.log(s)
      out[r][j] = log and v or math.exp(v)
    end
  end
  y:copy(out:view(other:size()):transpose(d, x:dim()))
  return y
end

function tests.softmaxFamily()
  torch.manualSeed(5)
  local cases = {
    { nn.SoftMax, 1, false }, { nn.SoftMin, -1, false }, { nn.LogSoftMax, 1, true }, { nn.SpatialSoftMax, 1, false },
  }
  for _, c in ipairs(cases) do
    local cls, sign, log = c[1], c[2], c[3]
    for _, shape in ipairs({ { 5 }, { 3, 5 }, { 4, 2, 3 }, { 2, 4, 2, 3 } }) do
      local x = rand(unpack(shape))
      local d = (#shape == 1 or #shape == 3) and 1 or 2
      local m = cls():double()
      tester:assertTensorEq(m:forward(x), naive_softmax(x, d, sign, log), 1e-12, tostring(m) .. ' ' .. #shape .. 'D')
      tester:assertlt(nn.Jacobian.testJacobian(cls():double(), D(unpack(shape))), precision, tostring(m) .. ' jacobian')
    end
    tester:assertErrorPattern(function() cls():forward(torch.rand(2, 2, 2, 2, 2)) end,
      'expected a vector, a batch %(N x C%), C x H x W or N x C x H x W, got torch.FloatTensor of size 2x2x2x2x2')
  end
  tester:assertTensorEq(nn.LogSoftMax():double():forward(D({ 1000, 0 })), D({ 0, -1000 }), 1e-9)
end

function tests.gatedLinearUnit()
  torch.manualSeed(6)
  local x = rand(3, 4)
  local y = nn.GatedLinearUnit():double():forward(x)
  for i = 1, 3 do
    for j = 1, 2 do tester:assertalmosteq(y[i][j], x[i][j] * sigmoid(x[i][j + 2]), 1e-12) end
  end
  local y1 = nn.GatedLinearUnit(1):double():forward(rand(4, 3))
  tester:asserteq(y1:size(1), 2)
  for _, m in ipairs({ nn.GatedLinearUnit(), nn.GatedLinearUnit(1), nn.GatedLinearUnit(2) }) do
    tester:assertlt(nn.Jacobian.testJacobian(m:double(), D(4, 6)), precision)
  end
  tester:assertErrorPattern(function() nn.GatedLinearUnit():forward(torch.rand(2, 3)) end,
    'nn.GatedLinearUnit%] dim 2 must exist and have an even size, got torch.FloatTensor of size 2x3')
end

function tests.typesStateAndPrinting()
  for _, case in ipairs(pointwise) do
    local m = case[2]()
    local y = m:float():forward(torch.rand(3, 4):float())
    tester:asserteq(torch.type(y), 'torch.FloatTensor', case[1])
    m:backward(torch.rand(3, 4):float(), torch.rand(3, 4):float())
    m:clearState()
    tester:asserteq(m.output:nElement(), 0, case[1] .. ' clearState')
    local md = m:double()
    tester:asserteq(torch.type(md:forward(torch.rand(3, 4):double())), 'torch.DoubleTensor', case[1])
    md:backward(torch.rand(3, 4):double(), torch.rand(3, 4):double())
  end
  local names = {
    [nn.LeakyReLU(0.2)] = 'nn.LeakyReLU(0.2)', [nn.ELU(0.5)] = 'nn.ELU (alpha:0.500000)', [nn.ReLU6()] = 'nn.ReLU6',
    [nn.HardTanh()] = 'nn.HardTanh', [nn.Clamp(0, 1)] = 'nn.Clamp', [nn.PReLU(3)] = 'nn.PReLU',
    [nn.Threshold(0.5, 0)] = 'nn.Threshold(0.5, 0)', [nn.SoftMax()] = 'nn.SoftMax', [nn.GELU()] = 'nn.GELU',
  }
  for m, s in pairs(names) do tester:asserteq(tostring(m), s) end
end

function tests.badInputNamesTheModule()
  local long = torch.LongTensor(2, 3):zero()
  tester:assertErrorPattern(function() nn.Tanh():forward(long) end,
    '%[nn.Tanh%] expected a floating%-point tensor, got torch.LongTensor of size 2x3')
  tester:assertErrorPattern(function() nn.ELU(0.5):forward('x') end, '%[nn.ELU %(alpha:0.500000%)%] expected')
  tester:assertErrorPattern(function() nn.HardTanh(1, 0) end, 'max_value must be a number larger than min_value')
  tester:assertErrorPattern(function() nn.RReLU(0.5, 0.1) end, 'expected 0 <= l <= u')
  tester:assertErrorPattern(function() nn.Threshold(0, 1, true) end, 'in%-place needs val')
  tester:assertErrorPattern(function() nn.SoftPlus(-1) end, 'beta > 0')
  local m = nn.Sequential():add(nn.Linear(3, 2)):add(nn.SoftMax())
  tester:assertErrorPattern(function() m:forward(torch.rand(2, 2, 2, 2, 4)) end, 'nn.Linear')
end

tester:add(tests)
tester:run()
