-- torch.take, takeAlongDim, put, indexPut, maskedScatter and isin (lua/torch/index_extra.lua):
-- values against reference loops for every dtype and non-contiguous inputs, empty and 0-dim cases,
-- errors (out-of-range indices are errors naming the op), gradchecks in f64, and CUDA against the
-- CPU when a device is present (scatterReduce's too; its CPU suite is test_scatter_reduce.lua).
local tester = torch.Tester()
local tests = torch.TestSuite()
local R = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/ref.lua')
local TYPES, flat, sizes, coords, linear, numel = R.TYPES, R.flat, R.sizes, R.coords, R.linear, R.numel

local sample, cast, check = R.sample_below, R.cast, R.gradchecker(tester)
local function rnd(...) return torch.rand(...):double():requiresGrad() end
local function randidx(n, ...) return torch.LongTensor(...):random(1, n) end
local function is_bool(tname) return tname == 'torch.BoolTensor' end

-- ---- take, takeAlongDim ------------------------------------------------------------------------

function tests.take()
  local m = torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 } })
  tester:eq(torch.take(m, torch.LongTensor({ 1, 6, 2 })):totable(), { 1, 6, 2 })
  tester:eq(m:take({ { 6, 5 }, { -1, -6 } }):totable(), { { 6, 5 }, { 6, 1 } })
  tester:eq(m:t():take(torch.LongTensor({ 2 })):totable(), { 4 })   -- flattened in logical order
  tester:eq(sizes(m:take(torch.LongTensor(0))), { 0 })
  local s = m:take(torch.LongTensor({ 5 }):view({}))
  tester:asserteq(s:dim(), 0)
  tester:asserteq(s:item(), 5)
  torch.manualSeed(1)
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 6, 4, 5):t()
    local idx = randidx(20, 3, 2)
    local v = flat(x)
    local want = {}
    for i, k in ipairs(flat(idx)) do want[i] = v[k] end
    tester:eq(flat(x:take(idx)), want, tname)
    tester:asserteq(x:take(idx):type(), tname)
    tester:eq(sizes(x:take(idx)), { 3, 2 })
  end
  tester:assertErrorPattern(function() m:take({ 7 }) end,
    '%[take%] index 7 is out of range for dimension 1 of size 6 %(at position 1 of the index%)')
  tester:assertErrorPattern(function() m:take({ 1, 0 }) end, '%[take%] index 0 is out of range')
  tester:assertErrorPattern(function() m:take({ -7 }) end, '%[take%] index %-7 is out of range')
  tester:assertErrorPattern(function() m:take(torch.Tensor({ 1 })) end, '%[take%] expected indices as a LongTensor')
  tester:assertErrorPattern(function() m:take('a') end, '%[take%] expected indices %(a LongTensor%)')
  check('take', function(t) return t:take(torch.LongTensor({ { 1, 5 }, { 5, -1 } })) end, { rnd(2, 3) })
end

