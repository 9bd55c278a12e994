-- nn.TransformerEncoderLayer, nn.TransformerDecoderLayer, nn.TransformerEncoder, nn.TransformerDecoder and
-- nn.Transformer: outputs against PyTorch 1.13's (deterministic weights by parameter name) and against the same
-- computation composed from the layers' child modules; Jacobians and gradchecks in f64; Torch7's backward
-- against autograd with dropout (the same masks); masks, batchFirst, state dict names, errors.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local precision = 1e-6

local function rnd(...) return torch.randn(...):double() end

-- Every tensor of the state dict filled with 0.5 sin(k + h(name)) (the same fill as the PyTorch script).
local function fill(m)
  for name, t in pairs(m:stateDict()) do
    local h = 0
    for c in name:gmatch('.') do h = (h * 31 + c:byte()) % 1000 end
    t:copy(torch.range(1, t:nElement()):double():add(h):sin():mul(0.5):viewAs(t))
  end
end

-- PyTorch 1.13, float64, eval(): torch.nn.TransformerEncoderLayer(4, 2, dim_feedforward=6,
-- dropout=0, activation='gelu', norm_first=False / True) and TransformerDecoderLayer(4, 2,
-- dim_feedforward=6, dropout=0) filled as above, on x = cos(0.7 k) (3x2x4), memory = sin(0.3 k)
-- (5x2x4) and a causal tgt_mask.
local PT = {
  -- Transformer(4, 2, num_encoder_layers=2, num_decoder_layers=2, dim_feedforward=6, dropout=0) on
  -- src = sin(0.3 k) (5x2x4), tgt = cos(0.7 k) (3x2x4), tgt_mask = generate_square_subsequent_mask(3)
  transformer = {
    0.5993159118193657, 0.5280089101973005, -0.3899643192172536, -0.13877900224960282,
    0.6014160001136716, 0.5216071396993777, -0.38739354114487445, -0.13787832553124618,
    0.5991783173775524, 0.5285364354972966, -0.3902281520215473, -0.13886424176173923,
    0.6013900445226996, 0.5216930493408442, -0.38743077793587694, -0.13789071794497282,
    0.5990544473654078, 0.5287463463201738, -0.39023670197661725, -0.13888027810736642,
    0.6011126283385154, 0.5225593519962973, -0.38778498477240636, -0.13801206105418945,
  },
  -- TransformerDecoder(TransformerDecoderLayer(4, 2, dim_feedforward=6, dropout=0, norm_first=True), 2,
  -- norm=LayerNorm(4)) with memory_key_padding_mask[2][5] = True
  decoderStack = {
    1.0955354870169483, -0.14010844686296844, -0.416416050462302, 0.14692307796568663,
    0.7638285394320681, -0.7248698962128118, -0.500419174675891, -0.659721266729084,
    1.0634410411487683, -0.10909537172183624, -0.4285791759752316, 0.2060489745336151,
    1.0545973158134165, -0.5875179570141932, -0.43958648559214075, -0.42394057560706055,
    1.0537558433858627, -0.12218171376288764, -0.4439177303039264, 0.23784941268722642,
    1.166368025948078, -0.36778676037079966, -0.4186437078379857, -0.09217665221971401,
  },
  postNormGelu = {
    0.49403152438094217, 0.023324226525994574, -0.75461974242754948, -0.41612388378640991,
    0.44364063366538031, 0.43929823831263604, -0.82907425924367262, -0.41585161366656781,
    0.49279154823628485, 0.047942262290007705, -0.80017193198634085, -0.41644249935994776,
    0.44905380136326772, 0.4089468523240023, -0.91469281372067612, -0.41673813924269693,
    0.48783785959168996, 0.10809647247429766, -0.85114587557518195, -0.41669272138579799,
    0.49395610437838078, 0.033599758647762726, -0.84553068930922415, -0.41699643748401394,
  },
  preNormGelu = {
    0.86382609844286184, 0.78969650216446974, -1.001680594118624, -2.5671285018356791,
    -0.83592958354417568, 0.16892063117487938, -0.42178609356413266, -0.81858497241057904,
    1.0794581449647231, 1.3570831114082686, -0.35689809291190766, -2.1534582391673536,
    -0.87092283303617657, -0.28533156702347984, -1.0853184096246602, -1.3796581052623145,
    0.83719584717455175, 1.5784745656758394, 0.21256494615259297, -1.5113331551596856,
    -0.42082868121769335, -0.27617695984862373, -1.5038541000543437, -2.0194256659587673,
  },
  decoderMasked = {
    -0.33423895873030768, -0.38490899596800582, -0.51504944573393785, -0.73190656924168307,
    -0.21173755422776996, -0.52301840904336605, -0.51757597044147063, -0.72402555254561973,
    -0.32905130794364568, -0.39183209945977943, -0.51518704494128831, -0.73222287351622406,
    -0.23414357910415307, -0.50065630547349083, -0.51736924235473281, -0.72439484793308773,
    -0.31601693047417123, -0.40874030867055672, -0.51550452894257837, -0.73295840159218995,
    -0.32378446835553171, -0.39849918627538278, -0.51543838760328542, -0.7303311529918981,
  },
}

