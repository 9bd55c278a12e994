-- torch.distributions, second group: Exponential, Laplace, Cauchy, LogNormal, Geometric,
-- Poisson, Binomial, OneHotCategorical and their KL divergences, against PyTorch 1.13's values
-- (double precision), Monte-Carlo moments, rsample gradients and argument errors.
local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/distributions_check.lua')
local D = torch.distributions
local tester = torch.Tester()
local tests = torch.TestSuite()
local T = torch.DoubleTensor
local TOL = 1e-12

-- All expected values below are PyTorch 1.13's (torch.set_default_dtype(torch.float64)).
function tests.continuousValues()
  local e = D.Exponential(T({ 0.5, 2 }))
  local v = T({ 0.3, 1.7 })
  H.close(tester, e:logProb(v), { -0.8431471805599453, -2.7068528194400545 }, TOL, 'Exponential logProb')
  H.close(tester, e:entropy(), { 1.6931471805599454, 0.3068528194400547 }, TOL, 'Exponential entropy')
  H.close(tester, e:cdf(v), { 0.1392920235749422, 0.9666267300396739 }, TOL, 'Exponential cdf')
  H.close(tester, e:icdf(T({ 0.2, 0.9 })), { 0.4462871026284194, 1.151292546497023 }, TOL, 'Exponential icdf')
  H.close(tester, e:mean(), { 2, 0.5 }, TOL, 'Exponential mean')
  H.close(tester, e:variance(), { 4, 0.25 }, TOL, 'Exponential variance')
  local l = D.Laplace(T({ 0, 1 }), T({ 1, 0.5 }))
  v = T({ 0.3, -0.7 })
  H.close(tester, l:logProb(v), { -0.9931471805599452, -3.4 }, TOL, 'Laplace logProb')
  H.close(tester, l:entropy(), { 1.6931471805599454, 1.0 }, TOL, 'Laplace entropy')
  H.close(tester, l:cdf(v), { 0.6295908896591411, 0.01668663498016304 }, TOL, 'Laplace cdf')
  H.close(tester, l:icdf(T({ 0.2, 0.9 })), { -0.916290731874155, 1.8047189562170503 }, TOL, 'Laplace icdf')
  H.close(tester, l:variance(), { 2, 0.5 }, TOL, 'Laplace variance')
  local c = D.Cauchy(T({ 0, 1 }), T({ 1, 0.5 }))
  H.close(tester, c:logProb(v), { -1.2309075820904525, -2.9820998663295075 }, TOL, 'Cauchy logProb')
  H.close(tester, c:entropy(), { 2.5310242469692907, 1.8378770664093453 }, TOL, 'Cauchy entropy')
  H.close(tester, c:cdf(v), { 0.5927735790777423, 0.09105300185574877 }, TOL, 'Cauchy cdf')
  H.close(tester, c:icdf(T({ 0.2, 0.9 })), { -1.3763819204711734, 2.538841768587626 }, 1e-11, 'Cauchy icdf')
  H.close(tester, c:mean(), { 0 / 0, 0 / 0 }, 0, 'Cauchy mean')
  H.close(tester, c:variance(), { math.huge, math.huge }, 0, 'Cauchy variance')
  local ln = D.LogNormal(T({ 0, 1 }), T({ 1, 0.5 }))
  v = T({ 0.3, 2.5 })
  H.close(tester, ln:logProb(v), { -0.43974098565696607, -1.1560965676592116 }, TOL, 'LogNormal logProb')
  H.close(tester, ln:entropy(), { 1.4189385332046727, 1.7257913526447273 }, TOL, 'LogNormal entropy')
  H.close(tester, ln:cdf(v), { 0.11430004504915153, 0.4335203705946609 }, TOL, 'LogNormal cdf')
  H.close(tester, ln:icdf(T({ 0.2, 0.9 })), { 0.43101118688183854, 5.159170355622593 }, 1e-10, 'LogNormal icdf')
  H.close(tester, ln:mean(), { 1.6487212707001282, 3.080216848918031 }, TOL, 'LogNormal mean')
  H.close(tester, ln:variance(), { 4.670774270471604, 2.694758124344947 }, TOL, 'LogNormal variance')
end

