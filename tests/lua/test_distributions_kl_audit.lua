-- The KL registry against PyTorch 1.13's kl.py: every pair registered there whose two families
-- exist here must be registered (Note [KL audit] in kl_multivariate.lua); the cross-family pairs
-- of kl_multivariate.lua against PyTorch 1.13's values (double precision), Monte-Carlo estimates
-- E_p[log p - log q], exact sums for discrete p, and gradients against central differences.
local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/distributions_check.lua')
local D = torch.distributions
local tester = torch.Tester()
local tests = torch.TestSuite()
local T = torch.DoubleTensor
local inf = math.huge
local kl = D.klDivergence
-- torch.sum of a tensor without gradient is a number (Torch7), with one a 0-dim tensor.
local function num(v) return type(v) == 'number' and v or H.num(v) end

-- Every @register_kl pair of PyTorch 1.13's torch/distributions/kl.py, by class name.
-- ExponentialFamily-ExponentialFamily stands for the same-family pairs of exponential families
-- without their own rule: Wishart-Wishart among the families here.
local KL_PY = [[
Bernoulli Bernoulli, Beta Beta, Binomial Binomial, Categorical Categorical,
ContinuousBernoulli ContinuousBernoulli, Dirichlet Dirichlet, Exponential Exponential,
Wishart Wishart, Gamma Gamma, Gumbel Gumbel, Geometric Geometric, HalfNormal HalfNormal,
Laplace Laplace, LowRankMultivariateNormal LowRankMultivariateNormal,
MultivariateNormal LowRankMultivariateNormal, LowRankMultivariateNormal MultivariateNormal,
MultivariateNormal MultivariateNormal, Normal Normal, OneHotCategorical OneHotCategorical,
Pareto Pareto, Poisson Poisson, Uniform Uniform, Bernoulli Poisson, Beta ContinuousBernoulli,
Beta Pareto, Beta Exponential, Beta Gamma, Beta Normal, Beta Uniform, ContinuousBernoulli Pareto,
ContinuousBernoulli Exponential, ContinuousBernoulli Normal, ContinuousBernoulli Uniform,
Exponential Beta, Exponential ContinuousBernoulli, Exponential Pareto, Exponential Uniform,
Exponential Gamma, Exponential Gumbel, Exponential Normal, Gamma Beta, Gamma ContinuousBernoulli,
Gamma Pareto, Gamma Uniform, Gamma Exponential, Gamma Gumbel, Gamma Normal, Gumbel Beta,
Gumbel ContinuousBernoulli, Gumbel Exponential, Gumbel Gamma, Gumbel Pareto, Gumbel Uniform,
Gumbel Normal, Laplace Beta, Laplace ContinuousBernoulli, Laplace Exponential, Laplace Gamma,
Laplace Pareto, Laplace Uniform, Laplace Normal, Normal Beta, Normal ContinuousBernoulli,
Normal Exponential, Normal Gamma, Normal Pareto, Normal Uniform, Normal Gumbel, Normal Laplace,
Pareto Beta, Pareto ContinuousBernoulli, Pareto Uniform, Pareto Exponential, Pareto Gamma,
Pareto Normal, Poisson Bernoulli, Poisson Binomial, Uniform Beta, Uniform ContinuousBernoulli,
Uniform Exponential, Uniform Gamma, Uniform Gumbel, Uniform Normal, Uniform Pareto,
Independent Independent, Cauchy Cauchy]]

-- One member (batch {3}) of each family this audit covers; the others belong to their suites.
local MAKE = {
  Bernoulli = function() return D.Bernoulli(T({ 0.1, 0.5, 0.9 })) end,
  Geometric = function() return D.Geometric(T({ 0.2, 0.5, 0.7 })) end,
  Categorical = function() return D.Categorical(T({ { 0.2, 0.8 }, { 0.5, 0.5 }, { 0.9, 0.1 } })) end,
  OneHotCategorical = function() return D.OneHotCategorical(T({ { 0.2, 0.8 }, { 0.5, 0.5 }, { 0.9, 0.1 } })) end,
  Exponential = function() return D.Exponential(T({ 0.5, 2, 1.3 })) end,
  Laplace = function() return D.Laplace(T({ 0.3, -1, 2 }), T({ 0.4, 1.5, 0.8 })) end,
  Cauchy = function() return D.Cauchy(T({ 0.3, -1, 2 }), T({ 0.4, 1.5, 0.8 })) end,
  Gamma = function() return D.Gamma(T({ 0.7, 2, 4 }), T({ 1.5, 0.5, 2 })) end,
  Beta = function() return D.Beta(T({ 0.5, 2, 5 }), T({ 0.5, 3, 1.5 })) end,
  Dirichlet = function() return D.Dirichlet(T({ { 1, 2 }, { 0.5, 0.5 }, { 3, 1 } })) end,
  Independent = function() return D.Independent(D.Normal(torch.zeros(3, 2):double(), 1), 1) end,
  MultivariateNormal = function() return D.MultivariateNormal(torch.zeros(3, 2):double(), { scaleTril = torch.eye(2):double() }) end,
  LowRankMultivariateNormal = function() return D.LowRankMultivariateNormal(torch.zeros(3, 2):double(), torch.ones(2, 1):double(), torch.ones(2):double()) end,
  Normal = function() return D.Normal(T({ 0.3, -1, 2 }), T({ 0.5, 2, 1.2 })) end,
  LogNormal = function() return D.LogNormal(T({ 0.3, -1, 2 }), T({ 0.5, 2, 1.2 })) end,
  Poisson = function() return D.Poisson(T({ 0.5, 2, 4 })) end,
  Binomial = function() return D.Binomial(5, T({ 0.1, 0.5, 0.9 })) end,
  Uniform = function() return D.Uniform(T({ 0.1, 0.2, 0.5 }), T({ 0.6, 0.9, 3 })) end,
  Wishart = function() return D.Wishart(T({ 2, 3, 4 }), { scaleTril = torch.eye(2):double() }) end,
}

