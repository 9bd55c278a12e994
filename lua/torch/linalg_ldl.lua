-- torch.linalg's LDL^T family: ldlFactor, ldlFactorEx and ldlSolve (LAPACK's sytrf / sytrs through
-- core/ops/linalg_ldl.h). Bunch-Kaufman pivoting with 1x1 and 2x2 blocks, so the LD and pivots are
-- PyTorch's (it calls the same LAPACK routines), including for symmetric positive definite input,
-- where it pivots too. Not differentiable, as in PyTorch 1.13: an input that requires grad is
-- refused rather than cut from the graph. CUDA tensors compute on the host.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local describe, is_tensor = types.describe, types.is_tensor
local linalg = torch.linalg
local slots = ffi.new('tocha_tensor *[3]')

local function options(op, o, allowed)
  if o == nil then return {} end
  if type(o) ~= 'table' or getmetatable(o) ~= nil then fail(op, 'options must be a table, got %s', describe(o)) end
  for k, v in pairs(o) do
    if not allowed[k] then fail(op, "unknown option '%s'", tostring(k)) end
    if type(v) ~= 'boolean' then fail(op, '%s must be a boolean, got %s', tostring(k), describe(v)) end
  end
  return o
end

local function factor(op, A)
  if not is_tensor(A) then fail(op, 'expected A to be a tensor, got %s', describe(A)) end
  check(C.tocha_linalg_ldl_factor(A.p, slots, slots + 1, slots + 2))
  local ld, piv, info = slots[0], slots[1], slots[2]
  return wrap(ld), wrap(piv), wrap(info)
end

local function first_failure(info) return torch._linalg_first_failure(info, 'D') end

--- torch.linalg.ldlFactorEx(A [, {hermitian = false, checkErrors = false}]): LD, pivots, info for
--- a symmetric A (..., n, n) read from its lower triangle: A = P L D L^T P^T with Bunch-Kaufman
--- pivoting (LAPACK's sytrf). LD holds L below the diagonal (unit diagonal not stored) and D's
--- 1x1 and 2x2 blocks; pivots (IntTensor, 1-based) as LAPACK gives them (a 2x2 block: two equal
--- negative entries); info 0, or k when D(k, k) is zero. checkErrors raises for a nonzero info.
--- Not differentiable. hermitian is accepted for PyTorch's signature (real matrices: the same).
--- Example: torch.linalg.ldlFactorEx(torch.Tensor({{0, 1}, {1, 0}}))
function linalg.ldlFactorEx(A, o)
  local op = 'linalg.ldlFactorEx'
  o = options(op, o, { hermitian = true, checkErrors = true })
  local LD, piv, info = factor(op, A)
  if o.checkErrors then
    local why = first_failure(info)
    if why then fail(op, 'the factorization is singular (%s)', why) end
  end
  return LD, piv, info
end

--- torch.linalg.ldlFactor(A [, {hermitian = false}]): LD and pivots of ldlFactorEx, raising when a
--- block of D is singular (ldlSolve with it would divide by zero).
--- Example: torch.linalg.ldlFactor(torch.Tensor({{4, 2}, {2, 5}}))
function linalg.ldlFactor(A, o)
  local op = 'linalg.ldlFactor'
  o = options(op, o, { hermitian = true })
  local LD, piv, info = factor(op, A)
  local why = first_failure(info)
  if why then fail(op, 'the factorization is singular (%s): ldlSolve with it would divide by zero', why) end
  return LD, piv
end

--- torch.linalg.ldlSolve(LD, pivots, B [, {hermitian = false}]): X with A X = B from ldlFactor's
--- results; the batch dims of LD and B broadcast. Not differentiable.
--- Example: local LD, piv = torch.linalg.ldlFactor(torch.Tensor({{4, 2}, {2, 5}})); torch.linalg.ldlSolve(LD, piv, torch.Tensor({{2}, {1}}))
function linalg.ldlSolve(LD, pivots, B, o)
  local op = 'linalg.ldlSolve'
  options(op, o, { hermitian = true })
  for _, a in ipairs({ { 'LD', LD }, { 'pivots', pivots }, { 'B', B } }) do
    if not is_tensor(a[2]) then fail(op, 'expected %s to be a tensor, got %s', a[1], describe(a[2])) end
  end
  return (wrap(C.tocha_linalg_ldl_solve(LD.p, pivots.p, B.p)))
end

return linalg
