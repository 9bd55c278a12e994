-- LAPACK from Lua: hand-computed solutions and factors, reconstructions (A X = B, Q R = A,
-- U S V' = A), Torch7's call forms with result tensors and options, and errors.
local tester = torch.Tester()
local tests = torch.TestSuite()

local D = torch.DoubleTensor

local function eye(n)
  local e = D(n, n):zero()
  for i = 1, n do e[i][i] = 1 end
  return e
end

-- U diag(S) V' from an SVD (U and V narrowed to the k singular values).
local function svd_product(U, S, V)
  local k = S:size(1)
  local US = torch.cmul(U:narrow(2, 1, k), S:view(1, k))
  return torch.mm(US, V:narrow(2, 1, k):t())
end

function tests.gesv()
  local A, B = D{ { 2, 1 }, { 1, 3 } }, D{ { 3 }, { 5 } }
  local X, LU = torch.gesv(B, A)
  tester:assertTensorEq(X, D{ { 0.8 }, { 1.4 } }, 1e-12)
  tester:assertTensorEq(LU, D{ { 2, 1 }, { 0.5, 2.5 } }, 1e-12)  -- no pivoting needed: L = [1 0; .5 1]
  tester:eq(A:totable(), { { 2, 1 }, { 1, 3 } })  -- inputs untouched
  local rb, ra = D(), D()
  local x2, lu2 = torch.gesv(rb, ra, B, A)
  tester:assert(x2 == rb and lu2 == ra)
  tester:assertTensorEq(rb, X, 1e-12)
  tester:assertTensorEq(B:gesv(A), X, 1e-12)  -- method: self is the first argument
  tester:eq(torch.gesv(D{ 3, 5 }, A):size():totable(), { 2, 1 })  -- a vector B is one column
  local Xf = torch.gesv(B:float(), A:float())
  tester:asserteq(Xf:type(), 'torch.FloatTensor')
  tester:assertTensorEq(Xf, X:float(), 1e-6)
  local P = D{ { 0, 1 }, { 1, 0 } }  -- needs a row swap
  tester:assertTensorEq(torch.mm(P, (torch.gesv(B, P))), B, 1e-12)
  tester:assertErrorPattern(function() torch.gesv(B, D{ { 1, 2 }, { 2, 4 } }) end,
    '%[gesv%] A is singular: U%(2,2%) of its LU factorization is zero')
  tester:assertErrorPattern(function() torch.gesv(B, D(2, 3)) end, '%[gesv%] A must be square, got 2x3')
  tester:assertErrorPattern(function() torch.gesv(B:float(), A) end,
    '%[gesv%] A is a torch.DoubleTensor but B is a torch.FloatTensor')
  tester:assertErrorPattern(function() torch.gesv(B:long(), A:long()) end,
    '%[gesv%] A must be a torch.FloatTensor or torch.DoubleTensor, got a torch.LongTensor')
  tester:assertErrorPattern(function() torch.gesv(B, 1) end, '%[gesv%] expected %(%[resb, resa,%] B, A%)')
end

function tests.gels()
  -- The LAPACK DGELS example (also Torch7's doc/maths.md): 6x4 least squares, two right-hand sides.
  local a = D{ { 1.44, -7.84, -4.39, 4.53 }, { -9.96, -0.28, -3.24, 3.83 }, { -7.55, 3.24, 6.27, -6.64 },
               { 8.34, 8.09, 5.28, 2.06 }, { 7.08, 2.52, 0.74, -2.47 }, { -5.45, -5.70, -1.19, 4.70 } }
  local b = D{ { 8.58, 9.35 }, { 8.26, -4.43 }, { 8.48, -0.70 }, { -5.28, -0.26 }, { 5.72, -7.36 }, { 8.93, -2.52 } }
  local x = torch.gels(b, a)
  tester:eq(x:size():totable(), { 6, 2 })  -- Torch7: max(m, n) rows, the solution first
  local expect = D{ { -0.4506, 0.2497 }, { -0.8492, -0.9020 }, { 0.7066, 0.6323 }, { 0.1289, 0.1351 } }
  tester:assertTensorEq(x:narrow(1, 1, 4), expect, 1e-4)
  -- Under-determined: the minimum-norm exact solution of x1 + x2 = 2 is (1, 1).
  local y = torch.gels(D{ { 2 } }, D{ { 1, 1 } })
  tester:assertTensorEq(y, D{ { 1 }, { 1 } }, 1e-12)
  local rb, ra = D(), D()
  torch.gels(rb, ra, b, a)
  tester:assertTensorEq(rb, x, 1e-12)
  tester:eq(ra:size():totable(), { 6, 4 })
  tester:assertErrorPattern(function() torch.gels(D{ { 1 }, { 1 } }, D{ { 1, 0 }, { 0, 0 } }) end,
    '%[gels%] A does not have full rank')
end

function tests.inverse()
  local A = D{ { 4, 7 }, { 2, 6 } }
  local inv = torch.inverse(A)
  tester:assertTensorEq(inv, D{ { 0.6, -0.7 }, { -0.2, 0.4 } }, 1e-12)
  tester:assertTensorEq(torch.mm(A, inv), eye(2), 1e-12)
  tester:assertTensorEq(A:inverse(), inv, 1e-12)
  local res = D()
  tester:assert(torch.inverse(res, A) == res)
  tester:assertTensorEq(res, inv, 1e-12)
  res:zero():inverse(A)
  tester:assertTensorEq(res, inv, 1e-12)
  tester:assertTensorEq(torch.inverse(A:t()), inv:t(), 1e-12)
  tester:assertTensorEq(torch.inverse(A:float()), inv:float(), 1e-6)
  tester:assertErrorPattern(function() torch.inverse(D{ { 1, 2 }, { 2, 4 } }) end, '%[inverse%] A is singular')
  tester:assertErrorPattern(function() torch.inverse(D(3)) end, '%[inverse%] A must be 2D, got size 3')
end

function tests.potrfPotrs()
  local A = D{ { 4, 2 }, { 2, 3 } }
  local U = torch.potrf(A)
  tester:assertTensorEq(U, D{ { 2, 1 }, { 0, math.sqrt(2) } }, 1e-12)
  tester:assertTensorEq(torch.mm(U:t(), U), A, 1e-12)
  local L = torch.potrf(A, 'L')
  tester:assertTensorEq(L, U:t(), 1e-12)
  tester:assertTensorEq(A:potrf('U'), U, 1e-12)
  local res = D()
  torch.potrf(res, A, 'L')
  tester:assertTensorEq(res, L, 1e-12)
  local B = D{ { 1, 0 }, { 2, 1 } }
  local X = torch.potrs(B, U)
  tester:assertTensorEq(torch.mm(A, X), B, 1e-12)
  tester:assertTensorEq(torch.potrs(B, L, 'L'), X, 1e-12)
  local r2 = D()
  torch.potrs(r2, B, U, 'U')
  tester:assertTensorEq(r2, X, 1e-12)
  tester:assertErrorPattern(function() torch.potrf(D{ { 1, 2 }, { 2, 1 } }) end,
    '%[potrf%] A is not positive definite: its leading minor of order 2 is not positive')
  tester:assertErrorPattern(function() torch.potrf(A, 'X') end, "%[potrf%] uplo must be 'U' or 'L', got 'X'")
end

function tests.symeig()
  local A = D{ { 2, 1 }, { 1, 2 } }
  local e, V = torch.symeig(A)
  tester:assertTensorEq(e, D{ 1, 3 }, 1e-12)
  tester:asserteq(V:nElement(), 0)  -- 'N' (the default): eigenvalues only
  e, V = torch.symeig(A, 'V')
  tester:assertTensorEq(torch.mm(A, V), torch.cmul(V, e:view(1, 2)), 1e-12)
  tester:assertTensorEq(torch.mm(V:t(), V), eye(2), 1e-12)
  tester:assertalmosteq(math.abs(V[1][2]), math.sqrt(0.5), 1e-12)  -- eigenvector of 3: (1, 1)/sqrt(2)
  local Au = D{ { 2, 1 }, { 99, 2 } }  -- 'U' reads only the upper triangle
  tester:assertTensorEq(torch.symeig(Au, 'V', 'U'), e, 1e-12)
  tester:assertTensorEq(torch.symeig(Au:t(), 'L'), e, 1e-12)
  local re, rv = D(), D()
  local e2, v2 = torch.symeig(re, rv, A, 'V')
  tester:assert(e2 == re and v2 == rv)
  tester:assertTensorEq(rv, V, 1e-12)
  tester:assertTensorEq(A:symeig(), e, 1e-12)
  tester:assertErrorPattern(function() torch.symeig(A, 'X') end, "%[symeig%] jobz must be 'N' or 'V', got 'X'")
end

function tests.svd()
  local A = D{ { 3, 0 }, { 0, -2 }, { 0, 0 } }
  local U, S, V = torch.svd(A)
  tester:assertTensorEq(S, D{ 3, 2 }, 1e-12)
  tester:eq(U:size():totable(), { 3, 2 })
  tester:eq(V:size():totable(), { 2, 2 })
  tester:assertTensorEq(svd_product(U, S, V), A, 1e-12)
  local Ua, Sa, Va = torch.svd(A, 'A')
  tester:eq(Ua:size():totable(), { 3, 3 })
  tester:assertTensorEq(torch.mm(Ua:t(), Ua), eye(3), 1e-12)
  tester:assertTensorEq(svd_product(Ua, Sa, Va), A, 1e-12)
  local i = 0
  local B = D(4, 6):apply(function() i = i + 1 return math.sin(i * 1.3) end)
  local u, s, v = B:svd()
  tester:assertTensorEq(svd_product(u, s, v), B, 1e-10)
  tester:assert(s[1] >= s[2] and s[2] >= s[3] and s[3] >= s[4])
  local ru, rs, rv = torch.FloatTensor(), torch.FloatTensor(), torch.FloatTensor()
  torch.svd(ru, rs, rv, B:float())
  tester:assertTensorEq(svd_product(ru, rs, rv), B:float(), 1e-5)
  tester:assertErrorPattern(function() torch.svd(A, 'X') end, "%[svd%] jobu must be 'S' or 'A', got 'X'")
  tester:assertErrorPattern(function() torch.svd(D(), D(), A) end, '%[svd%] expected')
  tester:assertErrorPattern(function() torch.svd(A, 'S', 'x') end, '%[svd%] expected .*; got an extra argument string')
end

function tests.qr()
  local A = D{ { 3, 1 }, { 4, 2 } }
  local Q, R = torch.qr(A)
  tester:assertTensorEq(torch.mm(Q, R), A, 1e-12)
  tester:assertTensorEq(torch.mm(Q:t(), Q), eye(2), 1e-12)
  tester:asserteq(R[2][1], 0)
  tester:assertalmosteq(math.abs(R[1][1]), 5, 1e-12)  -- |first column| = 5
  local W = D{ { 1, 2, 3 }, { 4, 5, 6 } }  -- wide: Q 2x2, R 2x3
  local q, r = W:qr()
  tester:eq(r:size():totable(), { 2, 3 })
  tester:assertTensorEq(torch.mm(q, r), W, 1e-12)
  local T = W:t()  -- tall, non-contiguous: Q 3x2
  local qt, rt = torch.qr(T)
  tester:eq(qt:size():totable(), { 3, 2 })
  tester:assertTensorEq(torch.mm(qt, rt), T, 1e-12)
  local rq, rr = D(), D()
  torch.qr(rq, rr, A)
  tester:assertTensorEq(rq, Q, 1e-12)
  tester:assertTensorEq(rr, R, 1e-12)
  tester:assertErrorPattern(function() torch.qr(torch.LongTensor(2, 2)) end,
    '%[qr%] A must be a torch.FloatTensor or torch.DoubleTensor')
end

tester:add(tests)
tester:run()
