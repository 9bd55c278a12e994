-- torch.distributions.Wishart and LKJCholesky: PyTorch 1.13's values (double precision), the
-- Wishart KL divergence, Monte-Carlo moments (Bartlett and onion draws), KL and entropy
-- estimates, normalization checks, rsample/logProb/entropy/KL gradients against central
-- differences and Monte-Carlo, argument errors.
local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/distributions_check.lua')
local D = torch.distributions
local tester = torch.Tester()
local tests = torch.TestSuite()
local T = torch.DoubleTensor
local TOL = 1e-12
local NAN = 0 / 0

local L3 = T({ { 1.5, 0, 0 }, { 0.3, 0.8, 0 }, { -0.2, 0.4, 1.1 } })
local V3 = T({ { 3, 0.5, 0.2 }, { 0.5, 2, 0.1 }, { 0.2, 0.1, 1.5 } })
local S = T({ { 2, 0.5 }, { 0.5, 1 } })
-- torch.sum of a tensor without gradient is a number (Torch7), with one a 0-dim tensor.
local function num(v) return type(v) == 'number' and v or H.num(v) end
local function numgrad(fn, x, h) return H.numgrad(function(t) return num(fn(t)) end, x:clone(), h) end

-- All expected values below are PyTorch 1.13's (torch.set_default_dtype(torch.float64)).
function tests.wishartValues()
  local w = D.Wishart(T({ 4, 6.5 }), { scaleTril = L3 })
  H.size_is(tester, w.batchShape, { 2 }, 'batch')
  H.size_is(tester, w.eventShape, { 3, 3 }, 'event')
  H.close(tester, w:logProb(V3), { -9.875364494169883, -12.145197118008674 }, TOL, 'logProb')
  -- 1e-11: Tocha's f64 digamma differs from PyTorch's by ~1e-11.
  H.close(tester, w:entropy(), { 12.865722620891646, 15.261845168108769 }, 1e-11, 'entropy')
  H.close(tester, w:mean(), { 9.0, 1.8, -1.2, 1.8, 2.92, 1.04, -1.2, 1.04, 5.64, 14.625, 2.925, -1.95, 2.925, 4.745, 1.69, -1.95,
    1.69, 9.165 }, TOL, 'mean')
  H.close(tester, w:mode(), { NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, NAN, 5.625, 1.125, -0.75, 1.125, 1.825, 0.65, -0.75, 0.65,
    3.525 }, TOL, 'mode (NaN for df <= p + 1)')
  H.close(tester, w:variance(), { 40.5, 7.38, 13.05, 7.38, 4.2632, 4.3876, 13.05, 4.3876, 15.9048, 65.8125, 11.9925, 21.20625,
    11.9925, 6.9277, 7.12985, 21.20625, 7.12985, 25.8453 }, TOL, 'variance')
  local wc = D.Wishart(5, { covarianceMatrix = S })
  H.close(tester, wc:logProb(T({ { { 1, 0 }, { 0, 1 } }, { { 4, 1 }, { 1, 3 } } })), { -6.5789660431787595, -5.895356484666103 }, TOL,
    'covarianceMatrix logProb')
  H.close(tester, wc:entropy(), { 7.649972061236879 }, 1e-11, 'covarianceMatrix entropy')
  H.close(tester, wc.precisionMatrix, { 0.5714285714285713, -0.2857142857142857, -0.2857142857142857, 1.142857142857143 }, TOL, 'precision')
  H.close(tester, wc.scaleTril, { 1.4142135623730951, 0, 0.35355339059327373, 0.9354143466934853 }, TOL, 'scaleTril')
  local wp = D.Wishart(2.5, nil, S)
  H.close(tester, wp:logProb(T({ { 1, 0.2 }, { 0.2, 0.5 } })), { -2.866590077040018 }, TOL, 'precisionMatrix logProb')
  H.close(tester, wp:entropy(), { 4.0890633144201995 }, 1e-11, 'precisionMatrix entropy')
  H.close(tester, wp.covarianceMatrix, { 0.5714285714285713, -0.28571428571428564, -0.28571428571428564, 1.1428571428571428 }, TOL, 'cov')
  H.close(tester, wp.scaleTril, { 0.7559289460184544, 0, -0.3779644730092272, 1 }, TOL, 'scaleTril from precision')
  H.close(tester, wp:mode(), { NAN, NAN, NAN, NAN }, TOL, 'mode')
  -- Batch from df against the matrix's batch dims.
  local wb = D.Wishart(T({ { 3 }, { 4 } }), { scaleTril = L3:view(1, 3, 3):expand(5, 3, 3) })
  H.size_is(tester, wb.batchShape, { 2, 5 }, 'broadcast batch')
  H.size_is(tester, wb:rsample({ 3 }), { 3, 2, 5, 3, 3 }, 'batched rsample')
  H.size_is(tester, wb:logProb(V3), { 2, 5 }, 'batched logProb')
  local e = D.Wishart(4, { scaleTril = L3 }):expand({ 4 })
  H.size_is(tester, e.df, { 4 }, 'expanded df')
  H.size_is(tester, e:sample({ 2 }), { 2, 4, 3, 3 }, 'expanded sample')
