-- nn.SpatialSoftMax(): softmax over the feature planes at every pixel of C x H x W or
-- N x C x H x W input (a vector or N x C batch is normalized as by nn.SoftMax).
require 'nn.SoftMax'
local SpatialSoftMax, parent = torch.class('nn.SpatialSoftMax', 'nn.SoftMax')

-- A gradOutput of another size would fail inside cmul with a message naming neither this module
-- nor what it expected.
function SpatialSoftMax:updateGradInput(input, gradOutput)
  if not torch.isTensor(gradOutput) or not gradOutput:isSameSizeAs(self.output) then
    local function str(t)
      return torch.isTensor(t) and (torch.typename(t) .. ' of size ' .. table.concat(t:size():totable(), 'x')) or type(t)
    end
    error(string.format('[nn.SpatialSoftMax] gradOutput (%s) must have the size of the output (%s)', str(gradOutput),
      str(self.output)), torch._lib.user_level())
  end
  return parent.updateGradInput(self, input, gradOutput)
end

return SpatialSoftMax
