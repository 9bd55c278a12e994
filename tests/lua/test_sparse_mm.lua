-- Sparse COO products and softmax (lua/torch/sparse_mm.lua): torch.sparse.mm/addmm, torch.mm and
-- operator dispatch, smm, hspmm, sparse x sparse, softmax/logSoftmax against PyTorch 1.13's values
-- and against dense computations; gradchecks (double) of everything differentiable; errors; CUDA
-- against CPU when a device is present.
local tester = torch.Tester()
local tests = torch.TestSuite()

-- The example of test_sparse.lua (1-based; a duplicate at (1, 3)) in double, and a dense D.
local function example()
  return torch.sparseCooTensor({ { 1, 2, 2, 1, 3 }, { 3, 1, 3, 3, 2 } }, torch.DoubleTensor({ 3, 4, 5, 6, -1.5 }), { 3, 3 })
end
local D = torch.DoubleTensor({ { 0.5, -1 }, { 2, 0.25 }, { -0.75, 1.5 } })
-- PyTorch 1.13: torch.sparse.mm(S, D) (also hspmm's rows and smm's values)
local MM = torch.DoubleTensor({ { -6.75, 13.5 }, { -1.75, 3.5 }, { -3.0, -0.375 } })

function tests.mmMatchesPyTorch()
  local S = example()
  tester:assertTensorEq(torch.sparse.mm(S, D), MM, 1e-15)
  tester:assertTensorEq(torch.sparse.mm(S:coalesce(), D), MM, 1e-15)
  tester:assertTensorEq(torch.mm(S, D), MM, 1e-15)
  tester:assertTensorEq(S:mm(D), MM, 1e-15)
  tester:assertTensorEq(S * D, MM, 1e-15)
  tester:assertTensorEq(S * D:select(2, 1), MM:select(2, 1), 1e-15, 'S * vector is mv')
  local res = torch.DoubleTensor()
  tester:asserteq(torch.mm(res, S, D), res)
  tester:assertTensorEq(res, MM, 1e-15)
  -- dense x sparse
  tester:assertTensorEq(torch.sparse.mm(D:t(), S), D:t() * S:toDense(), 1e-14)
  tester:assertTensorEq(torch.mm(D:t(), S), D:t() * S:toDense(), 1e-14)
  -- PyTorch 1.13: torch.sparse.addmm(ones(3, 2), S, D, beta=0.5, alpha=2)
  local ADD = torch.DoubleTensor({ { -13.0, 27.5 }, { -3.0, 7.5 }, { -5.5, -0.25 } })
  tester:assertTensorEq(torch.sparse.addmm(torch.ones(3, 2):double(), S, D, { beta = 0.5, alpha = 2 }), ADD, 1e-14)
  tester:assertTensorEq(torch.sparse.addmm(0.5, torch.ones(3, 2):double(), 2, S, D), ADD, 1e-14)
end

function tests.mmAgainstDense()
  torch.manualSeed(7)
  for _, tname in ipairs({ 'torch.FloatTensor', 'torch.DoubleTensor' }) do
    local idx = torch.LongTensor(2, 300):random(1, 40)
    idx[1]:clamp(1, 30)
    local S = torch.sparseCooTensor(idx, torch.randn(300):type(tname), { 30, 40 })
    local X = torch.randn(40, 7):type(tname)
    local tol = tname == 'torch.FloatTensor' and 1e-4 or 1e-12
    tester:assertTensorEq(torch.sparse.mm(S, X), torch.mm(S:toDense(), X), tol, tname)
    tester:assertTensorEq(torch.sparse.mm(X:t(), S:t()), torch.mm(X:t(), S:t():toDense()), tol, tname)
    local B = torch.sparseCooTensor(torch.LongTensor(2, 50):random(1, 40), torch.randn(50):type(tname), { 40, 40 })
    local P = torch.sparse.mm(S, B)
    tester:assert(torch.isSparse(P) and P:isCoalesced())
    tester:assertTensorEq(P:toDense(), torch.mm(S:toDense(), B:toDense()), tol, tname .. ' sparse x sparse')
  end
  -- enough entries and columns for several chunks (Note [Chunked sparse products]), against the
  -- dense product and against the one-pass form autograd takes
  local S = torch.sparseCooTensor(torch.LongTensor(2, 5000):random(1, 200), torch.randn(5000):double(), { 200, 200 })
  local X = torch.randn(200, 64):double()
  local P = torch.sparse.mm(S, X)
  tester:assertTensorEq(P, torch.mm(S:toDense(), X), 1e-12, 'chunked')
  tester:assertTensorEq(torch.sparse.mm(S:clone():requiresGrad(), X), P, 1e-12, 'recorded')
  tester:assertTensorEq(torch.sparse.addmm(0.5, X:narrow(2, 1, 10), 3, S, X:narrow(2, 1, 10)),
    X:narrow(2, 1, 10) * 0.5 + torch.mm(S:toDense(), X:narrow(2, 1, 10)) * 3, 1e-12, 'addmm')
end

