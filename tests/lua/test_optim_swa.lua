-- Weight averaging (optim/swa.lua, optim/lr/SWALR.lua): AveragedModel's SWA and EMA averages against
-- means computed from the models seen, buffers with and without useBuffers, custom avgFn and
-- multiAvgFn, updateBn against the batch statistics computed directly, SWALR against PyTorch 1.13's
-- rates (optimizer object and config table), CUDA against CPU, errors.
require 'nn'
require 'optim'
local data = require 'data'
local tester = torch.Tester()
local tests = torch.TestSuite()

-- A small model with a batch norm; its parameters set from a seed-like number k, so that each
-- update sees known, different values.
local function model()
  return nn.Sequential():add(nn.Linear(3, 4)):add(nn.BatchNormalization(4)):add(nn.ReLU()):add(nn.Linear(4, 2))
end
local function set(m, k)
  for i, p in ipairs(m:parameters()) do
    local n = p:nElement()
    p:copy(torch.range(1, n):mul(0.7 * i):add(k):sin():view(p:size()))
  end
  for i, b in ipairs(optim.swa.buffers(m)) do b:copy(torch.range(1, b:nElement()):mul(0.3 * i + k):cos():add(1.5)) end
  return m
end
local function snapshot(m, buffers)
  local list = {}
  for _, p in ipairs(m:parameters()) do list[#list + 1] = p:clone() end
  if buffers then for _, b in ipairs(optim.swa.buffers(m)) do list[#list + 1] = b:clone() end end
  return list
end

function tests.swaIsTheMean()
  local m = set(model(), 0)
  local avg = optim.AveragedModel(m)
  tester:eq(avg.nAveraged, 0)
  local seen = {}
  for k = 1, 5 do
    set(m, k)
    seen[k] = snapshot(m)
    avg:updateParameters(m)
  end
  tester:eq(avg.nAveraged, 5)
  local mine = avg.module:parameters()
  for i = 1, #mine do
    local sum = seen[1][i]:clone()
    for k = 2, 5 do sum:add(seen[k][i]) end
    tester:assertTensorEq(mine[i], sum:div(5), 1e-6, 'parameter ' .. i .. ' is the mean of 5 models')
  end
  -- buffers are not averaged but follow the model (PyTorch 2)
  local bm, bs = optim.swa.buffers(avg.module), optim.swa.buffers(m)
  tester:eq(#bm, 2)
  for i = 1, #bm do tester:assertTensorEq(bm[i], bs[i], 0, 'buffer ' .. i .. ' copied') end
  -- the averaged model forwards like the copy
  local x = torch.randn(6, 3)
  avg:evaluate()
  avg.module:evaluate()
  tester:assertTensorEq(avg:forward(x), avg.module:forward(x):clone(), 0)
  tester:assert(not rawequal(avg.module, m) and torch.pointer(avg.module:parameters()[1]) ~= torch.pointer(m:parameters()[1]),
                'a copy, not the model')
end

function tests.emaAndBuffers()
  local d = 0.8
  for _, mode in ipairs({ 'decay', 'avgFn', 'multiAvgFn' }) do
    local m = set(model(), 0)
    local opts = { useBuffers = true }
    if mode == 'decay' then opts.decay = d
    elseif mode == 'avgFn' then opts.avgFn = optim.swa.emaAvgFn(d)
    else opts.multiAvgFn = optim.swa.emaMultiAvgFn(d) end
    local avg = optim.AveragedModel(m, opts)
    local expect
    for k = 1, 4 do
      set(m, k)
      local s = snapshot(m, true)
      if not expect then expect = s
      else for i = 1, #s do expect[i] = expect[i] * d + s[i] * (1 - d) end end
      avg:updateParameters(m)
    end
    local got = snapshot(avg.module, true)
    tester:eq(#got, #expect)
    tester:eq(#got, 6 + 2)
    for i = 1, #got do tester:assertTensorEq(got[i], expect[i], 1e-6, mode .. ': tensor ' .. i .. ' is the EMA') end
  end
  -- useBuffers with the equal average: the buffers are means too
  local m = set(model(), 0)
  local avg = optim.AveragedModel(m, { useBuffers = true })
  local sum
  for k = 1, 3 do
    set(m, k)
    local b = optim.swa.buffers(m)[2]:clone()
    sum = sum and sum:add(b) or b
    avg:updateParameters(m)
  end
  tester:assertTensorEq(optim.swa.buffers(avg.module)[2], sum:div(3), 1e-6, 'running_var averaged')
end

function tests.customAvgFnGetsTheCount()
  local m = nn.Linear(2, 2)
  local counts = {}
  local avg = optim.AveragedModel(m, { avgFn = function(a, p, n)
    counts[#counts + 1] = n
    return a + p
  end })
  local w0 = m.weight:clone()
  for _ = 1, 3 do avg:updateParameters(m) end
  -- first update copies; later ones call avgFn once per parameter with the count so far
  tester:eq(counts, { 1, 1, 2, 2 })
  tester:assertTensorEq(avg.module.weight, w0 * 3, 1e-6)
end

-- Batch norms of a 2-layer model, after updateBn over an array of {input, target} batches, against
-- the plain average of each batch's mean and unbiased variance computed from the activations.
function tests.updateBnIsTheBatchAverage()
  local m = nn.Sequential():add(nn.Linear(3, 4)):add(nn.BatchNormalization(4, 1e-5, 0.3)):add(nn.Tanh())
    :add(nn.Linear(4, 2)):add(nn.BatchNormalization(2))
  m:evaluate()
  m.modules[1]:training()  -- a mixed mode that must come back as it was
  local batches, xs = {}, {}
  for k = 1, 5 do
    xs[k] = torch.randn(8, 3):mul(2):add(k)
    batches[k] = { xs[k], torch.zeros(8) }
  end
  optim.swa.updateBn(batches, m)
  local bn1, bn2 = m.modules[2], m.modules[5]
  local pre1 = {}
  for k = 1, 5 do pre1[k] = m.modules[1]:forward(xs[k]):clone() end
  local mean, var = torch.zeros(4), torch.zeros(4)
  for k = 1, 5 do
    mean:add(pre1[k]:mean(1):view(4))
    var:add(pre1[k]:var(1):view(4))
  end
  tester:assertTensorEq(bn1.running_mean, mean:div(5), 1e-5, 'running mean = average of batch means')
  tester:assertTensorEq(bn1.running_var, var:div(5), 1e-5, 'running var = average of unbiased batch variances')
  -- equal batches: the mean of batch means is the mean over all the data
  tester:assertTensorEq(bn1.running_mean, torch.cat(pre1, 1):mean(1):view(4), 1e-5)
  tester:eq(bn1.momentum, 0.3)
  tester:eq(bn2.momentum, 0.1)
  tester:eq(m.train, false)
  tester:eq(m.modules[1].train, true)
  tester:eq(bn1.train, false)
  tester:eq(rawget(bn1, 'updateOutput'), nil, 'the pass leaves no instance method behind')
  -- the second layer saw the first layer normalized with the statistics of training mode
  local mean2 = torch.zeros(2)
  m:training()
  bn1.momentum = 0
  for k = 1, 5 do
    local h = m.modules[3]:forward(bn1:forward(pre1[k]))
    mean2:add(m.modules[4]:forward(h):mean(1):view(2))
  end
  tester:assertTensorEq(bn2.running_mean, mean2:div(5), 1e-5)
end

function tests.updateBnLoaders()
  local x = torch.randn(12, 2)
  local mean = torch.zeros(2)
  for j = 1, 3 do mean:add(x:narrow(1, 4 * j - 3, 4):mean(1):view(2)) end
  mean:div(3)
  -- a data.DataLoader of {input=, target=} batches, in order
  local bn = nn.BatchNormalization(2)
  optim.swa.updateBn(data.DataLoader(data.TensorDataset(x, torch.zeros(12)), { batchSize = 4 }), bn)
  tester:assertTensorEq(bn.running_mean, mean, 1e-5, 'DataLoader')
  -- an iterator function of tensors: three batches of 4
  bn = nn.BatchNormalization(2)
  local k = 0
  optim.swa.updateBn(function()
    k = k + 1
    if k <= 3 then return x:narrow(1, 4 * k - 3, 4) end
  end, bn)
  tester:assertTensorEq(bn.running_mean, mean, 1e-5, 'iterator')
  -- a model without batch norm is left alone
  local lin = nn.Linear(2, 2)
  tester:assert(rawequal(optim.swa.updateBn({ x }, lin), lin))
end

function tests.errors()
  local function fails(pattern, fn)
    local ok, err = pcall(fn)
    tester:assert(not ok and tostring(err):find(pattern, 1, true) ~= nil, 'expected ' .. pattern .. ', got ' .. tostring(err))
  end
  fails('[optim.AveragedModel] expected a module', function() optim.AveragedModel(3) end)
  fails('[optim.AveragedModel] unknown option decy', function() optim.AveragedModel(nn.Linear(2, 2), { decy = 0.9 }) end)
  fails('at most one of', function() optim.AveragedModel(nn.Linear(2, 2), { decay = 0.9, avgFn = print }) end)
  fails('decay must be in [0, 1]', function() optim.AveragedModel(nn.Linear(2, 2), { decay = 2 }) end)
  local avg = optim.AveragedModel(nn.Linear(2, 2))
  fails('[optim.AveragedModel.updateParameters] parameters 1 is', function() avg:updateParameters(nn.Linear(3, 2)) end)
  fails('[optim.AveragedModel.updateParameters] the model has 1 parameters', function() avg:updateParameters(nn.Linear(2, 2, false)) end)
  fails('[optim.AveragedModel.updateParameters] expected the model', function() avg:updateParameters('x') end)
  fails('[optim.swa.emaAvgFn] decay must be', function() optim.swa.emaAvgFn(-1) end)
  fails('[optim.swa.updateBn] loader must be', function() optim.swa.updateBn(42, nn.BatchNormalization(2)) end)
  fails('[optim.swa.updateBn] batch 1 is', function() optim.swa.updateBn({ 'x' }, nn.BatchNormalization(2)) end)
  fails('[optim.lr.SWALR] options.swaLr is required', function() optim.lr.SWALR({ learningRate = 1 }, {}) end)
  fails("annealStrategy must be 'cos' or 'linear'", function() optim.lr.SWALR({ learningRate = 1 }, { swaLr = 1, annealStrategy = 'x' }) end)
  fails('annealEpochs must be a non-negative integer', function() optim.lr.SWALR({ learningRate = 1 }, { swaLr = 1, annealEpochs = 1.5 }) end)
  fails("unknown option 'swalr'", function() optim.lr.SWALR({ learningRate = 1 }, { swaLr = 1, swalr = 1 }) end)
  -- a failing pass restores the batch norm's momentum
  local bn = nn.BatchNormalization(2)
  fails('[optim.swa.updateBn] batch 2 is', function() optim.swa.updateBn({ torch.randn(3, 2), 'x' }, bn) end)
  tester:eq(bn.momentum, 0.1)
  tester:eq(rawget(bn, 'updateOutput'), nil)
end

-- Rates an optimizer object and a config table get from the same SWALR, step by step.
local function trace(opts, n, pre)
  local p, q = torch.DoubleTensor({ 0 }), torch.DoubleTensor({ 0 })
  local opt = optim.SGD({ { params = { p } }, { params = { q }, lr = opts.lr2 or 0.1 } }, { lr = 0.1 })
  local config = { learningRate = 0.1 }
  local so, sc = pre and pre(opt), pre and pre(config)
  local s = { optim.lr.SWALR(opt, opts.swa), optim.lr.SWALR(config, opts.swa) }
  local a, b = { { opt.paramGroups[1].lr, opt.paramGroups[2].lr } }, { config.learningRate }
  for k = 1, n do
    if so and k <= 4 then so:step() sc:step() else s[1]:step() s[2]:step() end
    a[#a + 1] = { opt.paramGroups[1].lr, opt.paramGroups[2].lr }
    b[#b + 1] = config.learningRate
  end
  return a, b
end

-- /usr/bin/python3, torch 1.13: SGD(lr=0.1) (a second group with lr 0.5 in 'groups'), SWALR, the
-- rates at construction and after each step ('handover': CosineAnnealingLR(T_max=10) steps 4
-- times, then SWALR, both made at the start).
function tests.swalrMatchesPyTorch()
  local cases = {
    { { swaLr = 0.05, annealEpochs = 3 }, { 0.1, 0.08750000000000001, 0.06250000000000001, 0.05, 0.05, 0.05, 0.05 } },
    { { swaLr = 0.01, annealEpochs = 4, annealStrategy = 'linear' },
      { 0.1, 0.07750000000000001, 0.05500000000000001, 0.0325, 0.01, 0.01, 0.01 } },
    { { swaLr = 0.03, annealEpochs = 0 }, { 0.03, 0.03, 0.03, 0.03 } },
  }
  for c, case in ipairs(cases) do
    local a, b = trace({ swa = case[1] }, #case[2] - 1)
    for i, v in ipairs(case[2]) do
      tester:assertalmosteq(a[i][1], v, 1e-15, 'case ' .. c .. ' object step ' .. (i - 1))
      tester:assertalmosteq(b[i], v, 1e-15, 'case ' .. c .. ' config step ' .. (i - 1))
    end
  end
  local groups = { { 0.1, 0.5 }, { 0.075, 0.35 }, { 0.05, 0.2 }, { 0.05, 0.2 }, { 0.05, 0.2 } }
  local a = trace({ swa = { swaLr = { 0.05, 0.2 }, annealEpochs = 2 }, lr2 = 0.5 }, 4)
  for i, v in ipairs(groups) do
    tester:assertalmosteq(a[i][1], v[1], 1e-15, 'group 1 step ' .. (i - 1))
    tester:assertalmosteq(a[i][2], v[2], 1e-15, 'group 2 step ' .. (i - 1))
  end
  local hand = { 0.1, 0.09755282581475769, 0.09045084971874738, 0.07938926261462367, 0.06545084971874739,
                 0.05408813728906054, 0.03136271242968685, 0.02, 0.02, 0.02 }
  local ho, hc = trace({ swa = { swaLr = 0.02, annealEpochs = 3 } }, 9,
                       function(t) return optim.lr.CosineAnnealingLR(t, { tMax = 10 }) end)
  for i, v in ipairs(hand) do
    tester:assertalmosteq(ho[i][1], v, 1e-15, 'handover object step ' .. (i - 1))
    tester:assertalmosteq(hc[i], v, 1e-15, 'handover config step ' .. (i - 1))
  end
end

function tests.swalrStateAndClosedForm()
  local c = { learningRate = 0.1 }
  local s = optim.lr.SWALR(c, { swaLr = 0.05, annealEpochs = 3 })
  s:step()
  local st = s:state()
  s:step()
  local after2 = c.learningRate
  local c2 = { learningRate = 0.1 }
  local s2 = optim.lr.SWALR(c2, { swaLr = 0.05, annealEpochs = 3 })
  s2:loadState(st)
  tester:eq(c2.learningRate, 0.08750000000000001, 'loadState restores the last rate')
  s2:loadState(st)
  tester:eq(c2.learningRate, 0.08750000000000001, 'and is idempotent')
  s2:step()
  tester:assertalmosteq(c2.learningRate, after2, 1e-15)
  -- closed form of the ramp from the rate at construction
  for e = 0, 5 do
    local t = math.min(1, e / 3)
    tester:assertalmosteq(s:lrAt(e, 1), 0.05 * (1 - math.cos(math.pi * t)) / 2 + 0.1 * (1 + math.cos(math.pi * t)) / 2, 1e-15)
  end
end

function tests.serialization()
  local m = set(model(), 1)
  local avg = optim.AveragedModel(m, { decay = 0.5 })
  avg:updateParameters(m)
  set(m, 2)
  avg:updateParameters(m)
  local f = os.tmpname()
  torch.save(f, avg)
  local back = torch.load(f)
  os.remove(f)
  tester:eq(torch.typename(back), 'optim.AveragedModel')
  tester:eq(back.nAveraged, 2)
  set(m, 3)
  avg:updateParameters(m)
  back:updateParameters(m)
  local a, b = avg.module:parameters(), back.module:parameters()
  for i = 1, #a do tester:assertTensorEq(a[i], b[i], 0) end
end

function tests.cudaMatchesCpu()
  if not torch.cuda.isAvailable() then return end
  local m = set(model(), 0)
  local cpu = optim.AveragedModel(m, { useBuffers = true })
  local gpu = optim.AveragedModel(m, { useBuffers = true }):cuda()
  local mg = m:clone():cuda()
  for k = 1, 3 do
    set(m, k)
    set(mg, k)
    cpu:updateParameters(m)
    gpu:updateParameters(k == 2 and m or mg)  -- a CPU model averaged into a CUDA copy too
  end
  local a, b = snapshot(cpu.module, true), snapshot(gpu.module, true)
  for i = 1, #a do
    tester:assert(b[i]:isCuda(), 'the average stays on the GPU')
    tester:assertTensorEq(b[i]:float(), a[i], 1e-5)
  end
  local xs = { torch.randn(8, 3), torch.randn(8, 3) }
  optim.swa.updateBn(xs, cpu.module)
  optim.swa.updateBn(xs, gpu.module, { device = 'cuda' })
  local bc, bg = optim.swa.buffers(cpu.module), optim.swa.buffers(gpu.module)
  for i = 1, #bc do tester:assertTensorEq(bg[i]:float(), bc[i], 1e-4) end
end

tester:add(tests):run()
