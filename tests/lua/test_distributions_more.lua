-- torch.distributions, fourth group: StudentT, FisherSnedecor, VonMises, ContinuousBernoulli,
-- Multinomial, NegativeBinomial and the KL divergences involving them (kl_families2.lua), against
-- PyTorch 1.13's values (float64) or mpmath; gradchecks of the densities; argument errors, expand.
-- Sampling and rsample gradients: test_distributions_more_sampling.lua.
local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/distributions_check.lua')
local D = torch.distributions
local tester = torch.Tester()
local tests = torch.TestSuite()
local T = torch.DoubleTensor
local TOL = 1e-12
local nan, inf = 0 / 0, math.huge

-- Expected values are PyTorch 1.13's (torch.set_default_dtype(torch.float64)) unless marked
-- mpmath (mpmath 1.2.1, 30 digits).
function tests.studentT()
  local s = D.StudentT(T({ 3, 0.5, 1.5, 30 }), T({ 1, 2, 3, -1 }), T({ 2, 1, 0.5, 3 }))
  local v = T({ 0.5, 1, 2, 10 })
  H.close(tester, s:logProb(v), { -1.7352746045889265, -2.1344921424125918, -2.0076068344347715, -7.765309429345312 }, TOL, 'logProb')
  -- torch.digamma's ~1e-11 absolute error bounds the entropies' agreement.
  H.close(tester, s:entropy(), { 2.466624752423237, 3.666727416103855, 1.4565122872847038, 2.551155618455316 }, 1e-10, 'entropy')
  H.close(tester, s:mean(), { 1.0, nan, 3.0, -1.0 }, TOL, 'mean')
  H.close(tester, s:variance(), { 12.0, nan, inf, 9.642857142857142 }, TOL, 'variance')
  H.close(tester, s:mode(), { 1, 2, 3, -1 }, 0, 'mode')
  tester:asserteq(s:support().desc, D.constraints.real.desc, 'support')
  -- Defaults loc = 0, scale = 1, and named arguments.
  H.close(tester, D.StudentT(3):logProb(0), { H.num(D.StudentT({ df = 3, loc = 0, scale = 1 }):logProb(0)) }, 0, 'defaults')
  tester:asserteq(D.StudentT(3).hasRsample, true)
end

function tests.fisherSnedecor()
  local f = D.FisherSnedecor(T({ 3, 1, 5, 0.7 }), T({ 5, 6, 10, 4.5 }))
  local v = T({ 1.2, 0.3, 2, 0.05 })
  H.close(tester, f:logProb(v), { -1.2165159841630746, -0.5291974281816425, -1.8201234988216672, 0.5737775944140455 }, TOL, 'logProb')
  H.close(tester, f:mean(), { 1.6666666666666667, 1.5, 1.25, 1.8 }, TOL, 'mean')
  H.close(tester, f:mode(), { 0.23809523809523808, nan, 0.5, nan }, TOL, 'mode')
  H.close(tester, f:variance(), { 11.11111111111111, 11.25, 1.3541666666666667, 59.245714285714286 }, TOL, 'variance')
  -- Not in PyTorch 1.13: -integral f log f by mpmath quadrature (the closed form agrees to 1e-16
  -- in mpmath); torch.digamma's ~1e-11 absolute error bounds the agreement.
  H.close(tester, f:entropy(), { 1.428144231855172, 1.0444538792193971, 1.1307598049090604, 0.723544714539482 }, 1e-10, 'entropy (mpmath)')
  local g = D.FisherSnedecor(T({ 3, 3 }), T({ 2, 4 }))
  H.close(tester, g:mean(), { nan, 2 }, TOL, 'mean for df2 <= 2')
  H.close(tester, g:variance(), { nan, nan }, 0, 'variance for df2 <= 4')
  tester:asserteq(f:support().desc, D.constraints.positive.desc, 'support')
end

