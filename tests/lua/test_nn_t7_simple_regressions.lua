-- Regressions found reviewing Torch7's simple nn modules (activations, arithmetic, reductions,
-- shape modules, distances, LookupTable, SparseLinear, Kmeans, nn.Jacobian): gradOutput sizes
-- checked with the module's name, empty batches, nn.Squeeze keeping one dim, nn.Power(0)'s
-- gradient, Kmeans:accUpdateGradParameters, GradientReversal on another tensor type, numInputDims
-- checks, OneHot of a number, Jacobian.testIO / testIOTable on in-place modules (and Torch7's
-- second result), Jacobian.testAllUpdate; and a sweep of finite-difference gradients, the
-- accGradParameters scale, accUpdateGradParameters, :float(), non-contiguous inputs, clearState and
-- serialization over the modules of the review, with values of the PyTorch equivalents.
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local J = nn.Jacobian

local function D(...) return torch.randn(...):double() end
local function num(t) return type(t) == 'number' and t or t:item() end
local function maxdiff(a, b) return num((a:double() - b:double()):abs():max()) end
local function sizestr(t) return table.concat(t:size():totable(), 'x') end
local function fails(f, pattern, msg)
  local ok, err = pcall(f)
  tester:assert(not ok and tostring(err):find(pattern, 1, true) ~= nil, msg .. ': ' .. tostring(err))
end

-- name, constructor, a single-sample size, a batch size[, input range lo, hi]
local SWEEP = {
  { 'Power(3)', function() return nn.Power(3) end, { 4 }, { 3, 4 } },
  { 'Sqrt', function() return nn.Sqrt() end, { 4 }, { 3, 4 }, 0.5, 2 },
  { 'Square', function() return nn.Square() end, { 4 }, { 3, 4 } },
  { 'Abs', function() return nn.Abs() end, { 4 }, { 3, 4 } },
  { 'Exp', function() return nn.Exp() end, { 4 }, { 3, 4 } },
  { 'Log', function() return nn.Log() end, { 4 }, { 3, 4 }, 0.5, 2 },
  { 'Clamp', function() return nn.Clamp(-0.5, 0.7) end, { 4 }, { 3, 4 } },
  { 'Threshold', function() return nn.Threshold(0.3, -0.5) end, { 4 }, { 3, 4 } },
  { 'HardShrink', function() return nn.HardShrink(0.3) end, { 4 }, { 3, 4 } },
  { 'SoftShrink', function() return nn.SoftShrink(0.3) end, { 4 }, { 3, 4 } },
  { 'SoftPlus', function() return nn.SoftPlus(2, 3) end, { 4 }, { 3, 4 } },
  { 'SoftSign', function() return nn.SoftSign() end, { 4 }, { 3, 4 } },
  { 'LogSigmoid', function() return nn.LogSigmoid() end, { 4 }, { 3, 4 } },
  { 'PReLU()', function() return nn.PReLU() end, { 4 }, { 3, 4 } },
  { 'PReLU(4)', function() return nn.PReLU(4) end, { 4 }, { 3, 4, 2 } },
  { 'ELU', function() return nn.ELU(0.7) end, { 4 }, { 3, 4 } },
  { 'LeakyReLU', function() return nn.LeakyReLU(0.1) end, { 4 }, { 3, 4 } },
  { 'SoftMax', function() return nn.SoftMax() end, { 3, 2, 2 }, { 2, 3, 2, 2 } },
  { 'SoftMin', function() return nn.SoftMin() end, { 5 }, { 2, 5 } },
  { 'LogSoftMax', function() return nn.LogSoftMax() end, { 5 }, { 2, 5 } },
  { 'Max', function() return nn.Max(1, 1) end, { 4 }, { 3, 4 } },
  { 'Min', function() return nn.Min(-1) end, { 3, 4 }, { 2, 3, 4 } },
  { 'Mean', function() return nn.Mean(2) end, { 3, 4 }, { 2, 3, 4 } },
  { 'Sum', function() return nn.Sum(2, nil, true, false) end, { 3, 4 }, { 2, 3, 4 } },
  { 'Normalize(1.5)', function() return nn.Normalize(1.5) end, { 4 }, { 3, 4 } },
  { 'Normalize(inf)', function() return nn.Normalize(math.huge) end, { 4 }, { 3, 4 } },
  { 'Narrow', function() return nn.Narrow(-1, -3, -1) end, { 3, 4 }, { 2, 3, 4 } },
  { 'Select', function() return nn.Select(2, -1) end, { 3, 4 }, { 2, 3, 4 } },
  { 'Replicate', function() return nn.Replicate(3, 1, 1) end, { 4 }, { 2, 4 } },
  { 'Reshape', function() return nn.Reshape(2, 2) end, { 4 }, { 3, 4 } },
  { 'View', function() return nn.View(-1):setNumInputDims(2) end, { 3, 4 }, { 2, 3, 4 } },
  { 'Transpose', function() return nn.Transpose({ 1, 2 }):setNumInputDims(2) end, { 3, 4 }, { 2, 3, 4 } },
  { 'Unsqueeze', function() return nn.Unsqueeze(2, 1) end, { 4 }, { 3, 4 } },
  { 'Mul', function() return nn.Mul() end, { 4 }, { 3, 4 } },
  { 'CMul', function() return nn.CMul(1, 4) end, { 3, 4 }, { 5, 4 } },
  { 'CAdd', function() return nn.CAdd(3, 1) end, { 3, 4 }, { 3, 5 } },
  { 'CMul(batch)', function() return nn.CMul(4) end, { 4 }, { 3, 4 } },
  { 'Add', function() return nn.Add(4) end, { 4 }, { 3, 4 } },
  { 'Add(scalar)', function() return nn.Add(4, true) end, { 4 }, { 3, 4 } },
  { 'AddConstant', function() return nn.AddConstant(torch.Tensor({ 1, 2, 3, 4 })) end, { 4 }, { 3, 4 } },
  { 'MulConstant', function() return nn.MulConstant(-2) end, { 4 }, { 3, 4 } },
  { 'Euclidean', function() return nn.Euclidean(4, 3) end, { 4 }, { 3, 4 } },
  { 'WeightedEuclidean', function() return nn.WeightedEuclidean(4, 3) end, { 4 }, { 3, 4 } },
  { 'Cosine', function() return nn.Cosine(4, 3) end, { 4 }, { 3, 4 } },
  { 'PartialLinear', function() return nn.PartialLinear(4, 5):setPartition(torch.LongTensor({ 2, 4, 4 })) end, { 4 }, { 3, 4 } },
  { 'Collapse', function() return nn.Collapse(1) end, { 4 }, { 3, 4 } },
}

