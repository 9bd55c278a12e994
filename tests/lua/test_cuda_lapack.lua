-- LAPACK on CUDA (cuSOLVER, issue 9): every op of the LAPACK family (gesv, gels, inverse, potrf,
-- potrs, trtrs, symeig, svd, qr, geqrf, orgqr, ormqr; eig and pstrf on the host; btrifact) on
-- torch.CudaTensor and torch.CudaDoubleTensor against the CPU result, with tolerances per dtype.
-- Solutions, inverses and Cholesky factors are unique and compared directly; decompositions whose
-- factors are unique only up to signs are compared through their
-- reconstructions (and |R|, singular values, eigenvalues). Numerical failures must raise the CPU's
-- errors; results stay on the device; gesv and inverse differentiate on the device.
-- Registered as cuda.lapack: without a GPU it prints "SKIPPED: no CUDA device" (ctest reports it
-- skipped). TOCHA_CUDA_LAPACK_DRYRUN=1 without a GPU runs it against CPU copies (lua.cuda_lapack_dryrun),
-- which checks the suite itself on machines that cannot run it.
local tester = torch.Tester()
local unpack = table.unpack or unpack
local tests = torch.TestSuite()

local dry = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/cuda_gate.lua')(
  'TOCHA_CUDA_LAPACK_DRYRUN', 'cuda.lapack', 'CPU copies')
if dry == nil then return end

local types = {
  { cpu = 'torch.FloatTensor', cuda = 'torch.CudaTensor', tol = 2e-3 },
  { cpu = 'torch.DoubleTensor', cuda = 'torch.CudaDoubleTensor', tol = 1e-9 },
}

-- t on the device (same dtype), and back on the CPU.
local function dev(t) return dry and t:clone() or t:to('cuda') end
local function host(t) return dry and t or t:to('cpu') end

-- Largest |a - b| relative to max(1, |a|), with a and b as CPU tensors of the same size.
local function max_err(a, b)
  a, b = host(a):double(), host(b):double()
  if a:nElement() ~= b:nElement() then return math.huge end
  if a:nElement() == 0 then return 0 end
  a, b = a:contiguous():view(-1), b:contiguous():view(-1)
  return (a - b):abs():cdiv(a:clone():abs():cmax(1)):max()
end

local function close(what, a, b, tol)
  local e = max_err(a, b)
  tester:assert(e <= tol, string.format('%s: error %g (tolerance %g)', what, e, tol))
end

-- The result is on the device with the input's type.
local function on_device(what, t, ty)
  if dry then return end
  tester:asserteq(torch.type(t), ty.cuda, what .. ' stays on the device')
end

local function randn(ty, ...) return torch.randn(...):type(ty.cpu) end
-- A well-conditioned n x n matrix; spd: symmetric positive definite.
local function square(ty, n, spd)
  local a = torch.randn(n, n)
  if spd then return (a * a:t() + torch.eye(n) * n):type(ty.cpu) end
  return (a + torch.eye(n) * n):type(ty.cpu)
end
local function eye(ty, n) return torch.eye(n):type(ty.cpu) end

local function each_type(f)
  torch.manualSeed(7)
  for _, ty in ipairs(types) do f(ty, ty.cpu:match('torch%.(%a+)Tensor') .. ' ') end
end

