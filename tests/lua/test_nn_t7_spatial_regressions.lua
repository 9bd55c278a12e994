-- Regressions found reviewing the Torch7 spatial/temporal/volumetric modules: the {input, target}
-- table input of nn.SpatialFullConvolution and nn.VolumetricFullConvolution (Torch7 computes adj
-- from the target's size), and a sweep of single-vs-batch agreement, finite-difference gradients,
-- accGradParameters' scale and reuse after an input size change over the modules of the review.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local J = nn.Jacobian

local function D(...) return torch.randn(...):double() end
local function num(t) return type(t) == 'number' and t or t:item() end
local function maxdiff(a, b) return num((a:double() - b:double()):abs():max()) end
local function sizestr(t) return table.concat(t:size():totable(), 'x') end

-- Wraps m so that nn.Jacobian sees a tensor-to-tensor module with target fixed.
local function withTarget(m, target)
  local f = nn.Module()
  function f:updateOutput(x) self.output = m:forward({ x, target }); return self.output end
  function f:updateGradInput(x, g) self.gradInput = m:updateGradInput({ x, target }, g)[1]; return self.gradInput end
  function f:accGradParameters(x, g, s) m:accGradParameters({ x, target }, g, s) end
  function f:zeroGradParameters() m:zeroGradParameters() end
  return f
end

-- Torch7 (nn/SpatialFullConvolution.lua): with {input, target} the adj factors are
-- (targetSize + 2 * pad - k) % d, and gradInput is {gradInput, zeros of target's size}.
function tests.spatialFullConvolutionTargetTable()
  torch.manualSeed(11)
  local m = nn.SpatialFullConvolution(2, 3, 3, 2, 3, 2, 1, 0):double()
  for _, x in ipairs({ D(2, 2, 4, 5), D(2, 4, 5) }) do
    local lead = x:dim() == 4 and { 2 } or {}
    -- each target size a stride-3 (W) / stride-2 (H) convolution maps back to x's size
    for adjH = 0, 1 do
      for adjW = 0, 2 do
        local oh, ow = (4 - 1) * 2 + 2 + adjH, (5 - 1) * 3 - 2 + 3 + adjW
        local tsz = { unpack(lead) }; tsz[#tsz + 1] = 3; tsz[#tsz + 1] = oh; tsz[#tsz + 1] = ow
        local target = D(unpack(tsz))
        local ref = nn.SpatialFullConvolution(2, 3, 3, 2, 3, 2, 1, 0, adjW, adjH):double()
        ref.weight:copy(m.weight); ref.bias:copy(m.bias)
        local y = m:forward({ x, target }):clone()
        tester:asserteq(sizestr(y), sizestr(target), 'output takes the target size ' .. adjH .. ',' .. adjW)
        tester:assertlt(maxdiff(y, ref:forward(x)), 1e-12, 'output = module built with those adj')
        local go = D(y:size())
        m:zeroGradParameters(); ref:zeroGradParameters()
        local gi = m:backward({ x, target }, go, 0.5)
        local rgi = ref:backward(x, go, 0.5)
        tester:assert(type(gi) == 'table' and #gi == 2, 'gradInput is a table of two')
        tester:assertlt(maxdiff(gi[1], rgi), 1e-12, 'gradInput[1]')
        tester:asserteq(sizestr(gi[2]), sizestr(target), 'gradInput[2] has the target size')
        tester:asserteq(num(gi[2]:abs():sum()), 0, 'gradInput[2] is zero')
        tester:assertlt(maxdiff(m.gradWeight, ref.gradWeight), 1e-12, 'gradWeight')
        tester:assertlt(maxdiff(m.gradBias, ref.gradBias), 1e-12, 'gradBias')
      end
    end
  end
  -- finite differences through the table path
  local x, target = D(2, 2, 3, 4), D(2, 3, 7, 11)
  local f = withTarget(m, target)
  tester:assertlt(J.testJacobian(f, x), 1e-6, 'table-input Jacobian')
  tester:assertlt(J.testJacobianParameters(f, x, m.weight, m.gradWeight), 1e-6, 'table-input weight Jacobian')
  -- a tensor input afterwards gets a tensor gradInput back
  local y = m:forward(x)
  tester:assert(torch.isTensor(m:backward(x, y:clone())), 'tensor gradInput after a table input')
  -- float copies and bad tables
  local mf = m:clone():float()
  tester:asserteq(sizestr(mf:forward({ x:float(), target:float() })), '2x3x7x11', 'float table input')
  local ok, err = pcall(function() return m:forward({ x }) end)
  tester:assert(not ok and tostring(err):find('SpatialFullConvolution', 1, true) ~= nil, 'missing target: ' .. tostring(err))
  ok, err = pcall(function() return m:forward({ x, 3 }) end)
  tester:assert(not ok and tostring(err):find('SpatialFullConvolution', 1, true) ~= nil, 'number target: ' .. tostring(err))
end

function tests.volumetricFullConvolutionTargetTable()
  torch.manualSeed(12)
  -- (nIn, nOut, kT, kW, kH, dT, dW, dH, padT, padW, padH)
  local m = nn.VolumetricFullConvolution(2, 2, 2, 3, 2, 2, 3, 2, 0, 1, 0):double()
  local x = D(2, 2, 3, 3, 4)
  for _, adj in ipairs({ { 0, 0, 0 }, { 1, 2, 1 }, { 1, 0, 1 } }) do  -- adjT, adjW, adjH
    local ot, oh, ow = (3 - 1) * 2 + 2 + adj[1], (3 - 1) * 2 + 2 + adj[3], (4 - 1) * 3 - 2 + 3 + adj[2]
    local target = D(2, 2, ot, oh, ow)
    local ref = nn.VolumetricFullConvolution(2, 2, 2, 3, 2, 2, 3, 2, 0, 1, 0, adj[1], adj[2], adj[3]):double()
    ref.weight:copy(m.weight); ref.bias:copy(m.bias)
    local y = m:forward({ x, target }):clone()
    tester:asserteq(sizestr(y), sizestr(target), 'output takes the target size')
    tester:assertlt(maxdiff(y, ref:forward(x)), 1e-12, 'output = module built with those adj')
    local go = D(y:size())
    m:zeroGradParameters(); ref:zeroGradParameters()
    local gi = m:backward({ x, target }, go)
    tester:assertlt(maxdiff(gi[1], ref:backward(x, go)), 1e-12, 'gradInput[1]')
    tester:asserteq(sizestr(gi[2]), sizestr(target), 'gradInput[2]')
    tester:assertlt(maxdiff(m.gradWeight, ref.gradWeight), 1e-12, 'gradWeight')
  end
  local target = D(2, 7, 6, 10)  -- a single sample: only the last three sizes count
  local f = withTarget(m, target)
  local x1 = D(2, 3, 3, 4)
  tester:asserteq(sizestr(f:forward(x1)), '2x7x6x10', 'single-sample target')
  tester:assertlt(J.testJacobian(f, x1), 1e-6, 'table-input Jacobian')
  local ok, err = pcall(function() return m:forward({ x, D(4, 4) }) end)
  tester:assert(not ok and tostring(err):find('VolumetricFullConvolution', 1, true) ~= nil, '2-D target: ' .. tostring(err))
end

-- A gradOutput of the wrong size must raise an error naming the module, not give a gradInput of
-- the wrong size (SpatialDropout's mask broadcast over any H x W) or read the same elements in
-- another shape (TemporalConvolution viewed N x oT x O over whatever came).
function tests.wrongGradOutputSizes()
  torch.manualSeed(14)
  local function expectError(f, pattern, msg)
    local ok, err = pcall(f)
    tester:assert(not ok and tostring(err):find(pattern, 1, true) ~= nil, msg .. ': ' .. tostring(err))
  end
  for _, name in ipairs({ 'SpatialDropout', 'VolumetricDropout' }) do
    local m = nn[name](0.5):double()
    local x = name == 'SpatialDropout' and D(2, 3, 4, 5) or D(2, 3, 2, 4, 5)
    local y = m:forward(x)
    local sz = y:size():totable(); sz[#sz] = sz[#sz] + 1
    expectError(function() return m:backward(x, D(unpack(sz))) end, name, name .. ' training')
    m:evaluate(); m:forward(x)
    expectError(function() return m:backward(x, D(unpack(sz))) end, name, name .. ' evaluation')
    expectError(function() m:setp(1) end, name, name .. ':setp(1)')
    tester:asserteq(m.p, 0.5, name .. ': p unchanged by a rejected setp')
  end
  -- 2 samples of 5 frames, kW = 2, dW = 2: 2 output frames of 3 features; a 2x3x2 gradOutput has the
  -- same 12 elements as the 2x2x3 one and used to be read as if it were
  local tc = nn.TemporalConvolution(4, 3, 2, 2):double()
  local x = D(2, 5, 4)
  local y = tc:forward(x)
  tester:asserteq(sizestr(y), '2x2x3', 'TemporalConvolution output size')
  expectError(function() return tc:updateGradInput(x, D(2, 3, 2)) end, 'TemporalConvolution', 'transposed gradOutput')
  expectError(function() tc:accGradParameters(x, D(2, 3, 2)) end, 'TemporalConvolution', 'transposed gradOutput (params)')
  expectError(function() return tc:backward(x[1], D(3, 2)) end, 'TemporalConvolution', 'single-sample transposed gradOutput')
  -- the pooling modules' own message, not the C op's (for ceil and floor modes)
  for _, ctor in ipairs({ nn.SpatialMaxPooling, nn.SpatialAveragePooling }) do
    for _, ceil in ipairs({ false, true }) do
      local m = ctor(3, 2, 2, 2, 1, 1):double()
      if ceil then m:ceil() end
      local xp = D(2, 2, 7, 6)
      local yp = m:forward(xp)
      tester:asserteq(sizestr(yp), ceil and '2x2x4x4' or '2x2x4x3', torch.typename(m) .. ' output size')
      local sz = yp:size():totable(); sz[4] = sz[4] + 1
      expectError(function() return m:backward(xp, D(unpack(sz))) end, torch.typename(m), torch.typename(m) .. ' gradOutput')
      tester:asserteq(sizestr(m:backward(xp, yp:clone())), '2x2x7x6', torch.typename(m) .. ' right gradOutput')
    end
  end
  -- accGradParameters called alone: the module's message (the C op's named neither the module nor,
  -- for the transposed convolution, the roles: it saw gradOutput as its input)
  for _, c in ipairs({ { nn.SpatialConvolution(2, 3, 3, 3), { 2, 2, 6, 6 } },
                       { nn.SpatialDilatedConvolution(2, 3, 3, 3, 1, 1, 0, 0, 2, 2), { 2, 2, 7, 7 } },
                       { nn.SpatialFullConvolution(2, 3, 3, 3), { 2, 2, 4, 4 } },
                       { nn.VolumetricConvolution(2, 2, 2, 2, 2), { 2, 2, 4, 4, 4 } } }) do
    local m = c[1]:double()
    local xc = D(unpack(c[2]))
    local sz = m:forward(xc):size():totable(); sz[#sz] = sz[#sz] + 1
    local name = torch.typename(m)
    expectError(function() m:accGradParameters(xc, D(unpack(sz))) end, name, name .. ' accGradParameters')
  end
  local sm = nn.SpatialSoftMax():double()
  local ys = sm:forward(D(2, 3, 4, 5))
  expectError(function() return sm:backward(D(2, 3, 4, 5), D(2, 3, 4, 6)) end, 'nn.SpatialSoftMax', 'SpatialSoftMax')
  tester:assertlt(J.testJacobian(sm, D(2, 3, 4, 5)), 1e-6, 'SpatialSoftMax still differentiates')
end

-- Every module of the review on odd sizes and strides: a batch's second sample gives the single
-- sample's output, gradients match finite differences, scale multiplies the parameter gradients,
-- and a module used on one size then another gives what a fresh copy gives.
local function sweep()
  return {
    { 'SpatialConvolution', function() return nn.SpatialConvolution(2, 3, 3, 2, 2, 1, 1, 0) end, { 2, 7, 6 } },
    { 'SpatialConvolutionMM', function() return nn.SpatialConvolutionMM(2, 3, 3, 2, 2, 3, 1, 2) end, { 2, 7, 6 } },
    { 'SpatialDilatedConvolution', function() return nn.SpatialDilatedConvolution(2, 3, 3, 2, 2, 1, 1, 0, 2, 2) end, { 2, 9, 8 } },
    { 'SpatialFullConvolution', function() return nn.SpatialFullConvolution(2, 3, 3, 2, 2, 3, 1, 0, 1, 2) end, { 2, 4, 5 } },
    { 'SpatialSubSampling', function() return nn.SpatialSubSampling(2, 3, 2, 2, 1) end, { 2, 7, 6 } },
    { 'SpatialLPPooling', function() return nn.SpatialLPPooling(2, 2, 2, 2, 2, 2) end, { 2, 6, 6 } },
    { 'SpatialMaxPooling:ceil', function() return nn.SpatialMaxPooling(3, 2, 2, 2, 1, 1):ceil() end, { 2, 7, 6 } },
    { 'SpatialAveragePooling', function() return nn.SpatialAveragePooling(3, 2, 2, 2, 1, 1):ceil():setCountExcludePad() end, { 2, 7, 6 } },
    { 'SpatialAdaptiveMaxPooling', function() return nn.SpatialAdaptiveMaxPooling(3, 2) end, { 2, 7, 5 } },
    { 'SpatialAdaptiveAveragePooling', function() return nn.SpatialAdaptiveAveragePooling(3, 2) end, { 2, 7, 5 } },
    { 'SpatialUpSamplingNearest', function() return nn.SpatialUpSamplingNearest(2) end, { 2, 3, 4 } },
    { 'SpatialUpSamplingBilinear', function() return nn.SpatialUpSamplingBilinear(2) end, { 2, 3, 4 } },
    { 'SpatialReflectionPadding', function() return nn.SpatialReflectionPadding(2, -1, 1, -2) end, { 2, 4, 5 } },
    { 'SpatialReplicationPadding', function() return nn.SpatialReplicationPadding(2, -1, 3, -2) end, { 2, 4, 5 } },
    { 'SpatialZeroPadding', function() return nn.SpatialZeroPadding(2, -1, 1, -2) end, { 2, 4, 5 } },
    { 'SpatialCrossMapLRN', function() return nn.SpatialCrossMapLRN(3, 0.5, 0.75, 2) end, { 5, 3, 4 } },
    { 'SpatialSoftMax', function() return nn.SpatialSoftMax() end, { 3, 2, 4 } },
    { 'SpatialContrastiveNormalization', function() return nn.SpatialContrastiveNormalization(2, torch.ones(3, 3)) end, { 2, 5, 6 } },
    { 'TemporalConvolution', function() return nn.TemporalConvolution(3, 2, 3, 2) end, { 8, 3 } },
    { 'TemporalSubSampling', function() return nn.TemporalSubSampling(3, 3, 2) end, { 8, 3 } },
    { 'TemporalMaxPooling', function() return nn.TemporalMaxPooling(3, 2) end, { 8, 3 } },
    { 'TemporalRowConvolution', function() return nn.TemporalRowConvolution(3, 3, 2) end, { 8, 3 } },
    { 'VolumetricConvolution', function() return nn.VolumetricConvolution(2, 2, 3, 2, 2, 2, 1, 1, 1, 0, 1) end, { 2, 5, 5, 4 } },
    { 'VolumetricFullConvolution', function() return nn.VolumetricFullConvolution(2, 2, 2, 3, 2, 2, 2, 1, 0, 1, 0, 1, 1, 0) end, { 2, 3, 3, 4 } },
    { 'VolumetricMaxPooling:ceil', function() return nn.VolumetricMaxPooling(2, 2, 2, 2, 2, 2):ceil() end, { 2, 5, 5, 5 } },
    { 'VolumetricAveragePooling', function() return nn.VolumetricAveragePooling(2, 2, 2, 2, 1, 2) end, { 2, 5, 5, 4 } },
  }
end

function tests.sweepSingleBatchGradientsScaleReuse()
  torch.manualSeed(13)
  for _, c in ipairs(sweep()) do
    local name, ctor, sz = c[1], c[2], c[3]
    local m = ctor():double()
    local x = D(unpack(sz))
    local y1 = m:forward(x):clone()
    local bsz = { 3, unpack(sz) }
    local xb = D(unpack(bsz)); xb[2]:copy(x)
    local yb = m:forward(xb):clone()
    tester:assertlt(maxdiff(yb[2], y1), 1e-10, name .. ': batch sample 2 = single output')
    -- finite differences on the single sample (the batch agrees with it, checked above): a third
    -- of the batch's forwards, so the sweep stays a few seconds
    tester:assertlt(J.testJacobian(m, x), 1e-5, name .. ': gradInput vs finite differences')
    if m.weight then
      tester:assertlt(J.testJacobianParameters(m, x, m.weight, m.gradWeight), 1e-5, name .. ': gradWeight')
      tester:assertlt(J.testJacobianParameters(m, x, m.bias, m.gradBias), 1e-5, name .. ': gradBias')
      local go = D(yb:size())
      m:zeroGradParameters(); m:forward(xb); m:backward(xb, go, 1)
      local gw, gb = m.gradWeight:clone(), m.gradBias:clone()
      m:zeroGradParameters(); m:forward(xb); m:backward(xb, go, 0.25)
      tester:assertlt(maxdiff(m.gradWeight * 4, gw) + maxdiff(m.gradBias * 4, gb), 1e-10, name .. ': scale')
    end
    -- reuse on a larger size: the same as a fresh copy (buffers resized, nothing stale)
    local big = {}
    for i, v in ipairs(bsz) do big[i] = (i == 1 or (i == 2 and #sz >= 3)) and v or v + 2 end
    if name:find('^Temporal') then big = { 2, sz[1] + 3, sz[2] } end
    local x2 = D(unpack(big))
    local y2 = m:forward(x2):clone()
    local go2 = D(y2:size())
    local g2 = m:backward(x2, go2):clone()
    local fresh = m:clone(); fresh:clearState()
    tester:assertlt(maxdiff(fresh:forward(x2), y2), 1e-10, name .. ': reuse output')
    tester:assertlt(maxdiff(fresh:backward(x2, go2), g2), 1e-10, name .. ': reuse gradInput')
  end
end

tester:add(tests)
tester:run()
