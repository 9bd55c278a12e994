-- The weight-reparametrizing wrappers under autograd (nn.WeightNorm, nn.LinearWeightNorm,
-- nn.SpectralNorm, nn.utils.parametrizations.weightNorm): loss:backward() fills the same gradient
-- tensors as Torch7's backward (gradV, gradG, which are v.grad and g.grad), torch.autograd.grad
-- with respect to the parameters gives the same values and touches no gradient, it can be called
-- again, and a type conversion keeps the parameters requiring grad (Note [WeightNorm parameters
-- are leaves], Note [Wrappers relink after a type change], Note [The reparametrized weight under
-- autograd]). Values against central finite differences and against Torch7's backward.
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()

local D = function(...) return torch.DoubleTensor(...) end

-- L = sum(m(x) .* gy) and its finite-difference gradient with respect to the tensor p (changed in
-- place with recording off, then put back).
local function loss(m, x, gy) return torch.sum(torch.cmul(m:forward(x), gy)) end
local FD = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/finite_diff.lua')
-- the gradient of loss(m, x, gy) with respect to p, by central finite differences
local function fd_grad(m, x, gy, p) return FD.grad(function() return loss(m, x, gy) end, p) end

local function torch7_grads(m, x, gy, grads)
  m:zeroGradParameters()
  m:forward(x)
  m:backward(x, gy)
  local r = {}
  for i, g in ipairs(grads) do r[i] = g:clone() end
  return r
end

local function same_tensor(a, b) return a ~= nil and b ~= nil and a.p == b.p end

