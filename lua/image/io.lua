-- Loading and saving images in Torch7's image-package forms (image.load(path, depth, type),
-- image.save, decompressJPG/PNG from ByteTensors, compressJPG/PNG to them, getJPGsize...), over
-- data.image's libpng/libjpeg codecs (lua/data/image.lua), plus Torch7's depth conversions.
local ffi = require 'ffi'
local torch = require 'torch'
local dimage = require 'data.image'
local U = require 'image.util'

return function(image)

local MAGIC_JPG = string.char(0xff, 0xd8, 0xff)
local MAGIC_PNG = string.char(0x89, 0x50, 0x4e, 0x47)

local function kind_of(head, filename)
  if head:sub(1, 3) == MAGIC_JPG then return 'jpg' end
  if head:sub(1, 4) == MAGIC_PNG then return 'png' end
  if head:match('^P[2356]') then return 'ppm' end
  local ext = filename and filename:match('%.(%a+)$')
  ext = ext and ext:lower()
  if ext == 'jpeg' then ext = 'jpg' end
  return ext
end

local function read_head(fn, filename, n)
  if type(filename) ~= 'string' then U.fail(fn, 'expected a file name, got %s', U.describe(filename)) end
  local f, err = io.open(filename, 'rb')
  if not f then U.fail(fn, 'cannot open %s: %s', filename, tostring(err)) end
  local head = f:read(n) or ''
  f:close()
  return head
end

-- Note [Load types]: Torch7 returned floats and doubles in [0, 1] and bytes as stored (0..255);
-- without a type, the default tensor type (torch.Tensor(), FloatTensor in Tocha).
local TYPES = { float = 'torch.FloatTensor', double = 'torch.DoubleTensor', byte = 'torch.ByteTensor' }

local function check_type(fn, tensortype)
  if tensortype == nil then return nil end
  if not TYPES[tensortype] then
    U.fail(fn, "tensortype must be 'float', 'double' or 'byte', got %s", U.describe(tensortype))
  end
  return tensortype
end

local function check_depth(fn, depth)
  if depth ~= nil and depth ~= 1 and depth ~= 3 and depth ~= 4 then
    U.fail(fn, 'depth must be 1, 3 or 4 (or nil: as stored), got %s', U.describe(depth))
  end
  return depth
end

-- Note [Load depth]: Torch7's todepth. depth 1 turns an RGB(A) image into its luma (image.rgb2y:
-- 0.299 R + 0.587 G + 0.114 B) as a 2-D H x W tensor, while a gray file stays 1 x H x W (gray +
-- alpha keeps the gray plane) -- Torch7's shapes, kept as they were. depth 3 replicates gray and
-- drops alpha (Torch7 refused gray + alpha; here its gray is replicated). depth 4 (not in Torch7)
-- adds an opaque alpha plane where there is none.
local function todepth(img, depth)
  if depth == 1 then
    local c = img:size(1)
    if c >= 3 then return image.rgb2y(img:narrow(1, 1, 3))[1] end
    if c == 2 then return img:narrow(1, 1, 1) end
    return img
  end
  return img
end

local function decode(fn, bytes, name, depth, tensortype)
  check_depth(fn, depth)
  check_type(fn, tensortype)
  local tp = tensortype
  local target
  if not tp then
    target = torch.getdefaulttensortype()
    tp = target == 'torch.DoubleTensor' and 'double' or 'float'
  end
  local opts = { type = tp, channels = (depth == 3 or depth == 4) and depth or nil }
  local ok, img
  if name then
    ok, img = pcall(dimage.load, name, opts)
  else
    opts.name = '(ByteTensor)'
    ok, img = pcall(dimage.decode, bytes, opts)
  end
  if not ok then U.fail(fn, '%s', tostring(img):gsub('^.-%[image%.%a+%] ', '')) end
  img = todepth(img, depth)
  if target and torch.type(img) ~= target then img = img:type(target) end
  return img
end

local function loader(fn, want)
  return function(filename, depth, tensortype)
    local head = read_head(fn, filename, 8)
    local kind = kind_of(head, filename)
    if want and kind ~= want and (kind == 'jpg' or kind == 'png') then
      U.fail(fn, '%s is a %s file, not %s', filename, kind:upper(), want:upper())
    end
    if kind == 'ppm' or kind == 'pgm' then
      U.fail(fn, '%s: PPM/PGM files are not supported in Tocha (PNG and JPEG are); convert it to PNG', filename)
    end
    if kind ~= 'jpg' and kind ~= 'png' then
      U.fail(fn, 'unknown image type: %s (%s; PNG and JPEG are supported)', tostring(kind), filename)
    end
    return decode(fn, nil, filename, depth, tensortype)
  end
