-- torch.quantile, nanquantile, bincount, histogram, cov, corrcoef, trapezoid/trapz,
-- cumulativeTrapezoid, cdist, pdist, cosineSimilarity and pairwiseDistance
-- (lua/torch/stats_more.lua): values against plain-Lua reference loops in f64, edge cases,
-- errors naming the op, gradchecks, and CUDA against the CPU when a device is present.
local tester = torch.Tester()
local tests = torch.TestSuite()
local R = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/ref.lua')
local flat, sizes = R.flat, R.sizes
local NAN, INF = 0 / 0, math.huge

local function isnan(v) return v ~= v end
local near, assert_list = R.near, R.list_asserter(tester)
local check = R.gradchecker(tester)
local function rows(t)  -- a 2-D tensor as a table of row tables (f64)
  return t:double():totable()
end

-- ---- quantile ----------------------------------------------------------------------------------

local function round_half_even(p)
  local f = math.floor(p)
  local d = p - f
  if d > 0.5 or (d == 0.5 and f % 2 == 1) then return f + 1 end
  return f
end
local function lquantile(l, q, how, skip)
  local v = {}
  for _, x in ipairs(l) do
    if x ~= x then
      if not skip then return NAN end
    else
      v[#v + 1] = x
    end
  end
  if #v == 0 then return NAN end
  table.sort(v)
  local pos = q * (#v - 1)
  local lo, hi = math.floor(pos), math.ceil(pos)
  local a, b = v[lo + 1], v[hi + 1]
  if how == 'lower' then return a end
  if how == 'higher' then return b end
  if how == 'midpoint' then return a + (b - a) * 0.5 end
  if how == 'nearest' then return v[round_half_even(pos) + 1] end
  return a + (b - a) * (pos - lo)
end

function tests.quantileAgainstLoop()
  torch.manualSeed(11)
  local HOW = { 'linear', 'lower', 'higher', 'midpoint', 'nearest' }
  for _, tname in ipairs({ 'torch.DoubleTensor', 'torch.FloatTensor' }) do
    local tol = tname == 'torch.FloatTensor' and 1e-5 or 1e-12
    local x = torch.DoubleTensor(4, 6):uniform(-3, 3):type(tname)
    x[1][2] = 1; x[1][5] = 1  -- a tie
    local qs = { 0, 0.1, 0.25, 0.5, 0.7, 0.9, 1 }
    for _, how in ipairs(HOW) do
      for _, skip in ipairs({ false, true }) do
        local f = skip and torch.nanquantile or torch.quantile
        local xs = x:clone()
        if skip then xs[2][3] = NAN; xs[4]:fill(NAN) end
        local got = f(xs, torch.DoubleTensor(qs):type(tname), 2, false, how)
        tester:eq(sizes(got), { #qs, 4 })
        local want = {}
        for qi, q in ipairs(qs) do
          for r = 1, 4 do want[#want + 1] = lquantile(rows(xs)[r], q, how, skip) end
        end
        assert_list(flat(got), want, tol, tname .. ' ' .. how .. (skip and ' nanquantile' or ' quantile'))
        -- along dim 1, keepdim, one q, and over all elements
        local g1 = f(xs, 0.3, 1, true, how)
        tester:eq(sizes(g1), { 1, 6 })
        local w1 = {}
        for c = 1, 6 do w1[c] = lquantile(rows(xs:t())[c], 0.3, how, skip) end
        assert_list(flat(g1), w1, tol, tname .. ' dim 1 ' .. how)
        tester:assert(near(f(xs, 0.6, { interpolation = how }), lquantile(flat(xs), 0.6, how, skip), tol),
          tname .. ' all elements ' .. how)
      end
    end
    -- non-contiguous input, q as a table, keepdim without dim
    local t = x:t()
    assert_list(flat(torch.quantile(t, { 0.5 }, 2)), (function()
      local w = {}
      for r = 1, 6 do w[r] = lquantile(rows(t)[r], 0.5, 'linear', false) end
      return w
    end)(), tol, tname .. ' transposed')
    tester:eq(sizes(torch.quantile(x, 0.5, nil, true)), { 1, 1 })
    tester:eq(sizes(torch.quantile(x, torch.Tensor({ 0.2, 0.8 }):type(tname), nil, true)), { 2, 1, 1 })
  end
  -- quantile of a slice with NaN is NaN; 0-dim input; q in range
  local x = torch.Tensor({ { 1, NAN, 3 }, { 4, 5, 6 } })
  local r = torch.quantile(x, 0.5, 2)
  tester:assert(isnan(r[1]) and r[2] == 5)
  tester:asserteq(torch.quantile(torch.Tensor({ 2 }):view({}), 0.3), 2)
  tester:asserteq(torch.quantile(torch.Tensor({ 2 }):view({}), 0.3, 1):dim(), 0)
  tester:assertErrorPattern(function() torch.quantile(x, 1.5) end, '%[quantile%] q values must be in the range %[0, 1%]')
  tester:assertErrorPattern(function() torch.quantile(x, 0.5, 1, false, 'cubic') end, '%[quantile%] interpolation must be')
  tester:assertErrorPattern(function() torch.quantile(torch.LongTensor({ 1 }), 0.5) end,
    '%[quantile%] expected a torch.FloatTensor or torch.DoubleTensor')
  tester:assertErrorPattern(function() torch.nanquantile(torch.Tensor(0), 0.5) end, '%[nanquantile%] cannot take quantiles')
  tester:assertErrorPattern(function() torch.quantile(x, torch.Tensor(2, 2)) end, '%[quantile%] q must be a number or a 1%-D')
  tester:assertErrorPattern(function() torch.quantile(x, 'a') end, '%[quantile%] q must be a number')
  -- gradients: linear interpolation between the order statistics
  local g = torch.DoubleTensor({ { 0.3, 1.7, 0.9, 2.5 }, { 2.2, 0.5, 1.1, 0.1 } }):requiresGrad()
  check('quantile', function(t) return torch.quantile(t, torch.DoubleTensor({ 0.2, 0.5, 0.9 }), 2) end, { g })
  check('nanquantile', function(t) return torch.nanquantile(t, 0.35, 1, true, 'midpoint') end, { g })
  local h = torch.DoubleTensor({ 1, 3, 2, 4 }):requiresGrad()
  torch.quantile(h, 0.5):backward()
  tester:eq(h.grad:totable(), { 0, 0.5, 0.5, 0 })
end

-- ---- bincount / histogram ----------------------------------------------------------------------

function tests.bincount()
  torch.manualSeed(12)
  for _, tname in ipairs({ 'torch.LongTensor', 'torch.IntTensor', 'torch.ByteTensor' }) do
    local x = torch.DoubleTensor(50):uniform(0, 9):floor():type(tname)
    local w = torch.DoubleTensor(50):uniform(-1, 1)
    local want, wantw, mx = {}, {}, 0
    for i = 1, 50 do
      local v = x[i]
      mx = math.max(mx, v)
      want[v + 1] = (want[v + 1] or 0) + 1
      wantw[v + 1] = (wantw[v + 1] or 0) + w[i]
    end
    for k = 1, mx + 1 do want[k], wantw[k] = want[k] or 0, wantw[k] or 0 end
    local c = torch.bincount(x)
    tester:asserteq(c:type(), 'torch.LongTensor')
    assert_list(flat(c), want, 0, tname .. ' bincount')
    local cw = x:bincount(w)
    tester:asserteq(cw:type(), 'torch.DoubleTensor')
    assert_list(flat(cw), wantw, 1e-12, tname .. ' weighted')
    tester:asserteq(torch.bincount(x, nil, 20):nElement(), 20)
    tester:asserteq(torch.bincount(x, { minlength = 3 }):nElement(), mx + 1)
  end
  tester:asserteq(torch.bincount(torch.LongTensor({ 1 }), torch.FloatTensor({ 2 })):type(), 'torch.FloatTensor')
  tester:asserteq(torch.bincount(torch.LongTensor({ 1 }), torch.LongTensor({ 2 })):type(), 'torch.DoubleTensor')
  tester:asserteq(torch.bincount(torch.LongTensor(0)):nElement(), 0)
  tester:eq(flat(torch.bincount(torch.LongTensor(0), nil, 3)), { 0, 0, 0 })
  tester:eq(flat(torch.bincount(torch.LongTensor({ 2, 2, 0 }):narrow(1, 1, 2))), { 0, 0, 2 })
  tester:assertErrorPattern(function() torch.bincount(torch.LongTensor({ 1, -1 })) end,
    '%[bincount%] expected non%-negative values')
  tester:assertErrorPattern(function() torch.bincount(torch.Tensor({ 1 })) end, '%[bincount%] expected an integer tensor')
  tester:assertErrorPattern(function() torch.bincount(torch.LongTensor(2, 2)) end, '%[bincount%] expected a 1%-D tensor')
  tester:assertErrorPattern(function() torch.bincount(torch.LongTensor({ 1 }), torch.Tensor(2)) end,
    '%[bincount%] weights of size 2 do not match')
  tester:assertErrorPattern(function() torch.bincount(torch.LongTensor({ 1 }), nil, -1) end,
    '%[bincount%] minlength must not be negative')
end

-- Reference histogram: bins [e_i, e_{i+1}), the last closed.
local function lhist(v, edges, w)
  local h = {}
  local nb = #edges - 1
  for b = 1, nb do h[b] = 0 end
  for i, x in ipairs(v) do
    if x == x and x >= edges[1] and x <= edges[nb + 1] then
      local b = nb
      for k = 1, nb do if x < edges[k + 1] then b = k break end end
      h[b] = h[b] + (w and w[i] or 1)
    end
  end
  return h
end

function tests.histogram()
  torch.manualSeed(13)
  for _, tname in ipairs({ 'torch.DoubleTensor', 'torch.FloatTensor' }) do
    local x = torch.DoubleTensor(3, 40):uniform(-2, 2):type(tname)
    x[1][1] = 2; x[1][2] = -2  -- the outer edges
    local hist, edges = torch.histogram(x, 5, { range = { -2, 2 } })
    tester:asserteq(hist:type(), tname)
    assert_list(flat(edges), { -2, -1.2, -0.4, 0.4, 1.2, 2 }, 1e-6, tname .. ' edges')
    assert_list(flat(hist), lhist(flat(x), flat(edges)), 0, tname .. ' histogram')
    -- default range: the data's; weights and density
    local w = torch.DoubleTensor(3, 40):uniform(0, 1):type(tname)
    local h2, e2 = x:histogram(4, { weight = w })
    assert_list(flat(h2), lhist(flat(x), flat(e2), flat(w)), 1e-5, tname .. ' weighted')
    tester:assert(near(e2[1], x:min(), 1e-6) and near(e2[5], x:max(), 1e-6))
    local h3, e3 = torch.histogram(x, torch.Tensor({ -1, 0, 0.5, 3 }):type(tname), { density = true })
    local raw = lhist(flat(x), flat(e3))
    local total = raw[1] + raw[2] + raw[3]
    assert_list(flat(h3), { raw[1] / total / 1, raw[2] / total / 0.5, raw[3] / total / 2.5 }, 1e-5, tname .. ' density')
  end
  -- values outside the range and NaN are not counted; an empty range widens by 0.5
  local h, e = torch.histogram(torch.Tensor({ -5, 0.5, NAN, 9 }), 2, { range = { 0, 1 } })
  tester:eq(flat(h), { 0, 1 })
  h, e = torch.histogram(torch.Tensor({ 1, 1, 1 }), 2)
  tester:eq(flat(e), { 0.5, 1, 1.5 })
  tester:eq(flat(h), { 0, 3 })
  h, e = torch.histogram(torch.Tensor(0), 2)
  tester:eq(flat(e), { 0, 0.5, 1 })
  tester:eq(flat(h), { 0, 0 })
  tester:assertErrorPattern(function() torch.histogram(torch.LongTensor({ 1 }), 2) end,
    '%[histogram%] expected a torch.FloatTensor or torch.DoubleTensor')
  tester:assertErrorPattern(function() torch.histogram(torch.Tensor({ 1 }), 0) end, '%[histogram%] bins must be')
  tester:assertErrorPattern(function() torch.histogram(torch.Tensor({ 1 }), torch.Tensor({ 2, 1 })) end,
    '%[histogram%] bin edges must be increasing')
  tester:assertErrorPattern(function() torch.histogram(torch.Tensor({ 1 }), 2, { range = { 2, 1 } }) end,
    '%[histogram%] max must be larger than min')
  tester:assertErrorPattern(function() torch.histogram(torch.Tensor({ 1 }), 2, { weight = torch.Tensor(2) }) end,
    '%[histogram%] weight of size 2 does not match')
end

-- ---- cov / corrcoef ----------------------------------------------------------------------------

local function lcov(x, correction, fw, aw)
  local n = #x[1]
  local w = {}
  for j = 1, n do w[j] = (fw and fw[j] or 1) * (aw and aw[j] or 1) end
  local ws = 0
  for j = 1, n do ws = ws + w[j] end
  local avg = {}
  for i = 1, #x do
    local s = 0
    for j = 1, n do s = s + x[i][j] * w[j] end
    avg[i] = s / ws
  end
  local nf
  if correction == 0 then nf = ws
  elseif not aw then nf = ws - correction
  else
    local s = 0
    for j = 1, n do s = s + w[j] * aw[j] end
    nf = ws - correction * s / ws
  end
  nf = math.max(nf, 0)
  local c = {}
  for a = 1, #x do
    c[a] = {}
    for b = 1, #x do
      local s = 0
      for j = 1, n do s = s + w[j] * (x[a][j] - avg[a]) * (x[b][j] - avg[b]) end
      c[a][b] = s / nf
    end
  end
  return c
end
local function flat2(m) local r = {} for _, row in ipairs(m) do for _, v in ipairs(row) do r[#r + 1] = v end end return r end

function tests.covCorrcoef()
  torch.manualSeed(14)
  local x = torch.DoubleTensor(3, 7):uniform(-2, 2)
  local fw = torch.LongTensor({ 1, 2, 0, 3, 1, 1, 2 })
  local aw = torch.DoubleTensor(7):uniform(0.1, 1)
  local X = rows(x)
  assert_list(flat(torch.cov(x)), flat2(lcov(X, 1)), 1e-12, 'cov')
  assert_list(flat(x:cov({ correction = 0 })), flat2(lcov(X, 0)), 1e-12, 'cov correction 0')
  assert_list(flat(torch.cov(x, { fweights = fw })), flat2(lcov(X, 1, fw:double():totable())), 1e-12, 'cov fweights')
  assert_list(flat(torch.cov(x, { aweights = aw, correction = 2 })), flat2(lcov(X, 2, nil, aw:totable())), 1e-12,
    'cov aweights')
  assert_list(flat(torch.cov(x, { fweights = fw, aweights = aw })),
    flat2(lcov(X, 1, fw:double():totable(), aw:totable())), 1e-12, 'cov both')
  assert_list(flat(torch.cov(x:t():t())), flat2(lcov(X, 1)), 1e-12, 'cov of a view')
  local c1 = torch.cov(torch.Tensor({ 1, 2, 3, 4 }))
  tester:asserteq(c1:dim(), 0)
  tester:assert(near(c1:item(), 5 / 3, 1e-6))
  tester:asserteq(torch.cov(torch.FloatTensor(2, 3)):type(), 'torch.FloatTensor')
  -- the PyTorch example: [[1, 2, 3], [2, 2, 5]]
  assert_list(flat(torch.cov(torch.Tensor({ { 1, 2, 3 }, { 2, 2, 5 } }))), { 1, 1.5, 1.5, 3 }, 1e-6, 'example')
  local c = lcov(X, 1)
  local want = {}
  for a = 1, 3 do for b = 1, 3 do want[#want + 1] = c[a][b] / math.sqrt(c[a][a] * c[b][b]) end end
  assert_list(flat(torch.corrcoef(x)), want, 1e-12, 'corrcoef')
  tester:assert(torch.corrcoef(torch.Tensor({ { 1, 2, 3 }, { 2, 4, 6.0000001 } })):le(1):all(), 'clipped to 1')
  tester:assertErrorPattern(function() torch.cov(torch.Tensor(2, 2, 2)) end, '%[cov%] expected a 1%-D or 2%-D tensor')
  tester:assertErrorPattern(function() torch.cov(x, { fweights = torch.Tensor(7) }) end,
    '%[cov%] fweights must be an integer tensor')
  tester:assertErrorPattern(function() torch.cov(x, { aweights = torch.Tensor(3) }) end,
    '%[cov%] aweights must be 1%-D with 7 elements')
  tester:assertErrorPattern(function() torch.cov(x, { fweights = torch.LongTensor(7):fill(-1) }) end,
    '%[cov%] fweights cannot be negative')
  local g = torch.DoubleTensor(3, 5):uniform(-1, 1):requiresGrad()
  check('cov', function(t) return torch.cov(t, { aweights = aw:narrow(1, 1, 5) }) end, { g })
  check('corrcoef', function(t) return torch.corrcoef(t) end, { g })
end

-- ---- trapezoid ---------------------------------------------------------------------------------

function tests.trapezoid()
  torch.manualSeed(15)
  local y = torch.DoubleTensor(3, 6):uniform(-1, 1)
  local xs = torch.DoubleTensor(6):uniform(0, 1):cumsum()
  local Y = rows(y)
  local want, wantx, wantc = {}, {}, {}
  for r = 1, 3 do
    local s, sx = 0, 0
    for i = 1, 5 do
      s = s + (Y[r][i] + Y[r][i + 1]) / 2 * 0.5
      sx = sx + (Y[r][i] + Y[r][i + 1]) / 2 * (xs[i + 1] - xs[i])
      wantc[#wantc + 1] = s
    end
    want[r], wantx[r] = s, sx
  end
  assert_list(flat(torch.trapezoid(y, { dx = 0.5 })), want, 1e-12, 'trapezoid dx')
  assert_list(flat(torch.trapz(y, 0.5)), want, 1e-12, 'trapz dx')
  assert_list(flat(torch.trapezoid(y, xs)), wantx, 1e-12, 'trapezoid x')
  assert_list(flat(torch.trapezoid(y, xs:view(1, 6):expand(3, 6))), wantx, 1e-12, 'trapezoid x of y size')
  assert_list(flat(torch.cumulativeTrapezoid(y, 0.5)), wantc, 1e-12, 'cumulative')
  assert_list(flat(torch.trapezoid(y:t(), xs, 1)), wantx, 1e-12, 'along dim 1')
  assert_list(flat(torch.trapezoid(y:t(), { x = xs, dim = 1 })), wantx, 1e-12, 'options table')
  tester:asserteq(torch.trapezoid(torch.Tensor({ 1, 2, 3 })):item(), 4)
  tester:eq(flat(torch.cumulativeTrapezoid(torch.Tensor({ 1, 2, 3 }), 2)), { 3, 8 })
  tester:asserteq(torch.trapezoid(torch.Tensor({ 1, 2, 3 }), torch.Tensor({ 0, 1, 3 })):item(), 6.5)
  -- size 1 and 0 along dim integrate to 0; integers give the default float type
  tester:eq(flat(torch.trapezoid(torch.Tensor(2, 1):fill(NAN))), { 0, 0 })
  tester:eq(sizes(torch.cumulativeTrapezoid(torch.Tensor(2, 1))), { 2, 0 })
  tester:eq(sizes(torch.trapezoid(torch.Tensor(2, 0))), { 2 })
  tester:asserteq(torch.trapezoid(torch.LongTensor({ 1, 2 })):type(), 'torch.FloatTensor')
  tester:assertErrorPattern(function() torch.trapezoid(y, torch.Tensor(5)) end, '%[trapezoid%] x has 5 samples but y has 6')
  tester:assertErrorPattern(function() torch.trapezoid(torch.Tensor({ 1 }):view({})) end,
    '%[trapezoid%] expected y with at least one dimension')
  tester:assertErrorPattern(function() torch.cumulativeTrapezoid(y, 'a') end, '%[cumulativeTrapezoid%] expected sample points')
  local g = torch.DoubleTensor(3, 4):uniform(-1, 1):requiresGrad()
  local gx = torch.DoubleTensor({ 0, 0.5, 1.5, 2 }):requiresGrad()
  check('trapezoid', function(t, x) return torch.trapezoid(t, x) end, { g, gx })
  check('cumulativeTrapezoid', function(t) return torch.cumulativeTrapezoid(t, { dx = 0.3, dim = 1 }) end, { g })
end

-- ---- cdist / pdist / cosineSimilarity / pairwiseDistance ---------------------------------------

local function lpnorm(d, p)
  if p == 0 then local n = 0 for _, v in ipairs(d) do if v ~= 0 then n = n + 1 end end return n end
  if p == INF then local m = 0 for _, v in ipairs(d) do m = math.max(m, math.abs(v)) end return m end
  local s = 0
  for _, v in ipairs(d) do s = s + math.abs(v) ^ p end
  return s ^ (1 / p)
end

function tests.cdistPdist()
  torch.manualSeed(16)
  local a = torch.DoubleTensor(2, 4, 3):uniform(-1, 1)
  local b = torch.DoubleTensor(2, 5, 3):uniform(-1, 1)
  a[1][2][1] = b[1][3][1]  -- a zero difference for p = 0
  for _, p in ipairs({ 0, 0.5, 1, 2, 3, INF }) do
    local got = torch.cdist(a, b, p)
    tester:eq(sizes(got), { 2, 4, 5 })
    local want = {}
    for n = 1, 2 do
      for i = 1, 4 do
        for j = 1, 5 do
          local d = {}
          for k = 1, 3 do d[k] = a[n][i][k] - b[n][j][k] end
          want[#want + 1] = lpnorm(d, p)
        end
      end
    end
    assert_list(flat(got), want, 1e-12, 'cdist p = ' .. p)
    local x = a[1]
    local pd = torch.pdist(x, p)
    local wp = {}
    for i = 1, 4 do
      for j = i + 1, 4 do
        local d = {}
        for k = 1, 3 do d[k] = x[i][k] - x[j][k] end
        wp[#wp + 1] = lpnorm(d, p)
      end
    end
    assert_list(flat(pd), wp, 1e-12, 'pdist p = ' .. p)
  end
  -- broadcasting batch dims, float, empty
  tester:eq(sizes(torch.cdist(torch.Tensor(3, 1, 2, 4), torch.Tensor(5, 6, 4))), { 3, 5, 2, 6 })
  tester:eq(sizes(torch.cdist(torch.Tensor(0, 4), torch.Tensor(2, 4))), { 0, 2 })
  tester:eq(flat(torch.cdist(torch.Tensor(2, 0), torch.Tensor(1, 0))), { 0, 0 })
  tester:asserteq(torch.pdist(torch.Tensor(1, 3)):nElement(), 0)
  tester:assertErrorPattern(function() torch.cdist(torch.Tensor(2, 3), torch.Tensor(2, 4)) end,
    '%[cdist%] x1 and x2 must have as many columns')
  tester:assertErrorPattern(function() torch.cdist(torch.Tensor(2, 3), torch.Tensor(2, 3), -1) end, '%[cdist%] p must be >= 0')
  tester:assertErrorPattern(function() torch.cdist(torch.Tensor(3), torch.Tensor(2, 3)) end, '%[cdist%] expected x1 and x2 with at least 2 dims')
  tester:assertErrorPattern(function() torch.cdist(torch.LongTensor(2, 3), torch.LongTensor(2, 3)) end,
    '%[cdist%] expected two floating%-point tensors')
  tester:assertErrorPattern(function() torch.pdist(torch.Tensor(3)) end, '%[pdist%] expected a 2%-D tensor')
  local g1 = torch.DoubleTensor(3, 2):uniform(-1, 1):requiresGrad()
  local g2 = torch.DoubleTensor(4, 2):uniform(-1, 1):requiresGrad()
  for _, p in ipairs({ 1, 2, 3, INF }) do
    check('cdist p = ' .. p, function(x, y) return torch.cdist(x, y, p) end, { g1, g2 })
  end
  check('pdist', function(x) return torch.pdist(x) end, { g1 })
  -- the gradient at a zero distance is 0, not NaN
  local z = torch.DoubleTensor({ { 1, 2 }, { 3, 4 } }):requiresGrad()
  torch.cdist(z, z):sum():backward()
  tester:assert(z.grad:eq(z.grad):all(), 'finite gradient at zero distance')
end

function tests.cosineSimilarityPairwiseDistance()
  torch.manualSeed(17)
  local a = torch.DoubleTensor(4, 5):uniform(-1, 1)
  local b = torch.DoubleTensor(4, 5):uniform(-1, 1)
  local want, wantd = {}, {}
  for i = 1, 4 do
    local dot, na, nb, d = 0, 0, 0, {}
    for k = 1, 5 do
      dot = dot + a[i][k] * b[i][k]
      na, nb = na + a[i][k] ^ 2, nb + b[i][k] ^ 2
      d[k] = a[i][k] - b[i][k] + 1e-6
    end
    want[i] = dot / math.sqrt(na) / math.sqrt(nb)
    wantd[i] = lpnorm(d, 2)
  end
  assert_list(flat(torch.cosineSimilarity(a, b)), want, 1e-12, 'cosineSimilarity')
  assert_list(flat(torch.cosineSimilarity(a:t(), b:t(), 1)), want, 1e-12, 'cosineSimilarity dim 1')
  -- agrees with nn.CosineDistance (Torch7's module) away from its eps
  local ok, nn = pcall(require, 'nn')
  local m = ok and nn.CosineDistance and nn.CosineDistance():forward({ a, b })
  if m then assert_list(flat(m), want, 1e-9, 'nn.CosineDistance') end
  tester:assert(near(torch.cosineSimilarity(torch.Tensor({ 1, 0 }), torch.Tensor({ 1, 1 })):item(), math.sqrt(0.5), 1e-6))
  tester:eq(sizes(torch.cosineSimilarity(torch.Tensor(3, 1, 4), torch.Tensor(2, 4), 3)), { 3, 2 })
  tester:asserteq(torch.cosineSimilarity(torch.zeros(3), torch.ones(3)):item(), 0)  -- eps, not NaN
  assert_list(flat(torch.pairwiseDistance(a, b)), wantd, 1e-12, 'pairwiseDistance')
  tester:eq(sizes(torch.pairwiseDistance(a, b, 1, 0, true)), { 4, 1 })
  tester:asserteq(torch.pairwiseDistance(torch.Tensor({ 3, 4 }), torch.Tensor({ 0, 0 }), 2, 0):dim(), 0)
  tester:assertErrorPattern(function() torch.cosineSimilarity(a, torch.Tensor(3, 5)) end,
    '%[cosineSimilarity%] x1 of size 4x5 and x2 of size 3x5 do not broadcast')
  tester:assertErrorPattern(function() torch.pairwiseDistance(a, b, -2) end, '%[pairwiseDistance%] p must be >= 0')
  tester:assertErrorPattern(function() torch.pairwiseDistance(a, b, 2, 0, 1) end, '%[pairwiseDistance%] keepdim must be a boolean')
  local g1, g2 = a:clone():requiresGrad(), b:clone():requiresGrad()
  check('cosineSimilarity', function(x, y) return torch.cosineSimilarity(x, y) end, { g1, g2 })
  check('pairwiseDistance', function(x, y) return torch.pairwiseDistance(x, y, 3) end, { g1, g2 })
end

-- ---- CUDA against the CPU ----------------------------------------------------------------------

function tests.cudaMatchesCpu()
  if R.no_cuda() then return end
  torch.manualSeed(18)
  local x = torch.DoubleTensor(4, 9):uniform(-2, 2)
  x[2][3] = NAN
  local g = x:cuda()
  local function same(c, d, what) assert_list(flat(d), flat(c), 1e-9, what) end
  same(torch.nanquantile(x, torch.DoubleTensor({ 0.1, 0.5 }), 2), torch.nanquantile(g, torch.DoubleTensor({ 0.1, 0.5 }):cuda(), 2), 'nanquantile')
  same(torch.quantile(x, 0.3, 1, true, 'nearest'), torch.quantile(g, 0.3, 1, true, 'nearest'), 'quantile')
  local ix = torch.LongTensor({ 0, 3, 3, 7, 1 })
  same(torch.bincount(ix), torch.bincount(ix:cuda()), 'bincount')
  same(torch.bincount(ix, torch.DoubleTensor({ 1, 2, 3, 4, 5 })), torch.bincount(ix:cuda(), torch.DoubleTensor({ 1, 2, 3, 4, 5 }):cuda()), 'weighted bincount')
  local y = torch.DoubleTensor(50):uniform(-1, 1)
  local h1, e1 = torch.histogram(y, 7)
  local h2, e2 = torch.histogram(y:cuda(), 7)
  same(h1, h2, 'histogram')
  same(e1, e2, 'histogram edges')
  local a, b = torch.DoubleTensor(3, 4):uniform(), torch.DoubleTensor(5, 4):uniform()
  same(torch.cov(a), torch.cov(a:cuda()), 'cov')
  same(torch.corrcoef(a), torch.corrcoef(a:cuda()), 'corrcoef')
  same(torch.cdist(a, b, 3), torch.cdist(a:cuda(), b:cuda(), 3), 'cdist')
  same(torch.pdist(b), torch.pdist(b:cuda()), 'pdist')
  same(torch.trapezoid(a, 0.5), torch.trapezoid(a:cuda(), 0.5), 'trapezoid')
  same(torch.cosineSimilarity(a, a:flip(1)), torch.cosineSimilarity(a:cuda(), a:flip(1):cuda()), 'cosineSimilarity')
end

tester:add(tests)
tester:run()
