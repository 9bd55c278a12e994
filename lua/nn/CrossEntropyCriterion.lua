-- nn.CrossEntropyCriterion([weights][, sizeAverage]): LogSoftMax followed by ClassNLLCriterion.
local CrossEntropyCriterion, parent = torch.class('nn.CrossEntropyCriterion', 'nn.Criterion')

function CrossEntropyCriterion:__init(weights, sizeAverage)
  parent.__init(self)
  self.lsm = nn.LogSoftMax()
  self.nll = nn.ClassNLLCriterion(weights, sizeAverage)
end

function CrossEntropyCriterion:updateOutput(input, target)
  local x = input:dim() == 1 and input:view(1, -1) or input
  self.lsm:updateOutput(x)
  self.output = self.nll:updateOutput(self.lsm.output, target)
  return self.output
end

function CrossEntropyCriterion:updateGradInput(input, target)
  local x = input:dim() == 1 and input:view(1, -1) or input
  self.nll:updateGradInput(self.lsm.output, target)
  self.lsm:updateGradInput(x, self.nll.gradInput)
  self.gradInput = self.lsm.gradInput:viewAs(input)
  return self.gradInput
end

return CrossEntropyCriterion
