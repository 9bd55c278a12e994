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

-- lgamma(1 + a) for 0 <= a <= 0.2 by its Taylor series -gamma a + sum_k (-1)^k zeta(k) / k a^k
-- (coefficients from mpmath): torch.lgamma(1 + a) loses a's digits as 1 + a rounds (all of
-- them below 1e-16, where the value is -0.577 a).
local LG1P = { 0.8224670334241132, -0.40068563438653143, 0.27058080842778454, -0.20738555102867398,
  0.16955717699740819, -0.14404989676884611, 0.12550966952474304, -0.11133426586956469, 0.10009945751278181,
  -0.090954017145829041, 0.083353840546109004, -0.076932516411352195, 0.07143294629536133, -0.066668705882420465,
  0.062500955141213038, -0.058823978658684585, 0.055555767627403614, -0.052631679379616658, 0.050000047698101693,
  -0.047619070330142226, 0.045454556293204669, -0.043478266053040261, 0.041666669150341208,
  -0.040000001192140137, 0.038461539034675182 }
local EULER = 0.57721566490153286061
local function lgamma1p_small(a)
  local s = torch._filledLike(a, LG1P[#LG1P])
  for k = #LG1P - 1, 1, -1 do s = torch.cmul(s, a) + LG1P[k] end
  return torch.cmul(a, torch.cmul(s, a) - EULER)
end

-- Note [Incomplete gamma for small a]: Q = 1 - P cancels when P is near 1, which is where a is
-- small (gammaincc(1e-10, 1) = 2.19e-11 came out 4e-5 off, gammaincc(1e-300, 1) as -2.4e-14).
-- There Q comes from DLMF 8.7.3 as in Cephes's igamc (and PyTorch), in Cephes's region (x <= 0.5
-- and a <= -0.4 / log x, or x <= 1.1 and a <= 1.1 x): Q = -expm1(a log x - lgamma(1 + a)) -
-- x^a / Gamma(a) sum_n>=1 (-x)^n / (n! (a + n)); lgamma(1 + a) by its series (PyTorch 1.13 rounds
-- 1 + a and gets gammaincc(1e-300, 1) = 7.97e-301 where it is 2.19e-301, by mpmath).
local function igamc_small_a(a, x)
  local fac, sum = torch.onesLike(x), torch.zerosLike(x)
  for n = 1, 30 do  -- x <= 1.1: the terms fall as 1.1^n / n!, below 1e-17 of the sum by n = 25
    fac = torch.cmul(fac, -x / n)
    sum = sum + torch.cdiv(fac, a + n)
  end
  local alogx = torch.cmul(a, torch.log(x))
  local lg1p = torch.where(torch.le(a, 0.2), lgamma1p_small(torch.cmin(a, 0.2)), torch.lgamma(a + 1))
  -- x^a / Gamma(a) as a x^a / Gamma(1 + a): exp(-lgamma(1e-300)) had lgamma's rounding of 690.8
  return -torch.expm1(alogx - lg1p) - torch.cmul(torch.cmul(torch.exp(alogx - lg1p), a), sum)
end

-- Note [Incomplete gamma for large a]: the series and the continued fraction need ~8.6 sqrt(a)
-- terms near x = a and are capped at 40000, so from a ~ 1e7 on they stopped short
-- (gammainc(1e10, 1e10) gave 0.155 for 0.5000013). From a = 1e4 on, within |x - a| <= 0.05 a,
-- Temme's uniform expansion (DLMF 8.12.3/8.12.4, Cephes's igam asymptotic series, as PyTorch
-- from a = 20 on) takes over: Q = erfc(eta sqrt(a / 2)) / 2 + e^(-a eta^2 / 2) / sqrt(2 pi a)
-- sum_k a^-k C_k(eta), eta = sign(x - a) sqrt(-2 (log1p(s) - s)), s = (x - a) / a. With
-- a >= 1e4 three C_k leave under 1e-18, and with |eta| <= 0.052 twelve of their Taylor
-- coefficients (Cephes's d table) under 1e-21; outside that band the series converge in fewer
-- than 36 / 0.05 steps.
local TEMME_D = {
  { -3.3333333333333333e-1, 8.3333333333333333e-2, -1.4814814814814815e-2, 1.1574074074074074e-3,
    3.527336860670194e-4, -1.7875514403292181e-4, 3.9192631785224378e-5, -2.1854485106799922e-6,
    -1.85406221071516e-6, 8.296711340953086e-7, -1.7665952736826079e-7, 6.7078535434014986e-9 },
  { -1.8518518518518519e-3, -3.4722222222222222e-3, 2.6455026455026455e-3, -9.9022633744855967e-4,
    2.0576131687242798e-4, -4.0187757201646091e-7, -1.8098550334489978e-5, 7.6491609160811101e-6,
    -1.6120900894563446e-6, 4.6471278028074343e-9, 1.378633446915721e-7, -5.752545603517705e-8 },
  { 4.1335978835978836e-3, -2.6813271604938272e-3, 7.7160493827160494e-4, 2.0093878600823045e-6,
    -1.0736653226365161e-4, 5.2923448829120125e-5, -1.2760635188618728e-5, 3.4235787340961381e-8,
    1.3721957309062933e-6, -6.298992138380055e-7, 1.4280614206064242e-7, -2.0477098421990866e-10 },
}
local TEMME_A, TEMME_S = 1e4, 0.05
local function temme(a, x)
  local s = torch.cdiv(x - a, a)
  -- log1p(s) - s by its series (|s| <= 0.05: 24 terms), without log1p's cancellation
  local l = torch._filledLike(s, -1 / 25)
  for k = 24, 2, -1 do l = torch.cmul(l, s) + ((k % 2 == 0) and -1 or 1) / k end
  l = torch.cmul(l, torch.cmul(s, s))
  local eta = torch.cmul(torch.sign(s), torch.sqrt(torch.cmax(l * -2, 0)))
  local sum, afac = torch.zerosLike(s), torch.onesLike(s)
  local ainv = torch.pow(a, -1)
  for k = 1, #TEMME_D do
    local d = TEMME_D[k]
    local ck = torch._filledLike(s, d[#d])
    for n = #d - 1, 1, -1 do ck = torch.cmul(ck, eta) + d[n] end
    sum = sum + torch.cmul(ck, afac)
    afac = torch.cmul(afac, ainv)
  end
  local r = torch.cdiv(torch.cmul(torch.exp(torch.cmul(a, l)), sum), torch.sqrt(a * (2 * math.pi)))
  local z = torch.cmul(eta, torch.sqrt(a / 2))
  -- P and Q each from their own erfc, so that the smaller keeps its digits
  return torch.erfc(-z) / 2 - r, torch.erfc(z) / 2 + r
end

-- P and Q in double for broadcast double tensors, with PyTorch's special cases: NaN for a < 0
-- or x < 0 (or both 0, or both inf), P = 1 at a = 0 or x = inf, P = 0 at x = 0 or a = inf.
local function igamma(a, x)
  if a:nElement() == 0 then return a:clone(), a:clone() end  -- the loops' convergence checks reduce
  local finite = torch.logicalAnd(torch.isfinite(a), torch.isfinite(x))
  local ok = torch.logicalAnd(torch.logicalAnd(torch.gt(a, 0), torch.gt(x, 0)), finite)
  local as, xs = torch.where(ok, a, 1), torch.where(ok, x, 1)
  -- large a near x = a: Temme's expansion (Note [Incomplete gamma for large a]); the loops
  -- below see a harmless (1, 1) there, so that they stop early
  local in_temme = torch.logicalAnd(torch.ge(as, TEMME_A), torch.le(torch.abs(xs - as), torch.abs(as) * TEMME_S))
  local any_temme = in_temme:any()
  local at, xt = as, xs
  if any_temme then as, xs = torch.where(in_temme, 1, as), torch.where(in_temme, 1, xs) end
  local in_series = torch.logicalOr(torch.le(xs, 1), torch.le(xs, as))
  -- x^a e^-x / Gamma(a); below a = 0.2 as a x^a e^-x / Gamma(1 + a), since exp(-lgamma(a))
  -- carries lgamma's rounding of its large value (8e-14 off at a = 1e-300)
  local small = torch.le(as, 0.2)
  local ex = torch.exp(log_prefactor(as, xs))
  if small:any() then
    local asm = torch.where(small, as, 0.2)
    ex = torch.where(small, torch.cmul(asm, torch.exp(torch.xlogy(asm, xs) - xs - lgamma1p_small(asm))), ex)
  end
  local sp = series_sum(torch.where(in_series, as, 1), torch.where(in_series, xs, 0))
  local p_series = torch.cmul(ex, sp)
  local cf = continued_fraction(torch.where(in_series, 1, as), torch.where(in_series, 50, xs))
  local q_cf = torch.cmul(ex, cf)
  local P = torch.where(in_series, p_series, 1 - q_cf)
  local Q = torch.where(in_series, 1 - p_series, q_cf)
  -- small a: Q directly (Note [Incomplete gamma for small a])
  local small_a = torch.logicalAnd(torch.le(xs, 1), torch.logicalOr(
    torch.logicalAnd(torch.le(xs, 0.5), torch.le(as, torch.cdiv(torch._filledLike(xs, -0.4), torch.log(xs)))),
    torch.logicalAnd(torch.gt(xs, 0.5), torch.le(as, xs * 1.1))))
  small_a = torch.logicalAnd(small_a, in_series)
  if small_a:any() then
    local qs = igamc_small_a(torch.where(small_a, as, 1), torch.where(small_a, xs, 0.5))
    P, Q = torch.where(small_a, 1 - qs, P), torch.where(small_a, qs, Q)  -- the series' P passed 1 by 2e-14
  end
  if any_temme then
    local pt, qt = temme(torch.where(in_temme, at, TEMME_A), torch.where(in_temme, xt, TEMME_A))
    P, Q = torch.where(in_temme, pt, P), torch.where(in_temme, qt, Q)
  end
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
-- with 12 Bernoulli terms; inf at x = 1 or q a non-positive integer (x > 1), NaN for x < 1 or
-- for q < 0 with x not an integer; at x = inf 1 for q = 1, inf below, NaN above (PyTorch's).
-- Written with ops, it is differentiable in q (-x zeta(x + 1, q),
-- PyTorch's only derivative) and also in x, which PyTorch refuses.
local function zeta64(x, q)
  local qneg_int = torch.logicalAnd(torch.le(q, 0), torch.eq(q, torch.floor(q)))
  -- Cephes's order: x = 1 is inf, x < 1 NaN, then q a non-positive integer inf (zeta(2.5, -1) was
  -- NaN), then q < 0 with x not an integer NaN
  local inf = torch.logicalOr(torch.eq(x, 1), torch.logicalAnd(qneg_int, torch.gt(x, 1)))
  local nan = torch.logicalAnd(torch.logicalOr(torch.lt(x, 1),
    torch.logicalAnd(torch.lt(q, 0), torch.ne(x, torch.floor(x)))), torch.logicalNot(inf))
  -- x = inf: q^-x alone, 1 at q = 1 and inf below, as PyTorch (both were NaN from inf * 0)
  local xinf = torch.logicalAnd(torch.eq(x, math.huge), torch.logicalNot(inf))
  inf = torch.logicalOr(inf, torch.logicalAnd(xinf, torch.lt(q, 1)))
  nan = torch.logicalAnd(nan, torch.logicalNot(xinf))
  local isnan = torch.logicalOr(torch.isnan(x), torch.isnan(q))
  -- a NaN q made the count of direct terms NaN, and direct_sum summed nothing (a Lua error)
  local ok = torch.logicalNot(torch.logicalOr(torch.logicalOr(torch.logicalOr(nan, inf), isnan), xinf))
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
  -- above q = 1 the limit is 0, but PyTorch 1.13 gives NaN (inf * 0 in its tail) and so does Tocha
  s = torch.where(xinf, torch.where(torch.eq(q, 1), 1, 0 / 0), s)
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
