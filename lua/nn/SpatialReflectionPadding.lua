-- nn.SpatialReflectionPadding(pad_l [, pad_r, pad_t, pad_b]): pads the last two dims of (C x H x W)
-- or (N x C x H x W) inputs with their mirror image (the edge is not repeated, so each pad must be
-- smaller than its dim); negative pads crop.
local F = require 'nn.functional_pool'
local SpatialReflectionPadding, parent = torch.class('nn.SpatialReflectionPadding', 'nn.Module')
F.define_padding(SpatialReflectionPadding, parent, 1, '(l=%d,r=%d,t=%d,b=%d)')
return SpatialReflectionPadding
