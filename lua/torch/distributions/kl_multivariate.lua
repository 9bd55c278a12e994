-- Closed-form KL divergences for the multivariate families of lowrank_mvn.lua and wishart.lua,
-- and the cross-family pairs of PyTorch 1.13's kl.py among the families that exist here (the
-- audit: Note [KL audit]), registered with torch.distributions.registerKl.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local D = torch.distributions

local function reg(P, Q, fn) D.registerKl('torch.distributions.' .. P, 'torch.distributions.' .. Q, fn) end
local cmul, log, pow, lgamma, digamma = torch.cmul, torch.log, torch.pow, torch.lgamma, torch.digamma
local OP = 'distributions.klDivergence'
local inf = math.huge
local LOG_2PI = math.log(2 * math.pi)

local function mT(x) return x:transpose(x:dim() - 1, x:dim()) end
-- tr(X X^T): the sum of squares over the last two dims.
local function trace_xxt(X) return util.sum_rightmost(pow(X, 2), 2) end
local function same_event(p, q)
  if p.eventShape[1] ~= q.eventShape[1] then
    util.fail(OP, '%s and %s of different event sizes (%d and %d)', torch.typename(p), torch.typename(q),
      p.eventShape[1], q.eventShape[1])
  end
  return p.eventShape[1]
end
local function batch_of(p, q) return torch.broadcastShapes(p.batchShape, q.batchShape) end

