-- nn.VolumetricUpSamplingNearest(scale): repeats every voxel of (C x T x H x W) or (N x C x T x H x W)
-- inputs scale x scale x scale times (an integer scale >= 1), giving T*scale x H*scale x W*scale volumes.
-- Built from views: the output copies an expanded view, the gradient sums the repeats back.
local F = require 'nn.functional_pool'
local S = require 'nn.support'
local VolumetricUpSamplingNearest, parent = torch.class('nn.VolumetricUpSamplingNearest', 'nn.Module')

function VolumetricUpSamplingNearest:__init(scale)
  parent.__init(self)
  if not S.isint(scale) or scale < 1 then
    F.init_error('nn.VolumetricUpSamplingNearest', 'scale_factor must be an integer >= 1, got %s', S.describe(scale))
  end
  self.scale_factor = scale
end

-- For input's size: the 8-D (7-D without batch) shape that splits each resampled dim into (size,
-- scale), the same with 1 for the scales (the input's view), and the output's size.
local function shapes(self, input)
  local s, n = self.scale_factor, input:dim()
  local split, ones, out = {}, {}, {}
  for d = 1, n do
    local v = input:size(d)
    split[#split + 1], ones[#ones + 1], out[d] = v, v, v
    if d > n - 3 then
      split[#split + 1], ones[#ones + 1], out[d] = s, 1, v * s
    end
  end
  return torch.LongStorage(split), torch.LongStorage(ones), out
end

function VolumetricUpSamplingNearest:updateOutput(input)
  F.check_input(self, input, 4, 'N x C x T x H x W')
  local split, ones, out = shapes(self, input)
  local y = F.buffer(self, 'output', input):resize(torch.LongStorage(out))
  y:view(split):copy(input:contiguous():view(ones):expand(split))
  return self.output
end

function VolumetricUpSamplingNearest:updateGradInput(input, gradOutput)
  F.check_input(self, input, 4, 'N x C x T x H x W')
  local split, _, out = shapes(self, input)
  S.gradLike(tostring(self), gradOutput, out)
  local n = #split
  local g = gradOutput:contiguous():view(split):sum(n):sum(n - 2):sum(n - 4)
  F.buffer(self, 'gradInput', gradOutput):resizeAs(input):copy(g:viewAs(input))
  return self.gradInput
end

function VolumetricUpSamplingNearest:__tostring__()
  return string.format('%s(%d)', torch.type(self), self.scale_factor)
end

return VolumetricUpSamplingNearest
