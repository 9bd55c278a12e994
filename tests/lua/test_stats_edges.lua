-- Review regressions of the statistics functions (lua/torch/stats.lua, stats_more.lua): each
-- test failed before its fix. Values from PyTorch 1.13 (float64).
require 'nn'
local tester = torch.Tester()
local R = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/ref.lua')
local tests = torch.TestSuite()
local D = torch.DoubleTensor

local function flat(t) return t:double():contiguous():view(t:nElement()):totable() end
local function assert_near(got, want, tol, what)
  local g = flat(got)
  tester:asserteq(#g, #want, what .. ': element count')
  for i = 1, #want do
    local ok = g[i] == want[i] or math.abs(g[i] - want[i]) <= tol * math.max(1, math.abs(want[i]))
    if not ok then
      tester:assert(false, string.format('%s: element %d is %s, expected %s', what, i, tostring(g[i]), tostring(want[i])))
      return
    end
  end
  tester:assert(true)
end

-- A value of 1e12 made bincount try to allocate 8 TB (an [alloc] error at best); the limit of
-- 2^40 let 1e12 through.
function tests.bincountHugeValue()
  tester:assertErrorPattern(function() torch.bincount(torch.LongTensor({ 1, 1e12 })) end,
    '%[bincount%] largest value 1000000000000 is too large')
  tester:assertErrorPattern(function() torch.bincount(torch.LongTensor({ 1 }), nil, 1e12) end,
    '%[bincount%] minlength 1000000000000 is too large')
  tester:eq(flat(torch.bincount(torch.LongTensor({ 3 }), nil, 5)), { 0, 0, 0, 1, 0 })
end

-- cdist with 0 < p < 1 had a NaN gradient wherever two points share a coordinate (norm's
-- p |d|^(p-1) is 0 * inf at d = 0); PyTorch gives 0 there.
function tests.cdistSmallPGradientAtEqualCoordinates()
  local x = D({ { 0, 0, 1 }, { 0, 1, 0 } }):requiresGrad()
  local y = D({ { 0, 1, 0 } })
  local d = torch.cdist(x, y, 0.5)
  assert_near(d, { 4, 0 }, 1e-12, 'cdist p = 0.5')
  d:sum():backward()
  assert_near(x.grad, { 0, -2, 2, 0, 0, 0 }, 1e-12, 'cdist p = 0.5 gradient')
  local z = D({ { 0, 0 }, { 0, 2 }, { 1, 3 } }):requiresGrad()
  torch.pdist(z, 0.5):sum():backward()
  -- PyTorch 1.13: torch.pdist(z, 0.5).sum().backward()
  assert_near(z.grad, { -2.732050807568877, -2.5773502691896257, -2, -1, 4.732050807568877, 3.5773502691896257 },
    1e-12, 'pdist p = 0.5 gradient')
  local ok, err = pcall(torch.autograd.gradcheck, function(a, b) return torch.cdist(a, b, 0.7) end,
    { D(3, 4):uniform(-1, 1):requiresGrad(), D(2, 4):uniform(-1, 1):requiresGrad() })
  tester:assert(ok and err, 'cdist p = 0.7 gradcheck: ' .. tostring(err))
end

-- torch.cosineSimilarity divided by the clamped norms with a where (the gradient of a near-zero
-- row differed from PyTorch's, whose eps^2 clamp of the squared norms is invisible to the
-- gradient), took integer tensors PyTorch refuses, and duplicated nn.functional's.
function tests.cosineSimilarityMatchesPyTorchAndNn()
  local x = D({ { 1e-9, 2e-9, 0 }, { 0, 0, 0 }, { 1, 2, 3 } }):requiresGrad()
  local y = D({ { 1, 0, 1 }, { 1, 1, 1 }, { 1, 1, 0 } })
  torch.cosineSimilarity(x, y):sum():backward()
  assert_near(x.grad, { 70003571.33746819, -1414213.5623730947, 70710678.11865474,
                        57735026.91896257, 57735026.91896257, 57735026.91896257,
                        0.14848604296791068, 0.10798984943120776, -0.12148858061010873 }, 1e-9, 'gradient')
  local a, b = D(4, 5):uniform(-1, 1), D(5):uniform(-1, 1)
  tester:eq(flat(torch.cosineSimilarity(a, b)), flat(nn.functional.cosineSimilarity(a, b)), 'torch and nn agree')
  tester:eq(flat(torch.cosineSimilarity(a, b, 1, 0.5)), flat(nn.functional.cosineSimilarity(a, b, 1, 0.5)))
  tester:assertErrorPattern(function() torch.cosineSimilarity(torch.LongTensor({ 1, 2 }), torch.LongTensor({ 1, 2 })) end,
    '%[cosineSimilarity%] expected floating%-point tensors')
  local p1, p2 = torch.pairwiseDistance(a, b, 3), nn.functional.pairwiseDistance(a, b, 3)
  tester:eq(flat(p1), flat(p2), 'pairwiseDistance: torch and nn agree')
end

-- One bin edge is no bin (PyTorch: "bins must be > 0"); it returned an empty histogram.
function tests.histogramOneEdge()
  tester:assertErrorPattern(function() torch.histogram(torch.Tensor({ 1, 2 }), torch.Tensor({ 1 })) end,
    '%[histogram%] bin edges must be a 1%-D tensor with at least two elements')
  local h, e = torch.histogram(torch.Tensor({ 1, 2 }), torch.Tensor({ 1, 3 }))
  tester:eq(flat(h), { 2 })
  tester:eq(flat(e), { 1, 3 })
end

-- quantile/nanquantile with q given as numbers built q on the CPU, so every CUDA input failed
-- with "[quantile] expected all tensors on the same device" (runs where a GPU is present).
function tests.quantileNumberQOnCuda()
  if R.no_cuda() then return end
  local x = D({ { 1, 2, 3 }, { 4, 5, 7 } })
  local g = x:cuda()
  tester:eq(flat(torch.quantile(g, 0.5, 2)), flat(torch.quantile(x, 0.5, 2)))
  tester:eq(flat(torch.nanquantile(g, { 0.25, 0.75 }, 1)), flat(torch.nanquantile(x, { 0.25, 0.75 }, 1)))
  tester:asserteq(torch.quantile(g, 0.3), torch.quantile(x, 0.3))
  tester:assertErrorPattern(function() torch.quantile(g, D({ 0.5 })) end, '%[quantile%] expected all tensors on the same device')
end

-- p = 2 with more than 25 rows goes through a matrix product (Note [Euclidean cdist through a
-- matrix product]): the same distances as the loop to rounding, batch dims broadcast, and equal
-- points at distance ~0 (sqrt of the 1e-30 clamp) with a finite gradient
function tests.cdistEuclideanByMatrixProduct()
  torch.manualSeed(5)
  local a, b = torch.randn(30, 7):double(), torch.randn(40, 7):double()
  local d = torch.cdist(a, b)
  tester:eq(d:size():totable(), { 30, 40 })
  local want = {}
  for i = 1, 30 do
    for j = 1, 40 do want[#want + 1] = math.sqrt((a[i] - b[j]):pow(2):sum()) end
  end
  assert_near(d, want, 1e-12, 'cdist by mm')
  local batched = torch.cdist(torch.randn(3, 1, 30, 4):double(), torch.randn(2, 26, 4):double())
  tester:eq(batched:size():totable(), { 3, 2, 30, 26 })
  local x = torch.randn(30, 3):double():requiresGrad()
  local y = x:detach():clone()
  torch.cdist(x, y):sum():backward()
  tester:assert(x.grad:ne(x.grad):sum() == 0, 'no NaN in the gradient at equal points')
  tester:assertlt(torch.cdist(x:detach(), y):diag():abs():max(), 1e-6)  -- sqrt(1e-30) and rounding
  local ok, err = pcall(torch.autograd.gradcheck, function(u, v) return torch.cdist(u, v) end,
    { torch.randn(26, 3):double():requiresGrad(), torch.randn(4, 3):double():requiresGrad() })
  tester:assert(ok and err, 'cdist by mm gradcheck: ' .. tostring(err))
end

tester:add(tests)
tester:run()
