-- Torch7's sub-sampling, Lp pooling and local normalization modules that Tocha added later:
-- Spatial/TemporalSubSampling, SpatialLPPooling, FeatureLPPooling and
-- Spatial{Subtractive,Divisive,Contrastive}Normalization (the modules that pool or normalize by
-- weighted sums over windows). Values against plain Lua loops, nn.Jacobian checks in f64,
-- Torch7-style backward against autograd, batch vs one sample, float(), printing, errors and
-- save/load. (The max poolings: test_nn_t7_pool.lua.)
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local checks = dofile(here .. '/fixtures/nn_checks.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()
torch.setdefaulttensortype('torch.DoubleTensor')
torch.manualSeed(11)

local J = nn.Jacobian
local precision = 1e-6

local function roundTrip(m, input, label) return checks.roundTrip(tester, m, input, label) end

-- ---- sub-sampling -----------------------------------------------------------------------------

function tests.spatialSubSampling()
  local m = nn.SpatialSubSampling(3, 2, 3, 2, 1)
  tester:assertTableEq(m.weight:size():totable(), { 3 })
  tester:assertTableEq(m.bias:size():totable(), { 3 })
  tester:asserteq(m.dW, 2)
  local x = torch.randn(2, 3, 7, 8)
  local y = m:forward(x)
  tester:assertTableEq(y:size():totable(), { 2, 3, 5, 4 })
  local want = y:clone():zero()
  for n = 1, 2 do for c = 1, 3 do for i = 1, 5 do for j = 1, 4 do
    local s = 0
    for a = 0, 2 do for b = 0, 1 do s = s + x[n][c][i + a][(j - 1) * 2 + b + 1] end end
    want[n][c][i][j] = s * m.weight[c] + m.bias[c]
  end end end end
  tester:assertTensorEq(y, want, 1e-12, 'values')
  tester:assertTensorEq(m:forward(x[2]), want[2], 1e-12, 'single sample')
  m:forward(x)
  -- defaults: stride 1
  tester:assertTableEq(nn.SpatialSubSampling(1, 3, 3):forward(torch.randn(1, 5, 6)):size():totable(), { 1, 3, 4 })
  -- gradients by loops
  local go = torch.randn(y:size())
  m:zeroGradParameters()
  local gi = m:backward(x, go, 0.5)
  local wgi, wgw, wgb = torch.zeros(x:size()), torch.zeros(3), torch.zeros(3)
  for n = 1, 2 do for c = 1, 3 do for i = 1, 5 do for j = 1, 4 do
    for a = 0, 2 do for b = 0, 1 do
      local h, w = i + a, (j - 1) * 2 + b + 1
      wgi[n][c][h][w] = wgi[n][c][h][w] + go[n][c][i][j] * m.weight[c]
      wgw[c] = wgw[c] + 0.5 * go[n][c][i][j] * x[n][c][h][w]
    end end
    wgb[c] = wgb[c] + 0.5 * go[n][c][i][j]
  end end end end
  tester:assertTensorEq(gi, wgi, 1e-12, 'gradInput')
  tester:assertTensorEq(m.gradWeight, wgw, 1e-12, 'gradWeight (scale 0.5)')
  tester:assertTensorEq(m.gradBias, wgb, 1e-12, 'gradBias (scale 0.5)')
  checks.standard(tester, nn.SpatialSubSampling(3, 2, 3, 2, 1), torch.randn(2, 3, 7, 8))
  checks.standard(tester, nn.SpatialSubSampling(2, 3, 2), torch.randn(2, 5, 4))
  roundTrip(m, x, 'nn.SpatialSubSampling')
  tester:asserteq(tostring(m), 'nn.SpatialSubSampling')
  tester:assertErrorPattern(function() m:forward(torch.randn(2, 4, 7, 8)) end,
    '%[nn.SpatialSubSampling%(3, 2x3, 2,1%)%] expected a 3D %(3 x H x W%) or 4D %(N x 3 x H x W%) input, got torch.DoubleTensor of size 2x4x7x8')
  tester:assertErrorPattern(function() m:forward(torch.randn(3, 2, 2)) end, 'smaller than the kernel 2x3')
  tester:assertErrorPattern(function() m:forward(torch.randn(3, 5, 5):float()) end, 'expected a torch.DoubleTensor input')
  tester:assertErrorPattern(function() m:forward(x) m:backward(x, torch.randn(2, 3)) end, 'gradOutput is')
  tester:assertErrorPattern(function() nn.SpatialSubSampling(0, 2, 2) end, 'nInputPlane must be an integer >= 1, got 0')
  tester:assertErrorPattern(function() nn.SpatialSubSampling(2, 2) end, 'kH must be an integer')
end

function tests.temporalSubSampling()
  local m = nn.TemporalSubSampling(4, 3, 2)
  local x = torch.randn(9, 4)
  local y = m:forward(x)
  tester:assertTableEq(y:size():totable(), { 4, 4 })
  local want = torch.Tensor(4, 4)
  for t = 1, 4 do for f = 1, 4 do
    local s = 0
    for k = 0, 2 do s = s + x[(t - 1) * 2 + k + 1][f] end
    want[t][f] = s * m.weight[f] + m.bias[f]
  end end
  tester:assertTensorEq(y, want, 1e-12, 'values')
  -- batch mode adds the bias too (Torch7's C code forgot it there)
  local xb = torch.randn(3, 9, 4)
  local yb = m:forward(xb):clone()
  for n = 1, 3 do tester:assertTensorEq(yb[n], m:forward(xb[n]), 1e-12, 'batch row ' .. n) end
  tester:assertTableEq(nn.TemporalSubSampling(2, 3):forward(torch.randn(5, 2)):size():totable(), { 3, 2 }, 'dW = 1')
  local go = torch.randn(4, 4)
  m:forward(x)
  m:zeroGradParameters()
  local gi = m:backward(x, go)
  local wgi, wgw = torch.zeros(9, 4), torch.zeros(4)
  for t = 1, 4 do for f = 1, 4 do for k = 0, 2 do
    local i = (t - 1) * 2 + k + 1
    wgi[i][f] = wgi[i][f] + go[t][f] * m.weight[f]
    wgw[f] = wgw[f] + go[t][f] * x[i][f]
  end end end
  tester:assertTensorEq(gi, wgi, 1e-12, 'gradInput')
  tester:assertTensorEq(m.gradWeight, wgw, 1e-12, 'gradWeight')
  tester:assertTensorEq(m.gradBias, go:sum(1):view(4), 1e-12, 'gradBias')
  checks.standard(tester, nn.TemporalSubSampling(4, 3, 2), torch.randn(3, 9, 4))
  checks.standard(tester, nn.TemporalSubSampling(3, 2), torch.randn(5, 3))
  roundTrip(m, xb, 'nn.TemporalSubSampling')
  tester:asserteq(tostring(m), 'nn.TemporalSubSampling')
  tester:assertErrorPattern(function() m:forward(torch.randn(9, 5)) end,
    '%[nn.TemporalSubSampling%(4, 3, 2%)%] expected a 2D %(nFrame x 4%) or 3D %(N x nFrame x 4%) input')
  tester:assertErrorPattern(function() m:forward(torch.randn(2, 4)) end, 'fewer than kW = 3 frames')
  tester:assertErrorPattern(function() m:forward('x') end, 'got string')
  tester:assertErrorPattern(function() nn.TemporalSubSampling(4, 0) end, 'kW must be an integer >= 1, got 0')
end

-- ---- Lp pooling -------------------------------------------------------------------------------

function tests.spatialLPPooling()
  for _, p in ipairs({ 2, 3 }) do
    local m = nn.SpatialLPPooling(2, p, 2, 3, 1, 2)
    tester:assert(torch.isTypeOf(m, 'nn.Sequential'), 'a Sequential, as in Torch7')
    tester:asserteq(#m.modules, 4)
    local x = torch.rand(2, 2, 7, 6):add(0.1)
    local y = m:forward(x)
    tester:assertTableEq(y:size():totable(), { 2, 2, 3, 5 })
    local want = y:clone()
    for n = 1, 2 do for c = 1, 2 do for i = 1, 3 do for j = 1, 5 do
      local s = 0
      for a = 0, 2 do for b = 0, 1 do s = s + x[n][c][(i - 1) * 2 + a + 1][j + b] ^ p end end
      want[n][c][i][j] = s ^ (1 / p)
    end end end end
    tester:assertTensorEq(y, want, 1e-12, 'p = ' .. p)
    tester:assertTensorEq(m:forward(x[1]), want[1], 1e-12, 'single sample')
    tester:assertlt(J.testJacobian(m, x, 0.1, 2), precision, 'jacobian p = ' .. p)
    local xp = x:clone()
    checks.autograd(tester, m, xp)
    checks.io(tester, m, xp)
    checks.types(tester, m, xp)
    tester:asserteq(#(m:parameters() or {}), 0, 'no parameters')
  end
  tester:assertErrorPattern(function() nn.SpatialLPPooling(2, 0, 2, 2) end, 'pnorm must be a positive number, got 0')
  tester:assertErrorPattern(function() nn.SpatialLPPooling(2, 2, 2) end, 'kH must be an integer')
  tester:assertErrorPattern(function() nn.SpatialLPPooling(2, 2, 2, 2):forward(torch.randn(3)) end,
    '%[nn.SpatialLPPooling%(2x2, 2,2%)%] expected a 3D')
end

function tests.featureLPPooling()
  local m = nn.FeatureLPPooling(3, 2, 2)
  tester:asserteq(m.batch_mode, false)
  local x = torch.randn(9, 3, 2)
  local y = m:forward(x)
  tester:assertTableEq(y:size():totable(), { 4, 3, 2 })
  local function naive(xx, width, stride, power)
    local o = math.floor((xx:size(1) - width) / stride) + 1
    local size = xx:size()
    size[1] = o
    local r = torch.Tensor(size)
    local xv, rv = xx:contiguous():view(xx:size(1), -1), r:view(o, -1)
    for i = 1, o do for q = 1, xv:size(2) do
      local s = 0
      for k = 0, width - 1 do s = s + xv[(i - 1) * stride + k + 1][q] ^ power end
      rv[i][q] = s ^ (1 / power)
    end end
    return r
  end
  tester:assertTensorEq(y, naive(x, 3, 2, 2), 1e-12, 'power 2')
  local mb = nn.FeatureLPPooling(4, 1, 3, true)
  local xb = torch.rand(2, 7, 3):add(0.1)
  local yb = mb:forward(xb):clone()
  for n = 1, 2 do tester:assertTensorEq(yb[n], naive(xb[n], 4, 1, 3), 1e-12, 'batch power 3, sample ' .. n) end
  tester:assertTensorEq(nn.FeatureLPPooling(4, 1, 3):forward(xb[2]), yb[2], 1e-12, 'batch vs single sample')
  tester:assertlt(J.testJacobian(m, x), precision, 'jacobian power 2')
  tester:assertlt(J.testJacobian(mb, xb, 0.1, 2), precision, 'jacobian power 3')
  tester:assertlt(J.testJacobian(nn.FeatureLPPooling(2, 1, 2), torch.randn(5)), precision, 'jacobian 1D')
  checks.autograd(tester, m, x)
  checks.autograd(tester, mb, xb:clone())
  checks.io(tester, mb, xb:clone())
  checks.types(tester, mb, xb:clone())
  -- zero windows give zero gradients (Torch7 skips them), not NaN
  local z = torch.zeros(6, 2)
  m:forward(z)
  tester:assertTensorEq(m:backward(z, torch.ones(2, 2)), torch.zeros(6, 2), 0, 'zero output: zero gradient')
  tester:asserteq(tostring(m), 'nn.FeatureLPPooling(w3 s2 power 2 batch 0)')
  tester:asserteq(tostring(mb), 'nn.FeatureLPPooling(w4 s1 power 3 batch 1)')
  tester:assertErrorPattern(function() nn.FeatureLPPooling(1, 1, 2) end, 'width must be an integer within 2 to 16, got 1')
  tester:assertErrorPattern(function() nn.FeatureLPPooling(2, 5, 2) end, 'stride must be an integer within 1 to 4, got 5')
  tester:assertErrorPattern(function() nn.FeatureLPPooling(2, 1, 'x') end, 'power must be a non%-zero number')
  tester:assertErrorPattern(function() nn.FeatureLPPooling(2, 1, 2, 1) end, 'batch_mode must be true or false')
  tester:assertErrorPattern(function() m:forward(torch.randn(2, 3)) end,
    '%[nn.FeatureLPPooling%(w3 s2 power 2 batch 0%)%] input of size 2x3 has 2 features, fewer than the width 3')
  tester:assertErrorPattern(function() m:forward(torch.randn(4, 2, 2, 2)) end, 'expected a floating%-point tensor of 1 to 3 dims')
  tester:assertErrorPattern(function() mb:forward(torch.randn(5)) end, 'of 2 to 4 dims %(batch x feature x %.%.%.%)')
  tester:assertErrorPattern(function() m:forward(x) m:backward(x, torch.randn(3)) end, 'gradOutput is')
end

-- ---- local normalizations ---------------------------------------------------------------------

-- Torch7's normalizations by loops on one C x H x W sample: the kernel-weighted sum over every plane
-- around (h, w) with zero padding, divided by the same sum over ones.
local function naiveFilter(x, k2)
  local C, H, W = x:size(1), x:size(2), x:size(3)
  local kh, kw = k2:size(1), k2:size(2)
  local r = torch.zeros(H, W)
  for h = 1, H do for w = 1, W do
    local s = 0
    for a = 1, kh do for b = 1, kw do
      local hh, ww = h + a - 1 - math.floor(kh / 2), w + b - 1 - math.floor(kw / 2)
      if hh >= 1 and hh <= H and ww >= 1 and ww <= W then
        for c = 1, C do s = s + k2[a][b] * x[c][hh][ww] end
      end
    end end
    r[h][w] = s
  end end
  return r
end
local function kernel2d(k, C, divisive)
  if k:dim() == 2 then return k / (k:sum() * C) end
  local k1 = k / (k:sum() * (divisive and math.sqrt(C) or C))
  return torch.ger(k1, k1)
end
local function naiveSub(x, k)
  local k2 = kernel2d(k, x:size(1))
  local mean = torch.cdiv(naiveFilter(x, k2), naiveFilter(torch.ones(x:size()), k2))
  local y = x:clone()
  for c = 1, x:size(1) do y[c]:add(-1, mean) end
  return y
end
local function naiveDiv(x, k, threshold, thresval)
  local k2 = kernel2d(k, x:size(1), true)
  local std = naiveFilter(torch.cmul(x, x), k2):sqrt():cdiv(naiveFilter(torch.ones(x:size()), k2))
  std:apply(function(v) return v > threshold and v or thresval end)
  local y = x:clone()
  for c = 1, x:size(1) do y[c]:cdiv(std) end
  return y
end

function tests.spatialNormalizationValues()
  local x = torch.randn(2, 3, 6, 7)
  for _, k in ipairs({ torch.Tensor(3, 5):fill(1), torch.Tensor({ 1, 2, 1 }), torch.rand(5, 3):add(0.1), torch.rand(5) }) do
    local label = 'kernel ' .. table.concat(k:size():totable(), 'x') .. ' '
    local kcopy = k:clone()
    local s = nn.SpatialSubtractiveNormalization(3, k)
    local d = nn.SpatialDivisiveNormalization(3, k, 0.3, 0.5)
    local c = nn.SpatialContrastiveNormalization(3, k, 0.3, 0.5)
    tester:assertTensorEq(k, kcopy, 0, label .. "the caller's kernel is left alone")
    local ys, yd, yc = s:forward(x):clone(), d:forward(x):clone(), c:forward(x):clone()
    for n = 1, 2 do
      tester:assertTensorEq(ys[n], naiveSub(x[n], k), 1e-12, label .. 'subtractive')
      tester:assertTensorEq(yd[n], naiveDiv(x[n], k, 0.3, 0.5), 1e-12, label .. 'divisive')
      tester:assertTensorEq(yc[n], naiveDiv(naiveSub(x[n], k), k, 0.3, 0.5), 1e-12, label .. 'contrastive')
      tester:assertTensorEq(s:forward(x[n]), ys[n], 1e-12, label .. 'subtractive single sample')
      tester:assertTensorEq(d:forward(x[n]), yd[n], 1e-12, label .. 'divisive single sample')
      tester:assertTensorEq(c:forward(x[n]), yc[n], 1e-12, label .. 'contrastive single sample')
    end
    tester:assertTableEq(s.coef:size():totable(), { 3, 6, 7 }, 'coef as Torch7 kept it')
  end
  -- defaults: one plane, a 9x9 box, thresholds 1e-4
  local s = nn.SpatialSubtractiveNormalization()
  tester:asserteq(s.nInputPlane, 1)
  tester:assertTableEq(s.kernel:size():totable(), { 9, 9 })
  tester:assertalmosteq(s.kernel:sum(), 1, 1e-12)
  local d = nn.SpatialDivisiveNormalization()
  tester:asserteq(d.threshold, 1e-4)
  tester:asserteq(d.thresval, 1e-4)
  local xi = torch.randn(1, 10, 11)
  tester:assertTensorEq(s:forward(xi), naiveSub(xi, torch.ones(9, 9)), 1e-12, 'default subtractive')
  tester:assertTensorEq(d:forward(xi), naiveDiv(xi, torch.ones(9, 9), 1e-4, 1e-4), 1e-12, 'default divisive')
  -- zero regions: output 0, gradient finite
  local z = torch.zeros(1, 2, 5, 5)
  local dz = nn.SpatialDivisiveNormalization(2, torch.ones(3, 3))
  tester:assertTensorEq(dz:forward(z), z, 0, 'zero input')
  tester:assert(dz:backward(z, torch.ones(1, 2, 5, 5)):eq(dz.gradInput):all(), 'no NaN in the gradient at zero')
end

function tests.spatialNormalizationModules()
  local k = torch.Tensor({ 1, 2, 1 })
  local mods = { nn.SpatialSubtractiveNormalization(2, torch.ones(3, 3)), nn.SpatialDivisiveNormalization(2, k),
    nn.SpatialContrastiveNormalization(2, torch.rand(3, 5):add(0.5), 0.2, 0.3) }
  for _, m in ipairs(mods) do
    local label = torch.type(m)
    local x = torch.randn(2, 2, 5, 6)
    tester:assertlt(J.testJacobian(m, x), precision, label .. ' jacobian')
    tester:assertlt(J.testJacobian(m, x[1]:clone()), precision, label .. ' jacobian single sample')
    checks.autograd(tester, m, x)
    checks.io(tester, m, x)
    checks.clearState(tester, m, x)
    checks.types(tester, m, x)
    tester:asserteq(tostring(m), label, 'prints as Torch7')
    tester:assertErrorPattern(function() m:forward(torch.randn(3, 5, 6)) end,
      '%[' .. label .. '%(2, kernel .*%)%] expected a 3D %(2 x H x W%) or 4D %(N x 2 x H x W%) floating%-point input, got '
      .. 'torch.DoubleTensor of size 3x5x6')
    tester:assertErrorPattern(function() m:forward(torch.LongTensor(2, 5, 6)) end, 'got torch.LongTensor')
  end
  -- the contrastive module holds its two stages, with its threshold values (Torch7 dropped thresval)
  local c = mods[3]
  tester:asserteq(torch.type(c.normalizer.modules[2]), 'nn.SpatialDivisiveNormalization')
  tester:asserteq(c.normalizer.modules[2].thresval, 0.3)
  for _, cls in ipairs({ 'SpatialSubtractiveNormalization', 'SpatialDivisiveNormalization',
    'SpatialContrastiveNormalization' }) do
    tester:assertErrorPattern(function() nn[cls](2, torch.ones(4, 3)) end,
      '%[nn.' .. cls .. '%] averaging kernel must have ODD dimensions, got size 4x3')
    tester:assertErrorPattern(function() nn[cls](2, torch.ones(3, 3, 3)) end, 'averaging kernel must be a 2D or 1D')
    tester:assertErrorPattern(function() nn[cls](0) end, 'nInputPlane must be an integer >= 1, got 0')
    tester:assertErrorPattern(function() nn[cls](1, torch.zeros(3)) end, 'must not sum to 0')
  end
  tester:assertErrorPattern(function() nn.SpatialDivisiveNormalization(1, nil, 'x') end, 'threshold and thresval must be numbers')
end

tester:add(tests)
tester:run()
