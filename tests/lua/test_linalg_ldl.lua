-- torch.linalg.ldlFactor, ldlFactorEx and ldlSolve (lua/torch/linalg_ldl.lua, core/ops/linalg_ldl.h)
-- against PyTorch 1.13 (float64 values pasted below): Bunch-Kaufman pivots with 2x2 blocks, the
-- lower triangle read, batches, info codes, and the errors for bad input.
local tester = torch.Tester()
local tests = torch.TestSuite()
local D = torch.DoubleTensor
local L = torch.linalg

local function near(a, b, tol, msg)
  tester:assertTensorEq(a:double():contiguous():view(-1), D(b), tol, msg)
end
local function raises(pattern, f, ...)
  local ok, err = pcall(f, ...)
  tester:assert(not ok, 'expected an error matching ' .. pattern)
  if not ok then tester:assert(tostring(err):find(pattern, 1, true) ~= nil, tostring(err)) end
end

-- PyTorch 1.13: torch.linalg.ldl_factor(A) for a zero-diagonal A: two 2x2 blocks' pivots.
local A3 = D({ { 0, 1, 2 }, { 1, 0, 3 }, { 2, 3, 0 } })
local LD3 = { 0, 0, 0, 2, 0, 0, 1.5, 0.5, -3 }
local B3 = D({ { 1, 2 }, { 3, 4 }, { 5, 6 } })
local X3 = { 2, 2, 0.33333333333333331, 0.66666666666666663, 0.33333333333333337, 0.66666666666666674 }

function tests.pivotsWithTwoByTwoBlocks()
  local LD, piv = L.ldlFactor(A3)
  near(LD, LD3, 1e-15, 'LD')
  tester:eq(torch.type(piv), 'torch.IntTensor')
  tester:eq(piv:totable(), { -3, -3, 3 })
  near(L.ldlSolve(LD, piv, B3), X3, 1e-14, 'solve')
  near(L.ldlSolve(LD, piv, B3), L.solve(A3, B3):view(-1):totable(), 1e-14, 'as linalg.solve')
end

function tests.positiveDefiniteInputPivotsToo()
  -- PyTorch 1.13: ldl_factor([[1, 2], [2, 5]]) gives LD [[5, 0], [0.4, 0.2]], pivots [2, 2].
  local LD, piv = L.ldlFactor(D({ { 1, 2 }, { 2, 5 } }))
  near(LD, { 5, 0, 0.4, 0.2 }, 1e-15, 'LD')
  tester:eq(piv:totable(), { 2, 2 })
end

-- S = M + M^T for M[i][j] = ((7i + 3j + 1) % 11) / 3 - 1.5 (0-based): no pivoting needed.
local S = D({ { -2.3333333333333335, 0.9999999999999998, 0.6666666666666667, 0.3333333333333335 },
              { 0.9999999999999998, -3.0, 0.3333333333333335, 0.0 },
              { 0.6666666666666667, 0.3333333333333335, 3.666666666666667, -0.33333333333333337 },
              { 0.3333333333333335, 0.0, -0.33333333333333337, 3.0 } })
local LDS = { -2.3333333333333335, 0.0, 0.0, 0.0, -0.42857142857142844, -2.5714285714285716, 0.0, 0.0,
              -0.28571428571428575, -0.24074074074074076, 4.006172839506173, 0.0, -0.1428571428571429,
              -0.05555555555555556, -0.050847457627118633, 3.045197740112994 }
local BS = D({ { 0.16666666666666674, 1.1666666666666665 }, { -1.1666666666666667, -0.16666666666666674 },
               { 1.1666666666666665, -1.5 }, { -0.16666666666666674, 0.8333333333333335 } })
local XS = { 0.19387755102040805, -0.6020408163265304, 0.47959183673469385, -0.17346938775510193,
             0.23469387755102036, -0.25510204081632654, -0.051020408163265335, 0.316326530612245 }

function tests.indefiniteMatrixAndFloat()
  local LD, piv = L.ldlFactor(S)
  near(LD, LDS, 1e-14, 'LD')
  tester:eq(piv:totable(), { 1, 2, 3, 4 })
  near(L.ldlSolve(LD, piv, BS), XS, 1e-14, 'X')
  local LDf, pivf = L.ldlFactor(S:float())
  tester:eq(torch.type(LDf), 'torch.FloatTensor')
  near(LDf, LDS, 1e-6, 'float LD')
  near(L.ldlSolve(LDf, pivf, BS:float()), XS, 1e-5, 'float X')
end

function tests.onlyTheLowerTriangleIsRead()
  local junk = S:clone()
  junk:add(torch.triu(torch.ones(4, 4):double(), 1):mul(100))
  near(L.ldlFactor(junk), LDS, 1e-14, 'the upper triangle is ignored')
  local t = S:t():clone():t()  -- a non-contiguous input
  near(L.ldlFactor(t), LDS, 1e-14, 'transposed layout')
end

