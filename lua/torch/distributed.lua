-- torch.distributed: collectives between processes launched by mpirun (rank, size, allReduce,
-- broadcast, gathers, scatters, send/recv), each with an Async form returning a work handle.
-- The MPI backend lives in the plugin libtocha_mpi.so, loaded by init (bindings/distributed/).
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'

local dist = {}
torch.distributed = dist

local D          -- the plugin's namespace once init loaded it
local info = { rank = 0, size = 1, localRank = 0, localSize = 1, backend = nil }
local ints = ffi.new('int[4]')
local F32, F16, BF16 = lib.dtype.f32, lib.dtype.f16, lib.dtype.bf16
local KIND = { allReduce = 1, broadcast = 2, reduce = 3, allGather = 4, reduceScatter = 5, gather = 6,
               scatter = 7, barrier = 8, send = 9, recv = 10 }
local OPS = { sum = 0, prod = 1, max = 2, min = 3, avg = 0 }

local function fail(op, fmt, ...) lib.fail(op, fmt, ...) end
local function raise() error(ffi.string(D.tocha_dist_last_error()), lib.user_level()) end

-- Note [Loading the MPI plugin]: the plugin is opened with RTLD_GLOBAL (ffi.load's second
-- argument) because OpenMPI loads its own components with dlopen and they need libmpi's symbols.
local function load_plugin()
  local candidates = {}
  if os.getenv('TOCHA_MPI_LIB') then candidates[1] = os.getenv('TOCHA_MPI_LIB') end
  for _, rel in ipairs({ '/../build/libtocha_mpi.so', '/../../../lib/libtocha_mpi.so', '/../lib/libtocha_mpi.so' }) do
    candidates[#candidates + 1] = lib.lua_root .. rel
  end
  candidates[#candidates + 1] = 'tocha_mpi'
  local errors = {}
  for _, path in ipairs(candidates) do
    local ok, ns = pcall(ffi.load, path, true)
    if ok then
      if not pcall(ffi.typeof, 'tocha_dist_work') then
        ffi.cdef('const char *tocha_dist_cdef(void);')
        local text = ffi.string(ns.tocha_dist_cdef()):gsub('const char %*tocha_dist_cdef%(void%)%s*;', '')
        ffi.cdef(text)
      end
      return ns
    end
    errors[#errors + 1] = path .. ': ' .. tostring(ns)
  end
  fail('distributed.init', 'cannot load the MPI backend libtocha_mpi.so (was Tocha built with MPI? Debian: '
       .. 'libopenmpi-dev openmpi-bin); set TOCHA_MPI_LIB to its path. Tried:\n  %s', table.concat(errors, '\n  '))
end

--- torch.distributed.init{backend='mpi' [, timeout=300] [, checks=true]}: joins the job that mpirun
--- started (a single process without mpirun is a job of size 1). timeout: seconds a wait may take
--- before it fails; checks: exchange a descriptor before each collective to catch mismatches.
function dist.init(opts)
  opts = opts or {}
  if type(opts) ~= 'table' then fail('distributed.init', 'expected an options table, got %s', type(opts)) end
  local backend = opts.backend or 'mpi'
  if backend == 'nccl' then
    fail('distributed.init', "backend 'nccl' needs CUDA tensors, which this build does not have; use backend='mpi'")
  elseif backend ~= 'mpi' then
    fail('distributed.init', "unknown backend '%s' (expected 'mpi')", tostring(backend))
  end
  D = D or load_plugin()
  if D.tocha_dist_init(ints, ints + 1, ints + 2, ints + 3) ~= 0 then raise() end
  info.rank, info.size, info.localRank, info.localSize = ints[0], ints[1], ints[2], ints[3]
  info.backend = backend
  dist.setTimeout(opts.timeout or 300)
  D.tocha_dist_set_checks(opts.checks == false and 0 or 1)
  return dist
end

--- torch.distributed.isInitialized(): whether init has run (and finalize has not).
function dist.isInitialized() return D ~= nil and D.tocha_dist_initialized() ~= 0 end
--- torch.distributed.rank(): this process's rank, 0-based (0 before init).
function dist.rank() return info.rank end
--- torch.distributed.size(): the number of processes in the job (1 before init).
function dist.size() return info.size end
--- torch.distributed.localRank(): the rank among the processes on this host (pick a GPU with it).
function dist.localRank() return info.localRank end
--- torch.distributed.localSize(): the number of processes on this host.
function dist.localSize() return info.localSize end
--- torch.distributed.backend(): 'mpi' once initialized, else nil.
function dist.backend() return info.backend end

--- torch.distributed.setTimeout(seconds): how long a wait may take before it fails (<= 0: forever).
function dist.setTimeout(seconds)
  if type(seconds) ~= 'number' then fail('distributed.setTimeout', 'expected seconds, got %s', type(seconds)) end
  if D then D.tocha_dist_set_timeout(seconds) end
end

--- torch.distributed.finalize(): ends MPI for this process (also done at exit).
function dist.finalize()
  if D and D.tocha_dist_initialized() ~= 0 then D.tocha_dist_finalize() end
  info.backend = nil
end

--- torch.distributed.abort([code]): ends every process of the job at once (MPI_Abort).
function dist.abort(code)
  if D and D.tocha_dist_initialized() ~= 0 then D.tocha_dist_abort(code or 1) end
  os.exit(code or 1)
end

--- torch.distributed.progress(): lets MPI advance pending async operations (call it between
--- computations that overlap with them).
function dist.progress() if D then D.tocha_dist_progress() end end

-- ---- work handles --------------------------------------------------------------------------------
local Work = {}
Work.__index = Work

--- work:wait(): blocks until the operation completed (or failed, or timed out: a Lua error) and
--- returns its result tensor.
function Work:wait()
  if not self.finished then
    if D.tocha_dist_wait(self.w) ~= 0 then self.finished = true self.error = true raise() end
    self:_finish()
  elseif self.error then
    fail(self.name, 'this operation already failed')
  end
  return self.result
end

--- work:test(): true once the operation completed (it then needs no wait), false while it runs.
function Work:test()
  if self.finished then return true end
  local rc = D.tocha_dist_test(self.w)
  if rc < 0 then self.finished = true self.error = true raise() end
  if rc == 1 then self:_finish() return true end
  return false
end

function Work:_finish()
  self.finished = true
  if self.after then self.after() end
end

local work_free
local function new_work(name, w, result, after)
  if w == nil then raise() end
  work_free = work_free or D.tocha_dist_work_free
  return setmetatable({ name = name, w = ffi.gc(w, work_free), result = result, after = after }, Work)
end

-- ---- argument checks ---------------------------------------------------------------------------
local function poison(name)
  if D and D.tocha_dist_initialized() ~= 0 then
    local w = D.tocha_dist_fail_collective(KIND[name])
    if w ~= nil then D.tocha_dist_work_free(w) end
  end
end

local function require_init(name)
  if not dist.isInitialized() then
    fail(name, "torch.distributed is not initialized (call torch.distributed.init{backend='mpi'} first)")
  end
end

-- The tensor MPI will see for t: t itself, or an f32 copy of an f16/bf16 tensor (Note [Half
-- precision collectives]: reduced in f32, rounded once when copied back).
local function carrier(name, t, what, collective)
  if not torch.isTensor(t) then
    if collective then poison(name) end
    fail(name, '%s must be a tensor, got %s', what, type(t))
  end
  if t.p.device_type ~= 0 then
    if collective then poison(name) end
    fail(name, "%s is a %s; the MPI backend takes CPU tensors", what, torch.typename(t))
  end
  if not t:isContiguous() then
    if collective then poison(name) end
    fail(name, '%s is not contiguous (call :contiguous() first)', what)
  end
  if t.p.dtype == F16 or t.p.dtype == BF16 then return t:float(), true end
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

local function root_arg(name, root)
  root = root or 0
  if type(root) ~= 'number' or root % 1 ~= 0 or root < 0 or root >= info.size then
    poison(name)
    fail(name, 'root must be a rank in 0..%d, got %s', info.size - 1, tostring(root))
  end
  return root
end

-- Runs `finish` after the copy back of a converted tensor.
local function copy_back(dst, src, converted, also)
  return function()
    if converted and dst then dst:copy(src) end
    if also then also() end
  end
end

dist._carrier, dist._poison, dist._new_work, dist._require_init = carrier, poison, new_work, require_init
dist._reduce_op, dist._root_arg, dist._copy_back, dist._OPS = reduce_op, root_arg, copy_back, OPS
dist._plugin = function() return D end
dist._Work = Work

require 'torch.distributed_ops'
return dist
