-- torchvision's automatic augmentation policies: data.transforms.AutoAugment (the learned
-- ImageNet, CIFAR-10 and SVHN policies), RandAugment and TrivialAugmentWide.
local torch = require 'torch'
local data = require 'data.env'
local core = require 'data.transforms_core'

local T = data.transforms
local Fn, define, fail = T.functional, T._define, core.fail
local uniform, randint = core.uniform, core.randint

-- The k-th (0-based) of n numbers evenly spaced from a to b (torch.linspace).
local function lin(a, b, n, k) return n == 1 and a or a + (b - a) * k / (n - 1) end

-- Magnitude of op at bin k of n for image width w and height h; nil for ops without one.
-- wide: TrivialAugmentWide's ranges. Solarize is a fraction of the image range (Note [Float
-- posterize and equalize], data/transforms_color.lua).
local function magnitude(op, k, n, w, h, wide)
  if op == 'ShearX' or op == 'ShearY' then return lin(0, wide and 0.99 or 0.3, n, k) end
  if op == 'TranslateX' then return lin(0, wide and 32 or 150 / 331 * w, n, k) end
  if op == 'TranslateY' then return lin(0, wide and 32 or 150 / 331 * h, n, k) end
  if op == 'Rotate' then return lin(0, wide and 135 or 30, n, k) end
  if op == 'Brightness' or op == 'Color' or op == 'Contrast' or op == 'Sharpness' then
    return lin(0, wide and 0.99 or 0.9, n, k)
  end
  if op == 'Posterize' then return 8 - core.round(k / ((n - 1) / (wide and 6 or 4))) end
  if op == 'Solarize' then return lin(1, 0, n, k) end
  return nil
end

local SIGNED = { ShearX = true, ShearY = true, TranslateX = true, TranslateY = true, Rotate = true,
  Brightness = true, Color = true, Contrast = true, Sharpness = true }

-- torchvision's _apply_op.
local function apply_op(img, op, mag, interpolation, fill)
  local o = { interpolation = interpolation, fill = fill }
  if op == 'ShearX' or op == 'ShearY' then
    local s = math.deg(math.atan(mag))
    o.center = { 0, 0 }
    return Fn.affine(img, 0, { 0, 0 }, 1, op == 'ShearX' and { s, 0 } or { 0, s }, o)
  elseif op == 'TranslateX' then return Fn.affine(img, 0, { core.trunc(mag), 0 }, 1, { 0, 0 }, o)
  elseif op == 'TranslateY' then return Fn.affine(img, 0, { 0, core.trunc(mag) }, 1, { 0, 0 }, o)
  elseif op == 'Rotate' then return Fn.rotate(img, mag, o)
  elseif op == 'Brightness' then return Fn.adjustBrightness(img, 1 + mag)
  elseif op == 'Color' then return Fn.adjustSaturation(img, 1 + mag)
  elseif op == 'Contrast' then return Fn.adjustContrast(img, 1 + mag)
  elseif op == 'Sharpness' then return Fn.adjustSharpness(img, 1 + mag)
  elseif op == 'Posterize' then return Fn.posterize(img, core.trunc(mag))
  elseif op == 'Solarize' then return Fn.solarize(img, mag * core.max_value(img))
  elseif op == 'AutoContrast' then return Fn.autocontrast(img)
  elseif op == 'Equalize' then return Fn.equalize(img)
  elseif op == 'Invert' then return Fn.invert(img)
  end
  return img  -- Identity
end

-- Counts and bin indices (torchvision loops over and indexes with them): integers in [lo, hi].
local function integer(op, v, what, lo, hi)
  core.number(op, v, what, lo, hi)
  if v ~= math.floor(v) then fail(op, '%s must be an integer, got %s', what, tostring(v)) end
  return v
end

local function setup(self, op, a)
  self.interpolation = core.interpolation(op, a.interpolation, 'nearest', { nearest = true, bilinear = true })
  if a.fill ~= nil and type(a.fill) ~= 'number' and type(a.fill) ~= 'table' then
    fail(op, 'fill must be a number or a list, got %s', type(a.fill))
  end
  self.fill = a.fill
end

local function prepare(op, img)
  core.image(op, img)
  local d = img:dim()
  return img:size(d), img:size(d - 1), d >= 3 and img:size(d - 2) or 1
end

