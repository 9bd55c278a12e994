-- PyTorch's reductions and scans for statistics: torch.amax, amin, aminmax, nansum, nanmean,
-- countNonzero, varMean, stdMean, nanmedian, logcumsumexp, cummax and cummin, in C
-- (core/ops/stats.cpp). Dims are 1-based, negative from the end, one or a table of several.
-- Note [Stats keepdim]: these are PyTorch's functions, so they drop the reduced dims unless
-- keepdim is true, as argmax does (Note [argmax and keepdim]); Torch7's sum/max keep them.
-- Without a dim they reduce every element and return a Lua number, as x:sum() does (a 0-dim
-- tensor when x requires grad: Note [Full reductions under autograd]). Methods (x:amax(2)...)
-- are the same calls and return new tensors. quantile, histogram, cov... are in stats_more.lua.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, is_storage, describe, cdim, check_tensor =
  types.is_tensor, types.is_storage, types.describe, types.cdim, types.check_tensor
local methods = torch._tensor_methods
local tracked = torch._reduce_util.tracked

local MAX_DIMS = 16
local dims_buf = ffi.new('int64_t[?]', MAX_DIMS)
local out_a, out_b = ffi.new('tocha_tensor *[1]'), ffi.new('tocha_tensor *[1]')

local S = {}
torch._stats_util = S

-- Reads dims given as nil (every dim), a number, a table or a LongStorage into dims_buf as
-- 0-based dims of x; returns their count (0: every dim).
function S.read_dims(op, v, x)
  if v == nil then return 0 end
  local list
  if type(v) == 'number' then
    list = { v }
  elseif type(v) == 'table' and getmetatable(v) == nil then
    list = v
    if #list == 0 then fail(op, 'expected at least one dim in the table') end
  elseif (is_storage(v) or is_tensor(v)) and v.p.dtype == types.I64 and v.p.ndim <= 1 then
    list = v:totable()
    if type(list) == 'number' then list = { list } end
  else
    fail(op, 'expected dims as a number, a table or a LongStorage, got %s', describe(v))
  end
  local n = table.maxn(list)
  if n > MAX_DIMS then fail(op, 'at most %d dims, got %d', MAX_DIMS, n) end
  for i = 1, n do dims_buf[i - 1] = cdim(op, list[i], x.p.ndim) end
  return n
end

function S.check_bool(op, v, what)
  if v ~= nil and type(v) ~= 'boolean' then fail(op, '%s must be a boolean, got %s', what, describe(v)) end
  return v == true
end

-- A full reduction's result as a number, unless x is tracked (then the 0-dim tensor).
function S.value(x, r)
  if tracked(x) then return r end
  local v = r:item()
  r:free()
  return v
end

