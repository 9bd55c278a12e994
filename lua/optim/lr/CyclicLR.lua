-- optim.lr.CyclicLR (Smith 2017): the rate cycles between baseLr and maxLr, step by step (call
-- step() after each batch), in PyTorch's three policies or with a custom scale function.
local CyclicLR, Scheduler = torch.class('optim.lr.CyclicLR', 'optim.lr.Scheduler')
local lib = require 'torch.lib'
local momentum = require 'optim.lr.momentum'

local kinds = { baseLr = 'any', maxLr = 'any', stepSizeUp = 'count', stepSizeDown = 'count', mode = 'any',
                gamma = 'positive', scaleFn = 'function', scaleMode = 'any', cycleMomentum = 'boolean',
                baseMomentum = 'any', maxMomentum = 'any' }
local modes = { triangular = true, triangular2 = true, expRange = true }

--- optim.lr.CyclicLR(target, {baseLr=, maxLr=, stepSizeUp=2000, stepSizeDown=stepSizeUp,
--- mode='triangular', gamma=1, scaleFn=, scaleMode='cycle', cycleMomentum=, baseMomentum=0.8,
--- maxMomentum=0.9}): each cycle climbs linearly from
--- baseLr to maxLr in stepSizeUp steps and back in stepSizeDown; the amplitude is scaled per cycle
--- by 1 ('triangular'), 1/2^(cycle-1) ('triangular2'), or gamma^step ('expRange'), or by scaleFn
--- of the cycle (scaleMode 'cycle') or step ('iterations'). baseLr and maxLr are numbers or one per
--- group; the groups' rates are set to baseLr at once (PyTorch). The momentum (or Adam's beta1)
--- cycles the other way, from maxMomentum down to baseMomentum at the peak rate; cycleMomentum
--- defaults to whether every group has one (Note [Default momentum cycling], optim/lr/momentum.lua).
function CyclicLR:__init(target, options)
  local name = 'optim.lr.CyclicLR'
  if type(options) ~= 'table' or options.baseLr == nil or options.maxLr == nil then
    lib.fail(name, 'options.baseLr and options.maxLr are required')
  end
  local mode = options.mode or 'triangular'
  if options.scaleFn == nil and not modes[mode] then
    lib.fail(name, "mode must be 'triangular', 'triangular2' or 'expRange', got %s", tostring(mode))
  end
  local sm = options.scaleMode
  if sm ~= nil and sm ~= 'cycle' and sm ~= 'iterations' then
    lib.fail(name, "scaleMode must be 'cycle' or 'iterations', got %s", tostring(sm))
  end
  Scheduler.__init(self, 'CyclicLR', target, options, kinds, { stepSizeUp = 2000, mode = 'triangular', gamma = 1 })
  self.stepSizeDown = self.stepSizeDown or self.stepSizeUp
  if not self.scaleFn then self.scaleMode = mode == 'expRange' and 'iterations' or 'cycle'
  else self.scaleMode = self.scaleMode or 'cycle' end
  local function per_group(v, what)
    self:_checkPerGroup(v, what)
    local t = {}
    for i = 1, #self._groups do
      local x = type(v) == 'table' and v[i] or v
      if type(x) ~= 'number' or x < 0 then
        lib.fail(name, '%s must be a non-negative number or one per group (%d), got %s', what, #self._groups, tostring(x))
      end
      t[i] = x
    end
    return t
  end
  self._base, self._max = per_group(self.baseLr, 'baseLr'), per_group(self.maxLr, 'maxLr')
  self.baseLrs = self._base
  momentum.bind(self, 0.8, 0.9)
  self:_apply()
end

function CyclicLR:_scale(cycle, epoch)
  if self.scaleFn then return self.scaleFn(self.scaleMode == 'cycle' and cycle or epoch) end
  if self.mode == 'triangular2' then return 1 / 2 ^ (cycle - 1) end
  if self.mode == 'expRange' then return self.gamma ^ epoch end
  return 1
end

-- The height reached in the current cycle, in [0, 1] before the scale, and the scale.
function CyclicLR:_height(epoch)
  local total = self.stepSizeUp + self.stepSizeDown
  local ratio = self.stepSizeUp / total
  local cycle = math.floor(1 + epoch / total)
  local x = 1 + epoch / total - cycle
  local f = x <= ratio and x / ratio or (x - 1) / (ratio - 1)
  return f * self:_scale(cycle, epoch)
end

function CyclicLR:lrAt(epoch, i)
  if not self._base then return self.baseLrs[i] end  -- during the base constructor
  return self._base[i] + (self._max[i] - self._base[i]) * self:_height(epoch)
end

--- sched:momentumAt(epoch, i): group i's momentum after `epoch` steps (when it cycles).
function CyclicLR:momentumAt(epoch, i)
  return self.maxMomentums[i] - (self.maxMomentums[i] - self.baseMomentums[i]) * self:_height(epoch)
end

function CyclicLR:_apply()
  Scheduler._apply(self)
  if self._base then momentum.apply(self, self.lastEpoch) end
end

--- sched:getLastMomentum(): the momenta the schedule set last, one per group (nil when it does not cycle them).
function CyclicLR:getLastMomentum() return momentum.get(self) end
