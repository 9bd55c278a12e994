-- Kernels and filtering with Torch7's conventions: image.gaussian, gaussian1D, laplacian (sizes,
-- sigmas relative to the kernel size, centres at mean * size + 0.5), image.convolve ('full',
-- 'valid', 'same' over torch.conv2), image.lcn, gaussianpyramid, erode and dilate.
local torch = require 'torch'
local U = require 'image.util'

return function(image)

-- Note [Named or positional]: Torch7's dok.unpack took either the arguments in order or one
-- table of named ones (image.gaussian(5) or image.gaussian{size = 5, sigma = 0.2}); unknown
-- names are refused here rather than ignored.
local function unpack_args(fn, names, ...)
  local n = select('#', ...)
  local first = ...
  local a = {}
  if n == 1 and type(first) == 'table' and not torch.isTensor(first) then
    local known = {}
    for _, name in ipairs(names) do known[name] = true end
    for k, v in pairs(first) do
      if not known[k] then U.fail(fn, 'unknown argument %s (expected %s)', tostring(k), table.concat(names, ', ')) end
      a[k] = v
    end
  else
    if n > #names then U.fail(fn, 'too many arguments (%d; expected at most %d)', n, #names) end
    local v = { ... }
    for i = 1, n do a[names[i]] = v[i] end
  end
  return a
end

local function positive(fn, v, what)
  if type(v) ~= 'number' or not (v > 0) or v == math.huge then
    U.fail(fn, '%s must be a positive number, got %s', what, U.describe(v))
  end
  return v
end

local function int_size(fn, v, what)
  positive(fn, v, what)
  if v % 1 ~= 0 then U.fail(fn, '%s must be a positive integer, got %s', what, U.describe(v)) end
  return v
end

-- exp(-((k - c) / s)^2 / 2) for k = 1..n, a DoubleTensor.
local function bell(n, c, s)
  return torch.range(1, n):double():add(-c):div(s):pow(2):mul(-0.5):exp()
end

local GAUSS = { 'size', 'sigma', 'amplitude', 'normalize', 'width', 'height', 'sigma_horz', 'sigma_vert',
  'mean_horz', 'mean_vert', 'tensor' }

