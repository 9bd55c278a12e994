-- Regressions found reviewing the PyTorch-style tensor methods (lua/torch/tensor_pytorch*.lua,
-- misc_pytorch.lua, pointwise_math.lua): in-place forms that truncated a floating-point result
-- into an integer tensor or resized x to a broadcast shape, the result form of clampMin with a
-- tensor bound, vander's integer dtype, fillDiagonal's overflowing values, angle's gradient at
-- NaN. Expected values are PyTorch 1.13's (float64) unless a comment derives them.
local tester = torch.Tester()
local tests = torch.TestSuite()
local D, L = torch.DoubleTensor, torch.LongTensor
local nan, inf = 0 / 0, math.huge

-- f() fails with a message containing the plain text `want`.
local function refuses(what, f, want)
  local ok, err = pcall(f)
  tester:assert(not ok, what .. ': expected an error')
  if not ok then
    tester:assert(tostring(err):find(want, 1, true) ~= nil, what .. ': got ' .. tostring(err))
  end
end

function tests.inPlaceClampRefusesIntegerTruncation()
  -- PyTorch: "result type Double can't be cast to the desired output type Long"; Tocha wrote 0
  local x = L({ -1, 2, 5 })
  refuses('long:clamp(double tensor)', function() x:clamp(D({ 0.5, 1, 6 })) end,
    '[clamp] result of type torch.DoubleTensor cannot be written into a torch.LongTensor')
  tester:assertTensorEq(x, L({ -1, 2, 5 }), 0, 'x is left as it was')
  refuses('long:clampMax(double tensor)', function() x:clampMax(D({ 0.5, 1, 6 })) end, '[clamp] result of type')
  refuses('torch.clamp(long res, ...)', function() torch.clamp(L(), D({ -1, 0.3 }), D({ 0, 0 }), D({ 1, 1 })) end,
    '[clamp] result of type torch.DoubleTensor cannot be written into a torch.LongTensor')
  -- what PyTorch allows stays: integer bounds into an integer x, double bounds into a float x
  local y = L({ -1, 2, 5 })
  tester:asserteq(y:clamp(L({ 0, 0, 0 }), L({ 3, 3, 3 })), y)
  tester:assertTensorEq(y, L({ 0, 2, 3 }), 0)
  local f = torch.FloatTensor({ -1, 0.5 })
  f:clamp(D({ 0.25, 0.25 }))
  tester:assertTensorEq(f, torch.FloatTensor({ 0.25, 0.5 }), 0)
end

function tests.clampIntegerWithFractionalNumberBound()
  -- clamp(LongTensor, 0.5, tensor max) truncated the number bound: [0, 0, 1] in a LongTensor.
  -- PyTorch 1.13 has no (tensor, number, tensor) form; its promotion of a long tensor with a
  -- float scalar (clamp(x, 0.5, 1.5)) is float32 [0.5, 0.5, 1.5], which this form now follows
  local r = torch.clamp(L({ -1, 0, 2 }), 0.5, L({ 1, 1, 1 }))
  tester:asserteq(r:type(), torch.getdefaulttensortype())
  tester:assertTensorEq(r:double(), D({ 0.5, 0.5, 1 }), 0)
  local n = torch.clamp(L({ -1, 0, 2 }), nan, L({ 1, 1, 1 }))
  tester:asserteq(torch.isnan(n):sum(), 3, 'a NaN number bound gives NaN')
  -- integral number bounds keep the integer type, and in place a fractional bound is refused
  tester:asserteq(torch.clamp(L({ -1, 0, 2 }), 0, L({ 1, 1, 1 })):type(), 'torch.LongTensor')
  local x = L({ -1, 0, 2 })
  refuses('long:clamp(0.5, tensor)', function() x:clamp(0.5, L({ 1, 1, 1 })) end, '[clamp] result of type')
  tester:assertTensorEq(x, L({ -1, 0, 2 }), 0)
end

