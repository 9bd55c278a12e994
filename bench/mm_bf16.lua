-- Benchmark: bf16 torch.mm on the CPU (oneDNN's matmul on AVX-512 machines, Note [oneDNN
-- reduced-precision GEMM]; else widened to float for sgemm) against PyTorch's bf16 mm
-- (bench/mm_bf16.py) in the same run, n x n at 128, 512 and 1024, into an existing result.
-- Usage: tocha bench/mm_bf16.lua [threads]. No target: CPU autocast's bf16 matmuls go this way.
local threads = tonumber(arg and arg[1] or '1')
torch.setnumthreads(threads)
torch.manualSeed(0)
local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.') .. '/harness.lua')

local ours = {}
for _, n in ipairs({ 128, 512, 1024 }) do
  local a, b = torch.randn(n, n):type('torch.BFloat16Tensor'), torch.randn(n, n):type('torch.BFloat16Tensor')
  local r = torch.mm(a, b)
  ours[n] = H.best(function() torch.mm(r, a, b) end, n < 1024 and 200 or 10, 1) * 1e3
end
local ref = H.reference('mm_bf16.py', threads)

print(string.format('bf16 torch.mm, threads=%d, oneDNN %s', threads,
  torch.backends.mkldnn.enabled and 'on' or 'off'))
print(string.format('%6s %12s %12s %9s %9s', 'n', 'tocha ms', 'pytorch ms', 'ratio', 'GFLOP/s'))
for _, n in ipairs({ 128, 512, 1024 }) do
  local r = ref['bf16_' .. n]
  print(string.format('%6d %12.4f %12s %9s %9.1f', n, ours[n], H.fmt(r, '%.4f'),
    r and string.format('%.2f', ours[n] / r) or 'n/a', 2 * n ^ 3 / ours[n] / 1e6))
end
print('ratio = tocha time / pytorch time (lower is better for tocha)')
