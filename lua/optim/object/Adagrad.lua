-- optim.Adagrad: PyTorch's Adagrad (learning-rate decay, initial accumulator), the same fused
-- update as optim.adagrad; a sparse gradient updates only its rows (PyTorch's sparse branch).
local lib = require 'torch.lib'
local fused = require 'optim.fused'

local Adagrad, Optimizer = torch.class('optim.Adagrad', 'optim.Optimizer')

local kinds = { lr = 'nonneg', lrDecay = 'nonneg', weightDecay = 'nonneg', eps = 'nonneg',
                initialAccumulatorValue = 'nonneg' }

--- optim.Adagrad(params, {lr=1e-2, lrDecay=0, weightDecay=0, eps=1e-10, initialAccumulatorValue=0}):
--- divides each step by the root of the summed squared gradients; lr/(1 + (step-1)*lrDecay).
function Adagrad:__init(params, options)
  Optimizer.__init(self, 'Adagrad', params, options, kinds,
                   { lr = 1e-2, lrDecay = 0, weightDecay = 0, eps = 1e-10, initialAccumulatorValue = 0 })
end

function Adagrad:_update(p, g, s, group)
  if not s.sum then
    s.step = 0
    s.sum = fused.buffer(p):fill(group.initialAccumulatorValue)
  end
  local clr = group.lr / (1 + s.step * group.lrDecay)
  s.step = s.step + 1
  fused.adagrad(p, g, s.sum, clr, group.eps, group.weightDecay)
end

-- A sparse gradient (a sparse embedding's): the rows it holds; weight decay is refused, as in
-- PyTorch (it would make the gradient dense).
function Adagrad:_updateSparse(p, g, s, group)
  if group.weightDecay ~= 0 then
    lib.fail(self._name, 'weightDecay is not compatible with sparse gradients (as in PyTorch)')
  end
  if not s.sum then
    s.step = 0
    s.sum = fused.buffer(p):fill(group.initialAccumulatorValue)
  end
  local clr = group.lr / (1 + s.step * group.lrDecay)
  s.step = s.step + 1
  local O = Optimizer._sparseOptim()
  local rows, vals = O.rows(g, group.maximize, s.sum)
  O.adagrad(p, rows, vals, s.sum, clr, group.eps)
end
