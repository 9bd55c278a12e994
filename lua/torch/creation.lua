-- PyTorch's creation and random functions missing from Torch7: randint/randintLike (C's random
-- fill), poisson and binomial (core/ops/random_count.cpp) and the signal windows hannWindow,
-- hammingWindow, blackmanWindow, bartlettWindow and kaiserWindow (core/ops/window.cpp).
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, wrap, fail = lib.C, lib.wrap, lib.fail
local is_tensor, describe = types.is_tensor, types.describe
local gen_and_args = torch._gen_and_args

local buf = ffi.new('int64_t[?]', 16)

local function integer(op, v, what)
  if type(v) ~= 'number' or v ~= math.floor(v) then
    fail(op, '%s must be an integer, got %s', what, type(v) == 'number' and tostring(v) or describe(v))
  end
  if v >= 2 ^ 63 or v < -2 ^ 63 then fail(op, '%s must lie in [-2^63, 2^63), got %s', what, tostring(v)) end
  return v
end

-- A tensor type name ('torch.IntTensor', 'torch.CudaTensor'...) or nil: its dtype, or the default.
local function type_arg(op, name, default)
  if name == nil then return default end
  if type(name) ~= 'string' or types.dtype_of_name[name] == nil then
    fail(op, 'expected a tensor type name such as \'torch.LongTensor\', got %s',
      type(name) == 'string' and "'" .. name .. "'" or describe(name))
  end
  return name
end

-- t filled with integers in [low, high) by C's random fill; its errors ("[random] range [0, 299]
-- does not fit...") are reported under op's name and the half-open range.
local function random_fill(op, t, g, low, high)
  if C.tocha_random_(t.p, g, low, high - 1) ~= 0 then
    local msg = ffi.string(C.tocha_last_error()):gsub('^%[random%] range %[(.-), (.-)%]', function(a, b)
      return ('range [%s, %s)'):format(a, tostring(tonumber(b) + 1))
    end)
    fail(op, '%s', msg)
  end
end

--- torch.randint([gen,] [low = 0,] high, sizes [, typename = 'torch.LongTensor']): a tensor of
--- uniform random integers in [low, high) (high excluded, PyTorch's randint; Torch7's x:random(a,
--- b) includes b) with sizes (a table or LongStorage). A LongTensor unless typename says
--- otherwise ('torch.IntTensor', 'torch.FloatTensor', 'torch.CudaLongTensor'...). Reproducible
--- under torch.manualSeed, the same values on every device.
--- Example: torch.randint(1, 7, {2, 3})
function torch.randint(...)
  local g, a, b, c, d = gen_and_args(...)
  local low, high, sizes, tname
  if type(b) == 'number' then low, high, sizes, tname = a, b, c, d
  else low, high, sizes, tname = 0, a, b, c end
  low, high = integer('randint', low, 'low'), integer('randint', high, 'high')
  if high <= low then fail('randint', 'expected low < high, got low = %d and high = %d', low, high) end
  if sizes == nil then fail('randint', 'expected sizes (a table or LongStorage), got nil') end
  tname = type_arg('randint', tname, 'torch.LongTensor')
  local dt = types.dtype_of_name[tname]
  local n = types.read_sizes('randint', buf, sizes)
  local t = wrap(C.tocha_tensor_empty(n, buf, dt, 0, 0))
  random_fill('randint', t, g, low, high)
  if tname:find('Cuda') then return (t:type(tname)) end
  return t
end

--- torch.randintLike([gen,] x, [low = 0,] high [, {dtype=, device=, requiresGrad=}]):
--- torch.randint with x's sizes, and x's type and device unless the options say otherwise (Note
--- [Factory options]).
--- Example: torch.randintLike(torch.IntTensor(2, 2), 5)
function torch.randintLike(...)
  local g, x, a, b, opts = gen_and_args(...)
  types.check_tensor('randintLike', x, 1)
  if opts == nil and type(b) == 'table' then b, opts = nil, b end
  local id, device = torch._factory_opts('randintLike', opts)
  local low, high = a, b
  if b == nil then low, high = 0, a end
  low, high = integer('randintLike', low, 'low'), integer('randintLike', high, 'high')
  if high <= low then fail('randintLike', 'expected low < high, got low = %d and high = %d', low, high) end
  local p = x.p
  local t = wrap(C.tocha_tensor_empty(p.ndim, p.size, id or p.dtype, p.device_type, p.device_index))
  random_fill('randintLike', t, g, low, high)
  return (torch._factory_finish('randintLike', t, opts, device))
end

local WINDOW = { hann = 0, hamming = 1, blackman = 2, bartlett = 3, kaiser = 4 }

