-- torch.autograd.grad with respect to the parameters of Torch7-style modules (Note [Parameter
-- gradients under torch.autograd.grad], lua/nn/param_history.lua): the gradients come back through
-- the graph and no .grad / gradWeight is touched, while loss:backward() still accumulates into
-- gradWeight. Values are closed forms of nn.Linear's gradients.
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function linear_setup()
  local m = nn.Linear(3, 2):double()
  m:zeroGradParameters()
  local x = torch.randn(4, 3):double()
  local gy = torch.randn(4, 2):double()
  return m, x, gy
end

function tests.gradWithRespectToParameters()
  local m, x, gy = linear_setup()
  local xr = x:clone():requiresGrad()
  local y = m:forward(xr)
  local g = torch.autograd.grad({ torch.sum(torch.cmul(y, gy)) }, { m.weight, m.bias, xr })
  tester:assertTensorEq(g[1], gy:t() * x, 1e-12)
  tester:assertTensorEq(g[2], gy:sum(1):view(2), 1e-12)
  tester:assertTensorEq(g[3], gy * m.weight, 1e-12)
  tester:asserteq(m.gradWeight:abs():max(), 0, 'torch.autograd.grad leaves gradWeight alone')
  tester:asserteq(m.gradBias:abs():max(), 0)
end

function tests.gradWithRespectToTheInputOnlyTouchesNoGradient()
  local m, x, gy = linear_setup()
  local xr = x:clone():requiresGrad()
  local gx = torch.autograd.grad({ torch.sum(torch.cmul(m:forward(xr), gy)) }, { xr })[1]
  tester:assertTensorEq(gx, gy * m.weight, 1e-12)
  tester:asserteq(m.gradWeight:abs():max(), 0, 'before, the parameters accumulated as a side effect')
end

function tests.backwardStillAccumulatesIntoGradWeight()
  local m, x, gy = linear_setup()
  for _ = 1, 2 do torch.sum(torch.cmul(m:forward(x), gy)):backward() end
  tester:assertTensorEq(m.gradWeight, gy:t() * x * 2, 1e-12)
  tester:assert(m.weight.grad == m.gradWeight, 'the .grad is still gradWeight')
end

function tests.sequentialOfTorch7Modules()
  local seq = nn.Sequential():add(nn.Linear(3, 4)):add(nn.Tanh()):add(nn.Linear(4, 1)):double()
  local x = torch.randn(5, 3):double()
  local params = seq:parameters()
  local g = torch.autograd.grad({ torch.sum(seq:forward(x)) }, params)
  seq:zeroGradParameters()
  torch.sum(seq:forward(x)):backward()
  local _, grads = seq:parameters()
  for i = 1, #params do tester:assertTensorEq(g[i], grads[i], 1e-12, 'parameter ' .. i) end
  -- Torch7's own backward agrees as well
  seq:zeroGradParameters()
  seq:forward(x)
  seq:backward(x, torch.ones(5, 1):double())
  for i = 1, #params do tester:assertTensorEq(g[i], grads[i], 1e-12, 'Torch7 backward, parameter ' .. i) end
end

function tests.frozenParametersAreNotInputs()
  local m, x = linear_setup()
  m:requiresGrad(false)
  local xr = x:clone():requiresGrad()
  local g = torch.autograd.grad({ torch.sum(m:forward(xr)) }, { xr })[1]
  tester:assertTensorEq(g, torch.ones(4, 2):double() * m.weight, 1e-12)
  local ok, err = pcall(torch.autograd.grad, { torch.sum(m:forward(xr)) }, { m.weight })
  tester:assert(not ok and tostring(err):find('[grad]', 1, true), tostring(err))
end