function tests.matchesPyTorch()
  local x = torch.range(1, 24):double():mul(0.7):cos():view(3, 2, 4)
  for _, case in ipairs({ { false, PT.postNormGelu }, { true, PT.preNormGelu } }) do
    local l = nn.TransformerEncoderLayer(4, 2, { dimFeedforward = 6, dropout = 0, normFirst = case[1],
                                                 activation = 'gelu' }):double()
    fill(l)
    tester:assertTensorEq(l:forward(x):view(-1), torch.DoubleTensor(case[2]), 1e-12)
  end
  local d = nn.TransformerDecoderLayer(4, 2, { dimFeedforward = 6, dropout = 0 }):double()
  fill(d)
  local mem = torch.range(1, 40):double():mul(0.3):sin():view(5, 2, 4)
  local mask = torch.ByteTensor(3, 3):zero()
  mask[1][2], mask[1][3], mask[2][3] = 1, 1, 1
  tester:assertTensorEq(d:forward({ x, mem, tgtMask = mask }):view(-1), torch.DoubleTensor(PT.decoderMasked), 1e-12)
  -- the same mask as an additive float mask
  local add = torch.DoubleTensor(3, 3):zero():maskedFill(mask, -math.huge)
  tester:assertTensorEq(d:forward({ x, mem, tgtMask = add }):view(-1), torch.DoubleTensor(PT.decoderMasked), 1e-12)
end

function tests.decoderStack()
  local x = torch.range(1, 24):double():mul(0.7):cos():view(3, 2, 4)
  local mem = torch.range(1, 40):double():mul(0.3):sin():view(5, 2, 4)
  local dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(4, 2, { dimFeedforward = 6, dropout = 0,
                                                                      normFirst = true }), 2,
    nn.LayerNormalization(4)):double()
  fill(dec)
  local n = 0
  for _ in pairs(dec:stateDict()) do n = n + 1 end
  tester:asserteq(n, 38)
  local kpm = torch.ByteTensor(2, 5):zero()
  kpm[2][5] = 1
  tester:assertTensorEq(dec:forward({ x, mem, memoryKeyPaddingMask = kpm }):view(-1), torch.DoubleTensor(PT.decoderStack),
    1e-12)
  -- gradients reach both the target and the memory, through every layer
  local ok, err = pcall(torch.autograd.gradcheck, function(t, m) return dec:forward({ t, m }) end,
    { torch.randn(2, 1, 4):double():requiresGrad(), torch.randn(3, 1, 4):double():requiresGrad() })
  tester:assert(ok and err == true, tostring(err))
  -- dropout: Torch7's backward replays the masks of the forward
  torch.manualSeed(7)
  local d2 = nn.TransformerDecoder(nn.TransformerDecoderLayer(4, 2, { dimFeedforward = 6, dropout = 0.4 }), 2):double()
  local t, m = torch.randn(3, 2, 4):double():requiresGrad(), mem:clone():requiresGrad()
  local out = d2:forward({ t, m })
  local go = torch.randn(3, 2, 4):double()
  local gi = d2:backward({ t, m }, go)
  torch.cmul(out, go):sum():backward()
  tester:assertTensorEq(gi[1], t.grad, 1e-10)
  tester:assertTensorEq(gi[2], m.grad, 1e-10)
  tester:assertErrorPattern(function() nn.TransformerDecoder(nn.TransformerEncoderLayer(4, 2), 2) end,
    'expected an nn.TransformerDecoderLayer')