-- Options may come as a table after x: {dim=, keepdim=} (PyTorch's keywords). Any other key
-- (a misspelling, or a dim listed beside them as in {2, keepdim = true}) is an error rather than
-- silently dropped (Note [Unknown options] in lua/torch/types.lua).
S.check_keys = types.check_option_keys

local function dim_args(op, dim, keepdim)
  if type(dim) == 'table' and getmetatable(dim) == nil and (dim.dim ~= nil or dim.keepdim ~= nil) then
    if keepdim ~= nil then fail(op, 'options given in a table take no further arguments') end
    S.check_keys(op, dim, 'dim', 'keepdim')
    return dim.dim, dim.keepdim
  end
  return dim, keepdim
end

local function reduce_call(op, x, dim, keepdim, f)
  check_tensor(op, x, 1)
  dim, keepdim = dim_args(op, dim, keepdim)
  keepdim = S.check_bool(op, keepdim, 'keepdim')
  local n = S.read_dims(op, dim, x)
  local r = wrap(f(n, keepdim and 1 or 0))
  if dim == nil and not keepdim then return (S.value(x, r)) end
  return r
end

--- torch.amax(x [, dims [, keepdim]]): the largest elements of x over dims (a number, or a table
--- of 1-based dims, negative from the end), a new tensor without those dims (keepdim = true keeps
--- them as size 1; PyTorch's default, unlike Torch7's max); without dims the largest element as a
--- Lua number. NaN propagates. Differentiable: ties share the gradient evenly (PyTorch's rule).
--- A dim of size 0 cannot be reduced. x:amax(...) is the same.
--- Example: torch.amax(torch.Tensor({{1, 5}, {7, 2}}), 2)
function torch.amax(x, dim, keepdim)
  return (reduce_call('amax', x, dim, keepdim, function(n, k) return C.tocha_amax(x.p, n, dims_buf, k, 1) end))
end
methods.amax = torch.amax

--- torch.amin(x [, dims [, keepdim]]): the smallest elements of x over dims, as torch.amax.
--- Example: torch.amin(torch.Tensor({{1, 5}, {7, 2}}), {1, 2})
function torch.amin(x, dim, keepdim)
  return (reduce_call('amin', x, dim, keepdim, function(n, k) return C.tocha_amax(x.p, n, dims_buf, k, 0) end))
end
methods.amin = torch.amin

--- torch.aminmax(x [, dim [, keepdim]]): torch.amin and torch.amax of x over dim (one dim, or
--- every element), returned as two results (min, max): new tensors, or two Lua numbers without a
--- dim. x:aminmax(...) is the same.
--- Example: torch.aminmax(torch.Tensor({3, 1, 2}))
function torch.aminmax(x, dim, keepdim)
  check_tensor('aminmax', x, 1)
  dim, keepdim = dim_args('aminmax', dim, keepdim)
  if dim ~= nil and type(dim) ~= 'number' then fail('aminmax', 'dim must be a number, got %s', describe(dim)) end
  return torch.amin(x, dim, keepdim), torch.amax(x, dim, keepdim)
end
methods.aminmax = torch.aminmax

--- torch.nansum(x [, dims [, keepdim]]): the sum over dims treating NaN as 0 (a new tensor
--- without those dims unless keepdim; a Lua number without dims). Integer tensors sum to a
--- LongTensor, as torch.sum. Differentiable. x:nansum(...) is the same.
--- Example: torch.nansum(torch.Tensor({1, 0/0, 2}))
function torch.nansum(x, dim, keepdim)
  return (reduce_call('nansum', x, dim, keepdim, function(n, k) return C.tocha_nansum(x.p, n, dims_buf, k, 0) end))
end
methods.nansum = torch.nansum

--- torch.nanmean(x [, dims [, keepdim]]): the mean of the non-NaN elements over dims (NaN where
--- there are none), as torch.nansum; integer tensors give the default floating type.
--- Differentiable. x:nanmean(...) is the same.
--- Example: torch.nanmean(torch.Tensor({{1, 0/0}, {2, 4}}), 2)
function torch.nanmean(x, dim, keepdim)
  return (reduce_call('nanmean', x, dim, keepdim, function(n, k) return C.tocha_nansum(x.p, n, dims_buf, k, 1) end))
end
methods.nanmean = torch.nanmean

--- torch.countNonzero(x [, dims]): the number of non-zero elements (NaN counts) over dims, a new
--- LongTensor without those dims, or a Lua number without dims (PyTorch's count_nonzero).
--- x:countNonzero(...) is the same.
--- Example: torch.countNonzero(torch.Tensor({{0, 1, 2}, {0, 0, 3}}), 2)
function torch.countNonzero(x, dim)
  check_tensor('countNonzero', x, 1)
  if type(dim) == 'table' and getmetatable(dim) == nil and dim.dim ~= nil then
    S.check_keys('countNonzero', dim, 'dim')
    dim = dim.dim
  end
  local n = S.read_dims('countNonzero', dim, x)
  local r = wrap(C.tocha_count_nonzero(x.p, n, dims_buf))
  if dim == nil then return (S.value(x, r)) end
  return r
end
methods.countNonzero = torch.countNonzero

-- varMean/stdMean: (x [, dims [, unbiased [, keepdim]]]) or (x [, dims], {correction=, keepdim=}).
local function moments(op, sqrt, x, dim, a3, a4)
  check_tensor(op, x, 1)
  local checked = false
  if type(dim) == 'table' and getmetatable(dim) == nil and (dim.dim ~= nil or dim.correction ~= nil or
      dim.keepdim ~= nil or dim.unbiased ~= nil) then
    if a3 ~= nil then fail(op, 'options given in a table take no further arguments') end
    S.check_keys(op, dim, 'dim', 'correction', 'keepdim', 'unbiased')
    dim, a3, checked = dim.dim, dim, true
  elseif type(dim) == 'boolean' then
    dim, a3, a4 = nil, dim, a3
  end
  local correction, keepdim = 1, a4
  if type(a3) == 'table' and getmetatable(a3) == nil then
    if a4 ~= nil then fail(op, 'options given in a table take no further arguments') end
    -- after a positional dim, a dim in the table would be a second, ignored one
    if not checked then S.check_keys(op, a3, 'correction', 'keepdim', 'unbiased') end
    if a3.correction ~= nil and a3.unbiased ~= nil then fail(op, 'give either correction or unbiased, not both') end
    correction, keepdim = a3.correction, a3.keepdim
    if a3.unbiased ~= nil then correction = S.check_bool(op, a3.unbiased, 'unbiased') and 1 or 0 end
    if correction == nil then correction = 1 end
    if type(correction) ~= 'number' then fail(op, 'correction must be a number, got %s', describe(correction)) end
  elseif a3 ~= nil then
    if type(a3) ~= 'boolean' then fail(op, 'unbiased must be a boolean, got %s', describe(a3)) end
    correction = a3 and 1 or 0
  end
  keepdim = S.check_bool(op, keepdim, 'keepdim')
  local n = S.read_dims(op, dim, x)
  check(C.tocha_var_mean(x.p, n, dims_buf, correction, keepdim and 1 or 0, sqrt, out_a, out_b))
  local v, m = wrap(out_a[0]), wrap(out_b[0])
  if dim == nil and not keepdim then return S.value(x, v), S.value(x, m) end
  return v, m
end
--- torch.varMean(x [, dims [, unbiased [, keepdim]]]): the variance and the mean of x over dims
--- (a number or a table; every element without dims, then two Lua numbers), returned as two
--- results, without the reduced dims unless keepdim. unbiased (PyTorch's meaning, default true)
--- divides by n - 1, false by n; or give PyTorch's correction in a table:
--- torch.varMean(x, 2, {correction = 0, keepdim = true}) divides by max(0, n - correction).
--- Differentiable. x:varMean(...) is the same.
--- Example: torch.varMean(torch.Tensor({{1, 2, 3}, {4, 6, 8}}), 2)
function torch.varMean(x, dim, a3, a4) return moments('varMean', 0, x, dim, a3, a4) end
methods.varMean = torch.varMean
--- torch.stdMean(x [, dims [, unbiased [, keepdim]]]): the standard deviation and the mean of x,
--- as torch.varMean (same arguments, same {correction=, keepdim=} table).
--- Example: torch.stdMean(torch.Tensor({1, 2, 3, 4}), {correction = 0})
function torch.stdMean(x, dim, a3, a4) return moments('stdMean', 1, x, dim, a3, a4) end
methods.stdMean = torch.stdMean

--- torch.nanmedian(x [, dim [, keepdim]]): the lower median of the non-NaN elements: of all of
--- them as a Lua number (NaN when every element is NaN), or along dim two new tensors without
--- that dim (keepdim keeps it): the medians and their 1-based indices (a LongTensor).
--- Differentiable. x:nanmedian(...) is the same.
--- Example: torch.nanmedian(torch.Tensor({{1, 0/0, 3}, {2, 5, 4}}), 2)
function torch.nanmedian(x, dim, keepdim)
  check_tensor('nanmedian', x, 1)
  dim, keepdim = dim_args('nanmedian', dim, keepdim)
  keepdim = S.check_bool('nanmedian', keepdim, 'keepdim')
  if dim == nil then
    if keepdim then fail('nanmedian', 'keepdim needs a dimension') end
    check(C.tocha_nanmedian(x.p, 0, 0, 0, 1, out_a, out_b))
    return (S.value(x, wrap(out_a[0])))
  end
  local d = cdim('nanmedian', dim, x.p.ndim)
  check(C.tocha_nanmedian(x.p, 1, d, keepdim and 1 or 0, 1, out_a, out_b))
  return wrap(out_a[0]), wrap(out_b[0])
end
methods.nanmedian = torch.nanmedian

--- torch.logcumsumexp(x [, dim = 1]): log(cumsum(exp(x))) along dim (1-based), computed as a
--- running log-add-exp so that widely ranging values neither overflow nor vanish (the result at
--- -1000 followed by 0 is -1000, then log(1 + e^-1000)). Floating-point tensors; a new tensor of
--- x's size. Differentiable. x:logcumsumexp(dim) is the same.
--- Example: torch.logcumsumexp(torch.Tensor({0, 0, 1000}))
function torch.logcumsumexp(x, dim)
  check_tensor('logcumsumexp', x, 1)
  local d = cdim('logcumsumexp', dim == nil and 1 or dim, x.p.ndim)
  return (wrap(C.tocha_logcumsumexp(x.p, d)))
end
methods.logcumsumexp = torch.logcumsumexp

local function cum_extreme(op, is_max, x, dim)
  check_tensor(op, x, 1)
  local d = cdim(op, dim == nil and 1 or dim, x.p.ndim)
  check(C.tocha_cummax(x.p, d, is_max, 1, out_a, out_b))
  return wrap(out_a[0]), wrap(out_b[0])
end
--- torch.cummax(x [, dim = 1]): the running maximum of x along dim (1-based) and where it was
--- taken: two new tensors of x's size, the values and 1-based LongTensor indices. A value equal
--- to the running maximum takes over (the index is the last of ties) and NaN sticks (PyTorch's
--- rule). Differentiable: the gradient goes to the indices. x:cummax(dim) is the same.
--- Example: torch.cummax(torch.Tensor({1, 3, 2, 3, 5}))
function torch.cummax(x, dim) return cum_extreme('cummax', 1, x, dim) end
methods.cummax = torch.cummax
--- torch.cummin(x [, dim = 1]): the running minimum of x along dim and its 1-based indices, as
--- torch.cummax. x:cummin(dim) is the same.
--- Example: torch.cummin(torch.Tensor({3, 1, 2, 1, 0}))
function torch.cummin(x, dim) return cum_extreme('cummin', 0, x, dim) end
methods.cummin = torch.cummin

return torch
