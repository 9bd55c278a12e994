-- torch.linalg's choleskyEx, invEx, householderProduct, tensorinv, tensorsolve, vecdot, diagonal and
-- the eig / eigvals refusals (lua/torch/linalg_more.lua, linalg_more_tensor.lua): values against
-- PyTorch 1.13's (constants below), batches, gradchecks in double, and errors.
local tester = torch.Tester()
local tests = torch.TestSuite()
torch.setdefaulttensortype('torch.DoubleTensor')
torch.manualSeed(7)
local T = torch.Tensor
local linalg = torch.linalg

local function leaf(t) return t:clone():requiresGrad() end
local function gradcheck(fn, inputs) tester:assert(torch.autograd.gradcheck(fn, inputs, { atol = 1e-6, rtol = 1e-4 })) end

function tests.choleskyExInfo()
  -- PyTorch 1.13: torch.linalg.cholesky_ex gives info [0, 2, 3] for this batch
  local A = T({ { { 4, 2, 0 }, { 2, 5, 1 }, { 0, 1, 3 } }, { { 1, 2, 0 }, { 2, 1, 0 }, { 0, 0, 1 } },
    { { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, -1 } } })
  local L, info = linalg.choleskyEx(A)
  tester:assertTableEq(info:totable(), { 0, 2, 3 })
  tester:asserteq(torch.type(info), 'torch.IntTensor')
  tester:assertTensorEq(L[1], T({ { 2, 0, 0 }, { 1, 2, 0 }, { 0, 0.5, math.sqrt(2.75) } }), 1e-12)
  -- a failed matrix holds the factor of its positive-definite leading block
  tester:assertTensorEq(L[3], T({ { 1, 0, 0 }, { 0, 1, 0 }, { 0, 0, 0 } }), 0)
  local U, infoU = linalg.choleskyEx(A, { upper = true })
  tester:assertTableEq(infoU:totable(), { 0, 2, 3 })
  tester:assertTensorEq(U[1], L[1]:t(), 1e-12)
  -- one matrix: a 0-dim info
  local L1, i1 = linalg.choleskyEx(A[1])
  tester:asserteq(i1:dim(), 0)
  tester:asserteq(i1:item(), 0)
  tester:assertTensorEq(L1 * L1:t(), A[1], 1e-12)
  local _, i2 = linalg.choleskyEx(A[2])
  tester:asserteq(i2:item(), 2)
  -- the first minor failing: info 1; a NaN pivot counts as a failure
  tester:asserteq(select(2, linalg.choleskyEx(T({ { -1, 0 }, { 0, 1 } }))):item(), 1)
  tester:asserteq(select(2, linalg.choleskyEx(T({ { 1, 0 }, { 0, 0 / 0 } }))):item(), 2)
  -- a larger random case: info is the first k whose leading minor has a non-positive determinant
  local M = torch.randn(6, 6)
  M = M * M:t() + torch.eye(6)
  M[4][4] = -50
  local _, i6 = linalg.choleskyEx(M)
  local expect = 0
  for k = 1, 6 do
    if torch.det(M:narrow(1, 1, k):narrow(2, 1, k)) <= 0 then expect = k break end
  end
  tester:asserteq(i6:item(), expect)
  tester:assertErrorPattern(function() linalg.choleskyEx(A, { checkErrors = true }) end, 'linalg.cholesky.*not positive definite')
  tester:assertErrorPattern(function() linalg.choleskyEx(torch.ones(2, 3)) end, 'linalg.choleskyEx.*square')
  tester:assertErrorPattern(function() linalg.choleskyEx(A, { lower = true }) end, "unknown option 'lower'")
end

function tests.choleskyExGrad()
  local B = torch.randn(2, 3, 3)
  local A = torch.matmul(B, B:transpose(2, 3)) + torch.eye(3):view(1, 3, 3):expand(2, 3, 3)
  gradcheck(function(a)
    local s = (a + a:transpose(2, 3)) * 0.5
    return (linalg.choleskyEx(s))
  end, { leaf(A) })
end

function tests.invExInfo()
  -- PyTorch 1.13: torch.linalg.inv_ex gives info [0, 2, 1]
  local B = T({ { { 2, 1 }, { 1, 3 } }, { { 1, 2 }, { 2, 4 } }, { { 0, 0 }, { 0, 1 } } })
  local X, info = linalg.invEx(B)
  tester:assertTableEq(info:totable(), { 0, 2, 1 })
  tester:assertTensorEq(X[1], T({ { 0.6, -0.2 }, { -0.2, 0.4 } }), 1e-12)
  tester:assert(torch.isnan(X[2]):all() and torch.isnan(X[3]):all())
  local Xi, ii = linalg.invEx(B[1])
  tester:asserteq(ii:dim(), 0)
  tester:assertTensorEq(Xi * B[1], torch.eye(2), 1e-12)
  local A = torch.randn(3, 4, 4) + torch.eye(4):view(1, 4, 4):expand(3, 4, 4) * 4
  gradcheck(function(a) return (linalg.invEx(a)) end, { leaf(A) })
  tester:assertErrorPattern(function() linalg.invEx(B, { checkErrors = true }) end, 'linalg.inv.*singular')
  tester:assertErrorPattern(function() linalg.invEx(torch.ones(2, 3)) end, 'linalg.invEx.*square')
