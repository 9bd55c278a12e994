-- PyTorch's shape helpers missing from Torch7 (C front-ends in core/ops/shape_extra.cpp):
-- swapaxes/swapdims, unflatten, unbind, diagonal, broadcastTo/broadcastTensors/broadcastShapes,
-- atleast1d/2d/3d, hstack/vstack/dstack/columnStack/rowStack, tensorSplit/hsplit/vsplit/dsplit,
-- rot90, repeatInterleave, and torch.clone/torch.numel/x:tolist(). Dims are 1-based, negative
-- from the end. Views where PyTorch gives views; the others return new tensors (methods too).
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, describe, cdim, check_tensor = types.is_tensor, types.describe, types.cdim, types.check_tensor
local methods = torch._tensor_methods

local MAX_DIMS = 16
local buf = ffi.new('int64_t[?]', MAX_DIMS)

-- An integer argument (a Lua number without a fraction, within int64).
local function integer(op, v, what)
  if type(v) ~= 'number' or v ~= math.floor(v) or v >= 2 ^ 63 or v < -2 ^ 63 then
    fail(op, '%s must be an integer, got %s', what, type(v) == 'number' and tostring(v) or describe(v))
  end
  return v
end

-- Tensors given as arguments or in one table; at least one.
local function tensor_list(op, ...)
  local list = ...
  if not (type(list) == 'table' and getmetatable(list) == nil) then list = { ... } end
  local n = table.maxn(list)
  if n == 0 then fail(op, 'expected at least one tensor') end
  for i = 1, n do
    if not is_tensor(list[i]) then fail(op, 'expected a tensor as tensor %d, got %s', i, describe(list[i])) end
  end
  return list, n
end

local function list_handles(list, n)
  local arr = ffi.new('const tocha_tensor *[?]', n)
  for i = 1, n do arr[i - 1] = list[i].p end
  return arr
end

local function wrap_all(out, n)
  local r = {}
  for i = 1, n do r[i] = wrap(out[i - 1]) end
  return r
end

--- torch.swapaxes(x, dim1, dim2): x:transpose(dim1, dim2), a view with the two dims swapped
--- (PyTorch's swapaxes/swapdims, NumPy's name). torch.swapdims and the methods are the same.
--- Example: torch.swapaxes(torch.zeros(2, 3, 4), 1, 3):size()
function torch.swapaxes(x, d1, d2)
  check_tensor('swapaxes', x, 1)
  cdim('swapaxes', d1, x.p.ndim)  -- so that a bad dim's error names swapaxes, not transpose
  cdim('swapaxes', d2, x.p.ndim)
  return (x:transpose(d1, d2))
end
methods.swapaxes = torch.swapaxes
--- torch.swapdims(x, dim1, dim2): torch.swapaxes (PyTorch's other name).
--- Example: torch.swapdims(torch.zeros(2, 3), 1, 2):size()
function torch.swapdims(x, d1, d2) return (torch.swapaxes(x, d1, d2)) end
methods.swapdims = torch.swapdims

--- torch.unflatten(x, dim, sizes): x with dim (1-based) split into the sizes (a table or a
--- LongStorage; one may be -1, inferred), a view where x's strides allow it (PyTorch's unflatten).
--- x:unflatten(dim, sizes) is the same.
--- Example: torch.unflatten(torch.range(1, 6), 1, {2, 3})
function torch.unflatten(x, dim, sizes)
  check_tensor('unflatten', x, 1)
  if x.p.ndim == 0 then fail('unflatten', 'expected a tensor with at least one dimension, got a 0-dim tensor') end
  local d = cdim('unflatten', dim, x.p.ndim)
  if sizes == nil then fail('unflatten', 'expected sizes (a table), got nil') end
  local n = types.read_sizes('unflatten', buf, sizes)
  return (wrap(C.tocha_unflatten(x.p, d, n, buf)))
end
methods.unflatten = torch.unflatten