-- Parameters that nn.Module's parameters() does not list by name (a class with its own
-- parameters()): nn.WeightedEuclidean's diagCov was no input of the node ('input 2 was not used')
-- and its gradient filled gradDiagCov under torch.autograd.grad.
function tests.parametersUnderOtherNames()
  local m = nn.WeightedEuclidean(3, 2):double()
  local x, gy = torch.randn(4, 3):double(), torch.randn(4, 2):double()
  m:zeroGradParameters()
  m:forward(x)
  m:backward(x, gy)
  local rw, rd = m.gradWeight:clone(), m.gradDiagCov:clone()
  m:zeroGradParameters()
  local g = torch.autograd.grad({ torch.sum(torch.cmul(m:forward(x), gy)) }, { m.weight, m.diagCov })
  tester:assertTensorEq(g[1], rw, 1e-10)
  tester:assertTensorEq(g[2], rd, 1e-10)
  tester:asserteq(m.gradDiagCov:abs():max(), 0, 'torch.autograd.grad leaves gradDiagCov alone')
  torch.sum(torch.cmul(m:forward(x), gy)):backward()
  tester:assertTensorEq(m.gradDiagCov, rd, 1e-10, 'loss:backward() still fills gradDiagCov')
end

-- nn.PartialLinear's weight is its inner LookupTable's, whose gradWeight accGradParameters fills:
-- torch.autograd.grad reaches it (it raised "input 1 was not used"), with a partition too.
function tests.parameterWhoseGradientLivesInAChild()
  local m = nn.PartialLinear(3, 5):double()
  local lut = m.network.modules[1].modules[2]
  for _, part in ipairs({ false, true }) do
    if part then m:setPartition(torch.LongTensor({ 2, 5 })) end
    local x, gy = torch.randn(4, 3):double(), torch.randn(4, part and 2 or 5):double()
    m:zeroGradParameters()
    m:forward(x)
    m:backward(x, gy)
    local rw, rb = lut.gradWeight:clone(), m.gradBias:clone()
    m:zeroGradParameters()
    local g = torch.autograd.grad({ torch.sum(torch.cmul(m:forward(x), gy)) }, { lut.weight, m.bias })
    tester:assertTensorEq(g[1], rw, 1e-10, 'weight gradient')
    tester:assertTensorEq(g[2], rb, 1e-10, 'bias gradient')
    tester:asserteq(lut.gradWeight:abs():max(), 0, 'torch.autograd.grad leaves the inner gradWeight alone')
    torch.sum(torch.cmul(m:forward(x), gy)):backward()
    tester:assertTensorEq(lut.gradWeight, rw, 1e-10, 'loss:backward() still fills it')
  end
end

-- nn.WeightNorm's gradBias is its module's (the same tensor in two fields): torch.autograd.grad
-- swapped the wrapper's field only, so the bias gradient came back as zeros and the module's
-- gradBias (which its accGradParameters fills) changed under it.
function tests.gradientHeldUnderTwoFields()
  local prev = torch.getdefaulttensortype()
  torch.setdefaulttensortype('torch.DoubleTensor')
  local m = nn.WeightNorm(nn.Linear(3, 2))
  torch.setdefaulttensortype(prev)
  local ref = m:clone()
  local x, gy = torch.randn(4, 3):double(), torch.randn(4, 2):double()
  ref:zeroGradParameters()
  ref:forward(x)
  ref:backward(x, gy)
  m:zeroGradParameters()
  local g = torch.autograd.grad({ torch.sum(torch.cmul(m:forward(x), gy)) }, { m.bias })
  tester:assertTensorEq(g[1], ref.gradBias, 1e-10, 'bias gradient')
  tester:asserteq(m.modules[1].gradBias:abs():max(), 0, 'the module\'s gradBias is left alone')
  -- a wrapper that keeps an alias of its child's gradient in a field of its own (found first by
  -- a search of its own fields): both fields are swapped
  local W, parent = torch.class('nn.AliasGradWrapperTest', 'nn.Module')
  function W:__init()
    parent.__init(self)
    self.inner = nn.Linear(3, 2):double()
    self.gradAlias = self.inner.gradWeight
    nn.utils.linkGradients(self)
  end
  function W:parameters() return { self.inner.weight }, { self.inner.gradWeight } end
  function W:updateOutput(x) self.output = self.inner:updateOutput(x) return self.output end
  function W:updateGradInput(x, go) self.gradInput = self.inner:updateGradInput(x, go) return self.gradInput end
  function W:accGradParameters(x, go, s) self.inner:accGradParameters(x, go, s) end
  local w = nn.AliasGradWrapperTest()
  w.inner:zeroGradParameters()
  w:forward(x)
  w:backward(x, gy)
  local rw = w.inner.gradWeight:clone()
  w.inner:zeroGradParameters()
  local gw = torch.autograd.grad({ torch.sum(torch.cmul(w:forward(x), gy)) }, { w.inner.weight })
  tester:assertTensorEq(gw[1], rw, 1e-10, 'weight gradient through the aliased field')
  tester:asserteq(w.inner.gradWeight:abs():max(), 0, 'the child\'s gradWeight is left alone')
  tester:assert(rawequal(w.gradAlias, w.inner.gradWeight), 'the fields are restored')
