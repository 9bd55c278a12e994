-- Extending Tocha from Lua: a user nn module written Torch7's way (torch.class with
-- updateOutput / updateGradInput / accGradParameters) and a user autograd Function
-- (torch.autograd.Function with forward / backward), checked against finite differences and
-- trained together in a small classifier.
--   tocha examples/custom_module.lua [--quick]
require 'nn'
require 'optim'

-- 1. nn.PReLU-like module (Torch7 style): y = x where x > 0, a_j * x where x <= 0, with one
-- learnable slope a_j per feature j. Parameters are weight / gradWeight as in Torch7.
local LeakyGate, parent = torch.class('nn.LeakyGate', 'nn.Module')

function LeakyGate:__init(nFeatures, init)
  parent.__init(self)
  self.weight = torch.Tensor(nFeatures):fill(init or 0.25)
  self.gradWeight = torch.Tensor(nFeatures):zero()
end

function LeakyGate:updateOutput(input)              -- input: batch x nFeatures
  local slope = self.weight:view(1, -1):expandAs(input)
  local neg = input:le(0):typeAs(input)
  -- y = x * (1 + (a - 1) * [x <= 0])
  self.output = torch.cmul(input, torch.cmul(neg, slope - 1) + 1)
  return self.output
end

function LeakyGate:updateGradInput(input, gradOutput)
  local slope = self.weight:view(1, -1):expandAs(input)
  local neg = input:le(0):typeAs(input)
  self.gradInput = torch.cmul(gradOutput, torch.cmul(neg, slope - 1) + 1)
  return self.gradInput
end

function LeakyGate:accGradParameters(input, gradOutput, scale)
  local neg = input:le(0):typeAs(input)
  -- dy/da_j = x where x <= 0, summed over the batch
  self.gradWeight:add(scale or 1, torch.cmul(torch.cmul(gradOutput, input), neg):sum(1):view(-1))
end

-- 2. A user autograd Function: Swish(x) = x * sigmoid(x), d/dx = s + x s (1 - s).
local Swish = torch.autograd.Function('Swish')
function Swish.forward(ctx, x)
  local s = torch.sigmoid(x)
  ctx:saveForBackward(x, s)
  return torch.cmul(x, s)
end
function Swish.backward(ctx, gradOutput)
  local x, s = ctx:savedTensors()
  local ds = torch.cmul(s, 1 - s)
  return torch.cmul(gradOutput, s + torch.cmul(x, ds))
end

-- A module that only defines updateOutput: autograd differentiates it through Swish.
local SwishModule = torch.class('nn.SwishAct', 'nn.Module')
function SwishModule:updateOutput(input)
  self.output = Swish.apply(input)
  return self.output
end

-- 3. Check both against finite differences (f64).
torch.manualSeed(5)
local gate = nn.LeakyGate(6):double()
local x = torch.randn(4, 6):double()
local errInput = nn.Jacobian.testJacobian(gate, x)
local errWeight = nn.Jacobian.testJacobianParameters(gate, x, gate.weight, gate.gradWeight)
print(string.format('nn.LeakyGate: Jacobian error %.1e (input), %.1e (slopes)', errInput, errWeight))
local swishOk = torch.autograd.gradcheck(function(t) return Swish.apply(t) end, { torch.randn(5, 3):double():requiresGrad() })
print('Swish: gradcheck ' .. (swishOk and 'passed' or 'FAILED'))
local failed = errInput > 1e-6 or errWeight > 1e-6 or not swishOk

-- 4. Train a classifier built from them on two interleaved spirals.
local quick = false
for _, a in ipairs(arg or {}) do quick = quick or a == '--quick' end
local function spirals(n, seed)
  torch.manualSeed(seed)
  local xs, ys = torch.Tensor(2 * n, 2), torch.LongTensor(2 * n)
  for i = 1, n do
    local r = i / n * 3
    for c = 1, 2 do
      local phi = r * 2.2 + (c - 1) * math.pi
      local k = (c - 1) * n + i
      xs[k][1], xs[k][2] = r * math.cos(phi) + torch.normal(0, 0.05), r * math.sin(phi) + torch.normal(0, 0.05)
      ys[k] = c
    end
  end
  return xs, ys
end
local trainX, trainY = spirals(quick and 150 or 400, 1)
local testX, testY = spirals(200, 2)
torch.manualSeed(6)
local model = nn.Sequential()
  :add(nn.Linear(2, 32)):add(nn.LeakyGate(32))
  :add(nn.Linear(32, 32)):add(nn.SwishAct())
  :add(nn.Linear(32, 2)):add(nn.LogSoftMax())
local crit = nn.ClassNLLCriterion()
local opt = optim.Adam(model, { lr = 0.02 })
local epochs = quick and 150 or 400
for epoch = 1, epochs do
  opt:zeroGrad()
  local loss = crit:forward(model:forward(trainX), trainY)
  model:backward(trainX, crit:backward(model.output, trainY))
  opt:step()
  if epoch == 1 or epoch % (epochs / 4) == 0 then print(string.format('epoch %3d  loss %.4f', epoch, loss)) end
end
local acc = torch.noGrad(function() return nn.metrics.accuracy(model:forward(testX), testY) end)
local slopes = model:get(2).weight:detach()  -- a parameter's full reduction is a 0-dim tensor; detach gives numbers
print(string.format('learned slopes of nn.LeakyGate: min %.3f, max %.3f (initially 0.25)', slopes:min(), slopes:max()))
print(string.format('test accuracy on the spirals: %.1f%%', 100 * acc))
if failed or acc < (quick and 0.85 or 0.95) then
  io.stderr:write('custom_module: a check failed\n')
  os.exit(1)
end