-- The checks every wrapper passes: params / grads are its parameters and their gradient fields.
local function check_wrapper(name, m, x, gy, params, grads)
  local ref = torch7_grads(m, x, gy, grads)
  for i, p in ipairs(params) do
    tester:assert(p:isLeaf() and p:needsGrad(), name .. ': parameter ' .. i .. ' is a leaf that requires grad')
    tester:assert(same_tensor(p.grad, grads[i]), name .. ': parameter ' .. i .. '.grad is its gradient field')
    tester:assertTensorEq(ref[i], fd_grad(m, x, gy, p), 1e-6, name .. ': Torch7 backward vs finite differences ' .. i)
  end
  -- loss:backward() fills the gradient fields (before: gradV and gradG stayed zero)
  m:zeroGradParameters()
  loss(m, x, gy):backward()
  for i, g in ipairs(grads) do
    tester:assertTensorEq(g, ref[i], 1e-10, name .. ': loss:backward() fills gradient ' .. i)
  end
  -- torch.autograd.grad: the same values, no gradient field touched, and a second call works
  -- (before: the v/g gradients went into a freed graph, "backward through the graph of norm a
  -- second time")
  m:zeroGradParameters()
  for call = 1, 2 do
    local r = torch.autograd.grad({ loss(m, x, gy) }, params)
    for i = 1, #params do
      tester:assertTensorEq(r[i], ref[i], 1e-10, name .. ': torch.autograd.grad call ' .. call .. ' gradient ' .. i)
      tester:asserteq(grads[i]:abs():max(), 0, name .. ': torch.autograd.grad leaves gradient ' .. i .. ' alone')
    end
  end
end

function tests.weightNormLinear()
  torch.manualSeed(1)
  local m = nn.WeightNorm(nn.Linear(3, 2):double())
  m.g:copy(D({ 1.5, 0.7 }))
  local x, gy = torch.randn(4, 3):double(), torch.randn(4, 2):double()
  check_wrapper('WeightNorm', m, x, gy, { m.v, m.g, m.bias }, { m.gradV, m.gradG, m.gradBias })
end

function tests.weightNormOtherDimAndConvolution()
  torch.manualSeed(2)
  local m = nn.WeightNorm(nn.Linear(3, 4):double(), 2)
  local x, gy = torch.randn(2, 3):double(), torch.randn(2, 4):double()
  check_wrapper('WeightNorm outputDim=2', m, x, gy, { m.v, m.g, m.bias }, { m.gradV, m.gradG, m.gradBias })
  local c = nn.WeightNorm(nn.SpatialConvolution(2, 3, 2, 2):double())
  local xi = torch.randn(2, 2, 3, 3):double()
  local go = torch.randn(2, 3, 2, 2):double()
  check_wrapper('WeightNorm conv', c, xi, go, { c.v, c.g, c.bias }, { c.gradV, c.gradG, c.gradBias })
end

-- The effective weight (the module's, exposed as wn.weight) is an input of the node: its gradient
-- is dL/dweight, as a plain module with that weight gives (before: silently zeros).
function tests.weightNormEffectiveWeightGradient()
  torch.manualSeed(3)
  local m = nn.WeightNorm(nn.Linear(3, 2):double())
  local x, gy = torch.randn(4, 3):double(), torch.randn(4, 2):double()
  local r = torch.autograd.grad({ loss(m, x, gy) }, { m.weight, m.v })
  tester:assertTensorEq(r[1], gy:t() * x, 1e-12, 'dL/dweight = gy^T x')
  tester:asserteq(m.gradV:abs():max(), 0)
  local sn = nn.SpectralNorm(nn.Linear(3, 2):double())
  sn:evaluate()
  local rs = torch.autograd.grad({ loss(sn, x, gy) }, { sn.weight })
  tester:assertTensorEq(rs[1], gy:t() * x, 1e-12, 'SpectralNorm: dL/dweight = gy^T x')
end

-- Under a default type other than the module's, :double() / :float() convert v and g; they stay
-- leaves that require grad with gradV / gradG as .grad, also inside a container (before: the new
-- tensors required no grad and loss:backward() gave them nothing).
function tests.typeConversionKeepsParametersLinked()
  local prev = torch.getdefaulttensortype()
  torch.setdefaulttensortype('torch.FloatTensor')
  local m = nn.WeightNorm(nn.Linear(3, 2))
  local s = nn.Sequential():add(nn.WeightNorm(nn.Linear(3, 2)))
  torch.setdefaulttensortype(prev)
  for _, case in ipairs({ { 'WeightNorm', m:double(), m }, { 'in a Sequential', s:double(), s.modules[1] } }) do
    local w = case[3]
    for _, n in ipairs({ 'v', 'g' }) do
      local p, g = w[n], w['grad' .. n:upper()]
      tester:asserteq(p:type(), 'torch.DoubleTensor', case[1])
      tester:assert(p:isLeaf() and p:needsGrad(), case[1] .. ': ' .. n .. ' requires grad after double()')
      tester:assert(same_tensor(p.grad, g), case[1] .. ': ' .. n .. '.grad is its gradient after double()')
    end
    local x, gy = torch.randn(4, 3):double(), torch.randn(4, 2):double()
    local ref = torch7_grads(case[2], x, gy, { w.gradV, w.gradG })
    case[2]:zeroGradParameters()
    loss(case[2], x, gy):backward()
    tester:assertTensorEq(w.gradV, ref[1], 1e-10, case[1] .. ': gradV after double()')
    tester:assertTensorEq(w.gradG, ref[2], 1e-10, case[1] .. ': gradG after double()')
  end
  m:float()
  tester:assert(m.v:needsGrad() and same_tensor(m.v.grad, m.gradV), 'float(): v linked')
  tester:assert(m.g:needsGrad() and same_tensor(m.g.grad, m.gradG), 'float(): g linked')
end

-- reset, clone, save / load and getParameters keep v and g linked leaves.
function tests.weightNormCopiesStayLinked()
  local m = nn.WeightNorm(nn.Linear(3, 2):double())
  m:reset()
  tester:assert(m.v:isLeaf() and same_tensor(m.v.grad, m.gradV), 'reset')
  local c = m:clone()
  tester:assert(same_tensor(c.v.grad, c.gradV) and same_tensor(c.g.grad, c.gradG), 'clone')
  local f = os.tmpname()
  torch.save(f, m)
  local l = torch.load(f)
  os.remove(f)
  tester:assert(same_tensor(l.v.grad, l.gradV) and same_tensor(l.g.grad, l.gradG), 'torch.load')
  local _, flat = m:getParameters()
  local x, gy = torch.randn(4, 3):double(), torch.randn(4, 2):double()
  local ref = torch7_grads(m, x, gy, { flat })
  m:zeroGradParameters()
  loss(m, x, gy):backward()
  tester:assertTensorEq(flat, ref[1], 1e-10, 'getParameters: loss:backward() fills the flat gradient')
end

function tests.linearWeightNorm()
  torch.manualSeed(4)
  local m = nn.LinearWeightNorm(3, 2):double()
  local x, gy = torch.randn(4, 3):double(), torch.randn(4, 2):double()
  check_wrapper('LinearWeightNorm', m, x, gy, { m.v, m.g, m.bias }, { m.gradV, m.gradG, m.gradBias })
end

-- In evaluation mode u and v stay put, so every forward is the same function.
function tests.spectralNorm()
  torch.manualSeed(5)
  local m = nn.SpectralNorm(nn.Linear(3, 2):double())
  for _ = 1, 5 do m:forward(torch.randn(1, 3):double()) end
  m:evaluate()
  local x, gy = torch.randn(4, 3):double(), torch.randn(4, 2):double()
  local lin = m.modules[1]
  check_wrapper('SpectralNorm', m, x, gy, { m.weight_orig, lin.bias }, { m.gradWeight_orig, lin.gradBias })
end

function tests.parametrizationsWeightNorm()
  torch.manualSeed(6)
  local m = nn.Linear(3, 2):double()
  nn.utils.parametrizations.weightNorm(m)
  local pw = m.parametrizations.weight
  local o0, o1 = pw.original0, pw.original1
  local x, gy = torch.randn(4, 3):double(), torch.randn(4, 2):double()
  m:zeroGradParameters()
  loss(m, x, gy):backward()
  local g0, g1 = o0.grad:clone(), o1.grad:clone()
  tester:assertTensorEq(g0, fd_grad(m, x, gy, o0), 1e-6, 'original0 (g) vs finite differences')
  tester:assertTensorEq(g1, fd_grad(m, x, gy, o1), 1e-6, 'original1 (v) vs finite differences')
  m:zeroGradParameters()
  for call = 1, 2 do
    local r = torch.autograd.grad({ loss(m, x, gy) }, { o0, o1 })
    tester:assertTensorEq(r[1], g0, 1e-10, 'torch.autograd.grad g, call ' .. call)
    tester:assertTensorEq(r[2], g1, 1e-10, 'torch.autograd.grad v, call ' .. call)
  end
  tester:asserteq(o0.grad:abs():max(), 0, 'torch.autograd.grad leaves .grad alone')
  m:float()
  tester:assert(pw.original0:needsGrad() and pw.original1:needsGrad(), 'float() keeps the originals requiring grad')
end

-- A gradient penalty: P = ||dL/dx||^2 with L = sum(m(x)^2), differentiated with respect to the
-- parameter p (createGraph=true, then torch.autograd.grad), against finite differences of P
-- (Note [Gradient penalties through a reparametrized weight]: before, the path through the
-- weight was missed: a silently wrong gradient).
local function penalty_check(label, m, x, p)
  local function penalty()
    local xr = x:clone():requiresGrad()
    local gx = torch.autograd.grad({ torch.pow(m:forward(xr), 2):sum() }, { xr }, nil, { createGraph = true })[1]
    return torch.pow(gx, 2):sum()
  end
  local got = torch.autograd.grad({ penalty() }, { p })[1]
  local fd = FD.grad(penalty, p)
  tester:assertTensorEq(got, fd, 1e-6 * math.max(1, torch.abs(fd):max()), label)
end

function tests.gradientPenalty()
  torch.manualSeed(7)
  local x = torch.randn(4, 3):double()
  local m = nn.WeightNorm(nn.Linear(3, 2):double())
  penalty_check('WeightNorm v', m, x, m.v)
  penalty_check('WeightNorm g', m, x, m.g)
  local m2 = nn.WeightNorm(nn.Linear(3, 4):double(), 2)
  penalty_check('WeightNorm outputDim=2 v', m2, x, m2.v)
  penalty_check('WeightNorm outputDim=2 g', m2, x, m2.g)
  local c = nn.WeightNorm(nn.SpatialConvolution(2, 3, 2, 2):double())
  local xi = torch.randn(2, 2, 3, 3):double()
  penalty_check('WeightNorm conv v', c, xi, c.v)
  penalty_check('WeightNorm conv g', c, xi, c.g)
  local net = nn.Sequential():add(nn.WeightNorm(nn.Linear(3, 4))):add(nn.Tanh()):add(nn.WeightNorm(nn.Linear(4, 2))):double()
  penalty_check('in an MLP, first layer v', net, x, net.modules[1].v)
  penalty_check('in an MLP, last layer g', net, x, net.modules[3].g)
  local l = nn.LinearWeightNorm(3, 2):double()
  penalty_check('LinearWeightNorm v', l, x, l.v)
  penalty_check('LinearWeightNorm g', l, x, l.g)
  -- the module's weight is put back: Torch7's backward after the penalties is as before
  local gy = torch.randn(4, 2):double()
  local fresh = nn.WeightNorm(nn.Linear(3, 2):double())
  fresh.v:copy(m.v) fresh.g:copy(m.g) fresh.bias:copy(m.bias)
  local want = torch7_grads(fresh, x, gy, { fresh.gradV, fresh.gradG })
  local got = torch7_grads(m, x, gy, { m.gradV, m.gradG })
  tester:assert(rawequal(m.modules[1].weight, m.weight), 'the module keeps its weight tensor')
  tester:assertTensorEq(got[1], want[1], 1e-12, 'Torch7 gradV after the penalties')
  tester:assertTensorEq(got[2], want[2], 1e-12, 'Torch7 gradG after the penalties')
end

-- SpectralNorm (evaluation mode: u and v fixed, so the penalty is a function of orig alone): the
-- gradient penalty reaches weight_orig, and :double() keeps it requiring grad
function tests.spectralNormPenaltyAndType()
  torch.manualSeed(8)
  local x = torch.randn(4, 3):double()
  local s = nn.SpectralNorm(nn.Linear(3, 2)):double()
  tester:assert(s.weight_orig:needsGrad(), 'weight_orig requires grad after :double()')
  s:evaluate()
  penalty_check('SpectralNorm weight_orig', s, x, s.weight_orig)
end

tester:add(tests):run()
