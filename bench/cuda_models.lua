-- The GPU training cases of bench/cuda_train.lua and bench/cuda_profile.lua (issue 9): the nn
-- issue's MLP (784-512-256-10, batch 4096) and CNN (conv-ReLU-pool x2, Linear-ReLU-Linear, batch
-- 1024) on CUDA, each as one SGD step in the Torch7 and autograd styles (H.train_steps). Their
-- PyTorch twins are bench/cuda_models.py's.
-- Usage: local cases = dofile(BENCH_DIR .. '/cuda_models.lua')(H)  -> list of
--   { name = 'mlp_torch7', model = 'mlp', batch = 4096, steps = 50, step = fn }
require 'nn'
return function(H)
  torch.manualSeed(0)
  local cases = {}
  local function add(model_name, model, batch, steps, x)
    local s = H.train_steps(model, nn.CrossEntropyCriterion():cuda(), x,
      torch.LongTensor(batch):random(1, 10):cuda(), 0.01)
    for _, style in ipairs({ 'torch7', 'autograd' }) do
      cases[#cases + 1] = { name = model_name .. '_' .. style, model = model_name, batch = batch, steps = steps,
                            step = s[style] }
    end
  end
  local mlp = nn.Sequential():add(nn.Linear(784, 512)):add(nn.ReLU()):add(nn.Linear(512, 256)):add(nn.ReLU())
    :add(nn.Linear(256, 10)):cuda()
  add('mlp', mlp, 4096, 50, torch.rand(4096, 784):cuda())
  local cnn = nn.Sequential()
    :add(nn.SpatialConvolution(1, 32, 3, 3, 1, 1, 1, 1)):add(nn.ReLU()):add(nn.SpatialMaxPooling(2, 2))
    :add(nn.SpatialConvolution(32, 64, 3, 3, 1, 1, 1, 1)):add(nn.ReLU()):add(nn.SpatialMaxPooling(2, 2))
    :add(nn.View(3136)):add(nn.Linear(3136, 128)):add(nn.ReLU()):add(nn.Linear(128, 10)):cuda()
  cnn.modules[1].gradInput = nil  -- no gradient for the images, as PyTorch
  add('cnn', cnn, 1024, 20, torch.randn(1024, 1, 28, 28):cuda())
  return cases
end
