-- nn.Trainer: the training loop as a convenience around a model, a criterion and an optimizer:
-- fit (epochs, validation, metrics, callbacks, a history table), evaluate, predict, plots.
-- It runs Torch7's forward/backward calls, so any module and criterion works; a plain loop over
-- a data.DataLoader stays just as good.
require 'nn.callbacks'
require 'nn.callbacks_checkpoint'
require 'nn.callbacks_log'
require 'nn.metrics'
local lib = require 'torch.lib'

local Trainer = torch.class('nn.Trainer')

local function fail(fmt, ...) lib.fail('Trainer', fmt, ...) end

--- nn.Trainer(model, criterion, optimizer): trains model against criterion. optimizer is an
--- object with step() (and zeroGrad(); else the model's gradients are zeroed), such as
--- optim.SGD, or Torch7's functional form {method = optim.sgd, config = {...}[, state = {}]}.
function Trainer:__init(model, criterion, optimizer)
  if type(model) ~= 'table' or type(model.forward) ~= 'function' then fail('expected an nn module, got %s', torch.type(model)) end
  if criterion ~= nil and (type(criterion) ~= 'table' or type(criterion.forward) ~= 'function') then
    fail('expected a criterion, got %s', torch.type(criterion))
  end
  if optimizer ~= nil and type(optimizer) ~= 'table' then fail('expected an optimizer, got %s', type(optimizer)) end
  self.model, self.criterion, self.optimizer = model, criterion, optimizer
  self.history = {}
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

-- ---- model state snapshots (EarlyStopping's restoreBest) -----------------------------------------

-- The tensors that make a module's state: parameters and buffers (running statistics...), not
-- outputs, gradients or private fields, as {module position, field, tensor} in a fixed order.
local function state_tensors(model)
  local list = {}
  local modules = type(model.listModules) == 'function' and model:listModules() or { model }
  for i, m in ipairs(modules) do
    local keys = {}
    for k, v in pairs(m) do
      if type(k) == 'string' and torch.isTensor(v) and not k:match('^_') and not k:match('^grad')
          and k ~= 'output' and k ~= 'gradInput' then
        keys[#keys + 1] = k
      end
    end
    table.sort(keys)
    for _, k in ipairs(keys) do list[#list + 1] = { i, k, m[k] } end
  end
  return list
end

--- nn.Trainer.stateSnapshot(model): copies of the model's state tensors.
--- Example: local m = nn.Linear(2, 2); local s = nn.Trainer.stateSnapshot(m); m.weight:zero(); nn.Trainer.stateRestore(m, s)
function Trainer.stateSnapshot(model)
  local out = {}
  for i, e in ipairs(state_tensors(model)) do out[i] = { e[1], e[2], e[3]:clone() } end
  return out
end

-- Note [Snapshots of scratch tensors]: the heuristic above also takes a module's scratch
-- tensors (Dropout's noise, a pooling's indices), whose size follows the last batch: a predict
-- in a callback or a stop after a shorter batch made the restore fail ('cannot copy a tensor
-- of size 2 into one of size 4'). Entries are matched by module position and field, a scratch
-- tensor whose size changed is resized first, and a tensor created after the snapshot is left
-- alone.
--- nn.Trainer.stateRestore(model, snapshot): copies a snapshot back into the model.
--- Example: local m = nn.Linear(2, 2); local s = nn.Trainer.stateSnapshot(m); m.weight:zero(); nn.Trainer.stateRestore(m, s)
function Trainer.stateRestore(model, snap)
  local now = {}
  for _, e in ipairs(state_tensors(model)) do now[e[1] .. ':' .. e[2]] = e[3] end
  for _, e in ipairs(snap) do
    local t = now[e[1] .. ':' .. e[2]]
    if not t then fail('the model changed since the snapshot (module %d has no tensor %s)', e[1], e[2]) end
    if not t:isSameSizeAs(e[3]) then t:resize(e[3]:size()) end
    t:copy(e[3])
  end
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
function Trainer:trainStep(batch)
  local input, target = split_batch(batch)
  local model, crit, opt = self.model, self.criterion, self.optimizer
  if not crit then fail('training needs a criterion') end
  if not opt then fail('training needs an optimizer') end
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

--- trainer:fit(train, opts): trains for opts.epochs (1) epochs over train (a data.DataLoader, a
--- dataset or {inputs, targets}; opts.batchSize then applies) and returns the history: a table
--- of per-epoch lists (epoch, loss, each metric, val_loss and val_<metric> with validation,
--- lr when the optimizer has one). opts: validation (a loader, a dataset, or a fraction of
--- train's dataset held out), metrics ({'accuracy', 'top5', 'f1', fn...}), callbacks (nn.Callback
--- objects or tables of hooks), verbose (true: a progress bar per epoch).
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
  self.callbacks = {}
  for i, cb in ipairs(opts.callbacks or {}) do self.callbacks[i] = nn._checkCallback(cb, i) end
  local has_bar = false
  for _, cb in ipairs(self.callbacks) do has_bar = has_bar or torch.isTypeOf(cb, 'nn.ProgressBar') end
  if opts.verbose ~= false and not has_bar then table.insert(self.callbacks, 1, nn.ProgressBar()) end
  self.metricSpecs, self.epochs, self.batchesPerEpoch = opts.metrics or {}, epochs, loader:size()
  self.trainLoader, self.valLoader, self.stopTraining = loader, val, false
  local metrics = metric_set(self.metricSpecs)
  local history = { epoch = {} }
  self.history = history

  self:_call('onTrainBegin', {})
  local logs = {}
  for epoch = 1, epochs do
    self.epoch = epoch
    self:_call('onEpochBegin', epoch, {})
    self.model:training()
    reset(metrics)
    local sum, count, b = 0, 0, 0
    for batch in loader:iter() do
      b = b + 1
      self:_call('onBatchBegin', b, {})
      local loss, output = self:trainStep(batch)
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
    logs = { epoch = epoch, loss = count > 0 and sum / count or 0 / 0 }
    for _, m in ipairs(metrics) do logs[m.name] = m:value() end
    if val then
      local v = self:evaluate(val, { metrics = self.metricSpecs, verbose = false })
      for k, x in pairs(v) do logs['val_' .. k] = x end
    end
    logs.lr = Trainer.getLearningRate(self.optimizer)
    local row = #history.epoch + 1  -- every list is indexed by epoch position
    for k, x in pairs(logs) do
      if type(x) == 'number' then
        history[k] = history[k] or {}
        history[k][row] = x
      end
    end
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
  for _, k in ipairs(keys) do
    local series = {}
    if h[k] then series[#series + 1] = { name = 'train', x = h.epoch, y = h[k] } end
    if h['val_' .. k] then series[#series + 1] = { name = 'validation', x = h.epoch, y = h['val_' .. k] } end
    local file = k == 'loss' and path or (base .. '_' .. k .. ext)
    plot.lines{ path = file, title = k, xlabel = 'epoch', ylabel = k, series = series }
    files[#files + 1] = file
  end
  return files
end

--- trainer:plotConfusion(loader, path[, labels]): the confusion matrix of the model's predictions
--- over loader, drawn to path (.png or .svg); returns the matrix.
function Trainer:plotConfusion(loader, path, labels)
  local cm = self:evaluate(loader, { metrics = { 'confusion' } }).confusion
  require('plot').confusion{ path = path, matrix = cm, labels = labels, title = 'confusion matrix' }
  return cm
end

return Trainer
