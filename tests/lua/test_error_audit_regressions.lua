-- Regressions from the bad-input audit (every public torch/nn/optim/data/distributions function
-- called with nil, strings, tables, booleans, LongTensors, 0-dim/5-dim/empty tensors, 2^40, NaN,
-- negative or out-of-range dims, CUDA tensors without a GPU). The standard: a Lua error that names
-- the operation and what it received, positioned at the caller's line; never a crash, never a
-- silently wrong result. Each check below runs the bad call on one line and asserts the error's
-- position is that line of this file (not a file under lua/, not missing).
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()
local F = nn.functional

local SRC = debug.getinfo(1, 'S').short_src
local function here() return debug.getinfo(2, 'l').currentline end
local function escape(s) return (s:gsub('[%^%$%(%)%%%.%[%]%*%+%-%?]', '%%%0')) end

-- f must make the bad call from the line `line` (not as a tail call); the error must start with
-- "<this file>:<line>: " and match `pattern`.
local function expect(f, line, pattern)
  local ok, err = pcall(f)
  tester:assert(not ok, 'expected an error matching ' .. pattern)
  if ok then return end
  err = tostring(err)
  tester:assert(err:find('^' .. escape(SRC) .. ':' .. line .. ': ') ~= nil,
    'error not at the caller\'s line ' .. line .. ': ' .. err)
  tester:assert(err:find(pattern) ~= nil, 'error does not match ' .. pattern .. ': ' .. err)
  tester:assert(not err:find('attempt to ', 1, true), 'raw Lua error: ' .. err)
end

-- nn constructors raised with error(msg, 2), which from __init is class.lua's __call (the message
-- said lua/torch/class.lua:105); forward errors used level 0 (no position at all).
function tests.nn_constructor_errors_at_user_line()
  local L
  L = here(); expect(function() local m = nn.Linear(2 ^ 40) end, L, '%[nn%.Linear%] expected positive sizes')
  L = here(); expect(function() local m = nn.BatchNormalization(0 / 0) end, L, '%[nn%.BatchNormalization%]')
  L = here(); expect(function() local m = nn.Dropout(-1) end, L, '%[nn%.Dropout%] illegal percentage')
  L = here(); expect(function() local m = nn.CrossEntropyCriterion(-1) end, L, '%[nn%.CrossEntropyCriterion%]')
  L = here(); expect(function() local m = nn.SELU(-1) end, L, '%[nn%.SELU%]')
  L = here(); expect(function() local m = nn.LayerNorm({}) end, L, '%[nn%.LayerNorm')
  L = here(); expect(function() local m = nn.SpatialConvolutionMM('x') end, L, '%[nn%.SpatialConvolutionMM%]')
end

function tests.nn_forward_errors_at_user_line()
  local lin, relu, mse = nn.Linear(3, 4), nn.ReLU(), nn.MSECriterion()
  local L
  L = here(); expect(function() local y = lin:forward('x') end, L, '%[nn%.Linear%(3 %-> 4%)%] expected a vector of 3 features')
  L = here(); expect(function() local y = relu:forward(torch.LongTensor{1, 2}) end, L, '%[nn%.ReLU%] expected a floating%-point tensor')
  L = here(); expect(function() local y = mse:forward(torch.randn(2, 3), torch.Tensor()) end, L, '%[nn%.MSECriterion%] input is')
  -- inside a container: still the line that called the container's forward
  local seq = nn.Sequential():add(nn.Linear(3, 2)):add(nn.ReLU())
  L = here(); expect(function() local y = seq:forward(torch.randn(2, 5)) end, L, '%[nn%.Linear%(3 %-> 2%)%]')
end

