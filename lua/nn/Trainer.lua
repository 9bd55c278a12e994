-- nn.Trainer: the training loop as a convenience around a model, a criterion and an optimizer:
-- fit (epochs, validation, metrics, callbacks, a history table, a schedule, gradient accumulation:
-- nn/trainer_loop.lua), evaluate, predict, plots; checkpoints and resumes in nn/trainer_state.lua.
-- It runs Torch7's forward/backward calls, so any module and criterion works; a plain loop over
-- a data.DataLoader stays just as good.
require 'nn.callbacks'
require 'nn.callbacks_checkpoint'
require 'nn.callbacks_log'
require 'nn.metrics'
local lib = require 'torch.lib'

local Trainer = torch.class('nn.Trainer')

local function fail(fmt, ...) lib.fail('Trainer', fmt, ...) end

--- nn.Trainer(model, criterion, optimizer[, opts]): trains model against criterion. optimizer is
--- an object with step() (and zeroGrad(); else the model's gradients are zeroed), such as
--- optim.SGD, or Torch7's functional form {method = optim.sgd, config = {...}[, state = {}]}.
--- opts: scheduler (an optim.lr schedule over that optimizer, which fit steps), schedulerInterval
--- ('epoch', the default: after each epoch; 'step': after each optimizer step, for OneCycleLR or
--- CyclicLR), schedulerMonitor (the epoch log a ReduceLROnPlateau reads; default val_loss with
--- validation, else loss). trainer:save(path) and trainer:resume(path) checkpoint the whole run
--- (nn/trainer_state.lua).
--- Example: local m = nn.Linear(2, 1); local o = optim.SGD(m, {lr = 0.1})
--- local t = nn.Trainer(m, nn.MSECriterion(), o, {scheduler = optim.lr.StepLR(o, {stepSize = 2})})
function Trainer:__init(model, criterion, optimizer, opts)
  if type(model) ~= 'table' or type(model.forward) ~= 'function' then fail('expected an nn module, got %s', torch.type(model)) end
  if criterion ~= nil and (type(criterion) ~= 'table' or type(criterion.forward) ~= 'function') then
    fail('expected a criterion, got %s', torch.type(criterion))
  end
  if optimizer ~= nil and type(optimizer) ~= 'table' then fail('expected an optimizer, got %s', type(optimizer)) end
  if opts ~= nil and type(opts) ~= 'table' then fail('options must be a table, got %s', torch.type(opts)) end
  opts = opts or {}
  for k in pairs(opts) do
    if k ~= 'scheduler' and k ~= 'schedulerInterval' and k ~= 'schedulerMonitor' then
      fail('unknown option %s (options: scheduler, schedulerInterval, schedulerMonitor)', tostring(k))
    end
  end
  local sched, interval = opts.scheduler, opts.schedulerInterval or 'epoch'
  if sched ~= nil and (type(sched) ~= 'table' or type(sched.step) ~= 'function') then
    fail('scheduler must be a schedule with step() (optim.lr.*), got %s', torch.type(sched))
  end
  if interval ~= 'epoch' and interval ~= 'step' then
    fail("schedulerInterval must be 'epoch' or 'step', got %s", tostring(interval))
  end
  if sched and interval == 'step' and torch.isTypeOf(sched, 'optim.lr.ReduceLROnPlateau') then
    fail("a ReduceLROnPlateau reads an epoch's metric: schedulerInterval must be 'epoch'")
  end
  if opts.schedulerMonitor ~= nil and type(opts.schedulerMonitor) ~= 'string' then
    fail('schedulerMonitor must be the name of an epoch log, got %s', torch.type(opts.schedulerMonitor))
  end
  self.model, self.criterion, self.optimizer = model, criterion, optimizer
  self.scheduler, self.schedulerInterval, self.schedulerMonitor = sched, interval, opts.schedulerMonitor
  self.history = {}
  self.globalStep = 0  -- optimizer steps taken (PyTorch Lightning's global_step)
end

-- ---- learning rates of the supported optimizer forms -------------------------------------------

local function groups(opt) return type(opt) == 'table' and (opt.paramGroups or opt.param_groups) end

--- nn.Trainer.getLearningRate(optimizer): the learning rate of an optimizer (getLearningRate(),
--- learningRate, config.learningRate, lr, or the first parameter group's), or nil.
function Trainer.getLearningRate(opt)
  if type(opt) ~= 'table' then return nil end
  if type(opt.getLearningRate) == 'function' then return opt:getLearningRate() end
  if type(opt.learningRate) == 'number' then return opt.learningRate end
  if type(opt.config) == 'table' and type(opt.config.learningRate) == 'number' then return opt.config.learningRate end
  if type(opt.lr) == 'number' then return opt.lr end
  local g = groups(opt)
  if type(g) == 'table' and type(g[1]) == 'table' then return g[1].learningRate or g[1].lr end
  return nil
end

--- nn.Trainer.setLearningRate(optimizer, lr): sets it wherever getLearningRate found it.
function Trainer.setLearningRate(opt, lr)
  if type(opt.setLearningRate) == 'function' then return opt:setLearningRate(lr) end
  if type(opt.learningRate) == 'number' then opt.learningRate = lr return end
  if type(opt.config) == 'table' and type(opt.config.learningRate) == 'number' then opt.config.learningRate = lr return end
  if type(opt.lr) == 'number' then opt.lr = lr return end
  for _, g in ipairs(groups(opt) or {}) do
    if g.learningRate ~= nil then g.learningRate = lr else g.lr = lr end
  end
end

-- The parameter groups when getLearningRate reads the rate off the first of them (an optimizer
-- object such as optim.SGD), else nil: a schedule scales each group's own rate.
function Trainer._learningRateGroups(opt)
  if type(opt) ~= 'table' or type(opt.getLearningRate) == 'function' or type(opt.learningRate) == 'number'
      or (type(opt.config) == 'table' and type(opt.config.learningRate) == 'number') or type(opt.lr) == 'number' then
    return nil
  end
  local g = groups(opt)
  if type(g) == 'table' and type(g[1]) == 'table' then return g end
  return nil
end

-- ---- one batch -----------------------------------------------------------------------------------

local function split_batch(batch)
  if type(batch) ~= 'table' then fail('a batch must be a table {input=, target=}, got %s', torch.type(batch)) end
  local input, target = batch.input, batch.target
  if input == nil then input, target = batch[1], batch[2] end
  if input == nil then fail('a batch has no input (expected {input=, target=} or {input, target})') end
  return input, target
end

local function batch_size(x)
  if torch.isTensor(x) then return x:dim() > 0 and x:size(1) or 1 end
  if type(x) == 'table' and x[1] ~= nil then return batch_size(x[1]) end
  return 1
end

-- A parameter/gradient pair for Torch7's functional optimizers, made once per set of parameter
-- tensors: a model converted since (model:double(), :cuda()) has new ones, and the old flat
-- vector was stepped while the model stayed as it was.
function Trainer:_flat()
  local ps = self.model:parameters()
  local first = ps and ps[1]
  if not self._params or not rawequal(first, self._firstParam) or self._flatModel ~= self.model then
    self._params, self._grads = self.model:getParameters()
    ps = self.model:parameters()
    self._firstParam, self._flatModel = ps and ps[1], self.model
  end
  return self._params, self._grads
end

--- trainer:trainStep(batch): one optimization step on a batch {input=, target=}; returns the
--- loss (a number) and the model's output.
--- Example: local m = nn.Linear(2, 1); local t = nn.Trainer(m, nn.MSECriterion(), optim.SGD(m, {lr = 0.1}))
--- local loss = t:trainStep({input = torch.randn(4, 2), target = torch.randn(4, 1)})
function Trainer:trainStep(batch)
  local input, target = split_batch(batch)
  local model, crit, opt = self.model, self.criterion, self.optimizer
  if not crit then fail('training needs a criterion') end
  if not opt then fail('training needs an optimizer') end
  self.globalStep = (self.globalStep or 0) + 1
  if type(opt.method) == 'function' then  -- Torch7's optim.sgd(feval, x, config, state)
    local params, grads = self:_flat()
    local loss, output
    local function feval()
      grads:zero()
      output = model:forward(input)
      loss = crit:forward(output, target)
      model:backward(input, crit:backward(output, target))
      return loss, grads
    end
    opt.state = opt.state or {}
    opt.method(feval, params, opt.config or {}, opt.state)
    return loss, output
  end
  if type(opt.zeroGrad) == 'function' then opt:zeroGrad() else model:zeroGradParameters() end
  local output = model:forward(input)
  local loss = crit:forward(output, target)
  model:backward(input, crit:backward(output, target))
  opt:step()
  return loss, output
end

-- Note [Epoch loss is a per-sample mean]: the loss of an epoch (and of evaluate) is the mean over
-- samples, not the mean of batch means: a mean-reduced batch loss counts once per sample, and
-- a sum-reduced one (sizeAverage = false, reduction = 'sum') is already the batch's sum (it was
-- multiplied by the batch size as well: 1.21 for 0.65). A criterion with class weights averages
-- by weight within a batch; across batches its samples count equally.
local function loss_sum(crit, loss, n)
  if torch.isTensor(loss) then
    if loss:nElement() ~= 1 then fail("the criterion's loss has %d elements, expected one (reduction 'none'?)", loss:nElement()) end
    loss = loss:item()
  elseif type(loss) ~= 'number' then
    loss = 0 / 0
  end
  if crit.reduction == 'sum' or (crit.reduction == nil and crit.sizeAverage == false) then return loss end
  return loss * n
end

Trainer._splitBatch, Trainer._groups, Trainer._fail = split_batch, groups, fail

-- ---- callbacks and metrics ---------------------------------------------------------------------------

function Trainer:_call(hook, ...)
  for _, cb in ipairs(self.callbacks or {}) do
    local f = cb[hook]
    if f then f(cb, self, ...) end
  end
end

local function metric_set(specs)
  local list = {}
  for i, spec in ipairs(specs or {}) do
    list[i] = nn.metrics.create(spec)
    if type(spec) == 'string' then list[i].name = spec end
  end
  return list
end

local function reset(ms) for _, m in ipairs(ms) do m:reset() end end

-- ---- loaders ---------------------------------------------------------------------------------------

-- A loader from what fit/evaluate/predict were given: a loader (iter and size), a dataset (size
-- and get), or {inputs, targets} tensors.
local function as_loader(x, opts, shuffle)
  if type(x) == 'table' and type(x.iter) == 'function' and type(x.size) == 'function' then return x end
  local data = require 'data'
  if type(x) == 'table' and torch.isTensor(x[1]) and (x[2] == nil or torch.isTensor(x[2])) and not torch.typename(x) then
    x = data.TensorDataset(x[1], x[2])
  end
  if type(x) == 'table' and type(x.size) == 'function' and type(x.get) == 'function' then
    return data.DataLoader(x, { batchSize = opts.batchSize or 32, shuffle = shuffle, seed = opts.seed })
  end
  fail('expected a data loader, a dataset or {inputs, targets}, got %s', torch.type(x))
end

-- Train and validation loaders when validation is a fraction of the training data.
local function split_validation(loader, fraction, opts)
  if not loader.dataset then fail('validation = %s needs a data.DataLoader to split', tostring(fraction)) end
  local train, val = require('data').trainTestSplit(loader.dataset, fraction, opts.seed or loader.seed or 0)
  local data = require 'data'
  local common = { batchSize = loader.batchSize, workers = loader.workers, prefetch = loader.prefetch,
                   collate = loader.collate }
  local t = data.DataLoader(train, { batchSize = common.batchSize, shuffle = loader.shuffle, seed = loader.seed,
    dropLast = loader.dropLast, workers = common.workers, prefetch = common.prefetch, collate = common.collate })
  local v = data.DataLoader(val, common)
  return t, v
end

-- ---- fit, evaluate, predict ---------------------------------------------------------------------

local function count_option(v, what, min)
  if v ~= nil and (type(v) ~= 'number' or v < min or v ~= math.floor(v) or v == math.huge) then
    fail('%s must be an integer >= %d, got %s', what, min, tostring(v))
  end
  return v
end

--- trainer:fit(train, opts): trains until epoch opts.epochs (1) over train (a data.DataLoader, a
--- dataset or {inputs, targets}; opts.batchSize then applies) and returns the history: a table
--- of per-epoch lists (epoch, loss, each metric, val_loss and val_<metric> with validation,
--- lr when the optimizer has one). opts: validation (a loader, a dataset, or a fraction of
--- train's dataset held out), metrics ({'accuracy', 'top5', 'f1', fn...}), callbacks (nn.Callback
--- objects or tables of hooks), verbose (true: a progress bar per epoch), accumulate (k, 1:
--- step the optimizer every k batches on their accumulated gradients, Note [Accumulated
--- gradients are a big batch's]; accumulateGradBatches is the same, PyTorch Lightning's name),
--- initialEpoch (the epochs already done, Keras's initial_epoch: the run goes on with epochs
--- initialEpoch + 1 .. epochs and the history keeps the rows up to it). epochs is the total, as
--- in PyTorch Lightning and Keras: after trainer:resume(path) of a state saved at epoch 2, fit
--- {epochs = 4} runs epochs 3 and 4 (initialEpoch defaults to the resumed epoch once, else 0).
--- Example: torch.manualSeed(1); local model = nn.Sequential(nn.Linear(4, 3), nn.LogSoftMax())
--- local opt = optim.SGD(model:parameters(), {lr = 0.1})
--- local loader = data.DataLoader(data.TensorDataset(torch.randn(16, 4), torch.LongTensor(16):random(1, 3)), {batchSize = 8})
--- local history = nn.Trainer(model, nn.ClassNLLCriterion(), opt):fit(loader, {epochs = 2, metrics = {'accuracy'}})
function Trainer:fit(train, opts)
  opts = opts or {}
  local loader = as_loader(train, opts, true)
  local val = opts.validation
  if type(val) == 'number' then
    if val <= 0 or val >= 1 then fail('validation fraction must be in (0, 1), got %s', tostring(val)) end
    loader, val = split_validation(loader, val, opts)
  elseif val ~= nil then
    val = as_loader(val, opts, false)
  end
  local epochs = opts.epochs or 1
  if type(epochs) ~= 'number' or epochs < 1 or epochs ~= math.floor(epochs) then fail('epochs must be a positive integer') end
  if opts.accumulate ~= nil and opts.accumulateGradBatches ~= nil and opts.accumulate ~= opts.accumulateGradBatches then
    fail('accumulate and accumulateGradBatches are the same option, got %s and %s', tostring(opts.accumulate),
         tostring(opts.accumulateGradBatches))
  end
  local k = count_option(opts.accumulate or opts.accumulateGradBatches, 'accumulate', 1) or 1
  local first = count_option(opts.initialEpoch, 'initialEpoch', 0)
  local resumed = self._resume  -- set by loadStateDict, used by one fit
  self._resume = nil
  if first == nil then first = resumed and resumed.epoch or 0 end
  -- a seeded loader draws epoch e's order from (seed, its own epoch count): the resumed run's
  -- fresh loader continues the saved count (Note [What a trainer state holds], nn/trainer_state.lua)
  if resumed and resumed.loaderEpoch and type(loader.epoch) == 'number' then loader.epoch = resumed.loaderEpoch end
  self.callbacks = {}
  for i, cb in ipairs(opts.callbacks or {}) do self.callbacks[i] = nn._checkCallback(cb, i) end
  local has_bar = false
  for _, cb in ipairs(self.callbacks) do has_bar = has_bar or torch.isTypeOf(cb, 'nn.ProgressBar') end
  if opts.verbose ~= false and not has_bar then table.insert(self.callbacks, 1, nn.ProgressBar()) end
  self.metricSpecs, self.epochs, self.batchesPerEpoch = opts.metrics or {}, epochs, loader:size()
  self.trainLoader, self.valLoader, self.stopTraining = loader, val, false
  self.accumulate, self.epochsDone = k, first
  local metrics = metric_set(self.metricSpecs)
  local history = self:_startingHistory(first)
  self.history = history
  local per_step = self.scheduler and self.schedulerInterval == 'step'
  local scale = (k > 1 and not Trainer._isSumReduced(self.criterion or {})) and 1 / k or 1

  self:_call('onTrainBegin', {})
  local logs = {}
  for epoch = first + 1, epochs do
    self.epoch = epoch
    self:_call('onEpochBegin', epoch, {})
    self.model:training()
    reset(metrics)
    local sum, count, b, pending, last_loss = 0, 0, 0, 0, nil
    for batch in loader:iter() do
      b = b + 1
      self:_call('onBatchBegin', b, {})
      local loss, output
      if k == 1 then
        loss, output = self:trainStep(batch)
        if per_step then self.scheduler:step() end
      else
        pending = pending + 1
        loss, output = self:_accumulateBatch(batch, scale, pending == 1)
        last_loss = loss
        if pending == k then
          self:_accumulatedStep(loss, k)
          pending = 0
          if per_step then self.scheduler:step() end
        end
      end
      local _, target = split_batch(batch)
      local n = batch_size(output)
      sum, count = sum + loss_sum(self.criterion, loss, n), count + n
      local blogs = { batch = b, size = n, loss = sum / count }
      for _, m in ipairs(metrics) do
        m:add(output, target)
        local v = m:value()
        if type(v) == 'number' then blogs[m.name] = v end
      end
      self:_call('onBatchEnd', b, blogs)
      if self.stopTraining then break end
    end
    if pending > 0 and not self.stopTraining then  -- the epoch's last, partial group
      if scale ~= 1 then
        for _, g in ipairs(self:_gradients()) do g:mul(k / pending) end
      end
      self:_accumulatedStep(last_loss, k)
      if per_step then self.scheduler:step() end
    end
    logs = { epoch = epoch, loss = count > 0 and sum / count or 0 / 0 }
    for _, m in ipairs(metrics) do logs[m.name] = m:value() end
    if val then
      local v = self:evaluate(val, { metrics = self.metricSpecs, verbose = false })
      for key, x in pairs(v) do logs['val_' .. key] = x end
    end
    logs.lr = Trainer.getLearningRate(self.optimizer)  -- before an epoch schedule's step
    local row = #history.epoch + 1  -- every list is indexed by epoch position
    for key, x in pairs(logs) do
      if type(x) == 'number' then
        history[key] = history[key] or {}
        history[key][row] = x
      end
    end
    self:_epochSchedule(logs)
    -- before onEpochEnd, so that a checkpoint saved there resumes after this epoch
    self.epochsDone = epoch
    self:_call('onEpochEnd', epoch, logs)
    if self.stopTraining then break end
  end
  self:_call('onTrainEnd', logs)
  return history
end

--- trainer:evaluate(loader[, opts]): the mean loss (with a criterion) and the metrics
--- (opts.metrics, by default those given to fit) over loader, in evaluation mode without
--- gradients: a table {loss=, accuracy=, ...} ('confusion' gives the matrix).
function Trainer:evaluate(x, opts)
  opts = opts or {}
  local loader = as_loader(x, opts, false)
  local metrics = metric_set(opts.metrics or self.metricSpecs)
  -- an accumulator object given as a metric is the same object in fit's training metrics: its
  -- validation value counted the epoch's training samples too
  reset(metrics)
  local model, crit = self.model, self.criterion
  local was_training = model.train
  model:evaluate()
  local sum, count = 0, 0
  -- an error (a bad batch, a criterion's target check) must not leave the model in evaluation mode
  local ok, err = pcall(torch.noGrad, function()
    for batch in loader:iter(opts.verbose and { progress = 'evaluate' } or nil) do
      local input, target = split_batch(batch)
      local output = model:forward(input)
      local n = batch_size(output)
      if crit and target ~= nil then sum, count = sum + loss_sum(crit, crit:forward(output, target), n), count + n end
      for _, m in ipairs(metrics) do m:add(output, target) end
    end
  end)
  if was_training then model:training() end
  if not ok then error(err, 0) end
  local out = {}
  if crit and count > 0 then out.loss = sum / count end
  for _, m in ipairs(metrics) do out[m.name] = m:value() end
  self:_call('onEvaluateEnd', out)
  return out
end

--- trainer:predict(inputs[, opts]): the model's outputs, in evaluation mode without gradients,
--- for a tensor of inputs (run in chunks of opts.batchSize, 256) or for every batch of a loader
--- or dataset, concatenated along dimension 1.
function Trainer:predict(x, opts)
  opts = opts or {}
  local bs = opts.batchSize or 256
  -- 0 looped forever (a numeric for with step 0), a negative size predicted nothing
  if type(bs) ~= 'number' or bs < 1 or bs ~= math.floor(bs) or bs == math.huge then
    fail('predict: batchSize must be a positive integer, got %s', tostring(bs))
  end
  local model = self.model
  local was_training = model.train
  model:evaluate()
  local outs = {}
  local ok, err = pcall(torch.noGrad, function()
    if torch.isTensor(x) then
      for start = 1, x:size(1), bs do
        outs[#outs + 1] = model:forward(x:narrow(1, start, math.min(bs, x:size(1) - start + 1))):clone()
      end
    else
      for batch in as_loader(x, opts, false):iter() do
        local input = split_batch(batch)
        outs[#outs + 1] = model:forward(input):clone()
      end
    end
  end)
  if was_training then model:training() end
  if not ok then error(err, 0) end
  if #outs == 0 then fail('nothing to predict') end
  return #outs == 1 and outs[1] or torch.cat(outs, 1)
end

-- ---- plots ---------------------------------------------------------------------------------------------

--- trainer:plot(path): learning curves of the history: the loss (train and validation) in path
--- (.png or .svg), and each metric in path with _<metric> before the extension. Returns the files.
function Trainer:plot(path)
  if type(path) ~= 'string' then fail('plot path must be a .png or .svg file name, got %s', type(path)) end
  local plot = require 'plot'
  local h = self.history or {}
  local files = {}
  local base, ext = path:match('^(.*)(%.[^./]+)$')
  if not base then fail('plot path needs an extension (.png or .svg), got %s', path) end
  local keys = { 'loss' }
  for k in pairs(h) do
    if k ~= 'loss' and k ~= 'epoch' and k ~= 'lr' and not k:match('^val_') then keys[#keys + 1] = k end
  end
  table.sort(keys, function(a, b) return a == 'loss' or (b ~= 'loss' and a < b) end)
  -- Note [Each curve at its own epochs]: every history list is indexed by epoch row, but a list
  -- can miss rows: validation given to the first fit and not to a resumed one (val_loss shorter
  -- than epoch), or only to the later one (val_loss[3], val_loss[4]). Passing x = h.epoch to
  -- every series made plot.lines fail ("has 4 x values and 2 y values") or read holes; each
  -- curve now takes the rows where its value was recorded.
  local rows = type(h.epoch) == 'table' and #h.epoch or 0
  local function curve(name, list)
    if type(list) ~= 'table' then return nil end
    local xs, ys = {}, {}
    for r = 1, math.max(rows, table.maxn(list)) do
      if type(list[r]) == 'number' then xs[#xs + 1], ys[#ys + 1] = h.epoch and h.epoch[r] or r, list[r] end
    end
    if #ys > 0 then return { name = name, x = xs, y = ys } end
  end
  for _, k in ipairs(keys) do
    local series = {}
    series[#series + 1] = curve('train', h[k])
    series[#series + 1] = curve('validation', h['val_' .. k])
    local file = k == 'loss' and path or (base .. '_' .. k .. ext)
    plot.lines{ path = file, title = k, xlabel = 'epoch', ylabel = k, series = series }
    files[#files + 1] = file
  end
  return files
end

--- trainer:plotConfusion(loader, path[, labels]): the confusion matrix of the model's predictions
--- over loader, drawn to path (.png or .svg); returns the matrix.
function Trainer:plotConfusion(loader, path, labels)
  -- checked before the evaluation pass, which a bad path would only fail after
  if type(path) ~= 'string' then fail('plotConfusion path must be a .png or .svg file name, got %s', type(path)) end
  local cm = self:evaluate(loader, { metrics = { 'confusion' } }).confusion
  require('plot').confusion{ path = path, matrix = cm, labels = labels, title = 'confusion matrix' }
  return cm
end

require 'nn.trainer_loop'
require 'nn.trainer_state'

return Trainer
