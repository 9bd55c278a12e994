-- Torch7's remaining LAPACK functions, with its signatures, as torch functions and tensor methods:
-- eig, geqrf, orgqr, ormqr, pstrf (core/ops/lapack_t7.h) and the batched LU pair btrifact /
-- btrisolve (built on torch.linalg.luFactor / luSolve). Float and Double tensors. Leading result
-- tensors are optional (all of them or none); a method call passes self first, as Torch7's cwrap
-- did. Loaded by torch.lapack.
--
-- Note [Torch7 LAPACK extras under autograd]: eig, geqrf, pstrf and btrifact record no gradient,
-- so an input that requires grad (grad mode on) is refused rather than silently cut from the graph
-- (PyTorch raises at backward for geqrf; here the error comes at once and names the way out).
-- orgqr and ormqr without result tensors go through torch.linalg.householderProduct, which is
-- differentiable; btrisolve is, through torch.linalg.luSolve (in b and LU).
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, describe = types.is_tensor, types.describe
local methods = torch._tensor_methods

local slots = ffi.new('tocha_tensor*[2]')

local function need_tensors(op, usage, ...)
  for i = 1, select('#', ...) do
    local v = select(i, ...)
    if not is_tensor(v) then fail(op, 'expected %s; argument %d is %s', usage, i, describe(v)) end
  end
end

local function no_extra(op, usage, extra)
  if extra ~= nil then fail(op, 'expected %s; got an extra argument %s', usage, describe(extra)) end
end

local function char_option(op, what, v, default, allowed)
  if v == nil then return default end
  for _, a in ipairs(allowed) do if v == a then return v end end
  fail(op, "%s must be '%s', got %s", what, table.concat(allowed, "' or '"),
       type(v) == 'string' and ("'" .. v .. "'") or describe(v))
end

-- The leading tensor arguments of a call and what follows them: tensors, options.
local function refuse_tracked(op, t, instead)
  if torch._reduce_util.tracked(t) then
    fail(op, 'A requires grad, but %s records no gradient: pass A:detach()%s', op, instead or '')
  end
end
local tracked = torch._lapack_tracked  -- lapack.lua's
-- The full m x m Q = H_1 ... H_k of geqrf's A (m x n) and tau (k), differentiably: A's columns
-- padded with zeros to m reflectors, the missing taus 0 (H = I).
local function full_q(op, A, tau)
  local m, n, k = A:size(1), A:size(2), tau:size(1)
  if k > math.min(m, n) then fail(op, 'tau has %d elements but A is %dx%d (at most min(m, n) reflectors)', k, m, n) end
  local V = A:narrow(2, 1, k)
  if k < m then V = torch.cat(V, torch.zeros(m, m - k):typeAs(A), 2) end
  local t = k < m and torch.cat(tau, torch.zeros(m - k):typeAs(tau), 1) or tau
  local ok, Q = pcall(torch.linalg.householderProduct, V, t)
  if not ok then error((tostring(Q):gsub('%[linalg%.%a+%]', '[' .. op .. ']', 1)), 0) end
  return Q
end

