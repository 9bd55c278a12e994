-- optim.lr.StepLR: the rate times gamma every stepSize epochs.
local StepLR, Scheduler = torch.class('optim.lr.StepLR', 'optim.lr.Scheduler')
local lib = require 'torch.lib'

--- optim.lr.StepLR(target, {stepSize=, gamma=0.1}): lr = base * gamma^floor(epoch/stepSize);
--- target is an optimizer object or a functional config table.
function StepLR:__init(target, options)
  if type(options) ~= 'table' or options.stepSize == nil then lib.fail('optim.lr.StepLR', 'options.stepSize is required') end
  Scheduler.__init(self, 'StepLR', target, options, { stepSize = 'count', gamma = 'nonneg' }, { gamma = 0.1 })
end

function StepLR:lrAt(epoch, i)
  return self.baseLrs[i] * self.gamma ^ math.floor(epoch / self.stepSize)
end
