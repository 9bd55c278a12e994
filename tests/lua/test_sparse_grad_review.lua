-- Review of the sparse embedding gradients (Note [Sparse embedding gradients] in
-- lua/nn/LookupTable.lua): weights tied between modules (two sparse embeddings, or a sparse
-- embedding and a dense decoder as in a tied language model), sharing through clone/share and
-- keeping it through :type(), sparse and dense contributions to one weight (summed into a dense
-- .grad, as PyTorch 1.13 does), a tied weight stepped once by optim.SGD(model),
-- Module:updateParameters on a sparse gradient, SGD momentum rows after a dense step, the coarse
-- node's link test for SparseTensors, empty batches, optim.sparseAdam's betas; the GPU case when
-- one is present.
require 'nn'
require 'optim'
torch.setdefaulttensortype('torch.DoubleTensor')
local tester = torch.Tester()
local tests = torch.TestSuite()

local function dense(g) return torch.isSparse(g) and g:toDense() or g end
local function close(a, b, tol, msg)
  local err = (dense(a):detach():double() - dense(b):detach():double()):abs():max()
  tester:assert(err <= tol, string.format('%s: max error %g > %g', msg or 'values', err, tol))
end

-- m:clone('weight', 'gradWeight') / m:share(other, 'weight', 'gradWeight') of a sparse module
-- raised "attempt to call method 'set' (a nil value)"; the clone now appends to the same
-- sparse gradient.
function tests.cloneSharingGradWeight()
  local a = nn.LookupTable(6, 2, { sparse = true })
  local b = a:clone('weight', 'gradWeight')
  tester:assert(rawequal(a.gradWeight, b.gradWeight), 'one sparse gradient')
  local x = torch.LongTensor({ 1, 2 })
  a:forward(x) a:backward(x, torch.ones(2, 2))
  b:forward(x) b:backward(x, torch.mul(torch.ones(2, 2), 2))
  tester:asserteq(dense(a.weight.grad):sum(), 12, 'both backward calls reach a.weight.grad')
  tester:asserteq(dense(b.weight.grad):sum(), 12, 'and b.weight.grad')
  local c = nn.LookupTable(6, 2, { sparse = true })
  c:share(a, 'weight', 'gradWeight')
  tester:assert(rawequal(c.gradWeight, a.gradWeight), 'share')
  local d = nn.LookupTable(6, 2)
  tester:assertErrorPattern(function() d:share(a, 'weight', 'gradWeight') end, 'share: gradWeight is sparse in one module and dense')
  -- EmbeddingBag too
  local e = nn.EmbeddingBag(6, 2, { mode = 'sum', sparse = true })
  local f = e:clone('weight', 'gradWeight')
  tester:assert(rawequal(e.gradWeight, f.gradWeight), 'EmbeddingBag clone shares its sparse gradient')
end

