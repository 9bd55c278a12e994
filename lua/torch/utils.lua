-- Small torch-level utilities: threads, memory statistics, version, and Torch7's misc helpers.
local ffi = require 'ffi'
local torch = require 'torch.env'
local lib = require 'torch.lib'
local C, fail = lib.C, lib.fail

torch._VERSION = ffi.string(C.tocha_version())
function torch.version() return torch._VERSION end

--- Threads used by CPU kernels and OpenBLAS (one shared pool).
function torch.setnumthreads(n)
  if type(n) ~= 'number' or n < 1 then fail('setnumthreads', 'expected a positive number, got %s', tostring(n)) end
  C.tocha_set_num_threads(n)
end
function torch.getnumthreads() return C.tocha_get_num_threads() end
function torch.getnumcores() return C.tocha_num_cores() end

--- Live/peak tensor bytes and allocation counts per device ('cpu' or 'cuda').
function torch.memoryStats(device)
  local dt = (device == nil or device == 'cpu') and 0 or 1
  local v = ffi.new('int64_t[4]')
  lib.check(C.tocha_memory_stats(dt, v, v + 1, v + 2, v + 3))
  return { liveBytes = tonumber(v[0]), peakBytes = tonumber(v[1]), allocations = tonumber(v[2]),
           gcRequests = tonumber(v[3]) }
end
--- Bytes allocated since the last collection that trigger one (at least; grows with live bytes).
function torch.setGCThreshold(bytes) C.tocha_memory_set_gc_threshold(bytes) end
function torch.getGCThreshold() return tonumber(C.tocha_memory_gc_threshold()) end

function torch.isatty(f)
  f = f or io.stdout
  local fd = f == io.stderr and 2 or (f == io.stdin and 0 or 1)
  pcall(ffi.cdef, 'int isatty(int fd);')
  return ffi.C.isatty(fd) == 1
end

-- Torch7's environment helpers.
function torch.getenv(f) return getfenv(f) end
function torch.setenv(f, env) return setfenv(f, env) end
function torch.include(package, file) dofile(lib.lua_root .. '/' .. package .. '/' .. file) end
function torch.packageLuaPath(name) return lib.lua_root .. '/' .. name end
function torch.updateerrorhandlers() end
function torch.setheaptracking() end

return torch
