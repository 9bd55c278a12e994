-- nn.DistributedDataParallel on 2+ ranks: each rank trains on its part of a batch and ends with
-- the parameters of one process trained on the whole batch (f64), for Torch7-style backward,
-- loss:backward(), getParameters() with optim.sgd and optim.SGD, and an autograd-only module.
require 'nn'
require 'optim'
local dist = torch.distributed
dist.init{ backend = 'mpi', timeout = 60 }
torch.setdefaulttensortype('torch.DoubleTensor')
local rank, size = dist.rank(), dist.size()
local tester = torch.Tester()
local tests = torch.TestSuite()

-- A module differentiated by autograd (no updateGradInput): its gradients arrive through hooks.
local Mix, parent = torch.class('nn.TestDDPMix', 'nn.Module')
function Mix:__init(n)
  parent.__init(self)
  self.weight = torch.randn(n, n)
  self.gradWeight = torch.zeros(n, n)
  nn.utils.linkGradients(self)
end
function Mix:updateOutput(x) self.output = torch.mm(x, self.weight) return self.output end

local function make_model(autograd_layer)
  local m = nn.Sequential():add(nn.Linear(5, 6)):add(nn.ReLU())
  if autograd_layer then m:add(nn.TestDDPMix(6)) end
  return m:add(nn.Linear(6, 3))
end

local B = 4 * size
torch.manualSeed(42)  -- the same data on every rank
local X, Y = torch.randn(B, 5), torch.randn(B, 3)
local per = B / size
local x, y = X:narrow(1, rank * per + 1, per), Y:narrow(1, rank * per + 1, per)

local function check_same(ddp_model, ref, what)
  local p1, p2 = ddp_model:parameters(), ref:parameters()
  for i = 1, #p1 do tester:assertTensorEq(p1[i], p2[i], 1e-10, what .. ' parameter ' .. i) end
  -- And every rank holds the same parameters.
  for i = 1, #p1 do
    local all = dist.allGather(p1[i]:contiguous())
    for r = 2, size do tester:assertTensorEq(all[r], all[1], 0, what .. ' ranks agree') end
  end
end

-- Builds a model whose initial parameters differ per rank: DDP must broadcast rank 0's.
local function setup(autograd_layer, opts)
  torch.manualSeed(100 + rank)
  local model = make_model(autograd_layer)
  local ddp = nn.DistributedDataParallel(model, opts)
  local ref = model:clone()
  return ddp, model, ref
end

function tests.broadcastsRankZerosParameters()
  local _, model = setup(false)
  torch.manualSeed(100)
  local rank0 = make_model(false)
  local p, q = model:parameters(), rank0:parameters()
  for i = 1, #p do tester:assertTensorEq(p[i], q[i], 0) end
end

local crit = nn.MSECriterion()
for _, autograd_layer in ipairs({ false, true }) do
  local suffix = autograd_layer and 'WithAutogradModule' or ''

  tests['torch7Backward' .. suffix] = function()
    local ddp, model, ref = setup(autograd_layer, { bucketMB = 1e-4 })  -- tiny buckets: several of them
    tester:assert(#ddp._buckets > 1)
    for _ = 1, 3 do
      ddp:zeroGradParameters()
      local out = ddp:forward(x)
      crit:forward(out, y)
      ddp:backward(x, crit:backward(out, y))
      ddp:updateParameters(0.1)
      ref:zeroGradParameters()
      local o = ref:forward(X)
      crit:forward(o, Y)
      ref:backward(X, crit:backward(o, Y))
      ref:updateParameters(0.1)
    end
    check_same(model, ref, 'model:backward')
  end

  tests['lossBackward' .. suffix] = function()
    local ddp, model, ref = setup(autograd_layer)
    for _ = 1, 3 do
      ddp:zeroGradParameters()
      crit(ddp(x), y):backward()
      ddp:updateParameters(0.1)
      ref:zeroGradParameters()
      crit(ref(X), Y):backward()
      ref:updateParameters(0.1)
    end
    check_same(model, ref, 'loss:backward')
  end

  tests['getParametersOptimSgd' .. suffix] = function()
    local ddp, model, ref = setup(autograd_layer, { bucketMB = 1e-4 })
    local w, gw = ddp:getParameters()
    local rw, rgw = ref:getParameters()
    local state, rstate = { learningRate = 0.1, momentum = 0.9 }, { learningRate = 0.1, momentum = 0.9 }
    for _ = 1, 3 do
      optim.sgd(function()
        gw:zero()
        local out = ddp:forward(x)
        local loss = crit:forward(out, y)
        ddp:backward(x, crit:backward(out, y))
        return loss, gw
      end, w, state)
      optim.sgd(function()
        rgw:zero()
        local o = ref:forward(X)
        local loss = crit:forward(o, Y)
        ref:backward(X, crit:backward(o, Y))
        return loss, rgw
      end, rw, rstate)
    end
    check_same(model, ref, 'optim.sgd')
  end

  tests['optimSGDObject' .. suffix] = function()
    local ddp, model, ref = setup(autograd_layer)
    ddp:getParameters()
    local opt, ropt = optim.SGD(ddp, { lr = 0.1, momentum = 0.5 }), optim.SGD(ref, { lr = 0.1, momentum = 0.5 })
    for _ = 1, 3 do
      opt:zeroGrad()
      crit(ddp(x), y):backward()
      opt:step()
      ropt:zeroGrad()
      crit(ref(X), Y):backward()
      ropt:step()
    end
    check_same(model, ref, 'optim.SGD')
  end
end

function tests.unusedParametersNeedSyncGradients()
  local ddp, model = setup(false)
  local first = model:get(1)
  ddp:zeroGradParameters()
  local h = first:forward(x)  -- only the first layer gets gradients
  crit(h, torch.zeros(per, 6)):backward()
  tester:assertErrorPattern(function() ddp:forward(x) end, 'call ddp:syncGradients%(%)')
  ddp:syncGradients()
  local g = first.gradWeight:clone()
  local all = dist.allGather(g)
  for r = 2, size do tester:assertTensorEq(all[r], all[1], 0) end
  ddp:forward(x)
end

tester:add(tests)
tester:run()
dist.barrier()
