-- Geometric transforms with Torch7's argument forms: hflip, vflip, flip (with an optional dst),
-- translate (whole pixels, uncovered pixels zero), rotate ('simple' and 'bilinear', about the
-- image centre) and warp (a flow field; 'simple' and 'bilinear').
local torch = require 'torch'
local U = require 'image.util'

return function(image)

local trunc = U.trunc

local function one_or_two(fn, n, a1, a2)
  if n == 2 then return a1, a2 end
  if n == 1 then return nil, a1 end
  U.fail(fn, 'expected (src) or (dst, src), got %d arguments', n)
end

--- image.hflip([dst,] src): src mirrored left to right (its last dim), a new tensor or dst
--- (resized; dst may be src itself).
--- Example: local image = require 'image'; image.hflip(torch.Tensor({{1, 2, 3}}))
function image.hflip(...)
  local dst, src = one_or_two('hflip', select('#', ...), ...)
  U.image('hflip', src)
  return U.into('hflip', dst, torch.flip(src, { src:dim() }))
end

--- image.vflip([dst,] src): src upside down (its second-to-last dim), a new tensor or dst.
--- Example: local image = require 'image'; image.vflip(torch.Tensor({{1, 2}, {3, 4}}))
function image.vflip(...)
  local dst, src = one_or_two('vflip', select('#', ...), ...)
  U.image('vflip', src)
  return U.into('vflip', dst, torch.flip(src, { src:dim() - 1 }))
end

--- image.flip([dst,] src, dim): src reversed along dim (1..src:dim(), up to 5-D), a new tensor or dst.
--- Example: local image = require 'image'; image.flip(torch.rand(2, 3, 4), 1)
function image.flip(...)
  local n = select('#', ...)
  local a1, a2, a3 = ...
  local dst, src, d
  if n == 3 then dst, src, d = a1, a2, a3
  elseif n == 2 then src, d = a1, a2
  else U.fail('flip', 'expected (src, dim) or (dst, src, dim), got %d arguments', n) end
  if not torch.isTensor(src) or src:dim() < 1 or src:dim() > 5 then
    U.fail('flip', 'src must be a tensor of 1 to 5 dims, got %s', U.describe(src))
  end
  U.cpu('flip', src, 'src')
  if type(d) ~= 'number' or d % 1 ~= 0 or d < 1 or d > src:dim() then
    U.fail('flip', 'dim must be an integer in 1..%d, got %s', src:dim(), U.describe(d))
  end
  return U.into('flip', dst, torch.flip(src, { d }))
end

--- image.translate([dst,] src, x, y): src shifted x pixels right and y down (truncated to
--- integers, as Torch7); uncovered pixels are zero. A new tensor, or dst (resized).
--- Example: local image = require 'image'; image.translate(torch.ones(1, 3, 3), 1, 0)
function image.translate(...)
  local n = select('#', ...)
  local a1, a2, a3, a4 = ...
  local dst, src, x, y
  if n == 4 then dst, src, x, y = a1, a2, a3, a4
  elseif n == 3 then src, x, y = a1, a2, a3
  else U.fail('translate', 'expected (src, x, y) or (dst, src, x, y), got %d arguments', n) end
  U.image('translate', src)
  x, y = trunc(U.number('translate', x, 'x')), trunc(U.number('translate', y, 'y'))
  local d = src:dim()
  local h, w = src:size(d - 1), src:size(d)
  local out = src.new():resizeAs(src):zero()
  local cw, ch = w - math.abs(x), h - math.abs(y)
  if cw > 0 and ch > 0 then
    local from = src:narrow(d, math.max(0, -x) + 1, cw):narrow(d - 1, math.max(0, -y) + 1, ch)
    out:narrow(d, math.max(0, x) + 1, cw):narrow(d - 1, math.max(0, y) + 1, ch):copy(from)
  end
  return U.into('translate', dst, out)
end

-- Pixel coordinates of an h x w grid: columns i and rows j (0-based), DoubleTensors h x w.
local function grid(h, w)
  local i = torch.range(0, w - 1):double():view(1, w):expand(h, w):contiguous()
  local j = torch.range(0, h - 1):double():view(h, 1):expand(h, w):contiguous()
  return i, j
end

-- Values of src3 (C x H x W) at integer positions (ix, iy: DoubleTensors of an output's h x w,
-- already inside the image): C x h x w, in src3's type.
local function pick(src3, ix, iy)
  local c, w = src3:size(1), src3:size(3)
  local flat = (iy * w + ix + 1):long():view(-1)  -- index() is 1-based
  return src3:contiguous():view(c, -1):index(2, flat):view(c, ix:size(1), ix:size(2))
end

