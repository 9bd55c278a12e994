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

-- PyTorch 1.13's StepLR.get_lr (Note [Back-to-back schedules] in Scheduler.lua).
function StepLR:_recur(lr, epoch)
  if epoch == 0 or epoch % self.stepSize ~= 0 then return lr end
  return lr * self.gamma
end
StepLR._apply = Scheduler._recurApply

--- sched:loadState(s): restores state() and the rates the schedule set last.
--- Example: local o = optim.SGD(torch.zeros(2), {lr = 0.1}); local s = optim.lr.StepLR(o, {stepSize = 2}); s:loadState(s:state())
function StepLR:loadState(s) self:_loadStateAndRates(s) end
