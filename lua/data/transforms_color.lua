-- torchvision's photometric tensor functions (data.transforms.functional): grayscale, the
-- adjust* family, invert, posterize, solarize, autocontrast, equalize and gaussianBlur. Byte
-- images are computed in float and converted back the way torchvision's tensor code does
-- (truncation after a blend, rounding after a convolution).
local torch = require 'torch'
local core = require 'data.transforms_core'

local F = {}
local fail = core.fail

local function channels(op, x, allowed3)
  local c = x:size(2)
  if c ~= 1 and c ~= 3 then fail(op, 'expected an image with 1 or 3 channels, got %d', c) end
  if allowed3 and c ~= 3 then fail(op, 'expected an RGB image (3 channels), got %d', c) end
  return c
end

local function factor(op, v, what)
  if type(v) ~= 'number' or not (v >= 0) then fail(op, '%s must be a non-negative number, got %s', what, tostring(v)) end
  return v
end

-- torchvision's _blend: ratio * a + (1 - ratio) * b clamped to the image range, in a's dtype.
local function blend(a, b, ratio)
  local y = core.to_float(a) * ratio + core.to_float(b) * (1 - ratio)
  return core.cast_trunc(y:clamp(0, core.max_value(a)), a)
end

-- N x 1 x H x W luma (ITU-R 601-2) in x's dtype (truncated for byte, as torchvision's .to()).
local function gray(x)
  local xf = core.to_float(x)
  local l = xf:narrow(2, 1, 1) * 0.2989 + xf:narrow(2, 2, 1) * 0.587 + xf:narrow(2, 3, 1) * 0.114
  return core.cast_trunc(l, x)
end

