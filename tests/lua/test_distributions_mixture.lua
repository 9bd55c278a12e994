-- torch.distributions.MixtureSameFamily: values against PyTorch 1.13 (float64) for Normal,
-- Independent(Normal) and MultivariateNormal components and a broadcast mixing distribution;
-- Monte-Carlo moments and component frequencies; gradchecks; expand; validation; errors; CUDA.
local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/distributions_check.lua')
local D = torch.distributions
local tester = torch.Tester()
local tests = torch.TestSuite()
local T = torch.DoubleTensor
local TOL = 1e-12
local N = 40000

local function normal_mix()
  return D.MixtureSameFamily(D.Categorical(T({ 0.3, 0.7 })), D.Normal(T({ -1, 1 }), T({ 1, 0.5 })))
end
local MU = { { { 0.5, -1 }, { 2, 0.3 }, { -0.4, 0.8 } }, { { 1, 1 }, { -1, -1 }, { 0, 2 } } }      -- 2 x 3 x 2
local SC = { { { 1, 0.5 }, { 0.7, 1.2 }, { 2, 0.3 } }, { { 0.6, 0.6 }, { 1, 1 }, { 0.4, 0.9 } } }
local W = { { 0.2, 0.3, 0.5 }, { 0.6, 0.1, 0.3 } }
local function independent_mix()
  return D.MixtureSameFamily(D.Categorical(T(W)), D.Independent(D.Normal(T(MU), T(SC)), 1))
end
local MLOC = { { 0, 1 }, { 2, -1 }, { -1, -1 } }
local ML = { { { 1, 0 }, { 0.5, 1 } }, { { 2, 0 }, { 0, 0.5 } }, { { 0.7, 0 }, { -0.3, 0.4 } } }
local function mvn_mix()
  return D.MixtureSameFamily(D.Categorical(T({ 0.5, 0.25, 0.25 })), D.MultivariateNormal(T(MLOC), { scaleTril = T(ML) }))
end

-- Expected values: PyTorch 1.13's (float64).
function tests.normalComponents()
  local m = normal_mix()
  H.size_is(tester, m.batchShape, {}, 'batchShape')
  H.size_is(tester, m.eventShape, {}, 'eventShape')
  local v = T({ 0.5, -1, 3 })
  H.close(tester, m:logProb(v), { -0.9738819931322343, -2.121347069372692, -8.3883102821425 }, TOL, 'logProb')
  H.close(tester, m:cdf(v), { 0.3910165173713625, 0.15002216986928318, 0.9999683287581669 }, TOL, 'cdf')
  H.close(tester, m:mean(), { 0.4 }, TOL, 'mean')
  H.close(tester, m:variance(), { 1.315 }, TOL, 'variance')
  H.close(tester, m:stddev(), { math.sqrt(1.315) }, TOL, 'stddev')
  tester:asserteq(m.hasRsample, false, 'hasRsample')
end

function tests.independentComponents()
  local m = independent_mix()
  H.size_is(tester, m.batchShape, { 2 }, 'batchShape')
  H.size_is(tester, m.eventShape, { 2 }, 'eventShape')
  local x = T({ { { 0.1, 0.2 }, { 1, -1 } }, { { 0, 0 }, { 2, 2 } } })   -- 2 (sample) x 2 (batch) x 2
  H.close(tester, m:logProb(x), { -3.8112938386563324, -5.744003700323957, -4.402483494461513, -4.104680173424429 }, TOL, 'logProb')
  H.close(tester, m:mean(), { 0.5, 0.29, 0.5, 1.1 }, TOL, 'mean')
  H.close(tester, m:variance(), { 3.427, 0.9899, 0.814, 1.249 }, TOL, 'variance')
  H.fails(tester, function() m:cdf(x) end, { 'distributions.MixtureSameFamily', 'cdf', 'univariate' }, 'cdf of vectors')
end