--- image.gaussian([size = 3[, sigma = 0.25[, amplitude = 1[, normalize = false[, width[, height[,
--- sigma_horz[, sigma_vert[, mean_horz = 0.5[, mean_vert = 0.5[, tensor]]]]]]]]]]) or
--- image.gaussian{size =, sigma =, ...}: a height x width (size x size) Gaussian, amplitude *
--- exp(-(du^2 + dv^2) / 2) with du = (u - (mean_horz * width + 0.5)) / (sigma_horz * width) (sigma
--- is relative to the kernel size, as Torch7); normalize makes it sum to 1. tensor: filled instead.
--- Example: local image = require 'image'; image.gaussian{size = 5, sigma = 0.2, normalize = true}:sum()
function image.gaussian(...)
  local a = unpack_args('gaussian', GAUSS, ...)
  local size = int_size('gaussian', a.size or 3, 'size')
  local sigma = positive('gaussian', a.sigma or 0.25, 'sigma')
  local amplitude = U.number('gaussian', a.amplitude or 1, 'amplitude')
  local width, height = a.width or size, a.height or size
  if a.tensor ~= nil then
    if not torch.isTensor(a.tensor) or a.tensor:dim() ~= 2 or a.tensor:nElement() == 0 then
      U.fail('gaussian', 'tensor must be a non-empty 2-D tensor, got %s', U.describe(a.tensor))
    end
    height, width = a.tensor:size(1), a.tensor:size(2)
  end
  int_size('gaussian', width, 'width')
  int_size('gaussian', height, 'height')
  U.checkSize('gaussian', width, height, 'the kernel')
  local sh = positive('gaussian', a.sigma_horz or sigma, 'sigma_horz')
  local sv = positive('gaussian', a.sigma_vert or sigma, 'sigma_vert')
  local mh = U.number('gaussian', a.mean_horz or 0.5, 'mean_horz')
  local mv = U.number('gaussian', a.mean_vert or 0.5, 'mean_vert')
  local gu = bell(width, mh * width + 0.5, sh * width)
  local gv = bell(height, mv * height + 0.5, sv * height)
  local g = torch.ger(gv, gu):mul(amplitude)
  if a.normalize then g:div(g:sum()) end
  if a.tensor ~= nil then return a.tensor:copy(g) end
  return g:type(torch.getdefaulttensortype())
end

--- image.gaussian1D([size = 3[, sigma = 0.25[, amplitude = 1[, normalize = false[, mean = 0.5[,
--- tensor]]]]]]) or image.gaussian1D{...}: amplitude * exp(-((i - (mean * size + 0.5)) / (sigma *
--- size))^2 / 2) for i = 1..size; normalize makes it sum to 1. tensor (1-D): filled instead.
--- Example: local image = require 'image'; image.gaussian1D(5)
function image.gaussian1D(...)
  local a = unpack_args('gaussian1D', { 'size', 'sigma', 'amplitude', 'normalize', 'mean', 'tensor' }, ...)
  local size = a.size or 3
  if a.tensor ~= nil then
    if not torch.isTensor(a.tensor) or a.tensor:dim() ~= 1 or a.tensor:nElement() == 0 then
      U.fail('gaussian1D', 'tensor must be a non-empty 1-D tensor, got %s', U.describe(a.tensor))
    end
    size = a.tensor:size(1)
  end
  int_size('gaussian1D', size, 'size')
  U.checkSize('gaussian1D', size, 1, 'the kernel')
  local sigma = positive('gaussian1D', a.sigma or 0.25, 'sigma')
  local mean = U.number('gaussian1D', a.mean or 0.5, 'mean')
  local g = bell(size, mean * size + 0.5, sigma * size):mul(U.number('gaussian1D', a.amplitude or 1, 'amplitude'))
  if a.normalize then g:div(g:sum()) end
  if a.tensor ~= nil then return a.tensor:copy(g) end
  return g:type(torch.getdefaulttensortype())
end

--- image.laplacian([size = 3[, sigma = 0.1[, amplitude = 1[, normalize = false[, width[, height[,
--- sigma_horz[, sigma_vert[, mean_horz[, mean_vert]]]]]]]]]]) or image.laplacian{...}: a height x
--- width Laplacian of Gaussian, (1 - r2) * amplitude * exp(-r2) with r2 the halved squared
--- offsets as Torch7 computed them (rows scaled by the horizontal parameters, as there).
--- Example: local image = require 'image'; image.laplacian{size = 5, sigma = 0.2}
function image.laplacian(...)
  local a = unpack_args('laplacian', { 'size', 'sigma', 'amplitude', 'normalize', 'width', 'height', 'sigma_horz',
    'sigma_vert', 'mean_horz', 'mean_vert' }, ...)
  local size = int_size('laplacian', a.size or 3, 'size')
  local sigma = positive('laplacian', a.sigma or 0.1, 'sigma')
  local width = int_size('laplacian', a.width or size, 'width')
  local height = int_size('laplacian', a.height or size, 'height')
  U.checkSize('laplacian', width, height, 'the kernel')
  local sh = positive('laplacian', a.sigma_horz or sigma, 'sigma_horz')
  local sv = positive('laplacian', a.sigma_vert or sigma, 'sigma_vert')
  local cx = U.number('laplacian', a.mean_horz or 0.5, 'mean_horz') * width + 0.5
  local cy = U.number('laplacian', a.mean_vert or 0.5, 'mean_vert') * height + 0.5
  -- Torch7: xsq from the row index i with the horizontal centre and scale, ysq from the column j
  local xsq = torch.range(1, height):double():add(-cx):div(sh * width):pow(2):div(2)
  local ysq = torch.range(1, width):double():add(-cy):div(sv * height):pow(2):div(2)
  local r2 = xsq:view(height, 1):expand(height, width) + ysq:view(1, width):expand(height, width)
  local l = (r2 * -1):add(1):cmul((r2 * -1):exp()):mul(U.number('laplacian', a.amplitude or 1, 'amplitude'))
  if a.normalize then l:div(l:sum()) end
  return l:type(torch.getdefaulttensortype())
end

local CONV_MODES = { full = 'F', valid = 'V', same = 'F' }

--- image.convolve([dst,] src, kernel[, mode = 'valid']): the 2-D convolution (kernel flipped, as
--- torch.conv2) of src (H x W or C x H x W, each plane with the same 2-D kernel, or with its own
--- kernel of a C x kh x kw one) in mode 'full', 'valid' or 'same' (the full result cut to src's size
--- at offset ceil(k / 2), as Torch7). Floating tensors. With dst, dst is resized and filled.
--- Example: local image = require 'image'; image.convolve(torch.rand(3, 8, 8), image.gaussian(3), 'same'):size()
function image.convolve(...)
  local n = select('#', ...)
  local a1, a2, a3, a4 = ...
  local dst, src, kernel, mode
  if n == 4 then dst, src, kernel, mode = a1, a2, a3, a4
  elseif n == 3 then
    if type(a3) == 'string' then src, kernel, mode = a1, a2, a3 else dst, src, kernel = a1, a2, a3 end
  elseif n == 2 then src, kernel = a1, a2
  else U.fail('convolve', 'expected ([dst,] src, kernel[, mode]), got %d arguments', n) end
  U.image('convolve', src)
  if not src:isFloatingPoint() then
    U.fail('convolve', 'expected a floating-point image (convert it with :float()), got %s', U.describe(src))
  end
  if not torch.isTensor(kernel) or kernel:dim() < 2 or kernel:dim() > 3 then
    U.fail('convolve', 'kernel must be a 2-D or 3-D tensor, got %s', U.describe(kernel))
  end
  if mode ~= nil and not CONV_MODES[mode] then
    U.fail('convolve', 'mode has to be one of: full | valid | same, got %s', U.describe(mode))
  end
  -- the shapes torch.conv2 takes, checked here so that errors name image.convolve
  if kernel:dim() == 3 and (src:dim() ~= 3 or kernel:size(1) ~= src:size(1)) then
    U.fail('convolve', 'a 3-D kernel needs a C x H x W image with one plane per kernel, got src %s and kernel %s',
      U.describe(src), U.describe(kernel))
  end
  local kh, kw = kernel:size(kernel:dim() - 1), kernel:size(kernel:dim())
  if kh == 0 or kw == 0 then U.fail('convolve', 'kernel is empty (%s)', U.describe(kernel)) end
  if (mode or 'valid') == 'valid' and (kh > src:size(src:dim() - 1) or kw > src:size(src:dim())) then
    U.fail('convolve', "the kernel (%s) is larger than the image (%s) in 'valid' mode", U.describe(kernel),
      U.describe(src))
  end
  kernel = kernel:typeAs(src)
  if kernel:dim() == 2 and src:dim() == 3 then
    kernel = kernel:view(1, kernel:size(1), kernel:size(2)):expand(src:size(1), kernel:size(1), kernel:size(2))
      :contiguous()
  end
  local y = torch.conv2(src, kernel, CONV_MODES[mode or 'valid'])
  if mode == 'same' then
    local cx = y:dim()
    local cy = cx - 1
    local oy, ox = math.ceil(kernel:size(kernel:dim() - 1) / 2), math.ceil(kernel:size(kernel:dim()) / 2)
    y = y:narrow(cy, oy, src:size(src:dim() - 1)):narrow(cx, ox, src:size(src:dim())):contiguous()
  end
  return U.into('convolve', dst, y)
end

--- image.lcn(im[, kernel]): local contrast normalization of a gray image (H x W or 1 x H x W):
--- standardized, then each pixel minus its local mean over its local standard deviation (at least
--- 1), over kernel (default a normalized 9 x 9 Gaussian, sigma 1.591 / 9); a DoubleTensor of the
--- valid size, as Torch7.
--- Example: local image = require 'image'; image.lcn(torch.rand(16, 16)):size()
function image.lcn(im, ker)
  if not torch.isTensor(im) or not (im:dim() == 2 or (im:dim() == 3 and im:size(1) == 1)) then
    U.fail('lcn', 'grayscale image expected (H x W or 1 x H x W), got %s', U.describe(im))
  end
  ker = ker or image.gaussian({ size = 9, sigma = 1.591 / 9, normalize = true })
  if not torch.isTensor(ker) or ker:dim() ~= 2 then
    U.fail('lcn', 'kernel must be a 2-D tensor, got %s', U.describe(ker))
  end
  ker = ker:double()
  local x = im:double():clone()
  if x:dim() == 3 then x = x[1] end
  if x:size(1) < ker:size(1) or x:size(2) < ker:size(2) then
    U.fail('lcn', 'the image (%s) is smaller than the kernel (%s)', U.describe(im), U.describe(ker))
  end
  x:add(-x:mean()):div(x:std())
  local lmn = torch.conv2(x, ker)
  local lmnsq = torch.conv2(torch.cmul(x, x), ker)
  local lstd = (lmnsq - torch.cmul(lmn, lmn)):clamp(0, math.huge):sqrt():clamp(1, math.huge)
  local si, sj = math.floor(ker:size(1) / 2) + 1, math.floor(ker:size(2) / 2) + 1
  local d = x:narrow(1, si, lstd:size(1)):narrow(2, sj, lstd:size(2)):clone()
  return d:add(-1, lmn):cdiv(lstd)
end

-- Note [Integer pyramids]: Torch7 built a ByteTensor's pyramid with a byte kernel (the normalized
-- 3 x 3 Gaussian truncated to zeros) and byte convolutions; here an integer image's levels are
-- computed in float, from the previous level as stored, and stored in its type (bytes rounded and
-- clamped, Note [Byte results]), so each level keeps the image's type as in Torch7 and its values.