-- A missing size was skipped by `for _, v in ipairs({a, b, c})` (ipairs stops at the first nil):
-- the constructor succeeded and forward failed with "attempt to perform arithmetic on field 'kW'".
function tests.conv_and_pool_constructors_refuse_missing_sizes()
  local L
  L = here(); expect(function() local m = nn.SpatialConvolution(3, 4) end, L, '%[nn%.SpatialConvolution%] expected positive integer sizes')
  L = here(); expect(function() local m = nn.SpatialConvolutionMM(3, 4) end, L, '%[nn%.SpatialConvolutionMM%]')
  L = here(); expect(function() local m = nn.SpatialDilatedConvolution(3, 4) end, L, '%[nn%.SpatialDilatedConvolution%]')
  L = here(); expect(function() local m = nn.SpatialFullConvolution() end, L, '%[nn%.SpatialFullConvolution%]')
  L = here(); expect(function() local m = nn.TemporalConvolution() end, L, '%[nn%.TemporalConvolution%]')
  L = here(); expect(function() local m = nn.VolumetricConvolution() end, L, '%[nn%.VolumetricConvolution%]')
  L = here(); expect(function() local m = nn.VolumetricDilatedConvolution(2 ^ 40) end, L, '%[nn%.VolumetricDilatedConvolution%]')
  L = here(); expect(function() local m = nn.SpatialAveragePooling() end, L, '%[nn%.SpatialAveragePooling%]')
  L = here(); expect(function() local m = nn.SpatialMaxPooling(2) end, L, '%[nn%.SpatialMaxPooling%]')
  L = here(); expect(function() local m = nn.SpatialDilatedMaxPooling() end, L, '%[nn%.SpatialDilatedMaxPooling%] kW must be an integer')
  L = here(); expect(function() local m = nn.VolumetricDilatedMaxPooling(2) end, L, '%[nn%.VolumetricDilatedMaxPooling%] kW must be')
  -- the complete forms still construct
  tester:assert(nn.SpatialConvolution(3, 4, 3, 3) ~= nil)
  tester:assert(nn.SpatialMaxPooling(2, 2) ~= nil)
  tester:assert(nn.TemporalConvolution(3, 4, 2) ~= nil)
  tester:assert(nn.VolumetricConvolution(1, 2, 2, 2, 2) ~= nil)
end

function tests.rnn_constructors_refuse_missing_sizes()
  local L
  L = here(); expect(function() local m = nn.LSTM() end, L, '%[nn%.LSTM%] expected positive integer sizes')
  L = here(); expect(function() local m = nn.GRU(4) end, L, '%[nn%.GRU%] expected positive integer sizes')
  L = here(); expect(function() local m = nn.RNN(2 ^ 40) end, L, '%[nn%.RNN%] expected positive integer sizes')
  tester:assert(nn.LSTM(3, 4) ~= nil)
end

-- F.localResponseNorm(x) / pixelShuffle(x) / channelShuffle(x) without their size compared nil.
function tests.functional_required_integers()
  local x = torch.randn(1, 4, 2, 2)
  local L
  L = here(); expect(function() local y = F.localResponseNorm(x) end, L, '%[localResponseNorm%] expected size %(an integer%), got nil')
  L = here(); expect(function() local y = F.pixelShuffle(x) end, L, '%[pixelShuffle%] expected the upscale factor')
  L = here(); expect(function() local y = F.pixelUnshuffle(x) end, L, '%[pixelUnshuffle%] expected the downscale factor')
  L = here(); expect(function() local y = F.channelShuffle(x) end, L, '%[channelShuffle%] expected groups')
  tester:eq(F.pixelShuffle(x, 2):size():totable(), { 1, 1, 4, 4 })
  tester:eq(F.channelShuffle(x, 2):size():totable(), { 1, 4, 2, 2 })
end

