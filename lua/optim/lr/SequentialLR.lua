-- optim.lr.SequentialLR: PyTorch's SequentialLR, a list of schedules of one optimizer or config
-- table taking turns: the k-th runs from milestone k-1 on, restarted at its epoch 0.
require 'optim.lr.ChainedScheduler'
local SequentialLR = torch.class('optim.lr.SequentialLR', 'optim.lr.ChainedScheduler')
local Chained = optim.lr.ChainedScheduler
local lib = require 'torch.lib'

-- Note [SequentialLR restarts]: as PyTorch 1.13 does, the constructor puts the rates back to the
-- initial ones (undoing what the sub-schedules' constructors set) and applies the first
-- schedule's epoch 0; at a milestone the next schedule is restarted with step(0), its closed form
-- at epoch 0 (so ExponentialLR starts again at the initial rate, not at the rate the previous
-- schedule left: PyTorch's documented example of ConstantLR then ExponentialLR claims 0.9 at the
-- milestone, 1.13 prints 1.0); between milestones the current schedule steps as it would alone.
-- MultiplicativeLR and SWALR restart at their closed form too, where PyTorch keeps the current rate.

--- optim.lr.SequentialLR(target, {schedulers=, milestones=}): runs schedulers[1] until
--- milestones[1], then schedulers[2] from its epoch 0, and so on (#milestones = #schedulers - 1,
--- increasing positive integers); every schedule must be built on target.
--- Example: local c = {learningRate = 0.1}; local s = optim.lr.SequentialLR(c, {schedulers = {optim.lr.LinearLR(c, {totalIters = 2}), optim.lr.ExponentialLR(c, {gamma = 0.9})}, milestones = {2}}); s:step()
function SequentialLR:__init(target, options)
  local name = 'optim.lr.SequentialLR'
  if type(options) ~= 'table' then lib.fail(name, 'options must be a table {schedulers=, milestones=}, got %s', type(options)) end
  for k in pairs(options) do
    if k ~= 'schedulers' and k ~= 'milestones' then lib.fail(name, 'unknown option %s', tostring(k)) end
  end
  local list, ms = options.schedulers, options.milestones
  Chained._adopt(self, name, list, 'schedulers')
  local probe = { _name = name }
  optim.lr.Scheduler._bind(probe, target)
  for i = 1, math.max(#probe._groups, #self._groups) do
    if probe._groups[i] ~= self._groups[i] or probe._key ~= self._key then
      lib.fail(name, 'the schedulers drive another optimizer or config table than the target')
    end
  end
  if type(ms) ~= 'table' then lib.fail(name, 'milestones must be a list of integers, got %s', type(ms)) end
  if #ms ~= #list - 1 then
    lib.fail(name, 'expects one milestone fewer than schedulers, got %d schedulers and %d milestones', #list, #ms)
  end
  for k, m in ipairs(ms) do
    if type(m) ~= 'number' or m < 1 or m ~= math.floor(m) then
      lib.fail(name, 'milestones[%d] must be a positive integer, got %s', k, tostring(m))
    end
    if k > 1 and m <= ms[k - 1] then
      lib.fail(name, 'milestones must be increasing, got %s after %s', tostring(m), tostring(ms[k - 1]))
    end
  end
  self.milestones = {}
  for k, m in ipairs(ms) do self.milestones[k] = m end
  Chained._shareBases(self)
  self:_restart(1)
end

-- Restarts schedule k at its epoch 0: the closed form of epoch 0 from the initial rates.
function SequentialLR:_restart(k)
  local s = self._schedulers[k]
  s.lastEpoch = 0
  for i, g in ipairs(self._groups) do g[self._key] = s:lrAt(0, i) end
  if s.lastLrs then s.lastLrs = self:getLastLr() end
end

--- sched:step(): steps the schedule whose turn it is, restarting the next one at a milestone.
function SequentialLR:step()
  self.lastEpoch = self.lastEpoch + 1
  local k = 1
  while k <= #self.milestones and self.milestones[k] <= self.lastEpoch do k = k + 1 end
  if k > 1 and self.milestones[k - 1] == self.lastEpoch then return self:_restart(k) end
  self._schedulers[k]:step()
end

return SequentialLR
