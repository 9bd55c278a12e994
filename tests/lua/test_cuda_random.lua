-- Random fills and sequences computed on the GPU (Note [Device random fills], Note [Device
-- distributions], Note [Device sequences]): exponential, cauchy, logNormal, geometric and random
-- drawn from the device's Philox generator, checked by their statistics (generous tolerances:
-- the draws are not the CPU's), their value sets (integers in range), torch.cuda.manualSeed
-- reproducibility and strided targets, for every dtype; range/arange/linspace/logspace against
-- the CPU's values exactly. Registered as lua.cuda_random: without a GPU it prints "SKIPPED: no
-- CUDA device". TOCHA_CUDA_RANDOM_DRYRUN=1 without a GPU runs it on CPU tensors seeded by
-- torch.manualSeed (lua.cuda_random_dryrun), which checks the suite itself on machines that
-- cannot run it.
local tester = torch.Tester()
local tests = torch.TestSuite()

local dry = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/cuda_gate.lua')(
  'TOCHA_CUDA_RANDOM_DRYRUN', 'lua.cuda_random', 'CPU tensors')
if dry == nil then return end

-- max: the largest value of random() (core/ops/random.cpp random_max).
local F32 = { cuda = 'torch.CudaTensor', cpu = 'torch.FloatTensor', floating = true, max = 2 ^ 24 }
local F64 = { cuda = 'torch.CudaDoubleTensor', cpu = 'torch.DoubleTensor', floating = true, max = 2 ^ 32 - 1 }
local F16 = { cuda = 'torch.CudaHalfTensor', cpu = 'torch.HalfTensor', floating = true, max = 2048 }
local BF16 = { cuda = 'torch.CudaBFloat16Tensor', cpu = 'torch.BFloat16Tensor', floating = true, max = 256 }
local I64 = { cuda = 'torch.CudaLongTensor', cpu = 'torch.LongTensor', max = 2 ^ 32 - 1 }
local I32 = { cuda = 'torch.CudaIntTensor', cpu = 'torch.IntTensor', max = 2 ^ 31 - 1 }
local U8 = { cuda = 'torch.CudaByteTensor', cpu = 'torch.ByteTensor', max = 255 }
local B8 = { cuda = 'torch.CudaBoolTensor', cpu = 'torch.BoolTensor', max = 1 }
local floating = { F32, F64, F16, BF16 }
local numeric = { F32, F64, F16, BF16, I64, I32, U8 }
local every = { F32, F64, F16, BF16, I64, I32, U8, B8 }

-- A "device" tensor of type ty with the given sizes (a CPU one in the dry run).
local function new(ty, ...) return torch[(dry and ty.cpu or ty.cuda):sub(7)](...) end
local function cpu(ty, ...) return torch[ty.cpu:sub(7)](...) end
local seed = dry and torch.manualSeed or torch.cuda.manualSeed
-- Any tensor as a CPU DoubleTensor.
local function host(t) return t:double() end
local function tname(ty) return dry and ty.cpu or ty.cuda end

local function count_where(mask) return mask:double():sum() end
local function no_nan(what, d) tester:asserteq(count_where(d:ne(d)), 0, what .. ': no NaN') end
local function finite(what, d)
  no_nan(what, d)
  tester:asserteq(count_where(torch.abs(d):eq(math.huge)), 0, what .. ': no infinity')
end
local function integers(what, d)
  tester:asserteq((d - torch.floor(d)):abs():max(), 0, what .. ': integer values')
end
local function near(what, got, want, tol)
  tester:assert(math.abs(got - want) <= tol, string.format('%s: %.6g, expected %.6g +- %g', what, got, want, tol))
end

local N = dry and 250000 or 1000000  -- the dry run's CPU fills are slower

-- ---- statistics ------------------------------------------------------------------------------

