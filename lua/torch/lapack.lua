-- LAPACK as torch functions and tensor methods, with Torch7's signatures: gesv, gels, inverse,
-- potrf, potrs, symeig, svd and qr (Float and Double tensors). Leading result tensors are optional
-- (all of them or none); a method call passes self as the first argument, as Torch7's cwrap did,
-- so B:gesv(A) is torch.gesv(B, A) and res:inverse(A) writes into res. gesv and inverse are
-- differentiable, and so are potrf, potrs, symeig, svd and qr without result tensors (through
-- torch.linalg: Note [Torch7 LAPACK under autograd]).
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, describe = types.is_tensor, types.describe
local methods = torch._tensor_methods

-- Result slots for the calls that return several tensors (read before wrapping).
local slots = ffi.new('tocha_tensor*[3]')

local function need_tensors(op, usage, ...)
  for i = 1, select('#', ...) do
    local v = select(i, ...)
    if not is_tensor(v) then
      fail(op, 'expected %s; argument %d is %s', usage, i, describe(v))
    end
  end
end

-- Extra arguments past the last one a signature takes are an error, as in Torch7.
local function no_extra(op, usage, extra)
  if extra ~= nil then fail(op, 'expected %s; got an extra argument %s', usage, describe(extra)) end
end

-- A Torch7 character option: nil gives the default; otherwise one of `allowed`.
local function char_option(op, what, v, default, allowed)
  if v == nil then return default end
  for _, a in ipairs(allowed) do if v == a then return v end end
  fail(op, "%s must be '%s', got %s", what, table.concat(allowed, "' or '"),
       type(v) == 'string' and ("'" .. v .. "'") or describe(v))
end

-- Note [Torch7 LAPACK under autograd]: the C calls behind potrf, potrs, symeig, svd and qr record
-- no gradient (gesv's and inverse's do), so a result computed from an input that requires grad was
-- silently cut from the graph. Such a call without result tensors now goes through the
-- torch.linalg function computing the same factorization (the same LAPACK routine and triangle:
-- equal values, signs included), which is differentiable. Result tensors cannot carry the graph,
-- and gels's result (residual rows under the solution) has no differentiable counterpart: those
-- calls are refused, naming the way out.
-- Whether any argument is a tensor autograd tracks (lapack_t7.lua shares it).
local function tracked(...)
  for i = 1, select('#', ...) do
    if torch._reduce_util.tracked((select(i, ...))) then return true end
  end
  return false
end
torch._lapack_tracked = tracked
local function no_graph(op, how, ...)
  if tracked(...) then
    fail(op, 'an input requires grad, but %s records no gradient: %s, or pass the inputs detached', how,
      op == 'gels' and 'use torch.linalg.lstsq' or 'call it without result tensors (differentiable)')
  end
end
-- The differentiable call f(...) for op: its errors name op (Note [Torch7 LAPACK under autograd]).
local function through(op, f, ...)
  local ok, a, b, c = pcall(f, ...)
  if not ok then error((tostring(a):gsub('%[[%w%.]+%]', '[' .. op .. ']', 1)), 0) end
  return a, b, c
end

-- gesv and gels: torch.f([resb, resa,] B, A) returns (X, second result).
local function install_solver(name)
  local f, f_out = C['tocha_' .. name], C['tocha_' .. name .. '_out']
  local usage = '([resb, resa,] B, A)'
  torch[name] = function(a1, a2, a3, a4)
    if a3 ~= nil or a4 ~= nil then
      need_tensors(name, usage, a1, a2, a3, a4)
      if name == 'gels' then no_graph(name, 'gels', a3, a4) end
      check(f_out(a1.p, a2.p, a3.p, a4.p))
      return a1, a2
    end
    need_tensors(name, usage, a1, a2)
    if name == 'gels' then no_graph(name, 'gels', a1, a2) end
    check(f(a1.p, a2.p, slots, slots + 1))
    local x, y = slots[0], slots[1]
    return wrap(x), wrap(y)
  end
  methods[name] = torch[name]
