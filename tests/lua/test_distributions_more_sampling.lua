-- Sampling of StudentT, FisherSnedecor, VonMises, ContinuousBernoulli, Multinomial and
-- NegativeBinomial: Monte-Carlo moments (seeded, tolerances from the sample size), rsample
-- gradients (exact identities, finite differences at fixed noise, Monte-Carlo against closed
-- forms), sample = rsample without gradient, CUDA against CPU.
local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/distributions_check.lua')
local D = torch.distributions
local tester = torch.Tester()
local tests = torch.TestSuite()
local T = torch.DoubleTensor
local N = 40000

-- Sample mean and variance of d's draws (N of them) against d:mean() and d:variance().
local function check_moments(d, msg, n)
  local x = d:sample({ n or N })
  H.moments(tester, x, d:mean(), d:variance(), 5, msg)
  return x
end

function tests.studentTMoments()
  torch.manualSeed(1)
  -- df > 8 so that the variance's standard error (fourth moment) is finite.
  check_moments(D.StudentT(T({ 10, 30 }), T({ 1, -2 }), T({ 2, 0.5 })), 'StudentT')
end

function tests.fisherSnedecorMoments()
  torch.manualSeed(2)
  check_moments(D.FisherSnedecor(T({ 5, 10 }), T({ 20, 30 })), 'FisherSnedecor')
end

function tests.vonMisesMoments()
  -- E[cos(x - loc)] = I1(k) / I0(k) = 1 - variance(), E[sin(x - loc)] = 0; draws in [-pi, pi).
  torch.manualSeed(3)
  local locs, ks = { 0, 1, -3, 2.5 }, { 1e-3, 0.5, 4, 50 }
  local d = D.VonMises(T(locs), T(ks))
  local x = d:sample({ N })
  H.size_is(tester, x, { N, 4 }, 'size')
  tester:assert(x:min() >= -math.pi and x:max() < math.pi, 'range [-pi, pi)')
  local r = 1 - d:variance()
  for j = 1, 4 do
    local c = x:select(2, j) - locs[j]
    H.mc(tester, torch.cos(c), r[j], 5, 'E cos, k = ' .. ks[j])
    H.mc(tester, torch.sin(c), 0, 5, 'E sin, k = ' .. ks[j])
  end
  -- Float parameters, and a concentration where the proposal needs its Taylor form.
  local f = D.VonMises(torch.FloatTensor({ 0.5, 0 }), torch.FloatTensor({ 1e-6, 2 })):sample({ N })
  tester:asserteq(f:type(), 'torch.FloatTensor')
  H.mc(tester, torch.cos(f:select(2, 1):double() - 0.5), 5e-7, 5, 'float E cos, k = 1e-6')
  H.mc(tester, torch.cos(f:select(2, 2):double()), 1 - H.num(D.VonMises(0, T({ 2 })):variance()), 5, 'float E cos, k = 2')
  H.size_is(tester, D.VonMises(T({ 0, 1 }), 1):sample({ 0 }), { 0, 2 }, 'no draws')
  H.size_is(tester, D.VonMises(0, 1):sample(), {}, 'one 0-dim draw')
end

function tests.continuousBernoulliMoments()
  torch.manualSeed(4)
  -- 0.4995 lies in the Taylor region (uniform icdf there).
  local x = check_moments(D.ContinuousBernoulli(T({ 0.2, 0.4995, 0.9, 0.999 })), 'ContinuousBernoulli')
  tester:assert(x:min() >= 0 and x:max() <= 1, 'range [0, 1]')
  check_moments(D.ContinuousBernoulli(nil, T({ -3, 1 })), 'ContinuousBernoulli logits')
end

function tests.multinomialMoments()
  torch.manualSeed(5)
  local p = T({ { 0.2, 0.3, 0.5 }, { 0.7, 0.3, 0 } })
  -- totalCount <= K draws categorical indices; larger ones, binomial counts (Note
  -- [Multinomial sampling]): both paths.
  for _, n in ipairs({ 2, 3, 40 }) do
    local d = D.Multinomial(n, p)
    local x = check_moments(d, 'Multinomial n = ' .. n)
    H.close(tester, torch.sum(x, 3):min(), { n }, 0, 'counts sum to n (min)')
    H.close(tester, torch.sum(x, 3):max(), { n }, 0, 'counts sum to n (max)')
    H.close(tester, x:select(3, 3):select(2, 2):max(), { 0 }, 0, 'a zero-probability category stays 0')
    -- Cov(x1, x2) = -n p1 p2.
    local a, b = x:select(2, 1):select(2, 1), x:select(2, 1):select(2, 2)
    H.mc(tester, torch.cmul(a - n * 0.2, b - n * 0.3), -n * 0.06, 5, 'covariance n = ' .. n)
  end
  H.size_is(tester, D.Multinomial(3, p):sample({ 2, 5 }), { 2, 5, 2, 3 }, 'sample shape')
  H.close(tester, D.Multinomial(0, p):sample({ 2 }):sum(), { 0 }, 0, 'totalCount 0')
