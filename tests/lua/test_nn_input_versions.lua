-- Note [Inputs written after the forward] (lua/nn/Module.lua): a Torch7-style module's node keeps
-- its input tensors, so a write into them between the forward and the backward must be refused at
-- the backward instead of giving gradients computed from the new values.
require 'nn'
local tester = torch.Tester()
local tests = torch.TestSuite()

-- char-rnn's util/OneHot (the copy the Torch7 programs' test runs): no backward of its own; fills
-- the same output buffer at every call.
dofile((debug.getinfo(1, 'S').source:sub(2):match('^(.*)/') or '.') .. '/torch7_programs/util/OneHot.lua')

local function linear()
  local lin = nn.Linear(3, 2)
  lin.weight:fill(1)
  lin.bias:zero()
  lin:zeroGradParameters()
  return lin
end

function tests.aReusedInputBufferIsRefused()
  local lin = linear()
  local m = nn.Sequential():add(OneHot(3)):add(lin)
  local loss = m(torch.Tensor({ 1 })):sum() + m(torch.Tensor({ 2 })):sum()
  -- before: gradWeight [[0, 2, 0], [0, 2, 0]] (both calls read the second one-hot row);
  -- PyTorch refuses a saved tensor modified in place the same way
  tester:assertErrorPattern(function() loss:backward() end, 'input 1 of nn.Linear was modified in place after its forward')
end

function tests.separateModulesGiveTheRightGradients()
  local lin = linear()
  local a = nn.Sequential():add(OneHot(3)):add(lin)
  local b = nn.Sequential():add(OneHot(3)):add(lin)  -- shared Linear, own buffers
  local loss = a(torch.Tensor({ 1 })):sum() + b(torch.Tensor({ 2 })):sum()
  loss:backward()
  tester:eq(lin.gradWeight:totable(), { { 1, 1, 0 }, { 1, 1, 0 } })
end

function tests.aTrainingLoopReusesItsBuffers()
  -- forward, backward, forward, backward: each backward runs before the buffer is written again
  local lin = linear()
  local m = nn.Sequential():add(OneHot(3)):add(lin)
  for _, c in ipairs({ 1, 3, 2 }) do
    m(torch.Tensor({ c })):sum():backward()
  end
  tester:eq(lin.gradWeight:totable(), { { 1, 1, 1 }, { 1, 1, 1 } })
end

function tests.inPlaceModulesInsideTheirOwnForwardAreFine()
  -- nn.ReLU(true) writes its input during its own forward: the versions are taken after it
  local x = torch.randn(4, 3):double()
  local m = nn.Sequential():add(nn.Linear(3, 5)):add(nn.ReLU(true)):add(nn.Linear(5, 1)):double()
  m:zeroGradParameters()
  m(x):sum():backward()
  local g = m:get(1).gradWeight:clone()
  m:zeroGradParameters()
  local out = m:forward(x)
  m:backward(x, torch.ones(out:size()):double())
  tester:assertTensorEq(m:get(1).gradWeight, g, 1e-12, 'the same as Torch7\'s backward')
end

tester:add(tests):run()
