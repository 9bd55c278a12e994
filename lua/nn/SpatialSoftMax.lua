-- nn.SpatialSoftMax(): softmax over the feature planes at every pixel of C x H x W or
-- N x C x H x W input (a vector or N x C batch is normalized as by nn.SoftMax).
require 'nn.SoftMax'
local SpatialSoftMax, parent = torch.class('nn.SpatialSoftMax', 'nn.SoftMax')

return SpatialSoftMax
