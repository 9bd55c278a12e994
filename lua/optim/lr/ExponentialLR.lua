-- optim.lr.ExponentialLR: the rate times gamma every epoch.
local ExponentialLR, Scheduler = torch.class('optim.lr.ExponentialLR', 'optim.lr.Scheduler')
local lib = require 'torch.lib'

--- optim.lr.ExponentialLR(target, {gamma=}): lr = base * gamma^epoch.
function ExponentialLR:__init(target, options)
  if type(options) ~= 'table' or options.gamma == nil then lib.fail('optim.lr.ExponentialLR', 'options.gamma is required') end
  Scheduler.__init(self, 'ExponentialLR', target, options, { gamma = 'nonneg' })
end

function ExponentialLR:lrAt(epoch, i) return self.baseLrs[i] * self.gamma ^ epoch end

-- PyTorch 1.13's ExponentialLR.get_lr (Note [Back-to-back schedules] in Scheduler.lua).
function ExponentialLR:_recur(lr, epoch)
  if epoch == 0 then return lr end
  return lr * self.gamma
end
ExponentialLR._apply = Scheduler._recurApply

--- sched:loadState(s): restores state() and the rates the schedule set last.
--- Example: local o = optim.SGD(torch.zeros(2), {lr = 0.1}); local s = optim.lr.ExponentialLR(o, {gamma = 0.9}); s:loadState(s:state())
function ExponentialLR:loadState(s) self:_loadStateAndRates(s) end
