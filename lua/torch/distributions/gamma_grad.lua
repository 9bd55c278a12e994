-- Differentiable standard gamma draws for torch.distributions: standardGammaGrad(alpha, x), the
-- derivative dx/dalpha of a Gamma(alpha, 1) draw x (Note [Gamma sample gradient]), and
-- standardGamma(alpha), the draws as an autograd Function whose backward uses it.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local D = torch.distributions

-- Note [Gamma sample gradient]: a draw x = F^-1(u; alpha) of Gamma(alpha, 1) moves with alpha at
-- fixed u, so dx/dalpha = -(dP/dalpha)(alpha, x) / f(x; alpha) = (dQ/dalpha) / f, with P = 1 - Q
-- the regularized incomplete gamma function and f = x^(alpha-1) e^-x / Gamma(alpha) the density
-- (implicit reparameterization, as PyTorch's _standard_gamma_grad). Three regions, chosen per
-- element with masks, all in double, each free of cancellation where it is used:
-- * alpha <= 10, x < alpha + 1: P = x^a e^-x / Gamma(a + 1) * S, S = sum_n t_n, t_n =
--   x^n / ((a+1)...(a+n)) (positive terms). Differentiating log P, with S' = -sum_n t_n H_n,
--   H_n = sum_{k<=n} 1 / (a + k):  dx/da = -(x / a) (S (log x - digamma(a + 1)) + S').
--   Both terms are negative below x ~ a + 1/2; from there to a + 1 the cancellation is mild.
-- * alpha <= 10, x >= alpha + 1: Q = x^a e^-x / (Gamma(a) G), G the continued fraction
--   b0 + a1 / (b1 + a2 / (b2 + ...)), b_n = x + 1 - a + 2n, a_n = n (a - n), evaluated by the
--   forward recurrence of its convergents A_n / B_n together with their derivatives in a
--   (d b_n = -1, d a_n = n), rescaled by 1 / B_n each step:
--   dx/da = x (log x - digamma(a) - G' / G) / G, both terms positive.
--   50 terms reach ~1e-11 everywhere in these two regions (the slowest: x near a + 1).
-- * alpha > 10: Temme's uniform expansion (DLMF 8.12.3-4) Q = erfc(eta sqrt(a / 2)) / 2 + R,
--   R ~ exp(-a eta^2 / 2) / sqrt(2 pi a) sum_k c_k(eta) a^-k, lambda = x / a, mu = lambda - 1,
--   eta^2 / 2 = mu - log(1 + mu), sign(eta) = sign(mu). At fixed x, d eta / da = -mu / (a eta),
--   and f = sqrt(a / 2 pi) exp(-a eta^2 / 2) / (x Gamma*(a)), Gamma*(a) = Gamma(a) e^a a^(1/2-a)
--   / sqrt(2 pi) = 1 + 1/(12a) + ... (Stirling). Differentiating term by term and dividing by f:
--     dx/da = lambda Gamma*(a) [mu / eta - eta / 2 + (log lambda - 1/(2a)) sum_k c_k a^-k
--             - sum_k ((mu / eta) c_k'(eta) + k c_k) a^(-k-1)].
--   Temme's recursion c_k = c_{k-1}'(eta) / eta + (-1)^k g_k / mu (g_k the Stirling
--   coefficients of Gamma*, c_0 = 1 / mu - 1 / eta) turns (mu / eta) c_k' into
--   mu c_{k+1} + (-1)^k g_{k+1}, so only c_0..c_5 are needed (k <= 4: relative error 2e-8 at
--   a = 10, 5e-12 at a = 50, against mpmath). c_k is evaluated from its closed form, a
--   polynomial in 1 / eta and 1 / mu from the recursion, where |eta| >= 1, and from its Taylor
--   series in eta (computed below from the series reversion of eta(mu)) where |eta| < 1, where
--   the closed form cancels; eta / mu comes from its series in mu where |mu| < 0.1.
-- Each element is gathered into the one branch it needs (so the 50-term loops run only on
-- alpha <= 10). Float inputs are computed in double and the result cast back. x = 0 (an
-- underflowed draw) gives 0, the limit; alpha <= 0 or x < 0 give NaN.

local ITERS = 50           -- series and continued-fraction terms (alpha <= ASYM)
local ASYM = 10            -- alpha above which the asymptotic expansion is used
local K = 4                -- expansion terms c_0..c_K (and c_{K+1} for the derivative)
local NT = 30              -- Taylor terms of c_k in eta (|eta| < 1; radius of convergence 2 sqrt(pi))
local NH = 20              -- Taylor terms of eta / mu in mu (|mu| < 0.1; radius 1)
-- Stirling coefficients of Gamma*(a) = sum_k g_k a^-k.
local G = { 1, 1 / 12, 1 / 288, -139 / 51840, -571 / 2488320, 163879 / 209018880, 5246819 / 75246796800 }

-- ---- load-time power series (arrays, index 1 the constant term, n terms) ---------------------
local function mul(a, b, n)
  local r = {}
  for k = 1, n do
    local s = 0
    for i = 1, k do s = s + (a[i] or 0) * (b[k - i + 1] or 0) end
    r[k] = s
  end
  return r
end
local function inv(a, n)
  local r = { 1 / a[1] }
  for k = 2, n do
    local s = 0
    for i = 2, k do s = s + a[i] * r[k - i + 1] end
    r[k] = -s / a[1]
  end
  return r
end
local function sqrt_series(a, n)
  local r = { math.sqrt(a[1]) }
  for k = 2, n do
    local s = 0
    for i = 2, k - 1 do s = s + r[i] * r[k - i + 1] end
    r[k] = (a[k] - s) / (2 * r[1])
  end
  return r
end
local function compose(f, g, n)  -- f(g), g[1] = 0
  local r = {}
  for k = 1, n do r[k] = 0 end
  for i = n, 1, -1 do
    r = mul(r, g, n)
    r[1] = r[1] + f[i]
  end
  return r
end

-- The series of Temme's expansion (H: eta / mu in mu; C[k]: c_k's Taylor coefficients in eta;
-- closed[k]: c_k in closed form), computed on the first asymptotic evaluation rather than at
-- load: the reversion below is ~5 ms of plain Lua, which every `require 'torch'` paid.
local temme_cache
local function temme()
  if temme_cache then return temme_cache[1], temme_cache[2], temme_cache[3] end
  local M = NT + 2 * K + 4
  -- eta / mu = h(mu) = sqrt(2 (mu - log(1 + mu)) / mu^2) = sqrt(2 sum_n (-1)^n mu^n / (n + 2)).
  local arg = {}
  for i = 1, M do arg[i] = 2 * (-1) ^ (i - 1) / (i + 1) end
  local H = sqrt_series(arg, M)
  -- Reversion: mu / eta = 1 / h(mu) with mu = eta * (mu / eta), iterated to a fixed point (each
  -- pass fixes one more coefficient); then W = eta / mu as a series in eta.
  local ginv, eta = { 1 }, { 0, 1 }
  for i = 2, M do ginv[i], eta[i + 1] = 0, 0 end
  for _ = 1, M do ginv = inv(compose(H, mul(eta, ginv, M), M), M) end
  local W = inv(ginv, M)
  -- Taylor coefficients of c_k: c_0 = (W - 1) / eta, and c_k[n] = (n + 2) c_{k-1}[n + 2] +
  -- (-1)^k g_k W[n + 1] (0-based n): the 1/eta poles of the two parts of the recursion cancel.
  local C = { {} }
  for n = 1, M - 1 do C[1][n] = W[n + 1] end
  for k = 1, K + 1 do
    local p, c = C[k], {}
    for n = 1, #p - 2 do c[n] = (n + 1) * p[n + 2] + (-1) ^ k * G[k + 1] * W[n + 1] end
    C[k + 1] = c
  end
  -- Closed forms: c_k as { {i, j, coef}, ... } meaning sum coef / (eta^i mu^j). With u = 1/eta,
  -- v = 1/mu: du/deta = -u^2, dv/deta = -v^2 (v + 1) / u, so (1/eta) d/deta (u^i v^j) =
  -- -i u^(i+2) v^j - j u^i v^(j+2) - j u^i v^(j+1).
  local closed = { { [ '0,1' ] = 1, [ '1,0' ] = -1 } }
  for k = 1, K + 1 do
    local d = {}
    local function add(i, j, c) local key = i .. ',' .. j d[key] = (d[key] or 0) + c end
    for key, c in pairs(closed[k]) do
      local i, j = key:match('(%d+),(%d+)')
      i, j = tonumber(i), tonumber(j)
      if i > 0 then add(i + 2, j, -i * c) end
      if j > 0 then add(i, j + 2, -j * c) add(i, j + 1, -j * c) end
    end
    add(0, 1, (-1) ^ k * G[k + 1])
    closed[k + 1] = d
  end
  for k = 1, K + 2 do
    local list = {}
    for key, c in pairs(closed[k]) do
      local i, j = key:match('(%d+),(%d+)')
      list[#list + 1] = { tonumber(i), tonumber(j), c }
    end
    table.sort(list, function(p, q) return p[1] * 100 + p[2] < q[1] * 100 + q[2] end)
    closed[k] = list
  end
  temme_cache = { H, C, closed }
  return H, C, closed
end

-- ---- tensor evaluation (double tensors) --------------------------------------------------------
local function horner(coefs, n, t)
  local r = torch.zerosLike(t) + coefs[n]
  for i = n - 1, 1, -1 do r = torch.cmul(r, t) + coefs[i] end
  return r
end

-- x < a + 1 (a <= ASYM): the positive series.
local function lower_series(a, x)
  local t, s, h, sp = torch.onesLike(x), torch.onesLike(x), torch.zerosLike(x), torch.zerosLike(x)
  for n = 1, ITERS do
    local an = a + n
    t = torch.cmul(t, x / an)
    h = h + 1 / an
    s = s + t
    sp = sp - torch.cmul(t, h)
  end
  return -torch.cmul(x / a, torch.cmul(s, torch.log(x) - torch.digamma(a + 1)) + sp)
end

-- x >= a + 1 (a <= ASYM): the continued fraction and its derivative.
local function upper_fraction(a, x)
  local one = torch.onesLike(x)
  local am2, bm2, dam2, dbm2 = one, torch.zerosLike(x), torch.zerosLike(x), torch.zerosLike(x)
  local am1, bm1, dam1, dbm1 = x + 1 - a, one, -one, torch.zerosLike(x)
  for n = 1, ITERS do
    local an, bn = (a - n) * n, x - a + (1 + 2 * n)
    local A = torch.cmul(bn, am1) + torch.cmul(an, am2)
    local r = 1 / (torch.cmul(bn, bm1) + torch.cmul(an, bm2))
    local dA = torch.cmul(bn, dam1) + torch.cmul(an, dam2) + am2 * n - am1
    local dB = torch.cmul(bn, dbm1) + torch.cmul(an, dbm2) + bm2 * n - bm1
    am2, bm2, dam2, dbm2 = torch.cmul(am1, r), torch.cmul(bm1, r), torch.cmul(dam1, r), torch.cmul(dbm1, r)
    am1, bm1, dam1, dbm1 = torch.cmul(A, r), one, torch.cmul(dA, r), torch.cmul(dB, r)
  end
  local g, dg = am1, dam1 - torch.cmul(am1, dbm1)
  local psi = torch.digamma(a + 1) - 1 / a
  return torch.cmul(x, torch.log(x) - psi - dg / g) / g
end

-- a > ASYM: the derivative of Temme's expansion.
local function asymptotic(a, x)
  local H, C, closed = temme()
  local lam = x / a
  local mu = lam - 1
  local near = torch.lt(torch.abs(mu), 0.1)
  local mu_far = torch.where(near, 1, mu)
  -- log(x) - log(a) rather than log1p(mu): mu rounds to -1 for x ~ 1e-300.
  local loglam = torch.where(near, torch.log1p(mu), torch.log(x) - torch.log(a))
  local h = torch.where(near, horner(H, NH, torch.clamp(mu, -0.1, 0.1)),
    torch.sqrt((mu_far - loglam) * 2) / torch.abs(mu_far))
  local e = torch.cmul(mu, h)
  local taylor = torch.lt(torch.abs(e), 1)
  local et = torch.clamp(e, -1, 1)
  local u, v = 1 / torch.where(taylor, 1, e), 1 / torch.where(taylor, 1, mu)
  local c = {}
  for k = 1, K + 2 do
    local cf = torch.zerosLike(x)
    if not torch.all(taylor) then
      for _, m in ipairs(closed[k]) do
        cf = cf + torch.cmul(torch.pow(u, m[1]), torch.pow(v, m[2])) * m[3]
      end
    end
    c[k] = torch.where(taylor, horner(C[k], NT, et), cf)
  end
  local ia = 1 / a
  local gstar = horner(G, #G - 1, ia)
  local s, t, p = torch.zerosLike(x), torch.zerosLike(x), torch.onesLike(x)
  for k = 0, K do
    s = s + torch.cmul(c[k + 1], p)
    p = torch.cmul(p, ia)
    t = t + torch.cmul(torch.cmul(mu, c[k + 2]) + c[k + 1] * k + (-1) ^ k * G[k + 2], p)
  end
  local bracket = 1 / h - e * 0.5 + torch.cmul(loglam - ia * 0.5, s) - t
  return torch.cmul(torch.cmul(lam, gstar), bracket)
end

--- torch.distributions.standardGammaGrad(alpha, x): d x / d alpha for a draw x of Gamma(alpha, 1)
--- held at its quantile (implicit reparameterization, PyTorch's _standard_gamma_grad), relative
--- error ~1e-8 in double (Note [Gamma sample gradient]). alpha and x: numbers or tensors,
--- broadcast; alpha > 0, x >= 0 (NaN elsewhere). Computed in double, returned in their type.
--- Example: torch.distributions.standardGammaGrad(torch.Tensor({0.5, 2}), torch.Tensor({0.3, 1.5}))
function D.standardGammaGrad(alpha, x)
  local op = 'distributions.standardGammaGrad'
  local t = util.broadcast_all(op, { 'alpha', 'x' }, { alpha, x })
  local tname = util.cpu_type(t[1])
  return torch.noGrad(function()
    local a, xd = t[1]:to('torch.DoubleTensor'):contiguous(), t[2]:to('torch.DoubleTensor'):contiguous()
    local shape = a:size()
    a, xd = a:view(a:nElement()), xd:view(xd:nElement())
    local valid = torch.logicalAnd(torch.gt(a, 0), torch.ge(xd, 0))
    local zero = torch.eq(xd, 0)  -- an underflowed draw: dx/dalpha -> 0 as x -> 0
    a = torch.where(valid, a, 1)
    xd = torch.clampMin(torch.where(valid, xd, 1), 2.2250738585072014e-308)
    local big = torch.gt(a, ASYM)
    local upper = torch.ge(xd, a + 1)
    local out = torch.zerosLike(a)
    -- Each branch runs on its own elements only (gathered, computed, scattered back).
    local function on(mask, branch)
      local idx = torch.nonzero(mask)
      if idx:nElement() == 0 then return end
      idx = idx:view(idx:nElement())
      out:indexCopy(1, idx, branch(a:index(1, idx), xd:index(1, idx)))
    end
    on(big, asymptotic)
    local small = torch.logicalNot(big)
    on(torch.logicalAnd(small, upper), upper_fraction)
    on(torch.logicalAnd(small, torch.logicalNot(upper)), lower_series)
    out = torch.where(zero, 0, out)
    return torch.where(valid, out, 0 / 0):view(shape):to(tname)
  end)
end

-- The draws as an autograd op: forward samples (no recording), backward is grad * dx/dalpha.
local StandardGamma = torch.autograd.Function('StandardGamma')
function StandardGamma.forward(ctx, alpha)
  local x = util.standard_gamma(alpha)
  ctx:saveForBackward(alpha, x)
  return x
end
function StandardGamma.backward(ctx, grad)
  if torch.isGradEnabled() then
    util.fail('distributions.standardGamma', 'second derivatives of gamma draws are not implemented (createGraph=true)')
  end
  local alpha, x = ctx:savedTensors()
  return torch.cmul(grad, D.standardGammaGrad(alpha:detach(), x))
end

--- torch.distributions.standardGamma(alpha): one Gamma(alpha, 1) draw per element of alpha (a
--- positive floating tensor), differentiable in alpha: the gradient is the implicit
--- reparameterization dx/dalpha of standardGammaGrad (Note [Gamma sample gradient]).
--- Example: torch.distributions.standardGamma(torch.Tensor({0.5, 2, 8}):requiresGrad())
function D.standardGamma(alpha)
  local op = 'distributions.standardGamma'
  if not util.is_tensor(alpha) or not util.is_float(alpha) then
    util.fail(op, 'alpha must be a floating tensor, got %s', util.describe(alpha))
  end
  return StandardGamma.apply(alpha:contiguous())
end

return D
