-- PyTorch's shape and indexing helpers Torch7 lacked: torch.flatten with dims, ravel, reshapeAs,
-- splitWithSizes (and split/squeeze/nonzero taking PyTorch's table forms), sumToSize, narrowCopy,
-- argwhere, adjoint, indexSelect, x:where, concat, the unsafe* aliases, the *Copy variants of
-- the view functions, sliceCopy and conjPhysical. Built from existing ops: differentiable and
-- device-agnostic.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local doc = require 'torch.doc'
local fail = lib.fail
local is_tensor, describe, check_tensor, cdim = types.is_tensor, types.describe, types.check_tensor, types.cdim
local methods = torch._tensor_methods
local sum_sizes = require('ffi').new('int64_t[16]')

--- torch.flatten(x [, startDim = 1 [, endDim = -1]]): x with dims startDim..endDim (1-based,
--- negative from the end) merged into one; a view where x's strides allow it, a 0-dim tensor
--- becomes 1-D (PyTorch's flatten).
--- Example: torch.flatten(torch.zeros(2, 3, 4), 2):size()
function torch.flatten(x, startDim, endDim)
  check_tensor('flatten', x, 1)
  local n = x:dim()
  if n == 0 then
    -- PyTorch's dims of a 0-dim tensor: 1 or -1 here (0 or -1 there); flatten(2) was accepted
    cdim('flatten', startDim or 1, 0)
    cdim('flatten', endDim or -1, 0)
    return (x:reshape(1))
  end
  local s = cdim('flatten', startDim or 1, n) + 1
  local e = cdim('flatten', endDim or -1, n) + 1
  if s < 1 then s = s + n end
  if e < 1 then e = e + n end
  if s > e then fail('flatten', 'startDim %d comes after endDim %d', startDim, endDim or -1) end
  local sizes, merged = {}, 1
  for i = 1, n do
    if i < s or i > e then sizes[#sizes + 1] = x:size(i)
    else
      merged = merged * x:size(i)
      if i == e then sizes[#sizes + 1] = merged end
    end
  end
  return (x:reshape(sizes))
end
methods.flatten = torch.flatten  -- x:flatten(2) merged every dim before: a silent wrong result
--- torch.ravel(x): x flattened to 1-D (a view when x is contiguous). x:ravel() is the same.
--- Example: torch.ravel(torch.zeros(2, 3)):size()
function methods.ravel(x) return (check_tensor('ravel', x, 1):reshape(-1)) end
torch.ravel = methods.ravel
--- x:reshapeAs(other): x:reshape(other:size()) (a view when x's strides allow it).
--- Example: torch.range(1, 6):reshapeAs(torch.zeros(2, 3))
function methods.reshapeAs(x, other)
  check_tensor('reshapeAs', x, 1)
  return (x:reshape(check_tensor('reshapeAs', other, 2):size()))
end

--- torch.splitWithSizes(x, sizes [, dim = 1]): views of x along dim (1-based) of the given
--- lengths (a table that must sum to x:size(dim)). x:splitWithSizes(sizes, dim) is the same.
--- Example: torch.splitWithSizes(torch.range(1, 5), {2, 3})
function methods.splitWithSizes(x, sizes, dim)
  check_tensor('splitWithSizes', x, 1)
  if x:dim() == 0 then fail('splitWithSizes', 'expected a tensor with at least one dim, got a 0-dim tensor') end
  local d = cdim('splitWithSizes', dim or 1, x:dim()) + 1
  if d < 1 then d = d + x:dim() end
  if type(sizes) ~= 'table' then fail('splitWithSizes', 'expected sizes as a table, got %s', describe(sizes)) end
  local total = 0
  for i, s in ipairs(sizes) do
    if type(s) ~= 'number' or s < 0 or s ~= math.floor(s) then
      fail('splitWithSizes', 'size %d must be a non-negative integer, got %s', i, tostring(s))
    end
    total = total + s
  end
  if total ~= x:size(d) then
    fail('splitWithSizes', 'sizes sum to %d but dim %d has size %d', total, d, x:size(d))
  end
  local out, start = {}, 1
  for i, s in ipairs(sizes) do
    out[i] = x:narrow(d, start, s)
    start = start + s
  end
  return out
end
torch.splitWithSizes = methods.splitWithSizes
methods.unsafeSplitWithSizes, torch.unsafeSplitWithSizes = methods.splitWithSizes, methods.splitWithSizes
methods.unsafeChunk, torch.unsafeChunk = methods.chunk, methods.chunk
torch.concat, torch.concatenate = torch.cat, torch.cat

-- Note [PyTorch forms of existing functions]: split(x, {2, 3}), squeeze(x, {1, 3}) and
-- nonzero(x, {asTuple = true}) are PyTorch forms Torch7's functions refused with an error, so
-- they are routed here; every call the old function accepted still reaches it unchanged.
local split0 = methods.split
--- torch.split(x, size [, dim = 1]) or torch.split(x, sizes [, dim]): views of x along dim of
--- size elements each (the last may be shorter) or of the lengths in the table sizes (PyTorch's
--- split with a list: x:splitWithSizes). x:split(...) is the same.
--- Example: torch.split(torch.range(1, 5), {1, 4})
local function split(a1, a2, a3, a4)
  if is_tensor(a1) and type(a2) == 'table' then return (methods.splitWithSizes(a1, a2, a3)) end
  return (split0(a1, a2, a3, a4))
end
methods.split, torch.split = split, split
methods.unsafeSplit, torch.unsafeSplit = split, split

local squeeze0 = methods.squeeze
--- torch.squeeze(x [, dim]) or torch.squeeze(x, dims): a view of x without its size-1 dims, or
--- without those of dim or of the table dims (1-based) that have size 1 (PyTorch 2's tuple form).
--- x:squeeze(...) is the same and returns a new view.
--- Example: torch.squeeze(torch.zeros(1, 2, 1), {1, 3}):size()
local function squeeze(x, dims, ...)
  if is_tensor(x) and type(dims) == 'table' then
    local n, seen, list = x:dim(), {}, {}
    for i, d in ipairs(dims) do
      local c = cdim('squeeze', d, n)
      c = c < 0 and c + math.max(n, 1) or c
      if seen[c] then fail('squeeze', 'dim %d appears twice in dims', d) end
      seen[c], list[i] = true, c + 1
    end
    table.sort(list, function(a, b) return a > b end)
    local r = x:view(x:size())
    for _, d in ipairs(list) do
      if n > 0 then r = squeeze0(r, d) end
    end
    return r
  end
  return (squeeze0(x, dims, ...))  -- ...: the dim of Torch7's torch.squeeze(res, x, dim)
end
methods.squeeze, torch.squeeze = squeeze, squeeze

local nonzero_fn, nonzero_m = torch.nonzero, methods.nonzero
local function as_tuple(x)
  if x:dim() == 0 then x = x:view(1) end  -- PyTorch: a 0-dim tensor answers as a 1-element one
  local nz = nonzero_fn(x)
  local out = {}
  for d = 1, x:dim() do out[d] = nz:select(2, d):clone() end
  return out
end
local function wants_tuple(o) return type(o) == 'table' and getmetatable(o) == nil end
--- torch.nonzero([res,] x) or torch.nonzero(x, {asTuple = true}): an N x x:dim() LongTensor of
--- the 1-based positions of x's non-zero elements, or with asTuple a table of x:dim() 1-D
--- LongTensors, one per dim (PyTorch's as_tuple). x:nonzero(...) is the same.
--- Example: torch.nonzero(torch.Tensor({{0, 1}, {2, 0}}), {asTuple = true})
function torch.nonzero(a1, a2)
  if is_tensor(a1) and wants_tuple(a2) then
    if a2.asTuple then return as_tuple(a1) end
    return (nonzero_fn(a1))
  end
  return (nonzero_fn(a1, a2))
end
function methods.nonzero(a1, a2)
  if is_tensor(a1) and wants_tuple(a2) then return (torch.nonzero(a1, a2)) end
  return (nonzero_m(a1, a2))
end
--- torch.argwhere(x): the N x x:dim() LongTensor of the 1-based positions of x's non-zero
--- elements (PyTorch's argwhere, torch.nonzero(x)). x:argwhere() is the same.
--- Example: torch.argwhere(torch.Tensor({{0, 1}, {2, 0}}))
function methods.argwhere(x) return (nonzero_fn(check_tensor('argwhere', x, 1))) end
torch.argwhere = methods.argwhere

--- x:sumToSize(sizes...): x summed down to sizes (numbers, a table or a LongStorage), the reverse
--- of expand: sizes must be expandable to x's (PyTorch's sum_to_size). Differentiable.
--- Example: torch.ones(2, 3):sumToSize(1, 3)
function methods.sumToSize(x, ...)
  check_tensor('sumToSize', x, 1)
  local m = types.read_sizes('sumToSize', sum_sizes, ...)
  local n = x:dim()
  local target = {}
  for i = 1, m do target[i] = tonumber(sum_sizes[i - 1]) end
  if m > n then
    fail('sumToSize', 'size {%s} is not expandable to size {%s}', table.concat(target, ', '), types.shape_str(x.p))
  end
  local r = x
  for i = 1, n do
    local j = i - (n - m)
    local want = j >= 1 and target[j] or 1
    if want ~= x:size(i) then
      if want ~= 1 then
        fail('sumToSize', 'size {%s} is not expandable to size {%s}', table.concat(target, ', '), types.shape_str(x.p))
      end
      r = r:sum(i)
    end
  end
  if r == x then r = x:view(x:size()) end
  return (r:reshape(target))
end
--- torch.narrowCopy(x, dim, start, length): x:narrow(dim, start, length) copied into a new
--- tensor (start 1-based). x:narrowCopy(dim, start, length) is the same.
--- Example: torch.narrowCopy(torch.range(1, 5), 1, 2, 3)
function methods.narrowCopy(x, dim, start, length)
  return (check_tensor('narrowCopy', x, 1):narrow(dim, start, length):clone())
end
torch.narrowCopy = methods.narrowCopy
--- torch.adjoint(x): x with its last two dims swapped (the conjugate transpose, for real
--- tensors; a view). x:adjoint() is the same.
--- Example: torch.adjoint(torch.zeros(4, 2, 3)):size()
function methods.adjoint(x)
  check_tensor('adjoint', x, 1)
  if x:dim() < 2 then fail('adjoint', 'expected a tensor with at least 2 dims, got %s', describe(x)) end
  return (x:transpose(-2, -1))
end
torch.adjoint = methods.adjoint
--- torch.indexSelect(x, dim, index): the slices of x along dim (1-based) at the 1-based positions
--- in the LongTensor index (PyTorch's index_select, Torch7's x:index). x:indexSelect(dim, index)
--- is the same.
--- Example: torch.indexSelect(torch.range(1, 5), 1, torch.LongTensor({5, 1}))
function methods.indexSelect(x, dim, index)
  check_tensor('indexSelect', x, 1)
  if not is_tensor(index) then fail('indexSelect', 'expected index as a LongTensor, got %s', describe(index)) end
  return (x:index(dim, index))
end
torch.indexSelect = methods.indexSelect
--- x:where(cond, y): torch.where(cond, x, y), x's elements where cond is non-zero, else y's.
--- Example: torch.Tensor({1, 2}):where(torch.ByteTensor({1, 0}), 0)
function methods.where(x, cond, y) return (torch.where(cond, check_tensor('where', x, 1), y)) end

-- Note [*Copy variants]: PyTorch's view_copy, permute_copy... are the view functions followed by
-- a copy, so the result never shares x's storage; tables of views copy each view.
local COPIES = { 'view', 'expand', 'permute', 'transpose', 't', 'squeeze', 'unsqueeze', 'select', 'diagonal',
  'asStrided', 'detach', 'unbind', 'split', 'splitWithSizes', 'unfold' }
-- The example help() shows for each (registered with the doc, as these functions have no `---` line).
local COPY_EXAMPLES = {
  view = 'torch.viewCopy(torch.range(1, 6), 2, 3)',
  expand = 'torch.expandCopy(torch.ones(1, 3), 2, 3)',
  permute = 'torch.permuteCopy(torch.zeros(2, 3, 4), 3, 1, 2)',
  transpose = 'torch.transposeCopy(torch.zeros(2, 3), 1, 2)',
  t = 'torch.tCopy(torch.zeros(2, 3))',
  squeeze = 'torch.squeezeCopy(torch.zeros(2, 1, 3))',
  unsqueeze = 'torch.unsqueezeCopy(torch.zeros(2, 3), 1)',
  select = 'torch.selectCopy(torch.range(1, 6):view(2, 3), 1, 2)',
  diagonal = 'torch.diagonalCopy(torch.eye(3))',
  asStrided = 'torch.asStridedCopy(torch.range(1, 6), {2, 2}, {1, 2})',
  detach = 'torch.detachCopy(torch.ones(2))',
  unbind = 'torch.unbindCopy(torch.zeros(2, 3), 1)',
  split = 'torch.splitCopy(torch.range(1, 5), 2)',
  splitWithSizes = 'torch.splitWithSizesCopy(torch.range(1, 5), {2, 3})',
  unfold = 'torch.unfoldCopy(torch.range(1, 5), 1, 2, 1)',
}
for _, name in ipairs(COPIES) do
  local f = methods[name] or torch[name]
  local copy = function(x, ...)
    check_tensor(name .. 'Copy', x, 1)
    local r = f(x, ...)
    if is_tensor(r) then return (r:clone()) end
    local out = {}
    for i, v in ipairs(r) do out[i] = v:clone() end
    return out
  end
  torch[name .. 'Copy'] = copy
  doc.register(copy, 'torch.' .. name .. 'Copy(x, ...)', 'x:' .. name .. '(...) copied into new tensors '
    .. '(PyTorch\'s ' .. name .. '_copy): the result never shares x\'s storage.',
    COPY_EXAMPLES[name])
end
--- torch.aliasCopy(x): a copy of x (PyTorch's alias_copy).
--- Example: torch.aliasCopy(torch.ones(2))
function torch.aliasCopy(x) return (check_tensor('aliasCopy', x, 1):clone()) end
--- torch.sliceCopy(x [, dim = 1 [, start = 1 [, stop = size [, step = 1]]]]): a new tensor of x's
--- elements start, start + step, ... up to stop (inclusive, 1-based, negative from the end) along
--- dim, the positions torch.sliceScatter writes (PyTorch's slice_copy, whose end is exclusive and
--- 0-based). Options may come as a table {dim=, start=, stop=, step=}. Differentiable.
--- Example: torch.sliceCopy(torch.range(1, 6), 1, 2, 6, 2)
function torch.sliceCopy(x, dim, start, stop, step)
  local op = 'sliceCopy'
  check_tensor(op, x, 1)
  if type(dim) == 'table' and getmetatable(dim) == nil then
    dim, start, stop, step = dim.dim, dim.start, dim.stop, dim.step
  end
  if x:dim() == 0 then fail(op, 'expected x with at least 1 dimension, got a 0-dim tensor') end
  local function integer(v, what)
    if type(v) ~= 'number' or v ~= math.floor(v) then fail(op, '%s must be an integer, got %s', what, describe(v)) end
    return v
  end
  local d = cdim(op, dim or 1, x:dim()) + 1
  if d < 1 then d = d + x:dim() end
  local n = x:size(d)
  local s, e, k = integer(start or 1, 'start'), integer(stop or n, 'stop'), integer(step or 1, 'step')
  if k < 1 then fail(op, 'step must be positive, got %d', k) end
  if s < 0 then s = s + n + 1 end
  if e < 0 then e = e + n + 1 end
  s, e = math.max(s, 1), math.min(e, n)
  if e < s then return (x:narrow(d, 1, 0):clone()) end
  local len = math.floor((e - s) / k) + 1
  if k == 1 then return (x:narrow(d, s, len):clone()) end
  return (x:narrow(d, s, (len - 1) * k + 1):unfold(d, 1, k):select(x:dim() + 1, 1):clone())
end
--- torch.conjPhysical(x): a copy of x (the conjugate of a real tensor); x:conjPhysical() leaves
--- x as it is and returns it, as PyTorch's in-place conj_physical_ of a real tensor.
--- Example: torch.conjPhysical(torch.Tensor({1, -2}))
function torch.conjPhysical(x) return (check_tensor('conjPhysical', x, 1):clone()) end
function methods.conjPhysical(x) return (check_tensor('conjPhysical', x, 1)) end
methods.conjPhysical_ = methods.conjPhysical
