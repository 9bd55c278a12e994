-- PyTorch's torch.gradient, vander, msort, asStrided, the view scatters and indexReduce against
-- PyTorch 1.13's values (pasted), closed forms and gradchecks in double; errors; CUDA vs CPU.
local tester = torch.Tester()
local tests = torch.TestSuite()

local function close(got, expected, tol, name)
  local flat = got:contiguous():view(-1)
  tester:asserteq(flat:nElement(), #expected, name .. ': element count')
  for i = 1, #expected do
    tester:assert(math.abs(flat[i] - expected[i]) <= tol * math.max(1, math.abs(expected[i])),
      string.format('%s element %d: got %.17g, expected %.17g', name, i, flat[i], expected[i]))
  end
end
local function D(t) return torch.DoubleTensor(t) end
local F = D({ { 1, 2, 4, 8, 10 }, { 3, 5, 9, 11, 20 }, { 0, 1, 1, 2, 3 } })
local C0, C1 = D({ 0, 1, 3 }), D({ 0, 0.5, 1.5, 2, 4 })

-- PyTorch 1.13's torch.gradient of F: {dim 1, dim 2} per case.
local GRADIENTS = {
  { {}, { { 2, 3, 5, 3, 10, -0.5, -0.5, -1.5, -3, -3.5, -3, -4, -8, -9, -17 },
      { 1, 1.5, 3, 3, 2, 2, 3, 3, 5.5, 9, 1, 0.5, 0.5, 1, 1 } } },
  { { spacing = { 2.0, 0.5 } }, { { 1, 1.5, 2.5, 1.5, 5, -0.25, -0.25, -0.75, -1.5, -1.75, -1.5, -2, -4, -4.5, -8.5 },
      { 2, 3, 6, 6, 4, 4, 6, 6, 11, 18, 2, 1, 1, 2, 2 } } },
  { { spacing = { C0, C1 } }, { { 2, 3, 5, 3, 10, 0.8333333333333334, 1.3333333333333335, 2, 0.5000000000000002,
      3.833333333333334, -1.5, -2, -4, -4.5, -8.5 }, { 2, 2, 5.999999999999999, 6.6, 1, 4, 4, 4, 4.1, 4.5, 2,
      1.3333333333333333, 1.3333333333333333, 1.7, 0.5 } } },
  { { edgeOrder = 2 }, { { 4.5, 6.5, 11.5, 9, 23.5, -0.5, -0.5, -1.5, -3, -3.5, -5.5, -7.5, -14.5, -15, -30.5 },
      { 0.5, 1.5, 3, 3, 1, 1, 3, 3, 5.5, 12.5, 1.5, 0.5, 0.5, 1, 1 } } },
  { { spacing = { 2.0, 0.5 }, edgeOrder = 2 }, { { 2.25, 3.25, 5.75, 4.5, 11.75, -0.25, -0.25, -0.75, -1.5, -1.75,
      -2.75, -3.75, -7.25, -7.5, -15.25 }, { 1, 3, 6, 6, 2, 2, 6, 6, 11, 25, 3, 1, 1, 2, 2 } } },
  { { spacing = { C0, C1 }, edgeOrder = 2 }, { { 3.166666666666667, 4.666666666666667, 8.000000000000002,
      5.500000000000001, 16.166666666666668, 0.8333333333333334, 1.3333333333333335, 2, 0.5000000000000002,
      3.833333333333334, -3.8333333333333335, -5.333333333333334, -10, -9.500000000000002, -20.833333333333336 },
      { 2, 2, 5.999999999999999, 6.6, -4.6, 4, 4, 4, 4.1, 4.9, 2.6666666666666665, 1.3333333333333333,
        1.3333333333333333, 1.7, -0.6999999999999997 } } },
}

function tests.gradient()
  for k, case in ipairs(GRADIENTS) do
    local g = torch.gradient(F, case[1])
    tester:asserteq(#g, 2, 'one tensor per dim')
    close(g[1], case[2][1], 1e-14, 'gradient case ' .. k .. ' dim 1')
    close(g[2], case[2][2], 1e-14, 'gradient case ' .. k .. ' dim 2')
  end
  -- one dim; PyTorch 1.13: spacing 3 along dim 2
  local g = torch.gradient(F, { spacing = 3, dim = 2 })
  tester:asserteq(#g, 1)
  -- a negative dim counts from the end (dim -2 differentiated along the last dim)
  close(torch.gradient(F, { dim = -2 })[1], GRADIENTS[1][2][1], 1e-14, 'dim -2')
  close(torch.gradient(F, { spacing = 3, dim = -1 })[1], g[1]:contiguous():view(-1):totable(), 0, 'dim -1')
  close(g[1], { 0.3333333333333333, 0.5, 1, 1, 0.6666666666666666, 0.6666666666666666, 1, 1, 1.8333333333333333, 3,
    0.3333333333333333, 0.16666666666666666, 0.16666666666666666, 0.3333333333333333, 0.3333333333333333 }, 1e-15, 'dim 2')
  -- exact for quadratics with edgeOrder 2 on uneven coordinates: d/dx x^2 = 2x
  local x = D({ 0, 0.3, 1, 1.2, 2.5, 4 })
  close(torch.gradient(torch.cmul(x, x), { spacing = { x }, edgeOrder = 2 })[1], (x * 2):totable(), 1e-13, 'x^2')
  -- integers give the default float type
  tester:asserteq(torch.gradient(torch.LongTensor({ 1, 4, 9 }))[1]:type(), 'torch.FloatTensor')
  -- differentiable in the samples and the coordinates
  local f, c = torch.randn(3, 5):double():requiresGrad(), C1:clone():requiresGrad()
  tester:assert(torch.autograd.gradcheck(function(a, b)
    return torch.gradient(a, { spacing = { b }, dim = 2, edgeOrder = 2 })[1]
  end, { f, c }), 'gradient gradcheck')
end

function tests.vanderAndMsort()
  -- PyTorch 1.13's values
  local v = torch.vander(torch.LongTensor({ 1, 2, 3, 5 }))
  tester:asserteq(v:type(), 'torch.LongTensor')
  close(v, { 1, 1, 1, 1, 8, 4, 2, 1, 27, 9, 3, 1, 125, 25, 5, 1 }, 0, 'vander')
  close(torch.vander(torch.LongTensor({ 1, 2, 3, 5 }), 3, true), { 1, 1, 1, 1, 2, 4, 1, 3, 9, 1, 5, 25 }, 0, 'vander increasing')
  tester:asserteq(torch.vander(D({ 1, 2 }), 0):size(2), 0)
  close(torch.msort(D({ { 3, 1 }, { 1, 2 }, { 2, 0 } })), { 1, 0, 2, 1, 3, 2 }, 0, 'msort')
  local x = D({ 3, 1, 2, 5 }):requiresGrad()
  tester:assert(torch.autograd.gradcheck(torch.msort, { D({ { 3, 1 }, { 1, 2 } }):requiresGrad() }), 'msort gradcheck')
  tester:assert(torch.autograd.gradcheck(function(t) return torch.vander(t, 4) end, { x }), 'vander gradcheck')
end

function tests.asStrided()
  local x = torch.range(1, 6)
  local v = torch.asStrided(x, { 2, 2 }, { 1, 2 })
  close(v, { 1, 3, 2, 4 }, 0, 'asStrided')
  close(torch.asStrided(x, { 2 }, { 2 }, 2), { 2, 4 }, 0, 'asStrided with a 1-based storage offset')
  v[1][1] = 10
  tester:asserteq(x[1], 10, 'a view')
end

function tests.viewScatters()
  local z = torch.zeros(3, 4)
  -- PyTorch 1.13's values
  close(torch.diagonalScatter(z, torch.ones(3)), { 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 0 }, 0, 'diagonalScatter')
  close(torch.diagonalScatter(z, torch.Tensor({ 5, 6, 7 }), 1), { 0, 5, 0, 0, 0, 0, 6, 0, 0, 0, 0, 7 }, 0, 'offset 1')
  close(torch.diagonalScatter(z, torch.Tensor({ 5, 6 }), -1), { 0, 0, 0, 0, 5, 0, 0, 0, 0, 6, 0, 0 }, 0, 'offset -1')
  close(torch.selectScatter(z, torch.Tensor({ 1, 2, 3 }), 2, 3), { 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 3, 0 }, 0, 'selectScatter')
  close(torch.sliceScatter(z, torch.ones(3, 2), 2, 1, 4, 2), { 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0 }, 0, 'sliceScatter step')
  close(torch.sliceScatter(z, torch.ones(1, 4) * 5, { dim = 1, start = 2, stop = 2 }), { 0, 0, 0, 0, 5, 5, 5, 5, 0, 0, 0, 0 },
    0, 'sliceScatter table')
  tester:asserteq(z:sum(), 0, 'x is unchanged')
  -- each equals writing into a clone's view
  local x, s = torch.randn(3, 4, 5):double(), torch.randn(3, 5):double()
  local want = x:clone()
  want:select(2, -1):copy(s)
  close(torch.selectScatter(x, s, 2, -1), want:view(-1):totable(), 0, 'selectScatter vs copy')
  -- negative dims count from the end (dim -2 selected along the last dim)
  local q, qs = torch.randn(3, 3):double(), torch.randn(3):double()
  want = q:clone()
  want:select(1, 2):copy(qs)
  close(torch.selectScatter(q, qs, -2, 2), want:view(-1):totable(), 0, 'selectScatter dim -2')
  want = q:clone()
  want:narrow(1, 2, 1):copy(qs:view(1, 3))
  close(torch.sliceScatter(q, qs:view(1, 3), -2, 2, 2), want:view(-1):totable(), 0, 'sliceScatter dim -2')
  close(torch.sliceScatter(z, torch.ones(3, 2), -1, 1, 4, 2), { 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0 }, 0, 'sliceScatter dim -1')
  -- differentiable in x and src
  local gc = torch.autograd.gradcheck
  local R = function(t) return t:double():requiresGrad() end
  tester:assert(gc(function(a, b) return torch.diagonalScatter(a, b, 1, 2, 3) end, { R(torch.randn(2, 3, 4)), R(torch.randn(2, 3)) }), 'diag gc')
  tester:assert(gc(function(a, b) return torch.selectScatter(a, b, 1, 2) end, { R(torch.randn(3, 2)), R(torch.randn(2)) }), 'select gc')
  tester:assert(gc(function(a, b) return torch.sliceScatter(a, b, 2, 2, 5, 3) end, { R(torch.randn(2, 6)), R(torch.randn(2, 2)) }), 'slice gc')
end

function tests.indexReduce()
  local a = torch.range(1, 12):double():view(3, 4)
  local idx = torch.LongTensor({ 1, 3, 1 })
  local src = D({ { 2, 3, 4, 5 }, { 6, 7, 8, 9 }, { 1, -1, 2, -2 } })
  -- PyTorch 1.13's index_reduce (its float32 mean: 1.3333333730697632, here in double)
  local want = {
    prod = { { 2, -6, 24, -40, 5, 6, 7, 8, 54, 70, 88, 108 }, { 2, -3, 8, -10, 5, 6, 7, 8, 6, 7, 8, 9 } },
    mean = { { 4 / 3, 4 / 3, 3, 7 / 3, 5, 6, 7, 8, 7.5, 8.5, 9.5, 10.5 }, { 1.5, 1, 3, 1.5, 5, 6, 7, 8, 6, 7, 8, 9 } },
    amax = { { 2, 3, 4, 5, 5, 6, 7, 8, 9, 10, 11, 12 }, { 2, 3, 4, 5, 5, 6, 7, 8, 6, 7, 8, 9 } },
    amin = { { 1, -1, 2, -2, 5, 6, 7, 8, 6, 7, 8, 9 }, { 1, -1, 2, -2, 5, 6, 7, 8, 6, 7, 8, 9 } },
  }
  for r, w in pairs(want) do
    close(torch.indexReduce(a, 1, idx, src, r), w[1], 1e-15, 'indexReduce ' .. r)
    close(torch.indexReduce(a, 1, idx, src, r, { includeSelf = false }), w[2], 1e-15, 'indexReduce ' .. r .. ' excluding self')
  end
  close(a:indexReduce(2, torch.LongTensor({ 4, 1 }), D({ { 2, 3 }, { 6, 7 }, { 1, -1 } }), 'mean'),
    { 2, 2, 3, 3, 6, 6, 7, 7, 4, 10, 11, 6.5 }, 1e-15, 'indexReduce along dim 2')
  close(a:indexReduce(-1, torch.LongTensor({ 4, 1 }), D({ { 2, 3 }, { 6, 7 }, { 1, -1 } }), 'mean'),
    { 2, 2, 3, 3, 6, 6, 7, 7, 4, 10, 11, 6.5 }, 1e-15, 'indexReduce along dim -1')
  close(torch.indexReduce(a, -2, idx, src, 'amax'), want.amax[1], 0, 'indexReduce along dim -2')
  local ai = torch.range(1, 12):long():view(3, 4)
  close(torch.indexReduce(ai, 1, idx, src:long(), 'mean'), { 1, 1, 3, 2, 5, 6, 7, 8, 7, 8, 9, 10 }, 0, 'integer mean rounds down')
  tester:assert(torch.autograd.gradcheck(function(x, s) return torch.indexReduce(x, 1, idx, s, 'prod') end,
    { a:clone():requiresGrad(), src:clone():requiresGrad() }), 'indexReduce prod gradcheck')
end

function tests.errors()
  tester:assertErrorPattern(function() torch.gradient(F, { edgeOrder = 3 }) end, '%[gradient%] edgeOrder must be 1 or 2, got 3')
  tester:assertErrorPattern(function() torch.gradient(D({ 1, 2 }), { edgeOrder = 2 }) end, 'needs at least edgeOrder %+ 1 = 3 elements')
  tester:assertErrorPattern(function() torch.gradient(F, { spacing = { 1 } }) end, 'spacing has 1 entries but 2 dims')
  tester:assertErrorPattern(function() torch.gradient(F, { spacing = { D({ 1, 2 }), C1 } }) end, 'coordinates 1 have 2 elements')
  tester:assertErrorPattern(function() torch.vander(F) end, '%[vander%] expected a 1%-D tensor')
  tester:assertErrorPattern(function() torch.selectScatter(torch.zeros(2, 3), torch.ones(2), 1, 1) end,
    '%[selectScatter%] src has size 2 but the view it replaces has size 3')
  tester:assertErrorPattern(function() torch.diagonalScatter(torch.zeros(2, 2), torch.ones(2):long()) end,
    'src is a torch.LongTensor but x is a torch.FloatTensor')
  tester:assertErrorPattern(function() torch.indexReduce(torch.zeros(3), 1, torch.LongTensor({ 1 }), torch.ones(1), 'sum') end,
    "reduce must be 'prod', 'mean', 'amax' or 'amin', got 'sum'")
  tester:assertErrorPattern(function() torch.indexReduce(torch.zeros(3), 1, torch.LongTensor({ 1 }), torch.ones(2), 'prod') end,
    'expected 1 along dim 1 %(the number of indices%)')
  -- named indexReduce (they came from the scatterReduce it runs on)
  tester:assertErrorPattern(function() torch.indexReduce(torch.zeros(3, 2), 1, torch.LongTensor({ 4 }), torch.ones(1, 2), 'amax') end,
    '%[indexReduce%] index 4 is out of range for dim 1 of size 3')
  tester:assertErrorPattern(function() torch.indexReduce(torch.zeros(3), 1, torch.LongTensor({ 0 }), torch.ones(1), 'amax') end,
    '%[indexReduce%] index 0 is out of range')
  tester:assertErrorPattern(function() torch.indexReduce(torch.zeros(3), 1, torch.LongTensor({ 1 }), torch.ones(1):long(), 'amax') end,
    '%[indexReduce%] source is a torch.LongTensor but x is a torch.FloatTensor')
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  local g = torch.gradient(F:cuda(), { spacing = { C0:cuda(), C1:cuda() }, edgeOrder = 2 })
  close(g[2]:double(), GRADIENTS[6][2][2], 1e-13, 'gradient cuda')
  local z = torch.zeros(3, 4):cuda()
  local d = torch.diagonalScatter(z, torch.ones(3):cuda(), 1)
  tester:assert(d:isCuda())
  close(d:float(), { 0, 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1 }, 0, 'diagonalScatter cuda')
  close(torch.sliceScatter(z, torch.ones(3, 2):cuda(), 2, 1, 4, 2):float(), { 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0 }, 0, 'slice cuda')
  local a = torch.range(1, 12):view(3, 4)
  local r = torch.indexReduce(a:cuda(), 1, torch.LongTensor({ 1, 3, 1 }):cuda(), torch.ones(3, 4):cuda() * 2, 'amax')
  close(r:float(), torch.indexReduce(a, 1, torch.LongTensor({ 1, 3, 1 }), torch.ones(3, 4) * 2, 'amax'):view(-1):totable(), 0, 'indexReduce cuda')
  close(torch.vander(torch.Tensor({ 1, 2 }):cuda()):float(), { 1, 1, 2, 1 }, 0, 'vander cuda')
end

function tests.hugeCountsFailFast()
  -- a count of terms past what can be computed is an error naming the function, at once (the fuzz
  -- drew 2^62: a loop of that many steps)
  local ok, err = pcall(torch.vander, torch.Tensor({ 1, 2 }), 2 ^ 62)
  tester:assert(not ok and tostring(err):find('[vander]', 1, true), tostring(err))
  tester:assertTableEq(torch.vander(torch.Tensor(0), 2 ^ 40):size():totable(), { 0, 2 ^ 40 })
  ok, err = pcall(torch.special.multigammaln, torch.Tensor(0), 2 ^ 62)
  tester:assert(not ok and tostring(err):find('at most 2^24', 1, true), tostring(err))
  tester:asserteq(torch.special.multigammaln(torch.Tensor(0), 3):nElement(), 0)
end

tester:add(tests)
tester:run()
