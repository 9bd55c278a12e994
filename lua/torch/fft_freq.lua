-- torch.fft.fftfreq, rfftfreq, fftshift and ifftshift (PyTorch's): the sample frequencies of a
-- transform's bins and the reordering that puts frequency 0 in the middle.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, fail, describe = lib.C, lib.wrap, lib.fail, types.describe
local fft = torch.fft

-- n, d and the options {dtype=, device=, requiresGrad=} of the frequency factories.
local function freq_args(op, n, d, opts)
  if type(d) == 'table' and opts == nil then d, opts = nil, d end
  if type(n) ~= 'number' or n ~= math.floor(n) or n < 1 or n == math.huge then
    fail(op, 'expected the number of points n as a positive integer, got %s', describe(n))
  end
  d = d or 1
  if type(d) ~= 'number' or d == 0 then fail(op, 'expected the sample spacing d as a nonzero number, got %s', describe(d)) end
  opts = opts or {}
  if type(opts) ~= 'table' or getmetatable(opts) ~= nil then
    fail(op, 'expected options as a table {dtype=, device=, requiresGrad=}, got %s', describe(opts))
  end
  return n, d, opts
end

-- t (computed in f64) in the options' dtype (default: the default float type) and device.
local FLOATING = { [lib.dtype.f32] = true, [lib.dtype.f64] = true, [lib.dtype.f16] = true, [lib.dtype.bf16] = true }
local function finish(op, t, opts)
  local id, cuda = torch._dtype_arg(op, opts.dtype)
  id = id or C.tocha_default_float_dtype()
  -- an integer dtype would truncate the fractions k / (d n) (to 0 for n > 1): PyTorch raises too
  if not FLOATING[id] then fail(op, "expected a floating dtype, got '%s'", torch._dtype_name[id] or tostring(opts.dtype)) end
  if t.p.dtype ~= id then t = wrap(C.tocha_tensor_to_dtype(t.p, id)) end
  local device = opts.device or cuda
  if device ~= nil then t = torch._to_device(t, device, op) end
  if opts.requiresGrad then t:requiresGrad() end
  return t
end

--- torch.fft.fftfreq(n [, d=1] [, opts]): the frequencies of the n bins of torch.fft.fft for a
--- sample spacing d: {0, 1, ..., ceil(n/2) - 1, -floor(n/2), ..., -1} / (d n). opts: {dtype=,
--- device=, requiresGrad=}; the default float type otherwise.
--- Example: torch.fft.fftfreq(5)
function fft.fftfreq(n, d, opts)
  n, d, opts = freq_args('fft.fftfreq', n, d, opts)
  local t = torch.arange(0, n):double()
  local neg = math.floor(n / 2)
  if neg > 0 then t:narrow(1, n - neg + 1, neg):add(-n) end
  return (finish('fft.fftfreq', t:div(d * n), opts))
end

--- torch.fft.rfftfreq(n [, d=1] [, opts]): the frequencies of the n/2 + 1 bins of torch.fft.rfft
--- for a sample spacing d: {0, 1, ..., floor(n/2)} / (d n).
--- Example: torch.fft.rfftfreq(5)
function fft.rfftfreq(n, d, opts)
  n, d, opts = freq_args('fft.rfftfreq', n, d, opts)
  return (finish('fft.rfftfreq', torch.arange(0, math.floor(n / 2) + 1):double():div(d * n), opts))
end

-- Note [fftshift dims]: fftshift is not a transform: it reorders any tensor, so its dims count
-- every dim of x and the default is all of them, as in PyTorch. For a complex (..., 2) tensor the
-- trailing 2 must not be rolled: give the dims of the complex view (positive dims are the same in
-- both counts; e.g. torch.fft.fftshift(Z, {1, 2}) for a (h, w, 2) Z).
local function shift(op, x, dims, sign)
  if not types.is_tensor(x) then fail(op, 'expected a tensor as the input, got %s', describe(x)) end
  if type(dims) == 'number' then dims = { dims } end
  if dims == nil then
    dims = {}
    for i = 1, x:dim() do dims[i] = i end
  elseif type(dims) ~= 'table' then
    fail(op, 'expected dims as a number or a table of numbers, got %s', describe(dims))
  end
  if #dims == 0 then return x:clone() end
  local shifts = {}
  for i, d in ipairs(dims) do
    if type(d) ~= 'number' or d ~= math.floor(d) or d == 0 or d < -x:dim() or d > x:dim() then
      fail(op, 'dim %s is out of range for a tensor of %d dims (1-based, negative from the end)', tostring(d), x:dim())
    end
    local size = x:size(d < 0 and d + x:dim() + 1 or d)
    shifts[i] = sign > 0 and math.floor(size / 2) or -math.floor(size / 2)
  end
  return (torch.roll(x, shifts, dims))
end

--- torch.fft.fftshift(x [, dims]): x rolled by floor(size / 2) along each of dims (default all
--- dims of x; for a complex (..., 2) x give the complex dims), so frequency 0 comes to the middle.
--- Example: torch.fft.fftshift(torch.fft.fftfreq(5))
function fft.fftshift(x, dims) return (shift('fft.fftshift', x, dims, 1)) end

--- torch.fft.ifftshift(x [, dims]): the inverse of torch.fft.fftshift.
--- Example: torch.fft.ifftshift(torch.fft.fftshift(torch.fft.fftfreq(5)))
function fft.ifftshift(x, dims) return (shift('fft.ifftshift', x, dims, -1)) end
