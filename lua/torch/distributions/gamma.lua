-- torch.distributions.Gamma, Chi2, Beta and Dirichlet: built on standard gamma draws
-- (util.standard_gamma, Marsaglia-Tsang over tensors), reparameterized through
-- D.standardGamma (gamma_grad.lua); sample is rsample without gradient.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local D = torch.distributions
require 'torch.distributions.gamma_grad'

-- Note [Gamma rsample]: a gradient through the accepted Marsaglia-Tsang proposal would ignore how
-- acceptance depends on alpha, and be biased. Instead the draws are differentiated implicitly,
-- as PyTorch does: x = F^-1(u; alpha) at a fixed quantile u, dx/dalpha = -(dF/dalpha) / f
-- (D.standardGamma, Note [Gamma sample gradient]). On top of it: Gamma = standardGamma(a) /
-- rate (the rate gradient through the division) and Chi2 = Gamma(df/2, 1/2), as PyTorch;
-- Beta = X / (X + Y) and Dirichlet = G / sum(G) over independent standard gammas, differentiated
-- through the normalization. PyTorch 1.13 gives Dirichlet (and Beta, its first coordinate) its
-- own backward (_dirichlet_grad, the implicit gradient of the Beta marginals): the draws have the
-- same distribution and the pathwise gradients the same expectation, but per-draw gradients
-- differ from PyTorch's.

local Gamma = torch.class('torch.distributions.Gamma', 'torch.distributions.Distribution', D)
Gamma.hasRsample = true
Gamma._params = { 'concentration', 'rate' }

--- torch.distributions.Gamma(concentration, rate [, {validateArgs=}]): density rate^a x^(a-1)
--- exp(-rate x) / Gamma(a) on x > 0, a = concentration > 0, rate > 0. rsample is differentiable
--- in both (Note [Gamma rsample]).
--- Example: torch.distributions.Gamma(2, 1):sample({3})
function Gamma:__init(...)
  local op = self:_op()
  local a, validate = util.args(op, { 'concentration', 'rate' }, ...)
  self:_init(op, a.concentration, a.rate, validate)
end
function Gamma:_init(op, conc, rate, validate)
  local t, shape = util.broadcast_all(op, { 'concentration', 'rate' }, { conc, rate })
  self.concentration, self.rate = t[1], t[2]
  self:_setup(shape, nil, validate)
  self:_check('concentration', constraints.positive, self.concentration)
  self:_check('rate', constraints.positive, self.rate)
end
-- Note [Gamma support includes 0]: PyTorch 1.13's support is nonnegative: logProb(0) is the
-- density's limit (log rate for concentration 1, -inf above 1, inf below), where the positive
-- support made Gamma(1, 2):logProb(0), an Exponential(2)'s log 2, an error (and Chi2(2)'s).
--- Gamma:support(): the non-negative reals (Note [Gamma support includes 0]).
--- Example: torch.distributions.Gamma(2, 1):support().desc
function Gamma:support() return constraints.nonnegative end
--- Gamma:rsample([sampleShape]): standardGamma(concentration) / rate, differentiable in both
--- (Note [Gamma rsample]); sample() is the same draw without gradient.
--- Example: torch.distributions.Gamma(torch.Tensor({0.5}):requiresGrad(), 2):rsample({4})
function Gamma:rsample(shape)
  local s = self:_extendedShape(shape)
  local g = D.standardGamma(self.concentration:expand(s))
  return torch.clampMin(g / self.rate, util.tiny(g))
end
--- Gamma:logProb(value): a log(rate) + (a - 1) log(value) - rate value - lgamma(a).
--- Example: torch.distributions.Gamma(2, 1):logProb(1)
function Gamma:logProb(value)
  local v = self:_value(value, nil, self.rate)
  local a = self.concentration
  return torch.xlogy(a, self.rate) + torch.xlogy(a - 1, v) - torch.cmul(self.rate, v) - torch.lgamma(a)
