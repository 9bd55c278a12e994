-- Regressions from a review of nn.init and nn.utils' gradient tools against PyTorch 1.13:
-- kaiming's gains and modes, empty and non-contiguous tensors in nn.init, clipGradNorm's inf norm,
-- pruning (default importance scores, lnStructured's inf norms, positional scores), parametrize
-- (rightInverse changing the shape, positional leaveParametrized), one reparametrization per weight,
-- spectral norm of PyTorch's transposed convolutions; plus exact values against PyTorch 1.13
-- (gains, clipping, fusion, weight norm, pruning masks) and statistics of seeded draws.
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()
torch.setdefaulttensortype('torch.DoubleTensor')
torch.manualSeed(4242)
local init = nn.init

local function close(a, b, tol, msg)
  tester:assertle(math.abs(a - b), tol or 1e-12, (msg or '') .. string.format(' (%.17g vs %.17g)', a, b))
end
local function closeT(t, list, tol, msg)
  local flat = t:contiguous():view(-1)
  tester:asserteq(flat:nElement(), #list, (msg or '') .. ' size')
  for i = 1, #list do close(flat[i], list[i], tol, (msg or '') .. ' element ' .. i) end
end

-- ---- nn.init ------------------------------------------------------------------------------------

function tests.calculateGainEveryNonlinearity()
  -- PyTorch 1.13's torch.nn.init.calculate_gain
  local expect = { linear = 1, conv1d = 1, conv2d = 1, conv3d = 1, conv_transpose1d = 1, conv_transpose2d = 1,
    conv_transpose3d = 1, sigmoid = 1, tanh = 1.6666666666666667, relu = 1.4142135623730951, selu = 0.75 }
  for n, g in pairs(expect) do close(init.calculateGain(n), g, 1e-15, n) end
  close(init.calculateGain('leaky_relu'), 1.4141428569978354, 1e-15, 'leaky_relu default')
  close(init.calculateGain('leaky_relu', 0.2), 1.3867504905630728, 1e-15, 'leaky_relu 0.2')
  close(init.calculateGain('leaky_relu', 0), 1.4142135623730951, 1e-15, 'leaky_relu 0')
  close(init.calculateGain('leakyRelu', 3), 0.4472135954999579, 1e-15, 'leakyRelu 3')
  tester:assertErrorPattern(function() init.calculateGain('swish') end, "calculateGain%] unsupported nonlinearity 'swish'")
  tester:assertErrorPattern(function() init.calculateGain('leaky_relu', true) end, 'calculateGain%].*slope')
end

-- kaiming's gain came from a smaller table than calculateGain's: 'linear' worked, 'conv2d' was an
-- error; a std / bound check on a large draw.
function tests.kaimingTakesEveryGain()
  local t = torch.Tensor(400, 50, 3, 3)  -- fan_in 450, fan_out 3600
  init.kaimingUniform(t, 0, 'fan_in', 'conv2d')
  local bound = math.sqrt(3 / 450)
  tester:assertle(t:abs():max(), bound)
  tester:assertgt(t:abs():max(), 0.999 * bound)
  init.kaimingNormal(t, 0, 'fan_in', 'conv_transpose2d')
  local n = t:nElement()
  close(t:std(), 1 / math.sqrt(450), 5 * (1 / math.sqrt(450)) / math.sqrt(2 * n), 'std with gain 1')
  init.kaimingNormal(t, 0.2, 'fan_out')  -- leaky_relu with slope 0.2
  close(t:std(), 1.3867504905630728 / math.sqrt(3600), 5 * 0.0232 / math.sqrt(2 * n), 'std leaky 0.2 fan_out')
end

-- an unknown mode, the camelCase 'fanOut' among them, silently used fan_in
function tests.kaimingModes()
  local t = torch.Tensor(30, 2000)  -- fan_in 2000, fan_out 30
  for _, mode in ipairs({ 'fan_out', 'fanOut' }) do
    init.kaimingUniform(t, 0, mode, 'relu')
    local bound = math.sqrt(2) * math.sqrt(3 / 30)
    tester:assertle(t:abs():max(), bound, mode)
    tester:assertgt(t:abs():max(), 0.99 * bound, mode .. ' uses fan_out')
  end
  init.kaimingUniform(t, 0, 'fanIn', 'relu')
  tester:assertle(t:abs():max(), math.sqrt(2) * math.sqrt(3 / 2000), 'fanIn')
  tester:assertErrorPattern(function() init.kaimingUniform(t, 0, 'fan_inn') end, "kaimingUniform%] mode must be .*'fan_inn'")
  tester:assertErrorPattern(function() init.kaimingNormal(t, 0, 3) end, 'kaimingNormal%] mode must be')
end

function tests.fansOfConvWeights()
  local fi, fo = init.calculateFanInAndFanOut(torch.Tensor(5, 3, 2, 4))
  tester:asserteq(fi, 24); tester:asserteq(fo, 40)
  tester:assertErrorPattern(function() init.xavierUniform(torch.Tensor(3)) end, 'xavierUniform%] fan in and fan out need .* 1D')
  tester:assertErrorPattern(function() init.kaimingNormal(torch.Tensor(3)) end, 'kaimingNormal%] fan in')
end

-- as PyTorch ("Initializing zero-element tensors is a no-op"): before, kaiming met infinite bounds
-- (an error from uniform) and orthogonal divided 0 by 0
function tests.emptyTensorsAreNoOps()
  for _, f in ipairs({ 'kaimingUniform', 'kaimingNormal', 'xavierUniform', 'xavierNormal', 'orthogonal' }) do
    for _, size in ipairs({ { 3, 0 }, { 0, 3 }, { 0, 0 }, { 4, 0, 3 } }) do
      local t = torch.Tensor(torch.LongStorage(size))
      local ok, r = pcall(init[f], t)
      tester:assert(ok, f .. ' on an empty tensor: ' .. tostring(r))
      tester:assert(rawequal(r, t), f .. ' returns its tensor')
    end
  end
end

function tests.initErrorsNameTheFunction()
  for _, f in ipairs({ 'uniform', 'normal', 'zeros', 'ones', 'xavierUniform', 'xavierNormal', 'kaimingUniform',
                       'kaimingNormal', 'orthogonal', 'eye', 'dirac', 'truncNormal' }) do
    tester:assertErrorPattern(function() init[f]('x') end, 'nn.init.' .. f .. '%] expected a tensor', f)
  end
  tester:assertErrorPattern(function() init.constant(torch.Tensor(2), 'a') end, 'constant%] the value must be a number')
  tester:assertErrorPattern(function() init.orthogonal(torch.Tensor(3)) end, 'orthogonal%] only tensors with 2 or more dims')
end

-- orthogonal wrote through t:view(rows, cols), an error for a non-contiguous 3D tensor
function tests.orthogonalShapesAndLayouts()
  for _, s in ipairs({ { 3, 7 }, { 7, 3 }, { 4, 4 } }) do
    local q = init.orthogonal(torch.Tensor(s[1], s[2]), 1.5)
    local k = math.min(s[1], s[2])
    local g = s[1] < s[2] and q * q:t() or q:t() * q
    tester:assertlt((g - torch.eye(k) * 2.25):abs():max(), 1e-10, 'Q^T Q = gain^2 I')
  end
  local base = torch.zeros(2, 3, 4)
  local v = base:transpose(1, 3)  -- 4 x 3 x 2, not contiguous
  tester:assert(not v:isContiguous())
  local r = init.orthogonal(v, 2)
  tester:assert(rawequal(r, v))
  local M = v:contiguous():view(4, 6)
  tester:assertlt((M * M:t() - torch.eye(4) * 4):abs():max(), 1e-10, 'rows orthogonal through the view')
  tester:assertgt(base:abs():sum(), 0, 'written into the base tensor')
end

function tests.initInPlaceWithoutHistory()
  for _, f in ipairs({ 'uniform', 'normal', 'ones', 'zeros', 'xavierUniform', 'xavierNormal', 'kaimingUniform',
                       'kaimingNormal', 'orthogonal', 'truncNormal', 'eye' }) do
    local w = torch.randn(3, 4):requiresGrad()
    local r = init[f](w)
    tester:assert(rawequal(r, w), f .. ' returns its tensor')
    tester:assert(w:isLeaf(), f .. ' leaves a leaf')
    ;(w * 2):sum():backward()
    tester:assertlt((w.grad - 2):abs():max(), 1e-15, f .. ' gradient after init')
  end
end

function tests.xavierAndKaimingMoments()
  local t = torch.Tensor(300, 500)
  local n = t:nElement()
  init.xavierUniform(t, 2)
  local v = 4 * 2 / 800  -- gain^2 * 2 / (fan_in + fan_out)
  close(t:var(), v, 5 * v * math.sqrt(0.8 / n), 'xavierUniform variance')  -- Var(X^2) = 0.8 v^2 for a uniform
  tester:assertle(t:abs():max(), 2 * math.sqrt(6 / 800))
  init.xavierNormal(t)
  close(t:var(), 2 / 800, 5 * (2 / 800) * math.sqrt(2 / n), 'xavierNormal variance')
  close(t:mean(), 0, 5 * math.sqrt(2 / 800 / n), 'xavierNormal mean')
end

function tests.sparseAndDirac()
  local t = init.sparse(torch.Tensor(20, 9):t(), 0.3, 0.5)  -- non-contiguous 9 x 20: 3 zeros per column
  tester:assertTensorEq(t:eq(0):sum(1):double(), torch.Tensor(1, 20):fill(3), 0)
  local w = init.dirac(torch.Tensor(6, 2, 3, 3), 3)
  local c = nn.SpatialConvolution(6, 6, 3, 3, 1, 1, 1, 1, 3)
  c.weight:copy(w); c.bias:zero()
  local x = torch.randn(2, 6, 5, 5)
  tester:assertlt((c:forward(x) - x):abs():max(), 1e-14, 'grouped dirac convolution is the identity')
end

-- ---- nn.utils.clipGradNorm / clipGradValue ----------------------------------------------------

local function grads3()
  local a = torch.Tensor({ { 1, -2 }, { 3, 4 } }):requiresGrad()
  local b = torch.Tensor({ 5, -6 }):requiresGrad()
  local c = torch.Tensor({ 1 }):requiresGrad()  -- no gradient: skipped
  a.grad = torch.Tensor({ { 0.5, -1.5 }, { 2, 0.25 } })
  b.grad = torch.Tensor({ -3, 1 })
  return { a, b, c }
end

-- PyTorch 1.13's clip_grad_norm_(params, 1.0, normType) on the same gradients; with inf the
-- gradients lost their signs (g:abs() in place)
function tests.clipGradNormMatchesPyTorch()
  local expect = {
    { 2, 4.0697051490249265, 0.12285899317811841, -0.7371539590687104 },
    { 1, 8.25, 0.06060605325987234, -0.36363631955923403 },
    { math.huge, 3.0, 0.16666661111112963, -0.9999996666667778 },
    { 'inf', 3.0, 0.16666661111112963, -0.9999996666667778 },
    { 3, 3.4060913008575, 0.14679578702964763, -0.8807747221778858 },
  }
  for _, e in ipairs(expect) do
    local p = grads3()
    local n = nn.utils.clipGradNorm_(p, 1.0, e[1])
    close(n, e[2], 1e-12, 'total norm ' .. tostring(e[1]))
    close(p[1].grad[1][1], e[3], 1e-12, 'a.grad ' .. tostring(e[1]))
    close(p[2].grad[1], e[4], 1e-12, 'b.grad keeps its sign ' .. tostring(e[1]))
    close(p[1].grad[1][2], -1.5 * e[3] / 0.5, 1e-12, 'negative entry stays negative')
    tester:assert(p[3].grad == nil, 'no gradient created')
  end
  -- under maxNorm: unchanged, total still returned
  local p = grads3()
  close(nn.utils.clipGradNorm(p, 100, 'inf'), 3, 0)
  tester:assertTensorEq(p[2].grad, torch.Tensor({ -3, 1 }), 0)
end

function tests.clipGradNormInputs()
  local l = nn.Linear(2, 2)
  l.gradWeight:fill(1); l.gradBias:fill(2)
  close(nn.utils.clipGradNorm(l, 1), math.sqrt(12), 1e-12, 'a module')
  close(l.gradBias[1], 2 / (math.sqrt(12) + 1e-6), 1e-12)
  local a = torch.Tensor(3):requiresGrad(); a.grad = torch.Tensor({ 3, 4, 0 })
  close(nn.utils.clipGradNorm(a, 1), 5, 1e-12, 'a tensor')
  closeT(a.grad, { 3 / (5 + 1e-6), 4 / (5 + 1e-6), 0 }, 1e-12)
  tester:asserteq(nn.utils.clipGradNorm({}, 1), 0)
  local p = grads3()
  p[1].grad[1][1] = 0 / 0
  tester:assertErrorPattern(function() nn.utils.clipGradNorm(p, 1, 2, true) end, 'clipGradNorm%] the total norm .* nan')
  tester:assertErrorPattern(function() nn.utils.clipGradNorm('x', 1) end, 'clipGradNorm%] expected a module')
  tester:assertErrorPattern(function() nn.utils.clipGradNorm(grads3(), 1, -1) end, 'clipGradNorm%] normType')
  tester:assertErrorPattern(function() nn.utils.clipGradValue(grads3(), -1) end, 'clipGradValue%] clipValue')
end

function tests.clipGradValueMatchesPyTorch()
  local p = grads3()
  nn.utils.clipGradValue_(p, 1)
  -- PyTorch 1.13's clip_grad_value_(params, 1)
  closeT(p[1].grad, { 0.5, -1, 1, 0.25 }, 0)
  closeT(p[2].grad, { -1, 1 }, 0)
end

-- ---- nn.utils.prune ---------------------------------------------------------------------------

local W = torch.Tensor({ { 0.3, -1.2, 0.05, 2.0 }, { -0.7, 0.9, -0.15, 0.4 }, { 1.1, -0.02, 0.6, -1.7 } })
local function lin() local l = nn.Linear(4, 3); l.weight:copy(W); return l end
local P = nn.utils.prune
local function mask(m, rows) tester:assertTensorEq(m.weight_mask, torch.Tensor(rows), 0) end

-- PyTorch 1.13's masks for the same sequences (torch.nn.utils.prune, dims 0-based there)
function tests.pruneMasksMatchPyTorch()
  local l = lin()
  P.l1Unstructured(l, 'weight', 0.3); mask(l, { { 0, 1, 0, 1 }, { 1, 1, 0, 1 }, { 1, 0, 1, 1 } })
  P.l1Unstructured(l, 'weight', 3); mask(l, { { 0, 1, 0, 1 }, { 0, 1, 0, 0 }, { 1, 0, 0, 1 } })
  P.l1Unstructured(l, 'weight', 0.5); mask(l, { { 0, 1, 0, 1 }, { 0, 0, 0, 0 }, { 0, 0, 0, 1 } })
  -- Note [Default importance scores]: the column norms after a row pruning are those of orig * mask
  l = lin()
  P.lnStructured(l, 'weight', 1, 2, 1); mask(l, { { 1, 1, 1, 1 }, { 0, 0, 0, 0 }, { 1, 1, 1, 1 } })
  P.lnStructured(l, 'weight', 0.5, 1, 2); mask(l, { { 1, 0, 0, 1 }, { 0, 0, 0, 0 }, { 1, 0, 0, 1 } })
  P.l1Unstructured(l, 'weight', 2); mask(l, { { 0, 0, 0, 1 }, { 0, 0, 0, 0 }, { 0, 0, 0, 1 } })
  P.lnStructured(l, 'weight', 1, math.huge, 1); mask(l, { { 0, 0, 0, 1 }, { 0, 0, 0, 0 }, { 0, 0, 0, 0 } })
  l = lin()
  P.lnStructured(l, 'weight', 2, -math.huge, -1); mask(l, { { 1, 0, 0, 1 }, { 1, 0, 0, 1 }, { 1, 0, 0, 1 } })
  l = lin()
  P.l1Unstructured(l, 'weight', 2); P.lnStructured(l, 'weight', 0.34, 1, 1)
  mask(l, { { 1, 1, 0, 1 }, { 0, 0, 0, 0 }, { 1, 0, 1, 1 } })
  local a, b = lin(), nn.Linear(2, 2)
  b.weight:copy(torch.Tensor({ { 0.01, 5.0 }, { -0.5, 0.08 } }))
  P.l1Unstructured(a, 'weight', 1)
  P.globalUnstructured({ { a, 'weight' }, { b, 'weight' } }, P.L1Unstructured, 0.25)
  mask(a, { { 1, 1, 0, 1 }, { 1, 1, 0, 1 }, { 1, 0, 1, 1 } }); mask(b, { { 0, 1 }, { 1, 0 } })
  P.globalUnstructured({ { a, 'weight' }, { b, 'weight' } }, P.L1Unstructured, 3)
  mask(a, { { 0, 1, 0, 1 }, { 1, 1, 0, 0 }, { 1, 0, 1, 1 } }); mask(b, { { 0, 1 }, { 0, 0 } })
  -- the pruned weight and remove
  tester:assertTensorEq(a.weight, torch.cmul(a.weight_orig, a.weight_mask), 0)
  P.remove(a, 'weight')
  tester:assertTensorEq(a.weight, torch.cmul(W, torch.Tensor({ { 0, 1, 0, 1 }, { 1, 1, 0, 0 }, { 1, 0, 1, 1 } })), 0)
  tester:assert(a.weight_orig == nil and a.weight_mask == nil and not P.isPruned(a))
  tester:assert(P.isPruned(nn.Sequential():add(b)))
end

-- flat:abs() took the signs off weight_orig (and off the caller's importanceScores): for dim 1 of a
-- contiguous double tensor the "flattened" matrix was the tensor itself
function tests.lnStructuredInfKeepsTensors()
  for _, n in ipairs({ math.huge, -math.huge }) do
    local l = lin()
    P.lnStructured(l, 'weight', 1, n, 1)
    tester:assertTensorEq(l.weight_orig, W, 0, 'weight_orig unchanged')
    local imp = torch.randn(3, 4)
    local imp0 = imp:clone()
    P.lnStructured(lin(), 'weight', 1, n, 1, { importanceScores = imp })
    tester:assertTensorEq(imp, imp0, 0, 'importanceScores unchanged')
  end
end

-- PyTorch's fourth argument is importance_scores: a tensor there was silently ignored
function tests.importanceScoresPositional()
  local scores = W:index(2, torch.LongTensor({ 4, 3, 2, 1 }))
  local l = lin()
  P.l1Unstructured(l, 'weight', 0.5, scores)
  mask(l, { { 1, 0, 1, 0 }, { 0, 0, 1, 1 }, { 1, 0, 0, 1 } })  -- PyTorch 1.13, importance_scores=W.flip(1)
  l = lin()
  P.lnStructured(l, 'weight', 1, 1, 1, -W:index(1, torch.LongTensor({ 3, 2, 1 })))
  mask(l, { { 1, 1, 1, 1 }, { 0, 0, 0, 0 }, { 1, 1, 1, 1 } })
  tester:assertErrorPattern(function() P.l1Unstructured(lin(), 'weight', 0.5, 'x') end, 'l1Unstructured%] expected an options table')
  tester:assertErrorPattern(function() P.globalUnstructured({ { lin(), 'weight' } }, P.L1Unstructured, 1, W) end,
    'globalUnstructured%] expected an options table')
end

function tests.randomPruningCounts()
  local l = nn.Linear(10, 10)
  P.randomUnstructured(l, 'weight', 0.25)
  tester:asserteq(l.weight_mask:eq(0):sum(), 25)
  P.randomUnstructured(l, 'weight', 15)  -- among the 75 left
  tester:asserteq(l.weight_mask:eq(0):sum(), 40)
  P.randomStructured(l, 'weight', 3, 1)
  local rows = l.weight_mask:sum(2):view(-1)
  tester:assertge(rows:eq(0):sum(), 3)
  tester:assertErrorPattern(function() P.randomUnstructured(nn.Linear(2, 2), 'weight', 5) end, 'amount=5 should be smaller')
end

-- ---- nn.utils.parametrize ---------------------------------------------------------------------

local Flat = torch.class('nn.TestRegFlat', 'nn.Module')
function Flat:__init(r, c, keep) nn.Module.__init(self); self.r, self.c, self.keep = r, c, keep end
function Flat:updateOutput(x)
  self.output = self.keep and x * 2 or x:view(self.r, self.c) * 2
  return self.output
end
function Flat:rightInverse(w) return w:reshape(-1) / 2 end

-- the check compared with orig after orig had taken rightInverse's shape: a valid parametrization
-- with a flat original was refused (leaving the module broken), an invalid one accepted
function tests.rightInverseChangingTheShape()
  local PZ = nn.utils.parametrize
  local l = nn.Linear(3, 2)
  local W0, x = l.weight:clone(), torch.randn(4, 3)
  local ref = l:forward(x):clone()
  PZ.registerParametrization(l, 'weight', nn.TestRegFlat(2, 3))
  tester:asserteq(l.parametrizations.weight.original:nElement(), 6)
  tester:asserteq(l.parametrizations.weight.original:dim(), 1)
  tester:assertlt((l:forward(x) - ref):abs():max(), 1e-14, 'same function')
  local go = torch.randn(4, 2)
  l:zeroGradParameters(); l:backward(x, go)
  local r2 = nn.Linear(3, 2); r2.weight:copy(W0); r2:zeroGradParameters(); r2:forward(x); r2:backward(x, go)
  tester:assertlt((l.parametrizations.weight.gradOriginal - r2.gradWeight:view(-1) * 2):abs():max(), 1e-13)
  PZ.removeParametrizations(l, 'weight')
  tester:assertTensorEq(l.weight, W0, 1e-15)
  -- a forward that keeps the flat shape is refused, and the module is left as it was
  local m = nn.Linear(3, 2)
  local M0 = m.weight:clone()
  tester:assertErrorPattern(function() PZ.registerParametrization(m, 'weight', nn.TestRegFlat(2, 3, true)) end,
    'registerParametrization%] the parametrization changes the size')
  tester:assertTensorEq(m.weight, M0, 0, 'weight untouched')
  tester:assert(not PZ.isParametrized(m) and m.parametrizations == nil)
  tester:asserteq(m:forward(x):size(2), 2)
  -- a rightInverse changing the type: an error naming the function (was set's), module unchanged
  local Ty = torch.class('nn.TestRegType', 'nn.Module')
  function Ty:updateOutput(x) self.output = x:double() return self.output end
  function Ty:rightInverse(w) return w:float() end
  tester:assertErrorPattern(function() PZ.registerParametrization(m, 'weight', nn.TestRegType()) end,
    'registerParametrization%] rightInverse returned a torch.FloatTensor')
  tester:assertTensorEq(m.weight, M0, 0, 'weight untouched')
  tester:assert(not PZ.isParametrized(m))
  tester:assertErrorPattern(function() PZ.registerParametrization(nn.Linear(2, 2), 'weight', function(w) return w end, true) end,
    'registerParametrization%] expected an options table')
end

function tests.removeParametrizationsPositional()
  local PZ = nn.utils.parametrize
  for _, leave in ipairs({ false, true }) do
    local l = nn.Linear(3, 2)
    local W0 = l.weight:clone()
    PZ.registerParametrization(l, 'weight', function(w) return w * 3 end)
    PZ.removeParametrizations(l, 'weight', leave)
    tester:assertTensorEq(l.weight, leave and W0 * 3 or W0, 1e-15, 'leaveParametrized ' .. tostring(leave))
    tester:assert(not PZ.isParametrized(l))
  end
  local l = PZ.registerParametrization(nn.Linear(3, 2), 'weight', function(w) return w end)
  tester:assertErrorPattern(function() PZ.removeParametrizations(l, 'weight', 'no') end, 'removeParametrizations%] expected')
  -- cached: one computation for two forwards
  local count = 0
  local m = PZ.registerParametrization(nn.Linear(3, 2), 'weight', function(w) count = count + 1 return w * 1 end)
  count = 0
  PZ.cached(function() m:forward(torch.randn(1, 3)); m:forward(torch.randn(1, 3)) end)
  tester:asserteq(count, 1)
end

-- ---- weight norm, spectral norm, fusion -------------------------------------------------------

function tests.weightNormMatchesPyTorch()
  local l = nn.Linear(3, 2)
  l.weight:copy(torch.Tensor({ { 0.5, -1.0, 2.0 }, { 1.5, 0.25, -0.75 } })); l.bias:copy(torch.Tensor({ 0.1, -0.2 }))
  local m = nn.utils.weightNorm(l)
  m.g:cmul(torch.Tensor({ 2.0, 0.5 }))
  local x = torch.Tensor({ { 1.0, 2.0, -1.0 }, { 0.5, -0.5, 3.0 } })
  m:zeroGradParameters()
  local y = m:forward(x)
  m:backward(x, torch.Tensor({ { 1.0, -2.0 }, { 0.5, 3.0 } }))
  -- PyTorch 1.13: weight_norm(Linear), weight_g scaled by (2, 0.5), (y * go).sum().backward()
  closeT(y, { -6.9, 1.175, 13.6, -1.0125 }, 1e-12, 'output')
  closeT(m.gradG, { -0.0545544725589981, -6.118841180428231 }, 1e-12, 'weight_g.grad')
  closeT(m.gradV, { 2.5238095238095237, 3.4523809523809526, 1.0952380952380953, 2.4565217391304346,
                    -2.2989130434782608, 4.146739130434782 }, 1e-12, 'weight_v.grad')
  local r = nn.utils.removeWeightNorm(m)
  closeT(r.weight, { 1, -2, 4, 0.75, 0.125, -0.375 }, 1e-12, 'removed')
end

-- Note [One reparametrization per weight]: the inner one rewrote the weight after the outer one
function tests.oneReparametrizationPerWeight()
  tester:assertErrorPattern(function() nn.utils.weightNorm(nn.utils.weightNorm(nn.Linear(3, 2))) end,
    'weightNorm%] the weight of nn.WeightNorm is already reparametrized')
  tester:assertErrorPattern(function() nn.utils.weightNorm(nn.utils.spectralNorm(nn.Linear(3, 2))) end,
    'weightNorm%] the weight of nn.SpectralNorm is already')
  local l = nn.Linear(3, 2)
  P.l1Unstructured(l, 'weight', 2)
  tester:assertErrorPattern(function() nn.utils.spectralNorm(l) end, 'spectralNorm%] the weight of nn.Linear is already')
  tester:assertErrorPattern(function() nn.utils.weightNorm(l) end, 'weightNorm%] the weight of nn.Linear is already')
  tester:assertErrorPattern(function() nn.utils.spectralNorm(nn.utils.weightNorm(nn.Linear(3, 2))) end, 'spectralNorm%]')
end

-- nn.ConvTranspose2d (typename its own, a subclass of nn.SpatialFullConvolution) was normalized
-- along its input channels: PyTorch's default dim for ConvTranspose is 1 (the output channels)
function tests.spectralNormOfConvTranspose()
  local c = nn.ConvTranspose2d(2, 3, 3)
  local W0 = c.weight:clone()  -- 2 x 3 x 3 x 3
  local s = nn.utils.spectralNorm(c, { nPowerIterations = 50 })
  tester:asserteq(s.dim, 2); tester:asserteq(s.weight_u:size(1), 3)
  s:forward(torch.randn(1, 2, 4, 4))
  local _, S = torch.svd(W0:transpose(1, 2):contiguous():view(3, -1))
  close(s._sigma[1], S[1], 1e-8, 'sigma is the largest singular value')
  local m = nn.utils.parametrizations.spectralNorm(nn.ConvTranspose1d(2, 3, 3))
  tester:asserteq(m.parametrizations.weight.modules[1]._u:size(1), 3)
end

function tests.fuseConvBnMatchesPyTorch()
  local Wc = torch.range(0, 23):view(2, 3, 2, 2) / 10 - 1
  local rm, rv = torch.Tensor({ 0.1, -0.2 }), torch.Tensor({ 2.0, 0.5 })
  local bw, bb = torch.Tensor({ 1.5, -0.7 }), torch.Tensor({ 0.3, 0.4 })
  local w, b = nn.utils.fuseConvBnWeights(Wc, torch.Tensor({ 0.5, -0.25 }), rm, rv, 1e-3, bw, bb)
  -- PyTorch 1.13's torch.nn.utils.fusion.fuse_conv_bn_weights
  closeT(b, { 0.7241580424529415, 0.4494480513310598 }, 1e-14, 'bias')
  close(w[1][1][1][1], -1.0603951061323535, 1e-14); close(w[2][3][2][2], -1.2856493346075537, 1e-14)
  local wt, bt = nn.utils.fuseConvBnWeights(torch.range(0, 23):view(3, 2, 2, 2) / 10 - 1, nil, rm, rv, 1e-3, bw, bb, true)
  closeT(bt, { 0.19396048938676463, 0.20220779467576094 }, 1e-14, 'transposed bias')
  close(wt[1][2][1][1], 0.5933766159727172, 1e-14); close(wt[3][1][2][2], 0.9543555955191181, 1e-14)
  -- module fusion equals bn(conv(x)) in evaluation mode, for plain, bias-free and transposed ones
  for _, mk in ipairs({ function() return nn.SpatialConvolution(3, 4, 3, 3) end,
                        function() return nn.SpatialConvolution(3, 4, 3, 3):noBias() end,
                        function() return nn.ConvTranspose2d(3, 4, 3) end }) do
    local c, bn = mk(), nn.SpatialBatchNormalization(4)
    bn.running_mean:uniform(-1, 1); bn.running_var:uniform(0.5, 2); bn.weight:uniform(-1, 1); bn.bias:uniform(-1, 1)
    c:evaluate(); bn:evaluate()
    local x = torch.randn(2, 3, 6, 6)
    local f = nn.utils.fuseConvBnEval(c, bn)
    tester:assertlt((f:forward(x) - bn:forward(c:forward(x))):abs():max(), 1e-12, torch.typename(c))
  end
end

function tests.parametersToVectorRoundTrip()
  local l = nn.Linear(3, 2)
  local v = nn.utils.parametersToVector(l)
  tester:asserteq(v:nElement(), 8)
  local w = torch.range(1, 8)
  nn.utils.vectorToParameters(w, l)
  tester:assertTensorEq(l.weight, torch.range(1, 6):view(2, 3), 0)
  tester:assertTensorEq(l.bias, torch.Tensor({ 7, 8 }), 0)
  local nc = torch.zeros(3, 2):t()  -- a non-contiguous parameter
  nn.utils.vectorToParameters(torch.range(1, 6), { nc })
  tester:assertTensorEq(nc, torch.range(1, 6):view(2, 3), 0)
  tester:assertErrorPattern(function() nn.utils.vectorToParameters(torch.zeros(7), l) end, 'vectorToParameters%] vec has 7')
end

tester:add(tests):run()
