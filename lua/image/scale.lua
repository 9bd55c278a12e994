-- image.scale and image.crop with Torch7's argument forms and semantics: sizes from "WxH",
-- "^MIN", "*SC", MAX, truncated as Torch7's C casts did; 'simple' (nearest), 'bilinear' and
-- 'bicubic' resampling as Torch7's generic/image.c computed them.
local torch = require 'torch'
local U = require 'image.util'

return function(image)

local f32, trunc = U.f32, U.trunc

-- Note [Torch7 scaling]: Torch7's scale is separable (rows, then columns) and is not torchvision's
-- resize: 'bilinear' interpolates with aligned corners ((n_in - 1) / (n_out - 1) steps, the last
-- pixel copied) when enlarging, and averages the input pixels each output pixel covers (an area
-- filter with fractional end weights) when shrinking; 'bicubic' is a Catmull-Rom spline with aligned
-- corners, the missing outer neighbours extrapolated linearly, in both directions; 'simple' picks
-- floor(i * n_in / n_out). Coordinates are computed in float32 as there. Each pass is a matrix
-- (n_out x n_in) applied with matmul, so the resampling runs as tensor ops; the passes of a byte
-- image are rounded and clamped in between, as Torch7 stored its byte intermediate.

-- Rows of weights as Lua lists: w[o] = { [i] = weight } (1-based indices).
local function linear_weights(nin, nout)
  local w = {}
  if nout > nin then
    local scale = f32((nin - 1) / (nout - 1))
    for di = 0, nout - 2 do
      if nin == 1 then
        w[di + 1] = { [1] = 1 }
      else
        local si = f32(di * scale)
        local ii = math.floor(si)
        local f = f32(si - ii)
        w[di + 1] = { [ii + 1] = f32(1 - f), [ii + 2] = f }
      end
    end
    w[nout] = { [nin] = 1 }
  elseif nout < nin then
    local scale = f32(nin / nout)
    local i0, f0 = 0, 0
    for di = 0, nout - 1 do
      local s1 = f32((di + 1) * scale)
      local i1 = math.floor(s1)
      local f1 = f32(s1 - i1)
      local row, n = { [i0 + 1] = f32(1 - f0) }, f32(1 - f0)
      for si = i0 + 1, i1 - 1 do
        row[si + 1] = 1
        n = n + 1
      end
      if i1 < nin then
        row[i1 + 1] = (row[i1 + 1] or 0) + f1
        n = n + f1
      end
      for k, v in pairs(row) do row[k] = v / n end
      w[di + 1] = row
      i0, f0 = i1, f1
    end
  else
    for i = 1, nin do w[i] = { [i] = 1 } end
  end
  return w
end

local function cubic_weights(nin, nout)
  local w = {}
  if nout == nin then
    for i = 1, nin do w[i] = { [i] = 1 } end
    return w
  end
  if nin == 1 then
    for i = 1, nout do w[i] = { [1] = 1 } end
    return w
  end
  local scale = nout == 1 and f32(nin - 1) or f32((nin - 1) / (nout - 1))
  for di = 0, nout - 2 do
    local si = f32(di * scale)
    local ii = math.floor(si)
    local x = f32(si - ii)
    -- value = p1 + x/2 (a1 + x (a2 + x a3)) of generic/image.c, as weights of p0..p3
    local c0 = -0.5 * x + x * x - 0.5 * x * x * x
    local c1 = 1 - 2.5 * x * x + 1.5 * x * x * x
    local c2 = 0.5 * x + 2 * x * x - 1.5 * x * x * x
    local c3 = -0.5 * x * x + 0.5 * x * x * x
    if ii == 0 then c1, c2 = c1 + 2 * c0, c2 - c0 c0 = 0 end           -- p0 = 2 p1 - p2
    if ii + 2 >= nin then c2, c1 = c2 + 2 * c3, c1 - c3 c3 = 0 end     -- p3 = 2 p2 - p1
    local row = {}
    local function add(i, v) if v ~= 0 then row[i + 1] = (row[i + 1] or 0) + v end end
    add(ii - 1, c0) add(ii, c1) add(ii + 1, c2) add(ii + 2, c3)
    w[di + 1] = row
  end
  w[nout] = { [nin] = 1 }
  return w
end

local function simple_weights(nin, nout)
  local w = {}
  local sc = f32(f32(nin) / f32(nout))
  for i = 0, nout - 1 do
    local ii = math.min(math.floor(f32(i * sc)), nin - 1)
    w[i + 1] = { [ii + 1] = 1 }
  end
  return w
