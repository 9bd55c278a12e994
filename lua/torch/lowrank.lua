-- torch.svdLowrank and torch.pcaLowrank (PyTorch's svd_lowrank, pca_lowrank): a randomized
-- truncated SVD (Halko, Martinsson and Tropp 2009, Algorithm 5.1 with subspace iterations), the
-- steps of PyTorch 1.13's torch/_lowrank.py from matmul, linalg.qr and linalg.svd, so it is
-- batched, differentiable and runs on every device.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local fail, describe, is_tensor = lib.fail, types.describe, types.is_tensor

local function mT(x) return x:transpose(x:dim() - 1, x:dim()) end

local function matrix(op, A, what)
  if not is_tensor(A) then fail(op, 'expected %s to be a tensor, got %s', what, describe(A)) end
  local t = A:type()
  if not (t:find('Float') or t:find('Double') or t == 'torch.CudaTensor') or t:find('Half') then
    fail(op, '%s must be a Float or Double tensor, got %s', what, describe(A))
  end
  if A:dim() < 2 then fail(op, '%s must be a matrix or a batch of matrices (..., m, n), got %s', what, describe(A)) end
  return A
end

-- Options in a table: a misspelt key ({m = M}, {centre = false}) would silently be the default
-- (Note [Unknown options] in lua/torch/types.lua).
local read_opts = types.check_option_keys

local function int_arg(op, name, v, lo, hi)
  if type(v) ~= 'number' or v ~= math.floor(v) or v < lo or v > hi then
    local got = type(v) == 'number' and tostring(v) or describe(v)
    fail(op, '%s must be an integer in [%d, %d], got %s', name, lo, hi, got)
  end
  return v
end

-- Note [Random range finder]: an orthonormal basis Q (m x q) of the range of A - M, from a
-- Gaussian sketch (A - M) R (R n x q, drawn by torch.randn on the CPU generator, so
-- torch.manualSeed makes it reproducible on every device) and niter subspace iterations, a QR
-- after each product (PyTorch's get_approximate_basis).
local function approximate_basis(A, q, niter, M)
  local n = A:size(A:dim())
  local R = torch.randn(n, q):type(A:type())
  local function times(X, Y, MX) return MX and torch.matmul(X, Y) - torch.matmul(MX, Y) or torch.matmul(X, Y) end
  local AH, MH = mT(A), M and mT(M)
  local Q = torch.linalg.qr(times(A, R, M))
  for _ = 1, niter do
    Q = torch.linalg.qr(times(AH, Q, MH))
    Q = torch.linalg.qr(times(A, Q, M))
  end
  return Q
end

local function svd_lowrank(A, q, niter, M)
  local m, n = A:size(A:dim() - 1), A:size(A:dim())
  local U, S, V
  if m < n or n > q then
    -- the transpose's basis keeps B (m x q) and V (n x q) small
    local Q = approximate_basis(mT(A), q, niter, M and mT(M))
    local Bt = torch.matmul(A, Q)
    if M then Bt = Bt - torch.matmul(M, Q) end
    local Vh
    U, S, Vh = torch.linalg.svd(Bt, { fullMatrices = false })
    V = torch.matmul(Q, mT(Vh))
  else
    local Q = approximate_basis(A, q, niter, M)
    local Bt = mT(torch.matmul(mT(A), Q))
    if M then Bt = Bt - mT(torch.matmul(mT(M), Q)) end
    local Vh
    U, S, Vh = torch.linalg.svd(Bt, { fullMatrices = false })
    V = mT(Vh)
    U = torch.matmul(Q, U)
  end
  return U, S, V
end

--- torch.svdLowrank(A [, q = 6 [, niter = 2 [, M]]]): U (..., m, q), S (..., q), V (..., n, q)
--- with A - M ~ U diag(S) V^T, a randomized approximation of the q largest singular triplets
--- of A (minus M, an (..., m, n) tensor, when given) by a Gaussian sketch and niter subspace
--- iterations (PyTorch's svd_lowrank; Note [Random range finder]). q <= min(m, n); take q a few
--- above the rank sought. Options may be a table {q =, niter =, M =}. Differentiable.
--- Example: torch.svdLowrank(torch.randn(20, 3) * torch.randn(3, 10), 3)
function torch.svdLowrank(A, q, niter, M)
  local op = 'svdLowrank'
  if type(q) == 'table' and getmetatable(q) == nil then
    if niter ~= nil or M ~= nil then fail(op, 'options given in a table take no further arguments') end
    read_opts(op, q, 'q', 'niter', 'M')
    q, niter, M = q.q, q.niter, q.M
  end
  matrix(op, A, 'A')
  local m, n = A:size(A:dim() - 1), A:size(A:dim())
  if q == nil then q = 6 end
  if math.min(m, n) < 1 then fail(op, 'A must not be empty, got %s', describe(A)) end
  int_arg(op, 'q', q, 1, math.min(m, n))
  int_arg(op, 'niter', niter == nil and 2 or niter, 0, 2 ^ 20)
  if M ~= nil then
    matrix(op, M, 'M')
    if M:size(M:dim() - 1) ~= m or M:size(M:dim()) ~= n then
      fail(op, 'M must be of A\'s matrix size %dx%d, got %s', m, n, describe(M))
    end
  end
  return svd_lowrank(A, q, niter == nil and 2 or niter, M)
end

--- torch.pcaLowrank(A [, q = min(6, m, n) [, center = true [, niter = 2]]]): U, S, V of the
--- randomized low-rank SVD of A (..., m, n) with each column's mean subtracted first (center):
--- the principal directions are V's columns, S^2 / (m - 1) their variances (PyTorch's
--- pca_lowrank). Options may be a table {q =, center =, niter =}. Differentiable.
--- Example: torch.pcaLowrank(torch.randn(50, 4), 2)
function torch.pcaLowrank(A, q, center, niter)
  local op = 'pcaLowrank'
  if type(q) == 'table' and getmetatable(q) == nil then
    if center ~= nil or niter ~= nil then fail(op, 'options given in a table take no further arguments') end
    read_opts(op, q, 'q', 'center', 'niter')
    q, center, niter = q.q, q.center, q.niter
  end
  matrix(op, A, 'A')
  local m, n = A:size(A:dim() - 1), A:size(A:dim())
  if math.min(m, n) < 1 then fail(op, 'A must not be empty, got %s', describe(A)) end
  if q == nil then q = math.min(6, m, n) end
  int_arg(op, 'q', q, 1, math.min(m, n))
  niter = int_arg(op, 'niter', niter == nil and 2 or niter, 0, 2 ^ 20)
  if center ~= nil and type(center) ~= 'boolean' then fail(op, 'center must be a boolean, got %s', describe(center)) end
  if center ~= false then A = A - torch.mean(A, A:dim() - 1):expandAs(A) end
  return svd_lowrank(A, q, niter)
end
