-- Reductions and scans with Torch7's call forms: torch.f([res,] x [, dim]) keeps a reduced dim
-- as size 1; without a dim the result is a Lua number (a boolean for all/any); methods x:f(...)
-- are the same calls with x first (x:sum(2) is a new tensor; res:sum(x, 2) fills res); argmax
-- and argmin are max's and min's indices. Dims are 1-based. Sort-like ops (sort, topk, median,
-- mode, kthvalue) live in sort.lua.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, describe, cdim, check_tensor = types.is_tensor, types.describe, types.cdim, types.check_tensor
local methods = torch._tensor_methods

local op_id = {}
for i = 0, C.tocha_op_count() - 1 do op_id[ffi.string(C.tocha_op_name(i))] = i end

-- Helpers shared with sort.lua.
local util = {}
torch._reduce_util = util

local value_buf = ffi.new('double[1]')
local REQUIRES_GRAD = 2

-- Note [Full reductions under autograd]: Torch7 returns a Lua number for a reduction over all
-- elements; when the input requires grad and grad mode is on, the result is a 0-dim tensor
-- instead, so that `loss = (x*w):sum(); loss:backward()` works.
local function tracked(x)
  return bit.band(x.p.flags, REQUIRES_GRAD) ~= 0 and C.tocha_is_grad_enabled() ~= 0
end
util.tracked = tracked
local as_tensor = {
  var = function(x, param) return C.tocha_var_all(x.p, param) end,
  std = function(x, param) return C.tocha_std_all(x.p, param) end,
  norm = function(x, param) return C.tocha_norm_all(x.p, param) end,
  trace = function(x) return C.tocha_trace(x.p) end,
}
--- A full reduction as a Lua number (accumulated in double in C), or a 0-dim tensor when x
--- requires grad (Note [Full reductions under autograd]).
function util.value(name, x, param)
  if tracked(x) then
    local f = as_tensor[name]
    if f then return (wrap(f(x, param or 0))) end
    return (wrap(C['tocha_' .. name .. '_all'](x.p)))
  end
  check(C.tocha_reduce_value(op_id[name], x.p, param or 0, value_buf))
  return value_buf[0]
end

local pair = ffi.new('tocha_tensor *[2]')
--- Calls f(..., pair, pair + 1) and wraps the (values, indices) it returns.
function util.pair(f, ...)
  check(f(...))
  return wrap(pair[0]), wrap(pair[1])
end
util.pair_ptr = pair