function tests.takeAlongDim()
  local m = torch.Tensor({ { 10, 30, 20 }, { 60, 40, 50 } })
  local idx = torch.LongTensor({ { 2 }, { 1 } })
  tester:eq(torch.takeAlongDim(m, idx, 2):totable(), { { 30 }, { 60 } })
  local _, am = m:max(2)
  tester:eq(m:takeAlongDim(am, 2):totable(), { { 30 }, { 60 } })
  tester:eq(m:takeAlongDim(torch.LongTensor({ 6, 1 })):totable(), { 50, 10 })
  -- broadcasting outside dim: one row of indices for both rows
  tester:eq(m:takeAlongDim(torch.LongTensor({ { 3, 1 } }), 2):totable(), { { 20, 10 }, { 50, 60 } })
  torch.manualSeed(2)
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 6, 3, 1, 5):transpose(1, 3)   -- 5 x 1 x 3, non-contiguous
    local id = randidx(3, 1, 4, 2)                         -- broadcasts to 5 x 4 along dims 1, 2
    local got = x:takeAlongDim(id, 3)
    tester:eq(sizes(got), { 5, 4, 2 })
    local xv, xs, iv = flat(x), sizes(x), flat(id)
    local want = {}
    for i = 0, numel({ 5, 4, 2 }) - 1 do
      local c = coords(i, { 5, 4, 2 })
      local k = iv[linear({ 1, c[2], c[3] }, { 1, 4, 2 }) + 1]
      want[i + 1] = xv[linear({ c[1], 1, k }, xs) + 1]
    end
    tester:eq(flat(got), want, tname)
  end
  tester:assertErrorPattern(function() m:takeAlongDim(torch.LongTensor({ 1 }), 2) end,
    '%[takeAlongDim%] x has 2 dimensions %(size 2x3%) but the indices have 1')
  tester:assertErrorPattern(function() m:takeAlongDim(torch.LongTensor({ { 4 } }), 2) end, '%[takeAlongDim%] .*out of range')
  tester:assertErrorPattern(function() m:takeAlongDim(torch.LongTensor({ { 1 }, { 1 }, { 1 } }), 2) end,
    '%[takeAlongDim%] x of size 2x3 and indices of size 3x1 do not broadcast outside dimension 2')
  tester:assertErrorPattern(function() m:takeAlongDim(idx, 3) end, '%[takeAlongDim%] dimension 3 out of range')
  check('takeAlongDim', function(t) return t:takeAlongDim(torch.LongTensor({ { 3, 1, 1 } }), 2) end, { rnd(2, 3) })
end

-- ---- put, indexPut -----------------------------------------------------------------------------

