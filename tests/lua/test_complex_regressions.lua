-- Regressions for the complex helpers (lua/torch/complex.lua, lua/torch/complex_views.lua): complex
-- values are real tensors with a trailing dim of 2 (Note [Complex values as a trailing dim of 2],
-- lua/torch/fft.lua). Checks shapes that don't broadcast (refused, as PyTorch, instead of Torch7's
-- same-element-count rule), integer and mixed-type parts (refused, as PyTorch), the values of abs
-- and angle at inf, nan and signed zeros, and gradients in PyTorch's convention (the gradient of a
-- real loss L is dL/dre + i dL/dim, so that of |z|^2 is 2z) against PyTorch 1.13.
local tester = torch.Tester()
local tests = torch.TestSuite()
local D = torch.DoubleTensor
local inf, nan = math.huge, 0 / 0

local function flat(t) return t:contiguous():view(-1) end

-- Shapes that don't broadcast were taken by torch.cmul's same-element-count rule: a silent (2, 3)
-- result where PyTorch raises.
function tests.polarRefusesShapesThatDoNotBroadcast()
  tester:assertErrorPattern(function() torch.polar(D(2, 3):fill(1), D(3, 2):zero()) end,
    '%[polar%] abs and angle do not broadcast: sizes 2x3 and 3x2')
  -- PyTorch 1.13: torch.view_as_real(torch.polar(r, th)), r (2, 1), th (3)
  local r, th = D({ { 2 }, { 0.5 } }), D({ 0.3, -2, math.pi })
  local ref = D({ 1.910672978251212, 0.5910404133226791, -0.8322936730942848, -1.8185948536513634, -2.0,
    2.4492935982947064e-16, 0.477668244562803, 0.14776010333066977, -0.2080734182735712, -0.45464871341284085,
    -0.5, 6.123233995736766e-17 })
  local z = torch.polar(r, th)
  tester:eq(z:size():totable(), { 2, 3, 2 })
  tester:eq(flat(z), ref, 1e-15)
  tester:eq(torch.polar(th, r):size():totable(), { 2, 3, 2 }, 'either argument broadcasts')
end

function tests.complexMulRefusesShapesThatDoNotBroadcast()
  tester:assertErrorPattern(function() torch.complexMul(D(2, 3, 2):fill(1), D(3, 2, 2):fill(2)) end,
    '%[complexMul%] a and b do not broadcast: complex sizes 2x3 and 3x2')
  -- (4) against (2, 2) complex: same element count, no broadcast
  tester:assertErrorPattern(function() torch.complexMul(D(4, 2):fill(1), D(2, 2, 2):fill(1)) end,
    '%[complexMul%] a and b do not broadcast')
  local a, b = D(2, 1, 2):uniform(), D(3, 2):uniform()
  local p = torch.complexMul(a, b)
  tester:eq(p:size():totable(), { 2, 3, 2 })
  tester:eq(p[2][3], torch.complexMul(a[2][1], b[3]), 1e-15)
end

function tests.complexNamesItselfWhenShapesDoNotBroadcast()
  tester:assertErrorPattern(function() torch.complex(D(2, 3):fill(1), D(3, 2):fill(2)) end,
    '%[complex%] re and im do not broadcast: sizes 2x3 and 3x2')
end

-- PyTorch 1.13: "Expected both inputs to be Half, Float or Double tensors but got Long and Long"
-- for torch.complex and torch.polar, and polar of Float and Double parts is refused as complex's.
function tests.integerAndMixedPartsRefused()
  local L = torch.LongTensor
  tester:assertErrorPattern(function() torch.complex(L({ 1, 2 }), L({ 3, 4 })) end,
    '%[complex%] expected a floating tensor as re, got torch.LongTensor')
  tester:assertErrorPattern(function() torch.complex(D({ 1, 2 }), torch.ByteTensor({ 3, 4 })) end,
    '%[complex%] expected a floating tensor as im, got torch.ByteTensor')
  tester:assertErrorPattern(function() torch.polar(L({ 1 }), L({ 0 })) end,
    '%[polar%] expected a floating tensor as abs, got torch.LongTensor')
  tester:assertErrorPattern(function() torch.polar(torch.FloatTensor({ 1 }), D({ 1 })) end,
    '%[polar%] abs and angle must have one type, got torch.FloatTensor of size 1 and torch.DoubleTensor')
  tester:eq(torch.complex(torch.FloatTensor({ 1 }), torch.FloatTensor({ 2 })):type(), 'torch.FloatTensor')
  tester:eq(torch.polar(torch.FloatTensor({ 1 }), torch.FloatTensor({ 0 })):type(), 'torch.FloatTensor')
