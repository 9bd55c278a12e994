-- Imitates facebook/fb.resnet.torch (main.lua, opts.lua, dataloader.lua, datasets/cifar10.lua,
-- train.lua and checkpoints.lua folded into this file; models/resnet.lua beside it, loaded with
-- require('models/' .. opt.netType) as main.lua did, so run it from this folder): a threaded
-- data loader (threads.Threads with an init and a main function, threads.sharedserialize,
-- addjob/dojob with acceptsjob and hasjob), a dataset class whose instance travels to the
-- threads, a CIFAR-style ResNet, optim.sgd with nesterov momentum, top-1 error from topk, and
-- checkpoints (deepCopy with torch.setmetatable, clearState, model_<epoch>.t7,
-- optimState_<epoch>.t7, latest.t7). Images are random 3x16x16 bytes with a class-dependent
-- colour. Last line: "RESULT first=<loss> last=<loss> top1=<val error %> latest=<path>".
require 'torch'
require 'paths'
require 'optim'
require 'nn'
local threads = require 'threads'
threads.serialization('threads.sharedserialize')

local cmd = torch.CmdLine()
cmd:text()
cmd:text('Torch-7 ResNet Training script')
cmd:text()
cmd:text('Options:')
cmd:option('-dataset', 'synthetic', 'Options: imagenet | cifar10 | synthetic')
cmd:option('-manualSeed', 2, 'Manually set RNG seed')
cmd:option('-nThreads', 2, 'number of data loading threads')
cmd:option('-nEpochs', 3, 'Number of total epochs to run')
cmd:option('-batchSize', 16, 'mini-batch size (1 = pure stochastic)')
cmd:option('-save', 'checkpoints', 'Directory in which to save checkpoints')
cmd:option('-LR', 0.02, 'initial learning rate')
cmd:option('-momentum', 0.9, 'momentum')
cmd:option('-weightDecay', 1e-4, 'weight decay')
cmd:option('-netType', 'resnet', 'Options: resnet | preresnet')
cmd:option('-depth', 8, 'ResNet depth: 6n+2')
cmd:option('-shortcutType', 'A', 'Options: A | B | C')
cmd:option('-nClasses', 4, 'Number of classes in the dataset')
cmd:option('-nTrain', 128, 'training images')
cmd:option('-nVal', 32, 'validation images')
cmd:text()
local opt = cmd:parse(arg or {})
torch.manualSeed(opt.manualSeed)
torch.setnumthreads(1)
if not paths.dirp(opt.save) and not paths.mkdir(opt.save) then
  cmd:error('error: unable to create checkpoint directory: ' .. opt.save .. '\n')
end

-------------------------------------------------------------------- datasets
-- datasets/<name>.lua in fb.resnet: every thread's init function defines the class again
local function defineDataset()
  local M = {}
  local SyntheticDataset = torch.class('resnet.SyntheticDataset', M)
  function SyntheticDataset:__init(imageInfo, opt, split)
    assert(imageInfo[split], split)
    self.imageInfo = imageInfo[split]
    self.split = split
  end
  function SyntheticDataset:get(i)
    local image = self.imageInfo.data[i]:float()
    local label = self.imageInfo.labels[i]
    return {input = image, target = label}
  end
  function SyntheticDataset:size() return self.imageInfo.data:size(1) end
  local meanstd = {mean = {125.3, 123.0, 113.9}, std = {63.0, 62.1, 66.7}}
  function SyntheticDataset:preprocess()
    local split = self.split
    return function(img)
      img = img:clone()
      for i = 1, 3 do img[i]:add(-meanstd.mean[i]):div(meanstd.std[i]) end
      if split == 'train' and torch.uniform() < 0.5 then
        img = img:index(3, torch.range(img:size(3), 1, -1):long())  -- horizontal flip
      end
      return img
    end
  end
  return M
end
local datasets = defineDataset()

local function makeImages(n, nClasses)
  local data = torch.ByteTensor(n, 3, 16, 16)
  local labels = torch.LongTensor(n)
  for i = 1, n do
    local c = (i - 1) % nClasses + 1
    labels[i] = c
    local img = torch.rand(3, 16, 16):mul(120)
    img[(c - 1) % 3 + 1]:add(c <= 3 and 120 or 60)
    data[i]:copy(img)
  end
  return data, labels
end
local trainX, trainY = makeImages(opt.nTrain, opt.nClasses)
local valX, valY = makeImages(opt.nVal, opt.nClasses)
local imageInfo = {train = {data = trainX, labels = trainY}, val = {data = valX, labels = valY}}

-------------------------------------------------------------------- dataloader
local M = {}
local DataLoader = torch.class('resnet.DataLoader', M)

function DataLoader:__init(dataset, opt, split)
  local manualSeed = opt.manualSeed
  local function init()
    require 'torch'
    defineDataset()
  end
  local function main(idx)
    if manualSeed ~= 0 then torch.manualSeed(manualSeed + idx) end
    torch.setnumthreads(1)
    _G.dataset = dataset
    _G.preprocess = dataset:preprocess()
    return dataset:size()
  end
  local pool, sizes = threads.Threads(opt.nThreads, init, main)
  self.threads = pool
  self.__size = sizes[1][1]
  self.batchSize = opt.batchSize
end

function DataLoader:size() return math.ceil(self.__size / self.batchSize) end

