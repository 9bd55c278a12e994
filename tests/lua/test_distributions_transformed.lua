-- torch.distributions.TransformedDistribution (transformed.lua), the families built on it
-- (transformed_families.lua, relaxed.lua) and their KL divergences (kl_transformed.lua): values
-- against PyTorch 1.13, shapes and expand, Monte-Carlo moments, rsample gradients against
-- finite differences of seeded draws, gradchecks of logProb, errors.
local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/distributions_check.lua')
local D = torch.distributions
local tester = torch.Tester()
local tests = torch.TestSuite()
local T = torch.DoubleTensor
local inf, nan = math.huge, 0 / 0

-- PyTorch 1.13 (float64) values: logProb(v), cdf(v), icdf(p), mean, variance, mode, entropy.
local REF = {
  Gumbel = { logProb = { -1.7219479636313504, -0.37717286547569395, -1.718281828459045 }, cdf = { 0.4589560693076639, 0.5115448336890417, 0.06598803584531254 }, icdf = { -1.6680648904959121, 1.183256460290832, 0.9701952490421593 }, mean = { 1.1544313298030657, 1.2886078324507664, -1.4227843350984672 }, variance = { 6.579736267392906, 0.4112335167120566, 1.6449340668482264 }, entropy = { 2.270362845461478, 0.8840684843415875, 1.5772156649015328 }, mode = { 0.0, 1.0, -2.0 } },
  HalfNormal = { logProb = { -0.3507913526447274, -1.0989385332046728, 0.9776258961256531 }, cdf = { 0.38292492254802624, 0.4514937644998529, 0.0265912276341842 }, icdf = { 0.12566134685507416, 1.3489795003921636, 0.5879891953620163 }, mean = { 0.7978845608028654, 1.5957691216057308, 0.2393653682408596 }, variance = { 0.3633802276324186, 1.4535209105296745, 0.03270422048691767 }, entropy = { 0.7257913526447274, 1.4189385332046727, -0.47818145168120874 }, mode = { 0.0, 0.0, 0.0 } },
  HalfCauchy = { logProb = { -0.6747262566036646, -1.4522145855973605, 0.7512796047524541 }, cdf = { 0.2951672353008665, 0.34404173924526127, 0.021212804811070907 }, icdf = { 0.15838444032453644, 1.9999999999999998, 3.8118614208524084 }, mean = { inf, inf, inf }, variance = { inf, inf, inf }, entropy = { 1.8378770664093453, 2.5310242469692907, 0.6339042620834093 }, mode = { 0.0, 0.0, 0.0 } },
  Weibull = { logProb = { -0.29466187276508193, -1.5959426277833098, 0.8334723665996359 }, cdf = { 0.2978114986734405, 0.5031008497184313, 0.4007042121544616 }, icdf = { 0.22307552563691707, 1.1847802259042675, 0.7207826713952266 }, mean = { 0.9027452929509336, 2.531647012114567, 0.44648975578462463 }, variance = { 0.37569028481393185, 13.707342214612611, 0.0263332212171197 }, entropy = { 0.7869401135256798, 1.8024439823980207, -0.4069490259603663 }, mode = { 0.4807498567691361, nan, 0.43679023236814946 } },
  Pareto = { logProb = { -2.5665506388285104, -1.739112808282557, 0.9713124636552594 }, cdf = { 0.936, 0.24710204302876304, 0.366061854739391 }, icdf = { 1.0357441686512863, 5.383600770529425, 1.6572270086699927 }, mean = { 1.5, inf, 0.8333333333333334 }, variance = { 0.75, inf, 0.5555555555555556 }, entropy = { 0.23472104466522348, 3.4783935530701067, -0.20943791243410037 }, mode = { 1.0, 2.0, 0.5 } },
  Kumaraswamy = { logProb = { 0.5232481437645479, 0.21193535550034198, 0.9258749976587347 }, cdf = { 0.578125, 0.6944271909999158, 0.6481355161176616 }, icdf = { 0.18577032969333473, 0.08578643762690492, 0.9920558779654716 }, mean = { 0.457142857142857, 0.16666666666666666, 0.7817454793302617 }, variance = { 0.04102040816326541, 0.03888888888888889, 0.03619245458400022 }, entropy = { -0.2084261358947218, -1.0, -0.550664005223637 } },
  LogisticNormal = { logProb = { 0.6489158542869062, 1.0626763962927646 } },
  RelaxedBernoulli = { logProb = { 0.08582564215194544, 0.6592238307351634 } },
  LogitRelaxedBernoulli = { logProb = { -1.7493624900202118, -3.9633145861254695 } },
  RelaxedOneHotCategorical = { logProb = { -0.2068076142378228, -0.7173209658066266 } },
  ExpRelaxedCategorical = { logProb = { -2.098501022660994 } },
  TDdecreasing = { logProb = { -1.657085713764618, -4.327439261215101 }, cdf = { 0.6179114221889526, 0.012788278799098718 }, icdf = { -5.263683396904805, -0.25979237319418047 } },
}
-- PyTorch 1.13 kl_divergence(p, q) (float64).
local KL = {
  { 'Gumbel', 'Gumbel', { 1.6815110257418437, 1.4537200693532824 } },
  { 'HalfNormal', 'HalfNormal', { 0.8068528194400547, 0.1276873303303866 } },
  { 'Pareto', 'Pareto', { 1.4584261358947215, inf } },
  { 'Exponential', 'Gumbel', { 0.5, 1.6945280494653252 } },
  { 'Gamma', 'Gumbel', { 0.7505632904332437, 3.444942387132378 } },
  { 'Gumbel', 'Normal', { 0.6784383880162341, 5.442439316625426 } },
  { 'Normal', 'Gumbel', { 0.15899634813138852, 139.71897088378415 } },
  { 'Pareto', 'Exponential', { 1.2084261358947215, inf } },
  { 'Pareto', 'Gamma', { 0.8710154057851145, inf } },
  { 'Pareto', 'Normal', { 1.5763492633142802, inf } },
  { 'Uniform', 'Gumbel', { 2.67924280739818, 3.4171571500622893 } },
  { 'Uniform', 'Pareto', { 1.8193084835529876, 1.039094309804225 } },
  { 'Weibull', 'Weibull', { 0.0, 0.0 } },
  { 'Normal', 'Pareto', { inf, inf } },
  { 'Gumbel', 'Uniform', { inf, inf } },
}

