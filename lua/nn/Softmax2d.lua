-- nn.Softmax2d(): PyTorch's name for Torch7's nn.SpatialSoftMax (softmax over the channels at
-- every pixel of C x H x W or N x C x H x W input). The same class: torch.type says nn.SpatialSoftMax.
require 'nn.SpatialSoftMax'
nn.Softmax2d = nn.SpatialSoftMax
return nn.Softmax2d
