-- nn.SpatialAdaptiveMaxPooling(W, H): max pooling of (C x H' x W') or (N x C x H' x W') to H x W
-- with windows that adapt to the input size; self.indices holds the 1-based flat positions
-- ((h-1)*W' + w) of the maxima in their planes (as Torch7's later releases).
local F = require 'nn.functional_pool'
local SpatialAdaptiveMaxPooling, parent = torch.class('nn.SpatialAdaptiveMaxPooling', 'nn.Module')

function SpatialAdaptiveMaxPooling:__init(W, H)
  parent.__init(self)
  if type(W) ~= 'number' or type(H) ~= 'number' or W < 1 or H < 1 then
    F.init_error('nn.SpatialAdaptiveMaxPooling', 'expected a positive output width and height, got %s and %s',
      tostring(W), tostring(H))
  end
  self.W, self.H = W, H
  self.indices = torch.LongTensor()
end

function SpatialAdaptiveMaxPooling:updateOutput(input)
  F.check_input(self, input, 3, 'N x C x H x W')
  self.indices = F.long_buffer(self.indices, input)
  F.call(self, F.adaptiveMaxPool2d, F.buffer(self, 'output', input), self.indices, input, self.H, self.W)
  return self.output
end

function SpatialAdaptiveMaxPooling:updateGradInput(input, gradOutput)
  F.call(self, F.maxPoolBackward, F.buffer(self, 'gradInput', gradOutput), gradOutput, self.indices, input, 2)
  return self.gradInput
end

function SpatialAdaptiveMaxPooling:clearState()
  self.indices = torch.LongTensor()
  return parent.clearState(self)
end

function SpatialAdaptiveMaxPooling:__tostring__()
  return string.format('%s(%dx%d)', torch.type(self), self.W, self.H)
end

return SpatialAdaptiveMaxPooling
