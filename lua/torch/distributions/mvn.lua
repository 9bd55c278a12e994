-- torch.distributions.MultivariateNormal: loc with one of covarianceMatrix, precisionMatrix or
-- scaleTril; everything goes through the Cholesky factor scaleTril (L, covariance L L^T).
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local ST = require 'torch.distributions.scale_tril'
local D = torch.distributions

local MVN = torch.class('torch.distributions.MultivariateNormal', 'torch.distributions.Distribution', D)
MVN.hasRsample = true
MVN._params = { 'loc', 'scaleTril', 'covarianceMatrix', 'precisionMatrix' }
local LOG_2PI = math.log(2 * math.pi)

--- torch.distributions.MultivariateNormal(loc, covarianceMatrix | nil, precisionMatrix | nil,
--- scaleTril | nil [, {validateArgs=}]): the normal distribution over vectors of size n (loc's
--- last dim) with one of the three matrices (n x n, batch dims broadcast with loc's); e.g.
--- MultivariateNormal(mu, {scaleTril = L}). eventShape is {n}.
--- Example: torch.distributions.MultivariateNormal(torch.zeros(2), {covarianceMatrix = torch.eye(2)}):sample({3})
function MVN:__init(...)
  local op = self:_op()
  local a, validate = util.args(op, { 'loc', 'covarianceMatrix', 'precisionMatrix', 'scaleTril' }, ...)
  local which = ST.which(op, a)
  local t = util.convert(op, { 'loc', which }, { a.loc, a[which] })
  local loc, M = t[1], t[2]
  if loc:dim() < 1 then util.fail(op, 'loc must be a vector (or a batch of them), got %s', util.describe(loc)) end
  local n = loc:size(loc:dim())
  if M:dim() < 2 or M:size(M:dim()) ~= n or M:size(M:dim() - 1) ~= n then
    util.fail(op, '%s must be %dx%d (or a batch of them) to match loc %s, got %s', which, n, n, util.describe(loc), util.describe(M))
  end
  local ok, batch = pcall(torch.broadcastShapes, util.slice(loc:size(), 1, -2), util.slice(M:size(), 1, -3))
  if not ok then util.fail(op, 'the batch dims of loc %s and %s %s do not broadcast', util.describe(loc), which, util.describe(M)) end
  self:_setup(batch, torch.LongStorage({ n }), validate)
  self:_check('loc', constraints.realVector, loc)
  self:_check(which, which == 'scaleTril' and constraints.lowerCholesky or constraints.positiveDefinite, M)
  local L = ST.scaleTril(which, M)
  self.loc = loc:expand(util.cat(batch, { n }))
  self.scaleTril, self.covarianceMatrix, self.precisionMatrix = ST.matrices(which, M, L, util.cat(batch, { n, n }))
end
--- MultivariateNormal:support(): real vectors.
--- Example: torch.distributions.MultivariateNormal(torch.zeros(2), {scaleTril = torch.eye(2)}):support().desc
function MVN:support() return constraints.realVector end

--- MultivariateNormal:rsample([sampleShape]): loc + L eps, eps standard normal vectors
--- (differentiable in loc and the matrix).
--- Example: torch.distributions.MultivariateNormal(torch.zeros(2), {scaleTril = torch.eye(2)}):rsample({4})
function MVN:rsample(shape)
  local s = self:_extendedShape(shape)
  local eps = util.empty(self.loc, s):normal()
  local d = eps:dim()
  return self.loc + torch.matmul(self.scaleTril, eps:view(util.cat(s, { 1 }))):squeeze(d + 1)
end

-- Sum of log diag(L): half the log-determinant of the covariance, of size batchShape.
function MVN:_halfLogDet() return util.sum_last(torch.log(torch.diagonal(self.scaleTril, 0, -2, -1))) end

--- MultivariateNormal:logProb(value): -(n log(2 pi) + |L^-1 (value - loc)|^2) / 2 - sum log diag L.
--- Example: torch.distributions.MultivariateNormal(torch.zeros(2), {covarianceMatrix = torch.eye(2)}):logProb(torch.ones(2))
function MVN:logProb(value)
  local v = self:_value(value, nil, self.loc)
  local diff = v - self.loc
  local ds, n = diff:size(), self.eventShape[1]
  local L = self.scaleTril:expand(util.cat(util.slice(ds, 1, -2), { n, n }))
  local z = torch.linalg.solveTriangular(L, diff:view(util.cat(ds, { 1 })), { upper = false })
  local m = util.sum_rightmost(torch.pow(z, 2), 2)
  return -(m + n * LOG_2PI) * 0.5 - self:_halfLogDet()
end
--- MultivariateNormal:entropy(): n (1 + log(2 pi)) / 2 + sum log diag L.
--- Example: torch.distributions.MultivariateNormal(torch.zeros(2), {covarianceMatrix = torch.eye(2) * 2}):entropy()
function MVN:entropy()
  local n = self.eventShape[1]
  return self:_halfLogDet() + 0.5 * n * (1 + LOG_2PI)
end
--- MultivariateNormal:mean(): loc (the mode too); variance() the covariance's diagonal.
--- Example: torch.distributions.MultivariateNormal(torch.zeros(2), {covarianceMatrix = torch.eye(2) * 3}):variance()
function MVN:mean() return self.loc end
--- MultivariateNormal:mode(): loc.
--- Example: torch.distributions.MultivariateNormal(torch.ones(2), {scaleTril = torch.eye(2)}):mode()
function MVN:mode() return self.loc end
--- MultivariateNormal:variance(): the diagonal of covarianceMatrix, of size batchShape .. {n}.
--- Example: torch.distributions.MultivariateNormal(torch.zeros(2), {covarianceMatrix = torch.eye(2) * 3}):variance()
function MVN:variance() return util.sum_last(torch.pow(self.scaleTril, 2)):expand(util.cat(self.batchShape, self.eventShape)) end

return MVN
