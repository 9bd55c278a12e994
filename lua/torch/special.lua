-- torch.special: PyTorch 1.13's special-function namespace in camelCase. Functions Tocha already
-- has are the same function objects (torch.special.gammaln == torch.lgamma); the new ones are
-- composed of differentiable tensor ops (Note [Special functions from tensor ops]); the normal
-- distribution's functions live in special_normal.lua, the incomplete gamma functions and zeta
-- in special_gamma.lua, the Bessel and Airy functions in special_bessel.lua (the modified and
-- second-kind ones in special_bessel_more.lua), the orthogonal polynomials in
-- special_polynomials.lua.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, fail = lib.C, lib.wrap, lib.fail
local is_tensor, describe = types.is_tensor, types.describe

-- Note [Special functions from tensor ops]: the functions new here (erfcx, ndtr, logNdtr,
-- ndtri, entr, xlog1py, multigammaln, gammainc, zeta, Bessel) are written with tensor ops, so
-- they run on every device and autograd differentiates them; each branch of a piecewise formula
-- gets inputs clamped into its own region before torch.where picks, so the branch not taken
-- never produces an inf or NaN that would poison the gradient. Where precision needs it they
-- compute in double and return the input's floating dtype (integer inputs give the default
-- floating type, as PyTorch).
local special = torch.special or {}
torch.special = special

local F32, F64, F16, BF16 = lib.dtype.f32, lib.dtype.f64, lib.dtype.f16, lib.dtype.bf16
local function is_float_dtype(dt) return dt == F32 or dt == F64 or dt == F16 or dt == BF16 end

local function to_dtype(t, dt)
  if t.p.dtype == dt then return t end
  return (wrap(C.tocha_tensor_to_dtype(t.p, dt)))
end

-- x checked to be a tensor; returns x in double and the dtype the result should have.
local function in_double(op, x, what)
  if not is_tensor(x) then fail(op, 'expected %s (a tensor), got %s', what or 'x', describe(x)) end
  local dt = x.p.dtype
  local out_dt = is_float_dtype(dt) and dt or torch._default_dtype()
  return to_dtype(x, F64), out_dt
end
special._in_double, special._to_dtype, special._is_float_dtype = in_double, to_dtype, is_float_dtype

