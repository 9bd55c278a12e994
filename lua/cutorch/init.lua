-- cutorch: Torch7's CUDA package name over torch.cuda (lua/torch/cuda.lua), so that scripts'
-- `require 'cutorch'` and their cutorch.* calls run. Devices are numbered from 1 here, as in
-- cutorch (torch.cuda counts from 0: Note [Device indices]). torch.CudaTensor & co. and t:cuda()
-- already live in torch. Without a device the require fails, as Torch7's did (Note [cutorch
-- without a device]); when loaded anyway, the calls that need a GPU raise an error naming the
-- cutorch function.
require 'torch'
local ffi = require 'ffi'
local lib = require 'torch.lib'
local C, check = lib.C, lib.check

-- Note [cutorch without a device]: Torch7's `require 'cutorch'` (and so 'cunn' and 'cudnn')
-- failed on a machine without a GPU, and scripts choose their device by it:
-- `local ok = pcall(require, 'cunn')` takes the GPU path only when the require worked. Here too.
-- TOCHA_CUTORCH_WITHOUT_GPU=1 loads the packages anyway (cutorch.getDeviceCount() is then 0): to
-- convert a model saved with cudnn modules on a CPU machine, and for the tests.
-- The failed require leaves no "loop or previous error" mark behind: a later require says why again.
if torch.cuda.deviceCount() == 0 and os.getenv('TOCHA_CUTORCH_WITHOUT_GPU') ~= '1' then
  package.loaded.cutorch = nil
  error(string.format("[cutorch] no CUDA device: %s (Torch7's cutorch needed one too; "
    .. 'TOCHA_CUTORCH_WITHOUT_GPU=1 loads it anyway)', torch.cuda.unavailableReason()), 2)
end

local cutorch = rawget(_G, 'cutorch') or {}
cutorch._tocha = true
_G.cutorch = cutorch

local cuda = torch.cuda
local user_level = torch._lib.user_level

local function fail(fn, fmt, ...)
  error(string.format('[cutorch.%s] ' .. fmt, fn, ...), user_level())
end

-- Raises unless a device can be used; the message says why there is none.
local function need(fn)
  if cuda.deviceCount() == 0 then fail(fn, 'no CUDA device: %s', cuda.unavailableReason()) end
end

-- A 1-based device argument (default: the current device) as torch.cuda's 0-based index.
local function device0(fn, dev, required)
  need(fn)
  if dev == nil and not required then return cuda.getDevice() end
  local n = cuda.deviceCount()
  if type(dev) ~= 'number' or dev % 1 ~= 0 or dev < 1 or dev > n then
    fail(fn, 'expected a device index in [1, %d] (cutorch counts from 1), got %s', n, tostring(dev))
  end
  return dev - 1
end

--- cutorch.getDeviceCount(): the number of CUDA devices (0 without a GPU or the CUDA backend).
--- Example: require 'cutorch'; cutorch.getDeviceCount()
function cutorch.getDeviceCount() return cuda.deviceCount() end

--- cutorch.isAvailable(): true when a CUDA device can be used (not in Torch7's cutorch, whose
--- require failed without one, as it does here unless TOCHA_CUTORCH_WITHOUT_GPU=1).
--- Example: require 'cutorch'; cutorch.isAvailable()
function cutorch.isAvailable() return cuda.deviceCount() > 0 end

--- cutorch.getDevice(): the current device, from 1.
--- Example: require 'cutorch'; if cutorch.isAvailable() then print(cutorch.getDevice()) end
function cutorch.getDevice()
  need('getDevice')
  return cuda.getDevice() + 1
end

--- cutorch.setDevice(i): makes device i (from 1) current for new CUDA tensors and :cuda().
--- Example: require 'cutorch'; if cutorch.isAvailable() then cutorch.setDevice(1) end
function cutorch.setDevice(i)
  cuda.setDevice(device0('setDevice', i, true))
end

--- cutorch.withDevice(i, f): runs f() with device i (from 1) current, then restores the previous
--- device (also when f fails); returns f's results.
--- Example: require 'cutorch'; if cutorch.isAvailable() then cutorch.withDevice(1, function() return torch.CudaTensor(2) end) end
function cutorch.withDevice(i, f)
  local new = device0('withDevice', i, true)
  if type(f) ~= 'function' then fail('withDevice', 'expected a function as second argument, got %s', type(f)) end
  local cur = cuda.getDevice()
  cuda.setDevice(new)
  local function finish(ok, ...)
    cuda.setDevice(cur)
    if not ok then error((...), 0) end
    return ...
  end
  return finish(pcall(f))
end

--- cutorch.synchronize(): waits until the work queued on the current device is done.
--- Example: require 'cutorch'; if cutorch.isAvailable() then cutorch.synchronize() end
function cutorch.synchronize()
  need('synchronize')
  cuda.synchronize()
end

--- cutorch.synchronizeAll(): waits until the work queued on every device is done.
--- Example: require 'cutorch'; if cutorch.isAvailable() then cutorch.synchronizeAll() end
function cutorch.synchronizeAll()
  need('synchronizeAll')
  for d = 0, cuda.deviceCount() - 1 do cuda.synchronize(d) end
end