-- Note [Low-rank KL]: PyTorch 1.13's formulas. With q low-rank, q's precision is D^-1 - A^T A,
-- A = C^-1 W^T D^-1 (C the capacitance's Cholesky factor), so tr(Sq^-1 Sp) never forms an n x n
-- inverse. PyTorch's LowRankMultivariateNormal-MultivariateNormal takes the batch shape from
-- p's covFactor alone and fails when covDiag has more batch dims; here both are used.
local LR = D.LowRankMultivariateNormal

-- A = C^-1 W^T D^-1 of a low-rank q.
local function woodbury_A(q)
  return torch.linalg.solveTriangular(q._capacitanceTril, mT(q._W) / q._D:unsqueeze(-2), { upper = false })
end

reg('LowRankMultivariateNormal', 'LowRankMultivariateNormal', function(p, q)
  local n = same_event(p, q)
  local term1 = q:_logdet() - p:_logdet()
  local term3 = LR._lowrankMahalanobis(q._W, q._D, q.loc - p.loc, q._capacitanceTril)
  local A = woodbury_A(q)
  local term21 = util.sum_last(p._D / q._D)
  local term22 = trace_xxt(cmul(p._W, torch.rsqrt(q._D):unsqueeze(-1)))
  local term23 = trace_xxt(cmul(A, torch.sqrt(p._D):unsqueeze(-2)))
  local term24 = trace_xxt(torch.matmul(A, p._W))
  local kl = (term1 + term21 + term22 - term23 - term24 + term3 - n) * 0.5
  return kl:expand(batch_of(p, q))
end)

reg('MultivariateNormal', 'LowRankMultivariateNormal', function(p, q)
  local n = same_event(p, q)
  local term1 = q:_logdet() - p:_halfLogDet() * 2
  local term3 = LR._lowrankMahalanobis(q._W, q._D, q.loc - p.loc, q._capacitanceTril)
  local A = woodbury_A(q)
  local term21 = trace_xxt(cmul(p.scaleTril, torch.rsqrt(q._D):unsqueeze(-1)))
  local term22 = trace_xxt(torch.matmul(A, p.scaleTril))
  local kl = (term1 + term21 - term22 + term3 - n) * 0.5
  return kl:expand(batch_of(p, q))
end)

reg('LowRankMultivariateNormal', 'MultivariateNormal', function(p, q)
  local n = same_event(p, q)
  local term1 = q:_halfLogDet() * 2 - p:_logdet()
  local term3 = LR._trilMahalanobis(q.scaleTril, q.loc - p.loc)
  local term21 = trace_xxt(torch.linalg.solveTriangular(q.scaleTril, p._W, { upper = false }))
  local term22 = trace_xxt(torch.linalg.solveTriangular(q.scaleTril, torch.diagEmbed(torch.sqrt(p._D)), { upper = false }))
  local kl = (term1 + term21 + term22 + term3 - n) * 0.5
  return kl:expand(batch_of(p, q))
end)

-- Note [Wishart KL]: PyTorch 1.13 has no closed form for it; its (ExponentialFamily,
-- ExponentialFamily) rule computes the Bregman divergence of the log-normalizer by autograd.
-- Here the closed form, equal to it: with Sp = Lp Lp^T, Sq = Lq Lq^T, dimension k,
-- nq / 2 log(det Sq / det Sp) + np / 2 (tr(Sq^-1 Sp) - k) + log Gamma_k(nq / 2)
-- - log Gamma_k(np / 2) + (np - nq) / 2 psi_k(np / 2).
reg('Wishart', 'Wishart', function(p, q)
  local k = same_event(p, q)
  local function hld(L) return util.sum_last(log(torch.diagonal(L, 0, -2, -1))) end
  local np, nq = p.df, q.df
  local logdetRatio = (hld(q._L) - hld(p._L)) * 2
  local tr = trace_xxt(torch.linalg.solveTriangular(q._L, p._L, { upper = false }))
  return cmul(nq * 0.5, logdetRatio) + cmul(np * 0.5, tr - k) + D._mvlgamma(nq * 0.5, k) - D._mvlgamma(np * 0.5, k)
    + cmul((np - nq) * 0.5, D._mvdigamma(np * 0.5, k))
end)

-- Note [KL audit]: every pair of PyTorch 1.13's kl.py whose two families exist here is
-- registered: the same-family ones in kl.lua and kl_more.lua (Cauchy-Cauchy included: it is in
-- 1.13's kl.py), Exponential-Gamma in kl_more.lua, the ones below, and no others (pairs with
-- ContinuousBernoulli, Gumbel, HalfNormal, Pareto or TransformedDistribution belong with those
-- families). Where PyTorch returns inf (q's support misses part of p's), so does this, of the
-- broadcast batch shape of p and q (PyTorch: the shape of p's parameter). Two deliberate
-- differences: x log x is xlogy(x, x) (0 at x = 0) where PyTorch's x * log(x) makes
-- Uniform(0, b) against Beta or Gamma NaN.

-- inf over the broadcast batch shape, of p's parameter t's type and device.
local function infinite(t)
  return function(p, q) return util.empty(t(p), batch_of(p, q)):fill(inf) end
end
local function where_inf(mask, x) return torch.where(mask, inf, x) end
local function xlogx(x) return torch.xlogy(x, x) end

for _, pq in ipairs({
  { 'Exponential', 'Beta', 'rate' }, { 'Exponential', 'Uniform', 'rate' },
  { 'Gamma', 'Beta', 'concentration' }, { 'Gamma', 'Uniform', 'concentration' },
  { 'Laplace', 'Beta', 'loc' }, { 'Laplace', 'Exponential', 'loc' }, { 'Laplace', 'Gamma', 'loc' }, { 'Laplace', 'Uniform', 'loc' },
  { 'Normal', 'Beta', 'loc' }, { 'Normal', 'Exponential', 'loc' }, { 'Normal', 'Gamma', 'loc' }, { 'Normal', 'Uniform', 'loc' },
  { 'Poisson', 'Bernoulli', 'rate' }, { 'Poisson', 'Binomial', 'rate' },
}) do
  local field = pq[3]
  reg(pq[1], pq[2], infinite(function(p) return p[field] end))
end

reg('Bernoulli', 'Poisson', function(p, q)
  return -p:entropy() - (cmul(p.probs, log(q.rate)) - q.rate)
end)

-- Beta against the others: -entropy(p) - E_p[log q].
local function beta_mean(p) return p.concentration1 / (p.concentration1 + p.concentration0) end
reg('Beta', 'Exponential', function(p, q)
  return -p:entropy() - log(q.rate) + cmul(q.rate, beta_mean(p))
end)
reg('Beta', 'Gamma', function(p, q)
  local a, b = p.concentration1, p.concentration0
  local t2 = lgamma(q.concentration) - cmul(q.concentration, log(q.rate))
  local t3 = cmul(q.concentration - 1, digamma(a) - digamma(a + b))
  return -p:entropy() + t2 - t3 + cmul(q.rate, beta_mean(p))
end)
reg('Beta', 'Normal', function(p, q)
  local E = beta_mean(p)
  local var = pow(q.scale, 2)
  local t2 = log(var * (2 * math.pi)) * 0.5
  local t3 = (cmul(E, 1 - E) / (p.concentration1 + p.concentration0 + 1) + pow(E, 2)) * 0.5
  return -p:entropy() + t2 + (t3 - cmul(q.loc, E) + pow(q.loc, 2) * 0.5) / var
end)
reg('Beta', 'Uniform', function(p, q)
  local r = -p:entropy() + log(q.high - q.low)
  return where_inf(torch.logicalOr(torch.gt(q.low, 0), torch.lt(q.high, 1)), r)
end)

reg('Exponential', 'Normal', function(p, q)
  local var, r2 = pow(q.scale, 2), pow(p.rate, 2)
  local t1 = log(cmul(r2, var) * (2 * math.pi)) * 0.5
  return t1 - 1 + (torch.pow(r2, -1) - q.loc / p.rate + pow(q.loc, 2) * 0.5) / var
end)

reg('Gamma', 'Exponential', function(p, q)
  return -p:entropy() - log(q.rate) + cmul(q.rate, p.concentration / p.rate)
end)
reg('Gamma', 'Normal', function(p, q)
  local a = p.concentration
  local var, b2 = pow(q.scale, 2), pow(p.rate, 2)
  local t1 = log(cmul(b2, var) * (2 * math.pi)) * 0.5 - a - lgamma(a)
  local t2 = (pow(a, 2) + a) * 0.5 / b2
  local t3 = cmul(q.loc, a / p.rate)
  return t1 + cmul(a - 1, digamma(a)) + (t2 - t3 + pow(q.loc, 2) * 0.5) / var
end)

reg('Laplace', 'Normal', function(p, q)
  local var = pow(q.scale, 2)
  local r = pow(p.scale, 2) / var
  local t1 = log(r * (2 / math.pi)) * 0.5
  local t234 = pow(p.loc - q.loc, 2) * 0.5  -- p.loc^2 / 2 - p.loc q.loc + q.loc^2 / 2
  return -t1 + r + t234 / var - 1
end)

reg('Normal', 'Laplace', function(p, q)
  local d = p.loc - q.loc
  local dr = d / p.scale
  local t1 = log(p.scale / q.scale)
  local t2 = cmul(p.scale, torch.exp(pow(dr, 2) * -0.5)) * math.sqrt(2 / math.pi)
  local t3 = cmul(d, torch.erf(dr * math.sqrt(0.5)))
  return -t1 + (t2 + t3) / q.scale - 0.5 * (1 + math.log(0.5 * math.pi))
end)

-- Uniform against the others: -log(high - low) - E_p[log q], E_p[log x] = (h log h - l log l) / (h - l) - 1.
reg('Uniform', 'Beta', function(p, q)
  local hi, lo = p.high, p.low
  local c = hi - lo
  local t1 = log(c)
  local t2 = cmul(q.concentration1 - 1, (xlogx(hi) - xlogx(lo) - c) / c)
  local t3 = cmul(q.concentration0 - 1, (xlogx(1 - hi) - xlogx(1 - lo) + c) / c)
  local t4 = lgamma(q.concentration1) + lgamma(q.concentration0) - lgamma(q.concentration1 + q.concentration0)
  return where_inf(torch.logicalOr(torch.gt(hi, 1), torch.lt(lo, 0)), t3 + t4 - t1 - t2)
end)
reg('Uniform', 'Exponential', function(p, q)
  local r = cmul(q.rate, p.high + p.low) * 0.5 - log(cmul(p.high - p.low, q.rate))
  return where_inf(torch.lt(p.low, 0), r)
end)
reg('Uniform', 'Gamma', function(p, q)
  local hi, lo = p.high, p.low
  local c = hi - lo
  local t2 = lgamma(q.concentration) - cmul(q.concentration, log(q.rate))
  local t3 = cmul(1 - q.concentration, (xlogx(hi) - xlogx(lo) - c) / c)
  local t4 = cmul(q.rate, hi + lo) * 0.5
  return where_inf(torch.lt(lo, 0), -log(c) + t2 + t3 + t4)
end)
reg('Uniform', 'Normal', function(p, q)
  local c = p.high - p.low
  local t1 = log(q.scale / c) + 0.5 * LOG_2PI
  local t2 = pow(c, 2) / 12
  local t3 = pow((p.high + p.low - q.loc * 2) * 0.5, 2)
  return t1 + (t2 + t3) * 0.5 / pow(q.scale, 2)
end)

return D
