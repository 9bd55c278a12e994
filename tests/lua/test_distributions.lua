-- torch.distributions, first group: Distribution, Normal, Uniform, Bernoulli, Categorical and
-- their KL divergences, against PyTorch 1.13's values (computed in double precision), closed-form
-- gradients, Monte-Carlo moments, shapes, broadcasting, reproducibility and argument errors.
local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/distributions_check.lua')
local D = torch.distributions
local tester = torch.Tester()
local tests = torch.TestSuite()
local T = torch.DoubleTensor
local TOL = 1e-12

-- All expected values below are PyTorch 1.13's (torch.set_default_dtype(torch.float64)).
function tests.normalValues()
  local n = D.Normal(T({ 0, 1 }), T({ 2, 0.5 }))
  local v = T({ 0.5, -0.3 })
  H.close(tester, n:logProb(v), { -1.643335713764618, -3.6057913526447276 }, TOL, 'logProb')
  H.close(tester, n:entropy(), { 2.112085713764618, 0.7257913526447274 }, TOL, 'entropy')
  H.close(tester, n:cdf(v), { 0.5987063256829237, 0.004661188023718732 }, TOL, 'cdf')
  H.close(tester, n:icdf(T({ 0.9, 0.05 })), { 2.5631031310892016, 0.17757318652426346 }, 1e-10, 'icdf')
  H.close(tester, n:mean(), { 0, 1 }, 0, 'mean')
  H.close(tester, n:variance(), { 4, 0.25 }, TOL, 'variance')
  H.close(tester, n:stddev(), { 2, 0.5 }, 0, 'stddev')
  H.close(tester, n:mode(), { 0, 1 }, 0, 'mode')
  -- icdf inverts cdf.
  H.close(tester, n:icdf(n:cdf(v)), { 0.5, -0.3 }, 1e-9, 'icdf(cdf)')
end

function tests.uniformValues()
  local u = D.Uniform(T({ 0, -1 }), T({ 1, 3 }))
  H.close(tester, u:logProb(T({ 0.5, 2 })), { 0, -1.3862943611198906 }, TOL, 'logProb')
  H.close(tester, u:entropy(), { 0, 1.3862943611198906 }, TOL, 'entropy')
  H.close(tester, u:cdf(T({ 0.25, 0 })), { 0.25, 0.25 }, TOL, 'cdf')
  H.close(tester, u:icdf(T({ 0.3, 0.9 })), { 0.3, 2.6 }, TOL, 'icdf')
  H.close(tester, u:mean(), { 0.5, 1 }, TOL, 'mean')
  H.close(tester, u:variance(), { 0.08333333333333333, 1.3333333333333333 }, TOL, 'variance')
  -- Outside [low, high) the density is 0 when values are not validated.
  local lax = D.Uniform(0, 1, { validateArgs = false })
  H.close(tester, lax:logProb(T({ -0.5, 1, 0 })), { -math.huge, -math.huge, 0 }, 0, 'logProb outside')
  H.close(tester, lax:cdf(T({ -0.5, 2 })), { 0, 1 }, 0, 'cdf clamps')
end

function tests.bernoulliValues()
  local b = D.Bernoulli(T({ 0.3, 0, 0.9 }))
  H.close(tester, b:logProb(T({ 1, 0, 0 })), { -1.203972804325936, -2.2204460492503128e-16, -2.302585092994046 }, TOL, 'logProb')
  H.close(tester, b:entropy(), { 0.6108643020548934, 2.2204460492503128e-16, 0.32508297339144826 }, TOL, 'entropy')
  H.close(tester, b:mean(), { 0.3, 0, 0.9 }, 0, 'mean')
  H.close(tester, b:variance(), { 0.21, 0, 0.09 }, TOL, 'variance')
  H.close(tester, D.Bernoulli(T({ 0.2, 0.5, 0.7 })):mode(), { 0, 0 / 0, 1 }, 0, 'mode')
  local l = D.Bernoulli(nil, T({ -1.5, 2 }))
  H.close(tester, l:logProb(T({ 1, 0 })), { -1.7014132779827524, -2.1269280110429727 }, TOL, 'logits logProb')
  H.close(tester, l:entropy(), { 0.47505156369228696, 0.36533385508720795 }, TOL, 'logits entropy')
  H.close(tester, l.probs, { 0.18242552380635635, 0.8807970779778823 }, TOL, 'probs from logits')
  H.close(tester, D.Bernoulli({ logits = T({ -1.5 }) }).probs, { 0.18242552380635635 }, TOL, 'named logits')
