-- torch.distributions.LowRankMultivariateNormal and its KL divergences (with itself and with
-- MultivariateNormal both ways): PyTorch 1.13's values (double precision), the dense
-- MultivariateNormal with the same covariance, Monte-Carlo moments and KL estimates, rsample,
-- logProb and KL gradients against central differences, argument errors.
local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/distributions_check.lua')
local D = torch.distributions
local tester = torch.Tester()
local tests = torch.TestSuite()
local T = torch.DoubleTensor
local TOL = 1e-12

local LOC = T({ 1, 2, 3 })
local W = T({ { 1, 0.5 }, { 0.2, -1 }, { 0.3, 0.3 } })
local DG = T({ 0.5, 1, 2 })
local LOCB = T({ { 0, 1, -1 }, { 2, 0, 0 } })
local DB = T({ { 0.5, 1, 2 }, { 1, 1, 1 } })
local L3 = T({ { 1.5, 0, 0 }, { 0.3, 0.8, 0 }, { -0.2, 0.4, 1.1 } })
-- torch.sum of a tensor without gradient is a number (Torch7), with one a 0-dim tensor.
local function num(v) return type(v) == 'number' and v or H.num(v) end
local function LR(...) return D.LowRankMultivariateNormal(...) end
local function Q() return LR(T({ 0.5, 0.5, 0.5 }), T({ { 0.3, 0.1 }, { 0.4, 0.2 }, { -0.5, 0.6 } }), T({ 1, 1.5, 0.7 })) end

-- All expected values below are PyTorch 1.13's (torch.set_default_dtype(torch.float64)).
function tests.values()
  local m = LR(LOC, W, DG)
  H.size_is(tester, m.batchShape, {}, 'batch')
  H.size_is(tester, m.eventShape, { 3 }, 'event')
  H.close(tester, m:logProb(T({ { 0.5, 1, 2 }, { 1, 1, 1 } })), { -4.332136961278938, -5.0475755725184825 }, TOL, 'logProb')
  H.close(tester, m:entropy(), { 5.239482876400904 }, TOL, 'entropy')
  H.close(tester, m:variance(), { 1.75, 2.04, 2.18 }, TOL, 'variance')
  H.close(tester, m:covarianceMatrix(), { 1.75, -0.3, 0.45, -0.3, 2.04, -0.24, 0.45, -0.24, 2.18 }, TOL, 'covarianceMatrix')
  H.close(tester, m:precisionMatrix(), { 0.6150224874952712, 0.07649951662393341, -0.11853221806565509, 0.07649951662393341,
    0.5061437798607316, 0.03993106636963558, -0.11853221806565509, 0.03993106636963558, 0.48757933672397125 }, TOL, 'precisionMatrix')
  H.close(tester, m:scaleTril(), { 1.3228756555322954, 0, 0, -0.2267786838055363, 1.4101671633432076, 0, 0.34016802570830446,
    -0.11548782803241785, 1.4321132203363214 }, TOL, 'scaleTril')
  H.close(tester, m:mean(), { 1, 2, 3 }, 0, 'mean')
  H.close(tester, m:mode(), { 1, 2, 3 }, 0, 'mode')
  -- Batched loc and covDiag with one shared covFactor.
  local mb = LR(LOCB, W, DB)
  H.size_is(tester, mb.batchShape, { 2 }, 'batch')
  H.size_is(tester, mb.covFactor, { 2, 3, 2 }, 'broadcast covFactor')
  H.close(tester, mb:logProb(T({ 0.3, 0.2, 0.1 })), { -4.131495542254938, -4.276022577207314 }, TOL, 'batched logProb')
  H.close(tester, mb:entropy(), { 5.239482876400904, 5.044456177505321 }, TOL, 'batched entropy')
  H.size_is(tester, mb:covarianceMatrix(), { 2, 3, 3 }, 'batched covarianceMatrix')
  -- Rank 1, n = 4.
  local m4 = LR(T({ 0, 0.5, -0.5, 1 }), T({ { 0.5 }, { 1 }, { -0.3 }, { 0.2 } }), T({ 1, 0.5, 0.8, 1.2 }))
  H.close(tester, m4:logProb(T({ 0.1, 0.2, 0.3, 0.4 })), { -4.432160704645204 }, TOL, 'rank-1 logProb')
