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
