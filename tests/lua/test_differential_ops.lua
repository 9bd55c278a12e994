-- Differential tests of the CPU kernels (tests/lua/differential/common.lua says what they check):
-- matrix products, indexing, joins, pooling, upsampling, padding, convolution, empty dims
-- (copies: test_differential_copies.lua).
require 'nn'
local F = nn.functional
local tester = torch.Tester()
local tests = torch.TestSuite()
local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/differential/common.lua')(tester)
local gens, SIZES, SENTINEL, MVEC, layout_tol, shape, is_float, position, compare, check_same, pack, run, with_sizes, layouts, LAYOUTS, clone_all, check_layouts, check_precision, check_out, randn, rand, frandn = H.gens, H.SIZES, H.SENTINEL, H.MVEC, H.layout_tol, H.shape, H.is_float, H.position, H.compare, H.check_same, H.pack, H.run, H.with_sizes, H.layouts, H.LAYOUTS, H.clone_all, H.check_layouts, H.check_precision, H.check_out, H.randn, H.rand, H.frandn

-- ---- matrix products ---------------------------------------------------------------------------------

local MM_SHAPES = { { 1, 1, 1 }, { 2, 3, 4 }, { 7, 5, 9 }, { 17, 33, 8 }, { 65, 17, 33 }, { 1, 40, 1 }, { 40, 1, 30 },
  { 0, 3, 4 }, { 3, 0, 4 }, { 3, 4, 0 }, { 130, 70, 90 } }

function tests.matmulLayoutsAndPrecision()
  torch.manualSeed(13)
  for _, s in ipairs(MM_SHAPES) do
    local n, k, m = s[1], s[2], s[3]
    local A, B = frandn(n, k), frandn(k, m)
    local M, v, w, u = frandn(n, m), frandn(k), frandn(n), frandn(m)
    local tag = string.format(' %dx%dx%d', n, k, m)
    local tol = { rtol = 1e-6, atol = 2e-6 * math.sqrt(k + 1) }
    local ptol = 2e-6 * math.sqrt(k + 1)
    local cases = {
      { 'mm', function(a, b) return torch.mm(a, b) end, { A, B } },
      { 'mv', function(a, b) return torch.mv(a, b) end, { A, v } },
      { 'addmm', function(c, a, b) return torch.addmm(0.5, c, -2, a, b) end, { M, A, B } },
      { 'addmv', function(c, a, b) return torch.addmv(0.5, c, -2, a, b) end, { w, A, v } },
      { 'ger', function(a, b) return torch.ger(a, b) end, { w, u } },
      { 'addr', function(c, a, b) return torch.addr(0.5, c, 2, a, b) end, { M, w, u } },
      { 'dot', function(a, b) return torch.dot(a, b) end, { v, v:clone():mul(-1.5) } },
      { 'a * b', function(a, b) return a * b end, { A, B } },
    }
    for _, c in ipairs(cases) do
      local f32 = {}
      for i, t in ipairs(c[3]) do f32[i] = t:float() end
      check_layouts(c[1] .. tag, c[2], f32, tol)
      check_precision(c[1] .. tag, c[2], c[3], 1e-5, ptol)
    end
    -- batched: b x n x k times b x k x m
    local bA, bB, bM = frandn(3, n, k), frandn(3, k, m), frandn(3, n, m)
    local bcases = {
      { 'bmm', function(a, b) return torch.bmm(a, b) end, { bA, bB } },
      { 'baddbmm', function(c, a, b) return torch.baddbmm(0.5, c, 2, a, b) end, { bM, bA, bB } },
      { 'addbmm', function(c, a, b) return torch.addbmm(0.5, c, 2, a, b) end, { M, bA, bB } },
    }
    for _, c in ipairs(bcases) do
      local f32 = {}
      for i, t in ipairs(c[3]) do f32[i] = t:float() end
      check_layouts(c[1] .. tag, c[2], f32, { rtol = 1e-6, atol = 2e-6 * math.sqrt(3 * k + 1) })
      check_precision(c[1] .. tag, c[2], c[3], 1e-5, 2e-6 * math.sqrt(3 * k + 1))
    end
  end
  -- the transposed operands of a product as their own test: every combination of a' and b'
  local A, B = frandn(37, 21):float(), frandn(21, 45):float()
  local ref = torch.mm(A, B)
  for ta = 0, 1 do
    for tb = 0, 1 do
      local a = ta == 1 and A:t():clone():t() or A
      local b = tb == 1 and B:t():clone():t() or B
      check_same({ torch.mm(a, b) }, { ref }, 1e-6, 1e-5, string.format('mm with a%s b%s', ta == 1 and "'" or '', tb == 1 and "'" or ''))
    end
  end
  -- a reference in plain Lua for a few small products
  local a, b = frandn(3, 4), frandn(4, 2)
  local r = torch.DoubleTensor(3, 2):zero()
  for i = 1, 3 do for j = 1, 2 do for k = 1, 4 do r[i][j] = r[i][j] + a[i][k] * b[k][j] end end end
  check_same({ torch.mm(a, b) }, { r }, 1e-12, 1e-12, 'mm 3x4x2 against Lua')
  check_same({ torch.mm(a:float(), b:float()) }, { r }, 1e-6, 1e-6, 'mm 3x4x2 f32 against Lua')