end

-- The same distribution as a dense MultivariateNormal, in a batch of 2 x 3 with rank 2 over n = 5.
function tests.againstDenseMvn()
  torch.manualSeed(3)
  local loc, Wb, Dg = torch.randn(2, 1, 5):double(), torch.randn(3, 5, 2):double(), torch.rand(2, 3, 5):double() + 0.2
  local m = LR(loc, Wb, Dg)
  local cov = torch.matmul(Wb, Wb:transpose(2, 3)) + torch.diagEmbed(Dg)
  local dense = D.MultivariateNormal(loc, { covarianceMatrix = cov })
  local v = torch.randn(4, 2, 3, 5):double()
  tester:assertTensorEq(m:logProb(v), dense:logProb(v), 1e-10, 'logProb')
  tester:assertTensorEq(m:entropy(), dense:entropy(), 1e-10, 'entropy')
  tester:assertTensorEq(m:covarianceMatrix(), dense.covarianceMatrix, 1e-12, 'covarianceMatrix')
  tester:assertTensorEq(m:precisionMatrix(), dense.precisionMatrix, 1e-10, 'precisionMatrix')
  tester:assertTensorEq(m:scaleTril(), dense.scaleTril, 1e-10, 'scaleTril')
  tester:assertTensorEq(m:variance(), dense:variance(), 1e-12, 'variance')
  local e = m:expand({ 4, 2, 3 })
  H.size_is(tester, e.batchShape, { 4, 2, 3 }, 'expand')
  H.size_is(tester, e:rsample({ 2 }), { 2, 4, 2, 3, 5 }, 'expanded rsample')
  tester:assertTensorEq(e:logProb(v), dense:logProb(v), 1e-10, 'expanded logProb')
end

function tests.samples()
  torch.manualSeed(21)
  local n = 200000
  local m = LR(LOC, W, DG)
  local x = m:sample({ n })
  H.size_is(tester, x, { n, 3 }, 'sample')
  tester:assert(not x:needsGrad(), 'sample carries no gradient')
  H.moments(tester, x, m:mean(), m:variance(), 5, 'components')
  -- The off-diagonal covariances through projections: var(x1 + x2), var(x2 - x3).
  local C = m:covarianceMatrix()
  H.moments(tester, (x:select(2, 1) + x:select(2, 2)):view(n, 1), T({ { 3 } }),
    T({ { C[1][1] + C[2][2] + 2 * C[1][2] } }), 5, 'x1 + x2')
  H.moments(tester, (x:select(2, 2) - x:select(2, 3)):view(n, 1), T({ { -1 } }),
    T({ { C[2][2] + C[3][3] - 2 * C[2][3] } }), 5, 'x2 - x3')
  H.size_is(tester, LR(LOCB, W, DB):rsample({ 4, 5 }), { 4, 5, 2, 3 }, 'batched rsample')
  torch.manualSeed(8)
  local a = m:sample({ 5 })
  torch.manualSeed(8)
  tester:assertTensorEq(a, m:sample({ 5 }), 0, 'reproducible')
end

-- Central differences of f at fixed seed: rsample is then a smooth function of the parameters.
local function seeded_grad(f, x, seed)
  return H.numgrad(function(t)
    torch.manualSeed(seed)
    return num(f(t))
  end, x:clone())
end

