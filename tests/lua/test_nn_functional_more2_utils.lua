-- nn.init's and nn.utils' PyTorch names added by functional_more2_utils.lua: underscore aliases,
-- weightNorm / removeWeightNorm, fuseConvBnWeights (against PyTorch 1.13) / fuseConvBnEval, and
-- nn.utils.rnn's invertPermutation, unpadSequence, unpackSequence.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local D = torch.DoubleTensor

local function X(size, k)
  local n = 1
  for _, d in ipairs(size) do n = n * d end
  return torch.range(0, n - 1):double():mul(0.7):add(k or 0.3):sin():view(torch.LongStorage(size))
end
local function raises(f, pattern, what)
  local ok, err = pcall(f)
  tester:assert(not ok and tostring(err):find(pattern, 1, true) ~= nil, (what or pattern) .. ': got ' .. tostring(err))
end

-- PyTorch 1.13's fuse_conv_bn_weights for the inputs below (float64).
local PT = {
  fuseW = {0.25126230285587203, 0.71545001885954029, 0.84315041177864636, 0.57430399144965416,
      0.035353430194484593, -0.52022440169373596, -0.83113256873488706, -0.75114610189539721,
      -0.31788388635289849, 0.26488408801410807, 0.72307293686003316, 0.84118928517438496, 0.49211962361195016,
      0.018390707284289716, -0.46398764604189935, -0.72814535942762493, -0.64984493268944965,
      -0.2659122800002553, 0.24308307296704945, 0.63775265844016027, 0.73247720348868983, 0.4827062744644694,
      0.0059110420660133511, -0.47366424577866884, -0.3766656125062714, -0.33193461653034795,
      -0.13108958377874713, 0.1314089285552475, 0.33210376846856038, 0.37660501680658293, 0.24398304112475572,
      -0.0033879711382235598, -0.24916556763638698, -0.37775670435576736, -0.32868296040530326,
      -0.12502448436329777, -0.11450321946239266, -0.27931728194340166, -0.31276406227350656,
      -0.19911301704310003, 0.0081839913293910126, 0.21163194070127658, 0.31554608152106023,
      0.27105396965795814, 0.09908094052961211, -0.11949140311221235, -0.28186507276568573,
      -0.31167319443420582},
  fuseB = {1.0382932432584548, 1.049369110765914, 0.31551926547233361, -0.80034446086302591},
  fuseTW = {0.26076505462623695, 0.74250837125084568, 0.87503839886284251, 0.59602419463750089,
      0.03394397920659456, -0.49948438317620808, -0.79799743549246338, -0.7211998248427286,
      -0.33484704627466172, 0.27901903268609285, 0.76165810078192853, 0.88607746284390609, 0.82734237947810363,
      0.030918115829632744, -0.78004742080239897, -1.224144466853895, -0.77249314601657293,
      -0.31609912366586346, 0.28896125572995618, 0.7581186414118064, 0.80554192927361101, 0.53085630754458002,
      0.0065006695187168244, -0.52091233495756206, -0.88133679175582291, -0.77667347454152158,
      -0.30672848639253886, 0.30747570167166155, 1.082763274965312, 1.2278514129672251, 0.79546184574309009,
      -0.011045856968220987, -0.57440478644226256, -0.87084769035687548, -0.75771731812613341,
      -0.28822065152097914, 0.29311388009837264, 0.71501720801703306, 0.80063677055321925, 0.50970434960359423,
      -0.022984264503031138, -0.59435601854796904, -0.88619285000082659, -0.76123933695304524,
      -0.38772995711354885, 0.46760150192850869, 1.1030126681385721, 1.2196597414747057},
  fuseTB = {-0.12691256700419706, -0.22825837903300314, -0.25425426542370128, -0.19299363178625689},
}

