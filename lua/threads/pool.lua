-- threads.Threads: Torch7's thread pool (torch/threads) on the data loader's worker threads
-- (bindings/data_loader.cpp): one single-worker loader per thread, so a job can go to a chosen
-- thread (specific mode), and the main state delivers results and runs callbacks.
local ffi = require 'ffi'
local torch = require 'torch'
local lib = require 'torch.lib'
local codec = require 'threads.codec'
local C = lib.C

-- Note [Delivery order]: Torch7's pool ran callbacks in the order jobs finished. Here each
-- thread is a loader with one worker, whose results come in the order its jobs were pushed,
-- and dojob() waits for the oldest job not yet delivered, whichever thread has it: callbacks
-- run in submission order (so an fb.resnet-style loop gets its batches in the order it queued
-- them, whatever the number of threads). A thread holds at most DEPTH jobs not yet delivered
-- (one running, one waiting, like the data loader's prefetch of 2); a job goes to the thread
-- with the fewest (round robin among equals). addjob runs dojob() while no thread (or, in
-- specific mode, not the chosen one) has room, and acceptsjob() says whether it has room, as
-- Torch7's full queues did. A slow job delays the callbacks of later jobs, not their work.
local DEPTH = 2

local Threads = {}
Threads.__index = Threads
Threads.__serialize = 'threads.serialize'

local function fail(fn, fmt, ...)
  error(string.format('[threads.%s] ' .. fmt, fn, ...), 3)
end

local function checkrunning(self, fn)
  if not self.__running then
    error(string.format('[threads.%s] the pool was terminated (thread system is not running)', fn), 3)
  end
end

--- threads.serialization([name]): sets the serialization the next pools use, or returns it:
--- 'threads.serialize' (the default: tensors are copied) or 'threads.sharedserialize' (tensors
--- are shared between the threads). Note [Copy or share], threads/codec.lua.
--- Example: local threads = require 'threads'; local old = threads.serialization()
---   threads.serialization('threads.sharedserialize'); threads.serialization(old)
function Threads.serialization(name)
  if name == nil then return Threads.__serialize end
  if type(name) ~= 'string' then
    error('[threads.serialization] expected a module name (a string), got ' .. torch.type(name), 2)
  end
  Threads.__serialize = name
end

local function serialization_mode(name)
  local ok, m = pcall(require, name)
  if not ok or type(m) ~= 'table' or type(m.shared) ~= 'boolean' then
    error(string.format("[threads.Threads] serialization '%s' is not supported: Tocha has "
      .. "'threads.serialize' (tensors copied) and 'threads.sharedserialize' (tensors shared)", tostring(name)), 3)
  end
  return m.shared
end

local empty = ffi.new('tocha_tensor *[1]')

-- Stops and joins a thread (Note [Loader shutdown], bindings/data_loader.cpp), then drops the
-- references its jobs' tensors held (Note [Job tensors], threads/codec.lua): a queued task
-- still names them until the thread is joined. Also the loader's finalizer, so a pool that is
-- only collected does the same in that order (the references are raw pointers, which no
-- other finalizer can release first).
local function close_loader(h, held)
  C.tocha_loader_free(h)
  for id, ptrs in pairs(held) do
    held[id] = nil
    for _, p in ipairs(ptrs) do C.tocha_tensor_release(p) end
  end
end

-- (interpreted: Note [Lua finalizers run interpreted], lua/hdf5/handles.lua)
jit.off(close_loader)

local function new_worker(h)
  local held = {}
  local finalize = function(x) close_loader(x, held) end
  jit.off(finalize)
  return { h = ffi.gc(h, finalize), pending = 0, held = held }
end

local function free_workers(self)
  for _, w in ipairs(self._workers) do
    local h = w.h
    if h then
      w.h = nil
      ffi.gc(h, nil)
      close_loader(h, w.held)
    end
  end
end

--- threads.Threads(N[, init1, init2, ...]): a pool of N threads, each with its own Lua state
--- (with the torch global and __threadid = its index). Each init function runs in every thread,
--- in order, with the thread index as argument; returns the pool and, per thread (in thread
--- order), a table of what the last init function returned.
--- Example: local pool, sizes = require('threads').Threads(2, function() require 'torch' end,
---   function(idx) tid = idx; return idx * 10 end)  -- sizes = {{10}, {20}}
--- pool:terminate()
function Threads.new(N, ...)
  if type(N) ~= 'number' or N < 1 or N ~= math.floor(N) or N > 256 then
    error('[threads.Threads] the number of threads must be an integer in 1..256, got ' .. tostring(N), 2)
  end
  local funcs = { ... }
  for j = 1, select('#', ...) do
    if type(funcs[j]) ~= 'function' then
      error(string.format('[threads.Threads] init function %d is a %s, expected a function', j, torch.type(funcs[j])), 2)
    end
  end
  if #funcs == 0 then funcs = { function() end } end
  local shared = serialization_mode(Threads.__serialize)
  local self = setmetatable({ N = N, nThread = N, __specific = true, __running = true, _shared = shared,
                              _workers = {}, _jobs = {}, _head = 1, _tail = 0, _next = 0 }, Threads)
  local seed = torch.random()  -- Note [Thread seeds], threads/worker.lua
  for i = 1, N do
    local spec = string.format('threads;%d;%s;%.0f', i, shared and 'shared' or 'copy', seed)
    local h = C.tocha_loader_new(1, DEPTH, package.path, package.cpath, spec, #spec, 0, empty)
    if h == nil then
      local msg = ffi.string(C.tocha_last_error())
      free_workers(self)
      error('[threads.Threads] ' .. msg, 2)
    end
    self._workers[i] = new_worker(h)
  end
  -- As Torch7: the init functions are jobs for each thread, in specific mode.
  local initres = {}
  local ok, err = pcall(function()
    for j = 1, #funcs do
      for i = 1, N do
        local keep = j == #funcs and function(...) initres[i] = { ... } end or nil
        self:addjob(i, funcs[j], keep, i)
      end
    end
    self:specific(false)
  end)
  if not ok then
    self.__running = false
    free_workers(self)
    error(err, 0)
  end
  return self, initres
end

--- pool:isrunning(): false once the pool was terminated.
--- Example: local pool = require('threads').Threads(1); pool:terminate(); print(pool:isrunning())  -- false
function Threads:isrunning() return self.__running end

--- pool:specific([flag]): without flag, whether the pool is in specific mode (addjob's first
--- argument is then the index of the thread that runs the job); with flag, finishes the
--- pending jobs (synchronize) and switches.
--- Example: local pool = require('threads').Threads(2); pool:specific(true)
---   pool:addjob(2, function() return __threadid end, print); pool:terminate()  -- prints 2
function Threads:specific(flag)
  checkrunning(self, 'specific')
  if flag == nil then return self.__specific end
  if type(flag) ~= 'boolean' then fail('specific', 'expected a boolean, got %s', torch.type(flag)) end
  self:synchronize()
  self.__specific = flag
end

-- The thread with room for a job and the fewest pending ones (Note [Delivery order]), or nil.
local function free_worker(self)
  local best, n = nil, DEPTH
  for k = 1, self.N do
    local i = (self._next + k - 1) % self.N + 1
    local p = self._workers[i].pending
    if p < n then best, n = i, p end
  end
  if best then self._next = best end
  return best
end

local function check_index(self, fn, idx)
  if type(idx) ~= 'number' or idx < 1 or idx > self.N or idx ~= math.floor(idx) then
    fail(fn, 'specific mode: expected a thread index in 1..%d, got %s', self.N, tostring(idx))
  end
end

--- pool:acceptsjob([idx]): whether addjob would queue a job without waiting for one to finish
--- (in specific mode, on thread idx).
--- Example: local pool = require('threads').Threads(2)
---   while pool:acceptsjob() do pool:addjob(function() return 1 end) end; pool:terminate()
function Threads:acceptsjob(idx)
  checkrunning(self, 'acceptsjob')
  if self.__specific then
    check_index(self, 'acceptsjob', idx)
    return self._workers[idx].pending < DEPTH
  end
  for i = 1, self.N do
    if self._workers[i].pending < DEPTH then return true end
  end
  return false
end

local function noop() end

--- pool:addjob([idx,] fn[, callback], ...): runs fn(...) in a thread (thread idx in specific
--- mode); fn, its upvalues and the arguments are copied there (tensors copied or shared:
--- threads.serialization). callback(results of fn) runs in this state when dojob (or
--- synchronize) delivers the job. Waits for a job to finish (running its callback) while no
--- thread has room.
--- Example: local pool = require('threads').Threads(2)
---   pool:addjob(function(x) return x * 2 end, function(y) print(y) end, 21); pool:synchronize()  -- 42
function Threads:addjob(...)
  checkrunning(self, 'addjob')
  local idx, fn, cb, first
  if self.__specific then
    idx, fn, cb = ...
    check_index(self, 'addjob', idx)
    first = 4
  else
    fn, cb = ...
    first = 3
  end
  if type(fn) ~= 'function' then fail('addjob', 'expected a function (the job), got %s', torch.type(fn)) end
  if cb ~= nil and type(cb) ~= 'function' then
    fail('addjob', 'expected a function or nil (the callback), got %s', torch.type(cb))
  end
  local n = select('#', ...)
  local args = { n = math.max(0, n - first + 1) }
  for k = first, n do args[k - first + 1] = (select(k, ...)) end

  local w = idx
  if w then
    while self._workers[w].pending >= DEPTH do self:dojob() end
  else
    w = free_worker(self)
    while not w do
      self:dojob()
      w = free_worker(self)
    end
  end
  local s, tensors = codec.encode({ job = fn, args = args }, 'addjob', self._shared)
  local task = codec.task(s, tensors)
  local worker = self._workers[w]
  local ptrs = {}  -- Note [Job tensors]: this state's references, until the job is delivered
  for k, t in ipairs(tensors) do
    ptrs[k] = t.p
    C.tocha_tensor_retain(t.p)
  end
  self._tail = self._tail + 1
  worker.held[self._tail] = ptrs
  if C.tocha_loader_push(worker.h, task, #task) < 0 then
    worker.held[self._tail] = nil
    for _, p in ipairs(ptrs) do C.tocha_tensor_release(p) end
    self._tail = self._tail - 1
    lib.raise()
  end
  worker.pending = worker.pending + 1
  self._jobs[self._tail] = { worker = w, callback = cb or noop }
end

--- pool:hasjob(): whether some job's callback has not run yet.
--- Example: local pool = require('threads').Threads(2); pool:addjob(function() end)
---   while pool:hasjob() do pool:dojob() end
function Threads:hasjob()
  checkrunning(self, 'hasjob')
  return self._head <= self._tail
end

--- pool:haserror(): always false: a job's error is raised by dojob (Torch7's threads deprecated
--- this method when it started raising errors at once).
--- Example: local pool = require('threads').Threads(1); print(pool:haserror())  -- false
function Threads:haserror() return false end

local len_out, count_out = ffi.new('int64_t[1]'), ffi.new('int[1]')

--- pool:dojob(): waits for the oldest pending job (Note [Delivery order]) and runs its callback
--- with the job's results. A job's error is raised here as "[thread i callback] message" with
--- the worker's traceback; a callback's as "[thread i endcallback] ..."; the pool stays usable.
--- Example: local pool = require('threads').Threads(1); pool:addjob(function() return 1 end, print)
---   pool:dojob()  -- prints 1
function Threads:dojob()
  checkrunning(self, 'dojob')
  local job = self._jobs[self._head]
  if not job then fail('dojob', 'no job is pending (hasjob() is false)') end
  local i = job.worker
  local w = self._workers[i]
  -- Waits (Ctrl-C still reaches this thread); on an interrupt the job stays pending.
  if C.tocha_loader_next_timeout(w.h, 0) ~= 0 then
    local msg = ffi.string(C.tocha_last_error()):gsub('^%[DataLoader%] worker %d+', '[thread ' .. i .. ']')
    error(msg, 2)
  end
  local ptrs = w.held[self._head]  -- the worker has its own references now
  w.held[self._head] = nil
  for _, p in ipairs(ptrs) do C.tocha_tensor_release(p) end
  self._jobs[self._head] = nil
  self._head = self._head + 1
  w.pending = w.pending - 1
  local p = C.tocha_loader_result(w.h, len_out, count_out)
  local s = ffi.string(p, len_out[0])
  local tensors = {}
  for k = 1, count_out[0] do tensors[k] = lib.wrap(C.tocha_loader_result_tensor(w.h, k - 1)) end
  if s:sub(1, 1) == 'E' then  -- Note [Worker jobs], threads/worker.lua
    error(string.format('[thread %d callback] %s', i, s:sub(2)), 0)
  end
  local res = codec.decode(s:sub(2), tensors)
  local cb = job.callback
  local ok, msg = xpcall(function() return cb(unpack(res, 1, res.n)) end, debug.traceback)
  if not ok then error(string.format('[thread %d endcallback] %s', i, tostring(msg)), 0) end
end

--- pool:synchronize(): runs dojob until no job is pending (raising the first job error; the
--- jobs after it stay pending).
--- Example: local pool, n = require('threads').Threads(2), 0
---   for i = 1, 4 do pool:addjob(function() return i end, function(x) n = n + x end) end
---   pool:synchronize()  -- n == 10
function Threads:synchronize()
  if not self.__running then return end
  while self:hasjob() do self:dojob() end
end

--- pool:terminate(): finishes the pending jobs (synchronize), then stops and joins the
--- threads. A job error is raised after the threads stopped (the jobs after it are dropped).
--- Once terminated, the pool's methods raise an error; terminate again does nothing.
--- Example: local pool = require('threads').Threads(2); pool:terminate()
function Threads:terminate()
  if not self.__running then return end
  local ok, err = pcall(self.synchronize, self)
  self.__running = false
  free_workers(self)
  self._jobs, self._head, self._tail = {}, 1, 0
  if not ok then error(err, 0) end
end

return Threads