function tests.exponentialMoments()
  seed(1)
  for _, ty in ipairs(floating) do
    local what = 'exponential(2) on ' .. tname(ty)
    local x = new(ty, N):exponential(2)
    tester:asserteq(torch.type(x), tname(ty), what .. ' keeps its type')
    local d = host(x)
    finite(what, d)
    tester:assert(d:min() >= 0, what .. ': non-negative')
    near(what .. ' mean', d:mean(), 0.5, 0.01)
    near(what .. ' std', d:std(), 0.5, 0.015)
  end
  -- A lambda too small for float arithmetic: the float types compute in double, so u = 0 gives
  -- 0 as on the CPU, never -inf * 0 = NaN (Note [Device distributions]).
  for _, ty in ipairs({ F32, F16, BF16 }) do no_nan('exponential(1e-39) on ' .. tname(ty), host(new(ty, N):exponential(1e-39))) end
end

function tests.logNormalMoments()
  seed(2)
  for _, ty in ipairs(floating) do
    -- Torch7's logNormal(mean, std) takes the mean and std of the values themselves.
    local what = 'logNormal(2, 0.5) on ' .. tname(ty)
    local d = host(new(ty, N):logNormal(2, 0.5))
    finite(what, d)
    tester:assert(d:min() > 0, what .. ': positive')
    near(what .. ' mean', d:mean(), 2, 0.02)
    near(what .. ' std', d:std(), 0.5, 0.02)
    -- An odd count: the last element comes from a pair of its own.
    d = host(new(ty, 101):logNormal(1, 0.1))
    finite(what .. ' of 101 elements', d)
    tester:assert(d:min() > 0, what .. ' of 101 elements: positive')
  end
end

function tests.cauchyQuartiles()
  seed(3)
  for _, ty in ipairs(floating) do
    -- cauchy(1, 2): half the mass below the median, half within one sigma of it.
    local what = 'cauchy(1, 2) on ' .. tname(ty)
    local d = host(new(ty, N):cauchy(1, 2))
    if ty == F16 then no_nan(what, d) else finite(what, d) end  -- |x| > 65504 is inf in f16 (on the CPU too)
    near(what .. ': below the median', count_where(d:lt(1)) / N, 0.5, 0.01)
    near(what .. ': within one sigma', (count_where(d:ge(-1)) - count_where(d:gt(3))) / N, 0.5, 0.01)
  end
end

function tests.geometricValues()
  seed(4)
  -- Torch7's geometric(p): P(i) = (1 - p) p^(i - 1), mean 1 / (1 - p), variance p / (1 - p)^2.
  for _, ty in ipairs(numeric) do
    local what = 'geometric(0.25) on ' .. tname(ty)
    local x = new(ty, N):geometric(0.25)
    tester:asserteq(torch.type(x), tname(ty), what .. ' keeps its type')
    local d = host(x)
    integers(what, d)
    tester:assert(d:min() >= 1, what .. ': values from 1')
    near(what .. ' mean', d:mean(), 4 / 3, 0.01)
    near(what .. ' variance', d:var(), 0.25 / 0.5625, 0.02)
  end
  -- p close to 1: log(p) in double (Note [Device distributions]); mean 10^4.
  for _, ty in ipairs({ F32, F64, I64, I32 }) do
    local what = 'geometric(0.9999) on ' .. tname(ty)
    local d = host(new(ty, N):geometric(0.9999))
    finite(what, d)
    integers(what, d)
    tester:assert(d:min() >= 1, what .. ': values from 1')
    near(what .. ' mean', d:mean() / 1e4, 1, 0.02)
  end
end

