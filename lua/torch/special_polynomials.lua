-- torch.special's orthogonal polynomials (PyTorch 1.13's chebyshev_polynomial_t/u/v/w, their
-- shifted forms, hermite_polynomial_h/he, laguerre_polynomial_l, legendre_polynomial_p):
-- three-term recurrences and PyTorch's trigonometric forms, written with tensor ops in double
-- (Note [Special functions from tensor ops] in special.lua).
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local special = torch.special
local fail, is_tensor, describe = lib.fail, types.is_tensor, types.describe
local to_dtype, is_float_dtype = special._to_dtype, special._is_float_dtype
local F64 = lib.dtype.f64

-- Note [Polynomial degrees]: PyTorch casts n to int64 (truncating, and undefined for NaN or
-- inf); here n must be integer-valued and finite, and an error says so. A negative degree gives
-- 0 (PyTorch's convention). The degree is a loop count: the recurrence runs max(n) - 1 steps
-- over the whole tensor, each element's value frozen once its own degree is reached, so large
-- |x| with a small n never overflows into a NaN gradient. Degrees above 2^24 are refused (hours
-- of steps). n gets no gradient (PyTorch has none either); x does, through the recurrence or
-- the trigonometric form (PyTorch 1.13 has no derivative for these functions at all).
local MAX_DEGREE = 2 ^ 24

-- x and n (tensors or numbers, at least one a tensor) as double tensors broadcast to one shape
-- (n stays a number when it is one), and the result's dtype (PyTorch's promotion of x and n).
local function args(op, x, n)
  if not is_tensor(x) and not is_tensor(n) then
    fail(op, 'expected x or n to be a tensor, got %s and %s', describe(x), describe(n))
  end
  if not is_tensor(x) and type(x) ~= 'number' then fail(op, 'x must be a tensor or a number, got %s', describe(x)) end
  if not is_tensor(n) and type(n) ~= 'number' then fail(op, 'n must be a tensor or a number, got %s', describe(n)) end
  local dt
  if is_tensor(x) and is_tensor(n) then
    dt = special._float_promote(x.p.dtype, n.p.dtype)
  else
    dt = (is_tensor(x) and x or n).p.dtype
    if not is_float_dtype(dt) then dt = torch._default_dtype() end
  end
  local maxn
  if type(n) == 'number' then
    if n ~= n or n ~= math.floor(n) or math.abs(n) == math.huge then
      fail(op, 'n must be an integer-valued degree, got %s', tostring(n))
    end
    maxn = n
  else
    if n:needsGrad() then fail(op, 'n (the degree) is not differentiable: detach it (n:detach())') end
    n = to_dtype(n, F64)
    if n:nElement() > 0 then
      local bad = torch.ne(n, torch.trunc(n)):any() or torch.eq(torch.abs(n), math.huge):any()
      if bad then fail(op, 'n must hold integer-valued (finite) degrees, got %s', describe(n)) end
      maxn = n:max()
    else
      maxn = 0
    end
  end
  if maxn > MAX_DEGREE then fail(op, 'degrees above 2^24 = %d are not supported, got %d', MAX_DEGREE, maxn) end
  if type(x) == 'number' then
    x = torch._filledLike(n, x)
  end
  x = to_dtype(x, F64)
  if is_tensor(n) and not x:isSameSizeAs(n) then
    local ok, b = pcall(torch.broadcastTensors, x, n)
    if not ok then fail(op, 'x (%s) and n (%s) do not broadcast', describe(x), describe(n)) end
    x, n = b[1], b[2]
  end
  return x, n, dt, maxn
end

local function nt(n, x) return type(n) == 'number' and torch._filledLike(x, n) or n end

-- The recurrence: p = P_0 = 1, q = P_1 = first; step(j, p, q) gives P_(j+1) for j = 1, 2...;
-- returns P_n (1 for n = 0, 0 for n < 0).
local function recur(x, n, maxn, first, step)
  local p, q = torch.onesLike(x), first
  if type(n) == 'number' then
    if n < 0 then return torch.zerosLike(x) end
    if n == 0 then return p end
    for j = 1, n - 1 do p, q = q, step(j, p, q) end
    return q
  end
  for j = 1, maxn - 1 do
    local r = step(j, p, q)
    local active = torch.lt(j, n)
    p, q = torch.where(active, q, p), torch.where(active, r, q)
  end
  return (torch.where(torch.lt(n, 0), 0, torch.where(torch.eq(n, 0), 1, q)))
