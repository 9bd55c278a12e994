-- Callbacks that watch a monitored value: nn.ModelCheckpoint (saves the model, atomically, with
-- torch.save) and nn.EarlyStopping (stops when it stops improving, optionally restoring the best
-- weights).
require 'nn.callbacks'
local lib = require 'torch.lib'

-- The value of monitor in an epoch's logs; an error listing the available names if absent.
local function monitored(op, logs, monitor)
  local v = logs[monitor]
  if type(v) ~= 'number' then
    local names = {}
    for k, x in pairs(logs) do if type(x) == 'number' then names[#names + 1] = k end end
    table.sort(names)
    lib.fail(op, 'monitor %s is not among the epoch logs (%s)', monitor, table.concat(names, ', '))
  end
  return v
end

local function improved(mode, value, best, delta)
  if best == nil then return value == value end
  if mode == 'min' then return value < best - delta end
  return value > best + delta
end

local ModelCheckpoint = torch.class('nn.ModelCheckpoint', 'nn.Callback')

--- nn.ModelCheckpoint{path=[, monitor='val_loss'][, mode='auto'][, saveBestOnly=false]}: saves
--- the model with torch.save (an atomic write) at the end of each epoch, or only when the
--- monitored value improves (saveBestOnly). path may hold %d (or {epoch}) for the epoch number.
--- mode 'auto' maximizes accuracies and scores and minimizes losses. .best and .bestEpoch
--- record the best value seen. In a torch.distributed job only rank 0 writes (allRanks = true:
--- every rank, e.g. with a path holding the rank), and a nn.DistributedDataParallel is saved as
--- the model it wraps.
function ModelCheckpoint:__init(opts)
  opts = opts or {}
  if type(opts.path) ~= 'string' then lib.fail('ModelCheckpoint', 'expected path = a file name') end
  self.path, self.monitor = opts.path, opts.monitor or 'val_loss'
  self.mode = nn._monitorMode(opts.mode, self.monitor)
  self.saveBestOnly, self.minDelta = opts.saveBestOnly and true or false, opts.minDelta or 0
  if type(self.minDelta) ~= 'number' or not (self.minDelta >= 0) then
    lib.fail('ModelCheckpoint', 'minDelta must be a number >= 0, got %s', tostring(self.minDelta))
  end
  self.allRanks = opts.allRanks and true or false
end

function ModelCheckpoint:filename(epoch)
  return (self.path:gsub('{epoch}', tostring(epoch)):gsub('%%d', tostring(epoch)))
end

function ModelCheckpoint:onEpochEnd(trainer, epoch, logs)
  local value = monitored('ModelCheckpoint', logs, self.monitor)
  local better = improved(self.mode, value, self.best, self.minDelta)
  if better then self.best, self.bestEpoch = value, epoch end
  if (better or not self.saveBestOnly) and (self.allRanks or torch.distributed.rank() == 0) then
    local file = self:filename(epoch)
    local model = trainer.model
    if torch.isTypeOf(model, 'nn.DistributedDataParallel') then model = model.module end
    torch.save(file, model)
    self.lastSaved = file
  end
end

local EarlyStopping = torch.class('nn.EarlyStopping', 'nn.Callback')

--- nn.EarlyStopping{[monitor='val_loss'][, patience=0][, minDelta=0][, mode='auto'][,
--- restoreBest=false]}: stops training once the monitored value has not improved by more than
--- minDelta for patience epochs in a row (Keras's rule; patience 0 stops at the first epoch
--- without improvement). restoreBest puts back the weights (and other state
--- tensors, such as running statistics) of the best epoch when training ends. .stoppedEpoch
--- and .bestEpoch tell what happened.
function EarlyStopping:__init(opts)
  opts = opts or {}
  if type(opts) ~= 'table' then lib.fail('EarlyStopping', 'options must be a table {monitor=, patience=, minDelta=, mode=, restoreBest=}, got %s', torch.typename(opts) or type(opts)) end
  self.monitor, self.patience, self.minDelta = opts.monitor or 'val_loss', opts.patience or 0, opts.minDelta or 0
  if type(self.patience) ~= 'number' or not (self.patience >= 0) then lib.fail('EarlyStopping', 'patience must be >= 0, got %s', tostring(self.patience)) end
  if type(self.minDelta) ~= 'number' or not (self.minDelta >= 0) then lib.fail('EarlyStopping', 'minDelta must be >= 0, got %s', tostring(self.minDelta)) end
  self.mode = nn._monitorMode(opts.mode, self.monitor)
  self.restoreBest = opts.restoreBest and true or false
end

function EarlyStopping:onTrainBegin()
  self.best, self.bestEpoch, self.wait, self.stoppedEpoch, self.snapshot = nil, nil, 0, nil, nil
end

function EarlyStopping:onEpochEnd(trainer, epoch, logs)
  local value = monitored('EarlyStopping', logs, self.monitor)
  if improved(self.mode, value, self.best, self.minDelta) then
    self.best, self.bestEpoch, self.wait = value, epoch, 0
    if self.restoreBest then self.snapshot = nn.Trainer.stateSnapshot(trainer.model) end
    return
  end
  self.wait = self.wait + 1
  if self.wait >= math.max(self.patience, 1) then
    self.stoppedEpoch = epoch
    trainer.stopTraining = true
  end
end

function EarlyStopping:onTrainEnd(trainer)
  if self.restoreBest and self.snapshot then nn.Trainer.stateRestore(trainer.model, self.snapshot) end
end

return EarlyStopping
