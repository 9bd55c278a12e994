-- torch.cuda and the device side of the tensor API (issue 9): the device runtime (availability,
-- devices, properties, synchronization, the caching allocator's counters), the cutorch tensor
-- types (torch.CudaTensor, torch.CudaDoubleTensor...), t:cuda(), t:to(), and
-- torch.backends.cuda.allowTF32. Works in builds without CUDA: isAvailable() is then false and
-- anything that needs a device fails with a message that says why.
--
-- Note [Device indices]: devices are numbered from 0, as in 'cuda:0' strings, t:device() and
-- PyTorch (torch.cuda.setDevice(0) is the first GPU). cutorch counted from 1; its scripts that
-- call cutorch.setDevice(1) need 0 here.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local C, fail, check, wrap = lib.C, lib.fail, lib.check, lib.wrap

local cuda = {}
torch.cuda = cuda

--- torch.cuda.isBuilt(): true when Tocha was built with the CUDA backend (a device may still be absent).
--- Example: torch.cuda.isBuilt()
function cuda.isBuilt() return C.tocha_cuda_is_built() ~= 0 end
--- torch.cuda.isAvailable(): true when at least one CUDA device can be used.
--- Example: torch.cuda.isAvailable()
function cuda.isAvailable() return C.tocha_cuda_device_count() > 0 end
--- torch.cuda.deviceCount(): the number of CUDA devices (0 without a GPU, a driver or the backend).
--- Example: torch.cuda.deviceCount()
function cuda.deviceCount() return tonumber(C.tocha_cuda_device_count()) end
--- torch.cuda.unavailableReason(): why there is no device ('' when there is one).
--- Example: torch.cuda.unavailableReason()
function cuda.unavailableReason() return ffi.string(C.tocha_cuda_unavailable_reason()) end
--- torch.cuda.getDevice(): the current device index (0-based, Note [Device indices]).
--- Example: torch.cuda.getDevice()
function cuda.getDevice()
  local d = C.tocha_cuda_current_device()
  if d < 0 then lib.raise() end
  return tonumber(d)
end
cuda.currentDevice = cuda.getDevice
--- torch.cuda.setDevice(i): makes device i (0-based) current for new tensors and t:cuda().
--- Example: torch.cuda.setDevice(0)
function cuda.setDevice(i)
  if type(i) ~= 'number' then fail('setDevice', 'expected a device index (a number), got %s', type(i)) end
  check(C.tocha_cuda_set_device(i))
end
--- torch.cuda.synchronize([i]): waits until all work queued on device i (default: current) is done.
--- Example: torch.cuda.synchronize()
function cuda.synchronize(i) check(C.tocha_cuda_synchronize(i or -1)) end
--- torch.cuda.getDeviceProperties(i): a table with name, totalMemory, major, minor,
--- multiProcessorCount, warpSize, maxThreadsPerBlock and sharedMemPerBlock of device i.
--- Example: torch.cuda.getDeviceProperties(0).name
function cuda.getDeviceProperties(i)
  local p = ffi.new('tocha_device_properties')
  check(C.tocha_cuda_device_properties(i or cuda.getDevice(), p))
  return { name = ffi.string(p.name), totalMemory = tonumber(p.total_memory), major = p.major, minor = p.minor,
           multiProcessorCount = p.multiprocessors, warpSize = p.warp_size,
           maxThreadsPerBlock = p.max_threads_per_block, sharedMemPerBlock = tonumber(p.shared_memory_per_block) }
end
--- torch.cuda.memoryStats([i]): the caching allocator's counters of device i (bytes: allocated,
--- requested, reserved, cached and their peaks; counts: deviceAllocs, deviceFrees, cacheHits,
--- oomRetries, ooms) and the live tensor bytes that the GC heuristic sees (liveBytes, all devices).
--- All zero without a device.
--- Example: torch.cuda.memoryStats().allocatedBytes
function cuda.memoryStats(i)
  local s = ffi.new('tocha_cuda_mem_stats')
  check(C.tocha_cuda_memory_stats(i or (cuda.isAvailable() and cuda.getDevice() or 0), s))
  local live = torch.memoryStats('cuda')
  return { allocatedBytes = tonumber(s.allocated_bytes), requestedBytes = tonumber(s.requested_bytes),
           reservedBytes = tonumber(s.reserved_bytes), cachedBytes = tonumber(s.cached_bytes),
           peakAllocatedBytes = tonumber(s.peak_allocated_bytes), peakReservedBytes = tonumber(s.peak_reserved_bytes),
           deviceAllocs = tonumber(s.device_allocs), deviceFrees = tonumber(s.device_frees),
           cacheHits = tonumber(s.cache_hits), oomRetries = tonumber(s.oom_retries), ooms = tonumber(s.ooms),
           liveBytes = live.liveBytes, peakLiveBytes = live.peakBytes }