function tests.randomIntegersInRange()
  seed(5)
  for _, ty in ipairs(every) do
    local lo, hi = 3, 6
    if ty == B8 then lo, hi = 0, 1 end
    local what = string.format('random(%d, %d) on %s', lo, hi, tname(ty))
    local x = new(ty, 200000):random(lo, hi)
    tester:asserteq(torch.type(x), tname(ty), what .. ' keeps its type')
    local d = host(x)
    integers(what, d)
    tester:asserteq(d:min(), lo, what .. ': min')
    tester:asserteq(d:max(), hi, what .. ': max')
    for v = lo, hi do near(what .. ': share of ' .. v, count_where(d:eq(v)) / 200000, 1 / (hi - lo + 1), 0.01) end
    -- random(): [0, max] of the dtype, as on the CPU.
    what = 'random() on ' .. tname(ty)
    d = host(new(ty, 200000):random())
    integers(what, d)
    tester:assert(d:min() >= 0 and d:max() <= ty.max, what .. ': in [0, ' .. ty.max .. ']')
    near(what .. ' mean / max', d:mean() / ty.max, 0.5, 0.01)
    if ty ~= B8 then
      -- random(b) is [1, b]; negative bounds.
      d = host(new(ty, 100000):random(100))
      integers('random(100) on ' .. tname(ty), d)
      tester:assert(d:min() == 1 and d:max() == 100, 'random(100) on ' .. tname(ty) .. ': [1, 100]')
      if ty ~= U8 then
        d = host(new(ty, 100000):random(-5, 5))
        tester:assert(d:min() == -5 and d:max() == 5, 'random(-5, 5) on ' .. tname(ty))
        near('random(-5, 5) on ' .. tname(ty) .. ' mean', d:mean(), 0, 0.05)
      end
    end
  end
  -- More than 2^32 values: two words per element (dist::random_in_range).
  for _, ty in ipairs({ I64, F64 }) do
    local what = 'random(-2^40, 2^40) on ' .. tname(ty)
    local d = host(new(ty, 200000):random(-2 ^ 40, 2 ^ 40))
    integers(what, d)
    tester:assert(d:min() >= -2 ^ 40 and d:max() <= 2 ^ 40, what .. ': in range')
    near(what .. ' mean / 2^40', d:mean() / 2 ^ 40, 0, 0.01)
    tester:assert(count_where(torch.abs(d):gt(2 ^ 39)) > 80000, what .. ': spread over the whole range')
  end
end

-- ---- seeds and layouts -----------------------------------------------------------------------

-- Each fill with the types it takes.
local fills = {
  { 'exponential', floating, function(x) return x:exponential(1.5) end },
  { 'cauchy', floating, function(x) return x:cauchy(-1, 0.5) end },
  { 'logNormal', floating, function(x) return x:logNormal(1, 0.3) end },
  { 'geometric', numeric, function(x) return x:geometric(0.4) end },
  { 'random(1, 100)', numeric, function(x) return x:random(1, 100) end },
  { 'random()', every, function(x) return x:random() end },
}

local function same(a, b) return host(a):equal(host(b)) end

function tests.manualSeedReproduces()
  for _, f in ipairs(fills) do
    local name, types, fill = f[1], f[2], f[3]
    for _, ty in ipairs(types) do
      local what = name .. ' on ' .. tname(ty)
      seed(123)
      local a, b = fill(new(ty, 1001)), fill(new(ty, 1001))
      seed(123)
      local a2, b2 = fill(new(ty, 1001)), fill(new(ty, 1001))
      tester:assert(same(a, a2), what .. ': the same seed gives the same first fill')
      tester:assert(same(b, b2), what .. ': and the same second fill')
      tester:assert(not same(a, b), what .. ': successive fills differ')
      seed(124)
      tester:assert(not same(a, fill(new(ty, 1001))), what .. ': another seed gives other values')
    end
  end
end

function tests.stridedTargetsAreFilled()
  for _, f in ipairs(fills) do
    local name, types, fill = f[1], f[2], f[3]
    for _, ty in ipairs(types) do
      local what = name .. ' on a transposed ' .. tname(ty)
      -- The values depend on the element's index only (Note [Philox streams]).
      seed(9)
      local c = fill(new(ty, 30, 40))
      seed(9)
      local t = new(ty, 40, 30):t()
      local d = fill(t)
      tester:assert(rawequal(d, t), what .. ' returns the target')
      tester:assert(not t:isContiguous(), what .. ': still strided')
      tester:assert(same(c, t), what .. ': the values of a contiguous fill')
      -- Every element of a column view is written.
      if ty ~= B8 then
        local m = new(ty, 500, 3):fill(77)
        local col = m:select(2, 2)
        fill(col)
        tester:asserteq(count_where(host(col):eq(77)) < 50, true, name .. ' on a column of ' .. tname(ty))
        tester:asserteq(count_where(host(m:select(2, 1)):ne(77)), 0, name .. ' leaves the other columns')
      end
    end
  end
end

-- ---- sequences -------------------------------------------------------------------------------

