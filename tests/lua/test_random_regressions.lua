-- Review of the random number API (lua/torch/random.lua, random_pytorch.lua) against PyTorch 1.13
-- and Torch7: seeds and state round trips, Generator objects passed to every sampler,
-- distributions checked by seeded Monte-Carlo (means and variances within 5 standard errors,
-- chi-square statistics within df + 6 sqrt(2 df)), argument errors naming the function.
local tester = torch.Tester()
local tests = torch.TestSuite()

local function err(pattern, f, ...)
  local ok, e = pcall(f, ...)
  tester:assert(not ok, 'expected an error matching ' .. pattern)
  if not ok then tester:assert(tostring(e):find(pattern, 1, true) ~= nil, tostring(e)) end
end

-- mean and variance of x within 5 standard errors of m and v; kurt4 is the fourth central moment
-- (the variance of the sample variance is (mu4 - v^2) / n).
local function moments(x, m, v, mu4, msg)
  x = x:double()
  local n = x:nElement()
  tester:assertle(math.abs(x:mean() - m), 5 * math.sqrt(v / n), msg .. ': mean ' .. x:mean() .. ' vs ' .. m)
  tester:assertle(math.abs(x:var() - v), 5 * math.sqrt((mu4 - v * v) / n), msg .. ': variance ' .. x:var() .. ' vs ' .. v)
end

