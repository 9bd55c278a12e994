-- PyTorch's forms of torch.normal and torch.bernoulli (lua/torch/random_pytorch.lua, Note
-- [PyTorch's sampling forms]): new tensors drawn with the given means, deviations or
-- probabilities, which stay untouched (they were overwritten by Torch7's fill); Torch7's forms
-- unchanged; moments within 5 standard errors; gradients of normal(mean, std); errors.
local tester = torch.Tester()
local tests = torch.TestSuite()
local N = 200000

local function err(pattern, f, ...)
  local ok, e = pcall(f, ...)
  tester:assert(not ok, 'expected an error matching ' .. pattern)
  if not ok then tester:assert(tostring(e):find(pattern, 1, true) ~= nil, tostring(e)) end
end
-- sample mean and standard deviation of x within 5 standard errors of m and s
local function moments(x, m, s, msg)
  x = x:double()
  local n = x:nElement()
  tester:assertle(math.abs(x:mean() - m), 5 * s / math.sqrt(n), msg .. ': mean')
  tester:assertle(math.abs(x:std() - s), 5 * s / math.sqrt(2 * n), msg .. ': std')
end

function tests.normalWithTensorParameters()
  torch.manualSeed(1)
  local mean = torch.Tensor(N):fill(5)
  local r = torch.normal(mean, 2)
  tester:assert(not rawequal(r, mean), 'a new tensor')
  tester:asserteq(mean:min(), 5, 'the means are untouched')
  tester:asserteq(mean:max(), 5, 'the means are untouched')
  moments(r, 5, 2, 'normal(meanT, 2)')
  moments(torch.normal(mean), 5, 1, 'normal(meanT)')
  local std = torch.Tensor(N):fill(3)
  moments(torch.normal(mean, std), 5, 3, 'normal(meanT, stdT)')
  moments(torch.normal(-1, std), -1, 3, 'normal(-1, stdT)')
  tester:asserteq(std:min(), 3, 'the deviations are untouched')
  local sized = torch.normal(1, 0.5, { 400, 500 })
  tester:asserteq(torch.type(sized), torch.getdefaulttensortype())
  tester:assert(sized:dim() == 2 and sized:size(1) == 400 and sized:size(2) == 500, 'normal(m, s, size)')
  moments(sized, 1, 0.5, 'normal(1, 0.5, size)')
  -- broadcast: a row of means against a column of deviations
  local b = torch.normal(torch.Tensor({ { 0, 100 } }), torch.Tensor(N, 1):fill(0.5))
  tester:assert(b:size(1) == N and b:size(2) == 2, 'broadcast shape')
  moments(b:select(2, 2), 100, 0.5, 'broadcast column 2')
  local d = torch.normal(torch.DoubleTensor(3):zero(), 1)
  tester:asserteq(torch.type(d), 'torch.DoubleTensor', 'the type of the mean')
  tester:asserteq(torch.normal(torch.Tensor(0), 1):nElement(), 0, 'empty')
  local z = torch.normal(torch.Tensor({ 7 }), 0)
  tester:asserteq(z[1], 7, 'std 0 gives the mean')
end

-- PyTorch 1.13: torch.normal(m, s) and torch.bernoulli(p) of tensors that require grad require
-- grad, and give them zero gradients (derivatives.yaml: zeros_like); they were reparameterized
-- here (dm = w, ds = eps * w), so a REINFORCE loss logProb(torch.normal(mu, sigma)) ported from
-- PyTorch differentiated through its own draw.
function tests.normalGradients()
  torch.manualSeed(2)
  local m = torch.DoubleTensor({ 1, 2, 3 }):requiresGrad()
  local s = torch.DoubleTensor({ 0.5, 1, 2 }):requiresGrad()
  local r = torch.normal(m, s)
  tester:assert(r:needsGrad(), 'the draw requires grad, as PyTorch')
  local w = torch.DoubleTensor({ 1, -2, 0.5 })
  torch.sum(torch.cmul(r, w)):backward()
  tester:assertTensorEq(m.grad, torch.zeros(3):double(), 0, 'd/dmean is zero (PyTorch 1.13)')
  tester:assertTensorEq(s.grad, torch.zeros(3):double(), 0, 'd/dstd is zero (PyTorch 1.13)')
  local m2 = torch.DoubleTensor({ 1, 2 }):requiresGrad()
  torch.normal(m2, 3):sum():backward()
  tester:assertTensorEq(m2.grad, torch.zeros(2):double(), 0, 'number std')
  local s2 = torch.DoubleTensor({ 1, 2 }):requiresGrad()
  torch.normal(0, s2):sum():backward()
  tester:assertTensorEq(s2.grad, torch.zeros(2):double(), 0, 'number mean')
  -- REINFORCE: the score function's gradient is (a - mu) / sigma^2, a held fixed
  local mu = torch.DoubleTensor({ 0.5 }):requiresGrad()
  local a = torch.normal(mu, 1)
  local logp = torch.mul(torch.pow(torch.csub(a, mu), 2), -0.5):sum()
  logp:backward()
  tester:assertalmosteq(mu.grad[1], a:detach()[1] - 0.5, 1e-12, 'REINFORCE score')
  local p = torch.DoubleTensor({ 0.3, 0.6 }):requiresGrad()
  local b = torch.bernoulli(p)
  tester:assert(b:needsGrad(), 'bernoulli of probabilities that require grad requires grad')
  torch.sum(b):backward()
  tester:assertTensorEq(p.grad, torch.zeros(2):double(), 0, 'bernoulli: zero gradient (PyTorch 1.13)')
  tester:assert(not torch.noGrad(torch.normal, m, 1):needsGrad(), 'no graph under noGrad')
end

function tests.torch7FormsUnchanged()
  torch.manualSeed(3)
  local x = torch.Tensor(N)
  local r = torch.normal(x, 10, 2)
  tester:assert(rawequal(r, x), 'normal(x, mean, std) fills x')
  moments(x, 10, 2, 'the fill')
  tester:asserteq(type(torch.normal()), 'number')
  tester:asserteq(type(torch.normal(3, 1)), 'number')
  local y = torch.Tensor(N)
  tester:assert(rawequal(y:normal(4, 1), y), 'the method fills')
  moments(y, 4, 1, 'x:normal(4, 1)')
  local bfill = torch.Tensor(N)
  tester:assert(rawequal(torch.bernoulli(bfill, 0.2), bfill), 'bernoulli(x, p) fills x')
  moments(bfill, 0.2, math.sqrt(0.16), 'bernoulli fill')
  tester:asserteq(type(torch.bernoulli(0.3)), 'number')
  -- a generator makes the new forms reproducible too
  local g = torch.Generator()
  g:manualSeed(7)
  local a1, b1 = torch.normal(g, torch.zeros(5), 1), torch.bernoulli(g, torch.Tensor(5):fill(0.5))
  g:manualSeed(7)
  local a2, b2 = torch.normal(g, torch.zeros(5), 1), torch.bernoulli(g, torch.Tensor(5):fill(0.5))
  tester:assertTensorEq(a1, a2, 0, 'normal with a generator')
  tester:assertTensorEq(b1, b2, 0, 'bernoulli with a generator')
end

function tests.bernoulliOfProbabilities()
  torch.manualSeed(4)
  local p = torch.Tensor(N):fill(0.1)
  local x = torch.bernoulli(p)
  tester:assert(not rawequal(x, p), 'a new tensor')
  tester:asserteq(p:max(), p:min(), 'the probabilities are untouched')
  tester:assertalmosteq(p[1], 0.1, 1e-7)
  moments(x, 0.1, 0.3, 'bernoulli(probs)')
  local edges = torch.bernoulli(torch.DoubleTensor({ 0, 1, 0, 1 }))
  tester:assertTensorEq(edges, torch.DoubleTensor({ 0, 1, 0, 1 }), 0, 'p = 0 and 1')
  tester:asserteq(torch.type(edges), 'torch.DoubleTensor')
end

function tests.errors()
  err('[normal] std must be >= 0, got -1', torch.normal, torch.zeros(2), -1)
  err('[normal] std must be >= 0, got a negative (or NaN) element', torch.normal, torch.zeros(2), torch.Tensor({ 1, -1 }))
  -- PyTorch 1.13 refuses a NaN deviation ("normal expects all elements of std >= 0.0"); it gave NaN draws
  err('[normal] std must be >= 0, got a negative (or NaN) element', torch.normal, torch.zeros(2), torch.Tensor({ 0 / 0, 1 }))
  err('[normal] size must hold non-negative integers, got -1 at position 1', torch.normal, 0, 1, { -1 })
  err('[normal] mean must be a floating tensor, got torch.LongTensor', torch.normal, torch.LongTensor({ 1 }), 1)
  err('[normal] mean and std must have the same type', torch.normal, torch.zeros(2), torch.DoubleTensor({ 1, 1 }))
  err('do not broadcast', torch.normal, torch.zeros(2), torch.ones(3))
  err('[normal] size must be a table or a LongStorage', torch.normal, 0, 1, 'big')
  err('[normal] mean must be a number or a tensor', torch.normal, 'a', torch.ones(2))
  err('[bernoulli] probs must be a floating tensor', torch.bernoulli, torch.LongTensor({ 0, 1 }))
  err('[bernoulli] probabilities must be in [0, 1], got 2', torch.bernoulli, torch.Tensor({ 0.5, 2 }))
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  local m = torch.CudaTensor(N):fill(5)
  moments(torch.normal(m, 2):float(), 5, 2, 'cuda normal(meanT, 2)')
  tester:asserteq(m:float():max(), 5, 'cuda means untouched')
  local p = torch.CudaTensor(N):fill(0.25)
  moments(torch.bernoulli(p):float(), 0.25, math.sqrt(0.1875), 'cuda bernoulli(probs)')
end

-- Note [random_ is PyTorch's]: x:random_(to) and x:random_(from, to) exclude to, as PyTorch 1.13's
-- (x.random_(10) gives 0..9, x.random_(3, 6) 3..5); it was Torch7's inclusive random ([1, 10]).
function tests.randomUnderscoreIsPyTorchs()
  torch.manualSeed(3)
  local x = torch.LongTensor(20000):random_(10)
  tester:asserteq(x:min(), 0)
  tester:asserteq(x:max(), 9)
  x:random_(3, 6)
  tester:asserteq(x:min(), 3)
  tester:asserteq(x:max(), 5)
  tester:assertErrorPattern(function() x:random_(5, 5) end, "%[random_%] expects 'from' to be less than 'to'")
  x:random(10)
  tester:asserteq(x:min(), 1, "Torch7's random keeps its inclusive range")
  tester:asserteq(x:max(), 10)
end

-- Note [PyTorch's parameters under PyTorch's names]: geometric_(p) has mean 1 / p (p the success
-- probability, as PyTorch; Torch7's geometric(0.25) has mean 4/3) and logNormal_(mean, std) is exp
-- of a normal of that mean and std (Torch7's logNormal takes the log-normal's own mean and std).
function tests.geometricAndLogNormalUnderscoresArePyTorchs()
  torch.manualSeed(4)
  local n = 200000
  local x = torch.DoubleTensor(n):geometric_(0.25)
  tester:assertlt(math.abs(x:mean() - 4), 5 * math.sqrt(12 / n), 'mean 1 / p')  -- variance (1 - p) / p^2 = 12
  tester:asserteq(x:min(), 1)
  tester:asserteq(torch.DoubleTensor(5):geometric_(1):sum(), 5, 'p = 1: always 1')
  tester:assertErrorPattern(function() torch.Tensor(2):geometric_(0) end, '%[geometric_%] p must be in %(0, 1%]')
  local l = torch.log(torch.DoubleTensor(n):logNormal_(0.5, 0.25))
  tester:assertlt(math.abs(l:mean() - 0.5), 5 * 0.25 / math.sqrt(n), 'log has the given mean')
  tester:assertlt(math.abs(l:std() - 0.25), 0.01, 'and std')
  local t7 = torch.DoubleTensor(n):geometric(0.25)
  tester:assertlt(math.abs(t7:mean() - 4 / 3), 0.02, "Torch7's geometric keeps its parameter")
end

tester:add(tests):run()
