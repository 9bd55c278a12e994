-- nn.LSTM with projSize (PyTorch 1.13's proj_size, nn/rnn_projected.lua): outputs, final states and
-- every gradient against PyTorch 1.13 with the same weights (loss:backward() and Torch7's backward;
-- 2 and 3 layers, bidirectional, batchFirst, unbatched, packed), parameter names/order/shapes and
-- initialization, gradchecks in double, dropout, type conversion, clone, serialization and
-- errors. Recurrent modules and cells on a batch of size 0: PyTorch's empty shapes and gradients.
require 'nn'
local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local util = dofile(here .. '/nn_rnn_util.lua')
dofile(here .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local fill, fp = util.fill, util.fp
local R = nn.utils.rnn

local I, H, P, T, B = 3, 4, 2, 4, 3
-- PyTorch 1.13's values, from this script (/usr/bin/python3; fill and fp as in
-- test_nn_rnn_bidirectional.lua's script, whose weight fill this shares):
--   I, H, P, T, B = 3, 4, 2, 4, 3
--   cases = [('main', 2, True, True, True, True, 'padded'), ('plain', 1, False, False, False, False, 'padded'),
--            ('deep', 3, True, False, False, True, 'padded'), ('packed', 2, True, True, False, True, 'packed'),
--            ('unbatched', 2, True, True, True, True, 'unbatched')]
--   for name, L, bias, bidir, bf, states, kind in cases:
--       D = 2 if bidir else 1
--       m = torch.nn.LSTM(I, H, L, bias=bias, bidirectional=bidir, batch_first=bf, proj_size=P)
--       with torch.no_grad():
--           for j, (n, p) in enumerate(m.named_parameters()):
--               p.copy_(fill(p.numel(), 1.3, 0.7 * j + 0.1, 0.4).reshape(p.shape))
--       Bk = 1 if kind == 'unbatched' else B
--       shape = (T, I) if kind == 'unbatched' else ((B, T, I) if bf else (T, B, I))
--       x = fill(T * Bk * I, 0.9, 0.2, -1).reshape(shape).requires_grad_()
--       sh = (D * L, P) if kind == 'unbatched' else (D * L, B, P)
--       sc = (D * L, H) if kind == 'unbatched' else (D * L, B, H)
--       h0 = fill(D * L * Bk * P, 0.5, 1, 0.3).reshape(sh).requires_grad_()
--       c0 = fill(D * L * Bk * H, 0.4, 2, -0.3).reshape(sc).requires_grad_()
--       inp = pack_padded_sequence(x, [3, 4, 1], enforce_sorted=False) if kind == 'packed' else x
--       out, (hn, cn) = m(inp, (h0, c0)) if states else m(inp)
--       if kind == 'packed': out = out.data
--       loss = (out.reshape(-1) * fill(out.numel(), 0.37, 0.1, 1)).sum() \
--           + (hn.reshape(-1) * fill(hn.numel(), 0.23, 0.3, 1)).sum() + (cn.reshape(-1) * fill(cn.numel(), 0.11, 0.5, 1)).sum()
--       loss.backward()
--       vals = [fp(out, 0.37, 0.1), fp(hn, 0.23, 0.3), fp(cn, 0.11, 0.5)]
--       vals += [float(v) for v in out.reshape(-1)[:3]] + [float(v) for v in out.reshape(-1)[-3:]]
--       vals += [fp(x.grad, 0.29, 0.2), fp(h0.grad, 0.29, 0.2) if states else 0, fp(c0.grad, 0.29, 0.2) if states else 0]
--       vals += [fp(p.grad, 0.29, 0.2) for p in m.parameters()]
local cases = {
  { 'main', 2, true, true, true, true, 'padded' }, { 'plain', 1, false, false, false, false, 'padded' },
  { 'deep', 3, true, false, false, true, 'padded' }, { 'packed', 2, true, true, false, true, 'packed' },
  { 'unbatched', 2, true, true, true, true, 'unbatched' },
}
local reference = {
  main = { -0.639365831273, 0.232163840348, 1.80246687876, -0.133358083439, -0.0759568321747, -0.246262578643, -0.0622374115095, -0.113505127894, -0.0363971820614, -0.450389496129, -0.178625344466, 0.316284353396, 2.49730311294, 0.581803508339, 2.9045239029, 2.9045239029, 0.577007346171, 0.949950660991, 0.503238636917, 0.348279046851, 0.348279046851, -0.422928985336, -0.134331415701, -0.214422102096, -0.911463808208, -0.911463808208, -0.418439965344, -1.59855582571, -1.35360671868, -1.68619741175, -1.68619741175, 0.0130946733881 },
  plain = { 0.0288128094766, 0.013698269434, 0.886387898851, -0.0156307635626, 0.0102620472605, 0.0152885431226, 0.0425129151195, 0.0158020167026, -0.0198190869639, -0.2777981558, 0, 0, -0.616724296067, 0.00425777572903, 0.505666761241 },
  deep = { -0.447221348186, -0.739757808392, 0.283924807317, -0.135353118924, -0.0711652361431, -0.15128901683, -0.0524700806491, -0.203312552044, -0.0524676032973, -0.207341055931, -0.219406318039, -0.11187857159, 1.97437497856, 0.549458398269, 2.90143623711, 2.90143623711, 0.915600526021, 0.561399184476, 0.471578460365, 0.0707011639022, 0.0707011639022, -0.484633496895, -0.285838820457, -0.22394794882, -1.07170380426, -1.07170380426, -0.0184688077044 },
  packed = { -0.334065406297, 0.0276134485733, 2.15305300702, -0.147509305837, -0.0514025467441, -0.24957934672, -0.0635806269545, -0.154400978049, -0.0200734871077, -0.194848987822, -0.802483573674, 0.580989973522, 1.56354202815, 0.260143209493, 2.00960307068, 2.00960307068, 0.617956980192, 0.831746731286, 0.355216482295, 0.47714598031, 0.47714598031, -0.537854871926, 0.0324942031865, -0.0552531298288, -0.330117745715, -0.330117745715, 0.314660484324, -1.31807462559, -1.10527684928, -1.63139114641, -1.63139114641, -0.0645468365435 },
  unbatched = { -0.197151575865, -0.860643599517, 0.465044031016, -0.14400256399, -0.0749122000263, -0.239797784275, -0.0656589520014, -0.104693826043, -0.0253749645135, -0.141879989343, -0.0327060114163, 0.0723629420756, 0.120449244566, 0.0197982720127, 0.563730961101, 0.563730961101, -0.0204754197949, 0.54067948074, 0.26251280145, 0.306455017556, 0.306455017556, -0.0268140882755, 0.111527412929, 0.263303160187, 1.07324473859, 1.07324473859, 0.262145012927, 0.692725608996, 0.466106321181, 0.538989920695, 0.538989920695, 0.144767838512 },
}

-- The module of a case with the reference weights (double), and its inputs.
local function make(L, bias, bidir, bf, opts)
  local o = { projSize = P, bias = bias, bidirectional = bidir, batchFirst = bf }
  for k, v in pairs(opts or {}) do o[k] = v end
  local m = nn.LSTM(I, H, L, o):double()
  local j = 0
  for _, p in m:namedParameters() do
    util.filled(p, 1.3, 0.7 * j + 0.1, 0.4)
    j = j + 1
  end
  return m
end
local function inputs(L, bidir, bf, kind)
  local D = bidir and 2 or 1
  local Bk = kind == 'unbatched' and 1 or B
  local x = fill(T * Bk * I, 0.9, 0.2, -1)
  x = kind == 'unbatched' and x:view(T, I) or bf and x:view(B, T, I) or x:view(T, B, I)
  local h0 = fill(D * L * Bk * P, 0.5, 1, 0.3)
  local c0 = fill(D * L * Bk * H, 0.4, 2, -0.3)
  if kind == 'unbatched' then return x, h0:view(D * L, P), c0:view(D * L, H) end
  return x, h0:view(D * L, B, P), c0:view(D * L, B, H)
end

function tests.matchesPyTorch()
  for _, c in ipairs(cases) do
    local name, L, bias, bidir, bf, states, kind = unpack(c)
    for _, path in ipairs({ 'torch7', 'autograd' }) do
      local m = make(L, bias, bidir, bf)
      local x, h0, c0 = inputs(L, bidir, bf, kind)
      local label = name .. ' (' .. path .. ')'
      if kind == 'packed' then
        local xr = x:clone():requiresGrad()
        local ps = R.packPaddedSequence(xr, { 3, 4, 1 }, false, false)
        local input = states and { ps, h0:requiresGrad(), c0:requiresGrad() } or ps
        m:zeroGradParameters()
        local out = m:forward(input)
        local g = util.lossGrads(m, out.data)
        local gx, gh, gc
        if path == 'torch7' then
          local gi = m:backward(input, { g[1], g[2], g[3] })
          -- the gradient of the packed data, scattered back to the padded input as autograd does
          gx = torch.autograd.grad({ ps.data }, { xr }, { gi[1].data })[1]
          gh, gc = gi[2], gi[3]
        else
          util.loss(m, out.data, g):backward()
          gx, gh, gc = xr.grad, h0.grad, c0.grad
        end
        util.checkFingerprint(tester, m, out.data, gx, gh, gc, true, reference[name], label)
      else
        local input = states and { x, h0, c0 } or x
        local gx, gh, gc = util.backwardPaths(m, input, x, h0, c0, states, path)
        util.checkFingerprint(tester, m, m.output, gx, gh, gc, true, reference[name], label)
      end
    end
  end
end

function tests.parametersNamesShapesAndInit()
  -- PyTorch 1.13's state_dict keys, in order, with shapes, of LSTM(3, 5, 2, proj_size=2, bidirectional=True)
  local want = {
    { 'weight_ih_l0', 20, 3 }, { 'weight_hh_l0', 20, 2 }, { 'bias_ih_l0', 20 }, { 'bias_hh_l0', 20 }, { 'weight_hr_l0', 2, 5 },
    { 'weight_ih_l0_reverse', 20, 3 }, { 'weight_hh_l0_reverse', 20, 2 }, { 'bias_ih_l0_reverse', 20 },
    { 'bias_hh_l0_reverse', 20 }, { 'weight_hr_l0_reverse', 2, 5 },
    { 'weight_ih_l1', 20, 4 }, { 'weight_hh_l1', 20, 2 }, { 'bias_ih_l1', 20 }, { 'bias_hh_l1', 20 }, { 'weight_hr_l1', 2, 5 },
    { 'weight_ih_l1_reverse', 20, 4 }, { 'weight_hh_l1_reverse', 20, 2 }, { 'bias_ih_l1_reverse', 20 },
    { 'bias_hh_l1_reverse', 20 }, { 'weight_hr_l1_reverse', 2, 5 },
  }
  for _, opts in ipairs({ { projSize = 2, bidirectional = true }, { proj_size = 2, bidirectional = true } }) do
    local m = nn.LSTM(3, 5, 2, opts)
    tester:asserteq(m.projSize, 2, 'projSize')
    local k = 0
    for name, p in m:namedParameters() do
      k = k + 1
      tester:asserteq(name, want[k][1], 'name ' .. k)
      tester:assertTableEq(p:size():totable(), { unpack(want[k], 2) }, name .. ' shape')
    end
    tester:asserteq(k, #want, 'number of parameters')
    local sd = m:stateDict()
    for _, w in ipairs(want) do tester:assert(sd[w[1]] ~= nil, 'stateDict has ' .. w[1]) end
    local ps, gs = m:parameters()
    tester:asserteq(#ps, #want, 'parameters()')
    tester:assert(rawequal(gs[5], m.gradWeight_hr_l0), 'gradWeight_hr_l0 is the 5th gradient')
    m.gradWeight_hr_l0:fill(3)
    tester:asserteq(m.weight_hr_l0.grad:sum(), 30, 'weight_hr_l0.grad is gradWeight_hr_l0')
  end
  tester:asserteq(tostring(nn.LSTM(3, 5, 2, { projSize = 2, batchFirst = true })),
    'nn.LSTM(3 -> 5, 2 layers, projSize 2, batchFirst)', 'printing')
  tester:asserteq(nn.LSTM(3, 5, { projSize = 0 }).weight_hr_l0, nil, 'projSize 0: no projection')
  -- PyTorch's init: every parameter uniform(-1/sqrt(hidden), 1/sqrt(hidden)); moments of the
  -- n draws within 5 standard errors (mean 0, variance stdv^2 / 3).
  torch.manualSeed(11)
  local m = nn.LSTM(8, 64, 2, { projSize = 16 }):double()
  local stdv = 1 / math.sqrt(64)
  local flat = {}
  for i, p in ipairs(m:parameters()) do flat[i] = p:detach():view(-1) end
  local all = torch.cat(flat, 1)
  local n, var = all:nElement(), stdv ^ 2 / 3
  tester:assert(torch.abs(all):max() <= stdv, 'within the bounds')
  tester:assert(math.abs(all:mean()) < 5 * math.sqrt(var / n), 'mean ' .. all:mean())
  -- the variance of u^2 for u uniform(-s, s) is 4 s^4 / 45
  tester:assert(math.abs(torch.pow(all, 2):mean() - var) < 5 * math.sqrt(4 * stdv ^ 4 / 45 / n), 'variance')
  tester:assert(torch.abs(m.weight_hr_l1):max() > 0.9 * stdv, 'weight_hr drawn too')
end

function tests.gradchecks()
  torch.manualSeed(3)
  -- autograd (loss:backward) path: input, states and every parameter, 2 layers, bidirectional, batchFirst
  local m = nn.LSTM(2, 3, 2, { projSize = 2, bidirectional = true, batchFirst = true }):double()
  local x = torch.randn(2, 3, 2):double():requiresGrad()
  local h0 = torch.randn(4, 2, 2):double():mul(0.5):requiresGrad()
  local c0 = torch.randn(4, 2, 3):double():mul(0.5):requiresGrad()
  local ins = { x, h0, c0 }
  for _, p in ipairs(m:parameters()) do ins[#ins + 1] = p end
  local ok, err = pcall(torch.autograd.gradcheck, function(a, b, c)
    m:forward({ a, b, c })
    return m.output, m.hN, m.cN
  end, ins)
  tester:assert(ok and err == true, 'autograd: ' .. tostring(err))
  -- packed, both directions
  local xp = torch.randn(3, 3, 2):double():requiresGrad()
  ok, err = pcall(torch.autograd.gradcheck, function(a, b, c)
    local out = m:forward({ R.packPaddedSequence(a, { 1, 3, 2 }, true, false), b, c })
    return out.data, m.hN, m.cN
  end, { xp, torch.randn(4, 3, 2):double():requiresGrad(), torch.randn(4, 3, 3):double():requiresGrad() })
  tester:assert(ok and err == true, 'packed autograd: ' .. tostring(err))
  -- Torch7's backward (the replay): Jacobians of every input tensor and parameter
  local mm = nn.LSTM(2, 3, 2, { projSize = 1, bidirectional = true }):double()
  local input = { torch.randn(3, 2, 2):double(), torch.randn(4, 2, 1):double(), torch.randn(4, 2, 3):double() }
  local worst = util.jacobianError(mm, input, function(mod) return { mod.output, mod.hN, mod.cN } end,
    function(g) return g end)
  tester:assert(worst < 1e-6, 'torch7 Jacobian error ' .. worst)
  local unb = { torch.randn(3, 2):double(), torch.randn(4, 1):double(), torch.randn(4, 3):double() }
  worst = util.jacobianError(mm, unb, function(mod) return { mod.output, mod.hN, mod.cN } end, function(g) return g end)
  tester:assert(worst < 1e-6, 'torch7 unbatched Jacobian error ' .. worst)
end

function tests.dropoutAndModes()
  torch.manualSeed(5)
  local m = nn.LSTM(3, 4, 3, { projSize = 2, dropout = 0.5, batchFirst = true }):double()
  local x = torch.randn(2, 5, 3):double():requiresGrad()
  local h0, c0 = torch.randn(3, 2, 2):double():requiresGrad(), torch.randn(3, 2, 4):double():requiresGrad()
  local input = { x, h0, c0 }
  local out = m:forward(input)  -- one forward: both paths see the same masks
  local go, gh, gc = torch.randn(out:size()):double(), torch.randn(3, 2, 2):double(), torch.randn(3, 2, 4):double()
  m:zeroGradParameters()
  local gi = m:backward(input, { go, gh, gc })
  local _, grads = m:parameters()
  local t7 = {}
  for i, g in ipairs(grads) do t7[i] = g:clone() end
  m:zeroGradParameters()
  local loss = torch.cmul(out, go):sum() + torch.cmul(m.hN, gh):sum() + torch.cmul(m.cN, gc):sum()
  loss:backward()
  tester:assertTensorEq(gi[1], x.grad, 1e-10, 'dropout: gradInput')
  tester:assertTensorEq(gi[2], h0.grad, 1e-10, 'dropout: gradH0')
  tester:assertTensorEq(gi[3], c0.grad, 1e-10, 'dropout: gradC0')
  for i, g in ipairs(grads) do tester:assertTensorEq(g, t7[i], 1e-10, 'dropout: parameter gradient ' .. i) end
  -- masks drawn: two training forwards differ; evaluate() is the module without dropout
  local x2 = torch.randn(2, 5, 3):double()
  local a, b = m:forward(x2):clone(), m:forward(x2):clone()
  tester:assert((a - b):abs():max() > 1e-6, 'training forwards draw masks')
  m:evaluate()
  local plain = m:clone()
  plain.dropout = 0
  tester:assertTensorEq(m:forward(x2), plain:forward(x2), 1e-12, 'evaluate: no dropout')
  -- scale of Torch7's accGradParameters
  m:training()
  m:forward(input)
  m:zeroGradParameters()
  m:backward(input, { go, gh, gc }, 0.5)
  local once = m.gradWeight_hr_l2:clone()
  m:accGradParameters(input, { go, gh, gc }, 1)
  tester:assertTensorEq(m.gradWeight_hr_l2, once * 3, 1e-10, 'scale 0.5 then 1')
end

function tests.typeCloneAndSerialization()
  local m = make(2, true, true, true)
  local x, h0, c0 = inputs(2, true, true, 'padded')
  local ref = m:forward({ x, h0, c0 }):clone()
  local hN, cN = m.hN:clone(), m.cN:clone()
  local f = m:clone():float()
  tester:asserteq(torch.type(f.weight_hr_l1_reverse), 'torch.FloatTensor', 'float(): weight_hr')
  tester:asserteq(torch.type(f.gradWeight_hr_l1_reverse), 'torch.FloatTensor', 'float(): gradWeight_hr')
  local fo = f:forward({ x:float(), h0:float(), c0:float() })
  tester:assertTensorEq(fo:double(), ref, 1e-5, 'float output')
  tester:assertTensorEq(f.cN:double(), cN, 1e-5, 'float cN')
  tester:assertTensorEq(f:type('torch.DoubleTensor'):forward({ x, h0, c0 }), ref, 1e-5, 'type back to double')
  -- clone: same values, own parameters; clone(shared names) shares weight_hr too
  local c = m:clone()
  tester:assertTensorEq(c:forward({ x, h0, c0 }), ref, 0, 'clone output')
  c.weight_hr_l0:fill(0)
  tester:assert(torch.abs(m.weight_hr_l0):sum() > 0, 'clone owns its weight_hr')
  local s = m:clone('weight', 'bias', 'gradWeight', 'gradBias')
  s.weight_hr_l0:mul(2)  -- (powers of 2: restored exactly below)
  tester:assertTensorEq(s.weight_hr_l0, m.weight_hr_l0, 0, 'shared clone: weight_hr')
  s.weight_hr_l0:mul(0.5)
  -- torch.save/load and a stateDict into a fresh module
  local file = os.tmpname()
  torch.save(file, m)
  local l = torch.load(file)
  os.remove(file)
  tester:asserteq(l.projSize, P, 'loaded projSize')
  tester:assertTensorEq(l:forward({ x, h0, c0 }), ref, 0, 'loaded output')
  tester:assertTensorEq(l.hN, hN, 0, 'loaded hN')
  local fresh = nn.LSTM(I, H, 2, { projSize = P, bidirectional = true, batchFirst = true }):double()
  fresh:loadStateDict(m:stateDict())
  tester:assertTensorEq(fresh:forward({ x, h0, c0 }), ref, 0, 'loadStateDict output')
  -- Torch7's backward still refuses another input than the last forward
  tester:assertErrorPattern(function() l:backward(x:clone():add(1), ref) end, 'another input than the last forward')
end

function tests.errors()
  tester:assertErrorPattern(function() nn.GRU(3, 4, { projSize = 2 }) end,
    '%[nn%.GRU%] projSize is only supported for nn%.LSTM')
  tester:assertErrorPattern(function() nn.RNN(3, 4, { proj_size = 0 }) end,
    '%[nn%.RNN%] proj_size is only supported for nn%.LSTM')
  for _, bad in ipairs({ 4, 5, -1, 1.5 }) do
    tester:assertErrorPattern(function() nn.LSTM(3, 4, { projSize = bad }) end,
      '%[nn%.LSTM%] projSize must be an integer in %[0, hiddenSize = 4%) %(0: no projections%), got ' .. tostring(bad):gsub('%p', '%%%0'))
  end
  tester:assertErrorPattern(function() nn.LSTM(3, 4, { projSize = '2' }) end, 'projSize must be an integer.*got string')
  local m = nn.LSTM(3, 4, 2, { projSize = 2 })
  tester:assertErrorPattern(function() m:forward({ torch.randn(5, 2, 3), torch.zeros(2, 2, 4), torch.zeros(2, 2, 4) }) end,
    'h0 must be 2x2x2, got torch%.FloatTensor of size 2x2x4')
  tester:assertErrorPattern(function() m:forward({ torch.randn(5, 2, 3), torch.zeros(2, 2, 2), torch.zeros(2, 2, 2) }) end,
    'c0 must be 2x2x4, got torch%.FloatTensor of size 2x2x2')
  local x = torch.randn(5, 2, 3)
  m:forward(x)
  tester:assertErrorPattern(function() m:backward(x, { torch.zeros(5, 2, 2), nil, torch.zeros(2, 2, 2) }) end,
    'gradCN must be 2x2x4')
  tester:assertErrorPattern(function() m:backward(x, torch.zeros(5, 2, 4)) end, 'gradOutput must be a tensor of the output size 5x2x2')
  -- ONNX's LSTM has no projection: torch.onnx refuses projSize > 0 (as PyTorch 1.13), naming the module.
  if torch.onnx and torch.onnx.export then
    local file = os.tmpname()
    local ok, err = pcall(torch.onnx.export, nn.LSTM(3, 4, { projSize = 2 }), torch.randn(5, 2, 3), file)
    os.remove(file)
    tester:assert(not ok and tostring(err):find('LSTM') and tostring(err):find('projSize'), 'onnx export refused: ' .. tostring(err))
  end
end

-- PyTorch 1.13's shapes over a batch of size 0 (outputs and final states; the cells' states).
function tests.emptyBatch()
  local function sizes(t) return t:size():totable() end
  local specs = {
    { 'RNN', { bidirectional = true }, { 5, 0, 3 }, { 5, 0, 8 }, { 4, 0, 4 } },
    { 'GRU', { bidirectional = true }, { 5, 0, 3 }, { 5, 0, 8 }, { 4, 0, 4 } },
    { 'LSTM', { bidirectional = true }, { 5, 0, 3 }, { 5, 0, 8 }, { 4, 0, 4 }, { 4, 0, 4 } },
    { 'GRU', { batchFirst = true }, { 0, 5, 3 }, { 0, 5, 4 }, { 2, 0, 4 } },
    { 'LSTM', { batchFirst = true }, { 0, 5, 3 }, { 0, 5, 4 }, { 2, 0, 4 }, { 2, 0, 4 } },
    { 'LSTM', { projSize = 2 }, { 5, 0, 3 }, { 5, 0, 2 }, { 2, 0, 2 }, { 2, 0, 4 } },
    { 'LSTM', { projSize = 2, bidirectional = true, batchFirst = true }, { 0, 5, 3 }, { 0, 5, 4 }, { 4, 0, 2 }, { 4, 0, 4 } },
  }
  for _, s in ipairs(specs) do
    local cls, opts, xs, ys, hs, cs = unpack(s)
    local m = nn[cls](3, 4, 2, opts):double()
    local label = tostring(m)
    for _, states in ipairs({ false, true }) do
      local x = torch.randn(torch.LongStorage(xs)):double():requiresGrad()
      local h0 = states and torch.zeros(torch.LongStorage(hs)):double():requiresGrad() or nil
      local c0 = states and cs and torch.zeros(torch.LongStorage(cs)):double():requiresGrad() or nil
      local input = states and { x, h0, c0 } or x
      m:zeroGradParameters()
      local y = m:forward(input)
      tester:assertTableEq(sizes(y), ys, label .. ': output')
      tester:assertTableEq(sizes(m.hN), hs, label .. ': hN')
      if cs then tester:assertTableEq(sizes(m.cN), cs, label .. ': cN') end
      local loss = y:sum() + m.hN:sum() + (m.cN and m.cN:sum() or 0)
      loss:backward()
      tester:assertTableEq(sizes(x.grad), xs, label .. ': x.grad')
      if states then tester:assertTableEq(sizes(h0.grad), hs, label .. ': h0.grad') end
      if c0 then tester:assertTableEq(sizes(c0.grad), cs, label .. ': c0.grad') end
      local gi = m:backward(input, { y:clone(), m.hN:clone(), m.cN and m.cN:clone() })
      gi = states and gi or { gi }
      tester:assertTableEq(sizes(gi[1]), xs, label .. ': gradInput')
      if states then tester:assertTableEq(sizes(gi[2]), hs, label .. ': gradH0') end
      local _, grads = m:parameters()
      for _, g in ipairs(grads) do tester:asserteq(torch.abs(g):sum(), 0, label .. ': no parameter gradient') end
    end
  end
  for _, cls in ipairs({ 'RNNCell', 'GRUCell', 'LSTMCell' }) do
    local c = nn[cls](3, 4):double()
    local x, h = torch.randn(0, 3):double():requiresGrad(), torch.zeros(0, 4):double():requiresGrad()
    local lstm = cls == 'LSTMCell'
    local input = lstm and { x, h, torch.zeros(0, 4):double() } or { x, h }
    local out = c:forward(input)
    local hn = lstm and out[1] or out
    tester:assertTableEq(sizes(hn), { 0, 4 }, cls .. ': h')
    if lstm then tester:assertTableEq(sizes(out[2]), { 0, 4 }, cls .. ': c') end
    hn:sum():backward()
    tester:assertTableEq(sizes(x.grad), { 0, 3 }, cls .. ': x.grad')
    tester:assertTableEq(sizes(h.grad), { 0, 4 }, cls .. ': h.grad')
    c:zeroGradParameters()
    local gi = c:backward(input, lstm and { hn:clone(), out[2]:clone() } or hn:clone())
    tester:assertTableEq(sizes(gi[1]), { 0, 3 }, cls .. ': gradInput')
    tester:assertTableEq(sizes(gi[2]), { 0, 4 }, cls .. ': gradH')
    local o = c:forward(torch.randn(0, 3):double())
    tester:assertTableEq(sizes(lstm and o[1] or o), { 0, 4 }, cls .. ': no state')
  end
  -- PyTorch refuses a sequence of length 0 ("Expected sequence length to be larger than 0") and
  -- packing an empty batch ("Cannot pack empty tensors"): so do we, by name.
  tester:assertErrorPattern(function() nn.GRU(3, 4, { batchFirst = true }):forward(torch.randn(2, 0, 3)) end,
    '%[nn%.GRU%(3 %-> 4, batchFirst%)%] expected a sequence length of at least 1, got input torch%.FloatTensor of size 2x0x3')
  tester:assertErrorPattern(function() nn.LSTM(3, 4):forward(torch.randn(0, 3)) end, 'sequence length of at least 1')
  tester:assertErrorPattern(function() R.packPaddedSequence(torch.randn(5, 0, 3), {}) end,
    '%[packPaddedSequence%] cannot pack an empty batch')
end

tester:add(tests)
tester:run()