end

-- v (a closed value at an end point, a number or tensor) carrying the gradient of r, the
-- recurrence's value there: the recurrence is exact at x = +-1 (and at 0 for Laguerre), so its
-- derivative is the polynomial's (T_n'(1) = n^2); a bare constant had given a gradient of 0.
local function pinned(v, r) return r - r:detach() + v end

local function odd(n) return torch.ne(torch.remainder(n, 2), 0) end
local function pm(n, v) return torch.where(odd(n), -v, v) end  -- (-1)^n v

-- ---- Chebyshev polynomials --------------------------------------------------------------------
-- Note [Chebyshev forms]: as PyTorch, a degree above a threshold (6 for T, 8 for U, V and W; 6,
-- 6, 6 and 4 for the shifted ones) inside (-1, 1) takes the trigonometric form (T_n = cos(n t),
-- U_n = sin((n+1) t) / sin t, V_n = cos((n+1/2) t) / cos(t/2), W_n = sin((n+1/2) t) / sin(t/2),
-- t = acos x), the rest the recurrence P_(k+1) = 2x P_k - P_(k-1); x = +-1 (0 or 1 for the
-- shifted ones) gets PyTorch's closed values, and so do the two doubles where libm's sin(t/2)
-- (V, y = -1 + 2^-53) or cos(t/2) (W, y = 1 - 2^-53) rounds to 1, PyTorch's fallbacks, found
-- by comparing y rather than by this engine's sin and cos, which may round differently there.
-- The shifted polynomials are the plain ones at y = 2x - 1. Each branch sees its own elements
-- only (the others get a harmless x).
local CHEB = {
  T = { first = function(y) return y end, thr = 6, sthr = 6,
        trig = function(t, nn) return torch.cos(torch.cmul(nn, t)) end },
  U = { first = function(y) return y * 2 end, thr = 8, sthr = 6,
        trig = function(t, nn) return torch.cdiv(torch.sin(torch.cmul(nn + 1, t)), torch.sin(t)) end },
  V = { first = function(y) return y * 2 - 1 end, thr = 8, sthr = 6,
        trig = function(t, nn) return torch.cdiv(torch.cos(torch.cmul(nn + 0.5, t)), torch.cos(t / 2)) end,
        -- PyTorch's fallback where sin(t/2) rounds to 1 in libm: y = -1 + 2^-53 only
        degenerate = function(y) return torch.eq(y, -1 + 2 ^ -53) end },
  W = { first = function(y) return y * 2 + 1 end, thr = 8, sthr = 4,
        trig = function(t, nn) return torch.cdiv(torch.sin(torch.cmul(nn + 0.5, t)), torch.sin(t / 2)) end,
        -- where cos(t/2) rounds to 1 in libm: y = 1 - 2^-53 only
        degenerate = function(y) return torch.eq(y, 1 - 2 ^ -53) end },
}

-- The values at y = 1 and y = -1 (x = 1 and x = 0 when shifted), and the degenerate fallback.
local function ends(kind, nn, shifted)
  if kind == 'T' then return 1, pm(nn, 1), pm(nn, 1) end
  if kind == 'U' then return nn + 1, pm(nn, nn + 1), nil end
  if kind == 'V' then return 1, pm(nn, nn * 2 + 1), pm(nn, nn * 2 + 1) end
  -- W: the unshifted fallback is 2n + 1 for x > 0, the shifted one (-1)^n
  return nn * 2 + 1, pm(nn, 1), pm(nn, 1), not shifted
end

