-- torch random numbers: seeds and reproducibility, RNG state replay, torch.Generator objects,
-- every call form of the scalar draws and in-place fills, multinomial, randperm, and errors.
local tester = torch.Tester()
local tests = torch.TestSuite()

-- min, max and mean of a tensor's elements (Lua-side, independent of the reduction ops).
local function stats(t)
  local lo, hi, sum, n = math.huge, -math.huge, 0, 0
  t:apply(function(v)
    v = tonumber(v) or (v and 1 or 0)
    lo, hi, sum, n = math.min(lo, v), math.max(hi, v), sum + v, n + 1
  end)
  return lo, hi, sum / n
end

function tests.manualSeedReproducesTorch7()
  torch.manualSeed(123)  -- the values of Torch7's doc/random.md
  tester:assertalmosteq(torch.uniform(), 0.69646918727085, 1e-13)
  tester:assertalmosteq(torch.uniform(), 0.71295532141812, 1e-13)
  tester:assertalmosteq(torch.uniform(), 0.28613933874294, 1e-13)
  torch.manualSeed(torch.initialSeed())
  tester:assertalmosteq(torch.uniform(), 0.69646918727085, 1e-13)
  -- DoubleTensor fills are the scalar stream
  torch.manualSeed(123)
  local d = torch.DoubleTensor(3):uniform()
  tester:assertalmosteq(d[2], 0.71295532141812, 1e-13)
  for _, make in ipairs({ function() return torch.rand(4, 5) end, function() return torch.randn(7) end,
                          function() return torch.Tensor(6):random(1, 100) end,
                          function() return torch.randperm(9) end }) do
    torch.manualSeed(2024)
    local a = make()
    torch.manualSeed(2024)
    tester:assertTensorEq(make(), a)
  end
end

function tests.seeds()
  torch.manualSeed(42)
  tester:asserteq(torch.initialSeed(), 42)
  local s = torch.seed()
  tester:asserteq(type(s), 'number')
  tester:asserteq(torch.initialSeed(), s)
  local a = torch.uniform()
  torch.manualSeed(s)
  tester:asserteq(torch.uniform(), a)
  torch.manualSeed(-1)
  tester:asserteq(torch.initialSeed(), -1)
  torch.manualSeed(2 ^ 40)
  tester:asserteq(torch.initialSeed(), 2 ^ 40)
  local wide = torch.uniform()
  torch.manualSeed(0)
  tester:assertne(torch.uniform(), wide)
  tester:assertErrorPattern(function() torch.manualSeed(1.5) end, '%[manualSeed%] seed must be an integer')
  tester:assertErrorPattern(function() torch.manualSeed('x') end, '%[manualSeed%] expected a seed')
end

