-- Regressions from the second review of the dense linear algebra (lapack.lua, linalg_*.lua):
-- empty matrices in the *Ex functions and householderProduct, linalg.cross broadcasting, PyTorch's
-- atol / rtol rules in pinv and matrixRank, lstsq's drivers, errors of the composites naming the
-- function called, option tables with unknown keys. Expected values are PyTorch 1.13's (float64).
local tester = torch.Tester()
local tests = torch.TestSuite()
local L = torch.linalg
local gc = torch.autograd.gradcheck

local function D(t) return torch.DoubleTensor(t) end
local function eq(a, b, tol, msg) tester:assertTensorEq(a:double(), b:double(), tol or 1e-10, msg) end
local function sizes(t) return t:size():totable() end
local function errors(pattern, f, ...)
  local args = { ... }
  tester:assertErrorPattern(function() f(unpack(args)) end, pattern)
end

-- 0 x 0 matrices and empty batches (PyTorch 1.13: empty results, info 0 of the batch shape).
function tests.emptyMatricesInTheExFunctions()
  local LU, piv, info = L.luFactorEx(torch.zeros(0, 0))
  tester:assertTableEq(sizes(LU), { 0, 0 })
  tester:asserteq(info:dim(), 0, 'luFactorEx 0x0: 0-dim info')
  tester:asserteq(info:item(), 0)
  LU, piv, info = L.luFactorEx(torch.zeros(2, 0, 3))
  tester:assertTableEq(sizes(piv), { 2, 0 })
  eq(info, torch.IntTensor({ 0, 0 }), 0, 'luFactorEx 2x0x3 info')
  local X, sinfo = L.solveEx(torch.zeros(0, 0), torch.zeros(0, 1))
  tester:assertTableEq(sizes(X), { 0, 1 })
  tester:asserteq(sinfo:dim(), 0)
  for _, f in ipairs({ L.invEx, L.choleskyEx }) do
    local R, i0 = f(torch.zeros(0, 0))
    tester:assertTableEq(sizes(R), { 0, 0 })
    tester:asserteq(i0:dim(), 0)
    local Rb, ib = f(torch.zeros(2, 0, 0):double())
    tester:assertTableEq(sizes(Rb), { 2, 0, 0 })
    eq(ib, torch.IntTensor({ 0, 0 }), 0, 'info of a batch of 0x0 matrices')
  end
  tester:assertTableEq(sizes(L.householderProduct(torch.zeros(0, 3, 2), torch.zeros(0, 2))), { 0, 3, 2 })
  tester:assertTableEq(sizes(L.householderProduct(torch.zeros(3, 0), torch.zeros(0))), { 3, 0 })
end

-- PyTorch 1.13's linalg.cross broadcasts sizes (one number of dims).
function tests.crossBroadcasts()
  local a = D({ { { 1, 2, 3 } }, { { -1, 0.5, 2 } } })        -- 2x1x3
  local b = D({ { { 0.5, -1, 4 }, { 2, 1, -3 } } })            -- 1x2x3
  local want = D({ 11.0, -2.5, -2.0, -9.0, 9.0, -3.0, 4.0, 5.0, 0.75, -3.5, 1.0, -2.0 }):view(2, 2, 3)
  eq(L.cross(a, b), want, 1e-12, 'broadcast cross')
  eq(L.cross(a, b, { dim = 3 }), want, 1e-12, 'dim as an option')
  eq(L.cross(b, a), -want, 1e-12, 'anticommutes')
  local ok, err = pcall(gc, function(x, y) return L.cross(x, y) end, { a:clone():requiresGrad(), b:clone():requiresGrad() })
  tester:assert(ok and err, 'cross gradcheck with broadcasting: ' .. tostring(err))
  errors('%[linalg.cross%] a and b must have the same number of dims', L.cross, torch.ones(2, 3), torch.ones(3))
  errors('%[linalg.cross%] the sizes .* do not broadcast', L.cross, torch.ones(2, 3), torch.ones(4, 3))
  errors("%[linalg.cross%] unknown option 'Dim'", L.cross, torch.ones(3), torch.ones(3), { Dim = 1 })
end

