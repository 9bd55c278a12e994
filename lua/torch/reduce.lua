-- Reductions and scans with Torch7's call forms: torch.f([res,] x [, dim]) keeps a reduced dim
-- as size 1; without a dim the result is a Lua number (a boolean for all/any); methods x:f(...)
-- are the same calls with x first (x:sum(2) is a new tensor; res:sum(x, 2) fills res); argmax
-- and argmin are max's and min's indices. Dims are 1-based. PyTorch's keepdim, dims tables and
-- options ({dim=, keepdim=, dtype=, correction=}) are accepted after them (Note [PyTorch forms of
-- the reductions]). Sort-like ops (sort, topk, median, mode, kthvalue) live in sort.lua.
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

-- The shared argument forms: Note [PyTorch forms of the reductions] (lua/torch/reduce_args.lua).
local RA = require 'torch.reduce_args'
local is_options, read_dims, is_dims, drop_dims = RA.is_options, RA.read_dims, RA.is_dims, RA.drop_dims
local FLOATING, with_dtype, to_dtype, split_args = RA.FLOATING, RA.with_dtype, RA.to_dtype, RA.split_args
local REDUCE_OPTIONS, MINMAX_OPTIONS = RA.REDUCE_OPTIONS, RA.MINMAX_OPTIONS
util.is_options, util.split_args = is_options, split_args

-- torch.f([res,] x [, dim [, keepdim]] [, opts]): sum, prod, mean, logsumexp (numbers), all,
-- any (booleans); Note [PyTorch forms of the reductions].
local function install_reduction(name, boolean)
  local f_dim, f_out = C['tocha_' .. name], C['tocha_' .. name .. '_out']
  local allowed = (name == 'sum' or name == 'prod' or name == 'mean') and REDUCE_OPTIONS or MINMAX_OPTIONS
  local function apply(res, x, dim, keepdim, a4, a5)
    check_tensor(name, x, res and 2 or 1)
    local opts
    dim, keepdim, opts = split_args(name, allowed, dim, keepdim, a4, a5)
    local id
    x, id = with_dtype(name, x, opts.dtype, name == 'mean')
    if dim == nil then
      if not keepdim then
        if res then fail(name, 'a result tensor needs a dimension') end
        if id and not FLOATING[id] then  -- wraps in the integer dtype, as PyTorch
          local r = to_dtype(wrap(C['tocha_' .. name .. '_all'](x.p)), id)
          if tracked(x) then return r end
          return (r:item())
        end
        local v = util.value(name, x)
        if boolean and type(v) == 'number' then return v ~= 0 end
        return v
      end
      dim = RA.all_dims(x)
    end
    if is_dims(dim) then
      local dims, r = read_dims(name, dim, x), x
      for _, d in ipairs(dims) do r = wrap(f_dim(r.p, d, 1)) end
      if keepdim == false then r = drop_dims(r, dims) end
      r = to_dtype(r, id)
      if res then res:resizeAs(r):copy(r) return res end
      return r
    end
    local d, kd = cdim(name, dim, x.p.ndim), keepdim == false and 0 or 1
    if res and not id then check(f_out(res.p, x.p, d, kd)) return res end
    local r = to_dtype(wrap(f_dim(x.p, d, kd)), id)
    if res then res:resizeAs(r):copy(r) return res end
    return r
  end
  -- fixed arguments, not ...: LuaJIT leaves a call passing varargs on uncompiled (x:sum(2) was 2x slower)
  local function entry(a1, a2, a3, a4, a5, a6, a7)
    if is_tensor(a2) then return (apply(a1, a2, a3, a4, a5, a6, a7)) end
    return (apply(nil, a1, a2, a3, a4, a5, a6))
  end
  torch[name], methods[name] = entry, entry
