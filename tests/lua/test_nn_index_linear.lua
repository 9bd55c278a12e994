-- nn.IndexLinear (Torch7's nn/IndexLinear.lua over THNN's generic/IndexLinear.c): outputs,
-- gradients and updates against a dense nn.Linear on the equivalent dense input, against a
-- plain-Lua transcription of THNN's sequential loops (normalize mode, repeated keys, weight
-- decay), and by central differences in double.
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function maxdiff(a, b) return (a:detach():double() - b:detach():double()):abs():max() end

-- A random batch of B samples over inputSize features: keys (possibly repeated), values, and the
-- equivalent dense B x inputSize input (repeated keys add up, as in the layer).
local function batch(B, inputSize, nmax, repeats)
  local keys, vals = {}, {}
  local dense = torch.zeros(B, inputSize):double()
  for b = 1, B do
    local n = math.random(0, nmax)
    keys[b], vals[b] = torch.LongTensor(n), torch.DoubleTensor(n)
    for i = 1, n do
      local k = repeats and math.random(1, 3) or math.random(1, inputSize)
      local v = torch.normal(0, 2)
      keys[b][i], vals[b][i] = k, v
      dense[b][k] = dense[b][k] + v
    end
  end
  return keys, vals, dense
end

local function flatten(keys, vals)
  local sizes = torch.LongTensor(#keys)
  for b = 1, #keys do sizes[b] = keys[b]:nElement() end
  local nk, nv = {}, {}
  for b = 1, #keys do if keys[b]:nElement() > 0 then nk[#nk + 1], nv[#nv + 1] = keys[b], vals[b] end end
  return torch.cat(nk, 1), torch.cat(nv, 1), sizes
end

local function linear_like(m)
  local lin = nn.Linear(m.inputSize, m.outputSize):double()
  lin.weight:copy(m.weight:t())
  lin.bias:copy(m.bias)
  return lin
end

-- ---- THNN's loops, transcribed (outDim > 1 paths; 0-based rows via offset) ----------------

local function ref_forward(w, bias, keys, vals, train, normalize)
  local O = bias:size(1)
  local out, nv = {}, {}
  for b = 1, #keys do
    local y = bias:clone()
    for i = 1, keys[b]:nElement() do
      local r, v = keys[b][i], vals[b][i]
      local W
      if normalize then
        local a = math.abs(v)
        if train then
          if a > w[r][1] then w[r][1], w[r][2] = a, 1 / a end
          w[r][3] = 1
        end
        local sign = v < 0 and -1 or (v > 0 and 1 or 0)
        v = (a > w[r][1] and sign or v * w[r][2]) + w[r][4]
        W = w[r]:narrow(1, 5, O)
      else
        W = w[r]
      end
      nv[#nv + 1] = v
      y:add(v, W)
    end
    out[b] = y
  end
  return out, nv
end

-- THNN's accUpdateGradParameters (outDim > 1): per occurrence, in order.
local function ref_acc_update(w, bias, keys, nv, go, scale, wd, normalize)
  local O = bias:size(1)
  local p = 0
  for b = 1, #keys do
    bias:add(-scale, go[b])
    for i = 1, keys[b]:nElement() do
      p = p + 1
      local r = keys[b][i]
      local val, lwd = nv[p] * scale, wd
      local W
      if normalize then
        local s = w[r][3]
        val, lwd = val * s, wd * s
        w[r][4] = w[r][4] - scale * s * torch.dot(w[r]:narrow(1, 5, O), go[b])
        W = w[r]:narrow(1, 5, O)
      else
        W = w[r]
      end
      if wd ~= 0 then W:add(-lwd, W:clone()) end
      W:add(-val, go[b])
    end
  end
end

local function pick(t) return type(t) == 'table' and t or { t } end

-- ---- tests -------------------------------------------------------------------------------

function tests.forwardMatchesDenseLinearInEveryInputForm()
  torch.manualSeed(1); math.randomseed(1)
  local m = nn.IndexLinear(7, 3):double():reset()
  local keys, vals, dense = batch(4, 7, 5)
  local lin = linear_like(m)
  local want = lin:forward(dense)
  tester:assertlt(maxdiff(m:forward({ keys, vals }), want), 1e-12, 'table batch')
  local fk, fv, sizes = flatten(keys, vals)
  tester:assertlt(maxdiff(m:forward({ fk, fv, sizes }), want), 1e-12, 'flat batch')
  local y1 = m:forward({ keys[1], vals[1] })
  tester:asserteq(y1:dim(), 1)
  tester:assertlt(maxdiff(y1, want[1]), 1e-12, 'one sample')
  -- flat form with sizes given as one number; float values into a double layer are converted
  local y = m:forward({ fk, fv:float(), fk:nElement() })
  tester:asserteq(y:size(1), 1)
  tester:assertlt(maxdiff(y[1], lin:forward(dense:sum(1):view(-1))), 1e-5)
end

function tests.keysOffsetAddressesRows()
  local m = nn.IndexLinear(4, 2, false, 1):double():reset()  -- 0-based keys
  local y = m:forward({ torch.LongTensor{ 0, 3 }, torch.DoubleTensor{ 2, -1 } })
  local want = m.bias:clone():add(2, m.weight[1]):add(-1, m.weight[4])
  tester:assertlt(maxdiff(y, want), 1e-12)
  tester:assertErrorPattern(function() m:forward({ torch.LongTensor{ 4 }, torch.DoubleTensor{ 1 } }) end,
    'nn.IndexLinear.*rows 1..4')
end

function tests.gradientsAndUpdatesMatchDenseLinear()
  torch.manualSeed(2); math.randomseed(2)
  local m = nn.IndexLinear(6, 3, true):double():reset()
  local lin = linear_like(m)
  local keys, vals, dense = batch(3, 6, 4, true)  -- repeated keys within and across samples
  local go = torch.randn(3, 3):double()
  m:zeroGradParameters(); lin:zeroGradParameters()
  m:forward({ keys, vals }); lin:forward(dense)
  local gi = m:backward({ keys, vals }, go, 0.5)
  local ginDense = lin:backward(dense, go, 0.5)
  for b = 1, 3 do
    tester:assertlt(maxdiff(gi[2][b], ginDense[b]), 1e-12, 'gradInput')
    tester:assertTensorEq(gi[1][b], torch.LongTensor(6):range(1, 6), 0)
  end
  tester:assertlt(maxdiff(m.gradBias, lin.gradBias), 1e-12, 'gradBias')
  -- a second accumulation before the update
  m:forward({ keys, vals }); lin:forward(dense)
  m:backward({ keys, vals }, go); lin:backward(dense, go)
  tester:asserteq(m.running.counter, 3)
  m:updateParameters(0.1); lin:updateParameters(0.1)
  tester:assertlt(maxdiff(m.weight:t(), lin.weight), 1e-12, 'weights after updateParameters')
  tester:assertlt(maxdiff(m.bias, lin.bias), 1e-12, 'bias after updateParameters')
  -- accUpdateGradParameters equals accGradParameters then updateParameters
  m:zeroGradParameters(); lin:zeroGradParameters()
  m:forward({ keys, vals }); lin:forward(dense)
  m:accUpdateGradParameters({ keys, vals }, go, 0.2)
  lin:backward(dense, go); lin:updateParameters(0.2)
  tester:assertlt(maxdiff(m.weight:t(), lin.weight), 1e-12, 'weights after accUpdateGradParameters')
  tester:assertlt(maxdiff(m.bias, lin.bias), 1e-12)
end

function tests.flatFormGradInput()
  local m = nn.IndexLinear(5, 2, true):double():reset()
  local x = { torch.LongTensor{ 1, 5, 2 }, torch.DoubleTensor{ 1, 2, 3 }, torch.LongTensor{ 2, 1 } }
  m:forward(x)
  local go = torch.randn(2, 2):double()
  local gi = m:updateGradInput(x, go)
  tester:assertTableEq(gi[1]:size():totable(), { 2, 5 })
  tester:assertlt(maxdiff(gi[2], go * m.weight:t()), 1e-12)
  -- without doGradInput Torch7 gave an empty table
  local n = nn.IndexLinear(5, 2):double()
  n:forward(x)
  tester:asserteq(next(n:updateGradInput(x, go)), nil)
end

function tests.normalizeForwardMatchesTHNN()
  torch.manualSeed(3); math.randomseed(3)
  local m = nn.IndexLinear(5, 3, false, nil, nil, nil, true):double():reset()
  tester:assertTableEq(m.weight:size():totable(), { 5, 7 })
  m.weight:select(2, 4):copy(torch.randn(5))  -- feature biases
  for pass = 1, 3 do
    local keys, vals = batch(4, 5, 6, pass == 2)
    local w = m.weight:detach():clone()
    local want, nv = ref_forward(w, m.bias, keys, vals, true, true)
    local y = m:forward({ keys, vals })
    for b = 1, 4 do tester:assertlt(maxdiff(y[b], want[b]), 1e-12, 'train output ' .. pass) end
    tester:assertlt(maxdiff(m.weight, w), 1e-15, 'maxima, inverses and scales ' .. pass)
    tester:assertlt(maxdiff(m.normalizedValues, torch.DoubleTensor(nv)), 1e-15)
  end
  -- evaluation clamps values beyond the maxima to their sign
  m:evaluate()
  local keys, vals = { torch.LongTensor{ 1, 2, 2 } }, { torch.DoubleTensor{ 100, -0.5, -100 } }
  local w = m.weight:detach():clone()
  local want = ref_forward(w, m.bias, keys, vals, false, true)
  tester:assertlt(maxdiff(m:forward({ keys, vals })[1], want[1]), 1e-12)
  tester:asserteq(maxdiff(m.weight, w), 0, 'evaluation changes no weight')
end

function tests.sequentialUpdatesMatchTHNN()
  torch.manualSeed(4); math.randomseed(4)
  for _, normalize in ipairs({ false, true }) do
    for _, wd in ipairs({ 0, 0.05 }) do
      local m = nn.IndexLinear(5, 3, false, nil, nil, nil, normalize):double():reset()
      if normalize then m.weight:select(2, 4):copy(torch.randn(5)) end
      m.weightDecay = wd
      local keys, vals = batch(5, 5, 6, true)
      local go = torch.randn(5, 3):double()
      local w, bias = m.weight:detach():clone(), m.bias:detach():clone()
      local _, nv = ref_forward(w, bias, keys, vals, true, normalize)
      ref_acc_update(w, bias, keys, nv, go, 0.3, wd, normalize)
      local label = string.format('normalize %s, weightDecay %g', tostring(normalize), wd)
      m:forward({ keys, vals })
      local m2 = m:clone()
      m:accUpdateGradParameters({ keys, vals }, go, 0.3)
      tester:assertlt(maxdiff(m.weight, w), 1e-12, 'accUpdateGradParameters, ' .. label)
      tester:assertlt(maxdiff(m.bias, bias), 1e-12)
      -- the same through accGradParameters + updateParameters
      m2:zeroGradParameters()
      m2:backward({ keys, vals }, go)
      m2:updateParameters(0.3)
      tester:assertlt(maxdiff(m2.weight, w), 1e-12, 'updateParameters, ' .. label)
      tester:assertlt(maxdiff(m2.bias, bias), 1e-12)
    end
  end
end

function tests.untouchedRowsStayPut()
  local m = nn.IndexLinear(6, 2, false, nil, nil, nil, true):double():reset()
  m.weightDecay = 0.1
  local before = m.weight:detach():clone()
  local x = { torch.LongTensor{ 2, 5, 2 }, torch.DoubleTensor{ 1, -2, 3 } }
  m:forward(x); m:backward(x, torch.ones(2):double()); m:updateParameters(0.5)
  for _, r in ipairs({ 1, 3, 4, 6 }) do tester:assertTensorEq(m.weight[r], before[r], 0, 'row ' .. r) end
  tester:assertgt(maxdiff(m.weight[2], before[2]), 0)
end

-- d(sum(G .* y))/d(parameter) by central differences, against what one update moves (wd = 0,
-- update scale 1, each key once: the step is lr times the gradient; with a key repeated the
-- second occurrence sees the first one's update, Note [IndexLinear's sequential updates]).
function tests.normalizeGradientsByFiniteDifferences()
  torch.manualSeed(5); math.randomseed(5)
  local m = nn.IndexLinear(4, 3, false, nil, nil, nil, true):double():reset()
  m.weight:select(2, 4):copy(torch.randn(4))
  local x = { { torch.LongTensor{ 1, 3 }, torch.LongTensor{ 2, 4 } }, { torch.DoubleTensor{ 2, -1 }, torch.DoubleTensor{ 0.5, 3 } } }
  local G = torch.randn(2, 3):double()
  m:forward(x)  -- the maxima settle; later forwards on x change nothing
  local function loss() return torch.cmul(m:forward(x):detach(), G):sum() end
  local eps, lr = 1e-6, 1e-3
  local numeric = torch.zeros(4, 7):double()
  for r = 1, 4 do
    for c = 4, 7 do
      local orig = m.weight[r][c]
      m.weight[r][c] = orig + eps; local lp = loss()
      m.weight[r][c] = orig - eps; local lm = loss()
      m.weight[r][c] = orig
      numeric[r][c] = (lp - lm) / (2 * eps)
    end
  end
  local before = m.weight:detach():clone()
  m:forward(x); m:zeroGradParameters(); m:backward(x, G); m:updateParameters(lr)
  local step = (before - m.weight):div(lr)
  tester:assertlt(maxdiff(step:narrow(2, 4, 4), numeric:narrow(2, 4, 4)), 1e-6)
end

function tests.valueGradientByFiniteDifferences()
  torch.manualSeed(6)
  local m = nn.IndexLinear(5, 2, true):double():reset()
  local keys, vals = torch.LongTensor{ 2, 4, 2 }, torch.DoubleTensor{ 0.3, -1, 2 }
  local G = torch.randn(2):double()
  m:forward({ keys, vals })
  local gi = m:backward({ keys, vals }, G)
  for i = 1, 3 do
    local orig = vals[i]
    vals[i] = orig + 1e-6; local lp = torch.dot(m:forward({ keys, vals }):detach(), G)
    vals[i] = orig - 1e-6; local lm = torch.dot(m:forward({ keys, vals }):detach(), G)
    vals[i] = orig
    tester:assertlt(math.abs((lp - lm) / 2e-6 - gi[2][keys[i]]), 1e-7)
  end
end

function tests.typeCloneSaveLoadClearState()
  torch.manualSeed(7)
  local m = nn.IndexLinear(5, 2, true, nil, nil, nil, false):reset()
  local x = { torch.LongTensor{ 1, 5 }, torch.Tensor{ 1, 2 } }
  m:forward(x); m:backward(x, torch.ones(2))
  local d = m:clone():double()
  tester:asserteq(torch.type(d.weight), 'torch.DoubleTensor')
  tester:asserteq(torch.type(d.running.keys[1]), 'torch.LongTensor', 'pending keys stay LongTensors')
  tester:asserteq(torch.type(d.running.gradWeight[1]), 'torch.DoubleTensor')
  d:updateParameters(0.1)  -- the pending gradient survives the conversion
  m:updateParameters(0.1)
  tester:assertlt(maxdiff(d.weight, m.weight), 1e-6)
  local path = os.tmpname()
  torch.save(path, d)
  local e = torch.load(path)
  os.remove(path)
  tester:asserteq(maxdiff(e:forward({ x[1], x[2]:double() }), d:forward({ x[1], x[2]:double() })), 0)
  e:clearState()
  tester:asserteq(e.running.counter, 1)
  e:updateParameters(0.1)  -- nothing pending: no error, no change
  tester:asserteq(maxdiff(e.weight, d.weight), 0)
end

function tests.badInputsNameTheLayer()
  local m = nn.IndexLinear(5, 2)
  tester:assertErrorPattern(function() m:forward(torch.ones(3)) end, 'nn.IndexLinear.*expected {keys, values}')
  tester:assertErrorPattern(function() m:forward({ torch.LongTensor{ 1, 2 }, torch.Tensor{ 1 } }) end,
    'nn.IndexLinear.*one size')
  tester:assertErrorPattern(function() m:forward({ torch.LongTensor{ 1, 2 }, torch.Tensor{ 1, 2 }, torch.LongTensor{ 3 } }) end,
    'nn.IndexLinear.*add up')
  tester:assertErrorPattern(function() m:forward({ torch.Tensor{ 1.5 }, torch.Tensor{ 1 } }) end, 'keys must be integers')
  tester:assertErrorPattern(function() m:forward({ torch.LongTensor{ 0 }, torch.Tensor{ 1 } }) end, 'rows 1..5')
  tester:assertErrorPattern(function() m:updateParameters() end, 'learning rate')
  tester:assertErrorPattern(function() nn.IndexLinear(0, 2) end, 'inputSize')
  local n = nn.IndexLinear(5, 2, true, nil, nil, nil, true)
  local x = { torch.LongTensor{ 1 }, torch.Tensor{ 1 } }
  n:forward(x)
  tester:assertErrorPattern(function() n:updateGradInput(x, torch.ones(2)) end, 'max%-normalize')
  tester:assertErrorPattern(function() m:forward(x); m:backward(x, torch.ones(3)) end, 'gradOutput')
end

function tests.emptySamplesAndBatches()
  local m = nn.IndexLinear(4, 2):double():reset()
  local y = m:forward({ { torch.LongTensor(), torch.LongTensor{ 2 } }, { torch.DoubleTensor(), torch.DoubleTensor{ 1 } } })
  tester:asserteq(maxdiff(y[1], m.bias), 0)
  local z = m:forward({ torch.LongTensor(), torch.DoubleTensor(), torch.LongTensor{ 0, 0 } })
  tester:assertTableEq(z:size():totable(), { 2, 2 })
  m:backward({ torch.LongTensor(), torch.DoubleTensor(), torch.LongTensor{ 0, 0 } }, torch.ones(2, 2):double())
  m:updateParameters(1)
  tester:assertlt(maxdiff(m.bias, y[1] - 2), 1e-12)
end

tester:add(tests)
tester:run()
