-- Torch7's remaining LAPACK functions (lua/torch/lapack_t7.lua): eig (reconstruction A V = V diag(e)
-- with real and complex-pair eigenvalues, known spectra), geqrf + orgqr against torch.qr, ormqr
-- against an explicit Q for every side and trans, pstrf (P^T A P = U^T U with Torch7's pivots, also
-- rank-deficient), btrifact / btrisolve against torch.gesv, the result-tensor and method forms, and
-- errors that name the function.
local tester = torch.Tester()
local tests = torch.TestSuite()

local D = torch.DoubleTensor

local function maxdiff(a, b) return (a:double() - b:double()):abs():max() end
local function close(what, a, b, tol)
  tester:assert(a:nElement() == b:nElement(), what .. ': sizes differ')
  local e = maxdiff(a, b)
  tester:assert(e <= (tol or 1e-10), string.format('%s: error %g', what, e))
end

-- Checks A V = V diag(e) column by column: a real eigenvalue has its vector in column j; a pair
-- j, j+1 (a +- ib) has the vectors vr +- i vi with vr, vi columns j, j+1:
-- A vr = a vr - b vi and A vi = b vr + a vi.
local function check_eig(what, A, e, V, tol)
  local n = A:size(1)
  local j = 1
  while j <= n do
    local a, b = e[j][1], e[j][2]
    if b == 0 then
      close(what .. ' column ' .. j, A * V:select(2, j), V:select(2, j) * a, tol)
      j = j + 1
    else
      tester:assertalmosteq(e[j + 1][1], a, 1e-12, what .. ': conjugate pair')
      tester:assertalmosteq(e[j + 1][2], -b, 1e-12, what .. ': conjugate pair')
      tester:assert(b > 0, what .. ': positive imaginary part first')
      local vr, vi = V:select(2, j), V:select(2, j + 1)
      close(what .. ' pair real part ' .. j, A * vr, vr * a - vi * b, tol)
      close(what .. ' pair imaginary part ' .. j, A * vi, vr * b + vi * a, tol)
      j = j + 2
    end
  end
end

local function sorted(t)
  local v = t:double():totable()
  table.sort(v)
  return D(v)
end

function tests.eig_real()
  -- Torch7's documented example: a symmetric matrix with known eigenvalues.
  local a = D({ { 1.96, 0.00, 0.00, 0.00, 0.00 }, { -6.49, 3.80, 0.00, 0.00, 0.00 },
                { -0.47, -6.39, 4.17, 0.00, 0.00 }, { -7.20, 1.50, -1.51, 5.70, 0.00 },
                { -0.65, -6.34, 2.67, 1.80, -7.10 } }):t():contiguous()
  local b = a + torch.triu(a, 1):t()
  local e = torch.eig(b)
  tester:eq(e:size():totable(), { 5, 2 })
  tester:asserteq(e:select(2, 2):abs():max(), 0)
  close('eigenvalues', sorted(e:select(2, 1)), D({ -11.0656, -6.2287, 0.8640, 8.8655, 16.0948 }), 1e-4)
  local e2, V = torch.eig(b, 'V')
  close('N and V agree', e, e2)
  tester:eq(V:size():totable(), { 5, 5 })
  check_eig('symmetric', b, e2, V, 1e-10)
  -- Torch7's check: b = V diag(e) V^T (orthonormal vectors of a symmetric matrix).
  close('V diag(e) Vt', V * torch.diag(e2:select(2, 1)) * V:t(), b, 1e-10)
  -- a non-symmetric matrix with real eigenvalues 2 and 3
  local t = D({ { 2, 1 }, { 0, 3 } })
  local et, Vt = torch.eig(t, 'V')
  close('triangular eigenvalues', sorted(et:select(2, 1)), D({ 2, 3 }))
  check_eig('triangular', t, et, Vt, 1e-12)
  -- 'N' returns an empty second result
  local _, none = torch.eig(t, 'N')
  tester:asserteq(none:nElement(), 0)
end

