-- nn.PoissonNLLCriterion([{logInput = true, full = false, eps = 1e-8, sizeAverage = true}]):
-- PyTorch's PoissonNLLLoss: exp(x) - y x with logInput (x = log rate), else x - y log(x + eps);
-- full adds Stirling's approximation of log(y!). Computed by nn.functional.poissonNllLoss.
require 'nn.FunctionalCriterion'
local A = require 'nn.functional_args'
local Poisson, parent = torch.class('nn.PoissonNLLCriterion', 'nn.FunctionalCriterion')
local known = { logInput = true, full = true, eps = true, sizeAverage = true }

function Poisson:__init(opts)
  local name = 'nn.PoissonNLLCriterion'
  opts = A.opts(name, opts, known)
  parent.__init(self, opts.sizeAverage)
  self.logInput = A.bool(name, opts.logInput, 'logInput', true)
  self.full = A.bool(name, opts.full, 'full', false)
  self.eps = A.number(name, opts.eps, 'eps', 1e-8)
end

function Poisson:_loss(input, target, r)
  return nn.functional.poissonNllLoss(input, target,
    { logInput = self.logInput, full = self.full, eps = self.eps, reduction = r })
end

function Poisson:__tostring__()
  return string.format('nn.PoissonNLLCriterion(%s%s)', self.logInput and 'logInput' or 'rates', self.full and ', full' or '')
end

return Poisson