end
--- torch.gesv([resb, resa,] B, A): solves A X = B for a square non-singular A (n x n) and B
--- (n x k; a 1D B of size n counts as n x 1). Returns two new tensors, X (n x k) and the LU
--- factorization of A (unit-lower L below the diagonal, U on and above it, rows pivoted); with
--- resb and resa given, they are resized, filled and returned. Float and Double tensors only;
--- B:gesv(A) is the same as torch.gesv(B, A).
--- Example: torch.gesv(torch.Tensor({{2}, {4}}), torch.Tensor({{2, 0}, {0, 4}}))
install_solver('gesv')
--- torch.gels([resb, resa,] B, A): the least-squares (m >= n) or least-norm (m < n) solution of
--- A X = B for a full-rank A (m x n) and B (m x k; a 1D B of size m counts as m x 1). Returns two
--- new tensors: X (max(m, n) x k), whose first n rows hold the solution (for m > n the rest give
--- the residuals), and A as LAPACK leaves it (its QR or LQ factors); with resb and resa given,
--- they are resized, filled and returned. Float and Double tensors only; B:gels(A) is the same.
--- Example: torch.gels(torch.Tensor({{1}, {2}, {3}}), torch.Tensor({{1, 0}, {0, 1}, {1, 1}}))
install_solver('gels')

--- torch.inverse([res,] A): the inverse of a square, invertible matrix A.
--- Example: torch.inverse(torch.Tensor({{2, 0}, {0, 4}}))
function torch.inverse(a1, a2)
  if a2 ~= nil then
    need_tensors('inverse', '([res,] A)', a1, a2)
    check(C.tocha_inverse_out(a1.p, a2.p))
    return a1
  end
  need_tensors('inverse', '([res,] A)', a1)
  return wrap(C.tocha_inverse(a1.p))
end

--- torch.potrf([res,] A [, 'U'|'L']): U with A = U'U ('U', the default) or L with A = LL'.
--- Example: torch.potrf(torch.Tensor({{4, 2}, {2, 3}}))
function torch.potrf(a1, a2, a3, a4)
  local res, A, uplo, extra = nil, a1, a2, a3
  if is_tensor(a2) then res, A, uplo, extra = a1, a2, a3, a4 end
  need_tensors('potrf', "([res,] A [, 'U'|'L'])", A)
  no_extra('potrf', "([res,] A [, 'U'|'L'])", extra)
  local upper = char_option('potrf', 'uplo', uplo, 'U', { 'U', 'L' }) == 'U' and 1 or 0
  if res then
    no_graph('potrf', 'a result tensor', A)
    check(C.tocha_potrf_out(res.p, A.p, upper))
    return res
  end
  if tracked(A) then return (through('potrf', torch.linalg.cholesky, A, { upper = upper == 1 })) end
  return wrap(C.tocha_potrf(A.p, upper))
end

--- torch.potrs([res,] B, chol [, 'U'|'L']): solves A X = B given chol = torch.potrf(A, uplo).
--- Example: torch.potrs(torch.Tensor({{1}, {2}}), torch.potrf(torch.Tensor({{4, 2}, {2, 3}})))
function torch.potrs(a1, a2, a3, a4, a5)
  local res, B, chol, uplo, extra = nil, a1, a2, a3, a4
  if is_tensor(a3) then res, B, chol, uplo, extra = a1, a2, a3, a4, a5 end
  need_tensors('potrs', "([res,] B, chol [, 'U'|'L'])", B, chol)
  no_extra('potrs', "([res,] B, chol [, 'U'|'L'])", extra)
  local upper = char_option('potrs', 'uplo', uplo, 'U', { 'U', 'L' }) == 'U' and 1 or 0
  if res then
    no_graph('potrs', 'a result tensor', B, chol)
    check(C.tocha_potrs_out(res.p, B.p, chol.p, upper))
    return res
  end
  if tracked(B, chol) then  -- a vector B gives an n x 1 result, as the C call's
    return (through('potrs', torch.choleskySolve, B:dim() == 1 and B:view(-1, 1) or B, chol, upper == 1))
  end
  return wrap(C.tocha_potrs(B.p, chol.p, upper))
end

