-- Regressions of torch.onnx.export found by checking its files against the ONNX 1.12 specification
-- (onnx.checker full_check, strict shape inference and a spec-written evaluator, at review time:
-- tests/data/onnx_review/): pools in ceil mode whose last window PyTorch drops, AvgPool2d's
-- divisorOverride, InstanceNorm with running statistics and batch norms on a single sample,
-- Softplus's threshold, names used twice in the graph, varying dims of unbatched inputs and
-- negative dims in modules' own exports. Each file is read back (helpers/onnx_read.lua) and run by
-- the test interpreter (helpers/onnx_eval.lua) against PyTorch 1.13's values; pool output sizes are
-- also checked with the spec's own formula, which has no "last window" rule.
require 'nn'
local dir = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local R = dofile(dir .. '/helpers/onnx_read.lua')
local E = dofile(dir .. '/helpers/onnx_eval.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()
local tmp = os.tmpname()

-- Deterministic input, the same as the PyTorch script's: 2 sin(0.37 k + 0.1).
local function xin(...)
  local n = 1
  for _, s in ipairs({ ... }) do n = n * s end
  return torch.sin(torch.range(0, n - 1):double():mul(0.37):add(0.1)):mul(2):float():view(...)
end

local function export(m, x, opts)
  torch.onnx.export(m, x, tmp, opts)
  return R.read(tmp)
end

local function run(model, x)
  return E.run(model, torch.isTensor(x) and { x } or x)[1]
end

local function close(got, want, shape, msg)
  tester:assertTableEq(got:size():totable(), shape, msg .. ': shape')
  local err = (got:double():view(-1) - torch.DoubleTensor(want)):abs():max()
  tester:assertlt(err, 1e-5, string.format('%s: differs from PyTorch 1.13 by %g', msg, err))
end

-- The dims of a value of the graph (input, value_info or output) by name.
local function dims(model, name)
  local g = model.graph
  if g.value_info[name] then return g.value_info[name].dims end
  for _, v in ipairs(g.inputs) do if v.name == name then return v.dims end end
  for _, v in ipairs(g.outputs) do if v.name == name then return v.dims end end
end

-- ONNX 1.12's output size of MaxPool/AveragePool (defs.cc's convPoolShapeInference): floor or
-- ceil of (in + pads - ((k - 1) d + 1)) / s, plus 1, with no rule dropping a last window.
local function specPoolShapesAgree(model, msg)
  local seen = 0
  for _, n in ipairs(model.graph.nodes) do
    if n.op == 'MaxPool' or n.op == 'AveragePool' then
      seen = seen + 1
      local a, din, dout = n.attrs, dims(model, n.inputs[1]), dims(model, n.outputs[1])
      for _, c in ipairs(model.graph.nodes) do -- a sum pool's mean has no value_info; its Mul has
        if not dout and c.op == 'Mul' and c.inputs[1] == n.outputs[1] then dout = dims(model, c.outputs[1]) end
      end
      local nd = #a.kernel_shape
      for i = 1, nd do
        local d = a.dilations and a.dilations[i] or 1
        local num = din[2 + i] + a.pads[i] + a.pads[nd + i] - ((a.kernel_shape[i] - 1) * d + 1)
        local o = (a.ceil_mode == 1 and math.ceil(num / a.strides[i]) or math.floor(num / a.strides[i])) + 1
        tester:asserteq(o, dout[2 + i], string.format('%s: %s dim %d: the spec computes %d cells, the file declares %d',
          msg, n.op, i, o, dout[2 + i]))
      end
    end
  end
  tester:assertgt(seen, 0, msg .. ': a pool node')
end

