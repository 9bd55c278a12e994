-- The CPU's GEMMs on oneDNN: f32 on its sgemm (Note [oneDNN GEMM], kernels/cpu/blas_gemm_call.cpp)
-- and bf16/f16 on its matmul (Note [oneDNN reduced-precision GEMM]). On an AVX-512 machine with
-- oneDNN built in, f32 products of at least 128^3 multiply-adds go there, smaller ones and f64 to
-- OpenBLAS, and the switch sends all to OpenBLAS. Every path against f64: the mm family with
-- transposed and strided operands, beta = 0 over NaN, alpha/beta scaling, batches, a Linear
-- layer's three products, the im2col convolutions' GEMMs, and the reduced-precision products.
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function gemms() return torch.backends.mkldnn.stats().gemms end
local function with_onednn(on, f)
  local was = torch.backends.mkldnn.enabled
  torch.backends.mkldnn.enabled = on
  local ok, err = pcall(f)
  torch.backends.mkldnn.enabled = was
  if not ok then error(err, 0) end
end

-- f32 against f64: rounding in sums of k products of unit-size values.
local function close(got, ref, k, what)
  tester:assertTensorEq(got:double(), ref, 3e-6 * math.sqrt(k) * math.max(1, ref:clone():abs():max()), what)
end

-- Whether oneDNN takes large products here: it does on AVX-512 machines of a build with oneDNN.
local function onednn_takes_large()
  local before = gemms()
  torch.mm(torch.randn(128, 128), torch.randn(128, 128))
  return gemms() > before
end

function tests.productsMatchDoubleOnEveryPath()
  torch.manualSeed(21)
  local large = onednn_takes_large()
  if not torch.backends.mkldnn.isAvailable() then tester:asserteq(large, false, 'no oneDNN: no oneDNN GEMMs') end
  -- m, n, k: large ones reach oneDNN, the last two stay on OpenBLAS by size
  for _, s in ipairs({ { 64, 128, 3136 }, { 128, 512, 784 }, { 300, 200, 100 }, { 64, 64, 64 }, { 7, 5, 3 } }) do
    local m, n, k = unpack(s)
    local big = m * n * k >= 128 ^ 3
    for _, on in ipairs({ true, false }) do
      with_onednn(on, function()
        local what = string.format('%dx%dx%d oneDNN %s', m, n, k, tostring(on))
        local a, b = torch.randn(m, k), torch.randn(k, n)
        local ad, bd = a:double(), b:double()
        local before = gemms()
        close(torch.mm(a, b), torch.mm(ad, bd), k, what .. ': mm')
        -- transposed operands (each a view of the other layout) and a strided result
        local at, bt = a:t():clone():t(), b:t():clone():t()
        close(torch.mm(at, bt), torch.mm(ad, bd), k, what .. ': transposed operands')
        local wide = torch.FloatTensor(m, 2 * n):fill(7)
        local res = wide:narrow(2, 1, n)
        torch.mm(res, a, b)
        close(res, torch.mm(ad, bd), k, what .. ': into a narrowed result')
        tester:assert(wide:narrow(2, n + 1, n):eq(7):all(), what .. ': the rest of the buffer untouched')
        -- beta = 0 never reads the result (NaN there); alpha and beta scale
        local c = torch.FloatTensor(m, n):fill(0 / 0)
        torch.addmm(c, 0, c, 1, a, b)
        close(c, torch.mm(ad, bd), k, what .. ': beta 0 over NaN')
        local c0 = torch.randn(m, n)
        close(torch.addmm(0.5, c0, 2, a, b), torch.addmm(0.5, c0:double(), 2, ad, bd), k, what .. ': alpha, beta')
        local expect = (on and large and big) and 5 or 0
        tester:asserteq(gemms() - before, expect, what .. ': products oneDNN computed')
        -- batches
        local ba, bb = torch.randn(3, m, k), torch.randn(3, k, n)
        close(torch.bmm(ba, bb), torch.bmm(ba:double(), bb:double()), k, what .. ': bmm')
      end)
    end
  end
  -- f64 always stays on OpenBLAS
  local before = gemms()
  torch.mm(torch.randn(256, 256):double(), torch.randn(256, 256):double())
  tester:asserteq(gemms(), before, 'f64 products stay on OpenBLAS')
end

-- A Linear layer's forward, input gradient and weight gradient, with the switch on and off.
function tests.linearLayerAgrees()
  torch.manualSeed(22)
  local l = nn.Linear(3136, 128)
  local ld = l:clone():double()
  local x, gy = torch.randn(64, 3136), torch.randn(64, 128)
  torch.noGrad(function()  -- plain reference values, no graph
    ld:zeroGradParameters()
    ld:forward(x:double())
    ld:backward(x:double(), gy:double())
  end)
  for _, on in ipairs({ true, false }) do
    with_onednn(on, function()
      l:zeroGradParameters()
      close(l:forward(x), ld.output, 3136, 'output ' .. tostring(on))
      close(l:backward(x, gy), ld.gradInput, 128, 'gradInput ' .. tostring(on))
      close(l.gradWeight, ld.gradWeight, 64, 'gradWeight ' .. tostring(on))
      close(l.gradBias, ld.gradBias, 64, 'gradBias ' .. tostring(on))
    end)
  end