end
--- torch.sum([res,] x [, dim [, keepdim]] [, opts]): the sum of all elements as a Lua number (a
--- 0-dim tensor when x requires grad), or the sums along dim (1-based, or a table of dims) as a
--- new tensor with the dims kept as size 1 unless keepdim is false (a LongTensor for integer and
--- byte tensors; res is resized and filled instead when given). opts: {dim=, keepdim=, dtype=}
--- (dtype converts x first, as PyTorch's). x:sum(dim) is the same.
--- Example: torch.sum(torch.Tensor({{1, 2, 3}, {4, 5, 6}}), 2)
install_reduction('sum')
--- torch.prod([res,] x [, dim [, keepdim]] [, opts]): the product of all elements as a Lua
--- number (a 0-dim tensor when x requires grad), or the products along dim (1-based, or a table
--- of dims) as a new tensor with the dims kept as size 1 unless keepdim is false (a LongTensor for
--- integer and byte tensors; res is resized and filled instead when given); opts as torch.sum's.
--- x:prod(dim) is the same.
--- Example: torch.prod(torch.Tensor({{1, 2, 3}, {4, 5, 6}}), 2)
install_reduction('prod')
--- torch.mean([res,] x [, dim [, keepdim]] [, opts]): the mean of all elements as a Lua number
--- (a 0-dim tensor when x requires grad), or the means along dim (1-based, or a table of dims) as
--- a new tensor with the dims kept as size 1 unless keepdim is false (res is resized and filled
--- instead when given); integer tensors give the default floating type; opts as torch.sum's (a
--- floating dtype). x:mean(dim) is the same.
--- Example: torch.mean(torch.Tensor({{1, 2}, {3, 4}}), 1)
install_reduction('mean')
--- torch.logsumexp([res,] x [, dim [, keepdim]]): log(sum(exp(x))) computed without overflow,
--- over all elements as a Lua number (a 0-dim tensor when x requires grad), or along dim
--- (1-based, or a table of dims) as a new tensor with the dims kept as size 1 unless keepdim is
--- false (res is resized and filled instead when given). x:logsumexp(dim) is the same.
--- Example: torch.logsumexp(torch.Tensor({{0, 0}, {1, 1}}), 2)
install_reduction('logsumexp')
--- torch.all([res,] x [, dim [, keepdim]]): true when every element of x is non-zero (a Lua
--- boolean), or along dim (1-based, or a table of dims) a new BoolTensor with the dims kept as
--- size 1 unless keepdim is false (res is resized and filled instead when given). x:all(dim) is
--- the same.
--- Example: torch.all(torch.Tensor({{1, 2}, {0, 3}}):gt(0), 2)
install_reduction('all', true)
--- torch.any([res,] x [, dim [, keepdim]]): true when some element of x is non-zero (a Lua
--- boolean), or along dim (1-based, or a table of dims) a new BoolTensor with the dims kept as
--- size 1 unless keepdim is false (res is resized and filled instead when given). x:any(dim) is
--- the same.
--- Example: torch.any(torch.Tensor({{1, 2}, {0, 3}}):gt(2), 2)
install_reduction('any', true)

