-- Imitates torch/demos train-a-digit-classifier (train-on-mnist.lua with dataset-mnist.lua): a
-- convnet (SpatialSubtractiveNormalization with image.gaussian1D, SpatialConvolution,
-- SpatialConvolutionMap over nn.tables.random, Tanh, SpatialMaxPooling, Reshape, Linear,
-- LogSoftMax) trained with optim.sgd on mini-batches, a CG pass, optim.ConfusionMatrix,
-- optim.Logger, sys.clock/sys.dirname/sys.filep, xlua.progress and torch.save of the network.
-- The data is an "mnist-th7" file (readInt count and dim, then floats, last column the label)
-- written here from synthetic 16x16 digits (class templates plus noise) with torch.DiskFile.
-- Last line: "RESULT first=<train accuracy> last=<train accuracy> test=<accuracy> net=<path>".
require 'torch'
require 'nn'
require 'optim'
require 'image'
require 'paths'
require 'xlua'
require 'sys'

dname, fname = sys.fpath()
cmd = torch.CmdLine()
cmd:text()
cmd:text('MNIST Training')
cmd:text()
cmd:text('Options:')
cmd:option('-save', fname:gsub('.lua', ''), 'subdirectory to save/log experiments in')
cmd:option('-data', 'mnist-th7', 'folder of train.th7 and test.th7')
cmd:option('-model', 'convnet', 'type of model to train: convnet | mlp | linear')
cmd:option('-seed', 1, 'fixed input seed for repeatable experiments')
cmd:option('-learningRate', 5e-2, 'learning rate at t=0')
cmd:option('-batchSize', 10, 'mini-batch size (1 = pure stochastic)')
cmd:option('-momentum', 0.5, 'momentum (SGD only)')
cmd:option('-epochs', 3, 'number of epochs')
cmd:option('-threads', 1, 'nb of threads')
cmd:text()
opt = cmd:parse(arg)

torch.manualSeed(opt.seed)
torch.setnumthreads(opt.threads)
print('<torch> set nb of threads to ' .. torch.getnumthreads())

classes = {'1','2','3','4','5','6','7','8','9','10'}
geometry = {16, 16}

----------------------------------------------------------------------
-- the dataset files (what the demo downloaded), then dataset-mnist.lua's loader
local function writeSet(fileName, n, templates)
  local dim = geometry[1] * geometry[2] + 1
  local t = torch.Tensor(n, dim)
  for i = 1, n do
    local c = (i - 1) % 10 + 1
    t[i]:narrow(1, 1, dim - 1):copy(templates[c]):add(torch.randn(dim - 1):mul(0.3))
    t[i][dim] = c - 1
  end
  local f = torch.DiskFile(fileName, 'w')
  f:binary()
  f:writeInt(n)
  f:writeInt(dim)
  f:writeFloat(t:float():storage())
  f:close()
end
paths.mkdir(opt.data)
local templates = torch.rand(10, geometry[1] * geometry[2]):gt(0.6):float()
writeSet(paths.concat(opt.data, 'train.th7'), 200, templates)
writeSet(paths.concat(opt.data, 'test.th7'), 50, templates)

local function loadFlatDataset(fileName, maxLoad)
  local f = torch.DiskFile(fileName, 'r')
  f:binary()
  local nExample = f:readInt()
  local dim = f:readInt()
  if maxLoad and maxLoad > 0 and maxLoad < nExample then nExample = maxLoad end
  print('<mnist> reading ' .. nExample .. ' examples with ' .. dim - 1 .. '+1 dimensions...')
  local tensor = torch.Tensor(nExample, dim)
  tensor:storage():copy(f:readFloat(nExample * dim))
  f:close()
  local dataset = {}
  function dataset:normalizeGlobal(mean_, std_)
    local data = tensor:narrow(2, 1, dim - 1)
    local std = std_ or data:std()
    local mean = mean_ or data:mean()
    data:add(-mean)
    data:mul(1 / std)
    return mean, std
  end
  function dataset:size() return nExample end
  local labelvector = torch.zeros(10)
  setmetatable(dataset, {__index = function(self, index)
    local input = tensor[index]:narrow(1, 1, dim - 1)
    local class = tensor[index][dim] + 1
    local label = labelvector:zero()
    label[class] = 1
    return {input, label}
  end})
  return dataset
end

local function loadConvDataset(fileName, maxLoad)
  local dataset = loadFlatDataset(fileName, maxLoad)
  local cdataset = {}
  function cdataset:normalizeGlobal(m, s) return dataset:normalizeGlobal(m, s) end
  function cdataset:size() return dataset:size() end
  local inputpatch = torch.zeros(1, geometry[2], geometry[1])
  setmetatable(cdataset, {__index = function(self, index)
    local ex = dataset[index]
    local input = ex[1]
    local w = math.sqrt(input:nElement())
    local uinput = input:unfold(1, input:nElement(), input:nElement())
    local cinput = uinput:unfold(2, w, w)
    inputpatch:narrow(3, 1, w):narrow(2, 1, w):copy(cinput)
    return {inputpatch, ex[2]}
  end})
  return cdataset
