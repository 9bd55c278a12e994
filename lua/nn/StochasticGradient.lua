-- nn.StochasticGradient(module, criterion): Torch7's plain SGD trainer (nn's
-- StochasticGradient.lua): one example at a time, updating through accUpdateGradParameters, with
-- Torch7's fields, hooks and printed lines, so that the tutorials' `trainer:train(trainset)` runs.
local S = require 'nn.support'
local StochasticGradient = torch.class('nn.StochasticGradient')

local NAME = 'nn.StochasticGradient'

--- nn.StochasticGradient(module, criterion): a trainer with Torch7's defaults: learningRate = 0.01,
--- learningRateDecay = 0, maxIteration = 25 (0 or less: no limit), shuffleIndices = true,
--- verbose = true; optional hookExample(trainer, example) and hookIteration(trainer, iteration,
--- currentError) fields.
--- Example: local t = nn.StochasticGradient(nn.Linear(2, 1), nn.MSECriterion()); t.maxIteration = 5
function StochasticGradient:__init(module, criterion)
  if not (torch.isTypeOf(module, 'nn.Module')) then
    S.fail(NAME, 'expected an nn.Module as first argument, got %s', S.describe(module))
  end
  if not (torch.isTypeOf(criterion, 'nn.Criterion')) then
    S.fail(NAME, 'expected an nn.Criterion as second argument, got %s', S.describe(criterion))
  end
  self.learningRate = 0.01
  self.learningRateDecay = 0
  self.maxIteration = 25
  self.shuffleIndices = true
  self.module = module
  self.criterion = criterion
  self.verbose = true
end

-- The number of examples: dataset:size(), Torch7's only requirement on the dataset object.
local function dataset_size(dataset)
  local ok, size = false, nil
  if type(dataset) == 'table' or torch.isTensor(dataset) then
    local f = dataset.size
    if type(f) == 'function' then ok, size = true, f(dataset) end
  end
  if not ok then
    S.fail(NAME, 'train expects a dataset with a size() method and dataset[i] = {input, target}, got %s',
      S.describe(dataset))
  end
  if type(size) ~= 'number' or size < 1 or size % 1 ~= 0 then
    S.fail(NAME, 'dataset:size() must return a positive integer, got %s', S.describe(size))
  end
  return size
end

local function example_at(dataset, i)
  local example = dataset[i]
  if type(example) ~= 'table' or example[1] == nil or example[2] == nil then
    S.fail(NAME, 'dataset[%d] must be a table {input, target}, got %s', i, S.describe(example))
  end
  return example
end

-- Note [StochasticGradient's learning-rate schedule]: as in Torch7, the rate after the k-th pass
-- is learningRate / (1 + (k + 1) * learningRateDecay) (the counter is incremented before the
-- decay is applied), so the first pass uses learningRate and the second already decays twice;
-- kept for identical runs of Torch7 scripts.

--- trainer:train(dataset): maxIteration passes over dataset (dataset:size() examples, dataset[i] =
--- {input, target}), in a random order unless shuffleIndices is false; each example runs forward,
--- backward and accUpdateGradParameters(input, gradOutput, currentLearningRate). Prints Torch7's
--- lines ('# StochasticGradient: training', '# current error = e' per pass when verbose, and the
--- final two lines).
--- Example: local d = {{torch.ones(2), torch.ones(1)}}; function d:size() return 1 end; local t = nn.StochasticGradient(nn.Linear(2, 1), nn.MSECriterion()); t.maxIteration = 2; t.verbose = false; t:train(d)
function StochasticGradient:train(dataset)
  local n = dataset_size(dataset)
  local iteration = 1
  local currentLearningRate = self.learningRate
  local module, criterion = self.module, self.criterion

  local order
  if self.shuffleIndices then
    order = torch.randperm(n)
  end

  print('# StochasticGradient: training')

  while true do
    local currentError = 0
    for t = 1, n do
      local example = example_at(dataset, order and math.floor(order[t] + 0.5) or t)
      local input, target = example[1], example[2]

      currentError = currentError + criterion:forward(module:forward(input), target)

      module:updateGradInput(input, criterion:updateGradInput(module.output, target))
      module:accUpdateGradParameters(input, criterion.gradInput, currentLearningRate)

      if self.hookExample then
        self.hookExample(self, example)
      end
    end

    currentError = currentError / n

    if self.hookIteration then
      self.hookIteration(self, iteration, currentError)
    end

    if self.verbose then
      print('# current error = ' .. currentError)
    end
    iteration = iteration + 1
    currentLearningRate = self.learningRate / (1 + iteration * self.learningRateDecay)
    if self.maxIteration > 0 and iteration > self.maxIteration then
      print('# StochasticGradient: you have reached the maximum number of iterations')
      print('# training error = ' .. currentError)
      break
    end
  end
end

return StochasticGradient
