-- nn.CrossEntropyCriterion([weights][, sizeAverage][, ignoreIndex]): nn.LogSoftMax followed by
-- nn.ClassNLLCriterion, computed by the fused crossEntropy op in one pass over the scores.
require 'nn.ClassNLLCriterion'
local CrossEntropyCriterion, parent = torch.class('nn.CrossEntropyCriterion', 'nn.ClassNLLCriterion')

--- nn.CrossEntropyCriterion([weights, sizeAverage=true, ignoreIndex=-100]).
function CrossEntropyCriterion:__init(weights, sizeAverage, ignoreIndex)
  parent.__init(self, weights, sizeAverage, ignoreIndex)
end

CrossEntropyCriterion._op = 'crossEntropy'

return CrossEntropyCriterion
