-- nn.utils.rnn (padSequence, packPaddedSequence, padPackedSequence, packSequence), nn.PackedSequence,
-- and nn.RNN / nn.LSTM / nn.GRU on packed input: layouts and indices against PyTorch 1.13, round
-- trips, gradients through packing, errors naming the function; bidirectional modules on an
-- unsorted packed batch against PyTorch 1.13 (outputs, final states, every gradient), against
-- each sequence run alone, Torch7's backward against loss:backward() (dropout included).
require 'nn'
local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local util = dofile(here .. '/nn_rnn_util.lua')
local D = dofile(here .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
local R = nn.utils.rnn

-- PyTorch 1.13's values, from the script in test_nn_rnn_bidirectional.lua run with argument
-- 'packed': bidirectional modules (T, B, I, H = 5, 4, 3, 2) on
-- pack_padded_sequence(x, [3, 5, 1, 4], enforce_sorted=False), h0 and c0 in the caller's order.
local reference = {
  { 'LSTM', 2, true, true, { -0.393664394028, -0.616472952099, 0.806080184697, 0.0742193586095, 0.0774769333021, -0.0187627378584, 0.195900176613, 0.106728108931, -0.0349083309171, 0.257561855769, -0.41339558598, -0.301154089405, 1.54425894426, 0.28211050604, 6.39600513836, 6.39600513836, -0.123766919455, 0.300460510629, 2.85357122326, 2.85357122326, -0.148590448169, 0.131089402901, 0.133045240691, 0.133045240691, 0.0116615920188, -0.0900042771129, -0.881697778693, -0.881697778693 } },
  { 'GRU', 2, true, true, { -0.607470904696, -1.28171723275, 0, 0.206430781931, 0.272964385346, -0.161320795122, 0.702287271911, 0.177483596479, -0.0297784858886, 0.0996551225897, -0.348613047222, 0, 0.79977809921, 0.075178009083, 1.93152846637, 1.23734786929, 0.0935620940026, 0.0263847073882, 2.1553787416, 0.998618728593, 1.71233035442, -0.676579005488, -4.34051950773, -2.95233516352, -0.898154152541, -0.163873592793, 2.51988007279, 1.04312013384 } },
  { 'GRU', 1, true, false, { -0.680519422028, 1.72767622958, 0, 0.451578020946, 0.0110111641246, -0.231430925604, 0.292694563721, -0.167556803647, 0.00262928518457, 0.390818712733, 0, 0, 4.66566668647, 0.0137448083766, 4.02622300201, 2.39719084581, 1.99998391638, -0.0908271618625, 2.12348179681, 0.842010772218 } },
  { 'RNN_TANH', 2, true, true, { 0.117903949519, -0.122358475505, 0, 0.454766654557, -0.0678774485738, -0.132002828904, 0.110275163197, -0.338163361698, -0.153790897551, 0.0429288828057, 0.309200854344, 0, -4.61262201126, 1.89579526405, 2.14197566401, 2.14197566401, 4.17327088435, -0.883938342565, -0.545921553567, -0.545921553567, 2.15786011157, 0.579288668055, -2.55723883001, -2.55723883001, -0.309561060311, -0.946438624794, 0.805828757761, 0.805828757761 } },
}
local T, B, I, H, LENGTHS = 5, 4, 3, 2, { 3, 5, 1, 4 }

local function ctor(mode) return mode == 'LSTM' and nn.LSTM or mode == 'GRU' and nn.GRU or nn.RNN end
local function make(mode, L, opts)
  opts = opts or {}
  opts.numLayers, opts.bidirectional = L, opts.bidirectional ~= false
  if mode:match('^RNN') then opts.nonlinearity = mode == 'RNN_TANH' and 'tanh' or 'relu' end
  local m = ctor(mode)(I, H, opts):double()
  for j, p in ipairs(m:parameters()) do util.filled(p, 1.3, 0.7 * (j - 1) + 0.1, 0.4) end
  return m
end
local function inputs(L, dirs)
  dirs = dirs or 2
  return util.filled(torch.DoubleTensor(T, B, I), 0.9, 0.2, -1), util.filled(torch.DoubleTensor(dirs * L, B, H), 0.5, 1, 0.3),
    util.filled(torch.DoubleTensor(dirs * L, B, H), 0.4, 2, -0.3)
end
local function w(t, a, b) return util.fill(t:nElement(), a, b, 1):viewAs(t) end

function tests.packingMatchesPyTorch()
  local x = inputs(1)
  local ps = R.packPaddedSequence(x, LENGTHS, false, false)
  -- PyTorch 1.13: batch_sizes [4, 3, 3, 2, 1], sorted_indices [1, 3, 0, 2], unsorted_indices [2, 0, 3, 1].
  tester:assertTableEq(ps.batchSizes:totable(), { 4, 3, 3, 2, 1 })
  tester:assertTableEq(ps.sortedIndices:totable(), { 2, 4, 1, 3 })
  tester:assertTableEq(ps.unsortedIndices:totable(), { 3, 1, 4, 2 })
  tester:asserteq(torch.type(ps.batchSizes), 'torch.LongTensor')
  -- Step t of the j-th longest sequence is row sum(batchSizes[1..t-1]) + j.
  local order, row = { 2, 4, 1, 3 }, 0
  for t = 1, 5 do
    for j = 1, ps.batchSizes[t] do
      row = row + 1
      tester:assertTensorEq(ps.data[row], x[t][order[j]], 0, 'row ' .. row)
    end
  end
  tester:asserteq(row, ps.data:size(1))
  -- Sorted lengths (enforceSorted default true): no indices; the same data as sorting by hand.
  local sorted = R.packPaddedSequence(x:index(2, torch.LongTensor(order)), torch.LongTensor({ 5, 4, 3, 1 }))
  tester:assert(sorted.sortedIndices == nil and sorted.unsortedIndices == nil, 'sorted batch: no indices')
  tester:assertTensorEq(sorted.data, ps.data, 0, 'same data as the sorted batch')
  -- batchFirst and a LongStorage of lengths.
  local bf = R.packPaddedSequence(x:transpose(1, 2):contiguous(), torch.LongStorage(LENGTHS), { batchFirst = true, enforceSorted = false })
  tester:assertTensorEq(bf.data, ps.data, 0, 'batchFirst')
end

function tests.padAndPackRoundTrips()
  local seqs = { torch.range(1, 6):view(3, 2), torch.range(7, 8):view(1, 2), torch.range(9, 12):view(2, 2) }
  local padded = R.padSequence(seqs)
  tester:assertTensorEq(padded, torch.Tensor({ { { 1, 2 }, { 7, 8 }, { 9, 10 } }, { { 3, 4 }, { 0, 0 }, { 11, 12 } },
    { { 5, 6 }, { 0, 0 }, { 0, 0 } } }), 0, 'padSequence')
  local pbf = R.padSequence(seqs, true, -1)
  tester:assertTensorEq(pbf[2], torch.Tensor({ { 7, 8 }, { -1, -1 }, { -1, -1 } }), 0, 'batchFirst, paddingValue')
  tester:assertTensorEq(R.padSequence(seqs, { batchFirst = true, paddingValue = -1 }), pbf, 0, 'options table')
  local ps = R.packSequence(seqs, false)
  tester:assertTableEq(ps.batchSizes:totable(), { 3, 2, 1 })
  tester:assertTableEq(ps.sortedIndices:totable(), { 1, 3, 2 })
  local back, lengths = R.padPackedSequence(ps)
  tester:assertTensorEq(back, padded, 0, 'padPackedSequence of packSequence')
  tester:assertTableEq(lengths:totable(), { 3, 1, 2 })
  tester:asserteq(torch.type(lengths), 'torch.LongTensor')
  local bb = R.padPackedSequence(ps, { batchFirst = true, paddingValue = -1, totalLength = 5 })
  tester:assertTableEq(bb:size():totable(), { 3, 5, 2 })
  tester:assertTensorEq(bb:narrow(2, 1, 3), pbf, 0, 'batchFirst, paddingValue, totalLength')
  tester:asserteq(bb:narrow(2, 4, 2):eq(-1):sum(), 12)
  -- pack(pad(x)) round trip on 3-D steps, and unpack(pack(padded)) restores the valid part.
  local x = torch.randn(4, 3, 2, 2):double()
  local p = R.packPaddedSequence(x, { 2, 4, 3 }, false, false)
  local y, l = R.padPackedSequence(p, false, 0, 4)
  for b, n in ipairs({ 2, 4, 3 }) do
    tester:assertTensorEq(y:select(2, b):narrow(1, 1, n), x:select(2, b):narrow(1, 1, n), 0, 'valid steps kept')
    if n < 4 then tester:asserteq(y:select(2, b):narrow(1, n + 1, 4 - n):abs():sum(), 0, 'padding') end
  end
  tester:assertTableEq(l:totable(), { 2, 4, 3 })
  local again = R.packPaddedSequence(y, l, false, false)
  tester:assertTensorEq(again.data, p.data, 0, 'pack(pad(pack)) == pack')
  -- Sequences of length 0 pad fully; PackedSequence methods convert data and keep the indices.
  tester:assertTensorEq(R.padSequence({ torch.ones(2), torch.ones(0) }), torch.Tensor({ { 1, 0 }, { 1, 0 } }), 0, 'empty sequence')
  local f = p:float()
  tester:asserteq(torch.type(f.data), 'torch.FloatTensor')
  tester:assertTensorEq(f:double().data, p.data, 1e-6)
  tester:assertTableEq(p:to('torch.FloatTensor').unsortedIndices:totable(), p.unsortedIndices:totable())
  tester:asserteq(p:type(), 'torch.DoubleTensor')
  tester:asserteq(p:type('torch.FloatTensor'):type(), 'torch.FloatTensor')
  tester:assert(not p:isCuda())
  tester:asserteq(tostring(R.packSequence({ torch.ones(2, 3), torch.ones(1, 3) })),
    'nn.PackedSequence(data: torch.FloatTensor of size 3x3, batchSizes: 2 1)')
  local made = nn.PackedSequence(p.data, p.batchSizes, p.sortedIndices)
  tester:assertTableEq(made.unsortedIndices:totable(), p.unsortedIndices:totable(), 'unsortedIndices computed')
  local s = torch.deserialize(torch.serialize(p))
  tester:assertTensorEq(s.data, p.data, 0, 'serialized')
  tester:assertTableEq(s.sortedIndices:totable(), p.sortedIndices:totable())
end

function tests.gradientsFlowThroughPacking()
  local a, b = torch.randn(3, 2):double():requiresGrad(), torch.randn(2, 2):double():requiresGrad()
  local ps = R.packSequence({ b, a }, false)
  local padded = R.padPackedSequence(ps, true)
  local wt = torch.randn(padded:size()):double()
  torch.cmul(padded, wt):sum():backward()
  -- padded[1] is b (2 steps), padded[2] is a (3 steps); padding rows get no gradient.
  tester:assertTensorEq(b.grad, wt[1]:narrow(1, 1, 2), 1e-12, 'gradient of b')
  tester:assertTensorEq(a.grad, wt[2], 1e-12, 'gradient of a')
end

function tests.errorsNameTheFunction()
  local x = torch.randn(4, 3, 2)
  tester:assertErrorPattern(function() R.packPaddedSequence(x, { 2, 4, 3 }) end,
    '%[packPaddedSequence%] lengths must be sorted in decreasing order when enforceSorted is true, got 2 4 3')
  tester:assertErrorPattern(function() R.packSequence({ torch.ones(1, 2), torch.ones(2, 2) }) end,
    '%[packSequence%] lengths must be sorted in decreasing order')
  tester:assertErrorPattern(function() R.packPaddedSequence(x, { 4, 3, 0 }) end, '%[packPaddedSequence%] lengths%[3%] = 0: every length must be in %[1, 4%]')
  tester:assertErrorPattern(function() R.packPaddedSequence(x, { 5, 3, 1 }) end, 'lengths%[1%] = 5')
  tester:assertErrorPattern(function() R.packPaddedSequence(x, { 4, 3 }) end,
    '%[packPaddedSequence%] expected 3 lengths %(the batch size of torch%.FloatTensor of size 4x3x2%), got 2')
  tester:assertErrorPattern(function() R.packPaddedSequence(x, { 3, 4, 3 }, true) end, 'batch size of .* got 3')
  tester:assertErrorPattern(function() R.packPaddedSequence(x, 'abc') end, '%[packPaddedSequence%] lengths must be a table, a LongStorage or a 1%-D LongTensor, got string')
  tester:assertErrorPattern(function() R.packPaddedSequence(x, torch.Tensor({ 4, 3, 2 })) end, 'got torch%.FloatTensor')
  tester:assertErrorPattern(function() R.packPaddedSequence(x, { 4, 2.5, 1 }) end, 'lengths%[2%] is 2%.5, expected an integer')
  tester:assertErrorPattern(function() R.packPaddedSequence({}, { 1 }) end, '%[packPaddedSequence%] input must be a tensor')
  tester:assertErrorPattern(function() R.packPaddedSequence(x, { 4, 3, 2 }, 'yes') end, 'batchFirst must be a boolean, got string')
  tester:assertErrorPattern(function() R.packPaddedSequence(x, { 4, 3, 2 }, { batch = true }) end, 'unknown option batch')
  tester:assertErrorPattern(function() R.padSequence({}) end, '%[padSequence%] expected a non%-empty list of tensors')
  tester:assertErrorPattern(function() R.padSequence({ torch.ones(2, 3), torch.ones(2, 4) }) end,
    '%[padSequence%] sequence 2 is torch%.FloatTensor of size 2x4 but sequence 1 is torch%.FloatTensor of size 2x3')
  tester:assertErrorPattern(function() R.padSequence({ torch.ones(2), torch.ones(2):double() }) end, 'sequence 2 is torch%.DoubleTensor')
  tester:assertErrorPattern(function() R.packSequence({ torch.ones(2, 3), 5 }) end, '%[packSequence%] sequence 2 is number')
  tester:assertErrorPattern(function() R.padPackedSequence(x) end, '%[padPackedSequence%] expected a nn%.PackedSequence, got torch%.FloatTensor')
  local ps = R.packSequence({ torch.ones(3, 2), torch.ones(1, 2) })
  tester:assertErrorPattern(function() R.padPackedSequence(ps, false, 0, 2) end, 'totalLength must be an integer at least the longest length 3, got 2')
  tester:assertErrorPattern(function() nn.PackedSequence(torch.ones(3, 2), torch.LongTensor({ 1, 2 })) end,
    'batchSizes must be positive and non%-increasing')
  tester:assertErrorPattern(function() nn.PackedSequence(torch.ones(4, 2), torch.LongTensor({ 2, 1 })) end, 'data has 4 rows but batchSizes add up to 3')
  -- The modules check packed input like any other.
  local m = nn.GRU(3, 2, { bidirectional = true })
  tester:assertErrorPattern(function() m:forward(R.packSequence({ torch.ones(2, 4) })) end, 'expected packed data of size rows x 3')
  tester:assertErrorPattern(function() m:forward({ R.packSequence({ torch.ones(2, 3), torch.ones(1, 3) }), torch.zeros(2, 3, 2) }) end,
    'h0 must be 2x2x2, got torch%.FloatTensor of size 2x3x2')
  tester:assertErrorPattern(function() m:forward(R.packSequence({ torch.ones(2, 3) }):double()) end, 'input is a torch%.DoubleTensor')
  local p = R.packSequence({ torch.ones(2, 3) })
  m:forward(p)
  tester:assertErrorPattern(function() m:backward(R.packSequence({ torch.zeros(2, 3) }), m.output) end, 'another input')
  tester:assertErrorPattern(function() m:backward(p, torch.ones(2, 2)) end, 'gradOutput must be a PackedSequence or a tensor of the packed output size 2x4')
end

local function check_case(case, path)
  local mode, L, _, states, ref = unpack(case)
  local name = string.format('packed bidirectional %s %d layers%s (%s)', mode, L, states and '' or ' no states', path)
  local m = make(mode, L)
  local x, h0, c0 = inputs(L)
  local gx, gh, gc
  m:zeroGradParameters()
  if path == 'autograd' then
    for _, t in ipairs({ x, h0, c0 }) do t:requiresGrad() end
    local ps = R.packPaddedSequence(x, LENGTHS, false, false)
    m:forward(states and (mode == 'LSTM' and { ps, h0, c0 } or { ps, h0 }) or ps)
    util.loss(m, m.output.data, util.lossGrads(m, m.output.data)):backward()
    gx, gh, gc = x.grad, states and h0.grad, states and c0.grad
  else
    local ps = R.packPaddedSequence(x, LENGTHS, false, false)
    local input = states and (mode == 'LSTM' and { ps, h0, c0 } or { ps, h0 }) or ps
    m:forward(input)
    local gi = m:backward(input, util.lossGrads(m, m.output.data))
    local gps = states and gi[1] or gi
    tester:asserteq(torch.typename(gps), 'nn.PackedSequence', name .. ': gradInput is packed')
    gx = R.padPackedSequence(gps, false, 0, T)
    if states then gh, gc = gi[2], gi[3] end
  end
  tester:assertTableEq(m.output.batchSizes:totable(), { 4, 3, 3, 2, 1 }, name .. ': batchSizes')
  tester:assertTableEq(m.hN:size():totable(), { 2 * L, B, H }, name .. ': hN size')
  util.checkFingerprint(tester, m, m.output.data, gx, gh, gc, true, ref, name)
  return m
end

function tests.modulesOnPackedInputMatchPyTorch()
  for _, case in ipairs(reference) do
    check_case(case, 'autograd')
    local m = check_case(case, 'torch7')
    if case[1] == 'LSTM' then
      -- PyTorch 1.13: pad_packed_sequence(out) is 5x4x4, lengths [3, 5, 1, 4], fingerprint below.
      local padded, lengths = R.padPackedSequence(m.output)
      tester:assertTableEq(padded:size():totable(), { 5, 4, 4 })
      tester:assertTableEq(lengths:totable(), LENGTHS)
      tester:assertalmosteq(util.fp(padded, 0.31, 0.4), -0.5747860645563784, 1e-9, 'padded output')
    end
  end
end

-- A packed batch gives each sequence what running it alone (unbatched, no padding) gives.
function tests.packedEqualsEachSequenceAlone()
  torch.manualSeed(7)
  for _, mode in ipairs({ 'LSTM', 'GRU', 'RNN_RELU' }) do
    for _, bidir in ipairs({ true, false }) do
      local dirs = bidir and 2 or 1
      local m = make(mode, 2, { bidirectional = bidir, batchFirst = true })  -- packed input ignores batchFirst
      local x, h0, c0 = inputs(2, dirs)
      local seqs = {}
      for b, n in ipairs(LENGTHS) do seqs[b] = x:select(2, b):narrow(1, 1, n) end
      local ps = R.packSequence(seqs, false)
      local out = m:forward(mode == 'LSTM' and { ps, h0, c0 } or { ps, h0 })
      local padded = R.padPackedSequence(out)
      local hN, cN = m.hN:clone(), m.cN and m.cN:clone()
      local label = string.format('%s %s', mode, bidir and 'bidirectional' or 'one direction')
      local grads = {}
      m:zeroGradParameters()
      local loss = torch.cmul(out.data, w(out.data, 0.3, 0.2)):sum()
      loss:backward()
      for k, g in ipairs(select(2, m:parameters())) do grads[k] = g:clone() end
      m:zeroGradParameters()
      local sum = 0
      for b, n in ipairs(LENGTHS) do
        local y = m:forward(mode == 'LSTM' and { seqs[b], h0:select(2, b), c0:select(2, b) } or { seqs[b], h0:select(2, b) })
        tester:assertTensorEq(padded:select(2, b):narrow(1, 1, n), y, 1e-12, label .. ': output of sequence ' .. b)
        tester:assertTensorEq(hN:select(2, b), m.hN, 1e-12, label .. ': hN of sequence ' .. b)
        if cN then tester:assertTensorEq(cN:select(2, b), m.cN, 1e-12, label .. ': cN of sequence ' .. b) end
        -- The same loss, term by term: the packed rows of sequence b are its steps.
        local rows = {}
        local order, off = out.unsortedIndices:totable(), 0
        for t = 1, n do rows[t] = off + order[b] off = off + out.batchSizes[t] end
        local wt = w(out.data, 0.3, 0.2):index(1, torch.LongTensor(rows))
        sum = sum + torch.cmul(y, wt):sum()
      end
      sum:backward()
      for k, g in ipairs(select(2, m:parameters())) do
        tester:assertTensorEq(g, grads[k], 1e-10, label .. ': gradient of parameter ' .. k)
      end
    end
  end
end

function tests.torch7BackwardEqualsLossBackward()
  torch.manualSeed(8)
  for _, mode in ipairs({ 'LSTM', 'GRU' }) do
    local m = ctor(mode)(3, 2, { numLayers = 3, dropout = 0.5, bidirectional = true }):double()
    local ps = R.packPaddedSequence(torch.randn(T, B, 3):double(), LENGTHS, false, false)
    ps.data:requiresGrad()
    local h0, c0 = torch.randn(6, B, 2):double():requiresGrad(), torch.randn(6, B, 2):double():requiresGrad()
    local input = mode == 'LSTM' and { ps, h0, c0 } or { ps, h0 }
    local out = m:forward(input)  -- one forward: both paths see the same dropout masks
    local go, gh, gc = torch.randn(out.data:size()):double(), torch.randn(6, B, 2):double(), torch.randn(6, B, 2):double()
    m:zeroGradParameters()
    local gi = m:backward(input, { nn.PackedSequence(go, out.batchSizes, out.sortedIndices), gh, mode == 'LSTM' and gc or nil })
    local t7 = { gi[1].data:clone(), gi[2]:clone(), gi[3] and gi[3]:clone() }
    local _, grads = m:parameters()
    local pg = {}
    for k, g in ipairs(grads) do pg[k] = g:clone() end
    m:zeroGradParameters()
    local loss = torch.cmul(out.data, go):sum() + torch.cmul(m.hN, gh):sum()
    if mode == 'LSTM' then loss = loss + torch.cmul(m.cN, gc):sum() end
    loss:backward()
    tester:assertTensorEq(ps.data.grad, t7[1], 1e-12, mode .. ' input')
    tester:assertTensorEq(h0.grad, t7[2], 1e-12, mode .. ' h0')
    if mode == 'LSTM' then tester:assertTensorEq(c0.grad, t7[3], 1e-12, mode .. ' c0') end
    for k, g in ipairs(grads) do tester:assertTensorEq(g, pg[k], 1e-12, mode .. ' parameter ' .. k) end
    tester:assertgt(pg[1]:abs():max(), 0)
    -- updateGradInput then accGradParameters with a scale; a bare tensor as gradOutput.
    m:zeroGradParameters()
    m:updateGradInput(input, go)
    m:accGradParameters(input, go, 0.5)
    local ref = m:clone()
    ref:zeroGradParameters()
    ref:backward(input, { go })
    tester:assertTensorEq(grads[1], select(2, ref:parameters())[1]:mul(0.5), 1e-12, mode .. ' scaled')
  end
end

-- type() and clearState() drop a packed output and gradInput (their indices must stay integers);
-- a module that ran on packed input still serializes and runs afterwards.
function tests.typeClearStateAndSerialization()
  local m = make('LSTM', 2)
  local x, h0, c0 = inputs(2)
  local ps = R.packPaddedSequence(x, LENGTHS, false, false)
  local out = m:forward({ ps, h0, c0 })
  m:backward({ ps, h0, c0 }, out)
  local m2 = torch.deserialize(torch.serialize(m))
  tester:assertTensorEq(m2:forward({ ps, h0, c0 }).data, out.data, 1e-12, 'deserialized module on packed input')
  tester:assertTensorEq(m2.cN, m.cN, 1e-12, 'deserialized cN')
  m:float()
  tester:assert(torch.isTensor(m.output) and m.output:nElement() == 0 and torch.isTensor(m.gradInput), 'type drops packed output')
  local f = m:forward({ ps:float(), h0:float(), c0:float() })
  tester:assertTensorEq(f.data:double(), out.data, 1e-5, 'float module')
  m:clearState()
  tester:assert(torch.isTensor(m.output) and m.output:nElement() == 0 and m.hN == nil, 'clearState drops packed output')
end

D.cpuOnly(tests, 'PackedSequence inputs are not moved by the replay (cudaMatchesCpu covers CUDA)',
  'modulesOnPackedInputMatchPyTorch', 'packedEqualsEachSequenceAlone', 'torch7BackwardEqualsLossBackward', 'errorsNameTheFunction',
  'typeClearStateAndSerialization')

function tests.cudaMatchesCpu()
  if not torch.cuda.isAvailable() then return end
  for _, mode in ipairs({ 'LSTM', 'GRU' }) do
    local m = make(mode, 2)
    local x, h0, c0 = inputs(2)
    local ps = R.packPaddedSequence(x, LENGTHS, false, false)
    local input = mode == 'LSTM' and { ps, h0, c0 } or { ps, h0 }
    local out = m:forward(input)
    local gi = m:backward(input, { out.data:clone():fill(1), m.hN:clone():fill(1) })
    local mc = m:clone():type('torch.CudaDoubleTensor')
    mc:zeroGradParameters()
    local psc = R.packPaddedSequence(x:cuda(), torch.LongTensor(LENGTHS), false, false)
    tester:assert(psc.sortedIndices:isCuda() and not psc.batchSizes:isCuda(), 'indices on the device, batchSizes on the CPU')
    local ic = mode == 'LSTM' and { psc, h0:cuda(), c0:cuda() } or { psc, h0:cuda() }
    local oc = mc:forward(ic)
    tester:assertTensorEq(oc.data:double(), out.data, 1e-10, mode .. ' cuda output')
    tester:assertTensorEq(mc.hN:double(), m.hN, 1e-10, mode .. ' cuda hN')
    local gic = mc:backward(ic, { oc.data:clone():fill(1), mc.hN:clone():fill(1) })
    tester:assertTensorEq(gic[1].data:double(), gi[1].data, 1e-10, mode .. ' cuda gradInput')
    tester:assertTensorEq(mc.gradWeight_hh_l1_reverse:double(), m.gradWeight_hh_l1_reverse, 1e-10, mode .. ' cuda gradWeight')
    tester:assertTensorEq(R.padPackedSequence(ps:cuda()):double(), R.padPackedSequence(ps), 0, 'padPackedSequence on cuda')
  end
end

-- Its CPU calls take a PackedSequence too, which the replay would leave on the CPU beside a CUDA
-- twin ("input is a torch.DoubleTensor but the parameters are torch.CudaDoubleTensor"); its own
-- CUDA calls compare with the CPU themselves.
D.cpuOnly(tests, 'PackedSequence inputs are not moved by the replay (the case compares CUDA with the CPU itself)',
  'cudaMatchesCpu')

tester:add(tests)
tester:run()
