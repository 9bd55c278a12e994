-- torchvision's geometric tensor functions without resampling grids (data.transforms.functional):
-- resize, crop, centerCrop, resizedCrop, flips, pad, fiveCrop and tenCrop.
local torch = require 'torch'
local core = require 'data.transforms_core'

local F = {}
local fail = core.fail

-- Note [Separable resize]: resizing is separable: along each of H and W, output i is a
-- weighted sum of a few input pixels (taps). The taps are computed once per (in, out, mode) here
-- in Lua by PyTorch's own formulas -- half-pixel centres (align_corners = False); bicubic A =
-- -0.75 with border indices clamped; antialias as PyTorch's _upsample_*_aa (PIL's filters:
-- triangle, and cubic with a = -0.5, support widened by the scale when shrinking, weights
-- normalized) -- and applied as K gathers (index) and multiply-adds, K the widest tap count,
-- so the cost grows with the output, not with in x out, and runs on any device.

local function cubic1(x, a) return ((a + 2) * x - (a + 3)) * x * x + 1 end
local function cubic2(x, a) return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a end

local function aa_filter(mode, x)
  x = math.abs(x)
  if mode == 'bilinear' then return x < 1 and 1 - x or 0 end
  local a = -0.5
  if x < 1 then return ((a + 2) * x - (a + 3)) * x * x + 1 end
  if x < 2 then return (((x - 5) * x + 8) * x - 4) * a end
  return 0
end

-- The taps of output i: a list of {input index (0-based), weight}.
local function row_taps(i, nin, nout, mode, antialias)
  local scale = nin / nout
  local taps = {}
  if antialias then
    local support = (mode == 'bilinear' and 1 or 2) * (scale >= 1 and scale or 1)
    local center, invscale = scale * (i + 0.5), scale >= 1 and 1 / scale or 1
    local xmin = math.max(core.trunc(center - support + 0.5), 0)
    local xsize = math.min(core.trunc(center + support + 0.5), nin) - xmin
    local total = 0
    for j = 0, xsize - 1 do
      taps[j + 1] = { xmin + j, aa_filter(mode, (j + xmin - center + 0.5) * invscale) }
      total = total + taps[j + 1][2]
    end
    if total ~= 0 then for _, t in ipairs(taps) do t[2] = t[2] / total end end
  elseif mode == 'bilinear' then
    local src = math.max((i + 0.5) * scale - 0.5, 0)
    local i0 = math.min(math.floor(src), nin - 1)
    local l = src - i0
    taps[1], taps[2] = { i0, 1 - l }, { i0 < nin - 1 and i0 + 1 or i0, l }
  else  -- bicubic
    local src = (i + 0.5) * scale - 0.5
    local i0 = math.floor(src)
    local t = src - i0
    local ws = { cubic2(t + 1, -0.75), cubic1(t, -0.75), cubic1(1 - t, -0.75), cubic2(2 - t, -0.75) }
    for k = 1, 4 do taps[k] = { math.min(math.max(i0 + k - 2, 0), nin - 1), ws[k] } end
  end
  return taps
end

local cache, cache_size = {}, 0

