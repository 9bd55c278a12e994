-- nn.KLDivCriterion([{logTarget = false, batchMean = false, sizeAverage = true}]): PyTorch's
-- KLDivLoss: target (probabilities, or log-probabilities with logTarget) against log-probability
-- input, y (log y - x) summed, then divided by the element count (sizeAverage), or by the batch
-- size with batchMean (the true KL per sample). Without options it is nn.DistKLDivCriterion.
require 'nn.FunctionalCriterion'
local A = require 'nn.functional_args'
local KL, parent = torch.class('nn.KLDivCriterion', 'nn.FunctionalCriterion')
local known = { logTarget = true, batchMean = true, sizeAverage = true }

function KL:__init(opts)
  local name = 'nn.KLDivCriterion'
  opts = A.opts(name, opts, known)
  parent.__init(self, opts.sizeAverage)
  self.logTarget = A.bool(name, opts.logTarget, 'logTarget', false)
  self.batchMean = A.bool(name, opts.batchMean, 'batchMean', false)
end

function KL:_reduction()
  if self.batchMean then return 'batchmean' end
  return self.sizeAverage and 'mean' or 'sum'
end

function KL:_loss(input, target, r)
  return nn.functional.klDiv(input, target, { logTarget = self.logTarget, reduction = r })
end

function KL:__tostring__()
  return string.format('nn.KLDivCriterion(%s%s)', self.logTarget and 'logTarget' or 'probabilities',
    self.batchMean and ', batchMean' or '')
end

return KL
