-- torchvision's conversion and tensor-only functions (data.transforms.functional): toTensor,
-- pilToTensor, convertImageDtype, normalize, erase, linearTransformation.
local torch = require 'torch'
local core = require 'data.transforms_core'

local F = {}
local fail = core.fail

-- Note [ToTensor layouts]: Tocha has no PIL images. data.image.load gives channels x height x
-- width, numpy-style arrays are height x width x channels; a 3-D tensor is taken as HWC when its
-- last dim is 1, 3 or 4 and its first is not (so CHW wins when both would fit), unless
-- opts.layout = 'HWC' or 'CHW' says. A 2-D tensor is one channel.
local function chw(op, pic, layout)
  if not torch.isTensor(pic) or (pic:dim() ~= 2 and pic:dim() ~= 3) then
    fail(op, 'expected an H x W x C, C x H x W or H x W tensor, got %s', torch.isTensor(pic)
      and pic:dim() .. '-D tensor' or torch.type(pic))
  end
  if pic:dim() == 2 then return pic:view(1, pic:size(1), pic:size(2)) end
  if layout ~= nil and layout ~= 'HWC' and layout ~= 'CHW' then
    fail(op, "layout must be 'HWC' or 'CHW', got %s", tostring(layout))
  end
  local small = { [1] = true, [3] = true, [4] = true }
  local hwc = layout == 'HWC' or (layout == nil and small[pic:size(3)] and not small[pic:size(1)])
  return hwc and pic:permute(3, 1, 2) or pic  -- a view: the callers copy (type conversion or clone)
end

--- data.transforms.functional.toTensor(pic[, {layout =}]): a C x H x W float image in [0, 1]
--- from a byte image (HWC or CHW, Note [ToTensor layouts]; divided by 255) or a floating one
--- (converted to the default tensor type, not rescaled).
--- Example: data.transforms.functional.toTensor(torch.ByteTensor(4, 5, 3):fill(255))
function F.toTensor(pic, opts)
  local x = chw('toTensor', pic, opts and opts.layout)
  local default = torch.getdefaulttensortype()
  if core.is_byte(x) then
    local y = x:type():find('Cuda') and x:cuda() or x:type(default)
    return y:div(255)
  end
  if not core.is_float(x) then fail('toTensor', 'expected a byte or floating tensor, got %s', x:type()) end
  if x:type():find('Cuda') then return x:clone() end
  return x:type() == default and x:clone() or x:type(default)
end

--- data.transforms.functional.pilToTensor(pic[, {layout =}]): the byte image as C x H x W bytes
--- (not rescaled).
--- Example: data.transforms.functional.pilToTensor(torch.ByteTensor(4, 5, 3):fill(7))
function F.pilToTensor(pic, opts)
  local x = chw('pilToTensor', pic, opts and opts.layout)
  if not core.is_byte(x) then fail('pilToTensor', 'expected a byte image, got %s', x:type()) end
  -- x is pic or a view of it (H x W, and HWC, whose contiguous() is a no-op for one channel)
  return x:clone()
end

local DTYPES = { float = 'torch.FloatTensor', double = 'torch.DoubleTensor', half = 'torch.HalfTensor',
  byte = 'torch.ByteTensor', uint8 = 'torch.ByteTensor', float32 = 'torch.FloatTensor', float64 = 'torch.DoubleTensor' }

--- data.transforms.functional.convertImageDtype(img[, dtype = 'float']): img in dtype ('float',
--- 'double', 'half', 'byte' or a tensor type name) with values rescaled between [0, 1] floats and
--- 0-255 bytes (float -> byte maps x to floor(x * 255.999), as torchvision).
--- Example: data.transforms.functional.convertImageDtype(torch.ByteTensor(3, 2, 2):fill(255), 'float')
function F.convertImageDtype(img, dtype)
  local x = core.image('convertImageDtype', img)
  local name = DTYPES[dtype or 'float'] or (type(dtype) == 'string' and dtype:match('^torch%.%a+Tensor$') and dtype)
  if not name or not (DTYPES.float == name or DTYPES.double == name or DTYPES.half == name or DTYPES.byte == name) then
    fail('convertImageDtype', "dtype must be 'float', 'double', 'half' or 'byte', got %s", tostring(dtype))
  end
  local to_byte = name == 'torch.ByteTensor'
  if to_byte == core.is_byte(x) then return to_byte and img:clone() or img:type(name) end
  if to_byte then return (img * (256 - 1e-3)):clamp(0, 255):type(name) end
  return img:type(name):div(255)
