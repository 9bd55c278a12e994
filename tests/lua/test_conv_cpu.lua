-- The CPU convolution paths beside im2col + OpenBLAS. oneDNN for f32 (Note [oneDNN convolutions]):
-- each of the three passes (the convolution, its input gradient as the transposed convolution,
-- its weight gradient) against the same op computed in f64 by im2col, over 1-D, 2-D and 3-D
-- geometries with strides, padding, dilation, groups, odd channel counts and a single image; the
-- weight gradient's alpha/beta accumulation through nn; the switch itself; a model trained with it
-- on and off. Thin filters (Note [Thin convolutions on the CPU]): the forward pass and the weight
-- gradient against their adjoints, which take other paths.
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()

local available = torch.backends.mkldnn.isAvailable()
local function with_onednn(on, f)
  local was = torch.backends.mkldnn.enabled
  torch.backends.mkldnn.enabled = on
  local ok, a, b, c = pcall(f)
  torch.backends.mkldnn.enabled = was
  if not ok then error(a, 0) end
  return a, b, c
end

-- f32 results may differ from f64 by rounding in sums of `terms` products of unit-size values.
local function close(got, ref, terms, what)
  local tol = 2e-6 * math.sqrt(terms) * math.max(1, torch.abs(ref):max())  -- x:abs() is in place
  tester:assertTensorEq(got:double(), ref, tol, what)
end

