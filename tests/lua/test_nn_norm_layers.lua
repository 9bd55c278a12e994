-- LayerNormalization, GroupNormalization, WeightNorm, L1Penalty and GradientReversal: forward
-- against naive f64 references and PyTorch's numbers, nn.Jacobian checks in f64, Torch7-style
-- backward == autograd, save/load, type conversion, printing and errors.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local precision = 1e-7
local D = torch.DoubleTensor

-- x viewed as rows of `k` values, each normalized with its biased variance.
local function naive_rows(x, k, eps)
  local rows = x:contiguous():view(-1, k)
  local y = rows:clone()
  for r = 1, rows:size(1) do
    local m, v = 0, 0
    for i = 1, k do m = m + rows[r][i] end
    m = m / k
    for i = 1, k do v = v + (rows[r][i] - m) ^ 2 end
    v = v / k
    for i = 1, k do y[r][i] = (rows[r][i] - m) / math.sqrt(v + eps) end
  end
  return y:viewAs(x)
end

-- torch.range(0, 23):view(2, 4, 3):sin() * 2 + 0.5, the input of the PyTorch numbers below.
local function pt_input() return torch.range(0, 23):double():view(2, 4, 3):sin():mul(2):add(0.5) end

function tests.layerNormalization()
  local ln = nn.LayerNormalization(3):double()
  local x = torch.randn(4, 5, 3):double():mul(3):add(1)
  tester:assertTensorEq(ln:forward(x), naive_rows(x, 3, 1e-5), 1e-12)
  ln.weight:copy(D({ 0.5, 2, -1 }))
  ln.bias:copy(D({ 0, 1, 2 }))
  local want = naive_rows(x, 3, 1e-5):cmul(ln.weight:view(1, 1, 3):expandAs(x)):add(ln.bias:view(1, 1, 3):expandAs(x))
  tester:assertTensorEq(ln:forward(x), want, 1e-12)
  -- PyTorch 1.13: torch.nn.LayerNorm([4, 3]).double()(x)[1] for x = pt_input()
  local ln2 = nn.LayerNormalization({ 4, 3 }):double()
  tester:assertTensorEq(ln2:forward(pt_input())[2], D({
    { -0.8484135602189075, 0.5416054076183978, 1.3703811467786953 },
    { 0.8759410647731514, -0.48712890722960117, -1.4656285230894728 },
    { -1.1599297485670756, 0.14890937284382771, 1.2575481889389126 },
    { 1.146709284950207, -0.08170256195486768, -1.2982911648432665 } }), 1e-12)
  for _, m in ipairs({ ln, ln2, nn.LayerNormalization(torch.LongStorage({ 4, 3 }), 1e-3, false):double() }) do
    local xi = D(2, 4, 3)
    tester:assertlt(nn.Jacobian.testJacobian(m, xi), precision)
    if m.weight then
      tester:assertlt(nn.Jacobian.testJacobianParameters(m, xi, m.weight, m.gradWeight), precision)
      tester:assertlt(nn.Jacobian.testJacobianParameters(m, xi, m.bias, m.gradBias), precision)
    end
    tester:assertlt(nn.Jacobian.testIO(m, xi), 1e-12)
  end
  tester:asserteq(tostring(ln2), 'nn.LayerNormalization(4x3)')
  tester:asserteq(tostring(nn.LayerNormalization(5, 1e-5, false)), 'nn.LayerNormalization(5, without affine)')
  tester:assertErrorPattern(function() ln2:forward(torch.randn(2, 3, 4):double()) end,
    '%[nn.LayerNormalization%(4x3%)%] expected an input whose last dims are 4x3, got torch.DoubleTensor of size 2x3x4')
  tester:assertErrorPattern(function() nn.LayerNormalization(0) end, 'positive sizes')
end

