-- Gradchecks (central differences in f64) for every differentiable op of the op table, plus the
-- composites nn builds on and second-order checks. A test fails if an op marked differentiable in
-- core/ops.def has no case here.
local ffi = require 'ffi'
local tester = torch.Tester()
local tests = torch.TestSuite()
local gc, ggc = torch.autograd.gradcheck, torch.autograd.gradgradcheck
local D, L = torch.DoubleTensor, torch.LongTensor

local function leaf(t) return D(t):requiresGrad() end
local function rnd(...) torch.manualSeed(select('#', ...) * 7 + 1) return torch.rand(...):double():add(0.1):requiresGrad() end
local function check(name, fn, inputs, opts)
  local ok, err = pcall(gc, fn, inputs, opts)
  tester:assert(ok and err, name .. ': ' .. tostring(err))
end

local M = function() return leaf({ { 0.3, 1.7, 0.9 }, { 2.2, 0.5, 1.1 } }) end   -- distinct values
local V = function() return leaf({ 0.4, 1.3, 0.8 }) end

-- op name -> function running its gradchecks (pointwise ops are covered in test_autograd.lua
-- and listed here by name so the coverage check sees them).
local cases = {}
for _, name in ipairs({ 'neg', 'abs', 'sign', 'floor', 'ceil', 'round', 'trunc', 'frac', 'square', 'relu', 'exp',
                        'expm1', 'log', 'log1p', 'log2', 'log10', 'sqrt', 'rsqrt', 'cinv', 'sin', 'cos', 'tan', 'asin',
                        'acos', 'atan', 'sinh', 'cosh', 'tanh', 'sigmoid', 'erf', 'erfc', 'erfinv', 'lgamma',
                        'add', 'csub', 'mul', 'div', 'pow', 'atan2', 'fmod', 'remainder', 'cmax', 'cmin', 'clamp',
                        'addcmul', 'addcdiv', 'lerp', 'where', 'copy' }) do
  cases[name] = 'test_autograd.lua'
end
-- nn's pooling, padding and resampling ops are gradchecked (first and second order) in
-- test_nn_pool_adaptive.lua, test_nn_pool_volumetric.lua, test_nn_padding.lua and test_nn_upsampling.lua.
for _, name in ipairs({ 'adaptiveMaxPool2d', 'adaptiveAvgPool2d', 'adaptiveAvgPool2dBackward', 'maxPool3d', 'avgPool3d',
                        'avgPool3dBackward', 'temporalMaxPool', 'pad', 'padBackward', 'upsample2d',
                        'upsample2dBackward' }) do
  cases[name] = 'test_nn_pool*.lua, test_nn_padding.lua, test_nn_upsampling.lua'
end
cases.rnnLayer = 'test_nn_rnn_grad.lua'  -- gradchecked with the recurrent modules
-- PyTorch's pointwise additions: gradchecked (tensor and number operands) in test_pointwise_extra_grad.lua.
for _, name in ipairs({ 'acosh', 'asinh', 'atanh', 'exp2', 'sinc', 'deg2rad', 'rad2deg', 'logit', 'i0', 'i0e', 'i1',
                        'i1e', 'polygamma', 'hypot', 'xlogy', 'logaddexp', 'logaddexp2', 'copysign', 'fmax', 'fmin' }) do
  cases[name] = 'test_pointwise_extra_grad.lua'
end
cases.det, cases.slogdet = 'test_det.lua', 'test_det.lua'  -- gradchecked (1x1, 3x3, batches, second order, singular)
for _, name in ipairs({ 'linalgCholesky', 'linalgEigh', 'linalgSvd', 'linalgQr' }) do
  cases[name] = 'test_linalg_grad.lua'  -- gradchecked in f64, batched, each output alone and together