-- PyTorch 1.13: F.max_pool1d(x, 2, 2, 1, ceil_mode=True) on 1 x 2 x 7 gives 4 cells, not the 5 of
-- ONNX's ceil formula (the fifth window would start in the right padding): the file declared 4
-- with ceil_mode = 1, which onnx.checker(full_check) refused; now ceil_mode = 0.
function tests.ceilModeThatDropsTheLastWindow()
  local m = export(nn.MaxPool1d(2, { stride = 2, padding = 1, ceilMode = true }), xin(1, 2, 7))
  specPoolShapesAgree(m, 'MaxPool1d')
  tester:asserteq(m.graph.nodes[1].attrs.ceil_mode, 0)
  close(run(m, xin(1, 2, 7)), { 0.1996668333, 1.48928624, 1.999915293, 1.85791943, 0.8727981643, 0.1630043035,
    -1.223715782, -1.961076796 }, { 1, 2, 4 }, 'MaxPool1d ceil')
  -- kernel 4, stride 3, padding 2 on 5 x 7: height keeps an overhanging last window (ceil), width
  -- drops one; ONNX has one ceil_mode for both dims
  local x = xin(1, 1, 5, 7)
  local mx = export(nn.MaxPool2d(4, { stride = 3, padding = 2, ceilMode = true }), x)
  specPoolShapesAgree(mx, 'MaxPool2d')
  close(run(mx, x), { 0.9057725708, 1.999915293, 1.999915293, 1.999743417, 1.852830991, 1.875999954, -1.719951384,
    -1.172416481, 0.2267700398 }, { 1, 1, 3, 3 }, 'MaxPool2d mixed ceil')
  local incl = export(nn.AvgPool2d(4, { stride = 3, padding = 2, ceilMode = true }), x)
  specPoolShapesAgree(incl, 'AvgPool2d counting the padding')
  close(run(incl, x), { 0.133827617, 0.1827304534, -0.02013066849, -0.1046268051, -0.3987286378, -0.2794926089,
    -0.3077165928, -0.565202386, -0.1210657809 }, { 1, 1, 3, 3 }, 'AvgPool2d mixed ceil, countIncludePad')
  local excl = export(nn.AvgPool2d(4, { stride = 3, padding = 2, ceilMode = true, countIncludePad = false }), x)
  specPoolShapesAgree(excl, 'AvgPool2d without the padding')
  close(run(excl, x), { 0.535310468, 0.3654609069, -0.05368178264, -0.2092536103, -0.3987286378, -0.3726568119,
    -1.846299557, -1.695607158, -0.4842631235 }, { 1, 1, 3, 3 }, 'AvgPool2d mixed ceil, countExcludePad')
  -- a ceil count the spec agrees with keeps ceil_mode = 1 (as PyTorch 1.13 writes it)
  local kept = export(nn.MaxPool2d(2, { ceilMode = true }), xin(1, 1, 5, 5))
  tester:asserteq(kept.graph.nodes[1].attrs.ceil_mode, 1)
  specPoolShapesAgree(kept, 'MaxPool2d ceil kept')
  -- unbatched input and a Torch7 module
  specPoolShapesAgree(export(nn.SpatialMaxPooling(3, 2, 2, 2, 1, 1):ceil(), xin(3, 7, 8)), 'SpatialMaxPooling')
end

-- PyTorch 1.13: F.avg_pool2d(x, 2, divisor_override=3) and (x, 3, 2, 1, ceil_mode=True,
-- divisor_override=5); the divisor was dropped (a plain mean was exported).
function tests.divisorOverride()
  local x = xin(1, 1, 4, 4)
  local m = export(nn.AvgPool2d(2, { divisorOverride = 3 }), x)
  close(run(m, x), { 1.654424709, 1.899259765, -1.445759827, -1.935492792 }, { 1, 1, 2, 2 }, 'divisorOverride 3')
  local x3 = xin(1, 1, 5, 6)
  local want = { 0.6885400913, 0.9466483713, 0.4447087142, 0.02899269634, 0.1644160726, 0.202031934, 0.0623350157,
    -0.008917195765, 0.6852366319, 0.7414272759, 0.07613083784, -0.1035002295 }
  local c = export(nn.AvgPool2d(3, { stride = 2, padding = 1, ceilMode = true, divisorOverride = 5 }), x3)
  specPoolShapesAgree(c, 'divisorOverride with ceil')
  close(run(c, x3), want, { 1, 1, 3, 4 }, 'divisorOverride 5, ceil, padding')
  -- Torch7's sum pooling (divide = false) is its mean times the window volume, as its forward
  -- computes it (not a full sum where ceil mode cuts a window): the file follows the forward
  local sum = nn.SpatialAveragePooling(3, 3, 2, 2, 1, 1):ceil()
  sum.divide = false
  local s = export(sum, x3)
  specPoolShapesAgree(s, 'sum pooling with ceil')
  tester:assertlt((run(s, x3):double() - sum:forward(x3):double()):abs():max(), 1e-5, 'sum pooling = forward')
  local odd = nn.SpatialAveragePooling(2, 2, 2, 2, 1, 1):ceil()
  odd.divide = false
  local xo = xin(1, 2, 6, 7)
  local o = export(odd, xo)
  specPoolShapesAgree(o, 'sum pooling dropping a window')
  tester:assertlt((run(o, xo):double() - odd:forward(xo):double()):abs():max(), 1e-5, 'sum pooling = forward (2)')
end

