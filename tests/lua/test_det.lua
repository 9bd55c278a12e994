-- torch.det, logdet and slogdet: triangular matrices (the product of the diagonal), permutation
-- matrices (their sign), 2x2 and 3x3 closed forms, random matrices against a hand LU in Lua and
-- det(A) det(inv(A)) = 1, singular matrices, batches against a loop, gradchecks in f64 (1x1,
-- 3x3, a batch, second order, the adjugate at a singular matrix), errors, CUDA against the CPU.
local tester = torch.Tester()
local tests = torch.TestSuite()
local D = torch.DoubleTensor
local inf = math.huge

local function close(a, b, tol, msg)
  local ok = a == b or math.abs(a - b) <= tol * math.max(1, math.abs(b))
  tester:assert(ok, string.format('%s: got %.17g, expected %.17g', msg or '', a, b))
end

-- det by a hand LU with partial pivoting (Doolittle) on a Lua table copy of the matrix.
local function lu_det(m)
  local n = #m
  local a = {}
  for i = 1, n do a[i] = {} for j = 1, n do a[i][j] = m[i][j] end end
  local sign, logabs = 1, 0
  for k = 1, n do
    local p = k
    for i = k + 1, n do if math.abs(a[i][k]) > math.abs(a[p][k]) then p = i end end
    if a[p][k] == 0 then return 0, 0, -inf end
    if p ~= k then a[p], a[k] = a[k], a[p]; sign = -sign end
    for i = k + 1, n do
      local f = a[i][k] / a[k][k]
      for j = k, n do a[i][j] = a[i][j] - f * a[k][j] end
    end
  end
  local prod = sign
  for k = 1, n do
    prod = prod * a[k][k]
    logabs = logabs + math.log(math.abs(a[k][k]))
    if a[k][k] < 0 then sign = -sign end
  end
  return prod, sign, logabs
end

local function randmat(n, seed)
  torch.manualSeed(seed)
  return torch.randn(n, n):double()
end

function tests.triangular()
  for _, tname in ipairs({ 'torch.FloatTensor', 'torch.DoubleTensor' }) do
    local u = torch.Tensor({ { 2, 5, -1, 3 }, { 0, -3, 4, 1 }, { 0, 0, 0.5, 7 }, { 0, 0, 0, 4 } }):type(tname)
    close(torch.det(u), 2 * -3 * 0.5 * 4, 1e-6, 'upper ' .. tname)
    close(torch.det(u:t()), -12, 1e-6, 'lower ' .. tname)
    close(torch.det(torch.eye(5):type(tname)), 1, 0, 'identity')
    close(torch.det(torch.diag(torch.Tensor({ 1, 2, 3, 4, 5 }):type(tname))), 120, 1e-6, 'diagonal')
  end
end

-- The sign of a permutation by counting inversions.
local function perm_sign(p)
  local s = 1
  for i = 1, #p do for j = i + 1, #p do if p[i] > p[j] then s = -s end end end
  return s
end

function tests.permutations()
  for _, p in ipairs({ { 2, 1 }, { 2, 3, 1 }, { 3, 2, 1 }, { 1, 3, 2, 4 }, { 4, 3, 2, 1 }, { 2, 1, 4, 3, 5 },
                       { 5, 1, 4, 2, 3 } }) do
    local n = #p
    local m = torch.zeros(n, n)
    for i = 1, n do m[i][p[i]] = 1 end
    tester:asserteq(torch.det(m), perm_sign(p), 'det of permutation ' .. table.concat(p, ','))
    local s, l = torch.slogdet(m:double())
    tester:asserteq(s, perm_sign(p))
    tester:asserteq(l, 0)
  end
end