-- Pearson's chi-square of the integer values of x against probs[k] for values k = lo, lo + 1, ...
-- (the rest, if any, in one more cell), checked against df + 6 sqrt(2 df).
local function chisquare(x, lo, probs, msg)
  x = x:double()
  local n, stat, rest, cells = x:nElement(), 0, 1, 0
  for i, p in ipairs(probs) do
    local c = x:eq(lo + i - 1):sum()
    if p > 0 then stat, cells = stat + (c - n * p) ^ 2 / (n * p), cells + 1
    else tester:asserteq(c, 0, msg .. ': value ' .. (lo + i - 1) .. ' has probability 0') end
    rest = rest - p
  end
  local outside = n - x:ge(lo):cmul(x:le(lo + #probs - 1)):sum()
  if rest > 1e-9 then stat, cells = stat + (outside - n * rest) ^ 2 / (n * rest), cells + 1
  else tester:asserteq(outside, 0, msg .. ': values outside the support') end
  local df = cells - 1
  tester:assertle(stat, df + 6 * math.sqrt(2 * df), msg .. ': chi-square ' .. stat .. ' with ' .. df .. ' df')
end

local N = 40000

local function fact(k) local f = 1 for i = 2, k do f = f * i end return f end

-- ---- seeds, state, generators ------------------------------------------------------------------

function tests.stateRoundTrips()
  torch.manualSeed(5)
  torch.normal()  -- a cached Box-Muller value is part of the state
  local state = torch.getRNGState()
  local a = { torch.normal(), torch.DoubleTensor(3):normal(), torch.rand(4), torch.randperm(6), torch.random() }
  torch.manualSeed(9)
  torch.setRNGState(state)
  tester:asserteq(torch.initialSeed(), 5, 'the restored state carries its seed')
  local b = { torch.normal(), torch.DoubleTensor(3):normal(), torch.rand(4), torch.randperm(6), torch.random() }
  tester:asserteq(a[1], b[1])
  for i = 2, 4 do tester:assertTensorEq(a[i], b[i], 0) end
  tester:asserteq(a[5], b[5])
  -- getRNGState is a snapshot, not a view of the live state
  local s1 = torch.getRNGState()
  torch.uniform()
  tester:assert(not torch.equal(s1, torch.getRNGState()))
  -- a generator's state restores into the default generator and back
  local g = torch.Generator():manualSeed(77)
  torch.setRNGState(g:getRNGState())
  tester:asserteq(torch.uniform(), torch.uniform(g))
  -- Torch7: manualSeed resets the cached normal
  torch.manualSeed(1)
  local n1 = torch.normal()
  torch.manualSeed(1)
  tester:asserteq(torch.normal(), n1)
end

function tests.seedsFromUrandomReplay()
  for _ = 1, 20 do
    local s = torch.seed()
    local u = torch.uniform()
    torch.manualSeed(s)
    tester:asserteq(torch.uniform(), u, 'manualSeed(seed()) replays')
    local g = torch.Generator()
    local h = torch.Generator():manualSeed(g:initialSeed())
    tester:asserteq(torch.uniform(h), torch.uniform(g), 'a new generator replays from its initialSeed')
  end
  torch.manualSeed(2 ^ 64 - 2048)  -- seeds at or above 2^63 read back as negative (int64)
  tester:asserteq(torch.initialSeed(), -2048)
  local u = torch.uniform()
  torch.manualSeed(-2048)
  tester:asserteq(torch.uniform(), u)
  err('[manualSeed] seed must be an integer', torch.manualSeed, 0 / 0)
  err('[manualSeed] seed must be an integer', torch.manualSeed, 2 ^ 64)
  err('[manualSeed] expected a seed', torch.manualSeed)
end

-- Every sampler that takes a generator: same generator seed, same values, whatever the default
-- generator does; the default generator is not advanced.
local samplers = {
  rand = function(g) return torch.rand(g, 3) end,
  randRes = function(g) return torch.rand(torch.DoubleTensor(), g, 3) end,
  randn = function(g) return torch.randn(g, 3) end,
  randLike = function(g) return torch.randLike(g, torch.zeros(3)) end,
  randnLike = function(g) return torch.randnLike(g, torch.zeros(3)) end,
  randint = function(g) return torch.randint(g, 0, 10, { 5 }) end,
  randintLike = function(g) return torch.randintLike(g, torch.IntTensor(5), 10) end,
  randperm = function(g) return torch.randperm(g, 7) end,
  randpermRes = function(g) return torch.randperm(torch.LongTensor(), g, 7) end,
  multinomial = function(g) return torch.multinomial(g, torch.Tensor({ 1, 2, 3 }), 2) end,
  multinomialRes = function(g) return torch.multinomial(torch.LongTensor(), g, torch.Tensor({ 1, 2, 3 }), 4, true) end,
  multinomialMethod = function(g) return torch.Tensor({ 1, 2, 3 }):multinomial(g, 4, true) end,
  normalTensors = function(g) return torch.normal(g, torch.zeros(3), torch.ones(2, 1)) end,
  normalSize = function(g) return torch.normal(g, 0, 1, { 3 }) end,
  normalFill = function(g) return torch.normal(g, torch.Tensor(3), 2, 3) end,
  bernoulliProbs = function(g) return torch.bernoulli(g, torch.Tensor(9):fill(0.5)) end,
  poisson = function(g) return torch.poisson(g, torch.Tensor({ 1, 4, 30 })) end,
  binomial = function(g) return torch.binomial(g, torch.Tensor({ 5, 50 }), torch.Tensor({ 0.5, 0.3 })) end,
  uniformFill = function(g) return torch.Tensor(3):uniform(g, -1, 1) end,
  normalMethod = function(g) return torch.Tensor(3):normal(g, 1, 2) end,
  exponential = function(g) return torch.Tensor(3):exponential(g, 2) end,
  cauchy = function(g) return torch.Tensor(3):cauchy(g, 0, 1) end,
  logNormal = function(g) return torch.Tensor(3):logNormal(g, 1, 2) end,
  geometric = function(g) return torch.LongTensor(3):geometric(g, 0.4) end,
  bernoulliFill = function(g) return torch.ByteTensor(9):bernoulli(g, 0.5) end,
  bernoulliFillTensor = function(g) return torch.Tensor(9):bernoulli(g, torch.Tensor(9):fill(0.5)) end,
  random = function(g) return torch.IntTensor(3):random(g, -5, 5) end,
  scalars = function(g)
    return torch.Tensor({ torch.uniform(g), torch.normal(g), torch.exponential(g), torch.cauchy(g), torch.logNormal(g),
                          torch.geometric(g), torch.bernoulli(g), torch.random(g, 1, 6) })
  end,
}

function tests.generatorArgumentEverywhere()
  for name, f in pairs(samplers) do
    local g = torch.Generator():manualSeed(31)
    torch.manualSeed(1)
    local a = f(g)
    local after = torch.rand(2)
    g:manualSeed(31)
    torch.manualSeed(2)
    tester:assertTensorEq(f(g), a, 0, name .. ': the generator decides the values')
    torch.manualSeed(1)
    tester:assertTensorEq(torch.rand(2), after, 0, name .. ': the default generator is untouched')
  end
end

function tests.generatorsAreIndependent()
  local g1, g2 = torch.Generator():manualSeed(3), torch.Generator():manualSeed(3)
  local a = torch.rand(g1, 5)
  torch.rand(g2, 100)
  torch.rand(100)
  tester:assertTensorEq(torch.rand(g2:manualSeed(3), 5), a, 0)
  -- a clone continues as the original would, independently
  local c = g1:clone()
  tester:assertTensorEq(torch.rand(c, 4), torch.rand(g1, 4), 0)
  torch.rand(c, 10)
  g2:setRNGState(g1:clone():getRNGState())
  tester:assertTensorEq(torch.rand(g1, 3), torch.rand(g2, 3), 0)
  -- different seeds give uncorrelated streams
  local x, y = torch.DoubleTensor(N):normal(g1:manualSeed(1)), torch.DoubleTensor(N):normal(g2:manualSeed(2))
  local r = x:dot(y) / N
  tester:assertle(math.abs(r), 5 / math.sqrt(N), 'correlation of two generators')
end

-- PyTorch's Generator methods: manual_seed, seed, initial_seed, get_state, set_state.
function tests.generatorPyTorchMethods()
  local g = torch.Generator()
  tester:asserteq(g:manualSeed(12), g)
  tester:asserteq(g:initialSeed(), 12)
  local state = g:getState()
  tester:asserteq(torch.type(state), 'torch.ByteTensor')
  local a = torch.rand(g, 3)
  tester:asserteq(g:setState(state), g)
  tester:assertTensorEq(torch.rand(g, 3), a, 0)
  local s = g:seed()
  tester:asserteq(g:initialSeed(), s)
  -- a dot for the colon passed the seed as self: g.manualSeed(3) seeded the default generator,
  -- g.setRNGState(state) replaced the default generator's state
  torch.manualSeed(99)
  err('[manualSeed] expected a torch.Generator as self (g:manualSeed(...)), got number', g.manualSeed, 3)
  err('[setRNGState] expected a torch.Generator as self', g.setRNGState, torch.getRNGState())
  err('[seed] expected a torch.Generator as self', g.seed)
  tester:asserteq(torch.initialSeed(), 99, 'the default generator untouched')
end

function tests.generatorSerialization()
  local g = torch.Generator():manualSeed(123)
  torch.uniform(g)
  local h = torch.deserialize(torch.serialize(g))
  tester:asserteq(torch.type(h), 'torch.Generator')
  tester:assertTensorEq(torch.rand(h, 5), torch.rand(g, 5), 0)
end

function tests.stateErrors()
  err('[setRNGState] expected a torch.ByteTensor', torch.setRNGState, 42)
  -- a generator without a state: the message says what is missing (it said 'got nil')
  err('[setRNGState] expected a torch.ByteTensor state after the generator', torch.setRNGState, torch.Generator())
  err('[setRNGState] expected a torch.ByteTensor state after the generator', function() torch.Generator():setState() end)
  -- seed, initialSeed and getRNGState take only a generator: torch.seed(42) drew an unrepeatable
  -- seed from /dev/urandom (meaning torch.manualSeed(42)) and getRNGState(5) gave the default state
  err('[seed] takes only an optional torch.Generator, got number (torch.manualSeed(n) seeds with n)', torch.seed, 42)
  err('[initialSeed] takes only an optional torch.Generator, got string', torch.initialSeed, 'x')
  err('[getRNGState] takes only an optional torch.Generator, got number', torch.getRNGState, 5)
  err('[initialSeed] takes only an optional torch.Generator, got number', torch.initialSeed, torch.Generator(), 3)
  torch.manualSeed(4)
  tester:asserteq(torch.initialSeed(nil), 4, 'nil stands for the default generator')
  err("[Generator] only CPU generators", torch.Generator, 'cuda')  -- was a CPU generator, silently
end

-- A fill replaces a tensor's values, so no gradient flows through the old ones (PyTorch 1.13:
-- y = x * 2; y.uniform_(); (y + x).sum().backward() gives x.grad = [1, 1, 1]; fill_ does so here).
-- The random fills (core/ops/random.cpp, random_sample.cpp) kept y's MulBackward history (x.grad
-- was [3, 3, 3]) and a fill of a view of such a tensor was not refused: Note [Fills drop history].