local function chebyshev(op, kind, shifted, x, n)
  local c = CHEB[kind]
  local xd, nn0, dt, maxn = args(op, x, n)
  local y = shifted and xd * 2 - 1 or xd
  local nn = nt(nn0, xd)
  local thr = shifted and c.sthr or c.thr
  local at_one = shifted and torch.eq(xd, 1) or torch.eq(y, 1)
  local at_minus = shifted and torch.eq(xd, 0) or torch.eq(y, -1)
  local inside = torch.lt(torch.abs(y), 1)
  local use_trig = torch.logicalAnd(torch.logicalAnd(inside, torch.gt(nn, thr)),
    torch.logicalNot(torch.logicalOr(at_one, at_minus)))
  -- trigonometric form on its own elements
  local t = torch.acos(torch.where(use_trig, y, 0))
  local trig = c.trig(t, nn)
  local v1, vm1, vdeg, deg_pos = ends(kind, nn, shifted)
  if c.degenerate then
    local deg = torch.logicalAnd(use_trig, c.degenerate(y))
    local fallback = vdeg
    if deg_pos then fallback = torch.where(torch.gt(y, 0), nn * 2 + 1, vdeg) end
    trig = torch.where(deg, fallback, trig)
  end
  -- recurrence on the others
  local yr = torch.where(use_trig, 0, y)
  local rec
  if use_trig:all() then
    rec = torch.zerosLike(yr)  -- the trigonometric form everywhere: no max(n) - 1 recurrence steps
  else                          -- (T_n(0.5) with n = 2^24 had run for ~25 s)
    rec = recur(yr, nn0, maxn, c.first(yr), function(_, p, q) return torch.cmul(yr * 2, q) - p end)
  end
  local out = torch.where(use_trig, trig, rec)
  local neg = torch.lt(nn, 0)
  out = torch.where(at_one, pinned(v1, rec), torch.where(at_minus, pinned(vm1, rec), out))
  out = torch.where(neg, 0, out)
  return (to_dtype(out, dt))
end

