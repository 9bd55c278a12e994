-- torch.linalg's values: reconstructions (Q R = A, L L^T = A, U S Vh = A, V diag(w) V^T = A,
-- A X = B), closed forms (diagonal and 2x2 matrices, rotations, nilpotent exponentials), the
-- functions against each other (pinv against inv, lstsq against the normal equations, norms
-- against singular values), batches against per-matrix calls, empty batches, errors naming the
-- op, and CUDA against the CPU when a GPU is present.
local tester = torch.Tester()
local tests = torch.TestSuite()
local L = torch.linalg
local D = torch.DoubleTensor

local function rnd(seed, ...)
  torch.manualSeed(seed)
  return torch.randn(...):double()
end
local function mT(x) return x:transpose(x:dim() - 1, x:dim()) end
local function mm(a, b) return torch.matmul(a, b) end
local function spd(seed, ...)
  local a = rnd(seed, ...)
  return mm(a, mT(a)) + torch.eye(a:size(a:dim())):double() * a:size(a:dim())
end
local function eq(a, b, tol, msg) tester:assertTensorEq(a:double(), b:double(), tol, msg) end
local function num(x) return type(x) == 'number' and x or x:double():view(-1)[1] end
local function close(a, b, tol, msg)
  a, b = num(a), num(b)
  tester:assert(math.abs(a - b) <= tol * math.max(1, math.abs(b)), string.format('%s: got %.17g, expected %.17g', msg, a, b))
end
local function eye(n) return torch.eye(n):double() end
local types_ = { 'torch.FloatTensor', 'torch.DoubleTensor' }
local function tol(t) return t == 'torch.FloatTensor' and 1e-4 or 1e-10 end

function tests.solveAndInv()
  for _, t in ipairs(types_) do
    local A = (rnd(1, 4, 4) + eye(4) * 4):type(t)
    local B = rnd(2, 4, 3):type(t)
    local X = L.solve(A, B)
    eq(mm(A, X), B, tol(t), 'A X = B ' .. t)
    eq(mm(A, L.inv(A)), eye(4), tol(t), 'A inv(A) = I ' .. t)
    local x = L.solve(A, B[{ {}, 1 }])
    tester:assertTableEq(x:size():totable(), { 4 })
    eq(x, X[{ {}, 1 }], tol(t), 'vector B')
  end
  -- batches against per-matrix calls, with B's batch broadcast
  local A = rnd(3, 2, 3, 3, 3) + eye(3):view(1, 1, 3, 3):expand(2, 3, 3, 3) * 3
  local B = rnd(4, 3, 3, 2)
  local X = L.solve(A, B)
  tester:assertTableEq(X:size():totable(), { 2, 3, 3, 2 })
  for i = 1, 2 do
    for j = 1, 3 do
      eq(X[i][j], torch.gesv(B[j], A[i][j]), 1e-12, 'batched solve')
      eq(L.inv(A)[i][j], torch.inverse(A[i][j]), 1e-12, 'batched inv')
    end
  end
  -- a batch of vectors (B with one dim fewer than A)
  local v = rnd(5, 2, 3, 3)
  eq(L.solve(A, v)[2][1], torch.gesv(v[2][1], A[2][1]):view(-1), 1e-12, 'batch of vectors')
  -- closed form: a 2x2 inverse
  eq(L.inv(D({ { 4, 7 }, { 2, 6 } })), D({ { 0.6, -0.7 }, { -0.2, 0.4 } }), 1e-14, '2x2 inverse')
  -- empty batches
  tester:assertTableEq(L.inv(torch.zeros(0, 3, 3):double()):size():totable(), { 0, 3, 3 })
  tester:assertTableEq(L.solve(torch.zeros(0, 3, 3):double(), torch.zeros(0, 3, 1):double()):size():totable(), { 0, 3, 1 })
end

