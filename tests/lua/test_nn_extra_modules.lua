-- PyTorch's extra modules: Flatten/Unflatten, Mish/Hardswish/Hardsigmoid, Softmax2d,
-- InstanceNormalization, Upsample, PixelUnshuffle, ChannelShuffle, SpatialCrossMapLRN, Bottle and
-- EmbeddingBag: values against plain loops, nn.Jacobian checks in f64, autograd vs Torch7's
-- backward, running statistics, printing and errors.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local precision = 1e-7

local function rnd(...) return torch.randn(...):double() end

-- A module's output against f applied to every element of x (plain Lua numbers).
local function check_pointwise(m, f, x)
  local y = m:forward(x)
  local xf, yf = x:contiguous():view(-1), y:contiguous():view(-1)
  for i = 1, xf:nElement() do tester:assertalmosteq(yf[i], f(xf[i]), 1e-12, tostring(m) .. ' at ' .. xf[i]) end
end

function tests.activations()
  local x = torch.linspace(-5, 5, 41):double():view(41)
  local function softplus(v) return math.log(1 + math.exp(v)) end
  local function relu6(v) return math.min(math.max(v, 0), 6) end
  check_pointwise(nn.Mish():double(), function(v) return v * math.tanh(softplus(v)) end, x)
  check_pointwise(nn.Hardswish():double(), function(v) return v * relu6(v + 3) / 6 end, x)
  check_pointwise(nn.Hardsigmoid():double(), function(v) return relu6(v + 3) / 6 end, x)
  for _, m in ipairs({ nn.Mish(), nn.Hardswish(), nn.Hardsigmoid() }) do
    m:double()
    -- away from the kinks at -3 and 3
    local xi = rnd(4, 5):mul(1.2)
    tester:assertlt(nn.Jacobian.testJacobian(m, xi), precision, tostring(m))
    tester:assertlt(nn.Jacobian.testIO(m, xi), 1e-12)
    tester:assertErrorPattern(function() m:forward(torch.LongTensor(2)) end, 'expected a floating%-point tensor')
  end
  tester:asserteq(torch.type(nn.Mish():float():forward(torch.randn(3))), 'torch.FloatTensor')
end

function tests.softmax2dIsSpatialSoftMax()
  local m = nn.Softmax2d():double()
  tester:asserteq(torch.type(m), 'nn.SpatialSoftMax')
  local x = rnd(2, 3, 4, 5)
  local y = m:forward(x)
  for n = 1, 2 do for h = 1, 4 do for w = 1, 5 do
    local s = 0
    for c = 1, 3 do s = s + math.exp(x[n][c][h][w]) end
    for c = 1, 3 do tester:assertalmosteq(y[n][c][h][w], math.exp(x[n][c][h][w]) / s, 1e-12) end
  end end end
end

function tests.flattenUnflatten()
  local x = rnd(2, 3, 4, 5)
  tester:assertTableEq(nn.Flatten():forward(x):size():totable(), { 2, 60 })
  tester:assertTableEq(nn.Flatten(1, -1):forward(x):size():totable(), { 120 })
  tester:assertTableEq(nn.Flatten(2, 3):forward(x):size():totable(), { 2, 12, 5 })
  tester:assertTableEq(nn.Flatten(-2):forward(x):size():totable(), { 2, 3, 20 })
  tester:assertTensorEq(nn.Flatten():forward(x):view(-1), x:contiguous():view(-1), 0)
  -- a non-contiguous input is copied, in order
  local xt = x:transpose(1, 2)
  tester:assertTensorEq(nn.Flatten():forward(xt), xt:contiguous():view(3, 40), 0)
  local u = nn.Unflatten(2, { 3, -1 })
  tester:assertTableEq(u:forward(rnd(2, 12)):size():totable(), { 2, 3, 4 })
  tester:assertTableEq(nn.Unflatten(-1, torch.LongStorage({ 2, 2 })):forward(rnd(3, 4)):size():totable(), { 3, 2, 2 })
  local s = nn.Sequential():add(nn.Flatten()):add(nn.Unflatten(2, { 3, 4, 5 })):double()
  tester:assertTensorEq(s:forward(x), x, 0)
  tester:assertlt(nn.Jacobian.testJacobian(nn.Flatten(2, 3):double(), rnd(2, 3, 2)), precision)
  tester:assertlt(nn.Jacobian.testJacobian(u:double(), rnd(2, 12)), precision)
  tester:asserteq(tostring(nn.Flatten()), 'nn.Flatten(2, -1)')
  tester:asserteq(tostring(u), 'nn.Unflatten(2, 3x-1)')
  tester:assertErrorPattern(function() nn.Flatten(3, 5):forward(x) end, 'dims 3%.%.5 do not fit an input of size 2x3x4x5')
  tester:assertErrorPattern(function() nn.Unflatten(2, { 5, 5 }):forward(rnd(2, 12)) end, 'cannot be unflattened into 5x5')
  tester:assertErrorPattern(function() nn.Unflatten(2, { -1, -1 }) end, 'only one size may be %-1')
  tester:assertErrorPattern(function() nn.Unflatten(2, { 5, -1 }):forward(rnd(2, 12)) end, 'cannot be split')