-- Each policy: 25 pairs of (op, probability, magnitude bin or nil) sub-policies, from the
-- AutoAugment paper as torchvision lists them, written "op p bin;op p bin" and parsed on use.
local POLICY_TEXT = {
  imagenet = 'Posterize .4 8;Rotate .6 9|Solarize .6 5;AutoContrast .6|Equalize .8;Equalize .6|Posterize .6 7;'
    .. 'Posterize .6 6|Equalize .4;Solarize .2 4|Equalize .4;Rotate .8 8|Solarize .6 3;Equalize .6|Posterize .8 5;'
    .. 'Equalize 1|Rotate .2 3;Solarize .6 8|Equalize .6;Posterize .4 6|Rotate .8 8;Color .4 0|Rotate .4 9;'
    .. 'Equalize .6|Equalize 0;Equalize .8|Invert .6;Equalize 1|Color .6 4;Contrast 1 8|Rotate .8 8;Color 1 2|'
    .. 'Color .8 8;Solarize .8 7|Sharpness .4 7;Invert .6|ShearX .6 5;Equalize 1|Color .4 0;Equalize .6|'
    .. 'Equalize .4;Solarize .2 4|Solarize .6 5;AutoContrast .6|Invert .6;Equalize 1|Color .6 4;Contrast 1 8|'
    .. 'Equalize .8;Equalize .6',
  cifar10 = 'Invert .1;Contrast .2 6|Rotate .7 2;TranslateX .3 9|Sharpness .8 1;Sharpness .9 3|ShearY .5 8;'
    .. 'TranslateY .7 9|AutoContrast .5;Equalize .9|ShearY .2 7;Posterize .3 7|Color .4 3;Brightness .6 7|'
    .. 'Sharpness .3 9;Brightness .7 9|Equalize .6;Equalize .5|Contrast .6 7;Sharpness .6 5|Color .7 7;'
    .. 'TranslateX .5 8|Equalize .3;AutoContrast .4|TranslateY .4 3;Sharpness .2 6|Brightness .9 6;Color .2 8|'
    .. 'Solarize .5 2;Invert 0|Equalize .2;AutoContrast .6|Equalize .2;Equalize .6|Color .9 9;Equalize .6|'
    .. 'AutoContrast .8;Solarize .2 8|Brightness .1 3;Color .7 0|Solarize .4 5;AutoContrast .9|TranslateY .9 9;'
    .. 'TranslateY .7 9|AutoContrast .9;Solarize .8 3|Equalize .8;Invert .1|TranslateY .7 9;AutoContrast .9',
  svhn = 'ShearX .9 4;Invert .2|ShearY .9 8;Invert .7|Equalize .6;Solarize .6 6|Invert .9;Equalize .6|'
    .. 'Equalize .6;Rotate .9 3|ShearX .9 4;AutoContrast .8|ShearY .9 8;Invert .4|ShearY .9 5;Solarize .2 6|'
    .. 'Invert .9;AutoContrast .8|Equalize .6;Rotate .9 3|ShearX .9 4;Solarize .3 3|ShearY .8 8;Invert .7|'
    .. 'Equalize .9;TranslateY .6 6|Invert .9;Equalize .6|Contrast .3 3;Rotate .8 4|Invert .8;TranslateY 0 2|'
    .. 'ShearY .7 6;Solarize .4 8|Invert .6;Rotate .8 4|ShearY .3 7;TranslateX .9 3|ShearX .1 6;Invert .6|'
    .. 'Solarize .7 2;TranslateY .6 7|ShearY .8 4;Invert .8|ShearX .7 9;TranslateY .8 3|ShearY .8 5;'
    .. 'AutoContrast .7|ShearX .7 2;Invert .1',
}