-- Bilinear mix of the four neighbours (x0/x1, y0/y1 inside the image) with weights fx, fy,
-- computed in a floating type (U.work).
local function mix(src3, x0, x1, y0, y1, fx, fy)
  local s = U.work(src3)
  local gx, gy = fx:typeAs(s), fy:typeAs(s)
  local hx, hy = gx:clone():mul(-1):add(1), gy:clone():mul(-1):add(1)
  local function term(xa, ya, wt)
    local p = pick(s, xa, ya)
    return p:cmul(wt:view(1, wt:size(1), wt:size(2)):expandAs(p))
  end
  return term(x0, y0, torch.cmul(hx, hy)):add(term(x1, y0, torch.cmul(gx, hy)))
    :add(term(x0, y1, torch.cmul(hx, gy))):add(term(x1, y1, torch.cmul(gx, gy)))
end

local function as3(src)
  if src:dim() == 2 then return src:view(1, src:size(1), src:size(2)) end
  return src
end

local function zero_outside(y, keep)
  return y:cmul(keep:typeAs(y):view(1, keep:size(1), keep:size(2)):expandAs(y))
end

-- Note [Torch7 rotation]: image.rotate turns about the centre ((w-1)/2, (h-1)/2), each output
-- pixel reading the input at R(theta) (x - c) + c. 'simple' rounds that position (computed in
-- float32, as Torch7) and leaves outside positions zero; 'bilinear' mixes the four neighbours and
-- reads zero outside, except within half a pixel of the border, where the nearest edge pixel is
-- used (generic/image.c's rule). The output has src's size: corners are cut and filled with zero.
local function rotate(src, theta, mode)
  local s3 = as3(src)
  local h, w = s3:size(2), s3:size(3)
  local i, j = grid(h, w)
  local xc, yc = U.f32((w - 1) / 2), U.f32((h - 1) / 2)
  local y
  if mode == 'simple' then
    local t32 = U.f32(theta)  -- luaL_checknumber into a float, as generic/image.c
    local ct, st = U.f32(math.cos(t32)), U.f32(math.sin(t32))
    local fi, fj = i:float():add(-xc), j:float():add(-yc)
    local ii = torch.round(fi:clone():mul(ct):add(-1, fj:clone():mul(st)):add(xc)):double()
    local jj = torch.round(fj:clone():mul(ct):add(fi:clone():mul(st)):add(yc)):double()
    local keep = ii:ge(0):cmul(ii:le(w - 1)):cmul(jj:ge(0)):cmul(jj:le(h - 1))
    y = pick(s3, ii:clamp(0, w - 1), jj:clamp(0, h - 1))
    y = zero_outside(y:clone(), keep)
  else
    local ct, st = math.cos(U.f32(theta)), math.sin(U.f32(theta))
    local di, dj = i:add(-xc), j:add(-yc)
    local rx = di:clone():mul(ct):add(-st, dj):add(xc)
    local ry = dj:clone():mul(ct):add(st, di):add(yc)
    local x0, y0 = torch.floor(rx), torch.floor(ry)
    local fx, fy = rx - x0, ry - y0
    local x1, y1 = x0 + 1, y0 + 1
    local keep = torch.ByteTensor(h, w):fill(1)
    -- at the far edges: within half a pixel, the edge pixel; further, zero
    local near = x1:eq(w):cmul(fx:lt(0.5))
    x1 = torch.where(near, x0, x1)
    keep:cmul(x1:lt(w))
    near = y1:eq(h):cmul(fy:lt(0.5))
    y1 = torch.where(near, y0, y1)
    keep:cmul(y1:lt(h))
    near = x0:eq(-1):cmul(fx:gt(0.5))
    x0 = torch.where(near, x1, x0)
    keep:cmul(x0:ge(0))
    near = y0:eq(-1):cmul(fy:gt(0.5))
    y0 = torch.where(near, y1, y0)
    keep:cmul(y0:ge(0))
    x0, x1 = x0:clamp(0, w - 1), x1:clamp(0, w - 1)
    y0, y1 = y0:clamp(0, h - 1), y1:clamp(0, h - 1)
    y = zero_outside(mix(s3, x0, x1, y0, y1, fx, fy), keep)
    y = U.finish(y, src)
  end
  return src:dim() == 2 and y[1] or y
end

--- image.rotate([dst,] src, theta[, mode = 'simple']): src turned by theta radians about its
--- centre (counter-clockwise on screen for theta > 0, as Torch7), same size, corners zero; mode
--- 'simple' (nearest) or 'bilinear' (Note [Torch7 rotation]). A new tensor, or dst.
--- Example: local image = require 'image'; image.rotate(torch.rand(3, 8, 8), math.pi / 2, 'bilinear')
function image.rotate(...)
  local n = select('#', ...)
  local a1, a2, a3, a4 = ...
  local dst, src, theta, mode
  if n == 4 then dst, src, theta, mode = a1, a2, a3, a4
  elseif n == 3 then
    if type(a2) == 'number' then src, theta, mode = a1, a2, a3 else dst, src, theta = a1, a2, a3 end
  elseif n == 2 then src, theta = a1, a2
  else U.fail('rotate', 'expected (src, theta[, mode]) or (dst, src, theta[, mode]), got %d arguments', n) end
  U.image('rotate', src)
  U.number('rotate', theta, 'theta')
  mode = mode or 'simple'
  if mode ~= 'simple' and mode ~= 'bilinear' then
    U.fail('rotate', 'mode must be one of: simple | bilinear, got %s', U.describe(mode))
  end
  return U.into('rotate', dst, rotate(src, theta, mode))
end

-- Note [Warp modes]: Torch7's warp also had 'bicubic' and 'lanczos'; Tocha has 'simple' and
-- 'bilinear' (clamping positions into the image, or pad_value outside with clamp_mode 'pad').
local function warp(src, field, mode, offset, clamp_mode, pad)
  local s3 = as3(src)
  local h, w = s3:size(2), s3:size(3)
  local oh, ow = field:size(2), field:size(3)
  local ix, iy = field[2]:double():clone(), field[1]:double():clone()
  if offset then
    local i, j = grid(oh, ow)
    ix:add(i)
    iy:add(j)
  end
  local off = ix:lt(0):add(ix:gt(w - 1)):add(iy:lt(0)):add(iy:gt(h - 1)):gt(0)
  ix:clamp(0, w - 1)
  iy:clamp(0, h - 1)
  local y
  if mode == 'simple' then
    y = pick(s3, torch.floor(ix + 0.5):clamp(0, w - 1), torch.floor(iy + 0.5):clamp(0, h - 1)):clone()
  else
    local x0, y0 = torch.floor(ix), torch.floor(iy)
    local fx, fy = ix - x0, iy - y0
    y = mix(s3, x0, (x0 + 1):clamp(0, w - 1), y0, (y0 + 1):clamp(0, h - 1), fx, fy)
    y = U.finish(y, src)
  end
  if clamp_mode == 'pad' then
    local offc = off:view(1, oh, ow):expandAs(y)
    y = torch.where(offc, torch.Tensor():typeAs(y):resizeAs(y):fill(pad), y)
  end
  return src:dim() == 2 and y[1] or y
end

--- image.warp([dst,] src, field[, mode = 'bilinear'[, offset_mode = true[, clamp_mode = 'clamp'[,
--- pad_value = 0]]]]): src resampled at the positions of field (2 x H' x W': y then x, in pixels,
--- added to each output pixel's own position when offset_mode is true); mode 'simple' or
--- 'bilinear'; positions outside src are clamped to its border ('clamp') or give pad_value ('pad').
--- Example: local image = require 'image'; image.warp(torch.rand(1, 4, 4), torch.zeros(2, 4, 4):fill(0.5))
function image.warp(...)
  local n = select('#', ...)
  local a = { ... }
  local dst, src, field, mode, offset, clamp_mode, pad = nil, nil, nil, 'bilinear', true, 'clamp', 0
  local rest
  if n >= 3 and torch.isTensor(a[3]) then
    dst, src, field, rest = a[1], a[2], a[3], 4
  elseif n >= 2 then
    src, field, rest = a[1], a[2], 3
  else
    U.fail('warp', 'expected (src, field, ...) or (dst, src, field, ...), got %d arguments', n)
  end
  if n > rest + 3 then U.fail('warp', 'too many arguments (%d)', n) end
  if n >= rest then mode = a[rest] end
  if n >= rest + 1 then offset = a[rest + 1] end
  if n >= rest + 2 then clamp_mode = a[rest + 2] end
  if n >= rest + 3 then
    if clamp_mode ~= 'pad' then U.fail('warp', 'pad_value can only be given with clamp_mode "pad"') end
    pad = U.number('warp', a[rest + 3], 'pad_value')
  end
  U.image('warp', src)
  if not torch.isTensor(field) or field:dim() ~= 3 or field:size(1) ~= 2 then
    U.fail('warp', 'field must be a 2 x H x W tensor (y, x), got %s', U.describe(field))
  end
  if mode == 'bicubic' or mode == 'lanczos' then
    U.fail('warp', "mode '%s' is not available in Tocha: use 'bilinear' or 'simple' (Note [Warp modes])", mode)
  elseif mode ~= 'simple' and mode ~= 'bilinear' then
    U.fail('warp', 'mode must be one of: simple | bilinear, got %s', U.describe(mode))
  end
  if clamp_mode ~= 'clamp' and clamp_mode ~= 'pad' then
    U.fail('warp', 'clamp_mode must be clamp | pad, got %s', U.describe(clamp_mode))
  end
  return U.into('warp', dst, warp(src, field, mode, offset and true or false, clamp_mode, pad))
end

end