function tests.clampMinResultFormWithTensorBound()
  -- torch.clampMin(res, x, min) with a tensor min clamped res between x and min (an error for an
  -- empty res, a wrong result left outside res for one of x's size); PyTorch's clamp_min(x, min,
  -- out=res) gives [0, 3]
  local res = D({ 5, 5 })
  local r = torch.clampMin(res, D({ -1, 2 }), D({ 0, 3 }))
  tester:asserteq(r, res, 'returns res')
  tester:assertTensorEq(res, D({ 0, 3 }), 0)
  local empty = D()
  torch.clampMin(empty, D({ -1, 2 }), D({ 0, 3 }))
  tester:assertTensorEq(empty, D({ 0, 3 }), 0, 'res resized')
  tester:assertTensorEq(torch.clampMin(D({ -1, 2 }), D({ 0, 3 })), D({ 0, 3 }), 0, 'function form')
  local n = D()
  torch.clampMin(n, D({ -1, 2 }), 0)
  tester:assertTensorEq(n, D({ 0, 2 }), 0, 'number bound, result form')
  refuses('clampMin into long res', function() torch.clampMin(L(), D({ -1, 2 }), D({ 0.5, 3 })) end,
    '[clampMin] result of type torch.DoubleTensor cannot be written into a torch.LongTensor')
  local m = D({ -1, 2 })
  torch.clampMax(m, D({ -1, 2 }), D({ 0, 0 }))
  tester:assertTensorEq(m, D({ -1, 0 }), 0, 'clampMax result form')
end

function tests.angleInPlaceAndGradient()
  local x = L({ -3, 0, 2 })
  refuses('long:angle()', function() x:angle() end,
    '[angle] result of type torch.FloatTensor cannot be written into a torch.LongTensor')
  tester:assertTensorEq(x, L({ -3, 0, 2 }), 0, 'x is left as it was')
  -- PyTorch: angle of an integer tensor is float32 [pi, 0, 0]
  local a = torch.angle(x)
  tester:asserteq(a:type(), 'torch.FloatTensor')
  tester:assertTensorEq(a, torch.FloatTensor({ math.pi, 0, 0 }), 0)
  -- PyTorch 1.13: values [pi, 0, 0, nan, 0, pi], a zero gradient everywhere (NaN included;
  -- the NaN element had passed gradient 1 through)
  local v = D({ -2, 0, 3, nan, inf, -inf }):requiresGrad()
  local r = torch.angle(v)
  tester:assert(r:needsGrad(), 'the result is in the graph')
  local want = { math.pi, 0, 0, nan, 0, math.pi }
  for i = 1, 6 do
    if want[i] ~= want[i] then tester:assert(r[i] ~= r[i], 'NaN stays NaN')
    else tester:asserteq(r[i], want[i], 'angle ' .. i) end
  end
  r:sum():backward()
  tester:assertTensorEq(v.grad, D(6):zero(), 0, 'zero gradient')
  local d = D({ -1, nan })
  tester:asserteq(d:angle(), d, 'x:angle() in place')
  tester:asserteq(d[1], math.pi)
  tester:assert(d[2] ~= d[2])
end

function tests.pointwiseInPlaceKeepsSize()
  -- PyTorch: "output with shape [1] doesn't match the broadcast shape [2]"; x was resized
  local x = D({ 1 })
  refuses('x:divide(larger y)', function() x:divide(D({ 1, 2 })) end,
    '[divide] in-place result has size 1 but the operation produces 2')
  refuses('x:divide(larger y, floor)', function() x:divide(D({ 1, 2 }), 'floor') end, '[divide] in-place result')
  refuses('x:ldexp(larger e)', function() x:ldexp(L({ 1, 2 })) end, '[ldexp] in-place result has size 1')
  refuses('x:lshift(larger n)', function() x:lshift(L({ 1, 2 })) end, '[lshift] in-place result has size 1')
  refuses('x:rshift(larger n)', function() x:rshift(L({ 1, 2 })) end, '[rshift] in-place result has size 1')
  tester:assertTensorEq(x, D({ 1 }), 0, 'x is left as it was')
  -- broadcasting that keeps x's size is in place, and the result forms still resize res
  local y = D({ 6, 9 })
  tester:asserteq(y:divide(D({ 3 })), y)
  tester:assertTensorEq(y, D({ 2, 3 }), 0)
  local res = D()
  torch.divide(res, D({ 1 }), D({ 1, 2 }))
  tester:assertTensorEq(res, D({ 1, 0.5 }), 0, 'result form')
  local z = D({ 1, 1 })
  tester:asserteq(z:ldexp(L({ 3 })), z)
  tester:assertTensorEq(z, D({ 8, 8 }), 0)
end

function tests.specialInPlace()
  -- x:mvlgamma(p), x:igamma(y), x:igammac(y) on an integer x truncated the result (mvlgamma of
  -- {2, 3} wrote {0, 1}); PyTorch refuses
  local x = L({ 2, 3 })
  refuses('long:mvlgamma', function() x:mvlgamma(2) end,
    '[mvlgamma] result of type torch.FloatTensor cannot be written into a torch.LongTensor')
  refuses('long:igamma', function() x:igamma(D({ 1, 1 })) end, '[igamma] result of type')
  refuses('long:igammac', function() x:igammac(D({ 1, 1 })) end, '[igammac] result of type')
  tester:assertTensorEq(x, L({ 2, 3 }), 0)
  -- a y that broadcasts past x's size: the error named copy
  refuses('igamma broadcast', function() D({ 2 }):igamma(D({ 1, 2 })) end,
    '[igamma] the result has size 2, which differs from the tensor changed in place (1)')
  refuses('igammac broadcast', function() D({ 2 }):igammac(D({ 1, 2 })) end, '[igammac] the result has size 2')
  -- PyTorch 1.13: igamma([2, 3], [1, 2]) = [0.26424111765711528, 0.32332358381693649]
  local a = D({ 2, 3 })
  tester:asserteq(a:igamma_(D({ 1, 2 })), a)
  tester:assertTensorEq(a, D({ 0.26424111765711528, 0.32332358381693649 }), 1e-14)
  local m = D({ 2.5 })
  tester:asserteq(m:mvlgamma(3), m)
  -- PyTorch 1.13: mvlgamma(2.5, 3) = 1.8809953...
  tester:assertlt(math.abs(m[1] - torch.mvlgamma(D({ 2.5 }), 3)[1]), 1e-15)
end

function tests.vanderIntegerDtype()
  -- PyTorch's vander promotes an integer x with int64: int32, uint8 and bool give int64 (a
  -- ByteTensor wrapped 16^2 to 0)
  local v = torch.vander(torch.IntTensor({ 1, 2, 16 }), 3)
  tester:asserteq(v:type(), 'torch.LongTensor')
  tester:assertTensorEq(v, L({ { 1, 1, 1 }, { 4, 2, 1 }, { 256, 16, 1 } }), 0)
  local b = torch.vander(torch.ByteTensor({ 16 }), 3)
  tester:asserteq(b:type(), 'torch.LongTensor')
  tester:assertTensorEq(b, L({ { 256, 16, 1 } }), 0)
  tester:assertTensorEq(torch.vander(torch.BoolTensor({ true, false }), 3), L({ { 1, 1, 1 }, { 0, 0, 1 } }), 0)
  tester:asserteq(torch.vander(torch.FloatTensor({ 1, 2 })):type(), 'torch.FloatTensor', 'floats stay')
