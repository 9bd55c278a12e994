-- One SGD training step of a ReLU MLP with CrossEntropyCriterion, in both Tocha styles (Torch7:
-- criterion:backward + model:backward + updateParameters; autograd: loss:backward()), against the
-- same model in PyTorch (bench/mlp.py) measured in the same run, rounds alternated with its process.
-- Usage: tocha bench/mlp.lua [threads...]   (default: 1 2)
require 'nn'

-- The Fashion-MNIST-sized MLP, and the issue's target size.
local configs = {
  { sizes = { 784, 256, 128, 10 }, batch = 64 },
  { sizes = { 784, 512, 256, 10 }, batch = 128 },
}
local rounds, steps, lr = 2, 20, 0.01

local threads = {}
for i = 1, #(arg or {}) do threads[#threads + 1] = tonumber(arg[i]) end
if #threads == 0 then threads = { 1, 2 } end

local function spec(c) return table.concat(c.sizes, ',') .. ':' .. c.batch end

local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*)/[^/]*$') or '.') .. '/harness.lua')

local function setup(c)
  torch.manualSeed(0)
  local model = nn.Sequential()
  for i = 1, #c.sizes - 1 do
    model:add(nn.Linear(c.sizes[i], c.sizes[i + 1]))
    if i < #c.sizes - 1 then model:add(nn.ReLU()) end
  end
  local crit = nn.CrossEntropyCriterion()
  local x = torch.rand(c.batch, c.sizes[1])
  local y = torch.LongTensor(c.batch):random(1, c.sizes[#c.sizes])
  return H.train_steps(model, crit, x, y, lr)
end

local specs = {}
for i, c in ipairs(configs) do specs[i] = spec(c) end

for _, nt in ipairs(threads) do
  torch.setnumthreads(nt)
  local ours, ref = {}, {}
  for i, c in ipairs(configs) do ours[i] = { torch7 = math.huge, autograd = math.huge, step = setup(c) } end
  for _ = 1, rounds do
    for _, o in ipairs(ours) do
      for _, k in ipairs({ 'torch7', 'autograd' }) do o[k] = math.min(o[k], H.best(o.step[k], steps)) end
    end
    -- a fresh PyTorch process per round, alternated with ours
    for s, v in pairs(H.reference('mlp.py', nt, steps, unpack(specs))) do ref[s] = math.min(ref[s] or math.huge, v) end
  end
  for i, c in ipairs(configs) do
    local r = ref[specs[i]]
    print(string.format('MLP %s ReLU, CrossEntropy, batch %d, one SGD step; threads=%d',
      table.concat(c.sizes, '-'), c.batch, nt))
    print(string.format('  %-9s %10s %12s %22s', 'style', 'ms/step', 'samples/s', 'ratio (vs pytorch)'))
    for _, k in ipairs({ 'torch7', 'autograd' }) do
      print(string.format('  %-9s %10.3f %12.0f %22s', k, ours[i][k] * 1e3, c.batch / ours[i][k],
        H.fmt(r and r / ours[i][k], '%.2f')))
    end
    print(string.format('  %-9s %10s %12s', 'pytorch', H.fmt(r and r * 1e3, '%.3f'),
      H.fmt(r and c.batch / r, '%.0f')))
  end
end
print('ratio = our samples/s over PyTorch\'s; the issue asks >= 1.3 for 784-512-256-10 at batch 128.')
print('torch7 style computes the first layer\'s gradInput, as Torch7 does; autograd skips it, as PyTorch does.')