-- x:add(nil) returned x + x (a new tensor, x untouched) and x:csub(nil) zeros: the missing operand
-- fell through to torch.add(res, a, nil), read as the two-operand torch.add(a, b).
function tests.add_csub_missing_operand()
  local x = torch.Tensor{1, 2, 3}
  local L
  L = here(); expect(function() local y = x:add(nil) end, L, '%[add%] expected a tensor or a number as the second operand, got nil')
  L = here(); expect(function() local y = x:add_(nil) end, L, '%[add%]')
  L = here(); expect(function() local y = x:csub(nil) end, L, '%[csub%] expected a tensor or a number as the second operand, got nil')
  tester:eq(x:totable(), { 1, 2, 3 })
  -- the valid forms are unchanged
  tester:eq(x:clone():add(1):totable(), { 2, 3, 4 })
  tester:eq(x:clone():add(2, x):totable(), { 3, 6, 9 })
  tester:eq(torch.add(x, x):totable(), { 2, 4, 6 })
  tester:eq(x:clone():csub(x):totable(), { 0, 0, 0 })
  tester:eq(torch.add(x, 10, x):totable(), { 11, 22, 33 })
end

-- t:apply(99) failed with "attempt to call upvalue 'f' (a number value)" from tensor_apply.lua
-- (and an empty t accepted any f silently).
function tests.apply_map_need_a_function()
  local t, u = torch.Tensor{1, 2}, torch.Tensor{3, 4}
  local L
  L = here(); expect(function() local r = t:apply(99) end, L, '%[apply%] expected a function, got number')
  L = here(); expect(function() local r = torch.Tensor():apply('x') end, L, '%[apply%] expected a function, got string')
  L = here(); expect(function() local r = t:map(u, nil) end, L, '%[map%] expected a function, got nil')
  L = here(); expect(function() local r = t:map2(u, u, {}) end, L, '%[map2%] expected a function, got table')
  local callable = setmetatable({}, { __call = function(_, x) return x + 1 end })
  tester:eq(t:clone():apply(callable):totable(), { 2, 3 })
  tester:eq(t:clone():map(u, function(a, b) return a * b end):totable(), { 3, 8 })
end

function tests.early_stopping_options_must_be_a_table()
  local L
  L = here(); expect(function() local cb = nn.EarlyStopping(-1) end, L, '%[EarlyStopping%] options must be a table')
  tester:assert(nn.EarlyStopping({ patience = 2 }) ~= nil)
end

-- torch.gelu(x, 'tanh') ignored its second argument and returned the erf form.
function tests.gelu_approximate_not_ignored()
  local x = torch.Tensor{-1, 0, 1}
  -- torch.gelu ignored its approximate argument: 'tanh' now computes the tanh form, others are refused
  tester:assertErrorPattern(function() torch.gelu(x, 'fast') end, "%[gelu%] approximate must be 'none' or 'tanh'")
  tester:assertlt(math.abs(torch.gelu(torch.DoubleTensor{1}, 'tanh')[1] - 0.8411919906082768), 1e-12)
  tester:eq(torch.gelu(x, 'none'), torch.gelu(x), 0)
  -- PyTorch 1.13: F.gelu(tensor([1.]), approximate='tanh') = 0.8411919906082768; erf form 0.8413447460685429
  tester:assertlt(math.abs(F.gelu(torch.DoubleTensor{1}, 'tanh')[1] - 0.8411919906082768), 1e-12)
  tester:assertlt(math.abs(torch.gelu(torch.DoubleTensor{1})[1] - 0.8413447460685429), 1e-12)
end

-- torch.special's binary ops checked ipairs({x, y}), which stops at a nil y: the message came from
-- an internal fullLike ("[fullLike] expected a fill value"). torch.rsub(a) named csub.
function tests.binary_special_and_rsub_missing_operand()
  local a = torch.Tensor{2}
  local L
  L = here(); expect(function() local y = torch.igammac(a) end, L, '%[special%.gammaincc%] x must be a tensor or a number, got nil')
  L = here(); expect(function() local y = torch.special.xlog1py(a) end, L, '%[special%.xlog1py%] y must be a tensor or a number, got nil')
  L = here(); expect(function() local y = torch.rsub(a) end, L, '%[rsub%] expected tensor or number operands')
  -- PyTorch 1.13: torch.special.xlog1py(2., 3.) = 2.772588722239781
  tester:assertlt(math.abs(torch.special.xlog1py(torch.DoubleTensor{2}, 3)[1] - 2.772588722239781), 1e-12)
  tester:eq(torch.rsub(torch.Tensor{1, 2}, 10):totable(), { 9, 8 })
