-- nn.SpatialAutoCropMSECriterion([sizeAverage=true]): MSECriterion between a C x H x W (or
-- N x C x H x W) input and the centre crop of a target with at least the input's height and width
-- (Torch7). Torch7's updateGradInput compared against the uncropped target (an assertion error
-- whenever the target was larger); here both passes crop.
local S = require 'nn.support'
require 'nn.MSECriterion'
local SpatialAutoCropMSECriterion, parent = torch.class('nn.SpatialAutoCropMSECriterion', 'nn.MSECriterion')

--- nn.SpatialAutoCropMSECriterion([sizeAverage=true]).
function SpatialAutoCropMSECriterion:__init(sizeAverage)
  parent.__init(self, sizeAverage)
end

-- The target's centre crop to the input's height and width (a view), after checking both.
local function crop(self, input, target)
  nn.utils.checkFloatInput(self, input, 'a floating-point input tensor')
  if not torch.isTensor(target) or (input:dim() ~= 3 and input:dim() ~= 4) or target:dim() ~= input:dim() then
    S.fail(tostring(self), 'expected a C x H x W or N x C x H x W input and a target with as many dims, got %s and %s',
      S.describe(input), S.describe(target))
  end
  local d = input:dim()
  local h, w, th, tw = input:size(d - 1), input:size(d), target:size(d - 1), target:size(d)
  local same = true
  for i = 1, d - 2 do same = same and input:size(i) == target:size(i) end
  if not same or h > th or w > tw then
    S.fail(tostring(self), 'target %s must match input %s in its leading dims and be at least as high and wide',
      S.describe(target), S.describe(input))
  end
  local r0 = 1 + math.floor((th - h) / 2)
  local c0 = 1 + math.floor((tw - w) / 2)
  return target:narrow(d - 1, r0, h):narrow(d, c0, w)
end

function SpatialAutoCropMSECriterion:updateOutput(input, target)
  return parent.updateOutput(self, input, crop(self, input, target))
end

function SpatialAutoCropMSECriterion:updateGradInput(input, target)
  return parent.updateGradInput(self, input, crop(self, input, target))
end

return SpatialAutoCropMSECriterion
