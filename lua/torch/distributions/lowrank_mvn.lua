-- torch.distributions.LowRankMultivariateNormal: the normal distribution over n-vectors whose
-- covariance is W W^T + diag(D), W = covFactor (n x m), D = covDiag > 0. logProb and entropy
-- only factor the small m x m "capacitance" matrix I + W^T D^-1 W (Woodbury identity, matrix
-- determinant lemma), as PyTorch does; the n x n matrices are methods computed on demand.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local D = torch.distributions

local LowRank = torch.class('torch.distributions.LowRankMultivariateNormal', 'torch.distributions.Distribution', D)
LowRank.hasRsample = true
LowRank._params = { 'loc', 'covFactor', 'covDiag' }
local LOG_2PI = math.log(2 * math.pi)

local function mT(x) return x:transpose(x:dim() - 1, x:dim()) end
local function eye_like(x, n) return torch.eye(n):to(x:device(), util.cpu_type(x)) end
-- Matrix times vector over broadcast batch dims: (..., n, m) x (..., m) -> (..., n).
local function batch_mv(M, v) return torch.matmul(M, v:unsqueeze(-1)):squeeze(-1) end

-- Note [Unbroadcasted parameters]: as PyTorch, the factorizations (the capacitance Cholesky factor
-- above all) are computed once from covFactor and covDiag as given (self._W, self._D, their own
-- batch dims), not from the copies broadcast to the batch shape; the fields covFactor and covDiag
-- are those broadcast views, and expand() keeps the unbroadcasted ones.

-- Cholesky factor of the capacitance I + W^T D^-1 W (m x m, over W's and D's batch dims).
local function capacitance_tril(W, Dg)
  local WtDinv = mT(W) / Dg:unsqueeze(-2)
  local K = torch.matmul(WtDinv, W) + eye_like(W, W:size(W:dim()))
  return torch.linalg.cholesky(K)
end

-- log det(W W^T + D) = log det C + sum log D (matrix determinant lemma).
local function lowrank_logdet(W, Dg, C)
  return util.sum_last(torch.log(torch.diagonal(C, 0, -2, -1))) * 2 + util.sum_last(torch.log(Dg))
end

-- |L^-1 x|^2 over broadcast batch dims: L (..., k, k), x (..., k).
local function tril_mahalanobis(L, x)
  local z = torch.linalg.solveTriangular(L, x:unsqueeze(-1), { upper = false })
  return util.sum_rightmost(torch.pow(z, 2), 2)
end

-- x^T (W W^T + D)^-1 x = x^T D^-1 x - |C^-1 W^T D^-1 x|^2 (Woodbury identity).
local function lowrank_mahalanobis(W, Dg, x, C)
  local WtDinv = mT(W) / Dg:unsqueeze(-2)
  local t1 = util.sum_last(torch.pow(x, 2) / Dg)
  return t1 - tril_mahalanobis(C, batch_mv(WtDinv, x))
end
LowRank._lowrankLogdet, LowRank._lowrankMahalanobis, LowRank._trilMahalanobis =
  lowrank_logdet, lowrank_mahalanobis, tril_mahalanobis

