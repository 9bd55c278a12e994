-- One training epoch of examples/fashion_mnist_cnn.lua's model (two conv+pool blocks, dense 128,
-- optionally batch norm) over the Fashion-MNIST training images: shuffled batches of 64 from a
-- data.DataLoader, Adam, ClassNLLCriterion, Torch7's forward/backward; against the PyTorch twin
-- (bench/cnn_epoch.py: the same model, torch DataLoader and Adam) run in the same call; wall and CPU
-- seconds.
-- Usage: tocha bench/cnn_epoch.lua [threads [bn (0/1) [images (60000)]]]
require 'nn'
require 'optim'
local data = require 'data'
local H = dofile(((arg and arg[0] or ''):match('^(.*)/') or 'bench') .. '/harness.lua')
local threads = tonumber(arg and arg[1] or '1')
local bn = (arg and arg[2] or '0') == '1'
local n = tonumber(arg and arg[3] or '60000')
torch.setnumthreads(threads)
torch.manualSeed(1)

local train = data.fashionMnist()
train = train:subset(torch.range(1, n):long())

local m = nn.Sequential()
local function block(nIn, nOut)
  m:add(nn.SpatialConvolution(nIn, nOut, 3, 3, 1, 1, 1, 1))
  if bn then m:add(nn.SpatialBatchNormalization(nOut)) end
  m:add(nn.ReLU()):add(nn.SpatialMaxPooling(2, 2, 2, 2))
end
block(1, 32)
block(32, 64)
m:add(nn.View(3136)):add(nn.Linear(3136, 128))
if bn then m:add(nn.BatchNormalization(128)) end
m:add(nn.ReLU()):add(nn.Dropout(0.3)):add(nn.Linear(128, 10)):add(nn.LogSoftMax())
m.modules[1].gradInput = nil  -- the images need no gradient (PyTorch does not compute it either)
local crit = nn.ClassNLLCriterion()
local opt = optim.Adam(m, { lr = 1e-3 })
local loader = data.DataLoader(train, { batchSize = 64, shuffle = true, seed = 1 })

m:training()
local t0, c0 = torch.tic(), os.clock()
for batch in loader:iter() do
  opt:zeroGrad()
  local out = m:forward(batch.input)
  crit:forward(out, batch.target)
  m:backward(batch.input, crit:backward(out, batch.target))
  opt:step()
end
local ours, oursCpu = torch.toc(t0), os.clock() - c0

local ref = H.reference('cnn_epoch.py', threads, bn and 1 or 0, n)
print(string.format('CNN%s epoch over %d images, %d thread(s):', bn and ' with batch norm' or '', n, threads))
print(string.format('  wall: tocha %.1f s, pytorch %s s, ratio %s (> 1: tocha faster)', ours, H.fmt(ref.epoch, '%.1f'),
  H.fmt(ref.epoch and ref.epoch / ours, '%.2f')))
-- CPU time is the steadier measure on a shared machine (with 1 thread it is the work done).
print(string.format('  CPU:  tocha %.1f s, pytorch %s s, ratio %s', oursCpu, H.fmt(ref.cpu, '%.1f'),
  H.fmt(ref.cpu and ref.cpu / oursCpu, '%.2f')))
