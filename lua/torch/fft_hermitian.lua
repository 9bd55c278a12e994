-- torch.fft's two- and n-dim Hermitian transforms hfft2, hfftn, ihfft2, ihfftn (PyTorch's), from
-- the same C primitives as the others (fft_core.lua): complex values are (..., 2) real tensors
-- (Note [Complex values as a trailing dim of 2] in fft.lua), dims 1-based.
--
-- Note [Hermitian transforms by conjugation]: a signal X with Hermitian symmetry has a real
-- transform, sum_j X_j e^(-2 pi i j.k / N) = conj(sum_j conj(X_j) e^(+2 pi i j.k / N)), so hfftn
-- is the complex-to-real inverse transform (onesided along the last dim) of conj(X), scaled as a
-- forward transform; ihfftn, its inverse, is conj(rfftn(x)) scaled as an inverse one (for a real
-- x, ifftn(x) = conj(fftn(x)) / N). Both are differentiable through the primitives.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local core = require 'torch.fft_core'
local fail = lib.fail

local fft = torch.fft
local MANY = { 's', 'dim', 'norm' }
local LAST_TWO = { -2, -1 }

local function hfft_nd(op, default_dims, z, ...)
  local o = core.options(op, MANY, ...)
  z = core.complex_input(op, z)
  local dims, sizes = core.dims_and_sizes(op, z, z:dim() - 1, o.dim, o.s, default_dims)
  local k = #dims
  if o.s == nil or o.s[k] == -1 then
    -- the last dim's real length defaults to 2 (m - 1) for m onesided entries
    local m = z:size(dims[k])
    if m < 2 then
      fail(op, 'invalid number of data points (%d): the input has %d entry along dim %d, so the last size '
        .. 'defaults to 2 * (%d - 1); give s', 2 * (m - 1), m, dims[k], m)
    end
    sizes[k] = 2 * (m - 1)
  end
  local total = 1
  for i, d in ipairs(dims) do
    z = core.resize(z, d, i == k and math.floor(sizes[i] / 2) + 1 or sizes[i])
    total = total * sizes[i]
  end
  return core.c2r(core.conj(z), dims, core.scale(op, o.norm, total, true), sizes[k])
end

local function ihfft_nd(op, default_dims, x, ...)
  local o = core.options(op, MANY, ...)
  x = core.float_input(op, x)
  if x:dim() == 0 then fail(op, 'expected a signal of at least one dim, got a 0-dim tensor') end
  local dims, sizes = core.dims_and_sizes(op, x, x:dim(), o.dim, o.s, default_dims)
  local total = 1
  for i, d in ipairs(dims) do
    x = core.resize(x, d, sizes[i])
    total = total * sizes[i]
  end
  return core.conj(core.r2c(x, dims, core.scale(op, o.norm, total, false)))
end

--- torch.fft.hfftn(z [, s] [, dim] [, norm='backward']): the real n-dim transform of a signal
--- with Hermitian symmetry given by its half z (..., 2), onesided along the last of dims (a table;
--- default: the last #s dims, or every dim); s (a table) gives the output sizes, the last one
--- defaulting to 2 (m - 1) for m entries. Options may also be a table {s=, dim=, norm=}.
--- Differentiable.
--- Example: torch.fft.hfftn(torch.complex(torch.ones(2, 3), torch.zeros(2, 3)))
function fft.hfftn(z, ...) return (hfft_nd('fft.hfftn', nil, z, ...)) end

--- torch.fft.hfft2(z [, s] [, dim={-2, -1}] [, norm='backward']): torch.fft.hfftn over two dims.
--- Example: torch.fft.hfft2(torch.complex(torch.ones(2, 3), torch.zeros(2, 3)))
function fft.hfft2(z, ...) return (hfft_nd('fft.hfft2', LAST_TWO, z, ...)) end

--- torch.fft.ihfftn(x [, s] [, dim] [, norm='backward']): the inverse of torch.fft.hfftn: the
--- onesided half (s[#s] / 2 + 1 entries along the last of dims, as (..., 2)) of the inverse
--- n-dim transform of the real x. Differentiable.
--- Example: torch.fft.ihfftn(torch.ones(2, 4))
function fft.ihfftn(x, ...) return (ihfft_nd('fft.ihfftn', nil, x, ...)) end

--- torch.fft.ihfft2(x [, s] [, dim={-2, -1}] [, norm='backward']): torch.fft.ihfftn over two dims.
--- Example: torch.fft.ihfft2(torch.ones(2, 4))
function fft.ihfft2(x, ...) return (ihfft_nd('fft.ihfft2', LAST_TWO, x, ...)) end

return fft
