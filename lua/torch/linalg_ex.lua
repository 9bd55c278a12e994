-- torch.linalg's *Ex functions (PyTorch's solve_ex, lu_factor_ex: results plus an `info` tensor
-- instead of an error) and the alias linalg.matmul, composed from the factorizations and solves
-- of linalg_ns.lua.
--
-- Note [info tensors]: info is an IntTensor of A's batch shape (0-dim for one matrix) holding
-- LAPACK getrf's code for each matrix: 0 on success, i > 0 when U(i, i) (1-based) is exactly 0,
-- the first such i. With checkErrors = true a nonzero code raises an error naming the batch
-- element, as PyTorch's; by default it is only reported. Where PyTorch's solve_ex returns the
-- leftovers of LAPACK's getrs for a singular matrix (infs or NaNs), solveEx returns NaN for that
-- matrix and solves the others, differentiably (the singular ones are swapped for the identity
-- before torch.linalg.solve, so no error and no NaN gradient reaches the rest of the batch).

local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local fail, describe, is_tensor = lib.fail, types.describe, types.is_tensor

local linalg = torch.linalg

local function options(op, o, allowed)
  if o == nil then return {} end
  if type(o) ~= 'table' or getmetatable(o) ~= nil then fail(op, 'options must be a table, got %s', describe(o)) end
  for k in pairs(o) do
    if not allowed[k] then
      local names = {}
      for name in pairs(allowed) do names[#names + 1] = name end
      table.sort(names)
      fail(op, "unknown option '%s' (expected %s)", tostring(k), table.concat(names, ', '))
    end
  end
  return o
end
local function flag(op, name, v, default)
  if v == nil then return default end
  if type(v) ~= 'boolean' then fail(op, '%s must be a boolean, got %s', name, describe(v)) end
  return v
end
local function matrix(op, A, what, square)
  if not is_tensor(A) then fail(op, 'expected %s to be a tensor, got %s', what, describe(A)) end
  if A:dim() < 2 then fail(op, '%s must be a matrix or a batch of matrices (..., m, n), got %s', what, describe(A)) end
  if square and A:size(A:dim()) ~= A:size(A:dim() - 1) then
    fail(op, '%s must be square (..., n, n), got %s', what, describe(A))
  end
  return A
end

-- getrf's info for the packed LU (..., m, n): an IntTensor of the batch shape.
local function lu_info(LU)
  return torch.noGrad(function()
    local d = torch.diagonal(LU, 0, -2, -1)
    local k = d:size(d:dim())
    if k == 0 then  -- no diagonal (0 x 0, m x 0 or 0 x n matrices): every code is 0
      local s = d:size():totable()
      s[#s] = 1
      return torch.IntTensor(torch.LongStorage(s)):zero():select(#s, 1)
    end
    local idx = torch.range(1, k):typeAs(d)
    local cand = torch.where(torch.eq(d, 0), idx:expandAs(d), k + 1)
    local first = torch.min(cand, d:dim()):select(d:dim(), 1)
    return torch.where(torch.gt(first, k), 0, first):int()
  end)
end

-- The first nonzero code as "batch element b: U(i,i) is zero" (the factor's letter: U, or D for
-- ldlFactor), or nil.
local function first_failure(info, letter)
  letter = letter or 'U'
  local flat = info:contiguous():view(-1)
  for b = 1, flat:nElement() do
    local i = flat[b]
    if i ~= 0 then
      return info:dim() > 0 and string.format('batch element %d: %s(%d,%d) is zero', b, letter, i, i)
        or string.format('%s(%d,%d) is zero', letter, i, i)
    end
  end
  return nil
end
torch._linalg_first_failure = first_failure  -- for lua/torch/linalg_ldl.lua (not in torch.linalg: public)

--- torch.linalg.matmul(a, b): the matrix product with broadcasting, the same function as
--- torch.matmul (PyTorch's alias).
--- Example: torch.linalg.matmul(torch.eye(2), torch.ones(2, 3))
linalg.matmul = torch.matmul
-- the same function object has torch.matmul's comment; this names the alias for help()
require('torch.doc').register('torch.linalg.matmul', 'torch.linalg.matmul(a, b)',
  'The matrix product with broadcasting: the same function as torch.matmul (PyTorch\'s alias).',
  'torch.linalg.matmul(torch.eye(2), torch.ones(2, 3))')

--- torch.linalg.luFactorEx(A [, {pivot = true, checkErrors = false}]): LU, pivots, info: the
--- results of torch.linalg.luFactor (P A = L U by partial pivoting, pivots 1-based) and an info
--- IntTensor of A's batch shape, 0 where the factorization has a nonzero diagonal and the first
--- i with U(i, i) = 0 elsewhere (LAPACK's getrf code; Note [info tensors]). checkErrors raises
--- instead for a nonzero code. pivot = false is not implemented (PyTorch's CPU has it neither).
--- Not differentiable (as luFactor).
--- Example: torch.linalg.luFactorEx(torch.Tensor({{1, 2}, {2, 4}}))
function linalg.luFactorEx(A, o)
  local op = 'linalg.luFactorEx'
  o = options(op, o, { pivot = true, checkErrors = true })
  matrix(op, A, 'A')
  if not flag(op, 'pivot', o.pivot, true) then
    fail(op, 'LU without pivoting is not implemented (pivot = false); PyTorch 1.13 has it only on CUDA')
  end
  local check_errors = flag(op, 'checkErrors', o.checkErrors, false)
  local LU, piv = linalg.luFactor(A)
  local info = lu_info(LU)
  if check_errors then
    local why = first_failure(info)
    if why then fail(op, 'the factorization is singular (%s): lu_solve with it would divide by zero', why) end
  end
  return LU, piv, info
end

--- torch.linalg.solveEx(A, B [, {left = true, checkErrors = false}]): X, info: the solution of
--- A X = B (left) or X A = B (left = false) for square A (..., n, n), batched and broadcast as
--- torch.linalg.solve, and the info IntTensor of A's batch shape (Note [info tensors]). A singular
--- matrix's X is NaN (its info nonzero) unless checkErrors, which raises. Differentiable in A and B
--- for the nonsingular matrices.
--- Example: torch.linalg.solveEx(torch.Tensor({{2, 0}, {0, 4}}), torch.Tensor({{2}, {4}}))
function linalg.solveEx(A, B, o)
  local op = 'linalg.solveEx'
  o = options(op, o, { left = true, checkErrors = true })
  matrix(op, A, 'A', true)
  if not is_tensor(B) then fail(op, 'expected B to be a tensor, got %s', describe(B)) end
  local left = flag(op, 'left', o.left, true)
  local check_errors = flag(op, 'checkErrors', o.checkErrors, false)
  local At = left and A or A:transpose(A:dim() - 1, A:dim())
  local Bt = B
  if not left then
    if B:dim() < 2 then
      fail(op, 'with left = false, B must be a matrix or a batch of them (..., k, n), got %s', describe(B))
    end
    Bt = B:transpose(B:dim() - 1, B:dim())
  end
  local info = lu_info((linalg.luFactor(A:detach())))
  local why = first_failure(info)
  if why and check_errors then fail(op, 'the solver failed because the input matrix is singular (%s)', why) end
  local X
  if not why then
    X = linalg.solve(At, Bt)
  else
    -- solve with the singular matrices swapped for the identity, then NaN their solutions
    local n = A:size(A:dim())
    local bad = torch.ne(info, 0)
    local shape = bad:size():totable()
    local mshape = {}
    for i, s in ipairs(shape) do mshape[i] = s end
    mshape[#mshape + 1], mshape[#mshape + 2] = 1, 1
    local eye = torch.eye(n):typeAs(A)
    local safe = torch.where(bad:view(torch.LongStorage(mshape)), eye, At)
    X = linalg.solve(safe, Bt)
    -- X's trailing dims: (n, k) for a matrix B, (n) for a vector B
    local as_vector = Bt:dim() == 1
    if Bt:dim() == A:dim() - 1 then
      as_vector = true
      for i = 1, Bt:dim() do as_vector = as_vector and Bt:size(i) == A:size(i) end
    end
    local xshape = {}
    for i, s in ipairs(shape) do xshape[i] = s end
    xshape[#xshape + 1] = 1
    if not as_vector then xshape[#xshape + 1] = 1 end
    X = torch.where(bad:view(torch.LongStorage(xshape)), 0 / 0, X)
  end
  if not left then X = X:transpose(X:dim() - 1, X:dim()) end
  return X, info
end

return linalg
