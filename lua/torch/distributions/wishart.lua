-- torch.distributions.Wishart: distributions over p x p symmetric positive-definite matrices,
-- df degrees of freedom and a scale given as covarianceMatrix, precisionMatrix or scaleTril; all
-- the work goes through the Cholesky factor scaleTril, and rsample is the Bartlett decomposition.
-- Also the multivariate lgamma/digamma (D._mvlgamma, D._mvdigamma) the KL divergence uses.
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local ST = require 'torch.distributions.scale_tril'
local D = torch.distributions

local Wishart = torch.class('torch.distributions.Wishart', 'torch.distributions.Distribution', D)
Wishart.hasRsample = true
Wishart._params = { 'df', 'scaleTril', 'covarianceMatrix', 'precisionMatrix' }
local LOG_2, LOG_PI = math.log(2), math.log(math.pi)

local function mT(x) return x:transpose(x:dim() - 1, x:dim()) end
local function diag(x) return torch.diagonal(x, 0, -2, -1) end
-- a - (0, 1/2, ..., (p-1)/2) along a new last dim.
local function halves(a, p)
  local offs = torch.arange(0, p):to(a:device(), util.cpu_type(a)) * 0.5
  return a:unsqueeze(-1) - offs
end
-- log Gamma_p(a) = p (p - 1) / 4 log(pi) + sum_{j<p} lgamma(a - j/2), elementwise over a tensor
-- (differentiable through lgamma). Internal; lkj.lua and kl_multivariate.lua use it too.
function D._mvlgamma(a, p) return util.sum_last(torch.lgamma(halves(a, p))) + p * (p - 1) / 4 * LOG_PI end
-- psi_p(a) = sum_{j<p} digamma(a - j/2), the derivative of log Gamma_p. Internal.
function D._mvdigamma(a, p) return util.sum_last(torch.digamma(halves(a, p))) end

--- torch.distributions.Wishart(df, covarianceMatrix | nil, precisionMatrix | nil, scaleTril | nil
--- [, {validateArgs=}]): the Wishart distribution over p x p positive-definite matrices with df > p - 1
--- degrees of freedom (a number or a tensor of batch dims) and exactly one of the three scale
--- matrices (p x p, batch dims broadcast with df's); e.g. Wishart(5, {scaleTril = L}). The three
--- are fields; eventShape is {p, p}. df < p is allowed (as PyTorch) but gives singular draws often.
--- Example: torch.distributions.Wishart(4, {covarianceMatrix = torch.eye(2)}):sample()
function Wishart:__init(...)
  local op = self:_op()
  local a, validate = util.args(op, { 'df', 'covarianceMatrix', 'precisionMatrix', 'scaleTril' }, ...)
  local which = ST.which(op, a)
  if not util.is_tensor(a[which]) then util.fail(op, '%s must be a tensor, got %s', which, util.describe(a[which])) end
  local t = util.convert(op, { which, 'df' }, { a[which], a.df })
  local M, df = t[1], t[2]
  local d = M:dim()
  if d < 2 or M:size(d) ~= M:size(d - 1) then
    util.fail(op, '%s must be a square matrix (or a batch of them), got %s', which, util.describe(M))
  end
  local p = M:size(d)
  local ok, batch = pcall(torch.broadcastShapes, util.slice(M:size(), 1, -3), df:size())
  if not ok then util.fail(op, 'df %s does not broadcast with the batch dims of %s %s', util.describe(df), which, util.describe(M)) end
  self:_setup(batch, torch.LongStorage({ p, p }), validate)
  -- Always checked, as PyTorch (a ValueError there): the density is not defined otherwise.
  if not torch.all(torch.gt(df, p - 1)) then
    local shown = df:nElement() == 1 and tostring(df:contiguous():view(1):double()[1]) or util.describe(df)
    util.fail(op, 'df must be greater than p - 1 = %d, got %s', p - 1, shown)
  end
  self:_check(which, which == 'scaleTril' and constraints.lowerCholesky or constraints.positiveDefinite, M)
  local L = ST.scaleTril(which, M)
  self._L = L  -- unbroadcasted (Note [Unbroadcasted parameters] in lowrank_mvn.lua)
  self.df = df:expand(batch)
  self.scaleTril, self.covarianceMatrix, self.precisionMatrix = ST.matrices(which, M, L, util.cat(batch, { p, p }))
end

--- Wishart:support(): symmetric positive-definite matrices.
--- Example: torch.distributions.Wishart(3, {scaleTril = torch.eye(2)}):support().desc
function Wishart:support() return constraints.positiveDefinite end

-- df as batch .. {1, 1}, to scale matrices.
local function df_mat(self) return self.df:contiguous():view(util.cat(self.batchShape, { 1, 1 })) end

--- Wishart:mean(): df covarianceMatrix.
--- Example: torch.distributions.Wishart(3, {covarianceMatrix = torch.eye(2)}):mean()
function Wishart:mean() return torch.cmul(df_mat(self), self.covarianceMatrix) end
--- Wishart:mode(): (df - p - 1) covarianceMatrix, NaN where df <= p + 1 (no mode; as PyTorch).
--- Example: torch.distributions.Wishart(5, {covarianceMatrix = torch.eye(2)}):mode()
function Wishart:mode()
  local f = df_mat(self) - (self.eventShape[1] + 1)
  f = torch.where(torch.le(f, 0), 0 / 0, f)
  return torch.cmul(f, self.covarianceMatrix)
end
--- Wishart:variance(): the variance of each entry, df (V_ij^2 + V_ii V_jj), V the covariance.
--- Example: torch.distributions.Wishart(3, {covarianceMatrix = torch.eye(2)}):variance()
function Wishart:variance()
  local V = self.covarianceMatrix
  local dv = diag(V)
  return torch.cmul(df_mat(self), torch.pow(V, 2) + torch.cmul(dv:unsqueeze(-1), dv:unsqueeze(-2)))
end

-- Note [Bartlett sampling]: A lower triangular with A_ii = sqrt(chi2(df - i + 1)), i = 1..p, and
-- standard normal entries below the diagonal; X = (L A)(L A)^T is a Wishart draw. The chi2 draws
-- are 2 standardGamma((df - i + 1) / 2), reparameterized (Note [Gamma rsample] in gamma.lua), so
-- rsample is differentiable in df and the scale. The diagonal is clamped to eps as PyTorch, and
-- X is symmetrized, (X + X^T) / 2, so that the support check sees an exactly symmetric matrix.
function Wishart:_bartlett(s)
  local p = self.eventShape[1]
  local conc = halves(self.df * 0.5, p):expand(util.slice(s, 1, -2))  -- (df - i + 1) / 2
  local sq = torch.clampMin(torch.sqrt(D.standardGamma(conc) * 2), util.eps(conc))
  local A = torch.diagEmbed(sq) + torch.tril(util.empty(conc, s):normal(), -1)
  local LA = torch.matmul(self._L, A)
  local X = torch.matmul(LA, mT(LA))
  return (X + mT(X)) * 0.5
end

-- 1 for the matrices (of x: sampleShape .. batchShape .. {p, p}) whose Cholesky factorization
-- fails: numerically singular draws. This is PyTorch 1.13's positive_definite check (x is
-- symmetric by construction), cheaper than constraints.positiveDefinite's eigenvalues. PyTorch
-- means to redraw these, but its flag is inverted (is_singular = support.check(sample)), so it
-- redraws the good samples once instead; the draws have the same distribution either way.
local function singular(x)
  local _, info = torch.linalg.choleskyEx(x:detach())
  return torch.ne(info, 0)
