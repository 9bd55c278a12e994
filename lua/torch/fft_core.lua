-- Internals of torch.fft (not public): argument reading (positional or an options table), dims,
-- norms, the conversions to a float type, trimming or zero-padding signals, and the three C
-- primitives (core/ops/fft.h). Complex tensors are (..., 2) real ones (Note [Complex values as a
-- trailing dim of 2] in lua/torch/fft.lua).
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, fail = lib.C, lib.wrap, lib.fail
local is_tensor, describe = types.is_tensor, types.describe

local M = {}
local dims_buf = ffi.new('int64_t[16]')
local F32, F64, F16, BF16 = lib.dtype.f32, lib.dtype.f64, lib.dtype.f16, lib.dtype.bf16

-- Note [FFT dtypes]: FFTW and cuFFT transform f32 and f64. Integer (and bool) input is converted
-- to the default float type; f16 and bf16 are computed in f32 and the result stays f32 (cuFFT's
-- half transforms only take powers of two, and FFTW has none), so a half input gives a
-- FloatTensor, not a half one.
function M.float_input(op, x)
  if not is_tensor(x) then fail(op, 'expected a tensor as the input, got %s', describe(x)) end
  local dt = x.p.dtype
  if dt == F32 or dt == F64 then return x end
  local to = (dt == F16 or dt == BF16) and F32 or C.tocha_default_float_dtype()
  return wrap(C.tocha_tensor_to_dtype(x.p, to))
end

local HOW_TO = 'torch.complex(re, im) makes one from two real tensors (torch.complex(x, torch.zerosLike(x)) '
  .. 'for a real x), or use torch.fft.rfft for real input'
-- x must be a complex tensor (..., 2) with at least one complex dim.
function M.complex_input(op, x)
  if not is_tensor(x) then fail(op, 'expected a complex tensor as the input, got %s', describe(x)) end
  local nd = x.p.ndim
  if nd < 2 or x.p.size[nd - 1] ~= 2 then
    fail(op, 'expected a complex tensor: a real tensor whose last dim has size 2 (real, imaginary), got %s; %s',
      describe(x), HOW_TO)
  end
  return M.float_input(op, x)
end

