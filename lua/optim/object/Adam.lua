-- optim.Adam and optim.AdamW (decoupled weight decay): PyTorch's options, the same fused update
-- as optim.adam / optim.adamw (epsilon placement: Note [Adam epsilon] in core/ops/optim.cpp).
local fused = require 'optim.fused'

local Adam, Optimizer = torch.class('optim.Adam', 'optim.Optimizer')
local AdamW = torch.class('optim.AdamW', 'optim.Adam')

local kinds = { lr = 'nonneg', betas = 'betas', eps = 'nonneg', weightDecay = 'nonneg', amsgrad = 'boolean',
                epsMode = 'epsMode' }

--- optim.Adam(params, {lr=1e-3, betas={0.9, 0.999}, eps=1e-8, weightDecay=0, amsgrad=false,
--- epsMode='torch7'}): Adam with L2 weight decay added to the gradient. epsMode 'torch7' adds eps
--- to sqrt(v) like optim.adam; 'pytorch' adds it to the bias-corrected sqrt like torch.optim.Adam.
function Adam:__init(params, options)
  Optimizer.__init(self, 'Adam', params, options, kinds,
                   { lr = 1e-3, betas = { 0.9, 0.999 }, eps = 1e-8, weightDecay = 0, amsgrad = false, epsMode = 'torch7' })
  self._decoupled = false
end

--- optim.AdamW(params, {lr=1e-3, betas={0.9, 0.999}, eps=1e-8, weightDecay=1e-2, amsgrad=false,
--- epsMode='torch7'}): Adam with decoupled weight decay (param *= 1 - lr*weightDecay each step).
function AdamW:__init(params, options)
  Optimizer.__init(self, 'AdamW', params, options, kinds,
                   { lr = 1e-3, betas = { 0.9, 0.999 }, eps = 1e-8, weightDecay = 1e-2, amsgrad = false, epsMode = 'torch7' })
  self._decoupled = true
end

function Adam:_update(p, g, s, group)
  if not s.expAvg then
    s.step = 0
    s.expAvg = fused.buffer(p)
    s.expAvgSq = fused.buffer(p)
  end
  if group.amsgrad and not s.maxExpAvgSq then s.maxExpAvgSq = fused.buffer(p) end
  s.step = s.step + 1
  fused.adam(p, g, s.expAvg, s.expAvgSq, group.amsgrad and s.maxExpAvgSq or nil, s.step, group.lr, group.betas[1],
             group.betas[2], group.eps, group.weightDecay, self._decoupled, group.epsMode == 'pytorch' and 1 or 0)
end