--- torch.symeig([rese, resv,] A [, 'N'|'V'] [, 'U'|'L']): eigenvalues (ascending) and, with 'V',
--- the eigenvectors as columns ('N', the default, returns an empty second tensor).
--- Example: torch.symeig(torch.Tensor({{2, 1}, {1, 2}}), 'V')
function torch.symeig(a1, a2, a3, a4, a5, a6)
  local re, rv, A, o1, o2, extra = nil, nil, a1, a2, a3, a4
  if is_tensor(a2) or is_tensor(a3) then re, rv, A, o1, o2, extra = a1, a2, a3, a4, a5, a6 end
  local usage = "([rese, resv,] A [, 'N'|'V'] [, 'U'|'L'])"
  if re then need_tensors('symeig', usage, re, rv, A) else need_tensors('symeig', usage, A) end
  no_extra('symeig', usage, extra)
  -- Either option may be left out: 'U' and 'L' are never a jobz.
  if o2 == nil and (o1 == 'U' or o1 == 'L') then o1, o2 = nil, o1 end
  local vectors = char_option('symeig', 'jobz', o1, 'N', { 'N', 'V' }) == 'V' and 1 or 0
  local upper = char_option('symeig', 'uplo', o2, 'U', { 'U', 'L' }) == 'U' and 1 or 0
  if re then
    no_graph('symeig', 'a result tensor', A)
    check(C.tocha_symeig_out(re.p, rv.p, A.p, vectors, upper))
    return re, rv
  end
  if tracked(A) then
    local w, V = through('symeig', torch.linalg.eigh, A, upper == 1 and 'U' or 'L')
    return w, vectors == 1 and V or torch.Tensor():typeAs(A)
  end
  check(C.tocha_symeig(A.p, vectors, upper, slots, slots + 1))
  local e, v = slots[0], slots[1]
  return wrap(e), wrap(v)
end

--- torch.svd([resu, ress, resv,] A [, 'S'|'A']): U, S, V with A = U diag(S) V'.
--- Example: torch.svd(torch.Tensor({{1, 2}, {3, 4}}))
function torch.svd(a1, a2, a3, a4, a5, a6)
  local ru, rs, rv, A, job, extra = nil, nil, nil, a1, a2, a3
  if is_tensor(a2) or is_tensor(a3) or is_tensor(a4) then ru, rs, rv, A, job, extra = a1, a2, a3, a4, a5, a6 end
  local usage = "([resu, ress, resv,] A [, 'S'|'A'])"
  if ru then need_tensors('svd', usage, ru, rs, rv, A) else need_tensors('svd', usage, A) end
  no_extra('svd', usage, extra)
  local some = char_option('svd', 'jobu', job, 'S', { 'S', 'A' }) == 'S' and 1 or 0
  if ru then
    no_graph('svd', 'a result tensor', A)
    check(C.tocha_svd_out(ru.p, rs.p, rv.p, A.p, some))
    return ru, rs, rv
  end
  if tracked(A) then
    local U, S, Vh = through('svd', torch.linalg.svd, A, some == 0)
    return U, S, Vh:t()
  end
  check(C.tocha_svd(A.p, some, slots, slots + 1, slots + 2))
  local u, s, v = slots[0], slots[1], slots[2]
  return wrap(u), wrap(s), wrap(v)
end

--- torch.qr([q, r,] A): A = Q R with Q m x k (orthonormal columns), R k x n, k = min(m, n).
--- Example: torch.qr(torch.Tensor({{1, 2}, {3, 4}, {5, 6}}))
function torch.qr(a1, a2, a3)
  if a2 ~= nil or a3 ~= nil then
    need_tensors('qr', '([q, r,] A)', a1, a2, a3)
    no_graph('qr', 'a result tensor', a3)
    check(C.tocha_qr_out(a1.p, a2.p, a3.p))
    return a1, a2
  end
  need_tensors('qr', '([q, r,] A)', a1)
  if tracked(a1) then return through('qr', torch.linalg.qr, a1) end
  check(C.tocha_qr(a1.p, slots, slots + 1))
  local q, r = slots[0], slots[1]
  return wrap(q), wrap(r)
end

for _, name in ipairs({ 'inverse', 'potrf', 'potrs', 'symeig', 'svd', 'qr' }) do
  methods[name] = torch[name]
end

-- eig, geqrf, orgqr, ormqr, pstrf, btrifact and btrisolve.
require 'torch.lapack_t7'

return torch
