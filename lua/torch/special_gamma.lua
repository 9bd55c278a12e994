-- torch.special's regularized incomplete gamma functions (gammainc, gammaincc, Cephes's series
-- and continued fraction run as tensor loops) and the Hurwitz zeta function (Euler-Maclaurin).
local torch = require 'torch.env'
local lib = require 'torch.lib'
local special = torch.special
local fail = lib.fail
local to_dtype, binary_args = special._to_dtype, special._binary_args
local F64 = lib.dtype.f64
local EPS = 2 ^ -53

-- log(x^a e^-x / Gamma(a)) for a, x > 0. From a = 20 on, lgamma's Stirling form is expanded so
-- that the large terms cancel exactly: a (log1p(u) - u) + log(a / 2 pi) / 2 - stirlerr(a) with
-- u = (x - a) / a (a log x - x - lgamma(a) loses ~1e-16 a absolutely, 1e-10 at a = 1e6).
local function log_prefactor(a, x)
  local direct = torch.xlogy(a, x) - x - torch.lgamma(a)
  local big = torch.ge(a, 20)
  local ab = torch.where(big, a, 20)
  local u = torch.cdiv(x - ab, ab)
  local r = torch.pow(ab, -1)
  local r2 = torch.cmul(r, r)
  local st = torch.cmul(r, 1 / 12 - torch.cmul(r2, 1 / 360 - torch.cmul(r2, 1 / 1260 - r2 / 1680)))
  local stirling = torch.cmul(ab, torch.log1p(u) - u) + torch.log(ab / (2 * math.pi)) / 2 - st
  return (torch.where(big, stirling, direct))
end

-- Iterations until every element converged (checked every 16 steps, so a few extra steps run),
-- capped where a very large a would need more than ~8.6 sqrt(a) terms.
local function max_iterations(a)
  local amax = a:nElement() > 0 and a:max() or 1
  return math.min(40000, math.floor(12 * math.sqrt(math.max(amax, 1))) + 200)
end

-- Cephes igam's series, in the region x <= max(1, a): P = e^lax / a * sum_n x^n / ((a+1)...(a+n)).
local function series_sum(a, x)
  local c, s, r = torch.onesLike(x), torch.onesLike(x), a:clone()
  for it = 1, max_iterations(a) do
    r = r + 1
    c = torch.cmul(c, torch.cdiv(x, r))
    s = s + c
    if it % 16 == 0 and torch.cdiv(c, s):max() <= EPS then break end
  end
  return torch.cdiv(s, a)
end

-- Cephes igamc's continued fraction for x > max(1, a): Q = e^lax * ans; the convergents are
-- divided by their denominator every step instead of Cephes's occasional rescaling.
local function continued_fraction(a, x)
  local y, z, c = 1 - a, x - a + 2, 0
  local pkm2, qkm2 = torch.onesLike(x), x:clone()
  local pkm1, qkm1 = x + 1, torch.cmul(z, x)
  local ans = torch.cdiv(pkm1, qkm1)
  for it = 1, max_iterations(a) do
    c, y, z = c + 1, y + 1, z + 2
    local yc = y * c
    local pk = torch.cmul(pkm1, z) - torch.cmul(pkm2, yc)
    local qk = torch.cmul(qkm1, z) - torch.cmul(qkm2, yc)
    local r = torch.cdiv(pk, qk)
    local change = torch.abs(torch.cdiv(ans - r, r))
    ans = r
    pkm2, qkm2, pkm1, qkm1 = torch.cdiv(pkm1, qk), torch.cdiv(qkm1, qk), torch.cdiv(pk, qk), torch.onesLike(qk)
    if it % 16 == 0 and change:max() <= EPS then break end
  end
  return ans
end