end

function tests.categoricalValues()
  local c = D.Categorical(T({ { 1, 2, 3 }, { 0.5, 0.5, 0 } }))
  -- 1-based categories: PyTorch's indices 2 and 0 are 3 and 1 here.
  H.close(tester, c:logProb(torch.LongTensor({ 3, 1 })), { -0.6931471805599453, -0.6931471805599453 }, TOL, 'logProb')
  H.close(tester, c:entropy(), { 1.0114042647073518, 0.6931471805599453 }, TOL, 'entropy')
  H.close(tester, c.probs, { 1 / 6, 2 / 6, 3 / 6, 0.5, 0.5, 0 }, TOL, 'normalized probs')
  H.close(tester, c:mode(), { 3, 1 }, 0, 'mode')
  local l = D.Categorical({ logits = T({ 0.3, -1.2, 2.0, 0.1 }) })
  H.close(tester, l:logProb(torch.LongTensor({ 1, 2, 3, 4 })),
    { -2.0170085762969596, -3.517008576296959, -0.31700857629695944, -2.2170085762969594 }, TOL, 'logits logProb')
  H.close(tester, l:entropy(), { 0.8451759778932462 }, TOL, 'logits entropy')
  -- A value given as a number or a float tensor of whole numbers works too.
  H.close(tester, l:logProb(3), { -0.31700857629695944 }, TOL, 'number value')
  tester:asserteq(torch.type(l:sample({ 2 })), 'torch.LongTensor')
end

function tests.klClosedForms()
  H.close(tester, D.klDivergence(D.Normal(T({ 0, 1 }), T({ 1, 2 })), D.Normal(T({ 0.5, -1 }), T({ 2, 0.3 }))),
    { 0.3493971805599453, 42.04732445955857 }, TOL, 'Normal')
  H.close(tester, D.klDivergence(D.Bernoulli(T({ 0.3, 0, 0.9, 0.2 })), D.Bernoulli(T({ 0.6, 0.5, 1, 0 }))),
    { 0.1837868973868122, 0.6931471805599451, math.huge, math.huge }, 1e-12, 'Bernoulli')
  H.close(tester, D.klDivergence(D.Categorical(T({ { 0.2, 0.3, 0.5 }, { 0.5, 0.5, 0 } })),
    D.Categorical(T({ { 0.1, 0.1, 0.8 }, { 0.2, 0, 0.8 } }))), { 0.2332113080895541, math.huge }, TOL, 'Categorical')
  H.close(tester, D.klDivergence(D.Uniform(T({ 0, 0, -1 }), T({ 1, 2, 1 })), D.Uniform(T({ -1, 0.5, -1 }), T({ 2, 3, 1 }))),
    { 1.0986122886681098, math.huge, 0 }, TOL, 'Uniform')
  H.fails(tester, function() return D.klDivergence(D.Normal(0, 1), D.Bernoulli(0.5)) end,
    { 'distributions.klDivergence', 'Normal', 'Bernoulli' }, 'unregistered pair')
end

-- KL(p || q) = E_p[log p(x) - log q(x)], estimated from n draws of p.
function tests.klMonteCarlo()
  torch.manualSeed(1)
  local n = 200000
  local pairs_ = {
    { D.Normal(T({ 0.3 }), T({ 1.2 })), D.Normal(T({ -0.5 }), T({ 2 })) },
    { D.Uniform(T({ 0 }), T({ 1 })), D.Uniform(T({ -0.5 }), T({ 2 })) },
    { D.Bernoulli(T({ 0.3 })), D.Bernoulli(T({ 0.6 })) },
    { D.Categorical(T({ { 0.2, 0.3, 0.5 } })), D.Categorical(T({ { 0.5, 0.25, 0.25 } })) },
  }
  for i, pq in ipairs(pairs_) do
    local p, q = pq[1], pq[2]
    local x = p:sample({ n })
    local diff = (p:logProb(x) - q:logProb(x)):view(n)
    H.mc(tester, diff, H.num(D.klDivergence(p, q)), 5, 'KL pair ' .. i)
  end