end
-- amax/amin (ties), cummax/cummin and logcumsumexp (first and second order): test_stats.lua.
for _, name in ipairs({ 'amax', 'amin', 'cummax', 'cummin', 'logcumsumexp' }) do cases[name] = 'test_stats.lua' end
-- the FFT primitives (every norm, odd and even sizes, n dims, second order): test_fft.lua
for _, name in ipairs({ 'fftC2c', 'fftR2c', 'fftC2r' }) do cases[name] = 'test_fft.lua' end
for _, name in ipairs({ 'conv', 'convTranspose', 'convWeight', 'maxPool2d', 'maxPool2dBackward', 'avgPool2d',
                        'avgPool2dBackward' }) do
  cases[name] = 'test_nn_conv_grad.lua'  -- gradchecked (first and second order) with the conv functions
end
-- The fused softmax family (core/ops/softmax.cpp): rows along the last dim, rows across an inner
-- dim (strided), the first dim, and dtypes without a fused CPU kernel (the composite path).
for _, name in ipairs({ 'softmax', 'logSoftmax' }) do
  cases[name] = function()
    check(name .. ' last dim', function(t) return torch[name](t, 2) end, { M() })
    check(name .. ' inner dim', function(t) return torch[name](t, 2) end, { rnd(2, 3, 4) })
    check(name .. ' first dim', function(t) return torch[name](t, 1) end, { rnd(3, 2, 2) })
    check(name .. ' 0-dim', function(t) return torch[name](t:view({}), 1) end, { leaf({ 0.7 }) })
  end
end
cases.digamma = function() check('digamma', torch.digamma, { V() }) end
for _, name in ipairs({ 'floor', 'ceil', 'round', 'trunc', 'sign' }) do
  cases[name] = function() check(name, torch[name], { leaf({ 0.3, 1.6, -2.4 }) }) end
end

-- ---- reductions ------------------------------------------------------------------------------
cases.sum = function()
  check('sum all', function(x) return x:sum() end, { M() })
  check('sum dim', function(x) return x:sum(2) end, { M() })
  check('sum dim 1', function(x) return torch.sum(x, 1) end, { M() })
end
cases.prod = function()
  check('prod all', function(x) return x:prod() end, { M() })
  check('prod dim', function(x) return x:prod(2) end, { M() })
  check('prod with a zero', function(x) return x:prod(2) end, { leaf({ { 0, 2, 3 }, { 1, 0, 0 } }) })
end
cases.mean = function()
  check('mean all', function(x) return x:mean() end, { M() })
  check('mean dim', function(x) return x:mean(1) end, { M() })
end
cases.var = function()
  check('var all', function(x) return x:var() end, { M() })
  check('var dim biased', function(x) return torch.var(x, 2, true) end, { M() })
end
cases.std = function()
  check('std all', function(x) return x:std() end, { M() })
  check('std dim', function(x) return x:std(1) end, { M() })
end
cases.norm = function()
  for _, p in ipairs({ 2, 1, 3, math.huge }) do
    check('norm p=' .. p, function(x) return x:norm(p) end, { M() })
    check('norm dim p=' .. p, function(x) return torch.norm(x, p, 2) end, { M() })
  end
end
cases.dist = function() check('dist', function(x, y) return torch.dist(x, y, 3) end, { M(), leaf({ 1, 1, 1 }) }) end
cases.logsumexp = function()
  check('logsumexp all', function(x) return x:logsumexp() end, { M() })
  check('logsumexp dim', function(x) return x:logsumexp(2) end, { M() })
end
cases.max = function()
  check('max all', function(x) return x:max() end, { M() })
  check('max dim', function(x) return (torch.max(x, 2)) end, { M() })
end
cases.min = function()
  check('min all', function(x) return x:min() end, { M() })
  check('min dim', function(x) return (torch.min(x, 1)) end, { M() })
end
cases.median = function()
  check('median all', function(x) return x:median() end, { M() })
  check('median dim', function(x) return (torch.median(x, 2)) end, { M() })
