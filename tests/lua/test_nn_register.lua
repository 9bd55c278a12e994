-- m:registerParameter / m:registerBuffer (Note [Registered tensors], nn/module_register.lua): a
-- PyTorch-style module with a registered scale and offset, a buffer mask and an nn.Linear child
-- names its state like PyTorch 1.13, trains with optim.SGD by the closed-form gradients, and keeps
-- its registered tensors through type moves, clone, save/load, freezing, getParameters and
-- Torch7's backward replay; bad registrations raise errors naming the operation.
require 'nn'
require 'optim'
local tester = torch.Tester()
local tests = torch.TestSuite()

-- y = fc(x) * scale * mask + offset; the PyTorch equivalent (PyTorch 1.13, used for the names):
--   class M(nn.Module):
--     def __init__(s):
--       super().__init__(); s.fc = nn.Linear(3, 2); s.scale = nn.Parameter(torch.ones(1))
--       s.register_buffer('mask', torch.ones(2)); s.offset = nn.Parameter(torch.zeros(2))
local Net, parent = torch.class('RegisterNet', 'nn.Module')
function Net:__init()
  parent.__init(self)
  self.fc = nn.Linear(3, 2)
  self:registerParameter('scale', torch.Tensor({ 2 }))
  self:registerBuffer('mask', torch.Tensor({ 1, 0.5 }))
  self:registerParameter('offset', torch.Tensor({ 0.1, -0.2 }))
end
function Net:updateOutput(x)
  local h = self.fc:forward(x)
  self.output = torch.add(torch.cmul(torch.cmul(h, self.scale), self.mask), self.offset)
  return self.output
end

