-- optim.lr.ChainedScheduler: PyTorch's ChainedScheduler, one step() that steps several schedules
-- of the same optimizer or config table in order, so chainable schedules compose multiplicatively.
-- Also owns what SequentialLR shares with it: checking the sub-schedules, their nested state.
local ChainedScheduler, Scheduler = torch.class('optim.lr.ChainedScheduler', 'optim.lr.Scheduler')
local lib = require 'torch.lib'

local function copy(t)
  local c = {}
  for i, v in ipairs(t) do c[i] = v end
  return c
end

-- Validates a list of schedules built on one target and gives the composite its groups.
-- Note [Initial rates of composites]: PyTorch's schedules take their base rates from the
-- group's initial_lr, recorded by the first schedule built on the optimizer, while Tocha's take
-- the rate at their construction, which an earlier chainable schedule may have scaled already
-- (LinearLR then CosineAnnealingLR). The composite gives every sub-schedule the base rates of the
-- first one, as PyTorch's constructors do.
function ChainedScheduler._adopt(self, name, list, what)
  self._name = name
  if type(list) ~= 'table' or #list == 0 then lib.fail(name, '%s must be a non-empty list of schedules, got %s', what, type(list)) end
  for k, s in ipairs(list) do
    if not torch.isTypeOf(s, 'optim.lr.Scheduler') or torch.isTypeOf(s, 'optim.lr.ReduceLROnPlateau')
        or torch.isTypeOf(s, 'optim.lr.ChainedScheduler') or torch.isTypeOf(s, 'optim.lr.SequentialLR') then
      lib.fail(name, '%s[%d] must be a schedule with a formula (not ReduceLROnPlateau or a composite), got %s',
               what, k, torch.typename(s) or type(s))
    end
    local a, b = list[1], s
    local same = #a._groups == #b._groups and a._key == b._key
    for i = 1, #a._groups do same = same and a._groups[i] == b._groups[i] end
    if not same then lib.fail(name, '%s[%d] drives another optimizer or config table than %s[1]', what, k, what) end
  end
  self._schedulers = copy(list)
  self._groups, self._key = list[1]._groups, list[1]._key
  self.lastEpoch = 0
end

-- Called once every check passed, so a refused composite leaves its schedules as they were.
function ChainedScheduler._shareBases(self)
  self.baseLrs = copy(self._schedulers[1].baseLrs)
  for _, s in ipairs(self._schedulers) do s.baseLrs = copy(self.baseLrs) end
end

-- One step of sub-schedule s in a chain: the chainable schedules step by PyTorch's recursive
-- rules, which move the current rate (Note [Back-to-back schedules] in Scheduler.lua); the others
-- (LambdaLR, OneCycleLR, CyclicLR, warm restarts) set theirs.
function ChainedScheduler._chainStep(s) return s:step() end

--- optim.lr.ChainedScheduler(schedules): steps every schedule of the list (built on the same
--- optimizer or config table) at each step(), in order; chainable ones (ConstantLR, LinearLR,
--- StepLR, MultiStepLR, ExponentialLR, CosineAnnealingLR, PolynomialLR, MultiplicativeLR) rescale
--- the current rate as PyTorch's recursive formulas do, so their factors multiply.
--- Example: local c = {learningRate = 0.1}; local s = optim.lr.ChainedScheduler({optim.lr.ConstantLR(c, {factor = 0.5}), optim.lr.ExponentialLR(c, {gamma = 0.9})}); s:step()
function ChainedScheduler:__init(schedulers)
  ChainedScheduler._adopt(self, 'optim.lr.ChainedScheduler', schedulers, 'schedulers')
  ChainedScheduler._shareBases(self)
end

--- sched:step(): steps every sub-schedule once.
function ChainedScheduler:step()
  self.lastEpoch = self.lastEpoch + 1
  for _, s in ipairs(self._schedulers) do ChainedScheduler._chainStep(s) end
end

--- sched:lrAt(epoch, i): not defined for a composite (its rates depend on the path).
function ChainedScheduler:lrAt()
  lib.fail(self._name, 'a composite schedule has no closed form (lrAt)')
end

--- sched:state(): the composite's progress, its rates and the state of every sub-schedule.
function ChainedScheduler:state()
  local s = { type = self._name, lastEpoch = self.lastEpoch, baseLrs = copy(self.baseLrs),
              lastLrs = self:getLastLr(), schedulerStates = {} }
  if self.milestones then s.milestones = copy(self.milestones) end
  for k, sub in ipairs(self._schedulers) do s.schedulerStates[k] = sub:state() end
  return s
end

--- sched:loadState(s): restores state() of the same composite: every sub-schedule, then the rates.
function ChainedScheduler:loadState(s)
  if type(s) ~= 'table' or s.type ~= self._name then
    lib.fail(self._name, 'loadState expects the state of a %s, got %s', self._name, type(s) == 'table' and tostring(s.type) or type(s))
  end
  if type(s.schedulerStates) ~= 'table' or #s.schedulerStates ~= #self._schedulers then
    lib.fail(self._name, 'loadState expects the states of %d schedules, got %s', #self._schedulers,
             type(s.schedulerStates) == 'table' and #s.schedulerStates or 'none')
  end
  for k, sub in ipairs(self._schedulers) do sub:loadState(s.schedulerStates[k]) end
  self.lastEpoch, self.baseLrs = s.lastEpoch, copy(s.baseLrs)
  if s.milestones then self.milestones = copy(s.milestones) end
  for i, g in ipairs(self._groups) do g[self._key] = s.lastLrs[i] end
end

return ChainedScheduler