-- Note [cutorch free memory]: cutorch read the free memory from cudaMemGetInfo. Tocha's C API has
-- no such call, but in a CUDA build the runtime library is loaded with the process's global
-- symbols, so it is asked through the FFI on the device in question. Where that symbol cannot be
-- found, free is total minus what Tocha's caching allocator holds, which leaves out other
-- processes and the CUDA context.
local memGetInfo
local function mem_get_info(d0)
  if memGetInfo == nil then
    memGetInfo = false
    pcall(ffi.cdef, 'int cudaMemGetInfo(size_t *free, size_t *total);')
    local ok, f = pcall(function() return ffi.C.cudaMemGetInfo end)
    if ok and f ~= nil then memGetInfo = f end
  end
  local total = cuda.getDeviceProperties(d0).totalMemory
  if memGetInfo then
    local free, tot = ffi.new('size_t[1]'), ffi.new('size_t[1]')
    local cur = cuda.getDevice()
    cuda.setDevice(d0)
    local rc = memGetInfo(free, tot)
    cuda.setDevice(cur)
    if rc == 0 then return tonumber(free[0]), tonumber(tot[0]) end
  end
  return total - cuda.memoryStats(d0).reservedBytes, total
end

--- cutorch.getMemoryUsage([i]): free and total memory of device i (from 1; default: current), in
--- bytes (Note [cutorch free memory]).
--- Example: require 'cutorch'; if cutorch.isAvailable() then local free, total = cutorch.getMemoryUsage(1) end
function cutorch.getMemoryUsage(i)
  return mem_get_info(device0('getMemoryUsage', i))
end

--- cutorch.getDeviceProperties(i): a table of device i (from 1) with cutorch's field names: name,
--- totalGlobalMem, freeGlobalMem, major, minor, multiProcessorCount, warpSize,
--- maxThreadsPerBlock, sharedMemPerBlock (and torch.cuda's totalMemory).
--- Example: require 'cutorch'; if cutorch.isAvailable() then print(cutorch.getDeviceProperties(1).name) end
function cutorch.getDeviceProperties(i)
  local d0 = device0('getDeviceProperties', i)
  local p = cuda.getDeviceProperties(d0)
  local free = mem_get_info(d0)
  return { name = p.name, totalGlobalMem = p.totalMemory, freeGlobalMem = free, totalMemory = p.totalMemory,
           major = p.major, minor = p.minor, multiProcessorCount = p.multiProcessorCount, warpSize = p.warpSize,
           maxThreadsPerBlock = p.maxThreadsPerBlock, sharedMemPerBlock = p.sharedMemPerBlock }
end

-- ---- random numbers ------------------------------------------------------------------------
-- The generators can be seeded before any GPU use and without one (torch.cuda.manualSeed), so
-- scripts that seed cutorch unconditionally run on a CPU-only machine.

-- The 0-based generator index of a 1-based device argument; the current device (0 without one).
local function rng0(fn, dev)
  if dev == nil then return cuda.isAvailable() and cuda.getDevice() or 0 end
  return device0(fn, dev)
end

local function check_seed(fn, seed)
  if type(seed) ~= 'number' or seed % 1 ~= 0 or seed < 0 then
    fail(fn, 'expected a non-negative integer seed, got %s', tostring(seed))
  end
end

--- cutorch.manualSeed(seed[, i]): seeds the generator of device i (from 1; default: current).
--- Example: require 'cutorch'; cutorch.manualSeed(123)
function cutorch.manualSeed(seed, i)
  check_seed('manualSeed', seed)
  check(C.tocha_cuda_manual_seed(rng0('manualSeed', i), seed))
end

--- cutorch.manualSeedAll(seed): seeds the generators of every device.
--- Example: require 'cutorch'; cutorch.manualSeedAll(123)
function cutorch.manualSeedAll(seed)
  check_seed('manualSeedAll', seed)
  cuda.manualSeedAll(seed)
end

-- A fresh seed from the clock and the CPU generator (cutorch took the time).
local function fresh_seed()
  return (os.time() * 1000003 + math.floor(os.clock() * 1e6) + math.random(0, 2 ^ 30)) % 2 ^ 32
end

--- cutorch.seed([i]): seeds device i's generator (default: current) with a fresh seed; returns it.
--- Example: require 'cutorch'; local s = cutorch.seed()
function cutorch.seed(i)
  local s = fresh_seed()
  check(C.tocha_cuda_manual_seed(rng0('seed', i), s))
  return s
end

--- cutorch.seedAll(): seeds every device's generator with one fresh seed; returns it.
--- Example: require 'cutorch'; local s = cutorch.seedAll()
function cutorch.seedAll()
  local s = fresh_seed()
  cuda.manualSeedAll(s)
  return s
end

--- cutorch.initialSeed([i]): the seed of device i's generator (default: current).
--- Example: require 'cutorch'; cutorch.manualSeed(7); print(cutorch.initialSeed())
function cutorch.initialSeed(i)
  local v = ffi.new('uint64_t[1]')
  check(C.tocha_cuda_initial_seed(rng0('initialSeed', i), v))
  return tonumber(v[0])
end

--- cutorch.getRNGState([i]): device i's generator state (a ByteTensor; default: current device).
--- Example: require 'cutorch'; local s = cutorch.getRNGState()
function cutorch.getRNGState(i) return cuda.getRNGState(rng0('getRNGState', i)) end

--- cutorch.setRNGState(state[, i]): restores a state from cutorch.getRNGState on device i.
--- Example: require 'cutorch'; cutorch.setRNGState(cutorch.getRNGState())
function cutorch.setRNGState(state, i) cuda.setRNGState(state, rng0('setRNGState', i)) end

require 'cutorch.streams'
require 'cutorch.host'

return cutorch
