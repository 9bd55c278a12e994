-- optim.RMSprop: PyTorch's RMSprop (momentum and centered variants), the same fused update as
-- optim.rmsprop.
local fused = require 'optim.fused'

local RMSprop, Optimizer = torch.class('optim.RMSprop', 'optim.Optimizer')

local kinds = { lr = 'nonneg', alpha = 'unitclosed', eps = 'nonneg', weightDecay = 'nonneg', momentum = 'nonneg',
                centered = 'boolean' }

--- optim.RMSprop(params, {lr=1e-2, alpha=0.99, eps=1e-8, weightDecay=0, momentum=0, centered=false}):
--- divides the gradient by a running root mean square (minus the squared running mean when centered).
function RMSprop:__init(params, options)
  Optimizer.__init(self, 'RMSprop', params, options, kinds,
                   { lr = 1e-2, alpha = 0.99, eps = 1e-8, weightDecay = 0, momentum = 0, centered = false })
end

function RMSprop:_update(p, g, s, group)
  if not s.squareAvg then
    s.step = 0
    s.squareAvg = fused.buffer(p)
  end
  if group.centered and not s.gradAvg then s.gradAvg = fused.buffer(p) end
  if group.momentum ~= 0 and not s.momentumBuffer then s.momentumBuffer = fused.buffer(p) end
  s.step = s.step + 1
  fused.rmsprop(p, g, s.squareAvg, group.centered and s.gradAvg or nil,
                group.momentum ~= 0 and s.momentumBuffer or nil, group.lr, group.alpha, group.eps, group.weightDecay,
                group.momentum)
end
