-- Regression tests from a review of torch.utils.checkpoint and CPU autocast (results in tables
-- and after a nil, RNG preserved for dropout, nested regions and errors, the restored dtype, and
-- PyTorch 1.13's CPU autocast lists).
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()

-- ---- torch.utils.checkpoint -------------------------------------------------------------------

local cp = torch.utils.checkpoint
local function total(t) return t:view(-1):sum(1) end

-- fn returning a nil between tensors (a, nil, b): the replay moved b's slot (table.remove on a
-- table with a hole), so backward raised "fn returned a tensor as result 3 in the forward but nil
-- when run again".
function tests.checkpointNilResultBetweenTensors()
  local x = torch.randn(2, 3):double():requiresGrad()
  local a, b, c = cp(function(t) return torch.sin(t), nil, torch.cos(t) end, x)
  tester:assert(torch.isTensor(a) and b == nil and torch.isTensor(c), 'results keep their positions')
  local ok, err = pcall(function() (total(a) + total(c)):backward() end)
  tester:assert(ok, tostring(err))
  tester:assertTensorEq(x.grad, torch.cos(x:detach()) - torch.sin(x:detach()), 1e-12, 'gradient')
  -- Non-tensor arguments and results pass through.
  x.grad = nil
  local y, s, n = cp(function(t, k, tag, nothing) return torch.mul(t, k), tag .. '!', nothing end, x, 3, 'tag', nil)
  tester:asserteq(s, 'tag!', 'string result')
  tester:asserteq(n, nil, 'nil result')
  total(y):backward()
  tester:assertTensorEq(x.grad, torch.Tensor(2, 3):double():fill(3), 0, 'gradient with a number argument')
end

-- Gradients equal those without checkpointing: inputs, captured parameters, nested checkpoints,
-- inputs that need no gradient (the parameters still get theirs), torch.autograd.grad (which
-- leaves .grad alone) and torch.noGrad (a plain call).
function tests.checkpointMatchesPlainRun()
  torch.manualSeed(13)
  local W = torch.randn(3, 3):double():requiresGrad()
  local x = torch.randn(2, 3):double():requiresGrad()
  local function inner(t) return torch.sin(torch.mm(t, W)) end
  local function outer(t) return torch.exp(cp(inner, t)) end
  total(torch.exp(inner(x))):backward()
  local gx, gW = x.grad:clone(), W.grad:clone()
  x.grad, W.grad = nil, nil
  total(cp(outer, x)):backward()
  tester:assertTensorEq(x.grad, gx, 1e-12, 'nested: input gradient')
  tester:assertTensorEq(W.grad, gW, 1e-12, 'nested: parameter gradient')
  W.grad = nil
  local xn = x:detach()
  total(cp(inner, xn)):backward()
  local Wl = W:detach():clone():requiresGrad()
  total(torch.sin(torch.mm(xn, Wl))):backward()
  tester:assertTensorEq(W.grad, Wl.grad, 1e-12, 'input without gradient: the parameter still gets its gradient')
  W.grad = nil
  local g = torch.autograd.grad({ total(cp(inner, x)) }, { x })[1]
  x.grad = nil
  total(inner(x)):backward()
  tester:assertTensorEq(g, x.grad, 1e-12, 'torch.autograd.grad')
  W.grad = nil
  torch.autograd.grad({ total(cp(inner, x)) }, { x })
  tester:asserteq(W.grad, nil, 'torch.autograd.grad leaves .grad alone')
  local y = torch.noGrad(function() return cp(inner, x) end)
  tester:assert(not y:needsGrad(), 'under torch.noGrad nothing is recorded')
  tester:assertTensorEq(y, inner(x):detach(), 0, 'under torch.noGrad')
end

