-- The scale-matrix arguments shared by MultivariateNormal and Wishart: exactly one of
-- covarianceMatrix, precisionMatrix or scaleTril, turned into the Cholesky factor scaleTril (L,
-- covariance L L^T) that all their work goes through, and the other two matrices from L.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'

local S = {}
local KINDS = { 'covarianceMatrix', 'precisionMatrix', 'scaleTril' }

local function mT(x) return x:transpose(x:dim() - 1, x:dim()) end
local function eye_like(x, n) return torch.eye(n):to(x:device(), util.cpu_type(x)) end

-- The name of the one scale matrix given in the arguments a; an error names op otherwise.
function S.which(op, a)
  local which, count = nil, 0
  for _, k in ipairs(KINDS) do
    if a[k] ~= nil then which, count = k, count + 1 end
  end
  if count ~= 1 then
    util.fail(op, 'expected exactly one of covarianceMatrix, precisionMatrix or scaleTril, got %d', count)
  end
  return which
end

-- PyTorch's precision -> scale_tril: L from the Cholesky factor of the flipped precision, so
-- that no explicit inverse of P is formed.
local function precision_to_scale_tril(P)
  local Lf = torch.linalg.cholesky(torch.flip(P, { -2, -1 }))
  local Linv = mT(torch.flip(Lf, { -2, -1 }))
  return torch.linalg.solveTriangular(Linv, eye_like(P, P:size(P:dim())), { upper = false })
end

-- L from the matrix M given as which (unbroadcast).
function S.scaleTril(which, M)
  if which == 'scaleTril' then return M end
  if which == 'covarianceMatrix' then return torch.linalg.cholesky(M) end
  return precision_to_scale_tril(M)
end

-- scaleTril, covarianceMatrix and precisionMatrix expanded to mshape (batch .. {n, n}): the one
-- given as which is M itself, the others are computed from L = S.scaleTril(which, M).
function S.matrices(which, M, L, mshape)
  local cov = which == 'covarianceMatrix' and M or torch.matmul(L, mT(L))
  local prec = M
  if which ~= 'precisionMatrix' then
    local Linv = torch.linalg.solveTriangular(L, eye_like(L, L:size(L:dim())), { upper = false })
    prec = torch.matmul(mT(Linv), Linv)
  end
  return L:expand(mshape), cov:expand(mshape), prec:expand(mshape)
end

return S
