-- torch.distributed on 2+ ranks (run by ctest through mpirun): every collective and dtype against
-- values computed locally, the async forms, and the errors for ranks that disagree.
local dist = torch.distributed
dist.init{ backend = 'mpi', timeout = 60 }
local rank, size = dist.rank(), dist.size()
local tester = torch.Tester()
local tests = torch.TestSuite()

local TYPES = { 'torch.FloatTensor', 'torch.DoubleTensor', 'torch.HalfTensor', 'torch.BFloat16Tensor',
                'torch.LongTensor', 'torch.IntTensor', 'torch.ByteTensor', 'torch.BoolTensor' }
local N = 6

-- Rank r's element i (small integers, exact in every dtype; bool: a pattern of true/false).
local function value(tname, r, i)
  if tname == 'torch.BoolTensor' then return ((i + r) % 3 == 0) and 1 or 0 end
  return (i * 3 + r * 5) % 7 + 1
end
local function make(tname, r, n, offset)
  local t = torch.DoubleTensor(n or N)
  for i = 1, t:size(1) do t[i] = value(tname, r, i + (offset or 0)) end
  return t:type(tname)
end
local function as_double(t) return t:type('torch.DoubleTensor') end

local COMBINE = {
  sum = function(a, b) return a + b end, prod = function(a, b) return a * b end,
  max = math.max, min = math.min,
}
local function expected(tname, op, n, offset)
  local out = torch.DoubleTensor(n or N)
  for i = 1, out:size(1) do
    local acc = value(tname, 0, i + (offset or 0))
    for r = 1, size - 1 do
      local v = value(tname, r, i + (offset or 0))
      if tname == 'torch.BoolTensor' then
        acc = (op == 'sum' or op == 'max') and math.max(acc, v) or math.min(acc, v)
      else
        acc = COMBINE[op == 'avg' and 'sum' or op](acc, v)
      end
    end
    out[i] = op == 'avg' and acc / size or acc
  end
  return out
end

local function same(got, want, msg)
  tester:eq(as_double(got), want, 1e-6, msg)
end

function tests.rankAndSize()
  tester:assert(size >= 2, 'run with mpirun -np 2 or more')
  tester:assert(rank >= 0 and rank < size)
  tester:assert(dist.localRank() >= 0 and dist.localRank() < dist.localSize())
  local all = dist.allGather(torch.LongTensor({ rank }))
  for r = 0, size - 1 do tester:eq(all[r + 1][1], r) end
end

function tests.allReduceEveryDtypeAndOp()
  for _, tname in ipairs(TYPES) do
    for _, op in ipairs({ 'sum', 'prod', 'max', 'min', 'avg' }) do
      local floating = tname:find('Float') or tname:find('Double') or tname:find('Half') or tname:find('BFloat16')
      if op ~= 'avg' or floating then
        local t = make(tname, rank)
        local r = dist.allReduce(t, op)
        tester:assert(r == t, 'in place')
        tester:eq(t:type(), tname)
        same(t, expected(tname, op), tname .. ' ' .. op)
      end
    end
  end
end

-- Note [All-reduce in chunks]: 6 MiB runs as two MPI_Allreduce calls at the default 4 MiB chunk
-- (the mpi.collectives_chunked run of this suite cuts every all-reduce into 5-byte chunks).
function tests.allReduceLargerThanAChunk()
  local n = 3 * 2 ^ 19
  local t = torch.range(1, n):float():mul(rank + 1)
  dist.allReduce(t)
  local factor = size * (size + 1) / 2
  tester:eq(t[1], factor)
  tester:eq(t[2 ^ 20], 2 ^ 20 * factor, 'last element of the first chunk')
  tester:eq(t[2 ^ 20 + 1], (2 ^ 20 + 1) * factor, 'first element of the second chunk')
  tester:eq(t[n], n * factor)
  tester:eq(t:double():sum(), n * (n + 1) / 2 * factor)
end

function tests.avgNeedsFloatingPoint()
  local ok, err = pcall(dist.allReduce, torch.LongTensor(3), 'avg')
  tester:assert(not ok and err:find("op 'avg' needs a floating%-point tensor"), tostring(err))
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
    local block = dist.reduceScatter(big, tname == 'torch.BoolTensor' and 'min' or 'sum')
    tester:eq(block:size(1), N)
    same(block, expected(tname, tname == 'torch.BoolTensor' and 'min' or 'sum', N, rank * N), tname .. ' reduceScatter')
  end
