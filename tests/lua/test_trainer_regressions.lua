-- Regressions of the second review of nn.Trainer, its callbacks and nn.metrics: the epoch loss as
-- a per-sample mean under sum reductions, learning-rate schedules per parameter group and with
-- PyTorch's epoch counting, best-weight restores past scratch tensors, accumulator objects shared
-- by training and validation, predict's batch size, Torch7's functional optimizers after a type
-- conversion, CSV appends, grad mode and training mode in evaluate/predict, and the metrics
-- against closed forms (scikit-learn's definitions) and on inputs they used to misread.
require 'nn'
require 'optim'
local data = require 'data'
local tester = torch.Tester()
local tests = torch.TestSuite()

local tmp = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/trainer_regressions'
os.execute('rm -rf "' .. tmp .. '" && mkdir -p "' .. tmp .. '"')

-- An optimizer that changes nothing, so the losses can be recomputed after fit.
local function frozen(model)
  return { learningRate = 0, zeroGrad = function() model:zeroGradParameters() end, step = function() end }
end

local function classifier(seed)
  torch.manualSeed(seed or 1)
  return nn.Sequential():add(nn.Linear(2, 3)):add(nn.LogSoftMax())
end

local function problem(n, seed)
  torch.manualSeed(seed or 2)
  return torch.randn(n, 2), torch.LongTensor(n):random(1, 3)
end

local function raises(fn, pattern, msg)
  local ok, err = pcall(fn)
  tester:assert(not ok, (msg or pattern) .. ': no error')
  if not ok then tester:assert(tostring(err):find(pattern, 1, true) ~= nil, tostring(err)) end
end

-- ---- the epoch loss ------------------------------------------------------------------------------

function tests.epochLossIsThePerSampleMean()
  local x, y = problem(5)
  -- batches of 2, 2 and 1: the mean of batch means is not the per-sample mean
  for _, case in ipairs({
    { crit = nn.ClassNLLCriterion(), div = 1 },
    { crit = nn.ClassNLLCriterion(nil, false), div = 5 },          -- sizeAverage = false: sums
    { crit = nn.CrossEntropyLoss{ reduction = 'sum' }, div = 5 },  -- PyTorch's reduction
  }) do
    local model = classifier()
    if torch.type(case.crit) == 'nn.CrossEntropyLoss' then model:remove(2) end
    local trainer = nn.Trainer(model, case.crit, frozen(model))
    local h = trainer:fit(data.DataLoader(data.TensorDataset(x, y), { batchSize = 2 }), { verbose = false })
    local expected = case.crit:forward(model:forward(x), y) / case.div
    -- float32 losses; the mean of batch means reads 0.78 here, the sums gave 1.2 for 0.65
    tester:assertalmosteq(h.loss[1], expected, 1e-6, torch.type(case.crit) .. ' fit')
    local ev = trainer:evaluate({ x, y }, { batchSize = 2 })
    tester:assertalmosteq(ev.loss, expected, 1e-6, torch.type(case.crit) .. ' evaluate')
  end
end

-- ---- learning-rate schedules ---------------------------------------------------------------------

local function rates(schedule, epochs, opt)
  local model = nn.Linear(2, 1)
  opt = opt or optim.SGD(model, { lr = 1 })
  local h = nn.Trainer(model, nn.MSECriterion(), opt):fit({ torch.randn(4, 2), torch.randn(4, 1) },
    { verbose = false, epochs = epochs, callbacks = { nn.LearningRateScheduler(schedule) } })
  return h.lr, opt
end

function tests.schedulerEpochsAsPyTorch()
  -- PyTorch 1.13: the rate of each epoch under StepLR(step_size=2, gamma=0.1) and
  -- MultiStepLR(milestones=[2, 2], gamma=0.1), starting from lr = 1
  local step = rates({ step = 2, gamma = 0.1 }, 5)
  local want = { 1.0, 1.0, 0.1, 0.1, 0.010000000000000002 }
  for e = 1, 5 do tester:assertalmosteq(step[e], want[e], 1e-15, 'step, epoch ' .. e) end
  local multi = rates({ milestones = { 2, 2 }, gamma = 0.1 }, 4)
  want = { 1.0, 1.0, 0.010000000000000002, 0.010000000000000002 }
  for e = 1, 4 do tester:assertalmosteq(multi[e], want[e], 1e-15, 'milestones, epoch ' .. e) end
end

function tests.schedulerKeepsEachGroupsRate()
  -- PyTorch 1.13: StepLR(step_size=1, gamma=0.5) over groups with lr 0.1 and 1 gives
  -- [0.1, 1], [0.05, 0.5], [0.025, 0.25] (every group became the first group's rate)
  local model = nn.Linear(2, 1)
  local opt = optim.SGD({ { params = { model.weight }, lr = 0.1 }, { params = { model.bias }, lr = 1 } }, { lr = 0.5 })
  local lr = rates({ step = 1, gamma = 0.5 }, 3, opt)
  tester:assertalmosteq(lr[3], 0.025, 1e-15)
  tester:assertalmosteq(opt.paramGroups[1].lr, 0.025, 1e-15)
  tester:assertalmosteq(opt.paramGroups[2].lr, 0.25, 1e-15)
end

function tests.schedulerRefusesBadSchedules()
  raises(function() nn.LearningRateScheduler{ step = 0 } end, '[LearningRateScheduler] step must be a positive integer')
  raises(function() nn.LearningRateScheduler{ step = -2 } end, '[LearningRateScheduler] step must be a positive integer')
  raises(function() nn.LearningRateScheduler{ milestones = { 3, 0 } } end, '[LearningRateScheduler] milestone 2')
  raises(function() nn.LearningRateScheduler{ step = 2, gamma = -1 } end, '[LearningRateScheduler] gamma')
  raises(function() rates(function() return 0 / 0 end, 1) end, '[LearningRateScheduler] schedule returned')
end

-- ---- early stopping and checkpoints -----------------------------------------------------------------

-- Sets logs.score from a script so that epoch 1 is the best one.
local function scripted(extra)
  local cb = { onEpochEnd = function(_, _, e, logs) logs.score = e end }
  for k, v in pairs(extra or {}) do cb[k] = v end
  return cb
end

function tests.restoreBestPastScratchTensors()
  local x, y = problem(10)
  -- Dropout's noise follows the batch: a stop after a longer batch than the snapshot's
  torch.manualSeed(3)
  local m = nn.Sequential():add(nn.Linear(2, 4)):add(nn.Dropout(0.5)):add(nn.Linear(4, 3)):add(nn.LogSoftMax())
  local best
  local cbs = { scripted{
      onBatchEnd = function(_, tr, b) if tr.epoch == 2 and b == 1 then tr.stopTraining = true end end },
    { onEpochEnd = function(_, tr, e) if e == 1 then best = tr.model.modules[1].weight:clone() end end },
    nn.EarlyStopping{ monitor = 'score', mode = 'min', restoreBest = true } }
  nn.Trainer(m, nn.ClassNLLCriterion(), optim.SGD(m, { lr = 0.5 })):fit({ x, y },
    { batchSize = 4, epochs = 3, verbose = false, callbacks = cbs })
  tester:assertTensorEq(m.modules[1].weight, best, 0, 'the weights of epoch 1')
  -- a max pooling's indices follow the last forward: a predict in a callback
  torch.manualSeed(4)
  local p = nn.Sequential():add(nn.Linear(2, 4)):add(nn.View(1, 1, 4)):add(nn.SpatialMaxPooling(2, 1))
    :add(nn.View(2)):add(nn.LogSoftMax())
  cbs = { scripted{ onEpochEnd = function(_, tr, e, logs) logs.score = e if e == 2 then tr:predict(torch.randn(3, 2)) end end },
    { onEpochEnd = function(_, tr, e) if e == 1 then best = tr.model.modules[1].weight:clone() end end },
    nn.EarlyStopping{ monitor = 'score', mode = 'min', restoreBest = true, patience = 2 } }
  nn.Trainer(p, nn.ClassNLLCriterion(), optim.SGD(p, { lr = 0.5 })):fit({ x, y:clone():clamp(1, 2) },
    { batchSize = 5, epochs = 3, verbose = false, callbacks = cbs })
  tester:assertTensorEq(p.modules[1].weight, best, 0, 'the weights of epoch 1')
  -- model:clearState() (before saving it) empties the scratch tensors
  torch.manualSeed(5)
  m = nn.Sequential():add(nn.Linear(2, 4)):add(nn.Dropout(0.5)):add(nn.Linear(4, 3)):add(nn.LogSoftMax())
  cbs = { scripted{ onEpochEnd = function(_, tr, e, logs) logs.score = e tr.model:clearState() end },
    { onEpochEnd = function(_, tr, e) if e == 1 then best = tr.model.modules[3].weight:clone() end end },
    nn.EarlyStopping{ monitor = 'score', mode = 'min', restoreBest = true, patience = 2 } }
  nn.Trainer(m, nn.ClassNLLCriterion(), optim.SGD(m, { lr = 0.5 })):fit({ x, y },
    { batchSize = 4, epochs = 3, verbose = false, callbacks = cbs })
  tester:assertTensorEq(m.modules[3].weight, best, 0, 'the weights of epoch 1 after clearState')
end

function tests.monitorOptionsAreChecked()
  raises(function() nn.EarlyStopping{ minDelta = 0 / 0 } end, '[EarlyStopping] minDelta')
  raises(function() nn.EarlyStopping{ patience = 0 / 0 } end, '[EarlyStopping] patience')
  raises(function() nn.ModelCheckpoint{ path = tmp .. '/m.t7', minDelta = -1 } end, '[ModelCheckpoint] minDelta')
  raises(function() nn.ModelCheckpoint{ path = tmp .. '/m.t7', minDelta = 'x' } end, '[ModelCheckpoint] minDelta')
end

-- ---- metrics in fit and evaluate ----------------------------------------------------------------

local function counter(name)
  local acc = { name = name, n = 0 }
  function acc:reset() self.n = 0 end
  function acc:add(o) self.n = self.n + o:size(1) end
  function acc:value() return self.n end
  return acc
end

function tests.accumulatorObjectsAreResetForValidation()
  local x, y = problem(10)
  local model = classifier()
  local h = nn.Trainer(model, nn.ClassNLLCriterion(), frozen(model)):fit({ x, y }, { batchSize = 4, epochs = 2,
    verbose = false, validation = { x:narrow(1, 1, 3), y:narrow(1, 1, 3) }, metrics = { counter('seen') } })
  tester:assertTableEq(h.seen, { 10, 10 })
  tester:assertTableEq(h.val_seen, { 3, 3 }, 'validation counted the training samples too (13)')
end

function tests.accumulatorObjectsNeedResetAndName()
  local model = classifier()
  local trainer = nn.Trainer(model, nn.ClassNLLCriterion(), frozen(model))
  local x, y = problem(4)
  local a = counter('c')
  a.reset = nil
  raises(function() trainer:fit({ x, y }, { verbose = false, metrics = { a } }) end, '[metrics] an accumulator needs reset()')
  a = counter(nil)
  raises(function() trainer:fit({ x, y }, { verbose = false, metrics = { a } }) end, '[metrics] an accumulator needs a name')
end

-- ---- evaluate and predict ---------------------------------------------------------------------------

function tests.predictBatchSizeIsChecked()
  local model = classifier()
  local trainer = nn.Trainer(model)
  -- 0 looped forever
  raises(function() trainer:predict(torch.randn(3, 2), { batchSize = 0 }) end, '[Trainer] predict: batchSize must be a positive integer')
  raises(function() trainer:predict(torch.randn(3, 2), { batchSize = -1 }) end, 'batchSize must be a positive integer')
  raises(function() trainer:predict(torch.randn(3, 2), { batchSize = 1.5 }) end, 'batchSize must be a positive integer')
  tester:asserteq(trainer:predict(torch.randn(3, 2), { batchSize = 2 }):size(1), 3)
end

-- A module that records the grad mode and its training flag at each forward (forward itself:
-- Module:forward runs updateOutput with recording off).
local Probe = torch.class('nn.TrainerRegressionProbe', 'nn.Module')
function Probe:forward(input)
  self.seen = self.seen or {}
  self.seen[#self.seen + 1] = tostring(torch.isGradEnabled()) .. '/' .. tostring(self.train)
  self.output = input
  return input
end
function Probe:updateGradInput(_, gradOutput) self.gradInput = gradOutput return gradOutput end

function tests.evaluateAndPredictRunWithoutGradients()
  local probe = nn.TrainerRegressionProbe()
  local model = classifier():add(probe)
  local x, y = problem(6)
  local trainer = nn.Trainer(model, nn.ClassNLLCriterion(), optim.SGD(model, { lr = 0.1 }))
  trainer:fit({ x, y }, { batchSize = 3, verbose = false, validation = { x, y } })
  tester:assertTableEq(probe.seen, { 'true/true', 'true/true', 'false/false', 'false/false' },
    'training batches with gradients, validation without')
  tester:asserteq(model.train, true)
  probe.seen = {}
  trainer:predict(x, { batchSize = 4 })
  tester:assertTableEq(probe.seen, { 'false/false', 'false/false' })
  tester:asserteq(model.train, true)
  tester:asserteq(torch.isGradEnabled(), true)
  -- an error in a callback after the validation leaves the training flag and grad mode as they were
  raises(function() trainer:fit({ x, y }, { verbose = false, validation = { x, y },
    callbacks = { { onEvaluateEnd = function() error('boom') end } } }) end, 'boom')
  tester:asserteq(model.train, true)
  tester:asserteq(torch.isGradEnabled(), true)
end

function tests.functionalOptimizerFollowsATypeConversion()
  -- Torch7's {method, config}: the flat parameters made at the first fit were stepped again after
  -- model:double(), and the model's new tensors never changed
  local x, y = problem(8)
  local model = nn.Sequential():add(nn.Linear(2, 3)):add(nn.LogSoftMax())
  local function sgd(feval, p, config)
    local loss, grad = feval(p)
    p:add(-config.learningRate, grad)
    return p, { loss }
  end
  local trainer = nn.Trainer(model, nn.ClassNLLCriterion(), { method = sgd, config = { learningRate = 0.5 } })
  trainer:fit({ x, y }, { verbose = false })
  model:double()
  local before = model.modules[1].weight:clone()
  trainer:fit({ x:double(), y }, { verbose = false })
  tester:assert(not model.modules[1].weight:equal(before), 'the converted model trains')
end

-- ---- CSV logs ---------------------------------------------------------------------------------------------

local function read_lines(path)
  local lines = {}
  for l in io.lines(path) do lines[#lines + 1] = l end
  return lines
end

function tests.csvAppendKeepsTheFilesColumns()
  local path = tmp .. '/log.csv'
  local x, y = problem(6)
  local model = classifier()
  local trainer = nn.Trainer(model, nn.ClassNLLCriterion(), frozen(model))
  trainer:fit({ x, y }, { verbose = false, metrics = { 'accuracy' }, callbacks = { nn.CSVLogger{ path = path } } })
  -- the resumed run logs no accuracy: its rows follow the header, the accuracy column empty
  trainer:fit({ x, y }, { verbose = false, callbacks = { nn.CSVLogger{ path = path, append = true } } })
  local lines = read_lines(path)
  tester:asserteq(#lines, 3)
  tester:asserteq(lines[1], 'epoch,loss,accuracy,lr')
  tester:assert(lines[3]:match('^1,[%d.e-]+,,0$') ~= nil, lines[3])
  -- a fit that raised left its file open; the next one starts afresh
  local log = nn.CSVLogger{ path = path }
  raises(function() trainer:fit({ x, y }, { verbose = false, callbacks = { log, { onEpochEnd = function() error('stop') end } } }) end, 'stop')
  tester:assert(log.file ~= nil)
  local first = log.file
  trainer:fit({ x, y }, { verbose = false, callbacks = { log } })
  tester:asserteq(io.type(first), 'closed file')
end

-- ---- metrics against closed forms -------------------------------------------------------------------------

-- 8 samples, 4 classes: targets 1 1 1 2 2 3 3 3, predictions 1 4 2 2 3 3 3 1 (class 4 predicted,
-- never a target); the second highest score of each row is 2 1 1 3 2 1 2 2.
local S = torch.Tensor({
  { 0.9, 0.5, 0.03, 0.04 }, { 0.5, 0.02, 0.03, 0.9 }, { 0.5, 0.9, 0.03, 0.04 }, { 0.01, 0.9, 0.5, 0.04 },
  { 0.01, 0.5, 0.9, 0.04 }, { 0.5, 0.02, 0.9, 0.04 }, { 0.01, 0.5, 0.9, 0.04 }, { 0.9, 0.5, 0.03, 0.04 } })
local T = torch.LongTensor({ 1, 1, 1, 2, 2, 3, 3, 3 })

function tests.metricsMatchClosedForms()
  -- tp / predicted, tp / actual, 2PR / (P + R); macro over the 4 classes that occur (scikit-learn's
  -- labels = targets and predictions), computed in PyTorch 1.13 (float64)
  local cm = nn.metrics.confusionMatrix(S, T)
  tester:assertTableEq(cm:totable(), { { 1, 1, 0, 1 }, { 0, 1, 1, 0 }, { 1, 0, 2, 0 }, { 0, 0, 0, 0 } })
  local prf = nn.metrics.precisionRecallF1(cm)
  tester:assertTensorEq(prf.precision, torch.DoubleTensor({ 0.5, 0.5, 2 / 3, 0 }), 1e-15)
  tester:assertTensorEq(prf.recall, torch.DoubleTensor({ 1 / 3, 0.5, 2 / 3, 0 }), 1e-15)
  tester:assertTensorEq(prf.f1, torch.DoubleTensor({ 0.4, 0.5, 2 / 3, 0 }), 1e-15)
  tester:assertalmosteq(prf.macroPrecision, 0.41666666666666663, 1e-15)
  tester:assertalmosteq(prf.macroRecall, 0.375, 1e-15)
  tester:assertalmosteq(prf.macroF1, 0.39166666666666666, 1e-15)
  tester:asserteq(nn.metrics.accuracy(S, T), 0.5)
  tester:asserteq(nn.metrics.topk(S, T, 2), 0.875)
  tester:asserteq(nn.metrics.topk(S, T, 9), 1, 'k above the classes is all of them')
  -- accumulated over batches of 3 and 5 as over the whole
  for _, name in ipairs({ 'accuracy', 'top2', 'precision', 'recall', 'f1' }) do
    local acc = nn.metrics.create(name)
    acc:add(S:narrow(1, 1, 3), T:narrow(1, 1, 3))
    acc:add(S:narrow(1, 4, 5), T:narrow(1, 4, 5))
    local want = ({ accuracy = 0.5, top2 = 0.875, precision = 0.41666666666666663, recall = 0.375,
                    f1 = 0.39166666666666666 })[name]
    tester:assertalmosteq(acc:value(), want, 1e-15, name)
  end
end

function tests.metricsRefuseSilentMisreadings()
  -- one probability for one sample is binary: the target 1 counted as right at p = 0.1
  tester:asserteq(nn.metrics.accuracy(torch.Tensor({ 0.1 }), 1), 0)
  tester:asserteq(nn.metrics.accuracy(torch.Tensor({ 0.7 }), 1), 1)
  -- soft labels read as classes 0 and 1: accuracy 1 here
  raises(function() nn.metrics.accuracy(torch.Tensor({ { 0.8 }, { 0.3 } }), torch.DoubleTensor({ 0.9, 0.1 })) end,
    '[accuracy] targets must be class indices (whole numbers), got 0.9 at position 1')
  tester:asserteq(nn.metrics.accuracy(torch.Tensor({ { 0.8 }, { 0.3 } }), torch.Tensor({ 1, 0 })), 1)
  raises(function() nn.metrics.topk(S, T, 0) end, '[topk] k must be a positive integer')
  -- predicted classes 1.7 read as 1
  raises(function() nn.metrics.confusionMatrix(torch.Tensor({ 1.7, 2 }), torch.LongTensor({ 1, 2 }), 2) end,
    '[confusionMatrix] predicted classes must be class indices (whole numbers)')
  tester:assertTableEq(nn.metrics.confusionMatrix(torch.Tensor({ 1, 2 }), torch.LongTensor({ 1, 2 }), 2):totable(),
    { { 1, 0 }, { 0, 1 } })
  -- one column of probabilities: the error named confusionMatrix and a target 0 'out of range 1..1'
  raises(function() nn.metrics.create('f1'):add(torch.Tensor({ { 0.9 }, { 0.2 } }), torch.LongTensor({ 1, 0 })) end,
    '[f1] needs n x classes scores')
  raises(function() nn.metrics.create('mse'):add(torch.randn(4), torch.randn(2, 4)) end, '[mse] inconsistent sizes')
  raises(function() nn.metrics.precisionRecallF1(torch.LongTensor(2, 3):fill(1)) end,
    '[precisionRecallF1] expected a square confusion matrix, got 2x3')
  local mse = nn.metrics.create('mse')
  mse:add(torch.Tensor({ { 1, 2 }, { 3, 4 } }):t(), torch.Tensor({ { 1, 3 }, { 2, 5 } }))
  tester:asserteq(mse:value(), 0.25, 'a transposed output')
end

tester:add(tests)
tester:run()
