-- torch.scatterReduce (lua/torch/index_extra.lua, core/ops/scatter_reduce.cpp): values of every
-- reduction against a reference loop (PyTorch 1.13's rules) for every dtype, both includeSelf
-- settings and non-contiguous inputs, 0-dim and empty cases, errors naming the op, and gradchecks
-- in f64 (the CUDA comparison is in test_index_extra.lua).
local tester = torch.Tester()
local tests = torch.TestSuite()
local R = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/ref.lua')
local TYPES, flat, sizes, coords, linear, numel = R.TYPES, R.flat, R.sizes, R.coords, R.linear, R.numel

local sample, cast, check = R.sample_below, R.cast, R.gradchecker(tester)
local function rnd(...) return torch.rand(...):double():requiresGrad() end
local function randidx(n, ...) return torch.LongTensor(...):random(1, n) end
local function is_bool(tname) return tname == 'torch.BoolTensor' end

-- ---- scatterReduce -----------------------------------------------------------------------------

-- Reference (PyTorch 1.13): per target, the list of values reduced, self's first if included.
local function scatter_reduce_ref(x, dim, idx, src, reduce, include_self, tname)
  local xs, is, ss = sizes(x), sizes(idx), sizes(src)
  local xv, iv, sv = flat(x), flat(idx), flat(src)
  local lists = {}
  for i = 0, numel(is) - 1 do
    local c = coords(i, is)
    local v = sv[linear(c, ss) + 1]
    c[dim] = iv[i + 1]
    local at = linear(c, xs) + 1
    lists[at] = lists[at] or {}
    table.insert(lists[at], v)
  end
  local out = {}
  for at = 1, #xv do
    local l = lists[at]
    if not l then
      out[at] = xv[at]
    else
      if include_self then table.insert(l, 1, xv[at]) end
      local r
      if reduce == 'sum' or reduce == 'mean' then
        r = 0
        for _, v in ipairs(l) do r = r + v end
        if reduce == 'mean' then
          r = r / #l
          if not tname:find('Float') and not tname:find('Double') and not tname:find('Half') then r = math.floor(r) end
        end
        if is_bool(tname) then r = math.min(r, 1) end
      elseif reduce == 'prod' then
        r = 1
        for _, v in ipairs(l) do r = r * v end
      elseif reduce == 'amax' then
        r = -math.huge
        for _, v in ipairs(l) do r = math.max(r, v) end
      else
        r = math.huge
        for _, v in ipairs(l) do r = math.min(r, v) end
      end
      out[at] = r
    end
  end
  return out
end

local function near(a, b, tol)
  if #a ~= #b then return false end
  for i = 1, #a do
    if math.abs(a[i] - b[i]) > tol * math.max(1, math.abs(b[i])) then return false end
  end
  return true
end

function tests.scatterReduceValues()
  local x = torch.Tensor({ 1, 2, 3, 4 })
  local idx = torch.LongTensor({ 1, 1, 2, 4, 4, 4 })
  local src = torch.Tensor({ 5, 6, 7, 8, 9, 10 })
  tester:eq(torch.scatterReduce(x, 1, idx, src, 'sum'):totable(), { 12, 9, 3, 31 })
  tester:eq(x:scatterReduce(1, idx, src, 'sum', false):totable(), { 11, 7, 3, 27 })
  tester:eq(x:scatterReduce(1, idx, src, 'prod'):totable(), { 30, 14, 3, 2880 })
  tester:eq(x:scatterReduce(1, idx, src, 'mean'):totable(), { 4, 4.5, 3, 7.75 })
  tester:eq(x:scatterReduce(1, idx, src, 'mean', { includeSelf = false }):totable(), { 5.5, 7, 3, 9 })
  tester:eq(x:scatterReduce(1, idx, src, 'amax'):totable(), { 6, 7, 3, 10 })
  tester:eq(x:scatterReduce(1, idx, -src, 'amin', false):totable(), { -6, -7, 3, -10 })
  tester:eq(torch.LongTensor({ 1, 2 }):scatterReduce(1, torch.LongTensor({ 1, 1 }), torch.LongTensor({ 2, 2 }), 'mean')
    :totable(), { 1, 2 })  -- (1 + 2 + 2) / 3 rounds down
  local nan = x:scatterReduce(1, torch.LongTensor({ 2 }), torch.Tensor({ 0 / 0 }), 'amax')
  tester:assert(nan[2] ~= nan[2], 'amax propagates NaN')
  -- a NaN stays once scattered or present, whatever comes after it, for amax and amin
  local two = torch.LongTensor({ 2, 2 })
  for _, how in ipairs({ 'amax', 'amin' }) do
    local r = x:scatterReduce(1, two, torch.Tensor({ 0 / 0, 100 * (how == 'amax' and 1 or -1) }), how)
    tester:assert(r[2] ~= r[2] and r[1] == 1, how .. ': a NaN before a better number stays')
    local withNan = torch.Tensor({ 1, 0 / 0, 3, 4 })
    r = withNan:scatterReduce(1, two, torch.Tensor({ -100, 100 }), how)
    tester:assert(r[2] ~= r[2], how .. ': a NaN in self stays')
  end
  local w = x:clone()
  w:scatterReduce_(1, torch.LongTensor({ 3 }), torch.Tensor({ 1 }), 'amin')
  tester:eq(w:totable(), { 1, 2, 1, 4 })
  tester:eq(x:totable(), { 1, 2, 3, 4 }, 'scatterReduce returns a copy')
  -- 0-dim and empty
  local s = torch.Tensor({ 3 }):view({})
  tester:asserteq(s:scatterReduce(1, torch.LongTensor({ 1 }):view({}), torch.Tensor({ 5 }):view({}), 'sum'):item(), 8)
  tester:eq(x:scatterReduce(1, torch.LongTensor(0), torch.Tensor(0), 'prod'):totable(), { 1, 2, 3, 4 })

  torch.manualSeed(5)
  for _, tname in ipairs(TYPES) do
    for _, reduce in ipairs({ 'sum', 'prod', 'mean', 'amax', 'amin' }) do
      if not (is_bool(tname) and reduce == 'mean') then
        for _, incl in ipairs({ true, false }) do
          for dim = 1, 2 do
            local hi = reduce == 'prod' and 3 or 6
            local base = sample(tname, hi, 3, 4):t()          -- 4 x 3, non-contiguous
            local bsz = sizes(base)
            local isz = { 3, 2 }
            local id = randidx(bsz[dim], isz[1], isz[2])
            local src = sample(tname, hi, 4, 3)                 -- larger than the index
            local got = base:scatterReduce(dim, id, src, reduce, incl)
            local want = scatter_reduce_ref(base, dim, id, src, reduce, incl, tname)
            local what = ('%s %s dim %d includeSelf %s'):format(tname, reduce, dim, tostring(incl))
            if tname == 'torch.ByteTensor' then for k = 1, #want do want[k] = want[k] % 256 end end
            local tol = (tname:find('Half') or tname:find('BFloat16')) and 1e-2 or 1e-6
            tester:assert(near(flat(got), want, tol), what .. ': got ' .. table.concat(flat(got), ',')
              .. ' want ' .. table.concat(want, ','))
            tester:asserteq(got:type(), tname)
          end
        end
      end
    end
  end
end

function tests.scatterReduceErrors()
  local x = torch.zeros(2, 3)
  local id = torch.LongTensor({ { 1, 2 } })
  local src = torch.ones(1, 2)
  tester:assertErrorPattern(function() x:scatterReduce(1, id, src, 'max') end,
    "%[scatterReduce%] reduce must be 'sum', 'prod', 'mean', 'amax' or 'amin', got 'max'")
  tester:assertErrorPattern(function() x:scatterReduce(1, torch.LongTensor({ { 3, 1 } }), src, 'sum') end,
    '%[scatterReduce%] .*3.* out of range')
  tester:assertErrorPattern(function() x:scatterReduce(2, torch.LongTensor({ { 0, 1 } }), src, 'sum') end,
    '%[scatterReduce%] .*0.* out of range')
  tester:assertErrorPattern(function() x:scatterReduce(1, torch.LongTensor({ 1 }), src, 'sum') end,
    '%[scatterReduce%] index has 1 dimensions')
  tester:assertErrorPattern(function() x:scatterReduce(1, id, torch.ones(1, 1), 'sum') end,
    '%[scatterReduce%] index has size 1x2 but src has size 1x1')
  tester:assertErrorPattern(function() x:scatterReduce(1, torch.LongTensor({ { 1, 1, 1, 1 } }), torch.ones(1, 4), 'sum') end,
    '%[scatterReduce%] index has size 1x4 but the tensor has size 2x3')
  tester:assertErrorPattern(function() x:scatterReduce(1, id, torch.LongTensor({ { 1, 1 } }), 'sum') end,
    '%[scatterReduce%] src is a torch.LongTensor but the tensor is a torch.FloatTensor')
  tester:assertErrorPattern(function() x:scatterReduce(3, id, src, 'sum') end, '%[scatterReduce%] dimension 3 out of range')
  tester:assertErrorPattern(function() x:scatterReduce(1, id, src, 'sum', 1) end,
    '%[scatterReduce%] includeSelf must be a boolean')
  tester:assertErrorPattern(function() torch.BoolTensor(2):scatterReduce(1, torch.LongTensor({ 1 }),
    torch.BoolTensor({ true }), 'mean') end, "%[scatterReduce%] reduce='mean' is not defined for a torch.BoolTensor")
  tester:assertErrorPattern(function() x:scatterReduce(1, torch.Tensor({ { 1, 1 } }), src, 'sum') end, '%[scatterReduce%]')
end

function tests.scatterReduceGradients()
  local id = torch.LongTensor({ { 1, 3, 1 }, { 2, 2, 1 } })
  for _, reduce in ipairs({ 'sum', 'mean', 'amax', 'amin', 'prod' }) do
    for _, incl in ipairs({ true, false }) do
      -- distinct values: max/min have no ties, where the derivative does not exist
      local base = torch.randperm(12):double():div(12):view(3, 4):requiresGrad()
      local src = torch.randperm(12):double():div(7):add(0.1):view(2, 6):requiresGrad()
      check(('scatterReduce %s includeSelf %s'):format(reduce, tostring(incl)),
        function(b, s) return b:scatterReduce(2, id, s, reduce, incl) end, { base, src })
    end
  end
  -- ties share the gradient evenly (PyTorch 1.13)
  local b = torch.DoubleTensor({ 2, 1 }):requiresGrad()
  local s = torch.DoubleTensor({ 2, 0 }):requiresGrad()
  b:scatterReduce(1, torch.LongTensor({ 1, 1 }), s, 'amax'):sum():backward()
  tester:eq(b.grad:totable(), { 0.5, 1 })
  tester:eq(s.grad:totable(), { 0.5, 0 })
end

-- x:scatterReduce_ under autograd: the node saved x, which the in-place copy then overwrote, so
-- every backward was refused. Gradients are PyTorch 1.13's (scatter_reduce_ on a * 1).
function tests.scatterReduceInPlaceGradients()
  local want = { sum = { { 1, 1, 1 }, { 1, 1 } }, prod = { { 0.7, 1, 0.2 }, { 0.3, 0.9 } },
                 mean = { { 0.5, 1, 0.5 }, { 0.5, 0.5 } }, amax = { { 0, 1, 1 }, { 1, 0 } },
                 amin = { { 1, 1, 0 }, { 0, 1 } } }
  for reduce, w in pairs(want) do
    local a = torch.DoubleTensor({ 0.3, 0.5, 0.9 }):requiresGrad()
    local s = torch.DoubleTensor({ 0.7, 0.2 }):requiresGrad()
    local b = a * 1
    b:scatterReduce_(1, torch.LongTensor({ 1, 3 }), s, reduce)
    b:sum():backward()
    for i = 1, 3 do tester:assertalmosteq(a.grad[i], w[1][i], 1e-12, reduce .. ' x grad') end
    for i = 1, 2 do tester:assertalmosteq(s.grad[i], w[2][i], 1e-12, reduce .. ' src grad') end
  end
end

-- 'prod' with zero factors: the gradient of a zero is the product of the other factors, of the
-- rest 0 when a place holds a zero (PyTorch 1.13's values; this had been an error).
function tests.scatterReduceProdZeros()
  local z = torch.DoubleTensor({ 0, 1 }):requiresGrad()
  local s = torch.DoubleTensor({ 2 }):requiresGrad()
  z:scatterReduce(1, torch.LongTensor({ 1 }), s, 'prod'):sum():backward()
  tester:eq(z.grad:totable(), { 2, 1 })
  tester:eq(s.grad:totable(), { 0 })
  for _, incl in ipairs({ true, false }) do
    local x = torch.DoubleTensor({ 3, 2 }):requiresGrad()
    local src = torch.DoubleTensor({ 0, 4, 0, 5, 0 }):requiresGrad()
    x:scatterReduce(1, torch.LongTensor({ 1, 1, 2, 2, 2 }), src, 'prod', incl):sum():backward()
    tester:eq(x.grad:totable(), { 0, 0 })
    tester:eq(src.grad:totable(), { incl and 12 or 4, 0, 0, 0, 0 }, 'includeSelf ' .. tostring(incl))
  end
  -- gradchecks with one zero per place in self and in src
  local id = torch.LongTensor({ { 1, 3, 1 }, { 2, 2, 1 } })
  for _, incl in ipairs({ true, false }) do
    local b = torch.DoubleTensor({ { 0, 0.5, 2, 0 }, { 1.5, 0.7, 0, 3 } }):requiresGrad()
    local src = torch.DoubleTensor({ { 0.3, 0, 0.9 }, { 0, 1.2, 0.8 } }):requiresGrad()
    check('scatterReduce prod zeros includeSelf ' .. tostring(incl),
      function(x, y) return x:scatterReduce(2, id, y, 'prod', incl) end, { b, src })
  end
end

tester:add(tests)
tester:run()
