-- nn.SpatialFullConvolutionMap(connTable, kW, kH [, dW = 1, dH = 1]): the transposed ("full") 2-D
-- convolution over the links of connTable (K x 2 rows {input plane, output plane}, see
-- SpatialConvolutionMap): each link adds its input plane, spread by its own kH x kW kernel, into its
-- output plane; output size (H - 1) * dH + kH by (W - 1) * dW + kW, no padding. weight K x kH x kW,
-- bias nOutputPlane (Torch7). Torch7 took single C x H x W samples; batches (N x C x H x W) work too.
-- Built on differentiable ops (Note [Composite modules]) like SpatialConvolutionMap.
require 'nn.SpatialConvolutionMap'
local Co = require 'nn.composite'
local SpatialFullConvolutionMap, parent = torch.class('nn.SpatialFullConvolutionMap', 'nn.Module')
Co.install(SpatialFullConvolutionMap)

local Map = nn.SpatialConvolutionMap

function SpatialFullConvolutionMap:__init(connTable, kW, kH, dW, dH)
  parent.__init(self)
  Map._initMap(self, 'nn.SpatialFullConvolutionMap', connTable, kW, kH, dW, dH)
end

--- m:reset([stdv]): as SpatialConvolutionMap's (per output plane fan-in by default).
SpatialFullConvolutionMap.reset = Map.reset

-- The differentiable forward (nn.composite installs updateOutput and the backward around it).
function SpatialFullConvolutionMap:_compute(input)
  Map._checkInput(self, input, 1, 1)
  return torch.convTranspose2d(input, Map._denseWeight(self, true), self.bias, { self.dH, self.dW })
end

-- Torch7 printed the class name alone; the configuration helps (and names the module in errors).
function SpatialFullConvolutionMap:__tostring__()
  local s = string.format('%s(%d -> %d, %dx%d, %d links', torch.typename(self), self.nInputPlane, self.nOutputPlane,
    self.kW, self.kH, self.weight:size(1))
  if self.dW ~= 1 or self.dH ~= 1 then s = s .. string.format(', %d,%d', self.dW, self.dH) end
  return s .. ')'
end

return SpatialFullConvolutionMap