-- The replay draws the dropout masks of the forward (the RNG state is restored for it, and the
-- caller's put back after it), here inside a 3-layer LSTM with dropout between layers.
function tests.checkpointPreservesRngForDropout()
  torch.manualSeed(14)
  local m = nn.LSTM(3, 4, 3, { dropout = 0.5 }):double()
  local x = torch.randn(5, 2, 3):double():requiresGrad()
  torch.manualSeed(3)
  local y = cp(m, x)
  local after = torch.rand(1)[1]
  local gy = torch.randn(y:size()):double()
  m:zeroGradParameters()
  torch.manualSeed(99)
  torch.cmul(y, gy):sum():backward()
  tester:asserteq(torch.rand(1)[1], (function() torch.manualSeed(99) return torch.rand(1)[1] end)(),
    'the caller RNG state is put back after the replay')
  local gx, gw = x.grad:clone(), m.weight_ih_l1.grad:clone()
  torch.manualSeed(3)
  local y2 = m:forward(x)
  tester:asserteq(torch.rand(1)[1], after, 'the forward drew what a plain run draws')
  tester:assertTensorEq(y, y2, 0, 'same masks in the forward')
  x.grad = nil
  m:zeroGradParameters()
  torch.cmul(y2, gy):sum():backward()
  tester:assertTensorEq(gx, x.grad, 1e-12, 'input gradient')
  tester:assertTensorEq(gw, m.weight_ih_l1.grad, 1e-12, 'weight gradient')
end

-- fn returning a table of tensors (nn.LSTMCell's {h, c}, PyTorch's tuple): the tensors in it were
-- computed without recording and never joined the graph, so their gradients were silently lost
-- (here x's and the cell's, when the loss also holds another term) or backward raised.
function tests.checkpointTableResults()
  torch.manualSeed(15)
  local cell = nn.LSTMCell(3, 4):double()
  local x = torch.randn(2, 3):double():requiresGrad()
  local h, c = torch.randn(2, 4):double(), torch.randn(2, 4):double()
  local w = torch.randn(2, 4):double()
  local function loss(o) return torch.cmul(o[1], w):sum() + total(o[2]) + total(x) end
  cell:zeroGradParameters()
  loss(cell:forward({ x, h, c })):backward()
  local gx, gw = x.grad:clone(), cell.weight_ih.grad:clone()
  x.grad = nil
  cell:zeroGradParameters()
  local o = cp(cell, { x, h, c })
  tester:assert(type(o) == 'table' and torch.isTensor(o[1]) and torch.isTensor(o[2]), 'a table {h, c}')
  tester:assert(o[1]:needsGrad() and o[2]:needsGrad(), 'the tensors of the table join the graph')
  loss(o):backward()
  tester:assertTensorEq(x.grad, gx, 1e-12, 'input gradient')
  tester:assertTensorEq(cell.weight_ih.grad, gw, 1e-12, 'parameter gradient')
  -- Nested tables, string keys and non-tensor entries keep their structure.
  local r, n = cp(function(t) return { torch.sin(t), { s = torch.cos(t), tag = 'k', off = false }, 5 }, 7 end, x)
  tester:asserteq(n, 7, 'second result')
  tester:asserteq(r[2].off, false, 'false entry')
  tester:asserteq(r[2].tag, 'k', 'string entry')
  tester:asserteq(r[3], 5, 'number entry')
  x.grad = nil
  ;(total(r[1]) + total(r[2].s)):backward()
  tester:assertTensorEq(x.grad, torch.cos(x:detach()) - torch.sin(x:detach()), 1e-12, 'nested gradient')
end

-- ---- CPU autocast -----------------------------------------------------------------------------

-- The dtype of a region that ended stayed: getAutocastDtype('cpu') said 'f16' after
-- torch.autocast('cpu', 'f16', fn) returned (PyTorch restores it), because the C setter ignores
-- the dtype when it disables.
function tests.autocastRestoresDtype()
  tester:asserteq(torch.getAutocastDtype('cpu'), 'bf16', 'default CPU dtype')
  torch.autocast('cpu', 'f16', function() end)
  tester:asserteq(torch.getAutocastDtype('cpu'), 'bf16', 'after a f16 region')
  tester:assert(not torch.isAutocastEnabled('cpu'), 'disabled after the region')
  pcall(torch.autocast, 'cpu', 'f16', function() error('boom') end)
  tester:asserteq(torch.getAutocastDtype('cpu'), 'bf16', 'after a f16 region that raised')
  torch.autocast('cpu', 'bf16', function()
    torch.autocast('cpu', 'f16', function() end)
    tester:asserteq(torch.getAutocastDtype('cpu'), 'bf16', 'nested: the outer dtype is back')
    tester:assert(torch.isAutocastEnabled('cpu'), 'nested: still enabled')
  end)
  tester:asserteq(torch.getAutocastDtype('cuda'), 'f16', 'the CUDA dtype is untouched')
end

-- Nesting, noAutocast (PyTorch's enabled=False) and errors put back the state of the enclosing
-- region; the error object (a table here) passes through unchanged.
function tests.autocastNestingAndErrors()
  local a = torch.randn(3, 3)
  torch.autocast('cpu', function()
    tester:asserteq(torch.type(torch.mm(a, a)), 'torch.BFloat16Tensor', 'inside')
    torch.noAutocast('cpu', function()
      tester:asserteq(torch.type(torch.mm(a, a)), 'torch.FloatTensor', 'noAutocast inside')
      local ok, err = pcall(torch.autocast, 'cpu', 'bf16', function() error({ code = 7 }) end)
      tester:assert(not ok and type(err) == 'table' and err.code == 7, 'error object kept')
      tester:assert(not torch.isAutocastEnabled('cpu'), 'noAutocast state back after the error')
    end)
    tester:asserteq(torch.type(torch.mm(a, a)), 'torch.BFloat16Tensor', 'back in the outer region')
  end)
  tester:assert(not torch.isAutocastEnabled('cpu'), 'off after the outer region')
  local ok, err = pcall(torch.autocast, 'cpu', 'f32', function() end)
  tester:assert(not ok and tostring(err):find('%[autocast%]'), 'bad dtype: ' .. tostring(err))
  tester:assert(not torch.isAutocastEnabled('cpu'), 'off after a bad dtype')
  -- A checkpoint made inside a region replays under it after the region closed.
  local W = torch.randn(3, 3):requiresGrad()
  local x = torch.randn(2, 3):requiresGrad()
  local function f(t) return torch.tanh(torch.mm(t, W):float()) end
  total(torch.autocast('cpu', function() return cp(f, x) end)):backward()
  local g = x.grad:clone()
  x.grad = nil
  total(torch.autocast('cpu', function() return f(x) end)):backward()
  tester:assertTensorEq(g, x.grad, 0, 'checkpoint replays in bf16')
end

-- PyTorch 1.13's CPU autocast (bf16) result dtypes, from (/usr/bin/python3)
--   with torch.autocast('cpu', dtype=torch.bfloat16): print(op(...).dtype)
-- lower precision: mm, bmm, addmm, addbmm, baddbmm, matmul; unchanged: f64; promote: add, cat;
-- f32: mv, addmv, outer/ger, addr (not on the CPU list: they keep f32 inputs in f32);
-- kept in the input dtype: softmax, log_softmax, layer_norm, batch_norm of bf16 (not on the CPU
-- f32 list). nn.LSTM/GRU on the CPU are on no list in 1.13: they run in f32.
-- (core/autocast.cpp, Note [Autocast])
function tests.autocastCpuListsMatchPyTorch()
  local a, v, b3 = torch.randn(3, 3), torch.randn(3), torch.randn(2, 3, 3)
  local A = a:bfloat16()
  local want = {
    { 'mm', 'torch.BFloat16Tensor', function() return torch.mm(a, a) end },
    { 'bmm', 'torch.BFloat16Tensor', function() return torch.bmm(b3, b3) end },
    { 'addmm', 'torch.BFloat16Tensor', function() return torch.addmm(a, a, a) end },
    { 'addbmm', 'torch.BFloat16Tensor', function() return torch.addbmm(a, b3, b3) end },
    { 'baddbmm', 'torch.BFloat16Tensor', function() return torch.baddbmm(b3, b3, b3) end },
    { 'matmul', 'torch.BFloat16Tensor', function() return torch.matmul(a, a) end },
    { 'mm of f16', 'torch.BFloat16Tensor', function() return torch.mm(a:half(), a:half()) end },
    { 'mm of f64', 'torch.DoubleTensor', function() return torch.mm(a:double(), a:double()) end },
    { 'add bf16 + f32', 'torch.FloatTensor', function() return A + a end },
    { 'cat', 'torch.FloatTensor', function() return torch.cat(A, a, 1) end },
    { 'exp of bf16', 'torch.BFloat16Tensor', function() return torch.exp(A) end },
    { 'LSTM', 'torch.FloatTensor', function() return nn.LSTM(3, 4, 2, { bidirectional = true }):forward(b3) end },
    { 'GRUCell', 'torch.FloatTensor', function() return nn.GRUCell(3, 4):forward(a) end },
  }
  -- the CPU's own lists (core/autocast.cpp applied the CUDA lists on the CPU too)
  local cpu_lists = {
    { 'mv', 'torch.FloatTensor', function() return torch.mv(a, v) end },
    { 'addmv', 'torch.FloatTensor', function() return torch.addmv(v, a, v) end },
    { 'ger', 'torch.FloatTensor', function() return torch.ger(v, v) end },
    { 'addr', 'torch.FloatTensor', function() return torch.addr(a, v, v) end },
    { 'softmax of bf16', 'torch.BFloat16Tensor', function() return torch.softmax(A, 2) end },
    -- kept in f32 on purpose (Note [Autocast]): 1.13 CPU refuses a bf16 layer norm with f32 weights
    { 'LayerNorm of bf16', 'torch.FloatTensor', function() return nn.LayerNorm(3):forward(A) end },
  }
  torch.autocast('cpu', 'bf16', function()
    for _, c in ipairs(want) do tester:asserteq(torch.type(c[3]()), c[2], c[1]) end
    for _, c in ipairs(cpu_lists) do tester:asserteq(torch.type(c[3]()), c[2], c[1]) end
  end)
end

tester:add(tests)
tester:run()
