-- Sorting and selection with Torch7's call forms: sort, topk, kthvalue, mode and median return
-- (values, LongTensor indices) along a dim (default: the last), with optional leading result
-- tensors torch.f([resval, resind,] x, ...). Indices are 1-based; NaN sorts after every number.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
require 'torch.reduce'
local C, check, fail = lib.C, lib.check, lib.fail
local describe, cdim, check_tensor = types.describe, types.cdim, types.check_tensor
local methods = torch._tensor_methods
local util = torch._reduce_util
local pair = util.pair_ptr

-- Splits (resval, resind, x, ...) / (resval, x, ...) / (x, ...) into results, input and the rest.
local function split_results(name, ...)
  local n = util.leading_tensors(...)
  if n >= 3 then
    local rv, ri, x = ...
    return rv, ri, check_tensor(name, x, 3), select(4, ...)
  elseif n == 2 then
    local rv, x = ...
    return rv, torch.LongTensor(), x, select(3, ...)
  end
  local x = ...
  return nil, nil, check_tensor(name, x, 1), select(2, ...)
end

local function last_dim(name, x, dim)
  if dim == nil then return x.p.ndim > 0 and x.p.ndim - 1 or 0 end
  return cdim(name, dim, x.p.ndim)
end

local function check_boolean(name, v, what)
  if v ~= nil and type(v) ~= 'boolean' then fail(name, '%s must be a boolean, got %s', what, describe(v)) end
  return v and 1 or 0
end

-- k of topk and kthvalue: an integer (1.5 was truncated to 1 by the C call), range-checked in C.
local function check_k(name, k)
  util.check_number(name, k, 'k')
  if k ~= math.floor(k) or math.abs(k) >= 2 ^ 53 then fail(name, 'k must be an integer, got %s', tostring(k)) end
  return k
end

-- Note [keepdim in the selection forms]: Torch7's kthvalue, mode and median keep the reduced dim
-- as size 1, and so do these by default; PyTorch's trailing keepdim is accepted after the dim, and
-- keepdim = false drops the dim (it used to be ignored, so x:median(2, false) kept a size-1 dim
-- where PyTorch returns one value per row).
local function check_keepdim(name, keepdim)
  if keepdim ~= nil and type(keepdim) ~= 'boolean' then
    fail(name, 'keepdim must be a boolean, got %s', describe(keepdim))
  end
  return keepdim == false and 0 or 1
end

--- torch.sort([resval, resind,] x [, dim] [, descending]): a stable sort along dim.
function torch.sort(...)
  local rv, ri, x, dim, desc = split_results('sort', ...)
  if type(dim) == 'boolean' then dim, desc = nil, dim end
  local d, flag = last_dim('sort', x, dim), check_boolean('sort', desc, 'descending')
  if rv then check(C.tocha_sort_out(rv.p, ri.p, x.p, d, flag, 1)) return rv, ri end
  return util.pair(C.tocha_sort, x.p, d, flag, 1, pair, pair + 1)
end
methods.sort = torch.sort

--- torch.topk([resval, resind,] x, k [, dim] [, dir] [, sort]): the k smallest values along dim,
--- or the k largest when dir is true; returned in sorted order (best first) either way.
--- Example: torch.topk(torch.Tensor({3, 1, 4, 1, 5}), 2, 1, true)
function torch.topk(...)
  local rv, ri, x, k, dim, dir, sorted = split_results('topk', ...)
  check_k('topk', k)
  if type(dim) == 'boolean' then dim, dir, sorted = nil, dim, dir end
  local d = last_dim('topk', x, dim)
  local largest, s = check_boolean('topk', dir, 'dir'), check_boolean('topk', sorted, 'sort')
  if rv then check(C.tocha_topk_out(rv.p, ri.p, x.p, k, d, largest, s, 1)) return rv, ri end
  return util.pair(C.tocha_topk, x.p, k, d, largest, s, 1, pair, pair + 1)
end
methods.topk = torch.topk

--- torch.kthvalue([resval, resind,] x, k [, dim] [, keepdim = true]): the k-th smallest value
--- along dim (the last by default), kept as size 1 unless keepdim is false (Note [keepdim in the
--- selection forms]).
--- Example: torch.kthvalue(torch.Tensor({3, 1, 4}), 2)
function torch.kthvalue(...)
  local rv, ri, x, k, dim, keepdim = split_results('kthvalue', ...)
  check_k('kthvalue', k)
  local d, kd = last_dim('kthvalue', x, dim), check_keepdim('kthvalue', keepdim)
  if rv then check(C.tocha_kthvalue_out(rv.p, ri.p, x.p, k, d, kd, 1)) return rv, ri end
  return util.pair(C.tocha_kthvalue, x.p, k, d, kd, 1, pair, pair + 1)
end
methods.kthvalue = torch.kthvalue

--- torch.mode([resval, resind,] x [, dim] [, keepdim = true]): the most frequent value along dim
--- (the last by default; the smallest of equally frequent values, with its last index), kept as
--- size 1 unless keepdim is false.
--- Example: torch.mode(torch.Tensor({1, 2, 2, 3}))
function torch.mode(...)
  local rv, ri, x, dim, keepdim = split_results('mode', ...)
  local d, kd = last_dim('mode', x, dim), check_keepdim('mode', keepdim)
  if rv then check(C.tocha_mode_out(rv.p, ri.p, x.p, d, kd, 1)) return rv, ri end
  return util.pair(C.tocha_mode, x.p, d, kd, 1, pair, pair + 1)
end
methods.mode = torch.mode

--- torch.median([resval, resind,] x [, dim] [, keepdim = true]): the lower median of all
--- elements (a number), or (values, indices) along dim, kept as size 1 unless keepdim is false.
--- With result tensors the dim defaults to the last, as in Torch7.
--- Example: torch.median(torch.Tensor({3, 1, 4, 2}))
function torch.median(...)
  local rv, ri, x, dim, keepdim = split_results('median', ...)
  if dim == nil and not rv then
    if keepdim ~= nil then fail('median', 'keepdim needs a dimension') end
    return util.value('median', x)
  end
  local d, kd = last_dim('median', x, dim), check_keepdim('median', keepdim)
  if rv then check(C.tocha_median_out(rv.p, ri.p, x.p, d, kd, 1)) return rv, ri end
  return util.pair(C.tocha_median, x.p, d, kd, 1, pair, pair + 1)
end
methods.median = torch.median

return torch
