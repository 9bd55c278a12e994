-- View methods (narrow, select, sub, transpose, permute, view, expand, unfold, squeeze...) and
-- splitting helpers. Views share storage with their source (DESIGN.md decision 4); dims and
-- indices are 1-based, negative counting from the end.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, fail = lib.C, lib.wrap, lib.fail
local is_tensor = types.is_tensor
local cdim, cindex, check_tensor = types.cdim, types.cindex, types.check_tensor
local dims_a = lib.dims_a
local methods = torch._tensor_methods

--- torch.narrow(x, dim, index, size): a view of x restricted to size elements along dim, starting
--- at element index (1-based; a negative index counts from the end). It shares x's storage.
--- x:narrow(dim, index, size) is the same.
--- Example: torch.narrow(torch.Tensor({{1, 2, 3}, {4, 5, 6}}), 2, 2, 2)
local function narrow(t, dim, index, size)
  check_tensor('narrow', t, 1)
  local p = t.p
  local d = cdim('narrow', dim, p.ndim)
  if d < 0 then d = d + p.ndim end  -- cdim keeps a negative dim negative; size[-1] is not the last size
  if type(size) ~= 'number' then fail('narrow', 'expected a size (number), got %s', types.describe(size)) end
  if size ~= math.floor(size) then fail('narrow', 'size %s is not an integer', tostring(size)) end
  local n = p.ndim > 0 and tonumber(p.size[d]) or 1
  if type(index) ~= 'number' or index == 0 then fail('narrow', 'index %s is not a 1-based index', tostring(index)) end
  if index ~= math.floor(index) then fail('narrow', 'index %s is not an integer', tostring(index)) end
  local given = index
  if index < 0 then index = index + n + 1 end
  -- C's narrow wraps a negative 0-based start, so an index below -n read from the end again
  -- (narrow(1, -5, 1) on 4 elements gave the last one).
  if index < 1 then
    fail('narrow', 'index %d out of range for dimension %d of size %d', given, d + 1, n)
  end
  return (wrap(C.tocha_narrow(p, d, index - 1, size)))
end
methods.narrow, torch.narrow = narrow, narrow

--- torch.select(x, dim, index): the slice of x at index along dim (both 1-based; a negative index
--- counts from the end), a view sharing x's storage with one dim fewer. x:select(dim, index) is
--- the same.
--- Example: torch.select(torch.Tensor({{1, 2, 3}, {4, 5, 6}}), 1, 2)
local function select_view(t, dim, index)
  check_tensor('select', t, 1)
  local p = t.p
  if p.ndim == 0 then fail('select', 'cannot select on a 0-dim tensor') end
  local d = cdim('select', dim, p.ndim)
  if d < 0 then d = d + p.ndim end  -- as in narrow
  if index == 0 then fail('select', 'index 0 is not a 1-based index (dimension %d of size %d)', d + 1, tonumber(p.size[d])) end
  return (wrap(C.tocha_select(p, d, cindex('select', index, tonumber(p.size[d])))))
end
methods.select, torch.select = select_view, select_view

--- t:sub(d1s, d1e [, d2s, d2e ...]): inclusive ranges per dim, negative counting from the end.
--- Example: torch.range(1, 10):view(2, 5):sub(1, 2, 2, -2)
local function sub(t, ...)
  check_tensor('sub', t, 1)
  local n = select('#', ...)
  if n % 2 == 1 then fail('sub', 'expected pairs of (start, end) indices') end
  local r = t
  for k = 1, n, 2 do
    local d = (k + 1) / 2
    local s, e = select(k, ...)
    if type(s) ~= 'number' or type(e) ~= 'number' or s ~= math.floor(s) or e ~= math.floor(e) then
      fail('sub', 'expected integer indices for dimension %d, got %s and %s', d, types.describe(s), types.describe(e))
    end
    local size = tonumber(r.p.size[cdim('sub', d, r.p.ndim)])
    if s < 0 then s = s + size + 1 end
    if e < 0 then e = e + size + 1 end
    if s < 1 or e > size or e < s - 1 then
      fail('sub', 'range %d to %d is out of bounds for dimension %d of size %d', s, e, d, size)
    end
    r = narrow(r, d, s, e - s + 1)
  end
  return r
end
methods.sub, torch.sub = sub, sub

--- torch.transpose(x [, dim1, dim2]): a view of x with dims dim1 and dim2 (1-based, default 1 and
--- 2) swapped; it shares x's storage and is usually not contiguous. x:transpose(dim1, dim2) is
--- the same.
--- Example: torch.transpose(torch.Tensor({{1, 2, 3}, {4, 5, 6}}), 1, 2)
local function transpose(t, d1, d2)
  check_tensor('transpose', t, 1)
  local p = t.p
  if d1 == nil and d2 == nil then d1, d2 = 1, 2 end
  return (wrap(C.tocha_transpose(p, cdim('transpose', d1, p.ndim), cdim('transpose', d2, p.ndim))))