end
cases.mode = function() check('mode', function(x) return (torch.mode(x, 2)) end, { M() }) end
cases.kthvalue = function() check('kthvalue', function(x) return (torch.kthvalue(x, 2, 2)) end, { M() }) end
cases.cumsum = function() check('cumsum', function(x) return torch.cumsum(x, 2) end, { M() }) end
cases.cumprod = function() check('cumprod', function(x) return torch.cumprod(x, 1) end, { M() }) end
cases.sort = function() check('sort', function(x) return (torch.sort(x, 2, true)) end, { M() }) end
cases.topk = function() check('topk', function(x) return (torch.topk(x, 2, 2, true)) end, { M() }) end
cases.cross = function() check('cross', function(a, b) return torch.cross(a, b) end, { M():t(), leaf({ { 1, 2 }, { 3, 1 }, { 2, 2 } }) }) end
cases.trace = function() check('trace', function(x) return x:trace() end, { leaf({ { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 9 } }) }) end

-- ---- views -----------------------------------------------------------------------------------
cases.narrow = function() check('narrow', function(x) return x:narrow(2, 2, 2) end, { M() }) end
cases.select = function() check('select', function(x) return x:select(1, 2) end, { M() }) end
cases.transpose = function() check('transpose', function(x) return x:t() end, { M() }) end
cases.permute = function() check('permute', function(x) return x:view(2, 3, 1):permute(3, 1, 2) end, { M() }) end
cases.view = function()
  check('view', function(x) return x:view(3, 2) end, { M() })
  check('squeeze/unsqueeze', function(x) return x:unsqueeze(1):squeeze(1) end, { M() })
  check('reshape of a transpose', function(x) return x:t():reshape(6) end, { M() })
end
cases.expand = function() check('expand', function(x) return x:view(1, 3):expand(4, 3) end, { V() }) end
cases.unfold = function() check('unfold', function(x) return x:unfold(1, 2, 1) end, { leaf({ 1, 2, 3, 4, 5 }) }) end
cases.asStrided = function()
  check('asStrided (overlapping)', function(x) return x:asStrided({ 3, 2 }, { 1, 1 }, 1) end, { leaf({ 1, 2, 3, 4 }) })
  -- an input whose elements share storage (expanded): each copy gets its share of the storage
  -- gradient (Note [as_strided gradients of overlapping inputs]); each copy had got all of it
  check('asStrided of an expanded input', function(x) return x:view(1, 3):expand(4, 3):asStrided({ 2, 2 }, { 1, 1 }, 1) end,
    { leaf({ 0.5, -1, 2 }) })
  local x = leaf({ 1, 2, 3 })
  x:view(1, 3):expand(3, 3):asStrided({ 3 }, { 1 }, 1):sum():backward()
  tester:eq(x.grad:totable(), { 1, 1, 1 })
end

-- ---- indexing and joining ---------------------------------------------------------------------
cases.index = function() check('index', function(x) return x:index(2, L({ 3, 1, 3 })) end, { M() }) end
cases.indexCopy = function()
  check('indexCopy', function(x, s) return torch.indexCopy(x, 2, L({ 3, 1 }), s) end, { M(), leaf({ { 1, 2 }, { 3, 4 } }) })
end
cases.indexAdd = function()
  check('indexAdd', function(x, s) return torch.indexAdd(x, 2, L({ 3, 3 }), s) end, { M(), leaf({ { 1, 2 }, { 3, 4 } }) })
end
cases.indexFill = function() check('indexFill', function(x) return torch.indexFill(x, 2, L({ 2 }), 7) end, { M() }) end
cases.gather = function()
  check('gather', function(x) return torch.gather(x, 2, L({ { 1, 1 }, { 3, 2 } })) end, { M() })
end
cases.scatter = function()
  check('scatter', function(x, s) return torch.scatter(x, 2, L({ { 1, 3 }, { 2, 1 } }), s) end, { M(), leaf({ { 9, 8 }, { 7, 6 } }) })
  check('scatter value', function(x) return torch.scatter(x, 2, L({ { 1 }, { 2 } }), 5) end, { M() })
end
cases.scatterAdd = function()
  check('scatterAdd', function(x, s) return torch.scatterAdd(x, 2, L({ { 1, 1 }, { 2, 3 } }), s) end, { M(), leaf({ { 9, 8 }, { 7, 6 } }) })