function tests.rsampleGradients()
  local function loss(loc, Wf, Dg)
    local x = LR(loc, Wf, Dg):rsample({ 6 })
    return torch.sum(torch.sin(x) + torch.pow(x, 2) * 0.1)
  end
  local loc, Wf, Dg = LOCB:clone():requiresGrad(), W:clone():requiresGrad(), DB:clone():requiresGrad()
  torch.manualSeed(11)
  loss(loc, Wf, Dg):backward()
  H.close(tester, loc.grad, seeded_grad(function(t) return loss(t, W, DB) end, LOCB, 11):view(6):totable(), 1e-7, 'd/dloc')
  H.close(tester, Wf.grad, seeded_grad(function(t) return loss(LOCB, t, DB) end, W, 11):view(6):totable(), 1e-7, 'd/dcovFactor')
  H.close(tester, Dg.grad, seeded_grad(function(t) return loss(LOCB, W, t) end, DB, 11):view(6):totable(), 1e-7, 'd/dcovDiag')
end

function tests.logProbGradients()
  local v = T({ { 0.5, 1, 2 }, { 1, -1, 4 } })
  local function f(loc, Wf, Dg) return torch.sum(LR(loc, Wf, Dg):logProb(v)) + torch.sum(LR(loc, Wf, Dg):entropy()) end
  local loc, Wf, Dg = LOC:clone():requiresGrad(), W:clone():requiresGrad(), DG:clone():requiresGrad()
  f(loc, Wf, Dg):backward()
  local g = function(fn, x) return H.numgrad(function(t) return num(fn(t)) end, x:clone()) end
  H.close(tester, loc.grad, g(function(t) return f(t, W, DG) end, LOC):totable(), 1e-7, 'd/dloc')
  H.close(tester, Wf.grad, g(function(t) return f(LOC, t, DG) end, W):view(6):totable(), 1e-7, 'd/dcovFactor')
  H.close(tester, Dg.grad, g(function(t) return f(LOC, W, t) end, DG):totable(), 1e-7, 'd/dcovDiag')
  -- The dense matrices are differentiable too: d sum(precision) / d covDiag.
  local Dg2 = DG:clone():requiresGrad()
  torch.sum(LR(LOC, W, Dg2):precisionMatrix()):backward()
  H.close(tester, Dg2.grad, g(function(t) return torch.sum(LR(LOC, W, t):precisionMatrix()) end, DG):totable(), 1e-7, 'precision d/dcovDiag')
end

function tests.kl()
  local kl = D.klDivergence
  local m, mb, q = LR(LOC, W, DG), LR(LOCB, W, DB), Q()
  local mv = D.MultivariateNormal(T({ 0.5, 0.5, 0.5 }), { covarianceMatrix = torch.eye(3):double() * 2 + 0.3 })
  local mvb = D.MultivariateNormal(LOCB, { scaleTril = L3 })
  H.close(tester, kl(m, q), { 3.5772522247850453 }, TOL, 'LowRank-LowRank')
  H.close(tester, kl(mb, q), { 1.3455737574451243, 1.5202073962175584 }, TOL, 'batched LowRank-LowRank')
  H.close(tester, kl(m, mv), { 1.749386996407205 }, TOL, 'LowRank-MVN')
  H.close(tester, kl(mv, m), { 2.3355175362157263 }, TOL, 'MVN-LowRank')
  H.close(tester, kl(mv, mb), { 0.6572918766525868, 1.1048166778697248 }, TOL, 'MVN-batched LowRank')
  H.close(tester, kl(mvb, q), { 1.5115325773200805, 1.6449917475449656 }, TOL, 'batched MVN-LowRank')
  -- PyTorch fails on this one (covDiag batched, covFactor not: Note [Low-rank KL]); its value with
  -- covFactor expanded to the batch:
  H.close(tester, kl(mb, mvb), { 1.29185811224482, 1.2116466339135883 }, TOL, 'batched LowRank-MVN')
  -- Against the dense MVN-MVN divergence, and zero against itself.
  local dense = function(d) return D.MultivariateNormal(d.loc, { covarianceMatrix = d:covarianceMatrix() }) end
  tester:assertTensorEq(kl(mb, q), kl(dense(mb), dense(q)), 1e-10, 'LowRank-LowRank = dense')
  tester:assertTensorEq(kl(mb, mvb), kl(dense(mb), mvb), 1e-10, 'LowRank-MVN = dense')
  tester:assertTensorEq(kl(mvb, mb), kl(mvb, dense(mb)), 1e-10, 'MVN-LowRank = dense')
  H.close(tester, kl(mb, mb), { 0, 0 }, 1e-12, 'KL(p, p)')
  H.fails(tester, function() kl(m, LR(torch.zeros(2):double(), torch.ones(2, 1):double(), torch.ones(2):double())) end,
    { 'klDivergence', 'event sizes', '3 and 2' }, 'event size mismatch')
  H.fails(tester, function() kl(m, D.MultivariateNormal(torch.zeros(2):double(), { scaleTril = torch.eye(2):double() })) end,
    { 'klDivergence', 'event sizes' }, 'event size mismatch with MVN')
