-- torch.onnx.export's semantics: each model is exported, read back (helpers/onnx_read.lua) and run
-- by a small ONNX interpreter (helpers/onnx_eval.lua, its own pooling loops, ONNX's pads order,
-- Gemm transB, 0-based axes), whose output must match model:forward(input) to 1e-5. Covers every
-- converter family: convolutions (Torch7 and PyTorch names, groups, dilation, asymmetric 'same',
-- reflect padding, transposed, 3-D, unbatched), batch norm folded or not, pools with ceil mode and
-- padding, activations, LayerNorm at opsets 13 and 17, reshapes, containers, Embedding, padding.
require 'nn'
local dir = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local R = dofile(dir .. '/helpers/onnx_read.lua')
local E = dofile(dir .. '/helpers/onnx_eval.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()

local tmp = os.tmpname()

-- Exports m on x, runs the file with the interpreter on a fresh input (same shape), compares.
local function check(m, x, opts, fresh)
  torch.onnx.export(m, x, tmp, opts)
  local model = R.read(tmp)
  local xs = torch.isTensor(x) and { x } or x
  local inputs = fresh and fresh() or xs
  m:evaluate()
  local want = m:forward(torch.isTensor(x) and inputs[1] or inputs)
  local got = E.run(model, inputs)
  local wants = torch.isTensor(want) and { want } or want
  tester:asserteq(#got, #wants, 'output count')
  for i = 1, #wants do
    local w = wants[i]:detach():double()
    tester:assertTableEq(got[i]:size():totable(), w:size():totable(), 'output size')
    local err = (got[i]:double() - w):abs():max()
    tester:assertlt(err, 1e-5 * math.max(1, torch.abs(w):max()), string.format('output %d differs by %g', i, err))
  end
  return model
end

local function stats(bn)
  local c = bn.running_mean:nElement()
  bn.running_mean:copy(torch.linspace(-0.5, 0.5, c))
  bn.running_var:copy(torch.linspace(0.5, 2, c))
  if bn.weight then bn.weight:uniform(0.5, 1.5) bn.bias:uniform(-0.5, 0.5) end
  return bn
end

function tests.mlp()
  torch.manualSeed(1)
  local m = nn.Sequential():add(nn.Linear(4, 5)):add(nn.ReLU()):add(nn.Linear(5, 3)):add(nn.LogSoftMax())
  check(m, torch.randn(3, 4), nil, function() return { torch.randn(3, 4) } end)
  -- Linear on a vector is MatMul + Add; without bias MatMul alone
  local m1 = nn.Sequential():add(nn.Linear(4, 5)):add(nn.Tanh()):add(nn.Linear(5, 2):noBias())
  local v = check(m1, torch.randn(4))
  tester:assertTableEq(R.ops(v), { 'MatMul', 'Add', 'Tanh', 'MatMul' }, 'vector Linear')
end

function tests.cnnFoldedAndNot()
  torch.manualSeed(2)
  local m = nn.Sequential():add(nn.Conv2d(3, 4, 3, { padding = 1 })):add(stats(nn.BatchNorm2d(4))):add(nn.ReLU())
    :add(nn.MaxPool2d(2, { ceilMode = true })):add(nn.Flatten()):add(nn.Linear(36, 5))
  local x = torch.randn(2, 3, 5, 5)
  local folded = check(m, x)
  local plain = check(m, x, { doConstantFolding = false })
  tester:asserteq(folded.graph.nodes[2].op, 'Relu', 'folded')
  tester:asserteq(plain.graph.nodes[2].op, 'BatchNormalization', 'not folded')
end

function tests.torch7Convolutions()
  torch.manualSeed(3)
  local m = nn.Sequential()
    :add(nn.SpatialConvolutionMM(2, 4, 3, 2, 1, 2, 1, 0))           -- kW 3, kH 2, dH 2, padW 1
    :add(nn.SpatialDilatedConvolution(4, 4, 3, 3, 1, 1, 2, 1, 2, 1)) -- dilationW 2
    :add(nn.SpatialConvolution(4, 6, 1, 3, 1, 1, 0, 1, 2))           -- 2 groups
    :add(nn.SpatialFullConvolution(6, 3, 3, 2, 2, 1, 1, 0, 1, 0))    -- adjW 1
    :add(nn.SpatialBatchNormalization(3))
  stats(m.modules[5])
  check(m, torch.randn(2, 2, 7, 9))
  check(nn.Sequential():add(nn.VolumetricConvolution(2, 3, 2, 3, 3, 1, 2, 1, 1, 1, 0))
    :add(nn.VolumetricFullConvolution(3, 2, 2, 2, 2, 2, 1, 1)), torch.randn(1, 2, 4, 6, 5))
end

function tests.pytorchConvolutions()
  torch.manualSeed(4)
  check(nn.Sequential():add(nn.Conv1d(2, 4, 3, { stride = 2, padding = 1 })):add(nn.Tanh())
    :add(nn.Conv1d(4, 4, 3, { groups = 2, padding = 2, dilation = 2 })), torch.randn(2, 2, 12))
  -- 'same' with an even kernel pads 1 left/top and 2 right/bottom: asymmetric Conv pads
  local same = check(nn.Sequential():add(nn.Conv2d(2, 3, 4, { padding = 'same' })), torch.randn(1, 2, 6, 7))
  tester:assertTableEq(same.graph.nodes[1].attrs.pads, { 1, 1, 2, 2 }, 'asymmetric pads')
  -- reflect padding mode is a Pad node before the convolution
  local refl = check(nn.Sequential():add(nn.Conv2d(2, 3, 3, { padding = { 1, 2 }, paddingMode = 'reflect' })),
    torch.randn(1, 2, 5, 6))
  tester:asserteq(refl.graph.nodes[1].op, 'Pad')
  check(nn.Sequential():add(nn.ConvTranspose2d(2, 3, 3, { stride = 2, padding = 1, outputPadding = 1 })):add(nn.ReLU()),
    torch.randn(1, 2, 3, 4))
  check(nn.Sequential():add(nn.ConvTranspose1d(3, 2, 3, { stride = 3, padding = 2, dilation = 2 }):noBias()),
    torch.randn(2, 3, 4))
  check(nn.Sequential():add(nn.Conv3d(2, 2, { 1, 2, 2 }, { groups = 2 })), torch.randn(1, 2, 2, 3, 3))
  -- an unbatched C x H x W input is unsqueezed to 1 x C x H x W and squeezed back
  local ub = check(nn.Sequential():add(nn.Conv2d(2, 3, 3)):add(nn.MaxPool2d(2)), torch.randn(2, 6, 6))
  tester:asserteq(ub.graph.nodes[1].op, 'Unsqueeze')
end

function tests.pools()
  torch.manualSeed(5)
  local x = torch.randn(2, 3, 7, 8)
  check(nn.SpatialMaxPooling(3, 2, 2, 2, 1, 1):ceil(), x)
  check(nn.SpatialMaxPooling(2, 2, 2, 2):floor(), x)
  check(nn.SpatialDilatedMaxPooling(2, 2, 1, 1, 0, 0, 2, 2), x)
  check(nn.SpatialAveragePooling(3, 3, 2, 2, 1, 1):ceil(), x)
  check(nn.SpatialAveragePooling(3, 3, 2, 2, 1, 1):setCountExcludePad(), x)
  local sum = nn.SpatialAveragePooling(2, 2, 2, 2)
  sum.divide = false
  check(sum, x)
  check(nn.AvgPool2d(3, { stride = 2, padding = 1, ceilMode = true, countIncludePad = false }), x)
  check(nn.Sequential():add(nn.MaxPool1d(3, { stride = 2, padding = 1 })):add(nn.AvgPool1d(2)), torch.randn(2, 3, 9))
  check(nn.VolumetricMaxPooling(2, 2, 2, 1, 2, 2):ceil(), torch.randn(1, 2, 3, 5, 5))
  check(nn.AdaptiveAvgPool2d(1), x)
  check(nn.AdaptiveAvgPool2d({ 7, 4 }), x)
  check(nn.AdaptiveMaxPool1d(1), torch.randn(2, 3, 5))
end

function tests.activations()
  torch.manualSeed(6)
  local m = nn.Sequential():add(nn.LeakyReLU(0.2)):add(nn.ELU(0.7)):add(nn.SELU()):add(nn.GELU())
    :add(nn.SoftPlus(2)):add(nn.Softplus()):add(nn.HardTanh(-0.5, 0.8)):add(nn.ReLU6()):add(nn.Hardswish())
    :add(nn.Hardsigmoid()):add(nn.SiLU()):add(nn.Mish()):add(nn.Sigmoid()):add(nn.Tanh()):add(nn.Dropout(0.3))
    :add(nn.Identity()):add(nn.Softmax(1)):add(nn.LogSoftmax(-1)):add(nn.SoftMax())
  check(m, torch.randn(3, 4, 5):mul(3))
  -- Torch7's v1 dropout multiplies by 1 - p at evaluation
  local v1 = check(nn.Sequential():add(nn.Dropout(0.25, true)), torch.randn(4, 3))
  tester:asserteq(v1.graph.nodes[1].op, 'Mul')
end

function tests.moreElementwise()
  torch.manualSeed(11)
  local prelu = nn.PReLU(3)
  prelu.weight:copy(torch.Tensor({ 0.1, -0.3, 0.7 }))
  local m = nn.Sequential():add(prelu):add(nn.PReLU()):add(nn.CELU(0.6)):add(nn.HardShrink(0.3)):add(nn.SoftShrink(0.2))
    :add(nn.TanhShrink()):add(nn.MulConstant(3)):add(nn.AddConstant(-0.5)):add(nn.Softsign()):add(nn.SoftMin())
    :add(nn.Softmin(2)):add(nn.Abs()):add(nn.Sqrt(0.1)):add(nn.Power(1.5)):add(nn.Square()):add(nn.Exp())
    :add(nn.Log()):add(nn.LogSigmoid()):add(nn.Contiguous())
  check(m, torch.randn(2, 3, 4):mul(2))
  check(nn.Sequential():add(nn.Unsqueeze(2)):add(nn.Unflatten(3, { 2, 2 })):add(nn.Squeeze(2)):add(nn.Collapse(2)),
    torch.randn(3, 4))
end

function tests.instanceAndGroupNorm()
  torch.manualSeed(12)
  local x = torch.randn(2, 4, 3, 5):mul(2):add(1)
  local inorm = nn.InstanceNorm2d(4, { affine = true })
  inorm.weight:uniform(0.5, 1.5)
  inorm.bias:uniform(-1, 1)
  check(inorm, x)
  check(nn.InstanceNorm1d(4), torch.randn(4, 6), nil, function() return { torch.randn(4, 6) } end)
  local tracked = nn.InstanceNorm2d(4, { trackRunningStats = true })
  stats(tracked)
  check(tracked, x)
  local gn = nn.GroupNorm(2, 4)
  gn.weight:uniform(0.5, 1.5)
  gn.bias:uniform(-1, 1)
  local model = check(gn, x, { dynamicAxes = { input = { 1 } } }, function() return { torch.randn(3, 4, 3, 5) } end)
  tester:assertTableEq(R.ops(model), { 'Reshape', 'InstanceNormalization', 'Shape', 'Reshape', 'Mul', 'Add' })
  check(nn.GroupNorm(1, 4, { affine = false }), x)
end

function tests.layerNorm()
  torch.manualSeed(7)
  local m = nn.Sequential():add(nn.LayerNorm({ 3, 4 })):add(nn.LayerNorm(4, { elementwiseAffine = false }))
  m.modules[1].weight:uniform(0.5, 1.5)
  m.modules[1].bias:uniform(-1, 1)
  local x = torch.randn(2, 3, 4):mul(2):add(1)
  local m13 = check(m, x)
  local m17 = check(m, x, { opsetVersion = 17 })
  tester:asserteq(m13.graph.nodes[1].op, 'ReduceMean')
  tester:asserteq(m17.graph.nodes[1].op, 'LayerNormalization')
end

function tests.reshapesAndContainers()
  torch.manualSeed(8)
  local x = torch.randn(2, 3, 4)
  check(nn.Sequential():add(nn.View(12)):add(nn.Linear(12, 2)), x)
  check(nn.Sequential():add(nn.Reshape(4, 3)):add(nn.Flatten(2, 3)), x)
  local cat = nn.Concat(2):add(nn.Linear(4, 2)):add(nn.Sequential():add(nn.Linear(4, 3)):add(nn.ReLU()))
  check(cat, torch.randn(5, 4))
  local tbl = nn.Sequential():add(nn.ConcatTable():add(nn.Identity()):add(nn.Tanh()):add(nn.Sigmoid()))
    :add(nn.ConcatTable():add(nn.CAddTable()):add(nn.JoinTable(2)):add(nn.CMulTable()))
  check(tbl, torch.randn(2, 3))
  local par = nn.ParallelTable():add(nn.Linear(3, 2)):add(nn.Sigmoid())
  check(nn.Sequential():add(par):add(nn.CSubTable()), { torch.randn(4, 3), torch.randn(4, 2) })
end

function tests.embeddingAndPadding()
  torch.manualSeed(9)
  local idx = torch.LongTensor({ { 1, 5, 2 }, { 7, 7, 3 } })
  local emb = check(nn.Sequential():add(nn.Embedding(7, 3)):add(nn.Tanh()), idx)
  tester:asserteq(emb.graph.inputs[1].elem, 7, 'INT64 input')
  check(nn.LookupTable(9, 2), torch.LongTensor({ 9, 1, 4 }))
  local x = torch.randn(1, 2, 4, 5)
  check(nn.SpatialZeroPadding(1, 2, 0, 3), x)
  check(nn.ReflectionPad2d({ 1, 2, 3, 1 }), x)
  check(nn.ReplicationPad2d(2), x)
  check(nn.ConstantPad1d({ 2, 1 }, 0.5), torch.randn(2, 3, 4))
  check(nn.ConstantPad2d({ 2, 1, 0, 3 }, -0.5), x)
  check(nn.ReflectionPad1d(2), torch.randn(2, 3, 5))
  check(nn.Padding(2, -2, 3, 0.25), x)
  check(nn.Padding(1, 3, 3, -1), torch.randn(2, 3))
end

function tests.dynamicBatch()
  torch.manualSeed(10)
  local m = nn.Sequential():add(nn.Conv2d(1, 2, 3)):add(nn.ReLU()):add(nn.View(-1):setNumInputDims(3))
    :add(nn.Linear(18, 3))
  local model = check(m, torch.randn(2, 1, 5, 5), { dynamicAxes = { input = { [1] = 'n' }, output = { [1] = 'n' } } },
    function() return { torch.randn(5, 1, 5, 5) } end)
  tester:asserteq(model.graph.inputs[1].dims[1], 'n')
  tester:asserteq(model.graph.outputs[1].dims[1], 'n')
end

tester:add(tests):run()
os.remove(tmp)
