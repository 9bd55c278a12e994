-- Autograd from Lua: flags, backward and .grad accumulation, broadcasting, grad mode, hooks,
-- retainGrad, torch.autograd.grad with higher-order gradients, Functions, anomaly detection,
-- the in-place check, and parameter updates of leaves.
local tester = torch.Tester()
local tests = torch.TestSuite()
local D = torch.DoubleTensor

local function leaf(t) return D(t):requiresGrad() end

function tests.flagsAndLeaves()
  local x = leaf({ 1, 2 })
  tester:assert(x:needsGrad())
  tester:assert(x:isLeaf())
  tester:asserteq(x.gradFn, nil)
  local y = x * 2
  tester:assert(y:needsGrad())
  tester:assert(not y:isLeaf())
  tester:asserteq(y.gradFn, 'mul')
  tester:asserteq(x.grad, nil)
  x:requiresGrad(false)
  tester:assert(not x:needsGrad())
  tester:assertErrorPattern(function() y:requiresGrad(false) end, 'detach')
  tester:assertErrorPattern(function() torch.LongTensor({ 1 }):requiresGrad() end, 'floating')
  local d = y:detach()
  tester:assert(not d:needsGrad())
  d[1] = 7
  tester:asserteq(y[1], 7)  -- detach shares storage
end

function tests.backwardAccumulates()
  local x = leaf({ 1, 2, 3 })
  local w = leaf({ 0.5, -1, 2 })
  local y = torch.cmul(x * 2 + w, x)  -- 2x^2 + w x
  y:backward(D({ 1, 1, 1 }))
  tester:eq(x.grad, D({ 4.5, 7, 14 }), 1e-12)
  tester:eq(w.grad, D({ 1, 2, 3 }), 1e-12)
  local g = x.grad
  torch.cmul(x, x):backward(D({ 1, 1, 1 }))
  tester:eq(x.grad, D({ 6.5, 11, 20 }), 1e-12)
  tester:assert(torch.pointer(x.grad) == torch.pointer(g), '.grad accumulates in place')
  x:zeroGrad()
  tester:eq(x.grad, D({ 0, 0, 0 }))
end

function tests.scalarRootAndSum()
  local x = leaf({ 1, 2, 3 })
  local s = torch.cmul(x, x):sum()
  tester:assert(torch.isTensor(s), 'sum of a tensor requiring grad is a tensor')
  s:backward()
  tester:eq(x.grad, D({ 2, 4, 6 }), 1e-12)
  tester:asserteq(type(torch.DoubleTensor({ 1, 2 }):sum()), 'number')
  tester:assertErrorPattern(function() (x * 2):backward() end, 'a gradient must be given')
end

function tests.broadcastGradientsAreReduced()
  local a = leaf({ { 1, 2 }, { 3, 4 } })
  local b = leaf({ 10, 20 })
  torch.cmul(a, b):backward(D(2, 2):fill(1))
  tester:eq(a.grad, D({ { 10, 20 }, { 10, 20 } }))
  tester:eq(b.grad, D({ 4, 6 }))
  local f = torch.FloatTensor({ 1, 2 }):requiresGrad()
  local m = leaf({ 3, 4 })
  torch.cmul(f, m):backward(D({ 1, 1 }))
  tester:asserteq(f.grad:type(), 'torch.FloatTensor')
  tester:eq(f.grad, torch.FloatTensor({ 3, 4 }))
end

function tests.gradMode()
  local x = leaf({ 1 })
  local y = torch.noGrad(function() return x * 2 end)
  tester:assert(not y:needsGrad())
  tester:assert(torch.isGradEnabled())
  torch.setGradEnabled(false)
  tester:assert(not (x * 2):needsGrad())
  local z = torch.enableGrad(function() return x * 2 end)
  tester:assert(z:needsGrad())
  torch.setGradEnabled(true)
  tester:assertErrorPattern(function() torch.noGrad(function() error('boom') end) end, 'boom')
  tester:assert(torch.isGradEnabled(), 'noGrad restores the mode after an error')
end

