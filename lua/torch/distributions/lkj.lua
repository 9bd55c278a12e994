-- torch.distributions.LKJCholesky: the LKJ distribution over lower Cholesky factors L of
-- dim x dim correlation matrices (L L^T has a unit diagonal), density of the correlation matrix
-- proportional to det(L L^T)^(concentration - 1); sampled by the onion method as PyTorch (which
-- follows NumPyro).
local torch = require 'torch.env'
local util = require 'torch.distributions.util'
local constraints = require 'torch.distributions.constraints'
local D = torch.distributions
require 'torch.distributions.wishart'  -- D._mvlgamma

local LKJ = torch.class('torch.distributions.LKJCholesky', 'torch.distributions.Distribution', D)
LKJ.hasRsample = false
LKJ._params = { 'concentration' }

-- Rows of unit norm on top of lowerCholesky (PyTorch's corr_cholesky), should constraints.lua
-- not provide it.
local corrCholesky = constraints.corrCholesky or {
  desc = 'lower triangular with a positive diagonal and rows of unit norm', eventDim = 2,
  check = function(x)
    local tol = util.eps(x) * x:size(x:dim()) * 10
    local rowNorm = torch.sqrt(util.sum_last(torch.pow(x:detach():double(), 2)))
    local unit = torch.eq(util.sum_last(torch.gt(torch.abs(rowNorm - 1), tol):double()), 0)
    return torch.logicalAnd(constraints.lowerCholesky.check(x), unit)
  end,
}

--- torch.distributions.LKJCholesky(dim, concentration [, {validateArgs=}]): distribution over the
--- lower Cholesky factors of dim x dim correlation matrices (dim >= 2), with concentration
--- eta > 0 (a number or a tensor, the batch; default 1, uniform over correlation matrices).
--- eventShape is {dim, dim}. No rsample (the Beta draws of the onion method carry no gradient here).
--- Example: torch.distributions.LKJCholesky(3, 0.5):sample()
function LKJ:__init(dim, ...)
  local op = self:_op()
  if type(dim) ~= 'number' or dim ~= math.floor(dim) or dim < 2 then
    util.fail(op, 'dim must be an integer >= 2, got %s', type(dim) == 'number' and tostring(dim) or util.describe(dim))
  end
  local a, validate = util.args(op, { 'concentration' }, ...)
  if a.concentration == nil then a.concentration = 1 end
  local c = util.broadcast_all(op, { 'concentration' }, { a.concentration })[1]
  self.dim, self.concentration = dim, c
  self:_setup(c:size(), torch.LongStorage({ dim, dim }), validate)
  self:_check('concentration', constraints.positive, c)
end

--- LKJCholesky:support(): lower triangular matrices with a positive diagonal and rows of unit norm.
--- Example: torch.distributions.LKJCholesky(2):support().desc
function LKJ:support() return corrCholesky end

-- Note [Onion method]: row i of L (i = 2..dim) is sqrt(y_i) u_i on its first i - 1 entries and
-- sqrt(1 - y_i) on the diagonal, u_i uniform on the unit sphere (a normalized normal vector) and
-- y_i ~ Beta((i - 1) / 2, eta + (dim - i) / 2) (Lewandowski, Kurowicka and Joe, 2009, section
-- 3.2: y ~ Beta(k / 2, beta) with beta decreasing by 1/2 per row), vectorized over the rows as
-- PyTorch (row 1 takes y = 0 through a zero u). With offset = (0, 0, 1, ..., dim - 2) the Beta
-- parameters are (offset + 1) / 2 and eta + (dim - 2) / 2 - offset / 2, as NumPyro's. PyTorch
-- 1.13 takes offset + 1/2 for the first (its port dropped NumPyro's halving of the offset): its
-- rows 3.. are drawn too close to the sphere, so its correlations are overdispersed for dim >= 3
-- (dim 3, eta 1/2: var(r_31) = 0.375 instead of the LKJ marginal's 1/3; rows 1 and 2 are right).
-- This follows the paper; the suite checks the marginals and the normalization by importance
-- sampling against logProb, which does match PyTorch.

--- LKJCholesky:sample([sampleShape]): onion-method draws (Note [Onion method]), of size
--- sampleShape .. batchShape .. {dim, dim}; L L^T is a draw of LKJ's correlation matrix.
--- Example: torch.distributions.LKJCholesky(3, 2):sample({4})
function LKJ:sample(shape)
  return torch.noGrad(function()
    local s = self:_extendedShape(shape)
    local n, c = self.dim, self.concentration
    local offset = torch.cat({ torch.zeros(1), torch.arange(0, n - 1) }, 1):to(c:device(), util.cpu_type(c))
    local conc1 = ((offset + 1) * 0.5):expand(util.cat(self.batchShape, { n }))
    local conc0 = (c + 0.5 * (n - 2)):unsqueeze(-1) - offset * 0.5
    local beta = D.Beta(conc1, conc0, { validateArgs = false })
    local y = beta:sample(util.slice(s, 1, #s - 2 - #self.batchShape)):unsqueeze(-1)
    local u = torch.tril(util.empty(c, s):normal(), -1)
    -- Row 1 of u is all zeros: the clamp keeps it zero instead of 0 / 0.
    local norm = torch.sqrt(torch.sum(torch.pow(u, 2), u:dim()))
    local w = torch.cmul(torch.sqrt(y), u / torch.clampMin(norm, util.tiny(norm)))
    local d = torch.sqrt(torch.clampMin(1 - util.sum_last(torch.pow(w, 2)), util.tiny(w)))
    return w + torch.diagEmbed(d)
  end)
end

--- LKJCholesky:logProb(value): sum_{i=2..dim} (2 (eta - 1) + dim - i) log L_ii minus the log
--- normalizer (LKJ's, page 1999 of Lewandowski et al., with the Jacobian of L -> L L^T).
--- Example: torch.distributions.LKJCholesky(2, 1.5):logProb(torch.Tensor({{1, 0}, {0.6, 0.8}}))
function LKJ:logProb(value)
  local v = self:_value(value, nil, self.concentration)
  local n, c = self.dim, self.concentration
  local diag = torch.diagonal(v, 0, -2, -1):narrow(-1, 2, n - 1)
  local order = torch.arange(2, n + 1):to(c:device(), util.cpu_type(c))
  order = ((c - 1) * 2):unsqueeze(-1) + n - order
  local unnormalized = util.sum_last(torch.cmul(order, torch.log(diag)))
  local dm1 = n - 1
  local alpha = c + 0.5 * dm1
  local denominator = torch.lgamma(alpha) * dm1
  local numerator = D._mvlgamma(alpha - 0.5, dm1)
  -- pi_constant in the paper is D (D - 1) / 4 log(pi), in mvlgamma (D - 1) (D - 2) / 4 log(pi).
  local piConstant = 0.5 * dm1 * math.log(math.pi)
  return unnormalized - (numerator - denominator + piConstant)
end

return LKJ
