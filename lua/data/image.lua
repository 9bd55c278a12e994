-- Image files (PNG, JPEG through libpng and libjpeg-turbo): data.image.load / data.image.decode /
-- data.image.save, in Torch7's layout (channels x height x width); argument checks, the
-- declared-size limit and the errors naming the call and the file.
local ffi = require 'ffi'
local torch = require 'torch'
local lib = require 'torch.lib'
local data = require 'data.env'
local util = require 'data.util'
local C = lib.C

local image = {}
data.image = image

-- Note [Image size limit]: a PNG or JPEG header may declare up to 2^31 x 2^31 (PNG) or
-- 65500 x 65500 (JPEG) pixels in a few bytes; the decoders allocate the whole image before they
-- find the data missing (a 68-byte PNG asked for 14.4 GB, a 476-byte JPEG for 12.8 GB). The
-- declared size is checked here first, against PIL's decompression-bomb limit (2 x 89478485
-- pixels, PIL.Image.MAX_IMAGE_PIXELS); opts.maxPixels raises it (math.huge: no limit).
image.maxPixels = 2 * 89478485

local U8 = lib.dtype.u8
local FLOATING = { [lib.dtype.f32] = true, [lib.dtype.f64] = true, [lib.dtype.f16] = true, [lib.dtype.bf16] = true }

local function check_opts(op, opts, allowed)
  if opts == nil then return {} end
  if type(opts) ~= 'table' then
    util.fail(op, "options must be a table (such as { type = 'byte' }), got %s", type(opts))
  end
  for k in pairs(opts) do
    if not allowed[k] then util.fail(op, 'unknown option %s', tostring(k)) end
  end
  return opts
end

local function check_read_opts(op, opts)
  local ch = opts.channels or 0
  if type(ch) ~= 'number' or ch ~= math.floor(ch) or ch < 0 or ch > 4 then
    util.fail(op, 'opts.channels must be 1, 2, 3 or 4 (or nil: as stored), got %s', tostring(opts.channels))
  end
  local tp = opts.type or 'float'
  if tp ~= 'float' and tp ~= 'double' and tp ~= 'byte' then
    util.fail(op, "opts.type must be 'float', 'double' or 'byte', got %s", tostring(tp))
  end
  local limit = opts.maxPixels or image.maxPixels
  if type(limit) ~= 'number' or limit ~= limit or limit < 1 then
    util.fail(op, 'opts.maxPixels must be a positive number, got %s', tostring(opts.maxPixels))
  end
  return ch, tp, limit
end

local function u16(s, i) return s:byte(i) * 256 + s:byte(i + 1) end
local function u32(s, i) return ((s:byte(i) * 256 + s:byte(i + 1)) * 256 + s:byte(i + 2)) * 256 + s:byte(i + 3) end

-- The width and height a PNG or JPEG declares; nil when the bytes end before saying (the
-- decoder then reports the file as it finds it).
local function declared_size(s)
  if #s >= 24 and s:sub(1, 4) == '\137PNG' and s:sub(13, 16) == 'IHDR' then return u32(s, 17), u32(s, 21) end
  if #s < 4 or s:byte(1) ~= 0xFF or s:byte(2) ~= 0xD8 then return nil end
  local i = 3
  while i + 3 <= #s do
    if s:byte(i) ~= 0xFF then return nil end  -- not at a marker: corrupt, libjpeg says so
    local m = s:byte(i + 1)
    if m == 0xFF then
      i = i + 1  -- fill byte
    elseif m == 0x01 or (m >= 0xD0 and m <= 0xD8) then
      i = i + 2  -- markers without a length
    elseif m == 0xDA or m == 0xD9 then
      return nil  -- scan or end before any frame header
    else
      -- SOF0..SOF15 except DHT (C4), JPG (C8) and DAC (CC): FF m len(2) P(1) Y(2) X(2)
      if m >= 0xC0 and m <= 0xCF and m ~= 0xC4 and m ~= 0xC8 and m ~= 0xCC then
        if i + 8 > #s then return nil end
        return u16(s, i + 7), u16(s, i + 5)
      end
      i = i + 2 + u16(s, i + 2)
    end
  end
  return nil
