-- nn.SpatialAdaptiveAveragePooling(W, H): average pooling of (C x H' x W') or (N x C x H' x W') to
-- H x W; output row i averages input rows floor((i-1)*H'/H) .. ceil(i*H'/H) (likewise columns).
local F = require 'nn.functional_pool'
local SpatialAdaptiveAveragePooling, parent = torch.class('nn.SpatialAdaptiveAveragePooling', 'nn.Module')

function SpatialAdaptiveAveragePooling:__init(W, H)
  parent.__init(self)
  if type(W) ~= 'number' or type(H) ~= 'number' or W < 1 or H < 1 then
    F.init_error('nn.SpatialAdaptiveAveragePooling', 'expected a positive output width and height, got %s and %s',
      tostring(W), tostring(H))
  end
  self.W, self.H = W, H
end

function SpatialAdaptiveAveragePooling:updateOutput(input)
  F.check_input(self, input, 3, 'N x C x H x W')
  F.call(self, F.adaptiveAvgPool2d, F.buffer(self, 'output', input), input, self.H, self.W)
  return self.output
end

function SpatialAdaptiveAveragePooling:updateGradInput(input, gradOutput)
  F.check_grad(self, gradOutput, input, self.H, self.W)
  F.call(self, F.adaptiveAvgPool2dBackward, F.buffer(self, 'gradInput', gradOutput), gradOutput, input)
  return self.gradInput
end

function SpatialAdaptiveAveragePooling:__tostring__()
  return string.format('%s(%dx%d)', torch.type(self), self.W, self.H)
end

return SpatialAdaptiveAveragePooling