--- data.transforms.functional.rgbToGrayscale(img[, numOutputChannels = 1]): luma 0.2989 R +
--- 0.587 G + 0.114 B of an RGB image, repeated numOutputChannels (1 or 3) times. A 1-channel image
--- is copied and keeps 1 channel whatever numOutputChannels, as torchvision 0.14's tensor code
--- (which expands the copy to the input's shape).
--- Example: data.transforms.functional.rgbToGrayscale(torch.rand(3, 4, 4))
function F.rgbToGrayscale(img, n)
  local x, back = core.image('rgbToGrayscale', img)
  n = n or 1
  if n ~= 1 and n ~= 3 then fail('rgbToGrayscale', 'numOutputChannels must be 1 or 3, got %s', tostring(n)) end
  if channels('rgbToGrayscale', x) == 1 then return back(x:clone()) end
  local l = gray(x)
  if n == 3 then l = l:expand(x:size(1), 3, x:size(3), x:size(4)):contiguous() end
  return back(l)
end

--- data.transforms.functional.adjustBrightness(img, factor): img * factor (0 black, 1 the same),
--- clamped to the image range.
--- Example: data.transforms.functional.adjustBrightness(torch.rand(3, 4, 4), 1.5)
function F.adjustBrightness(img, f)
  local x, back = core.image('adjustBrightness', img)
  channels('adjustBrightness', x)
  factor('adjustBrightness', f, 'brightness factor')
  return back(blend(x, torch.zeros(1):typeAs(core.to_float(x)), f))
end

--- data.transforms.functional.adjustContrast(img, factor): blends img with the mean of its
--- grayscale (0 flat gray, 1 the same, 2 twice the contrast).
--- Example: data.transforms.functional.adjustContrast(torch.rand(3, 4, 4), 0.5)
function F.adjustContrast(img, f)
  local x, back = core.image('adjustContrast', img)
  local c = channels('adjustContrast', x)
  factor('adjustContrast', f, 'contrast factor')
  local g = core.to_float(c == 3 and gray(x) or x)
  local mean = g:reshape(g:size(1), g:size(2) * g:size(3) * g:size(4)):mean(2):view(g:size(1), 1, 1, 1)
  return back(blend(x, mean, f))
end

--- data.transforms.functional.adjustSaturation(img, factor): blends img with its grayscale (0
--- gray, 1 the same, 2 twice as saturated); a 1-channel image is returned as is.
--- Example: data.transforms.functional.adjustSaturation(torch.rand(3, 4, 4), 2)
function F.adjustSaturation(img, f)
  local x, back = core.image('adjustSaturation', img)
  factor('adjustSaturation', f, 'saturation factor')
  if channels('adjustSaturation', x) == 1 then return img end
  return back(blend(x, gray(x), f))
end

-- torchvision's _rgb2hsv and _hsv2rgb on N x 3 x H x W floats.
local function rgb2hsv(x)
  local r, g, b = x:narrow(2, 1, 1), x:narrow(2, 2, 1), x:narrow(2, 3, 1)
  local maxc, minc = torch.amax(x, 2, true), torch.amin(x, 2, true)
  local eqc = torch.eq(maxc, minc):typeAs(x)
  local cr = maxc - minc
  local s = torch.cdiv(cr, maxc + torch.cmul(eqc, 1 - maxc))
  local crd = cr + torch.cmul(eqc, 1 - cr)
  local rc, gc, bc = torch.cdiv(maxc - r, crd), torch.cdiv(maxc - g, crd), torch.cdiv(maxc - b, crd)
  local is_r, is_g = torch.eq(maxc, r):typeAs(x), torch.eq(maxc, g):typeAs(x)
  local hr = torch.cmul(is_r, bc - gc)
  local hg = torch.cmul(is_g, 1 - is_r):cmul(rc - bc + 2)
  local hb = torch.cmul(1 - is_g, 1 - is_r):cmul(gc - rc + 4)
  local h = torch.fmod((hr + hg + hb) / 6 + 1, 1)
  return h, s, maxc
end

local function hsv2rgb(h, s, v)
  local i = torch.floor(h * 6)
  local f = h * 6 - i
  i = torch.remainder(i, 6)
  local p = torch.cmul(v, 1 - s):clamp(0, 1)
  local q = torch.cmul(v, 1 - torch.cmul(s, f)):clamp(0, 1)
  local t = torch.cmul(v, 1 - torch.cmul(s, 1 - f)):clamp(0, 1)
  local m = {}
  for k = 0, 5 do m[k] = torch.eq(i, k):typeAs(h) end
  local function pick(a) -- a[k] is the value when i == k
    local out = torch.cmul(m[0], a[1])
    for k = 1, 5 do out:add(torch.cmul(m[k], a[k + 1])) end
    return out
  end
  return torch.cat({ pick({ v, q, p, p, t, v }), pick({ t, v, v, q, p, p }), pick({ p, p, t, v, v, q }) }, 2)
end

--- data.transforms.functional.adjustHue(img, factor): shifts the hue (HSV) by factor in
--- [-0.5, 0.5] turns; a 1-channel image is returned as is.
--- Example: data.transforms.functional.adjustHue(torch.rand(3, 4, 4), 0.25)
function F.adjustHue(img, f)
  local x, back = core.image('adjustHue', img)
  if type(f) ~= 'number' or not (f >= -0.5 and f <= 0.5) then  -- (NaN fails, as in torchvision)
    fail('adjustHue', 'hue factor must be a number in [-0.5, 0.5], got %s', tostring(f))
  end
  if channels('adjustHue', x) == 1 then return img end
  local xf = core.is_float(x) and x or core.to_float(x) / 255
  local h, s, v = rgb2hsv(xf)
  local y = hsv2rgb(torch.remainder(h + f, 1), s, v)
  if core.is_float(x) then return back(y) end
  return back(core.cast_trunc(y * 255, x))
end

--- data.transforms.functional.adjustGamma(img, gamma[, gain = 1]): gain * img ^ gamma on [0, 1]
--- intensities (bytes are scaled to [0, 1] and back), clamped.
--- Example: data.transforms.functional.adjustGamma(torch.rand(3, 4, 4), 2.2)
function F.adjustGamma(img, gamma, gain)
  local x, back = core.image('adjustGamma', img)
  factor('adjustGamma', gamma, 'gamma')
  gain = gain or 1
  local xf = core.is_float(x) and x or core.to_float(x) / 255
  local y = torch.pow(xf, gamma):mul(gain):clamp(0, 1)
  if core.is_float(x) then return back(y) end
  return back(core.cast_trunc(y * (256 - 1e-3), x))
end

local function depthwise(xf, kernel)
  local nn = require 'nn'
  local C = xf:size(2)
  local w = kernel:typeAs(xf):view(1, 1, kernel:size(1), kernel:size(2)):expand(C, 1, kernel:size(1), kernel:size(2))
  return nn.functional.conv2d(xf, w:contiguous(), nil, 1, 0, 1, C)
end

--- data.transforms.functional.adjustSharpness(img, factor): blends img with a smoothed copy (3x3
--- kernel, centre weight 5; border pixels kept): 0 blurred, 1 the same, 2 sharper.
--- Example: data.transforms.functional.adjustSharpness(torch.rand(3, 4, 4), 2)
function F.adjustSharpness(img, f)
  local x, back = core.image('adjustSharpness', img)
  channels('adjustSharpness', x)
  factor('adjustSharpness', f, 'sharpness factor')
  if x:size(3) <= 2 or x:size(4) <= 2 then return img end
  local k = torch.DoubleTensor(3, 3):fill(1)
  k[2][2] = 5
  k:div(13)
  local blurred = core.cast_out(depthwise(core.to_float(x), k), x)
  local degenerate = x:clone()
  degenerate:narrow(3, 2, x:size(3) - 2):narrow(4, 2, x:size(4) - 2):copy(blurred)
  return back(blend(x, degenerate, f))
end

--- data.transforms.functional.invert(img): 1 - img (255 - img for bytes).
--- Example: data.transforms.functional.invert(torch.rand(3, 4, 4))
function F.invert(img)
  local x, back = core.image('invert', img)
  channels('invert', x)
  return back(torch.mul(x, -1):add(core.max_value(x)))
end

-- Note [Float posterize and equalize]: torchvision 0.14 refuses float images here; Tocha
-- follows torchvision.transforms.v2, which accepts them: posterize keeps floor(x * 2^bits) /
-- 2^bits, equalize works on x * 255.999 truncated to bytes and returns bytes / 255. So
-- AutoAugment & co. run on the float images data.image.load returns. Solarize thresholds are
-- in the image's range (0-255 for bytes, 0-1 for floats).

--- data.transforms.functional.posterize(img, bits): keeps the bits (0-8) high bits of each byte
--- (floats: floor(x * 2^bits) / 2^bits).
--- Example: data.transforms.functional.posterize(torch.ByteTensor(3, 4, 4):fill(200), 2)
function F.posterize(img, bits)
  local x, back = core.image('posterize', img)
  channels('posterize', x)
  if type(bits) ~= 'number' or bits ~= math.floor(bits) or bits < 0 or bits > 8 then
    fail('posterize', 'bits must be an integer in 0..8, got %s', tostring(bits))
  end
  if core.is_byte(x) then return back(torch.bitwiseAnd(x, 256 - 2 ^ (8 - bits))) end
  local levels = 2 ^ bits
  return back(torch.floor(x * levels):clamp(0, levels - 1):mul(1 / levels))
end

--- data.transforms.functional.solarize(img, threshold): inverts the pixels >= threshold (in the
--- image's range).
--- Example: data.transforms.functional.solarize(torch.rand(3, 4, 4), 0.5)
function F.solarize(img, threshold)
  local x, back = core.image('solarize', img)
  channels('solarize', x)
  if type(threshold) ~= 'number' or threshold > core.max_value(x) then
    fail('solarize', 'threshold must be a number at most %d, got %s', core.max_value(x), tostring(threshold))
  end
  local inv = torch.mul(x, -1):add(core.max_value(x))
  return back(torch.where(torch.ge(x, threshold), inv, x))
end

--- data.transforms.functional.autocontrast(img): stretches each channel so its darkest pixel
--- becomes 0 and its brightest white (flat channels are kept).
--- Example: data.transforms.functional.autocontrast(torch.rand(3, 4, 4) * 0.5)
function F.autocontrast(img)
  local x, back = core.image('autocontrast', img)
  channels('autocontrast', x)
  local bound = core.max_value(x)
  local xf = core.to_float(x)
  local lo, hi = torch.amin(xf, { 3, 4 }, true), torch.amax(xf, { 3, 4 }, true)
  local flat = torch.eq(lo, hi):typeAs(xf)
  -- bound / d as PyTorch evaluates a scalar over a tensor: reciprocal, then product
  local scale = torch.cdiv(torch.ones(1):typeAs(xf):expandAs(hi), hi - lo + flat):mul(bound):cmul(1 - flat) + flat
  lo = lo:cmul(1 - flat)
  return back(core.cast_trunc((xf - lo):cmul(scale):clamp(0, bound), x))
end

-- torchvision's _scale_channel on one byte channel (any shape). The histogram is counted on the
-- channel's device (:to keeps it; :long() would bring a CUDA channel to the CPU, Torch7's rule)
-- in float64, exact for any pixel count; only its 256 counts come to the CPU, for the Lua loop.
local function equalize_channel(ch)
  local flat = ch:reshape(ch:nElement()):to('int64') + 1
  local hist = torch.zeros(256, { dtype = 'float64', device = ch:device() })
    :indexAdd(1, flat, torch.onesLike(flat, { dtype = 'float64' })):double()
  local h, nonzero = {}, {}
  for i = 0, 255 do
    h[i] = hist[i + 1]
    if h[i] ~= 0 then nonzero[#nonzero + 1] = h[i] end
  end
  local sum = 0
  for i = 1, #nonzero - 1 do sum = sum + nonzero[i] end
  local step = math.floor(sum / 255)
  if step == 0 then return ch end
  local lut, cum = torch.DoubleTensor(256), 0
  lut[1] = 0
  for i = 0, 254 do
    cum = cum + h[i]
    lut[i + 2] = math.min(math.max(math.floor((cum + math.floor(step / 2)) / step), 0), 255)
  end
  return lut:typeAs(ch):index(1, flat):viewAs(ch)
end

--- data.transforms.functional.equalize(img): histogram equalization of each channel (bytes;
--- floats through their 0-255 quantization, Note [Float posterize and equalize]).
--- Example: data.transforms.functional.equalize(torch.ByteTensor(3, 4, 4):random(0, 255))
function F.equalize(img)
  local x, back = core.image('equalize', img)
  channels('equalize', x)
  -- :to('uint8') keeps a CUDA image on its device (:byte() would bring it to the CPU)
  local b = core.is_byte(x) and x or (x * (256 - 1e-3)):clamp(0, 255):to('uint8')
  local out = b:clone()
  for n = 1, b:size(1) do
    for c = 1, b:size(2) do out[n][c]:copy(equalize_channel(b[n][c])) end
  end
  if core.is_byte(x) then return back(out) end
  return back(core.to_float(out):typeAs(x) / 255)
end

--- data.transforms.functional.gaussianKernel(kernelSize, sigma): torchvision's normalized 1-D
--- Gaussian (a DoubleTensor of kernelSize weights at offsets -(k-1)/2 .. (k-1)/2).
--- Example: data.transforms.functional.gaussianKernel(5, 1.0)
function F.gaussianKernel(k, sigma)
  local w, total = torch.DoubleTensor(k), 0
  for i = 1, k do
    local xv = -(k - 1) * 0.5 + (i - 1)
    w[i] = math.exp(-0.5 * (xv / sigma) ^ 2)
    total = total + w[i]
  end
  return w:div(total)
end

--- data.transforms.functional.gaussianBlur(img, kernelSize[, sigma]): blurs with a Gaussian of
--- kernelSize (odd; a number or {kx, ky}) and sigma (a number or {sx, sy}; default 0.15 * k +
--- 0.35), the border reflected.
--- Example: data.transforms.functional.gaussianBlur(torch.rand(3, 8, 8), 3, 1.0)
function F.gaussianBlur(img, ks, sigma)
  local x, back = core.image('gaussianBlur', img)
  if type(ks) == 'number' then ks = { ks, ks } end
  if type(ks) ~= 'table' or #ks ~= 2 then fail('gaussianBlur', 'kernelSize must be a number or {kx, ky}') end
  for i = 1, 2 do
    if type(ks[i]) ~= 'number' or ks[i] < 1 or ks[i] % 2 ~= 1 then
      fail('gaussianBlur', 'kernel sizes must be odd positive integers, got %s', tostring(ks[i]))
    end
  end
  if sigma == nil then sigma = { ks[1] * 0.15 + 0.35, ks[2] * 0.15 + 0.35 } end
  if type(sigma) == 'number' then sigma = { sigma, sigma } end
  if type(sigma) ~= 'table' or #sigma ~= 2 or type(sigma[1]) ~= 'number' or type(sigma[2]) ~= 'number'
      or sigma[1] <= 0 or sigma[2] <= 0 then
    fail('gaussianBlur', 'sigma must be a positive number or {sx, sy}, got %s', tostring(sigma))
  end
  local kx, ky = F.gaussianKernel(ks[1], sigma[1]), F.gaussianKernel(ks[2], sigma[2])
  local k2 = torch.ger(ky, kx)
  local px, py = math.floor(ks[1] / 2), math.floor(ks[2] / 2)
  if px >= x:size(4) or py >= x:size(3) then
    fail('gaussianBlur', 'kernel %dx%d is too large for the %dx%d image', ks[2], ks[1], x:size(3), x:size(4))
  end
  local nn = require 'nn'
  local xf = nn.functional.pad(core.to_float(x), { px, px, py, py }, 'reflect')
  return back(core.cast_out(depthwise(xf, k2), x))
end

return F
