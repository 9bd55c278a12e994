-- Helpers shared by the sparse COO files: the SparseTensor class itself (metatable and an
-- unchecked constructor), tensors on a reference's device, linear keys of index columns and the
-- equality join of two index lists. Everything here is made of dense tensor ops.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, fail = lib.C, lib.wrap, lib.fail
local is_tensor, describe = types.is_tensor, types.describe

local U = {}

local mt = torch.class('torch.SparseTensor')
U.mt = mt

-- Note [Sparse COO layout]: a SparseTensor is a Lua table holding
--   _indices  a LongTensor sparseDim x nnz of 1-based positions (PyTorch's ndim x nnz layout),
--   _values   a dense tensor nnz x (dense dims...), on the same device as _indices,
--   _size     a Lua array of the sizes (sparse dims first, then the dense dims),
--   _coalesced true when the columns of _indices are unique and sorted lexicographically.
-- The values are the only part that carries autograd history; indices never do.
function U.new(indices, values, size, coalesced)
  return setmetatable({ _indices = indices, _values = values, _size = size, _coalesced = coalesced and true or false }, mt)
end

function U.is_sparse(x) return getmetatable(x) == mt end

-- A Lua value in error messages, SparseTensors included.
function U.describe(x)
  if U.is_sparse(x) then
    return string.format('torch.SparseTensor of size %s (%s values)', table.concat(x._size, 'x'), torch.typename(x._values))
  end
  return describe(x)
end

function U.check_sparse(op, x, argn)
  if not U.is_sparse(x) then fail(op, 'expected a SparseTensor as argument %d, got %s', argn or 1, U.describe(x)) end
  return x
end

local size_buf = require('ffi').new('int64_t[16]')
-- An uninitialized tensor of dtype `dt` (default: ref's) with sizes `sizes` on ref's device.
function U.empty(ref, sizes, dt)
  for i = 1, #sizes do size_buf[i - 1] = sizes[i] end
  local p = ref.p
  return (wrap(C.tocha_tensor_empty(#sizes, size_buf, dt or p.dtype, p.device_type, p.device_index)))
end
function U.zeros(ref, sizes, dt) return (U.empty(ref, sizes, dt):zero()) end
-- 1, 2, ..., n as a LongTensor on ref's device.
function U.range(ref, n)
  if n == 0 then return (U.empty(ref, { 0 }, types.I64)) end
  return (torch.arange(U.empty(ref, { n }, types.I64), 1, n + 1))
end

-- {1, 2, ..., k}.
function U.range_table(k)
  local t = {}
  for i = 1, k do t[i] = i end
  return t
end

function U.prod(t, from, to)
  local p = 1
  for i = from or 1, to or #t do p = p * t[i] end
  return p
end

-- Note [Linear keys]: a column of indices is encoded as its 0-based row-major position among the
-- sparse dims, so sorting keys sorts columns lexicographically and equal keys are equal columns.
-- The product of the sparse sizes must stay below 2^62 so that keys fit an int64 exactly.
function U.keys(op, indices, size, dims)
  dims = dims or {}
  if #dims == 0 then for d = 1, indices:size(1) do dims[#dims + 1] = d end end
  local total = 1
  for _, d in ipairs(dims) do total = total * size[d] end
  if total >= 2 ^ 62 then fail(op, 'the sparse sizes %s have 2^62 or more positions, too many for int64 keys', table.concat(size, 'x')) end
  local key
  for _, d in ipairs(dims) do
    local row = indices:select(1, d) - 1
    key = key and key:mul(size[d]):add(row) or row
  end
  return key
end

-- The inverse of keys: a LongTensor #sizes x n of 1-based indices.
function U.unravel(key, sizes)
  local n = key:size(1)
  local out = U.empty(key, { #sizes, n }, types.I64)
  if n == 0 then return out end  -- a size may be 0 then, and remainder by 0 raises even on no elements
  local k = key:clone()
  for d = #sizes, 1, -1 do
    out:select(1, d):copy(torch.remainder(k, sizes[d])):add(1)
    if d > 1 then k = torch.floorDivide(k, sizes[d]) end
  end
  return out
end

-- The equality join of two LongTensors: positions (pa, pb), 1-based, of every pair with
-- a[pa] == b[pb], grouped by pa in increasing order. Sorting b and two binary searches per
-- element of a give each group's range; repeatInterleave spreads the ranges out.
function U.join(a, b)
  local bs, perm = torch.sort(b)
  local lo = torch.searchsorted(bs, a)
  local hi = torch.searchsorted(bs, a, { right = true })
  local counts = hi - lo
  local total = a:size(1) > 0 and counts:sum() or 0
  if total == 0 then
    local e = U.empty(a, { 0 }, types.I64)
    return e, e:clone()
  end
  local pa = torch.repeatInterleave(U.range(a, a:size(1)), counts)
  local starts = torch.cumsum(counts, 1) - counts  -- each group's 0-based start in the output
  local within = U.range(a, total) - 1 - starts:index(1, pa)
  local pb = perm:index(1, lo:index(1, pa) + within)
  return pa, pb
end

-- Reads an integer option or argument; errors name op.
function U.integer(op, v, what)
  if type(v) ~= 'number' or v ~= math.floor(v) then
    fail(op, '%s must be an integer, got %s', what, type(v) == 'number' and tostring(v) or U.describe(v))
  end
  return v
end

-- A 1-based (or negative) dim of a tensor with n dims, as a positive 1-based number.
function U.dim(op, d, n)
  return types.cdim(op, d, n) % n + 1
end

U.is_tensor = is_tensor
return U