function tests.fillsDropAutogradHistory()
  local fills = {
    uniform = function(y) y:uniform() end,
    normal = function(y) y:normal(0, 1) end,
    exponential = function(y) y:exponential(1) end,
    geometric = function(y) y:geometric(0.5) end,
    bernoulli = function(y) y:bernoulli(0.5) end,
    bernoulliProbs = function(y) y:bernoulli(torch.DoubleTensor(3):fill(0.5)) end,
    random = function(y) y:random(1, 6) end,
    rand = function(y) torch.rand(y, 3) end,
    randperm = function(y) torch.randperm(y, 3) end,
  }
  for name, fill in pairs(fills) do
    local x = torch.DoubleTensor({ 1, 2, 3 }):requiresGrad()
    local y = torch.mul(x, 2)
    fill(y)
    torch.sum(torch.add(y, x)):backward()
    tester:eq(x.grad:totable(), { 1, 1, 1 }, name .. ': no gradient through the replaced values')
    -- a view of a tensor with history: the fill runs, a backward through it is refused
    -- (Note [In-place ops on views of tensors with history])
    local v = torch.mul(x:detach():requiresGrad(), 2)
    fill(v:narrow(1, 1, 3))
    err('modified in place through a view', function() torch.sum(v):backward() end)
  end