end
--- Gamma:entropy(): a - log(rate) + lgamma(a) + (1 - a) digamma(a).
--- Example: torch.distributions.Gamma(2, 1):entropy()
function Gamma:entropy()
  local a = self.concentration
  return a - torch.log(self.rate) + torch.lgamma(a) + torch.cmul(1 - a, torch.digamma(a))
end
--- Gamma:mean(): a / rate; variance() a / rate^2; mode() max(a - 1, 0) / rate.
--- Example: torch.distributions.Gamma(2, 4):variance()
function Gamma:mean() return self.concentration / self.rate end
--- Gamma:variance(): concentration / rate^2.
--- Example: torch.distributions.Gamma(2, 4):variance()
function Gamma:variance() return self.concentration / torch.pow(self.rate, 2) end
--- Gamma:mode(): max(concentration - 1, 0) / rate.
--- Example: torch.distributions.Gamma(3, 1):mode()
function Gamma:mode() return torch.clampMin((self.concentration - 1) / self.rate, 0) end

local Chi2 = torch.class('torch.distributions.Chi2', 'torch.distributions.Gamma', D)
Chi2._params = { 'df', 'concentration', 'rate' }

--- torch.distributions.Chi2(df [, {validateArgs=}]): the chi-squared distribution with df > 0
--- degrees of freedom, Gamma(df / 2, 1 / 2).
--- Example: torch.distributions.Chi2(3):sample({2})
function Chi2:__init(...)
  local op = self:_op()
  local a, validate = util.args(op, { 'df' }, ...)
  local df = util.broadcast_all(op, { 'df' }, { a.df })[1]
  self.df = df
  self:_setup(nil, nil, validate)
  self:_check('df', constraints.positive, df)
  self:_init(op, df * 0.5, 0.5, self.validateArgs)
end

local Beta = torch.class('torch.distributions.Beta', 'torch.distributions.Distribution', D)
Beta.hasRsample = true
Beta._params = { 'concentration1', 'concentration0' }

--- torch.distributions.Beta(concentration1, concentration0 [, {validateArgs=}]): density
--- x^(a-1) (1-x)^(b-1) / B(a, b) on [0, 1], a = concentration1 > 0, b = concentration0 > 0.
--- Sampled as X / (X + Y) from gamma draws, reparameterized (Note [Gamma rsample]).
--- Example: torch.distributions.Beta(2, 3):sample({3})
function Beta:__init(...)
  local op = self:_op()
  local a, validate = util.args(op, { 'concentration1', 'concentration0' }, ...)
  local t, shape = util.broadcast_all(op, { 'concentration1', 'concentration0' }, { a.concentration1, a.concentration0 })
  self.concentration1, self.concentration0 = t[1], t[2]
  self:_setup(shape, nil, validate)
  self:_check('concentration1', constraints.positive, t[1])
  self:_check('concentration0', constraints.positive, t[2])
end
--- Beta:support(): [0, 1].
--- Example: torch.distributions.Beta(2, 3):support().desc
function Beta:support() return constraints.unitInterval end
-- Note [Normalized gamma draws in double]: a standard gamma draw of a small concentration a
-- underflows to the smallest normal number with probability about tiny^a (0.42 for a = 0.01 in
-- float), and two underflowed draws normalize to 1/2 (or 1/K): float Beta(0.01, 0.01) drew exactly
-- 0.5 18% of the time, where the law puts 0.04% of its mass in (0.49, 0.51). As PyTorch's
-- Dirichlet sampler, the draws and their normalization are computed in double (differentiable
-- through the conversions) and the result converted back; in double, and so in PyTorch 1.13,
-- the same happens below a = 1e-3.
local function in_double(c) return util.cpu_type(c) == 'torch.DoubleTensor' and c or c:to('torch.DoubleTensor') end

