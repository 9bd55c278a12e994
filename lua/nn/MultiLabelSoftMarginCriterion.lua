-- nn.MultiLabelSoftMarginCriterion([weights][, sizeAverage=true]): multi-label logistic loss of
-- scores x against 0/1 targets y: -sum w (y log sigmoid(x) + (1 - y) log(1 - sigmoid(x))), divided
-- by the element count when sizeAverage. Computed from the scores as w (softplus(x) - y x), which
-- stays finite where Torch7 clamped the probabilities at 1e-7. weights weigh the classes.
require 'nn.BCECriterion'
local MultiLabelSoftMarginCriterion, parent = torch.class('nn.MultiLabelSoftMarginCriterion', 'nn.Criterion')

--- nn.MultiLabelSoftMarginCriterion([weights, sizeAverage=true]).
function MultiLabelSoftMarginCriterion:__init(weights, sizeAverage)
  parent.__init(self)
  if weights ~= nil and (not torch.isTensor(weights) or weights:dim() ~= 1) then
    error('[nn.MultiLabelSoftMarginCriterion] weights must be a 1-D tensor, got ' .. nn.utils.describe(weights), torch._lib.user_level())
  end
  self.weights = weights
  self.sizeAverage = sizeAverage == nil and true or sizeAverage
end

-- The class weights broadcast to the input, as nn.BCECriterion does.
MultiLabelSoftMarginCriterion._weights = nn.BCECriterion._weights

function MultiLabelSoftMarginCriterion:updateOutput(input, target)
  target = nn.utils.targetAs(self, input, target)
  local w = self:_weights(input)
  -- softplus(x) = max(x, 0) + log1p(exp(-|x|))
  local l = torch.abs(nn.utils.buffer(self._l, input), input):neg():exp():log1p()
  self._l = l
  self._r = torch.relu(nn.utils.buffer(self._r, input), input)
  l:add(self._r):addcmul(-1, target, input)
  if w then l:cmul(w) end
  local s = l:sum()
  self.output = self.sizeAverage and s / input:nElement() or s
  return self.output
end

-- d/dx = w (sigmoid(x) - y).
function MultiLabelSoftMarginCriterion:updateGradInput(input, target)
  target = nn.utils.targetAs(self, input, target)
  local w = self:_weights(input)
  local norm = self.sizeAverage and 1 / input:nElement() or 1
  self.gradInput = torch.sigmoid(self.gradInput, input):add(-1, target):mul(norm)
  if w then self.gradInput:cmul(w) end
  return self.gradInput
end

return MultiLabelSoftMarginCriterion