--- image.gaussianpyramid([dst,] src, scales): a list of src scaled ('simple') by each factor of
--- scales, each level made from the Gaussian-smoothed previous one (3 x 3, normalized), as Torch7;
--- levels have src's type (Note [Integer pyramids]).
--- Example: local image = require 'image'; local p = image.gaussianpyramid(torch.rand(3, 16, 16), {1, 0.5, 0.25})
function image.gaussianpyramid(...)
  local n = select('#', ...)
  local a1, a2, a3 = ...
  local dst, src, scales
  if n == 3 then dst, src, scales = a1, a2, a3
  elseif n == 2 then dst, src, scales = {}, a1, a2
  else U.fail('gaussianpyramid', 'expected ([dst,] src, scales), got %d arguments', n) end
  U.image('gaussianpyramid', src)
  if type(dst) ~= 'table' or torch.isTensor(dst) then U.fail('gaussianpyramid', 'dst must be a list of tensors') end
  if type(scales) ~= 'table' or #scales == 0 then U.fail('gaussianpyramid', 'scales must be a list of numbers') end
  local d = src:dim()
  local floating = src:isFloatingPoint()
  local k = image.gaussian({ width = 3, normalize = true })
  k = floating and k:typeAs(src) or k:float()
  local tmp = floating and src or src:float()
  for i, s in ipairs(scales) do
    positive('gaussianpyramid', s, 'scales[' .. i .. ']')
    local h, w = U.trunc(src:size(d - 1) * s), U.trunc(src:size(d) * s)
    if h < 1 or w < 1 then U.fail('gaussianpyramid', 'scale %s makes an empty image', tostring(s)) end
    U.checkSize('gaussianpyramid', w, h, 'level ' .. i)
    dst[i] = dst[i] or src.new()
    if d == 3 then dst[i]:resize(src:size(1), h, w) else dst[i]:resize(h, w) end
    local level = s == 1 and tmp or image.scale(tmp, w, h, 'simple')
    if floating then dst[i]:copy(level) else dst[i]:copy(U.finish(level:clone(), src)) end
    tmp = image.convolve(floating and dst[i] or dst[i]:float(), k, 'same')
  end
  return dst
