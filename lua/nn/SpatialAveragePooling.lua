-- nn.SpatialAveragePooling(kW, kH [, dW = 1, dH = 1] [, padW = 0, padH = 0]): 2-D average pooling of
-- C x H x W or N x C x H x W inputs. As in Torch7 the zero padding counts in each window's divisor
-- (count_include_pad, :setCountIncludePad()) unless :setCountExcludePad(); :ceil() rounds output
-- sizes up (Note [Pooling output size]); divide = false (old files) gives window sums.
require 'nn.conv_utils'
local cu = nn.conv_utils
local C, check = cu.C, cu.check
local SpatialAveragePooling, parent = torch.class('nn.SpatialAveragePooling', 'nn.Module')

function SpatialAveragePooling:__init(kW, kH, dW, dH, padW, padH)
  parent.__init(self)
  cu.initPool2d(self, kW, kH, dW or 1, dH or 1, padW, padH)
  self.ceil_mode = false
  self.count_include_pad = true
  self.divide = true
end

--- m:ceil(): output sizes round up (returns m).
function SpatialAveragePooling:ceil()
  self.ceil_mode = true
  return self
end

--- m:floor(): output sizes round down, the default (returns m).
function SpatialAveragePooling:floor()
  self.ceil_mode = false
  return self
end

--- m:setCountIncludePad(): the padding counts in each window's divisor, the default (returns m).
function SpatialAveragePooling:setCountIncludePad()
  self.count_include_pad = true
  return self
end

--- m:setCountExcludePad(): divide by the number of input elements in each window (returns m).
function SpatialAveragePooling:setCountExcludePad()
  self.count_include_pad = false
  return self
end

-- Files from before ceil mode and padding existed (Torch7's backwardCompatible).
local function upgrade(self)
  if self.ceil_mode == nil then
    self.ceil_mode, self.count_include_pad = false, true
    self.padW, self.padH = self.padW or 0, self.padH or 0
  end
end

function SpatialAveragePooling:updateOutput(input)
  upgrade(self)
  cu.checkPoolInput(self, input)
  check(C.tocha_avg_pool2d_out(self.output.p, input.p, cu.poolOptions(self)))
  if self.divide == false then self.output:mul(self.kW * self.kH) end
  return self.output
end

function SpatialAveragePooling:updateGradInput(input, gradOutput)
  if not self.gradInput then return end
  cu.checkPoolGradOutput(self, gradOutput, input)
  local sizes, n = cu.sizes(input)
  check(C.tocha_avg_pool2d_backward_out(self.gradInput.p, gradOutput.p, n, sizes, cu.poolOptions(self)))
  if self.divide == false then self.gradInput:mul(self.kW * self.kH) end
  return self.gradInput
end

function SpatialAveragePooling:__tostring__()
  local s = string.format('%s(%dx%d, %d,%d', torch.typename(self), self.kW, self.kH, self.dW, self.dH)
  if (self.padW or 0) ~= 0 or (self.padH or 0) ~= 0 then s = s .. ', ' .. self.padW .. ',' .. self.padH end
  return s .. ')'
end

return SpatialAveragePooling