-- The fused Torch7-style backward against autograd through torch.layerNorm, in f64 and f32, for
-- batches and a single sample, with accGradParameters' scale and a module without gradInput.
function tests.layerNormalizationBackward()
  for _, tp in ipairs({ 'torch.DoubleTensor', 'torch.FloatTensor' }) do
    local tol = tp == 'torch.DoubleTensor' and 1e-12 or 1e-4
    for _, shape in ipairs({ { 6, 5 }, { 5 }, { 2, 3, 4, 5 } }) do
      local m = nn.LayerNormalization(5):type(tp)
      m.weight:copy(torch.randn(5))
      m.bias:copy(torch.randn(5))
      local x = torch.randn(torch.LongStorage(shape)):mul(2):add(3):type(tp)
      local g = torch.randn(x:size()):type(tp)
      m:zeroGradParameters()
      m:forward(x)
      local gi = m:backward(x, g, 0.5):clone()
      local xr, w, b = x:clone():requiresGrad(), m.weight:detach():clone():requiresGrad(),
        m.bias:detach():clone():requiresGrad()
      torch.sum(torch.cmul(torch.layerNorm(xr, 1, w, b), g)):backward()
      tester:assertTensorEq(gi, xr.grad, tol, tp .. ' gradInput')
      tester:assertTensorEq(m.gradWeight, w.grad * 0.5, tol, tp .. ' gradWeight')
      tester:assertTensorEq(m.gradBias, b.grad * 0.5, tol, tp .. ' gradBias')
      -- accGradParameters alone (no stash from updateGradInput) adds the same again.
      m:accGradParameters(x, g, 1.5)
      tester:assertTensorEq(m.gradWeight, w.grad * 2, tol, tp .. ' accGradParameters')
      tester:assertTensorEq(m.gradBias, b.grad * 2, tol, tp .. ' accGradParameters bias')
    end
  end
  -- Through the module as one coarse autograd node, the loss's backward fills the parameters' grads.
  local m = nn.LayerNormalization({ 2, 3 }):double()
  local x = torch.randn(4, 2, 3):double():requiresGrad()
  m:zeroGradParameters()
  torch.sum(torch.pow(m:forward(x), 3)):backward()
  local xr, w, b = x:detach():clone():requiresGrad(), m.weight:detach():clone():requiresGrad(),
    m.bias:detach():clone():requiresGrad()
  torch.sum(torch.pow(torch.layerNorm(xr, 2, w, b), 3)):backward()
  tester:assertTensorEq(x.grad, xr.grad, 1e-12)
  tester:assertTensorEq(m.gradWeight, w.grad, 1e-12)
  tester:assertTensorEq(m.gradBias, b.grad, 1e-12)
  tester:assertErrorPattern(function() m:backward(torch.randn(4, 2, 3):double(), torch.randn(4, 3, 2):double()) end,
    'gradOutput must have the size of the input')
  tester:assertErrorPattern(function() nn.LayerNormalization(3):backward(torch.randn(2, 3), torch.randn(2, 3)) end,
    'backward needs a forward first')
end

function tests.groupNormalization()
  -- PyTorch 1.13: torch.nn.GroupNorm(2, 4).double(), weight [0.5, 1, -1, 2], bias [0, 0.1, 0.2, 0.3]
  -- (float64), applied to pt_input().
  local gn = nn.GroupNormalization(2, 4):double()
  gn.weight:copy(D({ 0.5, 1, -1, 2 }))
  gn.bias:copy(D({ 0, 0.1, 0.2, 0.3 }))
  tester:assertTensorEq(gn:forward(pt_input()), D({
    { { -0.020617239596460973, 0.5702767126773228, 0.6179054902776668 },
      { 0.2569588294603527, -1.0041113355951772, -1.2879774205822327 },
      { 0.6547300456418527, -0.6818232244446464, -1.1562267038400567 },
      { 1.3646320428239485, -1.3648182821480126, -2.6664535259616367 } },
    { { -0.421569922050093, 0.27092098235077355, 0.6838071906947919 },
      { 0.9749660543055562, -0.3831644165936442, -1.3581181397028572 },
      { 1.3664003470576391, 0.0527596700106103, -1.059946254767863 },
      { 2.5974014630854687, 0.13156476266434292, -2.310538701149039 } } }), 1e-12)
  -- Without affine, each group of (C / G) channels x positions is one normalized row.
  local plain = nn.GroupNormalization(3, 6, 1e-4, false):double()
  local x = torch.randn(2, 6, 2, 2):double()
  tester:assertTensorEq(plain:forward(x), naive_rows(x, 8, 1e-4), 1e-12)
  for _, m in ipairs({ gn, plain }) do
    local xi = rawequal(m, gn) and D(2, 4, 3) or D(2, 6, 2, 2)
    tester:assertlt(nn.Jacobian.testJacobian(m, xi), precision)
    if m.weight then
      tester:assertlt(nn.Jacobian.testJacobianParameters(m, xi, m.weight, m.gradWeight), precision)
      tester:assertlt(nn.Jacobian.testJacobianParameters(m, xi, m.bias, m.gradBias), precision)
    end
    tester:assertlt(nn.Jacobian.testIO(m, xi), 1e-12)
  end
  tester:asserteq(tostring(gn), 'nn.GroupNormalization(2, 4)')
  tester:assertErrorPattern(function() nn.GroupNormalization(3, 4) end, 'nGroups dividing nChannels, got 3 and 4')
  tester:assertErrorPattern(function() gn:forward(torch.randn(2, 3):double()) end,
    '%[nn.GroupNormalization%(2, 4%)%] expected an input of N x 4 x ..., got torch.DoubleTensor of size 2x3')
end

