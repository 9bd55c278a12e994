-- torch.histogramdd (lua/torch/histogramdd.lua) against PyTorch 1.13 values (counts, ranges,
-- edge tensors, weights, density, batched input), its rules (closed last bin, NaN and outside
-- points dropped) and errors; torch.svdLowrank and torch.pcaLowrank (lua/torch/lowrank.lua),
-- seeded, checked against torch.linalg.svd (reconstruction, singular values, subspaces) rather
-- than PyTorch's random values, with a gradcheck and errors.
local tester = torch.Tester()
local tests = torch.TestSuite()
local D = torch.DoubleTensor
torch.setdefaulttensortype("torch.DoubleTensor")

local function gen(sizes, seed)
  local t = D(torch.LongStorage(sizes))
  local flat = t:view(-1)
  for L = 0, t:nElement() - 1 do flat[L + 1] = math.sin(0.37 * L + seed) + 0.3 * math.cos(1.3 * L) end
  return t
end

-- PyTorch 1.13 values (float64), x = gen({40, 3}, 0.3), w = |gen({40}, 1.1)|.
local H = {}
H.default = { size = {3, 3, 3}, hist = {8.0, 2.0, 0.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 3.0, 0.0, 0.0, 1.0, 4.0, 1.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 1.0, 2.0, 0.0, 0.0, 2.0, 12.0}, edges = {{-1.2978721275693301, -0.46144793257330496, 0.3749762624227202, 1.2114004574187454}, {-1.2973451307624413, -0.4510401461273569, 0.3952648385077274, 1.2415698231428118}, {-1.2825554338891783, -0.4609556124009213, 0.36064420908733563, 1.1822440305755926}} }
H.counts = { size = {2, 3, 4}, hist = {9.0, 3.0, 1.0, 0.0, 0.0, 4.0, 2.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 1.0, 2.0, 0.0, 0.0, 0.0, 2.0, 2.0, 12.0}, edges = {{-1.2978721275693301, -0.043235835075292384, 1.2114004574187454}, {-1.2973451307624413, -0.4510401461273569, 0.3952648385077274, 1.2415698231428118}, {-1.2825554338891783, -0.6663555677729855, -0.05015570165679284, 0.5660441644593999, 1.1822440305755926}} }
H.range = { size = {2, 3, 2}, hist = {3.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0}, edges = {{-1.0, 0.0, 1.0}, {-0.5, -0.16666666666666669, 0.16666666666666669, 0.5}, {0.0, 1.0, 2.0}} }
H.weight_density = { size = {3, 2, 2}, hist = {0.20965761125401458, 0.02314722967680182, 0.0, 0.00284482570656659, 0.08264084860124143, 0.026396524279570524, 0.0, 0.06667079354789907, 0.0391408792731551, 0.0, 0.07565983297388383, 0.23803551848585947}, edges = {{-1.2978721275693301, -0.46144793257330496, 0.3749762624227202, 1.2114004574187454}, {-1.2973451307624413, -0.027887653809814728, 1.2415698231428118}, {-1.2825554338891783, -0.05015570165679284, 1.1822440305755926}} }
H.edges = { size = {3, 2, 1}, hist = {13.0, 2.0, 3.0, 2.0, 2.0, 10.0}, edges = {{-1.5, -0.2, 0.1, 1.5}, {-1.0, 0.0, 1.0}, {-2.0, 2.0}} }
H.edges_density = { size = {3, 2, 2}, hist = {0.24268043656699237, 0.0, 0.0, 0.025047482396779595, 0.31636155325376164, 0.0, 0.0, 0.18307605988782064, 0.0820971855929998, 0.0, 0.10152480113731134, 0.1413486468997877}, edges = {{-1.5, -0.2, 0.1, 1.5}, {-1.0, 0.0, 1.0}, {-0.5, 0.25, 2.0}} }
H.batched = { size = {2, 2}, hist = {4.0, 0.0, 1.0, 5.0}, edges = {{-1.2613842181284611, -0.062474186100353934, 1.1364358459277533}, {-1.1061703049281135, 0.07404059288279674, 1.254251490693707}} }