--- torch.unbind(x [, dim = 1]): the slices of x along dim, in a Lua table of views with that
--- dim removed (PyTorch's unbind). x:unbind(dim) is the same.
--- Example: torch.unbind(torch.Tensor({{1, 2}, {3, 4}}), 2)
function torch.unbind(x, dim)
  check_tensor('unbind', x, 1)
  if x.p.ndim == 0 then fail('unbind', 'expected a tensor with at least one dimension, got a 0-dim tensor') end
  local d = cdim('unbind', dim or 1, x.p.ndim)
  local n = tonumber(x.p.size[d < 0 and d + x.p.ndim or d])
  -- as tensorSplit's: an expanded dim of 2^30 would build a table of 2^30 views
  if n > 2 ^ 24 then fail('unbind', 'at most 2^24 slices, got %d (dimension %d)', n, (dim or 1)) end
  local out = ffi.new('tocha_tensor *[?]', math.max(n, 1))
  check(C.tocha_unbind(x.p, d, n, out))
  return wrap_all(out, n)
end
methods.unbind = torch.unbind

--- torch.diagonal(x [, offset = 0 [, dim1 = 1 [, dim2 = 2]]]): a view of the diagonal of the
--- matrices in dims dim1 and dim2 (offset > 0 above the main diagonal, < 0 below), those dims
--- removed and the diagonal appended as the last dim (PyTorch's diagonal; writing into it writes
--- x). Options may come as a table {offset=, dim1=, dim2=}. Differentiable; x:diagonal(...) too.
--- Example: torch.diagonal(torch.Tensor({{1, 2, 3}, {4, 5, 6}}), 1)
function torch.diagonal(x, offset, dim1, dim2)
  check_tensor('diagonal', x, 1)
  if type(offset) == 'table' and getmetatable(offset) == nil then
    if dim1 ~= nil or dim2 ~= nil then fail('diagonal', 'options given in a table take no further arguments') end
    for k in pairs(offset) do  -- a misspelt key would silently be the default
      if k ~= 'offset' and k ~= 'dim1' and k ~= 'dim2' then
        fail('diagonal', "unknown option '%s' (expected offset, dim1, dim2)", tostring(k))
      end
    end
    offset, dim1, dim2 = offset.offset, offset.dim1, offset.dim2
  end
  if x.p.ndim < 2 then
    fail('diagonal', 'expected a tensor with at least 2 dimensions, got a tensor of size %s', types.shape_str(x.p))
  end
  offset = integer('diagonal', offset or 0, 'offset')
  local d1, d2 = cdim('diagonal', dim1 or 1, x.p.ndim), cdim('diagonal', dim2 or 2, x.p.ndim)
  return (wrap(C.tocha_diagonal(x.p, offset, d1, d2)))
end
methods.diagonal = torch.diagonal

--- torch.broadcastTo(x, sizes...): x expanded to sizes (numbers, a table or a LongStorage; -1
--- keeps a size) by NumPy's broadcasting rule, a view (PyTorch's broadcast_to).
--- x:broadcastTo(sizes) is the same.
--- Example: torch.broadcastTo(torch.Tensor({1, 2, 3}), 2, 3)
function torch.broadcastTo(x, ...)
  check_tensor('broadcastTo', x, 1)
  local n = types.read_sizes('broadcastTo', buf, ...)
  return (wrap(C.tocha_broadcast_to(x.p, n, buf)))
end
methods.broadcastTo = torch.broadcastTo

