-- Helpers shared by the image package's files: errors naming the image function, argument checks
-- for 2-D (H x W) and 3-D (C x H x W) images, Torch7's float32 arithmetic and byte rounding, and
-- writing a result into a caller's dst tensor.
local ffi = require 'ffi'
local torch = require 'torch'
local lib = require 'torch.lib'

local U = {}

--- U.fail(fn, fmt, ...): raises "[image.fn] message" at the user's line.
--- Example: pcall(require('image.util').fail, 'scale', 'bad size %d', 0)
function U.fail(fn, fmt, ...)
  lib.fail('image.' .. fn, fmt, ...)
end

--- U.describe(v): a short description of a value for error messages ("torch.FloatTensor of size 3x4").
--- Example: require('image.util').describe(torch.rand(3, 4))
function U.describe(v)
  if torch.isTensor(v) then
    local s = v:dim() == 0 and 'scalar' or table.concat(v:size():totable(), 'x')
    return torch.type(v) .. ' of size ' .. s
  end
  if type(v) == 'string' then return "'" .. v .. "'" end
  return type(v) == 'number' and tostring(v) or type(v)
end

--- U.image(fn, x[, what]): checks x is a 2-D or 3-D tensor (what names it, 'src' by default).
--- Example: require('image.util').image('hflip', torch.rand(3, 4, 4))
function U.image(fn, x, what)
  if not torch.isTensor(x) or (x:dim() ~= 2 and x:dim() ~= 3) then
    U.fail(fn, '%s must be a H x W or C x H x W tensor, got %s', what or 'src', U.describe(x))
  end
  if x:nElement() == 0 then U.fail(fn, '%s is empty (%s)', what or 'src', U.describe(x)) end
  U.cpu(fn, x, what or 'src')
  return x
end

-- Note [CPU images]: Torch7's image functions existed for CPU tensors only (src.image.* methods);
-- so do these: a CUDA image is refused by name rather than failing deep inside an op.
--- U.cpu(fn, x, what): checks x is a CPU tensor.
--- Example: require('image.util').cpu('scale', torch.rand(2, 2), 'src')
function U.cpu(fn, x, what)
  if x:isCuda() then
    U.fail(fn, '%s is a %s: the image package works on CPU tensors, as Torch7\'s did (use :float() first; '
      .. 'Note [CPU images])', what, torch.type(x))
  end
end

--- U.rgb(fn, x[, what]): checks x is a 3 x H x W (at least 3 channels: the first 3 are used) tensor.
--- Example: require('image.util').rgb('rgb2hsv', torch.rand(3, 4, 4))
function U.rgb(fn, x, what)
  if not torch.isTensor(x) or x:dim() ~= 3 or x:size(1) < 3 then
    U.fail(fn, '%s must be a 3 x H x W tensor, got %s', what or 'input', U.describe(x))
  end
  U.cpu(fn, x, what or 'input')
  return x
end

--- U.number(fn, v, what): checks v is a finite number.
--- Example: require('image.util').number('rotate', 0.5, 'theta')
function U.number(fn, v, what)
  if type(v) ~= 'number' or v ~= v or v == math.huge or v == -math.huge then
    U.fail(fn, '%s must be a finite number, got %s', what, U.describe(v))
  end
  return v
end

--- U.trunc(x): x rounded toward zero, as C's (long) cast of Torch7's arguments.
--- Example: require('image.util').trunc(-2.5)
function U.trunc(x) return x >= 0 and math.floor(x) or math.ceil(x) end

local f32box = ffi.new('float[1]')
--- U.f32(x): x rounded to single precision (Torch7's C kernels computed coordinates in float).
--- Example: require('image.util').f32(0.1)
function U.f32(x)
  f32box[0] = x
  return f32box[0]
end

--- U.isByte(x) / U.isFloating(x): the kinds of image Torch7's kernels told apart.
--- Example: require('image.util').isByte(torch.ByteTensor(2, 2))
function U.isByte(x) return torch.type(x) == 'torch.ByteTensor' or torch.type(x) == 'torch.CudaByteTensor' end
function U.isFloating(x) return x:isFloatingPoint() end

--- U.work(x): x as a floating tensor to compute with (bytes and integers as DoubleTensors).
--- Example: require('image.util').work(torch.ByteTensor(2, 2):fill(3))
function U.work(x)
  if x:isFloatingPoint() then return x end
  return x:double()
end

-- Note [Byte results]: Torch7's kernels computed byte images in float and stored each result as
-- floor(v + 0.5) clamped to 0..255 (FromIntermediate in generic/image.c); finish() does the same,
-- and converts other integer types by truncation as a C cast would.
--- U.finish(y, like): the floating result y in like's type (bytes rounded and clamped).
--- Example: require('image.util').finish(torch.Tensor({1.5, 300}), torch.ByteTensor(2))
function U.finish(y, like)
  if torch.type(y) == torch.type(like) then return y end
  if U.isByte(like) then return y:add(0.5):floor():clamp(0, 255):typeAs(like) end
  if not like:isFloatingPoint() then return y:trunc():typeAs(like) end
  return y:typeAs(like)
end

--- U.into(fn, dst, y): y copied into dst (resized to y's shape) when dst is given, else y.
--- Example: require('image.util').into('hflip', torch.Tensor(), torch.rand(2, 2))
function U.into(fn, dst, y)
  if dst == nil then return y end
  if not torch.isTensor(dst) then U.fail(fn, 'dst must be a tensor, got %s', U.describe(dst)) end
  if dst:nElement() ~= y:nElement() or dst:dim() ~= y:dim() then dst:resize(y:size()) end
  for d = 1, y:dim() do
    if dst:size(d) ~= y:size(d) then dst:resize(y:size()) break end
  end
  dst:copy(y)
  return dst
end

-- Note [Image sizes]: Torch7 handed any size to the allocator; a typo (image.scale(x, 1e6, 1e6),
-- image.gaussian{width = 1e5, height = 1e5}) then asked for terabytes, or built weights in Lua
-- loops for minutes, and failed with an "[alloc]" message naming no image function. Results are
-- refused first when a side exceeds MAX_SIDE pixels or width x height exceeds data.image.maxPixels
-- (PIL's decompression-bomb limit, the decoders' own; raise it there for larger images).
U.MAX_SIDE = 2 ^ 20

--- U.checkSize(fn, w, h[, what]): refuses a w x h result past the limits of Note [Image sizes].
--- Example: require('image.util').checkSize('scale', 640, 480)
function U.checkSize(fn, w, h, what)
  local limit = require('data.image').maxPixels
  if w > U.MAX_SIDE or h > U.MAX_SIDE or w * h > limit then
    U.fail(fn, '%s would be %.0f x %.0f pixels (width x height), over the limit of %.0f pixels (at most %d a '
      .. 'side; data.image.maxPixels; Note [Image sizes])', what or 'the result', w, h, limit, U.MAX_SIDE)
  end
end

--- U.default(): an empty tensor of the default type (Torch7's torch.Tensor()).
--- Example: require('image.util').default()
function U.default()
  return torch.Tensor()
end

return U
