-- PyTorch's rearranging functions: torch.roll, tile, movedim (moveaxis), meshgrid and diff, in C
-- as composites of recorded ops (core/ops/arrange.cpp), so they are differentiable and work on
-- every device. Dims are 1-based, negative from the end. Each returns a new tensor (movedim and
-- meshgrid: views); the methods x:roll(...), x:tile(...), x:movedim(...), x:diff(...) are the same.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, is_storage, describe, cdim, check_tensor =
  types.is_tensor, types.is_storage, types.describe, types.cdim, types.check_tensor
local methods = torch._tensor_methods

local MAX_DIMS = 16
local buf_a, buf_b = ffi.new('int64_t[?]', MAX_DIMS), ffi.new('int64_t[?]', MAX_DIMS)

-- Note [Unknown options in arrange]: as in Note [Unknown options] (lua/torch/types.lua), a misspelt
-- key was read as "no option": diff(x, {dims = 1}) differenced the last dim, roll(x, 1, {dims =
-- 1}) rolled the flattened tensor, tile(x, {reps = 2}) copied x. PyTorch rejects an unknown
-- keyword, so an options table's unknown keys, and a list's named keys, are errors naming them.
local check_opts = types.check_option_keys  -- Note [Unknown options] (lua/torch/types.lua)

-- A list given as a table has only the keys 1..n (Note [Unknown options in arrange]).
local function check_list(op, what, t)
  local n = table.maxn(t)
  for k in pairs(t) do
    if type(k) ~= 'number' or k < 1 or k ~= math.floor(k) then
      fail(op, "%s must be a list, got a table with the key '%s' (options are given by position)", what, tostring(k))
    end
  end
  return n
end

-- Reads integers given as a number, a table, a LongStorage or a 1D LongTensor into buf (dims:
-- converted to 0-based against x, else as they are); returns their count.
local function read_list(op, what, v, buf, x)
  local list
  if type(v) == 'number' then
    list = { v }
  elseif type(v) == 'table' and getmetatable(v) == nil then
    check_list(op, what, v)
    list = v
  elseif (is_storage(v) or is_tensor(v)) and v.p.dtype == types.I64 and v.p.ndim <= 1 then
    list = v:totable()
    if type(list) == 'number' then list = { list } end
  else
    fail(op, 'expected %s as a number, a table or a LongStorage, got %s', what, describe(v))
  end
  local n = table.maxn(list)
  if n > MAX_DIMS then fail(op, 'at most %d %s, got %d', MAX_DIMS, what, n) end
  for i = 1, n do
    local d = list[i]
    -- +-inf and |d| >= 2^63 would reach the int64_t buffer as -2^63 (a shift of 1e300 rolled by
    -- whatever that wraps to), so they fail here as PyTorch's overflow check does.
    if type(d) ~= 'number' or d ~= math.floor(d) or d >= 2 ^ 63 or d < -2 ^ 63 then
      fail(op, '%s %d is %s, expected an integer', what, i, type(d) == 'number' and tostring(d) or 'a ' .. describe(d))
    end
    buf[i - 1] = x and cdim(op, d, x.p.ndim) or d
  end
  return n
end

--- torch.roll(x, shifts [, dims]): a copy of x with its elements shifted by shifts places along
--- dims (numbers, or tables of as many shifts as dims; 1-based, negative from the end), wrapping
--- around; negative shifts go the other way, shifts larger than the size wrap. Without dims, x is
--- rolled as if flattened (one shift) and keeps its shape. PyTorch's torch.roll; differentiable.
--- x:roll(shifts [, dims]) is the same.
--- Example: torch.roll(torch.Tensor({{1, 2, 3}, {4, 5, 6}}), 1, 2)
function torch.roll(x, shifts, dims)
  check_tensor('roll', x, 1)
  if shifts == nil then fail('roll', 'expected shifts (a number or a table), got nil') end
  local ns = read_list('roll', 'shifts', shifts, buf_a)
  local nd = dims == nil and 0 or read_list('roll', 'dims', dims, buf_b, x)
  return (wrap(C.tocha_roll(x.p, ns, buf_a, nd, buf_b)))
end
methods.roll = torch.roll

