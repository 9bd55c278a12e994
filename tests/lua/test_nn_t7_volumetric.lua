-- Torch7's volumetric convolution-family modules Tocha had lacked: VolumetricFullConvolution,
-- VolumetricDilatedConvolution, VolumetricReplicationPadding, VolumetricUpSamplingNearest and
-- VolumetricUpSamplingTrilinear: values against direct convolutions, paddings and resamplings
-- written as plain Lua loops, nn.Jacobian checks in f64 (input and every parameter,
-- accUpdateGradParameters too), Torch7's backward against autograd's, batch against single
-- samples, :float(), printing, serialization and the errors.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local cc = dofile(here .. '/fixtures/nn_conv_checks.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()
torch.manualSeed(11)  -- the cases draw random inputs: a failure reproduces
local unpack = table.unpack or unpack

local function rnd(...) return torch.randn(...):double() end
local reader = cc.reader
-- The checks every module gets (fixtures/nn_conv_checks.lua): x is an f64 batch.
local function common(m, x, label, opts) return cc.common(tester, m, x, label, opts) end

-- ---- direct (loop) references --------------------------------------------------------------------

-- 3-D convolution of x (N x C x T x H x W) with w (O x C x kT x kH x kW); s, p, dl: {t, h, w}.
local function naive_conv3d(x, w, b, s, p, dl)
  local X, Wt = reader(x), reader(w)
  local N, C = x:size(1), x:size(2)
  local O, k, i, o = w:size(1), { w:size(3), w:size(4), w:size(5) }, { x:size(3), x:size(4), x:size(5) }, {}
  for d = 1, 3 do o[d] = math.floor((i[d] + 2 * p[d] - dl[d] * (k[d] - 1) - 1) / s[d]) + 1 end
  local res = {}
  for n = 1, N do for oc = 1, O do for ot = 1, o[1] do for oh = 1, o[2] do for ow = 1, o[3] do
    local v = b and b[oc] or 0
    for c = 1, C do for a = 1, k[1] do for bb = 1, k[2] do for cc = 1, k[3] do
      local it = (ot - 1) * s[1] + (a - 1) * dl[1] + 1 - p[1]
      local ih = (oh - 1) * s[2] + (bb - 1) * dl[2] + 1 - p[2]
      local iw = (ow - 1) * s[3] + (cc - 1) * dl[3] + 1 - p[3]
      if it >= 1 and it <= i[1] and ih >= 1 and ih <= i[2] and iw >= 1 and iw <= i[3] then
        v = v + X(n, c, it, ih, iw) * Wt(oc, c, a, bb, cc)
      end
    end end end end
    res[#res + 1] = v
  end end end end end
  return torch.DoubleTensor(res):view(N, O, o[1], o[2], o[3])
end

-- The transposed 3-D convolution, as a scatter: every input voxel adds its kernel times itself
-- at (t-1)*s + a - p (1-based); w is C x O x kT x kH x kW.
local function naive_full3d(x, w, b, s, p, adj)
  local X, Wt = reader(x), reader(w)
  local N, C, O = x:size(1), x:size(2), w:size(2)
  local k, i, o = { w:size(3), w:size(4), w:size(5) }, { x:size(3), x:size(4), x:size(5) }, {}
  for d = 1, 3 do o[d] = (i[d] - 1) * s[d] - 2 * p[d] + k[d] + adj[d] end
  local out = torch.zeros(N, O, o[1], o[2], o[3]):double()
  for oc = 1, O do out:select(2, oc):fill(b[oc]) end
  local res = out:view(-1):totable()
  local function at(n, oc, t, h, ww) return (((((n - 1) * O + oc - 1) * o[1] + t - 1) * o[2] + h - 1) * o[3]) + ww end
  for n = 1, N do for c = 1, C do for it = 1, i[1] do for ih = 1, i[2] do for iw = 1, i[3] do
    local v = X(n, c, it, ih, iw)
    for oc = 1, O do for a = 1, k[1] do for bb = 1, k[2] do for cc = 1, k[3] do
      local t, h, ww = (it - 1) * s[1] + a - p[1], (ih - 1) * s[2] + bb - p[2], (iw - 1) * s[3] + cc - p[3]
      if t >= 1 and t <= o[1] and h >= 1 and h <= o[2] and ww >= 1 and ww <= o[3] then
        res[at(n, oc, t, h, ww)] = res[at(n, oc, t, h, ww)] + v * Wt(c, oc, a, bb, cc)
      end
    end end end end
  end end end end end
  return torch.DoubleTensor(res):view(N, O, o[1], o[2], o[3])
end

-- ---- volumetric convolutions ---------------------------------------------------------------------

function tests.volumetricFullConvolution()
  -- (nIn, nOut, kT, kW, kH, dT, dW, dH, padT, padW, padH, adjT, adjW, adjH)
  local cfgs = { { 2, 3, 2, 3, 2 }, { 2, 3, 2, 3, 2, 2, 1, 2, 1, 0, 1, 1, 0, 1 }, { 1, 2, 3, 2, 2, 3, 2, 2, 1, 1, 0, 2, 1, 0 } }
  for _, c in ipairs(cfgs) do
    local m = nn.VolumetricFullConvolution(unpack(c, 1, 14)):double()
    local x = rnd(2, c[1], 3, 2, 3)
    local label = tostring(m)
    local ref = naive_full3d(x, m.weight, m.bias, { m.dT, m.dH, m.dW }, { m.padT, m.padH, m.padW },
      { m.adjT, m.adjH, m.adjW })
    tester:assertTensorEq(m:forward(x), ref, 1e-12, label .. ' values')
    common(m, x, label, { single = true })
  end
  local m = nn.VolumetricFullConvolution(2, 3, 2, 3, 2, 2, 1, 2, 1, 0, 1, 1, 0, 1)
  tester:asserteq(tostring(m), 'nn.VolumetricFullConvolution(2 -> 3, 3x2x2, 1,2,2, 0,1,1, 0,1,1)')
  tester:asserteq(tostring(nn.VolumetricFullConvolution(2, 3, 2, 3, 4)), 'nn.VolumetricFullConvolution(2 -> 3, 3x4x2)')
  tester:asserteq(tostring(nn.VolumetricFullConvolution(2, 3, 2, 2, 2):noBias()),
    'nn.VolumetricFullConvolution(2 -> 3, 2x2x2) without bias')
  tester:assertTableEq(m.weight:size():totable(), { 2, 3, 2, 2, 3 }, 'weight nInputPlane x nOutputPlane x kT x kH x kW')
  -- without bias
  local nb = nn.VolumetricFullConvolution(2, 2, 2, 2, 2, 2, 2, 2):noBias():double()
  local x = rnd(2, 2, 2, 2, 2)
  tester:assertTensorEq(nb:forward(x), naive_full3d(x, nb.weight, torch.zeros(2), { 2, 2, 2 }, { 0, 0, 0 }, { 0, 0, 0 }),
    1e-12)
  common(nb, x, 'noBias')
  -- a file from before adj*: weight nOutputPlane x nInputPlane, pads pT/pW/pH
  local old = nn.VolumetricFullConvolution(2, 3, 2, 2, 2, 1, 1, 1, 1, 1, 1):double()
  local want = old:forward(x):clone()
  old.weight = old.weight:transpose(1, 2):contiguous()
  old.adjT, old.adjW, old.adjH = nil, nil, nil
  old.pT, old.pW, old.pH, old.padT, old.padW, old.padH = 1, 1, 1, nil, nil, nil
  old:afterLoad()
  tester:assertTensorEq(old:forward(x), want, 1e-12, 'old format upgraded')
  tester:assertErrorPattern(function() nn.VolumetricFullConvolution(2, 3, 2, 2, 2, 1, 1, 1, 0, 0, 0, 1) end,
    'adjT, adjW and adjH must be smaller than dT, dW and dH')
  tester:assertErrorPattern(function() nn.VolumetricFullConvolution('x', 3, 2, 2, 2) end, 'nInputPlane must be an integer')
  tester:assertErrorPattern(function() nn.VolumetricFullConvolution(2, 3, 0, 2, 2) end, 'kT must be an integer >= 1')
  tester:assertErrorPattern(function() m:forward(rnd(2, 3, 2, 2, 2)) end,
    '%[nn.VolumetricFullConvolution%(2 %-> 3.*expected a 4D %(2 x D x H x W%) or 5D')
  tester:assertErrorPattern(function() m:forward(rnd(2, 2)) end, 'expected a 4D')
  tester:assertErrorPattern(function() m:forward({ rnd(2, 2, 2, 2) }) end, 'expected a 4D')
  local big = nn.VolumetricFullConvolution(1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1)
  tester:assertErrorPattern(function() big:forward(torch.randn(1, 1, 1, 1)) end, 'gives an empty output')
  m:double()
  local xi = rnd(2, 2, 2, 2, 2)
  m:forward(xi)
  tester:assertErrorPattern(function() m:backward(xi, rnd(2, 3, 2, 2, 2)) end, 'gradOutput must have the output size')
end

function tests.volumetricDilatedConvolution()
  -- (nIn, nOut, kT, kW, kH, dT, dW, dH, padT, padW, padH, dilationT, dilationW, dilationH)
  local cfgs = { { 2, 3, 2, 2, 2 }, { 2, 3, 2, 3, 2, 1, 2, 1, 1, 0, 1, 2, 1, 2 }, { 1, 2, 2, 2, 2, 2, 1, 1, 0, 1, 1, 1, 3, 2 } }
  for _, c in ipairs(cfgs) do
    local m = nn.VolumetricDilatedConvolution(unpack(c, 1, 14)):double()
    local x = rnd(2, c[1], 4, 5, 6)
    local label = tostring(m)
    local ref = naive_conv3d(x, m.weight, m.bias, { m.dT, m.dH, m.dW }, { m.padT, m.padH, m.padW },
      { m.dilationT, m.dilationH, m.dilationW })
    tester:assertTensorEq(m:forward(x), ref, 1e-12, label .. ' values')
    common(m, x, label, { single = true })
  end
  local m = nn.VolumetricDilatedConvolution(2, 3, 2, 3, 2, 1, 2, 1, 1, 0, 1, 2, 1, 2)
  tester:assert(torch.isTypeOf(m, 'nn.VolumetricConvolution'), 'a VolumetricConvolution')
  tester:asserteq(tostring(m), 'nn.VolumetricDilatedConvolution(2 -> 3, 2x3x2, 1,2,1, 1,0,1, 2,1,2)')
  tester:asserteq(tostring(nn.VolumetricDilatedConvolution(2, 3, 2, 2, 2)),
    'nn.VolumetricDilatedConvolution(2 -> 3, 2x2x2, 1,1,1)')
  -- missing pads follow VolumetricConvolution's rule (padW = padT, padH = padW)
  local p = nn.VolumetricDilatedConvolution(1, 1, 3, 3, 3, 1, 1, 1, 1)
  tester:assertTableEq({ p.padT, p.padW, p.padH }, { 1, 1, 1 })
  tester:assertErrorPattern(function() nn.VolumetricDilatedConvolution(2, 3, 2, 2, 2, 1, 1, 1, 0, 0, 0, 0) end,
    '%[nn.VolumetricDilatedConvolution%] dilationT must be an integer >= 1')
  tester:assertErrorPattern(function() nn.VolumetricDilatedConvolution(2, 0, 2, 2, 2) end,
    '%[nn.VolumetricDilatedConvolution%] nOutputPlane must be an integer >= 1')
  -- the dilated kernel spans 3 x 3 x 3 here
  local d = nn.VolumetricDilatedConvolution(1, 1, 2, 2, 2, 1, 1, 1, 0, 0, 0, 2, 2, 2)
  tester:assertErrorPattern(function() d:forward(torch.randn(1, 2, 3, 3)) end, 'smaller than the kernel')
  tester:assertErrorPattern(function() m:forward(torch.randn(3, 4, 4, 4)) end, 'expected a 4D %(2 x D x H x W%)')
end

-- ---- volumetric padding and resampling -----------------------------------------------------------

function tests.volumetricReplicationPadding()
  local function clamp(v, n) return math.max(1, math.min(n, v)) end
  for _, pads in ipairs({ { 1 }, { 1, 2, 0, 1, 2, 1 }, { 0, -1, 2, 0, -1, 1 } }) do
    local m = nn.VolumetricReplicationPadding(unpack(pads, 1, 6)):double()
    local x = rnd(2, 3, 3, 4, 5)
    local y = m:forward(x)
    local X = reader(x)
    local T, H, W = y:size(3), y:size(4), y:size(5)
    tester:assertTableEq(y:size():totable(), { 2, 3, 3 + m.pfront + m.pback, 4 + m.ptop + m.pbottom,
      5 + m.pleft + m.pright }, tostring(m) .. ' size')
    local ref = {}
    for n = 1, 2 do for c = 1, 3 do for t = 1, T do for h = 1, H do for w = 1, W do
      ref[#ref + 1] = X(n, c, clamp(t - m.pfront, 3), clamp(h - m.ptop, 4), clamp(w - m.pleft, 5))
    end end end end end
    tester:assertTensorEq(y, torch.DoubleTensor(ref):viewAs(y), 0, tostring(m) .. ' values')
    common(m, x, tostring(m), { single = true })
  end
  local m = nn.VolumetricReplicationPadding(1, 2, 3, 4, 5, 6)
  tester:asserteq(tostring(m), 'nn.VolumetricReplicationPadding(left=1, right=2, top=3, bottom=4, front=5, back=6)')
  tester:asserteq(tostring(nn.VolumetricReplicationPadding(2)),
    'nn.VolumetricReplicationPadding(left=2, right=2, top=2, bottom=2, front=2, back=2)')
  tester:assertErrorPattern(function() nn.VolumetricReplicationPadding(1.5) end, 'pleft must be an integer')
  tester:assertErrorPattern(function() nn.VolumetricReplicationPadding(1, 1, 'a') end, 'ptop must be an integer')
  tester:assertErrorPattern(function() m:forward(torch.randn(3, 4, 5)) end,
    '%[nn.VolumetricReplicationPadding%(left=1.*expected a 4D or 5D')
  tester:assertErrorPattern(function() nn.VolumetricReplicationPadding(-2):forward(torch.randn(1, 3, 3, 3)) end,
    'too small')
  local x = torch.randn(1, 2, 2, 2)
  m:forward(x)
  tester:assertErrorPattern(function() m:backward(x, torch.randn(1, 2, 2, 2)) end, 'gradOutput')
end

function tests.volumetricUpSamplingNearest()
  local m = nn.VolumetricUpSamplingNearest(2):double()
  local x = rnd(2, 3, 2, 3, 2)
  local y = m:forward(x)
  tester:assertTableEq(y:size():totable(), { 2, 3, 4, 6, 4 })
  local X, ref = reader(x), {}
  for n = 1, 2 do for c = 1, 3 do for t = 1, 4 do for h = 1, 6 do for w = 1, 4 do
    ref[#ref + 1] = X(n, c, math.floor((t - 1) / 2) + 1, math.floor((h - 1) / 2) + 1, math.floor((w - 1) / 2) + 1)
  end end end end end
  tester:assertTensorEq(y, torch.DoubleTensor(ref):viewAs(y), 0)
  common(m, x, tostring(m), { single = true })
  common(nn.VolumetricUpSamplingNearest(3):double(), rnd(1, 2, 2, 1, 2), 'scale 3')
  -- a non-contiguous input
  local xt = rnd(2, 3, 2, 3, 2):transpose(3, 5)
  tester:assertTensorEq(m:forward(xt), m:forward(xt:contiguous()), 0)
  tester:asserteq(tostring(m), 'nn.VolumetricUpSamplingNearest(2)')
  tester:assertErrorPattern(function() nn.VolumetricUpSamplingNearest(0) end, 'scale_factor must be an integer >= 1')
  tester:assertErrorPattern(function() nn.VolumetricUpSamplingNearest(1.5) end, 'scale_factor must be an integer >= 1')
  tester:assertErrorPattern(function() m:forward(rnd(2, 3, 4)) end,
    '%[nn.VolumetricUpSamplingNearest%(2%)%] expected a 4D or 5D')
  m:forward(x)
  tester:assertErrorPattern(function() m:backward(x, rnd(2, 3, 4, 6, 5)) end, 'gradOutput is')
end

-- Aligned-corner linear weights of output index i (1-based) among nout for nin inputs.
local function lin(nin, nout, i)
  local r = nout > 1 and (nin - 1) / (nout - 1) or 0
  local s = r * (i - 1)
  local i0 = math.floor(s)
  return i0 + 1, math.min(i0 + 1, nin - 1) + 1, s - i0
end

function tests.volumetricUpSamplingTrilinear()
  local x = rnd(2, 3, 2, 3, 4)
  for _, params in ipairs({ { odepth = 4, oheight = 5, owidth = 3 }, 2, { odepth = 1, oheight = 1, owidth = 6 } }) do
    local m = nn.VolumetricUpSamplingTrilinear(params):double()
    local y = m:forward(x)
    local oT, oH, oW = y:size(3), y:size(4), y:size(5)
    local X, ref = reader(x), {}
    for n = 1, 2 do for c = 1, 3 do for t = 1, oT do for h = 1, oH do for w = 1, oW do
      local t0, t1, lt = lin(2, oT, t)
      local h0, h1, lh = lin(3, oH, h)
      local w0, w1, lw = lin(4, oW, w)
      local v = 0
      for _, a in ipairs({ { t0, 1 - lt }, { t1, lt } }) do
        for _, b in ipairs({ { h0, 1 - lh }, { h1, lh } }) do
          for _, cc in ipairs({ { w0, 1 - lw }, { w1, lw } }) do v = v + a[2] * b[2] * cc[2] * X(n, c, a[1], b[1], cc[1]) end
        end
      end
      ref[#ref + 1] = v
    end end end end end
    tester:assertTensorEq(y, torch.DoubleTensor(ref):viewAs(y), 1e-12, tostring(m) .. ' values')
    common(m, x:clone(), tostring(m), { single = true })
  end
  tester:assertTableEq(nn.VolumetricUpSamplingTrilinear(2):forward(x):size():totable(), { 2, 3, 4, 6, 8 })
  -- one input slice resampled to one output slice is the bilinear upsampling of that slice
  local xs = rnd(2, 3, 1, 3, 4)
  local tri = nn.VolumetricUpSamplingTrilinear({ odepth = 1, oheight = 5, owidth = 7 }):double():forward(xs)
  local bi = nn.SpatialUpSamplingBilinear({ oheight = 5, owidth = 7 }):double():forward(xs:select(3, 1))
  tester:assertTensorEq(tri:select(3, 1), bi, 1e-12, 'a slice is bilinear')
  tester:asserteq(tostring(nn.VolumetricUpSamplingTrilinear(2)), 'nn.VolumetricUpSamplingTrilinear(2)')
  tester:asserteq(tostring(nn.VolumetricUpSamplingTrilinear({ odepth = 2, oheight = 3, owidth = 4 })),
    'nn.VolumetricUpSamplingTrilinear(2, 3, 4)')
  tester:assertErrorPattern(function() nn.VolumetricUpSamplingTrilinear({ oheight = 3, owidth = 4 }) end,
    'odepth, oheight and owidth must be positive integers')
  tester:assertErrorPattern(function() nn.VolumetricUpSamplingTrilinear(0) end, 'expected an integer scale_factor >= 1')
  local m = nn.VolumetricUpSamplingTrilinear(2):double()
  tester:assertErrorPattern(function() m:forward(rnd(3, 4)) end, '%[nn.VolumetricUpSamplingTrilinear%(2%)%] expected a 4D')
  tester:assertErrorPattern(function() m:forward(torch.DoubleTensor(1, 0, 2, 2)) end, 'non%-empty floating%-point input')
  -- interpolation weights are fractions: integer tensors are refused, not truncated
  tester:assertErrorPattern(function() m:forward(torch.LongTensor(1, 2, 2, 2)) end, 'floating%-point input, got torch.LongTensor')
  m:forward(x)
  tester:assertErrorPattern(function() m:backward(x, rnd(2, 3, 4, 6, 7)) end, 'gradOutput is')
end

tester:add(tests)
tester:run()
