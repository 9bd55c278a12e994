-- Imitates soumith/imagenet-multiGPU.torch's dataset.lua and donkey.lua (without penlight and
-- argcheck, which that code also used): class folders found with paths.iterdirs, image paths
-- gathered by GNU find through a bash script of os.tmpname files, counted with sys.fexecute
-- (wc -l / wc -L | cut), stored one per row in a byte tensor with ffi.copy and read back with
-- ffi.string, per-class index lists from torch.linspace, a train/test split with torch.randperm,
-- the loader object cached with torch.save and reloaded (hooks reattached), mean/std estimation
-- with xlua.progress, then a few SGD steps of a small convnet on sampled batches.
-- The "images" are 3x12x12 tensors saved as .t7 files (the original decoded JPEGs with image.load).
-- Usage: imagenet_dataset.lua -data <root> -cache <dir>. Last line:
-- "RESULT samples=<n> classes=<n> train=<n> test=<n> first=<loss> last=<loss> cache=<path>".
require 'torch'
require 'nn'
require 'optim'
require 'sys'
require 'xlua'
require 'paths'
local ffi = require 'ffi'
torch.setdefaulttensortype('torch.FloatTensor')

local cmd = torch.CmdLine()
cmd:option('-data', 'imagenet', 'root folder: <root>/train/<class>/*.t7')
cmd:option('-cache', 'cache', 'where trainCache.t7 goes')
cmd:option('-nClasses', 3, 'classes to generate')
cmd:option('-perClass', 12, 'images per class')
cmd:option('-iters', 30, 'training iterations')
opt = cmd:parse(arg)
torch.manualSeed(7)

-- the data folder (what ILSVRC2012_img_train looked like), generated once
local trainDir = paths.concat(opt.data, 'train')
if not paths.dirp(trainDir) then
  for c = 1, opt.nClasses do
    local classDir = paths.concat(trainDir, string.format('n%08d', c))
    os.execute('mkdir -p "' .. classDir .. '"')
    for i = 1, opt.perClass do
      local img = torch.rand(3, 12, 12)
      img[c]:add(1)
      torch.save(paths.concat(classDir, string.format('img_%04d.t7', i)), img)
    end
    -- files find must skip
    local f = io.open(paths.concat(classDir, 'README.txt'), 'w') f:write('not an image\n') f:close()
  end
end

---------------------------------------------------------------------- dataset.lua
local dataset = torch.class('dataLoader')

