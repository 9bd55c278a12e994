-- nn.utils.parametrizations: PyTorch's torch.nn.utils.parametrizations: orthogonal, spectralNorm and
-- weightNorm registered through nn.utils.parametrize, with their parametrization modules
-- (nn.OrthogonalParametrization, nn.SpectralNormParametrization, nn.WeightNormParametrization),
-- differentiated through their ops, with PyTorch's buffers and state-dict keys.
require 'nn.parametrize'
local lib = require 'torch.lib'
local fail = lib.fail
local core = require 'nn.parametrize_core'
local linalg = torch.linalg
local parametrizations = {}
nn.utils.parametrizations = parametrizations

local function mT(x) return x:transpose(x:dim() - 1, x:dim()) end
local function eye_like(x, n, k)
  local e = torch.eye(n, k):typeAs(x)
  if x:dim() == 2 then return e end
  local s = x:size():totable()
  s[#s - 1], s[#s] = n, k
  return e:view(1, n, k):expand(x:nElement() / (x:size(x:dim() - 1) * x:size(x:dim())), n, k):reshape(torch.LongStorage(s))
end

-- ---- orthogonal --------------------------------------------------------------------------------
local maps = { matrixExp = true, cayley = true, householder = true }
local Orth, OrthParent = torch.class('nn.OrthogonalParametrization', 'nn.Module')
Orth._stateParams = {}

--- nn.OrthogonalParametrization(weight, map, useTrivialization): PyTorch's _Orthogonal: maps a
--- matrix (or batch) to one with orthonormal columns (rows if wide) by map 'matrixExp', 'cayley' or
--- 'householder'; with useTrivialization, the result is base times it (base a buffer).
--- Example: local p = nn.OrthogonalParametrization(torch.eye(3), 'matrixExp', true)
function Orth:__init(weight, map, trivial)
  local op = 'nn.OrthogonalParametrization'
  if not torch.isTensor(weight) or weight:dim() < 2 then fail(op, 'expected the weight (a matrix or batch of them), got %s', torch.type(weight)) end
  if not maps[map] then fail(op, "map must be 'matrixExp', 'cayley' or 'householder', got %s", tostring(map)) end
  OrthParent.__init(self)
  self.shape, self.map, self.trivial = weight:size():totable(), map, trivial
  self._stateBuffers = trivial and { 'base' } or {}
end

function Orth:updateOutput(X)
  local n, k = X:size(X:dim() - 1), X:size(X:dim())
  local transposed = n < k
  if transposed then X, n, k = mT(X), k, n end
  local Q
  if self.map == 'matrixExp' or self.map == 'cayley' then
    X = torch.tril(X)
    if n ~= k then
      local s = X:size():totable()
      s[#s] = n - k
      X = torch.cat(X, torch.zeros(torch.LongStorage(s)):typeAs(X), X:dim())
    end
    local A = X - mT(X)
    if self.map == 'matrixExp' then
      Q = linalg.matrixExp(A)
    else
      local I = eye_like(A, n, n)
      Q = linalg.solve(I - A * 0.5, I + A * 0.5)
    end
    if n ~= k then Q = Q:narrow(Q:dim(), 1, k) end
  else
    local A = torch.tril(X, -1)
    local tau = torch.pow(torch.cmul(A, A):sum(A:dim() - 1):squeeze(A:dim() - 1) + 1, -1) * 2
    Q = linalg.householderProduct(A, tau)
    -- PyTorch's X.diagonal().int(): the diagonal truncated toward zero
    local d = X:diagonal(0, X:dim() - 1, X:dim()):detach()
    d = torch.cmul(torch.floor(torch.abs(d)), torch.sign(d))
    Q = torch.cmul(Q, d:unsqueeze(d:dim()):expandAs(Q))
  end
  if self.trivial then Q = torch.matmul(self.base, Q) end
  if transposed then Q = mT(Q) end
  self.output = Q
  return Q
end

-- Q from the QR of A with R's diagonal made positive.
local function make_orthogonal(A)
  local Q, R = linalg.qr(A)
  local s = torch.sign(R:diagonal(0, R:dim() - 1, R:dim()))
  return torch.cmul(Q, s:unsqueeze(s:dim()):expandAs(Q))
end

--- orth:rightInverse(Q): PyTorch's: with trivialization, base becomes Q (made orthogonal, completed
--- to a square matrix by random columns when Q is not square) and the original -I.
--- Example: local p = nn.OrthogonalParametrization(torch.eye(2), 'matrixExp', true); print(p:rightInverse(torch.eye(2)))
function Orth:rightInverse(Q)
  local op = 'nn.utils.parametrizations.orthogonal'
  if table.concat(Q:size():totable(), 'x') ~= table.concat(self.shape, 'x') then
    fail(op, 'expected a matrix of size %s, got %s', table.concat(self.shape, 'x'), table.concat(Q:size():totable(), 'x'))
  end
  if not self.trivial then
    fail(op, 'assigning to the parametrization needs useTrivialization=true (geqrf is not available)')
  end
  local Q0 = Q
  local n, k = Q:size(Q:dim() - 1), Q:size(Q:dim())
  if n < k then Q, n, k = mT(Q), k, n end
  if n == k then
    local eps = 10 * n * (Q:type() == 'torch.DoubleTensor' and 2.220446049250313e-16 or 1.1920928955078125e-07)
    local err = (torch.matmul(mT(Q), Q) - eye_like(Q, k, k)):abs():max()
    Q = err <= eps and Q:clone() or make_orthogonal(Q)
  else
    local s = Q:size():totable()
    s[#s] = n - k
    Q = make_orthogonal(torch.cat(Q, torch.randn(torch.LongStorage(s)):typeAs(Q), Q:dim()))
  end
  self.base = Q:contiguous()
  local negI = Q0.new(Q0:size()):zero()
  negI:diagonal(0, negI:dim() - 1, negI:dim()):fill(-1)
  return negI
end

--- nn.utils.parametrizations.orthogonal(module [, name='weight'] [, {orthogonalMap=, useTrivialization=true}]):
--- keeps module[name] (a matrix or batch) orthogonal (orthonormal columns, or rows when wide) under
--- training: PyTorch's parametrization, with map 'matrixExp' for square matrices and 'householder'
--- otherwise by default ('cayley' on request). The current weight is kept (made orthogonal).
--- Example: local m = nn.utils.parametrizations.orthogonal(nn.Linear(3, 3)); print(m.weight * m.weight:t())
function parametrizations.orthogonal(module, name, o)
  local op = 'nn.utils.parametrizations.orthogonal'
  local W
  name, o, W = core.target_args(op, module, name, o)
  if W:dim() < 2 then fail(op, 'expected a matrix or batch of matrices, got a tensor with %d dims', W:dim()) end
  local map = o.orthogonalMap or (W:size(W:dim()) == W:size(W:dim() - 1) and 'matrixExp' or 'householder')
  if not maps[map] then fail(op, "orthogonalMap must be 'matrixExp', 'cayley' or 'householder', got %s", tostring(map)) end
  local p = nn.OrthogonalParametrization(W, map, o.useTrivialization ~= false)
  return nn.utils.parametrize.registerParametrization(module, name, p, { unsafe = true })
end

require 'nn.parametrize_norms'
return parametrizations