function tests.gesv()
  each_type(function(ty, name)
    for _, shape in ipairs({ { 5, 3 }, { 7 }, { 1, 1 } }) do
      local n = shape[1]
      local A, B = square(ty, n), randn(ty, unpack(shape))
      local x, lu = torch.gesv(B, A)
      local xg, lug = torch.gesv(dev(B), dev(A))
      on_device(name .. 'gesv X', xg, ty)
      close(name .. 'gesv X ' .. n, x, xg, ty.tol)
      -- square() has n + N(0,1) on its diagonal and N(0,1) elsewhere: partial pivoting swaps no
      -- rows on either device (the LU factors are then unique), so they are compared directly.
      close(name .. 'gesv LU ' .. n, lu, lug, ty.tol)
    end
    local A, B = square(ty, 4), randn(ty, 4, 2)
    local rb, ra = dev(torch.Tensor():type(ty.cpu)), dev(torch.Tensor():type(ty.cpu))
    torch.gesv(rb, ra, dev(B), dev(A))
    close(name .. 'gesv into result tensors', torch.gesv(B, A), rb, ty.tol)
    local xm = dev(B):gesv(dev(A))  -- the method form: B:gesv(A)
    close(name .. 'B:gesv(A)', torch.gesv(B, A), xm, ty.tol)
    local singular = torch.Tensor({ { 1, 2 }, { 2, 4 } }):type(ty.cpu)
    tester:assertErrorPattern(function() torch.gesv(dev(B:narrow(1, 1, 2)), dev(singular)) end,
      '%[gesv%] A is singular')
  end)
end

-- The triangular solve (trtrs: cuBLAS trsm after a diagonal check) in its four forms, batched.
function tests.trtrs()
  each_type(function(ty, name)
    local A = torch.triu(square(ty, 6)) + torch.tril(randn(ty, 6, 6), -1)  -- junk in the unread triangle
    local B = randn(ty, 6, 3)
    for _, f in ipairs({ { 'U', 'N', 'N' }, { 'L', 'N', 'N' }, { 'U', 'T', 'N' }, { 'L', 'T', 'U' } }) do
      local x = torch.trtrs(B, A, unpack(f))
      local xg = torch.trtrs(dev(B), dev(A), unpack(f))
      on_device(name .. 'trtrs', xg, ty)
      close(name .. 'trtrs ' .. table.concat(f), x, xg, ty.tol * 10)
    end
    local Ab = torch.triu(torch.randn(4, 5, 5):type(ty.cpu)) + torch.eye(5):type(ty.cpu):view(1, 5, 5):expand(4, 5, 5) * 5
    local Bb = randn(ty, 4, 2, 5)
    local opts = { upper = true, left = false }
    close(name .. 'solveTriangular batch, right', torch.linalg.solveTriangular(Ab, Bb, opts),
      torch.linalg.solveTriangular(dev(Ab), dev(Bb), opts), ty.tol * 10)
    local singular = torch.Tensor({ { 1, 2 }, { 0, 0 } }):type(ty.cpu)
    tester:assertErrorPattern(function() torch.trtrs(dev(B:narrow(1, 1, 2)), dev(singular)) end,
      'A is singular: its diagonal element %(2,2%) is zero')
    -- a unit diagonal is not read
    close(name .. 'trtrs unit', torch.trtrs(B:narrow(1, 1, 2), singular, 'U', 'N', 'U'),
      torch.trtrs(dev(B:narrow(1, 1, 2)), dev(singular), 'U', 'N', 'U'), ty.tol)
  end)
end

function tests.gels()
  each_type(function(ty, name)
    -- Least squares (m > n): the first n rows are X; the others carry the residual (their
    -- column norms are sign-free); the factors' R is unique up to row signs.
    local A, B = randn(ty, 7, 4), randn(ty, 7, 2)
    local x, f = torch.gels(B, A)
    local xg, fg = torch.gels(dev(B), dev(A))
    on_device(name .. 'gels X', xg, ty)
    close(name .. 'gels X (m > n)', x:narrow(1, 1, 4), host(xg):narrow(1, 1, 4), ty.tol)
    close(name .. 'gels residual (m > n)', x:narrow(1, 5, 3):norm(2, 1), host(xg):narrow(1, 5, 3):norm(2, 1), ty.tol)
    close(name .. 'gels |R| (m > n)', torch.triu(f:narrow(1, 1, 4)):abs(), torch.triu(host(fg):narrow(1, 1, 4)):abs(),
      ty.tol)
    -- Least norm (m < n): X has n rows; the factors' L is unique up to column signs.
    A, B = randn(ty, 3, 6), randn(ty, 3, 2)
    x, f = torch.gels(B, A)
    xg, fg = torch.gels(dev(B), dev(A))
    close(name .. 'gels X (m < n)', x, xg, ty.tol)
    close(name .. 'gels |L| (m < n)', torch.tril(f:narrow(2, 1, 3)):abs(), torch.tril(host(fg):narrow(2, 1, 3)):abs(),
      ty.tol)
    -- Square, and a vector right-hand side.
    A, B = square(ty, 5), randn(ty, 5)
    close(name .. 'gels square', (torch.gels(B, A)), (torch.gels(dev(B), dev(A))), ty.tol)
    local one = function(t) return torch.Tensor(t):type(ty.cpu) end
    tester:assertErrorPattern(function() torch.gels(dev(one({ { 1 }, { 1 } })), dev(one({ { 1, 0 }, { 0, 0 } }))) end,
      '%[gels%] A does not have full rank')
    local wide = one({ { 1, 0, 0 }, { 0, 0, 0 } })
    tester:assertErrorPattern(function() torch.gels(dev(one({ { 1 }, { 1 } })), dev(wide)) end,
      '%[gels%] A does not have full rank')
  end)
