-- nn.SpatialUpSamplingNearest(scale): repeats every pixel of (C x H x W) or (N x C x H x W) inputs
-- scale x scale times (an integer scale >= 1), giving H*scale x W*scale planes.
local F = require 'nn.functional_pool'
local SpatialUpSamplingNearest, parent = torch.class('nn.SpatialUpSamplingNearest', 'nn.Module')

function SpatialUpSamplingNearest:__init(scale)
  parent.__init(self)
  if type(scale) ~= 'number' or scale < 1 or scale ~= math.floor(scale) then
    F.init_error('nn.SpatialUpSamplingNearest', 'scale_factor must be an integer >= 1, got %s', tostring(scale))
  end
  self.scale_factor = scale
end

function SpatialUpSamplingNearest:updateOutput(input)
  F.check_input(self, input, 3, 'N x C x H x W')
  local n, s = input:dim(), self.scale_factor
  local out = F.buffer(self, 'output', input)
  F.call(self, F.upsample2d, out, input, input:size(n - 1) * s, input:size(n) * s, 0, false)
  return self.output
end

function SpatialUpSamplingNearest:updateGradInput(input, gradOutput)
  local n, s = input:dim(), self.scale_factor
  F.check_grad(self, gradOutput, input, input:size(n - 1) * s, input:size(n) * s)
  F.call(self, F.upsample2dBackward, F.buffer(self, 'gradInput', gradOutput), gradOutput, input, 0, false)
  return self.gradInput
end

function SpatialUpSamplingNearest:__tostring__()
  return string.format('%s(%d)', torch.type(self), self.scale_factor)
end

return SpatialUpSamplingNearest
