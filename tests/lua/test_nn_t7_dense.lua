-- Torch7's dense layers that Tocha added later: Cosine, WeightedEuclidean, PartialLinear,
-- LinearWeightNorm, SparseLinear and Kmeans. Values against plain Lua loops (or a dense nn.Linear
-- for SparseLinear), nn.Jacobian checks in f64, Torch7-style backward against autograd, batch vs
-- one sample, float(), printing, errors and save/load. (The criterions: test_nn_t7_criterion.lua.)
require 'nn'
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local checks = dofile(here .. '/fixtures/nn_checks.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()
torch.setdefaulttensortype('torch.DoubleTensor')
torch.manualSeed(7)

local T, L = torch.Tensor, torch.LongTensor
local J = nn.Jacobian

-- A serialize/deserialize round trip gives the same output (and gradients when go is given).
local function roundTrip(m, input, go, label)
  local y = m:forward(input):clone()
  local m2 = torch.deserialize(torch.serialize(m))
  tester:assertTensorEq(m2:forward(input), y, 1e-12, label .. ' deserialized forward')
  if go then
    m:zeroGradParameters() m2:zeroGradParameters()
    m:backward(input, go) m2:backward(input, go)
    local _, g1 = m:parameters()
    local _, g2 = m2:parameters()
    for i = 1, #g1 do tester:assertTensorEq(g2[i], g1[i], 1e-12, label .. ' deserialized gradient ' .. i) end
  end
  return m2
end

-- ---- nn.Cosine -------------------------------------------------------------------------------

function tests.cosine()
  local m = nn.Cosine(4, 3)
  tester:assertTableEq(m.weight:size():totable(), { 3, 4 }, 'Torch7 layout outputSize x inputSize')
  local x = torch.randn(5, 4)
  local y = m:forward(x)
  for n = 1, 5 do for j = 1, 3 do
    local dot, nx, nw = 0, 0, 0
    for i = 1, 4 do
      dot = dot + x[n][i] * m.weight[j][i]
      nx, nw = nx + x[n][i] ^ 2, nw + m.weight[j][i] ^ 2
    end
    tester:assertalmosteq(y[n][j], dot / ((math.sqrt(nx) + 1e-12) * (math.sqrt(nw) + 1e-12)), 1e-12, 'cosine value')
  end end
  -- one sample is the batch's row
  tester:assertTensorEq(m:forward(x[2]), y[2], 1e-12, 'single sample')
  tester:assertTensorEq(nn.Cosine(4, 3):forward(torch.zeros(2, 4)), torch.zeros(2, 3), 0, 'zero input')
  checks.standard(tester, nn.Cosine(4, 3), T(5, 4))
  checks.standard(tester, nn.Cosine(4, 3), T(4))
  -- gradients scale and accumulate
  local c = nn.Cosine(3, 2)
  local xi, go = torch.randn(4, 3), torch.randn(4, 2)
  c:zeroGradParameters() c:forward(xi) c:backward(xi, go)
  local once = c.gradWeight:clone()
  c:backward(xi, go, 0.5)
  tester:assertTensorEq(c.gradWeight, once * 1.5, 1e-12, 'scale accumulates')
  roundTrip(c, xi, go, 'nn.Cosine')
  tester:asserteq(tostring(m), 'nn.Cosine')
  tester:assertErrorPattern(function() m:forward(torch.randn(5, 3)) end,
    '%[nn.Cosine%(4 %-> 3%)%] expected a vector of 4 features or a batch %(N x 4%), got torch.DoubleTensor of size 5x3')
  tester:assertErrorPattern(function() m:forward({ x }) end, 'expected a vector of 4 features')
  tester:assertErrorPattern(function() m:forward(L(2, 4):fill(1)) end, 'got torch.LongTensor')
  tester:assertErrorPattern(function() m:forward(x) m:backward(x, torch.randn(5, 2)) end,
    'gradOutput is torch.DoubleTensor of size 5x2 but the output is of size 5x3')
  tester:assertErrorPattern(function() nn.Cosine(0, 3) end, '%[nn.Cosine%] inputSize must be an integer >= 1, got 0')
  tester:assertErrorPattern(function() nn.Cosine(3) end, 'outputSize must be an integer')
end

-- ---- nn.WeightedEuclidean --------------------------------------------------------------------

function tests.weightedEuclidean()
  local m = nn.WeightedEuclidean(4, 3)
  tester:assertTableEq(m.weight:size():totable(), { 4, 3 })
  tester:assertTensorEq(m.diagCov, torch.ones(4, 3), 0, 'diagCov starts at ones')
  m.diagCov:copy(torch.rand(4, 3):add(0.5))
  local x = torch.randn(5, 4)
  local y = m:forward(x)
  for n = 1, 5 do for j = 1, 3 do
    local s = 0
    for i = 1, 4 do s = s + (m.diagCov[i][j] * (x[n][i] - m.weight[i][j])) ^ 2 end
    tester:assertalmosteq(y[n][j], math.sqrt(s), 1e-12, 'weighted distance')
  end end
  tester:assertTensorEq(m:forward(x[3]), y[3], 1e-12, 'single sample')
  -- with a diagCov of ones it is nn.Euclidean
  local e, w = nn.Euclidean(4, 3), nn.WeightedEuclidean(4, 3)
  w.weight:copy(e.weight)
  tester:assertTensorEq(w:forward(x), e:forward(x), 1e-12, 'unit diagCov is Euclidean')
  local params, grads = m:parameters()
  tester:asserteq(params[2], m.diagCov)
  tester:asserteq(grads[2], m.gradDiagCov)
  checks.standard(tester, nn.WeightedEuclidean(4, 3), T(5, 4))
  checks.standard(tester, nn.WeightedEuclidean(3, 2), T(3))
  local go = torch.randn(5, 3)
  m:zeroGradParameters() m:forward(x) m:backward(x, go, 1)
  local gw, gc = m.gradWeight:clone(), m.gradDiagCov:clone()
  m:zeroGradParameters() m:backward(x, go, 0.25)
  tester:assertTensorEq(m.gradDiagCov, gc * 0.25, 1e-12, 'diagCov gradient is scaled (Torch7 forgot for one sample)')
  tester:assertTensorEq(m.gradWeight, gw * 0.25, 1e-12)
  roundTrip(m, x, go, 'nn.WeightedEuclidean')
  tester:asserteq(tostring(m), 'nn.WeightedEuclidean')
  tester:assertErrorPattern(function() m:forward(torch.randn(2, 5)) end,
    '%[nn.WeightedEuclidean%(4 %-> 3%)%] expected a vector of 4 features or a batch %(N x 4%), got torch.DoubleTensor of size 2x5')
  tester:assertErrorPattern(function() m:forward(x) m:backward(x, torch.randn(3)) end, 'gradOutput is')
  tester:assertErrorPattern(function() nn.WeightedEuclidean(2, -1) end, 'outputSize must be an integer >= 1')
end

-- ---- nn.PartialLinear ------------------------------------------------------------------------

function tests.partialLinear()
  local m = nn.PartialLinear(4, 5)
  local W = m.network:get(1):get(2).weight
  m.bias:copy(torch.randn(1, 5))
  tester:assertTableEq(W:size():totable(), { 5, 4 })
  local x = torch.randn(3, 4)
  local full = nn.Linear(4, 5)
  full.weight:copy(W) full.bias:copy(m.bias:view(5))
  tester:assertTensorEq(m:forward(x), full:forward(x), 1e-12, 'full partition is a Linear')
  local part = T({ 5, 2, 2 })
  m:setPartition(part)
  local y = m:forward(x)
  tester:assertTableEq(y:size():totable(), { 3, 3 })
  for n = 1, 3 do for k = 1, 3 do
    local j, s = part[k], m.bias[1][part[k]]
    for i = 1, 4 do s = s + x[n][i] * W[j][i] end
    tester:assertalmosteq(y[n][k], s, 1e-12, 'partition output')
  end end
  tester:assertTensorEq(m:forward(x[2]), y[2], 1e-12, 'single sample')
  -- only the partition's rows get gradient
  m:zeroGradParameters()
  m:backward(x, torch.ones(3, 3))
  local gW = m.network:get(1):get(2).gradWeight
  for _, j in ipairs({ 1, 3, 4 }) do tester:asserteq(torch.abs(gW[j]):sum(), 0, 'row ' .. j .. ' untouched') end
  tester:assertTensorEq(gW[2], x:sum(1):view(4) * 2, 1e-12, 'repeated index adds up')
  tester:assertTensorEq(m.gradBias, T({ { 0, 2 * 3, 0, 0, 3 } }), 1e-12, 'bias gradient of the partition')
  checks.standard(tester, m, T(3, 4))
  m:resetPartition()
  tester:assertTableEq(m:forward(x):size():totable(), { 3, 5 })
  checks.standard(tester, nn.PartialLinear(3, 2, false), T(2, 3))
  m:setPartition(L({ 1, 4 }))
  roundTrip(m, x, torch.randn(3, 2), 'nn.PartialLinear')
  tester:asserteq(tostring(m), 'nn.PartialLinear(4 -> 5)')
  tester:asserteq(tostring(nn.PartialLinear(2, 3, false)), 'nn.PartialLinear(2 -> 3) without bias')
  tester:assertErrorPattern(function() m:setPartition(T({ 0, 2 })) end,
    '%[nn.PartialLinear%(4 %-> 5%)%] partition indices must be integers in %[1, 5%]')
  tester:assertErrorPattern(function() m:setPartition(T({ 1.5 })) end, 'must be integers')
  tester:assertErrorPattern(function() m:setPartition({ 1, 2 }) end, 'setPartition expects a non%-empty 1%-D tensor')
  tester:assertErrorPattern(function() m:forward(torch.randn(3, 5)) end, 'expected a vector of 4 features')
  tester:assertErrorPattern(function() nn.PartialLinear(4, 0) end, 'outputSize must be an integer >= 1')
end

-- ---- nn.LinearWeightNorm ---------------------------------------------------------------------

function tests.linearWeightNorm()
  local m = nn.LinearWeightNorm(4, 3)
  tester:assertTableEq(m.g:size():totable(), { 3, 1 })
  m.g:copy(torch.rand(3, 1):add(0.5))
  local x = torch.randn(5, 4)
  local y = m:forward(x):clone()
  for j = 1, 3 do
    local nv = 0
    for i = 1, 4 do nv = nv + m.v[j][i] ^ 2 end
    for i = 1, 4 do tester:assertalmosteq(m.weight[j][i], m.g[j][1] * m.v[j][i] / math.sqrt(nv), 1e-12, 'weight') end
    for n = 1, 5 do
      local s = m.bias[j]
      for i = 1, 4 do s = s + m.weight[j][i] * x[n][i] end
      tester:assertalmosteq(y[n][j], s, 1e-12, 'output')
    end
  end
  tester:assertTensorEq(m:forward(x[1]), y[1], 1e-12, 'single sample')
  -- a fresh layer's g is |v|, so its weight is v
  local f = nn.LinearWeightNorm(3, 2)
  f:forward(torch.randn(3))
  tester:assertTensorEq(f.weight, f.v, 1e-12, 'initial weight is v')
  checks.standard(tester, nn.LinearWeightNorm(4, 3), T(5, 4))
  checks.standard(tester, nn.LinearWeightNorm(3, 2, false), T(3))
  -- gradients accumulate (Torch7 rescaled the accumulated gradV and overwrote gradG)
  local go = torch.randn(5, 3)
  m:zeroGradParameters() m:forward(x) m:backward(x, go)
  local gv, gg = m.gradV:clone(), m.gradG:clone()
  m:backward(x, go, 0.5)
  tester:assertTensorEq(m.gradV, gv * 1.5, 1e-12, 'gradV accumulates')
  tester:assertTensorEq(m.gradG, gg * 1.5, 1e-12, 'gradG accumulates')
  -- fromLinear / toLinear
  local lin = nn.Linear(4, 3)
  local wn = nn.LinearWeightNorm.fromLinear(lin)
  tester:assertTensorEq(wn:forward(x), lin:forward(x), 1e-12, 'fromLinear')
  tester:assertTensorEq(wn.g:view(3), torch.norm(lin.weight, 2, 2):view(3), 1e-12, 'g is the row norms')
  tester:assertTensorEq(m:toLinear():forward(x), m:forward(x), 1e-12, 'toLinear')
  -- evaluation mode keeps the weight until the parameters change
  m:evaluate()
  m:forward(x)
  local before = m.weight:clone()
  m.g:mul(2)
  tester:assertTensorEq(m:forward(x), y, 1e-12, 'evaluation reuses the weight')
  m:updateParameters(0)
  m:forward(x)
  tester:assertTensorEq(m.weight, before * 2, 1e-12, 'updateParameters marks it dirty')
  m:training()
  roundTrip(m, x, go, 'nn.LinearWeightNorm')
  tester:asserteq(tostring(m), 'nn.LinearWeightNorm(4 -> 3)')
  tester:asserteq(tostring(nn.LinearWeightNorm(2, 3, false)), 'nn.LinearWeightNorm(2 -> 3) without bias')
  tester:assertErrorPattern(function() m:forward(torch.randn(2, 3)) end,
    '%[nn.LinearWeightNorm%(4 %-> 3%)%] expected a vector of 4 features')
  tester:assertErrorPattern(function() m:forward(x) m:backward(x, torch.randn(5, 2)) end,
    '%[nn.LinearWeightNorm%(4 %-> 3%)%] gradOutput is torch.DoubleTensor of size 5x2 but the output is of size 5x3')
  tester:assertErrorPattern(function() nn.LinearWeightNorm.fromLinear(nn.Tanh()) end, 'fromLinear expects an nn.Linear')
  tester:assertErrorPattern(function() nn.LinearWeightNorm(0, 2) end, 'inputSize must be an integer >= 1')
end

-- ---- nn.SparseLinear -------------------------------------------------------------------------

-- The dense rows of sparse samples (nnz x 2 {index, value} tensors; repeated indices add up).
local function densify(list, I)
  local d = torch.zeros(#list, I)
  for b, t in ipairs(list) do
    for r = 1, t:size(1) do d[b][t[r][1]] = d[b][t[r][1]] + t[r][2] end
  end
  return d
end

function tests.sparseLinear()
  local m = nn.SparseLinear(6, 3)
  m.bias:copy(torch.randn(3))
  local s1 = T({ { 1, 0.5 }, { 4, -2 }, { 1, 3 } })
  local s2 = T({ { 6, 1.5 } })
  local dense = nn.Linear(6, 3)
  dense.weight:copy(m.weight) dense.bias:copy(m.bias)
  local batch = { s1, s2 }
  local xd = densify(batch, 6)
  tester:assertTensorEq(m:forward(batch), dense:forward(xd), 1e-12, 'batch as a table')
  tester:assertTensorEq(m:forward(s1), dense:forward(xd[1]), 1e-12, 'one sample')
  local legacy = torch.cat(s1:narrow(1, 1, 1):view(1, 1, 2), T({ { { 6, 1.5 } } }), 1)
  tester:assertTensorEq(m:forward(legacy), dense:forward(densify({ legacy[1], legacy[2] }, 6)), 1e-12, 'legacy N x nnz x 2')
  tester:assertTensorEq(m:forward({}), m.bias, 0, 'an empty batch gives the bias')
  tester:assertTensorEq(m:forward({ T(0, 2), s2 })[1], m.bias, 0, 'a sample without entries gives the bias')
  -- gradients against the dense layer's
  local go = torch.randn(2, 3)
  m:zeroGradParameters() dense:zeroGradParameters()
  m:forward(batch) m:backward(batch, go, 0.5)
  dense:forward(xd) dense:backward(xd, go, 0.5)
  tester:assertTensorEq(m.gradWeight, dense.gradWeight, 1e-12, 'gradWeight')
  tester:assertTensorEq(m.gradBias, dense.gradBias, 1e-12, 'gradBias')
  tester:asserteq(type(m.gradInput), 'table')
  tester:asserteq(#m.gradInput, 0, 'no input gradient without doGradInput')
  -- finite differences in f64 for the weight and bias (the sample values stay as given)
  for k, p in ipairs({ m.weight, m.bias }) do
    local g = ({ m.gradWeight, m.gradBias })[k]
    local jf, jb = J.forward(m, batch, p), J.backward(m, batch, p, g)
    tester:assertlt(jf:add(-1, jb):abs():max(), 1e-7, 'parameter jacobian ' .. k)
  end
  -- Torch7-style backward agrees with autograd's loss:backward()
  m:zeroGradParameters()
  m:forward(batch) m:backward(batch, go)
  local gw, gb = m.gradWeight:clone(), m.gradBias:clone()
  m:zeroGradParameters()
  torch.cmul(m:forward(batch), go):sum():backward()
  tester:assertTensorEq(m.gradWeight, gw, 1e-12, 'autograd gradWeight')
  tester:assertTensorEq(m.gradBias, gb, 1e-12, 'autograd gradBias')
  -- doGradInput: dense {index, value} rows per sample
  local d = nn.SparseLinear(6, 3, true)
  d:forward(batch)
  local gi = d:backward(batch, go)
  tester:asserteq(#gi, 2)
  local want = torch.mm(go, d.weight)
  for b = 1, 2 do
    tester:assertTensorEq(gi[b]:select(2, 1), torch.range(1, 6), 0, 'indices')
    tester:assertTensorEq(gi[b]:select(2, 2), want[b], 1e-12, 'values')
  end
  d:forward(legacy)
  tester:assertTableEq(d:backward(legacy, go):size():totable(), { 2, 6, 2 }, 'legacy gradInput')
  -- after one backward, updateParameters and zeroGradParameters touch only the used columns
  local u = nn.SparseLinear(5, 2)
  u.weightDecay = 0.1
  local w0 = u.weight:clone()
  local x = T({ { 2, 1 }, { 4, 0 } })  -- column 4 holds a zero value: not "used"
  u:zeroGradParameters()
  u:forward(x) u:backward(x, T({ 1, -1 }))
  local gW = u.gradWeight:clone()
  tester:assertTensorEq(gW:select(2, 1), w0:select(2, 1) * 0.1, 1e-12, 'weight decay on every column')
  u:updateParameters(0.5)
  tester:assertTensorEq(u.weight:select(2, 2), w0:select(2, 2) - gW:select(2, 2) * 0.5, 1e-12, 'used column moves')
  tester:assertTensorEq(u.weight:select(2, 1), w0:select(2, 1), 0, 'unused column stays (Torch7 sparse update)')
  u:zeroGradParameters()
  tester:asserteq(u.gradWeight:select(2, 2):abs():sum(), 0, 'used column zeroed')
  tester:assertTensorEq(u.gradWeight:select(2, 1), gW:select(2, 1), 0, 'others left')
  -- types, save/load, printing, errors
  tester:asserteq(torch.type(nn.SparseLinear(6, 3):float():forward({ s1:float() })), 'torch.FloatTensor')
  local fm = nn.SparseLinear(6, 3):float()
  tester:assertTensorEq(fm:forward(s1):double(), torch.mv(fm.weight:double(), xd[1]) + fm.bias:double(), 1e-5,
    'float forward')
  roundTrip(m, batch, go, 'nn.SparseLinear')
  m:clearState()
  tester:assertTensorEq(m:forward(batch), dense:forward(xd) - dense.bias + m.bias, 1e-12, 'after clearState')
  tester:asserteq(tostring(m), 'nn.SparseLinear')
  tester:assertErrorPattern(function() m:forward(T({ { 7, 1 } })) end,
    '%[nn.SparseLinear%(6 %-> 3%)%] indices must be integers in %[1, 6%], got values from 7 to 7')
  tester:assertErrorPattern(function() m:forward(T({ { 1.5, 1 } })) end, 'indices must be integers')
  tester:assertErrorPattern(function() m:forward(torch.randn(6)) end, 'expected an nnz x 2 tensor of {index, value} rows')
  tester:assertErrorPattern(function() m:forward({ s1, 'x' }) end, 'expected an nnz x 2 tensor')
  tester:assertErrorPattern(function() m:forward(batch) m:backward(batch, torch.randn(3)) end,
    'gradOutput is torch.DoubleTensor of size 3 but the output is of size 2x3')
  tester:assertErrorPattern(function() nn.SparseLinear(6, 3, 1) end, 'doGradInput must be true or false')
end

-- ---- nn.Kmeans -------------------------------------------------------------------------------

function tests.kmeans()
  local km = nn.Kmeans(3, 2)
  tester:assertTableEq(km.weight:size():totable(), { 3, 2 })
  local x = torch.randn(10, 2)
  local y = km:forward(x)
  local loss = 0
  for n = 1, 10 do
    local best, bi = math.huge, 0
    for c = 1, 3 do
      local d = (x[n][1] - km.weight[c][1]) ^ 2 + (x[n][2] - km.weight[c][2]) ^ 2
      if d < best then best, bi = d, c end
    end
    tester:asserteq(y[n], bi, 'nearest centre')
    loss = loss + best
  end
  tester:assertalmosteq(km.loss, loss, 1e-12, 'loss')
  -- the update rule: c += scale * mean(x in c) - c, so updateParameters(1) with scale 1 moves
  -- every centre with samples to their mean
  local w0 = km.weight:clone()
  km:zeroGradParameters()
  km:backward(x, y)
  tester:assertTensorEq(km.gradInput, torch.zeros(10, 2), 0, 'no input gradient')
  km:updateParameters(1)
  for c = 1, 3 do
    local s, n = torch.zeros(2), 0
    for i = 1, 10 do if y[i] == c then s:add(x[i]) n = n + 1 end end
    tester:asserteq(km.clusterSampleCount[c], n, 'sample count')
    local want = n > 0 and s / n or w0[c]
    tester:assertTensorEq(km.weight[c], want, 1e-6, 'centre ' .. c .. ' moves to its mean')
  end
  -- scale from the constructor wins
  local ks = nn.Kmeans(2, 2, 0.5)
  ks.weight:copy(T({ { 0, 0 }, { 10, 10 } }))
  local xs = T({ { 1, 1 }, { 3, 3 }, { 9, 9 } })
  ks:forward(xs) ks:zeroGradParameters() ks:backward(xs, nil, 7)
  tester:assertTensorEq(ks.gradWeight, T({ { -1, -1 }, { 0.5, 0.5 } }), 1e-6, 'half a step')
  -- seeding: centres are samples; k-means++ picks far apart clusters
  local blobs = torch.cat({ torch.randn(20, 2):mul(0.1), torch.randn(20, 2):mul(0.1):add(10),
    torch.randn(20, 2):mul(0.1):add(-10) }, 1)
  km:initRandom(blobs)
  for c = 1, 3 do
    local found = false
    for n = 1, 60 do if torch.equal(km.weight[c], blobs[n]) then found = true end end
    tester:assert(found, 'initRandom copies samples')
  end
  km:initKmeansPlus(blobs, 0.9)
  local groups, count = {}, 0
  for c = 1, 3 do
    local g = math.floor((km.weight[c][1] + 15) / 10)  -- 0, 1 or 2 for the blobs at -10, 0, 10
    if not groups[g] then groups[g], count = true, count + 1 end
  end
  tester:asserteq(count, 3, 'k-means++ takes one centre per blob')
  tester:asserteq(nn.Kmeans.initKmeansPP, nn.Kmeans.initKmeansPlus)
  tester:asserteq(torch.type(nn.Kmeans(2, 2):float():forward(torch.randn(3, 2):float())), 'torch.FloatTensor')
  roundTrip(km, blobs, nil, 'nn.Kmeans')
  tester:asserteq(tostring(km), 'nn.Kmeans')
  tester:assertErrorPattern(function() km:forward(torch.randn(4, 3)) end,
    '%[nn.Kmeans%(3, 2%)%] expected N x 2 samples, got torch.DoubleTensor of size 4x3')
  tester:assertErrorPattern(function() km:initRandom(torch.randn(2, 2)) end, 'expected N x 2 samples with N >= 3')
  tester:assertErrorPattern(function() km:initKmeansPlus(blobs, 2) end, 'p must be in %[0, 1%]')
  tester:assertErrorPattern(function() nn.Kmeans(0, 2) end, 'k must be an integer >= 1')
end

tester:add(tests)
tester:run()
