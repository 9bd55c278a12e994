-- optim.lr.Scheduler: the base of the learning-rate schedules. A schedule drives either an
-- optimizer object (the lr of each parameter group) or a functional optimizer's config table
-- (its learningRate), so the same schedule serves optim.SGD and optim.sgd.
local lib = require 'torch.lib'
local cfg = require 'optim.config'

local Scheduler = torch.class('optim.lr.Scheduler')

--- Scheduler.__init(self, name, target, options, kinds, defaults): shared constructor: validates
--- options against kinds, records the base rates and applies the rate of epoch 0.
function Scheduler:__init(name, target, options, kinds, defaults)
  self._name = 'optim.lr.' .. name
  options = options or {}
  if type(options) ~= 'table' then lib.fail(self._name, 'options must be a table, got %s', type(options)) end
  for k, v in pairs(options) do
    local kind = kinds[k]
    if not kind then
      local hint = type(k) == 'string' and cfg.closest(k, kinds)
      lib.fail(self._name, 'unknown option %s%s', type(k) == 'string' and "'" .. k .. "'" or tostring(k),
               hint and " (did you mean '" .. hint .. "'?)" or '')
    end
    cfg.validate(self._name, k, kind, v)
  end
  for k, v in pairs(defaults or {}) do if options[k] == nil then options[k] = v end end
  for k, v in pairs(options) do self[k] = v end
  self:_bind(target)
  self.lastEpoch = 0
  self:_apply()
end

-- The tables whose rate the schedule sets: an optimizer's groups ('lr') or one config table
-- ('learningRate', which must be set: the schedule scales it).
function Scheduler:_bind(target)
  if type(target) ~= 'table' then
    lib.fail(self._name, 'expected an optimizer object or a functional config table, got %s', type(target))
  end
  if type(target.paramGroups) == 'table' then
    self._groups, self._key = target.paramGroups, 'lr'
  else
    if type(target.learningRate) ~= 'number' then
      lib.fail(self._name, 'the config table needs a learningRate for the schedule to scale')
    end
    self._groups, self._key = { target }, 'learningRate'
  end
  self.baseLrs = {}
  for i, g in ipairs(self._groups) do self.baseLrs[i] = g[self._key] end
end

-- Options given per group (CyclicLR's maxLr, OneCycleLR's, SWALR's swaLr, the momenta,
-- ReduceLROnPlateau's minLr) as a table need a value for every group: a shorter one failed on the
-- missing value (inside math.max for minLr, after reducing the groups before it) or printed the
-- table. Extra values are ignored, so one options table serves an optimizer and a config table.
function Scheduler:_checkPerGroup(v, what)
  if type(v) == 'table' and #v < #self._groups then
    lib.fail(self._name, '%s must be a number or one per group (%d), got %d values', what, #self._groups, #v)
  end
end

--- sched:lrAt(epoch, i): the rate of group i after `epoch` steps (each schedule's formula).
function Scheduler:lrAt(epoch, i) return self.baseLrs[i] end

function Scheduler:_apply()
  for i, g in ipairs(self._groups) do g[self._key] = self:lrAt(self.lastEpoch, i) end
end

-- Note [Back-to-back schedules]: PyTorch 1.13's StepLR, MultiStepLR, ExponentialLR,
-- CosineAnnealingLR, PolynomialLR, MultiplicativeLR (and ConstantLR, LinearLR) step by a recursive
-- rule that rescales the group's current rate, so two of them stepped one after the other on the
-- same optimizer compose (PyTorch's documented "chaining": ExponentialLR then MultiStepLR), and a
-- rate changed by hand between steps is kept. Those schedules here take that rule, sched:_recur(lr,
-- epoch, i), as their _apply (_recurApply); lrAt stays their closed form (SequentialLR restarts,
-- LinearWarmup's `after`). Setting base * factor instead made the last schedule stepped overwrite
-- the others. Re-applying a recursive step is not idempotent, so their loadState restores the
-- rates set last (lastLrs), as SWALR's does.
function Scheduler:_recurApply()
  self.lastLrs = {}
  for i, g in ipairs(self._groups) do
    g[self._key] = self:_recur(g[self._key], self.lastEpoch, i)
    self.lastLrs[i] = g[self._key]
  end
end

--- sched:step(): advances one epoch (or batch, as the schedule is used) and sets the new rates.
function Scheduler:step()
  self.lastEpoch = self.lastEpoch + 1
  self:_apply()
end

--- sched:getLastLr(): the rates the schedule set last, one per group.
function Scheduler:getLastLr()
  local r = {}
  for i, g in ipairs(self._groups) do r[i] = g[self._key] end
  return r
end

--- sched:state(): a plain table of the schedule's progress and options (not the optimizer).
function Scheduler:state()
  local s = { type = self._name }
  for k, v in pairs(self) do
    if type(k) == 'string' and k:sub(1, 1) ~= '_' and type(v) ~= 'function' then
      if type(v) == 'table' and not torch.typename(v) then
        local c = {}
        for i, x in pairs(v) do c[i] = x end
        v = c
      end
      if not torch.typename(v) then s[k] = v end
    end
  end
  return s
end

--- sched:loadState(s): restores state() of the same kind of schedule and re-applies its rates.
function Scheduler:loadState(s)
  self:_restoreFields(s)
  self:_apply()
end

-- Checks s is this kind of schedule's state and copies its fields in.
function Scheduler:_restoreFields(s)
  if type(s) ~= 'table' or s.type ~= self._name then
    lib.fail(self._name, 'loadState expects the state of a %s, got %s', self._name, type(s) == 'table' and tostring(s.type) or type(s))
  end
  for k, v in pairs(s) do if k ~= 'type' then self[k] = v end end
end

-- loadState for the schedules whose step rescales the current rate (SWALR, LinearLR...): re-applying
-- a step would move the rates again, so the rates set by the last step (lastLrs) are put back.
function Scheduler:_loadStateAndRates(s)
  self:_restoreFields(s)
  for i, g in ipairs(self._groups) do
    if self.lastLrs and self.lastLrs[i] then g[self._key] = self.lastLrs[i] end
  end
end
