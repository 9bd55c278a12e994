-- Differential tests of the CPU kernels (tests/lua/differential/common.lua says what they check):
-- reductions (argmax/argmin too), sort/topk/kthvalue and softmax.
require 'nn'
local F = nn.functional
local tester = torch.Tester()
local tests = torch.TestSuite()
local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/differential/common.lua')(tester)
local gens, SIZES, SENTINEL, MVEC, layout_tol, shape, is_float, position, compare, check_same, pack, run, with_sizes, layouts, LAYOUTS, clone_all, check_layouts, check_precision, check_out, randn, rand, frandn = H.gens, H.SIZES, H.SENTINEL, H.MVEC, H.layout_tol, H.shape, H.is_float, H.position, H.compare, H.check_same, H.pack, H.run, H.with_sizes, H.layouts, H.LAYOUTS, H.clone_all, H.check_layouts, H.check_precision, H.check_out, H.randn, H.rand, H.frandn

-- ---- reductions ------------------------------------------------------------------------------------

-- name, f(x, dim) (dim nil: the whole tensor), generator, layout rtol, f32-vs-f64 rtol and atol
local REDUCTIONS = {
  { 'sum', function(x, d) if d then return torch.sum(x, d) end return torch.sum(x) end, 'n', 1e-6, 1e-6, 1e-5 },
  { 'prod', function(x, d) if d then return torch.prod(x, d) end return torch.prod(x) end, 'near1', 1e-6, 1e-5, 1e-6 },
  { 'mean', function(x, d) if d then return torch.mean(x, d) end return torch.mean(x) end, 'n', 1e-6, 1e-6, 1e-6 },
  { 'max', function(x, d) if d then return torch.max(x, d) end return torch.max(x) end, 'n', 0, 0, 0 },
  { 'min', function(x, d) if d then return torch.min(x, d) end return torch.min(x) end, 'n', 0, 0, 0 },
  { 'std', function(x, d) if d then return torch.std(x, d) end return torch.std(x) end, 'n', 1e-6, 1e-5, 1e-6 },
  { 'var', function(x, d) if d then return torch.var(x, d, true) end return torch.var(x, true) end, 'n', 1e-6, 1e-5, 1e-6 },
  { 'norm', function(x, d) if d then return torch.norm(x, 2, d) end return torch.norm(x) end, 'n', 1e-6, 1e-5, 1e-6 },
  { 'norm 1', function(x, d) if d then return torch.norm(x, 1, d) end return torch.norm(x, 1) end, 'n', 1e-6, 1e-5, 1e-6 },
  { 'norm 3', function(x, d) if d then return torch.norm(x, 3, d) end return torch.norm(x, 3) end, 'n', 1e-6, 1e-5, 1e-6 },
  { 'norm inf', function(x, d) if d then return torch.norm(x, math.huge, d) end return torch.norm(x, math.huge) end, 'n', 0, 0, 0 },
  { 'norm 0', function(x, d) if d then return torch.norm(x, 0, d) end return torch.norm(x, 0) end, 'sparse', 0, 0, 0 },
  { 'logsumexp', function(x, d) if d then return torch.logsumexp(x, d) end return torch.logsumexp(x) end, 'n', 1e-6, 1e-5, 1e-6 },
  { 'all', function(x, d) if d then return torch.all(torch.gt(x, -1.5), d) end return torch.all(torch.gt(x, -1.5)) end, 'n', 0, 0, 0 },
  { 'any', function(x, d) if d then return torch.any(torch.gt(x, 1.5), d) end return torch.any(torch.gt(x, 1.5)) end, 'n', 0, 0, 0 },
  { 'cumsum', function(x, d) return torch.cumsum(x, d or 1) end, 'n', 1e-6, 1e-5, 1e-5 },
  { 'cumprod', function(x, d) return torch.cumprod(x, d or 1) end, 'near1', 1e-6, 1e-5, 1e-6 },
  { 'median', function(x, d) if d then return torch.median(x, d) end return torch.median(x) end, 'n', 0, 0, 0 },
  { 'mode', function(x, d) return torch.mode(x, d) end, 'ints', 0, 0, 0 },
  -- max/min's indices alone, on values with many ties (the first one wins in every layout)
  { 'argmax', function(x, d) if d then return torch.argmax(x, d, true) end return torch.argmax(x) end, 'ints', 0, 0, 0 },
  { 'argmin', function(x, d) if d then return torch.argmin(x, d) end return torch.argmin(x) end, 'ints', 0, 0, 0 },
}
gens.near1 = function(sz) return rand(unpack(sz)):mul(0.2):add(0.9):float():double() end
gens.sparse = function(sz) local x = frandn(unpack(sz)) return x:cmul(torch.gt(x, 0.3):double()) end
gens.ints = function(sz) return rand(unpack(sz)):mul(4):floor() end

