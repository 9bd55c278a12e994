-- Sparse embedding gradients (Note [Sparse embedding gradients] in lua/nn/LookupTable.lua):
-- training a bag-of-words model with a sparse embedding gives the dense embedding's weights with
-- SGD (momentum, Nesterov), Adagrad, both Torch7 style (model:backward) and autograd style
-- (loss:backward()); SparseAdam against PyTorch 1.13's numbers and a hand-written lazy Adam; rows
-- not used stay bitwise; padding rows get no entry; duplicates accumulate; functional embedding
-- and EmbeddingBag with sparse = true; clipping, maxNorm, errors.
require 'nn'
require 'optim'
torch.setdefaulttensortype('torch.DoubleTensor')
local tester = torch.Tester()
local tests = torch.TestSuite()

local V, D, C = 30, 4, 3

local function close(a, b, tol, msg)
  local err = (a:detach():double() - b:detach():double()):abs():max()
  tester:assert(err <= tol, string.format('%s: max error %g > %g', msg or 'values', err, tol))
end

-- A bag-of-words classifier: embedding rows summed over each document, then a linear layer.
local function model(sparse)
  torch.manualSeed(7)
  local emb = nn.LookupTable(V, D, { sparse = sparse })
  local m = nn.Sequential():add(emb):add(nn.Sum(2)):add(nn.Linear(D, C))
  return m, emb
end

-- Batches of 4 documents of 5 words using only words 1..20 (21..30 never appear); word 2 repeats.
local function batches()
  torch.manualSeed(11)
  local out = {}
  for k = 1, 6 do
    local x = torch.LongTensor(4, 5):random(1, 20)
    x[1][1], x[1][2] = 2, 2
    out[k] = { x, torch.LongTensor(4):random(1, C) }
  end
  return out
end

local function train(sparse, makeOpt, style)
  local m, emb = model(sparse)
  local crit = nn.CrossEntropyCriterion()
  local opt = makeOpt(m)
  local w0 = emb.weight:clone()
  for _, b in ipairs(batches()) do
    local x, y = b[1], b[2]
    if style == 'torch7' then
      m:zeroGradParameters()
      local out = m:forward(x)
      crit:forward(out, y)
      m:backward(x, crit:backward(out, y))
    else
      opt:zeroGrad()
      local loss = nn.functional.crossEntropy(m:forward(x), y)
      loss:backward()
    end
    if sparse then tester:assert(torch.isSparse(emb.weight.grad), 'the gradient is sparse') end
    opt:step()
  end
  return emb.weight, w0, m
end

local makers = {
  sgd = function(m) return optim.SGD(m, { lr = 0.1 }) end,
  momentum = function(m) return optim.SGD(m, { lr = 0.1, momentum = 0.9, dampening = 0.1 }) end,
  nesterov = function(m) return optim.SGD(m, { lr = 0.05, momentum = 0.9, nesterov = true }) end,
  weightDecay = function(m) return optim.SGD(m, { lr = 0.1, momentum = 0.5, weightDecay = 0.01 }) end,
  maximize = function(m) return optim.SGD(m, { lr = 0.01, momentum = 0.5, maximize = true }) end,
  adagrad = function(m) return optim.Adagrad(m, { lr = 0.1, lrDecay = 0.01, initialAccumulatorValue = 0.1 }) end,
}

for name, make in pairs(makers) do
  for _, style in ipairs({ 'torch7', 'autograd' }) do
    tests[name .. '_' .. style .. '_matchesDense'] = function()
      local wd = train(false, make, style)
      local ws, w0, m = train(true, make, style)
      close(ws, wd, 1e-6, name .. ' ' .. style .. ': sparse vs dense weights')
      -- rows 21..30 never appear: bitwise unchanged (unless weight decay, which is dense)
      if name ~= 'weightDecay' then
        tester:assert(torch.equal(ws:narrow(1, 21, 10), w0:narrow(1, 21, 10)), 'unused rows are untouched')
      end
      tester:assert(torch.isSparse(m.modules[1].gradWeight), 'gradWeight stays sparse')
    end
  end
end