local function split_args(...)
  local n, ts, rest = select('#', ...), {}, {}
  local i = 1
  while i <= n and is_tensor((select(i, ...))) do
    ts[#ts + 1] = select(i, ...)
    i = i + 1
  end
  for j = i, n do rest[#rest + 1] = select(j, ...) end
  rest.n = n - i + 1
  return ts, rest
end

--- torch.eig([rese, resv,] A [, 'N'|'V']): eigenvalues of a general real square A as an n x 2
--- tensor (real and imaginary parts, LAPACK's order: a complex-conjugate pair is adjacent, the
--- positive imaginary part first) and, with 'V', the right eigenvectors as the columns of V as
--- LAPACK packs them (for a pair j, j+1 the vectors are V[:, j] +- i V[:, j+1]); 'N' (the default)
--- returns an empty second tensor. On CUDA tensors it computes on the host.
--- Example: torch.eig(torch.Tensor({{0, -1}, {1, 0}}), 'V')
function torch.eig(...)
  local usage = "([rese, resv,] A [, 'N'|'V'])"
  local ts, rest = split_args(...)
  if #ts ~= 1 and #ts ~= 3 then fail('eig', 'expected %s; got %d tensors', usage, #ts) end
  if rest.n > 1 then no_extra('eig', usage, rest[2] == nil and 'nil' or rest[2]) end
  local vectors = char_option('eig', 'jobvr', rest[1], 'N', { 'N', 'V' }) == 'V' and 1 or 0
  refuse_tracked('eig', ts[#ts], ' (torch.linalg.eigh is differentiable for a symmetric A)')
  if #ts == 3 then
    check(C.tocha_eig_out(ts[1].p, ts[2].p, ts[3].p, vectors))
    return ts[1], ts[2]
  end
  check(C.tocha_eig(ts[1].p, vectors, slots, slots + 1))
  local e, v = slots[0], slots[1]
  return wrap(e), wrap(v)
end

--- torch.geqrf([ra, rtau,] A): LAPACK's geqrf of an m x n A: ra holds R on and above the
--- diagonal and the Householder vectors below it, rtau their min(m, n) scalars. torch.orgqr and
--- torch.ormqr use them; torch.qr gives Q and R directly.
--- Example: torch.geqrf(torch.Tensor({{12, -51}, {6, 167}, {-4, 24}}))
function torch.geqrf(...)
  local usage = '([ra, rtau,] A)'
  local ts, rest = split_args(...)
  if rest.n > 0 then no_extra('geqrf', usage, rest[1] == nil and 'nil' or rest[1]) end
  if #ts == 1 or #ts == 3 then refuse_tracked('geqrf', ts[#ts], ' (torch.linalg.qr is differentiable)') end
  if #ts == 3 then
    check(C.tocha_geqrf_out(ts[1].p, ts[2].p, ts[3].p))
    return ts[1], ts[2]
  end
  if #ts ~= 1 then fail('geqrf', 'expected %s; got %d tensors', usage, #ts) end
  check(C.tocha_geqrf(ts[1].p, slots, slots + 1))
  local f, tau = slots[0], slots[1]
  return wrap(f), wrap(tau)
end

--- torch.orgqr([res,] A, tau): Q (m x k, orthonormal columns, k = tau's size) from geqrf's A and
--- tau: torch.orgqr(torch.geqrf(A)) is torch.qr(A)'s Q.
--- Example: torch.orgqr(torch.geqrf(torch.Tensor({{12, -51}, {6, 167}, {-4, 24}})))
function torch.orgqr(...)
  local usage = '([res,] A, tau)'
  local ts, rest = split_args(...)
  if rest.n > 0 then no_extra('orgqr', usage, rest[1] == nil and 'nil' or rest[1]) end
  if #ts == 3 then
    check(C.tocha_orgqr_out(ts[1].p, ts[2].p, ts[3].p))
    return ts[1]
  end
  if #ts ~= 2 then fail('orgqr', 'expected %s; got %d tensors', usage, #ts) end
  if tracked(ts[1], ts[2]) and ts[1]:dim() == 2 and ts[2]:dim() == 1 then
    return full_q('orgqr', ts[1], ts[2]):narrow(2, 1, ts[2]:size(1))
  end
  return wrap(C.tocha_orgqr(ts[1].p, ts[2].p))
end

--- torch.ormqr([res,] A, tau, C [, 'L'|'R'] [, 'N'|'T']): multiplies C by the Q of geqrf's A and
--- tau without forming it: Q C ('L', 'N', the defaults), Q^T C ('L', 'T'), C Q ('R', 'N') or C Q^T
--- ('R', 'T'). Q is square: A has C's rows ('L') or C's columns ('R') as rows.
--- Example: local a, tau = torch.geqrf(torch.randn(3, 3)); torch.ormqr(a, tau, torch.eye(3), 'L', 'T')
function torch.ormqr(...)
  local usage = "([res,] A, tau, C [, 'L'|'R'] [, 'N'|'T'])"
  local ts, rest = split_args(...)
  if #ts ~= 3 and #ts ~= 4 then fail('ormqr', 'expected %s; got %d tensors', usage, #ts) end
  if rest.n > 2 then no_extra('ormqr', usage, rest[3] == nil and 'nil' or rest[3]) end
  local side, trans = rest[1], rest[2]
  if trans == nil and (side == 'N' or side == 'T') then side, trans = nil, side end  -- the side left out
  local left = char_option('ormqr', 'side', side, 'L', { 'L', 'R' }) == 'L' and 1 or 0
  local tr = char_option('ormqr', 'trans', trans, 'N', { 'N', 'T' }) == 'T' and 1 or 0
  if #ts == 4 then
    check(C.tocha_ormqr_out(ts[1].p, ts[2].p, ts[3].p, ts[4].p, left, tr))
    return ts[1]
  end
  local A, tau, Cm = ts[1], ts[2], ts[3]
  if tracked(A, tau, Cm) and A:dim() == 2 and tau:dim() == 1 and Cm:dim() == 2
      and A:size(1) == (left == 1 and Cm:size(1) or Cm:size(2)) then
    local Q = full_q('ormqr', A, tau)
    if tr == 1 then Q = Q:t() end
    return left == 1 and torch.mm(Q, Cm) or torch.mm(Cm, Q)
  end
  return wrap(C.tocha_ormqr(A.p, tau.p, Cm.p, left, tr))
end

--- torch.pstrf([res, piv,] A [, 'U'|'L'] [, tol]): Cholesky factorization with complete pivoting
--- of a symmetric positive semidefinite A (read from its 'U' (default) or 'L' triangle):
--- P^T A P = U^T U ('U') or L L^T ('L'), with P[piv[k]][k] = 1 (piv an IntTensor, 1-based).
--- A rank-deficient A is allowed: the factorization stops at its numerical rank (pivots <= tol;
--- tol < 0, the default, is LAPACK's n * eps * max(diag A)) and the rest of the factor is zero.
--- On CUDA tensors it computes on the host.
--- Example: torch.pstrf(torch.Tensor({{4, 2}, {2, 1}}))
function torch.pstrf(...)
  local usage = "([res, piv,] A [, 'U'|'L'] [, tol])"
  local ts, rest = split_args(...)
  if #ts ~= 1 and #ts ~= 3 then fail('pstrf', 'expected %s; got %d tensors', usage, #ts) end
  local uplo, tol = rest[1], rest[2]
  if type(uplo) == 'number' and rest.n == 1 then uplo, tol = nil, uplo end
  if rest.n > 2 then no_extra('pstrf', usage, rest[3] == nil and 'nil' or rest[3]) end
  local upper = char_option('pstrf', 'uplo', uplo, 'U', { 'U', 'L' }) == 'U' and 1 or 0
  if tol ~= nil and type(tol) ~= 'number' then fail('pstrf', 'tol must be a number, got %s', describe(tol)) end
  tol = tol or -1
  refuse_tracked('pstrf', ts[#ts], ' (torch.linalg.cholesky is differentiable)')
  if #ts == 3 then
    check(C.tocha_pstrf_out(ts[1].p, ts[2].p, ts[3].p, upper, tol))
    return ts[1], ts[2]
  end
  check(C.tocha_pstrf(ts[1].p, upper, tol, slots, slots + 1))
  local u, piv = slots[0], slots[1]
  return wrap(u), wrap(piv)
end

-- A batch of square float matrices (B x n x n), as Torch7's btrifact and btrisolve take.
local function check_batch(op, name, t)
  local dt = t.p.dtype  -- dtype, not class name: CUDA tensors too (docs/cuda.md)
  if dt ~= lib.dtype.f32 and dt ~= lib.dtype.f64 then
    fail(op, '%s must be a Float or Double tensor, got a %s', name, torch.type(t))
  end
  if t:dim() ~= 3 then fail(op, '%s must be a 3D tensor (a batch of matrices), got %dD', name, t:dim()) end
  if t:size(2) ~= t:size(3) then
    fail(op, '%s must hold square matrices, got %dx%dx%d', name, t:size(1), t:size(2), t:size(3))
  end
end

-- Per matrix of the batch, 0 or the 1-based index of the first zero on U's diagonal (getrf's info).
local function lu_infos(LU)
  local b, n = LU:size(1), LU:size(2)
  local d = LU:to('cpu'):double():contiguous():view(b, n * n)
  local infos = {}
  for i = 1, b do
    infos[i] = 0
    for j = 1, n do
      if d[i][(j - 1) * (n + 1) + 1] == 0 then infos[i] = j; break end
    end
  end
  return infos
end

--- torch.btrifact([ra, rpivots [, rinfo],] A [, pivot]): LU factorization with partial pivoting
--- of each matrix of a batch A (B x n x n), Torch7's (and PyTorch 0.4's) batched getrf: ra holds
--- L (unit, below the diagonal) and U of each matrix, rpivots (B x n IntTensor) its 1-based row
--- swaps. A singular matrix is an error unless rinfo (an IntTensor) is given: it then receives
--- each matrix's info (0, or the index of the zero on U's diagonal). pivot = false is not
--- supported (as in Torch7 on the CPU).
--- Example: local lu, piv = torch.btrifact(torch.randn(2, 3, 3))
function torch.btrifact(...)
  local usage = '([ra, rpivots [, rinfo],] A [, pivot])'
  local ts, rest = split_args(...)
  if #ts ~= 1 and #ts ~= 3 and #ts ~= 4 then fail('btrifact', 'expected %s; got %d tensors', usage, #ts) end
  if rest.n > 1 then no_extra('btrifact', usage, rest[2] == nil and 'nil' or rest[2]) end
  local pivot = rest[1]
  if pivot ~= nil and type(pivot) ~= 'boolean' then
    fail('btrifact', 'pivot must be a boolean, got %s', describe(pivot))
  end
  if pivot == false then fail('btrifact', 'btrifact without pivoting is not implemented') end
  local A = ts[#ts]
  check_batch('btrifact', 'A', A)
  refuse_tracked('btrifact', A, ' (torch.linalg.lu is differentiable)')
  local LU, piv = torch.linalg.luFactor(A)
  local infos = lu_infos(LU)
  local rinfo = #ts == 4 and ts[3] or nil
  if rinfo then
    rinfo:resize(#infos)
    for i, v in ipairs(infos) do rinfo[i] = v end
  else
    for i, v in ipairs(infos) do
      if v ~= 0 then
        fail('btrifact', 'failed to factorize matrix %d of the batch: U(%d,%d) is zero (singular)', i, v, v)
      end
    end
  end
  if #ts == 1 then return LU, piv end
  ts[1]:resize(LU:size()):copy(LU)
  ts[2]:resize(piv:size()):copy(piv)
  return ts[1], ts[2]
end

--- torch.btrisolve([rb,] b, LU, pivots): solves A x = b for each matrix of a batch, from
--- torch.btrifact(A)'s LU and pivots: b is B x n (one right-hand side per matrix) or B x n x k.
--- Returns x shaped like b (or rb, resized and filled).
--- Example: local A, b = torch.randn(2, 3, 3), torch.randn(2, 3); torch.btrisolve(b, torch.btrifact(A))
function torch.btrisolve(...)
  local usage = '([rb,] b, LU, pivots)'
  local ts, rest = split_args(...)
  if #ts ~= 3 and #ts ~= 4 then fail('btrisolve', 'expected %s; got %d tensors', usage, #ts) end
  if rest.n > 0 then no_extra('btrisolve', usage, rest[1] == nil and 'nil' or rest[1]) end
  local rb = #ts == 4 and ts[1] or nil
  local b, LU, piv = ts[#ts - 2], ts[#ts - 1], ts[#ts]
  check_batch('btrisolve', 'LU', LU)
  if b:dim() ~= 2 and b:dim() ~= 3 then fail('btrisolve', 'b must be 2D or 3D, got %dD', b:dim()) end
  if b:size(1) ~= LU:size(1) then
    fail('btrisolve', 'b has %d matrices but LU has %d (the batch sizes must be equal)', b:size(1), LU:size(1))
  end
  if b:size(2) ~= LU:size(2) then
    fail('btrisolve', 'b has %d rows but the matrices of LU are %dx%d', b:size(2), LU:size(2), LU:size(3))
  end
  if b.p.dtype ~= LU.p.dtype or b:device() ~= LU:device() then
    fail('btrisolve', 'b is a %s but LU is a %s', torch.type(b), torch.type(LU))
  end
  local b3 = b:dim() == 2 and b:contiguous():view(b:size(1), b:size(2), 1) or b
  -- luSolve's own checks (the pivots) name it: the user called btrisolve
  local ok, x = pcall(torch.linalg.luSolve, LU, piv, b3)
  if not ok then fail('btrisolve', '%s', (tostring(x):gsub('^.-%[linalg%.luSolve%] ', ''))) end
  if b:dim() == 2 then x = x:view(b:size(1), b:size(2)) end
  if not rb then return x end
  rb:resize(x:size()):copy(x)
  return rb
end

for _, name in ipairs({ 'eig', 'geqrf', 'orgqr', 'ormqr', 'pstrf', 'btrifact', 'btrisolve' }) do
  methods[name] = torch[name]
end

return torch