-- The taps of one dim as K x nout tensors: 1-based input indices and weights (unused taps
-- point at pixel 1 with weight 0).
local function weights(nin, nout, mode, antialias)
  local key = nin .. ':' .. nout .. ':' .. mode .. ':' .. tostring(antialias)
  if cache[key] then return cache[key] end
  local rows, K = {}, 1
  for i = 0, nout - 1 do
    rows[i + 1] = row_taps(i, nin, nout, mode, antialias)
    K = math.max(K, #rows[i + 1])
  end
  local idx, w = torch.LongTensor(K, nout):fill(1), torch.DoubleTensor(K, nout):zero()
  local ip, wp = idx:data(), w:data()
  for i = 1, nout do
    for k, t in ipairs(rows[i]) do
      ip[(k - 1) * nout + i - 1] = t[1] + 1
      wp[(k - 1) * nout + i - 1] = t[2]
    end
  end
  if cache_size > 64 then cache, cache_size = {}, 0 end
  cache[key], cache_size = { idx = idx, w = w }, cache_size + 1
  return cache[key]
end

-- PyTorch's 'nearest': source floor(i * in / out), with the scale in float32 as its kernel has it.
local ffi = require 'ffi'
local function nearest_index(nin, nout)
  local idx = torch.LongTensor(nout)
  local scale = tonumber(ffi.new('float', nin / nout))
  for i = 0, nout - 1 do
    local s = nout == nin and i or math.floor(tonumber(ffi.new('float', i * scale)))
    idx[i + 1] = math.min(s, nin - 1) + 1
  end
  return idx
end

-- x (N x C x H x W, floating) resampled along dim d (3 or 4) to nout.
local function along(x, d, nout, mode, antialias)
  local taps = weights(x:size(d), nout, mode, antialias)
  local shape = { 1, 1, 1, 1 }
  shape[d] = nout
  local y
  for k = 1, taps.idx:size(1) do
    local term = x:index(d, core.on_device(taps.idx[k], x))
    term:cmul(taps.w[k]:typeAs(x):view(shape[1], shape[2], shape[3], shape[4]):expandAs(term))
    if y then y:add(term) else y = term end
  end
  return y
end

local function separable(x, oh, ow, mode, antialias)
  local y = x
  if ow ~= x:size(4) then y = along(y, 4, ow, mode, antialias) end
  if oh ~= x:size(3) then y = along(y, 3, oh, mode, antialias) end
  return y == x and x:clone() or y
end

-- torchvision's output size for resize: an int size is the shorter side, the longer keeps the
-- aspect ratio (truncated), capped by maxSize.
local function output_size(op, h, w, size, max_size)
  if max_size ~= nil and (type(max_size) ~= 'number' or max_size ~= math.floor(max_size)) then
    fail(op, 'maxSize must be an integer, got %s', tostring(max_size))
  end
  if type(size) == 'table' and #size == 2 then
    -- torchvision raises too: with {h, w} there is no shorter side for maxSize to cap
    if max_size ~= nil then
      fail(op, 'maxSize is only allowed when size is a number or {n} (the shorter side), got {%s, %s}',
        tostring(size[1]), tostring(size[2]))
    end
    return core.size2(op, size)
  end
  if type(size) == 'table' and #size == 1 then size = size[1] end
  if type(size) ~= 'number' or size < 1 or size ~= math.floor(size) then
    fail(op, 'size must be a positive integer or {height, width}, got %s', tostring(size))
  end
  local short, long = math.min(h, w), math.max(h, w)
  local new_short, new_long = size, math.floor(size * long / short)
  if max_size then
    if max_size <= size then
      fail(op, 'maxSize = %s must be strictly greater than the requested size %d', tostring(max_size), size)
    end
    if new_long > max_size then new_short, new_long = math.floor(max_size * new_short / new_long), max_size end
  end
  if w <= h then return { new_long, new_short } end
  return { new_short, new_long }
end

--- data.transforms.functional.resize(img, size[, {interpolation = 'bilinear', maxSize =, antialias = true}]):
--- img (C x H x W, H x W or N x C x H x W; float or byte) resampled to size: {h, w}, or a number
--- for the shorter side (the other keeps the aspect ratio, at most maxSize). 'nearest', 'bilinear'
--- or 'bicubic' with half-pixel centres; antialias (bilinear and bicubic) filters when shrinking.
--- Example: data.transforms.functional.resize(torch.rand(3, 8, 6), 4)
function F.resize(img, size, opts)
  opts = opts or {}
  local x, back = core.image('resize', img)
  local mode = core.interpolation('resize', opts.interpolation, 'bilinear')
  local H, W = x:size(3), x:size(4)
  local s = output_size('resize', H, W, size, opts.maxSize)
  if type(size) ~= 'table' or #size == 1 then
    if s[1] == H and s[2] == W then return img end
  end
  local oh, ow = s[1], s[2]
  if mode == 'nearest' then
    local y = x
    if oh ~= H then y = y:index(3, core.on_device(nearest_index(H, oh), x)) end
    if ow ~= W then y = y:index(4, core.on_device(nearest_index(W, ow), x)) end
    return back(y == x and x:clone() or y)
  end
  local antialias = opts.antialias
  if antialias == nil then antialias = true end
  local y = separable(core.to_float(x), oh, ow, mode, antialias)
  return back(core.cast_out(y, x))
end

--- data.transforms.functional.crop(img, top, left, height, width): the height x width window whose
--- top-left corner is top rows and left columns into img (0-based pixel offsets, as torchvision);
--- parts outside the image are zeros.
--- Example: data.transforms.functional.crop(torch.rand(3, 8, 8), 2, 1, 4, 4)
function F.crop(img, top, left, height, width)
  local x, back = core.image('crop', img)
  local args = { top, left, height, width }
  for i = 1, 4 do  -- by index: ipairs would stop at a missing argument
    local v = args[i]
    if type(v) ~= 'number' or v ~= math.floor(v) then
      fail('crop', 'top, left, height and width must be integers, got %s', tostring(v))
    end
  end
  if height < 1 or width < 1 then fail('crop', 'crop size %dx%d must be positive', height, width) end
  local H, W = x:size(3), x:size(4)
  local bottom, right = top + height, left + width
  if left < 0 or top < 0 or right > W or bottom > H then
    local t0, l0 = math.max(top, 0), math.max(left, 0)
    local hh, ww = math.min(bottom, H) - t0, math.min(right, W) - l0
    local out = x.new(x:size(1), x:size(2), height, width):zero()
    if hh > 0 and ww > 0 then
      out:narrow(3, t0 - top + 1, hh):narrow(4, l0 - left + 1, ww):copy(x:narrow(3, t0 + 1, hh):narrow(4, l0 + 1, ww))
    end
    return back(out)
  end
  return back(x:narrow(3, top + 1, height):narrow(4, left + 1, width))
end

--- data.transforms.functional.centerCrop(img, size): the central size (number or {h, w}) window;
--- an image smaller than size is zero-padded first (torchvision's offsets, rounded half to even).
--- Example: data.transforms.functional.centerCrop(torch.rand(3, 8, 8), 4)
function F.centerCrop(img, size)
  local x, back = core.image('centerCrop', img)
  local s = core.size2('centerCrop', size)
  local ch, cw = s[1], s[2]
  local H, W = x:size(3), x:size(4)
  if ch > H or cw > W then
    local pl, pt = cw > W and math.floor((cw - W) / 2) or 0, ch > H and math.floor((ch - H) / 2) or 0
    local pr, pb = cw > W and math.floor((cw - W + 1) / 2) or 0, ch > H and math.floor((ch - H + 1) / 2) or 0
    x = F.pad(x, { pl, pt, pr, pb })
    H, W = x:size(3), x:size(4)
    if ch == H and cw == W then return back(x) end
  end
  return back(F.crop(x, core.round((H - ch) / 2), core.round((W - cw) / 2), ch, cw))
end

--- data.transforms.functional.resizedCrop(img, top, left, height, width, size[, opts]): crop then
--- resize to size (opts as for resize).
--- Example: data.transforms.functional.resizedCrop(torch.rand(3, 8, 8), 0, 0, 4, 4, {2, 2})
function F.resizedCrop(img, top, left, height, width, size, opts)
  return F.resize(F.crop(img, top, left, height, width), size, opts)
end

--- data.transforms.functional.hflip(img): the image mirrored left to right (last dim).
--- Example: data.transforms.functional.hflip(torch.rand(3, 4, 4))
function F.hflip(img)
  core.image('hflip', img)
  return torch.flip(img, { img:dim() })
end

--- data.transforms.functional.vflip(img): the image upside down (second-to-last dim).
--- Example: data.transforms.functional.vflip(torch.rand(3, 4, 4))
function F.vflip(img)
  core.image('vflip', img)
  return torch.flip(img, { img:dim() - 1 })
end

local PAD_MODES = { constant = true, edge = true, reflect = true, symmetric = true }

-- {left, top, right, bottom} from torchvision's padding forms.
local function ltrb(op, p)
  if type(p) == 'number' then p = { p } end
  if type(p) ~= 'table' or (#p ~= 1 and #p ~= 2 and #p ~= 4) then
    fail(op, 'padding must be a number or a list of 1, 2 or 4 integers, got %s', tostring(p))
  end
  for i = 1, #p do
    if type(p[i]) ~= 'number' or p[i] ~= math.floor(p[i]) then fail(op, 'padding must hold integers') end
  end
  if #p == 1 then return { p[1], p[1], p[1], p[1] } end
  if #p == 2 then return { p[1], p[2], p[1], p[2] } end
  return { p[1], p[2], p[3], p[4] }
end
F._ltrb = ltrb

--- data.transforms.functional.pad(img, padding[, fill = 0[, paddingMode = 'constant']]): padding
--- is a number (all sides), {leftRight, topBottom} or {left, top, right, bottom}; negative pads
--- crop. Modes: 'constant' (fill: a number or one per channel), 'edge', 'reflect' (edge pixel not
--- repeated), 'symmetric' (repeated).
--- Example: data.transforms.functional.pad(torch.rand(3, 4, 4), {1, 2}, 0, 'reflect')
function F.pad(img, padding, fill, mode)
  local x, back = core.image('pad', img)
  local p = ltrb('pad', padding)
  mode = mode or 'constant'
  if not PAD_MODES[mode] then
    fail('pad', "paddingMode must be 'constant', 'edge', 'reflect' or 'symmetric', got %s", tostring(mode))
  end
  -- negative pads crop first
  local H, W = x:size(3), x:size(4)
  local cl, ct, cr, cb = math.max(-p[1], 0), math.max(-p[2], 0), math.max(-p[3], 0), math.max(-p[4], 0)
  if cl + cr >= W or ct + cb >= H then fail('pad', 'negative padding removes the whole %dx%d image', H, W) end
  if cl + ct + cr + cb > 0 then x = x:narrow(3, ct + 1, H - ct - cb):narrow(4, cl + 1, W - cl - cr) end
  local l, t, r, b = math.max(p[1], 0), math.max(p[2], 0), math.max(p[3], 0), math.max(p[4], 0)
  H, W = x:size(3), x:size(4)
  if mode == 'constant' then
    local fills = core.fill_list('pad', fill or 0, x:size(2))
    local out = x.new(x:size(1), x:size(2), H + t + b, W + l + r)
    for c = 1, x:size(2) do out:select(2, c):fill(fills[c]) end
    out:narrow(3, t + 1, H):narrow(4, l + 1, W):copy(x)
    return back(out)
  end
  if mode == 'symmetric' then
    if l > W or r > W or t > H or b > H then
      fail('pad', 'symmetric padding must not exceed the image size %dx%d', H, W)
    end
    local function idx(n, before, after)
      local list = {}
      for i = before, 1, -1 do list[#list + 1] = i end
      for i = 1, n do list[#list + 1] = i end
      for i = 0, after - 1 do list[#list + 1] = n - i end
      return torch.LongTensor(list)
    end
    return back(x:index(3, core.on_device(idx(H, t, b), x)):index(4, core.on_device(idx(W, l, r), x)))
  end
  if mode == 'reflect' and (l >= W or r >= W or t >= H or b >= H) then
    fail('pad', 'reflect padding must be smaller than the image size %dx%d', H, W)
  end
  local nn = require 'nn'
  local y = nn.functional.pad(core.to_float(x), { l, r, t, b }, mode == 'edge' and 'replicate' or 'reflect')
  return back(core.cast_out(y, x))
end

--- data.transforms.functional.fiveCrop(img, size): {topLeft, topRight, bottomLeft, bottomRight,
--- center} crops of size (number or {h, w}).
--- Example: data.transforms.functional.fiveCrop(torch.rand(3, 8, 8), 4)
function F.fiveCrop(img, size)
  local x = core.image('fiveCrop', img)
  local s = core.size2('fiveCrop', size)
  local H, W = x:size(3), x:size(4)
  if s[1] > H or s[2] > W then fail('fiveCrop', 'crop %dx%d is bigger than the image %dx%d', s[1], s[2], H, W) end
  return { F.crop(img, 0, 0, s[1], s[2]), F.crop(img, 0, W - s[2], s[1], s[2]), F.crop(img, H - s[1], 0, s[1], s[2]),
    F.crop(img, H - s[1], W - s[2], s[1], s[2]), F.centerCrop(img, s) }
end

--- data.transforms.functional.tenCrop(img, size[, verticalFlip = false]): fiveCrop of img, then
--- fiveCrop of its horizontal (or vertical) mirror: a list of 10 crops.
--- Example: data.transforms.functional.tenCrop(torch.rand(3, 8, 8), 4)
function F.tenCrop(img, size, vertical)
  local out = F.fiveCrop(img, size)
  local second = F.fiveCrop(vertical and F.vflip(img) or F.hflip(img), size)
  for i = 1, 5 do out[5 + i] = second[i] end
  return out
end

return F
