-- nn.ops: torchvision 0.14's torchvision.ops for Tocha, on Tocha's tensor ops (so CUDA and
-- autograd come with them): box utilities and IoUs (boxes.lua), box and focal losses
-- (losses.lua), non-maximum suppression (nms.lua), RoI pooling (roi.lua, roi_ps.lua,
-- poolers.lua) and the layers (layers.lua, fpn.lua). camelCase names of torchvision's
-- (box_iou -> boxIou); argument checks in util.lua.
require 'nn'
-- the namespace with rawset first: torch.class('nn.ops.X') would otherwise run nn's lazy __index
if rawget(nn, 'ops') == nil then rawset(nn, 'ops', {}) end
local ops = rawget(nn, 'ops')
for _, area in ipairs({ 'boxes', 'losses', 'nms', 'roi', 'roi_ps', 'poolers', 'layers', 'fpn' }) do
  if package.searchpath('nn.ops.' .. area, package.path) then require('nn.ops.' .. area) end
end
require 'nn.ops.deform_conv'  -- deformConv2d, DeformConv2d
require 'nn.ops.frozen_bn'  -- FrozenBatchNorm2d
return ops
