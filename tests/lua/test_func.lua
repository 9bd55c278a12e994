-- torch.func (lua/torch/func*.lua): grad, gradAndValue, vjp, jvp, jacrev, jacfwd, hessian, vmap,
-- functionalCall, stackModuleState, and the coarse nodes' parameters with a history (Note
-- [Parameters with a history], lua/nn/param_history.lua). Values are closed forms, Tocha's own
-- autograd run another way, or functorch 1.13's (the functorch shipped with PyTorch 1.13, run by
-- /usr/bin/python3).
require 'nn'
local Fn = torch.func
local tester = torch.Tester()
local tests = torch.TestSuite()

local function D(t) return torch.DoubleTensor(t) end
local function err(pattern, f, ...)
  local ok, e = pcall(f, ...)
  tester:assert(not ok, 'expected an error matching ' .. pattern)
  if not ok then tester:assert(tostring(e):find(pattern, 1, true) ~= nil, tostring(e)) end
end

-- ---- grad ------------------------------------------------------------------------------------------------

function tests.gradClosedForms()
  local x = D({ 0.5, 1, 2 })
  tester:assertTensorEq(Fn.grad(function(v) return torch.sum(torch.sin(v)) end)(x), torch.cos(x), 1e-12)
  -- argnums as a list; the loss does not depend on argument 3
  local g = Fn.grad(function(a, b, c) return torch.sum(torch.cmul(a, b)) end, { argnums = { 1, 2, 3 } })(x, x * 2, x)
  tester:assertTensorEq(g[1], x * 2, 0)
  tester:assertTensorEq(g[2], x, 0)
  tester:assertTensorEq(g[3], torch.zeros(3):double(), 0, 'independent argument: zeros')
  -- a table of tensors (a pytree) as the argument: the gradient has its shape
  local p = { w = D({ 1, 2 }), inner = { D({ 3 }) } }
  local gp = Fn.grad(function(t) return torch.sum(torch.pow(t.w, 2)) + torch.sum(t.inner[1] * 5) end)(p)
  tester:assertTensorEq(gp.w, D({ 2, 4 }), 0)
  tester:assertTensorEq(gp.inner[1], D({ 5 }), 0)
  -- hasAux and gradAndValue
  local ga, aux = Fn.grad(function(v) return torch.sum(v * 3), { note = 'aux', t = v * 2 } end, { hasAux = true })(x)
  tester:assertTensorEq(ga, D({ 3, 3, 3 }), 0)
  tester:asserteq(aux.note, 'aux')
  tester:assert(not aux.t:needsGrad(), 'aux is detached at the outermost level')
  local gv, value = Fn.gradAndValue(function(v) return torch.sum(torch.exp(v)) end)(x)
  tester:assertTensorEq(gv, torch.exp(x), 1e-12)
  tester:assertalmosteq(value:item(), torch.exp(x):sum(), 1e-12)
  tester:assert(not gv:needsGrad() and not x:needsGrad(), 'outermost results and the input need no grad')
  -- a tensor that does not depend on the input gives zeros
  tester:assertTensorEq(Fn.grad(function(v) return torch.ones(1):double() end)(x), torch.zeros(3):double(), 0)
end

function tests.gradComposes()
  local x = D({ 0.5, -1, 2 })
  local d = function(f) return Fn.grad(function(v) return torch.sum(f(v)) end) end
  local d1 = d(function(v) return torch.pow(v, 4) end)
  local d2 = d(d1)
  local d3 = d(d2)
  tester:assertTensorEq(d1(x), torch.pow(x, 3) * 4, 1e-12)
  tester:assertTensorEq(d2(x), torch.pow(x, 2) * 12, 1e-12)
  tester:assertTensorEq(d3(x), x * 24, 1e-12)
  -- the same through torch.autograd.grad from outside: grad keeps the graph for an outer caller
  local xr = x:clone():requiresGrad()
  local g = d1(xr)
  tester:assert(g:needsGrad(), 'a gradient of an input that requires grad keeps its graph')
  local gg = torch.autograd.grad({ torch.sum(g) }, { xr })[1]
  tester:assertTensorEq(gg, torch.pow(x, 2) * 12, 1e-12)
end