end

function tests.matmulResultForms()
  torch.manualSeed(14)
  local A, B, v, w, u = frandn(7, 5):float(), frandn(5, 9):float(), frandn(5):float(), frandn(7):float(), frandn(9):float()
  local M = frandn(7, 9):float()
  local bA, bB, bM = frandn(3, 7, 5):float(), frandn(3, 5, 9):float(), frandn(3, 7, 9):float()
  local t = { rtol = 1e-6, atol = 1e-6 }
  check_out('mm', function(a, b) return torch.mm(a, b) end, function(r, a, b) return torch.mm(r, a, b) end, { A, B }, t)
  check_out('mm method', function(a, b) return torch.mm(a, b) end, function(r, a, b) return r:mm(a, b) end, { A, B }, t)
  check_out('mv', function(a, b) return torch.mv(a, b) end, function(r, a, b) return torch.mv(r, a, b) end, { A, v }, t)
  check_out('bmm', function(a, b) return torch.bmm(a, b) end, function(r, a, b) return torch.bmm(r, a, b) end, { bA, bB }, t)
  check_out('ger', function(a, b) return torch.ger(a, b) end, function(r, a, b) return torch.ger(r, a, b) end, { w, u }, t)
  check_out('addmm', function(c, a, b) return torch.addmm(0.5, c, 2, a, b) end,
    function(r, c, a, b) return torch.addmm(r, 0.5, c, 2, a, b) end, { M, A, B }, t)
  check_out('addmv', function(c, a, b) return torch.addmv(0.5, c, 2, a, b) end,
    function(r, c, a, b) return torch.addmv(r, 0.5, c, 2, a, b) end, { w, A, v }, t)
  check_out('addr', function(c, a, b) return torch.addr(0.5, c, 2, a, b) end,
    function(r, c, a, b) return torch.addr(r, 0.5, c, 2, a, b) end, { M, w, u }, t)
  check_out('baddbmm', function(c, a, b) return torch.baddbmm(0.5, c, 2, a, b) end,
    function(r, c, a, b) return torch.baddbmm(r, 0.5, c, 2, a, b) end, { bM, bA, bB }, t)
  check_out('addbmm', function(c, a, b) return torch.addbmm(0.5, c, 2, a, b) end,
    function(r, c, a, b) return torch.addbmm(r, 0.5, c, 2, a, b) end, { M, bA, bB }, t)
  -- the in-place methods on non-contiguous tensors
  local ref = torch.addmm(0.5, M, 2, A, B)
  for _, lay in ipairs({ 'contiguous', 'transposed', 'narrowed', 'stepped' }) do
    local m2 = lay == 'contiguous' and M:clone() or layouts[lay](M)
    m2:addmm(0.5, 2, A, B)
    check_same({ m2 }, { ref }, 1e-6, 1e-6, 'M:addmm(0.5, 2, A, B) with M ' .. lay)
    local m3 = lay == 'contiguous' and M:clone() or layouts[lay](M)
    m3:addr(0.5, 2, w, u)
    check_same({ m3 }, { torch.addr(0.5, M, 2, w, u) }, 1e-6, 1e-6, 'M:addr(0.5, 2, w, u) with M ' .. lay)
    local w2 = lay == 'contiguous' and w:clone() or layouts[lay](w)
    if w2 then
      w2:addmv(0.5, 2, A, v)
      check_same({ w2 }, { torch.addmv(0.5, w, 2, A, v) }, 1e-6, 1e-6, 'w:addmv(0.5, 2, A, v) with w ' .. lay)
    end
    local b2 = lay == 'contiguous' and bM:clone() or layouts[lay](bM)
    b2:baddbmm(0.5, 2, bA, bB)
    check_same({ b2 }, { torch.baddbmm(0.5, bM, 2, bA, bB) }, 1e-6, 1e-6, 'bM:baddbmm(0.5, 2, bA, bB) with bM ' .. lay)
  end
  -- beta = 0 with M of another size than the product is still the product
  local m0 = M:clone()
  m0:addmm(0, 1, A, B)
  check_same({ m0 }, { torch.mm(A, B) }, 1e-6, 1e-6, 'M:addmm(0, 1, A, B)')
