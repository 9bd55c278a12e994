-- torch.fft (PyTorch's): discrete Fourier transforms over one, two or n dims, on the CPU (FFTW)
-- and CUDA (cuFFT), differentiable, built on three C primitives (core/ops/fft.h). Frequencies,
-- shifts (fft_freq.lua), complex helpers (complex.lua) and torch.stft/istft (fft_stft.lua) are
-- loaded from here.
--
-- Note [Complex values as a trailing dim of 2]: Tocha has no complex dtype. A complex tensor is a
-- real one whose last dim has size 2 (real, imaginary): PyTorch's torch.view_as_real layout and
-- Torch7's `signal` package convention. Functions whose PyTorch input is complex (fft, ifft, fft2,
-- ifft2, fftn, ifftn, irfft*, hfft) require that trailing 2; rfft*, ihfft take a real tensor;
-- results that PyTorch returns complex have the trailing 2. Dims are 1-based and count the dims
-- of the complex view (the trailing 2 is not one of them); negative dims count from its end. So
-- torch.fft.fft(z) of a (4, 8, 2) z transforms along dim 2 (size 8), and dim -1 is that dim too.
-- Norms as PyTorch: 'backward' (the default: the inverse divides by n), 'forward' (the forward
-- transform divides), 'ortho' (both divide by sqrt(n)). Note [FFT dtypes] (fft_core.lua): integer
-- input becomes the default float type, f16/bf16 are computed and returned in f32.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local core = require 'torch.fft_core'
local fail = lib.fail

local fft = {}
torch.fft = fft

local ONE = { 'n', 'dim', 'norm' }
local MANY = { 's', 'dim', 'norm' }

local function c2c_1d(op, forward, x, ...)
  local o = core.options(op, ONE, ...)
  x = core.complex_input(op, x)
  local d = core.dim(op, o.dim or -1, x:dim() - 1)
  local n = core.length(op, o.n) or core.signal_size(op, x, d)
  return core.c2c(core.resize(x, d, n), { d }, forward, core.scale(op, o.norm, n, forward))
end

--- torch.fft.fft(z [, n] [, dim=-1] [, norm='backward']): the discrete Fourier transform of the
--- complex z (..., 2) along dim, sum_j z_j e^(-2 pi i jk/n), as (..., 2); z is trimmed or
--- zero-padded to n points first. Options may also be a table: fft(z, {n=, dim=, norm=}).
--- Example: torch.fft.fft(torch.complex(torch.Tensor({1, 2, 3}), torch.zeros(3)))
function fft.fft(z, ...) return (c2c_1d('fft.fft', true, z, ...)) end

--- torch.fft.ifft(z [, n] [, dim=-1] [, norm='backward']): the inverse transform of torch.fft.fft
--- (e^(+2 pi i jk/n), divided by n under the default norm), complex (..., 2) in and out.
--- Example: torch.fft.ifft(torch.fft.fft(torch.complex(torch.Tensor({1, 2}), torch.zeros(2))))
function fft.ifft(z, ...) return (c2c_1d('fft.ifft', false, z, ...)) end

--- torch.fft.rfft(x [, n] [, dim=-1] [, norm='backward']): the transform of the real x along dim,
--- onesided: the n/2 + 1 non-negative frequencies (the rest are their conjugates), as (..., 2).
--- Example: torch.fft.rfft(torch.Tensor({1, 2, 3, 4}))
function fft.rfft(x, ...)
  local op = 'fft.rfft'
  local o = core.options(op, ONE, ...)
  x = core.float_input(op, x)
  if x:dim() == 0 then fail(op, 'expected a signal of at least one dim, got a 0-dim tensor') end
  local d = core.dim(op, o.dim or -1, x:dim())
  local n = core.length(op, o.n) or core.signal_size(op, x, d)
  return (core.r2c(core.resize(x, d, n), { d }, core.scale(op, o.norm, n, true)))
end

