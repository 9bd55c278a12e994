-- torch.special's normal-distribution functions: erfcx, ndtr, logNdtr and ndtri, written with
-- tensor ops in double (Note [Special functions from tensor ops] in special.lua).
local torch = require 'torch.env'
local types = require 'torch.types'
local special = torch.special
local in_double, to_dtype = special._in_double, special._to_dtype
local SQRT2, SQRT_PI = math.sqrt(2), math.sqrt(math.pi)

-- exp(x^2) without the error of rounding x^2 (which exp multiplies by x^2): x = hi + lo with hi
-- a multiple of 2^-12, so hi^2 is exact, and exp(x^2) = exp(hi^2) exp(lo (2 hi + lo)). hi comes
-- from a detached x, so the gradient flows through lo alone: d/dx = 2 x exp(x^2).
local function exp_sq(x)
  local hi = torch.floor(x:detach() * 4096 + 0.5) / 4096
  local lo = x - hi
  return torch.cmul(torch.exp(torch.cmul(hi, hi)), torch.exp(torch.cmul(lo, hi * 2 + lo)))
end

-- erfcx in double: exp(x^2) erfc(x) below 26 (erfc is accurate to its underflow near 27);
-- above, the asymptotic series 1 / (x sqrt(pi)) sum_k (-1)^k (2k-1)!! / (2x^2)^k, whose
-- eight terms at x >= 26 leave an error below 1e-19.
local function erfcx64(x)
  local small = torch.logicalNot(torch.ge(x, 26))  -- NaN takes the direct branch
  local xs = torch.where(small, torch.cmax(x, -30), 0)  -- erfcx is inf below -26.7 in double
  local direct = torch.cmul(exp_sq(xs), torch.erfc(xs))
  local xl = torch.where(small, 26, x)
  local h = torch.pow(torch.cmul(xl, xl) * 2, -1)
  local s = torch.onesLike(xl)
  for k = 8, 1, -1 do s = 1 - torch.cmul(h, s) * (2 * k - 1) end
  return (torch.where(small, direct, torch.cdiv(s, xl) / SQRT_PI))
end

--- torch.special.erfcx(x): the scaled complementary error function exp(x^2) erfc(x), accurate
--- where erfc underflows (erfcx(1e5) = 5.64e-6) and inf for x below about -26.6 in double.
--- Differentiable: 2 x erfcx(x) - 2 / sqrt(pi).
--- Example: torch.special.erfcx(torch.Tensor({-1, 0, 30}))
function special.erfcx(x)
  local xd, dt = in_double('special.erfcx', x)
  return (to_dtype(erfcx64(xd), dt))
end

-- log Phi(x) in double: log(erfcx(-x / sqrt 2) / 2) - x^2 / 2 below 0 (no underflow however
-- negative x is), log1p(-erfc(x / sqrt 2) / 2) from 0 up (1 - Phi(x) keeps its precision).
local function log_ndtr64(x)
  local neg = torch.lt(x, 0)
  local xn = torch.where(neg, x, -1)
  local left = torch.log(erfcx64(-xn / SQRT2) / 2) - torch.cmul(xn, xn) / 2
  local xp = torch.where(neg, 1, x)
  local right = torch.log1p(-torch.erfc(xp / SQRT2) / 2)
  return (torch.where(neg, left, right))
end

--- torch.special.ndtr(x): the standard normal distribution function Phi(x) = erfc(-x / sqrt 2)
--- / 2, accurate relative to its value in the lower tail (ndtr(-10) = 7.6e-24, where PyTorch
--- 1.13's (1 + erf(x / sqrt 2)) / 2 gives 0). Differentiable.
--- Example: torch.special.ndtr(torch.Tensor({-3, 0, 1.96}))
function special.ndtr(x)
  types.check_tensor('special.ndtr', x, 1)
  if not special._is_float_dtype(x.p.dtype) then x = to_dtype(x, torch._default_dtype()) end
  return (torch.erfc(-x / SQRT2) * 0.5)
end

--- torch.special.logNdtr(x): log Phi(x), the log of the standard normal distribution function,
--- finite for very negative x (logNdtr(-40) = -804.6) and accurate for large x (-7.6e-24 at
--- 10), as PyTorch's log_ndtr. Differentiable.
--- Example: torch.special.logNdtr(torch.Tensor({-40, 0, 10}))
function special.logNdtr(x)
  local xd, dt = in_double('special.logNdtr', x)
  return (to_dtype(log_ndtr64(xd), dt))
end

-- Note [ndtri in the tails]: sqrt 2 erfinv(2p - 1) loses everything as p -> 0 (2p - 1 rounds to
-- -1 below 1e-17), so below p = 0.075 (and symmetrically above 0.925, where 1 - p is exact)
-- Tocha starts from Abramowitz & Stegun 26.2.23 (error < 4.5e-4) and takes three Newton steps on
-- logNdtr(x) = log p, whose derivative phi / Phi = 1 / (sqrt(pi / 2) erfcx(-x / sqrt 2)) stays
-- finite in the tail: ndtri(1e-300) is -37.047. Autograd goes through the steps; at convergence
-- their derivative is ndtri's, sqrt(2 pi) exp(x^2 / 2).
local function ndtri_tail(q)
  local t = torch.sqrt(torch.log(q) * -2)
  local num = 2.515517 + t * 0.802853 + torch.cmul(t, t) * 0.010328
  local den = 1 + t * 1.432788 + torch.cmul(t, t) * 0.189269 + torch.pow(t, 3) * 0.001308
  local x = torch.cdiv(num, den) - t
  local logq = torch.log(q)
  for _ = 1, 3 do
    x = x - torch.cmul(log_ndtr64(x) - logq, erfcx64(-x / SQRT2)) * math.sqrt(math.pi / 2)
  end
  return x
end

--- torch.special.ndtri(p): the inverse of ndtr, the standard normal quantile of p in [0, 1]
--- (-inf at 0, inf at 1, NaN outside), accurate in both tails (Note [ndtri in the tails]).
--- Differentiable.
--- Example: torch.special.ndtri(torch.Tensor({0.025, 0.5, 0.975}))
function special.ndtri(p)
  local pd, dt = in_double('special.ndtri', p, 'p')
  local center = torch.logicalAnd(torch.ge(pd, 0.075), torch.le(pd, 0.925))
  local pc = torch.where(center, pd, 0.5)
  local mid = torch.erfinv(pc * 2 - 1) * SQRT2
  local upper = torch.gt(pd, 0.5)
  local q = torch.where(upper, 1 - pd, pd)
  local qs = torch.where(torch.logicalAnd(torch.gt(q, 0), torch.logicalNot(center)), q, 0.05)
  local tail = ndtri_tail(qs)
  tail = torch.where(upper, -tail, tail)
  local out = torch.where(center, mid, tail)
  out = torch.where(torch.eq(pd, 0), -math.huge, out)
  out = torch.where(torch.eq(pd, 1), math.huge, out)
  local bad = torch.logicalOr(torch.logicalOr(torch.lt(pd, 0), torch.gt(pd, 1)), torch.isnan(pd))
  return (to_dtype(torch.where(bad, 0 / 0, out), dt))
end

return special
