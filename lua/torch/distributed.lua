-- torch.distributed: collectives between processes launched by mpirun (rank, size, allReduce,
-- broadcast, gathers, scatters, send/recv), each with an Async form returning a work handle.
-- The backends are plugins loaded by init (bindings/distributed/): MPI (libtocha_mpi.so, CPU
-- tensors) and NCCL (libtocha_nccl.so, CUDA tensors; its unique id travels over MPI).
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'

local dist = {}
torch.distributed = dist

local D          -- the MPI plugin's namespace once init loaded it
local N          -- the NCCL plugin's namespace once loaded
local B          -- the active backend: its operations by name (Note [Backend table])
local info = { rank = 0, size = 1, localRank = 0, localSize = 1, backend = nil }
local ints = ffi.new('int[4]')
local F32, F16, BF16 = lib.dtype.f32, lib.dtype.f16, lib.dtype.bf16
local KIND = { allReduce = 1, broadcast = 2, reduce = 3, allGather = 4, reduceScatter = 5, gather = 6,
               scatter = 7, barrier = 8, send = 9, recv = 10 }
local OPS = { sum = 0, prod = 1, max = 2, min = 3, avg = 0 }

local function fail(op, fmt, ...) lib.fail(op, fmt, ...) end
local function raise(be) error(ffi.string((be or B).last_error()), lib.user_level()) end

