-- Review of the tensor products (lua/torch/products.lua: einsum, tensordot; linalg_extra.lua:
-- blockDiag, kron, inner, vdot, chainMatmul, triangularSolve and the other builders) against
-- PyTorch 1.13 (float64 values pasted below, computed with /usr/bin/python3), with gradchecks of
-- every differentiable product. Operands are R(shape): element k (1-based, row-major) is
-- ((7k mod 11) - 5) / 4, exact in binary, the same in Python and Lua.
local tester = torch.Tester()
local tests = torch.TestSuite()
local D = torch.DoubleTensor
local gc = torch.autograd.gradcheck

local function R(shape)
  local n = 1
  for _, s in ipairs(shape) do n = n * s end
  if #shape == 0 then return D({ 1.5 }):view({}) end  -- the 0-dim operand of the PyTorch script
  local v = {}
  for k = 1, n do v[k] = ((k * 7) % 11 - 5) / 4 end
  if n == 0 then return D(torch.LongStorage(shape)) end
  return D(v):view(torch.LongStorage(shape))
end
local function same(got, size, flat, tol, what)
  tester:eq(got:size():totable(), size, what .. ' (size)')
  if #flat > 0 then
    tester:assertTensorEq(got:double():contiguous():view(-1), D(flat), tol or 1e-12, what)
  end
end
local function check_grad(name, fn, inputs)
  local ok, err = pcall(gc, fn, inputs)
  tester:assert(ok and err, name .. ': ' .. tostring(err))
end
local function errs(f, pattern, what)
  local ok, msg = pcall(f)
  tester:assert(not ok and tostring(msg):find(pattern), (what or pattern) .. ': got ' .. tostring(msg))
end
local function S(v, T) return (T or D)({ v }):view({}) end

-- ---- blockDiag ------------------------------------------------------------------------------

-- The known bug: the result took the first tensor's type, so a Long first block truncated 0.5.
function tests.blockDiagPromotesAcrossInputs()
  local r = torch.blockDiag(torch.LongTensor({ { 1 } }), D({ { 0.5 } }))
  tester:asserteq(r:type(), 'torch.DoubleTensor')
  tester:eq(r:totable(), { { 1, 0 }, { 0, 0.5 } })  -- PyTorch 1.13: float64 [[1, 0], [0, 0.5]]
  -- PyTorch 1.13's promotions: bool+int64 -> int64, int32+int64 -> int64, float32+float64 ->
  -- float64, uint8+bool -> uint8, float16+int64 -> float16, bool+bool -> bool
  local cases = {
    { torch.BoolTensor({ { true } }), torch.LongTensor({ { 2 } }), 'torch.LongTensor', { { 1, 0 }, { 0, 2 } } },
    { torch.IntTensor({ { 1 } }), torch.LongTensor({ { 2 } }), 'torch.LongTensor', { { 1, 0 }, { 0, 2 } } },
    { torch.FloatTensor({ { 1 } }), D({ { 2 } }), 'torch.DoubleTensor', { { 1, 0 }, { 0, 2 } } },
    { torch.ByteTensor({ { 3 } }), torch.BoolTensor({ { true } }), 'torch.ByteTensor', { { 3, 0 }, { 0, 1 } } },
    { torch.HalfTensor({ { 1.5 } }), torch.LongTensor({ { 2 } }), 'torch.HalfTensor', { { 1.5, 0 }, { 0, 2 } } },
    { torch.BoolTensor({ { true } }), torch.BoolTensor({ { false, true } }), 'torch.BoolTensor',
      { { true, false, false }, { false, false, true } } },
  }
  for i, c in ipairs(cases) do
    local b = torch.blockDiag(c[1], c[2])
    tester:asserteq(b:type(), c[3], 'case ' .. i)
    local got = c[3] == 'torch.HalfTensor' and b:double():totable() or b:totable()
    tester:eq(got, c[4], 'case ' .. i)
  end
  -- the promotion looks at every input, not the first two: int64, int32, float64 -> float64
  tester:asserteq(torch.blockDiag(torch.LongTensor({ 1 }), torch.IntTensor({ 2 }), S(0.25)):type(), 'torch.DoubleTensor')
  tester:asserteq(torch.blockDiag(torch.LongTensor({ 1 }), torch.IntTensor({ 2 }), S(0.25))[3][3], 0.25)
