-- Per-kernel GPU time of one training step of each bench/cuda_models.lua case, ours and then
-- PyTorch's twin (bench/cuda_profile.py), through the CUPTI injection library
-- libtocha_kprof.so (bench/kprof/kprof.cpp): for each case, warm-up steps, then the kernels,
-- copies and sets of `steps` steps, per step, with the GPU's idle time between them (time the
-- host did not keep it fed). Read the two tables side by side to see where a step's time goes.
-- Usage: CUDA_INJECTION64_PATH=build/bench/libtocha_kprof.so tocha bench/cuda_profile.lua [out.txt] [case]
require 'nn'
local ffi = require 'ffi'
if not torch.cuda.isAvailable() then
  print('SKIPPED: no CUDA device (' .. torch.cuda.unavailableReason() .. ')')
  return
end
local lib_path = os.getenv('CUDA_INJECTION64_PATH')
if not lib_path then error('set CUDA_INJECTION64_PATH to the path of libtocha_kprof.so (built with CUDA here)') end
ffi.cdef [[
void tocha_kprof_reset(void);
void tocha_kprof_report(const char *path, const char *title, int steps);
]]
local kprof = ffi.load(lib_path)
local out, only = arg[1] or 'kprof.txt', arg[2]

local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.') .. '/harness.lua')
local function profile(c, label)
  for _ = 1, 3 do c.step() end
  torch.cuda.synchronize()
  kprof.tocha_kprof_reset()
  local g0 = torch.memoryStats('cpu').gcRequests + torch.memoryStats('cuda').gcRequests
  local t0 = torch.tic()
  for _ = 1, c.steps do c.step() end
  torch.cuda.synchronize()
  local ms = torch.toc(t0) / c.steps * 1e3
  -- Host-side suspects: full Lua collections asked for by tensor memory (Note [GC pressure]) and
  -- what one costs in this process.
  local gcs = (torch.memoryStats('cpu').gcRequests + torch.memoryStats('cuda').gcRequests - g0) / c.steps
  local t1 = torch.tic()
  collectgarbage('collect')
  local gc_ms = torch.toc(t1) * 1e3
  kprof.tocha_kprof_report(out, string.format('tocha %s (host wall %.3f ms/step; %.2f full GCs/step at ~%.2f ms each)',
    label, ms, gcs, gc_ms), c.steps)
end

for _, c in ipairs(dofile(H.dir() .. '/cuda_models.lua')(H)) do
  if not only or c.name:find(only, 1, true) then
    profile(c, c.name)
    -- The Torch7-style CNN again through cuDNN's graph API (Note [cuDNN engines]): which engines
    -- its heuristics pick, against the legacy algorithms above and PyTorch's below.
    if c.name == 'cnn_torch7' then
      local graph = torch.backends.cudnn.graphAPI
      torch.backends.cudnn.graphAPI = true
      profile(c, c.name .. ' with torch.backends.cudnn.graphAPI')
      torch.backends.cudnn.graphAPI = graph
    end
  end
end
local cmd = string.format('%s %s/cuda_profile.py %s %s', os.getenv('PYTHON') or 'python3', H.dir(), out, only or '')
local ok = os.execute(cmd)
print('profiles written to ' .. out .. ((ok == 0 or ok == true) and '' or ' (the PyTorch twin failed)'))
