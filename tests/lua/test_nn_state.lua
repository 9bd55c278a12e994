-- nn state dicts: PyTorch-style dotted names, load with strict/non-strict checks, a safetensors
-- round trip, and weights exported by PyTorch (python3-torch, when installed) giving PyTorch's
-- output in the equivalent Tocha model.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local FIXTURES = (arg[0]:match('^(.*)/[^/]*$') or '.') .. '/fixtures'

local function model()
  return nn.Sequential():add(nn.Linear(6, 5)):add(nn.ReLU()):add(nn.Linear(5, 3)):add(nn.LogSoftMax())
end

function tests.namesFollowPyTorch()
  local m = nn.Sequential():add(nn.Linear(4, 3)):add(nn.ReLU())
      :add(nn.Sequential():add(nn.Linear(3, 2)):add(nn.Linear(2, 2, false)))
  local sd = m:stateDict()
  local names = {}
  for k in pairs(sd) do names[#names + 1] = k end
  table.sort(names)
  tester:assertTableEq(names, { '0.bias', '0.weight', '2.0.bias', '2.0.weight', '2.1.weight' })
  tester:assert(sd['0.weight'] == m.modules[1].weight, 'entries are the module tensors')
  -- batch norms hold their running statistics, as PyTorch's
  local b = nn.Sequential():add(nn.SpatialBatchNormalization(3)):add(nn.BatchNormalization(2, nil, nil, false))
  names = {}
  for k in pairs(b:stateDict()) do names[#names + 1] = k end
  table.sort(names)
  tester:assertTableEq(names, { '0.bias', '0.running_mean', '0.running_var', '0.weight', '1.running_mean',
                                '1.running_var' })
  local p = m:stateDict('model.')
  tester:assert(p['model.2.1.weight'] ~= nil)
end

function tests.loadChecksNamesAndSizes()
  local a, b = model(), model()
  b:loadStateDict(a:stateDict())
  tester:assertTensorEq(b.modules[3].weight, a.modules[3].weight, 0)
  local sd = a:stateDict()
  sd['0.bias'] = nil
  tester:assertErrorPattern(function() b:loadStateDict(sd) end, 'missing: {0.bias}')
  local missing = b:loadStateDict(sd, false)
  tester:assertTableEq(missing, { '0.bias' })
  sd = a:stateDict()
  sd['9.weight'] = torch.zeros(2)
  tester:assertErrorPattern(function() b:loadStateDict(sd) end, 'unexpected: {9.weight}')
  sd = a:stateDict()
  sd['0.weight'] = torch.zeros(6, 5)
  tester:assertErrorPattern(function() b:loadStateDict(sd) end, '0.weight: size 6x5 in the state dict, 5x6 in the model')
  tester:assertErrorPattern(function() b:loadStateDict(3) end, 'expected a table of tensors')
  -- Types convert: a double state dict loads into a float model.
  local d = model():double()
  d:loadStateDict(a:stateDict())
  tester:assertTensorEq(d.modules[1].weight:float(), a.modules[1].weight, 0)
end

function tests.safetensorsRoundTrip()
  local a, b = model(), model()
  local path = os.tmpname()
  torch.saveSafetensors(path, a:stateDict())
  b:loadStateDict(torch.loadSafetensors(path))
  os.remove(path)
  local x = torch.randn(2, 6)
  tester:assertTensorEq(b:forward(x), a:forward(x), 0)
end

local have_torch = os.execute('/usr/bin/python3 -c "import torch" >/dev/null 2>&1')
if have_torch == 0 or have_torch == true then
  function tests.pytorchWeightsGivePyTorchOutputs()
    local path = os.tmpname()
    local ok = os.execute(string.format('/usr/bin/python3 %s/export_pytorch_state.py %s', FIXTURES, path))
    tester:assert(ok == 0 or ok == true, 'export script failed')
    local tbl = torch.loadSafetensors(path)
    os.remove(path)
    local x, y = tbl.input, tbl.output
    tbl.input, tbl.output = nil, nil
    local cnn_tbl, bn_tbl = {}, {}
    for k, v in pairs(tbl) do
      local name = k:match('^cnn%.(.*)$')
      if name then cnn_tbl[name], tbl[k] = v, nil end
      name = k:match('^bn%.(.*)$')
      if name then bn_tbl[name], tbl[k] = v, nil end
    end
    local m = model()
    m:loadStateDict(tbl)
    tester:assertTensorEq(m:forward(x), y, 1e-5)
    -- Conv2d / MaxPool2d / AvgPool2d weights into SpatialConvolution and the 2-D poolings.
    local xc, yc = cnn_tbl.input, cnn_tbl.output
    cnn_tbl.input, cnn_tbl.output = nil, nil
    local cnn = nn.Sequential():add(nn.SpatialConvolution(2, 4, 3, 3, 1, 1, 1, 1)):add(nn.ReLU())
      :add(nn.SpatialMaxPooling(2, 2)):add(nn.SpatialConvolution(4, 3, 2, 3, 2, 1))
      :add(nn.SpatialAveragePooling(2, 2, 1, 1, 1, 1)):add(nn.View(27)):add(nn.Linear(27, 2))
    cnn:loadStateDict(cnn_tbl)
    tester:assertTensorEq(cnn:forward(xc), yc, 1e-5)
    -- BatchNorm1d's running statistics load (strictly: num_batches_tracked is skipped) and give
    -- PyTorch's evaluation output.
    local xb, yb = bn_tbl.input, bn_tbl.output
    bn_tbl.input, bn_tbl.output = nil, nil
    tester:assert(bn_tbl['1.num_batches_tracked'] ~= nil, 'the export has num_batches_tracked')
    local bn = nn.Sequential():add(nn.Linear(5, 4)):add(nn.BatchNormalization(4)):add(nn.ReLU())
    bn:loadStateDict(bn_tbl)
    bn:evaluate()
    tester:assertTensorEq(bn.modules[2].running_mean, bn_tbl['1.running_mean'], 0)
    tester:assertTensorEq(bn:forward(xb), yb, 1e-5)
  end
else
  print('test_nn_state: /usr/bin/python3 has no torch module (Debian python3-torch); PyTorch import test skipped')
end

-- Note [After load]: a loaded module trains like the saved one through both backward styles:
-- parameters require grad and each .grad is the module's gradWeight, in every format.
function tests.loadedModulesKeepGradientLinks()
  torch.manualSeed(3)
  local m = nn.Sequential():add(nn.Linear(3, 2)):add(nn.ReLU()):add(nn.Linear(2, 1))
  for _, fmt in ipairs({ 'tocha', 'binary-t7', 'ascii' }) do
    local path = os.tmpname()
    torch.save(path, m, fmt)
    local loaded = torch.load(path)
    os.remove(path)
    local params, grads = loaded:parameters()
    for i, p in ipairs(params) do
      tester:assert(p:needsGrad(), fmt .. ': parameter ' .. i .. ' requires grad')
      tester:assert(torch.pointer(p.grad) == torch.pointer(grads[i]), fmt .. ': parameter ' .. i .. ' .grad is its gradient tensor')
    end
    local x = torch.randn(4, 3)
    loaded:zeroGradParameters()
    loaded:forward(x):sum():backward()
    local viaAutograd = grads[1]:clone()
    loaded:zeroGradParameters()
    loaded:backward(x, torch.ones(4, 1))
    tester:assertTensorEq(grads[1], viaAutograd, 1e-6, fmt .. ': both backward styles fill the same gradWeight')
  end
end

tester:add(tests)
tester:run()
