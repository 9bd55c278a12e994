-- tnt.OptimEngine (Torch7 torchnet's engine/optimengine.lua): SGDEngine's loop with the parameter
-- update done by an optim method (optim.sgd, optim.adam...) on the network's flattened parameters.
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'
require 'torchnet.engine.sgdengine'

local OptimEngine, SGDEngine = torch.class('tnt.OptimEngine', 'tnt.SGDEngine', tnt)

--- tnt.OptimEngine(): an engine with SGDEngine's hooks whose train takes an optim method.
--- Example: local tnt = require 'torchnet'; local engine = tnt.OptimEngine()
function OptimEngine:__init()
  SGDEngine.__init(self)
end

local train_args = argcheck.parser{ name = 'tnt.OptimEngine.train',
  { name = 'network', type = 'nn.Module' },
  { name = 'criterion', type = 'nn.Criterion' },
  { name = 'iterator', type = 'tnt.DatasetIterator' },
  { name = 'maxepoch', type = 'number', default = 1000 },
  { name = 'optimMethod', type = 'function' },
  { name = 'config', type = 'table', opt = true },
  { name = 'optimState', type = 'table', opt = true },
  { name = 'paramFun', type = 'function', opt = true },
}

--- engine:train{network=, criterion=, iterator=, optimMethod=[, config=, optimState=, maxepoch=1000, paramFun=]}:
--- as SGDEngine's train, with each update optimMethod(feval, params, config, optimState) where
--- params, gradParams = network:getParameters() (or paramFun()) are taken once, at the start, and
--- feval returns the criterion's output and gradParams. state also holds optimMethod, config,
--- optim (the optim state), params and gradParams. Returns the state.
--- Example: local tnt = require 'torchnet'; require 'nn'; require 'optim'
---   local data = {}; for i = 1, 4 do data[i] = {input = torch.randn(1, 2), target = torch.randn(1, 1)} end
---   tnt.OptimEngine():train{network = nn.Linear(2, 1), criterion = nn.MSECriterion(), maxepoch = 2,
---     iterator = tnt.DatasetIterator{dataset = tnt.TableDataset{data = data}}, optimMethod = optim.sgd,
---     config = {learningRate = 0.1, momentum = 0.9}}
function OptimEngine:train(...)
  local network, criterion, iterator, maxepoch, optimMethod, config, optimState, paramFun = train_args(...)
  local state = {
    network = network, criterion = criterion, iterator = iterator, maxepoch = maxepoch,
    optimMethod = optimMethod, sample = {}, config = config or {}, optim = optimState or {},
    epoch = 0, t = 0, training = true,
  }
  if paramFun then
    state.params, state.gradParams = paramFun()
  else
    state.params, state.gradParams = state.network:getParameters()
  end
  -- the gradients are already computed by the step (forward/backward happen before the update)
  local function feval() return state.criterion.output, state.gradParams end
  return self:__loop(state, function(st) st.optimMethod(feval, st.params, st.config, st.optim) end)
end

return OptimEngine
