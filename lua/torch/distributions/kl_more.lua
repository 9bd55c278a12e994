-- Closed-form KL divergences for the second and third groups of families (exponential.lua,
-- poisson.lua, bernoulli.lua's Geometric, normal.lua's LogNormal, gamma.lua, mvn.lua,
-- independent.lua), registered with torch.distributions.registerKl.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local D = torch.distributions

local function reg(P, Q, fn) D.registerKl('torch.distributions.' .. P, 'torch.distributions.' .. Q, fn) end
local cmul, log, lgamma, digamma = torch.cmul, torch.log, torch.lgamma, torch.digamma

reg('Exponential', 'Exponential', function(p, q)
  local r = q.rate / p.rate
  return r - log(r) - 1
end)

reg('Laplace', 'Laplace', function(p, q)
  local ratio = p.scale / q.scale
  local diff = torch.abs(p.loc - q.loc)
  return -log(ratio) + diff / q.scale + cmul(ratio, torch.exp(-diff / p.scale)) - 1
end)

-- Not in PyTorch 1.13: log(((s_p + s_q)^2 + (m_p - m_q)^2) / (4 s_p s_q)) (Chyzak and Nielsen, 2019).
reg('Cauchy', 'Cauchy', function(p, q)
  local num = torch.pow(p.scale + q.scale, 2) + torch.pow(p.loc - q.loc, 2)
  return log(num / (cmul(p.scale, q.scale) * 4))
end)

reg('LogNormal', 'LogNormal', function(p, q) return D.klDivergence(p.baseDist, q.baseDist) end)

reg('Poisson', 'Poisson', function(p, q)
  return torch.xlogy(p.rate, p.rate) - torch.xlogy(p.rate, q.rate) - p.rate + q.rate
end)

reg('Geometric', 'Geometric', function(p, q)
  return -p:entropy() - torch.log1p(-q.probs) / p.probs - q.logits
end)

-- Binomial(n, p) is n independent Bernoulli(p) trials, so the divergence is n times theirs.
reg('Binomial', 'Binomial', function(p, q)
  if not torch.all(torch.eq(p.totalCount, q.totalCount)) then
    util.fail('distributions.klDivergence', 'Binomials with different totalCount are not supported')
  end
  return cmul(p.totalCount, D._kl_binary(p, q))
end)

reg('Gamma', 'Gamma', function(p, q)
  local pa, qa = p.concentration, q.concentration
  local t1 = cmul(qa, log(p.rate / q.rate))
  local t2 = lgamma(qa) - lgamma(pa)
  local t3 = cmul(pa - qa, digamma(pa))
  local t4 = cmul(q.rate - p.rate, pa / p.rate)
  return t1 + t2 + t3 + t4
end)

-- Exponential(rate) is Gamma(1, rate).
reg('Exponential', 'Gamma', function(p, q) return D.klDivergence(D.Gamma(1, p.rate, { validateArgs = false }), q) end)

reg('Beta', 'Beta', function(p, q)
  local pa, pb, qa, qb = p.concentration1, p.concentration0, q.concentration1, q.concentration0
  local sp, sq = pa + pb, qa + qb
  local t1 = lgamma(qa) + lgamma(qb) + lgamma(sp)
  local t2 = lgamma(pa) + lgamma(pb) + lgamma(sq)
  return t1 - t2 + cmul(pa - qa, digamma(pa)) + cmul(pb - qb, digamma(pb)) + cmul(sq - sp, digamma(sp))
end)

reg('Dirichlet', 'Dirichlet', function(p, q)
  local both = torch.broadcastTensors(p.concentration, q.concentration)
  local pc, qc = both[1], both[2]
  local d = pc:dim()
  local sp, sq = torch.sum(pc, d), torch.sum(qc, d)
  local t1 = lgamma(sp) - lgamma(sq)
  local t2 = torch.sum(lgamma(pc) - lgamma(qc), d)
  local t3 = torch.sum(cmul(pc - qc, digamma(pc) - digamma(sp)), d)
  return (t1 - t2 + t3):squeeze(d)
end)

-- (tr(Sq^-1 Sp) + |Lq^-1 (mq - mp)|^2 - n) / 2 + log det Lq - log det Lp, with M = Lq^-1 Lp.
reg('MultivariateNormal', 'MultivariateNormal', function(p, q)
  local op = 'distributions.klDivergence'
  local n = p.eventShape[1]
  if q.eventShape[1] ~= n then
    util.fail(op, 'MultivariateNormals of different sizes (%d and %d)', n, q.eventShape[1])
  end
  local batch = torch.broadcastShapes(p.batchShape, q.batchShape)
  local Lq = q.scaleTril:expand(util.cat(batch, { n, n }))
  local M = torch.linalg.solveTriangular(Lq, p.scaleTril:expand(util.cat(batch, { n, n })), { upper = false })
  local diff = (q.loc - p.loc):expand(util.cat(batch, { n }))
  local z = torch.linalg.solveTriangular(Lq, diff:contiguous():view(util.cat(batch, { n, 1 })), { upper = false })
  local tr = util.sum_rightmost(torch.pow(M, 2), 2)
  local maha = util.sum_rightmost(torch.pow(z, 2), 2)
  return (tr + maha - n) * 0.5 + q:_halfLogDet() - p:_halfLogDet()
end)

reg('Independent', 'Independent', function(p, q)
  if p.reinterpretedBatchNdims ~= q.reinterpretedBatchNdims then
    util.fail('distributions.klDivergence', 'Independent distributions with different reinterpretedBatchNdims (%d and %d)',
      p.reinterpretedBatchNdims, q.reinterpretedBatchNdims)
  end
  return util.sum_rightmost(D.klDivergence(p.baseDist, q.baseDist), p.reinterpretedBatchNdims)
end)

return D
