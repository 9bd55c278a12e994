-- nn.models: torchvision 0.14's classification models (ResNet, VGG, AlexNet, SqueezeNet,
-- MobileNet v2/v3, DenseNet, ShuffleNet v2, EfficientNet) as nn modules whose state dicts have
-- torchvision's names and shapes, so its weights load with model:loadStateDict(...). Loaded on
-- the first use of nn.models (Note [Lazy namespaces], lua/torch/init.lua). Names: Note [Model
-- names] (nn/models/resnet.lua).
require 'nn'
local models = rawget(nn, 'models') or {}
rawset(nn, 'models', models)  -- torch.class('nn.models.X') below installs into this table
require 'nn.models.common'
for _, family in ipairs({ 'resnet', 'vgg', 'alexnet', 'squeezenet', 'mobilenet', 'densenet', 'shufflenet',
                          'efficientnet' }) do
  if package.searchpath('nn.models.' .. family, package.path) then require('nn.models.' .. family) end
end
return models