end

function tests.householderProduct()
  local a = T({ { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 10 }, { 1, -1, 2 } })
  -- PyTorch 1.13: torch.linalg.householder_product(a, tau)
  local expect3 = T({ { 0.5, 33.4, 217.33 }, { -2.0, 133.4, 861.88 }, { -3.5, 224.2, 1462.49 }, { -0.5, 34.6, 224.17 } })
  local expect2 = T({ { 0.5, 33.4, 279.7 }, { -2.0, 133.4, 1109.2 }, { -3.5, 224.2, 1882.1 }, { -0.5, 34.6, 289.3 } })
  tester:assertTensorEq(linalg.householderProduct(a, T({ 0.5, 1.2, 0.3 })), expect3, 1e-9)
  tester:assertTensorEq(linalg.householderProduct(a, T({ 0.5, 1.2 })), expect2, 1e-9)
  -- geqrf-style reflectors with tau = 2 / (1 + ||v_below||^2) give an orthogonal Q
  local X = torch.randn(3, 5, 3)
  local low = torch.tril(X, -1)
  local tau = torch.cdiv(torch.ones(3, 3) * 2, low:pow(2):sum(2):squeeze(2) + 1)
  local Q = linalg.householderProduct(X, tau)
  for b = 1, 3 do
    tester:assertTensorEq(Q[b]:t() * Q[b], torch.eye(3), 1e-12)
    tester:assertTensorEq(Q[b], linalg.householderProduct(X[b], tau[b]), 1e-12)
  end
  gradcheck(linalg.householderProduct, { leaf(torch.randn(2, 4, 3)), leaf(torch.rand(2, 2)) })
  tester:assertErrorPattern(function() linalg.householderProduct(torch.randn(2, 3), T({ 1 })) end, 'at least as many rows')
  tester:assertErrorPattern(function() linalg.householderProduct(torch.randn(4, 2), T({ 1, 1, 1 })) end, 'more than the 2 columns')
  tester:assertErrorPattern(function() linalg.householderProduct(torch.randn(4, 2), torch.ones(2, 2)) end, 'one dim fewer')
end

-- M below, as in the PyTorch script that produced the constants
local M = T({ { 2.0, 0.5, -1.0, 0.3 }, { 0.4, 3.0, 0.2, -0.6 }, { -0.8, 0.1, 2.5, 0.7 }, { 0.3, -0.9, 0.6, 1.8 } })

function tests.tensorinv()
  -- PyTorch 1.13: torch.linalg.tensorinv(M.reshape(2, 2, 4), ind=2).reshape(-1)
  local expect = T({ 0.7776904948939514, -0.257702714497687, 0.42288557213930345, -0.3799714875912833,
    -0.1963864886095837, 0.44667015798201976, -0.17412935323383083, 0.24933810479764917,
    0.3534956794972506, -0.1928951732565244, 0.6467661691542288, -0.3747345145616944,
    -0.34564021995286726, 0.33058392249279916, -0.3731343283582089, 0.8684646940734921 })
  local X = linalg.tensorinv(M:view(2, 2, 4))
  tester:assertTableEq(X:size():totable(), { 4, 2, 2 })
  tester:assertTensorEq(X:reshape(16), expect, 1e-12)
  local X1 = linalg.tensorinv(M:view(4, 2, 2), 1)
  tester:assertTableEq(X1:size():totable(), { 2, 2, 4 })
  tester:assertTensorEq(X1:reshape(16), expect, 1e-12)
  gradcheck(function(a) return linalg.tensorinv(a, 1) end, { leaf(M:view(4, 2, 2)) })
  tester:assertErrorPattern(function() linalg.tensorinv(torch.randn(2, 3, 4)) end, 'hold 6 elements but the others hold 4')
  tester:assertErrorPattern(function() linalg.tensorinv(M, 0) end, 'ind must be a positive integer')
end