function tests.vonMises()
  local locs, ks = T({ 0, 1, -2, 3 }), T({ 0.5, 4, 1e-3, 50 })
  local vm = D.VonMises(locs, ks)
  local v = T({ 0.5, 1, 2, -3 })
  -- Exact (mpmath besseli) to double precision; PyTorch 1.13's polynomial fits are off by up to
  -- 3e-7 (logProb) and 6e-5 (variance at k = 50) (Note [VonMises Bessel functions]).
  H.close(tester, vm:logProb(v), { -1.4606355046496404, -0.2628498619248048, -1.8385309600301936, -0.9569382357628491 }, 1e-13, 'logProb (mpmath)')
  H.close(tester, vm:logProb(v), { -1.460635479499537, -0.2628498812191573, -1.838530960030044, -0.9569379393621631 }, 1e-6, 'logProb (PyTorch)')
  H.close(tester, vm:variance(), { 0.757500387419198, 0.13647738897544942, 0.9995000000625, 0.010051032621502247 }, 1e-13, 'variance (mpmath)')
  H.close(tester, vm:variance(), { 0.7575003832967004, 0.13647740531006647, 0.9995000000625, 0.010050398295787133 }, 1e-4, 'variance (PyTorch)')
  H.close(tester, vm:entropy(), { 1.7781769793044258, 0.8087594178266024, 1.8378768164093924, -0.5319958006437375 }, 1e-13, 'entropy (mpmath)')
  H.close(tester, vm:mean(), { 0, 1, -2, 3 }, 0, 'mean')
  H.close(tester, vm:mode(), { 0, 1, -2, 3 }, 0, 'mode')
  -- Angles are read modulo 2 pi.
  H.close(tester, vm:logProb(v + 2 * math.pi), vm:logProb(v):totable(), 1e-12, 'periodic')
  -- Large concentrations do not overflow (i0e).
  tester:assert(H.num(D.VonMises(0, 1e4):logProb(0)) < math.huge, 'k = 1e4 finite')
end

function tests.continuousBernoulli()
  local cb = D.ContinuousBernoulli(T({ 0.3, 0.5, 0.9995, 0.0, 0.4995, 0.7 }))
  local v = T({ 0.25, 0.6, 0.9, 0.1, 0.3, 1.0 })
  H.close(tester, cb:logProb(v), { 0.18208834184492562, 0.0, 1.268661326482997, -0.01963454091194894, 0.0003998334665613612,
    0.3939128069417264 }, TOL, 'logProb')
  H.close(tester, cb:cdf(v), { 0.33406325475211274, 0.6, 0.467381168917726, 0.9727952948969963, 0.3, 1.0 }, TOL, 'cdf')
  H.close(tester, cb:icdf(T({ 0.2, 0.5, 0.7, 0.9, 0.3, 0.05 })), { 0.14323281419453507, 0.5, 0.9530997757330838,
    0.06388323259398768, 0.3, 0.07616981483710827 }, 1e-10, 'icdf')
  H.close(tester, cb:entropy(), { -0.02938620223212912, 0.0, -1.0325055651054704, -2.5847307979997716, -1.666667611699424e-07,
    -0.029386202232128955 }, TOL, 'entropy')
  H.close(tester, cb:mean(), { 0.43022250114382865, 0.5, 0.8689285183883564, 0.027744135401710616, 0.4998333332888889,
    0.5697774988561712 }, TOL, 'mean')
  H.close(tester, cb:variance(), { 0.08042515220619428, 0.08333333333333333, 0.016810435475666942, 0.0007697370491882425,
    0.08333331666667512, 0.0804251522061945 }, TOL, 'variance')
  H.close(tester, cb:mode(), { 0, nan, 1, 0, 0, 1 }, 0, 'mode')
  local cbl = D.ContinuousBernoulli(nil, T({ -2, 0.001, 30, -0.5 }))
  local w = T({ 0.3, 0.7, 0.99, 0 })
  H.close(tester, cbl:logProb(w), { 0.23856063842880415, 0.00019995833333363855, 3.101231399598121, 0.2396049490072435 }, 1e-12, 'logits logProb')
  H.close(tester, cbl.probs, { 0.11920292202211755, 0.5002499999791666, 0.9999999999999065, 0.3775406687981454 }, TOL, 'logits probs')
  H.close(tester, cbl:mean(), { 0.3434823572503344, 0.5000833333319444, 0.9666678005786691, 0.45850591746320135 }, 1e-12, 'logits mean')
  H.close(tester, cbl:entropy(), { -0.15159592392813556, -4.1666665562267724e-08, -2.4012313996009276, -0.010351990275642764 }, 1e-12, 'logits entropy')
  -- icdf inverts cdf; cdf is 0 below 0 and 1 above 1; lims widen the Taylor region.
  local c = D.ContinuousBernoulli(T({ 0.1, 0.8 }))
  local u = T({ 0.35, 0.9 })
  H.close(tester, c:cdf(c:icdf(u)), u:totable(), 1e-12, 'cdf(icdf(u))')
  H.close(tester, D.ContinuousBernoulli(T({ 0.1, 0.8 }), { validateArgs = false }):cdf(T({ -1, 2 })), { 0, 1 }, 0, 'cdf outside [0, 1]')
  local wide = D.ContinuousBernoulli(T({ 0.45 }), { lims = { 0.4, 0.6 } })
  H.close(tester, wide:icdf(T({ 0.3 })), { 0.3 }, 0, 'lims: uniform inside')
