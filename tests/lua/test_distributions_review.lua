-- Regression tests from the review of torch.distributions' transforms, TransformedDistribution
-- families, StudentT/FisherSnedecor, VonMises, ContinuousBernoulli, Multinomial/NegativeBinomial,
-- MixtureSameFamily and their KLs: each test names the bug it pins down.
local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/distributions_check.lua')
local D = torch.distributions
local tester = torch.Tester()
local tests = torch.TestSuite()
local T = torch.DoubleTensor

-- a against the values of tensor b (same element count), within tol.
local function same(a, b, tol, msg)
  local flat = b:contiguous():view(b:nElement()):double()
  local e = {}
  for i = 1, flat:nElement() do e[i] = flat[i] end
  H.close(tester, a, e, tol, msg)
end

-- torch.save / torch.load through a temporary file.
local function roundtrip(obj)
  local path = os.tmpname()
  torch.save(path, obj)
  local back = torch.load(path)
  os.remove(path)
  return back
end

-- Transforms keep their domain and codomain (constraints, whose check is a closure) on the
-- instance: torch.save refused every Affine, Compose, Independent, Reshape, Cat, Stack and
-- CumulativeDistribution transform, and so every Gumbel, Weibull, Pareto, Kumaraswamy and
-- TransformedDistribution with an affine part (Note [Saving transforms]).
function tests.saveAndLoadTransforms()
  local x = T({ { 0.3, -0.2, 0.5 }, { 1.1, 0.4, -0.7 } })
  local cases = {
    { 'Affine', D.AffineTransform(T({ 1, 2, 3 }), 2, 1), x },
    { 'Compose', D.ComposeTransform({ D.ExpTransform(), D.AffineTransform(1, -2) }), x },
    { 'Independent', D.IndependentTransform(D.SigmoidTransform(), 1), x },
    { 'Reshape', D.ReshapeTransform({ 3 }, { 3, 1 }), x },
    { 'Cat', D.CatTransform({ D.ExpTransform(), D.TanhTransform() }, -1, { 2, 1 }), x },
    { 'Stack', D.StackTransform({ D.ExpTransform(), D.SoftplusTransform() }, 1), x },
    { 'CDF', D.CumulativeDistributionTransform(D.Normal(0.5, 2)), x },
    { 'Power', D.PowerTransform(T({ 2, 0.5, -1 })), torch.exp(x) },
    { 'StickBreaking', D.StickBreakingTransform(), x },
    { 'CorrCholesky', D.CorrCholeskyTransform(), x },
    { 'bijectTo(greaterThan)', D.bijectTo(D.constraints.greaterThan(T({ 1, 2, 3 }))), x },
    { 'bijectTo(interval)', D.bijectTo(D.constraints.interval(-1, 3)), x },
    { 'inverse', D.AffineTransform(1, 3):inv(), x },
  }
  for _, c in ipairs(cases) do
    local name, t, v = c[1], c[2], c[3]
    local back = roundtrip(t)
    tester:asserteq(torch.typename(back), torch.typename(t), name .. ' class')
    local y = t(v)
    same(back(v), y, 1e-15, name .. ' forward')
    if t.bijective then
      same(back:inv()(y), t:inv()(y), 1e-12, name .. ' inverse')
      same(back:logAbsDetJacobian(v, y), t:logAbsDetJacobian(v, y), 1e-12, name .. ' logAbsDetJacobian')
    end
    tester:asserteq(back.domain.desc, t.domain.desc, name .. ' domain')
    tester:asserteq(back.codomain.eventDim, t.codomain.eventDim, name .. ' codomain eventDim')
    same(back.codomain.check(y):double(), t.codomain.check(y):double(), 0, name .. ' codomain check')
  end
  -- An inverse and its base refer to each other: the cycle survives.
  local a = D.ExpTransform()
  local back = roundtrip(a:inv())
  tester:assert(rawequal(back:inv():inv(), back), 'inverse cycle')
  -- A constraint without a kind cannot be described: an error naming the transform.
  local odd = D.ExpTransform()
  odd.codomain = { desc = 'odd', check = function(v) return torch.gt(v, 0) end, eventDim = 0 }
  local path = os.tmpname()
  H.fails(tester, function() torch.save(path, odd) end, { '[distributions.ExpTransform]', 'cannot save the constraint "odd"' },
    'ad-hoc constraint')
  os.remove(path)
end

