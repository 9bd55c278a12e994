-- nn.SpatialClassNLLCriterion([weights][, sizeAverage=true]): ClassNLLCriterion over every pixel
-- of N x C x H x W log-probabilities with N x H x W class targets (1-based), weighted per class and
-- averaged over the total target weight (Torch7's THNN). Runs the fused nllLoss op on the input
-- viewed as (N H W) x C rows (a permute and a reshape, exact: the same sum), so it is one autograd
-- node and runs on CUDA. ignoreIndex (-100) comes from nn.ClassNLLCriterion.
local S = require 'nn.support'
require 'nn.ClassNLLCriterion'
local SpatialClassNLLCriterion, parent = torch.class('nn.SpatialClassNLLCriterion', 'nn.ClassNLLCriterion')

--- nn.SpatialClassNLLCriterion([weights, sizeAverage=true]).
function SpatialClassNLLCriterion:__init(weights, sizeAverage)
  if weights ~= nil and (not torch.isTensor(weights) or weights:dim() ~= 1) then
    error('[nn.SpatialClassNLLCriterion] weights must be a 1-D tensor, got ' .. S.describe(weights), torch._lib.user_level())
  end
  parent.__init(self, weights, sizeAverage)
end

--- #crit: the number of class weights (0 without weights), as Torch7.
function SpatialClassNLLCriterion:__len()
  return self.weights and self.weights:nElement() or 0
end

-- The input as (N H W) x C rows and the target as N H W classes, after checking their sizes.
local function rows(self, input, target)
  if not torch.isTensor(input) or not nn.utils.isFloating(input) or input:dim() ~= 4 then
    S.fail(tostring(self), 'expected N x C x H x W log-probabilities, got %s', S.describe(input))
  end
  local N, C, H, W = input:size(1), input:size(2), input:size(3), input:size(4)
  if not torch.isTensor(target) or target:dim() ~= 3 or target:size(1) ~= N or target:size(2) ~= H
      or target:size(3) ~= W then
    S.fail(tostring(self), 'input is %s, expected a target of size %dx%dx%d, got %s', S.describe(input), N, H, W,
      S.describe(target))
  end
  return input:permute(1, 3, 4, 2):reshape(N * H * W, C), target:reshape(N * H * W)
end

function SpatialClassNLLCriterion:updateOutput(input, target)
  local x, t = rows(self, input, target)
  return parent.updateOutput(self, x, t)
end

function SpatialClassNLLCriterion:updateGradInput(input, target)
  local x, t = rows(self, input, target)
  self.gradInput = self._rows_grad
  local g = parent.updateGradInput(self, x, t)
  self._rows_grad = g
  local N, C, H, W = input:size(1), input:size(2), input:size(3), input:size(4)
  self.gradInput = g:view(N, H, W, C):permute(1, 4, 2, 3):contiguous()
  return self.gradInput
end

-- The autograd form: the fused op on the permuted view, differentiated through the view.
function SpatialClassNLLCriterion:loss(input, target)
  local x, t = rows(self, input, target)
  return parent.loss(self, x, t)
end

return SpatialClassNLLCriterion
