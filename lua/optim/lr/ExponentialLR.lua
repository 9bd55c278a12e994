-- optim.lr.ExponentialLR: the rate times gamma every epoch.
local ExponentialLR, Scheduler = torch.class('optim.lr.ExponentialLR', 'optim.lr.Scheduler')
local lib = require 'torch.lib'

--- optim.lr.ExponentialLR(target, {gamma=}): lr = base * gamma^epoch.
function ExponentialLR:__init(target, options)
  if type(options) ~= 'table' or options.gamma == nil then lib.fail('optim.lr.ExponentialLR', 'options.gamma is required') end
  Scheduler.__init(self, 'ExponentialLR', target, options, { gamma = 'nonneg' })
end

function ExponentialLR:lrAt(epoch, i) return self.baseLrs[i] * self.gamma ^ epoch end
