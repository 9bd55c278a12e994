-- torch.autograd.grad with respect to the parameters of Torch7-style modules (Note [Parameter
-- gradients under torch.autograd.grad], lua/nn/param_history.lua): the gradients come back through
-- the graph and no .grad / gradWeight is touched, while loss:backward() still accumulates into
-- gradWeight. Values are closed forms of nn.Linear's gradients.
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function linear_setup()
  local m = nn.Linear(3, 2):double()
  m:zeroGradParameters()
  local x = torch.randn(4, 3):double()
  local gy = torch.randn(4, 2):double()
  return m, x, gy
end

function tests.gradWithRespectToParameters()
  local m, x, gy = linear_setup()
  local xr = x:clone():requiresGrad()
  local y = m:forward(xr)
  local g = torch.autograd.grad({ torch.sum(torch.cmul(y, gy)) }, { m.weight, m.bias, xr })
  tester:assertTensorEq(g[1], gy:t() * x, 1e-12)
  tester:assertTensorEq(g[2], gy:sum(1):view(2), 1e-12)
  tester:assertTensorEq(g[3], gy * m.weight, 1e-12)
  tester:asserteq(m.gradWeight:abs():max(), 0, 'torch.autograd.grad leaves gradWeight alone')
  tester:asserteq(m.gradBias:abs():max(), 0)
end

function tests.gradWithRespectToTheInputOnlyTouchesNoGradient()
  local m, x, gy = linear_setup()
  local xr = x:clone():requiresGrad()
  local gx = torch.autograd.grad({ torch.sum(torch.cmul(m:forward(xr), gy)) }, { xr })[1]
  tester:assertTensorEq(gx, gy * m.weight, 1e-12)
  tester:asserteq(m.gradWeight:abs():max(), 0, 'before, the parameters accumulated as a side effect')
end

function tests.backwardStillAccumulatesIntoGradWeight()
  local m, x, gy = linear_setup()
  for _ = 1, 2 do torch.sum(torch.cmul(m:forward(x), gy)):backward() end
  tester:assertTensorEq(m.gradWeight, gy:t() * x * 2, 1e-12)
  tester:assert(m.weight.grad == m.gradWeight, 'the .grad is still gradWeight')
end

function tests.sequentialOfTorch7Modules()
  local seq = nn.Sequential():add(nn.Linear(3, 4)):add(nn.Tanh()):add(nn.Linear(4, 1)):double()
  local x = torch.randn(5, 3):double()
  local params = seq:parameters()
  local g = torch.autograd.grad({ torch.sum(seq:forward(x)) }, params)
  seq:zeroGradParameters()
  torch.sum(seq:forward(x)):backward()
  local _, grads = seq:parameters()
  for i = 1, #params do tester:assertTensorEq(g[i], grads[i], 1e-12, 'parameter ' .. i) end
  -- Torch7's own backward agrees as well
  seq:zeroGradParameters()
  seq:forward(x)
  seq:backward(x, torch.ones(5, 1):double())
  for i = 1, #params do tester:assertTensorEq(g[i], grads[i], 1e-12, 'Torch7 backward, parameter ' .. i) end
end

function tests.frozenParametersAreNotInputs()
  local m, x = linear_setup()
  m:requiresGrad(false)
  local xr = x:clone():requiresGrad()
  local g = torch.autograd.grad({ torch.sum(m:forward(xr)) }, { xr })[1]
  tester:assertTensorEq(g, torch.ones(4, 2):double() * m.weight, 1e-12)
  local ok, err = pcall(torch.autograd.grad, { torch.sum(m:forward(xr)) }, { m.weight })
  tester:assert(not ok and tostring(err):find('[grad]', 1, true), tostring(err))
end

tester:add(tests):run()
