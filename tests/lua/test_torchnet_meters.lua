-- torchnet's meters (Torch7 torchnet, lua/torchnet/meter/): each meter's add/value/reset against
-- closed forms and hand computations; AP, mAP and AUC against NumPy (values pasted below, computed
-- with /usr/bin/python3's numpy 1.24 by torchnet's definitions) and independent Lua loops.
local tnt = require 'torchnet'
local tester = torch.Tester()
local tests = torch.TestSuite()

function tests.averageValueMeter()
  local m = tnt.AverageValueMeter()
  local xs = { 1.5, -2, 4, 0.25, 3 }
  local sum, sq = 0, 0
  for _, x in ipairs(xs) do m:add(x); sum = sum + x end
  local mean = sum / 5
  for _, x in ipairs(xs) do sq = sq + (x - mean) ^ 2 end
  local mu, std = m:value()
  tester:eq(mu, mean, 1e-12)
  tester:eq(std, math.sqrt(sq / 4), 1e-12, 'unbiased standard deviation')
  m:reset()
  m:add(10, 4)  -- a batch's summed loss over 4 samples
  m:add{ value = 2, n = 1 }
  tester:eq((m:value()), 12 / 5)
  tester:assertErrorPattern(function() m:add('x') end, 'argument value: expected number')
  -- moving window
  local w = tnt.MovingAverageValueMeter{ windowsize = 3 }
  for _, x in ipairs{ 1, 2, 3, 10 } do w:add(x) end
  local wm, ws = w:value()
  tester:eq(wm, 5, 1e-12, 'mean of 2, 3, 10')
  tester:eq(ws, math.sqrt(((2 - 5) ^ 2 + (3 - 5) ^ 2 + (10 - 5) ^ 2) / 2), 1e-12)
  w:reset()
  w:add(4)
  tester:eq({ w:value() }, { 4, 0 })
end

function tests.classErrorMeter()
  local out = torch.Tensor{ { 0.1, 0.5, 0.4 }, { 0.7, 0.2, 0.1 }, { 0.2, 0.3, 0.5 }, { 0.35, 0.4, 0.25 } }
  local tgt = torch.LongTensor{ 3, 1, 2, 1 }
  -- top-1 predictions: 2, 1, 3, 2 -> correct only for example 2; top-2 sets: {2,3} {1,2} {3,2} {2,1}
  local m = tnt.ClassErrorMeter{ topk = { 2, 1 } }
  m:add(out, tgt)
  tester:eq(m:value(1), 75)
  tester:eq(m:value(2), 0)
  tester:eq(m:value(), { [1] = 75, [2] = m:value(2) })
  m:add(torch.Tensor{ 0, 0, 1 }, torch.LongTensor{ 3 })  -- one example as a K-vector
  tester:eq(m:value(1), 60)
  tester:eq(m.n, 5)
  local acc = tnt.ClassErrorMeter{ accuracy = true }
  acc:add(out, tgt)
  tester:eq(acc:value()[1], 25)
  acc:reset()
  acc:add(out[2]:float(), 1)  -- a number target, a FloatTensor output
  tester:eq(acc:value(1), 100)
  tester:assertErrorPattern(function() m:value(3) end, 'invalid k 3')
  tester:assertErrorPattern(function() m:add(out, torch.LongTensor{ 1, 2 }) end, '2 targets for 4 examples')
  tester:assertErrorPattern(function() m:add(out, torch.LongTensor{ 1, 2, 3, 4 }) end, 'classes in 1..3')
  tester:assertErrorPattern(function() tnt.ClassErrorMeter{ topk = { 5 } }:add(out, tgt) end, 'topk 5 is larger than the number of classes 3')
end

function tests.confusionMeter()
  local out = torch.Tensor{ { 0.9, 0.05, 0.05 }, { 0.1, 0.8, 0.1 }, { 0.2, 0.7, 0.1 }, { 0.3, 0.3, 0.4 }, { 0.6, 0.3, 0.1 } }
  local tgt = torch.LongTensor{ 1, 2, 3, 3, 2 }
  local m = tnt.ConfusionMeter{ k = 3 }
  m:add(out, tgt)
  local expected = torch.LongTensor{ { 1, 0, 0 }, { 1, 1, 0 }, { 0, 1, 1 } }  -- rows: target, columns: argmax
  tester:eq(m:value(), expected)
  -- one-hot targets give the same; counts accumulate
  local onehot = torch.zeros(5, 3)
  for i = 1, 5 do onehot[i][tgt[i]] = 1 end
  m:add(out, onehot)
  tester:eq(m:value(), expected * 2)
  local n = tnt.ConfusionMeter{ k = 3, normalized = true }
  n:add(out, tgt)
  tester:eq(n:value(), torch.DoubleTensor{ { 1, 0, 0 }, { 0.5, 0.5, 0 }, { 0, 0.5, 0.5 } }, 1e-12)
  n:reset()
  tester:eq(n:value():sum(), 0, 'empty rows stay 0 (no division by zero)')
  local two = onehot:clone(); two[1][2] = 1
  tester:assertErrorPattern(function() m:add(out, two) end, 'multi%-label setting is not supported')
  tester:assertErrorPattern(function() m:add(torch.rand(2, 4), torch.LongTensor{ 1, 1 }) end, 'number of outputs %(4%) does not match')
  tester:assertErrorPattern(function() tnt.ConfusionMeter(3) end, 'one table of named arguments')
