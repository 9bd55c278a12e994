-- nn shape layers: Reshape, View, Transpose, Narrow, Select, Squeeze, Unsqueeze, Padding,
-- Replicate, Contiguous and Copy: outputs against element-by-element references, batch rules,
-- Jacobians, save/load, autograd, clearState, types, printing and bad-input errors.
require 'nn'
local dir = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/[^/]*$') or '.'
local checks = dofile(dir .. '/fixtures/nn_checks.lua')
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local tester = torch.Tester()
local tests = torch.TestSuite()
torch.setdefaulttensortype('torch.DoubleTensor')
torch.manualSeed(1234)

local function seq(...)
  local s = torch.LongStorage({ ... })
  local n = 1
  for i = 1, #s do n = n * s[i] end
  return torch.range(1, n):view(s)
end

function tests.reshape()
  local m = nn.Reshape(3, 2)
  local x = seq(2, 3)
  local y = m:forward(x)
  tester:assertTableEq(y:size():totable(), { 3, 2 })
  for i = 1, 6 do tester:asserteq(y:view(-1)[i], i) end
  -- More elements: the first dim is a batch; batchMode forces either reading.
  tester:assertTableEq(m:forward(seq(4, 6)):size():totable(), { 4, 3, 2 })
  tester:assertTableEq(nn.Reshape(6):forward(seq(1, 6)):size():totable(), { 1, 6 })
  tester:assertTableEq(nn.Reshape(6, false):forward(seq(1, 6)):size():totable(), { 6 })
  tester:assertTableEq(nn.Reshape(3, true):forward(seq(2, 3)):size():totable(), { 2, 3 })
  -- Non-contiguous input is copied first.
  local t = seq(3, 2):t()
  tester:assertTensorEq(nn.Reshape(6):forward(t), t:contiguous():view(6), 0)
  tester:asserteq(tostring(m), 'nn.Reshape(3x2)')
  tester:asserteq(tostring(nn.Reshape(torch.LongStorage({ 4, 5 }))), 'nn.Reshape(4x5)')
  checks.standard(tester, nn.Reshape(6), torch.Tensor(4, 2, 3))
  checks.jacobian(tester, nn.Reshape(2, 3), torch.Tensor(6))
  tester:assertErrorPattern(function() m:forward(seq(4, 5)) end, 'nn.Reshape%(3x2%)%] input of size 4x5 is not a batch')
  tester:assertErrorPattern(function() nn.Reshape(6, false):forward(seq(7)) end, 'has 7 elements, expected 6')
  tester:assertErrorPattern(function() nn.Reshape(0) end, 'size 1 must be an integer >= 1')
end

function tests.view()
  local x = seq(2, 3, 4)
  tester:assertTableEq(nn.View(6, 4):forward(x):size():totable(), { 6, 4 })
  tester:assertTableEq(nn.View(-1):forward(x):size():totable(), { 24 })
  tester:assertTableEq(nn.View(3, -1):forward(x):size():totable(), { 3, 8 })
  -- Leading dims beyond the view's element count form the batch.
  tester:assertTableEq(nn.View(12):forward(x):size():totable(), { 2, 12 })
  -- setNumInputDims: the last n dims are one sample, even for a batch of one.
  local v = nn.View(-1):setNumInputDims(2)
  tester:assertTableEq(v:forward(x):size():totable(), { 2, 12 })
  tester:assertTableEq(v:forward(seq(1, 3, 4)):size():totable(), { 1, 12 })
  tester:assertTableEq(nn.View(12):setNumInputDims(2):forward(seq(3, 4)):size():totable(), { 12 })
  tester:assertTensorEq(nn.View(6, 4):forward(x), x:view(6, 4), 0)
  tester:asserteq(tostring(nn.View(2, -1)), 'nn.View(2, -1)')
  checks.standard(tester, nn.View(-1):setNumInputDims(2), torch.Tensor(3, 2, 2))
  checks.jacobian(tester, nn.View(2, 2), torch.Tensor(4))
  -- Non-contiguous input is copied (Torch7 refused it).
  tester:assertTensorEq(nn.View(6):forward(seq(2, 3):t()), seq(2, 3):t():contiguous():view(6), 0)
  tester:assertErrorPattern(function() nn.View(5):forward(x) end, 'nn.View%(5%)%] input view %(2x3x4%) and desired view %(5%) do not match')
  tester:assertErrorPattern(function() nn.View(-1, -1) end, 'only one size can be %-1')
  tester:assertErrorPattern(function() nn.View(0) end, 'positive integer or %-1')