function tests.eig_complex()
  local th = 0.3
  local R = D({ { math.cos(th), -math.sin(th) }, { math.sin(th), math.cos(th) } })
  local e, V = torch.eig(R, 'V')
  close('rotation eigenvalues', e, D({ { math.cos(th), math.sin(th) }, { math.cos(th), -math.sin(th) } }), 1e-12)
  check_eig('rotation', R, e, V, 1e-12)
  -- a rotation block and a real eigenvalue 5, then a random matrix (complex pairs likely)
  local M = D({ { 0, -2, 0 }, { 2, 0, 0 }, { 0, 0, 5 } })
  local em, Vm = torch.eig(M, 'V')
  local re, im = sorted(em:select(2, 1)), sorted(em:select(2, 2))
  close('mixed real parts', re, D({ 0, 0, 5 }), 1e-12)
  close('mixed imaginary parts', im, D({ -2, 0, 2 }), 1e-12)
  check_eig('mixed', M, em, Vm, 1e-12)
  torch.manualSeed(3)
  local G = torch.randn(6, 6):double()
  local eg, Vg = torch.eig(G, 'V')
  check_eig('random 6x6', G, eg, Vg, 1e-9)
  -- FloatTensor, result tensors, method form
  local Gf = G:float()
  local rese, resv = torch.FloatTensor(), torch.FloatTensor()
  local r1, r2 = torch.eig(rese, resv, Gf, 'V')
  tester:assert(r1 == rese and r2 == resv, 'results returned')
  tester:asserteq(torch.type(rese), 'torch.FloatTensor')
  check_eig('float', G, rese:double(), resv:double(), 1e-3)
  local em2 = M:eig()
  close('method form', em2, em)
end

function tests.geqrf_orgqr()
  torch.manualSeed(1)
  for _, shape in ipairs({ { 5, 3 }, { 4, 4 }, { 3, 5 } }) do
    local m, n = shape[1], shape[2]
    local k = math.min(m, n)
    local A = torch.randn(m, n):double()
    local Q, R = torch.qr(A)
    local a, tau = torch.geqrf(A)
    tester:eq(a:size():totable(), { m, n })
    tester:eq(tau:size():totable(), { k })
    local Q2 = torch.orgqr(a, tau)
    tester:eq(Q2:size():totable(), { m, k })
    local R2 = torch.triu(a:narrow(1, 1, k))
    -- up to the sign of each column of Q (and row of R)
    close('|Q| ' .. m .. 'x' .. n, Q2:clone():abs(), Q:clone():abs())
    close('|R| ' .. m .. 'x' .. n, R2:clone():abs(), R:clone():abs())
    close('Q R = A ' .. m .. 'x' .. n, Q2 * R2, A)
    close('Q^T Q = I ' .. m .. 'x' .. n, Q2:t() * Q2, torch.eye(k):double())
  end
  -- result tensors and the method forms
  local A = torch.randn(4, 3)
  local ra, rtau = torch.Tensor(), torch.Tensor()
  local x, y = torch.geqrf(ra, rtau, A)
  tester:assert(x == ra and y == rtau, 'geqrf returns its result tensors')
  local res = torch.Tensor()
  tester:assert(torch.orgqr(res, ra, rtau) == res, 'orgqr returns res')
  local q = torch.qr(A)
  close('float orgqr', res:clone():abs(), q:clone():abs(), 1e-5)
  local a2, t2 = A:geqrf()
  close('method geqrf', a2, ra)
  close('method orgqr', a2:orgqr(t2), res)
end

