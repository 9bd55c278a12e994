-- nn.SpatialDilatedConvolution(nInputPlane, nOutputPlane, kW, kH [, dW, dH] [, padW, padH]
-- [, dilationW = 1, dilationH = dilationW]): 2-D convolution whose kernel taps are dilation pixels
-- apart (atrous convolution); weight nOutputPlane x nInputPlane x kH x kW as SpatialConvolution.
require 'nn.SpatialConvolution'
local SpatialDilatedConvolution, parent = torch.class('nn.SpatialDilatedConvolution', 'nn.SpatialConvolution')

function SpatialDilatedConvolution:__init(nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH, dilationW, dilationH)
  parent.__init(self, nInputPlane, nOutputPlane, kW, kH, dW, dH, padW, padH)
  self.dilationW = dilationW or 1
  self.dilationH = dilationH or self.dilationW
  local checked = { self.dilationW, self.dilationH }
  for k = 1, 2 do  -- not ipairs: it stops at a missing (nil) argument
    local v = checked[k]
    if type(v) ~= 'number' or v < 1 or v ~= math.floor(v) then
      error(string.format('[nn.SpatialDilatedConvolution] dilation must be positive integers, got %s, %s',
        tostring(dilationW), tostring(dilationH)), torch._lib.user_level())
    end
  end
end

return SpatialDilatedConvolution