function tests.tensorsolve()
  local S4 = torch.kron(M, T({ { 1, 0.2 }, { 0.3, 1.5 } })):view(2, 4, 2, 2, 2)
  local B = torch.range(0, 7):view(2, 4) * 0.5 - 1
  -- PyTorch 1.13: torch.linalg.tensorsolve(S4, B)
  local expect = T({ -1.045460037370005, -0.3464393028360472, 0.4476834072005146, 0.3662496888526827,
    -0.4418898037428193, -0.07154367861795635, 1.5098878172490373, 0.997737312463026 })
  local x = linalg.tensorsolve(S4, B)
  tester:assertTableEq(x:size():totable(), { 2, 2, 2 })
  tester:assertTensorEq(x:reshape(8), expect, 1e-12)
  -- PyTorch 1.13: dims=(0,) on S4.permute(2, 0, 1, 3, 4) gives x.permute(1, 2, 0)
  local S5 = S4:permute(3, 1, 2, 4, 5):contiguous()
  local x2 = linalg.tensorsolve(S5, B, 1)
  tester:assertTensorEq(x2, x:permute(2, 3, 1), 1e-12)
  tester:assertTensorEq(linalg.tensorsolve(S5, B, { 1 }), x2, 0)
  gradcheck(linalg.tensorsolve, { leaf(S4), leaf(B) })
  tester:assertErrorPattern(function() linalg.tensorsolve(S4, torch.ones(4, 2)) end, "leading dims .* must be B's shape")
  tester:assertErrorPattern(function() linalg.tensorsolve(torch.ones(2, 3), torch.ones(2)) end, 'must hold as many elements')
  tester:assertErrorPattern(function() linalg.tensorsolve(S4, B, 9) end, 'dims must be between 1 and 5')
end

function tests.vecdot()
  local a = T({ { 1, 2, 3 }, { 4, 5, 6 } })
  -- PyTorch 1.13: vecdot(a, [1, 0, -1]) = [-2, -2]; vecdot(a, a, dim=0) = [17, 29, 45]
  tester:assertTensorEq(linalg.vecdot(a, T({ 1, 0, -1 })), T({ -2, -2 }), 0)
  tester:assertTensorEq(linalg.vecdot(a, a, { dim = 1 }), T({ 17, 29, 45 }), 0)
  tester:assertTensorEq(linalg.vecdot(a, a, -2), T({ 17, 29, 45 }), 0)
  tester:asserteq(linalg.vecdot(T({ 1, 2 }), T({ 3, 4 })):dim(), 0)
  gradcheck(linalg.vecdot, { leaf(torch.randn(3, 4)), leaf(torch.randn(4)) })
  tester:assertErrorPattern(function() linalg.vecdot(a, a, { dim = 3 }) end, 'dim must be between 1 and 2')
end

function tests.diagonal()
  local A = torch.randn(2, 3, 4)
  local d = linalg.diagonal(A)
  tester:assertTableEq(d:size():totable(), { 2, 3 })
  for b = 1, 2 do for i = 1, 3 do tester:asserteq(d[b][i], A[b][i][i]) end end
  local d1 = linalg.diagonal(A, { offset = 1 })
  for b = 1, 2 do for i = 1, 3 do tester:asserteq(d1[b][i], A[b][i][i + 1]) end end
  local d2 = linalg.diagonal(A, { offset = -1, dim1 = 1, dim2 = 3 })
  tester:assertTableEq(d2:size():totable(), { 3, 1 })
  tester:asserteq(d2[1][1], A[2][1][1])
  gradcheck(function(x) return linalg.diagonal(x, { offset = 1 }) end, { leaf(A) })
  tester:assertErrorPattern(function() linalg.diagonal(A, { dim1 = 2, dim2 = -2 }) end, 'must differ')
  tester:assertErrorPattern(function() linalg.diagonal(T({ 1 })) end, 'at least 2 dims')
end

function tests.eigRefuses()
  tester:assertErrorPattern(function() linalg.eig(torch.eye(2)) end, 'linalg.eig%].*complex.*eigh')
  tester:assertErrorPattern(function() linalg.eigvals(torch.eye(2)) end, 'linalg.eigvals%].*complex.*eigvalsh')
end

-- Random arguments: each call returns or raises an error naming an op (never a bare Lua error).
function tests.fuzzErrorsNameTheOp()
  torch.manualSeed(3)
  math.randomseed(3)
  local pool = { 1, -1, 0, 2.5, 'x', true, {}, { upper = true }, { dim = 5 }, { offset = 1 }, torch.ones(3, 3),
    torch.zeros(0, 3, 3), torch.LongTensor(2, 2):zero(), torch.ones(3), torch.ones(1, 1):view({}), torch.randn(2, 3, 3),
    torch.randn(4, 2, 2), torch.zeros(3, 0) }
  for _, name in ipairs({ 'choleskyEx', 'invEx', 'householderProduct', 'tensorinv', 'tensorsolve', 'vecdot', 'diagonal' }) do
    for _ = 1, 200 do
      local args = {}
      for i = 1, math.random(0, 3) do args[i] = pool[math.random(#pool)] end
      local ok, err = pcall(linalg[name], unpack(args, 1, 3))
      if not ok then tester:assert(type(err) == 'string' and err:find('%[') ~= nil, name .. ': ' .. tostring(err)) end
    end
  end
end

function tests.cudaMatchesCpu()
  if not torch.cuda.isAvailable() then return end
  local A = torch.randn(2, 5, 3)
  local tau = torch.rand(2, 3)
  tester:assertTensorEq(linalg.householderProduct(A:cuda(), tau:cuda()):double(), linalg.householderProduct(A, tau), 1e-4)
  tester:assertTensorEq(linalg.vecdot(A:cuda(), A:cuda()):double(), linalg.vecdot(A, A), 1e-4)
end

tester:add(tests):run()
