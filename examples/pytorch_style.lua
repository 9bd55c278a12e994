-- A model written the way a PyTorch user writes it, on Tocha: a module class holding its layers in
-- fields (nn.Conv2d, nn.BatchNorm2d...) and a registered parameter, AdamW with a linear warmup then
-- a cosine schedule, an exponential moving average of the weights, TensorBoard logging, a profile
-- of one step and a state dict saved and loaded. The task: tell a horizontal bar from a vertical
-- one in noisy 8x8 images.
--   tocha examples/pytorch_style.lua [--steps 300] [--out pytorch_style_out] [--quick]
require 'nn'
require 'optim'

local cmd = torch.CmdLine()
cmd:option('--steps', 300, 'training steps (batches of 32)')
cmd:option('--out', 'pytorch_style_out', 'folder for the TensorBoard events and the state dict')
cmd:option('--quick', false, 'fewer steps (a smoke test)')
local opt = cmd:parse(arg or {})
if opt.quick then opt.steps = 80 end
torch.manualSeed(1)

-- Images with one bar (label 1: horizontal, 2: vertical; Tocha's classes are 1-based) and noise.
local function batch(n)
  local x = torch.randn(n, 1, 8, 8):mul(0.3)
  local y = torch.LongTensor(n):random(1, 2)
  for i = 1, n do
    local at = torch.random(1, 8)
    if y[i] == 1 then x[i][1]:narrow(1, at, 1):add(1) else x[i][1]:narrow(2, at, 1):add(1) end
  end
  return x, y
end

-- The model: layers in fields are its children (Note [Submodules in fields]), a registered
-- temperature divides the logits (Note [Registered tensors]).
local Net, parent = torch.class('BarNet', 'nn.Module')
function Net:__init()
  parent.__init(self)
  self.conv = nn.Conv2d(1, 8, 3, { padding = 1 })
  self.bn = nn.BatchNorm2d(8)
  self.pool = nn.MaxPool2d(2)
  self.fc = nn.Linear(8 * 4 * 4, 2)
  self:registerParameter('temperature', torch.ones(1))
end
function Net:updateOutput(x)
  local h = self.pool:forward(torch.relu(self.bn:forward(self.conv:forward(x))))
  local logits = self.fc:forward(h:view(h:size(1), -1))
  self.output = torch.cdiv(logits, self.temperature:expandAs(logits))
  return self.output
end

local model = BarNet()
print(model)
for name, p in model:namedParameters() do print(string.format('  %-12s %s', name, table.concat(p:size():totable(), 'x'))) end

local crit = nn.CrossEntropyLoss()
local opt_ = optim.AdamW(model, { lr = 0.01, weightDecay = 1e-4 })
local warmup = math.floor(opt.steps / 10)
local sched = optim.lr.SequentialLR(opt_, {
  schedulers = { optim.lr.LinearLR(opt_, { startFactor = 0.1, totalIters = warmup }),
                 optim.lr.CosineAnnealingLR(opt_, { tMax = opt.steps - warmup }) },
  milestones = { warmup } })
local ema = optim.AveragedModel(model, { decay = 0.95, useBuffers = true })
os.execute('mkdir -p ' .. opt.out)
local writer = torch.utils.tensorboard.SummaryWriter(opt.out .. '/runs')

local function step(x, y)
  opt_:zeroGrad()
  local loss = crit(model(x), y)
  loss:backward()
  opt_:step()
  sched:step()
  ema:updateParameters(model)
  return loss:item()
end

local function accuracy(m, x, y)
  m:evaluate()
  local _, pred = torch.noGrad(function() return torch.max(m:forward(x), 2) end)
  m:training()
  return pred:view(-1):eq(y):double():mean()
end

local xtest, ytest = batch(500)
for s = 1, opt.steps do
  local x, y = batch(32)
  local loss = step(x, y)
  writer:addScalar('loss/train', loss, s)
  writer:addScalar('lr', opt_.paramGroups[1].lr, s)
  if s % 50 == 0 or s == opt.steps then
    local acc = accuracy(model, xtest, ytest)
    writer:addScalar('accuracy/test', acc, s)
    print(string.format('step %4d  loss %.4f  test accuracy %.3f  lr %.5f', s, loss, acc, opt_.paramGroups[1].lr))
  end
end
writer:addHistogram('fc.weight', model.fc.weight, opt.steps)
writer:close()

-- Where one training step spends its time.
local x, y = batch(32)
local prof = torch.profiler.profile(function() step(x, y) end)
print(prof:table({ sortBy = 'selfTime', rowLimit = 6 }))

-- The state dict, saved and loaded into a fresh model (PyTorch's names: conv.weight, bn.running_mean...).
local path = opt.out .. '/barnet.safetensors'
torch.saveSafetensors(path, model:stateDict())
local copy = BarNet()
copy:loadStateDict(torch.loadSafetensors(path))
model:evaluate()
copy:evaluate()
local same = torch.noGrad(function() return (model:forward(xtest) - copy:forward(xtest)):abs():max() end)

local acc, ema_acc = accuracy(model, xtest, ytest), accuracy(ema.module, xtest, ytest)
print(string.format('test accuracy %.3f (EMA of the weights: %.3f); reloaded model differs by %g', acc, ema_acc, same))
local bound = opt.quick and 0.8 or 0.97
if acc < bound or same > 0 then
  io.stderr:write(string.format('accuracy %.3f below %.2f, or the reloaded model differs\n', acc, bound))
  os.exit(1)
end
