-- Regressions found reviewing the Torch7 stragglers (nn.StochasticGradient, cudnn.convert...):
-- each test failed before its fix. The cudnn part loads the GPU package names without a device
-- (Note [cutorch without a device]).
require 'nn'
local ffi = require 'ffi'
pcall(ffi.cdef, 'int setenv(const char *name, const char *value, int overwrite);')
ffi.C.setenv('TOCHA_CUTORCH_WITHOUT_GPU', '1', 1)
require 'cudnn'
require 'nngraph'
local tester = torch.Tester()
local tests = torch.TestSuite()

local function quietly(f)
  local old = print
  print = function() end
  local ok, err = pcall(f)
  print = old
  if not ok then error(err, 0) end
end

-- Torch7 drew torch.randperm(dataset:size()) whether or not it shuffled, so a script's later
-- random numbers do not depend on shuffleIndices.
function tests.stochasticGradientDrawsThePermutationWithoutShuffling()
  local d = { { torch.ones(2), torch.ones(1) }, { torch.zeros(2), torch.ones(1) }, { torch.ones(2), torch.zeros(1) } }
  function d:size() return 3 end
  local t = nn.StochasticGradient(nn.Linear(2, 1), nn.MSECriterion())
  t.maxIteration, t.verbose, t.shuffleIndices = 1, false, false
  torch.manualSeed(5)
  quietly(function() t:train(d) end)
  local after = torch.rand(3)
  torch.manualSeed(5)
  torch.randperm(3)
  tester:assertTensorEq(after, torch.rand(3), 0)
  -- and the examples are still visited in order
  local seen = {}
  t.hookExample = function(_, example) seen[#seen + 1] = example end
  quietly(function() t:train(d) end)
  for i = 1, 3 do tester:asserteq(seen[i], d[i]) end
end

-- A layer at every depth must convert; a gModule anywhere raises before anything is converted.
function tests.cudnnConvertRefusesNngraphBeforeChangingAnything()
  local x = nn.Identity()()
  local g = nn.gModule({ x }, { nn.ReLU()(x) })
  local net = nn.Sequential():add(nn.ReLU()):add(nn.Sequential():add(nn.Tanh()):add(g))
  tester:assertErrorPattern(function() cudnn.convert(net, cudnn) end, 'cudnn.convert.*nngraph')
  tester:asserteq(torch.typename(net.modules[1]), 'nn.ReLU', 'nothing converted before the error')
  tester:asserteq(torch.typename(net.modules[2].modules[1]), 'nn.Tanh')
end

-- nn.GPU(m, device) with m already on the GPU, and m:setDevice(other), kept the parameters on the
-- old device (Note [nn.GPU moves CUDA tensors]). Needs two GPUs to show; the walk itself runs here
-- on a CPU module, which it leaves alone.
function tests.gpuDecoratorMovesCudaTensorsToItsDevice()
  local lin = nn.Linear(2, 3)
  local w = lin.weight
  tester:asserteq(nn.GPU.moveToDevice(lin, 1), lin)
  tester:asserteq(lin.weight, w, 'CPU tensors stay')
  tester:assertErrorPattern(function() nn.GPU.moveToDevice(lin, 0) end, 'nn.GPU.*device')
  if torch.cuda.deviceCount() < 2 then return end
  local m = nn.Linear(2, 3):cuda()  -- on cutorch device 1
  local g = nn.GPU(m, 2)
  tester:asserteq(m.weight:getDevice(), 1, 'the constructor moves a CUDA module to its device')
  tester:asserteq(m.weight.grad, m.gradWeight)
  g:setDevice(1)
  tester:asserteq(m.weight:getDevice(), 0)
  tester:asserteq(g:forward(torch.ones(2):cuda()):getDevice(), 0)
end

tester:add(tests)
tester:run()
