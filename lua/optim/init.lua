-- The optim module: Torch7's functional optimizers (optim.sgd(feval, x, config, state)...),
-- PyTorch-style optimizer objects (optim.SGD(params, {lr=...})), learning-rate schedules
-- (optim.lr.*), optim.ConfusionMatrix and optim.Logger. require 'optim' sets the global optim.
require 'torch'
if rawget(_G, 'optim') and optim._loaded then return optim end
optim = rawget(_G, 'optim') or {}

-- Internals first: FFI wrappers of the fused kernels and config checking.
optim._fused = require 'optim.fused'
optim._config = require 'optim.config'

-- Functional API (Torch7): one file per optimizer.
for _, name in ipairs({ 'sgd', 'nag', 'asgd', 'adam', 'adamw', 'adamax', 'adagrad', 'adadelta', 'rmsprop', 'rprop',
                        'polyinterp', 'lswolfe', 'lbfgs', 'cg', 'cmaes', 'de', 'fista', 'checkgrad',
                        'nadam', 'radam', 'sparse_adam' }) do
  require('optim.' .. name)
end

-- Object API (PyTorch habits).
for _, name in ipairs({ 'Optimizer', 'SGD', 'Adam', 'RMSprop', 'Adagrad', 'LBFGS', 'NAdam', 'RAdam', 'Adadelta', 'Adamax', 'ASGD', 'Rprop',
                        'SparseAdam' }) do
  require('optim.object.' .. name)
end

-- Learning-rate schedules, usable with both APIs.
optim.lr = optim.lr or {}
for _, name in ipairs({ 'Scheduler', 'StepLR', 'MultiStepLR', 'ExponentialLR', 'CosineAnnealingLR', 'OneCycleLR',
                        'LinearWarmup', 'ReduceLROnPlateau', 'LambdaLR', 'PolynomialLR',
                        'CyclicLR', 'SWALR', 'LinearLR', 'ConstantLR', 'ChainedScheduler', 'SequentialLR' }) do
  require('optim.lr.' .. name)
end
-- PyTorch's remaining names on the classes above (stateDict, loadStateDict, maximize).
require 'optim.pytorch_more'
-- Weight averaging (optim.swa, optim.AveragedModel) is built on nn, which optim does not load:
-- loaded on first use, so `require 'optim'` alone stays as light as Torch7's.
setmetatable(optim, { __index = function(t, k)
  if k == 'swa' or k == 'AveragedModel' then
    require 'optim.swa'
    return rawget(t, k)
  end
end })

-- Metrics and logs.
require 'optim.ConfusionMatrix'
require 'optim.Logger'

optim._loaded = true
return optim
