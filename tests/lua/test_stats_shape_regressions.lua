-- Review regressions of the statistics and shape functions (lua/torch/stats.lua, stats_more.lua,
-- histogramdd.lua): each test failed before its fix. Values are PyTorch 1.13's (float64).
local tester = torch.Tester()
local tests = torch.TestSuite()
local D, L = torch.DoubleTensor, torch.LongTensor

local function flat(t) return t:double():contiguous():view(t:nElement()):totable() end

-- Note [Unknown options] (stats_more.lua): a misspelt option or a Lua list where a tensor
-- belongs used to be dropped, giving a plausible but wrong result with no error.
function tests.misspeltOptionsAreErrors()
  local x = D({ 1, 2, 3 })
  -- histogram's keyword is weight; {weights = w} counted every element once: {1, 2}
  tester:assertErrorPattern(function() torch.histogram(x, 2, { weights = D({ 1, 1, 5 }) }) end,
    "%[histogram%] unknown option 'weights' %(expected range, weight, density%)")
  local h = torch.histogram(x, 2, { weight = D({ 1, 1, 5 }) })
  tester:eq(flat(h), { 1, 6 }, 'histogram weight (PyTorch 1.13: [1, 6])')
  -- bincount with weights as a Lua list returned plain counts {1, 2}
  tester:assertErrorPattern(function() torch.bincount(L({ 0, 1, 1 }), { 0.5, 1, 2 }) end,
    '%[bincount%] options must be given by name')
  tester:assertErrorPattern(function() torch.bincount(L({ 0, 1, 1 }), { weight = D({ 1, 1, 1 }) }) end,
    "%[bincount%] unknown option 'weight'")
  tester:assertErrorPattern(function() torch.bincount(L({ 0, 1 }), { weights = D({ 1, 1 }) }, 5) end,
    '%[bincount%] options given in a table take no further arguments')
  tester:eq(flat(torch.bincount(L({ 0, 1, 1 }), { weights = D({ 0.5, 1, 2 }), minlength = 3 })), { 0.5, 3, 0 })
  -- cov's keyword is aweights; {aweight = a} gave the unweighted covariance
  local y = D({ { 1, 5, 3, 9 }, { 7, 2, 2, 4 } })
  tester:assertErrorPattern(function() torch.cov(y, { aweight = D({ 1, 1, 1, 5 }) }) end,
    "%[cov%] unknown option 'aweight'")
  -- quantile {dims = 2} reduced every element
  tester:assertErrorPattern(function() torch.quantile(y, 0.5, { dims = 2 }) end, "%[quantile%] unknown option 'dims'")
  tester:eq(flat(torch.quantile(y, 0.5, { dim = 2 })), { 4, 3 }, 'quantile dim 2 (PyTorch: [4, 3])')
  -- trapezoid with sample points as a Lua list integrated with dx = 1; {dims = 1} along the last dim
  tester:assertErrorPattern(function() torch.trapezoid(x, { 0, 1, 3 }) end,
    '%[trapezoid%] options must be given by name')
  tester:assertErrorPattern(function() torch.trapezoid(y, { dims = 1 }) end, "%[trapezoid%] unknown option 'dims'")
  tester:assertErrorPattern(function() torch.trapezoid(y, { dx = 2 }, 1) end,
    '%[trapezoid%] options given in a table take no further arguments')
  tester:eq(flat(torch.trapezoid(y, { dx = 2, dim = 1 })), { 8, 7, 5, 13 },
    'trapezoid dx = 2 along dim 1 (PyTorch 1.13)')
  tester:assertErrorPattern(function() torch.cdist(y, y, { P = 1 }) end, "%[cdist%] unknown option 'P'")
  tester:assertErrorPattern(function() torch.cosineSimilarity(y, y, { dims = 1 }) end,
    "%[cosineSimilarity%] unknown option 'dims'")
  tester:assertErrorPattern(function() torch.pairwiseDistance(y, y, { keepDim = true }) end,
    "%[pairwiseDistance%] unknown option 'keepDim'")
end

