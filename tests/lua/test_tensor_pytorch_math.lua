-- PyTorch's math additions (lua/torch/tensor_pytorch_math.lua): clamp/clampMin/clampMax with
-- tensor bounds (values, NaN, gradients at ties), fillDiagonal, mvlgamma/igamma/igammac, the
-- linalg method forms, promoteTypes/canCast, scalarTensor; errors and CUDA. Expected values are
-- PyTorch 1.13's unless a comment derives them.
local tester = torch.Tester()
local tests = torch.TestSuite()
local gc = torch.autograd.gradcheck
local D = torch.DoubleTensor
local nan = 0 / 0

local function same_with_nan(a, b)
  tester:assertTensorEq(torch.isnan(a):double(), torch.isnan(b):double(), 0, 'NaN positions')
  local keep = torch.isnan(b):eq(0)
  tester:assertTensorEq(a:double():maskedSelect(keep), b:double():maskedSelect(keep), 1e-12)
end

function tests.clampTensorBounds()
  -- PyTorch 1.13 with x=[1,nan,3,-1,.5], lo=[2,0,nan,0,.5], hi=[3,1,1,-2,2]
  local x, lo, hi = D({ 1, nan, 3, -1, 0.5 }), D({ 2, 0, nan, 0, 0.5 }), D({ 3, 1, 1, -2, 2 })
  same_with_nan(torch.clamp(x, lo, hi), D({ 2, nan, nan, -2, 0.5 }))
  same_with_nan(torch.clamp(x, lo), D({ 2, nan, nan, 0, 0.5 }))
  same_with_nan(torch.clamp(x, nil, hi), D({ 1, nan, 1, -2, 0.5 }))
  same_with_nan(torch.clampMin(x, lo), D({ 2, nan, nan, 0, 0.5 }))
  same_with_nan(torch.clampMax(x, hi), D({ 1, nan, 1, -2, 0.5 }))
  same_with_nan(torch.clip(x, lo, hi), D({ 2, nan, nan, -2, 0.5 }))
  -- a number with a tensor bound, and a NaN number bound
  tester:assertTensorEq(torch.clamp(D({ -1, 0.5, 2 }), 0, D({ 1, 1, 3 })), D({ 0, 0.5, 2 }), 0)
  same_with_nan(torch.clamp(D({ 1, 2 }), nil, D({ nan, 5 })), D({ nan, 2 }))
  -- broadcasting: a row of bounds against a matrix
  local m = torch.range(1, 6):view(2, 3)
  tester:assertTensorEq(torch.clamp(m, torch.Tensor({ 2, 2, 2 }), torch.Tensor({ { 3 }, { 5 } })),
    torch.Tensor({ { 2, 2, 3 }, { 4, 5, 5 } }), 0)
end

function tests.clampInPlace()
  local x = D({ -1, 0.5, 2 })
  local r = x:clamp(D({ 0, 0.6, 0 }), D({ 1, 1, 1 }))
  tester:asserteq(r, x)
  tester:assertTensorEq(x, D({ 0, 0.6, 1 }), 1e-15)
  local y = D({ -1, 5 })
  y:clampMin(D({ 0, 0 }))
  tester:assertTensorEq(y, D({ 0, 5 }), 0)
  y:clampMax(D({ 3, 3 }))
  tester:assertTensorEq(y, D({ 0, 3 }), 0)
  y:clamp_(nil, D({ -1, 1 }))
  tester:assertTensorEq(y, D({ -1, 1 }), 0)
  -- Torch7's forms are unchanged: result argument and number bounds
  local res = D()
  torch.clamp(res, D({ -2, 2 }), -1, 1)
  tester:assertTensorEq(res, D({ -1, 1 }), 0)
  local z = D({ -2, 2 })
  z:clamp(0, 1)
  tester:assertTensorEq(z, D({ 0, 1 }), 0)
  -- a result form with tensor bounds
  torch.clamp(res, D({ -2, 2 }), D({ 0, 0 }), D({ 1, 1 }))
  tester:assertTensorEq(res, D({ 0, 1 }), 0)
  tester:assertErrorPattern(function() D({ 1 }):clamp(D({ 0, 0 }), nil) end, '%[clamp%].*differs')
  tester:assertErrorPattern(function() torch.clamp(D({ 1 }), D({ 0 }), 'a') end, '%[clamp%]')
  tester:assertErrorPattern(function() torch.clamp(D({ 1 }), nil, nil) end, '%[clamp%].*at least one')
end