-- Finite differences (input, each parameter, accUpdateGradParameters), batch and single sample.
function tests.sweepJacobians()
  for _, s in ipairs(SWEEP) do
    local name, make, lo, hi = s[1], s[2], s[5], s[6]
    for _, sz in ipairs({ s[3], s[4] }) do
      torch.manualSeed(21)
      local m = make():double()
      local what = name .. ' ' .. table.concat(sz, 'x')
      tester:assertlt(J.testJacobian(m, D(unpack(sz)), lo, hi), 1e-5, what .. ' input Jacobian')
      local params, grads = m:parameters()
      for k, p in ipairs(params or {}) do
        tester:assertlt(J.testJacobianParameters(m, D(unpack(sz)), p, grads[k], lo, hi), 1e-5, what .. ' param ' .. k)
        tester:assertlt(J.testJacobianUpdateParameters(m, D(unpack(sz)), p, lo, hi), 1e-5, what .. ' accUpdate ' .. k)
      end
    end
  end
end

-- accGradParameters' scale, :float() and back, a non-contiguous input, clearState, save/load, clone.
function tests.sweepStateAndTypes()
  for _, s in ipairs(SWEEP) do
    local name, make, lo, hi = s[1], s[2], s[5], s[6]
    for _, sz in ipairs({ s[3], s[4] }) do
      torch.manualSeed(22)
      local what = name .. ' ' .. table.concat(sz, 'x')
      local m = make():double()
      local x = D(unpack(sz))
      if lo then x:uniform(lo, hi) end
      local y = m:forward(x):clone()
      local go = D(y:size())
      m:zeroGradParameters()
      local gi = m:backward(x, go):clone()
      local params, grads = m:parameters()
      local g1 = {}
      for k, g in ipairs(grads or {}) do g1[k] = g:clone() end
      m:zeroGradParameters(); m:forward(x); m:backward(x, go, 0.25)
      for k, g in ipairs(grads or {}) do tester:assertlt(maxdiff(g, g1[k] * 0.25), 1e-12, what .. ' scale') end
      if #sz >= 2 then  -- the same values laid out transposed
        local xt = x.new(x:size()):transpose(1, #sz):contiguous():transpose(1, #sz):copy(x)
        tester:assert(not xt:isContiguous(), 'non-contiguous')
        local m2 = m:clone()
        tester:assertlt(maxdiff(m2:forward(xt), y), 1e-12, what .. ' non-contiguous output')
        tester:assertlt(maxdiff(m2:backward(xt, go), gi), 1e-12, what .. ' non-contiguous gradInput')
      end
      local mf = m:clone():float()
      tester:assertlt(maxdiff(mf:forward(x:float()), y), 1e-4, what .. ' float output')
      mf:zeroGradParameters()
      tester:assertlt(maxdiff(mf:backward(x:float(), go:float()), gi), 1e-3, what .. ' float gradInput')
      local _, gf = mf:parameters()
      for k, g in ipairs(gf or {}) do tester:assertlt(maxdiff(g, g1[k]), 1e-3, what .. ' float gradParameters') end
      tester:assertlt(maxdiff(mf:double():forward(x), y), 1e-4, what .. ' back to double')
      m:clearState()
      tester:assertlt(maxdiff(m:forward(x), y), 1e-12, what .. ' after clearState')
      tester:assertlt(maxdiff(m:backward(x, go), gi), 1e-12, what .. ' gradInput after clearState')
      tester:assertlt(maxdiff(torch.deserialize(torch.serialize(m)):forward(x), y), 1e-12, what .. ' save/load')
    end
  end
end

-- PyTorch 1.13's values (float64) of the same activations at and around their kinks, with
-- gradOutput 0.25 k - 1.5 (k = 0..13); RReLU in evaluate mode.
local X = { -30, -3, -1.5, -0.5, -0.3, 0, 0.3, 0.5, 1.5, 3, 6, 7, 12, 30 }
local PYTORCH = {
  { 'SoftPlus(2, 3)', { 4.37825538134826e-27, 0.0012378425688652247, 0.024293675786871031, 0.15663084375911143, 0.21874397524294284, 0.34657359027997264, 0.5187439752429428, 0.6566308437591114, 1.524293675786871, 3, 6, 7, 12, 30 }, { -1.3134766144044781e-26, -0.0030907789457934685, -0.047425873177566788, -0.20170606602749636, -0.17717184688710227, -0.125, 0, 0.18276464465750122, 0.47628706341121663, 0.75, 1, 1.25, 1.5, 1.75 } },
  { 'ELU(0.7)', { -0.69999999999993445, -0.6651490521424952, -0.54380888789609916, -0.27542853820115659, -0.18142724552279749, 0, 0.29999999999999999, 0.5, 1.5, 3, 6, 7, 12, 30 }, { -9.8255041172821822e-14, -0.043563684821880951, -0.15619111210390085, -0.31842859634913251, -0.25928637723860126, -0.17499999999999999, 0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75 } },
  { 'HardShrink(0.5)', { -30, -3, -1.5, 0, 0, 0, 0, 0, 1.5, 3, 6, 7, 12, 30 }, { -1.5, -1.25, -1, 0, 0, 0, 0, 0, 0.5, 0.75, 1, 1.25, 1.5, 1.75 } },
  { 'SoftShrink(0.3)', { -29.699999999999999, -2.7000000000000002, -1.2, -0.20000000000000001, 0, 0, 0, 0.20000000000000001, 1.2, 2.7000000000000002, 5.7000000000000002, 6.7000000000000002, 11.699999999999999, 29.699999999999999 }, { -1.5, -1.25, -1, -0.75, 0, 0, 0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75 } },
  { 'LogSigmoid()', { -30.000000000000092, -3.0485873515737421, -1.7014132779827524, -0.97407698418010669, -0.85435524446852718, -0.69314718055994529, -0.55435524446852713, -0.47407698418010669, -0.20141327798275241, -0.048587351573742062, -0.0024756851377304495, -0.00091146645377424473, -6.1441934777328058e-06, -9.3576229688397368e-14 }, { -1.4999999999998597, -1.1907176585280417, -0.81757447619364365, -0.46684449840139086, -0.28722125840582946, -0.125, 0, 0.094385167199536366, 0.091212761903178161, 0.035569404883175088, 0.0024726231566347748, 0.0011388139930008068, 9.2162619033220764e-06, 1.6375840195468775e-13 } },
  { 'SoftSign()', { -0.967741935483871, -0.75, -0.59999999999999998, -0.33333333333333331, -0.23076923076923075, 0, 0.23076923076923075, 0.33333333333333331, 0.59999999999999998, 0.75, 0.8571428571428571, 0.875, 0.92307692307692313, 0.967741935483871 }, { -0.0015608740894901135, -0.078125, -0.16000000000000003, -0.33333333333333337, -0.29585798816568043, -0.25, 0, 0.1111111111111111, 0.080000000000000016, 0.046875, 0.020408163265306117, 0.01953125, 0.0088757396449704179, 0.0018210197710717968 } },
  { 'LeakyReLU(0.1)', { -3, -0.30000000000000004, -0.15000000000000002, -0.050000000000000003, -0.029999999999999999, 0, 0.29999999999999999, 0.5, 1.5, 3, 6, 7, 12, 30 }, { -0.15000000000000002, -0.125, -0.10000000000000001, -0.075000000000000011, -0.050000000000000003, -0.025000000000000001, 0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75 } },
  { 'HardTanh(-1, 1)', { -1, -1, -1, -0.5, -0.29999999999999999, 0, 0.29999999999999999, 0.5, 1, 1, 1, 1, 1, 1 }, { 0, 0, 0, -0.75, -0.5, -0.25, 0, 0.25, 0, 0, 0, 0, 0, 0 } },
  { 'ReLU6()', { 0, 0, 0, 0, 0, 0, 0.29999999999999999, 0.5, 1.5, 3, 6, 6, 6, 6 }, { 0, 0, 0, 0, 0, 0, 0, 0.25, 0.5, 0.75, 0, 0, 0, 0 } },
  { 'Threshold(0.3, -0.5)', { -0.5, -0.5, -0.5, -0.5, -0.5, -0.5, -0.5, 0.5, 1.5, 3, 6, 7, 12, 30 }, { 0, 0, 0, 0, 0, 0, 0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75 } },
  { 'RReLU(0.1, 0.3)', { -6, -0.60000000000000009, -0.30000000000000004, -0.10000000000000001, -0.059999999999999998, 0, 0.29999999999999999, 0.5, 1.5, 3, 6, 7, 12, 30 }, { -0.30000000000000004, -0.25, -0.20000000000000001, -0.15000000000000002, -0.10000000000000001, -0.050000000000000003, 0, 0.25, 0.5, 0.75, 1, 1.25, 1.5, 1.75 } },
}

function tests.activationsMatchPyTorch()
  local x = torch.DoubleTensor(X)
  local g = torch.range(0, 13):double():mul(0.25):add(-1.5)
  for _, c in ipairs(PYTORCH) do
    local m = assert(loadstring('return nn.' .. c[1]))():double()
    if m.evaluate then m:evaluate() end
    tester:assertlt(maxdiff(m:forward(x:clone()), torch.DoubleTensor(c[2])), 1e-12, c[1] .. ' output')
    tester:assertlt(maxdiff(m:backward(x:clone(), g), torch.DoubleTensor(c[3])), 1e-12, c[1] .. ' gradInput')
  end
  -- PReLU(3) with slopes 0.1, -0.2, 0.3 over dim 2 (PyTorch's nn.PReLU(3) gives the same)
  local p = nn.PReLU(3):double()
  p.weight:copy(torch.DoubleTensor({ 0.1, -0.2, 0.3 }))
  local xp = torch.DoubleTensor({ { -1, 2, -3 }, { 4, -5, 0.5 } })
  local gp = torch.DoubleTensor({ { 0.5, -1, 2 }, { 1.5, 0.25, -2 } })
  p:zeroGradParameters()
  tester:assertlt(maxdiff(p:forward(xp), torch.DoubleTensor({ { -0.1, 2, -0.9 }, { 4, 1, 0.5 } })), 1e-15, 'PReLU output')
  tester:assertlt(maxdiff(p:backward(xp, gp), torch.DoubleTensor({ { 0.05, -1, 0.6 }, { 1.5, -0.05, -2 } })), 1e-15, 'PReLU gradInput')
  tester:assertlt(maxdiff(p.gradWeight, torch.DoubleTensor({ -0.5, -1.25, -6 })), 1e-15, 'PReLU gradWeight')
end

-- In place, Torch7 overwrites the input (and gradOutput) of the thresholding modules, and
-- AddConstant / MulConstant put the input back in backward; results equal the out-of-place ones.
function tests.inPlaceVariants()
  local cases = {
    { function(ip) return nn.Threshold(0.3, -0.5, ip) end, 'overwritten' },
    { function(ip) return nn.Threshold(0, 0, ip) end, 'overwritten' },
    { function(ip) return nn.HardTanh(-0.5, 0.5, ip) end, 'overwritten' },
    { function(ip) return nn.ReLU6(ip) end, 'overwritten' },
    { function(ip) return nn.ELU(0.7, ip) end, 'overwritten' },
    { function(ip) return nn.LeakyReLU(-0.1, ip) end, 'overwritten' },
    { function(ip) local m = nn.RReLU(0.1, 0.3, ip); m:evaluate(); return m end, 'overwritten' },
    { function(ip) return nn.AddConstant(torch.Tensor({ 1, 2, 3, 4 }), ip) end, 'restored' },
    { function(ip) return nn.MulConstant(-2.5, ip) end, 'restored' },
  }
  torch.manualSeed(23)
  for _, c in ipairs(cases) do
    for _, x0 in ipairs({ D(3, 4):mul(3), D(4, 3):mul(3):t() }) do
      local go = D(3, 4)
      local ref = c[1](false):double()
      local y = ref:forward(x0):clone()
      local gi = ref:backward(x0, go):clone()
      local m = c[1](true):double()
      local x = x0:clone():t():contiguous():t()
      if x0:isContiguous() then x = x0:clone() end
      local out = m:forward(x)
      tester:assert(out == x, tostring(m) .. ' in place: output is the input')
      tester:assertlt(maxdiff(out, y), 1e-12, tostring(m) .. ' in-place output')
      tester:assertlt(maxdiff(m:backward(x, go:clone()), gi), 1e-12, tostring(m) .. ' in-place gradInput')
      if c[2] == 'restored' then tester:assertlt(maxdiff(x, x0), 1e-12, tostring(m) .. ' input restored') end
    end
  end
end

-- Table-input modules: finite differences, non-contiguous inputs and float copies.
function tests.tableModules()
  torch.manualSeed(24)
  local cases = {
    { nn.CosineDistance(), { D(4), D(4) } }, { nn.CosineDistance(), { D(3, 4), D(3, 4) } },
    { nn.DotProduct(), { D(4), D(4) } }, { nn.DotProduct(), { D(3, 4), D(3, 4) } },
    { nn.MM(), { D(2, 3), D(3, 4) } }, { nn.MM(true, true), { D(3, 2), D(4, 3) } },
    { nn.MM(true, false), { D(2, 3, 2), D(2, 3, 4) } }, { nn.MM(false, true), { D(2, 2, 3), D(2, 4, 3) } },
    { nn.MV(), { D(2, 3), D(3) } }, { nn.MV(true), { D(3, 2), D(3) } }, { nn.MV(true), { D(2, 3, 2), D(2, 3) } },
    { nn.Index(-1), { D(3, 4), torch.LongTensor({ 2, 2, 4 }) } },
    { nn.MaskedSelect(), { D(3, 4), torch.ByteTensor({ { 1, 0, 1, 1 }, { 0, 0, 1, 0 }, { 1, 1, 0, 0 } }) } },
  }
  for _, c in ipairs(cases) do
    local m, input = c[1]:double(), c[2]
    local what = tostring(m) .. ' ' .. sizestr(input[1])
    tester:assertlt(J.testJacobianTable(m, input), 1e-6, what .. ' Jacobian')
    local y = m:forward(input):clone()
    local go = D(y:size())
    local gi = m:backward(input, go)
    local g1, g2 = gi[1]:clone(), gi[2]:clone()
    local nc = {}
    for k, t in ipairs(input) do
      nc[k] = (t:dim() >= 2 and nn.utils.isFloating(t)) and t:transpose(1, 2):contiguous():transpose(1, 2) or t
    end
    tester:assertlt(maxdiff(m:forward(nc), y), 1e-12, what .. ' non-contiguous output')
    local gn = m:backward(nc, go)
    tester:assertlt(maxdiff(gn[1], g1) + maxdiff(gn[2], g2), 1e-12, what .. ' non-contiguous gradInput')
    local mf, inf = m:clone():float(), {}
    for k, t in ipairs(input) do inf[k] = nn.utils.isFloating(t) and t:float() or t end
    tester:assertlt(maxdiff(mf:forward(inf), y), 1e-4, what .. ' float')
  end
end

-- LookupTable: paddingValue rows get no gradient, scaleGradByFreq divides by the count,
-- maxNorm renormalises the rows used, accUpdateOnly updates the weight directly (Torch7).
function tests.lookupTableOptions()
  torch.manualSeed(25)
  local idx = torch.LongTensor({ { 1, 2, 2 }, { 5, 2, 1 } })
  local go = D(2, 3, 3)
  local lt = nn.LookupTable(6, 3, 2):double()
  lt:zeroGradParameters(); lt:forward(idx); lt:backward(idx, go, 0.5)
  tester:asserteq(num(lt.gradWeight[2]:abs():sum()), 0, 'padding row')
  tester:assertlt(maxdiff(lt.gradWeight[1], (go[1][1] + go[2][3]) * 0.5), 1e-15, 'row 1 with scale')
  local f = nn.LookupTable(6, 3):double():scaleGradByFreq()
  f:zeroGradParameters(); f:forward(idx); f:backward(idx, go)
  tester:assertlt(maxdiff(f.gradWeight[2], (go[1][2] + go[1][3] + go[2][2]) / 3), 1e-15, 'scaleGradByFreq')
  local mn = nn.LookupTable(6, 3, 0, 1):double()
  mn.weight:copy(D(6, 3):mul(3):add(0.5))
  local w0 = mn.weight:clone()
  mn:forward(torch.LongTensor({ 1, 3, 3 }))
  tester:assertlt(math.abs(num(mn.weight[3]:norm()) - 1), 1e-6, 'maxNorm row')
  tester:asserteq(maxdiff(mn.weight[2], w0[2]), 0, 'rows not used are left')
  local a = nn.LookupTable(6, 3):double()
  local b = a:clone()
  a:accUpdateOnly()
  local i2, g2 = torch.LongTensor({ 1, 3, 3 }), D(3, 3)
  a:forward(i2); a:updateGradInput(i2, g2); a:accUpdateGradParameters(i2, g2, 0.1)
  b:zeroGradParameters(); b:forward(i2); b:backward(i2, g2); b:updateParameters(0.1)
  tester:assertlt(maxdiff(a.weight, b.weight), 1e-15, 'accUpdateOnly')
  fails(function() a:forward(torch.LongTensor({ 0, 2 })) end, 'nn.LookupTable(6, 3)', 'index 0')
end

-- SparseLinear equals a dense Linear on the densified input (table, single and legacy formats).
function tests.sparseLinearMatchesLinear()
  torch.manualSeed(26)
  local sl = nn.SparseLinear(6, 3, true):double()
  local lin = nn.Linear(6, 3):double()
  lin.weight:copy(sl.weight); lin.bias:copy(sl.bias)
  local s1, s2 = torch.DoubleTensor({ { 1, 0.5 }, { 4, -2 }, { 4, 1 } }), torch.DoubleTensor({ { 6, 3 } })
  local d = torch.DoubleTensor(2, 6):zero()
  d[1][1], d[1][4], d[2][6] = 0.5, -1, 3
  tester:assertlt(maxdiff(sl:forward({ s1, s2 }), lin:forward(d)), 1e-12, 'output')
  local go = D(2, 3)
  sl:zeroGradParameters(); lin:zeroGradParameters()
  local gi = sl:backward({ s1, s2 }, go, 0.3)
  lin:backward(d, go, 0.3)
  tester:assertlt(maxdiff(sl.gradWeight, lin.gradWeight) + maxdiff(sl.gradBias, lin.gradBias), 1e-12, 'gradients')
  tester:assertlt(maxdiff(gi[2]:select(2, 2), lin.gradInput[2]), 1e-12, 'dense gradInput')
  tester:assertlt(maxdiff(sl:forward(s1), lin:forward(d[1])), 1e-12, 'single sample')
  local leg = torch.DoubleTensor({ { { 2, 1.5 } }, { { 3, -1 } } })
  local dl = torch.DoubleTensor(2, 6):zero()
  dl[1][2], dl[2][3] = 1.5, -1
  tester:assertlt(maxdiff(sl:forward(leg), lin:forward(dl)), 1e-12, 'legacy format')
  tester:assertlt(maxdiff(sl:backward(leg, go):select(3, 2), lin:backward(dl, go)), 1e-12, 'legacy gradInput')
end

-- A gradOutput whose size is not the output's is refused naming the module: before, a 1 x n
-- gradOutput for an m x n input was silently broadcast (SoftPlus, ELU, SoftMax, PReLU...) or
-- failed inside maskedFill / addcmul without the module's name (Threshold, HardTanh, LogSoftMax).
function tests.gradOutputSizeChecked()
  local mods = {
    nn.Threshold(0.3, -0.5), nn.Threshold(0, 0), nn.HardTanh(), nn.Clamp(-1, 2), nn.ReLU6(), nn.HardShrink(),
    nn.SoftShrink(), nn.SoftPlus(), nn.SoftSign(), nn.LogSigmoid(), nn.PReLU(), nn.PReLU(4), nn.RReLU(),
    nn.ELU(), nn.LeakyReLU(), nn.SoftMax(), nn.SoftMin(), nn.LogSoftMax(), nn.L1Penalty(0.1), nn.GradientReversal(),
  }
  for _, m in ipairs(mods) do
    m:double()
    local name = torch.typename(m)
    local x = torch.rand(3, 4):double():add(0.1)
    m:forward(x)
    for _, go in ipairs({ torch.ones(1, 4):double(), torch.ones(4):double(), torch.ones(12):double(), 'x' }) do
      fails(function() m:backward(x, go) end, name, name .. ' gradOutput ' .. (torch.isTensor(go) and sizestr(go) or go))
    end
    m:forward(x)
    tester:asserteq(sizestr(m:backward(x, torch.ones(3, 4):double())), '3x4', name .. ' right gradOutput')
  end
  -- accGradParameters alone (as accUpdateGradParameters calls it): nn.Mul's failed inside dot
  for _, m in ipairs({ nn.Mul(), nn.PReLU(), nn.PReLU(4), nn.CMul(4), nn.Add(4), nn.CAdd(4), nn.Euclidean(4, 2) }) do
    m:double()
    local x = D(3, 4)
    m:forward(x)
    fails(function() m:accGradParameters(x, D(7, 7), 1) end, torch.typename(m), torch.typename(m) .. ' accGradParameters')
  end
end

-- Empty batches: PReLU(n)'s accGradParameters and Add's batch path viewed 0 rows with -1.
function tests.emptyBatches()
  local mods = {
    nn.PReLU(4), nn.PReLU(), nn.Add(4), nn.Add(4, true), nn.CMul(4), nn.CAdd(4), nn.Mul(), nn.Euclidean(4, 3),
    nn.WeightedEuclidean(4, 3), nn.Cosine(4, 3), nn.PartialLinear(4, 3), nn.Normalize(2), nn.Normalize(math.huge),
    nn.SoftMax(), nn.LogSoftMax(), nn.Max(2), nn.Sum(2), nn.Reshape(2, 2), nn.View(2, 2), nn.Replicate(2, 2),
    nn.Collapse(1), nn.Threshold(0.3, 0.1), nn.HardTanh(), nn.ELU(), nn.SoftPlus(), nn.LeakyReLU(),
  }
  for _, m in ipairs(mods) do
    m:double()
    local x = torch.DoubleTensor(0, 4)
    local ok, err = pcall(function()
      local y = m:forward(x)
      m:zeroGradParameters()
      local gi = m:backward(x, y.new(y:size()):zero(), 0.5)
      tester:asserteq(sizestr(gi), '0x4', tostring(m) .. ' empty gradInput')
      local _, grads = m:parameters()
      for _, g in ipairs(grads or {}) do tester:asserteq(num(g:abs():sum()), 0, tostring(m) .. ' no gradient') end
    end)
    tester:assert(ok, tostring(m) .. ' on an empty batch: ' .. tostring(err))
  end
end

-- An empty reduction dim: nn.Max / nn.Min / nn.Normalize(inf) have nothing to pick and now say so
-- with their name (the op's [max] error named neither); Sum and Mean give zeros / NaN as PyTorch.
-- PyTorch 1.13's softmax and log_softmax of a 3 x 0 tensor over dim 2 are 3 x 0 (Torch7's THNN did
-- the same), but torch.softmax here refuses a dim of size 0.
function tests.emptyReductionDim()
  local x = torch.DoubleTensor(3, 0)
  fails(function() nn.Max(2):double():forward(x) end, 'nn.Max(2)', 'Max over an empty dim')
  fails(function() nn.Min(2):double():forward(x) end, 'nn.Min(2)', 'Min over an empty dim')
  fails(function() nn.Normalize(math.huge):double():forward(x) end, 'nn.Normalize', 'max norm of empty rows')
  tester:asserteq(sizestr(nn.Normalize(2):double():forward(x)), '3x0', 'Normalize(2) of empty rows')
  tester:asserteq(num(nn.Sum(2):double():forward(x):abs():sum()), 0, 'Sum over an empty dim')
  do  -- torch.softmax / logSoftmax refused a dim of size 0 (C++, core/ops/softmax.cpp)
    for _, m in ipairs({ nn.SoftMax(), nn.LogSoftMax(), nn.SoftMin() }) do
      m:double()
      tester:asserteq(sizestr(m:forward(x)), '3x0', tostring(m) .. ' over an empty dim')
      tester:asserteq(sizestr(m:backward(x, x:clone())), '3x0', tostring(m) .. ' gradInput over an empty dim')
    end
  end
end

-- Torch7's squeeze keeps one dim when every dim has size 1, and never squeezes a vector:
-- nn.Squeeze gave a 0-dim tensor for 1 x 1 (and for a one-element vector).
function tests.squeezeKeepsOneDim()
  local cases = {
    { nn.Squeeze(), { 1, 1 }, '1' }, { nn.Squeeze(), { 1 }, '1' }, { nn.Squeeze(1), { 1 }, '1' },
    { nn.Squeeze(2), { 1, 1 }, '1' }, { nn.Squeeze(nil, 2), { 1, 1, 1 }, '1x1' }, { nn.Squeeze(1, 1), { 3, 1 }, '3' },
    { nn.Squeeze(), { 2, 1, 3 }, '2x3' }, { nn.Squeeze(), { 1, 1, 3 }, '3' },
  }
  for _, c in ipairs(cases) do
    local x = D(unpack(c[2]))
    local y = c[1]:forward(x)
    tester:asserteq(sizestr(y), c[3], tostring(c[1]) .. ' of ' .. sizestr(x))
    tester:asserteq(sizestr(c[1]:backward(x, y:clone())), sizestr(x), tostring(c[1]) .. ' gradInput of ' .. sizestr(x))
  end
end

-- Jacobian.testIO saved an in-place module after its forward had overwritten the input (and its
-- backward gradOutput), so the loaded copy ran on other values; Torch7 returns the forward and
-- backward errors as two numbers (`local ferr, berr = jac.testIO(m, x)`).
function tests.jacobianTestIO()
  torch.manualSeed(27)
  for _, m in ipairs({ nn.LeakyReLU(0.1, true), nn.MulConstant(3, true), nn.ELU(1, true), nn.Threshold(0.2, -1, true),
                       nn.AddConstant(2, true), nn.Linear(4, 3), nn.CMul(4) }) do
    local ferr, berr = J.testIO(m:double(), D(3, 4))
    tester:asserteq(ferr, 0, tostring(m) .. ' testIO forward')
    tester:asserteq(berr, 0, tostring(m) .. ' testIO backward')
  end
  -- the same for table inputs: nn.CAddTable(true) adds into its first input
  local err, berr = J.testIOTable(nn.CAddTable(true):double(), { D(3), D(3) })
  tester:asserteq(err, 0, 'testIOTable in place')
  tester:asserteq(berr, 0, 'testIOTable in place, backward')
end

-- Torch7's Jacobian.testAllUpdate: accGradParameters + updateParameters, accUpdateGradParameters
-- and both on two modules sharing the weight agree (the shared checks need a gradient that does
-- not depend on the parameter, so not nn.Euclidean or nn.Cosine).
function tests.jacobianTestAllUpdate()
  torch.manualSeed(28)
  for _, c in ipairs({ { nn.Linear(4, 3), 'weight', 'gradWeight' }, { nn.Linear(4, 3), 'bias', 'gradBias' },
                       { nn.Mul(), 'weight', 'gradWeight' }, { nn.CMul(4), 'weight', 'gradWeight' },
                       { nn.PReLU(4), 'weight', 'gradWeight' }, { nn.CAdd(4), 'bias', 'gradBias' },
                       { nn.Add(4), 'bias', 'gradBias' } }) do
    local errs = J.testAllUpdate(c[1]:double(), D(3, 4), c[2], c[3])
    local n = 0
    for k, e in pairs(errs) do
      n = n + 1
      tester:assertlt(e, 1e-10, tostring(c[1]) .. ' ' .. c[2] .. ' ' .. k)
    end
    tester:asserteq(n, 4, 'four checks')
  end
  -- the finite-difference helpers behind testJacobianUpdateParameters, under Torch7's names
  local m = nn.Linear(3, 2):double()
  local x = D(3)
  tester:assertlt(maxdiff(J.forwardUpdate(m, x, m.weight), J.backwardUpdate(m, x, m.weight)), 1e-6, 'forwardUpdate')
end

-- nn.Power(0) is constant: its gradient was 0 * x^-1, NaN at x = 0 (PyTorch 1.13 gives 0, 0, 0 for
-- x = 0, -1, 2; and 1, 1, 1 for p = 1, 0, -2, 4 for p = 2).
function tests.powerGradientAtZero()
  local x, g = torch.DoubleTensor({ 0, -1, 2 }), torch.ones(3):double()
  for p, want in pairs({ [0] = { 0, 0, 0 }, [1] = { 1, 1, 1 }, [2] = { 0, -2, 4 } }) do
    local m = nn.Power(p):double()
    m:forward(x)
    tester:assertTableEq(m:backward(x, g):totable(), want, 'nn.Power(' .. p .. ') gradient')
  end
end

-- nn.Kmeans: one update with lr 1 puts each centre on the mean of its samples; accUpdateGradParameters
-- (Module's passed -lr as accGradParameters' scale, which k-means refuses, and left gradWeight
-- pointing at the weight) gives the same as accGradParameters + updateParameters.
function tests.kmeansUpdates()
  torch.manualSeed(29)
  local x = torch.cat({ D(20, 2):add(5), D(20, 2):add(-5), D(20, 2):mul(0.5) }, 1)
  local k = nn.Kmeans(3, 2):double()
  k:initKmeansPlus(x)
  local k2 = k:clone()
  local y = k:forward(x)
  k:zeroGradParameters(); k:backward(x, y); k:updateParameters(1)
  for c = 1, 3 do
    local rows = torch.nonzero(y:eq(c)):view(-1)
    if rows:nElement() > 0 then
      tester:assertlt(maxdiff(k.weight[c], x:index(1, rows):mean(1):view(2)), 1e-7, 'centre ' .. c .. ' is its mean (counts + 1e-7)')
    end
  end
  tester:assertlt(math.abs(num(k2:forward(x):double():add(-1, y:double()):abs():sum())), 1e-12, 'same assignment')
  local gw = k2.gradWeight
  k2:accUpdateGradParameters(x, y, 1)
  tester:assert(k2.gradWeight == gw, 'gradWeight is put back')
  tester:assertlt(maxdiff(k2.weight, k.weight), 1e-12, 'accUpdateGradParameters')
end

-- nn.GradientReversal's output is a view of the input (Torch7's set): an input of another type than
-- the module's failed inside set ('cannot make a torch.FloatTensor view a torch.DoubleTensor').
function tests.gradientReversalInputType()
  local m = nn.GradientReversal(0.5)  -- the default (float) type
  local x = D(2, 3)
  local y = m:forward(x)
  tester:asserteq(y:type(), 'torch.DoubleTensor', 'output of the input type')
  tester:asserteq(maxdiff(y, x), 0, 'identity')
  tester:assertlt(maxdiff(m:backward(x, torch.ones(2, 3):double()), torch.Tensor(2, 3):fill(-0.5)), 1e-7, '-lambda')
  tester:asserteq(m:forward(torch.LongTensor({ 1, 2 })):type(), 'torch.LongTensor', 'a LongTensor passes too')
end

-- numInputDims must be a count (a negative one was kept and shifted the dims the wrong way).
function tests.numInputDimsChecked()
  fails(function() nn.Unsqueeze(1, -1) end, 'nn.Unsqueeze', 'Unsqueeze(1, -1)')
  fails(function() nn.Squeeze(1, -1) end, 'nn.Squeeze', 'Squeeze(1, -1)')
  fails(function() nn.View(2):setNumInputDims(-1) end, 'nn.View', 'View setNumInputDims(-1)')
  fails(function() nn.Transpose({ 1, 2 }):setNumInputDims(1.5) end, 'nn.Transpose', 'Transpose setNumInputDims(1.5)')
  tester:asserteq(sizestr(nn.Unsqueeze(1, 1):setNumInputDims(nil):forward(D(2, 3))), '1x2x3', 'nil resets')
end

-- Torch7's OneHot (from dpnn) takes a number too: a vector of outputSize.
function tests.oneHotNumber()
  local m = nn.OneHot(4)
  tester:assertTableEq(m:forward(3):totable(), { 0, 0, 1, 0 }, 'number input')
  tester:assertTableEq(m:forward(torch.LongTensor({ 2, 1 })):totable(), { { 0, 1, 0, 0 }, { 1, 0, 0, 0 } }, 'tensor input')
  fails(function() m:forward(5) end, 'nn.OneHot(4)', 'number out of range')
  fails(function() m:forward(1.5) end, 'nn.OneHot(4)', 'fractional number')
end

-- Module:accUpdateGradParameters points gradWeight/gradBias at the weights for the call; an error
-- inside left them there, so a later zeroGradParameters() zeroed the weights.
function tests.accUpdateGradParametersRestoresAfterAnError()
  for _, m in ipairs({ nn.Linear(3, 2), nn.CMul(3), nn.Euclidean(3, 2) }) do
    m:double()
    local w = m.weight:clone()
    tester:assert(not pcall(function() m:accUpdateGradParameters(torch.randn(3):double(), torch.randn(5):double(), 0.1) end),
      torch.typename(m) .. ' refuses the wrong gradOutput')
    tester:assert(m.gradWeight ~= m.weight, torch.typename(m) .. ' gradWeight restored')
    m:zeroGradParameters()
    tester:assertTensorEq(m.weight, w, 0, torch.typename(m) .. ' weights survive zeroGradParameters')
  end
end

tester:add(tests)
tester:run()