-- Two sparse modules holding one weight and one sparse gradient stay tied through :float() (the
-- conversion went per module: the weight stayed shared, the gradients split, and p.grad answered
-- one module's rows only).
function tests.tiedSparseModulesKeepTheirGradientThroughType()
  local a = nn.LookupTable(5, 2, { sparse = true })
  local b = nn.LookupTable(5, 2, { sparse = true })
  b.weight, b.gradWeight = a.weight, a.gradWeight
  local m = nn.ConcatTable():add(a):add(b)
  m:float()
  tester:assert(rawequal(a.weight, b.weight), 'one weight')
  tester:assert(rawequal(a.gradWeight, b.gradWeight), 'one sparse gradient after :float()')
  local x = torch.LongTensor({ 1, 2 })
  m:forward(x)
  m:backward(x, { torch.ones(2, 2):float(), torch.ones(2, 2):float() })
  tester:asserteq(dense(a.weight.grad):sum(), 8, 'both modules reach p.grad')
  m:double()
  tester:assert(rawequal(a.gradWeight, b.gradWeight), 'and after :double()')
  tester:asserteq(a.weight.grad:values():type(), 'torch.DoubleTensor', 'values converted')
end

-- PyTorch 1.13: w = randn(4, 3, requires_grad=True); F.embedding([0, 1], w, sparse=True).sum() +
-- (w * 2).sum() gives a dense w.grad [[3, 3, 3], [3, 3, 3], [2, 2, 2], [2, 2, 2]]. The dense part
-- was dropped (w.grad was the sparse rows of ones).
function tests.sparseAndDenseContributionsSum()
  local w = torch.randn(4, 3):requiresGrad()
  local x = torch.LongTensor({ 1, 2 })
  local l = torch.add(nn.functional.embedding(x, w, { sparse = true }):sum(), torch.mul(w, 2):sum())
  l:backward()
  tester:assert(torch.isTensor(w.grad), 'w.grad is dense, as PyTorch')
  tester:assertTensorEq(w.grad, torch.Tensor({ { 3, 3, 3 }, { 3, 3, 3 }, { 2, 2, 2 }, { 2, 2, 2 } }), 0, 'PyTorch 1.13')
  -- the next sparse contribution adds into it
  nn.functional.embedding(torch.LongTensor({ 4 }), w, { sparse = true }):sum():backward()
  tester:assertTensorEq(w.grad, torch.Tensor({ { 3, 3, 3 }, { 3, 3, 3 }, { 2, 2, 2 }, { 3, 3, 3 } }), 0, 'accumulates')
  w.grad = nil
  tester:assert(torch.isSparse(w.grad) and w.grad:nnz() == 0, 'p.grad = nil clears both parts')
  local g = torch.ones(4, 3)
  w.grad = g
  tester:assert(torch.isTensor(w.grad), 'p.grad = a dense tensor is accepted (PyTorch)')
end

-- A tied language model: the decoder nn.Linear(D, V) holds the sparse embedding's V x D weight.
-- Training it equals the dense embedding's tied model (the decoder's dense gradient was lost, and
-- optim.SGD(model) or model:float() raised "[grad] this parameter has a sparse gradient").
local V, D = 7, 3
local function tiedModel(sparse)
  torch.manualSeed(5)
  local emb = nn.LookupTable(V, D, { sparse = sparse })
  local dec = nn.Linear(D, V)
  dec.weight = emb.weight
  -- Torch7's tie shares the gradient too; a sparse one cannot be (the decoder's is dense): its
  -- dense part reaches p.grad through nn.utils.linkGradients (optim.SGD(model) calls it)
  if not sparse then dec.gradWeight = emb.gradWeight end
  return nn.Sequential():add(emb):add(dec), emb, dec
end
local function tiedTrain(sparse, style)
  local m, emb, dec = tiedModel(sparse)
  if style == 'torch7' then nn.utils.linkGradients(m) end  -- dec's gradWeight is then p.grad
  local opt = optim.SGD({ emb.weight, dec.bias }, { lr = 0.1, momentum = 0.9 })
  local crit = nn.CrossEntropyCriterion()
  torch.manualSeed(9)
  for _ = 1, 4 do
    local x, y = torch.LongTensor(5):random(1, 4), torch.LongTensor(5):random(1, V)
    if style == 'torch7' then
      m:zeroGradParameters()
      local out = m:forward(x)
      crit:forward(out, y)
      m:backward(x, crit:backward(out, y))
    else
      opt:zeroGrad()
      nn.functional.crossEntropy(m:forward(x), y):backward()
    end
    opt:step()
  end
  return emb.weight
end
function tests.tiedLanguageModel()
  for _, style in ipairs({ 'autograd', 'torch7' }) do
    local wd = tiedTrain(false, style)
    local ws = tiedTrain(true, style)
    close(ws, wd, 1e-12, style .. ': sparse tied model vs dense tied model')
    tester:assert(not torch.equal(ws:narrow(1, 5, 3), select(2, tiedModel(true)).weight:narrow(1, 5, 3)),
      style .. ': rows only the decoder uses move too')
  end
  local m = tiedModel(true)
  tester:assertNoError(function() optim.SGD(m, { lr = 0.1 }) end, 'optim.SGD(model)')
  tester:assertNoError(function() m:float() end, 'model:float()')
end

-- optim.SGD(model) of a tied model: model:parameters() lists the tied weight twice (once per
-- module) and the step moved it twice; PyTorch's model.parameters() gives it once.
function tests.tiedWeightIsOneParameter()
  for _, sparse in ipairs({ false, true }) do
    local function step(useModel)
      local m, emb, dec = tiedModel(sparse)
      local opt = useModel and optim.SGD(m, { lr = 0.1 }) or optim.SGD({ emb.weight, dec.bias }, { lr = 0.1 })
      nn.functional.crossEntropy(m:forward(torch.LongTensor({ 1, 2 })), torch.LongTensor({ 3, 4 })):backward()
      opt:step()
      return emb.weight, #opt.paramGroups[1].params
    end
    local w1, n = step(true)
    local w2 = step(false)
    tester:asserteq(n, 2, 'the tied weight once, and the bias')
    close(w1, w2, 1e-12, (sparse and 'sparse' or 'dense') .. ': one step of the tied weight')
  end