end
methods.transpose, torch.transpose = transpose, transpose

--- torch.t(x): the transpose of a matrix as a view (x:transpose(1, 2)); a 1D or 0-dim x gives a
--- view of the same shape. Tensors with more than 2 dims are an error. x:t() is the same.
--- Example: torch.t(torch.Tensor({{1, 2, 3}, {4, 5, 6}}))
function methods.t(t)
  check_tensor('t', t, 1)
  local nd = t.p.ndim
  if nd > 2 then fail('t', 't() expects a tensor with at most 2 dimensions, got %dD; use transpose(d1, d2)', nd) end
  if nd < 2 then return (wrap(C.tocha_tensor_alias(t.p))) end
  return (transpose(t, 1, 2))
end
torch.t = methods.t

--- torch.permute(x, dims...): a view of x with its dims reordered: dim i of the result is dim
--- dims[i] of x (1-based, one for each dim of x). x:permute(dims...) is the same.
--- Example: torch.permute(torch.zeros(2, 3, 4), 3, 1, 2):size()
local function permute(t, ...)
  check_tensor('permute', t, 1)
  local p = t.p
  local n = types.read_sizes('permute', dims_a, ...)
  if n ~= p.ndim then fail('permute', 'got %d dims for a %dD tensor', n, p.ndim) end
  for i = 0, n - 1 do dims_a[i] = cdim('permute', tonumber(dims_a[i]), p.ndim) end
  return (wrap(C.tocha_permute(p, n, dims_a)))
end
methods.permute, torch.permute = permute, permute

--- t:view(sizes...) (one size may be -1); res:view(src, sizes...) sets res to the view.
--- Example: torch.range(1, 6):view(2, -1)
local function view(t, a1, ...)
  check_tensor('view', t, 1)
  -- Note [A lone tensor is sizes]: Torch7's result form res:view(src, sizes...) always has
  -- sizes, so x:view(sizesLongTensor) alone is sizes, as for reshape and expand (it made x a
  -- 0-dim view of the LongTensor, an error about 'size []').
  if is_tensor(a1) and select('#', ...) == 0 and a1.p.dtype ~= types.I64 then
    fail('view', 'expected sizes (numbers, a table, a LongStorage or a LongTensor), got a %s', types.describe(a1))
  end
  if is_tensor(a1) and select('#', ...) > 0 then
    local v = view(a1, ...)
    methods.set(t, v)
    return t
  end
  local n = types.read_sizes('view', dims_a, a1, ...)
  return (wrap(C.tocha_view(t.p, n, dims_a)))
end
methods.view, torch.view = view, view
--- torch.viewAs(x, template): x:view(template:size()), a view of x with template's sizes (the
--- element counts must match and x's strides must allow a view). x:viewAs(template) is the same.
--- Example: torch.viewAs(torch.range(1, 6), torch.zeros(2, 3))
function methods.viewAs(t, template, template2)
  -- Torch7's result form: res:viewAs(src, template) sets res to the view.
  if template2 ~= nil then return (view(t, template, check_tensor('viewAs', template2, 2):size())) end
  return (view(t, check_tensor('viewAs', template, 1):size()))
end
torch.viewAs = methods.viewAs

