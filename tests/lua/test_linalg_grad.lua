-- Gradients of torch.linalg (core/autograd/formulas/linalg_decomp.cpp and the composites):
-- gradchecks in f64 on well-conditioned inputs (distinct eigenvalues and singular values), each
-- output alone and together, single matrices and batches, wide and tall shapes, second order;
-- symmetric inputs go through A -> (A + A^T) / 2 since eigh and cholesky read one triangle.
local tester = torch.Tester()
local tests = torch.TestSuite()
local gc, ggc = torch.autograd.gradcheck, torch.autograd.gradgradcheck
local L = torch.linalg

local function rnd(seed, ...)
  torch.manualSeed(seed)
  return torch.randn(...):double()
end
local function req(x) return x:requiresGrad() end
local function sym(x) return (x + x:transpose(x:dim() - 1, x:dim())) * 0.5 end
-- A well-conditioned SPD matrix (batch) from a random one.
local function spd(seed, ...)
  local a = rnd(seed, ...)
  local n = a:size(a:dim())
  return torch.matmul(a, a:transpose(a:dim() - 1, a:dim())) + torch.eye(n):double() * n
end
local function check(name, f, inputs)
  local ok, err = pcall(gc, f, inputs)
  tester:assert(ok and err, name .. ': ' .. tostring(err))
end

function tests.cholesky()
  for _, a in ipairs({ req(spd(1, 3, 3)), req(spd(2, 2, 3, 3)) }) do
    check('cholesky', function(x) return L.cholesky(sym(x)) end, { a })
    check('cholesky upper', function(x) return L.cholesky(sym(x), true) end, { a })
  end
  check('torch.cholesky', function(x) return torch.cholesky(sym(x)) end, { req(spd(3, 4, 4)) })
  local ok, err = pcall(ggc, function(x) return L.cholesky(sym(x)) end, { req(spd(4, 3, 3)) })
  tester:assert(ok and err, 'cholesky second order: ' .. tostring(err))
end

function tests.eigh()
  -- distinct eigenvalues: a random symmetric matrix plus a spread diagonal
  local a = req(sym(rnd(5, 4, 4)) + torch.diag(torch.DoubleTensor({ 1, 2, 3, 4 })))
  local b = req(sym(rnd(6, 2, 3, 3)) + torch.diag(torch.DoubleTensor({ -2, 0, 2 })):view(1, 3, 3):expand(2, 3, 3))
  for _, x in ipairs({ a, b }) do
    check('eigh values', function(m) return (L.eigh(sym(m))) end, { x })
    check('eigh vectors', function(m) return select(2, L.eigh(sym(m))) end, { x })
    check('eigh both', function(m) return L.eigh(sym(m)) end, { x })
    check('eigh upper', function(m) return L.eigh(sym(m), 'U') end, { x })
    check('eigvalsh', function(m) return L.eigvalsh(sym(m)) end, { x })
  end
end

function tests.svd()
  for _, shape in ipairs({ { 3, 3 }, { 4, 2 }, { 2, 4 }, { 2, 3, 2 }, { 2, 2, 3 } }) do
    local a = req(rnd(7, unpack(shape)))
    local name = 'svd ' .. table.concat(shape, 'x')
    check(name, function(x) return L.svd(x, false) end, { a })
    check(name .. ' U', function(x) local u = L.svd(x, false) return u end, { a })
    check(name .. ' S', function(x) return select(2, L.svd(x, false)) end, { a })
    check(name .. ' Vh', function(x) return select(3, L.svd(x, false)) end, { a })
    check(name .. ' svdvals', L.svdvals, { a })
  end
  -- full matrices: the gradient of the first k columns (a square A has nothing else)
  check('svd full, square', function(x) return L.svd(x, true) end, { req(rnd(8, 3, 3)) })
  check('svd full, S', function(x) return select(2, L.svd(x, true)) end, { req(rnd(8, 4, 3)) })
end

function tests.qr()
  for _, shape in ipairs({ { 3, 3 }, { 4, 2 }, { 2, 4 }, { 2, 4, 3 }, { 2, 2, 3 } }) do
    local a = req(rnd(9, unpack(shape)))
    local name = 'qr ' .. table.concat(shape, 'x')
    check(name, function(x) return L.qr(x) end, { a })
    check(name .. ' Q', function(x) return (L.qr(x)) end, { a })
    check(name .. ' R', function(x) return select(2, L.qr(x)) end, { a })
    check(name .. " mode 'r'", function(x) return select(2, L.qr(x, 'r')) end, { a })
  end
  check("qr 'complete', square", function(x) return L.qr(x, 'complete') end, { req(rnd(10, 3, 3)) })
  local ok, err = pcall(function()
    local a = req(rnd(10, 4, 2))
    L.qr(a, 'complete'):sum():backward()
  end)
  tester:assert(not ok and tostring(err):find('complete', 1, true), 'complete tall qr has no derivative')
end

