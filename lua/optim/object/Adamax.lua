-- optim.Adamax: PyTorch's Adamax as an optimizer object (Adam with an infinity-norm second
-- moment), the same fused update as optim.adamax.
local fused = require 'optim.fused'

local Adamax, Optimizer = torch.class('optim.Adamax', 'optim.Optimizer')

local kinds = { lr = 'nonneg', betas = 'betas', eps = 'nonneg', weightDecay = 'nonneg', maximize = 'boolean',
                foreach = 'boolean' }

-- Note [Adamax object vs optim.adamax]: both run the fused adamaxStep kernel, whose expressions
-- are torch.optim.Adamax's (expInf = max(beta2*expInf, |g| + eps), p -= lr/(1 - beta1^t) *
-- expAvg/expInf). Only the defaults differ: Torch7's epsilon is 1e-38, PyTorch's eps 1e-8, and
-- this object takes PyTorch's. maximize negates the gradient before weightDecay is added, as
-- torch.optim does; foreach is accepted and ignored.

--- optim.Adamax(params, {lr=2e-3, betas={0.9, 0.999}, eps=1e-8, weightDecay=0, maximize=false}):
--- AdaMax (torch.optim.Adamax): Adam whose second moment is an exponentially weighted infinity
--- norm; weightDecay added to the gradient.
--- Example: local w = torch.ones(2); w.grad = torch.Tensor{1, -2}; optim.Adamax({w}, {lr = 0.1}):step(); print(w)
function Adamax:__init(params, options)
  Optimizer.__init(self, 'Adamax', params, options, kinds,
                   { lr = 2e-3, betas = { 0.9, 0.999 }, eps = 1e-8, weightDecay = 0, maximize = false })
end

function Adamax:_update(p, g, s, group)
  if not s.expAvg then
    s.step = 0
    s.expAvg = fused.buffer(p)
    s.expInf = fused.buffer(p)
  end
  s.step = s.step + 1
  if group.maximize then g = torch.noGrad(torch.neg, g) end
  fused.adamax(p, g, s.expAvg, s.expInf, s.step, group.lr, group.betas[1], group.betas[2], group.eps,
               group.weightDecay)
end
