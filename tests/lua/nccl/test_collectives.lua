-- torch.distributed's NCCL backend (run by ctest through mpirun -np 1 as cuda.nccl_collectives; any
-- number of ranks with one GPU each works too): every collective and dtype on CUDA tensors against
-- values computed locally, the async forms, the argument errors, and nn.DistributedDataParallel with
-- CUDA parameters ending with the weights of the plain model on the whole batch. Without a GPU (or
-- without libtocha_nccl.so) it checks that init gives a clear error and prints SKIPPED.
require 'nn'
local dist = torch.distributed
local tester = torch.Tester()
local tests = torch.TestSuite()

local function expect_error(fn, pattern, what)
  local ok, err = pcall(fn)
  tester:assert(not ok, what .. ': no error')
  tester:assert(tostring(err):find(pattern), what .. ': ' .. tostring(err))
end

local have_nccl, why_not = pcall(dist._loadNCCL, 'test')
if torch.cuda.deviceCount() == 0 or not have_nccl then
  function tests.initFailsClearlyWithoutAGpu()
    local ok, err = pcall(dist.init, { backend = 'nccl', timeout = 30 })
    tester:assert(not ok, "init{backend='nccl'} without a GPU: no error")
    err = tostring(err)
    tester:assert(err:find('%[distributed.init%]') and (err:find('NCCL is not available') or err:find('needs a CUDA device')), err)
    expect_error(function() dist.init{ backend = 'gloo' } end, "unknown backend 'gloo'", 'unknown backend')
    tester:assert(not dist.isInitialized() or dist.backend() ~= 'nccl')
  end
  tester:add(tests)
  tester:run()
  print('SKIPPED: the NCCL collectives need a CUDA device and libtocha_nccl.so ('
        .. (have_nccl and torch.cuda.unavailableReason() or tostring(why_not)) .. ')')
  return
end

dist.init{ backend = 'nccl', timeout = 60 }
local rank, size = dist.rank(), dist.size()
local dev = dist.device()

local TYPES = { 'torch.CudaTensor', 'torch.CudaDoubleTensor', 'torch.CudaHalfTensor', 'torch.CudaBFloat16Tensor',
                'torch.CudaLongTensor', 'torch.CudaIntTensor', 'torch.CudaByteTensor', 'torch.CudaBoolTensor' }
local CPU = {}
for _, t in ipairs(TYPES) do CPU[t] = t == 'torch.CudaTensor' and 'torch.FloatTensor' or t:gsub('Cuda', '') end
local N = 6

-- Rank r's element i (small integers, exact in every dtype; bool: a pattern of true/false).
local function value(tname, r, i)
  if tname == 'torch.CudaBoolTensor' then return ((i + r) % 3 == 0) and 1 or 0 end
  return (i * 3 + r * 5) % 7 + 1
end
local function make(tname, r, n, offset)
  local t = torch.DoubleTensor(n or N)
  for i = 1, t:size(1) do t[i] = value(tname, r, i + (offset or 0)) end
  return t:type(CPU[tname]):cuda(dev)
end
local function as_double(t) return t:double() end

local COMBINE = { sum = function(a, b) return a + b end, prod = function(a, b) return a * b end, max = math.max, min = math.min }
local function expected(tname, op, n, offset)
  local out = torch.DoubleTensor(n or N)
  for i = 1, out:size(1) do
    local acc = value(tname, 0, i + (offset or 0))
    for r = 1, size - 1 do
      local v = value(tname, r, i + (offset or 0))
      if tname == 'torch.CudaBoolTensor' then
        acc = (op == 'sum' or op == 'max') and math.max(acc, v) or math.min(acc, v)
      else
        acc = COMBINE[op == 'avg' and 'sum' or op](acc, v)
      end
    end
    out[i] = op == 'avg' and acc / size or acc
  end
  return out
end
local function same(got, want, msg) tester:eq(as_double(got), want, 1e-3, msg) end

