-- optim.lr.SWALR (PyTorch's torch.optim.swa_utils.SWALR): anneals each group's rate to a constant
-- swaLr over annealEpochs steps, with a cosine or linear ramp, then holds it; used while an
-- optim.AveragedModel collects the weights (optim/swa.lua).
local SWALR, Scheduler = torch.class('optim.lr.SWALR', 'optim.lr.Scheduler')
local lib = require 'torch.lib'

local kinds = { swaLr = 'any', annealEpochs = 'any', annealStrategy = 'any' }

-- Note [SWALR anneals from the current rate]: like PyTorch, each step recovers the rate the ramp
-- started from out of the group's current rate and the previous step's alpha, so SWALR takes over
-- from whatever rate another schedule left (the usual recipe steps a cosine schedule until the
-- averaging starts, then SWALR) rather than from the rate at construction. Re-applying that
-- step is not idempotent, so loadState restores the rates SWALR set last (lastLrs).

--- optim.lr.SWALR(target, {swaLr=, annealEpochs=10, annealStrategy='cos'|'linear'}): at step k the
--- rate is swaLr * a + r0 * (1 - a), a = ramp(min(1, k / annealEpochs)) (ramp(t) = (1 - cos(pi t))/2
--- or t), r0 the rate when the ramp started; swaLr is a number or one per group.
--- Example: local c = {learningRate = 0.1}; local s = optim.lr.SWALR(c, {swaLr = 0.05, annealEpochs = 2}); s:step()
function SWALR:__init(target, options)
  local name = 'optim.lr.SWALR'
  if type(options) ~= 'table' or options.swaLr == nil then lib.fail(name, 'options.swaLr is required') end
  local s = options.annealStrategy
  if s ~= nil and s ~= 'cos' and s ~= 'linear' then lib.fail(name, "annealStrategy must be 'cos' or 'linear', got %s", tostring(s)) end
  local e = options.annealEpochs
  if e ~= nil and (type(e) ~= 'number' or e < 0 or e ~= math.floor(e)) then
    lib.fail(name, 'annealEpochs must be a non-negative integer, got %s', tostring(e))
  end
  Scheduler.__init(self, 'SWALR', target, options, kinds, { annealEpochs = 10, annealStrategy = 'cos' })
end

function SWALR:_bind(target)
  Scheduler._bind(self, target)
  local lrs = {}
  self:_checkPerGroup(self.swaLr, 'swaLr')
  for i = 1, #self._groups do
    local v = type(self.swaLr) == 'table' and self.swaLr[i] or self.swaLr
    if type(v) ~= 'number' or not (v >= 0) then
      lib.fail(self._name, 'swaLr must be a non-negative number (or one per group), got %s for group %d', tostring(v), i)
    end
    lrs[i] = v
  end
  self.swaLrs = lrs
end

function SWALR:_alpha(t)
  t = math.max(0, math.min(1, t / math.max(1, self.annealEpochs)))
  if self.annealStrategy == 'cos' then return (1 - math.cos(math.pi * t)) / 2 end
  return t
end

--- sched:lrAt(epoch, i): the rate of group i after `epoch` steps when nothing else changed it
--- (the closed form of the ramp from the rate at construction).
function SWALR:lrAt(epoch, i)
  if self.annealEpochs == 0 then epoch = math.max(1, epoch) end
  local a = self:_alpha(epoch)
  return self.swaLrs[i] * a + self.baseLrs[i] * (1 - a)
end

function SWALR:_apply()
  local step = self.lastEpoch
  if self.annealEpochs == 0 then step = math.max(1, step) end
  local prev, a = self:_alpha(step - 1), self:_alpha(step)
  self.lastLrs = {}
  for i, g in ipairs(self._groups) do
    local swaLr, lr = self.swaLrs[i], g[self._key]
    local start = prev == 1 and swaLr or (lr - prev * swaLr) / (1 - prev)
    g[self._key] = swaLr * a + start * (1 - a)
    self.lastLrs[i] = g[self._key]
  end
end

function SWALR:loadState(s) self:_loadStateAndRates(s) end

return SWALR
