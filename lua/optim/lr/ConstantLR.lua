-- optim.lr.ConstantLR: PyTorch's ConstantLR, the rate times factor for the first totalIters steps,
-- with PyTorch 1.13's recursive (chainable) rule (Note [Chainable schedules] in LinearLR.lua).
require 'optim.lr.LinearLR'
local ConstantLR = torch.class('optim.lr.ConstantLR', 'optim.lr.LinearLR')
local Scheduler = optim.lr.Scheduler
local lib = require 'torch.lib'

--- optim.lr.ConstantLR(target, {factor=1/3, totalIters=5}): lr = base * factor while epoch <
--- totalIters, then base; each step rescales the current rate as PyTorch 1.13 does (factor in
--- (0, 1]: PyTorch's 0 would divide by zero at totalIters).
--- Example: local c = {learningRate = 0.1}; local s = optim.lr.ConstantLR(c, {factor = 0.5, totalIters = 2}); s:step()
function ConstantLR:__init(target, options)
  local name = 'optim.lr.ConstantLR'
  if options ~= nil and type(options) ~= 'table' then lib.fail(name, 'options must be a table, got %s', type(options)) end
  local f = options and options.factor
  if f ~= nil and not (type(f) == 'number' and f > 0 and f <= 1) then
    lib.fail(name, 'factor must be a number in (0, 1], got %s', tostring(f))
  end
  Scheduler.__init(self, 'ConstantLR', target, options, { factor = 'any', totalIters = 'count' },
                   { factor = 1 / 3, totalIters = 5 })
end

function ConstantLR:lrAt(epoch, i)
  return self.baseLrs[i] * (epoch >= self.totalIters and 1 or self.factor)
end

-- PyTorch 1.13's ConstantLR.get_lr.
function ConstantLR:_recur(lr, epoch)
  if epoch == 0 then return lr * self.factor end
  if epoch == self.totalIters then return lr * (1 / self.factor) end
  return lr
end

return ConstantLR
