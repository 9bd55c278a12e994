-- Callbacks that report or steer training: nn.ProgressBar (a bar per epoch), nn.CSVLogger (a
-- row per epoch), nn.LearningRateScheduler, nn.PlotLearningCurves (PNG/SVG curves each epoch).
require 'nn.callbacks'
local lib = require 'torch.lib'

local ProgressBar = torch.class('nn.ProgressBar', 'nn.Callback')

--- nn.ProgressBar([opts]): a progress bar over each epoch's batches with the running loss and
--- metrics, closed with the epoch's results (validation included). opts go to data.ProgressBar
--- (output, tty, width). nn.Trainer:fit adds one unless verbose = false.
function ProgressBar:__init(opts) self.opts = opts or {} end

function ProgressBar:onEpochBegin(trainer, epoch)
  local o = {}
  for k, v in pairs(self.opts) do o[k] = v end
  o.total = trainer.batchesPerEpoch
  o.title = string.format('epoch %d/%d', epoch, trainer.epochs)
  self.bar = require('data').ProgressBar(o)
end

local function numeric_info(logs, skip)
  local keys = {}
  for k, v in pairs(logs) do if type(v) == 'number' and not skip[k] then keys[#keys + 1] = k end end
  table.sort(keys, function(a, b)
    local va, vb = a:match('^val_') and 1 or a == 'lr' and 2 or 0, b:match('^val_') and 1 or b == 'lr' and 2 or 0
    if va ~= vb then return va < vb end
    local sa, sb = a:gsub('^val_', ''), b:gsub('^val_', '')
    if (sa == 'loss') ~= (sb == 'loss') then return sa == 'loss' end
    return a < b
  end)
  local info = {}
  for _, k in ipairs(keys) do info[#info + 1] = { k, logs[k] } end
  return info
end

function ProgressBar:onBatchEnd(_, batch, logs)
  if self.bar then self.bar:update(batch, numeric_info(logs, { batch = true, size = true })) end
end

function ProgressBar:onEpochEnd(_, _, logs)
  if self.bar then self.bar:finish(numeric_info(logs, { epoch = true })) end
  self.bar = nil
end

local CSVLogger = torch.class('nn.CSVLogger', 'nn.Callback')

--- nn.CSVLogger{path=[, separator=','][, append=false]}: writes a row per epoch (epoch, loss,
--- metrics, validation values, learning rate) to a CSV file, flushed every epoch.
function CSVLogger:__init(opts)
  opts = opts or {}
  if type(opts.path) ~= 'string' then lib.fail('CSVLogger', 'expected path = a file name') end
  self.path, self.separator, self.append = opts.path, opts.separator or ',', opts.append and true or false
end

function CSVLogger:onTrainBegin()
  local f, err = io.open(self.path, self.append and 'a' or 'w')
  if not f then lib.fail('CSVLogger', '%s: cannot open: %s', self.path, tostring(err)) end
  self.file, self.columns = f, nil
end

function CSVLogger:onEpochEnd(_, _, logs)
  if not self.columns then
    self.columns = { 'epoch' }
    for _, kv in ipairs(numeric_info(logs, { epoch = true })) do self.columns[#self.columns + 1] = kv[1] end
    if not self.append or self.file:seek('end') == 0 then
      self.file:write(table.concat(self.columns, self.separator), '\n')
    end
  end
  local row = {}
  for i, k in ipairs(self.columns) do
    local v = logs[k]
    row[i] = type(v) == 'number' and string.format('%.10g', v) or ''
  end
  self.file:write(table.concat(row, self.separator), '\n')
  self.file:flush()
end

function CSVLogger:onTrainEnd()
  if self.file then self.file:close() end
  self.file = nil
end

local LearningRateScheduler = torch.class('nn.LearningRateScheduler', 'nn.Callback')

--- nn.LearningRateScheduler(schedule): sets the optimizer's learning rate at the start of each
--- epoch: schedule(epoch, lr) returns the new rate (epoch is 1-based, lr the current one), or
--- schedule is {step=, gamma=} (multiply by gamma every step epochs) or {milestones={...},
--- gamma=} (multiply by gamma at each listed epoch).
function LearningRateScheduler:__init(schedule)
  if type(schedule) == 'table' and not getmetatable(schedule) then
    local gamma = schedule.gamma or 0.1
    if schedule.step then
      local step = schedule.step
      schedule = function(epoch, lr) return (epoch > 1 and (epoch - 1) % step == 0) and lr * gamma or lr end
    elseif schedule.milestones then
      local at = {}
      for _, e in ipairs(schedule.milestones) do at[e] = true end
      schedule = function(epoch, lr) return at[epoch] and lr * gamma or lr end
    end
  end
  if type(schedule) ~= 'function' then
    lib.fail('LearningRateScheduler', 'expected a function(epoch, lr) or {step=, gamma=} or {milestones=, gamma=}')
  end
  self.schedule = schedule
end

function LearningRateScheduler:onEpochBegin(trainer, epoch)
  local lr = nn.Trainer.getLearningRate(trainer.optimizer)
  if lr == nil then
    lib.fail('LearningRateScheduler', 'cannot find the optimizer\'s learning rate (give it learningRate, '
      .. 'config.learningRate or setLearningRate)')
  end
  local new = self.schedule(epoch, lr)
  if type(new) ~= 'number' or new < 0 then lib.fail('LearningRateScheduler', 'schedule returned %s', tostring(new)) end
  nn.Trainer.setLearningRate(trainer.optimizer, new)
end

local PlotLearningCurves = torch.class('nn.PlotLearningCurves', 'nn.Callback')

--- nn.PlotLearningCurves{path=}: after each epoch, draws the loss (train and validation) to path
--- (.png or .svg) and each metric to path with _<metric> before the extension.
function PlotLearningCurves:__init(opts)
  opts = opts or {}
  if type(opts.path) ~= 'string' then lib.fail('PlotLearningCurves', 'expected path = a .png or .svg file name') end
  self.path = opts.path
end

function PlotLearningCurves:onEpochEnd(trainer) self.files = trainer:plot(self.path) end

return PlotLearningCurves
