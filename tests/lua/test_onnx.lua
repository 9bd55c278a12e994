-- torch.onnx.export's files, read back by helpers/onnx_read.lua (the generic protobuf decoder of
-- helpers/tfevents.lua): model header (ir_version, opset import), nodes and their wiring and
-- attributes, initializers (the module's weights in PyTorch's layout), inputs/outputs/value_info with
-- shapes and dynamic dims; the structure of PyTorch 1.13's own export of the same models (pasted
-- below) and its outputs through the exported graph (helpers/onnx_eval.lua); errors, train-mode
-- restoring and a CUDA model.
require 'nn'
local dir = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local R = dofile(dir .. '/helpers/onnx_read.lua')
local E = dofile(dir .. '/helpers/onnx_eval.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()
local tmp = os.tmpname()

-- Deterministic weights shared with the PyTorch script that gave the constants below: parameter i
-- (0-based, module order, weight before bias, PyTorch's layout flattened row-major) holds
-- 0.5 * sin(0.37 k + i); running means 0.2 cos(0.5 k), running variances 1 + 0.3 sin(0.7 k)^2.
local function det(m)
  local params = m:parameters()
  for i, p in ipairs(params) do
    local k = torch.range(0, p:nElement() - 1):double()
    p:copy(torch.sin(k:mul(0.37):add(i - 1)):mul(0.5):view(p:size()))
  end
  for _, b in ipairs(m:findModules('nn.BatchNorm2d')) do
    local k = torch.range(0, b.running_mean:nElement() - 1):double()
    b.running_mean:copy(torch.cos(torch.mul(k, 0.5)):mul(0.2))
    b.running_var:copy(torch.pow(torch.sin(torch.mul(k, 0.7)), 2):mul(0.3):add(1))
  end
  return m
end
local function xin(...)
  local n = 1
  for _, s in ipairs({ ... }) do n = n * s end
  return torch.sin(torch.range(0, n - 1):mul(0.1)):float():view(...)
end
local function export(m, x, opts)
  torch.onnx.export(m, x, tmp, opts)
  return R.read(tmp)
end
local function without(ops, drop)
  local out = {}
  for _, o in ipairs(ops) do if not drop[o] then out[#out + 1] = o end end
  return out
end
local function close(a, b, tol, msg)
  tester:assertlt((a:double() - b:double()):abs():max(), tol, msg)
end

function tests.mlpAgainstPyTorch()
  local m = det(nn.Sequential():add(nn.Linear(4, 5)):add(nn.ReLU()):add(nn.Linear(5, 3)))
  local model = export(m, xin(2, 4))
  tester:asserteq(model.ir_version, 7, 'ir_version of opset 13 (PyTorch 1.13 writes 7)')
  tester:asserteq(#model.opsets, 1)
  tester:asserteq(model.opsets[1].domain, '')
  tester:asserteq(model.opsets[1].version, 13)
  local g = model.graph
  -- PyTorch 1.13: Gemm(onnx::Gemm_0, 0.weight, 0.bias) -> Relu -> Gemm(., 2.weight, 2.bias), alpha 1,
  -- beta 1, transB 1; input and output names differ (ours are 'input' and 'output').
  tester:assertTableEq(R.ops(model), { 'Gemm', 'Relu', 'Gemm' })
  tester:assertTableEq(g.nodes[1].inputs, { 'input', '0.weight', '0.bias' })
  tester:assertTableEq(g.nodes[2].inputs, g.nodes[1].outputs, 'wiring')
  tester:assertTableEq(g.nodes[3].inputs, { g.nodes[2].outputs[1], '2.weight', '2.bias' })
  tester:assertTableEq(g.nodes[3].outputs, { 'output' })
  tester:assertTableEq(g.nodes[1].attrOrder, { 'alpha', 'beta', 'transB' })
  tester:asserteq(g.nodes[1].attrs.alpha, 1)
  tester:asserteq(g.nodes[1].attrs.transB, 1)
  tester:assertTableEq(g.initOrder, { '0.weight', '0.bias', '2.weight', '2.bias' })
  tester:assertTableEq(g.inits['0.weight']:size():totable(), { 5, 4 })
  close(g.inits['0.weight'], m.modules[1].weight, 1e-12, 'weight bytes')
  close(g.inits['2.bias'], m.modules[3].bias, 1e-12, 'bias bytes')
  tester:assertTableEq(g.inputs[1].dims, { 2, 4 })
  tester:asserteq(g.inputs[1].elem, 1, 'FLOAT')
  tester:assertTableEq(g.outputs[1].dims, { 2, 3 })
  tester:assertTableEq(g.value_info['/0/Gemm_output_0'].dims, { 2, 5 })
  -- PyTorch 1.13's output for these weights and input
  local want = torch.Tensor({ 0.5931504964828491, -1.0560739040374756, -0.2845677435398102, 0.8964294791221619,
    -1.277133584022522, -0.4660029709339142 }):view(2, 3)
  close(E.run(model, { xin(2, 4) })[1], want, 1e-5, 'PyTorch output')
end

local function cnn()
  return det(nn.Sequential():add(nn.Conv2d(3, 4, 3, { padding = 1 })):add(nn.BatchNorm2d(4)):add(nn.ReLU())
    :add(nn.MaxPool2d(2, { ceilMode = true })):add(nn.Flatten()):add(nn.Linear(36, 5)))
end

function tests.cnnAgainstPyTorch()
  local m = cnn()
  local model = export(m, xin(2, 3, 6, 6))
  local g = model.graph
  -- PyTorch 1.13 in eval mode folds the batch norm into the convolution (with or without
  -- do_constant_folding); doConstantFolding (default true) does the same here.
  tester:assertTableEq(R.ops(model), { 'Conv', 'Relu', 'MaxPool', 'Flatten', 'Gemm' })
  local conv, pool = g.nodes[1], g.nodes[3]
  tester:assertTableEq(conv.attrOrder, { 'dilations', 'group', 'kernel_shape', 'pads', 'strides' })
  tester:assertTableEq(conv.attrs.dilations, { 1, 1 })
  tester:asserteq(conv.attrs.group, 1)
  tester:assertTableEq(conv.attrs.kernel_shape, { 3, 3 })
  tester:assertTableEq(conv.attrs.pads, { 1, 1, 1, 1 })
  tester:assertTableEq(conv.attrs.strides, { 1, 1 })
  tester:assertTableEq(pool.attrOrder, { 'ceil_mode', 'kernel_shape', 'pads', 'strides' })
  tester:asserteq(pool.attrs.ceil_mode, 1)
  tester:assertTableEq(pool.attrs.kernel_shape, { 2, 2 })
  tester:assertTableEq(pool.attrs.pads, { 0, 0, 0, 0 })
  tester:assertTableEq(pool.attrs.strides, { 2, 2 })
  tester:asserteq(g.nodes[4].attrs.axis, 1)
  -- PyTorch's folded initializers (onnx::Conv_17 and onnx::Conv_18)
  local w = g.inits[conv.inputs[2]]
  tester:assertTableEq(w:size():totable(), { 4, 3, 3, 3 })
  close(w:view(-1):narrow(1, 1, 6), torch.Tensor({ 0.0, 0.08220358192920685, 0.1532813012599945, 0.20361310243606567,
    0.22638684511184692, 0.2185201793909073 }), 1e-6, 'folded weight')
  tester:assertlt(math.abs(torch.abs(w):sum() - 8.175643920898438), 1e-4, 'folded weight abs sum')
  close(g.inits[conv.inputs[3]], torch.Tensor({ 0.1709166020154953, -0.009835407137870789, -0.21548286080360413,
    -0.40606796741485596 }), 1e-6, 'folded bias')
  local want = torch.Tensor({ -8.671480178833008, -4.017551898956299, 2.6514410972595215, 7.779483795166016,
    8.659314155578613, 2.350353956222534, 6.626094818115234, 7.1525187492370605, 3.700299024581909,
    -1.790928840637207 }):view(2, 5)
  close(E.run(model, { xin(2, 3, 6, 6) })[1], want, 1e-4, 'PyTorch output')
  -- without folding: a BatchNormalization node in inference mode holding the running statistics
  local plain = export(m, xin(2, 3, 6, 6), { doConstantFolding = false })
  local bn = plain.graph.nodes[2]
  tester:assertTableEq(R.ops(plain), { 'Conv', 'BatchNormalization', 'Relu', 'MaxPool', 'Flatten', 'Gemm' })
  tester:assertTableEq(bn.inputs, { plain.graph.nodes[1].outputs[1], '1.weight', '1.bias', '1.running_mean',
    '1.running_var' })
  tester:assertlt(math.abs(bn.attrs.epsilon - 1e-5), 1e-10)
  tester:assertlt(math.abs(bn.attrs.momentum - 0.9), 1e-7)
  close(plain.graph.inits['1.running_var'], m.modules[2].running_var, 1e-12, 'running_var')
  close(E.run(plain, { xin(2, 3, 6, 6) })[1], want, 1e-4, 'PyTorch output, unfolded')
end

function tests.conv1dAgainstPyTorch()
  local m = det(nn.Sequential():add(nn.Conv1d(2, 4, 3, { stride = 2, padding = 1 })):add(nn.Tanh())
    :add(nn.AvgPool1d(2)):add(nn.Conv1d(4, 4, 3, { groups = 2, padding = 2, dilation = 2 })):add(nn.Sigmoid())
    :add(nn.AdaptiveAvgPool1d(1)))
  local model = export(m, xin(2, 2, 12))
  -- PyTorch 1.13: Conv Tanh Constant Pad AveragePool Conv Sigmoid GlobalAveragePool; its avg_pool1d
  -- symbolic always pads explicitly (here by zeros: a no-op), which is dropped in the comparison.
  tester:assertTableEq(R.ops(model), { 'Conv', 'Tanh', 'AveragePool', 'Conv', 'Sigmoid', 'GlobalAveragePool' })
  local c1, c2, ap = model.graph.nodes[1].attrs, model.graph.nodes[4].attrs, model.graph.nodes[3].attrs
  tester:assertTableEq({ c1.dilations, c1.group, c1.kernel_shape, c1.pads, c1.strides },
    { { 1 }, 1, { 3 }, { 1, 1 }, { 2 } })
  tester:assertTableEq({ c2.dilations, c2.group, c2.kernel_shape, c2.pads, c2.strides },
    { { 2 }, 2, { 3 }, { 2, 2 }, { 1 } })
  tester:assertTableEq({ ap.ceil_mode, ap.kernel_shape, ap.pads, ap.strides }, { 0, { 2 }, { 0, 0 }, { 2 } })
  tester:assertTableEq(model.graph.inits['3.weight']:size():totable(), { 4, 2, 3 })
  tester:assertTableEq(model.graph.outputs[1].dims, { 2, 4, 1 })
  local want = torch.Tensor({ 0.6318771243095398, 0.28999361395835876, 0.5673591494560242, 0.26701393723487854,
    0.41245171427726746, 0.46455517411231995, 0.42635366320610046, 0.47027596831321716 }):view(2, 4, 1)
  close(E.run(model, { xin(2, 2, 12) })[1], want, 1e-5, 'PyTorch output')
end

function tests.activationsAgainstPyTorch()
  local m = det(nn.Sequential():add(nn.ConvTranspose2d(2, 3, 3, { stride = 2, padding = 1, outputPadding = 1 }))
    :add(nn.LeakyReLU(0.2)):add(nn.ELU()):add(nn.Hardtanh(-2, 2)):add(nn.GELU())
    :add(nn.AvgPool2d(3, { stride = 2, padding = 1, countIncludePad = false })):add(nn.Hardswish()):add(nn.SiLU())
    :add(nn.LogSoftmax(2)))
  local model = export(m, xin(1, 2, 5, 5))
  -- PyTorch 1.13's ops without its Constant nodes (Clip's bounds and GELU's constants are
  -- initializers here): the same sequence, GELU as x * (erf(x / sqrt 2) + 1) * 0.5.
  tester:assertTableEq(R.ops(model), { 'ConvTranspose', 'LeakyRelu', 'Elu', 'Clip', 'Div', 'Erf', 'Add', 'Mul', 'Mul',
    'AveragePool', 'HardSigmoid', 'Mul', 'Sigmoid', 'Mul', 'LogSoftmax' })
  local n = model.graph.nodes
  tester:assertTableEq(n[1].attrOrder, { 'dilations', 'group', 'kernel_shape', 'output_padding', 'pads', 'strides' })
  tester:assertTableEq({ n[1].attrs.output_padding, n[1].attrs.pads, n[1].attrs.strides }, { { 1, 1 }, { 1, 1, 1, 1 },
    { 2, 2 } })
  tester:assertTableEq(model.graph.inits['0.weight']:size():totable(), { 2, 3, 3, 3 }, 'in x out x kH x kW')
  tester:assertlt(math.abs(n[2].attrs.alpha - 0.2), 1e-7)
  tester:asserteq(n[3].attrs.alpha, 1)
  tester:assertTableEq(n[10].attrOrder, { 'ceil_mode', 'kernel_shape', 'pads', 'strides' }, 'no count_include_pad')
  tester:assertlt(math.abs(n[11].attrs.alpha - 1 / 6), 1e-7)
  tester:asserteq(n[15].attrs.axis, 1)
  local got = E.run(model, { xin(1, 2, 5, 5) })[1]
  close(got:view(-1):narrow(1, 1, 5), torch.Tensor({ -1.1458427906036377, -1.1353371143341064, -1.116320252418518,
    -1.0975463390350342, -1.0787780284881592 }), 1e-5, 'PyTorch output')
  tester:assertlt(math.abs(got:sum() - (-85.03828430175781)), 1e-3, 'PyTorch output sum')
end

function tests.layerNormEmbeddingDynamic()
  -- PyTorch 1.13 at opset 13: ReduceMean Sub Pow ReduceMean Add Sqrt Div Mul Add (axes = [-1]); here
  -- the square is Mul(d, d) and axes are non-negative (the rank is known).
  local ln = export(det(nn.Sequential():add(nn.LayerNorm(6)):add(nn.Softplus()):add(nn.Mish()):add(nn.ReLU6())
    :add(nn.SELU()):add(nn.Hardsigmoid())), xin(2, 6))
  tester:assertTableEq(R.ops(ln), { 'ReduceMean', 'Sub', 'Mul', 'ReduceMean', 'Add', 'Sqrt', 'Div', 'Mul', 'Add',
    'Softplus', 'Softplus', 'Tanh', 'Mul', 'Clip', 'Selu', 'HardSigmoid' })
  tester:assertTableEq(ln.graph.nodes[1].attrs.axes, { 1 })
  local ln17 = export(nn.LayerNorm(6), xin(2, 6), { opsetVersion = 17 })
  tester:asserteq(ln17.opsets[1].version, 17)
  -- ir_version PyTorch 1.13 writes for opsets 13..17
  for opset, ir in pairs({ [13] = 7, [14] = 7, [15] = 8, [16] = 8, [17] = 8 }) do
    tester:asserteq(export(nn.Tanh(), xin(2), { opsetVersion = opset }).ir_version, ir, 'ir_version at ' .. opset)
  end
  tester:assertTableEq(R.ops(ln17), { 'LayerNormalization' })
  tester:asserteq(ln17.graph.nodes[1].attrs.axis, 1)
  -- PyTorch: Gather(0.weight, input) on 0-based indices; Tocha's are 1-based, so Sub 1 first
  local emb = export(nn.Sequential():add(nn.Embedding(10, 3)), torch.LongTensor({ { 1, 2 }, { 3, 10 } }))
  tester:assertTableEq(R.ops(emb), { 'Sub', 'Gather' })
  tester:assertTableEq(emb.graph.nodes[2].inputs, { '0.weight', emb.graph.nodes[1].outputs[1] })
  tester:assertTableEq(emb.graph.outputs[1].dims, { 2, 2, 3 })
  -- PyTorch: x {batch, 4} -> Gemm -> Softmax(axis 1) -> y {batch, 5}
  local dyn = export(nn.Sequential():add(nn.Linear(4, 5)):add(nn.Softmax(2)), xin(2, 4),
    { inputNames = { 'x' }, outputNames = { 'y' }, dynamicAxes = { x = { [1] = 'batch' }, y = { [1] = 'batch' } } })
  tester:assertTableEq(dyn.graph.inputs[1], { name = 'x', elem = 1, dims = { 'batch', 4 } })
  tester:assertTableEq(dyn.graph.outputs[1], { name = 'y', elem = 1, dims = { 'batch', 5 } })
  tester:asserteq(dyn.graph.nodes[2].attrs.axis, 1)
  local listed = export(nn.Linear(4, 5), xin(2, 4), { dynamicAxes = { input = { 1 } } })
  tester:assertTableEq(listed.graph.inputs[1].dims, { 'input_dim1', 4 })
  tester:assertTableEq(listed.graph.outputs[1].dims, { 'input_dim1', 5 }, 'propagated')
end

function tests.torch7Layouts()
  torch.manualSeed(1)
  local mm = nn.SpatialConvolutionMM(3, 4, 3, 2, 1, 1, 1, 0)
  local model = export(nn.Sequential():add(mm):add(nn.SpatialFullConvolution(4, 2, 2, 2, 2, 2)):add(nn.View(-1)),
    torch.randn(3, 4, 5), { doConstantFolding = false })
  local w = model.graph.inits['0.weight']
  tester:assertTableEq(w:size():totable(), { 4, 3, 2, 3 }, 'MM weight as out x in x kH x kW')
  close(w, mm.weight:view(4, 3, 2, 3), 1e-12, 'MM weight values')
  tester:assertTableEq(model.graph.nodes[2].attrs.pads, { 0, 1, 0, 1 }, 'padH 0, padW 1')
  tester:assertTableEq(R.ops(model), { 'Unsqueeze', 'Conv', 'Squeeze', 'Unsqueeze', 'ConvTranspose', 'Squeeze',
    'Reshape' })
end

function tests.containers()
  local m = nn.Sequential():add(nn.ConcatTable():add(nn.Linear(3, 2)):add(nn.Identity()))
  local model = export(m, torch.randn(4, 3), { outputNames = { 'a', 'b' } })
  tester:assertTableEq({ model.graph.outputs[1].name, model.graph.outputs[2].name }, { 'a', 'b' })
  tester:assertTableEq(R.ops(model), { 'Gemm', 'Identity' }, 'an input passed through needs an Identity')
  tester:assertTableEq(model.graph.nodes[2].inputs, { 'input' })
  local two = export(nn.ParallelTable():add(nn.Tanh()):add(nn.Sigmoid()), { torch.randn(2), torch.randn(3) })
  tester:assertTableEq({ two.graph.inputs[1].name, two.graph.inputs[2].name }, { 'input_1', 'input_2' })
  tester:assertTableEq({ two.graph.outputs[1].name, two.graph.outputs[2].name }, { 'output_1', 'output_2' })
end

function tests.supportedClassesExist()
  -- the converter table names real classes (a misspelt name would silently never match)
  local list = require('torch.onnx_walk').supported()
  tester:assertgt(#list, 100)
  for _, c in ipairs(list) do tester:assert(torch.getmetatable(c) ~= nil, c .. ' is a class') end
end

local function fails(pattern, f, msg)
  local ok, err = pcall(f)
  tester:assert(not ok, msg .. ': should fail')
  tester:assert(tostring(err):find(pattern, 1, true) ~= nil, msg .. ': message ' .. tostring(err))
end

function tests.errors()
  local x = torch.randn(2, 4)
  local m = nn.Sequential():add(nn.Linear(4, 4)):add(nn.Sequential():add(nn.ReLU()):add(nn.Cosine(4, 2)))
  fails('nn.Cosine at model.modules[2].modules[2] is not supported', function() torch.onnx.export(m, x, tmp) end,
    'unsupported module')
  local drop = nn.Sequential():add(nn.Dropout(0.5, false, false, true))
  fails('stochasticInference', function() torch.onnx.export(drop, x, tmp) end, 'training-only dropout')
  fails('nn.MaxPool2d (the model) returned {torch.FloatTensor', function()
    torch.onnx.export(nn.MaxPool2d(2, { returnIndices = true }), torch.randn(1, 1, 4, 4), tmp)
  end, 'pool with indices')
  fails('circular', function()
    torch.onnx.export(nn.Conv2d(1, 1, 3, { padding = 1, paddingMode = 'circular' }), torch.randn(1, 1, 4, 4), tmp)
  end, 'circular padding')
  local lin = nn.Linear(4, 2)
  fails('unknown option opset', function() torch.onnx.export(lin, x, tmp, { opset = 13 }) end, 'unknown option')
  fails('opsetVersion must be an integer from 13 to 17, got 12',
    function() torch.onnx.export(lin, x, tmp, { opsetVersion = 12 }) end, 'old opset')
  fails('doConstantFolding must be a boolean', function() torch.onnx.export(lin, x, tmp, { doConstantFolding = 1 }) end,
    'folding flag')
  fails('neither an input nor an output', function()
    torch.onnx.export(lin, x, tmp, { dynamicAxes = { inp = { 1 } } })
  end, 'dynamicAxes name')
  fails('dim 3 is out of range', function() torch.onnx.export(lin, x, tmp, { dynamicAxes = { input = { 3 } } }) end,
    'dynamicAxes dim')
  fails('dims are 1-based', function() torch.onnx.export(lin, x, tmp, { dynamicAxes = { input = { 0 } } }) end,
    'dynamicAxes dim 0')
  fails('dim 3 (input_dim3) cannot vary through nn.Conv2d', function()
    torch.onnx.export(nn.Conv2d(1, 1, 3), torch.randn(1, 1, 5, 5), tmp, { dynamicAxes = { input = { 3 } } })
  end, 'spatial dynamic dim')
  fails('2 inputNames given for 1 input', function()
    torch.onnx.export(lin, x, tmp, { inputNames = { 'a', 'b' } })
  end, 'too many names')
  fails('expected an nn module', function() torch.onnx.export(42, x, tmp) end, 'model')
  fails('expected a file path', function() torch.onnx.export(lin, x, nil) end, 'path')
  fails('expected sampleInput as a tensor or a table of tensors', function() torch.onnx.export(lin, 'x', tmp) end,
    'sample input')
end

function tests.modeRestored()
  local m = nn.Sequential():add(nn.Linear(4, 4)):add(nn.Dropout(0.5)):add(nn.BatchNormalization(4))
  m:training()
  m.modules[3]:evaluate()
  local before = m:forward(torch.randn(3, 4)):clone()
  torch.onnx.export(m, torch.randn(3, 4), tmp)
  tester:asserteq(m.train, true, 'model back in training mode')
  tester:asserteq(m.modules[2].train, true, 'dropout back in training mode')
  tester:asserteq(m.modules[3].train, false, 'a module in evaluation mode stays so')
  m:add(nn.Cosine(4, 2))
  pcall(torch.onnx.export, m, torch.randn(3, 4), tmp)
  tester:asserteq(m.modules[2].train, true, 'restored after an error')
  tester:asserteq(before:size(1), 3)
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  torch.manualSeed(3)
  local m = nn.Sequential():add(nn.Conv2d(2, 3, 3)):add(nn.BatchNorm2d(3)):add(nn.ReLU()):add(nn.Flatten())
    :add(nn.Linear(12, 2))
  local cpu = m:clone()
  m:cuda()
  local x = torch.randn(2, 2, 4, 4)
  local model = export(m, x:cuda())
  local ref = export(cpu, x)
  for name, t in pairs(ref.graph.inits) do close(model.graph.inits[name], t, 1e-5, 'host copy of ' .. name) end
  cpu:evaluate()
  close(E.run(model, { x })[1], cpu:forward(x), 1e-4, 'CUDA export runs like the CPU model')
end

tester:add(tests):run()
os.remove(tmp)
