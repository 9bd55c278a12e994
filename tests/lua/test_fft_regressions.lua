-- Regressions for torch.fft and torch.stft/istft (lua/torch/fft*.lua): the two-dim transforms
-- with an s of other than two sizes (PyTorch raises; they transformed #s dims), an empty dims or
-- s table (read as an empty options table: every dim was transformed), infinite sizes and dims
-- (accepted as integers, then failed in other ops' words), fftfreq/rfftfreq with an integer
-- dtype (PyTorch raises; the fractions were truncated to 0) and stft/istft flags that are not
-- booleans (normalized = 'no' normalized). Value and gradient comparisons with PyTorch 1.13 for
-- non-contiguous inputs, negative dims, s with -1 and length-1 signals are in
-- test_fft_regressions_more.lua.
local tester = torch.Tester()
local tests = torch.TestSuite()
local D = torch.DoubleTensor
local F = torch.fft
local inf = math.huge

local function gen(sizes, seed)
  local t = D(torch.LongStorage(sizes))
  local flat = t:view(-1)
  for L = 0, t:nElement() - 1 do flat[L + 1] = math.sin(0.37 * L + seed) + 0.3 * math.cos(1.3 * L) end
  return t
end

local function fails(f, pattern, what)
  local ok, err = pcall(f)
  tester:assert(not ok and tostring(err):find(pattern, 1, true) ~= nil,
    (what or pattern) .. ': got ' .. (ok and 'no error' or tostring(err)))
end

-- PyTorch 1.13: fft2(x, s=[3]) and fft2(x, s=[2, 3, 4]) raise "When given, dim and shape arguments
-- must have the same length" (dim defaults to (-2, -1) whatever s is); Tocha took the last #s dims.
function tests.twoDimTransformsTakeTwoSizes()
  local z, x = gen({ 2, 3, 4, 2 }, 1), gen({ 2, 3, 4 }, 2)
  local inputs = { fft2 = z, ifft2 = z, irfft2 = z, hfft2 = z, rfft2 = x, ihfft2 = x }
  for name, input in pairs(inputs) do
    fails(function() F[name](input, { 3 }) end, '[fft.' .. name .. '] s has 1 sizes but there are 2 dims', name .. ' s {3}')
    fails(function() F[name](input, { 2, 3, 4 }) end, '[fft.' .. name .. '] s has 3 sizes but there are 2 dims',
      name .. ' s {2, 3, 4}')
    fails(function() F[name](input, { s = { 3 } }) end, 's has 1 sizes', name .. ' options table')
    -- two sizes still go with the default dims {-2, -1}, and dims of another length still work
    local nd = name:gsub('2$', 'n')
    tester:eq(F[name](input, { 3, 5 }), F[nd](input, { 3, 5 }, { -2, -1 }), 1e-12, name .. ' s {3, 5}')
    tester:eq(F[name](input, nil, { 2 }), F[nd](input, nil, { 2 }), 1e-12, name .. ' one dim')
  end
end

-- An empty table in the place of dims or s was taken for an empty options table, so
-- fftn(z, nil, {}) transformed every dim. It is now the empty list, refused as a transform over
-- no dims (PyTorch 1.13 returns uninitialised memory for dim=()).
function tests.emptyDimsOrSizesAreRefused()
  local z, x = gen({ 3, 4, 2 }, 1), gen({ 3, 4 }, 2)
  fails(function() F.fftn(z, nil, {}) end, '[fft.fftn] expected at least one dim to transform', 'fftn dims {}')
  fails(function() F.ifftn(z, {}) end, '[fft.ifftn] expected at least one dim to transform', 'ifftn s {}')
  fails(function() F.rfftn(x, nil, {}) end, '[fft.rfftn] expected at least one dim', 'rfftn dims {}')
  fails(function() F.irfftn(z, {}, {}) end, '[fft.irfftn] expected at least one dim', 'irfftn s {} dims {}')
  fails(function() F.hfftn(z, nil, {}) end, '[fft.hfftn] expected at least one dim', 'hfftn dims {}')
  fails(function() F.ihfftn(x, {}) end, '[fft.ihfftn] expected at least one dim', 'ihfftn s {}')
  fails(function() F.fft2(z, nil, {}) end, '[fft.fft2] expected at least one dim', 'fft2 dims {}')
  -- an empty options table where a number or a norm goes is still options
  tester:eq(F.fft(z, {}), F.fft(z), 0, 'fft(z, {})')
  tester:eq(F.fftn(z, nil, nil, {}), F.fftn(z), 0, 'fftn(z, nil, nil, {})')
  tester:eq(F.fftn(z, { norm = 'ortho' }), F.fftn(z, nil, nil, 'ortho'), 0, 'an options table as s')
end

-- math.huge == math.floor(math.huge), so inf passed as an integer: fft(z, inf) failed in
-- [empty] with a size of -9223372036854775808, stft's hopLength = inf in [unfold], istft's
-- length = inf in [torch.DoubleTensor].
function tests.infiniteSizesAreRefused()
  local z, x = gen({ 3, 2 }, 1), gen({ 40 }, 2)
  fails(function() F.fft(z, inf) end, '[fft.fft] expected an integer as n, got inf')
  fails(function() F.irfft(z, -inf) end, '[fft.irfft] expected an integer as n, got -inf')
  fails(function() F.rfft(x, inf) end, '[fft.rfft] expected an integer as n')
  fails(function() F.fftn(z, { inf }) end, '[fft.fftn] expected an integer as s[1], got inf')
  fails(function() F.fft(z, nil, -inf) end, '[fft.fft] expected an integer as a dim, got -inf')
  fails(function() F.fftn(z, nil, { inf }) end, '[fft.fftn] expected an integer as a dim, got inf')
  fails(function() F.fft(z, 2.5) end, '[fft.fft] expected an integer as n, got 2.5')
  fails(function() F.fftfreq(inf) end, '[fft.fftfreq] expected the number of points n as a positive integer')
  fails(function() F.rfftfreq(inf) end, '[fft.rfftfreq] expected the number of points n as a positive integer')
  fails(function() torch.stft(x, inf) end, '[stft] expected nFft as a positive integer, got inf')
  fails(function() torch.stft(x, 8, { hopLength = inf }) end, '[stft] expected hopLength as a positive integer')
  fails(function() torch.stft(x, 8, { winLength = inf }) end, '[stft] expected winLength as a positive integer')
  local spec = torch.stft(x, 8)
  fails(function() torch.istft(spec, 8, { length = inf }) end, '[istft] expected an integer as length, got inf')
  fails(function() torch.istft(spec, inf) end, '[istft] expected nFft as a positive integer')
  fails(function() torch.istft(spec, 8, { hopLength = inf }) end, '[istft] expected hopLength as a positive integer')
end

-- PyTorch 1.13: fftfreq(4, dtype=torch.int64) raises "fftfreq requires a floating point or
-- complex dtype"; Tocha returned {0, 0, 0, 0} (the fractions truncated).
function tests.frequenciesNeedAFloatingDtype()
  fails(function() F.fftfreq(4, { dtype = 'int64' }) end, "[fft.fftfreq] expected a floating dtype, got 'int64'")
  fails(function() F.rfftfreq(4, 2, { dtype = 'torch.IntTensor' }) end, "[fft.rfftfreq] expected a floating dtype")
  fails(function() F.fftfreq(4, { dtype = 'bool' }) end, '[fft.fftfreq] expected a floating dtype')
  tester:eq(F.fftfreq(4, { dtype = 'float64' }), D({ 0, 0.25, -0.5, -0.25 }), 0, 'float64')
  tester:eq(F.rfftfreq(4, 2, { dtype = 'float32' }):type(), 'torch.FloatTensor', 'float32')
  -- PyTorch 1.13: fftfreq(4, -1) = [-0, -0.25, 0.5, 0.25]
  tester:eq(F.fftfreq(4, -1, { dtype = 'float64' }), D({ 0, -0.25, 0.5, 0.25 }), 0, 'negative spacing')
end

-- stft/istft read center, normalized and onesided by truthiness: normalized = 'no' normalized,
-- onesided = 0 (false in Python) was onesided. They must be booleans (or nil for the default).
function tests.stftFlagsAreBooleans()
  local x = gen({ 40 }, 1)
  for _, flag in ipairs({ 'center', 'normalized', 'onesided' }) do
    for _, bad in ipairs({ 'no', 0, 1 }) do
      fails(function() torch.stft(x, 8, { [flag] = bad }) end, '[stft] expected ' .. flag .. ' as a boolean',
        'stft ' .. flag .. ' = ' .. tostring(bad))
    end
  end
  local spec = torch.stft(x, 8)
  for _, flag in ipairs({ 'center', 'normalized', 'onesided' }) do
    fails(function() torch.istft(spec, 8, { [flag] = 0 }) end, '[istft] expected ' .. flag .. ' as a boolean',
      'istft ' .. flag)
  end
  fails(function() torch.stft(x, 8, { returnComplex = 'no' }) end, '[stft] expected returnComplex as a boolean')
  -- booleans still work, returnComplex = false included
  tester:eq(torch.stft(x, 8, { center = true, normalized = false, onesided = true, returnComplex = false }),
    torch.stft(x, 8), 0, 'explicit defaults')
  tester:eq(torch.istft(spec, 8, { center = true, normalized = false, onesided = true, length = 40 }), x, 1e-12,
    'istft explicit defaults')
end

-- padMode 'circular' (PyTorch's F.pad mode; it was refused). PyTorch 1.13, float64:
-- x = sin(1..10); s = stft(x, 6, hop_length=2, pad_mode='circular', window=hann_window(6)) and the
-- gradient of sum(view_as_real(s)^2 * arange(numel)) with respect to x.
function tests.stftCircularPadding()
  local x = torch.range(1, 10):double():sin()
  local want = { 1.2537378450855368, 0.0, 0.22612788423437125, 0.0, -1.5365611180986147, 0.0, 1.0527422126817858, 0.0,
    1.120735732923937, 0.0, 1.2537378450855368, 0.0, -0.9092947916213105, 0.8852851886824623, -0.21298726861093006,
    -1.4719606512469843, 1.4472693480755408, 0.42176034331814705, -0.9915658530556327, 1.1209321859412171,
    -0.39181271320117517, -0.9560170666948418, -0.9092947916213105, 0.8852851886824623, 0.6353375546690763,
    -1.0026309714956692, 0.09861606997261516, 0.6923666354694877, -0.6701058529454004, -0.1983835570809993,
    0.4591087917372906, -0.5272532560650331, 0.05780986140066638, 1.0359011491722139, 0.6353375546690763,
    -1.0026309714956692, -0.7058233711810683, 0.0, 0.0026145130422585705, 0.0, -0.017765872161666363, 0.0,
    0.012171909954898363, 0.0, -0.45273002932291945, 0.0, -0.7058233711810683, 0.0 }
  local want_grad = { 294.74752194147584, 101.19451369710286, 24.963168466545348, -82.19317952299849,
    -104.53314022677684, -32.39421682308088, 89.1412250405471, 120.74245715237043, 104.80119336196327,
    -274.43724559219595 }
  local opts = { hopLength = 2, padMode = 'circular', window = torch.hannWindow(6):double() }
  local s = torch.stft(x, 6, opts)
  tester:assertTensorEq(s:contiguous():view(-1), torch.DoubleTensor(want), 1e-12, 'circular stft')
  local xr = x:clone():requiresGrad()
  local sr = torch.stft(xr, 6, opts)
  torch.sum(torch.cmul(torch.pow(sr, 2), torch.range(0, sr:nElement() - 1):double():viewAs(sr))):backward()
  tester:assertTensorEq(xr.grad, torch.DoubleTensor(want_grad), 1e-9, 'circular stft gradient')
  tester:assertErrorPattern(function() torch.stft(torch.randn(2), 6, { padMode = 'circular' }) end,
    "padMode 'circular' needs a signal of at least")
end

tester:add(tests)
tester:run()