function tests.gradErrors()
  local x = D({ 1, 2 })
  err('[func.grad] the function must return a one-element tensor (a loss)', Fn.grad(function(v) return v * 2 end), x)
  err('pass hasAux = true', Fn.grad(function(v) return torch.sum(v), 1 end), x)
  err('floating-point', Fn.grad(function(v) return torch.sum(v) end), torch.LongTensor({ 1 }))
  err('argnums names argument 2 but the function got 1', Fn.grad(function(v) return torch.sum(v) end, { argnums = 2 }), x)
  err('argnums lists argument 1 twice', Fn.grad, torch.sum, { argnums = { 1, 1 } })
  -- Note [A number is not a loss]: Torch7's criterion:forward gives a number, with no graph
  local crit = nn.MSECriterion():double()
  err('returned a number, which carries no gradient', Fn.grad(function(v) return crit:forward(v, D({ 0, 0 })) end), x)
  tester:assertTensorEq(Fn.grad(function(v) return crit(v, D({ 0, 0 })) end)(x), x, 1e-12, 'criterion(x, y) is a tensor')
  err('result 1 is a number, which carries no gradient', Fn.grad(function(v)
    return torch.sum(Fn.vmap(function(r) return crit:forward(r, D({ 0 })) end)(v:view(2, 1)))
  end), x)
  err('unknown option argnum', Fn.grad, torch.sum, { argnum = 1 })
  err('expected a function', Fn.grad, 3)
  -- integer inputs are refused by the transform itself (the error named autograd.functional.jacobian)
  err('[func.jacrev] argument 1 must be a floating-point tensor', Fn.jacrev(torch.exp), torch.LongTensor({ 1 }))
  err('[func.jvp] primal 1 must be a floating-point tensor', Fn.jvp, torch.exp, torch.LongTensor({ 1 }), torch.LongTensor({ 1 }))
end

-- ---- vjp, jvp, Jacobians --------------------------------------------------------------------------------

function tests.vjpAndJvp()
  local x, y = D({ 0.5, -1, 2 }), D({ 1, 2, 3 })
  local f = function(a, b) return { torch.cmul(torch.sin(a), b), torch.sum(a) * 2 } end
  local out, vjpFn = Fn.vjp(f, x, y)
  tester:assertTensorEq(out[1], torch.cmul(torch.sin(x), y), 1e-12)
  local ct = { D({ 1, 0.5, -1 }), torch.ones(1):double():view({}) }
  local gx, gy = vjpFn(ct)
  tester:assertTensorEq(gx, torch.cmul(torch.cmul(torch.cos(x), y), ct[1]) + 2, 1e-12)
  tester:assertTensorEq(gy, torch.cmul(torch.sin(x), ct[1]), 1e-12)
  local gx2 = vjpFn(ct)
  tester:assertTensorEq(gx2, gx, 0, 'vjpFn may be called again')
  err('cotangents must be shaped like the output', vjpFn, D({ 1, 2, 3 }))
  local _, vjp2, aux = Fn.vjp(function(a) return torch.exp(a), 'extra' end, x, { hasAux = true })
  tester:asserteq(aux, 'extra')
  tester:assertTensorEq(vjp2(torch.ones(3):double()), torch.exp(x), 1e-12)
  -- jvp: J t for f(x) = exp(x) * sum(x)
  local t = D({ 1, -2, 0.5 })
  local o, jv = Fn.jvp(function(a) return torch.exp(a) * torch.sum(a) end, x, t)
  local S = x:sum()
  tester:assertTensorEq(o, torch.exp(x) * S, 1e-12)
  tester:assertTensorEq(jv, torch.cmul(torch.exp(x), t) * S + torch.exp(x) * t:sum(), 1e-12)
  err('one tangent per primal', Fn.jvp, torch.exp, { x, x }, { t })
end