end

function tests.klMonteCarlo()
  torch.manualSeed(5)
  local n = 200000
  local p, q = LR(LOC, W, DG), Q()
  local x = p:sample({ n })
  H.mc(tester, p:logProb(x) - q:logProb(x), H.num(D.klDivergence(p, q)), 5, 'LowRank-LowRank')
  local mv = D.MultivariateNormal(T({ 0.5, 0.5, 0.5 }), { scaleTril = L3 })
  H.mc(tester, p:logProb(x) - mv:logProb(x), H.num(D.klDivergence(p, mv)), 5, 'LowRank-MVN')
  local y = mv:sample({ n })
  H.mc(tester, mv:logProb(y) - p:logProb(y), H.num(D.klDivergence(mv, p)), 5, 'MVN-LowRank')
end

function tests.klGradients()
  local q = Q()
  local mv = D.MultivariateNormal(T({ 0.5, 0.5, 0.5 }), { scaleTril = L3 })
  local g = function(fn, x) return H.numgrad(function(t) return num(fn(t)) end, x:clone()) end
  -- PyTorch 1.13's d KL(LowRank(loc, W, D), MVN(0.5, 2 I + 0.3)) / dW.
  local Wf = W:clone():requiresGrad()
  local mvc = D.MultivariateNormal(T({ 0.5, 0.5, 0.5 }), { covarianceMatrix = torch.eye(3):double() * 2 + 0.3 })
  D.klDivergence(LR(LOC, Wf, DG), mvc):backward()
  H.close(tester, Wf.grad, { -0.17234893229691306, 0.06489276588220129, -0.16729379940352213, -0.033740470775919046,
    0.036685996877984864, 0.11326820197147866 }, 1e-10, 'LowRank-MVN d/dcovFactor')
  local Dg, qW = DG:clone():requiresGrad(), q._W:clone():requiresGrad()
  local function f1(pD, qWf) return D.klDivergence(LR(LOC, W, pD), LR(q.loc, qWf, q._D)) end
  f1(Dg, qW):backward()
  H.close(tester, Dg.grad, g(function(t) return f1(t, q._W) end, DG):totable(), 1e-7, 'LowRank-LowRank d/dp.covDiag')
  H.close(tester, qW.grad, g(function(t) return f1(DG, t) end, q._W):view(6):totable(), 1e-7, 'LowRank-LowRank d/dq.covFactor')
  local L = L3:clone():requiresGrad()
  -- validateArgs off: the differences perturb the zero upper entries too.
  local function f2(Lt) return D.klDivergence(D.MultivariateNormal(T({ 0.5, 0.5, 0.5 }), { scaleTril = Lt, validateArgs = false }), q) end
  f2(L):backward()
  local ng = g(f2, L3)
  H.close(tester, torch.tril(L.grad), torch.tril(ng):view(9):totable(), 1e-7, 'MVN-LowRank d/dscaleTril')
  local Dq = q._D:clone():requiresGrad()
  local function f3(t) return D.klDivergence(mv, LR(q.loc, q._W, t)) end
  f3(Dq):backward()
  H.close(tester, Dq.grad, g(f3, q._D):totable(), 1e-7, 'MVN-LowRank d/dq.covDiag')
