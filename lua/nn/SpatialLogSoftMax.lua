-- nn.SpatialLogSoftMax(): log-softmax over the feature planes at every pixel of C x H x W or
-- N x C x H x W input (a vector or N x C batch as nn.LogSoftMax), Torch7's nn.SpatialLogSoftMax
-- (THNN's LogSoftMax over dim 1 of 3-D and dim 2 of 4-D input).
require 'nn.LogSoftMax'
local SpatialLogSoftMax, parent = torch.class('nn.SpatialLogSoftMax', 'nn.LogSoftMax')

-- A gradOutput of another size would fail inside the sum with a message naming neither this
-- module nor what it expected.
function SpatialLogSoftMax:updateGradInput(input, gradOutput)
  if not torch.isTensor(gradOutput) or not gradOutput:isSameSizeAs(self.output) then
    local S = require 'nn.support'
    S.fail('nn.SpatialLogSoftMax', 'gradOutput (%s) must have the size of the output (%s)', S.describe(gradOutput),
      S.describe(self.output))
  end
  return parent.updateGradInput(self, input, gradOutput)
end

return SpatialLogSoftMax