end

function tests.multinomial()
  local m = D.Multinomial(6, T({ { 0.2, 0.3, 0.5 }, { 1, 1, 0 } }))
  H.size_is(tester, m.batchShape, { 2 }, 'batchShape')
  H.size_is(tester, m.eventShape, { 3 }, 'eventShape')
  H.close(tester, m:logProb(T({ { 1, 2, 3 }, { 3, 3, 0 } })), { -2.0024805005437063, -1.1631508098056802 }, TOL, 'logProb')
  H.close(tester, m:entropy(), { 2.790656747469694, 1.6173633156271299 }, 1e-12, 'entropy')
  H.close(tester, m:mean(), { 1.2, 1.8, 3.0, 3.0, 3.0, 0.0 }, TOL, 'mean')
  H.close(tester, m:variance(), { 0.96, 1.26, 1.5, 1.5, 1.5, 0.0 }, TOL, 'variance')
  -- logits with -inf: a zero count contributes 0; a positive one makes the value impossible.
  local ml = D.Multinomial(4, nil, T({ { 0.5, -1, 2, -inf } }), { validateArgs = false })
  H.close(tester, ml:logProb(T({ { 1, 0, 3, 0 }, { 0, 0, 2, 2 } })), { -1.0789508255087377, -inf }, TOL, 'logits logProb')
  H.close(tester, ml:entropy(), { 1.509829533237296 }, 1e-12, 'logits entropy')
  H.close(tester, D.Multinomial(0, T({ 0.5, 0.5 })):entropy(), { 0 }, 0, 'totalCount 0 entropy')
  H.close(tester, D.Multinomial({ probs = T({ 0.5, 0.5 }) }):mean(), { 0.5, 0.5 }, 0, 'totalCount defaults to 1')
  H.close(tester, D.Multinomial(3, T({ 1, 1 })):support().check(T({ { 1, 2 }, { 2, 2 } })):double(), { 1, 0 }, 0, 'support: sum <= n')
end

function tests.negativeBinomial()
  local nb = D.NegativeBinomial(T({ 5, 0, 2.5, 1 }), T({ 0.3, 0.5, 0, 0.9 }))
  H.close(tester, nb:logProb(T({ 2, 0, 0, 7 })), { -1.483270127243324, 0, -5.551115123125795e-16, -3.04010870259883 }, TOL, 'logProb')
  H.close(tester, nb:mean(), { 2.1428571428571423, 0.0, 5.551115123125797e-16, 9.000000000000002 }, TOL, 'mean')
  H.close(tester, nb:mode(), { 1, 0, 0, 0 }, 0, 'mode')
  H.close(tester, nb:variance(), { 3.0612244897959173, 0.0, 5.5511151231257975e-16, 90.00000000000004 }, TOL, 'variance')
  local nbl = D.NegativeBinomial(T({ 3, 0.5 }), nil, T({ -1, 2.5 }))
  H.close(tester, nbl:logProb(T({ 4, 1 })), { -3.48478161152535, -2.06148178199877 }, TOL, 'logits logProb')
  H.close(tester, nbl:mean(), { 1.103638323514327, 6.091246980351737 }, TOL, 'logits mean')
  H.close(tester, nbl:variance(), { 1.509644173224165, 80.29782653164004 }, TOL, 'logits variance')
  H.close(tester, nbl:mode(), { 0, 0 }, 0, 'logits mode')
end