end

function tests.mseMeter()
  local m = tnt.MSEMeter()
  m:add(torch.Tensor{ { 1, 2 }, { 3, 4 } }, torch.Tensor{ { 1, 0 }, { 0, 4 } })
  m:add(torch.Tensor{ 2 }, torch.Tensor{ 0 })
  tester:eq(m:value(), (4 + 9 + 4) / 5, 1e-12)
  local r = tnt.MSEMeter{ root = true }
  r:add(torch.Tensor{ 3, 0 }, torch.Tensor{ 0, 4 })
  tester:eq(r:value(), math.sqrt(12.5), 1e-12)
  tester:eq(tnt.MSEMeter():value(), 0)
  tester:assertErrorPattern(function() m:add(torch.ones(2), torch.ones(3)) end, 'not the same size %(2 and 3%)')
end

-- NumPy 1.24 (rng = RandomState(0); scores = round(rand(12, 3), 3); targets = rand(12, 3) > 0.5;
-- weights = round(rand(12) + 0.5, 2)); AP = mean over positives of precision at their rank.
local SCORES = { { 0.549, 0.715, 0.603 }, { 0.545, 0.424, 0.646 }, { 0.438, 0.892, 0.964 }, { 0.383, 0.792, 0.529 },
  { 0.568, 0.926, 0.071 }, { 0.087, 0.02, 0.833 }, { 0.778, 0.87, 0.979 }, { 0.799, 0.461, 0.781 },
  { 0.118, 0.64, 0.143 }, { 0.945, 0.522, 0.415 }, { 0.265, 0.774, 0.456 }, { 0.568, 0.019, 0.618 } }
local TARGETS = { { 1, 1, 1 }, { 1, 0, 0 }, { 1, 0, 1 }, { 1, 0, 0 }, { 0, 0, 1 }, { 0, 1, 0 }, { 0, 0, 1 }, { 0, 0, 0 },
  { 0, 0, 1 }, { 0, 0, 0 }, { 1, 0, 1 }, { 0, 1, 0 } }
local WEIGHTS = { 1.48, 1.1, 1.24, 0.54, 0.78, 0.62, 0.8, 0.62, 0.82, 0.91, 0.56, 1.19 }
local NP_AP = { 0.3543650793650793, 0.1994949494949495, 0.6379268879268879 }
local NP_AP_WEIGHTED = { 0.4277170951923357, 0.2681524573257989, 0.6714481191193844 }
local NP_MAP = 0.39726230559563885
local NP_AUC_CLASS1 = 0.2857142857142857  -- Mann-Whitney: fraction of (positive, negative) pairs ordered right

-- AP of one class by a plain loop (no tensor ops): rank by score, average the precisions at positives.
local function loop_ap(k)
  local idx = {}
  for i = 1, #SCORES do idx[i] = i end
  table.sort(idx, function(a, b) return SCORES[a][k] > SCORES[b][k] end)
  local tp, total, npos = 0, 0, 0
  for r, i in ipairs(idx) do
    if TARGETS[i][k] == 1 then tp = tp + 1; npos = npos + 1; total = total + tp / r end
  end
  return total / math.max(npos, 1)
end

function tests.apAndMapMeters()
  local scores, targets = torch.DoubleTensor(SCORES), torch.LongTensor(TARGETS)
  local m = tnt.APMeter()
  m:add(scores, targets)
  local ap = m:value()
  for k = 1, 3 do
    tester:eq(ap[k], NP_AP[k], 1e-12, 'AP class ' .. k .. ' (NumPy)')
    tester:eq(ap[k], loop_ap(k), 1e-12, 'AP class ' .. k .. ' (Lua loop)')
  end
  -- added in chunks (the buffers grow) = added at once
  local c = tnt.APMeter()
  c:add(scores:narrow(1, 1, 5), targets:narrow(1, 1, 5))
  c:add(scores:narrow(1, 6, 1), targets:narrow(1, 6, 1))
  c:add(scores:narrow(1, 7, 6):float(), targets:narrow(1, 7, 6):double())
  tester:eq(c:value(), ap, 1e-12)
  local w = tnt.APMeter()
  w:add{ output = scores, target = targets, weight = torch.DoubleTensor(WEIGHTS) }
  tester:eq(w:value(), torch.DoubleTensor(NP_AP_WEIGHTED), 1e-12, 'weighted AP (NumPy)')
  local map = tnt.mAPMeter()
  map:add(scores, targets)
  tester:eq(map:value(), NP_MAP, 1e-12)
  map:reset()
  tester:eq(map:value(), 0)
  -- one class as vectors; perfect ranking gives 1
  local one = tnt.APMeter()
  one:add(torch.Tensor{ 0.9, 0.8, 0.1 }, torch.Tensor{ 1, 1, 0 })
  tester:eq(one:value(), torch.DoubleTensor{ 1 })
  tester:assertErrorPattern(function() one:add(torch.rand(2, 2), torch.ones(2, 2)) end, 'should match previously added examples')
  tester:assertErrorPattern(function() m:add(scores, targets * 2) end, 'targets should be binary')
  tester:assertErrorPattern(function() m:add(scores, targets, torch.ones(12)) end, 'give a weight with every add or with none')
  tester:assertErrorPattern(function() tnt.APMeter():add(scores, targets, -torch.ones(12)) end, 'non%-negative')