--- Beta:rsample([sampleShape]): X / (X + Y), X ~ Gamma(a), Y ~ Gamma(b) from standardGamma
--- (in double, Note [Normalized gamma draws in double]), differentiable in both concentrations
--- (Note [Gamma rsample]).
--- Example: torch.distributions.Beta(0.5, 0.5):rsample({4})
function Beta:rsample(shape)
  local s = self:_extendedShape(shape)
  local x = D.standardGamma(in_double(self.concentration1:expand(s)))
  local y = D.standardGamma(in_double(self.concentration0:expand(s)))
  return (x / (x + y)):to(util.cpu_type(self.concentration1))
end
--- Beta:logProb(value): (a - 1) log v + (b - 1) log(1 - v) - log B(a, b).
--- Example: torch.distributions.Beta(2, 3):logProb(0.4)
function Beta:logProb(value)
  local v = self:_value(value, nil, self.concentration1)
  local a, b = self.concentration1, self.concentration0
  return torch.xlogy(a - 1, v) + torch.xlogy(b - 1, 1 - v) - util.lbeta(a, b)
end
--- Beta:entropy(): log B(a, b) - (a - 1) digamma(a) - (b - 1) digamma(b) + (a + b - 2) digamma(a + b).
--- Example: torch.distributions.Beta(2, 3):entropy()
function Beta:entropy()
  local a, b = self.concentration1, self.concentration0
  return util.lbeta(a, b) - torch.cmul(a - 1, torch.digamma(a)) - torch.cmul(b - 1, torch.digamma(b))
    + torch.cmul(a + b - 2, torch.digamma(a + b))
end
--- Beta:mean(): a / (a + b); variance() a b / ((a + b)^2 (a + b + 1)).
--- Example: torch.distributions.Beta(2, 3):mean()
function Beta:mean() return self.concentration1 / (self.concentration1 + self.concentration0) end
--- Beta:mode(): (a - 1) / (a + b - 2) with a - 1 and b - 1 clamped at 0 (0 or 1 when one
--- concentration is below 1); NaN for a = b = 1, and 1 where both are below 1 (the density is
--- unbounded at both ends; PyTorch 1.13's pick, its Dirichlet mode's first coordinate).
--- Example: torch.distributions.Beta(2, 3):mode()
function Beta:mode()
  local a, b = self.concentration1, self.concentration0
  local a1, b1 = torch.clampMin(a - 1, 0), torch.clampMin(b - 1, 0)
  local both = torch.logicalAnd(torch.lt(a, 1), torch.lt(b, 1))
  -- a stand-in denominator where both are below 1: no 0 / 0 reaches the gradient there
  local m = a1 / torch.where(both, 1, a1 + b1)
  return torch.where(both, 1, m)
end
--- Beta:variance(): a b / ((a + b)^2 (a + b + 1)).
--- Example: torch.distributions.Beta(2, 3):variance()
function Beta:variance()
  local a, b = self.concentration1, self.concentration0
  local s = a + b
  return torch.cmul(a, b) / torch.cmul(torch.pow(s, 2), s + 1)
end

local Dirichlet = torch.class('torch.distributions.Dirichlet', 'torch.distributions.Distribution', D)
Dirichlet.hasRsample = true
Dirichlet._params = { 'concentration' }

--- torch.distributions.Dirichlet(concentration [, {validateArgs=}]): distributions over the
--- simplex of size K (the last dim of concentration, all > 0; the other dims are the batch).
--- Sampled by normalizing gamma draws, reparameterized (Note [Gamma rsample]).
--- Example: torch.distributions.Dirichlet(torch.Tensor({1, 2, 3})):sample({2})
function Dirichlet:__init(...)
  local op = self:_op()
  local a, validate = util.args(op, { 'concentration' }, ...)
  local c = util.broadcast_all(op, { 'concentration' }, { a.concentration })[1]
  if c:dim() < 1 then util.fail(op, 'concentration must have at least one dim, got %s', util.describe(c)) end
  self.concentration = c
  self:_setup(util.slice(c:size(), 1, -2), torch.LongStorage({ c:size(c:dim()) }), validate)
  self:_check('concentration', constraints.positive, c)
