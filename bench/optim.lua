-- Optimizer step time: Tocha's fused updates (optim.adam on a flat vector, optim.Adam and
-- optim.SGD per tensor) against the same update composed of tensor ops (Torch7's way) and
-- against PyTorch's torch.optim (bench/optim.py) measured in the same run.
-- Usage: tocha bench/optim.lua [threads]   (PyTorch from Debian's python3-torch)
require 'optim'
local threads = tonumber(arg[1] or '1')
torch.setnumthreads(threads)

local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*)/[^/]*$') or '.') .. '/harness.lua')
local function bench(fn, n) return H.best(fn, n, 1) * 1e6 end

torch.manualSeed(1)
local N = 4 * 1024 * 1024
local x, g = torch.FloatTensor(N):uniform(-1, 1), torch.FloatTensor(N):uniform(-1, 1)
local function feval() return 0, g end
local adam_config = { learningRate = 1e-3 }
-- Torch7's optim.adam, op by op (before fusion): m, v, denom buffers and five passes.
local m, v, denom = torch.zerosLike(x), torch.zerosLike(x), torch.zerosLike(x)
local t = 0
local function composed_adam()
  t = t + 1
  m:mul(0.9):add(0.1, g)
  v:mul(0.999):addcmul(0.001, g, g)
  denom:copy(v):sqrt():add(1e-8)
  local step = 1e-3 * math.sqrt(1 - 0.999 ^ t) / (1 - 0.9 ^ t)
  x:addcdiv(-step, m, denom)
end
-- A model-shaped parameter list: 40 tensors from 64 to 512K elements.
local params = {}
for i = 1, 40 do
  local n = (i % 2 == 0) and 64 * i or 12800 * i
  local p = torch.FloatTensor(n):uniform(-1, 1)
  p.grad = torch.FloatTensor(n):uniform(-1, 1)
  params[i] = p
end
local adam = optim.Adam(params, { lr = 1e-3 })
local sgd = optim.SGD(params, { lr = 1e-3, momentum = 0.9 })

local ours = {
  adam_flat = bench(function() optim.adam(feval, x, adam_config) end, 20),
  adam_composed = bench(composed_adam, 20),
  adam_list = bench(function() adam:step() end, 20),
  sgd_list = bench(function() sgd:step() end, 20),
}

local ref = H.reference('optim.py', threads)

print(string.format('threads=%d, flat vector of %d floats, list of %d tensors', threads, N, #params))
print(string.format('%-14s %12s %12s %8s', 'step', 'tocha us', 'pytorch us', 'ratio'))
for _, k in ipairs({ 'adam_flat', 'adam_composed', 'adam_list', 'sgd_list' }) do
  local r = ref[k]
  print(string.format('%-14s %12.1f %12s %8s', k, ours[k], r and string.format('%.1f', r) or 'n/a',
    r and string.format('%.3f', ours[k] / r) or 'n/a'))
end
print(string.format('fused / composed adam: %.3f', ours.adam_flat / ours.adam_composed))