-- Note [An empty table in a list's place is the list]: an options table is told from a list
-- (s or dims, e.g. {1, 2}) by having no [1], so an empty table at the place of s or dim was read
-- as an empty options table and fftn(z, nil, {}) transformed every dim. There it is the empty
-- list (refused by dims_and_sizes); elsewhere ({} after n, or after norm's place) still options.
local LIST_SLOT = { s = true, dim = true }

-- Splits the arguments after x into named values: positional (names in order), optionally
-- followed by one options table with those names (told from a list such as dims {1, 2} by having
-- no [1]). Unknown option names are an error.
function M.options(op, names, ...)
  local n = select('#', ...)
  local last = n > 0 and select(n, ...) or nil
  local r = {}
  local empty_list = n <= #names and LIST_SLOT[names[n]] and type(last) == 'table' and next(last) == nil
  if type(last) == 'table' and getmetatable(last) == nil and last[1] == nil and not empty_list then
    local known = {}
    for _, name in ipairs(names) do known[name] = true end
    for k in pairs(last) do
      if not known[k] then fail(op, 'unknown option %s (expected %s)', tostring(k), table.concat(names, ', ')) end
    end
    n = n - 1
    for k, v in pairs(last) do r[k] = v end
  end
  if n > #names then fail(op, 'expected at most %d arguments after the input, got %d', #names, n) end
  for i = 1, n do
    local v = select(i, ...)
    if v ~= nil then r[names[i]] = v end
  end
  return r
end

-- An integer (finite: math.huge == math.floor(math.huge) would pass as one and fail later in
-- another op's words, as a size of -2^63).
local function int_arg(op, v, what)
  if type(v) ~= 'number' or v ~= math.floor(v) or v == math.huge or v == -math.huge then
    fail(op, 'expected an integer as %s, got %s', what, type(v) == 'number' and tostring(v) or describe(v))
  end
  return v
end

-- A 1-based dim (negative from the end) of a signal with nd dims, as a 1-based positive dim.
function M.dim(op, d, nd)
  int_arg(op, d, 'a dim')
  if d < -nd or d > nd or d == 0 then
    fail(op, 'dim %d is out of range for a signal of %d dims (dims are 1-based, negative from the end)', d, nd)
  end
  return d < 0 and d + nd + 1 or d
end

-- The signal length n (nil: keep) checked to be >= 1.
function M.length(op, n, what)
  if n == nil then return nil end
  int_arg(op, n, what or 'n')
  if n < 1 then fail(op, 'invalid number of data points (%d) specified: %s must be at least 1', n, what or 'n') end
  return n
end

-- The size of x along the 1-based dim d, as the signal length when no n or s is given: at least 1
-- (the C check would name the 0-based dim).
function M.signal_size(op, x, d)
  local n = x:size(d)
  if n < 1 then fail(op, 'invalid number of data points (%d) along dim %d: give n (or s) to zero-pad it', n, d) end
  return n
end

-- The dims and signal sizes of an n-dim transform: dims (a table, a number or nil), s (a table
-- or nil). Without dims: the last #s dims, or every dim. Returns 1-based dims and the sizes (s
-- or the signal's own).
function M.dims_and_sizes(op, x, nd, dims, s, default_dims)
  if type(dims) == 'number' then dims = { dims } end
  if dims ~= nil and type(dims) ~= 'table' then fail(op, 'expected dims as a table of numbers, got %s', describe(dims)) end
  if s ~= nil and type(s) ~= 'table' then fail(op, 'expected s (the signal sizes) as a table, got %s', describe(s)) end
  if dims == nil then
    -- the two-dim transforms keep their dims {-2, -1} when s is given (PyTorch), so an s of
    -- other than two sizes is an error below instead of a transform over #s dims
    if default_dims then dims = default_dims
    elseif s ~= nil then
      if #s > nd then fail(op, 's has %d sizes but the signal has %d dims', #s, nd) end
      dims = {}
      for i = 1, #s do dims[i] = nd - #s + i end
    else
      dims = {}
      for i = 1, nd do dims[i] = i end
    end
  end
  if #dims == 0 then fail(op, 'expected at least one dim to transform') end
  if s ~= nil and #s ~= #dims then fail(op, 's has %d sizes but there are %d dims', #s, #dims) end
  local out, sizes, seen = {}, {}, {}
  for i, d in ipairs(dims) do
    local w = M.dim(op, d, nd)
    if seen[w] then fail(op, 'dim %d appears twice in the dims', d) end
    seen[w] = true
    out[i] = w
    sizes[i] = s and s[i] ~= -1 and M.length(op, s[i], 's[' .. i .. ']') or M.signal_size(op, x, w)
  end
  return out, sizes
end

local NORMS = { backward = true, forward = true, ortho = true }
-- The scale of a transform of n points under PyTorch's norm; forward: the transform's direction
-- (fft, rfft, hfft) or not (ifft, irfft, ihfft).
function M.scale(op, norm, n, forward)
  norm = norm or 'backward'
  if not NORMS[norm] then
    fail(op, "norm must be 'backward', 'forward' or 'ortho', got %s", type(norm) == 'string' and "'" .. norm .. "'"
      or describe(norm))
  end
  if norm == 'ortho' then return 1 / math.sqrt(n) end
  if (norm == 'forward') == forward then return 1 / n end
  return 1
end

-- x trimmed or zero-padded to n entries along the 1-based dim d (differentiable).
function M.resize(x, d, n)
  local cur = x:size(d)
  if n == cur then return x end
  if n < cur then return x:narrow(d, 1, n) end
  local sz = x:size():totable()
  sz[d] = n - cur
  return torch.cat({ x, x.new(torch.LongStorage(sz)):zero() }, d)
end

local function fill_dims(dims)
  for i, d in ipairs(dims) do dims_buf[i - 1] = d - 1 end
  return #dims
end

-- The primitives: dims are 1-based positive dims of the (complex) signal.
function M.c2c(x, dims, forward, scale)
  return wrap(C.tocha_fft_c2c(x.p, fill_dims(dims), dims_buf, forward and 1 or 0, scale))
end
function M.r2c(x, dims, scale)
  return wrap(C.tocha_fft_r2c(x.p, fill_dims(dims), dims_buf, scale))
end
function M.c2r(x, dims, scale, last_size)
  return wrap(C.tocha_fft_c2r(x.p, fill_dims(dims), dims_buf, scale, last_size))
end

-- The complex conjugate of a (..., 2) tensor (differentiable): the imaginary part negated.
function M.conj(z)
  local last = z:dim()
  return torch.stack({ z:select(last, 1), -z:select(last, 2) }, last)
end

return M