function tests.closedForms()
  torch.manualSeed(7)
  for _ = 1, 20 do
    local a = torch.randn(2, 2):double()
    close(torch.det(a), a[1][1] * a[2][2] - a[1][2] * a[2][1], 1e-12, '2x2')
    local b = torch.randn(3, 3):double()
    local sarrus = b[1][1] * b[2][2] * b[3][3] + b[1][2] * b[2][3] * b[3][1] + b[1][3] * b[2][1] * b[3][2]
                 - b[1][3] * b[2][2] * b[3][1] - b[1][1] * b[2][3] * b[3][2] - b[1][2] * b[2][1] * b[3][3]
    close(torch.det(b), sarrus, 1e-12, '3x3')
    close(torch.det(b:float()), sarrus, 1e-4, '3x3 float')
  end
  close(torch.det(torch.Tensor({ { 1, 2 }, { 3, 4 } })), -2, 1e-6, 'the example')
  tester:asserteq(torch.det(torch.Tensor({ { 7 } })), 7)
  close(torch.logdet(torch.Tensor({ { 2, 0 }, { 0, 3 } })), math.log(6), 1e-6, 'logdet of a float matrix')
end

function tests.randomAgainstLU()
  for _, n in ipairs({ 4, 7, 12 }) do
    local a = randmat(n, n)
    local want, sign, logabs = lu_det(a:totable())
    close(torch.det(a), want, 1e-10, 'det ' .. n)
    local s, l = torch.slogdet(a)
    tester:asserteq(s, sign, 'slogdet sign ' .. n)
    close(l, logabs, 1e-12, 'slogdet log ' .. n)
    close(torch.det(a) * torch.det(torch.inverse(a)), 1, 1e-10, 'det(A) det(inv(A))')
    local b = randmat(n, n + 100)
    close(torch.det(a * b), torch.det(a) * torch.det(b), 1e-9, 'det(AB)')
    local ld = torch.logdet(a)
    if sign > 0 then close(ld, logabs, 1e-12, 'logdet') else tester:assert(ld ~= ld, 'logdet of a negative det is NaN') end
    close(torch.det(a:float()), want, 1e-4, 'float det ' .. n)
  end
end

function tests.singular()
  for _, tname in ipairs({ 'torch.FloatTensor', 'torch.DoubleTensor' }) do
    for _, m in ipairs({ { { 1, 2 }, { 2, 4 } }, { { 0, 0 }, { 0, 0 } }, { { 1, 2, 3 }, { 0, 0, 0 }, { 4, 5, 6 } } }) do
      local a = torch.Tensor(m):type(tname)
      tester:asserteq(torch.det(a), 0)
      local s, l = torch.slogdet(a)
      tester:asserteq(s, 0)
      tester:asserteq(l, -inf)
      tester:asserteq(torch.logdet(a), -inf)
    end
  end
  local neg = torch.logdet(torch.Tensor({ { 0, 1 }, { 1, 0 } }))
  tester:assert(neg ~= neg, 'logdet of det -1 is NaN')
end

function tests.batches()
  torch.manualSeed(3)
  local a = torch.randn(2, 3, 4, 4):double()
  local d, ld = torch.det(a), torch.logdet(a)
  local s, l = torch.slogdet(a)
  tester:asserteq(torch.type(d), 'torch.DoubleTensor')
  tester:eq(d:size():totable(), { 2, 3 })
  tester:eq(s:size():totable(), { 2, 3 })
  for i = 1, 2 do
    for j = 1, 3 do
      local m = a[i][j]
      close(d[i][j], torch.det(m), 1e-14, 'batch det')
      local ms, ml = torch.slogdet(m)
      tester:asserteq(s[i][j], ms)
      close(l[i][j], ml, 1e-14, 'batch logabsdet')
      if ms > 0 then close(ld[i][j], ml, 1e-14, 'batch logdet') else tester:assert(ld[i][j] ~= ld[i][j]) end
    end
  end
  -- a singular matrix inside a batch, a non-contiguous batch (det(A^T) = det(A)), float
  a[1][2]:zero()
  tester:asserteq(torch.det(a)[1][2], 0)
  tester:asserteq(torch.slogdet(a)[1][2], 0)
  close(torch.det(a:transpose(3, 4))[2][3], torch.det(a[2][3]), 1e-12, 'transposed batch')
  local at = a:transpose(1, 2)  -- 3 x 2 x 4 x 4, not contiguous
  close(torch.det(at)[3][1], torch.det(a[1][3]), 1e-14, 'permuted batch')
  close(torch.det(a:float())[2][1], torch.det(a[2][1]), 1e-4, 'float batch')
  -- empty batches and 0 x 0 matrices (det 1, like PyTorch)
  tester:eq(torch.det(torch.Tensor(0, 3, 3)):size():totable(), { 0 })
  tester:eq(torch.det(torch.Tensor(2, 0, 0)):totable(), { 1, 1 })
  tester:asserteq(torch.det(torch.Tensor(0, 0)), 1)
  local s0, l0 = torch.slogdet(torch.Tensor(0, 0))
  tester:asserteq(s0, 1)
  tester:asserteq(l0, 0)
  -- methods
  close(a[2][2]:det(), torch.det(a[2][2]), 0, 'method')
  local ms, ml = a[2][2]:slogdet()
  tester:asserteq(ms, torch.slogdet(a[2][2]))
  tester:asserteq(ml, select(2, torch.slogdet(a[2][2])))
