-- nn.Trainer's checkpoints and gradient accumulation: a run of 4 epochs equals 2 epochs + save +
-- resume into fresh objects + 2 more, value for value in double (SGD with momentum and StepLR,
-- Adam with a per-step OneCycleLR, Torch7's functional optim.sgd, seeded and unseeded shuffles,
-- dropout); fit's initialEpoch and Lightning's total-epochs rule; k accumulated batches of b
-- against one batch of k*b (mean and sum reductions, a partial last group, functional form);
-- ReduceLROnPlateau per epoch; and the errors for mismatched or corrupt states.
require 'nn'
require 'optim'
local data = require 'data'
local tester = torch.Tester()
local tests = torch.TestSuite()

local tmp = (os.getenv('TOCHA_TEST_TMP') or '/tmp') .. '/trainer_resume'
os.execute('rm -rf "' .. tmp .. '" && mkdir -p "' .. tmp .. '"')

local function raises(fn, patterns, msg)
  local ok, err = pcall(fn)
  tester:assert(not ok, (msg or patterns[1]) .. ': no error')
  if ok then return end
  for _, p in ipairs(patterns) do
    tester:assert(tostring(err):find(p, 1, true) ~= nil, 'expected "' .. p .. '" in: ' .. tostring(err))
  end
end

local function with_double(f)
  local old = torch.getdefaulttensortype()
  torch.setdefaulttensortype('torch.DoubleTensor')
  local ok, err = pcall(f)
  torch.setdefaulttensortype(old)
  if not ok then error(err, 0) end
end

-- Largest absolute difference between two tables of tensors with the same keys (nil: keys differ).
local function max_diff(a, b)
  local m = 0
  for k, t in pairs(a) do
    if not torch.isTensor(b[k]) or not t:isSameSizeAs(b[k]) then return nil end
    if t:nElement() > 0 then
      local d = (t:detach():double() - b[k]:detach():double()):abs():max()
      m = math.max(m, torch.isTensor(d) and d:item() or d)  -- a parameter's max is a tensor
    end
  end
  for k in pairs(b) do if a[k] == nil then return nil end end
  return m
end