end

function tests.wishartKl()
  local kl = D.klDivergence
  local w1 = D.Wishart(4, { scaleTril = T({ { 1.5, 0 }, { 0.3, 0.8 } }) })
  local wc = D.Wishart(5, { covarianceMatrix = S })
  -- PyTorch computes this one as a Bregman divergence (Note [Wishart KL]).
  H.close(tester, kl(w1, wc), { 0.38897392515271156 }, 1e-11, 'KL')
  -- PyTorch's values for the two members one at a time: batched, its Bregman rule sums the df
  -- term over the batch dims (_sum_rightmost by the event rank) and returns 8.567, 2.436; the
  -- Monte-Carlo estimates agree with these.
  H.close(tester, kl(D.Wishart(T({ 4, 6.5 }), { scaleTril = L3 }), D.Wishart(3.5, { covarianceMatrix = V3 })),
    { 1.002588561467562, 1.8068658747872828 }, 1e-10, 'batched KL')
  H.close(tester, kl(wc, wc), { 0 }, 1e-12, 'KL(p, p)')
  H.fails(tester, function() kl(w1, D.Wishart(4, { scaleTril = L3 })) end, { 'klDivergence', 'event sizes' }, 'sizes')
  -- validateArgs off for the Monte-Carlo sums: the positive-definite value check (eigenvalues of
  -- every draw) would dominate the time.
  w1 = D.Wishart(4, { scaleTril = T({ { 1.5, 0 }, { 0.3, 0.8 } }), validateArgs = false })
  wc = D.Wishart(5, { covarianceMatrix = S, validateArgs = false })
  torch.manualSeed(17)
  local n = 40000
  local x = w1:sample({ n })
  H.mc(tester, w1:logProb(x) - wc:logProb(x), H.num(kl(w1, wc)), 5, 'KL by Monte-Carlo')
  local wb, wq = D.Wishart(T({ 4, 6.5 }), { scaleTril = L3, validateArgs = false }), D.Wishart(3.5, { covarianceMatrix = V3, validateArgs = false })
  local y = wb:sample({ n })
  local klb = kl(wb, wq)
  for i = 1, 2 do
    H.mc(tester, (wb:logProb(y) - wq:logProb(y)):select(2, i), klb[i], 5, 'batched KL by Monte-Carlo ' .. i)
  end
  H.mc(tester, -w1:logProb(x), H.num(w1:entropy()), 5, 'entropy by Monte-Carlo')
  -- d KL / d df of both sides, against central differences (h = 1e-4: digamma's last digits).
  local dp, dq = T({ 4 }):requiresGrad(), T({ 5 }):requiresGrad()
  local function f(a, b) return torch.sum(kl(D.Wishart(a, { scaleTril = w1.scaleTril }), D.Wishart(b, { covarianceMatrix = S }))) end
  f(dp, dq):backward()
  H.close(tester, dp.grad, numgrad(function(t) return f(t, T({ 5 })) end, T({ 4 }), 1e-4):totable(), 1e-6, 'd/d p.df')
  H.close(tester, dq.grad, numgrad(function(t) return f(T({ 4 }), t) end, T({ 5 }), 1e-4):totable(), 1e-6, 'd/d q.df')
end

function tests.wishartSamples()
  torch.manualSeed(23)
  local n = 100000
  for _, c in ipairs({
    { 'p = 3', D.Wishart(T({ 4, 6.5 }), { scaleTril = L3 }) },
    { 'df < p', D.Wishart(1.5, { covarianceMatrix = S }) },
    { 'large df', D.Wishart(40, nil, S) },
  }) do
    local w = c[2]
    local x = w:sample({ n })
    tester:assertTensorEq(x, x:transpose(x:dim() - 1, x:dim()), 0, c[1] .. ': symmetric')
    local _, info = torch.linalg.choleskyEx(x)
    tester:assert(torch.all(torch.eq(info, 0)), c[1] .. ': positive-definite (Cholesky)')
    H.moments(tester, x, w:mean(), w:variance(), 5, c[1])
  end
  torch.manualSeed(8)
  local w = D.Wishart(3, { scaleTril = L3 })
  local a = w:sample({ 4 })
  torch.manualSeed(8)
  tester:assertTensorEq(a, w:sample({ 4 }), 0, 'reproducible')
  tester:assert(not a:needsGrad(), 'sample carries no gradient')
end

function tests.wishartGradients()
  -- rsample in scaleTril at a fixed seed: X = (L A)(L A)^T is smooth in L for fixed draws A.
  local function loss(L) return torch.sum(torch.sin(D.Wishart(T({ 4, 6.5 }), { scaleTril = L, validateArgs = false }):rsample({ 3 }))) end
  local L = L3:clone():requiresGrad()
  torch.manualSeed(9)
  loss(L):backward()
  local ng = H.numgrad(function(t) torch.manualSeed(9) return num(loss(t)) end, L3:clone())
  H.close(tester, L.grad, ng:view(9):totable(), 1e-6, 'rsample d/dscaleTril')
  -- rsample in df: per-draw implicit gradients (Note [Gamma rsample]) whose mean is d E[X] / d df
  -- = the covariance; one df per draw (a batch of n), so that each draw has its own gradient.
  torch.manualSeed(10)
  local n = 40000
  local df = torch.Tensor(n):double():fill(3.5):requiresGrad()
  local x = D.Wishart(df, { covarianceMatrix = S }):rsample()
  torch.sum(x:select(3, 1):select(2, 2) + x:select(3, 1):select(2, 1)):backward()  -- X_21 + X_11
  H.mc(tester, df.grad, S[2][1] + S[1][1], 5, 'rsample d E[X_21 + X_11] / d df')
  -- logProb in df, scaleTril (lower entries) and the value; entropy in df and scaleTril.
  local function f(d, Lt, v)
    local w = D.Wishart(d, { scaleTril = Lt, validateArgs = false })
    return torch.sum(w:logProb(v)) + torch.sum(w:entropy())
  end
  local d, Lg, v = T({ 4, 6.5 }):requiresGrad(), L3:clone():requiresGrad(), V3:clone():requiresGrad()
  f(d, Lg, v):backward()
  H.close(tester, d.grad, numgrad(function(t) return f(t, L3, V3) end, T({ 4, 6.5 }), 1e-4):totable(), 1e-6, 'd/ddf')
  H.close(tester, torch.tril(Lg.grad), torch.tril(numgrad(function(t) return f(T({ 4, 6.5 }), t, V3) end, L3)):view(9):totable(), 1e-6, 'd/dscaleTril')
  H.close(tester, v.grad, numgrad(function(t) return f(T({ 4, 6.5 }), L3, t) end, V3):view(9):totable(), 1e-6, 'd/dvalue')
  -- Through the Cholesky factorization of covarianceMatrix (symmetric perturbations).
  local C = S:clone():requiresGrad()
  local g = function(c) return torch.sum(D.Wishart(5, { covarianceMatrix = c, validateArgs = false }):logProb(T({ { 1, 0.2 }, { 0.2, 0.5 } }))) end
  g(C):backward()
  local h = 1e-6
  local P, M = S:clone(), S:clone()
  P[1][2], P[2][1], M[1][2], M[2][1] = P[1][2] + h, P[2][1] + h, M[1][2] - h, M[2][1] - h
  H.close(tester, { C.grad[1][2] + C.grad[2][1] }, { (num(g(P)) - num(g(M))) / (2 * h) }, 1e-6, 'd/dcovariance')
end

function tests.wishartErrors()
  local op = 'distributions.Wishart'
  H.fails(tester, function() D.Wishart(1.5, { scaleTril = L3 }) end, { op, 'df must be greater than p - 1 = 2', '1.5' }, 'df')
  H.fails(tester, function() D.Wishart(T({ 3, 2 }), { scaleTril = L3 }) end, { op, 'df must be greater' }, 'df tensor')
  H.fails(tester, function() D.Wishart(3) end, { op, 'exactly one', 'got 0' }, 'no matrix')
  H.fails(tester, function() D.Wishart(3, S, S) end, { op, 'got 2' }, 'two matrices')
  H.fails(tester, function() D.Wishart(3, torch.ones(2, 3):double()) end, { op, 'square' }, 'not square')
  H.fails(tester, function() D.Wishart(3, T({ 1, 2 })) end, { op, 'square' }, 'a vector')
  H.fails(tester, function() D.Wishart(3, T({ { 1, 2 }, { 2, 1 } })) end, { op, 'covarianceMatrix', 'positive-definite' }, 'indefinite')
  H.fails(tester, function() D.Wishart(3, { scaleTril = T({ { 1, 1 }, { 0, 1 } }) }) end, { op, 'scaleTril', 'lower triangular' }, 'not lower')
  H.fails(tester, function() D.Wishart(T({ 3, 4, 5 }), { scaleTril = L3:view(1, 3, 3):expand(2, 3, 3) }) end, { op, 'broadcast' }, 'batch')
  H.fails(tester, function() D.Wishart('3', S) end, { op, 'df', 'string' }, 'df type')
  H.fails(tester, function() D.Wishart(3, S):logProb(T({ { 1, 2 }, { 2, 1 } })) end, { op, 'value', 'positive-definite' }, 'value')
  H.fails(tester, function() D.Wishart(3, S):logProb(V3) end, { op, 'event shape' }, 'value size')
  H.fails(tester, function() D.Wishart(3, S):rsample({ 2 }, -1) end, { op, 'maxTryCorrection' }, 'maxTryCorrection')
  tester:asserteq(D.Wishart(3, S):support().desc, D.constraints.positiveDefinite.desc)
  tester:asserteq(D.Wishart(3, S).hasRsample, true)
end

local X3 = T({ { 1, 0, 0 }, { 0.6, 0.8, 0 }, { 0.2, 0.3, math.sqrt(1 - 0.13) } })

function tests.lkjValues()
  local l = D.LKJCholesky(3, T({ 0.5, 2 }))
  H.size_is(tester, l.batchShape, { 2 }, 'batch')
  H.size_is(tester, l.eventShape, { 3, 3 }, 'event')
  H.close(tester, l:logProb(X3), { -2.4613932133025367, -1.424176059403266 }, TOL, 'dim 3')
  -- The Cholesky factor of a 4 x 4 correlation matrix.
  local C4 = T({ { 1, 0.3, -0.2, 0.1 }, { 0.3, 1, 0.4, 0 }, { -0.2, 0.4, 1, 0.25 }, { 0.1, 0, 0.25, 1 } })
  H.close(tester, D.LKJCholesky(4, T({ 1.5 })):logProb(torch.linalg.cholesky(C4)), { -2.0437879279848437 }, TOL, 'dim 4')
  H.close(tester, D.LKJCholesky(2, T({ 1, 0.3, 3 })):logProb(T({ { 1, 0 }, { 0.6, 0.8 } })),
    { -0.6931471805599453, -1.2037022875030443, -0.9571127263944099 }, TOL, 'dim 2')
  H.close(tester, D.LKJCholesky(3):logProb(X3), { H.num(D.LKJCholesky(3, 1):logProb(X3)) }, 0, 'default concentration 1')
  -- dim 2: the density in L21 = r integrates to 1 (midpoint rule over (-1, 1)).
  local N = 100000
  local r = torch.linspace(-1 + 1 / N, 1 - 1 / N, N):double()
  local V = torch.zeros(N, 2, 2):double()
  V:select(3, 1):select(2, 1):fill(1)
  V:select(3, 1):select(2, 2):copy(r)
  V:select(3, 2):select(2, 2):copy(torch.sqrt(1 - torch.pow(r, 2)))
  for _, eta in ipairs({ 1, 1.7, 4 }) do
    H.close(tester, { num(torch.sum(torch.exp(D.LKJCholesky(2, T({ eta })):logProb(V)))) * 2 / N }, { 1 }, 1e-6, 'dim 2 normalized, eta ' .. eta)
  end
end

function tests.lkjSamples()
  torch.manualSeed(29)
  local n = 100000
  for _, c in ipairs({ { 2, 1 }, { 3, 0.5 }, { 4, 2 }, { 5, 1 } }) do
    local d, eta = c[1], c[2]
    local l = D.LKJCholesky(d, T({ eta }))
    local x = l:sample({ n })
    local tag = string.format('dim %d, eta %g', d, eta)
    H.size_is(tester, x, { n, 1, d, d }, tag .. ': size')
    x = x:select(2, 1)
    tester:assert(torch.all(D.constraints.corrCholesky.check(x)), tag .. ': corrCholesky')
    local C = torch.matmul(x, x:transpose(2, 3))
    tester:assertTensorEq(torch.diagonal(C, 0, -2, -1), torch.ones(n, d):double(), 1e-12, tag .. ': unit diagonal')
    -- Each correlation r has (r + 1) / 2 ~ Beta(b, b), b = eta - 1 + d / 2: mean 0, variance
    -- 1 / (2 eta + d - 1).
    local offs = {}
    for i = 2, d do for j = 1, i - 1 do offs[#offs + 1] = C:select(2, i):select(2, j):contiguous():view(n, 1) end end
    local r = torch.cat(offs, 2)
    local k = r:size(2)
    H.moments(tester, r, torch.zeros(1, k):double(), torch.ones(1, k):double() / (2 * eta + d - 1), 5, tag)
  end
  -- Normalization in dim 3: E_{LKJ(1.5)}[q(x) / p(x)] = 1 for q = LKJ(2).
  local p, q = D.LKJCholesky(3, T({ 1.5 })), D.LKJCholesky(3, T({ 2 }))
  local x = p:sample({ n })
  H.mc(tester, torch.exp(q:logProb(x) - p:logProb(x)), 1, 5, 'dim 3 normalization by importance sampling')
  local lb = D.LKJCholesky(3, T({ { 0.5, 1, 2 } }))
  H.size_is(tester, lb:sample({ 4 }), { 4, 1, 3, 3, 3 }, 'batched sample')
  H.size_is(tester, lb:expand({ 2, 3 }):sample(), { 2, 3, 3, 3 }, 'expand')
  torch.manualSeed(8)
  local a = lb:sample({ 3 })
  torch.manualSeed(8)
  tester:assertTensorEq(a, lb:sample({ 3 }), 0, 'reproducible')
end

function tests.lkjGradients()
  local c = T({ 0.5, 2 }):requiresGrad()
  local f = function(t) return torch.sum(D.LKJCholesky(3, t):logProb(X3)) end
  f(c):backward()
  H.close(tester, c.grad, numgrad(f, T({ 0.5, 2 }), 1e-5):totable(), 1e-6, 'd logProb / d concentration')
  local v = X3:clone():requiresGrad()
  torch.sum(D.LKJCholesky(3, T({ 1.5 }), { validateArgs = false }):logProb(v)):backward()
  local nv = numgrad(function(t) return torch.sum(D.LKJCholesky(3, T({ 1.5 }), { validateArgs = false }):logProb(t)) end, X3)
  H.close(tester, v.grad, nv:view(9):totable(), 1e-6, 'd logProb / d value')
  tester:asserteq(D.LKJCholesky(3).hasRsample, false)
  H.fails(tester, function() D.LKJCholesky(3):rsample() end, { 'distributions.LKJCholesky', 'rsample' }, 'no rsample')
end

function tests.lkjErrors()
  local op = 'distributions.LKJCholesky'
  H.fails(tester, function() D.LKJCholesky(1) end, { op, 'dim must be an integer >= 2, got 1' }, 'dim 1')
  H.fails(tester, function() D.LKJCholesky(2.5) end, { op, 'dim', '2.5' }, 'fractional dim')
  H.fails(tester, function() D.LKJCholesky('3') end, { op, 'dim' }, 'dim type')
  H.fails(tester, function() D.LKJCholesky(3, 0) end, { op, 'concentration', 'positive' }, 'concentration')
  H.fails(tester, function() D.LKJCholesky(3, -1) end, { op, 'concentration', '-1' }, 'negative concentration')
  H.fails(tester, function() D.LKJCholesky(3):logProb(torch.eye(3):double() * 2) end, { op, 'value', 'unit norm' }, 'rows')
  H.fails(tester, function() D.LKJCholesky(3):logProb(torch.eye(2):double()) end, { op, 'event shape' }, 'size')
  tester:asserteq(tostring(D.LKJCholesky(3, T({ 1, 2 }))), 'LKJCholesky(concentration: torch.DoubleTensor of size 2)')
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  local w = D.Wishart(T({ 4, 6.5 }), { scaleTril = L3 })
  local wg = D.Wishart(T({ 4, 6.5 }):to('cuda'), { scaleTril = L3:to('cuda') })
  tester:assertTensorEq(wg:logProb(V3:to('cuda')):double(), w:logProb(V3), 1e-10, 'Wishart logProb')
  tester:assertTensorEq(wg:entropy():double(), w:entropy(), 1e-10, 'Wishart entropy')
  torch.manualSeed(3)
  local x = wg:sample({ 20000 })
  tester:asserteq(x:device():sub(1, 4), 'cuda', 'Wishart draws on the device')
  H.moments(tester, x:double(), w:mean(), w:variance(), 5, 'Wishart cuda moments')
  local lg = D.LKJCholesky(3, T({ 0.5, 2 }):to('cuda'))
  tester:assertTensorEq(lg:logProb(X3:to('cuda')):double(), D.LKJCholesky(3, T({ 0.5, 2 })):logProb(X3), 1e-10, 'LKJ logProb')
  local y = lg:sample({ 1000 })
  tester:asserteq(y:device():sub(1, 4), 'cuda', 'LKJ draws on the device')
  tester:assert(torch.all(D.constraints.corrCholesky.check(y)), 'LKJ cuda corrCholesky')
end

tester:add(tests)
tester:run()
