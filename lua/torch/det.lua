-- torch.det, torch.logdet and torch.slogdet (PyTorch's) for a square matrix or a batch of them
-- (..., n, n), Float and Double tensors, from one LU factorization per matrix (Note [Det from LU]
-- in core/ops/det.cpp); differentiable. A matrix gives Lua numbers, as Torch7's full reductions
-- (torch.trace) do, or 0-dim tensors when it requires grad (Note [Full reductions under
-- autograd] in reduce.lua); a batch gives tensors of its batch size.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local check_tensor = types.check_tensor
local methods = torch._tensor_methods
local tracked = torch._reduce_util.tracked

local slots = ffi.new('tocha_tensor*[2]')

-- A 0-dim result as a number unless A is tracked by autograd.
local function result(A, t)
  if A.p.ndim == 2 and not tracked(A) then return t:item() end
  return t
end

local function check_args(name, A, extra)
  check_tensor(name, A, 1)
  if extra ~= nil then fail(name, 'expected one tensor A, got an extra argument %s', types.describe(extra)) end
end

--- torch.det(A): the determinant of a square matrix A (a number), or of each matrix of a batch
--- (..., n, n) (a tensor of size ...); 0 for a singular matrix. Float and Double tensors.
--- Differentiable: d det(A) = det(A) inv(A)^T (the adjugate for a singular A). A:det() is the same.
--- Example: torch.det(torch.Tensor({{1, 2}, {3, 4}}))
function torch.det(A, extra)
  check_args('det', A, extra)
  return (result(A, wrap(C.tocha_det(A.p))))
end
methods.det = torch.det

--- torch.logdet(A): log(det A) of a square matrix or of each matrix of a batch: NaN where det A
--- is negative, -inf where it is 0. Differentiable (d logdet(A) = inv(A)^T). A:logdet() is the same.
--- Example: torch.logdet(torch.Tensor({{2, 0}, {0, 3}}))
function torch.logdet(A, extra)
  check_args('logdet', A, extra)
  return (result(A, wrap(C.tocha_logdet(A.p))))
end
methods.logdet = torch.logdet

--- torch.slogdet(A): sign, logabsdet: the sign of det A (-1, 0 or 1) and log|det A| (-inf when
--- A is singular), for a square matrix or each matrix of a batch. logabsdet is differentiable
--- (inv(A)^T), the sign is not. A:slogdet() is the same.
--- Example: torch.slogdet(torch.Tensor({{0, 1}, {1, 0}}))
function torch.slogdet(A, extra)
  check_args('slogdet', A, extra)
  check(C.tocha_slogdet(A.p, slots, slots + 1))
  local sign, logabsdet = wrap(slots[0]), wrap(slots[1])
  if A.p.ndim == 2 then
    sign = sign:item()
    logabsdet = result(A, logabsdet)
  end
  return sign, logabsdet
end
methods.slogdet = torch.slogdet

return torch