-- PyTorch 1.13: Embedding(5, 3, sparse=True, _weight=w), SparseAdam(lr=0.1, betas=(0.8, 0.95),
-- eps=1e-6), loss ((e(idx) - tgt)^2).sum() for idx = [0,2,2,4], [1,2,3,0], [4,4,1,3] (0-based).
local W0 = { { 0.5, -1.0, 2.0 }, { 1.5, 0.25, -0.75 }, { -2.0, 1.0, 0.5 }, { 0.1, 0.2, 0.3 }, { 3.0, -3.0, 1.0 } }
local TGT = { { 1.0, 2.0, 3.0 }, { -1.0, 0.0, 1.0 }, { 0.5, 0.5, 0.5 }, { 2.0, -2.0, 0.0 } }
local IDX = { { 1, 3, 3, 5 }, { 2, 3, 4, 1 }, { 5, 5, 2, 4 } }
local TORCH_SPARSE_ADAM = {
  { 0.6941998326127915, -0.8677178865806188, 2.056438028034309 },
  { 1.3346796635594669, 0.39106586362480245, -0.5971804946085832 },
  { -1.818641141544406, 0.8051066122240919, 0.6984379940372117 },
  { 0.25715085600903326, 0.2161579903648665, 0.34213618054146255 },
  { 2.8223233948890436, -2.8242712224979245, 0.940272973546612 } }
-- the same with Adagrad(lr=0.1, lr_decay=0.01, initial_accumulator_value=0.1) and
-- SGD(lr=0.05, momentum=0.9, dampening=0.1)
local TORCH_ADAGRAD = {
  { 0.6881028367233298, -0.9341777835557429, 2.0095964946529583 },
  { 1.320756557960907, 0.35702398198878055, -0.6223325938672092 },
  { -1.8754653065713158, 0.8497947190011874, 0.6558324544499787 },
  { 0.2874545539157352, 0.1906098672070305, 0.2964124661672422 },
  { 2.804646940586621, -2.804002883578545, 0.9902708453684558 } }
local TORCH_SGD = {
  { 0.88345, -0.4092999999999999, 1.9119 }, { 1.3285500000000001, 0.557575, -0.02662499999999995 },
  { -0.9403499999999997, 0.44814999999999994, 0.71245 }, { 0.33616, 0.05087000000000004, 0.30558 },
  { 2.2232, -2.0432, 0.9432 } }

local function pytorchCase(make)
  local e = nn.Embedding(5, 3):setSparse()
  e.weight:copy(torch.Tensor(W0))
  local opt = make(e)
  for _, idx in ipairs(IDX) do
    opt:zeroGrad()
    local out = e:forward(torch.LongTensor(idx))
    torch.pow(out - torch.Tensor(TGT), 2):sum():backward()
    opt:step()
  end
  return e.weight
end

function tests.sparseAdamMatchesPyTorch()
  local w = pytorchCase(function(e) return optim.SparseAdam(e, { lr = 0.1, betas = { 0.8, 0.95 }, eps = 1e-6 }) end)
  close(w, torch.Tensor(TORCH_SPARSE_ADAM), 1e-12, 'SparseAdam vs PyTorch 1.13')
end
function tests.adagradSgdMatchPyTorch()
  close(pytorchCase(function(e) return optim.Adagrad(e, { lr = 0.1, lrDecay = 0.01, initialAccumulatorValue = 0.1 }) end),
    torch.Tensor(TORCH_ADAGRAD), 1e-12, 'sparse Adagrad vs PyTorch 1.13')
  close(pytorchCase(function(e) return optim.SGD(e, { lr = 0.05, momentum = 0.9, dampening = 0.1 }) end),
    torch.Tensor(TORCH_SGD), 1e-12, 'sparse SGD momentum vs PyTorch 1.13')
end

