-- data.DistributedSampler across real ranks: the shards the ranks compute on their own are
-- disjoint and cover the dataset; only rank 0 draws progress bars and writes checkpoints.
require 'nn'
local data = require 'data'
local dist = torch.distributed
dist.init{ backend = 'mpi', timeout = 60 }
local rank, size = dist.rank(), dist.size()
local tester = torch.Tester()
local tests = torch.TestSuite()

function tests.shardsAgreeAcrossRanks()
  for epoch = 1, 3 do
    local s = data.DistributedSampler(23, { seed = 11 })
    s:setEpoch(epoch)
    tester:eq(s.numReplicas, size)
    tester:eq(s.rank, rank)
    local all = dist.allGather(torch.LongTensor(s:indices()))
    local seen, count = {}, 0
    for r = 1, size do
      for k = 1, all:size(2) do
        seen[all[r][k]] = true
        count = count + 1
      end
    end
    tester:eq(count, math.ceil(23 / size) * size)
    for i = 1, 23 do tester:assert(seen[i], 'index ' .. i .. ' in no shard') end
  end
end

function tests.onlyRankZeroDrawsAndSaves()
  local out = { text = '' }
  function out:write(s) self.text = self.text .. s end
  function out:flush() end
  local bar = data.ProgressBar{ total = 2, output = out, tty = false }
  bar:update(1)
  bar:finish()
  tester:eq(out.text ~= '', rank == 0, 'bar output on rank ' .. rank)

  local dir = os.getenv('TOCHA_TEST_TMP') or '/tmp'
  local path = string.format('%s/ddp_ckpt_%d.t7', dir, os.time())
  local model = nn.DistributedDataParallel(nn.Linear(2, 2))
  local cb = nn.ModelCheckpoint{ path = path, monitor = 'loss' }
  if rank == 0 then os.remove(path) end
  dist.barrier()
  cb:onEpochEnd({ model = model }, 1, { loss = 1 })
  dist.barrier()
  tester:eq(cb.lastSaved ~= nil, rank == 0)
  local f = io.open(path, 'rb')
  tester:assert(f ~= nil, 'checkpoint written by rank 0')
  if f then f:close() end
  dist.barrier()
  if rank == 0 then
    local m = torch.load(path)
    tester:eq(torch.typename(m), 'nn.Linear')
    os.remove(path)
  end
end

tester:add(tests)
tester:run()
dist.barrier()
