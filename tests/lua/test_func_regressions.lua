-- Regressions found by the review of torch.func and torch.autograd.functional against PyTorch 1.13
-- (lua/torch/func*.lua, lua/torch/autograd_functional*.lua): transforms nested through closures
-- and through arguments that argnums leaves out (Note [Levels]), arguments changed in place
-- (Note [Arguments changed in place]), vmap's unmapped results (Note [Unmapped results]) and the
-- random generator after a randomness error; then a cross-check of values and of gradients through
-- createGraph against PyTorch 1.13's (torch.autograd.functional and functorch 1.13, float64, run by
-- /usr/bin/python3; the values are pasted below).
require 'nn'
local Fn, AF = torch.func, torch.autograd.functional
local tester = torch.Tester()
local tests = torch.TestSuite()

local function D(t) return torch.DoubleTensor(t) end
local function err(pattern, f, ...)
  local ok, e = pcall(f, ...)
  tester:assert(not ok, 'expected an error matching ' .. pattern)
  if not ok then tester:assert(tostring(e):find(pattern, 1, true) ~= nil, tostring(e)) end
end
-- flat values of a tensor, for comparison with PyTorch's flattened results
local function near(t, expected, tol, what)
  tester:assert(torch.isTensor(t), (what or '') .. ': expected a tensor, got ' .. torch.type(t))
  if not torch.isTensor(t) then return end
  tester:asserteq(t:nElement(), #expected, (what or '') .. ': number of elements')
  tester:assertTensorEq(t:contiguous():view(-1), D(expected), tol or 1e-10, what)
end

local a, b = D({ 0.3, -0.7, 1.2 }), D({ 0.5, 1.5 })
local va, vb = D({ 1, 2, -1 }), D({ 0.5, -0.5 })
-- b[1] as a tensor of a's size (b[1] is a Lua number in Torch7, which carries no gradient)
local function b1(y, n) return y:narrow(1, 1, 1):expand(n or 3) end
-- s(a, b) = sum(a^2 b1^3) + sum(exp(a)) + sum(b^4)
local function s(x, y)
  return torch.sum(torch.cmul(torch.pow(x, 2), torch.pow(b1(y), 3))) + torch.sum(torch.exp(x)) + torch.sum(torch.pow(y, 4))
end
-- f2(a, b) = {sin(a_i b_j), sum(a^2) b}
local function f2(x, y)
  local o = torch.sin(torch.cmul(x:view(3, 1):expand(3, 2), y:view(1, 2):expand(3, 2)))
  return { o, torch.sum(torch.pow(x, 2)) * y }
end

-- ---- Note [Levels]: inner transforms keep their graph for an outer one -----------------------------

function tests.innerTransformThroughAClosure()
  -- d/dy sum(grad_x sum(sin(x) * y)) = cos(x): the inner grad sees y only through the closure. The
  -- inner result was detached (no input of its own required grad): an error (a number) for grad,
  -- silent zeros for jacrev.
  local cos = torch.cos(a)
  local g = Fn.grad(function(y)
    return torch.sum(Fn.grad(function(x) return torch.sum(torch.cmul(torch.sin(x), y)) end)(a))
  end)(a)
  tester:assertTensorEq(g, cos, 1e-12, 'grad of grad through a closure')
  local j = Fn.jacrev(function(y)
    return Fn.jacrev(function(x) return torch.cmul(torch.sin(x), y) end)(a):sum(1)
  end)(a)
  tester:assertTensorEq(j:view(3, 3), torch.diag(cos), 1e-12, 'jacrev of jacrev through a closure')
  local gj = Fn.grad(function(y)
    local _, t = Fn.jvp(function(x) return torch.cmul(torch.sin(x), y) end, a, torch.ones(3):double())
    return torch.sum(t)
  end)(a)
  tester:assertTensorEq(gj, cos, 1e-12, 'grad of jvp through a closure')
  local gv = Fn.grad(function(y)
    local _, fn = Fn.vjp(function(x) return torch.cmul(torch.sin(x), y) end, a)
    return torch.sum(fn(torch.ones(3):double()))
  end)(a)
  tester:assertTensorEq(gv, cos, 1e-12, 'grad of vjp through a closure')
  local gf = Fn.grad(function(y)
    return torch.sum(Fn.jacfwd(function(x) return torch.cmul(torch.sin(x), y) end)(a))
  end)(a)
  tester:assertTensorEq(gf, cos, 1e-12, 'grad of jacfwd through a closure')
end

function tests.innerTransformThroughAnArgumentLeftOut()
  -- the outer stand-in reaches the inner function as an argument argnums does not name
  local g = Fn.grad(function(y)
    return torch.sum(Fn.grad(function(x, w) return torch.sum(torch.cmul(torch.sin(x), w)) end)(a, y))
  end)(a)
  tester:assertTensorEq(g, torch.cos(a), 1e-12)
  -- PyTorch 1.13: jacrev(grad(s, argnums=1), argnums=0)(a, b)
  near(Fn.jacrev(Fn.grad(s, { argnums = 2 }), { argnums = 1 })(a, b), { 0.45, -1.05, 1.8, 0, 0, 0 }, 1e-12, 'Q')
  -- at the outermost level an argument left out that requires grad keeps the graph (PyTorch's result
  -- is a function of it): grad_x sum(x * w) = w, whose gradient with respect to w is ones
  local w = b:clone():requiresGrad()
  local gw = Fn.grad(function(x, y) return torch.sum(torch.cmul(x, y)) end)(D({ 1, 2 }), w)
  tester:assert(gw:needsGrad(), 'the gradient is a function of w')
  tester:assertTensorEq(torch.autograd.grad({ torch.sum(gw) }, { w })[1], torch.ones(2):double(), 0)
  tester:assert(w.grad == nil, 'w.grad untouched')
end

function tests.argumentsLeftOutThatAreObjectsOrCycles()
  -- a module passed along holds parameters that require grad; they are not an outer transform's
  -- stand-ins, so an outermost gradient is still detached
  local m = nn.Linear(2, 2):double()
  local g = Fn.grad(function(p, mod, inp) return torch.sum(torch.tanh(Fn.functionalCall(mod, p, inp))) end)(
    { weight = torch.zeros(2, 2):double():fill(0.5), bias = m.bias:detach():clone() }, m, D({ { 1, 2 } }))
  tester:assert(not g.weight:needsGrad() and not g.bias:needsGrad(), 'outermost results are detached')
  -- a table with a cycle among the arguments (a stack overflow)
  local cyc = {}
  cyc.self = cyc
  tester:assertTensorEq(Fn.grad(function(t, c) return torch.sum(torch.pow(t, 2)) end)(a, cyc), a * 2, 1e-12)
  tester:assertTensorEq(Fn.vmap(function(t, c) return t * 2 end, { inDims = { 1, false } })(a, cyc), a * 2, 0)
end

function tests.levelIsRestoredAfterAnError()
  for _, make in ipairs({
    function() return Fn.grad(function() error('boom') end)(a) end,
    function() return Fn.gradAndValue(function() error('boom') end)(a) end,
    function() return Fn.jacrev(function() error('boom') end)(a) end,
    function() return Fn.jacfwd(function() error('boom') end)(a) end,
    function() return Fn.jvp(function() error('boom') end, a, a) end,
    function() return Fn.vjp(function() error('boom') end, a) end,
    function() return Fn.hessian(function() error('boom') end)(a) end,
  }) do
    err('boom', make)
  end
  -- back at the outermost level: results are detached again
  local g = Fn.grad(function(x) return torch.sum(torch.pow(x, 3)) end)(a)
  tester:assert(not g:needsGrad(), 'an outermost grad is detached after errors in nested ones')
  tester:assert(not Fn.jacrev(torch.sin)(a):needsGrad(), 'an outermost jacrev is detached')
  -- and grad mode is as it was
  torch.noGrad(function()
    pcall(Fn.grad(function() error('boom') end), a)
    pcall(AF.jacobian, function() error('boom') end, a)
    pcall(Fn.vmap(function(x) return Fn.grad(function() error('boom') end)(x) end), torch.zeros(2, 2):double())
    tester:assert(not torch.isGradEnabled(), 'grad mode is off again')
  end)
  tester:assert(torch.isGradEnabled(), 'grad mode is on again')
end

-- ---- Note [Arguments changed in place] --------------------------------------------------------------

function tests.argumentChangedInPlaceIsAnError()
  -- f(x) = sum((2x)^2) by x:mul(2): the gradient was taken at the doubled value (4x instead of 8x)
  local f = function(x) x:mul(2) return torch.sum(torch.pow(x, 2)) end
  err('[func.grad] the function modified a differentiated argument in place', Fn.grad(f), a:clone())
  err('[func.gradAndValue] the function modified', Fn.gradAndValue(f), a:clone())
  err('[func.vjp] the function modified', Fn.vjp, function(x) x:mul(2) return torch.pow(x, 2) end, a:clone())
  err('[func.grad] the function modified', Fn.grad(function(p) p.w:add(1) return torch.sum(p.w) end), { w = a:clone() })
  -- the transforms on torch.autograd.functional work on copies and say so too; the input is kept
  local x = a:clone()
  err('[autograd.functional.jacobian] the function modified input 1 in place', Fn.jacrev(function(t) t:mul(2) return t * 1 end), x)
  err('[autograd.functional.jvp] the function modified input 1 in place', Fn.jvp, function(t) t:mul(2) return t * 1 end, x, x)
  tester:assertTensorEq(x, a, 0, 'the caller\'s tensor is unchanged')
  -- an in-place op on an intermediate result is fine
  local g = Fn.grad(function(t) local u = torch.pow(t, 2) u:mul(2) return torch.sum(u) end)(a)
  tester:assertTensorEq(g, a * 4, 1e-12)
end

function tests.vjpCotangentsMustMatchTheOutput()
  -- the leaves were paired in order: an array for an output {p = .., q = ..} was taken by sorted keys
  local _, fn = Fn.vjp(function(x) return { p = x * 2, q = x * 3 } end, a)
  err('[func.vjp] vjpFn: the cotangents must have the structure of the output, {p=T, q=T}, got {1=T, 2=T}',
    fn, { torch.ones(3):double(), torch.zeros(3):double() })
  tester:assertTensorEq(fn({ q = torch.ones(3):double(), p = torch.zeros(3):double() }), D({ 3, 3, 3 }), 0)
  local _, fn1 = Fn.vjp(torch.sin, a)
  err('[func.vjp] vjpFn: the cotangents must have the structure of the output, T, got {1=T}', fn1, { torch.ones(3):double() })
  -- the Jacobians take arrays of outputs; a table with keys is named as such (it was 'an empty table')
  err('[autograd.functional.jacobian] the output of the function is a table with keys (such as u)',
    Fn.jacrev(function(x) return { u = x } end), a)
end

-- ---- vmap ------------------------------------------------------------------------------------------------

function tests.vmapUnmappedResultMustNotDependOnTheBatch()
  -- outDims false returned slice 1's value even when the slices differed
  local X = D({ { 1, 2 }, { 3, 4 } })
  err('[func.vmap] outDims[1] is false but result 1 differs between slice 1 and slice 2',
    Fn.vmap(function(x) return x * 2 end, { outDims = false }), X)
  err('outDims[2] is false but result 2 differs', Fn.vmap(function(x) return x, { t = x * 2 } end, { outDims = { 1, false } }), X)
  -- a result that is the same for every slice is returned once
  local c = D({ 7, 8 })
  local y, k = Fn.vmap(function(x) return x * 2, c * 1 end, { outDims = { 1, false } })(X)
  tester:assertTensorEq(y, X * 2, 0)
  tester:assertTensorEq(k, c, 0)
  local n = Fn.vmap(function(x) return 3 end, { outDims = false })(X)
  tester:asserteq(n, 3)
end

function tests.vmapArgumentErrors()
  -- PyTorch's None in in_dims is false here: a nil entry is named
  err('[func.vmap] inDims[1] must be a non-zero integer dim (1-based, negative from the end) or false, got nil',
    Fn.vmap(function(x, y) return y * 2 end, { inDims = { nil, 1 } }), a, torch.ones(2, 2):double())
  err('[func.vmap] inDims lists 1 entries for 2 arguments', Fn.vmap(function(x, y) return x end, { inDims = { 1 } }), a, b)
  err('[func.vmap] chunkSize must be a positive integer, got 0', Fn.vmap, torch.sin, { chunkSize = 0 })
  tester:assertTensorEq(Fn.vmap(torch.sin, { chunkSize = 2 })(D({ { 1, 2 }, { 3, 4 }, { 5, 6 } })),
    torch.sin(D({ { 1, 2 }, { 3, 4 }, { 5, 6 } })), 1e-15)
  -- the errors show the value received (they said 'got number' or 'got string')
  err('[func.vmap] inDims must be a non-zero integer dim (1-based, negative from the end) or false, got 1.5',
    Fn.vmap(torch.sin, { inDims = 1.5 }), a)
  err([[[func.vmap] randomness must be 'error', 'different' or 'same', got "sometimes"]], Fn.vmap, torch.sin, { randomness = 'sometimes' })
  err('[func.grad] argnums must be a positive integer or a list of them (1-based), got 0', Fn.grad, torch.sin, { argnums = 0 })
  err('[func.jacrev] argnums must be a positive integer or a list of them (1-based), got 0', Fn.jacrev, torch.sin, { argnums = { 0 } })
  err([[[autograd.functional.jacobian] strategy must be 'reverseMode' or 'forwardMode', got "forward-mode"]],
    AF.jacobian, torch.sin, a, { strategy = 'forward-mode' })
  -- PyTorch 1.13 returns an empty batch; func runs per slice here, so the result's shape is unknown
  err('[func.vmap] the mapped dims have size 0', Fn.vmap(torch.sin), torch.DoubleTensor(0, 3))
end

function tests.vmapRandomnessErrorLeavesTheGenerator()
  torch.manualSeed(7)
  local before = torch.getRNGState()
  err("[func.vmap] the function draws random numbers", Fn.vmap(function(x) return x + torch.randn(2):double() end),
    torch.zeros(3, 2):double())
  tester:assert(torch.equal(before, torch.getRNGState()), 'the generator is as it was')
end

function tests.vmapRandomnessWithAGenerator()
  -- vmap watched only the default generators' states, so a draw from a torch.Generator passed
  -- randomness = 'error' and differed between slices under 'same' (PyTorch 1.13 errors, and repeats
  -- the draw); it now snapshots every live generator (torch._liveGenerators, lua/torch/random.lua).
  local g = torch.Generator()
  err('[func.vmap] the function draws random numbers',
    Fn.vmap(function(x) return x + torch.randn(g, 2):double() end), torch.zeros(3, 2):double())
  local r = Fn.vmap(function(x) return x + torch.randn(g, 2):double() end, { randomness = 'same' })(torch.zeros(3, 2):double())
  tester:assertTensorEq(r[1], r[3], 0)
end

function tests.vmapAgainstPyTorch()
  -- PyTorch 1.13: vmap(vmap(lambda x, y: x*y, in_dims=(0, None)), in_dims=(None, 0))(a, b)
  near(Fn.vmap(Fn.vmap(function(x, y) return x * y end, { inDims = { 1, false } }), { inDims = { false, 1 } })(a, b),
    { 0.15, -0.35, 0.6, 0.45, -1.05, 1.8 }, 1e-12, 'nested vmap')
  -- vmap(lambda x: (x.sum(), (x*2, x[0])))(arange(6).view(2, 3)): a number and a table of results
  local X = torch.range(0, 5):double():view(2, 3)
  local s1, t = Fn.vmap(function(x) return torch.sum(x), { x * 2, x:narrow(1, 1, 1):view({}) } end)(X)
  near(s1, { 3, 12 }, 0, 'sum')
  near(t[1], { 0, 2, 4, 6, 8, 10 }, 0, 'x * 2')
  near(t[2], { 0, 3 }, 0, 'x[0]')
  -- in_dims=-1, out_dims=1 (0-based in PyTorch; 2 here)
  local J = Fn.vmap(function(x) return torch.cmul(x:view(1, 2):expand(2, 2), torch.ones(2, 1):double():expand(2, 2)) end,
    { inDims = -1, outDims = 2 })(X)
  tester:assertTableEq(J:size():totable(), { 2, 3, 2 })
  near(J, { 0, 3, 1, 4, 2, 5, 0, 3, 1, 4, 2, 5 }, 0, 'inDims -1, outDims 2')
  -- per-sample gradients: vmap(grad(lambda w, x: tanh(x*w).sum()), in_dims=(None, 0))(b, X)
  local X3 = torch.range(0, 5):double():view(3, 2) * 0.3
  near(Fn.vmap(Fn.grad(function(w, x) return torch.sum(torch.tanh(torch.cmul(x, w))) end), { inDims = { false, 1 } })(b, X3),
    { 0.0, 0.24660036881071615, 0.5490821770959775, 0.21242776494209484, 0.8538933151046674, 0.06519737833335146 },
    1e-12, 'per-sample gradients')
end

-- ---- values against PyTorch 1.13 --------------------------------------------------------------------------

function tests.functionalAgainstPyTorch()
  local A_ab = { 0.4943855389680211, 0, 0, 1.3506706535290154, 0, 0, 0, 0.46968635642368944, 0, 0, 0.7463565718375906, 0,
    0, 0, 0.41266780745483916, 0, 0, -0.34080314203963036 }
  local A_bb = { 0.29663132338081266, 0, 0, 0.27013413070580305, -0.6575608989931652, 0, 0, -0.34829973352420895,
    0.9904027378916139, 0, 0, -0.2726425136317043 }
  for _, strategy in ipairs({ 'reverseMode', 'forwardMode' }) do
    local J = AF.jacobian(f2, { a, b }, { strategy = strategy, vectorize = true })
    near(J[1][1], A_ab, 1e-12, strategy .. ' J11')
    near(J[1][2], A_bb, 1e-12, strategy .. ' J12')
    near(J[2][1], { 0.3, -0.7, 1.2, 0.9, -2.1, 3.6 }, 1e-12, strategy .. ' J21')
    near(J[2][2], { 2.02, 0, 0, 2.02 }, 1e-12, strategy .. ' J22')
    local Hs = AF.hessian(s, { a, b }, { outerJacobianStrategy = strategy })
    near(Hs[1][1], { 1.5998588075760032, 0, 0, 0, 0.7465853037914095, 0, 0, 0, 3.5701169227365472 }, 1e-12, 'H11')
    near(Hs[1][2], { 0.45, 0, -1.05, 0, 1.8, 0 }, 1e-12, 'H12')
    near(Hs[2][1], { 0.45, -1.05, 1.8, 0, 0, 0 }, 1e-12, 'H21')
    near(Hs[2][2], { 9.06, 0, 0, 27 }, 1e-12, 'H22')
  end
  local out, g = AF.vjp(f2, { a, b }, { torch.ones(3, 2):double(), D({ 1, 3 }) })
  near(out[2], { 1.01, 3.03 }, 1e-12, 'vjp out')
  near(g[1], { 4.845056192497037, -5.78395707173872, 12.071864665415209 }, 1e-12, 'vjp 1')
  near(g[2], { 2.6494731622792616, 5.709191883549891 }, 1e-12, 'vjp 2')
  local _, jv = AF.jvp(f2, { a, b }, { va, vb })
  near(jv[1], { 0.6427012006584275, 1.2156035881761138, 0.6105922633507963, 1.666863010437286, 0.08253356149096781,
    0.47712439885548247 }, 1e-12, 'jvp 1')
  near(jv[2], { -1.29, -7.91 }, 1e-12, 'jvp 2')
  for _, name in ipairs({ 'hvp', 'vhp' }) do
    local o, hv = AF[name](s, { a, b }, { va, vb })
    tester:assertalmosteq(o:item(), 10.544061034103962, 1e-12)
    near(hv[1], { 1.8248588075760033, 0.9681706075828191, -2.6701169227365473 }, 1e-12, name .. ' 1')
    near(hv[2], { 1.08, -13.5 }, 1e-12, name .. ' 2')
  end
end

function tests.strictAgainstPyTorch()
  local lin = function(x) return torch.sum(x * 2) end
  local const2 = function(x, y) return { x * 2, torch.ones(2):double() } end
  -- errors where PyTorch 1.13 raises in strict mode
  err('[autograd.functional.hessian] strict: the jacobian with respect to input 1 is independent', AF.hessian, lin, a, { strict = true })
  err('[autograd.functional.hvp] strict', AF.hvp, lin, a, va, { strict = true })
  err('[autograd.functional.vhp] strict', AF.vhp, lin, a, va, { strict = true })
  err('[autograd.functional.jvp] strict: output 2 of the function does not require grad', AF.jvp, const2, { a, b }, { va, vb }, { strict = true })
  err('[autograd.functional.vjp] strict: output 2', AF.vjp, const2, { a, b }, { va, vb }, { strict = true })
  err('[autograd.functional.jacobian] strict: output 2', AF.jacobian, const2, { a, b }, { strict = true })
  -- zeros without strict
  near(AF.hessian(lin, a), { 0, 0, 0, 0, 0, 0, 0, 0, 0 }, 0, 'hessian of a linear function')
  local _, hv = AF.hvp(lin, a, va)
  near(hv, { 0, 0, 0 }, 0, 'hvp')
  local o, jv = AF.jvp(const2, { a, b }, { va, vb })
  near(o[2], { 1, 1 }, 0)
  near(jv[1], { 2, 4, -2 }, 0)
  near(jv[2], { 0, 0 }, 0)
  -- strict with createGraph accepts a function whose hessian is constant (x^2), as PyTorch
  near(AF.hessian(function(x) return torch.sum(torch.pow(x, 2)) end, a, { strict = true, createGraph = true }),
    { 2, 0, 0, 0, 2, 0, 0, 0, 2 }, 0)
end

function tests.createGraphGradientsAgainstPyTorch()
  -- (sum(out) + sum(result^2)):backward() with x and v requiring grad, PyTorch 1.13's x.grad, v.grad
  local f = function(x) return torch.sin(x) * torch.sum(x) end
  local sc = function(x) return torch.sum(torch.cmul(torch.sin(x), torch.pow(x, 2))) end
  local expected = {
    vjp = { { -8.650692361585516, -15.480357687396902, -2.2330200730326832 }, { -4.183665196326308, 4.3945060619446155, -8.883451028173614 } },
    jvp = { { 7.136691517519095, 2.114765501106072, 6.753252027865512 }, { 5.890448532730474, 3.739644156686995, 4.731478848584461 } },
    hvp = { { 17.762189394414243, -36.308667265101604, -20.117700876053682 }, { 5.8539975267607804, 38.79612646918694, -10.226585521766426 } },
    vhp = { { 17.76218939441424, -36.308667265101604, -20.117700876053682 }, { 5.8539975267607804, 38.79612646918694, -10.226585521766424 } },
    jacobian = { { 5.514076378840434, 0.8072692236402847, 3.2752463190073886 } },
    hessian = { { 17.498896986396133, -9.396336174750944, -22.87638984882144 } },
  }
  for name, e in pairs(expected) do
    for _, strategy in ipairs({ 'reverseMode', 'forwardMode' }) do
      local x = a:clone():requiresGrad()
      local v = va:clone():requiresGrad()
      local loss
      if name == 'vjp' or name == 'jvp' then
        local o, r = AF[name](f, x, v, { createGraph = true })
        loss = torch.sum(o) + torch.sum(torch.pow(r, 2))
      elseif name == 'hvp' or name == 'vhp' then
        local o, r = AF[name](sc, x, v, { createGraph = true })
        loss = torch.sum(o) + torch.sum(torch.pow(r, 2))
      elseif name == 'jacobian' then
        loss = torch.sum(torch.pow(AF.jacobian(f, x, { createGraph = true, strategy = strategy }), 2))
      else
        loss = torch.sum(torch.pow(AF.hessian(sc, x, { createGraph = true, outerJacobianStrategy = strategy }), 2))
      end
      loss:backward()
      near(x.grad, e[1], 1e-10, name .. ' x.grad')
      if e[2] then near(v.grad, e[2], 1e-10, name .. ' v.grad') end
    end
  end
  -- the same through torch.func: hessian and jacfwd of inputs that require grad keep the graph
  local x = a:clone():requiresGrad()
  torch.sum(torch.pow(Fn.hessian(sc)(x), 2)):backward()
  near(x.grad, expected.hessian[1], 1e-10, 'func.hessian')
  x = a:clone():requiresGrad()
  torch.sum(torch.pow(Fn.jacfwd(f)(x), 2)):backward()
  near(x.grad, expected.jacobian[1], 1e-10, 'func.jacfwd')
end

function tests.funcAgainstPyTorch()
  local J = Fn.jacfwd(f2, { argnums = { 1, 2 } })(a, b)
  near(J[1][2], { 0.29663132338081266, 0, 0, 0.27013413070580305, -0.6575608989931652, 0, 0, -0.34829973352420895,
    0.9904027378916139, 0, 0, -0.2726425136317043 }, 1e-12, 'jacfwd')
  -- jacfwd(argnums=1, has_aux=True) (argnums=2 here)
  local j, aux = Fn.jacfwd(function(x, y) return torch.sin(torch.cmul(x, b1(y))), x * 1 end, { argnums = 2, hasAux = true })(a, b)
  near(j, { 0.29663132338081266, 0, -0.6575608989931652, 0, 0.9904027378916139, 0 }, 1e-12, 'jacfwd hasAux')
  tester:assertTensorEq(aux, a, 0)
  local H = Fn.hessian(s, { argnums = { 1, 2 } })(a, b)
  near(H[1][2], { 0.45, 0, -1.05, 0, 1.8, 0 }, 1e-12, 'hessian argnums')
  near(Fn.hessian(s, { argnums = 2 })(a, b), { 9.06, 0, 0, 27 }, 1e-12, 'hessian argnums 2')
  -- grad(argnums=(1, 0)): the gradients in argnums' order
  local g = Fn.grad(s, { argnums = { 2, 1 } })(a, b)
  near(g[1], { 2.015, 13.5 }, 1e-12, 'grad b')
  near(g[2], { 1.4248588075760031, 0.32158530379140954, 3.620116922736547 }, 1e-12, 'grad a')
  -- jacrev of a non-contiguous input
  local nc = torch.range(0, 5):double():view(2, 3):t()
  local Jn = Fn.jacrev(torch.sin)(nc)
  tester:assertTableEq(Jn:size():totable(), { 3, 2, 3, 2 })
  tester:assertTensorEq(Jn:view(6, 6), torch.diag(torch.cos(nc:contiguous():view(-1))), 1e-12)
  near(Fn.jacrev(Fn.jacrev(function(x) return torch.sum(torch.pow(x, 3)) end))(a), { 1.8, 0, 0, 0, -4.2, 0, 0, 0, 7.2 }, 1e-12)
  local gr, value, aux2 = Fn.gradAndValue(function(x) return torch.sum(torch.pow(x, 2)), x * 3 end, { hasAux = true })(a)
  near(gr, { 0.6, -1.4, 2.4 }, 1e-12)
  tester:assertalmosteq(value:item(), 2.02, 1e-12)
  near(aux2, { 0.9, -2.1, 3.6 }, 1e-12)
  local _, fn = Fn.vjp(function(x, y) return { torch.cmul(torch.sin(x), b1(y)), y * 2 } end, a, b)
  local g1, g2 = fn({ torch.ones(3):double(), D({ 1, -1 }) })
  near(g1, { 0.477668244562803, 0.38242109364224425, 0.1811788772383368 }, 1e-12, 'vjp 1')
  near(g2, { 2.583341605390875, -2 }, 1e-12, 'vjp 2')
  local y, t = Fn.jvp(function(x, yy) return torch.sum(torch.cmul(torch.sin(x), b1(yy))) end, { a, b }, { va, vb })
  tester:assertalmosteq(y:item(), 0.29167080269543744, 1e-12)
  tester:assertalmosteq(t:item(), 1.353002357304392, 1e-12)
end

function tests.userTensorsAndGradsUntouched()
  local x = a:clone():requiresGrad()
  x.grad = torch.ones(3):double()
  local g = Fn.grad(function(t) return torch.sum(torch.pow(t, 2)) end)(x)
  tester:assertTensorEq(g, a * 2, 1e-12)
  tester:assert(g:needsGrad(), 'a gradient of an input that requires grad keeps its graph, as PyTorch')
  tester:assert(not AF.jacobian(function(t) return torch.pow(t, 2) end, x):needsGrad(), 'jacobian without createGraph is detached')
  AF.hessian(function(t) return torch.sum(torch.pow(t, 3)) end, x)
  local _, fn = Fn.vjp(torch.sin, x)
  fn(torch.ones(3):double())
  tester:assertTensorEq(x.grad, torch.ones(3):double(), 0, 'x.grad untouched')
  tester:assertTensorEq(x:detach(), a, 0, 'x untouched')
  -- functionalCall: the module's own gradient buffers stay; tied weights get one gradient
  local m = nn.Linear(3, 2):double()
  m.gradWeight:fill(7)
  local gp = Fn.grad(function(p) return torch.sum(Fn.functionalCall(m, p, D({ { 1, 2, 3 } }))) end)(
    { weight = m.weight:clone(), bias = m.bias:clone() })
  near(gp.weight, { 1, 2, 3, 1, 2, 3 }, 0)
  near(gp.bias, { 1, 1 }, 0)
  tester:asserteq(m.gradWeight:sum(), 42, 'the module\'s gradWeight is untouched')
  local seq = nn.Sequential():add(nn.Linear(2, 2)):add(nn.Linear(2, 2)):double()
  seq:get(2).weight = seq:get(1).weight
  local W = D({ { 1, 0 }, { 0, 2 } })
  local zero = torch.zeros(2):double()
  local gw = Fn.grad(function(w)
    return torch.sum(Fn.functionalCall(seq, { ['0.weight'] = w, ['0.bias'] = zero, ['1.bias'] = zero }, D({ { 1, 1 } })))
  end)(W)
  near(gw, { 2, 3, 3, 4 }, 1e-12, 'tied weight: d/dW sum(W W x)')
end

-- Note [Keeping the graph of a closure]: at the outermost level a function closing over a tensor
-- that requires grad gives results connected to it (they were detached: w.grad stayed nil). The
-- values of w.grad after a backward through each result are PyTorch 1.13's (functorch).
function tests.outermostTransformKeepsTheGraphOfAClosure()
  local x = D({ 3, 4 })
  local w = D({ 1, 2 }):requiresGrad()
  local function sinxw(t) return torch.sin(torch.cmul(t, w)) end
  local function f(t) return torch.sum(torch.cmul(torch.cmul(t, w), t)) end
  local function wgrad(what, expected, fn)
    w.grad = nil
    fn()
    tester:assert(w.grad ~= nil, what .. ': the result is connected to w')
    if w.grad then near(w.grad, expected, 1e-10, what) end
  end
  wgrad('grad', { 6, 8 }, function() torch.sum(Fn.grad(f)(x)):backward() end)
  wgrad('jacrev', { -1.413352520780047, -8.060366006795668 }, function() torch.sum(Fn.jacrev(sinxw)(x)):backward() end)
  wgrad('jacfwd', { -1.413352520780047, -8.060366006795668 }, function() torch.sum(Fn.jacfwd(sinxw)(x)):backward() end)
  wgrad('hessian', { 2.687737473681602, -1.6294324455557105 }, function()
    torch.sum(Fn.hessian(function(t) return torch.sum(sinxw(t)) end)(x)):backward()
  end)
  wgrad('vjp', { -4.383330010581383, -8.642366142030122 }, function()
    local o, fn = Fn.vjp(sinxw, x)
    local total = torch.sum(o) + torch.sum(fn(torch.ones(2):double()))
    total:backward()
  end)
  wgrad('jvp', { -4.383330010581383, -8.642366142030122 }, function()
    local o, t = Fn.jvp(sinxw, x, torch.ones(2):double())
    local total = torch.sum(o) + torch.sum(t)
    total:backward()
  end)
  wgrad('vmap of grad', { 18, 24 }, function() torch.sum(Fn.vmap(Fn.grad(f))(torch.stack({ x, x * 2 }))):backward() end)
  wgrad('aux', { 3, 4 }, function()
    local _, aux = Fn.grad(function(t) return f(t), torch.cmul(t, w) end, { hasAux = true })(x)
    torch.sum(aux):backward()
  end)
  -- without such a tensor the results stay detached, and torch.autograd.functional keeps PyTorch's
  -- rule (createGraph = false detaches even a closure's results)
  tester:assert(not Fn.grad(function(t) return torch.sum(torch.cmul(t, t)) end)(x):needsGrad())
  tester:assert(not Fn.jacrev(torch.sin)(x):needsGrad())
  tester:assert(not AF.jacobian(sinxw, x):needsGrad())
end

tester:add(tests):run()