function tests.multivariateNormalComponents()
  local m = mvn_mix()
  local x = T({ { 0, 0 }, { 1, -1 }, { -1, 2 } })
  H.close(tester, m:logProb(x), { -2.9638601741484076, -3.2840658668511327, -4.156024234408761 }, TOL, 'logProb')
  H.close(tester, m:mean(), { 0.25, 0.0 }, TOL, 'mean')
  H.close(tester, m:variance(), { 2.81, 1.75 }, TOL, 'variance')
end

function tests.broadcastMixingDistribution()
  -- One mixing distribution for a 3-batch of 2-component normals (Note [Mixture batch shapes]).
  local m = D.MixtureSameFamily(D.Categorical(T({ 0.4, 0.6 })), D.Normal(T({ { 0, 1 }, { 2, 3 }, { -1, 5 } }), T({ { 1, 2 }, { 0.5, 0.5 }, { 3, 1 } })))
  H.size_is(tester, m.batchShape, { 3 }, 'batchShape')
  local v = T({ 0.5, 2, -1 })
  H.close(tester, m:logProb(v), { -1.3593542633479232, -0.9572612162284491, -2.9338414852120307 }, TOL, 'logProb')
  H.close(tester, m:cdf(v), { 0.5173611890998511, 0.21365007916890755, 0.2000000005919526 }, TOL, 'cdf')
  H.close(tester, m:mean(), { 0.6, 2.6, 2.6 }, TOL, 'mean')
  H.close(tester, m:variance(), { 3.04, 0.49, 12.84 }, TOL, 'variance')
  -- And a batch of mixing distributions over one set of components.
  local m2 = D.MixtureSameFamily(D.Categorical(T({ { 0.4, 0.6 }, { 0.9, 0.1 } })), D.Normal(T({ 0, 1 }), 1))
  H.size_is(tester, m2.batchShape, { 2 }, 'batchShape from the mixture')
  H.close(tester, m2:mean(), { 0.6, 0.1 }, TOL, 'mean')
  H.size_is(tester, m2:sample({ 3 }), { 3, 2 }, 'sample')
  -- A number broadcasts against the batch; sample dims go in front.
  H.size_is(tester, m:logProb(0.5), { 3 }, 'logProb of a number')
  H.size_is(tester, m:logProb(T(4, 3):zero()), { 4, 3 }, 'logProb with sample dims')
  H.size_is(tester, m:logProb(T(4, 1):zero()), { 4, 3 }, 'logProb broadcast')
end

function tests.sampling()
  torch.manualSeed(1)
  local m = normal_mix()
  local x = m:sample({ N })
  H.size_is(tester, x, { N }, 'Normal mixture sample')
  H.moments(tester, x, m:mean(), m:variance(), 5, 'Normal mixture')
  -- Component frequencies: well-separated components, each draw attributable.
  local far = D.MixtureSameFamily(D.Categorical(T({ 0.25, 0.75 })), D.Normal(T({ -50, 50 }), 1))
  H.mc(tester, torch.gt(far:sample({ N }), 0):double(), 0.75, 5, 'component frequency')
  local mi = independent_mix()
  local xi = mi:sample({ N })
  H.size_is(tester, xi, { N, 2, 2 }, 'Independent mixture sample')
  H.moments(tester, xi, mi:mean(), mi:variance(), 5, 'Independent mixture')
  local mm = mvn_mix()
  local xm = mm:sample({ N })
  H.size_is(tester, xm, { N, 2 }, 'MVN mixture sample')
  H.moments(tester, xm, mm:mean(), mm:variance(), 5, 'MVN mixture')
  H.size_is(tester, mm:sample({ 2, 3 }), { 2, 3, 2 }, 'sample shape')
  H.size_is(tester, mm:sample(), { 2 }, 'one sample')
  -- Discrete components: the draws stay whole numbers.
  local mp = D.MixtureSameFamily(D.Categorical(T({ 0.5, 0.5 })), D.Poisson(T({ 2, 10 })))
  local xp = mp:sample({ N })
  H.moments(tester, xp, mp:mean(), mp:variance(), 5, 'Poisson mixture')
  H.close(tester, torch.ne(xp, torch.floor(xp)):sum(), { 0 }, 0, 'whole numbers')
  tester:assert(not m:sample({ 3 }):needsGrad(), 'no gradient')
