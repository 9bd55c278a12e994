-- Gradient penalties through parametrized and pruned Torch7 layers (nn.utils.parametrizations
-- weightNorm / spectralNorm, nn.utils.parametrize.registerParametrization, nn.utils.prune): the
-- input gradient taken with createGraph=true depends on the originals through the layer's weight,
-- so ||dL/dx||^2 differentiated with respect to them matches central finite differences (Note
-- [Gradient penalties through reparametrized tensors], nn/parametrize_core.lua). Also: first-order
-- gradients and Torch7's backward are unchanged by it, the weight is put back (also after an
-- error), and a parametrization's own parameters get their gradients (Note [Parameters of
-- parametrizations], nn/parametrize.lua).
require 'nn'
local core = require 'nn.parametrize_core'
local tester = torch.Tester()
local tests = torch.TestSuite()


-- P = ||dL/dx||^2 with L = sum(m(x)^2), the input gradient taken with createGraph=true.
local function penalty(m, x)
  local xr = x:clone():requiresGrad()
  local gx = torch.autograd.grad({ torch.pow(m:forward(xr), 2):sum() }, { xr }, nil, { createGraph = true })[1]
  return torch.pow(gx, 2):sum()
end

-- Central finite differences of f() with respect to p
local fd = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/finite_diff.lua').grad

local function close(got, want, label)
  tester:assertTensorEq(got, want, 1e-6 * math.max(1, torch.abs(want):max()), label)
end

-- The penalty's gradient with respect to each tensor of ps against finite differences.
local function penalty_check(label, m, x, ps)
  local got = torch.autograd.grad({ penalty(m, x) }, ps)
  for i, p in ipairs(ps) do
    close(got[i], fd(function() return penalty(m, x) end, p), label .. ' #' .. i)
  end
  return got
end

local function plist(m) return m.parametrizations.weight end

function tests.weightNorm()
  torch.manualSeed(1)
  local x = torch.randn(4, 3):double()
  for _, dim in ipairs({ 1, 2, 0 }) do
    local m = nn.utils.parametrizations.weightNorm(nn.Linear(3, 2):double(), { dim = dim })
    penalty_check('Linear dim ' .. dim, m, x, { plist(m).original0, plist(m).original1, m.bias })
  end
  local c = nn.utils.parametrizations.weightNorm(nn.SpatialConvolution(2, 3, 2, 2):double())
  penalty_check('SpatialConvolution', c, torch.randn(2, 2, 3, 3):double(), { plist(c).original0, plist(c).original1 })
end