function tests.rngStateReplay()
  torch.manualSeed(7)
  torch.normal()  -- leaves the second Box-Muller value cached (Torch7's testBoxMullerState)
  local state = torch.getRNGState()
  tester:asserteq(state:type(), 'torch.ByteTensor')
  local n1, r1, u1 = torch.normal(), torch.randn(5), torch.uniform()
  tester:asserteq(torch.setRNGState(state), state)
  tester:asserteq(torch.normal(), n1)
  tester:assertTensorEq(torch.randn(5), r1)
  tester:asserteq(torch.uniform(), u1)
  -- a state also restores into another generator
  local g = torch.Generator()
  torch.setRNGState(g, state)
  tester:asserteq(torch.normal(g), n1)
end

function tests.setRNGStateErrors()
  local state = torch.getRNGState()
  tester:assertErrorPattern(function() torch.setRNGState(42) end, '%[setRNGState%] expected a torch.ByteTensor')
  tester:assertErrorPattern(function() torch.setRNGState(state:float()) end, 'got a torch.FloatTensor')
  tester:assertErrorPattern(function() torch.setRNGState(torch.ByteTensor(10):zero()) end, 'must have %d+ bytes')
  local corrupt = state:clone()
  corrupt[200] = (corrupt[200] + 1) % 256
  tester:assertErrorPattern(function() torch.setRNGState(corrupt) end, 'checksum')
  local garbage = torch.ByteTensor(state:nElement()):fill(7)
  tester:assertErrorPattern(function() torch.setRNGState(garbage) end, 'invalid RNG state')
  -- the generator still works after the failed attempts
  tester:assertNoError(function() torch.setRNGState(state) torch.uniform() end)
end

function tests.generatorObjects()
  local g = torch.Generator()
  tester:asserteq(torch.type(g), 'torch.Generator')
  torch.manualSeed(g, 5)
  torch.manualSeed(5)
  local from_g = torch.Tensor(10):uniform(g)
  local global = torch.Tensor(10):uniform()
  tester:assertTensorEq(from_g, global)  -- same seed, same stream
  -- drawing from g does not move the default generator, and the other way round
  local saved = torch.getRNGState()
  for _ = 1, 100 do torch.normal(g) end
  torch.randn(g, 50)
  local after = torch.uniform()
  torch.setRNGState(saved)
  tester:asserteq(torch.uniform(), after)
  torch.manualSeed(g, 9)
  local x = torch.uniform(g)
  torch.manualSeed(1)
  torch.manualSeed(g, 9)
  tester:asserteq(torch.uniform(g), x)
  tester:asserteq(torch.initialSeed(g), 9)
  tester:asserteq(g:initialSeed(), 9)
  -- clone continues the same stream independently
  local c = g:clone()
  tester:asserteq(torch.random(c), torch.random(g))
  g:manualSeed(3)
  tester:asserteq(g:initialSeed(), 3)
  -- Torch7's serialization protocol (write/read through a file object)
  local file = { objs = {} }
  function file:writeObject(o) self.objs[#self.objs + 1] = o end
  function file:readObject() return table.remove(self.objs, 1) end
  g:write(file)
  local restored = torch.factory('torch.Generator')()
  restored:read(file)
  tester:asserteq(torch.uniform(restored), torch.uniform(g))
end

function tests.scalarDrawForms()
  local g = torch.Generator()
  for _, name in ipairs({ 'uniform', 'normal', 'exponential', 'cauchy', 'logNormal', 'geometric', 'bernoulli', 'random' }) do
    tester:asserteq(type(torch[name]()), 'number', name)
    tester:asserteq(type(torch[name](g)), 'number', name)
  end
  for _ = 1, 200 do
    local u = torch.uniform(2, 3)
    tester:assert(u >= 2 and u < 3, 'uniform range')
    local r = torch.random(g, 5)
    tester:assert(r >= 1 and r <= 5 and r == math.floor(r), 'random(b)')
    r = torch.random(-3, -1)
    tester:assert(r >= -3 and r <= -1, 'random(a, b)')
    r = torch.random()
    tester:assert(r >= 0 and r < 2 ^ 32, 'random()')
    tester:assert(torch.exponential(g, 2) >= 0, 'exponential')
    tester:assert(torch.logNormal(2, 0.5) > 0, 'logNormal')
    local k = torch.geometric(0.5)
    tester:assert(k >= 1 and k == math.floor(k), 'geometric')
    local b = torch.bernoulli(g, 0.5)
    tester:assert(b == 0 or b == 1, 'bernoulli')
  end
  tester:asserteq(torch.bernoulli(0), 0)
  tester:asserteq(torch.bernoulli(1), 1)
  tester:asserteq(torch.normal(3, 0), 3)
end

function tests.fillForms()
  local g = torch.Generator()
  local x = torch.Tensor(1000)
  tester:asserteq(x:uniform(), x)
  tester:asserteq(x:uniform(g, -2, -1), x)
  local lo, hi = stats(x)
  tester:assert(lo >= -2 and hi < -1, 'uniform(g, a, b) range')
  tester:asserteq(torch.uniform(x, 5, 6), x)  -- torch.f(x, ...) fills x, like Torch7's cwrap
  lo, hi = stats(x)
  tester:assert(lo >= 5 and hi < 6, 'torch.uniform(x, a, b)')
  tester:asserteq(x:uniform_(0, 1), x)
  for _, call in ipairs({ function() return x:normal(2, 3) end, function() return x:normal(g) end,
                          function() return x:exponential(0.5) end, function() return x:cauchy(g, 1, 2) end,
                          function() return x:logNormal(1, 2) end, function() return x:geometric(0.3) end,
                          function() return x:bernoulli() end, function() return x:random(g) end,
                          function() return x:normal_() end }) do
    tester:asserteq(call(), x)
  end
  x:geometric(0.3)
  lo = stats(x)
  tester:assert(lo >= 1, 'geometric values start at 1')
  -- random on every integer type, bounds inclusive and reached
  for _, ctor in ipairs({ torch.ByteTensor, torch.IntTensor, torch.LongTensor, torch.DoubleTensor }) do
    local r = ctor(2000):random(3, 6)
    local a, b = stats(r)
    tester:asserteq(a, 3)
    tester:asserteq(b, 6)
    a, b = stats(ctor(2000):random(g, 4))
    tester:asserteq(a, 1)
    tester:asserteq(b, 4)
  end
  local _, bmax = stats(torch.ByteTensor(5000):random())
  tester:assert(bmax <= 255 and bmax > 200, 'ByteTensor:random() covers [0, 255]')
  -- bernoulli with a probability tensor, into any type
  local p = torch.Tensor({ 0, 1, 0, 1 })
  tester:eq(torch.ByteTensor(4):bernoulli(p):totable(), { 0, 1, 0, 1 })
  tester:eq(torch.BoolTensor(4):bernoulli(g, p):totable(), { false, true, false, true })
  tester:eq(torch.Tensor(2, 2):bernoulli(torch.Tensor({ 1, 0 })):totable(), { { 1, 0 }, { 1, 0 } })  -- broadcast
  -- non-contiguous and half tensors
  local t = torch.Tensor(30, 20):t()
  t:uniform(1, 2)
  lo, hi = stats(t)
  tester:assert(lo >= 1 and hi < 2, 'transposed fill')
  local h = torch.HalfTensor(100):normal()
  tester:asserteq(h:type(), 'torch.HalfTensor')
end

function tests.distributionMoments()
  torch.manualSeed(11)
  local n = 200000
  local _, _, m = stats(torch.Tensor(n):uniform(-1, 3))
  tester:assertalmosteq(m, 1, 0.02)
  _, _, m = stats(torch.Tensor(n):normal(2, 1))
  tester:assertalmosteq(m, 2, 0.02)
  local sq = 0
  torch.DoubleTensor(n):normal(0, 3):apply(function(v) sq = sq + v * v end)
  tester:assertalmosteq(math.sqrt(sq / n), 3, 0.03)
  _, _, m = stats(torch.Tensor(n):exponential(4))
  tester:assertalmosteq(m, 0.25, 0.01)
  _, _, m = stats(torch.DoubleTensor(n):logNormal(2, 0.5))
  tester:assertalmosteq(m, 2, 0.02)
  _, _, m = stats(torch.Tensor(n):geometric(0.25))
  tester:assertalmosteq(m, 1 / 0.75, 0.02)
  _, _, m = stats(torch.ByteTensor(n):bernoulli(0.3))
  tester:assertalmosteq(m, 0.3, 0.01)
end

function tests.multinomial()
  local g = torch.Generator()
  local w = torch.Tensor({ 1, 0, 3, 6 })
  local s = torch.multinomial(w, 20000, true)
  tester:asserteq(s:type(), 'torch.LongTensor')
  tester:eq(s:size():totable(), { 20000 })
  local counts = { 0, 0, 0, 0 }
  s:apply(function(i) counts[i] = counts[i] + 1 end)
  tester:asserteq(counts[2], 0)
  tester:assertalmosteq(counts[4] / 20000, 0.6, 0.02)
  tester:assertalmosteq(counts[1] / 20000, 0.1, 0.015)
  -- without replacement (the default): distinct indices, 1-based
  local d = torch.multinomial(g, w, 3)
  local seen = {}
  d:apply(function(i) tester:assert(not seen[i] and i ~= 2 and i >= 1 and i <= 4) seen[i] = true end)
  -- 2D: one row of samples per row of weights; res and method forms
  local rows = torch.DoubleTensor({ { 0, 1 }, { 1, 0 } })
  tester:eq(torch.multinomial(rows, 3, true):totable(), { { 2, 2, 2 }, { 1, 1, 1 } })
  local res = torch.LongTensor()
  tester:asserteq(torch.multinomial(res, rows, 1), res)
  tester:eq(res:totable(), { { 2 }, { 1 } })
  tester:eq(rows:multinomial(1):totable(), { { 2 }, { 1 } })
  tester:eq(res:multinomial(g, rows, 2, true):totable(), { { 2, 2 }, { 1, 1 } })
  torch.manualSeed(g, 3)
  local a = torch.multinomial(g, w, 10, true)
  torch.manualSeed(g, 3)
  tester:assertTensorEq(torch.multinomial(g, w, 10, true), a)
  -- errors
  tester:assertErrorPattern(function() torch.multinomial(torch.Tensor({ 1, -1 }), 1) end, '%[multinomial%] weights must be finite and non%-negative')
  tester:assertErrorPattern(function() torch.multinomial(torch.zeros(2, 3), 1) end, 'row 1 sum to zero')
  tester:assertErrorPattern(function() torch.multinomial(w, 4) end, 'only 3 non%-zero weights')
  tester:assertErrorPattern(function() torch.multinomial(w, 5) end, 'without replacement from 4 categories')
  tester:assertErrorPattern(function() torch.multinomial(w, 0) end, 'number of samples must be positive')
  tester:assertErrorPattern(function() torch.multinomial(torch.Tensor(2, 2, 2):fill(1), 1) end, '1D or 2D')
  tester:assertErrorPattern(function() torch.multinomial(torch.LongTensor({ 1, 2 }), 1) end, 'floating%-point')
  tester:assertErrorPattern(function() torch.multinomial(w) end, 'expected the number of samples')
  tester:assertErrorPattern(function() torch.multinomial(w, 1, 'yes') end, 'replacement must be a boolean')
end

function tests.randperm()
  local p = torch.randperm(100)
  tester:asserteq(p:type(), 'torch.LongTensor')
  local seen, count = {}, 0
  p:apply(function(v) if not seen[v] and v >= 1 and v <= 100 then count = count + 1 end seen[v] = true end)
  tester:asserteq(count, 100)
  local g = torch.Generator()
  torch.manualSeed(g, 1)
  local a = torch.randperm(g, 20)
  torch.manualSeed(g, 1)
  tester:assertTensorEq(torch.randperm(g, 20), a)
  local res = torch.DoubleTensor()
  tester:asserteq(torch.randperm(res, 5), res)
  tester:asserteq(res:type(), 'torch.DoubleTensor')
  tester:asserteq(res:nElement(), 5)
  tester:asserteq(torch.IntTensor():randperm(4):nElement(), 4)
  tester:asserteq(torch.randperm(0):nElement(), 0)
  tester:assertErrorPattern(function() torch.randperm(-1) end, '%[randperm%] n must be non%-negative, got %-1')
  tester:assertErrorPattern(function() torch.randperm(2.5) end, '%[randperm%] n must be an integer')
  tester:assertErrorPattern(function() torch.randperm(torch.ByteTensor(), 300) end, 'do not fit a torch.ByteTensor')
end

function tests.fillErrors()
  local x = torch.Tensor(5)
  tester:assertErrorPattern(function() x:uniform(2, 1) end, '%[uniform%] expects a <= b, got a = 2 and b = 1')
  tester:assertErrorPattern(function() x:uniform('a') end, '%[uniform%] a must be a number, got string')
  tester:assertErrorPattern(function() torch.LongTensor(3):uniform() end, 'expects a floating%-point tensor, got a torch.LongTensor')
  tester:assertErrorPattern(function() x:normal(0, -1) end, '%[normal%] standard deviation must be >= 0')
  tester:assertErrorPattern(function() torch.normal(0, -1) end, '%[normal%] standard deviation')
  tester:assertErrorPattern(function() x:exponential(0) end, '%[exponential%] lambda must be positive')
  tester:assertErrorPattern(function() x:cauchy(0, -1) end, '%[cauchy%] sigma must be positive')
  tester:assertErrorPattern(function() x:logNormal(-1, 1) end, '%[logNormal%] mean must be positive')
  tester:assertErrorPattern(function() x:geometric(1) end, '%[geometric%] probability must be in %(0, 1%)')
  tester:assertErrorPattern(function() x:bernoulli(1.5) end, '%[bernoulli%] probability must be in %[0, 1%], got 1.5')
  tester:assertErrorPattern(function() torch.bernoulli(-0.1) end, '%[bernoulli%] probability')
  tester:assertErrorPattern(function() x:bernoulli(torch.Tensor({ 0.5, 2, 0, 0, 0 })) end, 'got 2 at element 2')
  tester:assertErrorPattern(function() x:bernoulli(torch.Tensor(3):fill(0.5)) end, 'do not match')
  tester:assertErrorPattern(function() x:random(0) end, '%[random%] expects a <= b, got a = 1 and b = 0')
  tester:assertErrorPattern(function() x:random(1.5) end, '%[random%] b must be an integer')
  tester:assertErrorPattern(function() torch.ByteTensor(2):random(0, 256) end, 'does not fit a torch.ByteTensor')
  tester:assertErrorPattern(function() torch.random(5, 1) end, '%[random%] expects a <= b')
  tester:assertErrorPattern(function() x:uniform(0, 1, 2) end, 'too many arguments')
  tester:assertErrorPattern(function() torch.Tensor(1):expand(4):normal() end, '%[normal%] cannot write')
end

tester:add(tests)
tester:run()
