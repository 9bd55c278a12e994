-- nn.PixelShuffle(upscaleFactor): (C*r*r x H x W) or (N x C*r*r x H x W) -> (C x H*r x W*r) (ESPCN's
-- sub-pixel layout). Made of views, a permute and a copy, so autograd differentiates it.
local F = require 'nn.functional_pool'
local PixelShuffle, parent = torch.class('nn.PixelShuffle', 'nn.Module')

function PixelShuffle:__init(upscaleFactor)
  parent.__init(self)
  if type(upscaleFactor) ~= 'number' or upscaleFactor < 1 or upscaleFactor ~= math.floor(upscaleFactor) then
    F.init_error('nn.PixelShuffle', 'upscaleFactor must be a positive integer, got %s', tostring(upscaleFactor))
  end
  self.upscaleFactor = upscaleFactor
  self.upscaleFactorSquared = upscaleFactor * upscaleFactor
end

function PixelShuffle:updateOutput(input)
  F.check_input(self, input, 3, 'N x C*r*r x H x W')
  self.output = F.call(self, nn.functional.pixelShuffle, input, self.upscaleFactor)
  return self.output
end

function PixelShuffle:__tostring__()
  return string.format('%s(%d)', torch.type(self), self.upscaleFactor)
end

return PixelShuffle
