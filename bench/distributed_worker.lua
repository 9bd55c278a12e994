-- The per-rank half of bench/distributed.lua (run under mpirun). Modes:
--   allreduce: best time of torch.distributed.allReduce (float sum, in place) on 1..256 MiB, and
--              of OpenMPI's MPI_Allreduce called through the FFI on the same buffer in the same
--              process, the two alternating trial by trial (bench/allreduce_ref.c measures it in a
--              C program of its own);
--   mlp:       samples/s of data-parallel training of the nn issue's MLP (784-512-256-10 ReLU,
--              cross-entropy, batch 128 per rank, 1 thread per rank) through nn.DistributedDataParallel.
require 'nn'
local dist = torch.distributed
dist.init{ backend = 'mpi' }
torch.setnumthreads(1)
local mode = arg[1] or 'allreduce'
local rank = dist.rank()

-- The slowest rank's time. One buffer for every call, as allreduce_ref.c reuses its double: a new
-- tensor per trial is garbage that moves what the process touches between the timed calls.
local timing = torch.DoubleTensor(1)
local function max_over_ranks(x)
  timing[1] = x
  return dist.allReduce(timing, 'max')[1]
end

-- OpenMPI's own MPI_Allreduce, called on a tensor in place (nil when the MPI library is not
-- OpenMPI: its handles are the addresses of these symbols). The plugin loaded libmpi globally.
local function raw_allreduce()
  local ffi = require 'ffi'
  local ok = pcall(ffi.cdef, [[
    int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, void *datatype, void *op, void *comm);
    extern char ompi_mpi_comm_world[], ompi_mpi_float[], ompi_mpi_op_sum[];
  ]])
  local okc, world = pcall(function() return ffi.C.ompi_mpi_comm_world end)
  if not ok or not okc then return nil end
  local f, sum, in_place = ffi.C.ompi_mpi_float, ffi.C.ompi_mpi_op_sum, ffi.cast('void *', 1)
  return function(t) return ffi.C.MPI_Allreduce(in_place, t:data(), t:nElement(), f, sum, world) end
end

if mode == 'allreduce' then
  local raw = raw_allreduce()
  for _, mib in ipairs({ 1, 4, 16, 64, 256 }) do
    local t = torch.FloatTensor(mib * 2 ^ 20 / 4):fill(0.5)
    local trials, warmup = mib >= 256 and 6 or mib >= 64 and 8 or 100, 3
    local best, best_raw = math.huge, math.huge
    for trial = 1, warmup + trials do
      dist.barrier()
      local t0 = torch.tic()
      dist.allReduce(t)
      local dt = max_over_ranks(torch.toc(t0))
      if trial > warmup then best = math.min(best, dt) end
      if raw then
        dist.barrier()
        t0 = torch.tic()
        raw(t)
        dt = max_over_ranks(torch.toc(t0))
        if trial > warmup then best_raw = math.min(best_raw, dt) end
      end
    end
    if rank == 0 then
      print(string.format('allreduce_%d %.6f', mib, best))
      if raw then print(string.format('raw_%d %.6f', mib, best_raw)) end
    end
  end
elseif mode == 'mlp' then
  torch.manualSeed(1)
  local model = nn.Sequential():add(nn.Linear(784, 512)):add(nn.ReLU()):add(nn.Linear(512, 256))
    :add(nn.ReLU()):add(nn.Linear(256, 10))
  local ddp = nn.DistributedDataParallel(model)
  local crit = nn.CrossEntropyCriterion()
  local x, y = torch.randn(128, 784), torch.LongTensor(128):random(1, 10)
  local function step()
    ddp:zeroGradParameters()
    local out = ddp:forward(x)
    crit:forward(out, y)
    ddp:backward(x, crit:backward(out, y))
    ddp:updateParameters(0.01)
  end
  -- Steady state: the first steps grow the heap into memory never touched before, and on this VM
  -- a first touch costs ~13 us a page (MPI's temporary buffers land there too, making the 2-rank
  -- steps slower still) until the first collection lets freed memory be reused.
  for _ = 1, 150 do step() end
  local steps, best = 30, math.huge
  for _ = 1, 3 do
    dist.barrier()
    local t0 = torch.tic()
    for _ = 1, steps do step() end
    best = math.min(best, max_over_ranks(torch.toc(t0)) / steps)
  end
  if rank == 0 then print(string.format('mlp_samples_per_s %.1f', dist.size() * 128 / best)) end
end
dist.finalize()