end

-- A parameter that needs no gradient (m.bias:requiresGrad(false)) still has its gradient field,
-- which accGradParameters filled under torch.autograd.grad.
function tests.gradLeavesTheFieldOfAParameterThatNeedsNone()
  local m, x, gy = linear_setup()
  m.bias:requiresGrad(false)
  local xr = x:clone():requiresGrad()
  local g = torch.autograd.grad({ torch.sum(torch.cmul(m:forward(xr), gy)) }, { m.weight, xr })
  tester:assertTensorEq(g[1], gy:t() * x, 1e-12)
  tester:asserteq(m.gradBias:abs():max(), 0, 'gradBias untouched')
  tester:asserteq(m.gradWeight:abs():max(), 0, 'gradWeight untouched')
end

-- Note [Coarse nodes under createGraph]: nn.ReLU's backward computes its gradInput without a graph;
-- a Hessian-vector product through it took that gradient for a constant (silently wrong) and
-- torch.autograd.functional.jvp through it gave zero. Differentiating such a gradient again is now
-- an error naming the module, while first-order createGraph and modules whose backward builds a
-- graph (Linear, Tanh) keep working and agree with the same network written with tensor ops.
function tests.secondOrderThroughTorch7Modules()
  torch.manualSeed(11)
  local x = torch.randn(5, 3):double()
  local relu = nn.Sequential():add(nn.Linear(3, 4)):add(nn.ReLU()):add(nn.Linear(4, 2)):double()
  local p = relu:parameters()
  local g = torch.autograd.grad({ torch.sum(torch.pow(relu:forward(x), 2)) }, p, { createGraph = true })
  tester:assertTensorEq(g[3], g[3]:detach(), 0, 'first order with createGraph runs')
  local s = torch.sum(g[1]) + torch.sum(g[3])
  local ok, err = pcall(torch.autograd.grad, { s }, p, { allowUnused = true })
  tester:assert(not ok and tostring(err):find('[nn.ReLU]', 1, true), tostring(err))
  local r = nn.ReLU()
  ok, err = pcall(torch.autograd.functional.jvp, function(t) return r:forward(t) end, torch.randn(4):double(),
    torch.ones(4):double())
  tester:assert(not ok and tostring(err):find('[nn.ReLU]', 1, true), tostring(err))
  -- Linear and Tanh build the graph of their gradients: the Hessian-vector product is right
  local tanh = nn.Sequential():add(nn.Linear(3, 4)):add(nn.Tanh()):add(nn.Linear(4, 2)):double()
  local function hvp(f, params)
    local gs = torch.autograd.grad({ f() }, params, { createGraph = true })
    return torch.autograd.grad({ torch.sum(gs[1]) + torch.sum(gs[2]) + torch.sum(gs[3]) }, params)
  end
  local tp = tanh:parameters()
  local h = hvp(function() return torch.sum(torch.pow(tanh:forward(x), 2)) end, tp)
  local q = {}
  for i, t in ipairs(tp) do q[i] = t:detach():clone():requiresGrad() end
  local hr = hvp(function()
    local a = torch.tanh(torch.addmm(q[2]:view(1, 4):expand(5, 4), x, q[1]:t()))
    return torch.sum(torch.pow(torch.addmm(q[4]:view(1, 2):expand(5, 2), a, q[3]:t()), 2))
  end, q)
  for i = 1, 4 do tester:assertTensorEq(h[i], hr[i], 1e-10, 'parameter ' .. i) end