end

-- ---- indexing ----------------------------------------------------------------------------------------

function tests.indexingLayouts()
  torch.manualSeed(15)
  local x = frandn(6, 7, 5):float()
  for d = 1, 3 do
    local n = x:size(d)
    local idx = torch.LongTensor({ n, 1, 2, n, 2 })
    check_layouts('index along ' .. d, function(a, i) return torch.index(a, d, i) end, { x, idx })
    check_layouts('method index along ' .. d, function(a, i) return a:index(d, i) end, { x, idx })
    -- gather: an index of the source's size with the dim shrunk
    local gsz = x:size():totable()
    gsz[d] = 3
    local gi = torch.LongTensor():resize(torch.LongStorage(gsz)):random(1, n)
    check_layouts('gather along ' .. d, function(a, i) return torch.gather(a, d, i) end, { x, gi })
    -- scatter / scatterAdd into a copy: distinct targets for scatter
    local si = torch.LongTensor():resize(torch.LongStorage(gsz))
    local sidx = torch.randperm(n):long():narrow(1, 1, 3)
    local view = {}
    for k = 1, 3 do view[k] = 1 end
    view[d] = 3
    si:copy(sidx:view(unpack(view)):expand(torch.LongStorage(gsz)))
    local src = frandn(unpack(gsz)):float()
    check_layouts('scatter along ' .. d, function(a, i, s) return a:scatter(d, i, s) end, { x, si, src }, { writes = { true } })
    check_layouts('scatter value along ' .. d, function(a, i) return a:scatter(d, i, 2.5) end, { x, si }, { writes = { true } })
    check_layouts('scatterAdd along ' .. d, function(a, i, s) return a:scatterAdd(d, i, s) end, { x, gi, src },
      { writes = { true }, rtol = 1e-6, atol = 1e-6 })
    check_layouts('torch.scatter along ' .. d, function(a, i, s) return torch.scatter(a, d, i, s) end, { x, si, src })
    -- indexCopy / indexAdd / indexFill with distinct and repeated indices
    local csz = x:size():totable()
    csz[d] = 3
    local csrc = frandn(unpack(csz)):float()
    local distinct = torch.randperm(n):long():narrow(1, 1, 3)
    local repeated = torch.LongTensor({ 2, 1, 2 })
    check_layouts('indexCopy along ' .. d, function(a, i, s) return a:indexCopy(d, i, s) end, { x, distinct, csrc }, { writes = { true } })
    check_layouts('indexAdd along ' .. d, function(a, i, s) return a:indexAdd(d, i, s) end, { x, repeated, csrc },
      { writes = { true }, rtol = 1e-6, atol = 1e-6 })
    check_layouts('indexFill along ' .. d, function(a, i) return a:indexFill(d, i, -3) end, { x, repeated }, { writes = { true } })
    check_layouts('torch.indexAdd along ' .. d, function(a, i, s) return torch.indexAdd(a, d, i, s) end, { x, repeated, csrc },
      { rtol = 1e-6, atol = 1e-6 })
  end
  -- flip: one index_select per dim (Note [Flip as index_select]), so every layout of each pass
  for _, dims in ipairs({ { 1 }, { 2 }, { 3 }, { 1, 3 }, { 3, 2, 1 } }) do
    check_layouts('flip ' .. table.concat(dims, ','), function(a) return a:flip(dims) end, { x })
  end
  local mask = torch.gt(frandn(6, 7, 5), 0.2)
  check_layouts('maskedSelect', function(a, m) return torch.maskedSelect(a, m) end, { x, mask })
  check_layouts('maskedFill', function(a, m) return a:maskedFill(m, -7) end, { x, mask }, { writes = { true } })
  local nsel = mask:sum()
  check_layouts('maskedCopy', function(a, m, s) return a:maskedCopy(m, s) end, { x, mask, frandn(nsel):float() },
    { writes = { true }, noexpand = { false, true } })  -- an expanded mask selects another count
  check_layouts('nonzero', function(m) return torch.nonzero(m) end, { mask })
  -- a broadcast mask (a row of the mask expanded)
  local row = torch.gt(frandn(1, 7, 5), 0)
  check_same({ torch.maskedSelect(x, row:expandAs(x)) }, { torch.maskedSelect(x, row:expandAs(x):clone()) }, 0, 0, 'maskedSelect with an expanded mask')
  check_same({ x:clone():maskedFill(row:expandAs(x), 1) }, { x:clone():maskedFill(row:expandAs(x):clone(), 1) }, 0, 0, 'maskedFill with an expanded mask')
  -- sizes around the grain for masks and index
  for _, n in ipairs(SIZES) do
    local y = frandn(n):float()
    local m = torch.gt(y, 0)
    local sel = torch.maskedSelect(y, m)
    check_same({ torch.maskedSelect(layouts.stepped(y), layouts.stepped(m)) }, { sel }, 0, 0, 'maskedSelect of ' .. n .. ' stepped')
    tester:assert(sel:nElement() == m:sum(), 'maskedSelect of ' .. n .. ' elements: count')
    tester:assert(sel:nElement() == 0 or torch.gt(sel, 0):all(), 'maskedSelect of ' .. n .. ' elements: values')
    local f = y:clone():maskedFill(m, 0)
    tester:assert(torch.le(f, 0):all() and torch.eq(torch.cmul(f, torch.le(y, 0):float()), f):all(), 'maskedFill of ' .. n .. ' elements')
    check_same({ layouts.stepped(y):maskedFill(layouts.stepped(m), 0) }, { f }, 0, 0, 'maskedFill of ' .. n .. ' stepped')
    local idx = torch.randperm(n):long()
    local g = y:index(1, idx)
    check_same({ layouts.stepped(y):index(1, idx) }, { g }, 0, 0, 'index of ' .. n .. ' stepped')
    check_same({ torch.gather(y, 1, idx) }, { g }, 0, 0, 'gather of ' .. n .. ' elements = index')
    local back = torch.FloatTensor(n):zero():indexCopy(1, idx, g)
    check_same({ back }, { y }, 0, 0, 'indexCopy of ' .. n .. ' elements undoes index')
    local back2 = torch.FloatTensor(n):zero():scatter(1, idx, g)
    check_same({ back2 }, { y }, 0, 0, 'scatter of ' .. n .. ' elements undoes gather')
    local nz = torch.nonzero(m)
    tester:assert(nz:size(1) == m:sum(), 'nonzero of ' .. n .. ' elements: count')
    if nz:nElement() > 0 then check_same({ y:index(1, nz:view(-1)) }, { sel }, 0, 0, 'nonzero of ' .. n .. ' elements: positions') end
  end
  -- f32 vs f64 of the indexAdd accumulation
  check_precision('indexAdd', function(a, i, s) return a:indexAdd(1, i, s) end,
    { frandn(5, 4), torch.LongTensor({ 1, 1, 3, 1, 5, 5 }), frandn(6, 4) }, 1e-6, 1e-6)
