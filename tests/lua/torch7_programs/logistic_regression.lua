-- Imitates torch/demos logistic-regression/example-logistic-regression.lua: multinomial logistic
-- regression (nn.Linear + nn.LogSoftMax, nn.ClassNLLCriterion) of a brand choice on (female, age),
-- trained sample by sample with optim.sgd, then again from model:reset() with full-batch
-- optim.lbfgs and optim.lswolfe, then compared with the data's frequencies. The demo read its CSV
-- with the csv package; here a synthetic CSV is written to the folder given as the first argument
-- and read back with io.lines. Last line: "RESULT sgd_first=.. sgd_last=.. lbfgs_first=.. lbfgs_last=.. agree=.."
require 'nn'
require 'optim'

local dir = arg[1] or '.'
local csvfile = dir .. '/example-logistic-regression.csv'

----------------------------------------------------------------------
-- 1. Create the training data
torch.manualSeed(1)
do
  local f = assert(io.open(csvfile, 'w'))
  f:write('"num","brand","female","age"\n')
  for i = 1, 120 do
    local female = torch.bernoulli(0.5)
    local age = torch.random(24, 38)
    -- older buyers prefer brand 3, younger ones brand 1
    local brand = age < 29 and 1 or (age < 33 and 2 or 3)
    if torch.uniform() < 0.15 then brand = torch.random(1, 3) end
    f:write(string.format('"%d","%d",%d,%d\n', i, brand, female, age))
  end
  f:close()
end

local loaded = {brand = {}, female = {}, age = {}}
local header
for line in io.lines(csvfile) do
  if not header then
    header = line
  else
    local num, brand, female, age = line:match('^"(%d+)","(%d+)",(%d+),(%d+)$')
    table.insert(loaded.brand, tonumber(brand))
    table.insert(loaded.female, tonumber(female))
    table.insert(loaded.age, tonumber(age))
  end
end

brands = torch.Tensor(loaded.brand)
females = torch.Tensor(loaded.female)
ages = torch.Tensor(loaded.age)

dataset_inputs = torch.Tensor((#brands)[1], 2)
dataset_inputs[{ {}, 1 }] = females
dataset_inputs[{ {}, 2 }] = ages
-- the demo's ages were raw; centring them keeps plain SGD stable in a few epochs
dataset_inputs[{ {}, 2 }]:add(-31):div(4)
dataset_outputs = brands

numberOfBrands = torch.max(dataset_outputs) - torch.min(dataset_outputs) + 1

function summarizeData()
  local function p(name, value) print(string.format('%20s %f', name, value)) end
  p('number of brands', numberOfBrands)
  p('min brand', torch.min(brands))
  p('max brand', torch.max(brands))
  p('min female', torch.min(females))
  p('max female', torch.max(females))
  p('min age', torch.min(ages))
  p('max age', torch.max(ages))
end
summarizeData()

----------------------------------------------------------------------
-- 2. Define the model (predictor) and 3. the loss
linLayer = nn.Linear(2, 3)
softMaxLayer = nn.LogSoftMax()
model = nn.Sequential()
model:add(linLayer)
model:add(softMaxLayer)
criterion = nn.ClassNLLCriterion()

----------------------------------------------------------------------
-- 4.a. Train the model (Using SGD)
x, dl_dx = model:getParameters()

feval = function(x_new)
  if x ~= x_new then x:copy(x_new) end
  _nidx_ = (_nidx_ or 0) + 1
  if _nidx_ > (#dataset_inputs)[1] then _nidx_ = 1 end
  local inputs = dataset_inputs[_nidx_]
  local target = dataset_outputs[_nidx_]
  dl_dx:zero()
  local loss_x = criterion:forward(model:forward(inputs), target)
  model:backward(inputs, criterion:backward(model.output, target))
  return loss_x, dl_dx
end

sgd_params = {
  learningRate = 1e-1,
  learningRateDecay = 1e-4,
  weightDecay = 0,
  momentum = 0
}
epochs = 15
local sgd_losses = {}
for i = 1, epochs do
  current_loss = 0
  for i = 1, (#dataset_inputs)[1] do
    _, fs = optim.sgd(feval, x, sgd_params)
    current_loss = current_loss + fs[1]
  end
  current_loss = current_loss / (#dataset_inputs)[1]
  sgd_losses[i] = current_loss
  print('epoch = ' .. i .. ' of ' .. epochs .. ' current loss = ' .. current_loss)
end

----------------------------------------------------------------------
-- 4.b. Train the model (Using L-BFGS), from a fresh start
model:reset()

feval = function(x_new)
  if x ~= x_new then x:copy(x_new) end
  dl_dx:zero()
  local loss_x = 0
  for i = 1, (#dataset_inputs)[1] do
    _nidx_ = (_nidx_ or 0) + 1
    if _nidx_ > (#dataset_inputs)[1] then _nidx_ = 1 end
    local inputs = dataset_inputs[_nidx_]
    local target = dataset_outputs[_nidx_]
    loss_x = loss_x + criterion:forward(model:forward(inputs), target)
    model:backward(inputs, criterion:backward(model.output, target))
  end
  loss_x = loss_x / (#dataset_inputs)[1]
  dl_dx = dl_dx:div((#dataset_inputs)[1])
  return loss_x, dl_dx
end

lbfgs_params = {
  lineSearch = optim.lswolfe,
  maxIter = 30,
  verbose = true
}
_, fs = optim.lbfgs(feval, x, lbfgs_params)
print('history of L-BFGS evaluations:')
print(fs)

----------------------------------------------------------------------
-- 5. Test the trained model against the data's frequencies
function maxIndex(a, b, c)
  if a >= b and a >= c then return 1
  elseif b >= a and b >= c then return 2
  else return 3 end
end

function predictOur(age, female)
  local input = torch.Tensor(2)
  input[1] = female
  input[2] = (age - 31) / 4
  local logProbs = model:forward(input)
  local probs = torch.exp(logProbs)
  local prob1, prob2, prob3 = probs[1], probs[2], probs[3]
  return maxIndex(prob1, prob2, prob3), prob1, prob2, prob3
end

counts = {}
function makeKey(age, brand, female)
  return string.format('%2d%1d%1f', age, brand, female)
end
for i = 1, (#brands)[1] do
  local key = makeKey(ages[i], brands[i], females[i])
  counts[key] = (counts[key] or 0) + 1
end
function actualProbabilities(age, female)
  local function countOf(age, brand, female) return counts[makeKey(age, brand, female)] or 0 end
  local c1, c2, c3 = countOf(age, 1, female), countOf(age, 2, female), countOf(age, 3, female)
  local s = c1 + c2 + c3
  if s == 0 then return 0, 0, 0 end
  return c1 / s, c2 / s, c3 / s
end

local agree, total = 0, 0
print(string.format('%4s %6s %8s %8s', 'age', 'female', 'actual', 'ours'))
for female = 0, 1 do
  for age = torch.min(ages), torch.max(ages) do
    local a1, a2, a3 = actualProbabilities(age, female)
    if a1 + a2 + a3 > 0 then
      local actual = maxIndex(a1, a2, a3)
      local ours = predictOur(age, female)
      total = total + 1
      if actual == ours then agree = agree + 1 end
      print(string.format('%4d %6d %8d %8d', age, female, actual, ours))
    end
  end
end
print(string.format('RESULT sgd_first=%.6f sgd_last=%.6f lbfgs_first=%.6f lbfgs_last=%.6f agree=%.3f',
  sgd_losses[1], sgd_losses[#sgd_losses], fs[1], fs[#fs], agree / total))