end
--- Dirichlet:support(): the simplex (non-negative entries summing to 1).
--- Example: torch.distributions.Dirichlet(torch.ones(3)):support().desc
function Dirichlet:support() return constraints.simplex end
--- Dirichlet:rsample([sampleShape]): standardGamma draws normalized along the last dim (in
--- double, Note [Normalized gamma draws in double]), differentiable in the concentration
--- (Note [Gamma rsample]).
--- Example: torch.distributions.Dirichlet(torch.ones(3)):rsample()
function Dirichlet:rsample(shape)
  local c = self.concentration
  local g = D.standardGamma(in_double(c:expand(self:_extendedShape(shape))))
  local x = (g / torch.sum(g, g:dim())):to(util.cpu_type(c))
  return torch.clampMin(x, util.tiny(x))
end
--- Dirichlet:logProb(value): sum((a - 1) log v) + lgamma(sum a) - sum(lgamma a).
--- Example: torch.distributions.Dirichlet(torch.ones(3)):logProb(torch.Tensor({0.2, 0.3, 0.5}))
function Dirichlet:logProb(value)
  local v = self:_value(value, nil, self.concentration)
  local c = self.concentration
  return util.sum_last(torch.xlogy(c - 1, v)) + torch.lgamma(util.sum_last(c)) - util.sum_last(torch.lgamma(c))
end
--- Dirichlet:entropy(): log B(a) + (a0 - K) digamma(a0) - sum((a - 1) digamma(a)), a0 = sum(a).
--- Example: torch.distributions.Dirichlet(torch.ones(3)):entropy()
function Dirichlet:entropy()
  local c = self.concentration
  local k = c:size(c:dim())
  local a0 = util.sum_last(c)
  local lbeta = util.sum_last(torch.lgamma(c)) - torch.lgamma(a0)
  return lbeta + torch.cmul(a0 - k, torch.digamma(a0)) - util.sum_last(torch.cmul(c - 1, torch.digamma(c)))
end
--- Dirichlet:mean(): a / sum(a); variance() a (a0 - a) / (a0^2 (a0 + 1)).
--- Example: torch.distributions.Dirichlet(torch.Tensor({1, 3})):mean()
function Dirichlet:mean() return self.concentration / torch.sum(self.concentration, self.concentration:dim()) end
--- Dirichlet:mode(): (a - 1) / sum(a - 1) with a - 1 clamped at 0; NaN where every a <= 1 and
--- some a = 1, and the first vertex (1, 0, ..., 0) where every a < 1 (PyTorch 1.13's pick).
--- Example: torch.distributions.Dirichlet(torch.Tensor({2, 3, 4})):mode()
function Dirichlet:mode()
  local c = self.concentration
  local d, k = c:dim(), c:size(c:dim())
  local cm1 = torch.clampMin(c - 1, 0)
  local all = torch.eq(torch.sum(torch.lt(c, 1):typeAs(c), d), k)       -- keeps the last dim (size 1)
  local m = cm1 / torch.where(all, 1, torch.sum(cm1, d))
  local first = torch.zerosLike(c)
  first:select(d, 1):fill(1)
  return torch.where(all, first, m)
end
--- Dirichlet:variance(): a (a0 - a) / (a0^2 (a0 + 1)), a0 = sum(a).
--- Example: torch.distributions.Dirichlet(torch.Tensor({1, 3})):variance()
function Dirichlet:variance()
  local c = self.concentration
  local a0 = torch.sum(c, c:dim())
  return torch.cmul(c, a0 - c) / torch.cmul(torch.pow(a0, 2), a0 + 1)
end

return Gamma