function tests.completeness()
  local count = 0
  for p, q in KL_PY:gmatch('(%a+) (%a+)') do
    if MAKE[p] and MAKE[q] then
      count = count + 1
      local ok, r = pcall(kl, MAKE[p](), MAKE[q]())
      tester:assert(ok, string.format('KL(%s, %s) is registered: %s', p, q, tostring(r)))
      if ok then
        H.size_is(tester, r, { 3 }, p .. '-' .. q)
        tester:assert(not torch.any(torch.ne(r, r)), p .. '-' .. q .. ' has no NaN')
        tester:assert(torch.all(torch.ge(r, -1e-12)), p .. '-' .. q .. ' is non-negative')
      end
    end
  end
  tester:asserteq(count, 49, 'pairs audited')
  -- And through subclasses: Chi2 is a Gamma, as in PyTorch.
  H.close(tester, kl(D.Chi2(T({ 3, 0.5, 7 })), MAKE.Normal()), { 24.751671396709312, 2.9577561585387944, 12.006697575371383 },
    1e-11, 'Chi2-Normal (PyTorch 1.13)')
  -- Cauchy-Cauchy is in 1.13's kl.py (arXiv 1905.10965), and registered in kl_more.lua.
  H.close(tester, kl(D.Cauchy(0, 1), D.Cauchy(1, 2)), { math.log(10 / 8) }, 1e-7, 'Cauchy-Cauchy')
end

-- The finite cross-family pairs: PyTorch 1.13's values for batches of 3.
function tests.values()
  local Be, Ex, Ga, No, La = MAKE.Beta(), MAKE.Exponential(), MAKE.Gamma(), MAKE.Normal(), MAKE.Laplace()
  local function U(lo, hi) return D.Uniform(T(lo), T(hi)) end
  -- 1e-10: Tocha's f64 digamma and lgamma differ from PyTorch's in the last digits.
  local cases = {
    { 'Bernoulli-Poisson', MAKE.Bernoulli(), MAKE.Poisson(), { 0.24423174466454634, 0.960279229160082, 2.42725210160065 } },
    { 'Beta-Exponential', Be, Ex, { 1.1847116558304354, 0.3417594692280551, 1.317540876593742 } },
    { 'Beta-Gamma', Be, Ga, { 0.5527178377904743, 2.9045343442412244, 1.9979184124154432 } },
    { 'Beta-Normal', Be, No, { 0.7973558279152173, 2.0969923635526184, 2.2153532652478947 } },
    { 'Beta-Uniform', Be, U({ -0.5, 0.1, 0 }, { 1.5, 1, 0.9 }), { 0.9347116558304353, inf, inf } },
    { 'Exponential-Normal', Ex, No, { 12.31264417208478, 1.6177328943245635, 1.095051047431273 } },
    { 'Gamma-Exponential', Ga, Ex, { 0.7370854415791569, 5.0364899739785765, 1.0073764521598008 } },
    { 'Gamma-Normal', Ga, No, { 0.7141740581083835, 3.4667228683031395, 0.11822302884814062 } },
    { 'Laplace-Normal', La, No, { 0.0889349039589371, 0.0759734250965085, 0.07570090519733608 } },
    { 'Normal-Laplace', No, La, { 0.048420797044644526, 0.05037265597397911, 0.0655703804514064 } },
    { 'Uniform-Beta', U({ 0.1, 0.2, -0.1 }, { 0.6, 1.2, 0.8 }), Be, { 1.033332030106774, inf, inf } },
    { 'Uniform-Exponential', U({ 0.1, -0.2, 0.5 }, { 0.6, 0.9, 3 }), Ex, { 1.5612943611198906, inf, 1.0963450036583537 } },
    { 'Uniform-Gamma', U({ 0.1, -0.2, 0.5 }, { 0.6, 0.9, 3 }), Ga, { 0.8494467324397827, inf, 0.23198746757295652 } },
    { 'Uniform-Normal', MAKE.Uniform(), No, { 0.9656051998713393, 2.274177324370017, 0.3875156544207684 } },
  }
  for _, c in ipairs(cases) do H.close(tester, kl(c[2], c[3]), c[4], 1e-10, c[1]) end
  -- Uniform(0, b): PyTorch 1.13's x * log(x) makes these NaN; the limits x log x -> 0 give
  -- KL(U(0, 1) || Gamma(2, 1)) = E[x] - E[log x] = 1.5, KL(U(0, 1) || Beta(2, 3)) = 3 - log 12,
  -- KL(U(0, 1) || Exponential(2)) = 1 - log 2.
  H.close(tester, kl(D.Uniform(0, 1), D.Gamma(2, 1)), { 1.5 }, 1e-7, 'Uniform(0, 1)-Gamma')
  H.close(tester, kl(D.Uniform(0, 1), D.Beta(2, 3)), { 3 - math.log(12) }, 1e-7, 'Uniform(0, 1)-Beta')
  H.close(tester, kl(D.Uniform(0, 1), D.Exponential(2)), { 1 - math.log(2) }, 1e-7, 'Uniform(0, 1)-Exponential')