function tests.sparseSparseSmmHspmmMatchPyTorch()
  local S = example()
  -- PyTorch 1.13: torch.sparse.mm(S, S.to_dense().to_sparse()).coalesce(), indices + 1; PyTorch
  -- marks that result coalesced but lists (3, 3) before (3, 1); here in lexicographic order
  local P = torch.sparse.mm(S, S:toDense():toSparse())
  tester:assertTensorEq(P:indices(), torch.LongTensor({ { 1, 2, 2, 3, 3 }, { 2, 2, 3, 1, 3 } }), 0)
  tester:assertTensorEq(P:values(), torch.DoubleTensor({ -13.5, -7.5, 36.0, -6.0, -7.5 }), 1e-14)
  tester:assertTensorEq((S * S):toDense(), S:toDense() * S:toDense(), 1e-14)
  -- PyTorch 1.13: torch.hspmm(S, D).coalesce(): indices [[0, 1, 2]], values = the mm's rows
  local H = torch.hspmm(S, D)
  tester:assertTensorEq(H:indices(), torch.LongTensor({ { 1, 2, 3 } }), 0)
  tester:assertTensorEq(H:values(), MM, 1e-15)
  tester:asserteq(H:denseDim(), 1)
  -- PyTorch 1.13: torch.smm(S, D).coalesce()
  local M = torch.smm(S, D)
  tester:assertTensorEq(M:indices(), torch.LongTensor({ { 1, 1, 2, 2, 3, 3 }, { 1, 2, 1, 2, 1, 2 } }), 0)
  tester:assertTensorEq(M:values(), MM:view(6), 1e-15)
  -- a row without entries is left out of hspmm and smm
  local R = torch.sparseCooTensor({ { 1, 3 }, { 2, 2 } }, torch.DoubleTensor({ 2, 3 }), { 3, 3 })
  tester:assertTensorEq(torch.hspmm(R, D):indices(), torch.LongTensor({ { 1, 3 } }), 0)
  tester:assertTensorEq(torch.smm(R, D):toDense(), R:toDense() * D, 1e-15)
end

