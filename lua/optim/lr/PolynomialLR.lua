-- optim.lr.PolynomialLR: the rate decays polynomially to 0 over totalIters epochs.
local PolynomialLR, Scheduler = torch.class('optim.lr.PolynomialLR', 'optim.lr.Scheduler')

--- optim.lr.PolynomialLR(target, {totalIters=5, power=1}): lr = base * (1 - min(epoch,
--- totalIters) / totalIters)^power (PyTorch's closed form); 0 from totalIters on.
function PolynomialLR:__init(target, options)
  Scheduler.__init(self, 'PolynomialLR', target, options, { totalIters = 'count', power = 'nonneg' },
    { totalIters = 5, power = 1 })
end

function PolynomialLR:lrAt(epoch, i)
  return self.baseLrs[i] * (1 - math.min(epoch, self.totalIters) / self.totalIters) ^ self.power
end

-- PyTorch 1.13's PolynomialLR.get_lr (Note [Back-to-back schedules] in Scheduler.lua).
function PolynomialLR:_recur(lr, epoch)
  local n = self.totalIters
  if epoch == 0 or epoch > n then return lr end
  return lr * ((1 - epoch / n) / (1 - (epoch - 1) / n)) ^ self.power
end
PolynomialLR._apply = Scheduler._recurApply

--- sched:loadState(s): restores state() and the rates the schedule set last.
--- Example: local o = optim.SGD(torch.zeros(2), {lr = 0.1}); local s = optim.lr.PolynomialLR(o, {totalIters = 4}); s:loadState(s:state())
function PolynomialLR:loadState(s) self:_loadStateAndRates(s) end