end

function tests.fillDiagonalRefusesOverflow()
  -- PyTorch: "value cannot be converted to type uint8_t without overflow"; Tocha wrote 44
  local b = torch.ByteTensor(2, 2):zero()
  refuses('byte 300', function() b:fillDiagonal(300) end,
    '[fillDiagonal] value 300 cannot be converted to torch.ByteTensor without overflow')
  tester:asserteq(b:sum(), 0, 'b is left as it was')
  refuses('long nan', function() L(2, 2):zero():fillDiagonal(nan) end, '[fillDiagonal] value nan')
  -- truncation toward zero stays (PyTorch fills 2 for 2.5), and a bool x takes any number
  tester:assertTensorEq(L(2, 2):zero():fillDiagonal(2.5), L({ { 2, 0 }, { 0, 2 } }), 0)
  tester:assertTensorEq(torch.BoolTensor(2, 2):zero():fillDiagonal(2):long(), L({ { 1, 0 }, { 0, 1 } }), 0)
end

function tests.clampNanNumberBound()
  -- PyTorch 1.13: clamp(x, nan, 1) and clamp(x, 0, nan) are all NaN, with a zero gradient; the C
  -- clamp ignored a NaN number bound ([-1, 0.5, 1] and [0, 0.5, 2]): Note [NaN clamp bounds].
  local tensor_bound = torch.clamp(D({ -1, 0.5, 2 }), D({ nan }))
  tester:assert(torch.isnan(tensor_bound):sum() == 3, 'a NaN tensor bound gives NaN (Lua path)')
  tester:asserteq(torch.isnan(torch.clamp(D({ -1, 0.5, 2 }), nan, 1)):sum(), 3)
  tester:asserteq(torch.isnan(torch.clamp(D({ -1, 0.5, 2 }), 0, nan)):sum(), 3)
  local x = D({ -1, 0.5, 2 }):requiresGrad()
  torch.clamp(x, nan, 1):sum():backward()
  tester:assertTensorEq(x.grad, D({ 0, 0, 0 }), 0, 'zero gradient')
  refuses('long in place', function() L({ 1, 2 }):clamp(nan, 1) end, '[clamp] a NaN bound cannot clamp a torch.LongTensor')
