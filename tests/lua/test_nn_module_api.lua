-- PyTorch's nn.Module API (nn/module_pytorch.lua): namedParameters/namedBuffers/namedModules/
-- children/namedChildren against m:stateDict()'s names and tensors and Torch7's listModules order;
-- eval(); freezing with requiresGrad (autograd gives a frozen weight no gradient, optimizer
-- objects skip it, unfreezing restores training); zeroGrad; numParameters; to/cpu/half/bfloat16;
-- errors naming the method.
require 'nn'
require 'optim'
local D = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()

-- a number from a reduction (0-dim results are tensors)
local function amax_or_sum(t, how)
  local v = how == 'max' and t:max() or t:sum()
  return torch.isTensor(v) and v:item() or v
end
local tests = torch.TestSuite()

local function model()
  return nn.Sequential()
    :add(nn.Linear(3, 4)):add(nn.ReLU())
    :add(nn.Sequential():add(nn.Linear(4, 2)):add(nn.BatchNormalization(2)))
    :double()
end

local function collect(iter)
  local names, values = {}, {}
  for name, v in iter do
    names[#names + 1] = name
    values[#values + 1] = v
  end
  return names, values
end

function tests.namedParametersMatchStateDict()
  local m = model()
  local names, ps = collect(m:namedParameters())
  -- stateDict's order: own parameters, then children depth first
  tester:assertTableEq(names, { '0.weight', '0.bias', '2.0.weight', '2.0.bias', '2.1.weight', '2.1.bias' })
  local sd = m:stateDict()
  for i, n in ipairs(names) do tester:assert(rawequal(ps[i], sd[n]), 'same tensor as stateDict: ' .. n) end
  -- the same tensors, in the same order, as Torch7's parameters()
  local params = m:parameters()
  tester:asserteq(#params, #ps)
  for i = 1, #ps do tester:assert(rawequal(params[i], ps[i]), 'parameters() order ' .. i) end
  local pn = collect(m:namedParameters('model'))
  tester:asserteq(pn[1], 'model.0.weight')
  tester:asserteq(pn[6], 'model.2.1.bias')
  -- a wrapper's children outside self.modules (_stateChildren) keep PyTorch 1.13's names
  -- (nn.TransformerEncoderLayer(8, 2, dim_feedforward=16).named_parameters(), sorted)
  local layer = nn.TransformerEncoderLayer(8, 2, { dimFeedforward = 16, dropout = 0 })
  local ln = collect(layer:namedParameters())
  table.sort(ln)
  tester:assertTableEq(ln, { 'linear1.bias', 'linear1.weight', 'linear2.bias', 'linear2.weight', 'norm1.bias',
    'norm1.weight', 'norm2.bias', 'norm2.weight', 'self_attn.in_proj_bias', 'self_attn.in_proj_weight',
    'self_attn.out_proj.bias', 'self_attn.out_proj.weight' })
  local lsd = layer:stateDict()
  for n, p in layer:namedParameters() do tester:assert(rawequal(lsd[n], p), n) end
end

function tests.namedBuffersAreTheStateDictRest()
  local m = model()
  local names, bs = collect(m:namedBuffers())
  tester:assertTableEq(names, { '2.1.running_mean', '2.1.running_var' })
  local sd = m:stateDict()
  for i, n in ipairs(names) do tester:assert(rawequal(bs[i], sd[n]), n) end
  -- parameters and buffers together are exactly the state dict
  local count = 0
  for _ in pairs(sd) do count = count + 1 end
  tester:asserteq(count, #names + #collect(m:namedParameters()))
  tester:asserteq(#collect(nn.Linear(2, 2):namedBuffers()), 0)
end

function tests.namedModulesAndChildren()
  local m = model()
  local names, mods = collect(m:namedModules())
  tester:assertTableEq(names, { '', '0', '1', '2', '2.0', '2.1' })
  -- the same modules, in the same order, as Torch7's listModules
  local list = m:listModules()
  tester:asserteq(#list, #mods)
  for i = 1, #list do tester:assert(rawequal(list[i], mods[i]), 'listModules order ' .. i) end
  tester:asserteq(collect(m:namedModules('net'))[5], 'net.2.0')
  local cn, cs = collect(m:namedChildren())
  tester:assertTableEq(cn, { '0', '1', '2' })
  local plain = {}
  for c in m:children() do plain[#plain + 1] = c end
  tester:asserteq(#plain, 3)
  for i = 1, 3 do
    tester:assert(rawequal(plain[i], m.modules[i]), 'children ' .. i)
    tester:assert(rawequal(cs[i], m.modules[i]), 'namedChildren ' .. i)
  end
  tester:asserteq(#collect(nn.Linear(2, 2):namedChildren()), 0)
  -- a wrapper's children: its _stateChildren, sorted by name as in the state dict
  local layer = nn.TransformerEncoderLayer(8, 2, { dimFeedforward = 16, dropout = 0 })
  local wn, wm = collect(layer:namedChildren())
  tester:assertTableEq(wn, { 'linear1', 'linear2', 'norm1', 'norm2', 'self_attn' })
  tester:assert(rawequal(wm[5], layer.selfAttn), 'self_attn is selfAttn')
  local all = collect(layer:namedModules())
  tester:asserteq(all[#all], 'self_attn.out_proj')
  -- the list is taken at the call: changing the module inside the loop does not disturb it
  local n = 0
  for _, c in m:namedChildren() do
    n = n + 1
    m:add(nn.Tanh())
  end
  tester:asserteq(n, 3)
  tester:asserteq(#m.modules, 6)
end

function tests.evalReturnsSelfAndSwitchesEveryChild()
  local m = nn.Sequential():add(nn.Dropout(0.5)):add(nn.Sequential():add(nn.BatchNormalization(3))):double()
  tester:assert(rawequal(m:eval(), m), 'eval returns the module')
  for _, mod in m:namedModules() do tester:asserteq(mod.train, false) end
  -- Dropout in evaluation mode is the identity
  local x = torch.randn(4, 3):double()
  tester:assertTensorEq(m.modules[1]:forward(x), x, 0)
  m:training()
  for _, mod in m:namedModules() do tester:asserteq(mod.train, true) end
end

-- The gradients of an MLP's parameters for one loss, computed with nothing frozen (a reference).
local function mlp() return nn.Sequential():add(nn.Linear(3, 4)):add(nn.Tanh()):add(nn.Linear(4, 4)):add(nn.Tanh())
  :add(nn.Linear(4, 2)):double() end
local function loss_of(m, x) return torch.pow(m:forward(x), 2):sum() end

function tests.frozenLayersGetNoGradient()
  local x = torch.randn(5, 3):double()
  for _, frozen in ipairs({ 1, 3 }) do  -- the first layer (input needs no grad), a middle one
    local ref = mlp()
    local m = ref:clone()
    loss_of(ref, x):backward()
    tester:assert(rawequal(m.modules[frozen]:requiresGrad(false), m.modules[frozen]), 'returns the module')
    loss_of(m, x):backward()
    local f = m.modules[frozen]
    tester:assertne(f.weight:needsGrad(), true)
    tester:asserteq(f.weight.grad, nil, 'no .grad on the frozen weight')
    tester:asserteq(f.bias.grad, nil, 'no .grad on the frozen bias')
    for _, i in ipairs({ 1, 3, 5 }) do
      if i ~= frozen then  -- the other layers get exactly the unfrozen model's gradients
        tester:assertTensorEq(m.modules[i].weight.grad, ref.modules[i].gradWeight, 1e-12, 'layer ' .. i)
        tester:assertTensorEq(m.modules[i].bias.grad, ref.modules[i].gradBias, 1e-12, 'layer ' .. i)
      end
    end
    tester:asserteq(m:numParameters(true), m:numParameters() - (frozen == 1 and 16 or 20))
  end
  -- a module differentiated by autograd (no updateGradInput of its own)
  local gn = nn.GroupNormalization(2, 4):double():requiresGrad(false)
  local xg = torch.randn(3, 4):double():requiresGrad()
  gn:forward(xg):pow(2):sum():backward()
  tester:asserteq(gn.weight.grad, nil)
  tester:asserteq(amax_or_sum(torch.abs(gn.gradWeight), 'sum'), 0)
  tester:assert(xg.grad ~= nil, 'the input still gets its gradient')
end

function tests.optimizerSkipsFrozenAndUnfreezingTrains()
  local x = torch.randn(5, 3):double()
  local m = mlp()
  local opt = optim.SGD(m, { lr = 0.1, momentum = 0.9, weightDecay = 0.01 })
  m.modules[1]:requiresGrad(false)
  local w1 = m.modules[1].weight:clone()
  local w3 = m.modules[3].weight:clone()
  opt:zeroGrad()
  loss_of(m, x):backward()
  local g3 = m.modules[3].weight.grad:clone()
  opt:step()
  tester:assertTensorEq(m.modules[1].weight, w1, 0, 'the frozen weight does not move')
  -- first SGD step with momentum: the buffer is the gradient (with weight decay)
  tester:assertTensorEq(m.modules[3].weight, w3 - (g3 + w3 * 0.01) * 0.1, 1e-12, 'the others take an SGD step')
  -- unfreezing links .grad to gradWeight again and the layer trains
  m:requiresGrad(true)
  local l1 = m.modules[1]
  tester:assert(l1.weight:needsGrad(), 'requires grad again')
  tester:asserteq(torch.pointer(l1.weight.grad), torch.pointer(l1.gradWeight), '.grad is gradWeight again')
  opt:zeroGrad()
  loss_of(m, x):backward()
  local g1 = l1.weight.grad:clone()
  tester:assertgt(amax_or_sum(torch.abs(g1), 'sum'), 0)
  opt:step()
  tester:assertTensorEq(l1.weight, w1 - (g1 + w1 * 0.01) * 0.1, 1e-12, 'the unfrozen weight takes its first step')
end

-- Note [Freezing]: the mark survives clone(), type conversions, save/load and optimizer
-- constructors (which relink gradients), and Torch7's backward leaves a frozen gradWeight alone.
function tests.freezingSurvivesCopiesAndTorch7Backward()
  local x = torch.randn(5, 3):double()
  local m = mlp()
  m.modules[3]:requiresGrad(false)
  local path = os.tmpname()
  torch.save(path, m)
  local copies = { m:clone(), m:clone():float():double(), torch.load(path) }
  os.remove(path)
  for k, c in ipairs(copies) do
    optim.SGD(c, { lr = 0.1 })  -- links the parameters' gradients
    local f = c.modules[3]
    tester:assert(not f.weight:needsGrad() and f.weight.grad == nil, 'copy ' .. k .. ': still frozen')
    tester:assert(c.modules[1].weight:needsGrad(), 'copy ' .. k .. ': the others still train')
    c:zeroGradParameters()
    loss_of(c, x):backward()
    tester:asserteq(f.weight.grad, nil, 'copy ' .. k .. ': no .grad after backward')
  end
  -- Torch7's backward: the frozen layer passes gradients on but accumulates nothing
  m:zeroGradParameters()
  m:forward(x)
  m:backward(x, torch.ones(5, 2):double())
  tester:asserteq(torch.abs(m.modules[3].gradWeight):sum(), 0, 'no gradWeight for the frozen layer')
  tester:assertgt(torch.abs(m.modules[1].gradWeight):sum(), 0, 'the layers below still get theirs')
  m:requiresGrad(true)
  tester:asserteq(m.modules[3]._frozen, nil, 'unfreezing clears the mark')
end

function tests.zeroGradZeroesInPlace()
  local m = mlp()
  local x = torch.randn(5, 3):double()
  loss_of(m, x):backward()
  local _, grads = m:parameters()
  local before = {}
  for i, g in ipairs(grads) do before[i] = g end
  tester:assertgt(amax_or_sum(torch.abs(grads[1]), 'sum'), 0)
  tester:assert(rawequal(m:zeroGrad(), m), 'returns the module')
  for i, g in ipairs(grads) do
    tester:asserteq(amax_or_sum(torch.abs(g), 'sum'), 0, 'gradient ' .. i)
    tester:asserteq(torch.pointer(m:parameters()[i].grad), torch.pointer(before[i]), 'still linked ' .. i)
  end
  -- accumulation starts again from zero: one backward gives the same as the first one did
  loss_of(m, x):backward()
  local g1 = grads[1]:clone()
  m:zeroGrad()
  loss_of(m, x):backward()
  tester:assertTensorEq(grads[1], g1, 1e-12)
  tester:assertErrorPattern(function() m:zeroGrad(true) end, '%[nn.Module.zeroGrad%] setToNone is not supported')
end

function tests.numParametersCounts()
  tester:asserteq(nn.Linear(3, 2):numParameters(), 3 * 2 + 2)
  tester:asserteq(nn.ReLU():numParameters(), 0)
  tester:asserteq(mlp():numParameters(), (3 * 4 + 4) + (4 * 4 + 4) + (4 * 2 + 2))
  tester:asserteq(nn.Linear(3, 2, false):numParameters(true), 6)
  local m = mlp()
  m.modules[5]:requiresGrad(false)
  tester:asserteq(m:numParameters(true), (3 * 4 + 4) + (4 * 4 + 4))
end

function tests.typeAndDeviceMoves()
  local m = model():float()
  local w = m.modules[1].weight:clone()
  tester:assert(rawequal(m:to('torch.DoubleTensor'), m), 'to returns the module')
  tester:asserteq(m.modules[1].weight:type(), 'torch.DoubleTensor')
  tester:asserteq(m.modules[3].modules[2].running_mean:type(), 'torch.DoubleTensor')
  tester:assertTensorEq(m.modules[1].weight:float(), w, 0)
  m:to('cpu', 'torch.FloatTensor')
  tester:asserteq(m:type(), 'torch.FloatTensor')
  tester:asserteq(m:cpu():type(), 'torch.FloatTensor', 'cpu keeps the element type')
  m:half()
  tester:asserteq(m.modules[1].weight:type(), 'torch.HalfTensor')
  -- float16 keeps 11 significant bits
  tester:assertTensorEq(m.modules[1].weight:float(), w, 2 ^ -11 * amax_or_sum(torch.abs(w), 'max'))
  m:bfloat16()
  tester:asserteq(m.modules[1].weight:type(), 'torch.BFloat16Tensor')
  -- bfloat16 keeps 8 significant bits, rounded from the float16 values: both roundings add up
  -- (2^-8 alone failed now and then by 0.5%)
  tester:assertTensorEq(m.modules[1].weight:float(), w, (2 ^ -8 + 2 ^ -11) * amax_or_sum(torch.abs(w), 'max'))
  -- parameters stay linked to their gradients, and frozen ones stay frozen
  m:float()
  m.modules[1]:requiresGrad(false)
  m:to('torch.DoubleTensor')
  tester:assertne(m.modules[1].weight:needsGrad(), true, 'still frozen')
  local l3 = m.modules[3].modules[1]
  tester:asserteq(torch.pointer(l3.weight.grad), torch.pointer(l3.gradWeight), 'linked')
  tester:assertErrorPattern(function() m:to('gpu') end, "%[nn.Module.to%] expected a device %('cpu', 'cuda', 'cuda:N'%)")
  tester:assertErrorPattern(function() m:to('torch.NopeTensor') end, '%[nn.Module.to%] unknown tensor type')
  tester:assertErrorPattern(function() m:to() end, '%[nn.Module.to%] expected a device and/or a tensor type')
  if not torch.cuda.isAvailable() then
    tester:assertErrorPattern(function() m:to('cuda') end, '%[nn.Module.to%] cannot move the module to CUDA')
  else
    local x = torch.randn(4, 3):double()
    local cpu = model()
    cpu:evaluate()
    local dev = cpu:clone():to('cuda')
    tester:asserteq(dev.modules[1].weight:type(), 'torch.CudaDoubleTensor')
    tester:assertTensorEq(dev:forward(x:cuda()):double(), cpu:forward(x), 1e-10)
    dev:to('torch.FloatTensor')
    tester:asserteq(dev.modules[1].weight:type(), 'torch.CudaTensor', 'a type name keeps the device')
    tester:asserteq(dev:half().modules[1].weight:type(), 'torch.CudaHalfTensor')
    tester:asserteq(dev:cpu().modules[1].weight:type(), 'torch.HalfTensor')
  end
end

function tests.errorsNameTheMethod()
  local m = model()
  tester:assertErrorPattern(function() m:namedParameters(5) end,
    '%[nn.Module.namedParameters%] prefix must be a string, got number')
  tester:assertErrorPattern(function() m:namedBuffers({}) end, '%[nn.Module.namedBuffers%] prefix must be a string')
  tester:assertErrorPattern(function() m:namedModules(true) end, '%[nn.Module.namedModules%] prefix must be a string')
  tester:assertErrorPattern(function() m:requiresGrad('no') end,
    '%[nn.Module.requiresGrad%] expected a boolean %(or nothing for true%), got string')
  -- Note [Train is a field]: train stays Torch7's boolean
  tester:asserteq(type(m.train), 'boolean')
end

-- clone('weight', 'bias', ...) of a module whose bias field is a flag (nn.MultiHeadAttention):
-- only tensors are shared (it raised a raw Lua error in share)
function tests.cloneSharingAModuleWithAFlagNamedBias()
  local m = nn.MultiHeadAttention(8, 2)
  local c = m:clone('weight', 'bias', 'gradWeight', 'gradBias')
  tester:asserteq(torch.typename(c), 'nn.MultiHeadAttention')
  tester:asserteq(c.bias, m.bias, 'the flag is copied as it is')
  local l = nn.Linear(3, 2)
  local lc = l:clone('weight', 'bias')
  l.bias:fill(0.5)
  tester:asserteq(lc.bias:detach():min(), 0.5, 'tensors named bias are still shared')
end

-- Torch7's Module:sharedAccUpdateGradParameters (it was missing): zeroes the gradients, accumulates
-- with scale 1, then steps the parameters by lr, a shared weight once.
function tests.sharedAccUpdateGradParameters()
  local m = nn.Linear(2, 1):double()
  m.weight:fill(1)
  m.bias:fill(0)
  m.gradWeight:fill(7)  -- stale gradients are zeroed first
  local x, go = torch.DoubleTensor({ 1, 2 }), torch.DoubleTensor({ 3 })
  m:forward(x)
  m:sharedAccUpdateGradParameters(x, go, 0.1)
  tester:assertTensorEq(m.weight, torch.DoubleTensor({ { 1 - 0.3, 1 - 0.6 } }), 1e-15)
  tester:assertTensorEq(m.bias, torch.DoubleTensor({ -0.3 }), 1e-15)
  tester:assertTensorEq(m.gradWeight, torch.DoubleTensor({ { 3, 6 } }), 1e-15, 'the gradients stay accumulated')
end

tester:add(tests):run()