end

function tests.transformerModel()
  local src = torch.range(1, 40):double():mul(0.3):sin():view(5, 2, 4)
  local tgt = torch.range(1, 24):double():mul(0.7):cos():view(3, 2, 4)
  local m = nn.Transformer(4, 2, { numEncoderLayers = 2, numDecoderLayers = 2, dimFeedforward = 6, dropout = 0 }):double()
  fill(m)
  local n = 0
  for _ in pairs(m:stateDict()) do n = n + 1 end
  tester:asserteq(n, 64)
  tester:assert(torch.isTensor(m:stateDict()['decoder.layers.1.multihead_attn.in_proj_weight']))
  local causal = nn.Transformer.generateSquareSubsequentMask(3)
  local inf = math.huge
  tester:assertTensorEq(causal:double(), torch.DoubleTensor({ { 0, -inf, -inf }, { 0, 0, -inf }, { 0, 0, 0 } }), 0)
  tester:assertTensorEq(m:forward({ src, tgt, tgtMask = causal }):view(-1), torch.DoubleTensor(PT.transformer), 1e-12)
  -- with dropout, Torch7's backward ({gradSrc, gradTgt}) equals autograd's
  torch.manualSeed(8)
  local d = nn.Transformer(4, 2, { numEncoderLayers = 1, numDecoderLayers = 2, dimFeedforward = 6, dropout = 0.3,
                                   batchFirst = true }):double()
  local s, t = torch.randn(2, 5, 4):double():requiresGrad(), torch.randn(2, 3, 4):double():requiresGrad()
  local input = { s, t, tgtMask = causal }
  local out = d:forward(input)
  local go = torch.randn(2, 3, 4):double()
  d:zeroGradParameters()
  local gi = d:backward(input, go)
  local _, grads = d:parameters()
  local pg = {}
  for k, g in ipairs(grads) do pg[k] = g:clone() end
  d:zeroGradParameters()
  torch.cmul(out, go):sum():backward()
  tester:assertTensorEq(gi[1], s.grad, 1e-10)
  tester:assertTensorEq(gi[2], t.grad, 1e-10)
  for k, g in ipairs(grads) do tester:assertTensorEq(g, pg[k], 1e-10, 'parameter ' .. k) end
  tester:asserteq(tostring(m), 'nn.Transformer(4, 2 heads, 2 encoder and 2 decoder layers)')
  tester:assertErrorPattern(function() m:forward(src) end, 'expected a table {src, tgt')
  tester:assertErrorPattern(function() m:forward({ src, tgt, mask = causal }) end, 'unknown input field mask')
  tester:assertErrorPattern(function() nn.Transformer(4, 2, { numLayers = 2 }) end, 'unknown option numLayers')
end