-- PyTorch 1.13's kl_divergence values.
function tests.klDivergences()
  local p = D.ContinuousBernoulli(T({ 0.3, 0.5, 0.8, 0.02 }))
  local q = D.ContinuousBernoulli(T({ 0.6, 0.2, 0.8, 0.4996 }))
  local kl = D.klDivergence
  H.close(tester, kl(p, q), { 0.06451926445321665, 0.07883084812988328, 0.0, 0.46015375980212847 }, 1e-12, 'CB || CB')
  H.close(tester, kl(D.Beta(T({ 2, 0.5, 1, 3 }), T({ 3, 0.5, 2, 1 })), q),
    { 0.28229388170266945, 0.32039532340037336, 0.5030270888764773, 0.4323457287534863 }, 1e-10, 'Beta || CB')
  H.close(tester, kl(p, D.Exponential(T({ 2, 0.5, 1, 3 }))),
    { 0.19668402395984108, 0.9431471805599453, 0.6884002656922105, 0.07031109277144487 }, 1e-12, 'CB || Exponential')
  H.close(tester, kl(p, D.Normal(T({ 0.3, -1, 0, 2 }), T({ 2, 0.5, 1, 0.1 }))),
    { 1.6536447974980408, 4.892458019311394, 1.2205652040001245, 156.87907195507813 }, 1e-12, 'CB || Normal')
  H.close(tester, kl(p, D.Uniform(T({ -1, -0.5, -2, -0.1 }), T({ 2, 1.5, 1.01, 3 }))),
    { 1.127998490900239, 0.6931471805599453, 1.178354531564143, 1.5919779793760291 }, 1e-12, 'CB || Uniform')
  H.close(tester, kl(D.Uniform(T({ 0.2, 0.01, 0.1, 0.5 }), T({ 0.7, 0.99, 0.3, 0.51 })), q),
    { 0.7202611570692063, 0.09903355544740289, 2.1041570688999514, 4.6051782926565075 }, 1e-11, 'Uniform || CB')
  -- Note [ContinuousBernoulli and Uniform bounds]: U(0, 1) is finite both ways (PyTorch: inf),
  -- -H(p) and -H(U) + E_U[-log q]; U(0.1, 1) misses part of [0, 1], U(0, 1.5) exceeds it.
  H.close(tester, kl(p, D.Uniform(0, 1)), (-p:entropy()):totable(), 1e-15, 'CB || U(0, 1)')
  H.close(tester, kl(p, D.Uniform(0.1, 1)), { inf, inf, inf, inf }, 0, 'CB || U(0.1, 1)')
  H.close(tester, kl(D.Uniform(0, 1.5), q), { inf, inf, inf, inf }, 0, 'U(0, 1.5) || CB')
  local lq = q:logProb(T({ 0.5 }))  -- finite, and U(0, 1) || CB = -E_U[log q]
  tester:assert(lq:nElement() == 4, 'logProb broadcast')
  H.close(tester, kl(D.Uniform(0, 1), q), (-q:_logNorm() - torch.log1p(-q.probs) - q.logits * 0.5):totable(), 1e-12, 'U(0, 1) || CB')
  -- The infinite pairs (the batch shapes broadcast).
  H.close(tester, kl(D.Normal(T({ 0, 1 }), 1), D.ContinuousBernoulli(0.3)), { inf, inf }, 0, 'Normal || CB')
  H.close(tester, kl(D.Exponential(T({ 1 })), q), { inf, inf, inf, inf }, 0, 'Exponential || CB')
  H.close(tester, kl(D.Gamma(2, 1), D.ContinuousBernoulli(0.3)), { inf }, 0, 'Gamma || CB')
  H.close(tester, kl(D.Chi2(3), D.ContinuousBernoulli(0.3)), { inf }, 0, 'Chi2 || CB (through Gamma)')
  H.close(tester, kl(D.Laplace(0, 1), D.ContinuousBernoulli(0.3)), { inf }, 0, 'Laplace || CB')
  if D.Pareto and D.Gumbel then  -- transformed_families.lua's
    H.close(tester, kl(D.ContinuousBernoulli(T({ 0.3, 0.6 })), D.Pareto(1, 2)), { inf, inf }, 0, 'CB || Pareto')
    H.close(tester, kl(D.Pareto(1, 2), D.ContinuousBernoulli(0.3)), { inf }, 0, 'Pareto || CB')
    H.close(tester, kl(D.Gumbel(0, 1), D.ContinuousBernoulli(0.3)), { inf }, 0, 'Gumbel || CB')
  end
  -- KL matches a Monte-Carlo estimate of E_p[log p - log q] (and is >= 0).
  torch.manualSeed(5)
  local pp, qq = D.ContinuousBernoulli(T({ 0.3 })), D.ContinuousBernoulli(T({ 0.9 }))
  local x = pp:sample({ 200000 })
  H.mc(tester, pp:logProb(x) - qq:logProb(x), H.num(kl(pp, qq)), 5, 'CB || CB Monte-Carlo')
  -- No closed forms for these in PyTorch 1.13 either.
  H.fails(tester, function() kl(D.StudentT(3), D.StudentT(4)) end, { 'no KL divergence registered', 'StudentT' }, 'StudentT')
end