-- The same for the reductions of stats.lua: {2, keepdim = true} reduced every element and
-- {dim = 2, keepDim = true} dropped the dim.
function tests.misspeltReductionOptionsAreErrors()
  local y = D({ { 1, 5, 3, 9 }, { 7, 2, 2, 4 } })
  tester:assertErrorPattern(function() torch.amax(y, { 2, keepdim = true }) end, '%[amax%] options must be given by name %({dim = ...}%), got a list entry %[1%] = number')
  tester:assertErrorPattern(function() torch.nansum(y, { dim = 2, keepDim = true }) end,
    "%[nansum%] unknown option 'keepDim'")
  tester:assertErrorPattern(function() torch.amax(y, { dim = 2 }, true) end,
    '%[amax%] options given in a table take no further arguments')
  tester:eq(torch.amax(y, { dim = 2, keepdim = true }):size():totable(), { 2, 1 })
  tester:assertErrorPattern(function() torch.nanmedian(y, { dim = 2, keep = true }) end,
    "%[nanmedian%] unknown option 'keep'")
  tester:assertErrorPattern(function() torch.countNonzero(y, { dim = 2, keepdim = true }) end,
    "%[countNonzero%] unknown option 'keepdim'")
  -- varMean: {correction = 0, keepDim = true} kept no dim; a dim in the table after a
  -- positional one was ignored; an unbiased flag after the table was ignored
  tester:assertErrorPattern(function() torch.varMean(y, 2, { correction = 0, keepDim = true }) end,
    "%[varMean%] unknown option 'keepDim'")
  tester:assertErrorPattern(function() torch.varMean(y, 2, { dim = 1 }) end, "%[varMean%] unknown option 'dim'")
  tester:assertErrorPattern(function() torch.stdMean(y, { dim = 2, correction = 0 }, true) end,
    '%[stdMean%] options given in a table take no further arguments')
  tester:assertErrorPattern(function() torch.stdMean(y, 2, { correction = 0 }, true) end,
    '%[stdMean%] options given in a table take no further arguments')
  local v, m = torch.varMean(y, { dim = 2, correction = 0, keepdim = true })
  tester:eq(flat(v), { 8.75, 4.1875 }, 'varMean correction 0 (PyTorch 1.13)')
  tester:eq(v:size():totable(), { 2, 1 })
  tester:eq(flat(m), { 4.5, 3.75 })
end

-- histogramdd of no points spanned [-0.5, 0.5] per dim; PyTorch (and torch.histogram) use [0, 1].
function tests.histogramddEmptyInputRange()
  local h, e = torch.histogramdd(D(0, 2), 2)
  tester:eq(flat(h), { 0, 0, 0, 0 })
  tester:eq(flat(e[1]), { 0, 0.5, 1 }, 'PyTorch 1.13: [0, 0.5, 1]')
  tester:eq(flat(e[2]), { 0, 0.5, 1 })
  local _, e1 = torch.histogram(D(0), 2)
  tester:eq(flat(e1), flat(e[1]), 'as torch.histogram')
end

-- One edge (no bin) gave an empty 0 x 1 histogram; PyTorch and torch.histogram refuse it.
function tests.histogramddOneEdgeIsAnError()
  local pts = D({ { 0, 0 }, { 1, 1 } })
  tester:assertErrorPattern(function() torch.histogramdd(pts, { D({ 0 }), D({ -1, 2 }) }) end,
    '%[histogramdd%] bins%[1%] must be a 1%-D tensor of at least 2 edges')
  local h = torch.histogramdd(pts, { D({ 0, 2 }), D({ -1, 2 }) })
  tester:eq(flat(h), { 2 })
end

-- The equal-width edges came from torch.linspace in the default type (Float) and were then
-- converted: for a DoubleTensor near 1e10 all three edges were 1e10 and a point was lost, and
-- edges of 0.1 .. 0.3 were off by 5e-9. Edges are now made in x's precision (PyTorch 1.13's).
function tests.histogramddEdgesInInputPrecision()
  tester:asserteq(torch.getdefaulttensortype(), 'torch.FloatTensor', 'the bug needs the Float default')
  local h, e = torch.histogramdd(D({ { 1e10, 1 }, { 1e10 + 1, 2 } }), 2)
  tester:eq(flat(h), { 1, 0, 0, 1 }, 'PyTorch 1.13: [[1, 0], [0, 1]]')
  tester:eq(flat(e[1]), { 1e10, 1e10 + 0.5, 1e10 + 1 })
  local _, e2 = torch.histogramdd(D({ { 0.1 }, { 0.2 }, { 0.3 } }), 3)
  tester:eq(flat(e2[1]), { 0.1, 0.16666666666666669, 0.23333333333333334, 0.3 }, 'PyTorch 1.13 float64 edges')
  local _, e3 = torch.histogramdd(torch.FloatTensor({ { 0.1 }, { 0.2 }, { 0.3 } }), 3)
  tester:asserteq(e3[1]:type(), 'torch.FloatTensor')
  tester:eq(flat(e3[1]), { 0.10000000149011612, 0.1666666716337204, 0.23333334922790527, 0.30000001192092896 },
    'PyTorch 1.13 float32 edges')
