-- cudnn.SoftMax([fast]) and cudnn.LogSoftMax([fast]): cuDNN's instance mode, as in cudnn.torch: a
-- vector or an N x C batch is normalized as by nn.SoftMax, but C x H x W input as one
-- distribution over all its C*H*W values and N x C x H x W input as N of them (nn.SoftMax and
-- cudnn.SpatialSoftMax normalize over C at each pixel).
local cudnn = rawget(_G, 'cudnn')

-- Note [cudnn.SoftMax on images]: cudnn.convert swaps cudnn.SoftMax and nn.SoftMax as cudnn.torch
-- does, although the two differ on 3-D and 4-D input; they agree on vectors and batches, the
-- classifier case.
local function instance(name)
  local cls, parent = cudnn._alias(name)
  cls.__init = function(self, fast)
    parent.__init(self)
    self.fast = fast or false
  end
  -- input with each instance flattened to one row (3-D: one instance; 4-D: N).
  local function rows(t)
    if t:dim() == 3 then return t:contiguous():view(1, -1) end
    if t:dim() == 4 then return t:contiguous():view(t:size(1), -1) end
    return t
  end
  function cls:updateOutput(input)
    if not torch.isTensor(input) or input:dim() < 3 then return parent.updateOutput(self, input) end
    local y = parent.updateOutput(self, rows(input))
    self._rows = y
    self.output = y:view(input:size())
    return self.output
  end
  function cls:updateGradInput(input, gradOutput)
    if not torch.isTensor(input) or input:dim() < 3 then return parent.updateGradInput(self, input, gradOutput) end
    local S = require 'nn.support'
    S.gradLike('cudnn.' .. name, gradOutput, input)
    local out = self.output
    self.output = self._rows
    local ok, gi = pcall(parent.updateGradInput, self, rows(input), rows(gradOutput))
    self.output = out
    if not ok then error(gi, 0) end
    self.gradInput = gi:view(input:size())
    return self.gradInput
  end
  return cls
end

instance('SoftMax')
instance('LogSoftMax')

return cudnn