-- nn.Transformer re-draws every weight of two or more dims from xavier_uniform (PyTorch's
-- _reset_parameters), bound sqrt(6 / (fan_in + fan_out)); biases and norms keep the layers' values.
function tests.transformerXavierInit()
  torch.manualSeed(3)
  local m = nn.Transformer(64, 4, { numEncoderLayers = 1, numDecoderLayers = 1, dimFeedforward = 256 }):double()
  local function check(state)
    for name, p in pairs(state) do
      p = p:detach()  -- full reductions of a parameter are 0-dim tensors in grad mode
      if p:dim() == 2 then
        local a = math.sqrt(6 / (p:size(1) + p:size(2)))
        local top = p:clone():abs():max()
        tester:assertle(top, a, name)
        tester:assertge(top, 0.95 * a, name .. ' is drawn over the whole xavier range')
        -- the variance of uniform(-a, a) is a^2 / 3
        tester:assertalmosteq(p:var(), a * a / 3, 0.1 * a * a / 3, name)
      elseif name:match('proj_?%.?bias$') then  -- the attention's biases start at zero
        tester:asserteq(p:clone():abs():max(), 0, name)
      elseif name:match('linear%d%.bias$') then  -- nn.Linear's: bound 1/sqrt(fan_in)
        local fan_in = state[name:gsub('bias$', 'weight')]:size(2)
        tester:assertle(p:clone():abs():max(), 1 / math.sqrt(fan_in), name)
      elseif name:match('norm%d?%.weight$') then
        tester:asserteq(p:min(), 1, name)
      end
    end
  end
  check(m:stateDict())
  -- reset() draws again, the same way
  local before = m:stateDict()['encoder.layers.0.linear2.weight']:clone()
  m:reset()
  check(m:stateDict())
  tester:assertgt((m:stateDict()['encoder.layers.0.linear2.weight']:detach() - before):abs():max(), 0)
  -- a layer on its own keeps nn.Linear's default (uniform, bound 1/sqrt(fan_in))
  local l = nn.TransformerEncoderLayer(64, 4, { dimFeedforward = 256 }):double()
  tester:assertle(l.linear2.weight:detach():clone():abs():max(), 1 / math.sqrt(256))
end

-- The encoder layer composed from its children's Torch7 modules (post-norm, relu).
local function composed(l, x, kpm)
  local sa = l.selfAttn:forward(kpm and { x, keyPaddingMask = kpm } or x):clone()
  local h = l.norm1:forward(torch.add(x, sa)):clone()
  local L, N, E = h:size(1), h:size(2), h:size(3)
  local f = l.linear1:forward(h:view(L * N, E)):clone():clamp(0, math.huge)
  f = l.linear2:forward(f):clone():view(L, N, E)
  return l.norm2:forward(torch.add(h, f)):clone()
end

function tests.composedFromChildren()
  torch.manualSeed(1)
  local l = nn.TransformerEncoderLayer(8, 4, { dimFeedforward = 16 }):double()
  l:evaluate()
  local x = rnd(5, 3, 8)
  tester:assertTensorEq(l:forward(x), composed(l, x), 1e-12)
  local kpm = torch.ByteTensor(3, 5):zero()
  kpm[2][5], kpm[3][1] = 1, 1
  tester:assertTensorEq(l:forward({ x, srcKeyPaddingMask = kpm }), composed(l, x, kpm), 1e-12)
  -- batchFirst and unbatched inputs give the same numbers
  local lb = nn.TransformerEncoderLayer(8, 4, { dimFeedforward = 16, batchFirst = true }):double()
  lb:evaluate()
  lb:loadStateDict(l:stateDict())
  tester:assertTensorEq(lb:forward(x:transpose(1, 2):contiguous()):transpose(1, 2), l:forward(x), 1e-12)
  tester:assertTensorEq(l:forward(x[{ {}, 2 }]), l:forward(x)[{ {}, 2 }], 1e-12)
  -- a function as the activation
  local lf = nn.TransformerEncoderLayer(8, 4, { dimFeedforward = 16, activation = function(h) return torch.relu(h) end })
  lf:double():evaluate()
  lf:loadStateDict(l:stateDict())
  tester:assertTensorEq(lf:forward(x), l:forward(x), 1e-14)
  tester:asserteq(tostring(lf), 'nn.TransformerEncoderLayer(8, 4 heads, ff 16, dropout 0.1, custom activation)')
end

