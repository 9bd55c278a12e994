-- optim.lr.OneCycleLR (Smith's 1cycle policy, PyTorch's OneCycleLR): the rate rises from
-- maxLr/divFactor to maxLr, then anneals to a much smaller final rate, while the momentum goes the
-- other way between maxMomentum and baseMomentum (optim/lr/momentum.lua).
local OneCycleLR, Scheduler = torch.class('optim.lr.OneCycleLR', 'optim.lr.Scheduler')
local lib = require 'torch.lib'
local momentum = require 'optim.lr.momentum'

local kinds = { maxLr = 'any', totalSteps = 'count', epochs = 'count', stepsPerEpoch = 'count', pctStart = 'unit',
                annealStrategy = 'any', divFactor = 'positive', finalDivFactor = 'positive', threePhase = 'boolean',
                cycleMomentum = 'boolean', baseMomentum = 'any', maxMomentum = 'any' }

--- optim.lr.OneCycleLR(target, {maxLr=, totalSteps= (or epochs= and stepsPerEpoch=), pctStart=0.3,
--- annealStrategy='cos'|'linear', divFactor=25, finalDivFactor=1e4, threePhase=false,
--- cycleMomentum=, baseMomentum=0.85, maxMomentum=0.95}): step it after every batch. maxLr is a
--- number or one per group. Stepping more than totalSteps times is an error. The momentum (or Adam's beta1)
--- falls from maxMomentum to baseMomentum while the rate rises, and climbs back while it anneals;
--- cycleMomentum defaults to whether every group has one (Note [Default momentum cycling]).
function OneCycleLR:__init(target, options)
  local name = 'optim.lr.OneCycleLR'
  if type(options) ~= 'table' or options.maxLr == nil then lib.fail(name, 'options.maxLr is required') end
  if options.totalSteps == nil and not (options.epochs and options.stepsPerEpoch) then
    lib.fail(name, 'give options.totalSteps, or options.epochs and options.stepsPerEpoch')
  end
  local s = options.annealStrategy
  if s ~= nil and s ~= 'cos' and s ~= 'linear' then lib.fail(name, "annealStrategy must be 'cos' or 'linear', got %s", tostring(s)) end
  Scheduler.__init(self, 'OneCycleLR', target, options, kinds,
                   { pctStart = 0.3, annealStrategy = 'cos', divFactor = 25, finalDivFactor = 1e4, threePhase = false })
end

function OneCycleLR:_bind(target)
  Scheduler._bind(self, target)
  local name = self._name
  self.totalSteps = self.totalSteps or self.epochs * self.stepsPerEpoch
  local maxLrs = {}
  self:_checkPerGroup(self.maxLr, 'maxLr')
  for i = 1, #self._groups do
    local m = type(self.maxLr) == 'table' and self.maxLr[i] or self.maxLr
    if type(m) ~= 'number' or not (m > 0) then
      lib.fail(name, 'maxLr must be a positive number (or one per group), got %s for group %d', tostring(m), i)
    end
    maxLrs[i] = m
  end
  self.maxLrs = maxLrs
  local p = self.pctStart * self.totalSteps
  if self.threePhase then
    self.phaseEnds = { p - 1, 2 * p - 2, self.totalSteps - 1 }
  else
    self.phaseEnds = { p - 1, self.totalSteps - 1 }
  end
  momentum.bind(self, 0.85, 0.95)
end

local function anneal(strategy, from, to, pct)
  if strategy == 'cos' then return to + (from - to) / 2 * (1 + math.cos(math.pi * pct)) end
  return (to - from) * pct + from
end

-- The value at `step` of a schedule through points[1] -> points[2] -> ..., one phase each.
-- Note [OneCycleLR's last step]: as in PyTorch 1.13, step() may be called totalSteps times (one
-- per batch, after each optimizer step); refusing the last call, as this did, broke the usual
-- loop on its last batch. No optimizer step uses the rate that call sets. PyTorch extrapolates
-- the last phase there (the cosine climbs back up, the linear anneal goes below zero); here it
-- stays at the end of the cycle (the final rate, the maximum momentum): a negative rate would
-- make a checkpoint taken after training fail to load (lr must be non-negative).
function OneCycleLR:_through(step, points)
  if step > self.totalSteps then
    lib.fail(self._name, 'stepped %d times, more than totalSteps = %d allows', step, self.totalSteps)
  end
  local start = 0
  for k, e in ipairs(self.phaseEnds) do
    if step <= e or k == #self.phaseEnds then
      -- capped at the end of the cycle: Note [OneCycleLR's last step]
      local pct = e > start and math.min(1, (step - start) / (e - start)) or 1
      return anneal(self.annealStrategy, points[k], points[k + 1], pct)
    end
    start = e
  end
end

function OneCycleLR:lrAt(step, i)
  local initial = self.maxLrs[i] / self.divFactor
  local final = initial / self.finalDivFactor
  return self:_through(step, self.threePhase and { initial, self.maxLrs[i], initial, final }
                                               or { initial, self.maxLrs[i], final })
end

--- sched:momentumAt(step, i): group i's momentum after `step` steps (when it cycles).
function OneCycleLR:momentumAt(step, i)
  local lo, hi = self.baseMomentums[i], self.maxMomentums[i]
  return self:_through(step, self.threePhase and { hi, lo, hi, hi } or { hi, lo, hi })
end

function OneCycleLR:_apply()
  Scheduler._apply(self)
  momentum.apply(self, self.lastEpoch)
end

--- sched:getLastMomentum(): the momenta the schedule set last, one per group (nil when it does not cycle them).
function OneCycleLR:getLastMomentum() return momentum.get(self) end
