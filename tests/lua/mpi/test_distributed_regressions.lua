-- Regressions of torch.distributed, nn.DistributedDataParallel and nn.SyncBatchNorm on 2+ ranks
-- (review of 2026-11-28): f16/bf16 averages, rank and dtype checks, gradients shared between
-- modules, buffers, noSync, frozen modules, SyncBatchNorm with uneven and empty shares of the batch.
require 'nn'
local dist = torch.distributed
dist.init{ backend = 'mpi', timeout = 60 }
torch.setdefaulttensortype('torch.DoubleTensor')
local rank, size = dist.rank(), dist.size()
local tester = torch.Tester()
local tests = torch.TestSuite()

local function maxdiff(a, b)
  local v = (a - b):abs():max()
  return type(v) == 'number' and v or v:item()
end

-- Every rank must see the error (pattern: this rank's expected message).
local function expect_error(fn, pattern, what)
  local ok, err = pcall(fn)
  tester:assert(not ok, what .. ': expected an error')
  tester:assert(ok or tostring(err):find(pattern) ~= nil, what .. ': got ' .. tostring(err))
end

-- ---- collectives ---------------------------------------------------------------------------------

function tests.halfAverageIsDividedBeforeRounding()
  -- 60000 on every rank: the f32 sum (120000 on 2 ranks) is past f16's range, the average is not.
  local h = dist.allReduce(torch.HalfTensor({ 60000, 1 }), 'avg')
  tester:eq(h[1], 60000, 'f16 avg of 60000 (was inf)')
  tester:eq(h[2], 1, 'f16 avg of 1')
  local b = dist.allReduce(torch.BFloat16Tensor({ 3 }), 'avg')
  tester:eq(b[1], 3, 'bf16 avg')
  local red = dist.reduce(torch.HalfTensor({ 60000 }), 0, 'avg')
  if rank == 0 then tester:eq(red[1], 60000, 'f16 reduce avg at the root') end
  local w = dist.allReduceAsync(torch.HalfTensor({ 60000 }), 'avg')
  tester:eq(w:wait()[1], 60000, 'async f16 avg')
end

function tests.sendRecvRejectFractionalAndMissingRanks()
  -- The plugin's int argument truncated 1.5 to 1 and 0.7 to 0: a message went to the wrong rank.
  expect_error(function() dist.send(torch.Tensor(2), 0.5) end, '%[send%] destination 0.5 is not a rank', 'send 0.5')
  expect_error(function() dist.recv(torch.Tensor(2), 1.5) end, '%[recv%] source 1.5 is not a rank', 'recv 1.5')
  expect_error(function() dist.sendAsync(torch.Tensor(2), '1') end, '%[send%] destination string is not a rank', 'string')
  expect_error(function() dist.recv(torch.Tensor(2)) end, '%[recv%] source nil is not a rank', 'no source')
  -- PyTorch 1.13 refuses a rank's own rank; a synchronous MPI send to it waited for the timeout.
  expect_error(function() dist.send(torch.Tensor(2), rank) end, '%[send%] a rank cannot send to itself', 'send to self')
  expect_error(function() dist.recvAsync(torch.Tensor(2), rank) end, '%[recv%] a rank cannot receive from itself', 'recv self')
  dist.barrier()
end

function tests.outputDtypeMustMatchTheInput()
  -- f16/bf16 travel as f32 copies, so the plugin's dtype check saw f32 on both sides.
  expect_error(function() dist.allGather(torch.FloatTensor({ 1.1, 2 }), torch.HalfTensor(size, 2)) end,
               'the input is a torch.FloatTensor but the output is a torch.HalfTensor', 'allGather')
  expect_error(function() dist.reduceScatter(torch.HalfTensor(size * 2):fill(1), torch.BFloat16Tensor(2)) end,
               'the input is a torch.HalfTensor but the output is a torch.BFloat16Tensor', 'reduceScatter')
  -- gather/scatter: the root rejects, the others fail through the descriptor exchange.
  expect_error(function() dist.gather(torch.FloatTensor(2):fill(1), torch.HalfTensor(size, 2), 0) end,
               rank == 0 and 'the input is a torch.FloatTensor but the output is a torch.HalfTensor'
                         or 'rank%(s%) 0 passed invalid arguments', 'gather')
  expect_error(function() dist.scatter(torch.HalfTensor(2), torch.FloatTensor(size, 2):fill(1), 0) end,
               rank == 0 and 'the input is a torch.FloatTensor but the output is a torch.HalfTensor'
                         or 'rank%(s%) 0 passed invalid arguments', 'scatter')
  -- Same dtypes still work, and the communicator is usable afterwards.
  local g = dist.allGather(torch.HalfTensor({ rank + 0.5 }), torch.HalfTensor(size, 1))
  for r = 1, size do tester:eq(g[r][1], r - 0.5, 'f16 allGather') end
  tester:eq(dist.allReduce(torch.Tensor({ 1 }))[1], size)
end

function tests.workIsCompletedAndIsSuccess()
  -- PyTorch's work.is_completed() / is_success(): they never raise; wait() then raises.
  local t = torch.Tensor({ rank + 1 })
  local w = dist.allReduceAsync(t)
  local spins = 0
  while not w:isCompleted() do spins = spins + 1 dist.progress() end
  tester:assert(w:isSuccess(), 'a completed all-reduce succeeded')
  tester:eq(w:wait()[1], size * (size + 1) / 2, 'the result after isCompleted')
  -- A collective the ranks disagree on (sizes) fails on every rank.
  local bad = dist.allReduceAsync(torch.Tensor(rank == 0 and 2 or 3):fill(1))
  local ok, done = pcall(function()
    while not bad:isCompleted() do dist.progress() end
    return true
  end)
  tester:assert(ok and done, 'isCompleted does not raise: ' .. tostring(done))
  tester:assert(not bad:isSuccess(), 'the failed work is not a success')
  expect_error(function() bad:wait() end, 'ranks disagree on the collective', 'wait after isCompleted')
  expect_error(function() bad:wait() end, 'already failed: .*ranks disagree', 'a second wait repeats the error')
  tester:eq(dist.allReduce(torch.Tensor({ 1 }))[1], size, 'the communicator still works')
end

-- ---- nn.DistributedDataParallel -------------------------------------------------------------------

-- A module differentiated by autograd (no updateGradInput): its gradients arrive through hooks.
local Mix, parent = torch.class('nn.TestRegressionsMix', 'nn.Module')
function Mix:__init(n)
  parent.__init(self)
  self.weight = torch.randn(n, n)
  self.gradWeight = torch.zeros(n, n)
  nn.utils.linkGradients(self)
end
function Mix:updateOutput(x) self.output = torch.mm(x, self.weight) return self.output end

torch.manualSeed(42)  -- the same data on every rank; rank r takes rows r*4+1 .. r*4+4 of each batch
local X, Y = torch.randn(2 * 4 * size, 4), torch.randn(2 * 4 * size, 4)
local function shard(T, k) return T:narrow(1, (k - 1) * 4 * size + rank * 4 + 1, 4) end
local function whole(T, k) return T:narrow(1, (k - 1) * 4 * size + 1, 4 * size) end
local crit = nn.MSECriterion()

local function step(net, x, y, style)
  if style == 'torch7' then
    local o = net:forward(x)
    crit:forward(o, y)
    net:backward(x, crit:backward(o, y))
  else
    crit(net(x), y):backward()
  end
end

-- Gradients of model (wrapped in a DDP) after `batches` steps on this rank's shards, against ref
-- (a clone trained in one process on the whole batches); every rank holds the same.
local function check_grads(model, ref, what)
  local _, g1 = model:parameters()
  local _, g2 = ref:parameters()
  for i = 1, #g1 do tester:assertTensorEq(g1[i], g2[i], 1e-12, what .. ' gradient ' .. i) end
  for i = 1, #g1 do
    local all = dist.allGather(g1[i]:contiguous())
    for r = 2, size do tester:assertTensorEq(all[r], all[1], 0, what .. ' ranks agree on gradient ' .. i) end
  end
end

local function train_like_whole_batch(make, what, opts)
  for _, style in ipairs({ 'torch7', 'loss' }) do
    torch.manualSeed(11)
    local model = make()
    local ref = model:clone()
    local ddp = nn.DistributedDataParallel(model, opts or { bucketMB = 1e-5 })  -- a bucket per parameter
    ddp:zeroGradParameters()
    ref:zeroGradParameters()
    for k = 1, 2 do  -- two backwards without zeroing: gradients accumulate
      step(ddp, shard(X, k), shard(Y, k), style)
      step(ref, whole(X, k), whole(Y, k), style)
    end
    check_grads(model, ref, what .. ' (' .. style .. ')')
  end
end

function tests.ddpGradientsSharedByTwoBranches()
  -- Torch7's clone('weight', 'bias', 'gradWeight', 'gradBias') in a ConcatTable: the first branch
  -- to finish its backward sent a partial gradient, and its average was written back last
  -- (Note [DDP shared gradients]); off by 0.74 before.
  train_like_whole_batch(function()
    local a = nn.Linear(4, 4)
    local b = a:clone('weight', 'bias', 'gradWeight', 'gradBias')
    return nn.Sequential():add(nn.ConcatTable():add(a):add(b)):add(nn.CAddTable())
  end, 'clone-shared branches')
  -- The same tensors assigned to two modules.
  train_like_whole_batch(function()
    local a, b = nn.Linear(4, 4), nn.Linear(4, 4)
    b.weight, b.gradWeight, b.bias, b.gradBias = a.weight, a.gradWeight, a.bias, a.gradBias
    return nn.Sequential():add(nn.ConcatTable():add(a):add(b)):add(nn.CAddTable())
  end, 'same-tensor branches')
  -- And in sequence, and one module used twice (a re-reduction at the end of the iteration).
  train_like_whole_batch(function()
    local a = nn.Linear(4, 4)
    return nn.Sequential():add(a):add(nn.Tanh()):add(a:clone('weight', 'bias', 'gradWeight', 'gradBias'))
  end, 'clone-shared in sequence')
end

function tests.ddpReReductionKeepsHookGradients()
  -- An autograd module first (its gradient comes last, through a hook) and a Torch7 module used
  -- twice (the iteration re-reduces from .grad): the hook's gradient was not in .grad yet and was
  -- lost under loss:backward (off by 0.04).
  train_like_whole_batch(function()
    local a = nn.Linear(4, 4)
    return nn.Sequential():add(nn.TestRegressionsMix(4)):add(nn.Tanh()):add(a):add(nn.Tanh()):add(a)
  end, 'hook + module used twice')
end

function tests.ddpFrozenModulesNeedNoSyncGradients()
  -- A module frozen with requiresGrad(false) never reports a gradient: its parameters had slots,
  -- so every loss:backward left the iteration open and the next forward raised.
  torch.manualSeed(3)
  local model = nn.Sequential():add(nn.Linear(4, 4)):add(nn.Tanh()):add(nn.Linear(4, 4))
  model:get(1):requiresGrad(false)
  local ref = model:clone()
  local ddp = nn.DistributedDataParallel(model)
  ddp:zeroGradParameters()
  ref:zeroGradParameters()
  for k = 1, 2 do
    local ok, err = pcall(step, ddp, shard(X, k), shard(Y, k), 'loss')
    tester:assert(ok, 'loss:backward with a frozen module: ' .. tostring(err))
    step(ref, whole(X, k), whole(Y, k), 'loss')
  end
  tester:assertTensorEq(model:get(3).gradWeight, ref:get(3).gradWeight, 1e-12, 'the unfrozen layer is averaged')
  tester:eq(model:get(1).weight.grad, nil, 'the frozen layer has no .grad')
end

function tests.ddpBroadcastsBuffers()
  -- PyTorch's DDP broadcasts rank 0's buffers at construction and before every forward
  -- (broadcast_buffers=True); they were left alone (Note [DDP buffers]).
  local function make()
    torch.manualSeed(5)
    local m = nn.Sequential():add(nn.Linear(4, 3)):add(nn.BatchNormalization(3))
    m:get(2).running_mean:fill(rank)
    m:get(2).running_var:fill(rank + 1)
    return m
  end
  local m = make()
  local ddp = nn.DistributedDataParallel(m)
  tester:eq(m:get(2).running_mean[1], 0, 'rank 0 running_mean after construction')
  tester:eq(m:get(2).running_var[1], 1, 'rank 0 running_var after construction')
  -- Before each forward every rank takes rank 0's statistics: after two forwards on different
  -- shards, they equal rank 0's single update from its first shard followed by the second.
  ddp:forward(shard(X, 1))
  ddp:forward(shard(X, 2))
  local ref = make():get(2)
  ref.running_mean:zero() ref.running_var:fill(1)
  local lin = m:get(1)
  local x1 = dist.broadcast(shard(X, 1):clone(), 0)  -- rank 0's first shard
  ref:forward(lin:forward(x1))
  ref:forward(lin:forward(shard(X, 2)))
  tester:assertTensorEq(m:get(2).running_mean, ref.running_mean, 1e-12, 'running_mean synchronized before forward')
  tester:assertTensorEq(m:get(2).running_var, ref.running_var, 1e-12, 'running_var synchronized before forward')
  -- broadcastBuffers = false: synchronized once at construction, then left to each rank.
  local m2 = make()
  local ddp2 = nn.DistributedDataParallel(m2, { broadcastBuffers = false })
  tester:eq(m2:get(2).running_mean[1], 0, 'construction still broadcasts')
  m2:get(2).running_mean:fill(rank)
  ddp2:forward(shard(X, 1))
  local all = dist.allGather(m2:get(2).running_mean:clone())
  if size > 1 then tester:assert(maxdiff(all[1], all[2]) > 0, 'broadcastBuffers=false leaves them per rank') end
end

function tests.ddpNoSyncAccumulatesLocally()
  for _, style in ipairs({ 'torch7', 'loss' }) do
    torch.manualSeed(1)
    local model = nn.Sequential():add(nn.TestRegressionsMix(4)):add(nn.Tanh()):add(nn.Linear(4, 4))
    local ref = model:clone()
    local ddp = nn.DistributedDataParallel(model)
    ddp:zeroGradParameters()
    ref:zeroGradParameters()
    ddp:noSync(step, ddp, shard(X, 1), shard(Y, 1), style)
    local all = dist.allGather(model:get(3).gradWeight:clone())
    if size > 1 then tester:assert(maxdiff(all[1], all[2]) > 0, style .. ': noSync leaves local gradients') end
    step(ddp, shard(X, 2), shard(Y, 2), style)  -- averages the accumulated sum
    step(ref, whole(X, 1), whole(Y, 1), style)
    step(ref, whole(X, 2), whole(Y, 2), style)
    check_grads(model, ref, 'noSync then sync (' .. style .. ')')
  end
  local ddp = nn.DistributedDataParallel(nn.Linear(2, 2))
  tester:assertErrorPattern(function() ddp:noSync(42) end, 'noSync%] expected a function, got number')
  tester:assertErrorPattern(function() ddp:noSync(function() error('inner') end) end, 'inner')
  tester:eq(ddp._noSync, nil, 'an error inside noSync turns syncing back on')
end

function tests.ddpTypeConversionRebuildsTheBuckets()
  -- ddp:double() after wrapping a float model: the hooks stayed on the old float parameters, so
  -- under loss:backward the autograd module never reported and nothing was averaged (off by 0.2;
  -- Note [DDP type]).
  for _, style in ipairs({ 'torch7', 'loss' }) do
    torch.manualSeed(1)
    local model = nn.Sequential():add(nn.TestRegressionsMix(4)):add(nn.Tanh()):add(nn.Linear(4, 4)):float()
    local ddp = nn.DistributedDataParallel(model, { bucketMB = 1e-5 })
    tester:eq(ddp:double(), ddp, 'type returns the DDP')
    tester:eq(ddp:type(), 'torch.DoubleTensor')
    local ref = model:clone()
    ddp:zeroGradParameters()
    ref:zeroGradParameters()
    step(ddp, shard(X, 1), shard(Y, 1), style)
    step(ref, whole(X, 1), whole(Y, 1), style)
    check_grads(model, ref, 'after ddp:double() (' .. style .. ')')
    ddp:double()  -- the same type again: one hook per parameter still
    ddp:zeroGradParameters()
    ref:zeroGradParameters()
    step(ddp, shard(X, 2), shard(Y, 2), style)
    step(ref, whole(X, 2), whole(Y, 2), style)
    check_grads(model, ref, 'after a second ddp:double() (' .. style .. ')')
  end
end

function tests.ddpCopiedByCloneOrLoadStillAverages()
  -- A DDP from clone() or torch.load had no watched modules and no hooks: its gradients stayed
  -- each rank's own, silently (Note [DDP after torch.load and clone]).
  local path = os.tmpname()
  for _, how in ipairs({ 'clone', 'load' }) do
    for _, style in ipairs({ 'torch7', 'loss' }) do
      torch.manualSeed(3)
      local model = nn.Sequential():add(nn.TestRegressionsMix(4)):add(nn.Tanh()):add(nn.Linear(4, 4))
      local original = nn.DistributedDataParallel(model, { bucketMB = 1e-5 })
      local ddp
      if how == 'clone' then ddp = original:clone()
      else
        torch.save(path, original)
        ddp = torch.load(path)
      end
      local ref = ddp.module:clone()
      ddp:zeroGradParameters()
      ref:zeroGradParameters()
      step(ddp, shard(X, 1), shard(Y, 1), style)
      step(ref, whole(X, 1), whole(Y, 1), style)
      check_grads(ddp.module, ref, 'a DDP from ' .. how .. ' (' .. style .. ')')
      -- the original still averages its own model's gradients
      local ref2 = model:clone()
      original:zeroGradParameters()
      ref2:zeroGradParameters()
      step(original, shard(X, 2), shard(Y, 2), style)
      step(ref2, whole(X, 2), whole(Y, 2), style)
      check_grads(model, ref2, 'the original beside a ' .. how .. ' (' .. style .. ')')
    end
  end
  os.remove(path)
end

-- ---- nn.SyncBatchNorm -----------------------------------------------------------------------------

local SB = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/../fixtures/sync_bn_ref.lua')
local SBN, N, C, L = SB.REF, SB.N, SB.C, SB.L
local SX, SG = SB.X:type(torch.getdefaulttensortype()), SB.G:type(torch.getdefaulttensortype())

-- Rank r's rows given counts (rank r + 1 -> its number of rows; ranks past the list get none).
local function check_sync_bn(counts, what)
  local offset = 0
  for r = 0, rank - 1 do offset = offset + (counts[r + 1] or 0) end
  local mine = counts[rank + 1] or 0
  local bn = nn.SyncBatchNorm(C)
  bn.weight:copy(torch.Tensor({ 0.5, 1.5, -1 }))
  bn.bias:copy(torch.Tensor({ 0.1, -0.2, 0.3 }))
  local x = SX:narrow(1, offset + 1, mine):clone()
  local g = SG:narrow(1, offset + 1, mine):clone()
  local y = bn:forward(x)
  local gi = bn:backward(x, g)
  local want_y = torch.Tensor(SBN.y):view(N, C, L):narrow(1, offset + 1, mine)
  local want_gi = torch.Tensor(SBN.gi):view(N, C, L):narrow(1, offset + 1, mine)
  tester:eq(y:size(1), mine, what .. ': output rows')
  if mine > 0 then
    tester:assertTensorEq(y, want_y, 1e-12, what .. ': output')
    tester:assertTensorEq(gi, want_gi, 1e-12, what .. ': gradInput')
  end
  -- The weight and bias gradients are local (DDP averages them): their sum is the batch's.
  tester:assertTensorEq(dist.allReduce(bn.gradWeight:clone()), torch.Tensor(SBN.gw), 1e-12, what .. ': gradWeight')
  tester:assertTensorEq(dist.allReduce(bn.gradBias:clone()), torch.Tensor(SBN.gb), 1e-12, what .. ': gradBias')
  tester:assertTensorEq(bn.running_mean, torch.Tensor(SBN.rm), 1e-12, what .. ': running_mean')
  tester:assertTensorEq(bn.running_var, torch.Tensor(SBN.rv), 1e-12, what .. ': running_var')
end

function tests.syncBatchNormUnevenShares()
  check_sync_bn({ 3, 2 }, 'rows 3 + 2')
  check_sync_bn({ 1, 4 }, 'rows 1 + 4')
end

function tests.syncBatchNormEmptyShare()
  -- A rank with no rows joins the reductions with zero sums (PyTorch's SyncBatchNorm); its
  -- reshape to N x C x -1 failed before, leaving the other ranks in the all-reduce.
  check_sync_bn({ 5, 0 }, 'rows 5 + 0')
  check_sync_bn({ 0, 5 }, 'rows 0 + 5')
end

function tests.syncBatchNormFloatVarianceAcrossRanks()
  -- Note [SyncBatchNorm variance]: the ranks' means and deviations are combined, not sums of x
  -- and x^2 (which lost the variance of float32 inputs 1000 + 0.01 * randn: off by ~8).
  torch.manualSeed(8)
  local whole_x = (torch.randn(16 * size, 2) * 0.01 + 1000):float()
  local x = whole_x:narrow(1, rank * 16 + 1, 16):clone()
  local xd = whole_x:double()
  local mean, var = xd:mean(1), xd:var(1, false)
  local exact = (xd - mean:expandAs(xd)):cdiv(torch.sqrt(var + 1e-5):expandAs(xd)):narrow(1, rank * 16 + 1, 16)
  local bn = nn.SyncBatchNorm(2):float()
  tester:assertTensorEq(bn:forward(x):double(), exact, 0.05, 'float32 output against the exact normalization')
  local want_rv = var:view(-1) * (16 * size / (16 * size - 1)) * 0.1 + 0.9
  tester:assertTensorEq(bn.running_var:double(), want_rv, 1e-6, 'running_var')
end

tester:add(tests)
tester:run()
dist.barrier()
