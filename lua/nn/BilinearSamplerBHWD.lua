-- nn.BilinearSamplerBHWD(): stnbhwd's bilinear sampler for spatial transformer networks (Torch7's
-- package 'stn'): input {images, grids}, images B x H x W x D (channels last), grids B x H' x W' x 2
-- of (y, x) points (nn.AffineGridGeneratorBHWD's, Note [BHWD coordinates]); output B x H' x W' x D,
-- each point bilinearly interpolated, the corners falling outside the image counting as zeros
-- (stnbhwd's rule). A 3-D image with a 3-D grid is one sample. Built on
-- nn.functional.gridSample (alignCorners = true, paddingMode = 'zeros') with the layout permuted
-- and the grid's coordinates swapped to (x, y); backward (to images and grids) is autograd's.
local lib = require 'torch.lib'
require 'nn.functional_grid'
local BS, parent = torch.class('nn.BilinearSamplerBHWD', 'nn.Module')
local NAME = 'nn.BilinearSamplerBHWD'

function BS:__init()
  parent.__init(self)
end

function BS:updateOutput(input)
  if type(input) ~= 'table' or torch.isTensor(input) or not torch.isTensor(input[1]) or not torch.isTensor(input[2]) then
    lib.fail(NAME, 'expected a table {images, grids} of two tensors, got %s', nn.utils.describe(input))
  end
  local img, grid = input[1], input[2]
  local single = img:dim() == 3
  if single then img, grid = img:unsqueeze(1), grid:dim() == 3 and grid:unsqueeze(1) or grid end
  if img:dim() ~= 4 or grid:dim() ~= 4 or grid:size(4) ~= 2 or grid:size(1) ~= img:size(1) then
    lib.fail(NAME, 'expected images B x H x W x D and grids B x H\' x W\' x 2 (the same B), got %s and %s',
      nn.utils.describe(input[1]), nn.utils.describe(input[2]))
  end
  nn.utils.checkFloatInput(self, img)
  if grid:type() ~= img:type() then
    lib.fail(NAME, 'images are %s but grids are %s', img:type(), grid:type())
  end
  local xy = grid:index(4, torch.LongTensor({ 2, 1 }):to(grid:device()))
  local out = nn.functional.gridSample(img:permute(1, 4, 2, 3), xy, { alignCorners = true, paddingMode = 'zeros' })
  out = out:permute(1, 3, 4, 2):contiguous()
  self.output = single and out[1] or out
  return self.output
end

function BS:__tostring__() return NAME end

return BS
