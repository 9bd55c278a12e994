-- PyTorch-style custom modules (Note [Submodules in fields], nn/field_children.lua): a class
-- holding nn.Linear, nn.Dropout, an nn.ModuleList and an nn.ModuleDict in plain fields trains
-- with optim.SGD exactly like the same layers in an nn.Sequential, names its state like PyTorch
-- 1.13, loads a PyTorch state dict (when /usr/bin/python3 has torch), and its children follow
-- eval, type moves, clone, save/load, freezing, getParameters and Torch7's backward calls.
require 'nn'
require 'optim'
local tester = torch.Tester()
local tests = torch.TestSuite()
local FIXTURES = (arg[0]:match('^(.*)/[^/]*$') or '.') .. '/fixtures'

-- The module of fixtures/export_pytorch_custom.py: relu(fc1) -> drop -> tanh(layers[i]) ->
-- cat(heads.a, heads.b).
local NetC, parent = torch.class('CustomNet', 'nn.Module')
function NetC:__init(p)
  parent.__init(self)
  self.fc1 = nn.Linear(3, 4)
  self.drop = nn.Dropout(p or 0.5)
  self.layers = nn.ModuleList({ nn.Linear(4, 4), nn.Linear(4, 2) })
  self.heads = nn.ModuleDict({ b = nn.Linear(2, 3), a = nn.Linear(2, 1) })
  self.scratch = { nn.Linear(9, 9) }  -- a plain Lua table of modules is not registered (PyTorch too)
end
function NetC:updateOutput(x)
  local h = self.drop:forward(torch.relu(self.fc1:forward(x)))
  for _, layer in ipairs(self.layers) do h = torch.tanh(layer:forward(h)) end
  self.output = torch.cat(self.heads.a:forward(h), self.heads.b:forward(h), 2)
  return self.output
end

-- The same computation from Torch7 containers, with copies of net's weights.
local function as_sequential(net)
  local function copy(l) local c = l:clone() nn.utils.linkGradients(c) return c end
  return nn.Sequential():add(copy(net.fc1)):add(nn.ReLU()):add(nn.Dropout(net.drop.p))
    :add(copy(net.layers[1])):add(nn.Tanh()):add(copy(net.layers[2])):add(nn.Tanh())
    :add(nn.ConcatTable():add(copy(net.heads.a)):add(copy(net.heads.b))):add(nn.JoinTable(2))
end