-- Sequence cases: name, fn(res) filling res, and which types take it.
local function seq_cases(ty)
  local int = not ty.floating
  local cases = {
    { 'range(1, 10)', function(r) return torch.range(r, 1, 10) end },
    { 'range(5, 5)', function(r) return torch.range(r, 5, 5) end },
    { 'arange(0, 100)', function(r) return torch.arange(r, 0, 100) end },
    { 'arange(3, 3)', function(r) return torch.arange(r, 3, 3) end },
    { 'arange(0, 1)', function(r) return torch.arange(r, 0, 1) end },
    { 'linspace(0, 100, 101)', function(r) return torch.linspace(r, 0, 100, 101) end },
    { 'linspace(0, 10, 7)', function(r) return torch.linspace(r, 0, 10, 7) end },
    { 'linspace(0, 1, 0)', function(r) return torch.linspace(r, 0, 1, 0) end },
    { 'linspace(2, 3, 1)', function(r) return torch.linspace(r, 2, 3, 1) end },
    { 'logspace(0, 2, 3)', function(r) return torch.logspace(r, 0, 2, 3) end },
    { 'logspace(1, 2, 1)', function(r) return torch.logspace(r, 1, 2, 1) end },
    { 'logspace(0, 1, 0)', function(r) return torch.logspace(r, 0, 1, 0) end },
    { 'logspace(0, 7, 8, 2)', function(r) return torch.logspace(r, 0, 7, 8, 2) end },
  }
  -- a fractional step fills floating types only (an integer result refuses it, as PyTorch)
  if not int then cases[#cases + 1] = { 'range(0, 5, 0.5)', function(r) return torch.range(r, 0, 5, 0.5) end } end
  if ty ~= U8 then
    cases[#cases + 1] = { 'range(10, -10, -3)', function(r) return torch.range(r, 10, -10, -3) end }
    cases[#cases + 1] = { 'range(-10000, 20000, 3)', function(r) return torch.range(r, -10000, 20000, 3) end }
    cases[#cases + 1] = { 'linspace(-300, 700, 100003)', function(r) return torch.linspace(r, -300, 700, 100003) end }
    cases[#cases + 1] = { 'logspace(0, 3, 4)', function(r) return torch.logspace(r, 0, 3, 4) end }
  end
  if ty ~= U8 and ty ~= F16 then  -- beyond f16's 65504
    cases[#cases + 1] = { 'range(-100000, 100000, 7)', function(r) return torch.range(r, -100000, 100000, 7) end }
  end
  if not int then
    cases[#cases + 1] = { 'range(0, 1, 0.1)', function(r) return torch.range(r, 0, 1, 0.1) end }
    cases[#cases + 1] = { 'arange(0, 0.3, 0.1)', function(r) return torch.arange(r, 0, 0.3, 0.1) end }
    cases[#cases + 1] = { 'range(-5, 5, 0.25)', function(r) return torch.range(r, -5, 5, 0.25) end }
    cases[#cases + 1] = { 'linspace(0, 1, 7)', function(r) return torch.linspace(r, 0, 1, 7) end }
    cases[#cases + 1] = { 'linspace(-3.7, 11.3, 100003)', function(r) return torch.linspace(r, -3.7, 11.3, 100003) end }
    cases[#cases + 1] = { 'logspace(-4, 4, 10001)', function(r) return torch.logspace(r, -4, 4, 10001), true end }
    cases[#cases + 1] = { 'logspace(-1.5, 2.5, 9, 3)', function(r) return torch.logspace(r, -1.5, 2.5, 9, 3), true end }
  end
  return cases
end

-- 0 when a and b (CPU f64 tensors of one size) are equal, else their largest |a - b| / |a|.
local function rel_diff(a, b)
  if a:nElement() == 0 or a:equal(b) then return 0 end
  return (a - b):abs():cdiv(torch.abs(a):cmax(1e-300)):max()
end

function tests.sequencesMatchCpu()
  for _, ty in ipairs(numeric) do
    for _, case in ipairs(seq_cases(ty)) do
      local name, fill = case[1], case[2]
      local what = name .. ' on ' .. tname(ty)
      local want = fill(cpu(ty))
      local res = new(ty, 3)
      local got, general_pow = fill(res)
      tester:assert(rawequal(got, res), what .. ' fills its res')
      tester:asserteq(torch.type(got), tname(ty), what .. ' stays on the device')
      tester:assertTableEq(got:size():totable(), want:size():totable(), what .. ': size')
      local a, b = host(want), host(got)
      -- Note [Sequences without FMA]: exact, but f64 logspace of a non-exact power (CUDA's pow
      -- is within 2 ulp, glibc's within 1: up to 3 ulp apart, 6.7e-16 relative just above a
      -- power of two).
      local tol = (general_pow and ty == F64) and 1e-15 or 0
      local e = rel_diff(a, b)
      tester:assert(e <= tol, string.format('%s: relative difference %g from the CPU (allowed %g)', what, e, tol))
      -- A strided target of the right size is written in place through a temporary.
      local n = want:nElement()
      if n > 1 then
        local m = new(ty, n, 2):zero()
        local col = m:select(2, 2)
        fill(col)
        tester:assert(not col:isContiguous(), what .. ' into a column keeps its strides')
        e = rel_diff(a, host(col))
        tester:assert(e <= tol, string.format('%s into a column: relative difference %g', what, e))
        tester:asserteq(host(m:select(2, 1)):abs():max(), 0, what .. ' into a column leaves the other column')
      end
    end
  end
end

-- Note [Device randperm], Note [Device multinomial]: randperm sorts random Philox keys on the
-- device, multinomial samples one row per block; both checked by what they must give (a
-- permutation; frequencies near the weights, zero weights never drawn, distinct indices without
-- replacement) and torch.cuda.manualSeed reproducibility. Bad weights are found by the kernel and
-- raised at the next synchronization (here the copy to the host), naming multinomial.
local function check_perm(what, p, n)
  tester:asserteq(p:nElement(), n, what .. ': n elements')
  if n == 0 then return end
  local s = torch.sort(host(p):view(n))
  tester:assert(s:equal(torch.range(1, n):double()), what .. ': a permutation of 1..n')
end

function tests.randpermAndMultinomialOnTheDevice()
  -- The largest n whose indices each dtype holds exactly.
  local limit = { [F16] = 2048, [BF16] = 256, [U8] = 255 }
  for _, ty in ipairs(numeric) do
    local sizes = { 0, 1, 1000, 2 ^ 20 }
    if limit[ty] then sizes = { 0, 1, limit[ty] } end
    for _, n in ipairs(sizes) do
      local what = 'randperm(' .. n .. ') into a ' .. tname(ty)
      local res = new(ty, 3)
      tester:assert(rawequal(torch.randperm(res, n), res), what .. ' returns its res')
      tester:asserteq(torch.type(res), tname(ty), what .. ' keeps its type')
      check_perm(what, res, n)
      if n >= 255 then
        seed(321)
        local a, b = torch.randperm(new(ty), n), torch.randperm(new(ty), n)
        seed(321)
        local a2 = torch.randperm(new(ty), n)
        tester:assert(same(a, a2), what .. ': the same seed gives the same permutation')
        tester:assert(not same(a, b), what .. ': successive permutations differ')
        tester:assert(not host(a):equal(torch.range(1, n):double()), what .. ': shuffled')
      end
    end
  end
  local strided = new(I64, 100, 2):select(2, 1)
  torch.randperm(strided, 100)
  check_perm('randperm into a strided ' .. tname(I64), strided, 100)
  tester:assertErrorPattern(function() torch.randperm(new(U8), 300) end, 'randperm', 'indices past a ByteTensor')

  local w = { 0, 1, 2, 0, 4, 0, 3 }  -- total 10
  local function weights(ty, rows)
    local p = new(ty, rows, #w)
    local row = cpu(F64, w)
    for r = 1, rows do p:select(1, r):copy(row) end
    return p
  end
  for _, ty in ipairs(floating) do
    local what = 'multinomial from ' .. tname(ty)
    -- With replacement: frequencies near w / 10, zero weights never drawn.
    local rows, n = 3, 20000
    local s = torch.multinomial(weights(ty, rows), n, true)
    tester:asserteq(torch.type(s), dry and 'torch.LongTensor' or 'torch.CudaLongTensor', what .. ': LongTensor')
    tester:assert(s:dim() == 2 and s:size(1) == rows and s:size(2) == n, what .. ': rows x n')
    local d = host(s)
    for c = 1, #w do
      local f = count_where(d:eq(c)) / (rows * n)
      if w[c] == 0 then tester:asserteq(f, 0, what .. ': class ' .. c .. ' (weight 0) never drawn')
      else near(what .. ': frequency of class ' .. c, f, w[c] / 10, 0.015) end
    end
    tester:asserteq(count_where(d:lt(1)) + count_where(d:gt(#w)), 0, what .. ': 1-based indices in range')
    local one = torch.multinomial(weights(ty, 1):select(1, 1), 5, true)
    tester:assert(one:dim() == 1 and one:size(1) == 5, what .. ': 1D weights give n samples')
    -- Without replacement: distinct indices per row; the first pick follows the weights.
    rows = 20000
    s = host(torch.multinomial(weights(ty, rows), 3, false))
    local sorted = torch.sort(s, 2)
    tester:assert((sorted:narrow(2, 2, 2) - sorted:narrow(2, 1, 2)):min() > 0, what .. ': distinct per row')
    for c = 1, #w do
      local f = count_where(s:select(2, 1):eq(c)) / rows
      if w[c] == 0 then tester:asserteq(count_where(s:eq(c)), 0, what .. ': class ' .. c .. ' never drawn')
      else near(what .. ': first pick of class ' .. c, f, w[c] / 10, 0.02) end
    end
    -- Every non-zero class: each row is {2, 3, 5, 7}.
    local all = torch.sort(host(torch.multinomial(weights(ty, 50), 4)), 2)
    local want = torch.DoubleTensor({ 2, 3, 5, 7 }):view(1, 4):expand(50, 4)
    tester:assert(all:equal(want), what .. ': all 4 non-zero classes without replacement')
    -- Wide rows without replacement: a permutation per row (1000 classes); 3000 classes.
    for _, k in ipairs({ 1000, 3000 }) do
      local p = new(ty, 2, k):fill(1)
      local m = torch.multinomial(p, k == 1000 and 1000 or 10)
      for r = 1, 2 do
        local row = torch.sort(host(m:select(1, r)))
        if k == 1000 then tester:assert(row:equal(torch.range(1, 1000):double()), what .. ': a permutation of 1000')
        else tester:assert((row:narrow(1, 2, 9) - row:narrow(1, 1, 9)):min() > 0, what .. ' of 3000 classes: distinct') end
      end
    end
    -- Wide rows with replacement: prefix sums carried over several 256-class scan chunks. Row 1:
    -- weight 1 on classes 1, 5, 9, ... but for 257 and 513 (zeros at chunk edges); row 2: only
    -- its last class (a search that ends past the end, or on a zero, takes a positive class).
    local wide = cpu(F64, 2, 1000):zero()
    for c = 1, 1000, 4 do wide[1][c] = 1 end
    wide[1][257], wide[1][513] = 0, 0
    wide[2][1000] = 3
    local ws = host(torch.multinomial(new(ty, 2, 1000):copy(wide), 20000, true))
    local drawn = wide:select(1, 1):index(1, ws:select(1, 1):long())
    tester:asserteq(drawn:min(), 1, what .. ' of 1000 classes: zero weights never drawn')
    near(what .. ' of 1000 classes: share of the first 500', count_where(ws:select(1, 1):le(500)) / 20000, 124 / 248, 0.02)
    tester:assert(ws:select(1, 2):eq(1000):all(), what .. ': a row with one positive weight, its last class')
    -- Without replacement over 600 classes (keys drawn in chunks, sorted in shared memory): class
    -- 600 weighs as much as the other 599 together, so it is the first pick half the time.
    local heavy = new(ty, 2000, 600):fill(1)
    heavy:select(2, 600):fill(599)
    local picks = host(torch.multinomial(heavy, 2))
    near(what .. ' of 600 classes: first pick of the heavy class', count_where(picks:select(2, 1):eq(600)) / 2000, 0.5,
         0.04)
    tester:assert((picks:select(2, 1) - picks:select(2, 2)):abs():min() > 0, what .. ' of 600 classes: distinct')
    -- One class: every sample is it, with and without replacement.
    local single = new(ty, 3, 1):fill(2)
    tester:assert(host(torch.multinomial(single, 4, true)):eq(1):all(), what .. ' from one class with replacement')
    tester:assert(host(torch.multinomial(single, 1)):eq(1):all(), what .. ' from one class without replacement')
    seed(99)
    local a = torch.multinomial(weights(ty, 4), 50, true)
    local b = torch.multinomial(weights(ty, 4), 3)
    seed(99)
    tester:assert(same(a, torch.multinomial(weights(ty, 4), 50, true)), what .. ': reproducible with replacement')
    tester:assert(same(b, torch.multinomial(weights(ty, 4), 3)), what .. ': reproducible without replacement')
    -- Bad weights: an error naming multinomial (on the GPU at the copy to the host).
    local bad = {
      { 'a negative weight', { 1, -1, 2 }, 1, true, 'non%-negative' },
      { 'a NaN', { 1, 0 / 0, 2 }, 1, true, 'non%-negative' },
      { 'an infinite weight', { 1, math.huge, 2 }, 1, true, 'non%-negative' },
      { 'a zero row', { 0, 0, 0 }, 1, true, 'sum to zero' },
      { 'too few non-zero weights', { 1, 0, 2 }, 3, false, 'non%-zero weights' },
    }
    for _, case in ipairs(bad) do
      local p = new(ty, 2, 3):fill(1)
      p:select(1, 2):copy(cpu(F64, case[2]))
      tester:assertErrorPattern(function() host(torch.multinomial(p, case[3], case[4])) end,
                                'multinomial.*' .. case[5], what .. ' with ' .. case[1])
      -- The error is raised once; the next draw is fine.
      tester:asserteq(host(torch.multinomial(weights(ty, 1), 2, true)):min() >= 1, true, what .. ' after an error')
    end
  end
  -- f64 weights below 1e-307 without replacement: the race's keys stay finite (Note [Device
  -- multinomial]), so the first pick among four equal tiny weights is uniform, not class 1.
  local first = host(torch.multinomial(new(F64, 4000, 4):fill(1e-310), 2)):select(2, 1)
  for c = 1, 4 do near('first pick among tiny f64 weights: class ' .. c, count_where(first:eq(c)) / 4000, 0.25, 0.03) end
end

-- Note [Device Bernoulli with tensor probabilities]: u < p drawn on the device for every target
-- type, p checked by one device reduction.
function tests.bernoulliWithTensorProbabilities()
  local n = N / 4
  for _, pty in ipairs({ F32, F64, F16 }) do
    local p = new(pty, n):copy(torch.linspace(0, 1, n))
    local mean_p = host(p):mean()
    for _, ty in ipairs(every) do
      local what = 'bernoulli(' .. tname(pty) .. ') into ' .. tname(ty)
      seed(7)
      local t = new(ty, n):bernoulli(p)
      tester:asserteq(t:type(), tname(ty), what .. ': keeps its type')
      local d = host(t)
      tester:asserteq(count_where(d:ne(0):cmul(d:ne(1))), 0, what .. ': zeros and ones')
      near(what .. ': mean', d:mean(), mean_p, 0.01)
      -- p = 0 gives 0 and p = 1 gives 1 (the first and last elements)
      tester:asserteq(d[1], 0, what .. ': p = 0')
      tester:asserteq(d[n], 1, what .. ': p = 1')
      -- ones follow p: the upper half has far more than the lower
      near(what .. ': upper half', d:narrow(1, n / 2 + 1, n / 2):mean(), 0.75, 0.01)
      seed(7)
      tester:assert(same(t, new(ty, n):bernoulli(p)), what .. ': the same seed gives the same draws')
    end
  end
  -- broadcast probabilities: one row of p for every row of t
  local row = new(F32, 4):copy(torch.Tensor({ 0, 1, 0, 1 }))
  local t = new(F32, 3, 4):bernoulli(row)
  tester:assert(same(t, new(F32, 3, 4):copy(torch.Tensor({ 0, 1, 0, 1 }):view(1, 4):expand(3, 4))), 'broadcast p')
  for _, bad in ipairs({ 1.5, -0.25, 0 / 0 }) do
    local q = new(F32, 5):fill(0.5)
    q[4] = bad
    tester:assertErrorPattern(function() new(F32, 5):bernoulli(q) end,
      '%[bernoulli%] probabilities must be in %[0, 1%], got .* at element 4', 'p = ' .. tostring(bad))
  end
end

tester:add(tests)
tester:run()
