-- Imitates torch/tutorials 2_supervised (doall.lua with 1_data, 2_model, 3_loss, 4_train and
-- 5_test folded in): CmdLine options, torch.setdefaulttensortype from -type, data tables with a
-- size() function, RGB -> YUV (image.rgb2yuv), per-channel mean/std normalization and local
-- contrast normalization (nn.SpatialContrastiveNormalization with image.gaussian1D), a convnet
-- (SpatialConvolutionMM, Tanh, SpatialLPPooling, SpatialSubtractiveNormalization, View, Dropout),
-- the SGD/ASGD/LBFGS/CG choice, xlua.progress, optim.ConfusionMatrix, optim.Logger with
-- :add/:style/:plot, and torch.save of results/model.net. The "SVHN" images are random 3x16x16
-- tensors with a bright bar whose place is the class. Last line:
-- "RESULT first=<train acc> last=<train acc> test=<test acc> model=<path>".
require 'torch'
require 'image'
require 'nn'
require 'optim'
require 'xlua'
require 'sys'
require 'paths'

print '==> processing options'
cmd = torch.CmdLine()
cmd:text()
cmd:text('SVHN Loss Function')
cmd:text()
cmd:text('Options:')
cmd:option('-seed', 1, 'fixed input seed for repeatable experiments')
cmd:option('-threads', 2, 'number of threads')
cmd:option('-size', 'small', 'how many samples do we load: small | full | extra')
cmd:option('-model', 'convnet', 'type of model to construct: linear | mlp | convnet')
cmd:option('-loss', 'nll', 'type of loss function to minimize: nll | mse | margin')
cmd:option('-save', 'results', 'subdirectory to save/log experiments in')
cmd:option('-plot', false, 'live plot')
cmd:option('-optimization', 'SGD', 'optimization method: SGD | ASGD | CG | LBFGS')
cmd:option('-learningRate', 1e-1, 'learning rate at t=0')
cmd:option('-batchSize', 8, 'mini-batch size (1 = pure stochastic)')
cmd:option('-weightDecay', 0, 'weight decay (SGD only)')
cmd:option('-momentum', 0.5, 'momentum (SGD only)')
cmd:option('-t0', 1, 'start averaging at t0 (ASGD only), in nb of epochs')
cmd:option('-maxIter', 2, 'maximum nb of iterations for CG and LBFGS')
cmd:option('-type', 'float', 'type: double | float | cuda')
cmd:option('-epochs', 5, 'number of epochs')
cmd:text()
opt = cmd:parse(arg or {})

if opt.type == 'float' then
  print('==> switching to floats')
  torch.setdefaulttensortype('torch.FloatTensor')
elseif opt.type == 'double' then
  torch.setdefaulttensortype('torch.DoubleTensor')
end
torch.setnumthreads(opt.threads)
torch.manualSeed(opt.seed)

----------------------------------------------------------------------
print '==> 1_data: synthetic SVHN'
trsize, tesize = 160, 40
local function makeSet(n)
  local set = {data = torch.rand(n, 3, 16, 16), labels = torch.Tensor(n), size = function() return n end}
  for i = 1, n do
    local c = (i - 1) % 10 + 1
    set.labels[i] = c
    local r, col = ((c - 1) % 5) * 3 + 1, math.floor((c - 1) / 5) * 8 + 1
    set.data[i][{ {}, {r, r + 2}, {col, col + 6} }]:add(1.5)
  end
  return set
end
trainData, testData = makeSet(trsize), makeSet(tesize)
trainData.data = trainData.data:float()
testData.data = testData.data:float()

print '==> preprocessing data: colorspace RGB -> YUV'
for i = 1, trainData:size() do trainData.data[i] = image.rgb2yuv(trainData.data[i]) end
for i = 1, testData:size() do testData.data[i] = image.rgb2yuv(testData.data[i]) end

channels = {'y', 'u', 'v'}
mean, std = {}, {}
for i, channel in ipairs(channels) do
  mean[i] = trainData.data[{ {}, i, {}, {} }]:mean()
  std[i] = trainData.data[{ {}, i, {}, {} }]:std()
  trainData.data[{ {}, i, {}, {} }]:add(-mean[i])
  trainData.data[{ {}, i, {}, {} }]:div(std[i])
end
for i, channel in ipairs(channels) do
  testData.data[{ {}, i, {}, {} }]:add(-mean[i])
  testData.data[{ {}, i, {}, {} }]:div(std[i])
end

print '==> preprocessing data: normalize Y (luminance) channel locally'
neighborhood = image.gaussian1D(5)
-- The tutorial passed (1, neighborhood, 1): threshold 1 with Torch7's thresval default 1e-4
-- (its constructor dropped thresval), so local stds under 1 became 1e-4 and low-contrast
-- regions were multiplied by 1e4. Tocha keeps that default; thresval = 1 is given here so the
-- random images stay in range.
normalization = nn.SpatialContrastiveNormalization(1, neighborhood, 1, 1):float()
for c in ipairs(channels) do
  if c == 1 then
    for i = 1, trainData:size() do
      trainData.data[{ i, {c}, {}, {} }] = normalization:forward(trainData.data[{ i, {c}, {}, {} }])
    end
    for i = 1, testData:size() do
      testData.data[{ i, {c}, {}, {} }] = normalization:forward(testData.data[{ i, {c}, {}, {} }])
    end
  end
end
print('==> verify statistics: u channel mean ' .. trainData.data[{ {}, 2 }]:mean() .. ' std ' .. trainData.data[{ {}, 2 }]:std())

