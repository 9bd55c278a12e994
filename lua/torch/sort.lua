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
  util.check_number('topk', k, 'k')
  if type(dim) == 'boolean' then dim, dir, sorted = nil, dim, dir end
  local d = last_dim('topk', x, dim)
  local largest, s = check_boolean('topk', dir, 'dir'), check_boolean('topk', sorted, 'sort')
  if rv then check(C.tocha_topk_out(rv.p, ri.p, x.p, k, d, largest, s, 1)) return rv, ri end
  return util.pair(C.tocha_topk, x.p, k, d, largest, s, 1, pair, pair + 1)
end
methods.topk = torch.topk

--- torch.kthvalue([resval, resind,] x, k [, dim]): the k-th smallest value along dim.
--- Example: torch.kthvalue(torch.Tensor({3, 1, 4}), 2)
function torch.kthvalue(...)
  local rv, ri, x, k, dim = split_results('kthvalue', ...)
  util.check_number('kthvalue', k, 'k')
  local d = last_dim('kthvalue', x, dim)
  if rv then check(C.tocha_kthvalue_out(rv.p, ri.p, x.p, k, d, 1, 1)) return rv, ri end
  return util.pair(C.tocha_kthvalue, x.p, k, d, 1, 1, pair, pair + 1)
end
methods.kthvalue = torch.kthvalue

--- torch.mode([resval, resind,] x [, dim]): the most frequent value along dim (the last by default).
--- Example: torch.mode(torch.Tensor({1, 2, 2, 3}))
function torch.mode(...)
  local rv, ri, x, dim = split_results('mode', ...)
  local d = last_dim('mode', x, dim)
  if rv then check(C.tocha_mode_out(rv.p, ri.p, x.p, d, 1, 1)) return rv, ri end
  return util.pair(C.tocha_mode, x.p, d, 1, 1, pair, pair + 1)
end
methods.mode = torch.mode

--- torch.median([resval, resind,] x [, dim]): the lower median of all elements (a number), or
--- (values, indices) along dim.
--- Example: torch.median(torch.Tensor({3, 1, 4, 2}))
function torch.median(...)
  local rv, ri, x, dim = split_results('median', ...)
  if dim == nil then
    if rv then fail('median', 'result tensors need a dimension') end
    return util.value('median', x)
  end
  local d = cdim('median', dim, x.p.ndim)
  if rv then check(C.tocha_median_out(rv.p, ri.p, x.p, d, 1, 1)) return rv, ri end
  return util.pair(C.tocha_median, x.p, d, 1, 1, pair, pair + 1)
end
methods.median = torch.median

return torch