-- atol = 0 cuts nothing, so PyTorch keeps its default rtol; a negative tolerance is refused.
function tests.rankTolerances()
  local A = torch.diag(D({ 1, 1e-20 }))
  tester:asserteq(L.matrixRank(A, { atol = 0 }):item(), 1, 'atol = 0 keeps the default rtol')
  tester:asserteq(L.matrixRank(A, { atol = 0, rtol = 0 }):item(), 2, 'explicit rtol = 0')
  errors('%[linalg.matrixRank%] atol and rtol must be non%-negative', L.matrixRank, A, { atol = -1 })
  errors('%[linalg.matrixRank%] atol and rtol must be non%-negative', L.matrixRank, A, { tol = -1 })
end

-- pinv's atol (PyTorch 1.13): singular values <= max(atol, rtol * s_max) are dropped, per matrix.
function tests.pinvAtol()
  local A = torch.stack({ torch.diag(D({ 1, 1e-3 })), torch.diag(D({ 100, 0.05 })) }, 1)
  eq(L.pinv(A, { atol = 1e-2 }), D({ 1, 0, 0, 0, 0.01, 0, 0, 20 }):view(2, 2, 2), 1e-12, 'atol, each matrix its own s_max')
  eq(L.pinv(A, { atol = 1e-2, rtol = 1e-3 }), D({ 1, 0, 0, 0, 0.01, 0, 0, 0 }):view(2, 2, 2), 1e-12, 'max(atol, rtol s_max)')
  eq(L.pinv(torch.diag(D({ 1, 1e-20 })), { atol = 0 }), D({ { 1, 0 }, { 0, 0 } }), 1e-12, 'atol = 0: the default rtol')
  local M = D({ { 2, 1, 0 }, { 1, 3, 1 }, { 0, 1, 1e-4 } })
  eq(L.pinv(M, { atol = 1e-2, hermitian = true }),
     D({ 0.4999749937484372, 5.0012503125853345e-05, -0.5001250312578147, 5.0012503125853705e-05,
         -0.0001000250062517467, 1.0002500625156288, -0.5001250312578147, 1.0002500625156288,
         -2.5006251562890713 }):view(3, 3), 1e-9, 'hermitian with atol')
  -- a tall batch, non-contiguous, atol below every singular value: the plain pseudo-inverse
  torch.manualSeed(3)
  local T = torch.randn(2, 3, 4):double():transpose(2, 3)
  eq(L.pinv(T, { atol = 1e-6 }), L.pinv(T), 1e-10, 'atol below the spectrum')
  tester:assertTableEq(sizes(L.pinv(torch.zeros(0, 3, 2), { atol = 1 })), { 0, 2, 3 })
  local ok, err = pcall(gc, function(x) return L.pinv(x, { atol = 0.5 }) end, { D({ { 3, 1 }, { 1, 2 }, { 0, 0.1 } }):requiresGrad() })
  tester:assert(ok and err, 'pinv gradcheck with atol: ' .. tostring(err))
  torch.manualSeed(2)
  ok, err = pcall(gc, function(x) return L.pinv(x:transpose(2, 3), { atol = 0.1 }) end, { torch.randn(2, 3, 2):double():requiresGrad() })
  tester:assert(ok and err, 'pinv gradcheck with atol, a transposed batch: ' .. tostring(err))
  ok, err = pcall(gc, function(x) return L.pinv((x + x:transpose(2, 3)) * 0.5, { atol = 0.1, hermitian = true }) end,
    { torch.randn(2, 3, 3):double():requiresGrad() })
  tester:assert(ok and err, 'hermitian pinv gradcheck with atol: ' .. tostring(err))
  errors('%[linalg.pinv%] atol and rtol must be non%-negative', L.pinv, A, { atol = -1 })
  errors('%[linalg.pinv%] atol and rtol must be non%-negative', L.pinv, A, -0.5)
  errors('%[linalg.pinv%] rcond is the old name of rtol', L.pinv, A, { rcond = 0.1, rtol = 0.1 })
end

