-- Indexing ops with Torch7's call forms: index/indexCopy/indexAdd/indexFill, gather/scatter/
-- scatterAdd, maskedSelect/maskedCopy/maskedFill and nonzero (1-based dims and indices). Methods
-- that change a tensor do it in place (x:indexFill(...), x:maskedFill(...)); torch.f(x, ...) of
-- those returns a changed copy. Joining and matrix helpers are in join.lua.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, describe, cdim = types.is_tensor, types.describe, types.cdim
local methods = torch._tensor_methods

local BASE = 1  -- Torch7 indices count from 1 (the C ABI's index_base)

local function tensor_arg(op, x, what)
  if not is_tensor(x) then fail(op, 'expected %s (a tensor), got %s', what, describe(x)) end
  return x
end

-- Indices: a LongTensor (an IntTensor is accepted too) or a Lua table of numbers.
local function index_arg(op, idx)
  if is_tensor(idx) then return idx end
  if type(idx) == 'table' and getmetatable(idx) == nil then return (torch.LongTensor(idx)) end
  fail(op, 'expected indices (a LongTensor), got %s', describe(idx))
end

local function number_arg(op, v, what)
  if type(v) == 'boolean' then return v and 1 or 0 end
  if type(v) ~= 'number' then fail(op, 'expected %s (a number), got %s', what, describe(v)) end
  return v
end

local function dim_arg(op, t, dim) return (cdim(op, dim, t.p.ndim)) end

-- Installs torch.f([res,] src, ...) and the methods x:f(...) (a new tensor) and res:f(src, ...)
-- (into res) for an op that reads src and `nargs` arguments in all; a result tensor is present
-- when the call has one more argument.
local function install_producer(name, nargs, apply)
  torch[name] = function(first, ...)
    if select(nargs, ...) ~= nil then return (apply(tensor_arg(name, first, 'a result tensor'), ...)) end
    return (apply(nil, first, ...))
  end
  methods[name] = function(self, ...)
    if select(nargs, ...) ~= nil then return (apply(self, ...)) end
    return (apply(nil, self, ...))
  end
end

-- Installs the in-place method x:f(...) (returning x), its alias x:f_(...) and torch.f(x, ...),
-- which returns a changed copy. run(x, copy, ...) does either, as `copy` says.
local function install_updater(name, run)
  methods[name] = function(self, ...)
    tensor_arg(name, self, 'a tensor')
    run(self, false, ...)
    return self
  end
  methods[name .. '_'] = methods[name]
  torch[name] = function(x, ...)
    tensor_arg(name, x, 'a tensor')
    return (run(x, true, ...))
  end
end

-- Calls f_copy (returning a new tensor) or f_inplace (returning a status) with the arguments.
local function call(copy, f_inplace, f_copy, ...)
  if copy then return (wrap(f_copy(...))) end
  check(f_inplace(...))
end

-- ---- slices along a dim ------------------------------------------------------------------------

--- torch.index([res,] src, dim, indices); x:index(dim, indices) is a new tensor.
--- Example: torch.index(torch.range(1, 5), 1, torch.LongTensor({5, 1}))
install_producer('index', 3, function(res, src, dim, idx)
  tensor_arg('index', src, 'a source tensor')
  local d = dim_arg('index', src, dim)
  idx = index_arg('index', idx)
  if res then check(C.tocha_index_select_out(res.p, src.p, d, idx.p, BASE)) return res end
  return (wrap(C.tocha_index_select(src.p, d, idx.p, BASE)))
end)

local function install_slice_update(name, f_inplace, f_copy)
  install_updater(name, function(x, copy, dim, idx, src)
    local d = dim_arg(name, x, dim)
    idx = index_arg(name, idx)
    tensor_arg(name, src, 'a source tensor')
    return (call(copy, f_inplace, f_copy, x.p, d, idx.p, src.p, BASE))
  end)
end
--- x:indexCopy(dim, indices, src): slice indices[i] of x along dim = src's slice i.
--- Example: torch.zeros(3):indexCopy(1, torch.LongTensor({1, 3}), torch.Tensor({7, 9}))
install_slice_update('indexCopy', C.tocha_index_copy_, C.tocha_index_copy)
--- x:indexAdd(dim, indices, src): slice indices[i] of x along dim += src's slice i.
--- Example: torch.zeros(3):indexAdd(1, torch.LongTensor({1, 1}), torch.Tensor({1, 2}))
install_slice_update('indexAdd', C.tocha_index_add_, C.tocha_index_add)

--- x:indexFill(dim, indices, value): slices indices[i] of x along dim = value.
--- Example: torch.zeros(3):indexFill(1, torch.LongTensor({2}), 5)
install_updater('indexFill', function(x, copy, dim, idx, v)
  local d = dim_arg('indexFill', x, dim)
  idx = index_arg('indexFill', idx)
  v = number_arg('indexFill', v, 'a value')
  return (call(copy, C.tocha_index_fill_, C.tocha_index_fill, x.p, d, idx.p, v, BASE))
end)

-- ---- gather / scatter --------------------------------------------------------------------------

--- torch.gather([res,] src, dim, index); x:gather(dim, index) is a new tensor of index's size.
--- Example: torch.gather(torch.Tensor({{1, 2}, {3, 4}}), 2, torch.LongTensor({{2}, {1}}))
install_producer('gather', 3, function(res, src, dim, idx)
  tensor_arg('gather', src, 'a source tensor')
  local d = dim_arg('gather', src, dim)
  idx = index_arg('gather', idx)
  if res then check(C.tocha_gather_out(res.p, src.p, d, idx.p, BASE)) return res end
  return (wrap(C.tocha_gather(src.p, d, idx.p, BASE)))
end)

--- x:scatter(dim, index, src|value): x[...index[p]...] = src[p] (or value) for each p of index.
--- Example: torch.zeros(2, 2):scatter(2, torch.LongTensor({{2}, {1}}), 1)
install_updater('scatter', function(x, copy, dim, idx, src)
  local d = dim_arg('scatter', x, dim)
  idx = index_arg('scatter', idx)
  if is_tensor(src) then return (call(copy, C.tocha_scatter_, C.tocha_scatter, x.p, d, idx.p, src.p, BASE)) end
  local v = number_arg('scatter', src, 'a source tensor or a value')
  return (call(copy, C.tocha_scatter_value_, C.tocha_scatter_value, x.p, d, idx.p, v, BASE))
end)

--- x:scatterAdd(dim, index, src): x[...index[p]...] += src[p] (repeated targets accumulate).
--- Example: torch.zeros(3):scatterAdd(1, torch.LongTensor({1, 1, 3}), torch.Tensor({1, 2, 3}))
install_slice_update('scatterAdd', C.tocha_scatter_add_, C.tocha_scatter_add)

-- ---- masks and nonzero ---------------------------------------------------------------------------

--- torch.maskedSelect([res,] src, mask); x:maskedSelect(mask) is a new 1D tensor.
--- Example: torch.maskedSelect(torch.Tensor({1, 2, 3}), torch.ByteTensor({1, 0, 1}))
install_producer('maskedSelect', 2, function(res, src, mask)
  tensor_arg('maskedSelect', src, 'a source tensor')
  tensor_arg('maskedSelect', mask, 'a mask')
  if res then check(C.tocha_masked_select_out(res.p, src.p, mask.p)) return res end
  return (wrap(C.tocha_masked_select(src.p, mask.p)))
end)

--- x:maskedFill(mask, value): x = value where mask is true (also x[mask] = value).
--- Example: torch.Tensor({1, 2, 3}):maskedFill(torch.ByteTensor({1, 0, 1}), 0)
install_updater('maskedFill', function(x, copy, mask, v)
  tensor_arg('maskedFill', mask, 'a mask')
  v = number_arg('maskedFill', v, 'a value')
  return (call(copy, C.tocha_masked_fill_, C.tocha_masked_fill, x.p, mask.p, v))
end)

--- x:maskedCopy(mask, src): the true elements of mask take src's elements in order (also x[mask] = src).
--- Example: torch.zeros(3):maskedCopy(torch.ByteTensor({1, 0, 1}), torch.Tensor({7, 9}))
install_updater('maskedCopy', function(x, copy, mask, src)
  tensor_arg('maskedCopy', mask, 'a mask')
  tensor_arg('maskedCopy', src, 'a source tensor')
  return (call(copy, C.tocha_masked_copy_, C.tocha_masked_copy, x.p, mask.p, src.p))
end)

--- torch.nonzero([res,] x): an N x x:dim() LongTensor of the 1-based positions of non-zero elements.
local function nonzero(res, x)
  tensor_arg('nonzero', x, 'a tensor')
  if res then check(C.tocha_nonzero_out(res.p, x.p, BASE)) return res end
  return (wrap(C.tocha_nonzero(x.p, BASE)))
end
function torch.nonzero(a1, a2)
  if a2 ~= nil then return (nonzero(a1, a2)) end
  return (nonzero(nil, a1))
end
function methods.nonzero(self, x)
  if x ~= nil then return (nonzero(self, x)) end
  return (nonzero(nil, self))
end

require 'torch.join'

return torch