local function same(got, expected, tol, name)
  tester:asserteq(got:nElement(), #expected, name .. ' count')
  local flat = got:contiguous():view(-1)
  for i, e in ipairs(expected) do
    tester:assert(math.abs(flat[i] - e) <= tol * math.max(1, math.abs(e)),
      string.format('%s element %d: got %.17g, expected %.17g', name, i, flat[i], e))
  end
end
local function check(name, hist, edges)
  local r = H[name]
  tester:assertTableEq(hist:size():totable(), r.size, name .. ' size')
  tester:asserteq(hist:type(), 'torch.DoubleTensor', name .. ' type')
  same(hist, r.hist, 1e-12, name .. ' hist')
  tester:asserteq(#edges, #r.edges, name .. ' edge count')
  for d = 1, #r.edges do same(edges[d], r.edges[d], 1e-14, name .. ' edges ' .. d) end
end

function tests.histogramddMatchesPyTorch()
  local x = gen({ 40, 3 }, 0.3)
  local w = torch.abs(gen({ 40 }, 1.1))
  check('default', torch.histogramdd(x, 3))
  check('counts', torch.histogramdd(x, { 2, 3, 4 }))
  check('range', torch.histogramdd(x, { 2, 3, 2 }, { range = { -1, 1, -0.5, 0.5, 0, 2 } }))
  check('range', torch.histogramdd(x, { 2, 3, 2 }, { range = { { -1, 1 }, { -0.5, 0.5 }, { 0, 2 } } }))
  check('weight_density', torch.histogramdd(x, { 3, 2, 2 }, { weight = w, density = true }))
  check('edges', torch.histogramdd(x, { D({ -1.5, -0.2, 0.1, 1.5 }), D({ -1, 0, 1 }), D({ -2, 2 }) }))
  check('edges_density', torch.histogramdd(x, { D({ -1.5, -0.2, 0.1, 1.5 }), D({ -1, 0, 1 }), D({ -0.5, 0.25, 2 }) },
    { weight = w, density = true }))
  check('batched', torch.histogramdd(gen({ 2, 5, 2 }, 0), 2))
end

function tests.histogramddRules()
  -- PyTorch 1.13's: the last bin is closed, equal min and max widen by 0.5, NaN rows dropped
  local h, e = torch.histogramdd(D({ { 0, 0 }, { 1, 1 }, { 1, 1 }, { 2, 2 } }), 2)
  same(h, { 1, 0, 0, 3 }, 0, 'closed last bin')
  same(e[1], { 0, 1, 2 }, 0, 'edges')
  h, e = torch.histogramdd(D({ { 1, 5 }, { 1, 5 } }), 2)
  same(h, { 0, 0, 0, 2 }, 0, 'flat range')
  same(e[2], { 4.5, 5, 5.5 }, 0, 'widened edges')
  h = torch.histogramdd(D({ { 0.5, 0 / 0 }, { 3, 3 }, { 5, 1 } }), 2, { range = { 0, 4, 0, 4 } })
  same(h, { 0, 0, 0, 1 }, 0, 'NaN and outside points')
  -- the total is the number of points inside; density integrates to 1
  local x = gen({ 30, 2 }, 0.8)
  h, e = torch.histogramdd(x, { 4, 5 })
  tester:asserteq(h:sum(), 30)
  h, e = torch.histogramdd(x, { 4, 5 }, { density = true })
  local vol = torch.ger(e[1]:narrow(1, 2, 4) - e[1]:narrow(1, 1, 4), e[2]:narrow(1, 2, 5) - e[2]:narrow(1, 1, 5))
  tester:assert(math.abs(torch.cmul(h, vol):sum() - 1) < 1e-12, 'density integrates to 1')
  -- Float stays Float
  h, e = torch.histogramdd(x:float(), 2)
  tester:asserteq(h:type(), 'torch.FloatTensor')
  tester:asserteq(e[1]:type(), 'torch.FloatTensor')
  -- no points: zeros
  h = torch.histogramdd(D(0, 2), 3, { range = { 0, 1, 0, 1 } })
  tester:asserteq(h:sum(), 0)
  tester:assertTableEq(h:size():totable(), { 3, 3 })
end

function tests.histogramddErrors()
  local x = D({ { 0, 0 }, { 1, 1 } })
  tester:assertErrorPattern(function() torch.histogramdd(D({ 1, 2 }), 2) end, '%[histogramdd%] the input must have at least 2 dims')
  tester:assertErrorPattern(function() torch.histogramdd(torch.LongTensor({ { 1, 2 } }), 2) end, 'must be a Float or Double tensor')
  tester:assertErrorPattern(function() torch.histogramdd('x', 2) end, 'expected the input to be a tensor, got string')
  tester:assertErrorPattern(function() torch.histogramdd(x, 0) end, 'bins must be positive integers, got 0 for dim 1')
  tester:assertErrorPattern(function() torch.histogramdd(x, { 2, 3, 4 }) end, 'bins holds 3 counts but the input has 2 dims')
  tester:assertErrorPattern(function() torch.histogramdd(x, 2, { range = { 1, 0, 0, 1 } }) end,
    'min should not exceed max, got min 1 and max 0 for dim 1')
  tester:assertErrorPattern(function() torch.histogramdd(x, 2, { range = { 0, 1 } }) end, 'range must hold 4 numbers')
  tester:assertErrorPattern(function() torch.histogramdd(x, 2, { range = { 0, 1, 0, math.huge } }) end, 'is not finite for dim 2')
  tester:assertErrorPattern(function() torch.histogramdd(x, { D({ 0, 1, 0.5 }), D({ 0, 1 }) }) end,
    'the edges in bins%[1%] must be increasing')
  tester:assertErrorPattern(function() torch.histogramdd(x, 2, { weight = D({ 1 }) }) end, 'weight must be a tensor of 2 elements')
  tester:assertErrorPattern(function() torch.histogramdd(x, 2, { density = 1 }) end, 'density must be a boolean')
  tester:assertErrorPattern(function() torch.histogramdd(x, 2, { bins = 1 }) end, "unknown option 'bins'")
end

-- ---- svdLowrank / pcaLowrank ------------------------------------------------------------------

-- A (m x n) with the given singular values and random orthonormal factors.
local function with_spectrum(m, n, s)
  local k = #s
  local U = torch.linalg.qr(torch.randn(m, k))
  local V = torch.linalg.qr(torch.randn(n, k))
  return torch.matmul(torch.cmul(U, D(s):view(1, k):expand(m, k)), V:t())
end
local function reconstruct(U, S, V)
  local k = S:size(S:dim())
  return torch.matmul(torch.cmul(U, S:view(-1, 1, k):expandAs(U:view(-1, U:size(U:dim() - 1), k)):viewAs(U)),
    V:transpose(V:dim() - 1, V:dim()))
end
local function orthonormal(Q, name)
  local I = torch.matmul(Q:transpose(Q:dim() - 1, Q:dim()), Q)
  tester:assertTensorEq(I, torch.eye(Q:size(Q:dim())):expandAs(I), 1e-10, name .. ' orthonormal')
end

function tests.svdLowrankExactForLowRank()
  torch.manualSeed(42)
  -- both of PyTorch's branches: the transpose's basis (n > q) and A's own (n <= q, m >= n)
  for _, c in ipairs({ { 20, 10, 5 }, { 10, 20, 5 }, { 20, 4, 4 } }) do
    local m, n, q = c[1], c[2], c[3]
    local A = with_spectrum(m, n, { 5, 2, 0.5 })
    local U, S, V = torch.svdLowrank(A, q)
    tester:assertTableEq(U:size():totable(), { m, q }, 'U size')
    tester:assertTableEq(S:size():totable(), { q }, 'S size')
    tester:assertTableEq(V:size():totable(), { n, q }, 'V size')
    tester:assertTensorEq(reconstruct(U, S, V), A, 1e-10, 'reconstruction ' .. m .. 'x' .. n)
    tester:assertTensorEq(S:narrow(1, 1, 3), D({ 5, 2, 0.5 }), 1e-10, 'singular values')
    orthonormal(U, 'U')
    orthonormal(V, 'V')
  end
end

function tests.svdLowrankApproximatesTopTriplets()
  torch.manualSeed(7)
  local s = {}
  for i = 1, 30 do s[i] = 10 ^ (1 - i / 3) end
  local A = with_spectrum(60, 40, s)
  local U, S, V = torch.svdLowrank(A, 8, 3)
  local U0, S0, V0h = torch.linalg.svd(A, false)
  tester:assertTensorEq(S:narrow(1, 1, 4), S0:narrow(1, 1, 4), 1e-8 * S0[1], 'top singular values')
  -- the top left/right singular subspaces agree: projectors onto the first 4 vectors
  local function proj(Q) return torch.matmul(Q, Q:t()) end
  tester:assertTensorEq(proj(U:narrow(2, 1, 4)), proj(U0:narrow(2, 1, 4)), 1e-6, 'left subspace')
  tester:assertTensorEq(proj(V:narrow(2, 1, 4)), proj(V0h:t():narrow(2, 1, 4)), 1e-6, 'right subspace')
  -- the residual is the best rank-8 one's within the sketch's slack
  local best = math.sqrt(torch.pow(S0:narrow(1, 9, 22), 2):sum())
  local err = torch.norm(A - reconstruct(U, S, V))
  tester:assert(err < 1.5 * best, string.format('residual %.3g vs best %.3g', err, best))
end

function tests.svdLowrankBatchedAndM()
  torch.manualSeed(3)
  local A = torch.stack({ with_spectrum(15, 8, { 3, 1 }), with_spectrum(15, 8, { 4, 2 }) }, 1)
  local U, S, V = torch.svdLowrank(A, 4)
  tester:assertTableEq(U:size():totable(), { 2, 15, 4 })
  tester:assertTensorEq(reconstruct(U, S, V), A, 1e-10, 'batched reconstruction')
  tester:assertTensorEq(S:narrow(2, 1, 2), D({ { 3, 1 }, { 4, 2 } }), 1e-10, 'batched values')
  -- with M: the SVD of A - M
  local B = with_spectrum(12, 9, { 2, 1.5 })
  local M = torch.randn(12, 9)
  U, S, V = torch.svdLowrank(B + M, { q = 3, M = M })
  tester:assertTensorEq(reconstruct(U, S, V), B, 1e-10, 'A - M')
  tester:asserteq(torch.svdLowrank(torch.randn(10, 7):float(), 3):type(), 'torch.FloatTensor')
end

function tests.pcaLowrank()
  torch.manualSeed(11)
  local X = with_spectrum(50, 6, { 4, 1, 0.3 }) + torch.Tensor({ 1, -2, 3, 0.5, 0, 7 }):view(1, 6):expand(50, 6)
  local Xc = X - torch.mean(X, 1):expandAs(X)
  local U, S, V = torch.pcaLowrank(X, 3)
  tester:assertTensorEq(reconstruct(U, S, V), Xc, 1e-10, 'centered reconstruction')
  tester:assertTensorEq(S, torch.linalg.svdvals(Xc):narrow(1, 1, 3), 1e-10, 'principal values')
  tester:asserteq(select(2, torch.pcaLowrank(X)):nElement(), 6, 'q defaults to min(6, m, n)')
  -- center = false is svdLowrank with the same draws
  torch.manualSeed(5)
  local _, S1 = torch.pcaLowrank(X, 3, false)
  torch.manualSeed(5)
  local _, S2 = torch.svdLowrank(X, 3)
  tester:assertTensorEq(S1, S2, 0, 'center = false')
end

function tests.lowrankGradcheck()
  local A = with_spectrum(7, 5, { 3, 2, 1, 0.5, 0.2 }):requiresGrad()
  local function f(a)
    torch.manualSeed(2)
    local U, S, V = torch.svdLowrank(a, 5)
    return reconstruct(U, S, V)
  end
  tester:assert(torch.autograd.gradcheck(f, { A }), 'svdLowrank')
  tester:assert(torch.autograd.gradcheck(function(a)
    torch.manualSeed(2)
    return select(2, torch.pcaLowrank(a, 3))
  end, { A }), 'pcaLowrank values')
end

function tests.lowrankErrors()
  local A = torch.randn(5, 4)
  tester:assertErrorPattern(function() torch.svdLowrank(A) end, '%[svdLowrank%] q must be an integer in %[1, 4%], got 6')
  tester:assertErrorPattern(function() torch.svdLowrank(A, 2, -1) end, 'niter must be an integer in %[0')
  tester:assertErrorPattern(function() torch.svdLowrank(torch.randn(5), 2) end, 'A must be a matrix or a batch')
  tester:assertErrorPattern(function() torch.svdLowrank(A, 2, 1, torch.randn(4, 4)) end, "M must be of A's matrix size 5x4")
  tester:assertErrorPattern(function() torch.svdLowrank(torch.LongTensor(5, 4), 2) end, 'A must be a Float or Double tensor')
  tester:assertErrorPattern(function() torch.pcaLowrank(A, 5) end, '%[pcaLowrank%] q must be an integer in %[1, 4%], got 5')
  tester:assertErrorPattern(function() torch.pcaLowrank(A, 2, 'yes') end, 'center must be a boolean')
  tester:assertErrorPattern(function() torch.pcaLowrank('A') end, 'expected A to be a tensor, got string')
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  local x = gen({ 40, 3 }, 0.3)
  local h, e = torch.histogramdd(x:cuda(), { 2, 3, 4 })
  tester:assert(h:isCuda(), 'histogramdd stays on the GPU')
  same(h:double(), H.counts.hist, 1e-12, 'cuda hist')
  same(e[3]:double(), H.counts.edges[3], 1e-14, 'cuda edges')
  torch.manualSeed(1)
  local A = with_spectrum(20, 10, { 5, 2, 0.5 })
  local U, S, V = torch.svdLowrank(A:cuda(), 5)
  tester:assertTensorEq(reconstruct(U, S, V):double(), A, 1e-9, 'cuda svdLowrank')
end

tester:add(tests)
tester:run()