end

function tests.inverse()
  each_type(function(ty, name)
    for _, n in ipairs({ 1, 6, 33 }) do
      local A = square(ty, n)
      local inv, invg = torch.inverse(A), torch.inverse(dev(A))
      on_device(name .. 'inverse', invg, ty)
      close(name .. 'inverse ' .. n, inv, invg, ty.tol)
      close(name .. 'A inverse(A) = I ' .. n, eye(ty, n), host(dev(A) * invg), ty.tol * 10)
    end
    local r = dev(torch.Tensor():type(ty.cpu))
    local A = square(ty, 3)
    r:inverse(dev(A))
    close(name .. 'res:inverse(A)', torch.inverse(A), r, ty.tol)
    tester:assertErrorPattern(function() torch.inverse(dev(torch.Tensor({ { 1, 2 }, { 2, 4 } }):type(ty.cpu))) end,
      '%[inverse%] A is singular')
  end)
end

function tests.potrfPotrs()
  each_type(function(ty, name)
    local A, B = square(ty, 6, true), randn(ty, 6, 3)
    for _, uplo in ipairs({ 'U', 'L' }) do
      local c, cg = torch.potrf(A, uplo), torch.potrf(dev(A), uplo)
      on_device(name .. 'potrf', cg, ty)
      -- The Cholesky factor is unique (positive diagonal); the other triangle is zero on both.
      close(name .. 'potrf ' .. uplo, c, cg, ty.tol)
      local x, xg = torch.potrs(B, c, uplo), torch.potrs(dev(B), cg, uplo)
      on_device(name .. 'potrs', xg, ty)
      close(name .. 'potrs ' .. uplo, x, xg, ty.tol)
      close(name .. 'potrs vector ' .. uplo, torch.potrs(B:select(2, 1), c, uplo),
        torch.potrs(dev(B:select(2, 1)), cg, uplo), ty.tol)
    end
    -- Only the named triangle is read: garbage in the other one changes nothing.
    local junk = A:clone()
    junk:narrow(1, 4, 3):narrow(2, 1, 3):fill(1e3)
    close(name .. 'potrf reads its triangle', torch.potrf(A, 'U'), torch.potrf(dev(junk), 'U'), ty.tol)
    tester:assertErrorPattern(function() torch.potrf(dev(torch.Tensor({ { 1, 2 }, { 2, 1 } }):type(ty.cpu))) end,
      '%[potrf%] A is not positive definite')
  end)
end

function tests.symeig()
  each_type(function(ty, name)
    local a = randn(ty, 7, 7)
    local A = a + a:t()
    local e = torch.symeig(A)
    for _, uplo in ipairs({ 'U', 'L' }) do
      local eg, vg = torch.symeig(dev(A), 'V', uplo)
      on_device(name .. 'symeig values', eg, ty)
      close(name .. 'symeig values ' .. uplo, e, eg, ty.tol)
      local v, ev = host(vg), host(eg)
      close(name .. 'V diag(e) V^T = A ' .. uplo, A, v * torch.diag(ev) * v:t(), ty.tol * 10)
      close(name .. 'V^T V = I ' .. uplo, eye(ty, 7), v:t() * v, ty.tol * 10)
    end
    local en, vn = torch.symeig(dev(A), 'N')
    close(name .. "symeig 'N'", e, en, ty.tol)
    tester:asserteq(vn:nElement(), 0, name .. "symeig 'N' gives no vectors")
  end)
