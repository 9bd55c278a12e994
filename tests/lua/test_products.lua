-- torch.matmul, outer, tensordot and einsum (lua/torch/products.lua): matmul against explicit
-- loops of mm/mv/dot for every rank pair and broadcast, einsum against matmul/sum/diag/permute,
-- non-contiguous and empty inputs, dtypes, error messages and gradchecks (CUDA against the CPU:
-- test_products_cuda.lua).
local tester = torch.Tester()
local tests = torch.TestSuite()
local gc = torch.autograd.gradcheck
local D = torch.DoubleTensor

local function rnd(...) return torch.randn(...):double() end
local function check_grad(name, fn, inputs)
  local ok, err = pcall(gc, fn, inputs)
  tester:assert(ok and err, name .. ': ' .. tostring(err))
end
local function close(got, want, tol, what)
  tester:eq(got:size():totable(), want:size():totable(), what .. ' (size)')
  tester:assertTensorEq(got:double(), want:double(), tol or 1e-10, what)
end

-- ---- matmul against loops ------------------------------------------------------------------

-- PyTorch's matmul written as a loop of mm over the broadcast batch (the reference).
local function ref_matmul(a, b)
  if a:dim() == 1 and b:dim() == 1 then return D({ torch.dot(a, b) }):view({}) end
  local A = a:dim() == 1 and a:view(1, a:size(1)) or a
  local B = b:dim() == 1 and b:view(b:size(1), 1) or b
  local ba, bb = {}, {}
  for i = 1, A:dim() - 2 do ba[i] = A:size(i) end
  for i = 1, B:dim() - 2 do bb[i] = B:size(i) end
  local nb = math.max(#ba, #bb)
  local batch = {}
  for i = 1, nb do
    local x, y = ba[i - nb + #ba] or 1, bb[i - nb + #bb] or 1
    assert(x == y or x == 1 or y == 1)
    batch[i] = x == 1 and y or x
  end
  local n, p = A:size(A:dim() - 1), B:size(B:dim())
  local out_size = {}
  for i = 1, nb do out_size[i] = batch[i] end
  out_size[nb + 1], out_size[nb + 2] = n, p
  local r = D(torch.LongStorage(out_size)):zero()
  local count = 1
  for i = 1, nb do count = count * batch[i] end
  for lin = 0, count - 1 do
    local idx, rest = {}, lin
    for i = nb, 1, -1 do idx[i] = rest % batch[i] + 1; rest = math.floor(rest / batch[i]) end
    local ma, mb, mr = A, B, r
    for i = 1, #ba do ma = ma:select(1, ba[i] == 1 and 1 or idx[i - #ba + nb]) end
    for i = 1, #bb do mb = mb:select(1, bb[i] == 1 and 1 or idx[i - #bb + nb]) end
    for i = 1, nb do mr = mr:select(1, idx[i]) end
    if n > 0 and p > 0 then mr:copy(torch.mm(ma, mb)) end
  end
  local final = {}
  for i = 1, nb do final[i] = batch[i] end
  if a:dim() > 1 then final[#final + 1] = n end
  if b:dim() > 1 then final[#final + 1] = p end
  return r:view(torch.LongStorage(final))
end

function tests.matmulEveryRankPair()
  torch.manualSeed(1)
  local as = { { 3 }, { 2, 3 }, { 4, 2, 3 }, { 1, 2, 3 }, { 5, 1, 2, 3 }, { 3, 1, 1, 2, 3 } }
  local bs = { { 3 }, { 3, 2 }, { 4, 3, 2 }, { 1, 3, 2 }, { 5, 4, 3, 2 }, { 1, 1, 3, 2 } }
  for _, sa in ipairs(as) do
    for _, sb in ipairs(bs) do
      local a, b = rnd(unpack(sa)), rnd(unpack(sb))
      local what = table.concat(sa, 'x') .. ' @ ' .. table.concat(sb, 'x')
      close(torch.matmul(a, b), ref_matmul(a, b), 1e-12, what)
      close(a:matmul(b), ref_matmul(a, b), 1e-12, what .. ' (method)')
    end
  end
  -- PyTorch's documented example: batch dims broadcast
  local a, b = rnd(10, 1, 3, 4), rnd(5, 4, 2)
  tester:eq(torch.matmul(a, b):size():totable(), { 10, 5, 3, 2 })
  close(torch.matmul(a, b), ref_matmul(a, b), 1e-12, '10x1x3x4 @ 5x4x2')
  -- ranks <= 2 are exactly Torch7's products
  local m, v = rnd(3, 4), rnd(4)
  tester:assertTensorEq(torch.matmul(m, v), torch.mv(m, v), 0)
  tester:eq(torch.matmul(m, rnd(4, 2)):size():totable(), { 3, 2 })
  local d = torch.matmul(v, v)
  tester:asserteq(d:dim(), 0, 'vector . vector is a 0-dim tensor')
  tester:assertalmosteq(d:item(), torch.dot(v, v), 1e-12)
  tester:assertTensorEq(torch.matmul(v, m:t()), torch.mv(m, v), 1e-12)
end

function tests.matmulNonContiguous()
  torch.manualSeed(2)
  local x = rnd(4, 3, 2)
  local cases = {
    { 'transposed batch @ matrix', x:transpose(2, 3), rnd(3, 5) },               -- rows do not fold
    { 'permuted 4D @ matrix', rnd(3, 4, 2, 5):permute(2, 1, 3, 4), rnd(5, 2) },   -- nothing merges
    { 'narrowed @ transposed', rnd(4, 5, 6):narrow(3, 2, 3), rnd(2, 3):t() },
    { 'batch @ expanded', rnd(6, 2, 3), rnd(3, 4):view(1, 3, 4):expand(6, 3, 4) },
    { 'matrix @ 4D', rnd(2, 3), rnd(2, 5, 3, 4) },                                 -- a broadcast whole
    { 'vector @ transposed batch', rnd(3), rnd(4, 5, 3):transpose(2, 3) },
    { 'broadcast both', rnd(2, 1, 4, 3):transpose(3, 4), rnd(1, 5, 4, 2) },
    { 'transposed batch @ vector', x:transpose(2, 3), rnd(3) },
  }
  for _, c in ipairs(cases) do
    close(torch.matmul(c[2], c[3]), ref_matmul(c[2]:clone(), c[3]:clone()), 1e-12, c[1])
  end
  -- the inputs are left as they were
  local a, b = rnd(2, 3, 4), rnd(4, 5)
  local a0, b0 = a:clone(), b:clone()
  torch.matmul(a, b)
  tester:assertTensorEq(a, a0, 0)
  tester:assertTensorEq(b, b0, 0)
end

function tests.matmulEmptyDims()
  local cases = { { { 0, 3 }, { 3, 4 } }, { { 2, 0 }, { 0, 4 } }, { { 0, 2, 3 }, { 3, 4 } }, { { 3, 2, 0 }, { 0, 5 } },
                  { { 0, 2, 3 }, { 1, 3, 4 } }, { { 2, 2, 0 }, { 2, 0, 4 } }, { { 0 }, { 0 } }, { { 2, 0 }, { 0 } },
                  { { 0 }, { 0, 3 } }, { { 3, 2, 0 }, { 0 } } }
  for _, c in ipairs(cases) do
    local a, b = D(torch.LongStorage(c[1])), D(torch.LongStorage(c[2]))
    local r, want = torch.matmul(a, b), ref_matmul(a, b)
    local what = table.concat(c[1], 'x') .. ' @ ' .. table.concat(c[2], 'x')
    tester:eq(r:size():totable(), want:size():totable(), what)
    if r:nElement() > 0 then tester:asserteq(r:abs():max(), 0, what .. ' is zeros') end
  end
end

function tests.matmulResultAndMethods()
  local a, b = rnd(3, 2, 4), rnd(4, 5)
  local res = torch.Tensor():double()
  tester:assert(torch.matmul(res, a, b) == res, 'torch.matmul(res, a, b) returns res')
  close(res, ref_matmul(a, b), 1e-12, 'res filled')
  local res2 = D(7)
  res2:matmul(a, b)
  close(res2, ref_matmul(a, b), 1e-12, 'res:matmul(a, b)')
  local m = rnd(3, 3)
  local m0 = m:clone()
  local r = m:matmul(m)
  close(r, torch.mm(m0, m0), 1e-12, 'a:matmul(b)')
  r:fill(0)
  tester:assertTensorEq(m, m0, 0, 'a:matmul(b) is a new tensor; a is unchanged')
  m:matmul(m0, m)  -- res aliasing an operand
  close(m, torch.mm(m0, m0), 1e-12, 'res aliasing b')
  local v = rnd(3)
  local rv = D()
  torch.matmul(rv, m0, v)
  close(rv, torch.mv(m0, v), 1e-12, 'res mv')
  torch.matmul(rv, v, v)
  tester:asserteq(rv:dim(), 0)
  tester:assertalmosteq(rv:item(), torch.dot(v, v), 1e-12)
  -- x * y stays Torch7's dot/mv/mm
  tester:assertalmosteq(v * v, torch.dot(v, v), 1e-12)
  tester:assertErrorPattern(function() return rnd(2, 3, 4) * rnd(4, 2) end, '%[mul%] tensor %* tensor is dot, mv or mm')
end

function tests.matmulDtypes()
  local ai = torch.LongTensor({ { 1, 2, 3 }, { 4, 5, 6 } })
  local bi = torch.LongTensor({ { 1, 0 }, { 0, 1 }, { 2, 2 } })
  tester:eq(torch.matmul(ai, bi):totable(), { { 7, 8 }, { 16, 17 } })
  tester:asserteq(torch.matmul(ai, bi):type(), 'torch.LongTensor')
  local b3 = torch.IntTensor(4, 3, 2):fill(1)
  local r = torch.matmul(ai:int(), b3)
  tester:asserteq(r:type(), 'torch.IntTensor')
  tester:eq(r[1]:totable(), { { 6, 6 }, { 15, 15 } })
  local f = torch.matmul(torch.ones(2, 3, 4), torch.ones(4, 5))
  tester:asserteq(f:type(), 'torch.FloatTensor')
  tester:asserteq(f:sum(), 2 * 3 * 5 * 4)
  local h = torch.matmul(torch.ones(2, 3, 4):half(), torch.ones(2, 4, 5):half())
  tester:asserteq(h:type(), 'torch.HalfTensor')
  tester:asserteq(h:float():max(), 4)
  local bf = torch.matmul(torch.ones(3, 4):bfloat16(), torch.ones(4):bfloat16())
  tester:asserteq(bf:type(), 'torch.BFloat16Tensor')
  tester:eq(bf:float():totable(), { 4, 4, 4 })
end

function tests.matmulErrors()
  tester:assertErrorPattern(function() torch.matmul(torch.ones(2, 3), torch.ones(3, 4):double()) end,
    '%[matmul%] a is a torch.FloatTensor but b is a torch.DoubleTensor')
  tester:assertErrorPattern(function() torch.matmul(torch.ones(1):view({}), torch.ones(3, 4)) end,
    '%[matmul%] both operands need at least 1 dim, got a 0%-dim tensor and size 3x4')
  tester:assertErrorPattern(function() torch.matmul(torch.ones(2, 3), torch.ones(4, 5)) end,
    "%[matmul%] a is 2x3 but b is 4x5: a's last dim %(3%) must equal b's second%-to%-last dim %(4%)")
  tester:assertErrorPattern(function() torch.matmul(torch.ones(2, 3), torch.ones(4)) end,
    "%[matmul%] a is 2x3 but b is 4: a's last dim %(3%) must equal b's size %(4%)")
  tester:assertErrorPattern(function() torch.matmul(torch.ones(2, 2, 3), torch.ones(3, 3, 4)) end,
    '%[matmul%] the batch dims of a %(2%) and b %(3%) do not broadcast %(a is 2x2x3, b is 3x3x4%)')
  tester:assertErrorPattern(function() torch.matmul(torch.ones(2, 3), 5) end,
    '%[matmul%] expected tensors %(%[res,%] a, b%), got torch.FloatTensor of size 2x3 and number')
  tester:assertErrorPattern(function() torch.matmul(5, torch.ones(2), torch.ones(2)) end,
    '%[matmul%] expected a result tensor as argument 1, got number')
  tester:assertErrorPattern(function() torch.matmul(torch.LongTensor(), torch.ones(2, 3), torch.ones(3, 2)) end,
    '%[matmul%] result is a torch.LongTensor but the operands are torch.FloatTensors')
  tester:assertErrorPattern(function() torch.matmul(torch.BoolTensor(2, 3), torch.BoolTensor(3)) end,
    '%[matmul%] no matrix product for torch.BoolTensors')
  tester:assertErrorPattern(function() torch.outer(torch.BoolTensor(2), torch.BoolTensor(3)) end, '%[outer%] no matrix product')
  local h = torch.ones(1, 1, 1, 1):expand(2 ^ 32, 1, 1, 1)  -- a batch of 2^64 matrices: the error named 'shape'
  tester:assertErrorPattern(function() torch.matmul(h, h:select(2, 1)) end, '%[matmul%] shape 4294967296x4294967296 has too many')
  local ok, err = pcall(function() torch.matmul(torch.ones(2, 3), torch.ones(4, 5)) end)  -- raised at the caller's line
  tester:assert(not ok and err:find('test_products.lua:%d+: %[matmul%]'), tostring(err))
end

-- ---- outer ------------------------------------------------------------------------------------

function tests.outer()
  local a, b = D({ 1, 2 }), D({ 1, 2, 3 })
  tester:eq(torch.outer(a, b):totable(), { { 1, 2, 3 }, { 2, 4, 6 } })
  tester:eq(a:outer(b):totable(), torch.ger(a, b):totable())
  local res = D()
  tester:assert(torch.outer(res, a, b) == res)
  tester:eq(res:totable(), { { 1, 2, 3 }, { 2, 4, 6 } })
  tester:eq(torch.outer(torch.LongTensor({ 2, 3 }), torch.LongTensor({ 4 })):totable(), { { 8 }, { 12 } })
  tester:eq(torch.outer(D(0), b):size():totable(), { 0, 3 })
  local s = rnd(6)
  tester:assertTensorEq(torch.outer(s:narrow(1, 2, 3), s), torch.ger(s:narrow(1, 2, 3):clone(), s), 0)
  tester:assertErrorPattern(function() torch.outer(torch.ones(2, 2), torch.ones(3)) end,
    '%[outer%] a must be 1D, got size 2x2')
  tester:assertErrorPattern(function() torch.outer(torch.ones(2), torch.ones(3):double()) end,
    '%[outer%] a is a torch.FloatTensor but b is a torch.DoubleTensor')
end

-- ---- tensordot --------------------------------------------------------------------------------

-- tensordot by loops: sum over the paired dims of a[...] * b[...] for every free position.
local function ref_tensordot(a, b, da, db)
  local pa, pb, ca, cb = {}, {}, {}, {}
  for _, d in ipairs(da) do ca[d] = true end
  for _, d in ipairs(db) do cb[d] = true end
  for d = 1, a:dim() do if not ca[d] then pa[#pa + 1] = d end end
  for d = 1, b:dim() do if not cb[d] then pb[#pb + 1] = d end end
  local perm_a, perm_b, fa, fb, k = {}, {}, {}, {}, 1
  for _, d in ipairs(pa) do perm_a[#perm_a + 1] = d; fa[#fa + 1] = a:size(d) end
  for _, d in ipairs(da) do perm_a[#perm_a + 1] = d; k = k * a:size(d) end
  for _, d in ipairs(db) do perm_b[#perm_b + 1] = d end
  for _, d in ipairs(pb) do perm_b[#perm_b + 1] = d; fb[#fb + 1] = b:size(d) end
  local A = (#perm_a > 0 and a:permute(unpack(perm_a)) or a):contiguous():view(-1, k)
  local B = (#perm_b > 0 and b:permute(unpack(perm_b)) or b):contiguous():view(k, -1)
  local r = D(A:size(1), B:size(2))
  for i = 1, A:size(1) do for j = 1, B:size(2) do r[i][j] = torch.dot(A[i], B:select(2, j)) end end
  for _, s in ipairs(fb) do fa[#fa + 1] = s end
  return #fa == 0 and r:view({}) or r:view(torch.LongStorage(fa))
end

function tests.tensordot()
  torch.manualSeed(3)
  local a, b = rnd(2, 3, 4), rnd(3, 4, 5)
  close(torch.tensordot(a, b), ref_tensordot(a, b, { 2, 3 }, { 1, 2 }), 1e-12, 'default dims = 2')
  close(torch.tensordot(a, b, 2), ref_tensordot(a, b, { 2, 3 }, { 1, 2 }), 1e-12, 'dims = 2')
  local m = rnd(4, 5)
  close(torch.tensordot(a, m, 1), ref_tensordot(a, m, { 3 }, { 1 }), 1e-12, 'dims = 1')
  local c = rnd(4, 3, 2)
  close(torch.tensordot(a, c, { { 3, 2 }, { 1, 2 } }), ref_tensordot(a, c, { 3, 2 }, { 1, 2 }), 1e-12, '{{3,2},{1,2}}')
  close(torch.tensordot(a, c, { { 1 }, { 3 } }), ref_tensordot(a, c, { 1 }, { 3 }), 1e-12, '{{1},{3}}')
  close(torch.tensordot(a, c, { 2, -2 }), ref_tensordot(a, c, { 2 }, { 2 }), 1e-12, 'numbers, negative')
  close(torch.tensordot(a, c, { { 1, 2, 3 }, { 3, 2, 1 } }), ref_tensordot(a, c, { 1, 2, 3 }, { 3, 2, 1 }), 1e-12, 'all dims')
  local u, v = rnd(2), rnd(3)
  close(torch.tensordot(u, v, 0), torch.ger(u, v), 1e-12, 'dims = 0')
  -- non-contiguous operands
  local t = rnd(4, 3, 5):transpose(1, 3)
  close(torch.tensordot(t, a, { { 2, 3 }, { 2, 3 } }), ref_tensordot(t:clone(), a, { 2, 3 }, { 2, 3 }), 1e-12, 'transposed')
  -- a size-1 dim pairs with any size: the other side is summed (PyTorch)
  local s1, s2 = rnd(2, 1), rnd(3, 4)
  close(torch.tensordot(s1, s2, { { 2 }, { 1 } }), torch.mm(s1, s2:sum(1)), 1e-12, 'size 1 against 3')
  -- empty dims, integers
  tester:eq(torch.tensordot(D(2, 0), D(0, 3), 1):totable(), { { 0, 0, 0 }, { 0, 0, 0 } })
  local li = torch.LongTensor({ { 1, 2 }, { 3, 4 } })
  tester:eq(torch.tensordot(li, li, 1):totable(), { { 7, 10 }, { 15, 22 } })
  tester:asserteq(torch.tensordot(li, li, 2):item(), 30)
  tester:asserteq(torch.tensordot(li, li, 2):type(), 'torch.LongTensor')
end

function tests.tensordotErrors()
  local a, b = torch.ones(2, 3), torch.ones(4, 5)
  tester:assertErrorPattern(function() torch.tensordot(a, b, 1) end,
    '%[tensordot%] dim 2 of a has size 3 but dim 1 of b has size 4 %(a is 2x3, b is 4x5%)')
  tester:assertErrorPattern(function() torch.tensordot(a, b, 3) end,
    '%[tensordot%] cannot contract the last 3 dims of a %(size 2x3%) with the first 3 of b %(size 4x5%)')
  for n, p in pairs({ [-1] = '%-1', [1e10] = '10000000000' }) do  -- 1e10 was wrapped to -2^31 by the C int
    tester:assertErrorPattern(function() torch.tensordot(a, b, n) end, '%[tensordot%] cannot contract the last ' .. p) end
  tester:assertErrorPattern(function() torch.tensordot(a, a, { { 1, 1 }, { 1, 2 } }) end,
    '%[tensordot%] dim 1 of a appears twice in the dims to contract')
  tester:assertErrorPattern(function() torch.tensordot(a, a, { { 1, 2 }, { 1 } }) end,
    '%[tensordot%] got 2 dims of a but 1 dims of b to contract')
  tester:assertErrorPattern(function() torch.tensordot(a, a, { { 3 }, { 1 } }) end,
    '%[tensordot%] dimension 3 out of range for a 2D tensor')
  tester:assertErrorPattern(function() torch.tensordot(a, a, 'x') end, '%[tensordot%] dims must be a number or a table')
  tester:assertErrorPattern(function() torch.tensordot(a, a, { { 1 }, { 'x' } }) end,
    '%[tensordot%] dim 1 of b is a string, expected a number')
  tester:assertErrorPattern(function() torch.tensordot(a, a, 1.5) end, '%[tensordot%] dims must be an integer, got 1.5')
  tester:assertErrorPattern(function() torch.tensordot(a, a:double(), 1) end,
    '%[tensordot%] a is a torch.FloatTensor but b is a torch.DoubleTensor')
  tester:assertErrorPattern(function() torch.tensordot(a, nil) end, '%[tensordot%] expected tensors')
end

-- ---- einsum -----------------------------------------------------------------------------------

function tests.einsumAgainstOtherOps()
  torch.manualSeed(4)
  local e = torch.einsum
  local x, y = rnd(3, 4), rnd(4, 5)
  local sq, v, w = rnd(4, 4), rnd(4), rnd(3)
  local A, B = rnd(2, 3, 4), rnd(2, 4, 5)
  local q, k = rnd(2, 3, 5, 4), rnd(2, 3, 6, 4)
  local e1, e2, bd = rnd(2, 1, 3, 4), rnd(3, 4, 5), rnd(2, 3, 3)
  local cases = {
    { 'bij,bjk->bik', e('bij,bjk->bik', A, B), torch.bmm(A, B) },
    { 'ij->ji', e('ij->ji', x), x:t() }, { 'ii->i', e('ii->i', sq), torch.diag(sq) },
    { 'ii', e('ii', sq), D({ torch.trace(sq) }):view({}) }, { 'i,i', e('i,i', v, v), D({ torch.dot(v, v) }):view({}) },
    { 'i,j->ij', e('i,j->ij', w, v), torch.ger(w, v) },
    { '...ij,...jk->...ik', e('...ij,...jk->...ik', e1, e2), torch.matmul(e1, e2) },
    { 'bhqd,bhkd->bhqk', e('bhqd,bhkd->bhqk', q, k), torch.matmul(q, k:transpose(3, 4)) },
    { 'ij,jk (implicit)', e('ij,jk', x, y), torch.mm(x, y) },
    { 'ij,jk,kl->il', e('ij,jk,kl->il', x, y, rnd(5, 2):fill(1)), torch.mm(torch.mm(x, y), D(5, 2):fill(1)) },
    { 'ij->', e('ij->', x), D({ x:sum() }):view({}) },
    { 'ij->i', e('ij->i', x), x:sum(2):view(3) }, { 'ij->j', e('ij->j', x), x:sum(1):view(4) },
    { 'ijk->kji', e('ijk->kji', A), A:permute(3, 2, 1) }, { 'i,i->i', e('i,i->i', v, v), torch.cmul(v, v) },
    { 'bi,bi->b', e('bi,bi->b', x, x), torch.cmul(x, x):sum(2):view(3) }, { 'ij,ij->ij', e('ij,ij->ij', x, x), torch.cmul(x, x) },
    { 'iij->j', e('iij->j', rnd(3, 3, 2):fill(1)), D({ 3, 3 }) },
    { 'ba,Ab (implicit: Aa)', e('ba,Ab', x, rnd(2, 3):fill(1)), torch.mm(D(2, 3):fill(1), x) },
    { '...ii->...i', e('...ii->...i', bd), torch.cat(torch.diag(bd[1]):view(1, 3), torch.diag(bd[2]):view(1, 3), 1) },
    { 'ij,jk->ik with j broadcast from 1', e('ij,jk->ik', x:narrow(2, 1, 1), y), torch.mm(x:narrow(2, 1, 1), y:sum(1)) },
    { 'i,i-> with a size-1 side', e('i,i->', D({ 2 }), v), D({ 2 * v:sum() }):view({}) },
    { 'i,j,k->ijk', e('i,j,k->ijk', w, v, D({ 1, 2 })),
      torch.cat(torch.ger(w, v):view(3, 4, 1), torch.ger(w, v):view(3, 4, 1) * 2, 3) },
    { 'ij,jk->ik (operands as a table)', e('ij,jk->ik', { x, y }), torch.mm(x, y) },
    { 'i j , j k -> i k (spaces)', e(' i j , j k -> i k ', x, y), torch.mm(x, y) },
    { '...ij->ij', e('...ij->ij', A), A:sum(1):view(3, 4) }, { 'ij->...ij', e('ij->...ij', x), x },
    { ',->', e(',->', D({ 3 }):view({}), D({ 2 }):view({})), D({ 6 }):view({}) },
    { "'' (0-dim)", e('', D({ 3 }):view({})), D({ 3 }):view({}) },
  }
  for _, c in ipairs(cases) do close(c[2], c[3], 1e-12, c[1]) end
  -- 'ijk,jil->kl' against a loop of dots
  local P, Q = rnd(3, 4, 2), rnd(4, 3, 5)
  local want = D(2, 5)
  for kk = 1, 2 do
    for l = 1, 5 do want[kk][l] = torch.dot(P:select(3, kk):contiguous(), Q:select(3, l):t():contiguous()) end
  end
  close(e('ijk,jil->kl', P, Q), want, 1e-12, 'ijk,jil->kl')
  -- the bilinear example of PyTorch's documentation, against a loop
  local l, a3, r = rnd(2, 5), rnd(3, 5, 4), rnd(2, 4)
  local bil = D(2, 3)
  for b = 1, 2 do for o = 1, 3 do bil[b][o] = torch.dot(torch.mv(a3[o], r[b]), l[b]) end end
  close(e('bn,anm,bm->ba', l, a3, r), bil, 1e-12, 'bn,anm,bm->ba')
  -- four operands, a label summed after being carried across a later operand
  local m1, m2, m3, m4 = rnd(2, 3), rnd(3, 4), rnd(4, 2), rnd(2)
  close(e('ij,jk,ki,i->', m1, m2, m3, m4), D({ torch.dot(torch.diag(torch.mm(torch.mm(m1, m2), m3)), m4) }):view({}),
    1e-12, 'ij,jk,ki,i->')
end

function tests.einsumLayoutsAndDtypes()
  torch.manualSeed(5)
  local x, y = rnd(5, 3):t(), rnd(4, 6):narrow(2, 2, 4)   -- 3x5 transposed, 4x4 narrowed
  local z = rnd(2, 5)
  close(torch.einsum('ij,kj->ik', x, z), torch.mm(x:clone(), z:t()), 1e-12, 'transposed operand')
  close(torch.einsum('ii->i', y), torch.diag(y:clone()), 1e-12, 'diagonal of a narrowed matrix')
  close(torch.einsum('ij,jk->ik', x:t(), y:narrow(1, 1, 3)), torch.mm(x:t():clone(), y:narrow(1, 1, 3):clone()), 1e-12,
    'narrowed and transposed')
  -- empty dims: a summed label of size 0 gives zeros; a kept one an empty result
  tester:eq(torch.einsum('ij,jk->ik', D(2, 0), D(0, 3)):totable(), { { 0, 0, 0 }, { 0, 0, 0 } })
  tester:eq(torch.einsum('ij,jk->ik', D(0, 2), D(2, 3)):size():totable(), { 0, 3 })
  tester:eq(torch.einsum('bij,bjk->bik', D(0, 2, 3), D(0, 3, 4)):size():totable(), { 0, 2, 4 })
  tester:asserteq(torch.einsum('i->', D(0)):item(), 0)
  -- the result never shares the operand's storage ('ij->ji' would be a view)
  local m = rnd(2, 3)
  local t = torch.einsum('ij->ji', m)
  t:fill(0)
  tester:assert(m:abs():sum() > 0, 'writing into the result leaves the operand alone')
  local m0 = m:clone()
  torch.einsum('ij->ij', m):fill(0)
  torch.einsum('ii->i', m:narrow(2, 1, 2)):fill(0)
  tester:assertTensorEq(m, m0, 0, 'identity and diagonal are copies')
  -- dtypes: the operands' for products; a one-operand sum is int64 for integers (PyTorch's); mixed refused
  local li = torch.LongTensor({ { 1, 2 }, { 3, 4 } })
  local r = torch.einsum('ij,jk->ik', li, li)
  tester:asserteq(r:type(), 'torch.LongTensor')
  tester:eq(r:totable(), { { 7, 10 }, { 15, 22 } })
  tester:asserteq(torch.einsum('ij->', li:int()):type(), 'torch.LongTensor')
  tester:asserteq(torch.einsum('ij->', li:int()):item(), 10)
  tester:eq(torch.einsum('ii->i', li):totable(), { 1, 4 })
  tester:asserteq(torch.einsum('ij,jk->ik', torch.ones(2, 3), torch.ones(3, 2)):type(), 'torch.FloatTensor')
  -- BoolTensors need no matrix product for broadcast products and single-operand equations
  local bt = torch.BoolTensor({ true, false })
  tester:eq(torch.einsum('i,j->ij', bt, bt):totable(), { { true, false }, { false, false } })
  tester:eq(torch.einsum('ij->ji', torch.BoolTensor({ { true, false } })):totable(), { { true }, { false } })
  tester:eq(torch.einsum('bij,bjk->bik', torch.ones(2, 2, 3):half(), torch.ones(2, 3, 2):half()):float():totable(),
    { { { 3, 3 }, { 3, 3 } }, { { 3, 3 }, { 3, 3 } } })
end

function tests.einsumErrors()
  local a, b = torch.ones(2, 3), torch.ones(3, 4)
  local function err(pattern, ...)
    local args = { ... }
    tester:assertErrorPattern(function() torch.einsum(unpack(args)) end, pattern)
  end
  err("%[einsum%] the equation 'ij,jk%->ik' has 2 operands but 1 tensor was given", 'ij,jk->ik', a)
  err("%[einsum%] the equation 'ij%->ij' has 1 operand but 2 tensors were given", 'ij->ij', a, b)
  err("%[einsum%] operand 1 %('ijk'%) has 3 labels but 2 dims %(size 2x3%)", 'ijk->i', a)
  err("%[einsum%] operand 2 %('j'%) has 1 label but 2 dims %(size 3x4%)", 'ij,j->i', a, b)
  err("%[einsum%] operand 1 %('ijk...'%) has 3 labels and an ellipsis but 2 dims", 'ijk...->i', a)
  err("%[einsum%] label 'j' has size 4 in operand 2 but size 3 in operand 1 %(sizes must be equal or 1%)",
    'ij,jk->ik', a, torch.ones(4, 5))
  err("%[einsum%] label 'i' is repeated in operand 1 but its dims have sizes 2 and 3 %(size 2x3%)", 'ii->i', a)
  err("%[einsum%] output label 'k' does not appear in any operand of 'ij%->k'", 'ij->k', a)
  err("%[einsum%] output label 'i' appears more than once in 'ij%->ii'", 'ij->ii', a)
  err("%[einsum%] invalid character '1' at position 2 of 'i1%->i' %(labels are letters a%-z and A%-Z%)", 'i1->i', a)
  err("%[einsum%] invalid character ',' at position 6 of 'ij%->i,j'", 'ij->i,j', a)
  err("%[einsum%] invalid character '%-' at position 3", 'ij-i', a)
  err("%[einsum%] more than one '%->' in 'ij%->ij%->ij'", 'ij->ij->ij', a)
  err("%[einsum%] the '.' at position 1 of '%.ij%->ij' does not start an ellipsis", '.ij->ij', a)
  err("%[einsum%] operand 1 %('......'%) has more than one ellipsis", '......->', a)
  err('%[einsum%] operand 1 is a torch.FloatTensor but operand 2 is a torch.DoubleTensor', 'ij,jk->ik', a, b:double())
  err('%[einsum%] operand 2 is number, expected a tensor', 'ij,jk->ik', a, 3)
  err("%[einsum%] expected at least one operand for 'ij'", 'ij')
  err("%[einsum%] expected at least one operand for 'ij'", 'ij', {})
  err('%[einsum%] expected an equation %(a string%) first, got torch.FloatTensor of size 2x3', a, b)
  err('%[einsum%] no matrix product for torch.BoolTensors', 'ij,jk->ik', torch.BoolTensor(2, 3), torch.BoolTensor(3, 2))
  local ones8 = torch.ones(1, 1, 1, 1, 1, 1, 1, 1)
  err('%[einsum%] contracting operand 3 gives 24 dims; tensors have at most 16',
    'abcdefgh,ijklmnop,qrstuvwx->abcdefghijklmnopqrstuvwx', ones8, ones8, ones8)
  local ok, msg = pcall(function() torch.einsum('ij,jk->ik', a, torch.ones(4, 5)) end)
  tester:assert(not ok and msg:find('test_products.lua:%d+: %[einsum%]'), 'raised at the caller: ' .. tostring(msg))
end

-- ---- gradients --------------------------------------------------------------------------------

function tests.gradients()
  torch.manualSeed(6)
  local function R(...) return rnd(...):requiresGrad() end
  local mm = torch.matmul
  check_grad('matmul 1D.1D', mm, { R(3), R(3) })
  check_grad('matmul 2D.1D', mm, { R(2, 3), R(3) })
  check_grad('matmul 1D.2D', mm, { R(3), R(3, 2) })
  check_grad('matmul 2D.2D', mm, { R(2, 3), R(3, 2) })
  check_grad('matmul 3D.2D (folded)', mm, { R(2, 2, 3), R(3, 2) })
  check_grad('matmul 3D.1D (folded)', mm, { R(2, 2, 3), R(3) })
  check_grad('matmul transposed 3D.2D (bmm)', function(a, b) return mm(a:transpose(2, 3), b) end, { R(2, 3, 2), R(3, 2) })
  check_grad('matmul 2D.3D (broadcast a)', mm, { R(2, 3), R(2, 3, 2) })
  check_grad('matmul 1D.3D', mm, { R(3), R(2, 3, 2) })
  check_grad('matmul 4D.3D (broadcast both)', mm, { R(2, 1, 2, 3), R(2, 3, 2) })
  check_grad('outer', torch.outer, { R(3), R(2) })
  check_grad('tensordot 2', function(a, b) return torch.tensordot(a, b) end, { R(2, 3, 2), R(3, 2, 2) })
  check_grad('tensordot dims', function(a, b) return torch.tensordot(a, b, { { 1, 3 }, { 3, 1 } }) end,
    { R(2, 3, 2), R(2, 3, 2) })
  check_grad('tensordot size 1', function(a, b) return torch.tensordot(a, b, { { 2 }, { 1 } }) end, { R(2, 1), R(3, 2) })
  local e = torch.einsum
  check_grad("einsum 'bij,bjk->bik'", function(a, b) return e('bij,bjk->bik', a, b) end, { R(2, 2, 3), R(2, 3, 2) })
  check_grad("einsum 'ii->i' (and of an expand: once 3, not 1)", function(a, v)
    return e('ii->i', a) + e('ii->i', v:view(1, 3):expand(3, 3)) end, { R(3, 3), R(3) })
  check_grad("einsum 'ii'", function(a) return e('ii', a) end, { R(3, 3) })
  check_grad("einsum 'ij->ji'", function(a) return e('ij->ji', a) end, { R(2, 3) })
  check_grad("einsum 'i,j->ij'", function(a, b) return e('i,j->ij', a, b) end, { R(2), R(3) })
  check_grad("einsum 'bhqd,bhkd->bhqk'", function(a, b) return e('bhqd,bhkd->bhqk', a, b) end,
    { R(1, 2, 3, 2), R(1, 2, 2, 2) })
  check_grad("einsum 'ijk,jil->kl'", function(a, b) return e('ijk,jil->kl', a, b) end, { R(2, 3, 2), R(3, 2, 2) })
  check_grad("einsum '...ij,...jk->...ik' broadcast", function(a, b) return e('...ij,...jk->...ik', a, b) end,
    { R(2, 1, 2, 3), R(2, 3, 2) })
  check_grad("einsum 'ij,jk,kl->il'", function(a, b, c) return e('ij,jk,kl->il', a, b, c) end, { R(2, 3), R(3, 2), R(2, 2) })
  check_grad("einsum 'i,i->' size 1", function(a, b) return e('i,i->', a, b) end, { R(1), R(3) })
  check_grad("einsum 'iij->j'", function(a) return e('iij->j', a) end, { R(2, 2, 3) })
  -- second order (the pieces' formulas are written with differentiable ops)
  local function ok2(name, f, inputs) tester:assert(pcall(torch.autograd.gradgradcheck, f, inputs), name) end
  ok2('matmul broadcast, second order', mm, { R(2, 1, 2, 3), R(2, 3, 2) })
  ok2("einsum 'ii->i', second order", function(a) return torch.cmul(e('ii->i', a), e('ii->i', a)) end, { R(3, 3) })
  ok2('tensordot, second order', function(a, b) return torch.tensordot(a, b, 1) end, { R(2, 3), R(3, 2) })
end

tester:add(tests)
tester:run()