end

function tests.gradients()
  local gc, ggc = torch.autograd.gradcheck, torch.autograd.gradgradcheck
  local one = D({ { 1.7 } }):requiresGrad()
  local m3 = D({ { 2, 0.5, -1 }, { 0.3, 1.5, 0.2 }, { -0.4, 0.1, 1.8 } }):requiresGrad()  -- det > 0
  torch.manualSeed(11)
  local batch = (torch.randn(2, 3, 3):double() + torch.eye(3):double():view(1, 3, 3):expand(2, 3, 3) * 3):requiresGrad()
  for _, a in ipairs({ one, m3, batch }) do
    tester:assert(gc(torch.det, { a }), 'det gradcheck')
    tester:assert(gc(torch.logdet, { a }), 'logdet gradcheck')
    tester:assert(gc(function(x) return select(2, torch.slogdet(x)) end, { a }), 'slogdet gradcheck')
  end
  local negdet = D({ { 0.2, 1.1 }, { 1.3, -0.4 } }):requiresGrad()
  tester:assert(gc(torch.det, { negdet }), 'det gradcheck, negative det')
  tester:assert(gc(function(x) return select(2, torch.slogdet(x)) end, { negdet }), 'slogdet, negative det')
  tester:assert(ggc(torch.det, { m3 }), 'det gradgradcheck')
  tester:assert(ggc(torch.logdet, { m3 }), 'logdet gradgradcheck')
  tester:assert(ggc(torch.det, { batch }), 'det gradgradcheck, batch')
  -- a matrix gives a 0-dim tensor while it requires grad, a number otherwise
  local d = torch.det(m3)
  tester:asserteq(torch.type(d), 'torch.DoubleTensor')
  tester:asserteq(d:dim(), 0)
  tester:asserteq(type(torch.noGrad(function() return torch.det(m3) end)), 'number')
  -- d det = det(A) inv(A)^T
  d:backward()
  local want = torch.inverse(m3:detach()):t() * torch.det(m3:detach())
  tester:assertTensorEq(m3.grad, want, 1e-12)
end

