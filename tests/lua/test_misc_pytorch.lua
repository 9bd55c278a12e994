-- PyTorch's factories and settings: torch.tensor/asTensor dtype inference (PyTorch 1.13's rules),
-- frombuffer, emptyStrided, setDefaultDtype, setNumThreads, inferenceMode, setPrintoptions and
-- torch.testing.assertClose (its messages compared with PyTorch 1.13's); errors; CUDA.
local ffi = require 'ffi'
local tester = torch.Tester()
local tests = torch.TestSuite()

function tests.tensorInference()
  -- PyTorch 1.13: ints -> int64, any float -> default float, all booleans -> bool, [True, 2] -> int64
  local t = torch.tensor({ { 1, 2 }, { 3, 4 } })
  tester:asserteq(t:type(), 'torch.LongTensor')
  tester:assertTableEq(t:size():totable(), { 2, 2 })
  tester:asserteq(t[2][1], 3)
  tester:asserteq(torch.tensor({ 1, 2.5 }):type(), 'torch.FloatTensor')
  tester:asserteq(torch.tensor({ { true } }):type(), 'torch.BoolTensor')
  local mixed = torch.tensor({ true, 2 })
  tester:asserteq(mixed:type(), 'torch.LongTensor')
  tester:asserteq(mixed[1], 1)
  tester:asserteq(torch.tensor({ 0 / 0 }):type(), 'torch.FloatTensor')
  -- empty tables: PyTorch's sizes [0] and [2, 0], default float type
  tester:assertTableEq(torch.tensor({}):size():totable(), { 0 })
  tester:assertTableEq(torch.tensor({ {}, {} }):size():totable(), { 2, 0 })
  tester:asserteq(torch.tensor({}):type(), 'torch.FloatTensor')
  -- scalars are 0-dim
  local s = torch.tensor(3)
  tester:asserteq(s:dim(), 0)
  tester:asserteq(s:type(), 'torch.LongTensor')
  tester:asserteq(torch.tensor(2 ^ 62):item(), 2 ^ 62)
  tester:asserteq(torch.tensor(false):type(), 'torch.BoolTensor')
  -- 3-D nesting keeps row-major order
  local n = torch.tensor({ { { 1, 2 }, { 3, 4 } }, { { 5, 6 }, { 7, 8 } } })
  tester:asserteq(n[2][1][2], 6)
  -- the default float type follows setDefaultDtype
  torch.setDefaultDtype('float64')
  tester:asserteq(torch.tensor({ 0.5 }):type(), 'torch.DoubleTensor')
  torch.setDefaultDtype('float32')
end

function tests.tensorOptions()
  local t = torch.tensor({ 1, 2 }, { dtype = 'float64', requiresGrad = true })
  tester:asserteq(t:type(), 'torch.DoubleTensor')
  tester:assert(t:needsGrad() and t:isLeaf(), 'a leaf that requires grad')
  -- PyTorch 1.13 truncates toward zero: tensor([1.7, -1.7], dtype=int64) is [1, -1]
  local i = torch.tensor({ 1.7, -1.7 }, { dtype = 'torch.IntTensor' })
  tester:asserteq(i:type(), 'torch.IntTensor')
  tester:assertTableEq(i:totable(), { 1, -1 })
  tester:asserteq(torch.tensor({ 1, 0 }, { dtype = 'bool' }):type(), 'torch.BoolTensor')
  -- from a tensor: a detached copy
  local src = torch.DoubleTensor({ 1, 2 }):requiresGrad()
  local c = torch.tensor(src)
  tester:assert(not c:needsGrad(), 'detached')
  c[1] = 5
  tester:asserteq(src[1], 1, 'a copy')
  -- asTensor: the same tensor when nothing changes, converted otherwise
  local x = torch.DoubleTensor({ 1, 2 })
  tester:asserteq(torch.asTensor(x).p, x.p)
  tester:asserteq(torch.asTensor(x, { dtype = 'float64' }).p, x.p)
  local y = torch.asTensor(x, { dtype = 'float32' })
  tester:asserteq(y:type(), 'torch.FloatTensor')
  tester:asserteq(torch.asTensor({ 1, 2 }):type(), 'torch.LongTensor')
  -- a whole number beyond int64 was written as a float (PyTorch: torch.tensor([1e20]) is float32)
  tester:asserteq(torch.tensor({ 1e20, 1 }):type(), torch.getdefaulttensortype())
  tester:asserteq(torch.tensor(-1e19):type(), torch.getdefaulttensortype())
  tester:asserteq(torch.tensor({ -2 ^ 63 }):type(), 'torch.LongTensor')
end

function tests.tensorErrors()
  tester:assertErrorPattern(function() torch.tensor({ { 1, 2 }, { 3 } }) end,
    '%[tensor%] ragged nesting: sequences at depth 2 have lengths 2 and 1')
  tester:assertErrorPattern(function() torch.tensor({ 1, { 2 } }) end, 'ragged nesting')
  tester:assertErrorPattern(function() torch.tensor({ 'a' }) end, 'expected numbers, booleans or nested tables of them, got string')
  tester:assertErrorPattern(function() torch.tensor({ 300.5 }, { dtype = 'uint8' }) end,
    'value 300.5 cannot be converted to torch.ByteTensor without overflow')
  tester:assertErrorPattern(function() torch.tensor({ 1 }, { dtype = 'complex64' }) end, "expected a dtype such as 'float32'")
  tester:assertErrorPattern(function() torch.tensor({ 1 }, { requiresGrad = true }) end,
    'only floating%-point tensors can require gradients, got torch.LongTensor')
  tester:assertErrorPattern(function() torch.tensor({ x = 1 }) end, 'expected a sequence')
end

function tests.frombuffer()
  local t = torch.frombuffer(string.char(1, 0, 0, 0, 2, 0, 0, 0), { dtype = 'int32' })
  tester:asserteq(t:type(), 'torch.IntTensor')
  tester:assertTableEq(t:totable(), { 1, 2 })
  -- PyTorch 1.13: count 2 from byte 8 of three doubles gives {-2, 1e300}
  local arr = ffi.new('double[3]', { 1.5, -2, 1e300 })
  local d = torch.frombuffer(arr, { dtype = 'float64', count = 2, offset = 8 })
  tester:assertTableEq(d:totable(), { -2, 1e300 })
  local s = ffi.string(arr, 24)
  tester:assertTableEq(torch.frombuffer(s, { dtype = 'float64' }):totable(), { 1.5, -2, 1e300 })
  tester:asserteq(torch.frombuffer('', { dtype = 'uint8' }):nElement(), 0)
  tester:assertErrorPattern(function() torch.frombuffer('abc', { dtype = 'int32' }) end,
    "the buffer's 3 bytes after offset 0 are not a multiple of the element size 4")
  tester:assertErrorPattern(function() torch.frombuffer('abc', {}) end, 'needs a dtype')
  tester:assertErrorPattern(function() torch.frombuffer('abcd', { dtype = 'uint8', count = 5 }) end, 'the buffer has 4')
end

function tests.emptyStrided()
  local t = torch.emptyStrided({ 2, 3 }, { 1, 2 })
  tester:assertTableEq(t:stride():totable(), { 1, 2 })
  tester:assertTableEq(t:size():totable(), { 2, 3 })
  tester:asserteq(t:storage():size(), 6, 'PyTorch 1.13: a storage of 6 elements')
  tester:asserteq(torch.emptyStrided({ 2 }, { 3 }, { dtype = 'int64' }):type(), 'torch.LongTensor')
  tester:assertErrorPattern(function() torch.emptyStrided({ 2, 3 }, { 1 }) end, 'sizes and strides differ in length')
end

function tests.defaultDtypeAndThreads()
  tester:asserteq(torch.getDefaultDtype(), 'float32')
  torch.setDefaultDtype('double')
  tester:asserteq(torch.getdefaulttensortype(), 'torch.DoubleTensor')
  tester:asserteq(torch.getDefaultDtype(), 'float64')
  torch.setDefaultDtype('torch.FloatTensor')
  tester:asserteq(torch.Tensor(1):type(), 'torch.FloatTensor')
  tester:assertErrorPattern(function() torch.setDefaultDtype('int64') end, 'expected a floating dtype')
  tester:asserteq(torch.setNumThreads, torch.setnumthreads)
  tester:asserteq(torch.getNumThreads, torch.getnumthreads)
  local n = torch.getNumThreads()
  torch.setNumThreads(1)
  tester:asserteq(torch.getNumThreads(), 1)
  torch.setNumThreads(n)
end

function tests.inferenceMode()
  local w = torch.DoubleTensor({ 1, 2 }):requiresGrad()
  local y, on, grad = torch.inferenceMode(function(a) return torch.cmul(a, a), torch.isInferenceModeEnabled(), torch.isGradEnabled() end, w)
  tester:assert(on and not grad, 'inside: inference mode on, grad off')
  tester:assert(not y:needsGrad(), 'no graph recorded')
  tester:assert(not torch.isInferenceModeEnabled() and torch.isGradEnabled(), 'restored')
  local _, off = torch.inferenceMode(false, function() return 1, torch.isInferenceModeEnabled() end)
  tester:assert(not off, 'mode false runs fn as is')
  tester:assertErrorPattern(function() torch.inferenceMode(function() error('boom') end) end, 'boom')
  tester:assert(not torch.isInferenceModeEnabled() and torch.isGradEnabled(), 'restored after an error')
end

function tests.printOptions()
  local x = torch.Tensor({ 1 / 3, 2 / 3 })
  local default = tostring(x)
  tester:asserteq(default, ' 0.3333\n 0.6667\n[torch.FloatTensor of size 2]\n')
  torch.setPrintoptions({ precision = 2 })
  tester:asserteq(tostring(x), ' 0.33\n 0.67\n[torch.FloatTensor of size 2]\n')
  torch.setPrintoptions({ sciMode = true })
  tester:asserteq(tostring(x), ' 3.33e-01\n 6.67e-01\n[torch.FloatTensor of size 2]\n')
  torch.setPrintoptions({ profile = 'default' })
  tester:asserteq(tostring(x), default)
  torch.setPrintoptions({ threshold = 5, edgeitems = 2 })
  tester:asserteq(tostring(torch.range(1, 10)), '  1\n  2\n...\n  9\n 10\n[torch.FloatTensor of size 10]\n')
  local m = tostring(torch.range(1, 36):view(6, 6))
  tester:asserteq(m, '  1   2 ...   5   6\n  7   8 ...  11  12\n...\n 25  26 ...  29  30\n 31  32 ...  35  36\n' ..
    '[torch.FloatTensor of size 6x6]\n')
  torch.setPrintoptions({ threshold = 20, edgeitems = 1 })
  tester:asserteq(tostring(torch.range(1, 27):view(3, 3, 3)), '(1,.,.) = \n   1 ...   3\n ...\n   7 ...   9\n\n...\n' ..
    '(3,.,.) = \n  19 ...  21\n ...\n  25 ...  27\n[torch.FloatTensor of size 3x3x3]\n')
  torch.setPrintoptions({ profile = 'default', sciMode = false })
  tester:asserteq(tostring(torch.Tensor({ 1.5e-5, 2e6 })), '       0.0000\n 2000000.0000\n[torch.FloatTensor of size 2]\n')
  torch.setPrintoptions({ profile = 'default', linewidth = 20 })
  tester:assert(tostring(torch.range(1, 12):view(1, 12)):find('Columns 1 to 5') ~= nil, 'linewidth splits columns')
  torch.setPrintoptions({ profile = 'default' })
  tester:asserteq(torch.getPrintoptions().precision, 4)
  tester:assertErrorPattern(function() torch.setPrintoptions({ precison = 2 }) end, 'unknown option precison')
  tester:assertErrorPattern(function() torch.setPrintoptions({ precision = 2.5 }) end, 'precision must be an integer')
end

function tests.assertClose()
  local ac = torch.testing.assertClose
  ac(torch.Tensor({ 1, 2 }), torch.Tensor({ 1, 2 + 1e-6 }))
  ac(torch.DoubleTensor({ 1 }), torch.DoubleTensor({ 1 + 5e-8 }))
  ac({ 1, torch.Tensor({ 2 }) }, { 1, torch.Tensor({ 2 }) })
  ac(torch.Tensor({ 0 / 0 }), torch.Tensor({ 0 / 0 }), { equalNan = true })
  ac(torch.Tensor({ 1 }), torch.DoubleTensor({ 1 }), { checkDtype = false })
  ac(torch.Tensor({ 1 }), torch.Tensor({ 1.1 }), { rtol = 0.2, atol = 0 })
  -- PyTorch 1.13's messages, with 1-based indices
  local ok, msg = pcall(ac, torch.Tensor({ 1, 2, 3 }), torch.Tensor({ 1, 2.5, 3 }))
  tester:assert(not ok)
  tester:assert(msg:find('Tensor-likes are not close!\n\nMismatched elements: 1 / 3 (33.3%)\n' ..
    'Greatest absolute difference: 0.5 at index (2,) (up to 1e-05 allowed)\n' ..
    'Greatest relative difference: 0.2 at index (2,) (up to 1.3e-06 allowed)', 1, true) ~= nil, msg)
  _, msg = pcall(ac, torch.Tensor({ 1 }):view(torch.LongStorage()), torch.Tensor({ 1.5 }):view(torch.LongStorage()))
  tester:assert(msg:find('Scalars are not close!\n\nAbsolute difference: 0.5 (up to 1e-05 allowed)\n' ..
    'Relative difference: 0.333333333333333', 1, true) ~= nil, msg)
  _, msg = pcall(ac, torch.Tensor({ { 1, 0 / 0 } }), torch.Tensor({ { 1, 0 / 0 } }))
  tester:assert(msg:find('Greatest absolute difference: nan at index (1, 2)', 1, true) ~= nil, msg)
  tester:assertErrorPattern(function() ac(torch.Tensor({ 1 }), torch.DoubleTensor({ 1 })) end,
    "the values for attribute 'dtype' do not match: float32 != float64")
  tester:assertErrorPattern(function() ac(torch.Tensor({ 1, 2 }), torch.Tensor({ 1, 2, 3 })) end,
    "the values for attribute 'shape' do not match: {2} != {3}")
  tester:assertErrorPattern(function() ac(torch.Tensor({ 1 }), torch.Tensor({ 1 }), { rtol = 1 }) end,
    'both rtol and atol must be given or both left out')
  tester:assertErrorPattern(function() ac(torch.LongTensor({ 1 }), torch.LongTensor({ 2 })) end, 'up to 0 allowed')
end

function tests.cuda()
  if not torch.cuda.isAvailable() then return end
  local t = torch.tensor({ 1, 2 }, { device = 'cuda', dtype = 'float64' })
  tester:asserteq(t:type(), 'torch.CudaDoubleTensor')
  tester:assertTableEq(t:double():totable(), { 1, 2 })
  tester:asserteq(torch.emptyStrided({ 2, 2 }, { 2, 1 }, { device = 'cuda' }):type(), 'torch.CudaTensor')
  torch.testing.assertClose(torch.Tensor({ 1 }):cuda(), torch.Tensor({ 1 }):cuda())
  tester:assertErrorPattern(function() torch.testing.assertClose(torch.Tensor({ 1 }):cuda(), torch.Tensor({ 1 })) end,
    "attribute 'device' do not match")
end

tester:add(tests)
tester:run()
