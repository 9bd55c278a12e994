-- torch.distributions.VonMises: the circular normal distribution on angles, its normalizer from
-- the exponentially scaled Bessel functions (torch.i0e, torch.i1e), sampled by Best and Fisher's
-- rejection method over whole tensors.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local D = torch.distributions

local LOG_2PI = math.log(2 * math.pi)
local TWO_PI = 2 * math.pi
local MAX_ROUNDS = 10000

-- Note [VonMises Bessel functions]: PyTorch 1.13 evaluates log I0 and log I1 from the polynomial
-- fits of Abramowitz and Stegun 9.8.1-9.8.4 (relative error ~1e-7). Tocha has exact, differentiable
-- torch.i0e / torch.i1e, so log I_n(k) = log(i_ne(k)) + k, accurate to double precision and
-- without overflow for large k; logProb and variance therefore match PyTorch's to ~1e-7 only,
-- and the exact values (mpmath) to ~1e-15.
local function log_i0(k) return torch.log(torch.i0e(k)) + k end

local VonMises = torch.class('torch.distributions.VonMises', 'torch.distributions.Distribution', D)
VonMises.hasRsample = false
VonMises._params = { 'loc', 'concentration' }

--- torch.distributions.VonMises(loc, concentration [, {validateArgs=}]): density
--- exp(k cos(x - loc)) / (2 pi I0(k)) on angles, k = concentration > 0. loc and values may be any
--- real numbers (read modulo 2 pi); samples lie in [-pi, pi).
--- Example: torch.distributions.VonMises(0, 4):sample({3})
function VonMises:__init(...)
  self:_initParams(self:_op(), { { 'loc', constraints.real }, { 'concentration', constraints.positive } }, ...)
end

-- Note [VonMises proposal]: Best and Fisher's wrapped-Cauchy envelope parameter
-- r = (1 + rho^2) / (2 rho), rho = (tau - sqrt(2 tau)) / (2 k), tau = 1 + sqrt(1 + 4 k^2), in
-- double: the difference tau - sqrt(2 tau) cancels for small k (PyTorch 1.13 computes it in the
-- parameters' type, which breaks down in float below k ~ 1e-3), and below k = 1e-5 its Taylor
-- expansion 1 / k + k replaces it (as later PyTorch releases do).
local function proposal_r(k)
  local tau = torch.sqrt(torch.pow(k, 2) * 4 + 1) + 1
  local rho = (tau - torch.sqrt(tau * 2)) / (k * 2)
  local r = (torch.pow(rho, 2) + 1) / (rho * 2)
  return torch.where(torch.lt(k, 1e-5), torch.pow(k, -1) + k, r)
end

-- Note [VonMises rejection rounds]: each round proposes for the draws still pending only
-- (gathered by index, accepted ones scattered back), so the total work is about N / (acceptance
-- rate), 1.1 to 1.5 N, rather than N times the number of rounds the unluckiest draw needs (10 or
-- more for a million draws).

--- VonMises:sample([sampleShape]): Best and Fisher's (1979) rejection sampler, all pending draws
--- proposing together each round until every one is accepted (a loop over rounds, not elements;
--- Note [VonMises rejection rounds]), computed in double; no gradient. Values in [-pi, pi).
--- Example: torch.distributions.VonMises(torch.Tensor({0, 1}), 2):sample({5})
function VonMises:sample(shape)
  local s = self:_extendedShape(shape)
  local tname = util.cpu_type(self.loc)
  return torch.noGrad(function()
    local k = self.concentration:to('torch.DoubleTensor'):expand(s):contiguous()
    local n = k:nElement()
    if n == 0 then return util.empty(self.loc, s) end
    k = k:view(n)
    local r = proposal_r(k)
    local x = torch.zerosLike(k)
    local pending = torch.range(1, n):to(k:device(), 'torch.LongTensor')
    for _ = 1, MAX_ROUNDS do
      if pending:nElement() == 0 then break end
      local kk, rr = k:index(1, pending), r:index(1, pending)
      local u1 = torch.emptyLike(kk):uniform()
      local u2 = torch.emptyLike(kk):uniform()
      local u3 = torch.emptyLike(kk):uniform()
      local z = torch.cos(u1 * math.pi)
      local f = torch.cdiv(torch.cmul(rr, z) + 1, rr + z)
      local c = torch.cmul(kk, rr - f)
      local accept = torch.logicalOr(torch.gt(torch.cmul(c, -c + 2) - u2, 0),
        torch.ge(torch.log(torch.cdiv(c, u2)) + 1 - c, 0))
      local vals = torch.cmul(torch.sign(u3 - 0.5), torch.acos(torch.clamp(f, -1, 1)))
      x:indexCopy(1, torch.maskedSelect(pending, accept), torch.maskedSelect(vals, accept))
      pending = torch.maskedSelect(pending, torch.logicalNot(accept))
    end
    if pending:nElement() > 0 then util.fail(self:_op(), 'the rejection sampler did not finish in %d rounds', MAX_ROUNDS) end
    local loc = self.loc:to('torch.DoubleTensor')
    return (torch.remainder(x:view(s) + math.pi + loc, TWO_PI) - math.pi):to(tname)
  end)
end
--- VonMises:logProb(value): concentration cos(value - loc) - log(2 pi I0(concentration))
--- (Note [VonMises Bessel functions]).
--- Example: torch.distributions.VonMises(0, 2):logProb(0.5)
function VonMises:logProb(value)
  local v = self:_value(value, nil, self.loc)
  local k = self.concentration
  return torch.cmul(k, torch.cos(v - self.loc)) - LOG_2PI - log_i0(k)
end
--- VonMises:entropy(): log(2 pi I0(k)) - k I1(k) / I0(k) (not in PyTorch 1.13).
--- Example: torch.distributions.VonMises(0, 2):entropy()
function VonMises:entropy()
  local k = self.concentration
  return log_i0(k) + LOG_2PI - torch.cmul(k, torch.i1e(k) / torch.i0e(k))
end
--- VonMises:mean(): loc, the circular mean (mode() too).
--- Example: torch.distributions.VonMises(1, 2):mean()
function VonMises:mean() return self.loc end
--- VonMises:mode(): loc.
--- Example: torch.distributions.VonMises(1, 2):mode()
function VonMises:mode() return self.loc end
--- VonMises:variance(): the circular variance 1 - I1(k) / I0(k).
--- Example: torch.distributions.VonMises(1, 2):variance()
function VonMises:variance()
  local k = self.concentration
  return -torch.i1e(k) / torch.i0e(k) + 1
end

return VonMises