end

function tests.infinite()
  local cases = {
    { 'Exponential', 'Beta' }, { 'Exponential', 'Uniform' }, { 'Gamma', 'Beta' }, { 'Gamma', 'Uniform' },
    { 'Laplace', 'Beta' }, { 'Laplace', 'Exponential' }, { 'Laplace', 'Gamma' }, { 'Laplace', 'Uniform' },
    { 'Normal', 'Beta' }, { 'Normal', 'Exponential' }, { 'Normal', 'Gamma' }, { 'Normal', 'Uniform' },
    { 'Poisson', 'Bernoulli' }, { 'Poisson', 'Binomial' },
  }
  for _, c in ipairs(cases) do
    local r = kl(MAKE[c[1]](), MAKE[c[2]]())
    H.close(tester, r, { inf, inf, inf }, 0, c[1] .. '-' .. c[2])
    tester:asserteq(torch.typename(r), 'torch.DoubleTensor', c[1] .. '-' .. c[2] .. ' type')
  end
  -- Of the broadcast batch shape (PyTorch: p's parameter's).
  H.size_is(tester, kl(D.Normal(torch.zeros(3):double(), 1), D.Gamma(torch.ones(2, 1):double(), 1)), { 2, 3 }, 'broadcast')
  tester:asserteq(torch.typename(kl(D.Normal(T({ 0 }):float(), 1), D.Gamma(1, 1))), 'torch.FloatTensor', 'p type')
end

-- E_p[log p - log q] by Monte-Carlo, for continuous p (batch {3}).
function tests.monteCarlo()
  torch.manualSeed(13)
  local n = 100000
  local cases = {
    { 'Beta-Normal', MAKE.Beta(), MAKE.Normal() },
    { 'Beta-Gamma', MAKE.Beta(), MAKE.Gamma() },
    { 'Exponential-Normal', MAKE.Exponential(), MAKE.Normal() },
    { 'Gamma-Normal', MAKE.Gamma(), MAKE.Normal() },
    { 'Gamma-Exponential', MAKE.Gamma(), MAKE.Exponential() },
    { 'Laplace-Normal', MAKE.Laplace(), MAKE.Normal() },
    { 'Normal-Laplace', MAKE.Normal(), MAKE.Laplace() },
    { 'Uniform-Normal', MAKE.Uniform(), MAKE.Normal() },
    { 'Uniform-Gamma', D.Uniform(T({ 0, 0.2, 0.5 }), T({ 1, 0.9, 3 })), MAKE.Gamma() },
    { 'Uniform-Beta', D.Uniform(T({ 0, 0.2, 0.1 }), T({ 1, 0.9, 0.6 })), MAKE.Beta() },
    { 'Uniform-Exponential', D.Uniform(T({ 0, 0.2, 0.5 }), T({ 1, 0.9, 3 })), MAKE.Exponential() },
  }
  for _, c in ipairs(cases) do
    local p, q = c[2], c[3]
    local x = p:sample({ n })
    -- Draws at the edge of q's support (Beta, Gamma) are clamped inside it.
    if c[1]:match('Beta$') then x = torch.clamp(x, 1e-12, 1 - 1e-12) end
    local vals = p:logProb(x) - q:logProb(x)
    local r = kl(p, q)
    for i = 1, 3 do H.mc(tester, vals:select(2, i), r[i], 5, c[1] .. ' ' .. i) end
  end
  -- Bernoulli-Poisson exactly: p(0) log(p(0) / q(0)) + p(1) log(p(1) / q(1)).
  local p, q = MAKE.Bernoulli(), MAKE.Poisson()
  local exact = torch.cmul(p.probs, p:logProb(1) - q:logProb(1)) + torch.cmul(1 - p.probs, p:logProb(0) - q:logProb(0))
  tester:assertTensorEq(kl(p, q), exact, 1e-12, 'Bernoulli-Poisson exact')