function tests.clampGradients()
  -- PyTorch 1.13: x=[.3,.5,1.5,-.2], lo=[.5,.5,0,0], hi=1, grad [1,2,3,4]:
  -- x.grad [0,2,0,0] (the tie x == lo goes to x), lo.grad [1,0,0,4], hi.grad [0,0,3,0]
  local x = D({ 0.3, 0.5, 1.5, -0.2 }):requiresGrad()
  local lo = D({ 0.5, 0.5, 0, 0 }):requiresGrad()
  local hi = D({ 1, 1, 1, 1 }):requiresGrad()
  torch.clamp(x, lo, hi):backward(D({ 1, 2, 3, 4 }))
  tester:assertTensorEq(x.grad, D({ 0, 2, 0, 0 }), 0)
  tester:assertTensorEq(lo.grad, D({ 1, 0, 0, 4 }), 0)
  tester:assertTensorEq(hi.grad, D({ 0, 0, 3, 0 }), 0)
  local function leaf(t) return D(t):requiresGrad() end
  tester:assert(gc(function(a, b, c) return torch.clamp(a, b, c) end,
    { leaf({ 0.3, 0.8, 1.7, -0.4 }), leaf({ 0.5, 0.1, 0.2, -1 }), leaf({ 1, 1.2, 1, 0.1 }) }))
end

function tests.fillDiagonal()
  -- PyTorch 1.13: zeros(7,3).fill_diagonal_(5, wrap=True) has 5 at (0,0),(1,1),(2,2),(4,0),(5,1),(6,2)
  local a = torch.zeros(7, 3):fillDiagonal(5, true)
  tester:assertTensorEq(torch.nonzero(a), torch.LongTensor({ { 1, 1 }, { 2, 2 }, { 3, 3 }, { 5, 1 }, { 6, 2 }, { 7, 3 } }), 0)
  tester:asserteq(a:sum(), 30)
  tester:assertTensorEq(torch.nonzero(torch.zeros(7, 3):fillDiagonal(5)), torch.LongTensor({ { 1, 1 }, { 2, 2 }, { 3, 3 } }), 0)
  -- (0,0,0),(1,1,1),(2,2,2) for a 3x3x3 cube; a wide matrix fills its first rows
  tester:assertTensorEq(torch.nonzero(torch.zeros(3, 3, 3):fillDiagonal(2)), torch.LongTensor({ { 1, 1, 1 }, { 2, 2, 2 }, { 3, 3, 3 } }), 0)
  tester:assertTensorEq(torch.nonzero(torch.zeros(2, 5):fillDiagonal_(1)), torch.LongTensor({ { 1, 1 }, { 2, 2 } }), 0)
  -- a non-contiguous view: the transpose's diagonal is the diagonal
  local b = torch.zeros(3, 4)
  b:t():fillDiagonal(1)
  tester:assertTensorEq(b:narrow(2, 1, 3), torch.eye(3), 0)
  tester:assertErrorPattern(function() torch.zeros(3):fillDiagonal(1) end, '%[fillDiagonal%].*at least 2 dims')
  tester:assertErrorPattern(function() torch.zeros(2, 2, 3):fillDiagonal(1) end, '%[fillDiagonal%].*one length')
  tester:assertErrorPattern(function() torch.zeros(2, 2):fillDiagonal('x') end, '%[fillDiagonal%].*fill value')
end

function tests.specialFunctions()
  -- PyTorch 1.13: mvlgamma([2.5, 3], 2) = [0.8570478133976193, 1.5501949939575645]
  local m = torch.mvlgamma(D({ 2.5, 3 }), 2)
  tester:assertTensorEq(m, D({ 0.8570478133976193, 1.5501949939575645 }), 1e-12)
  local x = D({ 2.5, 3 })
  x:mvlgamma(2)
  tester:assertTensorEq(x, m, 0)
  tester:assert(gc(function(a) return torch.mvlgamma(a, 3) end, { D({ 1.7, 2.4 }):requiresGrad() }))
  -- igamma([2, .5], [1, 2]) = [0.26424112915992737, 0.9544997215270996] (float32), igammac = 1 - igamma
  local a, z = torch.Tensor({ 2, 0.5 }), torch.Tensor({ 1, 2 })
  tester:assertTensorEq(torch.igamma(a, z), torch.Tensor({ 0.26424112915992737, 0.9544997215270996 }), 1e-6)
  tester:assertTensorEq(torch.igammac(a, z), torch.Tensor({ 0.735758900642395, 0.0455002635717392 }), 1e-6)
  local c = a:clone()
  c:igamma(z)
  tester:assertTensorEq(c, torch.igamma(a, z), 0)
  tester:assertErrorPattern(function() torch.mvlgamma(3, 2) end, '%[mvlgamma%]')
