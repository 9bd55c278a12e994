-- nn.utils.prune (lua/nn/prune.lua, prune_methods.lua, parametrize_core.lua): masks against PyTorch
-- 1.13's on fixed weights (constants below), masks accumulating over repeated pruning, gradients
-- reaching weight_orig at unpruned entries only (Torch7 backward and autograd), training, state
-- dicts, save/load, remove, and errors.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
torch.setdefaulttensortype('torch.DoubleTensor')
torch.manualSeed(11)
local T = torch.Tensor
local prune = nn.utils.prune

local W = T({ { 0.1, -0.5, 0.3, 0.9 }, { -0.2, 0.05, 0.7, -0.6 }, { 0.4, -0.8, 0.15, 0.25 } })
local function linear()
  local lin = nn.Linear(4, 3)
  lin.weight:copy(W)
  return lin
end
local function keys(t)
  local r = {}
  for k in pairs(t) do r[#r + 1] = k end
  table.sort(r)
  return r
end

function tests.l1UnstructuredMatchesPyTorch()
  local lin = linear()
  local orig = lin.weight
  prune.l1Unstructured(lin, 'weight', 0.3)
  -- PyTorch 1.13: prune.l1_unstructured(lin, 'weight', 0.3), then 2, then 0.5 (of the remaining)
  tester:assertTensorEq(lin.weight_mask, T({ { 0, 1, 1, 1 }, { 0, 0, 1, 1 }, { 1, 1, 0, 1 } }), 0)
  tester:assert(rawequal(lin.weight_orig, orig), 'weight_orig is the original tensor')
  tester:assertTensorEq(lin.weight, torch.cmul(W, lin.weight_mask), 0)
  prune.l1Unstructured(lin, 'weight', 2)
  tester:assertTensorEq(lin.weight_mask, T({ { 0, 1, 0, 1 }, { 0, 0, 1, 1 }, { 1, 1, 0, 0 } }), 0)
  prune.l1Unstructured(lin, 'weight', 0.5)
  tester:assertTensorEq(lin.weight_mask, T({ { 0, 0, 0, 1 }, { 0, 0, 1, 0 }, { 0, 1, 0, 0 } }), 0)
  tester:assertTensorEq(lin.weight_orig, W, 0)
  -- PyTorch 1.13's state_dict keys
  tester:assertTableEq(keys(lin:stateDict()), { 'bias', 'weight_mask', 'weight_orig' })
  tester:assert(prune.isPruned(nn.Sequential():add(nn.Tanh()):add(lin)))
  tester:assert(not prune.isPruned(nn.Sequential():add(nn.Linear(2, 2))))
  -- importance scores rank other values
  local l2 = linear()
  prune.l1Unstructured(l2, 'weight', 1, { importanceScores = torch.range(1, 12):view(3, 4) })
  tester:asserteq(l2.weight_mask[1][1], 0)
  tester:asserteq(l2.weight_mask:sum(), 11)
end

-- PyTorch's conv weight: sin(1.3 * arange(32)) * (out channel + 1), 4 x 2 x 2 x 2
local function conv()
  local c = nn.SpatialConvolution(2, 4, 2, 2)
  local w = torch.range(0, 31):view(4, 2, 2, 2):mul(1.3):sin()
  for o = 1, 4 do w[o]:mul(o) end
  c.weight:copy(w)
  return c
end

function tests.lnStructuredMatchesPyTorch()
  local c = conv()
  prune.lnStructured(c, 'weight', 0.5, 2, 1)
  -- PyTorch 1.13: ln_structured(conv, amount=0.5, n=2, dim=0) keeps output channels 3 and 4
  for o = 1, 4 do tester:assertTensorEq(c.weight_mask[o], torch.Tensor(2, 2, 2):fill(o > 2 and 1 or 0), 0) end
  -- then amount=1, n=1, dim=1 (PyTorch) on the remaining input channels: input channel 1 goes
  prune.lnStructured(c, 'weight', 1, 1, 2)
  local expect = T({ { 0, 0 }, { 0, 0 }, { 0, 1 }, { 0, 1 } })
  tester:assertTensorEq(c.weight_mask:select(4, 1):select(3, 1), expect, 0)
  -- n = inf on the last dim, amount 2 of 2: everything
  local c2 = conv()
  prune.lnStructured(c2, 'weight', 2, math.huge, -1)
  tester:asserteq(c2.weight_mask:sum(), 0)
  -- the conv computes with the masked weight
  local x = torch.randn(2, 2, 5, 5)
  local ref = nn.SpatialConvolution(2, 4, 2, 2)
  ref.weight:copy(torch.cmul(c.weight_orig, c.weight_mask))
  ref.bias:copy(c.bias)
  tester:assertTensorEq(c:forward(x), ref:forward(x), 1e-12)
end

function tests.globalUnstructuredMatchesPyTorch()
  local a, b = linear(), nn.Linear(3, 2)
  b.weight:copy(T({ { 0.33, -0.01, 0.6 }, { 0.12, -0.45, 0.07 } }))
  prune.globalUnstructured({ { a, 'weight' }, { b, 'weight' } }, prune.L1Unstructured, 7)
  -- PyTorch 1.13's masks
  tester:assertTensorEq(a.weight_mask, T({ { 0, 1, 1, 1 }, { 0, 0, 1, 1 }, { 1, 1, 0, 1 } }), 0)
  tester:assertTensorEq(b.weight_mask, T({ { 1, 0, 1 }, { 0, 1, 0 } }), 0)
  -- again: ranked on the pruned values, among the unpruned entries
  prune.globalUnstructured({ { a, 'weight' }, { b, 'weight' } }, prune.l1Unstructured, { fraction = 0.5 })
  tester:asserteq(a.weight_mask:sum() + b.weight_mask:sum(), 5)
  tester:assertErrorPattern(function() prune.globalUnstructured({ { a, 'weight' } }, 'lnStructured', 1) end, 'unstructured method')
end

function tests.randomAndCustomMasks()
  local lin = nn.Linear(20, 10)
  prune.randomUnstructured(lin, 'weight', 0.25)
  tester:asserteq(lin.weight_mask:eq(0):sum(), 50)
  prune.randomUnstructured(lin, 'weight', 0.2)  -- 20% of the 150 left
  tester:asserteq(lin.weight_mask:eq(0):sum(), 80)
  local s = nn.Linear(6, 8)
  prune.randomStructured(s, 'weight', 3, 1)
  local rows = s.weight_mask:sum(2):view(-1)
  tester:asserteq(rows:eq(0):sum(), 3)
  tester:asserteq(rows:eq(6):sum(), 5)
  prune.randomStructured(s, 'weight', { fraction = 0.4 }, 1)  -- round(0.4 * 5) = 2 more rows
  tester:asserteq(s.weight_mask:sum(2):eq(0):sum(), 5)
  local c = nn.Linear(2, 2)
  local w = c.weight:clone()
  prune.identity(c, 'weight')
  tester:assertTensorEq(c.weight, w, 0)
  prune.customFromMask(c, 'weight', T({ { 1, 0 }, { 1, 1 } }))
  prune.customFromMask(c, 'weight', T({ { 1, 1 }, { 0, 1 } }))
  tester:assertTensorEq(c.weight_mask, T({ { 1, 0 }, { 0, 1 } }), 0)
  prune.l1Unstructured(c, 'bias', 1)
  tester:asserteq(c.bias_mask:sum(), 1)
  tester:assertTableEq(keys(c:stateDict()), { 'bias_mask', 'bias_orig', 'weight_mask', 'weight_orig' })
end

-- The dense gradient of the loss sum(out * G) w.r.t. the effective weight, from an unpruned copy.
local function dense_grad(lin, x, G)
  local ref = nn.Linear(lin.weight:size(2), lin.weight:size(1))
  ref.weight:copy(lin.weight)
  ref.bias:copy(lin.bias)
  ref:zeroGradParameters()
  ref:forward(x)
  ref:backward(x, G)
  return ref.gradWeight:clone(), ref.gradBias:clone()
end

function tests.gradientsReachUnprunedEntriesOnly()
  local lin = linear()
  prune.l1Unstructured(lin, 'weight', 5)
  local x, G = torch.randn(6, 4), torch.randn(6, 3)
  local gw, gb = dense_grad(lin, x, G)
  -- Torch7 style
  lin:zeroGradParameters()
  lin:forward(x)
  lin:backward(x, G)
  tester:assertTensorEq(lin.gradWeight_orig, torch.cmul(gw, lin.weight_mask), 1e-12)
  tester:assert(rawequal(lin.gradWeight, lin.gradWeight_orig))
  tester:assertTensorEq(lin.gradBias, gb, 1e-12)
  -- autograd
  lin:zeroGradParameters()
  local y = lin:forward(x)
  torch.cmul(y, G):sum():backward()
  tester:assertTensorEq(lin.weight_orig.grad, torch.cmul(gw, lin.weight_mask), 1e-12)
  -- parameters() and getParameters() hold weight_orig, not the computed weight
  local params = lin:parameters()
  tester:asserteq(#params, 2)
  tester:assert(rawequal(params[1], lin.weight_orig))
  tester:assert(not lin.weight:needsGrad())
  -- finite differences of the loss w.r.t. weight_orig
  local function loss() local s = torch.cmul(lin:forward(x), G):sum() return torch.isTensor(s) and s:item() or s end
  local eps = 1e-6
  for _, ij in ipairs({ { 1, 1 }, { 1, 4 }, { 2, 3 }, { 3, 2 } }) do
    local i, j = ij[1], ij[2]
    local o = lin.weight_orig[i][j]
    lin.weight_orig[i][j] = o + eps
    local lp = loss()
    lin.weight_orig[i][j] = o - eps
    local lm = loss()
    lin.weight_orig[i][j] = o
    tester:assertalmosteq((lp - lm) / (2 * eps), lin.weight_orig.grad[i][j], 1e-6)
  end
end

function tests.trainingKeepsPrunedEntriesZero()
  local model = nn.Sequential():add(nn.Linear(5, 8)):add(nn.Tanh()):add(nn.Linear(8, 2))
  prune.l1Unstructured(model.modules[1], 'weight', 0.5)
  prune.lnStructured(model.modules[3], 'weight', 1, 2, 2)
  local mask1, mask3 = model.modules[1].weight_mask:clone(), model.modules[3].weight_mask:clone()
  local crit = nn.MSECriterion()
  local x, y = torch.randn(16, 5), torch.randn(16, 2)
  local params, grads = model:getParameters()
  tester:asserteq(params:nElement(), 5 * 8 + 8 + 8 * 2 + 2)
  local first, last
  for it = 1, 30 do
    grads:zero()
    local out = model:forward(x)
    local l = crit:forward(out, y)
    model:backward(x, crit:backward(out, y))
    params:add(-0.1, grads)
    first, last = first or l, l
  end
  tester:assertlt(last, first)
  model:forward(x)
  tester:asserteq(model.modules[1].weight:maskedSelect(mask1:eq(0)):abs():sum(), 0)
  tester:asserteq(model.modules[3].weight:maskedSelect(mask3:eq(0)):abs():sum(), 0)
  tester:assertTensorEq(model.modules[1].weight_mask, mask1, 0)
end

function tests.accUpdateGradParametersStepsTheOriginal()
  local lin = linear()
  prune.l1Unstructured(lin, 'weight', 5)
  local ref = lin:clone()
  local x, G = torch.randn(2, 4), torch.randn(2, 3)
  lin:zeroGradParameters()
  lin:forward(x)
  lin:accUpdateGradParameters(x, G, 0.1)
  ref:zeroGradParameters()
  ref:forward(x)
  ref:backward(x, G)
  ref:updateParameters(0.1)
  tester:assertTensorEq(lin.weight_orig, ref.weight_orig, 1e-12)
  tester:assertTensorEq(lin.bias, ref.bias, 1e-12)
  tester:asserteq(lin.gradWeight_orig:abs():max(), 0)
end

function tests.removeSaveLoadAndClone()
  local lin = linear()
  prune.l1Unstructured(lin, 'weight', 4)
  local x = torch.randn(3, 4)
  local y = lin:forward(x):clone()
  -- save / load: still pruned, same output, trains weight_orig
  local f = os.tmpname()
  torch.save(f, lin)
  local back = torch.load(f)
  os.remove(f)
  tester:asserteq(torch.typename(back), 'nn.Linear')
  tester:assert(prune.isPruned(back))
  tester:assertTensorEq(back:forward(x), y, 1e-12)
  tester:assert(rawequal(back:parameters()[1], back.weight_orig))
  -- state dicts move between pruned modules
  local other = nn.Linear(4, 3)
  prune.identity(other, 'weight')
  other:loadStateDict(lin:stateDict())
  tester:assertTensorEq(other:forward(x), y, 1e-12)
  local copy = lin:clone()
  copy.weight_orig:add(1)
  tester:assertTensorEq(lin:forward(x), y, 1e-12)
  tester:assert(prune.isPruned(copy))
  -- remove: the original tensor keeps the pruned values and becomes the weight again
  local orig = lin.weight_orig
  prune.remove(lin, 'weight')
  tester:assert(rawequal(lin.weight, orig))
  tester:asserteq(lin.weight_orig, nil)
  tester:asserteq(lin.weight_mask, nil)
  tester:assert(not prune.isPruned(lin))
  tester:assertTensorEq(lin:forward(x), y, 1e-12)
  tester:assertTableEq(keys(lin:stateDict()), { 'bias', 'weight' })
  tester:assert(getmetatable(lin) == torch.getmetatable('nn.Linear'))
  tester:assertErrorPattern(function() prune.remove(lin, 'weight') end, "has to be pruned before")
end

-- A module differentiated through its ops (no updateGradInput), with a registered parameter.
local Scale = torch.class('nn.TestPruneScale', 'nn.Module')
function Scale:__init(n)
  nn.Module.__init(self)
  self:registerParameter('W', torch.randn(n, n))
end
function Scale:updateOutput(x)
  self.output = torch.matmul(x, self.W)
  return self.output
end

function tests.autogradModulesAndTypes()
  local m = nn.TestPruneScale(3)
  prune.l1Unstructured(m, 'W', 4)
  tester:asserteq(m.W_mask:sum(), 5)
  tester:assertTableEq(keys(m:stateDict()), { 'W_mask', 'W_orig' })
  local x, G = torch.randn(2, 3), torch.randn(2, 3)
  local dense = x:t() * G
  m:zeroGradParameters()
  torch.cmul(m:forward(x), G):sum():backward()
  tester:assertTensorEq(m.W_orig.grad, torch.cmul(dense, m.W_mask), 1e-12)
  m:zeroGradParameters()
  m:forward(x)
  m:backward(x, G)
  tester:assertTensorEq(m.W_orig.grad, torch.cmul(dense, m.W_mask), 1e-12)
  -- type conversion keeps the pruning and the gradient aliasing
  local lin = linear()
  prune.l1Unstructured(lin, 'weight', 3)
  lin:float()
  tester:asserteq(torch.type(lin.weight_mask), 'torch.FloatTensor')
  local xf = torch.randn(2, 4):float()
  lin:zeroGradParameters()
  lin:forward(xf)
  lin:backward(xf, torch.ones(2, 3):float())
  tester:asserteq(torch.pointer(lin.weight_orig.grad), torch.pointer(lin.gradWeight_orig))
  tester:asserteq(lin.gradWeight_orig:maskedSelect(lin.weight_mask:eq(0)):abs():sum(), 0)
  tester:assertTensorEq(lin.gradWeight_orig:double(), torch.cmul(torch.ones(3, 2) * xf:double(), lin.weight_mask:double()), 1e-5)
end

function tests.errors()
  local lin = nn.Linear(4, 3)
  tester:assertErrorPattern(function() prune.l1Unstructured(lin, 'weight', 13) end, 'amount=13 should be smaller than the number of parameters to prune=12')
  tester:assertErrorPattern(function() prune.l1Unstructured(lin, 'weight', { fraction = 1.5 }) end, 'in %[0, 1%]')
  tester:assertErrorPattern(function() prune.l1Unstructured(lin, 'weight', -1) end, 'non%-negative integer')
  tester:assertErrorPattern(function() prune.l1Unstructured(lin, 'nope', 1) end, 'has no tensor nope')
  tester:assertErrorPattern(function() prune.lnStructured(lin, 'weight', 1, 2, 3) end, 'dim must be between 1 and 2')
  tester:assertErrorPattern(function() prune.lnStructured(lin, 'bias', 1, 2, 1) end, 'multidimensional')
  tester:assertErrorPattern(function() prune.customFromMask(lin, 'weight', torch.ones(2, 2)) end, 'the mask has size 2x2')
  tester:assertErrorPattern(function() prune.l1Unstructured(42, 'weight', 1) end, 'expected a module')
end

function tests.cudaMatchesCpu()
  if not torch.cuda.isAvailable() then return end
  local lin = linear()
  prune.l1Unstructured(lin, 'weight', 5)
  local x, G = torch.randn(6, 4), torch.randn(6, 3)
  lin:zeroGradParameters()
  local y = lin:forward(x):clone()
  lin:backward(x, G)
  local g = lin.gradWeight_orig:clone()
  local c = lin:clone():cuda()
  c:zeroGradParameters()
  -- c is float32 (module:cuda()); x:cuda() would keep x's f64
  local xc, Gc = x:type('torch.CudaTensor'), G:type('torch.CudaTensor')
  tester:assertTensorEq(c:forward(xc):double(), y, 1e-4)
  c:backward(xc, Gc)
  tester:assertTensorEq(c.gradWeight_orig:double(), g, 1e-4)
end

tester:add(tests):run()