end

-- torch.autograd.grad handed the caller the module's gradInput buffer itself: the next backward
-- through the module overwrote a result the caller kept (torch.func.grad's too).
function tests.gradResultsAreNotTheModulesBuffer()
  local m = nn.Tanh():double()
  local x1 = torch.randn(3):double():requiresGrad()
  local g1 = torch.autograd.grad({ torch.sum(m:forward(x1)) }, { x1 })[1]
  local want = 1 - torch.pow(torch.tanh(x1:detach()), 2)
  tester:assertTensorEq(g1, want, 1e-12)
  local x2 = torch.randn(3):double():requiresGrad()
  torch.autograd.grad({ torch.sum(m:forward(x2)) }, { x2 })
  tester:assertTensorEq(g1, want, 1e-12, 'a later call through the module left the result alone')
  local gfn = torch.func.grad(function(x) return torch.sum(m:forward(x)) end)
  local a = gfn(x1:detach())
  gfn(x2:detach())
  tester:assertTensorEq(a, want, 1e-12, 'torch.func.grad')
end

function tests.mulSecondOrderReachesItsWeight()
  -- a gradient penalty through nn.Mul: gx = d sum(y^2) / dx = 2 w^2 x, penalty sum(gx^2) = 4 w^4 sum(x^2),
  -- d penalty / dw = 16 w^3 sum(x^2); the weight entered updateGradInput as a number, so the
  -- second derivative missed the path through gx and came out as half of it
  local m = nn.Mul():double()
  m.weight[1] = 1.7
  local x = torch.randn(5):double():requiresGrad()
  local gx = torch.autograd.grad({ torch.sum(torch.pow(m:forward(x), 2)) }, { x }, nil, { createGraph = true })[1]
  local gw = torch.autograd.grad({ torch.sum(torch.pow(gx, 2)) }, { m.weight })[1]
  tester:assertalmosteq(gw[1], 16 * 1.7 ^ 3 * torch.pow(x:detach(), 2):sum(), 1e-10)
  -- Torch7's backward is unchanged
  m:zeroGradParameters()
  local xd = x:detach()
  m:forward(xd)
  tester:assertTensorEq(m:backward(xd, torch.ones(5):double()), torch.ones(5):double() * 1.7, 1e-12)
end

-- nn.CMul under createGraph: its backward multiplied a view of its gradInput buffer in place,
-- which autograd refuses ("in-place operation on a view"), and its weight gradient, added into a
-- view of the captured gradient, carried no graph. Both second derivatives must equal those of the
-- same product written with tensor ops, for each of its three ways of lining up with the input.
function tests.cmulSecondOrder()
  local cases = { { { 3 }, { 2, 3 } }, { { 1, 3, 1, 1 }, { 2, 3, 4, 4 } }, { { 3, 4 }, { 2, 3, 4 } },
                  { { 2, 3 }, { 6 } } }
  for _, case in ipairs(cases) do
    local wsize, xsize = case[1], case[2]
    local m = nn.CMul(unpack(wsize)):double()
    local x = torch.randn(unpack(xsize)):double():requiresGrad()
    local function penalty(y, w)
      local g = torch.autograd.grad({ torch.sum(torch.pow(y, 3)) }, { x, w }, { createGraph = true })
      return torch.sum(torch.pow(g[1], 2)) + torch.sum(torch.pow(g[2], 2))
    end
    local p = penalty(m:forward(x), m.weight)
    local got = torch.autograd.grad({ p }, { x, m.weight })
    -- the reference: the same weight as a leaf, lined up with the input as CMul does
    local w = m.weight:detach():clone():requiresGrad()
    local n = w:nElement()
    local y
    if x:nElement() == n then y = torch.cmul(x, w:view(-1):viewAs(x))
    elseif x:dim() == w:dim() then y = torch.cmul(x, w:expandAs(x))
    else y = torch.cmul(x:view(x:size(1), n), w:view(1, n):expand(x:size(1), n)):viewAs(x) end
    local want = torch.autograd.grad({ penalty(y, w) }, { x, w })
    local label = table.concat(wsize, 'x') .. ' on ' .. table.concat(xsize, 'x')
    tester:assertTensorEq(got[1], want[1], 1e-10, 'input, ' .. label)
    tester:assertTensorEq(got[2], want[2], 1e-10, 'weight, ' .. label)
  end
end

-- nn.PairwiseDistance under createGraph: its backward added to the norm that norm's backward had
-- saved, in place, and the second backward failed on the changed tensor. The second derivatives
-- must match those of the distance written with tensor ops (the module's eps of 1e-6 included).
function tests.pairwiseDistanceSecondOrder()
  for _, p in ipairs({ 1.5, 2, 3 }) do
    local m = nn.PairwiseDistance(p):double()
    local a, b = torch.randn(3, 4):double():requiresGrad(), torch.randn(3, 4):double():requiresGrad()
    local function penalty(y)
      local g = torch.autograd.grad({ torch.sum(torch.pow(y, 3)) }, { a, b }, { createGraph = true })
      return torch.sum(torch.pow(g[1], 2)) + torch.sum(torch.mul(g[2], g[1]))
    end
    local got = torch.autograd.grad({ penalty(m:forward({ a, b })) }, { a, b })
    -- the module's gradient divides by (norm + 1e-6)^(p-1): the same distance as a function
    local d = a - b
    local norm = torch.norm(d, p, 2)
    local y = norm:view(-1)
    local want = torch.autograd.grad({ penalty(y) }, { a, b })
    tester:assertTensorEq(got[1], want[1], 1e-4, 'a, p = ' .. p)
    tester:assertTensorEq(got[2], want[2], 1e-4, 'b, p = ' .. p)
  end
end

-- A createGraph = true backward leaves a graph on the module's gradInput buffer; a later Torch7
-- backward starts a new one (it kept the stale graph and reported needsGrad())
function tests.torch7BackwardAfterCreateGraph()
  local m = nn.Linear(3, 2):double()
  local x = torch.randn(4, 3):double():requiresGrad()
  torch.autograd.grad({ torch.sum(torch.pow(m:forward(x), 2)) }, { x }, { createGraph = true })
  local x2, gy = torch.randn(4, 3):double(), torch.randn(4, 2):double()
  m:forward(x2)
  local gi = m:backward(x2, gy)
  tester:assert(not gi:needsGrad(), 'the Torch7 gradInput carries no graph')
  tester:assertTensorEq(gi, gy * m.weight, 1e-12, 'and holds gradOutput * weight')
end

-- torch.autograd.grad(loss, m:parameters()) took parameters()'s second result, the gradients, as
-- gradOutputs and failed on their sizes; the error now says what happened and what to write.
function tests.gradOfParametersNamesTheSecondResult()
  local m = nn.Linear(3, 2):double()
  local loss = torch.sum(m(torch.randn(4, 3):double()))
  tester:assertErrorPattern(function() torch.autograd.grad(loss, m:parameters()) end,
    'grad%] got 2 gradOutputs for 1 outputs.*%(model:parameters%(%)%)')
  local g = torch.autograd.grad(loss, (m:parameters()))
  tester:assertTensorEq(g[2], torch.DoubleTensor(2):fill(4), 1e-12, 'with the parentheses: the bias gradient')
end

tester:add(tests):run()