end

local function morph(fn, im, kern, pad, default_pad)
  if not torch.isTensor(im) or im:dim() ~= 2 then
    U.fail(fn, 'expected a binary H x W image, got %s', U.describe(im))
  end
  kern = kern or torch.ones(3, 3)
  if not torch.isTensor(kern) or kern:dim() ~= 2 or kern:size(1) % 2 == 0 or kern:size(2) % 2 == 0 then
    U.fail(fn, 'kernel must be a 2-D tensor of odd sizes, got %s', U.describe(kern))
  end
  pad = pad == nil and default_pad or U.number(fn, pad, 'pad')
  local hp, wp = (kern:size(1) - 1) / 2, (kern:size(2) - 1) / 2
  local padded = torch.DoubleTensor(im:size(1) + 2 * hp, im:size(2) + 2 * wp):fill(pad)
  padded:narrow(1, hp + 1, im:size(1)):narrow(2, wp + 1, im:size(2)):copy(im)
  return padded, kern:double()
end

--- image.erode(im[, kern = 3 x 3 ones[, pad = 1]]): morphological erosion of a binary (0/1) H x W
--- image by an odd-sized kernel; pixels outside count as pad. Same type as im.
--- Example: local image = require 'image'; image.erode(torch.ones(4, 4))
function image.erode(im, kern, pad)
  local padded, k = morph('erode', im, kern, pad, 1)
  return torch.conv2(padded, k):eq(k:sum()):typeAs(im)
end

--- image.dilate(im[, kern = 3 x 3 ones[, pad = 0]]): morphological dilation of a binary (0/1) H x W
--- image by an odd-sized kernel; pixels outside count as pad. Same type as im.
--- Example: local image = require 'image'; image.dilate(torch.eye(4))
function image.dilate(im, kern, pad)
  local padded, k = morph('dilate', im, kern, pad, 0)
  return torch.conv2(padded, torch.flip(k, { 1, 2 })):gt(0):typeAs(im)
end

end