end

function tests.transpose()
  local x = seq(2, 3, 4)
  local m = nn.Transpose({ 1, 3 }, { 1, 2 })
  local y = m:forward(x)
  tester:assertTableEq(y:size():totable(), { 3, 4, 2 })
  for i = 1, 2 do for j = 1, 3 do for k = 1, 4 do tester:asserteq(y[j][k][i], x[i][j][k]) end end end
  tester:assert(y:isContiguous())
  -- setNumInputDims shifts past a batch dim.
  local b = nn.Transpose({ 1, 2 }):setNumInputDims(2)
  tester:assertTensorEq(b:forward(x), x:transpose(2, 3):contiguous(), 0)
  tester:assertTensorEq(b:forward(x[1]), x[1]:t():contiguous(), 0)
  checks.standard(tester, nn.Transpose({ 1, 2 }, { 2, 3 }), torch.Tensor(2, 3, 4))
  tester:asserteq(tostring(m), 'nn.Transpose')
  tester:assertErrorPattern(function() m:forward(seq(2, 3)) end, 'nn.Transpose%({1,3}, {1,2}%)%] cannot swap dims 1 and 3')
  tester:assertErrorPattern(function() nn.Transpose(2) end, 'permutation 1 must be a pair')
end

function tests.narrow()
  local x = seq(3, 5)
  tester:assertTensorEq(nn.Narrow(2, 2, 3):forward(x), x:narrow(2, 2, 3), 0)
  tester:assertTensorEq(nn.Narrow(1, 2):forward(x), x:narrow(1, 2, 1), 0)
  -- Negative dimension and offset count from the end; length -1 runs to the end, -2 one short.
  tester:assertTensorEq(nn.Narrow(-1, -2, 2):forward(x), x:narrow(2, 4, 2), 0)
  tester:assertTensorEq(nn.Narrow(2, 2, -1):forward(x), x:narrow(2, 2, 4), 0)
  tester:assertTensorEq(nn.Narrow(2, 2, -2):forward(x), x:narrow(2, 2, 3), 0)
  local m = nn.Narrow(2, 2, 3)
  local gi = m:backward(x, torch.ones(3, 3))
  tester:assertTensorEq(gi, torch.Tensor({ { 0, 1, 1, 1, 0 }, { 0, 1, 1, 1, 0 }, { 0, 1, 1, 1, 0 } }), 0)
  checks.standard(tester, nn.Narrow(-1, 2, -1), torch.Tensor(3, 5))
  checks.jacobian(tester, nn.Narrow(1, 2, 2), torch.Tensor(4))
  tester:assertErrorPattern(function() m:forward(seq(3, 3)) end, 'nn.Narrow%(2, 2, 3%)%] cannot take 3 elements from 2')
  tester:assertErrorPattern(function() nn.Narrow(3, 1):forward(x) end, 'dimension 3 is out of range for an input of size 3x5')
  tester:assertErrorPattern(function() nn.Narrow(1) end, 'usage')
end

function tests.select()
  local x = seq(3, 4)
  tester:assertTensorEq(nn.Select(1, 2):forward(x), x[2], 0)
  tester:assertTensorEq(nn.Select(2, -1):forward(x), x:select(2, 4), 0)
  tester:assertTensorEq(nn.Select(-1, 1):forward(seq(2, 3, 4)), seq(2, 3, 4):select(3, 1), 0)
  local gi = nn.Select(2, 3):backward(x, torch.ones(3))
  tester:assertTensorEq(gi:select(2, 3), torch.ones(3), 0)
  tester:asserteq(gi:sum(), 3)
  checks.standard(tester, nn.Select(2, -2), torch.Tensor(3, 4))
  tester:assertErrorPattern(function() nn.Select(1, 4):forward(x) end, 'nn.Select%(1, 4%)%] index 4 is out of range for dimension 1')
