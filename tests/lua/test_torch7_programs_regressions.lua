-- Calls real Torch7 programs make that failed in Tocha (found by running such programs end to end,
-- tests/lua/test_torch7_programs.lua): torch.data, table.unpack/table.pack, randperm with a type
-- name, ConfusionMatrix:add with a squeezed one-element target.
require 'optim'
local tester = torch.Tester()
local tests = torch.TestSuite()

function tests.torchDataIsTheRawPointer()
  local x = torch.Tensor({ 1, 2 })
  local p = torch.data(x)
  p[1] = 5
  tester:asserteq(x[2], 5)
  local addr = torch.data(x, true)
  tester:asserteq(type(addr), 'number')
  tester:asserteq(addr, tonumber(require('ffi').cast('intptr_t', x:data())))
  tester:assertErrorPattern(function() torch.data(3) end, '%[data%]')
end

function tests.lua52TableFunctions()
  -- Note [Lua 5.2 table functions]: fb.resnet.torch's loader calls table.unpack
  tester:eq({ table.unpack({ 1, 2, 3 }) }, { 1, 2, 3 })
  local packed = table.pack(1, nil, 3)
  tester:asserteq(packed.n, 3)
  tester:asserteq(packed[3], 3)
end

function tests.randpermTakesATypeName()
  -- nn.StochasticGradient in Torch7: torch.randperm(dataset:size(), 'torch.LongTensor')
  torch.manualSeed(5)
  local p = torch.randperm(6, 'torch.LongTensor')
  tester:asserteq(p:type(), 'torch.LongTensor')
  tester:eq(torch.sort(p):totable(), { 1, 2, 3, 4, 5, 6 })
  torch.manualSeed(5)
  tester:eq(torch.randperm(6):totable(), p:totable(), 'the same draws as without the name')
  tester:asserteq(torch.randperm(3, 'torch.IntTensor'):type(), 'torch.IntTensor')
  tester:assertErrorPattern(function() torch.randperm(3, 'torch.NoTensor') end, '%[randperm%] unknown tensor type')
end

function tests.confusionMatrixTakesAZeroDimTarget()
  -- the demos' target:squeeze() of a one-element target is a 0-dim tensor here (a number in Torch7)
  local cm = optim.ConfusionMatrix(3)
  cm:add(torch.Tensor({ 0.1, 0.8, 0.1 }), torch.LongTensor({ 2 }):squeeze())
  cm:add(torch.LongTensor({ 3 }):squeeze(), 3)
  tester:asserteq(cm.mat[2][2], 1)
  tester:asserteq(cm.mat[3][3], 1)
end

tester:add(tests):run()
