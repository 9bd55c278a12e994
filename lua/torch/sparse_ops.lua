-- Operations on sparse COO tensors that keep or drop the sparsity: coalesce, toDense and the dense
-- toSparse, transpose, pointwise arithmetic, sum, narrowCopy and indexSelect. Values move only
-- through recorded dense ops (index, indexAdd, cmul), so they stay differentiable.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local U = require 'torch.sparse_util'
local fail = lib.fail
local is_tensor = types.is_tensor
local methods = torch._tensor_methods
local mt = U.mt

local function dense_sizes(S) return { unpack(S._size, S._indices:size(1) + 1) } end
local function join_sizes(a, b)
  local t = { unpack(a) }
  for _, v in ipairs(b) do t[#t + 1] = v end
  return t
end

--- S:coalesce(): S with duplicate positions summed and positions sorted lexicographically (S
--- itself when already coalesced). Differentiable in the values.
--- Example: torch.sparseCooTensor({{2, 1, 2}}, {1, 2, 3}, {2}):coalesce():values()
function mt:coalesce()
  if self._coalesced then return self end
  local sd = self._indices:size(1)
  local sizes = { unpack(self._size, 1, sd) }
  local key = U.keys('coalesce', self._indices, self._size)
  local ukey, inv = torch.unique(key, { returnInverse = true })
  local vals = torch.indexAdd(U.zeros(self._values, join_sizes({ ukey:size(1) }, dense_sizes(self))), 1, inv, self._values)
  return U.new(U.unravel(ukey, sizes), vals, self._size, true)
end

--- S:toDense(): the dense tensor S stands for (duplicates summed). Differentiable in the values.
--- Example: torch.sparseCooTensor({{1, 2}, {2, 1}}, {5, 6}):toDense()
function mt:toDense()
  local sd = self._indices:size(1)
  local flat = join_sizes({ U.prod(self._size, 1, sd) }, dense_sizes(self))
  local out = U.zeros(self._values, flat)
  if self:nnz() > 0 then
    out = torch.indexAdd(out, 1, U.keys('toDense', self._indices, self._size) + 1, self._values)
  end
  return (out:view(torch.LongStorage(self._size)))
end
mt.to_dense = mt.toDense

--- x:toSparse([sparseDims = x:dim()]): the dense x as a coalesced SparseTensor of its non-zero
--- entries (NaN counts as non-zero); with sparseDims < x:dim(), a hybrid tensor whose values are
--- the slices over the trailing dims that hold a non-zero. Differentiable in x.
--- Example: torch.Tensor({{0, 1}, {2, 0}}):toSparse():indices()
function methods.toSparse(x, k)
  local n = x:dim()
  if n == 0 then fail('toSparse', 'expected a tensor with at least one dim, got %s', U.describe(x)) end
  k = k == nil and n or U.integer('toSparse', k, 'sparseDims')
  if k < 1 or k > n then fail('toSparse', 'sparseDims must lie in [1, %d], got %d', n, k) end
  local size = x:size():totable()
  local nz = torch.nonzero(torch.ne(x, 0))
  local key
  if nz:dim() == 2 and nz:size(1) > 0 then
    key = U.keys('toSparse', nz:t(), size, k < n and U.range_table(k) or nil)
    if k < n then key = torch.unique(key) end
  else
    key = U.empty(x, { 0 }, types.I64)
  end
  local sizes = { unpack(size, 1, k) }
  local vals = x:reshape(torch.LongStorage(join_sizes({ U.prod(sizes) }, { unpack(size, k + 1) }))):index(1, key + 1)
  return U.new(U.unravel(key, sizes), vals, size, true)
end
methods.to_sparse = methods.toSparse

--- S:transpose(d1, d2): S with sparse dims d1 and d2 swapped (the values are shared; the result
--- is not coalesced). Dense dims cannot be swapped.
--- Example: torch.sparseCooTensor({{1}, {2}}, {5}, {2, 3}):transpose(1, 2):size()
function mt:transpose(d1, d2)
  local n, sd = #self._size, self._indices:size(1)
  d1, d2 = U.dim('transpose', d1, n), U.dim('transpose', d2, n)
  if d1 > sd or d2 > sd then fail('transpose', 'can only swap sparse dims (1..%d), got %d and %d', sd, d1, d2) end
  local perm, size = U.range_table(sd), { unpack(self._size) }
  perm[d1], perm[d2], size[d1], size[d2] = d2, d1, size[d2], size[d1]
  return U.new(self._indices:index(1, torch.LongTensor(perm):to(self._indices:device())), self._values, size, d1 == d2 and self._coalesced)
end
--- S:t(): the transpose of a 2-D sparse matrix.
--- Example: torch.sparseCooTensor({{1}, {2}}, {5}, {2, 3}):t():toDense()
function mt:t()
  if #self._size ~= 2 or self._indices:size(1) ~= 2 then
    fail('t', 'expected a 2-D sparse matrix (2 sparse dims), got %s', U.describe(self))
  end
  return (self:transpose(1, 2))
end

local function same_size(op, a, b)
  local sa = U.is_sparse(a) and a._size or a:size():totable()
  local sb = U.is_sparse(b) and b._size or b:size():totable()
  local ok = #sa == #sb
  for i = 1, #sa do ok = ok and sa[i] == sb[i] end
  if not ok then fail(op, 'sizes differ: %s and %s', U.describe(a), U.describe(b)) end
  if U.is_sparse(a) and U.is_sparse(b) and a:sparseDim() ~= b:sparseDim() then
    fail(op, 'sparse dims differ: %d and %d', a:sparseDim(), b:sparseDim())
  end
end

-- The entries of dense x at S's positions: nnz x (dense sizes).
local function gather_at(op, S, x)
  local sd = S._indices:size(1)
  local flat = x:reshape(torch.LongStorage(join_sizes({ U.prod(S._size, 1, sd) }, dense_sizes(S))))
  return (flat:index(1, U.keys(op, S._indices, S._size) + 1))
end

--- S:mul(x): S times a number, a dense tensor of S's size, or a SparseTensor of S's size, as a new
--- SparseTensor (S is unchanged, unlike Torch7's in-place mul). Differentiable in the values.
--- Example: torch.eye(2):toSparse():mul(3):toDense()
function mt:mul(x)
  if type(x) == 'number' then return U.new(self._indices, torch.mul(self._values, x), self._size, self._coalesced) end
  if is_tensor(x) then
    same_size('mul', self, x)
    return U.new(self._indices, torch.cmul(self._values, gather_at('mul', self, x)), self._size, self._coalesced)
  end
  U.check_sparse('mul', x, 2)
  same_size('mul', self, x)
  local a, b = self:coalesce(), x:coalesce()
  local pa, pb = U.join(U.keys('mul', a._indices, a._size), U.keys('mul', b._indices, b._size))
  return U.new(a._indices:index(2, pa), torch.cmul(a._values:index(1, pa), b._values:index(1, pb)), a._size, true)
end
--- S:div(number): S divided by a number, a new SparseTensor.
--- Example: torch.eye(2):toSparse():div(2):toDense()
function mt:div(x)
  if type(x) ~= 'number' then fail('div', 'a SparseTensor divides by a number only, got %s', U.describe(x)) end
  return U.new(self._indices, torch.div(self._values, x), self._size, self._coalesced)
end
--- S:neg(): -S, a new SparseTensor.
--- Example: torch.eye(2):toSparse():neg():toDense()
function mt:neg() return U.new(self._indices, torch.neg(self._values), self._size, self._coalesced) end

--- S:add([alpha,] x) or S:add(x [, alpha]): S + alpha * x (alpha = 1), a new tensor: a SparseTensor
--- when x is sparse (coalesced when both are), a dense tensor when x is dense.
--- Example: torch.eye(2):toSparse():add(torch.ones(2, 2))
function mt:add(a, b)
  local alpha, x = 1, a
  if type(a) == 'number' and b == nil then
    fail('add', 'adding a number to a SparseTensor would specify every entry; use S:toDense():add(%s)', tostring(a))
  end
  if type(a) == 'number' then alpha, x = a, b elseif b ~= nil then alpha = b end
  if type(alpha) ~= 'number' then fail('add', 'alpha must be a number, got %s', U.describe(alpha)) end
  if is_tensor(x) then
    same_size('add', self, x)
    local d = self:toDense()
    return alpha == 1 and torch.add(x, d) or torch.add(torch.mul(x, alpha), d)
  end
  if not U.is_sparse(x) then fail('add', 'expected a SparseTensor or a dense tensor, got %s', U.describe(x)) end
  same_size('add', self, x)
  local xv = alpha == 1 and x._values or torch.mul(x._values, alpha)
  local r = U.new(torch.cat({ self._indices, x._indices }, 2), torch.cat({ self._values, xv }, 1), self._size, false)
  if self._coalesced and x._coalesced then return (r:coalesce()) end
  return r
end
--- S:sub(x): S - x, as S:add(-1, x).
--- Example: torch.eye(2):toSparse():sub(torch.eye(2):toSparse()):toDense()
function mt:sub(x) return (self:add(-1, x)) end

-- Reads one dim or a table of dims of S into a set of positive 1-based dims.
local function dim_set(op, S, dims)
  local list = type(dims) == 'table' and dims or { dims }
  local set, n = {}, #S._size
  for _, d in ipairs(list) do
    local p = U.dim(op, d, n)
    if set[p] then fail(op, 'dim %d is repeated', p) end
    set[p] = true
  end
  return set
end

--- S:sum([dims]): without dims, the sum of all values (a number, or a 0-dim tensor while the values
--- require grad); over dims (a number or a table), PyTorch's torch.sparse.sum: those dims removed,
--- a SparseTensor while sparse dims remain, else a dense tensor. Differentiable in the values.
--- Example: torch.eye(3):toSparse():sum(1):toDense()
function mt:sum(dims)
  if dims == nil then return self._values:sum() end
  local set, sd = dim_set('sum', self, dims), self._indices:size(1)
  local vals, vsizes = self._values, { self._values:size(1) }
  for d = #self._size, sd + 1, -1 do
    if set[d] then vals = vals:sum(d - sd + 1) end
  end
  local keep, size = {}, {}
  for d = 1, #self._size do
    if not set[d] then
      size[#size + 1] = self._size[d]
      if d <= sd then keep[#keep + 1] = d else vsizes[#vsizes + 1] = self._size[d] end
    end
  end
  vals = vals:reshape(torch.LongStorage(vsizes))
  if #keep == 0 then
    local r = vals:sum(1)
    return (r:view(torch.LongStorage(size)))
  end
  if #keep == sd then return U.new(self._indices, vals, size, self._coalesced) end
  local idx = self._indices:index(1, torch.LongTensor(keep):to(self._indices:device()))
  return (U.new(idx, vals, size, false):coalesce())
end

--- S:narrowCopy(dim, start, length): the entries of S with 1-based position start..start+length-1
--- along dim (a negative start counts from the end), as a new SparseTensor of that size
--- (PyTorch's narrow_copy).
--- Example: torch.eye(3):toSparse():narrowCopy(1, 2, 2):toDense()
function mt:narrowCopy(dim, start, length)
  local op = 'narrowCopy'
  local n, sd = #self._size, self._indices:size(1)
  local d = U.dim(op, dim, n)
  start, length = U.integer(op, start, 'start'), U.integer(op, length, 'length')
  -- Note [Negative narrow start]: as the dense narrow, a negative start counts from the end
  -- (-1 is the last position); it was refused.
  if start < 0 then start = self._size[d] + start + 1 end
  if start < 1 or length < 0 or start + length - 1 > self._size[d] then
    fail(op, 'range start %d, length %d is out of bounds for dim %d of size %d', start, length, d, self._size[d])
  end
  local size = { unpack(self._size) }
  size[d] = length
  if d > sd then
    return U.new(self._indices, self._values:narrow(d - sd + 1, start, length):clone(), size, self._coalesced)
  end
  local row = self._indices:select(1, d)
  local inside = torch.logicalAnd(row:ge(start), row:le(start + length - 1))
  local pos = torch.nonzero(inside)
  pos = pos:nElement() > 0 and pos:view(-1) or U.empty(row, { 0 }, types.I64)
  local idx = self._indices:index(2, pos)
  idx:select(1, d):add(1 - start)
  return U.new(idx, self._values:index(1, pos), size, self._coalesced)
end
mt.narrow_copy = mt.narrowCopy

--- S:indexSelect(dim, index): the slices of S at the 1-based positions index (a LongTensor,
--- IntTensor or table, repeats allowed) along dim, as a new SparseTensor (PyTorch's index_select).
--- Example: torch.eye(3):toSparse():indexSelect(1, {3, 1}):toDense()
function mt:indexSelect(dim, index)
  local op = 'indexSelect'
  local n, sd = #self._size, self._indices:size(1)
  local d = U.dim(op, dim, n)
  if type(index) == 'table' and getmetatable(index) == nil then
    for i, v in ipairs(index) do U.integer(op, v, 'index ' .. i) end
    index = torch.LongTensor(index)
  end
  if not is_tensor(index) or (index.p.dtype ~= types.I64 and index.p.dtype ~= lib.dtype.i32) or index:dim() ~= 1 then
    fail(op, 'expected a 1-D LongTensor (or IntTensor) of indices, got %s', U.describe(index))
  end
  if index.p.dtype ~= types.I64 then index = index:to('torch.LongTensor') end  -- the dense index takes both
  index = index:to(self._indices:device())
  local m = index:size(1)
  if m > 0 and (index:min() < 1 or index:max() > self._size[d]) then
    fail(op, 'indices span [%d, %d], out of range for dim %d of size %d', index:min(), index:max(), d, self._size[d])
  end
  local size = { unpack(self._size) }
  size[d] = m
  if d > sd then return U.new(self._indices, self._values:index(d - sd + 1, index), size, self._coalesced) end
  local pe, pk = U.join(self._indices:select(1, d), index)
  local idx = self._indices:index(2, pe)
  idx:select(1, d):copy(pk)
  return U.new(idx, self._values:index(1, pe), size, false)
end
mt.index = mt.indexSelect
mt.index_select = mt.indexSelect

return U