function tests.views()
  local v = leaf({ { 1, 2, 3 }, { 4, 5, 6 } })
  local n = v:narrow(2, 2, 2):t()
  n:backward(D({ { 1, 2 }, { 3, 4 } }))
  tester:eq(v.grad, D({ { 0, 1, 3 }, { 0, 2, 4 } }))
  local u = leaf({ 1, 2, 3, 4 })
  u:view(2, 2):select(1, 2):expand(3, 2):backward(D(3, 2):fill(1))
  tester:eq(u.grad, D({ 0, 0, 3, 3 }))
  local w = leaf({ 1, 2, 3, 4, 5 })
  w:unfold(1, 3, 1):backward(D(3, 3):fill(1))
  tester:eq(w.grad, D({ 1, 2, 3, 2, 1 }))
end

function tests.hooksAndRetainGrad()
  local h = leaf({ 1, 2 })
  local hh = h * 3
  local seen
  hh:registerHook(function(g) seen = g:clone() return g * 10 end)
  hh:retainGrad()
  hh:backward(D({ 1, 1 }))
  tester:eq(seen, D({ 1, 1 }))
  tester:eq(h.grad, D({ 30, 30 }))
  tester:eq(hh.grad, D({ 10, 10 }))
  local leaf_hook = leaf({ 1 })
  local handle = leaf_hook:registerHook(function(g) return g * 2 end)
  local once = leaf_hook * 1
  once:backward(D({ 1 }))
  tester:eq(leaf_hook.grad, D({ 2 }))
  handle.remove()
  leaf_hook:zeroGrad()
  local twice = leaf_hook * 1
  twice:backward(D({ 1 }))
  tester:eq(leaf_hook.grad, D({ 1 }))
  local bad = leaf({ 1 })
  local b2 = bad * 1
  b2:registerHook(function() return 'nope' end)
  tester:assertErrorPattern(function() b2:backward(D({ 1 })) end, 'must return a tensor')
end

-- Note [Removing a hook another node holds]: after an in-place op the hooked tensor has another
-- grad_fn; removing the hook then must not free its key while the old node still holds it (the
-- key went to the next hook registered, which the old node then ran).
function tests.removedHookOfAnOlderNode()
  local x = leaf({ 1, 2 })
  local y = x * 2
  local calls = { old = 0, new = 0 }
  local handle = y:registerHook(function(g) calls.old = calls.old + 1 return g * 100 end)
  y:add(1)  -- in place: y's grad_fn is now add's node; the hook stays with mul's
  handle.remove()
  handle.remove()  -- twice is harmless
  local z = leaf({ 3 })
  local zz = z * 1
  zz:registerHook(function(g) calls.new = calls.new + 1 return g * 7 end)  -- may get a freed key
  y:sum():backward()
  tester:eq(x.grad, D({ 2, 2 }), 'the removed hook does not run')
  tester:asserteq(calls.old, 0)
  tester:asserteq(calls.new, 0, 'nor does another hook in its place')
  zz:backward(D({ 1 }))
  tester:eq(z.grad, D({ 7 }))
  tester:asserteq(calls.new, 1)
  collectgarbage()
  collectgarbage()
  -- after the old node is gone its key is released once: new hooks keep working
  for i = 1, 5 do
    local w = leaf({ 1 })
    local ww = w * 1
    ww:registerHook(function(g) return g * i end)
    ww:backward(D({ 1 }))
    tester:eq(w.grad, D({ i }))
  end
end

function tests.autogradGradHigherOrder()
  local x = leaf({ 0.5, 1.5 })
  local y = torch.pow(x, 3)  -- y = x^3
  local g = torch.autograd.grad(y, x, D({ 1, 1 }), { createGraph = true })
  tester:eq(g, D({ 0.75, 6.75 }), 1e-12)     -- 3x^2
  tester:assert(g:needsGrad())
  local g2 = torch.autograd.grad(g, x, D({ 1, 1 }))
  tester:eq(g2, D({ 3, 9 }), 1e-12)          -- 6x
  tester:asserteq(x.grad, nil, 'grad() leaves .grad alone')
  local unused = leaf({ 1 })
  tester:assertErrorPattern(function() torch.autograd.grad(x * 2, { x, unused }, { D({ 1, 1 }) }) end, 'not used')
  local r = torch.autograd.grad(x * 2, { x, unused }, { D({ 1, 1 }) }, { allowUnused = true })
  tester:asserteq(r[2], nil)
