-- Image transforms for data augmentation (data.transforms): each constructor returns a function
-- img -> new image for channels x height x width (or height x width) tensors, to use with
-- ds:map(t, 'input') or data.ImageFolder{transform = t}. Random ones draw from torch's default
-- generator, which a DataLoader seeds per batch (Note [Loader determinism], data/loader.lua), so
-- augmented batches repeat for a seed whatever the number of workers.
local torch = require 'torch'
local data = require 'data.env'
local util = require 'data.util'
local core = require 'data.transforms_core'

local T = {}
data.transforms = T

local function check_image(op, img)
  if not torch.isTensor(img) or (img:dim() ~= 2 and img:dim() ~= 3) then
    util.fail(op, 'expected a channels x height x width or height x width tensor, got %s', torch.type(img))
  end
  return img:dim() == 3 and img or img:view(1, img:size(1), img:size(2)), img:dim() == 2
end

local function per_channel(op, v, c)
  if type(v) == 'number' then
    local t = {}
    for i = 1, c do t[i] = v end
    return t
  end
  if type(v) ~= 'table' or #v ~= c then util.fail(op, 'expected a number or %d per-channel values', c) end
  return v
end

--- data.transforms.normalize(mean, std): (img[c] - mean[c]) / std[c] for each channel c (numbers
--- apply to every channel).
function T.normalize(mean, std)
  return function(img)
    local x, flat = check_image('normalize', img)
    local c = x:size(1)
    local m, s = per_channel('normalize', mean, c), per_channel('normalize', std, c)
    local out = x:clone()
    for i = 1, c do
      if s[i] == 0 then util.fail('normalize', 'std of channel %d is 0', i) end
      out[i]:add(-m[i]):div(s[i])
    end
    return flat and out[1] or out
  end
end

local function size_pair(op, size)
  if type(size) == 'number' then return size, size end
  if type(size) == 'table' and type(size[1]) == 'number' and type(size[2]) == 'number' then return size[1], size[2] end
  util.fail(op, 'size must be a number or {height, width}, got %s', tostring(size))
end

--- data.transforms.randomCrop(size[, opts]): a random size x size (or {height, width}) window,
--- after padding each border with opts.padding pixels of opts.fill (default 0).
function T.randomCrop(size, opts)
  opts = opts or {}
  local h, w = size_pair('randomCrop', size)
  local pad, fill = opts.padding or 0, opts.fill or 0
  return function(img)
    local x, flat = check_image('randomCrop', img)
    local c, H, W = x:size(1), x:size(2) + 2 * pad, x:size(3) + 2 * pad
    if h > H or w > W then util.fail('randomCrop', 'crop %dx%d is larger than the padded image %dx%d', h, w, H, W) end
    local padded = x
    if pad > 0 then
      padded = x.new(c, H, W):fill(fill)
      padded:narrow(2, pad + 1, x:size(2)):narrow(3, pad + 1, x:size(3)):copy(x)
    end
    local top, left = torch.random(0, H - h), torch.random(0, W - w)
    local out = padded:narrow(2, top + 1, h):narrow(3, left + 1, w):clone()
    return flat and out[1] or out
  end
end

--- data.transforms.hflip(img): the image mirrored left to right.
function T.hflip(img)
  local x, flat = check_image('hflip', img)
  local w = x:size(3)
  local out = x:index(3, core.on_device(torch.range(w, 1, -1):long(), x))
  return flat and out[1] or out
end

--- data.transforms.randomHorizontalFlip([p]): mirrors the image with probability p (0.5).
function T.randomHorizontalFlip(p)
  p = p or 0.5
  return function(img)
    if torch.uniform() < p then return T.hflip(img) end
    return img:clone()
  end
end

--- data.transforms.randomAffine{translate = {fx, fy}[, fill = 0]}: shifts the image by a random
--- whole number of pixels, up to fx * width horizontally and fy * height vertically in either
--- direction; uncovered pixels get fill.
function T.randomAffine(opts)
  opts = opts or {}
  local tr = opts.translate or { 0, 0 }
  if type(tr) ~= 'table' or type(tr[1]) ~= 'number' or type(tr[2]) ~= 'number' or tr[1] < 0 or tr[1] > 1
      or tr[2] < 0 or tr[2] > 1 then
    util.fail('randomAffine', 'translate must be {fx, fy} with fractions in [0, 1]')
  end
  local fill = opts.fill or 0
  return function(img)
    local x, flat = check_image('randomAffine', img)
    local H, W = x:size(2), x:size(3)
    local mx, my = math.floor(tr[1] * W), math.floor(tr[2] * H)
    local dx, dy = torch.random(-mx, mx), torch.random(-my, my)
    local out = x.new(x:size()):fill(fill)
    local w, h = W - math.abs(dx), H - math.abs(dy)
    if w > 0 and h > 0 then
      local src = x:narrow(2, math.max(0, -dy) + 1, h):narrow(3, math.max(0, -dx) + 1, w)
      out:narrow(2, math.max(0, dy) + 1, h):narrow(3, math.max(0, dx) + 1, w):copy(src)
    end
    return flat and out[1] or out
  end
end

--- data.transforms.compose({t1, t2, ...}): applies t1, then t2...
function T.compose(list)
  if type(list) ~= 'table' then util.fail('compose', 'expected a list of transforms') end
  for i, t in ipairs(list) do
    local mt = type(t) == 'table' and getmetatable(t)
    if type(t) ~= 'function' and not (mt and mt.__call) then  -- a function or a callable (T.Resize(...))
      util.fail('compose', 'transform %d is a %s, not a function or a callable transform', i, type(t))
    end
  end
  return function(img)
    for _, t in ipairs(list) do img = t(img) end
    return img
  end
end

return T