end

function tests.registerKl()
  local called
  D.registerKl(D.Uniform, D.Normal, function(p, q) called = true return p.low * 0 end)
  D.klDivergence(D.Uniform(0, 1), D.Normal(0, 1))
  tester:assert(called, 'registered function used')
  H.fails(tester, function() D.registerKl(D.Uniform, 'x', 1) end, { 'registerKl', 'function' }, 'bad fn')
  H.fails(tester, function() D.registerKl({}, D.Normal, function() end) end, { 'registerKl', 'P' }, 'bad class')
end

function tests.shapesAndBroadcasting()
  local n = D.Normal(0, 1)
  H.size_is(tester, n.batchShape, {}, 'scalar batch')
  H.size_is(tester, n:sample(), {}, 'scalar sample')
  H.size_is(tester, n:rsample({ 4, 2 }), { 4, 2 }, 'scalar rsample')
  H.size_is(tester, n:logProb(T({ 1, 2, 3 })), { 3 }, 'scalar logProb of a vector')
  tester:asserteq(torch.type(n:sample()), torch.getdefaulttensortype(), 'numbers give the default type')
  local b = D.Normal(torch.zeros(2, 1), torch.ones(3))
  H.size_is(tester, b.batchShape, { 2, 3 }, 'broadcast batch')
  H.size_is(tester, b:sample({ 5 }), { 5, 2, 3 }, 'sample')
  H.size_is(tester, b:rsample(torch.LongStorage({ 4, 1 })), { 4, 1, 2, 3 }, 'LongStorage sample shape')
  H.size_is(tester, b:logProb(torch.zeros(3)), { 2, 3 }, 'logProb broadcasts value')
  H.size_is(tester, b:logProb(torch.zeros(7, 2, 3)), { 7, 2, 3 }, 'logProb of samples')
  H.size_is(tester, b:entropy(), { 2, 3 }, 'entropy')
  tester:asserteq(torch.type(D.Normal(T({ 1 }), 1):sample()), 'torch.DoubleTensor', 'tensor type kept')
  tester:asserteq(torch.type(D.Normal(torch.LongTensor({ 1 }), 1).loc), torch.getdefaulttensortype(), 'integer params')
  local u = D.Uniform(torch.zeros(3), 2)
  H.size_is(tester, u:sample({ 2 }), { 2, 3 }, 'Uniform sample')
  local be = D.Bernoulli(torch.Tensor(2, 2):fill(0.5))
  H.size_is(tester, be:sample({ 3 }), { 3, 2, 2 }, 'Bernoulli sample')
  local c = D.Categorical(torch.ones(2, 4))
  H.size_is(tester, c.batchShape, { 2 }, 'Categorical batch')
  H.size_is(tester, c:sample({ 5, 3 }), { 5, 3, 2 }, 'Categorical sample')
  H.size_is(tester, c:logProb(torch.LongTensor({ 1 })), { 2 }, 'Categorical logProb broadcasts')
  H.size_is(tester, D.Categorical(torch.ones(4)):sample(), {}, 'Categorical scalar sample')
  H.size_is(tester, n:expand({ 3, 2 }):sample({ 4 }), { 4, 3, 2 }, 'expand')
  H.size_is(tester, c:expand({ 5, 2 }):sample(), { 5, 2 }, 'Categorical expand')
  H.fails(tester, function() b:expand({ 3 }) end, { 'distributions.Normal', 'expand' }, 'bad expand')
  H.fails(tester, function() D.Normal(torch.zeros(2), torch.ones(3)) end, { 'distributions.Normal', 'broadcast' }, 'bad shapes')
  H.fails(tester, function() b:logProb(torch.zeros(4)) end, { 'distributions.Normal', 'broadcast' }, 'bad value shape')
  H.fails(tester, function() n:sample({ -1 }) end, { 'distributions.Normal', 'sample shape' }, 'bad sample shape')
