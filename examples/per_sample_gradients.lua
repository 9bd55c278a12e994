-- Differentially private SGD (DP-SGD, Abadi et al. 2016) on Fashion-MNIST with a small MLP, built
-- on per-sample gradients from torch.func: vmap(grad(loss)) over functionalCall(model, params, x),
-- as in PyTorch's "per-sample gradients" tutorial. Each step clips every example's gradient to
-- norm C, sums them, adds Gaussian noise of standard deviation sigma * C and averages: no example
-- moves the model by more than C / batchSize, whatever it holds. (No privacy accounting here: an
-- accountant such as Opacus's RDP would turn sigma, the sampling rate and the steps into epsilon.)
--   tocha examples/per_sample_gradients.lua [--epochs 3] [--sigma 1] [--clip 1] [--quick]
-- --quick checks that the per-sample gradients of the first batch average to the batch gradient
-- of loss:backward(), and that a short DP training reaches a loose test accuracy.
require 'nn'
local data = require 'data'

local cmd = torch.CmdLine()
cmd:option('--epochs', 3, 'passes over the training set')
cmd:option('--batchSize', 256, 'examples per step')
cmd:option('--lr', 2, 'learning rate (plain SGD)')
cmd:option('--clip', 1, 'C: each per-sample gradient is scaled to norm at most C')
cmd:option('--sigma', 1, 'noise multiplier: the noise added to the summed gradients has std sigma * C')
cmd:option('--hidden', 32, 'hidden units of the MLP')
cmd:option('--data', data.fashionMnistDir, 'directory of the Fashion-MNIST IDX files')
cmd:option('--seed', 1, 'random seed')
cmd:option('--quick', false, 'a 20000-image subset and 1 epoch (a smoke test)')
local opt = cmd:parse(arg or {})
torch.manualSeed(opt.seed)

local ok, train, test = pcall(data.fashionMnist, opt.data)
if not ok then  -- no dataset: ctest reports status 77 as skipped
  io.stderr:write(tostring(train) .. '\n')
  os.exit(77)
end
if opt.quick then
  train, test = train:subset(torch.range(1, 20000):long()), test:subset(torch.range(1, 2000):long())
  opt.epochs = 1
end
print(string.format('Fashion-MNIST: %d training, %d test images; DP-SGD with C = %g, sigma = %g, batches of %d',
  train:size(), test:size(), opt.clip, opt.sigma, opt.batchSize))

-- Fashion-MNIST's mean and standard deviation: centred inputs give smaller, better-aimed gradients.
local norm = data.transforms.normalize(0.286, 0.353)
train, test = train:map(norm, 'input'), test:map(norm, 'input')
local model = nn.Sequential():add(nn.Flatten()):add(nn.Linear(784, opt.hidden)):add(nn.ReLU())
  :add(nn.Linear(opt.hidden, 10))
local crit = nn.CrossEntropyLoss()

-- params: name -> tensor, PyTorch's {k: v.detach() for k, v in model.named_parameters()}. The
-- detached tensors share the model's storage, so updating them updates the model.
local params, names = {}, {}
for name, p in model:namedParameters() do
  params[name] = p:detach()
  names[#names + 1] = name
end

-- The loss of ONE example, as a function of the parameters: torch.func.functional_call(model,
-- params, x.unsqueeze(0)). vmap maps grad over dim 1 of x and y (in_dims=(None, 0, 0) in PyTorch);
-- the result is name -> batch x (parameter's shape). Tocha's vmap calls the function once per
-- example (Note [vmap runs the function per slice]): the same results as PyTorch's batched vmap,
-- at the speed of a loop, about 0.3 ms per example for this MLP.
local function loss1(p, x, y)
  return crit(torch.func.functionalCall(model, p, x:view(1, 1, 28, 28)), y:view(1))
end
local perSampleGrads = torch.func.vmap(torch.func.grad(loss1), { inDims = { false, 1, 1 } })

-- One DP-SGD step; returns the per-sample gradients (for the check below) and the mean norm.
local function dpStep(x, y)
  local B = x:size(1)
  local g = perSampleGrads(params, x, y)
  local sq = torch.zeros(B)
  for _, name in ipairs(names) do sq:add(torch.pow(g[name]:view(B, -1), 2):sum(2):view(B)) end
  local norms = torch.sqrt(sq)
  local scale = torch.clamp(torch.div(norms + 1e-6, opt.clip):pow(-1), 0, 1)  -- min(1, C / norm)
  for _, name in ipairs(names) do
    local p = params[name]
    local summed = torch.mv(g[name]:view(B, -1):t(), scale):view(p:size())  -- sum_b scale_b g_b
    summed:add(torch.randn(p:size()):mul(opt.sigma * opt.clip))
    p:add(-opt.lr / B, summed)
  end
  return g, norms:mean()
end

local function accuracy()
  model:evaluate()
  local right = 0
  for batch in data.DataLoader(test, { batchSize = 1000 }):iter() do
    local _, pred = torch.noGrad(function() return torch.max(model:forward(batch.input), 2) end)
    right = right + pred:view(-1):eq(batch.target):sum()
  end
  model:training()
  return right / test:size()
end

local loader = data.DataLoader(train, { batchSize = opt.batchSize, shuffle = true, seed = opt.seed, dropLast = true })
local checked, gradErr = false, nil
local timer = torch.Timer()
for epoch = 1, opt.epochs do
  local normSum, steps = 0, 0
  for batch in loader:iter() do
    if not checked then
      -- The batch gradient the ordinary way (loss:backward() on the mean loss) is the mean of the
      -- per-sample gradients, before the step changes the parameters.
      model:zeroGradParameters()
      crit(model:forward(batch.input), batch.target):backward()
      local g = dpStep(batch.input, batch.target)
      gradErr = 0
      for name, p in model:namedParameters() do
        local mean = g[name]:mean(1):view(p:size())
        gradErr = math.max(gradErr, (mean - p.grad):abs():max() / math.max(p.grad:abs():max(), 1e-8))
      end
      print(string.format('first batch: mean of %d per-sample gradients vs loss:backward(): relative difference %.2g',
        batch.input:size(1), gradErr))
      checked = true
    else
      local _, n = dpStep(batch.input, batch.target)
      normSum, steps = normSum + n, steps + 1
    end
  end
  print(string.format('epoch %d: mean per-sample gradient norm %.3f (clipped to %g), test accuracy %.2f%%, %.1f s',
    epoch, normSum / math.max(steps, 1), opt.clip, 100 * accuracy(), timer:time().real))
end

local acc = accuracy()
print(string.format('test accuracy after DP-SGD: %.2f%%', 100 * acc))
local bound = opt.quick and 0.7 or 0.77
if gradErr > 1e-4 or acc < bound then
  io.stderr:write(string.format('per-sample gradients differ from the batch gradient by %.2g (expected < 1e-4), '
    .. 'or test accuracy %.4f is below %.2f\n', gradErr, acc, bound))
  os.exit(1)
end