end

-- An integer (..., 2) tensor is no complex tensor (PyTorch has no integer complex dtype): the
-- conjugate of a ByteTensor {1, 2} was {1, 254}.
function tests.complexOpsRefuseIntegerTensors()
  local b = torch.ByteTensor({ 1, 2 })
  for _, name in ipairs({ 'complexConj', 'complexAbs', 'complexAngle', 'real', 'imag' }) do
    tester:assertErrorPattern(function() torch[name](b) end,
      '%[' .. name .. '%] expected a complex tensor as z of a floating type, got torch.ByteTensor', name)
  end
  tester:assertErrorPattern(function() torch.complexMul(D({ 1, 2 }), torch.LongTensor({ 1, 2 })) end,
    '%[complexMul%] expected a complex tensor as b of a floating type, got torch.LongTensor')
end

-- PyTorch 1.13's abs and angle of complex(re, im) at infinities, NaNs and signed zeros. PyTorch's
-- vectorized CPU abs gives nan for inf + nan i where its scalar path (and C99's cabs, NumPy) give inf:
-- Tocha follows C99 (hypot).
function tests.absAngleSpecialValues()
  local z = D({ { inf, nan }, { -inf, inf }, { -1, 0 }, { -1, -0.0 }, { 0, -0.0 }, { -0.0, -0.0 }, { nan, 0 },
    { 1e200, 1e200 }, { 1e-200, 1e-200 } })
  local angle = torch.complexAngle(z)
  local ref = { nan, 3 * math.pi / 4, math.pi, -math.pi, -0.0, -math.pi, nan, math.pi / 4, math.pi / 4 }
  for i, v in ipairs(ref) do
    if v ~= v then tester:assert(angle[i] ~= angle[i], 'angle ' .. i .. ' is nan')
    else tester:assert(math.abs(angle[i] - v) < 1e-15 and (1 / angle[i] > 0) == (1 / v > 0), 'angle ' .. i) end
  end
  local abs = torch.complexAbs(z)
  tester:eq(abs[1], inf, 'inf + nan i')
  tester:eq(abs[2], inf)
  tester:eq(abs:narrow(1, 3, 4), D({ 1, 1, 0, 0 }), 0)
  tester:assert(abs[7] ~= abs[7], 'nan + 0i')
  tester:eq(abs[8] / 1e200, math.sqrt(2), 1e-15, 'no overflow')
  tester:eq(abs[9] / 1e-200, math.sqrt(2), 1e-15, 'no underflow')
end

-- PyTorch's convention: the gradient of a real L(z) is dL/dre + i dL/dim, so that of |z|^2 is 2z.
function tests.gradientConvention()
  local z = D({ { 1, 2 }, { -3, 0.5 }, { 0, 0 } }):requiresGrad()
  torch.pow(torch.complexAbs(z), 2):sum():backward()
  tester:eq(z.grad, D({ { 2, 4 }, { -6, 1 }, { 0, 0 } }), 1e-15)
  -- PyTorch 1.13, complex128: L = sum |a conj(b)|^2 + sum angle(a b) + 0.5 sum real(a b), a (3), b (2, 1)
  local a = D({ { 0.3, -0.7 }, { 1.2, 0.4 }, { -0.5, -0.9 } }):requiresGrad()
  local b = D({ { { 1.1, 0.2 } }, { { -0.4, 1.5 } } }):requiresGrad()
  local ab = torch.complexMul(a, b)
  local L = torch.pow(torch.complexAbs(torch.complexMul(a, torch.complexConj(b))), 2):sum()
    + torch.complexAngle(ab):sum() + torch.real(ab):sum() * 0.5
  tester:eq(L:item(), 13.418059020403337, 1e-12)
  L:backward()
  tester:eq(flat(a.grad), D({ 4.959793103448276, -4.93951724137931, 8.634, 3.5780000000000007, -1.6118867924528302,
    -8.381396226415095 }), 1e-12)
  tester:eq(flat(b.grad), D({ 7.148000000000001, 4.5360000000000005, -3.959219917012448, 9.82207468879668 }), 1e-12)
end

function tests.gradchecks()
  local gc, ggc = torch.autograd.gradcheck, torch.autograd.gradgradcheck
  local z = D({ { 0.3, -0.7 }, { 1.2, 0.4 }, { -0.5, -0.9 } })
  local function leaf(t) return t:clone():requiresGrad() end
  for _, name in ipairs({ 'complexConj', 'real', 'imag', 'viewAsComplex', 'viewAsReal' }) do
    tester:assert(gc(torch[name], { leaf(z) }), name)
  end
  tester:assert(gc(torch.complex, { leaf(D({ 1, 2, 3 })), leaf(D({ { 0.5 }, { -1 } })) }), 'complex broadcast')
  tester:assert(gc(torch.polar, { leaf(D({ { 1 }, { 2 } })), leaf(D({ 0.3, -1, 2 })) }), 'polar broadcast')
  tester:assert(gc(torch.complexMul, { leaf(D(2, 1, 2):uniform()), leaf(D(3, 2):uniform()) }), 'complexMul broadcast')
  tester:assert(ggc(torch.complexAbs, { leaf(z) }), 'complexAbs second order')
  tester:assert(ggc(torch.complexAngle, { leaf(z) }), 'complexAngle second order')
  tester:assert(ggc(torch.complexMul, { leaf(z), leaf(z * -1.5) }), 'complexMul second order')
end

function tests.viewsAndEdgeSizes()
  local c = torch.complex(D({ 1, 2 }), D({ 3, 4 }))
  torch.real(c):fill(9)
  tester:eq(c, D({ { 9, 3 }, { 9, 4 } }), 0, 'torch.real is a view')
  -- PyTorch 1.13 refuses an odd stride even on a dim of size 1
  tester:assertErrorPattern(function() torch.viewAsComplex(D(3, 3):narrow(2, 1, 2):narrow(1, 1, 1)) end,
    'every stride but the last must be even')
  tester:eq(torch.viewAsComplex(D(0, 2)):size():totable(), { 0, 2 })
  tester:eq(torch.complexAbs(D(0, 2)):nElement(), 0)
  tester:eq(torch.complexConj(D(0, 2)):size():totable(), { 0, 2 })
  tester:eq(torch.polar(D(0), D(0)):size():totable(), { 0, 2 })
  tester:eq(torch.complex(D(0), D(0)):nElement(), 0)
  -- one complex number broadcasts against many
  tester:eq(torch.complexMul(D({ { 3, 4 }, { 1, 0 } }), D({ 0, 1 })), D({ { -4, 3 }, { 0, 1 } }), 0)
  -- a non-contiguous operand (a transposed (2, 3) read as 3 complex numbers)
  local nc = D({ { 1, 2, 3 }, { 4, 5, 6 } }):t()
  tester:eq(torch.complexAbs(nc), D({ math.sqrt(17), math.sqrt(29), math.sqrt(45) }), 1e-15)
  tester:eq(torch.complexConj(nc), D({ { 1, -4 }, { 2, -5 }, { 3, -6 } }), 0)
end

-- A complex tensor and a view of its imaginary parts survive torch.save / torch.load and clone.
function tests.serializationAndClone()
  local z = torch.complex(D({ 1, -2.5 }), D({ 0.5, 3 }))
  local f = os.tmpname()
  torch.save(f, { z = z, im = torch.imag(z) })
  local back = torch.load(f)
  os.remove(f)
  tester:eq(back.z, z, 0)
  tester:eq(back.im, D({ 0.5, 3 }), 0)
  local c = torch.complexConj(z):clone()
  tester:eq(torch.imag(c), D({ -0.5, -3 }), 0)
end

tester:add(tests)
tester:run()
