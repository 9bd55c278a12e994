-- optim.SparseAdam: PyTorch's SparseAdam, the lazy Adam for sparse gradients (sparse embeddings):
-- only the rows present in a step's gradient move, and only their moments decay (Note [Sparse
-- embedding gradients] in nn/LookupTable.lua; the update is torch/sparse_grad_optim.lua's).
local lib = require 'torch.lib'
local fused = require 'optim.fused'

local SparseAdam, Optimizer = torch.class('optim.SparseAdam', 'optim.Optimizer')

local kinds = { lr = 'nonneg', betas = 'betas', eps = 'nonneg', maximize = 'boolean' }

--- optim.SparseAdam(params, {lr=1e-3, betas={0.9, 0.999}, eps=1e-8, maximize=false}): Adam for
--- sparse gradients (PyTorch's): each step updates the moments and values of the gradient's rows
--- only, with the bias correction of the parameter's step count; eps is added to sqrt(v) before
--- the bias correction, as PyTorch's SparseAdam. A dense gradient is an error (use optim.Adam).
--- Example: local e = nn.LookupTable(100, 8, {sparse = true}); local opt = optim.SparseAdam(e, {lr = 1e-2})
function SparseAdam:__init(params, options)
  Optimizer.__init(self, 'SparseAdam', params, options, kinds,
                   { lr = 1e-3, betas = { 0.9, 0.999 }, eps = 1e-8, maximize = false })
end

function SparseAdam:_update()
  lib.fail(self._name, 'does not support dense gradients, please consider optim.Adam instead')
end

function SparseAdam:_updateSparse(p, g, s, group)
  if not s.expAvg then
    s.step = 0
    s.expAvg = fused.buffer(p)
    s.expAvgSq = fused.buffer(p)
  end
  s.step = s.step + 1
  local O = Optimizer._sparseOptim()
  local rows, vals = O.rows(g, group.maximize, s.expAvg)
  O.sparseAdam(p, rows, vals, s.expAvg, s.expAvgSq, s.step, group.lr, group.betas[1], group.betas[2], group.eps)
end