local function fams()
  return {
    Gumbel = { D.Gumbel(T({ 0, 1, -2 }), T({ 2, 0.5, 1 })), T({ 0.5, 1.2, -3.0 }) },
    HalfNormal = { D.HalfNormal(T({ 1, 2, 0.3 })), T({ 0.5, 1.2, 0.01 }) },
    HalfCauchy = { D.HalfCauchy(T({ 1, 2, 0.3 })), T({ 0.5, 1.2, 0.01 }) },
    Weibull = { D.Weibull(T({ 1, 2, 0.5 }), T({ 1.5, 0.7, 3 })), T({ 0.5, 1.2, 0.4 }) },
    Pareto = { D.Pareto(T({ 1, 2, 0.5 }), T({ 3, 0.7, 2.5 })), T({ 2.5, 3.0, 0.6 }) },
    Kumaraswamy = { D.Kumaraswamy(T({ 2, 0.5, 3 }), T({ 3, 2, 0.8 })), T({ 0.5, 0.2, 0.9 }) },
  }
end
local P = T({ 0.1, 0.5, 0.95 })

function tests.familiesAgainstPyTorch()
  for name, c in pairs(fams()) do
    local d, v, r = c[1], c[2], REF[name]
    tester:assert(torch.isTypeOf(d, 'torch.distributions.TransformedDistribution'), name .. ' is a TransformedDistribution')
    H.close(tester, d:logProb(v), r.logProb, 1e-10, name .. ' logProb')
    H.close(tester, d:cdf(v), r.cdf, 1e-10, name .. ' cdf')
    H.close(tester, d:icdf(P), r.icdf, 1e-9, name .. ' icdf')
    H.close(tester, d:mean(), r.mean, 1e-10, name .. ' mean')
    H.close(tester, d:variance(), r.variance, 1e-10, name .. ' variance')
    H.close(tester, d:entropy(), r.entropy, 1e-10, name .. ' entropy')
    if r.mode then H.close(tester, d:mode(), r.mode, 1e-10, name .. ' mode') end
    tester:assert(d.hasRsample, name .. ' hasRsample')
    H.size_is(tester, d:sample({ 4 }), { 4, 3 }, name .. ' sample')
    tester:assert(torch.all(d:support().check(d:sample({ 100 }))), name .. ' draws in the support')
  end
  -- Note [Kumaraswamy mode]: the textbook mode, where PyTorch 1.13 gives NaN.
  H.close(tester, fams().Kumaraswamy[1]:mode(), { math.sqrt(1 / 5), nan, nan }, 1e-12, 'Kumaraswamy mode')
  H.close(tester, D.Gumbel(T({ 0 }), T({ 2 })):stddev(), { math.pi / math.sqrt(6) * 2 }, 1e-12, 'Gumbel stddev')