function tests.jacobiansAgainstFunctorch()
  local x, y = D({ 0.5, -1.0, 2.0 }), D({ 1, 2, 3 })
  local f2 = function(a, b) return torch.cmul(torch.sin(a), torch.pow(b, 2)) end
  -- functorch.jacrev(f2, argnums=(0, 1))(x, y)
  local J0 = D({ 0.8775825618903728, 0, 0, 0, 2.161209223472559, 0, 0, 0, -3.745321528924282 }):view(3, 3)
  local J1 = D({ 0.958851077208406, 0, 0, 0, -3.365883939231586, 0, 0, 0, 5.45578456095409 }):view(3, 3)
  for _, transform in ipairs({ Fn.jacrev, Fn.jacfwd }) do
    local J = transform(f2, { argnums = { 1, 2 } })(x, y)
    tester:assertTensorEq(J[1], J0, 1e-12)
    tester:assertTensorEq(J[2], J1, 1e-12)
    tester:assertTensorEq(transform(f2)(x, y), J0, 1e-12, 'argnums 1 alone: one tensor')
  end
  -- functorch.hessian(lambda x: x * (x**2).sum())(x): 3 x 3 x 3
  local H = D({ 3.0, -2.0, 4.0, -2.0, 1.0, 0.0, 4.0, 0.0, 1.0, -2.0, 1.0, 0.0, 1.0, -6.0, 4.0, 0.0, 4.0, -2.0, 4.0, 0.0,
    1.0, 0.0, 4.0, -2.0, 1.0, -2.0, 12.0 }):view(3, 3, 3)
  tester:assertTensorEq(Fn.hessian(function(a) return a * torch.sum(torch.pow(a, 2)) end)(x), H, 1e-12)
  local J, aux = Fn.jacrev(function(a) return torch.exp(a), a:size(1) end, { hasAux = true })(x)
  tester:assertTensorEq(J, torch.diag(torch.exp(x)), 1e-12)
  tester:asserteq(aux, 3)
  err('argument 1 must be a tensor', Fn.jacrev(torch.exp), { x })
end

-- ---- vmap ------------------------------------------------------------------------------------------------

function tests.vmapBasics()
  local A, B = torch.randn(4, 3):double(), torch.randn(4, 3):double()
  local dots = Fn.vmap(torch.dot)(A, B)  -- numbers per slice become a tensor
  tester:assertTensorEq(dots, torch.cmul(A, B):sum(2):view(4), 1e-12)  -- numbers: the input's type
  -- inDims with false and negative dims, outDims
  local v = D({ 1, 2, 3 })
  local r = Fn.vmap(function(col, w) return torch.cmul(col, w) end, { inDims = { -1, false }, outDims = 2 })(A:t():contiguous(), v)
  tester:assertTensorEq(r, torch.cmul(A:t(), v:view(3, 1):expandAs(A:t())), 1e-12, 'mapped over the last dim, stacked as dim 2')
  -- several results and table results
  local s, t = Fn.vmap(function(a) return torch.sum(a), { sq = torch.pow(a, 2) } end)(A)
  tester:assertTensorEq(s, A:sum(2):view(4), 1e-12)
  tester:assertTensorEq(t.sq, torch.pow(A, 2), 0)
  -- nested: a batched matrix product from a dot
  local M, N = torch.randn(2, 3):double(), torch.randn(3, 5):double()
  local mm = Fn.vmap(Fn.vmap(torch.dot, { inDims = { false, 2 } }), { inDims = { 1, false } })(M, N)
  tester:assertTensorEq(mm, M * N, 1e-12)
  -- a table argument is mapped leaf by leaf
  local out = Fn.vmap(function(p) return p.a + p.b end)({ a = A, b = B })
  tester:assertTensorEq(out, A + B, 0)
  -- slices returned as they came (views of the argument) after a first slice that was new
  local X = D({ { 1, 2 }, { -1, 3 }, { -2, 4 } })
  local y = Fn.vmap(function(row) if row[1] > 0 then return row * 2 end return row end)(X)
  tester:assertTensorEq(y, D({ { 2, 4 }, { -1, 3 }, { -2, 4 } }), 0)
  -- results of one slice that share memory (a tensor and its view, one tensor twice) are not a
  -- reused output buffer (slice 2 was taken for one and refused)
  local y1, y2 = Fn.vmap(function(row) local z = row * 2 return z, z:narrow(1, 1, 1) end)(X)
  tester:assertTensorEq(y1, X * 2, 0)
  tester:assertTensorEq(y2, X:narrow(2, 1, 1) * 2, 0)
  local both = Fn.vmap(function(row) local z = row * 2 return { a = z, b = z } end)(X)
  tester:assertTensorEq(both.b, X * 2, 0)
