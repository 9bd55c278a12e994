-- Sparse gradients of dense parameters (PyTorch's nn.Embedding(sparse=True)): the accumulator
-- that a sparse embedding's rows and their gradients go into, how `p.grad` answers it, and the
-- row gather whose backward feeds it (Note [Sparse embedding gradients] in nn/LookupTable.lua).
-- Optimizers read the gradient through G.rows (coalesced rows and values).
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local U = require 'torch.sparse_util'
require 'torch.sparse'
local fail = lib.fail
local mt = U.mt
local hooks = torch._tensor_hooks

local G = {}
torch.sparse._grad = G

-- The parameter (its tensor handle, the object modules and optimizers hold) -> its SparseTensor
-- gradient. Weak keys: a parameter that is gone takes its gradient with it.
local of = setmetatable({}, { __mode = 'k' })
local any = false

-- An empty sparse gradient for a parameter p (sparse dim 1: values are rows of p).
local function empty_parts(p)
  local dense = {}
  for d = 2, p:dim() do dense[#dense + 1] = p:size(d) end
  local vsize = { 0 }
  for _, s in ipairs(dense) do vsize[#vsize + 1] = s end
  return U.empty(p, { 1, 0 }, types.I64), U.empty(p, vsize)
end

--- torch.sparse._grad.new(p): an empty SparseTensor gradient of p's size (rows of p as values),
--- marked as an accumulator (Note [Sparse embedding gradients]).
function G.new(p)
  local i, v = empty_parts(p)
  local S = U.new(i, v, p:size():totable(), true)
  S._accumulator = true
  return S
end

--- torch.sparse._grad.register(p, S): p.grad answers S from now on (S nil: forgets p's).
function G.register(p, S)
  of[p] = S
  if S then any = true end
  return S
end

--- torch.sparse._grad.of(p [, create]): p's sparse gradient (created and registered when create).
function G.of(p, create)
  local S = any and of[p] or nil
  if not S and create then S = G.register(p, G.new(p)) end
  return S
end

-- Note [Sparse grad property]: the engine's .grad is a dense C++ tensor, so a parameter with a
-- sparse gradient keeps none there and p.grad answers the registered SparseTensor (an empty one,
-- nnz 0, until a backward fills it); p.grad = nil empties it, p.grad = S (sparse) sets it.
-- Note [Sparse and dense contributions]: a weight may also get a dense gradient: one tied to a
-- dense layer (a language model's nn.Linear decoder sharing the sparse embedding's weight), or
-- used by dense ops besides a sparse embedding. PyTorch then sums them into a dense .grad. Here
-- the dense part lands in the C++ .grad (autograd's accumulation, or p.grad = the tied layer's
-- gradWeight set by nn.utils.linkGradients); reading p.grad then adds the sparse rows into it
-- and empties the SparseTensor, so p.grad is the dense sum, as PyTorch's. Before, the dense part
-- was silently dropped (p.grad answered the sparse rows only) and p.grad = dense raised.
local dense_get, dense_set = hooks.properties.grad, hooks.setters.grad
hooks.properties.grad = function(t)
  if any then
    local S = of[t]
    if S then
      local d = dense_get(t)
      if d == nil then return S end
      if S._indices:size(2) > 0 then  -- Note [Sparse and dense contributions]
        local rows, vals = G.rows(S)
        torch.noGrad(function() d:indexAdd(1, rows, vals:typeAs(d)) end)
        S:zero()
      end
      return d
    end
  end
  return dense_get(t)
end
hooks.setters.grad = function(t, g)
  local S = any and of[t] or nil
  if S then
    if g == nil then
      S:zero()
      if dense_get(t) ~= nil then dense_set(t, nil) end
      return
    end
    if not U.is_sparse(g) then  -- a dense gradient (Note [Sparse and dense contributions])
      S:zero()
      return dense_set(t, g)
    end
    if dense_get(t) ~= nil then dense_set(t, nil) end
    G.set(S, g)
    return
  end
  if U.is_sparse(g) then
    S = G.register(t, G.new(t))
    if dense_get(t) ~= nil then dense_set(t, nil) end
    G.set(S, g)
    return
  end
  return dense_set(t, g)
end

--- torch.sparse._grad.zeroDense(p): zeroes the dense part of p's gradient, if any (Note [Sparse
--- and dense contributions]): zeroGradParameters of a sparse module clears it with the rows.
function G.zeroDense(p)
  local d = dense_get(p)
  if d ~= nil then torch.noGrad(d.zero, d) end
end

--- torch.sparse._grad.convert(S, typename, cache): S with values of typename, a new accumulator
--- when it changes; cache (a module:type cache) keeps one conversion per SparseTensor, so
--- modules sharing one sparse gradient still share it after m:type().
function G.convert(S, name_, cache)
  if cache and cache[S] then return cache[S] end
  local conv = S:type(name_)
  if not rawequal(conv, S) then conv._accumulator = true end
  if cache then cache[S] = conv end
  return conv
end

-- S takes g's entries (copied; g's size must be S's).
function G.set(S, g)
  if table.concat(g._size, 'x') ~= table.concat(S._size, 'x') or g._indices:size(1) ~= 1 then
    fail('grad', 'expected a SparseTensor of size %s with one sparse dim, got %s', table.concat(S._size, 'x'), U.describe(g))
  end
  S._indices, S._values, S._coalesced = g._indices:clone(), g._values:detach():clone(), g._coalesced
  return S
end

--- S:zero(): S with no entries (nnz 0), in place: a sparse gradient is cleared in O(1).
--- Example: torch.eye(3):toSparse():zero():nnz()
function mt:zero()
  local sizes = { 0 }
  for d = self._indices:size(1) + 1, #self._size do sizes[#sizes + 1] = self._size[d] end
  self._indices = U.empty(self._indices, { self._indices:size(1), 0 }, types.I64)
  self._values = U.empty(self._values, sizes)
  self._coalesced = true
  return self
end

--- S:storage(): an error: a SparseTensor has no storage (as PyTorch), so a model with a sparse
--- gradient cannot be flattened by getParameters().
--- Example: pcall(function() return torch.eye(2):toSparse():storage() end)
function mt:storage()
  fail('getParameters', 'a sparse gradient (nn.LookupTable/Embedding/EmbeddingBag with sparse = true) has no storage ' ..
    'to flatten: use parameters() with optim.SGD, optim.Adagrad or optim.SparseAdam, or turn sparse off (m:setSparse(false))')
end

--- S:isSameSizeAs(x): true when x (dense or sparse) has S's size.
--- Example: torch.eye(2):toSparse():isSameSizeAs(torch.eye(2))
function mt:isSameSizeAs(x)
  local n = x:dim()
  if n ~= #self._size then return false end
  for d = 1, n do if x:size(d) ~= self._size[d] then return false end end
  return true
end

-- Appends rows idx (1-D LongTensor) with values vals (nnz x ...) to the accumulator S; vals is
-- copied unless own is true.
function G.accumulate(S, idx, vals, own)
  if idx:nElement() == 0 then return S end
  local i = idx:contiguous():view(1, -1)
  if i.p.device_type ~= S._values.p.device_type or i.p.device_index ~= S._values.p.device_index then i = i:to(S._values:device()) end
  vals = vals:detach()
  if vals:type() ~= S._values:type() then vals = vals:type(S._values:type()) own = true end
  if S._indices:size(2) == 0 then
    S._indices = i:clone()
    S._values = own and vals:contiguous() or vals:clone()
    S._coalesced = idx:nElement() == 1
  else
    S._indices = torch.cat({ S._indices, i }, 2)
    S._values = torch.cat({ S._values, vals }, 1)
    S._coalesced = false
  end
  return S
end

-- Note [Accumulating add]: nn's Torch7 paths add a gradient into the gradient tensor in place
-- (grads[i]:add(scale, g) in nn.utils.autogradBackward); a SparseTensor's add is PyTorch's
-- out-of-place one, so an accumulator's add(alpha, x) appends instead (x sparse, or dense: its
-- non-zero rows) and returns itself. Other SparseTensors keep the out-of-place add.
local sparse_add = mt.add
function mt:add(a, b)
  if not rawget(self, '_accumulator') then return sparse_add(self, a, b) end
  local alpha, x = 1, a
  if type(a) == 'number' then alpha, x = a, b elseif type(b) == 'number' then alpha = b end
  if U.is_sparse(x) then
    G.accumulate(self, x._indices[1], alpha == 1 and x._values or torch.mul(x._values, alpha), alpha ~= 1)
  elseif torch.isTensor(x) then
    local flat = x:contiguous():view(x:size(1), -1)
    local rows = torch.nonzero(torch.ne(flat, 0):sum(2):view(-1)):view(-1)
    if rows:nElement() > 0 then
      local vals = x:index(1, rows)
      G.accumulate(self, rows, alpha == 1 and vals or vals:mul(alpha), true)
    end
  else
    fail('add', 'expected a tensor or SparseTensor to add to a sparse gradient, got %s', U.describe(x))
  end
  return self
end

--- torch.sparse._grad.rows(S): S coalesced in place (duplicate rows summed, rows sorted); returns
--- its 1-D row indices and the values (nnz x ...). Optimizers update only these rows.
function G.rows(S)
  if not S._coalesced then
    if S._indices:size(1) == 1 then
      -- one sparse dim: the rows are their own keys (S:coalesce's general path encodes and decodes)
      local u, inv = torch.unique(S._indices[1], { returnInverse = true })
      local sizes = S._values:size():totable()
      sizes[1] = u:size(1)
      S._values = torch.indexAdd(S._values.new(torch.LongStorage(sizes)):zero(), 1, inv, S._values)
      S._indices = u:view(1, -1)
    else
      local c = S:coalesce()
      S._indices, S._values = c._indices, c._values
    end
    S._coalesced = true
  end
  return S._indices[1], S._values
end

--- torch.sparse._grad.capture(p, fn, ...): runs fn(...) with p's sparse gradient redirected to a
--- fresh accumulator, which it returns (p's own is left alone).
function G.capture(p, fn, ...)
  local saved = any and of[p] or nil
  local tmp = G.register(p, G.new(p))
  local ok, err = pcall(fn, ...)
  of[p] = saved
  if not ok then error(err, 0) end
  return tmp
end

-- The backward of gatherRows: the rows' gradient goes to w's sparse gradient (rows equal to skip
-- left out: a padding index); under torch.autograd.grad, which hands back dense tensors, w gets a
-- dense gradient instead.
local function gather_backward(entry, grads)
  local g = grads[1]
  if not g then return {} end
  local idx = entry.idx
  local w = entry.w
  if idx:nElement() == 0 then  -- an empty batch: no rows (a view of 0 elements as 0 x -1 raised)
    if torch.autograd._gradDepth > 0 then return { w.new(w:size()):zero() } end
    G.of(w, true)
    return {}
  end
  g = g:contiguous():view(idx:nElement(), -1)
  if entry.skip then
    local keep = torch.ne(idx, entry.skip)
    local pos = torch.nonzero(keep):view(-1)
    if pos:nElement() < idx:nElement() then idx, g = idx:index(1, pos), g:index(1, pos) end
  end
  if torch.autograd._gradDepth > 0 then
    local d = w.new(w:size()):zero()
    if idx:nElement() > 0 then d:view(w:size(1), -1):indexAdd(1, idx, g) end
    return { d }
  end
  G.accumulate(G.of(w, true), idx, g:view(idx:nElement(), unpack(w:size():totable(), 2)))
  return {}
end

--- torch.sparse._grad.gatherRows(w, idx [, skip]): w:index(1, idx) (idx a 1-D LongTensor on w's
--- device), whose backward gives w a sparse gradient of the rows idx (rows equal to skip get none).
function G.gatherRows(w, idx, skip)
  local out = torch.noGrad(torch.index, w, 1, idx)
  if not (torch.isGradEnabled() and w:needsGrad()) then return out end
  torch.autograd._record_lua_node({ label = 'sparseEmbedding', backward = gather_backward, w = w, idx = idx, skip = skip },
    { w }, { out })
  return out
end

return G
