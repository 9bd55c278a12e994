-- Regression tests from the fresh-eyes review of torch.distributions' core families against
-- PyTorch 1.13 (values computed there in float64 unless said otherwise): each test names the bug
-- it pins down.
local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/distributions_check.lua')
local D = torch.distributions
local tester = torch.Tester()
local tests = torch.TestSuite()
local T = torch.DoubleTensor
local inf, nan = math.huge, 0 / 0

-- Normal:icdf went through erfinv(2p - 1): 2p - 1 rounds away the tail (and Tocha's erfinv is
-- itself inaccurate near +-1), so icdf(1e-12) was -7.03441 for -7.034484 (Note [Normal icdf by
-- ndtri]). Expected: PyTorch 1.13's torch.special.ndtri (mpmath agrees to 1e-16).
function tests.normalIcdfTails()
  local p = T({ 1e-12, 1 - 1e-12, 1e-300, 0.3 })
  local z = { -7.034483825301131, 7.0344869100478356, -37.0470962993612, -0.5244005127080409 }
  H.close(tester, D.Normal(0, 1):icdf(p), z, 1e-14, 'Normal(0, 1):icdf')
  H.close(tester, D.Normal(T({ 2 }), T({ 3 })):icdf(T({ 1e-12 })), { 2 + 3 * z[1] }, 1e-14, 'Normal(2, 3):icdf')
  H.close(tester, D.LogNormal(0, 1):icdf(T({ 1e-12 })), { math.exp(z[1]) }, 1e-14, 'LogNormal:icdf')
  -- ordinary values, PyTorch 1.13's icdf
  H.close(tester, D.LogNormal(T({ 0.5 }), T({ 2 })):icdf(T({ 0.3 })), { 0.5776419733993454 }, 1e-14, 'LogNormal(0.5, 2):icdf(0.3)')
  H.close(tester, D.HalfNormal(T({ 2 })):icdf(T({ 0.3 })), { 0.7706409328151353 }, 1e-14, 'HalfNormal(2):icdf(0.3)')
  H.close(tester, D.Normal(0, 1):icdf(T({ 0, 1, 0.5 })), { -inf, inf, 0 }, 0, 'icdf at 0, 1/2 and 1')
  -- float parameters stay float, and are accurate in float
  local f = D.Normal(torch.FloatTensor({ 0 }), 1):icdf(torch.FloatTensor({ 1e-7 }))
  tester:asserteq(torch.typename(f), 'torch.FloatTensor', 'float icdf type')
  H.close(tester, f, { -5.199337582605575 }, 1e-6, 'float icdf(1e-7)')
  -- d icdf / dp = 1 / density, d / dloc = 1, d / dscale = ndtri(p)
  local loc, scale, q = T({ 0.5 }):requiresGrad(), T({ 2 }):requiresGrad(), T({ 0.01 }):requiresGrad()
  torch.sum(D.Normal(loc, scale):icdf(q)):backward()
  local x = 0.5 + 2 * -2.3263478740408408
  local density = math.exp(H.num(D.Normal(T({ 0.5 }), T({ 2 })):logProb(T({ x }))))
  H.close(tester, q.grad, { 1 / density }, 1e-9, 'dicdf/dp')
  H.close(tester, loc.grad, { 1 }, 1e-12, 'dicdf/dloc')
  H.close(tester, scale.grad, { -2.3263478740408408 }, 1e-12, 'dicdf/dscale')
end

-- torch.erfinv (C++) lost the tail: erfinv(1 - 2e-12) was 4.97408254 and erfinv(-1 + 1e-15)
-- -5.4707 (its single-precision start refined by two Newton steps on erf(r) - x, which keeps only
-- absolute digits there); now Newton on log erfc. Expected: the root of erfc(|r|) = 1 - |x| for the
-- double x given, by bisection on libm's erfc (PyTorch 1.13's -5.67622742 is off at x = -1 + 1e-15).
function tests.erfinvTails()
  local y = torch.erfinv(T({ 2 * 1e-12 - 1, -1 + 1e-15, -0.999999 }))
  H.close(tester, y, { -4.974133396262827, -5.675915739744712, -3.4589107372754984 }, 1e-13, 'erfinv tails')
end

