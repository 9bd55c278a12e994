-- Convolution and 2-D pooling modules: forward against a naive f64 loop and against PyTorch's
-- values (fixtures/export_pytorch_conv.py, when python3-torch is installed), Jacobians in f64 for
-- batch and single-sample inputs, save/load, Torch7-style backward == autograd, errors naming the
-- module, and a small CNN trained Torch7-style and autograd-style to identical parameters.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local FIXTURES = (arg[0]:match('^(.*)/[^/]*$') or '.') .. '/fixtures'
local checks = dofile(FIXTURES .. '/nn_checks.lua')
local D = torch.DoubleTensor

-- y[n][o][i][j] = b[o] + sum over the group's channels and taps of w * x (zero outside x).
local function naive_conv2d(x, w, b, dH, dW, padH, padW, dilH, dilW, groups)
  local N, C, H, W = x:size(1), x:size(2), x:size(3), x:size(4)
  local O, Cg, kH, kW = w:size(1), w:size(2), w:size(3), w:size(4)
  local oH = math.floor((H + 2 * padH - dilH * (kH - 1) - 1) / dH) + 1
  local oW = math.floor((W + 2 * padW - dilW * (kW - 1) - 1) / dW) + 1
  local y = D(N, O, oH, oW)
  local Og = O / groups
  for n = 1, N do
    for o = 1, O do
      local g = math.floor((o - 1) / Og)
      for i = 1, oH do
        for j = 1, oW do
          local s = b and b[o] or 0
          for c = 1, Cg do
            for u = 1, kH do
              for v = 1, kW do
                local h = (i - 1) * dH - padH + (u - 1) * dilH + 1
                local ww = (j - 1) * dW - padW + (v - 1) * dilW + 1
                if h >= 1 and h <= H and ww >= 1 and ww <= W then
                  s = s + w[o][c][u][v] * x[n][g * Cg + c][h][ww]
                end
              end
            end
          end
          y[n][o][i][j] = s
        end
      end
    end
  end
  return y
end

function tests.spatialConvolutionMatchesNaive()
  torch.manualSeed(1)
  local m = nn.SpatialConvolution(4, 6, 3, 2, 2, 1, 1, 0, 2):double()  -- kW 3, kH 2, dW 2, dH 1, padW 1, groups 2
  local x = torch.randn(2, 4, 5, 7):double()
  local ref = naive_conv2d(x, m.weight, m.bias, 1, 2, 0, 1, 1, 1, 2)
  tester:assertTensorEq(m:forward(x), ref, 1e-12)
  tester:assertTensorEq(m:forward(x[2]), ref[2], 1e-12)
  local d = nn.SpatialDilatedConvolution(3, 2, 3, 3, 1, 2, 2, 1, 2, 1):double()
  local xd = torch.randn(2, 3, 8, 6):double()
  tester:assertTensorEq(d:forward(xd), naive_conv2d(xd, d.weight, d.bias, 2, 1, 1, 2, 1, 2, 1), 1e-12)
  local mm = nn.SpatialConvolutionMM(3, 5, 3, 3, 1, 1, 1, 1):double()
  tester:eq(mm.weight:size():totable(), { 5, 27 })
  tester:assertTensorEq(mm:forward(xd), naive_conv2d(xd, mm.weight:view(5, 3, 3, 3), mm.bias, 1, 1, 1, 1, 1, 1, 1),
    1e-12)
  local nb = nn.SpatialConvolution(3, 2, 2, 2):noBias():double()
  tester:assertTensorEq(nb:forward(xd), naive_conv2d(xd, nb.weight, nil, 1, 1, 0, 0, 1, 1, 1), 1e-12)
  tester:asserteq(tostring(m), 'nn.SpatialConvolution(4 -> 6, 3x2, 2,1, 1,0, groups 2)')
  tester:asserteq(tostring(nn.SpatialConvolution(3, 16, 5, 5)), 'nn.SpatialConvolution(3 -> 16, 5x5)')
end