function tests.cholesky()
  for _, t in ipairs(types_) do
    local A = spd(6, 2, 4, 4):type(t)
    local Lc = L.cholesky(A)
    eq(mm(Lc, mT(Lc)), A, tol(t) * 10, 'L L^T = A ' .. t)
    eq(torch.triu(Lc[1], 1), torch.zeros(4, 4), 0, 'L is lower')
    local U = L.cholesky(A, { upper = true })
    eq(mm(mT(U), U), A, tol(t) * 10, 'U^T U = A')
    eq(U, mT(Lc), tol(t), 'U = L^T')
    eq(Lc[2], torch.potrf(A[2], 'L'), tol(t), 'batch against potrf')
    eq(torch.cholesky(A[1]), Lc[1], 0, 'torch.cholesky is lower by default')
    eq(torch.cholesky(A[1], true), U[1], 0, 'torch.cholesky upper')
  end
  eq(L.cholesky(D({ { 4, 2 }, { 2, 5 } })), D({ { 2, 0 }, { 1, 2 } }), 1e-15, '2x2 closed form')
  tester:assertErrorPattern(function() L.cholesky(D({ { 1, 2 }, { 2, 1 } })) end,
    '%[linalg.cholesky%] A is not positive definite')
  tester:assertErrorPattern(function() L.cholesky(torch.ones(2, 3):double()) end, '%[linalg.cholesky%] A must be square')
end