function tests.ormqr()
  torch.manualSeed(2)
  local A = torch.randn(5, 3):double()
  local a, tau = torch.geqrf(A)
  local Qfull = torch.ormqr(a, tau, torch.eye(5):double())  -- Q I: the full 5 x 5 Q
  close('full Q is orthogonal', Qfull:t() * Qfull, torch.eye(5):double())
  close('its first columns are orgqr', Qfull:narrow(2, 1, 3), torch.orgqr(a, tau))
  local CL, CR = torch.randn(5, 4):double(), torch.randn(4, 5):double()
  close('L N', torch.ormqr(a, tau, CL, 'L', 'N'), Qfull * CL)
  close('L T', torch.ormqr(a, tau, CL, 'L', 'T'), Qfull:t() * CL)
  close('R N', torch.ormqr(a, tau, CR, 'R', 'N'), CR * Qfull)
  close('R T', torch.ormqr(a, tau, CR, 'R', 'T'), CR * Qfull:t())
  close('defaults L N', torch.ormqr(a, tau, CL), Qfull * CL)
  close('trans alone', torch.ormqr(a, tau, CL, 'T'), Qfull:t() * CL)
  local res = D()
  tester:assert(torch.ormqr(res, a, tau, CR, 'R', 'T') == res, 'ormqr returns res')
  close('res form', res, CR * Qfull:t())
  close('method form', a:ormqr(tau, CL, 'L', 'T'), Qfull:t() * CL)
  -- Q^T A = R
  close('Q^T A = R', torch.ormqr(a, tau, A, 'L', 'T'):narrow(1, 1, 3), torch.triu(a:narrow(1, 1, 3)))
end

-- P with P[piv[k]][k] = 1.
local function perm_matrix(piv)
  local n = piv:size(1)
  local P = torch.zeros(n, n):double()
  for k = 1, n do P[piv[k]][k] = 1 end
  return P
end

local function is_permutation(piv)
  local seen, n = {}, piv:size(1)
  for k = 1, n do
    local p = piv[k]
    if p < 1 or p > n or seen[p] then return false end
    seen[p] = true
  end
  return true
end

function tests.pstrf_full_rank()
  -- Torch7's documented example: its pivots and factor.
  local A = D({ { 1.2705, 0.9971, 0.4948, 0.1389, 0.2381 }, { 0.9971, 0.9966, 0.6752, 0.0686, 0.1196 },
                { 0.4948, 0.6752, 1.1434, 0.0314, 0.0582 }, { 0.1389, 0.0686, 0.0314, 0.0270, 0.0526 },
                { 0.2381, 0.1196, 0.0582, 0.0526, 0.3957 } })
  local U, piv = torch.pstrf(A)
  tester:asserteq(torch.type(piv), 'torch.IntTensor')
  tester:eq(piv:totable(), { 1, 3, 5, 2, 4 })
  close('first row of U', U[1], D({ 1.1272, 0.4390, 0.2112, 0.8846, 0.1232 }), 1e-4)
  close('U is upper', U, torch.triu(U), 0)
  local P = perm_matrix(piv)
  close('P^T A P = U^T U', P:t() * A * P, U:t() * U, 1e-12)
  -- Torch7's own check: permute U^T U's rows and columns back
  local Ap = U:t() * U
  Ap:indexCopy(1, piv:long(), Ap:clone())
  Ap:indexCopy(2, piv:long(), Ap:clone())
  close('indexCopy back', Ap, A, 1e-12)
  local L, pivl = torch.pstrf(A, 'L')
  close('L is lower', L, torch.tril(L), 0)
  local Pl = perm_matrix(pivl)
  close('P^T A P = L L^T', Pl:t() * A * Pl, L * L:t(), 1e-12)
  -- result tensors, the method form, FloatTensor
  local res, rpiv = D(), torch.IntTensor()
  local r1, r2 = torch.pstrf(res, rpiv, A, 'U')
  tester:assert(r1 == res and r2 == rpiv, 'pstrf returns its result tensors')
  close('res form', res, U, 0)
  local Uf, pf = A:float():pstrf()
  tester:eq(pf:totable(), { 1, 3, 5, 2, 4 })
  close('float', Uf, U, 1e-4)
end