--- Number of leading tensor arguments (Torch7's optional result tensors come first).
function util.leading_tensors(...)
  local n = 0
  for i = 1, select('#', ...) do
    if not is_tensor((select(i, ...))) then break end
    n = n + 1
  end
  return n
end

local function check_number(name, v, what)
  if type(v) ~= 'number' then fail(name, '%s must be a number, got %s', what, describe(v)) end
  return v
end
util.check_number = check_number

-- torch.f([res,] x [, dim]): sum, prod, mean, logsumexp (numbers), all, any (booleans).
local function install_reduction(name, boolean)
  local f_dim, f_out = C['tocha_' .. name], C['tocha_' .. name .. '_out']
  local function apply(res, x, dim)
    check_tensor(name, x, res and 2 or 1)
    if dim == nil then
      if res then fail(name, 'a result tensor needs a dimension') end
      local v = util.value(name, x)
      if boolean and type(v) == 'number' then return v ~= 0 end
      return v
    end
    local d = cdim(name, dim, x.p.ndim)
    if res then check(f_out(res.p, x.p, d, 1)) return res end
    return (wrap(f_dim(x.p, d, 1)))
  end
  local function entry(a1, a2, a3)
    if is_tensor(a2) then return (apply(a1, a2, a3)) end
    return (apply(nil, a1, a2))
  end
  torch[name], methods[name] = entry, entry
end
--- torch.sum([res,] x [, dim]): the sum of all elements as a Lua number (a 0-dim tensor when x requires grad), or the sums
--- along dim (1-based) as a new tensor with that dim kept as size 1 (a LongTensor for integer
--- and byte tensors; res is resized and filled instead when given). x:sum(dim) is the same.
--- Example: torch.sum(torch.Tensor({{1, 2, 3}, {4, 5, 6}}), 2)
install_reduction('sum')
--- torch.prod([res,] x [, dim]): the product of all elements as a Lua number (a 0-dim tensor when x requires grad),
--- or the products along dim (1-based) as a new tensor with that dim kept as size 1 (a
--- LongTensor for integer and byte tensors; res is resized and filled instead when given).
--- x:prod(dim) is the same.
--- Example: torch.prod(torch.Tensor({{1, 2, 3}, {4, 5, 6}}), 2)
install_reduction('prod')
--- torch.mean([res,] x [, dim]): the mean of all elements as a Lua number (a 0-dim tensor when x requires grad), or
--- the means along dim (1-based) as a new tensor with that dim kept as size 1 (res is resized and
--- filled instead when given); integer tensors give the default floating type. x:mean(dim) is
--- the same.
--- Example: torch.mean(torch.Tensor({{1, 2}, {3, 4}}), 1)
install_reduction('mean')
--- torch.logsumexp([res,] x [, dim]): log(sum(exp(x))) computed without overflow, over all
--- elements as a Lua number (a 0-dim tensor when x requires grad), or along dim (1-based) as a new tensor with that dim
--- kept as size 1 (res is resized and filled instead when given). x:logsumexp(dim) is the same.
--- Example: torch.logsumexp(torch.Tensor({{0, 0}, {1, 1}}), 2)
install_reduction('logsumexp')
--- torch.all([res,] x [, dim]): true when every element of x is non-zero (a Lua boolean), or
--- along dim (1-based) a new ByteTensor of 1s and 0s with that dim kept as size 1 (res is
--- resized and filled instead when given). x:all(dim) is the same.
--- Example: torch.all(torch.Tensor({{1, 2}, {0, 3}}):gt(0), 2)
install_reduction('all', true)
--- torch.any([res,] x [, dim]): true when some element of x is non-zero (a Lua boolean), or
--- along dim (1-based) a new ByteTensor of 1s and 0s with that dim kept as size 1 (res is
--- resized and filled instead when given). x:any(dim) is the same.
--- Example: torch.any(torch.Tensor({{1, 2}, {0, 3}}):gt(2), 2)
install_reduction('any', true)

-- torch.var([res,] x [, dim] [, flag]): flag = true divides by n (biased), default by n - 1.
local function install_variance(name)
  local f_dim, f_out = C['tocha_' .. name], C['tocha_' .. name .. '_out']
  local function apply(res, x, dim, flag)
    check_tensor(name, x, res and 2 or 1)
    if type(dim) == 'boolean' then dim, flag = nil, dim end
    if flag ~= nil and type(flag) ~= 'boolean' then fail(name, 'flag must be a boolean, got %s', describe(flag)) end
    local unbiased = flag and 0 or 1
    if dim == nil then
      if res then fail(name, 'a result tensor needs a dimension') end
      return (util.value(name, x, unbiased))
    end
    local d = cdim(name, dim, x.p.ndim)
    if res then check(f_out(res.p, x.p, d, unbiased, 1)) return res end
    return (wrap(f_dim(x.p, d, unbiased, 1)))
  end
  local function entry(a1, a2, a3, a4)
    if is_tensor(a2) then return (apply(a1, a2, a3, a4)) end
    return (apply(nil, a1, a2, a3))
  end
  torch[name], methods[name] = entry, entry
end
--- torch.var([res,] x [, dim] [, flag]): the variance of all elements as a Lua number (a 0-dim tensor when x requires grad),
--- or along dim (1-based) as a new tensor with that dim kept as size 1 (res is resized and
--- filled instead when given). It divides by n - 1 by default, by n when flag is true.
--- Example: torch.var(torch.Tensor({{1, 2, 3}, {4, 6, 8}}), 2)
install_variance('var')
--- torch.std([res,] x [, dim] [, flag]): the standard deviation (the square root of var) of all
--- elements as a Lua number (a 0-dim tensor when x requires grad), or along dim (1-based) as a new tensor with that
--- dim kept as size 1 (res is resized and filled instead when given). It divides by n - 1 by
--- default, by n when flag is true.
--- Example: torch.std(torch.Tensor({1, 2, 3, 4}), true)
install_variance('std')

-- torch.norm([res,] x [, p] [, dim]): p = 2 by default; p = 0 counts non-zeros, math.huge is max |x|.
local function norm_apply(res, x, p, dim)
  check_tensor('norm', x, res and 2 or 1)
  p = check_number('norm', p == nil and 2 or p, 'p')
  if dim == nil then
    if res then fail('norm', 'a result tensor needs a dimension') end
    return (util.value('norm', x, p))
  end
  local d = cdim('norm', dim, x.p.ndim)
  if res then check(C.tocha_norm_out(res.p, x.p, p, d, 1)) return res end
  return (wrap(C.tocha_norm(x.p, p, d, 1)))
end
--- torch.norm([res,] x [, p] [, dim]): the p-norm (p = 2 by default) of all elements as
--- a Lua number (a 0-dim tensor when x requires grad), or along dim (1-based) as a new tensor with that dim kept as
--- size 1 (res is resized and filled instead when given). p = 0 counts the non-zero elements and
--- p = math.huge gives the largest |x|. x:norm(p, dim) is the same.
--- Example: torch.norm(torch.Tensor({{3, 4}, {6, 8}}), 2, 2)
function torch.norm(a1, a2, a3, a4)
  if is_tensor(a2) then return (norm_apply(a1, a2, a3, a4)) end
  return (norm_apply(nil, a1, a2, a3))
end
methods.norm = torch.norm

--- torch.dist(x, y [, p]): the p-norm of x - y, a number.
--- Example: torch.dist(torch.Tensor({1, 2}), torch.Tensor({4, 6}))
function torch.dist(x, y, p)
  check_tensor('dist', x, 1)
  check_tensor('dist', y, 2)
  p = check_number('dist', p == nil and 2 or p, 'p')
  if tracked(x) or tracked(y) then return (wrap(C.tocha_dist(x.p, y.p, p))) end
  check(C.tocha_dist_value(x.p, y.p, p, value_buf))
  return value_buf[0]
end
methods.dist = torch.dist

--- torch.trace(x): the sum of a matrix's diagonal, a number.
--- Example: torch.trace(torch.Tensor({{1, 2}, {3, 4}}))
function torch.trace(x)
  check_tensor('trace', x, 1)
  return (util.value('trace', x))
end
methods.trace = torch.trace

-- torch.max([resval, resind,] x [, dim]): a number, or (values, LongTensor indices) along dim.
-- torch.max(x, y) with two tensors is the elementwise maximum (cmax), as in PyTorch.
local function install_minmax(name, elementwise)
  local f, f_out = C['tocha_' .. name], C['tocha_' .. name .. '_out']
  local function entry(...)
    local n = util.leading_tensors(...)
    local resval, resind, x, dim
    if n >= 3 then resval, resind, x, dim = ...
    elseif n == 2 then
      local a, b, c = ...
      if c == nil then return (torch[elementwise](a, b)) end
      resval, x, dim = a, b, c
    else x, dim = ... end
    check_tensor(name, x, 1)
    if dim == nil then
      if resval then fail(name, 'result tensors need a dimension') end
      return (util.value(name, x))
    end
    local d = cdim(name, dim, x.p.ndim)
    if resval then
      resind = resind or torch.LongTensor()
      check(f_out(resval.p, resind.p, x.p, d, 1, 1))
      return resval, resind
    end
    return util.pair(f, x.p, d, 1, 1, pair, pair + 1)
  end
  torch[name], methods[name] = entry, entry
end
--- torch.max([resval, resind,] x [, dim]): the largest element as a Lua number (a 0-dim tensor
--- when x requires grad); with dim (1-based), two new tensors with that dim kept as size 1: the
--- maxima and their 1-based positions along dim (a LongTensor), or resval and resind filled.
--- torch.max(a, b) with two tensors is the elementwise maximum, as torch.cmax.
--- Example: torch.max(torch.Tensor({{1, 3}, {4, 2}}), 2)
install_minmax('max', 'cmax')
--- torch.min([resval, resind,] x [, dim]): the smallest element as a Lua number (a 0-dim tensor
--- when x requires grad); with dim (1-based), two new tensors with that dim kept as size 1: the
--- minima and their 1-based positions along dim (a LongTensor), or resval and resind filled.
--- torch.min(a, b) with two tensors is the elementwise minimum, as torch.cmin.
--- Example: torch.min(torch.Tensor({{1, 3}, {4, 2}}), 2)
install_minmax('min', 'cmin')

-- torch.argmax(x [, dim [, keepdim]]): max's indices alone (Note [argmax and keepdim]).
local function install_argextreme(name)
  local f, f_all = C['tocha_' .. name], C['tocha_' .. name .. '_all']
  local function entry(x, dim, keepdim)
    check_tensor(name, x, 1)
    if keepdim ~= nil and type(keepdim) ~= 'boolean' then
      fail(name, 'keepdim must be a boolean, got %s', describe(keepdim))
    end
    if dim == nil then
      if keepdim ~= nil then fail(name, 'keepdim needs a dimension') end
      local r = wrap(f_all(x.p, 1))
      local v = r:item()
      r:free()
      return v
    end
    local d = cdim(name, dim, x.p.ndim)
    return (wrap(f(x.p, d, keepdim and 1 or 0, 1)))
  end
  torch[name], methods[name] = entry, entry
end
-- Note [argmax and keepdim]: argmax and argmin are PyTorch's functions (Torch7 had only max's
-- indices), so they take PyTorch's default and drop the reduced dim unless keepdim is true: the
-- usual `out:argmax(2):eq(labels)` then compares two N-vectors. With the dim kept, as every other
-- reduction here keeps it (Torch7's rule), that line would broadcast an Nx1 against an N into an
-- NxN mask: a silent wrong count. x:argmax(d, true) is exactly select(2, x:max(d)). Without a dim
-- the result is a Lua number like x:max()'s (PyTorch: a 0-dim tensor), the 1-based position in
-- row-major order (x:view(-1)[i] for a contiguous x).
--- torch.argmax(x [, dim [, keepdim]]): the 1-based index of the first largest element (NaN
--- counts as the largest, as in max): without dim, its position among all elements in row-major
--- order as a Lua number; along dim, a new LongTensor of max's indices without that dim (as
--- PyTorch's), or with it kept as size 1 when keepdim is true. Not differentiable.
--- x:argmax(dim) is the same.
--- Example: torch.argmax(torch.Tensor({{1, 5, 5}, {7, 2, 0}}), 2)
install_argextreme('argmax')
--- torch.argmin(x [, dim [, keepdim]]): the 1-based index of the first smallest element (NaN
--- counts as the smallest, as in min): without dim, its position among all elements in row-major
--- order as a Lua number; along dim, a new LongTensor of min's indices without that dim (as
--- PyTorch's), or with it kept as size 1 when keepdim is true. Not differentiable.
--- x:argmin(dim) is the same.
--- Example: torch.argmin(torch.Tensor({{1, 5, 5}, {7, 2, 0}}), 2)
install_argextreme('argmin')

-- torch.cumsum([res,] x [, dim]): running sums along dim (default 1, as in Torch7).
local function install_scan(name)
  local f, f_out = C['tocha_' .. name], C['tocha_' .. name .. '_out']
  local function apply(res, x, dim)
    check_tensor(name, x, res and 2 or 1)
    local d = cdim(name, dim == nil and 1 or dim, x.p.ndim)
    if res then check(f_out(res.p, x.p, d)) return res end
    return (wrap(f(x.p, d)))
  end
  local function entry(a1, a2, a3)
    if is_tensor(a2) then return (apply(a1, a2, a3)) end
    return (apply(nil, a1, a2))
  end
  torch[name], methods[name] = entry, entry
end
--- torch.cumsum([res,] x [, dim]): the running sums of x along dim (1-based, default 1): a new
--- tensor of x's size whose element i along dim is the sum of elements 1..i (integer and byte
--- tensors give a LongTensor), or res resized and filled. x:cumsum(dim) is the same.
--- Example: torch.cumsum(torch.Tensor({{1, 2, 3}, {4, 5, 6}}), 2)
install_scan('cumsum')
--- torch.cumprod([res,] x [, dim]): the running products of x along dim (1-based, default 1): a
--- new tensor of x's size whose element i along dim is the product of elements 1..i (integer and
--- byte tensors give a LongTensor), or res resized and filled. x:cumprod(dim) is the same.
--- Example: torch.cumprod(torch.Tensor({{1, 2, 3}, {4, 5, 6}}), 2)
install_scan('cumprod')