end

-- Note [histogramdd devices]: the mask and bin numbers came from x:byte() and x:long(), which
-- move a CUDA tensor to the CPU. On the CPU the values must not change; on CUDA the result must
-- match the CPU's (PyTorch 1.13's values for these points).
function tests.histogramddCountsAndDevices()
  local pts = D({ { 0, 0 }, { 1, 1 }, { 1, 1 }, { 2, 2 }, { 0.5, 1.5 }, { 2, 0 }, { 3, -1 } })
  local h, e = torch.histogramdd(pts, { 2, 3 })
  tester:eq(flat(h), { 0, 1, 3, 1, 1, 1 }, 'PyTorch 1.13')
  tester:eq(flat(e[2]), { -1, 0, 1, 2 })
  local hw = torch.histogramdd(pts, { D({ 0, 1, 3 }), D({ -1, 0.5, 2 }) },
    { weight = torch.range(1, 7), density = true })
  local want = { 0.023809523809524, 0.11904761904762, 0.1547619047619, 0.10714285714286 }
  for i, w in ipairs(flat(hw)) do tester:assertalmosteq(w, want[i], 1e-12, 'density ' .. i) end
  if not torch.cuda.isAvailable() then return end
  local hc, ec = torch.histogramdd(pts:cuda(), { 2, 3 })
  tester:eq(flat(hc), flat(h), 'cuda counts')
  tester:eq(flat(ec[2]), flat(e[2]), 'cuda edges')
  local hcw = torch.histogramdd(pts:cuda(), { D({ 0, 1, 3 }):cuda(), D({ -1, 0.5, 2 }):cuda() },
    { weight = torch.range(1, 7):cuda(), density = true })
  for i, w in ipairs(flat(hcw)) do tester:assertalmosteq(w, want[i], 1e-6, 'cuda density ' .. i) end
end

-- Note [trapezoid broadcasting]: sample points of size 1 x n for y of size m x n were refused
-- ("must be 1-D or have y's size"); PyTorch broadcasts them.
function tests.trapezoidBroadcastsSamplePoints()
  local y = D({ { 1, 5, 3, 9 }, { 7, 2, 2, 4 } })
  tester:eq(flat(torch.trapezoid(y, D({ { 0, 1, 3, 6 } }))), { 29, 17.5 }, 'PyTorch 1.13: [29, 17.5]')
  tester:eq(flat(torch.cumulativeTrapezoid(y, D({ { 0, 1, 3, 6 } }))), { 3, 11, 29, 4.5, 8.5, 17.5 }, 'PyTorch 1.13')
  tester:eq(flat(torch.trapezoid(y, D({ { 0 }, { 2 } }), 1)), { 8, 7, 5, 13 }, 'PyTorch 1.13, along dim 1')
  tester:assertErrorPattern(function() torch.trapezoid(y, D({ { 0, 1, 3 } })) end, "%[trapezoid%] x of size 1x3")
  local ok = torch.autograd.gradcheck(function(a, b) return torch.trapezoid(a, b) end,
    { y:clone():requiresGrad(), D({ { 0, 1, 3, 6 } }):requiresGrad() })
  tester:assert(ok, 'gradcheck through the broadcast sample points')
end