-- ---- PyTorch's torch.special functions that Tocha has under torch.* ----------------------------
special.digamma, special.psi = torch.digamma, torch.digamma
special.gammaln, special.polygamma = torch.lgamma, torch.polygamma
special.erf, special.erfc, special.erfinv = torch.erf, torch.erfc, torch.erfinv
special.exp2, special.expm1, special.log1p = torch.exp2, torch.expm1, torch.log1p
special.expit, special.logit = torch.sigmoid, torch.logit
special.i0, special.i0e, special.i1, special.i1e = torch.i0, torch.i0e, torch.i1, torch.i1e
special.sinc, special.xlogy = torch.sinc, torch.xlogy
special.softmax, special.logSoftmax = torch.softmax, torch.logSoftmax
-- Note [special.round]: torch.round rounds halves away from zero (Torch7's rule, see the README),
-- where PyTorch rounds them to even; special.round is that same function.
special.round = torch.round

--- torch.special.logsumexp(x [, dim [, keepdim = false]]): log(sum(exp(x))) over dim (a number
--- or a table of 1-based dims), dropping the reduced dims unless keepdim (PyTorch's rule, unlike
--- torch.logsumexp, which keeps them); without dim, over all elements like torch.logsumexp.
--- Example: torch.special.logsumexp(torch.Tensor({{0, 0}, {1, 1}}), 2)
function special.logsumexp(x, dim, keepdim)
  types.check_tensor('special.logsumexp', x, 1)
  if dim == nil then return torch.logsumexp(x) end
  local dims = type(dim) == 'table' and dim or { dim }
  -- PyTorch 1.13 fails on dim = [] too; x came back unreduced
  if #dims == 0 then fail('special.logsumexp', 'dim is an empty table: give the dims to reduce, or none for all') end
  local cd, seen = {}, {}
  for i, d in ipairs(dims) do
    if type(d) ~= 'number' then fail('special.logsumexp', 'dim %d is a %s, expected a number', i, describe(d)) end
    local c = types.cdim('special.logsumexp', d, x.p.ndim) % math.max(x.p.ndim, 1)  -- 0-based, negative dims too
    if seen[c] then fail('special.logsumexp', 'dim %d appears twice', d) end
    seen[c] = true
    cd[#cd + 1] = c + 1
  end
  table.sort(cd, function(a, b) return a > b end)
  local y = x
  for _, d in ipairs(cd) do y = torch.logsumexp(y, d) end
  if not keepdim then
    for _, d in ipairs(cd) do y = y:squeeze(d) end
  end
  return y
end

--- torch.special.entr(x): the elementwise entropy -x log x (0 at 0, -inf below 0, NaN stays).
--- Differentiable: -(1 + log x) for x > 0 (0 at x = 0, where PyTorch's is inf).
--- Example: torch.special.entr(torch.Tensor({0, 0.5, 1}))
function special.entr(x)
  types.check_tensor('special.entr', x, 1)
  if not is_float_dtype(x.p.dtype) then x = to_dtype(x, torch._default_dtype()) end
  local pos = torch.gt(x, 0)
  local xs = torch.where(pos, x, 1)
  local v = -torch.cmul(xs, torch.log(xs))
  local out = torch.where(pos, v, torch.where(torch.eq(x, 0), 0, -math.huge))
  return (torch.where(torch.isnan(x), x, out))
end

-- The floating dtype PyTorch promotes two tensor dtypes to: the wider float, half with bfloat16
-- to float, integers to the default (half with float had given half).
local FLOAT_RANK = { [F16] = 1, [BF16] = 1, [F32] = 2, [F64] = 3 }
local function float_promote(a, b)
  local fa, fb = is_float_dtype(a), is_float_dtype(b)
  if fa and fb then
    if a == b then return a end
    if FLOAT_RANK[a] ~= FLOAT_RANK[b] then return FLOAT_RANK[a] > FLOAT_RANK[b] and a or b end
    return F32
  end
  return fa and a or fb and b or torch._default_dtype()
end
special._float_promote = float_promote

-- Number or tensor arguments of the binary functions as tensors of one floating dtype.
local function binary_args(op, x, y, nx, ny)
  nx, ny = nx or 'x', ny or 'y'
  if not is_tensor(x) and not is_tensor(y) then
    fail(op, 'expected %s or %s to be a tensor, got %s and %s', nx, ny, describe(x), describe(y))
  end
  -- both checked (ipairs({x, y}) stopped at a nil y, which then failed inside fullLike)
  if not is_tensor(x) and type(x) ~= 'number' then fail(op, '%s must be a tensor or a number, got %s', nx, describe(x)) end
  if not is_tensor(y) and type(y) ~= 'number' then fail(op, '%s must be a tensor or a number, got %s', ny, describe(y)) end
  local ref = is_tensor(x) and x or y
  local dt = ref.p.dtype
  if is_tensor(x) and is_tensor(y) then dt = float_promote(x.p.dtype, y.p.dtype) end
  if not is_float_dtype(dt) then dt = torch._default_dtype() end
  if is_tensor(x) and is_tensor(y) and not x:isSameSizeAs(y)
      and not pcall(torch.broadcastTensors, x:detach(), y:detach()) then  -- the error named logicalAnd
    fail(op, '%s (%s) and %s (%s) do not broadcast', nx, describe(x), ny, describe(y))
  end
  local function conv(v)
    if is_tensor(v) then return to_dtype(v, dt) end
    -- filled in the result dtype: in an integer tensor's the number was truncated
    -- (xlog1py(LongTensor{2}, 2.5) read 2.5 as 2) and a NaN refused
    return (torch._filledLike(to_dtype(ref, dt), v))
  end
  return conv(x), conv(y), dt
end
special._binary_args = binary_args

--- torch.special.xlog1py(x, y): x * log1p(y), 0 where x is 0 unless y is NaN (PyTorch's
--- xlog1py); x or y may be a number; broadcasts. Differentiable in both (in x, log1p(y) at x = 0
--- too, 0 where also y <= -1, as PyTorch).
--- Example: torch.special.xlog1py(torch.Tensor({0, 2}), torch.Tensor({-1, 3}))
function special.xlog1py(x, y)
  x, y = binary_args('special.xlog1py', x, y)
  local zero = torch.logicalAnd(torch.eq(x, 0), torch.logicalNot(torch.isnan(y)))
  -- at x = 0 the value 0 is x * log1p(y) with y kept where log1p is finite, so that the
  -- gradient in x is log1p(y) there too (0 where y <= -1), PyTorch 1.13's (a constant 0 gave 0)
  -- (one product, not a torch.where of two: the branch not taken got 0 * -inf = NaN gradients)
  local ys = torch.where(torch.logicalAnd(torch.gt(y, -1), torch.lt(y, math.huge)), y, 0)
  return (torch.cmul(x, torch.log1p(torch.where(zero, ys, y))))
end

--- torch.special.multigammaln(a, p): the log of the multivariate gamma function of dimension p
--- (an integer >= 1): p (p - 1) / 4 log(pi) + sum_j lgamma(a - (j - 1) / 2); every element of
--- a must exceed (p - 1) / 2, as in PyTorch. Differentiable in a.
--- Example: torch.special.multigammaln(torch.Tensor({2.5, 3}), 2)
function special.multigammaln(a, p)
  local op = 'special.multigammaln'
  types.check_tensor(op, a, 1)
  if type(p) ~= 'number' or p ~= math.floor(p) or p < 1 then
    fail(op, 'p must be an integer >= 1, got %s', type(p) == 'number' and tostring(p) or describe(p))
  end
  -- the sum below has p terms: a dimension past 2^24 would run for hours (an empty a, or values
  -- that pass the check below, used to start a loop of 2^62 steps)
  if p > 2 ^ 24 then fail(op, 'p must be at most 2^24 = 16777216, got %s', tostring(p)) end
  if not is_float_dtype(a.p.dtype) then a = to_dtype(a, torch._default_dtype()) end
  if a:nElement() == 0 then return a:clone() end
  do
    local lo = torch.noGrad(function() return a:min() end)
    if not (lo > (p - 1) / 2) then
      fail(op, 'all elements of a must be greater than (p - 1) / 2 = %g, got %g', (p - 1) / 2, lo)
    end
  end
  local out = torch.lgamma(a)
  for j = 1, p - 1 do out = out + torch.lgamma(a - j / 2) end
  return out + p * (p - 1) / 4 * math.log(math.pi)
end

require 'torch.special_normal'
require 'torch.special_gamma'
require 'torch.special_bessel'
require 'torch.special_bessel_more'
require 'torch.special_polynomials'
return special
