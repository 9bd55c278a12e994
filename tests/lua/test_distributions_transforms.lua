-- torch.distributions' transforms (transforms*.lua), the new constraints (constraints.lua) and
-- bijectTo/transformTo (constraint_registry.lua): values and log |det J| against PyTorch 1.13,
-- log |det J| against the autograd Jacobian, inv(t(x)) == x, caching, shapes, errors.
local H = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/distributions_check.lua')
local D = torch.distributions
local C = D.constraints
local tester = torch.Tester()
local tests = torch.TestSuite()
local T = torch.DoubleTensor

-- PyTorch 1.13 (float64): y = t(x) and logAbsDetJacobian(x, y), flattened row-major.
local REF = {
  Exp = { y = { 0.22313016014842982, 0.7408182206817179, 1.2214027581601699, 2.0137527074704766, 3.0041660239464334, 7.38905609893065 }, ladj = { -1.5, -0.3, 0.2, 0.7, 1.1, 2.0 } },
  Sigmoid = { y = { 0.18242552380635635, 0.425557483188341, 0.549833997312478, 0.6681877721681662, 0.7502601055951177, 0.8807970779778823 }, ladj = { -1.9028265559655049, -1.4087104889370543, -1.3962777387631835, -1.5063720977709159, -1.6746706502308615, -2.2538560220859454 } },
  Tanh = { y = { -0.9051482536448664, -0.2913126124515909, 0.197375320224904, 0.6043677771171635, 0.8004990217606297, 0.9640275800758169 }, ladj = { -1.7108803420275933, -0.08868153985188076, -0.03973614368001466, -0.4545404587170112, -1.0238722784175014, -2.6500054947157285 } },
  Softplus = { y = { 0.2014132779827524, 0.5543552444685271, 0.7981388693815918, 1.103186048885458, 1.3873353251154308, 2.1269280110429727 }, ladj = { -1.7014132779827524, -0.8543552444685272, -0.5981388693815918, -0.4031860488854579, -0.2873353251154308, -0.1269280110429725 } },
  Affine = { y = { 3.5, 1.1, 0.09999999999999998, -0.8999999999999999, -1.7000000000000002, -3.5 }, ladj = { 0.6931471805599453, 0.6931471805599453, 0.6931471805599453, 0.6931471805599453, 0.6931471805599453, 0.6931471805599453 } },
  AffineVec = { y = { 0.25, 2.3, 3.4, 1.35, 0.8999999999999999, 7.0 }, ladj = { 0.0, 0.0 } },
  Power = { y = { 3.238172324012421, 0.10119288512538815, 0.049295030175464966, 0.5724334022399461, 1.577440965614879, 6.390697145069543 }, ladj = { 1.6212961757427584, -0.4581453659370775, -0.8896684746147487, 0.5815754049028404, 1.1897730670650872, 2.029196748968221 } },
  StickBreaking = { y = { 0.06922778450193097, 0.251579258829414, 0.3734433783116072, 0.3057495783570478, 0.4016457980606006, 0.35921177577843866, 0.2106359501831158, 0.02850647597784505 }, ladj = { -6.220327948358848, -7.051275818308831 } },
  CorrCholesky = { y = { 1.0, 0.0, 0.0, -0.9051482536448664, 0.42509603494228054, 0.0, -0.2913126124515909, 0.18881474044739277, 0.9378091253642251, 1.0, 0.0, 0.0, 0.6043677771171635, 0.796705459992875, 0.0, 0.8004990217606297, 0.5777745640690745, 0.159304329115896 }, ladj = { -1.8836387954854292, -4.640354371058993 } },
  Compose = { y = { 1.4462603202968596, 2.4816364413634355, 3.4428055163203397, 5.027505414940953, 7.008332047892867, 15.7781121978613 }, ladj = { -0.8068528194400547, 0.3931471805599453, 0.8931471805599454, 1.3931471805599451, 1.7931471805599455, 2.6931471805599454 } },
  CDF = { y = { 0.06680720126885809, 0.3820885778110474, 0.579259709439103, 0.758036347776927, 0.8643339390536173, 0.9772498680518208 }, ladj = { -2.0439385332046727, -0.9639385332046727, -0.9389385332046727, -1.1639385332046726, -1.5239385332046727, -2.9189385332046727 } },
  IndepExp = { y = { 0.22313016014842982, 0.7408182206817179, 1.2214027581601699, 2.0137527074704766, 3.0041660239464334, 7.38905609893065 }, ladj = { -1.6, 3.8 } },
  Cat = { y = { 0.22313016014842982, 0.7408182206817179, 1.6, 2.0137527074704766, 3.0041660239464334, 7.0 }, ladj = { -1.5, -0.3, 1.0986122886681098, 0.7, 1.1, 1.0986122886681098 } },
  Stack = { y = { 0.18242552380635635, 0.425557483188341, 0.549833997312478, 0.6043677771171635, 0.8004990217606297, 0.9640275800758169 }, ladj = { -1.9028265559655049, -1.4087104889370543, -1.3962777387631835, -0.4545404587170112, -1.0238722784175014, -2.6500054947157285 } },
  Softmax = { y = { 0.1021026580888603, 0.33899276297720876, 0.558904578933931, 0.16230811579828638, 0.24213525577550293, 0.5955566284262107 } },
  LowerCholesky = { y = { 1.3498588075760032, 0.0, -0.4, 0.8187307530779818, 4.4816890703380645, 0.0, 0.7, 1.1051709180756477 } },
}