-- PyTorch 1.13: InstanceNorm1d(3, track_running_stats=True).eval() on an unbatched 3 x 5 input
-- normalizes with the running statistics; BatchNormalization on 3 x 5 read 5 channels (invalid).
function tests.instanceNormRunningStatsUnbatched()
  local m = nn.InstanceNorm1d(3, { trackRunningStats = true })
  m.running_mean:copy(torch.Tensor({ 0.5, -0.25, 1.0 }))
  m.running_var:copy(torch.Tensor({ 2.0, 0.5, 1.5 }))
  local model = export(m, xin(3, 5))
  tester:assertTableEq(R.ops(model), { 'Unsqueeze', 'BatchNormalization', 'Squeeze' })
  close(run(model, xin(3, 5)), { -0.2123670879, 0.2869238191, 0.69952926, 0.969605024, 1.060597623, 2.981018436,
    2.424592423, 1.587860513, 0.5840704467, -0.4509195005, -1.815650281, -2.215111872, -2.425277077, -2.41770102,
    -2.193409086 }, { 3, 5 }, 'InstanceNorm1d tracked, unbatched')
end

-- A batch norm takes a single sample without N in evaluation (BatchNorm2d on C x H x W, BatchNorm1d
-- on a vector of C): BatchNormalization read H (or nothing) as the channels. PyTorch 1.13's values
-- for the sample with a batch dim of 1 (its BatchNorm2d refuses a 3-D input).
local function affineStats(bn)
  bn.running_mean:copy(torch.Tensor({ 0.5, -0.25, 1.0 }))
  bn.running_var:copy(torch.Tensor({ 2.0, 0.5, 1.5 }))
  bn.weight:copy(torch.Tensor({ 1.5, 0.5, -1.0 }))
  bn.bias:copy(torch.Tensor({ 0.1, 0.2, 0.3 }))
  return bn
end
function tests.batchNormSingleSample()
  for _, c in ipairs({ 'BatchNorm2d', 'SpatialBatchNormalization' }) do
    local model = export(affineStats(nn[c](3)), xin(3, 2, 2))
    tester:assertTableEq(R.ops(model), { 'Unsqueeze', 'BatchNormalization', 'Squeeze' }, c)
    close(run(model, xin(3, 2, 2)), { -0.2185506318, 0.5303857286, 1.14929389, 1.554407536, 1.790914452, 1.690509218,
      1.412296211, 0.9939302566, 0.9834018464, 1.580957555, 2.115650281, 2.515111872 }, { 3, 2, 2 },
      c .. ' on C x H x W')
  end
  for _, c in ipairs({ 'BatchNorm1d', 'BatchNormalization' }) do
    local model = export(affineStats(nn[c](3)), xin(3))
    close(run(model, xin(3)), { -0.2185506318, 1.01724645, -0.09949921035 }, { 3 }, c .. ' on a vector')
  end
  -- with doConstantFolding off, a convolution's unbatched output reaches the batch norm as one sample
  local m = nn.Sequential():add(nn.Conv2d(2, 3, 1)):add(affineStats(nn.BatchNorm2d(3)))
  local x = xin(2, 2, 2)
  local plain = export(m, x, { doConstantFolding = false })
  m:evaluate()
  tester:assertlt((run(plain, x):double() - m:forward(x):double()):abs():max(), 1e-5, 'unfolded, unbatched')
end

-- PyTorch 1.13: F.softplus(x, beta=2, threshold=1) is x where 2x > 1; the threshold was dropped.
function tests.softplusThreshold()
  local x = xin(2, 4)
  local m = export(nn.Softplus(2, 1), x)
  close(run(m, x), { 0.4563081901, 0.9057725708, 1.48928624, 1.871232003, 1.999915293, 1.85791943, 1.464462888,
    0.8727981643 }, { 2, 4 }, 'Softplus(2, 1)')
  -- the default threshold (20) exports as PyTorch 1.13 does: Mul, Softplus, Div
  tester:assertTableEq(R.ops(export(nn.Softplus(2), x)), { 'Mul', 'Softplus', 'Div' })
end