end

function tests.sampleMoments()
  torch.manualSeed(123)
  local n = 100000
  local cases = {
    { 'Normal', D.Normal(T({ 0, 3 }), T({ 1, 0.5 })) },
    { 'Uniform', D.Uniform(T({ -1, 2 }), T({ 1, 7 })) },
    { 'Bernoulli', D.Bernoulli(T({ 0.1, 0.5, 0.95 })) },
  }
  for _, c in ipairs(cases) do
    H.moments(tester, c[2]:sample({ n }), c[2]:mean(), c[2]:variance(), 5, c[1])
  end
  -- Categorical frequencies against probs (a one-hot view of the draws).
  local probs = T({ 0.1, 0.2, 0.3, 0.4 })
  local x = D.Categorical(probs):sample({ n })
  local onehot = torch.eq(x:view(n, 1), torch.range(1, 4):long():view(1, 4)):double()
  H.moments(tester, onehot, probs, torch.cmul(probs, 1 - probs), 5, 'Categorical')
end

function tests.rsampleGradients()
  torch.manualSeed(7)
  local loc = T({ 0.5, -1 }):requiresGrad()
  local scale = T({ 2, 0.3 }):requiresGrad()
  local d = D.Normal(loc, scale)
  local x = d:rsample({ 1000 })
  torch.sum(x):backward()
  -- x = loc + scale eps: d sum(x) / d loc = n, d / d scale = sum(eps).
  H.close(tester, loc.grad, { 1000, 1000 }, 1e-12, 'd/dloc')
  local eps = torch.sum((x:detach() - loc:detach()) / scale:detach(), 1):view(2)
  H.close(tester, scale.grad, eps:totable(), 1e-9, 'd/dscale')
  -- Uniform: x = low + (high - low) u.
  local low, high = T({ 0 }):requiresGrad(), T({ 3 }):requiresGrad()
  local ux = D.Uniform(low, high):rsample({ 500 })
  torch.sum(ux):backward()
  local su = torch.sum(ux:detach() / 3)
  H.close(tester, high.grad, { su }, 1e-9, 'd/dhigh')
  H.close(tester, low.grad, { 500 - su }, 1e-9, 'd/dlow')
  -- logProb and entropy gradients against central differences.
  local v = T({ 0.7, -0.2 })
  local s2 = T({ 1.5, 0.8 }):requiresGrad()
  torch.sum(D.Normal(T({ 0.1, 0.3 }), s2):logProb(v)):backward()
  local ng = H.numgrad(function(s) return torch.sum(D.Normal(T({ 0.1, 0.3 }), s):logProb(v)) end, s2:detach():clone())
  H.close(tester, s2.grad, ng:totable(), 1e-6, 'd logProb / d scale')
  local lg = T({ 0.4, -2 }):requiresGrad()
  torch.sum(D.Bernoulli(nil, lg):entropy()):backward()
  local ng2 = H.numgrad(function(l) return torch.sum(D.Bernoulli(nil, l):entropy()) end, lg:detach():clone())
  H.close(tester, lg.grad, ng2:totable(), 1e-6, 'd entropy / d logits')
  -- d/dl_j of log p_3 + log p_1 = [j = 3] + [j = 1] - 2 p_j (p = softmax(l)).
  local cl = T({ 0.3, -1.2, 2.0 }):requiresGrad()
  torch.sum(D.Categorical(nil, cl):logProb(torch.LongTensor({ 3, 1 }))):backward()
  local sp = torch.softmax(cl:detach(), 1)
  H.close(tester, cl.grad, { 1 - 2 * sp[1], -2 * sp[2], 1 - 2 * sp[3] }, 1e-12, 'Categorical d logProb / d logits')
  local s3 = T({ 2 }):requiresGrad()
  torch.sum(D.Normal(0, s3):entropy()):backward()
  H.close(tester, s3.grad, { 0.5 }, 1e-12, 'd entropy / d scale = 1 / scale')
  H.fails(tester, function() D.Bernoulli(0.5):rsample() end, { 'distributions.Bernoulli', 'rsample' }, 'no rsample')
  tester:asserteq(D.Bernoulli(0.5).hasRsample, false)
  tester:asserteq(D.Normal(0, 1).hasRsample, true)
  tester:assert(not D.Normal(loc, scale):sample():needsGrad(), 'sample carries no gradient')
  tester:assert(D.Normal(loc, scale):rsample():needsGrad(), 'rsample carries one')
