-- Regressions of the data-parallel modules in one process (review of 2026-11-28):
-- nn.SyncBatchNorm without a job (values from PyTorch 1.13, the autograd path, float32 inputs
-- with a large mean, empty batches) and nn.DataParallelTable's empty batches. The 2-rank
-- counterparts are in mpi/test_distributed_regressions.lua.
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()

-- PyTorch 1.13's BatchNorm1d(3) (float64, training, weight {0.5, 1.5, -1}, bias {0.1, -0.2, 0.3})
-- on the 5 x 3 x 2 batch below with gradOutput G.
local REF = {
  y = {0.174331119736534, 0.745621250074914, 0.589448517837445, -1.919359006026491, 1.350144759324288, -0.353570527580944, 0.739802159000053, 0.121255403215295, -2.146684112010762, -1.483975446174061, -0.624436523366884, -1.120414065521339, -0.033478060054513, -0.671516091084951, -1.084634937810974, 1.495686035604428, -0.978286052023349, 0.671907881128739, -0.682394418181765, -0.132698882995431, 1.766104311741565, 1.381840252519371, 0.958111030398715, 1.632162387899476, 0.020860690847324, 0.718216829442541, 1.01168080778988, -1.610106423470402, 1.520918796971918, -0.056537687230619},
  gi = {0.602369577242478, 0.389047011173561, 0.135626369754053, -0.937134724715622, 0.290946448934517, 0.474464309958924, -0.508095701571236, 0.024788091109338, 0.424870128602911, 0.758319444120112, -0.311093342289233, 0.032746049168682, -0.467746414430093, -0.723724266542276, -1.287323054694229, -0.444116065495134, -0.006729979474163, -0.468359436825394, 0.669668430990968, 0.442656658255856, 0.258368027451964, -0.522626925179955, 0.338989491441275, 0.251384614674449, -0.430124844587811, 0.001161458359216, 0.873958855064898, 0.740057945091001, -0.53482584595398, -0.067522309635078},
  gw = {0.552500760229552, -1.862167194290304, 2.267458428775905},
  gb = {1.495028613123336, 1.432815622247443, -1.007965457890877},
  rm = {0.009473334045092, -0.005582154785597, -0.014070145169248},
  rv = {0.954309922246115, 1.111310681286826, 1.377761523395558},
}
local N, C, L = 5, 3, 2
local X, G = torch.DoubleTensor(N, C, L), torch.DoubleTensor(N, C, L)
for n = 0, N - 1 do
  for c = 0, C - 1 do
    for l = 0, L - 1 do
      local i = n * C * L + c * L + l
      X[n + 1][c + 1][l + 1] = math.sin(1.3 * i + 0.2) * (1 + c)
      G[n + 1][c + 1][l + 1] = math.cos(0.7 * i)
    end
  end
end

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
