-- Data loading: a training loop fed by data.DataLoader with a costly Lua transform (random crop
-- with padding, flip, translation, normalization and a per-pixel Lua loop, ~1 ms a sample) on
-- CIFAR-sized images, with workers = 0 (the transform runs between training steps) against
-- workers = 1 and 2 (worker threads prepare batches during the steps). Prints the epoch times
-- and the speed-ups over workers = 0; the batches are identical in every mode (checked). "cores
-- busy" (process CPU time / wall time) shows whether the machine had a free core to overlap on:
-- on a machine loaded by other jobs every mode gets the same CPU share and no speed-up.
-- Usage: tocha bench/loader.lua [samples=1536] [batch=64] [passes=3] (passes of the per-pixel loop:
-- the cost of loading a sample)
local data = require 'data'
local T = data.transforms

local n, bs, passes = tonumber(arg[1] or '1536'), tonumber(arg[2] or '64'), tonumber(arg[3] or '3')
torch.setnumthreads(1)  -- one core for the training step, the other free for a worker
torch.manualSeed(0)

local images = torch.rand(n, 3, 32, 32)
local labels = torch.LongTensor(n):random(1, 10)
local augment = T.compose({
  T.randomCrop(32, { padding = 4 }), T.randomHorizontalFlip(), T.randomAffine{ translate = { 0.1, 0.1 } },
  T.normalize({ 0.5, 0.5, 0.5 }, { 0.25, 0.25, 0.25 }),
})
-- A decoding-like cost in plain Lua: a gamma curve applied pixel by pixel through the data pointer.
local function costly(img)
  local out = augment(img):contiguous()
  local p = out:data()
  for _ = 1, passes do
    for i = 0, out:nElement() - 1 do
      local v = p[i]
      p[i] = v >= 0 and v ^ 0.99 or -((-v) ^ 0.99)
    end
  end
  return out
end
local ds = data.TensorDataset(images, labels):map(costly, 'input')

-- The training step: a 3072-512-10 MLP, forward and backward by hand with BLAS.
local W1, W2 = torch.randn(3072, 512):mul(0.01), torch.randn(512, 10):mul(0.01)
local function step(batch)
  local x = batch.input:view(batch.input:size(1), -1)
  local h = torch.mm(x, W1):clamp(0, math.huge)
  local y = torch.mm(h, W2)
  local gy = y:clone():mul(1 / y:size(1))
  local gW2 = torch.mm(h:t(), gy)
  local gh = torch.mm(gy, W2:t()):cmul(h:gt(0):float())
  local gW1 = torch.mm(x:t(), gh)
  W1:add(-1e-3, gW1)
  W2:add(-1e-3, gW2)
end

local function epoch(workers)
  local loader = data.DataLoader(ds, { batchSize = bs, shuffle = true, seed = 1, workers = workers, prefetch = 2 })
  local sums = {}
  -- Warm-up batch (starts the workers and their Lua states), not timed.
  local it = loader:iter()
  it()
  local t0, c0 = torch.tic(), os.clock()
  for batch in loader:iter() do
    sums[#sums + 1] = batch.input:sum()
    step(batch)
  end
  local elapsed = torch.toc(t0)
  local cores = (os.clock() - c0) / elapsed  -- process CPU time over wall time: cores kept busy
  loader:close()
  return elapsed, sums, cores
end

-- The loader alone and the step alone, for context.
local function loader_only(workers)
  local loader = data.DataLoader(ds, { batchSize = bs, shuffle = true, seed = 1, workers = workers })
  local it = loader:iter()
  it()
  local t0 = torch.tic()
  for _ in loader:iter() do end
  local s = torch.toc(t0)
  loader:close()
  return s
end

print(string.format('%d samples, batches of %d, %d batches per epoch, %d cores', n, bs, math.ceil(n / bs),
  torch.getnumcores and torch.getnumcores() or 0))
local batch = data.DataLoader(ds, { batchSize = bs }):iter()()
local t0 = torch.tic()
for _ = 1, 5 do step(batch) end
print(string.format('training step alone:        %7.1f ms/batch', torch.toc(t0) / 5 * 1000))
print(string.format('loading alone, workers = 0: %7.1f ms/batch', loader_only(0) / math.ceil(n / bs) * 1000))

local base, base_sums, base_cores = epoch(0)
print(string.format('epoch with workers = 0:     %7.2f s   %.2f cores busy', base, base_cores))
for _, w in ipairs({ 1, 2 }) do
  local t, sums, cores = epoch(w)
  for i = 1, #sums do
    if sums[i] ~= base_sums[i] then error('batch ' .. i .. ' differs between workers = 0 and ' .. w) end
  end
  print(string.format('epoch with workers = %d:     %7.2f s   %.2f cores busy   speed-up %.2fx (identical batches)', w, t,
    cores, base / t))
end