function tests.poolingMatchesNaive()
  torch.manualSeed(2)
  local x = torch.randn(2, 3, 7, 6):double()
  local mp = nn.SpatialMaxPooling(3, 2, 2, 2):double()
  local y = mp:forward(x)
  tester:eq(y:size():totable(), { 2, 3, 3, 2 })
  local ap = nn.SpatialAveragePooling(3, 2, 2, 2):double()
  local a = ap:forward(x)
  for n = 1, 2 do
    for c = 1, 3 do
      for i = 1, 3 do
        for j = 1, 2 do
          local win = x[n][c]:narrow(1, (i - 1) * 2 + 1, 2):narrow(2, (j - 1) * 2 + 1, 3)
          tester:assertalmosteq(y[n][c][i][j], win:max(), 0)
          tester:assertalmosteq(a[n][c][i][j], win:sum() / 6, 1e-12)
          local k = mp.indices[n][c][i][j]
          tester:asserteq(x[n][c][math.floor((k - 1) / 6) + 1][(k - 1) % 6 + 1], y[n][c][i][j])
        end
      end
    end
  end
  tester:eq(nn.SpatialMaxPooling(2, 2):ceil():forward(torch.randn(1, 5, 5)):size():totable(), { 1, 3, 3 })
  tester:asserteq(tostring(nn.SpatialMaxPooling(2, 2)), 'nn.SpatialMaxPooling(2x2, 2,2)')
end

-- 2x2 stride-2 max pooling computes its rows in whole vector blocks that run past each row (Note
-- [Whole-block pooling rows]): every width from 2 to 19 (shorter than, equal to and past a block),
-- odd heights, ceil mode's cut windows, ties (the first maximum wins), NaNs and both dtypes against
-- a plain loop; then the CNN's shapes split over two threads against a reference by unfold.
function tests.twoByTwoMaxPoolingMatchesPlainWindows()
  torch.manualSeed(4)
  local function plain(x, ceil)
    local P, H, W = x:size(1), x:size(2), x:size(3)
    local oH = ceil and math.ceil((H - 2) / 2) + 1 or math.floor((H - 2) / 2) + 1
    local oW = ceil and math.ceil((W - 2) / 2) + 1 or math.floor((W - 2) / 2) + 1
    local y, ix = torch.DoubleTensor(P, oH, oW), torch.LongTensor(P, oH, oW)
    local xs = x:double():contiguous():storage()
    for p = 0, P - 1 do
      for i = 0, oH - 1 do
        for j = 0, oW - 1 do
          local m, best = -math.huge, 2 * i * W + 2 * j
          for h = 2 * i, math.min(2 * i + 1, H - 1) do
            for w = 2 * j, math.min(2 * j + 1, W - 1) do
              local v = xs[p * H * W + h * W + w + 1]
              if v > m or v ~= v then m, best = v, h * W + w end  -- the last NaN wins
            end
          end
          y[p + 1][i + 1][j + 1], ix[p + 1][i + 1][j + 1] = m, best + 1
        end
      end
    end
    return y, ix
  end
  for _, T in ipairs({ 'torch.FloatTensor', 'torch.DoubleTensor' }) do
    for W = 2, 19 do
      for _, H in ipairs({ 2, 3, 5 }) do
        for _, ceil in ipairs({ false, true }) do
          local x = torch.randn(3, H, W):type(T)
          x:apply(function(v) return v > 1.2 and 1.5 or v end)  -- ties
          if W > 3 then x[2][1][W - 1] = 0 / 0 end
          if W > 5 and H > 2 then x[3][1][3], x[3][2][4] = 0 / 0, 0 / 0 end  -- two NaNs in one window
          local mp = nn.SpatialMaxPooling(2, 2):type(T)
          if ceil then mp:ceil() end
          local y = mp:forward(x)
          local ry, ri = plain(x, ceil)
          local what = string.format('%s %dx%d ceil %s', T, H, W, tostring(ceil))
          tester:eq(y:size():totable(), ry:size():totable(), what)
          tester:assertTensorEq(mp.indices, ri, 0, what .. ' indices')
          local same = y:double():eq(ry):add(y:double():ne(y:double()):cmul(ry:ne(ry)))
          tester:asserteq(same:sum(), ry:nElement(), what .. ' values')
        end
      end
    end
  end
  local threads = torch.getnumthreads()
  torch.setnumthreads(2)
  for _, size in ipairs({ { 64, 32, 28, 28 }, { 64, 64, 14, 14 }, { 3, 5, 14, 14 } }) do
    local x = torch.randn(unpack(size))
    local N, C, H, W = unpack(size)
    local mp = nn.SpatialMaxPooling(2, 2)
    local y = mp:forward(x)
    local rv, rk = x:unfold(3, 2, 2):unfold(4, 2, 2):contiguous():view(N, C, H / 2, W / 2, 4):max(5)
    rk = rk:squeeze(5)
    local rows = torch.range(0, H / 2 - 1):view(1, 1, H / 2, 1):long():expandAs(rk)
    local cols = torch.range(0, W / 2 - 1):view(1, 1, 1, W / 2):long():expandAs(rk)
    local dw = (rk - 1) % 2
    local dh = ((rk - 1 - dw) / 2):long()  -- integer tensors divide truly
    local ri = (rows * 2 + dh) * W + cols * 2 + dw + 1
    tester:assertTensorEq(y, rv:squeeze(5), 0, table.concat(size, 'x'))
    tester:assertTensorEq(mp.indices, ri:long(), 0, table.concat(size, 'x') .. ' indices')
  end
  torch.setnumthreads(threads)
