-- optim.SGD: stochastic gradient descent with momentum, dampening, Nesterov and weight decay
-- (PyTorch's SGD; the same fused update as optim.sgd). A sparse gradient (a sparse embedding's)
-- updates only its rows (Note [Sparse momentum] in torch/sparse_grad_optim.lua).
local lib = require 'torch.lib'
local fused = require 'optim.fused'

local SGD, Optimizer = torch.class('optim.SGD', 'optim.Optimizer')

local kinds = { lr = 'nonneg', momentum = 'nonneg', dampening = 'number', weightDecay = 'nonneg', nesterov = 'boolean' }
local defaults = { lr = 1e-3, momentum = 0, dampening = 0, weightDecay = 0, nesterov = false }

--- optim.SGD(params, {lr=1e-3, momentum=0, dampening=0, weightDecay=0, nesterov=false}): SGD over
--- a module's parameters, a list of tensors or a list of parameter groups; weightDecay is added
--- to the gradient and the first momentum step sets the buffer to the gradient (PyTorch and Torch7).
function SGD:__init(params, options)
  Optimizer.__init(self, 'SGD', params, options, kinds, defaults)
end

function SGD:_checkCombination(g)
  if g.nesterov and not ((g.momentum or 0) > 0 and (g.dampening or 0) == 0) then
    lib.fail(self._name, 'Nesterov momentum requires a momentum > 0 and zero dampening')
  end
end

local function dense_update(p, g, s, group)
  local first = false
  if group.momentum ~= 0 and not s.momentumBuffer then
    s.momentumBuffer = fused.buffer(p)
    first = true
  end
  fused.sgd(p, g, group.momentum ~= 0 and s.momentumBuffer or nil, group.lr, group.momentum, group.dampening,
            group.weightDecay, group.nesterov, first)
end
-- A dense step may give any row of the momentum buffer a value: the rows a sparse step tracks
-- (Note [Sparse momentum]) are then all of them.
function SGD:_update(p, g, s, group)
  s.momentumRows = nil
  return dense_update(p, g, s, group)
end

-- A sparse gradient: the rows it holds (PyTorch's sparse branch). Weight decay adds the whole
-- parameter to the gradient, which makes it dense: that update is the dense one (PyTorch 1.13
-- raises there instead, "add(sparse, dense) is not supported"; the dense step is its meaning).
function SGD:_updateSparse(p, g, s, group)
  local O = Optimizer._sparseOptim()
  local rows, vals = O.rows(g, group.maximize)
  if group.weightDecay ~= 0 then
    s.momentumRows = nil  -- (SGD:_update's reason)
    return dense_update(p, O.dense(p, rows, vals), s, group)
  end
  O.sgd(p, rows, vals, s, group.lr, group.momentum, group.dampening, group.nesterov, 'momentumBuffer', 'momentumRows')
end