-- Normal:cdf was (1 + erf(z / sqrt 2)) / 2, which cancels to 0 in the lower tail (PyTorch 1.13
-- too): cdf(-10) is 7.6e-24 (mpmath), now through erfc.
function tests.normalCdfLowerTail()
  H.close(tester, D.Normal(T({ 0 }), T({ 1 })):cdf(T({ -10 })), { 7.6198530241605261e-24 }, 1e-36, 'cdf(-10)')
  tester:assertle(math.abs(H.num(D.Normal(T({ 0 }), T({ 1 })):cdf(T({ -30 }))) / 4.9067139271481871e-198 - 1), 1e-12, 'cdf(-30) relative')
  -- PyTorch 1.13's values at ordinary points
  H.close(tester, D.Normal(T({ 0 }), T({ 1 })):cdf(T({ 1.96, 0.3, -3 })), { 0.9750021048517796, 0.6179114221889526, 0.0013498980316301035 },
    1e-15, 'cdf')
  H.close(tester, D.Normal(T({ 0 }), T({ 1 })):cdf(T({ -inf, inf })), { 0, 1 }, 0, 'cdf at +-inf')
  -- float parameters: float precision, no underflow to 0
  local f = D.Normal(torch.FloatTensor({ 0 }), 1):cdf(torch.FloatTensor({ -10 }))
  tester:asserteq(torch.typename(f), 'torch.FloatTensor', 'float cdf type')
  tester:assertle(math.abs(H.num(f) / 7.6198530241605261e-24 - 1), 1e-5, 'float cdf(-10)')
  -- gradient: the density
  local v = T({ 0.7, -1.2 }):requiresGrad()
  torch.sum(D.Normal(T({ 0.2 }), T({ 1.5 })):cdf(v)):backward()
  local dens = torch.exp(D.Normal(T({ 0.2 }), T({ 1.5 })):logProb(T({ 0.7, -1.2 })))
  H.close(tester, v.grad, { dens[1], dens[2] }, 1e-12, 'dcdf/dvalue')
end

-- stddev was sqrt(variance()), which overflows once the variance passes the largest double:
-- Laplace(0, 1e300):stddev() was inf. PyTorch 1.13 defines these stddevs directly.
function tests.stddevWithoutOverflow()
  H.close(tester, D.Laplace(0, T({ 1e300 })):stddev(), { 1.4142135623730952e+300 }, 1e-15, 'Laplace')
  H.close(tester, D.Exponential(T({ 1e-300 })):stddev(), { 9.999999999999999e+299 }, 1e-15, 'Exponential')
  H.close(tester, D.Uniform(T({ -1e300 }), T({ 1e300 })):stddev(), { 5.773502691896258e+299 }, 1e-15, 'Uniform')
  H.close(tester, D.Laplace(0, T({ 2 })):stddev(), { 2.8284271247461903 }, 1e-15, 'Laplace ordinary')
  H.close(tester, D.Exponential(T({ 4 })):stddev(), { 0.25 }, 1e-15, 'Exponential ordinary')
  H.close(tester, D.Uniform(T({ -1 }), T({ 2 })):stddev(), { 0.8660254037844387 }, 1e-15, 'Uniform ordinary')
  -- gradient of the stddev in the parameter
  local s = T({ 3 }):requiresGrad()
  torch.sum(D.Laplace(0, s):stddev()):backward()
  H.close(tester, s.grad, { math.sqrt(2) }, 1e-15, 'dstddev/dscale')
end