end
--- torch.cuda.resetPeakMemoryStats([i]): sets the peaks of device i to the current values.
--- Example: torch.cuda.resetPeakMemoryStats()
function cuda.resetPeakMemoryStats(i) check(C.tocha_cuda_reset_peak_stats(i or 0)) end
--- torch.cuda.emptyCache(): returns the allocators' cached (free) device and pinned host blocks
--- to the driver, after a collection so that blocks of dead tensors are included. A no-op
--- without a device.
--- Example: torch.cuda.emptyCache()
function cuda.emptyCache()
  lib.collect()
  check(C.tocha_cuda_empty_cache())
end

--- torch.cuda.manualSeed(seed): seeds the Philox generator of the current device, so that random
--- fills of CUDA tensors (t:uniform(), t:normal()) repeat. Works before any GPU use.
--- Example: torch.cuda.manualSeed(42)
function cuda.manualSeed(seed)
  check(C.tocha_cuda_manual_seed(cuda.isAvailable() and cuda.getDevice() or 0, seed))
end
--- torch.cuda.manualSeedAll(seed): seeds the generators of every CUDA device.
--- Example: torch.cuda.manualSeedAll(42)
function cuda.manualSeedAll(seed) check(C.tocha_cuda_manual_seed(-1, seed)) end
--- torch.cuda.initialSeed(): the seed of the current device's generator.
--- Example: torch.cuda.initialSeed()
function cuda.initialSeed()
  local v = ffi.new('uint64_t[1]')
  check(C.tocha_cuda_initial_seed(cuda.isAvailable() and cuda.getDevice() or 0, v))
  return tonumber(v[0])
end

local backend_switch = lib.backend_switch
torch.backends = torch.backends or {}
-- torch.backends.cuda.allowTF32 (off by default): TF32 tensor cores for f32 matmuls.
torch.backends.cuda = backend_switch('cuda', { allowTF32 = { C.tocha_cuda_allow_tf32, C.tocha_cuda_set_allow_tf32 } })
-- torch.backends.cudnn.benchmark (off by default): each convolution shape times cuDNN's algorithms
-- on its first call and keeps the fastest (PyTorch's and Torch7's cudnn.benchmark).
-- torch.backends.cudnn.graphAPI (off by default, or TOCHA_CUDNN_GRAPH=1): convolutions take cuDNN's
-- graph API and its engine heuristics first, as PyTorch does (Note [cuDNN engines]).
torch.backends.cudnn = backend_switch('cudnn', {
  benchmark = { C.tocha_cudnn_benchmark, C.tocha_cudnn_set_benchmark },
  graphAPI = { C.tocha_cudnn_graph_api, C.tocha_cudnn_set_graph_api },
})
--- torch.cuda.cudnnGraphStats(): {plans = n, legacy = n}, the convolution shapes that got an
--- execution plan of cuDNN's graph API, and those it sent to the legacy API (no engine took them).
--- Example: torch.cuda.cudnnGraphStats().plans
function cuda.cudnnGraphStats()
  local v = ffi.new('int64_t[2]')
  C.tocha_cudnn_graph_stats(v, v + 1)
  return { plans = tonumber(v[0]), legacy = tonumber(v[1]) }
end

-- ---- moving tensors -----------------------------------------------------------------------

-- A device spec ('cpu', 'cuda', 'cuda:1', a number = a CUDA index) as (device type, index).
local function parse_device(op, spec)
  if spec == nil or spec == 'cuda' then return 1, nil end
  if type(spec) == 'number' then return 1, spec end
  if spec == 'cpu' then return 0, 0 end
  if type(spec) == 'string' then
    local i = spec:match('^cuda:(%d+)$')
    if i then return 1, tonumber(i) end
  end
  fail(op, "expected a device ('cpu', 'cuda', 'cuda:N' or an index), got %s", tostring(spec))
end
cuda._parse_device = parse_device

-- ---- generator state ------------------------------------------------------------------------

-- Note [CUDA generator state]: a device's generator is a Philox counter, so its whole state is
-- its seed and the counter offset of the next fill: 16 bytes, the seed then the offset, each a
-- little-endian uint64, the layout of PyTorch's CUDA state. Random ops that CUDA tensors draw on
-- the host (multinomial, randperm, poisson, binomial) use the CPU generator (torch.getRNGState).
local rng_words = ffi.new('uint64_t[2]')
local function rng_device(op, device)
  if device == nil or device == 'cuda' then return cuda.isAvailable() and cuda.getDevice() or 0 end
  local dt, idx = parse_device(op, device)
  if dt ~= 1 then fail(op, 'expected a CUDA device, got %s', tostring(device)) end
  local n = cuda.deviceCount()
  if idx < 0 or idx ~= math.floor(idx) or (n > 0 and idx >= n) then
    fail(op, 'device %s does not exist (%d CUDA devices, numbered from 0)', tostring(device), n)
  end
  return idx
