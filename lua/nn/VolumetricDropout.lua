-- nn.VolumetricDropout(p [, stochasticInference] [, inverted]): SpatialDropout for N x C x T x H x W
-- inputs (or C x T x H x W samples): whole volumes are dropped.
require 'nn.SpatialDropout'
local VolumetricDropout = torch.class('nn.VolumetricDropout', 'nn.SpatialDropout')

VolumetricDropout.nDim = 5

return VolumetricDropout
