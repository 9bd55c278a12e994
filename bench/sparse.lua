-- torch.sparse.mm on the CPU: a 10000 x 10000 SparseTensor with 100000 entries (uniform random
-- positions) times a dense 10000 x 64 f32 matrix, coalesced and not, against the dense torch.mm of
-- the same matrices and against PyTorch 1.13's torch.sparse.mm (Debian's python3-torch, the twin
-- embedded below, run in the same run with the same thread count). Also the cost torch.mm's sparse
-- dispatch adds to a small dense mm (Note [torch.mm and sparse operands]).
-- Usage: tocha bench/sparse.lua [threads]
local threads = tonumber(arg[1] or '1')
torch.setnumthreads(threads)
torch.manualSeed(0)

local H = dofile((debug.getinfo(1, 'S').source:match('^@(.*)/[^/]*$') or '.') .. '/harness.lua')
local function ms(fn, n) return H.best(fn, n, 1) * 1e3 end

local N, P, NNZ = 10000, 64, 100000
local idx = torch.LongTensor(2, NNZ):random(1, N)
local S = torch.sparseCooTensor(idx, torch.randn(NNZ), { N, N })
local Sc = S:coalesce()
local D = torch.randn(N, P)
local A = Sc:toDense()
local ours = {
  sparse_mm_uncoalesced = ms(function() return torch.sparse.mm(S, D) end, 5),
  sparse_mm_coalesced = ms(function() return torch.sparse.mm(Sc, D) end, 5),
  dense_mm = ms(function() return torch.mm(A, D) end, 2),
}
local err = (torch.sparse.mm(Sc, D) - torch.mm(A, D)):abs():max()
A = nil
collectgarbage()

-- torch.mm's dispatch on a dense 8x8 product: the wrapped torch.mm against the dense one it wraps,
-- in alternating rounds of 20 x 1000 calls, the best round of each (the machine's noise is larger
-- than the difference).
local a, b = torch.randn(8, 8), torch.randn(8, 8)
local raw, wrapped = torch.sparse._denseMm, torch.mm
local function loop(f) return function() for _ = 1, 1000 do f(a, b) end end end
local us_raw, us_wrapped = math.huge, math.huge
for _ = 1, 7 do
  us_raw = math.min(us_raw, ms(loop(raw), 20))
  us_wrapped = math.min(us_wrapped, ms(loop(wrapped), 20))
end

-- The PyTorch twin (bench/sparse.py): the same products.
local ref = H.reference('sparse.py', threads)

print(string.format('threads=%d  %dx%d sparse (%d entries) x %dx%d dense, f32, CPU; max |sparse - dense| = %.2g',
  threads, N, N, NNZ, N, P, err))
print(string.format('%-24s %10s %10s %16s', 'case', 'tocha ms', 'pytorch ms', 'tocha/pytorch'))
for _, k in ipairs({ 'sparse_mm_uncoalesced', 'sparse_mm_coalesced', 'dense_mm' }) do
  local r = ref[k]
  print(string.format('%-24s %10.2f %10s %16s', k, ours[k], H.fmt(r, '%.2f'),
    r and string.format('%.2fx', ours[k] / r) or 'n/a'))
end
print(string.format('tocha: dense mm / sparse mm (coalesced) = %.1fx', ours.dense_mm / ours.sparse_mm_coalesced))
print(string.format('torch.mm 8x8 dense: %.3f us per call through the sparse dispatch, %.3f us without (%+.1f%%)',
  us_wrapped, us_raw, (us_wrapped / us_raw - 1) * 100))