end

local WEIGHTS = { bilinear = linear_weights, bicubic = cubic_weights, simple = simple_weights }

-- Note [Weight cache]: a data loader scales images of a few sizes over and over; the weights
-- (built in Lua) are kept per (mode, n_in, n_out, type), up to CACHE_MAX sets of them.
local CACHE_MAX = 64
local cache, cached = {}, 0

-- Note [Banded weights]: each output pixel reads a few neighbouring inputs, so the n_out x n_in
-- weight matrix is a band; as one dense matrix its product costs n_in x n_out per line (a
-- 2000 -> 4000 enlargement took 0.9 s, 8x PIL). The outputs are cut into blocks of BLOCK pixels,
-- each a dense matrix over the window of inputs its rows touch: the same weights and sums, at a
-- cost proportional to the band. Small resamplings stay one block (one matmul).
local BLOCK = 64

-- A set of weights past this many entries is refused (Note [Image sizes]).
local MAX_WEIGHTS = 2 ^ 28

-- The blocks of a resampling: { o0, olen, i0, ilen, m } (1-based first output and input, m the
-- olen x ilen weights in like's type).
local function blocks(mode, nin, nout, like)
  local key = mode .. ':' .. nin .. ':' .. nout .. ':' .. torch.type(like)
  local bl = cache[key]
  if bl then return bl end
  local rows = WEIGHTS[mode](nin, nout)
  local size = nout <= BLOCK * 3 / 2 and nout or BLOCK
  bl = {}
  local total = 0
  for o0 = 1, nout, size do
    local olen = math.min(size, nout - o0 + 1)
    local lo, hi = math.huge, -math.huge
    for o = o0, o0 + olen - 1 do
      for i in pairs(rows[o]) do lo, hi = math.min(lo, i), math.max(hi, i) end
    end
    local ilen = hi - lo + 1
    total = total + olen * ilen
    if total > MAX_WEIGHTS then
      U.fail('scale', 'resampling %d pixels to %d along one side needs over %d weights (Note [Image sizes])',
        nin, nout, MAX_WEIGHTS)
    end
    local idx, val = {}, {}
    for o = o0, o0 + olen - 1 do
      local base = (o - o0) * ilen - lo + 1
      for i, v in pairs(rows[o]) do
        idx[#idx + 1] = base + i
        val[#val + 1] = v
      end
    end
    local m = torch.DoubleTensor(olen, ilen):zero()
    m:view(-1):indexCopy(1, torch.LongTensor(idx), torch.DoubleTensor(val))
    bl[#bl + 1] = { o0 = o0, olen = olen, i0 = lo, ilen = ilen, m = m:typeAs(like) }
  end
  if cached >= CACHE_MAX then cache, cached = {}, 0 end
  cache[key], cached = bl, cached + 1
  return bl
end

-- y resampled from nin to nout pixels along dim d (its last or second-to-last), by blocks.
local function pass(y, d, mode, nin, nout)
  local bl = blocks(mode, nin, nout, y)
  local last = d == y:dim()
  local function apply(b, x)
    if last then return torch.matmul(x, b.m:t()) end
    return torch.matmul(b.m, x)
  end
  if #bl == 1 and bl[1].i0 == 1 and bl[1].ilen == nin then return apply(bl[1], y) end
  local sizes = y:size()
  sizes[d] = nout
  local out = y.new(sizes)
  for _, b in ipairs(bl) do
    out:narrow(d, b.o0, b.olen):copy(apply(b, y:narrow(d, b.i0, b.ilen)))
  end
  return out
end

-- Note [Integer images]: Torch7 computed integer images with float intermediates (temp_t) and
-- stored each pass in the image's own type: bytes rounded and clamped to 0..255 (FromIntermediate),
-- other integer types truncated by the C cast, not clamped (an IntTensor of 1000s stays in the 1000s).
local function store(y, src)
  if U.isByte(src) then return y:add(0.5):floor():clamp(0, 255) end
  return y:trunc()
end

-- src resampled to oh x ow with mode (Note [Torch7 scaling]); a new tensor of src's type.
local function resample(src, oh, ow, mode)
  local h, w = src:size(src:dim() - 1), src:size(src:dim())
  if mode == 'simple' then  -- a selection: exact for every type
    local rows = simple_weights(h, oh)
    local cols = simple_weights(w, ow)
    local ri, ci = {}, {}
    for i = 1, oh do ri[i] = next(rows[i]) end
    for i = 1, ow do ci[i] = next(cols[i]) end
    ri, ci = torch.LongTensor(ri), torch.LongTensor(ci)
    local d = src:dim()
    return src:index(d - 1, ri):index(d, ci)
  end
  local floating = src:isFloatingPoint()
  local y = floating and src or src:float()
  local d = y:dim()
  if ow ~= w then
    y = pass(y, d, mode, w, ow)
    if not floating then y = store(y, src) end
  end
  if oh ~= h then
    y = pass(y, d - 1, mode, h, oh)
    if not floating then y = store(y, src) end
  end
  if not floating then return y:typeAs(src) end
  if y == src then return src:clone() end  -- no pass: a new tensor all the same
  return y:contiguous()
end

local MODES = { simple = true, bilinear = true, bicubic = true }

local function check_mode(mode)
  if mode ~= nil and not MODES[mode] then
    U.fail('scale', "mode must be one of: simple | bicubic | bilinear, got %s", U.describe(mode))
  end
  return mode or 'bilinear'
end

-- Width and height from Torch7's size argument: a number (the longer side), "WxH", "^MIN" (the
-- shorter side), "*SC" or "*SCn/SCd" (a factor).
local function parse_size(src, size)
  local iw, ih = src:size(src:dim()), src:size(src:dim() - 1)
  local omax = tonumber(size)
  if omax then
    local imax = math.max(iw, ih)
    return iw * omax / imax, ih * omax / imax
  end
  if type(size) ~= 'string' then return nil end
  local w, h = size:match('^(%d+)x(%d+)$')
  if w then return tonumber(w), tonumber(h) end
  local omin = tonumber(size:match('^%^(%d+)$'))
  if omin then
    local imin = math.min(iw, ih)
    return iw * omin / imin, ih * omin / imin
  end
  local n, d = size:match('^%*(%d+)/(%d+)$')
  if n then return iw * n / d, ih * n / d end
  local sc = tonumber(size:match('^%*(.+)$'))
  if sc then return iw * sc, ih * sc end
  return nil
end

--- image.scale(src, width, height[, mode = 'bilinear']), image.scale(src, size[, mode]) or
--- image.scale(dst, src[, mode]): src (H x W or C x H x W) resampled to width x height
--- (truncated to integers as Torch7), to size (a number: the longer side; "WxH"; "^MIN": the shorter
--- side; "*SC" or "*N/D": a factor), or to dst's size, written into dst. mode 'simple' (nearest),
--- 'bilinear' or 'bicubic', as Torch7 computed them (Note [Torch7 scaling]; not torchvision's).
--- Example: local image = require 'image'; image.scale(torch.rand(3, 8, 6), 3, 4, 'bicubic'):size()
function image.scale(...)
  local n = select('#', ...)
  local a1, a2, a3, a4 = ...
  local dst, src, width, height, mode, size
  if n == 4 then
    src, width, height, mode = a1, a2, a3, a4
  elseif n == 3 then
    if type(a3) == 'string' then
      if type(a2) == 'string' or type(a2) == 'number' then src, size, mode = a1, a2, a3
      else dst, src, mode = a1, a2, a3 end
    else
      src, width, height = a1, a2, a3
    end
  elseif n == 2 then
    if type(a2) == 'string' or type(a2) == 'number' then src, size = a1, a2 else dst, src = a1, a2 end
  else
    U.fail('scale', 'expected (src, width, height[, mode]), (src, size[, mode]) or (dst, src[, mode]), '
      .. 'got %d arguments', n)
  end
  U.image('scale', src)
  mode = check_mode(mode)
  if size ~= nil then
    width, height = parse_size(src, size)
    if not width then
      U.fail('scale', 'could not find a valid size in %s (expected a number, "WxH", "^MIN", "*SC" or "*N/D")',
        U.describe(size))
    end
  end
  local ow, oh
  if dst ~= nil then
    U.image('scale', dst, 'dst')
    if dst:dim() ~= src:dim() or (dst:dim() == 3 and dst:size(1) ~= src:size(1)) then
      U.fail('scale', 'src and dst depths do not match (src %s, dst %s)', U.describe(src), U.describe(dst))
    end
    ow, oh = dst:size(dst:dim()), dst:size(dst:dim() - 1)
  else
    U.number('scale', width, 'width')
    U.number('scale', height, 'height')
    ow, oh = trunc(width), trunc(height)
    if ow < 1 or oh < 1 then
      U.fail('scale', 'the destination size must be at least 1x1, got width %s and height %s',
        tostring(width), tostring(height))
    end
    U.checkSize('scale', ow, oh)
  end
  local y = resample(src, oh, ow, mode)
  if dst ~= nil then
    dst:copy(y)
    return dst
  end
  return y
end

local FORMATS = { c = true, tl = true, tr = true, bl = true, br = true }

--- image.crop(src, x1, y1, x2, y2), image.crop(src, format, width, height), image.crop(dst, src,
--- x1, y1[, x2, y2]) or image.crop(dst, src, format, width, height): the window of columns x1..x2-1
--- and rows y1..y2-1 (0-based, x2 and y2 excluded, as Torch7), a new tensor; format 'c' (centre,
--- offsets floored), 'tl', 'tr', 'bl' or 'br' places a width x height window. With dst and (x1, y1)
--- only, dst's size is cropped at (x1, y1); with dst and a window, the window is scaled (bilinear)
--- into dst. A window outside src is an error.
--- Example: local image = require 'image'; image.crop(torch.rand(3, 8, 8), 'c', 4, 4):size()
function image.crop(...)
  local n = select('#', ...)
  local a = { ... }
  local dst, src, x1, y1, x2, y2, format, width, height
  if n == 6 then
    dst, src, x1, y1, x2, y2 = a[1], a[2], a[3], a[4], a[5], a[6]
  elseif n == 5 then
    if type(a[3]) == 'string' then dst, src, format, width, height = a[1], a[2], a[3], a[4], a[5]
    else src, x1, y1, x2, y2 = a[1], a[2], a[3], a[4], a[5] end
  elseif n == 4 then
    if type(a[2]) == 'string' then src, format, width, height = a[1], a[2], a[3], a[4]
    else dst, src, x1, y1 = a[1], a[2], a[3], a[4] end
  else
    U.fail('crop', 'expected (src, x1, y1, x2, y2), (src, format, width, height) or (dst, src, x1, y1[, x2, y2]), '
      .. 'got %d arguments', n)
  end
  U.image('crop', src)
  local iw, ih = src:size(src:dim()), src:size(src:dim() - 1)
  if format ~= nil then
    if not FORMATS[format] then
      U.fail('crop', 'crop format must be "c"|"tl"|"tr"|"bl"|"br", got %s', U.describe(format))
    end
    U.number('crop', width, 'width')
    U.number('crop', height, 'height')
    if format == 'c' then x1, y1 = math.floor((iw - width) / 2), math.floor((ih - height) / 2)
    elseif format == 'tl' then x1, y1 = 0, 0
    elseif format == 'tr' then x1, y1 = iw - width, 0
    elseif format == 'bl' then x1, y1 = 0, ih - height
    else x1, y1 = iw - width, ih - height end
    x2, y2 = x1 + width, y1 + height
  end
  U.number('crop', x1, 'x1')
  U.number('crop', y1, 'y1')
  local sx, sy = trunc(x1), trunc(y1)
  local cw, ch
  if x2 == nil then
    if dst == nil then U.fail('crop', 'crop(dst, src, x1, y1) needs dst') end
    U.image('crop', dst, 'dst')
    cw, ch = dst:size(dst:dim()), dst:size(dst:dim() - 1)
  else
    U.number('crop', x2, 'x2')
    U.number('crop', y2, 'y2')
    -- Torch7 sized the window src.new(y2 - y1, x2 - x1) from the corners as given, truncated
    cw, ch = trunc(x2 - x1), trunc(y2 - y1)
  end
  if sx < 0 or sy < 0 or cw < 1 or ch < 1 or sx + cw > iw or sy + ch > ih then
    U.fail('crop', 'crop goes outside bounds of src: x %d..%d, y %d..%d of a %dx%d (WxH) image (0-based, end excluded)',
      sx, sx + cw, sy, sy + ch, iw, ih)
  end
  local d = src:dim()
  local window = src:narrow(d, sx + 1, cw):narrow(d - 1, sy + 1, ch)
  if x2 == nil then
    if dst:dim() ~= d or (d == 3 and dst:size(1) ~= src:size(1)) then
      U.fail('crop', 'src and dst depths do not match (src %s, dst %s)', U.describe(src), U.describe(dst))
    end
    dst:copy(window)
    return dst
  end
  if dst ~= nil then return image.scale(dst, window) end
  return window:clone()
end

end