end

function tests.relaxedAndLogisticAgainstPyTorch()
  local ln = D.LogisticNormal(T({ { 0.1, -0.2 }, { 0.5, 0.3 } }), T({ 1, 2 }))
  H.size_is(tester, ln.batchShape, { 2 }, 'LogisticNormal batch')
  H.size_is(tester, ln.eventShape, { 3 }, 'LogisticNormal event')
  H.close(tester, ln:logProb(T({ { 0.2, 0.3, 0.5 }, { 0.6, 0.1, 0.3 } })), REF.LogisticNormal.logProb, 1e-10, 'LogisticNormal')
  local x = ln:sample({ 50 })
  tester:assert(torch.all(D.constraints.simplex.check(x)), 'LogisticNormal draws on the simplex')
  H.size_is(tester, D.LogisticNormal(0, 1).eventShape, { 2 }, 'a scalar loc is a vector of one')
  H.close(tester, D.RelaxedBernoulli(0.7, T({ 0.3, 0.8 })):logProb(T({ 0.2, 0.9 })), REF.RelaxedBernoulli.logProb, 1e-10, 'RelaxedBernoulli')
  H.close(tester, D.LogitRelaxedBernoulli(0.7, { logits = T({ 0.3, -1.8 }) }):logProb(T({ 0.2, 2.5 })),
    REF.LogitRelaxedBernoulli.logProb, 1e-10, 'LogitRelaxedBernoulli')
  local rc = D.RelaxedOneHotCategorical(0.7, T({ { 0.3, 0.5, 0.2 }, { 0.1, 0.1, 0.8 } }))
  H.close(tester, rc:logProb(T({ 0.2, 0.3, 0.5 })), REF.RelaxedOneHotCategorical.logProb, 1e-10, 'RelaxedOneHotCategorical')
  H.size_is(tester, rc.eventShape, { 3 }, 'RelaxedOneHotCategorical event')
  tester:assert(torch.all(D.constraints.simplex.check(rc:sample({ 20 }))), 'relaxed one-hot draws on the simplex')
  H.close(tester, D.ExpRelaxedCategorical(1.3, nil, T({ 0.3, -0.5, 1.2 })):logProb(T({ -1.2, -2.0, -0.5 })),
    REF.ExpRelaxedCategorical.logProb, 1e-10, 'ExpRelaxedCategorical')
  -- Low temperature: RelaxedBernoulli draws concentrate at 0 and 1 with frequency probs.
  torch.manualSeed(11)
  local n = 20000
  local s = D.RelaxedBernoulli(0.05, T({ 0.3 })):sample({ n })
  H.mc(tester, torch.gt(s, 0.5):double():view(n), 0.3, 5, 'relaxed Bernoulli frequency')
  local oh = D.RelaxedOneHotCategorical(0.05, T({ 0.2, 0.5, 0.3 })):sample({ n })
  local _, idx = torch.max(oh, 2)
  H.mc(tester, torch.eq(idx, 2):double():view(n), 0.5, 5, 'relaxed one-hot argmax frequency')
end