end

--- image.load(filename[, depth[, tensortype]]): a PNG or JPEG file (found by its first bytes, else
--- its extension) as a C x H x W tensor: tensortype 'float' or 'double' in [0, 1], 'byte' 0..255,
--- by default the default tensor type in [0, 1]. depth 1 gives luma (Note [Load depth]: H x W from
--- colour files), 3 RGB, 4 RGBA; nil keeps the file's channels. Errors name the file.
--- Example: local image = require 'image'; image.save('a.png', torch.rand(3, 4, 4)); image.load('a.png', 3, 'byte')
image.load = loader('load')

--- image.loadJPG(filename[, depth[, tensortype]]): image.load for a JPEG file.
--- Example: local image = require 'image'; image.save('a.jpg', torch.rand(3, 8, 8)); image.loadJPG('a.jpg')
image.loadJPG = loader('loadJPG', 'jpg')

--- image.loadPNG(filename[, depth[, tensortype]]): image.load for a PNG file.
--- Example: local image = require 'image'; image.save('a.png', torch.rand(1, 4, 4)); image.loadPNG('a.png', 1)
image.loadPNG = loader('loadPNG', 'png')

-- A ByteTensor's bytes as a Lua string.
local function bytes_of(fn, tensor)
  if torch.type(tensor) ~= 'torch.ByteTensor' then
    U.fail(fn, 'expected a ByteTensor holding the compressed image, got %s', U.describe(tensor))
  end
  if tensor:nElement() == 0 then U.fail(fn, 'the ByteTensor is empty') end
  local c = tensor:contiguous()
  return ffi.string(c:data(), c:nElement())
end

local function decompressor(fn, want)
  return function(tensor, depth, tensortype)
    local s = bytes_of(fn, tensor)
    local kind = kind_of(s:sub(1, 4))
    if kind ~= 'jpg' and kind ~= 'png' then U.fail(fn, 'input must be either jpg or png format') end
    if want and kind ~= want then U.fail(fn, 'the bytes hold a %s image, not %s', kind:upper(), want:upper()) end
    return decode(fn, s, nil, depth, tensortype)
  end
end

--- image.decompressJPG(tensor[, depth[, tensortype]]): decodes the JPEG bytes of a 1-D ByteTensor
--- (a file read into memory) as image.load does a file.
--- Example: local image = require 'image'; image.decompressJPG(image.compressJPG(torch.rand(3, 8, 8)))
image.decompressJPG = decompressor('decompressJPG', 'jpg')

--- image.decompressPNG(tensor[, depth[, tensortype]]): decodes the PNG bytes of a ByteTensor.
--- Example: local image = require 'image'; image.decompressPNG(image.compressPNG(torch.rand(3, 4, 4)), 3, 'byte')
image.decompressPNG = decompressor('decompressPNG', 'png')

--- image.decompress(tensor[, depth[, tensortype]]): decodes JPEG or PNG bytes, by their magic number.
--- Example: local image = require 'image'; image.decompress(image.compressPNG(torch.rand(3, 4, 4)))
image.decompress = decompressor('decompress')

local tmp_count = 0
local function tmp_path(ext)
  tmp_count = tmp_count + 1
  local base = os.tmpname()
  os.remove(base)
  return base .. '_image' .. tmp_count .. ext
end

-- Note [Save quality]: Torch7 wrote JPEG files at quality 75 (image.save) and compressed at 75 by
-- default; data.image.save's own default is 90. Floating images are clamped to [0, 1] and scaled
-- to 0..255 (rounded, Note [Saving floats] in lua/data/image.lua); ByteTensors are saved as they are.
local function save_as(fn, filename, tensor, kind, quality)
  U.image(fn, tensor, 'tensor')
  local ok, err = pcall(dimage.save, filename, tensor, kind == 'jpg' and { quality = quality or 75 } or nil)
  if not ok then U.fail(fn, '%s', tostring(err):gsub('^.-%[image%.%a+%] ', '')) end
end