end

function tests.blockDiagShapesAsPyTorch()
  -- PyTorch 1.13: 0-dim -> 1x1, 1-D -> a row, a 1-D of size 0 adds a row of no columns
  same(torch.blockDiag(S(2), D({ 1, 2 })), { 2, 3 }, { 2, 0, 0, 0, 1, 2 }, 0, '0-dim and 1-D')
  same(torch.blockDiag(D(0), torch.ones(2, 2):double()), { 3, 2 }, { 0, 0, 1, 1, 1, 1 }, 0, 'empty 1-D')
  same(torch.blockDiag(D(0, 3), torch.ones(2, 2):double()), { 2, 5 }, { 0, 0, 0, 1, 1, 0, 0, 0, 1, 1 }, 0, '0x3')
  same(torch.blockDiag(D(2, 0), torch.ones(1, 1):double()), { 3, 1 }, { 0, 0, 1 }, 0, '2x0')
  -- no tensors: PyTorch 1.13 returns an empty 1x0 tensor (of the default type)
  local none = torch.blockDiag()
  tester:eq(none:size():totable(), { 1, 0 })
  tester:asserteq(none:type(), torch.getdefaulttensortype())
  -- non-contiguous blocks; the result never shares storage with a single block
  local a = R({ 3, 2 }):t()
  same(torch.blockDiag(a, R({ 2, 4 }):index(2, torch.LongTensor({ 1, 3 }))), { 4, 5 },
    { 0.5, 1.25, -0.75, 0, 0, -0.5, 0.25, 1, 0, 0, 0, 0, 0, 0.5, 1.25, 0, 0, 0, -0.75, 0 }, 0, 'non-contiguous')
  local one = torch.blockDiag(a)
  one:fill(7)
  tester:assert(a:max() < 7, 'a single block is copied')
  errs(function() torch.blockDiag(torch.ones(1, 1, 1)) end, '%[blockDiag%] argument 1 must be a tensor of at most 2 dims')
  errs(function() torch.blockDiag(torch.ones(1), 3) end, '%[blockDiag%] argument 2 must be a tensor')
end

function tests.blockDiagGradients()
  local function G(...) return torch.randn(...):double():requiresGrad() end
  torch.manualSeed(11)
  check_grad('blockDiag 2-D, 0-dim, 1-D, empty', torch.blockDiag,
    { G(2, 3), G(1):view({}), G(3), D(0, 2):requiresGrad(), G(1, 2) })
  -- a Float block next to a Double one: its gradient comes back as a FloatTensor
  local f, d = torch.FloatTensor({ { 1, 2 } }):requiresGrad(), D({ { 3 } }):requiresGrad()
  local w = D({ { 1, 2, 3 }, { 4, 5, 6 } })
  torch.cmul(torch.blockDiag(f, d), w):sum():backward()
  tester:asserteq(f.grad:type(), 'torch.FloatTensor')
  tester:eq(f.grad:totable(), { { 1, 2 } })
  tester:eq(d.grad:totable(), { { 6 } })
  -- an integer block beside a differentiable one
  local x = D({ { 2 } }):requiresGrad()
  torch.blockDiag(torch.LongTensor({ { 1 } }), x):sum():backward()
  tester:eq(x.grad:totable(), { { 1 } })
end

-- ---- kron, inner, vdot, chainMatmul ------------------------------------------------------------

function tests.kronOfZeroDimTensors()
  local r = torch.kron(S(2), S(3))  -- PyTorch 1.13: a 0-dim 6 (Tocha gave a 1-D tensor of size 1)
  tester:asserteq(r:dim(), 0)
  tester:asserteq(r:item(), 6)
  same(torch.kron(S(2), D({ 1, 3 })), { 2 }, { 2, 6 }, 0, '0-dim with 1-D')
  same(torch.kron(torch.LongTensor({ 1, 2 }), D({ 0.5 })), { 2 }, { 0.5, 1 }, 0, 'int64 with float64 (promoted)')
  tester:asserteq(torch.kron(torch.BoolTensor({ true }), torch.LongTensor({ 3 })):type(), 'torch.LongTensor')
  check_grad('kron 0-dim', torch.kron, { D({ 2 }):view({}):requiresGrad(), D({ 3 }):view({}):requiresGrad() })