-- n for the real output of irfft/hfft: given, or 2 (m - 1) for m onesided entries.
local function real_length(op, o, z, d)
  if o.n ~= nil then return core.length(op, o.n) end
  local n = 2 * (z:size(d) - 1)
  if n < 1 then
    fail(op, 'invalid number of data points (%d): the input has %d entry along dim %d, so n defaults to '
      .. '2 * (1 - 1); give n', n, z:size(d), d)
  end
  return n
end

--- torch.fft.irfft(z [, n] [, dim=-1] [, norm='backward']): the inverse of torch.fft.rfft: the
--- real signal of n points (default 2 (m - 1) for m entries along dim) whose onesided spectrum is
--- the complex z (..., 2), trimmed or zero-padded to n/2 + 1 entries first.
--- Example: torch.fft.irfft(torch.fft.rfft(torch.Tensor({1, 2, 3, 4})))
function fft.irfft(z, ...)
  local op = 'fft.irfft'
  local o = core.options(op, ONE, ...)
  z = core.complex_input(op, z)
  local d = core.dim(op, o.dim or -1, z:dim() - 1)
  local n = real_length(op, o, z, d)
  return (core.c2r(core.resize(z, d, math.floor(n / 2) + 1), { d }, core.scale(op, o.norm, n, false), n))
end

--- torch.fft.hfft(z [, n] [, dim=-1] [, norm='backward']): the (real) transform of a signal with
--- Hermitian symmetry given by its first half z (..., 2): n points (default 2 (m - 1)).
--- Example: torch.fft.hfft(torch.complex(torch.Tensor({1, 2, 3}), torch.Tensor({0, 1, 0})))
function fft.hfft(z, ...)
  local op = 'fft.hfft'
  local o = core.options(op, ONE, ...)
  z = core.complex_input(op, z)
  local d = core.dim(op, o.dim or -1, z:dim() - 1)
  local n = real_length(op, o, z, d)
  return (core.c2r(core.conj(core.resize(z, d, math.floor(n / 2) + 1)), { d }, core.scale(op, o.norm, n, true), n))
end

--- torch.fft.ihfft(x [, n] [, dim=-1] [, norm='backward']): the inverse of torch.fft.hfft: the
--- onesided half (n/2 + 1 entries, as (..., 2)) of the inverse transform of the real x.
--- Example: torch.fft.ihfft(torch.Tensor({1, 2, 3, 4}))
function fft.ihfft(x, ...)
  local op = 'fft.ihfft'
  local o = core.options(op, ONE, ...)
  x = core.float_input(op, x)
  if x:dim() == 0 then fail(op, 'expected a signal of at least one dim, got a 0-dim tensor') end
  local d = core.dim(op, o.dim or -1, x:dim())
  local n = core.length(op, o.n) or core.signal_size(op, x, d)
  return (core.conj(core.r2c(core.resize(x, d, n), { d }, core.scale(op, o.norm, n, false))))
end

-- ---- two and n dims --------------------------------------------------------------------------

local function c2c_nd(op, forward, default_dims, z, ...)
  local o = core.options(op, MANY, ...)
  z = core.complex_input(op, z)
  local dims, sizes = core.dims_and_sizes(op, z, z:dim() - 1, o.dim, o.s, default_dims)
  local total = 1
  for i, d in ipairs(dims) do
    z = core.resize(z, d, sizes[i])
    total = total * sizes[i]
  end
  return core.c2c(z, dims, forward, core.scale(op, o.norm, total, forward))
end

local function r2c_nd(op, default_dims, x, ...)
  local o = core.options(op, MANY, ...)
  x = core.float_input(op, x)
  if x:dim() == 0 then fail(op, 'expected a signal of at least one dim, got a 0-dim tensor') end
  local dims, sizes = core.dims_and_sizes(op, x, x:dim(), o.dim, o.s, default_dims)
  local total = 1
  for i, d in ipairs(dims) do
    x = core.resize(x, d, sizes[i])
    total = total * sizes[i]
  end
  return core.r2c(x, dims, core.scale(op, o.norm, total, true))
