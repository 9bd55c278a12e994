-- torch.stft and torch.istft (PyTorch 1.13's): short-time Fourier transforms of real signals,
-- framed with unfold and transformed with torch.fft's primitives, the inverse by overlap-add
-- (indexAdd) divided by the window envelope; all differentiable and on every device.
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local core = require 'torch.fft_core'
local C, wrap, fail, describe, is_tensor = lib.C, lib.wrap, lib.fail, types.describe, types.is_tensor
local ffi = require 'ffi'

local pads_buf = ffi.new('int64_t[2]')
local PAD_MODES = { constant = 0, reflect = 1, replicate = 2 }
local STFT_OPTS = { hopLength = 1, winLength = 1, window = 1, center = 1, padMode = 1, normalized = 1,
                    onesided = 1, returnComplex = 1 }
local ISTFT_OPTS = { hopLength = 1, winLength = 1, window = 1, center = 1, normalized = 1, onesided = 1,
                     length = 1, returnComplex = 1 }

local FLAGS = { 'center', 'normalized', 'onesided', 'returnComplex' }

local function read_opts(op, opts, known)
  if opts == nil then return {} end
  if type(opts) ~= 'table' or getmetatable(opts) ~= nil then
    fail(op, 'expected options as a table {hopLength=, winLength=, window=, ...}, got %s', describe(opts))
  end
  for k in pairs(opts) do
    if not known[k] then fail(op, 'unknown option %s', tostring(k)) end
  end
  -- flags are read by truthiness, so normalized = 'no' or onesided = 0 (false in Python) were true
  for _, flag in ipairs(FLAGS) do
    local v = opts[flag]
    if v ~= nil and type(v) ~= 'boolean' then fail(op, 'expected %s as a boolean, got %s', flag, describe(v)) end
  end
  -- Note [No complex results]: Tocha has no complex dtype, so the result is always PyTorch's
  -- return_complex=False layout, the complex values as a trailing dim of 2.
  if opts.returnComplex then
    fail(op, 'returnComplex = true is not possible: Tocha has no complex dtype; the result has the complex '
      .. 'values as a trailing dim of 2 (PyTorch\'s return_complex=False layout)')
  end
  return opts
end

local function positive_int(op, v, what)
  if type(v) ~= 'number' or v ~= math.floor(v) or v < 1 or v == math.huge then
    fail(op, 'expected %s as a positive integer, got %s', what, type(v) == 'number' and tostring(v) or describe(v))
  end
  return v
end

-- The window of n_fft points: the given one (win_length points) centred with zeros, or nil
-- (rectangular: ones).
local function full_window(op, o, n_fft, x)
  local win_length = o.winLength ~= nil and positive_int(op, o.winLength, 'winLength') or n_fft
  if win_length > n_fft then fail(op, 'winLength (%d) must be at most nFft (%d)', win_length, n_fft) end
  local w = o.window
  if w ~= nil then
    if not is_tensor(w) or w:dim() ~= 1 or w:size(1) ~= win_length then
      fail(op, 'expected the window as a 1-dim tensor of winLength = %d points, got %s', win_length, describe(w))
    end
    w = w:typeAs(x)
  elseif win_length < n_fft then
    w = x.new(win_length):fill(1)
  end
  if w ~= nil and win_length < n_fft then
    local left = math.floor((n_fft - win_length) / 2)
    w = torch.cat({ x.new(left):zero(), w, x.new(n_fft - win_length - left):zero() }, 1)
  end
  return w
end

-- opts.hopLength, or nFft / 4 (stft's and istft's default).
local function hop_length(op, o, n_fft)
  local hop = o.hopLength ~= nil and positive_int(op, o.hopLength, 'hopLength') or math.floor(n_fft / 4)
  if hop < 1 then fail(op, 'hopLength defaults to nFft / 4 = 0: give a hopLength') end
  return hop
end

--- torch.stft(x, nFft [, opts]): the short-time Fourier transform of the real signal x (L) or
--- batch (B, L): frames of nFft points every hopLength (default nFft / 4), times the window,
--- transformed; size (B,) freq x frames x 2 with freq = nFft / 2 + 1 (onesided, the default) or
--- nFft. opts: hopLength, winLength (default nFft), window (winLength points, centred; default
--- ones), center (default true: x padded by nFft / 2 on both sides with padMode 'reflect',
--- 'constant', 'replicate' or 'circular'), normalized (divide by sqrt(nFft)), onesided. Complex results come
--- as a trailing dim of 2 (PyTorch's return_complex=False layout; returnComplex = true is an error).
--- Example: torch.stft(torch.sin(torch.range(1, 64)), 16, {window = torch.hannWindow(16)})
function torch.stft(x, n_fft, opts)
  local op = 'stft'
  x = core.float_input(op, x)
  if x:dim() ~= 1 and x:dim() ~= 2 then
    fail(op, 'expected a real signal (L) or a batch of them (B, L), got %s', describe(x))
  end
  positive_int(op, n_fft, 'nFft')
  local o = read_opts(op, opts, STFT_OPTS)
  local hop = hop_length(op, o, n_fft)
  local w = full_window(op, o, n_fft, x)
  local batched = x:dim() == 2
  local sig = batched and x or x:view(1, x:size(1))
  if o.center ~= false then
    local mode = PAD_MODES[o.padMode or 'reflect']
    if mode == nil and o.padMode ~= 'circular' then
      fail(op, "padMode must be 'reflect', 'constant', 'replicate' or 'circular', got %s", tostring(o.padMode))
    end
    local p, L = math.floor(n_fft / 2), sig:size(2)
    if mode == 1 and p >= L then
      fail(op, "padMode 'reflect' needs a signal longer than nFft / 2 = %d points, got %d", p, L)
    end
    if mode == nil then  -- circular: the signal's end before it, its start after it
      if p > L then fail(op, "padMode 'circular' needs a signal of at least nFft / 2 = %d points, got %d", p, L) end
      if p > 0 then sig = torch.cat({ sig:narrow(2, L - p + 1, p), sig, sig:narrow(2, 1, p) }, 2) end
    else
      pads_buf[0], pads_buf[1] = p, p
      sig = wrap(C.tocha_pad(sig.p, 2, pads_buf, mode, 0))
    end
  end
  local len = sig:size(2)
  if n_fft > len then fail(op, 'nFft (%d) must be at most the (padded) signal length %d', n_fft, len) end
  local frames = sig:unfold(2, n_fft, hop)  -- B x frames x nFft
  if w ~= nil then frames = torch.cmul(frames, w:view(1, 1, n_fft)) end
  local scale = o.normalized and 1 / math.sqrt(n_fft) or 1
  local spec
  if o.onesided == false then
    spec = core.c2c(torch.complex(frames, torch.zerosLike(frames)), { 3 }, true, scale)
  else
    spec = core.r2c(frames, { 3 }, scale)
  end
  spec = spec:transpose(2, 3)  -- B x freq x frames x 2
  return batched and spec or spec:select(1, 1)
end

-- Overlap-add of frames (B, n, nFft) at hop into (B, total) (PyTorch's unfold_backward): one
-- indexAdd of every frame sample at its 1-based position (t - 1) hop + k.
local function overlap_add(frames, hop, total)
  local n, n_fft = frames:size(2), frames:size(3)
  local starts = torch.arange(0, n):long():mul(hop):view(n, 1)
  local idx = torch.add(starts, torch.arange(1, n_fft + 1):long():view(1, n_fft))
  if frames:type():find('Cuda') then idx = idx:cuda() end
  local out = frames.new(frames:size(1), total):zero()
  return torch.indexAdd(out, 2, idx:view(n * n_fft), frames:reshape(frames:size(1), n * n_fft))
end

--- torch.istft(z, nFft [, opts]): the inverse of torch.stft: z (B,) freq x frames x 2 back to the
--- real signal, by overlap-add of the inverse transforms times the window, divided by the summed
--- squared windows (an error where that envelope vanishes, e.g. a Hann window without center).
--- opts: hopLength, winLength, window, center, normalized, onesided (default: freq ~= nFft) as in
--- torch.stft, and length (trim or zero-pad the result to that many points).
--- Example: torch.istft(torch.stft(torch.range(1, 64), 16, {window = torch.hannWindow(16)}), 16, {window = torch.hannWindow(16)})
function torch.istft(z, n_fft, opts)
  local op = 'istft'
  z = core.complex_input(op, z)
  if z:dim() ~= 3 and z:dim() ~= 4 then
    fail(op, 'expected a spectrogram freq x frames x 2 or a batch of them B x freq x frames x 2, got %s', describe(z))
  end
  positive_int(op, n_fft, 'nFft')
  local o = read_opts(op, opts, ISTFT_OPTS)
  local hop = hop_length(op, o, n_fft)
  local batched = z:dim() == 4
  local spec = batched and z or z:view(1, z:size(1), z:size(2), 2)
  local freq, n = spec:size(2), spec:size(3)
  local onesided = o.onesided
  if onesided == nil then onesided = freq ~= n_fft end
  local half = math.floor(n_fft / 2) + 1
  if (onesided and freq ~= half) or (not onesided and freq ~= n_fft) then
    fail(op, 'expected %d frequencies for nFft = %d (onesided = %s), got %d', onesided and half or n_fft, n_fft,
      tostring(onesided), freq)
  end
  if not onesided then spec = spec:narrow(2, 1, half) end
  local scale = o.normalized and 1 / math.sqrt(n_fft) or 1 / n_fft
  local frames = core.c2r(spec:transpose(2, 3), { 3 }, scale, n_fft)  -- B x frames x nFft
  local w = full_window(op, o, n_fft, frames) or frames.new(n_fft):fill(1)
  local total = n_fft + hop * (n - 1)
  local y = overlap_add(torch.cmul(frames, w:view(1, 1, n_fft)), hop, total)
  local env = overlap_add(torch.cmul(w, w):view(1, 1, n_fft):expand(1, n, n_fft), hop, total)
  local start = o.center ~= false and math.floor(n_fft / 2) or 0
  local stop = total  -- exclusive, 0-based
  if o.length ~= nil then
    stop = start + core.length(op, o.length, 'length')
  elseif o.center ~= false then
    stop = total - math.floor(n_fft / 2)
  end
  local keep = math.min(stop, total) - start
  if keep < 1 then fail(op, 'the signal is empty after removing the centre padding') end
  y, env = y:narrow(2, start + 1, keep), env:narrow(2, start + 1, keep)
  local lowest = torch.abs(env):min()
  if type(lowest) ~= 'number' then lowest = lowest:item() end
  if lowest < 1e-11 then
    fail(op, 'the window overlap-add (sum of squared windows) is below 1e-11 at some sample: the signal '
      .. 'cannot be recovered there (a nonzero-overlap-add window and hopLength are needed)')
  end
  y = torch.cdiv(y, env)
  if stop > total then y = torch.cat({ y, y.new(y:size(1), stop - total):zero() }, 2) end
  return batched and y or y:select(1, 1)
end