local function sorted_keys(t)
  local k = {}
  for name in pairs(t) do k[#k + 1] = name end
  table.sort(k)
  return table.concat(k, ' ')
end

function tests.namesArePyTorchs()
  local net = CustomNet()
  -- PyTorch 1.13's sorted(model.state_dict().keys()) for the fixture's module
  tester:asserteq(sorted_keys(net:stateDict()), table.concat({ 'fc1.bias', 'fc1.weight', 'heads.a.bias',
    'heads.a.weight', 'heads.b.bias', 'heads.b.weight', 'layers.0.bias', 'layers.0.weight', 'layers.1.bias',
    'layers.1.weight' }, ' '))
  -- PyTorch's named_modules() names (its order is registration order; ours sorts field names)
  local names = {}
  for n in net:namedModules() do names[#names + 1] = n end
  tester:asserteq(table.concat(names, ','), ',drop,fc1,heads,heads.a,heads.b,layers,layers.0,layers.1')
  -- parameters() in field-name order, the order of namedParameters
  local params = net:parameters()
  local expect = { net.fc1.weight, net.fc1.bias, net.heads.a.weight, net.heads.a.bias, net.heads.b.weight,
                   net.heads.b.bias, net.layers[1].weight, net.layers[1].bias, net.layers[2].weight, net.layers[2].bias }
  tester:asserteq(#params, #expect)
  local i = 0
  for name, p in net:namedParameters() do
    i = i + 1
    tester:assert(p == expect[i] and params[i] == expect[i], 'parameter ' .. i .. ' is ' .. name)
  end
  tester:asserteq(net:numParameters(), 3 * 4 + 4 + 4 * 4 + 4 + 4 * 2 + 2 + 2 * 3 + 3 + 2 * 1 + 1)
  local kids = {}
  for name in net:namedChildren() do kids[#kids + 1] = name end
  tester:asserteq(table.concat(kids, ','), 'drop,fc1,heads,layers')
  tester:asserteq(#net:listModules(), 9)
  tester:asserteq(#net:findModules('nn.Linear'), 5)
end

function tests.sgdTrainingMatchesSequential()
  torch.manualSeed(7)
  local net = CustomNet(0):double()
  local seq = as_sequential(net):double()
  local x, t = torch.randn(8, 3):double(), torch.randn(8, 4):double()
  local crit = nn.MSECriterion():double()
  local o1 = optim.SGD(net, { lr = 0.1, momentum = 0.9 })
  local o2 = optim.SGD(seq, { lr = 0.1, momentum = 0.9 })
  tester:asserteq(#o1.paramGroups[1].params, 10)
  local first, last
  for step = 1, 6 do
    o1:zeroGrad() o2:zeroGrad()
    local l1 = crit(net(x), t)
    l1:backward()
    local l2 = crit(seq(x), t)
    l2:backward()
    o1:step() o2:step()
    tester:assertalmosteq(l1:item(), l2:item(), 1e-12, 'step ' .. step)
    first, last = first or l1:item(), l1:item()
  end
  tester:assert(last < first * 0.9, string.format('the loss decreases (%g -> %g)', first, last))
  tester:assertTensorEq(net.layers[2].weight, seq:get(6).weight, 1e-12)
  tester:assertTensorEq(net.heads.b.bias, seq:get(8):get(2).bias, 1e-12)
end

function tests.torch7BackwardReachesFieldChildren()
  -- CustomNet defines only updateOutput: net:backward replays it (Note [Torch7 calls on autograd
  -- modules]); the Torch7-style Linears inside accumulate their gradients once, times scale
  torch.manualSeed(2)
  local net = CustomNet(0):double()
  local seq = as_sequential(net):double()
  local x, g = torch.randn(5, 3):double(), torch.randn(5, 4):double()
  net:zeroGradParameters() seq:zeroGradParameters()
  net:forward(x) seq:forward(x)
  tester:assertTensorEq(net:backward(x, g, 0.5), seq:backward(x, g, 0.5), 1e-12)
  local _, gn = net:parameters()
  local _, gs = seq:parameters()
  -- net lists fc1, heads.a, heads.b, layers.0, layers.1 (field names sorted); seq fc1, layers, heads
  local order = { 1, 2, 7, 8, 9, 10, 3, 4, 5, 6 }
  for i, k in ipairs(order) do tester:assertTensorEq(gn[i], gs[k], 1e-12, 'gradient ' .. i) end
  -- the separate calls: updateGradInput leaves the parameters alone, accGradParameters adds
  net:zeroGradParameters()
  net:updateGradInput(x, g)
  tester:asserteq(net.fc1.gradWeight:abs():max(), 0)
  net:accGradParameters(x, g, 0.5)
  for i, k in ipairs(order) do tester:assertTensorEq(gn[i], gs[k], 1e-12, 'accGradParameters ' .. i) end
  -- indices as input (no input needs a gradient): the embedding still gets its gradient
  local E, p = torch.class('CustomEmbedNet', 'nn.Module')
  function E:__init() p.__init(self) self.emb = nn.LookupTable(5, 3) self.fc = nn.Linear(3, 2) end
  function E:updateOutput(i) self.output = self.fc:forward(self.emb:forward(i)) return self.output end
  local en = CustomEmbedNet()
  local es = nn.Sequential():add(en.emb:clone()):add(en.fc:clone())
  local idx, ge = torch.LongTensor({ 1, 4, 4 }), torch.randn(3, 2)
  en:zeroGradParameters() es:zeroGradParameters()
  en:forward(idx) en:backward(idx, ge)
  es:forward(idx) es:backward(idx, ge)
  tester:assertTensorEq(en.emb.gradWeight, es:get(1).gradWeight, 1e-6)
  tester:assertTensorEq(en.fc.gradWeight, es:get(2).gradWeight, 1e-6)
end

function tests.evalReachesDropoutInFields()
  local net = CustomNet(0.5)
  net.layers:append(nn.Dropout(0.3))
  net:evaluate()
  tester:asserteq(net.drop.train, false)
  tester:asserteq(net.layers[3].train, false)
  tester:asserteq(net.heads.a.train, false)
  local x = torch.randn(4, 3)
  net.layers[3] = nil
  -- eval: Dropout is the identity, as in the Sequential's eval output
  local seq = as_sequential(net)
  seq:evaluate()
  tester:assertTensorEq(net:forward(x):clone(), seq:forward(x), 1e-6)
  net:training()
  tester:asserteq(net.drop.train, true)
  -- training again: the Dropout draws masks (16 activations, two draws equal w.p. about 2^-16)
  local big = torch.randn(64, 3)
  tester:assert((net:forward(big):clone() - net:forward(big)):abs():max() > 0, 'dropout active in training')
  tester:asserteq(net.layers[2].train, true)
  tester:assert(net:eval() == net and net.drop.train == false, 'eval() is evaluate()')
  tester:asserteq(net.scratch[1].train, true)  -- a plain table of modules is not a child
end

function tests.typeMovesAndGradientLinks()
  local net = CustomNet():double()
  for name, p in net:namedParameters() do
    tester:asserteq(torch.type(p), 'torch.DoubleTensor', name)
  end
  tester:asserteq(torch.type(net.layers[2].gradWeight), 'torch.DoubleTensor')
  tester:assert(net.layers[2].weight.grad == net.layers[2].gradWeight, '.grad is gradWeight after the move')
  net:float()
  tester:asserteq(torch.type(net.heads.b.weight), 'torch.FloatTensor')
  tester:asserteq(torch.type(net:forward(torch.randn(2, 3))), 'torch.FloatTensor')
  if torch.cuda.isAvailable() then
    local cpu = CustomNet(0)
    local x = torch.randn(3, 3)
    local y = cpu:forward(x):clone()
    local gpu = cpu:clone():cuda()
    tester:asserteq(torch.type(gpu.layers[1].weight), 'torch.CudaTensor')
    tester:assertTensorEq(gpu:forward(x:cuda()):float(), y, 1e-5)
  end
end

function tests.cloneSaveLoad()
  torch.manualSeed(4)
  local net = CustomNet(0)
  local x = torch.randn(3, 3)
  local y = net:forward(x):clone()
  local c = net:clone()
  tester:assertTensorEq(c:forward(x), y, 0)
  tester:assert(torch.pointer(c.layers[1].weight:storage()) ~= torch.pointer(net.layers[1].weight:storage()),
    'a deep copy')
  tester:assert(c.heads.a.weight.grad == c.heads.a.gradWeight, "the copy's .grad is its own gradWeight")
  c.fc1.weight:fill(0)
  tester:assertTensorEq(net:forward(x), y, 0)
  local shared = net:clone('weight', 'bias')
  shared.layers[2].bias:fill(1)
  tester:asserteq(net.layers[2].bias[1], 1)
  local path = os.tmpname()
  local m = CustomNet(0)
  torch.save(path, m)
  local back = torch.load(path)
  os.remove(path)
  tester:assertTensorEq(back:forward(x), m:forward(x), 0)
  tester:asserteq(#back:parameters(), 10)
  tester:assert(back.layers[1].weight.grad == back.layers[1].gradWeight, 'links restored after load')
  tester:asserteq(torch.typename(back.heads), 'nn.ModuleDict')
  tester:asserteq(#back.layers, 2)
end

function tests.freezingAndOptimizers()
  torch.manualSeed(9)
  local net = CustomNet(0)
  net.fc1:requiresGrad(false)
  local w0, l0 = net.fc1.weight:clone(), net.layers[1].weight:clone()
  local opt = optim.SGD(net, { lr = 0.5 })  -- links gradients: fc1 must stay frozen
  tester:asserteq(net.fc1.weight:needsGrad(), false)
  local x = torch.randn(4, 3)
  opt:zeroGrad()
  net:forward(x):sum():backward()
  opt:step()
  tester:assertTensorEq(net.fc1.weight, w0, 0)
  tester:assert((net.layers[1].weight - l0):abs():max() > 0, 'the rest trains')
  tester:asserteq(net:numParameters(true), net:numParameters() - 3 * 4 - 4)
  net:double()
  tester:asserteq(net.fc1.weight:needsGrad(), false, 'frozen through a type move')
  net:requiresGrad(false)
  tester:asserteq(net.heads.b.weight:needsGrad(), false)
  tester:asserteq(net.heads.b._frozen, true)
  net:requiresGrad(true)
  tester:asserteq(net.fc1.weight:needsGrad(), true)
  tester:assert(net.fc1.weight.grad == net.fc1.gradWeight, 'relinked')
end

function tests.getParametersApplyClearState()
  local net = CustomNet(0)
  local flat, gflat = net:getParameters()
  tester:asserteq(flat:nElement(), net:numParameters())
  flat:fill(0.25)
  tester:asserteq(net.heads.b.weight[2][1], 0.25)
  net:zeroGradParameters()
  net:forward(torch.randn(2, 3)):sum():backward()
  local sum = 0
  for _, g in ipairs(select(2, net:parameters())) do sum = sum + g:abs():sum() end
  tester:assertalmosteq(gflat:abs():sum(), sum, 1e-4, 'the flat gradient aliases every gradWeight')
  tester:assert(sum > 0, 'gradients reached the children')
  net:zeroGradParameters()
  tester:asserteq(gflat:abs():sum(), 0)
  local seen = 0
  net:apply(function() seen = seen + 1 end)
  tester:asserteq(seen, 9)
  net:forward(torch.randn(2, 3))
  net:clearState()
  tester:asserteq(net.layers[1].output:nElement(), 0)
  tester:asserteq(net.heads.a.output:nElement(), 0)
  net:replace(function(m) if torch.typename(m) == 'nn.Dropout' then return nn.Identity() end return m end)
  tester:asserteq(torch.typename(net.drop), 'nn.Identity')
end

function tests.moduleListAndDict()
  local l = nn.ModuleList({ nn.Linear(2, 3) })
  l:append(nn.ReLU()):add(nn.Linear(3, 1)):insert(2, nn.Tanh())
  tester:asserteq(#l, 4)
  tester:asserteq(l:size(), 4)
  tester:asserteq(torch.typename(l[2]), 'nn.Tanh')
  local n = 0
  for i, m in ipairs(l) do n = n + 1 tester:assert(m == l:get(i)) end
  tester:asserteq(n, 4)
  tester:asserteq(sorted_keys(l:stateDict()), '0.bias 0.weight 3.bias 3.weight')
  l:extend({ nn.Linear(1, 1) })
  tester:asserteq(#l:parameters(), 6)
  local d = nn.ModuleDict({ enc = nn.Linear(2, 2) }):add('dec', nn.Linear(2, 3))
  tester:asserteq(sorted_keys(d:stateDict()), 'dec.bias dec.weight enc.bias enc.weight')
  local names = {}
  for name, m in d:items() do names[#names + 1] = name .. '=' .. torch.typename(m) end
  tester:asserteq(table.concat(names, ','), 'dec=nn.Linear,enc=nn.Linear')
  tester:asserteq(d:size(), 2)
  tester:assert(d:remove('dec') ~= nil and d:size() == 1 and d.dec == nil, 'remove')
  local ok, err = pcall(function() return l:forward(torch.randn(2)) end)
  tester:assert(not ok and err:find('nn.ModuleList', 1, true) and err:find('no forward', 1, true), tostring(err))
  ok, err = pcall(function() return d:forward(torch.randn(2)) end)
  tester:assert(not ok and err:find('no forward', 1, true), tostring(err))
  ok, err = pcall(function() l:append(torch.randn(2)) end)
  tester:assert(not ok and err:find('nn.ModuleList.append', 1, true), tostring(err))
  ok, err = pcall(function() l:insert(9, nn.ReLU()) end)
  tester:assert(not ok and err:find('from 1 to 6', 1, true), tostring(err))
  ok, err = pcall(function() d:add('train', nn.ReLU()) end)
  tester:assert(not ok and err:find('already a field', 1, true), tostring(err))
  ok, err = pcall(function() d:add('a.b', nn.ReLU()) end)
  tester:assert(not ok and err:find("contain '.'", 1, true), tostring(err))
  ok, err = pcall(function() return nn.ModuleDict({ x = 3 }) end)
  tester:assert(not ok and err:find('must be an nn.Module', 1, true), tostring(err))
end

function tests.torch7StyleUserClassesKeepTheirAnswers()
  -- a user class that collects its own parameters, and a container subclass, keep Torch7's walk
  local T7, p7 = torch.class('CustomTorch7Style', 'nn.Module')
  function T7:__init() p7.__init(self) self.a = nn.Linear(2, 2) self.b = nn.Linear(2, 2) end
  function T7:parameters() return self.a:parameters() end
  local m = CustomTorch7Style()
  tester:asserteq(#m:parameters(), 2)
  tester:asserteq(sorted_keys(m:stateDict()), '')
  m:evaluate()
  tester:asserteq(m.b.train, true)
  local S, ps = torch.class('CustomSeq', 'nn.Sequential')
  function S:__init() ps.__init(self) self:add(nn.Linear(2, 2)) self.extra = nn.Linear(2, 5) end
  local s = CustomSeq()
  tester:asserteq(#s:parameters(), 2)
  tester:asserteq(sorted_keys(s:stateDict()), '0.bias 0.weight')
  -- a module holding a criterion: not a child (no parameters, no modes)
  local h = nn.Module()
  h.crit, h.fc = nn.MSECriterion(), nn.Linear(2, 1)
  tester:asserteq(sorted_keys(h:stateDict()), 'fc.bias fc.weight')
end

local have_torch = os.execute('/usr/bin/python3 -c "import torch" >/dev/null 2>&1')
if have_torch == true or have_torch == 0 then
  function tests.pytorchStateDictLoads()
    local path = os.tmpname() .. '.safetensors'
    local ok = os.execute(string.format('/usr/bin/python3 %s/export_pytorch_custom.py %s', FIXTURES, path))
    tester:assert(ok == true or ok == 0, 'the PyTorch export ran')
    local tbl = torch.loadSafetensors(path)
    os.remove(path)
    local x, y = tbl.input, tbl.output
    tbl.input, tbl.output = nil, nil
    local net = CustomNet()
    local missing, unexpected = net:loadStateDict(tbl)
    tester:asserteq(#missing + #unexpected, 0)
    net:evaluate()
    tester:assertTensorEq(net:forward(x), y, 1e-5)
  end
else
  print('test_nn_custom_modules: /usr/bin/python3 has no torch module; PyTorch state dict test skipped')
end

tester:add(tests)
tester:run()