end

-- ---- Torch7's fills: every type, every distribution ---------------------------------------------

function tests.fillMoments()
  torch.manualSeed(101)
  for _, ty in ipairs({ 'torch.DoubleTensor', 'torch.FloatTensor' }) do
    local x = torch.Tensor():type(ty):resize(N)
    moments(x:uniform(-1, 3), 1, 16 / 12, 16 ^ 2 / 80, ty .. ' uniform(-1, 3)')
    tester:assertge(x:min(), -1)
    tester:assertlt(x:max(), 3)
    moments(x:normal(2, 3), 2, 9, 3 * 81, ty .. ' normal(2, 3)')
    moments(x:exponential(2), 0.5, 0.25, 9 / 16, ty .. ' exponential(2)')
    -- Torch7's logNormal(mean, std) takes the log-normal's own moments: log x ~ N(mu, sigma^2)
    local m, s = 2, 0.5
    local sigma2 = math.log(s * s / (m * m) + 1)
    local mu = math.log(m) - sigma2 / 2
    moments(x:logNormal(m, s):log(), mu, sigma2, 3 * sigma2 ^ 2, ty .. ' log of logNormal(2, 0.5)')
    -- Cauchy(1, 2): quartiles at 1 -+ 2
    x:cauchy(1, 2)
    for _, q in ipairs({ { -1, 0.25 }, { 1, 0.5 }, { 3, 0.75 } }) do
      local frac = x:lt(q[1]):sum() / N
      tester:assertle(math.abs(frac - q[2]), 5 * math.sqrt(q[2] * (1 - q[2]) / N), ty .. ' cauchy quantile')
    end
  end
end

