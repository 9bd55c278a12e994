-- torch.amax, amin, aminmax, nansum, nanmean, countNonzero, varMean, stdMean, nanmedian,
-- logcumsumexp, cummax and cummin (lua/torch/stats.lua): values against plain-Lua reference
-- loops in f64 over every dtype, NaN/inf/ties/empty/0-dim/non-contiguous inputs, errors,
-- gradchecks (first and second order), and CUDA against the CPU when a device is present.
local tester = torch.Tester()
local tests = torch.TestSuite()
local R = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/ref.lua')
local FLOATS, flat, sizes, coords, numel = R.FLOATS, R.flat, R.sizes, R.coords, R.numel
local gc, ggc = torch.autograd.gradcheck, torch.autograd.gradgradcheck
local NAN, INF = 0 / 0, math.huge

local TYPES = { 'torch.FloatTensor', 'torch.DoubleTensor', 'torch.HalfTensor', 'torch.BFloat16Tensor',
                'torch.LongTensor', 'torch.IntTensor', 'torch.ByteTensor' }

local function isnan(v) return v ~= v end
-- Small integer values (exact in every dtype).
local function sample(tname, ...)
  return torch.DoubleTensor(...):uniform(0, 6):floor():type(tname)
end
local check = R.gradchecker(tester)
local function check2(name, fn, inputs)
  local ok, err = pcall(ggc, fn, inputs)
  tester:assert(ok and err, name .. ' (second order): ' .. tostring(err))
end
local near, assert_list = R.near, R.list_asserter(tester)

