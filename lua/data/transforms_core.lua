-- Shared helpers of the torchvision-style transforms (data/transforms_tv.lua): image checks that
-- view any image as N x C x H x W, dtype handling (byte images compute in float and come back
-- rounded or truncated the way torchvision's tensor path does), sizes and argument parsing.
local torch = require 'torch'
local lib = require 'torch.lib'

local core = {}
core.fail = lib.fail

local FLOATING = { ['torch.FloatTensor'] = true, ['torch.DoubleTensor'] = true, ['torch.HalfTensor'] = true,
  ['torch.BFloat16Tensor'] = true, ['torch.CudaTensor'] = true, ['torch.CudaDoubleTensor'] = true,
  ['torch.CudaHalfTensor'] = true, ['torch.CudaBFloat16Tensor'] = true }

--- core.is_float(x): whether x holds floating-point values.
function core.is_float(x)
  if FLOATING[x:type()] then return true end
  local nn = package.loaded.nn
  return nn ~= nil and nn.utils ~= nil and nn.utils.isFloating ~= nil and nn.utils.isFloating(x) or false
end

--- core.is_byte(x): whether x is a uint8 image (0-255 values).
function core.is_byte(x) return x:type():find('Byte') ~= nil end

-- Note [Image layouts]: torchvision's tensor functions take [..., C, H, W]. Here a function
-- accepts H x W, C x H x W and (where torchvision allows a batch) N x C x H x W, works on a
-- 4-D view and hands back the input's own layout. Only uint8 and floating tensors are images:
-- byte images hold 0-255, floating ones [0, 1] (torchvision's _max_value).

--- core.image(op, img[, batch]): img viewed as N x C x H x W, and a function giving a result
--- of that shape back in img's layout. batch = false refuses 4-D input.
function core.image(op, img, batch)
  if not torch.isTensor(img) then core.fail(op, 'expected an image tensor (C x H x W), got %s', torch.type(img)) end
  local d = img:dim()
  if d < 2 or d > 4 or (d == 4 and batch == false) then
    core.fail(op, 'expected a %s tensor, got a %d-D tensor', batch == false and 'C x H x W or H x W'
      or 'C x H x W, H x W or N x C x H x W', d)
  end
  if not core.is_float(img) and not core.is_byte(img) then
    core.fail(op, 'expected a floating-point or byte image, got %s', img:type())
  end
  if d == 4 then return img, function(y) return y end end
  -- select, not view: results may be non-contiguous views (crop)
  if d == 3 then
    return img:view(1, img:size(1), img:size(2), img:size(3)), function(y) return y:select(1, 1) end
  end
  return img:view(1, 1, img:size(1), img:size(2)), function(y)
    if y:size(2) ~= 1 then return y:select(1, 1) end
    return y:select(1, 1):select(1, 1)
  end
end

--- core.max_value(x): the value of white: 255 for byte images, 1 for floating ones.
function core.max_value(x) return core.is_float(x) and 1 or 255 end

--- core.to_float(x): x itself when floating, else its values as a float tensor (same device).
function core.to_float(x)
  if core.is_float(x) then return x end
  return x:to('float32')  -- (x:cuda() would keep a CUDA byte image's dtype; :float() moves it to the CPU)
end

-- PyTorch's round is half-to-even; floor(x + 0.5) would lift every .5 that bilinear averages of
-- byte pixels produce.
local function round_even(y)
  local r = torch.floor(y + 0.5)
  local tie = torch.eq(r - y, 0.5):typeAs(r):cmul(torch.remainder(r, 2):eq(1):typeAs(r))
  return r - tie
end
core.round_even = round_even

--- core.cast_out(y, like): y (floating) in like's dtype: rounded half to even and clamped to
--- 0..255 for byte (torchvision's _cast_squeeze_out), as is for floating.
function core.cast_out(y, like)
  if core.is_float(like) then return y:type() == like:type() and y or y:typeAs(like) end
  return round_even(y):clamp(0, 255):typeAs(like)
end

--- core.cast_trunc(y, like): y in like's dtype, truncated toward zero for byte (PyTorch's .to()).
function core.cast_trunc(y, like)
  if core.is_float(like) then return y:type() == like:type() and y or y:typeAs(like) end
  return torch.clamp(y, 0, 255):typeAs(like)
end

--- core.on_device(idx, like): the index tensor idx on like's device (index() wants them together).
function core.on_device(idx, like)
  return like:isCuda() and idx:to(like:device()) or idx
end

--- core.size2(op, size, what): {h, w} from a number or a list of 1 or 2 positive integers.
function core.size2(op, size, what)
  if type(size) == 'number' then size = { size, size } end
  if type(size) == 'table' and #size == 1 then size = { size[1], size[1] } end
  if type(size) ~= 'table' or #size ~= 2 then
    core.fail(op, '%s must be a number or {height, width}, got %s', what or 'size', tostring(size))
  end
  for i = 1, 2 do
    local v = size[i]
    if type(v) ~= 'number' or v ~= math.floor(v) or v < 1 then
      core.fail(op, '%s must hold positive integers, got %s', what or 'size', tostring(v))
    end
  end
  return { size[1], size[2] }
end

--- core.range(op, v, what, center, lo): a number v as {center - v, center + v} (v >= 0), or a
--- {min, max} pair checked min <= max (and min >= lo when lo is given).
function core.range(op, v, what, center, lo)
  center = center or 0
  if type(v) == 'number' then
    if v < 0 then core.fail(op, '%s must be non-negative when a single number, got %s', what, tostring(v)) end
    v = { center - v, center + v }
  end
  if type(v) ~= 'table' or #v ~= 2 or type(v[1]) ~= 'number' or type(v[2]) ~= 'number' or v[1] > v[2] then
    core.fail(op, '%s must be a number or a {min, max} pair, got %s', what, tostring(v))
  end
  if lo and v[1] < lo then core.fail(op, '%s values must be >= %s, got %s', what, tostring(lo), tostring(v[1])) end
  return { v[1], v[2] }
end

--- core.number(op, v, what[, lo[, hi]]): v checked to be a number in [lo, hi].
function core.number(op, v, what, lo, hi)
  if type(v) ~= 'number' or v ~= v or (lo and v < lo) or (hi and v > hi) then
    core.fail(op, '%s must be a number%s, got %s', what,
      lo and hi and string.format(' in [%s, %s]', lo, hi) or lo and string.format(' >= %s', lo) or '', tostring(v))
  end
  return v
end

local INTERP = { nearest = 'nearest', bilinear = 'bilinear', bicubic = 'bicubic' }

--- core.interpolation(op, mode, default[, allowed]): a checked interpolation name.
function core.interpolation(op, mode, default, allowed)
  mode = mode == nil and default or (type(mode) == 'string' and mode:lower() or mode)
  if not INTERP[mode] or (allowed and not allowed[mode]) then
    core.fail(op, "interpolation must be %s, got %s", allowed and "'nearest' or 'bilinear'"
      or "'nearest', 'bilinear' or 'bicubic'", tostring(mode))
  end
  return mode
end

-- Note [Transform arguments]: the classes take torchvision's arguments positionally
-- (RandomCrop(32, 4)) or as a trailing options table with camelCase names (RandomCrop(32,
-- {padding = 4, padIfNeeded = true})), or both. A table is options when it has a string key, so
-- list arguments (fill = {0, 0, 0}, scale = {0.08, 1}) stay positional. Unknown names are
-- errors: a misspelt option would otherwise be silently ignored.

--- core.args(op, names, ...): the arguments as a table keyed by names (a list).
function core.args(op, names, ...)
  local n = select('#', ...)
  local out, last = {}, select(n > 0 and n or 1, ...)
  local has_opts = false
  if n > 0 and type(last) == 'table' and not torch.isTensor(last) and getmetatable(last) == nil then
    for k in pairs(last) do
      if type(k) == 'string' then has_opts = true break end
    end
  end
  local npos = has_opts and n - 1 or n
  if npos > #names then core.fail(op, 'expected at most %d arguments, got %d', #names, npos) end
  for i = 1, npos do out[names[i]] = (select(i, ...)) end
  if has_opts then
    local known = {}
    for _, k in ipairs(names) do known[k] = true end
    for k, v in pairs(last) do
      if not known[k] then
        core.fail(op, 'unknown option %s (options: %s)', tostring(k), table.concat(names, ', '))
      end
      out[k] = v
    end
  end
  return out
end

--- core.fill_list(op, fill, c): fill as one value per channel (nil stays nil).
function core.fill_list(op, fill, c)
  if fill == nil then return nil end
  if type(fill) == 'number' then
    local t = {}
    for i = 1, c do t[i] = fill end
    return t
  end
  if type(fill) ~= 'table' or (#fill ~= 1 and #fill ~= c) then
    core.fail(op, 'fill must be a number or %d per-channel numbers, got %s', c, tostring(fill))
  end
  local t = {}
  for i = 1, c do t[i] = core.number(op, fill[#fill == 1 and 1 or i], 'fill') end
  return t
end

--- core.round(x): Python's round (half to even) for a number.
function core.round(x)
  local r = math.floor(x + 0.5)
  if r - x == 0.5 and r % 2 == 1 then r = r - 1 end
  return r
end

--- core.trunc(x): x rounded toward zero (Python's int()).
function core.trunc(x) return x >= 0 and math.floor(x) or math.ceil(x) end

-- Random draws come from torch's default generator, like torchvision's torch.rand/randint, so
-- torch.manualSeed repeats them and a DataLoader's per-batch seeds (Note [Loader determinism],
-- data/loader.lua) make augmented batches independent of the number of workers.

--- core.uniform([a, b]): a number uniform in [a, b) ([0, 1) by default).
function core.uniform(a, b)
  local u = torch.uniform()
  if a == nil then return u end
  return a + (b - a) * u
end

--- core.randint(lo, hi): an integer uniform in lo..hi-1 (torch.randint's half-open range).
function core.randint(lo, hi)
  if hi - 1 <= lo then return lo end
  return torch.random(lo, hi - 1)
end

return core