end

-- 'avg' divides after the transfer (and after the copy back of a half-precision carrier): only
-- at the root for reduce, on every rank's block for reduceScatter.
function tests.reduceAndReduceScatterAverage()
  for _, tname in ipairs({ 'torch.FloatTensor', 'torch.HalfTensor', 'torch.BFloat16Tensor' }) do
    local t = make(tname, rank)
    dist.reduce(t, 0, 'avg')
    same(t, rank == 0 and expected(tname, 'avg') or as_double(make(tname, rank)), tname .. ' reduce avg')
    local block = dist.reduceScatter(make(tname, rank, N * size), 'avg')
    same(block, expected(tname, 'avg', N, rank * N), tname .. ' reduceScatter avg')
  end
end

function tests.sendRecvRing()
  for _, tname in ipairs(TYPES) do
    local right, left = (rank + 1) % size, (rank - 1 + size) % size
    local s = dist.sendAsync(make(tname, rank), right, 3)
    local got = dist.recv(make(tname, 0):zero(), left, 3)
    s:wait()
    same(got, as_double(make(tname, left)), tname .. ' send/recv')
  end
end

function tests.asyncHandlesOverlap()
  local works, tensors = {}, {}
  for k = 1, 5 do
    tensors[k] = torch.DoubleTensor(1000):fill(rank + k)
    works[k] = dist.allReduceAsync(tensors[k])
  end
  local b = dist.barrierAsync()
  for k = 5, 1, -1 do
    local r = works[k]:wait()
    tester:assert(r == tensors[k])
    local want = 0
    for q = 0, size - 1 do want = want + q + k end
    tester:eq(r[1000], want)
  end
  b:wait()
  tester:assert(works[1]:test())
  dist.barrier()
end

local function expect_error(fn, pattern, what)
  local ok, err = pcall(fn)
  tester:assert(not ok, what .. ': no error')
  tester:assert(tostring(err):find(pattern), what .. ': ' .. tostring(err))
end

function tests.mismatchedSizesDtypesAndCollectivesFailOnEveryRank()
  expect_error(function() dist.allReduce(torch.FloatTensor(4 + rank)) end,
               'ranks disagree.*rank 0 called allReduce%(sum%) of 4 f32.*rank 1 called allReduce%(sum%) of 5 f32', 'sizes')
  expect_error(function() dist.allReduce(rank == 0 and torch.FloatTensor(3) or torch.DoubleTensor(3)) end,
               'rank 1 called allReduce%(sum%) of 3 f64', 'dtypes')
  expect_error(function() if rank == 0 then dist.broadcast(torch.FloatTensor(3)) else dist.allReduce(torch.FloatTensor(3)) end end,
               'rank 0 called broadcast%(root 0%).*rank 1 called allReduce', 'collectives')
  expect_error(function() dist.allReduce(torch.FloatTensor(3), rank == 0 and 'sum' or 'max') end, 'allReduce%(max%)', 'ops')
  -- Arguments rejected on one rank fail the others too (the rejecting rank keeps its own message).
  expect_error(function() dist.allReduce(rank == 0 and torch.FloatTensor(3, 4):t() or torch.FloatTensor(12)) end,
               rank == 0 and 'not contiguous' or 'rank%(s%) 0 passed invalid arguments', 'invalid on one rank')
  expect_error(function()
    if rank == 0 then dist.send(torch.FloatTensor(3), 1, 9) elseif rank == 1 then dist.recv(torch.IntTensor(3), 0, 9) else error('sent 3') end
  end, 'rank 1 expected 3 i32', 'send/recv')
  -- The communicator is still usable afterwards.
  local t = dist.allReduce(torch.DoubleTensor(2):fill(1))
  tester:eq(t[1], size)
end

function tests.clearArgumentErrors()
  expect_error(function() dist.allReduce(torch.FloatTensor(2), 'mean') end, "unknown reduction 'mean'", 'op')
  expect_error(function() dist.broadcast(torch.FloatTensor(2), size) end, 'root must be a rank', 'root')
  expect_error(function() dist.allReduce({}) end, 'the tensor must be a tensor', 'type')
  expect_error(function() dist.send(torch.FloatTensor(2), size + 3) end, 'is not a rank', 'destination')
  dist.barrier()
end

tester:add(tests)
tester:run()
dist.barrier()