end

function tests.validateArgs()
  local op = 'distributions.LowRankMultivariateNormal'
  H.fails(tester, function() LR(T({ 0, 0 }), W, DG) end, { op, 'covFactor', '2xm' }, 'covFactor rows')
  H.fails(tester, function() LR(LOC, T({ 1, 2, 3 }), DG) end, { op, 'covFactor' }, 'covFactor a vector')
  H.fails(tester, function() LR(LOC, W, T({ 1, 2 })) end, { op, 'covDiag', 'size 3' }, 'covDiag size')
  H.fails(tester, function() LR(LOC, W, T({ 1, 0, 2 })) end, { op, 'covDiag', 'positive' }, 'covDiag positive')
  H.fails(tester, function() LR(0, W, DG) end, { op, 'loc', 'vector' }, 'scalar loc')
  H.fails(tester, function() LR(LOC, W) end, { op, 'covDiag', 'nil' }, 'missing covDiag')
  H.fails(tester, function() LR(torch.zeros(2, 3):double(), torch.zeros(3, 3, 1):double(), DG) end, { op, 'do not broadcast' }, 'batch')
  H.fails(tester, function() LR(T({ 0 / 0, 0, 0 }), W, DG) end, { op, 'loc' }, 'NaN loc')
  H.fails(tester, function() LR(LOC, W, DG):logProb(T({ 1, 2 })) end, { op, 'event shape' }, 'value size')
  H.fails(tester, function() LR(LOC, W, DG, { foo = 1 }) end, { op, 'unknown option foo' }, 'option')
  -- validateArgs = false skips the checks (a zero covDiag entry with a full-rank factor is fine).
  local ok = pcall(LR, T({ 0, 0 }), T({ { 1, 0 }, { 0, 1 } }), T({ 0, 1 }), { validateArgs = false })
  tester:assert(ok, 'validateArgs = false')
  tester:asserteq(tostring(LR(LOC, W, DG)),
    'LowRankMultivariateNormal(loc: torch.DoubleTensor of size 3, covFactor: torch.DoubleTensor of size 3x2, covDiag: torch.DoubleTensor of size 3)')
  tester:asserteq(LR(LOC, W, DG):support().desc, D.constraints.realVector.desc)
end

function tests.floatAndCuda()
  local mf = LR(LOC:float(), W:float(), DG:float())
  tester:asserteq(torch.typename(mf:rsample()), 'torch.FloatTensor')
  H.close(tester, mf:logProb(T({ 0.5, 1, 2 }):float()), { -4.332136961278938 }, 1e-5, 'float logProb')
  if not torch.cuda.isAvailable() then return end
  local mg = LR(LOC:to('cuda'), W:to('cuda'), DG:to('cuda'))
  local v = T({ { 0.5, 1, 2 }, { 1, 1, 1 } })
  tester:assertTensorEq(mg:logProb(v:to('cuda')):double(), LR(LOC, W, DG):logProb(v), 1e-10, 'cuda logProb')
  tester:assertTensorEq(D.klDivergence(mg, LR(LOC:to('cuda'), W:to('cuda'), DG:to('cuda') * 2)):double(),
    D.klDivergence(LR(LOC, W, DG), LR(LOC, W, DG * 2)), 1e-10, 'cuda KL')
  torch.manualSeed(2)
  local x = mg:sample({ 50000 })
  tester:asserteq(x:device():sub(1, 4), 'cuda', 'draws on the device')
  H.moments(tester, x:double(), LOC, mg:variance():double(), 5, 'cuda moments')
end

tester:add(tests)
tester:run()