end

function tests.reproducible()
  for _, make in ipairs({ function() return D.Normal(0, 1) end, function() return D.Uniform(0, 1) end,
                          function() return D.Bernoulli(0.4) end, function() return D.Categorical(torch.ones(5)) end }) do
    torch.manualSeed(42)
    local a = make():sample({ 20 })
    torch.manualSeed(42)
    local b = make():sample({ 20 })
    tester:assertTensorEq(a:double(), b:double(), 0, 'same seed, same draws')
  end
end

function tests.validateArgs()
  H.fails(tester, function() D.Normal(0, -1) end, { 'distributions.Normal', 'scale', 'positive', '-1' }, 'negative scale')
  H.fails(tester, function() D.Normal(0, T({ 1, 0 })) end, { 'distributions.Normal', 'scale', 'element 2' }, 'zero scale')
  H.fails(tester, function() D.Normal(0 / 0, 1) end, { 'distributions.Normal', 'loc' }, 'NaN loc')
  H.fails(tester, function() D.Normal('a', 1) end, { 'distributions.Normal', 'loc', 'string' }, 'string loc')
  H.fails(tester, function() D.Uniform(1, 0) end, { 'distributions.Uniform', 'low must be less than high' }, 'low >= high')
  H.fails(tester, function() D.Bernoulli(1.5) end, { 'distributions.Bernoulli', 'probs', '[0, 1]', '1.5' }, 'probs > 1')
  H.fails(tester, function() D.Bernoulli(0.5, 0) end, { 'distributions.Bernoulli', 'exactly one', 'both' }, 'both')
  H.fails(tester, function() D.Bernoulli() end, { 'distributions.Bernoulli', 'neither' }, 'neither')
  H.fails(tester, function() D.Categorical(T({ 0.5, -0.1 })) end, { 'distributions.Categorical', 'probs' }, 'negative probs')
  H.fails(tester, function() D.Categorical(T({ 1 }), T({ 0 })) end, { 'distributions.Categorical', 'both' }, 'both')
  H.fails(tester, function() D.Categorical(0.5) end, { 'distributions.Categorical', 'at least one dim' }, 'scalar probs')
  H.fails(tester, function() D.Normal(0, 1, { foo = 1 }) end, { 'distributions.Normal', 'unknown option foo' }, 'option')
  H.fails(tester, function() D.Normal(0, 1, { loc = 1 }) end, { 'distributions.Normal', 'both' }, 'loc twice')
  -- Values outside the support.
  H.fails(tester, function() D.Bernoulli(0.5):logProb(0.5) end, { 'distributions.Bernoulli', 'value', '0 or 1' }, 'Bernoulli value')
  -- high itself is in the support (PyTorch 1.13's closed interval; Note [Uniform support is closed])
  H.fails(tester, function() D.Uniform(0, 1):logProb(T({ 0.5, 1.5 })) end, { 'distributions.Uniform', 'value', '1.5' }, 'Uniform value')
  H.fails(tester, function() D.Categorical(torch.ones(3)):logProb(0) end, { 'distributions.Categorical', '[1, 3]' }, 'category 0')
  H.fails(tester, function() D.Categorical(torch.ones(3)):logProb(1.5) end, { 'distributions.Categorical', 'integer' }, 'category 1.5')
  H.fails(tester, function() D.Normal(0, 1):icdf(1.5) end, { 'distributions.Normal', 'p', '[0, 1]' }, 'icdf p')
  H.fails(tester, function() D.Normal(0, 1):logProb('x') end, { 'distributions.Normal', 'value', 'string' }, 'value type')
  -- validateArgs = false skips the checks; setDefaultValidateArgs changes the default.
  local lax = D.Normal(0, -1, { validateArgs = false })
  tester:asserteq(lax.validateArgs, false)
  H.close(tester, D.Bernoulli(0.5, nil, { validateArgs = false }):logProb(0.5), { -0.6931471805599453 }, 1e-6, 'lax Bernoulli')
  D.setDefaultValidateArgs(false)
  local ok = pcall(D.Normal, 0, -1)
  D.setDefaultValidateArgs(true)
  tester:assert(ok, 'default off')
  tester:assert(not pcall(D.Normal, 0, -1), 'default back on')
end

function tests.printing()
  tester:asserteq(tostring(D.Normal(0, 2)), 'Normal(loc: 0, scale: 2)')
  tester:assert(tostring(D.Categorical(torch.ones(2, 3))):find('Categorical(probs: torch.FloatTensor of size 2x3', 1, true))
  tester:asserteq(torch.typename(D.Uniform(0, 1)), 'torch.distributions.Uniform')
  tester:assert(torch.isTypeOf(D.Normal(0, 1), 'torch.distributions.Distribution'))
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  local cpu = D.Normal(T({ 0, 1 }), T({ 2, 0.5 }))
  local gpu = D.Normal(T({ 0, 1 }):to('cuda'), T({ 2, 0.5 }):to('cuda'))
  local v = T({ 0.5, -0.3 })
  tester:assertTensorEq(gpu:logProb(v:to('cuda')):double(), cpu:logProb(v), 1e-12, 'Normal logProb cuda')
  tester:asserteq(gpu:sample({ 3 }):device():sub(1, 4), 'cuda', 'samples stay on the device')
  local cc = D.Categorical(T({ { 1, 2, 3 }, { 1, 1, 0 } }):to('cuda'))
  tester:assertTensorEq(cc:entropy():double(), D.Categorical(T({ { 1, 2, 3 }, { 1, 1, 0 } })):entropy(), 1e-12, 'Categorical cuda')
  tester:assertTensorEq(cc:logProb(torch.LongTensor({ 3, 1 }):to('cuda')):double(),
    D.Categorical(T({ { 1, 2, 3 }, { 1, 1, 0 } })):logProb(torch.LongTensor({ 3, 1 })), 1e-12, 'Categorical logProb cuda')
  H.size_is(tester, cc:sample({ 4 }), { 4, 2 }, 'Categorical cuda sample')
  local b = D.Bernoulli(T({ 0.3, 0.9 }):to('cuda'))
  tester:assertTensorEq(b:logProb(T({ 1, 0 }):to('cuda')):double(), D.Bernoulli(T({ 0.3, 0.9 })):logProb(T({ 1, 0 })), 1e-12, 'Bernoulli cuda')
  local u = D.Uniform(T({ 0 }):to('cuda'), 2)
  tester:assertTensorEq(u:entropy():double(), T({ math.log(2) }), 1e-12, 'Uniform cuda')
  tester:assertTensorEq(D.klDivergence(gpu, gpu):double(), T({ 0, 0 }), 1e-12, 'KL cuda')
end

-- A number parameter beside double tensors is made in double: through the default float type,
-- Normal(DoubleTensor, 0.7).scale was 0.69999998807907.
function tests.numberParametersKeepTheirPrecision()
  local d = torch.distributions.Normal(torch.DoubleTensor({ 0 }), 0.7)
  tester:asserteq(torch.type(d.scale), 'torch.DoubleTensor')
  tester:asserteq(d.scale[1], 0.7, 'exactly 0.7 in double')
end

-- Exponential's cdf at small values keeps its relative precision (1 - exp(-x) is off by 2e-5 relative at 2e-12)
function tests.exponentialCdfAtSmallValues()
  local c = torch.distributions.Exponential(torch.DoubleTensor({ 2 })):cdf(torch.DoubleTensor({ 1e-12 }))
  tester:assertle(math.abs(c[1] - 2e-12) / 2e-12, 1e-10, 'cdf(1e-12) = 2e-12 to 1e-10 relative')
end

tester:add(tests)
tester:run()