end

-- PyTorch-style parent (children in fields): Module:updateParameters went through p:add(-lr, g)
-- and raised "[add] expected tensor or number operands" on the sparse gradient.
function tests.updateParametersThroughAParent()
  local Net, parent = torch.class('nn.SparseReviewNet', 'nn.Module')
  function Net:__init(sparse)
    parent.__init(self)
    self.emb = nn.LookupTable(6, 2, { sparse = sparse })
    self.lin = nn.Linear(2, 1)
  end
  function Net:updateOutput(x)
    self.output = self.lin:forward(self.emb:forward(x))
    return self.output
  end
  torch.manualSeed(3)
  local d = nn.SparseReviewNet(false)
  torch.manualSeed(3)
  local s = nn.SparseReviewNet(true)
  local x = torch.LongTensor({ 1, 2, 2 })
  for _, m in ipairs({ d, s }) do
    m:forward(x)
    m:backward(x, torch.ones(3, 1), 0.5)
    m:updateParameters(0.1)
  end
  close(s.emb.weight, d.emb.weight, 1e-12, 'updateParameters with a sparse gradient')
  close(s.lin.weight, d.lin.weight, 1e-12, 'and the dense ones')
end

-- A dense SGD step (weight decay switched on by a schedule, or the module made dense and sparse
-- again) gives every row of the momentum buffer a value; the next sparse step moved only the rows
-- tracked before, leaving the others' momentum unapplied.
function tests.sgdMomentumRowsAfterADenseStep()
  local function run(sparse)
    torch.manualSeed(4)
    local e = nn.LookupTable(6, 2, { sparse = sparse })
    local opt = optim.SGD(e, { lr = 0.1, momentum = 0.9 })
    local steps = { { 1, 2 }, { 3 }, { 2 } }
    for k, rows in ipairs(steps) do
      opt.paramGroups[1].weightDecay = k == 2 and 0.1 or 0
      opt:zeroGrad()
      local x = torch.LongTensor(rows)
      torch.sum(e:forward(x)):backward()
      opt:step()
    end
    return e.weight
  end
  close(run(true), run(false), 1e-12, 'sparse vs dense SGD with a weight-decay step between')
  -- functional optim.sgd: a dense df/dx between sparse ones
  local x1 = torch.randn(5, 2)
  local x2 = x1:clone()
  local g = torch.sparseCooTensor({ { 2 } }, torch.Tensor({ { 1, 1 } }), { 5, 2 })
  local gd = torch.ones(5, 2)
  local s1, s2 = {}, {}
  local cfg = { learningRate = 0.1, momentum = 0.9 }
  for _, gg in ipairs({ g, gd, g }) do
    optim.sgd(function() return 0, gg end, x1, cfg, s1)
    optim.sgd(function() return 0, dense(gg) end, x2, cfg, s2)
  end
  close(x1, x2, 1e-12, 'optim.sgd sparse, dense, sparse vs all dense')
end

-- The coarse node took any two SparseTensors for linked (nil == nil on their .p): a sparse
-- parameter put in place with its own sparse gradient accumulated into the module's gradWeight.
function tests.linkedComparesTheSparseGradientItself()
  local H = require 'nn.param_history'
  local e = nn.LookupTable(4, 2, { sparse = true })
  local h = { param = e.weight, gradName = 'gradWeight' }
  tester:assert(H.linked(e, h), 'its own sparse gradient is linked')
  local other = nn.LookupTable(4, 2, { sparse = true })
  tester:assert(not H.linked(other, h), 'another module\'s sparse gradient is not')
end

-- Torch7 zeroGradParameters clears a dense part of a sparse module's weight gradient too.
function tests.zeroGradParametersClearsTheDensePart()
  local e = nn.LookupTable(4, 2, { sparse = true })
  torch.mul(e.weight, 3):sum():backward()
  tester:assert(torch.isTensor(e.weight.grad), 'dense after a dense use')
  e:zeroGradParameters()
  tester:asserteq(dense(e.weight.grad):abs():sum(), 0, 'zeroed')
  local x = torch.LongTensor({ 2 })
  e:forward(x)
  e:backward(x, torch.ones(1, 2))
  tester:asserteq(dense(e.weight.grad):sum(), 2, 'then the rows of the next backward only')