end
-- scatterReduce's own suite (test_scatter_reduce.lua) checks every reduction; amax with distinct values here.
cases.scatterReduce = function()
  check('scatterReduce', function(x, s) return torch.scatterReduce(x, 2, L({ { 1, 1 }, { 2, 3 } }), s, 'amax') end,
    { leaf({ { 1, 2, 3 }, { 4, 5, 6 } }), leaf({ { 9, 8 }, { 7, 0.5 } }) })
end
local mask = torch.ByteTensor({ { 1, 0, 1 }, { 0, 1, 0 } })
cases.maskedSelect = function() check('maskedSelect', function(x) return x:maskedSelect(mask) end, { M() }) end
cases.maskedCopy = function()
  check('maskedCopy', function(x, s) return torch.maskedCopy(x, mask, s) end, { M(), leaf({ 5, 6, 7, 8 }) })
end
cases.maskedFill = function() check('maskedFill', function(x) return torch.maskedFill(x, mask, 2) end, { M() }) end
cases.cat = function()
  check('cat', function(a, b) return torch.cat(a, b, 1) end, { M(), leaf({ { 1, 2, 3 } }) })
  check('cat of vectors into columns', function(a, b) return torch.cat(a, b, 2) end, { V(), leaf({ 7, 8, 9 }) })
  check('stack', function(a, b) return torch.stack({ a, b }, 2) end, { V(), leaf({ 7, 8, 9 }) })
end
cases.diag = function()
  check('diag of a vector', function(x) return torch.diag(x, 1) end, { V() })
  check('diag of a matrix', function(x) return torch.diag(x, 1) end, { M() })
end
cases.tril = function() check('tril', function(x) return torch.tril(x) end, { M() }) end
cases.triu = function() check('triu', function(x) return torch.triu(x, 1) end, { M() }) end

-- ---- linear algebra ---------------------------------------------------------------------------
cases.dot = function() check('dot', function(a, b) return torch.dot(a, b) end, { V(), leaf({ 2, -1, 0.5 }) }) end
cases.mv = function() check('mv', function(m, v) return torch.mv(m, v) end, { M(), V() }) end
cases.mm = function() check('mm', function(a, b) return torch.mm(a, b) end, { M(), M():t() }) end
cases.bmm = function() check('bmm', function(a, b) return torch.bmm(a, b) end, { rnd(2, 2, 3), rnd(2, 3, 2) }) end
cases.ger = function() check('ger', function(a, b) return torch.ger(a, b) end, { V(), leaf({ 1, 2 }) }) end
cases.addmm = function()
  check('addmm', function(c, a, b) return torch.addmm(0.5, c, 2, a, b) end, { rnd(2, 2), M(), M():t() })
end
cases.addmv = function()
  check('addmv', function(c, m, v) return torch.addmv(0.5, c, 2, m, v) end, { leaf({ 1, 2 }), M(), V() })
end
cases.addr = function() check('addr', function(c, a, b) return torch.addr(0.5, c, 2, a, b) end, { rnd(3, 2), V(), leaf({ 1, 2 }) }) end
cases.addbmm = function()
  check('addbmm', function(c, a, b) return torch.addbmm(0.5, c, 2, a, b) end, { rnd(2, 2), rnd(2, 2, 3), rnd(2, 3, 2) })
end
cases.baddbmm = function()
  check('baddbmm', function(c, a, b) return torch.baddbmm(0.5, c, 2, a, b) end, { rnd(2, 2, 2), rnd(2, 2, 3), rnd(2, 3, 2) })
