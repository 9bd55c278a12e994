-- optim.RAdam: PyTorch's RAdam as an optimizer object (the update of optim.radam).
require 'optim.radam'
local RAdam, Optimizer = torch.class('optim.RAdam', 'optim.Optimizer')

local kinds = { lr = 'nonneg', betas = 'betas', eps = 'nonneg', weightDecay = 'nonneg',
                foreach = 'boolean' }  -- foreach: torch.optim 1.13's, accepted and ignored

--- optim.RAdam(params, {lr=1e-3, betas={0.9, 0.999}, eps=1e-8, weightDecay=0}): rectified Adam
--- (torch.optim.RAdam), weightDecay added to the gradient.
function RAdam:__init(params, options)
  Optimizer.__init(self, 'RAdam', params, options, kinds, { lr = 1e-3, betas = { 0.9, 0.999 }, eps = 1e-8, weightDecay = 0 })
end

function RAdam:_update(p, g, s, group)
  torch.noGrad(optim._radamUpdate, p, g, s, group.lr, group.betas[1], group.betas[2], group.eps, group.weightDecay)
end