end

-- Each (sample, channel) of x normalized over its positions with the biased variance.
local function naive_instance(x, eps)
  local N, C = x:size(1), x:size(2)
  local f = x:contiguous():view(N, C, -1)
  local y = f:clone()
  local L = f:size(3)
  for n = 1, N do for c = 1, C do
    local m, v = 0, 0
    for i = 1, L do m = m + f[n][c][i] end
    m = m / L
    for i = 1, L do v = v + (f[n][c][i] - m) ^ 2 end
    v = v / L
    for i = 1, L do y[n][c][i] = (f[n][c][i] - m) / math.sqrt(v + eps) end
  end end
  return y:viewAs(x)
end

function tests.instanceNormalization()
  for _, shape in ipairs({ { 2, 3, 7 }, { 2, 3, 4, 5 }, { 2, 3, 2, 3, 2 } }) do
    local m = nn.InstanceNormalization(3):double()
    local x = rnd(torch.LongStorage(shape)):mul(2):add(1)
    tester:assertTensorEq(m:forward(x), naive_instance(x, 1e-5), 1e-10)
    -- one sample without the batch dim
    local x1 = x[1]
    tester:assertTensorEq(m:forward(x1), naive_instance(x1:unsqueeze(1), 1e-5)[1], 1e-10)
    tester:assertlt(nn.Jacobian.testJacobian(m, x), precision)
  end
  local m = nn.InstanceNormalization(3, 1e-3, 0.2, true, true):double()
  m.weight:copy(torch.DoubleTensor({ 0.5, 2, -1 }))
  m.bias:copy(torch.DoubleTensor({ 0, 1, 2 }))
  local x = rnd(4, 3, 6):mul(3):add(2)
  local want = naive_instance(x, 1e-3):cmul(m.weight:view(1, 3, 1):expandAs(x)):add(m.bias:view(1, 3, 1):expandAs(x))
  tester:assertTensorEq(m:forward(x), want, 1e-10)
  -- running statistics: the batch means of the instance means and unbiased variances
  local rm, rv = torch.zeros(3):double(), torch.ones(3):double()
  for c = 1, 3 do
    local mean, var = 0, 0
    for n = 1, 4 do
      local row = x[n][c]
      local mu = row:mean()
      mean = mean + mu / 4
      var = var + row:clone():add(-mu):pow(2):sum() / 5 / 4
    end
    rm[c] = 0.2 * mean
    rv[c] = 0.8 + 0.2 * var
  end
  tester:assertTensorEq(m.running_mean, rm, 1e-12)
  tester:assertTensorEq(m.running_var, rv, 1e-12)
  -- evaluation uses them
  m:evaluate()
  local ev = m:forward(x)
  local want2 = x:clone()
  for n = 1, 4 do for c = 1, 3 do for i = 1, 6 do
    want2[n][c][i] = (x[n][c][i] - rm[c]) / math.sqrt(rv[c] + 1e-3) * m.weight[c] + m.bias[c]
  end end end
  tester:assertTensorEq(ev, want2, 1e-12)
  m:training()
  local ps = m:parameters()
  tester:asserteq(#ps, 2)
  tester:assertlt(nn.Jacobian.testJacobianParameters(m, x, m.weight, m.gradWeight), precision)
  tester:assertlt(nn.Jacobian.testJacobianParameters(m, x, m.bias, m.gradBias), precision)
  local keys = {}
  for k in pairs(m:stateDict()) do keys[#keys + 1] = k end
  table.sort(keys)
  tester:assertTableEq(keys, { 'bias', 'running_mean', 'running_var', 'weight' })
  tester:asserteq(tostring(m), 'nn.InstanceNormalization(3, affine, trackRunningStats)')
  tester:assertErrorPattern(function() m:forward(rnd(2, 4, 5)) end, 'expected N x 3 x %.%.%.')
  tester:assertErrorPattern(function() nn.InstanceNormalization(0) end, 'positive integer')
end

-- Review regression: Torch7's backward replays updateOutput under autograd, which moved the
-- running statistics a second time per training step (PyTorch 1.13: once per forward).
function tests.instanceNormalizationBackwardKeepsRunningStats()
  local m = nn.InstanceNormalization(3, 1e-5, 0.3, true, true):double()
  local x = rnd(2, 3, 5)
  m:forward(x)
  local rm, rv = m.running_mean:clone(), m.running_var:clone()
  m:backward(x, rnd(2, 3, 5))
  tester:assertTensorEq(m.running_mean, rm, 0, 'running_mean after backward')
  tester:assertTensorEq(m.running_var, rv, 0, 'running_var after backward')
  -- inside a container too, and the next forward still updates them
  local s = nn.Sequential():add(m)
  s:forward(x)
  rm = m.running_mean:clone()
  s:backward(x, rnd(2, 3, 5))
  tester:assertTensorEq(m.running_mean, rm, 0, 'running_mean after a container backward')
  tester:assert(m._replaying == nil)
  s:forward(x)
  tester:assert((m.running_mean - rm):abs():max() > 0, 'the next forward updates the statistics')
end

function tests.upsample()
  local x = rnd(2, 3, 4, 5)
  local y = nn.Upsample({ scaleFactor = 2 }):double():forward(x)
  tester:assertTableEq(y:size():totable(), { 2, 3, 8, 10 })
  for h = 1, 8 do for w = 1, 10 do
    tester:asserteq(y[2][3][h][w], x[2][3][math.floor((h - 1) / 2) + 1][math.floor((w - 1) / 2) + 1])
  end end
  local yb = nn.Upsample({ size = { 7, 9 }, mode = 'bilinear', alignCorners = true }):double():forward(x)
  -- align corners: output (i, j) samples input (i * 3/6, j * 4/8) (0-based)
  for i = 0, 6 do for j = 0, 8 do
    local sy, sx = i * 3 / 6, j * 4 / 8
    local y0, x0 = math.floor(sy), math.floor(sx)
    local y1, x1 = math.min(y0 + 1, 3), math.min(x0 + 1, 4)
    local fy, fx = sy - y0, sx - x0
    local p = x[1][2]
    local v = (1 - fy) * ((1 - fx) * p[y0 + 1][x0 + 1] + fx * p[y0 + 1][x1 + 1])
      + fy * ((1 - fx) * p[y1 + 1][x0 + 1] + fx * p[y1 + 1][x1 + 1])
    tester:assertalmosteq(yb[1][2][i + 1][j + 1], v, 1e-12)
  end end
  local yl = nn.Upsample({ scaleFactor = 3, mode = 'linear' }):double():forward(rnd(2, 3, 4))
  tester:assertTableEq(yl:size():totable(), { 2, 3, 12 })
  tester:assertlt(nn.Jacobian.testJacobian(nn.Upsample({ scaleFactor = 2, mode = 'bilinear' }):double(), rnd(1, 2, 3, 3)),
    precision)
  tester:asserteq(tostring(nn.Upsample({ size = { 4, 4 } })), 'nn.Upsample(size 4x4, nearest)')
  tester:assertErrorPattern(function() nn.Upsample({}) end, 'exactly one of size and scaleFactor')
  tester:assertErrorPattern(function() nn.Upsample({ size = 2, mode = 'cubic' }) end, 'mode must be')
  tester:assertErrorPattern(function() nn.Upsample({ size = 4, mode = 'linear' }):forward(x) end,
    '%[nn.Upsample%(size 4, linear%)%] mode linear does not apply')
end

function tests.pixelUnshuffleAndChannelShuffle()
  local r = 2
  local x = rnd(2, 3, 4, 6)
  local y = nn.PixelUnshuffle(r):forward(x)
  tester:assertTableEq(y:size():totable(), { 2, 12, 2, 3 })
  for c = 0, 2 do for i = 0, r - 1 do for j = 0, r - 1 do for h = 0, 1 do for w = 0, 2 do
    tester:asserteq(y[2][c * r * r + i * r + j + 1][h + 1][w + 1], x[2][c + 1][h * r + i + 1][w * r + j + 1])
  end end end end end
  tester:assertTensorEq(nn.PixelShuffle(r):forward(y), x, 0)
  tester:assertTensorEq(nn.PixelUnshuffle(r):forward(x[1]), y[1], 0)
  tester:assertlt(nn.Jacobian.testJacobian(nn.PixelUnshuffle(2):double(), rnd(1, 2, 4, 4)), precision)
  local cs = nn.ChannelShuffle(3)
  local z = rnd(2, 6, 2, 2)
  local o = cs:forward(z)
  for j = 0, 1 do for g = 0, 2 do
    tester:assertTensorEq(o[{ {}, j * 3 + g + 1 }], z[{ {}, g * 2 + j + 1 }], 0)
  end end
  tester:assertlt(nn.Jacobian.testJacobian(cs:double(), rnd(2, 6, 3)), precision)
  tester:assertErrorPattern(function() nn.PixelUnshuffle(3):forward(x) end, 'multiples of 3')
  tester:assertErrorPattern(function() nn.ChannelShuffle(4):forward(z) end, 'groups 4 does not divide the 6 channels')
  tester:assertErrorPattern(function() nn.ChannelShuffle(0) end, 'positive integer')
end

function tests.spatialCrossMapLRN()
  local x = rnd(2, 7, 3, 2)
  for _, cfg in ipairs({ { 5, 1e-4, 0.75, 1 }, { 3, 0.5, 0.6, 2 }, { 4, 0.3, 0.75, 1 } }) do
    local size, alpha, beta, k = cfg[1], cfg[2], cfg[3], cfg[4]
    local m = nn.SpatialCrossMapLRN(size, alpha, beta, k):double()
    local y = m:forward(x)
    for n = 1, 2 do for c = 1, 7 do for h = 1, 3 do for w = 1, 2 do
      local s = 0
      for cc = c - math.floor(size / 2), c + math.floor((size - 1) / 2) do
        if cc >= 1 and cc <= 7 then s = s + x[n][cc][h][w] ^ 2 end
      end
      tester:assertalmosteq(y[n][c][h][w], x[n][c][h][w] / (k + alpha / size * s) ^ beta, 1e-12)
    end end end end
    tester:assertTensorEq(m:forward(x[1]), y[1], 1e-14)
    tester:assertlt(nn.Jacobian.testJacobian(m, rnd(1, 7, 2, 2)), precision)
  end
  tester:asserteq(tostring(nn.SpatialCrossMapLRN(5)), 'nn.SpatialCrossMapLRN(5, 0.0001, 0.75, 1)')
  tester:assertErrorPattern(function() nn.SpatialCrossMapLRN(3):forward(rnd(3, 4)) end, 'expected a C x H x W')
end

function tests.bottle()
  local lin = nn.Linear(5, 3):double()
  local b = nn.Bottle(lin)
  local x = rnd(2, 4, 5)
  local y = b:forward(x)
  tester:assertTableEq(y:size():totable(), { 2, 4, 3 })
  for i = 1, 2 do tester:assertTensorEq(y[i], lin:forward(x[i]), 1e-12) end
  tester:assertTableEq(b:forward(rnd(6, 5)):size():totable(), { 6, 3 })  -- nothing to bottle
  local go = rnd(2, 4, 3)
  b:zeroGradParameters()
  b:forward(x)
  local gi = b:backward(x, go):clone()
  local gw = lin.gradWeight:clone()
  local gw2 = torch.zeros(3, 5):double()
  for i = 1, 2 do gw2:add(go[i]:t() * x[i]) end
  tester:assertTensorEq(gw, gw2, 1e-12)
  tester:assertTensorEq(gi, (go:view(8, 3) * lin.weight):view(2, 4, 5), 1e-12)
  tester:assertlt(nn.Jacobian.testJacobian(b, rnd(3, 2, 5)), precision)
  tester:assertlt(nn.Jacobian.testJacobianParameters(b, rnd(3, 2, 5), lin.weight, lin.gradWeight), precision)
  -- autograd through the bottle reaches the module's parameters
  lin:zeroGradParameters()
  local xr = x:clone():requiresGrad()
  torch.cmul(b:forward(xr), go):sum():backward()
  tester:assertTensorEq(lin.gradWeight, gw2, 1e-12)
  -- (the Jacobian checks above changed the weight)
  tester:assertTensorEq(xr.grad, (go:view(8, 3) * lin.weight):view(2, 4, 5), 1e-12)
  tester:assertErrorPattern(function() nn.Bottle(nn.Sum(2), 2, 2):double():forward(rnd(2, 3, 4)) end,
    'the module returned 1 dims, expected nOutputDim = 2')
  tester:assertErrorPattern(function() nn.Bottle(3) end, 'expected a module')
end

-- Reference bags: a Lua loop over the bags of idx (1-D with offsets) of weight.
local function naive_bags(w, idx, offsets, mode, psw, pad)
  local n, B, D = idx:size(1), offsets:size(1), w:size(2)
  local out = torch.zeros(B, D):double()
  for b = 1, B do
    local s, e = offsets[b], b < B and offsets[b + 1] - 1 or n
    local count = 0
    for d = 1, D do out[b][d] = mode == 'max' and -math.huge or 0 end
    for i = s, e do
      if idx[i] ~= pad then
        count = count + 1
        for d = 1, D do
          local v = w[idx[i]][d] * (psw and psw[i] or 1)
          if mode == 'max' then out[b][d] = math.max(out[b][d], v) else out[b][d] = out[b][d] + v end
        end
      end
    end
    for d = 1, D do
      if count == 0 then out[b][d] = 0 elseif mode == 'mean' then out[b][d] = out[b][d] / count end
    end
  end
  return out
end

-- Review regression: a module returning a table failed inside Bottle with "attempt to call method
-- 'dim' (a nil value)" instead of an error naming the Bottle.
function tests.bottleTableOutput()
  local b = nn.Bottle(nn.ConcatTable():add(nn.Identity()))
  tester:assertErrorPattern(function() b:forward(rnd(2, 3, 4)) end, 'nn.Bottle.*returned table, expected a tensor')
end

-- Review regressions: paddingIdx out of range failed inside select (0, num + 1) or, negative,
-- zeroed the last row but never left its entries out (PyTorch: -1 is the last row); an offset
-- past the end failed inside an index op; empty indices with a paddingIdx failed in torch.range.
function tests.embeddingBagPaddingAndOffsets()
  tester:assertErrorPattern(function() nn.EmbeddingBag(5, 3, { paddingIdx = 0 }) end, 'paddingIdx 0 out of range for 5 embeddings')
  tester:assertErrorPattern(function() nn.EmbeddingBag(5, 3, { paddingIdx = 6 }) end, 'paddingIdx 6 out of range')
  local m = nn.EmbeddingBag(5, 3, { mode = 'sum', paddingIdx = -1 }):double()
  tester:asserteq(m.paddingIdx, 5)
  local idx = torch.LongTensor({ { 1, 5 }, { 5, 5 } })
  local want = m.weight[1]:clone():view(1, 3)
  tester:assertTensorEq(m:forward(idx), torch.cat(want, torch.zeros(1, 3):double(), 1), 1e-12)
  local w = rnd(5, 3)
  tester:assertTensorEq(nn.functional.embeddingBag(idx, w, { mode = 'sum', paddingIdx = -1 }),
    nn.functional.embeddingBag(idx, w, { mode = 'sum', paddingIdx = 5 }), 0)
  tester:assertErrorPattern(function()
    nn.functional.embeddingBag(torch.LongTensor({ 1, 2 }), w, torch.LongTensor({ 1, 5 }))
  end, '%[embeddingBag%] offsets must start at 1 and increase')
  local e = nn.functional.embeddingBag(torch.LongTensor(0), w, torch.LongTensor({ 1 }), { paddingIdx = 2 })
  tester:assertTensorEq(e, torch.zeros(1, 3):double(), 0)
end

function tests.embeddingBag()
  local idx = torch.LongTensor({ 1, 2, 4, 5, 4, 3, 2, 9 })
  local off = torch.LongTensor({ 1, 3, 3, 7 })  -- the third bag is empty
  for _, mode in ipairs({ 'sum', 'mean', 'max' }) do
    local m = nn.EmbeddingBag(10, 3, { mode = mode }):double()
    tester:assertTensorEq(m:forward({ idx, off }), naive_bags(m.weight, idx, off, mode), 1e-12, mode)
    local m2 = nn.EmbeddingBag(10, 3, { mode = mode, paddingIdx = 4 }):double()
    tester:assertTensorEq(m2.weight[4], torch.zeros(3):double(), 0)
    tester:assertTensorEq(m2:forward({ idx, off }), naive_bags(m2.weight, idx, off, mode, nil, 4), 1e-12,
      mode .. ' padding')
    -- 2-D input: one bag per row
    local idx2 = torch.LongTensor({ { 1, 2, 3 }, { 4, 4, 7 } })
    tester:assertTensorEq(m:forward(idx2), naive_bags(m.weight, idx2:view(-1), torch.LongTensor({ 1, 4 }), mode), 1e-12)
    -- the weight gradient: gradcheck, and Torch7's backward against autograd
    local ok, err = pcall(torch.autograd.gradcheck, function(w)
      return nn.functional.embeddingBag(idx, w, off, { mode = mode })
    end, { m.weight:detach():clone():requiresGrad() })
    tester:assert(ok and err == true, tostring(err))
    local go = rnd(2, 3)
    m:zeroGradParameters()
    m:forward(idx2)
    m:backward(idx2, go)
    local gw = m.gradWeight:clone()
    local w = m.weight:detach():clone():requiresGrad()
    torch.cmul(nn.functional.embeddingBag(idx2, w, { mode = mode }), go):sum():backward()
    tester:assertTensorEq(gw, w.grad, 1e-12, mode .. ' backward')
  end
  local psw = rnd(8)
  local m = nn.EmbeddingBag(10, 3, { mode = 'sum' }):double()
  tester:assertTensorEq(m:forward({ idx, off, psw }), naive_bags(m.weight, idx, off, 'sum', psw), 1e-12)
  local ok, err = pcall(torch.autograd.gradcheck, function(w, p)
    return nn.functional.embeddingBag(idx, w, off, { mode = 'sum', perSampleWeights = p })
  end, { m.weight:detach():clone():requiresGrad(), psw:clone():requiresGrad() })
  tester:assert(ok and err == true, tostring(err))
  tester:asserteq(tostring(nn.EmbeddingBag(10, 3, { paddingIdx = 1 })), 'nn.EmbeddingBag(10, 3, mean, paddingIdx 1)')
  tester:assertErrorPattern(function() m:forward(torch.LongTensor({ 1, 2 })) end, '1%-D indices need offsets')
  tester:assertErrorPattern(function() m:forward({ idx, torch.LongTensor({ 2, 4 }) }) end, 'offsets must start at 1')
  tester:assertErrorPattern(function() m:forward(torch.LongTensor({ { 1, 11 } })) end, 'index out of range')
  tester:assertErrorPattern(function() nn.EmbeddingBag(10, 3, { mode = 'min' }) end, "mode must be 'sum'")
  tester:assertErrorPattern(function() m:forward({ idx, off, rnd(3) }) end, 'perSampleWeights has 3 elements')
end

tester:add(tests)
tester:run()
