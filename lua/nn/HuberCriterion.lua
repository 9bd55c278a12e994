-- nn.HuberCriterion([delta = 1] [, sizeAverage = true]): PyTorch's HuberLoss: 0.5 d^2 where |d| <
-- delta, delta (|d| - 0.5 delta) elsewhere (d = input - target), averaged (or summed). With delta
-- 1 it is nn.SmoothL1Criterion. Computed by nn.functional.huberLoss.
require 'nn.FunctionalCriterion'
local A = require 'nn.functional_args'
local Huber, parent = torch.class('nn.HuberCriterion', 'nn.FunctionalCriterion')

function Huber:__init(delta, sizeAverage)
  parent.__init(self, sizeAverage)
  self.delta = A.number('nn.HuberCriterion', delta, 'delta', 1)
  if self.delta <= 0 then A.fail('nn.HuberCriterion', 'delta must be positive, got %g', self.delta) end
end

function Huber:_loss(input, target, r)
  return nn.functional.huberLoss(input, target, { delta = self.delta, reduction = r })
end

function Huber:__tostring__() return string.format('nn.HuberCriterion(delta %g)', self.delta) end

return Huber
