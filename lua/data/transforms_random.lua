-- torchvision's random transform classes (data.transforms.RandomCrop, ColorJitter...): each
-- draws its parameters as torchvision's get_params does, from torch's default generator (Note
-- [Transform classes], data/transforms_tv.lua), then calls data.transforms.functional.
local torch = require 'torch'
local data = require 'data.env'
local core = require 'data.transforms_core'

local T = data.transforms
local Fn, define, fail = T.functional, T._define, core.fail
local uniform, randint = core.uniform, core.randint

local function prob(op, p, default)
  if p == nil then return default end
  return core.number(op, p, 'p', 0, 1)
end

--- data.transforms.RandomHorizontalFlip([p = 0.5]): mirrors left-right with probability p.
--- Example: data.transforms.RandomHorizontalFlip(0.5)(torch.rand(3, 2, 2))
define('RandomHorizontalFlip', { 'p' }, function(self, a) self.p = prob('RandomHorizontalFlip', a.p, 0.5) end,
  function(self, img) return uniform() < self.p and Fn.hflip(img) or img end)

--- data.transforms.RandomVerticalFlip([p = 0.5]): flips upside down with probability p.
--- Example: data.transforms.RandomVerticalFlip(0.5)(torch.rand(3, 2, 2))
define('RandomVerticalFlip', { 'p' }, function(self, a) self.p = prob('RandomVerticalFlip', a.p, 0.5) end,
  function(self, img) return uniform() < self.p and Fn.vflip(img) or img end)

local function dims(op, img)
  core.image(op, img)
  return img:size(img:dim() - 1), img:size(img:dim()), img:dim() >= 3 and img:size(img:dim() - 2) or 1
end

--- data.transforms.RandomCrop(size[, {padding =, padIfNeeded = false, fill = 0, paddingMode =
--- 'constant'}]): a random size window, after optional padding (and padding up to size).
--- Example: data.transforms.RandomCrop(4, {padding = 1})(torch.rand(3, 4, 4))
define('RandomCrop', { 'size', 'padding', 'padIfNeeded', 'fill', 'paddingMode' }, function(self, a)
  self.size = core.size2('RandomCrop', a.size)
  if a.padding ~= nil then Fn._ltrb('RandomCrop', a.padding) end
  self.padding, self.padIfNeeded = a.padding, a.padIfNeeded or false
  self.fill, self.paddingMode = a.fill or 0, a.paddingMode or 'constant'
end, function(self, img)
  if self.padding then img = Fn.pad(img, self.padding, self.fill, self.paddingMode) end
  local h, w = dims('RandomCrop', img)
  local th, tw = self.size[1], self.size[2]
  if self.padIfNeeded and w < tw then img = Fn.pad(img, { tw - w, 0 }, self.fill, self.paddingMode) end
  if self.padIfNeeded and h < th then img = Fn.pad(img, { 0, th - h }, self.fill, self.paddingMode) end
  h, w = dims('RandomCrop', img)
  if h < th or w < tw then
    fail('RandomCrop', 'crop %dx%d is larger than the (padded) image %dx%d', th, tw, h, w)
  end
  if h == th and w == tw then return img end
  return Fn.crop(img, randint(0, h - th + 1), randint(0, w - tw + 1), th, tw)
end)

--- data.transforms.RandomResizedCrop.getParams(img, scale, ratio): top, left, height, width of a
--- window with area fraction uniform in scale and log-uniform aspect ratio in ratio (10 tries,
--- then a central crop clamped to ratio), as torchvision.
--- Example: data.transforms.RandomResizedCrop.getParams(torch.rand(3, 8, 8), {0.08, 1}, {3 / 4, 4 / 3})
local function rrc_params(img, scale, ratio)
  local height, width = dims('RandomResizedCrop', img)
  local area = height * width
  local lr1, lr2 = math.log(ratio[1]), math.log(ratio[2])
  for _ = 1, 10 do
    local target = area * uniform(scale[1], scale[2])
    local aspect = math.exp(uniform(lr1, lr2))
    local w = core.round(math.sqrt(target * aspect))
    local h = core.round(math.sqrt(target / aspect))
    if w > 0 and w <= width and h > 0 and h <= height then
      return randint(0, height - h + 1), randint(0, width - w + 1), h, w
    end
  end
  local in_ratio = width / height
  local w, h
  if in_ratio < math.min(ratio[1], ratio[2]) then
    w = width
    h = core.round(w / math.min(ratio[1], ratio[2]))
  elseif in_ratio > math.max(ratio[1], ratio[2]) then
    h = height
    w = core.round(h * math.max(ratio[1], ratio[2]))
  else
    w, h = width, height
  end
  return math.floor((height - h) / 2), math.floor((width - w) / 2), h, w