-- P and Q in double for broadcast double tensors, with PyTorch's special cases: NaN for a < 0
-- or x < 0 (or both 0, or both inf), P = 1 at a = 0 or x = inf, P = 0 at x = 0 or a = inf.
local function igamma(a, x)
  if a:nElement() == 0 then return a:clone(), a:clone() end  -- the loops' convergence checks reduce
  local finite = torch.logicalAnd(torch.isfinite(a), torch.isfinite(x))
  local ok = torch.logicalAnd(torch.logicalAnd(torch.gt(a, 0), torch.gt(x, 0)), finite)
  local as, xs = torch.where(ok, a, 1), torch.where(ok, x, 1)
  local in_series = torch.logicalOr(torch.le(xs, 1), torch.le(xs, as))
  local lax = log_prefactor(as, xs)
  local sp = series_sum(torch.where(in_series, as, 1), torch.where(in_series, xs, 0))
  local p_series = torch.cmul(torch.exp(lax), sp)
  local cf = continued_fraction(torch.where(in_series, 1, as), torch.where(in_series, 50, xs))
  local q_cf = torch.cmul(torch.exp(lax), cf)
  local P = torch.where(in_series, p_series, 1 - q_cf)
  local Q = torch.where(in_series, 1 - p_series, q_cf)
  local one = torch.logicalOr(torch.logicalAnd(torch.eq(a, 0), torch.gt(x, 0)),
    torch.logicalAnd(torch.eq(x, math.huge), torch.isfinite(a)))
  local zero = torch.logicalAnd(torch.logicalOr(torch.eq(x, 0), torch.eq(a, math.huge)),
    torch.logicalAnd(torch.gt(a, 0), torch.lt(x, math.huge)))
  zero = torch.logicalOr(zero, torch.logicalAnd(torch.eq(x, 0), torch.eq(a, math.huge)))
  P, Q = torch.where(one, 1, P), torch.where(one, 0, Q)
  P, Q = torch.where(zero, 0, P), torch.where(zero, 1, Q)
  local nan = torch.logicalOr(torch.logicalOr(torch.lt(a, 0), torch.lt(x, 0)), torch.logicalOr(torch.isnan(a), torch.isnan(x)))
  nan = torch.logicalOr(nan, torch.logicalAnd(torch.eq(a, 0), torch.eq(x, 0)))
  nan = torch.logicalOr(nan, torch.logicalAnd(torch.eq(a, math.huge), torch.eq(x, math.huge)))
  return torch.where(nan, 0 / 0, P), torch.where(nan, 0 / 0, Q)
end

-- Note [Incomplete gamma gradients]: the value comes from a loop of up to thousands of steps,
-- so it is an autograd Function whose backward is the closed form d/dx P = x^(a-1) e^-x /
-- Gamma(a) (written with ops, so double backward in x works). PyTorch 1.13 does not
-- differentiate in a either ("the derivative for 'igamma: input' is not implemented"); Tocha
-- raises the same way when a needs a gradient.
local function make_function(name, upper)
  local Fn = torch.autograd.Function(name)
  function Fn.forward(ctx, a, x, dt)
    ctx:saveForBackward(a, x)
    ctx.dt = dt
    local P, Q = igamma(to_dtype(a, F64), to_dtype(x, F64))
    return (to_dtype(upper and Q or P, dt))
  end
  function Fn.backward(ctx, g)
    local a, x = ctx:savedTensors()
    if ctx.needsInputGrad[1] then
      fail('special.' .. name, 'the derivative with respect to a (the first argument) is not implemented, as in PyTorch')
    end
    local d = torch.exp(torch.xlogy(a - 1, x) - x - torch.lgamma(a))
    if upper then d = -d end
    return nil, torch.cmul(g, d)
  end
  return Fn
end
local GammaInc, GammaIncc = make_function('gammainc', false), make_function('gammaincc', true)

local function gamma_args(op, a, x)
  local at, xt, dt = binary_args(op, a, x, 'a', 'x')
  local list = torch.broadcastTensors(at, xt)
  return list[1], list[2], dt
end

--- torch.special.gammainc(a, x): the regularized lower incomplete gamma function P(a, x) =
--- gamma(a, x) / Gamma(a) for a, x >= 0 (numbers or tensors, broadcast; NaN for negative
--- arguments, as PyTorch), by Cephes's series and continued fraction computed in double.
--- Differentiable in x only, as in PyTorch (Note [Incomplete gamma gradients]).
--- Example: torch.special.gammainc(torch.Tensor({0.5, 3}), torch.Tensor({0.5, 2}))
function special.gammainc(a, x)
  local at, xt, dt = gamma_args('special.gammainc', a, x)
  return (GammaInc.apply(at, xt, dt))
end

