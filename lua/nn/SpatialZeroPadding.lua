-- nn.SpatialZeroPadding(pad_l [, pad_r, pad_t, pad_b]): pads the last two dims of (C x H x W) or
-- (N x C x H x W) inputs with zeros; negative pads crop (Torch7).
local F = require 'nn.functional_pool'
local SpatialZeroPadding, parent = torch.class('nn.SpatialZeroPadding', 'nn.Module')
F.define_padding(SpatialZeroPadding, parent, 0, '(l=%d, r=%d, t=%d, b=%d)')
return SpatialZeroPadding
