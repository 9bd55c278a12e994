-- Gradients of the recurrent modules: Jacobians in f64 of Torch7's backward (input, initial
-- states, every weight; outputs and final states) and gradchecks of the autograd path, the two
-- paths agreeing (dropout included), cells against the sequence modules, modules applied several
-- times in one graph, Torch7-style training == autograd training, and double backward refused.
require 'nn'
local util = dofile(debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') .. '/nn_rnn_util.lua')
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local precision = 1e-6

local function seq_module(mode, L, opts)
  opts = opts or {}
  opts.numLayers = L
  if mode == 'LSTM' then return nn.LSTM(3, 2, opts):double() end
  if mode == 'GRU' then return nn.GRU(3, 2, opts):double() end
  opts.nonlinearity = mode == 'RNN_RELU' and 'relu' or 'tanh'
  return nn.RNN(3, 2, opts):double()
end
local function seq_outs(m) return { m.output, m.hN, m.cN } end
local function seq_grad(gs) return gs end

function tests.sequenceJacobians()
  torch.manualSeed(1)
  for _, mode in ipairs({ 'RNN_TANH', 'RNN_RELU', 'LSTM', 'GRU' }) do
    for _, L in ipairs({ 1, 2 }) do
      local m = seq_module(mode, L)
      local x = torch.randn(4, 2, 3):double()
      local h0, c0 = torch.randn(L, 2, 2):double():mul(0.5), torch.randn(L, 2, 2):double():mul(0.5)
      local input = mode == 'LSTM' and { x, h0, c0 } or { x, h0 }
      local err = util.jacobianError(m, input, seq_outs, seq_grad)
      tester:assertlt(err, precision, string.format('%s %d layers: jacobian error %g', mode, L, err))
      -- Without initial states (zeros, the first recurrent GEMM skipped) and without bias.
      local nb = seq_module(mode, L, { bias = false, batchFirst = true })
      err = util.jacobianError(nb, x:transpose(1, 2):contiguous(), seq_outs, seq_grad)
      tester:assertlt(err, precision, string.format('%s %d layers, no bias, batchFirst: jacobian error %g', mode, L, err))
    end
  end
  -- nn.Jacobian on a plain tensor input, as for any Torch7 module.
  local m = seq_module('LSTM', 2)
  tester:assertlt(nn.Jacobian.testJacobian(m, torch.DoubleTensor(3, 2, 3)), precision)
  tester:assertlt(nn.Jacobian.testJacobianParameters(m, torch.DoubleTensor(3, 2, 3), m.weight_hh_l1, m.gradWeight_hh_l1),
    precision)
end

function tests.cellJacobians()
  torch.manualSeed(2)
  local cells = { nn.LSTMCell(3, 2), nn.GRUCell(3, 2), nn.RNNCell(3, 2), nn.RNNCell(3, 2, true, 'relu'), nn.GRUCell(3, 2, false) }
  for _, cell in ipairs(cells) do
    cell:double()
    local lstm = cell.mode == 'LSTM'
    local x, h, c = torch.randn(2, 3):double(), torch.randn(2, 2):double(), torch.randn(2, 2):double()
    local outs = lstm and function(m) return m.output end or function(m) return { m.output } end
    local grad = lstm and function(gs) return gs end or function(gs) return gs[1] end
    local err = util.jacobianError(cell, lstm and { x, h, c } or { x, h }, outs, grad)
    tester:assertlt(err, precision, tostring(cell) .. ': jacobian error ' .. err)
    err = util.jacobianError(cell, x[1], outs, grad)
    tester:assertlt(err, precision, tostring(cell) .. ' unbatched: jacobian error ' .. err)
  end
end

function tests.autogradGradchecks()
  torch.manualSeed(3)
  for _, mode in ipairs({ 'LSTM', 'GRU', 'RNN_TANH' }) do
    local m = seq_module(mode, 2, { batchFirst = true })
    local x = torch.randn(2, 3, 3):double():requiresGrad()
    local h0 = torch.randn(2, 2, 2):double():mul(0.5):requiresGrad()
    local c0 = torch.randn(2, 2, 2):double():mul(0.5):requiresGrad()
    local ins = { x, h0, c0 }
    for _, p in ipairs(m:parameters()) do ins[#ins + 1] = p end
    local ok, err = pcall(torch.autograd.gradcheck, function(a, b, c)
      m:forward(mode == 'LSTM' and { a, b, c } or { a, b })
      return m.output, m.hN, m.cN
    end, ins)
    tester:assert(ok and err == true, mode .. ': ' .. tostring(err))
  end
  -- The op itself, with every argument differentiable.
  local args = { torch.randn(3, 2, 2):double():requiresGrad(), torch.randn(2, 3):double():requiresGrad(),
                 torch.randn(2, 3):double():requiresGrad(), torch.randn(12, 2):double():requiresGrad(),
                 torch.randn(12, 3):double():requiresGrad(), torch.randn(12):double():requiresGrad(),
                 torch.randn(12):double():requiresGrad() }
  local ok, err = pcall(torch.autograd.gradcheck, function(x, h, c, a, b, d, e)
    local y, hn, cn = torch.rnnLayer('LSTM', x, h, c, a, b, d, e)
    return y, hn, cn
  end, args)
  tester:assert(ok and err == true, 'rnnLayer: ' .. tostring(err))
end

function tests.torch7BackwardEqualsLossBackward()
  torch.manualSeed(4)
  for _, mode in ipairs({ 'LSTM', 'GRU', 'RNN_RELU' }) do
    local m = seq_module(mode, 3, { dropout = 0.5, batchFirst = true })
    local x = torch.randn(2, 5, 3):double():requiresGrad()
    local h0 = torch.randn(3, 2, 2):double():requiresGrad()
    local c0 = torch.randn(3, 2, 2):double():requiresGrad()
    local input = mode == 'LSTM' and { x, h0, c0 } or { x, h0 }
    local out = m:forward(input)  -- one forward: both paths see the same dropout masks
    local go, gh, gc = torch.randn(out:size()):double(), torch.randn(3, 2, 2):double(), torch.randn(3, 2, 2):double()
    m:zeroGradParameters()
    local gi = m:backward(input, { go, gh, mode == 'LSTM' and gc or nil })
    local torch7 = { gi[1]:clone(), gi[2]:clone(), gi[3] and gi[3]:clone() }
    local _, grads = m:parameters()
    local pg = {}
    for k, g in ipairs(grads) do pg[k] = g:clone() end
    m:zeroGradParameters()
    local loss = torch.cmul(out, go):sum() + torch.cmul(m.hN, gh):sum()
    if mode == 'LSTM' then loss = loss + torch.cmul(m.cN, gc):sum() end
    loss:backward()
    tester:assertTensorEq(x.grad, torch7[1], 1e-12, mode .. ' input')
    tester:assertTensorEq(h0.grad, torch7[2], 1e-12, mode .. ' h0')
    if mode == 'LSTM' then tester:assertTensorEq(c0.grad, torch7[3], 1e-12, mode .. ' c0') end
    for k, g in ipairs(grads) do tester:assertTensorEq(g, pg[k], 1e-12, mode .. ' parameter ' .. k) end
    tester:assertgt(pg[1]:abs():max(), 0)
    -- accGradParameters scales, and recomputes when given another gradOutput.
    m:zeroGradParameters()
    m:updateGradInput(input, { go, gh, gc })
    m:accGradParameters(input, { go, gh, mode == 'LSTM' and gc or nil }, 0.5)
    tester:assertTensorEq(grads[2], pg[2]:mul(0.5), 1e-12, mode .. ' scaled')
  end
  -- Dropout is only active in training mode.
  local m = seq_module('GRU', 2, { dropout = 0.9 })
  local x = torch.randn(4, 2, 3):double()
  m:evaluate()
  tester:assertTensorEq(m:forward(x), m:forward(x), 0)
end

function tests.cellsInALoopMatchTheSequenceModule()
  torch.manualSeed(5)
  for _, mode in ipairs({ 'LSTM', 'GRU' }) do
    local seq = mode == 'LSTM' and nn.LSTM(3, 4):double() or nn.GRU(3, 4):double()
    local cell = mode == 'LSTM' and nn.LSTMCell(3, 4):double() or nn.GRUCell(3, 4):double()
    local sp, cp = seq:parameters(), cell:parameters()
    for k = 1, 4 do cp[k]:copy(sp[k]) end
    local x = torch.randn(6, 2, 3):double()
    local y = seq:forward(x)
    local h, c = nil, nil
    local loss = 0
    local go = torch.randn(6, 2, 4):double()
    for t = 1, 6 do
      local out = cell:forward(h and (c and { x[t], h, c } or { x[t], h }) or x[t])
      if mode == 'LSTM' then h, c = out[1], out[2] else h = out end
      tester:assertTensorEq(h, y[t], 1e-12, mode .. ' step ' .. t)
      loss = loss + torch.cmul(h, go[t]):sum()
    end
    cell:zeroGradParameters()
    loss:backward()  -- one graph with the cell applied 6 times
    seq:zeroGradParameters()
    seq:backward(x, go)
    local _, sg = seq:parameters()
    local _, cg = cell:parameters()
    for k = 1, 4 do tester:assertTensorEq(cg[k], sg[k], 1e-10, mode .. ' gradient ' .. k) end
  end
end

function tests.moduleAppliedTwiceInOneGraph()
  torch.manualSeed(6)
  local m = nn.GRU(3, 4, 2):double()
  local a, b = torch.randn(5, 2, 3):double(), torch.randn(3, 2, 3):double()
  m:zeroGradParameters()
  local loss = m:forward(a):sum() + m:forward(b):sum() * 2
  loss:backward()
  local _, grads = m:parameters()
  local total = grads[1]:clone()
  m:zeroGradParameters()
  m:forward(a)
  m:backward(a, torch.ones(5, 2, 4):double())
  m:forward(b)
  m:backward(b, torch.ones(3, 2, 4):double():mul(2))
  tester:assertTensorEq(grads[1], total, 1e-12)
end

function tests.torch7AndAutogradTrainIdentically()
  torch.manualSeed(7)
  local function model()
    return nn.Sequential():add(nn.LSTM(3, 5, 2)):add(nn.Linear(5, 2)):double()
  end
  local a = model()
  local b = a:clone()
  local x = torch.randn(4, 3, 3):double()
  local crit = nn.MSECriterion()
  local target = torch.randn(4, 3, 2):double()
  for _ = 1, 5 do
    a:zeroGradParameters()
    local h = a.modules[1]:forward(x)
    local out = a.modules[2]:forward(h:view(-1, 5))
    crit:forward(out, target:view(-1, 2))
    local g = a.modules[2]:backward(h:view(-1, 5), crit:backward(out, target:view(-1, 2)))
    a.modules[1]:backward(x, g:view(4, 3, 5))
    a:updateParameters(0.1)

    b:zeroGradParameters()
    local loss = crit(b.modules[2]:forward(b.modules[1]:forward(x):view(-1, 5)), target:view(-1, 2))
    loss:backward()
    b:updateParameters(0.1)
  end
  local pa, pb = a:parameters(), b:parameters()
  for i = 1, #pa do tester:assertTensorEq(pa[i], pb[i], 1e-12) end
end

function tests.doubleBackwardIsRefused()
  local m = nn.GRU(3, 2):double()
  local x = torch.randn(2, 1, 3):double():requiresGrad()
  local y = m:forward(x):sum()
  tester:assertErrorPattern(function() torch.autograd.grad(y, x, { createGraph = true }) end, 'double backward')
end

function tests.float32Training()
  -- A small sequence task learned end to end in float32 with the fused layers.
  torch.manualSeed(8)
  local m = nn.Sequential():add(nn.GRU(1, 8, { batchFirst = true }))
  local head = nn.Linear(8, 1)
  local x = torch.rand(16, 6, 1)
  local target = x:sum(2):view(16, 1)
  local first, last
  for it = 1, 150 do
    m:zeroGradParameters()
    head:zeroGradParameters()
    local h = m:forward(x):select(2, 6)
    local loss = torch.csub(head:forward(h), target):pow(2):mean()
    loss:backward()
    m:updateParameters(0.1)
    head:updateParameters(0.1)
    if it == 1 then first = loss:item() end
    last = loss:item()
  end
  tester:assertlt(last, first * 0.2, string.format('loss %g -> %g', first, last))
end

tester:add(tests)
tester:run()