-- A fill of a strided view gives the values of a contiguous fill of the same shape and leaves the
-- rest of the storage alone (Note [Random streams]); an expanded target is refused.
function tests.stridedFills()
  local probs = torch.DoubleTensor(3, 4):fill(0.5)
  for name, f in pairs({ uniform = function(x) return x:uniform() end, normal = function(x) return x:normal() end,
                         random = function(x) return x:random(1, 100) end, geometric = function(x) return x:geometric(0.5) end,
                         bernoulli = function(x) return x:bernoulli(probs) end }) do
    torch.manualSeed(1)
    local a = f(torch.DoubleTensor(3, 4))
    torch.manualSeed(1)
    tester:assertTensorEq(f(torch.DoubleTensor(4, 3):t()), a, 0, name .. ' transposed')
    local big = torch.DoubleTensor(3, 8):fill(-7)
    torch.manualSeed(1)
    tester:assertTensorEq(f(big:narrow(2, 3, 4)), a, 0, name .. ' narrowed')
    tester:asserteq(big:narrow(2, 1, 2):eq(-7):sum(), 6, name .. ': the rest untouched')
    err('[' .. name .. '] cannot write into a tensor whose elements overlap', f, torch.DoubleTensor(3, 1):expand(3, 4))
  end
end

-- Torch7's geometric: P(i) = (1 - p) p^(i - 1), i >= 1.
function tests.geometricAndBernoulliEveryType()
  torch.manualSeed(102)
  local p = 0.3
  local pmf = {}
  for i = 1, 8 do pmf[i] = (1 - p) * p ^ (i - 1) end
  for _, ty in ipairs({ 'torch.DoubleTensor', 'torch.FloatTensor', 'torch.HalfTensor', 'torch.LongTensor',
                        'torch.IntTensor', 'torch.ByteTensor' }) do
    local x = torch.Tensor():type(ty):resize(N)
    chisquare(x:geometric(p), 1, pmf, ty .. ' geometric(0.3)')
    chisquare(x:bernoulli(0.2), 0, { 0.8, 0.2 }, ty .. ' bernoulli(0.2)')
    local probs = torch.Tensor({ 0, 0.1, 0.5, 0.9, 1 }):view(1, 5):expand(N / 5, 5)
    local b = torch.Tensor():type(ty):resize(N / 5, 5):bernoulli(probs):double()
    for j, q in ipairs({ 0, 0.1, 0.5, 0.9, 1 }) do
      local frac = b:select(2, j):mean()
      tester:assertle(math.abs(frac - q), 5 * math.sqrt(q * (1 - q) * 5 / N) + 1e-12, ty .. ' bernoulli(probs) ' .. q)
    end
  end
  chisquare(torch.BoolTensor(N):bernoulli(0.7), 0, { 0.3, 0.7 }, 'torch.BoolTensor bernoulli(0.7)')
end

-- random(a, b) is inclusive (Torch7); random(b) is [1, b]; random() is the type's default range.
function tests.randomEveryType()
  torch.manualSeed(103)
  local six = { 1 / 6, 1 / 6, 1 / 6, 1 / 6, 1 / 6, 1 / 6 }
  for _, ty in ipairs({ 'torch.DoubleTensor', 'torch.FloatTensor', 'torch.HalfTensor', 'torch.BFloat16Tensor',
                        'torch.LongTensor', 'torch.IntTensor', 'torch.ByteTensor' }) do
    local x = torch.Tensor():type(ty):resize(N)
    chisquare(x:random(6), 1, six, ty .. ' random(6)')
    chisquare(x:random(250, 255), 250, six, ty .. ' random(250, 255)')
    chisquare(x:random(7, 7), 7, { 1 }, ty .. ' random(7, 7)')
    x:random()
    tester:assertge(x:double():min(), 0, ty .. ' random() is non-negative')
  end
  local b = torch.BoolTensor(N)
  chisquare(b:random(), 0, { 0.5, 0.5 }, 'torch.BoolTensor random()')
  chisquare(b:random(0, 1), 0, { 0.5, 0.5 }, 'torch.BoolTensor random(0, 1)')
  chisquare(torch.LongTensor(N):random(-3, 2), -3, six, 'random(-3, 2)')
  -- the scalar draws
  local d = torch.DoubleTensor(6000)
  for i = 1, 6000 do d[i] = torch.random(6) end
  chisquare(d, 1, six, 'torch.random(6)')
  err('[random] expects a <= b', function() torch.LongTensor(2):random(0) end)
  err('[random] expects a <= b', function() torch.LongTensor(2):random(3, 2) end)
  err('[random] expects a <= b', torch.random, 3, 2)
  err('does not fit a torch.ByteTensor', function() torch.ByteTensor(2):random(-1, 3) end)
  err('does not fit a torch.BoolTensor', function() torch.BoolTensor(2):random(2) end)
  err('[random] b must be an integer', function() torch.LongTensor(2):random(0 / 0) end)