function tests.aliases()
  for _, n in ipairs({ 'uniform', 'normal', 'constant', 'zeros', 'ones', 'xavierUniform', 'xavierNormal', 'kaimingUniform',
                       'kaimingNormal', 'orthogonal', 'truncNormal', 'sparse', 'dirac', 'eye' }) do
    tester:assert(nn.init[n .. '_'] == nn.init[n], 'nn.init.' .. n .. '_')
  end
  tester:assert(nn.utils.clipGradNorm_ == nn.utils.clipGradNorm, 'clipGradNorm_')
  tester:assert(nn.utils.clipGradValue_ == nn.utils.clipGradValue, 'clipGradValue_')
  tester:assert(nn.utils.rnn.PackedSequence == nn.PackedSequence, 'rnn.PackedSequence')
  local t = torch.zeros(3, 4)
  tester:assert(nn.init.constant_(t, 2) == t and t:eq(2):all(), 'constant_ fills in place')
end

function tests.weightNorm()
  local lin = nn.Linear(4, 3):double()
  local x = X({ 2, 4 })
  local y0 = lin:forward(x):clone()
  local m = nn.utils.weightNorm(lin)
  tester:assert(torch.isTypeOf(m, 'nn.WeightNorm'), 'returns the wrapper')
  tester:assertTensorEq(m:forward(x), y0, 1e-12, 'same function after wrapping')
  tester:assertTensorEq(m.g, torch.norm(lin.weight, 2, 2):view(-1), 1e-12, 'g = row norms (dim 1, PyTorch dim 0)')
  m.g:mul(2)
  local y1 = m:forward(x):clone()
  local plain = nn.utils.removeWeightNorm(m)
  tester:assert(rawequal(plain, lin), 'removeWeightNorm returns the module')
  tester:assertTensorEq(plain:forward(x), y1, 1e-12, 'the removed module keeps the normalized weight')
  -- in a container, and along the last dim
  local seq = nn.Sequential():add(nn.utils.weightNorm(nn.Linear(4, 3):double(), 'weight', -1)):add(nn.Tanh())
  tester:asserteq(seq.modules[1].outputDim, 2, 'dim -1 is the last')
  local y2 = seq:forward(x):clone()
  nn.utils.removeWeightNorm(seq)
  tester:assert(torch.typename(seq.modules[1]) == 'nn.Linear', 'unwrapped inside the container')
  tester:assertTensorEq(seq:forward(x), y2, 1e-12, 'container output kept')
  raises(function() nn.utils.removeWeightNorm(nn.Sequential():add(nn.Linear(2, 2))) end, 'not found', 'no weight norm')
  raises(function() nn.utils.weightNorm(nn.Tanh()) end, 'with a weight', 'no weight')
  raises(function() nn.utils.weightNorm(nn.Linear(2, 2), 'bias') end, "'weight'", 'other name')
  raises(function() nn.utils.weightNorm(nn.Linear(2, 2), nil, 3) end, 'out of range', 'dim range')
end

function tests.fuseConvBnWeights()
  local w, b = X({ 4, 3, 2, 2 }), X({ 4 }, 0.2)
  local rm, rv = X({ 4 }, 0.5):mul(0.3), X({ 4 }, 0.9):abs():add(0.5)
  local fw, fb = nn.utils.fuseConvBnWeights(w, b, rm, rv, 1e-3, X({ 4 }, 1.3), X({ 4 }, 1.7))
  tester:assertTensorEq(fw:view(-1), D(PT.fuseW), 1e-12, 'weight')
  tester:assertTensorEq(fb, D(PT.fuseB), 1e-12, 'bias')
  fw, fb = nn.utils.fuseConvBnWeights(X({ 3, 4, 2, 2 }), nil, rm, rv, 1e-3, nil, nil, true)
  tester:assertTensorEq(fw:view(-1), D(PT.fuseTW), 1e-12, 'transposed weight')
  tester:assertTensorEq(fb, D(PT.fuseTB), 1e-12, 'transposed bias')
  raises(function() nn.utils.fuseConvBnWeights(X({ 3, 3, 2, 2 }), nil, rm, rv, 1e-3) end, 'channels', 'channel count')
  raises(function() nn.utils.fuseConvBnWeights(w, b, rm, rv) end, 'bnEps', 'no eps')