function tests.reductionLayouts()
  torch.manualSeed(8)
  for _, c in ipairs(REDUCTIONS) do
    local name, f, g, lrtol = c[1], c[2], gens[c[3]], c[4]
    for _, sz in ipairs({ { 5, 6, 7 }, { 3, 70 }, { 70, 3 }, { 1, 9 }, { 9, 1 }, { 4, 1, 5 } }) do
      local x = g(sz):float()
      for d = 1, #sz do
        check_layouts(string.format('%s of %s along %d', name, shape(x), d), f, { x, d }, { rtol = lrtol, atol = lrtol })
      end
      if name ~= 'mode' then
        check_layouts(string.format('%s of %s', name, shape(x)), f, { x }, { rtol = lrtol, atol = lrtol })
      end
    end
  end
end

function tests.reductionSizesAndPrecision()
  torch.manualSeed(9)
  for _, c in ipairs(REDUCTIONS) do
    local name, f, g, lrtol, rtol, atol = c[1], c[2], gens[c[3]], c[4], c[5], c[6]
    for _, n in ipairs(SIZES) do
      if not (name == 'mode' or name == 'median' or name == 'cumprod') or n <= 32769 then
        local x = g({ n })
        local big = n >= 1000
        -- sums of many terms: the tolerance grows with them
        local scale = (name == 'sum' or name == 'cumsum') and math.sqrt(n) or 1
        local whole = name ~= 'mode' and name ~= 'cumsum' and name ~= 'cumprod'
        if whole then check_precision(string.format('%s of %d elements', name, n), f, { x }, rtol, atol * scale) end
        check_precision(string.format('%s of %d elements along 1', name, n), f, { x, 1 }, rtol, atol * scale)
        local xf = x:float()
        check_same({ f(layouts.stepped(xf), 1) }, { f(xf, 1) }, lrtol, lrtol * scale,
          string.format('%s of %d elements along 1, stepped', name, n))
        -- the same elements as rows and columns of a matrix (inner and outer reductions)
        if n >= 8 and n % 8 == 0 or n == 1000 or n == 70000 then
          local cols = n == 1000 and 8 or (n == 70000 and 7 or 8)
          local m = xf:view(n / cols, cols)
          for d = 1, 2 do
            check_same({ f(m, d) }, { f(m:clone():t():clone():t(), d) }, lrtol, lrtol * scale,
              string.format('%s of %s along %d, column-major', name, shape(m), d))
            check_precision(string.format('%s of %s along %d', name, shape(m), d), f, { m:double(), d }, rtol, atol * scale)
          end
        end
        if big and whole then
          check_same({ f(layouts.stepped(xf)) }, { f(xf) }, lrtol, lrtol * scale, string.format('%s of %d elements, stepped', name, n))
        end
      end
    end
    -- dims of size 0: a whole reduction and one along the empty dim
    if name == 'sum' or name == 'prod' or name == 'all' or name == 'any' or name == 'cumsum' or name == 'cumprod' or name == 'norm' then
      local e = torch.FloatTensor(0, 4)
      local want = { sum = 0, prod = 1, all = true, any = false, norm = 0 }
      if want[name] ~= nil then
        local got = run(name .. ' of 0x4', f, e)
        if got then check_same(got, { want[name] }, 0, 0, name .. ' of a 0x4 tensor') end
        local along = run(name .. ' of 0x4 along 1', f, e, 1)
        if along then
          local v = type(want[name]) == 'boolean' and (want[name] and 1 or 0) or want[name]
          tester:assert(along[1]:isSameSizeAs(torch.zeros(1, 4)) and along[1]:double():eq(v):all(),
            name .. ' of a 0x4 tensor along 1: expected 1x4 of ' .. tostring(v) .. ', got ' .. shape(along[1]))
        end
      end
    end
  end
end

