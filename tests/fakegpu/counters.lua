-- The fake GPU stack's counters from Lua (Note [Fake GPU], tests/fakegpu/fake_cuda.cpp), for
-- tests/lua/test_fakegpu_steps.lua and bench/cuda_host.lua:
--   local F = dofile('<repo>/tests/fakegpu/counters.lua')
--   F.loaded              -- whether this process runs on the fake stack
--   F.count(fn)           -- fn's counters ({launches = n, syncs = n, ...}) and its trace (a string)
--   F.reset(); F.read()   -- zero the counters; read them as such a table
--   F.kernel_us(t)        -- every kernel and library call takes t us of simulated device time
--                            (Note [Simulated device time]; 0: none)
local ffi = require('ffi')
ffi.cdef [[
struct FakeGpuCounters {
  long launches, syncs, copies_to_host, copies_to_device, copies_on_device, memsets, device_mallocs,
       device_frees, host_allocs, events, cudnn_calls, cudnn_heuristics, cudnn_descriptors, cublas_calls,
       gpu_busy_ns, gpu_idle_ns;
};
struct FakeGpuCounters* fakegpu_counters(void);
void fakegpu_reset(void);
void fakegpu_trace(int on);
const char* fakegpu_trace_take(void);
void fakegpu_set_kernel_us(double us);
]]
local F = {}
F.fields = { 'launches', 'syncs', 'copies_to_host', 'copies_to_device', 'copies_on_device', 'memsets',
             'device_mallocs', 'device_frees', 'host_allocs', 'events', 'cudnn_calls', 'cudnn_heuristics',
             'cudnn_descriptors', 'cublas_calls', 'gpu_busy_ns', 'gpu_idle_ns' }
F.loaded = pcall(function() return ffi.C.fakegpu_counters end)

function F.reset() ffi.C.fakegpu_reset() end
function F.kernel_us(t) ffi.C.fakegpu_set_kernel_us(t) end

function F.read()
  local c, k = {}, ffi.C.fakegpu_counters()
  for _, f in ipairs(F.fields) do c[f] = tonumber(k[f]) end
  return c
end

function F.count(fn)
  F.reset()
  ffi.C.fakegpu_trace(1)
  fn()
  local trace = ffi.string(ffi.C.fakegpu_trace_take())
  ffi.C.fakegpu_trace(0)
  return F.read(), trace
end

return F