function tests.transformedDistributionShapes()
  -- Normal + Exp is LogNormal.
  local base = D.Normal(T({ 0.3, -0.2 }), T({ 1, 0.5 }))
  local td = D.TransformedDistribution(base, D.ExpTransform())
  local ln = D.LogNormal(T({ 0.3, -0.2 }), T({ 1, 0.5 }))
  local v = T({ 0.7, 2.5 })
  tester:assertTensorEq(td:logProb(v), ln:logProb(v), 1e-12, 'logProb as LogNormal')
  tester:assertTensorEq(td:cdf(v), ln:cdf(v), 1e-12, 'cdf as LogNormal')
  tester:assertTensorEq(td:icdf(T({ 0.2, 0.9 })), ln:icdf(T({ 0.2, 0.9 })), 1e-12, 'icdf as LogNormal')
  tester:asserteq(td:support().kind, 'greaterThan', 'support from the codomain')
  -- A decreasing transform flips the cdf (PyTorch's monotonize).
  local dec = D.TransformedDistribution(base, { D.ExpTransform(), D.AffineTransform(1, -2) })
  H.close(tester, dec:logProb(T({ -1, -4 })), REF.TDdecreasing.logProb, 1e-12, 'decreasing logProb')
  H.close(tester, dec:cdf(T({ -1, -4 })), REF.TDdecreasing.cdf, 1e-12, 'decreasing cdf')
  H.close(tester, dec:icdf(T({ 0.2, 0.7 })), REF.TDdecreasing.icdf, 1e-12, 'decreasing icdf')
  -- A vector transform takes one batch dim of the base as the event (Independent).
  local sb = D.TransformedDistribution(D.Normal(torch.zeros(5, 3):double(), 1), D.StickBreakingTransform())
  H.size_is(tester, sb.batchShape, { 5 }, 'stick breaking batch')
  H.size_is(tester, sb.eventShape, { 4 }, 'stick breaking event')
  tester:assert(torch.isTypeOf(sb.baseDist, 'torch.distributions.Independent'), 'base made Independent')
  H.size_is(tester, sb:sample({ 2 }), { 2, 5, 4 }, 'stick breaking sample')
  H.size_is(tester, sb:logProb(sb:sample()), { 5 }, 'stick breaking logProb')
  -- A transform whose parameters are larger than the base: the base is expanded.
  local ex = D.TransformedDistribution(D.Normal(T({ 0 }), T({ 1 })), D.AffineTransform(T({ 1, 2, 3 }), 2))
  H.size_is(tester, ex.batchShape, { 3 }, 'base expanded to the transform')
  H.size_is(tester, ex.baseDist.batchShape, { 3 }, 'base batch')
  tester:assertTensorEq(ex:logProb(T({ 1, 2, 3 })), D.Normal(T({ 1, 2, 3 }), 2):logProb(T({ 1, 2, 3 })), 1e-12, 'affine normal')
  -- Expand.
  local g = D.Gumbel(T({ 0, 1 }), 2):expand({ 3, 2 })
  H.size_is(tester, g.batchShape, { 3, 2 }, 'Gumbel expand')
  H.size_is(tester, g:sample(), { 3, 2 }, 'expanded sample')
  H.size_is(tester, g.loc, { 3, 2 }, 'expanded loc')
  for name, c in pairs(fams()) do
    local e = c[1]:expand({ 2, 3 })
    H.size_is(tester, e:sample(), { 2, 3 }, name .. ' expanded sample')
    tester:assertTensorEq(e:logProb(c[2]), c[1]:logProb(c[2]):expand(2, 3), 1e-12, name .. ' expanded logProb')
  end
  local ee = D.LogisticNormal(T({ 0.1, -0.2 }), 1):expand({ 4 })
  H.size_is(tester, ee:sample(), { 4, 3 }, 'LogisticNormal expand')
  H.size_is(tester, ee.loc, { 4, 2 }, 'LogisticNormal expanded loc')
  H.size_is(tester, D.RelaxedOneHotCategorical(0.5, T({ 0.2, 0.8 })):expand({ 3 }):rsample(), { 3, 2 }, 'relaxed expand')
  H.size_is(tester, D.RelaxedBernoulli(0.5, 0.3):expand({ 3 }):rsample({ 2 }), { 2, 3 }, 'relaxed Bernoulli expand')
  -- Without rsample in the base: sample works, rsample is an error.
  local nr = D.TransformedDistribution(D.Poisson(T({ 2 })), D.AffineTransform(0, 2))
  tester:assert(not nr.hasRsample, 'no rsample')
  H.size_is(tester, nr:sample({ 3 }), { 3, 1 }, 'sample without rsample')
  H.fails(tester, function() nr:rsample() end, { '[distributions.TransformedDistribution]', 'no rsample' }, 'rsample error')
  tester:assert(tostring(td):find('TransformedDistribution%(Normal') ~= nil, 'tostring ' .. tostring(td))
end

-- Monte-Carlo moments of the families with finite ones (n = 40000, 5 standard errors).
function tests.moments()
  torch.manualSeed(5)
  local n = 40000
  local cs = {
    { 'Gumbel', D.Gumbel(T({ 0, 1 }), T({ 2, 0.5 })) },
    { 'HalfNormal', D.HalfNormal(T({ 1, 2 })) },
    { 'Weibull', D.Weibull(T({ 1, 2 }), T({ 1.5, 3 })) },
    { 'Pareto', D.Pareto(T({ 1, 2 }), T({ 6, 9 })) },
    { 'Kumaraswamy', D.Kumaraswamy(T({ 2, 0.5 }), T({ 3, 2 })) },
  }
  for _, c in ipairs(cs) do
    local d = c[2]
    H.moments(tester, d:sample({ n }), d:mean(), d:variance(), 5, c[1])
    -- The entropy is E[-logProb].
    H.mc(tester, -d:logProb(d:sample({ n }))[{ {}, 1 }], d:entropy()[1], 5, c[1] .. ' entropy')
  end
  local hc = D.HalfCauchy(T({ 2 }))
  H.mc(tester, torch.le(hc:sample({ n }), 2):double():view(n), 0.5, 5, 'HalfCauchy median is scale')
end

-- d/dparams of sum(rsample) against central differences of draws made from the same seed.
local function rsample_grad(name, make, params, shape)
  local function draw(ps)
    torch.manualSeed(42)
    return make(unpack(ps)):rsample(shape)
  end
  local leaves = {}
  for i, p in ipairs(params) do leaves[i] = p:clone():requiresGrad() end
  torch.sum(draw(leaves)):backward()
  for i, p in ipairs(params) do
    local num = H.numgrad(function(x)
      local ps = {}
      for j, q in ipairs(params) do ps[j] = j == i and x or q end
      return torch.sum(draw(ps))
    end, p:clone(), 1e-6)
    tester:assertTensorEq(leaves[i].grad, num, 1e-5 * math.max(1, torch.abs(num):max()), name .. ' rsample grad of parameter ' .. i)
  end
end
function tests.rsampleGradients()
  rsample_grad('Gumbel', D.Gumbel, { T({ 0, 1 }), T({ 2, 0.5 }) }, { 3 })
  rsample_grad('HalfNormal', D.HalfNormal, { T({ 1, 2 }) }, { 3 })
  rsample_grad('HalfCauchy', D.HalfCauchy, { T({ 1, 2 }) }, { 3 })
  rsample_grad('Weibull', D.Weibull, { T({ 1, 2 }), T({ 1.5, 0.7 }) }, { 3 })
  rsample_grad('Pareto', D.Pareto, { T({ 1, 2 }), T({ 3, 2.5 }) }, { 3 })
  rsample_grad('Kumaraswamy', D.Kumaraswamy, { T({ 2, 0.5 }), T({ 3, 2 }) }, { 3 })
  rsample_grad('LogisticNormal', D.LogisticNormal, { T({ 0.1, -0.2 }), T({ 1, 2 }) }, { 3 })
  rsample_grad('RelaxedBernoulli', function(t, l) return D.RelaxedBernoulli(t, nil, l) end, { T({ 0.7 }), T({ 0.3, -1 }) }, { 3 })
  rsample_grad('LogitRelaxedBernoulli', function(t, p) return D.LogitRelaxedBernoulli(t, p) end, { T({ 0.7 }), T({ 0.3, 0.6 }) }, { 3 })
  -- sum over the simplex is constant: weight the entries so the gradient is not zero.
  local w = T({ 1, 2, 3 })
  rsample_grad('RelaxedOneHotCategorical', function(t, l)
    local d = D.RelaxedOneHotCategorical(t, nil, l)
    return { rsample = function(_, s) return torch.cmul(d:rsample(s), w) end }
  end, { T({ 0.7 }), T({ 0.3, -1, 0.5 }) }, { 3 })
  rsample_grad('ExpRelaxedCategorical', function(t, l)
    local d = D.ExpRelaxedCategorical(t, nil, l)
    return { rsample = function(_, s) return torch.cmul(d:rsample(s), w) end }
  end, { T({ 0.7 }), T({ 0.3, -1, 0.5 }) }, { 3 })
end

function tests.logProbGradcheck()
  local function gc(name, f, ...)
    local args = { ... }
    for i, a in ipairs(args) do args[i] = a:clone():requiresGrad() end
    tester:assert(torch.autograd.gradcheck(f, args), name)
  end
  gc('Gumbel', function(l, s, v) return D.Gumbel(l, s):logProb(v) end, T({ 0, 1 }), T({ 2, 0.5 }), T({ 0.3, 2 }))
  gc('HalfNormal', function(s, v) return D.HalfNormal(s):logProb(v) + D.HalfNormal(s):cdf(v) end, T({ 1, 2 }), T({ 0.3, 2 }))
  gc('Weibull', function(s, k, v) return D.Weibull(s, k):logProb(v) + D.Weibull(s, k):cdf(v) + D.Weibull(s, k):entropy() end,
    T({ 1, 2 }), T({ 1.5, 0.7 }), T({ 0.3, 2 }))
  gc('Pareto', function(s, a, v) return D.Pareto(s, a):logProb(v) + D.Pareto(s, a):mean() end, T({ 1, 2 }), T({ 3, 2.5 }), T({ 1.3, 2.2 }))
  gc('Kumaraswamy', function(a, b, v) return D.Kumaraswamy(a, b):logProb(v) + D.Kumaraswamy(a, b):variance() end,
    T({ 2, 0.5 }), T({ 3, 2 }), T({ 0.3, 0.6 }))
  gc('LogisticNormal', function(l, s) return D.LogisticNormal(l, s):logProb(T({ 0.2, 0.3, 0.5 })) end, T({ 0.1, -0.2 }), T({ 1, 2 }))
  gc('RelaxedBernoulli', function(t, l, v) return D.RelaxedBernoulli(t, nil, l):logProb(v) end, T({ 0.7 }), T({ 0.3, -1 }), T({ 0.2, 0.9 }))
  gc('RelaxedOneHotCategorical', function(t, l) return D.RelaxedOneHotCategorical(t, nil, l):logProb(T({ 0.2, 0.3, 0.5 })) end,
    T({ 0.7 }), T({ 0.3, -1, 0.5 }))
  gc('Gumbel-Gumbel KL', function(a, b) return D.klDivergence(D.Gumbel(a, b), D.Gumbel(b, a)) end, T({ 0.5, 1 }), T({ 2, 0.5 }))
end

function tests.klAgainstPyTorch()
  local G = function() return D.Gumbel(T({ 0, 1 }), T({ 2, 0.5 })) end
  local N = function() return D.Normal(T({ 0.3, -1 }), T({ 1.5, 0.7 })) end
  local Pa = function() return D.Pareto(T({ 1, 2 }), T({ 3, 2.5 })) end
  local E = function() return D.Exponential(T({ 0.5, 2 })) end
  local Ga = function() return D.Gamma(T({ 2, 0.7 }), T({ 1.5, 3 })) end
  local U = function() return D.Uniform(T({ 1.5, 2.5 }), T({ 2, 4 })) end
  local pairs_ = {
    { G(), D.Gumbel(T({ 0.5, -1 }), T({ 1, 3 })) },
    { D.HalfNormal(T({ 1, 2 })), D.HalfNormal(T({ 0.5, 3 })) },
    { Pa(), D.Pareto(T({ 0.5, 3 }), T({ 2, 1.5 })) },
    { E(), G() }, { Ga(), G() }, { G(), N() }, { N(), G() },
    { D.Pareto(T({ 1, 2 }), T({ 3, 0.5 })), E() },
    { D.Pareto(T({ 1, 2 }), T({ 3, 0.5 })), Ga() },
    { D.Pareto(T({ 1, 2 }), T({ 3, 1.5 })), N() },
    { U(), G() }, { U(), Pa() },
    { D.Weibull(T({ 1, 2 }), T({ 1.5, 0.7 })), D.Weibull(T({ 1, 2 }), T({ 1.5, 0.7 })) },
    { N(), Pa() }, { G(), U() },
  }
  for i, r in ipairs(KL) do
    local kl = D.klDivergence(pairs_[i][1], pairs_[i][2])
    H.close(tester, kl, r[3], 1e-10, 'KL ' .. r[1] .. '-' .. r[2])
  end
  -- q has no mass on part of p's support: inf over the broadcast batch (PyTorch's _infinite_like).
  local B = D.Beta(T({ 2 }), T({ 3 }))
  for _, c in ipairs({ { B, Pa() }, { D.Laplace(T({ 0 }), T({ 1 })), Pa() }, { Pa(), B }, { G(), B }, { G(), E() },
                       { Ga(), Pa() }, { E(), Pa() }, { Pa(), U() } }) do
    local kl = D.klDivergence(c[1], c[2])
    tester:assert(torch.all(torch.eq(kl, inf)), torch.typename(c[1]) .. '-' .. torch.typename(c[2]) .. ' is inf')
    H.size_is(tester, kl, torch.broadcastShapes(c[1].batchShape, c[2].batchShape):totable(), 'inf KL shape')
  end
  -- Monte-Carlo: KL(p, q) = E_p[log p - log q].
  torch.manualSeed(9)
  local n = 40000
  for _, c in ipairs({ { 'Gumbel', D.Gumbel(T({ 0 }), T({ 2 })), D.Gumbel(T({ 0.5 }), T({ 1 })) },
                       { 'Pareto', D.Pareto(T({ 1 }), T({ 3 })), D.Pareto(T({ 0.5 }), T({ 2 })) },
                       { 'Uniform-Gumbel', D.Uniform(T({ 1.5 }), T({ 2 })), D.Gumbel(T({ 0 }), T({ 2 })) } }) do
    local x = c[2]:sample({ n })
    H.mc(tester, (c[2]:logProb(x) - c[3]:logProb(x)):view(n), H.num(D.klDivergence(c[2], c[3])), 5, c[1] .. ' KL Monte-Carlo')
  end
  -- TransformedDistribution pairs: the bases' divergence when the transforms agree.
  local b1, b2 = D.Normal(T({ 0 }), T({ 1 })), D.Normal(T({ 1 }), T({ 2 }))
  local t1 = D.TransformedDistribution(b1, { D.ExpTransform(), D.AffineTransform(1, 2) })
  local t2 = D.TransformedDistribution(b2, { D.ExpTransform(), D.AffineTransform(1, 2) })
  tester:assertTensorEq(D.klDivergence(t1, t2), D.klDivergence(b1, b2), 1e-12, 'TD KL')
  H.fails(tester, function() D.klDivergence(t1, D.TransformedDistribution(b2, D.ExpTransform())) end,
    { '[distributions.klDivergence]', 'different transforms' }, 'TD KL with different transforms')
