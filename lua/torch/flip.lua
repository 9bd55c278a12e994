-- torch.flip, fliplr and flipud (PyTorch's): copies with the order of elements reversed along
-- some dims, built in C on index_select (Note [Flip as index_select] in core/ops/flip.cpp), so
-- they are differentiable and work on every device and dtype. Dims are 1-based, negative from
-- the end. Unlike Torch7's in-place methods, x:flip(dims) returns a new tensor and leaves x as is.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, fail = lib.C, lib.wrap, lib.fail
local is_tensor, is_storage, describe, cdim, check_tensor =
  types.is_tensor, types.is_storage, types.describe, types.cdim, types.check_tensor
local methods = torch._tensor_methods

local MAX_DIMS = 16
local dims_buf = ffi.new('int64_t[?]', MAX_DIMS)

-- Reads dims given as numbers (varargs), a table, a LongStorage or a 1D LongTensor into
-- dims_buf, 0-based for C (cdim checks each against x); returns their count.
local function read_dims(x, first, ...)
  local list
  if type(first) == 'number' then
    list = { first, ... }
  elseif select('#', ...) > 0 and (type(first) == 'table' or is_storage(first) or is_tensor(first)) then
    fail('flip', 'dims given as a %s take no further arguments, got %d more', describe(first), select('#', ...))
  elseif type(first) == 'table' and getmetatable(first) == nil then
    list = first
  elseif (is_storage(first) or is_tensor(first)) and first.p.dtype == types.I64 and first.p.ndim == 1 then
    list = first:totable()
  else
    fail('flip', 'expected dims (a number, a table or a LongStorage), got %s', describe(first))
  end
  local n = table.maxn(list)
  if n > MAX_DIMS then fail('flip', 'at most %d dims, got %d', MAX_DIMS, n) end
  for i = 1, n do
    local d = list[i]
    if type(d) ~= 'number' then fail('flip', 'dim %d is a %s, expected a number', i, describe(d)) end
    dims_buf[i - 1] = cdim('flip', d, x.p.ndim)
  end
  return n
end

--- torch.flip(x, dims): a new tensor with x's elements in reverse order along each of dims (a
--- number, several numbers, a table or a LongStorage of 1-based dims, negative from the end,
--- none repeated), as PyTorch's torch.flip; x is unchanged. Differentiable. x:flip(dims) is the
--- same.
--- Example: torch.flip(torch.Tensor({{1, 2, 3}, {4, 5, 6}}), 2)
function torch.flip(x, ...)
  check_tensor('flip', x, 1)
  local n = read_dims(x, ...)
  return (wrap(C.tocha_flip(x.p, n, dims_buf)))
end
methods.flip = torch.flip

-- One fixed dim: 1 for flipud, 2 for fliplr.
local function flip_one(name, x, d, what)
  check_tensor(name, x, 1)
  if x.p.ndim < d then
    fail(name, 'expected a tensor with at least %d %s, got %s', d, what, describe(x))
  end
  dims_buf[0] = d - 1
  return (wrap(C.tocha_flip(x.p, 1, dims_buf)))
end

--- torch.fliplr(x): x flipped left to right, along dim 2 (x needs at least 2 dims), as a new
--- tensor; torch.flip(x, 2). x:fliplr() is the same.
--- Example: torch.fliplr(torch.Tensor({{1, 2}, {3, 4}}))
function torch.fliplr(x) return (flip_one('fliplr', x, 2, 'dimensions')) end
methods.fliplr = torch.fliplr

--- torch.flipud(x): x flipped upside down, along dim 1 (x needs at least 1 dim), as a new
--- tensor; torch.flip(x, 1). x:flipud() is the same.
--- Example: torch.flipud(torch.Tensor({{1, 2}, {3, 4}}))
function torch.flipud(x) return (flip_one('flipud', x, 1, 'dimension')) end
methods.flipud = torch.flipud

return torch