end

local function per_channel(op, v, c, what)
  if type(v) == 'number' then v = { v } end
  if torch.isTensor(v) then v = v:double():totable() end
  if type(v) ~= 'table' or (#v ~= 1 and #v ~= c) then
    fail(op, '%s must be a number or %d per-channel numbers, got %s', what, c, tostring(v))
  end
  local out = {}
  for i = 1, c do out[i] = core.number(op, v[#v == 1 and 1 or i], what) end
  return out
end

--- data.transforms.functional.normalize(img, mean, std[, inplace = false]): (img[c] - mean[c]) /
--- std[c] per channel of a floating C x H x W (or N x C x H x W) image.
--- Example: data.transforms.functional.normalize(torch.rand(3, 4, 4), {0.485, 0.456, 0.406}, {0.229, 0.224, 0.225})
function F.normalize(img, mean, std, inplace)
  local x = core.image('normalize', img)
  if not core.is_float(x) then
    fail('normalize', 'expected a floating-point image, got %s (use toTensor first)', x:type())
  end
  local c = x:size(2)
  local m, s = per_channel('normalize', mean, c, 'mean'), per_channel('normalize', std, c, 'std')
  for i = 1, c do
    if s[i] == 0 then fail('normalize', 'std of channel %d is 0 (division by zero)', i) end
  end
  local mt = torch.DoubleTensor(m):view(1, c, 1, 1):typeAs(x)
  local st = torch.DoubleTensor(s):view(1, c, 1, 1):typeAs(x)
  local out = inplace and x or x:clone()
  out:csub(mt:expandAs(out)):cdiv(st:expandAs(out))
  return inplace and img or out:viewAs(img)
end

--- data.transforms.functional.erase(img, top, left, height, width, value[, inplace = false]):
--- img with the height x width window at 0-based offsets (top, left) set to value (a number or a
--- tensor broadcastable to C x height x width).
--- Example: data.transforms.functional.erase(torch.rand(3, 8, 8), 2, 2, 3, 3, 0)
function F.erase(img, top, left, height, width, value, inplace)
  core.image('erase', img)
  local args = { top, left, height, width }
  for i = 1, 4 do  -- by index: ipairs would stop at a missing argument
    local v = args[i]
    if type(v) ~= 'number' or v ~= math.floor(v) then
      fail('erase', 'top, left, height and width must be integers, got %s', tostring(v))
    end
  end
  local H, W = img:size(img:dim() - 1), img:size(img:dim())
  if top < 0 or left < 0 or height < 0 or width < 0 or top + height > H or left + width > W then
    fail('erase', 'window %dx%d at (%d, %d) does not fit the %dx%d image', height, width, top, left, H, W)
  end
  local out = inplace and img or img:clone()
  if height == 0 or width == 0 then return out end
  local win = out:narrow(img:dim() - 1, top + 1, height):narrow(img:dim(), left + 1, width)
  if type(value) == 'number' then
    win:fill(value)
  elseif torch.isTensor(value) then
    local v = value
    while v:dim() > win:dim() and v:size(1) == 1 do v = v:select(1, 1) end  -- PyTorch's setitem drops leading 1s
    win:copy(v:typeAs(win):expandAs(win))
  else
    fail('erase', 'value must be a number or a tensor, got %s', torch.type(value))
  end
  return out
end

--- data.transforms.functional.linearTransformation(img, matrix, meanVector): (img flattened -
--- meanVector) * matrix, reshaped back (torchvision's LinearTransformation, e.g. ZCA whitening).
--- Example: data.transforms.functional.linearTransformation(torch.rand(1, 2, 2), torch.eye(4), torch.zeros(4))
function F.linearTransformation(img, matrix, mean)
  local x = core.image('linearTransformation', img)
  if not core.is_float(x) then fail('linearTransformation', 'expected a floating-point image, got %s', x:type()) end
  local d = x:size(2) * x:size(3) * x:size(4)
  if not torch.isTensor(matrix) or matrix:dim() ~= 2 or matrix:size(1) ~= d or matrix:size(2) ~= d then
    fail('linearTransformation', 'matrix must be %d x %d (C * H * W squared), got %s', d, d, torch.type(matrix))
  end
  if not torch.isTensor(mean) or mean:nElement() ~= d then
    fail('linearTransformation', 'meanVector must hold %d values', d)
  end
  local flat = x:reshape(x:size(1), d) - mean:typeAs(x):view(1, d)
  return torch.mm(flat, matrix:typeAs(x)):viewAs(img)
end

return F
