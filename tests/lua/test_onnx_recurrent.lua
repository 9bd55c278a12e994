-- torch.onnx.export of the recurrent modules (lua/torch/onnx_rnn.lua): nn.LSTM, nn.GRU and nn.RNN
-- (tanh, relu) exported, read back (helpers/onnx_read.lua) and run by the tests' ONNX interpreter
-- (helpers/onnx_eval.lua, which implements ONNX's LSTM/GRU/RNN equations from the spec in ONNX's
-- gate order), compared with model:forward on fresh random inputs (other sequence lengths and
-- batch sizes through dynamicAxes) and with PyTorch 1.13's outputs for the same weights; then the
-- exports added with them (lua/torch/onnx_spatial.lua, onnx_act.lua): upsampling as Resize (also
-- against PyTorch 1.13's interpolate), PixelShuffle, ChannelShuffle, Clamp, SpatialSoftMax. The
-- files were also checked at development time with onnx 1.12's checker (full_check) and strict
-- shape inference.
require 'nn'
local dir = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local R = dofile(dir .. '/helpers/onnx_read.lua')
local E = dofile(dir .. '/helpers/onnx_eval.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()

-- The reader decodes the attribute types the other exports use; the RNN operator's activations
-- is a list of strings (AttributeProto type 8, field 9), decoded here.
local decode, attribute = R.decode, R.attribute
function R.attribute(bytes)
  local a = decode(bytes)
  if a[20] and a[20][1] == 8 then return a[1][1], a[9] or {}, 8 end
  return attribute(bytes)
end

local tmp = os.tmpname()

-- Exports m on x (a tensor or {x, h0[, c0]}), runs the file on inputs (default: x) and compares
-- with m:forward(inputs) to 1e-5 relatively; returns the model read back and m's train flag
-- after the export.
local function check(m, x, opts, inputs)
  torch.onnx.export(m, x, tmp, opts)
  local model = R.read(tmp)
  inputs = inputs or x
  local flag = m.train
  m:evaluate()
  local want = m:forward(inputs):detach():double()
  local got = E.run(model, torch.isTensor(inputs) and { inputs } or inputs)
  tester:asserteq(#got, 1, 'one output')
  tester:assertTableEq(got[1]:size():totable(), want:size():totable(), 'output size')
  local err = tonumber((got[1]:double() - want):abs():max())
  tester:assertlt(err, 1e-5 * math.max(1, tonumber(want:abs():max())), string.format('output differs by %g', err))
  return model, flag
end

local function node(model, op, k)
  local seen = 0
  for _, n in ipairs(model.graph.nodes) do
    if n.op == op then
      seen = seen + 1
      if seen == (k or 1) then return n end
    end
  end
end

local function count(model, op)
  local c = 0
  for _, n in ipairs(model.graph.nodes) do if n.op == op then c = c + 1 end end
  return c
end

-- Deterministic weights and inputs shared with the PyTorch script that made the reference values:
-- parameter i (PyTorch's named_parameters order) holds 0.5 sin(0.37 j + 1.3 i) + off at flat index j.
local function fill(t, f)
  local j = torch.range(0, t:nElement() - 1):double()
  return t:copy(f(j):viewAs(t))
end
local function setw(m, off)
  for i, p in ipairs(m:parameters()) do
    fill(p, function(j) return j:mul(0.37):add(1.3 * i):sin():mul(0.5):add(off or 0) end)
  end
  return m
end
local function X(...)
  return fill(torch.DoubleTensor(...), function(j) return j:mul(0.21):add(0.5):cos():mul(0.8) end)
end
local function H(...)
  return fill(torch.DoubleTensor(...), function(j) return j:mul(0.5):add(0.1):sin():mul(0.3) end)
end
local function C(...) return fill(torch.DoubleTensor(...), function(j) return j:mul(0.3):cos():mul(0.4) end) end

local function against(model, inputs, ref, size, what)
  local got = E.run(model, inputs)[1]
  local want = torch.DoubleTensor(ref):view(torch.LongStorage(size))
  tester:assertTableEq(got:size():totable(), size, what .. ' size')
  local err = tonumber((got - want):abs():max())
  tester:assertlt(err, 1e-9, string.format('%s: differs from PyTorch 1.13 by %g', what, err))
end

-- PyTorch 1.13 (float64), torch.nn.LSTM(3, 3, 2, bidirectional=True, batch_first=True) with the
-- weights above, on X(2, 3, 3) from (H(4, 2, 3), C(4, 2, 3)).
local LSTM_REF = { -0.176545889002, -0.197358449516, -0.176899635873, -0.14402595151, -0.197067189938,
  -0.198813598048, -0.270757425387, -0.281365612671, -0.177203043863, -0.105120418873, -0.126087758849,
  -0.168085087112, -0.300581031995, -0.32113459816, -0.182879723773, -0.0453611473102, -0.0419807486143,
  -0.0717513876687, -0.102873531464, -0.0929803271333, -0.15373445954, -0.126463066135, -0.220399606694,
  -0.23914228107, -0.221070173732, -0.214640007245, -0.177761323953, -0.0802100171035, -0.155051931938,
  -0.179375384286, -0.272598625557, -0.273331572835, -0.18297768865, -0.0097582839594, -0.0815720183169,
  -0.0968467632577 }
-- torch.nn.GRU(3, 3, 2) on X(3, 2, 3) from H(2, 2, 3).
local GRU_REF = { -0.157679516237, 0.0800797189984, -0.0275805310483, -0.308548867801, -0.0408998807148,
  0.0120673811565, -0.194846591327, -0.0215072981458, -0.116202234319, -0.224661273142, -0.0615010968848,
  -0.127291164585, -0.173980671891, -0.067298689183, -0.197152181428, -0.207711885279, -0.112833508281,
  -0.206381579382 }
-- torch.nn.RNN(3, 2, 1, nonlinearity='relu', bidirectional=True), weights offset by 0.2, on the
-- unbatched X(4, 3) + 0.5 from zero states.
local RELU_REF = { 1.84194787096, 0.872831530178, 3.78158879631, 3.7143098805, 2.09037819283, 0.555376384251,
  1.49716342185, 1.61757178472, 1.12721053842, 0.0608517355731, 0.368994192939, 0.288166970511, 0, 0, 0, 0 }
-- torch.nn.RNN(3, 2, 2, bias=False, batch_first=True) on X(2, 3, 3) from zero states.
local TANH_REF = { -0.368469616226, -0.464234505033, 0.167016703317, -0.15650900688, 0.147084200354,
  0.18976282052, 0.373994949997, 0.474773796399, 0.0886313486901, 0.457413231195, 0.16771245627,
  0.444483797368 }

function tests.lstmAgainstPyTorch()
  local m = setw(nn.LSTM(3, 3, 2, { bidirectional = true, batchFirst = true }):double())
  local ins = { X(2, 3, 3), H(4, 2, 3), C(4, 2, 3) }
  local model = check(m, ins)
  against(model, ins, LSTM_REF, { 2, 3, 6 }, 'LSTM')
  tester:assertTableEq(R.ops(model), { 'Transpose', 'Slice', 'Slice', 'LSTM', 'Transpose', 'Reshape', 'Slice',
    'Slice', 'LSTM', 'Transpose', 'Reshape' }, 'LSTM nodes')
  local n = node(model, 'LSTM')
  tester:asserteq(n.attrs.direction, 'bidirectional', 'direction')
  tester:asserteq(n.attrs.hidden_size, 3, 'hidden_size')
  tester:asserteq(#n.inputs, 7, 'X, W, R, B, sequence_lens, initial_h, initial_c')
  tester:asserteq(n.inputs[5], '', 'no sequence_lens')
  -- W stacks the directions with the gates in ONNX's order i, o, f, c (PyTorch's i, f, g, o)
  local W = model.graph.inits[n.inputs[2]]
  tester:assertTableEq(W:size():totable(), { 2, 12, 3 }, 'W size')
  local w = m.weight_ih_l0_reverse
  for onnxGate, ptGate in ipairs({ 1, 4, 2, 3 }) do
    tester:assertTensorEq(W[2]:narrow(1, (onnxGate - 1) * 3 + 1, 3), w:narrow(1, (ptGate - 1) * 3 + 1, 3), 0,
      'gate ' .. onnxGate)
  end
  local B = model.graph.inits[n.inputs[4]]
  tester:assertTensorEq(B[1]:narrow(1, 16, 3), m.bias_hh_l0:narrow(1, 10, 3), 0, 'Rb of gate o')
end

function tests.gruAgainstPyTorch()
  local m = setw(nn.GRU(3, 3, 2):double())
  local ins = { X(3, 2, 3), H(2, 2, 3) }
  local model = check(m, ins)
  against(model, ins, GRU_REF, { 3, 2, 3 }, 'GRU')
  tester:asserteq(count(model, 'GRU'), 2, 'one node per layer')
  local n = node(model, 'GRU', 2)
  tester:asserteq(n.attrs.linear_before_reset, 1, 'linear_before_reset as PyTorch')
  tester:asserteq(n.attrs.direction, nil, 'forward direction by default')
  -- z, r, h: ONNX's first block is PyTorch's second (z)
  local W = model.graph.inits[n.inputs[2]]
  tester:assertTensorEq(W[1]:narrow(1, 1, 3), m.weight_ih_l1:narrow(1, 4, 3), 0, 'z first')
  tester:assertTensorEq(W[1]:narrow(1, 4, 3), m.weight_ih_l1:narrow(1, 1, 3), 0, 'then r')
end

function tests.rnnAgainstPyTorch()
  local relu = setw(nn.RNN(3, 2, 1, { nonlinearity = 'relu', bidirectional = true }):double(), 0.2)
  local x = X(4, 3):add(0.5)
  local model = check(relu, x)
  against(model, { x }, RELU_REF, { 4, 4 }, 'RNN relu')
  tester:assertTableEq(R.ops(model), { 'Unsqueeze', 'RNN', 'Reshape' }, 'unbatched RNN nodes')
  tester:assertTableEq(node(model, 'RNN').attrs.activations, { 'Relu', 'Relu' }, 'activations per direction')
  local tanh = setw(nn.RNN(3, 2, 2, { bias = false, batchFirst = true }):double())
  local m2 = check(tanh, X(2, 3, 3))
  against(m2, { X(2, 3, 3) }, TANH_REF, { 2, 3, 2 }, 'RNN tanh')
  local n = node(m2, 'RNN')
  tester:asserteq(n.attrs.activations, nil, 'Tanh is the default')
  tester:asserteq(n.inputs[4], nil, 'no B without biases')
end

-- Random weights and inputs: every combination of layers, directions, layouts and states, with
-- the sequence length and batch varying (dynamicAxes) and fresh inputs of other sizes.
function tests.randomConfigurations()
  torch.manualSeed(7)
  local n = 0
  for _, cls in ipairs({ 'LSTM', 'GRU', 'RNN' }) do
    for _, layers in ipairs({ 1, 3 }) do
      for _, bidir in ipairs({ false, true }) do
        for _, bf in ipairs({ false, true }) do
          for _, states in ipairs({ false, true }) do
            local opts = { bidirectional = bidir, batchFirst = bf, dropout = layers > 1 and 0.3 or 0 }
            if cls == 'RNN' and layers == 3 then opts.nonlinearity = 'relu' end
            local m = nn[cls](4, 3, layers, opts)
            local S = layers * (bidir and 2 or 1)
            local function inputs(T, B)
              local x = bf and torch.randn(B, T, 4) or torch.randn(T, B, 4)
              if not states then return x end
              local t = { x, torch.randn(S, B, 3) }
              if cls == 'LSTM' then t[3] = torch.randn(S, B, 3) end
              return t
            end
            local sd, bd = bf and 2 or 1, bf and 1 or 2
            local dyn = { input = { [sd] = 'seq', [bd] = 'batch' }, output = { [sd] = 'seq', [bd] = 'batch' } }
            local names = { 'input' }
            if states then
              names[2], dyn.h0 = 'h0', { [2] = 'batch' }
              if cls == 'LSTM' then names[3], dyn.c0 = 'c0', { [2] = 'batch' } end
            end
            m:training() -- the export runs in evaluation mode (no dropout) and restores the flag
            local model, flag = check(m, inputs(5, 2), { dynamicAxes = dyn, inputNames = names }, inputs(7, 3))
            tester:assert(flag, 'train flag restored')
            tester:asserteq(count(model, cls), layers, cls .. ': one node per layer')
            tester:asserteq(model.graph.outputs[1].dims[sd], 'seq', 'symbolic sequence length')
            n = n + 1
          end
        end
      end
    end
  end
  tester:asserteq(n, 48, 'configurations')
end

function tests.unbatchedStatesAndFloat()
  torch.manualSeed(8)
  local m = nn.LSTM(2, 3, 2, { bidirectional = true })
  local x = torch.randn(4, 2)
  local model = check(m, { x, torch.randn(4, 3), torch.randn(4, 3) })
  tester:asserteq(model.graph.outputs[1].elem, 1, 'float output')
  check(nn.GRU(2, 3), torch.randn(5, 2), { dynamicAxes = { input = { 1 }, output = { 1 } } }, torch.randn(8, 2))
end

function tests.insideSequential()
  torch.manualSeed(9)
  local m = nn.Sequential():add(nn.Linear(3, 4)):add(nn.Tanh()):add(nn.GRU(4, 5, 2, { batchFirst = true }))
    :add(nn.Linear(5, 2))
  local model = check(m, torch.randn(2, 6, 3), { dynamicAxes = { input = { 1 }, output = { 1 } } },
    torch.randn(3, 6, 3))
  tester:assert(model.graph.inits['2.W_l1'] ~= nil, 'initializers named after the module path')
end

function tests.refusals()
  local function refuses(m, x, pattern, opts)
    local ok, err = pcall(torch.onnx.export, m, x, tmp, opts)
    tester:assert(not ok, 'expected an error matching ' .. pattern)
    tester:assert(tostring(err):find(pattern, 1, true) ~= nil, 'got ' .. tostring(err))
  end
  local proj = nn.LSTM(3, 4, { projSize = 2 })
  refuses(proj, torch.randn(5, 2, 3), 'nn.LSTM (the model) has projections (projSize = 2)')
  refuses(nn.GRU(3, 4), torch.randn(5, 2, 3), 'the feature dim 3 cannot vary',
    { dynamicAxes = { input = { 3 } } })
  refuses(nn.GRU(3, 4), { torch.randn(5, 2, 3), torch.randn(1, 2, 4) }, 'dim 3 (h0_dim3) of h0 cannot vary',
    { inputNames = { 'x', 'h0' }, dynamicAxes = { h0 = { 3 } } })
  refuses(nn.GRU(3, 4), torch.randn(5, 0, 3), 'a sample batch of size 0 is not exported')
  local nested = nn.Sequential():add(nn.ConcatTable():add(nn.Identity()):add(nn.ConcatTable():add(nn.Identity())))
    :add(nn.RNN(3, 4))
  refuses(nested, torch.randn(5, 2, 3), 'entry 2 of its input is a nested table')
  -- the module's own checks still name it
  refuses(nn.LSTM(3, 4), { torch.randn(5, 2, 3), torch.randn(1, 2, 4) }, 'give both states or neither')
end

-- Resize ------------------------------------------------------------------------------------------

-- PyTorch 1.13's F.interpolate (float64) of the 1 x 1 x 2 x 3 input 0.8 cos(0.21 j + 0.5).
local UP_REF = {
  bil2 = { 0.702066049512, 0.678221912332, 0.630533637972, 0.576181156923, 0.515164469184, 0.484656125315,
    0.61188149872, 0.584103045829, 0.528546140047, 0.467488530254, 0.400930216449, 0.367651059547, 0.431512397136,
    0.395865312823, 0.324571144196, 0.250103276915, 0.172461710979, 0.133640928011, 0.341327846344, 0.30174644632,
    0.222583646271, 0.141410650246, 0.0582274582435, 0.0166358622425 }, -- scale_factor=2, bilinear
  bil35 = { 0.702066049512, 0.663915430024, 0.606689500792, 0.533469475506, 0.484656125315, 0.521696947928,
    0.470956518165, 0.39484587352, 0.308325945675, 0.250645993779, 0.341327846344, 0.277997606305, 0.183002246247,
    0.0831824158442, 0.0166358622425 }, -- size=(3, 5), bilinear
  near15 = { 0.702066049512, 0.702066049512, 0.606689500792, 0.484656125315, 0.702066049512, 0.702066049512,
    0.606689500792, 0.484656125315, 0.341327846344, 0.341327846344, 0.183002246247, 0.0166358622425 }, -- 1.5, nearest
  bilac = { -- size=(3, 4), bilinear, align_corners=True
    0.702066049512, 0.638481683699, 0.566011708967, 0.484656125315, 0.521696947928, 0.437129564989,
    0.346779246939, 0.250645993779, 0.341327846344, 0.235777446279, 0.127546784912, 0.0166358622425 },
}

function tests.upsampleAgainstPyTorch()
  local x = X(1, 1, 2, 3)
  local cases = {
    { 'bil2', nn.Upsample({ scaleFactor = 2, mode = 'bilinear' }), { 1, 1, 4, 6 }, 'pytorch_half_pixel', 'linear' },
    { 'bil35', nn.Upsample({ size = { 3, 5 }, mode = 'bilinear' }), { 1, 1, 3, 5 }, 'pytorch_half_pixel', 'linear' },
    { 'near15', nn.Upsample({ scaleFactor = 1.5 }), { 1, 1, 3, 4 }, 'asymmetric', 'nearest' },
    { 'bilac', nn.UpsamplingBilinear2d({ size = { 3, 4 } }), { 1, 1, 3, 4 }, 'align_corners', 'linear' },
  }
  for _, c in ipairs(cases) do
    local model = check(c[2]:double(), x)
    against(model, { x }, UP_REF[c[1]], c[3], c[1])
    local n = node(model, 'Resize')
    tester:asserteq(n.attrs.coordinate_transformation_mode, c[4], c[1] .. ': coordinates as PyTorch 1.13 exports')
    tester:asserteq(n.attrs.mode, c[5], c[1] .. ': mode')
    tester:asserteq(n.attrs.nearest_mode, c[5] == 'nearest' and 'floor' or nil, c[1] .. ': nearest_mode')
    tester:asserteq(n.inputs[2], '', c[1] .. ': no roi')
  end
end

function tests.upsamplingModules()
  torch.manualSeed(10)
  local dyn = { dynamicAxes = { input = { 1 }, output = { 1 } } }
  local cases = {
    { nn.Upsample({ scaleFactor = 2 }), { 2, 3, 4 }, { 3, 3, 4 } },                    -- 1-D nearest
    { nn.Upsample({ scaleFactor = { 2, 3 }, mode = 'bilinear', alignCorners = true }), { 2, 2, 3, 4 }, { 1, 2, 3, 4 } },
    { nn.Upsample({ size = { 5, 7 }, mode = 'bilinear' }), { 2, 2, 3, 4 }, { 3, 2, 3, 4 } }, -- sizes from Shape
    { nn.Upsample({ scaleFactor = 1.7, mode = 'bilinear', recomputeScaleFactor = true }), { 1, 2, 3, 4 },
      { 2, 2, 3, 4 } },
    { nn.Upsample({ scaleFactor = 2, mode = 'trilinear' }), { 1, 2, 2, 3, 2 }, { 2, 2, 2, 3, 2 } },
    { nn.Upsample({ scaleFactor = 2, mode = 'linear' }), { 2, 2, 5 }, { 1, 2, 5 } },
    { nn.UpsamplingNearest2d({ scaleFactor = 3 }), { 1, 2, 2, 3 }, { 2, 2, 2, 3 } },
    { nn.SpatialUpSamplingNearest(2), { 2, 2, 3, 3 }, { 3, 2, 3, 3 } },
    { nn.SpatialUpSamplingBilinear(3), { 1, 2, 2, 3 }, { 2, 2, 2, 3 } },
    { nn.SpatialUpSamplingBilinear({ oheight = 4, owidth = 7 }), { 2, 1, 3, 3 }, { 1, 1, 3, 3 } },
    { nn.VolumetricUpSamplingNearest(2), { 1, 2, 2, 2, 3 }, { 2, 2, 2, 2, 3 } },
    { nn.VolumetricUpSamplingTrilinear(2), { 2, 1, 2, 3, 2 }, { 1, 1, 2, 3, 2 } },
  }
  for _, c in ipairs(cases) do
    local model = check(c[1], torch.randn(unpack(c[2])), dyn, torch.randn(unpack(c[3])))
    tester:asserteq(model.graph.outputs[1].dims[1], 'output_dim1', tostring(c[1]) .. ': varying batch')
  end
  -- unbatched C x H x W for Torch7's modules (scales of 1 for the channels)
  local model = check(nn.SpatialUpSamplingNearest(3), torch.randn(2, 2, 3))
  tester:assertTableEq(model.graph.inits[node(model, 'Resize').inputs[3]]:totable(), { 1, 3, 3 }, 'scales')
  check(nn.SpatialUpSamplingBilinear(2), torch.randn(2, 3, 2))
end

function tests.resizeRefusals()
  local bicubic, area = nn.Upsample({ scaleFactor = 2, mode = 'bicubic' }), nn.Upsample({ size = 2, mode = 'area' })
  for _, m in ipairs({ bicubic, area }) do
    local ok, err = pcall(torch.onnx.export, m, torch.randn(1, 1, 4, 4), tmp)
    local want = "mode '" .. m.mode .. "' is not exported"
    tester:assert(not ok and tostring(err):find(want, 1, true) ~= nil, tostring(err))
  end
  local ok, err = pcall(torch.onnx.export, nn.Upsample({ scaleFactor = 2 }), torch.randn(1, 1, 4, 4), tmp,
    { dynamicAxes = { input = { 3 } } })
  tester:assert(not ok and tostring(err):find('the resampled dim 3 cannot vary', 1, true) ~= nil, tostring(err))
  -- 10 x 2.3 is 23 in double (the module's size, PyTorch's too) but 22 with ONNX's float scale
  ok, err = pcall(torch.onnx.export, nn.Upsample({ scaleFactor = 2.3 }), torch.randn(1, 1, 10, 10), tmp)
  tester:assert(not ok and tostring(err):find('scale factor 2.3 gives 22 cells in ONNX\'s float arithmetic where the '
    .. 'module gives 23', 1, true) ~= nil, tostring(err))
end

-- Channel rearrangements and the smaller modules -------------------------------------------------

function tests.pixelAndChannelShuffle()
  torch.manualSeed(11)
  local dyn = { dynamicAxes = { input = { 1 }, output = { 1 } } }
  local model = check(nn.PixelShuffle(2), torch.randn(2, 8, 3, 2), dyn, torch.randn(3, 8, 3, 2))
  tester:assertTableEq(R.ops(model), { 'DepthToSpace' }, 'PixelShuffle')
  tester:asserteq(node(model, 'DepthToSpace').attrs.mode, 'CRD', 'PyTorch\'s channel order')
  check(nn.PixelShuffle(3), torch.randn(18, 2, 2))
  model = check(nn.ChannelShuffle(3), torch.randn(2, 6, 2, 3), dyn, torch.randn(4, 6, 2, 3))
  tester:assertTableEq(R.ops(model), { 'Reshape', 'Transpose', 'Reshape' }, 'ChannelShuffle')
  check(nn.ChannelShuffle(2), torch.randn(2, 4, 5))
  local ok, err = pcall(torch.onnx.export, nn.PixelShuffle(2), torch.randn(2, 2, 4, 3, 3), tmp)
  tester:assert(not ok and tostring(err):find('a 5D input', 1, true) ~= nil, tostring(err))
end

function tests.clampAndSpatialSoftMax()
  torch.manualSeed(12)
  local model = check(nn.Clamp(-0.3, 0.5), torch.randn(3, 4))
  tester:assertTableEq(R.ops(model), { 'Clip' }, 'Clamp')
  model = check(nn.SpatialSoftMax(), torch.randn(2, 3, 4, 5))
  tester:asserteq(node(model, 'Softmax').attrs.axis, 1, 'channels of N x C x H x W')
  model = check(nn.Softmax2d(), torch.randn(3, 4, 5))
  tester:asserteq(node(model, 'Softmax').attrs.axis, 0, 'channels of C x H x W')
end

tester:add(tests)
tester:run()
os.remove(tmp)