-- ONNX's Celu takes float tensors only: a Double model's CELU made onnx.checker refuse the file
-- (Note [CELU of doubles]). PyTorch 1.13: F.celu(x, 0.7) in double, x = 2 sin(0.37 k + 0.1) - 1.
function tests.celuOfDoubles()
  local x = torch.sin(torch.range(0, 11):double():mul(0.37):add(0.1)):mul(2):add(-1):view(3, 4)
  local model = export(nn.CELU(0.7):double(), x)
  tester:assertTableEq(R.ops(model), { 'Div', 'Elu', 'Mul' })
  tester:asserteq(model.graph.inputs[1].elem, 11, 'DOUBLE')
  local got = run(model, x)
  local want = torch.DoubleTensor({ -0.4768716336, -0.08816066604, 0.4892862399, 0.8712320031, 0.999915293,
    0.85791943, 0.4644628881, -0.1163138483, -0.4882572282, -0.6255696333, -0.6707948956, -0.6854814233 })
  tester:assertlt((got:view(-1) - want):abs():max(), 1e-9, 'CELU in double')
  tester:assertTableEq(R.ops(export(nn.CELU(0.7), x:float())), { 'Celu' }, 'float keeps Celu (as PyTorch 1.13)')
  tester:assertTableEq(R.ops(export(nn.CELU(1):double(), x)), { 'Elu' }, 'alpha 1 is Elu')
end

