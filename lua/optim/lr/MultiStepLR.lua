-- optim.lr.MultiStepLR: the rate times gamma at each milestone epoch.
local MultiStepLR, Scheduler = torch.class('optim.lr.MultiStepLR', 'optim.lr.Scheduler')
local lib = require 'torch.lib'

--- optim.lr.MultiStepLR(target, {milestones={...}, gamma=0.1}): lr = base * gamma^(number of
--- milestones <= epoch); milestones are increasing positive integers.
function MultiStepLR:__init(target, options)
  local m = type(options) == 'table' and options.milestones
  if type(m) ~= 'table' or #m == 0 then lib.fail('optim.lr.MultiStepLR', 'options.milestones must be a non-empty list of epochs') end
  for i, e in ipairs(m) do
    if type(e) ~= 'number' or e < 1 or e ~= math.floor(e) or (i > 1 and e <= m[i - 1]) then
      lib.fail('optim.lr.MultiStepLR', 'milestones must be increasing positive integers, got %s at %d', tostring(e), i)
    end
  end
  Scheduler.__init(self, 'MultiStepLR', target, options, { milestones = 'table', gamma = 'nonneg' }, { gamma = 0.1 })
end

function MultiStepLR:lrAt(epoch, i)
  local n = 0
  for _, e in ipairs(self.milestones) do if e <= epoch then n = n + 1 end end
  return self.baseLrs[i] * self.gamma ^ n
end

-- PyTorch 1.13's MultiStepLR.get_lr (Note [Back-to-back schedules] in Scheduler.lua).
function MultiStepLR:_recur(lr, epoch)
  for _, e in ipairs(self.milestones) do if e == epoch then return lr * self.gamma end end
  return lr
end
MultiStepLR._apply = Scheduler._recurApply

--- sched:loadState(s): restores state() and the rates the schedule set last.
--- Example: local o = optim.SGD(torch.zeros(2), {lr = 0.1}); local s = optim.lr.MultiStepLR(o, {milestones = {2}}); s:loadState(s:state())
function MultiStepLR:loadState(s) self:_loadStateAndRates(s) end
