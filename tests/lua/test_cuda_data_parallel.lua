-- nn.DataParallelTable on GPUs (issue 11): training through the table on one device (and on two
-- with and without NCCL when present) ends with the weights of the plain CPU model trained on the
-- whole batch; the single-process NCCL communicator (ncclCommInitAll) is checked directly on one
-- device. Without a GPU every test prints SKIPPED (the CPU replicas of test_nn_data_parallel.lua
-- cover the same code); without libtocha_nccl.so the NCCL parts say so.
require 'nn'
local ffi = require 'ffi'
local check = dofile('dpt_check.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()

local ngpu = torch.cuda.deviceCount()
local function skip(why) print('SKIPPED: ' .. why) end
local function nccl()
  local ok, N = pcall(torch.distributed._loadNCCL, 'test')
  return ok and N or nil, not ok and N or nil
end

function tests.trainsLikeTheCpuModelOnOneGpu()
  if ngpu == 0 then return skip('no CUDA device: ' .. torch.cuda.unavailableReason()) end
  for _, style in ipairs({ 'torch7', 'autograd', 'optim' }) do
    check.train_matches(tester, { 0 }, style, { tol = 1e-8 })
  end
  check.train_matches(tester, { 0 }, 'torch7', { tol = 1e-8, autograd = true, flatten = true })
end

function tests.trainsLikeTheCpuModelOnTwoGpus()
  if ngpu < 2 then return skip('fewer than 2 CUDA devices (' .. ngpu .. ')') end
  for _, useNCCL in ipairs({ true, false }) do
    local dpt = check.train_matches(tester, { 0, 1 }, 'torch7', { tol = 1e-8, useNCCL = useNCCL, batch = 9 })
    tester:asserteq(dpt:usesNCCL(), useNCCL and nccl() ~= nil, 'NCCL used when asked for and built')
    check.train_matches(tester, { 0, 1 }, 'optim', { tol = 1e-8, useNCCL = useNCCL, flatten = true })
  end
end

local CPU_TYPE = { ['torch.CudaTensor'] = 'torch.FloatTensor', ['torch.CudaDoubleTensor'] = 'torch.DoubleTensor',
                   ['torch.CudaHalfTensor'] = 'torch.HalfTensor', ['torch.CudaLongTensor'] = 'torch.LongTensor',
                   ['torch.CudaByteTensor'] = 'torch.ByteTensor' }

-- Runs everywhere the plugin is built: its declarations load and, without a GPU, the
-- communicator is refused with a clear error instead of a crash.
function tests.ncclPluginLoads()
  local N, why = nccl()
  if not N then return skip('no NCCL plugin: ' .. tostring(why)) end
  tester:assert(N.tocha_nccl_version() >= 20000, 'an NCCL 2 version code')
  if ngpu == 0 then
    local devs = ffi.new('int[1]', 0)
    tester:assert(N.tocha_nccl_local_new(1, devs) == nil, 'no communicator without a GPU')
    tester:assert(ffi.string(N.tocha_nccl_last_error()):find('CUDA'), ffi.string(N.tocha_nccl_last_error()))
  end
end

-- The communicator on one device: every operation keeps the values (one rank), in place, and
-- wrong tensors are refused with the operation's name.
function tests.localNcclCommunicatorOnOneDevice()
  if ngpu == 0 then return skip('no CUDA device: ' .. torch.cuda.unavailableReason()) end
  local N, why = nccl()
  if not N then return skip('no NCCL plugin: ' .. tostring(why)) end
  local devs = ffi.new('int[1]', 0)
  local c = N.tocha_nccl_local_new(1, devs)
  tester:assert(c ~= nil, ffi.string(N.tocha_nccl_last_error()))
  if c == nil then return end
  c = ffi.gc(c, N.tocha_nccl_local_free)
  local ts = ffi.new('tocha_tensor *[1]')
  for _, tname in ipairs({ 'torch.CudaTensor', 'torch.CudaDoubleTensor', 'torch.CudaHalfTensor', 'torch.CudaLongTensor',
                           'torch.CudaByteTensor' }) do
    local cpu = torch.range(1, 10):double()
    local t = cpu:type(CPU_TYPE[tname]):cuda(0)
    ts[0] = t.p
    tester:asserteq(N.tocha_nccl_local_all_reduce(c, ts, 1, 0), 0, ffi.string(N.tocha_nccl_last_error()))
    tester:asserteq(N.tocha_nccl_local_reduce(c, ts, 1, 0, 2), 0, ffi.string(N.tocha_nccl_last_error()))
    tester:asserteq(N.tocha_nccl_local_broadcast(c, ts, 1, 0), 0, ffi.string(N.tocha_nccl_last_error()))
    tester:assertTensorEq(t:double(), cpu, 0, tname .. ' unchanged by one-device operations')
  end
  ts[0] = torch.ones(3).p
  tester:asserteq(N.tocha_nccl_local_all_reduce(c, ts, 1, 0), -1)
  tester:assert(ffi.string(N.tocha_nccl_last_error()):find('must be on cuda:0'), 'a CPU tensor is refused')
  tester:asserteq(N.tocha_nccl_local_all_reduce(c, ts, 2, 0), -1)
  tester:assert(ffi.string(N.tocha_nccl_last_error()):find('one tensor per device'), 'the count is checked')
  local bad = ffi.new('int[1]', ngpu)
  tester:assert(N.tocha_nccl_local_new(1, bad) == nil, 'a missing device is refused')
  tester:assert(ffi.string(N.tocha_nccl_last_error()):find('not a CUDA device'))
end

-- With NCCL asked for, a one-device table still trains (nothing to reduce) and says whether it
-- holds a communicator.
function tests.oneDeviceTableWithNccl()
  if ngpu == 0 then return skip('no CUDA device: ' .. torch.cuda.unavailableReason()) end
  local dpt = check.train_matches(tester, { 0 }, 'autograd', { tol = 1e-8, useNCCL = true })
  tester:asserteq(dpt:usesNCCL(), false, 'one device needs no communicator')
end

tester:add(tests)
tester:run()