end

function tests.innerOverAnEmptyDim()
  -- PyTorch 1.13: summing over a last dim of size 0 gives zeros (Tocha raised [view])
  same(torch.inner(D(2, 0), D(3, 0)), { 2, 3 }, { 0, 0, 0, 0, 0, 0 }, 0, '2x0 with 3x0')
  local v = torch.inner(D(0), D(0))
  tester:asserteq(v:dim(), 0)
  tester:asserteq(v:item(), 0)
  same(torch.inner(D(0, 0), D(2, 0)), { 0, 2 }, {}, 0, '0x0 with 2x0')
  local a = D(2, 0):requiresGrad()
  torch.inner(a, D(3, 0)):sum():backward()
  tester:eq(a.grad:size():totable(), { 2, 0 })
  -- against PyTorch 1.13 on non-contiguous operands
  same(torch.inner(R({ 3, 2 }):t(), R({ 4, 3 })), { 2, 4 }, { -1.3125, -1.5625, -1.8125, -2.0625, 0.875, 0.6875, 0.5, 0.3125 },
    1e-12, 'inner of a transposed operand')
end

function tests.errorsNameTheFunction()
  -- the matmul these are built on named itself in their errors
  errs(function() torch.inner(torch.LongTensor({ 1, 2 }), D({ 1, 2 })) end,
    '^[^%[]*%[inner%] a is a torch.LongTensor but b is a torch.DoubleTensor')
  errs(function() torch.inner(torch.BoolTensor({ true }), torch.BoolTensor({ true })) end, '^[^%[]*%[inner%] no matrix product')
  errs(function() torch.vdot(torch.ones(2), D({ 1, 2 })) end, '^[^%[]*%[vdot%] a is a torch.FloatTensor but b is')
  errs(function() torch.vdot(D({ 1 }), D({ 1, 2 })) end, '%[vdot%] expected two 1D tensors of one size, got size 1 and size 2')
  errs(function() torch.chainMatmul(torch.ones(2, 3), D(3, 2)) end, '^[^%[]*%[chainMatmul%] ')
  errs(function() torch.chainMatmul() end, '%[chainMatmul%] expected one or more matrices')
  errs(function() torch.matrixPower(torch.ones(2, 3), 2) end, '^[^%[]*%[matrixPower%]')
  -- a nil between the matrices was skipped: chainMatmul(a, nil, b) returned a copy of a
  local a = torch.ones(2, 2)
  errs(function() torch.chainMatmul(a, nil, a) end, '%[chainMatmul%] argument 2 must be a 2D tensor, got nil')
  errs(function() torch.triangularSolve(D(3, 1), D(3), true, true) end,
    '%[triangularSolve%] A must be a matrix or a batch of them, got torch.DoubleTensor of size 3')  -- was [transpose]
  -- a non-square factor was reported with its transposed size (2x3 "got size 3x2")
  errs(function() torch.choleskySolve(D(2, 1), D(2, 3), true) end, '%[choleskySolve%] the factor must be square in its last two dims, got size 2x3')
  errs(function() torch.trtrs(D(2, 1), D(2, 3), 'U', 'T') end, '%[trtrs%] A must be square in its last two dims, got size 2x3')
  errs(function() torch.triangularSolve(D(2, 1), D(2, 3), true, true) end, '%[triangularSolve%] A must be square in its last two dims, got size 2x3')
  errs(function() torch.pinverse(torch.eye(2), 'x') end, '%[pinverse%] rcond must be a number, got string')
  errs(function() torch.lu(nil) end, '^[^%[]*%[lu%] expected a tensor')
  errs(function() torch.luSolve(D(2, 1), D(2, 3), torch.IntTensor({ 1, 2 })) end, '^[^%[]*%[luSolve%]')
  local P, L, U = torch.luUnpack(torch.lu(D({ { 1, 2 }, { 3, 4 } })))  -- still three results
  tester:assertTensorEq(torch.mm(P, torch.mm(L, U)), D({ { 1, 2 }, { 3, 4 } }), 1e-12, 'P L U')
  -- errors are raised at the caller's line
  errs(function() torch.inner(torch.ones(2), torch.ones(3)) end, 'test_products_regressions.lua:%d+: %[inner%]')
  errs(function() torch.inner(torch.ones(2), D(2)) end, 'test_products_regressions.lua:%d+: %[inner%] a is')
