-- PyTorch's search functions with 1-based results: torch.argsort, unique, uniqueConsecutive,
-- searchsorted and bucketize (core/ops/search.cpp, core/ops/unique.cpp). Indices and insertion
-- points count from 1 (Note [1-based insertion points]); LongTensors unless outInt32 is asked for.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, check, fail = lib.C, lib.wrap, lib.check, lib.fail
local is_tensor, describe, cdim, check_tensor = types.is_tensor, types.describe, types.cdim, types.check_tensor
local methods = torch._tensor_methods

local BASE = 1

local function check_boolean(op, v, what)
  if v ~= nil and type(v) ~= 'boolean' then fail(op, '%s must be a boolean, got %s', what, describe(v)) end
  return v == true
end

-- An options table (nil: none); a key it does not know is an error, so typos do not pass silently.
local function check_options(op, opts, known)
  if opts == nil then return {} end
  if type(opts) ~= 'table' or getmetatable(opts) ~= nil then
    fail(op, 'options must be a table, got %s', describe(opts))
  end
  for k in pairs(opts) do
    if not known[k] then fail(op, 'unknown option %s', tostring(k)) end
  end
  return opts
end

local argsort_keys = { dim = true, descending = true, stable = true }

--- torch.argsort(x [, dim = last] [, descending = false] [, opts]): the LongTensor of 1-based
--- indices that sort x along dim, ascending (descending when true): torch.sort's second result.
--- The sort is stable (equal values keep their order) and NaN sorts after every number (first
--- when descending), as PyTorch's stable argsort. PyTorch's keywords may come as a trailing
--- table opts = {dim =, descending =, stable =} (stable changes nothing: the sort is always
--- stable), as for torch.sort. x:argsort(...) is the same.
--- Example: torch.argsort(torch.Tensor({3, 1, 2}))
function torch.argsort(x, dim, descending, opts)
  check_tensor('argsort', x, 1)
  if type(dim) == 'boolean' then dim, descending, opts = nil, dim, descending end
  if opts == nil and type(descending) == 'table' then descending, opts = nil, descending end
  if opts == nil and type(dim) == 'table' then dim, opts = nil, dim end
  if opts ~= nil then
    opts = check_options('argsort', opts, argsort_keys)
    check_boolean('argsort', opts.stable, 'stable')
    if opts.dim ~= nil then dim = opts.dim end
    if opts.descending ~= nil then descending = opts.descending end
  end
  local d = dim == nil and (x.p.ndim > 0 and x.p.ndim - 1 or 0) or cdim('argsort', dim, x.p.ndim)
  local desc = check_boolean('argsort', descending, 'descending')
  return (wrap(C.tocha_argsort(x.p, d, desc and 1 or 0, BASE)))
end
methods.argsort = torch.argsort

local res = ffi.new('tocha_tensor *[3]')
local unique_keys = { sorted = true, returnInverse = true, returnCounts = true, dim = true }

local function unique_call(op, consecutive, x, opts)
  check_tensor(op, x, 1)
  opts = check_options(op, opts, unique_keys)
  if consecutive and opts.sorted ~= nil then fail(op, 'unknown option sorted') end
  check_boolean(op, opts.sorted, 'sorted')
  local inv = check_boolean(op, opts.returnInverse, 'returnInverse')
  local cnt = check_boolean(op, opts.returnCounts, 'returnCounts')
  local has_dim, d = 0, 0
  if opts.dim ~= nil then
    if x.p.ndim == 0 then fail(op, 'dim needs a tensor with at least one dimension, got a 0-dim tensor') end
    has_dim, d = 1, cdim(op, opts.dim, x.p.ndim)
  end
  check(C.tocha_unique(x.p, consecutive and 1 or 0, has_dim, d, inv and 1 or 0, cnt and 1 or 0, BASE, res, res + 1,
                       res + 2))
  local values = wrap(res[0])
  local inverse = inv and wrap(res[1]) or nil
  local counts = cnt and wrap(res[2]) or nil
  if inv and cnt then return values, inverse, counts end
  if inv then return values, inverse end
  if cnt then return values, counts end
  return values
end

--- torch.unique(x [, opts]): the distinct values of x, flattened, in ascending order (a new 1D
--- tensor of x's type), as PyTorch's torch.unique. opts: returnInverse (also return a LongTensor
--- of x's size: each element's 1-based position in the values), returnCounts (also return a
--- LongTensor of how often each value occurs), dim (the distinct slices along that dim instead,
--- in lexicographic order; inverse and counts are then per slice), sorted (accepted; the values
--- are always sorted). Results come back as values[, inverse][, counts]. Each NaN is distinct,
--- listed after the numbers, with a count of 1. Not differentiable. x:unique(opts) is the same.
--- Example: torch.unique(torch.Tensor({3, 1, 3, 2, 1}))
function torch.unique(x, opts) return unique_call('unique', false, x, opts) end
methods.unique = torch.unique

--- torch.uniqueConsecutive(x [, opts]): x (flattened, or its slices along opts.dim) with each run
--- of equal neighbours collapsed to one element, in x's order (PyTorch's unique_consecutive).
--- opts: returnInverse, returnCounts and dim as in torch.unique; results come back as
--- values[, inverse][, counts]. x:uniqueConsecutive(opts) is the same.
--- Example: torch.uniqueConsecutive(torch.Tensor({1, 1, 2, 2, 3, 1, 1}))
function torch.uniqueConsecutive(x, opts) return unique_call('uniqueConsecutive', true, x, opts) end
methods.uniqueConsecutive = torch.uniqueConsecutive