-- Reference reduction: groups x's elements by their coordinates outside `dims` (1-based, a
-- table; nil = all) and applies f to each group's list; returns (values, shape).
local function reduce_ref(x, dims, keepdim, f)
  local v, sz = flat(x), sizes(x)
  local red = {}
  if dims == nil then for d = 1, #sz do red[d] = true end
  else for _, d in ipairs(dims) do red[d < 0 and #sz + d + 1 or d] = true end end
  local out_sz, kept_sz = {}, {}
  for d = 1, #sz do
    kept_sz[d] = red[d] and 1 or sz[d]
    if not red[d] then out_sz[#out_sz + 1] = sz[d] elseif keepdim then out_sz[#out_sz + 1] = 1 end
  end
  local groups = {}
  for i = 0, #v - 1 do
    local c = coords(i, sz)
    local k = 0
    for d = 1, #sz do k = k * kept_sz[d] + (red[d] and 0 or c[d] - 1) end
    groups[k + 1] = groups[k + 1] or {}
    table.insert(groups[k + 1], v[i + 1])
  end
  local out = {}
  for k = 1, numel(kept_sz) do out[k] = f(groups[k] or {}) end
  return out, out_sz
end
local function lmax(l) local m = l[1] for i = 2, #l do if isnan(l[i]) or m ~= m then m = NAN elseif l[i] > m then m = l[i] end end return m end
local function lmin(l) local m = l[1] for i = 2, #l do if isnan(l[i]) or m ~= m then m = NAN elseif l[i] < m then m = l[i] end end return m end
local function lnansum(l) local s = 0 for _, v in ipairs(l) do if v == v then s = s + v end end return s end
local function lnanmean(l)
  local s, n = 0, 0
  for _, v in ipairs(l) do if v == v then s, n = s + v, n + 1 end end
  return s / n
end
local function lcount(l) local n = 0 for _, v in ipairs(l) do if v ~= 0 then n = n + 1 end end return n end

-- ---- amax / amin / aminmax ------------------------------------------------------------------

function tests.amaxAgainstLoop()
  torch.manualSeed(1)
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 3, 4, 5)
    for _, case in ipairs({ { 1 }, { 2 }, { -1 }, { 1, 3 }, { 3, 1, 2 }, { 2, -1 } }) do
      for _, keep in ipairs({ false, true }) do
        local want, wsz = reduce_ref(x, case, keep, lmax)
        local got = torch.amax(x, case, keep)
        tester:eq(sizes(got), wsz, tname .. ' amax size')
        tester:asserteq(got:type(), tname)
        assert_list(flat(got), want, 0, tname .. ' amax')
        local wmin = reduce_ref(x, case, keep, lmin)
        assert_list(flat(x:amin(case, keep)), wmin, 0, tname .. ' amin')
      end
    end
    -- one dim as a number, every dim as a number
    assert_list(flat(x:amax(2)), (reduce_ref(x, { 2 }, false, lmax)), 0, tname .. ' amax(2)')
    tester:asserteq(x:amax(), lmax(flat(x)), tname .. ' amax()')
    tester:asserteq(x:amin(), lmin(flat(x)), tname .. ' amin()')
    -- non-contiguous
    local t = x:transpose(1, 3)
    assert_list(flat(t:amax({ 1, 2 })), (reduce_ref(t, { 1, 2 }, false, lmax)), 0, tname .. ' transposed')
    local lo, hi = torch.aminmax(x, 2)
    assert_list(flat(lo), (reduce_ref(x, { 2 }, false, lmin)), 0, tname .. ' aminmax min')
    assert_list(flat(hi), (reduce_ref(x, { 2 }, false, lmax)), 0, tname .. ' aminmax max')
  end
  local b = torch.BoolTensor({ { true, false }, { false, false } })
  tester:eq(flat(b:amax(2)), { 1, 0 })
end

function tests.amaxEdges()
  local x = torch.Tensor({ { 1, NAN, 3 }, { -INF, 2, INF } })
  local m = x:amax(2)
  tester:assert(isnan(m[1]) and m[2] == INF, 'NaN propagates, inf kept')
  tester:asserteq(x:amin(2)[2], -INF)
  tester:assert(isnan(x:amax()), 'NaN over all')
  -- 0-dim
  local z = torch.Tensor({ 7 }):view({})
  tester:asserteq(torch.amax(z), 7)
  tester:asserteq(torch.amax(z, 1):dim(), 0)
  tester:eq(sizes(torch.amax(z, 1, true)), {})
  -- empty: kept dims may be empty, reduced dims may not
  tester:eq(sizes(torch.Tensor(0, 3):amax(2)), { 0 })
  tester:assertErrorPattern(function() torch.Tensor(0, 3):amax(1) end, '%[amax%] cannot reduce dim 1 of size 0')
  tester:assertErrorPattern(function() torch.Tensor(0, 3):amin() end, '%[amin%] cannot reduce dim 1 of size 0')
  local lo, hi = torch.aminmax(torch.Tensor({ 3, -1, 2 }))
  tester:asserteq(lo, -1)
  tester:asserteq(hi, 3)
  tester:eq(sizes(torch.amax(torch.zeros(2, 3, 4), { 1, 3 }, true)), { 1, 3, 1 })
  tester:eq(sizes(torch.amax(torch.zeros(2, 3, 4), { dim = 2, keepdim = true })), { 2, 1, 4 })
end

function tests.amaxErrors()
  local m = torch.Tensor(2, 3)
  tester:assertErrorPattern(function() m:amax(3) end, '%[amax%] dimension 3 out of range for a 2D tensor')
  tester:assertErrorPattern(function() m:amax({ 1, -2 }) end, '%[amax%] dim 1 appears more than once')
  tester:assertErrorPattern(function() m:amax(1, 1) end, '%[amax%] keepdim must be a boolean, got number')
  tester:assertErrorPattern(function() m:amax('a') end, '%[amax%] expected dims as a number, a table')
  tester:assertErrorPattern(function() torch.amax(3) end, '%[amax%] expected a tensor as argument 1, got number')
  tester:assertErrorPattern(function() m:amin({}) end, '%[amin%] expected at least one dim')
  tester:assertErrorPattern(function() torch.aminmax(m, { 1, 2 }) end, '%[aminmax%] dim must be a number')
end

function tests.amaxGradients()
  local x = torch.DoubleTensor({ { 0.3, 1.7, 0.9 }, { 2.2, 0.5, 1.1 } }):requiresGrad()
  check('amax', function(t) return torch.amax(t, 2) end, { x })
  check('amax dims', function(t) return torch.amax(t, { 1, 2 }, true) end, { x })
  check('amin', function(t) return torch.amin(t, 1) end, { x })
  check2('amax', function(t) return torch.amax(t, 2) end, { x })
  -- ties share the gradient evenly (PyTorch), over one dim and over several
  local t = torch.DoubleTensor({ { 1, 3, 3 }, { 2, 2, 2 } }):requiresGrad()
  torch.amax(t, 2):sum():backward()
  tester:eq(t.grad:totable(), { { 0, 0.5, 0.5 }, { 1 / 3, 1 / 3, 1 / 3 } })
  t.grad = nil
  t:amin():backward()
  tester:eq(t.grad:totable(), { { 1, 0, 0 }, { 0, 0, 0 } })
  local u = torch.DoubleTensor({ { 5, 1 }, { 5, 5 } }):requiresGrad()
  u:amax():backward()
  tester:eq(u.grad:totable(), { { 1 / 3, 0 }, { 1 / 3, 1 / 3 } })
end

-- ---- nansum / nanmean / countNonzero ---------------------------------------------------------

function tests.nanReductionsAgainstLoop()
  torch.manualSeed(2)
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 3, 4, 5)
    if tname:find('Float') or tname:find('Double') or tname:find('Half') then
      x[1][2][3] = NAN
      x[3][1][1] = NAN
      x[2][4]:fill(NAN)
    end
    local tol = (tname:find('Half') or tname:find('BFloat')) and 1e-2 or 1e-6
    for _, case in ipairs({ { 1 }, { 3 }, { 1, 3 }, { 2, 3 } }) do
      for _, keep in ipairs({ false, true }) do
        local want, wsz = reduce_ref(x, case, keep, lnansum)
        local got = torch.nansum(x, case, keep)
        tester:eq(sizes(got), wsz, tname .. ' nansum size')
        assert_list(flat(got), want, tol, tname .. ' nansum')
        assert_list(flat(x:nanmean(case, keep)), (reduce_ref(x, case, keep, lnanmean)), tol, tname .. ' nanmean')
        if not keep then
          local c = x:countNonzero(case)
          tester:asserteq(c:type(), 'torch.LongTensor')
          assert_list(flat(c), (reduce_ref(x, case, false, lcount)), 0, tname .. ' countNonzero')
        end
      end
    end
    tester:assert(near(x:nansum(), lnansum(flat(x)), tol * 10), tname .. ' nansum()')
    tester:assert(near(x:nanmean(), lnanmean(flat(x)), tol), tname .. ' nanmean()')
    tester:asserteq(x:countNonzero(), lcount(flat(x)), tname .. ' countNonzero()')
    if not tname:find('Float') and not tname:find('Double') and not tname:find('Half') then
      tester:asserteq(x:nansum(1):type(), 'torch.LongTensor', tname .. ' nansum of integers')
    end
  end
  -- a slice of NaN only: nansum 0, nanmean NaN; empty: 0 and NaN
  local x = torch.Tensor({ { NAN, NAN }, { 1, NAN } })
  tester:eq(flat(x:nansum(2)), { 0, 1 })
  local m = x:nanmean(2)
  tester:assert(isnan(m[1]) and m[2] == 1)
  tester:asserteq(torch.Tensor(0):nansum(), 0)
  tester:assert(isnan(torch.Tensor(0):nanmean()))
  tester:asserteq(torch.Tensor(0, 3):countNonzero(), 0)
  tester:asserteq(torch.Tensor({ 5 }):view({}):countNonzero(), 1)
  tester:eq(flat(torch.BoolTensor({ { true, false }, { true, true } }):countNonzero(1)), { 2, 1 })
  -- gradients: NaN elements get none
  local g = torch.DoubleTensor({ { 0.5, NAN, 2 }, { 1, 1.5, NAN } }):requiresGrad()
  torch.nansum(g, 2):sum():backward()
  tester:eq(g.grad:totable(), { { 1, 0, 1 }, { 1, 1, 0 } })
  g.grad = nil
  torch.nanmean(g, 2):sum():backward()
  tester:eq(g.grad:totable(), { { 0.5, 0, 0.5 }, { 0.5, 0.5, 0 } })
  local r = torch.rand(3, 4):double():requiresGrad()
  check('nansum', function(t) return torch.nansum(t, { 1, 2 }) end, { r })
  check('nanmean', function(t) return torch.nanmean(t, 1, true) end, { r })
  tester:assertErrorPattern(function() torch.nansum(torch.Tensor(2), 2) end, '%[nansum%] dimension 2 out of range')
