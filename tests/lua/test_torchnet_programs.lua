-- A Torch7 program built on torchnet runs unmodified: torchnet's own example/mnist.lua (logistic
-- regression with ParallelDatasetIterator, SGDEngine, AverageValueMeter and ClassErrorMeter,
-- value{k = 1}), its text pasted below as written except for its sizes (batch 128 -> 16,
-- 5 epochs -> 3), against a stand-in `mnist` module written to a temporary folder (the real one
-- downloads MNIST): separable synthetic digits, so the error must fall.
local tester = torch.Tester()
local tests = torch.TestSuite()

-- Torch7's mnist package: mnist.traindataset() / testdataset() return {data = ByteTensor N x 28 x 28,
-- label = ByteTensor N (0..9), size = N}. Here: digit d lights pixel row d + 1.
local MNIST = [[
local mnist = {}
local function make(n, seed)
  local g = torch.Generator()
  torch.manualSeed(g, seed)
  local data = torch.ByteTensor(n, 28, 28):zero()
  local label = torch.ByteTensor(n)
  for i = 1, n do
    local d = (i * 7) % 10
    label[i] = d
    data[i][d + 1]:fill(200)
    data[i]:add(torch.rand(g, 28, 28):mul(20):byte())
  end
  return { data = data, label = label, size = n }
end
function mnist.traindataset() return make(160, 1) end
function mnist.testdataset() return make(40, 2) end
return mnist
]]

-- torchnet/example/mnist.lua (sizes reduced as said above; prints collected).
local EXAMPLE = [[
-- load torchnet:
local tnt = require 'torchnet'

-- function that sets of dataset iterator:
local function getIterator(mode)
   return tnt.ParallelDatasetIterator{
      nthread = 1,
      init    = function() require 'torchnet' end,
      closure = function()

         -- load MNIST dataset:
         local mnist = require 'mnist'
         local dataset = mnist[mode .. 'dataset']()
         dataset.data = dataset.data:reshape(dataset.data:size(1),
            dataset.data:size(2) * dataset.data:size(3)):double()

         -- return batches of data:
         return tnt.BatchDataset{
            batchsize = 16,
            dataset = tnt.ListDataset{  -- replace this by your own dataset
               list = torch.range(1, dataset.data:size(1)):long(),
               load = function(idx)
                  return {
                     input  = dataset.data[idx],
                     target = torch.LongTensor{dataset.label[idx] + 1},
                  }  -- sample contains input and target
               end,
            }
         }
      end,
   }
end

-- set up logistic regressor:
local net = nn.Sequential():add(nn.Linear(784,10))
local criterion = nn.CrossEntropyCriterion()

-- set up training engine:
local engine = tnt.SGDEngine()
local meter  = tnt.AverageValueMeter()
local clerr  = tnt.ClassErrorMeter{topk = {1}}
engine.hooks.onStartEpoch = function(state)
   meter:reset()
   clerr:reset()
end
engine.hooks.onForwardCriterion = function(state)
   meter:add(state.criterion.output)
   clerr:add(state.network.output, state.sample.target)
   if state.training then
      print(string.format('avg. loss: %2.4f; avg. error: %2.4f',
         meter:value(), clerr:value{k = 1}))
   end
end

-- train the model:
engine:train{
   network   = net,
   iterator  = getIterator('train'),
   criterion = criterion,
   lr        = 0.2,
   maxepoch  = 3,
}

-- measure test loss and error:
meter:reset()
clerr:reset()
engine:test{
   network   = net,
   iterator  = getIterator('test'),
   criterion = criterion,
}
print(string.format('test loss: %2.4f; test error: %2.4f',
   meter:value(), clerr:value{k = 1}))
]]

function tests.torchnetMnistExample()
  local dir = os.tmpname()
  os.remove(dir)
  assert(os.execute("mkdir -p '" .. dir .. "'") == 0)
  local f = assert(io.open(dir .. '/mnist.lua', 'w'))
  f:write(MNIST)
  f:close()
  local path0 = package.path
  package.path = dir .. '/?.lua;' .. package.path  -- the worker threads get this path too
  torch.manualSeed(3)
  local lines = {}
  local env = setmetatable({ print = function(s) lines[#lines + 1] = s end }, { __index = _G })
  local chunk = assert(loadstring(EXAMPLE, '=example/mnist.lua'))
  setfenv(chunk, env)
  require 'nn'
  -- Torch7's default tensor type was DoubleTensor (the example's nn.Linear meets :double() inputs);
  -- Tocha's is FloatTensor, and torch.setdefaulttensortype restores Torch7's (DESIGN.md).
  local default = torch.getdefaulttensortype()
  torch.setdefaulttensortype('torch.DoubleTensor')
  local ok, err = pcall(chunk)
  torch.setdefaulttensortype(default)
  package.path = path0
  package.loaded.mnist = nil
  os.execute("rm -rf '" .. dir .. "'")
  tester:assert(ok, tostring(err))
  tester:eq(#lines, 3 * 10 + 1, 'one line per training batch (10 batches x 3 epochs), then the test line')
  local first = tonumber((lines[1] or ''):match('avg. error: ([%d.]+)'))
  local last = tonumber((lines[30] or ''):match('avg. error: ([%d.]+)'))
  local testerr = tonumber((lines[31] or ''):match('test error: ([%d.]+)'))
  tester:assert(first and last and last < first, 'training error falls: ' .. tostring(lines[1]) .. ' -> ' .. tostring(lines[30]))
  tester:assert(testerr and testerr < 10, 'test error ' .. tostring(lines[31]))
end

tester:add(tests)
tester:run()
