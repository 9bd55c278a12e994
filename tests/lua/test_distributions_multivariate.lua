-- torch.distributions, third group: MultivariateNormal, Independent, Gamma, Chi2, Beta,
-- Dirichlet and their KL divergences, against PyTorch 1.13's values (double precision),
-- closed-form gradients, Monte-Carlo moments and argument errors.
local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/distributions_check.lua')
local D = torch.distributions
local tester = torch.Tester()
local tests = torch.TestSuite()
local T = torch.DoubleTensor
local TOL = 1e-12

local S = T({ { 2, 0.5 }, { 0.5, 1 } })
local L3 = T({ { 1.5, 0, 0 }, { 0.3, 0.8, 0 }, { -0.2, 0.4, 1.1 } })

-- All expected values below are PyTorch 1.13's (torch.set_default_dtype(torch.float64)).
function tests.mvnValues()
  local m = D.MultivariateNormal(T({ 1, 2 }), { covarianceMatrix = S })
  H.close(tester, m:logProb(T({ { 0.5, 1.5 }, { 3, -1 } })), { -2.2605421032341995, -10.11768496037706 }, TOL, 'logProb')
  H.close(tester, m:entropy(), { 3.1176849603770567 }, TOL, 'entropy')
  H.close(tester, m:variance(), { 2, 1 }, TOL, 'variance')
  H.close(tester, m.precisionMatrix, { 0.5714285714285713, -0.2857142857142857, -0.2857142857142857, 1.142857142857143 }, TOL, 'precision')
  H.close(tester, m.scaleTril, { 1.4142135623730951, 0, 0.35355339059327373, 0.9354143466934853 }, TOL, 'scaleTril')
  local mp = D.MultivariateNormal(T({ 1, 2 }), nil, S)
  H.close(tester, mp.covarianceMatrix, { 0.5714285714285713, -0.28571428571428564, -0.28571428571428564, 1.1428571428571428 }, TOL, 'cov from precision')
  H.close(tester, mp.scaleTril, { 0.7559289460184544, 0, -0.3779644730092272, 1 }, TOL, 'scaleTril from precision')
  H.close(tester, mp:logProb(T({ 0.5, 1.5 })), { -2.058069172441634 }, TOL, 'logProb from precision')
  local mt = D.MultivariateNormal({ loc = T({ { 0, 1, -1 }, { 2, 0, 0 } }), scaleTril = L3 })
  H.size_is(tester, mt.batchShape, { 2 }, 'batch')
  H.size_is(tester, mt.eventShape, { 3 }, 'event')
  H.close(tester, mt:logProb(T({ 0.3, 0.2, 0.1 })), { -4.650813555220562, -3.969500423907431 }, TOL, 'scaleTril logProb')
  H.close(tester, mt:entropy(), { 4.534447336212298, 4.534447336212298 }, TOL, 'scaleTril entropy')
  H.close(tester, D.klDivergence(m, mp), { 1.1903842120645776 }, TOL, 'KL')
  local q = D.MultivariateNormal(T({ 0.5, 0.5, 0.5 }), { covarianceMatrix = torch.eye(3):double() * 2 + 0.3 })
  H.close(tester, D.klDivergence(mt, q), { 1.0399397779751212, 1.0916639159061559 }, TOL, 'batched KL')
end

function tests.mvnSamples()
  torch.manualSeed(21)
  local n = 100000
  local m = D.MultivariateNormal(T({ 1, -2 }), { covarianceMatrix = S })
  local x = m:sample({ n })
  H.size_is(tester, x, { n, 2 }, 'sample')
  H.moments(tester, x, m:mean(), m:variance(), 5, 'components')
  -- The covariance's off-diagonal through a projection: var(x1 + x2) = 2 + 1 + 2 * 0.5.
  H.moments(tester, torch.sum(x, 2), T({ { -1 } }), T({ { 4 } }), 5, 'x1 + x2')
  local q = D.MultivariateNormal(T({ 0, 0 }), { scaleTril = T({ { 1, 0 }, { 0.5, 2 } }) })
  H.mc(tester, (m:logProb(x) - q:logProb(x)):view(n), H.num(D.klDivergence(m, q)), 5, 'KL by Monte-Carlo')
  H.size_is(tester, D.MultivariateNormal(torch.zeros(4, 1, 3), { scaleTril = torch.eye(3) }):rsample({ 2 }), { 2, 4, 1, 3 }, 'batched rsample')
  H.size_is(tester, D.MultivariateNormal(torch.zeros(3), { scaleTril = torch.eye(3):view(1, 3, 3):expand(5, 3, 3) }).batchShape, { 5 }, 'batch from the matrix')