end

function tests.squeezeUnsqueeze()
  local x = seq(2, 1, 3, 1)
  tester:assertTableEq(nn.Squeeze():forward(x):size():totable(), { 2, 3 })
  tester:assertTableEq(nn.Squeeze(2):forward(x):size():totable(), { 2, 3, 1 })
  -- numInputDims: a batch of one keeps its batch dim; dim shifts past the batch dim.
  tester:assertTableEq(nn.Squeeze(nil, 3):forward(seq(1, 1, 3, 1)):size():totable(), { 1, 3 })
  tester:assertTableEq(nn.Squeeze(1, 2):forward(seq(4, 1, 3)):size():totable(), { 4, 3 })
  checks.standard(tester, nn.Squeeze(), torch.Tensor(2, 1, 3))
  local u = nn.Unsqueeze(2)
  tester:assertTableEq(u:forward(seq(3, 4)):size():totable(), { 3, 1, 4 })
  tester:assertTableEq(nn.Unsqueeze(3):forward(seq(3, 4)):size():totable(), { 3, 4, 1 })
  tester:assertTableEq(nn.Unsqueeze(1, 2):forward(seq(5, 3, 4)):size():totable(), { 5, 1, 3, 4 })
  tester:assertTensorEq(u:forward(seq(3, 4)):view(3, 4), seq(3, 4), 0)
  tester:asserteq(tostring(u), 'nn.Unsqueeze(dim 2)')
  checks.standard(tester, nn.Unsqueeze(2), torch.Tensor(3, 4))
  tester:assertErrorPattern(function() nn.Unsqueeze(4):forward(seq(3, 4)) end, 'cannot insert dim 4 into an input of size 3x4')
  tester:assertErrorPattern(function() nn.Unsqueeze(1, 3):forward(seq(3, 4)) end, 'numInputDims %(3%) is more')
  tester:assertErrorPattern(function() nn.Unsqueeze() end, 'pos must be an integer')
  tester:assertErrorPattern(function() nn.Squeeze(3):forward(seq(2, 1)) end, 'dimension 3 is out of range')
end

function tests.padding()
  local x = seq(2, 3)
  -- pad < 0: before position index (from the left); pad > 0: after index from the right.
  tester:assertTensorEq(nn.Padding(2, -1):forward(x), torch.Tensor({ { 0, 1, 2, 3 }, { 0, 4, 5, 6 } }), 0)
  tester:assertTensorEq(nn.Padding(2, 2, nil, 9):forward(x), torch.Tensor({ { 1, 2, 3, 9, 9 }, { 4, 5, 6, 9, 9 } }), 0)
  tester:assertTensorEq(nn.Padding(2, -1, nil, 7, 3):forward(x), torch.Tensor({ { 1, 2, 7, 3 }, { 4, 5, 7, 6 } }), 0)
  tester:assertTensorEq(nn.Padding(2, 1, nil, 7, 2):forward(x), torch.Tensor({ { 1, 2, 7, 3 }, { 4, 5, 7, 6 } }), 0)
  tester:assertTensorEq(nn.Padding(1, 1):forward(x), torch.Tensor({ { 1, 2, 3 }, { 4, 5, 6 }, { 0, 0, 0 } }), 0)
  -- nInputDim: a batch input pads the dim after the batch dim.
  tester:assertTensorEq(nn.Padding(1, -1, 1):forward(x), torch.Tensor({ { 0, 1, 2, 3 }, { 0, 4, 5, 6 } }), 0)
  tester:assertTensorEq(nn.Padding(1, -1, 1):forward(x[1]), torch.Tensor({ 0, 1, 2, 3 }), 0)
  checks.standard(tester, nn.Padding(2, -2, nil, 3, 2), torch.Tensor(3, 4))
  checks.jacobian(tester, nn.Padding(1, 2, 1, 0.5), torch.Tensor(2, 3))
  tester:assertErrorPattern(function() nn.Padding(3, 1):forward(x) end, 'nn.Padding%(3, 1%)%] dimension 3 is out of range')
  tester:assertErrorPattern(function() nn.Padding(2, -1, nil, 0, 5):forward(x) end, 'index 5 is out of range')