-- torch.cross([res,] a, b [, dim]): without dim, the first dim of size 3.
local function cross_apply(res, a, b, dim)
  check_tensor('cross', a, 1)
  check_tensor('cross', b, 2)
  local has, d = 0, 0
  if dim ~= nil then has, d = 1, cdim('cross', dim, a.p.ndim) end
  if res then check(C.tocha_cross_out(res.p, a.p, b.p, has, d)) return res end
  return (wrap(C.tocha_cross(a.p, b.p, has, d)))
end
--- torch.cross([res,] a, b [, dim]): the cross product of the 3-vectors of a and b along dim
--- (1-based; by default the first dim of size 3), a new tensor of a's size, or res resized and
--- filled. a:cross(b [, dim]) is the same.
--- Example: torch.cross(torch.Tensor({1, 0, 0}), torch.Tensor({0, 1, 0}))
function torch.cross(...)
  if util.leading_tensors(...) >= 3 then return (cross_apply(...)) end
  return (cross_apply(nil, ...))
end
methods.cross = torch.cross

-- torch.renorm([res,] x, p, dim, maxnorm); x:renorm(p, dim, maxnorm) works in place (Torch7).
local function renorm_apply(res, x, p, dim, maxnorm)
  check_tensor('renorm', x, res and 2 or 1)
  check_number('renorm', p, 'p')
  check_number('renorm', maxnorm, 'maxnorm')
  local d = cdim('renorm', dim, x.p.ndim)
  if res then check(C.tocha_renorm_out(res.p, x.p, p, d, maxnorm)) return res end
  return (wrap(C.tocha_renorm(x.p, p, d, maxnorm)))