end

-- optim.Optimizer called directly (it is the abstract base) concatenated a nil name.
function tests.optimizer_base_class_refused()
  local optim = require 'optim'
  local L
  L = here(); expect(function() local o = optim.Optimizer({ torch.randn(2) }) end, L, '%[optim%.Optimizer%] is the base class')
  L = here(); expect(function() local o = optim.Optimizer() end, L, '%[optim%.Optimizer%]')
  tester:assert(optim.SGD({ torch.randn(2) }, { lr = 0.1 }) ~= nil)
end

-- No crash (signal) for the riskiest inputs of the audit: huge sizes, CUDA without a GPU, bad
-- dims. Run in a child `tocha` so that a crash fails this test instead of killing the suite.
local function find_interpreter() return dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/helpers/interpreter.lua').path end
function tests.risky_calls_raise_in_a_child_process()
  local exe = find_interpreter()
  if not exe or not exe:find('tocha') then return end  -- run through something else: nothing to spawn
  local script = os.tmpname() .. '.lua'
  local f = io.open(script, 'w')
  f:write([[
require 'nn'
local calls = {
  function() return torch.ByteTensor(2 ^ 40) end,
  function() return torch.zeros(2 ^ 40) end,
  function() return torch.randn(2):cuda() end,
  function() return torch.zeros(2, { device = 'cuda' }) end,
  function() return torch.CudaTensor(2) end,
  function() return torch.randn(2, 3):narrow(2, 3, 5) end,
  function() return torch.randn(2, 3):select(-7, 1) end,
  function() return torch.randn(2, 3):index(1, torch.LongTensor{99}) end,
  function() return torch.randn(2, 3):transpose(1, 99) end,
  function() return torch.randn(2, 3):view(2 ^ 40, -1) end,
  function() return torch.mm(torch.randn(2, 3), torch.LongTensor(3, 2):zero()) end,
  function() return torch.randn(1, 2, 1, 2, 1):inverse() end,
  function() return nn.Linear(2, 2):cuda() end,
}
for i, c in ipairs(calls) do
  local ok, err = pcall(c)
  io.write(i, ' ', ok and 'OK' or 'ERR', '\n')
end
io.write('END\n')
]])
  f:close()
  local p = io.popen("'" .. exe .. "' " .. script .. ' 2>&1; echo "rc=$?"')
  local out = p:read('*a')
  p:close()
  os.remove(script)
  tester:assert(out:find('END\n', 1, true) ~= nil, 'the child did not finish: ' .. out)
  tester:eq(tonumber(out:match('rc=(%d+)')), 0, 'child exit status: ' .. out)
  for i = 1, 13 do
    tester:assert(out:find('\n' .. i .. ' ERR\n', 1, true) or (i == 1 and out:find('^1 ERR\n')),
      'call ' .. i .. ' did not raise: ' .. out)
  end
end

-- data: collate of a non-list, progress without numbers, constructors given stray arguments
function tests.dataArgumentsChecked()
  local data = require 'data'
  tester:assertErrorPattern(function() data.collate(3) end, 'collate expects a list of samples, got number')
  tester:assertErrorPattern(function() data.defaultCollate(nil) end, 'collate expects a list of samples, got nil')
  tester:assertErrorPattern(function() data.progress({}) end, '%[progress%] expected %(i, n%)')
  tester:assertErrorPattern(function() data.progress(-1) end, '%[progress%] expected %(i, n%)')
  tester:assertErrorPattern(function() data.StandardScaler(-1) end, '%[StandardScaler%] takes no arguments')
  tester:assertErrorPattern(function() data.LabelEncoder(-1) end, '%[LabelEncoder%] takes no arguments')
end

tester:add(tests)
tester:run()