end

function tests.vmapUnderAutograd()
  local W = torch.randn(3, 3):double():requiresGrad()
  local X = torch.randn(5, 3):double()
  local y = Fn.vmap(function(x) return torch.mv(W, x) end)(X)
  torch.sum(torch.pow(y, 2)):backward()
  local Wr = W:detach():clone():requiresGrad()
  torch.sum(torch.pow(X * Wr:t(), 2)):backward()
  tester:assertTensorEq(W.grad, Wr.grad, 1e-10)
end

function tests.vmapRandomness()
  local x = torch.zeros(4, 3)
  local f = function(a) return a + torch.rand(3) end
  err("randomness = 'error'", Fn.vmap(f), x)
  torch.manualSeed(5)
  local same = Fn.vmap(f, { randomness = 'same' })(x)
  local after = torch.rand(3)
  for b = 2, 4 do tester:assertTensorEq(same[b], same[1], 0, 'same draws in every slice') end
  torch.manualSeed(5)
  local one, second = torch.rand(3), torch.rand(3)
  tester:assertTensorEq(same[1], one, 0, "'same' draws what one call draws")
  tester:assertTensorEq(after, second, 0, 'and leaves the generator as one call does')
  local diff = Fn.vmap(f, { randomness = 'different' })(x)
  tester:assert((diff[1] - diff[2]):abs():max() > 0, 'different draws per slice')
end

function tests.vmapErrors()
  err('the mapped dims must all have one size', Fn.vmap(torch.add), torch.zeros(3), torch.zeros(4))
  err('no argument is mapped', Fn.vmap(function(a) return a end, { inDims = false }), torch.zeros(3))
  err('write false, not nil', Fn.vmap(torch.add, { inDims = { 1, nil } }), torch.zeros(3), torch.zeros(3))
  err('which has no such dim', Fn.vmap(torch.exp, { inDims = 3 }), torch.zeros(3, 2))
  err('different sizes across slices', Fn.vmap(function(a) return a:narrow(1, 1, a[1] + 1) end), D({ { 0, 1 }, { 1, 1 } }))
  err("randomness must be", Fn.vmap, torch.exp, { randomness = 'sometimes' })
  err('outDims[1] is 3, out of range', Fn.vmap(torch.exp, { outDims = 3 }), torch.zeros(3, 2))
end

-- ---- modules ---------------------------------------------------------------------------------------------

local function fixed_mlp()
  local m = nn.Sequential():add(nn.Linear(3, 4)):add(nn.Tanh()):add(nn.Linear(4, 2)):double()
  m:get(1).weight:copy(torch.sin(torch.range(1, 12):double()):view(4, 3))
  m:get(1).bias:copy(torch.cos(torch.range(1, 4):double()) * 0.1)
  m:get(3).weight:copy(torch.sin(torch.range(13, 20):double()):view(2, 4))
  m:get(3).bias:copy(D({ 0.05, -0.02 }))
  return m
end

function tests.perSampleGradientsAgainstFunctorch()
  local m = fixed_mlp()
  local X = torch.cos(torch.range(1, 9):double()):view(3, 3)
  local Y = torch.sin(torch.range(1, 6):double() * 0.7):view(3, 2)
  local params = {}
  for name, p in m:namedParameters() do params[name] = p:detach() end
  local function loss(p, x, y)
    local o = Fn.functionalCall(m, p, x:view(1, 3))
    return torch.mean(torch.pow(o - y:view(1, 2), 2))
  end
  local g = Fn.vmap(Fn.grad(loss), { inDims = { false, 1, 1 } })(params, X, Y)
  -- functorch 1.13: vmap(grad(loss), in_dims=(None, 0, 0)) on the same network and data
  tester:assertTensorEq(g['2.bias'], D({ -0.8631194032202889, -0.756740734002533, -0.7118638902251764, -0.5974371983382174,
    0.23252884220489733, 0.7505778371413794 }):view(3, 2), 1e-12)
  tester:assertTensorEq(g['0.bias'][2], D({ 0.27239762854243316, -0.2545678311169956, -0.5405459363721422, -0.26562672096203344 }), 1e-12)
  tester:assertTensorEq(g['0.weight'][1][1], D({ 0.19712490728116222, -0.15182779284625977, -0.361190720420571 }), 1e-12)
  tester:assertTensorEq(g['2.weight'][3][2], D({ 0.3026777989490756, -0.1611269089962611, -0.09196243539564199, 0.11826085332262022 }), 1e-12)
  -- each sample against a plain loss:backward() on the module itself
  for i = 1, 3 do
    m:zeroGradParameters()
    local o = m:forward(X[i]:view(1, 3))
    torch.mean(torch.pow(o - Y[i]:view(1, 2), 2)):backward()
    tester:assertTensorEq(g['0.weight'][i], m:get(1).gradWeight, 1e-12)
    tester:assertTensorEq(g['2.bias'][i], m:get(3).gradBias, 1e-12)
  end