-- A lazy Adam written row by row: each row present in a step moves, with the step count of the
-- parameter (PyTorch's SparseAdam).
function tests.sparseAdamMatchesHandWritten()
  local w = torch.Tensor(W0)
  local m, v = torch.zeros(5, 3), torch.zeros(5, 3)
  local lr, b1, b2, eps = 0.1, 0.8, 0.95, 1e-6
  for step, idx in ipairs(IDX) do
    local g = torch.zeros(5, 3)
    local present = {}
    for k, r in ipairs(idx) do
      g[r]:add(torch.mul(w[r] - torch.Tensor(TGT[k]), 2))
      present[r] = true
    end
    for r in pairs(present) do
      m[r]:mul(b1):add(1 - b1, g[r])
      v[r]:mul(b2):addcmul(1 - b2, g[r], g[r])
      local ss = lr * math.sqrt(1 - b2 ^ step) / (1 - b1 ^ step)
      w[r]:add(-ss, torch.cdiv(m[r], torch.sqrt(v[r]):add(eps)))
    end
  end
  local got = pytorchCase(function(e) return optim.SparseAdam(e, { lr = 0.1, betas = { 0.8, 0.95 }, eps = 1e-6 }) end)
  close(got, w, 1e-12, 'SparseAdam vs a hand-written lazy Adam')
end

function tests.gradientRowsPaddingDuplicates()
  local e = nn.LookupTable(6, 2, 3, { sparse = true })  -- padding index 3
  local x = torch.LongTensor({ { 1, 3, 1 }, { 5, 3, 1 } })
  e:forward(x)
  e:backward(x, torch.ones(2, 3, 2))
  local g = e.weight.grad
  tester:assert(torch.isSparse(g) and g == e.gradWeight, 'weight.grad is the sparse gradWeight')
  tester:asserteq(g:nnz(), 4, 'one entry per non-padding index')
  local dense = g:toDense()
  tester:assertTensorEq(dense:select(2, 1), torch.Tensor({ 3, 0, 0, 0, 1, 0 }), 0, 'duplicates accumulate, padding none')
  local idx = g:coalesce():indices()
  tester:assert(idx:eq(3):sum() == 0, 'no entry for the padding row')
  e:zeroGradParameters()
  tester:asserteq(e.weight.grad:nnz(), 0, 'zeroGradParameters empties it')
  e:backward(x, torch.ones(2, 3, 2))
  e.weight.grad = nil
  tester:asserteq(e.weight.grad:nnz(), 0, 'p.grad = nil empties it')
end

function tests.errors()
  local m = model(true)
  tester:assertErrorPattern(function() m:getParameters() end, 'getParameters.*sparse')
  local x = batches()[1][1]
  m:forward(x)
  m:backward(x, torch.ones(4, C))
  tester:assertErrorPattern(function() optim.Adam(m):step() end, 'Adam%] does not support sparse gradients, please consider optim.SparseAdam')
  tester:assertErrorPattern(function() optim.RMSprop(m):step() end, 'consider optim.SparseAdam')
  local l = nn.Linear(2, 2)
  l:backward(torch.ones(2), torch.ones(2))
  tester:assertErrorPattern(function() optim.SparseAdam(l):step() end, 'does not support dense gradients, please consider optim.Adam')
  tester:assertErrorPattern(function() optim.Adagrad(m, { weightDecay = 0.1 }):step() end, 'weightDecay is not compatible')
  tester:assertErrorPattern(function() nn.LookupTable(3, 2, { sparce = true }) end, 'unknown option sparce')
  tester:assertErrorPattern(function() nn.LookupTable(3, 2, { sparse = 1 }) end, 'sparse must be a boolean')
end

function tests.clipGradNorm()
  local ms, es = model(true)
  local md, ed = model(false)
  local x = batches()[1][1]
  for _, m in ipairs({ ms, md }) do
    m:zeroGradParameters()
    m:forward(x)
    m:backward(x, torch.ones(4, C))
  end
  local ns = nn.utils.clipGradNorm(ms, 0.5)
  local nd = nn.utils.clipGradNorm(md, 0.5)
  tester:assertalmosteq(ns, nd, 1e-10, 'the same total norm')
  close(es.weight.grad:toDense(), ed.gradWeight, 1e-10, 'the same clipped gradient')
  tester:assertalmosteq(nn.utils.clipGradNorm(ms, 1e9, 'inf'), nn.utils.clipGradNorm(md, 1e9, 'inf'), 1e-12, 'inf norm')
  nn.utils.clipGradValue(ms, 0.01)
  nn.utils.clipGradValue(md, 0.01)
  close(es.weight.grad:toDense(), ed.gradWeight, 1e-12, 'clipGradValue on the summed rows')
end

function tests.maxNormStillWorks()
  local e = nn.LookupTable(5, 3, nil, 1.0, 2, { sparse = true })
  e.weight:fill(2)
  local x = torch.LongTensor({ 1, 2, 2 })
  local out = e:forward(x)
  close(out:norm(2, 2), torch.ones(3, 1), 1e-6, 'looked-up rows renormalised')
  tester:assertalmosteq(e.weight:detach()[5]:norm(), math.sqrt(12), 1e-12, 'other rows alone')
  e:backward(x, torch.ones(3, 3))
  tester:asserteq(e.weight.grad:nnz(), 3, 'sparse gradient')
end

function tests.scaleGradByFreqAndTorch7Update()
  local a = nn.LookupTable(6, 2):scaleGradByFreq()
  local b = a:clone():setSparse()
  local x = torch.LongTensor({ 1, 4, 4, 4, 6 })
  local go = torch.randn(5, 2)
  a:backward(x, go, 0.5)
  b:backward(x, go, 0.5)
  close(b.weight.grad:toDense(), a.gradWeight, 1e-12, 'scaleGradByFreq and scale')
  a:updateParameters(0.1)
  b:updateParameters(0.1)
  close(b.weight, a.weight, 1e-12, 'updateParameters')
  b:setSparse(false)
  close(b.gradWeight, a.gradWeight, 1e-12, 'setSparse(false) keeps the gradient')
  tester:assert(torch.isTensor(b.weight.grad), 'dense again')
end

function tests.functionalEmbedding()
  local w = torch.randn(8, 3):requiresGrad()
  local wd = w:detach():clone():requiresGrad()
  local x = torch.LongTensor({ { 1, 2, 2 }, { 8, 2, 5 } })
  local go = torch.randn(2, 3, 3)
  local out = nn.functional.embedding(x, w, { paddingIdx = 5, sparse = true })
  local outd = nn.functional.embedding(x, wd, { paddingIdx = 5 })
  close(out, outd, 0, 'values')
  torch.sum(torch.cmul(out, go)):backward()
  torch.sum(torch.cmul(outd, go)):backward()
  tester:assert(torch.isSparse(w.grad), 'w.grad is sparse')
  tester:asserteq(w.grad:nnz(), 5, 'padding left out')
  close(w.grad:toDense(), wd.grad, 1e-12, 'sparse vs dense gradient')
  local gd = torch.autograd.grad(torch.sum(nn.functional.embedding(x, w, { sparse = true, scaleGradByFreq = true })), { w })
  local ge = torch.autograd.grad(torch.sum(nn.functional.embedding(x, wd, { scaleGradByFreq = true })), { wd })
  close(gd[1], ge[1], 1e-12, 'torch.autograd.grad: dense, scaled by frequency')
end

function tests.embeddingBag()
  for _, mode in ipairs({ 'sum', 'mean', 'max' }) do
    torch.manualSeed(3)
    local d = nn.EmbeddingBag(12, 3, { mode = mode, paddingIdx = 4 })
    local s = d:clone():setSparse()
    local x = torch.LongTensor({ { 1, 4, 7, 7 }, { 2, 2, 9, 4 } })
    local go = torch.randn(2, 3)
    close(s:forward(x), d:forward(x), 0, mode .. ' forward')
    d:backward(x, go, 2)
    s:backward(x, go, 2)
    close(s.weight.grad:toDense(), d.gradWeight, 1e-12, mode .. ' Torch7 backward')
    tester:assert(s.weight.grad:coalesce():indices():eq(4):sum() == 0, mode .. ': no padding entry')
    d:zeroGradParameters()
    s:zeroGradParameters()
    torch.sum(torch.cmul(d:forward(x), go)):backward()
    torch.sum(torch.cmul(s:forward(x), go)):backward()
    close(s.weight.grad:toDense(), d.gradWeight, 1e-12, mode .. ' autograd backward')
  end
  local w = torch.randn(10, 2):requiresGrad()
  local wd = w:detach():clone():requiresGrad()
  local idx, off = torch.LongTensor({ 3, 1, 3, 9, 2 }), torch.LongTensor({ 1, 3, 6 })
  local o = { mode = 'mean', includeLastOffset = true, scaleGradByFreq = true }
  nn.functional.embeddingBag(idx, wd, off, o):sum():backward()
  o.sparse = true
  nn.functional.embeddingBag(idx, w, off, o):sum():backward()
  close(w.grad:toDense(), wd.grad, 1e-12, 'functional embeddingBag with offsets')
end

function tests.functionalOptim()
  local x1, x2, x3 = torch.randn(6, 2), nil, nil
  x2, x3 = x1:clone(), x1:clone()
  local g = torch.sparseCooTensor({ { 2, 5, 2 } }, torch.Tensor({ { 1, 2 }, { 3, 4 }, { 5, 6 } }), { 6, 2 })
  local gd = g:toDense()
  local s1, s2 = {}, {}
  for _ = 1, 3 do
    optim.sgd(function() return 0, g end, x1, { learningRate = 0.1, momentum = 0.9 }, s1)
    optim.sgd(function() return 0, gd end, x2, { learningRate = 0.1, momentum = 0.9 }, s2)
  end
  close(x1, x2, 1e-12, 'optim.sgd sparse vs dense')
  local a1, a2 = {}, {}
  x1, x2 = x3:clone(), x3:clone()
  for _ = 1, 3 do
    optim.adagrad(function() return 0, g end, x1, { learningRate = 0.1 }, a1)
    optim.adagrad(function() return 0, gd end, x2, { learningRate = 0.1 }, a2)
  end
  close(x1, x2, 1e-12, 'optim.adagrad sparse vs dense')
  -- optim.sparseAdam equals the object
  local p = x3:clone()
  local st = {}
  optim.sparseAdam(function() return 0, g end, p, { learningRate = 0.1 }, st)
  local q = x3:clone():requiresGrad()
  q.grad = g
  optim.SparseAdam({ q }, { lr = 0.1 }):step()
  close(p, q:detach(), 1e-12, 'optim.sparseAdam vs optim.SparseAdam')
  tester:assertErrorPattern(function() optim.sparseAdam(function() return 0, gd end, p) end, 'must be a SparseTensor')
end

function tests.typeCloneAndState()
  local e = nn.LookupTable(5, 2, { sparse = true }):float()
  local x = torch.LongTensor({ 1, 3 })
  e:forward(x)
  e:backward(x, torch.ones(2, 2):float())
  tester:asserteq(e.weight.grad:values():type(), 'torch.FloatTensor', 'values follow the type')
  tester:asserteq(e.weight.grad:indices():type(), 'torch.LongTensor', 'indices stay long')
  local c = e:clone()
  c:zeroGradParameters()
  c:forward(x)
  torch.sum(c:forward(torch.LongTensor({ 2 }))):backward()
  tester:asserteq(c.weight.grad:nnz(), 1, 'a clone has its own sparse gradient')
  tester:asserteq(e.weight.grad:nnz(), 2, 'the original is untouched')
  local opt = optim.SGD(e, { lr = 0.1, momentum = 0.9 })
  opt:step()
  local opt2 = optim.SGD(e, { lr = 0.1, momentum = 0.9 })
  opt2:loadState(opt:state())
  tester:assertTensorEq(opt2._state[e.weight].momentumRows, torch.LongTensor({ 1, 3 }), 0, 'rows restored')
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  local wd = train(false, makers.momentum, 'torch7')
  local m, emb = model(true)
  m:cuda()
  local opt = optim.SGD(m, { lr = 0.1, momentum = 0.9, dampening = 0.1 })
  local crit = nn.CrossEntropyCriterion():cuda()
  for _, b in ipairs(batches()) do
    local x, y = b[1]:cuda(), b[2]:cuda()
    m:zeroGradParameters()
    local out = m:forward(x)
    crit:forward(out, y)
    m:backward(x, crit:backward(out, y))
    opt:step()
  end
  close(emb.weight:double(), wd, 1e-4, 'CUDA sparse SGD momentum vs CPU dense')
end

-- PyTorch's nn.Embedding(n, d, {sparse = true}); m:zeroGrad() clears the sparse gradient; LBFGS
-- makes it dense (as PyTorch's does) and gives the dense embedding's weights.
function tests.embeddingOptionZeroGradAndLBFGS()
  local e = nn.Embedding(4, 2, { sparse = true }):double()
  torch.sum(e:forward(torch.LongTensor({ 1, 3 }))):backward()
  tester:assert(torch.isSparse(e.weight.grad), 'nn.Embedding{sparse = true} gives a sparse gradient')
  tester:asserteq(e.weight.grad:toDense():sum(), 4, 'two rows of ones')
  e:zeroGrad()
  tester:asserteq(e.weight.grad:toDense():abs():sum(), 0, 'm:zeroGrad() clears it')
  local function run(sparse)
    torch.manualSeed(5)
    local m = nn.Embedding(6, 3, { sparse = sparse }):double()
    local idx = torch.LongTensor({ 1, 3, 3, 5 })
    local opt = optim.LBFGS(m:parameters(), { lr = 0.5, maxIter = 5 })
    for _ = 1, 3 do
      opt:step(function()
        opt:zeroGrad()
        local l = torch.pow(m:forward(idx), 2):sum()
        l:backward()
        return l
      end)
    end
    return m.weight:clone()
  end
  tester:assertTensorEq(run(true), run(false), 1e-12, 'LBFGS: sparse as dense')
end

tester:add(tests)
tester:run()