function tests.discreteValues()
  local g = D.Geometric(T({ 0.3, 1, 0.05 }))
  H.close(tester, g:logProb(T({ 2, 0, 10 })), { -1.9173226922034008, 0, -3.5086652174294963 }, TOL, 'Geometric logProb')
  H.close(tester, g:entropy(), { 2.036214340182978, 2.2204460492503128e-16, 3.9703048669174534 }, TOL, 'Geometric entropy')
  H.close(tester, g:mean(), { 2.3333333333333335, 0, 19 }, TOL, 'Geometric mean')
  H.close(tester, g:variance(), { 7.777777777777779, 0, 380 }, 1e-12, 'Geometric variance')
  local p = D.Poisson(T({ 0, 3.5, 20 }))
  H.close(tester, p:logProb(T({ 0, 2, 25 })), { 0, -1.6876212435692093, -3.1102983841307505 }, TOL, 'Poisson logProb')
  H.close(tester, p:mean(), { 0, 3.5, 20 }, 0, 'Poisson mean')
  H.close(tester, p:variance(), { 0, 3.5, 20 }, 0, 'Poisson variance')
  local b = D.Binomial(T({ 10, 5, 7 }), T({ 0.3, 0, 1 }))
  H.close(tester, b:logProb(T({ 3, 0, 7 })), { -1.321151277766889, -8.881784197001252e-16, 0 }, TOL, 'Binomial logProb')
  -- PyTorch's entropy needs one totalCount; these are its values for each element alone.
  H.close(tester, b:entropy(), { 1.7790787840900624, 3.9117837276817526e-14, 5.2998539486022757e-14 }, 1e-12, 'Binomial entropy')
  H.close(tester, b:mean(), { 3, 0, 7 }, TOL, 'Binomial mean')
  H.close(tester, b:variance(), { 2.1, 0, 0 }, TOL, 'Binomial variance')
  local bl = D.Binomial(10, nil, T({ -0.4, 1.3 }))
  H.close(tester, bl:logProb(T({ 4, 9 })), { -1.3830449932820557, -1.4074994453358745 }, TOL, 'Binomial logits logProb')
  H.close(tester, bl:entropy(), { 1.8541530816958853, 1.6516433068327805 }, TOL, 'Binomial logits entropy')
  H.close(tester, D.Binomial({ probs = T({ 0.4 }) }):mean(), { 0.4 }, TOL, 'totalCount defaults to 1')
  local oh = D.OneHotCategorical(T({ { 0.2, 0.3, 0.5 }, { 0.5, 0.5, 0 } }))
  H.close(tester, oh:logProb(T({ { 0, 1, 0 }, { 1, 0, 0 } })), { -1.2039728043259361, -0.6931471805599453 }, TOL, 'OneHot logProb')
  H.close(tester, oh:entropy(), { 1.0296530140645737, 0.6931471805599453 }, TOL, 'OneHot entropy')
  H.close(tester, oh:variance(), { 0.16, 0.21, 0.25, 0.25, 0.25, 0 }, TOL, 'OneHot variance')
  H.close(tester, oh:mode(), { 0, 0, 1, 1, 0, 0 }, 0, 'OneHot mode')
end

