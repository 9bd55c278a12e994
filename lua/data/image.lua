-- Image files (PNG, JPEG through libpng and libjpeg-turbo): data.image.load / data.image.save,
-- in Torch7's layout (channels x height x width).
local ffi = require 'ffi'
local torch = require 'torch'
local lib = require 'torch.lib'
local data = require 'data.env'
local util = require 'data.util'
local C = lib.C

local image = {}
data.image = image

local function to_chw(hwc, tp, op)
  local chw = hwc:permute(3, 1, 2):contiguous()
  if tp == 'byte' then return chw end
  if tp ~= 'float' and tp ~= 'double' then util.fail(op, "type must be 'float', 'double' or 'byte', got %s", tostring(tp)) end
  return (tp == 'float' and chw:float() or chw:double()):div(255)
end

--- data.image.load(path[, opts]): a PNG or JPEG as a channels x height x width tensor: floats in
--- [0, 1] (opts.type = 'float', the default; 'double'; or 'byte' for the raw values). opts.channels:
--- 1, 3 or 4 converts (gray, RGB, RGBA); by default the file's own. A truncated or corrupt file
--- is an error naming it (JPEG decoding warnings count as errors).
function image.load(path, opts)
  opts = opts or {}
  if type(path) ~= 'string' then util.fail('image.load', 'expected a file name, got %s', type(path)) end
  return to_chw(lib.wrap(C.tocha_image_read(path, opts.channels or 0)), opts.type or 'float', 'image.load')
end

--- data.image.decode(bytes[, opts]): like data.image.load for a string holding a PNG or JPEG.
function image.decode(bytes, opts)
  opts = opts or {}
  if type(bytes) ~= 'string' then util.fail('image.decode', 'expected a string, got %s', type(bytes)) end
  return to_chw(lib.wrap(C.tocha_image_decode(bytes, #bytes, opts.name or '(string)', opts.channels or 0)),
    opts.type or 'float', 'image.decode')
end

--- data.image.save(path, img[, opts]): writes a channels x height x width (or height x width)
--- image as PNG or JPEG, by the extension, atomically. Floating images are taken as [0, 1]
--- (clamped, rounded), byte images as is. opts.quality: JPEG quality (default 90).
function image.save(path, img, opts)
  opts = opts or {}
  if not torch.isTensor(img) or (img:dim() ~= 2 and img:dim() ~= 3) then
    util.fail('image.save', 'expected a channels x height x width or height x width tensor, got %s', torch.type(img))
  end
  local hwc = img:dim() == 2 and img or img:permute(2, 3, 1)
  if hwc:type() ~= 'torch.ByteTensor' then
    hwc = hwc:double():clamp(0, 1):mul(255):add(0.5):floor():byte()
  end
  lib.check(C.tocha_image_write(path, hwc:contiguous().p, opts.quality or 90))
end

return image