end
--- torch.cuda.getRNGState([device]): a ByteTensor (16 bytes) holding the state of a CUDA device's
--- generator (default: the current device); setRNGState restores it, so random CUDA fills repeat.
--- Example: local s = torch.cuda.getRNGState()
function cuda.getRNGState(device)
  check(C.tocha_cuda_get_rng_state(rng_device('cuda.getRNGState', device), rng_words, rng_words + 1))
  local state = torch.ByteTensor(16)
  ffi.copy(state:data(), rng_words, 16)
  return state
end
--- torch.cuda.setRNGState(state[, device]): restores a state from torch.cuda.getRNGState on a
--- CUDA device's generator (default: the current device).
--- Example: torch.cuda.setRNGState(torch.cuda.getRNGState())
function cuda.setRNGState(state, device)
  local op = 'cuda.setRNGState'
  if not types.is_tensor(state) or torch.typename(state) ~= 'torch.ByteTensor' or state:nElement() ~= 16 then
    fail(op, 'expected the 16-byte torch.ByteTensor of torch.cuda.getRNGState, got %s', types.describe(state))
  end
  local idx = rng_device(op, device)
  ffi.copy(rng_words, state:contiguous():data(), 16)
  check(C.tocha_cuda_set_rng_state(idx, rng_words[0], rng_words[1]))
end
--- torch.cuda.getRNGStateAll(): the generator states of every CUDA device, a table indexed from 1
--- (device 0 first).
--- Example: torch.cuda.getRNGStateAll()
function cuda.getRNGStateAll()
  local states = {}
  for d = 0, cuda.deviceCount() - 1 do states[d + 1] = cuda.getRNGState(d) end
  return states
end
--- torch.cuda.setRNGStateAll(states): restores the states of torch.cuda.getRNGStateAll.
--- Example: torch.cuda.setRNGStateAll(torch.cuda.getRNGStateAll())
function cuda.setRNGStateAll(states)
  if type(states) ~= 'table' or types.is_tensor(states) or #states ~= cuda.deviceCount() then
    fail('cuda.setRNGStateAll', 'expected a table of %d states from torch.cuda.getRNGStateAll, got %s',
      cuda.deviceCount(), types.describe(states))
  end
  for d = 0, #states - 1 do cuda.setRNGState(states[d + 1], d) end
end

-- Note [Out-of-memory from Lua]: the allocator already raised the GC flag, emptied its cache and
-- retried once inside C, but only Lua can free the tensors of dead handles. So moves and CUDA
-- constructors that fail with TOCHA_EOOM collect, empty the cache and try once more; any other op
-- that runs out of memory collects and empties before raising (lib.raise), so a retry by the
-- script then finds the memory.
local EOOM = 2
local function with_oom_retry(f)
  local p = f()
  if p == nil and C.tocha_last_error_code() == EOOM then
    lib.collect()
    C.tocha_cuda_empty_cache()
    p = f()
  end
  return wrap(p)
end
cuda._with_oom_retry = with_oom_retry

-- t on device spec (t itself when already there).
function torch._to_device(t, spec, op)
  op = op or 'to'
  local dt, idx = parse_device(op, spec)
  if dt == 1 then
    if C.tocha_cuda_device_count() == 0 then fail(op, '%s', cuda.unavailableReason()) end
    idx = idx or cuda.getDevice()
  end
  local p = t.p
  if p.device_type == dt and (dt == 0 or p.device_index == idx) then return t end
  return with_oom_retry(function() return C.tocha_tensor_to_device(p, dt, idx) end)
end

local methods = torch.getmetatable('torch.FloatTensor')
--- t:cuda([device]): a copy of t on a CUDA device (default: current; 0-based index), or t itself
--- when it is already there.
--- Example: torch.cuda.isAvailable() and torch.ones(2):cuda()
function methods.cuda(t, device) return torch._to_device(t, device or 'cuda', 'cuda') end
--- t:cpu(): t on the CPU (a copy when it is on a device, t itself otherwise).
--- Example: torch.ones(2):cpu()
function methods.cpu(t) return torch._to_device(t, 'cpu', 'cpu') end
-- A tensor type name or PyTorch's dtype name ('float64', 'torch.int64': Note [dtype names]) as a
-- dtype id, or nil.
local function dtype_named(v)
  if type(v) ~= 'string' then return nil end
  if types.dtype_of_name[v] then return types.dtype_of_name[v] end
  if not torch._dtype_arg then return nil end
  local ok, id = pcall(torch._dtype_arg, 'to', v)
  return ok and id or nil
end

