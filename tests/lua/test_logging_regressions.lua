-- Regressions found reviewing the logging tools: SummaryWriter (lua/torch/tensorboard*.lua)
-- against PyTorch 1.13's torch.utils.tensorboard (its own code run with hand-written protobuf
-- descriptors: event files compared message by message, images pixel by pixel), the
-- training-loop metrics and nn.Trainer (lua/nn/metrics.lua, Trainer.lua) and
-- torch.profiler.recordFunction (PyTorch's record_function). Event files are read back by
-- tests/lua/helpers/tfevents.lua, which shares no code with the writer.
require 'torch.tensorboard'
require 'nn'
local image = require 'data.image'
local R = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/tfevents.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()
local SummaryWriter = torch.utils.tensorboard.SummaryWriter
local decode, read_records, read_event = R.decode, R.read_records, R.read_event

local function shq(s) return "'" .. s:gsub("'", "'\\''") .. "'" end
local dirs = {}
local function tmpdir()
  local d = os.tmpname()
  os.remove(d)
  dirs[#dirs + 1] = d
  return d
end
-- The events of the one event file directly in dir.
local function events_of(dir)
  local p = io.popen('find ' .. shq(dir) .. ' -maxdepth 1 -type f -name "events.out.tfevents.*"')
  local files = {}
  for line in p:lines() do files[#files + 1] = line end
  p:close()
  tester:asserteq(#files, 1, 'one event file in ' .. dir)
  local evs = {}
  for _, r in ipairs(read_records(files[1])) do evs[#evs + 1] = read_event(r) end
  return evs, decode
end
local function png_pixels(e)
  local im = decode(e.value[4][1])
  return image.decode(im[4][1], { type = 'byte' })
end

-- ---- Images: PyTorch scales floating images as float32 -------------------------------------------

function tests.doubleImagesScaleAsFloat32()
  -- PyTorch 1.13's image(): tensor.astype(np.float32) * 255, then astype(uint8). A double image
  -- goes through float32, whose rounding can reach the next integer: pixels from PyTorch 1.13
  -- (add_image of these values as a float64 1 x 2 x 2 tensor): 204, 246, 255, 127 (scaled in
  -- doubles: 203, 246, 254, 127).
  local dir = tmpdir()
  local w = SummaryWriter(dir)
  local img = torch.DoubleTensor({ 0.79999999, 0.96862742, 1 - 1e-10, 0.5 }):view(1, 2, 2)
  w:addImage('near', img, 1)
  w:addImages('nearBatch', img:view(1, 1, 2, 2), 1)
  w:close()
  local evs = events_of(dir)
  local expected = torch.ByteTensor({ 204, 246, 255, 127 }):view(1, 2, 2):expand(3, 2, 2)
  tester:assertTensorEq(png_pixels(evs[2]), expected, 0, 'addImage')
  tester:assertTensorEq(png_pixels(evs[3]), expected, 0, 'addImages')
end

function tests.spriteStillScalesInDoubles()
  -- PyTorch 1.13's make_sprite multiplies the float64 grid by 255 (no float32 step): 0.79999999
  -- gives 203 there, and the padding of the square stays 0.
  local dir = tmpdir()
  local w = SummaryWriter(dir)
  local imgs = torch.DoubleTensor(2, 3, 1, 1):fill(0.79999999)
  w:addEmbedding(torch.DoubleTensor({ { 1 }, { 2 } }), { labelImg = imgs })
  w:close()
  local sprite = image.load(dir .. '/00000/default/sprite.png', { type = 'byte' })
  tester:assertTableEq(sprite:size():totable(), { 3, 2, 2 })
  tester:assertTensorEq(sprite[1], torch.ByteTensor({ { 203, 203 }, { 0, 0 } }), 0)
end

function tests.anyOrderOfDataformats()
  -- PyTorch's convert_to_HWC takes the letters in any order ('CWH', 'WHC', 'WH').
  local dir = tmpdir()
  local w = SummaryWriter(dir)
  local chw = torch.ByteTensor(3, 2, 4):random(0, 255)
  w:addImage('cwh', chw:transpose(2, 3):contiguous(), 1, { dataformats = 'CWH' })
  w:addImage('whc', chw:permute(3, 2, 1):contiguous(), 1, { dataformats = 'whc' })
  w:addImage('wh', chw[1]:t():contiguous(), 1, { dataformats = 'WH' })
  tester:assertErrorPattern(function() w:addImage('x', chw, 1, { dataformats = 'CHH' }) end,
    "addImage%] dataformats must be 'CHW', 'HWC' or 'HW' %(or another order of those letters%), got 'CHH'")
  tester:assertErrorPattern(function() w:addImage('x', chw, 1, { dataformats = 'HWCN' }) end, "got 'HWCN'")
  w:close()
  local evs = events_of(dir)
  tester:asserteq(#evs, 4)
  tester:assertTensorEq(png_pixels(evs[2]), chw, 0, 'CWH')
  tester:assertTensorEq(png_pixels(evs[3]), chw, 0, 'WHC')
  tester:assertTensorEq(png_pixels(evs[4]), chw[1]:view(1, 2, 4):expand(3, 2, 4), 0, 'WH')
  local im = decode(evs[4].value[4][1])
  tester:asserteq(im[1][1], 2, 'height')
  tester:asserteq(im[2][1], 4, 'width')
end

-- ---- purgeStep ------------------------------------------------------------------------------------------

function tests.purgeStep()
  -- PyTorch 1.13's SummaryWriter(purge_step = 5) writes, after the file_version record, an
  -- Event{step = 5, file_version = 'brain.Event:2'} and an Event{step = 5, session_log =
  -- SessionLog{status = START (1)}}; the runs of add_scalars and add_hparams get neither.
  local dir = tmpdir()
  local w = SummaryWriter(dir, { purgeStep = 5 })
  w:addScalar('a', 1, 6)
  w:addScalars('g', { x = 1 }, 6)
  w:addHparams({ lr = 0.1 }, { m = 1 }, { runName = 'hp' })
  w:close()
  local evs = events_of(dir)
  tester:asserteq(#evs, 4)
  tester:asserteq(evs[1].file_version, 'brain.Event:2')
  tester:asserteq(evs[1].step, 0)
  tester:asserteq(evs[2].file_version, 'brain.Event:2')
  tester:asserteq(evs[2].step, 5)
  tester:asserteq(evs[3].step, 5)
  local raw = decode(read_records(io.popen('ls ' .. shq(dir) .. '/events.out.tfevents.*'):read('*l'))[3])
  tester:assert(raw[7] ~= nil, 'a session_log field')
  tester:asserteq(decode(raw[7][1])[1][1], 1, 'SessionLog.START')
  tester:asserteq(evs[4].tag, 'a')
  tester:asserteq(evs[4].step, 6)
  tester:asserteq(#events_of(dir .. '/g_x'), 2, 'addScalars run: file_version and the scalar')
  tester:asserteq(#events_of(dir .. '/hp'), 5, 'hparams run: file_version, 3 hparams summaries, 1 metric')
  tester:assertErrorPattern(function() SummaryWriter(tmpdir(), { purgeStep = 1.5 }) end,
    '%[tensorboard%.SummaryWriter%] purgeStep must be an integer, got 1%.5')
  tester:assertErrorPattern(function() SummaryWriter(tmpdir(), { purgeStep = 'x' }) end, 'option purgeStep must be a number')
end

-- ---- Metrics -------------------------------------------------------------------------------------------

function tests.macroAveragesSkipAbsentClasses()
  -- Perfect predictions on a batch holding classes 1 and 3 of 4: every class that appears has
  -- precision = recall = F1 = 1, as scikit-learn's macro averages (labels = those in y_true or
  -- y_pred) and torchmetrics' give; classes 2 and 4 have no samples and no predictions.
  local out = torch.Tensor({ { 0.9, 0, 0.1, 0 }, { 0.1, 0, 0.9, 0 }, { 0.2, 0.1, 0.6, 0.1 } })
  local target = torch.LongTensor({ 1, 3, 3 })
  local prf = nn.metrics.precisionRecallF1(nn.metrics.confusionMatrix(out, target))
  tester:asserteq(prf.macroPrecision, 1)
  tester:asserteq(prf.macroRecall, 1)
  tester:asserteq(prf.macroF1, 1)
  tester:assertTableEq(prf.precision:totable(), { 1, 0, 1, 0 }, 'per class: 0 where undefined')
  -- A class only predicted (never a target) counts: precision 0, recall 0 (undefined, 0).
  -- Targets {1, 1}, predictions {1, 2}: class 1 p = 1, r = 0.5, F1 = 2/3; class 2 p = 0, r = 0.
  local cm = torch.LongTensor({ { 1, 1, 0 }, { 0, 0, 0 }, { 0, 0, 0 } })
  prf = nn.metrics.precisionRecallF1(cm)
  tester:assertalmosteq(prf.macroPrecision, 0.5, 1e-15)
  tester:assertalmosteq(prf.macroRecall, 0.25, 1e-15)
  tester:assertalmosteq(prf.macroF1, 1 / 3, 1e-15)
  prf = nn.metrics.precisionRecallF1(torch.LongTensor(3, 3):zero())
  tester:asserteq(prf.macroF1, 0, 'an empty matrix')
  local acc = nn.metrics.create('f1')
  acc:add(out, target)
  tester:asserteq(acc:value(), 1)
end

function tests.accuracyAccumulatorCountsSamples()
  -- One sample's 1D scores over 10 classes is one sample, not 10: a correct single sample and
  -- a wrong batch of 2 average to 1/3.
  for _, name in ipairs({ 'accuracy', 'top1' }) do
    local acc = nn.metrics.create(name)
    local scores = torch.zeros(10)
    scores[4] = 1
    acc:add(scores, 4)
    acc:add(torch.Tensor({ { 1, 0 }, { 1, 0 } }), torch.LongTensor({ 2, 2 }))
    tester:assertalmosteq(acc:value(), 1 / 3, 1e-15, name)
  end
  -- Binary probabilities: n samples per call.
  local acc = nn.metrics.create('accuracy')
  acc:add(torch.Tensor({ 0.9, 0.2, 0.6 }), torch.LongTensor({ 1, 0, 0 }))
  acc:add(torch.Tensor({ { 0.9 } }), torch.LongTensor({ 1 }))
  tester:assertalmosteq(acc:value(), 3 / 4, 1e-15)
end

function tests.binaryAccuracyRejectsClassIndices()
  -- One probability per sample takes 0/1 targets; 1-based classes (1, 2) were silently scored
  -- as if every 2 were a wrong answer.
  tester:asserteq(nn.metrics.accuracy(torch.Tensor({ { 0.9 }, { 0.2 } }), torch.LongTensor({ 1, 0 })), 1)
  tester:assertErrorPattern(function() nn.metrics.accuracy(torch.Tensor({ { 0.9 }, { 0.2 } }), torch.LongTensor({ 1, 2 })) end,
    '%[accuracy%] binary targets %(one probability per sample%) must be 0 or 1, got 2 at position 2')
  tester:assertErrorPattern(function() nn.metrics.accuracy(torch.Tensor({ 0.9, 0.2, 0.4 }), torch.LongTensor({ 1, 0, -1 })) end,
    'must be 0 or 1, got %-1 at position 3')
end

-- ---- Trainer: state after an error ------------------------------------------------------------------------

function tests.evaluateAndPredictRestoreTrainingModeOnError()
  local model = nn.Sequential():add(nn.Linear(3, 2)):add(nn.LogSoftMax())
  local trainer = nn.Trainer(model, nn.ClassNLLCriterion())
  model:training()
  local ok, err = pcall(function() return trainer:evaluate({ torch.randn(4, 3), torch.LongTensor({ 1, 2, 3, 1 }) }) end)
  tester:assert(not ok and tostring(err):find('ClassNLLCriterion', 1, true), tostring(err))
  tester:asserteq(model.train, true, 'evaluate: back in training mode')
  tester:asserteq(torch.isGradEnabled(), true, 'evaluate: gradients back on')
  ok, err = pcall(function() return trainer:predict(torch.randn(4, 5)) end)
  tester:assert(not ok and tostring(err):find('nn.Linear', 1, true), tostring(err))
  tester:asserteq(model.train, true, 'predict: back in training mode')
  tester:asserteq(torch.isGradEnabled(), true, 'predict: gradients back on')
  -- a model already in evaluation mode stays so
  model:evaluate()
  pcall(function() return trainer:predict(torch.randn(4, 5)) end)
  tester:asserteq(model.train, false)
end

-- ---- Profiler: recordFunction ---------------------------------------------------------------------------

function tests.recordFunctionNestsAndSums()
  local profiler = torch.profiler
  local J = require 'torch.safetensors_json'
  local prof, r1, r2 = profiler.profile(function()
    return profiler.recordFunction('outer', function(a, b)
      torch.ones(2)
      profiler.recordFunction('inner', function() torch.zeros(3) end)
      profiler.recordFunction('inner', function() end)
      return a + b, nil
    end, 1, 2)
  end)
  tester:asserteq(r1, 3, 'results pass through')
  tester:asserteq(r2, nil)
  local ev = prof:events()
  local names, depths, parents = {}, {}, {}
  for i, e in ipairs(ev) do names[i], depths[i], parents[i] = e.name, e.depth, e.parent or 0 end
  tester:assertTableEq(names, { 'outer', 'torch.ones', 'inner', 'torch.zeros', 'inner' })
  tester:assertTableEq(depths, { 0, 1, 1, 2, 1 })
  tester:assertTableEq(parents, { 0, 1, 1, 3, 1 })
  tester:asserteq(ev[1].kind, 'user_annotation')
  tester:asserteq(ev[2].kind, 'op')
  -- self = total - direct children; the self times add up to the top-level total
  local children = ev[2].totalTime + ev[3].totalTime + ev[5].totalTime
  tester:assertalmosteq(ev[1].selfTime, ev[1].totalTime - children, 1e-6)
  tester:assertalmosteq(ev[3].selfTime, ev[3].totalTime - ev[4].totalTime, 1e-6)
  local sum = 0
  for _, e in ipairs(ev) do
    sum = sum + e.selfTime
    tester:assert(e.selfTime >= 0 and e.totalTime >= e.selfTime, e.name)
  end
  tester:assertalmosteq(sum, ev[1].totalTime, 1e-6)
  tester:assert(ev[1].totalTime <= prof:totalTime())
  local rows = {}
  for _, r in ipairs(prof:keyAverages()) do rows[r.name] = r end
  tester:asserteq(rows.inner.count, 2)
  tester:assertalmosteq(rows.inner.totalTime, ev[3].totalTime + ev[5].totalTime, 1e-6)
  tester:asserteq(rows.inner.kind, 'user_annotation')
  -- the Chrome trace names the category as PyTorch does
  local path = os.tmpname()
  prof:exportChromeTrace(path)
  local f = io.open(path)
  local doc = J.decode(f:read('*a'))
  f:close()
  os.remove(path)
  tester:asserteq(doc.traceEvents[1].cat, 'user_annotation')
  tester:asserteq(doc.traceEvents[1].name, 'outer')
  tester:asserteq(doc.traceEvents[4].args.depth, 2)
end

function tests.recordFunctionOffAndErrors()
  local profiler = torch.profiler
  -- off: a plain call
  local a, b = profiler.recordFunction('x', function(u) return u, 'y' end, 5)
  tester:asserteq(a, 5)
  tester:asserteq(b, 'y')
  tester:assert(not profiler.isRunning())
  -- an error inside a range: re-raised unchanged, the range marked, the nesting intact after it
  local marker = {}
  local prof = profiler.profile(function()
    local ok, err = pcall(profiler.recordFunction, 'bad', function()
      torch.ones(1)
      error(marker)
    end)
    tester:assert(not ok and err == marker, 'the error object passes through')
    profiler.recordFunction('after', function() torch.zeros(1) end)
  end)
  local ev = prof:events()
  tester:asserteq(#ev, 4)
  tester:asserteq(ev[1].name, 'bad')
  tester:assert(ev[1].error, 'marked')
  tester:asserteq(ev[3].name, 'after')
  tester:asserteq(ev[3].depth, 0, 'the failed range was closed')
  tester:asserteq(ev[4].depth, 1)
  tester:asserteq(ev[4].parent, 3)
  -- an error escaping profile(): the profiler is stopped and the functions restored
  local ones = torch.ones
  local ok = pcall(profiler.profile, function() profiler.recordFunction('r', function() error('boom') end) end)
  tester:assert(not ok)
  tester:assert(not profiler.isRunning())
  tester:asserteq(torch.ones, ones)
  tester:assertErrorPattern(function() profiler.recordFunction('', function() end) end,
    '%[profiler%.recordFunction%] name must be a non%-empty string')
  tester:assertErrorPattern(function() profiler.recordFunction('n', 5) end,
    '%[profiler%.recordFunction%] expected a function to run, got number')
end

tester:add(tests)
tester:run()
for _, d in ipairs(dirs) do os.execute('rm -rf ' .. shq(d)) end
