-- Regressions from the second review of tensor indexing (lua/torch/index.lua, indexing.lua,
-- index_extra.lua, misc_scatter.lua): x[k] = v under autograd (Note [Assignments under autograd]),
-- range and index checks of x[...], maskedSelect's gradient when the mask broadcasts x
-- (Note [maskedSelect of a smaller tensor]), scatter's reduce and indexAdd's alpha (PyTorch 1.13's
-- values), extra arguments refused, aliasing of targets, sources and indices, empty and 0-dim
-- cases, and gradchecks in f64.
local tester = torch.Tester()
local tests = torch.TestSuite()
local L = torch.LongTensor

local function D(t) return torch.DoubleTensor(t) end
local function rnd(...) return torch.rand(...):double():requiresGrad() end
local function gradcheck(name, fn, inputs)
  local ok, res = pcall(torch.autograd.gradcheck, fn, inputs)
  tester:assert(ok and res, name .. ': ' .. tostring(res))
end
local function flat(t) return t:contiguous():view(-1):totable() end
local function near(got, want, tol, what)
  tester:asserteq(#got, #want, what .. ': element count')
  for i = 1, #want do
    tester:assert(math.abs(got[i] - want[i]) <= (tol or 1e-12), string.format('%s: element %d is %s, expected %s',
      what, i, tostring(got[i]), tostring(want[i])))
  end
end
-- backward of sum(out * (1, 2, 3, ...)) and the gradients of the listed inputs
local function weighted_grads(out, ...)
  local w = torch.range(1, out:nElement()):double():viewAs(out)
  torch.cmul(out, w):sum():backward()
  local r = {}
  for i, t in ipairs({ ... }) do r[i] = t.grad and flat(t.grad) or 'none' end
  return r
end

-- ---- x[...] reads: checks ------------------------------------------------------------------------

function tests.rangeAndIndexChecks()
  local x = D({ { 1, 2, 3 }, { 4, 5, 6 } })
  -- a fractional range bound was truncated by narrow: {1.5, 2} read row 1 alone
  tester:assertErrorPattern(function() return x[{ { 1.5, 2 } }] end, '%[index%] range {1.5, 2} for dimension 1 must hold integers')
  tester:assertErrorPattern(function() return x[{ {}, { 1, 2.5 } }] end, 'must hold integers')
  -- x[0] on a matrix said "index -3 out of range" (select's message turns 0 into -n-1)
  tester:assertErrorPattern(function() return x[0] end, '%[index%] index 0 out of range for dimension 1 of size 2')
  tester:assertErrorPattern(function() return x[{ 0 }] end, 'index 0 out of range for dimension 1')
  tester:assertErrorPattern(function() return x[{ {}, 4 }] end, 'index 4 out of range for dimension 2 of size 3')
  tester:assertErrorPattern(function() x[0] = 1 end, 'index 0 out of range for dimension 1')
  tester:assertErrorPattern(function() return x[1.5] end, 'index 1.5 along dimension 1 is not an integer')
  tester:assertErrorPattern(function() return x[{ 1, 2.5 }] end, 'index 2.5 along dimension 2 is not an integer')
  -- x[true] answered nil
  tester:assertErrorPattern(function() return x[true] end, '%[index%] cannot index a tensor with a boolean')
  -- what still works: negative bounds, empty ranges (end = start - 1), {a} and {}
  tester:eq(flat(x[{ {}, { -2, -1 } }]), { 2, 3, 5, 6 })
  tester:eq(x[{ { 2, 1 } }]:size():totable(), { 0, 3 })
  tester:eq(x[{ {}, { 4, 3 } }]:size():totable(), { 2, 0 })
  tester:eq(flat(x[{ { -1 } }]), { 4, 5, 6 })
  tester:eq(x[-1][-1], 6)
  tester:eq(x[{ -1, -3 }], 4)
  tester:assertErrorPattern(function() return x[{ { 0, 1 } }] end, 'out of bounds')
end

-- ---- x[k] = v under autograd -------------------------------------------------------------------

function tests.elementAssignUnderAutograd()
  -- y[2] = 0 wrote the storage directly: y's gradient kept 2 where 0 was expected
  local a = D({ 1, 2, 3 }):requiresGrad()
  local y = a * 1
  y[2] = 0
  tester:eq(flat(y), { 1, 0, 3 })
  tester:eq(weighted_grads(y, a)[1], { 1, 0, 3 })
  a = D({ 1, 2, 3 }):requiresGrad()
  y = a * 1
  y[{ -1 }] = 7
  tester:eq(weighted_grads(y, a)[1], { 1, 2, 0 })
  -- a matrix element: y[i][j] = a_i s_j with y[1][1] zeroed; weights 1..9 row-major
  a = D({ 1, 2, 3 }):requiresGrad()
  local s = D({ 10, 20, 30 }):requiresGrad()
  y = a:view(3, 1) * s:view(1, 3)
  y[{ 1, 1 }] = 0
  local g = weighted_grads(y, a, s)
  tester:eq(g[1], { 130, 320, 500 })  -- PyTorch 1.13: (y * w).sum().backward() with y[0, 0] = 0
  tester:eq(g[2], { 29, 36, 42 })
  -- an element assigned a tensor that needs grad
  a = D({ 1, 2, 3 }):requiresGrad()
  s = D({ 5 }):requiresGrad()
  y = a * 1
  y[3] = s:view(torch.LongStorage({}))
  g = weighted_grads(y, a, s)
  tester:eq(g[1], { 1, 2, 0 })
  tester:eq(g[2], { 3 })
end

function tests.sliceAssignUnderAutograd()
  -- a view of a tensor with history was refused; now recorded
  local a = D({ 1, 2, 3 }):requiresGrad()
  local s = D({ 10, 20, 30 }):requiresGrad()
  local y = a * 1
  y[{ { 1, 2 } }] = s:narrow(1, 2, 2)
  tester:eq(flat(y), { 20, 30, 3 })
  local g = weighted_grads(y, a, s)
  tester:eq(g[1], { 0, 0, 3 })
  tester:eq(g[2], { 0, 1, 2 })
  a = D({ 1, 2, 3 }):requiresGrad()
  y = a * 1
  y[{ { 2, 3 } }] = 0
  tester:eq(weighted_grads(y, a)[1], { 1, 0, 0 })
  -- a plain tensor assigned a tensor that needs grad dropped the gradient (y did not need grad)
  s = D({ 1, 2 }):requiresGrad()
  local z = torch.zeros(3):double()
  z[{ { 1, 2 } }] = s
  tester:assert(z:needsGrad(), 'z needs grad after z[{{1, 2}}] = s')
  tester:eq(weighted_grads(z, s)[1], { 1, 2 })
  -- broadcast and Torch7's same-count rule, as copy
  a = torch.ones(2, 3):double():requiresGrad()
  y = a * 1
  y[{ {}, { 2, 3 } }] = D({ 7, 8 })
  tester:eq(flat(y), { 1, 7, 8, 1, 7, 8 })
  y = a * 1
  y[{ {}, { 2, 3 } }] = D({ 7, 8, 9, 10 })
  tester:eq(flat(y), { 1, 7, 8, 1, 9, 10 })
  tester:assertErrorPattern(function() local w = a * 1; w[{ {}, { 2, 3 } }] = D({ 7, 8, 9 }) end,
    '%[newindex%] cannot assign a tensor of size 3 to a selection of size 2x2')
  tester:assertErrorPattern(function() local w = a * 1; w[{ 1 }] = 'x' end, 'cannot assign a string')
  -- an empty range changes nothing
  y = a * 1
  y[{ { 2, 1 } }] = 5
  tester:eq(flat(y), { 1, 1, 1, 1, 1, 1 })
  -- a row by number key, and a float tensor assigned a double one
  y = a * 1
  y[2] = D({ 4, 5, 6 })
  tester:eq(flat(y), { 1, 1, 1, 4, 5, 6 })
  local f = torch.FloatTensor({ 1, 2, 3 }):requiresGrad() * 1
  f[{ { 1, 2 } }] = D({ 7, 8 })
  tester:eq(torch.typename(f), 'torch.FloatTensor')
  tester:eq(flat(f), { 7, 8, 3 })
  -- gradchecks: slice, element, broadcast row
  gradcheck('slice = tensor', function(x, v) local w = x * 1; w[{ { 2, 3 }, 1 }] = v; return w end, { rnd(3, 2), rnd(2) })
  gradcheck('row broadcast', function(x, v) local w = x * 1; w[{ {}, { 1 } }] = v; return w end, { rnd(3, 2), rnd(1) })
  gradcheck('element = tensor', function(x, v) local w = x * 1; w[{ 2, 2 }] = v:view(torch.LongStorage({})); return w end,
    { rnd(3, 2), rnd(1) })
  gradcheck('element = number', function(x) local w = torch.sin(x); w[{ 3, 1 }] = 2; return w end, { rnd(3, 2) })
end

function tests.assignmentAutogradRules()
  -- an element write after a node saved the tensor is caught (it bumps the version now)
  local b = D({ 1, 2 }):requiresGrad()
  local e = torch.exp(b)
  e[1] = 0
  tester:assertErrorPattern(function() e:sum():backward() end, 'modified by an in%-place operation')
  -- leaves that need grad keep Torch7's unrecorded writes (DESIGN: parameter updates)
  local a = D({ 1, 2, 3 }):requiresGrad()
  a[1] = 5
  a[{ { 2, 3 } }] = 0
  tester:eq(flat(a), { 5, 0, 0 })
  tester:assert(a:isLeaf(), 'a stays a leaf')
  local w = torch.ones(2, 3):double():requiresGrad()
  local row = w:narrow(1, 1, 1)
  row[{ 1, 2 }] = 9  -- a slice of a parameter
  tester:eq(flat(w), { 1, 9, 1, 1, 1, 1 })
  -- without grad mode the write is the plain one
  local y = D({ 4, 5 }):requiresGrad() * 1
  torch.setGradEnabled(false)
  y[1] = 0
  torch.setGradEnabled(true)
  tester:eq(flat(y), { 0, 5 })
  -- a view of a tensor with history: the write runs, a backward through it is refused, not a
  -- wrong gradient (Note [In-place ops on views of tensors with history])
  local base = torch.ones(2, 3):double():requiresGrad() * 1
  local v = base:narrow(1, 1, 1)
  v[{ 1, 1 }] = 5
  tester:eq(base[1][1], 5)
  tester:assertErrorPattern(function() base:sum():backward() end, 'modified in place through a view')
  -- masks were recorded already (maskedFill_/maskedCopy_)
  a = D({ 1, 2, 3 }):requiresGrad()
  local s = D({ 10, 20, 30 }):requiresGrad()
  y = a * 1
  y[torch.BoolTensor({ true, false, true })] = s:narrow(1, 1, 2)
  local g = weighted_grads(y, a, s)
  tester:eq(g[1], { 0, 2, 0 })
  tester:eq(g[2], { 1, 3, 0 })
end

-- ---- maskedSelect's gradient when the mask broadcasts x -----------------------------------------

function tests.maskedSelectBroadcastGradient()
  -- x of size 2 under a 2x2 mask: PyTorch 1.13 selects x[1], x[1], x[2]; the backward refused
  -- ("[maskedCopy] mask of size 2x2 does not broadcast to the tensor's size 2")
  local m = torch.BoolTensor({ { true, false }, { true, true } })
  local x = D({ 3, 4 }):requiresGrad()
  local r = x:maskedSelect(m)
  tester:eq(flat(r), { 3, 3, 4 })
  tester:eq(weighted_grads(r, x)[1], { 3, 3 })  -- PyTorch 1.13: weights 1, 2 on x[1], 3 on x[2]
  gradcheck('maskedSelect, mask larger', function(t) return t:maskedSelect(m) end, { rnd(2) })
  gradcheck('maskedSelect, x a column', function(t) return torch.maskedSelect(t, torch.BoolTensor({ { true, false, true } })) end,
    { rnd(2, 1) })
  gradcheck('x[mask], mask larger', function(t) return t[torch.ByteTensor({ { 1, 0 }, { 1, 1 } })] end, { rnd(2) })
  -- the Torch7 form (as many elements, another shape) and the plain forms still differentiate
  gradcheck('maskedSelect, same count', function(t) return t:maskedSelect(torch.ByteTensor({ { 1, 0, 1 }, { 1, 0, 0 } })) end,
    { rnd(3, 2) })
  gradcheck('maskedSelect, mask a row', function(t) return t:maskedSelect(torch.BoolTensor({ true, false })) end, { rnd(3, 2) })
  tester:eq(flat(D({ 1, 2, 3 }):maskedSelect(torch.BoolTensor({ { true, false, true }, { false, true, false } }))), { 1, 3, 2 })
end

-- ---- PyTorch arguments that were ignored ---------------------------------------------------------

function tests.scatterReduce()
  -- x:scatter(dim, index, src, reduce) did a plain scatter; values are PyTorch 1.13's
  local idx = L({ { 1, 1, 3 }, { 2, 1, 1 } })
  local src = D({ { 2, 3, 4 }, { 5, 6, 7 } })
  local function ones() return torch.ones(2, 3):double() end
  tester:eq(flat(ones():scatter(2, idx, src, 'add')), { 6, 1, 5, 14, 6, 1 })
  tester:eq(flat(ones():scatter(2, idx, src, 'multiply')), { 6, 1, 4, 42, 5, 1 })
  tester:eq(flat(ones():scatter(2, idx, 2.5, 'add')), { 6, 1, 3.5, 6, 3.5, 1 })
  tester:eq(flat(ones():scatter(2, idx, 2.5, { reduce = 'multiply' })), { 6.25, 1, 2.5, 6.25, 2.5, 1 })
  local x = ones()
  tester:eq(flat(torch.scatter(x, 2, idx, src, 'add')), { 6, 1, 5, 14, 6, 1 })
  tester:eq(flat(x), { 1, 1, 1, 1, 1, 1 })  -- torch.scatter returns a copy
  tester:assert(x:scatter_(2, idx, src, 'add') == x, 'the method returns x')
  tester:eq(flat(x), { 6, 1, 5, 14, 6, 1 })
  tester:eq(flat(ones():scatter(2, { { 3 }, { 1 } }, 9, 'add')), { 1, 1, 10, 10, 1, 1 })
  tester:assertErrorPattern(function() ones():scatter(2, idx, src, 'max') end, "%[scatter%] reduce must be 'add' or 'multiply', got 'max'")
  tester:assertErrorPattern(function() ones():scatter(2, idx, src, 3) end, 'reduce must be')
  gradcheck('scatter add', function(t, s) return torch.scatter(t, 2, L({ { 2, 2 }, { 1, 1 } }), s, 'add') end, { rnd(2, 2), rnd(2, 2) })
  gradcheck('scatter multiply', function(t, s) return torch.scatter(t, 1, L({ { 1, 2 }, { 1, 2 } }), s, 'multiply') end,
    { rnd(2, 2), rnd(2, 2) })
end

function tests.indexAddAlpha()
  -- PyTorch 1.13: zeros(3).index_add(0, [0, 0, 2], [1, 2, 3], alpha=2) = [6, 0, 6]
  tester:eq(flat(torch.zeros(3):double():indexAdd(1, L({ 1, 1, 3 }), D({ 1, 2, 3 }), 2)), { 6, 0, 6 })
  tester:eq(flat(torch.indexAdd(torch.zeros(3):double(), 1, { 1, 1, 3 }, D({ 1, 2, 3 }), { alpha = -1 })), { -3, 0, -3 })
  -- integer tensors: alpha truncated as PyTorch (2.5 acts as 2: [7, 1, 7])
  tester:eq(flat(L({ 1, 1, 1 }):indexAdd(1, L({ 1, 1, 3 }), L({ 1, 2, 3 }), 2.5)), { 7, 1, 7 })
  tester:assertErrorPattern(function() torch.zeros(3):indexAdd(1, L({ 1 }), torch.ones(1), 'x') end, '%[indexAdd%] expected alpha')
  gradcheck('indexAdd alpha', function(t, s) return torch.indexAdd(t, 1, L({ 2, 2, 1 }), s, 0.5) end, { rnd(3, 2), rnd(3, 2) })
end

function tests.extraArgumentsRefused()
  local function z() return torch.zeros(3):double() end
  tester:assertErrorPattern(function() z():indexCopy(1, L({ 1 }), D({ 1 }), 2) end,
    '%[indexCopy%] expected at most 3 arguments after the tensor, got number as argument 4')
  tester:assertErrorPattern(function() torch.indexFill(z(), 1, L({ 1 }), 1, 2) end, '%[indexFill%] expected at most 3')
  tester:assertErrorPattern(function() z():scatterAdd(1, L({ 1 }), D({ 1 }), 'add') end, '%[scatterAdd%] expected at most 3')
  tester:assertErrorPattern(function() z():maskedFill(torch.BoolTensor({ true, false, false }), 1, 2) end,
    '%[maskedFill%] expected at most 2')
  tester:assertErrorPattern(function() z():maskedCopy(torch.BoolTensor({ true, false, false }), D({ 1 }), true) end,
    '%[maskedCopy%] expected at most 2')
  -- trailing nils are fine
  tester:eq(flat(z():indexFill(1, L({ 1 }), 1, nil)), { 1, 0, 0 })
end

-- ---- aliasing: the target is the source, a view of it, or the index ------------------------------

function tests.aliasing()
  local function v() return D({ 1, 2, 3, 4 }) end
  local y = D({ 1, 2, 3 })
  y:indexCopy(1, L({ 3, 2, 1 }), y)
  tester:eq(flat(y), { 3, 2, 1 })
  y = D({ 1, 2, 3 })
  y:indexAdd(1, L({ 3, 2, 1 }), y)
  tester:eq(flat(y), { 4, 4, 4 })
  y = v(); y:indexCopy(1, L({ 2, 3, 4 }), y:narrow(1, 1, 3)); tester:eq(flat(y), { 1, 1, 2, 3 })
  y = v(); y:scatter(1, L({ 2, 3, 4 }), y:narrow(1, 1, 3)); tester:eq(flat(y), { 1, 1, 2, 3 })
  y = v(); y:scatterAdd(1, L({ 2, 3, 4 }), y:narrow(1, 1, 3)); tester:eq(flat(y), { 1, 3, 5, 7 })
  y = v(); y:put_(L({ 2, 3, 4 }), y:narrow(1, 1, 3)); tester:eq(flat(y), { 1, 1, 2, 3 })
  y = v(); y:maskedCopy(torch.BoolTensor({ false, true, true, true }), y:narrow(1, 1, 3)); tester:eq(flat(y), { 1, 1, 2, 3 })
  y = v(); y:narrow(1, 2, 3):gather(y, 1, L({ 1, 2, 3 })); tester:eq(flat(y), { 1, 1, 2, 3 })
  y = v(); y:narrow(1, 2, 3):index(y, 1, L({ 1, 2, 3 })); tester:eq(flat(y), { 1, 1, 2, 3 })
  -- the index tensor is the target: indices are read before any write (never out of bounds)
  y = L({ 2, 1, 3 }); y:indexCopy(1, y, L({ 10, 20, 30 })); tester:eq(flat(y), { 20, 10, 30 })
  y = L({ 2, 1, 3 }); y:indexAdd(1, y, L({ 10, 20, 30 })); tester:eq(flat(y), { 22, 11, 33 })
  y = L({ 2, 1, 3 }); y:scatter(1, y, L({ 10, 20, 30 })); tester:eq(flat(y), { 20, 10, 30 })
  y = L({ 2, 1, 3 }); y:scatterAdd(1, y, L({ 10, 20, 30 })); tester:eq(flat(y), { 22, 11, 33 })
  y = L({ 2, 1, 3 }); y:put_(y, L({ 10, 20, 30 })); tester:eq(flat(y), { 20, 10, 30 })
  y = L({ 2, 1, 3 }); y:indexPut_({ y }, L({ 10, 20, 30 })); tester:eq(flat(y), { 20, 10, 30 })
  y = L({ 2, 1, 3 }); y:gather(L({ 5, 6, 7 }), 1, y); tester:eq(flat(y), { 6, 5, 7 })
  local m = torch.ByteTensor({ 1, 1, 1 }); m:maskedCopy(m, torch.ByteTensor({ 0, 0, 1 })); tester:eq(flat(m), { 0, 0, 1 })
  -- under autograd (PyTorch: y[3], y[2], y[1] of the old y)
  local a = D({ 1, 2, 3 }):requiresGrad()
  y = a * 1
  y:indexCopy(1, L({ 3, 2, 1 }), y)
  tester:eq(weighted_grads(y, a)[1], { 3, 2, 1 })
end

-- ---- empty and 0-dim -----------------------------------------------------------------------------

function tests.emptyAndZeroDim()
  local x = D({ { 1, 2, 3 }, { 4, 5, 6 } })
  tester:eq(x:index(1, L({})):size():totable(), { 0, 3 })
  tester:eq(x:gather(2, torch.LongTensor(2, 0)):size():totable(), { 2, 0 })
  tester:eq(flat(x:clone():scatterAdd(2, torch.LongTensor(2, 0), torch.DoubleTensor(2, 0))), flat(x))
  tester:eq(flat(x:clone():indexCopy(1, torch.LongTensor(), torch.DoubleTensor(0, 3))), flat(x))
  tester:eq(flat(x:clone():put_(torch.LongTensor(), torch.DoubleTensor())), flat(x))
  tester:eq(x:take(torch.LongTensor()):nElement(), 0)
  local s0 = D({ 7 }):view(torch.LongStorage({}))
  tester:eq(s0:gather(1, L({ 1 }):view(torch.LongStorage({}))):item(), 7)
  tester:eq(x:take(L({ 5 }):view(torch.LongStorage({}))):item(), 5)
  tester:eq(s0:clone():indexFill(1, L({ 1 }), 3):item(), 3)
  tester:eq(torch.nonzero(s0):size():totable(), { 1, 0 })  -- PyTorch 1.13: (1, 0) and (0, 0)
  tester:eq(torch.nonzero(torch.zeros(1):double():view(torch.LongStorage({}))):size():totable(), { 0, 0 })
  tester:eq(torch.nonzero(torch.zeros(2, 2)):size():totable(), { 0, 2 })
  local t = torch.nonzero(D({ { 0, 1 }, { 2, 0 } }), { asTuple = true })
  tester:eq(#t, 2)
  tester:eq(flat(t[1]), { 1, 2 })
  tester:eq(flat(t[2]), { 2, 1 })
  tester:eq(flat(torch.where(D({ 0, 3, 0, 4 }))[1]), { 2, 4 })
  tester:assertErrorPattern(function() return s0[1] end, 'cannot index a 0%-dim tensor')
  tester:eq(s0[{}]:item(), 7)
  -- an empty mask selects nothing; a NaN is non-zero
  tester:eq(D({ 1, 2 }):maskedSelect(torch.BoolTensor({ false, false })):nElement(), 0)
  tester:eq(flat(torch.nonzero(D({ 0 / 0, 0, -0.0 }))), { 1 })
end

-- ---- non-contiguous sources, targets and indices -------------------------------------------------

function tests.nonContiguous()
  local b = torch.zeros(2, 3):double()
  b:t():indexCopy(1, L({ 3 }), D({ { 7, 8 } }))
  tester:eq(flat(b), { 0, 0, 7, 0, 0, 8 })
  tester:eq(flat(torch.zeros(3, 2):double():indexCopy(1, L({ 1, 3 }), D({ { 1, 2 }, { 3, 4 } }):t())), { 1, 3, 0, 0, 2, 4 })
  local c = torch.zeros(3, 2):double()
  c:t():scatterAdd(2, L({ { 1, 1 }, { 3, 3 } }), torch.ones(2, 2):double())
  tester:eq(flat(c), { 2, 0, 0, 0, 0, 2 })
  tester:eq(flat(torch.zeros(2, 2):double():scatterAdd(1, L({ { 1, 2 }, { 1, 2 } }):t(), D({ { 1, 2 }, { 3, 4 } }))), { 1, 2, 3, 4 })
  tester:eq(flat(D({ { 1, 2, 3 }, { 4, 5, 6 } }):t():take(L({ 2 }))), { 4 })
  tester:eq(flat(D({ { 1, 2, 3 }, { 4, 5, 6 } }):t():maskedSelect(torch.ByteTensor({ { 1, 0 }, { 1, 0 }, { 0, 1 } }))), { 1, 2, 6 })
  gradcheck('gather of a transpose', function(t) return t:t():gather(1, L({ { 2, 1, 2 } })) end, { rnd(3, 2) })
  gradcheck('indexAdd into a transpose', function(t, s) return torch.indexAdd(t:t(), 2, L({ 1, 1 }), s) end, { rnd(3, 2), rnd(2, 2) })
end

-- ---- gradchecks with duplicate indices -----------------------------------------------------------

function tests.duplicateGradients()
  gradcheck('index dup', function(t) return t:index(1, L({ 2, 2, 1 })) end, { rnd(3, 2) })
  gradcheck('indexAdd dup', function(t, s) return torch.indexAdd(t, 1, L({ 3, 3, 1 }), s) end, { rnd(3, 2), rnd(3, 2) })
  gradcheck('gather dup', function(t) return t:gather(2, L({ { 1, 1, 2 }, { 2, 2, 2 }, { 1, 2, 1 } })) end, { rnd(3, 2) })
  gradcheck('scatterAdd dup', function(t, s) return torch.scatterAdd(t, 2, L({ { 2, 2 }, { 1, 1 }, { 2, 1 } }), s) end,
    { rnd(3, 2), rnd(3, 2) })
  gradcheck('put accumulate dup', function(t, s) return torch.put(t, L({ 1, 1, -1 }), s, true) end, { rnd(3, 2), rnd(3) })
  gradcheck('indexPut accumulate dup', function(t, v) return torch.indexPut(t, { L({ 1, 1 }) }, v, true) end, { rnd(3, 2), rnd(2, 2) })
  gradcheck('take dup', function(t) return t:take(L({ 1, 6, 6, -1 })) end, { rnd(3, 2) })
  gradcheck('indexFill dup', function(t) return torch.indexFill(t, 1, L({ 3, 3 }), 2) end, { rnd(3, 2) })
  gradcheck('maskedCopy', function(t, s) return torch.maskedCopy(t, torch.BoolTensor({ { true, false }, { true, true }, { false, false } }), s) end,
    { rnd(3, 2), rnd(2, 3) })
  gradcheck('takeAlongDim', function(t) return torch.takeAlongDim(t, L({ { 2, 2 } }), 2) end, { rnd(3, 2) })
end

-- C++ bug, see report: scatter/scatterAdd accept a src larger than the index (as PyTorch), but
-- their backward hands src a gradient of the index's size ("[backward] a gradient of size 3x1
-- cannot be reduced to 3x3"; PyTorch 1.13 fails the same way). The forward is checked; the
-- gradient case is skipped until core/autograd/formulas/index.cpp pads it with zeros.
function tests.scatterLargerSource()
  local r = torch.zeros(2, 3):double():scatter(2, L({ { 1 }, { 2 } }), D({ { 1, 9 }, { 2, 9 } }))
  tester:eq(flat(r), { 1, 0, 0, 0, 2, 0 })
  local ok = pcall(function()
    local s = rnd(3, 3)
    torch.scatterAdd(rnd(3, 2), 2, L({ { 2 }, { 1 }, { 2 } }), s):sum():backward()
  end)
  if ok then
    gradcheck('scatterAdd, src larger', function(t, s) return torch.scatterAdd(t, 2, L({ { 2 }, { 1 }, { 2 } }), s) end,
      { rnd(3, 2), rnd(3, 3) })
  end
end

-- ---- CUDA: a Lua table of indices goes to the tensor's device -------------------------------------

function tests.cudaTableIndices()
  if not (torch.cuda and torch.cuda.isAvailable and torch.cuda.isAvailable()) then return end
  local x = D({ { 1, 2, 3 }, { 4, 5, 6 } }):cuda()
  tester:eq(flat(x:index(1, { 2 }):double()), { 4, 5, 6 })
  tester:eq(flat(x:gather(2, { { 3 }, { 1 } }):double()), { 3, 4 })
  tester:eq(flat(x:clone():indexFill(2, { 1 }, 0):double()), { 0, 2, 3, 0, 5, 6 })
  tester:eq(flat(x:take({ 6 }):double()), { 6 })
  tester:eq(flat(x:put({ 1 }, 9):double()), { 9, 2, 3, 4, 5, 6 })
  local y = x:clone():requiresGrad() * 1
  y[{ 1, 2 }] = 0
  tester:eq(flat(y:double()), { 1, 0, 3, 4, 5, 6 })
end

tester:add(tests)
tester:run()
