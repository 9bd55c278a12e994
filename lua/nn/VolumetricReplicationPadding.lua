-- nn.VolumetricReplicationPadding(pleft [, pright, ptop, pbottom, pfront, pback]): pads the last three
-- dims (T x H x W) of C x T x H x W or N x C x T x H x W inputs by repeating their border voxels
-- (missing pads default to pleft, as Torch7's); negative pads crop.
local F = require 'nn.functional_pool'
local S = require 'nn.support'
local VolumetricReplicationPadding, parent = torch.class('nn.VolumetricReplicationPadding', 'nn.Module')

local KEYS = { 'pleft', 'pright', 'ptop', 'pbottom', 'pfront', 'pback' }
local REPLICATE = 2  -- the pad op's mode

function VolumetricReplicationPadding:__init(pleft, pright, ptop, pbottom, pfront, pback)
  parent.__init(self)
  local given = { pleft, pright, ptop, pbottom, pfront, pback }
  for i, k in ipairs(KEYS) do
    local v = given[i]
    if v == nil and i > 1 then v = given[1] end
    if not S.isint(v) then
      F.init_error('nn.VolumetricReplicationPadding', '%s must be an integer, got %s', k, S.describe(v))
    end
    self[k] = v
  end
end

-- The pad op's order: from the last dim (W: left, right; H: top, bottom; T: front, back).
local function pads(self) return { self.pleft, self.pright, self.ptop, self.pbottom, self.pfront, self.pback } end

-- The output's sizes for input (a table), or an error when some would be < 1.
local function output_size(self, input)
  local n = input:dim()
  local size = input:size():totable()
  size[n - 2] = size[n - 2] + self.pfront + self.pback
  size[n - 1] = size[n - 1] + self.ptop + self.pbottom
  size[n] = size[n] + self.pleft + self.pright
  if size[n - 2] < 1 or size[n - 1] < 1 or size[n] < 1 or input:nElement() == 0 then
    F.fail(self, 'input of size %s is too small (the output would be %s)', S.sizestr(input), table.concat(size, 'x'))
  end
  return size
end

function VolumetricReplicationPadding:updateOutput(input)
  F.check_input(self, input, 4, 'N x C x T x H x W')
  output_size(self, input)
  F.call(self, F.pad, F.buffer(self, 'output', input), input, pads(self), REPLICATE, 0)
  return self.output
end

function VolumetricReplicationPadding:updateGradInput(input, gradOutput)
  F.check_input(self, input, 4, 'N x C x T x H x W')
  S.gradLike(tostring(self), gradOutput, output_size(self, input))
  F.call(self, F.padBackward, F.buffer(self, 'gradInput', gradOutput), gradOutput, input, pads(self), REPLICATE)
  return self.gradInput
end

function VolumetricReplicationPadding:__tostring__()
  return torch.type(self) .. string.format('(left=%d, right=%d, top=%d, bottom=%d, front=%d, back=%d)', self.pleft,
    self.pright, self.ptop, self.pbottom, self.pfront, self.pback)
end

return VolumetricReplicationPadding