end

local function c2r_nd(op, default_dims, z, ...)
  local o = core.options(op, MANY, ...)
  z = core.complex_input(op, z)
  local dims, sizes = core.dims_and_sizes(op, z, z:dim() - 1, o.dim, o.s, default_dims)
  local k = #dims
  if o.s == nil or o.s[k] == -1 then sizes[k] = real_length(op, {}, z, dims[k]) end
  local total = 1
  for i, d in ipairs(dims) do
    z = core.resize(z, d, i == k and math.floor(sizes[i] / 2) + 1 or sizes[i])
    total = total * sizes[i]
  end
  return core.c2r(z, dims, core.scale(op, o.norm, total, false), sizes[k])
end

local LAST_TWO = { -2, -1 }

--- torch.fft.fftn(z [, s] [, dim] [, norm='backward']): the transform of the complex z (..., 2)
--- over dims (a table; default: the last #s dims, or every dim), each trimmed or zero-padded to
--- the sizes s (a table) first. Options may also be a table {s=, dim=, norm=}.
--- Example: torch.fft.fftn(torch.complex(torch.ones(2, 3), torch.zeros(2, 3)))
function fft.fftn(z, ...) return (c2c_nd('fft.fftn', true, nil, z, ...)) end

--- torch.fft.ifftn(z [, s] [, dim] [, norm='backward']): the inverse of torch.fft.fftn.
--- Example: torch.fft.ifftn(torch.complex(torch.ones(2, 3), torch.zeros(2, 3)))
function fft.ifftn(z, ...) return (c2c_nd('fft.ifftn', false, nil, z, ...)) end

--- torch.fft.fft2(z [, s] [, dim={-2, -1}] [, norm='backward']): torch.fft.fftn over two dims.
--- Example: torch.fft.fft2(torch.complex(torch.ones(2, 3), torch.zeros(2, 3)))
function fft.fft2(z, ...) return (c2c_nd('fft.fft2', true, LAST_TWO, z, ...)) end

--- torch.fft.ifft2(z [, s] [, dim={-2, -1}] [, norm='backward']): torch.fft.ifftn over two dims.
--- Example: torch.fft.ifft2(torch.complex(torch.ones(2, 3), torch.zeros(2, 3)))
function fft.ifft2(z, ...) return (c2c_nd('fft.ifft2', false, LAST_TWO, z, ...)) end

--- torch.fft.rfftn(x [, s] [, dim] [, norm='backward']): the transform of the real x over dims,
--- onesided along the last of them (s[#s] / 2 + 1 entries), as (..., 2).
--- Example: torch.fft.rfftn(torch.ones(2, 4))
function fft.rfftn(x, ...) return (r2c_nd('fft.rfftn', nil, x, ...)) end

--- torch.fft.rfft2(x [, s] [, dim={-2, -1}] [, norm='backward']): torch.fft.rfftn over two dims.
--- Example: torch.fft.rfft2(torch.ones(2, 4))
function fft.rfft2(x, ...) return (r2c_nd('fft.rfft2', LAST_TWO, x, ...)) end

--- torch.fft.irfftn(z [, s] [, dim] [, norm='backward']): the inverse of torch.fft.rfftn: a real
--- signal of sizes s (the last defaults to 2 (m - 1) for m entries along the last dim).
--- Example: torch.fft.irfftn(torch.fft.rfftn(torch.ones(2, 4)))
function fft.irfftn(z, ...) return (c2r_nd('fft.irfftn', nil, z, ...)) end

--- torch.fft.irfft2(z [, s] [, dim={-2, -1}] [, norm='backward']): torch.fft.irfftn over two dims.
--- Example: torch.fft.irfft2(torch.fft.rfft2(torch.ones(2, 4)))
function fft.irfft2(z, ...) return (c2r_nd('fft.irfft2', LAST_TWO, z, ...)) end

require 'torch.complex'
require 'torch.fft_freq'
require 'torch.fft_stft'
require 'torch.fft_hermitian'

return fft