end

-- Note [Results written into inputs]: a res form that writes into an input the gradient needs
-- (torch.mm(A, A, B), torch.gesv(b, a, b, a)) saves that input's value from before the op; it
-- used to save the result, and backward silently gave 39 where 7 was right.
function tests.resultsWrittenIntoInputsKeepTheirGradients()
  local function grad_of(f)
    local x = leaf({ { 1, 2, 3 }, { 4, 5, 6 }, { 7, 8, 10 } })
    f(x):sum():backward()
    return x.grad
  end
  local cases = {
    { 'mm', function(x) local A = x * 1; torch.mm(A, A, A); return A end, function(x) return torch.mm(x * 1, x * 1) end },
    { 'addmm', function(x) local A = x * 1; A:addmm(A, x * 2); return A end,
      function(x) return torch.addmm(x * 1, x * 1, x * 2) end },
    { 'cumprod', function(x) local A = x * 1; torch.cumprod(A, A, 2); return A end,
      function(x) return torch.cumprod(x * 1, 2) end },
    { 'cross', function(x) local A = x * 1; torch.cross(A, A, torch.cmul(x, x), 1); return A end,
      function(x) return torch.cross(x * 1, torch.cmul(x, x), 1) end },
    -- Torch7's in-place solve: the LU factors overwrite A, the solution B
    { 'gesv', function(x) local A, B = x * 1, x:narrow(2, 1, 1) * 1; torch.gesv(B, A, B, A); return B end,
      function(x) return (torch.gesv(x:narrow(2, 1, 1) * 1, x * 1)) end },
  }
  for _, c in ipairs(cases) do
    tester:assertTensorEq(grad_of(c[2]), grad_of(c[3]), 1e-12, c[1] .. ' written into its input')
  end
end