end
--- torch.renorm([res,] x, p, dim, maxnorm): a new tensor (or res filled) where each slice of x
--- along dim (x:select(dim, i), dim 1-based) whose p-norm exceeds maxnorm is scaled down to norm
--- maxnorm; the other slices are copied unchanged. The method x:renorm(p, dim, maxnorm) changes
--- x in place.
--- Example: torch.renorm(torch.Tensor({{3, 4}, {1, 0}}), 2, 1, 1)
function torch.renorm(a1, a2, ...)
  if is_tensor(a2) then return (renorm_apply(a1, a2, ...)) end
  return (renorm_apply(nil, a1, a2, ...))
end
function methods.renorm(self, a1, ...)
  if is_tensor(a1) then return (renorm_apply(self, a1, ...)) end
  return (renorm_apply(self, self, a1, ...))
end
methods.renorm_ = methods.renorm

-- torch.histc([res,] x [, nbins [, min [, max]]]): 100 bins over the data's range by default.
local function histc_apply(res, x, nbins, lo, hi)
  check_tensor('histc', x, res and 2 or 1)
  nbins = check_number('histc', nbins == nil and 100 or nbins, 'nbins')
  lo = check_number('histc', lo == nil and 0 or lo, 'min')
  hi = check_number('histc', hi == nil and 0 or hi, 'max')
  if res then check(C.tocha_histc_out(res.p, x.p, nbins, lo, hi)) return res end
  return (wrap(C.tocha_histc(x.p, nbins, lo, hi)))
end
--- torch.histc([res,] x [, nbins [, min [, max]]]): a histogram of x's values: a new 1D tensor of
--- the default floating type (or res filled) counting the elements in each of nbins (default
--- 100) equal-width bins from min to max. When min and max are equal (both 0 by default) the
--- range is x's smallest to largest value; values outside the range are not counted.
--- Example: torch.histc(torch.Tensor({1, 2, 2, 3}), 3)
function torch.histc(a1, a2, ...)
  if is_tensor(a2) then return (histc_apply(a1, a2, ...)) end
  return (histc_apply(nil, a1, a2, ...))
end
methods.histc = torch.histc

return torch