--- torch.distributions.LowRankMultivariateNormal(loc, covFactor, covDiag [, {validateArgs=}]):
--- the normal distribution over n-vectors (n = loc's last dim) with mean loc and covariance
--- covFactor covFactor^T + diag(covDiag); covFactor is n x m (m the rank, usually << n), covDiag
--- an n-vector of positive numbers; the batch dims of the three broadcast. eventShape is {n}.
--- Example: torch.distributions.LowRankMultivariateNormal(torch.zeros(3), torch.ones(3, 1), torch.ones(3)):sample({2})
function LowRank:__init(...)
  local op = self:_op()
  local a, validate = util.args(op, { 'loc', 'covFactor', 'covDiag' }, ...)
  local t = util.convert(op, { 'loc', 'covFactor', 'covDiag' }, { a.loc, a.covFactor, a.covDiag })
  local loc, W, Dg = t[1], t[2], t[3]
  if loc:dim() < 1 then util.fail(op, 'loc must be a vector (or a batch of them), got %s', util.describe(loc)) end
  local n = loc:size(loc:dim())
  if W:dim() < 2 or W:size(W:dim() - 1) ~= n then
    util.fail(op, 'covFactor must be a %dxm matrix (or a batch of them) to match loc %s, got %s', n, util.describe(loc), util.describe(W))
  end
  if Dg:dim() < 1 or Dg:size(Dg:dim()) ~= n then
    util.fail(op, 'covDiag must be a vector of size %d (or a batch of them) to match loc %s, got %s', n, util.describe(loc), util.describe(Dg))
  end
  local ok, batch = pcall(torch.broadcastShapes, util.slice(loc:size(), 1, -2), util.slice(W:size(), 1, -3), util.slice(Dg:size(), 1, -2))
  if not ok then
    util.fail(op, 'the batch dims of loc %s, covFactor %s and covDiag %s do not broadcast', util.describe(loc), util.describe(W), util.describe(Dg))
  end
  self:_setup(batch, torch.LongStorage({ n }), validate)
  self:_check('loc', constraints.realVector, loc)
  self:_check('covFactor', constraints.real, W)
  self:_check('covDiag', constraints.positive, Dg)
  local m = W:size(W:dim())
  self.loc = loc:expand(util.cat(batch, { n }))
  self.covFactor = W:expand(util.cat(batch, { n, m }))
  self.covDiag = Dg:expand(util.cat(batch, { n }))
  self._W, self._D = W, Dg
  self._capacitanceTril = capacitance_tril(W, Dg)
end

--- LowRankMultivariateNormal:support(): real vectors.
--- Example: torch.distributions.LowRankMultivariateNormal(torch.zeros(2), torch.ones(2, 1), torch.ones(2)):support().desc
function LowRank:support() return constraints.realVector end

--- LowRankMultivariateNormal:mean(): loc (the mode too).
--- Example: torch.distributions.LowRankMultivariateNormal(torch.ones(2), torch.ones(2, 1), torch.ones(2)):mean()
function LowRank:mean() return self.loc end
--- LowRankMultivariateNormal:mode(): loc.
--- Example: torch.distributions.LowRankMultivariateNormal(torch.ones(2), torch.ones(2, 1), torch.ones(2)):mode()
function LowRank:mode() return self.loc end
--- LowRankMultivariateNormal:variance(): the covariance's diagonal, sum_j W_ij^2 + D_i, of size batchShape .. {n}.
--- Example: torch.distributions.LowRankMultivariateNormal(torch.zeros(2), torch.ones(2, 1), torch.ones(2)):variance()
function LowRank:variance()
  return (util.sum_last(torch.pow(self._W, 2)) + self._D):expand(util.cat(self.batchShape, self.eventShape))
end

local function matrix_shape(self) return util.cat(self.batchShape, self.eventShape, self.eventShape) end

--- LowRankMultivariateNormal:covarianceMatrix(): W W^T + diag(D), of size batchShape .. {n, n}.
--- Example: torch.distributions.LowRankMultivariateNormal(torch.zeros(2), torch.ones(2, 1), torch.ones(2)):covarianceMatrix()
function LowRank:covarianceMatrix()
  return (torch.matmul(self._W, mT(self._W)) + torch.diagEmbed(self._D)):expand(matrix_shape(self))
end
--- LowRankMultivariateNormal:precisionMatrix(): the inverse covariance by the Woodbury identity,
--- D^-1 - A^T A with A = C^-1 W^T D^-1 (C the capacitance's Cholesky factor).
--- Example: torch.distributions.LowRankMultivariateNormal(torch.zeros(2), torch.ones(2, 1), torch.ones(2)):precisionMatrix()
function LowRank:precisionMatrix()
  local WtDinv = mT(self._W) / self._D:unsqueeze(-2)
  local A = torch.linalg.solveTriangular(self._capacitanceTril, WtDinv, { upper = false })
  return (torch.diagEmbed(torch.pow(self._D, -1)) - torch.matmul(mT(A), A)):expand(matrix_shape(self))
end
--- LowRankMultivariateNormal:scaleTril(): the lower Cholesky factor of the covariance, as
--- D^1/2 chol(I + D^-1/2 W W^T D^-1/2) (a matrix with eigenvalues >= 1, well conditioned).
--- Example: torch.distributions.LowRankMultivariateNormal(torch.zeros(2), torch.ones(2, 1), torch.ones(2)):scaleTril()
function LowRank:scaleTril()
  local n = self.eventShape[1]
  local sqrtD = torch.sqrt(self._D):unsqueeze(-1)
  local DW = self._W / sqrtD
  local K = torch.matmul(DW, mT(DW)) + eye_like(DW, n)
  return torch.cmul(sqrtD, torch.linalg.cholesky(K)):expand(matrix_shape(self))
end

--- LowRankMultivariateNormal:rsample([sampleShape]): loc + W eps_W + sqrt(D) eps_D with
--- standard normal eps_W (m) and eps_D (n): differentiable in the three parameters.
--- Example: torch.distributions.LowRankMultivariateNormal(torch.zeros(3), torch.ones(3, 1), torch.ones(3)):rsample({4})
function LowRank:rsample(shape)
  local s = self:_extendedShape(shape)
  local m = self._W:size(self._W:dim())
  local epsW = util.empty(self.loc, util.cat(util.slice(s, 1, -2), { m })):normal()
  local epsD = util.empty(self.loc, s):normal()
  return self.loc + batch_mv(self._W, epsW) + torch.cmul(torch.sqrt(self._D), epsD)
end

-- log det of the covariance, over the unbroadcasted parameters' batch dims.
function LowRank:_logdet() return lowrank_logdet(self._W, self._D, self._capacitanceTril) end

--- LowRankMultivariateNormal:logProb(value): -(n log(2 pi) + log det S + (v - loc)^T S^-1 (v - loc)) / 2
--- for S = W W^T + D, by the matrix determinant lemma and the Woodbury identity.
--- Example: torch.distributions.LowRankMultivariateNormal(torch.zeros(2), torch.ones(2, 1), torch.ones(2)):logProb(torch.ones(2))
function LowRank:logProb(value)
  local v = self:_value(value, nil, self.loc)
  local M = lowrank_mahalanobis(self._W, self._D, v - self.loc, self._capacitanceTril)
  return (M + self:_logdet() + self.eventShape[1] * LOG_2PI) * -0.5
end
--- LowRankMultivariateNormal:entropy(): (n (1 + log(2 pi)) + log det S) / 2, of size batchShape.
--- Example: torch.distributions.LowRankMultivariateNormal(torch.zeros(2), torch.ones(2, 1), torch.ones(2)):entropy()
function LowRank:entropy()
  local h = (self:_logdet() + self.eventShape[1] * (1 + LOG_2PI)) * 0.5
  return h:expand(self.batchShape)
end

return LowRank