end

function tests.mvnGradients()
  torch.manualSeed(4)
  -- x = loc + L eps: d sum(x) / d loc = n per component, d sum(x) / d L[i][j] = sum(eps_j).
  local loc = T({ 0.5, -1 }):requiresGrad()
  local L = T({ { 1.2, 0 }, { 0.4, 0.7 } }):requiresGrad()
  local x = D.MultivariateNormal(loc, { scaleTril = L }):rsample({ 100 })
  torch.sum(x):backward()
  H.close(tester, loc.grad, { 100, 100 }, 1e-12, 'd/dloc')
  local xd = x:detach()
  local eps2 = torch.sum((xd:select(2, 2) - (-1) - (xd:select(2, 1) - 0.5) / 1.2 * 0.4) / 0.7)
  local eps1 = torch.sum((xd:select(2, 1) - 0.5) / 1.2)
  -- Every entry of L enters the product (as PyTorch's), the zero upper one included.
  H.close(tester, L.grad, { eps1, eps2, eps1, eps2 }, 1e-8, 'd/dscaleTril')
  -- d logProb / d loc = Sigma^-1 (x - loc).
  local mu = T({ 0.2, 0.1 }):requiresGrad()
  local v = T({ 1, -0.5 })
  torch.sum(D.MultivariateNormal(mu, { covarianceMatrix = S }):logProb(v)):backward()
  local diff = (v - T({ 0.2, 0.1 })):view(2, 1)
  H.close(tester, mu.grad, torch.mm(torch.inverse(S), diff):view(2):totable(), 1e-10, 'd logProb / d loc')
  -- d logProb / d covariance against central differences (symmetric perturbations).
  local C = S:clone():requiresGrad()
  torch.sum(D.MultivariateNormal(T({ 0, 0 }), { covarianceMatrix = C }):logProb(v)):backward()
  local f = function(c) return torch.sum(D.MultivariateNormal(T({ 0, 0 }), { covarianceMatrix = c }):logProb(v)) end
  local h = 1e-6
  local P = S:clone()
  P[1][2] = P[1][2] + h
  P[2][1] = P[2][1] + h
  local M = S:clone()
  M[1][2] = M[1][2] - h
  M[2][1] = M[2][1] - h
  H.close(tester, { C.grad[1][2] + C.grad[2][1] }, { (f(P) - f(M)) / (2 * h) }, 1e-6, 'd logProb / d covariance')
end

function tests.independent()
  local base = D.Normal(T({ { 0, 1, 2 }, { 1, 1, 1 } }), T({ 1, 2, 0.5 }))
  local ind = D.Independent(base, 1)
  H.size_is(tester, ind.batchShape, { 2 }, 'batch')
  H.size_is(tester, ind.eventShape, { 3 }, 'event')
  H.close(tester, ind:logProb(T({ 0.5, 0.5, 0.5 })), { -7.413065599614018, -3.413065599614018 }, TOL, 'logProb')
  H.close(tester, ind:entropy(), { 4.2568155996140185, 4.2568155996140185 }, TOL, 'entropy')
  local q = D.Independent(D.Normal(T({ 0, 0, 0 }), T({ 1, 1, 1 })):expand({ 2, 3 }), 1)
  H.close(tester, D.klDivergence(ind, q), { 3.625, 2.625 }, TOL, 'KL')
  H.size_is(tester, ind:sample({ 4 }), { 4, 2, 3 }, 'sample')
  H.size_is(tester, ind:expand({ 5, 2 }):sample(), { 5, 2, 3 }, 'expand')
  H.size_is(tester, D.Independent(base, 2).batchShape, {}, 'all dims')
  tester:asserteq(ind.hasRsample, true)
  tester:asserteq(D.Independent(D.Bernoulli(torch.Tensor({ 0.5, 0.5 })), 1).hasRsample, false)
  H.fails(tester, function() D.Independent(base, 3) end, { 'distributions.Independent', 'reinterpretedBatchNdims' }, 'too many dims')
  H.fails(tester, function() D.Independent(1, 0) end, { 'distributions.Independent', 'base' }, 'not a distribution')
  H.fails(tester, function() D.klDivergence(ind, D.Independent(base, 2)) end, { 'klDivergence', 'reinterpretedBatchNdims' }, 'KL dims')
  H.fails(tester, function() ind:logProb(T({ 0 / 0, 0, 0 })) end, { 'distributions.Normal', 'value' }, 'value checked by the base')
  tester:asserteq(tostring(D.Independent(D.Normal(0, 1):expand({ 2 }), 1)), 'Independent(Normal(loc: torch.FloatTensor of size 2, scale: torch.FloatTensor of size 2), 1)')
end

function tests.gammaFamilyValues()
  local g = D.Gamma(T({ 0.5, 2, 10 }), T({ 1, 2, 0.5 }))
  H.close(tester, g:logProb(T({ 0.3, 1, 20 })), { -0.270378540761732, -0.6137056388801094, -2.771708823695006 }, TOL, 'Gamma logProb')
  H.close(tester, g:entropy(), { 0.09060992991398853, 0.8840684843415876, 3.2292013590409248 }, 1e-11, 'Gamma entropy')
  H.close(tester, g:mean(), { 0.5, 1, 20 }, TOL, 'Gamma mean')
  H.close(tester, g:variance(), { 0.5, 0.5, 40 }, TOL, 'Gamma variance')
  H.close(tester, g:mode(), { 0, 0.5, 18 }, TOL, 'Gamma mode')
  local c = D.Chi2(T({ 3, 0.5 }))
  H.close(tester, c:logProb(T({ 2, 0.1 })), { -1.5723649429247, 0.21562949990747038 }, TOL, 'Chi2 logProb')
  H.close(tester, c:entropy(), { 2.0541199559354117, -0.9394204447741763 }, 1e-11, 'Chi2 entropy')
  H.close(tester, c:mean(), { 3, 0.5 }, TOL, 'Chi2 mean')
  H.close(tester, c:variance(), { 6, 1 }, TOL, 'Chi2 variance')
  local b = D.Beta(T({ 0.5, 2 }), T({ 0.5, 3 }))
  H.close(tester, b:logProb(T({ 0.3, 0.8 })), { -0.3644060117170659, -0.9571127263944103 }, TOL, 'Beta logProb')
  H.close(tester, b:entropy(), { -0.24156447527048996, -0.23490664978800035 }, 1e-11, 'Beta entropy')
  H.close(tester, b:mean(), { 0.5, 0.4 }, TOL, 'Beta mean')
  H.close(tester, b:variance(), { 0.125, 0.04 }, TOL, 'Beta variance')
  local d = D.Dirichlet(T({ { 1, 2, 3 }, { 0.3, 0.3, 5 } }))
  H.close(tester, d:logProb(T({ 0.2, 0.3, 0.5 })), { 1.5040773967762737, -2.0529375829583243 }, TOL, 'Dirichlet logProb')
  H.close(tester, d:entropy(), { -1.2443445622221008, -5.43810523161921 }, 1e-11, 'Dirichlet entropy')
  H.close(tester, d:variance(), { 0.01984126984126984, 0.031746031746031744, 0.03571428571428571,
    0.007682050092764379, 0.007682050092764379, 0.014494434137291274 }, TOL, 'Dirichlet variance')
  local kl = D.klDivergence
  H.close(tester, kl(g, D.Gamma(T({ 1, 3, 2 }), T({ 2, 1, 0.1 }))), { 0.21624288952606607, 1.3498043871413143, 0.4310690573204994 }, 1e-11, 'KL Gamma')
  H.close(tester, kl(c, D.Chi2(T({ 4, 1 }))), { 0.10253725064595712, 0.341205801570689 }, 1e-11, 'KL Chi2')
  -- 1e-10: Tocha's f64 digamma differs from PyTorch's by ~1e-11.
  H.close(tester, kl(b, D.Beta(T({ 1, 1 }), T({ 2, 0.4 }))), { 0.9347116558304349, 0.8011973816621554 }, 1e-10, 'KL Beta')
  H.close(tester, kl(d, D.Dirichlet(T({ 1, 1, 1 }))), { 0.5511973816621554, 4.744958051059266 }, 1e-11, 'KL Dirichlet')
end

function tests.gammaFamilySamples()
  torch.manualSeed(31)
  local n = 100000
  local cases = {
    { 'Gamma', D.Gamma(T({ 0.1, 0.5, 1, 3, 50 }), T({ 1, 2, 1, 0.5, 4 })) },
    { 'Chi2', D.Chi2(T({ 1, 7 })) },
    { 'Beta', D.Beta(T({ 0.5, 2, 8 }), T({ 0.5, 5, 1 })) },
    { 'Dirichlet', D.Dirichlet(T({ { 0.5, 1, 2 }, { 4, 4, 0.2 } })) },
  }
  for _, c in ipairs(cases) do
    local x = c[2]:sample({ n })
    tester:assert(torch.all(torch.gt(x, 0)), c[1] .. ' draws are positive')
    H.moments(tester, x, c[2]:mean(), c[2]:variance(), 5, c[1])
  end
  local dx = D.Dirichlet(T({ 1, 2, 3 })):sample({ 10 })
  tester:assertTensorEq(torch.sum(dx, 2), torch.ones(10, 1):double(), 1e-12, 'Dirichlet draws sum to 1')
  -- KL by Monte-Carlo.
  local p, q = D.Gamma(T({ 2 }), T({ 1.5 })), D.Gamma(T({ 0.8 }), T({ 0.5 }))
  local x = p:sample({ n })
  H.mc(tester, (p:logProb(x) - q:logProb(x)):view(n), H.num(D.klDivergence(p, q)), 5, 'KL Gamma Monte-Carlo')
  local bp, bq = D.Beta(T({ 2 }), T({ 3 })), D.Beta(T({ 1 }), T({ 1.5 }))
  local y = bp:sample({ n })
  H.mc(tester, (bp:logProb(y) - bq:logProb(y)):view(n), H.num(D.klDivergence(bp, bq)), 5, 'KL Beta Monte-Carlo')
  torch.manualSeed(8)
  local a = D.Gamma(T({ 0.3, 4 }), 1):sample({ 50 })
  torch.manualSeed(8)
  tester:assertTensorEq(a, D.Gamma(T({ 0.3, 4 }), 1):sample({ 50 }), 0, 'reproducible')
end

function tests.gammaFamilyGradients()
  -- logProb and entropy are differentiable in the parameters (lgamma, digamma); sample is not.
  local a = T({ 0.7, 3 }):requiresGrad()
  torch.sum(D.Gamma(a, T({ 1.5, 0.5 })):logProb(T({ 0.4, 5 }))):backward()
  -- h = 1e-4: digamma's last-digit noise (~1e-11) would swamp smaller steps.
  local ng = H.numgrad(function(t) return torch.sum(D.Gamma(t, T({ 1.5, 0.5 })):logProb(T({ 0.4, 5 }))) end, a:detach():clone(), 1e-4)
  H.close(tester, a.grad, ng:totable(), 1e-6, 'Gamma d logProb / d concentration')
  local c = T({ 0.5, 1, 2 }):requiresGrad()
  torch.sum(D.Dirichlet(c):entropy()):backward()
  local ng2 = H.numgrad(function(t) return torch.sum(D.Dirichlet(t):entropy()) end, c:detach():clone(), 1e-4)
  H.close(tester, c.grad, ng2:totable(), 1e-6, 'Dirichlet d entropy / d concentration')
  for _, d in ipairs({ D.Gamma(1, 1), D.Chi2(2), D.Beta(1, 1), D.Dirichlet(torch.ones(2)) }) do
    tester:asserteq(d.hasRsample, true)  -- test_distributions_rsample.lua checks the gradients
    tester:assert(not d:sample():needsGrad(), 'no gradient')
  end
end

function tests.validateArgs()
  H.fails(tester, function() D.MultivariateNormal(T({ 0, 0 }), { covarianceMatrix = T({ { 1, 2 }, { 2, 1 } }) }) end,
    { 'distributions.MultivariateNormal', 'covarianceMatrix', 'positive-definite' }, 'indefinite')
  H.fails(tester, function() D.MultivariateNormal(T({ 0, 0 }), { scaleTril = T({ { 1, 1 }, { 0, 1 } }) }) end,
    { 'distributions.MultivariateNormal', 'scaleTril', 'lower triangular' }, 'not lower')
  H.fails(tester, function() D.MultivariateNormal(T({ 0, 0 }), { scaleTril = T({ { -1, 0 }, { 0, 1 } }) }) end,
    { 'distributions.MultivariateNormal', 'scaleTril', 'positive diagonal' }, 'negative diagonal')
  H.fails(tester, function() D.MultivariateNormal(T({ 0, 0 })) end, { 'distributions.MultivariateNormal', 'exactly one', 'got 0' }, 'no matrix')
  H.fails(tester, function() D.MultivariateNormal(T({ 0, 0 }), S, S) end, { 'distributions.MultivariateNormal', 'got 2' }, 'two matrices')
  H.fails(tester, function() D.MultivariateNormal(T({ 0, 0, 0 }), S) end, { 'distributions.MultivariateNormal', '3x3' }, 'size mismatch')
  H.fails(tester, function() D.MultivariateNormal(T({ 0, 0 }), S):logProb(T({ 1, 2, 3 })) end,
    { 'distributions.MultivariateNormal', 'event shape' }, 'value size')
  H.fails(tester, function() D.Gamma(0, 1) end, { 'distributions.Gamma', 'concentration', 'positive' }, 'Gamma concentration')
  H.fails(tester, function() D.Gamma(1, -1) end, { 'distributions.Gamma', 'rate' }, 'Gamma rate')
  H.fails(tester, function() D.Chi2(-3) end, { 'distributions.Chi2', 'df', '-3' }, 'Chi2 df')
  H.fails(tester, function() D.Beta(1, 0) end, { 'distributions.Beta', 'concentration0' }, 'Beta')
  H.fails(tester, function() D.Dirichlet(T({ 1, -1 })) end, { 'distributions.Dirichlet', 'concentration' }, 'Dirichlet')
  -- 0 is in the support (PyTorch 1.13's; Note [Gamma support includes 0])
  H.fails(tester, function() D.Gamma(1, 1):logProb(-1) end, { 'distributions.Gamma', 'value', 'non-negative' }, 'Gamma value')
  H.fails(tester, function() D.Beta(1, 1):logProb(1.5) end, { 'distributions.Beta', 'value', '[0, 1]' }, 'Beta value')
  H.fails(tester, function() D.Dirichlet(torch.ones(3)):logProb(torch.Tensor({ 0.5, 0.6, 0 })) end,
    { 'distributions.Dirichlet', 'value', 'simplex' }, 'Dirichlet value')
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  local m = D.MultivariateNormal(T({ 1, 2 }), { covarianceMatrix = S })
  local mg = D.MultivariateNormal(T({ 1, 2 }):to('cuda'), { covarianceMatrix = S:to('cuda') })
  local v = T({ { 0.5, 1.5 }, { 3, -1 } })
  tester:assertTensorEq(mg:logProb(v:to('cuda')):double(), m:logProb(v), 1e-10, 'MVN logProb')
  tester:assertTensorEq(mg:entropy():double(), m:entropy(), 1e-10, 'MVN entropy')
  H.size_is(tester, mg:rsample({ 3 }), { 3, 2 }, 'MVN rsample')
  local g = D.Gamma(T({ 0.5, 2 }):to('cuda'), T({ 1, 2 }):to('cuda'))
  tester:assertTensorEq(g:logProb(T({ 0.3, 1 }):to('cuda')):double(), D.Gamma(T({ 0.5, 2 }), T({ 1, 2 })):logProb(T({ 0.3, 1 })), 1e-10, 'Gamma logProb')
  torch.manualSeed(2)
  local x = g:sample({ 20000 })
  tester:asserteq(x:device():sub(1, 4), 'cuda', 'Gamma samples on the device')
  H.moments(tester, x:double(), g:mean():double(), g:variance():double(), 5, 'Gamma cuda moments')
  local d = D.Dirichlet(T({ 1, 2, 3 }):to('cuda'))
  tester:assertTensorEq(d:entropy():double(), D.Dirichlet(T({ 1, 2, 3 })):entropy(), 1e-10, 'Dirichlet entropy')
end

tester:add(tests)
tester:run()
