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

-- Random 2-D pooling geometries (kernel, stride, padding, ceil mode, countIncludePad) against plain
-- loops over each window: max values and positions, averages, and both backward passes (max: the
-- gradient at the recorded positions; average: the adjoint <avg(x), g> = <x, avg'(g)>).
function tests.randomPoolingMatchesPlainLoops()
  local rng = torch.Generator()
  torch.manualSeed(rng, 5)
  local function pick(lo, hi) return math.floor(torch.uniform(rng) * (hi - lo + 1)) + lo end
  local function out_size(n, k, s, p, ceil)
    local o = (ceil and math.ceil or math.floor)((n + 2 * p - k) / s) + 1
    if ceil and (o - 1) * s >= n + p then o = o - 1 end  -- the last window starts inside
    return o
  end
  local cases = 0
  while cases < 40 do
    local H, W, kH, kW = pick(1, 9), pick(1, 9), pick(1, 4), pick(1, 4)
    local dH, dW = pick(1, 3), pick(1, 3)
    local pH, pW = pick(0, math.floor(kH / 2)), pick(0, math.floor(kW / 2))
    local ceil, include = pick(0, 1) == 1, pick(0, 1) == 1
    if H + 2 * pH >= kH and W + 2 * pW >= kW then
      cases = cases + 1
      local what = string.format('%dx%d kernel %dx%d stride %d,%d pad %d,%d ceil %s include %s', H, W, kH, kW, dH,
        dW, pH, pW, tostring(ceil), tostring(include))
      local x = torch.randn(2, 3, H, W):double()
      local oH, oW = out_size(H, kH, dH, pH, ceil), out_size(W, kW, dW, pW, ceil)
      local y, ix = torch.maxPool2d(x, { kH, kW }, { dH, dW }, { pH, pW }, ceil)
      local a = torch.avgPool2d(x, { kH, kW }, { dH, dW }, { pH, pW }, ceil, include)
      tester:eq(y:size():totable(), { 2, 3, oH, oW }, what .. ': max size')
      tester:eq(a:size():totable(), { 2, 3, oH, oW }, what .. ': average size')
      local ry, ra, ri = torch.DoubleTensor(2, 3, oH, oW), torch.DoubleTensor(2, 3, oH, oW), torch.LongTensor(2, 3, oH, oW)
      for n = 1, 2 do
        for c = 1, 3 do
          local xp = x[n][c]
          for i = 1, oH do
            for j = 1, oW do
              local h0, w0 = (i - 1) * dH - pH, (j - 1) * dW - pW
              local h1, w1 = math.min(h0 + kH, H + pH), math.min(w0 + kW, W + pW)
              local padded = (h1 - h0) * (w1 - w0)
              local m, best, sum, count = -math.huge, nil, 0, 0
              for h = math.max(h0, 0), math.min(h1, H) - 1 do
                for w = math.max(w0, 0), math.min(w1, W) - 1 do
                  local v = xp[h + 1][w + 1]
                  if v > m then m, best = v, h * W + w + 1 end
                  sum, count = sum + v, count + 1
                end
              end
              ry[n][c][i][j], ri[n][c][i][j] = m, best
              ra[n][c][i][j] = sum / (include and padded or count)
            end
          end
        end
      end
      tester:assertTensorEq(y, ry, 0, what .. ': max values')
      tester:assertTensorEq(ix, ri, 0, what .. ': max positions')
      tester:assertTensorEq(a, ra, 1e-12, what .. ': averages')
      -- backward through autograd
      local xg = x:clone():requiresGrad(true)
      local g = torch.randn(2, 3, oH, oW):double()
      local ym = torch.maxPool2d(xg, { kH, kW }, { dH, dW }, { pH, pW }, ceil)
      torch.sum(torch.cmul(ym, g)):backward()
      local expect = torch.zeros(2, 3, H * W):double()
      for n = 1, 2 do
        for c = 1, 3 do
          for q = 1, oH * oW do
            local pos = ri[n][c]:view(-1)[q]
            expect[n][c][pos] = expect[n][c][pos] + g[n][c]:view(-1)[q]
          end
        end
      end
      tester:assertTensorEq(xg.grad, expect:view(2, 3, H, W), 1e-12, what .. ': max backward')
      local xa = x:clone():requiresGrad(true)
      torch.sum(torch.cmul(torch.avgPool2d(xa, { kH, kW }, { dH, dW }, { pH, pW }, ceil, include), g)):backward()
      tester:assertalmosteq(torch.dot(xa.grad, x), torch.dot(ra, g), 1e-10, what .. ': average backward (adjoint)')
    end
  end
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