-- Note [Loading the MPI plugin]: the plugin is opened with RTLD_GLOBAL (ffi.load's second
-- argument) because OpenMPI loads its own components with dlopen and they need libmpi's symbols.
-- Returns the namespace, or nil and the paths tried with their errors.
local function try_load(file, env, probe_type, cdef_fn)
  local candidates = {}
  if os.getenv(env) then candidates[1] = os.getenv(env) end
  -- Next to the libtocha.so this state runs on (set by bindings/embed_state.cpp): the plugin of the
  -- same build, whatever its folder is called (build-asan, an install prefix), before the guesses.
  local libdir = (rawget(_G, '__tocha_library_path') or ''):match('^(.*)/[^/]*$')
  if libdir then candidates[#candidates + 1] = libdir .. '/lib' .. file .. '.so' end
  for _, rel in ipairs({ '/../build/', '/../../../lib/', '/../lib/' }) do
    candidates[#candidates + 1] = lib.lua_root .. rel .. 'lib' .. file .. '.so'
  end
  candidates[#candidates + 1] = file
  local errors = {}
  for _, path in ipairs(candidates) do
    local ok, ns = pcall(ffi.load, path, true)
    if ok then
      if not pcall(ffi.typeof, probe_type) then
        ffi.cdef('const char *' .. cdef_fn .. '(void);')
        local text = ffi.string(ns[cdef_fn]()):gsub('const char %*' .. cdef_fn .. '%(void%)%s*;', '')
        ffi.cdef(text)
      end
      return ns
    end
    errors[#errors + 1] = path .. ': ' .. tostring(ns)
  end
  return nil, table.concat(errors, '\n  ')
end

local function load_plugin()
  local ns, tried = try_load('tocha_mpi', 'TOCHA_MPI_LIB', 'tocha_dist_work', 'tocha_dist_cdef')
  if ns then return ns end
  fail('distributed.init', 'cannot load the MPI backend libtocha_mpi.so (was Tocha built with MPI? Debian: '
       .. 'libopenmpi-dev openmpi-bin); set TOCHA_MPI_LIB to its path. Tried:\n  %s', tried)
end

--- torch.distributed._loadNCCL([op]): the NCCL plugin's namespace (libtocha_nccl.so, built when
--- CUDA and NCCL were found); a clear error naming op when this build has none.
function dist._loadNCCL(op)
  if N then return N end
  local ns, tried = try_load('tocha_nccl', 'TOCHA_NCCL_LIB', 'tocha_nccl_work', 'tocha_nccl_cdef')
  if not ns then
    fail(op or 'distributed.init', 'NCCL is not available: this build has no libtocha_nccl.so (it is built '
         .. 'when the CUDA backend is on and NCCL is found at configure time; torch.cuda.isBuilt() = %s); '
         .. 'set TOCHA_NCCL_LIB to its path. Tried:\n  %s', tostring(torch.cuda and torch.cuda.isBuilt()), tried)
  end
  N = ns
  return N
end

-- Note [Backend table]: the operations reach the active plugin through one table of its C
-- functions under common names (all_reduce, wait, free...), so torch.distributed's Lua code is the
-- same for both backends; a work keeps the table it was made by.
local OPNAMES = { 'all_reduce', 'broadcast', 'reduce', 'all_gather', 'reduce_scatter', 'gather', 'scatter',
                  'send', 'recv', 'barrier', 'fail_collective', 'wait', 'test', 'progress', 'last_error',
                  'initialized', 'set_timeout', 'set_checks' }
local function backend_table(name, ns, prefix)
  local be = { name = name }
  for _, op in ipairs(OPNAMES) do be[op] = ns[prefix .. op] end
  be.free = ns[prefix .. 'work_free']
  -- Note [Blocking fast path] is MPI's; NCCL launches every collective on its stream alike.
  be.set_blocking = name == 'mpi' and ns.tocha_dist_set_blocking or function() end
  return be
end

-- The CUDA device of this rank's NCCL communicator: opts.device, or localRank modulo the devices.
local function nccl_device(opts)
  local count = torch.cuda.deviceCount()
  if count == 0 then
    fail('distributed.init', "backend 'nccl' needs a CUDA device: %s", torch.cuda.unavailableReason())
  end
  local device = opts.device
  if device == nil then device = info.localRank % count end
  if type(device) ~= 'number' or device % 1 ~= 0 or device < 0 or device >= count then
    fail('distributed.init', 'device must be a CUDA device index in 0..%d, got %s', count - 1, tostring(device))
  end
  return device
end

--- torch.distributed.init{backend='mpi'|'nccl' [, timeout=300] [, checks=true] [, device=N]}: joins
--- the job that mpirun started (a single process without mpirun is a job of size 1). 'mpi' takes
--- CPU tensors; 'nccl' takes CUDA tensors on this rank's device (device, by default localRank
--- modulo the device count, made current), with NCCL's unique id sent over MPI. timeout: seconds
--- a wait may take before it fails; checks: exchange a descriptor before each collective to catch
--- mismatches.
function dist.init(opts)
  opts = opts or {}
  if type(opts) ~= 'table' then fail('distributed.init', 'expected an options table, got %s', type(opts)) end
  local backend = opts.backend or 'mpi'
  if backend ~= 'mpi' and backend ~= 'nccl' then
    fail('distributed.init', "unknown backend '%s' (expected 'mpi' or 'nccl')", tostring(backend))
  end
  if opts.timeout ~= nil and type(opts.timeout) ~= 'number' then  -- before MPI starts: no half-done init
    fail('distributed.init', 'timeout must be a number of seconds, got %s', type(opts.timeout))
  end
  if info.backend and info.backend ~= backend then
    fail('distributed.init', "torch.distributed already runs the '%s' backend; it cannot switch to '%s'",
         info.backend, backend)
  end
  if backend == 'nccl' then
    dist._loadNCCL('distributed.init')
    if torch.cuda.deviceCount() == 0 then  -- before MPI starts: nothing to join without a GPU
      fail('distributed.init', "backend 'nccl' needs a CUDA device: %s", torch.cuda.unavailableReason())
    end
  end
  D = D or load_plugin()
  if D.tocha_dist_init(ints, ints + 1, ints + 2, ints + 3) ~= 0 then raise(backend_table('mpi', D, 'tocha_dist_')) end
  info.rank, info.size, info.localRank, info.localSize = ints[0], ints[1], ints[2], ints[3]
  local timeout = opts.timeout or 300
  if backend == 'nccl' then
    local device = nccl_device(opts)
    torch.cuda.setDevice(device)
    if N.tocha_nccl_init(device, timeout) ~= 0 then error(ffi.string(N.tocha_nccl_last_error()), lib.user_level()) end
    B = backend_table('nccl', N, 'tocha_nccl_')
    info.device = device
  else
    B = backend_table('mpi', D, 'tocha_dist_')
  end
  info.backend = backend
  dist.setTimeout(timeout)
  B.set_checks(opts.checks == false and 0 or 1)
  return dist
end

--- torch.distributed.isInitialized(): whether init has run (and finalize has not).
function dist.isInitialized() return B ~= nil and B.initialized() ~= 0 end
--- torch.distributed.rank(): this process's rank, 0-based (0 before init).
function dist.rank() return info.rank end
--- torch.distributed.size(): the number of processes in the job (1 before init).
function dist.size() return info.size end
--- torch.distributed.localRank(): the rank among the processes on this host (pick a GPU with it).
function dist.localRank() return info.localRank end
--- torch.distributed.localSize(): the number of processes on this host.
function dist.localSize() return info.localSize end
--- torch.distributed.backend(): 'mpi' or 'nccl' once initialized, else nil.
function dist.backend() return info.backend end
--- torch.distributed.device(): the CUDA device of this rank's NCCL communicator (nil on 'mpi').
function dist.device() return info.device end

--- torch.distributed.setTimeout(seconds): how long a wait may take before it fails (<= 0: forever).
function dist.setTimeout(seconds)
  if type(seconds) ~= 'number' then fail('distributed.setTimeout', 'expected seconds, got %s', type(seconds)) end
  if D then D.tocha_dist_set_timeout(seconds) end
  if N and info.backend == 'nccl' then N.tocha_nccl_set_timeout(seconds) end
end

--- torch.distributed.finalize(): ends NCCL (after its pending works) and MPI for this process (MPI
--- also at exit).
function dist.finalize()
  if N and N.tocha_nccl_initialized() ~= 0 then N.tocha_nccl_finalize() end
  if D and D.tocha_dist_initialized() ~= 0 then D.tocha_dist_finalize() end
  info.backend, info.device, B = nil, nil, nil
end

--- torch.distributed.abort([code]): ends every process of the job at once (MPI_Abort).
function dist.abort(code)
  if D and D.tocha_dist_initialized() ~= 0 then D.tocha_dist_abort(code or 1) end
  os.exit(code or 1)
end

--- torch.distributed.progress(): lets the backend advance pending async operations (call it
--- between computations that overlap with them).
function dist.progress() if B then B.progress() end end

-- ---- work handles --------------------------------------------------------------------------------
local Work = {}
Work.__index = Work

--- work:wait(): blocks until the operation completed (or failed, or timed out: a Lua error) and
--- returns its result tensor.
-- Note [Eager work release]: a finished work hands its C object back at once instead of when Lua
-- collects the handle. The backend polls every work it still holds on each progress call, so
-- thousands of finished-but-uncollected works (a loop of synchronous allReduces makes one each)
-- slowed every later collective by microseconds.
function Work:_release()
  local w = self.w
  if w ~= nil then
    self.w = nil
    ffi.gc(w, nil)
    self.be.free(w)
  end
end

-- A work that failed keeps the backend's message (later calls repeat it) and raises it.
function Work:_failed()
  self.finished, self.error = true, ffi.string(self.be.last_error())
  self:_release()
  error(self.error, lib.user_level())
end

function Work:wait()
  if not self.finished then
    if self.be.wait(self.w) ~= 0 then self:_failed() end
    self:_finish()
  elseif self.error then
    fail(self.name, 'this operation already failed: %s', self.error)
  end
  return self.result
end

--- work:test(): true once the operation completed (it then needs no wait), false while it runs.
function Work:test()
  if self.finished then return true end
  local rc = self.be.test(self.w)
  if rc < 0 then self:_failed() end
  if rc == 1 then self:_finish() return true end
  return false
end

--- work:isCompleted(): PyTorch's is_completed(): true once the operation finished, successfully
--- or not (wait() then returns the result or raises the error), false while it runs; never raises.
function Work:isCompleted()
  if self.finished then return true end
  local rc = self.be.test(self.w)
  if rc == 1 then self:_finish() return true end
  if rc < 0 then
    self.finished, self.error = true, ffi.string(self.be.last_error())
    self:_release()
    return true
  end
  return false
end

--- work:isSuccess(): PyTorch's is_success(): true once the operation completed without error.
function Work:isSuccess() return self:isCompleted() and not self.error end

-- Note [No closures per collective]: what a work does once finished (copy an f32 carrier back
-- into an f16/bf16 tensor, divide for 'avg') is data in the work, not a closure made per call:
-- LuaJIT cannot compile closure creation (FNEW), so every trace through a collective aborted and
-- was recorded again until LuaJIT gave up on it (jit.v: 8 such aborts in a loop of 60 all-reduces).
-- An f32 carrier is divided before it is copied back (Note [Half precision collectives]: one
-- rounding): dividing the f16 copy rounded twice, and a sum past f16's range (65504) became inf
-- although the average fits.
local function after(dst, src, div_by)
  if dst then
    if src then
      if div_by then src:div(div_by) end
      dst:copy(src)
    elseif div_by then
      dst:div(div_by)
    end
  end
end

function Work:_finish()
  self.finished = true
  self:_release()
  after(self.dst, self.src, self.div_by)
end

-- A work handle for the C work w, returning result once finished. dst (optional): the user's
-- tensor, which gets src copied into it when src is given, then is divided by div_by when given.
local function new_work(name, w, result, dst, src, div_by)
  if w == nil then raise() end
  return setmetatable({ name = name, w = ffi.gc(w, B.free), be = B, result = result, dst = dst, src = src,
                        div_by = div_by }, Work)
end

-- Note [Synchronous collectives without handles]: the synchronous forms (dist.allReduce, not
-- allReduceAsync) wait for their C work and free it on the spot, so they make no handle table and
-- register no GC finalizer. The same arguments as new_work, less the name; returns the result.
local function run_sync(w, result, dst, src, div_by)
  if w == nil then raise() end
  local be = B
  local rc = be.wait(w)
  be.free(w)
  if rc ~= 0 then raise(be) end
  after(dst, src, div_by)
  return result
end

-- ---- argument checks ---------------------------------------------------------------------------
local function poison(name)
  if B and B.initialized() ~= 0 then
    local w = B.fail_collective(KIND[name])
    if w ~= nil then B.free(w) end
  end
end

local function require_init(name)
  if not dist.isInitialized() then
    fail(name, "torch.distributed is not initialized (call torch.distributed.init{backend='mpi'} or "
         .. "{backend='nccl'} first)")
  end
end

-- The tensor the backend will see for t: on 'mpi', t itself or an f32 copy of an f16/bf16 tensor
-- (Note [Half precision collectives]: reduced in f32, rounded once when copied back); on 'nccl',
-- t itself (NCCL reduces f16 and bf16 natively), which must be on this rank's device.
local function carrier(name, t, what, collective)
  if not torch.isTensor(t) then
    if collective then poison(name) end
    fail(name, '%s must be a tensor, got %s', what, type(t))
  end
  local nccl = info.backend == 'nccl'
  if nccl and t.p.device_type == 0 then
    if collective then poison(name) end
    fail(name, "%s is a %s; the NCCL backend takes CUDA tensors (on cuda:%d)", what, torch.typename(t), info.device)
  elseif nccl and t.p.device_index ~= info.device then
    if collective then poison(name) end
    fail(name, "%s is on cuda:%d but this rank's NCCL communicator is on cuda:%d", what, t.p.device_index, info.device)
  elseif not nccl and t.p.device_type ~= 0 then
    if collective then poison(name) end
    fail(name, "%s is a %s; the MPI backend takes CPU tensors (use backend='nccl' for CUDA tensors)",
         what, torch.typename(t))
  end
  if not t:isContiguous() then
    if collective then poison(name) end
    fail(name, '%s is not contiguous (call :contiguous() first)', what)
  end
  if not nccl and (t.p.dtype == F16 or t.p.dtype == BF16) then return t:float(), true end
  return t, false
end

local function reduce_op(name, op, t)
  op = op or 'sum'
  if OPS[op] == nil then
    poison(name)
    fail(name, "unknown reduction '%s' (expected sum, avg, max, min or prod)", tostring(op))
  end
  if op == 'avg' and not (t.p.dtype == F32 or t.p.dtype == lib.dtype.f64 or t.p.dtype == F16 or t.p.dtype == BF16) then
    poison(name)
    fail(name, "op 'avg' needs a floating-point tensor, got a %s", torch.typename(t))
  end
  return op
end

-- Two tensors a collective moves data between must share a dtype: f16 and bf16 travel as f32
-- copies (carrier), so the plugin's own check would let f16 against f32 (or bf16) through.
local function same_dtype(name, input, output)
  if input.p.dtype ~= output.p.dtype then
    poison(name)
    fail(name, 'the input is a %s but the output is a %s (they must have the same dtype)', torch.typename(input),
         torch.typename(output))
  end
end

-- A peer rank of send/recv: an integer rank (the plugin's int argument would truncate 1.5 to 1).
local function peer_arg(name, what, r)
  if type(r) ~= 'number' or r % 1 ~= 0 or r < 0 or r >= info.size then
    fail(name, '%s %s is not a rank (0..%d)', what, type(r) == 'number' and tostring(r) or type(r), info.size - 1)
  end
  return r
end

local function root_arg(name, root)
  root = root or 0
  if type(root) ~= 'number' or root % 1 ~= 0 or root < 0 or root >= info.size then
    poison(name)
    fail(name, 'root must be a rank in 0..%d, got %s', info.size - 1, tostring(root))
  end
  return root
end

dist._carrier, dist._poison, dist._new_work, dist._run_sync, dist._require_init = carrier, poison, new_work, run_sync,
  require_init
dist._reduce_op, dist._root_arg, dist._OPS = reduce_op, root_arg, OPS
dist._same_dtype, dist._peer_arg = same_dtype, peer_arg
dist._plugin = function() return B end
dist._Work = Work

require 'torch.distributed_ops'
return dist
