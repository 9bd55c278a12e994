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

-- Indices: a LongTensor (an IntTensor is accepted too) or a Lua table of numbers, which becomes a
-- LongTensor on the device of `like` (a CPU one refused a CUDA tensor's table of indices).
local function index_arg(op, idx, like)
  if is_tensor(idx) then return idx end
  if type(idx) == 'table' and getmetatable(idx) == nil then
    local t = torch.LongTensor(idx)
    if like and like.p.device_type ~= 0 then t = torch._to_device(t, methods.device(like), op) end
    return t
  end
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

-- More than nargs arguments after the tensor is an error: x:indexCopy(1, idx, src, 2) or
-- x:maskedFill(mask, v, extra) ignored what followed (PyTorch's alpha or reduce) and answered as
-- if it were not there.
local function check_arity(name, nargs, ...)
  for i = nargs + 1, select('#', ...) do
    if select(i, ...) ~= nil then
      fail(name, 'expected at most %d arguments after the tensor, got %s as argument %d', nargs,
        describe((select(i, ...))), i)
    end
  end
end

-- Installs the in-place method x:f(...) (returning x), its alias x:f_(...) and torch.f(x, ...),
-- which returns a changed copy. run(x, copy, ...) does either, as `copy` says; it takes nargs
-- arguments after x.
local function install_updater(name, nargs, run)
  methods[name] = function(self, ...)
    tensor_arg(name, self, 'a tensor')
    check_arity(name, nargs, ...)
    run(self, false, ...)
    return self
  end
  methods[name .. '_'] = methods[name]
  torch[name] = function(x, ...)
    tensor_arg(name, x, 'a tensor')
    check_arity(name, nargs, ...)
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
  idx = index_arg('index', idx, src)
  if res then check(C.tocha_index_select_out(res.p, src.p, d, idx.p, BASE)) return res end
  return (wrap(C.tocha_index_select(src.p, d, idx.p, BASE)))
end)

local function install_slice_update(name, f_inplace, f_copy, nargs, extra)
  install_updater(name, nargs or 3, function(x, copy, dim, idx, src, opt)
    local d = dim_arg(name, x, dim)
    idx = index_arg(name, idx, x)
    tensor_arg(name, src, 'a source tensor')
    if extra then src = extra(x, src, opt) end
    return (call(copy, f_inplace, f_copy, x.p, d, idx.p, src.p, BASE))
  end)
end
--- x:indexCopy(dim, indices, src): slice indices[i] of x along dim = src's slice i.
--- Example: torch.zeros(3):indexCopy(1, torch.LongTensor({1, 3}), torch.Tensor({7, 9}))
install_slice_update('indexCopy', C.tocha_index_copy_, C.tocha_index_copy)
--- x:indexAdd(dim, indices, src [, alpha]): slice indices[i] of x along dim += src's slice i
--- (times alpha, a number or {alpha = a}, as PyTorch's index_add).
--- Example: torch.zeros(3):indexAdd(1, torch.LongTensor({1, 1}), torch.Tensor({1, 2}))
install_slice_update('indexAdd', C.tocha_index_add_, C.tocha_index_add, 4, function(x, src, alpha)
  if type(alpha) == 'table' and getmetatable(alpha) == nil then alpha = alpha.alpha end
  if alpha == nil then return src end
  alpha = number_arg('indexAdd', alpha, 'alpha')
  local dt = x.p.dtype
  if types.int_range[dt] then
    alpha = alpha < 0 and math.ceil(alpha) or math.floor(alpha)  -- PyTorch truncates alpha for integer tensors
  end
  if alpha == 1 then return src end
  return (torch.mul(src, alpha))
end)

--- x:indexFill(dim, indices, value): slices indices[i] of x along dim = value.
--- Example: torch.zeros(3):indexFill(1, torch.LongTensor({2}), 5)
install_updater('indexFill', 3, function(x, copy, dim, idx, v)
  local d = dim_arg('indexFill', x, dim)
  idx = index_arg('indexFill', idx, x)
  v = number_arg('indexFill', v, 'a value')
  return (call(copy, C.tocha_index_fill_, C.tocha_index_fill, x.p, d, idx.p, v, BASE))
end)

-- ---- gather / scatter --------------------------------------------------------------------------

--- torch.gather([res,] src, dim, index); x:gather(dim, index) is a new tensor of index's size.
--- Example: torch.gather(torch.Tensor({{1, 2}, {3, 4}}), 2, torch.LongTensor({{2}, {1}}))
install_producer('gather', 3, function(res, src, dim, idx)
  tensor_arg('gather', src, 'a source tensor')
  local d = dim_arg('gather', src, dim)
  idx = index_arg('gather', idx, src)
  if res then check(C.tocha_gather_out(res.p, src.p, d, idx.p, BASE)) return res end
  return (wrap(C.tocha_gather(src.p, d, idx.p, BASE)))
end)

-- x:scatter(dim, idx, src, reduce): PyTorch's reduce 'add' is scatterAdd, 'multiply' is
-- scatterReduce's 'prod' with x's values included; a number src is a tensor of idx's shape.
local function scatter_reduce(x, copy, dim, idx, src, reduce)
  if type(reduce) == 'table' and getmetatable(reduce) == nil then reduce = reduce.reduce end
  if reduce ~= 'add' and reduce ~= 'multiply' then
    fail('scatter', "reduce must be 'add' or 'multiply', got %s", type(reduce) == 'string' and "'" .. reduce .. "'" or describe(reduce))
  end
  idx = index_arg('scatter', idx, x)
  if not is_tensor(src) then
    local v = number_arg('scatter', src, 'a source tensor or a value')
    local p = x.p
    src = wrap(C.tocha_tensor_empty(0, nil, p.dtype, p.device_type, p.device_index))
    methods.fill(src, v)
    src = methods.contiguous(methods.expand(src, methods.size(idx)))
  end
  if reduce == 'add' then
    if copy then return (torch.scatterAdd(x, dim, idx, src)) end
    return methods.scatterAdd(x, dim, idx, src)
  end
  if copy then return (torch.scatterReduce(x, dim, idx, src, 'prod')) end
  return methods.scatterReduce_(x, dim, idx, src, 'prod')
end

--- x:scatter(dim, index, src|value [, reduce]): x[...index[p]...] = src[p] (or value) for each p
--- of index; reduce 'add' or 'multiply' (or {reduce = ...}) adds or multiplies instead (PyTorch).
--- Example: torch.zeros(2, 2):scatter(2, torch.LongTensor({{2}, {1}}), 1)
install_updater('scatter', 4, function(x, copy, dim, idx, src, reduce)
  if reduce ~= nil then return (scatter_reduce(x, copy, dim, idx, src, reduce)) end
  local d = dim_arg('scatter', x, dim)
  idx = index_arg('scatter', idx, x)
  if is_tensor(src) then return (call(copy, C.tocha_scatter_, C.tocha_scatter, x.p, d, idx.p, src.p, BASE)) end
  local v = number_arg('scatter', src, 'a source tensor or a value')
  return (call(copy, C.tocha_scatter_value_, C.tocha_scatter_value, x.p, d, idx.p, v, BASE))
end)

--- x:scatterAdd(dim, index, src): x[...index[p]...] += src[p] (repeated targets accumulate).
--- Example: torch.zeros(3):scatterAdd(1, torch.LongTensor({1, 1, 3}), torch.Tensor({1, 2, 3}))
install_slice_update('scatterAdd', C.tocha_scatter_add_, C.tocha_scatter_add)

-- ---- masks and nonzero ---------------------------------------------------------------------------

-- Note [maskedSelect of a smaller tensor]: a mask may broadcast src to a larger shape
-- (torch.Tensor({1, 2}):maskedSelect(a 2x2 mask), as PyTorch); the backward formula writes the
-- gradient into zeros of src's own shape through the mask, which refuses the larger mask, so a
-- src that needs grad is expanded to the broadcast shape here and expand's backward sums the
-- gradient back (PyTorch's sum_to). Masks that do not broadcast (Torch7's same count of elements)
-- are left to the C++ check.
local function broadcast_to_mask(src, mask)
  local sn, mn = src.p.ndim, mask.p.ndim
  local nd = math.max(sn, mn)
  local shape, grow = {}, mn > sn
  for i = 1, nd do
    local a = i > nd - sn and tonumber(src.p.size[i - 1 - (nd - sn)]) or 1
    local b = i > nd - mn and tonumber(mask.p.size[i - 1 - (nd - mn)]) or 1
    if a ~= b and a ~= 1 and b ~= 1 then return src end
    if a == 1 and b ~= 1 then grow = true end
    shape[i] = a == 1 and b or a
  end
  if not grow then return src end
  return (methods.expand(src, torch.LongStorage(shape)))
end

--- torch.maskedSelect([res,] src, mask); x:maskedSelect(mask) is a new 1D tensor.
--- Example: torch.maskedSelect(torch.Tensor({1, 2, 3}), torch.ByteTensor({1, 0, 1}))
install_producer('maskedSelect', 2, function(res, src, mask)
  tensor_arg('maskedSelect', src, 'a source tensor')
  tensor_arg('maskedSelect', mask, 'a mask')
  if res then check(C.tocha_masked_select_out(res.p, src.p, mask.p)) return res end
  if methods.needsGrad(src) then src = broadcast_to_mask(src, mask) end
  return (wrap(C.tocha_masked_select(src.p, mask.p)))
end)

--- x:maskedFill(mask, value): x = value where mask is true (also x[mask] = value).
--- Example: torch.Tensor({1, 2, 3}):maskedFill(torch.ByteTensor({1, 0, 1}), 0)
install_updater('maskedFill', 2, function(x, copy, mask, v)
  tensor_arg('maskedFill', mask, 'a mask')
  v = number_arg('maskedFill', v, 'a value')
  return (call(copy, C.tocha_masked_fill_, C.tocha_masked_fill, x.p, mask.p, v))
end)

--- x:maskedCopy(mask, src): the true elements of mask take src's elements in order (also x[mask] = src).
--- Example: torch.zeros(3):maskedCopy(torch.ByteTensor({1, 0, 1}), torch.Tensor({7, 9}))
install_updater('maskedCopy', 2, function(x, copy, mask, src)
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
