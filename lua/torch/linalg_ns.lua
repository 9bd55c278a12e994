-- torch.linalg: PyTorch's linear-algebra namespace with camelCase names (solve, inv, cholesky, qr,
-- eigh, svd, norms, pinv, matrixExp, lstsq...). Matrices may come in batches (..., m, n); Float
-- and Double tensors; results are new tensors. The work is in C++ (core/ops/linalg_decomp.cpp and
-- linalg_extra.cpp), one LAPACK call per matrix of a batch (Note [Batched linalg]).
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, describe, cdim, check_tensor = types.is_tensor, types.describe, types.cdim, types.check_tensor

local linalg = torch.linalg or {}
torch.linalg = linalg
local slots = ffi.new('tocha_tensor*[4]')
local dims_buf = ffi.new('int64_t[16]')

-- Options given as a table ({upper=true}) or positionally: returns the table, or {[key]=v}.
local function opts(op, v, key, allowed)
  if type(v) == 'table' and getmetatable(v) == nil then
    for k in pairs(v) do
      local ok = false
      for _, a in ipairs(allowed) do ok = ok or a == k end
      if not ok then fail(op, "unknown option '%s' (expected %s)", tostring(k), table.concat(allowed, ', ')) end
    end
    return v
  end
  return { [key] = v }
end
local function flag(op, name, v, default)
  if v == nil then return default end
  if type(v) ~= 'boolean' then fail(op, '%s must be a boolean, got %s', name, describe(v)) end
  return v
end
local function number(op, name, v, default)
  if v == nil then return default end
  if type(v) ~= 'number' then fail(op, '%s must be a number, got %s', name, describe(v)) end
  return v
end
local function integer(op, name, v)
  if type(v) ~= 'number' or v ~= math.floor(v) or math.abs(v) >= 2 ^ 53 then
    fail(op, '%s must be an integer, got %s', name, type(v) == 'number' and tostring(v) or describe(v))
  end
  return v
end
-- The argument checks other modules share (lua/torch/linalg_more.lua, lua/nn/init_more.lua).
torch._arg_checks = { flag = flag, number = number, integer = integer }
local function uplo(op, v)
  if v == nil or v == 'L' then return 0 end
  if v == 'U' then return 1 end
  fail(op, "UPLO must be 'L' or 'U', got %s", type(v) == 'string' and ("'" .. v .. "'") or describe(v))
end
-- f(...)'s results (at most two); an error naming `pattern` (the function f is) names op instead.
local function named(op, pattern, f, ...)
  local ok, r1, r2 = pcall(f, ...)
  if not ok then error((tostring(r1):gsub(pattern, '[' .. op .. ']', 1)), 0) end
  return r1, r2
end
local function tensors(op, ...)
  for i = 1, select('#', ...) do check_tensor(op, (select(i, ...)), i) end
end
-- A matrix-norm ord: kind code and number.
local function matrix_ord(op, ord)
  if ord == nil or ord == 'fro' then return string.byte('f'), 2 end
  if ord == 'nuc' then return string.byte('n'), 0 end
  if ord == 1 or ord == -1 or ord == 2 or ord == -2 or ord == math.huge or ord == -math.huge then
    return string.byte('o'), ord
  end
  fail(op, "ord must be 'fro', 'nuc', inf, -inf, 1, -1, 2 or -2, got %s", type(ord) == 'string' and ("'" .. ord .. "'") or tostring(ord))
end

--- torch.linalg.solve(A, B): X with A X = B for square non-singular A (..., n, n); B is (..., n, k),
--- or a batch of vectors (..., n) when B is 1D or A's size without its last dim (PyTorch's rule);
--- batch dims broadcast.
--- Differentiable in A and B.
--- Example: torch.linalg.solve(torch.eye(2) * 2, torch.ones(2))
function linalg.solve(A, B)
  tensors('linalg.solve', A, B)
  return (wrap(C.tocha_linalg_solve(A.p, B.p)))
end

--- torch.linalg.inv(A): A^-1 of each square matrix of A (..., n, n); an error naming the op for
--- a singular one. Differentiable.
--- Example: torch.linalg.inv(torch.eye(2) * 2)
function linalg.inv(A)
  tensors('linalg.inv', A)
  return (wrap(C.tocha_linalg_inv(A.p)))
end

