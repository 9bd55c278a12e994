-- torchvision.transforms for Tocha: data.transforms.functional (the tensor functions) and the
-- transform classes with PyTorch's names (data.transforms.Resize...), callable on an image.
-- This file owns the base class, the containers (Compose, RandomApply...) and the deterministic
-- classes; random ones are in transforms_random.lua, AutoAugment & co. in transforms_augment.lua.
local torch = require 'torch'
local data = require 'data.env'
require 'data.transforms'
local core = require 'data.transforms_core'

local T = data.transforms
local Fn = {}
for _, part in ipairs({ 'geometric', 'warp', 'color', 'tensor' }) do
  for k, v in pairs(require('data.transforms_' .. part)) do Fn[k] = v end
end
T.functional = Fn
local fail = core.fail

-- Note [Transform classes]: each class is a torch.class under data.transforms, so an instance
-- is a table of plain fields that a DataLoader ships to its worker states by class name (Note
-- [Shipping datasets], data/transfer.lua), and calling it (t(img)) runs t:forward(img). They
-- are accepted wherever a function is: ds:map(t), ImageFolder{transform = t}, Compose. Tocha
-- has no PIL images: inputs are tensors (C x H x W, H x W or N x C x H x W; float in [0, 1] or
-- byte 0-255), following torchvision's tensor code paths.
local Transform = torch.class('data.transforms.Transform', T)
--- t(img): applies the transform (t:forward(img)).
--- Example: data.transforms.CenterCrop(2)(torch.rand(3, 4, 4))
function Transform:__call__(img) return self:forward(img) end
--- t:forward(img): the transformed image (each class defines it).
--- Example: data.transforms.CenterCrop(2):forward(torch.rand(3, 4, 4))
function Transform:forward() fail(torch.typename(self), 'forward is not implemented') end
--- tostring(t): the class name and its number, string and boolean settings.
--- Example: print(data.transforms.Resize(256))
function Transform:__tostring__()
  local keys = {}
  for k, v in pairs(self) do
    if type(k) == 'string' and (type(v) == 'number' or type(v) == 'string' or type(v) == 'boolean') then
      keys[#keys + 1] = k .. '=' .. tostring(v)
    end
  end
  table.sort(keys)
  return (torch.typename(self):match('[^.]+$')) .. '(' .. table.concat(keys, ', ') .. ')'
end

-- Defines data.transforms.<name>, a Transform whose constructor takes torchvision's arguments
-- (argnames, Note [Transform arguments] in data/transforms_core.lua) and hands them to init as
-- a table; returns the class table.
local function define(name, argnames, init, forward)
  local C = torch.class('data.transforms.' .. name, 'data.transforms.Transform', T)
  C.__init = function(self, ...) init(self, core.args(name, argnames, ...)) end
  C.forward = forward
  return C
end
T._define = define

local function callable(op, t, i)
  local mt = type(t) == 'table' and getmetatable(t)
  if type(t) ~= 'function' and not (mt and mt.__call) then
    fail(op, 'transform %d is a %s, not a function or transform', i, torch.type(t))
  end
end

local function list_arg(op, list)
  if type(list) ~= 'table' or getmetatable(list) ~= nil then
    fail(op, 'expected a list of transforms, got %s', torch.type(list))
  end
  for i, t in ipairs(list) do callable(op, t, i) end
  return list
end

--- data.transforms.Compose{t1, t2, ...}: applies t1, then t2... (functions or transforms).
--- Example: data.transforms.Compose{data.transforms.CenterCrop(2), data.transforms.RandomHorizontalFlip()}
define('Compose', { 'transforms' }, function(self, a) self.transforms = list_arg('Compose', a.transforms) end,
  function(self, img)
    for _, t in ipairs(self.transforms) do img = t(img) end
    return img
  end)

--- data.transforms.Lambda(fn): a transform calling fn(img).
--- Example: data.transforms.Lambda(function(x) return x * 2 end)
define('Lambda', { 'lambd' }, function(self, a)
  callable('Lambda', a.lambd, 1)
  self.lambd = a.lambd
end, function(self, img) return self.lambd(img) end)

--- data.transforms.RandomApply(transforms[, p = 0.5]): applies the list in order with probability p.
--- Example: data.transforms.RandomApply({data.transforms.Grayscale(3)}, 0.3)
define('RandomApply', { 'transforms', 'p' }, function(self, a)
  self.transforms = list_arg('RandomApply', a.transforms)
  self.p = a.p == nil and 0.5 or core.number('RandomApply', a.p, 'p', 0, 1)
end, function(self, img)
  if self.p < core.uniform() then return img end
  for _, t in ipairs(self.transforms) do img = t(img) end
  return img
end)

-- Note [Python's random]: torchvision's RandomChoice and RandomOrder draw from Python's random
-- module; here every draw comes from torch's generator, so torch.manualSeed governs them too.

--- data.transforms.RandomChoice(transforms[, p]): applies one transform of the list, picked with
--- weights p (uniform by default).
--- Example: data.transforms.RandomChoice({data.transforms.RandomHorizontalFlip(1), data.transforms.RandomVerticalFlip(1)})
define('RandomChoice', { 'transforms', 'p' }, function(self, a)
  self.transforms = list_arg('RandomChoice', a.transforms)
  if #self.transforms == 0 then fail('RandomChoice', 'expected at least one transform') end
  if a.p ~= nil and (type(a.p) ~= 'table' or #a.p ~= #self.transforms) then
    fail('RandomChoice', 'p must hold one weight per transform (%d)', #self.transforms)
  end
  local total = 0
  for _, w in ipairs(a.p or {}) do total = total + core.number('RandomChoice', w, 'each weight in p', 0) end
  -- all-zero weights would always pick the last transform (Python's random.choices raises)
  if a.p and not (total > 0) then fail('RandomChoice', 'the weights in p must not all be 0') end
  self.p = a.p
end, function(self, img)
  local n, k = #self.transforms, nil
  if not self.p then
    k = core.randint(1, n + 1)
  else
    local total = 0
    for i = 1, n do total = total + self.p[i] end
    local u, acc = core.uniform() * total, 0
    for i = 1, n do
      acc = acc + self.p[i]
      if u < acc then k = i break end
    end
    k = k or n
  end
  return self.transforms[k](img)
end)

--- data.transforms.RandomOrder(transforms): applies the list in a random order.
--- Example: data.transforms.RandomOrder({data.transforms.Grayscale(3), data.transforms.CenterCrop(2)})
define('RandomOrder', { 'transforms' }, function(self, a) self.transforms = list_arg('RandomOrder', a.transforms) end,
  function(self, img)
    local n = #self.transforms
    if n == 0 then return img end
    local order = torch.randperm(n)
    for i = 1, n do img = self.transforms[order[i]](img) end
    return img
  end)

--- data.transforms.ToTensor([{layout =}]): byte images (HWC or CHW) -> C x H x W floats in
--- [0, 1] (functional.toTensor).
--- Example: data.transforms.ToTensor()(torch.ByteTensor(4, 4, 3):fill(255))
define('ToTensor', { 'layout' }, function(self, a) self.layout = a.layout end,
  function(self, img) return Fn.toTensor(img, { layout = self.layout }) end)

--- data.transforms.PILToTensor([{layout =}]): byte images (HWC or CHW) -> C x H x W bytes.
--- Example: data.transforms.PILToTensor()(torch.ByteTensor(4, 4, 3):fill(255))
define('PILToTensor', { 'layout' }, function(self, a) self.layout = a.layout end,
  function(self, img) return Fn.pilToTensor(img, { layout = self.layout }) end)

--- data.transforms.ConvertImageDtype(dtype): functional.convertImageDtype as a transform.
--- Example: data.transforms.ConvertImageDtype('float')(torch.ByteTensor(3, 2, 2):fill(255))
define('ConvertImageDtype', { 'dtype' }, function(self, a) self.dtype = a.dtype or 'float' end,
  function(self, img) return Fn.convertImageDtype(img, self.dtype) end)

--- data.transforms.Normalize(mean, std[, inplace]): per-channel (img - mean) / std of float images.
--- Example: data.transforms.Normalize({0.5, 0.5, 0.5}, {0.25, 0.25, 0.25})(torch.rand(3, 2, 2))
define('Normalize', { 'mean', 'std', 'inplace' }, function(self, a)
  if a.mean == nil or a.std == nil then fail('Normalize', 'expected mean and std') end
  self.mean, self.std, self.inplace = a.mean, a.std, a.inplace or false
end, function(self, img) return Fn.normalize(img, self.mean, self.std, self.inplace) end)

-- allow_int: a number or a one-element list {n} stays as given (resize's shorter side).
local function check_size(op, size, allow_int)
  if allow_int and type(size) == 'number' then core.size2(op, size) return size end
  if allow_int and type(size) == 'table' and #size == 1 then core.size2(op, size) return { size[1] } end
  return core.size2(op, size)
end

--- data.transforms.Resize(size[, {interpolation = 'bilinear', maxSize =, antialias = true}]): see
--- functional.resize (a number or {n} resizes the shorter side).
--- Example: data.transforms.Resize(4)(torch.rand(3, 8, 6))
define('Resize', { 'size', 'interpolation', 'maxSize', 'antialias' }, function(self, a)
  self.size = check_size('Resize', a.size, true)
  self.interpolation = core.interpolation('Resize', a.interpolation, 'bilinear')
  self.maxSize, self.antialias = a.maxSize, a.antialias
  if self.maxSize ~= nil and type(self.maxSize) ~= 'number' then
    fail('Resize', 'maxSize must be an integer, got %s', tostring(self.maxSize))
  end
  if self.maxSize ~= nil and type(self.size) ~= 'number' and #self.size ~= 1 then
    fail('Resize', 'maxSize is only allowed when size is a number or {n} (the shorter side)')
  end
end, function(self, img)
  return Fn.resize(img, self.size, { interpolation = self.interpolation, maxSize = self.maxSize,
    antialias = self.antialias })
end)

--- data.transforms.CenterCrop(size): the central size (number or {h, w}) window.
--- Example: data.transforms.CenterCrop(2)(torch.rand(3, 4, 4))
define('CenterCrop', { 'size' }, function(self, a) self.size = core.size2('CenterCrop', a.size) end,
  function(self, img) return Fn.centerCrop(img, self.size) end)

--- data.transforms.Pad(padding[, fill = 0[, paddingMode = 'constant']]): functional.pad.
--- Example: data.transforms.Pad(1, {paddingMode = 'edge'})(torch.rand(3, 2, 2))
define('Pad', { 'padding', 'fill', 'paddingMode' }, function(self, a)
  Fn._ltrb('Pad', a.padding)
  self.padding, self.fill, self.paddingMode = a.padding, a.fill or 0, a.paddingMode or 'constant'
end, function(self, img) return Fn.pad(img, self.padding, self.fill, self.paddingMode) end)

--- data.transforms.Grayscale([numOutputChannels = 1]): functional.rgbToGrayscale.
--- Example: data.transforms.Grayscale(3)(torch.rand(3, 2, 2))
define('Grayscale', { 'numOutputChannels' }, function(self, a)
  self.numOutputChannels = a.numOutputChannels or 1
  if self.numOutputChannels ~= 1 and self.numOutputChannels ~= 3 then
    fail('Grayscale', 'numOutputChannels must be 1 or 3, got %s', tostring(self.numOutputChannels))
  end
end, function(self, img) return Fn.rgbToGrayscale(img, self.numOutputChannels) end)

--- data.transforms.FiveCrop(size): the list of 4 corner crops and the centre crop.
--- Example: data.transforms.FiveCrop(2)(torch.rand(3, 4, 4))
define('FiveCrop', { 'size' }, function(self, a) self.size = core.size2('FiveCrop', a.size) end,
  function(self, img) return Fn.fiveCrop(img, self.size) end)

--- data.transforms.TenCrop(size[, verticalFlip = false]): FiveCrop of the image and of its mirror.
--- Example: data.transforms.TenCrop(2)(torch.rand(3, 4, 4))
define('TenCrop', { 'size', 'verticalFlip' }, function(self, a)
  self.size, self.verticalFlip = core.size2('TenCrop', a.size), a.verticalFlip or false
end, function(self, img) return Fn.tenCrop(img, self.size, self.verticalFlip) end)

--- data.transforms.LinearTransformation(matrix, meanVector): functional.linearTransformation.
--- Example: data.transforms.LinearTransformation(torch.eye(4), torch.zeros(4))(torch.rand(1, 2, 2))
define('LinearTransformation', { 'transformationMatrix', 'meanVector' }, function(self, a)
  local m, v = a.transformationMatrix, a.meanVector
  if not torch.isTensor(m) or m:dim() ~= 2 or m:size(1) ~= m:size(2) then
    fail('LinearTransformation', 'transformationMatrix must be a square matrix, got %s', torch.type(m))
  end
  if not torch.isTensor(v) or v:nElement() ~= m:size(1) then
    fail('LinearTransformation', 'meanVector must hold %d values', m:size(1))
  end
  self.transformationMatrix, self.meanVector = m, v
end, function(self, img) return Fn.linearTransformation(img, self.transformationMatrix, self.meanVector) end)

require 'data.transforms_random'
require 'data.transforms_augment'

return T