end

local function check_size(op, name, s, limit)
  local w, h = declared_size(s)
  if w and w * h > limit then
    util.fail(op, '%s: the image declares %d x %d pixels (width x height), over the limit of %.0f ' ..
      '(opts.maxPixels; Note [Image size limit])', name, w, h, limit)
  end
end

-- Raises the C error as op's, naming the file (the codecs' messages start with it; the
-- allocator's do not).
local function c_error(op, name)
  local msg = ffi.string(C.tocha_last_error())
  if C.tocha_last_error_code() == 2 then  -- out of memory: as lib.raise
    lib.collect()
    C.tocha_cuda_empty_cache()
  end
  msg = msg:gsub('^%[image%] ', '')
  if name and msg:sub(1, #name) ~= name then msg = name .. ': ' .. msg end
  util.fail(op, '%s', msg)
end

local function to_chw(p, op, name, tp)
  if p == nil then c_error(op, name) end
  local chw = lib.wrap(p):permute(3, 1, 2):contiguous()
  if tp == 'byte' then return chw end
  return (tp == 'float' and chw:float() or chw:double()):div(255)
end

local READ_OPTS = { channels = true, type = true, maxPixels = true }
local DECODE_OPTS = { channels = true, type = true, maxPixels = true, name = true }

-- Note [What load returns]: the samples as stored, as torchvision 0.14's io.read_image: no
-- colour management and no EXIF orientation (a JPEG tagged "rotate 90" loads as stored, as in
-- torchvision 0.14; PIL's ImageOps.exif_transpose would turn it). A CMYK or YCCK JPEG is refused.

--- data.image.load(path[, opts]): a PNG or JPEG as a channels x height x width tensor: floats in
--- [0, 1] (opts.type = 'float', the default; 'double'; or 'byte' for the raw values). opts.channels:
--- 1, 3 or 4 converts (gray, RGB, RGBA; 2, gray + alpha, for PNG); by default the file's own
--- (palettes give RGB, or RGBA with a tRNS chunk). EXIF orientation is ignored (Note [What load
--- returns]); PNG samples come as stored, without gamma, alpha dropped rather than composited
--- (Note [PNG samples as stored], core/data/image_png.cpp); CMYK JPEGs are refused. A truncated or
--- corrupt file, or one declaring more than opts.maxPixels pixels (Note [Image size limit]), is an
--- error naming it (JPEG warnings of missing or garbled data count as errors).
--- Example: data.image.save('a.png', torch.rand(3, 8, 8)); local img = data.image.load('a.png', { channels = 1 })
function image.load(path, opts)
  if type(path) ~= 'string' then util.fail('image.load', 'expected a file name, got %s', type(path)) end
  opts = check_opts('image.load', opts, READ_OPTS)
  local channels, tp, limit = check_read_opts('image.load', opts)
  local f = io.open(path, 'rb')
  if f then  -- the header, to check the declared size before the decoder allocates
    local head = f:read(65536) or ''
    if #head == 65536 and head:sub(1, 2) == '\255\216' and not declared_size(head) then
      head = head .. (f:read('*a') or '')  -- a frame header after 64 KiB of APPn segments
    end
    f:close()
    check_size('image.load', path, head, limit)
  end  -- else the C reader reports why it cannot open it
  return to_chw(C.tocha_image_read(path, channels), 'image.load', path, tp)
end

--- data.image.decode(bytes[, opts]): like data.image.load for a string holding a PNG or JPEG;
--- opts.name names it in errors.
--- Example: data.image.save('a.jpg', torch.rand(3, 8, 8)); local img = data.image.decode(io.open('a.jpg', 'rb'):read('*a'))
function image.decode(bytes, opts)
  if type(bytes) ~= 'string' then util.fail('image.decode', 'expected a string, got %s', type(bytes)) end
  opts = check_opts('image.decode', opts, DECODE_OPTS)
  local channels, tp, limit = check_read_opts('image.decode', opts)
  local name = opts.name or '(string)'
  if type(name) ~= 'string' then util.fail('image.decode', 'opts.name must be a string, got %s', type(name)) end
  check_size('image.decode', name, bytes, limit)
  return to_chw(C.tocha_image_decode(bytes, #bytes, name, channels), 'image.decode', name, tp)
end

-- Note [Saving floats]: a floating image is taken as [0, 1] and clamped before rounding, as
-- torchvision.utils.save_image (mul(255).add(0.5).clamp(0, 255)); a NaN has no pixel value and is
-- refused. Only ByteTensors hold raw values: an Int or Long image is refused rather than read as
-- [0, 1] (200 was saved as 255) or as [0, 255] (ambiguous); convert it with :byte() or :div(255).

--- data.image.save(path, img[, opts]): writes a channels x height x width (or height x width)
--- image as PNG or JPEG, by the extension (.png, .jpg, .jpeg), atomically. Floating images are
--- taken as [0, 1] (clamped, rounded; Note [Saving floats]), ByteTensors as is; PNG holds 1 to 4
--- channels, JPEG 1 or 3. opts.quality: JPEG quality, an integer 1..100 (default 90).
--- Example: data.image.save('out.png', torch.rand(3, 32, 32))
function image.save(path, img, opts)
  local op = 'image.save'
  if type(path) ~= 'string' then util.fail(op, 'expected a file name, got %s', type(path)) end
  opts = check_opts(op, opts, { quality = true })
  if not torch.isTensor(img) or (img:dim() ~= 2 and img:dim() ~= 3) then
    util.fail(op, '%s: expected a channels x height x width or height x width tensor, got %s', path,
      torch.isTensor(img) and torch.type(img) .. ' of size ' .. table.concat(img:size():totable(), 'x') or torch.type(img))
  end
  local dt = img.p.dtype
  if dt ~= U8 and not FLOATING[dt] then
    util.fail(op, '%s: expected a ByteTensor (0..255) or a floating tensor ([0, 1]), got %s (Note [Saving floats])',
      path, torch.type(img))
  end
  local sizes = img:size():totable()
  local c = img:dim() == 3 and sizes[1] or 1
  local lower = path:lower()
  local jpeg = lower:sub(-4) == '.jpg' or lower:sub(-5) == '.jpeg'
  if not jpeg and lower:sub(-4) ~= '.png' then
    util.fail(op, '%s: unknown image extension (expected .png, .jpg or .jpeg)', path)
  end
  if c < 1 or c > 4 or (jpeg and c ~= 1 and c ~= 3) or img:nElement() == 0 then
    util.fail(op, '%s: cannot save a %s image of size %s (%s)', path, jpeg and 'JPEG' or 'PNG',
      table.concat(sizes, 'x'), jpeg and '1 or 3 channels' or '1 to 4 channels, none empty')
  end
  local quality = opts.quality or 90
  if type(quality) ~= 'number' or quality ~= math.floor(quality) or quality < 1 or quality > 100 then
    util.fail(op, '%s: opts.quality must be an integer in 1..100, got %s', path, tostring(opts.quality))
  end
  local hwc = img:dim() == 2 and img or img:permute(2, 3, 1)
  if dt == U8 then
    hwc = hwc:byte()  -- on the CPU
  else
    hwc = hwc:double()
    if hwc:ne(hwc):any() then util.fail(op, '%s: the image holds NaN (Note [Saving floats])', path) end
    hwc = hwc:clamp(0, 1):mul(255):add(0.5):floor():byte()
  end
  if C.tocha_image_write(path, hwc:contiguous().p, quality) ~= 0 then c_error(op, path) end
end

return image
