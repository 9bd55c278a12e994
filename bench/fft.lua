-- torch.fft on the CPU against PyTorch 1.13 (Debian's python3-torch, run in the same process tree
-- from the twin bench/fft.py): rfft and fft of 256 signals of 4096 points, rfft2 and fft2 of a
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

-- The PyTorch twin (bench/fft.py): the same cases with complex64 tensors.
local ref = Harness.reference('fft.py', threads)

print(string.format('threads=%d  torch.fft, f32, CPU (Tocha: FFTW, FFTW_ESTIMATE plans)', threads))
print(string.format('%-16s %10s %10s %9s', 'case', 'tocha ms', 'pytorch ms', 'speedup'))
for _, k in ipairs({ 'rfft_4096x256', 'fft_4096x256', 'irfft_4096x256', 'rfft2_512', 'fft2_512' }) do
  local r = ref[k]
  print(string.format('%-16s %10.3f %10s %9s', k, ours[k], Harness.fmt(r, '%.3f'),
    r and string.format('%.2fx', r / ours[k]) or 'n/a'))
end
print('speedup = pytorch time / tocha time')