function tests.saveAndLoadTransformedFamilies()
  local cases = {
    { D.Gumbel(T({ 0, 1 }), 2), T({ 0.3, 2 }) },
    { D.Weibull(T({ 1, 2 }), 1.5), T({ 0.3, 2 }) },
    { D.Pareto(T({ 1, 2 }), 3), T({ 1.5, 2.5 }) },
    { D.Kumaraswamy(T({ 2, 0.5 }), 3), T({ 0.3, 0.6 }) },
    { D.HalfCauchy(T({ 1, 2 })), T({ 0.3, 2 }) },
    { D.LogisticNormal(T({ 0.1, -0.2 }), 1), T({ 0.2, 0.3, 0.5 }) },
    { D.RelaxedBernoulli(0.5, T({ 0.2, 0.7 })), T({ 0.3, 0.6 }) },
    { D.TransformedDistribution(D.Normal(T({ 0, 1 }), 1), { D.TanhTransform(), D.AffineTransform(1, 2) }), T({ 0.3, 2 }) },
    { D.StudentT(T({ 3, 70 }), 1, 2), T({ 0.3, 2 }) },
    { D.MixtureSameFamily(D.Categorical(T({ 0.3, 0.7 })), D.Gumbel(T({ -1, 1 }), 1)), T({ 0.3 }) },
  }
  for _, c in ipairs(cases) do
    local d, v = c[1], c[2]
    local name = torch.typename(d)
    local back = roundtrip(d)
    same(back:logProb(v), d:logProb(v), 1e-14, name .. ' logProb after load')
    -- torch.deserialize(torch.serialize(d)) is the deep copy (clone) of a distribution.
    local copy = torch.deserialize(torch.serialize(d))
    same(copy:logProb(v), d:logProb(v), 1e-14, name .. ' logProb of the copy')
    H.size_is(tester, copy:sample({ 2 }), d:sample({ 2 }):size():totable(), name .. ' sample of the copy')
  end
  -- The cache is not saved: a loaded transform recomputes.
  local t = D.ExpTransform({ cacheSize = 1 })
  local x = T({ 0, 1 })
  t(x)
  local back = roundtrip(t)
  tester:asserteq(back._cx, nil, 'no cached x after load')
  tester:asserteq(back.cacheSize, 1, 'cacheSize kept')
end

-- With cacheSize 1, t(x) returned the y cached for x even after x changed in place (and
-- t:inv()(y) the stale x after y changed): the cache now checks the version counters.
function tests.transformCacheSeesInPlaceChanges()
  local t = D.ExpTransform({ cacheSize = 1 })
  local x = T({ 0, 1 })
  local y = t(x)
  tester:assert(rawequal(t(x), y), 'cache hit while unchanged')
  tester:assert(rawequal(t:inv()(y), x), 'inverse cache hit while unchanged')
  x:add(1)
  H.close(tester, t(x), { math.exp(1), math.exp(2) }, 1e-15, 'x changed in place')
  local y2 = t(x)
  y2:narrow(1, 1, 1):fill(1)   -- through a view
  H.close(tester, t:inv()(y2), { 0, 2 }, 1e-15, 'y changed through a view')
  -- A TransformedDistribution's rsample/logProb pair still uses the cache (no atanh at +-1).
  local d = D.TransformedDistribution(D.Normal(T({ 0 }), 1), D.TanhTransform({ cacheSize = 1 }))
  torch.manualSeed(3)
  local s = d:rsample({ 4 })
  local lp = d:logProb(s)
  tester:assert(torch.all(torch.eq(lp, lp)), 'finite logProb through the cache')
  s:fill(0.5)
  same(d:logProb(s), torch.DoubleTensor(4, 1):fill(H.num(d:logProb(T({ 0.5 })))), 1e-12, 'after fill, recomputed')
end

