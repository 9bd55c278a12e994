-- nn.SpatialDivisiveNormalization([nInputPlane = 1] [, kernel = 9x9 ones] [, threshold = 1e-4]
-- [, thresval = 1e-4]): Torch7's local contrast scaling of C x H x W or N x C x H x W inputs: each
-- plane is divided by the local standard deviation, sqrt of the kernel-weighted sum of squares over
-- a neighbourhood and every plane, corrected at the borders like nn.SpatialSubtractiveNormalization;
-- a deviation at or below threshold is replaced by thresval. Built on differentiable ops.
require 'nn.SpatialSubtractiveNormalization'
local S = require 'nn.support'
local F = require 'nn.functional_pool'
local SSN = nn.SpatialSubtractiveNormalization
local SDN, parent = torch.class('nn.SpatialDivisiveNormalization', 'nn.Module')

function SDN:__init(nInputPlane, kernel, threshold, thresval)
  parent.__init(self)
  local name = 'nn.SpatialDivisiveNormalization'
  self.nInputPlane, kernel = SSN._checkKernel(name, nInputPlane, kernel)
  self.threshold = threshold or 1e-4
  self.thresval = thresval or 1e-4
  if type(self.threshold) ~= 'number' or type(self.thresval) ~= 'number' then
    F.init_error(name, 'threshold and thresval must be numbers, got %s and %s', S.describe(self.threshold),
      S.describe(self.thresval))
  end
  -- Torch7's normalization (a 1D kernel acts twice, hence the square root)
  local planes = kernel:dim() == 2 and self.nInputPlane or math.sqrt(self.nInputPlane)
  self.kernel = kernel:clone():div(kernel:sum() * planes)
end

function SDN:updateOutput(input)
  local x = SSN._input(self, input)
  local v = SSN._filter(self, torch.pow(x, 2), self.kernel)
  -- sqrt where the sum is positive only: its derivative at 0 would make the gradient NaN where
  -- the threshold already cuts it off
  local pos = v:gt(0)
  local std = torch.where(pos, torch.sqrt(torch.where(pos, v, 1)), 0)
  local adjusted = torch.cdiv(std, SSN._coef(self, x, input))
  local thresholded = torch.where(adjusted:gt(self.threshold), adjusted, self.thresval)
  self.output = torch.cdiv(x, thresholded):viewAs(input)
  return self.output
end

-- coef is a view of the cached _coef1 (which Module:clearState empties).
function SDN:clearState() return parent.clearState(self, 'coef') end

return SDN
