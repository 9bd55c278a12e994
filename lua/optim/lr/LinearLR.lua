-- optim.lr.LinearLR: PyTorch's LinearLR, the rate scaled by a factor moving linearly from
-- startFactor to endFactor over totalIters steps, with PyTorch 1.13's recursive (chainable) rule:
-- each step rescales the current rate, so it composes with other schedules (ChainedScheduler).
local LinearLR, Scheduler = torch.class('optim.lr.LinearLR', 'optim.lr.Scheduler')
local lib = require 'torch.lib'

-- Note [Chainable schedules]: PyTorch's ConstantLR and LinearLR multiply the group's current rate
-- by the ratio of consecutive factors instead of setting base * factor, so a change made by
-- another schedule in between is kept. sched:_recur(lr, epoch, i) is that rule (the new rate from
-- the current one); lrAt is the closed form, used by SequentialLR's restart at a milestone. Like
-- SWALR, re-applying a step is not idempotent, so loadState restores the rates set last (lastLrs).

--- optim.lr.LinearLR(target, {startFactor=1/3, endFactor=1, totalIters=5}): lr = base * (startFactor
--- + (endFactor - startFactor) * min(epoch, totalIters) / totalIters), computed as PyTorch does
--- from the current rate at each step; startFactor in (0, 1], endFactor in [0, 1].
--- Example: local c = {learningRate = 0.1}; local s = optim.lr.LinearLR(c, {startFactor = 0.25, totalIters = 4}); s:step()
function LinearLR:__init(target, options)
  local name = 'optim.lr.LinearLR'
  if options ~= nil and type(options) ~= 'table' then lib.fail(name, 'options must be a table, got %s', type(options)) end
  local s = options and options.startFactor
  if s ~= nil and not (type(s) == 'number' and s > 0 and s <= 1) then
    lib.fail(name, 'startFactor must be a number in (0, 1], got %s', tostring(s))
  end
  Scheduler.__init(self, 'LinearLR', target, options,
                   { startFactor = 'any', endFactor = 'unitclosed', totalIters = 'count' },
                   { startFactor = 1 / 3, endFactor = 1, totalIters = 5 })
end

function LinearLR:lrAt(epoch, i)
  local s, e, n = self.startFactor, self.endFactor, self.totalIters
  return self.baseLrs[i] * (s + (e - s) * math.min(n, epoch) / n)
end

-- PyTorch 1.13's LinearLR.get_lr.
function LinearLR:_recur(lr, epoch)
  local s, e, n = self.startFactor, self.endFactor, self.totalIters
  if epoch == 0 then return lr * s end
  if epoch > n then return lr end
  return lr * (1 + (e - s) / (n * s + (epoch - 1) * (e - s)))
end

function LinearLR:_apply()
  self.lastLrs = {}
  for i, g in ipairs(self._groups) do
    g[self._key] = self:_recur(g[self._key], self.lastEpoch, i)
    self.lastLrs[i] = g[self._key]
  end
end

--- sched:loadState(s): restores state() and the rates the schedule set last (Note [Chainable schedules]).
function LinearLR:loadState(s) self:_loadStateAndRates(s) end

return LinearLR