-- Note [In-place modules]: ConcatTable{ReLU(true), Identity} overwrites the shared input, so the
-- forward (Torch7's) is relu(z) + relu(z) = 2 relu(z); the file computed relu(z) + z. Either order.
function tests.inPlaceModulesOverwriteSharedInputs()
  local lin = nn.Linear(3, 3)
  lin.weight:copy(torch.Tensor({ { 1, -2, 0.5 }, { -1, 0.5, 2 }, { 0.25, 1, -1 } }))
  lin.bias:copy(torch.Tensor({ 0.1, -0.2, 0.3 }))
  local x = xin(2, 3)
  local z = torch.addmm(lin.bias:view(1, 3):expand(2, 3), x, lin.weight:t())
  local want = torch.cmax(z, 0):mul(2):double()                            -- closed form
  for _, order in ipairs({ 'relu first', 'identity first' }) do
    local ct = nn.ConcatTable()
    if order == 'relu first' then ct:add(nn.ReLU(true)):add(nn.Identity())
    else ct:add(nn.Identity()):add(nn.ReLU(true)) end
    local m = nn.Sequential():add(lin):add(ct):add(nn.CAddTable())
    local model = export(m, x:clone())
    tester:assertlt((run(model, x):double() - want):abs():max(), 1e-6, order .. ': file')
    tester:assertlt((m:forward(x:clone()):double() - want):abs():max(), 1e-6, order .. ': forward')
  end
  -- in place on its own (a Sequential) changes nothing: Gemm, Relu, Gemm with every value_info
  local seq = nn.Sequential():add(nn.Linear(3, 4)):add(nn.ReLU(true)):add(nn.Linear(4, 2))
  local model = export(seq, x)
  tester:assertTableEq(R.ops(model), { 'Gemm', 'Relu', 'Gemm' })
  tester:assert(model.graph.value_info['/0/Gemm_output_0'] ~= nil, 'value_info of the overwritten value')
  tester:assertlt((run(model, x):double() - seq:forward(x):double()):abs():max(), 1e-6, 'sequential')
  -- CAddTable(true) writes into its first input (here the model's input), which JoinTable reads next
  local add = nn.Sequential():add(nn.ConcatTable():add(nn.Identity()):add(nn.Tanh()))
    :add(nn.ConcatTable():add(nn.CAddTable(true)):add(nn.JoinTable(2)))
  local sum = torch.add(x, torch.tanh(x)):double()
  local both = E.run(export(add, x:clone()), { x })
  tester:assertlt((both[1]:double() - sum):abs():max(), 1e-6, 'CAddTable(true)')
  tester:assertlt((both[2]:double() - torch.cat(sum, torch.tanh(x):double(), 2)):abs():max(), 1e-6, 'after it')
end

local function fails(pattern, f, msg)
  local ok, err = pcall(f)
  tester:assert(not ok, msg .. ': expected an error')
  tester:assert(tostring(err):find(pattern, 1, true) ~= nil, msg .. ': got ' .. tostring(err))
end

-- Output names that were already taken were written as a second producer of the name (onnx.checker:
-- "Graph must be in single static assignment (SSA) form"); an initializer named like an input
-- would have become that input's default value.
function tests.uniqueNames()
  local x = torch.randn(2, 2)
  fails('outputNames: "input" is already the name of an input', function()
    torch.onnx.export(nn.Tanh(), x, tmp, { outputNames = { 'input' } })
  end, 'output named as the input')
  fails('outputNames: "weight" is already the name of a weight', function()
    torch.onnx.export(nn.Linear(2, 2), x, tmp, { outputNames = { 'weight' } })
  end, 'output named as a weight')
  local two = nn.ConcatTable():add(nn.Tanh()):add(nn.Sigmoid())
  fails('outputNames: "y" is already the name of an input or another output', function()
    torch.onnx.export(two, x, tmp, { outputNames = { 'y', 'y' } })
  end, 'two outputs named alike')
  fails('outputNames: "z" is already the name of an input or another output', function()
    torch.onnx.export(nn.ConcatTable():add(nn.Identity()):add(nn.Identity()), x, tmp, { outputNames = { 'z', 'z' } })
  end, 'the input twice under one name')
  -- an input called like a weight: the weight takes another name, the input stays an input
  local lin = nn.Linear(2, 3)
  local m = export(lin, x, { inputNames = { 'weight' } })
  local names = {}
  for _, n in ipairs(m.graph.initOrder) do
    tester:assert(not names[n], 'initializer ' .. n .. ' twice')
    names[n] = true
  end
  tester:assert(not names.weight, 'no initializer named like the input')
  tester:asserteq(m.graph.nodes[1].inputs[1], 'weight')
  tester:assertlt((run(m, x):double() - lin:forward(x):double()):abs():max(), 1e-6, 'values')
  -- an output named as the node's own output name is kept
  local same = export(nn.Tanh(), x, { outputNames = { '/Tanh_output_0' } })
  tester:asserteq(#same.graph.nodes, 1)
  tester:asserteq(same.graph.outputs[1].name, '/Tanh_output_0')
end

-- An unbatched input has no batch dim: a varying dim 1 (the channels of a convolution) used to be
-- accepted and then dropped from the graph.
function tests.unbatchedInputsHaveNoBatchDim()
  fails('dynamicAxes: dim 1 (n) cannot vary through nn.Conv2d (the model), whose 3D input has no batch dim',
    function()
      torch.onnx.export(nn.Conv2d(2, 2, 2), torch.randn(2, 3, 3), tmp, { dynamicAxes = { input = { [1] = 'n' } } })
    end, 'unbatched convolution')
  fails('cannot vary', function()
    torch.onnx.export(nn.MaxPool2d(2), torch.randn(2, 4, 4), tmp, { dynamicAxes = { input = { 1 } } })
  end, 'unbatched pool')
end

-- A module's onnxExport with dims from the end (Note [Negative dims in E], onnx_custom.lua): the
-- axis was written as d - 1 (-2 for -1) while the checked sample used Tocha's ops, so the file
-- reduced, sliced and joined the dim before the last without an error.
function tests.negativeDimsInCustomExports()
  local Tail = torch.class('onnxreg.Tail', 'nn.Module')
  function Tail:onnxExport(E, x)
    local joined = E:concat({ E:mean(x, -1, true), E:narrow(x, -1, 2, 2) }, -1)
    local both = E:mean(x, { -1, -2 }, true)
    return E:transpose(E:concat({ joined, E:add(E:mul(E:mean(x, -1, true), E:mean(x, -1, true)), both) }, -1), -2, -1)
  end
  function Tail:updateOutput(x) -- the graph of onnxExport above, by Tocha's ops
    local m = x:mean(3)
    local j = torch.cat({ m, x:narrow(3, 2, 2) }, 3)
    local extra = torch.add(torch.cmul(m, m), x:mean(3):mean(2):expandAs(m))
    self.output = torch.cat({ j, extra }, 3):transpose(2, 3):contiguous()
    return self.output
  end
  local m = onnxreg.Tail()
  local x = xin(2, 3, 4)
  local model = export(m, x)
  local got, want = run(model, x), m:forward(x)
  tester:assertTableEq(got:size():totable(), { 2, 4, 3 }, 'shape')
  tester:assertlt((got:double() - want:double()):abs():max(), 1e-6, 'values')
  local ax = {}
  for _, n in ipairs(model.graph.nodes) do
    if n.op == 'ReduceMean' then ax[#ax + 1] = table.concat(n.attrs.axes, ',') end
  end
  tester:assertTableEq(ax, { '2', '2,1', '2', '2' }, 'ReduceMean axes')
  local Bad = torch.class('onnxreg.BadDim', 'nn.Module')
  function Bad:updateOutput(x) self.output = x return x end
  function Bad:onnxExport(E, x) return E:mean(x, -4) end
  fails('onnxreg.BadDim (the model): E:mean: dim -4 is out of range for a 3D value', function()
    torch.onnx.export(onnxreg.BadDim(), x, tmp)
  end, 'dim out of range')
end

tester:add(tests):run()
os.remove(tmp)