function tests.batchesBroadcast()
  local A = torch.stack({ S:narrow(1, 1, 3):narrow(2, 1, 3), A3 })
  local LD, piv = L.ldlFactor(A)
  tester:eq(LD:size():totable(), { 2, 3, 3 })
  tester:eq(piv:size():totable(), { 2, 3 })
  near(LD[2], LD3, 1e-15, 'second matrix')
  local X = L.ldlSolve(LD, piv, B3)  -- B without a batch dim is broadcast
  tester:eq(X:size():totable(), { 2, 3, 2 })
  near(X[2], X3, 1e-14, 'broadcast solve')
  near(X[1], L.solve(A[1], B3):view(-1):totable(), 1e-12, 'first matrix solve')
  -- empty matrices and empty right-hand sides
  local E, pe = L.ldlFactor(torch.zeros(0, 0):double())
  tester:eq(E:nElement(), 0)
  tester:eq(pe:nElement(), 0)
  tester:eq(L.ldlSolve(LD, piv, torch.zeros(3, 0):double()):size():totable(), { 2, 3, 0 })
end

function tests.infoCodes()
  -- PyTorch 1.13: ldl_factor_ex(stack([A, zeros])) gives info [0, 1] (its ldl_factor then fails
  -- with an internal assertion; Tocha's names the singular block).
  local A = torch.stack({ A3, torch.zeros(3, 3):double() })
  local _, _, info = L.ldlFactorEx(A)
  tester:eq(torch.type(info), 'torch.IntTensor')
  tester:eq(info:totable(), { 0, 1 })
  local _, _, one = L.ldlFactorEx(A3)
  tester:eq(one:dim(), 0)
  tester:eq(one:item(), 0)
  raises('batch element 2: D(1,1) is zero', L.ldlFactor, A)
  raises('batch element 2: D(1,1) is zero', L.ldlFactorEx, A, { checkErrors = true })
  L.ldlFactor(A3, { hermitian = true })
end

function tests.badInput()
  raises('[linalg.ldlFactor] A must be batches of square matrices', L.ldlFactor, torch.zeros(2, 3):double())
  raises('[linalg.ldlFactor] A must be a torch.FloatTensor or torch.DoubleTensor', L.ldlFactor, torch.LongTensor(2, 2):zero())
  raises('[linalg.ldlFactor] A must be a matrix', L.ldlFactor, torch.zeros(3):double())
  raises('[linalg.ldlFactor] expected A to be a tensor', L.ldlFactor, 3)
  raises("[linalg.ldlFactor] unknown option 'uplo'", L.ldlFactor, A3, { uplo = 'L' })
  raises('[linalg.ldlFactorEx] checkErrors must be a boolean', L.ldlFactorEx, A3, { checkErrors = 1 })
  -- not differentiable: refused rather than cut from the graph (PyTorch fails at backward)
  raises('is not differentiable, but A requires grad', L.ldlFactor, A3:clone():requiresGrad())
  torch.noGrad(function() L.ldlFactor(A3:clone():requiresGrad()) end)
  local LD, piv = L.ldlFactor(A3)
  raises('is not differentiable, but B requires grad', L.ldlSolve, LD, piv, B3:clone():requiresGrad())
  -- pivots that would make sytrs read outside the matrix
  raises('pivot 3 is 4, outside 1..3', L.ldlSolve, LD, torch.IntTensor({ 1, 2, 4 }), B3)
  raises('pivot 1 is 0', L.ldlSolve, LD, torch.IntTensor({ 0, 2, 3 }), B3)
  raises('starts a 2x2 block', L.ldlSolve, LD, torch.IntTensor({ 1, 2, -3 }), B3)
  raises('starts a 2x2 block', L.ldlSolve, LD, torch.IntTensor({ -1, 2, 3 }), B3)
  raises('pivots must be a torch.IntTensor', L.ldlSolve, LD, piv:long(), B3)
  raises('pivots must have size 3', L.ldlSolve, LD, torch.IntTensor({ 1, 2 }), B3)
  raises('each LD matrix is 3 by 3 but each B matrix is 2 by 2', L.ldlSolve, LD, piv, torch.zeros(2, 2):double())
  raises('LD is a torch.DoubleTensor but B is a torch.FloatTensor', L.ldlSolve, LD, piv, B3:float())
  raises('do not broadcast', L.ldlSolve, torch.stack({ LD, LD }), torch.stack({ piv, piv }), torch.zeros(3, 3, 2):double())
end

function tests.cudaMatchesCpu()
  if not (torch.cuda and torch.cuda.isAvailable()) then return end
  local LD, piv = L.ldlFactor(A3:cuda())
  tester:eq(LD:type(), 'torch.CudaTensor')
  near(LD:double(), LD3, 1e-6, 'cuda LD')
  near(L.ldlSolve(LD, piv, B3:cuda()):double(), X3, 1e-5, 'cuda X')
end

tester:add(tests):run()