end

function tests.linalgMethods()
  local A = D({ { 4, 1 }, { 1, 3 } })
  tester:assertTensorEq(A:cholesky(), torch.cholesky(A), 0)
  tester:assertTensorEq(A:matrixPower(3), A * A * A, 1e-12)
  tester:assertTensorEq(A:kron(D({ { 1, 2 } })), torch.kron(A, D({ { 1, 2 } })), 0)
  tester:assertTensorEq(A:pinverse(), torch.inverse(A), 1e-10)
  tester:assertTensorEq(A:inner(A), A * A:t(), 1e-12)
  tester:assertTensorEq(D({ 1, 2 }):diagEmbed(), D({ { 1, 0 }, { 0, 2 } }), 0)
  tester:assertTensorEq(D({ { 1, 2 } }):diagflat(), D({ { 1, 0 }, { 0, 2 } }), 0)
  tester:assertalmosteq(D({ 1, 2 }):vdot(D({ 3, 4 })):item(), 11, 0)
  local L = A:cholesky()
  local B = D({ { 1 }, { 2 } })
  tester:assertTensorEq(A * B:choleskySolve(L), B, 1e-12)
  tester:assertTensorEq(L:choleskyInverse(), torch.inverse(A), 1e-12)
  tester:assertTensorEq(A:matrixExp(), torch.matrixExp(A), 0)
  tester:assertErrorPattern(function() torch._tensor_methods.cholesky(3) end, "%[cholesky%]")
end

function tests.dtypes()
  -- PyTorch 1.13's promote_types and can_cast
  local promote = { { 'int64', 'float16', 'float16' }, { 'float16', 'bfloat16', 'float32' },
    { 'uint8', 'bool', 'uint8' }, { 'int32', 'int64', 'int64' }, { 'bool', 'bool', 'bool' },
    { 'bfloat16', 'float64', 'float64' }, { 'uint8', 'int32', 'int32' } }
  for _, c in ipairs(promote) do
    tester:asserteq(torch.promoteTypes(c[1], c[2]), c[3], c[1] .. '+' .. c[2])
    tester:asserteq(torch.promoteTypes(c[2], c[1]), c[3], c[2] .. '+' .. c[1])
  end
  tester:asserteq(torch.promoteTypes('torch.LongTensor', torch.zeros(1)), 'float32')
  local cast = { { 'float64', 'int32', false }, { 'int32', 'float64', true }, { 'int64', 'bool', false },
    { 'bool', 'uint8', true }, { 'float32', 'float16', true }, { 'uint8', 'bool', false }, { 'bool', 'bool', true } }
  for _, c in ipairs(cast) do tester:asserteq(torch.canCast(c[1], c[2]), c[3], c[1] .. '->' .. c[2]) end
  tester:assertErrorPattern(function() torch.promoteTypes('complex64', 'int64') end, "%[promoteTypes%].*'complex64'")
  local s = torch.scalarTensor(3.5)
  tester:asserteq(s:dim(), 0)
  tester:asserteq(s:item(), 3.5)
  tester:asserteq(torch.type(s), torch.getdefaulttensortype())
  tester:asserteq(torch.type(torch.scalarTensor(2, { dtype = 'int64' })), 'torch.LongTensor')
  tester:assertErrorPattern(function() torch.scalarTensor('a') end, '%[scalarTensor%]')
  torch.manualSeed(7)
  local st = torch.getRngState()
  local u = torch.rand(3)
  torch.setRngState(st)
  tester:assertTensorEq(torch.rand(3), u, 0)
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  local x, lo, hi = D({ 1, nan, 3, -1, 0.5 }), D({ 2, 0, nan, 0, 0.5 }), D({ 3, 1, 1, -2, 2 })
  same_with_nan(torch.clamp(x:cuda(), lo:cuda(), hi:cuda()):double(), torch.clamp(x, lo, hi))
  local g = torch.zeros(7, 3):cuda():fillDiagonal(5, true)
  tester:assertTensorEq(g:float(), torch.zeros(7, 3):fillDiagonal(5, true), 0)
  local y = D({ -1, 5 }):cuda()
  y:clampMin(D({ 0, 0 }):cuda())
  tester:assertTensorEq(y:double(), D({ 0, 5 }), 0)
end

tester:add(tests):run()