end

--- Wishart:rsample([sampleShape [, maxTryCorrection]]): Bartlett draws (Note [Bartlett sampling]),
--- differentiable in df and the scale. A draw that is numerically singular (likely when
--- df < p) is redrawn, up to maxTryCorrection times (default 10, as PyTorch); one still singular
--- after that is returned as is (logProb gives -inf there).
--- Example: torch.distributions.Wishart(3, {scaleTril = torch.eye(2)}):rsample({2})
function Wishart:rsample(shape, maxTryCorrection)
  local s = self:_extendedShape(shape)
  maxTryCorrection = maxTryCorrection or 10
  if type(maxTryCorrection) ~= 'number' or maxTryCorrection < 0 then
    util.fail(self:_op(), 'maxTryCorrection must be a non-negative number, got %s', util.describe(maxTryCorrection))
  end
  local x = self:_bartlett(s)
  for _ = 1, maxTryCorrection do
    local bad = singular(x)
    if not torch.any(bad) then break end
    x = torch.where(bad:view(util.cat(bad:size(), { 1, 1 })), self:_bartlett(s), x)
  end
  return x
end

-- sum log diag L (half the log-determinant of the scale), over L's own batch dims.
local function half_logdet(L) return util.sum_last(torch.log(diag(L))) end

--- Wishart:logProb(value): -df (p log 2 / 2 + log det L) - log Gamma_p(df / 2)
--- + (df - p - 1) / 2 log det(value) - tr(S^-1 value) / 2, S = L L^T the scale.
--- Example: torch.distributions.Wishart(3, {covarianceMatrix = torch.eye(2)}):logProb(torch.eye(2))
function Wishart:logProb(value)
  local v = self:_value(value, nil, self.df)
  local nu, p, L = self.df, self.eventShape[1], self._L
  local _, logabsdet = torch.linalg.slogdet(v)
  local halfLogdetL = half_logdet(L)
  -- tr(S^-1 V) = tr(L^-1 V L^-T), by two triangular solves.
  local X = torch.linalg.solveTriangular(L, v, { upper = false })
  local tr = util.sum_last(diag(torch.linalg.solveTriangular(L, mT(X), { upper = false })))
  return -torch.cmul(nu, halfLogdetL + p * LOG_2 / 2) - D._mvlgamma(nu * 0.5, p)
    + torch.cmul((nu - p - 1) * 0.5, logabsdet) - tr * 0.5
end

--- Wishart:entropy(): (p + 1) (p log 2 / 2 + log det L) + log Gamma_p(df / 2)
--- - (df - p - 1) / 2 psi_p(df / 2) + df p / 2, of size batchShape.
--- Example: torch.distributions.Wishart(3, {covarianceMatrix = torch.eye(2)}):entropy()
function Wishart:entropy()
  local nu, p = self.df, self.eventShape[1]
  local h = (half_logdet(self._L) + p * LOG_2 / 2) * (p + 1) + D._mvlgamma(nu * 0.5, p)
    - torch.cmul((nu - p - 1) * 0.5, D._mvdigamma(nu * 0.5, p)) + nu * (p / 2)
  return h:expand(self.batchShape)
end

return Wishart
