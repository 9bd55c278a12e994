-- nn.SpatialReplicationPadding(pad_l [, pad_r, pad_t, pad_b]): pads the last two dims of (C x H x W)
-- or (N x C x H x W) inputs by repeating their border cells; negative pads crop.
local F = require 'nn.functional_pool'
local SpatialReplicationPadding, parent = torch.class('nn.SpatialReplicationPadding', 'nn.Module')
F.define_padding(SpatialReplicationPadding, parent, 2, '(l=%d, r=%d, t=%d, b=%d)')
return SpatialReplicationPadding
