-- nn.ops.FrozenBatchNorm2d (lua/nn/ops/frozen_bn.lua) against torchvision 0.14 (PyTorch 1.13,
-- float64): outputs and input gradients (checksums: sum, a weighted sum, first elements) for two
-- eps, in training mode; buffers that never change and no parameters; torchvision's state-dict
-- keys, a BatchNorm2d checkpoint (with num_batches_tracked) loading strictly; Torch7-style
-- backward; a gradcheck; errors naming the module.
--
-- # Reference values (PyTorch 1.13, torchvision 0.14, float64):
-- import torch, torchvision.ops as O
-- torch.set_default_dtype(torch.float64)
-- def L(t):
--     if t.dim() == 0: return repr(t.item())
--     return '{' + ', '.join(L(x) for x in t) + '}'
-- def seq(shape, a, b):
--     n = 1
--     for s in shape: n *= s
--     return torch.sin(a * torch.arange(n, dtype=torch.float64) + b).reshape(shape)
-- def C(t):
--     w = seq(t.shape, 0.13, 0.7)
--     return '{sum = %r, wsum = %r, first = %s}' % (t.sum().item(), (t * w).sum().item(), L(t.flatten()[:4]))
-- for eps in (1e-5, 1e-3):
--     m = O.FrozenBatchNorm2d(5, eps=eps).double()
--     print('keys', list(m.state_dict().keys()), [n for n, _ in m.named_parameters()])
--     m.weight.copy_(0.5 * seq((5,), 0.37, 0.4)); m.bias.copy_(0.5 * seq((5,), 0.37, 1.3))
--     m.running_mean.copy_(0.5 * seq((5,), 0.37, 2.6)); m.running_var.copy_(1 + 0.5 * seq((5,), 0.7, 3) ** 2)
--     m.train()
--     x = seq((2, 5, 3, 4), 0.29, 0.1).requires_grad_()
--     y = m(x)
--     (y * seq(y.shape, 0.23, 0.4)).sum().backward()
--     print('eps', eps, 'out =', C(y.detach()), 'gInput =', C(x.grad))
--     print(repr(m))
require 'nn.ops'
local tester = torch.Tester()
local tests = torch.TestSuite()
-- Shared checks (helpers/vision_ops_checks.lua).
local C = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/vision_ops_checks.lua')(tester)
local seq, fails = C.seq, C.fails