-- torch.var([res,] x [, dim] [, flag] [, keepdim] [, opts]): flag = true divides by n (biased),
-- default by n - 1 (Torch7).
-- Note [var's flag and PyTorch's unbiased]: Torch7's flag (true: biased) sits where PyTorch's
-- unbiased (true: unbiased) does, with the opposite meaning; the position keeps Torch7's meaning
-- (x:var(2, true) divides by n), and PyTorch's keywords come in the options table:
-- {unbiased=, correction=, keepdim=, dim=} (unbiased with PyTorch's meaning; correction divides by
-- max(0, n - correction)). A table of dims or a correction goes through varMean's kernel.
local VAR_OPTIONS = { dim = true, keepdim = true, correction = true, unbiased = true }
local var_dims = ffi.new('int64_t[16]')
local var_out = ffi.new('tocha_tensor *[2]')
local function install_variance(name)
  local f_dim, f_out = C['tocha_' .. name], C['tocha_' .. name .. '_out']
  local function apply(res, x, dim, flag, keepdim, a5, a6)
    check_tensor(name, x, res and 2 or 1)
    if type(dim) == 'boolean' then dim, flag, keepdim, a5, a6 = nil, dim, flag, keepdim, a5 end
    if is_options(flag) then flag, keepdim, a5, a6 = nil, nil, flag, keepdim end
    if flag ~= nil and type(flag) ~= 'boolean' then fail(name, 'flag must be a boolean, got %s', describe(flag)) end
    local opts
    dim, keepdim, opts = split_args(name, VAR_OPTIONS, dim, keepdim, a5, a6)
    local correction = flag and 0 or 1
    if opts.unbiased ~= nil or opts.correction ~= nil then
      if flag ~= nil or (opts.unbiased ~= nil and opts.correction ~= nil) then
        fail(name, 'give one of flag, unbiased and correction')
      end
      if opts.unbiased ~= nil then
        if type(opts.unbiased) ~= 'boolean' then fail(name, 'unbiased must be a boolean, got %s', describe(opts.unbiased)) end
        correction = opts.unbiased and 1 or 0
      else
        correction = check_number(name, opts.correction, 'correction')
      end
    end
    if dim == nil and not keepdim then
      if res then fail(name, 'a result tensor needs a dimension') end
      if correction == 0 or correction == 1 then return (util.value(name, x, correction)) end
    end
    if is_dims(dim) and (correction == 0 or correction == 1) then
      local dims = read_dims(name, dim, x)
      if #dims == 1 then dim = dims[1] + 1 end  -- one dim: the kernel along it
    end
    if dim == nil or is_dims(dim) or (correction ~= 0 and correction ~= 1) then
      local dims = dim ~= nil and read_dims(name, is_dims(dim) and dim or { dim }, x) or {}
      if dim == nil and keepdim then for i = 1, x.p.ndim do dims[i] = i - 1 end end
      for i, d in ipairs(dims) do var_dims[i - 1] = d end
      local kd = (keepdim == false or (dim == nil and not keepdim)) and 0 or 1
      check(C.tocha_var_mean(x.p, #dims, var_dims, correction, kd, name == 'std' and 1 or 0, var_out, var_out + 1))
      local r = wrap(var_out[0])
      C.tocha_tensor_release(var_out[1])
      if dim == nil and not keepdim then
        if tracked(x) then return r end
        local v = r:item()
        r:free()
        return v
      end
      if res then res:resizeAs(r):copy(r) return res end
      return r
    end
    local d, kd = cdim(name, dim, x.p.ndim), keepdim == false and 0 or 1
    if res then check(f_out(res.p, x.p, d, correction, kd)) return res end
    return (wrap(f_dim(x.p, d, correction, kd)))
  end
  -- fixed arguments, not ...: LuaJIT leaves a call passing varargs on uncompiled (x:sum(2) was 2x slower)
  local function entry(a1, a2, a3, a4, a5, a6, a7)
    if is_tensor(a2) then return (apply(a1, a2, a3, a4, a5, a6, a7)) end
    return (apply(nil, a1, a2, a3, a4, a5, a6))
  end
  torch[name], methods[name] = entry, entry
end
--- torch.var([res,] x [, dim] [, flag [, keepdim]] [, opts]): the variance of all elements as a
--- Lua number (a 0-dim tensor when x requires grad), or along dim (1-based, or a table of dims) as
--- a new tensor with the dims kept as size 1 unless keepdim is false (res is resized and filled
--- instead when given). It divides by n - 1 by default, by n when flag is true (Torch7's flag);
--- opts {correction=, unbiased=, keepdim=, dim=} are PyTorch's keywords (Note [var's flag and
--- PyTorch's unbiased]): x:var(2, {correction = 0}).
--- Example: torch.var(torch.Tensor({{1, 2, 3}, {4, 6, 8}}), 2)
install_variance('var')
--- torch.std([res,] x [, dim] [, flag [, keepdim]] [, opts]): the standard deviation (the square
--- root of var) of all elements as a Lua number (a 0-dim tensor when x requires grad), or along
--- dim as torch.var's (same flag, keepdim and {correction=, unbiased=, keepdim=, dim=} options).
--- Example: torch.std(torch.Tensor({1, 2, 3, 4}), true)
install_variance('std')

-- torch.norm([res,] x [, p] [, dim [, keepdim]] [, opts]): p = 2 by default; p = 0 counts
-- non-zeros, math.huge is max |x|; PyTorch's 'fro' is p = 2 over the given dims (or all).
-- Several dims are reduced one after the other ((sum_i (sum_j |x_ij|^p)^(p/p))^(1/p) is the
-- p-norm over both; p = 0 sums the counts).
local NORM_OPTIONS = { p = true, dim = true, keepdim = true, dtype = true }
local function norm_apply(res, x, p, dim, keepdim, a5, a6)
  check_tensor('norm', x, res and 2 or 1)
  if is_options(p) then p, dim, keepdim, a5 = nil, p, dim, keepdim end
  local opts
  dim, keepdim, opts = split_args('norm', NORM_OPTIONS, dim, keepdim, a5, a6)
  if opts.p ~= nil then
    if p ~= nil then fail('norm', 'p given twice') end
    p = opts.p
  end
  if p == 'fro' then p = 2
  elseif p == 'nuc' then fail('norm', "p = 'nuc' is a matrix norm: use torch.linalg.matrixNorm(x, 'nuc')") end
  p = check_number('norm', p == nil and 2 or p, 'p')
  x = with_dtype('norm', x, opts.dtype, true)
  if dim == nil then
    if not keepdim then
      if res then fail('norm', 'a result tensor needs a dimension') end
      return (util.value('norm', x, p))
    end
    dim = RA.all_dims(x)
  end
  if is_dims(dim) then
    local dims, r = read_dims('norm', dim, x), x
    for i, d in ipairs(dims) do
      if p == 0 and i > 1 then r = wrap(C.tocha_sum(r.p, d, 1))
      else r = wrap(C.tocha_norm(r.p, p, d, 1)) end
    end
    if keepdim == false then r = drop_dims(r, dims) end
    if res then res:resizeAs(r):copy(r) return res end
    return r
  end
  local d, kd = cdim('norm', dim, x.p.ndim), keepdim == false and 0 or 1
  if res then check(C.tocha_norm_out(res.p, x.p, p, d, kd)) return res end
  return (wrap(C.tocha_norm(x.p, p, d, kd)))
end
--- torch.norm([res,] x [, p] [, dim [, keepdim]] [, opts]): the p-norm (p = 2 by default; 'fro'
--- is 2) of all elements as a Lua number (a 0-dim tensor when x requires grad), or along dim
--- (1-based, or a table of dims) as a new tensor with the dims kept as size 1 unless keepdim is
--- false (res is resized and filled instead when given). p = 0 counts the non-zero elements,
--- p = math.huge gives the largest |x| and -math.huge the smallest. opts: {p=, dim=, keepdim=,
--- dtype=}. x:norm(p, dim) is the same.
--- Example: torch.norm(torch.Tensor({{3, 4}, {6, 8}}), 2, 2)
function torch.norm(a1, a2, ...)
  if is_tensor(a2) then return (norm_apply(a1, a2, ...)) end
  return (norm_apply(nil, a1, a2, ...))
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

-- torch.max([resval, resind,] x [, dim [, keepdim]]): a number, or (values, LongTensor indices)
-- along dim (kept unless keepdim is false: Note [keepdim in the selection forms] in sort.lua);
-- with both result tensors and no dim, along the last dim (Torch7's default). torch.max(x, y)
-- with two tensors is the elementwise maximum (cmax), as in PyTorch.
local function install_minmax(name, elementwise)
  local f, f_out = C['tocha_' .. name], C['tocha_' .. name .. '_out']
  local function entry(...)
    local n = util.leading_tensors(...)
    local resval, resind, x, dim, keepdim, a4, a5
    if n >= 3 then resval, resind, x, dim, keepdim, a4, a5 = ...
    elseif n == 2 then
      local a, b, c = ...
      if c == nil then return (torch[elementwise](a, b)) end
      resval, x, dim, keepdim, a4, a5 = a, b, select(3, ...)
    else x, dim, keepdim, a4, a5 = ... end
    check_tensor(name, x, resind and 3 or resval and 2 or 1)
    dim, keepdim = split_args(name, MINMAX_OPTIONS, dim, keepdim, a4, a5)
    if dim == nil then
      if resind then
        dim = x.p.ndim > 0 and x.p.ndim or 1
      else
        if resval then fail(name, 'result tensors need a dimension') end
        if keepdim ~= nil then fail(name, 'keepdim needs a dimension') end
        return (util.value(name, x))
      end
    end
    if type(dim) ~= 'number' then fail(name, 'expected a dimension (number), got %s', describe(dim)) end
    local d, kd = cdim(name, dim, x.p.ndim), keepdim == false and 0 or 1
    if resval then
      resind = resind or torch.LongTensor()
      check(f_out(resval.p, resind.p, x.p, d, kd, 1))
      return resval, resind
    end
    return util.pair(f, x.p, d, kd, 1, pair, pair + 1)
  end
  torch[name], methods[name] = entry, entry
end
--- torch.max([resval, resind,] x [, dim [, keepdim]]): the largest element as a Lua number (a
--- 0-dim tensor when x requires grad); with dim (1-based; the last when both result tensors are
--- given, as Torch7), two new tensors with that dim kept as size 1 unless keepdim is false: the
--- maxima and their 1-based positions along dim (a LongTensor), or resval and resind filled.
--- torch.max(a, b) with two tensors is the elementwise maximum, as torch.cmax.
--- Example: torch.max(torch.Tensor({{1, 3}, {4, 2}}), 2)
install_minmax('max', 'cmax')
--- torch.min([resval, resind,] x [, dim [, keepdim]]): the smallest element as a Lua number (a
--- 0-dim tensor when x requires grad); with dim, two new tensors (the minima and their 1-based
--- positions, a LongTensor) or resval and resind filled, as torch.max.
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

-- torch.cumsum([res,] x [, dim] [, opts]): running sums along dim (default 1, as in Torch7);
-- opts {dim=, dtype=} as PyTorch's keywords (dtype converts x first).
local SCAN_OPTIONS = { dim = true, dtype = true }
local function install_scan(name)
  local f, f_out = C['tocha_' .. name], C['tocha_' .. name .. '_out']
  local function apply(res, x, dim, a3, a4)
    check_tensor(name, x, res and 2 or 1)
    local keepdim, opts
    dim, keepdim, opts = split_args(name, SCAN_OPTIONS, dim, a3, a4)
    if keepdim ~= nil then fail(name, 'unexpected argument %s after the dim', describe(keepdim)) end
    local id
    x, id = with_dtype(name, x, opts.dtype)
    local d = cdim(name, dim == nil and 1 or dim, x.p.ndim)
    if res and not id then check(f_out(res.p, x.p, d)) return res end
    local r = to_dtype(wrap(f(x.p, d)), id)
    if res then res:resizeAs(r):copy(r) return res end
    return r
  end
  -- fixed arguments, not ...: LuaJIT leaves a call passing varargs on uncompiled (x:sum(2) was 2x slower)
  local function entry(a1, a2, a3, a4, a5, a6, a7)
    if is_tensor(a2) then return (apply(a1, a2, a3, a4, a5, a6, a7)) end
    return (apply(nil, a1, a2, a3, a4, a5, a6))
  end
  torch[name], methods[name] = entry, entry
end
--- torch.cumsum([res,] x [, dim] [, opts]): the running sums of x along dim (1-based, default 1): a new
--- tensor of x's size whose element i along dim is the sum of elements 1..i (integer and byte
--- tensors give a LongTensor), or res resized and filled; opts {dim=, dtype=} as PyTorch's
--- keywords. x:cumsum(dim) is the same.
--- Example: torch.cumsum(torch.Tensor({{1, 2, 3}, {4, 5, 6}}), 2)
install_scan('cumsum')
--- torch.cumprod([res,] x [, dim] [, opts]): the running products of x along dim (1-based, default 1): a
--- new tensor of x's size whose element i along dim is the product of elements 1..i (integer and
--- byte tensors give a LongTensor), or res resized and filled; opts as torch.cumsum's.
--- x:cumprod(dim) is the same.
--- Example: torch.cumprod(torch.Tensor({{1, 2, 3}, {4, 5, 6}}), 2)
install_scan('cumprod')

-- torch.cross([res,] a, b [, dim]): without dim, the first dim of size 3.
require 'torch.reduce_cross_histc'

return torch
