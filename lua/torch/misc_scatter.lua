-- PyTorch's out-of-place scatters into views: diagonalScatter, selectScatter, sliceScatter
-- (Note [Scatters through positions]), and indexReduce on scatterReduce.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local fail = lib.fail
local is_tensor, describe, check_tensor, cdim = types.is_tensor, types.describe, types.check_tensor, types.cdim
local methods = torch._tensor_methods

-- Note [Scatters through positions]: x's view (a diagonal, a slice, a selected slice) is taken of
-- a LongTensor holding 1..numel(x) in x's shape; its elements are the flat positions of the
-- view, and torch.indexCopy on x flattened writes src there. indexCopy is differentiable in x
-- (zero gradient at the written places) and in src, and runs on every device, so these need no
-- kernel of their own.
local function scatter_view(op, x, src, view)
  check_tensor(op, x, 1)
  if not is_tensor(src) then fail(op, 'expected src (a tensor), got %s', describe(src)) end
  local pos = torch.arange(torch.LongTensor(), 1, x:nElement() + 1):view(x:size())
  local where = view(pos)
  if not where:isSameSizeAs(src) then
    fail(op, 'src has size %s but the view it replaces has size %s', types.shape_str(src.p), types.shape_str(where.p))
  end
  if src.p.dtype ~= x.p.dtype then
    fail(op, 'src is a %s but x is a %s', types.typename(src), types.typename(x))
  end
  if x.p.device_type ~= 0 then where = torch._to_device(where, x:device()) end
  local flat = x:contiguous():view(-1)
  local out = torch.indexCopy(flat, 1, where:contiguous():view(-1), src:contiguous():view(-1))
  return (out:view(x:size()))
end

local function integer(op, v, what)
  if type(v) ~= 'number' or v ~= math.floor(v) then
    fail(op, '%s must be an integer, got %s', what, type(v) == 'number' and tostring(v) or describe(v))
  end
  return v
end