end

--- data.transforms.RandomResizedCrop(size[, {scale = {0.08, 1}, ratio = {3/4, 4/3}, interpolation
--- = 'bilinear', antialias = true}]): a random window (getParams) resized to size.
--- Example: data.transforms.RandomResizedCrop(4)(torch.rand(3, 8, 8))
local RRC = define('RandomResizedCrop', { 'size', 'scale', 'ratio', 'interpolation', 'antialias' }, function(self, a)
  self.size = core.size2('RandomResizedCrop', a.size)
  self.scale = core.range('RandomResizedCrop', a.scale or { 0.08, 1 }, 'scale', nil, 0)
  self.ratio = core.range('RandomResizedCrop', a.ratio or { 3 / 4, 4 / 3 }, 'ratio')
  if self.ratio[1] <= 0 then fail('RandomResizedCrop', 'ratio must be positive') end
  self.interpolation = core.interpolation('RandomResizedCrop', a.interpolation, 'bilinear')
  self.antialias = a.antialias
end, function(self, img)
  local i, j, h, w = rrc_params(img, self.scale, self.ratio)
  return Fn.resizedCrop(img, i, j, h, w, self.size, { interpolation = self.interpolation, antialias = self.antialias })
end)
RRC.getParams = rrc_params

local GRID = { nearest = true, bilinear = true }

local function fill_for(op, fill, img)
  local c = img:dim() >= 3 and img:size(img:dim() - 2) or 1
  return core.fill_list(op, fill == nil and 0 or fill, c)
end

--- data.transforms.RandomRotation(degrees[, {interpolation = 'nearest', expand = false, center =,
--- fill = 0}]): rotates by an angle uniform in {-degrees, degrees} (or {min, max}).
--- Example: data.transforms.RandomRotation(30)(torch.rand(3, 4, 4))
define('RandomRotation', { 'degrees', 'interpolation', 'expand', 'center', 'fill' }, function(self, a)
  self.degrees = core.range('RandomRotation', a.degrees, 'degrees')
  self.interpolation = core.interpolation('RandomRotation', a.interpolation, 'nearest', GRID)
  self.expand, self.center, self.fill = a.expand or false, a.center, a.fill or 0
end, function(self, img)
  local angle = uniform(self.degrees[1], self.degrees[2])
  return Fn.rotate(img, angle, { interpolation = self.interpolation, expand = self.expand, center = self.center,
    fill = fill_for('RandomRotation', self.fill, img) })
end)