-- lgamma(df/2) - lgamma((df+1)/2) cancelled for large df: StudentT(1e15):logProb was off by 3
-- (in double; PyTorch 1.13 too), and by 0.25 at df = 1e6 in float.
function tests.studentTLargeDf()
  -- mpmath (40 digits): loc 0.3, scale 1.7, value 0.9.
  local df = T({ 0.5, 3, 63, 64, 65, 1e3, 1e8, 1e12, 1e15 })
  local d = D.StudentT(df, 0.3, 1.7)
  H.close(tester, d:logProb(0.9), { -2.00799962963902, -1.61288425395857, -1.51674476874625, -1.51666831496179,
    -1.51659421295634, -1.51215892216571, -1.51185052437511, -1.51185052129137, -1.51185052129106 }, 1e-13, 'logProb')
  H.close(tester, d:entropy(), { 4.19735566716602, 2.30410582292546, 1.96550211412768, 1.96525217647239,
    1.96500995761997, 1.95056703410005, 1.94956679426684, 1.94956678426784, 1.94956678426684 }, 2e-11, 'entropy')
  -- mpmath: df 1e6 and 1e7, loc 0, scale 1, value 0.5.
  local f = D.StudentT(torch.FloatTensor({ 1e6, 1e7 })):logProb(0.5)
  tester:asserteq(f:type(), 'torch.FloatTensor', 'float stays float')
  H.close(tester, f, { -1.0439388925796598, -1.0439385691421725 }, 2e-6, 'float logProb')
  -- Differentiable on both sides of the switch to the series (df = 64).
  tester:assert(torch.autograd.gradcheck(function(v)
    local s = D.StudentT(v, 0.3, 1.7)
    return s:logProb(T({ 0.2, 0.9, -3, 2 })), s:entropy()
  end, { T({ 60, 64.5, 70, 2 }):requiresGrad() }, { eps = 1e-4, atol = 1e-6, rtol = 1e-4 }), 'gradcheck')
end

-- PowerTransform's sign was +1 for every exponent (as PyTorch 1.13): the cdf of X^-1 came out as
-- 1 minus the true one.
function tests.powerTransformSign()
  local d = D.TransformedDistribution(D.Exponential(T({ 1 })), D.PowerTransform(-1))
  -- P(1/X <= y) = P(X >= 1/y) = exp(-1/y).
  H.close(tester, d:cdf(T({ 2, 0.5 })), { math.exp(-0.5), math.exp(-2) }, 1e-14, 'cdf')
  H.close(tester, d:icdf(T({ math.exp(-0.5) })), { 2 }, 1e-12, 'icdf')
  local dt = D.TransformedDistribution(D.Exponential(T({ 1, 1 })), D.PowerTransform(T({ -1, 2 })))
  H.close(tester, dt:cdf(T({ 2, 4 })), { math.exp(-0.5), 1 - math.exp(-2) }, 1e-14, 'tensor exponent')
  tester:asserteq(D.PowerTransform(2).sign, 1, 'positive exponent')
  tester:asserteq(D.PowerTransform(-0.5):inv().sign, -1, 'inverse')
end

-- TransformedDistribution's cdf/icdf flipped through sign * (value - 0.5) + 0.5 (PyTorch's
-- _monotonize_cdf), which rounds value to a multiple of eps / 2 even where the sign is a tensor
-- of ones (an affine part with a tensor scale): Gumbel(0, 1):cdf(-4) = exp(-e^4) = 1.9e-24 came
-- out 0 (PyTorch 1.13 too), Weibull's float icdf(1e-10) 0 (Note [Monotone cdf without rounding]).
function tests.monotoneCdfKeepsSmallValues()
  local exact = math.exp(-math.exp(4))
  H.close(tester, D.Gumbel(T({ 0 }), 1):cdf(T({ -4 })), { exact }, 1e-12 / exact, 'Gumbel cdf, double')
  local gf = D.Gumbel(torch.FloatTensor({ 0 }), 1):cdf(torch.FloatTensor({ -4 }))
  tester:assertle(math.abs(H.num(gf) / exact - 1), 1e-5, 'Gumbel cdf, float')
  -- Weibull(1, 2): icdf(p) = sqrt(-log1p(-p)), 1e-5 (to 5e-11 relative) at p = 1e-10.
  local wf = D.Weibull(torch.FloatTensor({ 1 }), 2):icdf(torch.FloatTensor({ 1e-10 }))
  tester:assertle(math.abs(H.num(wf) / 1e-5 - 1), 1e-6, 'Weibull icdf, float')
  -- A decreasing part still flips, a zero scale gives 0.5 (as PyTorch), per element.
  local d = D.TransformedDistribution(D.Normal(T({ 0, 0, 0 }), 1), D.AffineTransform(0, T({ 1, -1, 0 })))
  local phi = H.num(D.Normal(T({ 0 }), 1):cdf(T({ 0.5 })))
  H.close(tester, d:cdf(torch.Tensor(2, 3):fill(0.5):double()), { phi, phi, 0.5, phi, phi, 0.5 }, 1e-15, 'signs per element')
  tester:assert(torch.autograd.gradcheck(function(s, v)
    return D.TransformedDistribution(D.Normal(T({ 0, 0 }), 1), D.AffineTransform(0.3, s)):cdf(v)
  end, { T({ 1.5, -2 }):requiresGrad(), T({ 0.2, 0.7 }):requiresGrad() }), 'gradcheck')
end