end

function tests.svd()
  each_type(function(ty, name)
    for _, shape in ipairs({ { 6, 4 }, { 3, 5 }, { 4, 4 } }) do
      local m, n = shape[1], shape[2]
      local k = math.min(m, n)
      local A = randn(ty, m, n)
      local _, s = torch.svd(A)
      for _, job in ipairs({ 'S', 'A' }) do
        local what = string.format('%ssvd %dx%d %s ', name, m, n, job)
        local ug, sg, vg = torch.svd(dev(A), job)
        on_device(what .. 'S', sg, ty)
        close(what .. 'singular values', s, sg, ty.tol)
        local u, sv, v = host(ug), host(sg), host(vg)
        tester:asserteq(u:size(2), job == 'S' and k or m, what .. 'columns of U')
        tester:asserteq(v:size(2), job == 'S' and k or n, what .. 'columns of V')
        local uk, vk = u:narrow(2, 1, k), v:narrow(2, 1, k)
        close(what .. 'U diag(S) V^T = A', A, uk * torch.diag(sv) * vk:t(), ty.tol * 10)
        close(what .. 'U^T U = I', eye(ty, u:size(2)), u:t() * u, ty.tol * 10)
        close(what .. 'V^T V = I', eye(ty, v:size(2)), v:t() * v, ty.tol * 10)
      end
    end
    local u, s, v = torch.svd(dev(randn(ty, 0, 3)), 'A')
    tester:asserteq(s:nElement(), 0, name .. 'svd of an empty matrix')
    close(name .. "svd 'A' of an empty matrix: V = I", eye(ty, 3), v, 0)
    tester:asserteq(u:nElement(), 0)
  end)
end

function tests.qr()
  each_type(function(ty, name)
    for _, shape in ipairs({ { 6, 4 }, { 3, 5 }, { 4, 4 } }) do
      local m, n = shape[1], shape[2]
      local k = math.min(m, n)
      local what = string.format('%sqr %dx%d ', name, m, n)
      local A = randn(ty, m, n)
      local _, r = torch.qr(A)
      local qg, rg = torch.qr(dev(A))
      on_device(what .. 'Q', qg, ty)
      local q, rh = host(qg), host(rg)
      close(what .. 'Q R = A', A, q * rh, ty.tol * 10)
      close(what .. 'Q^T Q = I', eye(ty, k), q:t() * q, ty.tol * 10)
      close(what .. 'R is upper triangular', torch.triu(rh), rh, 0)
      close(what .. '|R| (unique up to row signs)', r:clone():abs(), rh:clone():abs(), ty.tol)
    end
  end)
end