end

function tests.gradients()
  local gc = torch.autograd.gradcheck
  gc(function(logits, loc, scale)
    local m = D.MixtureSameFamily(D.Categorical(nil, logits), D.Normal(loc, scale))
    return m:logProb(T({ 0.3, -2, 1.5 })), m:cdf(T({ 0.3, -2 })), m:mean(), m:variance()
  end, { T({ 0.2, -0.5, 1 }):requiresGrad(), T({ -1, 0.5, 2 }):requiresGrad(), T({ 1, 0.7, 1.5 }):requiresGrad() })
  gc(function(probs, loc)
    local m = D.MixtureSameFamily(D.Categorical(probs), D.Independent(D.Normal(loc, 0.8), 1))
    return m:logProb(T({ { 0.3, -1 }, { 1, 1 } })), m:variance()
  end, { T({ 0.3, 0.7 }):requiresGrad(), T({ { 0, 1 }, { -1, 0.5 } }):requiresGrad() })
  gc(function(L)
    -- tril: the differences also perturb the (unused) upper triangle.
    local m = D.MixtureSameFamily(D.Categorical(T({ 0.4, 0.6 })), D.MultivariateNormal(T({ { 0, 1 }, { 1, 0 } }), { scaleTril = torch.tril(L) }))
    return m:logProb(T({ 0.5, 0.5 }))
  end, { T(ML):narrow(1, 1, 2):clone():requiresGrad() })
  tester:assert(true)
end

function tests.expand()
  local m = normal_mix()
  local e = m:expand({ 3, 2 })
  H.size_is(tester, e.batchShape, { 3, 2 }, 'batchShape')
  H.size_is(tester, e:sample({ 4 }), { 4, 3, 2 }, 'sample')
  H.close(tester, e:logProb(0.5), torch.DoubleTensor(6):fill(-0.9738819931322343):totable(), TOL, 'logProb')
  H.close(tester, e:cdf(T({ 0.5 })), torch.DoubleTensor(6):fill(0.3910165173713625):totable(), TOL, 'cdf')
  local ei = independent_mix():expand({ 5, 2 })
  H.size_is(tester, ei:sample(), { 5, 2, 2 }, 'Independent mixture expanded sample')
  H.size_is(tester, ei:variance(), { 5, 2, 2 }, 'Independent mixture expanded variance')
  H.fails(tester, function() m:expand({ 3, 0 / 0 }) end, { 'distributions.MixtureSameFamily' }, 'bad shape')
end

function tests.validation()
  -- A value needs the support of one component only (Note [Mixture validation]).
  local mu = D.MixtureSameFamily(D.Categorical(T({ 0.3, 0.7 })), D.Uniform(T({ 0, 2 }), T({ 1, 3 })))
  H.close(tester, mu:logProb(T({ 0.5, 2.5 })), { math.log(0.3), math.log(0.7) }, TOL, 'Uniform mixture logProb')
  H.close(tester, mu:cdf(T({ 0.5, 1.5, 2.5, -1, 5 })), { 0.15, 0.3, 0.65, 0, 1 }, TOL, 'Uniform mixture cdf (any real)')
  H.fails(tester, function() mu:logProb(1.5) end,
    { 'distributions.MixtureSameFamily', 'value', 'in the support of some component', '1.5' }, 'outside every component')
  H.fails(tester, function() mvn_mix():logProb(T({ 0 / 0, 1 })) end, { 'distributions.MixtureSameFamily', 'value', 'real vectors' }, 'NaN vector')
  local quiet = D.MixtureSameFamily(D.Categorical(T({ 0.3, 0.7 })), D.Uniform(T({ 0, 2 }), T({ 1, 3 })), { validateArgs = false })
  H.close(tester, quiet:logProb(1.5), { -math.huge }, 0, 'validateArgs = false: -inf outside')
  H.fails(tester, function() independent_mix():logProb(T({ 1, 2, 3 })) end, { 'distributions.MixtureSameFamily', 'event shape' }, 'event shape')