end

-- Every module: Jacobians (input, parameters, update) in f64 for batch and single-sample inputs,
-- save/load, clearState, Torch7 backward == autograd, float()/double().
function tests.jacobiansAndStandardChecks()
  torch.manualSeed(3)
  local cases = {
    { nn.SpatialConvolution(2, 3, 3, 2, 2, 1, 1, 0), { 2, 7, 6 } },
    { nn.SpatialConvolution(4, 2, 2, 2, 1, 1, 1, 1, 2), { 4, 5, 5 } },
    { nn.SpatialConvolutionMM(2, 3, 3, 3, 1, 1, 1, 1), { 2, 5, 6 } },
    { nn.SpatialDilatedConvolution(2, 3, 3, 3, 1, 1, 2, 2, 2, 2), { 2, 7, 7 } },
    { nn.SpatialFullConvolution(2, 3, 3, 3, 2, 2, 1, 1, 1, 1), { 2, 4, 3 } },
    { nn.TemporalConvolution(3, 4, 3, 2), { 9, 3 } },
    { nn.VolumetricConvolution(2, 3, 2, 3, 2, 1, 1, 1, 1, 0, 1), { 2, 4, 5, 5 } },
    { nn.SpatialMaxPooling(3, 3, 2, 2, 1, 1):ceil(), { 2, 7, 8 } },
    { nn.SpatialAveragePooling(3, 3, 2, 2, 1, 1), { 2, 7, 8 } },
    { nn.SpatialAveragePooling(3, 2, 2, 2, 1, 1):ceil():setCountExcludePad(), { 2, 7, 8 } },
  }
  for _, c in ipairs(cases) do
    local m, size = c[1]:double(), c[2]
    local single = torch.randn(unpack(size)):double()
    local batch = torch.randn(2, unpack(size)):double()
    checks.jacobian(tester, m, single, 1e-6, tostring(m) .. ' single')
    checks.standard(tester, m, batch, 1e-6)
  end
end