local function assert_same_history(h1, h2, what)
  for k, list in pairs(h1) do
    tester:assert(type(h2[k]) == 'table', what .. ': history lacks ' .. k)
    if type(h2[k]) == 'table' then
      tester:asserteq(#h2[k], #list, what .. ': rows of ' .. k)
      for i, v in ipairs(list) do tester:asserteq(h2[k][i], v, what .. ': ' .. k .. '[' .. i .. ']') end
    end
  end
  for k in pairs(h2) do tester:assert(h1[k] ~= nil, what .. ': extra history ' .. k) end
end

-- The optimizer objects' states (momentum buffers, Adam moments and step counts), exactly.
local function assert_same_optimizer(o1, o2, what)
  if o1.method then  -- Torch7's functional form: the momentum buffer, the counter, the scheduled rate
    tester:asserteq(max_diff({ o1.state.dfdx }, { o2.state.dfdx }), 0, what .. ': the momentum buffer')
    tester:asserteq(o2.state.evalCounter, o1.state.evalCounter, what)
    tester:asserteq(o2.config.learningRate, o1.config.learningRate, what .. ': the schedule drives the config')
    return
  end
  local s1, s2 = o1:state(), o2:state()
  tester:asserteq(#s1.paramGroups, #s2.paramGroups, what)
  for gi, g in ipairs(s1.paramGroups) do
    for k, v in pairs(g) do
      if type(v) == 'number' then tester:asserteq(s2.paramGroups[gi][k], v, what .. ': group option ' .. k) end
    end
  end
  for i, st in pairs(s1.state) do
    for k, v in pairs(st) do
      if torch.isTensor(v) then tester:asserteq(max_diff({ v }, { s2.state[i][k] }), 0, what .. ': state ' .. k)
      else tester:asserteq(s2.state[i][k], v, what .. ': state ' .. k) end
    end
  end
end

-- A dataset drawn from its own seed, leaving the global generator as it was (the runs compared
-- build their loaders at different points of the random stream).
local function dataset(n, seed)
  local saved = torch.getRNGState()
  torch.manualSeed(seed or 5)
  local x = torch.randn(n, 3)
  local y = x:select(2, 1):add(x:select(2, 2)):gt(0):long():add(1)
  torch.setRNGState(saved)
  return data.TensorDataset(x, y)
end

local function classifier()
  return nn.Sequential():add(nn.Linear(3, 6)):add(nn.Tanh()):add(nn.Dropout(0.3)):add(nn.Linear(6, 2))
    :add(nn.LogSoftMax())
end

-- The runs compared below: make() builds model, optimizer, schedule and trainer with the RNG as
-- the first run left it; loader() a fresh training loader.
local setups = {
  sgdMomentumStepLR = {
    make = function()
      local m = classifier()
      local o = optim.SGD(m, { lr = 0.2, momentum = 0.9 })
      return m, o, nn.Trainer(m, nn.ClassNLLCriterion(), o, { scheduler = optim.lr.StepLR(o, { stepSize = 1, gamma = 0.7 }) })
    end,
    loader = function() return data.DataLoader(dataset(40), { batchSize = 8, shuffle = true, seed = 11 }) end,
    fit = function() return { metrics = { 'accuracy' }, validation = data.DataLoader(dataset(12, 9), { batchSize = 5 }) } end,
  },
  adamOneCycleUnseededShuffle = {
    make = function()
      local m = classifier()
      local o = optim.Adam(m, { lr = 0.01 })
      local s = optim.lr.OneCycleLR(o, { maxLr = 0.05, totalSteps = 4 * 5 })
      return m, o, nn.Trainer(m, nn.ClassNLLCriterion(), o, { scheduler = s, schedulerInterval = 'step' })
    end,
    loader = function() return data.DataLoader(dataset(40), { batchSize = 8, shuffle = true }) end,
    fit = function() return { metrics = { 'accuracy', 'f1' } } end,
  },
  adamOneCycleAccumulated = {
    make = function()
      local m = classifier()
      local o = optim.Adam(m, { lr = 0.01 })
      local s = optim.lr.OneCycleLR(o, { maxLr = 0.05, totalSteps = 4 * 3 })  -- 5 batches in groups of 2
      return m, o, nn.Trainer(m, nn.ClassNLLCriterion(), o, { scheduler = s, schedulerInterval = 'step' })
    end,
    loader = function() return data.DataLoader(dataset(40), { batchSize = 8, shuffle = true, seed = 3 }) end,
    fit = function() return { accumulate = 2 } end,
  },
  functionalSgdStepLR = {  -- Torch7's form, a schedule over its config table
    make = function()
      local m = classifier()
      local o = { method = optim.sgd, config = { learningRate = 0.2, momentum = 0.9 } }
      return m, o, nn.Trainer(m, nn.ClassNLLCriterion(), o, { scheduler = optim.lr.StepLR(o.config, { stepSize = 2, gamma = 0.5 }) })
    end,
    loader = function() return data.DataLoader(dataset(40), { batchSize = 8, shuffle = true }) end,
    fit = function() return {} end,
  },
}

local function fit_opts(setup, epochs, extra)
  local o = { epochs = epochs, verbose = false }
  for k, v in pairs(setup.fit()) do o[k] = v end
  for k, v in pairs(extra or {}) do o[k] = v end
  return o
end

function tests.resumeEqualsAnUninterruptedRun()
  with_double(function()
    for name, setup in pairs(setups) do
      torch.manualSeed(1)
      local m1, o1, t1 = setup.make()
      local h1 = t1:fit(setup.loader(), fit_opts(setup, 4))
      tester:assertTableEq(h1.epoch, { 1, 2, 3, 4 }, name)
      local after1 = torch.rand(5)

      torch.manualSeed(1)
      local _, _, t2 = setup.make()
      t2:fit(setup.loader(), fit_opts(setup, 2))
      local path = tmp .. '/' .. name .. '.t7'
      t2:save(path)
      -- fresh objects, built from another seed: everything comes from the file
      torch.manualSeed(77)
      local m3, o3, t3 = setup.make()
      tester:asserteq(t3:resume(path), t3, name .. ': resume returns the trainer')
      tester:asserteq(t3.globalStep, t2.globalStep, name)
      tester:asserteq(#t3.history.epoch, 2, name .. ': the history is restored')
      local h3 = t3:fit(setup.loader(), fit_opts(setup, 4))
      tester:assertTableEq(h3.epoch, { 1, 2, 3, 4 }, name .. ': Lightning semantics, epochs 3 and 4 ran')
      tester:asserteq(max_diff(m1:stateDict(), m3:stateDict()), 0, name .. ': parameters value for value')
      assert_same_optimizer(o1, o3, name)
      assert_same_history(h1, h3, name)
      tester:asserteq(t3.globalStep, t1.globalStep, name .. ': globalStep')
      tester:asserteq(t3.scheduler.lastEpoch, t1.scheduler.lastEpoch, name .. ': the schedule')
      tester:asserteq(t3.epochsDone, 4, name)
      tester:asserteq(max_diff({ after1 }, { torch.rand(5) }), 0, name .. ': the random stream goes on as after run 1')
    end
  end)
end

-- A checkpoint written by a callback at the end of epoch 2 of a 4-epoch run resumes to the same end.
function tests.checkpointFromOnEpochEnd()
  with_double(function()
    local setup = setups.sgdMomentumStepLR
    local path = tmp .. '/epoch%d.t7'
    local saver = { onEpochEnd = function(_, trainer, epoch) trainer:save(path:format(epoch)) end }
    torch.manualSeed(1)
    local m1, o1, t1 = setup.make()
    local h1 = t1:fit(setup.loader(), fit_opts(setup, 4, { callbacks = { saver } }))
    local m3, o3, t3 = setup.make()
    t3:resume(path:format(2))
    tester:asserteq(t3:stateDict().epoch, 2)
    local h3 = t3:fit(setup.loader(), fit_opts(setup, 4))
    tester:asserteq(max_diff(m1:stateDict(), m3:stateDict()), 0, 'parameters')
    assert_same_optimizer(o1, o3, 'optimizer')
    assert_same_history(h1, h3, 'history')
  end)
end

-- fit's epochs is the total (Lightning, Keras): a resumed fit past its end runs nothing, an
-- explicit initialEpoch starts there, and the resume applies to one fit only.
function tests.initialEpochAndTotalEpochs()
  with_double(function()
    local setup = setups.sgdMomentumStepLR
    torch.manualSeed(1)
    local _, _, t = setup.make()
    t:fit(setup.loader(), fit_opts(setup, 3))
    local sd = t:stateDict()
    local ran = {}
    local counter = { onEpochBegin = function(_, _, epoch) ran[#ran + 1] = epoch end }
    local _, _, t2 = setup.make()
    t2:loadStateDict(sd)
    local h = t2:fit(setup.loader(), fit_opts(setup, 3, { callbacks = { counter } }))
    tester:asserteq(#ran, 0, 'a resumed fit at its last epoch runs nothing')
    tester:assertTableEq(h.epoch, { 1, 2, 3 })
    -- the resume was used: the next fit starts a new run, as fit always did
    h = t2:fit(setup.loader(), fit_opts(setup, 1, { callbacks = { counter } }))
    tester:assertTableEq(ran, { 1 })
    tester:assertTableEq(h.epoch, { 1 })
    -- initialEpoch on a trainer whose history runs further keeps the rows up to it
    t2:loadStateDict(sd)
    ran = {}
    h = t2:fit(setup.loader(), fit_opts(setup, 4, { initialEpoch = 1, callbacks = { counter } }))
    tester:assertTableEq(ran, { 2, 3, 4 })
    tester:assertTableEq(h.epoch, { 1, 2, 3, 4 })
    tester:asserteq(h.loss[1], sd.history.loss[1])
    tester:asserteq(#h.accuracy, 4)
    -- on a new trainer, initialEpoch starts the epoch numbers there
    local _, _, t4 = setup.make()
    ran = {}
    h = t4:fit(setup.loader(), fit_opts(setup, 5, { initialEpoch = 3, callbacks = { counter } }))
    tester:assertTableEq(ran, { 4, 5 })
    tester:assertTableEq(h.epoch, { 4, 5 })
    raises(function() t4:fit(setup.loader(), { epochs = 2, initialEpoch = -1, verbose = false }) end,
           { '[Trainer]', 'initialEpoch must be an integer >= 0, got -1' })
    raises(function() t4:fit(setup.loader(), { epochs = 2, initialEpoch = 1.5, verbose = false }) end,
           { '[Trainer]', 'initialEpoch', '1.5' })
  end)
end

-- ---- gradient accumulation ----------------------------------------------------------------------

local function regression(n)
  torch.manualSeed(8)
  local x = torch.randn(n, 4)
  local y = x * torch.randn(4, 2) + torch.randn(n, 2) * 0.1
  return x, y
end

local function regressor()
  torch.manualSeed(9)
  return nn.Sequential():add(nn.Linear(4, 5)):add(nn.Tanh()):add(nn.Linear(5, 2))
end

-- k batches of b (22 samples: groups of 3 batches of 2, the last group 2 batches) against batches
-- of k*b (the last one 4 samples), two epochs without shuffling.
local function accumulation_pair(make_opt, crit)
  local x, y = regression(22)
  local results = {}
  for i, cfg in ipairs({ { batchSize = 2, accumulate = 3 }, { batchSize = 6, accumulate = 1 } }) do
    local m = regressor()
    local o, sched = make_opt(m)
    local t = nn.Trainer(m, crit(), o, sched and { scheduler = sched, schedulerInterval = 'step' } or nil)
    local h = t:fit(data.DataLoader(data.TensorDataset(x, y), { batchSize = cfg.batchSize }),
                    { epochs = 2, verbose = false, accumulate = cfg.accumulate })
    results[i] = { model = m, history = h, trainer = t, opt = o }
  end
  return results[1], results[2]
end

function tests.accumulationEqualsABigBatch()
  with_double(function()
    local cases = {
      sgdMomentumOneCycle = function(m)
        local o = optim.SGD(m, { lr = 0.05, momentum = 0.9 })
        return o, optim.lr.OneCycleLR(o, { maxLr = 0.1, totalSteps = 8 })
      end,
      adam = function(m) return optim.Adam(m, { lr = 0.02 }) end,
      functionalSgd = function() return { method = optim.sgd, config = { learningRate = 0.05, momentum = 0.9 } } end,
    }
    for name, make_opt in pairs(cases) do
      for _, crit in ipairs({ function() return nn.MSECriterion() end,
                              function() return nn.MSECriterion(false) end }) do
        local what = name .. (crit().sizeAverage == false and ' (sum)' or ' (mean)')
        local a, b = accumulation_pair(make_opt, crit)
        local d = max_diff(a.model:stateDict(), b.model:stateDict())
        tester:assert(d ~= nil and d < 1e-12, what .. ': parameters differ by ' .. tostring(d))
        tester:asserteq(a.trainer.globalStep, 8, what .. ': 4 optimizer steps per epoch')
        tester:asserteq(b.trainer.globalStep, 8, what)
        for e = 1, 2 do
          tester:assertalmosteq(a.history.loss[e], b.history.loss[e], 1e-12, what .. ': epoch loss')
        end
        local moved = max_diff(a.model:stateDict(), regressor():stateDict())
        tester:assert(moved > 1e-3, what .. ': the model trained')
      end
    end
  end)
end

-- The alias, and a stop inside a group leaving that group unstepped.
function tests.accumulationOptions()
  with_double(function()
    local a = accumulation_pair(function(m) return optim.SGD(m, { lr = 0.05 }) end,
                                   function() return nn.MSECriterion() end)
    local x, y = regression(22)
    local m = regressor()
    local t = nn.Trainer(m, nn.MSECriterion(), optim.SGD(m, { lr = 0.05 }))
    t:fit(data.DataLoader(data.TensorDataset(x, y), { batchSize = 2 }), { epochs = 2, verbose = false, accumulateGradBatches = 3 })
    tester:asserteq(max_diff(m:stateDict(), a.model:stateDict()), 0, 'accumulateGradBatches is accumulate')
    tester:asserteq(t.accumulate, 3)
    local m2 = regressor()
    local before = m2:stateDict()
    for k, v in pairs(before) do before[k] = v:clone() end
    local t2 = nn.Trainer(m2, nn.MSECriterion(), optim.SGD(m2, { lr = 0.05 }))
    local stopper = { onBatchEnd = function(_, tr, batch) if batch == 2 then tr.stopTraining = true end end }
    t2:fit(data.DataLoader(data.TensorDataset(x, y), { batchSize = 2 }),
      { epochs = 1, verbose = false, accumulate = 3, callbacks = { stopper } })
    tester:asserteq(t2.globalStep, 0, 'a stop inside a group does not step')
    tester:asserteq(max_diff(m2:stateDict(), before), 0)
    local bad = { 0, 1.5, 'x', -2, math.huge }
    for _, v in ipairs(bad) do
      raises(function() t2:fit({ x, y }, { accumulate = v, verbose = false }) end,
             { '[Trainer]', 'accumulate must be an integer >= 1, got ' .. tostring(v) })
    end
    raises(function() t2:fit({ x, y }, { accumulate = 2, accumulateGradBatches = 3, verbose = false }) end,
           { '[Trainer]', 'accumulate and accumulateGradBatches', '2 and 3' })
    -- a functional method that evaluates twice cannot take accumulated gradients
    local t3 = nn.Trainer(regressor(), nn.MSECriterion(), { method = optim.lbfgs, config = { maxIter = 3 } })
    raises(function() t3:fit({ x, y }, { accumulate = 2, batchSize = 4, verbose = false }) end,
           { '[Trainer]', 'accumulate = 2', 'evaluated it again' })
    -- accumulate = 1 is the plain loop
    local c1 = regressor()
    nn.Trainer(c1, nn.MSECriterion(), optim.SGD(c1, { lr = 0.05 })):fit({ x, y }, { batchSize = 4, verbose = false })
    local c2 = regressor()
    nn.Trainer(c2, nn.MSECriterion(), optim.SGD(c2, { lr = 0.05 })):fit({ x, y }, { batchSize = 4, accumulate = 1, verbose = false })
    tester:asserteq(max_diff(c1:stateDict(), c2:stateDict()), 0)
  end)
end

-- ---- schedules -------------------------------------------------------------------------------------

-- A trainer over a fresh regressor with an SGD and the schedule make(opt) returns.
local function scheduled(make, opts)
  local m = regressor()
  local o = optim.SGD(m, { lr = 0.1 })
  opts = opts or {}
  opts.scheduler = make(o)
  return nn.Trainer(m, nn.MSECriterion(), o, opts), o
end

function tests.scheduleIntervals()
  with_double(function()
    local x, y = regression(20)
    local halving = function(o) return optim.lr.StepLR(o, { stepSize = 1, gamma = 0.5 }) end
    -- per epoch: StepLR halves after each epoch; history.lr is the rate each epoch trained with
    local t = scheduled(halving)
    local h = t:fit({ x, y }, { epochs = 3, batchSize = 5, verbose = false })
    tester:assertTableEq(h.lr, { 0.1, 0.05, 0.025 })
    tester:asserteq(t.scheduler.lastEpoch, 3)
    -- per step: once per optimizer step (4 batches, accumulate 2: 2 steps per epoch)
    t = scheduled(halving, { schedulerInterval = 'step' })
    t:fit({ x, y }, { epochs = 2, batchSize = 5, accumulate = 2, verbose = false })
    tester:asserteq(t.scheduler.lastEpoch, 4)
    tester:asserteq(t.globalStep, 4)
    -- ReduceLROnPlateau reads the monitored log: in 'max' mode a falling loss is a plateau
    local plateau = function(o) return optim.lr.ReduceLROnPlateau(o, { mode = 'max', patience = 0, factor = 0.5 }) end
    t = scheduled(plateau, { schedulerMonitor = 'loss' })
    h = t:fit({ x, y }, { epochs = 3, batchSize = 5, verbose = false })
    tester:assertlt(h.loss[2], h.loss[1])
    tester:assertTableEq(h.lr, { 0.1, 0.1, 0.05 })
    -- resumed, its progress (best, bad epochs, reduced rate) comes back
    local t2, o2 = scheduled(plateau, { schedulerMonitor = 'loss' })
    t2:loadStateDict(t:stateDict())
    tester:asserteq(o2.paramGroups[1].lr, 0.025)
    tester:asserteq(t2.scheduler.best, t.scheduler.best)
    t = scheduled(plateau, { schedulerMonitor = 'val_acc' })
    raises(function() t:fit({ x, y }, { batchSize = 5, verbose = false }) end,
           { '[Trainer]', 'schedulerMonitor val_acc is not among the epoch logs (epoch, loss, lr)' })
  end)
end

-- ---- errors ------------------------------------------------------------------------------------------

function tests.constructorOptionsAreChecked()
  local m = nn.Linear(2, 1)
  local o = optim.SGD(m, { lr = 0.1 })
  raises(function() nn.Trainer(m, nn.MSECriterion(), o, { schedulerInterval = 'batch' }) end,
         { '[Trainer]', "schedulerInterval must be 'epoch' or 'step', got batch" })
  raises(function() nn.Trainer(m, nn.MSECriterion(), o, { scheduler = 5 }) end, { '[Trainer]', 'scheduler must be', 'got number' })
  raises(function() nn.Trainer(m, nn.MSECriterion(), o, { shedulr = 1 }) end, { '[Trainer]', 'unknown option shedulr' })
  raises(function() nn.Trainer(m, nn.MSECriterion(), o, 3) end, { '[Trainer]', 'options must be a table, got number' })
  raises(function()
    nn.Trainer(m, nn.MSECriterion(), o, { scheduler = optim.lr.ReduceLROnPlateau(o), schedulerInterval = 'step' })
  end, { '[Trainer]', 'ReduceLROnPlateau', "'epoch'" })
end

function tests.mismatchedStatesAreRefused()
  local function trainer(inputs, opt_kind, sched)
    local m = nn.Sequential():add(nn.Linear(inputs, 3)):add(nn.Linear(3, 1))
    local o
    if opt_kind == 'SGD' then o = optim.SGD(m, { lr = 0.1, momentum = 0.5 })
    elseif opt_kind == 'Adam' then o = optim.Adam(m, { lr = 0.1 })
    else o = { method = optim[opt_kind], config = { learningRate = 0.1 } } end
    local opts
    if sched == 'step' then opts = { scheduler = optim.lr.StepLR(o.config or o, { stepSize = 1 }) }
    elseif sched == 'exp' then opts = { scheduler = optim.lr.ExponentialLR(o.config or o, { gamma = 0.9 }) } end
    local t = nn.Trainer(m, nn.MSECriterion(), o, opts)
    t:fit({ torch.randn(6, inputs), torch.randn(6, 1) }, { batchSize = 3, verbose = false })
    return t
  end
  local sd = trainer(2, 'SGD', 'step'):stateDict()
  raises(function() trainer(4, 'SGD', 'step'):loadStateDict(sd) end,
         { '[Trainer] loadStateDict: the model does not match the saved one: [nn.Module.loadStateDict] 0.weight: size 3x2 in the state dict, 3x4 in the model' })
  raises(function() trainer(2, 'Adam', 'step'):loadStateDict(sd) end,
         { '[Trainer] loadStateDict', "the optimizer state is optim.SGD's, this trainer's optimizer is optim.Adam" })
  raises(function() trainer(2, 'SGD', 'exp'):loadStateDict(sd) end,
         { '[Trainer] loadStateDict', "the state's schedule is optim.lr.StepLR, this trainer's is optim.lr.ExponentialLR" })
  raises(function() trainer(2, 'SGD'):loadStateDict(sd) end,
         { '[Trainer] loadStateDict', 'the state has a schedule (optim.lr.StepLR), this trainer has none' })
  raises(function() trainer(2, 'SGD', 'step'):loadStateDict(trainer(2, 'SGD'):stateDict()) end,
         { '[Trainer] loadStateDict', "the state's schedule is none, this trainer's is optim.lr.StepLR" })
  local fsd = trainer(2, 'sgd'):stateDict()
  tester:asserteq(fsd.optimizer.type, 'optim.sgd')
  raises(function() trainer(2, 'adam'):loadStateDict(fsd) end,
         { '[Trainer] loadStateDict', "the optimizer state is optim.sgd's, this trainer's optimizer is optim.adam" })
  raises(function() trainer(2, 'SGD'):loadStateDict(fsd) end,
         { '[Trainer] loadStateDict', "the optimizer state is optim.sgd's, this trainer's optimizer is optim.SGD" })
  -- a state whose optimizer has another number of parameters, with the model matching
  local t = trainer(2, 'SGD')
  local sd2 = t:stateDict()
  sd2.optimizer.state.paramGroups[1].params = { 1, 2 }
  raises(function() trainer(2, 'SGD'):loadStateDict(sd2) end,
         { "[Trainer] loadStateDict: the optimizer's state does not fit", 'group 1 has 4 parameters, the saved one 2' })
  raises(function() t:loadStateDict(42) end, { '[Trainer] loadStateDict', 'got number' })
  raises(function() t:loadStateDict({ epoch = 1 }) end, { '[Trainer] loadStateDict', 'a table without format = nn.Trainer' })
  raises(function() t:loadStateDict(nn.Linear(2, 2)) end, { '[Trainer] loadStateDict', 'got nn.Linear' })
  local bad = t:stateDict()
  bad.epoch = -1
  raises(function() t:loadStateDict(bad) end, { '[Trainer] loadStateDict', 'epoch must be an integer >= 0, got -1' })
  bad = t:stateDict()
  bad.version = 99
  raises(function() t:loadStateDict(bad) end, { '[Trainer] loadStateDict', 'version 99' })
  bad = t:stateDict()
  bad.rng = nil
  raises(function() t:loadStateDict(bad) end, { '[Trainer] loadStateDict', 'rng.cpu' })
end

function tests.corruptFilesAreRefused()
  local m = nn.Linear(2, 1)
  local t = nn.Trainer(m, nn.MSECriterion(), optim.SGD(m, { lr = 0.1 }))
  t:fit({ torch.randn(6, 2), torch.randn(6, 1) }, { batchSize = 3, verbose = false })
  local good = tmp .. '/good.t7'
  t:save(good)
  local f = io.open(good, 'rb')
  local bytes = f:read('*a')
  f:close()
  local cut = tmp .. '/truncated.t7'
  f = io.open(cut, 'wb')
  f:write(bytes:sub(1, math.floor(#bytes / 2)))
  f:close()
  raises(function() t:resume(cut) end, { '[Trainer] resume: cannot read a trainer state from ' .. cut })
  local junk = tmp .. '/junk.t7'
  f = io.open(junk, 'wb')
  f:write('this is not a checkpoint at all')
  f:close()
  raises(function() t:resume(junk) end, { '[Trainer] resume: cannot read a trainer state from ' .. junk .. ': [load]' })
  raises(function() t:resume(tmp .. '/missing.t7') end, { '[Trainer] resume: cannot read', 'missing.t7' })
  local model_file = tmp .. '/model.t7'
  torch.save(model_file, m)
  raises(function() t:resume(model_file) end, { '[Trainer] resume', 'does not hold a trainer state', 'nn.Linear' })
  raises(function() t:resume(3) end, { '[Trainer] resume: expected a file name, got number' })
  raises(function() t:save({}) end, { '[Trainer] save: expected a file name, got table' })
  tester:asserteq(t:resume(good), t)
end

-- Trainers whose optimizer is another table (a stand-in with learningRate) or that have none.
function tests.otherOptimizerTables()
  local m = nn.Linear(2, 1)
  local params, grads = m:parameters()
  local opt = { learningRate = 0.3 }
  function opt:zeroGrad() for _, g in ipairs(grads) do g:zero() end end
  function opt:step() for i, p in ipairs(params) do p:add(-self.learningRate, grads[i]) end end
  local t = nn.Trainer(m, nn.MSECriterion(), opt)
  t:fit({ torch.randn(6, 2), torch.randn(6, 1) }, { batchSize = 3, verbose = false,
    callbacks = { nn.LearningRateScheduler(function(_, lr) return lr / 2 end) } })
  local sd = t:stateDict()
  tester:asserteq(sd.optimizer.fields.learningRate, 0.15)
  opt.learningRate = 1
  t:loadStateDict(sd)
  tester:asserteq(opt.learningRate, 0.15)
  tester:assert(type(opt.step) == 'function', 'functions are kept')
  -- evaluation only: no optimizer, the model loads
  local m2 = nn.Linear(2, 1)
  nn.Trainer(m2, nn.MSECriterion()):loadStateDict(sd)
  tester:asserteq(max_diff(m2:stateDict(), m:stateDict()), 0)
end

tester:add(tests)
tester:run()