function tests.pstrf_rank_deficient()
  torch.manualSeed(4)
  for _, uplo in ipairs({ 'U', 'L' }) do
    local X = torch.randn(6, 3):double()
    local A = X * X:t()  -- 6 x 6, rank 3
    -- (an explicit tol: with LAPACK's default, n eps max(diag A), roundoff may leave one more pivot)
    local F, piv = torch.pstrf(A, uplo, 1e-9)
    tester:assert(is_permutation(piv), 'piv is a permutation of 1..n')
    local Fd = torch.pstrf(A, uplo)  -- the default tolerance reconstructs A too
    local Pd = perm_matrix(select(2, torch.pstrf(A, uplo)))
    close('default tol ' .. uplo, Pd:t() * A * Pd, uplo == 'U' and Fd:t() * Fd or Fd * Fd:t(), 1e-10)
    local P = perm_matrix(piv)
    local FtF = uplo == 'U' and F:t() * F or F * F:t()
    close('rank 3 ' .. uplo .. ': P^T A P', P:t() * A * P, FtF, 1e-10)
    -- the factorization stopped at the rank: the trailing rows (U) or columns (L) are zero
    local tail = uplo == 'U' and F:narrow(1, 4, 3) or F:narrow(2, 4, 3)
    tester:asserteq(tail:clone():abs():max(), 0, 'trailing part zero')
    -- the pivots are the largest remaining diagonal elements: the first is A's largest
    local _, imax = A:diag():max(1)
    tester:asserteq(piv[1], imax[1])
  end
  -- a zero matrix has rank 0; an explicit tolerance is taken
  local Z = torch.zeros(3, 3):double()
  local U0 = torch.pstrf(Z)
  tester:asserteq(U0:clone():abs():max(), 0)
  local A = D({ { 4, 2 }, { 2, 1 + 1e-9 } })
  local Ut = torch.pstrf(A, 'U', 1e-6)  -- the second pivot, 1e-9, is below tol
  tester:asserteq(Ut[2][2], 0)
  close('tol given', Ut[1], D({ 2, 1 }))
end

function tests.btrifact_btrisolve()
  torch.manualSeed(5)
  local B, n = 4, 3
  local A = torch.randn(B, n, n):double()
  local b = torch.randn(B, n):double()
  local LU, piv = torch.btrifact(A)
  tester:eq(LU:size():totable(), { B, n, n })
  tester:eq(piv:size():totable(), { B, n })
  tester:asserteq(torch.type(piv), 'torch.IntTensor')
  local LU2, piv2 = torch.linalg.luFactor(A)
  close('same as luFactor', LU, LU2, 0)
  tester:eq(piv:totable(), piv2:totable())
  local x = torch.btrisolve(b, LU, piv)
  tester:eq(x:size():totable(), { B, n })
  for i = 1, B do
    local xi = torch.gesv(b[i]:view(n, 1), A[i])
    close('vector rhs matrix ' .. i, x[i], xi:view(n))
  end
  local b3 = torch.randn(B, n, 2):double()
  local x3 = torch.btrisolve(b3, LU, piv)
  for i = 1, B do close('matrix rhs ' .. i, x3[i], (torch.gesv(b3[i], A[i]))) end
  -- method forms and result tensors
  local LUm, pivm = A:btrifact()
  close('method btrifact', LUm, LU, 0)
  close('method btrisolve', b:btrisolve(LUm, pivm), x, 0)
  local ra, rp = D(), torch.IntTensor()
  local r1, r2 = torch.btrifact(ra, rp, A)
  tester:assert(r1 == ra and r2 == rp, 'btrifact returns its result tensors')
  close('res btrifact', ra, LU, 0)
  local rb = D()
  tester:assert(torch.btrisolve(rb, b, LU, piv) == rb, 'btrisolve returns rb')
  close('res btrisolve', rb, x, 0)
  -- FloatTensor
  local LUf, pivf = torch.btrifact(A:float())
  close('float', torch.btrisolve(b:float(), LUf, pivf), x, 1e-4)
  -- a singular matrix of the batch: an error, or its info with rinfo
  local S = A:clone()
  S[3]:zero()
  tester:assertErrorPattern(function() torch.btrifact(S) end, '%[btrifact%] failed to factorize matrix 3')
  local rinfo = torch.IntTensor()
  torch.btrifact(D(), torch.IntTensor(), rinfo, S)
  tester:eq(rinfo:totable(), { 0, 0, 1, 0 })
end

function tests.errors()
  local sq, rect = torch.randn(3, 3), torch.randn(3, 4)
  tester:assertErrorPattern(function() torch.eig(rect) end, '%[eig%] A must be square, got 3x4')
  tester:assertErrorPattern(function() torch.eig(torch.IntTensor(2, 2):zero()) end,
                            '%[eig%] A must be a torch.FloatTensor or torch.DoubleTensor')
  tester:assertErrorPattern(function() torch.eig(sq, 'X') end, "%[eig%] jobvr must be 'N' or 'V', got 'X'")
  tester:assertErrorPattern(function() torch.eig(sq, 'V', 'U') end, '%[eig%] expected')
  tester:assertErrorPattern(function() torch.eig('a') end, '%[eig%] expected')
  tester:assertErrorPattern(function() torch.geqrf(torch.randn(3)) end, '%[geqrf%] A must be 2D')
  tester:assertErrorPattern(function() torch.geqrf(torch.LongTensor(2, 2):zero()) end, '%[geqrf%] A must be a')
  local a, tau = torch.geqrf(rect)
  tester:assertErrorPattern(function() torch.orgqr(a, torch.randn(4)) end, '%[orgqr%] tau has 4 elements')
  tester:assertErrorPattern(function() torch.orgqr(a, tau:double()) end, '%[orgqr%]')
  tester:assertErrorPattern(function() torch.orgqr(a) end, '%[orgqr%] expected')
  tester:assertErrorPattern(function() torch.ormqr(a, tau, torch.randn(3, 2), 'X') end,
                            "%[ormqr%] side must be 'L' or 'R', got 'X'")
  tester:assertErrorPattern(function() torch.ormqr(a, tau, torch.randn(3, 2), 'L', 'Q') end,
                            "%[ormqr%] trans must be 'N' or 'T', got 'Q'")
  tester:assertErrorPattern(function() torch.ormqr(a, tau, torch.randn(4, 2)) end, '%[ormqr%] A is 3x4 but C is 4x2')
  tester:assertErrorPattern(function() torch.pstrf(rect) end, '%[pstrf%] A must be square')
  tester:assertErrorPattern(function() torch.pstrf(sq, 'X') end, "%[pstrf%] uplo must be 'U' or 'L', got 'X'")
  tester:assertErrorPattern(function() torch.pstrf(sq, 'U', 'x') end, '%[pstrf%] tol must be a number')
  tester:assertErrorPattern(function() torch.pstrf(torch.Tensor({ { 1, 0 }, { 0, -1 } })) end,
                            '%[pstrf%] A is not positive semidefinite')
  tester:assertErrorPattern(function() torch.pstrf(torch.IntTensor(2, 2):zero()) end, '%[pstrf%] A must be a')
  tester:assertErrorPattern(function() torch.btrifact(sq) end, '%[btrifact%] A must be a 3D tensor')
  tester:assertErrorPattern(function() torch.btrifact(torch.randn(2, 3, 4)) end, '%[btrifact%] A must hold square')
  tester:assertErrorPattern(function() torch.btrifact(torch.randn(2, 3, 3), false) end,
                            '%[btrifact%] btrifact without pivoting')
  tester:assertErrorPattern(function() torch.btrifact(torch.IntTensor(2, 2, 2):zero()) end,
                            '%[btrifact%] A must be a Float or Double tensor')
  local LU, piv = torch.btrifact(torch.randn(2, 3, 3))
  tester:assertErrorPattern(function() torch.btrisolve(torch.randn(3, 3), LU, piv) end,
                            '%[btrisolve%] b has 3 matrices but LU has 2')
  tester:assertErrorPattern(function() torch.btrisolve(torch.randn(2, 4), LU, piv) end,
                            '%[btrisolve%] b has 4 rows')
  tester:assertErrorPattern(function() torch.btrisolve(torch.randn(2, 3):double(), LU, piv) end,
                            '%[btrisolve%] b is a torch.DoubleTensor but LU is a torch.FloatTensor')
end

tester:add(tests)
tester:run()