function tests.rankSizeAndDevice()
  tester:asserteq(dist.backend(), 'nccl')
  tester:assert(rank >= 0 and rank < size)
  tester:asserteq(dev, torch.cuda.getDevice(), 'init made the NCCL device current')
  local all = dist.allGather(torch.LongTensor({ rank }):cuda(dev))
  for r = 0, size - 1 do tester:eq(all[r + 1][1], r) end
end

function tests.allReduceEveryDtypeAndOp()
  for _, tname in ipairs(TYPES) do
    for _, op in ipairs({ 'sum', 'prod', 'max', 'min', 'avg' }) do
      local floating = tname:find('Cuda[DHB]') or tname == 'torch.CudaTensor'
      if op ~= 'avg' or (floating and tname ~= 'torch.CudaBoolTensor' and tname ~= 'torch.CudaByteTensor') then
        local t = make(tname, rank)
        local r = dist.allReduce(t, op)
        tester:assert(r == t, 'in place')
        tester:eq(t:type(), tname)
        same(t, expected(tname, op), tname .. ' ' .. op)
      end
    end
  end
end

function tests.broadcastAndReduce()
  for _, tname in ipairs(TYPES) do
    for root = 0, size - 1 do
      local t = make(tname, rank)
      dist.broadcast(t, root)
      same(t, as_double(make(tname, root)), tname .. ' broadcast from ' .. root)
      t = make(tname, rank)
      dist.reduce(t, root, 'max')
      same(t, rank == root and expected(tname, 'max') or as_double(make(tname, rank)), tname .. ' reduce')
    end
  end
end

function tests.gathersAndScatters()
  for _, tname in ipairs(TYPES) do
    local mine = make(tname, rank):view(2, 3)
    local all = dist.allGather(mine)
    tester:eq(all:size():totable(), { size, 2, 3 })
    for r = 0, size - 1 do same(all[r + 1]:reshape(N), as_double(make(tname, r)), tname .. ' allGather') end

    local g = dist.gather(mine, 1 % size)
    if rank == 1 % size then
      for r = 0, size - 1 do same(g[r + 1]:reshape(N), as_double(make(tname, r)), tname .. ' gather') end
    else
      tester:assert(g == nil)
    end

    local out = make(tname, 0, N):zero()
    local src = rank == 0 and make(tname, 7, N * size) or nil
    dist.scatter(out, src, 0)
    same(out, as_double(make(tname, 7, N, rank * N)), tname .. ' scatter')

    local big = make(tname, rank, N * size)
    local op = tname == 'torch.CudaBoolTensor' and 'min' or 'sum'
    local block = dist.reduceScatter(big, op)
    tester:eq(block:size(1), N)
    same(block, expected(tname, op, N, rank * N), tname .. ' reduceScatter')
  end
end

function tests.sendRecv()
  if size < 2 then
    expect_error(function() dist.send(make('torch.CudaTensor', 0), 0) end, 'cannot send to itself', 'send to self')
    return
  end
  for _, tname in ipairs(TYPES) do
    local right, left = (rank + 1) % size, (rank - 1 + size) % size
    local s = dist.sendAsync(make(tname, rank), right, 3)
    local r = dist.recvAsync(make(tname, 0):zero(), left, 3)
    local got = r:wait()
    s:wait()
    same(got, as_double(make(tname, left)), tname .. ' send/recv')
  end
end

function tests.asyncHandlesOverlapWithCompute()
  local works, tensors = {}, {}
  for k = 1, 5 do
    tensors[k] = torch.CudaDoubleTensor(100000):fill(rank + k)
    works[k] = dist.allReduceAsync(tensors[k])
    -- Compute queued after the collective was issued must not disturb it (ordered by events).
    torch.CudaDoubleTensor(1000):fill(1):mul(2)
  end
  local b = dist.barrierAsync()
  for k = 5, 1, -1 do
    local r = works[k]:wait()
    tester:assert(r == tensors[k])
    local want = 0
    for q = 0, size - 1 do want = want + q + k end
    tester:eq(r[100000], want)
    tester:eq(r:min(), want)
  end
  b:wait()
  tester:assert(works[1]:test())
  -- A tensor written on the compute stream right before the collective is reduced with its new value.
  local t = torch.CudaTensor(1048576):zero()
  t:fill(rank + 1)
  dist.allReduce(t)
  tester:eq(t:max(), size * (size + 1) / 2)
  dist.barrier()