function tests.weightNorm()
  torch.manualSeed(9)
  local lin = nn.Linear(4, 3):double()
  local plain = lin:clone()
  local wn = nn.WeightNorm(lin)
  local x = torch.randn(5, 4):double()
  -- Wrapping keeps the function; weight = g * v / ||v|| per output unit.
  tester:assertTensorEq(wn:forward(x), plain:forward(x), 1e-12)
  wn.g:copy(D({ 2, 0.5, 1 }))
  wn:forward(x)
  for o = 1, 3 do
    tester:assertTensorEq(lin.weight[o], wn.v[o] / wn.v[o]:norm() * wn.g[o], 1e-12)
  end
  tester:assertlt(nn.Jacobian.testJacobian(wn, D(5, 4)), precision)
  for _, name in ipairs({ 'v', 'g', 'bias' }) do
    local grad = wn['grad' .. name:sub(1, 1):upper() .. name:sub(2)]
    tester:assertlt(nn.Jacobian.testJacobianParameters(wn, D(5, 4), wn[name], grad), precision, name)
    tester:assertlt(nn.Jacobian.testJacobianUpdateParameters(wn, D(5, 4), wn[name]), precision, 'update ' .. name)
  end
  tester:assertlt(nn.Jacobian.testIO(wn, x), 1e-12)
  -- Normalizing along the input dim instead (outputDim = 2: per column of the weight).
  local wn2 = nn.WeightNorm(nn.Linear(3, 2):double(), 2)
  tester:assertTableEq(wn2.v:size():totable(), { 3, 2 })
  wn2:forward(x:narrow(2, 1, 3))
  tester:assertTensorEq(wn2.weight:t():norm(2, 2):view(-1), wn2.g, 1e-12)
  tester:assertlt(nn.Jacobian.testJacobianParameters(wn2, D(2, 3), wn2.v, wn2.gradV), precision)
  -- Autograd fills gradV and gradG like Torch7's backward.
  local a = nn.Sequential():add(nn.WeightNorm(nn.Linear(4, 3))):add(nn.Tanh and nn.Tanh() or nn.ReLU()):double()
  local b = a:clone()
  local g = torch.randn(5, 3):double()
  a:zeroGradParameters()
  a:forward(x)
  a:backward(x, g)
  b:zeroGradParameters()
  torch.sum(torch.cmul(b:forward(x), g)):backward()
  local _, ga = a:parameters()
  local pb, gb = b:parameters()
  tester:asserteq(#ga, 3)
  for i = 1, 3 do tester:assertTensorEq(ga[i], gb[i], 1e-12) end
  tester:assertTensorEq(pb[1].grad, gb[1], 0)
  -- getParameters flattens v, g and bias.
  local p = wn:getParameters()
  tester:asserteq(p:nElement(), 12 + 3 + 3)
  tester:asserteq(tostring(wn), 'nn.WeightNorm [nn.Linear(4 -> 3)]')
  tester:assertErrorPattern(function() nn.WeightNorm(nn.ReLU()) end, 'expects a module with a weight')
  tester:assertErrorPattern(function() nn.WeightNorm(nn.Linear(2, 2), 3) end, 'outputDim must be between 1 and 2')
end

function tests.l1Penalty()
  local m = nn.L1Penalty(0.1):double()
  local x = D({ { 1, -2 }, { 0, 3 } })
  tester:assertTensorEq(m:forward(x), x, 0)
  tester:assertalmosteq(m.loss, 0.6, 1e-12)
  local g = D({ { 1, 1 }, { 1, 1 } })
  tester:assertTensorEq(m:backward(x, g), D({ { 1.1, 0.9 }, { 1, 1.1 } }), 1e-12)
  local avg = nn.L1Penalty(0.1, true, false):double()
  avg:forward(x)
  tester:assertalmosteq(avg.loss, 0.15, 1e-12)
  tester:assertTensorEq(avg:backward(x, g), D({ { 0.025, -0.025 }, { 0, 0.025 } }), 1e-12)
  -- Through autograd the penalty's gradient joins the loss's.
  local xr = x:clone():requiresGrad()
  torch.sum(m:forward(xr)):backward()
  tester:assertTensorEq(xr.grad, D({ { 1.1, 0.9 }, { 1, 1.1 } }), 1e-12)
  tester:asserteq(tostring(m), 'nn.L1Penalty(0.1)')
  tester:assertErrorPattern(function() nn.L1Penalty() end, 'expected a number l1weight')
end

function tests.gradientReversal()
  local m = nn.GradientReversal(0.5):double()
  local x = torch.randn(3, 2):double()
  tester:assertTensorEq(m:forward(x), x, 0)
  local g = torch.randn(3, 2):double()
  tester:assertTensorEq(m:backward(x, g), g * -0.5, 0)
  m:setLambda(2)
  tester:assertTensorEq(m:backward(x, g), g * -2, 0)
  local xr = x:clone():requiresGrad()
  local net = nn.Sequential():add(nn.GradientReversal()):add(nn.Linear(2, 1)):double()
  net:forward(xr):sum():backward()
  tester:assertTensorEq(xr.grad, net.modules[2].weight:detach():expand(3, 2) * -1, 1e-12)
  tester:asserteq(tostring(nn.GradientReversal()), 'nn.GradientReversal(1)')
  tester:assertErrorPattern(function() m:forward(3) end, 'expected a tensor input, got number')
end

tester:add(tests)
tester:run()
