-- nn.PixelUnshuffle(downscaleFactor): the inverse of nn.PixelShuffle: (* x C x H*r x W*r) ->
-- (* x C*r*r x H x W), any leading dims as PyTorch's. Views, a permute and a copy, differentiated
-- by autograd.
local A = require 'nn.functional_args'
local PixelUnshuffle, parent = torch.class('nn.PixelUnshuffle', 'nn.Module')

function PixelUnshuffle:__init(r)
  parent.__init(self)
  if type(r) ~= 'number' or r < 1 or r ~= math.floor(r) then
    A.fail('nn.PixelUnshuffle', 'downscaleFactor must be a positive integer, got %s', tostring(r))
  end
  self.downscaleFactor = r
end

function PixelUnshuffle:updateOutput(input)
  self.output = require('nn.functional_pool').call(self, nn.functional.pixelUnshuffle, input, self.downscaleFactor)
  return self.output
end

function PixelUnshuffle:__tostring__() return string.format('nn.PixelUnshuffle(%d)', self.downscaleFactor) end

return PixelUnshuffle
