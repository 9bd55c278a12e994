-- Fashion-MNIST with a multi-layer perceptron (`make run`): data.fashionMnist, a DataLoader,
-- nn.Trainer with progress bars, a checkpoint of the best model (by validation accuracy), the
-- learning curves as PNG images, the test accuracy and the confusion matrix.
--   tocha examples/fashion_mnist_mlp.lua [--epochs 12] [--out fashion_mnist_out] [--quick]
-- The checkpoint is what examples/embed/ loads (a model taking N x 784 or N x 1 x 28 x 28 images
-- with pixels in [0, 1], returning log-probabilities of the ten classes).
require 'nn'
require 'optim'
local data = require 'data'

local cmd = torch.CmdLine()
cmd:text('Fashion-MNIST MLP: 784-256-128-10, ReLU, Adam.')
cmd:option('--epochs', 12, 'number of epochs')
cmd:option('--batchSize', 128, 'mini-batch size')
cmd:option('--lr', 1e-3, 'Adam learning rate')
cmd:option('--out', 'fashion_mnist_out', 'directory for the checkpoint and the plots')
cmd:option('--data', data.fashionMnistDir, 'directory of the Fashion-MNIST IDX files')
cmd:option('--seed', 1, 'random seed')
cmd:option('--quick', false, 'a small subset and 2 epochs (a smoke test)')
local opt = cmd:parse(arg)

torch.manualSeed(opt.seed)
os.execute('mkdir -p "' .. opt.out .. '"')

-- Data: 60000 training images (5000 of them held out for validation) and 10000 test images,
-- 1 x 28 x 28 floats in [0, 1]; targets are classes 1..10.
local timer = torch.Timer()
local train, test = data.fashionMnist(opt.data)
local classes = train.classes
if opt.quick then
  train, test = train:subset(torch.range(1, 6000):long()), test:subset(torch.range(1, 1000):long())
  opt.epochs = math.min(opt.epochs, 2)
end
local fit, val = train:split({ 1 - 1 / 12, 1 / 12 }, opt.seed)
print(string.format('Fashion-MNIST: %d train, %d validation, %d test images (read in %.1f s)', fit:size(), val:size(),
  test:size(), timer:time().real))

local trainLoader = data.DataLoader(fit, { batchSize = opt.batchSize, shuffle = true, seed = opt.seed })
local valLoader = data.DataLoader(val, { batchSize = 1000 })
local testLoader = data.DataLoader(test, { batchSize = 1000 })

local model = nn.Sequential()
  :add(nn.View(784))
  :add(nn.Linear(784, 256)):add(nn.ReLU())
  :add(nn.Linear(256, 128)):add(nn.ReLU())
  :add(nn.Linear(128, 10)):add(nn.LogSoftMax())
model:summary(1, 28, 28)

local checkpoint = opt.out .. '/fashion_mnist_mlp.t7'
local saver = nn.ModelCheckpoint{ path = checkpoint, monitor = 'val_accuracy', saveBestOnly = true }
local trainer = nn.Trainer(model, nn.ClassNLLCriterion(), optim.Adam(model, { lr = opt.lr }))
trainer:fit(trainLoader, {
  epochs = opt.epochs,
  validation = valLoader,
  metrics = { 'accuracy' },
  callbacks = {
    nn.LearningRateScheduler{ step = 4, gamma = 0.5 },        -- halve the rate every 4 epochs
    saver,
    nn.PlotLearningCurves{ path = opt.out .. '/learning_curves.png' },
  },
})
print(string.format('best validation accuracy %.2f%% at epoch %d, saved in %s', 100 * saver.best, saver.bestEpoch,
  checkpoint))

-- Test the best model from its checkpoint, as a user of the saved file would.
local best = torch.load(checkpoint)
local result = nn.Trainer(best, nn.ClassNLLCriterion()):evaluate(testLoader, { metrics = { 'accuracy', 'confusion' } })
local cm = optim.ConfusionMatrix(classes)
cm.mat:copy(result.confusion)
print(cm)
local files = trainer:plot(opt.out .. '/learning_curves.png')
files[#files + 1] = require('plot').confusion{ path = opt.out .. '/confusion.png', matrix = result.confusion,
  labels = classes, title = 'Fashion-MNIST MLP: test confusion' }
print('plots: ' .. table.concat(files, ', '))
print(string.format('test accuracy: %.2f%% (loss %.4f); total time %.0f s', 100 * result.accuracy, result.loss,
  timer:time().real))

local bound = opt.quick and 0.75 or 0.88
if result.accuracy < bound then
  io.stderr:write(string.format('test accuracy %.4f is below %.2f\n', result.accuracy, bound))
  os.exit(1)
end
