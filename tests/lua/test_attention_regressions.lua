-- Regression tests for nn.MultiHeadAttention / nn.MultiheadAttention and the Transformer modules:
-- the gradInput structure of table inputs, integer masks refused, PyTorch's 1-D padding mask, fully
-- masked rows, the causal mask, clone sharing, walks reaching the children, :float(), save/load, the
-- extra keys. The comparison with PyTorch 1.13 is test_attention_pytorch.lua.
require 'nn'
local dir = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local util = dofile(dir .. '/nn_rnn_util.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()

local function causal(n) return nn.Transformer.generateSquareSubsequentMask(n) end
local function sorted_names(m)
  local names = {}
  for n in pairs(m:stateDict()) do names[#names + 1] = n end
  table.sort(names)
  return names
end

function tests.gradInputPerSlot()
  torch.manualSeed(3)
  local m = nn.MultiHeadAttention(4, 2):double()
  local q, k = torch.randn(3, 2, 4):double(), torch.randn(5, 2, 4):double()
  local go = torch.randn(3, 2, 4):double()
  m:forward({ q, k })
  local gi = m:backward({ q, k }, go)
  tester:asserteq(#gi, 2)
  tester:assert(gi[3] == nil)
  local qa, ka = q:clone():requiresGrad(), k:clone():requiresGrad()
  local ref = torch.autograd.grad({ m:forward({ qa, ka }) }, { qa, ka }, { go })
  tester:assertTensorEq(gi[1], ref[1], 1e-12)
  tester:assertTensorEq(gi[2], ref[2], 1e-12)
  -- self-attention through a ConcatTable: the summed gradient is autograd's
  local x = torch.randn(3, 2, 4):double()
  local net = nn.Sequential():add(nn.ConcatTable():add(nn.Identity()):add(nn.Identity()):add(nn.Identity())):add(m)
  net:forward(x)
  local g = net:backward(x, go)
  local xa = x:clone():requiresGrad()
  tester:assertTensorEq(g, torch.autograd.grad({ m:forward(xa) }, { xa }, { go })[1], 1e-12)
  -- {x} and a plain tensor keep their shapes
  m:forward({ x, keyPaddingMask = torch.BoolTensor(2, 3):zero() })
  local g1 = m:backward({ x, keyPaddingMask = torch.BoolTensor(2, 3):zero() }, go)
  tester:assert(type(g1) == 'table' and #g1 == 1 and torch.isTensor(g1[1]))
  m:forward(x)
  tester:assert(torch.isTensor(m:backward(x, go)))
end

function tests.integerMasksRefused()
  local m = nn.MultiHeadAttention(4, 2):double()
  local x = torch.randn(3, 2, 4):double()
  -- a LongTensor of 0/1 was added to the scores as numbers (PyTorch refuses it)
  tester:assertErrorPattern(function() m:forward({ x, attnMask = torch.ones(3, 3):triu(1):long() }) end,
    'attnMask must be boolean')
  tester:assertErrorPattern(function() m:forward({ x, keyPaddingMask = torch.LongTensor(2, 3):zero() }) end,
    'keyPaddingMask must be boolean')
  tester:assertErrorPattern(function() m:forward({ x, keyPaddingMask = torch.LongTensor(2, 3):zero() }) end,
    'MultiHeadAttention')
  local l = nn.TransformerEncoderLayer(4, 2, { dimFeedforward = 6 }):double()
  tester:assertErrorPattern(function() l:forward({ x, srcMask = torch.IntTensor(3, 3):zero() }) end, 'attnMask')
end

function tests.unbatchedPaddingMask()
  local m = nn.MultiHeadAttention(4, 2):double()
  local x = torch.randn(3, 4):double()
  local kpm = torch.BoolTensor({ false, true, false })
  m:forward({ x, keyPaddingMask = kpm })
  local w1 = m.attnWeights:clone()
  tester:assertTensorEq(w1:select(2, 2), torch.zeros(3):double(), 0)
  m:forward({ x, keyPaddingMask = kpm:view(1, 3) })  -- the batched 1 x S form still works
  tester:assertTensorEq(m.attnWeights, w1, 0)
  tester:assertErrorPattern(function() m:forward({ x, keyPaddingMask = torch.BoolTensor(4):zero() }) end,
    'keyPaddingMask must be 1x3')
  -- the encoder layer passes it through
  local l = nn.TransformerEncoderLayer(4, 2, { dimFeedforward = 6, dropout = 0 }):double()
  local y = l:forward({ x, srcKeyPaddingMask = kpm }):clone()
  local yb = l:forward({ x:view(3, 1, 4), srcKeyPaddingMask = kpm:view(1, 3) })
  tester:assertTensorEq(y, yb:view(3, 4), 1e-12)
end

-- PyTorch 1.13 softmaxes a row whose keys are all masked into NaN; so does Tocha.
function tests.fullyMaskedRowIsNaN()
  local m = nn.MultiHeadAttention(4, 2):double()
  local x = torch.randn(3, 2, 4):double()
  local kpm = torch.BoolTensor(2, 3):zero()
  kpm[1]:fill(true)
  local y = m:forward({ x, keyPaddingMask = kpm })
  tester:assert(y[1][1][1] ~= y[1][1][1], 'NaN output for the fully masked batch entry')
  tester:assert(y[1][2][1] == y[1][2][1], 'the other batch entry is finite')
  tester:assert(m.attnWeights[1][1][1] ~= m.attnWeights[1][1][1])
end

-- generateSquareSubsequentMask(n): PyTorch's float mask (-inf above the diagonal, 0 elsewhere),
-- which means the same to the attention modules and to scaledDotProductAttention (a ByteTensor
-- with 1 = masked gave the latter anti-causal attention: Note [A float causal mask]).
function tests.causalMask()
  for _, n in ipairs({ 1, 2, 5 }) do
    local c = causal(n)
    tester:asserteq(torch.type(c), torch.getdefaulttensortype())
    for i = 1, n do for j = 1, n do tester:asserteq(c[i][j], j > i and -math.huge or 0) end end
  end
  local q = torch.randn(1, 2, 4, 3):double()
  local sdpa = nn.functional.scaledDotProductAttention
  tester:assertTensorEq(sdpa(q, q, q, { attnMask = causal(4):double() }), sdpa(q, q, q, { isCausal = true }), 1e-14,
    'the same causal attention as isCausal in scaledDotProductAttention')
  tester:asserteq(causal(0):nElement(), 0)
  local m = nn.MultiHeadAttention(4, 2):double()
  local x = torch.randn(5, 2, 4):double()
  local y1 = m:forward({ x, attnMask = causal(5) }):clone()
  local y2 = m:forward({ x, attnMask = torch.DoubleTensor(5, 5):fill(-math.huge):triu(1) })
  tester:assertTensorEq(y1, y2, 1e-14)
  tester:assertErrorPattern(function() causal(-1) end, 'generateSquareSubsequentMask')
end

local function same_storage(a, b) return torch.pointer(a:storage()) == torch.pointer(b:storage()) end

-- Note [Sharing attention weights]: clone('weight', 'bias', 'gradWeight', 'gradBias') shares every
-- projection (and the output projection) of the attention and of the Transformer modules.
function tests.cloneSharesProjections()
  for _, opts in ipairs({ {}, { kdim = 3, vdim = 5 }, { bias = false } }) do
    local m = nn.MultiHeadAttention(4, 2, opts):double()
    local c = m:clone('weight', 'bias', 'gradWeight', 'gradBias')
    local ps, gs = m:parameters()
    local cps, cgs = c:parameters()
    tester:asserteq(#cps, #ps)
    for i = 1, #ps do
      tester:assert(same_storage(ps[i], cps[i]) and same_storage(gs[i], cgs[i]), 'parameter ' .. i .. ' shared')
    end
    -- both backward paths of the clone accumulate into the original's gradients
    local q = torch.randn(2, 3, 4):double()
    local k, v = torch.randn(5, 3, opts.kdim or 4):double(), torch.randn(5, 3, opts.vdim or 4):double()
    m:zeroGradParameters()
    c:forward({ q, k, v })
    c:backward({ q, k, v }, torch.ones(2, 3, 4):double())
    local g1 = m.outProj.gradWeight:clone()
    tester:assertgt(torch.abs(g1):sum(), 0)
    m:zeroGradParameters()
    c:forward({ q, k, v }):sum():backward()
    tester:assertTensorEq(m.outProj.gradWeight, g1, 1e-12)
    tester:assertTensorEq(gs[1], cgs[1], 0)
  end
  -- a plain clone shares nothing
  local m = nn.MultiHeadAttention(4, 2)
  tester:assert(not same_storage(m:clone().in_proj_weight, m.in_proj_weight))
  tester:assertErrorPattern(function() m:share(nn.Linear(4, 4), 'weight') end, 'MultiHeadAttention.*share')
  tester:assertErrorPattern(function() m:share(nn.MultiHeadAttention(4, 2, { kdim = 3 }), 'weight') end,
    'share: .*has no in_proj_weight')
  local t = nn.Transformer(4, 2, { numEncoderLayers = 2, numDecoderLayers = 1, dimFeedforward = 6 }):double()
  local ct = t:clone('weight', 'bias', 'gradWeight', 'gradBias')
  local ps, gs = t:parameters()
  local cps, cgs = ct:parameters()
  local n = 0
  for i = 1, #ps do if same_storage(ps[i], cps[i]) and same_storage(gs[i], cgs[i]) then n = n + 1 end end
  tester:asserteq(n, #ps, 'every nn.Transformer parameter shared')
  tester:assertErrorPattern(function() t:share(nn.Linear(4, 4), 'weight') end, 'share: expected another nn.Transformer')
end

function tests.floatConversion()
  local t = nn.Transformer(4, 2, { numEncoderLayers = 1, numDecoderLayers = 1, dimFeedforward = 6, dropout = 0 }):double()
  local src, tgt = torch.randn(2, 2, 4):double(), torch.randn(3, 2, 4):double()
  local y = t:forward({ src, tgt }):clone()
  local f = t:clone():float()
  local yf = f:forward({ src:float(), tgt:float() })
  tester:asserteq(torch.type(yf), 'torch.FloatTensor')
  tester:assertTensorEq(yf:double(), y, 1e-5)
  local sa = f.encoder.layers.modules[1].selfAttn
  tester:asserteq(torch.type(sa.gradInProjWeight), 'torch.FloatTensor')
  tester:assert(sa.in_proj_weight.grad ~= nil and same_storage(sa.in_proj_weight.grad, sa.gradInProjWeight))
  local gi = f:backward({ src:float(), tgt:float() }, torch.randn(3, 2, 4):float())
  tester:asserteq(torch.type(gi[1]), 'torch.FloatTensor')
  -- mixed types: an error naming the module, not matmul's
  tester:assertErrorPattern(function() f:forward({ src, tgt }) end, 'TransformerEncoderLayer.*DoubleTensor')
  local l = nn.TransformerDecoderLayer(4, 2, { dimFeedforward = 6 }):float()
  tester:assertErrorPattern(function() l:forward({ tgt, src }) end, 'TransformerDecoderLayer.*tgt is a torch.DoubleTensor')
  local q = torch.randn(2, 3, 4):double()
  tester:assertErrorPattern(function() nn.functional.scaledDotProductAttention(q, q:float(), q) end,
    'scaledDotProductAttention.*same type')
end

function tests.saveLoadRoundTrip()
  local t = nn.Transformer(4, 2, { numEncoderLayers = 1, numDecoderLayers = 2, dimFeedforward = 6, dropout = 0,
                                   activation = 'gelu' }):double()
  local input = { torch.randn(2, 2, 4):double(), torch.randn(3, 2, 4):double(), tgtMask = causal(3) }
  local y = t:forward(input):clone()
  local go = torch.randn(3, 2, 4):double()
  t:zeroGradParameters()
  t:backward(input, go)
  local file = os.tmpname()
  torch.save(file, t)
  local t2 = torch.load(file)
  os.remove(file)
  tester:asserteq(torch.type(t2), 'nn.Transformer')
  tester:assertTensorEq(t2:forward(input), y, 0)
  t2:zeroGradParameters()
  t2:forward(input)
  t2:backward(input, go)
  local _, g1 = t:parameters()
  local p2, g2 = t2:parameters()
  for i = 1, #g1 do tester:assertTensorEq(g2[i], g1[i], 1e-12) end
  -- autograd accumulates into the loaded module's gradients (afterLoad links them)
  t2:zeroGradParameters()
  torch.cmul(t2:forward(input), go):sum():backward()
  for i = 1, #g1 do tester:assertTensorEq(g2[i], g1[i], 1e-12) end
  tester:assert(same_storage(p2[1].grad, g2[1]))
end

-- PyTorch code passes nn.LayerNorm (a subclass of nn.LayerNormalization) as the stacks' final norm.
function tests.stackTakesLayerNorm()
  local layer = nn.TransformerEncoderLayer(4, 2, { dimFeedforward = 6, dropout = 0 })
  local e = nn.TransformerEncoder(layer, 2, nn.LayerNorm(4)):double()
  local e2 = nn.TransformerEncoder(layer, 2, nn.LayerNormalization(4)):double()
  e2:loadStateDict(e:stateDict())
  local x = torch.randn(3, 2, 4):double()
  tester:assertTensorEq(e:forward(x), e2:forward(x), 0)
  local d = nn.TransformerDecoder(nn.TransformerDecoderLayer(4, 2, { dimFeedforward = 6 }), 1, nn.LayerNorm(4, 1e-5, false))
  tester:assert(d.norm ~= nil)
  tester:assertErrorPattern(function() nn.TransformerEncoder(layer, 2, nn.LayerNorm(5)) end,
    'TransformerEncoder.*normalize the 4 model features')
  tester:assertErrorPattern(function() nn.TransformerEncoder(layer, 2, nn.Linear(4, 4)) end, 'norm must be')
end

-- A PyTorch-spelt or misspelt mask field was ignored and attention ran unmasked.
function tests.unknownInputFieldRefused()
  local m = nn.MultiHeadAttention(4, 2):double()
  local x = torch.randn(3, 2, 4):double()
  tester:assertErrorPattern(function() m:forward({ x, attn_mask = causal(3) }) end, 'unknown input field attn_mask')
  tester:assertErrorPattern(function() m:forward({ x, keyPaddingmask = torch.BoolTensor(2, 3):zero() }) end,
    'unknown input field keyPaddingmask')
  tester:assert(torch.isTensor(m:forward({ x, x, x, attnMask = causal(3), keyPaddingMask = torch.BoolTensor(2, 3):zero() })))
end

-- Note [Walking attention children]: m:apply(fn) (PyTorch's model.apply(init)), listModules and
-- findModules reach the projections and the layers' children.
function tests.walksReachChildren()
  local t = nn.Transformer(4, 2, { numEncoderLayers = 2, numDecoderLayers = 1, dimFeedforward = 6 }):double()
  -- 3 (transformer, encoder, its layers) + 2 x 7 + 1 (norm) + 2 (decoder, its layers) + 10 + 1 (norm)
  tester:asserteq(#t:listModules(), 31)
  tester:asserteq(#t:findModules('nn.Linear'), 10)
  tester:asserteq(#t:findModules('nn.MultiHeadAttention'), 4)
  local n = 0
  t:apply(function(mod) if torch.typename(mod) == 'nn.Linear' then mod.weight:fill(0.5) n = n + 1 end end)
  tester:asserteq(n, 10)
  tester:asserteq(t.decoder.layers.modules[1].multiheadAttn.outProj.weight[1][1], 0.5)
  local m = nn.MultiHeadAttention(4, 2)
  local found, owners = m:findModules('nn.Linear')
  tester:asserteq(#found, 1)
  tester:assert(rawequal(found[1], m.outProj) and rawequal(owners[1], m))
  tester:asserteq(#m:listModules(), 2)
  -- freezing a child still freezes it when the parent links gradients
  local l = nn.TransformerEncoderLayer(4, 2, { dimFeedforward = 6 })
  tester:asserteq(#l:findModules('nn.LayerNormalization'), 2)
end

-- Note [Attention extra keys]: addBiasKv / addZeroAttn (PyTorch's add_bias_kv / add_zero_attn; the values
-- against PyTorch are in againstPyTorch): parameter order, shapes, the functional form, errors.
function tests.extraKeys()
  local m = nn.MultiHeadAttention(4, 2, { addBiasKv = true, addZeroAttn = true }):double()
  local ps = m:parameters()
  -- PyTorch 1.13's named_parameters(): in_proj_weight, in_proj_bias, bias_k, bias_v, out_proj.weight, out_proj.bias
  local want = { m.in_proj_weight, m.in_proj_bias, m.bias_k, m.bias_v, m.outProj.weight, m.outProj.bias }
  tester:asserteq(#ps, #want)
  for i = 1, #want do tester:assert(rawequal(ps[i], want[i]), 'parameter ' .. i) end
  tester:assertTableEq(m.bias_k:size():totable(), { 1, 1, 4 })
  local q, kv = torch.randn(2, 3, 4):double(), torch.randn(5, 3, 4):double()
  local kpm = torch.BoolTensor(3, 5):zero()
  kpm[1][2] = true
  local y = m:forward({ q, kv, kv, keyPaddingMask = kpm })
  tester:assertTableEq(m.attnWeights:size():totable(), { 3, 2, 7 })
  tester:asserteq(m.attnWeights[1][1][2], 0)
  local out, w = nn.functional.multiHeadAttentionForward(q, kv, kv, 4, 2, m.in_proj_weight, m.in_proj_bias, m.bias_k,
    m.bias_v, true, 0, m.outProj.weight, m.outProj.bias, { keyPaddingMask = kpm })
  tester:assertTensorEq(out, y, 1e-14)
  tester:assertTensorEq(w, m.attnWeights, 1e-14)
  tester:assertErrorPattern(function()
    nn.functional.multiHeadAttentionForward(q, kv, kv, 4, 2, m.in_proj_weight, nil, m.bias_k, nil, false, 0,
      m.outProj.weight, nil)
  end, 'multiHeadAttentionForward.*both biasK and biasV')
  tester:assertErrorPattern(function() nn.MultiHeadAttention(4, 2, { addBiasKv = 1 }) end, 'addBiasKv must be a boolean')
  tester:assert(tostring(m):find('addBiasKv, addZeroAttn') ~= nil)
  -- the state dict has PyTorch's names, and the clone shares bias_k/bias_v under 'bias'
  tester:assertTableEq(sorted_names(m), { 'bias_k', 'bias_v', 'in_proj_bias', 'in_proj_weight', 'out_proj.bias',
    'out_proj.weight' })
  local c = m:clone('weight', 'bias', 'gradWeight', 'gradBias')
  tester:assert(same_storage(c.bias_v, m.bias_v) and same_storage(c.gradBiasK, m.gradBiasK))
  -- gradcheck of both extra parameters and the inputs, through the Torch7 backward and autograd
  local err = util.jacobianError(m, { q, kv, kv:clone(), keyPaddingMask = kpm }, function(mod) return { mod.output } end,
    function(g) return g[1] end)
  tester:assertlt(err, 1e-7)
end

-- Without dropout, nn.Transformer's Torch7 backward recomputes on the input it gets (it refused any
-- input but the last forward's: its per-half mask tables made the check think masks were drawn).
function tests.transformerBackwardWithoutDropout()
  torch.manualSeed(3)
  local t = nn.Transformer(4, 2, { numEncoderLayers = 1, numDecoderLayers = 2, dimFeedforward = 6, dropout = 0 }):double()
  local s, g = torch.randn(5, 2, 4):double(), torch.randn(3, 2, 4):double()
  t:forward({ s:clone():add(1), g, tgtMask = causal(3) })
  local go = torch.randn(3, 2, 4):double()
  local gi = t:backward({ s, g, tgtMask = causal(3) }, go)
  local sa, ga = s:clone():requiresGrad(), g:clone():requiresGrad()
  local ref = torch.autograd.grad({ t:forward({ sa, ga, tgtMask = causal(3) }) }, { sa, ga }, { go })
  tester:assertTensorEq(gi[1], ref[1], 1e-12)
  tester:assertTensorEq(gi[2], ref[2], 1e-12)
  -- with dropout the check still applies
  local td = nn.Transformer(4, 2, { numEncoderLayers = 1, numDecoderLayers = 1, dimFeedforward = 6, dropout = 0.3 }):double()
  td:forward({ s, g })
  tester:assertErrorPattern(function() td:backward({ s:clone():add(1), g }, go) end, 'another input than the last forward')
  -- PyTorch's check of the batch sizes, naming nn.Transformer
  local tb = nn.Transformer(4, 2, { numEncoderLayers = 1, numDecoderLayers = 1, dimFeedforward = 6, batchFirst = true })
  tester:assertErrorPattern(function() tb:double():forward({ torch.randn(2, 5, 4):double(), torch.randn(3, 3, 4):double() }) end,
    'nn.Transformer.*batch sizes of src %(2%) and tgt %(3%)')
end
tester:add(tests)
tester:run()