function tests.put()
  local m = torch.zeros(2, 2)
  tester:eq(torch.put(m, torch.LongTensor({ 1, 4 }), torch.Tensor({ 5, 6 })):totable(), { { 5, 0 }, { 0, 6 } })
  tester:eq(m:totable(), { { 0, 0 }, { 0, 0 } }, 'put returns a copy')
  tester:eq(m:put({ 2, 2, -1 }, torch.Tensor({ 1, 2, 3 }), true):totable(), { { 0, 3 }, { 0, 3 } })
  tester:eq(m:put({ 2, 2 }, torch.Tensor({ 1, 2 })):totable(), { { 0, 2 }, { 0, 0 } })  -- last wins
  tester:eq(m:put({ 3 }, 9):totable(), { { 0, 0 }, { 9, 0 } })
  local w = torch.zeros(3)
  w:put_({ 2 }, torch.Tensor({ 4 }))
  tester:eq(w:totable(), { 0, 4, 0 })
  torch.manualSeed(3)
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 6, 4, 3):t()   -- 3 x 4 non-contiguous
    local idx = randidx(12, 7)
    local src = sample(tname, 6, 7)
    for _, acc in ipairs({ false, true }) do
      local want = flat(x)
      local sv = flat(src)
      for i, k in ipairs(flat(idx)) do
        want[k] = acc and want[k] + sv[i] or sv[i]
        if acc and is_bool(tname) then want[k] = math.min(want[k], 1) end
      end
      local got = x:put(idx, src, acc)
      if tname == 'torch.ByteTensor' and acc then
        for k = 1, #want do want[k] = want[k] % 256 end
      end
      tester:eq(flat(got), want, tname .. (acc and ' accumulate' or ''))
      tester:eq(sizes(got), { 3, 4 })
    end
  end
  tester:assertErrorPattern(function() m:put({ 5 }, torch.Tensor({ 1 })) end, '%[put%] index 5 is out of range')
  tester:assertErrorPattern(function() m:put({ 1, 2 }, torch.Tensor({ 1 })) end,
    '%[put%] index has 2 elements but source has 1; expected as many')
  tester:assertErrorPattern(function() torch.LongTensor(2):put({ 1 }, torch.Tensor({ 1.5 })) end,
    '%[put%] cannot write a torch.FloatTensor into a torch.LongTensor')
  tester:assertErrorPattern(function() m:put({ 1 }, torch.Tensor({ 1 }), 1) end, '%[put%] accumulate must be a boolean')
  -- without accumulate, repeated targets keep one value: their gradient is undefined (PyTorch's too)
  check('put', function(t, s) return t:put({ 1, 4, -1 }, s) end, { rnd(2, 3), rnd(3) })
  check('put accumulate', function(t, s) return t:put({ 1, 4, 4 }, s, true) end, { rnd(2, 3), rnd(3) })
end

-- Reference of indexPut with integer index tables (one per leading dim, broadcast by the caller).
local function index_put_ref(x, idx_lists, vals, acc, tname)
  local xs = sizes(x)
  local want = flat(x)
  local k = #idx_lists
  local rest = {}
  for d = k + 1, #xs do rest[#rest + 1] = xs[d] end
  local nrest = numel(rest)
  for b = 1, #idx_lists[1] do
    for r = 0, nrest - 1 do
      local c = {}
      for j = 1, k do
        local v = idx_lists[j][b]
        c[j] = v < 0 and v + xs[j] + 1 or v
      end
      local rc = coords(r, rest)
      for j = 1, #rest do c[k + j] = rc[j] end
      local at = linear(c, xs) + 1
      local v = vals[(b - 1) * nrest + r + 1]
      want[at] = acc and want[at] + v or v
      if acc and is_bool(tname) then want[at] = math.min(want[at], 1) end
    end
  end
  return want
end

function tests.indexPut()
  local m = torch.zeros(2, 3)
  tester:eq(torch.indexPut(m, { torch.LongTensor({ 1, 2 }), torch.LongTensor({ 3, 1 }) }, 7):totable(),
    { { 0, 0, 7 }, { 7, 0, 0 } })
  tester:eq(m:indexPut({ torch.LongTensor({ 2 }) }, torch.Tensor({ 1, 2, 3 })):totable(), { { 0, 0, 0 }, { 1, 2, 3 } })
  -- broadcasting of the indices: rows {1, 2} x columns {1, 3} through a 2x1 and a 1x2 index
  tester:eq(m:indexPut({ torch.LongTensor({ { 1 }, { 2 } }), torch.LongTensor({ { 1, -1 } }) }, 5):totable(),
    { { 5, 0, 5 }, { 5, 0, 5 } })
  -- masks
  local mask = torch.BoolTensor({ { true, false, true }, { false, true, false } })
  tester:eq(m:indexPut({ mask }, torch.Tensor({ 1, 2, 3 })):totable(), { { 1, 0, 2 }, { 0, 3, 0 } })
  tester:eq(m:indexPut({ torch.ByteTensor({ 0, 1 }) }, 4):totable(), { { 0, 0, 0 }, { 4, 4, 4 } })
  -- accumulate with repeats
  tester:eq(m:indexPut({ torch.LongTensor({ 1, 1, 1 }), torch.LongTensor({ 2, 2, 3 }) }, torch.Tensor({ 1, 2, 4 }), true)
    :totable(), { { 0, 3, 4 }, { 0, 0, 0 } })
  local w = torch.zeros(2)
  w:indexPut_({ torch.LongTensor({ 2 }) }, 3)
  tester:eq(w:totable(), { 0, 3 })
  torch.manualSeed(4)
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 6, 4, 3, 2):transpose(1, 2)   -- 3 x 4 x 2, non-contiguous
    local i1, i2 = randidx(3, 5), torch.LongTensor(5):random(-4, -1)
    local vals = sample(tname, 6, 5, 2)
    for _, acc in ipairs({ false, true }) do
      local got = x:indexPut({ i1, i2 }, vals, acc)
      local want = index_put_ref(x, { flat(i1), flat(i2) }, flat(vals), acc, tname)
      if tname == 'torch.ByteTensor' and acc then for k = 1, #want do want[k] = want[k] % 256 end end
      if not acc then
        -- repeated targets: the last write wins in both
        tester:eq(flat(got), want, tname)
      else
        tester:eq(flat(got), want, tname .. ' accumulate')
      end
    end
    -- values broadcast over the rest dims
    local got = x:indexPut({ torch.LongTensor({ 2 }) }, sample(tname, 6, 2))
    tester:eq(sizes(got), { 3, 4, 2 })
  end
  tester:eq(sizes(m:indexPut({ torch.LongTensor(0) }, 1)), { 2, 3 })
  tester:assertErrorPattern(function() m:indexPut({ torch.LongTensor({ 3 }) }, 1) end,
    '%[indexPut%] index 3 is out of range for dimension 1 of size 2')
  tester:assertErrorPattern(function() m:indexPut({ torch.LongTensor({ 1 }), torch.LongTensor({ 0 }) }, 1) end,
    '%[indexPut%] index 0 is out of range for dimension 2 of size 3')
  tester:assertErrorPattern(function() m:indexPut({ torch.LongTensor({ 1, 2 }), torch.LongTensor({ 1, 2, 3 }) }, 1) end,
    '%[indexPut%] shape 3 %(argument 2%) does not broadcast with 2')
  tester:assertErrorPattern(function() m:indexPut({ torch.LongTensor({ 1 }) }, torch.Tensor({ 1, 2 })) end,
    '%[indexPut%] values of size 2 do not broadcast to the indexed shape 1x3')
  tester:assertErrorPattern(function() m:indexPut({ torch.BoolTensor({ true, false, true }) }, 1) end,
    '%[indexPut%] mask 1 of size 3 does not match the tensor of size 2x3 at dimension 1')
  tester:assertErrorPattern(function() m:indexPut({ torch.Tensor({ 1 }) }, 1) end,
    '%[indexPut%] index 1 must be a LongTensor or a mask')
  tester:assertErrorPattern(function() m:indexPut({}, 1) end, '%[indexPut%] expected at least one index tensor')
  tester:assertErrorPattern(function() m:indexPut({ torch.LongTensor({ 1 }), torch.LongTensor({ 1 }),
    torch.LongTensor({ 1 }) }, 1) end, '%[indexPut%] too many indices %(3%) for a tensor of size 2x3')
  local i = { torch.LongTensor({ 1, 2, 2 }), torch.LongTensor({ 3, 1, 1 }) }
  check('indexPut', function(t, v) return t:indexPut({ i[1], torch.LongTensor({ 3, 1, 2 }) }, v) end,
    { rnd(2, 3), rnd(3) })
  check('indexPut accumulate', function(t, v) return t:indexPut(i, v, true) end, { rnd(2, 3), rnd(3) })
  check('indexPut broadcast values', function(t, v) return t:indexPut({ torch.LongTensor({ 2, 1 }) }, v) end,
    { rnd(2, 3), rnd(3) })
