-- optim.NAdam: PyTorch's NAdam as an optimizer object (the update of optim.nadam).
require 'optim.nadam'
local NAdam, Optimizer = torch.class('optim.NAdam', 'optim.Optimizer')

local kinds = { lr = 'nonneg', betas = 'betas', eps = 'nonneg', weightDecay = 'nonneg', momentumDecay = 'nonneg',
                foreach = 'boolean' }  -- foreach: torch.optim 1.13's, accepted and ignored

--- optim.NAdam(params, {lr=2e-3, betas={0.9, 0.999}, eps=1e-8, weightDecay=0, momentumDecay=4e-3}):
--- Adam with Nesterov momentum (torch.optim.NAdam), weightDecay added to the gradient.
function NAdam:__init(params, options)
  Optimizer.__init(self, 'NAdam', params, options, kinds,
                   { lr = 2e-3, betas = { 0.9, 0.999 }, eps = 1e-8, weightDecay = 0, momentumDecay = 4e-3 })
end

function NAdam:_update(p, g, s, group)
  torch.noGrad(optim._nadamUpdate, p, g, s, group.lr, group.betas[1], group.betas[2], group.eps, group.weightDecay,
    group.momentumDecay)
end