function tests.softmaxMatchesPyTorch()
  local S = example()
  -- PyTorch 1.13: torch.sparse.softmax(S, 1).coalesce().values()
  tester:assertTensorEq(torch.sparse.softmax(S, 2):values(),
    torch.DoubleTensor({ 1.0, 0.26894142136999516, 0.7310585786300049, 1.0 }), 1e-15)
  -- PyTorch 1.13: torch.sparse.log_softmax(S, 0).coalesce().values()
  tester:assertTensorEq(torch.sparse.logSoftmax(S, 1):values(),
    torch.DoubleTensor({ -0.01814992791780945, 0.0, -4.0181499279178094, 0.0 }), 1e-14)
  -- PyTorch 1.13: a hybrid tensor [[0,2,0]] x [[1,2],[3,4],[5,7]], size (3, 2), softmax over dim 0
  local Hy = torch.sparseCooTensor({ { 1, 3, 1 } }, torch.Tensor({ { 1, 2 }, { 3, 4 }, { 5, 7 } }), { 3, 2 })
  tester:assertTensorEq(torch.sparse.softmax(Hy, 1):values(),
    torch.Tensor({ { 0.9525741338729858, 0.9933071732521057 }, { 0.04742587357759476, 0.006692850962281227 } }), 1e-6)
  -- along a dense dim: the dense softmax of each value row
  tester:assertTensorEq(torch.sparse.softmax(Hy, 2):values(), torch.softmax(Hy:coalesce():values(), 2), 1e-7)
  -- against the dense softmax where every entry is specified
  local x = torch.randn(4, 5):double()
  for d = 1, 2 do
    tester:assertTensorEq(x:toSparse():softmax(d):toDense(), torch.softmax(x, d), 1e-14)
    tester:assertTensorEq(x:toSparse():logSoftmax(d):toDense(), torch.logSoftmax(x, d), 1e-13)
  end
  -- large values stay finite (each group's maximum is subtracted)
  local big = torch.sparseCooTensor({ { 1, 1 }, { 1, 2 } }, torch.DoubleTensor({ 1000, 999 }), { 1, 2 })
  tester:assertalmosteq(big:softmax(2):values()[1], 1 / (1 + math.exp(-1)), 1e-15)
end

function tests.gradcheck()
  torch.manualSeed(5)
  local gc = torch.autograd.gradcheck
  local idx = torch.LongTensor({ { 1, 2, 2, 1, 3, 4 }, { 3, 1, 3, 3, 2, 2 } })
  local v = torch.randn(6):double():requiresGrad()
  local X = torch.randn(3, 4):double():requiresGrad()
  local function sp(vv) return torch.sparseCooTensor(idx, vv, { 4, 3 }) end
  tester:assert(gc(function(vv, x) return torch.sparse.mm(sp(vv), x) end, { v, X }), 'mm')
  tester:assert(gc(function(vv, x) return torch.sparse.mm(x:t(), sp(vv):t()) end, { v, X }), 'dense x sparse')
  tester:assert(gc(function(vv, x) return torch.sparse.addmm(torch.mm(x:t(), x), sp(vv), x:narrow(1, 1, 3), { beta = 2, alpha = 0.5 }) end,
    { v, X }), 'addmm')
  tester:assert(gc(function(vv, x) return torch.hspmm(sp(vv), x):values() end, { v, X }), 'hspmm')
  tester:assert(gc(function(vv) return sp(vv):coalesce():toDense() end, { v }), 'coalesce, toDense')
  tester:assert(gc(function(vv) return torch.sparse.mm(sp(vv), sp(vv):t()):values() end, { v }), 'sparse x sparse')
  tester:assert(gc(function(vv) return sp(vv):mul(sp(vv)):values() end, { v }), 'sparse * sparse')
  tester:assert(gc(function(vv) return sp(vv):sum(2):values() end, { v }), 'sum')
  tester:assert(gc(function(vv) return torch.sparse.softmax(sp(vv), 2):values() end, { v }), 'softmax')
  tester:assert(gc(function(vv) return torch.sparse.logSoftmax(sp(vv), 1):values() end, { v }), 'logSoftmax')
  tester:assert(gc(function(x) return x:toSparse():values() end, { X }), 'toSparse')
  tester:assert(gc(function(x) return x:toSparse(1):mul(x):toDense() end, { X }), 'mul by dense')
  -- S.grad: a SparseTensor with S's pattern; d sum(S x D) / d v_k = sum of D's row col_k
  local S = sp(torch.randn(6):double()):requiresGrad()
  torch.sparse.mm(S, X):sum():backward()
  tester:assert(torch.isSparse(S.grad))
  tester:assertTensorEq(S.grad:indices(), idx, 0)
  tester:assertTensorEq(S.grad:values(), X:detach():sum(2):view(3):index(1, idx[2]), 1e-14)
  tester:assertTensorEq(X.grad, S:detach():toDense():sum(1):view(3, 1):expandAs(X), 1e-14)
end

function tests.errors()
  local S = example()
  tester:assertErrorPattern(function() torch.sparse.mm(S, torch.ones(2, 2):double()) end, '%[mm%] sizes do not match')
  tester:assertErrorPattern(function() torch.sparse.mm(S, torch.ones(3, 2)) end,
    '%[mm%] the sparse values are torch.DoubleTensor of size 5 but the dense operand is torch.FloatTensor')
  tester:assertErrorPattern(function() torch.sparse.mm(torch.ones(2, 2), torch.ones(2, 2)) end, '%[mm%] expected a SparseTensor')
  tester:assertErrorPattern(function() torch.sparse.mm(torch.ones(2, 2, 2):toSparse(), torch.ones(2, 2)) end,
    '%[mm%] the sparse operand must be a 2%-D sparse matrix')
  tester:assertErrorPattern(function() torch.hspmm(S, torch.ones(2, 2):double()) end, '%[hspmm%] expected a dense 3 x p matrix')
  tester:assertErrorPattern(function() torch.sparse.addmm(torch.ones(2, 2):double(), S, D) end, '%[addmm%] M is')
  tester:assertErrorPattern(function() torch.sparse.softmax(S, 3) end, '%[softmax%] dimension 3 out of range')
  tester:assertErrorPattern(function() torch.sparse.sum(torch.ones(2), 1) end, '%[sum%] expected a SparseTensor')
  tester:assertErrorPattern(function() return 1 + S end, '%[add%] a dense %+ sparse sum is written S %+ x')
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  local S, Sc = example(), example():cuda()
  local Dc = D:cuda()
  tester:assertTensorEq(torch.sparse.mm(Sc, Dc):double(), MM, 1e-14)
  tester:assertTensorEq((Sc * Dc):double(), MM, 1e-14)
  tester:assertTensorEq(torch.sparse.mm(Sc, Sc):toDense():double(), torch.sparse.mm(S, S):toDense(), 1e-14)
  tester:assertTensorEq(torch.hspmm(Sc, Dc):values():double(), MM, 1e-14)
  tester:assertTensorEq(torch.sparse.softmax(Sc, 2):values():double(), torch.sparse.softmax(S, 2):values(), 1e-14)
  tester:assertTensorEq(torch.sparse.logSoftmax(Sc, 1):values():double(), torch.sparse.logSoftmax(S, 1):values(), 1e-14)
  local v = example():values():cuda():requiresGrad()
  local Dg = D:cuda():requiresGrad()
  torch.sparse.mm(torch.sparseCooTensor(example():indices():cuda(), v, { 3, 3 }), Dg):sum():backward()
  local vc, Dcpu = example():values():requiresGrad(), D:clone():requiresGrad()
  torch.sparse.mm(torch.sparseCooTensor(example():indices(), vc, { 3, 3 }), Dcpu):sum():backward()
  tester:assertTensorEq(v.grad:double(), vc.grad, 1e-14)
  tester:assertTensorEq(Dg.grad:double(), Dcpu.grad, 1e-14)
end

tester:add(tests)
tester:run()
