-- Regressions found reviewing nngraph against Torch7's torch/nngraph: net:replace(fn) reaching
-- the graph's nodes (Note [Replacing modules in a graph]); and what Torch7 programs rely on:
-- gradients where a node feeds several consumers and split outputs are used out of order,
-- table-valued nodes (ConcatTable split and used whole, SelectTable on a table input), batch
-- sizes changing between calls, nested gModules applied twice inside nn.Sequential with a flat
-- getParameters, char-rnn's clone_many_times, Torch7 .t7 save/load of a container holding a
-- gModule, Torch7's module order, and memory that stays flat over many iterations. Gradients are
-- checked by finite differences (float64).
require 'nn'
torch.setdefaulttensortype('torch.DoubleTensor')
require 'nngraph'
local dir = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.'
local checks = dofile(dir .. '/fixtures/nn_checks.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()
torch.manualSeed(11)

-- The largest difference between the gradient of sum(m(input) .* go) wrt the flat parameters p
-- (filled in gp by backward) and central finite differences.
local function flatGradError(m, input, p, gp)
  local go = checks.map(m:forward(input), function(t) return torch.randn(t:size()) end)
  local function f()
    return torch.noGrad(function()  -- plain numbers (nn outputs are tracked by autograd)
      local y, s = checks.leaves(m:forward(input)), 0
      for i, t in ipairs(checks.leaves(go)) do s = s + y[i]:dot(t) end
      return s
    end)
  end
  gp:zero()
  m:forward(input)
  m:backward(input, go)
  local analytic, err = gp:clone(), 0
  for i = 1, p:nElement() do
    local v = p[i]
    p[i] = v + 1e-6
    local f1 = f()
    p[i] = v - 1e-6
    local f2 = f()
    p[i] = v
    err = math.max(err, math.abs((f1 - f2) / 2e-6 - analytic[i]))
  end
  return err
end

-- net:replace changed g.modules but not the nodes: forward still ran the old module.
function tests.replaceReachesTheNodes()
  local x = nn.Identity()()
  local lin = nn.Linear(3, 2)
  local tanh = nn.Tanh()
  local h = tanh(lin(x))
  local g = nn.gModule({ x }, { nn.CAddTable()({ h, tanh(h) }) })  -- Tanh applied twice
  local net = nn.Sequential():add(g):add(nn.Dropout(0.5))
  local input = torch.randn(4, 3)
  local returned = net:replace(function(m)
    if torch.type(m) == 'nn.Tanh' then return nn.Sigmoid() end
    if torch.type(m) == 'nn.Dropout' then return nn.Identity() end
    return m
  end)
  tester:assert(returned == net)
  local s = torch.sigmoid(input * lin.weight:t() + lin.bias:view(1, 2):expand(4, 2))
  tester:assertTensorEq(net:forward(input), s + torch.sigmoid(s), 1e-12, 'forward runs the replacements')
  local types = {}
  for _, m in ipairs(g:listModules()) do types[#types + 1] = torch.type(m) end
  tester:eq(types, { 'nn.gModule', 'nn.Identity', 'nn.Linear', 'nn.Sigmoid', 'nn.CAddTable' })
  checks.jacobian(tester, g, input, 1e-6, 'replaced graph')
  tester:eq(torch.type(net.modules[2]), 'nn.Identity')
  -- a replacement inside a nested gModule, and fn(g) replacing the gModule itself
  local y = nn.Identity()()
  local outer = nn.gModule({ y }, { nn.Tanh()(g(y)) })
  local r = outer:replace(function(m) return torch.type(m) == 'nn.Sigmoid' and nn.ReLU() or m end)
  tester:assert(r == outer)
  tester:eq(#outer:findModules('nn.ReLU'), 1)
  tester:eq(#outer:findModules('nn.Sigmoid'), 0)
  local relu = torch.cmax(input * lin.weight:t() + lin.bias:view(1, 2):expand(4, 2), 0)
  tester:assertTensorEq(outer:forward(input), torch.tanh(relu + torch.cmax(relu, 0)), 1e-12, 'nested replacement runs')
  local id = nn.Identity()
  tester:assert(g:replace(function(m) return m == g and id or m end) == id)
  tester:assertErrorPattern(function() outer:replace(function(m) if torch.type(m) == 'nn.Tanh' then return 3 end return m end) end,
    '%[nn.gModule%] replace: the function returned number for nn.Tanh', 'a non-module replacement is an error')
end

-- Torch7's forward order (graph.Graph:topsort, depth first from the output through the inputs in
-- the order each node lists them): listModules follows it.
function tests.listModulesInTorch7Order()
  local function order(swap)
    local x = nn.Identity()()
    local a, b = nn.Linear(2, 2)(x), nn.Tanh()(x)
    local g = nn.gModule({ x }, { nn.CAddTable()(swap and { b, a } or { a, b }) })
    local t = {}
    for _, m in ipairs(g:listModules()) do t[#t + 1] = torch.type(m) end
    return t
  end
  tester:eq(order(false), { 'nn.gModule', 'nn.Identity', 'nn.Linear', 'nn.Tanh', 'nn.CAddTable' })
  tester:eq(order(true), { 'nn.gModule', 'nn.Identity', 'nn.Tanh', 'nn.Linear', 'nn.CAddTable' })
end

function tests.forksSplitsAndTables()
  -- a node with three consumers, one of them through a CMulTable with the node itself
  local x = nn.Identity()()
  local h = nn.Tanh()(nn.Linear(3, 4)(x))
  local a = nn.Sigmoid()(h)
  local g = nn.gModule({ x }, { nn.CAddTable()({ a, nn.Square()(h), nn.CMulTable()({ a, h }) }) })
  checks.jacobian(tester, g, torch.randn(2, 3), 1e-6, 'fork')
  -- split outputs used out of order, one twice
  local x2 = nn.Identity()()
  local p, q, r = nn.SplitTable(2)(nn.Linear(3, 3)(x2)):split(3)
  local g2 = nn.gModule({ x2 }, { nn.CAddTable()({ nn.Square()(r), nn.Tanh()(p), nn.Exp()(q), r }) })
  checks.jacobian(tester, g2, torch.randn(2, 3), 1e-6, 'split out of order')
  -- a ConcatTable node split and also used whole
  local x3 = nn.Identity()()
  local ct = nn.ConcatTable():add(nn.Linear(3, 2)):add(nn.Tanh())(x3)
  local c1, c2 = ct:split(2)
  local o = nn.CAddTable()({ nn.Sigmoid()(c1), nn.Square()(c1), nn.Narrow(1, 1, 2)(c2) })
  local g3 = nn.gModule({ x3 }, { nn.JoinTable(1)({ o, nn.JoinTable(1)(ct), c2 }) })
  checks.jacobian(tester, g3, torch.randn(3), 1e-6, 'ConcatTable split and whole')
  -- a table input taken apart by SelectTable
  local t = nn.Identity()()
  local g4 = nn.gModule({ t }, { nn.CMulTable()({ nn.SelectTable(1)(t), nn.Tanh()(nn.SelectTable(2)(t)) }) })
  local i1, i2 = torch.randn(3), torch.randn(3)
  tester:assertTensorEq(g4:forward({ i1, i2 }), torch.cmul(i1, torch.tanh(i2)), 1e-14)
  local gi = g4:backward({ i1, i2 }, torch.ones(3))
  tester:assertTensorEq(gi[1], torch.tanh(i2), 1e-14)
  tester:assertTensorEq(gi[2], torch.cmul(i1, 1 - torch.tanh(i2):pow(2)), 1e-14)
  -- batch sizes that change between calls (the sum buffers follow)
  for _, n in ipairs({ 5, 2, 7 }) do
    local input = torch.randn(n, 3)
    local y = g:forward(input)
    tester:eq(y:size():totable(), { n, 4 })
    tester:eq(g:backward(input, torch.ones(n, 4)):size():totable(), { n, 3 })
  end
  checks.jacobian(tester, g, torch.randn(1, 3), 1e-6, 'fork after other batch sizes')
end

-- A gModule applied twice in another, inside nn.Sequential, trained through getParameters.
function tests.nestedReuseFlatParameters()
  local function inner()
    local x = nn.Identity()()
    local h = nn.Linear(4, 4)(x)
    local a, b = nn.SplitTable(2)(nn.Reshape(2, 2)(nn.Tanh()(h))):split(2)
    return nn.gModule({ x }, { nn.JoinTable(2)({ nn.Sigmoid()(b), nn.CMulTable()({ a, b }) }) })
  end
  local I = inner()
  local x = nn.Identity()()
  local y1 = I(x)
  local y2 = I(nn.Tanh()(y1))
  local g = nn.gModule({ x }, { nn.CAddTable()({ y1, y2, nn.Square()(y2) }) })
  local net = nn.Sequential():add(nn.Linear(4, 4)):add(g):add(nn.Tanh())
  local p, gp = net:getParameters()
  tester:eq(p:nElement(), 40, 'the shared inner gModule counted once')
  tester:assertlt(flatGradError(net, torch.randn(3, 4), p, gp), 1e-7, 'flat parameter gradients')
  -- type conversions, clone and clearState through the Sequential
  local input = torch.randn(3, 4)
  local ref = net:forward(input):clone()
  net:float()
  tester:assertlt((net:forward(input:float()):double() - ref):abs():max(), 1e-5, 'float')
  net:double()
  ref = net:forward(input):clone()  -- the weights went through float
  local c = net:clone()
  net:clearState()
  tester:assertTensorEq(c:forward(input), ref, 1e-12, 'clone')
  tester:assertTensorEq(net:forward(input), ref, 1e-12, 'after clearState')
  c:getParameters():zero()
  tester:assertTensorEq(net:forward(input), ref, 1e-12, 'the clone is independent')
  -- training()/evaluate() reach a Dropout in a gModule nested in a gModule in a Sequential
  local z = nn.Identity()()
  local drop = nn.Dropout(0.5)
  local gd = nn.gModule({ z }, { drop(z) })
  local w = nn.Identity()()
  local s = nn.Sequential():add(nn.gModule({ w }, { gd(w) }))
  s:evaluate()
  tester:eq(drop.train, false)
  tester:assertTensorEq(s:forward(torch.ones(10)), torch.ones(10), 0, 'evaluate: no dropout')
  s:training()
  tester:eq(drop.train, true)
  local seen = {}
  s:apply(function(m) seen[#seen + 1] = torch.type(m) end)
  tester:eq(seen, { 'nn.Sequential', 'nn.gModule', 'nn.Identity', 'nn.gModule', 'nn.Identity', 'nn.Dropout' })
end

-- One Dropout (and one Linear, one Tanh) applied at several nodes in training mode: each
-- application keeps its own noise for the backward. Finite differences with the same seed before
-- every forward, so that each forward draws the same masks.
function tests.dropoutAppliedThreeTimes()
  local x = nn.Identity()()
  local lin, t, d = nn.Linear(4, 4), nn.Tanh(), nn.Dropout(0.3)
  local h1 = t(lin(x))
  local h2 = t(lin(h1))
  local g = nn.gModule({ x }, { nn.CAddTable()({ d(h1), d(h2), nn.Square()(d(h2)) }) })
  local input, go = torch.randn(3, 4), torch.randn(3, 4)
  local function f(z)
    torch.manualSeed(9)
    return torch.noGrad(function() return g:forward(z):dot(go) end)
  end
  torch.manualSeed(9)
  g:forward(input)
  local gi = g:backward(input, go):clone()
  local flat, err = input:view(-1), 0
  for i = 1, flat:nElement() do
    local v = flat[i]
    flat[i] = v + 1e-6
    local a = f(input)
    flat[i] = v - 1e-6
    local b = f(input)
    flat[i] = v
    err = math.max(err, math.abs((a - b) / 2e-6 - gi:view(-1)[i]))
  end
  tester:assertlt(err, 1e-7, 'gradInput with a Dropout applied three times')
end

-- char-rnn's model_utils: flatten the prototype's parameters by storage, clone it T times through
-- a MemoryFile and point the clones' parameters at the prototype's; BPTT gradients must be those
-- of the unrolled loss.
function tests.charRnnClonesShareFlatParameters()
  local function flatten(parameters)
    local storages, n = {}, 0
    for _, p in ipairs(parameters) do
      local key = torch.pointer(p:storage())
      if not storages[key] then storages[key] = { p:storage(), n } n = n + p:storage():size() end
    end
    local flat = torch.Tensor(n)
    for _, so in pairs(storages) do flat[{ { so[2] + 1, so[2] + so[1]:size() } }]:copy(torch.Tensor():set(so[1])) end
    for _, p in ipairs(parameters) do
      local so = storages[torch.pointer(p:storage())]
      p:set(flat:storage(), so[2] + p:storageOffset(), p:size(), p:stride())
    end
    return flat
  end
  local x, prev = nn.Identity()(), nn.Identity()()
  local h = nn.Tanh()(nn.CAddTable()({ nn.Linear(3, 4)(x), nn.Linear(4, 4)(prev) }))
  local proto = nn.gModule({ x, prev }, { h, nn.LogSoftMax()(nn.Linear(4, 3)(h)) })
  local ps, gs = proto:parameters()
  local params, grads = flatten(ps), flatten(gs)
  tester:eq(params:nElement(), 51)
  params:uniform(-0.5, 0.5)
  local T, clones = 4, {}
  local mem = torch.MemoryFile('w'):binary()
  mem:writeObject(proto)
  for t = 1, T do
    local reader = torch.MemoryFile(mem:storage(), 'r'):binary()
    clones[t] = reader:readObject()
    reader:close()
    local cp, cg = clones[t]:parameters()
    for i = 1, #ps do cp[i]:set(ps[i]) cg[i]:set(gs[i]) end
  end
  mem:close()
  local crit = nn.ClassNLLCriterion()
  local xs, ys = torch.randn(T, 2, 3), torch.LongTensor(T, 2):random(1, 3)
  local function loss(withGrad)
    grads:zero()
    local hs, outs, l = { [0] = torch.zeros(2, 4) }, {}, 0
    for t = 1, T do
      local o = clones[t]:forward({ xs[t], hs[t - 1] })
      hs[t], outs[t] = o[1], o[2]
      l = l + crit:forward(outs[t], ys[t])
    end
    if withGrad then
      local dh = torch.zeros(2, 4)
      for t = T, 1, -1 do
        dh = clones[t]:backward({ xs[t], hs[t - 1] }, { dh, crit:backward(outs[t], ys[t]) })[2]:clone()
      end
    end
    return l
  end
  loss(true)
  local analytic, err = grads:clone(), 0
  for i = 1, params:nElement() do
    local v = params[i]
    params[i] = v + 1e-6
    local l1 = loss(false)
    params[i] = v - 1e-6
    local l2 = loss(false)
    params[i] = v
    err = math.max(err, math.abs((l1 - l2) / 2e-6 - analytic[i]))
  end
  tester:assertlt(err, 1e-7, 'BPTT gradient of the shared flat parameters')
end

-- A container holding a gModule, saved (Tocha's format and Torch7's) and loaded back, computes the same.
function tests.t7SaveLoadOfContainedGModule()
  local x = nn.Identity()()
  local a, b = nn.SplitTable(2)(nn.Reshape(2, 2)(nn.Linear(3, 4)(x))):split(2)
  local g = nn.gModule({ x }, { nn.CAddTable()({ b, nn.Tanh()(a) }) })
  local net = nn.Sequential():add(g):add(nn.Linear(2, 1))
  local input = torch.randn(5, 3)
  local y = net:forward(input):clone()
  local go = torch.randn(5, 1)
  local gi = net:backward(input, go):clone()
  local file = os.tmpname()
  for _, fmt in ipairs({ 'tocha', 'binary-t7', 'ascii' }) do
    torch.save(file, net, fmt)
    local n2 = torch.load(file)
    tester:assertTensorEq(n2:forward(input), y, 1e-12, fmt .. ' forward')
    tester:assertTensorEq(n2:backward(input, go), gi, 1e-12, fmt .. ' backward')
    tester:eq(#n2.modules[1].fg:nodes(), #g.fg.nodes, fmt .. ' g:nodes()')
    local p = n2:getParameters()
    tester:eq(p:nElement(), 3 * 4 + 4 + 2 + 1, fmt .. ' getParameters')
  end
  os.remove(file)
end

-- Many forward/backward iterations: the Lua heap and the tensor memory stay flat.
function tests.memoryStaysFlat()
  for _, reuse in ipairs({ false, true }) do
    local x = nn.Identity()()
    local lin = nn.Linear(8, 8)
    local h = nn.Tanh()(lin(x))
    local h2 = nn.Tanh()(reuse and lin(h) or nn.Linear(8, 8)(h))
    local a, b = nn.SplitTable(2)(nn.Reshape(2, 4)(h2)):split(2)
    local g = nn.gModule({ x }, { nn.CAddTable()({ a, b, nn.Narrow(2, 1, 4)(h) }) })
    local input, go = torch.randn(16, 8), torch.ones(16, 4)
    local function run(n) for _ = 1, n do g:forward(input) g:backward(input, go) end end
    local function measure()
      collectgarbage() collectgarbage()
      return collectgarbage('count'), torch.memoryStats('cpu').liveBytes
    end
    -- warm-up: caches fill up to their sizes (with the module applied twice, live tensor bytes
    -- rise to ~2.5 MB over the first ~1200 iterations, then stay there for 18000 and more)
    run(2400)
    local l1, b1 = measure()
    run(600)
    local l2, b2 = measure()
    tester:assertlt(l2 - l1, 256, (reuse and 'reused module' or 'plain') .. ': Lua heap growth (KB)')
    tester:assertlt(b2 - b1, 256 * 1024, (reuse and 'reused module' or 'plain') .. ': tensor memory growth (bytes)')
  end
end

tester:add(tests)
tester:run()