--- A view when the strides allow it, else a copy (PyTorch's reshape).
--- Example: torch.range(1, 6):view(2, 3):t():reshape(6)
local function reshape(t, ...)
  check_tensor('reshape', t, 1)
  -- Torch7's result form: torch.reshape(res, x, sizes...) and res:reshape(x, sizes...) resize res
  -- and copy x into it (THTensor_reshape). A lone tensor argument is sizes (a LongTensor).
  if is_tensor((...)) and select('#', ...) > 1 then
    local r = reshape(...)
    if torch.type(t) ~= torch.type(r) then fail('reshape', 'result is a %s, the source a %s', torch.type(t), torch.type(r)) end
    t:resize(r:size()):copy(r)
    return t
  end
  local n = types.read_sizes('reshape', dims_a, ...)
  return (wrap(C.tocha_reshape(t.p, n, dims_a)))
end
methods.reshape, torch.reshape = reshape, reshape
-- x:flatten([startDim [, endDim]]) is torch.flatten (lua/torch/tensor_pytorch_shape.lua).

--- torch.expand(x, sizes...): a view of x repeated along its size-1 dims (stride 0, no copy) to
--- the given sizes, as numbers, a table or a LongStorage; new leading dims may be added.
--- Writing into the result writes the shared elements. x:expand(sizes...) is the same.
--- Example: torch.expand(torch.Tensor({{1}, {2}}), 2, 3)
local function expand(t, ...)
  check_tensor('expand', t, 1)
  -- Torch7's result form: torch.expand(res, x, sizes...) and res:expand(x, sizes...) set res to
  -- the view. A lone tensor argument is sizes (a LongTensor), as before.
  if is_tensor((...)) and select('#', ...) > 1 then return (t:set(expand(...))) end
  local n = types.read_sizes('expand', dims_a, ...)
  return (wrap(C.tocha_expand(t.p, n, dims_a)))
end
methods.expand, torch.expand = expand, expand
--- torch.expandAs(x, template): x:expand(template:size()), a view of x expanded to template's
--- sizes. x:expandAs(template) is the same.
--- Example: torch.expandAs(torch.Tensor({{1}, {2}}), torch.zeros(2, 3))
function methods.expandAs(t, template, template2)
  -- Torch7's result form: res:expandAs(x, template) sets res to the view.
  if template2 ~= nil then return (t:set(expand(check_tensor('expandAs', template, 1), check_tensor('expandAs', template2, 2):size()))) end
  return (expand(t, check_tensor('expandAs', template, 1):size()))
end
torch.expandAs = methods.expandAs

--- torch.unfold(x, dim, size, step): a view of all slices of length size along dim (1-based),
--- taken every step elements: dim then has floor((n - size) / step) + 1 entries and a new last
--- dim of length size holds each slice. x:unfold(dim, size, step) is the same.
--- Example: torch.unfold(torch.range(1, 5), 1, 2, 1)
local function unfold(t, dim, size, step)
  check_tensor('unfold', t, 1)
  if type(size) ~= 'number' or type(step) ~= 'number' then fail('unfold', 'expected (dim, size, step) numbers') end
  if size ~= math.floor(size) or step ~= math.floor(step) then
    fail('unfold', 'size and step must be integers, got %s and %s', tostring(size), tostring(step))
  end
  return (wrap(C.tocha_unfold(t.p, cdim('unfold', dim, t.p.ndim), size, step)))
end
methods.unfold, torch.unfold = unfold, unfold

-- squeeze/unsqueeze return views (PyTorch); Torch7's method form changed the tensor in place.
--- torch.squeeze(x [, dim]): a view of x without its size-1 dims, or without dim (1-based) only
--- when it has size 1 (otherwise the same shape). x:squeeze() also returns a new view and leaves
--- x unchanged (Torch7 squeezed x in place).
--- Example: torch.squeeze(torch.zeros(2, 1, 3)):size()
local function squeeze(t, dim, dim2)
  -- Torch7's result form torch.squeeze(res, x [, dim]): res becomes that view of x (shares its storage).
  if is_tensor(t) and is_tensor(dim) then return (t:set(squeeze(dim, dim2))) end
  check_tensor('squeeze', t, 1)
  if dim == nil then return (wrap(C.tocha_squeeze(t.p))) end
  return (wrap(C.tocha_squeeze_dim(t.p, cdim('squeeze', dim, t.p.ndim))))
end
methods.squeeze, torch.squeeze = squeeze, squeeze

--- torch.unsqueeze(x, dim): a view of x with a new dim of size 1 at position dim (1-based, from
--- 1 to x:dim() + 1; negative counts from the end). x:unsqueeze(dim) is the same.
--- Example: torch.unsqueeze(torch.zeros(2, 3), 1):size()
local function unsqueeze(t, dim)
  check_tensor('unsqueeze', t, 1)
  return (wrap(C.tocha_unsqueeze(t.p, cdim('unsqueeze', dim, t.p.ndim + 1))))
end
methods.unsqueeze, torch.unsqueeze = unsqueeze, unsqueeze

--- A view with explicit sizes, strides and a 1-based storage offset.
--- Example: torch.range(1, 6):asStrided({2, 2}, {1, 2}, 1)
function methods.asStrided(t, sizes, strides, offset)
  check_tensor('asStrided', t, 1)
  if offset ~= nil and (type(offset) ~= 'number' or offset ~= math.floor(offset) or offset < 1) then
    fail('asStrided', 'storage offset must be a 1-based integer, got %s', type(offset) == 'number' and tostring(offset) or types.describe(offset))
  end
  local n = types.read_sizes('asStrided', dims_a, sizes)
  local st = ffi.new('int64_t[16]')
  if types.read_sizes('asStrided', st, strides) ~= n then fail('asStrided', 'sizes and strides differ in length') end
  return (wrap(C.tocha_as_strided(t.p, n, dims_a, st, (offset or t:storageOffset()) - 1)))
end

--- Splits along dim (default 1) into views of at most `size` elements each.
local function split(t, size, dim, dim2)
  local result
  if type(t) == 'table' then  -- Torch7's torch.split(result, t, size, dim)
    result, t, size, dim = t, size, dim, dim2
    for k in pairs(result) do result[k] = nil end
  end
  check_tensor('split', t, 1)
  result = result or {}
  dim = dim or 1
  if type(size) ~= 'number' or size < 1 or size ~= math.floor(size) then
    fail('split', 'split size must be a positive integer, got %s', type(size) == 'number' and tostring(size) or types.describe(size))
  end
  if t.p.ndim == 0 then fail('split', 'expected a tensor with at least one dimension, got a 0-dim tensor') end
  local cd = cdim('split', dim, t.p.ndim)
  dim = cd < 0 and cd + t.p.ndim + 1 or cd + 1
  local n = t:size(dim)
  local start = 1
  while start <= n do
    local len = math.min(size, n - start + 1)
    result[#result + 1] = narrow(t, dim, start, len)
    start = start + len
  end
  return result
end
methods.split, torch.split = split, split

--- torch.chunk(x, n [, dim]): splits x along dim (1-based, default 1) into at most n views of
--- ceil(size / n) elements each (the last may be smaller), returned in a Lua table.
--- x:chunk(n, dim) is the same.
--- Example: torch.chunk(torch.range(1, 5), 2)
local function chunk(t, nchunks, dim, dim2)
  local result
  if type(t) == 'table' then  -- Torch7's torch.chunk(result, t, n, dim), as split's
    result, t, nchunks, dim = t, nchunks, dim, dim2
  end
  check_tensor('chunk', t, 1)
  dim = dim or 1
  if type(nchunks) ~= 'number' or nchunks < 1 or nchunks ~= math.floor(nchunks) then
    fail('chunk', 'number of chunks must be a positive integer, got %s', type(nchunks) == 'number' and tostring(nchunks) or types.describe(nchunks))
  end
  if t.p.ndim == 0 then fail('chunk', 'expected a tensor with at least one dimension, got a 0-dim tensor') end
  local cd = cdim('chunk', dim, t.p.ndim)
  local size = math.max(1, math.ceil(tonumber(t.p.size[cd < 0 and cd + t.p.ndim or cd]) / nchunks))
  if result then return (split(result, t, size, dim)) end
  return (split(t, size, dim))
end
methods.chunk, torch.chunk = chunk, chunk

--- A copy of t tiled `sizes` times along each dim (Torch7's repeatTensor): at least one count per
--- dim of t, extra counts add leading dims. Differentiable (it is torch.tile with Torch7's rule on
--- the number of counts).
--- Example: torch.Tensor({1, 2}):repeatTensor(2, 2)
function methods.repeatTensor(t, ...)
  -- Torch7's result form: torch.repeatTensor(res, x, sizes...) and res:repeatTensor(x, sizes...)
  -- write into res (a tensor followed by sizes is the source; a lone tensor argument is sizes, a
  -- LongTensor, as for expand). Read as sizes, x gave a tiled copy of res and left res as it was.
  if is_tensor(t) and is_tensor((...)) and select('#', ...) > 1 then
    local r = methods.repeatTensor(select(1, ...), select(2, ...))
    if torch.type(t) ~= torch.type(r) then
      fail('repeatTensor', 'result is a %s, the source a %s', torch.type(t), torch.type(r))
    end
    t:resizeAs(r):copy(r)
    return t
  end
  check_tensor('repeatTensor', t, 1)
  local n = types.read_sizes('repeatTensor', dims_a, ...)
  if n < t:dim() then fail('repeatTensor', 'got %d repeat counts for a %dD tensor', n, t:dim()) end
  if n > 8 then fail('repeatTensor', 'at most 8 repeat counts, got %d', n) end  -- tile's limit
  local total = 1  -- checked here so that the error names repeatTensor, not tile
  for i = 0, n - 1 do
    if dims_a[i] < 0 then fail('repeatTensor', 'repeat count %d is negative (%d)', i + 1, tonumber(dims_a[i])) end
    local d = i - (n - t:dim())
    total = total * tonumber(dims_a[i]) * (d >= 0 and t:size(d + 1) or 1)
  end
  if total >= 2 ^ 62 then
    fail('repeatTensor', 'repeating a tensor of size %s by %s gives too many elements', types.shape_str(t.p),
         table.concat(types.size_table({ ndim = n, size = dims_a }), 'x'))
  end
  return (wrap(C.tocha_tile(t.p, n, dims_a)))
end
torch.repeatTensor = methods.repeatTensor

return torch
