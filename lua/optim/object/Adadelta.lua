-- optim.Adadelta: PyTorch's Adadelta as an optimizer object (lr scaling the delta, maximize),
-- the same fused update as optim.adadelta.
local fused = require 'optim.fused'

local Adadelta, Optimizer = torch.class('optim.Adadelta', 'optim.Optimizer')

local kinds = { lr = 'nonneg', rho = 'unitclosed', eps = 'nonneg', weightDecay = 'nonneg', maximize = 'boolean',
                foreach = 'boolean' }

-- Note [Adadelta object vs optim.adadelta]: Torch7's Adadelta has no learning rate; PyTorch's
-- multiplies the delta by lr (1.0 by default, so the defaults agree). optim.adadelta ignores
-- config.learningRate as Torch7 did (Note [Adadelta ignores learningRate]) and runs the same fused
-- kernel with lr = 1; the kernel's expression is PyTorch's: delta = sqrt(accDelta + eps) / sqrt(squareAvg + eps) * g, p -= lr * delta.
-- maximize negates the gradient before weightDecay is added, as torch.optim does; foreach is
-- accepted and ignored (CUDA steps are batched anyway, Note [Multi-tensor optimizer steps]).

--- optim.Adadelta(params, {lr=1, rho=0.9, eps=1e-6, weightDecay=0, maximize=false}): Adadelta
--- (torch.optim.Adadelta): running averages of squared gradients and of squared updates, the
--- update scaled by lr; weightDecay added to the gradient.
--- Example: local w = torch.ones(2); w.grad = torch.Tensor{1, -2}; optim.Adadelta({w}, {lr = 1}):step(); print(w)
function Adadelta:__init(params, options)
  Optimizer.__init(self, 'Adadelta', params, options, kinds,
                   { lr = 1, rho = 0.9, eps = 1e-6, weightDecay = 0, maximize = false })
end

function Adadelta:_update(p, g, s, group)
  if not s.squareAvg then
    s.step = 0
    s.squareAvg = fused.buffer(p)
    s.accDelta = fused.buffer(p)
  end
  s.step = s.step + 1
  if group.maximize then g = torch.noGrad(torch.neg, g) end
  fused.adadelta(p, g, s.squareAvg, s.accDelta, group.lr, group.rho, group.eps, group.weightDecay)
end