end

function tests.errors()
  local function fails(f, parts, msg) H.fails(tester, f, parts, msg) end
  fails(function() D.Gumbel(0, -1) end, { '[distributions.Gumbel] scale must be positive (> 0), got -1' }, 'Gumbel scale')
  fails(function() D.HalfNormal(T({ 1, 0 })) end, { '[distributions.HalfNormal] scale must be positive' }, 'HalfNormal scale')
  fails(function() D.HalfCauchy('a') end, { '[distributions.HalfCauchy]', 'scale must be a number or a tensor' }, 'HalfCauchy')
  fails(function() D.Weibull(1, 0) end, { '[distributions.Weibull] concentration must be positive' }, 'Weibull')
  fails(function() D.Pareto(1, -2) end, { '[distributions.Pareto] alpha must be positive' }, 'Pareto alpha')
  fails(function() D.Kumaraswamy(-1, 1) end, { '[distributions.Kumaraswamy] concentration1 must be positive' }, 'Kumaraswamy')
  fails(function() D.LogisticNormal(0, -1) end, { '[distributions.LogisticNormal] scale must be positive' }, 'LogisticNormal')
  fails(function() D.RelaxedBernoulli(-1, 0.5) end, { '[distributions.RelaxedBernoulli] temperature must be positive' }, 'temperature')
  fails(function() D.RelaxedBernoulli(1, 0.5, 0.2) end, { 'exactly one of probs or logits, got both' }, 'probs and logits')
  fails(function() D.RelaxedBernoulli(1, 1.5) end, { 'probs must be in [0, 1]' }, 'probs range')
  fails(function() D.RelaxedOneHotCategorical(1, T({ -0.2, 1 })) end, { '[distributions.RelaxedOneHotCategorical]', 'probs' }, 'relaxed categorical probs')
  fails(function() D.ExpRelaxedCategorical(nil, T({ 0.2, 0.8 })) end, { '[distributions.ExpRelaxedCategorical] temperature is required' }, 'no temperature')
  fails(function() D.HalfNormal(1):logProb(-1) end, { '[distributions.HalfNormal] value must be non-negative' }, 'HalfNormal support')
  fails(function() D.Pareto(2, 1):logProb(1) end, { '[distributions.Pareto] value must be at least' }, 'Pareto support')
  fails(function() D.Kumaraswamy(2, 2):icdf(1.5) end, { '[distributions.Kumaraswamy] p must be in [0, 1]' }, 'icdf p')
  fails(function() D.TransformedDistribution(3, D.ExpTransform()) end, { '[distributions.TransformedDistribution] base must be a distribution' }, 'base')
  fails(function() D.TransformedDistribution(D.Normal(0, 1), { 3 }) end, { 'transforms[1] must be a transform' }, 'transforms')
  fails(function() D.TransformedDistribution(D.Normal(0, 1), D.StickBreakingTransform()) end, { 'needs at least 1 dims' }, 'event dims')
  fails(function() D.TransformedDistribution(D.Normal(0, 1), D.AbsTransform()):logProb(1) end, { '[distributions.AbsTransform]', 'not bijective' }, 'Abs logProb')
  fails(function() D.TransformedDistribution(D.Normal(0, 1), D.AbsTransform()):cdf(1) end, { 'cdf and icdf need monotone transforms' }, 'Abs cdf')
  fails(function() D.Gumbel(0, 1):expand({ 2, 3 }):expand({ 3 }) end, { '[distributions.Gumbel] cannot expand' }, 'expand')
  -- validateArgs = false: HalfNormal's logProb is -inf outside the support.
  H.close(tester, D.HalfNormal(1, { validateArgs = false }):logProb(-1), { -inf }, 0, 'HalfNormal -inf')
