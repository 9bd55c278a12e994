-- torch.linalg's *Ex functions and alias (lua/torch/linalg_ex.lua): solveEx and luFactorEx
-- against PyTorch 1.13 values (results and info codes, batched, singular, rectangular, left =
-- false), checkErrors, NaN results for singular matrices with the rest of the batch solved,
-- gradchecks of solveEx, errors; linalg.matmul is torch.matmul. (ldl_factor, ldl_factor_ex and
-- ldl_solve are not provided: see the report in lua/torch/linalg_ex.lua's Note [No LDL].)
local tester = torch.Tester()
local tests = torch.TestSuite()
local D = torch.DoubleTensor
torch.setdefaulttensortype("torch.DoubleTensor")
local L = torch.linalg

local function same(got, expected, tol, name)
  tester:asserteq(got:nElement(), #expected, name .. ' count')
  local flat = got:contiguous():view(-1)
  for i, e in ipairs(expected) do
    tester:assert(math.abs(flat[i] - e) <= tol * math.max(1, math.abs(e)),
      string.format('%s element %d: got %.17g, expected %.17g', name, i, flat[i], e))
  end
end

-- PyTorch 1.13 values (float64).
local A = D({ { 4, 1, -2, 0.5 }, { 1, 3, 0, 1 }, { -2, 0, 5, 2 }, { 0.5, 1, 2, 6 } })
local B = D({ { 1, 2 }, { 0, -1 }, { 3, 1 }, { -2, 0.5 } })
local SOLVE = { 1.060179257362356, 0.9897567221510883, -0.06402048655569784, -0.6274007682458387, 1.3713188220230474,
  0.6389244558258642, -0.8681177976952625, -0.1075544174135723 }
local SOLVE_RIGHT = { 1.060179257362356, -0.06402048655569782, 1.3713188220230474, -0.8681177976952625,
  0.9897567221510885, -0.6274007682458388, 0.6389244558258644, -0.10755441741357236 }
local LU_R = { 2.0, 4.0, 6.0, 0.5, -2.0, -2.0, 0.5, -0.0, 0.0 }            -- pivots {2, 3, 3}, info 3
local LU_WIDE = { 2.0, 4.0, 6.0, 0.5, 0.0, 0.0 }                          -- pivots {2, 2}, info 2
local LU_TALL = { 0.0, 0.0, 0.0, 2.0, 0.0, 0.5 }                          -- pivots {1, 3}, info 1

function tests.matmulAlias()
  tester:asserteq(L.matmul, torch.matmul)
end

function tests.solveExMatchesPyTorch()
  local X, info = L.solveEx(A, B)
  same(X, SOLVE, 1e-13, 'solveEx')
  tester:asserteq(info:type(), 'torch.IntTensor')
  tester:asserteq(info:dim(), 0)
  tester:asserteq(info:sum(), 0)
  X, info = L.solveEx(A, B:t(), { left = false })
  same(X, SOLVE_RIGHT, 1e-13, 'solveEx left = false')
  tester:assertTableEq(X:size():totable(), { 2, 4 })
  -- a vector B
  X = L.solveEx(A, B:select(2, 1):clone())
  tester:assertTableEq(X:size():totable(), { 4 })
  same(X, { SOLVE[1], SOLVE[3], SOLVE[5], SOLVE[7] }, 1e-13, 'vector B')
end

function tests.singularBatches()
  -- PyTorch 1.13: info {0, 1, 0}; its result for the singular matrix is LAPACK's leftover (NaN here)
  local As = torch.stack({ torch.eye(2), torch.zeros(2, 2), D({ { 1, 2 }, { 3, 4 } }) }, 1)
  local X, info = L.solveEx(As, torch.ones(3, 2, 1))
  same(info, { 0, 1, 0 }, 0, 'info')
  same(X[1], { 1, 1 }, 1e-14, 'first')
  tester:assert(X[2]:ne(X[2]):all(), 'the singular one is NaN')
  same(X[3], { -1, 1 }, 1e-14, 'third')
  X = L.solveEx(As, torch.ones(3, 2))  -- batched vectors
  tester:assertTableEq(X:size():totable(), { 3, 2 })
  same(X[3], { -1, 1 }, 1e-14, 'third vector')
  tester:assertErrorPattern(function() L.solveEx(As, torch.ones(3, 2, 1), { checkErrors = true }) end,
    '%[linalg%.solveEx%] the solver failed because the input matrix is singular %(batch element 2: U%(1,1%) is zero%)')
  local _, one = L.solveEx(D({ { 1, 2 }, { 2, 4 } }), torch.ones(2, 1))
  tester:asserteq(one:dim(), 0)
  tester:asserteq(one:sum(), 2, 'PyTorch: info 2')
  -- the nonsingular matrices of the batch keep their gradient
  local Ag = As:clone():requiresGrad()
  local Xg = L.solveEx(Ag, torch.ones(3, 2, 1))
  Xg[3]:sum():backward()
  tester:assert(Ag.grad[3]:ne(0):any() and Ag.grad[2]:eq(0):all() and Ag.grad:eq(Ag.grad):all(), 'gradient')
end

function tests.luFactorExMatchesPyTorch()
  local LU, piv, info = L.luFactorEx(D({ { 1, 2, 3 }, { 2, 4, 6 }, { 1, 0, 1 } }))
  same(LU, LU_R, 1e-15, 'LU')
  same(piv, { 2, 3, 3 }, 0, 'pivots')
  tester:asserteq(info:sum(), 3)
  LU, piv, info = L.luFactorEx(D({ { 1, 2, 3 }, { 2, 4, 6 } }))
  same(LU, LU_WIDE, 1e-15, 'wide LU')
  same(piv, { 2, 2 }, 0, 'wide pivots')
  tester:asserteq(info:sum(), 2)
  LU, piv, info = L.luFactorEx(D({ { 0, 0 }, { 0, 1 }, { 0, 2 } }))
  same(LU, LU_TALL, 1e-15, 'tall LU')
  same(piv, { 1, 3 }, 0, 'tall pivots')
  tester:asserteq(info:sum(), 1)
  local As = torch.stack({ torch.eye(2), torch.zeros(2, 2), D({ { 1, 2 }, { 3, 4 } }) }, 1)
  LU, piv, info = L.luFactorEx(As)
  same(info, { 0, 1, 0 }, 0, 'batched info')
  same(LU[3], { 3, 4, 1 / 3, 2 / 3 }, 1e-15, 'batched LU')
  tester:assertErrorPattern(function() L.luFactorEx(As, { checkErrors = true }) end,
    '%[linalg%.luFactorEx%] the factorization is singular %(batch element 2: U%(1,1%) is zero%)')
  tester:assertErrorPattern(function() L.luFactorEx(As, { pivot = false }) end, 'LU without pivoting is not implemented')
  -- nonsingular: info 0 and the same results as luFactor
  LU, piv, info = L.luFactorEx(A)
  local LU0, piv0 = L.luFactor(A)
  tester:assertTensorEq(LU, LU0, 0)
  tester:asserteq(info:sum(), 0)
end

function tests.solveExGradcheck()
  local gc = torch.autograd.gradcheck
  tester:assert(gc(function(a, b) return (L.solveEx(a, b)) end, { A:clone():requiresGrad(), B:clone():requiresGrad() }),
    'solveEx')
  tester:assert(gc(function(a, b) return (L.solveEx(a, b, { left = false })) end,
    { A:clone():requiresGrad(), B:t():clone():requiresGrad() }), 'solveEx left = false')
end

function tests.errors()
  tester:assertErrorPattern(function() L.solveEx(D(2, 3), D(2, 1)) end, '%[linalg%.solveEx%] A must be square')
  tester:assertErrorPattern(function() L.solveEx(A, 'B') end, 'expected B to be a tensor, got string')
  tester:assertErrorPattern(function() L.solveEx(A, D(4), { left = false }) end, 'with left = false, B must be a matrix')
  tester:assertErrorPattern(function() L.solveEx(A, B, { left = 1 }) end, 'left must be a boolean')
  tester:assertErrorPattern(function() L.solveEx(A, B, { upper = true }) end, "unknown option 'upper'")
  tester:assertErrorPattern(function() L.luFactorEx(D(3)) end, '%[linalg%.luFactorEx%] A must be a matrix')
  tester:assertErrorPattern(function() L.luFactorEx(A, { checkErrors = 'yes' }) end, 'checkErrors must be a boolean')
  tester:assertErrorPattern(function() L.luFactorEx(A, true) end, 'options must be a table')
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  local X, info = L.solveEx(A:cuda(), B:cuda())
  same(X:double(), SOLVE, 1e-12, 'cuda solveEx')
  local As = torch.stack({ torch.eye(2), torch.zeros(2, 2) }, 1):cuda()
  local _, _, inf2 = L.luFactorEx(As)
  same(inf2:int(), { 0, 1 }, 0, 'cuda info')
end

tester:add(tests)
tester:run()