local function compressor(fn, ext)
  return function(tensor, quality)
    if quality ~= nil and (type(quality) ~= 'number' or quality < 1 or quality > 100 or quality % 1 ~= 0) then
      U.fail(fn, 'quality must be an integer in 1..100, got %s', U.describe(quality))
    end
    local path = tmp_path(ext)
    local ok, err = pcall(save_as, fn, path, tensor, ext == '.jpg' and 'jpg' or 'png', quality)
    if not ok then
      os.remove(path)
      -- the temporary file's name means nothing to the caller
      U.fail(fn, '%s', (tostring(err):gsub('^.-%[image%.%a+%] ', ''):gsub(path:gsub('%p', '%%%0') .. ': ', '')))
    end
    local f = assert(io.open(path, 'rb'))
    local s = f:read('*a')
    f:close()
    os.remove(path)
    return torch.ByteTensor(torch.ByteStorage():string(s))
  end
end

--- image.compressJPG(tensor[, quality = 75]): the JPEG bytes of an image as a 1-D ByteTensor.
--- Example: local image = require 'image'; image.compressJPG(torch.rand(3, 8, 8), 90):nElement()
image.compressJPG = compressor('compressJPG', '.jpg')

--- image.compressPNG(tensor): the PNG bytes of an image as a 1-D ByteTensor.
--- Example: local image = require 'image'; image.compressPNG(torch.rand(1, 4, 4)):nElement()
image.compressPNG = compressor('compressPNG', '.png')

local SAVE_KINDS = { jpg = 'jpg', jpeg = 'jpg', png = 'png' }

--- image.save(filename, tensor): writes a C x H x W (or H x W) image as PNG (1 to 4 channels) or
--- JPEG (1 or 3 channels, quality 75 as Torch7), by the extension. Floating images are taken as
--- [0, 1] (clamped), ByteTensors as 0..255 (Note [Save quality]).
--- Example: local image = require 'image'; image.save('out.png', torch.rand(3, 16, 16))
function image.save(filename, tensor)
  if type(filename) ~= 'string' then U.fail('save', 'expected a file name, got %s', U.describe(filename)) end
  local ext = filename:match('%.(%a+)$')
  local kind = ext and SAVE_KINDS[ext:lower()]
  if not kind then
    U.fail('save', 'unknown image type: %s (%s; .png, .jpg and .jpeg are supported)', tostring(ext), filename)
  end
  save_as('save', filename, tensor, kind)
end

--- image.savePNG(filename, tensor) / image.saveJPG(filename, tensor): image.save in that format.
--- Example: local image = require 'image'; image.savePNG('out.png', torch.rand(3, 4, 4))
function image.savePNG(filename, tensor)
  if type(filename) ~= 'string' then U.fail('savePNG', 'expected a file name, got %s', U.describe(filename)) end
  save_as('savePNG', filename, tensor, 'png')
end

--- image.saveJPG(filename, tensor): writes a JPEG at quality 75, whatever the extension says.
--- Example: local image = require 'image'; image.saveJPG('out.jpg', torch.rand(3, 8, 8))
function image.saveJPG(filename, tensor)
  if type(filename) ~= 'string' then U.fail('saveJPG', 'expected a file name, got %s', U.describe(filename)) end
  local path = filename
  local lower = filename:lower()
  if lower:sub(-4) ~= '.jpg' and lower:sub(-5) ~= '.jpeg' then
    -- beside the file, so that the rename stays on its file system (/tmp may be another one)
    tmp_count = tmp_count + 1
    path = filename .. '.' .. tmp_count .. '.tocha-tmp.jpg'
  end
  save_as('saveJPG', path, tensor, 'jpg')
  if path ~= filename then
    local ok, err = os.rename(path, filename)
    if not ok then os.remove(path) U.fail('saveJPG', 'cannot write %s: %s', filename, tostring(err)) end
  end
end

image.supported_filetypes = {}
for _, e in ipairs({ 'jpg', 'JPG', 'jpeg', 'JPEG', 'png', 'PNG' }) do
  local kind = SAVE_KINDS[e:lower()]
  image.supported_filetypes[e] = kind == 'jpg' and { loader = image.loadJPG, saver = image.saveJPG }
    or { loader = image.loadPNG, saver = image.savePNG }
end

--- image.is_supported(suffix): whether an extension ('jpg', 'PNG'...) can be loaded and saved.
--- Example: local image = require 'image'; image.is_supported('png')
function image.is_supported(suffix) return image.supported_filetypes[suffix] ~= nil end

