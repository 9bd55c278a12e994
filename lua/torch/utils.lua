-- Small torch-level utilities: threads, memory statistics, version, and Torch7's misc helpers.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local C, fail = lib.C, lib.fail

torch._VERSION = ffi.string(C.tocha_version())
--- torch.version(): Tocha's version, a string such as '0.1.0' (also in torch._VERSION).
--- Example: torch.version()
function torch.version() return torch._VERSION end

--- torch.setnumthreads(n): threads used by CPU kernels and OpenBLAS (one shared pool).
--- Example: torch.setnumthreads(torch.getnumthreads())
function torch.setnumthreads(n)
  if type(n) ~= 'number' or n < 1 then fail('setnumthreads', 'expected a positive number, got %s', tostring(n)) end
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
--- Bytes allocated since the last collection that trigger one (at least; grows with live bytes).
--- Example: local old = torch.getGCThreshold(); torch.setGCThreshold(512 * 2^20); torch.setGCThreshold(old)
function torch.setGCThreshold(bytes) C.tocha_memory_set_gc_threshold(bytes) end
--- torch.getGCThreshold(): the minimum GC threshold in bytes (default 256 MiB, set with
--- torch.setGCThreshold): once this many tensor bytes, or the live bytes after the last
--- collection if more, have been allocated since that collection, Tocha runs the Lua GC.
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
function torch.getenv(f) return getfenv(f) end
--- torch.setenv(f, env): sets the environment table of function f to env and returns f (Lua 5.1's
--- setfenv; Torch7's helper).
--- Example: torch.setenv(function() return answer end, { answer = 42 })()
function torch.setenv(f, env) return setfenv(f, env) end
--- torch.include(package, file): runs the Lua file `file` of the installed package `package`
--- (the file at torch.packageLuaPath(package) .. '/' .. file) with dofile; returns nothing.
--- Example: torch.include('torch', 'env.lua')
function torch.include(package, file) dofile(lib.lua_root .. '/' .. package .. '/' .. file) end
--- torch.packageLuaPath(name): the directory holding package name's Lua files, a string (the
--- Lua module root of this installation followed by /name).
--- Example: torch.packageLuaPath('torch')
function torch.packageLuaPath(name) return lib.lua_root .. '/' .. name end
--- torch.updateerrorhandlers(): does nothing; kept for Torch7 scripts (Tocha's errors need no
--- handler update).
--- Example: torch.updateerrorhandlers()
function torch.updateerrorhandlers() end
--- torch.setheaptracking(enabled): does nothing; kept for Torch7 scripts (Tocha tells Lua's GC
--- about tensor memory without it; see torch.memoryStats and torch.setGCThreshold).
--- Example: torch.setheaptracking(true)
function torch.setheaptracking() end

return torch