end

function tests.clearArgumentErrors()
  expect_error(function() dist.allReduce(torch.FloatTensor(2)) end, 'NCCL backend takes CUDA tensors', 'CPU tensor')
  expect_error(function() dist.allReduce(torch.CudaTensor(3, 4):t()) end, 'not contiguous', 'non-contiguous')
  expect_error(function() dist.allReduce(torch.CudaTensor(2), 'mean') end, "unknown reduction 'mean'", 'op')
  expect_error(function() dist.allReduce(torch.CudaLongTensor(2), 'avg') end, "op 'avg' needs a floating%-point", 'avg')
  expect_error(function() dist.broadcast(torch.CudaTensor(2), size) end, 'root must be a rank', 'root')
  expect_error(function() dist.allGather(torch.CudaTensor(2), torch.CudaTensor(2 * size + 1)) end, 'must hold', 'blocks')
  -- The communicator still works after rejected calls.
  local t = dist.allReduce(torch.CudaDoubleTensor(2):fill(1))
  tester:eq(t[1], size)
end

function tests.mismatchesFailOnEveryRank()
  if size < 2 then return print('SKIPPED: mismatches need 2+ ranks') end
  expect_error(function() dist.allReduce(torch.CudaTensor(4 + rank)) end,
               'ranks disagree.*rank 0 called allReduce%(sum%) of 4 f32.*rank 1 called allReduce%(sum%) of 5 f32', 'sizes')
  local t = dist.allReduce(torch.CudaDoubleTensor(2):fill(1))
  tester:eq(t[1], size)
end

-- DDP with CUDA parameters: 4 steps on this rank's part of the batch end with the parameters of
-- the plain CPU model on the whole batch (f64). The Torch7 style computes the loss on the CPU (a
-- check of DDP and NCCL alone); the autograd style runs the criterion on the GPU too.
local function ddp_matches(style)
  local B = 4 * size
  torch.manualSeed(42)
  local X, Y = torch.randn(B, 5):double(), torch.randn(B, 3):double()
  local per = B / size
  local xc, yc = X:narrow(1, rank * per + 1, per), Y:narrow(1, rank * per + 1, per)
  local x, y = xc:cuda(dev), yc:cuda(dev)
  torch.manualSeed(100)
  local model = nn.Sequential():add(nn.Linear(5, 6)):add(nn.Tanh()):add(nn.Linear(6, 3)):double()
  local ref = model:clone()
  model:type('torch.CudaDoubleTensor')
  local ddp = nn.DistributedDataParallel(model, { bucketMB = 1e-4 })
  local crit = nn.MSECriterion():type('torch.CudaDoubleTensor')
  local ccrit, rcrit = nn.MSECriterion(), nn.MSECriterion()
  for _ = 1, 4 do
    ddp:zeroGradParameters()
    if style == 'torch7' then
      local out = ddp:forward(x):double()
      ccrit:forward(out, yc)
      ddp:backward(x, ccrit:backward(out, yc):cuda(dev))
    else
      crit(ddp(x), y):backward()
    end
    ddp:updateParameters(0.1)
    ref:zeroGradParameters()
    local o = ref:forward(X)
    rcrit:forward(o, Y)
    ref:backward(X, rcrit:backward(o, Y))
    ref:updateParameters(0.1)
  end
  local p1, p2 = model:parameters(), ref:parameters()
  for i = 1, #p1 do tester:assertTensorEq(p1[i]:double(), p2[i], 1e-8, style .. ' parameter ' .. i) end
end
function tests.ddpWithCudaParametersTorch7Style() ddp_matches('torch7') end
function tests.ddpWithCudaParametersLossBackward() ddp_matches('autograd') end

tester:add(tests)
tester:run()
dist.finalize()
