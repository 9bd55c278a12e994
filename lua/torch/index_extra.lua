-- PyTorch's indexing functions missing from Torch7 (C front-ends in core/ops/index_extra.cpp and
-- scatter_reduce.cpp): take, takeAlongDim, put, indexPut, scatterReduce, maskedScatter and isin.
-- Indices are 1-based (negative from the end where PyTorch allows it); dims 1-based. torch.f and
-- x:f return new tensors; x:f_ (put_, indexPut_, scatterReduce_, maskedScatter_) work in place.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, fail = lib.C, lib.wrap, lib.fail
local is_tensor, describe, cdim, check_tensor = types.is_tensor, types.describe, types.cdim, types.check_tensor
local methods = torch._tensor_methods

local BASE = 1

-- Indices: a LongTensor (IntTensor accepted) or a Lua table of numbers, which becomes a
-- LongTensor on the device of `like` (a CPU one refused a CUDA tensor's table of indices).
local function index_arg(op, idx, what, like)
  if is_tensor(idx) then return idx end
  if type(idx) == 'table' and getmetatable(idx) == nil then
    local t = torch.LongTensor(idx)
    if like and like.p.device_type ~= 0 then t = torch._to_device(t, methods.device(like), op) end
    return t
  end
  fail(op, 'expected %s (a LongTensor), got %s', what or 'indices', describe(idx))
end

-- A tensor argument, or a number/boolean turned into a 0-dim tensor like `like`.
local function value_arg(op, v, like, what)
  if is_tensor(v) then return v end
  if type(v) == 'number' or type(v) == 'boolean' then
    local p = like.p
    local t = wrap(C.tocha_tensor_empty(0, nil, p.dtype, p.device_type, p.device_index))
    return (t:fill(v == true and 1 or v == false and 0 or v))
  end
  fail(op, 'expected %s (a tensor or a number), got %s', what, describe(v))
end

local function flag(op, v, what, default)
  if v == nil then return default end
  if type(v) ~= 'boolean' then fail(op, '%s must be a boolean, got %s', what, describe(v)) end
  return v
end

-- x:f_(...): f's result copied into x; errors name f_, not copy (expanded x, a result of another
-- shape such as maskedScatter_'s with a mask larger than x). saves_x: f's node saves x, which the
-- copy then overwrites (backward refused it), so under autograd f reads a clone of x.
local function in_place(name, f, saves_x)
  local op = name .. '_'
  methods[op] = function(x, ...)
    check_tensor(op, x, 1)
    local p = x.p
    for d = 0, p.ndim - 1 do
      if p.stride[d] == 0 and p.size[d] > 1 then
        fail(op, 'cannot write into an expanded tensor of size %s (stride 0 in dimension %d); clone() it first',
          types.shape_str(p), d + 1)
      end
    end
    local r = f(saves_x and x:needsGrad() and x:clone() or x, ...)
    if not r:isSameSizeAs(x) then
      fail(op, 'the result has size %s but the tensor has size %s; expected one size', types.shape_str(r.p),
        types.shape_str(p))
    end
    x:copy(r)
    return x
  end
end

--- torch.take(x, indices): the elements of x seen flattened (row-major) at the 1-based indices
--- (a LongTensor or a table; negative from the end), in the indices' shape (PyTorch's take).
--- Differentiable in x; x:take(indices) is the same.
--- Example: torch.take(torch.Tensor({{1, 2}, {3, 4}}), torch.LongTensor({1, 4}))
function torch.take(x, idx)
  check_tensor('take', x, 1)
  idx = index_arg('take', idx, nil, x)
  return (wrap(C.tocha_take(x.p, idx.p, BASE)))
end
methods.take = torch.take

--- torch.takeAlongDim(x, indices [, dim]): gather(x, dim, indices) after x and indices (with as
--- many dims) broadcast against each other outside dim (PyTorch's take_along_dim; pairs with
--- argsort/argmax(keepdim) results). Without dim, torch.take of both flattened. Differentiable in
--- x; x:takeAlongDim(indices, dim) is the same.
--- Example: torch.takeAlongDim(torch.Tensor({{10, 30, 20}}), torch.LongTensor({{2, 3}}), 2)
function torch.takeAlongDim(x, idx, dim)
  check_tensor('takeAlongDim', x, 1)
  idx = index_arg('takeAlongDim', idx, nil, x)
  local d = dim ~= nil and cdim('takeAlongDim', dim, x.p.ndim) or 0
  return (wrap(C.tocha_take_along_dim(x.p, idx.p, dim ~= nil and 1 or 0, d, BASE)))
end
methods.takeAlongDim = torch.takeAlongDim

--- torch.put(x, indices, source [, accumulate = false]): a copy of x whose elements at the
--- 1-based flat indices (row-major; negative from the end) take source's elements in order, or
--- have them added with accumulate (repeated indices then add up; without it the last wins).
--- PyTorch's put. Differentiable in x and source. x:put(...) is the same; x:put_(...) writes x.
--- Example: torch.put(torch.zeros(2, 2), torch.LongTensor({1, 4}), torch.Tensor({5, 6}))
function torch.put(x, idx, source, accumulate)
  check_tensor('put', x, 1)
  idx = index_arg('put', idx, nil, x)
  source = value_arg('put', source, x, 'source')
  accumulate = flag('put', accumulate, 'accumulate', false)
  return (wrap(C.tocha_put(x.p, idx.p, source.p, accumulate and 1 or 0, BASE)))
end
methods.put = torch.put
in_place('put', torch.put)

