-- Regressions found reviewing the core PyTorch-named modules against PyTorch 1.13 (2026-11-28):
-- ConvTranspose*d's output_size, GELU's approximate = 'tanh', option tables that were silently
-- ignored (nn.Dropout, nn.Linear, nn.Bilinear, nn.PReLU, nn.PairwiseDistance), PReLU(1) sharing its
-- slope, BatchNorm*d(trackRunningStats = false) and momentum = false (PyTorch's None), Linear,
-- Bilinear and Embedding on inputs of more dims, EmbeddingBag's remaining options and
-- nn.Embedding.fromPretrained. Expected values are PyTorch 1.13's (float64), pasted.
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function prod(s) local n = 1 for _, v in ipairs(s) do n = n * v end return n end
-- sin(0), sin(1), ... and cos(0), cos(1), ... in double precision (PyTorch rebuilt them the same way)
local function sins(...) local s = { ... } return torch.arange(0, prod(s)):double():sin():view(...) end
local function coss(...) local s = { ... } return torch.arange(0, prod(s)):double():cos():view(...) end
local function num(v) return torch.isTensor(v) and v:item() or v end
local function sum(t) return num(t:detach():sum()) end
local function dot(a, b) return num(torch.cmul(a:detach(), b):sum()) end
local function errs(f, pattern, msg)
  local ok, err = pcall(f)
  tester:assert(not ok, msg .. ': expected an error')
  tester:assert(tostring(err):find(pattern, 1, true) ~= nil, msg .. ': ' .. tostring(err))
end

-- PyTorch's ConvTranspose2d forward(x, output_size=[6, 8]) picks the output padding of the call;
-- the size was silently ignored (5 x 7 output) and m(x, size) taken as a backward.
function tests.convTransposeOutputSize()
  local function fresh()
    local m = nn.ConvTranspose2d(2, 3, 3, { stride = 2, padding = 1 }):double()
    m.weight:copy(sins(2, 3, 3, 3):mul(0.5))
    m.bias:copy(torch.DoubleTensor({ 0.1, -0.2, 0.3 }))
    return m
  end
  local x = sins(1, 2, 3, 4)
  local m = fresh()
  local y = m:forward(x, { 6, 8 })
  tester:assertTableEq(y:size():totable(), { 1, 3, 6, 8 }, 'output size')
  tester:assertalmosteq(sum(y), 8.177519441885991, 1e-10, 'output sum')
  local go = coss(1, 3, 6, 8)
  tester:assertalmosteq(dot(y, go), 6.18195313427641, 1e-10, 'output')
  m:zeroGradParameters()
  local gi = m:backward(x, go)
  tester:assertalmosteq(sum(gi), -1.4398347791088515, 1e-10, 'gradInput sum')
  tester:assertalmosteq(dot(gi, sins(1, 2, 3, 4)), 7.007585987158977, 1e-10, 'gradInput')
  tester:assertalmosteq(dot(m.gradWeight, coss(2, 3, 3, 3)), 11.10813484792502, 1e-10, 'gradWeight')
  tester:assertalmosteq(sum(m.gradBias), -0.38497819987958404, 1e-10, 'gradBias')
  -- the next plain forward is back to the module's outputPadding
  tester:assertTableEq(m:forward(x):size():totable(), { 1, 3, 5, 7 }, 'plain forward after')
  -- autograd through m(x, size), with the sizes of the whole output
  local a = fresh()
  a:zeroGradParameters()
  local xa = x:clone():requiresGrad()
  local ya = a(xa, { 1, 3, 6, 8 })
  tester:assertTableEq(ya:size():totable(), { 1, 3, 6, 8 }, 'autograd output size')
  torch.cmul(ya, go):sum():backward()
  tester:assertalmosteq(dot(xa.grad, sins(1, 2, 3, 4)), 7.007585987158977, 1e-10, 'autograd gradInput')
  tester:assertalmosteq(dot(a.gradWeight, coss(2, 3, 3, 3)), 11.10813484792502, 1e-10, 'autograd gradWeight')
  tester:assertalmosteq(sum(a.gradBias), -0.38497819987958404, 1e-10, 'autograd gradBias')
  -- unbatched, 1-D and 3-D
  tester:assertTableEq(fresh():forward(x[1], torch.LongStorage({ 5, 8 })):size():totable(), { 3, 5, 8 }, 'unbatched')
  local m1 = nn.ConvTranspose1d(2, 2, 3, { stride = 3 }):double()
  tester:assertTableEq(m1:forward(sins(1, 2, 4), { 13 }):size():totable(), { 1, 2, 13 }, '1-D')
  local m3 = nn.ConvTranspose3d(1, 1, 2, { stride = 2 }):double()
  tester:assertTableEq(m3:forward(sins(1, 1, 2, 2, 2), { 5, 4, 5 }):size():totable(), { 1, 1, 5, 4, 5 }, '3-D')
  -- sizes out of range name the module and the valid range, as PyTorch's
  errs(function() fresh():forward(x, { 8, 8 }) end, 'valid sizes range from 5x7 to 6x8', 'too large')
  errs(function() fresh():forward(x, { 6 }) end, 'expected outputSize as a table of 2', 'wrong length')
  -- Torch7's m(input, gradOutput) still runs a backward
  local t = fresh()
  local out, g = t(x, coss(1, 3, 5, 7))
  tester:assertTableEq(out:size():totable(), { 1, 3, 5, 7 }, 'Torch7 call output')
  tester:assertTableEq(g:size():totable(), { 1, 2, 3, 4 }, 'Torch7 call gradInput')
end

-- nn.GELU({approximate = 'tanh'}) was accepted and computed the exact (erf) form.
function tests.geluTanhApproximation()
  local want = { -0.0036373920817729943, -0.04540230591222494, -0.15880800939172324, 0.0, 0.8411919906082768,
    1.954597694087775, 2.996362607918227 }
  local wantGrad = { -0.011584166630969648, -0.0860992566236183, -0.08296408384578252, 0.5, 1.0829640838457826,
    1.0860992566236183, 1.0115841666309695 }
  local x = torch.linspace(-3, 3, 7):double()
  for _, m in ipairs({ nn.GELU({ approximate = 'tanh' }), nn.GELU('tanh') }) do
    m:double()
    tester:assertTensorEq(m:forward(x), torch.DoubleTensor(want), 1e-12, 'tanh GELU output')
    tester:assertTensorEq(m:backward(x, torch.ones(7):double()), torch.DoubleTensor(wantGrad), 1e-12, 'tanh GELU grad')
    local xa = x:clone():requiresGrad()
    m(xa):sum():backward()
    tester:assertTensorEq(xa.grad, torch.DoubleTensor(wantGrad), 1e-12, 'tanh GELU autograd')
    tester:asserteq(tostring(m), "nn.GELU(approximate='tanh')")
    tester:assertTensorEq(m:float():forward(x:float()):double(), torch.DoubleTensor(want), 1e-6, 'float')
  end
  -- saved and loaded, the option stays
  local path = os.tmpname()
  torch.save(path, nn.GELU('tanh'):double())
  local back = torch.load(path)
  os.remove(path)
  tester:assertTensorEq(back:forward(x), torch.DoubleTensor(want), 1e-12, 'loaded')
  -- the exact form is unchanged: x Phi(x) at 1 is 0.8413447460685429 (PyTorch 1.13)
  tester:assertalmosteq(nn.GELU():double():forward(torch.DoubleTensor({ 1 }))[1], 0.8413447460685429, 1e-12)
  tester:assertalmosteq(nn.GELU({ approximate = 'none' }):double():forward(torch.DoubleTensor({ 1 }))[1],
    0.8413447460685429, 1e-12)
  errs(function() nn.GELU('fast') end, "[nn.GELU] approximate must be 'none' or 'tanh', got fast", 'bad mode')
  errs(function() nn.GELU({ approx = 'tanh' }) end, '[nn.GELU] unknown option approx', 'bad option')
end

-- nn.Dropout(p, {inplace = true}) took the table as Torch7's v1 flag: no scaling while training and a
-- (1 - p) factor at evaluation, where PyTorch's dropout scales by 1 / (1 - p) and evaluates to x.
function tests.dropoutOptionsTable()
  torch.manualSeed(1)
  local x = torch.ones(1000):double()
  for _, m in ipairs({ nn.Dropout(0.25, { inplace = false }), nn.Dropout({ p = 0.25 }) }) do
    m:double()
    tester:asserteq(m.p, 0.25)
    tester:assert(m.v2, 'inverted dropout')
    local y = m:forward(x)
    local kept = num(y:gt(0):sum())
    tester:assertTensorEq(y:maskedSelect(y:gt(0)), torch.DoubleTensor(kept):fill(4 / 3), 1e-12, 'kept scaled by 1/(1-p)')
    -- 750 +- 4.5 sigma of Binomial(1000, 0.75)
    tester:assert(math.abs(kept - 750) < 4.5 * math.sqrt(1000 * 0.75 * 0.25), 'kept count ' .. kept)
    m:evaluate()
    tester:assertTensorEq(m:forward(x), x, 0, 'evaluation is the identity')
  end
  local ip = nn.Dropout(0.5, { inplace = true }):double()
  tester:assert(ip.inplace == true and ip.v2, 'inplace option')
  local z = torch.ones(10):double()
  ip:forward(z)
  tester:asserteq(num(z:eq(0):sum() + z:eq(2):sum()), 10, 'written in place, scaled by 2')
  errs(function() nn.Dropout(0.5, { inPlace = true }) end, '[nn.Dropout] unknown option inPlace', 'unknown option')
  errs(function() nn.Dropout(0.5, { p = 0.2 }) end, 'given twice', 'p twice')
  -- p = 0: the identity in training as well
  tester:assertTensorEq(nn.Dropout({ p = 0 }):double():forward(x), x, 0, 'p = 0')
end

-- nn.Linear(4, 3, {bias = false}) and nn.Bilinear(..., {bias = false}) kept their bias.
function tests.biasOptionTable()
  tester:asserteq(nn.Linear(4, 3, { bias = false }).bias, nil, 'Linear')
  tester:asserteq(nn.Bilinear(2, 3, 4, { bias = false }).bias, nil, 'Bilinear')
  tester:asserteq(nn.Linear(4, 3, { bias = true }).bias:size(1), 3, 'Linear with bias')
  tester:assertTableEq(nn.Linear(4, 3, { bias = false }):stateDict().weight:size():totable(), { 3, 4 }, 'state dict')
  local n = 0
  for _ in pairs(nn.Bilinear(2, 3, 4, { bias = false }):stateDict()) do n = n + 1 end
  tester:asserteq(n, 1, 'Bilinear state dict has only the weight')
  errs(function() nn.Linear(4, 3, { bais = false }) end, '[nn.Linear] unknown option bais', 'typo')
  errs(function() nn.Bilinear(2, 3, 4, 'no') end, '[nn.Bilinear] bias must be true or false, got no', 'string')
end

-- PyTorch's PReLU(num_parameters = 1, init) shares one slope over every channel and starts it at
-- init; Tocha's PReLU(1) refused 2x3x4 inputs and PReLU(3, 0.1) ignored 0.1.
function tests.preluInitAndOneParameter()
  local m = nn.PReLU(1, 0.1):double()
  tester:asserteq(m.weight:nElement(), 1)
  m.weight:fill(0.1)  -- 0.1 exactly (the default float tensor held 0.1f)
  local x, go = sins(2, 3, 4), coss(2, 3, 4)
  tester:assertalmosteq(sum(m:forward(x)), 7.217783454643399, 1e-12, 'output')
  m:zeroGradParameters()
  tester:assertalmosteq(sum(m:backward(x, go)), -0.08560185985091928, 1e-12, 'gradInput')
  tester:assertalmosteq(m.gradWeight[1], 0.45775029191849914, 1e-12, 'gradWeight')
  tester:assertalmosteq(nn.PReLU(3, 0.1).weight[3], 0.1, 1e-7, 'init')
  local o = nn.PReLU({ numParameters = 3, init = 0.3 })
  tester:assertTableEq({ o.weight:nElement(), o.nOutputPlane }, { 3, 3 }, 'numParameters')
  tester:assertalmosteq(o.weight[2], 0.3, 1e-7, 'init option')
  tester:assertalmosteq(nn.PReLU(2, { init = 0.2 }).weight[2], 0.2, 1e-7, 'init as an option')
  tester:assertalmosteq(nn.PReLU().weight[1], 0.25, 0, 'default')
  errs(function() nn.PReLU({ num = 3 }) end, '[nn.PReLU] unknown option num', 'unknown option')
  errs(function() nn.PReLU(2, 'a') end, '[nn.PReLU] init must be a number', 'bad init')
end

-- nn.PairwiseDistance(p, {eps =, keepdim =}) ignored its options table.
function tests.pairwiseDistanceOptions()
  local a, b = sins(3, 4), coss(3, 4)
  local m = nn.PairwiseDistance(1, { eps = 0.1, keepdim = true }):double()
  local y = m:forward({ a, b })
  tester:assertTensorEq(y, torch.DoubleTensor({ { 3.9577254469728937 }, { 2.2884154637954572 }, { 3.957573350284266 } }),
    1e-12, 'p = 1, eps = 0.1, keepdim')
  local g = m:backward({ a, b }, torch.ones(3, 1):double())
  tester:assertTensorEq(g[1], torch.sign(torch.add(torch.csub(a, b), 0.1)), 1e-12, 'gradient of the L1 distance')
  local m3 = nn.PairwiseDistance({ p = 3, eps = 1e-6 }):double()
  tester:assertTensorEq(m3:forward({ a, b }), torch.DoubleTensor({ 1.6872201786111407, 1.563945259537746,
    1.688921924341529 }), 1e-12, 'p = 3, eps = 1e-6')
  errs(function() nn.PairwiseDistance(2, { keepDim = true }) end, '[nn.PairwiseDistance] unknown option keepDim', 'typo')
  errs(function() nn.PairwiseDistance(2, { eps = 'x' }) end, 'eps must be a number', 'bad eps')
end

-- PyTorch's BatchNorm2d(trackRunningStats = false) normalizes with the batch's statistics in
-- evaluation too and has no running buffers; Tocha refused the option.
function tests.batchNormWithoutRunningStats()
  local m = nn.BatchNorm2d(3, { trackRunningStats = false }):double()
  local keys = {}
  for k in pairs(m:stateDict()) do keys[#keys + 1] = k end
  table.sort(keys)
  tester:assertTableEq(keys, { 'bias', 'weight' }, 'state dict keys are PyTorch\'s')
  m:loadStateDict({ weight = torch.DoubleTensor({ 0.5, 1.5, -1.0 }), bias = torch.DoubleTensor({ 0.1, 0.2, 0.3 }) })
  local x, go = sins(2, 3, 2, 2), coss(2, 3, 2, 2)
  for _, mode in ipairs({ 'evaluate', 'training' }) do
    m[mode](m)
    m:zeroGradParameters()
    local y = m:forward(x)
    tester:assertalmosteq(dot(y, go), 1.2625232240664752, 1e-10, mode .. ' output')
    local gi = m:backward(x, go)
    tester:assertalmosteq(dot(gi, sins(2, 3, 2, 2)), 7.164015602489915e-05, 1e-10, mode .. ' gradInput')
    tester:assertTensorEq(m.gradWeight, torch.DoubleTensor({ -2.0839158221537994, 2.492851945035275, 0.8439908553883917 }),
      1e-10, mode .. ' gradWeight')
    tester:assertTensorEq(m.gradBias, torch.DoubleTensor({ 1.2625130182522528, 1.7602896136490527, -3.5637171719206036 }),
      1e-10, mode .. ' gradBias')
    -- autograd
    m:zeroGradParameters()
    local xa = x:clone():requiresGrad()
    torch.cmul(m(xa), go):sum():backward()
    tester:assertalmosteq(dot(xa.grad, sins(2, 3, 2, 2)), 7.164015602489915e-05, 1e-10, mode .. ' autograd')
    tester:assertalmosteq(m.gradWeight[1], -2.0839158221537994, 1e-10, mode .. ' autograd gradWeight')
  end
  tester:asserteq(m.train, true, 'mode kept')
  m:evaluate()
  m:forward(x)
  tester:asserteq(m.train, false, 'evaluation mode kept after a forward')
  -- errors still name the module, and the mode is restored after them
  errs(function() m:forward(torch.randn(2, 4, 2, 2):double()) end, 'nn.BatchNorm2d', 'wrong channels')
  tester:asserteq(m.train, false, 'evaluation mode restored after an error')
  -- saved and loaded
  local path = os.tmpname()
  torch.save(path, m)
  local back = torch.load(path)
  os.remove(path)
  tester:assertalmosteq(dot(back:forward(x), go), 1.2625232240664752, 1e-10, 'loaded')
  tester:assertalmosteq(dot(m:float():forward(x:float()):double(), go), 1.2625232240664752, 1e-4, 'float')
end

-- PyTorch's momentum = None (a cumulative average of the batches' statistics) could not be asked
-- for: nil is the default 0.1 in Lua and false was refused. momentum = false is it now.
function tests.batchNormCumulativeMomentum()
  local m = nn.BatchNorm1d(3, { momentum = false }):double()
  local keys = {}
  for k in pairs(m:stateDict()) do keys[#keys + 1] = k end
  table.sort(keys)
  tester:assertTableEq(keys, { 'bias', 'num_batches_tracked', 'running_mean', 'running_var', 'weight' }, 'keys')
  tester:asserteq(m:stateDict().num_batches_tracked:dim(), 0, 'a 0-dim counter, as PyTorch\'s')
  m:forward(sins(4, 3))
  local xa = torch.add(torch.mul(coss(5, 3), 2), 1):requiresGrad()
  m(xa)  -- the autograd path counts too
  tester:assertTensorEq(m.running_mean, torch.DoubleTensor({ 0.7148081717673843, 0.6664914855104888, 0.46510329529007366 }),
    1e-12, 'running_mean')
  tester:assertTensorEq(m.running_var, torch.DoubleTensor({ 2.182121008240899, 1.6903720469250096, 0.7656026408432814 }),
    1e-12, 'running_var')
  tester:asserteq(m.num_batches_tracked:item(), 2, 'num_batches_tracked')
  errs(function() m:forward(torch.randn(4, 5):double()) end, 'nn.BatchNorm1d', 'wrong features')
  tester:asserteq(m.num_batches_tracked:item(), 2, 'a refused input is not counted')
  m:evaluate()
  tester:assertalmosteq(dot(m:forward(sins(2, 3)), coss(2, 3)), 0.01594175659092567, 1e-12, 'evaluation')
  tester:asserteq(m.num_batches_tracked:item(), 2, 'evaluation does not count')
  -- a PyTorch state dict with its counter at 3: the next batch weighs 1/4
  local p = nn.BatchNorm1d(3, { momentum = false }):double()
  p:loadStateDict({ weight = torch.ones(3):double(), bias = torch.zeros(3):double(),
    running_mean = torch.DoubleTensor(3):fill(1), running_var = torch.DoubleTensor(3):fill(2),
    num_batches_tracked = torch.LongTensor({ 3 }):view({}) })
  p:forward(sins(4, 3))
  tester:assertTensorEq(p.running_mean, torch.DoubleTensor({ 0.7671139371939186, 0.7623521235830867, 0.7462338245147013 }),
    1e-12, 'loaded running_mean')
  tester:assertTensorEq(p.running_var, torch.DoubleTensor({ 1.5207570637520649, 1.6665540831598755, 1.8103549956125613 }),
    1e-12, 'loaded running_var')
  p:reset()
  tester:asserteq(p.num_batches_tracked:item(), 0, 'reset clears the counter')
  -- saved and loaded, still cumulative; float conversion keeps the counter
  local path = os.tmpname()
  torch.save(path, m)
  local back = torch.load(path)
  os.remove(path)
  tester:assert(back.cumulative and back.num_batches_tracked:item() == 2, 'loaded module')
  tester:asserteq(m:clone():float().num_batches_tracked:item(), 2, 'float')
  -- the others keep PyTorch-loadable state dicts without a counter, as before
  tester:asserteq(nn.BatchNorm1d(3):stateDict().num_batches_tracked, nil, 'momentum 0.1 has no counter')
  errs(function() nn.BatchNorm1d(3, { momentum = 'none' }) end, '[nn.BatchNorm1d] expected momentum to be a number',
    'a string momentum')
end

-- PyTorch's Linear and Bilinear map the last dim of inputs of any shape, and Embedding takes
-- indices of any shape; Tocha refused 3-D inputs (and 0-dim or 3-D indices). Inputs are
-- non-contiguous here (PyTorch's x = sins(2, 5, 4).transpose(0, 1)).
function tests.moreDimsForLinearBilinearEmbedding()
  local m = nn.Linear(4, 3):double()
  m.weight:copy(sins(3, 4))
  m.bias:copy(torch.DoubleTensor({ 0.1, 0.2, 0.3 }))
  local x, go = sins(2, 5, 4):transpose(1, 2), coss(5, 2, 3)
  local function check(y, gi, tag)
    tester:assertTableEq(y:size():totable(), { 5, 2, 3 }, tag .. ' output size')
    tester:assertalmosteq(dot(y, go), 1.9488595975754102, 1e-12, tag .. ' output')
    tester:assertalmosteq(dot(gi, sins(5, 2, 4)), -1.8929226192906994, 1e-12, tag .. ' gradInput')
    tester:assertalmosteq(dot(m.gradWeight, coss(3, 4)), -1.313485283399419, 1e-12, tag .. ' gradWeight')
    tester:assertTensorEq(m.gradBias, torch.DoubleTensor({ 0.3878412206618871, -0.23138255125986884, -0.6378742726286077 }),
      1e-12, tag .. ' gradBias')
  end
  m:zeroGradParameters()
  local y = m:forward(x):clone()
  check(y, m:backward(x, go), 'Torch7')
  m:zeroGradParameters()
  local xa = x:clone():requiresGrad()
  local ya = m(xa)
  torch.cmul(ya, go):sum():backward()
  check(ya, xa.grad, 'autograd')
  tester:assertTableEq(m:forward(torch.randn(7, 4):double()):size():totable(), { 7, 3 }, 'a batch after')
  tester:assertTableEq(nn.Linear(4, 3, false):forward(torch.randn(2, 1, 3, 4)):size():totable(), { 2, 1, 3, 3 }, 'no bias')
  errs(function() m:forward(torch.randn(2, 5, 3):double()) end, 'N1 x N2 x ... x 4), got torch.DoubleTensor of size 2x5x3',
    'wrong last dim')

  local b = nn.Bilinear(2, 3, 4):double()
  b.weight:copy(sins(4, 2, 3))
  b.bias:copy(torch.DoubleTensor({ 0.1, 0.2, 0.3, 0.4 }))
  local x1, x2, gb = sins(2, 3, 2), coss(2, 3, 3), coss(2, 3, 4)
  b:zeroGradParameters()
  local yb = b:forward({ x1, x2 })
  tester:assertTableEq(yb:size():totable(), { 2, 3, 4 }, 'Bilinear output size')
  tester:assertalmosteq(dot(yb, gb), 0.19790082334846826, 1e-12, 'Bilinear output')
  local g = b:backward({ x1, x2 }, gb)
  tester:assertalmosteq(dot(g[1], sins(2, 3, 2)), 0.5124886896538781, 1e-12, 'Bilinear gradInput 1')
  tester:assertalmosteq(dot(g[2], sins(2, 3, 3)), 0.6949138582914933, 1e-12, 'Bilinear gradInput 2')
  tester:assertalmosteq(dot(b.gradWeight, coss(4, 2, 3)), 0.8746202735588365, 1e-12, 'Bilinear gradWeight')
  tester:assertTensorEq(b.gradBias, torch.DoubleTensor({ 0.49513288555027396, -0.0026115873789800403, -0.4979549789159522,
    -0.5354808592746396 }), 1e-12, 'Bilinear gradBias')
  errs(function() b:backward({ x1, x2 }, torch.randn(6, 4):double()) end, 'expected a gradOutput of size 2x3x4',
    'Bilinear gradOutput')

  -- Embedding: PyTorch's padding_idx=1 is paddingIdx = 2 here; indices + 1
  local e = nn.Embedding(6, 3, { paddingIdx = 2, scaleGradByFreq = true }):double()
  e.weight:copy(sins(6, 3))
  local idx = torch.LongTensor({ { { 1, 2 }, { 3, 4 } }, { { 5, 0 }, { 2, 2 } } }):add(1)
  e:zeroGradParameters()
  local ye = e:forward(idx)
  tester:assertTableEq(ye:size():totable(), { 2, 2, 2, 3 }, 'Embedding output size')
  tester:assertTensorEq(ye, e.weight:index(1, idx:view(-1)):view(2, 2, 2, 3), 0, 'Embedding rows')
  e:backward(idx, coss(2, 2, 2, 3))
  tester:assertTensorEq(e.gradWeight:sum(2):view(-1), torch.DoubleTensor({ -1.992510731233803, 0.0, -0.4611312169029976,
    1.5685725071850571, -1.7457760929730786, 1.888037958390522 }), 1e-12, 'Embedding gradWeight')
  tester:assertTableEq(e:forward(torch.LongTensor({ 5 }):view({})):size():totable(), { 3 }, 'a 0-dim index')
  tester:assertTensorEq(e:forward(torch.LongTensor({ 5 }):view({})), e.weight[5], 0, 'a 0-dim index row')
end

-- nn.EmbeddingBag refused PyTorch's includeLastOffset, maxNorm, normType and scaleGradByFreq
-- (nn.functional.embeddingBag had them). Indices are PyTorch's + 1.
function tests.embeddingBagOptions()
  local e = nn.EmbeddingBag(6, 3, { mode = 'max', includeLastOffset = true }):double()
  e.weight:copy(sins(6, 3))
  local idx, off = torch.LongTensor({ 1, 2, 1, 5, 0, 2 }):add(1), torch.LongTensor({ 0, 2, 3, 6 }):add(1)
  e:zeroGradParameters()
  local y = e:forward({ idx, off })
  tester:assertTensorEq(y, torch.DoubleTensor({ { 0.1411200080598672, 0.6569865987187891, 0.9893582466233818 },
    { 0.1411200080598672, -0.7568024953079282, -0.9589242746631385 },
    { 0.6502878401571168, 0.8414709848078965, 0.9893582466233818 } }), 1e-12, 'includeLastOffset')
  e:backward({ idx, off }, coss(3, 3))
  tester:assertTensorEq(e.gradWeight:sum(2):view(-1), torch.DoubleTensor({ 0.7539022543433046, -0.3599739320008311,
    -0.021344564487616235, 0.0, 0.0, 0.960170286650366 }), 1e-12, 'includeLastOffset gradWeight')
  local m = nn.EmbeddingBag(6, 3, { mode = 'sum', maxNorm = 1, normType = 1.5 }):double()
  m.weight:copy(sins(6, 3):mul(2))
  m:zeroGradParameters()
  local b = torch.LongTensor({ { 1, 2, 1 }, { 5, 0, 2 } }):add(1)
  tester:assertTensorEq(m:forward(b), torch.DoubleTensor({ { 0.0031367771047569326, -0.6159945808806242, -0.668783362008916 },
    { 0.272186731853904, 0.8645465943343136, 0.6620463050446498 } }), 1e-12, 'maxNorm output')
  tester:assertTensorEq(m.weight:sum(2):view(-1), torch.DoubleTensor({ 1.259448440082224, -1.127484175541351,
    0.9733271852979186, -2.263785664396633, 1.7484029490421527, -0.4339959941472751 }), 1e-12, 'rows renormalized in place')
  m:backward(b, coss(2, 3))
  tester:assertTensorEq(m.gradWeight:sum(2):view(-1), torch.DoubleTensor({ -1.3599739320008313, 2.248310938641995,
    -0.23581846267983375, 0.0, 0.0, -1.3599739320008313 }), 1e-12, 'maxNorm gradWeight')
  -- scaleGradByFreq: each row's gradient divided by its count among the indices. (PyTorch 1.13's
  -- 1-D-with-offsets path halves index 5 here, which appears once: a PyTorch bug not followed.)
  local f = nn.EmbeddingBag(6, 3, { mode = 'sum', scaleGradByFreq = true }):double()
  f:zeroGradParameters()
  f:forward({ idx, torch.LongTensor({ 0, 2, 2, 5 }):add(1) })
  f:backward({ idx, torch.LongTensor({ 0, 2, 2, 5 }):add(1) }, torch.ones(4, 3):double())
  tester:assertTensorEq(f.gradWeight:select(2, 1), torch.DoubleTensor({ 1, 1, 1, 0, 0, 1 }), 1e-12, 'scaleGradByFreq')
  errs(function() nn.EmbeddingBag(6, 3, { includeLastOffset = 1 }) end, 'includeLastOffset (a boolean)', 'bad flag')
end

-- InstanceNorm*d on one spatial element normalized to zeros and fed a 0 variance to the running
-- statistics; PyTorch 1.13 refuses it ("Expected more than 1 spatial element when training").
function tests.instanceNormOneSpatialElement()
  for nd = 1, 3 do
    local name = 'nn.InstanceNorm' .. nd .. 'd'
    local size = { 2, 3, 1, 1, 1 }
    local x = torch.randn(torch.LongStorage({ unpack(size, 1, nd + 2) })):double()
    local m = nn['InstanceNorm' .. nd .. 'd'](3, { trackRunningStats = true }):double()
    errs(function() m:forward(x) end, '[' .. name .. '] expected more than 1 spatial element when training', name)
    tester:assertTensorEq(m.running_var, torch.ones(3):double(), 0, name .. ' running_var untouched')
    m:evaluate()  -- the running statistics normalize it then, as PyTorch's
    tester:assertTensorEq(m:forward(x), torch.div(x, math.sqrt(1 + 1e-5)), 1e-12, name .. ' evaluation')
    local plain = nn['InstanceNorm' .. nd .. 'd'](3):double()
    plain:evaluate()
    errs(function() plain:forward(x) end, 'more than 1 spatial element',
      name .. ' evaluation without running statistics')
  end
  tester:assertTableEq(nn.InstanceNorm1d(3):forward(torch.randn(3, 2)):size():totable(), { 3, 2 }, 'two elements are fine')
end

-- PyTorch's nn.Embedding.from_pretrained(embeddings, freeze = True, padding_idx...).
function tests.embeddingFromPretrained()
  local w = sins(5, 3)
  local idx = torch.LongTensor({ 1, 2, 2, 5 })
  local m = nn.Embedding.fromPretrained(w)
  tester:asserteq(torch.type(m), 'nn.Embedding')
  tester:assertTensorEq(m.weight, w, 0, 'weight copied')
  tester:assert(m.weight:storage() ~= w:storage() or torch.pointer(m.weight) ~= torch.pointer(w), 'a copy')
  tester:assert(not m.weight:needsGrad(), 'frozen by default')
  tester:assertTensorEq(m:forward(idx), w:index(1, idx), 0, 'lookup')
  local u = nn.Embedding.fromPretrained(w, { freeze = false, paddingIdx = 2 })
  tester:assertTensorEq(u.weight[2], w[2], 0, 'the padding row is kept (PyTorch keeps it)')
  u:zeroGradParameters()
  u:forward(idx)
  u:backward(idx, torch.ones(4, 3):double())
  tester:assertTensorEq(u.gradWeight:sum(2):view(-1), torch.DoubleTensor({ 3, 0, 0, 0, 3 }), 0,
    'no gradient for the padding row')
  tester:assert(nn.Embedding.fromPretrained(w, false).weight:needsGrad(), 'freeze = false')
  errs(function() nn.Embedding.fromPretrained(torch.randn(5)) end, 'nn.Embedding.fromPretrained', 'a vector')
end

tester:add(tests)
tester:run()
