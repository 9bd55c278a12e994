-- nn.AffineGridGeneratorBHWD(height, width): stnbhwd's grid generator for spatial transformer
-- networks (Torch7's package 'stn'): B x 2 x 3 affine matrices (or one 2 x 3) in, the B x height x
-- width x 2 sampling grid (height x width x 2 for one matrix) out, for nn.BilinearSamplerBHWD.
--
-- Note [BHWD coordinates]: stnbhwd's convention, not PyTorch's: each grid point is (y, x), y
-- first, normalized so that -1 and 1 are the centres of the first and last pixels (PyTorch's
-- alignCorners = true); the matrix maps the output pixel's (y, x, 1) to the input point it samples,
-- so the identity {{1, 0, 0}, {0, 1, 0}} samples the image unchanged. Built on
-- nn.functional.affineGrid (which works in (x, y)) with the matrix's rows and columns swapped;
-- backward is autograd's (Note [Modules and autograd]).
local lib = require 'torch.lib'
require 'nn.functional_grid'
local AGG, parent = torch.class('nn.AffineGridGeneratorBHWD', 'nn.Module')
local NAME = 'nn.AffineGridGeneratorBHWD'

function AGG:__init(height, width)
  parent.__init(self)
  for _, v in ipairs({ { 'height', height }, { 'width', width } }) do
    if type(v[2]) ~= 'number' or v[2] ~= math.floor(v[2]) or v[2] < 2 then
      lib.fail(NAME, 'expected %s to be an integer > 1, got %s', v[1], tostring(v[2]))
    end
  end
  self.height, self.width = height, width
end

local SWAP2 = { 2, 1 }
local SWAP3 = { 2, 1, 3 }

function AGG:updateOutput(input)
  local single = torch.isTensor(input) and input:dim() == 2
  local theta = single and input:view(1, 2, 3) or input
  if not torch.isTensor(theta) or theta:dim() ~= 3 or theta:size(2) ~= 2 or theta:size(3) ~= 3 then
    lib.fail(NAME, 'expected affine transform matrices B x 2 x 3 (or 2 x 3), got %s', nn.utils.describe(input))
  end
  nn.utils.checkFloatInput(self, input)
  local dev = theta:device()
  local swapped = theta:index(2, torch.LongTensor(SWAP2):to(dev)):index(3, torch.LongTensor(SWAP3):to(dev))
  local grid = nn.functional.affineGrid(swapped, { theta:size(1), 1, self.height, self.width }, { alignCorners = true })
  grid = grid:index(4, torch.LongTensor(SWAP2):to(dev))
  self.output = single and grid:view(self.height, self.width, 2) or grid
  return self.output
end

function AGG:__tostring__() return string.format('%s(%d, %d)', NAME, self.height, self.width) end

return AGG
