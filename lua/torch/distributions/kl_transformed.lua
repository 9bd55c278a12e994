-- Closed-form KL divergences of the transformed families (transformed_families.lua) that PyTorch
-- 1.13 registers: Gumbel, HalfNormal, Pareto and TransformedDistribution pairs, and the cross
-- pairs with Normal, Uniform, Exponential, Gamma, Beta and Laplace.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local D = torch.distributions

local EULER = 0.57721566490153286060
local inf = math.huge
local cmul, log, exp, pow = torch.cmul, torch.log, torch.exp, torch.pow
local function reg(P, Q, fn) D.registerKl('torch.distributions.' .. P, 'torch.distributions.' .. Q, fn) end
local OP = 'distributions.klDivergence'

-- x log x, as PyTorch's _x_log_x (0 log 0 is NaN there too).
local function xlogx(x) return cmul(x, log(x)) end

reg('Gumbel', 'Gumbel', function(p, q)
  local ct1 = p.scale / q.scale
  local ct2 = q.loc / q.scale
  local ct3 = p.loc / q.scale
  local t1 = -log(ct1) - ct2 + ct3
  local t2 = ct1 * EULER
  local t3 = exp(ct2 + torch.lgamma(ct1 + 1) - ct3)
  return t1 + t2 + t3 - (1 + EULER)
end)

reg('HalfNormal', 'HalfNormal', function(p, q) return D.klDivergence(p.baseDist, q.baseDist) end)

reg('Pareto', 'Pareto', function(p, q)
  local scaleRatio = p.scale / q.scale
  local alphaRatio = q.alpha / p.alpha
  local r = cmul(q.alpha, log(scaleRatio)) - log(alphaRatio) + alphaRatio - 1
  -- q gives no mass below its scale, where p has some.
  return torch.where(torch.lt(p.scale, q.scale), inf, r)
end)

-- Same transforms (by equals) and event shape: the divergence of the bases (PyTorch's rule).
reg('TransformedDistribution', 'TransformedDistribution', function(p, q)
  local same = #p.transforms == #q.transforms and util.same_shape(p.eventShape, q.eventShape)
  for i = 1, same and #p.transforms or 0 do
    same = same and p.transforms[i]:equals(q.transforms[i])
  end
  if not same then
    util.fail(OP, 'not implemented for TransformedDistributions with different transforms or event shapes (%s and %s)',
      tostring(p), tostring(q))
  end
  return D.klDivergence(p.baseDist, q.baseDist)
end)

-- inf over the broadcast batch: q puts no mass on part of p's support.
local function infinite(param)
  return function(p, q)
    local shape = torch.broadcastShapes(p.batchShape, q.batchShape)
    return util.empty(p[param], shape):fill(inf)
  end
end
-- The pairs with ContinuousBernoulli are kl_families2.lua's (which owns that family).
for _, P in ipairs({ { 'Beta', 'concentration1' }, { 'Exponential', 'rate' },
                     { 'Gamma', 'concentration' }, { 'Laplace', 'loc' }, { 'Normal', 'loc' } }) do
  reg(P[1], 'Pareto', infinite(P[2]))
end
for _, Q in ipairs({ 'Beta', 'Exponential', 'Gamma', 'Pareto', 'Uniform' }) do
  reg('Gumbel', Q, infinite('loc'))
end
for _, Q in ipairs({ 'Beta', 'Uniform' }) do
  reg('Pareto', Q, infinite('scale'))
end

reg('Exponential', 'Gumbel', function(p, q)
  local srp = cmul(p.rate, q.scale)
  local lsr = q.loc / q.scale
  local t1 = log(srp) - 1
  local t2 = cmul(exp(lsr), srp) / (srp + 1)
  local t3 = pow(srp, -1)
  return t1 - lsr + t2 + t3
end)

reg('Gamma', 'Gumbel', function(p, q)
  local a = p.concentration
  local bsp = cmul(p.rate, q.scale)
  local lsr = q.loc / q.scale
  local t1 = cmul(a - 1, torch.digamma(a)) - torch.lgamma(a) - a
  local t2 = log(bsp) + a / bsp
  local t3 = cmul(exp(lsr), pow(pow(bsp, -1) + 1, -a)) - lsr
  return t1 + t2 + t3
end)

reg('Gumbel', 'Normal', function(p, q)
  local ratio = p.scale / q.scale
  local t1 = log(ratio / math.sqrt(2 * math.pi))
  local t2 = pow(ratio * (math.pi * 0.5), 2) / 3
  local t3 = pow((p.loc + p.scale * EULER - q.loc) / q.scale, 2) * 0.5
  return -t1 + t2 + t3 - (EULER + 1)
end)

reg('Normal', 'Gumbel', function(p, q)
  local msr = p.loc / q.scale
  local vsr = pow(p.scale / q.scale, 2)
  local lsr = q.loc / q.scale
  local t1 = log(vsr) * 0.5
  local t2 = msr - lsr
  local t3 = exp(-msr + vsr * 0.5 + lsr)
  return -t1 + t2 + t3 - (0.5 * (1 + math.log(2 * math.pi)))
end)

reg('Pareto', 'Exponential', function(p, q)
  local srp = cmul(p.scale, q.rate)
  local r = log(p.alpha / srp) - pow(p.alpha, -1) + cmul(p.alpha, srp) / (p.alpha - 1) - 1
  return torch.where(torch.le(p.alpha, 1), inf, r)
end)

reg('Pareto', 'Gamma', function(p, q)
  local common = log(p.scale) + pow(p.alpha, -1)
  local t1 = log(p.alpha) - common
  local t2 = torch.lgamma(q.concentration) - cmul(q.concentration, log(q.rate))
  local t3 = cmul(-q.concentration + 1, common)
  local t4 = cmul(cmul(q.rate, p.alpha), p.scale) / (p.alpha - 1)
  local r = t1 + t2 + t3 + t4 - 1
  return torch.where(torch.le(p.alpha, 1), inf, r)
end)

reg('Pareto', 'Normal', function(p, q)
  local var2 = pow(q.scale, 2) * 2
  local common = p.scale / (p.alpha - 1)
  local t1 = log(cmul(q.scale, p.alpha) * math.sqrt(2 * math.pi) / p.scale)
  local t2 = pow(p.alpha, -1)
  local t3 = cmul(p.alpha, pow(common, 2)) / (p.alpha - 2)
  local t4 = pow(cmul(p.alpha, common) - q.loc, 2)
  local r = t1 - t2 + (t3 + t4) / var2 - 1
  return torch.where(torch.le(p.alpha, 2), inf, r)
end)

reg('Uniform', 'Gumbel', function(p, q)
  local common = q.scale / (p.high - p.low)
  local hd = (p.high - q.loc) / q.scale
  local ld = (p.low - q.loc) / q.scale
  local t1 = log(common) + (hd + ld) * 0.5
  local t2 = cmul(common, exp(-hd) - exp(-ld))
  return t1 - t2
end)

reg('Uniform', 'Pareto', function(p, q)
  local width = p.high - p.low
  local t1 = log(cmul(cmul(q.alpha, pow(q.scale, q.alpha)), width))
  local t2 = (xlogx(p.high) - xlogx(p.low) - width) / width
  local r = cmul(t2, q.alpha + 1) - t1
  return torch.where(torch.lt(p.low, q.scale), inf, r)
end)

return D