function tests.qr()
  for _, t in ipairs(types_) do
    for _, shape in ipairs({ { 4, 4 }, { 5, 3 }, { 3, 5 }, { 2, 5, 3 } }) do
      local A = rnd(7, unpack(shape)):type(t)
      local m, n = shape[#shape - 1], shape[#shape]
      local k = math.min(m, n)
      local Q, R = L.qr(A)
      eq(mm(Q, R), A, tol(t) * 10, 'Q R = A ' .. t)
      eq(mm(mT(Q), Q), eye(k):typeAs(Q):expandAs(mm(mT(Q), Q)), tol(t) * 10, 'Q^T Q = I')
      tester:asserteq(Q:size(Q:dim()), k)
      local Qc, Rc = L.qr(A, 'complete')
      tester:asserteq(Qc:size(Qc:dim()), m)
      tester:asserteq(Rc:size(Rc:dim() - 1), m)
      eq(mm(Qc, Rc), A, tol(t) * 10, 'complete Q R = A ' .. table.concat(shape, 'x'))
      eq(mm(mT(Qc), Qc), eye(m):typeAs(Qc):expandAs(mm(mT(Qc), Qc)), tol(t) * 10, 'complete Q orthogonal')
      local Q0, R0 = L.qr(A, 'r')
      tester:assertTableEq(Q0:size():totable(), { 0 }, "mode 'r': Q is PyTorch's empty tensor")
      eq(R0, R, 0, "mode 'r' gives R")
    end
  end
  -- batch against torch.qr per matrix
  local A = rnd(8, 3, 4, 2)
  local Q, R = L.qr(A)
  for i = 1, 3 do
    local q, r = torch.qr(A[i])
    eq(Q[i], q, 1e-12, 'batched Q')
    eq(R[i], r, 1e-12, 'batched R')
  end
  tester:assertErrorPattern(function() L.qr(A, 'full') end, "%[linalg.qr%] mode must be 'reduced', 'complete' or 'r', got 'full'")
end

function tests.eigh()
  for _, t in ipairs(types_) do
    local S = (rnd(9, 2, 4, 4)):type(t)
    S = S + mT(S)
    local w, V = L.eigh(S)
    eq(mm(V * 1, mm(torch.diagEmbed(w), mT(V))), S, tol(t) * 10, 'V diag(w) V^T = S ' .. t)
    for i = 1, 2 do
      for j = 1, 3 do tester:assert(w[i][j] <= w[i][j + 1], 'ascending') end
      eq(w[i], torch.symeig(S[i]), tol(t), 'against symeig')
    end
    eq(L.eigvalsh(S), w, 0, 'eigvalsh')
    -- UPLO: only that triangle is read
    local junkL = S:clone()
    junkL[1][4][1] = 100
    eq(L.eigvalsh(junkL, 'U')[1], w[1], tol(t), "UPLO 'U' ignores the lower triangle")
  end
  -- closed form: [[2, 1], [1, 2]] has eigenvalues 1, 3
  local w = L.eigvalsh(D({ { 2, 1 }, { 1, 2 } }))
  eq(w, D({ 1, 3 }), 1e-14, '2x2 eigenvalues')
  tester:assertErrorPattern(function() L.eigh(D({ { 1 } }), 'X') end, "%[linalg.eigh%] UPLO must be 'L' or 'U'")
end

function tests.svd()
  for _, t in ipairs(types_) do
    for _, shape in ipairs({ { 4, 4 }, { 5, 3 }, { 3, 5 }, { 2, 3, 4 } }) do
      local A = rnd(10, unpack(shape)):type(t)
      local m, n = shape[#shape - 1], shape[#shape]
      local U, S, Vh = L.svd(A, false)
      eq(mm(U * 1, torch.cmul(S:unsqueeze(S:dim() + 1), Vh)), A, tol(t) * 10, 'U S Vh = A ' .. t)
      local Uf, Sf, Vhf = L.svd(A)
      tester:asserteq(Uf:size(Uf:dim()), m)
      tester:asserteq(Vhf:size(Vhf:dim()), n)
      tester:asserteq(Vhf:size(Vhf:dim() - 1), n)
      eq(Sf, S, tol(t), 'full and reduced S')
      eq(L.svdvals(A), S, tol(t), 'svdvals')
      eq(mm(mT(Uf), Uf), eye(m):typeAs(Uf):expandAs(mm(mT(Uf), Uf)), tol(t) * 10, 'full U orthogonal')
    end
  end
  -- against torch.svd per matrix (Torch7's V = Vh^T)
  local A = rnd(11, 2, 4, 3)
  local U, S, Vh = L.svd(A, false)
  for i = 1, 2 do
    local u, s, v = torch.svd(A[i])
    eq(S[i], s, 1e-12, 'batched S')
    eq(U[i], u, 1e-12, 'batched U')
    eq(Vh[i], v:t(), 1e-12, 'batched Vh')
  end
  eq(L.svdvals(D({ { 3, 0 }, { 0, -4 } })), D({ 4, 3 }), 1e-15, 'diagonal singular values')
end

function tests.norms()
  local x = D({ { 1, -2, 3 }, { -4, 5, -6 } })
  close(L.vectorNorm(x), math.sqrt(91), 1e-14, '2-norm of all')
  close(L.vectorNorm(x, 1), 21, 1e-14, '1-norm')
  close(L.vectorNorm(x, math.huge), 6, 0, 'inf norm')
  close(L.vectorNorm(x, -math.huge), 1, 0, '-inf norm')
  close(L.vectorNorm(x, 0), 6, 0, '0 norm')
  close(L.vectorNorm(x, 3), (1 + 8 + 27 + 64 + 125 + 216) ^ (1 / 3), 1e-14, '3-norm')
  eq(L.vectorNorm(x, 1, 2), D({ 6, 15 }), 0, '1-norm over dim 2')
  eq(L.vectorNorm(x, 2, -2, true), D({ { math.sqrt(17), math.sqrt(29), math.sqrt(45) } }), 1e-14, 'keepdim')
  eq(L.vectorNorm(x, { ord = 1, dim = { 1, 2 } }), D(1):fill(21):view({}), 0, 'options table, dims')
  close(L.matrixNorm(x), math.sqrt(91), 1e-14, 'fro')
  close(L.matrixNorm(x, 1), 9, 0, '1: max column sum')
  close(L.matrixNorm(x, -1), 5, 0, '-1: min column sum')
  close(L.matrixNorm(x, math.huge), 15, 0, 'inf: max row sum')
  close(L.matrixNorm(x, -math.huge), 6, 0, '-inf: min row sum')
  local s = L.svdvals(x)
  close(L.matrixNorm(x, 2), s[1], 1e-14, '2: largest singular value')
  close(L.matrixNorm(x, -2), s[2], 1e-14, '-2: smallest')
  close(L.matrixNorm(x, 'nuc'), s[1] + s[2], 1e-14, 'nuc')
  -- batches and dims
  local b = rnd(12, 2, 3, 4)
  local nb = L.matrixNorm(b, 'nuc')
  for i = 1, 2 do close(nb[i], L.matrixNorm(b[i], 'nuc'), 1e-12, 'batched nuc') end
  local nd = L.matrixNorm(b, 1, { 1, 3 })  -- matrices over dims 1 and 3
  for j = 1, 3 do close(nd[j], L.matrixNorm(b[{ {}, j, {} }], 1), 1e-12, 'matrix norm over dims 1, 3') end
  tester:assertTableEq(L.matrixNorm(b, 'fro', { -2, -1 }, true):size():totable(), { 2, 1, 1 })
  -- norm dispatch
  close(L.norm(x), math.sqrt(91), 1e-14, 'norm of all')
  close(L.norm(x, 'nuc'), s[1] + s[2], 1e-14, 'norm nuc')
  close(L.norm(x, 1), 9, 0, 'norm of a 2D input with an ord is a matrix norm')
  eq(L.norm(x, 1, 2), D({ 6, 15 }), 0, 'norm with a dim is a vector norm')
  tester:assertErrorPattern(function() L.matrixNorm(x, 3) end, "%[linalg.matrixNorm%] ord must be 'fro'")
  tester:assertErrorPattern(function() L.vectorNorm(x, 2, 3) end, 'dimension 3 out of range')
end

function tests.rankPinvLstsq()
  local A = D({ { 1, 2, 3 }, { 2, 4, 6 }, { 1, 0, 1 } })  -- rank 2
  tester:asserteq(L.matrixRank(A):item(), 2)
  tester:asserteq(L.matrixRank(eye(4)):item(), 4)
  tester:asserteq(L.matrixRank(torch.zeros(3, 3):double()):item(), 0)
  tester:asserteq(L.matrixRank(A, { tol = 1e3 }):item(), 0)
  local s = L.svdvals(A)  -- 9.3..., 1.1..., ~0
  tester:asserteq(L.matrixRank(A, { atol = s[2] * 1.01 }):item(), 1, 'atol')
  tester:asserteq(L.matrixRank(A, { rtol = s[2] / s[1] * 1.01 }):item(), 1, 'rtol')
  tester:asserteq(L.matrixRank(A, { rtol = s[2] / s[1] * 0.99, atol = 1e-3 }):item(), 2, 'max of atol and rtol')
  tester:assertErrorPattern(function() L.matrixRank(A, { atol = -2 }) end, 'must be non%-negative')
  tester:asserteq(L.matrixRank(A + mT(A), { hermitian = true }):item(), L.matrixRank(A + mT(A)):item())
  eq(L.matrixRank(torch.cat({ eye(3):view(1, 3, 3), A:view(1, 3, 3) }, 1)), torch.LongTensor({ 3, 2 }), 0, 'batched rank')
  -- pinv: the inverse for a square invertible A; Penrose conditions for a singular one
  local B = rnd(13, 3, 3) + eye(3) * 3
  eq(L.pinv(B), L.inv(B), 1e-10, 'pinv = inv')
  local P = L.pinv(A)
  eq(mm(mm(A, P), A), A, 1e-10, 'A P A = A')
  eq(mm(mm(P, A), P), P, 1e-10, 'P A P = P')
  eq(mm(A, P), mT(mm(A, P)), 1e-10, 'A P symmetric')
  eq(torch.pinverse(A), P, 1e-10, 'torch.pinverse')
  eq(L.pinv(A + mT(A), { hermitian = true }), L.pinv(A + mT(A)), 1e-10, 'hermitian pinv')
  tester:assertTableEq(L.pinv(rnd(14, 2, 4, 3)):size():totable(), { 2, 3, 4 })
  -- lstsq against the normal equations
  local M, y = rnd(15, 6, 3), rnd(16, 6, 2)
  local X, res, rank, sv = L.lstsq(M, y)
  eq(X, L.solve(mm(mT(M), M), mm(mT(M), y)), 1e-10, 'lstsq = normal equations')
  eq(res, torch.sum(torch.pow(mm(M, X) - y, 2), 1):view(-1), 1e-10, 'residuals')
  tester:asserteq(rank:item(), 3)
  eq(sv, L.svdvals(M), 1e-12, 'singular values')
  local xv = L.lstsq(M, y[{ {}, 1 }])
  eq(xv, X[{ {}, 1 }], 1e-12, 'vector B')
  -- underdetermined: the minimum-norm solution A^T (A A^T)^-1 b
  local W, b = rnd(17, 2, 4), rnd(18, 2, 1)
  local xw, rw = L.lstsq(W, b)
  eq(xw, mm(mT(W), L.solve(mm(W, mT(W)), b)), 1e-10, 'minimum norm')
  tester:asserteq(rw:nElement(), 0)
end

function tests.powerExp()
  local A = rnd(19, 3, 3)
  eq(L.matrixPower(A, 0), eye(3), 0, 'A^0')
  eq(L.matrixPower(A, 1), A, 0, 'A^1')
  eq(L.matrixPower(A, 5), mm(mm(mm(mm(A, A), A), A), A), 1e-10, 'A^5')
  eq(L.matrixPower(A, -3), L.inv(mm(mm(A, A), A)), 1e-8, 'A^-3')
  local Ab = rnd(20, 2, 3, 3)
  eq(L.matrixPower(Ab, 2)[2], mm(Ab[2], Ab[2]), 1e-12, 'batched power')
  eq(torch.matrixPower(A, 2), mm(A, A), 1e-12, 'torch.matrixPower')
  -- closed forms: a rotation generator, a nilpotent matrix, a diagonal one
  local th = 0.7
  eq(L.matrixExp(D({ { 0, -th }, { th, 0 } })), D({ { math.cos(th), -math.sin(th) }, { math.sin(th), math.cos(th) } }), 1e-14, 'rotation')
  eq(L.matrixExp(D({ { 0, 1 }, { 0, 0 } })), D({ { 1, 1 }, { 0, 1 } }), 1e-15, 'nilpotent')
  eq(L.matrixExp(torch.diag(D({ -3, 0.5, 6 }))), torch.diag(D({ math.exp(-3), math.exp(0.5), math.exp(6) })), 1e-12, 'diagonal, large norm')
  -- exp(A) exp(-A) = I, and batches against single matrices
  local E = L.matrixExp(Ab * 3)
  eq(mm(E[1], L.matrixExp(-Ab[1] * 3)), eye(3), 1e-7, 'exp(A) exp(-A) = I')
  eq(E[2], L.matrixExp(Ab[2] * 3), 1e-10, 'batched exp')
  eq(torch.matrixExp(A):float(), L.matrixExp(A:float()), 1e-4, 'float')
  -- a small matrix batched with a large one is as accurate as alone (one scaling for the whole
  -- batch over-scaled it: 6e-5 off in f32, 1e-13 in f64)
  for _, t in ipairs({ 'torch.FloatTensor', 'torch.DoubleTensor' }) do
    local Ap = rnd(60, 2, 4, 4):type(t)
    Ap[1]:mul(50)
    Ap[2]:mul(0.01)
    local Ep = L.matrixExp(Ap)
    tester:assertTensorEq(Ep[2], L.matrixExp(Ap[2]:clone()), t == 'torch.FloatTensor' and 1e-6 or 1e-15, 'small matrix in a batch ' .. t)
    tester:assertTensorEq(Ep[1], L.matrixExp(Ap[1]:clone()), 0, 'large matrix in a batch ' .. t)
  end
end

function tests.triangularCondVanderMisc()
  local U = D({ { 2, 1, -1 }, { 0, 3, 2 }, { 0, 0, 4 } })
  local B = rnd(21, 3, 2)
  local junk = U + mT(torch.triu(rnd(22, 3, 3), 1))  -- garbage below the diagonal is ignored
  local X = L.solveTriangular(junk, B, { upper = true })
  eq(mm(U, X), B, 1e-12, 'upper solve')
  local Xl = L.solveTriangular(mT(U), B, { upper = false })
  eq(mm(mT(U), Xl), B, 1e-12, 'lower solve')
  local Xr = L.solveTriangular(U, mT(B), { upper = true, left = false })
  eq(mm(Xr, U), mT(B), 1e-12, 'right solve')
  local Uu = U:clone()
  for i = 1, 3 do Uu[i][i] = 1 end
  eq(L.solveTriangular(U, B, { upper = true, unitriangular = true }), L.solveTriangular(Uu, B, { upper = true }), 1e-12, 'unitriangular')
  tester:assertErrorPattern(function() L.solveTriangular(U, B) end, '%[linalg.solveTriangular%] expected options')
  local Xt, Ac = torch.triangularSolve(B, U)
  eq(Xt, X, 1e-12, 'triangularSolve')
  eq(Ac, U, 0, 'triangularSolve copies A')
  eq(torch.triangularSolve(B, U, true, true), L.solve(mT(U), B), 1e-12, 'triangularSolve transpose')
  eq(torch.trtrs(B, U), X, 1e-12, 'trtrs upper')
  eq(torch.trtrs(B, mT(U), 'L'), Xl, 1e-12, 'trtrs lower')
  eq(torch.trtrs(B, U, 'U', 'T'), L.solve(mT(U), B), 1e-12, 'trtrs transposed')
  -- batches broadcast against B; non-contiguous operands; empty ones
  local Ub = torch.triu(rnd(24, 4, 3, 3)) + torch.eye(3):double():view(1, 3, 3):expand(4, 3, 3) * 3
  local Xb = L.solveTriangular(Ub, B, { upper = true })
  for i = 1, 4 do eq(Xb[i], L.solve(Ub[i], B), 1e-12, 'batch ' .. i) end
  eq(L.solveTriangular(Ub:transpose(2, 3), mT(B):t(), { upper = false }), L.solve(Ub:transpose(2, 3), B), 1e-12,
    'strided operands')
  tester:assertTableEq(L.solveTriangular(Ub, rnd(25, 4, 2, 3), { upper = true, left = false }):size():totable(), { 4, 2, 3 })
  tester:asserteq(L.solveTriangular(U, D(3, 0), { upper = true }):nElement(), 0)
  tester:asserteq(L.solveTriangular(D(0, 3, 3), D(0, 3, 2), { upper = true }):dim(), 3)
  local Z = U:clone()
  Z[2][2] = 0
  tester:assertErrorPattern(function() L.solveTriangular(Z, B, { upper = true }) end,
    '%[linalg.solveTriangular%] A is singular: its diagonal element %(2,2%) is zero')
  tester:assertErrorPattern(function() torch.trtrs(B, Z) end, 'A is singular')
  eq(L.solveTriangular(Z, B, { upper = true, unitriangular = true }), L.solveTriangular(Uu, B, { upper = true }), 1e-12,
    'a unit diagonal is not read')
  tester:assertErrorPattern(function() L.solveTriangular(U, rnd(26, 2, 2), { upper = true }) end, 'B needs 3 rows')
  tester:assertErrorPattern(function() L.solveTriangular(U, rnd(26, 2, 2), { upper = true, left = false }) end,
    'B needs 3 columns')
  tester:assertErrorPattern(function() L.solveTriangular(U, B:float(), { upper = true }) end,
    'A is a torch.DoubleTensor on cpu but B is a torch.FloatTensor')
  tester:assertErrorPattern(function() L.solveTriangular(Ub, rnd(27, 2, 3, 2), { upper = true }) end, 'do not broadcast')
  -- cholesky solve / inverse, potri
  local S = spd(23, 3, 3)
  local Lc = L.cholesky(S)
  eq(torch.choleskySolve(B, Lc), L.solve(S, B), 1e-10, 'choleskySolve')
  eq(torch.choleskySolve(B, mT(Lc), true), L.solve(S, B), 1e-10, 'choleskySolve upper')
  eq(torch.choleskyInverse(Lc), L.inv(S), 1e-10, 'choleskyInverse')
  eq(torch.potri(torch.potrf(S)), L.inv(S), 1e-10, 'potri (upper, Torch7 default)')
  eq(torch.potri(torch.potrf(S, 'L'), 'L'), L.inv(S), 1e-10, 'potri lower')
  local res = torch.DoubleTensor()
  torch.potri(res, torch.potrf(S))
  eq(res, L.inv(S), 1e-10, 'potri into res')
  -- cond
  close(L.cond(D({ { 1, 0 }, { 0, 4 } })), 4, 1e-14, 'cond 2')
  close(L.cond(D({ { 1, 0 }, { 0, 4 } }), -2), 0.25, 1e-14, 'cond -2')
  close(L.cond(D({ { 1, 2 }, { 3, 4 } }), 1), 7 * 3, 1e-12, 'cond 1: ||A||_1 ||A^-1||_1')
  close(L.cond(D({ { 1, 2 }, { 3, 4 } }), 'fro'), math.sqrt(30) * math.sqrt(30) / 2, 1e-12, 'cond fro')
  -- singular: inf as in PyTorch (was linalg.inv's error), per matrix of a batch; empty: 0
  for _, p in ipairs({ 'fro', 'nuc', 1, -1, math.huge }) do
    tester:asserteq(num(L.cond(D({ { 1, 2 }, { 2, 4 } }), p)), math.huge, 'cond of a singular matrix, p ' .. tostring(p))
  end
  local cb = L.cond(torch.cat({ D({ { 1, 2 }, { 2, 4 } }):view(1, 2, 2), D({ { 1, 2 }, { 3, 4 } }):view(1, 2, 2) }, 1), 1)
  tester:asserteq(cb[1], math.huge, 'cond of a batch: the singular matrix')
  close(cb[2], 21, 1e-12, 'cond of a batch: the regular matrix')
  tester:asserteq(num(L.cond(torch.zeros(0, 0):double())), 0, 'cond of a 0x0 matrix')
  -- norms whose max or min runs over an empty dim: an error naming the op (as PyTorch's amax)
  tester:asserteq(num(L.matrixNorm(torch.zeros(3, 0):double(), math.huge)), 0, 'inf-norm of 3x0: max of three zero sums')
  for _, p in ipairs({ 2, -2, 1 }) do
    tester:assertErrorPattern(function() L.matrixNorm(torch.zeros(3, 0):double(), p) end,
      '%[linalg.matrixNorm%] the .*-norm of a matrix with an empty dim is not defined, got size 3x0')
  end
  tester:asserteq(num(L.matrixNorm(torch.zeros(0, 3):double(), 1)), 0, '1-norm of 0x3: max of three zero sums')
  tester:asserteq(num(L.matrixNorm(torch.zeros(0, 3):double(), 'nuc')), 0, 'nuc norm of 0x3')
  tester:assertTableEq(L.cond(torch.zeros(3, 0, 0):double(), 'fro'):size():totable(), { 3 }, 'cond of 0x0 matrices')
  -- vander
  eq(L.vander(D({ 1, 2, 3 })), D({ { 1, 1, 1 }, { 1, 2, 4 }, { 1, 3, 9 } }), 0, 'vander')
  eq(L.vander(D({ 2, 3 }), 4), D({ { 1, 2, 4, 8 }, { 1, 3, 9, 27 } }), 0, 'vander N')
  tester:assertTableEq(L.vander(rnd(24, 2, 3)):size():totable(), { 2, 3, 3 })
  -- cross, multiDot
  eq(L.cross(D({ { 1, 0, 0 } }), D({ { 0, 1, 0 } })), D({ { 0, 0, 1 } }), 0, 'cross on the last dim')
  local a1, a2, a3 = rnd(25, 2, 3), rnd(26, 3, 4), rnd(27, 4)
  eq(L.multiDot({ a1, a2, a3 }), mm(mm(a1, a2), a3), 1e-12, 'multiDot')
  close(L.multiDot({ rnd(28, 3), a2, a3 }), mm(mm(rnd(28, 3), a2), a3), 1e-12, 'multiDot vectors')
  eq(torch.chainMatmul(a1, a2), mm(a1, a2), 1e-12, 'chainMatmul')
  tester:assertErrorPattern(function() L.multiDot({ a1, a1 }) end, '%[linalg.multiDot%] tensor 2 has 2 rows')
  -- det and slogdet are torch's
  close(L.det(D({ { 1, 2 }, { 3, 4 } })), -2, 1e-14, 'det')
end

function tests.errors()
  tester:assertErrorPattern(function() L.inv(D({ { 1, 2 }, { 2, 4 } })) end, '%[linalg.inv%] A is singular')
  tester:assertErrorPattern(function() L.inv(torch.ones(2, 3):double()) end, '%[linalg.inv%] A must be square in its last two dims, got size 2x3')
  tester:assertErrorPattern(function() L.inv(torch.ones(3):double()) end, '%[linalg.inv%] expected a matrix or a batch')
  tester:assertErrorPattern(function() L.inv(torch.LongTensor(2, 2)) end, 'torch.FloatTensor or torch.DoubleTensor, got a torch.LongTensor')
  tester:assertErrorPattern(function() L.solve(eye(3), torch.ones(2, 1):double()) end, '%[linalg.solve%] A is 3x3 but B is 2x1')
  tester:assertErrorPattern(function() L.solve(eye(3), torch.ones(3, 1)) end, '%[linalg.solve%] A is a torch.DoubleTensor')
  tester:assertErrorPattern(function() L.solve(torch.ones(2, 2, 2):double(), torch.ones(3, 2, 1):double()) end, 'do not broadcast')
  tester:assertErrorPattern(function() L.svd({}) end, '%[linalg.svd%] expected a tensor')
  tester:assertErrorPattern(function() L.svd(eye(2), 1) end, '%[linalg.svd%] fullMatrices must be a boolean')
  tester:assertErrorPattern(function() L.matrixPower(eye(2), 1.5) end, '%[linalg.matrixPower%] n must be an integer')
  tester:assertErrorPattern(function() L.matrixExp(torch.ones(2, 3):double()) end, '%[linalg.matrixExp%] A must be square')
  tester:assertErrorPattern(function() L.lstsq(torch.ones(3, 2):double(), torch.ones(2, 1):double()) end, '%[linalg.lstsq%] A is 3x2 but B is 2x1')
  tester:assertErrorPattern(function() L.cholesky(eye(2), { uper = true }) end, "unknown option 'uper'")
end

function tests.cuda()
  if not torch.cuda.isAvailable() then
    print('SKIPPED: no CUDA device (torch.linalg against the CPU)')
    return
  end
  for _, t in ipairs(types_) do
    local tl = t == 'torch.FloatTensor' and 1e-3 or 1e-9
    local A = (rnd(30, 2, 4, 4) + eye(4):view(1, 4, 4):expand(2, 4, 4) * 4):type(t)
    local S = spd(31, 2, 4, 4):type(t)
    local B = rnd(32, 2, 4, 3):type(t)
    local g = function(x) return x:cuda() end
    local h = function(x) return x:type(t) end
    eq(h(L.solve(g(A), g(B))), L.solve(A, B), tl, 'cuda solve')
    eq(h(L.inv(g(A))), L.inv(A), tl, 'cuda inv')
    eq(h(L.cholesky(g(S))), L.cholesky(S), tl, 'cuda cholesky')
    eq(h(L.eigvalsh(g(S))), L.eigvalsh(S), tl, 'cuda eigvalsh')
    eq(h(L.svdvals(g(A))), L.svdvals(A), tl, 'cuda svdvals')
    local Q, R = L.qr(g(A))
    eq(h(torch.matmul(Q, R)), A, tl, 'cuda qr')
    eq(h(L.matrixExp(g(A))), L.matrixExp(A), tl * 10, 'cuda matrixExp')
    eq(h(L.pinv(g(A))), L.pinv(A), tl, 'cuda pinv')
    eq(h(L.matrixNorm(g(A), 'nuc')), L.matrixNorm(A, 'nuc'), tl, 'cuda nuc norm')
  end
  local a = (rnd(33, 3, 3) + eye(3) * 3):cuda():requiresGrad()
  L.inv(a):sum():backward()
  local c = (rnd(33, 3, 3) + eye(3) * 3):requiresGrad()
  L.inv(c):sum():backward()
  eq(a.grad:double(), c.grad, 1e-9, 'cuda inv gradient')
end

tester:add(tests)
tester:run()
