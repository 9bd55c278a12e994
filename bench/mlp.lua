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
  local steps_of = {
    torch7 = function()
      model:zeroGradParameters()
      local out = model:forward(x)
      crit:forward(out, y)
      model:backward(x, crit:backward(out, y))
      model:updateParameters(lr)
    end,
    autograd = function()
      model:zeroGradParameters()
      local loss = crit(model(x), y)
      loss:backward()
      model:updateParameters(lr)
    end,
  }
  return steps_of
end

-- Best time per step over 5 repetitions of n steps (after a warm-up), in seconds.
local function best_step(fn, n)
  for _ = 1, math.max(1, n / 10) do fn() end
  local best = math.huge
  for _ = 1, 5 do
    local t0 = torch.tic()
    for _ = 1, n do fn() end
    best = math.min(best, torch.toc(t0) / n)
  end
  return best
end

local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.'
local specs = {}
for i, c in ipairs(configs) do specs[i] = spec(c) end

-- One round of the PyTorch twin (a fresh process): step seconds by spec.
local function pytorch_round(nt)
  local got = {}
  local p = io.popen(string.format('/usr/bin/python3 %s/mlp.py %d %d %s 2>/dev/null', here, nt, steps,
    table.concat(specs, ' ')))
  for line in p:lines() do
    local s, v = line:match('^pytorch (%S+) ([%d.e+-]+)')
    if s then got[s] = tonumber(v) end
  end
  p:close()
  return got
end

for _, nt in ipairs(threads) do
  torch.setnumthreads(nt)
  local ours, ref = {}, {}
  for i, c in ipairs(configs) do ours[i] = { torch7 = math.huge, autograd = math.huge, step = setup(c) } end
  for _ = 1, rounds do
    for _, o in ipairs(ours) do
      for _, k in ipairs({ 'torch7', 'autograd' }) do o[k] = math.min(o[k], best_step(o.step[k], steps)) end
    end
    for s, v in pairs(pytorch_round(nt)) do ref[s] = math.min(ref[s] or math.huge, v) end
  end
  for i, c in ipairs(configs) do
    local r = ref[specs[i]]
    print(string.format('MLP %s ReLU, CrossEntropy, batch %d, one SGD step; threads=%d',
      table.concat(c.sizes, '-'), c.batch, nt))
    print(string.format('  %-9s %10s %12s %22s', 'style', 'ms/step', 'samples/s', 'ratio (vs pytorch)'))
    for _, k in ipairs({ 'torch7', 'autograd' }) do
      print(string.format('  %-9s %10.3f %12.0f %22s', k, ours[i][k] * 1e3, c.batch / ours[i][k],
        r and string.format('%.2f', r / ours[i][k]) or 'n/a'))
    end
    print(string.format('  %-9s %10s %12s', 'pytorch', r and string.format('%.3f', r * 1e3) or 'n/a',
      r and string.format('%.0f', c.batch / r) or 'n/a'))
  end
end
print('ratio = our samples/s over PyTorch\'s; the issue asks >= 1.3 for 784-512-256-10 at batch 128.')
print('torch7 style computes the first layer\'s gradInput, as Torch7 does; autograd skips it, as PyTorch does.')
