-- torch.autograd.functional (jacobian, hessian, vjp, jvp, hvp, vhp) against closed forms, central
-- finite differences in f64 and PyTorch 1.13's values; products against the full matrices; both
-- jacobian strategies; createGraph, strict mode, argument errors, untouched inputs, CUDA vs CPU.
local tester = torch.Tester()
local tests = torch.TestSuite()
local AF = torch.autograd.functional
local D = torch.DoubleTensor

local function flat(t) return t:contiguous():view(-1) end
-- A tensor of the given sizes holding the row-major values (PyTorch's .flatten().tolist()).
local function shaped(values, ...) return D(values):view(...) end

-- Central differences: J[i][j] (output i, input j) of size out_i .. in_j, all in f64.
local function numeric_jacobian(f, inputs, eps)
  eps = eps or 1e-6
  local function eval(xs)
    local r = torch.noGrad(f, unpack(xs))
    return torch.isTensor(r) and { r } or r
  end
  local outs = eval(inputs)
  local J = {}
  for i, o in ipairs(outs) do
    J[i] = {}
    for j, x in ipairs(inputs) do
      local cols = {}
      for k = 1, x:nElement() do
        local xs = {}
        for q, y in ipairs(inputs) do xs[q] = y:clone() end
        flat(xs[j])[k] = x:contiguous():view(-1)[k] + eps
        local plus = eval(xs)[i]:clone()
        flat(xs[j])[k] = x:contiguous():view(-1)[k] - eps
        local minus = eval(xs)[i]:clone()
        cols[k] = flat((plus - minus) / (2 * eps))
      end
      local sizes = o:size():totable()
      for _, s in ipairs(x:size():totable()) do sizes[#sizes + 1] = s end
      J[i][j] = torch.stack(cols, 2):contiguous():view(sizes)
    end
  end
  return J
end

-- A two-input, two-output function: sin(a) * b (broadcast over rows) and exp(a b).
local function two_by_two(a, b) return { torch.cmul(torch.sin(a), b), torch.exp(torch.mv(a, b)) } end
local A0 = D({ { 0.3, -0.7 }, { 1.2, 0.5 } })
local B0 = D({ 0.4, -1.1 })

function tests.linearMapGivesItsMatrix()
  local A = D({ { 1, -2, 3 }, { 0.5, 4, -1 } })
  local x = D({ 0.5, -1, 2 })
  local J = AF.jacobian(function(v) return torch.mv(A, v) end, x)
  tester:eq(J, A, 0)
  tester:assert(not J:needsGrad() and J.gradFn == nil, 'no graph without createGraph')
  local Jf = AF.jacobian(function(v) return torch.mv(A:float(), v) end, x:float())
  tester:eq(torch.typename(Jf), 'torch.FloatTensor')
  tester:eq(Jf:double(), A, 1e-6)
  tester:eq(AF.jacobian(function(v) return torch.mv(A, v) end, x, { strategy = 'forwardMode' }), A, 0)
end

function tests.elementwiseExpGivesDiagonal()
  local x = D({ 0.5, -1, 2, 0 })
  local expected = torch.diag(torch.exp(x))
  tester:eq(AF.jacobian(torch.exp, x), expected, 1e-15)
  tester:eq(AF.jacobian(torch.exp, x, { strategy = 'forwardMode' }), expected, 1e-15)
  -- A matrix input keeps its shape on both sides: J[i][j][k][l] = d y_ij / d x_kl.
  local m = D({ { 0.1, 0.2 }, { -0.3, 0.4 } })
  local J = AF.jacobian(torch.exp, m)
  tester:eq(J:size():totable(), { 2, 2, 2, 2 })
  tester:eq(J:view(4, 4), torch.diag(flat(torch.exp(m))), 1e-15)
end

function tests.twoInputsTwoOutputsAgainstPyTorch()
  -- PyTorch 1.13: torch.autograd.functional.jacobian(f, (a, b)) in float64.
  local expected = {
    { shaped({ 0.38213459565024244, 0, 0, 0, 0, -0.8413264060129374, 0, 0, 0, 0, 0.14494310179066947, 0, 0, 0, 0,
               -0.9653408180794101 }, 2, 2, 2, 2),
      shaped({ 0.29552020666133955, 0, 0, -0.644217687237691, 0.9320390859672263, 0, 0, 0.479425538604203 }, 2, 2, 2) },
    { shaped({ 0.9740518605159498, -2.678642616418862, 0, 0, 0, 0, 0.3729575279623793, -1.025633201896543 }, 2, 2, 2),
      shaped({ 0.7305388953869623, -1.7045907559029119, 1.1188725838871378, 0.4661969099529741 }, 2, 2) },
  }
  for _, strategy in ipairs({ 'reverseMode', 'forwardMode' }) do
    local J = AF.jacobian(two_by_two, { A0, B0 }, { strategy = strategy })
    for i = 1, 2 do
      for j = 1, 2 do tester:eq(J[i][j], expected[i][j], 1e-14, strategy .. ' block ' .. i .. ',' .. j) end
    end
  end
end

function tests.finiteDifferences()
  local x, y = torch.randn(3):double(), torch.randn(2, 2):double()
  local function f(u, w)
    -- sum(1) keeps a tensor where sum() would give a number under noGrad (the numerical runs).
    local sw, su = w:view(-1):sum(1), torch.log1p(torch.pow(u, 2)):sum(1)
    return { torch.cmul(torch.tanh(u), sw) + torch.pow(u, 2), torch.mm(w, w):sin(), torch.cmul(u, su) }
  end
  local num = numeric_jacobian(f, { x, y })
  for _, strategy in ipairs({ 'reverseMode', 'forwardMode' }) do
    local J = AF.jacobian(f, { x, y }, { strategy = strategy })
    for i = 1, 3 do
      for j = 1, 2 do tester:eq(J[i][j], num[i][j], 1e-7, strategy .. ' block ' .. i .. ',' .. j) end
    end
  end
end

function tests.resultShapesFollowInputsAndOutputs()
  local x, y = D({ 1, 2, 3 }), D({ { 1, 2 } })
  -- Several inputs, one output: one block per input.
  local J = AF.jacobian(function(u, w) return u * 2 end, { x, y })
  tester:eq(J[1], torch.eye(3):double() * 2, 0)
  tester:eq(J[2], torch.zeros(3, 1, 2):double(), 0)
  -- One input, several outputs: one block per output.
  J = AF.jacobian(function(u) return { u * 3, torch.pow(u, 2):sum() } end, x)
  tester:eq(J[1], torch.eye(3):double() * 3, 0)
  tester:eq(J[2], x * 2, 0)
  -- An array of one input gives an array back, even with one element.
  J = AF.jacobian(function(u) return u * 3 end, { x })
  tester:eq(J[1], torch.eye(3):double() * 3, 0)
  -- 0-dim input and output.
  local s = D({ 2 }):view({})
  local js = AF.jacobian(function(u) return torch.pow(u, 3) end, s)
  tester:eq(js:dim(), 0)
  tester:eq(js:item(), 12, 1e-14)
  tester:eq(AF.jacobian(function(u) return torch.cmul(u, s) end, x, { strategy = 'forwardMode' }), torch.eye(3):double() * 2, 0)
end

function tests.hessianOfQuadraticForm()
  local A = D({ { 2, -1, 0.5 }, { 3, 1, 0 }, { -2, 4, 1 } })
  local x = D({ 0.3, -0.2, 1.5 })
  local function q(v) return torch.dot(v, torch.mv(A, v)) end
  for _, strategy in ipairs({ 'reverseMode', 'forwardMode' }) do
    tester:eq(AF.hessian(q, x, { outerJacobianStrategy = strategy }), A + A:t(), 1e-14, strategy)
  end
end

function tests.hessianOfSumOfCubes()
  local x = D({ { 0.5, -1 }, { 2, 3 } })
  local Hx = AF.hessian(function(v) return torch.pow(v, 3):sum() end, x)
  tester:eq(Hx:size():totable(), { 2, 2, 2, 2 })
  tester:eq(Hx:view(4, 4), torch.diag(flat(x * 6)), 1e-14)
end

function tests.hessianAgainstPyTorch()
  -- PyTorch 1.13: torch.autograd.functional.hessian in float64.
  local x, y = D({ 0.5, -1, 2 }), D({ 0.2, 0.9 })
  -- Full reductions of tensors that require grad are 0-dim tensors, and * of tensors is dot/mv/mm.
  local function g(v) return torch.cmul(torch.tanh(v):sum(), torch.pow(v, 2):sum()) end
  tester:eq(AF.hessian(g, x), shaped({ -0.9140287735718542, -1.1529211243178286, 3.216441756716874, -1.1529211243178286,
    3.0076288406624476, 1.5385957167497757, 3.216441756716874, 1.5385957167497757, 1.179159652593096 }, 3, 3), 1e-13)
  local function h(u, w) return torch.cmul(torch.exp(w), torch.sin(u):sum()):sum() + torch.cmul(torch.pow(u, 2):sum(), w:narrow(1, 1, 1):sum()) end
  local expected = {
    { shaped({ -1.3647682215025925, 0, 0, 0, 3.4974596339379236, 0, 0, 0, -2.9471291651002884 }, 3, 3),
      shaped({ 2.0718817616061695, 2.1585047995226474, -1.3400732733723544, 1.3289292324785504, 3.491717106041691,
               -1.0235560538694741 }, 3, 2) },
    { shaped({ 2.0718817616061695, -1.3400732733723544, 3.491717106041691, 2.1585047995226474, 1.3289292324785504,
               -1.0235560538694741 }, 2, 3),
      shaped({ 0.6684150785403122, 0, 0, 1.346022674124645 }, 2, 2) },
  }
  for _, strategy in ipairs({ 'reverseMode', 'forwardMode' }) do
    local Hh = AF.hessian(h, { x, y }, { outerJacobianStrategy = strategy })
    for i = 1, 2 do
      for j = 1, 2 do tester:eq(Hh[i][j], expected[i][j], 1e-13, strategy .. ' block ' .. i .. ',' .. j) end
    end
  end
end

-- f(u, w) with a full, non-symmetric-looking structure across two inputs.
local function scalar2(u, w) return torch.cmul(torch.sin(u), torch.exp(w)):sum() + torch.cmul(torch.pow(u, 3):sum(), w:sum()) end

function tests.hvpAndVhpAgainstHessian()
  local x = D({ 0.5, -1, 2 })
  local function g(v) return torch.cmul(torch.tanh(v):sum(), torch.pow(v, 2):sum()) end
  local v = D({ 0.3, -0.7, 1.1 })
  local Hx = AF.hessian(g, x)
  local gx = torch.tanh(x):sum() * torch.pow(x, 2):sum()  -- numbers: x does not require grad
  local out, hv = AF.hvp(g, x, v)
  tester:eq(out:item(), gx, 1e-14)
  tester:eq(hv, torch.mv(Hx, v), 1e-13)
  local out2, vh = AF.vhp(g, x, v)
  tester:eq(out2:item(), gx, 1e-14)
  tester:eq(vh, torch.mv(Hx:t(), v), 1e-13)
  -- Two inputs: (H v)_i = sum_j H[i][j] v_j, (v H)_j = sum_i v_i H[i][j].
  local u, w = D({ 0.2, -0.4, 0.9 }), D({ 0.1, 0.6, -0.3 })
  local vu, vw = D({ 1, -2, 0.5 }), D({ 0.3, 0.3, -1 })
  local Hb = AF.hessian(scalar2, { u, w })
  local _, hvb = AF.hvp(scalar2, { u, w }, { vu, vw })
  local _, vhb = AF.vhp(scalar2, { u, w }, { vu, vw })
  local vs = { vu, vw }
  for i = 1, 2 do
    local hv_i = torch.mv(Hb[i][1], vu) + torch.mv(Hb[i][2], vw)
    local vh_i = torch.mv(Hb[1][i]:t(), vs[1]) + torch.mv(Hb[2][i]:t(), vs[2])
    tester:eq(hvb[i], hv_i, 1e-13, 'hvp block ' .. i)
    tester:eq(vhb[i], vh_i, 1e-13, 'vhp block ' .. i)
  end
  -- v may be left out for a single one-element input: v = 1.
  local s = D({ 0.7 })
  local _, hs = AF.hvp(function(t) return torch.pow(t, 4):sum() end, s)
  tester:eq(hs, D({ 12 * 0.49 }), 1e-14)
end

function tests.jvpAndVjpAgainstJacobian()
  local J = AF.jacobian(two_by_two, { A0, B0 })
  local va, vb = D({ { 1, -1 }, { 0.5, 2 } }), D({ 0.3, -0.2 })
  local outs, jv = AF.jvp(two_by_two, { A0, B0 }, { va, vb })
  local ref = two_by_two(A0, B0)
  for i = 1, 2 do
    tester:eq(outs[i], ref[i], 0)
    local m = ref[i]:nElement()
    local expected = torch.mv(J[i][1]:contiguous():view(m, 4), flat(va)) + torch.mv(J[i][2]:contiguous():view(m, 2), vb)
    tester:eq(jv[i], expected:viewAs(ref[i]), 1e-14, 'jvp output ' .. i)
  end
  local w1, w2 = D({ { 0.2, -1 }, { 1.5, 0.3 } }), D({ -0.4, 0.8 })
  local _, vj = AF.vjp(two_by_two, { A0, B0 }, { w1, w2 })
  local sizes = { { 4 }, { 2 } }
  for j = 1, 2 do
    local n = sizes[j][1]
    local expected = torch.mv(J[1][j]:contiguous():view(4, n):t(), flat(w1)) + torch.mv(J[2][j]:contiguous():view(2, n):t(), w2)
    tester:eq(flat(vj[j]), expected, 1e-14, 'vjp input ' .. j)
  end
  -- Single tensors in and out give single tensors back; v omitted for one-element sides.
  local x = D({ 0.5, -1, 2 })
  local out, vjx = AF.vjp(function(t) return torch.pow(t, 2):sum() end, x)
  tester:eq(out:item(), 5.25, 1e-14)
  tester:eq(vjx, x * 2, 1e-14)
  local _, jvs = AF.jvp(function(t) return torch.cat({ t * 2, torch.pow(t, 3) }) end, D({ 1.5 }))
  tester:eq(jvs, D({ 2, 3 * 2.25 }), 1e-14)
end

function tests.createGraphResultsAreDifferentiable()
  local x = D({ 0.5, -1, 2 }):requiresGrad()
  -- J = diag(3 x^2); d(sum J)/dx = 6x.
  local J = AF.jacobian(function(t) return torch.pow(t, 3) end, x, { createGraph = true })
  tester:assert(J:needsGrad(), 'createGraph keeps the graph')
  tester:eq(torch.autograd.grad(J:sum(), x), x:detach() * 6, 1e-14)
  local Jf = AF.jacobian(function(t) return torch.pow(t, 3) end, x, { createGraph = true, strategy = 'forwardMode' })
  tester:eq(torch.autograd.grad(Jf:sum(), x), x:detach() * 6, 1e-14)
  -- H = diag(6x) of sum x^3 ... x^4/4: d(sum H)/dx for sum x^4 is 24x.
  local Hx = AF.hessian(function(t) return torch.pow(t, 4):sum() end, x, { createGraph = true })
  tester:eq(torch.autograd.grad(Hx:sum(), x), x:detach() * 24, 1e-13)
  local v = D({ 1, 2, -1 })
  local _, vj = AF.vjp(function(t) return torch.pow(t, 3) end, x, v, { createGraph = true })
  tester:eq(torch.autograd.grad(vj:sum(), x), torch.cmul(x:detach(), v) * 6, 1e-14)
  local _, jv = AF.jvp(function(t) return torch.pow(t, 3) end, x, v, { createGraph = true })
  tester:eq(torch.autograd.grad(jv:sum(), x), torch.cmul(x:detach(), v) * 6, 1e-14)
  local _, hv = AF.hvp(function(t) return torch.pow(t, 4):sum() end, x, v, { createGraph = true })
  tester:eq(torch.autograd.grad(hv:sum(), x), torch.cmul(x:detach(), v) * 24, 1e-13)
  local _, vh = AF.vhp(function(t) return torch.pow(t, 4):sum() end, x, v, { createGraph = true })
  tester:eq(torch.autograd.grad(vh:sum(), x), torch.cmul(x:detach(), v) * 24, 1e-13)
  tester:eq(x.grad, nil, 'autograd.grad does not accumulate')
end

function tests.resultsWithoutCreateGraphAreDetached()
  local x = D({ 0.5, -1, 2 }):requiresGrad()
  local v = D({ 1, 2, 3 })
  local cube = function(t) return torch.pow(t, 3):sum() end
  local results = { AF.jacobian(torch.exp, x), AF.jacobian(torch.exp, x, { strategy = 'forwardMode' }), AF.hessian(cube, x) }
  for _, f in ipairs({ AF.vjp, AF.jvp }) do
    local o, r = f(torch.exp, x, v)
    results[#results + 1], results[#results + 2] = o, r
  end
  for _, f in ipairs({ AF.hvp, AF.vhp }) do
    local o, r = f(cube, x, v)
    results[#results + 1], results[#results + 2] = o, r
  end
  for k, r in ipairs(results) do
    tester:assert(not r:needsGrad() and r.gradFn == nil, 'result ' .. k .. ' holds no graph')
  end
end

function tests.independentPartsAreZeros()
  local x, y = D({ 1, 2 }), D({ 3, 4, 5 })
  local J = AF.jacobian(function(u, w) return { u * 2, torch.ones(2):double() } end, { x, y })
  tester:eq(J[1][2], torch.zeros(2, 3):double(), 0)
  tester:eq(J[2][1], torch.zeros(2, 2):double(), 0)
  tester:eq(J[2][2], torch.zeros(2, 3):double(), 0)
  local Jf = AF.jacobian(function(u, w) return { u * 2, torch.ones(2):double() } end, { x, y }, { strategy = 'forwardMode' })
  tester:eq(Jf, J, 0)
  -- A linear function has a zero Hessian; a function of x only has zero y blocks.
  tester:eq(AF.hessian(function(u) return (u * 3):sum() end, x), torch.zeros(2, 2):double(), 0)
  local Hb = AF.hessian(function(u, w) return torch.pow(u, 3):sum() end, { x, y })
  tester:eq(Hb[1][1], torch.diag(x * 6), 1e-14)
  tester:eq(Hb[1][2], torch.zeros(2, 3):double(), 0)
  tester:eq(Hb[2][2], torch.zeros(3, 3):double(), 0)
  local _, vj = AF.vjp(function(u, w) return u * 2 end, { x, y }, D({ 1, 1 }))
  tester:eq(vj[2], torch.zeros(3):double(), 0)
  local _, jv = AF.jvp(function(u) return { u * 2, torch.ones(3):double() } end, x, D({ 1, -1 }))
  tester:eq(jv[1], D({ 2, -2 }), 0)
  tester:eq(jv[2], torch.zeros(3):double(), 0)
  local _, hv = AF.hvp(function(u, w) return torch.pow(u, 3):sum() end, { x, y }, { D({ 1, 1 }), D({ 1, 1, 1 }) })
  tester:eq(hv[1], x * 6, 1e-14)
  tester:eq(hv[2], torch.zeros(3):double(), 0)
end

function tests.strictModeErrors()
  local x, y = D({ 1, 2 }), D({ 3, 4, 5 })
  local pat = function(name) return '%[autograd%.functional%.' .. name .. '%] strict: ' end
  tester:assertErrorPattern(function() AF.jacobian(function(u, w) return u * 2 end, { x, y }, { strict = true }) end,
    pat('jacobian') .. 'output 1 of the function is independent of input 2')
  tester:assertErrorPattern(function() AF.jacobian(function(u) return torch.ones(2):double() end, x, { strict = true }) end,
    pat('jacobian') .. 'output 1 of the function does not require grad')
  tester:assertErrorPattern(function()
    AF.jacobian(function(u, w) return u * 2 end, { x, y }, { strict = true, strategy = 'forwardMode' })
  end, pat('jacobian') .. 'the gradient with respect to input 2')
  tester:assertErrorPattern(function()
    AF.jacobian(function(u) return u * 2 end, x, { strict = true, createGraph = true })
  end, pat('jacobian') .. 'the jacobian of output 1 with respect to input 1 is independent')
  tester:assertErrorPattern(function() AF.hessian(function(u) return (u * 3):sum() end, x, { strict = true }) end,
    pat('hessian') .. 'the jacobian with respect to input 1 is independent')
  tester:assertErrorPattern(function() AF.vjp(function(u, w) return u * 2 end, { x, y }, D({ 1, 1 }), { strict = true }) end,
    pat('vjp') .. 'the output of the function is independent of input 2')
  tester:assertErrorPattern(function() AF.jvp(function(u, w) return u * 2 end, { x, y }, { x, y }, { strict = true }) end,
    pat('jvp') .. 'the gradient with respect to input 2')
  tester:assertErrorPattern(function() AF.vhp(function(u) return (u * 3):sum() end, x, x, { strict = true }) end,
    pat('vhp') .. 'the jacobian with respect to input 1')
  tester:assertErrorPattern(function() AF.hvp(function(u, w) return torch.pow(u, 3):sum() + w:sum() end, { x, y }, { x, y },
    { strict = true }) end, pat('hvp') .. 'the jacobian with respect to input 2')
  -- Strict mode passes where everything depends on everything.
  tester:eq(AF.jacobian(torch.exp, x, { strict = true }), torch.diag(torch.exp(x)), 1e-15)
  local _, hv = AF.hvp(function(u) return torch.pow(u, 3):sum() end, x, D({ 1, 0 }), { strict = true })
  tester:eq(hv, D({ 6, 0 }), 1e-14)
end

function tests.argumentErrorsNameTheFunction()
  local x = D({ 1, 2 })
  local function err(name, f, what)
    tester:assertErrorPattern(f, '%[autograd%.functional%.' .. name .. '%] .*' .. what, name .. ': ' .. what)
  end
  err('jacobian', function() AF.jacobian(torch.exp, torch.LongTensor({ 1, 2 })) end, 'input 1 is torch.LongTensor.*floating')
  err('hessian', function() AF.hessian(torch.exp, { x, torch.IntTensor({ 1 }) }) end, 'input 2 is torch.IntTensor')
  err('jacobian', function() AF.jacobian(torch.exp, { x, 3 }) end, 'element 2 is number')
  err('jacobian', function() AF.jacobian(42, x) end, 'expected a function')
  err('jacobian', function() AF.jacobian(function(u) return u:sum():item() end, x) end, 'returned a number')
  err('jacobian', function() AF.jacobian(function(u) return 'y' end, x) end, 'output of the function must be a tensor')
  err('jacobian', function() AF.jacobian(function(u) return u, u end, x) end, 'returned 2 values')
  err('jacobian', function() AF.jacobian(torch.exp, x, { create_graph = true }) end, 'unknown option create_graph')
  err('jacobian', function() AF.jacobian(torch.exp, x, { strategy = 'forward-mode' }) end, "strategy must be 'reverseMode'")
  err('jacobian', function() AF.jacobian(function(u) return u:mul(2) end, x) end, 'modified input 1 in place')
  err('hessian', function() AF.hessian(function(u) return u * 2 end, x) end, 'single element')
  err('hessian', function() AF.hessian(function(u) return { u:sum(), u:sum() } end, x) end, 'single tensor')
  err('hessian', function() AF.hessian(function(u) return u:sum():item() end, x) end, 'returned a number')
  err('vjp', function() AF.vjp(torch.exp, x) end, 'v can be omitted only')
  err('vjp', function() AF.vjp(torch.exp, x, D({ 1, 2, 3 })) end, 'v 1 has size 3 but output 1 has size 2')
  err('vjp', function() AF.vjp(torch.exp, x, { x, x }) end, 'v must be a single tensor')
  err('vjp', function() AF.vjp(torch.exp, x, torch.LongTensor({ 1, 2 })) end, 'v 1 is torch.LongTensor')
  err('jvp', function() AF.jvp(function(u, w) return u + w end, { x, x }, { x }) end, 'v has 1 tensors but there are 2 inputs')
  err('jvp', function() AF.jvp(torch.exp, x) end, 'v can be omitted only')
  err('hvp', function() AF.hvp(function(u) return u:sum() end, x, D({ 1 })) end, 'v 1 has size 1 but input 1 has size 2')
  err('vhp', function() AF.vhp(function(u) return u * 1 end, x, x) end, 'single element')
  err('vhp', function() AF.vhp(function(u) return u:sum() end, x) end, 'v can be omitted only')
  err('hvp', function() AF.hvp(function(u) return u:sum() end, x, x, { strategy = 'forwardMode' }) end, 'unknown option strategy')
  -- A v of another floating type is converted like PyTorch's engine does.
  local _, vj = AF.vjp(torch.exp, x, torch.FloatTensor({ 1, 1 }))
  tester:eq(vj, torch.exp(x), 1e-15)
end

function tests.inputsAndTheirGradsAreUntouched()
  local x = D({ 0.5, -1, 2 }):requiresGrad()
  local y = D({ 0.1, 0.2, 0.3 })
  x.grad = D({ 7, 8, 9 })
  local gx = x.grad
  local xv, yv = x:detach():clone(), y:clone()
  local f = function(u, w) return torch.cmul(torch.pow(u, 3), w):sum() end
  local v = { D({ 1, 1, 1 }), D({ 1, 0, 1 }) }
  for _, create in ipairs({ false, true }) do
    local o = { createGraph = create }
    AF.jacobian(f, { x, y }, o)
    AF.jacobian(f, { x, y }, { createGraph = create, strategy = 'forwardMode' })
    AF.hessian(f, { x, y }, o)
    AF.vjp(f, { x, y }, D({ 1 }):view({}), o)
    AF.jvp(f, { x, y }, v, o)
    AF.hvp(f, { x, y }, v, o)
    AF.vhp(f, { x, y }, v, o)
  end
  tester:eq(x:detach(), xv, 0)
  tester:eq(y, yv, 0)
  tester:assert(torch.pointer(x.grad) == torch.pointer(gx), 'x.grad is the same tensor')
  tester:eq(x.grad, D({ 7, 8, 9 }), 0)
  tester:eq(y.grad, nil)
  tester:assert(not y:needsGrad(), 'y still does not require grad')
end

function tests.forwardModeEqualsReverseMode()
  local x, y = torch.randn(2, 3):double(), torch.randn(3):double()
  local function f(u, w)
    return { torch.mv(u, w):tanh(), torch.cmul(torch.sigmoid(u):sum(), w), torch.cmul(u, u):sum() }
  end
  local Jr = AF.jacobian(f, { x, y })
  local Jf = AF.jacobian(f, { x, y }, { strategy = 'forwardMode' })
  for i = 1, 3 do
    for j = 1, 2 do tester:eq(Jf[i][j], Jr[i][j], 1e-14, 'block ' .. i .. ',' .. j) end
  end
  -- vectorize is accepted (Note [vectorize]) and changes nothing.
  tester:eq(AF.jacobian(f, { x, y }, { vectorize = true }), Jr, 0)
end

function tests.worksInsideNoGrad()
  local x = D({ 0.5, -1 })
  local J = torch.noGrad(function()
    local r = AF.jacobian(torch.exp, x)
    tester:assert(not torch.isGradEnabled(), 'grad mode is restored')
    return r
  end)
  tester:eq(J, torch.diag(torch.exp(x)), 1e-15)
  local Hx = torch.noGrad(function() return AF.hessian(function(u) return torch.pow(u, 3):sum() end, x) end)
  tester:eq(Hx, torch.diag(x * 6), 1e-14)
end

function tests.cudaMatchesCpu()
  if not torch.cuda.isAvailable() then return end
  local x, y = torch.randn(3):double(), torch.randn(2, 3):double()
  local function f(u, w) return { torch.mv(w, u):exp(), torch.cmul(torch.sin(u), w:sum()) } end
  local function s(u, w) return torch.mv(w, torch.pow(u, 3)):sum() end
  local xc, yc = x:cuda(), y:cuda()
  local v = { D({ 1, -1, 0.5 }), D({ { 1, 0, 1 }, { 0, 1, 0 } }) }
  local vc = { v[1]:cuda(), v[2]:cuda() }
  local J, Jc = AF.jacobian(f, { x, y }), AF.jacobian(f, { xc, yc })
  local Jfc = AF.jacobian(f, { xc, yc }, { strategy = 'forwardMode' })
  local Hx, Hc = AF.hessian(s, { x, y }), AF.hessian(s, { xc, yc })
  for i = 1, 2 do
    for j = 1, 2 do
      tester:eq(Jc[i][j]:double(), J[i][j], 1e-12, 'jacobian ' .. i .. ',' .. j)
      tester:eq(Jfc[i][j]:double(), J[i][j], 1e-12, 'forward jacobian ' .. i .. ',' .. j)
      tester:eq(Hc[i][j]:double(), Hx[i][j], 1e-12, 'hessian ' .. i .. ',' .. j)
    end
  end
  local _, hv = AF.hvp(s, { x, y }, v)
  local _, hvc = AF.hvp(s, { xc, yc }, vc)
  local _, vj = AF.vjp(f, { x, y }, { D({ 1, 2 }), D({ 1, 1, 1 }) })
  local _, vjc = AF.vjp(f, { xc, yc }, { D({ 1, 2 }):cuda(), D({ 1, 1, 1 }):cuda() })
  local _, jv = AF.jvp(f, { x, y }, v)
  local _, jvc = AF.jvp(f, { xc, yc }, vc)
  for i = 1, 2 do
    tester:eq(hvc[i]:double(), hv[i], 1e-12, 'hvp ' .. i)
    tester:eq(vjc[i]:double(), vj[i], 1e-12, 'vjp ' .. i)
    tester:eq(jvc[i]:double(), jv[i], 1e-12, 'jvp ' .. i)
  end
end

tester:add(tests)
tester:run()