--- torch.tile(x, reps): x repeated reps[i] times along each dim (numbers or a table). Fewer reps
--- than x has dims count as leading 1s, more add leading dims (PyTorch's tile; Torch7's
--- repeatTensor wants at least x:dim() counts). A new tensor; differentiable. x:tile(reps) is the
--- same.
--- Example: torch.tile(torch.Tensor({1, 2}), 2, 2)
function torch.tile(x, ...)
  check_tensor('tile', x, 1)
  if select('#', ...) == 0 then fail('tile', 'expected repetitions (numbers or a table), got none') end
  -- read_sizes truncates 1.5 to 1 and the FFI wraps inf to -2^63: repetitions are checked first
  local first = ...
  local list = type(first) == 'table' and getmetatable(first) == nil and first or { ... }
  if list == first then check_list('tile', 'repetitions', first) end
  for i = 1, #list do
    local r = list[i]
    if type(r) == 'number' and (r ~= math.floor(r) or r >= 2 ^ 63) then
      fail('tile', 'repetition %d is %s, expected an integer', i, tostring(r))
    end
  end
  local n = types.read_sizes('tile', buf_a, ...)
  return (wrap(C.tocha_tile(x.p, n, buf_a)))
end
methods.tile = torch.tile

--- torch.movedim(x, source, destination): a view of x with dims source (a number or a table of
--- 1-based dims, negative from the end) moved to the places destination (as many), the other
--- dims keeping their order (PyTorch's movedim; a permute). torch.moveaxis is the same, and so
--- are x:movedim(source, destination) and x:moveaxis(...).
--- Example: torch.movedim(torch.zeros(2, 3, 4), 1, -1):size()
function torch.movedim(x, source, destination)
  check_tensor('movedim', x, 1)
  local n = read_list('movedim', 'source dims', source, buf_a, x)
  local m = read_list('movedim', 'destination dims', destination, buf_b, x)
  if n ~= m then
    fail('movedim', 'got %d source dims but %d destination dims; expected as many of each', n, m)
  end
  return (wrap(C.tocha_movedim(x.p, n, buf_a, buf_b)))
end
methods.movedim = torch.movedim

--- torch.moveaxis(x, source, destination): torch.movedim (NumPy's name).
--- Example: torch.moveaxis(torch.zeros(2, 3, 4), {1, 2}, {3, 1}):size()
function torch.moveaxis(x, source, destination) return (torch.movedim(x, source, destination)) end
methods.moveaxis = torch.moveaxis

local grid_in = ffi.new('const tocha_tensor *[?]', MAX_DIMS)
local grid_out = ffi.new('tocha_tensor *[?]', MAX_DIMS)

--- torch.meshgrid(x1, x2, ... [, indexing]): coordinate grids of n 0-dim or 1D tensors (given as
--- arguments or in one table), returned in a table of n tensors of size #x1 x #x2 x ...; grid i
--- varies along dim i with the values of xi. indexing 'ij' (the default) as above, or 'xy'
--- (NumPy's Cartesian indexing: the first two dims swapped, size #x2 x #x1 x ...). Like PyTorch's,
--- indexing may also come as a trailing options table, torch.meshgrid(x1, x2, {indexing = 'xy'}). Like PyTorch's,
--- the grids are views of expanded tensors: they share memory with the inputs and with each
--- other's elements, so copy one (:clone()) before writing into it. Differentiable.
--- Example: torch.meshgrid(torch.Tensor({1, 2, 3}), torch.Tensor({4, 5}))[1]
function torch.meshgrid(...)
  local list, indexing = { ... }, nil
  local n = select('#', ...)
  -- a trailing plain table after at least one argument is the options ({indexing = 'xy'})
  if n >= 2 and type(list[n]) == 'table' and getmetatable(list[n]) == nil then
    indexing = check_opts('meshgrid', list[n], 'indexing').indexing
    list[n], n = nil, n - 1
    if indexing == nil then indexing = false end  -- given as options: no string after them
  end
  if type(list[1]) == 'table' and getmetatable(list[1]) == nil then
    if n > 2 or (n == 2 and indexing ~= nil) then
      fail('meshgrid', 'tensors given in a table take only an indexing after them')
    end
    if n == 2 then indexing = list[2] end
    list = list[1]
    check_list('meshgrid', 'the tensors', list)
  elseif indexing == nil then
    if type(list[n]) == 'string' or (n > 0 and list[n] == nil) then
      indexing, list[n] = list[n], nil
    end
  end
  if indexing == false then indexing = nil end
  if indexing ~= nil and indexing ~= 'ij' and indexing ~= 'xy' then
    local got = type(indexing) == 'string' and "'" .. indexing .. "'" or describe(indexing)
    fail('meshgrid', "indexing must be 'ij' or 'xy', got %s", got)
  end
  local n = table.maxn(list)
  if n == 0 then fail('meshgrid', 'expected at least one tensor') end
  if n > MAX_DIMS then fail('meshgrid', 'at most %d tensors, got %d', MAX_DIMS, n) end
  for i = 1, n do
    if not is_tensor(list[i]) then
      fail('meshgrid', 'expected a tensor as argument %d, got %s', i, describe(list[i]))
    end
    grid_in[i - 1] = list[i].p
  end
  check(C.tocha_meshgrid(n, grid_in, indexing == 'xy' and 1 or 0, grid_out))
  local r = {}
  for i = 1, n do r[i] = wrap(grid_out[i - 1]) end
  return r
end

-- Note [diff's number edges]: a number to prepend or append is a tensor of size 1 along dim
-- (NumPy's diff takes numbers) of the type PyTorch gives x op number (torch.result_type): 2.5
-- next to a LongTensor was filled into a LongTensor and truncated to 2 (NumPy and PyTorch with
-- a tensor [2.5] give a float result); a number next to a BoolTensor is an int64 (xor would
-- turn 2 into true). The concatenation then promotes x as with a prepended tensor.
local FLOATING = { [lib.dtype.f32] = true, [lib.dtype.f64] = true, [lib.dtype.f16] = true, [lib.dtype.bf16] = true }
local function diff_edge(op, what, v, x, d)
  if v == nil or is_tensor(v) then return v end
  if type(v) ~= 'number' and type(v) ~= 'boolean' then
    fail(op, '%s must be a tensor or a number, got %s', what, describe(v))
  end
  local p = x.p
  local id = p.dtype
  if type(v) == 'number' and not FLOATING[id] then
    if v ~= math.floor(v) or v == math.huge or v == -math.huge then
      id = types.dtype_of_name[torch.getdefaulttensortype()]
    elseif id == lib.dtype.bool then
      id = types.I64
    end
  end
  for i = 0, p.ndim - 1 do buf_a[i] = i == d and 1 or p.size[i] end
  local t = wrap(C.tocha_tensor_empty(p.ndim, buf_a, id, p.device_type, p.device_index))
  return t:fill(v == true and 1 or v == false and 0 or v)
end

--- torch.diff(x [, n = 1 [, dim = -1 [, prepend [, append]]]]): the n-th forward difference of x
--- along dim, x[i+1] - x[i] (xor for BoolTensors) applied n times, as PyTorch's torch.diff; each
--- pass makes dim one shorter (n past the size gives size 0; n = 0 is a copy of x, prepend and
--- append ignored, as PyTorch). prepend and append (tensors of x's sizes except along dim, or
--- numbers, of the type PyTorch's x op number gives: Note [diff's number edges]) are concatenated to
--- x along dim first. The options may also come as a table:
--- torch.diff(x, {n = 2, dim = 1, prepend = p}). Differentiable; x needs at least one dim.
--- x:diff(...) is the same.
--- Example: torch.diff(torch.Tensor({1, 3, 6, 10}))
function torch.diff(x, n, dim, prepend, append)
  check_tensor('diff', x, 1)
  if type(n) == 'table' and getmetatable(n) == nil then
    if dim ~= nil then fail('diff', 'options given in a table take no further arguments') end
    check_opts('diff', n, 'n', 'dim', 'prepend', 'append')
    n, dim, prepend, append = n.n, n.dim, n.prepend, n.append
  end
  if n == nil then n = 1 end
  if type(n) ~= 'number' or n ~= math.floor(n) then
    fail('diff', 'order n must be an integer, got %s', type(n) == 'number' and tostring(n) or describe(n))
  end
  -- any n past the size gives size 0; 1e300 or inf would wrap to -2^63 in the int64_t argument
  if n > 2 ^ 62 then n = 2 ^ 62 end
  if x.p.ndim == 0 then fail('diff', 'expected a tensor with at least one dimension, got a 0-dim tensor') end
  local d = cdim('diff', dim == nil and -1 or dim, x.p.ndim)
  if d < 0 then d = d + x.p.ndim end
  prepend, append = diff_edge('diff', 'prepend', prepend, x, d), diff_edge('diff', 'append', append, x, d)
  return (wrap(C.tocha_diff(x.p, n, d, prepend and prepend.p or nil, append and append.p or nil)))
end
methods.diff = torch.diff

return torch
