-- nn.Trainer and its callbacks with a stand-in optimizer: fit/evaluate/predict, history, early
-- stopping at the right epoch on a scripted metric sequence (with best weights restored), the
-- checkpoint keeping the best model, learning-rate schedules, CSV logs, plots, user hooks and
-- the metrics against hand-computed values.
require 'nn'
local data = require 'data'
local tester = torch.Tester()
local tests = torch.TestSuite()

local tmp = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/trainer'
os.execute('rm -rf "' .. tmp .. '" && mkdir -p "' .. tmp .. '"')

-- A minimal optimizer with the interface nn.Trainer expects (optim's classes are written elsewhere).
local function sgd(model, lr)
  local params, grads = model:parameters()
  local opt = { learningRate = lr }
  function opt:zeroGrad() for _, g in ipairs(grads) do g:zero() end end
  function opt:step() for i, p in ipairs(params) do p:add(-self.learningRate, grads[i]) end end
  return opt
end

local function problem(n)
  torch.manualSeed(1)
  local x = torch.randn(n, 2)
  local y = x:select(2, 1):gt(x:select(2, 2)):long():add(1)
  return data.TensorDataset(x, y)
end

local function classifier()
  torch.manualSeed(2)
  return nn.Sequential():add(nn.Linear(2, 8)):add(nn.ReLU()):add(nn.Linear(8, 2)):add(nn.LogSoftMax())
end

-- Sets logs[name] from a script at each epoch end (placed before the callbacks that read it).
local function scripted(name, values)
  return { onEpochEnd = function(_, _, epoch, logs) logs[name] = values[epoch] end }
end

function tests.fitEvaluatePredict()
  local model = classifier()
  local trainer = nn.Trainer(model, nn.ClassNLLCriterion(), sgd(model, 0.2))
  local loader = data.DataLoader(problem(300), { batchSize = 25, shuffle = true, seed = 3 })
  local h = trainer:fit(loader, { epochs = 6, validation = 0.2, metrics = { 'accuracy', 'f1' }, verbose = false })
  tester:assertTableEq(h.epoch, { 1, 2, 3, 4, 5, 6 })
  for _, k in ipairs({ 'loss', 'accuracy', 'f1', 'val_loss', 'val_accuracy', 'val_f1', 'lr' }) do
    tester:asserteq(#h[k], 6, k)
  end
  tester:assertlt(h.loss[6], h.loss[1], 'the loss goes down')
  tester:assertgt(h.val_accuracy[6], 0.85)
  local r = trainer:evaluate(loader, { metrics = { 'accuracy', 'confusion' } })
  tester:assertgt(r.accuracy, 0.85)
  tester:asserteq(r.confusion:sum(), 300)
  tester:assertalmosteq(r.accuracy, torch.diag(r.confusion):sum() / 300, 1e-12)
  local out = trainer:predict(torch.randn(7, 2), { batchSize = 3 })
  tester:assertTableEq(out:size():totable(), { 7, 2 })
  tester:asserteq(trainer:predict(loader):size(1), 300)
  tester:asserteq(model.train, true, 'evaluate/predict restore training mode')
  -- A dataset or {inputs, targets} works in place of a loader.
  local x, y = torch.randn(20, 2), torch.LongTensor(20):fill(1)
  tester:asserteq(#nn.Trainer(model, nn.ClassNLLCriterion(), sgd(model, 0.1)):fit({ x, y }, { verbose = false }).loss, 1)
end

function tests.torch7FunctionalOptimizer()
  local model = classifier()
  local calls = 0
  local function method(feval, x, config, state)
    calls = calls + 1
    local fx, dfdx = feval(x)
    x:add(-config.learningRate, dfdx)
    state.n = (state.n or 0) + 1
    return x, { fx }
  end
  local opt = { method = method, config = { learningRate = 0.3 } }
  local trainer = nn.Trainer(model, nn.ClassNLLCriterion(), opt)
  local h = trainer:fit(data.DataLoader(problem(100), { batchSize = 10 }), { epochs = 3, verbose = false,
    callbacks = { nn.LearningRateScheduler(function(epoch, lr) return epoch == 3 and lr / 10 or lr end) } })
  tester:asserteq(calls, 30)
  tester:asserteq(opt.state.n, 30)
  tester:assertlt(h.loss[3], h.loss[1])
  tester:assertalmosteq(h.lr[3], 0.03, 1e-12)
end

function tests.earlyStoppingStopsAtTheRightEpoch()
  local model = classifier()
  local loader = data.DataLoader(problem(40), { batchSize = 20 })
  -- Best at epoch 2; epochs 3 and 4 do not improve by more than minDelta: stop after epoch 4.
  local es = nn.EarlyStopping{ monitor = 'score', patience = 2, minDelta = 0.01, mode = 'min' }
  local h = nn.Trainer(model, nn.ClassNLLCriterion(), sgd(model, 0.1)):fit(loader, { epochs = 10, verbose = false,
    callbacks = { scripted('score', { 1.0, 0.8, 0.795, 0.9, 0.1, 0.1 }), es } })
  tester:asserteq(#h.epoch, 4)
  tester:asserteq(es.stoppedEpoch, 4)
  tester:asserteq(es.bestEpoch, 2)
  tester:asserteq(es.best, 0.8)
  -- patience 0: the first epoch without improvement stops; 'auto' maximizes accuracies.
  local es0 = nn.EarlyStopping{ monitor = 'val_accuracy' }
  tester:asserteq(es0.mode, 'max')
  local h0 = nn.Trainer(model, nn.ClassNLLCriterion(), sgd(model, 0.1)):fit(loader, { epochs = 10, verbose = false,
    callbacks = { scripted('val_accuracy', { 0.5, 0.6, 0.6, 0.9 }), es0 } })
  tester:asserteq(#h0.epoch, 3)
  -- An unknown monitor is an error naming what the logs hold.
  local ok, err = pcall(function()
    nn.Trainer(model, nn.ClassNLLCriterion(), sgd(model, 0.1)):fit(loader, { verbose = false,
      callbacks = { nn.EarlyStopping{ monitor = 'val_los' } } })
  end)
  tester:assert(not ok and err:find('monitor val_los is not among the epoch logs (epoch, loss, lr)', 1, true), tostring(err))
end

function tests.earlyStoppingRestoresTheBestWeights()
  local model = classifier()
  local seen = {}
  local recorder = { onEpochEnd = function(_, trainer, epoch) seen[epoch] = trainer.model.modules[1].weight:clone() end }
  local es = nn.EarlyStopping{ monitor = 'score', patience = 1, restoreBest = true }
  nn.Trainer(model, nn.ClassNLLCriterion(), sgd(model, 0.5)):fit(data.DataLoader(problem(60), { batchSize = 10 }),
    { epochs = 8, verbose = false, callbacks = { recorder, scripted('score', { 3, 1, 2, 2.5 }), es } })
  tester:asserteq(es.stoppedEpoch, 3)
  tester:assertTensorEq(model.modules[1].weight, seen[2], 0)
  tester:assert(not torch.equal(seen[3], seen[2]), 'training moved the weights after the best epoch')
end

function tests.checkpointKeepsTheBest()
  local model = classifier()
  local seen = {}
  local recorder = { onEpochEnd = function(_, trainer, epoch) seen[epoch] = trainer.model.modules[3].weight:clone() end }
  local best = nn.ModelCheckpoint{ path = tmp .. '/best.t7', monitor = 'score', mode = 'min', saveBestOnly = true }
  local every = nn.ModelCheckpoint{ path = tmp .. '/epoch_%d.t7', monitor = 'score' }
  nn.Trainer(model, nn.ClassNLLCriterion(), sgd(model, 0.5)):fit(data.DataLoader(problem(60), { batchSize = 10 }),
    { epochs = 5, verbose = false, callbacks = { recorder, scripted('score', { 0.5, 0.3, 0.4, 0.2, 0.6 }), best, every } })
  tester:asserteq(best.bestEpoch, 4)
  tester:asserteq(best.best, 0.2)
  local loaded = torch.load(tmp .. '/best.t7')
  tester:assertTensorEq(loaded.modules[3].weight, seen[4], 0)
  for e = 1, 5 do tester:assert(io.open(tmp .. '/epoch_' .. e .. '.t7') ~= nil, 'epoch file ' .. e) end
  tester:assertTensorEq(torch.load(tmp .. '/epoch_5.t7').modules[3].weight, seen[5], 0)
  for f in io.popen('ls -a "' .. tmp .. '"'):lines() do
    tester:assert(not f:find('tmp', 1, true), 'no temporary file left behind: ' .. f)
  end
end

function tests.loggingPlotsAndHooks()
  local model = classifier()
  local events = {}
  local hooks = {
    onTrainBegin = function() events[#events + 1] = 'train' end,
    onEpochBegin = function(_, _, e) events[#events + 1] = 'epoch' .. e end,
    onBatchEnd = function(_, t, b, logs)
      if b == 2 and t.epoch == 2 then t.stopTraining = true end
      tester:assert(logs.loss ~= nil and logs.size == 10)
    end,
    onTrainEnd = function() events[#events + 1] = 'end' end,
  }
  local trainer = nn.Trainer(model, nn.ClassNLLCriterion(), sgd(model, 0.1))
  local lines = {}
  local out = { write = function(_, s) lines[#lines + 1] = s end, flush = function() end }
  local h = trainer:fit(data.DataLoader(problem(50), { batchSize = 10 }), { epochs = 5, metrics = { 'accuracy' },
    callbacks = { hooks, nn.CSVLogger{ path = tmp .. '/log.csv' }, nn.ProgressBar{ output = out, tty = false },
                  nn.PlotLearningCurves{ path = tmp .. '/curves.png' } } })
  tester:assertTableEq(events, { 'train', 'epoch1', 'epoch2', 'end' })
  tester:asserteq(#h.epoch, 2)
  local csv = io.open(tmp .. '/log.csv'):read('*a')
  tester:assert(csv:find('^epoch,loss,accuracy,lr\n1,'), csv)
  local _, rows = csv:gsub('\n', '')
  tester:asserteq(rows, 3)
  tester:assert(lines[1]:find('^epoch 1/5 %[=+%] 5/5 .* loss %d%.%d+  accuracy'), lines[1])
  tester:asserteq(data.image.load(tmp .. '/curves.png'):size(2), 500)
  tester:asserteq(data.image.load(tmp .. '/curves_accuracy.png'):size(3), 800)
  local cm = trainer:plotConfusion(data.DataLoader(problem(50), { batchSize = 25 }), tmp .. '/cm.png', { 'a', 'b' })
  tester:asserteq(cm:sum(), 50)
  -- A misspelt hook is an error, not a callback that never runs.
  local ok, err = pcall(function() trainer:fit({ torch.randn(4, 2), torch.LongTensor(4):fill(1) },
    { verbose = false, callbacks = { { onEpochEnds = function() end } } }) end)
  tester:assert(not ok and err:find('unknown hook onEpochEnds', 1, true), tostring(err))
end

function tests.metricsMatchHandComputedValues()
  local out = torch.Tensor({ { 0.1, 0.7, 0.2 }, { 0.5, 0.3, 0.2 }, { 0.2, 0.3, 0.5 }, { 0.6, 0.3, 0.1 } })
  local target = torch.LongTensor({ 2, 1, 2, 3 })
  tester:asserteq(nn.metrics.accuracy(out, target), 0.5)
  tester:asserteq(nn.metrics.topk(out, target, 2), 0.75)
  local cm = nn.metrics.confusionMatrix(out, target)
  tester:assertTableEq(cm:totable(), { { 1, 0, 0 }, { 0, 1, 1 }, { 1, 0, 0 } })
  local prf = nn.metrics.precisionRecallF1(cm)
  -- class 1: tp 1, predicted 2, actual 1; class 2: tp 1, predicted 1, actual 2; class 3: 0.
  tester:assertTableEq(prf.precision:totable(), { 0.5, 1, 0 })
  tester:assertTableEq(prf.recall:totable(), { 1, 0.5, 0 })
  tester:assertalmosteq(prf.f1[1], 2 / 3, 1e-12)
  tester:assertalmosteq(prf.macroF1, (2 / 3 + 2 / 3) / 3, 1e-12)
  tester:asserteq(nn.metrics.accuracy(torch.Tensor({ 0.9, 0.2, 0.6 }), torch.LongTensor({ 1, 0, 0 })), 2 / 3)
  local acc = nn.metrics.create('f1')
  acc:add(out:narrow(1, 1, 2), target:narrow(1, 1, 2))
  acc:add(out:narrow(1, 3, 2), target:narrow(1, 3, 2))
  tester:assertalmosteq(acc:value(), prf.macroF1, 1e-12)
  local ok, err = pcall(nn.metrics.accuracy, out, torch.LongTensor({ 1, 2, 4, 1 }))
  tester:assert(not ok and err:find('target 4 at position 3 is out of range 1..3', 1, true), tostring(err))
  ok, err = pcall(nn.metrics.create, 'acuracy')
  tester:assert(not ok and err:find('unknown metric acuracy', 1, true), tostring(err))
end

tester:add(tests)
tester:run()