end

-- ---- maskedScatter, isin -----------------------------------------------------------------------

function tests.maskedScatter()
  local x = torch.zeros(4)
  local mask = torch.BoolTensor({ true, false, true, false })
  tester:eq(torch.maskedScatter(x, mask, torch.Tensor({ 1, 2, 3 })):totable(), { 1, 0, 2, 0 })
  tester:eq(x:totable(), { 0, 0, 0, 0 })
  -- x broadcast with the mask
  local r = torch.zeros(3):maskedScatter(torch.ByteTensor({ { 1, 0, 0 }, { 0, 1, 1 } }), torch.Tensor({ 4, 5, 6 }))
  tester:eq(r:totable(), { { 4, 0, 0 }, { 0, 5, 6 } })
  x:maskedScatter_(mask, torch.Tensor({ 7, 8 }))
  tester:eq(x:totable(), { 7, 0, 8, 0 })
  torch.manualSeed(6)
  for _, tname in ipairs(TYPES) do
    local t = sample(tname, 6, 3, 4):t()
    local m = torch.rand(4, 3):gt(0.5)
    local src = sample(tname, 6, 12)
    local want, k, tv, mv, sv = {}, 0, flat(t), flat(m), flat(src)
    for i = 1, #tv do
      if mv[i] ~= 0 then k = k + 1; want[i] = sv[k] else want[i] = tv[i] end
    end
    tester:eq(flat(t:maskedScatter(m, src)), want, tname)
  end
  tester:assertErrorPattern(function() torch.zeros(4):maskedScatter(mask, torch.Tensor({ 1 })) end,
    '%[maskedScatter%] the mask has 2 true elements but source has only 1 elements')
  tester:assertErrorPattern(function() torch.zeros(3):maskedScatter(mask, torch.Tensor({ 1, 2 })) end,
    '%[maskedScatter%] mask of size 4 does not broadcast with the tensor of size 3')
  tester:assertErrorPattern(function() torch.zeros(4):maskedScatter(torch.Tensor(4), torch.Tensor({ 1 })) end,
    '%[maskedScatter%]')
  tester:assertErrorPattern(function() torch.zeros(4):maskedScatter(mask, torch.LongTensor({ 1, 2 })) end,
    '%[maskedScatter%] source is a torch.LongTensor but the tensor is a torch.FloatTensor')
  -- the in-place forms name themselves (they had reported copy's errors)
  tester:assertErrorPattern(function() torch.zeros(3):maskedScatter_(torch.BoolTensor({ { true }, { false } }),
    torch.Tensor({ 1, 2, 3 })) end, '%[maskedScatter_%] the result has size 2x3 but the tensor has size 3')
  local e = torch.zeros(1, 3):expand(2, 3)
  tester:assertErrorPattern(function() e:put_({ 1 }, torch.Tensor({ 5 })) end,
    '%[put_%] cannot write into an expanded tensor of size 2x3')
  tester:assertErrorPattern(function() e:indexPut_({ torch.LongTensor({ 1 }) }, 5) end, '%[indexPut_%] cannot write')
  tester:assertErrorPattern(function() e:scatterReduce_(1, torch.LongTensor({ { 1 } }), torch.ones(1, 1), 'sum') end,
    '%[scatterReduce_%] cannot write')
  tester:assertErrorPattern(function() e:maskedScatter_(torch.BoolTensor({ true, false, false }), torch.ones(3)) end,
    '%[maskedScatter_%] cannot write')
  check('maskedScatter', function(t, s) return t:maskedScatter(torch.BoolTensor({ { true, false }, { true, true } }), s) end,
    { rnd(2, 2), rnd(5) })
end

function tests.isin()
  local e = torch.Tensor({ { 1, 2 }, { 3, 4 } })
  tester:eq(torch.isin(e, torch.Tensor({ 2, 4, 9 })):totable(), { { false, true }, { false, true } })
  tester:eq(e:isin(torch.Tensor({ 2, 4 }), true):totable(), { { true, false }, { true, false } })
  tester:eq(e:isin(3):totable(), { { false, false }, { true, false } })
  tester:eq(torch.isin(4, e):totable(), true)
  tester:eq(e:isin(torch.LongTensor({ 1 }), { invert = true }):totable(), { { false, true }, { true, true } })
  tester:eq(torch.Tensor({ 0 / 0, 1 }):isin(torch.Tensor({ 0 / 0, 1 })):totable(), { false, true })
  tester:eq(sizes(torch.Tensor(0):isin(e)), { 0 })
  tester:eq(e:isin(torch.Tensor(0)):totable(), { { false, false }, { false, false } })
  tester:asserteq(e:isin(e):type(), 'torch.BoolTensor')
  torch.manualSeed(7)
  for _, tname in ipairs(TYPES) do
    for _, tname2 in ipairs({ tname, 'torch.LongTensor' }) do
      local a = sample(tname, 10, 4, 5):t()
      local b = sample(tname2, 10, 6)
      local av, bv = flat(a), flat(b)
      local want = {}
      for i, v in ipairs(av) do
        local found = false
        for _, w in ipairs(bv) do if v == w then found = true end end
        want[i] = found and 1 or 0
      end
      tester:eq(flat(a:isin(b)), want, tname .. ' in ' .. tname2)
    end
  end
  tester:assertErrorPattern(function() torch.isin(1, 2) end, '%[isin%] expected elements or testElements to be a tensor')
  tester:assertErrorPattern(function() e:isin('a') end, '%[isin%] expected testElements %(a tensor or a number%)')
  tester:assertErrorPattern(function() e:isin(e, 1) end, '%[isin%] invert must be a boolean')
end

-- ---- CUDA --------------------------------------------------------------------------------------

function tests.cudaMatchesCpu()
  if R.no_cuda() then return end
  torch.manualSeed(8)
  for _, tname in ipairs(TYPES) do
    local x = sample(tname, 3, 4, 5):t()
    local g = x:cuda()
    -- (back to the CPU in its own dtype: b:float() rounded CUDA doubles such as 2/3)
    local function same(a, b, what) tester:eq(flat(a), flat(b:to('cpu')), tname .. ' ' .. what) end
    local idx = randidx(20, 6)
    same(x:take(idx), g:take(idx:cuda()), 'take')
    -- x is 5x4: indices along dim 2 (5x2, values 1..4; scatterReduce's below too), along dim 1
    -- (2x4, values 1..5), a 1x1 index broadcast to x's 4 columns, and a table of indices
    local id2 = randidx(4, 5, 2)
    same(x:takeAlongDim(id2, 2), g:takeAlongDim(id2:cuda(), 2), 'takeAlongDim dim 2')
    local id1 = randidx(5, 2, 4)
    same(x:takeAlongDim(id1, 1), g:takeAlongDim(id1:cuda(), 1), 'takeAlongDim dim 1')
    same(x:takeAlongDim(id1:narrow(1, 1, 1):narrow(2, 1, 1), 1), g:takeAlongDim(id1:narrow(1, 1, 1):narrow(2, 1, 1):cuda(), 1),
      'takeAlongDim broadcast')
    same(x:takeAlongDim(id2:totable(), 2), g:takeAlongDim(id2:totable(), 2), 'takeAlongDim of a table')
    local src = sample(tname, 3, 6)
    same(x:put(idx, src, true), g:put(idx:cuda(), src:cuda(), true), 'put')
    local i1, i2 = randidx(5, 3), randidx(4, 3)
    same(x:indexPut({ i1, i2 }, src:narrow(1, 1, 3), true), g:indexPut({ i1:cuda(), i2:cuda() }, src:narrow(1, 1, 3):cuda(), true),
      'indexPut')
    for _, reduce in ipairs({ 'sum', 'prod', 'mean', 'amax', 'amin' }) do
      if not (is_bool(tname) and reduce == 'mean') then
        for _, incl in ipairs({ true, false }) do
          local s2 = sample(tname, 3, 5, 4)
          same(x:scatterReduce(2, id2, s2, reduce, incl), g:scatterReduce(2, id2:cuda(), s2:cuda(), reduce, incl),
            'scatterReduce ' .. reduce)
        end
      end
    end
    local m, ms = torch.rand(5, 4):gt(0.5), sample(tname, 3, 20)  -- (one source for both devices)
    same(x:maskedScatter(m, ms), g:maskedScatter(m:cuda(), ms:cuda()), 'maskedScatter')
    same(x:isin(src), g:isin(src:cuda()), 'isin')
  end
  -- out-of-range indices on the device are errors too
  local g = torch.zeros(3):cuda()
  tester:assertErrorPattern(function() g:take(torch.LongTensor({ 4 }):cuda()) end, '%[take%] index 4 is out of range')
  tester:assertErrorPattern(function()
    g:scatterReduce(1, torch.LongTensor({ 4 }):cuda(), torch.ones(1):cuda(), 'amax')
    torch.cuda.synchronize()
  end, 'scatterReduce')
  -- named by the op, not by the gather/scatterAdd kernel that would report them later
  local g2 = torch.zeros(2, 3):cuda()
  tester:assertErrorPattern(function() g2:takeAlongDim(torch.LongTensor({ { 4 } }):cuda(), 2) end,
    '%[takeAlongDim%] index 4 at position')
  tester:assertErrorPattern(function() g2:scatterReduce(2, torch.LongTensor({ { 0 } }):cuda(), g2, 'sum') end,
    '%[scatterReduce%] index 0 at position')
  tester:assertErrorPattern(function() g2:scatterReduce(2, torch.LongTensor({ { 4 } }):cuda(), g2, 'mean', false) end,
    '%[scatterReduce%] index 4 at position')
  -- gradients through the device
  local gb = torch.randn(3, 4):cuda():requiresGrad()
  local id = torch.LongTensor({ { 1, 3, 1 }, { 2, 2, 1 } })
  gb:scatterReduce(2, id:cuda(), torch.randn(2, 3):cuda(), 'amax'):sum():backward()
  tester:assert(gb.grad ~= nil, 'scatterReduce gradient on CUDA')
end

tester:add(tests)
tester:run()