local function names(iter)
  local list = {}
  for n in iter do list[#list + 1] = n end
  return table.concat(list, ' ')
end

-- The Linear's output computed without the module.
local function linear(net, x)
  local xw = x * net.fc.weight:detach():t()
  return xw + net.fc.bias:detach():view(1, -1):expandAs(xw)
end

function tests.namesAndOrderArePyTorchs()
  local net = RegisterNet()
  -- PyTorch 1.13: named_parameters ['scale', 'offset', 'fc.weight', 'fc.bias'], named_buffers
  -- ['mask'], state_dict ['scale', 'offset', 'mask', 'fc.weight', 'fc.bias'] (own parameters by
  -- registration, buffers, then children). Tocha's stateDict is a table (no order); its walks
  -- put a module's own weight/bias first and field children by sorted name.
  tester:asserteq(names(net:namedParameters()), 'scale offset fc.weight fc.bias')
  tester:asserteq(names(net:namedBuffers()), 'mask')
  local keys = {}
  for k in pairs(net:stateDict()) do keys[#keys + 1] = k end
  table.sort(keys)
  tester:asserteq(table.concat(keys, ' '), 'fc.bias fc.weight mask offset scale')
  local p, g = net:parameters()
  tester:asserteq(#p, 4)
  tester:assert(p[1] == net.scale and g[1] == net.gradScale and p[2] == net.offset and g[2] == net.gradOffset)
  tester:assert(p[3] == net.fc.weight and p[4] == net.fc.bias, 'then the child')
  tester:assertTensorEq(net.gradScale, torch.zeros(1), 0)
  tester:assert(net.scale.grad == net.gradScale and net.scale:needsGrad(), 'linked')
  tester:asserteq(net.mask:needsGrad(), false)
  tester:asserteq(net:numParameters(), 1 + 2 + 6 + 2)
end

function tests.gradNameRule()
  tester:asserteq(nn.Module.gradName('weight'), 'gradWeight')
  tester:asserteq(nn.Module.gradName('bias'), 'gradBias')
  tester:asserteq(nn.Module.gradName('scale'), 'gradScale')
  for _, n in ipairs({ 'weight_ih_l0', 'bias_hh_l1_reverse' }) do
    tester:asserteq(nn.Module.gradName(n), nn.RNNBase._gradName(n), 'the RNN rule for ' .. n)
  end
end

function tests.sgdMovesByClosedFormGradient()
  torch.manualSeed(3)
  local net = RegisterNet():double()
  local x = torch.randn(5, 3):double()
  local h = linear(net, x)
  local s0, o0, w0 = net.scale[1], net.offset:clone(), net.fc.weight:clone()
  local mask = net.mask:clone()
  local opt = optim.SGD(net, { lr = 0.1 })
  tester:asserteq(#opt.paramGroups[1].params, 4)
  opt:zeroGrad()
  net:forward(x):sum():backward()
  opt:step()
  -- d sum(y) / d scale = sum(h * mask); / d offset = N; / d W[j][k] = scale * mask[j] * sum_i x[i][k]
  local gs = torch.cmul(h, mask:view(1, 2):expandAs(h)):sum()
  tester:assertalmosteq(net.scale[1], s0 - 0.1 * gs, 1e-12)
  tester:assertTensorEq(net.offset, o0 - 0.1 * 5, 1e-12)
  local gw = torch.ger(mask * s0, x:sum(1):view(3))
  tester:assertTensorEq(net.fc.weight, w0 - gw * 0.1, 1e-12)
  tester:asserteq(net.mask[2], 0.5, 'the buffer is not trained')
end

function tests.torch7BackwardReplay()
  -- RegisterNet defines only updateOutput: backward replays it (Note [Torch7 calls on autograd
  -- modules]), and the registered parameters get their gradients times scale
  torch.manualSeed(4)
  local net = RegisterNet():double()
  local x, g = torch.randn(4, 3):double(), torch.randn(4, 2):double()
  local h = linear(net, x)
  local m = net.mask:view(1, 2):expandAs(g)
  net:zeroGradParameters()
  net:forward(x)
  local gi = net:backward(x, g, 0.5)
  local gh = torch.cmul(g, m) * net.scale[1]
  tester:assertalmosteq(net.gradScale[1], 0.5 * torch.cmul(torch.cmul(g, h), m):sum(), 1e-12)
  tester:assertTensorEq(net.gradOffset, g:sum(1):view(2) * 0.5, 1e-12)
  tester:assertTensorEq(net.fc.gradWeight, gh:t() * x * 0.5, 1e-12)
  tester:assertTensorEq(gi, gh * net.fc.weight, 1e-12)
  -- Torch7's separate calls: updateGradInput leaves the parameters, accGradParameters adds
  net:zeroGradParameters()
  net:updateGradInput(x, g)
  tester:asserteq(net.gradScale[1], 0)
  net:accGradParameters(x, g, 2)
  tester:assertalmosteq(net.gradScale[1], 2 * torch.cmul(torch.cmul(g, h), m):sum(), 1e-12)
end

function tests.stateDictRoundTrip()
  local a, b = RegisterNet(), RegisterNet()
  a.scale:fill(3) a.mask:fill(0.25) a.offset:fill(-1)
  b:loadStateDict(a:stateDict())
  tester:asserteq(b.scale[1], 3)
  tester:assertTensorEq(b.mask, torch.Tensor({ 0.25, 0.25 }), 0)
  tester:assertTensorEq(b.fc.weight, a.fc.weight, 0)
  local sd = a:stateDict()
  sd.scale = nil
  tester:assertErrorPattern(function() b:loadStateDict(sd) end, 'missing: {scale}')
end

function tests.typeConversion()
  local net = RegisterNet()
  net:double()
  tester:asserteq(torch.type(net.scale), 'torch.DoubleTensor')
  tester:asserteq(torch.type(net.gradScale), 'torch.DoubleTensor')
  tester:asserteq(torch.type(net.mask), 'torch.DoubleTensor')
  tester:assert(net.scale.grad == net.gradScale and net.scale:needsGrad(), 'relinked after the move')
  tester:asserteq(net:parameters()[1], net.scale)
  local x = torch.randn(3, 3):double()
  local y = net:forward(x):clone()
  net:float()
  tester:asserteq(torch.type(net.offset), 'torch.FloatTensor')
  tester:assertTensorEq(net:forward(x:float()):double(), y, 1e-5)
  if torch.cuda.isAvailable() then
    net:cuda()
    tester:asserteq(torch.type(net.mask), 'torch.CudaTensor')
    tester:assert(net.scale.grad == net.gradScale, 'linked on CUDA')
    -- net:cuda() makes float32 parameters (Torch7) while x:cuda() keeps x's f64 (PyTorch)
    local out = net:forward(x:type('torch.CudaTensor'))
    out:sum():backward()
    tester:assertTensorEq(out:float():double(), y, 1e-4)
    net:float()
    tester:assertalmosteq(net.gradOffset[1], 3, 1e-5, 'the CUDA gradient of offset is N')
  end
end

function tests.cloneSaveLoad()
  local net = RegisterNet()
  local x = torch.randn(2, 3)
  local y = net:forward(x):clone()
  local c = net:clone()
  tester:assert(c.scale ~= net.scale, 'a deep copy')
  tester:assertTensorEq(c:forward(x), y, 0)
  tester:assert(c.scale.grad == c.gradScale, "the copy's .grad is its own gradScale")
  tester:asserteq(#c:parameters(), 4)
  c:registerParameter('extra', torch.ones(3))
  tester:asserteq(#c:parameters(), 5)
  tester:asserteq(#net:parameters(), 4, 'the copy has its own lists')
  local shared = net:clone('scale')
  shared.scale:fill(7)
  tester:asserteq(net.scale[1], 7, "clone('scale') shares the registered parameter")
  local path = os.tmpname()
  torch.save(path, net)
  local back = torch.load(path)
  os.remove(path)
  tester:assertTensorEq(back:forward(x), net:forward(x), 0)
  tester:asserteq(names(back:namedParameters()), 'scale offset fc.weight fc.bias')
  tester:asserteq(names(back:namedBuffers()), 'mask')
  tester:assert(back.scale.grad == back.gradScale and back.scale:needsGrad(), 'links restored after load')
end

function tests.freezing()
  torch.manualSeed(5)
  local net = RegisterNet()
  net:requiresGrad(false)
  net.fc:requiresGrad(true)
  tester:asserteq(net.scale:needsGrad(), false)
  tester:asserteq(net.scale.grad, nil)
  local opt = optim.SGD(net, { lr = 0.5 })  -- links gradients: scale must stay frozen
  tester:asserteq(net.scale:needsGrad(), false)
  local w0 = net.fc.weight:clone()
  opt:zeroGrad()
  net:forward(torch.randn(4, 3)):sum():backward()
  opt:step()
  tester:asserteq(net.scale[1], 2)
  tester:assertTensorEq(net.offset, torch.Tensor({ 0.1, -0.2 }), 1e-7)
  tester:assert((net.fc.weight - w0):abs():max() > 0, 'the child trains')
  tester:asserteq(net:numParameters(true), 6 + 2)
  net:registerParameter('late', torch.ones(1))
  tester:asserteq(net.late:needsGrad(), false, 'a frozen module registers frozen parameters')
  net:requiresGrad(true)
  tester:assert(net.scale:needsGrad() and net.scale.grad == net.gradScale, 'relinked')
end

function tests.getParameters()
  local net = RegisterNet()
  local flat, gflat = net:getParameters()
  tester:asserteq(flat:nElement(), 11)
  flat:fill(0.5)
  tester:asserteq(net.scale[1], 0.5)
  tester:asserteq(net.offset[2], 0.5)
  net:zeroGradParameters()
  local x = torch.randn(3, 3)
  net:forward(x):sum():backward()
  tester:asserteq(gflat[1], net.gradScale[1])
  tester:assertalmosteq(gflat[2], 3, 1e-6, 'the flat gradient of offset is N')
  tester:assert(net.scale.grad == net.gradScale, 'still linked')
end

function tests.builtinLeafAndReregister()
  -- lua/nn's leaf classes use nn.Module's parameters(): the tensor is listed after weight, bias
  local l = nn.Linear(2, 3):registerParameter('temperature', torch.ones(1))
  local p, g = l:parameters()
  tester:asserteq(#p, 3)
  tester:assert(p[3] == l.temperature and g[3] == l.gradTemperature)
  tester:asserteq(names(l:namedParameters()), 'weight bias temperature')
  tester:assert(nn.Linear.__init ~= nil and nn.Linear(2, 3)._stateParams == nil, "the class's list is untouched")
  -- registering the same name again replaces it
  local net = RegisterNet()
  local s = torch.Tensor({ 9 })
  net:registerParameter('scale', s)
  tester:assert(net.scale == s and #net:parameters() == 4 and net:parameters()[1] == s)
  -- an unregistered custom module may register weight: it is listed once
  local m = nn.Module():registerParameter('weight', torch.ones(2))
  tester:asserteq(#m:parameters(), 1)
  tester:asserteq(m:parameters()[1], m.weight)
  tester:asserteq(names(m:namedParameters()), 'weight')
end

function tests.errors()
  local net = RegisterNet()
  local cases = {
    { function() net:registerParameter(1, torch.ones(1)) end, 'name must be a non%-empty string, got number' },
    { function() net:registerParameter('_s', torch.ones(1)) end, "must not start with '_'" },
    { function() net:registerParameter('fc', torch.ones(1)) end, "'fc' already holds a child module" },
    { function() net:registerBuffer('fc', torch.ones(1)) end, "'fc' already holds a child module" },
    { function() net:registerParameter('mask', torch.ones(1)) end, 'already registered as a buffer' },
    { function() net:registerBuffer('scale', torch.ones(1)) end, 'already registered as a parameter' },
    { function() net:registerParameter('forward', torch.ones(1)) end, "'forward' already holds function" },
    { function() net:registerParameter('gradScale', torch.ones(1)) end, "'gradScale' already holds torch" },
    { function() net:registerParameter('output', torch.ones(1)) end, 'a field every module uses' },
    { function() net:registerParameter('idx', torch.LongTensor(2)) end, 'must be a floating tensor' },
    { function() net:registerParameter('s2', 3) end, "'s2' must be a tensor, got number" },
    { function() net:registerBuffer('bias', torch.ones(1)) end, "parameter by Torch7's rule" },
    { function() nn.Sequential():registerParameter('s', torch.ones(1)) end, 'defines parameters%(%) itself' },
    { function() nn.LSTM(2, 2):registerBuffer('s', torch.ones(1)) end, 'defines parameters%(%) itself' },
    { function() net:registerParameter('y', torch.ones(1):requiresGrad() * 2) end, 'result of an operation' },
  }
  for i, c in ipairs(cases) do
    local ok, err = pcall(c[1])
    tester:assert(not ok, 'case ' .. i .. ' fails')
    tester:assert(tostring(err):find(c[2]) ~= nil, 'case ' .. i .. ': ' .. tostring(err))
    tester:assert(tostring(err):find('[nn.Module.register', 1, true) ~= nil, 'names the operation: ' .. tostring(err))
    tester:assert(tostring(err):find('test_nn_register.lua', 1, true) ~= nil, "at the user's line: " .. tostring(err))
  end
  local m = nn.Module()
  m.extra = torch.ones(1)
  tester:assertErrorPattern(function() m:registerParameter('extra', torch.ones(1)) end, "'extra' already holds torch")
  m:registerParameter('extra', m.extra)  -- the tensor the field already holds may be registered
  tester:asserteq(m:parameters()[1], m.extra)
  tester:asserteq(#net:parameters(), 4, 'failed registrations changed nothing')
end

-- A PyTorch-style class holding a child of its own class (a recursive block): the field walk
-- compares with rawequal; `v ~= m` ran the class's __eq and failed with "attempt to perform eq".
function tests.childOfTheSameClass()
  local Block = torch.class('nn.TestRecursiveBlock', 'nn.Module')
  function Block:__init(depth)
    nn.Module.__init(self)
    self.lin = nn.Linear(2, 2)
    if depth > 0 then self.inner = nn.TestRecursiveBlock(depth - 1) end
  end
  function Block:updateOutput(x)
    self.output = self.inner and self.inner:forward(self.lin:forward(x)) or self.lin:forward(x)
    return self.output
  end
  local b = nn.TestRecursiveBlock(2)
  local names = {}
  for name in b:namedParameters() do names[#names + 1] = name end
  table.sort(names)
  tester:asserteq(table.concat(names, ' '), 'inner.inner.lin.bias inner.inner.lin.weight inner.lin.bias '
    .. 'inner.lin.weight lin.bias lin.weight')
end

tester:add(tests):run()