-- Every differentiable path of the densities and moments, by torch.autograd.gradcheck.
function tests.gradchecks()
  -- eps 1e-4: torch.digamma's ~1e-11 absolute error is not smooth, and would dominate the
  -- central differences of the entropies at the default eps = 1e-6.
  local function gc(fn, inputs) return torch.autograd.gradcheck(fn, inputs, { eps = 1e-4, atol = 1e-6, rtol = 1e-4 }) end
  local function leaf(t) return T(t):requiresGrad() end
  gc(function(df, loc, scale)
    local d = D.StudentT(df, loc, scale)
    return d:logProb(T({ 0.5, 2 })), d:entropy(), d:variance()
  end, { leaf({ 3.5, 7 }), leaf({ 0.2, -1 }), leaf({ 1.5, 0.7 }) })
  gc(function(a, b)
    local d = D.FisherSnedecor(a, b)
    return d:logProb(T({ 0.8, 2.5 })), d:entropy(), d:mean(), d:mode(), d:variance()
  end, { leaf({ 3, 7.5 }), leaf({ 5, 9 }) })
  gc(function(loc, k)
    local d = D.VonMises(loc, k)
    return d:logProb(T({ 0.5, 2, -1 })), d:entropy(), d:variance()
  end, { leaf({ 0.3, -1, 2 }), leaf({ 0.4, 3, 20 }) })
  gc(function(p)
    local d = D.ContinuousBernoulli(p)
    return d:logProb(T({ 0.2, 0.9, 0.5 })), d:cdf(T({ 0.2, 0.9, 0.5 })), d:icdf(T({ 0.3, 0.6, 0.2 })), d:entropy(), d:mean(), d:variance()
  end, { leaf({ 0.2, 0.7, 0.45 }) })
  gc(function(l)
    local d = D.ContinuousBernoulli(nil, l)
    return d:logProb(T({ 0.2, 0.9 })), d:entropy()
  end, { leaf({ -1.5, 2 }) })
  gc(function(l)
    local d = D.Multinomial(5, nil, l)
    return d:logProb(T({ 1, 3, 1 })), d:entropy(), d:variance()
  end, { leaf({ 0.5, -1, 1 }) })
  gc(function(n, l)
    local d = D.NegativeBinomial(n, nil, l)
    return d:logProb(T({ 3, 0 })), d:mean(), d:variance()
  end, { leaf({ 2.5, 4 }), leaf({ -0.5, 1 }) })
  gc(function(a, b, p)
    return D.klDivergence(D.Beta(a, b), D.ContinuousBernoulli(p)), D.klDivergence(D.ContinuousBernoulli(p), D.Normal(a, b))
  end, { leaf({ 2, 0.7 }), leaf({ 1.5, 3 }), leaf({ 0.3, 0.85 }) })
  tester:assert(true)
end

function tests.expandAndShapes()
  local cases = {
    D.StudentT(T({ 3, 4 }), 0, 1), D.FisherSnedecor(T({ 3, 4 }), 5), D.VonMises(T({ 0, 1 }), 2),
    D.ContinuousBernoulli(T({ 0.2, 0.7 })), D.NegativeBinomial(3, T({ 0.2, 0.7 })),
  }
  for _, d in ipairs(cases) do
    local name = torch.typename(d)
    local e = d:expand({ 3, 2 })
    H.size_is(tester, e.batchShape, { 3, 2 }, name .. ' expand batchShape')
    H.size_is(tester, e:sample({ 4 }), { 4, 3, 2 }, name .. ' expanded sample')
    H.size_is(tester, e:logProb(d:sample()), { 3, 2 }, name .. ' expanded logProb')
    H.close(tester, e:mean():select(1, 3), d:mean():totable(), 0, name .. ' expanded mean')
  end
  local m = D.Multinomial(4, T({ 0.2, 0.8 })):expand({ 3 })
  H.size_is(tester, m:sample({ 5 }), { 5, 3, 2 }, 'Multinomial expanded sample')
  H.size_is(tester, m:entropy(), { 3 }, 'Multinomial expanded entropy')
  -- Float parameters stay float; numbers take the default type.
  local f = D.StudentT(torch.FloatTensor({ 3 }))
  tester:asserteq(f:sample({ 2 }):type(), 'torch.FloatTensor', 'float sample')
  tester:asserteq(D.VonMises(torch.FloatTensor({ 0 }), 1):sample():type(), 'torch.FloatTensor', 'VonMises float sample')
  tester:asserteq(D.Multinomial(3, torch.FloatTensor({ 1, 1 })):sample():type(), 'torch.FloatTensor', 'Multinomial float sample')