local parsed = {}
local function policies(name)
  if parsed[name] then return parsed[name] end
  local list = {}
  for sub in POLICY_TEXT[name]:gmatch('[^|]+') do
    local pair = {}
    for step in sub:gmatch('[^;]+') do
      local op, p, bin = step:match('^(%a+) ([%d.]+) ?(%d*)$')
      pair[#pair + 1] = { op, tonumber(p), tonumber(bin) }
    end
    list[#list + 1] = pair
  end
  parsed[name] = list
  return list
end

--- data.transforms.AutoAugment([policy = 'imagenet'[, interpolation = 'nearest'[, fill]]]): one of
--- the 25 learned sub-policies of 'imagenet', 'cifar10' or 'svhn' (each two ops applied with
--- their probabilities, magnitudes from 10 bins, random signs), as torchvision.
--- Example: data.transforms.AutoAugment('cifar10')(torch.ByteTensor(3, 8, 8):random(0, 255))
define('AutoAugment', { 'policy', 'interpolation', 'fill' }, function(self, a)
  local p = type(a.policy) == 'string' and a.policy:lower() or (a.policy == nil and 'imagenet' or a.policy)
  if not POLICY_TEXT[p] then
    fail('AutoAugment', "policy must be 'imagenet', 'cifar10' or 'svhn', got %s", tostring(p))
  end
  self.policy = p
  setup(self, 'AutoAugment', a)
end, function(self, img)
  local w, h, c = prepare('AutoAugment', img)
  local fill = core.fill_list('AutoAugment', self.fill, c)
  local list = policies(self.policy)
  local id = randint(1, #list + 1)
  local probs = { uniform(), uniform() }
  local signs = { randint(0, 2), randint(0, 2) }
  for i, step in ipairs(list[id]) do
    local op, p, bin = step[1], step[2], step[3]
    if probs[i] <= p then
      local mag = bin and magnitude(op, bin, 10, w, h, false) or 0
      if SIGNED[op] and signs[i] == 0 then mag = -mag end
      img = apply_op(img, op, mag, self.interpolation, fill)
    end
  end
  return img
end)

local OPS = { 'Identity', 'ShearX', 'ShearY', 'TranslateX', 'TranslateY', 'Rotate', 'Brightness', 'Color', 'Contrast',
  'Sharpness', 'Posterize', 'Solarize', 'AutoContrast', 'Equalize' }

--- data.transforms.RandAugment([numOps = 2[, magnitude = 9[, numMagnitudeBins = 31[,
--- interpolation = 'nearest'[, fill]]]]]): numOps ops drawn uniformly from 14, each at bin
--- magnitude (0-based, < numMagnitudeBins) with a random sign.
--- Example: data.transforms.RandAugment(2, 9)(torch.rand(3, 8, 8))
define('RandAugment', { 'numOps', 'magnitude', 'numMagnitudeBins', 'interpolation', 'fill' }, function(self, a)
  self.numOps = integer('RandAugment', a.numOps or 2, 'numOps', 0)
  self.numMagnitudeBins = integer('RandAugment', a.numMagnitudeBins or 31, 'numMagnitudeBins', 2)
  self.magnitude = integer('RandAugment', a.magnitude or 9, 'magnitude', 0, self.numMagnitudeBins - 1)
  setup(self, 'RandAugment', a)
end, function(self, img)
  local w, h, c = prepare('RandAugment', img)
  local fill = core.fill_list('RandAugment', self.fill, c)
  for _ = 1, self.numOps do
    local op = OPS[randint(1, #OPS + 1)]
    local mag = magnitude(op, self.magnitude, self.numMagnitudeBins, w, h, false) or 0
    if SIGNED[op] and randint(0, 2) == 1 then mag = -mag end
    img = apply_op(img, op, mag, self.interpolation, fill)
  end
  return img
end)

--- data.transforms.TrivialAugmentWide([numMagnitudeBins = 31[, interpolation = 'nearest'[, fill]]]):
--- one op drawn uniformly from 14 at a uniformly drawn magnitude bin (wide ranges), random sign.
--- Example: data.transforms.TrivialAugmentWide()(torch.rand(3, 8, 8))
define('TrivialAugmentWide', { 'numMagnitudeBins', 'interpolation', 'fill' }, function(self, a)
  self.numMagnitudeBins = integer('TrivialAugmentWide', a.numMagnitudeBins or 31, 'numMagnitudeBins', 2)
  setup(self, 'TrivialAugmentWide', a)
end, function(self, img)
  local w, h, c = prepare('TrivialAugmentWide', img)
  local fill = core.fill_list('TrivialAugmentWide', self.fill, c)
  local op = OPS[randint(1, #OPS + 1)]
  local mag = 0
  if magnitude(op, 0, 2, w, h, true) ~= nil then
    mag = magnitude(op, randint(0, self.numMagnitudeBins), self.numMagnitudeBins, w, h, true)
  end
  if SIGNED[op] and randint(0, 2) == 1 then mag = -mag end
  return apply_op(img, op, mag, self.interpolation, fill)
end)

T._augment = { magnitude = magnitude, policies = policies, apply_op = apply_op }

return T
