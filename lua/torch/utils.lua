-- Small torch-level utilities: threads, memory statistics, version, and Torch7's misc helpers.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local C, fail = lib.C, lib.fail

torch._VERSION = ffi.string(C.tocha_version())
--- torch.version(): Tocha's version, a string such as '0.1.0' (also in torch._VERSION).
--- torch.version(obj): Torch7's meaning, the version number obj's class writes when serialized
--- (its metatable's __version, 1 for a torch class or tensor that sets none; nil for a value
--- that is no torch object). Classes use it to read files written by older versions of themselves.
--- Example: torch.version(), torch.version(torch.Timer())
function torch.version(...)
  if select('#', ...) == 0 then return torch._VERSION end
  local obj = ...
  if torch.isTensor(obj) or torch.isStorage(obj) then return 1 end
  local mt = type(obj) == 'table' and getmetatable(obj)
  if type(mt) ~= 'table' then return nil end
  local v = rawget(mt, '__version')
  if v ~= nil then return v end
  return rawget(mt, '__typename') and 1 or nil
end

--- torch.setnumthreads(n): threads used by CPU kernels and OpenBLAS (one shared pool).
--- Example: torch.setnumthreads(torch.getnumthreads())
function torch.setnumthreads(n)
  -- an integer: the C side truncated 2.5 to 2 silently
  if type(n) ~= 'number' or n < 1 or n ~= math.floor(n) then fail('setnumthreads', 'expected a positive number (an integer), got %s', tostring(n)) end
  C.tocha_set_num_threads(n)
end
--- torch.getnumthreads(): the number of threads CPU kernels and OpenBLAS use (set with
--- torch.setnumthreads).
--- Example: torch.getnumthreads()
function torch.getnumthreads() return C.tocha_get_num_threads() end
--- torch.getnumcores(): the number of CPU cores of the machine, a number.
--- Example: torch.getnumcores()
function torch.getnumcores() return C.tocha_num_cores() end

torch.backends = torch.backends or {}
-- torch.backends.mkldnn.enabled (on by default, TOCHA_MKLDNN=0 at start-up): f32 CPU convolutions
-- with 4 or more input channels per group run on oneDNN when the build has it (Note [oneDNN
-- convolutions]), and so do f32 GEMMs of at least 128^3 multiply-adds on AVX-512 machines (Note
-- [oneDNN GEMM]); off, they take im2col + OpenBLAS and OpenBLAS. torch.backends.mkldnn.isAvailable()
-- says whether the build has it; torch.backends.mkldnn.stats() gives {ran, failed, gemms, winograd}:
-- the convolution passes oneDNN ran, those it refused (im2col ran them), the GEMMs it ran, and the
-- passes it ran as Winograd (Note [oneDNN Winograd]), since start-up.
torch.backends.mkldnn = lib.backend_switch('mkldnn', { enabled = { C.tocha_mkldnn_enabled, C.tocha_mkldnn_set_enabled } }, {
  isAvailable = function() return C.tocha_mkldnn_available() ~= 0 end,
  stats = function()
    local v = ffi.new('int64_t[4]')
    C.tocha_mkldnn_stats(v, 4)
    return { ran = tonumber(v[0]), failed = tonumber(v[1]), gemms = tonumber(v[2]), winograd = tonumber(v[3]) }
  end,
})

--- Live/peak tensor bytes and allocation counts per device ('cpu' or 'cuda').
--- Example: torch.memoryStats('cpu').liveBytes
function torch.memoryStats(device)
  -- any other value read the CUDA counters ('gpu', a typo of 'cpu')
  if device ~= nil and device ~= 'cpu' and device ~= 'cuda' then
    fail('memoryStats', "expected 'cpu' or 'cuda', got %s", tostring(device))
  end
  local dt = (device == nil or device == 'cpu') and 0 or 1
  local v = ffi.new('int64_t[4]')
  lib.check(C.tocha_memory_stats(dt, v, v + 1, v + 2, v + 3))
  return { liveBytes = tonumber(v[0]), peakBytes = tonumber(v[1]), allocations = tonumber(v[2]),
           gcRequests = tonumber(v[3]) }
end
--- torch.resetPeakMemoryStats([device]): sets the peak of memoryStats(device) ('cpu', the
--- default, or 'cuda') to the bytes live now, so a later peakBytes measures one region of a script.
--- Example: torch.resetPeakMemoryStats()
function torch.resetPeakMemoryStats(device)
  if device ~= nil and device ~= 'cpu' and device ~= 'cuda' then
    fail('resetPeakMemoryStats', "expected 'cpu' or 'cuda', got %s", tostring(device))
  end
  lib.check(C.tocha_memory_reset_peak((device == nil or device == 'cpu') and 0 or 1))