end

function tests.errors()
  local F = H.fails
  F(tester, function() D.StudentT(-1) end, { '[distributions.StudentT]', 'df must be positive', '-1' }, 'StudentT df')
  F(tester, function() D.StudentT(3, 0, T({ 1, 0 })) end, { 'distributions.StudentT', 'scale', 'positive', 'got 0' }, 'StudentT scale')
  F(tester, function() D.StudentT() end, { 'distributions.StudentT', 'df is required' }, 'StudentT no df')
  F(tester, function() D.StudentT('a') end, { 'distributions.StudentT', 'df', 'string' }, 'StudentT type')
  F(tester, function() D.StudentT(T({ 1, 2 }), T({ 1, 2, 3 })) end, { 'distributions.StudentT', 'do not broadcast' }, 'StudentT shapes')
  F(tester, function() D.FisherSnedecor(1, T({ 1, -2 })) end, { 'distributions.FisherSnedecor', 'df2', 'positive', '-2' }, 'F df2')
  F(tester, function() D.FisherSnedecor(3, 5):logProb(-1) end, { 'distributions.FisherSnedecor', 'value', 'positive', '-1' }, 'F value')
  F(tester, function() D.VonMises(0, 0) end, { 'distributions.VonMises', 'concentration', 'positive', 'got 0' }, 'VonMises k')
  F(tester, function() D.VonMises(0 / 0, 1) end, { 'distributions.VonMises', 'loc', 'real' }, 'VonMises loc NaN')
  F(tester, function() D.ContinuousBernoulli(1.5) end, { 'distributions.ContinuousBernoulli', 'probs', '[0, 1]', '1.5' }, 'CB probs')
  F(tester, function() D.ContinuousBernoulli(0.5, 0) end, { 'distributions.ContinuousBernoulli', 'exactly one', 'both' }, 'CB both')
  F(tester, function() D.ContinuousBernoulli() end, { 'distributions.ContinuousBernoulli', 'exactly one', 'neither' }, 'CB neither')
  F(tester, function() D.ContinuousBernoulli(0.3, { lims = { 0.6, 0.4 } }) end, { 'distributions.ContinuousBernoulli', 'lims' }, 'CB lims')
  F(tester, function() D.ContinuousBernoulli(0.3):logProb(1.2) end, { 'distributions.ContinuousBernoulli', 'value', '[0, 1]', '1.2' }, 'CB value')
  F(tester, function() D.ContinuousBernoulli(0.3):icdf(-0.1) end, { 'distributions.ContinuousBernoulli', 'p', '[0, 1]' }, 'CB icdf')
  F(tester, function() D.Multinomial(2.5, T({ 1, 1 })) end, { 'distributions.Multinomial', 'totalCount', 'non-negative integer', '2.5' }, 'M n')
  F(tester, function() D.Multinomial(T({ 2, 3 }), T({ 1, 1 })) end, { 'distributions.Multinomial', 'inhomogeneous' }, 'M tensor n')
  F(tester, function() D.Multinomial(3, T({ 1, -1 })) end, { 'distributions.Multinomial', 'probs' }, 'M probs')
  F(tester, function() D.Multinomial(3, T({ 1, 1 })):logProb(T({ 2, 2 })) end, { 'distributions.Multinomial', 'value', 'at most 3' }, 'M value')
  F(tester, function() D.Multinomial(3, T({ 1, 1 })):logProb(T({ 1, 1, 1 })) end, { 'distributions.Multinomial', 'event shape' }, 'M shape')
  F(tester, function() D.NegativeBinomial(-1, 0.5) end, { 'distributions.NegativeBinomial', 'totalCount', 'non-negative', '-1' }, 'NB n')
  F(tester, function() D.NegativeBinomial(2, 1) end, { 'distributions.NegativeBinomial', 'probs', 'in [0, 1)', '1' }, 'NB probs 1')
  F(tester, function() D.NegativeBinomial(2) end, { 'distributions.NegativeBinomial', 'exactly one' }, 'NB no probs')
  F(tester, function() D.NegativeBinomial(2, 0.5):logProb(1.5) end, { 'distributions.NegativeBinomial', 'value', 'integer', '1.5' }, 'NB value')
  -- validateArgs = false skips the checks.
  tester:assert(D.StudentT(-1, 0, 1, { validateArgs = false }) ~= nil, 'validateArgs = false')
end

tester:add(tests):run()