--- torch.special.chebyshevPolynomialT(x, n): the Chebyshev polynomial of the first kind T_n(x)
--- (PyTorch's special.chebyshev_polynomial_t); x and n tensors or numbers (broadcast), n
--- integer-valued, 0 for n < 0. Differentiable in x (PyTorch 1.13 has no derivative).
--- Example: torch.special.chebyshevPolynomialT(torch.Tensor({0.5, 2}), 3)
function special.chebyshevPolynomialT(x, n) return chebyshev('special.chebyshevPolynomialT', 'T', false, x, n) end

--- torch.special.chebyshevPolynomialU(x, n): the Chebyshev polynomial of the second kind U_n(x)
--- (PyTorch's special.chebyshev_polynomial_u); broadcasting, n integer-valued, 0 for n < 0.
--- Differentiable in x.
--- Example: torch.special.chebyshevPolynomialU(torch.Tensor({0.5, 2}), 3)
function special.chebyshevPolynomialU(x, n) return chebyshev('special.chebyshevPolynomialU', 'U', false, x, n) end

--- torch.special.chebyshevPolynomialV(x, n): the Chebyshev polynomial of the third kind V_n(x)
--- (PyTorch's special.chebyshev_polynomial_v); broadcasting, n integer-valued, 0 for n < 0.
--- Differentiable in x.
--- Example: torch.special.chebyshevPolynomialV(torch.Tensor({0.5, 2}), 3)
function special.chebyshevPolynomialV(x, n) return chebyshev('special.chebyshevPolynomialV', 'V', false, x, n) end

--- torch.special.chebyshevPolynomialW(x, n): the Chebyshev polynomial of the fourth kind W_n(x)
--- (PyTorch's special.chebyshev_polynomial_w); broadcasting, n integer-valued, 0 for n < 0.
--- Differentiable in x.
--- Example: torch.special.chebyshevPolynomialW(torch.Tensor({0.5, 2}), 3)
function special.chebyshevPolynomialW(x, n) return chebyshev('special.chebyshevPolynomialW', 'W', false, x, n) end

--- torch.special.shiftedChebyshevPolynomialT(x, n): T*_n(x) = T_n(2x - 1), the first kind on
--- [0, 1] (PyTorch's special.shifted_chebyshev_polynomial_t). Differentiable in x.
--- Example: torch.special.shiftedChebyshevPolynomialT(torch.Tensor({0.25, 1}), 3)
function special.shiftedChebyshevPolynomialT(x, n)
  return chebyshev('special.shiftedChebyshevPolynomialT', 'T', true, x, n)
end

--- torch.special.shiftedChebyshevPolynomialU(x, n): U*_n(x) = U_n(2x - 1) (PyTorch's
--- special.shifted_chebyshev_polynomial_u). Differentiable in x.
--- Example: torch.special.shiftedChebyshevPolynomialU(torch.Tensor({0.25, 1}), 3)
function special.shiftedChebyshevPolynomialU(x, n)
  return chebyshev('special.shiftedChebyshevPolynomialU', 'U', true, x, n)
end

--- torch.special.shiftedChebyshevPolynomialV(x, n): V*_n(x) = V_n(2x - 1) (PyTorch's
--- special.shifted_chebyshev_polynomial_v). Differentiable in x.
--- Example: torch.special.shiftedChebyshevPolynomialV(torch.Tensor({0.25, 1}), 3)
function special.shiftedChebyshevPolynomialV(x, n)
  return chebyshev('special.shiftedChebyshevPolynomialV', 'V', true, x, n)
end

--- torch.special.shiftedChebyshevPolynomialW(x, n): W*_n(x) = W_n(2x - 1) (PyTorch's
--- special.shifted_chebyshev_polynomial_w). Differentiable in x.
--- Example: torch.special.shiftedChebyshevPolynomialW(torch.Tensor({0.25, 1}), 3)
function special.shiftedChebyshevPolynomialW(x, n)
  return chebyshev('special.shiftedChebyshevPolynomialW', 'W', true, x, n)
end

-- ---- Hermite, Laguerre, Legendre --------------------------------------------------------------

--- torch.special.hermitePolynomialH(x, n): the physicists' Hermite polynomial H_n(x)
--- (H_(k+1) = 2x H_k - 2k H_(k-1); PyTorch's special.hermite_polynomial_h); broadcasting, n
--- integer-valued, 0 for n < 0. Differentiable in x.
--- Example: torch.special.hermitePolynomialH(torch.Tensor({0.5, 2}), 3)
function special.hermitePolynomialH(x, n)
  local xd, nn, dt, maxn = args('special.hermitePolynomialH', x, n)
  return (to_dtype(recur(xd, nn, maxn, xd * 2, function(j, p, q) return torch.cmul(xd * 2, q) - p * (2 * j) end), dt))
end

--- torch.special.hermitePolynomialHe(x, n): the probabilists' Hermite polynomial He_n(x)
--- (He_(k+1) = x He_k - k He_(k-1); PyTorch's special.hermite_polynomial_he); broadcasting, n
--- integer-valued, 0 for n < 0. Differentiable in x.
--- Example: torch.special.hermitePolynomialHe(torch.Tensor({0.5, 2}), 3)
function special.hermitePolynomialHe(x, n)
  local xd, nn, dt, maxn = args('special.hermitePolynomialHe', x, n)
  return (to_dtype(recur(xd, nn, maxn, xd, function(j, p, q) return torch.cmul(xd, q) - p * j end), dt))
end

--- torch.special.laguerrePolynomialL(x, n): the Laguerre polynomial L_n(x) ((k+1) L_(k+1) =
--- (2k + 1 - x) L_k - k L_(k-1); PyTorch's special.laguerre_polynomial_l); broadcasting, n
--- integer-valued, 0 for n < 0, 1 at x = 0. Differentiable in x.
--- Example: torch.special.laguerrePolynomialL(torch.Tensor({0.5, 2}), 3)
function special.laguerrePolynomialL(x, n)
  local xd, nn, dt, maxn = args('special.laguerrePolynomialL', x, n)
  local one_minus = 1 - xd
  local out = recur(xd, nn, maxn, one_minus, function(j, p, q)
    return (torch.cmul(one_minus + 2 * j, q) - p * j) / (j + 1)
  end)
  -- PyTorch returns 1 at x = 0 for every n >= 0 (the recurrence gives it too, but exactly)
  local n0 = nt(nn, xd)
  out = torch.where(torch.logicalAnd(torch.eq(xd, 0), torch.ge(n0, 0)), pinned(1, out), out)
  return (to_dtype(out, dt))
end

--- torch.special.legendrePolynomialP(x, n): the Legendre polynomial P_n(x) ((k+1) P_(k+1) =
--- (2k + 1) x P_k - k P_(k-1); PyTorch's special.legendre_polynomial_p); broadcasting, n
--- integer-valued, 0 for n < 0, +-1 at x = +-1. Differentiable in x.
--- Example: torch.special.legendrePolynomialP(torch.Tensor({0.5, 2}), 3)
function special.legendrePolynomialP(x, n)
  local xd, nn, dt, maxn = args('special.legendrePolynomialP', x, n)
  local out = recur(xd, nn, maxn, xd, function(j, p, q) return (torch.cmul(xd, q) * (2 * j + 1) - p * j) / (j + 1) end)
  local n0 = nt(nn, xd)
  local ok = torch.ge(n0, 0)
  out = torch.where(torch.logicalAnd(ok, torch.eq(xd, 1)), pinned(1, out), out)
  out = torch.where(torch.logicalAnd(ok, torch.eq(xd, -1)), pinned(pm(n0, 1), out), out)
  return (to_dtype(out, dt))
end

return special