-- PyTorch's outputs and gradients (f64) for the same weights and inputs.
local have_torch = os.execute('/usr/bin/python3 -c "import torch" >/dev/null 2>&1')
if have_torch == 0 or have_torch == true then
  function tests.matchesPyTorch()
    local path = os.tmpname()
    local ok = os.execute(string.format('/usr/bin/python3 %s/export_pytorch_conv.py %s', FIXTURES, path))
    tester:assert(ok == 0 or ok == true, 'export script failed')
    local r = torch.loadSafetensors(path)
    os.remove(path)
    local function run(name, m, x, w, b)
      if w then m.weight:copy(r[name .. '.w']:viewAs(m.weight)) end
      if b then m.bias:copy(r[name .. '.b']) end
      m:zeroGradParameters()
      local y = m:forward(x)
      tester:assertTensorEq(y, r[name .. '.y'], 1e-10, name .. ' output')
      local gi = m:backward(x, r[name .. '.gout'])
      tester:assertTensorEq(gi, r[name .. '.gx'], 1e-10, name .. ' gradInput')
      if w then tester:assertTensorEq(m.gradWeight:viewAs(r[name .. '.gw']), r[name .. '.gw'], 1e-10, name .. ' gradWeight') end
      if b then tester:assertTensorEq(m.gradBias, r[name .. '.gb'], 1e-10, name .. ' gradBias') end
    end
    -- stride (dH 2, dW 1), padding (padH 1, padW 0), dilation (H 1, W 2), groups 2
    local conv = nn.SpatialConvolution(4, 6, 2, 3, 1, 2, 0, 1, 2)
    conv.dilationW, conv.dilationH = 2, 1
    run('conv2d', conv:double(), r['conv2d.x'], true, true)
    run('conv2dpad', nn.SpatialConvolution(3, 5, 3, 3, 1, 1, 1, 1):double(), r['conv2dpad.x'], true, true)
    run('conv2dpad', nn.SpatialConvolutionMM(3, 5, 3, 3, 1, 1, 1, 1):double(), r['conv2dpad.x'], true, true)
    run('convT2d', nn.SpatialFullConvolution(4, 3, 3, 3, 2, 2, 1, 1, 1, 1):double(), r['convT2d.x'], true, true)
    run('conv3d', nn.VolumetricConvolution(2, 3, 2, 2, 3, 1, 1, 2, 1, 1, 0):double(), r['conv3d.x'], true, true)
    run('maxpool', nn.SpatialMaxPooling(2, 3, 2, 2, 1, 1):ceil():double(), r['maxpool.x'])
    run('avgpool', nn.SpatialAveragePooling(2, 3, 2, 2, 1, 1):ceil():setCountExcludePad():double(), r['avgpool.x'])
    run('avgpoolpad', nn.SpatialAveragePooling(3, 3, 2, 2, 1, 1):double(), r['avgpoolpad.x'])
    -- Torch7's 1-based indices are PyTorch's plus one.
    local _, idx = torch.maxPool2d(r['maxpool.x'], { 3, 2 }, 2, 1, true)
    tester:assertTensorEq(idx:double(), r['maxpool.indices'] + 1, 0, 'max pooling indices')
    -- TemporalConvolution is conv1d on the transposed input, with the weight's taps outermost.
    local t = nn.TemporalConvolution(3, 4, 3, 2):double()
    t.weight:copy(r['conv1d.w']:transpose(2, 3):contiguous():view(4, 9))
    t.bias:copy(r['conv1d.b'])
    local xt = r['conv1d.x']:transpose(2, 3):contiguous()
    tester:assertTensorEq(t:forward(xt), r['conv1d.y']:transpose(2, 3), 1e-10, 'TemporalConvolution output')
    tester:assertTensorEq(t:backward(xt, r['conv1d.gout']:transpose(2, 3):contiguous()), r['conv1d.gx']:transpose(2, 3),
      1e-10, 'TemporalConvolution gradInput')
    tester:assertTensorEq(t.gradWeight, r['conv1d.gw']:transpose(2, 3):contiguous():view(4, 9), 1e-10,
      'TemporalConvolution gradWeight')
    -- The functional forms, differentiated by autograd.
    local x, w, b = r['conv2d.x']:clone():requiresGrad(), r['conv2d.w']:clone():requiresGrad(),
      r['conv2d.b']:clone():requiresGrad()
    local y = torch.conv2d(x, w, b, { 2, 1 }, { 1, 0 }, { 1, 2 }, 2)
    tester:assertTensorEq(y, r['conv2d.y'], 1e-10, 'conv2d')
    torch.cmul(y, r['conv2d.gout']):sum():backward()
    tester:assertTensorEq(x.grad, r['conv2d.gx'], 1e-10, 'conv2d gx')
    tester:assertTensorEq(w.grad, r['conv2d.gw'], 1e-10, 'conv2d gw')
    tester:assertTensorEq(b.grad, r['conv2d.gb'], 1e-10, 'conv2d gb')
    tester:assertTensorEq(torch.convTranspose2d(r['convT2d.x'], r['convT2d.w'], r['convT2d.b'], 2, 1, 1), r['convT2d.y'],
      1e-10, 'convTranspose2d')
    tester:assertTensorEq(torch.conv1d(r['conv1d.x'], r['conv1d.w'], r['conv1d.b'], 2), r['conv1d.y'], 1e-10, 'conv1d')
    tester:assertTensorEq(torch.conv3d(r['conv3d.x'], r['conv3d.w'], r['conv3d.b'], { 1, 2, 1 }, { 1, 0, 1 }),
      r['conv3d.y'], 1e-10, 'conv3d')
    tester:assertTensorEq(torch.avgPool2d(r['avgpool.x'], { 3, 2 }, 2, 1, true, false), r['avgpool.y'], 1e-12,
      'avgPool2d')
  end