end

function tests.triangularSolveCopyOfA()
  -- PyTorch 1.13's cloned_coefficient is A broadcast to the solution's batch dims
  local A = D({ { 2, 1 }, { 0, 4 } })
  local X, Ac = torch.triangularSolve(D(3, 2, 1):fill(1), A)
  tester:eq(X:size():totable(), { 3, 2, 1 })
  tester:eq(Ac:size():totable(), { 3, 2, 2 })
  tester:eq(Ac[3]:totable(), { { 2, 1 }, { 0, 4 } })
  tester:eq(X[1]:totable(), { { 0.375 }, { 0.25 } })  -- PyTorch 1.13
  local _, A2 = torch.triangularSolve(D(2, 1):fill(1), A)
  A2:fill(9)
  tester:eq(A:totable(), { { 2, 1 }, { 0, 4 } }, 'a copy, not a view')
end

-- ---- einsum and tensordot against PyTorch 1.13 ---------------------------------------------------

-- { equation, operand shapes, PyTorch's result size, its values (row-major) }
local EINSUM = {
  { 'ba,Ab', { { 3, 4 }, { 2, 3 } }, { 2, 4 }, { 1.5625, -1.0625, -0.9375, 1.25, 1.4375, -1.125, -0.9375, 1.3125 } },
  { 'aB', { { 2, 3 } }, { 3, 2 }, { 0.5, 0.25, -0.5, -0.75, 1.25, 1 } },
  { 'Ba', { { 2, 3 } }, { 2, 3 }, { 0.5, -0.5, 1.25, 0.25, -0.75, 1 } },
  { '...ij,...jk', { { 2, 1, 3, 4 }, { 5, 4, 2 } }, { 2, 5, 3, 2 }, { -1.3125, 0.625, 0.875, 1.625, 1, -2.1875, 0.4375,
    1, -2.0625, 1.4375, 1.625, -2.25, 0.8125, -2.0625, -2.25, 1.25, 1.5625, 1.125, 1.1875, -1.6875, -2.4375, 1.0625,
    1.5, 1.0625, 0.1875, -1.3125, -0.5625, 0.875, -0.625, 1, 1.125, 1.5625, 1.25, -2.25, -2.0625, 0.8125, -2.25, 1.625,
    1.4375, -2.0625, 1, 0.4375, -2.1875, 1, 1.625, 0.875, 0.625, -1.3125, -2.125, 1.0625, 1.8125, 1.0625, 0.25,
    -1.6875, -0.6875, 1.125, -0.75, 1.25, 0.5625, -2.0625 } },
  { '...ji', { { 2, 3, 4 } }, { 2, 4, 3 }, { 0.5, -0.75, 0.75, -0.5, 1, -0.25, 1.25, 0, -1.25, 0.25, -1, 0.5, -0.5, 1,
    -0.25, 1.25, 0, -1.25, 0.25, -1, 0.5, -0.75, 0.75, -0.5 } },
  { '...i,...i->...', { { 2, 3, 4 }, { 4 } }, { 2, 3 }, { 2.125, -1.125, -0.9375, -0.75, -0.5625, 1 } },
  { 'i...,i...->i...', { { 2, 3, 1 }, { 2, 1, 4 } }, { 2, 3, 4 }, { 0.25, -0.25, 0.625, 0.125, -0.25, 0.25, -0.625,
    -0.125, 0.625, -0.625, 1.5625, 0.3125, -0.1875, 0.25, 0, -0.25, 0.5625, -0.75, -0, 0.75, -0.75, 1, 0, -1 } },
  { 'i...j->j...i', { { 2, 3, 2, 2 } }, { 2, 3, 2, 2 }, { 0.5, -0.5, 1.25, 0.25, -0.75, 1, 0, -1, 0.75, -0.25, -1.25,
    0.5, -0.5, 1.25, 0.25, -0.75, 1, 0, -1, 0.75, -0.25, -1.25, 0.5, -0.5 } },
  { '...ij->ij', { { 2, 3, 4 } }, { 3, 4 }, { 0, 0.75, 1.5, -0.5, 0.25, 1, -1, -0.25, 0.5, -1.5, -0.75, 0 } },
  { 'ij->...ij', { { 2, 3 } }, { 2, 3 }, { 0.5, -0.5, 1.25, 0.25, -0.75, 1 } },
  { '...,...->...', { { 3 }, { 3 } }, { 3 }, { 0.25, 0.25, 1.5625 } },
  { 'iii->i', { { 2, 2, 2 } }, { 2 }, { 0.5, -1 } },
  { 'iji->j', { { 2, 3, 2 } }, { 3 }, { -0.5, 1, -0.25 } },
  { 'ii->', { { 3, 3 } }, {}, { 0.5 } },
  { 'ij,ij', { { 2, 3 }, { 2, 3 } }, {}, { 3.6875 } },
  { 'ii,i', { { 3, 3 }, { 3 } }, {}, { 1.5625 } },
  { 'ii,i->i', { { 3, 3 }, { 3 } }, { 3 }, { 0.25, 0.375, 0.9375 } },
  { 'ab,bc,cd,de->ae', { { 2, 3 }, { 3, 4 }, { 4, 5 }, { 5, 2 } }, { 2, 2 }, { -2.7890625, 6.38671875, -2.53125, 6.51171875 } },
  { 'ab,bc,cd,da->', { { 2, 3 }, { 3, 4 }, { 4, 5 }, { 5, 2 } }, {}, { 3.72265625 } },
  { 'ij,ij->ij', { { 1, 3 }, { 2, 3 } }, { 2, 3 }, { 0.25, 0.25, 1.5625, 0.125, 0.375, 1.25 } },
  { 'ij,jk->ik', { { 2, 1 }, { 3, 4 } }, { 2, 4 }, { 0.25, 0.125, 0, -0.125, -0.25, -0.125, -0, 0.125 } },
  { 'Ij,jK->IK', { { 2, 3 }, { 3, 4 } }, { 2, 4 }, { 1.5625, -1.0625, -0.9375, 1.25, 1.4375, -1.125, -0.9375, 1.3125 } },
  { 'ij,kl->', { { 2, 3 }, { 4, 5 } }, {}, { 2.625 } },
  { 'i,i,i->', { { 3 }, { 3 }, { 3 } }, {}, { 1.953125 } },
  { 'bi,bj,bk->bijk', { { 2, 2 }, { 2, 3 }, { 2, 1 } }, { 2, 2, 3, 1 }, { 0.125, -0.125, 0.3125, -0.125, 0.125, -0.3125,
    -0.15625, 0.46875, -0.625, -0.03125, 0.09375, -0.125 } },
  { ',i->i', { {}, { 3 } }, { 3 }, { 0.75, -0.75, 1.875 } },
  { 'i j->j i', { { 2, 3 } }, { 3, 2 }, { 0.5, 0.25, -0.5, -0.75, 1.25, 1 } },
  { 'bn,anm,bm->ba', { { 2, 5 }, { 3, 5, 4 }, { 2, 4 } }, { 2, 3 }, { 0.6875, 0.703125, -2.890625, 2.34375, 0.5625, -1.390625 } },
  { '...ii->...i', { { 2, 3, 3 } }, { 2, 3 }, { 0.5, -0.75, 0.75, -0.25, 1.25, 0 } },
  { 'ij...,jk...->ik...', { { 2, 3, 2 }, { 3, 4, 1 } }, { 2, 4, 2 }, { -1.25, 0.3125, 1.1875, 0.25, 1.5625, -1.875, -1.5,
    0.125, -1.5, 0.0625, 1.0625, 0.125, 1.5625, -1.875, -1.375, 0.25 } },
  { 'ii,ij->j', { { 3, 3 }, { 3, 2 } }, { 2 }, { -1.25, 0.3125 } },
  { 'ij,j->ij', { { 2, 0 }, { 0 } }, { 2, 0 }, {} }, { 'ij->j', { { 0, 3 } }, { 3 }, { 0, 0, 0 } },
  { 'bij,bjk->bik', { { 1, 2, 3 }, { 3, 3, 2 } }, { 3, 2, 2 }, { -1.3125, 0.875, -1.5625, 0.6875, -1.9375, 0.25, -1.8125,
    0.4375, 0.875, 1, 0.6875, 0.875 } },
  { 'i,i->i', { { 1 }, { 3 } }, { 3 }, { 0.25, -0.25, 0.625 } },
  { '...ij,jk->...ik', { { 2, 3 }, { 3, 2 } }, { 2, 2 }, { -1.3125, 0.875, -1.5625, 0.6875 } },
  { 'kj,ji,ik->', { { 2, 3 }, { 3, 4 }, { 4, 2 } }, {}, { -3.09375 } },
  { 'ijk,kji->', { { 2, 3, 2 }, { 2, 3, 2 } }, {}, { 1.5625 } },
  { 'aab,bc->ca', { { 2, 2, 3 }, { 3, 2 } }, { 2, 2 }, { -1.3125, -2.0625, 0.875, 0.3125 } },
  { 'i,j,k,l->lkji', { { 2 }, { 1 }, { 2 }, { 2 } }, { 2, 2, 1, 2 }, { 0.0625, -0.0625, -0.0625, 0.0625, -0.0625, 0.0625,
    0.0625, -0.0625 } },
  { '...a,...a->...', { { 2, 1, 3 }, { 4, 3 } }, { 2, 4 }, { 2.0625, 1.75, 1.4375, 1.125, 1.75, 1.625, 1.5, 1.375 } },
}

function tests.einsumAgainstPyTorch()
  for _, c in ipairs(EINSUM) do
    local ops = {}
    for i, s in ipairs(c[2]) do ops[i] = R(s) end
    same(torch.einsum(c[1], unpack(ops)), c[3], c[4], 1e-12, c[1])
  end
  -- PyTorch 1.13's einsum errors, as Tocha words them
  errs(function() torch.einsum('ij->ik', R({ 2, 3 })) end, "%[einsum%] output label 'k' does not appear in any operand")
  errs(function() torch.einsum(' i j - > j i', R({ 2, 3 })) end, "%[einsum%] invalid character '%-'")
  errs(function() torch.einsum('..i->i', R({ 3 })) end, "%[einsum%] the '.' at position 1")
  errs(function() torch.einsum('...->......', R({ 2 })) end, '%[einsum%] the output %(\'......\'%) has more than one ellipsis')
  -- a forgotten equation (the sublist form is tested in test_einsum_sublist.lua)
  errs(function() torch.einsum(R({ 2, 3 }), R({ 3, 4 })) end, '%[einsum%] expected an equation')
end

function tests.einsumRefusesAnEmbeddedNul()
  -- the C side read the equation up to the NUL: 'ij\0->i' was taken as 'ij' and gave a 2x2 result
  errs(function() torch.einsum('ij\0->i', R({ 2, 2 })) end, "%[einsum%] the equation has a NUL character at position 3")
end

-- { name, a's shape, b's shape, dims (Tocha's 1-based form), PyTorch's size, its values }
local TENSORDOT = {
  { 'int 0', { 2 }, { 3 }, 0, { 2, 3 }, { 0.25, -0.25, 0.625, -0.25, 0.25, -0.625 } },
  { 'int 1', { 2, 3 }, { 3, 4 }, 1, { 2, 4 }, { 1.5625, -1.0625, -0.9375, 1.25, 1.4375, -1.125, -0.9375, 1.3125 } },
  { 'default 2', { 2, 3, 4 }, { 3, 4, 2 }, nil, { 2, 2 }, { -1.8125, 3.1875, 3.1875, -1.8125 } },
  { 'lists ([1,2],[1,0])', { 2, 3, 4 }, { 4, 3, 2 }, { { 2, 3 }, { 2, 1 } }, { 2, 2 }, { -1.8125, 3.1875, 3.1875, -1.8125 } },
  { 'negative ([-1],[0])', { 2, 3, 4 }, { 4, 3, 2 }, { { -1 }, { 1 } }, { 2, 3, 3, 2 }, { -0.625, 2, 0.5, -1, 1.625, 0.125,
    0.625, -1.375, 0.0625, 0.8125, -1.1875, 0.25, 0.5, -1.3125, 0.3125, 0.5625, -1.25, 0.375, 0.375, -1.25, 0.5625,
    0.3125, -1.3125, 0.5, 0.25, -1.1875, 0.8125, 0.0625, -1.375, 0.625, 0.125, 1.625, -1, 0.5, 2, -0.625 } },
  { 'empty lists', { 2 }, { 3 }, { {}, {} }, { 2, 3 }, { 0.25, -0.25, 0.625, -0.25, 0.25, -0.625 } },
  { '0-dim, 0', {}, { 3 }, 0, { 3 }, { 0.75, -0.75, 1.875 } },
  { 'all dims ([0,1],[1,0])', { 2, 3 }, { 3, 2 }, { { 1, 2 }, { 2, 1 } }, {}, { -0.625 } },
}

function tests.tensordotAgainstPyTorch()
  for _, c in ipairs(TENSORDOT) do
    same(torch.tensordot(R(c[2]), R(c[3]), c[4]), c[5], c[6], 1e-12, c[1])
  end
  -- PyTorch 1.13 refuses dims = 1 on a 0-dim tensor and mixed dtypes
  errs(function() torch.tensordot(S(2), D({ 1, 2 }), 1) end, '%[tensordot%] cannot contract the last 1 dims of a')
  errs(function() torch.tensordot(torch.LongTensor({ 1 }), D({ 1 }), 1) end, '%[tensordot%] a is a torch.LongTensor')
  -- contracting a dim of size 0 gives zeros
  same(torch.tensordot(D(2, 0, 3), D(0, 3, 2), 2), { 2, 2 }, { 0, 0, 0, 0 }, 0, 'size-0 contraction')
end

-- ---- gradients ---------------------------------------------------------------------------------

function tests.gradchecks()
  torch.manualSeed(12)
  local function G(...) return torch.randn(...):double():requiresGrad() end
  local function G0() return torch.randn(1):double():view({}):requiresGrad() end
  local function tri() return (torch.randn(3, 3):double() + torch.eye(3):double() * 4):requiresGrad() end
  local e = torch.einsum
  local cases = {
    { 'kron', torch.kron, { G(2, 3), G(3, 2) } }, { 'kron 3-D with 1-D', torch.kron, { G(2, 1, 2), G(3) } },
    { 'inner', torch.inner, { G(2, 3), G(4, 3) } }, { 'inner 0-dim', torch.inner, { G0(), G(2, 3) } },
    { 'vdot', torch.vdot, { G(3), G(3) } }, { 'chainMatmul', torch.chainMatmul, { G(2, 3), G(3, 4), G(4, 2) } },
    { 'triangularSolve', function(B, A) return (torch.triangularSolve(B, A)) end, { G(3, 2), tri() } },
    { 'triangularSolve lower, transposed', function(B, A) return (torch.triangularSolve(B, A, false, true)) end,
      { G(3, 2), tri() } },
    { 'triangularSolve batched B', function(B, A) return (torch.triangularSolve(B, A)) end, { G(2, 3, 2), tri() } },
    { 'diagEmbed', function(x) return torch.diagEmbed(x, -1) end, { G(2, 3) } },
    { 'diagflat', function(x) return torch.diagflat(x, 1) end, { G(2, 2) } },
    { 'cartesianProd', torch.cartesianProd, { G(2), G(3) } },
    { 'linalg.vecdot broadcast', function(a, b) return torch.linalg.vecdot(a, b) end, { G(2, 3), G(3) } },
    { 'linalg.cross broadcast', function(a, b) return torch.linalg.cross(a, b) end, { G(1, 3), G(2, 3) } },
    { 'linalg.multiDot with vectors', function(a, b, c) return torch.linalg.multiDot({ a, b, c }) end, { G(3), G(3, 2), G(2) } },
    { 'addmv broadcast M', function(M, a, b) return torch.addmv(2, M, 0.5, a, b) end, { G(1), G(2, 3), G(3) } },
    { 'addr', function(M, a, b) return torch.addr(2, M, 0.5, a, b) end, { G(2, 3), G(2), G(3) } },
    { 'addbmm', function(M, a, b) return torch.addbmm(2, M, 0.5, a, b) end, { G(2, 3), G(2, 2, 4), G(2, 4, 3) } },
    { 'baddbmm broadcast M', function(M, a, b) return torch.baddbmm(2, M, 0.5, a, b) end, { G(1, 2, 3), G(2, 2, 4), G(2, 4, 3) } },
    { 'tensordot negative dims', function(a, b) return torch.tensordot(a, b, { { -1, 1 }, { -2, 1 } }) end, { G(2, 3, 4), G(2, 4, 3) } },
    { 'tensordot 0 with a 0-dim', function(a, b) return torch.tensordot(a, b, 0) end, { G0(), G(3) } },
    { "einsum 'i...,i...->i...'", function(a, b) return e('i...,i...->i...', a, b) end, { G(2, 3, 1), G(2, 1, 4) } },
    { "einsum 'iji->j'", function(a) return e('iji->j', a) end, { G(2, 3, 2) } },
    { "einsum 'ii,i->i'", function(a, b) return e('ii,i->i', a, b) end, { G(3, 3), G(3) } },
    { "einsum ',i->i'", function(a, b) return e(',i->i', a, b) end, { G0(), G(3) } },
    { "einsum 'Ij,jK->IK'", function(a, b) return e('Ij,jK->IK', a, b) end, { G(2, 3), G(3, 2) } },
    { "einsum four operands", function(a, b, c, d) return e('ab,bc,cd,da->', a, b, c, d) end, { G(2, 3), G(3, 2), G(2, 2), G(2, 2) } },
    { "einsum 'i...j->j...i'", function(a) return e('i...j->j...i', a) end, { G(2, 3, 1, 2) } },
  }
  for _, c in ipairs(cases) do check_grad(c[1], c[2], c[3]) end
end

-- ---- found in other files (fixed there since) ---------------------------------------------------

function tests.otherFiles()
  -- lua/torch/linalg.lua's addmm/addmv/addr/addbmm/baddbmm took Torch7's positional multipliers
  -- only; PyTorch's trailing {beta=, alpha=} table was refused.
  -- PyTorch 1.13: torch.addmv(R(2), R(2,3), R(3), beta=2, alpha=0.5) = [2.03125, -0.125]
  same(torch.addmv(R({ 2 }), R({ 2, 3 }), R({ 3 }), { beta = 2, alpha = 0.5 }), { 2 }, { 2.03125, -0.125 }, 1e-12, 'addmv opts')
  -- torch.cross (reduce_cross_histc.lua) did not broadcast as PyTorch 1.13's torch.cross does.
  same(torch.cross(R({ 1, 3 }), R({ 2, 3 })), { 2, 3 }, { 0, 0, 0, 0.4375, -0.1875, -0.25 }, 1e-12, 'cross broadcast')
  -- A one-operand sum converted the i64 sum back to the operand's dtype, so a ByteTensor wrapped
  -- (einsum('ij->i', ByteTensor{{200, 100}}) was 44) where PyTorch 1.13 gives int64 300 (bool:
  -- int64 2); a product stays in the operands' dtype (uint8 'ij,ij->i' wraps to 80 in PyTorch too).
  local r = torch.einsum('ij->i', torch.ByteTensor({ { 200, 100 } }))
  tester:asserteq(r:type(), 'torch.LongTensor')
  tester:eq(r:totable(), { 300 })
  tester:eq(torch.einsum('ii->', torch.BoolTensor({ { 1, 0 }, { 0, 1 } })):totable(), 2)
  tester:eq(torch.einsum('ij,ij->i', torch.ByteTensor({ { 200, 100 } }), torch.ByteTensor({ { 200, 100 } })):totable(), { 80 })
end

tester:add(tests)
tester:run()