-- Cofactor matrix of a small matrix by hand: C[i][j] = (-1)^(i+j) det(minor(i, j)); d det = C.
local function cofactors(m)
  local n = #m
  local c = {}
  for i = 1, n do
    c[i] = {}
    for j = 1, n do
      local minor = {}
      for r = 1, n do
        if r ~= i then
          local row = {}
          for k = 1, n do if k ~= j then row[#row + 1] = m[r][k] end end
          minor[#minor + 1] = row
        end
      end
      c[i][j] = ((i + j) % 2 == 0 and 1 or -1) * (#minor == 0 and 1 or lu_det(minor))
    end
  end
  return c
end

-- No matrices, or 0 x 0 ones: det is 1 (a batch of ones) and the gradients are empty; a batch of
-- 0 x 0 matrices once failed in backward ('cannot view 0 elements as size -1x0x0').
function tests.emptyGradients()
  for _, size in ipairs({ { 2, 0, 0 }, { 0, 3, 3 }, { 0, 0 }, { 2, 0, 3, 3 } }) do
    local what = table.concat(size, 'x')
    for _, f in ipairs({ torch.det, torch.logdet, function(x) return select(2, torch.slogdet(x)) end }) do
      local a = D(unpack(size)):requiresGrad()
      f(a):sum():backward()
      tester:eq(a.grad:size():totable(), size, 'gradient of an empty ' .. what)
    end
  end
  tester:eq(torch.det(D(2, 0, 0)):totable(), { 1, 1 })
end

function tests.singularGradients()
  -- rank n - 1: the gradient of det is the cofactor matrix (the adjugate transposed), not 0
  for _, m in ipairs({ { { 1, 2 }, { 2, 4 } }, { { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 9 } },
                       { { 2, 0, 0 }, { 0, 0, 0 }, { 0, 0, 3 } } }) do
    local a = D(m):requiresGrad()
    torch.det(a):backward()
    tester:assertTensorEq(a.grad, D(cofactors(m)), 1e-9, 'det gradient at a singular matrix')
  end
  -- a batch with one singular matrix: each gets its own formula
  local b = D({ { { 1, 2 }, { 2, 4 } }, { { 2, 1 }, { 1, 3 } } }):requiresGrad()
  torch.det(b):sum():backward()
  tester:assertTensorEq(b.grad[1], D({ { 4, -2 }, { -2, 1 } }), 1e-9)
  tester:assertTensorEq(b.grad[2], D({ { 3, -1 }, { -1, 2 } }), 1e-12)
  -- log|det| has no gradient at a singular matrix: NaN there, the others are unaffected
  local c = D({ { { 1, 2 }, { 2, 4 } }, { { 2, 1 }, { 1, 3 } } }):requiresGrad()
  local _, l = torch.slogdet(c)
  l:sum():backward()
  tester:assert(c.grad[1][1][1] ~= c.grad[1][1][1], 'NaN gradient at a singular matrix')
  tester:assertTensorEq(c.grad[2], D({ { 3, -1 }, { -1, 2 } }) / 5, 1e-12)
end

function tests.errors()
  tester:assertErrorPattern(function() torch.det(torch.ones(3)) end,
    '%[det%] expected a square matrix or a batch of them %(%.%.%., n, n%), got size 3')
  tester:assertErrorPattern(function() torch.det(torch.ones(1):view({})) end, 'got a 0%-dim tensor')
  tester:assertErrorPattern(function() torch.slogdet(torch.ones(2, 3)) end,
    '%[slogdet%] A must be square in its last two dims, got size 2x3')
  tester:assertErrorPattern(function() torch.logdet(torch.ones(4, 2, 3)) end, '%[logdet%] A must be square')
  tester:assertErrorPattern(function() torch.det(torch.LongTensor(2, 2)) end,
    '%[det%] A must be a torch.FloatTensor or torch.DoubleTensor, got a torch.LongTensor')
  tester:assertErrorPattern(function() torch.det(torch.ones(2, 2):half()) end, 'got a torch.HalfTensor')
  tester:assertErrorPattern(function() torch.det({}) end, '%[det%] expected a tensor as argument 1, got table')
  tester:assertErrorPattern(function() torch.det(torch.ones(2, 2), 1) end,
    '%[det%] expected one tensor A, got an extra argument number')
end

function tests.cuda()
  if not torch.cuda.isAvailable() then
    print('SKIPPED: no CUDA device (det, logdet and slogdet against the CPU)')
    return
  end
  torch.manualSeed(5)
  for _, tname in ipairs({ 'torch.FloatTensor', 'torch.DoubleTensor' }) do
    local a = torch.randn(3, 5, 5):type(tname)
    a[2]:zero()
    local tol = tname == 'torch.FloatTensor' and 1e-4 or 1e-12
    tester:assertTensorEq(torch.det(a:cuda()):type(tname), torch.det(a), tol, 'cuda det ' .. tname)
    local s, l = torch.slogdet(a:cuda())
    local cs, cl = torch.slogdet(a)
    tester:eq(s:type(tname):totable(), cs:totable())
    tester:asserteq(l:type(tname)[2], -inf)
    close(l:type(tname)[1], cl[1], tol, 'cuda slogdet')
    close(torch.det(a[1]:cuda()), torch.det(a[1]), tol, 'cuda det of a matrix')
  end
  local g = D({ { 2, 0.5 }, { 0.3, 1.5 } }):cuda():requiresGrad()
  torch.det(g):backward()
  tester:assertTensorEq(g.grad:double(), D({ { 1.5, -0.3 }, { -0.5, 2 } }), 1e-12)
end

tester:add(tests)
tester:run()