-- Infinite logits made the binary cross-entropy inf - inf: Bernoulli({logits = inf}):logProb(0)
-- was NaN (PyTorch 1.13: -inf), logProb(1) NaN (0), its entropy NaN (0); ContinuousBernoulli
-- logits = inf gave NaN inside (0, 1) (PyTorch: -inf). Note [Infinite logits].
function tests.infiniteLogits()
  local nv = { validateArgs = false }
  local b = D.Bernoulli(nil, T({ inf, -inf }))
  H.close(tester, b:logProb(T({ { 0 }, { 1 } })), { -inf, 0, 0, -inf }, 0, 'Bernoulli logProb at +-inf logits')
  H.close(tester, b:entropy(), { 0, 0 }, 0, 'Bernoulli entropy at +-inf logits')
  H.close(tester, D.Geometric(nil, T({ inf })):entropy(), { 0 }, 0, 'Geometric entropy at logits inf')
  H.close(tester, D.Geometric(nil, T({ inf })):logProb(T({ 0, 1 })), { 0, -inf }, 0, 'Geometric logProb at logits inf')
  -- PyTorch 1.13: -inf, -inf inside (0, 1); its NaN at 1 is the clamped density log C(1 - eps) here
  local cb = D.ContinuousBernoulli(nil, T({ inf }), nv)
  H.close(tester, cb:logProb(T({ 0, 0.3 })), { -inf, -inf }, 0, 'ContinuousBernoulli logits inf')
  local cb2 = D.ContinuousBernoulli(nil, T({ -inf }), nv)
  H.close(tester, cb2:logProb(T({ 0.3, 1 })), { -inf, -inf }, 0, 'ContinuousBernoulli logits -inf')
  -- the softplus with its kink at 0 fixed (Note [Softplus kink]) stays exact at infinite logits:
  -- success probability 0 gives no successes (PyTorch 1.13: NaN)
  H.close(tester, D.NegativeBinomial(3, nil, T({ -inf }), nv):logProb(T({ 1, 4 })), { -inf, -inf }, 0, 'NegativeBinomial logits -inf')
  H.close(tester, D.Binomial(10, nil, T({ -inf }), nv):logProb(T({ 1, 10 })), { -inf, -inf }, 0, 'Binomial logits -inf')
  H.close(tester, D.NegativeBinomial(3, nil, T({ 40 }), nv):logProb(T({ 0 })), { -120 }, 1e-12, 'NegativeBinomial logits 40')
  -- finite logits unchanged (PyTorch 1.13's values), and the gradient stays finite next to an
  -- infinite logit
  H.close(tester, D.Bernoulli(nil, T({ 3 })):logProb(T({ 0, 1 })), { -3.048587351573742, -0.04858735157374206 }, 1e-14,
    'finite logits')
  local l = T({ inf, 0.3, -inf }):requiresGrad()
  torch.sum(D.Bernoulli(nil, l):logProb(T({ 1, 1, 0 }))):backward()
  H.close(tester, l.grad, { 0, 1 - 1 / (1 + math.exp(-0.3)), 0 }, 1e-14, 'dlogProb/dlogits')
end

-- Beta and Dirichlet had no mode (PyTorch 1.13 has both): values from PyTorch 1.13, including its
-- picks where the mode is not unique (NaN for a flat density, the first vertex when every
-- concentration is below 1).
function tests.betaDirichletMode()
  local a = T({ 0.5, 1, 2, 1, 2, 0.5, 3, 1e-3 })
  local b = T({ 0.5, 1, 3, 5, 0.5, 2, 1, 1e-3 })
  H.close(tester, D.Beta(a, b):mode(), { 1, nan, 1 / 3, 0, 1, 0, 1, 1 }, 1e-15, 'Beta mode')
  local c = T({ { 0.5, 0.3, 0.2 }, { 2, 3, 4 }, { 1, 1, 1 }, { 0.5, 2, 3 }, { 1, 2, 0.5 }, { 0.9, 0.9, 1 } })
  H.close(tester, D.Dirichlet(c):mode(), { 1, 0, 0, 1 / 6, 1 / 3, 0.5, nan, nan, nan, 0, 1 / 3, 2 / 3, 0, 1, 0, nan, nan, nan },
    1e-15, 'Dirichlet mode')
  H.size_is(tester, D.Dirichlet(torch.ones(4, 3)):expand({ 2, 4 }):mode(), { 2, 4, 3 }, 'expanded Dirichlet mode')
  tester:asserteq(torch.typename(D.Beta(torch.FloatTensor({ 2 }), 3):mode()), 'torch.FloatTensor', 'float Beta mode')
  -- the mode maximizes the density
  local d = D.Beta(T({ 2.5 }), T({ 4 }))
  local m = H.num(d:mode())
  local lp = function(x) return H.num(d:logProb(T({ x }))) end
  tester:assert(lp(m) > lp(m - 1e-4) and lp(m) > lp(m + 1e-4), 'Beta mode is the argmax')
  -- gradient: d/da (a - 1) / (a + b - 2) = (b - 1) / (a + b - 2)^2, finite where both are < 1
  local ca, cb = T({ 2.5, 0.5 }):requiresGrad(), T({ 4, 0.5 }):requiresGrad()
  torch.sum(D.Beta(ca, cb):mode()):backward()
  H.close(tester, ca.grad, { 3 / 4.5 ^ 2, 0 }, 1e-14, 'dmode/da')
  H.close(tester, cb.grad, { -1.5 / 4.5 ^ 2, 0 }, 1e-14, 'dmode/db')
end

-- enumerateSupport (PyTorch's enumerate_support) and hasEnumerateSupport were missing.
function tests.enumerateSupport()
  local b = D.Bernoulli(torch.FloatTensor({ 0.2, 0.7 }))
  tester:assert(b.hasEnumerateSupport, 'Bernoulli has it')
  local e = b:enumerateSupport()
  H.size_is(tester, e, { 2, 2 }, 'Bernoulli')
  tester:asserteq(torch.typename(e), 'torch.FloatTensor', 'Bernoulli values in the parameters type')
  H.close(tester, e, { 0, 0, 1, 1 }, 0, 'Bernoulli values')
  H.size_is(tester, b:enumerateSupport(false), { 2, 1 }, 'Bernoulli unexpanded')
  H.size_is(tester, D.Bernoulli(0.3):enumerateSupport(), { 2 }, 'scalar Bernoulli')
  -- the masses over the support sum to 1
  local lp = b:logProb(e)
  H.close(tester, torch.sum(torch.exp(lp:double()), 1), { 1, 1 }, 1e-6, 'Bernoulli masses')
  local c = D.Categorical(torch.ones(2, 3))
  local ce = c:enumerateSupport()
  tester:asserteq(torch.typename(ce), 'torch.LongTensor', 'Categorical values are indices')
  H.close(tester, ce, { 1, 1, 2, 2, 3, 3 }, 0, 'Categorical: 1-based categories')
  H.close(tester, torch.sum(torch.exp(c:logProb(ce)), 1), { 1, 1 }, 1e-6, 'Categorical masses')
  local o = D.OneHotCategorical(T({ { 0.2, 0.3, 0.5 }, { 1, 1, 1 } }))
  local oe = o:enumerateSupport()
  H.size_is(tester, oe, { 3, 2, 3 }, 'OneHotCategorical')
  H.close(tester, oe:select(2, 1), { 1, 0, 0, 0, 1, 0, 0, 0, 1 }, 0, 'OneHotCategorical values')
  H.size_is(tester, o:enumerateSupport(false), { 3, 1, 3 }, 'OneHotCategorical unexpanded')
  H.close(tester, torch.sum(torch.exp(o:logProb(oe)), 1), { 1, 1 }, 1e-12, 'OneHotCategorical masses')
  local bi = D.Binomial(T({ { 3 }, { 3 } }), T({ 0.2, 0.7 }))
  local be = bi:enumerateSupport()
  H.size_is(tester, be, { 4, 2, 2 }, 'Binomial')
  H.close(tester, torch.sum(torch.exp(bi:logProb(be)), 1), { 1, 1, 1, 1 }, 1e-12, 'Binomial masses')
  H.fails(tester, function() D.Binomial(T({ 3, 4 }), 0.5):enumerateSupport() end,
    { 'distributions.Binomial', 'same totalCount' }, 'inhomogeneous totalCount')
  H.fails(tester, function() b:enumerateSupport('yes') end, { 'distributions.Bernoulli', 'expand must be a boolean' }, 'bad expand')
  -- Independent: only without reinterpreted dims, as PyTorch
  local i0 = D.Independent(b, 0)
  tester:assert(i0.hasEnumerateSupport, 'Independent(_, 0) has it')
  H.size_is(tester, i0:enumerateSupport(), { 2, 2 }, 'Independent(_, 0)')
  local i1 = D.Independent(b, 1)
  tester:assert(not i1.hasEnumerateSupport, 'Independent(_, 1) has not')
  H.fails(tester, function() i1:enumerateSupport() end, { 'distributions.Independent', 'cartesian product' }, 'Independent(_, 1)')
  -- expanded distributions enumerate over the new batch shape; the others refuse
  H.size_is(tester, D.Bernoulli(0.3):expand({ 4 }):enumerateSupport(), { 2, 4 }, 'expanded')
  for _, d in ipairs({ D.Normal(0, 1), D.Poisson(2), D.Geometric(0.5), D.Multinomial(3, torch.ones(2)) }) do
    tester:assert(not d.hasEnumerateSupport, torch.typename(d) .. ' has no enumerateSupport')
    H.fails(tester, function() d:enumerateSupport() end, { d:_op(), 'enumerateSupport' }, torch.typename(d))
  end
end

-- Uniform's support was [low, high), so that Uniform(0, 1):cdf(1) was an error (PyTorch 1.13: 1,
-- its support is constraints.interval) and logProb(high) too (PyTorch: -inf).
function tests.uniformSupportClosed()
  local u = D.Uniform(T({ 0 }), T({ 2 }))
  H.close(tester, u:cdf(T({ 2, 0, 1 })), { 1, 0, 0.5 }, 0, 'cdf at the ends')
  H.close(tester, u:logProb(T({ 2, 0 })), { -inf, -math.log(2) }, 1e-15, 'logProb at the ends')
  H.fails(tester, function() u:logProb(T({ 2.5 })) end, { 'distributions.Uniform', 'value', '2.5' }, 'outside')
  H.fails(tester, function() u:cdf(T({ -1e-9 })) end, { 'distributions.Uniform', 'value' }, 'below')
  local nv = D.Uniform(0, 2, { validateArgs = false })
  H.close(tester, nv:logProb(T({ 3, -1 })), { -inf, -inf }, 0, 'outside without validation')
end

-- Gamma's support was the positive reals; PyTorch 1.13's is the non-negative ones, so that
-- Gamma(1, 2):logProb(0), an exponential density at 0, was an error (and Chi2(2)'s).
function tests.gammaSupportIncludesZero()
  -- PyTorch 1.13's values
  H.close(tester, D.Gamma(T({ 1 }), T({ 2 })):logProb(T({ 0 })), { 0.6931471805599453 }, 1e-15, 'Gamma(1, 2) at 0')
  H.close(tester, D.Chi2(T({ 2 })):logProb(T({ 0 })), { -0.6931471805599453 }, 1e-15, 'Chi2(2) at 0')
  H.close(tester, D.Gamma(T({ 3 }), T({ 2 })):logProb(T({ 0 })), { -inf }, 0, 'Gamma(3, 2) at 0')
  H.close(tester, D.Gamma(T({ 0.5 }), T({ 2 })):logProb(T({ 0 })), { inf }, 0, 'Gamma(0.5, 2) at 0')
  H.fails(tester, function() D.Gamma(1, 2):logProb(-1) end, { 'distributions.Gamma', 'value', '-1' }, 'negative value')
  H.fails(tester, function() D.Chi2(2):logProb(-1) end, { 'distributions.Chi2', 'value' }, 'negative value for Chi2')
end

-- KL(Normal || Normal) took log((p.scale / q.scale)^2) after squaring: inf once the ratio
-- underflows (scales 1e300 apart in double, 1e20 in float) and NaN (inf - inf) once it overflows.
-- Note [Normal KL log ratio]. Expected: mpmath (PyTorch 1.13: inf, NaN, NaN).
function tests.normalKlExtremeScales()
  local p = D.Normal(T({ 0, 1e10, 0 }), T({ 1e-300, 1, 1e300 }))
  local q = D.Normal(T({ 0, 0, 0 }), T({ 1, 1e-300, 1 }))
  H.close(tester, D.klDivergence(p, q), { 690.275527898214, inf, inf }, 1e-14, 'double')
  local pf = D.Normal(torch.FloatTensor({ 0 }), torch.FloatTensor({ 1e-20 }))
  local qf = D.Normal(torch.FloatTensor({ 0 }), torch.FloatTensor({ 1 }))
  H.close(tester, D.klDivergence(pf, qf), { 45.551701859880914 }, 1e-6, 'float')
  -- ordinary values (PyTorch 1.13's) and the gradient (against central differences)
  local ps, qs = T({ 0.5, 2 }), T({ 1.5, 0.7 })
  local kl = D.klDivergence(D.Normal(T({ 0.3, -1 }), ps), D.Normal(T({ 1, 0 }), qs))
  H.close(tester, kl, { 0.7630567331125542, 3.5522186918278527 }, 1e-14, 'ordinary')
  local g = ps:clone():requiresGrad()
  torch.sum(D.klDivergence(D.Normal(T({ 0.3, -1 }), g), D.Normal(T({ 1, 0 }), qs))):backward()
  local fd = H.numgrad(function(x)
    return torch.sum(D.klDivergence(D.Normal(T({ 0.3, -1 }), x), D.Normal(T({ 1, 0 }), qs)))
  end, ps:clone())
  H.close(tester, g.grad, { fd[1], fd[2] }, 1e-7, 'dKL/dscale')
end

-- Gradients at probs = 1/2 (logits 0) exactly: softplus as max(x, 0) + log1p(exp(-|x|)) has
-- autograd derivative 1 at 0 (for sigmoid(0) = 1/2), so Bernoulli(0.5):logProb(1) had d/dprobs 0
-- (for 2) and its entropy d/dprobs 2 (for 0); Binomial, NegativeBinomial and ContinuousBernoulli
-- likewise (Note [Softplus kink]). Expected: PyTorch 1.13's gradients.
function tests.gradientsAtOneHalf()
  local function grad(f, vals)
    local x = T(vals):requiresGrad()
    torch.sum(f(x)):backward()
    return x.grad
  end
  H.close(tester, grad(function(p) return D.Bernoulli(p):logProb(T({ 1, 0 })) end, { 0.5, 0.5 }), { 2, -2 }, 1e-12, 'Bernoulli')
  H.close(tester, grad(function(l) return D.Bernoulli(nil, l):logProb(T({ 1, 0 })) end, { 0, 0 }), { 0.5, -0.5 }, 1e-12,
    'Bernoulli logits')
  H.close(tester, grad(function(p) return D.Bernoulli(p):entropy() end, { 0.5, 0.3 }), { 0, 0.8472978603872036 }, 1e-12,
    'Bernoulli entropy')
  H.close(tester, grad(function(p) return D.Binomial(3, p):logProb(T({ 1, 3 })) end, { 0.5, 0.5 }), { -2, 6 }, 1e-12, 'Binomial')
  H.close(tester, grad(function(p) return D.NegativeBinomial(3, p):logProb(T({ 1, 4 })) end, { 0.5, 0.5 }), { -4, 2 }, 1e-12,
    'NegativeBinomial')
  H.close(tester, grad(function(p) return D.ContinuousBernoulli(p):logProb(T({ 1, 0.25 })) end, { 0.5, 0.5 }), { 2, -1 }, 1e-9,
    'ContinuousBernoulli')
  H.close(tester, grad(function(p) return D.Geometric(p):entropy() end, { 0.5 }), { -2.772588722239781 }, 1e-12,
    'Geometric entropy')
  -- against central differences just off 1/2 (the kink is only at 1/2 itself)
  for _, p0 in ipairs({ 0.5, 0.5 + 1e-3 }) do
    local g = grad(function(p) return D.Binomial(5, p):logProb(T({ 2 })) end, { p0 })
    local fd = H.numgrad(function(x) return H.num(D.Binomial(5, x):logProb(T({ 2 }))) end, T({ p0 }))
    H.close(tester, g, { fd[1] }, 1e-6, 'Binomial vs finite differences at ' .. p0)
  end
  -- the values are unchanged: PyTorch 1.13's
  H.close(tester, D.Binomial(T({ 3 }), T({ 0.5 })):logProb(T({ 1 })), { -0.9808292530117262 }, 1e-14, 'Binomial value')
  H.close(tester, D.Bernoulli(T({ 0.5 })):entropy(), { 0.6931471805599453 }, 1e-15, 'Bernoulli entropy value')
end

-- Geometric(1):logProb(0) masked the product v log(1 - p) after the log1p: its gradient met
-- 0 * inf, d/dprobs NaN for PyTorch 1.13's 1.
function tests.geometricGradientAtProbsOne()
  local p = T({ 1, 0.3, 1 }):requiresGrad()
  local lp = D.Geometric(p):logProb(T({ 0, 0, 2 }))
  H.close(tester, lp, { 0, -1.2039728043259361, -inf }, 1e-14, 'values')
  torch.sum(lp):backward()
  H.close(tester, p.grad, { 1, 3.3333333333333335, -inf }, 1e-14, 'd/dprobs')
end

-- torch.xlogy's backward (C++, core/autograd/formulas/pointwise_math.cpp vjp_xlogy) gave d/dx = 0
-- wherever x == 0; PyTorch 1.13 gives log(y) there (0 only where y <= 0 too). So the logProb
-- gradient in the concentration was wrong at concentration 1 exactly: Gamma(1, rate), Beta(1, b),
-- Dirichlet(ones) (the uniform Dirichlet), Kumaraswamy(1, b). Expected: PyTorch 1.13's.
function tests.xlogyGradientAtZero()
  local x, y = T({ 0, 0, 1, 0 }):requiresGrad(), T({ 0.5, 0, 0, 2 }):requiresGrad()
  torch.sum(torch.xlogy(x, y)):backward()
  H.close(tester, x.grad, { -0.6931471805599453, 0, -inf, 0.6931471805599453 }, 1e-15, 'xlogy d/dx')
  local a = T({ 1, 2 }):requiresGrad()
  torch.sum(D.Gamma(a, 1):logProb(T({ 0.5 }))):backward()
  H.close(tester, a.grad, { -0.11593151565841253, -1.1159315156584122 }, 1e-12, 'Gamma d/dconcentration')
  local c = T({ 1, 1, 1 }):requiresGrad()
  D.Dirichlet(c):logProb(T({ 0.2, 0.3, 0.5 })):backward()
  H.close(tester, c.grad, { -0.1094379124341005, 0.29602719567406366, 0.8068528194400545 }, 1e-12, 'Dirichlet')
end

-- Geometric:entropy() read the logits that probs_to_logits clamps to [eps, 1 - eps]: at probs
-- 1e-12 in float it was 119209 for 28.63 (PyTorch 1.13 too). Note [Geometric entropy from probs].
-- Expected: mpmath; the gradient PyTorch 1.13's.
function tests.geometricEntropySmallProbs()
  H.close(tester, D.Geometric(torch.FloatTensor({ 1e-12, 1e-30 })):entropy(), { 28.631021115928046, 70.077552789821368 }, 1e-6,
    'float, below eps')
  -- mpmath (PyTorch 1.13 is off by 3e-12 relative at 1e-5: 12.512920464913616)
  H.close(tester, D.Geometric(T({ 0.2, 0.7, 1e-5, 1 })):entropy(), { 2.5020121176909393, 0.87266328864984791, 12.512920464953562, 0 },
    1e-14, 'double')
  H.close(tester, D.Geometric(nil, T({ -50, -inf, inf })):entropy(), { 51, inf, 0 }, 1e-13, 'from logits')
  local p = T({ 0.5, 0.2, 1 }):requiresGrad()
  torch.sum(D.Geometric(p):entropy()):backward()
  H.close(tester, p.grad, { -2.772588722239781, -5.578588782855243, 0 }, 1e-12, 'd/dprobs (PyTorch 1.13 for the first two)')
end

-- Float Beta and Dirichlet draws of small concentrations: the standard gamma draws underflowed
-- (probability about tiny^a) and two underflowed draws normalized to 1/2: Beta(0.01, 0.01) in
-- float drew exactly 0.5 18% of the time (PyTorch 1.13: never; it draws in double). Note
-- [Normalized gamma draws in double]. Expected mass of (0.01, 0.99): mpmath's betainc.
function tests.smallConcentrationFloatDraws()
  torch.manualSeed(123)
  local n = 20000
  local x = D.Beta(torch.FloatTensor({ 0.01 }), torch.FloatTensor({ 0.01 })):sample({ n })
  tester:asserteq(torch.typename(x), 'torch.FloatTensor', 'float draws')
  x = x:double()
  tester:asserteq(torch.sum(torch.eq(x, 0.5):double()), 0, 'no draw at exactly 1/2')
  local inside = torch.logicalAnd(torch.gt(x, 0.01), torch.lt(x, 0.99)):double()
  H.mc(tester, inside:view(n), 0.0447584771676259, 5, 'mass of (0.01, 0.99)')
  local d = D.Dirichlet(torch.FloatTensor({ 0.01, 0.01, 0.01 })):sample({ n })
  tester:asserteq(torch.typename(d), 'torch.FloatTensor', 'float Dirichlet draws')
  local spread = (torch.max(d, 2) - torch.min(d, 2)):double()
  tester:asserteq(torch.sum(torch.lt(spread, 1e-3):double()), 0, 'no draw at (1/3, 1/3, 1/3)')
  H.close(tester, torch.sum(d:double(), 2):view(n)[{ { 1, 5 } }], { 1, 1, 1, 1, 1 }, 1e-6, 'on the simplex')
  -- gradients still reach float concentrations, in their type
  local a = torch.FloatTensor({ 0.5, 2 }):requiresGrad()
  torch.sum(D.Beta(a, 1):rsample({ 5 })):backward()
  tester:asserteq(torch.typename(a.grad), 'torch.FloatTensor', 'gradient type')
  tester:assert(torch.all(torch.eq(a.grad, a.grad)) and torch.all(torch.ne(a.grad, 0)), 'finite, non-zero gradient')
end

-- Errors from a distribution built on another named the inner one: OneHotCategorical's
-- constructor and sample errors said "[distributions.Categorical]", LogNormal:rsample's and
-- Independent's sample errors "[distributions.Normal]". (Independent:logProb leaves the value to
-- its base, whose name its errors keep: test_distributions_multivariate.lua's choice.)
function tests.errorsNameTheOuterFamily()
  local T2 = T({ 0.5, 0.5 })
  H.fails(tester, function() D.OneHotCategorical(T({ -1, 1 })) end, { '[distributions.OneHotCategorical]', 'non-negative' }, 'negative probs')
  H.fails(tester, function() D.OneHotCategorical() end, { '[distributions.OneHotCategorical]', 'exactly one of probs or logits' }, 'no parameter')
  H.fails(tester, function() D.OneHotCategorical(nil, T({ 0 / 0, 1 })) end, { '[distributions.OneHotCategorical]', 'logits' }, 'NaN logits')
  H.fails(tester, function() D.OneHotCategorical(T2):sample({ -1 }) end, { '[distributions.OneHotCategorical]', 'sample shape' }, 'OneHot sample')
  H.fails(tester, function() D.LogNormal(0, 1):sample({ -1 }) end, { '[distributions.LogNormal]', 'sample shape' }, 'LogNormal sample')
  H.fails(tester, function() D.LogNormal(0, 1):rsample({ 1.5 }) end, { '[distributions.LogNormal]', 'sample shape' }, 'LogNormal rsample')
  local ind = D.Independent(D.Normal(T2, 1), 1)
  H.fails(tester, function() ind:sample({ -1 }) end, { '[distributions.Independent]', 'sample shape' }, 'Independent sample')
  H.fails(tester, function() ind:rsample({ -1 }) end, { '[distributions.Independent]', 'sample shape' }, 'Independent rsample')
  -- the happy paths are unchanged
  H.size_is(tester, D.OneHotCategorical(T2):sample({ 3 }), { 3, 2 }, 'OneHot sample')
  H.size_is(tester, ind:rsample({ 4 }), { 4, 2 }, 'Independent rsample')
  H.close(tester, ind:logProb(T({ 1, 2 })), { -3.0878770664093453 }, 1e-14, 'Independent logProb (PyTorch 1.13)')
end

-- HalfNormal and HalfCauchy took cdf = 2 base:cdf(x) - 1 and icdf = base:icdf((p + 1) / 2)
-- (PyTorch 1.13's), which cancel near 0: HalfNormal(1):cdf(1e-10) kept 6 digits, icdf(1e-12) 4,
-- and HalfCauchy's icdf near 1 lost 4 digits (icdf(1) was 1.6e16 for inf). Note [Half cdf without
-- cancellation]. Expected: mpmath.
function tests.halfFamiliesNearZero()
  local hn, hc = D.HalfNormal(T({ 1 })), D.HalfCauchy(T({ 1 }))
  H.close(tester, hn:cdf(T({ 1e-10, 0, 1 })), { 7.9788456080286538e-11, 0, 0.68268949213708590 }, 1e-15, 'HalfNormal cdf')
  tester:assertle(math.abs(H.num(hn:cdf(T({ 1e-10 }))) / 7.9788456080286538e-11 - 1), 1e-14, 'HalfNormal cdf(1e-10) relative')
  H.close(tester, hn:icdf(T({ 0.3, 0.7, 0.5, 0, 1 })), { 0.38532046640756761, 1.0364333894937895, 0.67448975019608174, 0, inf },
    1e-15, 'HalfNormal icdf')
  tester:assertle(math.abs(H.num(hn:icdf(T({ 1e-12 }))) / 1.2533141373155002e-12 - 1), 1e-14, 'HalfNormal icdf(1e-12)')
  H.close(tester, hn:icdf(T({ 0.999999999999 })), { 7.1305098928792724 }, 1e-14, 'HalfNormal icdf near 1')
  tester:assertle(math.abs(H.num(hc:cdf(T({ 1e-10 }))) / 6.3661977236758137e-11 - 1), 1e-14, 'HalfCauchy cdf(1e-10)')
  H.close(tester, hc:cdf(T({ 0, 1, inf })), { 0, 0.5, 1 }, 1e-15, 'HalfCauchy cdf')
  H.close(tester, hc:icdf(T({ 0.7, 0.5, 0, 1 })), { 1.9626105055051502, 1, 0, inf }, 1e-15, 'HalfCauchy icdf')
  H.close(tester, hc:icdf(T({ 0.999999999999 })), { 636633855803.5593 }, 1e-14, 'HalfCauchy icdf near 1')
  tester:assertle(math.abs(H.num(hc:icdf(T({ 1e-12 }))) / 1.5707963267948966e-12 - 1), 1e-14, 'HalfCauchy icdf(1e-12)')
  -- cdf(icdf(p)) = p, and the gradients (central differences) on both sides of 1/2
  local p = T({ 0.01, 0.3, 0.8, 0.99 })
  H.close(tester, D.HalfNormal(T({ 2.5 })):cdf(D.HalfNormal(T({ 2.5 })):icdf(p)), { 0.01, 0.3, 0.8, 0.99 }, 1e-14, 'HalfNormal round trip')
  H.close(tester, D.HalfCauchy(T({ 2.5 })):cdf(D.HalfCauchy(T({ 2.5 })):icdf(p)), { 0.01, 0.3, 0.8, 0.99 }, 1e-14, 'HalfCauchy round trip')
  for _, C in ipairs({ D.HalfNormal, D.HalfCauchy }) do
    local s, q = T({ 2 }):requiresGrad(), p:clone():requiresGrad()
    torch.sum(C(s):icdf(q)):backward()
    local fdp = H.numgrad(function(x) return torch.sum(C(T({ 2 })):icdf(x)) end, p:clone())
    local fds = H.numgrad(function(x) return torch.sum(C(x):icdf(p)) end, T({ 2 }))
    H.close(tester, q.grad, { fdp[1], fdp[2], fdp[3], fdp[4] }, 1e-6, 'dicdf/dp')
    H.close(tester, s.grad, { fds[1] }, 1e-7, 'dicdf/dscale')
    local v = T({ 0.3, 2 }):requiresGrad()
    torch.sum(C(T({ 2 })):cdf(v)):backward()
    local dens = torch.exp(C(T({ 2 })):logProb(T({ 0.3, 2 })))
    H.close(tester, v.grad, { dens[1], dens[2] }, 1e-12, 'dcdf/dvalue is the density')
  end
end

tester:add(tests)
tester:run()
