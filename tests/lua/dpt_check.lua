-- Shared by test_nn_data_parallel.lua (CPU replicas) and test_cuda_data_parallel.lua (GPUs): trains a
-- model through nn.DataParallelTable and the same model on the whole batch, three steps in each
-- training style, and checks that both end with the same parameters and outputs (f64).
require 'nn'
require 'optim'
local M = {}

-- A module differentiated by autograd (no updateGradInput) inside the replicated model.
local Mix, parent = torch.class('nn.TestDPTMix', 'nn.Module')
function Mix:__init(n)
  parent.__init(self)
  self.weight = torch.randn(n, n):double()
  self.gradWeight = torch.zeros(n, n):double()
  nn.utils.linkGradients(self)
end
function Mix:updateOutput(x) self.output = torch.mm(x, self.weight) return self.output end

function M.model(autograd_layer)
  local m = nn.Sequential():add(nn.Linear(5, 6)):add(nn.Tanh())
  if autograd_layer then m:add(nn.TestDPTMix(6)) end
  return m:add(nn.Linear(6, 3)):double()
end

local function to_cpu(t) return t:double() end

-- Compares every parameter of the table's first replica with the reference's, and (after a
-- forward has synchronized them) the other replicas' with the first's.
local function check_params(tester, dpt, ref, tol, what)
  local p1, p2 = dpt:parameters(), ref:parameters()
  tester:asserteq(#p1, #p2, what .. ': parameter count')
  for i = 1, #p1 do tester:assertTensorEq(to_cpu(p1[i]), p2[i], tol, what .. ': parameter ' .. i) end
end

-- devices: the list given to add; style: 'torch7', 'autograd' or 'optim'; opts.batch,
-- opts.flatten, opts.useNCCL, opts.autograd (an autograd-only layer in the model), opts.tol.
function M.train_matches(tester, devices, style, opts)
  opts = opts or {}
  local tol = opts.tol or 1e-10
  local what = string.format('%s on %d device(s)%s', style, #devices, opts.flatten and ', flattened' or '')
  torch.manualSeed(11)
  local model = M.model(opts.autograd)
  local ref = model:clone()
  local dpt = nn.DataParallelTable(1, opts.flatten, opts.useNCCL):add(model, devices)
  local B = opts.batch or 7
  local X, Y = torch.randn(B, 5):double(), torch.randn(B, 3):double()
  local first = devices[1]
  local x, y = X, Y
  local crit, rcrit = nn.MSECriterion(), nn.MSECriterion()
  local cpu_crit = nn.MSECriterion()
  if first ~= 'cpu' then
    x, y = X:cuda(first), Y:cuda(first)
    torch.cuda.setDevice(first)
    crit:type(torch.typename(x))
  end
  -- Torch7 and optim styles compute the loss on the CPU, so a GPU run checks the table alone;
  -- the autograd style runs the criterion on the device too.
  local function loss_grad(out)
    local o = out:double()
    local loss = cpu_crit:forward(o, Y)
    local g = cpu_crit:backward(o, Y)
    return loss, first ~= 'cpu' and g:cuda(first) or g
  end
  local w, gw, rw, rgw, state, rstate
  if style == 'optim' then
    w, gw = dpt:getParameters()
    rw, rgw = ref:getParameters()
    state, rstate = { learningRate = 0.1, momentum = 0.9 }, { learningRate = 0.1, momentum = 0.9 }
  end
  for _ = 1, 3 do
    if style == 'torch7' then
      dpt:zeroGradParameters()
      local out = dpt:forward(x)
      local _, g = loss_grad(out)
      dpt:backward(x, g)
      dpt:updateParameters(0.1)
      ref:zeroGradParameters()
      local o = ref:forward(X)
      rcrit:forward(o, Y)
      ref:backward(X, rcrit:backward(o, Y))
      ref:updateParameters(0.1)
    elseif style == 'autograd' then
      dpt:zeroGradParameters()
      crit(dpt(x), y):backward()
      dpt:updateParameters(0.1)
      ref:zeroGradParameters()
      rcrit(ref(X), Y):backward()
      ref:updateParameters(0.1)
    else
      optim.sgd(function()
        gw:zero()
        local out = dpt:forward(x)
        local loss, g = loss_grad(out)
        dpt:backward(x, g)
        return loss, gw
      end, w, state)
      optim.sgd(function()
        rgw:zero()
        local o = ref:forward(X)
        local loss = rcrit:forward(o, Y)
        ref:backward(X, rcrit:backward(o, Y))
        return loss, rgw
      end, rw, rstate)
    end
  end
  check_params(tester, dpt, ref, tol, what)
  -- A forward synchronizes the replicas: the same output as the reference, and equal replicas.
  local out = torch.noGrad(function() return dpt:forward(x) end)
  tester:assertTensorEq(to_cpu(out), torch.noGrad(function() return ref:forward(X) end), tol, what .. ': output')
  for i = 2, #devices do
    local pi, p1 = dpt:get(i):parameters(), dpt:get(1):parameters()
    for k = 1, #p1 do tester:assertTensorEq(to_cpu(pi[k]), to_cpu(p1[k]), 0, what .. ': replica ' .. i) end
  end
  return dpt
end

return M