----------------------------------------------------------------------
print '==> 2_model: define parameters'
noutputs = 10
nfeats, width, height = 3, 16, 16
nstates = {8, 16, 32}
filtsize, poolsize = 3, 2
normkernel = image.gaussian1D(5)
model = nn.Sequential()
-- stage 1: filter bank -> squashing -> L2 pooling -> normalization
model:add(nn.SpatialConvolutionMM(nfeats, nstates[1], filtsize, filtsize))
model:add(nn.Tanh())
model:add(nn.SpatialLPPooling(nstates[1], 2, poolsize, poolsize, poolsize, poolsize))
model:add(nn.SpatialSubtractiveNormalization(nstates[1], normkernel))
-- stage 2: standard 2-layer neural network
model:add(nn.View(nstates[1] * 7 * 7))
model:add(nn.Dropout(0.2))
model:add(nn.Linear(nstates[1] * 7 * 7, nstates[3]))
model:add(nn.Tanh())
model:add(nn.Linear(nstates[3], noutputs))

print '==> 3_loss: negative log-likelihood'
model:add(nn.LogSoftMax())
criterion = nn.ClassNLLCriterion()
print(model)

----------------------------------------------------------------------
print '==> 4_train: defining some tools'
classes = {'1','2','3','4','5','6','7','8','9','0'}
confusion = optim.ConfusionMatrix(classes)
trainLogger = optim.Logger(paths.concat(opt.save, 'train.log'))
testLogger = optim.Logger(paths.concat(opt.save, 'test.log'))
if model then parameters, gradParameters = model:getParameters() end

print '==> configuring optimizer'
if opt.optimization == 'CG' then
  optimState = {maxIter = opt.maxIter}
  optimMethod = optim.cg
elseif opt.optimization == 'LBFGS' then
  optimState = {learningRate = opt.learningRate, maxIter = opt.maxIter, nCorrection = 10}
  optimMethod = optim.lbfgs
elseif opt.optimization == 'SGD' then
  optimState = {learningRate = opt.learningRate, weightDecay = opt.weightDecay,
                momentum = opt.momentum, learningRateDecay = 1e-7}
  optimMethod = optim.sgd
elseif opt.optimization == 'ASGD' then
  optimState = {eta0 = opt.learningRate, t0 = trsize * opt.t0}
  optimMethod = optim.asgd
else
  error('unknown optimization method')
end

local trainAcc = {}
function train()
  epoch = epoch or 1
  local time = sys.clock()
  model:training()
  shuffle = torch.randperm(trsize)
  print('==> doing epoch on training data:')
  print("==> online epoch # " .. epoch .. ' [batchSize = ' .. opt.batchSize .. ']')
  for t = 1, trainData:size(), opt.batchSize do
    xlua.progress(t, trainData:size())
    local inputs, targets = {}, {}
    for i = t, math.min(t + opt.batchSize - 1, trainData:size()) do
      local input = trainData.data[shuffle[i]]
      local target = trainData.labels[shuffle[i]]
      if opt.type == 'double' then input = input:double() end
      table.insert(inputs, input)
      table.insert(targets, target)
    end
    local feval = function(x)
      if x ~= parameters then parameters:copy(x) end
      gradParameters:zero()
      local f = 0
      for i = 1, #inputs do
        local output = model:forward(inputs[i])
        local err = criterion:forward(output, targets[i])
        f = f + err
        local df_do = criterion:backward(output, targets[i])
        model:backward(inputs[i], df_do)
        confusion:add(output, targets[i])
      end
      gradParameters:div(#inputs)
      f = f / #inputs
      return f, gradParameters
    end
    if optimMethod == optim.asgd then
      _, _, average = optimMethod(feval, parameters, optimState)
    else
      optimMethod(feval, parameters, optimState)
    end
  end
  time = sys.clock() - time
  time = time / trainData:size()
  print("\n==> time to learn 1 sample = " .. (time * 1000) .. 'ms')
  print(confusion)
  trainAcc[#trainAcc + 1] = confusion.totalValid
  trainLogger:add{['% mean class accuracy (train set)'] = confusion.totalValid * 100}
  if opt.plot then
    trainLogger:style{['% mean class accuracy (train set)'] = '-'}
    trainLogger:plot()
  end
  local filename = paths.concat(opt.save, 'model.net')
  os.execute('mkdir -p ' .. sys.dirname(filename))
  print('==> saving model to ' .. filename)
  torch.save(filename, model)
  confusion:zero()
  epoch = epoch + 1
end

function test()
  local time = sys.clock()
  if average then
    cachedparams = parameters:clone()
    parameters:copy(average)
  end
  model:evaluate()
  print('==> testing on test set:')
  for t = 1, testData:size() do
    xlua.progress(t, testData:size())
    local input = testData.data[t]
    if opt.type == 'double' then input = input:double() end
    local target = testData.labels[t]
    local pred = model:forward(input)
    confusion:add(pred, target)
  end
  time = sys.clock() - time
  time = time / testData:size()
  print("\n==> time to test 1 sample = " .. (time * 1000) .. 'ms')
  print(confusion)
  local acc = confusion.totalValid
  testLogger:add{['% mean class accuracy (test set)'] = confusion.totalValid * 100}
  if opt.plot then
    testLogger:style{['% mean class accuracy (test set)'] = '-'}
    testLogger:plot()
  end
  if average then parameters:copy(cachedparams) end
  confusion:zero()
  return acc
end

print '==> training!'
local testAcc
for e = 1, opt.epochs do
  train()
  testAcc = test()
end
print(string.format('RESULT first=%.4f last=%.4f test=%.4f model=%s', trainAcc[1], trainAcc[#trainAcc],
  testAcc, paths.concat(opt.save, 'model.net')))