end

function tests.indexingResultForms()
  torch.manualSeed(16)
  local x = frandn(6, 7):float()
  local idx = torch.LongTensor({ 3, 1, 6, 3 })
  check_out('index', function(a, i) return torch.index(a, 1, i) end, function(r, a, i) return torch.index(r, a, 1, i) end, { x, idx })
  check_out('index method', function(a, i) return a:index(2, i) end, function(r, a, i) return r:index(a, 2, i) end, { x, idx })
  local gi = torch.LongTensor(6, 3):random(1, 7)
  check_out('gather', function(a, i) return torch.gather(a, 2, i) end, function(r, a, i) return torch.gather(r, a, 2, i) end, { x, gi })
  local mask = torch.gt(frandn(6, 7), 0)
  check_out('maskedSelect', function(a, m) return torch.maskedSelect(a, m) end, function(r, a, m) return torch.maskedSelect(r, a, m) end, { x, mask })
  check_out('nonzero', function(m) return torch.nonzero(m) end, function(r, m) return torch.nonzero(r, m) end, { mask })
  -- the copying torch.f forms leave their input alone
  local x0 = x:clone()
  torch.maskedFill(x, mask, 1)
  torch.indexFill(x, 1, idx, 2)
  torch.indexAdd(x, 1, idx, frandn(4, 7):float())
  torch.scatter(x, 2, gi, 3)
  check_same({ x }, { x0 }, 0, 0, 'torch.maskedFill/indexFill/indexAdd/scatter leave their input unchanged')