end

function tests.errors()
  local F = H.fails
  local cat, nrm = D.Categorical(T({ 0.5, 0.5 })), D.Normal(T({ 0, 1 }), 1)
  F(tester, function() D.MixtureSameFamily(D.Bernoulli(0.5), nrm) end,
    { '[distributions.MixtureSameFamily]', 'mixtureDistribution', 'Categorical', 'Bernoulli' }, 'not a Categorical')
  F(tester, function() D.MixtureSameFamily(cat, T({ 1, 2 })) end,
    { 'distributions.MixtureSameFamily', 'componentDistribution', 'distribution' }, 'not a distribution')
  F(tester, function() D.MixtureSameFamily(cat, D.Normal(T({ 0, 1, 2 }), 1)) end,
    { 'distributions.MixtureSameFamily', '2 categories', '3 components' }, 'K mismatch')
  F(tester, function() D.MixtureSameFamily(cat, D.Normal(0, 1)) end,
    { 'distributions.MixtureSameFamily', 'at least one batch dim' }, 'no component dim')
  F(tester, function() D.MixtureSameFamily(D.Categorical(T(3, 2):fill(1)), D.Normal(T(4, 2):zero(), 1)) end,
    { 'distributions.MixtureSameFamily', 'does not broadcast' }, 'batch mismatch')
  F(tester, function() D.MixtureSameFamily(cat, nrm, { foo = 1 }) end, { 'distributions.MixtureSameFamily', 'unknown option foo' }, 'option')
  F(tester, function() D.MixtureSameFamily(cat, nrm, { validateArgs = 1 }) end, { 'distributions.MixtureSameFamily', 'validateArgs' }, 'validateArgs')
  F(tester, function() D.MixtureSameFamily(cat, nrm):rsample() end, { 'distributions.MixtureSameFamily', 'rsample' }, 'rsample')
  F(tester, function() D.MixtureSameFamily(cat, nrm):entropy() end, { 'distributions.MixtureSameFamily', 'entropy' }, 'entropy')
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  local cpu = independent_mix()
  local gpu = D.MixtureSameFamily(D.Categorical(T(W):cuda()), D.Independent(D.Normal(T(MU):cuda(), T(SC):cuda()), 1))
  local x = T({ { { 0.1, 0.2 }, { 1, -1 } }, { { 0, 0 }, { 2, 2 } } })
  tester:assertTensorEq(gpu:logProb(x:cuda()):double():cpu(), cpu:logProb(x), 1e-10, 'logProb')
  tester:assertTensorEq(gpu:variance():double():cpu(), cpu:variance(), 1e-12, 'variance')
  torch.manualSeed(2)
  local s = gpu:sample({ N })
  tester:assert(s:isCuda(), 'sample on the GPU')
  H.moments(tester, s:double():cpu(), cpu:mean(), cpu:variance(), 5, 'CUDA moments')
  local g = D.MixtureSameFamily(D.Categorical(T({ 0.3, 0.7 }):cuda()), D.Normal(T({ -1, 1 }):cuda(), T({ 1, 0.5 }):cuda()))
  tester:assertTensorEq(g:cdf(T({ 0.5, -1 }):cuda()):double():cpu(), normal_mix():cdf(T({ 0.5, -1 })), 1e-12, 'cdf')
end

tester:add(tests):run()