-- lstsq's driver chooses which results are filled (PyTorch 1.13); the solution is the same.
function tests.lstsqDrivers()
  local A, B = D({ { 1, 2 }, { 2, 4 }, { 3, 6 } }), D({ { 1 }, { 2 }, { 4 } })   -- rank 1
  local Af = D({ { 1, 2 }, { 3, 4 }, { 5, 7 } })                                 -- full rank
  local x_def, x_full = D({ { 0.24285714285714277 }, { 0.48571428571428554 } }), D({ { 0.07142857142857142 }, { 0.5 } })
  for _, drv in ipairs({ 'gelsy', 'gelsd', 'gelss' }) do
    local x, res, rank, sv = L.lstsq(A, B, { driver = drv })
    eq(x, x_def, 1e-12, drv .. ' rank-deficient solution')
    tester:asserteq(res:nElement(), 0, drv .. ': no residuals without full rank')
    tester:asserteq(rank:item(), 1, drv .. ' rank')
    tester:asserteq(sv:nElement(), drv == 'gelsy' and 0 or 2, drv .. ' singular values')
  end
  local want = {
    gels = { res = { 0.07142857142857144 }, rank = 0, sv = 0 },
    gelsy = { res = {}, rank = 1, sv = 0 },
    gelsd = { res = { 0.07142857142857144 }, rank = 1, sv = 2 },
    gelss = { res = { 0.07142857142857144 }, rank = 1, sv = 2 },
  }
  for drv, w in pairs(want) do
    local x, res, rank, sv = L.lstsq(Af, B, { driver = drv })
    eq(x, x_full, 1e-12, drv .. ' solution')
    tester:asserteq(res:nElement(), #w.res, drv .. ' residuals')
    if #w.res > 0 then tester:assertalmosteq(res[1], w.res[1], 1e-12, drv .. ' residual') end
    tester:asserteq(rank:nElement(), w.rank, drv .. ' rank present')
    if w.rank > 0 then tester:asserteq(rank:item(), 2) end
    tester:asserteq(sv:nElement(), w.sv, drv .. ' singular values present')
    tester:asserteq(torch.type(rank), 'torch.LongTensor')
  end
  local _, _, _, sv = L.lstsq(Af, B, { driver = 'gelsd' })
  eq(sv, D({ 10.191428257097224, 0.36713768594389923 }), 1e-12, 'gelsd singular values')
  local x = L.lstsq(Af, B, { driver = 'gelsy', rcond = 1e-3 })
  eq(x, x_full, 1e-12, 'driver with rcond')
  errors("%[linalg.lstsq%] driver must be 'gels', 'gelsy', 'gelsd' or 'gelss', got 'foo'", L.lstsq, Af, B, { driver = 'foo' })
  errors("%[linalg.lstsq%] unknown option 'drivers'", L.lstsq, Af, B, { drivers = 'gels' })
end

-- The composites built on torch.linalg name themselves in their errors.
function tests.errorsNameTheFunction()
  local U = torch.Tensor({ { 1, 2 }, { 0, 0 } })
  errors('^[^%[]*%[trtrs%] .*singular', torch.trtrs, torch.ones(2, 1), U)
  errors('%[trtrs%] A is 2x2 but B is 3x1', torch.trtrs, torch.ones(3, 1), torch.eye(2))
  errors('%[trtrs%] .*got an extra argument', torch.trtrs, torch.ones(2, 1), torch.eye(2), 'U', 'N', 'N', 'X')
  errors('%[potri%] .*singular', torch.potri, U)
  errors('%[potri%] .*square', torch.potri, torch.ones(2, 3))
  errors('%[choleskySolve%] A is 2x2 but B is 3x1', torch.choleskySolve, torch.ones(3, 1), torch.eye(2))
  errors('%[choleskySolve%] the factor must be a matrix', torch.choleskySolve, torch.ones(3, 1), torch.ones(3))
  errors('%[choleskyInverse%] .*singular', torch.choleskyInverse, U)
  errors('%[triangularSolve%] A is 2x2 but B is 3x1', torch.triangularSolve, torch.ones(3, 1), torch.eye(2))
  errors('%[cholesky%] A is not positive definite', torch.cholesky, torch.Tensor({ { 1, 2 }, { 2, 1 } }))
  errors('%[linalg.vecdot%] sizes 2x3 and 4 do not broadcast', L.vecdot, torch.ones(2, 3), torch.ones(4))
  errors('%[chainMatmul%] tensor 2 has 2 rows', torch.chainMatmul, torch.ones(2, 3), torch.ones(2, 3))
  errors('%[linalg.tensorinv%] A is singular', L.tensorinv, torch.zeros(4, 2, 2), 1)
  errors('%[linalg.tensorsolve%] A is singular', L.tensorsolve, torch.zeros(2, 2, 4), torch.ones(2, 2))
  errors('%[linalg.det%] A must be a torch.FloatTensor', L.det, torch.IntTensor(2, 2))
  errors('%[linalg.slogdet%] .*extra argument', L.slogdet, torch.eye(2), 1)
  tester:assertalmosteq(L.det(torch.eye(2) * 2), 4, 1e-6, 'linalg.det value')
  -- the message keeps the caller's position
  local ok, err = pcall(torch.trtrs, torch.ones(3, 1), torch.eye(2))
  tester:assert(not ok and err:find('test_linalg_regressions.lua', 1, true), 'position kept: ' .. tostring(err))
  -- the values are unchanged
  local P = torch.DoubleTensor({ { 4, 2 }, { 2, 3 } })
  eq(torch.potri(torch.potrf(P)), torch.inverse(P), 1e-12, 'potri')
  eq(torch.choleskySolve(torch.ones(2, 1):double(), torch.potrf(P, 'L')), torch.gesv(torch.ones(2, 1):double(), P), 1e-12)
end

-- choleskyEx and invEx read a failed factorization as a failed matrix: an IntTensor came back as
-- zeros with info 1 (choleskyEx) or as luFactor's error (invEx).
function tests.exFunctionsRefuseIntegerTensors()
  for _, T in ipairs({ torch.IntTensor({ { 2, 0 }, { 0, 2 } }), torch.LongTensor({ { 1, 2 }, { 2, 1 } }) }) do
    errors('%[linalg.choleskyEx%] A must be a Float or Double tensor', L.choleskyEx, T)
    errors('%[linalg.invEx%] A must be a Float or Double tensor', L.invEx, T)
  end
  -- the failures they report are still reported, not raised
  local _, info = L.choleskyEx(torch.Tensor({ { 1, 2 }, { 2, 1 } }))
  tester:asserteq(info:item(), 2)
  local _, iinfo = L.invEx(torch.Tensor({ { 1, 2 }, { 2, 4 } }))
  tester:asserteq(iinfo:item(), 2)
end

-- An option table with a misspelt key was read as no option at all.
function tests.optionTablesRejectUnknownKeys()
  local S = torch.Tensor({ { 2, 100 }, { 1, 2 } })
  errors("%[linalg.eigh%] unknown option 'uplo'", L.eigh, S, { uplo = 'U' })
  errors("%[linalg.eigh%] unknown option 'uplo'", L.eigvalsh, S, { uplo = 'U' })
  eq(L.eigvalsh(S, { UPLO = 'U' }), L.eigvalsh(S, 'U'), 0, 'UPLO as an option')
  errors("%[linalg.qr%] unknown option 'Mode'", L.qr, S, { Mode = 'r' })
  errors("%[linalg.vander%] unknown option 'n'", L.vander, torch.Tensor({ 1, 2 }), { n = 3 })
end

-- Torch7's potrf, potrs, symeig, svd and qr recorded no gradient (gesv and inverse did): a result
-- from an input requiring grad was silently cut from the graph. Now they go through torch.linalg
-- (same values) and are differentiable; result tensors and gels refuse a tracked input.
function tests.torch7LapackUnderAutograd()
  local function rnd(seed, ...) torch.manualSeed(seed) return torch.randn(...):double() end
  local function sym(x) return (x + x:t()) * 0.5 end
  local function spd(x) return torch.mm(x, x:t()) + torch.eye(x:size(1)):double() * x:size(1) end
  local A, P = rnd(1, 4, 3), spd(rnd(2, 3, 3))
  local S = sym(rnd(3, 3, 3)) + torch.diag(D({ 1, 2, 3 }))
  -- the tracked results equal the untracked ones (signs included)
  local cases = {
    { 'potrf U', function(x) return torch.potrf(x) end, P },
    { 'potrf L', function(x) return torch.potrf(x, 'L') end, P },
    { 'symeig N', function(x) return (torch.symeig(x)) end, S },
    { 'symeig V', function(x) return select(2, torch.symeig(x, 'V')) end, S },
    { 'symeig V L', function(x) return select(2, torch.symeig(x, 'V', 'L')) end, S },
    { 'svd U', function(x) return (torch.svd(x)) end, A },
    { 'svd S', function(x) return select(2, torch.svd(x)) end, A },
    { 'svd V', function(x) return select(3, torch.svd(x)) end, A },
    { 'svd V wide', function(x) return select(3, torch.svd(x)) end, A:t():contiguous() },
    -- (U's last column is fixed only up to sign: as in PyTorch, only the first k carry gradient)
    { 'svd A', function(x) return (torch.svd(x, 'A')):narrow(2, 1, 3) end, A },
    { 'qr Q', function(x) return (torch.qr(x)) end, A },
    { 'qr R', function(x) return select(2, torch.qr(x)) end, A },
    { 'potrs', function(x) return torch.potrs(D({ 1, 2, 3 }), torch.potrf(x)) end, P },
    { 'potrs L', function(x) return torch.potrs(torch.ones(3, 2):double(), torch.potrf(x, 'L'), 'L') end, P },
  }
  for _, c in ipairs(cases) do
    local name, f, x = c[1], c[2], c[3]
    local want = f(x)
    local got = f(x:clone():requiresGrad())
    tester:assert(torch._reduce_util.tracked(got), name .. ': the result records a gradient')
    eq(got:detach(), want, 1e-12, name .. ': the value of the untracked call')
    local input = name:find('symeig') and function(y) return f(sym(y)) end or
      (name:find('potr') and function(y) return f(sym(y)) end or f)
    local ok, err = pcall(gc, input, { x:clone():requiresGrad() })
    tester:assert(ok and err, name .. ' gradcheck: ' .. tostring(err))
  end
  local empty = select(2, torch.symeig(S:clone():requiresGrad()))
  tester:asserteq(empty:nElement(), 0, "symeig 'N': an empty second result")
  errors('%[potrf%] A is not positive definite', torch.potrf, D({ { 1, 2 }, { 2, 1 } }):requiresGrad())
  local t = A:clone():requiresGrad()
  errors('%[gels%] an input requires grad, but gels records no gradient: use torch.linalg.lstsq', torch.gels, torch.ones(4, 1):double(), t)
  errors('%[svd%] an input requires grad, but a result tensor records no gradient', torch.svd,
    torch.DoubleTensor(), torch.DoubleTensor(), torch.DoubleTensor(), t)
  errors('%[qr%] an input requires grad', torch.qr, torch.DoubleTensor(), torch.DoubleTensor(), t)
  errors('%[potrf%] an input requires grad', torch.potrf, torch.DoubleTensor(), P:clone():requiresGrad())
  -- under torch.noGrad nothing is tracked: the plain C calls, result tensors allowed
  torch.noGrad(function()
    local r = torch.DoubleTensor()
    torch.potrf(r, P:clone():requiresGrad())
    eq(r, torch.potrf(P), 0, 'noGrad result form')
  end)
end

-- The other Torch7 LAPACK calls: orgqr and ormqr become differentiable (through
-- householderProduct, same values); eig, geqrf, pstrf and btrifact refuse an input requiring grad.
function tests.torch7LapackExtrasUnderAutograd()
  torch.manualSeed(4)
  for _, sz in ipairs({ { 5, 3 }, { 3, 3 }, { 3, 5 } }) do
    local a, tau = torch.geqrf(torch.randn(sz[1], sz[2]):double())
    local m = sz[1]
    local q = torch.orgqr(a:clone():requiresGrad(), tau)
    tester:assert(torch._reduce_util.tracked(q), 'orgqr records a gradient')
    eq(q:detach(), torch.orgqr(a, tau), 1e-12, 'orgqr value')
    local ok, err = pcall(gc, function(x, t) return torch.orgqr(x, t) end, { a:clone():requiresGrad(), tau:clone():requiresGrad() })
    tester:assert(ok and err, 'orgqr gradcheck: ' .. tostring(err))
    for _, side in ipairs({ 'L', 'R' }) do
      for _, tr in ipairs({ 'N', 'T' }) do
        local Cm = side == 'L' and torch.randn(m, 2):double() or torch.randn(2, m):double()
        local r = torch.ormqr(a, tau, Cm:clone():requiresGrad(), side, tr)
        eq(r:detach(), torch.ormqr(a, tau, Cm, side, tr), 1e-12, 'ormqr value ' .. side .. tr)
        local ok2, err2 = pcall(gc, function(x, t, c) return torch.ormqr(x, t, c, side, tr) end,
          { a:clone():requiresGrad(), tau:clone():requiresGrad(), Cm:clone():requiresGrad() })
        tester:assert(ok2 and err2, 'ormqr gradcheck ' .. side .. tr .. ': ' .. tostring(err2))
      end
    end
  end
  local t = torch.randn(3, 3):double():requiresGrad()
  errors('%[geqrf%] A requires grad, but geqrf records no gradient', torch.geqrf, t)
  errors('%[eig%] A requires grad', torch.eig, t)
  errors('%[pstrf%] A requires grad', torch.pstrf, torch.eye(3):double():requiresGrad())
  errors('%[btrifact%] A requires grad', torch.btrifact, torch.randn(2, 3, 3):double():requiresGrad())
  errors('%[orgqr%] tau has 3 elements but A is 3x2', torch.orgqr, torch.ones(3, 2):double():requiresGrad(), torch.ones(3):double())
  tester:assert(torch.noGrad(function() return torch.geqrf(t) end) ~= nil, 'detached under noGrad')
end

-- Dims in errors are the caller's 1-based ones (the C checks printed 0-based dims: {1, 1} was
-- "got 0 and 0"); vander's N <= 0 was read as "not given" (PyTorch refuses it).
function tests.dimErrorsAreOneBased()
  local A = torch.Tensor({ { 1, 2 }, { 3, 4 } })
  errors('%[linalg.matrixNorm%] the two dims must differ, got 1 and 1', L.matrixNorm, A, 'fro', { 1, 1 })
  errors('%[linalg.matrixNorm%] the two dims must differ, got 2 and %-1', L.matrixNorm, A, 'fro', { 2, -1 })
  errors('%[linalg.vectorNorm%] dim 1 appears twice', L.vectorNorm, A, 2, { 1, 1 })
  errors('%[linalg.vectorNorm%] dim 2 appears twice', L.vectorNorm, A, 2, { 2, -1 })
  errors('%[linalg.norm%] dim 2 appears twice', L.norm, A, 2, { 2, -1, 1 })
  tester:assertalmosteq(L.vectorNorm(A, 2, { 1, -1 }):item(), math.sqrt(30), 1e-5, 'distinct dims still work')
  tester:assertalmosteq(L.matrixNorm(A, 'fro', { -1, 1 }):item(), math.sqrt(30), 1e-5)
  errors('%[linalg.vander%] N must be positive, got 0', L.vander, torch.Tensor({ 1, 2 }), 0)
  errors('%[linalg.vander%] N must be positive, got %-1', L.vander, torch.Tensor({ 1, 2 }), { N = -1 })
  eq(L.vander(torch.Tensor({ 1, 2 }), 1), torch.ones(2, 1), 0, 'N = 1: the ones column')
end

-- Note [Non-finite input to iterative LAPACK] (core/ops/lapack_work.h): SVD-based ops and Torch7's
-- eig passed non-finite input to LAPACK: NaN gave "internal error: LAPACK rejected argument 4"
-- (geev's xerbla also printed to stderr), inf gave NaN singular values silently. PyTorch 1.13
-- raises "linalg.svd: The algorithm failed to converge because the input matrix contained
-- non-finite values".
function tests.svdOfNonFiniteInput()
  for _, v in ipairs({ 0 / 0, 1 / 0 }) do
    local A = torch.Tensor({ { v, 1 }, { 1, 1 } })
    errors('%[linalg.svd%] .*non%-finite', L.svd, A)
    errors('%[linalg.svdvals%] .*non%-finite', L.svdvals, A)
    errors('%[svd%] .*non%-finite', torch.svd, A)
  end
end

-- linalg_lu_solve (core/ops/linalg_lu.cpp) checks the pivots through linalg_lu_unpack, whose
-- errors named linalg.luUnpack.
function tests.luSolveNamesItself()
  errors('%[linalg.luSolve%] pivot 1', L.luSolve, torch.eye(2), torch.IntTensor({ 3, 1 }), torch.ones(2, 1))
  errors('%[btrisolve%] pivot 1', torch.btrisolve, torch.ones(1, 2), torch.eye(2):view(1, 2, 2), torch.IntTensor({ { 3, 1 } }))
end

tester:add(tests)
tester:run()
