-- The row updates of SGD, Adagrad and SparseAdam for a sparse gradient (Note [Sparse embedding
-- gradients] in nn/LookupTable.lua), shared by optim's object API (optim.SGD...) and functional
-- one (optim.sgd...): each reads the coalesced rows of the gradient and touches only those rows of
-- the parameter and its state, with PyTorch 1.13's arithmetic (torch/optim/{sgd,adagrad}.py,
-- _functional.sparse_adam).
local torch = require 'torch.env'
local lib = require 'torch.lib'
local G = require 'torch.sparse_grad'

local O = {}
torch.sparse._gradOptim = O

-- The rows and values of g (coalesced in place), the values negated when maximize, in the type of
-- ref (a state buffer: float for half parameters).
function O.rows(g, maximize, ref)
  local rows, vals = G.rows(g)
  if ref and vals:type() ~= ref:type() then vals = vals:type(ref:type()) end
  if maximize then vals = torch.neg(vals) end
  return rows, vals
end

-- The dense equivalent of a sparse gradient (for updates that are dense in PyTorch too).
function O.dense(p, rows, vals)
  local d = p.new(p:size()):zero()
  if rows:nElement() > 0 then d:indexAdd(1, rows, vals:typeAs(p)) end
  return d
end

local function add_rows(p, rows, delta)
  if rows:nElement() > 0 then p:indexAdd(1, rows, delta:typeAs(p)) end
end

-- Note [Sparse momentum]: PyTorch's SGD keeps a sparse gradient's momentum buffer sparse: buf =
-- clone(g) at the first step, then buf = momentum * buf + (1 - dampening) * g, with every row it
-- ever held, and the parameter moves by all of them. Here the buffer is dense (as the dense path's,
-- so checkpoints look alike) and `touched` lists, sorted, the rows it holds: each step updates
-- those rows only, which gives PyTorch's (and the dense SGD's) numbers.
--- O.sgd(p, rows, vals, st, lr, momentum, dampening, nesterov, bufKey, rowsKey): one SGD step of p
--- on the rows given; st holds the momentum buffer under bufKey and its rows under rowsKey.
function O.sgd(p, rows, vals, st, lr, mom, damp, nesterov, bufKey, rowsKey)
  if mom == 0 then
    add_rows(p, rows, torch.mul(vals, -lr))
    return
  end
  local first = st[bufKey] == nil
  if first then
    local b = p.new(p:size()):zero()
    if b:type():find('Half') or b:type():find('BFloat16') then b = b:to('torch.FloatTensor') end
    st[bufKey] = b
    st[rowsKey] = rows:clone()
  elseif st[rowsKey] == nil then  -- a buffer left by dense steps: any row may be in it
    st[rowsKey] = torch.range(1, p:size(1)):long():to(rows:device())
  else
    st[rowsKey] = torch.unique(torch.cat({ st[rowsKey], rows }, 1))
  end
  local touched, buf = st[rowsKey], st[bufKey]
  if touched:nElement() == 0 then return end
  local sizes = p:size():totable()
  sizes[1] = touched:size(1)
  local gt = buf.new(torch.LongStorage(sizes)):zero()
  if rows:nElement() > 0 then gt:indexAdd(1, torch.searchsorted(touched, rows), vals:typeAs(buf)) end
  local b
  if first then b = gt:clone()
  else b = buf:index(1, touched):mul(mom):add(1 - damp, gt) end
  buf:indexCopy(1, touched, b)
  local step = nesterov and gt:add(mom, b) or b
  add_rows(p, touched, step:mul(-lr))
end

--- O.adagrad(p, rows, vals, sum, clr, eps): one Adagrad step on the rows given (PyTorch's sparse
--- branch: sum += g^2 on the rows, p -= clr * g / (sqrt(sum) + eps)).
function O.adagrad(p, rows, vals, sum, clr, eps)
  if rows:nElement() == 0 then return end
  vals = vals:typeAs(sum)
  sum:indexAdd(1, rows, torch.cmul(vals, vals))
  local std = sum:index(1, rows):sqrt():add(eps)
  add_rows(p, rows, torch.cdiv(vals, std):mul(-clr))
end

--- O.sparseAdam(p, rows, vals, m, v, step, lr, beta1, beta2, eps): PyTorch's SparseAdam step (a
--- lazy Adam: only the rows given move, their moments decay only when they appear; step counts
--- the parameter's steps, as in PyTorch).
function O.sparseAdam(p, rows, vals, m, v, step, lr, beta1, beta2, eps)
  if rows:nElement() == 0 then return end
  vals = vals:typeAs(m)
  local m_old = m:index(1, rows)
  local m_upd = torch.csub(vals, m_old):mul(1 - beta1)
  m:indexAdd(1, rows, m_upd)
  local v_old = v:index(1, rows)
  local v_upd = torch.cmul(vals, vals):csub(v_old):mul(1 - beta2)
  v:indexAdd(1, rows, v_upd)
  local numer = m_upd:add(m_old)
  local denom = v_upd:add(v_old):sqrt():add(eps)
  local bc1, bc2 = 1 - beta1 ^ step, 1 - beta2 ^ step
  local stepSize = lr * math.sqrt(bc2) / bc1
  add_rows(p, rows, numer:cdiv(denom):mul(-stepSize))
end

--- O.refuse(name): the error of an optimizer given a sparse gradient it cannot use (PyTorch's).
function O.refuse(name)
  lib.fail(name, 'does not support sparse gradients, please consider optim.SparseAdam instead')
end

return O
