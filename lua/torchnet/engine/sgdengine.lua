-- tnt.SGDEngine (Torch7 torchnet's engine/sgdengine.lua): plain SGD training of an nn network
-- (forward, criterion, backward, network:updateParameters(lr)) and evaluation, calling the hooks
-- onStart, onStartEpoch, onSample, onForward, onForwardCriterion, onBackwardCriterion, onBackward,
-- onUpdate, onEndEpoch, onEnd with the shared `state` table.
local torch = require 'torch'
local tnt = require 'torchnet.env'
local argcheck = require 'torchnet.argcheck'
-- Note [nn in worker threads]: torchnet's require 'torchnet' loaded nn, and scripts rely on it.
-- A worker thread of ParallelDatasetIterator also requires torchnet (to rebuild its datasets),
-- where nn is not needed and would double the pool's start-up time: threads set __threadid
-- before anything else runs, so nn is skipped there (a worker that wants it requires it).
if rawget(_G, '__threadid') == nil then require 'nn' end
require 'torchnet.engine'
require 'torchnet.dataset.datasetiterator'

local SGDEngine, Engine = torch.class('tnt.SGDEngine', 'tnt.Engine', tnt)

SGDEngine.__hooknames = { 'onStart', 'onStartEpoch', 'onSample', 'onForward', 'onForwardCriterion',
  'onBackward', 'onBackwardCriterion', 'onEndEpoch', 'onUpdate', 'onEnd' }

--- tnt.SGDEngine(): an engine with torchnet's SGD hooks (engine.hooks.onForward = function(state) ... end).
--- Example: local tnt = require 'torchnet'; local engine = tnt.SGDEngine()
---   engine.hooks.onEndEpoch = function(state) print(state.epoch) end
function SGDEngine:__init()
  Engine.__init(self, SGDEngine.__hooknames)
end

local train_args = argcheck.parser{ name = 'tnt.SGDEngine.train',
  { name = 'network', type = 'nn.Module' },
  { name = 'criterion', type = 'nn.Criterion' },
  { name = 'iterator', type = 'tnt.DatasetIterator' },
  { name = 'lr', type = 'number' },
  { name = 'lrcriterion', type = 'number', defaulta = 'lr' },
  { name = 'maxepoch', type = 'number', default = 1000 },
}

-- One training step on state.sample with the hooks in torchnet's order; `update` changes the
-- parameters (SGDEngine: updateParameters(lr); OptimEngine: the optim method). Shared by both.
function SGDEngine:__step(state, update)
  local sample = state.sample
  self.hooks('onSample', state)
  state.network:forward(sample.input)
  self.hooks('onForward', state)
  state.criterion:forward(state.network.output, sample.target)
  self.hooks('onForwardCriterion', state)
  state.network:zeroGradParameters()
  if state.criterion.zeroGradParameters then state.criterion:zeroGradParameters() end
  state.criterion:backward(state.network.output, sample.target)
  self.hooks('onBackwardCriterion', state)
  state.network:backward(sample.input, state.criterion.gradInput)
  self.hooks('onBackward', state)
  update(state)
  state.t = state.t + 1
  self.hooks('onUpdate', state)
end

-- The epoch loop of train(), shared with OptimEngine.
function SGDEngine:__loop(state, update)
  self.hooks('onStart', state)
  while state.epoch < state.maxepoch do
    state.network:training()
    self.hooks('onStartEpoch', state)
    for sample in state.iterator() do
      state.sample = sample
      self:__step(state, update)
    end
    state.epoch = state.epoch + 1
    self.hooks('onEndEpoch', state)
  end
  self.hooks('onEnd', state)
  return state
end

local function sgd_update(state)
  if state.lrcriterion < 0 then
    error(string.format('[tnt.SGDEngine.train] lrcriterion should be positive or zero, got %g', state.lrcriterion), 0)
  end
  if state.lrcriterion > 0 and state.criterion.updateParameters then
    state.criterion:updateParameters(state.lrcriterion)
  end
  if state.lr < 0 then
    error(string.format('[tnt.SGDEngine.train] lr should be positive or zero, got %g', state.lr), 0)
  end
  if state.lr > 0 then state.network:updateParameters(state.lr) end
end

--- engine:train{network=, criterion=, iterator=, lr=[, lrcriterion=lr, maxepoch=1000]}: maxepoch
--- epochs of SGD over the iterator's samples ({input=, target=}); state holds network, criterion,
--- iterator, lr, lrcriterion, maxepoch, sample, epoch (epochs done), t (samples done), training = true.
--- Hooks may change state (state.lr for a schedule). Returns the state.
--- Example: local tnt = require 'torchnet'; require 'nn'
---   local data = {}; for i = 1, 4 do data[i] = {input = torch.randn(1, 2), target = torch.randn(1, 1)} end
---   tnt.SGDEngine():train{network = nn.Linear(2, 1), criterion = nn.MSECriterion(),
---     iterator = tnt.DatasetIterator{dataset = tnt.TableDataset{data = data}}, lr = 0.1, maxepoch = 2}
function SGDEngine:train(...)
  local network, criterion, iterator, lr, lrcriterion, maxepoch = train_args(...)
  local state = {
    network = network, criterion = criterion, iterator = iterator, lr = lr, lrcriterion = lrcriterion,
    maxepoch = maxepoch, sample = {}, epoch = 0, t = 0, training = true,
  }
  return self:__loop(state, sgd_update)
end

local test_args = argcheck.parser{ name = 'tnt.SGDEngine.test',
  { name = 'network', type = 'nn.Module' },
  { name = 'iterator', type = 'tnt.DatasetIterator' },
  { name = 'criterion', type = 'nn.Criterion', opt = true },
}

--- engine:test{network=, iterator=[, criterion=]}: one pass in evaluate mode, calling onStart,
--- then per sample onSample, onForward (and onForwardCriterion with a criterion), then onEnd;
--- state.training is false. Returns the state.
--- Example: local tnt = require 'torchnet'; require 'nn'
---   local data = {{input = torch.randn(3, 2), target = torch.randn(3, 1)}}
---   local s = tnt.SGDEngine():test{network = nn.Linear(2, 1), criterion = nn.MSECriterion(),
---     iterator = tnt.DatasetIterator{dataset = tnt.TableDataset{data = data}}}  -- s.t == 1
function SGDEngine:test(...)
  local network, iterator, criterion = test_args(...)
  local state = { network = network, iterator = iterator, criterion = criterion, sample = {}, t = 0, training = false }
  self.hooks('onStart', state)
  state.network:evaluate()
  for sample in state.iterator() do
    state.sample = sample
    self.hooks('onSample', state)
    state.network:forward(sample.input)
    state.t = state.t + 1
    self.hooks('onForward', state)
    if state.criterion then
      state.criterion:forward(state.network.output, sample.target)
      self.hooks('onForwardCriterion', state)
    end
  end
  self.hooks('onEnd', state)
  return state
end

return SGDEngine
