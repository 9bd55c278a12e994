-- nn.VolumetricBatchNormalization(nFeature [, eps] [, momentum] [, affine]): batch normalization
-- of N x C x T x H x W inputs, per channel (a C x T x H x W sample in evaluation mode).
require 'nn.BatchNormalization'
local VBN = torch.class('nn.VolumetricBatchNormalization', 'nn.BatchNormalization')

VBN.__version = 2
VBN.nDim = 5

return VBN