end

-- ---- joins and splits --------------------------------------------------------------------------------

function tests.joinLayoutsAndResultForms()
  torch.manualSeed(17)
  for d = 1, 4 do
    local a, b, c = frandn(4, 5, 6):float(), frandn(4, 5, 6):float(), frandn(4, 5, 6):float()
    if d <= 3 then
      local bs = b:size():totable()
      bs[d] = 1
      b = frandn(unpack(bs)):float()
      local cs = c:size():totable()
      cs[d] = 0
      c = torch.FloatTensor():resize(torch.LongStorage(cs))
    end
    check_layouts('cat of two along ' .. d, function(p, q) return torch.cat(p, q, d) end, { a, b })
    check_layouts('cat of a table along ' .. d, function(p, q, r) return torch.cat({ p, q, r, p }, d) end, { a, b, c })
    check_out('cat along ' .. d, function(p, q) return torch.cat(p, q, d) end, function(r, p, q) return torch.cat(r, p, q, d) end, { a, b })
    check_out('cat of a table along ' .. d, function(p, q) return torch.cat({ p, q, p }, d) end,
      function(r, p, q) return torch.cat(r, { p, q, p }, d) end, { a, b })
  end
  -- cat of 1-D tensors around the grain, with empty ones
  for _, n in ipairs({ 1, 9, 32767, 32768, 40000 }) do
    local a, b = frandn(n):float(), frandn(n + 1):float()
    local r = torch.cat({ a, torch.FloatTensor(), b })
    check_same({ r:narrow(1, 1, n), r:narrow(1, n + 1, n + 1) }, { a, b }, 0, 0, 'cat of ' .. n .. ' and ' .. (n + 1))
    check_same({ torch.cat(layouts.stepped(a), layouts.stepped(b)) }, { r }, 0, 0, 'cat of stepped ' .. n .. ' and ' .. (n + 1))
  end
  -- stack
  local a, b = frandn(3, 4):float(), frandn(3, 4):float()
  for d = 1, 3 do
    check_layouts('stack along ' .. d, function(p, q) return torch.stack({ p, q }, d) end, { a, b })
  end
  -- split / chunk: the pieces are the narrows (values compared on non-contiguous inputs too)
  local x = frandn(7, 10):float()
  for d = 1, 2 do
    for _, size in ipairs({ 1, 3, x:size(d), x:size(d) + 2 }) do
      check_layouts(string.format('split %d along %d', size, d), function(t)
        local parts = torch.split(t, size, d)
        local out = {}
        for k, p in ipairs(parts) do out[k] = p:clone() end
        return unpack(out)
      end, { x })
      local parts = torch.split(x, size, d)
      local at = 1
      for k, p in ipairs(parts) do
        local len = math.min(size, x:size(d) - at + 1)
        check_same({ p }, { x:narrow(d, at, len) }, 0, 0, string.format('split %d along %d, part %d', size, d, k))
        at = at + len
      end
      tester:assert(at == x:size(d) + 1, string.format('split %d along %d covers the tensor', size, d))
    end
    for _, n in ipairs({ 1, 2, 3, 4 }) do
      local parts = torch.chunk(x, n, d)
      local joined = torch.cat(parts, d)
      check_same({ joined }, { x }, 0, 0, string.format('chunk %d along %d, joined back', n, d))
    end
  end
end

-- ---- pooling, upsampling, padding, convolution -------------------------------------------------------