end

-- ---- PyTorch's functions ----------------------------------------------------------------------

function tests.randAndRandn()
  torch.manualSeed(104)
  local u = torch.rand(N)
  tester:asserteq(torch.type(u), torch.getdefaulttensortype())
  moments(u, 0.5, 1 / 12, 1 / 80, 'rand')
  moments(torch.randn(N / 100, 100), 0, 1, 3, 'randn')
  moments(torch.randnLike(torch.DoubleTensor(N)), 0, 1, 3, 'randnLike')
  tester:eq(torch.rand(2, 0):size():totable(), { 2, 0 })
  tester:eq(torch.randLike(torch.DoubleTensor(2, 3)):type(), 'torch.DoubleTensor')
end

-- randint's high is excluded (PyTorch); it is uniform on [low, high).
function tests.randint()
  torch.manualSeed(105)
  local r = torch.randint(-2, 4, { N })
  tester:asserteq(r:type(), 'torch.LongTensor')
  chisquare(r, -2, { 1 / 6, 1 / 6, 1 / 6, 1 / 6, 1 / 6, 1 / 6 }, 'randint(-2, 4)')
  chisquare(torch.randint(3, { N }, 'torch.ByteTensor'), 0, { 1 / 3, 1 / 3, 1 / 3 }, 'randint(3) bytes')
  chisquare(torch.randint(0, 256, { N }, 'torch.ByteTensor'):double():div(64):floor(), 0, { 0.25, 0.25, 0.25, 0.25 }, 'randint(0, 256) bytes')
  chisquare(torch.randintLike(torch.IntTensor(N), 5, 7), 5, { 0.5, 0.5 }, 'randintLike(5, 7)')
  tester:eq(torch.randint(5, { 2, 0 }):size():totable(), { 2, 0 })
  tester:eq(torch.randint(0, 1, { 3 }):totable(), { 0, 0, 0 })
  err('[randint] expected low < high', torch.randint, 3, 3, { 2 })
  err('[randint] range [0, 257) does not fit a torch.ByteTensor', torch.randint, 0, 257, { 2 }, 'torch.ByteTensor')
  err('[randint] expected sizes', torch.randint, 0, 10)
end

function tests.randperm()
  torch.manualSeed(106)
  tester:eq(torch.randperm(0):size():totable(), { 0 })
  tester:eq(torch.randperm(1):totable(), { 1 })
  local big = torch.randperm(100000)
  tester:eq(big:sort():totable()[100000], 100000)
  tester:assertTensorEq(big:sort(), torch.range(1, 100000):long(), 0, 'a permutation of 1..n')
  -- every element lands in every position with probability 1/4 (Fisher-Yates, not a biased shuffle)
  local pos = torch.LongTensor(2000, 4)
  for i = 1, 2000 do pos[i]:copy(torch.randperm(4)) end
  for j = 1, 4 do chisquare(pos:select(2, j), 1, { 0.25, 0.25, 0.25, 0.25 }, 'randperm(4) position ' .. j) end
  -- permutations of 3: the 6 orders equally likely
  local code = torch.LongTensor(6000)
  for i = 1, 6000 do
    local p = torch.randperm(3)
    code[i] = (p[1] - 1) * 3 + p[2]
  end
  local c = code:double()
  for _, v in ipairs({ 2, 3, 4, 6, 7, 8 }) do
    tester:assertle(math.abs(c:eq(v):sum() / 6000 - 1 / 6), 5 * math.sqrt(5 / 36 / 6000), 'randperm(3) order ' .. v)
  end
  err('[randperm] n must be non-negative', torch.randperm, -1)
end