function tests.klClosedForms()
  local kl = D.klDivergence
  H.close(tester, kl(D.Exponential(T({ 0.5, 2 })), D.Exponential(T({ 1.5, 0.3 }))), { 0.9013877113318902, 1.0471199848858812 }, TOL, 'Exponential')
  H.close(tester, kl(D.Laplace(T({ 0, 1 }), T({ 1, 0.5 })), D.Laplace(T({ 0.5, -1 }), T({ 2, 0.3 }))), { 0.246412510416262, 5.186367107715234 }, TOL, 'Laplace')
  H.close(tester, kl(D.LogNormal(T({ 0, 1 }), T({ 1, 0.5 })), D.LogNormal(T({ 0.5, -1 }), T({ 2, 0.3 }))), { 0.3493971805599453, 22.600285487345122 }, TOL, 'LogNormal')
  -- PyTorch 1.13 gives NaN for rate 0; KL(point mass at 0 || Poisson(1)) = -log P(0) = 1.
  H.close(tester, kl(D.Poisson(T({ 0, 3.5, 20 })), D.Poisson(T({ 1, 2, 25 }))), { 1, 0.45865525777397975, 0.5371289737158058 }, TOL, 'Poisson')
  H.close(tester, kl(D.Geometric(T({ 0.3, 0.8 })), D.Geometric(T({ 0.5, 0.1 }))), { 0.2742762616835064, 1.703422192485767 }, TOL, 'Geometric')
  H.close(tester, kl(D.Binomial(10, T({ 0.3, 0.7 })), D.Binomial(10, T({ 0.5, 0.1 }))), { 0.8228287850505189, 10.325534177382863 }, TOL, 'Binomial')
  H.close(tester, kl(D.OneHotCategorical(T({ 0.2, 0.3, 0.5 })), D.OneHotCategorical(T({ 0.1, 0.1, 0.8 }))), { 0.2332113080895541 }, TOL, 'OneHot')
  H.close(tester, kl(D.Exponential(T({ 0.5, 2 })), D.Gamma(T({ 2, 0.7 }), T({ 1, 3 }))), { 0.1909213037816424, 0.30387697138549186 }, 1e-10, 'Exponential-Gamma')
  H.fails(tester, function() kl(D.Binomial(10, 0.5), D.Binomial(5, 0.5)) end, { 'klDivergence', 'totalCount' }, 'Binomial counts')
end

-- E_p[log p - log q] by Monte-Carlo against the closed forms, Cauchy's (not in PyTorch) included.
function tests.klMonteCarlo()
  torch.manualSeed(3)
  local n = 200000
  local cases = {
    { 'Cauchy', D.Cauchy(T({ 0.3 }), T({ 1.2 })), D.Cauchy(T({ -0.5 }), T({ 2 })) },
    { 'Exponential', D.Exponential(T({ 0.7 })), D.Exponential(T({ 2 })) },
    { 'Laplace', D.Laplace(T({ 0 }), T({ 1 })), D.Laplace(T({ 1 }), T({ 2 })) },
    { 'Poisson', D.Poisson(T({ 3 })), D.Poisson(T({ 5 })) },
    { 'Geometric', D.Geometric(T({ 0.3 })), D.Geometric(T({ 0.6 })) },
    { 'Binomial', D.Binomial(T({ 8 }), T({ 0.3 })), D.Binomial(T({ 8 }), T({ 0.6 })) },
  }
  for _, c in ipairs(cases) do
    local x = c[2]:sample({ n })
    H.mc(tester, (c[2]:logProb(x) - c[3]:logProb(x)):view(n), H.num(D.klDivergence(c[2], c[3])), 5, c[1])
  end
end

function tests.sampleMoments()
  torch.manualSeed(11)
  local n = 100000
  local cases = {
    { 'Exponential', D.Exponential(T({ 0.5, 3 })) },
    { 'Laplace', D.Laplace(T({ -1, 2 }), T({ 0.5, 2 })) },
    { 'LogNormal', D.LogNormal(T({ 0, 0.5 }), T({ 0.3, 0.5 })) },
    { 'Geometric', D.Geometric(T({ 0.2, 0.7 })) },
    { 'Poisson', D.Poisson(T({ 0.5, 4, 30 })) },
    { 'Binomial', D.Binomial(T({ 1, 10, 40 }), T({ 0.5, 0.2, 0.9 })) },
    { 'OneHotCategorical', D.OneHotCategorical(T({ 0.1, 0.6, 0.3 })) },
  }
  for _, c in ipairs(cases) do
    H.moments(tester, c[2]:sample({ n }), c[2]:mean(), c[2]:variance(), 5, c[1])
  end
  -- Cauchy has no moments: its median and quartiles (icdf) against the sample's.
  local x = D.Cauchy(T({ 1 }), T({ 2 })):sample({ n }):view(n)
  local sorted = torch.sort(x)
  local q1, q3 = sorted[math.floor(n / 4)], sorted[math.floor(3 * n / 4)]
  tester:assertle(math.abs(q1 - (1 - 2)), 0.1, 'Cauchy lower quartile')
  tester:assertle(math.abs(q3 - (1 + 2)), 0.1, 'Cauchy upper quartile')
end

