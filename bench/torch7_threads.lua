-- Data loading throughput, Torch7 style: threads.Threads workers (imagenet-multiGPU.torch's donkey
-- pattern, threads.sharedserialize) build 32x3x224x224 float batches from random uint8 3x256x256
-- images (image.crop at a random offset, image.hflip half the time, per-channel normalize, all in
-- the worker) against the same samples through Tocha's data.DataLoader (workers 2) and PyTorch's
-- DataLoader (num_workers 2, bench/torch7_threads_ref.py), and the same job run in the main
-- state (no workers). Prints images/s; the main state only receives the batches.
-- Usage: tocha bench/torch7_threads.lua [batches=24] [workers=2]
local threads = require 'threads'
local data = require 'data'
require 'image'
local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*)/[^/]*$') or '.') .. '/harness.lua')

local nBatches, W = tonumber(arg[1] or '24'), tonumber(arg[2] or '2')
local N, S, C, BS = 256, 256, 224, 32
torch.setnumthreads(1)
torch.manualSeed(0)
local images = torch.ByteTensor(N, 3, S, S):random(0, 255)
local labels = torch.LongTensor(N):random(1, 1000)
local mean, std = { 0.485, 0.456, 0.406 }, { 0.229, 0.224, 0.225 }

-- One sample: a random 224 crop, flipped half the time, as floats normalized per channel.
local function sample(img)
  local image = require 'image'
  local x, y = torch.random(0, S - C), torch.random(0, S - C)
  local crop = image.crop(img, x, y, x + C, y + C)
  if torch.uniform() < 0.5 then crop = image.hflip(crop) end
  local out = torch.FloatTensor(3, C, C):copy(crop)
  for c = 1, 3 do out[c]:add(-mean[c] * 255):div(std[c] * 255) end
  return out
end

-- The worker's job: a whole batch (the donkey's trainLoader:sample(batchSize)).
local function job(bs)
  local batch, target = torch.FloatTensor(bs, 3, C, C), torch.LongTensor(bs)
  for i = 1, bs do
    local idx = torch.random(1, N)
    batch[i]:copy(sample(images[idx]))
    target[i] = labels[idx]
  end
  return batch, target
end

local results = {}

-- (a) the job in the main state
do
  job(BS)
  local n, t0 = 0, torch.tic()
  for _ = 1, math.max(2, math.floor(nBatches / 4)) do n = n + job(BS):size(1) end
  results.main = n / torch.toc(t0)
end

-- (b) threads.Threads
do
  threads.serialization('threads.sharedserialize')
  local pool = threads.Threads(W, function() require 'torch'; require 'image' end,
    function(idx) torch.setnumthreads(1); torch.manualSeed(idx) end)
  local seen = 0
  local function got(batch) seen = seen + batch:size(1) end
  for _ = 1, W do pool:addjob(job, got, BS) end  -- warm-up: the workers' first job copies job's upvalues
  pool:synchronize()
  seen = 0
  local t0 = torch.tic()
  for _ = 1, nBatches do pool:addjob(job, got, BS) end
  pool:synchronize()
  results.threads = seen / torch.toc(t0)
  pool:terminate()
end

-- (c) data.DataLoader over a dataset doing the same per sample (persistent workers; the first
-- epoch starts them and is not timed)
do
  local ds = data.TensorDataset(images, labels):map(sample, 'input')
  local loader = data.DataLoader(ds, { batchSize = BS, shuffle = true, dropLast = true, workers = W,
    persistentWorkers = true, seed = 1 })
  for _ in loader:iter() do end
  local seen, t0 = 0, torch.tic()
  while seen < nBatches * BS do
    for batch in loader:iter() do
      seen = seen + batch.input:size(1)
      if seen >= nBatches * BS then break end
    end
  end
  results.dataloader = seen / torch.toc(t0)
  loader:close()
end

local ref = H.reference('torch7_threads_ref.py', nBatches, W)
print(string.format('%d batches of %dx3x%dx%d floats from uint8 3x%dx%d images (crop, flip, normalize), %d workers',
  nBatches, BS, C, C, S, S, W))
print(string.format('%-34s %10s %12s', 'pipeline', 'images/s', 'vs PyTorch'))
local py = ref.pytorch_dataloader
for _, r in ipairs({ { 'threads.Threads (sharedserialize)', results.threads },
                     { 'data.DataLoader', results.dataloader }, { 'main state, no workers', results.main } }) do
  print(string.format('%-34s %10.0f %12s', r[1], r[2], py and string.format('%.2fx', r[2] / py) or 'n/a'))
end
print(string.format('%-34s %10s', 'PyTorch DataLoader (num_workers ' .. W .. ')', H.fmt(py, '%.0f')))
print(string.format('%-34s %10s', 'PyTorch, main process', H.fmt(ref.pytorch_main, '%.0f')))
print('vs PyTorch: images/s over PyTorch DataLoader images/s (higher is better)')
