-- optim.lr.CosineAnnealingLR (SGDR, Loshchilov & Hutter): the rate follows a half cosine from
-- the base down to etaMin over tMax epochs, optionally restarting with periods growing by tMult;
-- optim.lr.CosineAnnealingWarmRestarts is the restarting form with PyTorch's option names.
local CosineAnnealingLR, Scheduler = torch.class('optim.lr.CosineAnnealingLR', 'optim.lr.Scheduler')
local lib = require 'torch.lib'

local kinds = { tMax = 'count', etaMin = 'nonneg', restarts = 'boolean', tMult = 'count' }

--- optim.lr.CosineAnnealingLR(target, {tMax=, etaMin=0, restarts=false, tMult=1}): lr = etaMin +
--- (base - etaMin) * (1 + cos(pi * t/T))/2. Without restarts t = epoch and T = tMax (PyTorch's
--- closed form, which rises again after tMax); with restarts t counts from the last restart and
--- the period T starts at tMax and is multiplied by tMult at each restart.
function CosineAnnealingLR:__init(target, options, name)
  if type(options) ~= 'table' or options.tMax == nil then lib.fail('optim.lr.' .. (name or 'CosineAnnealingLR'), 'options.tMax is required') end
  Scheduler.__init(self, name or 'CosineAnnealingLR', target, options, kinds, { etaMin = 0, restarts = false, tMult = 1 })
end

-- Position t inside the current period and that period's length T.
function CosineAnnealingLR:_period(epoch)
  local T0, m = self.tMax, self.tMult
  if not self.restarts then return epoch, T0 end
  if m == 1 then return epoch % T0, T0 end
  local n = math.floor(math.log(epoch / T0 * (m - 1) + 1) / math.log(m))
  local start = T0 * (m ^ n - 1) / (m - 1)
  if epoch < start then  -- guard the logarithm's rounding at period boundaries
    n = n - 1
    start = T0 * (m ^ n - 1) / (m - 1)
  elseif epoch >= start + T0 * m ^ n then
    start = start + T0 * m ^ n
    n = n + 1
  end
  return epoch - start, T0 * m ^ n
end

function CosineAnnealingLR:lrAt(epoch, i)
  local t, T = self:_period(epoch)
  return self.etaMin + (self.baseLrs[i] - self.etaMin) * (1 + math.cos(math.pi * t / T)) / 2
end

-- PyTorch 1.13's recursive CosineAnnealingLR.get_lr (Note [Back-to-back schedules] in
-- Scheduler.lua; its first-step branch is only reached when PyTorch resumes with last_epoch).
function CosineAnnealingLR:_recur(lr, e, i)
  local T, eta, base = self.tMax, self.etaMin, self.baseLrs[i]
  if e == 0 then return lr end
  if (e - 1 - T) % (2 * T) == 0 then return lr + (base - eta) * (1 - math.cos(math.pi / T)) / 2 end
  return (1 + math.cos(math.pi * e / T)) / (1 + math.cos(math.pi * (e - 1) / T)) * (lr - eta) + eta
end

-- Without restarts the recursive rule; with them (CosineAnnealingWarmRestarts, which PyTorch
-- computes in closed form too) the closed form.
function CosineAnnealingLR:_apply()
  if self.restarts then return Scheduler._apply(self) end
  return Scheduler._recurApply(self)
end

--- sched:loadState(s): restores state() and its rates (those set last, without restarts).
--- Example: local o = optim.SGD(torch.zeros(2), {lr = 0.1}); local s = optim.lr.CosineAnnealingLR(o, {tMax = 4}); s:loadState(s:state())
function CosineAnnealingLR:loadState(s)
  if self.restarts then return Scheduler.loadState(self, s) end
  self:_loadStateAndRates(s)
end

local WarmRestarts = torch.class('optim.lr.CosineAnnealingWarmRestarts', 'optim.lr.CosineAnnealingLR')

--- optim.lr.CosineAnnealingWarmRestarts(target, {t0=, tMult=1, etaMin=0}): CosineAnnealingLR with
--- restarts: the first period lasts t0 epochs, each next one tMult times longer.
function WarmRestarts:__init(target, options)
  if type(options) ~= 'table' or options.t0 == nil then lib.fail('optim.lr.CosineAnnealingWarmRestarts', 'options.t0 is required') end
  local o = { tMax = options.t0, restarts = true }
  for k, v in pairs(options) do
    if k ~= 't0' then
      if k == 'tMax' or k == 'restarts' then lib.fail('optim.lr.CosineAnnealingWarmRestarts', "unknown option '%s' (did you mean 't0'?)", k) end
      o[k] = v
    end
  end
  CosineAnnealingLR.__init(self, target, o, 'CosineAnnealingWarmRestarts')
end