end

-- ---- varMean / stdMean -------------------------------------------------------------------------

local function lvar(correction)
  return function(l)
    local s = 0
    for _, v in ipairs(l) do s = s + v end
    local m, q = s / #l, 0
    for _, v in ipairs(l) do q = q + (v - m) ^ 2 end
    return q / math.max(0, #l - correction)
  end
end
local function lmean(l) local s = 0 for _, v in ipairs(l) do s = s + v end return s / #l end

function tests.varMeanAgainstLoop()
  torch.manualSeed(3)
  for _, tname in ipairs({ 'torch.FloatTensor', 'torch.DoubleTensor', 'torch.LongTensor' }) do
    local x = sample(tname, 3, 4, 5)
    for _, case in ipairs({ { 1 }, { 3 }, { 1, 3 } }) do
      for _, corr in ipairs({ 0, 1, 2.5 }) do
        local v, m = torch.varMean(x, case, { correction = corr })
        assert_list(flat(v), (reduce_ref(x, case, false, lvar(corr))), 1e-5, tname .. ' varMean var')
        assert_list(flat(m), (reduce_ref(x, case, false, lmean)), 1e-6, tname .. ' varMean mean')
        local s = torch.stdMean(x, case, { correction = corr, keepdim = true })
        local want, wsz = reduce_ref(x, case, true, lvar(corr))
        for i = 1, #want do want[i] = math.sqrt(want[i]) end
        tester:eq(sizes(s), wsz)
        assert_list(flat(s), want, 1e-5, tname .. ' stdMean')
      end
    end
    -- the unbiased flag (PyTorch's meaning) and every element
    local v, m = torch.varMean(x, 2, false)
    assert_list(flat(v), (reduce_ref(x, { 2 }, false, lvar(0))), 1e-5, tname .. ' unbiased=false')
    local va, ma = torch.varMean(x)
    tester:assert(near(va, lvar(1)(flat(x)), 1e-6) and near(ma, lmean(flat(x)), 1e-6), tname .. ' varMean()')
    local sa = torch.stdMean(x, true)
    tester:assert(near(sa, math.sqrt(lvar(1)(flat(x))), 1e-6), tname .. ' stdMean(true)')
  end
  -- n <= correction: division by 0
  local v = torch.varMean(torch.Tensor({ 1, 2 }), 1, { correction = 2 })
  tester:asserteq(v:item(), INF)
  local r = torch.rand(3, 4):double():requiresGrad()
  check('varMean', function(t) local a, b = torch.varMean(t, { 1, 2 }, { correction = 0 }) return a + b end, { r })
  check('stdMean', function(t) return (torch.stdMean(t, 2)) end, { r })
  tester:assertErrorPattern(function() torch.varMean(r, 1, { correction = 'a' }) end,
    '%[varMean%] correction must be a number')
  tester:assertErrorPattern(function() torch.stdMean(r, 1, 3) end, '%[stdMean%] unbiased must be a boolean')
end

-- ---- nanmedian ---------------------------------------------------------------------------------

-- The lower median of the numbers of l and its position (1-based; the first NaN when none).
local function lnanmedian(l)
  local items = {}
  for i, v in ipairs(l) do if v == v then items[#items + 1] = { v, i } end end
  if #items == 0 then
    for i, v in ipairs(l) do if v ~= v then return NAN, i end end
  end
  table.sort(items, function(a, b) return a[1] < b[1] or (a[1] == b[1] and a[2] < b[2]) end)
  local it = items[math.floor((#items - 1) / 2) + 1]
  return it[1], it[2]
end

function tests.nanmedian()
  torch.manualSeed(5)
  for _, tname in ipairs(TYPES) do
    local x = torch.DoubleTensor(4, 7):uniform(0, 50):floor():type(tname)  -- few ties
    if tname:find('Float') or tname:find('Double') or tname:find('Half') then
      x[1][3] = NAN
      x[2]:fill(NAN)
      x[3][1], x[3][7] = NAN, NAN
    end
    local v, i = torch.nanmedian(x, 2)
    local xv = x:double()
    for r = 1, 4 do
      local row = xv[r]:totable()
      local wv = lnanmedian(row)
      tester:assert(near(v[r], wv, 0), tname .. ' nanmedian value row ' .. r)
      local picked = row[i[r]]
      tester:assert(near(picked, wv, 0), tname .. ' nanmedian index row ' .. r)
    end
    local vk = torch.nanmedian(x, 2, true)
    tester:eq(sizes(vk), { 4, 1 })
    tester:assert(near(x:nanmedian(), (lnanmedian(flat(x))), 0), tname .. ' nanmedian()')
  end
  tester:asserteq(torch.nanmedian(torch.Tensor({ 3, NAN, 1, 2 })), 2)
  tester:assert(isnan(torch.nanmedian(torch.Tensor({ NAN, NAN }))))
  local v, i = torch.nanmedian(torch.Tensor({ { NAN, NAN }, { 1, NAN } }), 2)
  tester:assert(isnan(v[1]) and v[2] == 1)
  tester:eq(i:totable(), { 1, 1 })
  local z = torch.Tensor({ 4 }):view({})
  tester:asserteq(torch.nanmedian(z), 4)
  tester:asserteq(torch.nanmedian(z, 1):item(), 4)
  tester:assertErrorPattern(function() torch.nanmedian(torch.Tensor(0)) end, '%[nanmedian%] cannot take the median')
  tester:assertErrorPattern(function() torch.nanmedian(torch.Tensor(2, 0), 2) end,
    '%[nanmedian%] cannot take the median of dim 2 of size 0')
  tester:assertErrorPattern(function() torch.nanmedian(torch.Tensor(2), nil, true) end,
    '%[nanmedian%] keepdim needs a dimension')
  local r = torch.DoubleTensor({ { 0.3, NAN, 0.9, 0.1 }, { 2.2, 0.5, 1.1, 0.7 } }):requiresGrad()
  check('nanmedian', function(t) return (torch.nanmedian(t, 2)) end, { r })
end

-- ---- logcumsumexp ------------------------------------------------------------------------------

-- Reference: a running log-add-exp in f64 (stable).
local function lse_add(a, b)
  if a ~= a or b ~= b then return NAN end
  local mn, mx = math.min(a, b), math.max(a, b)
  if mn == mx and (mn == INF or mn == -INF) then return mx end
  return mx + math.log(1 + math.exp(mn - mx))
end
local function scan_ref(x, dim, step)
  local v, sz = flat(x), sizes(x)
  local d = dim < 0 and #sz + dim + 1 or dim
  local out = {}
  for i = 0, #v - 1 do
    local c = coords(i, sz)
    if c[d] == 1 then
      local acc, stride = nil, 1
      for k = d + 1, #sz do stride = stride * sz[k] end
      for r = 1, sz[d] do
        local j = i + (r - 1) * stride
        acc = step(acc, v[j + 1], r)
        out[j + 1] = acc
      end
    end
  end
  return out
end

function tests.logcumsumexpValues()
  torch.manualSeed(6)
  for _, tname in ipairs(FLOATS) do
    local x = torch.DoubleTensor(3, 4, 5):uniform(-5, 5):type(tname)
    local tol = (tname:find('Half') or tname:find('BFloat')) and 2e-2 or 1e-5
    for _, d in ipairs({ 1, 2, 3, -1 }) do
      local got = torch.logcumsumexp(x, d)
      tester:asserteq(got:type(), tname)
      assert_list(flat(got), scan_ref(x, d, function(a, v) return a and lse_add(a, v) or v end), tol,
        tname .. ' logcumsumexp dim ' .. d)
    end
    local t = x:transpose(1, 3)
    assert_list(flat(t:logcumsumexp(2)), scan_ref(t, 2, function(a, v) return a and lse_add(a, v) or v end), tol,
      tname .. ' transposed')
  end
  -- widely ranging values: log(cumsum(exp(x))) would give -inf, inf or NaN here
  local x = torch.DoubleTensor({ -1000, 0, 1000, 1000, -INF, INF, 5 })
  local want = { -1000, 0, 1000, 1000 + math.log(2), 1000 + math.log(2), INF, INF }
  assert_list(flat(x:logcumsumexp()), want, 1e-12, 'wide range')
  local f = torch.FloatTensor({ -200, -200, 100 })
  assert_list(flat(f:logcumsumexp()), { -200, -200 + math.log(2), 100 }, 1e-6, 'f32 wide range')
  tester:assert(isnan(torch.Tensor({ 1, NAN, 2 }):logcumsumexp()[3]), 'NaN propagates')
  tester:eq(flat(torch.Tensor({ -INF, -INF }):logcumsumexp()), { -INF, -INF })
  tester:eq(sizes(torch.Tensor(0, 3):logcumsumexp(1)), { 0, 3 })
  tester:asserteq(torch.Tensor({ 2 }):view({}):logcumsumexp(1):item(), 2)
  tester:assertErrorPattern(function() torch.LongTensor({ 1 }):logcumsumexp(1) end,
    '%[logcumsumexp%] expected a floating%-point tensor')
  tester:assertErrorPattern(function() torch.Tensor(2):logcumsumexp(2) end, '%[logcumsumexp%] dimension 2 out of range')
  local r = torch.DoubleTensor(3, 4):uniform(-2, 2):requiresGrad()
  check('logcumsumexp', function(t) return torch.logcumsumexp(t, 2) end, { r })
  check2('logcumsumexp', function(t) return torch.logcumsumexp(t, 1) end, { r })
  -- a gradient that stays finite where exp would overflow
  local w = torch.DoubleTensor({ -800, 800, 790 }):requiresGrad()
  w:logcumsumexp():sum():backward()
  for i = 1, 3 do tester:assert(w.grad[i] == w.grad[i] and math.abs(w.grad[i]) < INF, 'finite gradient') end
  tester:assert(near(w.grad[2], 1 + 1 / (1 + math.exp(-10)), 1e-12), 'gradient value')
end

-- ---- cummax / cummin ---------------------------------------------------------------------------

local function cum_step(is_max)
  return function(acc, v, r)
    if acc == nil then return { v, r } end
    local take = v ~= v or (acc[1] == acc[1] and (is_max and v >= acc[1] or not is_max and v <= acc[1]))
    if take then return { v, r } end
    return acc
  end
end

function tests.cummaxAgainstLoop()
  torch.manualSeed(7)
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 3, 4, 5)  -- many ties
    if tname:find('Float') or tname:find('Double') then x[2][2][2] = NAN x[2][3][2] = NAN end
    for _, d in ipairs({ 1, 2, 3, -2 }) do
      for _, is_max in ipairs({ true, false }) do
        local v, i = (is_max and torch.cummax or torch.cummin)(x, d)
        local ref = scan_ref(x, d, cum_step(is_max))
        local wv, wi = {}, {}
        for k, p in ipairs(ref) do wv[k], wi[k] = p[1], p[2] end
        tester:asserteq(v:type(), tname)
        tester:asserteq(i:type(), 'torch.LongTensor')
        assert_list(flat(v), wv, 0, tname .. (is_max and ' cummax' or ' cummin') .. ' dim ' .. d)
        assert_list(flat(i), wi, 0, tname .. ' indices dim ' .. d)
      end
    end
    local t = x:transpose(1, 3)
    local v = t:cummax(2)
    local wv = {}
    for k, p in ipairs(scan_ref(t, 2, cum_step(true))) do wv[k] = p[1] end
    assert_list(flat(v), wv, 0, tname .. ' transposed')
  end
  -- PyTorch's examples: the last of ties; NaN sticks and its index moves to each later NaN
  local v, i = torch.cummax(torch.Tensor({ 1, 1, NAN, 2, NAN }))
  tester:eq(i:totable(), { 1, 2, 3, 3, 5 })
  tester:assert(v[1] == 1 and isnan(v[4]))
  local _, j = torch.cummin(torch.Tensor({ 3, 1, 2, 1, 0 }))
  tester:eq(j:totable(), { 1, 2, 2, 4, 5 })
  local bv = torch.cummax(torch.BoolTensor({ false, true, false }))
  tester:eq(flat(bv), { 0, 1, 1 })
  local ev, ei = torch.cummax(torch.Tensor(0, 2), 1)
  tester:eq(sizes(ev), { 0, 2 })
  tester:eq(sizes(ei), { 0, 2 })
  local zv, zi = torch.cummax(torch.Tensor({ 3 }):view({}), 1)
  tester:asserteq(zv:item(), 3)
  tester:asserteq(zi:item(), 1)
  tester:assertErrorPattern(function() torch.cummax(torch.Tensor(2, 2), 3) end, '%[cummax%] dimension 3 out of range')
  tester:assertErrorPattern(function() torch.cummin('x') end, '%[cummin%] expected a tensor')
  local r = torch.DoubleTensor({ { 0.3, 1.7, 0.9, 2.5 }, { 2.2, 0.5, 1.1, 0.1 } }):requiresGrad()
  check('cummax', function(t) return (torch.cummax(t, 2)) end, { r })
  check('cummin', function(t) return (torch.cummin(t, 1)) end, { r })
  check2('cummax', function(t) return (torch.cummax(t, 2)) end, { r })
  -- the gradient goes to the index taken (the last of ties)
  local q = torch.DoubleTensor({ 2, 2, 1, 3 }):requiresGrad()
  torch.cummax(q):sum():backward()
  tester:eq(q.grad:totable(), { 1, 2, 0, 1 })
end

-- ---- CUDA against the CPU ----------------------------------------------------------------------

function tests.cudaMatchesCpu()
  if R.no_cuda() then return end
  torch.manualSeed(8)
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 3, 4, 5)
    local g = x:cuda()
    local function same(a, b, what) assert_list(flat(b), flat(a), 1e-5, tname .. ' ' .. what) end
    same(x:amax({ 1, 3 }), g:amax({ 1, 3 }), 'amax')
    same(x:amin(2, true), g:amin(2, true), 'amin')
    same(x:nansum(2), g:nansum(2), 'nansum')
    same(x:countNonzero({ 1, 2 }), g:countNonzero({ 1, 2 }), 'countNonzero')
    same(x:nanmedian(3), g:nanmedian(3), 'nanmedian')
    for _, d in ipairs({ 1, 3 }) do
      local cv, ci = x:cummax(d)
      local gv, gi = g:cummax(d)
      same(cv, gv, 'cummax')
      same(ci, gi, 'cummax indices')
      local mv, mi = x:transpose(1, 2):cummin(d)
      local hv, hi = g:transpose(1, 2):cummin(d)
      same(mv, hv, 'cummin')
      same(mi, hi, 'cummin indices')
    end
  end
  for _, tname in ipairs(FLOATS) do
    local x = torch.DoubleTensor(3, 40):uniform(-50, 50):type(tname)
    assert_list(flat(x:cuda():logcumsumexp(2)), flat(x:logcumsumexp(2)), 1e-3, tname .. ' logcumsumexp')
    assert_list(flat(x:cuda():nanmean(2)), flat(x:nanmean(2)), 1e-3, tname .. ' nanmean')
  end
  local cx = torch.DoubleTensor(4, 6):uniform(-3, 3):requiresGrad()
  local gx = cx:detach():cuda():requiresGrad()
  local function loss(t) return torch.logcumsumexp(t, 2):sum() + torch.amax(t, 1):sum() + (torch.cummax(t, 2)):sum() end
  loss(cx):backward()
  loss(gx):backward()
  tester:assertlt((gx.grad:double() - cx.grad):abs():max(), 1e-10, 'gradients on CUDA')
end

tester:add(tests)
tester:run()
