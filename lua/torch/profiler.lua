-- torch.profiler: op- and module-level timing. While a session runs, the public entry points
-- (torch.*, torch.linalg.*, tensor methods and operators, nn.functional.*, and the forward/
-- backward methods of every registered class) are replaced by timing wrappers; stop() puts the
-- original functions back, so nothing of the profiler remains on any call path when it is off.
-- The report (events, keyAverages, table, Chrome trace) lives in torch.profiler_report.
--
-- Note [Profiler wrappers, not hooks]: every Lua entry point is looked up in a table at call time
-- (tensor methods through the __index function's `methods[k]`), so swapping table entries sees
-- every call made through those tables, internal ones included, which is what nests events.
-- Functions captured in locals before start() (`local add = torch.add`, and the torch files'
-- own upvalues) are not seen. Calls that compute nothing (x:size(), x:dim(), torch.typename...)
-- are left unwrapped: they would fill the report with noise and add overhead to every op.
--
-- Note [Profiler and the JIT]: LuaJIT treats a cdata metatable as immutable, so a compiled trace
-- calls the `__add` it saw when it was recorded, with no guard. start() and stop() therefore
-- flush all traces (jit.flush): operators recorded before start() would bypass the wrappers, and
-- traces recorded while profiling would keep calling them after stop(). A wrapper reached after
-- its session ended (a stale reference) just calls the original.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local types = require 'torch.types'
local Profile = require 'torch.profiler_report'

local is_tensor, size_table = types.is_tensor, types.size_table

for _, decl in ipairs({
  'struct timespec { long tv_sec; long tv_nsec; };',
  'int clock_gettime(int clk_id, struct timespec *tp);',
}) do pcall(ffi.cdef, decl) end
local CLOCK_MONOTONIC = ffi.os == 'OSX' and 6 or 1
local ts = ffi.new('struct timespec')
local clock_gettime = ffi.C.clock_gettime
-- Microseconds on the monotonic clock (a double keeps sub-nanosecond steps for years of uptime).
local function now()
  clock_gettime(CLOCK_MONOTONIC, ts)
  return tonumber(ts.tv_sec) * 1e6 + tonumber(ts.tv_nsec) * 1e-3
end

local profiler = torch.profiler or {}
torch.profiler = profiler

-- torch.* functions that compute no tensor (class system, queries, settings, timing, contexts
-- that take a function: torch.noGrad(fn) would time the user's whole function as one op).
local SKIP_TORCH = {}
for name in ([[TestSuite Tester class factory getconstructortable getmetatable setmetatable isStorage
  isTensor isTypeOf isequal pointer type typename include packageLuaPath getenv setenv isatty tic toc
  getdefaulttensortype setdefaulttensortype getnumthreads setnumthreads getnumcores version
  updateerrorhandlers setheaptracking getGCThreshold setGCThreshold isGradEnabled setGradEnabled
  enableGrad noGrad isAutocastEnabled getAutocastDtype noAutocast autocast memoryStats
  resetPeakMemoryStats manualSeed seed initialSeed getRNGState setRNGState]]):gmatch('%S+') do
  SKIP_TORCH[name] = true
end
-- Tensor methods that only query or flag a tensor.
local SKIP_METHODS = {}
for name in ([[cdata data device dim elementSize getDevice isContiguous isCuda isLeaf isPinned
  isSameSizeAs isSetTo isSize nDimension nElement numel size storageOffset stride storage type
  needsGrad requiresGrad registerHook retainGrad retain free]]):gmatch('%S+') do
  SKIP_METHODS[name] = true
end
local OPERATORS = { '__add', '__sub', '__mul', '__div', '__mod', '__pow', '__unm', '__lt', '__le' }
local MODULE_METHODS = { 'forward', 'backward', 'updateOutput', 'updateGradInput', 'accGradParameters' }
local OPTIONS = { recordShapes = false, syncCuda = false, modules = true }

local session  -- the running session, or nil

-- Sizes of the tensor arguments; a plain table (a module's table input) gives the list of its
-- elements' sizes, anything else {} (PyTorch's input shapes do the same for non-tensors).
local function shape_of(x, depth)
  if is_tensor(x) then return size_table(x.p) end
  if type(x) == 'table' and depth < 2 and getmetatable(x) == nil then
    local t = {}
    for i = 1, #x do t[i] = shape_of(x[i], depth + 1) end
    return t
  end
  return {}
end
local function shapes_of(...)
  local r = {}
  for i = 1, select('#', ...) do r[i] = shape_of((select(i, ...)), 0) end
  return r
end

-- Opens an event; its start is read last, so that this bookkeeping is not timed as the op.
local function enter(S, name, kind, shapes)
  local sp = S.sp + 1
  S.sp = sp
  local n = S.n + 1
  S.n = n
  local ev = { name = name, kind = kind, depth = sp - 1, parent = S.stack[sp - 1], shapes = shapes }
  S.events[n] = ev
  S.stack[sp] = n
  S.child[sp] = 0
  ev.start = now()
  return ev
end

-- Closes ev with pcall's results and passes them on (re-raising an error unchanged).
-- Note [Profiler self time]: self = total - the totals of the direct children, so the wrappers'
-- own bookkeeping between children is charged to the parent, as in PyTorch's profiler.
local function leave(S, ev, ok, ...)
  if S.sync then S.sync() end
  local t = now()
  if S.active and ev.totalTime == nil then
    local sp = ev.depth + 1
    local total = t - ev.start
    ev.totalTime, ev.selfTime = total, total - S.child[sp]
    if not ok then ev.error = true end
    S.sp = sp - 1
    if sp > 1 then S.child[sp - 1] = S.child[sp - 1] + total end
  end
  if not ok then error((...), 0) end
  return ...
end

-- The wrappers tail-call leave() to pass on any number of results; Note [No tail calls on hot
-- paths] (ops.lua) costs JIT speed only while profiling, and when off there is no wrapper.
local function op_wrapper(S, name, f)
  return function(...)
    if not S.active then return f(...) end
    return leave(S, enter(S, name, 'op', S.recordShapes and shapes_of(...) or nil), pcall(f, ...))
  end
end

-- A module method is named after the instance's class (nn.Linear.forward even when the code is
-- nn.Module's), which is what the user wrote; self is not part of the recorded shapes.
local function module_wrapper(S, method, f)
  return function(self, ...)
    if not S.active then return f(self, ...) end
    local mt = type(self) == 'table' and getmetatable(self)
    local cls = mt and rawget(mt, '__typename') or '?'
    return leave(S, enter(S, cls .. '.' .. method, 'module', S.recordShapes and shapes_of(...) or nil),
                 pcall(f, self, ...))
  end
end

local function install(S, tbl, key, wrapper)
  local n = #S.saved + 1
  S.saved[n] = { tbl, key, rawget(tbl, key) }
  rawset(tbl, key, wrapper)
end

local function wrap_namespace(S, tbl, prefix, skip)
  local keys = {}
  for k, v in pairs(tbl) do
    if type(k) == 'string' and type(v) == 'function' and not k:match('^_') and not (skip and skip[k]) then
      keys[#keys + 1] = k
    end
  end
  for _, k in ipairs(keys) do install(S, tbl, k, op_wrapper(S, prefix .. k, rawget(tbl, k))) end
end

-- Note [Profiler wrapper identity]: code compares module methods by identity
-- (`self.updateGradInput ~= Module.updateGradInput`), so one original function gets one wrapper
-- per method name: classes that share a function still share it while profiling.
local function wrap_classes(S)
  local cache = {}
  for name, mt in pairs(torch._metatables) do
    if type(mt) == 'table' and rawget(mt, '__typename') == name then
      for _, m in ipairs(MODULE_METHODS) do
        local f = rawget(mt, m)
        if type(f) == 'function' then
          cache[m] = cache[m] or {}
          cache[m][f] = cache[m][f] or module_wrapper(S, m, f)
          install(S, mt, m, cache[m][f])
        end
      end
    end
  end
end

local function restore(S)
  for i = #S.saved, 1, -1 do
    local s = S.saved[i]
    rawset(s[1], s[2], s[3])
  end
  S.saved = {}
end

local function flush_jit()
  local jit = rawget(_G, 'jit')
  if jit and jit.flush then jit.flush() end
end

local function check_options(op, opts)
  local o = {}
  for k, v in pairs(OPTIONS) do o[k] = v end
  if opts == nil then return o end
  if type(opts) ~= 'table' then lib.fail(op, 'options must be a table, got %s', types.describe(opts)) end
  for k, v in pairs(opts) do
    if OPTIONS[k] == nil then
      lib.fail(op, "unknown option '%s' (expected recordShapes, syncCuda or modules)", tostring(k))
    end
    if type(v) ~= 'boolean' then lib.fail(op, 'option %s must be a boolean, got %s', k, types.describe(v)) end
    o[k] = v
  end
  return o
end

local function start(op, opts)
  local o = check_options(op, opts)
  if session then lib.fail(op, 'the profiler is already running (call torch.profiler.stop() first)') end
  local cuda = torch.cuda
  local sync = o.syncCuda and cuda and cuda.isAvailable() and cuda.synchronize or nil
  local S = { active = false, sp = 0, n = 0, events = {}, stack = {}, child = {}, saved = {},
              recordShapes = o.recordShapes, sync = sync, options = o }
  local ok, err = pcall(function()
    wrap_namespace(S, torch, 'torch.', SKIP_TORCH)
    if type(rawget(torch, 'linalg')) == 'table' then wrap_namespace(S, torch.linalg, 'torch.linalg.') end
    wrap_namespace(S, torch._tensor_methods, 'Tensor.', SKIP_METHODS)
    local mt = torch._tensor_mt
    for _, k in ipairs(OPERATORS) do
      if type(rawget(mt, k)) == 'function' then install(S, mt, k, op_wrapper(S, 'Tensor.' .. k, rawget(mt, k))) end
    end
    local nn = rawget(_G, 'nn')
    if type(nn) == 'table' and type(rawget(nn, 'functional')) == 'table' then
      wrap_namespace(S, nn.functional, 'nn.functional.')
    end
    if o.modules then wrap_classes(S) end
  end)
  if not ok then
    restore(S)
    error(err, 0)
  end
  flush_jit()
  session = S
  if sync then sync() end
  S.active = true
  S.t0 = now()
  return S
end

--- torch.profiler.start([opts]): starts profiling (for scripts that cannot put the profiled code
--- in a function); torch.profiler.stop() ends it and returns the profile. opts as for
--- torch.profiler.profile. An error when the profiler is already running.
--- Example: torch.profiler.start(); torch.add(torch.ones(2), 1); return torch.profiler.stop()
function profiler.start(opts) start('profiler.start', opts) end

--- torch.profiler.stop(): stops profiling, restores every wrapped function and returns the
--- profile (see torch.profiler.profile). An error when the profiler is not running.
--- Example: torch.profiler.start(); torch.mm(torch.ones(2, 2), torch.ones(2, 2)); print(torch.profiler.stop():table())
function profiler.stop()
  local S = session
  if not S then lib.fail('profiler.stop', 'the profiler is not running (call torch.profiler.start() first)') end
  local t1 = now()
  S.active = false
  session = nil
  restore(S)
  flush_jit()
  -- Events still open (stop() called inside a profiled function, or a coroutine left one
  -- unfinished) end at stop time. Last first: an open event's open children (which come after
  -- it) must be closed before its self time subtracts their totals.
  local events = S.events
  for i = S.n, 1, -1 do
    local ev = events[i]
    if ev.totalTime == nil then
      ev.totalTime = t1 - ev.start
      local children = 0
      for j = i + 1, S.n do
        local c = events[j]
        if c.parent == i and c.totalTime then children = children + c.totalTime end
      end
      ev.selfTime = ev.totalTime - children
    end
  end
  for i = 1, S.n do events[i].start = events[i].start - S.t0 end
  return Profile.new(events, t1 - S.t0, S.options)
end

--- torch.profiler.isRunning(): true while a profiling session (start() or profile()) is active.
--- Example: torch.profiler.isRunning()
function profiler.isRunning() return session ~= nil end

--- torch.profiler.recordFunction(name, fn, ...): runs fn(...) and returns its results; while the
--- profiler runs, the call is one event named name (kind 'user_annotation', PyTorch's
--- record_function), under which the ops it calls nest. When the profiler is off it only calls fn.
--- Example: local p = torch.profiler.profile(function() torch.profiler.recordFunction('step', function() torch.ones(2):add(1) end) end); print(p:table())
function profiler.recordFunction(name, fn, ...)
  local op = 'profiler.recordFunction'
  if type(name) ~= 'string' or name == '' then lib.fail(op, 'name must be a non-empty string, got %s', types.describe(name)) end
  local mt = type(fn) == 'table' and getmetatable(fn)
  if type(fn) ~= 'function' and not (mt and mt.__call) then lib.fail(op, 'expected a function to run, got %s', types.describe(fn)) end
  local S = session
  if not (S and S.active) then return fn(...) end
  return leave(S, enter(S, name, 'user_annotation', nil), pcall(fn, ...))
end

local function pack(...) return { n = select('#', ...), ... } end

--- torch.profiler.profile([opts,] fn, ...): runs fn(...) with profiling on and returns the profile
--- and fn's results. opts: recordShapes (false: record the sizes of tensor arguments), syncCuda
--- (false: when CUDA is available, synchronize after each op so that kernel time is charged to
--- the op that queued it instead of showing only launch time), modules (true: time nn modules'
--- forward/backward/updateOutput/updateGradInput/accGradParameters). The profile has
--- events(), keyAverages(), table(), exportChromeTrace(path), totalTime(); times are in
--- microseconds. Wrappers are removed when fn returns or raises (the error is re-raised).
--- Example: local prof = torch.profiler.profile(function() return torch.mm(torch.ones(2, 2), torch.ones(2, 2)) end); print(prof:table())
function profiler.profile(a, ...)
  local opts, fn, n, args
  if type(a) == 'table' and not (getmetatable(a) and getmetatable(a).__call) then
    opts, fn = a, (...)
    n, args = select('#', ...) - 1, { select(2, ...) }
  else
    fn, n, args = a, select('#', ...), { ... }
  end
  local callable = type(fn) == 'function' or (type(fn) == 'table' and getmetatable(fn) and getmetatable(fn).__call)
  if not callable then lib.fail('profiler.profile', 'expected a function to profile, got %s', types.describe(fn)) end
  local S = start('profiler.profile', opts)
  local res = pack(pcall(fn, unpack(args, 1, n)))
  if session ~= S then lib.fail('profiler.profile', 'fn stopped the profiler (torch.profiler.stop() inside profile())') end
  local prof = profiler.stop()
  if not res[1] then error(res[2], 0) end
  return prof, unpack(res, 2, res.n)
end

return profiler
