-- nn.Upsample([size] [, scaleFactor] [, mode = 'nearest'] [, alignCorners] [, recomputeScaleFactor]):
-- PyTorch's nn.Upsample over nn.functional.interpolate: N x C x L (modes nearest, nearest-exact,
-- area, linear), N x C x H x W (those and bilinear, bicubic) or N x C x D x H x W (nearest,
-- nearest-exact, area, trilinear) input; size and scaleFactor are a number or one per resampled
-- dim. Also PyTorch's nn.UpsamplingNearest2d and nn.UpsamplingBilinear2d (alignCorners = true).
-- Arguments are PyTorch's, positionals or a trailing camelCase options table.
local A = require 'nn.functional_args'
local P = require 'nn.pytorch_names_args'
local Upsample, parent = torch.class('nn.Upsample', 'nn.Module')
local NAMES = { 'size', 'scaleFactor', 'mode', 'alignCorners', 'recomputeScaleFactor' }
local modes = { nearest = true, ['nearest-exact'] = true, area = true, linear = true, bilinear = true, bicubic = true,
                trilinear = true }
local aligned = { linear = true, bilinear = true, bicubic = true, trilinear = true }

-- Note [Upsample's modes]: nn.Upsample took only nearest and the linear modes, where PyTorch's takes
-- every interpolate mode ('bicubic', 'area', 'nearest-exact') and recompute_scale_factor; the
-- checks here are interpolate's (alignCorners only with the interpolating modes), made at
-- construction.
function Upsample:__init(...)
  parent.__init(self)
  local name = torch.typename(self)
  local opts = P.parse(name, NAMES, ...)
  if (opts.size == nil) == (opts.scaleFactor == nil) then A.fail(name, 'give exactly one of size and scaleFactor') end
  -- a number or a plain list of numbers each (a module given there was accepted and failed later)
  for _, key in ipairs({ 'size', 'scaleFactor' }) do
    local v = opts[key]
    local ok = v == nil or type(v) == 'number'
    if type(v) == 'table' and getmetatable(v) == nil then
      ok = #v > 0
      for k, e in pairs(v) do ok = ok and type(k) == 'number' and type(e) == 'number' end
    end
    if not ok then A.fail(name, '%s must be a number or a list of numbers, got %s', key, torch.type(v)) end
  end
  local mode = opts.mode or 'nearest'
  if not modes[mode] then
    A.fail(name, "mode must be 'nearest', 'nearest-exact', 'area', 'linear', 'bilinear', 'bicubic' or " ..
      "'trilinear', got %s", tostring(mode))
  end
  if opts.alignCorners ~= nil and not aligned[mode] then
    A.fail(name, 'alignCorners only goes with the linear, bilinear, bicubic and trilinear modes')
  end
  if opts.alignCorners ~= nil and type(opts.alignCorners) ~= 'boolean' then
    A.fail(name, 'alignCorners must be a boolean, got %s', tostring(opts.alignCorners))
  end
  if opts.recomputeScaleFactor ~= nil and type(opts.recomputeScaleFactor) ~= 'boolean' then
    A.fail(name, 'recomputeScaleFactor must be a boolean, got %s', tostring(opts.recomputeScaleFactor))
  end
  self.size, self.scaleFactor, self.mode, self.alignCorners = opts.size, opts.scaleFactor, mode, opts.alignCorners
  self.recomputeScaleFactor = opts.recomputeScaleFactor
end

function Upsample:updateOutput(input)
  self.output = require('nn.functional_pool').call(self, nn.functional.interpolate, input,
    { size = self.size, scaleFactor = self.scaleFactor, mode = self.mode, alignCorners = self.alignCorners,
      recomputeScaleFactor = self.recomputeScaleFactor })
  return self.output
end

function Upsample:__tostring__()
  local function show(v) return type(v) == 'table' and table.concat(v, 'x') or tostring(v) end
  local what = self.size and ('size ' .. show(self.size)) or ('scaleFactor ' .. show(self.scaleFactor))
  return string.format('%s(%s, %s%s)', torch.typename(self), what, self.mode,
    self.alignCorners and ', alignCorners' or '')
end

-- nn.UpsamplingNearest2d([size] [, scaleFactor]) and nn.UpsamplingBilinear2d([size] [, scaleFactor]):
-- PyTorch's 2-D upsampling modules, nn.Upsample in mode 'nearest', or 'bilinear' with alignCorners
-- (as PyTorch's, the nearest one also takes 3-D and 5-D input).
for cls_name, spec in pairs({ UpsamplingNearest2d = { 'nearest' }, UpsamplingBilinear2d = { 'bilinear', true } }) do
  local cls = torch.class('nn.' .. cls_name, 'nn.Upsample')
  cls.__init = function(self, ...)
    local o = P.parse('nn.' .. cls_name, { 'size', 'scaleFactor' }, ...)
    Upsample.__init(self, { size = o.size, scaleFactor = o.scaleFactor, mode = spec[1], alignCorners = spec[2] })
  end
end

return Upsample