end

----------------------------------------------------------------------
-- define model to train
model = nn.Sequential()
if opt.model == 'convnet' then
  model:add(nn.SpatialSubtractiveNormalization(1, image.gaussian1D(7)))
  model:add(nn.SpatialConvolution(1, 8, 5, 5))
  model:add(nn.Tanh())
  model:add(nn.SpatialMaxPooling(2, 2, 2, 2))
  model:add(nn.SpatialConvolutionMap(nn.tables.random(8, 16, 4), 3, 3))
  model:add(nn.Tanh())
  model:add(nn.Reshape(16 * 4 * 4))
  model:add(nn.Linear(16 * 4 * 4, 32))
  model:add(nn.Tanh())
  model:add(nn.Linear(32, #classes))
else
  model:add(nn.Reshape(geometry[1] * geometry[2]))
  model:add(nn.Linear(geometry[1] * geometry[2], #classes))
end
parameters, gradParameters = model:getParameters()
print('<mnist> using model:')
print(model)
model:add(nn.LogSoftMax())
criterion = nn.ClassNLLCriterion()

trainData = loadConvDataset(paths.concat(opt.data, 'train.th7'))
mean, std = trainData:normalizeGlobal()
testData = loadConvDataset(paths.concat(opt.data, 'test.th7'))
testData:normalizeGlobal(mean, std)

confusion = optim.ConfusionMatrix(classes)
trainLogger = optim.Logger(paths.concat(opt.save, 'train.log'))
testLogger = optim.Logger(paths.concat(opt.save, 'test.log'))

local accuracies = {}
function train(dataset)
  epoch = epoch or 1
  local time = sys.clock()
  print('<trainer> on training set:')
  print("<trainer> online epoch # " .. epoch .. ' [batchSize = ' .. opt.batchSize .. ']')
  for t = 1, dataset:size(), opt.batchSize do
    xlua.progress(t, dataset:size())
    local inputs, targets = {}, {}
    for i = t, math.min(t + opt.batchSize - 1, dataset:size()) do
      local sample = dataset[i]
      local input = sample[1]:clone()
      local _, target = sample[2]:clone():max(1)
      -- workaround, see report: Torch7's squeeze of a one-element tensor returned a number;
      -- Tocha's returns a 0-dim tensor, which optim.ConfusionMatrix:add refuses as a target
      target = target[1]
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
    if epoch == opt.epochs and t == 1 then
      -- one conjugate-gradient step, as -optimization CG did for every batch
      config_cg = config_cg or {maxIter = 3}
      optim.cg(feval, parameters, config_cg)
    else
      config = config or {learningRate = opt.learningRate, weightDecay = 0,
                          momentum = opt.momentum, learningRateDecay = 5e-7}
      optim.sgd(feval, parameters, config)
    end
  end
  time = sys.clock() - time
  time = time / dataset:size()
  print("<trainer> time to learn 1 sample = " .. (time * 1000) .. 'ms')
  print(confusion)
  accuracies[#accuracies + 1] = confusion.totalValid
  trainLogger:add{['% mean class accuracy (train set)'] = confusion.totalValid * 100}
  confusion:zero()

  local filename = paths.concat(opt.save, 'mnist.net')
  os.execute('mkdir -p ' .. sys.dirname(filename))
  if sys.filep(filename) then
    os.execute('mv ' .. filename .. ' ' .. filename .. '.old')
  end
  print('<trainer> saving network to ' .. filename)
  torch.save(filename, model)
  epoch = epoch + 1
end

function test(dataset)
  local time = sys.clock()
  print('<trainer> on testing Set:')
  for t = 1, dataset:size() do
    xlua.progress(t, dataset:size())
    local sample = dataset[t]
    local input = sample[1]
    local _, target = sample[2]:max(1)
    target = target[1] -- workaround, see report (Torch7: target:squeeze() was a number)
    confusion:add(model:forward(input), target)
  end
  time = sys.clock() - time
  time = time / dataset:size()
  print("<trainer> time to test 1 sample = " .. (time * 1000) .. 'ms')
  print(confusion)
  local acc = confusion.totalValid
  testLogger:add{['% mean class accuracy (test set)'] = confusion.totalValid * 100}
  confusion:zero()
  return acc
end

local testAcc
for e = 1, opt.epochs do
  train(trainData)
  testAcc = test(testData)
  trainLogger:style{['% mean class accuracy (train set)'] = '-'}
  testLogger:style{['% mean class accuracy (test set)'] = '-'}
  trainLogger:plot()
  testLogger:plot()
end
print(string.format('RESULT first=%.4f last=%.4f test=%.4f net=%s', accuracies[1], accuracies[#accuracies],
  testAcc, paths.concat(opt.save, 'mnist.net')))