end

function tests.negativeBinomialMoments()
  torch.manualSeed(6)
  local x = check_moments(D.NegativeBinomial(T({ 5, 0.5, 20 }), T({ 0.3, 0.8, 0.05 })), 'NegativeBinomial')
  H.close(tester, torch.ne(x, torch.floor(x)):sum(), { 0 }, 0, 'whole numbers')
  check_moments(D.NegativeBinomial(T({ 3 }), nil, T({ -1 })), 'NegativeBinomial logits')
  H.close(tester, D.NegativeBinomial(T({ 0 }), T({ 0.5 })):sample({ 10 }):sum(), { 0 }, 0, 'totalCount 0 gives 0')
end

-- n draws per column: a leaf of size n x #vals whose column j holds vals[j], so that backward
-- gives each draw's own pathwise derivative.
local function leaf(vals)
  return T(vals):view(1, #vals):expand(N, #vals):clone():requiresGrad()
end

function tests.studentTRsample()
  -- x = loc + scale y: dx/dloc = 1 and dx/dscale = (x - loc) / scale, draw by draw.
  torch.manualSeed(7)
  local df, loc, scale = T({ 4, 9 }):requiresGrad(), T({ 1, -1 }):requiresGrad(), T({ 2, 0.5 }):requiresGrad()
  local x = D.StudentT(df, loc, scale):rsample({ 100 })
  torch.sum(x):backward()
  H.close(tester, loc.grad, { 100, 100 }, 1e-12, 'd / dloc')
  local y = (x:detach() - loc:detach():view(1, 2)) / scale:detach():view(1, 2)
  H.close(tester, scale.grad, torch.sum(y, 1):totable()[1], 1e-10, 'd / dscale')
  -- The same at fixed noise (reseeded), by finite differences.
  torch.autograd.gradcheck(function(l, s)
    torch.manualSeed(8)
    return D.StudentT(T({ 5, 3 }), l, s):rsample({ 3 })
  end, { T({ 0.5, 2 }):requiresGrad(), T({ 1.5, 0.3 }):requiresGrad() })
  -- df: E[y^2] = df / (df - 2), so the pathwise d y^2 / d df averages to -2 / (df - 2)^2.
  local dfs = { 6, 10 }
  local d = leaf(dfs)
  torch.sum(torch.pow(D.StudentT(d):rsample(), 2)):backward()
  for j = 1, 2 do H.mc(tester, d.grad:select(2, j), -2 / (dfs[j] - 2) ^ 2, 5, 'd E[y^2] / d df = ' .. dfs[j]) end
end

function tests.fisherSnedecorRsample()
  torch.manualSeed(9)
  -- E[y] = d2 / (d2 - 2): d/dd1 = 0, d/dd2 = -2 / (d2 - 2)^2. E[log y] = digamma(d1/2) -
  -- log d1 - digamma(d2/2) + log d2: d/dd1 = trigamma(d1/2)/2 - 1/d1, d/dd2 = 1/d2 -
  -- trigamma(d2/2)/2 (mpmath's trigamma(1.5) = 0.934802200544679, trigamma(5) = 0.221322955737115).
  local a, b = leaf({ 3 }), leaf({ 10 })
  torch.sum(D.FisherSnedecor(a, b):rsample()):backward()
  H.mc(tester, a.grad, 0, 5, 'd E[y] / d df1')
  H.mc(tester, b.grad, -2 / 64, 5, 'd E[y] / d df2')
  local a2, b2 = leaf({ 3 }), leaf({ 10 })
  torch.sum(torch.log(D.FisherSnedecor(a2, b2):rsample())):backward()
  H.mc(tester, a2.grad, 0.934802200544679 / 2 - 1 / 3, 5, 'd E[log y] / d df1')
  H.mc(tester, b2.grad, 0.1 - 0.221322955737115 / 2, 5, 'd E[log y] / d df2')
end

function tests.continuousBernoulliRsample()
  -- rsample = icdf(u): at fixed noise, against finite differences (probs and logits; 0.4995 is in
  -- the Taylor region, where the draw is u itself and the gradient 0).
  local gc = torch.autograd.gradcheck
  gc(function(p) torch.manualSeed(10) return D.ContinuousBernoulli(p):rsample({ 4 }) end, { T({ 0.1, 0.4995, 0.8 }):requiresGrad() })
  gc(function(l) torch.manualSeed(11) return D.ContinuousBernoulli(nil, l):rsample({ 4 }) end, { T({ -2, 0.7 }):requiresGrad() })
  -- d E[x] / dp by Monte Carlo against d mean() / dp (autograd of the gradchecked closed form).
  torch.manualSeed(12)
  local ps = { 0.15, 0.7 }
  local p = leaf(ps)
  torch.sum(D.ContinuousBernoulli(p):rsample()):backward()
  local q = T(ps):requiresGrad()
  torch.sum(D.ContinuousBernoulli(q):mean()):backward()
  for j = 1, 2 do H.mc(tester, p.grad:select(2, j), q.grad[j], 5, 'd E[x] / dp, p = ' .. ps[j]) end
end

function tests.sampleIsRsampleWithoutGradient()
  local a = T({ 4, 7 }):requiresGrad()
  for _, make in ipairs({ function() return D.StudentT(a, 0, 1) end, function() return D.FisherSnedecor(a, 5) end,
                          function() return D.ContinuousBernoulli(a / 10) end }) do
    local d = make()
    local name = torch.typename(d)
    tester:asserteq(d.hasRsample, true, name .. ' hasRsample')
    torch.manualSeed(13)
    local s = d:sample({ 5 })
    torch.manualSeed(13)
    local r = d:rsample({ 5 })
    tester:assert(not s:needsGrad(), name .. ': sample carries no gradient')
    tester:assert(r:needsGrad(), name .. ': rsample does')
    tester:assertTensorEq(s, r:detach(), 0, name .. ': same draws for the same seed')
  end
  for _, d in ipairs({ D.VonMises(0, 1), D.Multinomial(3, T({ 1, 1 })), D.NegativeBinomial(2, 0.5) }) do
    tester:asserteq(d.hasRsample, false, torch.typename(d) .. ' hasRsample')
    H.fails(tester, function() d:rsample() end, { 'rsample' }, torch.typename(d) .. ' rsample')
  end
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  torch.manualSeed(14)
  local cases = {
    { D.StudentT, { T({ 10 }), T({ 1 }), T({ 2 }) }, T({ 0.5 }) },
    { D.FisherSnedecor, { T({ 5 }), T({ 20 }) }, T({ 1.3 }) },
    { D.VonMises, { T({ 1 }), T({ 3 }) }, T({ 0.5 }) },
    { D.ContinuousBernoulli, { T({ 0.2 }) }, T({ 0.3 }) },
    { D.NegativeBinomial, { T({ 5 }), T({ 0.3 }) }, T({ 2 }) },
    { D.Multinomial, { 40, T({ 0.2, 0.3, 0.5 }) }, T({ 10, 10, 20 }) },
    { D.Multinomial, { 2, T({ 0.2, 0.3, 0.5 }) }, T({ 1, 0, 1 }) },
  }
  for _, c in ipairs(cases) do
    local make, args, v = c[1], c[2], c[3]
    local cpu = make(unpack(args))
    local gargs = {}
    for i, a in ipairs(args) do gargs[i] = torch.isTensor(a) and a:cuda() or a end
    local gpu = make(unpack(gargs))
    local name = torch.typename(cpu)
    tester:assertTensorEq(gpu:logProb(v:cuda()):double():cpu(), cpu:logProb(v), 1e-10, name .. ' CUDA logProb')
    local x = gpu:sample({ N })
    tester:assert(x:isCuda(), name .. ' CUDA sample stays on the GPU')
    if name ~= 'torch.distributions.VonMises' then
      H.moments(tester, x:double():cpu(), cpu:mean(), cpu:variance(), 5, name .. ' CUDA moments')
    else
      H.mc(tester, torch.cos(x:double():cpu():view(N) - 1), H.num(1 - cpu:variance()), 5, 'VonMises CUDA E cos')
    end
  end
  local p = T({ 0.3 }):cuda():requiresGrad()
  torch.sum(D.ContinuousBernoulli(p):rsample({ 10 })):backward()
  tester:assert(p.grad ~= nil and p.grad:isCuda(), 'CUDA rsample gradient')
  local df = T({ 5 }):cuda():requiresGrad()
  torch.sum(D.StudentT(df):rsample({ 10 })):backward()
  tester:assert(df.grad ~= nil and df.grad:isCuda(), 'CUDA StudentT gradient')
end

tester:add(tests):run()