end

function tests.aucMeter()
  local m = tnt.AUCMeter()
  tester:eq(m:value(), 0.5, 'no examples')
  local s, t = torch.DoubleTensor(SCORES):select(2, 1), torch.LongTensor(TARGETS):select(2, 1)
  m:add(s:narrow(1, 1, 7), t:narrow(1, 1, 7))
  m:add(s:narrow(1, 8, 5), t:narrow(1, 8, 5))
  local auc, tpr, fpr = m:value()
  tester:eq(auc, NP_AUC_CLASS1, 1e-12, 'AUC (NumPy Mann-Whitney)')
  tester:eq(tpr:nElement(), 13)
  tester:eq({ tpr[1], fpr[1], tpr[13], fpr[13] }, { 0, 0, 1, 1 })
  local p = tnt.AUCMeter()
  p:add(torch.Tensor{ 0.9, 0.8, 0.3, 0.1 }, torch.Tensor{ 1, 1, 0, 0 })
  tester:eq((p:value()), 1)
  p:reset()
  p:add(torch.Tensor{ { 0.1 }, { 0.9 } }, torch.Tensor{ 1, 0 })  -- N x 1 scores
  tester:eq((p:value()), 0)
  tester:assertErrorPattern(function() p:add(torch.rand(3, 2), torch.ones(3)) end, 'dimensionality of output should be 1')
  tester:assertErrorPattern(function() p:add(torch.rand(3), torch.ones(2)) end, 'number of outputs %(3%) and targets %(2%)')
end

function tests.timeMeter()
  local m = tnt.TimeMeter{ unit = true }
  local t0 = torch.Timer()
  while t0:time().real < 0.02 do end
  m:incUnit(); m:incUnit(3)
  local per = m:value()
  tester:assert(per >= 0.02 / 4 and per < 1, 'time per unit ' .. per)
  m:stop()
  local frozen = m:value()
  t0:reset()
  while t0:time().real < 0.01 do end
  tester:eq(m:value(), frozen, 'stopped')
  m:resume()
  m:reset()
  tester:eq(m.n, 0)
  local plain = tnt.TimeMeter()
  tester:assert(plain:value() >= 0 and plain:value() < 1)
end

function tests.multiLabelConfusionMeter()
  local m = tnt.MultiLabelConfusionMeter{ k = 4, normalized = false }
  -- example 1: labels {1, 3}, top-2 predicted {1, 2}: 1 right, 3 missed -> its count goes to 2
  -- example 2: labels {2, 3, 4}, top-3 predicted {1, 2, 4}: 2 and 4 right, 3 -> 1
  -- example 3: labels {4}, predicted {3}: 4 -> 3
  m:add(torch.Tensor{ { 0.9, 0.8, 0.1, 0.2 }, { 0.9, 0.8, 0.1, 0.7 }, { 0.1, 0.2, 0.9, 0.3 } },
    torch.Tensor{ { 1, 0, 1, 0 }, { 0, 1, 1, 1 }, { 0, 0, 0, 1 } })
  local expected = torch.DoubleTensor(4, 4):zero()
  expected[1][1] = 1; expected[3][2] = 1; expected[2][2] = 1; expected[4][4] = 1; expected[3][1] = 1; expected[4][3] = 1
  tester:eq(m:value(), expected)
  -- two wrong predictions share a missed label's count
  local s = tnt.MultiLabelConfusionMeter{ k = 3, normalized = false }
  s:add(torch.Tensor{ 0.9, 0.8, 0.1 }, torch.Tensor{ 0, 0, 1 })  -- label 3, predicted 1
  tester:eq(s:value()[3], torch.DoubleTensor{ 1, 0, 0 })
  local nrm = tnt.MultiLabelConfusionMeter{ k = 4 }
  nrm:add(torch.Tensor{ 0.9, 0.8, 0.1, 0.7 }, torch.Tensor{ 0, 1, 1, 1 })
  tester:eq(nrm:value():sum(2):narrow(1, 2, 3), torch.ones(3, 1):double(), 1e-6, 'rows with labels sum to 1')
  tester:assertErrorPattern(function() m:add(torch.rand(2, 4), torch.ones(2, 3)) end, 'do not match')
end

tester:add(tests)
tester:run()