function tests.multinomialDistribution()
  torch.manualSeed(107)
  local w = torch.Tensor({ 1, 0, 3, 6 })
  chisquare(torch.multinomial(w, N, true), 1, { 0.1, 0, 0.3, 0.6 }, 'with replacement')
  -- more samples than categories, with replacement; 2-D weights, one row each (unnormalized)
  local rows = torch.DoubleTensor({ { 1, 1, 2 }, { 0, 5, 5 } })
  local s = torch.multinomial(rows, N, true)
  tester:eq(s:size():totable(), { 2, N })
  chisquare(s[1], 1, { 0.25, 0.25, 0.5 }, 'row 1')
  chisquare(s[2], 1, { 0, 0.5, 0.5 }, 'row 2')
  -- without replacement: P(first = i, second = j) = p_i p_j / (1 - p_i)
  local p = { 0.1, 0.2, 0.3, 0.4 }
  local two = torch.multinomial(torch.Tensor(p):view(1, 4):expand(N, 4), 2)
  tester:eq(two:size():totable(), { N, 2 })
  tester:asserteq(two:select(2, 1):ne(two:select(2, 2)):sum(), N, 'distinct without replacement')
  local pair, probs = two:select(2, 1):double():mul(4):add(two:select(2, 2):double()), {}
  for i = 1, 4 do for j = 1, 4 do probs[#probs + 1] = i == j and 0 or p[i] * p[j] / (1 - p[i]) end end
  chisquare(pair, 5, probs, 'ordered pairs without replacement')
  -- every category drawn when n equals the number of non-zero weights
  local all = torch.multinomial(torch.Tensor({ 0, 2, 1, 0, 5 }), 3):sort()
  tester:eq(all:totable(), { 2, 3, 5 })
  tester:eq(torch.multinomial(torch.zeros(0, 3), 2):size():totable(), { 0, 2 })
  err('[multinomial] cannot draw 3 samples without replacement from row 1, which has only 2 non-zero weights',
      torch.multinomial, torch.Tensor({ 1, 0, 1 }), 3)
  err('[multinomial] cannot draw 4 samples without replacement from 3 categories', torch.multinomial, torch.Tensor({ 1, 1, 1 }), 4)
  err('[multinomial] the weights of row 2 sum to zero', torch.multinomial, torch.Tensor({ { 1, 1 }, { 0, 0 } }), 1, true)
  err('[multinomial] weights must be finite and non-negative, got inf', torch.multinomial, torch.Tensor({ 1, math.huge }), 1)
end

function tests.normalWithTensors()
  torch.manualSeed(108)
  local mean = torch.Tensor({ -1, 0, 10 })
  local std = torch.Tensor(N / 4, 1):fill(2)
  local x = torch.normal(mean, std)
  tester:eq(x:size():totable(), { N / 4, 3 })
  for j = 1, 3 do moments(x:select(2, j), mean[j], 4, 3 * 16, 'normal(mean, std) column ' .. j) end
  moments(torch.normal(3, torch.Tensor(N):fill(0.5)), 3, 0.25, 3 / 16, 'normal(3, stdT)')
  moments(torch.normal(torch.DoubleTensor(N):fill(-2)), -2, 1, 3, 'normal(meanT)')
  local y = torch.normal(1, 2, { N / 4, 4 })
  tester:eq(y:size():totable(), { N / 4, 4 })
  moments(y, 1, 4, 48, 'normal(1, 2, size)')
  tester:eq(torch.normal(0, 1, {}):dim(), 0)
  -- a size table with other keys (an options table) is not a size: it gave a 0-dim tensor
  err('[normal] size must be a list of non-negative integers', torch.normal, 0, 1, { dtype = 'torch.DoubleTensor' })
  err('[normal] size must be a list of non-negative integers', torch.normal, 0, 1, { 2, dtype = 'torch.DoubleTensor' })
end

function tests.bernoulliOfProbabilities()
  torch.manualSeed(109)
  local probs = torch.DoubleTensor({ 0, 0.25, 0.75, 1 }):view(1, 4):expand(N / 4, 4)
  local b = torch.bernoulli(probs)
  tester:asserteq(b:type(), 'torch.DoubleTensor')
  for j, q in ipairs({ 0, 0.25, 0.75, 1 }) do
    local frac = b:select(2, j):mean()
    tester:assertle(math.abs(frac - q), 5 * math.sqrt(q * (1 - q) * 4 / N) + 1e-12, 'bernoulli(probs) ' .. q)
  end
  tester:asserteq(probs:max(), 1, 'probs untouched')
end

-- PyTorch's forms took a CUDA f32 tensor ('torch.CudaTensor', no 'Float' in the name) for not
-- floating: torch.normal(cudaMeans, 1) and torch.bernoulli(cudaProbs) were refused. Needs a GPU.
function tests.pytorchFormsOnCudaFloat()
  if not torch.cuda.isAvailable() then return end
  torch.manualSeed(112)
  local m = torch.CudaTensor(N):fill(5)
  local x = torch.normal(m, 2)
  tester:asserteq(torch.type(x), 'torch.CudaTensor')
  moments(x:double(), 5, 4, 48, 'normal(cuda means, 2)')
  local b = torch.bernoulli(torch.CudaTensor(N):fill(0.25))
  tester:asserteq(torch.type(b), 'torch.CudaTensor')
  moments(b:double(), 0.25, 0.1875, 0.1875 * (1 - 3 * 0.1875), 'bernoulli(cuda probs)')
  err('[normal] mean must be a floating tensor, got torch.CudaLongTensor', torch.normal, torch.CudaLongTensor(2):zero(), 1)
end

-- Poisson: mean = variance = rate; mu4 = rate (1 + 3 rate). Both of the sampler's branches
-- (product of uniforms below 10, PTRS above).
function tests.poissonMoments()
  torch.manualSeed(110)
  for _, rate in ipairs({ 0.5, 3, 9.9, 10, 40, 1000 }) do
    local x = torch.poisson(torch.DoubleTensor(N):fill(rate))
    moments(x, rate, rate, rate * (1 + 3 * rate), 'poisson(' .. rate .. ')')
    tester:asserteq(x:ne(x:clone():floor()):sum(), 0, 'whole numbers')
  end
  local pmf, e = {}, math.exp(-2.5)
  for k = 0, 9 do pmf[k + 1] = e * 2.5 ^ k / fact(k) end
  chisquare(torch.poisson(torch.DoubleTensor(N):fill(2.5)), 0, pmf, 'poisson(2.5) pmf')
  tester:asserteq(torch.poisson(torch.zeros(5)):sum(), 0)
  err('[poisson] rates must be finite and not negative', torch.poisson, torch.Tensor({ 1, -1 }))
end

-- Binomial: mean n p, variance n p q, mu4 - var^2 = n p q (1 - 6 p q) + 2 (n p q)^2; the inversion
-- branch (n p < 10), BTRS, and p > 1/2 through the complement.
function tests.binomialMoments()
  torch.manualSeed(111)
  for _, c in ipairs({ { 5, 0.3 }, { 20, 0.45 }, { 40, 0.7 }, { 1000, 0.02 }, { 1000, 0.5 }, { 200, 0.97 } }) do
    local n, p = c[1], c[2]
    local v = n * p * (1 - p)
    local x = torch.binomial(torch.DoubleTensor(N):fill(n), torch.DoubleTensor(N):fill(p))
    moments(x, n * p, v, v * (1 - 6 * p * (1 - p)) + 3 * v * v, ('binomial(%d, %g)'):format(n, p))
    tester:assertle(x:max(), n)
    tester:assertge(x:min(), 0)
  end
  local pmf = {}
  for k = 0, 6 do pmf[k + 1] = fact(6) / (fact(k) * fact(6 - k)) * 0.4 ^ k * 0.6 ^ (6 - k) end
  chisquare(torch.binomial(torch.DoubleTensor(N):fill(6), torch.DoubleTensor(1):fill(0.4)), 0, pmf, 'binomial(6, 0.4) pmf')
  -- broadcasting, as PyTorch 1.13: count (2) and prob (2, 1) give (2, 2)
  tester:eq(torch.binomial(torch.Tensor({ 10, 20 }), torch.Tensor({ { 0 }, { 1 } })):totable(), { { 0, 0 }, { 10, 20 } })
  err('[binomial] count must hold non-negative integers', torch.binomial, torch.Tensor({ 2.5 }), torch.Tensor({ 0.5 }))
end

tester:add(tests):run()