function DataLoader:run()
  local pool = self.threads
  local size, batchSize = self.__size, self.batchSize
  local perm = torch.randperm(size)
  local idx, sample = 1, nil
  local function enqueue()
    while idx <= size and pool:acceptsjob() do
      local indices = perm:narrow(1, idx, math.min(batchSize, size - idx + 1))
      pool:addjob(
        function(indices)
          local sz = indices:size(1)
          local batch, imageSize
          local target = torch.IntTensor(sz)
          for i, idx in ipairs(indices:totable()) do
            local sample = _G.dataset:get(idx)
            local input = _G.preprocess(sample.input)
            if not batch then
              imageSize = input:size():totable()
              -- workaround, see report: fb.resnet wrote table.unpack (Torch7's LuaJIT was built
              -- with LUAJIT_ENABLE_LUA52COMPAT); Tocha's LuaJIT has no table.unpack
              batch = torch.FloatTensor(sz, unpack(imageSize))
            end
            batch[i]:copy(input)
            target[i] = sample.target
          end
          collectgarbage()
          return {input = batch:view(sz, unpack(imageSize)), target = target} -- workaround, see report
        end,
        function(_sample_) sample = _sample_ end,
        indices)
      idx = idx + batchSize
    end
  end
  local n = 0
  local function loop()
    enqueue()
    if not pool:hasjob() then return nil end
    pool:dojob()
    if pool:haserror() then pool:synchronize() end
    enqueue()
    n = n + 1
    return n, sample
  end
  return loop
end

-------------------------------------------------------------------- checkpoints
local checkpoint = {}
local function deepCopy(tbl)
  -- creates a copy of a network with new modules and the same tensors
  local copy = {}
  for k, v in pairs(tbl) do
    if type(v) == 'table' then copy[k] = deepCopy(v) else copy[k] = v end
  end
  if torch.typename(tbl) then torch.setmetatable(copy, torch.typename(tbl)) end
  return copy
end
function checkpoint.latest(opt)
  local latestPath = paths.concat(opt.save, 'latest.t7')
  if not paths.filep(latestPath) then return nil end
  print('=> Loading checkpoint ' .. latestPath)
  local latest = torch.load(latestPath)
  local optimState = torch.load(paths.concat(opt.save, latest.optimFile))
  return latest, optimState
end
function checkpoint.save(epoch, model, optimState, isBestModel, opt)
  model = deepCopy(model):float():clearState()
  local modelFile = 'model_' .. epoch .. '.t7'
  local optimFile = 'optimState_' .. epoch .. '.t7'
  torch.save(paths.concat(opt.save, modelFile), model)
  torch.save(paths.concat(opt.save, optimFile), optimState)
  torch.save(paths.concat(opt.save, 'latest.t7'), {epoch = epoch, modelFile = modelFile, optimFile = optimFile})
  if isBestModel then torch.save(paths.concat(opt.save, 'model_best.t7'), model) end
end

-------------------------------------------------------------------- train
local function computeScore(output, target)
  local batchSize = output:size(1)
  local _, predictions = output:float():topk(2, 2, true, true) -- descending
  local correct = predictions:eq(target:long():view(batchSize, 1):expandAs(predictions))
  return (1.0 - (correct:narrow(2, 1, 1):sum() / batchSize)) * 100
end

local model = require('models/' .. opt.netType)(opt)
local criterion = nn.CrossEntropyCriterion():float()
local trainLoader = M.DataLoader(datasets.SyntheticDataset(imageInfo, opt, 'train'), opt, 'train')
local valLoader = M.DataLoader(datasets.SyntheticDataset(imageInfo, opt, 'val'), opt, 'val')
local optimState = {learningRate = opt.LR, learningRateDecay = 0.0, momentum = opt.momentum,
                    nesterov = true, dampening = 0.0, weightDecay = opt.weightDecay}
local params, gradParams = model:getParameters()
local input, target = torch.FloatTensor(), torch.LongTensor()
local function feval() return criterion.output, gradParams end

local losses, bestTop1, top1 = {}, math.huge, nil
for epoch = 1, opt.nEpochs do
  model:training()
  local lossSum, N = 0, 0
  for n, sample in trainLoader:run() do
    input:resize(sample.input:size()):copy(sample.input)
    target:resize(sample.target:size()):copy(sample.target)
    local output = model:forward(input):float()
    local loss = criterion:forward(model.output, target)
    model:zeroGradParameters()
    criterion:backward(model.output, target)
    model:backward(input, criterion.gradInput)
    optim.sgd(feval, params, optimState)
    lossSum, N = lossSum + loss, N + 1
    print((' | Epoch: [%d][%d/%d]  Loss %1.4f'):format(epoch, n, trainLoader:size(), loss))
  end
  losses[epoch] = lossSum / N
  model:evaluate()
  local top1Sum, M = 0, 0
  for n, sample in valLoader:run() do
    input:resize(sample.input:size()):copy(sample.input)
    target:resize(sample.target:size()):copy(sample.target)
    top1Sum = top1Sum + computeScore(model:forward(input), target) * sample.input:size(1)
    M = M + sample.input:size(1)
  end
  top1 = top1Sum / M
  print((' * Finished epoch # %d     top1: %7.3f'):format(epoch, top1))
  local bestModel = top1 < bestTop1
  if bestModel then bestTop1 = top1 end
  checkpoint.save(epoch, model, optimState, bestModel, opt)
end
trainLoader.threads:terminate()
valLoader.threads:terminate()

local latest, savedState = checkpoint.latest(opt)
assert(latest.epoch == opt.nEpochs and savedState.momentum == opt.momentum)
print(string.format('RESULT first=%.6f last=%.6f top1=%.3f latest=%s', losses[1], losses[#losses], top1,
  paths.concat(opt.save, 'latest.t7')))
