-- torch.randint/randintLike, poisson, binomial and the windows hannWindow, hammingWindow,
-- blackmanWindow, bartlettWindow, kaiserWindow (lua/torch/creation.lua): closed forms for the
-- windows, distribution checks (means and variances within tolerance, ranges), reproducibility
-- under torch.manualSeed, errors, and CUDA against the CPU when a device is present.
local tester = torch.Tester()
local R = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/ref.lua')
local tests = torch.TestSuite()

local function sizes(t) return t:dim() == 0 and {} or t:size():totable() end
local function near(a, b, tol, what)
  tester:asserteq(#a, #b, what .. ' length')
  for i = 1, #a do
    tester:assert(math.abs(a[i] - b[i]) <= tol, ('%s [%d]: %g vs %g'):format(what, i, a[i], b[i]))
  end
end
local function mean_var(t)
  local d = t:double()
  local m = d:mean()
  return m, d:clone():add(-m):pow(2):sum() / (d:nElement() - 1)
end

-- ---- randint -----------------------------------------------------------------------------------

function tests.randint()
  torch.manualSeed(1)
  local t = torch.randint(3, 7, { 200, 50 })
  tester:asserteq(t:type(), 'torch.LongTensor')
  tester:eq(sizes(t), { 200, 50 })
  tester:asserteq(t:min(), 3)
  tester:asserteq(t:max(), 6)      -- high excluded
  local m, v = mean_var(t)
  tester:assertlt(math.abs(m - 4.5), 0.03)
  tester:assertlt(math.abs(v - 1.25), 0.05)   -- (4^2 - 1) / 12
  -- every value appears about equally often
  for k = 3, 6 do
    local f = t:eq(k):sum() / t:nElement()
    tester:assertlt(math.abs(f - 0.25), 0.02, 'frequency of ' .. k)
  end
  local z = torch.randint(5, { 1000 })
  tester:asserteq(z:min(), 0)
  tester:asserteq(z:max(), 4)
  tester:asserteq(torch.randint(-3, -2, { 4 }):max(), -3)
  tester:asserteq(torch.randint(0, 10, { 3 }, 'torch.IntTensor'):type(), 'torch.IntTensor')
  tester:asserteq(torch.randint(0, 10, torch.LongStorage({ 2, 2 }), 'torch.DoubleTensor'):type(), 'torch.DoubleTensor')
  tester:eq(sizes(torch.randint(3, { 0 })), { 0 })
  -- reproducible under a seed, and through a generator
  torch.manualSeed(7)
  local a = torch.randint(0, 1000, { 20 })
  torch.manualSeed(7)
  tester:eq(torch.randint(0, 1000, { 20 }):totable(), a:totable())
  local g1, g2 = torch.Generator(), torch.Generator()
  torch.manualSeed(g1, 3)
  torch.manualSeed(g2, 3)
  tester:eq(torch.randint(g1, 0, 100, { 10 }):totable(), torch.randint(g2, 0, 100, { 10 }):totable())
  local like = torch.randintLike(torch.IntTensor(3, 4), 2, 5)
  tester:asserteq(like:type(), 'torch.IntTensor')
  tester:eq(sizes(like), { 3, 4 })
  tester:assert(like:min() >= 2 and like:max() <= 4)
  tester:assert(torch.randintLike(torch.ByteTensor(50), 3):max() <= 2)
  tester:assertErrorPattern(function() torch.randint(5, 5, { 2 }) end, '%[randint%] expected low < high, got low = 5 and high = 5')
  tester:assertErrorPattern(function() torch.randint(1.5, { 2 }) end, '%[randint%] high must be an integer')
  tester:assertErrorPattern(function() torch.randint(2 ^ 63, { 2 }) end, '%[randint%] high must lie in %[%-2%^63, 2%^63%)')
  tester:assertErrorPattern(function() torch.randint(0, 300, { 2 }, 'torch.ByteTensor') end,
    '%[randint%] range %[0, 300%) does not fit a torch.ByteTensor')
  tester:assertErrorPattern(function() torch.randint(0, 3) end, '%[randint%] expected sizes')
  tester:assertErrorPattern(function() torch.randint(0, 3, { 2 }, 'torch.Foo') end, '%[randint%] expected a tensor type name')
  tester:assertErrorPattern(function() torch.randintLike(3, 4) end, '%[randintLike%] expected a tensor')
end

-- ---- poisson, binomial -------------------------------------------------------------------------

function tests.poisson()
  torch.manualSeed(2)
  for _, lam in ipairs({ 0.5, 3, 12, 80 }) do
    local d = torch.poisson(torch.DoubleTensor(20000):fill(lam))
    local m, v = mean_var(d)
    tester:assertlt(math.abs(m - lam), 5 * math.sqrt(lam / 20000), 'poisson mean, lambda ' .. lam)
    tester:assertlt(math.abs(v - lam), 0.06 * lam, 'poisson variance, lambda ' .. lam)
    tester:asserteq(d:min() >= 0 and 1 or 0, 1)
    tester:asserteq(d:clone():floor():eq(d):all() and 1 or 0, 1, 'whole numbers')
  end
  -- P(X = 0) = exp(-lambda)
  local d = torch.poisson(torch.Tensor(20000):fill(1))
  tester:assertlt(math.abs(d:eq(0):sum() / 20000 - math.exp(-1)), 0.015)
  -- per-element rates, shape and type kept
  local rates = torch.Tensor({ { 0, 1e-3 }, { 5, 50 } })
  local r = torch.poisson(rates)
  tester:eq(sizes(r), { 2, 2 })
  tester:asserteq(r:type(), 'torch.FloatTensor')
  tester:asserteq(r[1][1], 0)
  torch.manualSeed(9)
  local a = torch.poisson(torch.Tensor(10):fill(4))
  torch.manualSeed(9)
  tester:eq(torch.poisson(torch.Tensor(10):fill(4)):totable(), a:totable())
  tester:eq(sizes(torch.poisson(torch.Tensor(0))), { 0 })
  tester:assertErrorPattern(function() torch.poisson(torch.Tensor({ -1 })) end,
    '%[poisson%] rates must be finite and not negative, got %-1 at position 1')
  tester:assertErrorPattern(function() torch.poisson(torch.LongTensor({ 1 })) end,
    '%[poisson%] expected rates as a floating point tensor, got a torch.LongTensor')
  tester:assertErrorPattern(function() torch.poisson(3) end, '%[poisson%] expected rates %(a tensor%)')
end

function tests.binomial()
  torch.manualSeed(3)
  -- the last two: 1 - p rounds to 1, where q^n by pow had drawn only zeros
  for _, case in ipairs({ { 10, 0.3 }, { 5, 0.9 }, { 200, 0.4 }, { 1000, 0.02 }, { 60, 0.75 }, { 1e17, 1e-17 },
                          { 1e18, 3e-18 } }) do
    local n, p = case[1], case[2]
    local d = torch.binomial(torch.DoubleTensor(20000):fill(n), torch.DoubleTensor(20000):fill(p))
    local m, v = mean_var(d)
    local var = n * p * (1 - p)
    tester:assertlt(math.abs(m - n * p), 5 * math.sqrt(var / 20000), ('binomial mean n=%g p=%g'):format(n, p))
    tester:assertlt(math.abs(v - var), 0.07 * var, ('binomial variance n=%g p=%g'):format(n, p))
    tester:assert(d:min() >= 0 and d:max() <= n, 'within [0, n]')
  end
  -- broadcasting, edge probabilities, shape and type
  local r = torch.binomial(torch.Tensor({ { 5 }, { 7 } }), torch.Tensor({ 0, 1, 0.5 }))
  tester:eq(sizes(r), { 2, 3 })
  tester:eq(r:select(2, 1):totable(), { 0, 0 })
  tester:eq(r:select(2, 2):totable(), { 5, 7 })
  tester:asserteq(torch.binomial(torch.DoubleTensor({ 3 }), torch.Tensor({ 0.5 })):type(), 'torch.DoubleTensor')
  torch.manualSeed(4)
  local a = torch.binomial(torch.Tensor(10):fill(30), torch.Tensor(10):fill(0.5))
  torch.manualSeed(4)
  tester:eq(torch.binomial(torch.Tensor(10):fill(30), torch.Tensor(10):fill(0.5)):totable(), a:totable())
  tester:assertErrorPattern(function() torch.binomial(torch.Tensor({ 2.5 }), torch.Tensor({ 0.5 })) end,
    '%[binomial%] count must hold non%-negative integers, got 2.5')
  tester:assertErrorPattern(function() torch.binomial(torch.Tensor({ 2 }), torch.Tensor({ 1.5 })) end,
    '%[binomial%] prob must lie in %[0, 1%], got 1.5')
  tester:assertErrorPattern(function() torch.binomial(torch.Tensor(2), torch.Tensor(3)) end,
    '%[binomial%] count of size 2 and prob of size 3 do not broadcast')
  tester:assertErrorPattern(function() torch.binomial(torch.LongTensor({ 2 }), torch.Tensor({ 0.5 })) end,
    '%[binomial%] expected count and prob as floating point tensors')
end

-- ---- windows -----------------------------------------------------------------------------------

local function i0(x)
  local s, t = 1, 1
  for k = 1, 200 do
    t = t * (x / 2) ^ 2 / (k * k)
    s = s + t
  end
  return s
end

local function closed(kind, n, periodic, a, b)
  local N = periodic and n or n - 1
  local r = {}
  for k = 0, n - 1 do
    local t = k / N
    local v
    if n == 1 then v = 1
    elseif kind == 'hann' then v = 0.5 - 0.5 * math.cos(2 * math.pi * t)
    elseif kind == 'hamming' then v = a - b * math.cos(2 * math.pi * t)
    elseif kind == 'blackman' then v = 0.42 - 0.5 * math.cos(2 * math.pi * t) + 0.08 * math.cos(4 * math.pi * t)
    elseif kind == 'bartlett' then v = 1 - math.abs(2 * t - 1)
    else v = i0(b * math.sqrt(math.max(0, 1 - (2 * t - 1) ^ 2))) / i0(b) end
    r[k + 1] = v
  end
  return r
end

function tests.windows()
  local D = 'torch.DoubleTensor'
  for _, n in ipairs({ 1, 2, 5, 8, 33 }) do
    for _, periodic in ipairs({ true, false }) do
      local what = (' n=%d periodic=%s'):format(n, tostring(periodic))
      near(torch.hannWindow(n, periodic, D):totable(), closed('hann', n, periodic), 1e-12, 'hann' .. what)
      near(torch.hammingWindow(n, periodic, D):totable(), closed('hamming', n, periodic, 0.54, 0.46), 1e-12, 'hamming' .. what)
      near(torch.hammingWindow(n, periodic, 0.5, 0.5, D):totable(), closed('hamming', n, periodic, 0.5, 0.5), 1e-12,
        'hamming alpha beta' .. what)
      near(torch.blackmanWindow(n, periodic, D):totable(), closed('blackman', n, periodic), 1e-12, 'blackman' .. what)
      near(torch.bartlettWindow(n, periodic, D):totable(), closed('bartlett', n, periodic), 1e-12, 'bartlett' .. what)
      near(torch.kaiserWindow(n, periodic, D):totable(), closed('kaiser', n, periodic, 0, 12), 1e-10, 'kaiser' .. what)
      near(torch.kaiserWindow(n, periodic, 5, D):totable(), closed('kaiser', n, periodic, 0, 5), 1e-10, 'kaiser 5' .. what)
    end
  end
  -- values PyTorch gives (torch.hann_window(4) and the symmetric 5-point windows)
  near(torch.hannWindow(4):totable(), { 0, 0.5, 1, 0.5 }, 1e-6, 'hann 4')
  near(torch.hannWindow(5, false):totable(), { 0, 0.5, 1, 0.5, 0 }, 1e-6, 'hann 5 symmetric')
  near(torch.bartlettWindow(5, false):totable(), { 0, 0.5, 1, 0.5, 0 }, 1e-6, 'bartlett 5')
  near(torch.blackmanWindow(3, false):totable(), { 0, 1, 0 }, 1e-6, 'blackman 3')
  -- exactly 0 at the ends as PyTorch's, not -1.4e-17 (a negative weight breaks sqrt(w))
  local bw = torch.blackmanWindow(5, false, 'torch.DoubleTensor')
  tester:asserteq(bw[1], 0, 'blackman first')
  tester:asserteq(bw[5], 0, 'blackman last')
  tester:asserteq(torch.hannWindow(4):type(), torch.getdefaulttensortype())
  tester:asserteq(torch.kaiserWindow(4, true, 'torch.HalfTensor'):type(), 'torch.HalfTensor')
  tester:eq(sizes(torch.hannWindow(0)), { 0 })
  tester:assertErrorPattern(function() torch.hannWindow(-1) end, '%[hannWindow%] window length must not be negative, got %-1')
  tester:assertErrorPattern(function() torch.hannWindow(2.5) end, '%[hannWindow%] window length must be an integer')
  tester:assertErrorPattern(function() torch.hannWindow(4, 1) end, '%[hannWindow%] periodic must be a boolean')
  tester:assertErrorPattern(function() torch.blackmanWindow(4, true, 'torch.LongTensor') end,
    '%[blackmanWindow%] expected a floating point type, got a torch.LongTensor')
  tester:assertErrorPattern(function() torch.kaiserWindow(4, true, {}) end, '%[kaiserWindow%] beta must be a number')
end

-- ---- CUDA --------------------------------------------------------------------------------------

function tests.cudaMatchesCpu()
  if R.no_cuda() then return end
  torch.manualSeed(11)
  local a = torch.randint(0, 50, { 30 })
  torch.manualSeed(11)
  local g = torch.randint(0, 50, { 30 }, 'torch.CudaLongTensor')
  tester:asserteq(g:type(), 'torch.CudaLongTensor')
  tester:assert(g:min() >= 0 and g:max() <= 49)
  tester:eq(g:type('torch.LongTensor'):totable(), a:totable(), 'randint: the same draws on the device')
  local rates = torch.Tensor(30):uniform(0, 20)
  torch.manualSeed(12)
  local p = torch.poisson(rates)
  torch.manualSeed(12)
  local pg = torch.poisson(rates:cuda())
  tester:asserteq(pg:type(), 'torch.CudaTensor')
  tester:eq(pg:float():totable(), p:totable(), 'poisson: the same draws on the device')
  torch.manualSeed(13)
  local b = torch.binomial(torch.Tensor(30):fill(40), torch.Tensor(30):fill(0.3))
  torch.manualSeed(13)
  local bg = torch.binomial(torch.Tensor(30):fill(40):cuda(), torch.Tensor(30):fill(0.3):cuda())
  tester:eq(bg:float():totable(), b:totable(), 'binomial: the same draws on the device')
  tester:eq(torch.hannWindow(8, true, 'torch.CudaTensor'):float():totable(), torch.hannWindow(8):totable())
end

tester:add(tests)
tester:run()