function tests.spatialOpsLayoutsAndPrecision()
  torch.manualSeed(18)
  local x = frandn(2, 3, 9, 11):float()
  local x1 = frandn(2, 3, 13):float()
  local x5 = frandn(2, 3, 5, 6, 7):float()
  local cases = {
    { 'maxPool2d 3 stride 2 pad 1', function(t) return F.maxPool2d(t, 3, 2, 1) end, x },
    { 'maxPool2d 2 ceil', function(t) return F.maxPool2d(t, 2, 2, 0, 1, true) end, x },
    { 'avgPool2d 3 stride 2 pad 1', function(t) return F.avgPool2d(t, 3, 2, 1) end, x, 1e-6 },
    { 'avgPool2d 2 no pad count', function(t) return F.avgPool2d(t, { 2, 3 }, { 1, 2 }, { 1, 1 }, false, false) end, x, 1e-6 },
    { 'adaptiveAvgPool2d', function(t) return F.adaptiveAvgPool2d(t, { 4, 5 }) end, x, 1e-6 },
    { 'adaptiveMaxPool2d', function(t) return F.adaptiveMaxPool2d(t, { 4, 5 }) end, x },
    { 'maxPool3d', function(t) return F.maxPool3d(t, 2, 2, 1) end, x5 },
    { 'avgPool3d', function(t) return F.avgPool3d(t, 3, 2, 1) end, x5, 1e-6 },
    { 'temporalMaxPool', function(t) return F.temporalMaxPool(t, 3, 2) end, frandn(2, 13, 5):float() },
    { 'interpolate nearest 2d', function(t) return F.interpolate(t, { size = { 14, 5 } }) end, x },
    { 'interpolate bilinear', function(t) return F.interpolate(t, { size = { 14, 17 }, mode = 'bilinear' }) end, x, 1e-6 },
    { 'interpolate bilinear aligned', function(t) return F.interpolate(t, { scaleFactor = 2, mode = 'bilinear', alignCorners = true }) end, x, 1e-6 },
    { 'interpolate linear', function(t) return F.interpolate(t, { size = 20, mode = 'linear' }) end, x1, 1e-6 },
    { 'interpolate nearest 1d', function(t) return F.interpolate(t, { scaleFactor = 3 }) end, x1 },
    { 'pad constant', function(t) return F.pad(t, { 1, 2, 3, 0 }, 'constant', 0.5) end, x },
    { 'pad reflect', function(t) return F.pad(t, { 2, 1, 1, 3 }, 'reflect') end, x },
    { 'pad replicate', function(t) return F.pad(t, { 2, 1, 1, 3 }, 'replicate') end, x },
    { 'pad crop', function(t) return F.pad(t, { -1, 2, 0, -2 }) end, x },
    { 'pad 1d reflect', function(t) return F.pad(t, { 3, 2 }, 'reflect') end, x1 },
    { 'pad 3d replicate', function(t) return F.pad(t, { 1, 1, 2, 0, 1, 2 }, 'replicate') end, x5 },
    { 'pixelShuffle', function(t) return F.pixelShuffle(t, 2) end, frandn(2, 8, 3, 5):float() },
  }
  for _, c in ipairs(cases) do
    local tol = c[4] or 0
    check_layouts(c[1], c[2], { c[3] }, { rtol = tol, atol = tol })
    check_precision(c[1], c[2], { c[3]:double() }, 1e-5, 1e-6)
    -- channels-last strides (N x H x W x C memory, viewed as N x C x H x W)
    if c[3]:dim() == 4 then
      local cl = c[3]:permute(1, 3, 4, 2):clone():permute(1, 4, 2, 3)
      local got = run(c[1] .. ' channels-last', c[2], cl)
      if got then check_same(got, { c[2](c[3]) }, tol, tol, c[1] .. ', channels-last input') end
    end
  end
  -- maxUnpool2d inverts maxPool2d's selection
  local y, ind = torch.maxPool2d(x, 2)
  check_layouts('maxUnpool2d', function(v, i) return F.maxUnpool2d(v, i, 2, 2, 0, { 9, 11 }) end, { y, ind }, { noexpand = { true, true } })
  -- convolutions: non-contiguous inputs and weights, including the 1x1 transposed convolution with
  -- output padding and a stride
  local w2, b2 = frandn(4, 3, 3, 3):float(), frandn(4):float()
  local convs = {
    { 'conv2d', function(t, w, b) return torch.conv2d(t, w, b, { 2, 1 }, { 1, 1 }) end, { x, w2, b2 } },
    { 'conv2d 1x1', function(t, w, b) return torch.conv2d(t, w, b) end, { x, frandn(5, 3, 1, 1):float(), frandn(5):float() } },
    { 'conv1d', function(t, w, b) return torch.conv1d(t, w, b, 2, 1) end, { x1, frandn(4, 3, 3):float(), frandn(4):float() } },
    { 'conv3d', function(t, w, b) return torch.conv3d(t, w, b, 1, 1) end, { x5, frandn(2, 3, 2, 2, 2):float(), frandn(2):float() } },
    { 'convTranspose2d', function(t, w, b) return torch.convTranspose2d(t, w, b, 2, 1, 1) end, { x, frandn(3, 4, 3, 3):float(), frandn(4):float() } },
    { 'convTranspose2d 1x1 outpad', function(t, w, b) return torch.convTranspose2d(t, w, b, 2, 0, 1) end, { x, frandn(3, 4, 1, 1):float(), frandn(4):float() } },
    { 'convTranspose1d 1x1 outpad', function(t, w, b) return torch.convTranspose1d(t, w, b, 3, 0, 2) end, { x1, frandn(3, 2, 1):float(), frandn(2):float() } },
  }
  for _, c in ipairs(convs) do
    check_layouts(c[1], c[2], c[3], { rtol = 1e-5, atol = 1e-5 })
    local d = {}
    for i, t in ipairs(c[3]) do d[i] = t:double() end
    check_precision(c[1], c[2], d, 1e-5, 1e-5)
  end