end
-- the triangular solve reads one triangle (the other gets a zero gradient) and works on batches
cases.trtrs = function()
  local U = function() return leaf({ { 2, 0.5, -1 }, { 9, 3, 0.7 }, { -4, 8, 1.5 } }) end
  local B = function() return leaf({ { 1, 2 }, { 3, 4 }, { -1, 0.5 } }) end
  check('trtrs', function(b, a) return (torch.trtrs(b, a)) end, { B(), U() })
  check('trtrs lower transposed unit', function(b, a) return (torch.trtrs(b, a, 'L', 'T', 'U')) end, { B(), U() })
  check('solveTriangular right', function(a, b)
    return torch.linalg.solveTriangular(a, b, { upper = false, left = false })
  end, { U(), leaf({ { 1, 2, 3 }, { -1, 0.5, 2 } }) })
  torch.manualSeed(5)
  local Ab = torch.rand(2, 3, 3):double():add(torch.eye(3):double():mul(2):view(1, 3, 3):expand(2, 3, 3)):requiresGrad()
  check('solveTriangular batch, broadcast B', function(a, b) return torch.linalg.solveTriangular(a, b, { upper = true }) end,
    { Ab, torch.rand(3, 2):double():requiresGrad() })
  tester:assert(ggc(function(b, a) return (torch.trtrs(b, a, 'U', 'T')) end, { B(), U() }), 'trtrs second order')
end
cases.gesv = function()
  check('gesv', function(b, a) return (torch.gesv(b, a)) end, { leaf({ { 1, 2 }, { 3, 4 } }), leaf({ { 4, 1 }, { 2, 3 } }) })
  check('gesv vector', function(b, a) return (torch.gesv(b, a)) end, { leaf({ 1, 2 }), leaf({ { 4, 1 }, { 2, 3 } }) })
end
cases.inverse = function() check('inverse', function(a) return torch.inverse(a) end, { leaf({ { 4, 1 }, { 2, 3 } }) }) end
cases.batchNorm = function()  -- more cases in test_nn_norm.lua
  local rm, rv = D({ 0.1, -0.2, 0.3 }), D({ 0.5, 1.5, 2 })
  check('batchNorm train', function(x, w, b) return torch.batchNorm(x, nil, nil, w, b, true) end,
    { rnd(4, 3, 2), V(), leaf({ 0.1, 0.2, 0.3 }) })
  check('batchNorm eval', function(x, w, b) return torch.batchNorm(x, rm, rv, w, b, false) end,
    { rnd(4, 3), V(), leaf({ 0.1, 0.2, 0.3 }) })
end
cases.layerNorm = function()  -- fused kernels; more cases in test_nn_norm_layers.lua
  check('layerNorm', function(t, w, b) return torch.layerNorm(t, 1, w, b) end, { M(), V(), leaf({ 0.1, 0.2, 0.3 }) })
  check('layerNorm 2 dims', function(t, w) return torch.layerNorm(t, 2, w, nil, 1e-3) end, { rnd(2, 3, 4), rnd(3, 4) })
  check('layerNorm no affine', function(t) return torch.layerNorm(t, 1) end, { rnd(5, 4) })
  check('layerNorm 1-d', function(t, b) return torch.layerNorm(t, 1, nil, b) end, { rnd(6), rnd(6) })
end

-- ---- fused class losses (core/ops/loss.h), first and second order ---------------------------
local function class_losses(name)
  local t, w = L({ 2, 3 }), D({ 0.5, 2, 1 })
  for _, opts in ipairs({ {}, { weights = w }, { sizeAverage = false }, { ignoreIndex = 3 } }) do
    check(name, function(x) return torch[name](x, t, opts) end, { M() })
    local good, err = pcall(ggc, function(x) return torch[name](x, t, opts) end, { M() })
    tester:assert(good and err, name .. ' second order: ' .. tostring(err))
  end
  check(name .. ' vector', function(x) return torch[name](x, 2) end, { V() })
end
cases.nllLoss = function() class_losses('nllLoss') end
cases.crossEntropy = function() class_losses('crossEntropy') end

function tests.everyDifferentiableOpHasACase()
  local C = torch._lib.C
  for i = 0, C.tocha_op_count() - 1 do
    if C.tocha_op_differentiable(i) ~= 0 then
      local name = ffi.string(C.tocha_op_name(i))
      tester:assert(cases[name] ~= nil, 'op ' .. name .. ' is differentiable but has no gradcheck case')
    end
  end
