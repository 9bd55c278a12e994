-- Per-call overhead of tiny ops through the whole stack (Lua wrapper, FFI, C ABI, front-end,
-- kernel, result handle), against PyTorch's twin script measured in the same run.
-- Usage: tocha bench/overhead.lua [threads]   (PyTorch from Debian's python3-torch)
local threads = tonumber(arg[1] or '1')
torch.setnumthreads(threads)

local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*)/[^/]*$') or '.') .. '/harness.lua')
local function bench(fn, n) return H.best(fn, n) * 1e9 end

local x1, y1 = torch.FloatTensor({ 1 }), torch.FloatTensor({ 2 })
local a, b = torch.FloatTensor(100, 100):fill(1), torch.FloatTensor(100, 100):fill(2)
local m1, m2 = torch.rand(64, 64), torch.rand(64, 64)
local ours = {
  add1 = bench(function() return x1 + y1 end, 200000),
  add100x100 = bench(function() return a + b end, 50000),
  mm64 = bench(function() return torch.mm(m1, m2) end, 20000),
}

local ref = H.reference('overhead.py', threads)

print(string.format('threads=%d OPENBLAS_CORETYPE=%s', threads, os.getenv('OPENBLAS_CORETYPE') or '(unset)'))
print(string.format('%-12s %12s %12s %8s', 'op', 'tocha ns', 'pytorch ns', 'ratio'))
for _, k in ipairs({ 'add1', 'add100x100', 'mm64' }) do
  local r = ref[k]
  print(string.format('%-12s %12.1f %12s %8s', k, ours[k], r and string.format('%.1f', r) or 'n/a',
    r and string.format('%.3f', ours[k] / r) or 'n/a'))
end
print('targets: add1 ratio <= 0.35')