--- torch.diagonalScatter(x, src [, offset = 0 [, dim1 = 1 [, dim2 = 2]]]): a copy of x whose
--- diagonal torch.diagonal(x, offset, dim1, dim2) is src (PyTorch's diagonal_scatter).
--- Differentiable in x and src. x:diagonalScatter(...) is the same.
--- Example: torch.diagonalScatter(torch.zeros(3, 3), torch.ones(3))
function torch.diagonalScatter(x, src, offset, dim1, dim2)
  if type(offset) == 'table' and getmetatable(offset) == nil then
    offset, dim1, dim2 = offset.offset, offset.dim1, offset.dim2
  end
  offset = integer('diagonalScatter', offset or 0, 'offset')
  return (scatter_view('diagonalScatter', x, src, function(pos)
    if pos:dim() < 2 then fail('diagonalScatter', 'expected x with at least 2 dimensions, got %s', describe(x)) end
    return torch.diagonal(pos, offset, dim1 or 1, dim2 or 2)
  end))
end
methods.diagonalScatter = torch.diagonalScatter

--- torch.selectScatter(x, src, dim, index): a copy of x whose slice x:select(dim, index) is src
--- (1-based dim and index, negative from the end; PyTorch's select_scatter). Differentiable.
--- x:selectScatter(...) is the same.
--- Example: torch.selectScatter(torch.zeros(2, 3), torch.ones(3), 1, 2)
function torch.selectScatter(x, src, dim, index)
  return (scatter_view('selectScatter', x, src, function(pos)
    if pos:dim() == 0 then fail('selectScatter', 'expected x with at least 1 dimension, got a 0-dim tensor') end
    local d = cdim('selectScatter', dim, pos:dim()) % pos:dim() + 1  -- cdim keeps a negative dim negative
    local i = types.cindex('selectScatter', integer('selectScatter', index, 'index'), pos:size(d)) + 1
    return pos:select(d, i)
  end))
end
methods.selectScatter = torch.selectScatter

--- torch.sliceScatter(x, src [, dim = 1 [, start = 1 [, stop = size [, step = 1]]]]): a copy of x
--- whose elements start, start + step, ... up to stop (inclusive, 1-based, negative from the
--- end) along dim are src (PyTorch's slice_scatter, whose end is exclusive and 0-based).
--- Options may come as a table {dim=, start=, stop=, step=}. Differentiable.
--- Example: torch.sliceScatter(torch.zeros(4), torch.ones(2), 1, 1, 4, 2)
function torch.sliceScatter(x, src, dim, start, stop, step)
  if type(dim) == 'table' and getmetatable(dim) == nil then
    dim, start, stop, step = dim.dim, dim.start, dim.stop, dim.step
  end
  local op = 'sliceScatter'
  return (scatter_view(op, x, src, function(pos)
    if pos:dim() == 0 then fail(op, 'expected x with at least 1 dimension, got a 0-dim tensor') end
    local d = cdim(op, dim or 1, pos:dim()) % pos:dim() + 1  -- cdim keeps a negative dim negative
    local n = pos:size(d)
    local s = integer(op, start or 1, 'start')
    local e = integer(op, stop or n, 'stop')
    local k = integer(op, step or 1, 'step')
    if k < 1 then fail(op, 'step must be positive, got %d', k) end
    if s < 0 then s = s + n + 1 end
    if e < 0 then e = e + n + 1 end
    s, e = math.max(s, 1), math.min(e, n)
    if e < s then return pos:narrow(d, 1, 0) end
    local len = math.floor((e - s) / k) + 1
    if k == 1 then return pos:narrow(d, s, len) end
    return pos:narrow(d, s, (len - 1) * k + 1):unfold(d, 1, k):select(pos:dim() + 1, 1)
  end))
end
methods.sliceScatter = torch.sliceScatter

local REDUCTIONS = { prod = true, mean = true, amax = true, amin = true }

--- torch.indexReduce(x, dim, index, source, reduce [, {includeSelf = true}]): a copy of x where
--- slice index[i] (1-based) along dim is reduced with source's slice i by reduce 'prod', 'mean',
--- 'amax' or 'amin'; includeSelf = false leaves x's own values out of the slices that receive
--- any (PyTorch 1.13's index_reduce; integer 'mean' rounds down). Built on scatterReduce, so it
--- is differentiable in x and source. x:indexReduce(...) is the same.
--- Example: torch.indexReduce(torch.ones(3), 1, torch.LongTensor({1, 1}), torch.Tensor({2, 3}), 'prod')
function torch.indexReduce(x, dim, index, source, reduce, opts)
  local op = 'indexReduce'
  check_tensor(op, x, 1)
  local d = cdim(op, dim, x.p.ndim) % math.max(x.p.ndim, 1) + 1  -- cdim keeps a negative dim negative
  if not is_tensor(index) or index.p.dtype ~= lib.dtype.i64 or index.p.ndim > 1 then
    fail(op, 'expected index (a 1-D LongTensor), got %s', describe(index))
  end
  if not is_tensor(source) then fail(op, 'expected source (a tensor), got %s', describe(source)) end
  if not REDUCTIONS[reduce] then
    fail(op, "reduce must be 'prod', 'mean', 'amax' or 'amin', got %s", type(reduce) == 'string' and "'" .. reduce .. "'" or describe(reduce))
  end
  local include = true
  if opts ~= nil then
    if type(opts) == 'boolean' then include = opts
    elseif type(opts) == 'table' and getmetatable(opts) == nil then include = opts.includeSelf ~= false
    else fail(op, 'expected options {includeSelf=}, got %s', describe(opts)) end
  end
  if source.p.ndim ~= x.p.ndim then
    fail(op, 'source must have as many dims as x (%d), got %s', x.p.ndim, describe(source))
  end
  local n = index:nElement()
  for i = 1, x.p.ndim do
    local want = i == d and n or x:size(i)
    if source:size(i) ~= want then
      fail(op, 'source has size %s; expected %d along dim %d (%s)', types.shape_str(source.p), want, i,
        i == d and 'the number of indices' or 'as x')
    end
  end
  -- checked here so that the errors name indexReduce, not the scatterReduce it runs on
  if source.p.dtype ~= x.p.dtype then
    fail(op, 'source is a %s but x is a %s; expected one type', types.typename(source), types.typename(x))
  end
  local size = x.p.ndim == 0 and 1 or x:size(d)
  if n > 0 then
    local lo, hi = index:min(), index:max()
    if lo < 1 or hi > size then
      fail(op, 'index %d is out of range for dim %d of size %d (indices are 1-based)', lo < 1 and lo or hi, d, size)
    end
  end
  -- index[i] for every element of source: index viewed along dim d and expanded to source's shape.
  local shape = {}
  for i = 1, x.p.ndim do shape[i] = i == d and n or 1 end
  local full = index:contiguous():view(torch.LongStorage(shape)):expand(source:size()):contiguous()
  return (torch.scatterReduce(x, d, full, source, reduce, include))
end
methods.indexReduce = torch.indexReduce

return torch
