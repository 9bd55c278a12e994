-- The Keras example on the Wisconsin diagnostic breast cancer data (569 samples x 30 features,
-- examples/data/breast_cancer.csv): Dense 30 ReLU, Dropout 0.5, Dense 60 ReLU, Dropout 0.5,
-- Dense 2 softmax; SGD (lr 0.01, momentum 0.9, Nesterov); StandardScaler; 70/30 split with seed 7;
-- a checkpoint of the best validation accuracy; early stopping with patience 5; confusion matrix.
--   tocha examples/breast_cancer.lua [--epochs 200] [--out breast_cancer_out] [--quick]
require 'nn'
require 'optim'
local data = require 'data'
-- Layers from parts of nn that a build may not have yet: without them the example exits with
-- status 77, which ctest reports as skipped.
for _, name in ipairs({ 'Dropout' }) do
  if not nn[name] then
    io.stderr:write(arg[0] .. ': this build has no nn.' .. name .. '\n')
    os.exit(77)
  end
end

local cmd = torch.CmdLine()
cmd:option('--csv', '', 'CSV file (default: examples/data/breast_cancer.csv next to this script)')
cmd:option('--epochs', 200, 'most epochs (early stopping usually ends sooner)')
cmd:option('--batchSize', 32, 'mini-batch size (Keras\'s default)')
cmd:option('--out', 'breast_cancer_out', 'directory for the checkpoint')
cmd:option('--seed', 7, 'seed of the train/test split')
cmd:option('--quick', false, 'at most 30 epochs (a smoke test)')
local opt = cmd:parse(arg)
if opt.quick then opt.epochs = math.min(opt.epochs, 30) end
os.execute('mkdir -p "' .. opt.out .. '"')

-- Columns: 30 numeric features and the diagnosis ('benign' or 'malignant', classes 1 and 2).
local here = (arg and arg[0] or ''):match('^(.*)/') or '.'
local csv = data.readCSV(opt.csv ~= '' and opt.csv or here .. '/data/breast_cancer.csv')
local ds = csv:dataset{ target = 'diagnosis' }
local x, y = ds.tensors.input, ds.tensors.target
local classes = csv.levels.diagnosis
print(string.format('%d samples, %d features, classes: %s', x:size(1), x:size(2), table.concat(classes, ', ')))

-- 70/30 split with seed 7; the scaler learns the training set's statistics only.
local xTrain, xTest, yTrain, yTest = data.trainTestSplit(x, y, 0.3, opt.seed)
local scaler = data.StandardScaler():fit(xTrain)
xTrain, xTest = scaler:transform(xTrain), scaler:transform(xTest)
-- As in the Keras example, the held-out 30% is the validation data (validation_data=(X_test,
-- y_test)): it picks the checkpoint and stops training, and the final accuracy is measured on it.
local trainSet, testSet = data.TensorDataset(xTrain, yTrain), data.TensorDataset(xTest, yTest)
print(string.format('train %d, test (validation) %d', xTrain:size(1), xTest:size(1)))

torch.manualSeed(opt.seed)
-- Dense 2 softmax with categorical cross-entropy is written as LogSoftMax with ClassNLLCriterion
-- (the same loss, computed stably); exp of the output gives the probabilities.
local model = nn.Sequential()
  :add(nn.Linear(30, 30)):add(nn.ReLU()):add(nn.Dropout(0.5))
  :add(nn.Linear(30, 60)):add(nn.ReLU()):add(nn.Dropout(0.5))
  :add(nn.Linear(60, 2)):add(nn.LogSoftMax())
model:summary(30)

local checkpoint = opt.out .. '/breast_cancer_best.t7'
local saver = nn.ModelCheckpoint{ path = checkpoint, monitor = 'val_accuracy', saveBestOnly = true }
local stopper = nn.EarlyStopping{ monitor = 'val_loss', patience = 5 }
local trainer = nn.Trainer(model, nn.ClassNLLCriterion(),
  optim.SGD(model, { lr = 0.01, momentum = 0.9, nesterov = true }))
local history = trainer:fit(data.DataLoader(trainSet, { batchSize = opt.batchSize, shuffle = true, seed = opt.seed }), {
  epochs = opt.epochs,
  validation = data.DataLoader(testSet, { batchSize = 256 }),
  metrics = { 'accuracy' },
  callbacks = { saver, stopper, nn.ProgressBar{ tty = false, interval = math.huge } },
})
print(string.format('trained %d epochs%s; best validation accuracy %.2f%% at epoch %d', #history.epoch,
  stopper.stoppedEpoch and ' (early stopping)' or '', 100 * saver.best, saver.bestEpoch))

-- The best checkpoint on the held-out 30%.
local best = torch.load(checkpoint)
local result = nn.Trainer(best, nn.ClassNLLCriterion()):evaluate({ xTest, yTest },
  { metrics = { 'accuracy', 'confusion', 'f1' } })
local cm = optim.ConfusionMatrix(classes)
cm.mat:copy(result.confusion)
print(cm)
print(string.format('test accuracy: %.2f%%, loss %.4f, macro F1 %.3f', 100 * result.accuracy, result.loss, result.f1))
local bound = opt.quick and 0.9 or 0.95
if result.accuracy < bound then
  io.stderr:write(string.format('test accuracy %.4f is below %.2f\n', result.accuracy, bound))
  os.exit(1)
end