--- torch.special.gammaincc(a, x): the regularized upper incomplete gamma function Q(a, x) =
--- 1 - P(a, x), computed directly where it is small (gammaincc(1, 20) = 2.06e-9).
--- Differentiable in x only, as in PyTorch.
--- Example: torch.special.gammaincc(torch.Tensor({0.5, 3}), torch.Tensor({0.5, 2}))
function special.gammaincc(a, x)
  local at, xt, dt = gamma_args('special.gammaincc', a, x)
  return (GammaIncc.apply(at, xt, dt))
end

-- Cephes zeta's Euler-Maclaurin coefficients (2k)! / B_2k.
local ZETA_A = { 12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
  -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
  1.8152105401943546773e17, -7.1661652561756670113e18 }

-- sum_{i=0..n} (q + i)^-x per element, n >= 9 (a tensor): chunks of columns i of a (numel x
-- chunk) table of terms, so a very negative q (n ~ -q terms, as Cephes sums them) costs a
-- few large ops instead of a Lua loop per term.
local function direct_sum(x, q, n)
  local numel = x:nElement()
  if numel == 0 then return x:clone() end
  local nmax = n:max()
  local xf, qf, nf = x:reshape(numel, 1), q:reshape(numel, 1), n:reshape(numel, 1)
  local chunk = math.max(16, math.floor(2 ^ 22 / numel))
  local s
  for start = 0, nmax, chunk do
    local len = math.min(chunk, nmax - start + 1)
    local i = torch.arange(torch.DoubleTensor(), start, start + len):view(1, len)
    if x.p.device_type ~= 0 then i = torch._to_device(i, x:device()) end
    local terms = torch.where(torch.le(i, nf), torch.pow(qf + i, -xf), 0)
    local part = torch.sum(terms, 2)
    s = s and s + part or part
  end
  return (s:view(x:size()))
end

-- Note [Hurwitz zeta]: Cephes's algorithm as PyTorch runs it: sum (q + i)^-x directly until
-- q + i > 9 (at least 10 terms; q <= 0 with integer x sums more), then the Euler-Maclaurin tail
-- with 12 Bernoulli terms; inf at x = 1 or q a non-positive integer, NaN for x < 1 or for
-- q < 0 with x not an integer. Written with ops, it is differentiable in q (-x zeta(x + 1, q),
-- PyTorch's only derivative) and also in x, which PyTorch refuses.
local function zeta64(x, q)
  local qneg_int = torch.logicalAnd(torch.le(q, 0), torch.eq(q, torch.floor(q)))
  local nan = torch.logicalOr(torch.lt(x, 1), torch.logicalAnd(torch.le(q, 0), torch.ne(x, torch.floor(x))))
  local inf = torch.logicalOr(torch.eq(x, 1), qneg_int)
  local isnan = torch.logicalOr(torch.isnan(x), torch.isnan(q))
  -- a NaN q made the count of direct terms NaN, and direct_sum summed nothing (a Lua error)
  local ok = torch.logicalNot(torch.logicalOr(torch.logicalOr(nan, inf), isnan))
  local xs, qs = torch.where(ok, x, 2), torch.where(ok, q, 1)
  local n = torch.cmax(torch.floor(9 - qs:detach()) + 1, 9)  -- direct terms after q^-x
  local s = direct_sum(xs, qs, n)
  local w = qs + n
  local b = torch.pow(w, -xs)
  s = s + torch.cdiv(torch.cmul(b, w), xs - 1) - b * 0.5
  local fa, k = torch.onesLike(xs), 0
  for i = 1, 12 do
    fa = torch.cmul(fa, xs + k)
    b = torch.cdiv(b, w)
    s = s + torch.cmul(fa, b) / ZETA_A[i]
    k = k + 1
    fa = torch.cmul(fa, xs + k)
    b = torch.cdiv(b, w)
    k = k + 1
  end
  s = torch.where(inf, math.huge, s)
  return (torch.where(torch.logicalOr(nan, isnan), 0 / 0, s))
end

--- torch.special.zeta(x, q): the Hurwitz zeta function sum_{k>=0} (k + q)^-x (numbers or
--- tensors, broadcast; zeta(x, 1) is Riemann's), Cephes's algorithm as in PyTorch (Note
--- [Hurwitz zeta]). Differentiable in q and in x.
--- Example: torch.special.zeta(torch.Tensor({2, 3}), 1)
function special.zeta(x, q)
  local xt, qt, dt = binary_args('special.zeta', x, q, 'x', 'q')
  return (to_dtype(zeta64(to_dtype(xt, F64), to_dtype(qt, F64)), dt))
end

return special
