-- nn.SpatialContrastiveNormalization([nInputPlane = 1] [, kernel = 9x9 ones] [, threshold = 1e-4]
-- [, thresval = 1e-4]): Torch7's nn.SpatialSubtractiveNormalization followed by
-- nn.SpatialDivisiveNormalization with the same kernel, held in m.normalizer (an nn.Sequential).
require 'nn.SpatialSubtractiveNormalization'
require 'nn.SpatialDivisiveNormalization'
local S = require 'nn.support'
local F = require 'nn.functional_pool'
local SCN, parent = torch.class('nn.SpatialContrastiveNormalization', 'nn.Module')

function SCN:__init(nInputPlane, kernel, threshold, thresval)
  parent.__init(self)
  local name = 'nn.SpatialContrastiveNormalization'
  self.nInputPlane, self.kernel = nn.SpatialSubtractiveNormalization._checkKernel(name, nInputPlane, kernel)
  self.threshold = threshold or 1e-4
  self.thresval = thresval or 1e-4
  if type(self.threshold) ~= 'number' or type(self.thresval) ~= 'number' then
    F.init_error(name, 'threshold and thresval must be numbers, got %s and %s', S.describe(self.threshold),
      S.describe(self.thresval))
  end
  -- Torch7 passed self.threshval (nil) here, so its thresval was always the default
  self.normalizer = nn.Sequential()
    :add(nn.SpatialSubtractiveNormalization(self.nInputPlane, self.kernel))
    :add(nn.SpatialDivisiveNormalization(self.nInputPlane, self.kernel, self.threshold, self.thresval))
end

function SCN:updateOutput(input)
  nn.SpatialSubtractiveNormalization._input(self, input)  -- errors name this module
  self.output = self.normalizer:forward(input)
  return self.output
end

function SCN:clearState()
  self.normalizer:clearState()
  return parent.clearState(self)
end

return SCN
