-- optim.lr.LinearWarmup: the rate grows linearly from startFactor*base to base over the first
-- warmupSteps steps, then stays there or follows another schedule.
local LinearWarmup, Scheduler = torch.class('optim.lr.LinearWarmup', 'optim.lr.Scheduler')
local lib = require 'torch.lib'

--- optim.lr.LinearWarmup(target, {warmupSteps=, startFactor=0, after=schedule}): lr = base *
--- (startFactor + (1 - startFactor) * epoch/warmupSteps) while epoch < warmupSteps; afterwards
--- base, or the rate of `after` (a schedule built on the same target, stepped by this one) at
--- epoch - warmupSteps.
function LinearWarmup:__init(target, options)
  local name = 'optim.lr.LinearWarmup'
  if type(options) ~= 'table' or options.warmupSteps == nil then lib.fail(name, 'options.warmupSteps is required') end
  local after = options.after
  if after ~= nil then
    if not torch.isTypeOf(after, 'optim.lr.Scheduler') or torch.isTypeOf(after, 'optim.lr.ReduceLROnPlateau') then
      lib.fail(name, 'after must be a schedule with a formula (not ReduceLROnPlateau), got %s', torch.typename(after) or type(after))
    end
  end
  Scheduler.__init(self, 'LinearWarmup', target, options,
                   { warmupSteps = 'count', startFactor = 'unitclosed', after = 'any' }, { startFactor = 0 })
end

function LinearWarmup:lrAt(epoch, i)
  local w = self.warmupSteps
  if epoch < w then return self.baseLrs[i] * (self.startFactor + (1 - self.startFactor) * epoch / w) end
  if self.after then return self.after:lrAt(epoch - w, i) end
  return self.baseLrs[i]
end

function LinearWarmup:_apply()
  if self.after then self.after.lastEpoch = math.max(0, self.lastEpoch - self.warmupSteps) end
  Scheduler._apply(self)
end

--- sched:state(): the warmup's progress, with the state of `after` nested.
function LinearWarmup:state()
  local after = self.after
  self.after = nil
  local s = Scheduler.state(self)
  self.after = after
  if after then s.afterState = after:state() end
  return s
end

--- sched:loadState(s): restores state(), including the schedule that follows the warmup.
function LinearWarmup:loadState(s)
  local after_state = type(s) == 'table' and s.afterState
  local copy = {}
  for k, v in pairs(type(s) == 'table' and s or {}) do if k ~= 'afterState' then copy[k] = v end end
  if after_state and self.after then
    for k, v in pairs(after_state) do if k ~= 'type' then self.after[k] = v end end
  end
  Scheduler.loadState(self, type(s) == 'table' and copy or s)
end