function tests.gradients()
  torch.manualSeed(2)
  for _, nf in ipairs({ false, true }) do
    local l = nn.TransformerEncoderLayer(4, 2, { dimFeedforward = 6, normFirst = nf }):double()
    l:evaluate()
    tester:assertlt(nn.Jacobian.testJacobian(l, rnd(3, 2, 4)), precision)
    local ps, gs = l:parameters()
    tester:asserteq(#ps, 12)
    for _, k in ipairs({ 1, 2, 5, 8, 11 }) do
      tester:assertlt(nn.Jacobian.testJacobianParameters(l, rnd(3, 2, 4), ps[k], gs[k]), precision, 'parameter ' .. k)
    end
  end
  local d = nn.TransformerDecoderLayer(4, 2, { dimFeedforward = 6, activation = 'gelu' }):double()
  d:evaluate()
  local mem = rnd(5, 2, 4)
  local ok, err = pcall(torch.autograd.gradcheck, function(t, m) return d:forward({ t, m }) end,
    { rnd(3, 2, 4):requiresGrad(), mem:requiresGrad() })
  tester:assert(ok and err == true, tostring(err))
  -- Torch7's backward of a table input: {gradTgt, gradMemory}
  local t = rnd(3, 2, 4)
  d:forward({ t, mem })
  local gi = d:backward({ t, mem }, rnd(3, 2, 4))
  tester:asserteq(#gi, 2)
  tester:assertTableEq(gi[2]:size():totable(), { 5, 2, 4 })
end

function tests.dropoutIsSharedByBothBackwardPaths()
  torch.manualSeed(3)
  local enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, { dimFeedforward = 12, dropout = 0.3 }), 2,
    nn.LayerNormalization(8)):double()
  local x = rnd(4, 3, 8):requiresGrad()
  local out = enc:forward(x)
  local go = rnd(4, 3, 8)
  enc:zeroGradParameters()
  local gi = enc:backward(x, go):clone()
  local _, grads = enc:parameters()
  local pg = {}
  for k, g in ipairs(grads) do pg[k] = g:clone() end
  enc:zeroGradParameters()
  torch.cmul(out, go):sum():backward()
  tester:assertTensorEq(x.grad, gi, 1e-10)
  for k, g in ipairs(grads) do tester:assertTensorEq(g, pg[k], 1e-10, 'parameter ' .. k) end
  -- training draws new masks; evaluation is deterministic
  tester:assertgt((enc:forward(x:detach()) - out:detach()):abs():max(), 0)
  enc:evaluate()
  tester:assertTensorEq(enc:forward(x:detach()), enc:forward(x:detach()), 0)
  tester:assertErrorPattern(function() enc:training() enc:forward(x:detach()) enc:backward(rnd(4, 3, 8), go) end,
    'backward got another input than the last forward')
end