end

function tests.functionalCallRestoresAndRoutesGradients()
  local m = nn.Linear(3, 2):double()
  local W0, b0 = m.weight:clone(), m.bias:clone()
  local W = torch.randn(2, 3):double():requiresGrad()
  local x = torch.randn(4, 3):double():requiresGrad()
  local y = Fn.functionalCall(m, { weight = W }, x)
  tester:assertTensorEq(y, x:detach() * W:detach():t() + b0:view(1, 2):expand(4, 2), 1e-12)
  tester:assertTensorEq(m.weight, W0, 0, 'the module keeps its weight')
  m:zeroGradParameters()
  local gy = torch.randn(4, 2):double()
  torch.sum(torch.cmul(y, gy)):backward()
  tester:assertTensorEq(W.grad, gy:t() * x:detach(), 1e-12, 'the given weight gets the gradient')
  -- the input gradient uses the weight the forward used, not the restored one
  tester:assertTensorEq(x.grad, gy * W:detach(), 1e-12)
  tester:asserteq(m.gradWeight:abs():max(), 0, "the module's own gradWeight is left alone")
  tester:assertTensorEq(m.bias.grad, gy:sum(1):view(2), 1e-12, 'parameters not given are the module own')
end

function tests.functionalCallOptions()
  local shared = nn.Linear(2, 2):double()
  local m = nn.Sequential():add(shared):add(nn.Linear(2, 2):double())
  m:get(2).weight = m:get(1).weight  -- one tensor under two names: tied
  local I = torch.eye(2):double()
  local x = D({ { 1, 2 } })
  local y = Fn.functionalCall(m, { ['0.weight'] = I, ['0.bias'] = torch.zeros(2):double(), ['1.bias'] = torch.zeros(2):double() }, x)
  tester:assertTensorEq(y, x, 1e-12, 'tied: 1.weight is replaced too')
  local y2 = Fn.functionalCall(m, { { ['0.weight'] = I, ['0.bias'] = torch.zeros(2):double() }, { ['1.bias'] = torch.zeros(2):double() } },
    x, { tieWeights = false })
  tester:assertTensorEq(y2, x * m:get(2).weight:t(), 1e-12, 'untied: 1.weight stays')
  err('no parameter or buffer named 3.weight', Fn.functionalCall, m, { ['3.weight'] = I }, x)
  err('strict: missing', Fn.functionalCall, m, { ['0.weight'] = I }, x, { strict = true })
  err('must have the size', Fn.functionalCall, m, { ['0.weight'] = torch.eye(3) }, x)
  err('given different tensors', Fn.functionalCall, m, { ['0.weight'] = I, ['1.weight'] = I:clone() }, x)
  err('expected an nn.Module', Fn.functionalCall, {}, {}, x)
  -- buffers: a batch norm's running statistics in evaluation mode
  local bn = nn.BatchNormalization(2):double()
  bn:evaluate()
  local out = Fn.functionalCall(bn, { running_mean = D({ 1, 1 }), running_var = D({ 4, 4 }), weight = D({ 1, 1 }), bias = D({ 0, 0 }) }, D({ { 3, 5 } }))
  tester:assertTensorEq(out, D({ { 2 / math.sqrt(4 + bn.eps), 4 / math.sqrt(4 + bn.eps) } }), 1e-9)
  tester:assertTensorEq(bn.running_mean, torch.zeros(2):double(), 0)
  -- Note [Buffers are not differentiated]: a running statistic that needs a gradient is an error
  -- under grad (it had silently got zero), in evaluation and in training mode
  for _, train in ipairs({ false, true }) do
    bn:training(train)
    err('buffer running_mean needs a gradient', Fn.grad(function(r)
      return Fn.functionalCall(bn, { running_mean = r }, D({ { 3, 5 }, { 1, 2 } })):sum()
    end), D({ 1, 1 }))
  end
  bn:evaluate()
  local g = Fn.grad(function(w) return Fn.functionalCall(bn, { weight = w, running_var = D({ 4, 4 }) }, D({ { 3, 5 } })):sum() end)(D({ 1, 1 }))
  tester:assertTensorEq(g, D({ { 3 / math.sqrt(4 + bn.eps), 5 / math.sqrt(4 + bn.eps) } }):view(2), 1e-9)