-- name, N, C, O, spatial input size, kernel, stride, padding, dilation, groups
local cases = {
  { 'cnn layer', 4, 32, 64, { 14, 14 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, 1 },
  { 'odd channels', 3, 5, 7, { 9, 11 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, 1 },
  { 'strided', 2, 6, 10, { 13, 12 }, { 3, 2 }, { 2, 3 }, { 0, 1 }, { 1, 1 }, 1 },
  { 'dilated', 2, 8, 4, { 12, 10 }, { 3, 3 }, { 1, 1 }, { 2, 1 }, { 2, 3 }, 1 },
  { 'groups', 2, 8, 6, { 7, 7 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, 2 },
  { 'one image 1x1', 1, 16, 24, { 5, 6 }, { 1, 1 }, { 1, 1 }, { 0, 0 }, { 1, 1 }, 1 },
  { 'thin (not oneDNN)', 2, 1, 8, { 9, 9 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, 1 },
  { 'depthwise (not oneDNN)', 2, 8, 8, { 9, 9 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 }, 8 },
  { '1-D', 3, 6, 5, { 17 }, { 4 }, { 2 }, { 1 }, { 1 }, 1 },
  { '3-D', 2, 8, 6, { 5, 6, 7 }, { 2, 3, 3 }, { 1, 2, 1 }, { 1, 1, 0 }, { 1, 1, 2 }, 2 },
  -- one plane deep, but padded in depth: the only output plane's windows lie in the padding
  { 'depth padding', 2, 8, 4, { 1, 6, 7 }, { 1, 3, 3 }, { 3, 1, 1 }, { 1, 1, 1 }, { 1, 1, 1 }, 1 },
  { 'floored 2-D', 2, 8, 6, { 10, 9 }, { 3, 3 }, { 2, 2 }, { 1, 0 }, { 1, 1 }, 1 },
}

local conv = { torch.conv1d, torch.conv2d, torch.conv3d }
local convT = { torch.convTranspose1d, torch.convTranspose2d, torch.convTranspose3d }

function tests.passesMatchIm2colInDouble()
  torch.manualSeed(11)
  for _, c in ipairs(cases) do
    local name, N, C, O, size, k, s, p, d, g = unpack(c)
    local nd = #size
    local wsize = { O, C / g }
    for i = 1, nd do wsize[#wsize + 1] = k[i] end
    local x = torch.randn(N, C, unpack(size))
    local w, b = torch.randn(unpack(wsize)), torch.randn(O)
    local terms = (C / g) * torch.LongTensor(k):prod()
    local before = torch.backends.mkldnn.stats()
    local y = with_onednn(true, function() return conv[nd](x, w, b, s, p, d, g) end)
    local ry = conv[nd](x:double(), w:double(), b:double(), s, p, d, g)
    close(y, ry, terms, name .. ' forward')
    -- the input gradient: the transposed convolution of a gradient of y's size, back to x's size
    local gy = torch.randn(ry:size())
    local op = {}
    for i = 1, nd do op[i] = size[i] - ((ry:size(i + 2) - 1) * s[i] - 2 * p[i] + d[i] * (k[i] - 1) + 1) end
    local bx = torch.randn(C)
    local gx = with_onednn(true, function() return convT[nd](gy, w, bx, s, p, op, g, d) end)
    local rgx = convT[nd](gy:double(), w:double(), bx:double(), s, p, op, g, d)
    tester:eq(gx:size():totable(), x:size():totable(), name .. ' input gradient size')
    close(gx, rgx, O / g * torch.LongTensor(k):prod(), name .. ' input gradient')
    local gw = with_onednn(true, function() return torch.convWeight(x, wsize, gy, s, p, d, g) end)
    local rgw = torch.convWeight(x:double(), wsize, gy:double(), s, p, d, g)
    close(gw, rgw, N * ry:nElement() / (N * O), name .. ' weight gradient')
    local after = torch.backends.mkldnn.stats()
    local meant = available and not name:find('not oneDNN') and 3 or 0
    tester:asserteq(after.ran - before.ran, meant, name .. ': passes run by oneDNN')
    tester:asserteq(after.failed, before.failed, name .. ': passes oneDNN refused')
    -- off, the same f32 op runs on im2col: both agree to f32 rounding
    local y0 = with_onednn(false, function() return conv[nd](x, w, b, s, p, d, g) end)
    close(y0, ry, terms, name .. ' forward, im2col')
  end
end

-- Random geometries (1-D to 3-D, groups, strides, padding, dilation, output padding): the three
-- passes in f32, on whichever path each takes (oneDNN, thin or im2col), against f64.
function tests.randomGeometriesMatchDouble()
  local rng = torch.Generator()
  torch.manualSeed(rng, 17)
  local function pick(lo, hi) return math.floor(torch.uniform(rng) * (hi - lo + 1)) + lo end
  local before = torch.backends.mkldnn.stats()
  local cases = 0
  while cases < 120 do
    local nd, g = pick(1, 3), ({ 1, 1, 2, 4 })[pick(1, 4)]
    local Cg, Og, N = pick(1, 9), pick(1, 6), pick(1, 3)
    local size, k, s, p, d, op = {}, {}, {}, {}, {}, {}
    local ok = true
    for i = 1, nd do
      size[i], k[i], s[i], d[i] = pick(1, nd == 3 and 6 or 9), pick(1, 4), pick(1, 3), pick(1, 2)
      p[i] = pick(0, math.floor(k[i] / 2))
      local span = d[i] * (k[i] - 1) + 1
      if size[i] + 2 * p[i] < span then ok = false end
    end
    if ok then
      cases = cases + 1
      local wsize = { Og * g, Cg }
      for i = 1, nd do wsize[#wsize + 1] = k[i] end
      local x, w, b = torch.randn(N, Cg * g, unpack(size)), torch.randn(unpack(wsize)), torch.randn(Og * g)
      local what = string.format('case %d: %d-D N %d C %d O %d groups %d size %s kernel %s stride %s pad %s dil %s',
        cases, nd, N, Cg * g, Og * g, g, table.concat(size, 'x'), table.concat(k, 'x'), table.concat(s, ','),
        table.concat(p, ','), table.concat(d, ','))
      local y = conv[nd](x, w, b, s, p, d, g)
      local ry = conv[nd](x:double(), w:double(), b:double(), s, p, d, g)
      local taps = Cg
      for i = 1, nd do taps = taps * k[i] end
      close(y, ry, taps, what .. ' forward')
      local gy = torch.randn(ry:size())
      local valid = true  -- the transposed output of gy must not be empty
      for i = 1, nd do
        op[i] = pick(0, math.max(s[i], d[i]) - 1)
        if (ry:size(i + 2) - 1) * s[i] - 2 * p[i] + d[i] * (k[i] - 1) + 1 + op[i] < 1 then valid = false end
      end
      if valid then
        local bx = torch.randn(Cg * g)
        local gx = convT[nd](gy, w, bx, s, p, op, g, d)
        close(gx, convT[nd](gy:double(), w:double(), bx:double(), s, p, op, g, d), Og * taps / Cg,
          what .. ' transposed, output padding ' .. table.concat(op, ','))
      end
      local gw = torch.convWeight(x, wsize, gy, s, p, d, g)
      local rgw = torch.convWeight(x:double(), wsize, gy:double(), s, p, d, g)
      local terms = N * ry:nElement() / (N * Og * g)
      close(gw, rgw, terms, what .. ' weight gradient')
      -- autograd's weight and bias gradients in one call (Note [Fused bias gradient])
      local wl, bl = w:clone():requiresGrad(), b:clone():requiresGrad()
      local agw, agb = unpack(torch.autograd.grad({ conv[nd](x, wl, bl, s, p, d, g) }, { wl, bl }, { gy }))
      close(agw, rgw, terms, what .. ' autograd weight gradient')
      local sums = gy:double():transpose(1, 2):contiguous():view(Og * g, -1):sum(2):view(Og * g)
      close(agb, sums, terms, what .. ' autograd bias gradient')
    end
  end
  tester:asserteq(torch.backends.mkldnn.stats().failed, before.failed, 'no pass refused by oneDNN')
  if available then tester:assert(torch.backends.mkldnn.stats().ran > before.ran, 'oneDNN ran some') end
end

-- A transposed convolution whose output padding reaches the stride (legal below the dilation)
-- has no equal right padding for oneDNN: it stays on im2col without an error per call.
function tests.outputPaddingPastTheStride()
  torch.manualSeed(15)
  local y, w, b = torch.randn(2, 8, 7, 7), torch.randn(8, 6, 3, 3), torch.randn(6)
  local before = torch.backends.mkldnn.stats()
  local x = with_onednn(true, function() return torch.convTranspose2d(y, w, b, 1, 1, 1, 1, 2) end)
  local after = torch.backends.mkldnn.stats()
  tester:eq(x:size():totable(), { 2, 6, 10, 10 })
  close(x, torch.convTranspose2d(y:double(), w:double(), b:double(), 1, 1, 1, 1, 2), 8 * 9, 'output padding 1, stride 1')
  tester:asserteq(after.ran, before.ran, 'not run by oneDNN')
  tester:asserteq(after.failed, before.failed, 'not refused by oneDNN either')
  -- A 1x1 kernel with output padding: the extra last row and column hold the bias alone (the
  -- im2col path took it for a direct 1x1 convolution and left them unwritten).
  for _, T in ipairs({ 'torch.FloatTensor', 'torch.DoubleTensor' }) do
    local y1, w1, b1 = torch.randn(2, 8, 5, 4):type(T), torch.randn(8, 3, 1, 1):type(T), torch.randn(3):type(T)
    local plain = torch.convTranspose2d(y1, w1, b1, 1, 0, 0, 1, 2)
    local padded = torch.convTranspose2d(y1, w1, b1, 1, 0, 1, 1, 2)
    tester:eq(padded:size():totable(), { 2, 3, 6, 5 }, T .. ' 1x1 with output padding: size')
    tester:assertTensorEq(padded:narrow(3, 1, 5):narrow(4, 1, 4), plain, 1e-6, T .. ' 1x1 with output padding')
    tester:assertTensorEq(padded:select(4, 5), b1:view(1, 3, 1):expand(2, 3, 6), 0, T .. ' last column: the bias')
    tester:assertTensorEq(padded:select(3, 6), b1:view(1, 3, 1):expand(2, 3, 5), 0, T .. ' last row: the bias')
  end
end

-- convWeight's beta = 0 must not read the old weight gradient (a NaN there), and alpha scales it,
-- on oneDNN (8 channels) and on the thin path (1 channel).
function tests.weightGradientScalesAndOverwrites()
  torch.manualSeed(16)
  for _, C in ipairs({ 8, 1 }) do
    local m = nn.SpatialConvolution(C, 6, 3, 3, 1, 1, 1, 1)
    local x, gy = torch.randn(4, C, 9, 9), torch.randn(4, 6, 9, 9)
    local ref = torch.convWeight(x:double(), m.weight:size(), gy:double(), 1, 1, 1, 1)
    m.gradWeight:fill(0 / 0)
    m.gradBias:zero()
    m:forward(x)
    m:accGradParameters(x, gy, 0.25)  -- Torch7 accumulates: NaN + anything stays NaN
    tester:assert(m.gradWeight:ne(m.gradWeight):sum() > 0, C .. ' channels: accumulation kept the NaN')
    local dw = torch.convWeight(x, m.weight:size(), gy, 1, 1, 1, 1)
    close(dw, ref, 4 * 81, C .. ' channels: convWeight')
    m:zeroGradParameters()
    m:accGradParameters(x, gy, 0.25)
    m:accGradParameters(x, gy, 0.5)
    close(m.gradWeight, ref * 0.75, 4 * 81, C .. ' channels: alpha 0.25 then 0.5')
  end
end

-- nn accumulates weight gradients (beta = 1) with a scale (alpha): both paths, then f64.
function tests.moduleGradientsAccumulate()
  torch.manualSeed(12)
  local m = nn.SpatialConvolution(8, 12, 3, 3, 1, 1, 1, 1)
  local x, gy = torch.randn(3, 8, 10, 10), torch.randn(3, 12, 10, 10)
  local md = m:clone():double()
  md:zeroGradParameters()
  md:forward(x:double())
  md:backward(x:double(), gy:double(), 0.5)
  md:backward(x:double(), gy:double(), 2)
  for _, on in ipairs({ true, false }) do
    with_onednn(on, function()
      m:zeroGradParameters()
      m:forward(x)
      m:backward(x, gy, 0.5)
      local gi = m:backward(x, gy, 2)
      close(gi, md.gradInput, 12 * 9, 'gradInput ' .. tostring(on))
      close(m.gradWeight, md.gradWeight, 300 * 2.5, 'gradWeight ' .. tostring(on))
      close(m.gradBias, md.gradBias, 300 * 2.5, 'gradBias ' .. tostring(on))
    end)
  end
end

-- Note [Fused bias gradient]: nn's accGradParameters and autograd's conv backward take the bias
-- gradient from the weight gradient's call (thin filters and oneDNN sum it in their own pass). On
-- every path, with flattened parameters (getParameters: the bias gradient shares the weight
-- gradient's storage), and through autograd with and without createGraph (which keeps the sum
-- separate), it is grad_output's channel sums.
function tests.biasGradientComesWithTheWeights()
  torch.manualSeed(18)
  local threads = torch.getnumthreads()
  -- the thin kernels take batches of at least one image per thread: 1 and 2 threads for batch 3
  for _, case in ipairs({ { 1, 1 }, { 1, 2 }, { 8, 2 } }) do  -- thin; oneDNN when on
    local C, nt = unpack(case)
    torch.setnumthreads(nt)
    for _, on in ipairs({ true, false }) do
      with_onednn(on, function()
        local what = string.format('%d channels, %d threads, oneDNN %s', C, nt, tostring(on))
        local m = nn.SpatialConvolution(C, 12, 3, 3, 1, 1, 1, 1)
        local _, flat = m:getParameters()
        flat:fill(1)
        local x, gy = torch.randn(3, C, 10, 10), torch.randn(3, 12, 10, 10)
        m:forward(x)
        m:backward(x, gy, 0.5)
        local sums = gy:double():sum(1):sum(3):sum(4):view(12)
        close(m.gradBias, sums * 0.5 + 1, 300, what .. ': nn, flattened parameters')
        local rw = torch.convWeight(x:double(), m.weight:size(), gy:double(), 1, 1, 1, 1)
        close(m.gradWeight, rw * 0.5 + 1, 300, what .. ': nn weight')
        for _, create in ipairs({ false, true }) do
          local w, b = m.weight:clone():requiresGrad(), m.bias:clone():requiresGrad()
          local y = torch.conv2d(x, w, b, { 1, 1 }, { 1, 1 })
          local gw, gb = unpack(torch.autograd.grad({ y }, { w, b }, { gy }, { createGraph = create }))
          close(gb:detach(), sums, 300, what .. ': autograd bias, createGraph ' .. tostring(create))
          close(gw:detach(), rw, 300, what .. ': autograd weight, createGraph ' .. tostring(create))
        end
      end)
    end
  end
  torch.setnumthreads(threads)
end

-- Note [oneDNN Winograd]: 32 -> 32 channels, 3x3, stride 1 at batch 24 is a shape oneDNN's auto
-- algorithm runs as Winograd on AVX-512 machines; every pass and nn's accumulating weight and
-- bias gradients against f64 (Winograd rounds differently from direct convolutions).
function tests.winogradPassesMatchDouble()
  torch.manualSeed(19)
  local m = nn.SpatialConvolution(32, 32, 3, 3, 1, 1, 1, 1)
  local md = m:clone():double()
  local x, gy = torch.randn(24, 32, 13, 13), torch.randn(24, 32, 13, 13)
  torch.noGrad(function()
    md:zeroGradParameters()
    md:forward(x:double())
    md:backward(x:double(), gy:double(), 0.5)
  end)
  m.gradWeight:fill(1)
  m.gradBias:fill(1)
  local before = torch.backends.mkldnn.stats()
  with_onednn(true, function()
    close(m:forward(x), md.output, 288, 'forward')
    close(m:backward(x, gy, 0.5), md.gradInput, 288, 'input gradient')
  end)
  close(m.gradWeight, md.gradWeight + 1, 24 * 169, 'weight gradient, accumulated')
  close(m.gradBias, md.gradBias + 1, 24 * 169, 'bias gradient, accumulated')
  local after = torch.backends.mkldnn.stats()
  tester:asserteq(after.failed, before.failed, 'no pass refused')
  -- oneDNN's Winograd kernels need AVX-512, as its GEMM does here (Note [oneDNN GEMM]), on an
  -- Intel CPU: with the `auto` algorithm oneDNN 2.6 picks its direct kernels on AMD's AVX-512
  -- (an EPYC ran these passes direct, with the same results)
  local big = torch.backends.mkldnn.stats().gemms
  torch.mm(torch.randn(128, 128), torch.randn(128, 128))
  local f = io.open('/proc/cpuinfo')
  local intel = f and f:read('*a'):find('GenuineIntel', 1, true) ~= nil
  if f then f:close() end
  if torch.backends.mkldnn.stats().gemms > big and intel then
    tester:asserteq(after.winograd - before.winograd, 3, 'the three passes ran as Winograd')
  end
end

-- <conv(x, w), dy> = <x, convTranspose(dy, w)> = <convWeight(x, dy), w>: the thin forward and
-- weight-gradient kernels against the transposed convolution (col2im), in f64, for geometries of
-- at most 32 taps, with strides, padding, dilation, 1-D to 3-D, a tail of outputs shorter than a
-- vector and batches split over two threads.
function tests.thinFiltersAgreeWithTheirAdjoints()
  torch.manualSeed(14)
  local thin = {
    { 'cnn first layer', 5, 1, 32, { 28, 28 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 } },
    { 'colour 3x3', 3, 3, 7, { 9, 13 }, { 3, 3 }, { 1, 1 }, { 1, 1 }, { 1, 1 } },
    { 'strided dilated', 2, 2, 5, { 11, 10 }, { 3, 2 }, { 2, 1 }, { 0, 2 }, { 2, 3 } },
    { '1-D', 4, 4, 3, { 19 }, { 5 }, { 1 }, { 2 }, { 1 } },
    { '3-D', 2, 2, 4, { 5, 6, 7 }, { 2, 2, 2 }, { 1, 2, 1 }, { 1, 0, 1 }, { 1, 1, 2 } },
    { 'tiny plane', 3, 2, 3, { 2, 3 }, { 2, 2 }, { 1, 1 }, { 0, 0 }, { 1, 1 } },
  }
  local threads = torch.getnumthreads()
  torch.setnumthreads(2)
  for _, c in ipairs(thin) do
    local name, N, C, O, size, k, s, p, d = unpack(c)
    local nd = #size
    local wsize = { O, C }
    for i = 1, nd do wsize[#wsize + 1] = k[i] end
    for _, T in ipairs({ 'torch.DoubleTensor', 'torch.FloatTensor' }) do
      local x = torch.randn(N, C, unpack(size)):type(T)
      local w = torch.randn(unpack(wsize)):type(T)
      local y = conv[nd](x, w, nil, s, p, d, 1)
      local dy = torch.randn(y:size()):type(T)
      local op = {}
      for i = 1, nd do op[i] = size[i] - ((y:size(i + 2) - 1) * s[i] - 2 * p[i] + d[i] * (k[i] - 1) + 1) end
      local dx = convT[nd](dy, w, nil, s, p, op, 1, d)
      local dw = torch.convWeight(x, wsize, dy, s, p, d, 1)
      local a, b, c3 = torch.dot(y:double(), dy:double()), torch.dot(x:double(), dx:double()),
        torch.dot(dw:double(), w:double())
      local tol = (T == 'torch.DoubleTensor' and 1e-10 or 1e-4) * math.max(1, math.abs(a))
      tester:assertalmosteq(a, b, tol, name .. ' ' .. T .. ': forward against the transposed convolution')
      tester:assertalmosteq(a, c3, tol, name .. ' ' .. T .. ': weight gradient against the forward')
      -- with a bias, the forward adds it once per output
      local bias = torch.randn(O):type(T)
      local yb = conv[nd](x, w, bias, s, p, d, 1)
      local expect = y:clone()
      for o = 1, O do expect:select(2, o):add(bias[o]) end
      tester:assertTensorEq(yb, expect, T == 'torch.DoubleTensor' and 1e-12 or 1e-5, name .. ' ' .. T .. ': bias')
    end
  end
  torch.setnumthreads(threads)
end

function tests.theSwitch()
  tester:asserteq(type(available), 'boolean')
  local was = torch.backends.mkldnn.enabled
  torch.backends.mkldnn.enabled = false
  tester:asserteq(torch.backends.mkldnn.enabled, false)
  torch.backends.mkldnn.enabled = true
  tester:asserteq(torch.backends.mkldnn.enabled, available)
  torch.backends.mkldnn.enabled = was
  tester:assertErrorPattern(function() torch.backends.mkldnn.benchmark = true end,
    'backends%.mkldnn.*unknown setting benchmark')
end

-- A few SGD steps of a small CNN from the same start, oneDNN on and off, stay together.
function tests.trainingAgrees()
  local function cnn()
    return nn.Sequential()
      :add(nn.SpatialConvolution(3, 8, 3, 3, 1, 1, 1, 1)):add(nn.ReLU())
      :add(nn.SpatialConvolution(8, 16, 3, 3, 2, 2, 1, 1)):add(nn.ReLU())
      :add(nn.View(16 * 4 * 4)):add(nn.Linear(256, 5))
  end
  torch.manualSeed(13)
  local a = cnn()
  local b = a:clone()
  local x, t = torch.randn(6, 3, 8, 8), torch.LongTensor({ 1, 2, 3, 4, 5, 1 })
  local crit = nn.CrossEntropyCriterion()
  local losses = {}
  for k, m in ipairs({ a, b }) do
    with_onednn(k == 1, function()
      for i = 1, 5 do
        m:zeroGradParameters()
        local out = m:forward(x)
        losses[k] = crit:forward(out, t)
        m:backward(x, crit:backward(out, t))
        m:updateParameters(0.05)
      end
    end)
  end
  tester:assertalmosteq(losses[1], losses[2], 1e-4, 'loss after 5 steps')
  local pa, pb = a:parameters(), b:parameters()
  for i = 1, #pa do tester:assertTensorEq(pa[i], pb[i], 1e-4, 'parameter ' .. i) end
end

tester:add(tests)
tester:run()