end

-- 3 -> 64 channels with 5x5 filters (75 taps: neither oneDNN's convolutions nor the thin kernels):
-- im2col's GEMMs (64 x 1024 x 75 per image) go to oneDNN's sgemm; the three passes against f64.
function tests.im2colConvolutionsAgree()
  torch.manualSeed(23)
  local x, w, b = torch.randn(2, 3, 32, 32), torch.randn(64, 3, 5, 5), torch.randn(64)
  local y64 = torch.conv2d(x:double(), w:double(), b:double(), { 1, 1 }, { 2, 2 })
  local gy = torch.randn(y64:size())
  local gx64 = torch.convTranspose2d(gy:double(), w:double(), nil, { 1, 1 }, { 2, 2 })
  local gw64 = torch.convWeight(x:double(), w:size(), gy:double(), { 1, 1 }, { 2, 2 })
  local large = onednn_takes_large()
  for _, on in ipairs({ true, false }) do
    with_onednn(on, function()
      local before = gemms()
      close(torch.conv2d(x, w, b, { 1, 1 }, { 2, 2 }), y64, 75, 'forward ' .. tostring(on))
      close(torch.convTranspose2d(gy, w, nil, { 1, 1 }, { 2, 2 }), gx64, 64 * 25, 'input gradient ' .. tostring(on))
      close(torch.convWeight(x, w:size(), gy, { 1, 1 }, { 2, 2 }), gw64, 2 * 1024, 'weight gradient ' .. tostring(on))
      tester:asserteq(gemms() > before, on and large, 'GEMMs on oneDNN ' .. tostring(on))
    end)
  end
end

-- Note [oneDNN reduced-precision GEMM]: bf16 products on oneDNN's matmul (AVX-512 machines), f16
-- where it has a non-reference kernel; both rounded once from f32 sums, so within a rounding of
-- the f64 product of the same (bf16/f16) values. Transposed, narrowed and batch-broadcast operands,
-- alpha and beta, beta = 0 over NaN, and addbmm's sum over the batch (kept on the portable path).
function tests.reducedPrecisionProducts()
  torch.manualSeed(24)
  local large = onednn_takes_large()
  for _, T in ipairs({ 'torch.BFloat16Tensor', 'torch.HalfTensor' }) do
    local ulp = T == 'torch.BFloat16Tensor' and 2 ^ -8 or 2 ^ -11
    local function near(got, ref, what)
      local err = (got:double() - ref):abs()
      local bound = ref:clone():abs():mul(ulp):add(1e-3)
      tester:assert(err:le(bound):all(), string.format('%s %s: error %g', T, what, err:max()))
    end
    local function r(...) return torch.randn(...):type(T) end
    for _, on in ipairs({ true, false }) do
      with_onednn(on, function()
        local what = 'oneDNN ' .. tostring(on)
        local before = gemms()
        local a, b = r(70, 60), r(60, 50)
        local ad, bd = a:double(), b:double()
        near(torch.mm(a, b), torch.mm(ad, bd), what .. ': mm')
        near(torch.mm(a:t():clone():t(), b:t():clone():t()), torch.mm(ad, bd), what .. ': transposed operands')
        local wide = torch.randn(70, 100):type(T)
        local res = wide:narrow(2, 1, 50)
        torch.mm(res, a, b)
        near(res, torch.mm(ad, bd), what .. ': narrowed result')
        local c = torch.FloatTensor(70, 50):fill(0 / 0):type(T)
        torch.addmm(c, 0, c, 1, a, b)
        near(c, torch.mm(ad, bd), what .. ': beta 0 over NaN')
        local c0 = r(70, 50)
        near(torch.addmm(0.5, c0, 2, a, b), torch.addmm(0.5, c0:double(), 2, ad, bd), what .. ': alpha, beta')
        local ba, bb = r(3, 40, 30), r(3, 30, 50)
        near(torch.bmm(ba, bb), torch.bmm(ba:double(), bb:double()), what .. ': bmm')
        local shared = r(1, 40, 30):expand(3, 40, 30)
        near(torch.bmm(shared, bb), torch.bmm(shared:double(), bb:double()), what .. ': broadcast batch')
        local bc = r(3, 40, 50)
        near(torch.baddbmm(0.5, bc, 2, ba, bb), torch.baddbmm(0.5, bc:double(), 2, ba:double(), bb:double()),
          what .. ': baddbmm')
        if T == 'torch.BFloat16Tensor' then
          tester:asserteq(gemms() - before, (on and large) and 8 or 0, what .. ': products oneDNN computed')
        end
        -- addbmm rounds the sum over the batch once: the portable path
        local mid = gemms()
        local ac = r(40, 50)
        near(torch.addbmm(1, ac, 1, ba, bb), torch.addbmm(1, ac:double(), 1, ba:double(), bb:double()),
          what .. ': addbmm')
        tester:asserteq(gemms(), mid, what .. ': addbmm stays portable')
      end)
    end
  end
end

tester:add(tests)
tester:run()
