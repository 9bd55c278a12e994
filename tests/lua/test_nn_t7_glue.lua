-- Torch7's glue modules and decorators: ZeroGrad, NaN, Collapse, Constant, PrintSize, OneHot,
-- Decorator, DontCast, Profile and Convert: values against plain loops, nn.Jacobian checks in f64,
-- Torch7's backward against autograd's loss:backward(), batch vs one sample, types, printing,
-- errors and serialization. (The table modules: test_nn_t7_table.lua.)
require 'nn'
local D = dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/device/nn_device.lua')  -- TOCHA_TEST_DEVICE
local here = debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.'
local tc = dofile(here .. '/fixtures/nn_table_checks.lua')
local tester = torch.Tester()
local tests = torch.TestSuite()
torch.manualSeed(11)  -- the cases draw random inputs: a failure reproduces
local precision = 1e-7

local function rnd(...) return torch.randn(...):double() end

-- Torch7's backward against autograd's loss:backward() of sum(output .* gradOutput)
-- (fixtures/nn_table_checks.lua).
local function check_autograd(m, input, gradOutput, what) return tc.autograd(tester, m, input, gradOutput, what) end

local function round_trip(m) return torch.deserialize(torch.serialize(m)) end

-- print() captured during fn: the printed lines, joined.
local function captured(fn)
  local lines, old = {}, print
  print = function(...)
    local parts = {}
    for i = 1, select('#', ...) do parts[i] = tostring((select(i, ...))) end
    lines[#lines + 1] = table.concat(parts, '\t')
  end
  local ok, err = pcall(fn)
  print = old
  if not ok then error(err, 0) end
  return table.concat(lines, '\n')
end

function tests.zeroGrad()
  local m = nn.ZeroGrad():double()
  local x = rnd(3, 4)
  tester:assertTensorEq(m:forward(x), x, 0)
  local gi = m:backward(x, rnd(3, 4))
  tester:assertTableEq(gi:size():totable(), { 3, 4 })
  tester:asserteq(gi:abs():sum(), 0)
  check_autograd(m, x, rnd(3, 4), 'nn.ZeroGrad')
  -- a path through ZeroGrad gets nothing, the other path its gradient
  local net = nn.Sequential():add(nn.ConcatTable():add(nn.ZeroGrad()):add(nn.MulConstant(3))):add(nn.CAddTable()):double()
  local xr = x:clone():requiresGrad()
  net:forward(xr):sum():backward()
  tester:assertTensorEq(xr.grad, x:clone():fill(3), 1e-12)
  tester:assertTensorEq(net:backward(x, x:clone():fill(1)), x:clone():fill(3), 1e-12)
  local tg = m:backward({ x, { x } }, { x, { x } })
  tester:asserteq(tg[2][1]:abs():sum(), 0, 'tables too')
  tester:asserteq(tostring(m), 'nn.ZeroGrad')
  tester:assertErrorPattern(function() m:forward(3) end, '%[nn.ZeroGrad%] expected a tensor or a table')
  tester:assertErrorPattern(function() m:backward(x, rnd(2)) end, '%[nn.ZeroGrad%] gradOutput')
end

function tests.nan()
  local lin = nn.Linear(3, 2):double()
  local m = nn.NaN(lin, 'probe')
  tester:asserteq(tostring(m), 'nn.NaN(probe) @ nn.Linear(3 -> 2)')
  local id = nn.NaN(nn.Identity()).id
  tester:asserteq(nn.NaN(nn.Identity()).id, id + 1, 'default ids count up')
  local x = rnd(4, 3)
  tester:assertTensorEq(m:forward(x), lin:forward(x), 0)
  check_autograd(m, x, rnd(4, 2), 'nn.NaN')
  tester:assertlt(nn.Jacobian.testJacobian(m, rnd(4, 3)), precision)
  tester:assertlt(nn.Jacobian.testJacobianParameters(m, rnd(4, 3), lin.weight, lin.gradWeight), precision)
  local bad = x:clone()
  bad[2][2] = 0 / 0
  tester:assertErrorPattern(function() m:forward(bad) end, 'NaN found in input of module :\nnn.NaN%(probe%) @ nn.Linear')
  m:forward(x)
  local go = rnd(4, 2)
  go[1][1] = 0 / 0
  tester:assertErrorPattern(function() m:backward(x, go) end, 'NaN found in gradOutput of module')
  -- under autograd, a NaN coming back to the output is caught too
  local xr = x:clone():requiresGrad()
  local out = m:forward(xr)
  tester:assertErrorPattern(function() out:backward(go) end, 'NaN found in gradOutput of module')
  -- each forward replaces the last one's hooks: a clean backward after a NaN one passes
  for _ = 1, 3 do m:forward(xr) end
  local ok = pcall(function() m:forward(xr):backward(rnd(4, 2)) end)
  tester:assert(ok, 'no NaN, no error')
  lin.weight[1][1] = 0 / 0
  tester:assertErrorPattern(function() m:forward(x) end, 'NaN found in parameters of module')
  -- a module making NaNs of its own
  local mk = nn.NaN(nn.Log():double(), 7)
  tester:assertErrorPattern(function() mk:forward(torch.DoubleTensor({ -1 })) end, 'NaN found in output of module :\nnn.NaN%(7%) @ nn.Log')
  -- log'(0) * 0 = inf * 0
  local lg = nn.NaN(nn.Log():double())
  lg:forward(torch.DoubleTensor({ 0, 1 }))
  tester:assertErrorPattern(function() lg:backward(torch.DoubleTensor({ 0, 1 }), torch.DoubleTensor({ 0, 1 })) end,
    'NaN found in gradInput of module')
  tester:assertErrorPattern(function() lg:updateGradInput(torch.DoubleTensor({ 0, 1 }), torch.DoubleTensor({ 0, 1 })) end,
    'NaN found in gradInput of module')
  local back = round_trip(nn.NaN(nn.Linear(2, 2), 3))
  tester:asserteq(back.id, 3)
  tester:asserteq(#back:parameters(), 2)
  tester:assertErrorPattern(function() nn.NaN('x') end, '%[nn.NaN%] expects a module to decorate')
end

function tests.collapse()
  local m = nn.Collapse(3):double()
  local x = rnd(2, 3, 4, 5)
  local y = m:forward(x)
  tester:assertTableEq(y:size():totable(), { 2, 60 })
  for b = 1, 2 do
    local k = 0
    for i = 1, 3 do for j = 1, 4 do for l = 1, 5 do
      k = k + 1
      tester:asserteq(y[b][k], x[b][i][j][l])
    end end end
  end
  tester:assertTensorEq(m:forward(x[1]), x[1]:contiguous():view(60), 0, 'one sample')
  tester:assertTensorEq(m:forward(x:transpose(1, 2)), x:transpose(1, 2):contiguous():view(3, 40), 0, 'non-contiguous')
  tester:assertTableEq(m:forward(rnd(0, 3, 4, 5)):size():totable(), { 0, 60 }, 'an empty batch')
  tester:assertlt(nn.Jacobian.testJacobian(m, rnd(2, 3, 2, 2)), precision)
  check_autograd(m, x, rnd(2, 60), 'nn.Collapse')
  tester:asserteq(torch.type(nn.Collapse(1):float():forward(torch.randn(2, 3))), 'torch.FloatTensor')
  tester:asserteq(tostring(m), 'nn.Collapse')
  tester:asserteq(round_trip(m).nInputDim, 3)
  tester:assertErrorPattern(function() nn.Collapse() end, 'nInputDim must be an integer')
  tester:assertErrorPattern(function() m:forward({}) end, '%[nn.Collapse%(3%)%] expected a tensor')
end

function tests.constant()
  local v = rnd(2, 3)
  local m = nn.Constant(v, 2):double()
  local y = m:forward(rnd(4, 5, 6))
  tester:assertTableEq(y:size():totable(), { 4, 2, 3 })
  for b = 1, 4 do tester:assertTensorEq(y[b], v, 0) end
  tester:assertTensorEq(m:forward(rnd(5, 6)), v, 0, 'one sample: the value itself')
  y:fill(7)
  tester:assertTensorEq(m.value, v, 0, 'the output is a copy')
  tester:assertTensorEq(nn.Constant(2.5):double():forward('anything'), torch.DoubleTensor({ 2.5 }), 0)
  local x = rnd(4, 5, 6)
  local gi = m:backward(x, rnd(4, 2, 3))
  tester:asserteq(gi:abs():sum(), 0)
  tester:assertTableEq(gi:size():totable(), { 4, 5, 6 })
  check_autograd(m, x, rnd(4, 2, 3), 'nn.Constant')
  -- Torch7's use: append a constant to an input
  local ct = nn.ConcatTable():add(nn.Constant(1, 1)):add(nn.Identity()):double()
  local out = ct:forward(rnd(3, 2))
  tester:assertTensorEq(out[1], torch.ones(3, 1):double(), 0)
  tester:asserteq(torch.type(nn.Constant(3):float():forward(torch.randn(2))), 'torch.FloatTensor')
  tester:asserteq(torch.type(nn.Constant(3):double():forward(torch.randn(2))), 'torch.DoubleTensor')
  tester:asserteq(tostring(m), 'nn.Constant')
  tester:assertTensorEq(round_trip(m).value, v, 0)
  tester:assertErrorPattern(function() nn.Constant('x') end, 'value must be a number or a tensor')
  tester:assertErrorPattern(function() nn.Constant(1, -1) end, 'nInputDim must be an integer >= 0')
  tester:assertErrorPattern(function() m:forward({}) end, '%[nn.Constant%(2x3, 2%)%] expected a tensor input')
end

function tests.printSize()
  local m = nn.PrintSize('probe'):double()
  local x = rnd(2, 3)
  local text = captured(function() tester:assert(m:forward(x) == x, 'passes its input') end)
  tester:assert(text:find('probe:input', 1, true) and text:find('torch.LongStorage of size 2', 1, true), text)
  text = captured(function() m:backward(x, rnd(2, 3)) end)
  tester:assert(text:find('probe:gradOutput', 1, true), text)
  text = captured(function() nn.PrintSize():forward({ x, x }) end)
  tester:assert(text:find('PrintSize:input', 1, true) and text:find('{torch.DoubleTensor of size 2x3, ', 1, true), text)
  captured(function() check_autograd(m, x, rnd(2, 3), 'nn.PrintSize') end)
  tester:asserteq(tostring(m), 'nn.PrintSize')
  tester:asserteq(round_trip(m).prefix, 'probe')
  tester:assertErrorPattern(function() nn.PrintSize(3) end, 'prefix must be a string')
end

function tests.oneHot()
  local m = nn.OneHot(5)
  local idx = torch.LongTensor({ { 1, 5 }, { 3, 3 } })
  local y = m:forward(idx)
  tester:assertTableEq(y:size():totable(), { 2, 2, 5 })
  tester:asserteq(torch.type(y), 'torch.FloatTensor', "the module's type")
  for i = 1, 2 do for j = 1, 2 do for k = 1, 5 do
    tester:asserteq(y[i][j][k], k == idx[i][j] and 1 or 0)
  end end end
  local md = nn.OneHot(5):double()
  tester:asserteq(torch.type(md:forward(torch.DoubleTensor({ 2, 4 }))), 'torch.DoubleTensor')
  tester:assertTensorEq(md:forward(torch.DoubleTensor({ 2, 4 })), md:forward(torch.LongTensor({ 2, 4 })), 0, 'any index type')
  local xf = torch.DoubleTensor({ 1, 2, 3 })
  md:forward(xf)
  tester:asserteq(md:backward(xf, rnd(3, 5)):abs():sum(), 0, 'the indices get a zero gradient')
  tester:assertTableEq(md:forward(torch.LongTensor(0)):size():totable(), { 0, 5 })
  tester:asserteq(tostring(m), 'nn.OneHot')
  tester:asserteq(round_trip(m).outputSize, 5)
  tester:assertErrorPattern(function() nn.OneHot(0) end, 'outputSize must be an integer >= 1')
  tester:assertErrorPattern(function() m:forward(torch.LongTensor({ 6 })) end, '%[nn.OneHot%(5%)%] expected whole numbers in 1%.%.5, got values in %[6, 6%]')
  tester:assertErrorPattern(function() m:forward(torch.Tensor({ 1.5 })) end, 'not all whole')
  tester:assertErrorPattern(function() m:forward({}) end, 'expected a tensor of class indices')
end

function tests.decorator()
  local lin = nn.Linear(3, 2):double()
  local d = nn.Decorator(lin)
  tester:asserteq(tostring(d), 'nn.Decorator @ nn.Linear(3 -> 2)')
  tester:assert(d.modules[1] == lin and d.module == lin)
  local x = rnd(4, 3)
  tester:assertTensorEq(d:forward(x), lin:forward(x), 0)
  check_autograd(d, x, rnd(4, 2), 'nn.Decorator')
  tester:assertlt(nn.Jacobian.testJacobian(d, rnd(4, 3)), precision)
  tester:assertlt(nn.Jacobian.testJacobianParameters(d, rnd(4, 3), lin.bias, lin.gradBias), precision)
  tester:assertlt(nn.Jacobian.testJacobianUpdateParameters(d, rnd(4, 3), lin.weight), precision)
  local p = d:parameters()
  tester:assert(#p == 2 and p[1] == lin.weight, 'parameters are the module\'s')
  -- an autograd-only module inside (MixtureTable) still gets Torch7's backward
  check_autograd(nn.Decorator(nn.MixtureTable()):double(), { torch.rand(2, 2):double(), rnd(2, 2, 3) }, rnd(2, 3),
    'a decorated autograd-only module')
  -- modes, type conversion (nn.Copy keeps its types inside), clearState
  local dr = nn.Decorator(nn.Dropout(0.5))
  dr:evaluate()
  tester:asserteq(dr.module.train, false)
  local keep = nn.Decorator(nn.Copy('torch.DoubleTensor', 'torch.DoubleTensor', false, true)):float()
  tester:asserteq(keep.module.output:type(), 'torch.DoubleTensor', "the module's own type() decides")
  d:clearState()
  tester:asserteq(lin.output:nElement(), 0)
  local back = round_trip(d)
  tester:assertTensorEq(back:forward(x), d:forward(x), 0)
  tester:assert(back.module == back.modules[1], 'one module after a round trip')
  tester:assertErrorPattern(function() nn.Decorator() end, '%[nn.Decorator%] expects a module to decorate, got nil')
end

function tests.dontCast()
  local lin = nn.Linear(3, 2):double()
  local d = nn.DontCast(lin, true)
  tester:asserteq(d.moduleType, 'torch.DoubleTensor')
  tester:assert(d.castin and d.castout)
  local net = nn.Sequential():add(d):float()
  tester:asserteq(lin.weight:type(), 'torch.DoubleTensor', 'the module keeps its type')
  local x = torch.randn(4, 3)
  local y = net:forward(x)
  tester:asserteq(torch.type(y), 'torch.FloatTensor', 'the output is cast out')
  tester:assertTensorEq(y:double(), lin:forward(x:double()), 1e-6)
  local go = torch.randn(4, 2)
  lin:zeroGradParameters()
  local gi = net:backward(x, go)
  tester:asserteq(torch.type(gi), 'torch.FloatTensor', 'the gradInput is cast back')
  tester:assertTensorEq(gi:double(), go:double() * lin.weight, 1e-5)
  tester:assertTensorEq(lin.gradWeight, go:double():t() * x:double(), 1e-5)
  -- autograd sees through the casts
  lin:zeroGradParameters()
  local xr = x:clone():requiresGrad()
  torch.cmul(net:forward(xr), go):sum():backward()
  tester:assertTensorEq(xr.grad, gi, 1e-5)
  tester:assertTensorEq(lin.gradWeight, go:double():t() * x:double(), 1e-5)
  tester:asserteq(nn.DontCast(nn.Identity(), true, false, 'torch.DoubleTensor').castout, false)
  -- converting to a type its output does not have yet (here f32 -> f64; under the replay, to CUDA)
  -- makes an empty output and gradInput of that type
  local df = nn.DontCast(nn.Linear(3, 2):float(), true)
  local netd = nn.Sequential():add(df):double()
  tester:asserteq(torch.type(df.output), 'torch.DoubleTensor', 'type() makes an output of the new type')
  tester:asserteq(df.module.weight:type(), 'torch.FloatTensor', 'the f32 module keeps its type')
  tester:asserteq(torch.type(netd:forward(x:double())), 'torch.DoubleTensor')
  tester:asserteq(torch.type(netd:backward(x:double(), go:double())), 'torch.DoubleTensor')
  tester:asserteq(tostring(d), 'nn.DontCast @ nn.Linear(3 -> 2)')
  tester:asserteq(round_trip(d).moduleType, 'torch.DoubleTensor')
  tester:assertErrorPattern(function() nn.DontCast(nn.ZipTable(), true) end, 'cannot tell the module type')
  tester:assertErrorPattern(function() nn.DontCast(nn.Identity(), true, nil, 'torch.NoTensor') end, 'moduleType must be a tensor type')
  tester:assertErrorPattern(function() nn.DontCast(nn.Identity(), 1) end, 'castin must be true or false')
end

-- Without casts the module just keeps its type: inputs of the outside type do not fit it.
function tests.dontCastWithoutCasts()
  local plain = nn.DontCast(nn.Linear(3, 2):double()):float()
  tester:asserteq(plain.module.weight:type(), 'torch.DoubleTensor')
  tester:asserteq(torch.type(plain:forward(torch.randn(2, 3):double())), 'torch.DoubleTensor')
  tester:asserteq(torch.type(plain.output), 'torch.DoubleTensor')
end

-- On CUDA a DontCast keeps its module on the CPU (its point): the outside-facing output and
-- gradInput are CUDA tensors, the module's parameters and gradients stay CPU f64.
function tests.dontCastOnCuda()
  if not torch.cuda.isAvailable() then return end
  local lin = nn.Linear(3, 2):double()
  local net = nn.Sequential():add(nn.DontCast(lin, true)):cuda()
  tester:asserteq(lin.weight:type(), 'torch.DoubleTensor', 'the module stays on the CPU')
  local x, go = torch.randn(4, 3), torch.randn(4, 2)
  local y = net:forward(x:cuda())
  tester:assert(torch.type(y) == 'torch.CudaTensor' and y:isCuda(), 'the output is cast out to CUDA')
  tester:assertTensorEq(y:float(), lin:forward(x:double()):float(), 1e-6, 'DontCast output on CUDA')
  lin:zeroGradParameters()
  local gi = net:backward(x:cuda(), go:cuda())
  tester:assert(torch.type(gi) == 'torch.CudaTensor' and gi:isCuda(), 'the gradInput is cast back to CUDA')
  tester:assertTensorEq(gi:double(), go:double() * lin.weight, 1e-5, 'DontCast gradInput on CUDA')
  tester:assertTensorEq(lin.gradWeight, go:double():t() * x:double(), 1e-5, 'DontCast gradWeight (CPU) from CUDA')
end

D.cpuOnly(tests, 'a DontCast without casts keeps its module on the CPU whatever type() asks', 'dontCastWithoutCasts')
D.cpuOnly(tests, "a DontCast's module and its gradients stay on the CPU by design, which the replay refuses " ..
  '(dontCastOnCuda checks it on CUDA)', 'dontCast', 'dontCastOnCuda')

function tests.profile()
  local lin = nn.Linear(3, 2):double()
  local p = nn.Profile(lin, 2, 'lin')
  local x = rnd(4, 3)
  local text = captured(function()
    for _ = 1, 4 do
      p:forward(x)
      p:backward(x, rnd(4, 2))
    end
  end)
  local _, nf = text:gsub('lin took [%d%.]+ seconds for 2 forward passes', '')
  local _, nb = text:gsub('lin took [%d%.]+ seconds for 2 backward passes', '')
  -- (at least: under TOCHA_TEST_DEVICE=cuda the replayed copies print too)
  tester:assert(nf >= 2 and nb >= 2, text)
  tester:asserteq(p.numFwds, 0, 'the counters restart after each print')
  tester:asserteq(p.numBwds, 0)
  captured(function() p:forward(x) end)
  tester:asserteq(p.numFwds, 1)
  tester:assert(p.summedFwdTime >= 0)
  tester:assertTensorEq(p:forward(x), lin:forward(x), 0)
  captured(function() check_autograd(p, x, rnd(4, 2), 'nn.Profile') end)
  tester:asserteq(nn.Profile(nn.Tanh()).name, 'nn.Tanh')
  tester:asserteq(nn.Profile(nn.Tanh()).print_interval, 100)
  tester:asserteq(tostring(p), 'nn.Profile @ nn.Linear(3 -> 2)')
  tester:asserteq(round_trip(p).name, 'lin')
  tester:assertErrorPattern(function() nn.Profile(lin, 0) end, 'print_interval must be an integer >= 1')
end

function tests.convert()
  local m = nn.Convert('bchw', 'bf'):double()
  local x = rnd(2, 3, 4, 5)
  tester:assertTensorEq(m:forward(x), x:contiguous():view(2, 60), 0)
  tester:assertTensorEq(m:forward(x[2]), x[2]:contiguous():view(60), 0, 'one sample (chw -> f)')
  tester:assertTableEq({ m.nInputDim, m.nOutputDim, m.inputBatchDim, m.outputBatchDim }, { 4, 2, 1, 1 })
  check_autograd(m, x, rnd(2, 60), "nn.Convert('bchw', 'bf')")
  tester:assertlt(nn.Jacobian.testJacobian(m, rnd(2, 2, 2, 3)), precision)
  -- a permutation of the axes
  local p = nn.Convert('bhwc', 'bchw'):double()
  local xh = rnd(2, 4, 5, 3)
  local y = p:forward(xh)
  tester:assertTableEq(y:size():totable(), { 2, 3, 4, 5 })
  for c = 1, 3 do for h = 1, 4 do tester:asserteq(y[2][c][h][5], xh[2][h][5][c]) end end
  tester:assertTensorEq(p:forward(xh[1]), y[1], 0, 'one sample')
  tester:assertlt(nn.Jacobian.testJacobian(p, rnd(2, 2, 3, 2)), precision)
  -- the batch dim elsewhere: 'chwb' -> 'bf' swaps b with dim 1, as Torch7
  local sw = nn.Convert('chwb', 'bf'):double()
  local xs = rnd(3, 2, 2, 4)
  tester:assertTensorEq(sw:forward(xs), xs:transpose(1, 4):contiguous():view(4, 12), 0)
  -- targets and single features
  tester:assertTensorEq(nn.Convert('bt', 'b'):double():forward(torch.DoubleTensor({ { 1, 2 }, { 3, 4 } })), torch.DoubleTensor({ 1, 3 }), 0)
  tester:assertTableEq(nn.Convert('b', 'bt'):forward(torch.Tensor({ 1, 2, 3 })):size():totable(), { 3, 1 })
  tester:assertTableEq(nn.Convert('fb', 'b'):forward(torch.randn(1, 3)):size():totable(), { 3 })
  -- type conversion only
  local c = nn.Convert():double()
  tester:asserteq(torch.type(c:forward(torch.randn(2, 3))), 'torch.DoubleTensor')
  local xr = torch.randn(2, 3):requiresGrad()
  c:forward(xr):sum():backward()
  tester:assertTensorEq(xr.grad, torch.ones(2, 3), 0, 'autograd through the type conversion')
  tester:asserteq(torch.type(nn.Convert('bchw', 'bf'):float():forward(rnd(1, 2, 2, 2))), 'torch.FloatTensor')
  tester:asserteq(tostring(m), 'nn.Convert')
  local back = round_trip(p)
  tester:assertTensorEq(back:forward(xh), y, 0)
  tester:assertErrorPattern(function() nn.Convert('bf', 'bchw') end, 'unrecognized conversion of shape bf to bchw')
  tester:assertErrorPattern(function() nn.Convert(nil, 'bf') end, 'expecting inputShape')
  tester:assertErrorPattern(function() nn.Convert('bb') end, 'distinct axis letters')
  tester:assertErrorPattern(function() nn.Convert('b*', 'bf') end, 'both or neither shapes must be b%*')
  tester:assertErrorPattern(function() m:forward(rnd(2, 3)) end, "%[nn.Convert%('bchw', 'bf'%)%] expected 4 dims")
  tester:assertErrorPattern(function() nn.Convert('bf', 'b'):forward(torch.randn(2, 3)) end, 'more than one feature')
end

tester:add(tests)
tester:run()