local X = T({ { -1.5, -0.3, 0.2 }, { 0.7, 1.1, 2.0 } })
local function XP() return torch.abs(X) + 0.1 end
-- name -> transform, input; the PyTorch dims 0 of Cat/Stack are Tocha's 2 and 1 (1-based).
local function cases()
  return {
    Exp = { D.ExpTransform(), X }, Sigmoid = { D.SigmoidTransform(), X }, Tanh = { D.TanhTransform(), X },
    Softplus = { D.SoftplusTransform(), X }, Affine = { D.AffineTransform(0.5, -2.0), X },
    AffineVec = { D.AffineTransform(T({ 1, 2, 3 }), T({ 0.5, -1, 2 }), 1), X },
    Power = { D.PowerTransform(2.5), XP() }, StickBreaking = { D.StickBreakingTransform(), X },
    CorrCholesky = { D.CorrCholeskyTransform(), X },
    Compose = { D.ComposeTransform({ D.ExpTransform(), D.AffineTransform(1, 2) }), X },
    CDF = { D.CumulativeDistributionTransform(D.Normal(T({ 0 }), T({ 1 }))), X },
    IndepExp = { D.IndependentTransform(D.ExpTransform(), 1), X },
    Cat = { D.CatTransform({ D.ExpTransform(), D.AffineTransform(1, 3) }, 2, { 2, 1 }), X },
    Stack = { D.StackTransform({ D.SigmoidTransform(), D.TanhTransform() }, 1), X },
  }
end

function tests.valuesAgainstPyTorch()
  for name, c in pairs(cases()) do
    local t, x = c[1], c[2]
    local y = t(x)
    H.close(tester, y, REF[name].y, 1e-12, name .. ' y')
    H.close(tester, t:logAbsDetJacobian(x, y), REF[name].ladj, 1e-12, name .. ' ladj')
    -- inv(t(x)) == x (bijective transforms).
    tester:assertTensorEq(t:inv()(y), x, 1e-10, name .. ' inv(t(x))')
    tester:assertTensorEq(t:inv():logAbsDetJacobian(y, x), -t:logAbsDetJacobian(x, y), 1e-12, name .. ' inverse ladj')
  end
  H.close(tester, D.SoftmaxTransform()(X), REF.Softmax.y, 1e-12, 'Softmax')
  local L = T({ { { 0.3, 9 }, { -0.4, -0.2 } }, { { 1.5, 2 }, { 0.7, 0.1 } } })
  H.close(tester, D.LowerCholeskyTransform()(L), REF.LowerCholesky.y, 1e-12, 'LowerCholesky')
  -- Pseudo-inverses of the non-bijective ones.
  local y = D.LowerCholeskyTransform()(L)
  tester:assertTensorEq(D.LowerCholeskyTransform()(D.LowerCholeskyTransform():inv()(y)), y, 1e-12, 'LowerCholesky t(inv(y))')
  local s = D.SoftmaxTransform()(X)
  tester:assertTensorEq(D.SoftmaxTransform()(D.SoftmaxTransform():inv()(s)), s, 1e-12, 'Softmax t(inv(y))')
  tester:assertTensorEq(D.AbsTransform()(X), torch.abs(X), 0, 'Abs')