--- torch.broadcastTensors(x1, x2, ...): the tensors (arguments or one table) expanded to the
--- broadcast of their shapes, returned in a table of views (PyTorch's broadcast_tensors).
--- Example: torch.broadcastTensors(torch.zeros(2, 1), torch.zeros(3))[1]:size()
function torch.broadcastTensors(...)
  local list, n = tensor_list('broadcastTensors', ...)
  local out = ffi.new('tocha_tensor *[?]', n)
  check(C.tocha_broadcast_tensors(n, list_handles(list, n), out))
  return wrap_all(out, n)
end

--- torch.broadcastShapes(s1, s2, ...): the broadcast of shapes given as tables, LongStorages or
--- numbers (a 1D shape), as a LongStorage (PyTorch's broadcast_shapes; errors name the shape
--- that does not fit).
--- Example: torch.broadcastShapes({2, 1}, {3}, 1)
function torch.broadcastShapes(...)
  local n = select('#', ...)
  local ndims = ffi.new('int[?]', math.max(n, 1))
  local sizes, total = {}, 0
  for i = 1, n do
    local s = select(i, ...)
    local k = types.read_sizes('broadcastShapes', buf, s)
    ndims[i - 1] = k
    for j = 0, k - 1 do
      total = total + 1
      sizes[total] = buf[j]
    end
  end
  local flat = ffi.new('int64_t[?]', math.max(total, 1), sizes)
  local out_n, out = ffi.new('int[1]'), ffi.new('int64_t[?]', MAX_DIMS)
  check(C.tocha_broadcast_shapes(n, ndims, flat, out_n, out))
  local r = {}
  for i = 1, out_n[0] do r[i] = tonumber(out[i - 1]) end
  return torch.LongStorage(r)
end

local function atleast(op, nd, ...)
  local n = select('#', ...)
  if n == 1 and is_tensor((...)) then return (wrap(C.tocha_atleast((...).p, nd))) end
  local list = tensor_list(op, ...)
  local r = {}
  for i = 1, #list do r[i] = wrap(C.tocha_atleast(list[i].p, nd)) end
  return r
end
--- torch.atleast1d(x): x as a view with at least one dim (a 0-dim tensor becomes size 1); several
--- tensors (arguments or a table) give a table. PyTorch's atleast_1d; x:atleast1d() too.
--- Example: torch.atleast1d(torch.Tensor({5}):view({})):size()
function torch.atleast1d(...) return (atleast('atleast1d', 1, ...)) end
--- torch.atleast2d(x): x with at least two dims (1D size n becomes 1 x n); a table for several.
--- Example: torch.atleast2d(torch.Tensor({1, 2})):size()
function torch.atleast2d(...) return (atleast('atleast2d', 2, ...)) end
--- torch.atleast3d(x): x with at least three dims (n becomes 1 x n x 1, m x n becomes m x n x 1).
--- Example: torch.atleast3d(torch.zeros(2, 3)):size()
function torch.atleast3d(...) return (atleast('atleast3d', 3, ...)) end
methods.atleast1d, methods.atleast2d, methods.atleast3d = torch.atleast1d, torch.atleast2d, torch.atleast3d

local function stack_kind(name, kind, ...)
  local list, n = tensor_list(name, ...)
  return (wrap(C.tocha_stack_kind(n, list_handles(list, n), string.byte(kind))))
end
--- torch.hstack(tensors): the tensors (a table or arguments) joined along dim 2, or dim 1 when
--- they are 1D (0-dim ones count as 1D), PyTorch's hstack. A new tensor; differentiable.
--- Example: torch.hstack({torch.Tensor({1, 2}), torch.Tensor({3})})
function torch.hstack(...) return (stack_kind('hstack', 'h', ...)) end
--- torch.vstack(tensors): the tensors made at least 2D (1D size n as 1 x n) joined along dim 1.
--- Example: torch.vstack({torch.Tensor({1, 2}), torch.Tensor({3, 4})})
function torch.vstack(...) return (stack_kind('vstack', 'v', ...)) end
--- torch.rowStack(tensors): torch.vstack (PyTorch's row_stack).
--- Example: torch.rowStack({torch.Tensor({1, 2}), torch.Tensor({3, 4})})
function torch.rowStack(...) return (stack_kind('rowStack', 'r', ...)) end
--- torch.dstack(tensors): the tensors made at least 3D (atleast3d) joined along dim 3.
--- Example: torch.dstack({torch.Tensor({1, 2}), torch.Tensor({3, 4})}):size()
function torch.dstack(...) return (stack_kind('dstack', 'd', ...)) end
--- torch.columnStack(tensors): 0-dim and 1D tensors as columns (n x 1), joined along dim 2 with
--- the 2D ones (PyTorch's column_stack).
--- Example: torch.columnStack({torch.Tensor({1, 2}), torch.Tensor({3, 4})})
function torch.columnStack(...) return (stack_kind('columnStack', 'c', ...)) end

-- Split points: a number of sections, or a table/LongTensor of 1-based start indices.
local function do_split(op, x, spec, d)
  local p = x.p
  local dd = d < 0 and d + p.ndim or d
  if type(spec) == 'number' then
    integer(op, spec, 'the number of sections')
    if spec < 1 then fail(op, 'number of sections must be positive, got %d', spec) end
    if spec > 2 ^ 24 then fail(op, 'at most 2^24 sections, got %d', spec) end
    local out = ffi.new('tocha_tensor *[?]', spec)
    check(C.tocha_tensor_split(p, spec, 0, nil, d, spec, out))
    return wrap_all(out, spec)
  end
  local list = spec
  if is_tensor(spec) then
    if spec.p.ndim > 1 or (spec.p.dtype ~= types.I64 and spec.p.dtype ~= lib.dtype.i32) then
      fail(op, 'indices must be a 1D LongTensor, got %s', describe(spec))
    end
    list = spec.p.ndim == 0 and { spec:item() } or spec:totable()
  elseif not (type(spec) == 'table' and getmetatable(spec) == nil) then
    fail(op, 'expected a number of sections or a table of indices, got %s', describe(spec))
  end
  local n = #list
  local idx = ffi.new('int64_t[?]', math.max(n, 1))
  local size = tonumber(p.size[dd])
  for i = 1, n do
    local v = integer(op, list[i], 'index ' .. i)
    -- 1-based starts: i begins a new part; -1 is the last element; 0 is no 1-based index.
    if v == 0 then fail(op, 'index %d is 0; split indices are 1-based (where a new part starts)', i) end
    idx[i - 1] = v > 0 and v - 1 or v
  end
  local out = ffi.new('tocha_tensor *[?]', n + 1)
  check(C.tocha_tensor_split(p, 0, n, idx, d, n + 1, out))
  return wrap_all(out, n + 1)
end

--- torch.tensorSplit(x, sections_or_indices [, dim = 1]): x split along dim into views, in a
--- table. A number n gives n parts of nearly equal size (the first size % n parts have one more
--- element; PyTorch's tensor_split). A table or LongTensor of 1-based indices gives the parts
--- that start at those elements: {2, 4} on 1..6 gives {1}, {2, 3}, {4, 5, 6} (PyTorch's 0-based
--- split points [1, 3]); negative indices count from the end, indices past the end give empty
--- parts. x:tensorSplit(...) is the same.
--- Example: torch.tensorSplit(torch.range(1, 7), 3)
function torch.tensorSplit(x, spec, dim)
  check_tensor('tensorSplit', x, 1)
  if x.p.ndim == 0 then fail('tensorSplit', 'expected a tensor with at least one dimension, got a 0-dim tensor') end
  return (do_split('tensorSplit', x, spec, cdim('tensorSplit', dim or 1, x.p.ndim)))
end
methods.tensorSplit = torch.tensorSplit

local function nsplit(op, x, spec, dim, need)
  check_tensor(op, x, 1)
  if x.p.ndim < need then
    fail(op, 'expected a tensor with at least %d dimension%s, got a tensor of size %s', need, need > 1 and 's' or '',
      types.shape_str(x.p))
  end
  local d = dim - 1
  if type(spec) == 'number' then
    local size = tonumber(x.p.size[d])
    if spec >= 1 and spec == math.floor(spec) and size % spec ~= 0 then
      fail(op, 'dimension %d of size %d is not divisible into %d equal parts', dim, size, spec)
    end
  end
  return (do_split(op, x, spec, d))
end
--- torch.hsplit(x, sections_or_indices): torch.tensorSplit along dim 2 (dim 1 for a 1D x); a
--- number of sections must divide the size (PyTorch's hsplit). x:hsplit(...) is the same.
--- Example: torch.hsplit(torch.zeros(2, 4), 2)[1]:size()
function torch.hsplit(x, spec)
  check_tensor('hsplit', x, 1)
  return (nsplit('hsplit', x, spec, x.p.ndim == 1 and 1 or 2, 1))
end
--- torch.vsplit(x, sections_or_indices): torch.tensorSplit along dim 1 of an x of 2 or more dims.
--- Example: torch.vsplit(torch.zeros(4, 2), {2})[2]:size()
function torch.vsplit(x, spec) return (nsplit('vsplit', x, spec, 1, 2)) end
--- torch.dsplit(x, sections_or_indices): torch.tensorSplit along dim 3 of an x of 3 or more dims.
--- Example: torch.dsplit(torch.zeros(1, 2, 4), 2)[1]:size()
function torch.dsplit(x, spec) return (nsplit('dsplit', x, spec, 3, 3)) end
methods.hsplit, methods.vsplit, methods.dsplit = torch.hsplit, torch.vsplit, torch.dsplit

--- torch.rot90(x [, k = 1 [, dims = {1, 2}]]): a copy of x rotated by k quarter turns in the plane
--- of the two dims, from the first toward the second (k < 0 turns the other way), as PyTorch's
--- rot90. Differentiable; x:rot90(k, dims) is the same.
--- Example: torch.rot90(torch.Tensor({{1, 2}, {3, 4}}))
function torch.rot90(x, k, dims)
  check_tensor('rot90', x, 1)
  k = integer('rot90', k == nil and 1 or k, 'k')
  dims = dims or { 1, 2 }
  if type(dims) ~= 'table' or #dims ~= 2 then
    fail('rot90', 'expected dims as a table of two dims, got %s',
      type(dims) == 'table' and ('%d dims'):format(#dims) or describe(dims))
  end
  if x.p.ndim < 2 then
    fail('rot90', 'expected a tensor with at least 2 dimensions, got a tensor of size %s', types.shape_str(x.p))
  end
  return (wrap(C.tocha_rot90(x.p, k, cdim('rot90', dims[1], x.p.ndim), cdim('rot90', dims[2], x.p.ndim))))
end
methods.rot90 = torch.rot90

--- torch.repeatInterleave(x, repeats [, dim]): each slice of x along dim repeated in place
--- (1, 1, 2, 2, ... rather than tile's 1, 2, 1, 2), repeats a number or an integer tensor with a
--- count per slice; without dim, x is flattened first (PyTorch's repeat_interleave).
--- torch.repeatInterleave(repeats) alone (a 1D LongTensor) gives the 1-based indices i repeated
--- repeats[i] times. A new tensor, differentiable in x. x:repeatInterleave(repeats, dim) too.
--- Example: torch.repeatInterleave(torch.Tensor({{1, 2}, {3, 4}}), 2, 1)
function torch.repeatInterleave(x, repeats, dim)
  check_tensor('repeatInterleave', x, 1)
  if repeats == nil then
    if dim ~= nil then fail('repeatInterleave', 'expected repeats, got nil') end
    return (wrap(C.tocha_repeat_interleave_index(x.p, 1)))
  end
  local d = 0
  if dim ~= nil then
    d = cdim('repeatInterleave', dim, x.p.ndim)
  end
  if type(repeats) == 'table' and getmetatable(repeats) == nil then
    repeats = torch.LongTensor(repeats)
    -- counts given as numbers go to x's device (the C op wants both on one device)
    if x.p.device_type ~= 0 then repeats = repeats:to(x:device()) end
  end
  if is_tensor(repeats) then
    return (wrap(C.tocha_repeat_interleave(x.p, repeats.p, 0, dim ~= nil and 1 or 0, d)))
  end
  integer('repeatInterleave', repeats, 'repeats')
  return (wrap(C.tocha_repeat_interleave(x.p, nil, repeats, dim ~= nil and 1 or 0, d)))
end
methods.repeatInterleave = torch.repeatInterleave

--- torch.clone(x): a copy of x with its own storage (contiguous), as x:clone(); differentiable.
--- Example: torch.clone(torch.Tensor({1, 2}))
function torch.clone(x) return (check_tensor('clone', x, 1):clone()) end
--- torch.numel(x): the number of elements of x, as x:numel() and x:nElement().
--- Example: torch.numel(torch.zeros(2, 3))
function torch.numel(x) return (check_tensor('numel', x, 1):nElement()) end
--- x:tolist(): x's values as nested Lua tables (a number for a 0-dim tensor), PyTorch's tolist;
--- the same as x:totable(). torch.tolist(x) too.
--- Example: torch.Tensor({{1, 2}, {3, 4}}):tolist()
function methods.tolist(x) return (x:totable()) end
function torch.tolist(x) return (check_tensor('tolist', x, 1):totable()) end

return torch