end

-- ---- the 2x2 max pooling fast path and dims of size 0 ---------------------------------------------

-- maxPool2d(2, 2) computes rows in whole vector blocks that run past a row's end (Note [Whole-block
-- pooling rows] in kernels/cpu/pool2d.cpp): against a max over :unfold windows, for widths around the
-- block size, odd sizes with ceil mode, and batches split over threads; the indices must point at the maxima.
function tests.maxPool2x2AgainstUnfold()
  torch.manualSeed(19)
  local function ref(x, ceil)
    local N, C, H, W = x:size(1), x:size(2), x:size(3), x:size(4)
    local ph, pw = 0, 0
    if ceil then ph, pw = H % 2, W % 2 end
    local xp = (ph + pw > 0) and F.pad(x, { 0, pw, 0, ph }, 'constant', -math.huge) or x
    local u = xp:unfold(3, 2, 2):unfold(4, 2, 2)
    local oH, oW = u:size(3), u:size(4)
    return torch.max(u:contiguous():view(N, C, oH, oW, 4), 5):view(N, C, oH, oW)
  end
  local shapes = { { 1, 1, 2, 2 }, { 1, 1, 3, 3 }, { 2, 3, 5, 7 }, { 1, 2, 2, 17 }, { 1, 1, 4, 33 }, { 3, 5, 28, 28 },
    { 2, 4, 14, 14 }, { 64, 32, 28, 28 }, { 7, 3, 9, 31 }, { 2, 2, 6, 65 }, { 1, 1, 64, 2 }, { 1, 3, 2, 64 }, { 5, 1, 31, 15 } }
  for _, s in ipairs(shapes) do
    for _, ceil in ipairs({ false, true }) do
      for _, dt in ipairs({ 'float', 'double' }) do
        local x = torch.randn(unpack(s))[dt](torch.randn(unpack(s)))
        local what = string.format('maxPool2d 2 of %s %s%s', shape(x), dt, ceil and ' ceil' or '')
        local got = run(what, torch.maxPool2d, x, 2, 2, 0, ceil)
        if got then
          local y, ind = got[1], got[2]
          check_same({ y }, { ref(x, ceil) }, 0, 0, what)
          local N, C = s[1], s[2]
          check_same({ x:contiguous():view(N, C, -1):gather(3, ind:view(N, C, -1)):viewAs(y) }, { y }, 0, 0, what .. ': indices')
        end
      end
    end
  end
end