end
--- The growth of live tensor bytes since the last collection that triggers one (at least; grows with live bytes).
--- Example: local old = torch.getGCThreshold(); torch.setGCThreshold(512 * 2^20); torch.setGCThreshold(old)
function torch.setGCThreshold(bytes)
  -- a negative value became 0 (a collection on every allocation) and a string an FFI error
  if type(bytes) ~= 'number' or not (bytes >= 0) or bytes == math.huge then
    fail('setGCThreshold', 'expected a number of bytes >= 0, got %s', tostring(bytes))
  end
  C.tocha_memory_set_gc_threshold(bytes)
end
--- torch.getGCThreshold(): the minimum GC threshold in bytes (default 256 MiB, set with
--- torch.setGCThreshold): once live tensor memory has grown by this many bytes, or by the live
--- bytes after the last collection if more, since that collection, Tocha runs the Lua GC
--- (Note [Pressure is growth]: memory freed without Lua, such as library workspaces, does not count).
--- Example: torch.getGCThreshold()
function torch.getGCThreshold() return tonumber(C.tocha_memory_gc_threshold()) end

--- torch.isatty([f]): true when the Lua file f (io.stdout by default; io.stderr and io.stdin are
--- also recognized, any other file is treated as stdout) is a terminal.
--- Example: torch.isatty(io.stdout)
function torch.isatty(f)
  f = f or io.stdout
  local fd = f == io.stderr and 2 or (f == io.stdin and 0 or 1)
  pcall(ffi.cdef, 'int isatty(int fd);')
  return ffi.C.isatty(fd) == 1
end

-- Torch7's environment helpers.
--- torch.getenv(f): the environment table of function f (Lua 5.1's getfenv; Torch7's helper).
--- Example: torch.getenv(function() end) == _G
function torch.getenv(f)
  -- getfenv(1) is the caller's environment: a number was a stack level, not an error
  if type(f) ~= 'function' then fail('getenv', 'expected a function, got %s', type(f)) end
  return getfenv(f)
end
--- torch.setenv(f, env): sets the environment table of function f to env and returns f (Lua 5.1's
--- setfenv; Torch7's helper).
--- Example: torch.setenv(function() return answer end, { answer = 42 })()
function torch.setenv(f, env)
  if type(f) ~= 'function' then fail('setenv', 'expected a function, got %s', type(f)) end
  if type(env) ~= 'table' then fail('setenv', 'expected an environment table, got %s', type(env)) end
  return setfenv(f, env)
end
local function exists(path)
  local f = io.open(path)
  if f then f:close() end
  return f ~= nil
end
--- torch.packageLuaPath([name]): the directory holding package name's Lua files, a string: the
--- Lua module root of this installation followed by /name for Tocha's packages, otherwise (as
--- Torch7) the directory of the first package.path entry whose file exists for name (the module
--- root followed by /name when none does). Without a name, the Lua module root.
--- Example: torch.packageLuaPath('torch')
function torch.packageLuaPath(name)
  if name == nil then return lib.lua_root end  -- it concatenated nil
  if type(name) ~= 'string' then fail('packageLuaPath', 'expected a package name, got %s', type(name)) end
  local own = lib.lua_root .. '/' .. name
  if exists(own .. '/init.lua') or exists(own .. '.lua') then return own end
  -- Torch7's search: a user package on package.path (its include() found only Tocha's own)
  for path in package.path:gmatch('[^;]+') do
    path = path:gsub('%?', (name:gsub('%%', '%%%%')))
    if exists(path) then return path:match('(.*)/') or '.' end
  end
  return own
end
--- torch.include(package, file): runs the Lua file `file` of the installed package `package`
--- (the file at torch.packageLuaPath(package) .. '/' .. file) with dofile; returns nothing.
--- Example: torch.include('torch', 'env.lua')
function torch.include(package, file)
  if type(package) ~= 'string' or type(file) ~= 'string' then
    fail('include', 'expected a package name and a file name (strings), got %s and %s', type(package), type(file))
  end
  dofile(torch.packageLuaPath(package) .. '/' .. file)
end
--- torch.updateerrorhandlers(): does nothing; kept for Torch7 scripts (Tocha's errors need no
--- handler update).
--- Example: torch.updateerrorhandlers()
function torch.updateerrorhandlers() end
--- torch.setheaptracking(enabled): does nothing; kept for Torch7 scripts (Tocha tells Lua's GC
--- about tensor memory without it; see torch.memoryStats and torch.setGCThreshold).
--- Example: torch.setheaptracking(true)
function torch.setheaptracking() end

return torch
