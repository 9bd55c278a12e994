-- nn.TimeDistributedCriterion(criterion[, sizeAverage=false]): the same as
-- nn.SequencerCriterion (a criterion applied at every step of a sequence), under the name other
-- libraries give it.
require 'nn.SequencerCriterion'
local TimeDistributedCriterion, parent = torch.class('nn.TimeDistributedCriterion', 'nn.SequencerCriterion')

--- nn.TimeDistributedCriterion(criterion[, sizeAverage=false]).
function TimeDistributedCriterion:__init(criterion, sizeAverage)
  parent.__init(self, criterion, sizeAverage)
end

return TimeDistributedCriterion
