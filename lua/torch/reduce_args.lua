-- The argument forms the reductions share (lua/torch/reduce.lua): PyTorch's keepdim, dims tables,
-- options tables and dtype argument after Torch7's ([res,] x [, dim]).
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, fail = lib.C, lib.wrap, lib.fail
local describe, cdim = types.describe, types.cdim

-- Note [PyTorch forms of the reductions]: besides Torch7's torch.f([res,] x [, dim]) (the dim
-- kept as size 1), the reductions take PyTorch's trailing arguments: keepdim after the dim
-- (false drops the dim, as in the selection forms: Note [keepdim in the selection forms]; it was
-- silently ignored, so x:sum(2, false) kept a size-1 dim where PyTorch returns one value per
-- row), dims as a table ({1, 2}, negative from the end; reduced one after the other, which is
-- exact for sum, prod, mean, logsumexp, all, any and p-norms), and an options table last or
-- alone: {dim=, keepdim=, dtype=} (dtype converts x first, as PyTorch's dtype argument).
-- The default stays Torch7's: the dims are kept unless keepdim is false.
local function plain_table(v) return type(v) == 'table' and getmetatable(v) == nil end
local function is_options(v) return plain_table(v) and v[1] == nil and next(v) ~= nil end

-- Checks an options table's keys against the allowed ones ({dim = true, ...}).
local function check_options(name, opts, allowed)
  for k in pairs(opts) do
    if not allowed[k] then fail(name, 'unknown option %s', type(k) == 'string' and "'" .. k .. "'" or describe(k)) end
  end
end

local function check_keepdim(name, v)
  if v ~= nil and type(v) ~= 'boolean' then fail(name, 'keepdim must be a boolean, got %s', describe(v)) end
  return v
end

-- Dims given as a table or a LongStorage: a list of distinct 0-based dims of x, largest first
-- (so that reducing one keeps the others' positions, and dropping them afterwards too).
local function read_dims(name, v, x)
  local list = v
  if not plain_table(v) then list = v:totable() end
  for k in pairs(list) do  -- {1, 2, keepdim = true} would lose its keepdim silently
    if type(k) ~= 'number' then fail(name, 'a table of dims takes no named fields, got %s', describe(k)) end
  end
  local n = table.maxn(list)
  if n == 0 then fail(name, 'expected at least one dim in the table') end
  local out, seen = {}, {}
  for i = 1, n do
    local d = cdim(name, list[i], x.p.ndim)
    if d < 0 then d = d + math.max(x.p.ndim, 1) end
    if seen[d] then fail(name, 'dim %d appears more than once in %s', list[i], describe(v)) end
    seen[d], out[i] = true, d
  end
  table.sort(out, function(a, b) return a > b end)
  return out
end
local function is_dims(v) return plain_table(v) or (types.is_storage(v) and v.p.dtype == types.I64) end

-- Drops the (size 1) dims listed largest first; a view, so gradients flow through it.
local function drop_dims(r, dims)
  for _, d in ipairs(dims) do r = r:squeeze(d + 1) end
  return r
end

-- PyTorch's dtype argument: x is converted to it first (a differentiable conversion) and the
-- result has it (an integer sum wraps as in PyTorch: sum(ByteTensor{200, 100}, {dtype='uint8'})
-- is 44). mean and norm take floating dtypes only, as PyTorch. Returns x and the dtype id.
local FLOATING = { [lib.dtype.f32] = true, [lib.dtype.f64] = true, [lib.dtype.f16] = true, [lib.dtype.bf16] = true }
local function with_dtype(name, x, dtype, floating_only)
  if dtype == nil then return x end
  local id = torch._dtype_arg(name, dtype)
  if floating_only and not FLOATING[id] then
    fail(name, "dtype must be a floating type, got '%s'", tostring(dtype))
  end
  if id ~= x.p.dtype then x = wrap(C.tocha_tensor_to_dtype(x.p, id)) end
  return x, id
end
local function to_dtype(r, id)
  if id == nil or r.p.dtype == id then return r end
  return (wrap(C.tocha_tensor_to_dtype(r.p, id)))
end

-- Splits the arguments after x into (dim, keepdim, options): (dim [, keepdim] [, opts]) or (opts).
local REDUCE_OPTIONS = { dim = true, keepdim = true, dtype = true }
local MINMAX_OPTIONS = { dim = true, keepdim = true }
local NO_OPTIONS = setmetatable({}, { __newindex = function() error('read-only', 2) end })
local function split_args(name, allowed, a, b, c, d)
  local opts = NO_OPTIONS  -- shared: no table per call on the common path
  if is_options(a) then
    if b ~= nil then fail(name, 'options given in a table take no further arguments') end
    opts, a = a, nil
  elseif is_options(b) then
    if c ~= nil then fail(name, 'options given in a table take no further arguments') end
    opts, b = b, nil
  elseif is_options(c) then
    if d ~= nil then fail(name, 'options given in a table take no further arguments') end
    opts = c
  elseif c ~= nil then
    fail(name, 'unexpected argument %s after keepdim', describe(c))
  end
  if opts == NO_OPTIONS then return a, check_keepdim(name, b), opts end  -- Torch7's forms: no table walk
  check_options(name, opts, allowed)
  if opts.dim ~= nil then
    if a ~= nil then fail(name, 'dim given twice') end
    a = opts.dim
  end
  if opts.keepdim ~= nil then
    if b ~= nil then fail(name, 'keepdim given twice') end
    b = opts.keepdim
  end
  return a, check_keepdim(name, b), opts
end

-- Every dim of x as a dims table (keepdim over a whole tensor; a 0-dim tensor's one "dim").
local function all_dims(x)
  local dims = {}
  for i = 1, x.p.ndim do dims[i] = i end
  if x.p.ndim == 0 then dims[1] = 1 end
  return dims
end

return {
  all_dims = all_dims, is_options = is_options, check_options = check_options, check_keepdim = check_keepdim, read_dims = read_dims,
  is_dims = is_dims, drop_dims = drop_dims, FLOATING = FLOATING, with_dtype = with_dtype, to_dtype = to_dtype,
  REDUCE_OPTIONS = REDUCE_OPTIONS, MINMAX_OPTIONS = MINMAX_OPTIONS, split_args = split_args,
}