-- printed by the script above (torchvision 0.14's values), by eps
local R = {
  [1e-5] = { out = {sum = 54.29552118634522, wsum = 3.3825947989086047, first = {0.45118325493076805, 0.5055009118505479, 0.5536670580867146, 0.5916592304426459}},
             gInput = {sum = 2.0402034941326836, wsum = -2.9239999930441742, first = {0.0754482425166259, 0.11414443477702566, 0.14682895812191954, 0.17178040989690344}} },
  [1e-3] = { out = {sum = 54.29233884881812, wsum = 3.3814562327358137, first = {0.45119823938890363, 0.5054892939759724, 0.5536318506112571, 0.5916054161187576}},
             gInput = {sum = 2.039176110841586, wsum = -2.923565513768278, first = {0.0754112913783827, 0.11408853199323044, 0.1467570479362254, 0.1716962796181607}} },
}

-- The script's buffers, as a state dict of a PyTorch BatchNorm2d would hold them.
local function checkpoint()
  return { weight = seq(0.37, 0.4, 5) * 0.5, bias = seq(0.37, 1.3, 5) * 0.5, running_mean = seq(0.37, 2.6, 5) * 0.5,
           running_var = torch.pow(seq(0.7, 3, 5), 2) * 0.5 + 1, num_batches_tracked = torch.LongTensor({ 7 }) }
end

function tests.valuesAsTorchvision()
  for _, eps in ipairs({ 1e-5, 1e-3 }) do
    local m = eps == 1e-5 and nn.ops.FrozenBatchNorm2d(5) or nn.ops.FrozenBatchNorm2d(5, { eps = eps })
    m:double()
    m:loadStateDict(checkpoint())  -- strict: num_batches_tracked is skipped
    m:training()
    local before = {}
    for k, v in pairs(m:stateDict()) do before[k] = v:clone() end
    local x = seq(0.29, 0.1, 2, 5, 3, 4):requiresGrad()
    local y = m:forward(x)
    torch.cmul(y, seq(0.23, 0.4, 2, 5, 3, 4)):sum():backward()
    C.checksum('eps ' .. eps .. ' output', y:detach(), R[eps].out, 1e-12)
    C.checksum('eps ' .. eps .. ' input grad', x.grad, R[eps].gInput, 1e-12)
    for k, v in pairs(m:stateDict()) do
      tester:asserteq((v - before[k]):abs():max(), 0, k .. ' unchanged by a forward in training mode')
      tester:assert(not v:needsGrad() and v.grad == nil, k .. ' gets no gradient')
    end
    -- Torch7-style backward
    local gi = m:backward(x:detach(), seq(0.23, 0.4, 2, 5, 3, 4))
    C.checksum('eps ' .. eps .. ' gradInput', gi, R[eps].gInput, 1e-12)
  end
end

function tests.buffersOnly()
  local m = nn.ops.FrozenBatchNorm2d(3)
  tester:assert(m:parameters() == nil, 'no parameters')
  local names = {}
  for k in m:namedBuffers() do names[#names + 1] = k end
  tester:assertTableEq(names, { 'weight', 'bias', 'running_mean', 'running_var' }, "torchvision's buffers, in its order")
  tester:assert(m:namedParameters()() == nil, 'no named parameters')
  tester:asserteq(m.weight:sum(), 3) tester:asserteq(m.bias:sum(), 0)
  tester:asserteq(m.running_mean:sum(), 0) tester:asserteq(m.running_var:sum(), 3)
  tester:asserteq(tostring(m), 'nn.ops.FrozenBatchNorm2d(3, eps=1e-05)')
  -- in a model: the optimizer sees the convolution's parameters only
  local net = nn.Sequential():add(nn.Conv2d(2, 3, 1)):add(nn.ops.FrozenBatchNorm2d(3))
  tester:asserteq(#net:parameters(), 2, "the convolution's weight and bias only")
  local keys = {}
  for k in pairs(net:stateDict()) do keys[#keys + 1] = k end
  table.sort(keys)
  tester:assertTableEq(keys, { '0.bias', '0.weight', '1.bias', '1.running_mean', '1.running_var', '1.weight' })
  -- identity until loaded (eps aside); float32 input with float32 buffers
  local x = torch.rand(2, 3, 2, 2)
  tester:assertlt((m:forward(x) - x / math.sqrt(1 + 1e-5)):abs():max(), 1e-6, 'fresh: x / sqrt(1 + eps)')
end

function tests.gradcheck()
  local m = nn.ops.FrozenBatchNorm2d(5):double()
  m:loadStateDict(checkpoint())
  C.gradcheck('input', function(x) return m:forward(x) end, { seq(0.29, 0.1, 1, 5, 2, 3):requiresGrad() })
end

function tests.errors()
  local m = nn.ops.FrozenBatchNorm2d(3)
  fails('channels', '[nn.ops.FrozenBatchNorm2d] expected an N x 3 x H x W input, got size 1x4x2x2', function() return m:forward(torch.rand(1, 4, 2, 2)) end)
  fails('dims', '[nn.ops.FrozenBatchNorm2d] expected an N x 3 x H x W input, got size 3x2x2', function() return m:forward(torch.rand(3, 2, 2)) end)
  fails('input', '[nn.ops.FrozenBatchNorm2d] expected input (a tensor), got nil', function() return m:forward(nil) end)
  fails('integer', '[nn.ops.FrozenBatchNorm2d] input must be floating point, got torch.LongTensor', function() return m:forward(torch.LongTensor(1, 3, 2, 2):zero()) end)
  fails('type', '[nn.ops.FrozenBatchNorm2d] input is torch.DoubleTensor (device -1) but the buffers are torch.FloatTensor', function() return m:forward(torch.rand(1, 3, 2, 2):double()) end)
  fails('eps', '[nn.ops.FrozenBatchNorm2d] eps must be >= 0, got -1', nn.ops.FrozenBatchNorm2d, 3, -1)
  fails('features', '[nn.ops.FrozenBatchNorm2d] expected numFeatures to be an integer >= 1, got nil', nn.ops.FrozenBatchNorm2d)
  fails('load', '[nn.Module.loadStateDict] weight: size 4 in the state dict, 3 in the model', function() return m:loadStateDict({ weight = torch.ones(4), bias = torch.ones(3), running_mean = torch.ones(3), running_var = torch.ones(3) }) end)
end

tester:add(tests)
tester:run()