-- Ops on tensors with a dim of size 0 give the empty or neutral results.
function tests.zeroSizedDims()
  local e, e2 = torch.FloatTensor(0, 5), torch.FloatTensor(5, 0)
  local function is(what, f, want)
    local got = run(what, f)
    if got then check_same({ got[1] }, { want }, 0, 0, what) end
  end
  local nan = 0 / 0
  is('sort of 0x5 along 2', function() return torch.sort(e, 2) end, torch.FloatTensor(0, 5))
  is('topk 2 of 0x5 along 2', function() return torch.topk(e, 2, 2) end, torch.FloatTensor(0, 2))
  is('cumsum of 5x0 along 2', function() return torch.cumsum(e2, 2) end, torch.FloatTensor(5, 0))
  is('softmax of 0x5', function() return torch.softmax(e, 2) end, torch.FloatTensor(0, 5))
  is('sum of 5x0 along 2', function() return torch.sum(e2, 2) end, torch.zeros(5, 1))
  is('prod of 5x0 along 2', function() return torch.prod(e2, 2) end, torch.ones(5, 1))
  is('mean of 5x0 along 2', function() return torch.mean(e2, 2) end, torch.FloatTensor(5, 1):fill(nan))
  is('logsumexp of 5x0 along 2', function() return torch.logsumexp(e2, 2) end, torch.FloatTensor(5, 1):fill(-math.huge))
  is('norm of 5x0 along 2', function() return torch.norm(e2, 2, 2) end, torch.zeros(5, 1))
  is('max of 0x5 along 2', function() return torch.max(e, 2) end, torch.FloatTensor(0, 1))
  is('argmax of 0x5 along 2', function() return torch.argmax(e, 2, true) end, torch.LongTensor(0, 1))
  is('argmax of 0x5 along 2, dropped', function() return torch.argmax(e, 2) end, torch.LongTensor(0))
  is('flip of 0x5', function() return torch.flip(e, { 1, 2 }) end, torch.FloatTensor(0, 5))
  is('flip of 5x0', function() return torch.flip(e2, 2) end, torch.FloatTensor(5, 0))
  is('mm 5x0 by 0x3', function() return torch.mm(e2, torch.FloatTensor(0, 3)) end, torch.zeros(5, 3))
  is('addmm with 5x0 by 0x3', function() return torch.addmm(torch.ones(5, 3), e2, torch.FloatTensor(0, 3)) end, torch.ones(5, 3))
  is('mv 5x0 by 0', function() return torch.mv(e2, torch.FloatTensor(0)) end, torch.zeros(5))
  is('addmv with 5x0', function() return torch.addmv(torch.ones(5), e2, torch.FloatTensor(0)) end, torch.ones(5))
  is('bmm 2x5x0 by 2x0x3', function() return torch.bmm(torch.FloatTensor(2, 5, 0), torch.FloatTensor(2, 0, 3)) end, torch.zeros(2, 5, 3))
  is('baddbmm with 2x5x0', function() return torch.baddbmm(torch.ones(2, 5, 3), torch.FloatTensor(2, 5, 0), torch.FloatTensor(2, 0, 3)) end, torch.ones(2, 5, 3))
  is('addbmm with 2x5x0', function() return torch.addbmm(torch.ones(5, 3), torch.FloatTensor(2, 5, 0), torch.FloatTensor(2, 0, 3)) end, torch.ones(5, 3))
  is('dot of empty vectors', function() return torch.dot(torch.FloatTensor(0), torch.FloatTensor(0)) end, 0)
  is('cat of 0x5 and 1x5', function() return torch.cat(e, torch.ones(1, 5), 1) end, torch.ones(1, 5))
  is('cat of 5x0 and 5x2 along 2', function() return torch.cat(e2, torch.ones(5, 2), 2) end, torch.ones(5, 2))
  is('add 0x5 and 1x5', function() return torch.add(e, torch.ones(1, 5)) end, torch.FloatTensor(0, 5))
  is('gather of 3x0 indices', function() return torch.gather(torch.ones(3, 4), 2, torch.LongTensor(3, 0)) end, torch.FloatTensor(3, 0))
  is('maxPool2d of an empty batch', function() return torch.maxPool2d(torch.FloatTensor(0, 3, 4, 4), 2) end, torch.FloatTensor(0, 3, 2, 2))
end


tester:add(tests)
tester:run(os.getenv('TOCHA_DIFF_ONLY'))  -- a pattern to run some of the tests