--- data.transforms.RandomAffine(degrees[, {translate =, scale =, shear =, interpolation =
--- 'nearest', fill = 0, center =}]): a random affine map: angle in degrees, translation up to
--- translate {fx, fy} of the size (rounded to pixels), scale in {min, max}, shear (a number s
--- for x in {-s, s}, {min, max} for x, or {xmin, xmax, ymin, ymax}).
--- Example: data.transforms.RandomAffine(10, {translate = {0.1, 0.1}, scale = {0.9, 1.1}})(torch.rand(3, 8, 8))
local AFFINE_ARGS = { 'degrees', 'translate', 'scale', 'shear', 'interpolation', 'fill', 'center' }
define('RandomAffine', AFFINE_ARGS, function(self, a)
  local op = 'RandomAffine'
  self.degrees = core.range(op, a.degrees, 'degrees')
  if a.translate ~= nil then
    local t = a.translate
    if type(t) ~= 'table' or #t ~= 2 or type(t[1]) ~= 'number' or type(t[2]) ~= 'number' or t[1] < 0 or t[1] > 1
        or t[2] < 0 or t[2] > 1 then
      fail(op, 'translate must be {fx, fy} with fractions in [0, 1], got %s', tostring(t))
    end
  end
  if a.scale ~= nil then
    core.range(op, a.scale, 'scale')
    if a.scale[1] <= 0 then fail(op, 'scale values must be positive') end
  end
  local shear = a.shear
  if shear ~= nil then
    if type(shear) == 'number' then shear = core.range(op, shear, 'shear') end
    if type(shear) ~= 'table' or (#shear ~= 2 and #shear ~= 4) then
      fail(op, 'shear must be a number or a list of 2 or 4 numbers, got %s', tostring(shear))
    end
    for i = 1, #shear, 2 do  -- {xmin, xmax[, ymin, ymax]}: numbers, each pair ordered
      core.range(op, { shear[i], shear[i + 1] }, 'shear')
    end
  end
  self.translate, self.scale, self.shear = a.translate, a.scale, shear
  self.interpolation = core.interpolation(op, a.interpolation, 'nearest', GRID)
  self.fill, self.center = a.fill or 0, a.center
end, function(self, img)
  local h, w = dims('RandomAffine', img)
  local angle = uniform(self.degrees[1], self.degrees[2])
  local tx, ty = 0, 0
  if self.translate then
    local mx, my = self.translate[1] * w, self.translate[2] * h
    tx, ty = core.round(uniform(-mx, mx)), core.round(uniform(-my, my))
  end
  local scale = self.scale and uniform(self.scale[1], self.scale[2]) or 1
  local sx, sy = 0, 0
  if self.shear then
    sx = uniform(self.shear[1], self.shear[2])
    if #self.shear == 4 then sy = uniform(self.shear[3], self.shear[4]) end
  end
  return Fn.affine(img, angle, { tx, ty }, scale, { sx, sy }, { interpolation = self.interpolation,
    fill = fill_for('RandomAffine', self.fill, img), center = self.center })
end)

--- data.transforms.RandomPerspective([distortionScale = 0.5[, p = 0.5[, interpolation =
--- 'bilinear'[, fill = 0]]]]): with probability p, moves each corner inwards by up to
--- distortionScale of half the size and warps the image accordingly.
--- Example: data.transforms.RandomPerspective(0.5, 1)(torch.rand(3, 8, 8))
define('RandomPerspective', { 'distortionScale', 'p', 'interpolation', 'fill' }, function(self, a)
  self.distortionScale = core.number('RandomPerspective', a.distortionScale or 0.5, 'distortionScale', 0, 1)
  self.p = prob('RandomPerspective', a.p, 0.5)
  self.interpolation = core.interpolation('RandomPerspective', a.interpolation, 'bilinear', GRID)
  self.fill = a.fill or 0
end, function(self, img)
  if not (uniform() < self.p) then return img end
  local height, width = dims('RandomPerspective', img)
  local d = self.distortionScale
  local hw, hh = math.floor(d * math.floor(width / 2)), math.floor(d * math.floor(height / 2))
  local tl = { randint(0, hw + 1), randint(0, hh + 1) }
  local tr = { randint(width - hw - 1, width), randint(0, hh + 1) }
  local br = { randint(width - hw - 1, width), randint(height - hh - 1, height) }
  local bl = { randint(0, hw + 1), randint(height - hh - 1, height) }
  local start = { { 0, 0 }, { width - 1, 0 }, { width - 1, height - 1 }, { 0, height - 1 } }
  return Fn.perspective(img, start, { tl, tr, br, bl }, { interpolation = self.interpolation,
    fill = fill_for('RandomPerspective', self.fill, img) })
end)

local function jitter_range(v, name, center, bound, clip)
  if v == nil then return nil end
  local r = core.range('ColorJitter', v, name, center)
  if clip and type(v) == 'number' then r[1] = math.max(r[1], 0) end
  if r[1] < bound[1] or r[2] > bound[2] then
    fail('ColorJitter', '%s values must be in [%s, %s], got {%s, %s}', name, bound[1], bound[2], r[1], r[2])
  end
  if r[1] == center and r[2] == center then return nil end
  return r
end

--- data.transforms.ColorJitter([brightness = 0[, contrast = 0[, saturation = 0[, hue = 0]]]]):
--- adjusts brightness, contrast, saturation (factors uniform in {max(0, 1 - v), 1 + v} or a given
--- {min, max}) and hue (shift in {-v, v}, v <= 0.5), in a random order.
--- Example: data.transforms.ColorJitter(0.4, 0.4, 0.4, 0.1)(torch.rand(3, 4, 4))
define('ColorJitter', { 'brightness', 'contrast', 'saturation', 'hue' }, function(self, a)
  local inf = math.huge
  self.brightness = jitter_range(a.brightness, 'brightness', 1, { 0, inf }, true)
  self.contrast = jitter_range(a.contrast, 'contrast', 1, { 0, inf }, true)
  self.saturation = jitter_range(a.saturation, 'saturation', 1, { 0, inf }, true)
  self.hue = jitter_range(a.hue, 'hue', 0, { -0.5, 0.5 }, false)
end, function(self, img)
  local order = torch.randperm(4)
  local function draw(r) return r and uniform(r[1], r[2]) or nil end
  local b, c, s, h = draw(self.brightness), draw(self.contrast), draw(self.saturation), draw(self.hue)
  for i = 1, 4 do
    local k = order[i]
    if k == 1 and b then img = Fn.adjustBrightness(img, b)
    elseif k == 2 and c then img = Fn.adjustContrast(img, c)
    elseif k == 3 and s then img = Fn.adjustSaturation(img, s)
    elseif k == 4 and h then img = Fn.adjustHue(img, h) end
  end
  return img
end)

--- data.transforms.RandomGrayscale([p = 0.1]): grayscale (same number of channels) with probability p.
--- Example: data.transforms.RandomGrayscale(0.5)(torch.rand(3, 2, 2))
define('RandomGrayscale', { 'p' }, function(self, a) self.p = prob('RandomGrayscale', a.p, 0.1) end,
  function(self, img)
    local _, _, c = dims('RandomGrayscale', img)
    if uniform() < self.p then return Fn.rgbToGrayscale(img, c) end
    return img
  end)

--- data.transforms.GaussianBlur(kernelSize[, sigma = {0.1, 2}]): blurs with sigma uniform in the
--- range (a number is fixed).
--- Example: data.transforms.GaussianBlur(3)(torch.rand(3, 8, 8))
define('GaussianBlur', { 'kernelSize', 'sigma' }, function(self, a)
  local ks = a.kernelSize
  if type(ks) == 'number' then ks = { ks, ks } end
  if type(ks) ~= 'table' or #ks ~= 2 or type(ks[1]) ~= 'number' or type(ks[2]) ~= 'number' or ks[1] % 2 ~= 1
      or ks[2] % 2 ~= 1 or ks[1] < 1 or ks[2] < 1 then
    fail('GaussianBlur', 'kernelSize must be odd positive integers, got %s', tostring(a.kernelSize))
  end
  local sigma = a.sigma or { 0.1, 2 }
  if type(sigma) == 'number' then sigma = { sigma, sigma } end
  sigma = core.range('GaussianBlur', sigma, 'sigma')
  if sigma[1] <= 0 then fail('GaussianBlur', 'sigma must be positive') end
  self.kernelSize, self.sigma = ks, sigma
end, function(self, img)
  local s = uniform(self.sigma[1], self.sigma[2])
  return Fn.gaussianBlur(img, self.kernelSize, { s, s })
end)

--- data.transforms.RandomErasing([p = 0.5[, scale = {0.02, 0.33}[, ratio = {0.3, 3.3}[, value =
--- 0[, inplace = false]]]]]): with probability p, sets a random window (area fraction in scale,
--- aspect in ratio) to value (a number, one per channel, or 'random' for normal noise).
--- Example: data.transforms.RandomErasing(1)(torch.rand(3, 8, 8))
define('RandomErasing', { 'p', 'scale', 'ratio', 'value', 'inplace' }, function(self, a)
  self.p = prob('RandomErasing', a.p, 0.5)
  self.scale = core.range('RandomErasing', a.scale or { 0.02, 0.33 }, 'scale', nil, 0)
  self.ratio = core.range('RandomErasing', a.ratio or { 0.3, 3.3 }, 'ratio')
  if self.scale[2] > 1 then fail('RandomErasing', 'scale must be within [0, 1]') end
  -- drawn as log-uniform: a ratio <= 0 made every size NaN, and the image silently unerased
  if self.ratio[1] <= 0 then fail('RandomErasing', 'ratio must be positive, got %s', tostring(self.ratio[1])) end
  local v = a.value == nil and 0 or a.value
  if type(v) == 'string' and v ~= 'random' then fail('RandomErasing', "value must be a number, a list or 'random'") end
  if type(v) ~= 'number' and type(v) ~= 'string' and type(v) ~= 'table' then
    fail('RandomErasing', "value must be a number, a list or 'random', got %s", type(v))
  end
  self.value, self.inplace = v, a.inplace or false
end, function(self, img)
  local h_img, w_img, c = dims('RandomErasing', img)
  if not (uniform() < self.p) then return img end
  local value = self.value
  if type(value) == 'table' and #value ~= 1 and #value ~= c then
    fail('RandomErasing', 'value has %d entries for a %d-channel image', #value, c)
  end
  local area = h_img * w_img
  local lr1, lr2 = math.log(self.ratio[1]), math.log(self.ratio[2])
  for _ = 1, 10 do
    local erase = area * uniform(self.scale[1], self.scale[2])
    local aspect = math.exp(uniform(lr1, lr2))
    local h = core.round(math.sqrt(erase * aspect))
    local w = core.round(math.sqrt(erase / aspect))
    if h < h_img and w < w_img then
      local v
      if value == 'random' then v = torch.randn(c, h, w)
      elseif type(value) == 'table' then v = torch.DoubleTensor(value):view(#value, 1, 1)
      else v = value end
      return Fn.erase(img, randint(0, h_img - h + 1), randint(0, w_img - w + 1), h, w, v, self.inplace)
    end
  end
  return img
end)

-- The one-function random transforms: fn(img, arg) with probability p.
local function simple(name, argname, fn, check)
  local names = argname and { argname, 'p' } or { 'p' }
  define(name, names, function(self, a)
    if argname then
      if a[argname] == nil then fail(name, 'expected %s', argname) end
      if check then check(a[argname]) end
      self[argname] = a[argname]
    end
    self.p = prob(name, a.p, 0.5)
  end, function(self, img)
    core.image(name, img)
    if uniform() < self.p then return fn(img, argname and self[argname]) end
    return img
  end)
end

--- data.transforms.RandomInvert([p = 0.5]): functional.invert with probability p.
--- Example: data.transforms.RandomInvert()(torch.rand(3, 2, 2))
simple('RandomInvert', nil, Fn.invert)
--- data.transforms.RandomPosterize(bits[, p = 0.5]): functional.posterize with probability p.
--- Example: data.transforms.RandomPosterize(2)(torch.ByteTensor(3, 2, 2):fill(100))
simple('RandomPosterize', 'bits', Fn.posterize, function(b) core.number('RandomPosterize', b, 'bits', 0, 8) end)
--- data.transforms.RandomSolarize(threshold[, p = 0.5]): functional.solarize with probability p.
--- Example: data.transforms.RandomSolarize(0.5)(torch.rand(3, 2, 2))
simple('RandomSolarize', 'threshold', Fn.solarize, function(t) core.number('RandomSolarize', t, 'threshold') end)
--- data.transforms.RandomAdjustSharpness(sharpnessFactor[, p = 0.5]): functional.adjustSharpness
--- with probability p.
--- Example: data.transforms.RandomAdjustSharpness(2)(torch.rand(3, 4, 4))
simple('RandomAdjustSharpness', 'sharpnessFactor', Fn.adjustSharpness,
  function(f) core.number('RandomAdjustSharpness', f, 'sharpnessFactor', 0) end)
--- data.transforms.RandomAutocontrast([p = 0.5]): functional.autocontrast with probability p.
--- Example: data.transforms.RandomAutocontrast()(torch.rand(3, 2, 2))
simple('RandomAutocontrast', nil, Fn.autocontrast)
--- data.transforms.RandomEqualize([p = 0.5]): functional.equalize with probability p.
--- Example: data.transforms.RandomEqualize()(torch.ByteTensor(3, 2, 2):fill(9))
simple('RandomEqualize', nil, Fn.equalize)

return T
