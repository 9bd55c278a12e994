-- nn.SpatialMaxPooling(kW, kH [, dW = kW, dH = kH] [, padW = 0, padH = 0]): 2-D max pooling of
-- C x H x W or N x C x H x W inputs; :ceil() rounds output sizes up (Note [Pooling output size]).
-- m.indices (LongTensor, the output's size) holds the 1-based position (h-1)*W + w of each maximum
-- inside its input plane (Note [Max-pooling indices]), as nn.SpatialMaxUnpooling expects.
require 'nn.conv_utils'
local cu = nn.conv_utils
local C, check = cu.C, cu.check
local SpatialMaxPooling, parent = torch.class('nn.SpatialMaxPooling', 'nn.Module')

function SpatialMaxPooling:__init(kW, kH, dW, dH, padW, padH)
  parent.__init(self)
  cu.initPool2d(self, kW, kH, dW or kW, dH or kH, padW, padH)
  self.ceil_mode = false
  self.indices = torch.LongTensor()
end

--- m:ceil(): output sizes round up (returns m).
function SpatialMaxPooling:ceil()
  self.ceil_mode = true
  return self
end

--- m:floor(): output sizes round down, the default (returns m).
function SpatialMaxPooling:floor()
  self.ceil_mode = false
  return self
end

function SpatialMaxPooling:updateOutput(input)
  cu.checkPoolInput(self, input)
  -- Indices stay a LongTensor on the input's device whatever type() did to the module (and files
  -- without them load).
  self.indices = nn.utils.longBuffer(self.indices, input)
  check(C.tocha_max_pool2d_out(self.output.p, self.indices.p, input.p, cu.poolOptions(self), 1))
  return self.output
end

function SpatialMaxPooling:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  cu.checkPoolGradOutput(self, gradOutput, input)
  local sizes, n = cu.sizes(input)
  -- the windows the indices came from (they are this module's own): CUDA gathers per input element
  check(C.tocha_max_pool2d_backward_out(self.gradInput.p, gradOutput.p, self.indices.p, n, sizes, 1,
    cu.poolOptions(self)))
  return self.gradInput
end

function SpatialMaxPooling:clearState()
  if self.indices then self.indices = torch.LongTensor() end
  return parent.clearState(self)
end

function SpatialMaxPooling:__tostring__()
  local s = string.format('%s(%dx%d, %d,%d', torch.typename(self), self.kW, self.kH, self.dW, self.dH)
  if (self.padW or 0) ~= 0 or (self.padH or 0) ~= 0 then s = s .. ', ' .. self.padW .. ',' .. self.padH end
  return s .. ')'
end

return SpatialMaxPooling
