-- torch.linalg, the rest of PyTorch's namespace: choleskyEx, invEx (results with per-matrix info
-- codes instead of errors), householderProduct, tensorinv, tensorsolve, vecdot, diagonal, and eig /
-- eigvals, which need complex numbers and so only explain where to go. Composites of torch.linalg
-- and recorded ops: batched, Float and Double, differentiable where their parts are.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local fail = lib.fail
local describe, check_tensor = types.describe, types.check_tensor
local linalg = torch.linalg

local function tensors(op, ...)
  for i = 1, select('#', ...) do check_tensor(op, (select(i, ...)), i) end
end
local function options(op, o, allowed)
  if o == nil then return {} end
  if type(o) ~= 'table' or getmetatable(o) ~= nil then fail(op, 'options must be a table, got %s', describe(o)) end
  for k in pairs(o) do
    if not allowed[k] then fail(op, "unknown option '%s'", tostring(k)) end
  end
  return o
end
local flag, integer = torch._arg_checks.flag, torch._arg_checks.integer  -- lua/torch/linalg_ns.lua
local function shape(t) return table.concat(t:size():totable(), 'x') end
local function square(op, A)
  if A:dim() < 2 or A:size(A:dim()) ~= A:size(A:dim() - 1) then
    fail(op, 'expected a square matrix or a batch of them, got a tensor of size %s', A:dim() == 0 and 'scalar' or shape(A))
  end