function tests.reductionResultForms()
  torch.manualSeed(10)
  local x = frandn(6, 5, 4):float()
  for _, name in ipairs({ 'sum', 'prod', 'mean', 'logsumexp', 'cumsum', 'cumprod' }) do
    -- The result's layout can move logsumexp between the column loop (libmvec's exp) and the
    -- strided one (libm's): an ulp apart, as x:exp() is on contiguous and strided inputs.
    local opts = name == 'logsumexp' and { rtol = 1e-6, atol = 1e-6 } or nil
    for d = 1, 3 do
      check_out(name .. ' along ' .. d, function(a) return torch[name](a, d) end,
        function(r, a) return torch[name](r, a, d) end, { x }, opts)
      check_out(name .. ' method along ' .. d, function(a) return a[name](a, d) end,
        function(r, a) return r[name](r, a, d) end, { x }, opts)
    end
  end
  for _, name in ipairs({ 'std', 'var' }) do
    for d = 1, 3 do
      check_out(name .. ' along ' .. d, function(a) return torch[name](a, d) end,
        function(r, a) return torch[name](r, a, d) end, { x })
    end
  end
  for d = 1, 3 do
    check_out('norm along ' .. d, function(a) return torch.norm(a, 3, d) end,
      function(r, a) return torch.norm(r, a, 3, d) end, { x })
  end
  -- max/min/sort/topk/kthvalue/median/mode into (values, indices), fresh, wrong size and non-contiguous
  local two = {
    { 'max', function(rv, ri, a, d) return torch.max(rv, ri, a, d) end, function(a, d) return torch.max(a, d) end },
    { 'min', function(rv, ri, a, d) return torch.min(rv, ri, a, d) end, function(a, d) return torch.min(a, d) end },
    { 'sort', function(rv, ri, a, d) return torch.sort(rv, ri, a, d) end, function(a, d) return torch.sort(a, d) end },
    { 'sort descending', function(rv, ri, a, d) return torch.sort(rv, ri, a, d, true) end, function(a, d) return torch.sort(a, d, true) end },
    { 'topk', function(rv, ri, a, d) return torch.topk(rv, ri, a, 2, d) end, function(a, d) return torch.topk(a, 2, d) end },
    { 'topk largest', function(rv, ri, a, d) return torch.topk(rv, ri, a, 3, d, true) end, function(a, d) return torch.topk(a, 3, d, true) end },
    { 'kthvalue', function(rv, ri, a, d) return torch.kthvalue(rv, ri, a, 2, d) end, function(a, d) return torch.kthvalue(a, 2, d) end },
    { 'median', function(rv, ri, a, d) return torch.median(rv, ri, a, d) end, function(a, d) return torch.median(a, d) end },
  }
  for _, c in ipairs(two) do
    for d = 1, 3 do
      local rv_ref, ri_ref = c[3](x, d)
      local what = c[1] .. ' along ' .. d
      for _, case in ipairs({ 'empty', 'wrong size', 'transposed' }) do
        local rv, ri
        if case == 'empty' then rv, ri = torch.FloatTensor(), torch.LongTensor()
        elseif case == 'wrong size' then rv, ri = torch.FloatTensor(2, 9):fill(5), torch.LongTensor(11):fill(3)
        else rv, ri = layouts.transposed(rv_ref:clone():fill(5)), layouts.transposed(ri_ref:clone():fill(3)) end
        local got = run(what .. ' into ' .. case .. ' results', c[2], rv, ri, x, d)
        if got then
          check_same({ rv, ri }, { rv_ref, ri_ref }, 0, 0, what .. ' into ' .. case .. ' results')
          check_same({ got[1], got[2] }, { rv_ref, ri_ref }, 0, 0, what .. ' into ' .. case .. ' results, returned')
        end
      end
    end
  end
end

-- ---- sort, topk, kthvalue ----------------------------------------------------------------------------

local SORTS = {
  { 'sort', function(x, d) return torch.sort(x, d) end },
  { 'sort descending', function(x, d) return torch.sort(x, d, true) end },
  { 'topk 1', function(x, d) return torch.topk(x, 1, d) end },
  { 'topk 3 largest', function(x, d) return torch.topk(x, math.min(3, x:size(d)), d, true) end },
  { 'topk all', function(x, d) return torch.topk(x, x:size(d), d) end },
  { 'topk 3/4 largest', function(x, d) return torch.topk(x, math.ceil(x:size(d) * 3 / 4), d, true) end },
  { 'kthvalue 1', function(x, d) return torch.kthvalue(x, 1, d) end },
  { 'kthvalue mid', function(x, d) return torch.kthvalue(x, math.floor((x:size(d) + 1) / 2), d) end },
  { 'kthvalue last', function(x, d) return torch.kthvalue(x, x:size(d), d) end },
}

function tests.sortLayoutsSizesAndPrecision()
  torch.manualSeed(11)
  for _, c in ipairs(SORTS) do
    local name, f = c[1], c[2]
    for _, sz in ipairs({ { 5, 6, 7 }, { 3, 40 }, { 1, 9 }, { 9, 1 } }) do
      local x = frandn(unpack(sz)):float()
      for d = 1, #sz do check_layouts(string.format('%s of %s along %d', name, shape(x), d), f, { x, d }) end
    end
    -- ties: a stable sort keeps the first index first whatever the layout
    local t = gens.ints({ 6, 40 }):float()
    if name:find('sort') or name:find('topk') then
      for d = 1, 2 do check_layouts(string.format('%s of %s with ties along %d', name, shape(t), d), f, { t, d }) end
    end
    for _, n in ipairs(SIZES) do
      if n <= 32769 or name == 'sort' or name == 'kthvalue mid' then
        local x = frandn(n)
        check_precision(string.format('%s of %d elements', name, n), f, { x, 1 }, 0, 0)
        local xf = x:float()
        check_same({ f(layouts.stepped(xf), 1) }, { f(xf, 1) }, 0, 0, string.format('%s of %d elements, stepped', name, n))
      end
    end
  end
  -- topk is sort's prefix, ties and NaN included, whether it runs as a heap (small k) or as a
  -- selection then a sort (kernels/cpu/sort_kernels.cpp, order_first)
  local tied = gens.ints({ 4, 300 }):float()
  tied[2][7], tied[3][100] = 0 / 0, 0 / 0
  for _, largest in ipairs({ false, true }) do
    local sv, si = torch.sort(tied, 2, largest)
    for _, k in ipairs({ 1, 5, 32, 33, 40, 150, 299, 300 }) do
      local v, i = torch.topk(tied, k, 2, largest, true)
      local what = string.format('topk %d of 4x300 with ties and NaN, largest %s', k, tostring(largest))
      check_same({ v, i }, { sv:narrow(2, 1, k), si:narrow(2, 1, k) }, 0, 0, what)
    end
  end
  -- the sorted values are ordered, and indices point at them
  local x = frandn(70000):float()
  local v, i = torch.sort(x)
  tester:assert(torch.le(v:narrow(1, 1, 69999), v:narrow(1, 2, 69999)):all(), 'sort of 70000 elements is ordered')
  check_same({ x:index(1, i) }, { v }, 0, 0, 'sort of 70000 elements: x:index(1, indices) gives the values')
end

-- ---- softmax -----------------------------------------------------------------------------------------

function tests.softmaxLayoutsSizesAndPrecision()
  torch.manualSeed(12)
  local fs = {
    { 'softmax', function(x, d) return torch.softmax(x, d) end },
    { 'logSoftmax', function(x, d) return torch.logSoftmax(x, d) end },
  }
  for _, c in ipairs(fs) do
    local name, f = c[1], c[2]
    for _, sz in ipairs({ { 5, 6, 7 }, { 3, 70 }, { 1, 9 }, { 9, 1 }, { 2, 1, 3 } }) do
      local x = frandn(unpack(sz)):mul(3):float()
      for d = 1, #sz do
        check_layouts(string.format('%s of %s along %d', name, shape(x), d), f, { x, d }, { rtol = 1e-6, atol = 1e-7 })
      end
    end
    for _, n in ipairs(SIZES) do
      local x = frandn(n):mul(3)
      check_precision(string.format('%s of %d elements', name, n), f, { x, 1 }, 1e-5, 1e-6)
      local xf = x:float()
      check_same({ f(layouts.stepped(xf), 1) }, { f(xf, 1) }, 1e-6, 1e-7, string.format('%s of %d elements, stepped', name, n))
      -- as rows and as columns of a matrix
      local rows = frandn(3, n):mul(3)
      check_precision(string.format('%s of 3x%d along 2', name, n), f, { rows, 2 }, 1e-5, 1e-6)
      check_precision(string.format('%s of %dx3 along 1', name, n), f, { rows:t():clone(), 1 }, 1e-5, 1e-6)
      local rf = rows:float()
      check_same({ f(rf:t(), 1) }, { f(rf:t():clone(), 1) }, 1e-6, 1e-7, string.format('%s of a transposed %dx3 along 1', name, n))
    end
  end
end


tester:add(tests)
tester:run(os.getenv('TOCHA_DIFF_ONLY'))  -- a pattern to run some of the tests