-- Kumaraswamy:logProb went through the power transforms (as PyTorch 1.13), NaN at both ends of
-- the support for every a and b: Kumaraswamy(1, 3) has density 3 at 0 (Note [Kumaraswamy logProb]).
function tests.kumaraswamyAtTheEnds()
  local a, b = T({ 1, 2, 0.5 }), T({ 3, 1, 2 })
  local k = D.Kumaraswamy(a, b)
  H.close(tester, k:logProb(T({ 0 })), { math.log(3), -math.huge, math.huge }, 1e-15, 'at 0')
  H.close(tester, k:logProb(T({ 1 })), { -math.huge, math.log(2), -math.huge }, 1e-15, 'at 1')
  -- Inside: PyTorch 1.13's values (the change of variables) are unchanged.
  H.close(tester, D.Kumaraswamy(T({ 2 }), T({ 3 })):logProb(T({ 0.1, 0.9 })), { -0.530926295473, -1.63506346007 }, 1e-11, 'inside')
  tester:asserteq(D.Kumaraswamy(torch.FloatTensor({ 2 }), 3):logProb(0.5):type(), 'torch.FloatTensor', 'float stays float')
  tester:assert(torch.autograd.gradcheck(function(c1, c0, v) return D.Kumaraswamy(c1, c0):logProb(v) end,
    { T({ 2, 0.5 }):requiresGrad(), T({ 3, 1.5 }):requiresGrad(), T({ 0.3, 0.8 }):requiresGrad() }), 'gradcheck')
  H.fails(tester, function() k:logProb(1.5) end, { '[distributions.Kumaraswamy] value must be in [0, 1]' }, 'support')
end

-- Families built on another distribution reported its name: LogisticNormal(0, -1) said
-- "[distributions.Normal]", RelaxedBernoulli "[distributions.LogitRelaxedBernoulli]",
-- RelaxedOneHotCategorical "[distributions.Categorical]" (Note [Errors name the family]), and
-- sample/rsample of every TransformedDistribution the base's name.
function tests.errorsNameTheFamily()
  H.fails(tester, function() D.LogisticNormal(T({ 0, 1 }), -1) end, { '[distributions.LogisticNormal] scale must be positive' }, 'LogisticNormal')
  H.fails(tester, function() D.LogisticNormal('a', 1) end, { '[distributions.LogisticNormal] loc must be' }, 'LogisticNormal loc')
  H.fails(tester, function() D.RelaxedBernoulli(-1, 0.3) end, { '[distributions.RelaxedBernoulli] temperature must be positive' }, 'RelaxedBernoulli')
  H.fails(tester, function() D.RelaxedBernoulli(1) end, { '[distributions.RelaxedBernoulli] expected exactly one' }, 'RelaxedBernoulli none')
  H.fails(tester, function() D.RelaxedOneHotCategorical(1, T({ -1, 2 })) end, { '[distributions.RelaxedOneHotCategorical] probs must be non-negative' }, 'ROC')
  H.fails(tester, function() D.ExpRelaxedCategorical(1, T({ -1, 2 })) end, { '[distributions.ExpRelaxedCategorical] probs must be non-negative' }, 'ERC')
  H.fails(tester, function() D.CorrCholeskyTransform()(torch.zeros(2)) end, { '[distributions.CorrCholeskyTransform]', 'triangular' }, 'CorrCholesky x')
  H.fails(tester, function() D.CorrCholeskyTransform():inv()(torch.zeros(2, 3)) end, { '[distributions.CorrCholeskyTransform]', 'not square' }, 'CorrCholesky y')
  -- A bad sample shape was reported by the base (Uniform for Gumbel, Gamma for FisherSnedecor).
  H.fails(tester, function() D.Gumbel(0, 1):sample('x') end, { '[distributions.Gumbel] sample shape' }, 'Gumbel sample')
  H.fails(tester, function() D.HalfNormal(1):rsample({ -1 }) end, { '[distributions.HalfNormal] sample shape entry 1' }, 'HalfNormal rsample')
  H.fails(tester, function() D.LogisticNormal(T({ 0, 1 }), 1):sample({ 1.5 }) end, { '[distributions.LogisticNormal] sample shape' }, 'LogisticNormal sample')
  H.fails(tester, function() D.RelaxedBernoulli(1, 0.3):rsample('x') end, { '[distributions.RelaxedBernoulli] sample shape' }, 'RelaxedBernoulli rsample')
  H.fails(tester, function() D.FisherSnedecor(3, 4):sample('x') end, { '[distributions.FisherSnedecor] sample shape' }, 'FisherSnedecor sample')
  -- Shapes that do not broadcast with an affine or power part: "[broadcastShapes] ...".
  H.fails(tester, function() D.TransformedDistribution(D.Normal(torch.zeros(2), 1), D.AffineTransform(0, torch.ones(3))) end,
    { '[distributions.AffineTransform] shapes [2], [], [3] do not broadcast' }, 'Affine shapes')
  H.fails(tester, function() D.AffineTransform(0, torch.ones(3)):logAbsDetJacobian(torch.ones(2), torch.ones(2)) end,
    { '[distributions.AffineTransform] shapes' }, 'Affine logAbsDetJacobian')
  H.fails(tester, function() D.PowerTransform(torch.ones(3)):forwardShape({ 2 }) end, { '[distributions.PowerTransform] shapes' }, 'Power shapes')
  -- Valid arguments are unaffected.
  H.size_is(tester, D.Gumbel(0, 1):sample(3), { 3 }, 'a number as sample shape')
  tester:asserteq(torch.typename(D.LogisticNormal(T({ 0, 1 }), 1)), 'torch.distributions.LogisticNormal')