-- Evaluation mode (u, v fixed) against finite differences; in training mode each forward takes one
-- power step (the penalty's backward takes none) and the gradient is the one at the stepped u, v.
function tests.spectralNorm()
  torch.manualSeed(2)
  local x = torch.randn(4, 3):double()
  local m = nn.utils.parametrizations.spectralNorm(nn.Linear(3, 5):double())
  m:evaluate()
  penalty_check('evaluate', m, x, { plist(m).original })
  m:training()
  local twin = m:clone()
  local got = torch.autograd.grad({ penalty(m, x) }, { plist(m).original })[1]
  twin:forward(x)
  local p, q = plist(m).modules[1], plist(twin).modules[1]
  tester:assertTensorEq(p._u, q._u, 1e-12, 'one power step per forward (u)')
  tester:assertTensorEq(p._v, q._v, 1e-12, 'one power step per forward (v)')
  m:evaluate()
  close(got, fd(function() return penalty(m, x) end, plist(m).original), 'training: the gradient at the stepped u, v')
end

function tests.prune()
  torch.manualSeed(3)
  local x = torch.randn(4, 3):double()
  local m = nn.utils.prune.l1Unstructured(nn.Linear(3, 2):double(), 'weight', 2)
  local got = penalty_check('l1Unstructured', m, x, { m.weight_orig, m.bias })
  tester:assertTensorEq(torch.cmul(got[1], torch.add(torch.neg(m.weight_mask), 1)), torch.zeros(2, 3):double(), 0,
    'no gradient at the pruned entries')
  local xi = torch.randn(2, 2, 3, 3):double()
  local t = nn.utils.prune.randomUnstructured(nn.SpatialFullConvolution(2, 3, 2, 2):double(), 'weight', 5)
  penalty_check('SpatialFullConvolution', t, xi, { t.weight_orig })
  local c = nn.utils.prune.l1Unstructured(nn.Conv2d(2, 3, 2):double(), 'weight', 4)
  penalty_check('Conv2d', c, xi, { c.weight_orig })
  -- an MLP mixing both kinds
  local net = nn.Sequential()
    :add(nn.utils.parametrizations.weightNorm(nn.Linear(3, 4)))
    :add(nn.Tanh())
    :add(nn.utils.prune.randomUnstructured(nn.Linear(4, 2), 'weight', 3)):double()
  penalty_check('MLP', net, x, { plist(net.modules[1]).original1, net.modules[3].weight_orig })
end

-- A learnable scale s: the parametrization's own parameter.
local Scale, parent = torch.class('nn.TestPenaltyScale', 'nn.Module')
function Scale:__init()
  parent.__init(self)
  self.s, self.gradS = torch.Tensor({ 1.5 }), torch.zeros(1)
end
function Scale:parameters() return { self.s }, { self.gradS } end
function Scale:updateOutput(x)
  self.output = torch.cmul(x, self.s:view(1, 1):expandAs(x))
  return self.output
end

function tests.customParametrizations()
  torch.manualSeed(4)
  local x = torch.randn(4, 3):double()
  local m = nn.utils.parametrize.registerParametrization(nn.Linear(3, 2):double(), 'weight',
    function(w) return torch.cmul(w, w) end)
  nn.utils.parametrize.registerParametrization(m, 'weight', function(w) return torch.tanh(w) end)
  penalty_check('chained functions', m, x, { plist(m).original })
  local s = nn.TestPenaltyScale():double()
  local l = nn.utils.parametrize.registerParametrization(nn.Linear(3, 2):double(), 'weight', s)
  penalty_check('learnable parametrization', l, x, { plist(l).original, s.s })
end

-- Note [Parameters of parametrizations]: first-order gradients of the parametrization's parameter
-- (Torch7's backward, loss:backward(), torch.autograd.grad) against finite differences; they were 0.
function tests.parametrizationParameters()
  torch.manualSeed(5)
  local x, gy = torch.randn(4, 3):double(), torch.randn(4, 2):double()
  local s = nn.TestPenaltyScale():double()
  local m = nn.utils.parametrize.registerParametrization(nn.Linear(3, 2):double(), 'weight', s)
  local function L() return torch.cmul(m:forward(x), gy):sum() end
  local want = fd(L, s.s)
  m:zeroGradParameters()
  m:forward(x)
  m:backward(x, gy)
  close(s.gradS, want, "Torch7's backward")
  m:zeroGradParameters()
  L():backward()
  close(s.s.grad, want, 'loss:backward()')
  close(torch.autograd.grad({ L() }, { s.s })[1], want, 'torch.autograd.grad')
  tester:assertTensorEq(s.gradS, want, 1e-6, 'torch.autograd.grad leaves gradS as it was')
end

-- First order and Torch7's backward are as before, also after penalties; the weight is put back.
function tests.firstOrderUnchanged()
  torch.manualSeed(6)
  local x, gy = torch.randn(4, 3):double(), torch.randn(4, 2):double()
  local m = nn.utils.parametrizations.weightNorm(nn.Linear(3, 2):double())
  local g, v = plist(m).original0, plist(m).original1
  local function L() return torch.cmul(m:forward(x), gy):sum() end
  local wg, wv = fd(L, g), fd(L, v)
  local function check(label)
    local got = torch.autograd.grad({ L() }, { g, v })
    close(got[1], wg, label .. ': autograd.grad g')
    close(got[2], wv, label .. ': autograd.grad v')
    m:zeroGradParameters()
    m:forward(x)
    m:backward(x, gy)
    close(plist(m).gradOriginal0, wg, label .. ": Torch7's backward g")
    close(plist(m).gradOriginal1, wv, label .. ": Torch7's backward v")
    m:zeroGradParameters()
    L():backward()
    close(g.grad, wg, label .. ': loss:backward() g')
    close(v.grad, wv, label .. ': loss:backward() v')
  end
  check('before')
  local w = m.weight
  torch.autograd.grad({ penalty(m, x) }, { g, v })
  tester:assert(rawequal(m.weight, w) and not m.weight:needsGrad(), 'the weight is put back')
  check('after a penalty')
  -- an error inside updateGradInput restores the weight and the replay flag
  m:forward(x)
  local ok, err = pcall(torch.enableGrad, m.updateGradInput, m, x, torch.randn(4, 7):double())
  tester:assert(not ok, 'a wrong gradOutput raises')
  tester:assert(rawequal(m.weight, w) and core.replaying == nil, 'state restored after the error: ' .. tostring(err))
end

-- Inside nn.utils.parametrize.cached the forward's tensor has no graph: the penalty still gets it.
function tests.insideCached()
  torch.manualSeed(7)
  local x = torch.randn(4, 3):double()
  local m = nn.utils.parametrizations.weightNorm(nn.Linear(3, 2):double())
  local want = torch.autograd.grad({ penalty(m, x) }, { plist(m).original1 })[1]
  local got = nn.utils.parametrize.cached(function()
    return torch.autograd.grad({ penalty(m, x) }, { plist(m).original1 })[1]
  end)
  tester:assertTensorEq(got, want, 1e-12, 'same gradient inside cached')
end

tester:add(tests):run()