end

function tests.gradchecks()
  local names = {}
  for name, f in pairs(cases) do if type(f) == 'function' then names[#names + 1] = name end end
  table.sort(names)
  for _, name in ipairs(names) do cases[name]() end
end

function tests.composites()
  local x = M()
  check('softmax', function(t) return torch.softmax(t, 2) end, { x })
  check('logSoftmax', function(t) return torch.logSoftmax(t, 1) end, { x })
  check('gelu', torch.gelu, { leaf({ -1.5, 0.3, 2 }) })
  check('silu', torch.silu, { leaf({ -1.5, 0.3, 2 }) })
  check('elu', function(t) return torch.elu(t, 0.7) end, { leaf({ -1.5, 0.3, 2 }) })
  check('selu', torch.selu, { leaf({ -1.5, 0.3, 2 }) })
  check('leakyRelu', function(t) return torch.leakyRelu(t, 0.1) end, { leaf({ -1.5, 0.3, 2 }) })
  check('softplus', function(t) return torch.softplus(t, 2) end, { leaf({ -1.5, 0.3, 2 }) })
  -- softplus' gradient is sigmoid(beta x): 0.5 at exactly 0 (relu' and abs' are 0 there, and an
  -- earlier form gave 0), 0 far left, 1 far right (past the threshold)
  local z = leaf({ 0, -800, 30 })
  torch.softplus(z, 2):sum():backward()
  tester:eq(z.grad:totable(), { 0.5, 0, 1 })
  -- flip (index_selects, Note [Flip as index_select]): one dim, several, none, non-contiguous
  check('flip', function(t) return torch.flip(t, 2) end, { M() })
  check('flip 3 dims', function(t) return t:flip(1, 3, 4) end, { rnd(2, 3, 2, 2) })
  check('flip no dims', function(t) return t:flip({}) end, { V() })
  check('flip transposed', function(t) return t:t():flip(-1) end, { M() })
  check('fliplr', torch.fliplr, { M() })
  check('flipud', torch.flipud, { V() })
  tester:eq(torch.softmax(D({ 1, 2, 3 })):sum(), 1, 1e-12)
  tester:eq(torch.logSoftmax(D({ 1000, 0 })), D({ 0, -1000 }), 1e-9)
end

function tests.secondOrder()
  local function ok(name, f, inputs)
    local good, err = pcall(ggc, f, inputs)
    tester:assert(good and err, name .. ': ' .. tostring(err))
  end
  ok('mm', function(a, b) return torch.mm(a, b) end, { M(), M():t() })
  ok('softmax', function(t) return torch.softmax(t, 2) end, { M() })
  ok('logSoftmax', function(t) return torch.logSoftmax(t, 2) end, { M() })
  ok('softmax inner dim', function(t) return torch.softmax(t, 2) end, { rnd(2, 3, 4) })
  ok('logSoftmax inner dim', function(t) return torch.logSoftmax(t, 2) end, { rnd(2, 3, 4) })
  ok('narrow', function(t) return torch.cmul(t:narrow(2, 2, 2), t:narrow(2, 1, 2)) end, { M() })
  ok('sum', function(t) return torch.cmul(t, t):sum(2) end, { M() })
  ok('flip', function(t) return torch.cmul(t:flip(1, 2), t) end, { M() })
  ok('layerNorm', function(t, w, b) return torch.layerNorm(t, 1, w, b) end, { M(), V(), leaf({ 0.1, 0.2, 0.3 }) })
  ok('layerNorm 2 dims', function(t, w) return torch.layerNorm(t, 2, w) end, { rnd(2, 2, 3), rnd(2, 3) })
  ok('batchNorm', function(t, w, b) return torch.batchNorm(t, nil, nil, w, b, true) end,
    { rnd(4, 3, 2), V(), leaf({ 0.1, 0.2, 0.3 }) })
end

tester:add(tests)
tester:run()