end

function tests.ensembleWithStackModuleState()
  local models = {}
  for i = 1, 3 do models[i] = nn.Sequential():add(nn.Linear(3, 2)):add(nn.ReLU()):double() end
  local params, buffers = Fn.stackModuleState(models)
  tester:assertTableEq(params['0.weight']:size():totable(), { 3, 2, 3 })
  tester:assert(params['0.weight']:isLeaf() and params['0.weight']:needsGrad(), 'stacked parameters are leaves that require grad')
  tester:asserteq(next(buffers), nil)
  local x = torch.randn(5, 3):double()
  local base = models[1]:clone()
  local out = Fn.vmap(function(p) return Fn.functionalCall(base, p, x) end)(params)
  for i = 1, 3 do tester:assertTensorEq(out[i], models[i]:forward(x), 1e-12) end
  torch.sum(out):backward()
  tester:assertTableEq(params['0.weight'].grad:size():totable(), { 3, 2, 3 })
  -- PyTorch's ensembling tutorial maps the (empty) buffers too: an empty table is unmapped
  local out2 = Fn.vmap(function(p, b, xx) return Fn.functionalCall(base, { p, b }, xx) end,
    { inDims = { 1, 1, false } })(params, buffers, x)
  tester:assertTensorEq(out2, out:detach(), 1e-12)
  err('one class', Fn.stackModuleState, { nn.Linear(2, 2), nn.Tanh() })
end

function tests.parameterWithAHistory()
  -- Note [Parameters with a history]: a Torch7 module's weight computed from other tensors
  local m = nn.Linear(3, 2):double()
  local V = torch.randn(2, 3):double():requiresGrad()
  local s = torch.DoubleTensor({ 2.5 }):requiresGrad()
  local own = m.weight
  m.weight = torch.cmul(V, s:expand(2, 3))
  local x = torch.randn(4, 3):double()
  torch.sum(m:forward(x)):backward()
  local gW = torch.ones(4, 2):double():t() * x
  tester:assertTensorEq(V.grad, gW * 2.5, 1e-12)
  tester:assertalmosteq(s.grad[1], torch.cmul(gW, V:detach()):sum(), 1e-10)
  tester:asserteq(m.gradWeight:abs():max(), 0)
  m.weight = own
  -- Torch7's backward is unchanged
  m:zeroGradParameters()
  m:forward(x)
  m:backward(x, torch.ones(4, 2):double())
  tester:assertTensorEq(m.gradWeight, gW, 1e-12)
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  local m = nn.Linear(3, 2):cuda()
  local params = {}
  for name, p in m:namedParameters() do params[name] = p:detach() end
  local X, Y = torch.randn(4, 3):cuda(), torch.randn(4, 2):cuda()
  local g = Fn.vmap(Fn.grad(function(p, x, y)
    return torch.sum(torch.pow(Fn.functionalCall(m, p, x:view(1, 3)) - y:view(1, 2), 2))
  end), { inDims = { false, 1, 1 } })(params, X, Y)
  local mc = m:clone():float()
  for i = 1, 4 do
    mc:zeroGradParameters()
    torch.sum(torch.pow(mc:forward(X[i]:float():view(1, 3)) - Y[i]:float():view(1, 2), 2)):backward()
    tester:assertTensorEq(g.weight[i]:float(), mc.gradWeight, 1e-4)
  end
end

tester:add(tests):run()