--- torch.linalg.det(A), torch.linalg.slogdet(A): torch.det and torch.slogdet (a matrix gives Lua
--- numbers, a batch tensors).
--- Example: torch.linalg.det(torch.eye(3))
function linalg.det(A, ...) return named('linalg.det', '%[det%]', torch.det, A, ...) end
--- torch.linalg.slogdet(A): sign and log|det A| (torch.slogdet).
--- Example: torch.linalg.slogdet(torch.eye(3))
function linalg.slogdet(A, ...) return named('linalg.slogdet', '%[slogdet%]', torch.slogdet, A, ...) end

--- torch.linalg.cholesky(A [, upper | {upper=false}]): the lower Cholesky factor L (A = L L^T) of
--- each symmetric positive-definite matrix, or U = L^T with upper. Reads only one triangle of A;
--- its gradient is symmetrized (PyTorch's).
--- Example: torch.linalg.cholesky(torch.eye(2) * 4)
function linalg.cholesky(A, o)
  tensors('linalg.cholesky', A)
  o = opts('linalg.cholesky', o, 'upper', { 'upper' })
  return (wrap(C.tocha_linalg_cholesky(A.p, flag('linalg.cholesky', 'upper', o.upper, false) and 1 or 0)))
end

--- torch.linalg.qr(A [, mode]): Q, R with A = Q R; mode 'reduced' (default: Q m x k, R k x n,
--- k = min(m, n)), 'complete' (Q m x m, R m x n) or 'r' (R only; Q is empty). Batched,
--- differentiable (not for 'complete' with m > n).
--- Example: torch.linalg.qr(torch.eye(3))
function linalg.qr(A, mode)
  tensors('linalg.qr', A)
  if type(mode) == 'table' and getmetatable(mode) == nil then mode = opts('linalg.qr', mode, 'mode', { 'mode' }).mode end
  if mode ~= nil and type(mode) ~= 'string' then fail('linalg.qr', "mode must be a string, got %s", describe(mode)) end
  check(C.tocha_linalg_qr(A.p, mode or 'reduced', slots, slots + 1))
  local q, r = slots[0], slots[1]
  return wrap(q), wrap(r)
end

--- torch.linalg.eigh(A [, UPLO]): eigenvalues (ascending) and eigenvectors (columns) of each
--- symmetric matrix, read from its lower ('L', default) or upper ('U') triangle. Differentiable
--- in both (eigenvalues must be distinct for the vectors).
--- Example: torch.linalg.eigh(torch.eye(2))
function linalg.eigh(A, UPLO)
  tensors('linalg.eigh', A)
  if type(UPLO) == 'table' and getmetatable(UPLO) == nil then UPLO = opts('linalg.eigh', UPLO, 'UPLO', { 'UPLO' }).UPLO end
  check(C.tocha_linalg_eigh(A.p, uplo('linalg.eigh', UPLO), slots, slots + 1))
  local w, v = slots[0], slots[1]
  return wrap(w), wrap(v)
end

--- torch.linalg.eigvalsh(A [, UPLO]): the eigenvalues of torch.linalg.eigh.
--- Example: torch.linalg.eigvalsh(torch.eye(2))
function linalg.eigvalsh(A, UPLO)
  local w = linalg.eigh(A, UPLO)
  return w
end

--- torch.linalg.svd(A [, fullMatrices | {fullMatrices=true}]): U, S, Vh with A = U diag(S) Vh,
--- S descending. PyTorch's default is full matrices (U m x m, Vh n x n); false gives the reduced
--- ones (k = min(m, n)). Differentiable (singular values distinct; with full matrices, only the
--- first k columns carry gradient).
--- Example: torch.linalg.svd(torch.eye(2), false)
function linalg.svd(A, o)
  tensors('linalg.svd', A)
  o = opts('linalg.svd', o, 'fullMatrices', { 'fullMatrices' })
  local full = flag('linalg.svd', 'fullMatrices', o.fullMatrices, true)
  check(C.tocha_linalg_svd(A.p, full and 1 or 0, slots, slots + 1, slots + 2))
  local u, s, vh = slots[0], slots[1], slots[2]
  return wrap(u), wrap(s), wrap(vh)
end

--- torch.linalg.svdvals(A): the singular values (descending) of each matrix; differentiable.
--- Example: torch.linalg.svdvals(torch.eye(2) * 3)
function linalg.svdvals(A)
  tensors('linalg.svdvals', A)
  if C.tocha_linalg_svd(A.p, 0, slots, slots + 1, slots + 2) ~= 0 then  -- the C op names linalg.svd
    local msg = require('ffi').string(C.tocha_last_error())
    fail('linalg.svdvals', '%s', (msg:gsub('^%[linalg%.svd%] ', '')))
  end
  local u, s, vh = slots[0], slots[1], slots[2]
  wrap(u)
  wrap(vh)
  return wrap(s)
end

-- dims (nil, a number or a table of 1-based dims) into dims_buf; returns the count.
local function read_dims(op, dim, x)
  if dim == nil then return 0 end
  local list = type(dim) == 'table' and getmetatable(dim) == nil and dim or { dim }
  if #list > 16 then fail(op, 'at most 16 dims, got %d', #list) end
  local n, seen = math.max(1, x.p.ndim), {}
  for i, d in ipairs(list) do
    dims_buf[i - 1] = cdim(op, integer(op, 'dim', d), n)
    -- checked here, in the caller's 1-based terms (the C check reports 0-based dims)
    local pos = d > 0 and d or d + n + 1
    if seen[pos] then fail(op, 'dim %d appears twice in dim (as %d and %d)', pos, seen[pos], d) end
    seen[pos] = d
  end
  return #list
end

--- torch.linalg.vectorNorm(x [, ord=2] [, dim] [, keepdim]) or (x, {ord=, dim=, keepdim=}): the
--- ord-norm over dim (a number or table of 1-based dims; all elements by default): inf max|x|,
--- -inf min|x|, 0 the non-zero count, else (sum |x|^ord)^(1/ord). A tensor (0-dim for all
--- elements).
--- Example: torch.linalg.vectorNorm(torch.Tensor({3, 4}))
function linalg.vectorNorm(x, ord, dim, keepdim)
  local op = 'linalg.vectorNorm'
  tensors(op, x)
  if type(ord) == 'table' and getmetatable(ord) == nil then
    ord, dim, keepdim = opts(op, ord, 'ord', { 'ord', 'dim', 'keepdim' }).ord, ord.dim, ord.keepdim
  end
  ord = number(op, 'ord', ord, 2)
  local n = read_dims(op, dim, x)
  return (wrap(C.tocha_linalg_vector_norm(x.p, ord, n, dims_buf, flag(op, 'keepdim', keepdim, false) and 1 or 0)))
end

--- torch.linalg.matrixNorm(A [, ord='fro'] [, dim={-2, -1}] [, keepdim]) or (A, {ord=, dim=,
--- keepdim=}): 'fro', 'nuc' (sum of singular values), 2 / -2 (largest / smallest singular value),
--- 1 / -1 (max / min column abs-sum), inf / -inf (max / min row abs-sum), over the two dims.
--- Example: torch.linalg.matrixNorm(torch.eye(3), 'nuc')
function linalg.matrixNorm(A, ord, dim, keepdim)
  local op = 'linalg.matrixNorm'
  tensors(op, A)
  if type(ord) == 'table' and getmetatable(ord) == nil then
    ord, dim, keepdim = opts(op, ord, 'ord', { 'ord', 'dim', 'keepdim' }).ord, ord.dim, ord.keepdim
  end
  local kind, o = matrix_ord(op, ord)
  dim = dim or { -2, -1 }
  if type(dim) ~= 'table' or #dim ~= 2 then fail(op, 'dim must be a table of two dims, got %s', describe(dim)) end
  if A.p.ndim < 2 then fail(op, 'expected a matrix or a batch of them, got a %dD tensor', A.p.ndim) end
  local d0, d1 = cdim(op, integer(op, 'dim', dim[1]), A.p.ndim), cdim(op, integer(op, 'dim', dim[2]), A.p.ndim)
  if (d0 < 0 and d0 + A.p.ndim or d0) == (d1 < 0 and d1 + A.p.ndim or d1) then
    fail(op, 'the two dims must differ, got %d and %d', dim[1], dim[2])
  end
  return (wrap(C.tocha_linalg_matrix_norm(A.p, kind, o, d0, d1, flag(op, 'keepdim', keepdim, false) and 1 or 0)))
end

--- torch.linalg.norm(A [, ord] [, dim] [, keepdim]) or (A, {ord=, dim=, keepdim=}): a matrix norm
--- when ord is a string, dim has two dims, or A is 2D with an ord and no dim; otherwise a vector
--- norm (of all elements when dim and ord are absent). PyTorch's rules.
--- Example: torch.linalg.norm(torch.Tensor({{1, 2}, {3, 4}}))
function linalg.norm(A, ord, dim, keepdim)
  local op = 'linalg.norm'
  tensors(op, A)
  if type(ord) == 'table' and getmetatable(ord) == nil then
    ord, dim, keepdim = opts(op, ord, 'ord', { 'ord', 'dim', 'keepdim' }).ord, ord.dim, ord.keepdim
  end
  local two = type(dim) == 'table' and #dim == 2
  if type(ord) == 'string' or two or (dim == nil and ord ~= nil and A.p.ndim == 2) then
    if not two and dim ~= nil then fail(op, 'a matrix norm needs two dims, got %s', describe(dim)) end
    return (named(op, '%[linalg%.%a+%]', linalg.matrixNorm, A, ord or 'fro', dim, keepdim))
  end
  if dim == nil and ord ~= nil and A.p.ndim ~= 1 then
    fail(op, 'a vector ord needs a 1-D input or dim, got a %dD tensor', A.p.ndim)
  end
  return (named(op, '%[linalg%.%a+%]', linalg.vectorNorm, A, ord or 2, dim, keepdim))
end

-- Note [Rank tolerances]: PyTorch 1.13 counts (or keeps, in pinv) the singular values above
-- max(atol, rtol * the largest); rtol defaults to max(m, n) * eps unless atol > 0 is given, when it
-- is 0 (so atol = 0 keeps the default rtol: it cuts nothing itself). The C kernels take -1 for "not
-- given", so a negative tolerance from the caller is refused here rather than read as the default.
local function tolerances(op, atol, rtol)
  atol, rtol = number(op, 'atol', atol, nil), number(op, 'rtol', rtol, nil)
  if (atol and not (atol >= 0)) or (rtol and not (rtol >= 0)) then
    fail(op, 'atol and rtol must be non-negative, got %s and %s', tostring(atol), tostring(rtol))
  end
  if atol == 0 and rtol == nil then atol = nil end
  return atol or -1, rtol or -1
end

--- torch.linalg.matrixRank(A [, tol | {atol=, rtol=, hermitian=false}]): the number of singular
--- values above max(atol, rtol * the largest) per matrix, a LongTensor (0-dim for one matrix).
--- PyTorch's defaults: rtol max(m, n) * eps when atol is absent or 0, else 0; tol is atol
--- (Note [Rank tolerances]); hermitian reads the lower triangle and uses |eigenvalues|.
--- Example: torch.linalg.matrixRank(torch.ones(3, 3))
function linalg.matrixRank(A, o)
  local op = 'linalg.matrixRank'
  tensors(op, A)
  o = opts(op, o, 'tol', { 'tol', 'atol', 'rtol', 'hermitian' })
  local atol, rtol = tolerances(op, o.atol or o.tol, o.rtol)
  return (wrap(C.tocha_linalg_matrix_rank(A.p, atol, rtol, flag(op, 'hermitian', o.hermitian, false) and 1 or 0)))
end

--- torch.linalg.pinv(A [, rcond | {atol=, rtol=, hermitian=false}]): the Moore-Penrose
--- pseudo-inverse (n x m per matrix) from the SVD (eigh with hermitian, reading the lower
--- triangle), singular values <= max(atol, rtol * the largest) counting as zero; rtol (rcond is its
--- old name) defaults to max(m, n) * eps, or to 0 when atol > 0 is given (Note [Rank tolerances]).
--- Differentiable where the rank is constant.
--- Example: torch.linalg.pinv(torch.Tensor({{1, 2}}))
function linalg.pinv(A, o)
  local op = 'linalg.pinv'
  tensors(op, A)
  o = opts(op, o, 'rcond', { 'rcond', 'hermitian', 'rtol', 'atol' })
  if o.rcond ~= nil and o.rtol ~= nil then fail(op, 'rcond is the old name of rtol: give one of them, got both') end
  local herm = flag(op, 'hermitian', o.hermitian, false) and 1 or 0
  local atol, rtol = tolerances(op, o.atol, o.rtol or o.rcond)
  if atol < 0 or A.p.ndim < 2 or math.min(A:size(A:dim() - 1), A:size(A:dim())) == 0 then
    return (wrap(C.tocha_linalg_pinv(A.p, rtol, herm)))
  end
  -- The kernel takes one relative cut-off: with atol each matrix gets max(atol, rtol * s_max) / s_max
  local m, n = A:size(A:dim() - 1), A:size(A:dim())
  local lead, count = A:size():totable(), 1
  lead[#lead - 1], lead[#lead] = n, m  -- the result is (..., n, m)
  for i = 1, #lead - 2 do count = count * lead[i] end
  if count == 0 then return (wrap(C.tocha_linalg_pinv(A.p, rtol, herm))) end
  local flat = A:reshape(count, m, n)
  local smax = torch.noGrad(function()
    local s = herm == 1 and torch.abs(linalg.eigvalsh(flat:detach())) or linalg.svdvals(flat:detach())
    return torch.max(s, 2):double():view(-1)
  end)
  rtol = math.max(rtol, 0)
  local parts = {}
  for b = 1, count do
    local sm = smax[b]
    parts[b] = wrap(C.tocha_linalg_pinv(flat[b].p, sm > 0 and math.max(atol, rtol * sm) / sm or 0, herm))
  end
  return torch.stack(parts, 1):view(torch.LongStorage(lead))
end

--- torch.linalg.matrixPower(A, n): A^n for an integer n (negative: powers of A^-1; 0: identities)
--- by repeated squaring. Differentiable.
--- Example: torch.linalg.matrixPower(torch.eye(2) * 2, 3)
function linalg.matrixPower(A, n)
  tensors('linalg.matrixPower', A)
  return (wrap(C.tocha_linalg_matrix_power(A.p, integer('linalg.matrixPower', 'n', n))))
end

--- torch.linalg.matrixExp(A): the matrix exponential of each square matrix (scaling and squaring
--- of a Taylor polynomial). Differentiable.
--- Example: torch.linalg.matrixExp(torch.zeros(2, 2))
function linalg.matrixExp(A)
  tensors('linalg.matrixExp', A)
  return (wrap(C.tocha_linalg_matrix_exp(A.p)))
end

-- Note [lstsq drivers]: every driver here computes the minimum-norm solution through the
-- pseudo-inverse (what PyTorch's 'gelsy', 'gelsd' and 'gelss' give; its 'gels' assumes full rank
-- and returns huge values for a rank-deficient A). The driver chooses which extra results are
-- filled, as in PyTorch 1.13: 'gels' no rank and no singular values, 'gelsy' a rank but neither
-- residuals nor singular values, 'gelsd' and 'gelss' all of them. Without a driver all are
-- returned (PyTorch's CPU default is 'gelsy', which would leave out the singular values that
-- callers of this function have been reading).
local lstsq_drivers = { gels = true, gelsy = true, gelsd = true, gelss = true }

--- torch.linalg.lstsq(A, B [, rcond | {rcond=, driver=}]): solution, residuals, rank,
--- singularValues of the least-squares problem min ||A X - B|| (minimum-norm X, through the
--- pseudo-inverse, like PyTorch's 'gelsd' driver). B is (..., m, k), or (..., m) for one dim fewer
--- than A. residuals (squared column norms of A X - B) only when m > n and every matrix has full
--- rank, else empty. rank counts the singular values above rcond * the largest (default, and for
--- a negative rcond as in LAPACK, max(m, n) * eps). driver 'gels', 'gelsy', 'gelsd' or 'gelss'
--- empties the results PyTorch's driver does not compute (Note [lstsq drivers]). The solution is
--- differentiable.
--- Example: torch.linalg.lstsq(torch.Tensor({{1}, {1}}), torch.Tensor({1, 3}))
function linalg.lstsq(A, B, rcond)
  local op = 'linalg.lstsq'
  tensors(op, A, B)
  local driver
  if type(rcond) == 'table' and getmetatable(rcond) == nil then
    local o = opts(op, rcond, 'rcond', { 'rcond', 'driver' })
    rcond, driver = o.rcond, o.driver
  end
  if driver ~= nil and not lstsq_drivers[driver] then
    fail(op, "driver must be 'gels', 'gelsy', 'gelsd' or 'gelss', got %s", type(driver) == 'string' and ("'" .. driver .. "'") or describe(driver))
  end
  check(C.tocha_linalg_lstsq(A.p, B.p, number(op, 'rcond', rcond, -1), slots, slots + 1, slots + 2, slots + 3))
  local x, res, rank, sv = wrap(slots[0]), wrap(slots[1]), wrap(slots[2]), wrap(slots[3])
  local function none(t) return t.new():typeAs(t):resize(0) end
  if driver == 'gels' then rank, sv = none(rank), none(sv) end
  if driver == 'gelsy' then res, sv = none(res), none(sv) end
  return x, res, rank, sv
end

--- torch.linalg.solveTriangular(A, B, {upper=, left=true, unitriangular=false}): X with A X = B
--- (left) or X A = B, reading only A's upper or lower triangle (upper is required, as in
--- PyTorch; unitriangular takes the diagonal as ones). Differentiable.
--- Example: torch.linalg.solveTriangular(torch.Tensor({{2, 1}, {0, 4}}), torch.ones(2, 1), {upper=true})
function linalg.solveTriangular(A, B, o)
  local op = 'linalg.solveTriangular'
  tensors(op, A, B)
  if type(o) ~= 'table' or getmetatable(o) ~= nil or o.upper == nil then
    fail(op, 'expected options {upper=true|false [, left=] [, unitriangular=]}, got %s', describe(o))
  end
  opts(op, o, 'upper', { 'upper', 'left', 'unitriangular' })
  return (wrap(C.tocha_linalg_solve_triangular(A.p, B.p, flag(op, 'upper', o.upper) and 1 or 0,
    flag(op, 'left', o.left, true) and 1 or 0, flag(op, 'unitriangular', o.unitriangular, false) and 1 or 0)))
end

--- torch.linalg.cond(A [, p]): the condition number: p nil or 2 (largest / smallest singular
--- value), -2, or norm(A, p) * norm(A^-1, p) for 'fro', 'nuc', 1, -1, inf, -inf (square A).
--- Example: torch.linalg.cond(torch.Tensor({{1, 0}, {0, 4}}))
function linalg.cond(A, p)
  local op = 'linalg.cond'
  tensors(op, A)
  local kind, o = matrix_ord(op, p == nil and 2 or p)
  return (wrap(C.tocha_linalg_cond(A.p, kind, o)))
end

--- torch.linalg.vander(x [, N]): the Vandermonde matrix of x (..., n): columns x^0, x^1, ...,
--- x^(N-1) (N defaults to n), size (..., n, N). Differentiable.
--- Example: torch.linalg.vander(torch.Tensor({1, 2, 3}))
function linalg.vander(x, N)
  local op = 'linalg.vander'
  tensors(op, x)
  if type(N) == 'table' and getmetatable(N) == nil then N = opts(op, N, 'N', { 'N' }).N end
  if N ~= nil and integer(op, 'N', N) < 1 then fail(op, 'N must be positive, got %d', N) end  -- 0 is the C default
  return (wrap(C.tocha_linalg_vander(x.p, N or 0)))
end

--- torch.linalg.cross(a, b [, dim=-1 | {dim=-1}]): the cross product of 3-vectors along dim
--- (torch.cross with PyTorch's linalg default dim). a and b have one number of dims and their
--- sizes broadcast, as in PyTorch 1.13. Differentiable.
--- Example: torch.linalg.cross(torch.Tensor({1, 0, 0}), torch.Tensor({0, 1, 0}))
function linalg.cross(a, b, dim)
  local op = 'linalg.cross'
  tensors(op, a, b)
  if type(dim) == 'table' and getmetatable(dim) == nil then dim = opts(op, dim, 'dim', { 'dim' }).dim end
  if a:dim() ~= b:dim() then
    fail(op, 'a and b must have the same number of dims, got %s and %s', describe(a), describe(b))
  end
  local shape, differ = {}, false
  for i = 1, a:dim() do
    local sa, sb = a:size(i), b:size(i)
    if sa ~= sb and sa ~= 1 and sb ~= 1 then
      fail(op, 'the sizes of a (%s) and b (%s) do not broadcast (dim %d)', describe(a), describe(b), i)
    end
    shape[i] = sa == 1 and sb or sa
    differ = differ or sa ~= sb
  end
  if differ then  -- torch.cross wants equal sizes
    a, b = a:expand(torch.LongStorage(shape)), b:expand(torch.LongStorage(shape))
  end
  return torch.cross(a, b, dim or -1)
end

--- torch.linalg.multiDot(tensors): the product of a table of matrices, the first may be a vector
--- (a row) and the last a vector (a column), as PyTorch's multi_dot; multiplied left to right.
--- Example: torch.linalg.multiDot({torch.eye(2), torch.ones(2, 3), torch.ones(3)})
function linalg.multiDot(list)
  local op = 'linalg.multiDot'
  if type(list) ~= 'table' or getmetatable(list) ~= nil or #list < 2 then
    fail(op, 'expected a table of at least two tensors, got %s', type(list) == 'table' and ('a table of ' .. #list) or describe(list))
  end
  for i, t in ipairs(list) do
    if not is_tensor(t) then fail(op, 'element %d is %s, expected a tensor', i, describe(t)) end
    local d = t.p.ndim
    local edge = (i == 1 or i == #list)
    if not (d == 2 or (edge and d == 1)) then
      fail(op, 'tensor %d must be 2D%s, got %dD', i, edge and ' (or 1D)' or '', d)
    end
    local p1, p = list[1].p, t.p  -- here, so that the error names multiDot, not its matmul
    if p.dtype ~= p1.dtype or p.device_type ~= p1.device_type or p.device_index ~= p1.device_index then
      fail(op, 'all tensors must have one dtype and device, but tensor 1 is a %s (%s) and tensor %d a %s (%s)',
        types.typename(list[1]), tostring(list[1]:device()), i, types.typename(t), tostring(t:device()))
    end
  end
  local first_vec, last_vec = list[1].p.ndim == 1, list[#list].p.ndim == 1
  local r = first_vec and list[1]:view(1, -1) or list[1]
  for i = 2, #list do
    local t = list[i]
    if i == #list and last_vec then t = t:view(-1, 1) end
    if r:size(2) ~= t:size(1) then
      fail(op, 'tensor %d has %d rows but the product so far has %d columns', i, t:size(1), r:size(2))
    end
    r = torch.matmul(r, t)
  end
  if first_vec and last_vec then return r:view({}) end
  if first_vec then return r:view(-1) end
  if last_vec then return r:view(-1) end
  return r
end

--- torch.linalg.luFactor(A): LU, pivots of P A = L U by partial pivoting, for a matrix or batch
--- (..., m, n): L (unit lower, below the diagonal) and U packed in LU; pivots (..., min(m, n)) an
--- IntTensor, row i swapped with row pivots[i] (1-based, LAPACK's getrf). Not differentiable.
--- Example: torch.linalg.luFactor(torch.Tensor({{1, 2}, {3, 4}}))
function linalg.luFactor(A)
  tensors('linalg.luFactor', A)
  check(C.tocha_linalg_lu_factor(A.p, slots, slots + 1))
  local lu, piv = slots[0], slots[1]
  return wrap(lu), wrap(piv)
end

--- torch.linalg.luUnpack(LU, pivots): P (m x m), L (m x k), U (k x n) from luFactor's results,
--- A = P L U.
--- Example: torch.linalg.luUnpack(torch.linalg.luFactor(torch.Tensor({{1, 2}, {3, 4}})))
function linalg.luUnpack(LU, pivots)
  tensors('linalg.luUnpack', LU, pivots)
  check(C.tocha_linalg_lu_unpack(LU.p, pivots.p, slots, slots + 1, slots + 2))
  local p, l, u = slots[0], slots[1], slots[2]
  return wrap(p), wrap(l), wrap(u)
end

--- torch.linalg.lu(A): P, L, U with A = P L U (partial pivoting), batched. Differentiable in L
--- and U for square matrices (PyTorch's formula); P carries no gradient.
--- Example: torch.linalg.lu(torch.Tensor({{1, 2}, {3, 4}}))
function linalg.lu(A)
  tensors('linalg.lu', A)
  check(C.tocha_linalg_lu(A.p, slots, slots + 1, slots + 2))
  local p, l, u = slots[0], slots[1], slots[2]
  return wrap(p), wrap(l), wrap(u)
end

--- torch.linalg.luSolve(LU, pivots, B): X with A X = B from A's luFactor results (B (..., n, k)).
--- Differentiable in LU and B.
--- Example: torch.linalg.luSolve(torch.eye(2), torch.IntTensor({1, 2}), torch.ones(2, 1))
function linalg.luSolve(LU, pivots, B)
  tensors('linalg.luSolve', LU, pivots, B)
  return (wrap(C.tocha_linalg_lu_solve(LU.p, pivots.p, B.p)))
end

require 'torch.linalg_ex'
require 'torch.linalg_ldl'

return linalg