function tests.encoderStackAndStateDict()
  torch.manualSeed(4)
  local layer = nn.TransformerEncoderLayer(8, 2, { dimFeedforward = 12, dropout = 0 }):double()
  local enc = nn.TransformerEncoder(layer, 3):double()
  -- independent copies: the stack equals its layers applied in turn
  local x = rnd(4, 2, 8)
  local want = x
  for i = 1, 3 do want = enc.layers.modules[i]:forward(want):clone() end
  tester:assertTensorEq(enc:forward(x), want, 1e-12)
  local w2 = enc.layers.modules[2].linear1.weight:clone()
  enc.layers.modules[1].linear1.weight:add(1)
  tester:assertTensorEq(enc.layers.modules[2].linear1.weight, w2, 0)
  tester:asserteq(#enc:parameters(), 36)
  local keys = {}
  for k in pairs(layer:stateDict()) do keys[#keys + 1] = k end
  table.sort(keys)
  tester:assertTableEq(keys, { 'linear1.bias', 'linear1.weight', 'linear2.bias', 'linear2.weight', 'norm1.bias',
    'norm1.weight', 'norm2.bias', 'norm2.weight', 'self_attn.in_proj_bias', 'self_attn.in_proj_weight',
    'self_attn.out_proj.bias', 'self_attn.out_proj.weight' })
  local sd = nn.TransformerEncoder(layer, 2, nn.LayerNormalization(8)):stateDict()
  tester:assert(torch.isTensor(sd['layers.1.self_attn.in_proj_weight']))
  tester:assert(torch.isTensor(sd['norm.weight']))
  local dkeys = 0
  for _ in pairs(nn.TransformerDecoderLayer(8, 2):stateDict()) do dkeys = dkeys + 1 end
  tester:asserteq(dkeys, 18)
  -- conversion and printing
  tester:asserteq(torch.type(nn.TransformerEncoderLayer(8, 2):float():forward(torch.randn(3, 2, 8))), 'torch.FloatTensor')
  tester:asserteq(tostring(layer), 'nn.TransformerEncoderLayer(8, 2 heads, ff 12, dropout 0, relu)')
end

-- Review regression: the encoder layer ignored unknown input fields, so a misspelt mask
-- ({src, mask = m} or PyTorch's src_key_padding_mask) ran unmasked without a word.
function tests.encoderRejectsUnknownFields()
  local l = nn.TransformerEncoderLayer(8, 2, { dimFeedforward = 16, dropout = 0 }):double()
  local src = rnd(3, 2, 8)
  local m = torch.ByteTensor(2, 3):zero()
  tester:assertErrorPattern(function() l:forward({ src, src_key_padding_mask = m }) end, 'unknown input field src_key_padding_mask')
  local enc = nn.TransformerEncoder(l, 2)
  tester:assertErrorPattern(function() enc:forward({ src, mask = m }) end, 'unknown input field mask')
  -- the known fields still work
  m[1][3] = 1
  tester:assertTableEq(l:forward({ src, srcKeyPaddingMask = m, srcMask = torch.ByteTensor(3, 3):zero() }):size():totable(), { 3, 2, 8 })
end

-- Review regression: dimFeedforward <= 0 failed inside nn.Linear's constructor, naming neither the
-- layer nor the option.
function tests.dimFeedforwardMustBePositive()
  tester:assertErrorPattern(function() nn.TransformerEncoderLayer(8, 2, { dimFeedforward = 0 }) end,
    '%[nn.TransformerEncoderLayer%] dimFeedforward must be positive, got 0')
  tester:assertErrorPattern(function() nn.TransformerDecoderLayer(8, 2, { dimFeedforward = -1 }) end,
    '%[nn.TransformerDecoderLayer%] dimFeedforward must be positive, got %-1')
end

function tests.errors()
  tester:assertErrorPattern(function() nn.TransformerEncoderLayer(6, 4) end, 'positive multiple of nHead')
  tester:assertErrorPattern(function() nn.TransformerEncoderLayer(8, 2, { activation = 'tanh' }) end,
    "activation must be 'relu', 'gelu' or a function")
  tester:assertErrorPattern(function() nn.TransformerEncoderLayer(8, 2, { dropout = 1 }) end, 'dropout must be in')
  tester:assertErrorPattern(function() nn.TransformerEncoderLayer(8, 2, { nhead = 2 }) end, 'unknown option nhead')
  local l = nn.TransformerEncoderLayer(8, 2)
  tester:assertErrorPattern(function() l:forward(torch.randn(3, 2, 6)) end, 'expected src of size length x batch x 8')
  tester:assertErrorPattern(function() l:backward(torch.randn(3, 2, 8), torch.randn(3, 2, 8)) end,
    'backward called before forward')
  local d = nn.TransformerDecoderLayer(8, 2)
  tester:assertErrorPattern(function() d:forward(torch.randn(3, 2, 8)) end, 'expected a table {tgt, memory')
  tester:assertErrorPattern(function() d:forward({ torch.randn(3, 2, 8), torch.randn(5, 8) }) end,
    'both be batched or both not')
  tester:assertErrorPattern(function() nn.TransformerEncoder(d, 2) end, 'expected an nn.TransformerEncoderLayer')
  tester:assertErrorPattern(function() nn.TransformerEncoder(l, 0) end, 'numLayers must be positive')
end

tester:add(tests)
tester:run()
