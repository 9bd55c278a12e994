-- nn.RNN / nn.LSTM / nn.GRU with bidirectional = true: outputs, final states and every gradient
-- against PyTorch 1.13 with the same weights (Torch7's backward and loss:backward()), parameter
-- names/order/shapes/initialization, the reverse half against a one-direction module on the
-- flipped sequence, Jacobians of Torch7's backward, dropout on both paths, batchFirst and
-- unbatched inputs, printing, serialization and errors.
require 'nn'
local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local util = dofile(here .. '/nn_rnn_util.lua')
dofile(here .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local checks = dofile(here .. '/fixtures/nn_checks.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()

-- PyTorch 1.13's values, from this script (/usr/bin/python3; argument 'bidir' here, 'packed' for
-- test_nn_rnn_packed.lua):
--   import sys, torch
--   from torch.nn.utils.rnn import pack_padded_sequence
--   torch.set_default_dtype(torch.float64)
--   def fill(n, a, b, s):
--       k = torch.arange(n, dtype=torch.float64)
--       return s * torch.sin(a * k + b) if s > 0 else -s * torch.cos(a * k + b)
--   def fp(t, a, b): return float((t.reshape(-1) * fill(t.numel(), a, b, 1)).sum())
--   def make(mode, L, bias, I, H):
--       kw = dict(num_layers=L, bias=bias, bidirectional=True)
--       m = {'LSTM': torch.nn.LSTM, 'GRU': torch.nn.GRU}.get(mode)
--       m = m(I, H, **kw) if m else torch.nn.RNN(I, H, nonlinearity='tanh' if mode == 'RNN_TANH' else 'relu', **kw)
--       with torch.no_grad():
--           for j, (name, p) in enumerate(m.named_parameters()):
--               p.copy_(fill(p.numel(), 1.3, 0.7 * j + 0.1, 0.4).reshape(p.shape))
--       return m
--   def run(m, mode, x, h0, c0, states):
--       if mode == 'LSTM': out, (hn, cn) = m(x, (h0, c0)) if states else m(x)
--       else: (out, hn), cn = (m(x, h0) if states else m(x)), None
--       return out, hn, cn
--   def report(m, mode, out, hn, cn, x, h0, c0, states):
--       loss = (out.reshape(-1) * fill(out.numel(), 0.37, 0.1, 1)).sum() + (hn.reshape(-1) * fill(hn.numel(), 0.23, 0.3, 1)).sum()
--       if cn is not None: loss = loss + (cn.reshape(-1) * fill(cn.numel(), 0.11, 0.5, 1)).sum()
--       loss.backward()
--       vals = [fp(out, 0.37, 0.1), fp(hn, 0.23, 0.3), fp(cn, 0.11, 0.5) if cn is not None else 0]
--       vals += [float(v) for v in out.reshape(-1)[:3]] + [float(v) for v in out.reshape(-1)[-3:]]
--       vals += [fp(x.grad, 0.29, 0.2)]
--       vals += [fp(h0.grad, 0.29, 0.2) if states else 0, fp(c0.grad, 0.29, 0.2) if states and mode == 'LSTM' else 0]
--       vals += [fp(p.grad, 0.29, 0.2) for p in m.parameters()]
--       return ', '.join('%.12g' % v for v in vals)
--   packed = sys.argv[1] == 'packed'
--   T, B, I, H = (5, 4, 3, 2) if packed else (4, 2, 3, 2)
--   cases = [('LSTM', 2, True, True), ('GRU', 2, True, True), ('GRU', 1, True, False), ('RNN_TANH', 2, True, True)] if packed \
--       else [('LSTM', 2, True, True), ('LSTM', 1, False, False), ('GRU', 2, True, True), ('GRU', 2, True, False),
--             ('RNN_TANH', 1, True, True), ('RNN_RELU', 2, True, True)]
--   for mode, L, bias, states in cases:
--       m = make(mode, L, bias, I, H)
--       x = fill(T * B * I, 0.9, 0.2, -1).reshape(T, B, I).requires_grad_()
--       h0 = fill(2 * L * B * H, 0.5, 1, 0.3).reshape(2 * L, B, H).requires_grad_()
--       c0 = fill(2 * L * B * H, 0.4, 2, -0.3).reshape(2 * L, B, H).requires_grad_()
--       inp = pack_padded_sequence(x, [3, 5, 1, 4], enforce_sorted=False) if packed else x
--       out, hn, cn = run(m, mode, inp, h0, c0, states)
--       print("  { '%s', %d, %s, %s, { %s } }," % (mode, L, 'true' if bias else 'false', 'true' if states else 'false',
--             report(m, mode, out.data if packed else out, hn, cn, x, h0, c0, states)))
local reference = {
  { 'LSTM', 2, true, true, { -0.100541019067, -0.0182284904904, -0.132806653127, 0.181400224564, 0.130025945906, -0.0139468096091, 0.183326173841, 0.0424588537938, -0.183417036558, -0.141905619436, -0.0310313070075, 0.542122858494, -0.25102564235, 0.28998271084, 2.69381844166, 2.69381844166, 0.738580240492, 0.404569516146, 1.62192024232, 1.62192024232, -0.20226699358, 0.521109838602, 4.25542741195, 4.25542741195, -0.035651159603, 0.108850209593, 2.30937104815, 2.30937104815 } },
  { 'LSTM', 1, false, false, { -0.0287457676884, -0.147242608246, -0.285738804446, -0.0161226929906, 0.0965204648593, -0.206602404696, 0.0711547628627, -0.158275396513, 0.0698851735229, -0.353324110593, 0, 0, -0.332142259026, -0.0200584459441, 0.649511516671, -0.0834775202818 } },
  { 'GRU', 2, true, true, { -0.648797195607, 1.22986318982, 0, 0.26182170188, 0.475251065347, -0.147623813148, 0.748563013726, 0.112786133912, -0.122050305524, 0.0141397948844, 1.19150016944, 0, -0.0036144620015, 0.310769272742, 2.20845283317, 1.33550232529, 0.173458344223, -0.0790873092628, 2.29022636298, 0.935803107677, -0.719487782744, 0.24135845305, 1.45951763995, 0.938761198594, -0.00892300367583, -0.153340476658, 0.0477252378292, -0.0233516235445 } },
  { 'GRU', 2, true, false, { -0.363499275606, 1.25950734368, 0, 0.254050544596, 0.519342980947, -0.179754747689, 0.730211677885, -0.0753154586044, -0.208969641756, 0.0165691418796, 0, 0, 0.0230068436775, 0.274479993091, 2.17623154743, 1.30490331032, 0.186266538438, -0.0818102612287, 2.40007387553, 1.02568907842, -0.667926299161, 0.213762216415, 1.52019983954, 0.990204000078, 0.089938741342, -0.0618556357998, 0.0928326261468, 0.0221483058698 } },
  { 'RNN_TANH', 1, true, true, { 0.563069826012, -0.797784900085, 0, 0.779836447489, -0.57258662657, -0.589108357308, -0.433501911293, -0.472997773403, -0.00304206895844, -0.175257630083, 0.0429406038137, 0, -0.532492126797, 0.403996003299, 0.792510824788, 0.792510824788, -0.54913351764, -1.09293867171, 1.0057179926, 1.0057179926 } },
  { 'RNN_RELU', 2, true, true, { 0.406178606942, 2.12630997072, 0, 0.347111792193, 0.146230317127, 0, 0.108229562959, 0, 0, 0.688912862933, -0.362901709276, 0, -0.100043829395, 1.05814327381, 0.568951469311, 0.568951469311, 2.18440900082, 0.341908078813, 0.814751919613, 0.814751919613, 1.39029681363, -0.439435762808, 0.728679093346, 0.728679093346, 0, 0, 0, 0 } },
}
local T, B, I, H = 4, 2, 3, 2

local function make(mode, L, bias, opts)
  opts = opts or {}
  opts.numLayers, opts.bias, opts.bidirectional = L, bias, true
  local m
  if mode == 'LSTM' then m = nn.LSTM(I, H, opts)
  elseif mode == 'GRU' then m = nn.GRU(I, H, opts)
  else
    opts.nonlinearity = mode == 'RNN_TANH' and 'tanh' or 'relu'
    m = nn.RNN(I, H, opts)
  end
  m:double()
  for j, p in ipairs(m:parameters()) do util.filled(p, 1.3, 0.7 * (j - 1) + 0.1, 0.4) end
  return m
end
local function inputs(L)
  return util.filled(torch.DoubleTensor(T, B, I), 0.9, 0.2, -1), util.filled(torch.DoubleTensor(2 * L, B, H), 0.5, 1, 0.3),
    util.filled(torch.DoubleTensor(2 * L, B, H), 0.4, 2, -0.3)
end
local function check_case(case, path)
  local mode, L, bias, states, ref = unpack(case)
  local name = string.format('bidirectional %s %d layers%s%s (%s)', mode, L, bias and '' or ' no bias',
    states and '' or ' no states', path)
  local m = make(mode, L, bias)
  local x, h0, c0 = inputs(L)
  local input = x
  if states then input = mode == 'LSTM' and { x, h0, c0 } or { x, h0 } end
  local gx, gh, gc = util.backwardPaths(m, input, x, h0, c0, states, path)
  tester:assertTableEq(m.output:size():totable(), { T, B, 2 * H }, name .. ': output size')
  tester:assertTableEq(m.hN:size():totable(), { 2 * L, B, H }, name .. ': hN size')
  util.checkFingerprint(tester, m, m.output, gx, gh, gc, true, ref, name)
end

function tests.forwardAndGradientsMatchPyTorch()
  for _, case in ipairs(reference) do
    check_case(case, 'torch7')
    check_case(case, 'autograd')
  end
end

function tests.parametersNamesOrderShapesAndInit()
  local m = nn.LSTM(10, 20, { numLayers = 2, bidirectional = true })
  tester:assertTableEq(m._stateParams, {
    'weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0',
    'weight_ih_l0_reverse', 'weight_hh_l0_reverse', 'bias_ih_l0_reverse', 'bias_hh_l0_reverse',
    'weight_ih_l1', 'weight_hh_l1', 'bias_ih_l1', 'bias_hh_l1',
    'weight_ih_l1_reverse', 'weight_hh_l1_reverse', 'bias_ih_l1_reverse', 'bias_hh_l1_reverse' })
  local ps, gs = m:parameters()
  tester:asserteq(#ps, 16)
  tester:assert(ps[5] == m.weight_ih_l0_reverse and gs[5] == m.gradWeight_ih_l0_reverse, 'reverse parameters in order')
  tester:assertTableEq(m.weight_ih_l0_reverse:size():totable(), { 80, 10 })
  tester:assertTableEq(m.weight_ih_l1:size():totable(), { 80, 40 }, 'layers above the first take both directions')
  tester:assertTableEq(m.weight_ih_l1_reverse:size():totable(), { 80, 40 })
  tester:assertTableEq(m.weight_hh_l1_reverse:size():totable(), { 80, 20 })
  local bound, total = 1 / math.sqrt(20), 0
  for k, p in ipairs(ps) do
    tester:assertle(p:detach():abs():max(), bound, 'init bound')
    tester:assertgt(p:detach():abs():max(), bound * 0.5, 'init spread')
    tester:assert(gs[k]:isSameSizeAs(p) and gs[k]:abs():max() == 0 and p.grad ~= nil, 'gradients zero and linked')
    total = total + p:nElement()
  end
  tester:asserteq(m:getParameters():nElement(), total)
  tester:asserteq(total, 2 * (80 * 10 + 80 * 20 + 160) + 2 * (80 * 40 + 80 * 20 + 160))
  tester:asserteq(#nn.GRU(3, 5, { bidirectional = true, bias = false }):parameters(), 4)
  local sd = nn.GRU(3, 5, { bidirectional = true }):stateDict()
  tester:assert(sd.weight_hh_l0_reverse ~= nil and sd.bias_ih_l0_reverse ~= nil, 'stateDict has PyTorch names')
end

-- The reverse half of a one-layer bidirectional module is a one-direction module with the
-- *_reverse weights run on the time-flipped sequence, its output flipped back.
function tests.reverseHalfIsTheFlippedSequence()
  torch.manualSeed(1)
  for _, mode in ipairs({ 'LSTM', 'GRU', 'RNN_TANH' }) do
    local bi = make(mode, 1, true)
    local fwd = (mode == 'LSTM' and nn.LSTM or mode == 'GRU' and nn.GRU or nn.RNN)(I, H):double()
    local rev = fwd:clone()
    for _, n in ipairs({ 'weight_ih', 'weight_hh', 'bias_ih', 'bias_hh' }) do
      fwd[n .. '_l0']:copy(bi[n .. '_l0'])
      rev[n .. '_l0']:copy(bi[n .. '_l0_reverse'])
    end
    local x = torch.randn(T, B, I):double()
    local y = bi:forward(x)
    tester:assertTensorEq(y:narrow(3, 1, H), fwd:forward(x), 1e-12, mode .. ' forward half')
    tester:assertTensorEq(y:narrow(3, H + 1, H), torch.flip(rev:forward(torch.flip(x, 1)), 1), 1e-12, mode .. ' reverse half')
    tester:assertTensorEq(bi.hN[1], fwd.hN[1], 1e-12, mode .. ' hN forward')
    tester:assertTensorEq(bi.hN[2], rev.hN[1], 1e-12, mode .. ' hN reverse')
    if mode == 'LSTM' then tester:assertTensorEq(bi.cN[2], rev.cN[1], 1e-12, mode .. ' cN reverse') end
  end
end

function tests.torch7BackwardJacobians()
  torch.manualSeed(2)
  local outs = function(m) return { m.output, m.hN, m.cN } end
  local grad = function(gs) return gs end
  for _, mode in ipairs({ 'LSTM', 'GRU', 'RNN_TANH' }) do
    local m = (mode == 'LSTM' and nn.LSTM or mode == 'GRU' and nn.GRU or nn.RNN)(3, 2, { numLayers = 2, bidirectional = true }):double()
    local x = torch.randn(3, 2, 3):double()
    local h0, c0 = torch.randn(4, 2, 2):double():mul(0.5), torch.randn(4, 2, 2):double():mul(0.5)
    local err = util.jacobianError(m, mode == 'LSTM' and { x, h0, c0 } or { x, h0 }, outs, grad)
    tester:assertlt(err, 1e-6, mode .. ': jacobian error ' .. err)
    local bf = (mode == 'LSTM' and nn.LSTM or mode == 'GRU' and nn.GRU or nn.RNN)(3, 2,
      { bidirectional = true, bias = false, batchFirst = true }):double()
    err = util.jacobianError(bf, x:transpose(1, 2):contiguous(), outs, grad)
    tester:assertlt(err, 1e-6, mode .. ' batchFirst, no bias: jacobian error ' .. err)
  end
end

function tests.torch7BackwardEqualsLossBackwardWithDropout()
  torch.manualSeed(3)
  for _, mode in ipairs({ 'LSTM', 'GRU' }) do
    local m = (mode == 'LSTM' and nn.LSTM or nn.GRU)(3, 2, { numLayers = 3, dropout = 0.5, bidirectional = true,
      batchFirst = true }):double()
    local x = torch.randn(2, 5, 3):double():requiresGrad()
    local h0, c0 = torch.randn(6, 2, 2):double():requiresGrad(), torch.randn(6, 2, 2):double():requiresGrad()
    local input = mode == 'LSTM' and { x, h0, c0 } or { x, h0 }
    local out = m:forward(input)  -- one forward: both paths see the same dropout masks
    local go, gh, gc = torch.randn(out:size()):double(), torch.randn(6, 2, 2):double(), torch.randn(6, 2, 2):double()
    m:zeroGradParameters()
    local gi = m:backward(input, { go, gh, mode == 'LSTM' and gc or nil })
    local t7 = { gi[1]:clone(), gi[2]:clone(), gi[3] and gi[3]:clone() }
    local _, grads = m:parameters()
    local pg = {}
    for k, g in ipairs(grads) do pg[k] = g:clone() end
    m:zeroGradParameters()
    local loss = torch.cmul(out, go):sum() + torch.cmul(m.hN, gh):sum()
    if mode == 'LSTM' then loss = loss + torch.cmul(m.cN, gc):sum() end
    loss:backward()
    tester:assertTensorEq(x.grad, t7[1], 1e-12, mode .. ' input')
    tester:assertTensorEq(h0.grad, t7[2], 1e-12, mode .. ' h0')
    if mode == 'LSTM' then tester:assertTensorEq(c0.grad, t7[3], 1e-12, mode .. ' c0') end
    for k, g in ipairs(grads) do tester:assertTensorEq(g, pg[k], 1e-12, mode .. ' parameter ' .. k) end
    tester:assertgt(pg[#pg]:abs():max(), 0)
  end
end

function tests.batchFirstAndUnbatched()
  for _, mode in ipairs({ 'LSTM', 'GRU' }) do
    local m, bf = make(mode, 2, true), make(mode, 2, true, { batchFirst = true })
    local x, h0, c0 = inputs(2)
    local input = mode == 'LSTM' and { x, h0, c0 } or { x, h0 }
    local xb = x:transpose(1, 2):contiguous()
    local y = m:forward(input)
    local yb = bf:forward(mode == 'LSTM' and { xb, h0, c0 } or { xb, h0 })
    tester:assertTensorEq(yb, y:transpose(1, 2), 1e-12, mode .. ' batchFirst output')
    tester:assertTensorEq(bf.hN, m.hN, 1e-12, mode .. ' batchFirst hN')
    local x1, h1, c1 = x:select(2, 2), h0:select(2, 2), c0:select(2, 2)
    local y1 = m:forward(mode == 'LSTM' and { x1, h1, c1 } or { x1, h1 })
    tester:assertTensorEq(y1, y:select(2, 2), 1e-12, mode .. ' unbatched output')
    tester:assertTableEq(m.hN:size():totable(), { 4, H }, mode .. ' unbatched hN')
    local gi = m:backward(mode == 'LSTM' and { x1, h1, c1 } or { x1, h1 }, torch.ones(T, 2 * H):double())
    tester:assertTableEq(gi[1]:size():totable(), { T, I })
    tester:assertTableEq(gi[2]:size():totable(), { 4, H })
  end
end

function tests.printingSerializationAndErrors()
  tester:asserteq(tostring(nn.LSTM(200, 200, { numLayers = 2, bidirectional = true })),
    'nn.LSTM(200 -> 200, 2 layers, bidirectional)')
  tester:asserteq(tostring(nn.GRU(3, 4, { bidirectional = true, batchFirst = true })), 'nn.GRU(3 -> 4, bidirectional, batchFirst)')
  local m = make('LSTM', 2, true):float()
  local m2 = checks.roundTrip(tester, m, inputs(2):float(), 'bidirectional LSTM')
  tester:assert(m2.bidirectional == true and m2.weight_hh_l1_reverse:equal(m.weight_hh_l1_reverse), 'deserialized')
  local g = nn.GRU(4, 5, { numLayers = 2, bidirectional = true })
  tester:assertErrorPattern(function() g:forward({ torch.randn(2, 3, 4), torch.randn(2, 3, 5) }) end,
    'bidirectional%)%] h0 must be 4x3x5, got torch%.FloatTensor of size 2x3x5')
  tester:assertErrorPattern(function() g:forward(torch.randn(2, 3, 5)) end, 'expected input of size seqLen x batch x 4')
  g:forward(torch.randn(2, 3, 4))
  tester:assertErrorPattern(function() g:backward(torch.randn(2, 3, 4), torch.randn(2, 3, 10)) end, 'another input')
  tester:assertErrorPattern(function() nn.LSTM(3, 3, { bidirectional = 1 }) end, 'bidirectional must be a boolean, got number')
end

function tests.cudaMatchesCpu()
  if not torch.cuda.isAvailable() then return end
  for _, mode in ipairs({ 'LSTM', 'GRU' }) do
    local m = make(mode, 2, true)
    local x, h0, c0 = inputs(2)
    local input = mode == 'LSTM' and { x, h0, c0 } or { x, h0 }
    local y = m:forward(input)
    local g = torch.randn(y:size()):double()
    local gi = m:backward(input, g)
    local mc = m:clone():type('torch.CudaDoubleTensor')
    local xc = { x:cuda(), h0:cuda(), mode == 'LSTM' and c0:cuda() or nil }
    mc:zeroGradParameters()
    tester:assertTensorEq(mc:forward(xc):double(), y, 1e-10, mode .. ' cuda output')
    local gic = mc:backward(xc, g:cuda())
    tester:assertTensorEq(gic[1]:double(), gi[1], 1e-10, mode .. ' cuda gradInput')
    tester:assertTensorEq(mc.gradWeight_ih_l1_reverse:double(), m.gradWeight_ih_l1_reverse, 1e-10, mode .. ' cuda gradWeight')
  end
end

tester:add(tests)
tester:run()
