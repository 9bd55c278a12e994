-- Regressions of the data-parallel modules in one process (review of 2026-11-28):
-- nn.SyncBatchNorm without a job (values from PyTorch 1.13, the autograd path, float32 inputs
-- with a large mean, empty batches) and nn.DataParallelTable's empty batches. The 2-rank
-- counterparts are in mpi/test_distributed_regressions.lua.
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()

local SB = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/fixtures/sync_bn_ref.lua')
local REF, N, C, L, X, G = SB.REF, SB.N, SB.C, SB.L, SB.X, SB.G

local function sync_bn()
  local bn = nn.SyncBatchNorm(C):double()
  bn.weight:copy(torch.DoubleTensor({ 0.5, 1.5, -1 }))
  bn.bias:copy(torch.DoubleTensor({ 0.1, -0.2, 0.3 }))
  return bn
end

local function ref(name) return torch.DoubleTensor(REF[name]) end

function tests.syncBatchNormMatchesPyTorchInOneProcess()
  local bn = sync_bn()
  local y = bn:forward(X)
  local gi = bn:backward(X, G)
  tester:assertTensorEq(y, ref('y'):viewAs(X), 1e-12, 'output')
  tester:assertTensorEq(gi, ref('gi'):viewAs(X), 1e-12, 'gradInput')
  tester:assertTensorEq(bn.gradWeight, ref('gw'), 1e-12, 'gradWeight')
  tester:assertTensorEq(bn.gradBias, ref('gb'), 1e-12, 'gradBias')
  tester:assertTensorEq(bn.running_mean, ref('rm'), 1e-12, 'running_mean')
  tester:assertTensorEq(bn.running_var, ref('rv'), 1e-12, 'running_var')
  -- The same through loss:backward (the module is one coarse autograd node).
  local bn2 = sync_bn()
  local x = X:clone():requiresGrad()
  torch.sum(torch.cmul(bn2(x), G)):backward()
  tester:assertTensorEq(x.grad, ref('gi'):viewAs(X), 1e-12, 'x.grad')
  tester:assertTensorEq(bn2.weight.grad, ref('gw'), 1e-12, 'weight.grad')
  tester:assertTensorEq(bn2.bias.grad, ref('gb'), 1e-12, 'bias.grad')
end

function tests.syncBatchNormFloatInputWithALargeMean()
  -- Note [SyncBatchNorm variance]: E[x^2] - E[x]^2 in float32 lost the variance of
  -- 1000 + 0.01 * randn entirely (output off by 7.9); the exact normalization is computed in f64.
  torch.manualSeed(1)
  local x = (torch.randn(64, 2):double() * 0.01 + 1000):float()
  local xd = x:double()
  local mean, var = xd:mean(1), xd:var(1, false)
  local exact = (xd - mean:expandAs(xd)):cdiv(torch.sqrt(var + 1e-5):expandAs(xd))
  local bn = nn.SyncBatchNorm(2):float()
  local y = bn:forward(x)
  -- float32 rounds x - mean to ~6e-5 (x's spacing near 1000), times invstd ~95.
  tester:assertTensorEq(y:double(), exact, 0.05, 'output against the exact normalization')
  local want_rv = var:view(-1) * (64 / 63) * 0.1 + 0.9
  tester:assertTensorEq(bn.running_var:double(), want_rv, 1e-6, 'running_var (unbiased)')
end

function tests.syncBatchNormEmptyBatchNamesTheModule()
  -- The reshape to N x C x -1 failed with [reshape]'s message on an empty batch.
  local bn = nn.SyncBatchNorm(3):double()
  tester:assertErrorPattern(function() bn:forward(torch.DoubleTensor(0, 3, 2)) end,
                            'SyncBatchNorm.*expected more than 1 value per channel when training, got 0')
  tester:assertErrorPattern(function() bn:forward(torch.DoubleTensor(0, 3)) end, 'SyncBatchNorm.*got 0')
  bn:evaluate()
  tester:eq(bn:forward(torch.DoubleTensor(0, 3, 2)):size(1), 0, 'evaluation of an empty batch is empty')
end

function tests.dataParallelTableRefusesAnEmptyBatch()
  -- No replica ran, and the gather said 'a replica returned nil'.
  local dpt = nn.DataParallelTable(1):add(nn.Linear(3, 2):double(), { 'cpu', 'cpu' })
  tester:assertErrorPattern(function() dpt:forward(torch.DoubleTensor(0, 3)) end,
                            'DataParallelTable%] cannot split an empty batch %(size 0 along dimension 1%)')
  tester:eq(dpt:forward(torch.DoubleTensor(1, 3)):size(1), 1, 'a batch of one still runs')
end

function tests.dataParallelTableOneAddPerDevice()
  -- cunn's older form, dpt:add(model, gpu) once per device (Note [One add per device]): the second
  -- call raised 'add was already called'.
  torch.manualSeed(4)
  local model = nn.Sequential():add(nn.Linear(3, 4)):add(nn.Tanh()):add(nn.Linear(4, 2)):double()
  local ref = model:clone()
  local dpt = nn.DataParallelTable(1)
  for _ = 1, 3 do dpt:add(model, 'cpu') end
  tester:eq(#dpt.devices, 3, 'three devices')
  tester:eq(#dpt.modules, 3, 'three replicas')
  tester:assert(rawequal(dpt:get(1), model), 'the module is the first replica')
  local x, g = torch.randn(7, 3):double(), torch.randn(7, 2):double()
  dpt:zeroGradParameters()
  ref:zeroGradParameters()
  tester:assertTensorEq(dpt:forward(x), ref:forward(x), 1e-12, 'output')
  tester:assertTensorEq(dpt:backward(x, g), ref:backward(x, g), 1e-12, 'gradInput')
  local _, g1 = dpt:parameters()
  local _, g2 = ref:parameters()
  for i = 1, #g2 do tester:assertTensorEq(g1[i], g2[i], 1e-12, 'gradient ' .. i) end
  -- A bad device leaves the table as it was; a list after the first add is still refused.
  tester:assertErrorPattern(function() dpt:add(model, 'gpu') end, "CUDA index.*'cpu'")
  tester:eq(#dpt.modules, 3, 'still three replicas')
  tester:assertTensorEq(dpt:forward(x), ref:forward(x), 1e-12, 'still runs')
  tester:assertErrorPattern(function() dpt:add(model, { 'cpu' }) end, 'add was already called')
end

function tests.initChecksTheTimeoutBeforeStarting()
  -- A bad timeout was refused by setTimeout after MPI had started, leaving a half-done init.
  tester:assertErrorPattern(function() torch.distributed.init{ timeout = '30' } end,
                            'distributed.init%] timeout must be a number of seconds, got string')
  tester:assert(not torch.distributed.isInitialized(), 'nothing started')
  tester:eq(torch.distributed.backend(), nil)
end

tester:add(tests)
tester:run()
