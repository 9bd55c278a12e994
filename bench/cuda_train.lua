-- GPU training steps (issue 9): one SGD step of the nn issue's MLP (784-512-256-10, batch 4096, in
-- Torch7 and autograd styles) and CNN (conv-ReLU-pool x2, Linear-ReLU-Linear, batch 1024) on CUDA,
-- against the same models in PyTorch eager (bench/cuda_train.py) on the same GPU in the same run.
-- Target: at least 1.0x PyTorch's samples/s. Prints "name ms/step samples/s pytorch-ms ratio".
-- Usage: tocha bench/cuda_train.lua
require 'nn'
if not torch.cuda.isAvailable() then
  print('SKIPPED: no CUDA device (' .. torch.cuda.unavailableReason() .. ')')
  return
end

local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.') .. '/harness.lua')
local function bench(fn, n) return H.best_cuda(fn, n, 3) end  -- ms per step
local steps_for = H.train_steps

torch.manualSeed(0)
local cases, order = {}, {}
local function add(name, batch, ms) cases[name] = { batch = batch, ms = ms }; order[#order + 1] = name end

local mlp_batch = 4096
local mlp = nn.Sequential():add(nn.Linear(784, 512)):add(nn.ReLU()):add(nn.Linear(512, 256)):add(nn.ReLU())
  :add(nn.Linear(256, 10)):cuda()
local mlp_steps = steps_for(mlp, nn.CrossEntropyCriterion():cuda(), torch.rand(mlp_batch, 784):cuda(),
  torch.LongTensor(mlp_batch):random(1, 10):cuda(), 0.01)
add('mlp_torch7', mlp_batch, bench(mlp_steps.torch7, 50))
add('mlp_autograd', mlp_batch, bench(mlp_steps.autograd, 50))

local cnn_batch = 1024
local cnn = nn.Sequential()
  :add(nn.SpatialConvolution(1, 32, 3, 3, 1, 1, 1, 1)):add(nn.ReLU()):add(nn.SpatialMaxPooling(2, 2))
  :add(nn.SpatialConvolution(32, 64, 3, 3, 1, 1, 1, 1)):add(nn.ReLU()):add(nn.SpatialMaxPooling(2, 2))
  :add(nn.View(3136)):add(nn.Linear(3136, 128)):add(nn.ReLU()):add(nn.Linear(128, 10)):cuda()
cnn.modules[1].gradInput = nil  -- no gradient for the images, as PyTorch
local cnn_steps = steps_for(cnn, nn.CrossEntropyCriterion():cuda(), torch.randn(cnn_batch, 1, 28, 28):cuda(),
  torch.LongTensor(cnn_batch):random(1, 10):cuda(), 0.01)
add('cnn_torch7', cnn_batch, bench(cnn_steps.torch7, 20))
add('cnn_autograd', cnn_batch, bench(cnn_steps.autograd, 20))

local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.'
local ref = {}
local p = io.popen((os.getenv('PYTHON') or 'python3') .. ' ' .. here .. '/cuda_train.py 2>&1')
for line in p:lines() do
  local k, v = line:match('^(%S+)%s+([%d.]+)$')
  if k then ref[k] = tonumber(v) else io.write('pytorch: ', line, '\n') end
end
p:close()
print(string.format('%-14s %10s %12s %12s %8s', 'step', 'ms/step', 'samples/s', 'pytorch ms', 'ratio'))
for _, k in ipairs(order) do
  local c = cases[k]
  local r = ref[k:match('^(%a+)_') .. '_step']
  print(string.format('%-14s %10.3f %12.0f %12s %8s', k, c.ms, c.batch / c.ms * 1e3,
    r and string.format('%.3f', r) or '-', r and string.format('%.2fx', r / c.ms) or '-'))
end
print('ratio = our samples/s over PyTorch eager\'s (SGD step with CrossEntropyLoss); the issue asks >= 1.0.')