end

-- Autograd against central differences, in every parameter of p and q (flattened into one vector).
function tests.gradients()
  local function split(v, k) return v:narrow(1, 1 + 2 * (k - 1), 2) end  -- two members per parameter
  local cases = {
    { 'Beta-Normal', { 0.7, 2, 1.5, 3, 0.2, -1, 0.8, 1.5 }, function(v) return D.Beta(split(v, 1), split(v, 2)), D.Normal(split(v, 3), split(v, 4)) end },
    { 'Beta-Gamma', { 0.7, 2, 1.5, 3, 0.8, 2, 1.5, 0.5 }, function(v) return D.Beta(split(v, 1), split(v, 2)), D.Gamma(split(v, 3), split(v, 4)) end },
    { 'Beta-Exponential', { 0.7, 2, 1.5, 3, 0.8, 2 }, function(v) return D.Beta(split(v, 1), split(v, 2)), D.Exponential(split(v, 3)) end },
    { 'Beta-Uniform', { 0.7, 2, 1.5, 3, -0.5, -0.1, 1.2, 2 }, function(v) return D.Beta(split(v, 1), split(v, 2)), D.Uniform(split(v, 3), split(v, 4)) end },
    { 'Exponential-Normal', { 0.5, 2, 0.2, -1, 0.8, 1.5 }, function(v) return D.Exponential(split(v, 1)), D.Normal(split(v, 2), split(v, 3)) end },
    { 'Gamma-Normal', { 0.8, 2, 1.5, 0.5, 0.2, -1, 0.8, 1.5 }, function(v) return D.Gamma(split(v, 1), split(v, 2)), D.Normal(split(v, 3), split(v, 4)) end },
    { 'Gamma-Exponential', { 0.8, 2, 1.5, 0.5, 0.7, 3 }, function(v) return D.Gamma(split(v, 1), split(v, 2)), D.Exponential(split(v, 3)) end },
    { 'Laplace-Normal', { 0.3, -1, 0.4, 1.5, 0.2, -0.5, 0.8, 1.5 }, function(v) return D.Laplace(split(v, 1), split(v, 2)), D.Normal(split(v, 3), split(v, 4)) end },
    { 'Normal-Laplace', { 0.3, -1, 0.4, 1.5, 0.2, -0.5, 0.8, 1.5 }, function(v) return D.Normal(split(v, 1), split(v, 2)), D.Laplace(split(v, 3), split(v, 4)) end },
    { 'Uniform-Beta', { 0.1, 0.3, 0.6, 0.9, 0.7, 2, 1.5, 3 }, function(v) return D.Uniform(split(v, 1), split(v, 2)), D.Beta(split(v, 3), split(v, 4)) end },
    { 'Uniform-Gamma', { 0.1, 0.3, 0.6, 2.9, 0.7, 2, 1.5, 3 }, function(v) return D.Uniform(split(v, 1), split(v, 2)), D.Gamma(split(v, 3), split(v, 4)) end },
    { 'Uniform-Exponential', { 0.1, 0.3, 0.6, 2.9, 0.7, 2 }, function(v) return D.Uniform(split(v, 1), split(v, 2)), D.Exponential(split(v, 3)) end },
    { 'Uniform-Normal', { 0.1, 0.3, 0.6, 2.9, 0.2, -1, 0.8, 1.5 }, function(v) return D.Uniform(split(v, 1), split(v, 2)), D.Normal(split(v, 3), split(v, 4)) end },
    { 'Bernoulli-Poisson', { 0.2, 0.7, 0.5, 3 }, function(v) return D.Bernoulli(split(v, 1)), D.Poisson(split(v, 2)) end },
  }
  for _, c in ipairs(cases) do
    local f = function(v) return torch.sum(kl(c[3](v))) end
    local v = T(c[2]):requiresGrad()
    f(v):backward()
    -- h = 1e-5: digamma's last-digit noise would swamp smaller steps.
    local ng = H.numgrad(function(t) return num(f(t)) end, T(c[2]), 1e-5)
    H.close(tester, v.grad, ng:totable(), 1e-6, c[1] .. ' gradient')
  end
end

tester:add(tests)
tester:run()