-- geqrf, orgqr and ormqr run cuSOLVER on the device; the reflectors match the CPU's up to signs,
-- so the results are compared through Q (|Q|, and Q C products of the device's own reflectors).
function tests.geqrfOrgqrOrmqr()
  each_type(function(ty, name)
    for _, shape in ipairs({ { 6, 4 }, { 3, 5 }, { 4, 4 } }) do
      local m, n = shape[1], shape[2]
      local k = math.min(m, n)
      local what = string.format('%sgeqrf %dx%d ', name, m, n)
      local A = randn(ty, m, n)
      local q = torch.qr(A)
      local ag, taug = torch.geqrf(dev(A))
      on_device(what .. 'A', ag, ty)
      on_device(what .. 'tau', taug, ty)
      local qg = torch.orgqr(ag, taug)
      on_device(what .. 'orgqr', qg, ty)
      close(what .. '|Q|', q:clone():abs(), host(qg):clone():abs(), ty.tol * 10)
      close(what .. 'Q R = A', A, host(qg) * torch.triu(host(ag):narrow(1, 1, k)), ty.tol * 10)
      local qfull = host(torch.ormqr(ag, taug, dev(eye(ty, m))))  -- Q I
      local CL, CR = randn(ty, m, 3), randn(ty, 3, m)
      for _, st in ipairs({ { 'L', 'N' }, { 'L', 'T' }, { 'R', 'N' }, { 'R', 'T' } }) do
        local C = st[1] == 'L' and CL or CR
        local Q = st[2] == 'T' and qfull:t() or qfull
        local want = st[1] == 'L' and Q * C or C * Q
        local got = torch.ormqr(ag, taug, dev(C), st[1], st[2])
        on_device(what .. 'ormqr', got, ty)
        close(what .. 'ormqr ' .. st[1] .. st[2], want, got, ty.tol * 10)
      end
    end
  end)
end

-- eig and pstrf compute on the host for CUDA tensors (Note [Host LAPACK for CUDA tensors]): the
-- results must equal the CPU's and come back on the device.
function tests.eigPstrfOnTheHost()
  each_type(function(ty, name)
    local A = randn(ty, 5, 5)
    local e, v = torch.eig(A, 'V')
    local eg, vg = torch.eig(dev(A), 'V')
    on_device(name .. 'eig values', eg, ty)
    on_device(name .. 'eig vectors', vg, ty)
    close(name .. 'eig values', e, eg, ty.tol)
    close(name .. 'eig vectors', v, vg, ty.tol)
    local X = randn(ty, 6, 3)
    local S = X * X:t()  -- rank 3
    local u, piv = torch.pstrf(S)
    local ug, pivg = torch.pstrf(dev(S))
    on_device(name .. 'pstrf factor', ug, ty)
    close(name .. 'pstrf factor', u, ug, ty.tol)
    tester:eq(piv:totable(), host(pivg):totable(), name .. 'pstrf pivots')
  end)
end

-- btrifact / btrisolve (torch.linalg.luFactor / luSolve) against gesv on the device.
function tests.btrifactBtrisolve()
  each_type(function(ty, name)
    local A, b = randn(ty, 3, 4, 4), randn(ty, 3, 4)
    for i = 1, 3 do A[i]:add(eye(ty, 4) * 4) end
    local lug, pivg = torch.btrifact(dev(A))
    on_device(name .. 'btrifact', lug, ty)
    local xg = torch.btrisolve(dev(b), lug, pivg)
    on_device(name .. 'btrisolve', xg, ty)
    for i = 1, 3 do close(name .. 'btrisolve ' .. i, torch.gesv(b[i]:view(4, 1), A[i]):view(4), host(xg)[i], ty.tol) end
  end)
end

-- gesv and inverse record autograd nodes on the device too.
function tests.gradientsOnTheDevice()
  each_type(function(ty, name)
    local A, B = square(ty, 4), randn(ty, 4, 2)
    local function grads(d)
      local a, b = d(A):requiresGrad(), d(B):requiresGrad()
      local x = torch.gesv(b, a)
      local loss = torch.sum(x) + torch.sum(torch.inverse(a))
      loss:backward()
      return a.grad, b.grad
    end
    local ga, gb = grads(function(t) return t:clone() end)
    local gag, gbg = grads(dev)
    close(name .. 'd/dA of gesv + inverse', ga, gag, ty.tol * 10)
    close(name .. 'd/dB of gesv', gb, gbg, ty.tol * 10)
  end)
end

function tests.badInputs()
  if dry then return end
  local A = torch.randn(3, 3):cuda()
  tester:assertErrorPattern(function() torch.gesv(torch.randn(3, 1), A) end, '%[gesv%]')
  tester:assertErrorPattern(function() torch.inverse(torch.randn(3, 3):to('cuda', 'torch.HalfTensor')) end,
    '%[inverse%] A must be a torch.FloatTensor or torch.DoubleTensor')
end

tester:add(tests)
tester:run()