end

function tests.powGradientAtZeroToTheZero()
  -- PyTorch 1.13: d(a^b)/da at a = 0, b = 0 is 0 (pow_backward masks exponent == 0); Tocha's
  -- tensor-exponent pow (and floatPower built on it) gives NaN. The number-exponent form is right.
  local a = D({ 0, 0 }):requiresGrad()
  torch.floatPower(a, 0):sum():backward()
  tester:assertTensorEq(a.grad, D({ 0, 0 }), 0, 'number exponent')
  -- the tensor-exponent form gave NaN (core/autograd/formulas/pointwise.cpp's vjp_pow now masks)
  local x, e = D({ 0, 0 }):requiresGrad(), D({ 0, 2 }):requiresGrad()
  torch.floatPower(x, e):sum():backward()
  tester:assertTensorEq(x.grad, D({ 0, 0 }), 0)
  tester:assertTensorEq(e.grad, D({ 0, 0 }), 0)
  local a2, b2 = D({ 0, 0, 2 }):requiresGrad(), D({ 0, 1, 0 }):requiresGrad()  -- PyTorch: [0, 1, 0]
  torch.pow(a2, b2):sum():backward()
  tester:assertTensorEq(a2.grad, D({ 0, 1, 0 }), 0, 'pow')
  tester:assertTensorEq(b2.grad, D({ 0, 0, math.log(2) }), 1e-15, 'pow exponent')
end

function tests.shiftOfFloatsChecksN()
  -- a string n reached Lua arithmetic ("attempt to perform arithmetic on local 'n'")
  refuses('lshift string', function() torch.lshift(D({ 1 }), 'x') end, "[lshift] n must be a number or a tensor, got string")
  refuses('x:rshift(table)', function() D({ 1 }):rshift({}) end, '[rshift] n must be a number or a tensor')
  tester:assertTensorEq(torch.lshift(D({ 1.5 }), L({ 2 })), D({ 6 }), 0, 'a tensor n')
end

function tests.addAlphaWithNumberOperand()
  -- PyTorch: "For integral input tensors, argument alpha must not be a floating point number";
  -- add(LongTensor, 3, {alpha = 0.5}) folded alpha into the number and gave a FloatTensor
  refuses('add long number alpha', function() torch.add(L({ 1, 2 }), 3, { alpha = 0.5 }) end,
    '[add] alpha 0.5 must be an integer for a torch.LongTensor')
  refuses('csub long number alpha', function() torch.csub(L({ 1, 2 }), 3, { alpha = 0.5 }) end, '[csub] alpha 0.5')
  local x = L({ 1, 2 })
  refuses('x:add(number, alpha)', function() x:add(3, { alpha = 0.5 }) end, '[add] alpha 0.5')
  tester:assertTensorEq(x, L({ 1, 2 }), 0, 'x is left as it was')
  -- integral alphas, floating tensors and the result form are as before (PyTorch 1.13's values)
  tester:assertTensorEq(torch.add(L({ 1, 2 }), 3, { alpha = 2 }), L({ 7, 8 }), 0)
  tester:assertTensorEq(torch.add(D({ 1, 2 }), 3, { alpha = 0.5 }), D({ 2.5, 3.5 }), 0)
  local res = D()
  torch.add(res, D({ 1, 2 }), 3, { alpha = 0.5 })
  tester:assertTensorEq(res, D({ 2.5, 3.5 }), 0)
end

function tests.inPlaceOnGraphTensors()
  -- y:mvlgamma(p), y:logit(eps) and y:ldexp(e) on a y in a graph overwrote the input their
  -- backward had saved ("... was modified by an in-place operation"); PyTorch 1.13's
  -- mvlgamma_ and logit_ give these gradients
  local a = D({ 1.2, 3 }):requiresGrad()
  local y = a * 1
  tester:asserteq(y:mvlgamma(2), y)
  y:sum():backward()
  tester:assertTensorEq(a.grad, D({ -1.5090634502901232, 1.6259409757437102 }), 1e-14, 'mvlgamma')
  a.grad = nil
  y = a * 1
  y:mul(0.1):logit(0.2)
  y:sum():backward()
  tester:assertTensorEq(a.grad, D({ 0, 0.4761904761904762 }), 1e-15, 'logit with eps')
  -- PyTorch refuses ldexp_ here (it is mul with out=); the closed form: d/da = 2^e,
  -- d/de = a 2^e log 2
  a.grad = nil
  local e = D({ 0.5, 2 }):requiresGrad()
  y = a * 1
  y:ldexp(e)
  y:sum():backward()
  tester:assertTensorEq(a.grad, D({ 2 ^ 0.5, 4 }), 1e-15, 'ldexp x')
  tester:assertTensorEq(e.grad, D({ 1.2 * 2 ^ 0.5 * math.log(2), 3 * 4 * math.log(2) }), 1e-14, 'ldexp e')
  a.grad = nil
  y = a * 1
  y:lshift(1)
  y:divide(D({ 4, 4 }))
  y:sum():backward()
  tester:assertTensorEq(a.grad, D({ 0.5, 0.5 }), 0, 'lshift then divide')
  -- only the other operand in a graph: a:igamma(x) overwrote the a that x's gradient reads
  -- (PyTorch 1.13: a.igamma_(x) gives x.grad = [0.36787944117144233, 0.2706705664732254])
  local x = D({ 1, 2 }):requiresGrad()
  local g = D({ 2, 3 })
  g:igamma(x)
  g:sum():backward()
  tester:assertTensorEq(x.grad, D({ 0.36787944117144233, 0.2706705664732254 }), 1e-15, 'igamma in place')
  x.grad = nil
  g = D({ 2, 3 })
  g:igammac(x)
  g:sum():backward()
  tester:assertTensorEq(x.grad, D({ -0.36787944117144233, -0.2706705664732254 }), 1e-15, 'igammac in place')
  e.grad = nil
  local z = D({ 1.5, 2 })
  z:ldexp(e)
  z:sum():backward()
  tester:assertTensorEq(e.grad, D({ 1.5 * 2 ^ 0.5 * math.log(2), 2 * 4 * math.log(2) }), 1e-14, 'ldexp, only e')
end

function tests.conjugateTransposeOfAVector()
  -- PyTorch: "tensor.H is only supported on matrices (2-D tensors). Got 1-D tensor."; x.H of a
  -- vector returned the vector
  refuses('vector.H', function() return torch.zeros(3).H end, '[H] expected a matrix (or a 0-D tensor)')
  tester:assertTableEq(torch.zeros(2, 3).H:size():totable(), { 3, 2 })
  tester:asserteq(torch.zeros(1):view({}).H:dim(), 0, 'a 0-D tensor is its own H')
  tester:asserteq(torch.zeros(3).T:dim(), 1, 'x.T of a vector stays allowed, as in PyTorch')
end

-- CUDA (dry-reasoned without a GPU here): the in-place checks read type names such as
-- 'torch.LongTensor', which no CUDA tensor has, so a CudaLongTensor took a truncated quotient, a
-- CUDA float tensor's lshift went to the integer shift, floatPower refused a CudaDoubleTensor res,
-- and angle/vander brought a CUDA integer x to the host (x:type() and x:long() are Torch7's).
function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  local l = L({ 7 }):type('torch.CudaLongTensor')
  refuses('cuda long:divide(2)', function() l:divide(2) end, '[divide] result of type torch.CudaTensor cannot be written into a torch.CudaLongTensor')
  tester:asserteq(l:long()[1], 7)
  local f = D({ 1.5 }):cuda()
  f:lshift(2)
  tester:asserteq(f:double()[1], 6, 'float lshift on CUDA')
  local res = D({ 0, 0 }):type('torch.CudaDoubleTensor')
  torch.floatPower(res, 2, L({ 1, 3 }):type('torch.CudaLongTensor'))
  tester:assertTensorEq(res:double(), D({ 2, 8 }), 0, 'floatPower into a CudaDoubleTensor')
  refuses('cuda bool positive', function() torch.positive(torch.BoolTensor({ true }):type('torch.CudaBoolTensor')) end, '[positive]')
  local a = torch.angle(L({ -1, 2 }):type('torch.CudaLongTensor'))
  tester:assert(a:isCuda(), 'angle stays on the device')
  tester:assertTensorEq(a:float(), torch.FloatTensor({ math.pi, 0 }), 0)
  local v = torch.vander(torch.IntTensor({ 1, 2 }):type('torch.CudaIntTensor'), 3)
  tester:assert(v:isCuda(), 'vander stays on the device')
  tester:asserteq(v:type(), 'torch.CudaLongTensor')
  tester:assertTensorEq(v:long(), L({ { 1, 1, 1 }, { 4, 2, 1 } }), 0)
end

tester:add(tests)
tester:run()
