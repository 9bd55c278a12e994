-- nn.DataParallelTable with CPU replicas (the same split/replicate/gather/reduce code the GPUs run;
-- test_cuda_data_parallel.lua runs it on devices): training through the table ends with the
-- weights of the plain model trained on the whole batch, for every training style, uneven and
-- tiny batches, flattened parameters; and the errors for bad arguments.
require 'nn'
local check = dofile('dpt_check.lua')
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()

for _, style in ipairs({ 'torch7', 'autograd', 'optim' }) do
  tests['trainsLikeTheWholeBatch_' .. style] = function()
    check.train_matches(tester, { 'cpu', 'cpu', 'cpu' }, style)
    check.train_matches(tester, { 'cpu', 'cpu' }, style, { autograd = true })
    check.train_matches(tester, { 'cpu' }, style)
  end
end

function tests.unevenAndTinyBatches()
  check.train_matches(tester, { 'cpu', 'cpu', 'cpu' }, 'torch7', { batch = 5 })
  -- Fewer samples than replicas: the idle replica neither runs nor adds a gradient.
  check.train_matches(tester, { 'cpu', 'cpu', 'cpu' }, 'torch7', { batch = 2 })
end

function tests.flattenedParameters()
  local dpt = check.train_matches(tester, { 'cpu', 'cpu' }, 'optim', { flatten = true })
  tester:assert(not dpt:usesNCCL(), 'CPU replicas reduce with copies')
end

function tests.gradientsAccumulateLikeOneModel()
  -- Two backwards without zeroing: the first replica holds the sum, the others hold zeros.
  torch.manualSeed(3)
  local model = check.model()
  local ref = model:clone()
  local dpt = nn.DataParallelTable(1):add(model, { 'cpu', 'cpu' })
  local X, G = torch.randn(6, 5):double(), torch.randn(6, 3):double()
  dpt:zeroGradParameters()
  ref:zeroGradParameters()
  for _ = 1, 2 do
    dpt:forward(X)
    dpt:backward(X, G)
    ref:forward(X)
    ref:backward(X, G)
  end
  local _, g1 = dpt:parameters()
  local _, g2 = ref:parameters()
  for i = 1, #g1 do tester:assertTensorEq(g1[i], g2[i], 1e-10, 'gradient ' .. i) end
  local _, other = dpt:get(2):parameters()
  for i = 1, #other do tester:asserteq(other[i]:abs():max(), 0, 'replica 2 gradient ' .. i .. ' is zero') end
  -- gradInput is gathered like the output.
  tester:assertTensorEq(dpt.gradInput, ref.gradInput, 1e-10, 'gradInput')
end

function tests.tableInputsAndNegativeDim()
  torch.manualSeed(5)
  local inner = nn.Sequential():add(nn.CAddTable()):add(nn.Linear(4, 2)):double()
  local ref = inner:clone()
  local dpt = nn.DataParallelTable(-2):add(inner, { 'cpu', 'cpu' })
  local a, b = torch.randn(5, 4):double(), torch.randn(5, 4):double()
  local out = dpt:forward({ a, b })
  tester:assertTensorEq(out, ref:forward({ a, b }), 1e-12, 'output of a table input')
  local g = torch.randn(5, 2):double()
  local gi = dpt:backward({ a, b }, g)
  local rgi = ref:backward({ a, b }, g)
  tester:assertTensorEq(gi[1], rgi[1], 1e-12, 'gradInput 1')
  tester:assertTensorEq(gi[2], rgi[2], 1e-12, 'gradInput 2')
end

function tests.savesAndLoads()
  torch.manualSeed(9)
  local dpt = nn.DataParallelTable(1):add(check.model(), { 'cpu', 'cpu' })
  local x = torch.randn(4, 5):double()
  local want = dpt:forward(x):clone()
  local back = torch.deserialize(torch.serialize(dpt))
  tester:assert(torch.isTypeOf(back, 'nn.DataParallelTable'))
  tester:assertTensorEq(back:forward(x), want, 0, 'same output after a round trip')
end

function tests.threadsIsANoOpThatRunsTheInitializer()
  local ran = 0
  local dpt = nn.DataParallelTable(1):threads(function() ran = ran + 1 end)
  tester:asserteq(ran, 1)
  tester:assert(torch.isTypeOf(dpt, 'nn.DataParallelTable'))
end

function tests.badArgumentsGiveClearErrors()
  tester:assertErrorPattern(function() nn.DataParallelTable(0) end, 'DataParallelTable.*dim')
  tester:assertErrorPattern(function() nn.DataParallelTable('x') end, 'DataParallelTable.*dim')
  local lin = nn.Linear(2, 2)
  tester:assertErrorPattern(function() nn.DataParallelTable(1):add(lin, {}) end, 'list of devices')
  tester:assertErrorPattern(function() nn.DataParallelTable(1):add(lin, { 'gpu' }) end, "CUDA index.*'cpu'")
  tester:assertErrorPattern(function() nn.DataParallelTable(1):add(42, { 'cpu' }) end, 'expects a module')
  if torch.cuda.deviceCount() == 0 then
    tester:assertErrorPattern(function() nn.DataParallelTable(1):add(lin, { 0 }) end, 'not a CUDA device')
  else
    tester:assertErrorPattern(function() nn.DataParallelTable(1):add(lin, { 0, 0 }) end, 'listed twice')
    tester:assertErrorPattern(function() nn.DataParallelTable(1):add(lin, { 0, 'cpu' }) end, 'mix')
  end
  local dpt = nn.DataParallelTable(3):add(nn.Linear(2, 2), { 'cpu', 'cpu' })
  tester:assertErrorPattern(function() dpt:forward(torch.randn(4, 2)) end, 'cannot split along dimension 3')
  tester:assertErrorPattern(function() nn.DataParallelTable(1):forward(torch.randn(4, 2)) end, 'has no module')
  tester:assertErrorPattern(function() dpt:add(nn.Linear(2, 2), { 'cpu' }) end, 'already called')
end

tester:add(tests)
tester:run()