-- values given as a number: a 0-dim tensor on the sequence's device, of its dtype when that is a
-- floating type or the number is an integer (no conversion of the sequence), else a DoubleTensor.
local dtype = lib.dtype
local function value_tensor(op, v, seq)
  if is_tensor(v) then return v end
  if type(v) ~= 'number' then fail(op, 'values must be a tensor or a number, got %s', describe(v)) end
  local p, dt = seq.p, seq.p.dtype
  local floating = dt == dtype.f32 or dt == dtype.f64 or dt == dtype.f16 or dt == dtype.bf16
  if not floating then dt = (v == math.floor(v) and math.abs(v) < 2 ^ 53) and dtype.i64 or dtype.f64 end
  return wrap(C.tocha_tensor_empty(0, nil, dt, p.device_type, p.device_index)):fill(v)
end

local search_keys = { right = true, side = true, sorter = true, outInt32 = true }

--- torch.searchsorted(sortedSeq, values [, opts]): for each of values (a tensor or a number), the
--- 1-based position where it would be inserted in sortedSeq to keep it sorted: the first element
--- >= the value (opts.right or side = 'right': > the value), or #sortedSeq + 1 after the last
--- (Note [1-based insertion points]: PyTorch's 0-based p is p + 1 here). sortedSeq is 1D, or N-D
--- with rows along its last dim and its other dims equal to values' leading dims. opts: right,
--- side ('left' or 'right'), sorter (a LongTensor of 1-based indices that sort an unsorted
--- sortedSeq along its last dim, e.g. torch.argsort's), outInt32 (an IntTensor result); a
--- boolean instead of the table is opts.right. A LongTensor of values' size. NaN elements count
--- as larger than every number (sort puts them last) and NaN values go after every element
--- (Note [searchsorted and NaN]). torch.searchsorted(torch.Tensor({1, 3}), 2) is 2 (insert
--- before the 3); a value below every element gives 1.
--- Example: torch.searchsorted(torch.Tensor({1, 3, 5, 7}), torch.Tensor({3, 6, 9}))
function torch.searchsorted(seq, values, opts)
  local op = 'searchsorted'
  check_tensor(op, seq, 1)
  values = value_tensor(op, values, seq)
  if type(opts) == 'boolean' then opts = { right = opts } end
  opts = check_options(op, opts, search_keys)
  local right = check_boolean(op, opts.right, 'right')
  local side = opts.side
  if side ~= nil then
    if side ~= 'left' and side ~= 'right' then
      local got = type(side) == 'string' and "'" .. side .. "'" or describe(side)
      fail(op, "side must be 'left' or 'right', got %s", got)
    end
    if opts.right ~= nil and right ~= (side == 'right') then
      fail(op, "side and right can't be set to opposites, got side '%s' and right = %s", side, tostring(right))
    end
    right = side == 'right'
  end
  local sorter = opts.sorter
  if sorter ~= nil and not is_tensor(sorter) then fail(op, 'sorter must be a LongTensor, got %s', describe(sorter)) end
  local i32 = check_boolean(op, opts.outInt32, 'outInt32')
  return (wrap(C.tocha_searchsorted(seq.p, values.p, right and 1 or 0, i32 and 1 or 0, sorter and sorter.p or nil,
                                    BASE)))
end

local bucket_keys = { right = true, outInt32 = true }

--- torch.bucketize(values, boundaries [, right = false]): the 1-based bucket of each of values (a
--- tensor or a number) among the ascending 1D boundaries: bucket i holds boundaries[i-1] < v <=
--- boundaries[i] (right = true: boundaries[i-1] <= v < boundaries[i]), from 1 (v <= boundaries[1])
--- to #boundaries + 1 (past the last): torch.searchsorted(boundaries, values, right), PyTorch's
--- bucketize + 1. The third argument may be an options table {right =, outInt32 =}.
--- Example: torch.bucketize(torch.Tensor({0.5, 2, 7}), torch.Tensor({1, 2, 5}))
function torch.bucketize(values, boundaries, opts)
  local op = 'bucketize'
  check_tensor(op, boundaries, 2)
  values = value_tensor(op, values, boundaries)
  if type(opts) ~= 'table' then opts = { right = opts } end
  opts = check_options(op, opts, bucket_keys)
  local right = check_boolean(op, opts.right, 'right')
  local i32 = check_boolean(op, opts.outInt32, 'outInt32')
  return (wrap(C.tocha_bucketize(values.p, boundaries.p, right and 1 or 0, i32 and 1 or 0, BASE)))
end

return torch