local function u16(s, i) return s:byte(i) * 256 + s:byte(i + 1) end
local function u32(s, i) return ((s:byte(i) * 256 + s:byte(i + 1)) * 256 + s:byte(i + 2)) * 256 + s:byte(i + 3) end

local PNG_CHANNELS = { [0] = 1, [2] = 3, [3] = 3, [4] = 2, [6] = 4 }

-- channels, height, width from a PNG's chunks before its first IDAT (a palette with a tRNS chunk
-- decodes as RGBA, as data.image.load does).
local function png_size(fn, s, filename)
  if #s < 26 or s:sub(1, 4) ~= MAGIC_PNG or s:sub(13, 16) ~= 'IHDR' then
    U.fail(fn, '%s: not a PNG file (or a truncated one)', filename)
  end
  local w, h, ctype = u32(s, 17), u32(s, 21), s:byte(26)
  local c = PNG_CHANNELS[ctype]
  if not c then U.fail(fn, '%s: unknown PNG colour type %d', filename, ctype) end
  if ctype == 3 then
    local i = 9
    while i + 8 <= #s do
      local len, tag = u32(s, i), s:sub(i + 4, i + 7)
      if tag == 'tRNS' then c = 4 break end
      if tag == 'IDAT' then break end
      i = i + 12 + len
    end
  end
  return c, h, w
end

-- channels, height, width from a JPEG's frame header.
local function jpg_size(fn, s, filename)
  if #s < 4 or s:sub(1, 3) ~= MAGIC_JPG then U.fail(fn, '%s: not a JPEG file', filename) end
  local i = 3
  while i + 3 <= #s do
    if s:byte(i) ~= 0xFF then break end
    local m = s:byte(i + 1)
    if m == 0xFF then
      i = i + 1
    elseif m == 0x01 or (m >= 0xD0 and m <= 0xD8) then
      i = i + 2
    elseif m == 0xDA or m == 0xD9 then
      break
    else
      if m >= 0xC0 and m <= 0xCF and m ~= 0xC4 and m ~= 0xC8 and m ~= 0xCC then
        if i + 9 > #s then break end
        return s:byte(i + 9), u16(s, i + 5), u16(s, i + 7)
      end
      i = i + 2 + u16(s, i + 2)
    end
  end
  U.fail(fn, '%s: no JPEG frame header found (corrupt or truncated file)', filename)
end

local function whole_head(fn, filename)
  local f, err = io.open(filename, 'rb')
  if not f then U.fail(fn, 'cannot open %s: %s', tostring(filename), tostring(err)) end
  local s = f:read(65536) or ''
  if #s == 65536 then s = s .. (f:read('*a') or '') end  -- frame header after large APPn segments
  f:close()
  return s
end

--- image.getJPGsize(filename): channels, height, width of a JPEG file, from its header (Torch7's
--- three numbers). image.getJPGSize is the same function.
--- Example: local image = require 'image'; image.save('a.jpg', torch.rand(3, 8, 6)); image.getJPGsize('a.jpg')
function image.getJPGsize(filename)
  if type(filename) ~= 'string' then U.fail('getJPGsize', 'expected a file name, got %s', U.describe(filename)) end
  return jpg_size('getJPGsize', whole_head('getJPGsize', filename), filename)
end
image.getJPGSize = image.getJPGsize

--- image.getPNGsize(filename): channels, height, width of a PNG file, from its header (as
--- image.load would return it). image.getPNGSize is the same function.
--- Example: local image = require 'image'; image.save('a.png', torch.rand(4, 8, 6)); image.getPNGsize('a.png')
function image.getPNGsize(filename)
  if type(filename) ~= 'string' then U.fail('getPNGsize', 'expected a file name, got %s', U.describe(filename)) end
  return png_size('getPNGsize', whole_head('getPNGsize', filename), filename)
end
image.getPNGSize = image.getPNGsize

--- image.getSize(filename): channels, height, width of a PNG or JPEG file (by its first bytes).
--- Example: local image = require 'image'; image.save('a.png', torch.rand(1, 5, 7)); image.getSize('a.png')
function image.getSize(filename)
  local head = read_head('getSize', filename, 8)
  local kind = kind_of(head, filename)
  if kind == 'jpg' then return jpg_size('getSize', whole_head('getSize', filename), filename) end
  if kind == 'png' then return png_size('getSize', whole_head('getSize', filename), filename) end
  U.fail('getSize', 'unknown image type: %s (%s; PNG and JPEG are supported)', tostring(kind), filename)
end

end