function tests.rsampleGradients()
  torch.manualSeed(5)
  -- Exponential: x = e / rate, so d sum(x) / d rate = -sum(x) / rate.
  local rate = T({ 2 }):requiresGrad()
  local x = D.Exponential(rate):rsample({ 400 })
  torch.sum(x):backward()
  H.close(tester, rate.grad, { -torch.sum(x:detach()) / 2 }, 1e-9, 'Exponential d/drate')
  -- Laplace and Cauchy: x = loc + scale z: d/dloc = n, d/dscale = sum(z).
  for _, name in ipairs({ 'Laplace', 'Cauchy' }) do
    local loc, scale = T({ 0.5 }):requiresGrad(), T({ 1.5 }):requiresGrad()
    local y = D[name](loc, scale):rsample({ 300 })
    torch.sum(y):backward()
    H.close(tester, loc.grad, { 300 }, 1e-12, name .. ' d/dloc')
    H.close(tester, scale.grad, { torch.sum((y:detach() - 0.5) / 1.5) }, 1e-8, name .. ' d/dscale')
  end
  -- LogNormal: x = exp(loc + scale z): d/dloc = sum(x).
  local loc = T({ 0.2 }):requiresGrad()
  local y = D.LogNormal(loc, 0.5):rsample({ 200 })
  torch.sum(y):backward()
  H.close(tester, loc.grad, { torch.sum(y:detach()) }, 1e-9, 'LogNormal d/dloc')
  -- logProb gradients against central differences.
  local r = T({ 3.5, 0.7 }):requiresGrad()
  torch.sum(D.Poisson(r):logProb(T({ 2, 1 }))):backward()
  local ng = H.numgrad(function(t) return torch.sum(D.Poisson(t):logProb(T({ 2, 1 }))) end, r:detach():clone())
  H.close(tester, r.grad, ng:totable(), 1e-6, 'Poisson d logProb / d rate')
  local lg = T({ -0.4, 1.3 }):requiresGrad()
  torch.sum(D.Binomial(10, nil, lg):logProb(T({ 4, 9 }))):backward()
  local ng2 = H.numgrad(function(t) return torch.sum(D.Binomial(10, nil, t):logProb(T({ 4, 9 }))) end, lg:detach():clone())
  H.close(tester, lg.grad, ng2:totable(), 1e-6, 'Binomial d logProb / d logits')
  for _, d in ipairs({ D.Geometric(0.5), D.Poisson(1), D.Binomial(3, 0.5), D.OneHotCategorical(torch.ones(2)) }) do
    tester:asserteq(d.hasRsample, false)
    H.fails(tester, function() d:rsample() end, { 'rsample' }, torch.typename(d))
  end
end

function tests.shapes()
  local oh = D.OneHotCategorical(torch.ones(2, 4))
  H.size_is(tester, oh.batchShape, { 2 }, 'OneHot batch')
  H.size_is(tester, oh.eventShape, { 4 }, 'OneHot event')
  H.size_is(tester, oh:sample({ 3 }), { 3, 2, 4 }, 'OneHot sample')
  H.size_is(tester, oh:logProb(oh:sample({ 3 })), { 3, 2 }, 'OneHot logProb')
  H.size_is(tester, oh:expand({ 5, 2 }):sample(), { 5, 2, 4 }, 'OneHot expand')
  local b = D.Binomial(torch.Tensor({ 5, 10 }), torch.Tensor(3, 1):fill(0.5))
  H.size_is(tester, b.batchShape, { 3, 2 }, 'Binomial broadcast')
  H.size_is(tester, b:sample({ 4 }), { 4, 3, 2 }, 'Binomial sample')
  H.size_is(tester, b:entropy(), { 3, 2 }, 'Binomial entropy')
  H.size_is(tester, D.Binomial(4, 0.5):entropy(), {}, 'scalar Binomial entropy')
  for _, d in ipairs({ D.Exponential(1), D.Laplace(0, 1), D.Cauchy(0, 1), D.LogNormal(0, 1), D.Geometric(0.5), D.Poisson(2) }) do
    H.size_is(tester, d:sample({ 2, 3 }), { 2, 3 }, torch.typename(d))
    H.size_is(tester, d:expand({ 4 }):sample({ 2 }), { 2, 4 }, torch.typename(d) .. ' expand')
  end
  torch.manualSeed(9)
  local s1 = D.Poisson(torch.Tensor({ 3, 4 })):sample({ 5 })
  torch.manualSeed(9)
  tester:assertTensorEq(s1, D.Poisson(torch.Tensor({ 3, 4 })):sample({ 5 }), 0, 'Poisson reproducible')