end

-- log |det dy/dx| from the autograd Jacobian of one event (rows: the output coordinates that
-- the transform's log |det J| is defined on).
local function logdet(J)
  local d = torch.linalg.det(J)
  return math.log(math.abs(type(d) == 'number' and d or H.num(d)))
end
function tests.logAbsDetJacobianAgainstAutograd()
  local jac = torch.autograd.functional.jacobian
  -- Elementwise: the diagonal of the Jacobian of the flattened input.
  for _, name in ipairs({ 'Exp', 'Sigmoid', 'Tanh', 'Softplus', 'Affine', 'Power', 'Compose', 'CDF', 'Cat', 'Stack' }) do
    local c = cases()[name]
    local t, x = c[1], c[2]
    local shape = x:size()
    local J = jac(function(v) return t(v:view(shape)):contiguous():view(-1) end, x:contiguous():view(-1))
    local l = t:logAbsDetJacobian(x, t(x)):contiguous():view(-1)
    for i = 1, x:nElement() do
      tester:assertalmosteq(l[i], math.log(math.abs(J[i][i])), 1e-9, name .. ' element ' .. i)
    end
    -- Off-diagonal entries are 0 (elementwise maps).
    tester:assertalmosteq(torch.abs(J - torch.diag(torch.diag(J))):max(), 0, 1e-12, name .. ' diagonal Jacobian')
  end
  -- Vector-valued ones, one event (row of X) at a time.
  for r = 1, 2 do
    local x = X[r]:clone()
    local t = D.AffineTransform(T({ 1, 2, 3 }), T({ 0.5, -1, 2 }), 1)
    tester:assertalmosteq(H.num(t:logAbsDetJacobian(x, t(x))), logdet(jac(function(v) return t(v) end, x)), 1e-9, 'AffineVec')
    local ti = D.IndependentTransform(D.ExpTransform(), 1)
    tester:assertalmosteq(H.num(ti:logAbsDetJacobian(x, ti(x))), logdet(jac(function(v) return ti(v) end, x)), 1e-9, 'Independent')
    local sb = D.StickBreakingTransform()
    -- The simplex has K free coordinates: the Jacobian of the first K outputs.
    local J = jac(function(v) return sb(v):narrow(1, 1, 3) end, x)
    tester:assertalmosteq(H.num(sb:logAbsDetJacobian(x, sb(x))), logdet(J), 1e-9, 'StickBreaking')
    local cc = D.CorrCholeskyTransform()
    -- The Jacobian onto the strict lower triangle of y.
    local Jc = jac(function(v) return D.transforms.trilMatrixToVec(cc(v), -1) end, x)
    tester:assertalmosteq(H.num(cc:logAbsDetJacobian(x, cc(x))), logdet(Jc), 1e-9, 'CorrCholesky')
  end
  -- A larger CorrCholesky (5 x 5) and StickBreaking (6 entries).
  torch.manualSeed(3)
  local x = torch.randn(10):double()
  local cc = D.CorrCholeskyTransform()
  local Jc = torch.autograd.functional.jacobian(function(v) return D.transforms.trilMatrixToVec(cc(v), -1) end, x)
  tester:assertalmosteq(H.num(cc:logAbsDetJacobian(x, cc(x))), logdet(Jc), 1e-8, 'CorrCholesky 5x5')
  tester:assert(torch.all(C.corrCholesky.check(cc(x))), 'CorrCholesky output is a correlation Cholesky factor')
  tester:assertTensorEq(cc:inv()(cc(x)), x, 1e-9, 'CorrCholesky 5x5 inverse')
end

function tests.gradcheckThroughTransforms()
  local function gc(name, t, x)
    x = x:clone():requiresGrad()
    tester:assert(torch.autograd.gradcheck(function(v) return t(v) end, { x }), name .. ' forward')
    tester:assert(torch.autograd.gradcheck(function(v) return t:logAbsDetJacobian(v, t(v)) end, { x }), name .. ' ladj')
  end
  for name, c in pairs(cases()) do gc(name, c[1], c[2]) end
  -- Gradients in the parameters: AffineTransform's loc/scale, PowerTransform's exponent.
  local loc, scale = T({ 1, 2, 3 }):requiresGrad(), T({ 0.5, -1, 2 }):requiresGrad()
  tester:assert(torch.autograd.gradcheck(function(l, s)
    local t = D.AffineTransform(l, s, 1)
    return t:logAbsDetJacobian(X, t(X)) + torch.sum(t(X))
  end, { loc, scale }), 'Affine parameters')
  local e = T({ 2.5 }):requiresGrad()
  tester:assert(torch.autograd.gradcheck(function(v)
    local t = D.PowerTransform(v)
    return t:logAbsDetJacobian(XP(), t(XP())) + t(XP())
  end, { e }), 'Power exponent')
end

function tests.caching()
  local t = D.ExpTransform({ cacheSize = 1 })
  local x = T({ 0.5, 1 })
  local y = t(x)
  tester:assert(rawequal(t(x), y), 'the cached y is returned')
  tester:assert(rawequal(t:inv()(y), x), 'inv(y) is the cached x itself')
  local t0 = D.ExpTransform()
  tester:assert(not rawequal(t0:inv()(t0(x)), x), 'no cache: a new tensor')
  tester:asserteq(t0:withCache(1).cacheSize, 1, 'withCache')
  tester:assert(rawequal(t:withCache(1), t), 'withCache of the same size is the transform')
  tester:assert(rawequal(t:inv():inv(), t), 't:inv():inv() is t')
  local ct = D.ComposeTransform({ D.ExpTransform(), D.AffineTransform(1, 2) }, { cacheSize = 1 })
  tester:asserteq(ct.parts[2].cacheSize, 1, 'ComposeTransform caches its parts')
  local cy = ct(x)
  tester:assert(rawequal(ct:inv()(cy), x), 'compose: the cache runs through the parts')
  tester:asserteq(D.AffineTransform(1, 2, { cacheSize = 1 }):withCache(0).cacheSize, 0, 'Affine withCache')
  H.fails(tester, function() D.ExpTransform({ cacheSize = 2 }) end, { '[distributions.ExpTransform]', 'cacheSize must be 0 or 1' }, 'cacheSize 2')
end

function tests.fieldsAndShapes()
  local e = D.ExpTransform()
  tester:asserteq(e.domain, C.real, 'Exp domain')
  tester:asserteq(e.codomain, C.positive, 'Exp codomain')
  tester:assert(e.bijective and e.sign == 1 and e.eventDim == 0, 'Exp fields')
  tester:assert(not D.AbsTransform().bijective and D.AbsTransform().sign == nil, 'Abs is not bijective')
  tester:asserteq(D.AffineTransform(0, -2).sign, -1, 'Affine sign')
  tester:assertTensorEq(D.AffineTransform(0, T({ -2, 3 })).sign, T({ -1, 1 }), 0, 'Affine tensor sign')
  tester:asserteq(D.AffineTransform(0, 2, 2).domain.eventDim, 2, 'Affine eventDim')
  local sb = D.StickBreakingTransform()
  H.size_is(tester, sb:forwardShape({ 5, 3 }), { 5, 4 }, 'StickBreaking forwardShape')
  H.size_is(tester, sb:inverseShape({ 5, 4 }), { 5, 3 }, 'StickBreaking inverseShape')
  H.size_is(tester, sb:inv():forwardShape({ 4 }), { 3 }, 'inverse forwardShape')
  local cc = D.CorrCholeskyTransform()
  H.size_is(tester, cc:forwardShape({ 2, 6 }), { 2, 4, 4 }, 'CorrCholesky forwardShape')
  H.size_is(tester, cc:inverseShape({ 4, 4 }), { 6 }, 'CorrCholesky inverseShape')
  tester:asserteq(cc.eventDim, nil, 'CorrCholesky: domain and codomain event dims differ')
  tester:assert(cc.domain.eventDim == 1 and cc.codomain.eventDim == 2, 'CorrCholesky event dims')
  H.size_is(tester, D.AffineTransform(T({ 1, 2 }), 1):forwardShape({ 3, 1 }), { 3, 2 }, 'Affine broadcast shape')
  H.size_is(tester, D.PowerTransform(T({ 1, 2 })):forwardShape({}), { 2 }, 'Power broadcast shape')
  local r = D.ReshapeTransform({ 2, 3 }, { 6 })
  H.size_is(tester, r(torch.zeros(4, 2, 3)), { 4, 6 }, 'Reshape')
  H.size_is(tester, r:inv()(torch.zeros(4, 6)), { 4, 2, 3 }, 'Reshape inverse')
  H.size_is(tester, r:logAbsDetJacobian(torch.zeros(4, 2, 3), torch.zeros(4, 6)), { 4 }, 'Reshape ladj')
  H.size_is(tester, r:forwardShape({ 7, 2, 3 }), { 7, 6 }, 'Reshape forwardShape')
  tester:assert(r.domain.eventDim == 2 and r.codomain.eventDim == 1, 'Reshape event dims')
  -- ComposeTransform takes the largest event dims (PyTorch's rule).
  local ct = D.ComposeTransform({ D.ExpTransform(), D.StickBreakingTransform() })
  tester:assert(ct.domain.eventDim == 1 and ct.codomain.eventDim == 1, 'Compose event dims')
  local x = T({ { 0.1, -0.3 }, { 1, 2 } })
  local y = ct(x)
  local manual = torch.sum(x, 2):squeeze(2) + D.StickBreakingTransform():logAbsDetJacobian(torch.exp(x), y)
  tester:assertTensorEq(ct:logAbsDetJacobian(x, y), manual, 1e-12, 'Compose ladj sums the elementwise part')
  tester:assert(D.transforms.identityTransform(x) == x, 'identity')
  tester:assert(ct:inv():inv() == ct, 'compose inv inv')
  -- Equality (TransformedDistribution KL uses it).
  tester:assert(D.AffineTransform(0, 2):equals(D.AffineTransform(0, 2)), 'Affine equals')
  tester:assert(not D.AffineTransform(0, 2):equals(D.AffineTransform(0, 3)), 'Affine differs')
  tester:assert(D.ExpTransform():equals(D.ExpTransform()), 'Exp equals')
  tester:assert(D.ExpTransform():inv():equals(D.ExpTransform():inv()), 'inverse equals')
  tester:assert(not D.ExpTransform():equals(D.SigmoidTransform()), 'different classes')
  tester:assert(D.PowerTransform(T({ 2 })):equals(D.PowerTransform(2)), 'Power equals')
  tester:asserteq(tostring(D.AffineTransform(1, 2)), 'AffineTransform(loc: 1, scale: 2)', 'tostring')
  tester:assert(D.transforms.ExpTransform == D.ExpTransform, 'the transforms namespace')
end

-- Cat / Stack along a batch dim and along an event dim, and their constraints.
function tests.catAndStack()
  local x = T({ { -1.5, -0.3, 0.2 }, { 0.7, 1.1, 2.0 } })
  local t = D.CatTransform({ D.ExpTransform(), D.IndependentTransform(D.AffineTransform(1, 3), 1) }, -1, { 2, 1 })
  tester:asserteq(t.eventDim, 1, 'Cat eventDim')
  -- The event dim is the cat dim: the terms are summed.
  local l = t:logAbsDetJacobian(x, t(x))
  H.close(tester, l, { -1.5 - 0.3 + math.log(3), 0.7 + 1.1 + math.log(3) }, 1e-12, 'Cat over an event dim')
  tester:assert(torch.all(t.codomain.check(t(x))), 'Cat codomain')
  local s = D.StackTransform({ D.ExpTransform(), D.SigmoidTransform() }, 1)
  local mask = s.codomain.check(s(x))
  tester:assert(torch.all(mask), 'Stack codomain')
  H.fails(tester, function() s(torch.zeros(3, 2)) end, { '[distributions.StackTransform]', 'expected 2' }, 'Stack size')
  H.fails(tester, function() D.CatTransform({ D.ExpTransform() }, 1, { 2 })(torch.zeros(3)) end,
    { '[distributions.CatTransform]', 'expected 2' }, 'Cat length')
end

function tests.bijectToAndTransformTo()
  local x = T({ -1.5, 0.2, 2.0 })
  -- PyTorch 1.13's biject_to(c)(x) and log_abs_det_jacobian (float64).
  local ref = {
    { C.positive, { 0.22313016014842982, 1.2214027581601699, 7.38905609893065 }, { -1.5, 0.2, 2.0 } },
    { C.greaterThan(1.5), { 1.72313016014843, 2.7214027581601696, 8.88905609893065 }, { -1.5, 0.2, 2.0 } },
    { C.lessThan(2), { 1.77686983985157, 0.7785972418398301, -5.38905609893065 }, { -1.5, 0.2, 2.0 } },
    { C.interval(1, 3), { 1.3648510476127127, 2.099667994624956, 2.7615941559557644 }, { -1.2096793754055595, -0.7031305582032382, -1.560708841526 } },
    { C.unitInterval, { 0.18242552380635635, 0.549833997312478, 0.8807970779778823 }, { -1.9028265559655049, -1.3962777387631835, -2.2538560220859454 } },
    { C.halfOpenInterval(-1, 1), { -0.6351489523872873, 0.0996679946249559, 0.7615941559557646 }, { -1.2096793754055595, -0.7031305582032382, -1.560708841526 } },
    { C.real, { -1.5, 0.2, 2.0 }, { 0, 0, 0 } },
    { C.nonnegative, { 0.22313016014842982, 1.2214027581601699, 7.38905609893065 }, { -1.5, 0.2, 2.0 } },
  }
  for i, r in ipairs(ref) do
    for _, f in ipairs({ D.bijectTo, D.transformTo }) do
      local t = f(r[1])
      local y = t(x)
      H.close(tester, y, r[2], 1e-12, 'bijectTo ' .. i)
      H.close(tester, t:logAbsDetJacobian(x, y), r[3], 1e-12, 'bijectTo ladj ' .. i)
      tester:assert(torch.all(r[1].check(y)), 'in the set ' .. i)
    end
  end
  tester:assert(torch.isTypeOf(D.bijectTo(C.unitInterval), 'SigmoidTransform'), 'unit interval: a plain sigmoid')
  H.close(tester, D.bijectTo(C.simplex)(x), { 0.06922778450193097, 0.35290456877781967, 0.5089841346891508, 0.06888351203109853 }, 1e-12, 'simplex')
  H.close(tester, D.transformTo(C.simplex)(x), { 0.025259286991162783, 0.1382680081421643, 0.8364727048666729 }, 1e-12, 'simplex softmax')
  tester:assert(torch.isTypeOf(D.transformTo(C.lowerCholesky), 'LowerCholeskyTransform'), 'lower Cholesky')
  tester:assert(torch.isTypeOf(D.bijectTo(C.corrCholesky), 'CorrCholeskyTransform'), 'corr Cholesky')
  local iv = D.bijectTo(C.realVector)
  tester:assert(torch.isTypeOf(iv, 'IndependentTransform') and iv.reinterpretedBatchNdims == 1, 'realVector')
  -- Tensor bounds, cat and stack.
  local lo = T({ 0, 1, 2 })
  tester:assert(torch.all(C.greaterThan(lo).check(D.bijectTo(C.greaterThan(lo))(x))), 'tensor bound')
  local cc = C.cat({ C.positive, C.interval(0, 2) }, 1, { 2, 1 })
  tester:assert(torch.all(cc.check(D.bijectTo(cc)(x))), 'cat constraint')
  local sc = C.stack({ C.positive, C.real, C.lessThan(0) }, 1)
  tester:assert(torch.all(sc.check(D.transformTo(sc)(x))), 'stack constraint')
  H.fails(tester, function() D.bijectTo(C.lowerCholesky) end, { '[distributions.bijectTo]', 'cannot transform lowerCholesky' }, 'unregistered')
  H.fails(tester, function() D.bijectTo(3) end, { '[distributions.bijectTo]', 'expected a constraint' }, 'not a constraint')
  D.registerBijectTo('positiveDefinite', function() return D.ExpTransform() end)
  tester:assert(torch.isTypeOf(D.bijectTo(C.positiveDefinite), 'ExpTransform'), 'register')
end

function tests.newConstraints()
  local x = T({ -1, 0, 0.5, 2 })
  local function eq(mask, expected, msg) H.close(tester, mask:double(), expected, 0, msg) end
  eq(C.greaterThan(0).check(x), { 0, 0, 1, 1 }, 'greaterThan')
  eq(C.greaterThanEq(0).check(x), { 0, 1, 1, 1 }, 'greaterThanEq')
  eq(C.lessThan(0.5).check(x), { 1, 1, 0, 0 }, 'lessThan')
  eq(C.interval(0, 0.5).check(x), { 0, 1, 1, 0 }, 'interval')
  eq(C.positiveInteger.check(x), { 0, 0, 0, 1 }, 'positiveInteger')
  eq(C.integer.check(x), { 1, 1, 0, 1 }, 'integer')
  eq(C.integerGreaterThan(0).check(x), { 0, 1, 0, 1 }, 'integerGreaterThan')
  eq(C.integerLessThan(0).check(x), { 1, 1, 0, 0 }, 'integerLessThan')
  eq(C.independent(C.positive, 1).check(T({ { 1, 2 }, { 1, -1 } })), { 1, 0 }, 'independent')
  tester:asserteq(C.independent(C.simplex, 2).eventDim, 3, 'independent eventDim')
  eq(C.lowerTriangular.check(T({ { { 1, 0 }, { 2, 3 } }, { { 1, 1 }, { 2, 3 } } })), { 1, 0 }, 'lowerTriangular')
  local L = torch.linalg.cholesky(T({ { 1, 0.5 }, { 0.5, 1 } }))
  eq(C.corrCholesky.check(torch.stack({ L, L * 2 }, 1)), { 1, 0 }, 'corrCholesky')
  eq(C.square.check(torch.zeros(3, 2, 2)), { 1, 1, 1 }, 'square')
  eq(C.square.check(torch.zeros(2, 3)), { 0 }, 'not square')
  eq(C.symmetric.check(T({ { { 1, 2 }, { 2, 1 } }, { { 1, 2 }, { 3, 1 } } })), { 1, 0 }, 'symmetric')
  eq(C.positiveSemidefinite.check(T({ { { 1, 1 }, { 1, 1 } }, { { 1, 2 }, { 2, 1 } } })), { 1, 0 }, 'positiveSemidefinite')
  eq(C.multinomial(3).check(T({ { 1, 2 }, { 2, 2 } })), { 1, 0 }, 'multinomial')
  eq(C.cat({ C.positive, C.real }, 1, { 2, 2 }).check(x), { 0, 0, 1, 1 }, 'cat')
  eq(C.stack({ C.positive, C.lessThan(0) }, 2).check(T({ { 1, -1 }, { -1, 1 } })), { 1, 1, 0, 0 }, 'stack')
  tester:asserteq(C.stack({ C.real }, -1).eventDim, 1, 'stack along an event dim')
  tester:assert(C.isDependent(C.dependent) and C.dependent({ eventDim = 1 }).eventDim == 1, 'dependent')
  H.fails(tester, function() C.dependent.check(x) end, { 'dependent' }, 'dependent check')
  H.fails(tester, function() C.validate('distributions.X', 'v', C.greaterThan(1), T({ 0 })) end,
    { '[distributions.X] v must be greater than 1, got 0' }, 'validate')
  tester:asserteq(C.positive.kind, 'greaterThan', 'positive is greaterThan(0)')
  tester:asserteq(C.unitInterval.upperBound, 1, 'unitInterval bounds')
end

function tests.errors()
  H.fails(tester, function() D.ExpTransform()(3) end, { '[distributions.ExpTransform]', 'x must be a tensor' }, 'number x')
  H.fails(tester, function() D.ExpTransform():inv()('a') end, { '[distributions.ExpTransform]', 'y must be a tensor' }, 'inverse input')
  H.fails(tester, function() D.AbsTransform():logAbsDetJacobian(X, X) end, { '[distributions.AbsTransform]', 'not bijective' }, 'Abs ladj')
  H.fails(tester, function() D.AffineTransform('a', 1) end, { '[distributions.AffineTransform]', 'loc must be a number or a tensor' }, 'Affine loc')
  H.fails(tester, function() D.AffineTransform(0, 1, -1) end, { '[distributions.AffineTransform]', 'eventDim' }, 'Affine eventDim')
  H.fails(tester, function() D.ComposeTransform({ 1 }) end, { '[distributions.ComposeTransform]', 'part 1 must be a transform' }, 'Compose part')
  H.fails(tester, function() D.IndependentTransform(D.ExpTransform(), -1) end, { '[distributions.IndependentTransform]' }, 'Independent n')
  H.fails(tester, function() D.ReshapeTransform({ 2, 3 }, { 5 }) end, { '[distributions.ReshapeTransform]', 'different numbers of elements' }, 'Reshape')
  H.fails(tester, function() D.ReshapeTransform({ 2, 3 }, { 6 })(torch.zeros(3, 2)) end, { '[distributions.ReshapeTransform]', 'does not end with' }, 'Reshape input')
  H.fails(tester, function() D.CorrCholeskyTransform()(torch.zeros(4)) end, { '[distributions.CorrCholeskyTransform]', 'not a triangular number' }, 'CorrCholesky length')
  H.fails(tester, function() D.CorrCholeskyTransform():forwardShape({ 4 }) end, { '[distributions.CorrCholeskyTransform]', 'triangular' }, 'CorrCholesky shape')
  H.fails(tester, function() D.StickBreakingTransform()(torch.full({}, 0)) end, { '[distributions.StickBreakingTransform]', 'at least 1 dims' }, 'StickBreaking 0-dim')
  H.fails(tester, function() D.ExpTransform({ bad = 1 }) end, { '[distributions.ExpTransform]', 'unknown option bad' }, 'option')
  H.fails(tester, function() D.CumulativeDistributionTransform(3) end, { '[distributions.CumulativeDistributionTransform]', 'must be a distribution' }, 'CDF')
  H.fails(tester, function() D.StackTransform({ D.ExpTransform() }, 0) end, { '[distributions.StackTransform]', 'dim must be' }, 'Stack dim 0')
end

function tests.float32()
  local x = X:float()
  for name, c in pairs(cases()) do
    if name ~= 'AffineVec' and name ~= 'Power' and name ~= 'CDF' then
      local t = c[1]
      local y = t(x)
      tester:asserteq(torch.type(y), 'torch.FloatTensor', name .. ' keeps float')
      H.close(tester, y, REF[name].y, 1e-5, name .. ' float y')
    end
  end
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  for name, c in pairs(cases()) do
    if name ~= 'AffineVec' and name ~= 'CDF' then
      local t, x = c[1], c[2]
      local y = t(x:to('cuda'))
      tester:asserteq(y:device():sub(1, 4), 'cuda', name .. ' on cuda')
      tester:assertTensorEq(y:double(), t(x), 1e-10, name .. ' cuda y')
      tester:assertTensorEq(t:logAbsDetJacobian(x:to('cuda'), y):double(), t:logAbsDetJacobian(x, t(x)), 1e-10, name .. ' cuda ladj')
    end
  end
end

tester:add(tests)
tester:run()
