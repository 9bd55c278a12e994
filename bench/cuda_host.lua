-- The host side of CUDA ops, measured without a GPU on the fake GPU stack (Note [Fake GPU],
-- tests/fakegpu/): kernels and the driver's launch cost nothing there, so what is timed is ours:
-- Lua, dispatch, allocation, launch configuration, cuDNN/cuBLAS descriptors. It prints, for tiny
-- ops, our host time per CUDA op next to the same op on the CPU (the reference: the whole CPU
-- op, kernel included), and for each training case of bench/cuda_models.lua the host time per
-- step with the step's launches, waits and library calls. On a GPU the launch itself adds the
-- driver's cost (bench/cuda.lua prints it as launch_add1). Last, the training steps run on a
-- simulated device as slow as the GPU (Note [Simulated device time]): its idle time is the cost
-- of our host side to a GPU-bound step.
-- Usage: tocha bench/cuda_host.lua [build dir]   (re-runs itself on the fake stack of that build)
local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.') .. '/harness.lua')
local F = dofile(H.dir() .. '/../tests/fakegpu/counters.lua')
if not F.loaded then
  local build = arg and arg[1] or H.dir() .. '/../build'
  local libs = build .. '/fakegpu'
  if not io.open(libs .. '/libtocha_fakegpu.so') then
    print('SKIPPED: no fake GPU stack in ' .. build .. ' (a build with CUDA makes it: make tocha_fakegpu)')
    return
  end
  local cmd = string.format('LD_LIBRARY_PATH=%s %s %s', libs, build .. '/tocha', debug.getinfo(1, 'S').source:sub(2))
  os.exit(os.execute(cmd) == 0 and 0 or 1)
end

local function ns(fn, n) return H.best(fn, n) * 1e9 end

print('tiny ops, host ns per call (CUDA on the fake stack; the CPU op, kernel included, as reference)')
print(string.format('%-16s %10s %10s %8s', 'op', 'cuda ns', 'cpu ns', 'ratio'))
local function tiny(name, cuda_fn, cpu_fn)
  local c, p = ns(cuda_fn, 200000), ns(cpu_fn, 200000)
  print(string.format('%-16s %10.0f %10.0f %8.2f', name, c, p, c / p))
end
local g1, g2, g3 = torch.CudaTensor(1):fill(1), torch.CudaTensor(1):fill(2), torch.CudaTensor(1)
local c1, c2, c3 = torch.FloatTensor(1):fill(1), torch.FloatTensor(1):fill(2), torch.FloatTensor(1)
tiny('tiny_add_new', function() return g1 + g2 end, function() return c1 + c2 end)
tiny('tiny_add_out', function() g3:add(g1, g2) end, function() c3:add(c1, c2) end)
tiny('tiny_fill', function() g3:fill(1) end, function() c3:fill(1) end)

print()
print('training steps on the fake stack (bench/cuda_models.lua): host us per step and per-step counts')
print(string.format('%-16s %9s %9s %6s %6s %6s %6s', 'case', 'host us', 'launches', 'waits', 'cudnn', 'cublas',
                    'malloc'))
for _, case in ipairs(dofile(H.dir() .. '/cuda_models.lua')(H)) do
  local t = H.best(case.step, 20, 3)
  local k = F.count(case.step)
  print(string.format('%-16s %9.1f %9d %6d %6d %6d %6d', case.name, t * 1e6, k.launches, k.syncs, k.cudnn_calls,
                      k.cublas_calls, k.device_mallocs))
end

-- The same steps on a simulated device (Note [Simulated device time], tests/fakegpu/fake_cuda.cpp)
-- whose work per step takes as long as PyTorch's step on the H100 (third session: MLP 0.63 ms, CNN
-- 2.72 ms), spread evenly over the step's kernels and library calls. A device that never waits
-- for the host would make each step last exactly its work; the idle time is what our host side
-- (Lua, the collector, allocation, waits) costs the step. Mean over 200 steps, not the best run:
-- collections and misses are part of the cost.
print()
print('training steps on a simulated device (work per step = PyTorch\'s H100 step): device idle per step')
print(string.format('%-16s %9s %9s %9s %7s %9s', 'case', 'work us', 'step us', 'idle us', 'idle %', 'worst us'))
local device_ms = { mlp = 0.63, cnn = 2.72 }
for _, case in ipairs(dofile(H.dir() .. '/cuda_models.lua')(H)) do
  local k = F.count(case.step)
  local items = k.launches + k.cudnn_calls + k.cublas_calls + k.memsets + k.copies_on_device
  F.kernel_us(device_ms[case.model] * 1e3 / items)
  for _ = 1, 20 do case.step() end
  torch.cuda.synchronize()
  F.reset()
  local n, worst = 200, 0
  local t0 = torch.tic()
  for _ = 1, n do
    local s0 = torch.tic()
    case.step()
    worst = math.max(worst, torch.toc(s0))
  end
  torch.cuda.synchronize()
  local t = torch.toc(t0) / n
  local c = F.read()
  F.kernel_us(0)
  local busy, idle = c.gpu_busy_ns / n / 1e3, c.gpu_idle_ns / n / 1e3
  print(string.format('%-16s %9.0f %9.0f %9.0f %7.1f %9.0f', case.name, busy, t * 1e6, idle,
                      100 * idle / (busy + idle), worst * 1e6))
end