end

function tests.validateArgs()
  H.fails(tester, function() D.Exponential(0) end, { 'distributions.Exponential', 'rate', 'positive' }, 'rate 0')
  H.fails(tester, function() D.Laplace(0, -2) end, { 'distributions.Laplace', 'scale', '-2' }, 'Laplace scale')
  H.fails(tester, function() D.Cauchy(0, 0) end, { 'distributions.Cauchy', 'scale' }, 'Cauchy scale')
  H.fails(tester, function() D.LogNormal(0, -1) end, { 'distributions.LogNormal', 'scale' }, 'LogNormal scale')
  H.fails(tester, function() D.Geometric(0) end, { 'distributions.Geometric', 'probs', 'positive' }, 'Geometric p 0')
  H.fails(tester, function() D.Poisson(-1) end, { 'distributions.Poisson', 'rate', 'non-negative' }, 'Poisson rate')
  H.fails(tester, function() D.Binomial(2.5, 0.5) end, { 'distributions.Binomial', 'totalCount', 'integer' }, 'Binomial n')
  H.fails(tester, function() D.Binomial(3, 0.5, 0) end, { 'distributions.Binomial', 'both' }, 'Binomial both')
  -- named after the family built (Note [Errors name the family])
  H.fails(tester, function() D.OneHotCategorical(T({ 1 }), T({ 1 })) end, { 'distributions.OneHotCategorical', 'both' }, 'OneHot both')
  H.fails(tester, function() D.Exponential(1):logProb(-1) end, { 'distributions.Exponential', 'value', 'non-negative' }, 'Exponential value')
  H.fails(tester, function() D.LogNormal(0, 1):logProb(0) end, { 'distributions.LogNormal', 'value', 'positive' }, 'LogNormal value')
  H.fails(tester, function() D.Poisson(1):logProb(1.5) end, { 'distributions.Poisson', 'value', 'integer' }, 'Poisson value')
  H.fails(tester, function() D.Geometric(0.5):logProb(-1) end, { 'distributions.Geometric', 'value' }, 'Geometric value')
  H.fails(tester, function() D.Binomial(3, 0.5):logProb(4) end, { 'distributions.Binomial', 'value', 'totalCount' }, 'Binomial value')
  H.fails(tester, function() D.OneHotCategorical(torch.ones(3)):logProb(torch.Tensor({ 1, 1, 0 })) end,
    { 'distributions.OneHotCategorical', 'one-hot' }, 'OneHot value')
  H.fails(tester, function() D.Exponential(1):icdf(2) end, { 'distributions.Exponential', 'p' }, 'icdf p')
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  local pairs_ = {
    { function(a, b) return D.Exponential(a) end, T({ 0.5, 2 }), T({ 0.3, 1.7 }) },
    { function(a, b) return D.Laplace(a, b) end, T({ 0, 1 }), T({ 0.3, -0.7 }) },
    { function(a, b) return D.Cauchy(a, b) end, T({ 0, 1 }), T({ 0.3, -0.7 }) },
    { function(a, b) return D.LogNormal(a, b) end, T({ 0, 1 }), T({ 0.3, 2.5 }) },
    { function(a, b) return D.Poisson(a) end, T({ 1, 3.5 }), T({ 0, 2 }) },
    { function(a, b) return D.Binomial(10, a) end, T({ 0.3, 0.6 }), T({ 3, 9 }) },
    { function(a, b) return D.Geometric(a) end, T({ 0.3, 0.6 }), T({ 3, 0 }) },
  }
  local scale = T({ 1, 0.5 })
  for i, c in ipairs(pairs_) do
    local cpu = c[1](c[2], scale)
    local gpu = c[1](c[2]:to('cuda'), scale:to('cuda'))
    tester:assertTensorEq(gpu:logProb(c[3]:to('cuda')):double(), cpu:logProb(c[3]), 1e-10, 'cuda logProb ' .. i)
    tester:asserteq(gpu:sample({ 2 }):device():sub(1, 4), 'cuda', 'cuda sample ' .. i)
  end
end

tester:add(tests)
tester:run()