-- Note [Saved tensors without their impl]: a saved tensor that gets a history afterwards by an
-- in-place write (a plain buffer given y's history by buf:copy(y), or y:add(y * y)) used to close
-- a reference cycle through the node that saved it, and the whole graph leaked (32 MB here).
function tests.graphsWithInPlaceWritesAreFreed()
  collectgarbage()
  collectgarbage()
  local base = torch.memoryStats('cpu').liveBytes
  for _ = 1, 20 do
    local buf = torch.DoubleTensor(100000):fill(1)
    local x = torch.DoubleTensor(100000):fill(2):requiresGrad()
    buf:copy(x * buf)
    local z = x * 1
    z:add(z * z)
  end
  collectgarbage()
  collectgarbage()
  tester:assertlt(torch.memoryStats('cpu').liveBytes - base, 1e6, 'the graphs and their tensors are freed')
end

function tests.secondBackwardNeedsRetainGraph()
  local x = leaf({ 2 })
  local y = torch.cmul(x, x)
  y:backward(D({ 1 }), { retainGraph = true })
  y:backward(D({ 1 }))
  tester:eq(x.grad, D({ 8 }))
  tester:assertErrorPattern(function() y:backward(D({ 1 })) end, 'second time')
end

function tests.inPlaceModificationIsDetected()
  local p = leaf({ 1, 2 })
  local q = torch.exp(p)
  local r = torch.cmul(q, q)
  q:add(1)
  tester:assertErrorPattern(function() r:backward(D({ 1, 1 })) end, 'modified by an in%-place operation')
  -- In-place ops on non-leaf tensors are recorded as their new history.
  local a = leaf({ 1, 2 })
  local b = a * 2
  b:add(1):mul(3)   -- b = 3 (2a + 1)
  b:backward(D({ 1, 1 }))
  tester:eq(a.grad, D({ 6, 6 }))
  -- Through a view: the write runs, a backward through it is refused (Note [In-place ops on views
  -- of tensors with history]).
  local v = leaf({ 1, 2, 3 }) * 1
  v:narrow(1, 1, 2):add(leaf({ 1, 1 }))
  tester:eq(v:detach(), D({ 2, 3, 3 }))
  tester:assertErrorPattern(function() v:sum():backward() end, 'modified in place through a view %(add')
end

-- Note [In-place writes into buffers]
function tests.inPlaceWritesIntoBuffers()
  local x = leaf({ 1, 2 })
  local y = x * 3
  -- A view of a plain buffer: allowed, not recorded, the buffer stays plain.
  local buf = D(2, 2):zero()
  buf[1]:copy(y)
  buf:select(1, 2):add(y)
  tester:assert(not buf:needsGrad())
  tester:eq(buf, D({ { 3, 6 }, { 3, 6 } }))
  -- A whole plain tensor: recorded as in PyTorch.
  local whole = D(2):zero()
  whole:copy(y)
  tester:assert(whole:needsGrad())
  whole:sum():backward()
  tester:eq(x.grad, D({ 3, 3 }))
  -- A view of a parameter: updated in place, not recorded.
  local w = leaf({ 1, 2, 3 })
  w:narrow(1, 2, 2):add(1)
  tester:eq(w, D({ 1, 3, 4 }))
  tester:assert(w:isLeaf())
end

function tests.leafUpdatesAreNotRecorded()
  local w = leaf({ 1, 2 })
  local loss = torch.cmul(w, w)
  loss:backward(D({ 1, 1 }))
  w:add(-0.1, w.grad)          -- Torch7/optim style update of a parameter
  tester:eq(w, D({ 0.8, 1.6 }), 1e-12)
  tester:assert(w:isLeaf())
  tester:assert(w:needsGrad())
end

function tests.userFunction()
  local Sq = torch.autograd.Function('Square')
  function Sq.forward(ctx, x, k)
    ctx:saveForBackward(x)
    ctx.k = k
    return torch.cmul(x, x) * k
  end
  function Sq.backward(ctx, g)
    local x = ctx:savedTensors()
    tester:assert(ctx.needsInputGrad[1])
    return torch.cmul(g, x) * (2 * ctx.k), nil
  end
  local u = leaf({ 3, 4 })
  local o = Sq.apply(u, 2)
  tester:asserteq(o.gradFn, 'Square')
  o:backward(D({ 1, 1 }))
  tester:eq(u.grad, D({ 12, 16 }))
  tester:assert(torch.autograd.gradcheck(function(x) return Sq(x, 3) end, { leaf({ 0.3, -0.7 }) }))
  local Bad = torch.autograd.Function('Bad')
  function Bad.forward(_, x) return x * 1 end
  function Bad.backward() error('bad backward') end
  tester:assertErrorPattern(function() Bad(leaf({ 1 })):backward(D({ 1 })) end, 'bad backward')
end

function tests.anomalyDetection()
  local x = leaf({ 0, 1 })
  local ok, err = pcall(torch.autograd.detectAnomaly, function()
    local y = torch.sqrt(x)   -- the line the error must name
    y:backward(D({ 1, 1 }))
  end)
  tester:assert(not ok)
  tester:assertErrorPattern(function() error(err, 0) end, 'NaN or Inf')
  tester:assertErrorPattern(function() error(err, 0) end, 'sqrt')
  tester:assertErrorPattern(function() error(err, 0) end, 'test_autograd.lua:%d+')
end

function tests.gradcheckPointwise()
  local gc, ggc = torch.autograd.gradcheck, torch.autograd.gradgradcheck
  local function pos() return leaf({ 0.3, 0.8, 1.7 }) end
  for _, name in ipairs({ 'exp', 'log', 'sqrt', 'sin', 'cos', 'tan', 'tanh', 'sigmoid', 'atan', 'erf',
                          'expm1', 'log1p', 'rsqrt', 'cinv', 'sinh', 'cosh', 'abs', 'square', 'lgamma',
                          'log2', 'log10', 'erfc', 'neg', 'frac' }) do
    tester:assert(gc(torch[name], { pos() }), name)
    tester:assert(ggc(torch[name], { pos() }), name .. ' (second order)')
  end
  tester:assert(gc(torch.asin, { leaf({ 0.1, -0.5 }) }), 'asin')
  tester:assert(gc(torch.acos, { leaf({ 0.1, -0.5 }) }), 'acos')
  tester:assert(gc(torch.erfinv, { leaf({ 0.1, -0.5 }) }), 'erfinv')
  tester:assert(gc(torch.relu, { leaf({ 0.3, -0.5 }) }), 'relu')
  local a, b = leaf({ { 0.5, 1.3 }, { 2.1, 0.7 } }), leaf({ 1.3, 0.45 })
  for _, name in ipairs({ 'add', 'csub', 'mul', 'div', 'pow', 'atan2', 'cmax', 'cmin', 'fmod', 'remainder' }) do
    tester:assert(gc(torch[name], { a, b }), name)
    tester:assert(gc(function(x) return torch[name](x, 0.75) end, { a }), name .. ' with a number')
    tester:assert(ggc(torch[name], { a, b }), name .. ' (second order)')
  end
  tester:assert(gc(function(x) return torch.pow(2.5, x) end, { a }), 'number ^ tensor')
  tester:assert(gc(function(x) return torch.div(3, x) end, { a }), 'number / tensor')
  tester:assert(gc(function(x, y) return torch.add(x, 2.5, y) end, { a, b }), 'add with a multiplier')
  tester:assert(gc(function(x) return torch.clamp(x, 0.6, 1.5) end, { a }), 'clamp')
  local c = leaf({ 0.9, -1.1 })
  tester:assert(gc(function(x, y, z) return torch.addcmul(x, 0.5, y, z) end, { a, b, c }), 'addcmul')
  tester:assert(gc(function(x, y, z) return torch.addcdiv(x, 0.5, y, z) end, { a, b, c }), 'addcdiv')
  tester:assert(gc(function(x, y, w) return torch.lerp(x, y, w) end, { a, b, c }), 'lerp')
  local mask = torch.ByteTensor({ { 1, 0 }, { 0, 1 } })
  tester:assert(gc(function(x, y) return torch.where(mask, x, y) end, { a, leaf({ { 5, 6 }, { 7, 8 } }) }), 'where')
  tester:assert(gc(function(x) return x:float():double() end, { a }, { eps = 1e-3, atol = 1e-3 }), 'dtype conversion')
end

-- Note [Integer outputs carry no history]: a Function (or a module's node) returning indices beside
-- its values records the values only; the indices need no grad.
function tests.integerOutputsCarryNoHistory()
  local ArgMax = torch.autograd.Function('ValuesAndIndices')
  function ArgMax.forward(ctx, x)
    local v, i = torch.max(x, 1)
    return v, i
  end
  function ArgMax.backward(ctx, gv) return gv end
  local x = torch.randn(4, 3):requiresGrad()
  local v, i = ArgMax.apply(x)
  tester:assert(v:needsGrad(), 'the values carry the history')
  tester:assert(not i:needsGrad(), 'the indices do not')
  local sorted, order = torch.sort(x:view(-1))
  tester:assert(sorted:needsGrad() and not order:needsGrad())
end

-- Note [Nested backward renumbering] (core/autograd/engine.cpp): a Function's backward that calls
-- torch.autograd.grad on a leaf the outer call also differentiates; the outer call returned nil for it
function tests.nestedGradInsideABackward()
  local s = torch.DoubleTensor({ 1.5 }):requiresGrad()
  local F = torch.autograd.Function('NestedGrad')
  function F.forward(ctx, x, sp) return torch.mul(x, 1.5) end
  function F.backward(ctx, gy)
    local w = torch.enableGrad(torch.mul, s, 3)
    local inner = torch.enableGrad(torch.autograd.grad, { w }, { s }, { torch.ones(1):double() })[1]
    return gy * 1.5, torch.DoubleTensor({ gy:sum() * inner[1] / 3 })
  end
  local x = torch.randn(3):double():requiresGrad()
  local r = torch.autograd.grad({ torch.mul(F.apply(x, s), 2):sum() }, { s, x })
  tester:assert(r[1] ~= nil, 'the leaf gets its gradient')
  if r[1] then tester:assertalmosteq(r[1][1], 6, 1e-12, 'd/ds: sum of the 2 * gy') end
  tester:assertTensorEq(r[2], torch.DoubleTensor(3):fill(3), 1e-12, 'd/dx')
end

tester:add(tests)
tester:run()
