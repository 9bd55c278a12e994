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

-- The columns of an existing file's header line, or nil.
local function header_columns(path, sep)
  local f = io.open(path, 'r')
  if not f then return nil end
  local line = f:read('*l')
  f:close()
  if not line or line == '' then return nil end
  local cols, start = {}, 1
  while true do
    local i = line:find(sep, start, true)
    cols[#cols + 1] = line:sub(start, (i or 0) - 1)
    if not i then break end
    start = i + #sep
  end
  return cols
end

function CSVLogger:onTrainBegin()
  -- a fit that raised never reached onTrainEnd: its file is still open
  if self.file then self.file:close() end
  self.file = nil
  -- Appending (a resumed run) keeps the file's columns: a run that logs other values (no
  -- validation, another metric) wrote its rows under the first run's header, misaligned.
  local columns = self.append and header_columns(self.path, self.separator) or nil
  local f, err = io.open(self.path, self.append and 'a' or 'w')
  if not f then lib.fail('CSVLogger', '%s: cannot open: %s', self.path, tostring(err)) end
  self.file, self.columns = f, columns
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

local function positive_integer(v) return type(v) == 'number' and v >= 1 and v == math.floor(v) and v < math.huge end

-- Note [Scheduler epochs as PyTorch's]: {step=} and {milestones=} count epochs as PyTorch's
-- StepLR and MultiStepLR (and optim.lr.MultiStepLR) do: a milestone m scales the rate after m
-- epochs, from epoch m + 1 on, so {step = 2} and {milestones = {2, 4}} agree. Milestones took
-- effect one epoch early (at epoch m), and a repeated milestone scales once per listing, as in
-- PyTorch. An optimizer with parameter groups has each group's rate scheduled on its own
-- (they all became the first group's rate).
--- nn.LearningRateScheduler(schedule): sets the optimizer's learning rate at the start of each
--- epoch: schedule(epoch, lr) returns the new rate (epoch is 1-based, lr the current one; called
--- for each parameter group of an optimizer object), or schedule is {step=, gamma=} (multiply by
--- gamma every step epochs: from epochs step + 1, 2 step + 1...) or {milestones={...}, gamma=}
--- (multiply by gamma after each listed number of epochs, as PyTorch's MultiStepLR).
--- Example: local cb = nn.LearningRateScheduler{step = 3, gamma = 0.5}
function LearningRateScheduler:__init(schedule)
  if type(schedule) == 'table' and not getmetatable(schedule) then
    local gamma = schedule.gamma or 0.1
    if type(gamma) ~= 'number' or not (gamma >= 0) then
      lib.fail('LearningRateScheduler', 'gamma must be a number >= 0, got %s', tostring(gamma))
    end
    if schedule.step ~= nil then
      local step = schedule.step
      if not positive_integer(step) then lib.fail('LearningRateScheduler', 'step must be a positive integer, got %s', tostring(step)) end
      schedule = function(epoch, lr) return (epoch > 1 and (epoch - 1) % step == 0) and lr * gamma or lr end
    elseif schedule.milestones ~= nil then
      if type(schedule.milestones) ~= 'table' then
        lib.fail('LearningRateScheduler', 'milestones must be a list of epochs, got %s', type(schedule.milestones))
      end
      local at = {}
      for i, e in ipairs(schedule.milestones) do
        if not positive_integer(e) then lib.fail('LearningRateScheduler', 'milestone %d must be a positive integer, got %s', i, tostring(e)) end
        at[e + 1] = (at[e + 1] or 0) + 1
      end
      schedule = function(epoch, lr) return at[epoch] and lr * gamma ^ at[epoch] or lr end
    end
  end
  if type(schedule) ~= 'function' then
    lib.fail('LearningRateScheduler', 'expected a function(epoch, lr) or {step=, gamma=} or {milestones=, gamma=}')
  end
  self.schedule = schedule
end

local function scheduled(self, epoch, lr)
  local new = self.schedule(epoch, lr)
  if type(new) ~= 'number' or not (new >= 0) then lib.fail('LearningRateScheduler', 'schedule returned %s', tostring(new)) end
  return new
end

function LearningRateScheduler:onEpochBegin(trainer, epoch)
  local groups = nn.Trainer._learningRateGroups(trainer.optimizer)
  if groups then
    local new = {}
    for i, g in ipairs(groups) do
      local key = g.learningRate ~= nil and 'learningRate' or 'lr'
      if type(g[key]) ~= 'number' then lib.fail('LearningRateScheduler', 'parameter group %d has no learning rate', i) end
      new[i] = { g, key, scheduled(self, epoch, g[key]) }
    end
    for _, e in ipairs(new) do e[1][e[2]] = e[3] end  -- only once every group's rate is known
    return
  end
  local lr = nn.Trainer.getLearningRate(trainer.optimizer)
  if lr == nil then
    lib.fail('LearningRateScheduler', 'cannot find the optimizer\'s learning rate (give it learningRate, '
      .. 'config.learningRate or setLearningRate)')
  end
  nn.Trainer.setLearningRate(trainer.optimizer, scheduled(self, epoch, lr))
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