local function window(op, kind, n, periodic, alpha, beta, tname)
  n = integer(op, n, 'window length')
  if n < 0 then fail(op, 'window length must not be negative, got %d', n) end
  if periodic == nil then periodic = true end
  if type(periodic) ~= 'boolean' then fail(op, 'periodic must be a boolean, got %s', describe(periodic)) end
  tname = type_arg(op, tname, torch.getdefaulttensortype())
  local t = wrap(C.tocha_window(WINDOW[kind], n, periodic and 1 or 0, alpha, beta, types.dtype_of_name[tname], 0, 0))
  if tname:find('Cuda') then return (t:type(tname)) end
  return t
end

--- torch.hannWindow(n [, periodic = true [, typename]]): the Hann window of n points,
--- 0.5 - 0.5 cos(2 pi k / N) with N = n (periodic, for spectra) or n - 1 (symmetric), as
--- PyTorch's hann_window. A tensor of the default type, or typename (a floating type).
--- Example: torch.hannWindow(4)
function torch.hannWindow(n, periodic, tname) return (window('hannWindow', 'hann', n, periodic, 0, 0, tname)) end
--- torch.hammingWindow(n [, periodic = true [, alpha = 0.54 [, beta = 0.46 [, typename]]]]):
--- alpha - beta cos(2 pi k / N) (N as hannWindow), PyTorch's hamming_window.
--- Example: torch.hammingWindow(5, false)
function torch.hammingWindow(n, periodic, alpha, beta, tname)
  if type(alpha) == 'string' then alpha, tname = nil, alpha end
  alpha, beta = alpha or 0.54, beta or 0.46
  if type(alpha) ~= 'number' or type(beta) ~= 'number' then
    fail('hammingWindow', 'alpha and beta must be numbers, got %s and %s', describe(alpha), describe(beta))
  end
  return (window('hammingWindow', 'hamming', n, periodic, alpha, beta, tname))
end
--- torch.blackmanWindow(n [, periodic = true [, typename]]): 0.42 - 0.5 cos(2 pi k / N) +
--- 0.08 cos(4 pi k / N), PyTorch's blackman_window.
--- Example: torch.blackmanWindow(5, false)
function torch.blackmanWindow(n, periodic, tname)
  return (window('blackmanWindow', 'blackman', n, periodic, 0, 0, tname))
end
--- torch.bartlettWindow(n [, periodic = true [, typename]]): the triangle 1 - |2k / N - 1|,
--- PyTorch's bartlett_window.
--- Example: torch.bartlettWindow(5, false)
function torch.bartlettWindow(n, periodic, tname)
  return (window('bartlettWindow', 'bartlett', n, periodic, 0, 0, tname))
end
--- torch.kaiserWindow(n [, periodic = true [, beta = 12 [, typename]]]): the Kaiser window
--- I0(beta sqrt(1 - (2k / N - 1)^2)) / I0(beta), PyTorch's kaiser_window.
--- Example: torch.kaiserWindow(5, false, 5)
function torch.kaiserWindow(n, periodic, beta, tname)
  if type(beta) == 'string' then beta, tname = nil, beta end
  beta = beta or 12
  if type(beta) ~= 'number' then fail('kaiserWindow', 'beta must be a number, got %s', describe(beta)) end
  return (window('kaiserWindow', 'kaiser', n, periodic, 0, beta, tname))
end

--- torch.poisson([gen,] rates): a tensor of rates' shape, type and device whose elements are
--- drawn from Poisson(rates[i]) (rates: a floating tensor, >= 0), PyTorch's poisson. Drawn from
--- the generator (torch.manualSeed makes it reproducible; the same values on every device).
--- Example: torch.poisson(torch.Tensor({1, 5, 20}))
function torch.poisson(...)
  local g, rates = gen_and_args(...)
  if not is_tensor(rates) then fail('poisson', 'expected rates (a tensor), got %s', describe(rates)) end
  return (wrap(C.tocha_poisson(rates.p, g)))
end

--- torch.binomial([gen,] count, prob): elements drawn from Binomial(count, prob), count (whole
--- numbers >= 0) and prob (in [0, 1]) floating tensors that broadcast, PyTorch's binomial.
--- Reproducible under torch.manualSeed, the same values on every device.
--- Example: torch.binomial(torch.Tensor({10, 100}), torch.Tensor({0.5, 0.1}))
function torch.binomial(...)
  local g, count, prob = gen_and_args(...)
  if not is_tensor(count) then fail('binomial', 'expected count (a tensor), got %s', describe(count)) end
  if not is_tensor(prob) then fail('binomial', 'expected prob (a tensor), got %s', describe(prob)) end
  return (wrap(C.tocha_binomial(count.p, prob.p, g)))
end

return torch