end

-- CorrCholeskyTransform's logAbsDetJacobian asked trilMatrixToVec for diag -2 of a 1 x 1 factor
-- (out of range): an error for the empty vector PyTorch maps onto [[1]].
function tests.corrCholeskyOneByOne()
  local t = D.CorrCholeskyTransform()
  local x = T(0)
  local y = t(x)
  H.close(tester, y, { 1 }, 0, '1 x 1 factor')
  H.close(tester, t:logAbsDetJacobian(x, y), { 0 }, 0, 'log |det J|')
  -- 2 x 2 and 3 x 3 against PyTorch 1.13.
  local x2 = T({ 0.3 })
  H.close(tester, t:logAbsDetJacobian(x2, t(x2)), { -0.08868153985188054 }, 1e-14, '2 x 2')
  local x3 = T({ 0.3, -0.2, 0.5 })
  H.close(tester, t:logAbsDetJacobian(x3, t(x3)), { -0.3885147692884577 }, 1e-14, '3 x 3')
end

-- The fixes above on a CUDA device (skipped without one).
function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  local function dev(x) return x:to('cuda') end
  local t = D.ExpTransform({ cacheSize = 1 })
  local x = dev(T({ 0, 1 }))
  t(x)
  x:add(1)
  H.close(tester, t(x):double(), { math.exp(1), math.exp(2) }, 1e-15, 'cache versions')
  H.close(tester, D.StudentT(dev(T({ 1e12 })), 0.3, 1.7):logProb(dev(T({ 0.9 }))):double(), { -1.51185052129137 }, 1e-13, 'StudentT')
  local exact = math.exp(-math.exp(4))
  H.close(tester, D.Gumbel(dev(T({ 0 })), dev(T({ 1 }))):cdf(dev(T({ -4 }))):double(), { exact }, 1e-12 / exact, 'Gumbel cdf')
  local d = D.TransformedDistribution(D.Exponential(dev(T({ 1 }))), D.PowerTransform(dev(T({ -1 }))))
  H.close(tester, d:cdf(dev(T({ 2 }))):double(), { math.exp(-0.5) }, 1e-14, 'PowerTransform sign')
  local back = roundtrip(D.Gumbel(dev(T({ 0, 1 })), 2))
  H.close(tester, back:logProb(dev(T({ 0.3, 2 }))):double(), { H.num(D.Gumbel(T({ 0 }), 2):logProb(T({ 0.3 }))),
    H.num(D.Gumbel(T({ 1 }), 2):logProb(T({ 2 }))) }, 1e-14, 'save and load')
end

-- positiveDefinite is PyTorch's Cholesky test: symmetric, and the factorization succeeds
function tests.positiveDefiniteByCholesky()
  local c = D.constraints.positiveDefinite
  local m = torch.DoubleTensor({ { { 2, 0 }, { 0, 1 } }, { { 1, 2 }, { 2, 1 } }, { { 1, 0 }, { 0, 0 } }, { { 1, 0.5 }, { 0, 1 } } })
  local got = c.check(m)
  tester:assertTensorEq(got:double(), torch.DoubleTensor({ 1, 0, 0, 0 }), 0, 'PD, indefinite, singular, not symmetric')
  local many = torch.eye(3):double():view(1, 3, 3):expand(20000, 3, 3):contiguous()
  tester:asserteq(c.check(many):sum(), 20000, 'a large batch of identities')
end

tester:add(tests)
tester:run()
