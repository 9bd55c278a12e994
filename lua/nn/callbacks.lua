-- nn.Callback: the base of nn.Trainer's callbacks, and the hook names a callback may define
-- (torchnet's engine hooks, Keras's names). A callback is any table with some of these
-- functions; an unknown on* function is an error (a misspelt hook would silently never run).
require 'torch'
local lib = require 'torch.lib'

local Callback = torch.class('nn.Callback')

nn.callbackHooks = { onTrainBegin = true, onTrainEnd = true, onEpochBegin = true, onEpochEnd = true,
                     onBatchBegin = true, onBatchEnd = true, onEvaluateEnd = true }

--- nn.Callback(): a callback that does nothing; subclasses define hooks: onTrainBegin(trainer,
--- logs), onEpochBegin(trainer, epoch, logs), onBatchBegin(trainer, batch, logs),
--- onBatchEnd(trainer, batch, logs), onEpochEnd(trainer, epoch, logs), onTrainEnd(trainer,
--- logs), onEvaluateEnd(trainer, logs). Setting trainer.stopTraining = true ends fit after the
--- current batch or epoch.
function Callback:__init() end

-- Checks a callback's hooks; returns it.
function nn._checkCallback(cb, i)
  if type(cb) ~= 'table' then lib.fail('Trainer', 'callback %d is a %s, expected a table of hooks', i, type(cb)) end
  local function check(t)
    for k, v in pairs(t) do
      if type(k) == 'string' and k:match('^on%u') and type(v) == 'function' and not nn.callbackHooks[k] then
        local known = {}
        for name in pairs(nn.callbackHooks) do known[#known + 1] = name end
        table.sort(known)
        lib.fail('Trainer', 'callback %d has an unknown hook %s (hooks: %s)', i, k, table.concat(known, ', '))
      end
    end
  end
  check(cb)
  local mt = getmetatable(cb)
  while type(mt) == 'table' and rawget(mt, '__typename') do
    check(mt)
    mt = rawget(mt, '__parent')
  end
  return cb
end

-- 'min' or 'max' for a monitored quantity: accuracies and scores grow, losses shrink.
function nn._monitorMode(mode, monitor)
  if mode == 'min' or mode == 'max' then return mode end
  if mode ~= nil and mode ~= 'auto' then lib.fail('Trainer', "mode must be 'min', 'max' or 'auto', got %s", tostring(mode)) end
  local m = monitor:lower()
  for _, up in ipairs({ 'acc', 'f1', 'precision', 'recall', 'top', 'auc' }) do
    if m:find(up, 1, true) then return 'max' end
  end
  return 'min'
end

return Callback