end

function tests.replicate()
  local x = seq(2, 3)
  local m = nn.Replicate(4, 2)
  local y = m:forward(x)
  tester:assertTableEq(y:size():totable(), { 2, 4, 3 })
  for k = 1, 4 do tester:assertTensorEq(y:select(2, k), x, 0) end
  tester:asserteq(y:stride(2), 0, 'a view, not a copy')
  tester:assertTableEq(nn.Replicate(3):forward(x):size():totable(), { 3, 2, 3 })
  tester:assertTableEq(nn.Replicate(5, 1, 1):forward(x):size():totable(), { 2, 5, 3 })
  tester:assertTensorEq(m:backward(x, torch.ones(2, 4, 3)), torch.Tensor(2, 3):fill(4), 0)
  checks.standard(tester, nn.Replicate(3, 2), torch.Tensor(2, 3))
  checks.jacobian(tester, nn.Replicate(2, 2, 1), torch.Tensor(3, 2))
  tester:assertErrorPattern(function() nn.Replicate(2, 4):forward(x) end, 'not enough input dimensions to replicate along dimension 4')
end

function tests.contiguous()
  local m = nn.Contiguous()
  local x = seq(3, 4)
  tester:asserteq(m:forward(x), x, 'contiguous input passes through')
  local t = x:t()
  local y = m:forward(t)
  tester:assert(y:isContiguous())
  tester:assertTensorEq(y, t, 0)
  tester:assertTensorEq(x, seq(3, 4), 0, 'the earlier input is untouched')
  checks.standard(tester, nn.Contiguous(), torch.Tensor(3, 4))
end

function tests.copy()
  local x = torch.randn(3, 2)
  local c = nn.Copy('torch.DoubleTensor', 'torch.FloatTensor')
  local y = c:forward(x)
  tester:asserteq(torch.type(y), 'torch.FloatTensor')
  tester:assertTensorEq(y:double(), x, 1e-6)
  local gi = c:backward(x, torch.ones(3, 2):float())
  tester:asserteq(torch.type(gi), 'torch.DoubleTensor')
  -- Same types pass through unless forceCopy.
  local same = nn.Copy('torch.DoubleTensor', 'torch.DoubleTensor')
  tester:asserteq(same:forward(x), x)
  local forced = nn.Copy('torch.DoubleTensor', 'torch.DoubleTensor', true)
  tester:assert(forced:forward(x) ~= x)
  tester:assertTensorEq(forced.output, x, 0)
  checks.jacobian(tester, nn.Copy('torch.DoubleTensor', 'torch.DoubleTensor', true), torch.Tensor(3, 2))
  checks.io(tester, nn.Copy('torch.DoubleTensor', 'torch.DoubleTensor'), x)
  checks.autograd(tester, nn.Copy('torch.DoubleTensor', 'torch.DoubleTensor', true), x)
  -- dontCast keeps the types through type().
  local keep = nn.Copy('torch.DoubleTensor', 'torch.FloatTensor', false, true)
  keep:double()
  tester:asserteq(torch.type(keep.output), 'torch.FloatTensor')
  tester:assertErrorPattern(function() nn.Copy('torch.NopeTensor') end, 'intype must be a tensor type name')
end

function tests.badInputsAreErrors()
  for _, m in ipairs({ nn.Reshape(2), nn.View(2), nn.Transpose({ 1, 2 }), nn.Narrow(1, 1), nn.Select(1, 1),
                       nn.Squeeze(), nn.Unsqueeze(1), nn.Padding(1, 1), nn.Replicate(2), nn.Contiguous(),
                       nn.Copy() }) do
    tester:assertErrorPattern(function() m:forward({ 1, 2 }) end, '%[nn%.%a+.*%] expected a tensor',
      tostring(m) .. ' rejects a table')
  end
end

tester:add(tests)
tester:run()
