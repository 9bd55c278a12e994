-- nn.SpatialBatchNormalization(nFeature [, eps] [, momentum] [, affine]): batch normalization of
-- N x C x H x W inputs, per channel over N, H and W (a C x H x W sample in evaluation mode).
require 'nn.BatchNormalization'
local SBN = torch.class('nn.SpatialBatchNormalization', 'nn.BatchNormalization')

SBN.__version = 2
SBN.nDim = 4

return SBN
