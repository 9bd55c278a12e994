-- nn.GaussianNLLCriterion([{full = false, eps = 1e-6, sizeAverage = true}]): PyTorch's
-- GaussianNLLLoss on input {mean, var} and the target: 0.5 (log v + (mean - target)^2 / v), v =
-- max(var, eps) (+ 0.5 log(2 pi) when full). var is like mean or has one value per sample.
-- Computed by nn.functional.gaussianNllLoss; gradInput is {gradMean, gradVar}.
require 'nn.FunctionalCriterion'
local A = require 'nn.functional_args'
local Gaussian, parent = torch.class('nn.GaussianNLLCriterion', 'nn.FunctionalCriterion')
local known = { full = true, eps = true, sizeAverage = true }

function Gaussian:__init(opts)
  local name = 'nn.GaussianNLLCriterion'
  opts = A.opts(name, opts, known)
  parent.__init(self, opts.sizeAverage)
  self.full = A.bool(name, opts.full, 'full', false)
  self.eps = A.number(name, opts.eps, 'eps', 1e-6)
end

function Gaussian:_loss(input, target, r)
  if type(input) ~= 'table' or torch.isTensor(input) or #input ~= 2 then
    A.fail(torch.typename(self), 'expected a table {mean, var}, got %s', nn.utils.describe(input))
  end
  return nn.functional.gaussianNllLoss(input[1], target, input[2], { full = self.full, eps = self.eps, reduction = r })
end

function Gaussian:__tostring__() return string.format('nn.GaussianNLLCriterion(%s)', self.full and 'full' or '') end

return Gaussian