-- svdLowrank {m = M} ignored M (the SVD of A itself, not A - M); pcaLowrank {centre = false}
-- centered anyway; diagonal {dim_1 = 2} took the diagonal of dims 1 and 2.
function tests.lowrankAndDiagonalMisspeltOptions()
  torch.manualSeed(5)
  local A = torch.randn(6, 2):double() * torch.randn(2, 4):double()  -- exactly rank 2 in double
  local M = D(6, 4):fill(1)
  tester:assertErrorPattern(function() torch.svdLowrank(A + M, { q = 2, m = M }) end,
    "%[svdLowrank%] unknown option 'm'")
  tester:assertErrorPattern(function() torch.svdLowrank(A, { q = 2 }, 3) end,
    '%[svdLowrank%] options given in a table take no further arguments')
  tester:assertErrorPattern(function() torch.pcaLowrank(A, { q = 2, centre = false }) end,
    "%[pcaLowrank%] unknown option 'centre'")
  local U, S, V = torch.svdLowrank(A + M, { q = 2, M = M })
  tester:assertTensorEq(U * torch.diag(S) * V:t(), A, 1e-10, 'A - M recovered with M')
  local x = torch.range(1, 8):view(2, 2, 2)
  tester:assertErrorPattern(function() torch.diagonal(x, { dim_1 = 2, dim2 = 3 }) end,
    "%[diagonal%] unknown option 'dim_1'")
  tester:eq(flat(torch.diagonal(x, { dim1 = 2, dim2 = 3 })), { 1, 4, 5, 8 }, 'PyTorch 1.13: diagonal(x, 0, 1, 2)')
end

-- swapaxes passed its dims to transpose unchecked, so a bad dim's error named transpose.
function tests.swapaxesErrorsNameSwapaxes()
  local x = D(2, 3)
  tester:assertErrorPattern(function() torch.swapaxes(x, 1, 3) end, '^[^%[]*%[swapaxes%] dimension 3 out of range')
  tester:assertErrorPattern(function() torch.swapdims(x, 0, 1) end, '%[swapaxes%] dimension 0')
  tester:eq(torch.swapaxes(x, -1, 1):size():totable(), { 3, 2 })
  local z = D({ 1 }):view({})
  tester:eq(torch.swapaxes(z, 1, 1):dim(), 0, '0-dim, as PyTorch')
end

-- repeatInterleave with counts in a Lua table built a CPU LongTensor, which the C op refuses
-- beside a CUDA x (check_same_device); the counts now follow x. PyTorch 1.13's values.
function tests.repeatInterleaveTableCountsFollowTheDevice()
  local x = D({ { 1, 2 }, { 3, 4 } })
  tester:eq(flat(torch.repeatInterleave(x, { 1, 2 }, 1)), { 1, 2, 3, 4, 3, 4 })
  if not torch.cuda.isAvailable() then return end
  tester:eq(flat(torch.repeatInterleave(x:cuda(), { 1, 2 }, 1)), { 1, 2, 3, 4, 3, 4 }, 'cuda')
end

-- The gradient of a NaN quantile reaches the NaN element PyTorch 1.13 picks (the last one sorted;
-- nanquantile of all NaN: the first), where a NaN constant gave the slice none (core/ops/quantile.cpp).
function tests.quantileGradientsThroughNaN()
  local q = torch.DoubleTensor({ { 1, 0 / 0, 0 / 0 }, { 1, 2, 3 } }):requiresGrad()
  torch.quantile(q, torch.DoubleTensor({ 0.2, 0.7 }), 2):sum():backward()
  tester:eq(flat(q.grad), { 0, 0, 2, 0.6, 1, 0.4 }, 'quantile (PyTorch: [[0, 0, 2], [0.6, 1, 0.4]])', 1e-12)
  local n = torch.DoubleTensor({ { 0 / 0, 0 / 0 }, { 1, 2 } }):requiresGrad()
  torch.nanquantile(n, torch.DoubleTensor({ 0.2, 0.7 }), 2):sum():backward()
  tester:eq(flat(n.grad), { 2, 0, 1.1, 0.9 }, 'nanquantile (PyTorch: [[2, 0], [1.1, 0.9]])', 1e-12)
end

-- torch.cat and torch.stack give empty inputs an empty gradient (PyTorch 1.13); e.grad stayed nil.
function tests.emptyInputsOfCatGetAGradient()
  local y, e = torch.ones(2, 3):double():requiresGrad(), torch.zeros(0, 3):double():requiresGrad()
  torch.cat({ y, e }, 1):sum():backward()
  tester:assert(e.grad ~= nil, 'cat: e.grad')
  tester:eq(e.grad:size():totable(), { 0, 3 })
  local e2 = torch.zeros(0):double():requiresGrad()
  torch.stack({ e2, e2 }):sum():backward()
  tester:assert(e2.grad ~= nil and e2.grad:dim() == 1 and e2.grad:nElement() == 0, 'stack: e2.grad')
end

tester:add(tests)
tester:run()
