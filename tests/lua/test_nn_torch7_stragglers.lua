-- The last classes of Torch7's core nn that Tocha lacked (nn.StochasticGradient, nn.CReLU,
-- nn.SpatialLogSoftMax, nn.VolumetricFractionalMaxPooling, nn.SparseJacobian, nn.GPU) and dpnn's
-- nn.WhiteNoise: values against independent computations (closed forms, a plain-Lua transcription
-- of THNN's loops), gradients by central differences in double, Torch7's printed lines and API.
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function double(f)
  local prev = torch.getdefaulttensortype()
  torch.setdefaulttensortype('torch.DoubleTensor')
  local ok, err = pcall(f)
  torch.setdefaulttensortype(prev)
  if not ok then error(err, 0) end
end

-- Runs f with print captured; returns the printed lines.
local function captured(f)
  local lines, old = {}, print
  print = function(...)
    local parts = {}
    for i = 1, select('#', ...) do parts[i] = tostring((select(i, ...))) end
    lines[#lines + 1] = table.concat(parts, '\t')
  end
  local ok, err = pcall(f)
  print = old
  if not ok then error(err, 0) end
  return lines
end

local function dataset(inputs, targets)
  local d = {}
  for i = 1, #inputs do d[i] = { inputs[i], targets[i] } end
  function d:size() return #inputs end
  return d
end

-- ---- nn.StochasticGradient ------------------------------------------------------------------

function tests.stochasticGradientMatchesHandWrittenSGD()
  double(function()
    torch.manualSeed(1)
    local xs, ts = {}, {}
    for i = 1, 4 do xs[i], ts[i] = torch.randn(3), torch.randn(2) end
    local m = nn.Linear(3, 2)
    local W, b = m.weight:detach():clone(), m.bias:detach():clone()
    local trainer = nn.StochasticGradient(m, nn.MSECriterion())
    trainer.learningRate, trainer.learningRateDecay, trainer.maxIteration = 0.05, 0.3, 3
    trainer.shuffleIndices, trainer.verbose = false, false
    local errors, examples = {}, 0
    trainer.hookIteration = function(t, it, err) errors[it] = err; tester:assert(t == trainer) end
    trainer.hookExample = function(_, ex) examples = examples + 1; tester:assert(ex[1] == xs[(examples - 1) % 4 + 1]) end
    captured(function() trainer:train(dataset(xs, ts)) end)
    -- the same steps written out: MSE's gradient 2 (y - t) / 2 and Torch7's rate schedule
    -- (Note [StochasticGradient's learning-rate schedule]: lr / (1 + (k + 1) * decay) after pass k)
    local lr = 0.05
    for k = 1, 3 do
      local sum = 0
      for i = 1, 4 do
        local y = torch.mv(W, xs[i]) + b
        local d = y - ts[i]
        sum = sum + d:dot(d) / 2
        W:add(-lr, torch.ger(d, xs[i]))
        b:add(-lr, d)
      end
      tester:assertalmosteq(errors[k], sum / 4, 1e-12, 'error of pass ' .. k)
      lr = 0.05 / (1 + (k + 1) * 0.3)
    end
    tester:asserteq(examples, 12)
    tester:assertTensorEq(m.weight, W, 1e-12)
    tester:assertTensorEq(m.bias, b, 1e-12)
  end)
end

function tests.stochasticGradientPrintsTorch7Lines()
  local d = dataset({ torch.ones(2) }, { torch.ones(1) })
  local t = nn.StochasticGradient(nn.Linear(2, 1), nn.MSECriterion())
  t.maxIteration = 2
  tester:asserteq(t.learningRate, 0.01)
  tester:asserteq(t.learningRateDecay, 0)
  tester:asserteq(t.shuffleIndices, true)
  tester:asserteq(t.verbose, true)
  local errs = {}
  t.hookIteration = function(_, _, e) errs[#errs + 1] = e end
  local lines = captured(function() t:train(d) end)
  tester:asserteq(#lines, 5)
  tester:asserteq(lines[1], '# StochasticGradient: training')
  tester:asserteq(lines[2], '# current error = ' .. errs[1])
  tester:asserteq(lines[3], '# current error = ' .. errs[2])
  tester:asserteq(lines[4], '# StochasticGradient: you have reached the maximum number of iterations')
  tester:asserteq(lines[5], '# training error = ' .. errs[2])
  t.verbose = false
  lines = captured(function() t:train(d) end)
  tester:asserteq(#lines, 3, 'verbose = false drops the per-pass lines only')
end

function tests.stochasticGradientShufflesEveryExampleOncePerPass()
  torch.manualSeed(3)
  local xs = {}
  for i = 1, 6 do xs[i] = torch.Tensor(1):fill(i) end
  local t = nn.StochasticGradient(nn.Linear(1, 1), nn.MSECriterion())
  t.maxIteration, t.verbose = 2, false
  local seen = {}
  t.hookExample = function(_, ex) seen[#seen + 1] = ex[1][1] end
  captured(function() t:train(dataset(xs, xs)) end)
  tester:asserteq(#seen, 12)
  for pass = 0, 1 do
    local got = {}
    for i = 1, 6 do got[seen[pass * 6 + i]] = true end
    for i = 1, 6 do tester:assert(got[i], 'example ' .. i .. ' in pass ' .. pass + 1) end
  end
end

function tests.stochasticGradientErrors()
  tester:assertErrorPattern(function() nn.StochasticGradient(3, nn.MSECriterion()) end, 'StochasticGradient.*nn.Module')
  tester:assertErrorPattern(function() nn.StochasticGradient(nn.Linear(1, 1), nn.Linear(1, 1)) end, 'nn.Criterion')
  local t = nn.StochasticGradient(nn.Linear(1, 1), nn.MSECriterion())
  tester:assertErrorPattern(function() t:train({}) end, 'size%(%) method')
  local bad = { { torch.ones(1) } }
  function bad:size() return 1 end
  tester:assertErrorPattern(function() captured(function() t:train(bad) end) end, 'dataset%[1%] must be a table {input, target}')
end

-- ---- nn.CReLU ---------------------------------------------------------------------------------

function tests.creluValuesBatchAndSample()
  double(function()
    local x = torch.randn(2, 3, 4, 5)
    local m = nn.CReLU(3)
    local y = m:forward(x)
    tester:assertTableEq(y:size():totable(), { 2, 6, 4, 5 })
    tester:assertTensorEq(y, torch.cat(torch.cmax(x, 0), torch.cmax(-x, 0), 2), 0)
    local y1 = m:forward(x[1])
    tester:assertTableEq(y1:size():totable(), { 6, 4, 5 })
    tester:assertTensorEq(y1, torch.cat(torch.cmax(x[1], 0), torch.cmax(-x[1], 0), 1), 0)
    local v = nn.CReLU(1):forward(torch.DoubleTensor({ -1, 2 }))
    tester:assertTensorEq(v, torch.DoubleTensor({ 0, 2, 1, 0 }), 0)
    -- without nInputDims a matrix is a batch (Torch7's first CReLU)
    tester:assertTableEq(nn.CReLU():forward(torch.randn(3, 2)):size():totable(), { 3, 4 })
    local xi = x:clone()
    nn.CReLU(3, true):forward(xi)
    tester:assertTensorEq(xi, x, 0, 'inplace leaves the input alone')
  end)
end

function tests.creluGradients()
  double(function()
    local m = nn.CReLU(3)
    local x = torch.randn(2, 2, 3, 3)
    tester:assertlt(nn.Jacobian.testJacobian(m, x), 1e-6, 'batch')
    tester:assertlt(nn.Jacobian.testJacobian(m, torch.randn(2, 3, 3)), 1e-6, 'one sample')
    -- the same gradient through autograd: d sum(y) / dx = sign(x)
    local xa = torch.randn(2, 2, 3, 3):requiresGrad()
    m:forward(xa):sum():backward()
    tester:assertTensorEq(xa.grad, torch.sign(xa:detach()), 1e-12)
  end)
end

function tests.creluErrors()
  tester:assertErrorPattern(function() nn.CReLU(0) end, 'nn.CReLU.*nInputDims')
  tester:assertErrorPattern(function() nn.CReLU(3):forward(torch.randn(2, 3)) end, 'nn.CReLU.*expected 3 dims')
  tester:assert(torch.isTypeOf(nn.CReLU(1), 'nn.Sequential'), 'a Sequential, as in Torch7')
end

-- ---- nn.SpatialLogSoftMax -------------------------------------------------------------------

function tests.spatialLogSoftMaxValuesAndGradients()
  double(function()
    local m = nn.SpatialLogSoftMax()
    local x = torch.randn(2, 3, 4, 5)
    local want = x - torch.log(torch.exp(x):sum(2)):expandAs(x)
    tester:assertTensorEq(m:forward(x), want, 1e-12)
    local x3 = torch.randn(3, 2, 2)
    tester:assertTensorEq(m:forward(x3), x3 - torch.log(torch.exp(x3):sum(1)):expandAs(x3), 1e-12)
    tester:assertlt(nn.Jacobian.testJacobian(m, torch.randn(2, 3, 2, 2)), 1e-6)
    tester:assertlt(nn.Jacobian.testJacobian(m, torch.randn(3, 2, 2)), 1e-6)
    local x2 = torch.randn(4, 3)
    tester:assertTensorEq(m:forward(x2), nn.LogSoftMax():forward(x2), 0, 'a batch as nn.LogSoftMax')
    tester:assertErrorPattern(function() m:forward(x3); m:backward(x3, torch.ones(2)) end, 'SpatialLogSoftMax.*gradOutput')
  end)
end

-- ---- nn.VolumetricFractionalMaxPooling --------------------------------------------------------

-- THNN's VolumetricFractionalMaxPooling_updateOutput_frame written out in plain Lua: planes of
-- H x W x T, samples {T, W, H} per plane, the first maximum, 1-based flat indices.
local function reference_vfmp(x, samples, oT, oW, oH, pT, pW, pH)
  local C, H, W, T = x:size(1), x:size(2), x:size(3), x:size(4)
  local out, idx = torch.DoubleTensor(C, oH, oW, oT), torch.LongTensor(C, oH, oW, oT)
  local function intervals(u, n, o, p)
    local seq, alpha = {}, (n - p) / (o - 1)
    for i = 0, o - 2 do seq[i] = math.floor((i + u) * alpha) - math.floor(u * alpha) end
    seq[o - 1] = n - p
    return seq
  end
  for c = 1, C do
    local sT = intervals(samples[c][1], T, oT, pT)
    local sW = intervals(samples[c][2], W, oW, pW)
    local sH = intervals(samples[c][3], H, oH, pH)
    for h = 0, oH - 1 do for w = 0, oW - 1 do for t = 0, oT - 1 do
      local best, at = -math.huge, -1
      for h2 = sH[h], sH[h] + pH - 1 do for w2 = sW[w], sW[w] + pW - 1 do for t2 = sT[t], sT[t] + pT - 1 do
        local v = x[c][h2 + 1][w2 + 1][t2 + 1]
        if v > best then best, at = v, h2 * W * T + w2 * T + t2 end
      end end end
      out[c][h + 1][w + 1][t + 1] = best
      idx[c][h + 1][w + 1][t + 1] = at + 1
    end end end
  end
  return out, idx
end

function tests.volumetricFractionalMaxPoolingMatchesTHNN()
  double(function()
    torch.manualSeed(5)
    local m = nn.VolumetricFractionalMaxPooling(2, 3, 2, 3, 2, 4)  -- poolT, poolW, poolH, outT, outW, outH
    local x = torch.randn(2, 3, 7, 6, 5)  -- N x C x H x W x T
    local y = m:forward(x)
    tester:assertTableEq(y:size():totable(), { 2, 3, 4, 2, 3 })
    tester:assertTableEq(m.randomSamples:size():totable(), { 2, 3, 3 })
    for n = 1, 2 do
      local want, widx = reference_vfmp(x[n], m.randomSamples[n], 3, 2, 4, 2, 3, 2)
      tester:assertTensorEq(y[n], want, 0, 'sample ' .. n)
      tester:assertTensorEq(m.indices[n]:double(), widx:double(), 0, 'indices of sample ' .. n)
    end
    -- a sample alone (C x H x W x T), and the ratio form: floor(size * ratio), T from the last dim
    local y1 = m:forward(x[1])
    tester:assertTableEq(y1:size():totable(), { 3, 4, 2, 3 })
    local r = nn.VolumetricFractionalMaxPooling(2, 2, 2, 0.5, 0.6, 0.7)
    tester:assertTableEq(r:forward(torch.randn(1, 10, 10, 10)):size():totable(), { 1, 7, 6, 5 })
  end)
end

function tests.volumetricFractionalMaxPoolingGradients()
  double(function()
    torch.manualSeed(6)
    local m = nn.VolumetricFractionalMaxPooling(2, 2, 2, 2, 2, 2):fixPoolingRegions()
    m:forward(torch.randn(1, 2, 5, 5, 5))
    local samples = m.randomSamples:clone()
    tester:assertlt(nn.Jacobian.testJacobian(m, torch.randn(1, 2, 5, 5, 5)), 1e-6)
    tester:assertTensorEq(m.randomSamples, samples, 0, 'fixed regions keep their samples')
    m:fixPoolingRegions(false)
    m:forward(torch.randn(1, 2, 5, 5, 5))
    tester:assert((m.randomSamples - samples):abs():max() > 0, 'new regions at each forward by default')
    local g = m:backward(torch.randn(1, 2, 5, 5, 5), torch.ones(1, 2, 2, 2, 2))
    tester:asserteq(g:sum(), 16)
  end)
end

function tests.volumetricFractionalMaxPoolingErrors()
  tester:assertErrorPattern(function() nn.VolumetricFractionalMaxPooling(1, 2, 2, 2, 2, 2) end, 'poolSizeT')
  tester:assertErrorPattern(function() nn.VolumetricFractionalMaxPooling(2, 2, 2, 0.5, 1.5, 0.5) end, 'ratios')
  local m = nn.VolumetricFractionalMaxPooling(2, 2, 2, 4, 4, 4)
  tester:assertErrorPattern(function() m:forward(torch.randn(2, 4, 4, 4)) end, 'too small')
  tester:assertErrorPattern(function() m:forward(torch.randn(4, 4, 4)) end, '4D or 5D')
end

-- ---- nn.SparseJacobian ------------------------------------------------------------------------

function tests.sparseJacobianOnSparseLinear()
  double(function()
    torch.manualSeed(7)
    local m = nn.SparseLinear(10, 4, true)
    local x = torch.DoubleTensor({ { 2, 0 }, { 5, 0 }, { 9, 0 } })
    local J = nn.SparseJacobian
    tester:assertlt(J.testJacobian(m, x), 1e-6, 'input values')
    tester:assertlt(J.testJacobianParameters(m, x, m.weight, m.gradWeight), 1e-6, 'weight')
    tester:assertlt(J.testJacobianParameters(m, x, m.bias, m.gradBias), 1e-6, 'bias')
    tester:assertlt(J.testJacobianUpdateParameters(m, x, m.weight), 1e-6, 'weight [direct update]')
    tester:assertlt(J.testJacobianUpdateParameters(m, x, m.bias), 1e-6, 'bias [direct update]')
    local ferr, berr = J.testIO(m, x)
    tester:asserteq(ferr, 0)
    tester:asserteq(berr, 0)
    -- the Jacobian of the values is the weight's columns at the indices (closed form)
    local jb = J.backward(m, x)
    for i, k in ipairs({ 2, 5, 9 }) do tester:assertTensorEq(jb[i], m.weight:select(2, k), 1e-12) end
    tester:assertErrorPattern(function() J.testJacobian(nn.SparseLinear(10, 4), x) end, 'doGradInput')
    tester:assertErrorPattern(function() J.forward(m, torch.ones(3)) end, 'SparseJacobian.*nnz x 2')
  end)
end

-- ---- nn.WhiteNoise ----------------------------------------------------------------------------

function tests.whiteNoiseMoments()
  double(function()
    torch.manualSeed(8)
    local n, mean, std = 200000, 0.5, 2
    local m = nn.WhiteNoise(mean, std)
    local x = torch.randn(n)
    local noise = m:forward(x) - x
    -- the sample mean's and variance's standard errors: std / sqrt(n), std^2 * sqrt(2 / n)
    tester:assertlt(math.abs(noise:mean() - mean), 5 * std / math.sqrt(n))
    tester:assertlt(math.abs(noise:var() - std ^ 2), 5 * std ^ 2 * math.sqrt(2 / n))
    tester:assertTensorEq(m.noise, noise, 1e-12)
    local go = torch.randn(n)
    tester:assertTensorEq(m:backward(x, go), go, 0)
    m:evaluate()
    tester:assertTensorEq(m:forward(x), x + mean, 1e-12, 'evaluation adds the mean only')
    tester:assertErrorPattern(function() m:backward(x, go) end, 'WhiteNoise.*training')
    tester:asserteq(nn.WhiteNoise().std, 0.1)
    tester:assertErrorPattern(function() nn.WhiteNoise(0, -1) end, 'std')
  end)
end

-- ---- nn.GPU -----------------------------------------------------------------------------------

function tests.gpuDecoratorOnCPU()
  double(function()
    local inner = nn.Linear(3, 2)
    local m = nn.GPU(inner, 1)
    tester:asserteq(m.device, 1)
    tester:asserteq(m.outdevice, 1)
    tester:asserteq(nn.GPU(nn.Linear(3, 2), 2, 1).outdevice, 1)
    local x = torch.randn(4, 3)
    tester:assertTensorEq(m:forward(x), torch.addmm(inner.bias:view(1, 2):expand(4, 2), x, inner.weight:t()), 1e-12)
    tester:assertlt(nn.Jacobian.testJacobian(m, x), 1e-6)
    tester:assertlt(nn.Jacobian.testJacobianParameters(m, x, inner.weight, inner.gradWeight), 1e-6)
    tester:assert(torch.isTypeOf(m, 'nn.Container'))
    tester:asserteq(tostring(m), 'nn.GPU(1) @ ' .. tostring(inner))
    tester:assertErrorPattern(function() nn.GPU(nn.Linear(1, 1), 0) end, 'nn.GPU.*device')
    tester:assertErrorPattern(function() nn.GPU(3, 1) end, 'module')
    if torch.cuda.deviceCount() == 0 then
      tester:assertErrorPattern(function() m:cuda() end, 'CUDA')
    end
  end)
end

tester:add(tests)
tester:run()