end

function tests.float32()
  local g = D.Gumbel(torch.FloatTensor({ 0, 1 }), 2)
  tester:asserteq(torch.type(g:sample()), 'torch.FloatTensor', 'float sample')
  H.close(tester, g:logProb(torch.FloatTensor({ 0.5, 1 })), { -1.7219479636313504, -1.6931471805599454 }, 1e-5, 'float logProb')
  tester:assert(torch.all(torch.lt(torch.abs(g:sample({ 1000 })), 1e3)), 'finite float draws (uniform clamped to [tiny, 1 - eps])')
  local rb = D.RelaxedOneHotCategorical(0.5, torch.FloatTensor({ 0.2, 0.8 }))
  tester:asserteq(torch.type(rb:rsample()), 'torch.FloatTensor', 'float relaxed')
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  for name, c in pairs(fams()) do
    local cpu, v = c[1], c[2]
    -- Rebuilt on the device from the parameters.
    local ps = {}
    for i, k in ipairs(cpu._params) do ps[i] = cpu[k]:to('cuda') end
    local gpu = D[name](unpack(ps))
    tester:assertTensorEq(gpu:logProb(v:to('cuda')):double(), cpu:logProb(v), 1e-10, name .. ' cuda logProb')
    tester:asserteq(gpu:rsample({ 2 }):device():sub(1, 4), 'cuda', name .. ' cuda rsample')
  end
  local rc = D.RelaxedOneHotCategorical(T({ 0.7 }):to('cuda'), T({ 0.3, 0.5, 0.2 }):to('cuda'))
  H.close(tester, rc:logProb(T({ 0.2, 0.3, 0.5 }):to('cuda')):double(), { REF.RelaxedOneHotCategorical.logProb[1] }, 1e-10, 'cuda relaxed')
end

tester:add(tests)
tester:run()