--- torch.indexPut(x, indices, values [, accumulate = false]): a copy of x with
--- x[indices[1], indices[2], ...] = values, PyTorch's index_put (advanced indexing): indices is
--- a table of LongTensors (1-based, negative from the end) for the leading dims, broadcast
--- together, or masks (Byte/BoolTensors) standing for their true positions; values (a tensor or
--- a number) broadcast to the indexed shape; accumulate adds (repeats add up). Differentiable in
--- x and values. x:indexPut(...) is the same; x:indexPut_(...) writes x.
--- Example: torch.indexPut(torch.zeros(2, 3), {torch.LongTensor({1, 2}), torch.LongTensor({3, 1})}, 7)
function torch.indexPut(x, indices, values, accumulate)
  check_tensor('indexPut', x, 1)
  if is_tensor(indices) then indices = { indices } end
  if type(indices) ~= 'table' or getmetatable(indices) ~= nil then
    fail('indexPut', 'expected a table of index tensors, got %s', describe(indices))
  end
  local n = table.maxn(indices)
  if n == 0 then fail('indexPut', 'expected at least one index tensor') end
  if n > 16 then fail('indexPut', 'at most 16 index tensors, got %d', n) end
  local arr, keep = ffi.new('const tocha_tensor *[?]', n), {}
  for i = 1, n do
    keep[i] = index_arg('indexPut', indices[i], 'index ' .. i, x)
    arr[i - 1] = keep[i].p
  end
  values = value_arg('indexPut', values, x, 'values')
  accumulate = flag('indexPut', accumulate, 'accumulate', false)
  return (wrap(C.tocha_index_put(x.p, n, arr, values.p, accumulate and 1 or 0, BASE)))
end
methods.indexPut = torch.indexPut
in_place('indexPut', torch.indexPut)

--- torch.scatterReduce(x, dim, index, src, reduce [, includeSelf = true]): a copy of x where each
--- src[p] is reduced into x at p with p[dim] replaced by index[p] (1-based), by reduce 'sum',
--- 'prod', 'mean', 'amax' or 'amin'; includeSelf = false leaves x's own values out of the places
--- that receive elements (PyTorch 1.13's scatter_reduce; integer 'mean' rounds down, amax/amin
--- propagate NaN). includeSelf may also come as {includeSelf = false}. Differentiable in x and
--- src ('prod' too where factors are zero, as PyTorch). x:scatterReduce(...) is the same;
--- x:scatterReduce_ writes x.
--- Example: torch.scatterReduce(torch.zeros(3), 1, torch.LongTensor({1, 1, 3}), torch.Tensor({2, 5, 4}), 'amax')
function torch.scatterReduce(x, dim, index, src, reduce, include_self)
  check_tensor('scatterReduce', x, 1)
  local d = cdim('scatterReduce', dim, x.p.ndim)
  index = index_arg('scatterReduce', index, 'an index', x)
  if not is_tensor(src) then fail('scatterReduce', 'expected src (a tensor), got %s', describe(src)) end
  if type(reduce) ~= 'string' then fail('scatterReduce', 'expected reduce (a string), got %s', describe(reduce)) end
  if type(include_self) == 'table' and getmetatable(include_self) == nil then include_self = include_self.includeSelf end
  include_self = flag('scatterReduce', include_self, 'includeSelf', true)
  return (wrap(C.tocha_scatter_reduce(x.p, d, index.p, src.p, reduce, include_self and 1 or 0, BASE)))
end
methods.scatterReduce = torch.scatterReduce
in_place('scatterReduce', torch.scatterReduce, true)

--- torch.maskedScatter(x, mask, source): a copy of x (broadcast with mask) whose positions where
--- mask (a Byte/BoolTensor) is true take source's elements in row-major order (PyTorch's
--- masked_scatter; Torch7's maskedCopy in a new tensor). Differentiable in x and source.
--- x:maskedScatter(mask, source) is the same; x:maskedScatter_(...) writes x.
--- Example: torch.maskedScatter(torch.zeros(4), torch.BoolTensor({true, false, true, false}), torch.Tensor({1, 2}))
function torch.maskedScatter(x, mask, source)
  check_tensor('maskedScatter', x, 1)
  if not is_tensor(mask) then fail('maskedScatter', 'expected a mask (a ByteTensor or BoolTensor), got %s', describe(mask)) end
  if not is_tensor(source) then fail('maskedScatter', 'expected source (a tensor), got %s', describe(source)) end
  return (wrap(C.tocha_masked_scatter(x.p, mask.p, source.p)))
end
methods.maskedScatter = torch.maskedScatter
in_place('maskedScatter', torch.maskedScatter)

--- torch.isin(elements, testElements [, invert = false]): a BoolTensor of elements' shape, true
--- where the element equals one of testElements (tensors, or numbers; PyTorch's isin; NaN is never
--- found); invert = true (or {invert = true}) asks for the elements not found.
--- x:isin(testElements) is the same.
--- Example: torch.isin(torch.Tensor({1, 2, 3, 4}), torch.Tensor({2, 4}))
function torch.isin(elements, test, invert)
  if not is_tensor(elements) and not is_tensor(test) then
    fail('isin', 'expected elements or testElements to be a tensor, got %s and %s', describe(elements), describe(test))
  end
  elements = value_arg('isin', elements, is_tensor(test) and test or elements, 'elements')
  test = value_arg('isin', test, elements, 'testElements')
  if type(invert) == 'table' and getmetatable(invert) == nil then invert = invert.invert end
  invert = flag('isin', invert, 'invert', false)
  return (wrap(C.tocha_isin(elements.p, test.p, invert and 1 or 0)))
end
methods.isin = torch.isin

return torch
