-- nn.Upsample({size= | scaleFactor= [, mode = 'nearest'] [, alignCorners]}): PyTorch's nn.Upsample
-- over nn.functional.interpolate: N x C x L (modes nearest, linear), N x C x H x W (nearest,
-- bilinear) or N x C x D x H x W (nearest, trilinear) input; size and scaleFactor are a number or
-- one per resampled dim.
local A = require 'nn.functional_args'
local Upsample, parent = torch.class('nn.Upsample', 'nn.Module')
local known = { size = true, scaleFactor = true, mode = true, alignCorners = true }
local modes = { nearest = true, linear = true, bilinear = true, trilinear = true }

function Upsample:__init(opts)
  parent.__init(self)
  local name = 'nn.Upsample'
  opts = A.opts(name, opts, known)
  if (opts.size == nil) == (opts.scaleFactor == nil) then A.fail(name, 'give exactly one of size and scaleFactor') end
  local mode = opts.mode or 'nearest'
  if not modes[mode] then A.fail(name, "mode must be 'nearest', 'linear', 'bilinear' or 'trilinear', got %s", tostring(mode)) end
  if opts.alignCorners ~= nil and mode == 'nearest' then A.fail(name, 'alignCorners only goes with linear modes') end
  self.size, self.scaleFactor, self.mode, self.alignCorners = opts.size, opts.scaleFactor, mode, opts.alignCorners
end

function Upsample:updateOutput(input)
  self.output = require('nn.functional_pool').call(self, nn.functional.interpolate, input,
    { size = self.size, scaleFactor = self.scaleFactor, mode = self.mode, alignCorners = self.alignCorners })
  return self.output
end

function Upsample:__tostring__()
  local what = self.size and ('size ' .. (type(self.size) == 'table' and table.concat(self.size, 'x') or self.size))
    or ('scaleFactor ' .. (type(self.scaleFactor) == 'table' and table.concat(self.scaleFactor, 'x') or self.scaleFactor))
  return string.format('nn.Upsample(%s, %s%s)', what, self.mode, self.alignCorners and ', alignCorners' or '')
end

return Upsample