end

local function bn_eval(n)
  local bn = nn.SpatialBatchNormalization(n):double()
  bn.running_mean:copy(X({ n }, 0.5):mul(0.3))
  bn.running_var:copy(X({ n }, 0.9):abs():add(0.5))
  bn.weight:copy(X({ n }, 1.3))
  bn.bias:copy(X({ n }, 1.7))
  bn:evaluate()
  return bn
end

function tests.fuseConvBnEval()
  local x = X({ 2, 3, 5, 6 })
  for _, c in ipairs({
    { 'conv', nn.SpatialConvolution(3, 4, 3, 3, 1, 1, 1, 1):double() },
    { 'conv without bias', nn.SpatialConvolution(3, 4, 3, 3):noBias():double() },
    { 'transposed conv', nn.SpatialFullConvolution(3, 4, 3, 3, 2, 2):double() },
  }) do
    local conv = c[2]
    conv:evaluate()
    local bn = bn_eval(4)
    local want = bn:forward(conv:forward(x)):clone()
    local fused = nn.utils.fuseConvBnEval(conv, bn)
    tester:assert(not rawequal(fused, conv) and not rawequal(fused.weight, conv.weight), c[1] .. ': a copy')
    tester:assertTensorEq(fused:forward(x), want, 1e-12, c[1])
  end
  local conv = nn.SpatialConvolution(3, 4, 3, 3):double()
  raises(function() nn.utils.fuseConvBnEval(conv, bn_eval(4)) end, 'evaluation mode', 'training conv')
  conv:evaluate()
  raises(function() nn.utils.fuseConvBnEval(conv, nn.Tanh()) end, 'batch normalization', 'not a batch norm')
end

function tests.rnnUtils()
  local perm = torch.LongTensor({ 3, 1, 4, 2 })
  local inv = nn.utils.rnn.invertPermutation(perm)
  tester:assert(inv:equal(torch.LongTensor({ 2, 4, 1, 3 })), 'invertPermutation')
  tester:assert(perm:index(1, inv):equal(torch.range(1, 4):long()), 'perm[inv] = identity')
  tester:asserteq(nn.utils.rnn.invertPermutation(nil), nil, 'nil')
  raises(function() nn.utils.rnn.invertPermutation(torch.Tensor({ 1 })) end, 'LongTensor', 'float perm')
  local seqs = { X({ 2, 3 }), X({ 4, 3 }, 1), X({ 1, 3 }, 2) }
  for _, bf in ipairs({ false, true }) do
    local padded = nn.utils.rnn.padSequence(seqs, bf)
    local back = nn.utils.rnn.unpadSequence(padded, { 2, 4, 1 }, bf)
    for i = 1, 3 do tester:assertTensorEq(back[i], seqs[i], 0, 'unpadSequence ' .. i) end
  end
  local back = nn.utils.rnn.unpackSequence(nn.utils.rnn.packSequence(seqs, false))
  for i = 1, 3 do tester:assertTensorEq(back[i], seqs[i], 0, 'unpackSequence ' .. i) end
  -- gradients flow back through unpadSequence
  local p = X({ 4, 2, 3 }):requiresGrad()
  local parts = nn.utils.rnn.unpadSequence(p, torch.LongTensor({ 4, 2 }))
  torch.add(parts[1]:sum(), parts[2]:sum()):backward()
  tester:asserteq(p.grad:sum(), 18, 'gradient reaches the kept steps only')
  raises(function() nn.utils.rnn.unpadSequence(p:detach(), { 4 }) end, 'lengths for a batch', 'lengths count')
  raises(function() nn.utils.rnn.unpadSequence(p:detach(), { 5, 1 }) end, 'outside', 'length range')
  raises(function() nn.utils.rnn.unpackSequence(p) end, 'PackedSequence', 'not packed')
end

tester:add(tests)
tester:run()
