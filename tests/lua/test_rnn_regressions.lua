-- Review of the recurrent layers (nn.RNN / nn.LSTM / nn.GRU, the cells, nn.utils.rnn and
-- nn.PackedSequence): PyTorch 1.13's values for the combinations the other suites leave out (1-3
-- layers, bidirectional, batchFirst, no bias, unbatched, unsorted packed batches with initial
-- states, both backward paths), gradchecks, and regression tests for the bugs this review found.
-- The checkpoint and autocast ones are test_checkpoint_autocast_regressions.lua.
require 'nn'
local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local util = dofile(here .. '/nn_rnn_util.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()
local fill, fp = util.fill, util.fp
local R = nn.utils.rnn

local function values(t) return t:contiguous():view(-1):totable() end
local function assert_values(t, want, name, tol)
  local got = values(t)
  tester:asserteq(#got, #want, name .. ': number of values')
  for k = 1, #want do tester:assertalmosteq(got[k], want[k], tol or 1e-12, name .. ': value ' .. k) end
end

-- ---- whole-sequence modules against PyTorch 1.13 -------------------------------------------------

-- PyTorch 1.13's values (/usr/bin/python3, float64), per case: fingerprints of the output (padded
-- back for packed input), hN, cN, then of the gradients of x, h0, c0 and of every parameter, for
-- loss = sum(out * w1) + sum(hN * w2) (+ sum(cN * w3)) with w = sin(a k + b):
--   import torch; from torch.nn.utils.rnn import pack_padded_sequence, pad_packed_sequence
--   torch.set_default_dtype(torch.float64)
--   def fill(n, a, b, s=1.0): return s * torch.sin(a * torch.arange(n, dtype=torch.float64) + b)
--   def fp(t, a, b): return float((t.reshape(-1) * fill(t.numel(), a, b)).sum())
--   for (mode, I, H, L, bias, bidir, bf, T, B, states, lengths) in CASES:   # the table below
--       kw = dict(num_layers=L, bias=bias, bidirectional=bidir, batch_first=bf)
--       m = {'LSTM': torch.nn.LSTM, 'GRU': torch.nn.GRU}.get(mode)
--       m = m(I, H, **kw) if m else torch.nn.RNN(I, H, nonlinearity='tanh' if mode == 'RNN_TANH' else 'relu', **kw)
--       with torch.no_grad():
--           for j, p in enumerate(m.parameters()): p.copy_(fill(p.numel(), 1.3, 0.7 * j + 0.1, 0.4).reshape(p.shape))
--       S = L * (2 if bidir else 1)
--       x = fill(T * max(B, 1) * I, 0.9, 0.3).reshape(((B, T) if bf else (T, B)) + (I,) if B else (T, I)).requires_grad_()
--       h0 = fill(S * max(B, 1) * H, 0.7, 0.2, 0.5).reshape((S, B, H) if B else (S, H)).requires_grad_()
--       c0 = fill(S * max(B, 1) * H, 0.5, 0.9, 0.5).reshape(h0.shape).requires_grad_()
--       inp = pack_padded_sequence(x, torch.tensor(lengths), batch_first=bf, enforce_sorted=False) if lengths else x
--       if mode == 'LSTM': out, (hn, cn) = m(inp, (h0, c0)) if states else m(inp)
--       else: (out, hn), cn = (m(inp, h0) if states else m(inp)), None
--       if lengths: out = pad_packed_sequence(out, batch_first=bf)[0]
--       loss = (out.reshape(-1) * fill(out.numel(), 0.37, 0.1)).sum() + (hn.reshape(-1) * fill(hn.numel(), 0.23, 0.3)).sum()
--       if cn is not None: loss = loss + (cn.reshape(-1) * fill(cn.numel(), 0.11, 0.5)).sum()
--       loss.backward()
--       vals = [fp(out, .37, .1), fp(hn, .23, .3), fp(cn, .11, .5) if cn is not None else 0, fp(x.grad, .29, .2),
--               fp(h0.grad, .29, .2) if states else 0, fp(c0.grad, .29, .2) if states and mode == 'LSTM' else 0]
--       print(vals + [fp(p.grad, .29, .2) for p in m.parameters()])
-- B = 0 means an unbatched input (T x I); lengths: a packed input (enforce_sorted=False).
local CASES = {
  { 'LSTM', 3, 2, 1, true, false, false, 4, 2, true, nil },
  { 'LSTM', 3, 2, 3, true, true, false, 4, 2, true, nil },
  { 'LSTM', 3, 2, 3, true, true, true, 4, 2, false, nil },
  { 'GRU', 3, 2, 3, false, true, true, 4, 3, true, nil },
  { 'RNN_RELU', 3, 2, 2, true, true, false, 4, 2, true, nil },
  { 'RNN_TANH', 3, 2, 3, true, false, true, 4, 2, true, nil },
  { 'LSTM', 3, 2, 2, true, true, false, 4, 0, true, nil },
  { 'GRU', 3, 2, 2, true, true, true, 4, 0, true, nil },
  { 'LSTM', 3, 2, 2, true, true, false, 5, 4, true, { 2, 5, 1, 3 } },
  { 'GRU', 3, 2, 3, true, true, true, 5, 4, true, { 2, 5, 5, 3 } },
  { 'RNN_TANH', 3, 2, 2, false, false, true, 5, 3, false, { 1, 4, 2 } },
  { 'LSTM', 3, 2, 3, true, false, false, 5, 3, true, { 3, 3, 3 } },
}
local REF = {
  {0.113879744816, 0.254982247624, 0.886934536143, -0.475212167255, 0.0118800761657, 0.240505316031, -0.357845748741, 0.288548292158, 2.60791884415, 2.60791884415},
  {-0.00828058056041, -0.28187951746, -0.120523700413, -0.45479537905, 0.0687524002356, -0.176923184726, 0.116994376243, 0.385085888181, 2.99261545906, 2.99261545906, -1.52452282419, 0.599053680017, 1.30246521697, 1.30246521697, -0.230401884772, 0.486726869641, 4.1728734733, 4.1728734733, -0.112612945674, 0.0781872222639, 2.20426876271, 2.20426876271, -0.110243792893, 0.00294366837259, 0.790776226217, 0.790776226217, 0.0288706268576, -0.0260941721661, 0.240324521972, 0.240324521972},
  {0.0216718395572, -0.276876771204, 0.233993269131, -0.403045393911, 0, 0, -0.658429767302, 0.345483140011, 2.72346075223, 2.72346075223, -0.835938826692, 0.382197789892, 1.66578023216, 1.66578023216, -0.187387886053, 0.503119448591, 4.20612444004, 4.20612444004, -0.101848802281, 0.117667400505, 1.98475061273, 1.98475061273, -0.0994904621205, 0.00935296904854, 0.953262346286, 0.953262346286, -0.0588059593099, 0.0299935101798, 0.507352462063, 0.507352462063},
  {0.197669921192, -0.480270320754, 0, -0.308693584846, -0.443475714169, 0, 0.19496127073, 0.144007058972, -0.21820127174, -0.0341052982582, -0.220065541943, -0.0504800484395, 0.525185314842, -0.166826342275, 0.0661650504599, 0.159496954606, 0.651970157516, -0.0974343719912},
  {0.438925348818, 2.56290924537, 0, 0.495620907823, -0.435477679056, 0, -0.181692699916, 0.130674519504, 0.0473793221789, 0.0473793221789, 2.4623928715, -0.151603343588, 0.481710917565, 0.481710917565, 2.77089111281, 1.5437733004, 1.35139483567, 1.35139483567, -0.354390221835, 0.273336246086, -0.19453258418, -0.19453258418},
  {0.133043627143, -0.201244979191, 0, 0.00762464732437, -0.00258956508795, 0, 1.18513646541, 0.495093823464, 0.315582727083, 0.315582727083, -0.137808755748, -1.41946706459, 0.859540640254, 0.859540640254, -1.12271412813, 0.614895078597, 0.674037760659, 0.674037760659},
  {0.0160902355868, -0.412987704168, -0.20659802106, -0.25064541121, -0.0171703661202, 0.404837393244, -0.0689110353109, 0.117798457241, 0.804045018746, 0.804045018746, -1.03171411499, 0.120429991546, 0.636046560118, 0.636046560118, -0.239926136297, 0.209949826639, 2.06565717651, 2.06565717651, -0.265893815689, 0.313051692112, 1.37839602428, 1.37839602428},
  {0.126618812167, 0.127321886818, 0, -0.164201126595, -0.151227833273, 0, 0.0345271236583, 0.00196823111066, 0.16904798436, 0.0561806451368, -0.846338545999, 0.0535644188216, 1.19969322434, 0.574209556393, -0.485570212232, 0.124512655091, 1.06754023263, 0.651406322018, -0.646989256265, -0.103753477494, 2.12710330855, 0.864714734468},
  {0.355339385572, -0.548993182236, 1.19284723962, -0.802400256121, -0.0175508021531, 1.03313639447, 0.495976603698, 0.285123553001, 6.11564635017, 6.11564635017, -1.43345822826, 0.364928331975, 2.28032200096, 2.28032200096, -0.0735580412431, 0.266223676371, 0.925231301874, 0.925231301874, 0.00451464243056, -0.142431937765, 0.942905842317, 0.942905842317},
  {-0.398016576037, -0.239856676303, 0, -0.276463936376, -0.894610925277, 0, -0.559323042669, 0.225690533305, 2.53474991497, 1.50907175898, -1.47146971065, 0.0794412664415, 2.26778334748, 0.99835547849, 1.08559718091, -0.574946485853, -2.87070841527, -2.1347580474, -0.579042534991, -0.0151595363509, 2.71849365063, 1.22768505705, -2.31365442702, 0.190482620864, 5.04313453433, 2.70415740599, 1.88235659146, -0.211329758639, -4.94253673278, -2.44825432873},
  {-0.0263832795207, 0.127367580649, 0, -0.233657306707, 0, 0, -1.80005025846, -0.437461973484, 0.66213715016, 0.199079990462},
  {0.127481906305, -0.860858484801, 0.735674955302, -0.0993535233478, 0.215061448774, 0.532872043424, 0.245522238424, 0.488021623573, 4.89640965431, 4.89640965431, -0.313199246161, 0.572442412841, 2.44065792465, 2.44065792465, -0.690626251629, 0.299267721755, 2.98601509803, 2.98601509803},
}

local function make(mode, I, H, L, bias, bidir, bf)
  local o = { numLayers = L, bias = bias, bidirectional = bidir, batchFirst = bf }
  local m
  if mode == 'LSTM' then m = nn.LSTM(I, H, o)
  elseif mode == 'GRU' then m = nn.GRU(I, H, o)
  else
    o.nonlinearity = mode == 'RNN_TANH' and 'tanh' or 'relu'
    m = nn.RNN(I, H, o)
  end
  m:double()
  for j, p in ipairs(m:parameters()) do p:copy(fill(p:nElement(), 1.3, 0.7 * (j - 1) + 0.1, 0.4):viewAs(p)) end
  return m
end

-- One case through loss:backward() ('autograd') or m:backward ('torch7'): the values of REF.
local function run_case(c, path)
  local mode, I, H, L, bias, bidir, bf, T, B, states, lengths = unpack(c, 1, 11)
  local m = make(mode, I, H, L, bias, bidir, bf)
  local S, n = L * (bidir and 2 or 1), math.max(B, 1)
  local shape = B == 0 and { T, I } or (bf and { B, T, I } or { T, B, I })
  local sshape = B == 0 and { S, H } or { S, B, H }
  local x = fill(T * n * I, 0.9, 0.3, 1):view(unpack(shape))
  local h0 = fill(S * n * H, 0.7, 0.2, 0.5):view(unpack(sshape))
  local c0 = fill(S * n * H, 0.5, 0.9, 0.5):view(unpack(sshape))
  if path == 'autograd' then x:requiresGrad(); h0:requiresGrad(); c0:requiresGrad() end
  local inp = lengths and R.packPaddedSequence(x, lengths, { batchFirst = bf, enforceSorted = false }) or x
  if states then inp = mode == 'LSTM' and { inp, h0, c0 } or { inp, h0 } end
  m:zeroGradParameters()
  local out = m:forward(inp)
  local padded = lengths and R.padPackedSequence(out, bf) or out
  local w = function(t, a, b) return fill(t:nElement(), a, b, 1):viewAs(t) end
  local gx, gh, gc
  if path == 'autograd' then
    local loss = torch.cmul(padded, w(padded, 0.37, 0.1)):sum() + torch.cmul(m.hN, w(m.hN, 0.23, 0.3)):sum()
    if m.cN then loss = loss + torch.cmul(m.cN, w(m.cN, 0.11, 0.5)):sum() end
    loss:backward()
    gx, gh, gc = x.grad, h0.grad, c0.grad
  else
    local go = w(padded, 0.37, 0.1)
    if lengths then go = R.packPaddedSequence(go, lengths, { batchFirst = bf, enforceSorted = false }) end
    local gi = m:backward(inp, { go, w(m.hN, 0.23, 0.3), m.cN and w(m.cN, 0.11, 0.5) })
    gx = states and gi[1] or gi
    if lengths then gx = R.padPackedSequence(gx, { batchFirst = bf, totalLength = T }) end
    gh, gc = states and gi[2], states and gi[3]
  end
  local got = { fp(padded, 0.37, 0.1), fp(m.hN, 0.23, 0.3), m.cN and fp(m.cN, 0.11, 0.5) or 0, fp(gx, 0.29, 0.2),
                gh and fp(gh, 0.29, 0.2) or 0, (gc and mode == 'LSTM') and fp(gc, 0.29, 0.2) or 0 }
  local params, grads = m:parameters()
  for k, p in ipairs(params) do got[#got + 1] = fp(path == 'autograd' and p.grad or grads[k], 0.29, 0.2) end
  return got
end

function tests.modulesMatchPyTorch()
  for i, c in ipairs(CASES) do
    for _, path in ipairs({ 'autograd', 'torch7' }) do
      local got, ref = run_case(c, path), REF[i]
      local name = string.format('case %d (%s, %d layers%s) %s', i, c[1], c[4], c[6] and ', bidirectional' or '', path)
      tester:asserteq(#got, #ref, name .. ': number of values')
      for k = 1, #ref do tester:assertalmosteq(got[k], ref[k], 1e-9, name .. ': value ' .. k) end
    end
  end
end

-- ---- cells against PyTorch 1.13 ---------------------------------------------------------------

-- PyTorch 1.13's values (float64; fill and fp as above), per case: fingerprints of h', c', then of
-- the gradients of x, h, c and every parameter, for loss = sum(h' * w2) (+ sum(c' * w3)):
--   for mode, bias, B, states in CELL_CASES:   # B = 0: no batch dim
--       m = {'LSTM': torch.nn.LSTMCell, 'GRU': torch.nn.GRUCell}[mode](3, 2, bias) if mode in ('LSTM', 'GRU') \
--           else torch.nn.RNNCell(3, 2, bias, 'tanh' if mode == 'RNN_TANH' else 'relu')
--       with torch.no_grad():
--           for j, p in enumerate(m.parameters()): p.copy_(fill(p.numel(), 1.3, 0.7 * j + 0.1, 0.4).reshape(p.shape))
--       x = fill(max(B, 1) * 3, 0.9, 0.3).reshape((B, 3) if B else (3,)).requires_grad_()
--       h = fill(max(B, 1) * 2, 0.7, 0.2, 0.5).reshape((B, 2) if B else (2,)).requires_grad_()
--       c = fill(max(B, 1) * 2, 0.5, 0.9, 0.5).reshape(h.shape).requires_grad_()
--       if mode == 'LSTM': h1, c1 = m(x, (h, c)) if states else m(x)
--       else: h1, c1 = (m(x, h) if states else m(x)), None
--       loss = (h1.reshape(-1) * fill(h1.numel(), .23, .3)).sum()
--       if c1 is not None: loss = loss + (c1.reshape(-1) * fill(c1.numel(), .11, .5)).sum()
--       loss.backward()
--       print([fp(h1, .23, .3), fp(c1, .11, .5) if c1 is not None else 0, fp(x.grad, .29, .2),
--              fp(h.grad, .29, .2) if states else 0, fp(c.grad, .29, .2) if states and mode == 'LSTM' else 0]
--             + [fp(p.grad, .29, .2) for p in m.parameters()])
local CELL_CASES = {
  { 'LSTM', true, 3, true }, { 'LSTM', false, 0, true }, { 'LSTM', true, 0, false }, { 'GRU', true, 2, true },
  { 'GRU', true, 0, true }, { 'RNN_RELU', true, 2, true }, { 'RNN_TANH', false, 0, false },
}
local CELL_REF = {
  {0.485987304395, 1.36228457439, -0.415997581745, -0.140147385622, 1.59157466756, -1.16193932127, 0.427018396699, 3.21877367751, 3.21877367751},
  {0.0750439970555, 0.191768931594, -0.0875235004694, 0.00342847552195, 0.27383595598, -0.736793493747, 0.093830508434},
  {0.0362073082328, 0.179788923022, -0.162871241516, 0, 0, -0.740965350046, 0, 0.672469062882, 0.672469062882},
  {1.03129541777, 0, -0.00048340983943, 0.583936421398, 0, 0.390070000541, 0.0822804323799, 0.984509766045, 0.542771938786},
  {0.262562096405, 0, -0.0563986479066, 0.136784792451, 0, -0.504450822567, 0.0223296509354, 0.296827253465, 0.183384297754},
  {0.802495799586, 0, 0.499780140122, 0.412555981058, 0, -0.35994038351, 0.249596823716, 0.195578364164, 0.195578364164},
  {-0.000931945611016, 0, 0.0110495796445, 0, 0, 1.19418556438, 0},
}

function tests.cellsMatchPyTorch()
  for i, c in ipairs(CELL_CASES) do
    local mode, bias, B, states = unpack(c)
    for _, path in ipairs({ 'autograd', 'torch7' }) do
      local m
      if mode == 'LSTM' then m = nn.LSTMCell(3, 2, bias)
      elseif mode == 'GRU' then m = nn.GRUCell(3, 2, bias)
      else m = nn.RNNCell(3, 2, bias, mode == 'RNN_TANH' and 'tanh' or 'relu') end
      m:double()
      local params, grads = m:parameters()
      for j, p in ipairs(params) do p:copy(fill(p:nElement(), 1.3, 0.7 * (j - 1) + 0.1, 0.4):viewAs(p)) end
      local n = math.max(B, 1)
      local x = fill(n * 3, 0.9, 0.3, 1):view(unpack(B > 0 and { B, 3 } or { 3 }))
      local h = fill(n * 2, 0.7, 0.2, 0.5):view(unpack(B > 0 and { B, 2 } or { 2 }))
      local cc = fill(n * 2, 0.5, 0.9, 0.5):viewAs(h)
      if path == 'autograd' then x:requiresGrad(); h:requiresGrad(); cc:requiresGrad() end
      local inp = states and (mode == 'LSTM' and { x, h, cc } or { x, h }) or x
      m:zeroGradParameters()
      local out = m:forward(inp)
      local h1, c1 = out, nil
      if mode == 'LSTM' then h1, c1 = out[1], out[2] end
      local w2, w3 = fill(h1:nElement(), 0.23, 0.3, 1):viewAs(h1), c1 and fill(c1:nElement(), 0.11, 0.5, 1):viewAs(c1)
      local gx, gh, gc
      if path == 'autograd' then
        local loss = torch.cmul(h1, w2):sum()
        if c1 then loss = loss + torch.cmul(c1, w3):sum() end
        loss:backward()
        gx, gh, gc = x.grad, h.grad, cc.grad
      else
        local gi = m:backward(inp, mode == 'LSTM' and { w2, w3 } or w2)
        gx = states and gi[1] or gi
        gh, gc = states and gi[2], states and gi[3]
      end
      local got = { fp(h1, 0.23, 0.3), c1 and fp(c1, 0.11, 0.5) or 0, fp(gx, 0.29, 0.2), gh and fp(gh, 0.29, 0.2) or 0,
                    (gc and mode == 'LSTM') and fp(gc, 0.29, 0.2) or 0 }
      for k, p in ipairs(params) do got[#got + 1] = fp(path == 'autograd' and p.grad or grads[k], 0.29, 0.2) end
      local name, ref = string.format('cell case %d (%s) %s', i, mode, path), CELL_REF[i]
      tester:asserteq(#got, #ref, name .. ': number of values')
      for k = 1, #ref do tester:assertalmosteq(got[k], ref[k], 1e-9, name .. ': value ' .. k) end
    end
  end
end

-- ---- gradchecks and dropout ---------------------------------------------------------------------

-- A 2-layer bidirectional LSTM on an unsorted packed batch with initial states: every gradient
-- (data, h0, c0, parameters) against central differences, in double.
function tests.packedUnsortedBidirectionalGradcheck()
  torch.manualSeed(11)
  local m = nn.LSTM(2, 2, 2, { bidirectional = true }):double()
  local x = torch.randn(4, 3, 2):double()
  local lengths = { 2, 4, 1 }
  local h0 = torch.randn(4, 3, 2):double():mul(0.5):requiresGrad()
  local c0 = torch.randn(4, 3, 2):double():mul(0.5):requiresGrad()
  local data = R.packPaddedSequence(x, lengths, false, false).data:clone():requiresGrad()
  local ins = { data, h0, c0 }
  for _, p in ipairs(m:parameters()) do ins[#ins + 1] = p end
  local ok, err = pcall(torch.autograd.gradcheck, function(d, h, c)
    local ps = R.packPaddedSequence(x, lengths, false, false)
    local out = m:forward({ nn.PackedSequence(d, ps.batchSizes, ps.sortedIndices), h, c })
    return out.data, m.hN, m.cN
  end, ins)
  tester:assert(ok and err == true, 'gradcheck: ' .. tostring(err))
end

-- Dropout between layers: none in evaluation mode (equal to dropout = 0), masks in training that
-- both backward paths share.
function tests.dropoutTrainVersusEval()
  torch.manualSeed(12)
  local m = nn.GRU(3, 4, 3, { dropout = 0.5 }):double()
  local plain = m:clone()
  plain.dropout = 0
  local x = torch.randn(5, 2, 3):double()
  m:evaluate()
  tester:assertTensorEq(m:forward(x), plain:forward(x), 0, 'evaluation mode has no dropout')
  m:training()
  tester:assertgt((m:forward(x) - plain:forward(x)):abs():max(), 1e-3, 'training mode drops')
  local xr = x:clone():requiresGrad()
  local y = m:forward(xr)
  local g = torch.randn(y:size()):double()
  m:zeroGradParameters()
  torch.cmul(y, g):sum():backward()
  local gx, gw = xr.grad:clone(), m.weight_hh_l0.grad:clone()
  m:zeroGradParameters()
  local gi = m:backward(xr, g)
  tester:assertTensorEq(gi, gx, 1e-12, 'Torch7 backward uses the masks of the forward')
  tester:assertTensorEq(m.gradWeight_hh_l0, gw, 1e-12, 'weight gradient')
end

-- ---- nn.utils.rnn against PyTorch 1.13 ----------------------------------------------------------

-- PyTorch 1.13's values:
--   a, b, c = torch.arange(1., 7.).view(3, 2), torch.arange(7., 9.).view(1, 2), torch.arange(9., 13.).view(2, 2)
--   p = pack_sequence([b, a, c], enforce_sorted=False)
--   p.data, p.batch_sizes, p.sorted_indices, p.unsorted_indices
--   pad_packed_sequence(p, batch_first=True, padding_value=-1.5, total_length=4)
--   pad_packed_sequence(p, batch_first=False, padding_value=2.0, total_length=5)
--   pad_sequence([b, a, c], batch_first=True, padding_value=-3)
--   pack_padded_sequence(torch.arange(24.).view(4, 3, 2), torch.tensor([2, 4, 1]), enforce_sorted=False)
--   pack_padded_sequence(torch.arange(24.).view(3, 4, 2), torch.tensor([2, 4, 2]), batch_first=True, enforce_sorted=False)
function tests.packPadHelpersMatchPyTorch()
  local a, b, c = torch.range(1, 6):view(3, 2), torch.range(7, 8):view(1, 2), torch.range(9, 12):view(2, 2)
  local p = R.packSequence({ b, a, c }, false)
  assert_values(p.data, { 1, 2, 9, 10, 7, 8, 3, 4, 11, 12, 5, 6 }, 'packSequence data')
  assert_values(p.batchSizes, { 3, 2, 1 }, 'batchSizes')
  assert_values(p.sortedIndices, { 2, 3, 1 }, 'sortedIndices (1-based)')
  assert_values(p.unsortedIndices, { 3, 1, 2 }, 'unsortedIndices (1-based)')
  local o, l = R.padPackedSequence(p, { batchFirst = true, paddingValue = -1.5, totalLength = 4 })
  tester:assertTableEq(o:size():totable(), { 3, 4, 2 }, 'batchFirst size')
  assert_values(o, { 7, 8, -1.5, -1.5, -1.5, -1.5, -1.5, -1.5, 1, 2, 3, 4, 5, 6, -1.5, -1.5, 9, 10, 11, 12, -1.5, -1.5,
    -1.5, -1.5 }, 'padPackedSequence batchFirst')
  assert_values(l, { 1, 3, 2 }, 'lengths in the caller order')
  o = R.padPackedSequence(p, false, 2, 5)
  tester:assertTableEq(o:size():totable(), { 5, 3, 2 }, 'time-major size')
  assert_values(o, { 7, 8, 1, 2, 9, 10, 2, 2, 3, 4, 11, 12, 2, 2, 5, 6, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2 },
    'padPackedSequence time-major')
  assert_values(R.padSequence({ b, a, c }, { batch_first = true, padding_value = -3 }),
    { 7, 8, -3, -3, -3, -3, 1, 2, 3, 4, 5, 6, 9, 10, 11, 12, -3, -3 }, 'padSequence batchFirst')
  p = R.packPaddedSequence(torch.range(0, 23):view(4, 3, 2), { 2, 4, 1 }, { enforceSorted = false })
  assert_values(p.data, { 2, 3, 0, 1, 4, 5, 8, 9, 6, 7, 14, 15, 20, 21 }, 'packPaddedSequence data')
  assert_values(p.batchSizes, { 3, 2, 1, 1 }, 'packPaddedSequence batchSizes')
  assert_values(p.sortedIndices, { 2, 1, 3 }, 'packPaddedSequence sortedIndices')
  p = R.packPaddedSequence(torch.range(0, 23):view(3, 4, 2), torch.LongTensor({ 2, 4, 2 }), true, false)
  assert_values(p.data, { 8, 9, 0, 1, 16, 17, 10, 11, 2, 3, 18, 19, 12, 13, 14, 15 }, 'batchFirst data, ties stable')
  assert_values(p.batchSizes, { 3, 3, 1, 1 }, 'batchFirst batchSizes')
  assert_values(p.sortedIndices, { 2, 1, 3 }, 'batchFirst sortedIndices')
end

-- ---- regressions ------------------------------------------------------------------------------

-- batchFirst = 1 ran the module time-major and bias = 0 kept the biases (PyTorch reads both as
-- true/false by truthiness; Lua's 0 is true): both silently gave other results than PyTorch. A
-- nonlinearity passed as nn.RNNCell's third argument (its bias) silently gave a tanh cell.
function tests.nonBooleanFlagsAreRejected()
  for _, cls in ipairs({ 'LSTM', 'GRU', 'RNN' }) do
    for _, opt in ipairs({ 'batchFirst', 'batch_first', 'bias' }) do
      local ok, err = pcall(nn[cls], 3, 2, { [opt] = 1 })
      tester:assert(not ok and tostring(err):find('%[nn%.' .. cls .. '%]') and tostring(err):find('must be a boolean'),
        cls .. ' ' .. opt .. ' = 1: ' .. tostring(err))
    end
  end
  for _, cls in ipairs({ 'LSTMCell', 'GRUCell', 'RNNCell' }) do
    local ok, err = pcall(nn[cls], 3, 2, 'relu')
    tester:assert(not ok and tostring(err):find('%[nn%.' .. cls .. '%] bias must be a boolean'),
      cls .. ": bias = 'relu': " .. tostring(err))
    tester:assert(pcall(nn[cls], 3, 2, false), cls .. ': bias = false still accepted')
    tester:assert(pcall(nn[cls], 3, 2, nil), cls .. ': bias = nil still accepted')
  end
  tester:assert(nn.RNNCell(3, 2, true, 'relu').mode == 'RNN_RELU', 'nn.RNNCell(3, 2, true, relu)')
  -- PyTorch's proj_size is LSTM's only (test_rnn_projected.lua covers the projections).
  local ok, err = pcall(nn.GRU, 3, 2, { proj_size = 1 })
  tester:assert(not ok and tostring(err):find('%[nn%.GRU%] proj_size is only supported for nn%.LSTM'), 'proj_size: ' .. tostring(err))
end

-- sortedIndices that are not a 1-based permutation (PyTorch's 0-based {1, 0, 2}, duplicates) were
-- accepted and padPackedSequence silently put rows in the wrong places (a row twice, zeros for a
-- sequence); an index out of range raised a raw "[torch.LongTensor] table element" error; an
-- unsortedIndices that is not the inverse of sortedIndices was accepted too.
function tests.packedSequenceChecksPermutations()
  local data, bs = torch.range(1, 5):view(5, 1), torch.LongTensor({ 3, 2 })
  local bad = { { 1, 0, 2 }, { 1, 1, 2 }, { 1, 4, 2 } }
  for _, idx in ipairs(bad) do
    local ok, err = pcall(nn.PackedSequence, data, bs, torch.LongTensor(idx))
    tester:assert(not ok and tostring(err):find('%[nn%.PackedSequence%] sortedIndices must be a permutation of 1%.%.3'),
      table.concat(idx, ' ') .. ': ' .. tostring(err))
  end
  local ok, err = pcall(nn.PackedSequence, data, bs, torch.LongTensor({ 2, 3, 1 }), torch.LongTensor({ 1, 2, 3 }))
  tester:assert(not ok and tostring(err):find('%[nn%.PackedSequence%] unsortedIndices must be the inverse'),
    'unsortedIndices: ' .. tostring(err))
  local p = nn.PackedSequence(data, bs, torch.LongTensor({ 2, 3, 1 }), torch.LongTensor({ 3, 1, 2 }))
  assert_values(R.padPackedSequence(p), { 3, 1, 2, 0, 4, 5 }, 'a valid permutation')
end

-- invertPermutation of a non-permutation: duplicates gave an "inverse" holding 0 ({1, 1, 2} ->
-- {2, 3, 0}) and 0-based indices failed with a [scatter] error.
function tests.invertPermutationChecksItsInput()
  for _, bad in ipairs({ { 1, 1, 2 }, { 0, 1, 2 }, { 1, 2, 4 } }) do
    local ok, err = pcall(R.invertPermutation, torch.LongTensor(bad))
    tester:assert(not ok and tostring(err):find('%[nn%.utils%.rnn%.invertPermutation%] expected a permutation of 1%.%.3'),
      table.concat(bad, ' ') .. ': ' .. tostring(err))
  end
  assert_values(R.invertPermutation(torch.LongTensor({ 3, 1, 2 })), { 2, 3, 1 }, 'inverse')
  tester:asserteq(R.invertPermutation(torch.LongTensor()):nElement(), 0, 'empty')
end

tester:add(tests)
tester:run()
