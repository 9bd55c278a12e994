-- Data-parallel training of an MLP on Fashion-MNIST with torch.distributed (MPI): every rank
-- reads its shard of each epoch, gradients are averaged across ranks during backward.
-- Run it with:  mpirun -np 2 tocha examples/distributed_mnist.lua [--quick] [--epochs 3]
-- (as root add --allow-run-as-root; more ranks than cores need --oversubscribe).
require 'nn'
require 'optim'
local data = require 'data'
local dist = torch.distributed

local cmd = torch.CmdLine()
cmd:text('Data-parallel MLP on Fashion-MNIST')
cmd:option('--quick', false, 'a small subset and a short run (what ctest runs)')
cmd:option('--epochs', 3, 'epochs')
cmd:option('--batchSize', 128, 'global batch size (split across the ranks)')
cmd:option('--lr', 0.1, 'learning rate')
cmd:option('--threads', 1, 'threads per rank')
cmd:option('--save', '', 'file for the trained model (written by rank 0)')
local opt = cmd:parse(arg or {})

dist.init{ backend = 'mpi' }
local rank, size = dist.rank(), dist.size()
torch.setnumthreads(opt.threads)
torch.manualSeed(1234 + rank)  -- different on purpose: DDP broadcasts rank 0's parameters

local train, test = data.fashionMnist()
local epochs = opt.epochs
if opt.quick then
  train, test = train:subset(torch.range(1, 4096):long()), test:subset(torch.range(1, 1000):long())
  epochs = 2
end
local function log(...) if rank == 0 then print(string.format(...)) end end
log('%d ranks, %d training samples, %d epochs, global batch %d', size, train:size(), epochs, opt.batchSize)

local model = nn.Sequential()
  :add(nn.Reshape(784)):add(nn.Linear(784, 128)):add(nn.ReLU())
  :add(nn.Linear(128, 10)):add(nn.LogSoftMax())
local ddp = nn.DistributedDataParallel(model)
local crit = nn.ClassNLLCriterion()
local params, grads = ddp:getParameters()
local state = { learningRate = opt.lr, momentum = 0.9 }

local sampler = data.DistributedSampler(train, { seed = 1 })
local loader = data.DataLoader(train, { batchSize = math.max(1, math.floor(opt.batchSize / size)), sampler = sampler })

-- Each rank scores its shard of the test set; the counts are summed across ranks.
local function accuracy()
  ddp:evaluate()
  local shard = data.DistributedSampler(test, { shuffle = false, dropLast = true })
  local counts = torch.DoubleTensor(2):zero()
  for batch in data.DataLoader(test, { batchSize = 500, sampler = shard }):iter() do
    local _, pred = ddp:forward(batch.input):max(2)
    counts[1] = counts[1] + pred:view(-1):eq(batch.target:long()):sum()
    counts[2] = counts[2] + batch.target:size(1)
  end
  ddp:training()
  dist.allReduce(counts)
  return counts[1] / counts[2]
end

for epoch = 1, epochs do
  sampler:setEpoch(epoch)
  local total, n = 0, 0
  for batch in loader:iter({ progress = 'epoch ' .. epoch }) do
    local _, loss = optim.sgd(function()
      grads:zero()
      local out = ddp:forward(batch.input)
      local l = crit:forward(out, batch.target)
      ddp:backward(batch.input, crit:backward(out, batch.target))
      return l, grads
    end, params, state)
    total, n = total + loss[1], n + 1
  end
  local mean = dist.allReduce(torch.DoubleTensor({ total / n }), 'avg')[1]
  log('epoch %d: train loss %.4f, test accuracy %.2f%%', epoch, mean, 100 * accuracy())
end

-- Every rank holds the same parameters (the averaged gradients kept them in step).
local spread = dist.allReduce(params:clone():double(), 'max'):add(-1, dist.allReduce(params:clone():double(), 'min'))
local final = accuracy()
log('final test accuracy %.2f%%, parameter spread across ranks %g', 100 * final, spread:abs():max())
if opt.quick then
  assert(spread:abs():max() == 0, 'ranks ended with different parameters')
  assert(final > 0.6, string.format('accuracy %.3f is too low for the quick run', final))
  log('distributed_mnist: OK')
end
if opt.save ~= '' and rank == 0 then torch.save(opt.save, model) end