else
  print('test_nn_conv: /usr/bin/python3 has no torch module (Debian python3-torch); PyTorch comparison skipped')
end

function tests.errorsNameTheModule()
  local m = nn.SpatialConvolution(3, 16, 5, 5)
  tester:assertErrorPattern(function() m:forward(torch.randn(2, 1, 28, 28)) end,
    '%[nn%.SpatialConvolution%(3 %-> 16, 5x5%)%] expected .*3 x H x W.* got .*2x1x28x28')
  tester:assertErrorPattern(function() m:forward(torch.randn(3, 4, 4)) end, 'smaller than the kernel')
  tester:assertErrorPattern(function() m:forward(torch.randn(28, 28)) end, 'size 28x28')
  tester:assertErrorPattern(function() nn.SpatialConvolution(3, 4, 0, 3) end, 'positive integer sizes')
  tester:assertErrorPattern(function() nn.SpatialConvolution(3, 4, 3, 3, 1, 1, 0, 0, 2) end, 'divisible by groups')
  local mp = nn.SpatialMaxPooling(2, 2)
  tester:assertErrorPattern(function() mp:forward(torch.randn(5)) end, '%[nn%.SpatialMaxPooling%(2x2, 2,2%)%].*size 5')
  tester:assertErrorPattern(function() nn.SpatialAveragePooling(2, 2, 1, 1, 2, 2) end, 'half the kernel')
  local t = nn.TemporalConvolution(3, 4, 3)
  tester:assertErrorPattern(function() t:forward(torch.randn(9, 2)) end, 'nn%.TemporalConvolution.*9x2')
  local v = nn.VolumetricConvolution(2, 3, 2, 2, 2)
  tester:assertErrorPattern(function() v:forward(torch.randn(1, 4, 4, 4)) end, 'nn%.VolumetricConvolution.*1x4x4x4')
  local f = nn.SpatialFullConvolution(2, 3, 3, 3)
  tester:assertErrorPattern(function() f:forward(torch.randn(3, 4, 4)) end, 'nn%.SpatialFullConvolution.*3x4x4')
  tester:assertErrorPattern(function() torch.conv2d(torch.randn(1, 2, 5, 5), torch.randn(3, 3, 3, 3)) end,
    '%[conv%] input of size 1x2x5x5 has 2 channels')
  tester:assertErrorPattern(function() torch.maxPool2d(torch.randn(1, 2, 5, 5), 0) end, 'maxPool2d')
  local g = nn.SpatialConvolution(2, 3, 3, 3):double()
  local x = torch.randn(2, 2, 5, 5):double()
  g:forward(x)
  tester:assertErrorPattern(function() g:backward(x, torch.randn(2, 3, 4, 4):double()) end, 'gradOutput.*2x3x3x3')
end

local function cnn()
  return nn.Sequential()
    :add(nn.SpatialConvolution(1, 4, 3, 3, 1, 1, 1, 1)):add(nn.ReLU()):add(nn.SpatialMaxPooling(2, 2))
    :add(nn.SpatialConvolution(4, 6, 3, 3, 1, 1, 1, 1)):add(nn.ReLU()):add(nn.SpatialAveragePooling(2, 2, 2, 2))
    :add(nn.View(6 * 2 * 2)):add(nn.Linear(24, 3)):add(nn.LogSoftMax()):double()
end

-- The issue's requirement: model:backward (Torch7) and loss:backward() (autograd) train alike.
function tests.cnnTorch7AndAutogradTrainIdentically()
  torch.manualSeed(7)
  local a = cnn()
  local b = a:clone()
  local x = torch.randn(5, 1, 8, 8):double()
  local t = torch.LongTensor({ 1, 2, 3, 1, 2 })
  local crit = nn.ClassNLLCriterion()
  for _ = 1, 10 do
    a:zeroGradParameters()
    local out = a:forward(x)
    crit:forward(out, t)
    a:backward(x, crit:backward(out, t))
    a:updateParameters(0.1)

    b:zeroGradParameters()
    crit(b(x), t):backward()
    b:updateParameters(0.1)
  end
  local pa, pb = a:parameters(), b:parameters()
  for i = 1, #pa do tester:assertTensorEq(pa[i], pb[i], 0, 'parameter ' .. i) end
  checks.jacobian(tester, cnn(), torch.randn(2, 1, 8, 8):double(), 1e-6, 'cnn')
end

tester:add(tests)
tester:run()