--- t:to(device[, dtype]) or t:to(dtype): t on a device ('cpu', 'cuda', 'cuda:1') and/or of a
--- tensor type ('torch.DoubleTensor', or PyTorch's 'float64'); t itself when nothing changes.
--- Example: torch.ones(2):to('cpu', 'torch.DoubleTensor')
function methods.to(t, a, b)
  if type(a) == 'string' and (a:match('^torch%.') or dtype_named(a)) then a, b = nil, a end
  if a ~= nil then t = torch._to_device(t, a, 'to') end
  if b ~= nil then
    local dt = dtype_named(b)
    if not dt then fail('to', 'unknown tensor type %s', tostring(b)) end
    if t.p.dtype ~= dt then t = wrap(C.tocha_tensor_to_dtype(t.p, dt)) end
  end
  return t
end
--- t:isCuda(): true when t lives on a CUDA device.
--- Example: torch.ones(2):isCuda()
function methods.isCuda(t) return t.p.device_type == 1 end
--- t:getDevice(): the CUDA device index of t (0-based), or -1 for a CPU tensor (cutorch's name).
--- Example: torch.ones(2):getDevice()
function methods.getDevice(t) return t.p.device_type == 1 and tonumber(t.p.device_index) or -1 end

-- ---- pinned host memory and asynchronous copies (core/pinned_memory.h) -----------------------

--- t:pinMemory(): a copy of CPU tensor t in pinned (page-locked) host memory, or t itself when it
--- is pinned already; copies between pinned memory and a GPU are faster and can be asynchronous
--- (dst:copy(src, true)). Needs the CUDA backend and a device.
--- Example: torch.cuda.isAvailable() and torch.ones(4):pinMemory()
function methods.pinMemory(t) return with_oom_retry(function() return C.tocha_tensor_pin_memory(t.p) end) end
--- t:isPinned(): true when t lives in pinned host memory.
--- Example: torch.ones(4):isPinned()
function methods.isPinned(t)
  local r = C.tocha_tensor_is_pinned(t.p)
  if r < 0 then lib.raise() end
  return r == 1
end
--- dst:copyAsync(src): dst:copy(src, true): between pinned host memory and a GPU the copy is
--- queued on the device's stream and returns at once (torch.cuda.synchronize() before the host
--- reads the destination or overwrites the source); any other copy is the ordinary one.
--- Example: torch.ones(2):copyAsync(torch.zeros(2))
function methods.copyAsync(t, src) return methods.copy(t, src, true) end

--- torch.cuda.createCudaHostTensor(sizes...): an uninitialized torch.FloatTensor (the default
--- tensor type) in pinned host memory, cutorch's name; torch.cuda.pinned(sizes...) is the same.
--- Example: torch.cuda.isAvailable() and torch.cuda.createCudaHostTensor(2, 3)
function cuda.createCudaHostTensor(...)
  local dims = ffi.new('int64_t[16]')
  local nd = types.read_sizes('createCudaHostTensor', dims, ...)
  local dtype = types.dtype_of_name[torch.getdefaulttensortype()] or lib.dtype.f32
  return with_oom_retry(function() return C.tocha_tensor_empty_pinned(nd, dims, dtype) end)
end
cuda.pinned = cuda.createCudaHostTensor

-- cutorch's tensor types: torch.CudaTensor (float), torch.CudaDoubleTensor, torch.CudaHalfTensor...
-- Constructors build on the CPU (same arguments as torch.FloatTensor...) and move to the current
-- device; t:type('torch.CudaTensor') and nn's module:cuda() go through the same move.
local construct = torch._construct
for dtype = 0, lib.dtype_count - 1 do
  local name = types.cuda_tensor_name[dtype]
  local dims = ffi.new('int64_t[16]')
  local function make(a1, ...)
    if C.tocha_cuda_device_count() == 0 then fail(name, '%s', cuda.unavailableReason()) end
    if type(a1) == 'number' then  -- sizes: allocate on the device directly
      local nd = types.read_sizes(name, dims, a1, ...)
      local dev = cuda.getDevice()
      return with_oom_retry(function() return C.tocha_tensor_empty(nd, dims, dtype, 1, dev) end)
    end
    return torch._to_device(construct(dtype, name, a1, ...), 'cuda', name)
  end
  local ctor = setmetatable({ __typename = name, dtype = dtype, cuda = true }, {
    __call = function(_, ...) return make(...) end,
    __index = methods,
    __newindex = methods,
    __tostring = function() return name end,
  })
  torch._cuda_ctor_by_dtype = torch._cuda_ctor_by_dtype or {}
  torch._cuda_ctor_by_dtype[dtype] = make
  torch[name:sub(7)] = ctor
  torch._register_metatable(name, methods, ctor)
end

-- Mixed precision: torch.autocast and torch.cuda.GradScaler (Note [Autocast]).
require 'torch.autocast'
require 'torch.grad_scaler'

return cuda