end
-- The batch of A (..., n, n) as a list of matrices, and the batch sizes.
local function batch_of(A)
  local lead = A:size():totable()
  lead[#lead], lead[#lead - 1] = nil, nil
  local n, count = A:size(A:dim()), 1
  for _, s in ipairs(lead) do count = count * s end
  -- the count spelled out: reshape(-1, 0, 0) cannot infer it for 0 x 0 matrices
  local flat = A:reshape(count, n, n)
  return flat, lead
end
-- Float or Double (on any device), checked first: the *Ex functions read a failed factorization as
-- a failed matrix, so an IntTensor came back as zeros with info 1 instead of an error.
local function floating(op, A)
  local dt = A.p.dtype
  if dt ~= lib.dtype.f32 and dt ~= lib.dtype.f64 then
    fail(op, 'A must be a Float or Double tensor, got a %s', torch.type(A))
  end
end
-- An error of the torch.linalg function an *Ex function called, naming op; raised unless it is the
-- failure (`expected`, e.g. 'singular') that info reports.
local function rethrow_unless(op, err, expected)
  err = tostring(err)
  if not err:find(expected, 1, true) then error((err:gsub('%[linalg%.%a+%]', '[' .. op .. ']', 1)), 0) end
end
local function int_tensor(values, lead)
  local t = torch.IntTensor(#values > 0 and #values or 0)
  for i, v in ipairs(values) do t[i] = v end
  if #lead == 0 then return t:view({}) end
  return t:view(torch.LongStorage(lead))
end

-- The LAPACK info of one matrix that cholesky refused: the order of its first leading minor that
-- is not positive definite. Factoring the leading k x k block succeeds exactly for the k below it,
-- so a bisection over k finds it with log2(n) factorizations (no error message is parsed).
local function failing_minor(M, upper)
  local lo, hi = 0, M:size(1)  -- blocks of order lo factor, order hi does not
  while hi - lo > 1 do
    local mid = math.floor((lo + hi) / 2)
    if pcall(linalg.cholesky, M:narrow(1, 1, mid):narrow(2, 1, mid), { upper = upper }) then lo = mid else hi = mid end
  end
  return hi
end

--- torch.linalg.choleskyEx(A [, {upper=false, checkErrors=false}]): L, info: the Cholesky factor of
--- each symmetric positive-definite matrix and an IntTensor info (0-dim for one matrix), 0 where
--- it succeeded, else the order of the first leading minor that is not positive definite (LAPACK's
--- and PyTorch's code). A failed matrix's factor holds the factor of its positive-definite leading
--- block and zeros (PyTorch leaves LAPACK's partial work there). checkErrors raises instead.
--- Differentiable where every matrix succeeded.
--- Example: local L, info = torch.linalg.choleskyEx(torch.Tensor({{4, 2}, {2, 1}}))
function linalg.choleskyEx(A, o)
  local op = 'linalg.choleskyEx'
  tensors(op, A)
  o = options(op, o, { upper = true, checkErrors = true })
  local upper = flag(op, 'upper', o.upper, false)
  local check = flag(op, 'checkErrors', o.checkErrors, false)
  square(op, A)
  floating(op, A)
  local ok, L = pcall(linalg.cholesky, A, { upper = upper })
  if not ok and not check then rethrow_unless(op, L, 'not positive definite') end
  -- LAPACK stops at a NaN pivot; the kernel here lets NaN through, so it counts as a failure
  local nan_free = ok and not torch.isnan(L:diagonal(0, L:dim() - 1, L:dim())):any()
  if ok and nan_free then
    local flat, lead = batch_of(A)
    local zeros = {}
    for i = 1, flat:size(1) do zeros[i] = 0 end
    return L, int_tensor(zeros, lead)
  end
  if check then
    if not ok then error(L, 2) end
    fail(op, 'A is not positive definite: a pivot of its factorization is NaN')
  end
  local flat, lead = batch_of(A)
  local n = A:size(A:dim())
  local factors, info = {}, {}
  for b = 1, flat:size(1) do
    local M = flat[b]
    local good, F = pcall(linalg.cholesky, M, { upper = upper })
    if good then
      local d = F:diagonal()
      local bad = torch.isnan(d)
      if bad:any() then
        local k = 1
        while bad[k] == 0 do k = k + 1 end
        good, info[b] = false, k
      else
        info[b] = 0
      end
    else
      info[b] = failing_minor(M, upper)
    end
    if good then
      factors[b] = F
    else
      local k = info[b] - 1
      local Z = torch.zeros(n, n):typeAs(A)
      if k > 0 then Z:narrow(1, 1, k):narrow(2, 1, k):copy(linalg.cholesky(M:narrow(1, 1, k):narrow(2, 1, k), { upper = upper })) end
      factors[b] = Z
    end
  end
  return torch.stack(factors, 1):view(A:size()), int_tensor(info, lead)
end

--- torch.linalg.invEx(A [, {checkErrors=false}]): inverse, info: A^-1 of each square matrix and an
--- IntTensor info (0-dim for one matrix), 0 where A is invertible, else the 1-based index of the
--- first zero pivot of its LU factorization (LAPACK's getrf code, as PyTorch). The inverse of a
--- singular matrix is NaN (PyTorch's holds whatever the solver left). checkErrors raises instead.
--- Differentiable where every matrix is invertible.
--- Example: local X, info = torch.linalg.invEx(torch.Tensor({{1, 2}, {2, 4}}))
function linalg.invEx(A, o)
  local op = 'linalg.invEx'
  tensors(op, A)
  o = options(op, o, { checkErrors = true })
  local check = flag(op, 'checkErrors', o.checkErrors, false)
  square(op, A)
  floating(op, A)
  local ok, X = pcall(linalg.inv, A)
  if not ok and not check then rethrow_unless(op, X, 'singular') end
  local flat, lead = batch_of(A)
  if ok then
    local zeros = {}
    for i = 1, flat:size(1) do zeros[i] = 0 end
    return X, int_tensor(zeros, lead)
  end
  if check then error(X, 2) end
  local LU = torch.noGrad(linalg.luFactor, flat)
  local n = A:size(A:dim())
  local inverses, info = {}, {}
  for b = 1, flat:size(1) do
    local d = LU[b]:diagonal()
    local k = 0
    for i = 1, n do if d[i] == 0 then k = i break end end
    local good, Xb = false, nil
    if k == 0 then good, Xb = pcall(linalg.inv, flat[b]) end
    if good then
      inverses[b], info[b] = Xb, 0
    else
      inverses[b], info[b] = torch.Tensor(n, n):typeAs(A):fill(0 / 0), math.max(k, 1)
    end
  end
  return torch.stack(inverses, 1):view(A:size()), int_tensor(info, lead)
end

--- torch.linalg.householderProduct(A, tau): the first n columns of the product H_1 ... H_k of
--- Householder reflections H_i = I - tau_i v_i v_i^T, v_i being column i of A (..., m, n) below
--- the diagonal with a 1 on it (LAPACK's orgqr; A and tau as geqrf leaves them); tau (..., k),
--- k <= n <= m. Built from recorded ops: differentiable in A and tau.
--- Example: torch.linalg.householderProduct(torch.zeros(3, 2), torch.Tensor({2, 2}))
function linalg.householderProduct(A, tau)
  local op = 'linalg.householderProduct'
  tensors(op, A, tau)
  if A:dim() < 2 then fail(op, 'A must be a matrix or a batch of them, got a %dD tensor', A:dim()) end
  local m, n = A:size(A:dim() - 1), A:size(A:dim())
  if n > m then fail(op, 'A must have at least as many rows as columns, got %s', shape(A)) end
  if tau:dim() ~= A:dim() - 1 then
    fail(op, 'tau must have one dim fewer than A (%s), got a tensor of size %s', shape(A), tau:dim() == 0 and 'scalar' or shape(tau))
  end
  local k = tau:size(tau:dim())
  if k > n then fail(op, 'tau has %d elements per matrix, more than the %d columns of A', k, n) end
  for d = 1, A:dim() - 2 do
    if tau:size(d) ~= A:size(d) then fail(op, 'the batch sizes of A (%s) and tau (%s) differ', shape(A), shape(tau)) end
  end
  if torch.type(tau) ~= torch.type(A) then fail(op, 'A and tau must have one type, got %s and %s', torch.type(A), torch.type(tau)) end
  local eye = torch.eye(m, n):typeAs(A)
  local lead = A:size():totable()
  lead[#lead], lead[#lead - 1] = nil, nil
  local full = { unpack(lead) }
  full[#full + 1], full[#full + 2] = m, n
  local count = 1
  for _, s in ipairs(lead) do count = count * s end  -- not nElement / (m * n): 0 / 0 when n = 0
  local Q = eye:view(1, m, n):expand(count, m, n):reshape(torch.LongStorage(full))
  if k == 0 then return Q end
  -- reflectors as columns: strictly lower part of A plus the unit diagonal
  local V = torch.tril(A, -1) + eye
  local last = A:dim()
  for i = k, 1, -1 do  -- Q = H_i Q, applied from the last reflector back
    local v = V:narrow(last, i, 1)                               -- (..., m, 1)
    local t = tau:narrow(tau:dim(), i, 1):unsqueeze(last)         -- (..., 1, 1)
    local vtQ = torch.matmul(v:transpose(last - 1, last), Q)      -- (..., 1, n)
    Q = Q - torch.cmul(torch.matmul(v, vtQ), t:expandAs(Q))
  end
  return Q
end

--- torch.linalg.vecdot(x, y [, {dim=-1}]): the dot products of x and y along dim (real tensors: no
--- conjugation), shapes broadcasting. Differentiable.
--- Example: torch.linalg.vecdot(torch.Tensor({{1, 2}, {3, 4}}), torch.Tensor({1, 1}))
function linalg.vecdot(x, y, o)
  local op = 'linalg.vecdot'
  tensors(op, x, y)
  if type(o) == 'number' then o = { dim = o } end
  o = options(op, o, { dim = true })
  local ok, p = pcall(torch.cmul, x, y)
  if not ok then error((tostring(p):gsub('%[[%w%.]+%]', '[' .. op .. ']', 1)), 0) end  -- names vecdot
  if p:dim() == 0 then fail(op, 'expected tensors with at least one dim, got 0-dim ones') end
  local dim = integer(op, 'dim', o.dim == nil and -1 or o.dim)
  if dim < -p:dim() or dim > p:dim() or dim == 0 then
    fail(op, 'dim must be between 1 and %d (or negative from the end), got %d', p:dim(), dim)
  end
  if dim < 0 then dim = dim + p:dim() + 1 end
  return torch.sum(p, dim):squeeze(dim)
end

--- torch.linalg.diagonal(A [, {offset=0, dim1=-2, dim2=-1}]): the offset-th diagonal of the
--- matrices formed by dims dim1 and dim2 (torch.diagonal with PyTorch's linalg defaults: the last
--- two dims), a view. Differentiable.
--- Example: torch.linalg.diagonal(torch.eye(3))
function linalg.diagonal(A, o)
  local op = 'linalg.diagonal'
  tensors(op, A)
  o = options(op, o, { offset = true, dim1 = true, dim2 = true })
  if A:dim() < 2 then fail(op, 'expected a tensor with at least 2 dims, got %dD', A:dim()) end
  local offset = integer(op, 'offset', o.offset or 0)
  local d1, d2 = integer(op, 'dim1', o.dim1 or -2), integer(op, 'dim2', o.dim2 or -1)
  for _, d in ipairs({ d1, d2 }) do
    if d < -A:dim() or d > A:dim() or d == 0 then
      fail(op, 'dims must be between 1 and %d (or negative from the end), got %d', A:dim(), d)
    end
  end
  if d1 < 0 then d1 = d1 + A:dim() + 1 end
  if d2 < 0 then d2 = d2 + A:dim() + 1 end
  if d1 == d2 then fail(op, 'dim1 and dim2 must differ, got %d twice', d1) end
  return A:diagonal(offset, d1, d2)
end

require 'torch.linalg_more_tensor'

-- Note [No eig without complex numbers]: the eigenvalues of a general real matrix are complex, and
-- Tocha has no complex dtype. Returning them as (..., n, 2) real/imaginary pairs (the layout
-- torch.viewAsReal gives in PyTorch) was considered and rejected: eigenvectors would need the same
-- layout, every consumer would have to know it, and it would not be PyTorch's API either. So eig
-- and eigvals raise, pointing to eigh / eigvalsh, which serve the symmetric case (real spectrum).
local function no_complex(op)
  fail(op, 'needs complex numbers, which Tocha does not have (a general real matrix has complex '
    .. 'eigenvalues); for a symmetric matrix use torch.linalg.eigh or torch.linalg.eigvalsh')
end
--- torch.linalg.eig(A): not available: a general matrix's eigenvalues are complex and Tocha has no
--- complex dtype; raises, pointing to torch.linalg.eigh for symmetric matrices.
--- Example: print(pcall(torch.linalg.eig, torch.eye(2)))
function linalg.eig(A) no_complex('linalg.eig') end
--- torch.linalg.eigvals(A): not available (complex results); raises, pointing to eigvalsh.
--- Example: print(pcall(torch.linalg.eigvals, torch.eye(2)))
function linalg.eigvals(A) no_complex('linalg.eigvals') end

return linalg