function dataset:__init(args)
  for k, v in pairs(args) do self[k] = v end
  if not self.sampleHookTrain then self.sampleHookTrain = self.defaultSampleHook end
  -- find class names, and the directory paths per class
  self.classes = {}
  local classPaths = {}
  local function tableFind(t, o) for k, v in pairs(t) do if v == o then return k end end end
  for _, path in ipairs(self.paths) do
    local dirs = {}
    for d in paths.iterdirs(path) do dirs[#dirs + 1] = paths.concat(path, d) end
    table.sort(dirs)
    for _, dirpath in ipairs(dirs) do
      local class = paths.basename(dirpath)
      local idx = tableFind(self.classes, class)
      if not idx then
        table.insert(self.classes, class)
        idx = #self.classes
        classPaths[idx] = {}
      end
      table.insert(classPaths[idx], dirpath)
    end
  end
  self.classIndices = {}
  for k, v in ipairs(self.classes) do self.classIndices[v] = k end

  local wc, cut, find = 'wc', 'cut', 'find'
  local findOptions = ' -iname "*.t7"'
  self.imagePath = torch.ByteTensor()  -- workaround, see report: was torch.CharTensor()
  self.imageClass = torch.LongTensor()
  self.classList = {}
  self.classListSample = self.classList

  local classFindFiles = {}
  for i = 1, #self.classes do classFindFiles[i] = os.tmpname() end
  local combinedFindList = os.tmpname()
  local tmpfile = os.tmpname()
  local tmphandle = assert(io.open(tmpfile, 'w'))
  for i, class in ipairs(self.classes) do
    for j, path in ipairs(classPaths[i]) do
      -- sorted, so the rows do not depend on the file system's order
      tmphandle:write(find .. ' "' .. path .. '" ' .. findOptions .. ' | sort >>"' .. classFindFiles[i] .. '" \n')
    end
  end
  io.close(tmphandle)
  os.execute('bash ' .. tmpfile)
  os.execute('rm -f ' .. tmpfile)

  tmpfile = os.tmpname()
  tmphandle = assert(io.open(tmpfile, 'w'))
  for i = 1, #self.classes do
    tmphandle:write('cat "' .. classFindFiles[i] .. '" >>' .. combinedFindList .. ' \n')
  end
  io.close(tmphandle)
  os.execute('bash ' .. tmpfile)
  os.execute('rm -f ' .. tmpfile)

  local maxPathLength = tonumber(sys.fexecute(wc .. " -L '" .. combinedFindList .. "' |" .. cut .. " -f1 -d' '")) + 1
  local length = tonumber(sys.fexecute(wc .. " -l '" .. combinedFindList .. "' |" .. cut .. " -f1 -d' '"))
  assert(length > 0, "Could not find any image file in the given input paths")
  self.imagePath:resize(length, maxPathLength):fill(0)
  local s_data = self.imagePath:data()
  local count = 0
  for line in io.lines(combinedFindList) do
    ffi.copy(s_data, line)
    s_data = s_data + maxPathLength
    if self.verbose then xlua.progress(count + 1, length) end
    count = count + 1
  end
  self.numSamples = self.imagePath:size(1)

  self.imageClass:resize(self.numSamples)
  local runningIndex = 0
  for i = 1, #self.classes do
    local length = tonumber(sys.fexecute(wc .. " -l '" .. classFindFiles[i] .. "' |" .. cut .. " -f1 -d' '"))
    if length == 0 then error('Class has zero samples') end
    self.classList[i] = torch.linspace(runningIndex + 1, runningIndex + length, length):long()
    self.imageClass[{{runningIndex + 1, runningIndex + length}}]:fill(i)
    runningIndex = runningIndex + length
  end
  for i = 1, #classFindFiles do os.execute('rm -f "' .. classFindFiles[i] .. '"') end
  os.execute('rm -f "' .. combinedFindList .. '"')

  -- split into train and test lists, per class
  self.classListTrain, self.classListTest = {}, {}
  self.classListSample = self.classListTrain
  local totalTestSamples = 0
  for i = 1, #self.classes do
    local list = self.classList[i]
    local count = list:size(1)
    local splitidx = math.floor((count * self.split / 100) + 0.5)
    local perm = torch.randperm(count)
    self.classListTrain[i] = torch.LongTensor(splitidx)
    for j = 1, splitidx do self.classListTrain[i][j] = list[perm[j]] end
    self.classListTest[i] = torch.LongTensor(count - splitidx)
    for j = splitidx + 1, count do self.classListTest[i][j - splitidx] = list[perm[j]] end
    totalTestSamples = totalTestSamples + count - splitidx
  end
  self.testIndicesSize = totalTestSamples
end

function dataset:size(class, list)
  list = list or self.classList
  if not class then return self.numSamples
  elseif type(class) == 'string' then return list[self.classIndices[class]]:size(1)
  else return list[class]:size(1) end
end

function dataset:getByClass(class)
  local index = math.max(1, math.ceil(torch.uniform() * self.classListSample[class]:nElement()))
  -- workaround, see report: was ffi.string(torch.data(self.imagePath[...]))
  local imgpath = ffi.string(self.imagePath[self.classListSample[class][index]]:data())
  return self:sampleHookTrain(imgpath)
end

function dataset:sample(quantity)
  local data = torch.Tensor(quantity, 3, 12, 12)
  local scalarLabels = torch.LongTensor(quantity):fill(-1111)
  for i = 1, quantity do
    local class = torch.random(1, #self.classes)
    data[i]:copy(self:getByClass(class))
    scalarLabels[i] = class
  end
  return data, scalarLabels
end

---------------------------------------------------------------------- donkey.lua
local mean, std
local function trainHook(self, path)
  local input = torch.load(path)
  if mean then for i = 1, 3 do input[i]:add(-mean[i]):div(std[i]) end end
  if torch.uniform() > 0.5 then input = input:index(3, torch.range(12, 1, -1):long()) end
  return input
end

paths.mkdir(opt.cache)
local trainCache = paths.concat(opt.cache, 'trainCache.t7')
if paths.filep(trainCache) then
  print('Loading train metadata from cache')
  trainLoader = torch.load(trainCache)
  trainLoader.sampleHookTrain = trainHook
else
  print('Creating train metadata')
  trainLoader = dataLoader{paths = {trainDir}, split = 75, verbose = true}
  torch.save(trainCache, trainLoader)
  trainLoader.sampleHookTrain = trainHook
end
collectgarbage()

print('Estimating the mean,std (per-channel, shared for all pixels) over a few sampled images')
local nSamples = 12
local tm = torch.Timer()
local meanEstimate, stdEstimate = {0, 0, 0}, {0, 0, 0}
for i = 1, nSamples do
  local img = trainLoader:sample(1)[1]
  for j = 1, 3 do
    meanEstimate[j] = meanEstimate[j] + img[j]:mean()
    stdEstimate[j] = stdEstimate[j] + img[j]:std()
  end
  xlua.progress(i, nSamples)
end
for j = 1, 3 do meanEstimate[j] = meanEstimate[j] / nSamples; stdEstimate[j] = stdEstimate[j] / nSamples end
mean, std = meanEstimate, stdEstimate
print('Time to estimate:', tm:time().real)

---------------------------------------------------------------------- a few training steps
local nc = #trainLoader.classes
local model = nn.Sequential()
  :add(nn.SpatialConvolution(3, 8, 3, 3)):add(nn.ReLU(true))
  :add(nn.SpatialMaxPooling(2, 2, 2, 2))
  :add(nn.View(8 * 5 * 5)):add(nn.Linear(8 * 5 * 5, nc))
local criterion = nn.CrossEntropyCriterion()
local parameters, gradParameters = model:getParameters()
local optimState = {learningRate = 0.05, momentum = 0.9}
local losses = {}
for it = 1, opt.iters do
  local inputs, labels = trainLoader:sample(16)
  local feval = function(x)
    gradParameters:zero()
    local outputs = model:forward(inputs)
    local err = criterion:forward(outputs, labels)
    model:backward(inputs, criterion:backward(outputs, labels))
    return err, gradParameters
  end
  local _, fs = optim.sgd(feval, parameters, optimState)
  losses[it] = fs[1]
end
local function avg(a, b) local s = 0 for i = a, b do s = s + losses[i] end return s / (b - a + 1) end
print(string.format('RESULT samples=%d classes=%d train=%d test=%d first=%.6f last=%.6f cache=%s',
  trainLoader:size(), nc, trainLoader:size(1, trainLoader.classListTrain) * nc, trainLoader.testIndicesSize,
  avg(1, 5), avg(opt.iters - 4, opt.iters), trainCache))
