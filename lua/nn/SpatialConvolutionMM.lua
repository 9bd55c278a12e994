-- nn.SpatialConvolutionMM(nInputPlane, nOutputPlane, kW, kH [, dW, dH] [, padW, padH]): Torch7's other
-- name for nn.SpatialConvolution (its "matrix-multiply" implementation), with Torch7's 2-D weight
-- layout nOutputPlane x (nInputPlane*kH*kW). Same computation; .t7 files holding it load as it.
require 'nn.SpatialConvolution'
local SpatialConvolutionMM, parent = torch.class('nn.SpatialConvolutionMM', 'nn.SpatialConvolution')

function SpatialConvolutionMM:__init(nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH)
  parent.__init(self, nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH)
end

function SpatialConvolutionMM:_weightSize()
  return torch.LongStorage({ self.nOutputPlane, self.nInputPlane / self.groups * self.kH * self.kW })
end

return SpatialConvolutionMM