end

-- An empty batch: nn.functional.embedding(empty, w, {sparse = true}) raised "[view] cannot view 0
-- elements as size 0x-1" in its backward (PyTorch 1.13 gives a sparse gradient with nnz 0); an
-- EmbeddingBag's empty batch keeps the gradient sparse (no dense zero part, which SparseAdam
-- would refuse).
function tests.emptyBatches()
  local w = torch.randn(4, 2):requiresGrad()
  local out = nn.functional.embedding(torch.LongTensor(0), w, { sparse = true })
  tester:asserteq(out:dim(), 2, 'a 0 x 2 output')
  torch.sum(torch.mul(out, 1)):backward()
  tester:assert(torch.isSparse(w.grad) and w.grad:nnz() == 0, 'a sparse gradient with no entries')
  local g = torch.autograd.grad(torch.sum(nn.functional.embedding(torch.LongTensor(0), w, { sparse = true })), { w },
    { allowUnused = true })
  tester:assert(g[1] == nil or g[1]:abs():sum() == 0, 'torch.autograd.grad: nothing')
  local e = nn.EmbeddingBag(5, 2, { mode = 'sum', sparse = true })
  local x = { torch.LongTensor(0), torch.LongTensor({ 1, 1 }) }
  tester:assertTensorEq(e:forward(x), torch.zeros(2, 2), 0, 'empty bags give zeros')
  e:backward(x, torch.ones(2, 2))
  tester:assert(torch.isSparse(e.weight.grad), 'the gradient stays sparse')
  local w0 = e.weight:clone()
  optim.SparseAdam(e, { lr = 0.1 }):step()
  tester:assertTensorEq(e.weight, w0, 0, 'SparseAdam takes it and moves nothing')
  local v = torch.randn(5, 2):requiresGrad()
  local o = nn.functional.embeddingBag(torch.LongTensor(0), v, torch.LongTensor({ 1 }), { mode = 'mean', sparse = true })
  tester:assertTensorEq(o, torch.zeros(1, 2), 0, 'functional embeddingBag of an empty batch')
end

-- optim.sparseAdam took beta1 = 1 (bias correction 1 - 1^t = 0: NaN steps) or beta2 > 1; optim.adam
-- and optim.SparseAdam refuse them (PyTorch: "Invalid beta parameter").
function tests.sparseAdamBetas()
  local g = torch.sparseCooTensor({ { 2 } }, torch.Tensor({ { 1, 1 } }), { 5, 2 })
  tester:assertErrorPattern(function() optim.sparseAdam(function() return 0, g end, torch.zeros(5, 2), { beta1 = 1 }) end,
    'optim.sparseAdam%] beta1 must be a number in %[0, 1%), got 1')
  tester:assertErrorPattern(function() optim.sparseAdam(function() return 0, g end, torch.zeros(5, 2), { beta2 = 1.5 }) end,
    'beta2 must be a number in %[0, 1%)')
end

-- The same sums on the GPU (the dense part is the C++ .grad on the device, the rows are added in).
function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  local w = torch.randn(4, 3):cuda():requiresGrad()
  local x = torch.LongTensor({ 1, 2 }):cuda()
  torch.add(nn.functional.embedding(x, w, { sparse = true }):sum(), torch.mul(w, 2):sum()):backward()
  tester:assertTensorEq(w.grad:double(), torch.Tensor({ { 3, 3, 3 }, { 3, 3, 3 }, { 2, 2, 2 }, { 2, 2, 2 } }), 0,
    'cuda: sparse and dense contributions')
  local a = nn.LookupTable(5, 2, { sparse = true }):cuda()
  local b = a:clone('weight', 'gradWeight')
  tester:assert(rawequal(a.gradWeight, b.gradWeight), 'cuda clone shares the sparse gradient')
  local xi = torch.LongTensor({ 1, 3 }):cuda()
  a:forward(xi) a:backward(xi, torch.ones(2, 2):cuda())
  b:forward(xi) b:backward(xi, torch.ones(2, 2):cuda())
  local w0 = a.weight:detach():double():clone()
  a:updateParameters(0.5)
  tester:assertalmosteq((w0 - a.weight:detach():double()):sum(), 4, 1e-6, 'cuda updateParameters of the shared rows')
end

tester:add(tests)
tester:run()
