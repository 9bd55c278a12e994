-- nn.PixelShuffle(upscaleFactor): (* x C*r*r x H x W) -> (* x C x H*r x W*r), any leading dims as
-- PyTorch's (ESPCN's sub-pixel layout). Made of views, a permute and a copy, so autograd
-- differentiates it.
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
  if not torch.isTensor(input) or input:dim() < 3 then
    F.fail(self, 'expected a 3D or 4D (or more dims: * x C*r*r x H x W) input, got %s',
      torch.isTensor(input) and 'size ' .. F.size_str(input) or F.size_str(input))
  end
  self.output = F.call(self, nn.functional.pixelShuffle, input, self.upscaleFactor)
  return self.output
end

function PixelShuffle:__tostring__()
  return string.format('%s(%d)', torch.type(self), self.upscaleFactor)
end

return PixelShuffle
