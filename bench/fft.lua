-- torch.fft on the CPU against PyTorch 1.13 (Debian's python3-torch, run in the same process tree
-- from the twin embedded below): rfft and fft of 256 signals of 4096 points, rfft2 and fft2 of a
-- 512 x 512 image, irfft of the first case, in f32. Prints ms per call and PyTorch / Tocha.
-- Usage: tocha bench/fft.lua [threads]
local threads = tonumber(arg[1] or '1')
torch.setnumthreads(threads)
torch.manualSeed(0)

local Harness = dofile((debug.getinfo(1, 'S').source:match('^@(.*)/[^/]*$') or '.') .. '/harness.lua')
local function bench(fn, n) return Harness.best(fn, n, 3) * 1e3 end
local F = torch.fft

local x1 = torch.randn(256, 4096)
local z1 = torch.complex(x1, torch.randn(256, 4096))
local x2 = torch.randn(512, 512)
local z2 = torch.complex(x2, torch.randn(512, 512))
local s1 = F.rfft(x1)
local ours = {
  rfft_4096x256 = bench(function() return F.rfft(x1) end, 20),
  fft_4096x256 = bench(function() return F.fft(z1) end, 20),
  irfft_4096x256 = bench(function() return F.irfft(s1, 4096) end, 20),
  rfft2_512 = bench(function() return F.rfft2(x2) end, 20),
  fft2_512 = bench(function() return F.fft2(z2) end, 20),
}

-- The PyTorch twin: the same cases with complex64 tensors (view_as_complex of the same layout).
local TWIN = [[
import os, sys, time
os.environ.setdefault('OPENBLAS_NUM_THREADS', sys.argv[1])
import torch
torch.set_num_threads(int(sys.argv[1]))
torch.manual_seed(0)
def bench(fn, n):
    for _ in range(3):
        fn()
    best = float('inf')
    for _ in range(5):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        best = min(best, (time.perf_counter() - t0) / n)
    return best * 1e3
F = torch.fft
x1 = torch.randn(256, 4096)
z1 = torch.complex(x1, torch.randn(256, 4096))
x2 = torch.randn(512, 512)
z2 = torch.complex(x2, torch.randn(512, 512))
s1 = F.rfft(x1)
print('rfft_4096x256', bench(lambda: F.rfft(x1), 20))
print('fft_4096x256', bench(lambda: F.fft(z1), 20))
print('irfft_4096x256', bench(lambda: F.irfft(s1, 4096), 20))
print('rfft2_512', bench(lambda: F.rfft2(x2), 20))
print('fft2_512', bench(lambda: F.fft2(z2), 20))
]]

local function reference()
  local path = os.tmpname()
  local f = assert(io.open(path, 'w'))
  f:write(TWIN)
  f:close()
  local ref = {}
  local p = io.popen(string.format('/usr/bin/python3 %q %d 2>/dev/null', path, threads))
  if p then
    for line in p:lines() do
      local k, v = line:match('^(%S+) ([%d.eE+-]+)')
      if k then ref[k] = tonumber(v) end
    end
    p:close()
  end
  os.remove(path)
  return ref
end
local ref = reference()

print(string.format('threads=%d  torch.fft, f32, CPU (Tocha: FFTW, FFTW_ESTIMATE plans)', threads))
print(string.format('%-16s %10s %10s %9s', 'case', 'tocha ms', 'pytorch ms', 'speedup'))
for _, k in ipairs({ 'rfft_4096x256', 'fft_4096x256', 'irfft_4096x256', 'rfft2_512', 'fft2_512' }) do
  local r = ref[k]
  print(string.format('%-16s %10.3f %10s %9s', k, ours[k], Harness.fmt(r, '%.3f'),
    r and string.format('%.2fx', r / ours[k]) or 'n/a'))
end
print('speedup = pytorch time / tocha time')