function tests.solversAndComposites()
  local a = req(rnd(11, 3, 3) + torch.eye(3):double() * 3)
  local b = req(rnd(12, 3, 2))
  local ab = req(rnd(13, 2, 3, 3) + torch.eye(3):double():view(1, 3, 3):expand(2, 3, 3) * 3)
  check('inv', L.inv, { a })
  check('inv batch', L.inv, { ab })
  check('solve', L.solve, { a, b })
  check('solve batch, broadcast B', L.solve, { ab, b })
  check('solve batch of vectors', L.solve, { ab, req(rnd(14, 2, 3)) })
  check('matrixExp', L.matrixExp, { req(rnd(15, 3, 3)) })
  check('matrixExp batch, large norm', L.matrixExp, { req(rnd(16, 2, 3, 3) * 2) })
  -- matrices of different norms: each is scaled and squared its own number of times
  local spread = rnd(35, 2, 3, 3)
  spread[1]:mul(8)
  spread[2]:mul(0.1)
  check('matrixExp batch, different norms', L.matrixExp, { req(spread) })
  check('matrixPower 3', function(x) return L.matrixPower(x, 3) end, { a })
  check('matrixPower -2', function(x) return L.matrixPower(x, -2) end, { a })
  check('pinv tall', L.pinv, { req(rnd(17, 4, 2)) })
  check('pinv wide batch', L.pinv, { req(rnd(18, 2, 2, 3)) })
  check('lstsq', function(x, y) return (L.lstsq(x, y)) end, { req(rnd(19, 5, 3)), req(rnd(20, 5, 2)) })
  check('solveTriangular', function(x, y) return L.solveTriangular(x, y, { upper = true }) end, { a, b })
  check('solveTriangular right, unit', function(x, y)
    return L.solveTriangular(x, y, { upper = false, left = false, unitriangular = true })
  end, { a, req(rnd(21, 2, 3)) })
  check('choleskySolve', function(x, y) return torch.choleskySolve(y, L.cholesky(sym(x))) end, { req(spd(22, 3, 3)), b })
  check('matrixNorm nuc', function(x) return L.matrixNorm(x, 'nuc') end, { req(rnd(23, 3, 4)) })
  check('matrixNorm 2', function(x) return L.matrixNorm(x, 2) end, { req(rnd(24, 3, 4)) })
  check('matrixNorm fro', function(x) return L.matrixNorm(x) end, { req(rnd(25, 2, 3, 4)) })
  check('vectorNorm 3', function(x) return L.vectorNorm(x, 3, 2) end, { req(rnd(26, 3, 4)) })
  check('cond', L.cond, { req(rnd(27, 3, 3)) })
  -- norms at zero: gradient 0 there, as in PyTorch (sqrt and pow of a sum gave NaN)
  for _, case in ipairs({ { 2 }, { 3 }, { 2, { 1, 3 } }, { 2.5, { 1, 2, 3 } } }) do
    local z = req(torch.zeros(2, 3, 2):double())
    L.vectorNorm(z, case[1], case[2]):sum():backward()
    tester:assertTensorEq(z.grad, torch.zeros(2, 3, 2):double(), 0, 'vectorNorm gradient at 0, ord ' .. case[1])
  end
  local zm = req(torch.zeros(2, 2):double())
  L.matrixNorm(zm):backward()
  tester:assertTensorEq(zm.grad, torch.zeros(2, 2):double(), 0, 'fro norm gradient at 0')
  check('vectorNorm 2 over two dims', function(x) return L.vectorNorm(x, 2, { 1, 3 }, true) end, { req(rnd(36, 2, 3, 4)) })
  check('vander', L.vander, { req(rnd(28, 4)) })
  check('lu L and U', function(x) return select(2, L.lu(x)) end, { a })
  check('lu batch', function(x) local _, l, u = L.lu(x) return l, u end, { ab })
  check('lu U only', function(x) return select(3, L.lu(x)) end, { req(rnd(34, 4, 4)) })
  -- rectangular (PyTorch's wide and tall formulas), both factors and each alone
  for _, sz in ipairs({ { 3, 5 }, { 5, 3 }, { 2, 3, 4 }, { 2, 4, 2 } }) do
    local x = req(rnd(37, unpack(sz)))
    local tag = table.concat(sz, 'x')
    check('lu ' .. tag, function(y) local _, l, u = L.lu(y) return l, u end, { x })
    check('lu L only ' .. tag, function(y) return select(2, L.lu(y)) end, { x })
    check('lu U only ' .. tag, function(y) return select(3, L.lu(y)) end, { x })
  end
  check('kron', torch.kron, { req(rnd(29, 2, 3)), req(rnd(30, 2, 2)) })
  check('blockDiag', function(x, y) return torch.blockDiag(x, y) end, { req(rnd(31, 2, 3)), req(rnd(32, 1, 2)) })
end

-- Second order: the formulas are written with recorded ops, so they differentiate again.
function tests.secondOrder()
  local function gg(name, f, inputs)
    local ok, err = pcall(ggc, f, inputs)
    tester:assert(ok and err, name .. ' second order: ' .. tostring(err))
  end
  local a = req(sym(rnd(40, 3, 3)) + torch.diag(torch.DoubleTensor({ 1, 2, 3 })))
  gg('eigh', function(x) return L.eigh(sym(x)) end, { a })
  gg('svd', function(x) return L.svd(x, false) end, { req(rnd(41, 3, 2)) })
  gg('qr', function(x) return L.qr(x) end, { req(rnd(42, 3, 2)) })
  gg('lu', function(x) local _, l, u = L.lu(x) return l, u end, { req(rnd(43, 3, 3) + torch.eye(3):double() * 3) })
  gg('lu wide', function(x) local _, l, u = L.lu(x) return l, u end, { req(rnd(45, 2, 3)) })
  gg('lu tall', function(x) local _, l, u = L.lu(x) return l, u end, { req(rnd(46, 3, 2)) })
  gg('matrixExp', L.matrixExp, { req(rnd(44, 2, 2)) })
end

tester:add(tests)
tester:run()
