-- torch.distributed in a process that never called init (works without MPI): a job of one rank,
-- and clear errors from collectives and nn.DistributedDataParallel.
require 'nn'
local dist = torch.distributed
local tester = torch.Tester()
local tests = torch.TestSuite()

function tests.aJobOfOneBeforeInit()
  tester:assert(not dist.isInitialized())
  tester:eq(dist.rank(), 0)
  tester:eq(dist.size(), 1)
  tester:eq(dist.localRank(), 0)
end

function tests.collectivesNeedInit()
  for _, call in ipairs({ function() dist.allReduce(torch.FloatTensor(2)) end, function() dist.barrier() end,
                          function() dist.send(torch.FloatTensor(2), 0) end }) do
    tester:assertErrorPattern(call, 'torch.distributed is not initialized')
  end
  tester:assertErrorPattern(function() nn.DistributedDataParallel(nn.Linear(2, 2)) end, 'not initialized')
  tester:assertErrorPattern(function() dist.init{ backend = 'gloo' } end, "unknown backend 'gloo'")
  if torch.cuda.deviceCount() == 0 then
    local ok, err = pcall(dist.init, { backend = 'nccl' })
    tester:assert(not ok and (err:find('NCCL is not available') or err:find("backend 'nccl' needs a CUDA device")), tostring(err))
    tester:assert(not dist.isInitialized(), 'a failed init leaves torch.distributed uninitialized')
  end
end

tester:add(tests)
tester:run()
